//! The attention (transformer) body: an embedding of each square's input planes, then encoder layers of
//! multi-head self-attention with smolgen and a feed-forward network (lc0 `network_blas.cc`,
//! `ForwardEncoderLayer` and the attention body in `ComputeBlocking`).

use super::{Activation, Dense, LayerNorm, Projection};

/// How each square's features enter the embedding layer.
#[derive(Clone, Debug, PartialEq)]
pub enum InputEmbedding {
    /// The 112 planes and lc0's fixed 64-channel positional encoding (`PE_MAP`, also format 6's default).
    PositionalMap,
    /// The 112 planes and a learned positional embedding: `preprocess` maps the first 12 planes of the
    /// whole board (`[64][12]`, square-major) to `[64][channels]` (`PE_DENSE`).
    Dense {
        /// 64·12 → 64·channels.
        preprocess: Dense,
    },
}

/// The transformer body.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionBody {
    /// The positional part of each square's input.
    pub embedding: InputEmbedding,
    /// Square inputs → embedding, followed by the default activation.
    pub dense: Dense,
    /// Layer norm after the embedding (`PE_DENSE` only).
    pub norm: Option<LayerNorm>,
    /// Input gating, each `[embedding][64]`: `x·mult + add` (both or neither).
    pub gating: Option<(Vec<f32>, Vec<f32>)>,
    /// The embedding's own FFN and its residual layer norm (`PE_DENSE` only).
    pub ffn: Option<(Ffn, LayerNorm)>,
    /// The encoder layers.
    pub encoders: EncoderStack,
}

impl AttentionBody {
    /// The width of every square's features.
    pub fn embedding_size(&self) -> usize {
        self.dense.outputs
    }

    /// The body's parameters, the global smolgen weights excepted (the network holds those).
    pub fn parameters(&self) -> usize {
        let embedding = match &self.embedding {
            InputEmbedding::PositionalMap => 0,
            InputEmbedding::Dense { preprocess } => preprocess.parameters(),
        };
        embedding
            + self.dense.parameters()
            + self.norm.as_ref().map_or(0, LayerNorm::parameters)
            + self.gating.as_ref().map_or(0, |(mult, add)| mult.len() + add.len())
            + self.ffn.as_ref().map_or(0, |(ffn, norm)| ffn.parameters() + norm.parameters())
            + self.encoders.parameters()
    }
}

/// Encoder layers that run one after another with the same settings.
#[derive(Clone, Debug, PartialEq)]
pub struct EncoderStack {
    /// The layers.
    pub layers: Vec<EncoderLayer>,
    /// Attention heads of every layer.
    pub heads: usize,
    /// The factor on each sublayer's output before the residual sum: (2·body layers)^−¼ in the body, 1 in
    /// a policy head.
    pub residual_scale: f32,
    /// Smolgen's activation.
    pub smolgen_activation: Activation,
    /// The FFN's hidden activation.
    pub ffn_activation: Activation,
}

impl EncoderStack {
    /// The layers' parameters.
    pub fn parameters(&self) -> usize {
        self.layers.iter().map(EncoderLayer::parameters).sum()
    }
}

/// One encoder layer: `x = LN1(α·MHA(x) + x)`, then `x = LN2(α·FFN(x) + x)`.
#[derive(Clone, Debug, PartialEq)]
pub struct EncoderLayer {
    /// The attention.
    pub mha: Mha,
    /// The layer norm after the attention.
    pub norm1: LayerNorm,
    /// The feed-forward network.
    pub ffn: Ffn,
    /// The layer norm after the FFN.
    pub norm2: LayerNorm,
}

impl EncoderLayer {
    /// The layer's parameters.
    pub fn parameters(&self) -> usize {
        let mha = &self.mha;
        mha.query.parameters()
            + mha.key.parameters()
            + mha.value.parameters()
            + mha.output.parameters()
            + mha.smolgen.as_ref().map_or(0, Smolgen::parameters)
            + self.norm1.parameters()
            + self.ffn.parameters()
            + self.norm2.parameters()
    }
}

/// Multi-head self-attention over the squares, with scaled dot products and optional smolgen logits.
#[derive(Clone, Debug, PartialEq)]
pub struct Mha {
    /// Embedding → d_model.
    pub query: Dense,
    /// Embedding → d_model.
    pub key: Dense,
    /// Embedding → d_model.
    pub value: Dense,
    /// d_model → embedding.
    pub output: Dense,
    /// Attention logits generated from the whole board, added before the softmax.
    pub smolgen: Option<Smolgen>,
}

/// Smolgen: compress every square, two dense layers with layer norms over the whole board, and the network's
/// global weights turn each head's share into a 64×64 logit map added to that head's attention logits.
#[derive(Clone, Debug, PartialEq)]
pub struct Smolgen {
    /// Embedding → hidden channels per square.
    pub compress: Projection,
    /// 64·hidden channels → hidden size, then the activation and `norm1`.
    pub dense1: Dense,
    /// Layer norm (ε 1e-3).
    pub norm1: LayerNorm,
    /// Hidden size → heads·generator width, then the activation and `norm2`.
    pub dense2: Dense,
    /// Layer norm (ε 1e-3). Each head's share of the output then goes through the network's global
    /// smolgen weights ([`super::Network::smolgen_global`]) to a 64×64 logit map.
    pub norm2: LayerNorm,
}

impl Smolgen {
    /// The layer's own parameters (the global weights are the network's).
    pub fn parameters(&self) -> usize {
        self.compress.parameters()
            + self.dense1.parameters()
            + self.norm1.parameters()
            + self.dense2.parameters()
            + self.norm2.parameters()
    }
}

/// A two-layer feed-forward network applied to each square: activation after the first layer only.
#[derive(Clone, Debug, PartialEq)]
pub struct Ffn {
    /// Embedding → hidden size.
    pub dense1: Dense,
    /// Hidden size → embedding.
    pub dense2: Dense,
}

impl Ffn {
    /// Both layers' parameters.
    pub fn parameters(&self) -> usize {
        self.dense1.parameters() + self.dense2.parameters()
    }
}
