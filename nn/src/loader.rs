//! Reading an Lc0 weights file: gzip, `pblczero.Net`, header checks, format upgrade and the assembly of
//! a [`Network`] with sizes inferred and checked (LC0-NOTES §5.1–5.7).

use std::io::Read;
use std::path::Path;

use prost::Message;

use crate::error::{NetworkProblem, NnError};
use crate::layer::{check_len, conv, dense, required};
use crate::network::{
    Activation, InputFormat, MovesLeftHead, Network, PolicyHead, ResidualBlock, SqueezeExcitation,
    ValueHead, ValueKind,
};
use crate::proto::{
    self, input_format, moves_left_format, network_structure, policy_format, value_format,
};

/// The engine version whose networks this crate runs (lc0 0.33.0).
const ENGINE_VERSION: u64 = 33_000;
/// `min_version` 97.98.99 marks test networks and is never too new.
const SENTINEL_VERSION: u64 = 97_098_099;
/// The number of input planes.
const INPUT_PLANES: usize = 112;

/// Loads a network from a `.pb.gz` (or uncompressed `.pb`) file.
pub fn load_network(path: &Path) -> Result<Network, NnError> {
    let bytes = std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => NnError::WeightsNotFound {
            path: path.to_path_buf(),
        },
        _ => NnError::Io {
            path: path.to_path_buf(),
            source,
        },
    })?;
    parse_network(&bytes).map_err(|reason| NnError::InvalidNetwork {
        path: path.to_path_buf(),
        reason,
    })
}

/// Parses the bytes of a weights file (gzip-compressed or not).
pub fn parse_network(bytes: &[u8]) -> Result<Network, NetworkProblem> {
    let raw = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| NetworkProblem::Gzip(e.to_string()))?;
        out
    } else {
        bytes.to_vec()
    };
    if let [version @ (b'1' | b'2'), b'\n', ..] = raw.as_slice() {
        return Err(NetworkProblem::TextFormat(char::from(*version)));
    }
    let net =
        proto::Net::decode(raw.as_slice()).map_err(|e| NetworkProblem::Protobuf(e.to_string()))?;
    build_network(&net)
}

/// Checks the header of a decoded message and assembles its network.
pub fn build_network(net: &proto::Net) -> Result<Network, NetworkProblem> {
    let magic = net.magic.unwrap_or(0);
    if magic != 0x1c0 {
        return Err(NetworkProblem::Magic(magic));
    }
    let version = net.min_version.as_ref().map(|v| {
        let (major, minor, patch) = (
            v.major.unwrap_or(0),
            v.minor.unwrap_or(0),
            v.patch.unwrap_or(0),
        );
        (
            u64::from(major) * 1_000_000 + u64::from(minor) * 1_000 + u64::from(patch),
            format!("{major}.{minor}.{patch}"),
        )
    });
    if let Some((number, text)) = &version {
        if *number > ENGINE_VERSION && *number != SENTINEL_VERSION {
            return Err(NetworkProblem::TooNew(text.clone()));
        }
    }
    if net.onnx_model.is_some() {
        return Err(NetworkProblem::UnsupportedFormat(
            "ONNX networks are not supported (only convolutional Lc0 networks)".into(),
        ));
    }
    let weights = net
        .weights
        .as_ref()
        .ok_or_else(|| NetworkProblem::UnsupportedFormat("the file holds no weights".into()))?;
    let format = net.format.as_ref();
    if version
        .as_ref()
        .is_some_and(|(number, _)| *number < ENGINE_VERSION)
        && format.and_then(|f| f.weights_encoding) != Some(proto::Encoding::Linear16 as i32)
    {
        return Err(NetworkProblem::Encoding {
            layer: "format".into(),
            problem: "a min_version below 0.33.0 without weights_encoding LINEAR16".into(),
        });
    }
    let heads = HeadFormat::from_proto(format.and_then(|f| f.network_format.as_ref()), weights)?;
    assemble(&heads, weights)
}

/// The formats after lc0's upgrade of old files.
struct HeadFormat {
    input: InputFormat,
    activation: Activation,
    policy: i32,
    value: ValueKind,
    moves_left: bool,
}

impl HeadFormat {
    fn from_proto(
        format: Option<&proto::NetworkFormat>,
        weights: &proto::Weights,
    ) -> Result<Self, NetworkProblem> {
        let unsupported = |what: String| Err(NetworkProblem::UnsupportedFormat(what));
        let Some(format) = format else {
            return Ok(Self {
                input: InputFormat::Classical,
                activation: Activation::Relu,
                policy: policy_format::CLASSICAL,
                value: ValueKind::Classical,
                moves_left: false,
            });
        };
        let network = format.network.unwrap_or(0);
        let heads_implied = matches!(
            network,
            network_structure::CLASSICAL | network_structure::SE
        );
        match network {
            network_structure::CLASSICAL
            | network_structure::SE
            | network_structure::CLASSICAL_WITH_HEADFORMAT
            | network_structure::SE_WITH_HEADFORMAT => {}
            network_structure::ONNX => {
                return unsupported("ONNX networks are not supported".into())
            }
            6 | 7 | 134 => {
                return unsupported(format!(
                    "attention-body networks (network format {network}) are not supported"
                ))
            }
            other => return unsupported(format!("unknown network format {other}")),
        }
        if !weights.encoder.is_empty() || weights.ip_emb_w.is_some() {
            return unsupported(
                "attention-body networks (encoder layers) are not supported".into(),
            );
        }
        let input = match format.input.unwrap_or(0) {
            input_format::CLASSICAL_112_PLANE => InputFormat::Classical,
            input_format::WITH_CASTLING_PLANE => InputFormat::CastlingPlane,
            raw @ (3 | 4 | 5 | 132 | 133) => {
                return unsupported(format!(
                    "canonical input format {raw} is not supported (only formats 1 and 2)"
                ))
            }
            other => return unsupported(format!("unknown input format {other}")),
        };
        let activation = match format.default_activation.unwrap_or(0) {
            0 => Activation::Relu,
            1 => Activation::Mish,
            other => return unsupported(format!("unknown default activation {other}")),
        };
        let (policy, value) = if heads_implied {
            (policy_format::CLASSICAL, ValueKind::Classical)
        } else {
            let policy = format.policy.unwrap_or(0);
            if !matches!(
                policy,
                policy_format::CLASSICAL | policy_format::CONVOLUTION | policy_format::ATTENTION
            ) {
                return unsupported(format!("unknown policy format {policy}"));
            }
            let value = match format.value.unwrap_or(0) {
                value_format::CLASSICAL => ValueKind::Classical,
                value_format::WDL => ValueKind::Wdl,
                other => {
                    return unsupported(format!(
                        "value format {other} is not supported (only classical and WDL)"
                    ))
                }
            };
            (policy, value)
        };
        let moves_left = match format.moves_left.unwrap_or(0) {
            moves_left_format::NONE => false,
            moves_left_format::V1 => true,
            other => return unsupported(format!("unknown moves-left format {other}")),
        };
        Ok(Self {
            input,
            activation,
            policy,
            value,
            moves_left,
        })
    }
}

fn assemble(format: &HeadFormat, w: &proto::Weights) -> Result<Network, NetworkProblem> {
    let input = conv(w.input.as_ref(), INPUT_PLANES, 3, "input")?;
    let filters = input.out_channels;
    let tower = w
        .residual
        .iter()
        .enumerate()
        .map(|(i, block)| residual_block(block, filters, i))
        .collect::<Result<Vec<_>, _>>()?;
    let policy = policy_head(format.policy, w, filters)?;
    let value_conv = conv(w.value.as_ref(), filters, 1, "value")?;
    let value_fc1 = dense(
        w.ip1_val_w.as_ref(),
        w.ip1_val_b.as_ref(),
        value_conv.out_channels * 64,
        "ip1_val",
    )?;
    let value_fc2 = dense(
        w.ip2_val_w.as_ref(),
        w.ip2_val_b.as_ref(),
        value_fc1.outputs,
        "ip2_val",
    )?;
    let value_outputs = if format.value == ValueKind::Wdl { 3 } else { 1 };
    check_len(&value_fc2.biases, value_outputs, "ip2_val bias")?;
    let value = ValueHead {
        kind: format.value,
        conv: value_conv,
        fc1: value_fc1,
        fc2: value_fc2,
    };
    let moves_left = if format.moves_left {
        let conv = conv(w.moves_left.as_ref(), filters, 1, "moves_left")?;
        let fc1 = dense(
            w.ip1_mov_w.as_ref(),
            w.ip1_mov_b.as_ref(),
            conv.out_channels * 64,
            "ip1_mov",
        )?;
        let fc2 = dense(
            w.ip2_mov_w.as_ref(),
            w.ip2_mov_b.as_ref(),
            fc1.outputs,
            "ip2_mov",
        )?;
        check_len(&fc2.biases, 1, "ip2_mov bias")?;
        Some(MovesLeftHead { conv, fc1, fc2 })
    } else {
        None
    };
    Ok(Network {
        input_format: format.input,
        activation: format.activation,
        input,
        tower,
        policy,
        value,
        moves_left,
    })
}

fn residual_block(
    block: &proto::Residual,
    filters: usize,
    index: usize,
) -> Result<ResidualBlock, NetworkProblem> {
    let name = |part: &str| format!("residual[{index}].{part}");
    let conv1 = conv(block.conv1.as_ref(), filters, 3, &name("conv1"))?;
    check_len(&conv1.biases, filters, &name("conv1 output channels"))?;
    let conv2 = conv(block.conv2.as_ref(), filters, 3, &name("conv2"))?;
    check_len(&conv2.biases, filters, &name("conv2 output channels"))?;
    let se = match &block.se {
        None => None,
        Some(se) => {
            let fc1 = dense(se.w1.as_ref(), se.b1.as_ref(), filters, &name("se.1"))?;
            let fc2 = dense(se.w2.as_ref(), se.b2.as_ref(), fc1.outputs, &name("se.2"))?;
            check_len(&fc2.biases, 2 * filters, &name("se.b2"))?;
            Some(SqueezeExcitation { fc1, fc2 })
        }
    };
    Ok(ResidualBlock { conv1, conv2, se })
}

fn policy_head(
    policy: i32,
    w: &proto::Weights,
    filters: usize,
) -> Result<PolicyHead, NetworkProblem> {
    match policy {
        policy_format::CLASSICAL => {
            let conv = conv(w.policy.as_ref(), filters, 1, "policy")?;
            let fc = dense(
                w.ip_pol_w.as_ref(),
                w.ip_pol_b.as_ref(),
                conv.out_channels * 64,
                "ip_pol",
            )?;
            check_len(&fc.biases, crate::policy_map::POLICY_SIZE, "ip_pol bias")?;
            Ok(PolicyHead::Classical { conv, fc })
        }
        policy_format::CONVOLUTION => {
            let conv1 = conv(w.policy1.as_ref(), filters, 3, "policy1")?;
            check_len(&conv1.biases, filters, "policy1 output channels")?;
            let conv2 = conv(w.policy.as_ref(), filters, 3, "policy")?;
            check_len(&conv2.biases, 80, "policy output channels")?;
            Ok(PolicyHead::Convolution { conv1, conv2 })
        }
        _ => {
            if !w.pol_encoder.is_empty() {
                return Err(NetworkProblem::UnsupportedFormat(
                    "attention policy heads with encoder layers are not supported".into(),
                ));
            }
            let embedding = dense(w.ip_pol_w.as_ref(), w.ip_pol_b.as_ref(), filters, "ip_pol")?;
            let query = dense(
                w.ip2_pol_w.as_ref(),
                w.ip2_pol_b.as_ref(),
                embedding.outputs,
                "ip2_pol",
            )?;
            let key = dense(
                w.ip3_pol_w.as_ref(),
                w.ip3_pol_b.as_ref(),
                embedding.outputs,
                "ip3_pol",
            )?;
            check_len(&key.biases, query.outputs, "ip3_pol bias")?;
            let promotion = required(w.ip4_pol_w.as_ref(), "ip4_pol_w")?;
            check_len(&promotion, 4 * key.outputs, "ip4_pol_w")?;
            Ok(PolicyHead::Attention {
                embedding,
                query,
                key,
                promotion,
            })
        }
    }
}
