//! The attention body and encoder stacks as libtorch tensors, features held as `[batch][64][width]` (lc0
//! `network_blas.cc`, the attention body and `ForwardEncoderLayer`).

use tch::Tensor;

use super::dense::DenseT;
use super::TensorMaker;
use crate::network::{Activation, AttentionBody, EncoderLayer, EncoderStack, Ffn, InputEmbedding, LayerNorm, Smolgen};
use crate::positional_encoding::positional_encoding;

type TchResult<T> = Result<T, tch::TchError>;

struct LayerNormT {
    gammas: Tensor,
    betas: Tensor,
    epsilon: f64,
    width: i64,
}

impl LayerNormT {
    fn new(make: &TensorMaker, norm: &LayerNorm) -> TchResult<Self> {
        Ok(Self {
            gammas: make.vector(&norm.gammas)?,
            betas: make.vector(&norm.betas)?,
            epsilon: f64::from(norm.epsilon),
            width: norm.gammas.len() as i64,
        })
    }

    fn apply(&self, x: &Tensor) -> TchResult<Tensor> {
        x.f_layer_norm([self.width], Some(&self.gammas), Some(&self.betas), self.epsilon, false)
    }

    /// `LN(scale·y + skip)`, lc0's `LayerNorm2DWithSkipConnection`.
    fn with_skip(&self, mut y: Tensor, scale: f64, skip: &Tensor) -> TchResult<Tensor> {
        if scale != 1.0 {
            y.f_mul_scalar_(scale).map(drop)?;
        }
        y.f_add_(skip).map(drop)?;
        self.apply(&y)
    }
}

struct FfnT {
    dense1: DenseT,
    dense2: DenseT,
}

impl FfnT {
    fn new(make: &TensorMaker, ffn: &Ffn) -> TchResult<Self> {
        Ok(Self { dense1: DenseT::dense(make, &ffn.dense1)?, dense2: DenseT::dense(make, &ffn.dense2)? })
    }

    fn apply(&self, x: &Tensor, activation: Activation) -> TchResult<Tensor> {
        self.dense2.apply(&self.dense1.apply_activated(x, activation)?)
    }
}

struct SmolgenT {
    compress: DenseT,
    dense1: DenseT,
    norm1: LayerNormT,
    dense2: DenseT,
    norm2: LayerNormT,
}

impl SmolgenT {
    fn new(make: &TensorMaker, smolgen: &Smolgen) -> TchResult<Self> {
        Ok(Self {
            compress: DenseT::projection(make, &smolgen.compress)?,
            dense1: DenseT::dense(make, &smolgen.dense1)?,
            norm1: LayerNormT::new(make, &smolgen.norm1)?,
            dense2: DenseT::dense(make, &smolgen.dense2)?,
            norm2: LayerNormT::new(make, &smolgen.norm2)?,
        })
    }

    /// The `[batch][heads][64][64]` logits smolgen adds to the attention's.
    fn logits(&self, x: &Tensor, heads: i64, activation: Activation, global: &DenseT) -> TchResult<Tensor> {
        let batch = x.size()[0];
        let compressed = self.compress.apply(x)?.f_reshape([batch, -1])?;
        let hidden = self.norm1.apply(&self.dense1.apply_activated(&compressed, activation)?)?;
        let generated = self.norm2.apply(&self.dense2.apply_activated(&hidden, activation)?)?;
        global.apply(&generated.f_reshape([batch, heads, -1])?)?.f_reshape([batch, heads, 64, 64])
    }
}

struct EncoderLayerT {
    /// Query, key and value in one matrix (`[3·d_model][width]`): one call instead of three.
    qkv: DenseT,
    output: DenseT,
    smolgen: Option<SmolgenT>,
    norm1: LayerNormT,
    ffn: FfnT,
    norm2: LayerNormT,
    d_model: i64,
}

/// An encoder stack ready to run.
pub(super) struct EncoderStackT {
    layers: Vec<EncoderLayerT>,
    heads: i64,
    residual_scale: f64,
    smolgen_activation: Activation,
    ffn_activation: Activation,
}

impl EncoderStackT {
    pub fn new(make: &TensorMaker, stack: &EncoderStack) -> TchResult<Self> {
        let layer = |l: &EncoderLayer| -> TchResult<EncoderLayerT> {
            Ok(EncoderLayerT {
                qkv: DenseT::stacked(make, &[&l.mha.query, &l.mha.key, &l.mha.value])?,
                output: DenseT::dense(make, &l.mha.output)?,
                smolgen: l.mha.smolgen.as_ref().map(|s| SmolgenT::new(make, s)).transpose()?,
                norm1: LayerNormT::new(make, &l.norm1)?,
                ffn: FfnT::new(make, &l.ffn)?,
                norm2: LayerNormT::new(make, &l.norm2)?,
                d_model: l.mha.query.outputs as i64,
            })
        };
        Ok(Self {
            layers: stack.layers.iter().map(layer).collect::<TchResult<_>>()?,
            heads: stack.heads as i64,
            residual_scale: f64::from(stack.residual_scale),
            smolgen_activation: stack.smolgen_activation,
            ffn_activation: stack.ffn_activation,
        })
    }

    /// Runs every layer on `[batch][64][width]` features; `global` is the network's smolgen weights.
    pub fn apply(&self, mut x: Tensor, global: Option<&DenseT>) -> TchResult<Tensor> {
        for layer in &self.layers {
            x = self.layer(layer, &x, global)?;
        }
        Ok(x)
    }

    fn layer(&self, layer: &EncoderLayerT, x: &Tensor, global: Option<&DenseT>) -> TchResult<Tensor> {
        let batch = x.size()[0];
        let depth = layer.d_model / self.heads;
        // [batch][64][3·d_model] → three [batch][heads][64][depth].
        let qkv = layer.qkv.apply(x)?.f_reshape([batch, 64, 3, self.heads, depth])?.f_permute([2, 0, 3, 1, 4])?;
        let (q, k, v) = (qkv.f_select(0, 0)?, qkv.f_select(0, 1)?, qkv.f_select(0, 2)?);
        let smolgen = match &layer.smolgen {
            Some(smolgen) => {
                let global = global.ok_or_else(|| {
                    tch::TchError::Kind("an encoder layer has smolgen but the network has no smolgen_w".into())
                })?;
                Some(smolgen.logits(x, self.heads, self.smolgen_activation, global)?)
            }
            None => None,
        };
        // softmax(Q·Kᵀ/√depth + smolgen)·V in libtorch's fused kernel.
        let attention = Tensor::f_scaled_dot_product_attention(&q, &k, &v, smolgen.as_ref(), 0.0, false, None, false)?
            .f_permute([0, 2, 1, 3])?
            .f_reshape([batch, 64, layer.d_model])?;
        let x = layer.norm1.with_skip(layer.output.apply(&attention)?, self.residual_scale, x)?;
        layer.norm2.with_skip(layer.ffn.apply(&x, self.ffn_activation)?, self.residual_scale, &x)
    }
}

enum EmbeddingT {
    PositionalMap(Tensor),
    Dense(DenseT),
}

/// The transformer body ready to run.
pub(super) struct AttentionBodyT {
    embedding: EmbeddingT,
    dense: DenseT,
    activation: Activation,
    norm: Option<LayerNormT>,
    gating: Option<(Tensor, Tensor)>,
    ffn: Option<(FfnT, LayerNormT)>,
    encoders: EncoderStackT,
}

impl AttentionBodyT {
    pub fn new(make: &TensorMaker, body: &AttentionBody, activation: Activation) -> TchResult<Self> {
        // The gates are stored channel-major, `[embedding][64]`.
        let square_major = |values: &[f32]| -> TchResult<Tensor> {
            make.matrix(values, body.embedding_size(), 64)?.f_transpose(0, 1)?.f_contiguous()
        };
        Ok(Self {
            embedding: match &body.embedding {
                InputEmbedding::PositionalMap => {
                    EmbeddingT::PositionalMap(make.matrix(&positional_encoding(), 64, 64)?)
                }
                InputEmbedding::Dense { preprocess } => EmbeddingT::Dense(DenseT::dense(make, preprocess)?),
            },
            dense: DenseT::dense(make, &body.dense)?,
            activation,
            norm: body.norm.as_ref().map(|n| LayerNormT::new(make, n)).transpose()?,
            gating: match &body.gating {
                Some((mult, add)) => Some((square_major(mult)?, square_major(add)?)),
                None => None,
            },
            ffn: match &body.ffn {
                Some((ffn, norm)) => Some((FfnT::new(make, ffn)?, LayerNormT::new(make, norm)?)),
                None => None,
            },
            encoders: EncoderStackT::new(make, &body.encoders)?,
        })
    }

    /// `[batch][64][112]` input planes → `[batch][64][embedding]` features.
    pub fn apply(&self, planes: &Tensor, global: Option<&DenseT>) -> TchResult<Tensor> {
        let batch = planes.size()[0];
        let positional = match &self.embedding {
            EmbeddingT::PositionalMap(map) => map.f_expand([batch, 64, 64], false)?,
            EmbeddingT::Dense(preprocess) => preprocess
                .apply(&planes.f_narrow(2, 0, 12)?.f_reshape([batch, 64 * 12])?)?
                .f_reshape([batch, 64, -1])?,
        };
        let input = Tensor::f_cat(&[planes, &positional], 2)?;
        let mut x = self.dense.apply_activated(&input, self.activation)?;
        if let Some(norm) = &self.norm {
            x = norm.apply(&x)?;
        }
        if let Some((mult, add)) = &self.gating {
            x = x.f_mul(mult)?.f_add(add)?;
        }
        if let Some((ffn, norm)) = &self.ffn {
            let y = ffn.apply(&x, self.encoders.ffn_activation)?;
            x = norm.with_skip(y, self.encoders.residual_scale, &x)?;
        }
        self.encoders.apply(x, global)
    }
}
