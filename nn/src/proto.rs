//! lczero-common's `net.proto` (`pblczero.Net`, proto2) as lc0 909a4082 reads it, written by hand for prost
//! (docs/lc0/network.md §5.1; lc0 `proto/net.proto`). Field numbers follow the schema; the ONNX model is kept only to
//! be recognised and refused.

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
    /// How the network was trained (shown by `describenet`).
    #[prost(message, optional, tag = "5")]
    pub training_params: Option<TrainingParams>,
    /// The layer weights.
    #[prost(message, optional, tag = "10")]
    pub weights: Option<Weights>,
    /// An ONNX model instead of weights (unsupported here, recognised to be rejected by name).
    #[prost(bytes = "vec", optional, tag = "11")]
    pub onnx_model: Option<Vec<u8>>,
}

/// The training run's summary, as the trainer wrote it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrainingParams {
    /// Steps trained.
    #[prost(uint32, optional, tag = "1")]
    pub training_steps: Option<u32>,
    /// The learning rate at the end.
    #[prost(float, optional, tag = "2")]
    pub learning_rate: Option<f32>,
    /// The value head's mean squared error.
    #[prost(float, optional, tag = "3")]
    pub mse_loss: Option<f32>,
    /// The policy head's loss.
    #[prost(float, optional, tag = "4")]
    pub policy_loss: Option<f32>,
    /// The policy's accuracy in percent.
    #[prost(float, optional, tag = "5")]
    pub accuracy: Option<f32>,
    /// The lc0 parameters the training games were played with.
    #[prost(string, optional, tag = "6")]
    pub lc0_params: Option<String>,
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
    /// Smolgen's activation ([`activation_function`]; 0 means the default activation).
    #[prost(int32, optional, tag = "8")]
    pub smolgen_activation: Option<i32>,
    /// The encoder FFN's activation ([`activation_function`]; 0 means the default activation).
    #[prost(int32, optional, tag = "9")]
    pub ffn_activation: Option<i32>,
    /// The attention body's input embedding ([`input_embedding`]).
    #[prost(int32, optional, tag = "10")]
    pub input_embedding: Option<i32>,
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
    /// Format 2 on a canonicalised board.
    pub const WITH_CANONICALIZATION: i32 = 3;
    /// Format 3 with the fifty-move counter in hectoplies.
    pub const WITH_CANONICALIZATION_HECTOPLIES: i32 = 4;
    /// Format 4 with the armageddon plane.
    pub const WITH_CANONICALIZATION_HECTOPLIES_ARMAGEDDON: i32 = 132;
    /// Canonicalisation V2.
    pub const WITH_CANONICALIZATION_V2: i32 = 5;
    /// Canonicalisation V2 with the armageddon plane.
    pub const WITH_CANONICALIZATION_V2_ARMAGEDDON: i32 = 133;
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
    /// Attention (transformer) body, heads given by the format.
    pub const ATTENTION_BODY_WITH_HEADFORMAT: i32 = 6;
    /// Attention body with the multi-head value and policy layout.
    pub const ATTENTION_BODY_WITH_MULTIHEADFORMAT: i32 = 7;
    /// Legacy attention body upgraded to the multi-head layout (lc0's converter marks it 128 + 6).
    pub const AB_LEGACY_WITH_MULTIHEADFORMAT: i32 = 134;
}

/// Activation functions (`NetworkFormat.ActivationFunction`).
pub mod activation_function {
    /// The network's default activation.
    pub const DEFAULT: i32 = 0;
    /// x·tanh(softplus(x)).
    pub const MISH: i32 = 1;
    /// max(x, 0).
    pub const RELU: i32 = 2;
    /// The identity.
    pub const NONE: i32 = 3;
    /// tanh.
    pub const TANH: i32 = 4;
    /// The logistic function.
    pub const SIGMOID: i32 = 5;
    /// Scaled exponential linear unit.
    pub const SELU: i32 = 6;
    /// x·sigmoid(x).
    pub const SWISH: i32 = 7;
    /// max(x, 0)².
    pub const RELU_2: i32 = 8;
    /// Softmax over a vector.
    pub const SOFTMAX: i32 = 9;
}

/// The attention body's input embedding (`NetworkFormat.InputEmbeddingFormat`).
pub mod input_embedding {
    /// The fixed 64-channel positional encoding (as `PE_MAP`).
    pub const NONE: i32 = 0;
    /// The fixed 64-channel positional encoding.
    pub const PE_MAP: i32 = 1;
    /// A learned dense positional embedding, layer norm and an embedding FFN.
    pub const PE_DENSE: i32 = 2;
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
    /// Parametrised value (lc0 refuses it in every CPU backend).
    pub const PARAM: i32 = 3;
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

/// Smolgen: attention logits generated from the whole board, per encoder layer.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Smolgen {
    /// Per-square compression, `[hidden channels][embedding]`, no bias.
    #[prost(message, optional, tag = "1")]
    pub compress: Option<Layer>,
    /// First dense layer over the 64 compressed squares.
    #[prost(message, optional, tag = "2")]
    pub dense1_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "3")]
    pub dense1_b: Option<Layer>,
    /// First layer norm's scales.
    #[prost(message, optional, tag = "4")]
    pub ln1_gammas: Option<Layer>,
    /// First layer norm's offsets.
    #[prost(message, optional, tag = "5")]
    pub ln1_betas: Option<Layer>,
    /// Second dense layer, to heads × generator width.
    #[prost(message, optional, tag = "6")]
    pub dense2_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "7")]
    pub dense2_b: Option<Layer>,
    /// Second layer norm's scales.
    #[prost(message, optional, tag = "8")]
    pub ln2_gammas: Option<Layer>,
    /// Second layer norm's offsets.
    #[prost(message, optional, tag = "9")]
    pub ln2_betas: Option<Layer>,
}

/// Multi-head self-attention over the 64 squares.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Mha {
    /// Query weights.
    #[prost(message, optional, tag = "1")]
    pub q_w: Option<Layer>,
    /// Query bias.
    #[prost(message, optional, tag = "2")]
    pub q_b: Option<Layer>,
    /// Key weights.
    #[prost(message, optional, tag = "3")]
    pub k_w: Option<Layer>,
    /// Key bias.
    #[prost(message, optional, tag = "4")]
    pub k_b: Option<Layer>,
    /// Value weights.
    #[prost(message, optional, tag = "5")]
    pub v_w: Option<Layer>,
    /// Value bias.
    #[prost(message, optional, tag = "6")]
    pub v_b: Option<Layer>,
    /// Output projection weights.
    #[prost(message, optional, tag = "7")]
    pub dense_w: Option<Layer>,
    /// Output projection bias.
    #[prost(message, optional, tag = "8")]
    pub dense_b: Option<Layer>,
    /// Optional smolgen.
    #[prost(message, optional, tag = "9")]
    pub smolgen: Option<Smolgen>,
    /// Relative position encoding of queries (lc0 refuses it).
    #[prost(message, optional, tag = "10")]
    pub rpe_q: Option<Layer>,
    /// Relative position encoding of keys (lc0 refuses it).
    #[prost(message, optional, tag = "11")]
    pub rpe_k: Option<Layer>,
    /// Relative position encoding of values (lc0 refuses it).
    #[prost(message, optional, tag = "12")]
    pub rpe_v: Option<Layer>,
}

/// A two-layer feed-forward network applied to every square.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Ffn {
    /// First layer's weights.
    #[prost(message, optional, tag = "1")]
    pub dense1_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "2")]
    pub dense1_b: Option<Layer>,
    /// Second layer's weights.
    #[prost(message, optional, tag = "3")]
    pub dense2_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "4")]
    pub dense2_b: Option<Layer>,
}

/// One transformer encoder layer: attention, then the FFN, each followed by a residual layer norm.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EncoderLayer {
    /// The attention.
    #[prost(message, optional, tag = "1")]
    pub mha: Option<Mha>,
    /// Layer norm after the attention: scales.
    #[prost(message, optional, tag = "2")]
    pub ln1_gammas: Option<Layer>,
    /// Its offsets.
    #[prost(message, optional, tag = "3")]
    pub ln1_betas: Option<Layer>,
    /// The feed-forward network.
    #[prost(message, optional, tag = "4")]
    pub ffn: Option<Ffn>,
    /// Layer norm after the FFN: scales.
    #[prost(message, optional, tag = "5")]
    pub ln2_gammas: Option<Layer>,
    /// Its offsets.
    #[prost(message, optional, tag = "6")]
    pub ln2_betas: Option<Layer>,
}

/// One policy head of the multi-head layout.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PolicyHeadWeights {
    /// Embedding weights (falls back to [`PolicyHeads::ip_pol_w`] when empty).
    #[prost(message, optional, tag = "1")]
    pub ip_pol_w: Option<Layer>,
    /// Embedding bias.
    #[prost(message, optional, tag = "2")]
    pub ip_pol_b: Option<Layer>,
    /// Attention policy queries.
    #[prost(message, optional, tag = "3")]
    pub ip2_pol_w: Option<Layer>,
    /// Their bias.
    #[prost(message, optional, tag = "4")]
    pub ip2_pol_b: Option<Layer>,
    /// Attention policy keys.
    #[prost(message, optional, tag = "5")]
    pub ip3_pol_w: Option<Layer>,
    /// Their bias.
    #[prost(message, optional, tag = "6")]
    pub ip3_pol_b: Option<Layer>,
    /// Promotion offsets.
    #[prost(message, optional, tag = "7")]
    pub ip4_pol_w: Option<Layer>,
    /// The head's own encoder layers.
    #[prost(message, repeated, tag = "8")]
    pub pol_encoder: Vec<EncoderLayer>,
    /// Their attention heads.
    #[prost(uint32, optional, tag = "9")]
    pub pol_headcount: Option<u32>,
    /// First convolution of a convolution policy.
    #[prost(message, optional, tag = "10")]
    pub policy1: Option<ConvBlock>,
    /// Classical policy convolution, or a convolution policy's last one.
    #[prost(message, optional, tag = "11")]
    pub policy: Option<ConvBlock>,
}

/// One value head of the multi-head layout.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueHeadWeights {
    /// Embedding of an attention body's squares.
    #[prost(message, optional, tag = "1")]
    pub ip_val_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "2")]
    pub ip_val_b: Option<Layer>,
    /// Hidden layer.
    #[prost(message, optional, tag = "3")]
    pub ip1_val_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "4")]
    pub ip1_val_b: Option<Layer>,
    /// Output layer.
    #[prost(message, optional, tag = "5")]
    pub ip2_val_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "6")]
    pub ip2_val_b: Option<Layer>,
    /// Value-error output (training only).
    #[prost(message, optional, tag = "7")]
    pub ip_val_err_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "8")]
    pub ip_val_err_b: Option<Layer>,
    /// Categorical value output (training only).
    #[prost(message, optional, tag = "9")]
    pub ip_val_cat_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "10")]
    pub ip_val_cat_b: Option<Layer>,
    /// A convolutional body's value convolution.
    #[prost(message, optional, tag = "11")]
    pub value: Option<ConvBlock>,
}

/// A named policy head beyond the four fixed ones.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PolicyHeadMap {
    /// The head's name.
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    /// The head.
    #[prost(message, optional, tag = "2")]
    pub value: Option<PolicyHeadWeights>,
}

/// The policy heads of the multi-head layout.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PolicyHeads {
    /// The embedding the heads share.
    #[prost(message, optional, tag = "1")]
    pub ip_pol_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "2")]
    pub ip_pol_b: Option<Layer>,
    /// The head lc0 plays with.
    #[prost(message, optional, tag = "3")]
    pub vanilla: Option<PolicyHeadWeights>,
    /// Optimistic short-term policy.
    #[prost(message, optional, tag = "4")]
    pub optimistic_st: Option<PolicyHeadWeights>,
    /// Soft policy.
    #[prost(message, optional, tag = "5")]
    pub soft: Option<PolicyHeadWeights>,
    /// The opponent's policy.
    #[prost(message, optional, tag = "6")]
    pub opponent: Option<PolicyHeadWeights>,
    /// Further named heads.
    #[prost(message, repeated, tag = "7")]
    pub policy_head_map: Vec<PolicyHeadMap>,
}

/// A named value head beyond the three fixed ones.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueHeadMap {
    /// The head's name.
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    /// The head.
    #[prost(message, optional, tag = "2")]
    pub value: Option<ValueHeadWeights>,
}

/// The value heads of the multi-head layout.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueHeads {
    /// The game result head lc0 plays with.
    #[prost(message, optional, tag = "1")]
    pub winner: Option<ValueHeadWeights>,
    /// Search-Q head.
    #[prost(message, optional, tag = "2")]
    pub q: Option<ValueHeadWeights>,
    /// Short-term head.
    #[prost(message, optional, tag = "3")]
    pub st: Option<ValueHeadWeights>,
    /// Further named heads.
    #[prost(message, repeated, tag = "4")]
    pub value_head_map: Vec<ValueHeadMap>,
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
    /// Dense positional-embedding preprocessing weights (`PE_DENSE`).
    #[prost(message, optional, tag = "37")]
    pub ip_emb_preproc_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "38")]
    pub ip_emb_preproc_b: Option<Layer>,
    /// Attention body input embedding.
    #[prost(message, optional, tag = "25")]
    pub ip_emb_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "26")]
    pub ip_emb_b: Option<Layer>,
    /// Embedding layer norm's scales (`PE_DENSE`).
    #[prost(message, optional, tag = "39")]
    pub ip_emb_ln_gammas: Option<Layer>,
    /// Its offsets.
    #[prost(message, optional, tag = "40")]
    pub ip_emb_ln_betas: Option<Layer>,
    /// Input gating: multiplicative, `[embedding][64]`.
    #[prost(message, optional, tag = "33")]
    pub ip_mult_gate: Option<Layer>,
    /// Input gating: additive, `[embedding][64]`.
    #[prost(message, optional, tag = "34")]
    pub ip_add_gate: Option<Layer>,
    /// Embedding FFN (`PE_DENSE`).
    #[prost(message, optional, tag = "41")]
    pub ip_emb_ffn: Option<Ffn>,
    /// Embedding FFN layer norm's scales.
    #[prost(message, optional, tag = "42")]
    pub ip_emb_ffn_ln_gammas: Option<Layer>,
    /// Its offsets.
    #[prost(message, optional, tag = "43")]
    pub ip_emb_ffn_ln_betas: Option<Layer>,
    /// The body's encoder stack.
    #[prost(message, repeated, tag = "27")]
    pub encoder: Vec<EncoderLayer>,
    /// Its attention heads.
    #[prost(uint32, optional, tag = "28")]
    pub headcount: Option<u32>,
    /// The attention policy's own encoder stack.
    #[prost(message, repeated, tag = "21")]
    pub pol_encoder: Vec<EncoderLayer>,
    /// Its attention heads.
    #[prost(uint32, optional, tag = "24")]
    pub pol_headcount: Option<u32>,
    /// First conv of the convolution policy head.
    #[prost(message, optional, tag = "11")]
    pub policy1: Option<ConvBlock>,
    /// Classical policy 1×1 conv, or the convolution head's last conv.
    #[prost(message, optional, tag = "3")]
    pub policy: Option<ConvBlock>,
    /// Classical policy FC weights, or the attention policy embedding.
    #[prost(message, optional, tag = "4")]
    pub ip_pol_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "5")]
    pub ip_pol_b: Option<Layer>,
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
    /// Attention policy promotion offsets, `[4][D]`.
    #[prost(message, optional, tag = "22")]
    pub ip4_pol_w: Option<Layer>,
    /// Value head convolution.
    #[prost(message, optional, tag = "6")]
    pub value: Option<ConvBlock>,
    /// Attention body value embedding.
    #[prost(message, optional, tag = "29")]
    pub ip_val_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "30")]
    pub ip_val_b: Option<Layer>,
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
    /// The multi-head value heads.
    #[prost(message, optional, tag = "44")]
    pub value_heads: Option<ValueHeads>,
    /// The multi-head policy heads.
    #[prost(message, optional, tag = "45")]
    pub policy_heads: Option<PolicyHeads>,
    /// Moves-left convolution.
    #[prost(message, optional, tag = "12")]
    pub moves_left: Option<ConvBlock>,
    /// Attention body moves-left embedding.
    #[prost(message, optional, tag = "31")]
    pub ip_mov_w: Option<Layer>,
    /// Its bias.
    #[prost(message, optional, tag = "32")]
    pub ip_mov_b: Option<Layer>,
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
    /// Global smolgen weights shared by every encoder layer, `[64·64][generator width]`.
    #[prost(message, optional, tag = "35")]
    pub smolgen_w: Option<Layer>,
    /// Global smolgen bias (lc0 reads no bias).
    #[prost(message, optional, tag = "36")]
    pub smolgen_b: Option<Layer>,
}
