//! The subset of lczero-common's `net.proto` (`pblczero.Net`, proto2) that convolutional networks use,
//! written by hand for prost (LC0-NOTES §5.1). Field numbers follow the schema; fields of formats this
//! crate cannot run are kept only as far as needed to recognise and reject them.

/// The top-level message of a weights file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Net {
    /// Must be 0x1c0.
    #[prost(fixed32, optional, tag = "1")]
    pub magic: Option<u32>,
    /// Free-form licence text.
    #[prost(string, optional, tag = "2")]
    pub license: Option<String>,
    /// The oldest engine version that can run the network.
    #[prost(message, optional, tag = "3")]
    pub min_version: Option<EngineVersion>,
    /// How the weights and the network are laid out.
    #[prost(message, optional, tag = "4")]
    pub format: Option<Format>,
    /// The layer weights.
    #[prost(message, optional, tag = "10")]
    pub weights: Option<Weights>,
    /// An ONNX model instead of weights (unsupported here, recognised to be rejected by name).
    #[prost(bytes = "vec", optional, tag = "11")]
    pub onnx_model: Option<Vec<u8>>,
}

/// An engine version `major.minor.patch`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EngineVersion {
    /// Major version.
    #[prost(uint32, optional, tag = "1")]
    pub major: Option<u32>,
    /// Minor version.
    #[prost(uint32, optional, tag = "2")]
    pub minor: Option<u32>,
    /// Patch level.
    #[prost(uint32, optional, tag = "3")]
    pub patch: Option<u32>,
}

/// The weight encoding and the network format.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Format {
    /// Default encoding of the layers ([`Encoding`]).
    #[prost(enumeration = "Encoding", optional, tag = "1")]
    pub weights_encoding: Option<i32>,
    /// Input, body and head formats.
    #[prost(message, optional, tag = "2")]
    pub network_format: Option<NetworkFormat>,
}

/// Input, body and head formats; the enums are kept as raw integers because unknown values must be
/// reported, not dropped.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NetworkFormat {
    /// Input planes ([`InputFormat`]).
    #[prost(int32, optional, tag = "1")]
    pub input: Option<i32>,
    /// Value output (0 unknown, 1 classical, 2 WDL).
    #[prost(int32, optional, tag = "2")]
    pub output: Option<i32>,
    /// Body ([`NetworkStructure`]).
    #[prost(int32, optional, tag = "3")]
    pub network: Option<i32>,
    /// Policy head ([`PolicyFormat`]).
    #[prost(int32, optional, tag = "4")]
    pub policy: Option<i32>,
    /// Value head ([`ValueFormat`]).
    #[prost(int32, optional, tag = "5")]
    pub value: Option<i32>,
    /// Moves-left head (0 none, 1 V1).
    #[prost(int32, optional, tag = "6")]
    pub moves_left: Option<i32>,
    /// Default activation (0 ReLU, 1 Mish).
    #[prost(int32, optional, tag = "7")]
    pub default_activation: Option<i32>,
}

/// Layer encodings (`Weights.Layer.Encoding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum Encoding {
    /// Explicitly unknown: rejected.
    UnknownEncoding = 0,
    /// 16-bit linear quantisation between `min_val` and `max_val`.
    Linear16 = 1,
    /// IEEE half precision.
    Float16 = 2,
    /// bfloat16.
    Bfloat16 = 3,
    /// IEEE single precision.
    Float32 = 4,
}

/// Input plane formats (`NetworkFormat.InputFormat`).
pub mod input_format {
    /// 112 planes, castling rights as four all-ones planes.
    pub const CLASSICAL_112_PLANE: i32 = 1;
    /// 112 planes, castling rights as rook squares.
    pub const WITH_CASTLING_PLANE: i32 = 2;
}

/// Body formats (`NetworkFormat.NetworkStructure`).
pub mod network_structure {
    /// Residual tower, heads implied.
    pub const CLASSICAL: i32 = 1;
    /// Residual tower with SE, heads implied.
    pub const SE: i32 = 2;
    /// Residual tower, heads given by the format.
    pub const CLASSICAL_WITH_HEADFORMAT: i32 = 3;
    /// Residual tower with SE, heads given by the format.
    pub const SE_WITH_HEADFORMAT: i32 = 4;
    /// An ONNX model.
    pub const ONNX: i32 = 5;
}

/// Policy head formats (`NetworkFormat.PolicyFormat`).
pub mod policy_format {
    /// 1×1 convolution and a fully connected layer to 1858 outputs.
    pub const CLASSICAL: i32 = 1;
    /// Two 3×3 convolutions to 80×64 outputs.
    pub const CONVOLUTION: i32 = 2;
    /// Query-key attention over squares.
    pub const ATTENTION: i32 = 3;
}

/// Value head formats (`NetworkFormat.ValueFormat`).
pub mod value_format {
    /// One tanh output.
    pub const CLASSICAL: i32 = 1;
    /// Win, draw, loss.
    pub const WDL: i32 = 2;
}

/// Moves-left head formats (`NetworkFormat.MovesLeftFormat`).
pub mod moves_left_format {
    /// No head.
    pub const NONE: i32 = 0;
    /// Convolution and two fully connected layers.
    pub const V1: i32 = 1;
}

/// One tensor of weights.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Layer {
    /// Lower bound of the LINEAR16 range.
    #[prost(float, optional, tag = "1")]
    pub min_val: Option<f32>,
    /// Upper bound of the LINEAR16 range.
    #[prost(float, optional, tag = "2")]
    pub max_val: Option<f32>,
    /// The encoded values, little-endian.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub params: Option<Vec<u8>>,
    /// This layer's encoding; unset means LINEAR16.
    #[prost(enumeration = "Encoding", optional, tag = "4")]
    pub encoding: Option<i32>,
    /// Optional shape.
    #[prost(uint32, repeated, packed = "false", tag = "5")]
    pub dims: Vec<u32>,
}

/// A convolution with its batch normalisation.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ConvBlock {
    /// Kernel, OIHW.
    #[prost(message, optional, tag = "1")]
    pub weights: Option<Layer>,
    /// Convolution bias.
    #[prost(message, optional, tag = "2")]
    pub biases: Option<Layer>,
    /// Batch-norm means.
    #[prost(message, optional, tag = "3")]
    pub bn_means: Option<Layer>,
    /// Batch-norm variances (named stddivs in the schema).
    #[prost(message, optional, tag = "4")]
    pub bn_stddivs: Option<Layer>,
    /// Batch-norm scales.
    #[prost(message, optional, tag = "5")]
    pub bn_gammas: Option<Layer>,
    /// Batch-norm offsets.
    #[prost(message, optional, tag = "6")]
    pub bn_betas: Option<Layer>,
}

/// A squeeze-excitation unit.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SeUnit {
    /// First fully connected layer, `[se][filters]`.
    #[prost(message, optional, tag = "1")]
    pub w1: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "2")]
    pub b1: Option<Layer>,
    /// Second fully connected layer, `[2·filters][se]`.
    #[prost(message, optional, tag = "3")]
    pub w2: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "4")]
    pub b2: Option<Layer>,
}

/// A residual block.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Residual {
    /// First 3×3 convolution.
    #[prost(message, optional, tag = "1")]
    pub conv1: Option<ConvBlock>,
    /// Second 3×3 convolution.
    #[prost(message, optional, tag = "2")]
    pub conv2: Option<ConvBlock>,
    /// Optional squeeze-excitation.
    #[prost(message, optional, tag = "3")]
    pub se: Option<SeUnit>,
}

/// All layers of a network.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Weights {
    /// Input convolution.
    #[prost(message, optional, tag = "1")]
    pub input: Option<ConvBlock>,
    /// Residual tower.
    #[prost(message, repeated, tag = "2")]
    pub residual: Vec<Residual>,
    /// Classical policy 1×1 conv, or the convolution head's last conv.
    #[prost(message, optional, tag = "3")]
    pub policy: Option<ConvBlock>,
    /// Classical policy FC weights, or the attention policy embedding.
    #[prost(message, optional, tag = "4")]
    pub ip_pol_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "5")]
    pub ip_pol_b: Option<Layer>,
    /// Value head convolution.
    #[prost(message, optional, tag = "6")]
    pub value: Option<ConvBlock>,
    /// Value hidden layer.
    #[prost(message, optional, tag = "7")]
    pub ip1_val_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "8")]
    pub ip1_val_b: Option<Layer>,
    /// Value output layer.
    #[prost(message, optional, tag = "9")]
    pub ip2_val_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "10")]
    pub ip2_val_b: Option<Layer>,
    /// First conv of the convolution policy head.
    #[prost(message, optional, tag = "11")]
    pub policy1: Option<ConvBlock>,
    /// Moves-left convolution.
    #[prost(message, optional, tag = "12")]
    pub moves_left: Option<ConvBlock>,
    /// Moves-left hidden layer.
    #[prost(message, optional, tag = "13")]
    pub ip1_mov_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "14")]
    pub ip1_mov_b: Option<Layer>,
    /// Moves-left output layer.
    #[prost(message, optional, tag = "15")]
    pub ip2_mov_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "16")]
    pub ip2_mov_b: Option<Layer>,
    /// Attention policy queries.
    #[prost(message, optional, tag = "17")]
    pub ip2_pol_w: Option<Layer>,
    /// Their bias.
    #[prost(message, optional, tag = "18")]
    pub ip2_pol_b: Option<Layer>,
    /// Attention policy keys.
    #[prost(message, optional, tag = "19")]
    pub ip3_pol_w: Option<Layer>,
    /// Their bias.
    #[prost(message, optional, tag = "20")]
    pub ip3_pol_b: Option<Layer>,
    /// Attention policy encoder layers (unsupported; kept raw to be recognised).
    #[prost(bytes = "vec", repeated, tag = "21")]
    pub pol_encoder: Vec<Vec<u8>>,
    /// Attention policy promotion offsets, `[4][D]`.
    #[prost(message, optional, tag = "22")]
    pub ip4_pol_w: Option<Layer>,
    /// Attention body embedding (unsupported; kept to be recognised).
    #[prost(message, optional, tag = "25")]
    pub ip_emb_w: Option<Layer>,
    /// Attention body encoder layers (unsupported; kept raw to be recognised).
    #[prost(bytes = "vec", repeated, tag = "27")]
    pub encoder: Vec<Vec<u8>>,
}
