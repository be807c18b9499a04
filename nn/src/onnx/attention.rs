//! The attention body and encoder stacks as ONNX operators, features as `[batch][64][width]` (lc0's attention body,
//! encoder layers and smolgen).

use super::graph::{transposed, Attribute, Graph};
use super::ExportError;
use crate::encoder::PLANES;
use crate::network::{Activation, AttentionBody, Dense, EncoderLayer, EncoderStack, Ffn, InputEmbedding, Smolgen};
use crate::positional_encoding::positional_encoding;

const SQUARES: i64 = 64;
/// The planes of the whole board that a dense positional embedding reads (the pieces of both sides).
const PIECE_PLANES: i64 = 12;

/// Smolgen's global weights as an initializer, shared by every layer that has smolgen.
pub(super) struct SmolgenGlobal {
    /// The initializer's name, `[generator width][64·64]`.
    pub weights: String,
    /// Its generator width.
    pub width: i64,
}

/// The body on the NCHW input planes; returns the name of its `[batch][64][embedding]` features.
pub(super) fn body(
    graph: &mut Graph,
    planes: &str,
    body: &AttentionBody,
    activation: Activation,
    global: Option<&SmolgenGlobal>,
) -> Result<String, ExportError> {
    let squares = graph.transpose("/attn_body/squares", planes, &[0, 2, 3, 1]);
    let squares = graph.reshape("/attn_body/squares/flat", &squares, &[-1, SQUARES, PLANES as i64]);
    let dense = &body.dense;
    let embedded = match &body.embedding {
        InputEmbedding::PositionalMap => {
            // The fixed positional encoding's share of the embedding, its part of the weights times the map, is a
            // constant: added as a bias of each square, where lc0 concatenates the map to every position's planes.
            let (planes_weights, square_biases) = split_positional_map(dense);
            let product = graph.matmul("/attn_body/embedding/matmul", &squares, &planes_weights, PLANES, dense.outputs);
            let biases =
                graph.weights("/attn_body/embedding/square_biases", &square_biases, &[SQUARES, dense.outputs as i64]);
            graph.add("/attn_body/embedding", &product, &biases)
        }
        InputEmbedding::Dense { preprocess } => {
            let pieces = graph.slice("/attn_body/pieces", &squares, &[2], &[0], &[PIECE_PLANES]);
            let pieces = graph.reshape("/attn_body/pieces/flat", &pieces, &[-1, SQUARES * PIECE_PLANES]);
            let positional = graph.dense("/attn_body/preprocess", &pieces, preprocess);
            let width = preprocess.outputs as i64 / SQUARES;
            let positional = graph.reshape("/attn_body/preprocess/squares", &positional, &[-1, SQUARES, width]);
            let input =
                graph.node("Concat", "/attn_body/input", &[&squares, &positional], vec![Attribute::Int("axis", 2)]);
            graph.dense("/attn_body/embedding", &input, dense)
        }
    };
    let mut x = graph.activation("/attn_body/embedding/act", &embedded, activation);
    if let Some(norm) = &body.norm {
        x = graph.layer_norm("/attn_body/ln", &x, norm);
    }
    if let Some((mult, add)) = &body.gating {
        // Stored `[embedding][64]`; the features are square-major.
        let width = body.embedding_size();
        let mult = graph.weights("/attn_body/gate/mult", &transposed(mult, width, 64), &[SQUARES, width as i64]);
        let add = graph.weights("/attn_body/gate/add", &transposed(add, width, 64), &[SQUARES, width as i64]);
        let gated = graph.mul("/attn_body/gate/mul", &x, &mult);
        x = graph.add("/attn_body/gate", &gated, &add);
    }
    if let Some((ffn, norm)) = &body.ffn {
        let encoders = &body.encoders;
        let y = feed_forward(graph, "/attn_body/ffn", &x, ffn, encoders.ffn_activation);
        x = graph.skip_layer_norm("/attn_body/ffn/ln", &y, encoders.residual_scale, &x, norm);
    }
    encoder_stack(graph, "/encoder", &x, &body.encoders, global)
}

/// The embedding's weights on the 112 planes (`[112][outputs]`, transposed for `MatMul`), and its bias plus the
/// positional map's product, one row a square (`[64][outputs]`, summed in f64).
fn split_positional_map(dense: &Dense) -> (Vec<f32>, Vec<f32>) {
    let map = positional_encoding();
    let map_width = map.len() / SQUARES as usize;
    let planes_weights: Vec<f32> =
        dense.weights.chunks_exact(dense.inputs).flat_map(|row| row[..PLANES].to_vec()).collect();
    let mut square_biases = Vec::with_capacity(SQUARES as usize * dense.outputs);
    for square in map.chunks_exact(map_width) {
        for (row, &bias) in dense.weights.chunks_exact(dense.inputs).zip(&dense.biases) {
            let product: f64 = row[PLANES..].iter().zip(square).map(|(&w, &m)| f64::from(w) * f64::from(m)).sum();
            square_biases.push((f64::from(bias) + product) as f32);
        }
    }
    (transposed(&planes_weights, dense.outputs, PLANES), square_biases)
}

/// Every layer of `stack` on `[batch][64][width]` features.
pub(super) fn encoder_stack(
    graph: &mut Graph,
    name: &str,
    x: &str,
    stack: &EncoderStack,
    global: Option<&SmolgenGlobal>,
) -> Result<String, ExportError> {
    let mut x = x.to_string();
    for (index, layer) in stack.layers.iter().enumerate() {
        x = encoder_layer(graph, &format!("{name}{index}"), &x, layer, stack, global)?;
    }
    Ok(x)
}

/// `x = LN1(α·MHA(x) + x)`, then `x = LN2(α·FFN(x) + x)`.
fn encoder_layer(
    graph: &mut Graph,
    name: &str,
    x: &str,
    layer: &EncoderLayer,
    stack: &EncoderStack,
    global: Option<&SmolgenGlobal>,
) -> Result<String, ExportError> {
    let mha = &layer.mha;
    let heads = stack.heads as i64;
    let d_model = mha.query.outputs as i64;
    let depth = d_model / heads;
    // [batch][64][d_model] → [batch][heads][64][depth], the keys → [batch][heads][depth][64].
    let mut split = |what: &str, dense: &Dense, permutation: &[i64]| {
        let y = graph.dense(&format!("{name}/mha/{what}"), x, dense);
        let y = graph.reshape(&format!("{name}/mha/{what}/heads"), &y, &[-1, SQUARES, heads, depth]);
        graph.transpose(&format!("{name}/mha/{what}/transpose"), &y, permutation)
    };
    let q = split("Q", &mha.query, &[0, 2, 1, 3]);
    let k = split("K", &mha.key, &[0, 2, 3, 1]);
    let v = split("V", &mha.value, &[0, 2, 1, 3]);
    let logits = graph.node("MatMul", &format!("{name}/mha/QK"), &[&q, &k], vec![]);
    let mut logits = graph.scale(&format!("{name}/mha/QK/scale"), &logits, 1.0 / (depth as f32).sqrt());
    if let Some(smolgen) = &mha.smolgen {
        let global = global.ok_or(ExportError::SmolgenWithoutGlobalWeights)?;
        let generated = smolgen_logits(graph, &format!("{name}/smolgen"), x, smolgen, heads, stack, global);
        logits = graph.add(&format!("{name}/mha/QK/smolgen"), &logits, &generated);
    }
    let weights = graph.node("Softmax", &format!("{name}/mha/softmax"), &[&logits], vec![Attribute::Int("axis", -1)]);
    let attention = graph.node("MatMul", &format!("{name}/mha/QKV"), &[&weights, &v], vec![]);
    let attention = graph.transpose(&format!("{name}/mha/QKV/transpose"), &attention, &[0, 2, 1, 3]);
    let attention = graph.reshape(&format!("{name}/mha/QKV/squares"), &attention, &[-1, SQUARES, d_model]);
    let y = graph.dense(&format!("{name}/mha/out"), &attention, &mha.output);
    let x = graph.skip_layer_norm(&format!("{name}/ln1"), &y, stack.residual_scale, x, &layer.norm1);
    let y = feed_forward(graph, &format!("{name}/ffn"), &x, &layer.ffn, stack.ffn_activation);
    Ok(graph.skip_layer_norm(&format!("{name}/ln2"), &y, stack.residual_scale, &x, &layer.norm2))
}

/// `dense2(activation(dense1(x)))`.
fn feed_forward(graph: &mut Graph, name: &str, x: &str, ffn: &Ffn, activation: Activation) -> String {
    let hidden = graph.dense_activated(&format!("{name}/dense1"), x, &ffn.dense1, activation);
    graph.dense(&format!("{name}/dense2"), &hidden, &ffn.dense2)
}

/// The `[batch][heads][64][64]` logits smolgen adds to the attention's.
fn smolgen_logits(
    graph: &mut Graph,
    name: &str,
    x: &str,
    smolgen: &Smolgen,
    heads: i64,
    stack: &EncoderStack,
    global: &SmolgenGlobal,
) -> String {
    let activation = stack.smolgen_activation;
    let compressed = graph.projection(&format!("{name}/compress"), x, &smolgen.compress);
    let compressed =
        graph.reshape(&format!("{name}/compress/flat"), &compressed, &[-1, SQUARES * smolgen.compress.outputs as i64]);
    let hidden = graph.dense_activated(&format!("{name}/dense1"), &compressed, &smolgen.dense1, activation);
    let hidden = graph.layer_norm(&format!("{name}/ln1"), &hidden, &smolgen.norm1);
    let generated = graph.dense_activated(&format!("{name}/dense2"), &hidden, &smolgen.dense2, activation);
    let generated = graph.layer_norm(&format!("{name}/ln2"), &generated, &smolgen.norm2);
    let generated = graph.reshape(&format!("{name}/heads"), &generated, &[-1, heads, global.width]);
    let maps = graph.node("MatMul", &format!("{name}/global"), &[&generated, &global.weights], vec![]);
    graph.reshape(&format!("{name}/maps"), &maps, &[-1, heads, SQUARES, SQUARES])
}
