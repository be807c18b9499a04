//! The heads from a weights file: which of a multi-head file's heads is played (lc0's defaults, `vanilla` and
//! `winner`; the others are trained as auxiliary targets), and each head's layers (lc0
//! `network_legacy.cc`, `MultiHeadWeights`; `network_blas.cc`).

use super::attention::{encoder_stack, StackSettings};
use super::format::{BodyKind, NetFormat, PolicyKind};
use crate::error::NetworkProblem;
use crate::layer::{check_len, conv, dense, required};
use crate::network::{Activation, AttentionPolicy, HeadInput, MovesLeftHead, PolicyHead, ValueHead, ValueKind};
use crate::policy_map::POLICY_SIZE;
use crate::proto::{self, PolicyHeadWeights, ValueHeadWeights};

/// The policy and value head a network plays with, in the multi-head layout whatever the file's layout.
pub struct ChosenHeads {
    /// The `vanilla` policy head, its embedding filled from the shared one where it has none.
    pub policy: PolicyHeadWeights,
    /// The `winner` value head.
    pub value: ValueHeadWeights,
}

/// Picks the heads as lc0 does: from `policy_heads`/`value_heads` when the file has them, else from the
/// single-head fields.
pub fn choose(w: &proto::Weights) -> Result<ChosenHeads, NetworkProblem> {
    let policy = match &w.policy_heads {
        Some(heads) => {
            let mut vanilla = heads.vanilla.clone().ok_or_else(|| {
                NetworkProblem::MissingLayer("policy_heads.vanilla (the policy head lc0 plays)".into())
            })?;
            if vanilla.ip_pol_w.as_ref().is_none_or(is_empty) {
                vanilla.ip_pol_w = heads.ip_pol_w.clone().or_else(|| w.ip_pol_w.clone());
            }
            if vanilla.ip_pol_b.as_ref().is_none_or(is_empty) {
                vanilla.ip_pol_b = heads.ip_pol_b.clone().or_else(|| w.ip_pol_b.clone());
            }
            vanilla
        }
        None => PolicyHeadWeights {
            ip_pol_w: w.ip_pol_w.clone(),
            ip_pol_b: w.ip_pol_b.clone(),
            ip2_pol_w: w.ip2_pol_w.clone(),
            ip2_pol_b: w.ip2_pol_b.clone(),
            ip3_pol_w: w.ip3_pol_w.clone(),
            ip3_pol_b: w.ip3_pol_b.clone(),
            ip4_pol_w: w.ip4_pol_w.clone(),
            pol_encoder: w.pol_encoder.clone(),
            pol_headcount: w.pol_headcount,
            policy1: w.policy1.clone(),
            policy: w.policy.clone(),
        },
    };
    let value = match &w.value_heads {
        Some(heads) => heads
            .winner
            .clone()
            .ok_or_else(|| NetworkProblem::MissingLayer("value_heads.winner (the value head lc0 plays)".into()))?,
        None => ValueHeadWeights {
            ip_val_w: w.ip_val_w.clone(),
            ip_val_b: w.ip_val_b.clone(),
            ip1_val_w: w.ip1_val_w.clone(),
            ip1_val_b: w.ip1_val_b.clone(),
            ip2_val_w: w.ip2_val_w.clone(),
            ip2_val_b: w.ip2_val_b.clone(),
            value: w.value.clone(),
            ..ValueHeadWeights::default()
        },
    };
    Ok(ChosenHeads { policy, value })
}

fn is_empty(layer: &proto::Layer) -> bool {
    layer.params.as_ref().is_none_or(Vec::is_empty)
}

/// The policy head on a body whose features are `width` wide.
pub fn policy(p: &PolicyHeadWeights, format: &NetFormat, width: usize) -> Result<PolicyHead, NetworkProblem> {
    if format.policy != PolicyKind::Attention && !p.pol_encoder.is_empty() {
        return Err(NetworkProblem::UnsupportedFormat(
            "policy encoder layers need the attention policy (policy 3)".into(),
        ));
    }
    match format.policy {
        PolicyKind::Classical => {
            let conv = conv(p.policy.as_ref(), width, 1, "policy")?;
            let fc = dense(p.ip_pol_w.as_ref(), p.ip_pol_b.as_ref(), conv.out_channels * 64, "ip_pol")?;
            check_len(&fc.biases, POLICY_SIZE, "ip_pol bias")?;
            Ok(PolicyHead::Classical { conv, fc })
        }
        PolicyKind::Convolution => {
            let conv1 = conv(p.policy1.as_ref(), width, 3, "policy1")?;
            check_len(&conv1.biases, width, "policy1 output channels")?;
            let conv2 = conv(p.policy.as_ref(), width, 3, "policy")?;
            check_len(&conv2.biases, 80, "policy output channels")?;
            Ok(PolicyHead::Convolution { conv1, conv2 })
        }
        PolicyKind::Attention => attention_policy(p, format, width).map(PolicyHead::Attention),
    }
}

fn attention_policy(
    p: &PolicyHeadWeights,
    format: &NetFormat,
    width: usize,
) -> Result<AttentionPolicy, NetworkProblem> {
    let embedding = dense(p.ip_pol_w.as_ref(), p.ip_pol_b.as_ref(), width, "ip_pol")?;
    let on_attention_body = format.body == BodyKind::Attention;
    let encoders = if p.pol_encoder.is_empty() {
        None
    } else {
        // On a residual tower the policy encoders keep their original activations: none in smolgen, SELU in
        // the FFN.
        let (smolgen_activation, ffn_activation) = if on_attention_body {
            (format.smolgen_activation, format.ffn_activation)
        } else {
            (Activation::None, Activation::Selu)
        };
        Some(encoder_stack(
            &p.pol_encoder,
            p.pol_headcount.unwrap_or(0) as usize,
            embedding.outputs,
            StackSettings { residual_scale: 1.0, epsilon: 1e-6, smolgen_activation, ffn_activation },
            "pol_encoder",
        )?)
    };
    let query = dense(p.ip2_pol_w.as_ref(), p.ip2_pol_b.as_ref(), embedding.outputs, "ip2_pol")?;
    let key = dense(p.ip3_pol_w.as_ref(), p.ip3_pol_b.as_ref(), embedding.outputs, "ip3_pol")?;
    check_len(&key.biases, query.outputs, "ip3_pol bias")?;
    let promotion = required(p.ip4_pol_w.as_ref(), "ip4_pol_w")?;
    check_len(&promotion, 4 * key.outputs, "ip4_pol_w")?;
    Ok(AttentionPolicy {
        embedding,
        embedding_activation: if on_attention_body { format.activation } else { Activation::Selu },
        encoders,
        query,
        key,
        promotion,
    })
}

/// The per-square input of a value or moves-left head: a 1×1 convolution on a tower, a dense layer on an
/// attention body.
fn head_input(
    block: Option<&proto::ConvBlock>,
    embedding: (Option<&proto::Layer>, Option<&proto::Layer>),
    format: &NetFormat,
    width: usize,
    name: &str,
) -> Result<HeadInput, NetworkProblem> {
    match format.body {
        BodyKind::Residual => Ok(HeadInput::Convolution(conv(block, width, 1, name)?)),
        BodyKind::Attention => {
            Ok(HeadInput::Embedding(dense(embedding.0, embedding.1, width, &format!("{name} embedding"))?))
        }
    }
}

/// The value head on a body whose features are `width` wide.
pub fn value(v: &ValueHeadWeights, format: &NetFormat, width: usize) -> Result<ValueHead, NetworkProblem> {
    let input = head_input(v.value.as_ref(), (v.ip_val_w.as_ref(), v.ip_val_b.as_ref()), format, width, "value")?;
    let fc1 = dense(v.ip1_val_w.as_ref(), v.ip1_val_b.as_ref(), input.channels() * 64, "ip1_val")?;
    let fc2 = dense(v.ip2_val_w.as_ref(), v.ip2_val_b.as_ref(), fc1.outputs, "ip2_val")?;
    check_len(&fc2.biases, if format.value == ValueKind::Wdl { 3 } else { 1 }, "ip2_val bias")?;
    Ok(ValueHead { kind: format.value, input, fc1, fc2 })
}

/// The moves-left head (always in the single-head fields, in every layout).
pub fn moves_left(w: &proto::Weights, format: &NetFormat, width: usize) -> Result<MovesLeftHead, NetworkProblem> {
    let input =
        head_input(w.moves_left.as_ref(), (w.ip_mov_w.as_ref(), w.ip_mov_b.as_ref()), format, width, "moves_left")?;
    let fc1 = dense(w.ip1_mov_w.as_ref(), w.ip1_mov_b.as_ref(), input.channels() * 64, "ip1_mov")?;
    let fc2 = dense(w.ip2_mov_w.as_ref(), w.ip2_mov_b.as_ref(), fc1.outputs, "ip2_mov")?;
    check_len(&fc2.biases, 1, "ip2_mov bias")?;
    Ok(MovesLeftHead { input, fc1, fc2 })
}
