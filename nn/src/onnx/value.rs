//! The value and moves-left heads as ONNX operators: a per-square reduction of the body's features, a hidden
//! layer and the output, finished as lc0's converter finishes them (W/D/L softmaxed, a classical value through
//! tanh, moves left through a ReLU).

use super::graph::{Attribute, Graph};
use super::{ExportError, Features};
use crate::network::{Activation, Dense, HeadInput, MovesLeftHead, ValueHead, ValueKind};

/// The value head; returns the name of its output, `output`: `[batch][3]` probabilities or `[batch][1]` in −1..1.
pub(super) fn value(
    graph: &mut Graph,
    output: &str,
    features: &Features,
    head: &ValueHead,
    activation: Activation,
) -> Result<String, ExportError> {
    let raw = head_logits(graph, "/value", features, &head.input, &head.fc1, &head.fc2, activation)?;
    Ok(match head.kind {
        ValueKind::Wdl => graph.node("Softmax", output, &[&raw], vec![Attribute::Int("axis", 1)]),
        ValueKind::Classical => graph.activation(output, &raw, Activation::Tanh),
    })
}

/// The moves-left head; returns the name of its `[batch][1]` output, `output`.
pub(super) fn moves_left(
    graph: &mut Graph,
    output: &str,
    features: &Features,
    head: &MovesLeftHead,
    activation: Activation,
) -> Result<String, ExportError> {
    let raw = head_logits(graph, "/mlh", features, &head.input, &head.fc1, &head.fc2, activation)?;
    Ok(graph.activation(output, &raw, Activation::Relu))
}

/// The head's output layer before its final function.
fn head_logits(
    graph: &mut Graph,
    name: &str,
    features: &Features,
    input: &HeadInput,
    fc1: &Dense,
    fc2: &Dense,
    activation: Activation,
) -> Result<String, ExportError> {
    let flat = match input {
        HeadInput::Convolution(conv) => {
            let planes = graph.conv(&format!("{name}/conv"), features.planes()?, conv);
            let planes = graph.activation(&format!("{name}/conv/act"), &planes, activation);
            // Channel-major, as lc0 flattens the planes.
            graph.reshape(&format!("{name}/flat"), &planes, &[-1, 64 * conv.out_channels as i64])
        }
        HeadInput::Embedding(dense) => {
            let squares = features.squares(graph, &format!("{name}/squares"));
            let reduced = graph.dense_activated(&format!("{name}/embed"), &squares, dense, activation);
            // Square-major, as lc0 flattens an attention body's squares.
            graph.reshape(&format!("{name}/flat"), &reduced, &[-1, 64 * dense.outputs as i64])
        }
    };
    let hidden = graph.dense_activated(&format!("{name}/dense1"), &flat, fc1, activation);
    Ok(graph.dense(&format!("{name}/dense2"), &hidden, fc2))
}
