//! The three CTM-Net architectures in tch, their input normalisation, and the model file that holds both.
//!
//! - `ctm-1.0`: an MLP 769 → 400 → 200 → 1 with ReLU (the thesis does not name its activation), every
//!   input z-scored (its figure 4 normalises the whole vector).
//! - `ctm-2.0`: 13 planes of 8 × 8 (the 12 piece planes, then one filled with the z-scored material; the 0/1
//!   planes left as they are), a 32-channel convolution (3 × 3, padding 1, or 5 × 5, padding 2), LeakyReLU,
//!   dropout 0.15, one fully connected output; no pooling.
//! - `ctm-2.1`: 2.0 with 3 residual blocks (two convolutions and a skip, no batch norm, as in the thesis's
//!   figure 6) after the first convolution, and dropout 0.5.
//!
//! The layer sizes, the file format and its reader are timemgr's ([`timemgr::ctm`]), whose plain-Rust forward
//! pass the `ctm` time manager runs at play time.

use std::collections::HashMap;
use std::path::Path;

use safetensors::tensor::{Dtype, TensorView};
use tch::nn::{self, Module, ModuleT};
use tch::{Device, Kind, Tensor};
use timemgr::ctm::model_file::TARGET_KIND_KEY;
use timemgr::ctm::network::{CHANNELS, HIDDEN1, HIDDEN2, PLANES, RESIDUAL_BLOCKS};
use timemgr::ctm::{Architecture, ModelFile, Normalisation, TargetKind};

use super::dataset::{bytes_of_f32, write_atomically, Dataset};
use super::features::{BOARD_FEATURES, FEATURES};
use super::CtmError;

pub use timemgr::ctm::model_file::FORMAT;

/// Mean and standard deviation, with 1 for a constant.
fn mean_std(values: impl Iterator<Item = f64> + Clone) -> (f32, f32) {
    let n = values.clone().count().max(1) as f64;
    let mean = values.clone().sum::<f64>() / n;
    let var = values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let std = if var > 1e-12 { var.sqrt() } else { 1.0 };
    (mean as f32, std as f32)
}

/// Fits the input and target statistics on `rows` of `data`: all inputs for the MLP, only the material for
/// the CNNs.
pub fn fit_normalisation(data: &Dataset, rows: &[usize], arch: Architecture) -> Normalisation {
    let first = if arch.is_cnn() { BOARD_FEATURES } else { 0 };
    let mut feature_mean = vec![0.0; FEATURES];
    let mut feature_std = vec![1.0; FEATURES];
    for j in first..FEATURES {
        (feature_mean[j], feature_std[j]) = mean_std(rows.iter().map(|&i| f64::from(data.row(i)[j])));
    }
    let (target_mean, target_std) = mean_std(rows.iter().map(|&i| f64::from(data.target[i])));
    Normalisation { feature_mean, feature_std, target_mean, target_std }
}

/// The network input of `rows` under `norm`: `[N, 769]` for the MLP, `[N, 13, 8, 8]` for the CNNs.
pub fn network_inputs(norm: &Normalisation, data: &Dataset, rows: &[usize], arch: Architecture) -> Tensor {
    let mut values = Vec::with_capacity(rows.len() * FEATURES);
    for &i in rows {
        let row = data.row(i);
        values.extend((0..FEATURES).map(|j| (f32::from(row[j]) - norm.feature_mean[j]) / norm.feature_std[j]));
    }
    let n = rows.len() as i64;
    let flat = Tensor::from_slice(&values).view([n, FEATURES as i64]);
    if !arch.is_cnn() {
        return flat;
    }
    let planes = flat.narrow(1, 0, BOARD_FEATURES as i64).reshape([n, 12, 8, 8]);
    let material = flat.narrow(1, BOARD_FEATURES as i64, 1).reshape([n, 1, 1, 1]).expand([n, 1, 8, 8], false);
    Tensor::cat(&[planes, material], 1)
}

/// The targets of `rows` normalised by `norm`, `[N, 1]`.
pub fn normalised_targets(norm: &Normalisation, data: &Dataset, rows: &[usize]) -> Tensor {
    let values: Vec<f32> = rows.iter().map(|&i| (data.target[i] - norm.target_mean) / norm.target_std).collect();
    Tensor::from_slice(&values).view([rows.len() as i64, 1])
}

/// The layers of one architecture.
#[derive(Debug)]
enum Layers {
    Mlp { hidden1: nn::Linear, hidden2: nn::Linear, output: nn::Linear },
    Cnn { stem: nn::Conv2D, blocks: Vec<(nn::Conv2D, nn::Conv2D)>, dropout: f64, output: nn::Linear },
}

/// A CTM net; `forward_t` maps normalised inputs to the normalised ρ, `[N, 1]`.
#[derive(Debug)]
pub struct CtmNet {
    layers: Layers,
}

impl CtmNet {
    /// Creates the layers of `arch` under `path`; `kernel` (3 or 5) is the CNNs' convolution size.
    pub fn new(path: &nn::Path, arch: Architecture, kernel: i64) -> Self {
        let conv_config = nn::ConvConfig { padding: kernel / 2, ..Default::default() };
        let channels = CHANNELS as i64;
        let conv = |name: &str, input: i64| nn::conv2d(path / name, input, channels, kernel, conv_config);
        let layers = match arch {
            Architecture::Mlp => Layers::Mlp {
                hidden1: nn::linear(path / "hidden1", FEATURES as i64, HIDDEN1 as i64, Default::default()),
                hidden2: nn::linear(path / "hidden2", HIDDEN1 as i64, HIDDEN2 as i64, Default::default()),
                output: nn::linear(path / "output", HIDDEN2 as i64, 1, Default::default()),
            },
            Architecture::Cnn | Architecture::ResidualCnn => {
                let residual = if arch == Architecture::ResidualCnn { RESIDUAL_BLOCKS } else { 0 };
                Layers::Cnn {
                    stem: conv("stem", PLANES as i64),
                    blocks: (0..residual)
                        .map(|b| (conv(&format!("block{b}_a"), channels), conv(&format!("block{b}_b"), channels)))
                        .collect(),
                    dropout: if arch == Architecture::ResidualCnn { 0.5 } else { 0.15 },
                    output: nn::linear(path / "output", channels * 64, 1, Default::default()),
                }
            }
        };
        CtmNet { layers }
    }
}

impl ModuleT for CtmNet {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        match &self.layers {
            Layers::Mlp { hidden1, hidden2, output } => {
                output.forward(&hidden2.forward(&hidden1.forward(xs).relu()).relu())
            }
            Layers::Cnn { stem, blocks, dropout, output } => {
                let mut x = stem.forward(xs).leaky_relu();
                for (a, b) in blocks {
                    x = (b.forward(&a.forward(&x).leaky_relu()) + &x).leaky_relu();
                }
                output.forward(&x.flatten(1, -1).dropout(*dropout, train))
            }
        }
    }
}

/// A trained net with its normalisation: what `tm-train` writes and a time manager would read.
pub struct CtmModel {
    /// The architecture.
    pub arch: Architecture,
    /// The CNNs' convolution size.
    pub kernel: i64,
    /// What the net predicts (the training data's target kind).
    pub target_kind: TargetKind,
    /// The input and target statistics.
    pub norm: Normalisation,
    /// The weights.
    pub vs: nn::VarStore,
    /// The layers (their tensors live in `vs`).
    pub net: CtmNet,
}

impl CtmModel {
    /// A freshly initialised model (from torch's global generator) of a target of kind `target_kind`.
    pub fn new(
        arch: Architecture,
        kernel: i64,
        target_kind: TargetKind,
        norm: Normalisation,
    ) -> Result<Self, CtmError> {
        if kernel != 3 && kernel != 5 {
            return Err(CtmError::Invalid(format!("kernel {kernel}: the thesis's convolutions are 3 or 5")));
        }
        let vs = nn::VarStore::new(Device::Cpu);
        let net = CtmNet::new(&vs.root(), arch, kernel);
        Ok(CtmModel { arch, kernel, target_kind, norm, vs, net })
    }

    /// The predicted target (ρ, or the instability) of `rows` of `data`, in evaluation mode.
    pub fn predict(&self, data: &Dataset, rows: &[usize]) -> Vec<f32> {
        let _guard = tch::no_grad_guard();
        let mut out = Vec::with_capacity(rows.len());
        for chunk in rows.chunks(8192) {
            let y = self.net.forward_t(&network_inputs(&self.norm, data, chunk, self.arch), false);
            let y = y.view([-1]) * f64::from(self.norm.target_std) + f64::from(self.norm.target_mean);
            out.extend(Vec::<f32>::try_from(&y).unwrap_or_default());
        }
        out
    }

    /// The weights by name, sorted, as flat f32 values with their shapes.
    pub fn weights(&self) -> Vec<(String, Vec<i64>, Vec<f32>)> {
        let mut named: Vec<(String, Tensor)> = self.vs.variables().into_iter().collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        named
            .into_iter()
            .map(|(name, t)| {
                let values = Vec::<f32>::try_from(&t.detach().to_kind(Kind::Float).reshape([-1])).unwrap_or_default();
                (name, t.size(), values)
            })
            .collect()
    }

    /// Writes weights and normalisation to one safetensors file, atomically; `metadata` adds header entries.
    pub fn save(&self, path: &Path, metadata: HashMap<String, String>) -> Result<(), CtmError> {
        let mut tensors: Vec<(String, Vec<usize>, Vec<u8>)> = self
            .weights()
            .into_iter()
            .map(|(name, shape, values)| (name, shape.iter().map(|&d| d as usize).collect(), bytes_of_f32(&values)))
            .collect();
        let n = FEATURES;
        tensors.push(("norm.feature_mean".into(), vec![n], bytes_of_f32(&self.norm.feature_mean)));
        tensors.push(("norm.feature_std".into(), vec![n], bytes_of_f32(&self.norm.feature_std)));
        tensors.push(("norm.target".into(), vec![2], bytes_of_f32(&[self.norm.target_mean, self.norm.target_std])));
        let bad = |e: safetensors::SafeTensorError| CtmError::BadFile { path: path.to_owned(), reason: e.to_string() };
        let views = tensors
            .iter()
            .map(|(name, shape, bytes)| {
                Ok((name.clone(), TensorView::new(Dtype::F32, shape.clone(), bytes).map_err(bad)?))
            })
            .collect::<Result<Vec<_>, CtmError>>()?;
        let mut metadata = metadata;
        metadata.insert("format".into(), FORMAT.into());
        metadata.insert("arch".into(), self.arch.name().into());
        metadata.insert("kernel".into(), self.kernel.to_string());
        metadata.insert(TARGET_KIND_KEY.into(), self.target_kind.name().into());
        let bytes = safetensors::tensor::serialize(views, &Some(metadata)).map_err(bad)?;
        write_atomically(path, &bytes)
    }

    /// Reads a file written by [`CtmModel::save`], through timemgr's reader (the one the `ctm` manager uses).
    pub fn load(path: &Path) -> Result<Self, CtmError> {
        let file = ModelFile::read(path)?;
        let model = CtmModel::new(file.arch, file.kernel as i64, file.target_kind, file.norm.clone())?;
        let _guard = tch::no_grad_guard();
        for (name, mut var) in model.vs.variables() {
            let shape: Vec<usize> = var.size().iter().map(|&d| d as usize).collect();
            let values = file.tensor(&name, &shape)?;
            var.copy_(&Tensor::from_slice(values).view(var.size().as_slice()));
        }
        Ok(model)
    }
}
