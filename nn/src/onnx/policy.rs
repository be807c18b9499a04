//! The policy heads as ONNX operators, each ending in lc0's 1858 logits: classical (a dense layer), convolution and
//! attention (gathered from their flat outputs through lc0's policy maps).

use super::attention::{encoder_stack, SmolgenGlobal};
use super::graph::{Attribute, Graph};
use super::{ExportError, Features};
use crate::network::{Activation, AttentionPolicy, PolicyHead};
use crate::policy_map::{attention_policy_map, conv_policy_map, POLICY_SIZE};

/// The head on the body's features; returns the name of its `[batch][1858]` logits, `output` itself.
pub(super) fn policy(
    graph: &mut Graph,
    output: &str,
    features: &Features,
    head: &PolicyHead,
    activation: Activation,
    global: Option<&SmolgenGlobal>,
) -> Result<String, ExportError> {
    match head {
        PolicyHead::Classical { conv, fc } => {
            let p = graph.conv("/policy/conv", features.planes()?, conv);
            let p = graph.activation("/policy/conv/act", &p, activation);
            // Channel-major, as lc0's dense layer reads the planes.
            let p = graph.reshape("/policy/flat", &p, &[-1, 64 * conv.out_channels as i64]);
            Ok(graph.dense(output, &p, fc))
        }
        PolicyHead::Convolution { conv1, conv2 } => {
            let p = graph.conv("/policy/conv1", features.planes()?, conv1);
            let p = graph.activation("/policy/conv1/act", &p, activation);
            let p = graph.conv("/policy/conv2", &p, conv2);
            let p = graph.reshape("/policy/flat", &p, &[-1, 64 * conv2.out_channels as i64]);
            Ok(gather(graph, output, &p, conv_policy_map()))
        }
        PolicyHead::Attention(head) => attention(graph, output, features, head, global),
    }
}

/// Query-key logits of every move between squares, promotions from the last rank's keys and the promotion
/// offsets, mapped to the 1858 moves.
fn attention(
    graph: &mut Graph,
    output: &str,
    features: &Features,
    head: &AttentionPolicy,
    global: Option<&SmolgenGlobal>,
) -> Result<String, ExportError> {
    let squares = features.squares(graph, "/policy/squares");
    let h = graph.dense_activated("/policy/embedding", &squares, &head.embedding, head.embedding_activation);
    let h = match &head.encoders {
        Some(stack) => encoder_stack(graph, "/policy/encoder", &h, stack, global)?,
        None => h,
    };
    let width = head.key.outputs as i64;
    let q = graph.dense("/policy/Q", &h, &head.query);
    let k = graph.dense("/policy/K", &h, &head.key);
    let keys = graph.transpose("/policy/K/transpose", &k, &[0, 2, 1]);
    let logits = graph.node("MatMul", "/policy/QK", &[&q, &keys], vec![]);
    let logits = graph.scale("/policy/QK/scale", &logits, 1.0 / (width as f32).sqrt());
    // Promotions: the move's logit from the 7th to the 8th rank, plus the promotion piece's offset from the
    // destination's key, the knight's offset shared by all three.
    let last_rank = graph.slice("/policy/promotion/keys", &k, &[1], &[56], &[64]);
    let promotion = super::graph::transposed(&head.promotion, 4, head.key.outputs);
    let offsets = graph.matmul("/policy/promotion/offsets", &last_rank, &promotion, head.key.outputs, 4);
    let pieces = graph.slice("/policy/promotion/pieces", &offsets, &[2], &[0], &[3]);
    let knight = graph.slice("/policy/promotion/knight", &offsets, &[2], &[3], &[4]);
    let bonus = graph.add("/policy/promotion/bonus", &pieces, &knight);
    let bonus = graph.reshape("/policy/promotion/bonus/to", &bonus, &[-1, 1, 8, 3]);
    let moves = graph.slice("/policy/promotion/moves", &logits, &[1, 2], &[48, 56], &[56, 64]);
    let moves = graph.reshape("/policy/promotion/moves/from_to", &moves, &[-1, 8, 8, 1]);
    let promotions = graph.add("/policy/promotion", &moves, &bonus);
    let promotions = graph.reshape("/policy/promotion/flat", &promotions, &[-1, 8 * 8 * 3]);
    let logits = graph.reshape("/policy/QK/flat", &logits, &[-1, 64 * 64]);
    let flat = graph.node("Concat", "/policy/flat", &[&logits, &promotions], vec![Attribute::Int("axis", 1)]);
    Ok(gather(graph, output, &flat, attention_policy_map()))
}

/// The 1858 logits from a head's flat output, `map` giving each slot's policy index (−1: none).
fn gather(graph: &mut Graph, output: &str, flat: &str, map: &[i16]) -> String {
    let mut slots = vec![0i64; POLICY_SIZE];
    for (slot, &index) in map.iter().enumerate() {
        if let Ok(index) = usize::try_from(index) {
            slots[index] = slot as i64;
        }
    }
    let slots = graph.integers("/policy/map", &slots);
    graph.node("Gather", output, &[flat, &slots], vec![Attribute::Int("axis", 1)])
}
