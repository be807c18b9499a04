//! Every network Kairos loads written as an ONNX model with lc0's interface (`lc0 leela2onnx`): input
//! `/input/planes` `[batch][112][8][8]`; outputs `/output/policy` `[batch][1858]` logits, `/output/wdl` `[batch][3]`
//! probabilities (or `/output/value` `[batch][1]` through tanh for a classical value head) and `/output/mlh`
//! `[batch][1]` where the network has a moves-left head. In fp16 the input, the weights and the outputs are all
//! half precision, as lc0's converter writes them. Opset 17, the first with `LayerNormalization`; Mish, Swish and
//! the squared ReLU are built from its primitives. One module per body type and per head, as in [`crate::network`].

mod attention;
mod graph;
mod policy;
pub mod proto;
mod residual;
mod value;

use attention::SmolgenGlobal;
use graph::Graph;
use proto::{ModelProto, OperatorSetIdProto};

use crate::encoder::PLANES;
use crate::network::{Body, Network, ValueKind};
use crate::policy_map::POLICY_SIZE;

/// The opset the models use: 17 has `LayerNormalization`, which the attention bodies need.
pub const OPSET: i64 = 17;
/// The IR version of opset 17.
const IR_VERSION: i64 = 8;
/// The input planes' name.
pub const INPUT_PLANES: &str = "/input/planes";
/// The policy logits' name.
pub const OUTPUT_POLICY: &str = "/output/policy";
/// The W/D/L probabilities' name (a WDL value head).
pub const OUTPUT_WDL: &str = "/output/wdl";
/// The value's name (a classical value head).
pub const OUTPUT_VALUE: &str = "/output/value";
/// The moves-left output's name.
pub const OUTPUT_MLH: &str = "/output/mlh";

/// The element type of the model's weights, input and outputs (lc0's `--onnx-data-type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    /// IEEE single precision.
    F32,
    /// IEEE half precision.
    F16,
}

impl DataType {
    /// Every data type's name, as lc0's flag takes them.
    pub const NAMES: &'static str = "f32, f16";

    /// The data type of lc0's name for it (`f32`, `f16`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "f32" => Some(DataType::F32),
            "f16" => Some(DataType::F16),
            _ => None,
        }
    }
}

/// Why a network could not be written as ONNX.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// An encoder layer has smolgen but the file has no global smolgen weights.
    #[error(
        "an encoder layer has smolgen but the network has no global smolgen weights (smolgen_w); the file is incomplete, use the network as its trainer wrote it"
    )]
    SmolgenWithoutGlobalWeights,
    /// A head that reads convolution planes on an attention body's squares.
    #[error(
        "the network's {head} reads convolution planes, which an attention body does not have; such a network cannot be run by Kairos or lc0 either"
    )]
    PlanesOnAttentionBody {
        /// The head.
        head: &'static str,
    },
}

/// What the body hands the heads.
enum Features {
    /// A residual tower's NCHW planes, `[batch][filters][8][8]`.
    Planes { name: String, filters: i64 },
    /// An attention body's `[batch][64][embedding]` squares.
    Squares(String),
}

impl Features {
    /// The NCHW planes, which only a residual tower has.
    fn planes(&self) -> Result<&str, ExportError> {
        match self {
            Features::Planes { name, .. } => Ok(name),
            Features::Squares(_) => Err(ExportError::PlanesOnAttentionBody { head: "convolutional head" }),
        }
    }

    /// The features one row a square, `[batch][64][width]`: a tower's planes transposed (a node named `name`).
    fn squares(&self, graph: &mut Graph, name: &str) -> String {
        match self {
            Features::Planes { name: planes, filters } => {
                let flat = graph.reshape(&format!("{name}/flat"), planes, &[-1, *filters, 64]);
                graph.transpose(name, &flat, &[0, 2, 1])
            }
            Features::Squares(squares) => squares.clone(),
        }
    }
}

/// The network as an ONNX model in `data_type`.
pub fn network_to_onnx(network: &Network, data_type: DataType) -> Result<ModelProto, ExportError> {
    let mut graph = Graph::new(data_type);
    let planes = graph.input(INPUT_PLANES, &[None, Some(PLANES as i64), Some(8), Some(8)]);
    let global = network.smolgen_global.as_ref().map(|projection| SmolgenGlobal {
        weights: graph.weights(
            "/const/smolgen_w",
            &graph::transposed(&projection.weights, projection.outputs, projection.inputs),
            &[projection.inputs as i64, projection.outputs as i64],
        ),
        width: projection.inputs as i64,
    });
    let activation = network.activation;
    let features = match &network.body {
        Body::Residual(tower) => Features::Planes {
            name: residual::tower(&mut graph, &planes, tower, activation),
            filters: tower.filters() as i64,
        },
        Body::Attention(body) => {
            Features::Squares(attention::body(&mut graph, &planes, body, activation, global.as_ref())?)
        }
    };
    policy::policy(&mut graph, OUTPUT_POLICY, &features, &network.policy, activation, global.as_ref())?;
    graph.output(OUTPUT_POLICY, &[None, Some(POLICY_SIZE as i64)]);
    match network.value.kind {
        ValueKind::Wdl => {
            value::value(&mut graph, OUTPUT_WDL, &features, &network.value, activation)?;
            graph.output(OUTPUT_WDL, &[None, Some(3)]);
        }
        ValueKind::Classical => {
            value::value(&mut graph, OUTPUT_VALUE, &features, &network.value, activation)?;
            graph.output(OUTPUT_VALUE, &[None, Some(1)]);
        }
    }
    if let Some(head) = &network.moves_left {
        value::moves_left(&mut graph, OUTPUT_MLH, &features, head, activation)?;
        graph.output(OUTPUT_MLH, &[None, Some(1)]);
    }
    Ok(ModelProto {
        ir_version: IR_VERSION,
        producer_name: "kairos".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        doc_string: "An Lc0 network with lc0 leela2onnx's interface".into(),
        graph: Some(graph.finish("kairos")),
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: OPSET }],
    })
}

/// The model as the bytes of an ONNX file.
pub fn encode(model: &ModelProto) -> Vec<u8> {
    prost::Message::encode_to_vec(model)
}

/// The network as the bytes of an ONNX file in `data_type`.
pub fn network_to_onnx_bytes(network: &Network, data_type: DataType) -> Result<Vec<u8>, ExportError> {
    Ok(encode(&network_to_onnx(network, data_type)?))
}
