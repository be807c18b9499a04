//! The convolutional residual tower as ONNX operators, features as NCHW `[batch][filters][8][8]` planes (lc0's
//! residual blocks with optional squeeze-excitation).

use super::graph::Graph;
use crate::network::{Activation, ResidualBlock, ResidualTower, SqueezeExcitation};

/// The tower on the input planes; returns the name of its output planes.
pub(super) fn tower(graph: &mut Graph, planes: &str, tower: &ResidualTower, activation: Activation) -> String {
    let input = graph.conv("/inputconv", planes, &tower.input);
    let mut x = graph.activation("/inputconv/act", &input, activation);
    for (index, block) in tower.blocks.iter().enumerate() {
        x = residual_block(graph, &format!("/block{index}"), &x, block, activation);
    }
    x
}

/// `activation(SE(conv2(activation(conv1(x)))) + x)`, the excitation only where the block has one.
fn residual_block(graph: &mut Graph, name: &str, x: &str, block: &ResidualBlock, activation: Activation) -> String {
    let y = graph.conv(&format!("{name}/conv1"), x, &block.conv1);
    let y = graph.activation(&format!("{name}/conv1/act"), &y, activation);
    let z = graph.conv(&format!("{name}/conv2"), &y, &block.conv2);
    let sum = match &block.se {
        Some(se) => squeeze_excite_and_add(graph, &format!("{name}/se"), &z, x, se, activation),
        None => graph.add(&format!("{name}/skip"), &z, x),
    };
    graph.activation(&format!("{name}/act"), &sum, activation)
}

/// `sigmoid(gates)·z + offsets + skip`, gates and offsets from the channels' means through two dense layers
/// (`fc2`'s outputs: the gates, then the offsets).
fn squeeze_excite_and_add(
    graph: &mut Graph,
    name: &str,
    z: &str,
    skip: &str,
    se: &SqueezeExcitation,
    activation: Activation,
) -> String {
    let filters = se.fc1.inputs as i64;
    let pooled = graph.node("GlobalAveragePool", &format!("{name}/pool"), &[z], vec![]);
    let pooled = graph.reshape(&format!("{name}/pool/flat"), &pooled, &[-1, filters]);
    let hidden = graph.dense_activated(&format!("{name}/fc1"), &pooled, &se.fc1, activation);
    let both = graph.dense(&format!("{name}/fc2"), &hidden, &se.fc2);
    let both = graph.reshape(&format!("{name}/fc2/planes"), &both, &[-1, 2 * filters, 1, 1]);
    let gates = graph.slice(&format!("{name}/gates"), &both, &[1], &[0], &[filters]);
    let gates = graph.activation(&format!("{name}/gates/sigmoid"), &gates, Activation::Sigmoid);
    let offsets = graph.slice(&format!("{name}/offsets"), &both, &[1], &[filters], &[2 * filters]);
    let scaled = graph.mul(&format!("{name}/scaled"), z, &gates);
    let shifted = graph.add(&format!("{name}/shifted"), &scaled, &offsets);
    graph.add(&format!("{name}/skip"), &shifted, skip)
}
