//! The network format after lc0's upgrade of older files (lc0 `src/neural/loader.cc`,
//! `FixOlderWeightsFile`), checked against what lc0's CPU backends run (`network_blas.cc`,
//! `MakeBlasNetwork`).

use crate::error::NetworkProblem;
use crate::network::{Activation, InputFormat, ValueKind};
use crate::proto::{
    self, activation_function, input_embedding, input_format, moves_left_format, network_structure, policy_format,
    value_format,
};

/// The body a format declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A residual tower (formats 1–4).
    Residual,
    /// A transformer (formats 6, 7 and 134).
    Attention,
}

/// The policy head a format declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    /// 1×1 conv and a fully connected layer.
    Classical,
    /// Two 3×3 convolutions.
    Convolution,
    /// Query-key attention over squares.
    Attention,
}

/// Everything the format fields say, upgraded and validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetFormat {
    /// How positions are encoded.
    pub input: InputFormat,
    /// The body.
    pub body: BodyKind,
    /// The policy head.
    pub policy: PolicyKind,
    /// The value head's output.
    pub value: ValueKind,
    /// Whether the network has a moves-left head.
    pub moves_left: bool,
    /// The default activation.
    pub activation: Activation,
    /// Smolgen's activation (attention bodies).
    pub smolgen_activation: Activation,
    /// The encoder FFN's activation (attention bodies).
    pub ffn_activation: Activation,
    /// Whether the attention body has the learned dense positional embedding.
    pub dense_embedding: bool,
}

/// A format field's values that lc0 runs, with their meaning.
pub type FieldValues = &'static [(i32, &'static str)];

/// `NetworkFormat.network`.
pub const NETWORKS: FieldValues = &[
    (1, "classical"),
    (2, "SE"),
    (3, "classical with head format"),
    (4, "SE with head format"),
    (6, "attention body"),
    (7, "attention body with multi-head format"),
    (134, "legacy attention body with multi-head format"),
];
/// `NetworkFormat.input`.
pub const INPUTS: FieldValues = &[
    (1, "classical"),
    (2, "castling plane"),
    (3, "canonical"),
    (4, "canonical hectoplies"),
    (5, "canonical V2"),
    (132, "canonical hectoplies armageddon"),
    (133, "canonical V2 armageddon"),
];
/// `NetworkFormat.policy`.
pub const POLICIES: FieldValues = &[(1, "classical"), (2, "convolution"), (3, "attention")];
/// `NetworkFormat.value`.
pub const VALUES: FieldValues = &[(1, "classical"), (2, "WDL")];
/// `NetworkFormat.moves_left`.
pub const MOVES_LEFT: FieldValues = &[(0, "none"), (1, "V1")];
/// `NetworkFormat.default_activation`.
pub const DEFAULT_ACTIVATIONS: FieldValues = &[(0, "ReLU"), (1, "Mish")];
/// `NetworkFormat.smolgen_activation` and `ffn_activation`.
pub const ACTIVATIONS: FieldValues = &[
    (0, "default"),
    (1, "Mish"),
    (2, "ReLU"),
    (3, "none"),
    (4, "tanh"),
    (5, "sigmoid"),
    (6, "SELU"),
    (7, "swish"),
    (8, "ReLU²"),
];
/// `NetworkFormat.input_embedding`.
pub const EMBEDDINGS: FieldValues =
    &[(0, "none (positional map)"), (1, "positional map"), (2, "dense positional embedding")];

/// `value (meaning)`, or the value alone when lc0 does not run it.
pub fn describe_value(values: FieldValues, value: i32) -> String {
    match values.iter().find(|(v, _)| *v == value) {
        Some((_, meaning)) => format!("{value} ({meaning})"),
        None => format!("{value} (not supported)"),
    }
}

fn unsupported(field: &'static str, value: i32, supported: FieldValues) -> NetworkProblem {
    NetworkProblem::UnsupportedValue {
        field,
        value,
        supported: supported.iter().map(|(v, meaning)| format!("{v} {meaning}")).collect::<Vec<_>>().join(", "),
    }
}

impl NetFormat {
    /// Reads the format fields of a file, upgrading older files as lc0 does.
    pub fn from_proto(format: Option<&proto::NetworkFormat>, weights: &proto::Weights) -> Result<Self, NetworkProblem> {
        let Some(format) = format else {
            return Ok(Self::legacy(InputFormat::Classical, Activation::Relu, false));
        };
        let mut network = format.network.unwrap_or(0);
        let mut smolgen_activation = format.smolgen_activation.unwrap_or(0);
        let mut ffn_activation = format.ffn_activation.unwrap_or(0);
        let mut embedding = format.input_embedding;
        if network == network_structure::SE_WITH_HEADFORMAT && !weights.encoder.is_empty() {
            // An attention body written with an older schema; with smolgen its activations were fixed.
            network = network_structure::ATTENTION_BODY_WITH_HEADFORMAT;
            if weights.smolgen_w.is_some() {
                ffn_activation = activation_function::RELU_2;
                smolgen_activation = activation_function::SWISH;
            }
        }
        if network == network_structure::AB_LEGACY_WITH_MULTIHEADFORMAT {
            network = network_structure::ATTENTION_BODY_WITH_MULTIHEADFORMAT;
        }
        if network == network_structure::ATTENTION_BODY_WITH_HEADFORMAT {
            if weights.policy_heads.is_some() && weights.value_heads.is_some() {
                network = network_structure::ATTENTION_BODY_WITH_MULTIHEADFORMAT;
                embedding = Some(input_embedding::PE_DENSE);
            }
            embedding = embedding.or(Some(input_embedding::PE_MAP));
        }
        let input = input_format_of(format.input.unwrap_or(0))?;
        let activation = match format.default_activation.unwrap_or(0) {
            0 => Activation::Relu,
            1 => Activation::Mish,
            other => return Err(unsupported("default_activation", other, DEFAULT_ACTIVATIONS)),
        };
        let body = match network {
            network_structure::CLASSICAL | network_structure::SE => {
                return Ok(Self::legacy(input, activation, moves_left_of(format)?));
            }
            network_structure::CLASSICAL_WITH_HEADFORMAT | network_structure::SE_WITH_HEADFORMAT => BodyKind::Residual,
            network_structure::ATTENTION_BODY_WITH_HEADFORMAT
            | network_structure::ATTENTION_BODY_WITH_MULTIHEADFORMAT => BodyKind::Attention,
            network_structure::ONNX => {
                return Err(NetworkProblem::UnsupportedFormat(
                    "network 5 (an ONNX model) is not supported: use the Lc0 weights (.pb.gz) of the net".into(),
                ))
            }
            other => return Err(unsupported("network", other, NETWORKS)),
        };
        let policy = match format.policy.unwrap_or(0) {
            policy_format::CLASSICAL => PolicyKind::Classical,
            policy_format::CONVOLUTION => PolicyKind::Convolution,
            policy_format::ATTENTION => PolicyKind::Attention,
            other => return Err(unsupported("policy", other, POLICIES)),
        };
        let value = match format.value.unwrap_or(0) {
            value_format::CLASSICAL => ValueKind::Classical,
            value_format::WDL => ValueKind::Wdl,
            other => return Err(unsupported("value", other, VALUES)),
        };
        let dense_embedding = match embedding.unwrap_or(input_embedding::NONE) {
            input_embedding::NONE | input_embedding::PE_MAP => false,
            input_embedding::PE_DENSE => true,
            other => return Err(unsupported("input_embedding", other, EMBEDDINGS)),
        };
        if body == BodyKind::Attention && policy != PolicyKind::Attention {
            return Err(NetworkProblem::UnsupportedFormat(format!(
                "an attention body needs the attention policy (policy 3), not policy {}",
                format.policy.unwrap_or(0)
            )));
        }
        Ok(Self {
            input,
            body,
            policy,
            value,
            moves_left: moves_left_of(format)?,
            activation,
            smolgen_activation: activation_of("smolgen_activation", smolgen_activation, activation)?,
            ffn_activation: activation_of("ffn_activation", ffn_activation, activation)?,
            dense_embedding,
        })
    }

    /// Formats 1 and 2 and files without a format: a classical policy and value on a residual tower.
    fn legacy(input: InputFormat, activation: Activation, moves_left: bool) -> Self {
        Self {
            input,
            body: BodyKind::Residual,
            policy: PolicyKind::Classical,
            value: ValueKind::Classical,
            moves_left,
            activation,
            smolgen_activation: activation,
            ffn_activation: activation,
            dense_embedding: false,
        }
    }
}

fn input_format_of(raw: i32) -> Result<InputFormat, NetworkProblem> {
    Ok(match raw {
        input_format::CLASSICAL_112_PLANE => InputFormat::Classical,
        input_format::WITH_CASTLING_PLANE => InputFormat::CastlingPlane,
        input_format::WITH_CANONICALIZATION => InputFormat::Canonical,
        input_format::WITH_CANONICALIZATION_HECTOPLIES => InputFormat::CanonicalHectoplies,
        input_format::WITH_CANONICALIZATION_HECTOPLIES_ARMAGEDDON => InputFormat::CanonicalHectopliesArmageddon,
        input_format::WITH_CANONICALIZATION_V2 => InputFormat::CanonicalV2,
        input_format::WITH_CANONICALIZATION_V2_ARMAGEDDON => InputFormat::CanonicalV2Armageddon,
        other => return Err(unsupported("input", other, INPUTS)),
    })
}

fn moves_left_of(format: &proto::NetworkFormat) -> Result<bool, NetworkProblem> {
    match format.moves_left.unwrap_or(0) {
        moves_left_format::NONE => Ok(false),
        moves_left_format::V1 => Ok(true),
        other => Err(unsupported("moves_left", other, MOVES_LEFT)),
    }
}

/// An `ActivationFunction` field: 0 is the default activation; softmax is refused as lc0's CPU backends do.
fn activation_of(field: &'static str, raw: i32, default: Activation) -> Result<Activation, NetworkProblem> {
    Ok(match raw {
        activation_function::DEFAULT => default,
        activation_function::MISH => Activation::Mish,
        activation_function::RELU => Activation::Relu,
        activation_function::NONE => Activation::None,
        activation_function::TANH => Activation::Tanh,
        activation_function::SIGMOID => Activation::Sigmoid,
        activation_function::SELU => Activation::Selu,
        activation_function::SWISH => Activation::Swish,
        activation_function::RELU_2 => Activation::Relu2,
        other => return Err(unsupported(field, other, ACTIVATIONS)),
    })
}
