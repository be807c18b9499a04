//! Decoding of one weights layer (docs/lc0/network.md §5.2) and batch-norm folding of a convolution block (§5.3).

use crate::error::NetworkProblem;
use crate::network::{Conv, Dense, LayerNorm, Projection};
use crate::proto::{self, Encoding};

/// Decodes a layer's values; `name` is used in errors.
pub fn decode_layer(layer: &proto::Layer, name: &str) -> Result<Vec<f32>, NetworkProblem> {
    let encoding_problem = |problem: String| NetworkProblem::Encoding { layer: name.to_string(), problem };
    let encoding = match layer.encoding {
        None => Encoding::Linear16,
        Some(raw) => match Encoding::try_from(raw) {
            Ok(Encoding::UnknownEncoding) => return Err(encoding_problem("encoding UNKNOWN_ENCODING".into())),
            Ok(encoding) => encoding,
            Err(_) => return Err(encoding_problem(format!("unknown encoding {raw}"))),
        },
    };
    let params = layer.params.as_deref().unwrap_or_default();
    let size = if encoding == Encoding::Float32 { 4 } else { 2 };
    if !params.len().is_multiple_of(size) {
        return Err(encoding_problem(format!("{} bytes of {encoding:?} data, not a multiple of {size}", params.len())));
    }
    Ok(match encoding {
        Encoding::Float32 => params.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        Encoding::Float16 => params.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
        Encoding::Bfloat16 => {
            params.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect()
        }
        Encoding::Linear16 | Encoding::UnknownEncoding => {
            let min = layer.min_val.unwrap_or(0.0);
            let max = layer.max_val.unwrap_or(0.0);
            params
                .chunks_exact(2)
                .map(|b| {
                    let theta = f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0;
                    min * (1.0 - theta) + max * theta
                })
                .collect()
        }
    })
}

/// Decodes a layer that must be present.
pub fn required(layer: Option<&proto::Layer>, name: &str) -> Result<Vec<f32>, NetworkProblem> {
    let layer = layer.ok_or_else(|| NetworkProblem::MissingLayer(name.to_string()))?;
    let values = decode_layer(layer, name)?;
    if values.is_empty() {
        return Err(NetworkProblem::MissingLayer(format!("{name} (present but empty)")));
    }
    Ok(values)
}

/// Decodes a layer that may be absent (absent or empty gives `None`).
pub fn optional(layer: Option<&proto::Layer>, name: &str) -> Result<Option<Vec<f32>>, NetworkProblem> {
    match layer {
        None => Ok(None),
        Some(layer) => decode_layer(layer, name).map(|v| if v.is_empty() { None } else { Some(v) }),
    }
}

/// Checks that a decoded layer has the expected number of values.
pub fn check_len(values: &[f32], expected: usize, name: &str) -> Result<(), NetworkProblem> {
    if values.len() == expected {
        Ok(())
    } else {
        Err(NetworkProblem::WrongSize { layer: name.to_string(), expected, actual: values.len() })
    }
}

/// Builds a fully connected layer; its output count is the bias length, its input count is given.
pub fn dense(
    weights: Option<&proto::Layer>,
    biases: Option<&proto::Layer>,
    inputs: usize,
    name: &str,
) -> Result<Dense, NetworkProblem> {
    let biases = required(biases, &format!("{name} bias"))?;
    let weights = required(weights, &format!("{name} weights"))?;
    check_len(&weights, biases.len() * inputs, &format!("{name} weights"))?;
    Ok(Dense { outputs: biases.len(), inputs, weights, biases })
}

/// Builds a linear map without bias from `inputs` values; its output count is inferred from the weights.
pub fn projection(weights: Option<&proto::Layer>, inputs: usize, name: &str) -> Result<Projection, NetworkProblem> {
    let weights = required(weights, name)?;
    if inputs == 0 || !weights.len().is_multiple_of(inputs) {
        return Err(NetworkProblem::WrongSize {
            layer: name.to_string(),
            expected: (weights.len() / inputs.max(1)).max(1) * inputs,
            actual: weights.len(),
        });
    }
    Ok(Projection { outputs: weights.len() / inputs, inputs, weights })
}

/// Builds a layer norm over `channels` with lc0's `epsilon` for its place in the network.
pub fn layer_norm(
    gammas: Option<&proto::Layer>,
    betas: Option<&proto::Layer>,
    channels: usize,
    epsilon: f32,
    name: &str,
) -> Result<LayerNorm, NetworkProblem> {
    let gammas = required(gammas, &format!("{name} gammas"))?;
    check_len(&gammas, channels, &format!("{name} gammas"))?;
    let betas = required(betas, &format!("{name} betas"))?;
    check_len(&betas, channels, &format!("{name} betas"))?;
    Ok(LayerNorm { gammas, betas, epsilon })
}

/// Builds a convolution from a block, folding its batch normalisation; the output channel count is
/// inferred from the weight length.
pub fn conv(
    block: Option<&proto::ConvBlock>,
    in_channels: usize,
    kernel: usize,
    name: &str,
) -> Result<Conv, NetworkProblem> {
    let block = block.ok_or_else(|| NetworkProblem::MissingLayer(name.to_string()))?;
    let mut weights = required(block.weights.as_ref(), &format!("{name}.weights"))?;
    let per_output = in_channels * kernel * kernel;
    if weights.len() % per_output != 0 {
        return Err(NetworkProblem::WrongSize {
            layer: format!("{name}.weights"),
            expected: (weights.len() / per_output).max(1) * per_output,
            actual: weights.len(),
        });
    }
    let out_channels = weights.len() / per_output;
    let per_channel = |layer: Option<&proto::Layer>, field: &str| -> Result<Option<Vec<f32>>, NetworkProblem> {
        let full = format!("{name}.{field}");
        let values = optional(layer, &full)?;
        if let Some(values) = &values {
            check_len(values, out_channels, &full)?;
        }
        Ok(values)
    };
    let mut biases = per_channel(block.biases.as_ref(), "biases")?.unwrap_or_else(|| vec![0.0; out_channels]);
    if let Some(means) = per_channel(block.bn_means.as_ref(), "bn_means")? {
        let variances = per_channel(block.bn_stddivs.as_ref(), "bn_stddivs")?
            .ok_or_else(|| NetworkProblem::MissingLayer(format!("{name}.bn_stddivs")))?;
        let betas = per_channel(block.bn_betas.as_ref(), "bn_betas")?;
        let gammas = match &betas {
            Some(_) => per_channel(block.bn_gammas.as_ref(), "bn_gammas")?,
            None => None,
        };
        for o in 0..out_channels {
            let gamma = gammas.as_ref().map_or(1.0, |g| g[o]);
            let beta = betas.as_ref().map_or(0.0, |b| b[o]);
            let scale = gamma / (variances[o] + 1e-5).sqrt();
            for w in &mut weights[o * per_output..(o + 1) * per_output] {
                *w *= scale;
            }
            biases[o] = beta - scale * (means[o] - biases[o]);
        }
    }
    Ok(Conv { out_channels, in_channels, kernel, weights, biases })
}
