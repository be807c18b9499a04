//! The policy heads: classical, convolution and attention (docs/lc0/network.md §5.6; lc0 `network_blas.cc`).

use super::{Activation, Conv, Dense, EncoderStack};

/// The policy head.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyHead {
    /// 1×1 conv + activation, then a fully connected layer to the 1858 moves.
    Classical {
        /// The 1×1 convolution.
        conv: Conv,
        /// Flattened channels → 1858 logits.
        fc: Dense,
    },
    /// 3×3 conv + activation, then a 3×3 conv to 80 planes (73 used), mapped by the 73×64 table.
    Convolution {
        /// First convolution (BN folded).
        conv1: Conv,
        /// Second convolution (bias only).
        conv2: Conv,
    },
    /// Square embedding, optional encoder layers, query-key logits and promotion offsets, mapped by the
    /// 4288 table.
    Attention(AttentionPolicy),
}

/// The attention policy head.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionPolicy {
    /// Body features of a square → policy embedding.
    pub embedding: Dense,
    /// After the embedding: SELU on a convolutional body, the default activation on an attention body.
    pub embedding_activation: Activation,
    /// The head's own encoder layers, if any.
    pub encoders: Option<EncoderStack>,
    /// Embedding → query width.
    pub query: Dense,
    /// Embedding → key width (the same as the query's).
    pub key: Dense,
    /// `[4][key width]`, no bias: promotion offsets (queen, rook, bishop, common knight term).
    pub promotion: Vec<f32>,
}

impl PolicyHead {
    /// The head's parameters.
    pub fn parameters(&self) -> usize {
        match self {
            PolicyHead::Classical { conv, fc } => conv.parameters() + fc.parameters(),
            PolicyHead::Convolution { conv1, conv2 } => conv1.parameters() + conv2.parameters(),
            PolicyHead::Attention(head) => {
                head.embedding.parameters()
                    + head.encoders.as_ref().map_or(0, EncoderStack::parameters)
                    + head.query.parameters()
                    + head.key.parameters()
                    + head.promotion.len()
            }
        }
    }
}
