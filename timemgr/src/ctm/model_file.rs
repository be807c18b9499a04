//! The model file that `kairos tm-train` writes and the `ctm` manager reads: one safetensors file with the
//! weights by layer name (`hidden1.weight`, `stem.bias`, …, all f32), the normalisation statistics
//! (`norm.feature_mean`, `norm.feature_std`, `norm.target` = [mean, std] of the target) and the header
//! entries `format` = [`FORMAT`], `arch`, `kernel` and `target_kind` ([`TargetKind`]; files written before it
//! existed have none and mean [`TargetKind::ShareOfClock`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use safetensors::tensor::{Dtype, SafeTensors};

use super::features::FEATURES;

/// The `format` metadata value of a model file.
pub const FORMAT: &str = "kairos-ctm-model-1";

/// A CTM-Net architecture of the thesis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Architecture {
    /// `ctm-1.0`: the MLP 769 → 400 → 200 → 1 with ReLU.
    Mlp,
    /// `ctm-2.0`: one 32-channel convolution over 13 planes, LeakyReLU, one fully connected output.
    Cnn,
    /// `ctm-2.1`: 2.0 with three residual blocks after the first convolution.
    ResidualCnn,
}

impl Architecture {
    /// Every architecture, in the thesis's order.
    pub const ALL: [Architecture; 3] = [Architecture::Mlp, Architecture::Cnn, Architecture::ResidualCnn];

    /// The name on the command line and in model files.
    pub fn name(self) -> &'static str {
        match self {
            Architecture::Mlp => "ctm-1.0",
            Architecture::Cnn => "ctm-2.0",
            Architecture::ResidualCnn => "ctm-2.1",
        }
    }

    /// The architecture called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Whether the net reads planes (its 0/1 inputs are then not normalised).
    pub fn is_cnn(self) -> bool {
        self != Architecture::Mlp
    }
}

/// The header entry that names what a dataset's target and a model's output are.
pub const TARGET_KIND_KEY: &str = "target_kind";

/// What a CTM net predicts: the thesis's share of the clock, or how much more search changes the decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TargetKind {
    /// ρ, the share of the remaining time spent on the move (`kairos tm-data`, human clocks).
    #[default]
    ShareOfClock,
    /// Decision instability in [0, 1] between N and factor·N nodes of Kairos's own search (`kairos tm-label`).
    Instability,
}

impl TargetKind {
    /// Every kind, ShareOfClock first.
    pub const ALL: [TargetKind; 2] = [TargetKind::ShareOfClock, TargetKind::Instability];

    /// The name in file headers.
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::ShareOfClock => "rho",
            TargetKind::Instability => "instability",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The kind a header names; no entry means [`TargetKind::ShareOfClock`] (files older than the entry).
    pub fn from_header(header: Option<&str>) -> Result<Self, String> {
        match header {
            None => Ok(TargetKind::ShareOfClock),
            Some(name) => Self::from_name(name)
                .ok_or_else(|| format!("unknown {TARGET_KIND_KEY} '{name}' (this version knows rho and instability)")),
        }
    }
}

/// Z-score statistics of the inputs and of the target, fitted on the training rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Normalisation {
    /// Mean of each of the 769 inputs (0 where an input is left as it is).
    pub feature_mean: Vec<f32>,
    /// Standard deviation of each input (1 where left as it is or constant).
    pub feature_std: Vec<f32>,
    /// Mean of the target (ρ, or the instability ȳ).
    pub target_mean: f32,
    /// Standard deviation of the target (1 if constant).
    pub target_std: f32,
}

/// Why a model file cannot be used; each names the file and the way out.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The file could not be read.
    #[error("CTM model '{}': {reason}; give model= the path of a file written by `kairos tm-train --out PATH`, \
             or leave model out to let the fallback manager budget every move", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        reason: String,
    },
    /// The file is not a model written by `kairos tm-train`, or not one this version reads.
    #[error("CTM model '{}' is not a model written by `kairos tm-train` ({reason}); train one with \
             `kairos tm-train --out PATH` and give its path, or leave model out to let the fallback manager \
             budget every move", path.display())]
    NotAModel {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// A model file's contents: architecture, normalisation and every tensor as flat f32 values with its shape.
#[derive(Clone, Debug)]
pub struct ModelFile {
    /// The file it was read from.
    pub path: PathBuf,
    /// The architecture.
    pub arch: Architecture,
    /// The CNNs' convolution size (3 or 5).
    pub kernel: usize,
    /// What the net predicts.
    pub target_kind: TargetKind,
    /// The input and target statistics.
    pub norm: Normalisation,
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl ModelFile {
    /// Reads and checks a model file.
    pub fn read(path: &Path) -> Result<Self, ModelError> {
        let bytes = std::fs::read(path)
            .map_err(|e| ModelError::Unreadable { path: path.to_owned(), reason: format!("cannot read it: {e}") })?;
        Self::from_bytes(path, &bytes)
    }

    /// Checks a model file's bytes; `path` names the file in errors.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, ModelError> {
        let bad = |reason: String| ModelError::NotAModel { path: path.to_owned(), reason };
        let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| bad(format!("no safetensors header: {e}")))?;
        let meta = header.metadata().clone().unwrap_or_default();
        if meta.get("format").map(String::as_str) != Some(FORMAT) {
            return Err(bad(format!("no format={FORMAT} in the header")));
        }
        let arch_name = meta.get("arch").map(String::as_str).unwrap_or("none");
        let arch = Architecture::from_name(arch_name).ok_or_else(|| bad(format!("unknown arch '{arch_name}'")))?;
        let kernel = meta.get("kernel").and_then(|k| k.parse::<usize>().ok()).filter(|k| *k == 3 || *k == 5);
        let kernel = kernel.ok_or_else(|| bad("kernel is not 3 or 5".to_owned()))?;
        let target_kind = TargetKind::from_header(meta.get(TARGET_KIND_KEY).map(String::as_str)).map_err(bad)?;
        let file = SafeTensors::deserialize(bytes).map_err(|e| bad(e.to_string()))?;
        let mut tensors = HashMap::new();
        for (name, view) in file.tensors() {
            if view.dtype() != Dtype::F32 {
                return Err(bad(format!("tensor {name} is {:?}, expected F32", view.dtype())));
            }
            let values = view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            tensors.insert(name, (view.shape().to_vec(), values));
        }
        let mut model = ModelFile {
            path: path.to_owned(),
            arch,
            kernel,
            target_kind,
            norm: Normalisation {
                feature_mean: Vec::new(),
                feature_std: Vec::new(),
                target_mean: 0.0,
                target_std: 1.0,
            },
            tensors,
        };
        let target = model.tensor("norm.target", &[2])?;
        let (target_mean, target_std) = (target[0], target[1]);
        model.norm = Normalisation {
            feature_mean: model.tensor("norm.feature_mean", &[FEATURES])?.to_vec(),
            feature_std: model.tensor("norm.feature_std", &[FEATURES])?.to_vec(),
            target_mean,
            target_std,
        };
        Ok(model)
    }

    /// The values of tensor `name`, which must have shape `shape`.
    pub fn tensor(&self, name: &str, shape: &[usize]) -> Result<&[f32], ModelError> {
        let bad = |reason: String| ModelError::NotAModel { path: self.path.clone(), reason };
        let (found, values) = self.tensors.get(name).ok_or_else(|| bad(format!("no tensor {name}")))?;
        if found != shape {
            return Err(bad(format!("tensor {name} has shape {found:?}, expected {shape:?}")));
        }
        Ok(values)
    }
}
