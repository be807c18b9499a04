//! The attention body and encoder stacks from a weights file (lc0 `network_legacy.cc`, `BaseWeights`;
//! `network_blas.cc`, the attention body and `ForwardEncoderLayer`, for sizes and epsilons).

use super::format::NetFormat;
use crate::encoder::PLANES;
use crate::error::NetworkProblem;
use crate::layer::{check_len, dense, layer_norm, optional, projection};
use crate::network::{
    Activation, AttentionBody, EncoderLayer, EncoderStack, Ffn, InputEmbedding, Mha, Network, Projection, Smolgen,
};
use crate::proto;

/// The channels of lc0's fixed positional encoding (`kPosEncoding`, `PE_MAP`).
const POSITIONAL_MAP_CHANNELS: usize = 64;
/// The leading input planes the dense positional embedding reads: the current position's pieces.
const DENSE_EMBEDDING_PLANES: usize = 12;
/// The ε of the layer norms around the embedding and in smolgen.
const EMBEDDING_EPSILON: f32 = 1e-3;

/// What the layers of one encoder stack share.
pub struct StackSettings {
    /// The factor on each sublayer's output before its residual sum.
    pub residual_scale: f32,
    /// The ε of the encoder layers' norms.
    pub epsilon: f32,
    /// Smolgen's activation.
    pub smolgen_activation: Activation,
    /// The FFN's hidden activation.
    pub ffn_activation: Activation,
}

/// The transformer body: embedding, gating, the dense embedding's norm and FFN, then the encoders.
pub fn body(w: &proto::Weights, format: &NetFormat) -> Result<AttentionBody, NetworkProblem> {
    let (embedding, positional_channels) = if format.dense_embedding {
        let preprocess = dense(
            w.ip_emb_preproc_w.as_ref(),
            w.ip_emb_preproc_b.as_ref(),
            64 * DENSE_EMBEDDING_PLANES,
            "ip_emb_preproc",
        )?;
        if !preprocess.outputs.is_multiple_of(64) {
            return Err(NetworkProblem::WrongSize {
                layer: "ip_emb_preproc bias".into(),
                expected: preprocess.outputs.div_ceil(64) * 64,
                actual: preprocess.outputs,
            });
        }
        let channels = preprocess.outputs / 64;
        (InputEmbedding::Dense { preprocess }, channels)
    } else {
        (InputEmbedding::PositionalMap, POSITIONAL_MAP_CHANNELS)
    };
    let dense_layer = dense(w.ip_emb_w.as_ref(), w.ip_emb_b.as_ref(), PLANES + positional_channels, "ip_emb")?;
    let width = dense_layer.outputs;
    let layers = w.encoder.len();
    // lc0 computes (2·layers)^−¼ in double and rounds it to float.
    let residual_scale = (2.0 * layers as f64).powf(-0.25) as f32;
    let (norm, ffn) = if format.dense_embedding {
        let norm =
            layer_norm(w.ip_emb_ln_gammas.as_ref(), w.ip_emb_ln_betas.as_ref(), width, EMBEDDING_EPSILON, "ip_emb_ln")?;
        let ffn_weights = w.ip_emb_ffn.as_ref().ok_or_else(|| NetworkProblem::MissingLayer("ip_emb_ffn".into()))?;
        let ffn = feed_forward(ffn_weights, width, "ip_emb_ffn")?;
        let ffn_norm = layer_norm(
            w.ip_emb_ffn_ln_gammas.as_ref(),
            w.ip_emb_ffn_ln_betas.as_ref(),
            width,
            EMBEDDING_EPSILON,
            "ip_emb_ffn_ln",
        )?;
        (Some(norm), Some((ffn, ffn_norm)))
    } else {
        (None, None)
    };
    let gating =
        match (optional(w.ip_mult_gate.as_ref(), "ip_mult_gate")?, optional(w.ip_add_gate.as_ref(), "ip_add_gate")?) {
            (Some(mult), Some(add)) => {
                check_len(&mult, width * 64, "ip_mult_gate")?;
                check_len(&add, width * 64, "ip_add_gate")?;
                Some((mult, add))
            }
            _ => None,
        };
    let encoders = encoder_stack(
        &w.encoder,
        w.headcount.unwrap_or(0) as usize,
        width,
        StackSettings {
            residual_scale,
            epsilon: if format.dense_embedding { 1e-3 } else { 1e-6 },
            smolgen_activation: format.smolgen_activation,
            ffn_activation: format.ffn_activation,
        },
        "encoder",
    )?;
    Ok(AttentionBody { embedding, dense: dense_layer, norm, gating, ffn, encoders })
}

/// A stack of encoder layers on `width`-wide square features with `heads` attention heads.
pub fn encoder_stack(
    layers: &[proto::EncoderLayer],
    heads: usize,
    width: usize,
    settings: StackSettings,
    name: &str,
) -> Result<EncoderStack, NetworkProblem> {
    if heads == 0 && !layers.is_empty() {
        return Err(NetworkProblem::MissingLayer(format!("the head count of {name} (0 attention heads)")));
    }
    let layers = layers
        .iter()
        .enumerate()
        .map(|(i, layer)| encoder_layer(layer, heads, width, settings.epsilon, &format!("{name}[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(EncoderStack {
        layers,
        heads,
        residual_scale: settings.residual_scale,
        smolgen_activation: settings.smolgen_activation,
        ffn_activation: settings.ffn_activation,
    })
}

fn encoder_layer(
    layer: &proto::EncoderLayer,
    heads: usize,
    width: usize,
    epsilon: f32,
    name: &str,
) -> Result<EncoderLayer, NetworkProblem> {
    let missing = |part: &str| NetworkProblem::MissingLayer(format!("{name}.{part}"));
    let mha = layer.mha.as_ref().ok_or_else(|| missing("mha"))?;
    if mha.rpe_q.is_some() || mha.rpe_k.is_some() || mha.rpe_v.is_some() {
        return Err(NetworkProblem::UnsupportedFormat(format!(
            "{name}.mha has relative position encodings (rpe_q/rpe_k/rpe_v), which lc0 does not support either"
        )));
    }
    let part = |p: &str| format!("{name}.mha.{p}");
    let query = dense(mha.q_w.as_ref(), mha.q_b.as_ref(), width, &part("q"))?;
    let d_model = query.outputs;
    if !d_model.is_multiple_of(heads) {
        return Err(NetworkProblem::UnsupportedFormat(format!(
            "{name}: {d_model} attention channels do not split into {heads} heads"
        )));
    }
    let key = dense(mha.k_w.as_ref(), mha.k_b.as_ref(), width, &part("k"))?;
    check_len(&key.biases, d_model, &part("k bias"))?;
    let value = dense(mha.v_w.as_ref(), mha.v_b.as_ref(), width, &part("v"))?;
    check_len(&value.biases, d_model, &part("v bias"))?;
    let output = dense(mha.dense_w.as_ref(), mha.dense_b.as_ref(), d_model, &part("dense"))?;
    check_len(&output.biases, width, &part("dense bias"))?;
    let smolgen = match &mha.smolgen {
        Some(s) => Some(smolgen(s, heads, width, &part("smolgen"))?),
        None => None,
    };
    let norm1 =
        layer_norm(layer.ln1_gammas.as_ref(), layer.ln1_betas.as_ref(), width, epsilon, &format!("{name}.ln1"))?;
    let ffn = feed_forward(layer.ffn.as_ref().ok_or_else(|| missing("ffn"))?, width, &format!("{name}.ffn"))?;
    let norm2 =
        layer_norm(layer.ln2_gammas.as_ref(), layer.ln2_betas.as_ref(), width, epsilon, &format!("{name}.ln2"))?;
    Ok(EncoderLayer { mha: Mha { query, key, value, output, smolgen }, norm1, ffn, norm2 })
}

fn smolgen(s: &proto::Smolgen, heads: usize, width: usize, name: &str) -> Result<Smolgen, NetworkProblem> {
    let part = |p: &str| format!("{name}.{p}");
    let compress = projection(s.compress.as_ref(), width, &part("compress"))?;
    let dense1 = dense(s.dense1_w.as_ref(), s.dense1_b.as_ref(), 64 * compress.outputs, &part("dense1"))?;
    let norm1 =
        layer_norm(s.ln1_gammas.as_ref(), s.ln1_betas.as_ref(), dense1.outputs, EMBEDDING_EPSILON, &part("ln1"))?;
    let dense2 = dense(s.dense2_w.as_ref(), s.dense2_b.as_ref(), dense1.outputs, &part("dense2"))?;
    if !dense2.outputs.is_multiple_of(heads) {
        return Err(NetworkProblem::UnsupportedFormat(format!(
            "{name}: {} generator outputs do not split into {heads} heads",
            dense2.outputs
        )));
    }
    let norm2 =
        layer_norm(s.ln2_gammas.as_ref(), s.ln2_betas.as_ref(), dense2.outputs, EMBEDDING_EPSILON, &part("ln2"))?;
    Ok(Smolgen { compress, dense1, norm1, dense2, norm2 })
}

fn feed_forward(ffn: &proto::Ffn, width: usize, name: &str) -> Result<Ffn, NetworkProblem> {
    let dense1 = dense(ffn.dense1_w.as_ref(), ffn.dense1_b.as_ref(), width, &format!("{name}.dense1"))?;
    let dense2 = dense(ffn.dense2_w.as_ref(), ffn.dense2_b.as_ref(), dense1.outputs, &format!("{name}.dense2"))?;
    check_len(&dense2.biases, width, &format!("{name}.dense2 bias"))?;
    Ok(Ffn { dense1, dense2 })
}

/// The global smolgen weights every smolgen of `network` uses, checked against each one's generator width.
pub fn smolgen_global(w: &proto::Weights, network: &Network) -> Result<Option<Projection>, NetworkProblem> {
    let stacks = network.encoder_stacks();
    let widths: Vec<usize> = stacks
        .iter()
        .flat_map(|stack| {
            stack.layers.iter().filter_map(|layer| layer.mha.smolgen.as_ref().map(|s| s.dense2.outputs / stack.heads))
        })
        .collect();
    let Some(&generator) = widths.first() else {
        return Ok(None);
    };
    let global = projection(w.smolgen_w.as_ref(), generator, "smolgen_w")?;
    check_len(&global.weights, 64 * 64 * generator, "smolgen_w")?;
    if let Some(other) = widths.iter().find(|&&g| g != generator) {
        return Err(NetworkProblem::UnsupportedFormat(format!(
            "smolgen generator widths differ between layers ({generator} and {other}), but smolgen_w is shared"
        )));
    }
    Ok(Some(global))
}
