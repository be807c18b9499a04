//! CTM-Net inference in plain Rust, the same computation as `kairos tm-train`'s tch nets in evaluation mode:
//! z-scored inputs, the layers of [`Architecture`], and ρ de-normalised with the target's mean and spread.
//!
//! - `ctm-1.0`: 769 inputs, all z-scored → 400 → 200 → 1 with ReLU.
//! - `ctm-2.0`: 13 planes of 8 × 8 (the 12 piece planes as they are, then one filled with the z-scored
//!   material), a 32-channel convolution (3 × 3 or 5 × 5, zero padding keeping 8 × 8), LeakyReLU (slope
//!   0.01), then one fully connected output over the 32 × 64 values (dropout is off in evaluation).
//! - `ctm-2.1`: 2.0 with three residual blocks after the first convolution: x ← LeakyReLU(b(LeakyReLU(a(x))) + x).

use std::path::Path;

use super::features::{BOARD_FEATURES, FEATURES};
use super::layers::{leaky_relu, relu, Conv, Dense};
use super::model_file::{Architecture, ModelError, ModelFile, Normalisation, TargetKind};

/// Width of the MLP's first hidden layer.
pub const HIDDEN1: usize = 400;
/// Width of the MLP's second hidden layer.
pub const HIDDEN2: usize = 200;
/// Channels of every convolution.
pub const CHANNELS: usize = 32;
/// Input planes of the CNNs: 12 piece planes and the material.
pub const PLANES: usize = 13;
/// Residual blocks of `ctm-2.1`.
pub const RESIDUAL_BLOCKS: usize = 3;

/// A loaded CTM net: predicts ρ, the share of the remaining time to spend on a position, or the decision instability.
#[derive(Clone, Debug)]
pub struct CtmNetwork {
    arch: Architecture,
    target_kind: TargetKind,
    norm: Normalisation,
    layers: Layers,
}

#[derive(Clone, Debug)]
enum Layers {
    Mlp { hidden1: Dense, hidden2: Dense, output: Dense },
    Cnn { stem: Conv, blocks: Vec<(Conv, Conv)>, output: Dense },
}

impl CtmNetwork {
    /// Reads a model file written by `kairos tm-train`.
    pub fn load(path: &Path) -> Result<Self, ModelError> {
        Self::from_file(&ModelFile::read(path)?)
    }

    /// Builds the net from a read model file, checking every tensor's shape.
    pub fn from_file(file: &ModelFile) -> Result<Self, ModelError> {
        let layers = match file.arch {
            Architecture::Mlp => Layers::Mlp {
                hidden1: Dense::read(file, "hidden1", FEATURES, HIDDEN1)?,
                hidden2: Dense::read(file, "hidden2", HIDDEN1, HIDDEN2)?,
                output: Dense::read(file, "output", HIDDEN2, 1)?,
            },
            Architecture::Cnn | Architecture::ResidualCnn => {
                let blocks = if file.arch == Architecture::ResidualCnn { RESIDUAL_BLOCKS } else { 0 };
                let conv = |name: &str, inputs| Conv::read(file, name, inputs, CHANNELS, file.kernel);
                Layers::Cnn {
                    stem: conv("stem", PLANES)?,
                    blocks: (0..blocks)
                        .map(|b| -> Result<(Conv, Conv), ModelError> {
                            Ok((conv(&format!("block{b}_a"), CHANNELS)?, conv(&format!("block{b}_b"), CHANNELS)?))
                        })
                        .collect::<Result<_, _>>()?,
                    output: Dense::read(file, "output", CHANNELS * 64, 1)?,
                }
            }
        };
        Ok(Self { arch: file.arch, target_kind: file.target_kind, norm: file.norm.clone(), layers })
    }

    /// The architecture.
    pub fn arch(&self) -> Architecture {
        self.arch
    }

    /// What the net predicts.
    pub fn target_kind(&self) -> TargetKind {
        self.target_kind
    }

    /// The training mean of the target (ρ̄, or the instability ȳ).
    pub fn target_mean(&self) -> f32 {
        self.norm.target_mean
    }

    /// The predicted target (ρ, or the instability: [`Self::target_kind`]) of one position's 769 inputs
    /// (from [`super::features::encode`]).
    pub fn predict(&self, features: &[u8; FEATURES]) -> f32 {
        let norm = &self.norm;
        let inputs: Vec<f32> =
            (0..FEATURES).map(|j| (f32::from(features[j]) - norm.feature_mean[j]) / norm.feature_std[j]).collect();
        let output = match &self.layers {
            Layers::Mlp { hidden1, hidden2, output } => {
                let mut x = hidden1.forward(&inputs);
                relu(&mut x);
                let mut x = hidden2.forward(&x);
                relu(&mut x);
                output.forward(&x)
            }
            Layers::Cnn { stem, blocks, output } => {
                let mut planes = inputs[..BOARD_FEATURES].to_vec();
                planes.extend(std::iter::repeat_n(inputs[BOARD_FEATURES], 64));
                let mut x = stem.forward(&planes);
                leaky_relu(&mut x);
                for (a, b) in blocks {
                    let mut inner = a.forward(&x);
                    leaky_relu(&mut inner);
                    let mut y = b.forward(&inner);
                    y.iter_mut().zip(&x).for_each(|(y, x)| *y += x);
                    leaky_relu(&mut y);
                    x = y;
                }
                output.forward(&x)
            }
        };
        output[0] * norm.target_std + norm.target_mean
    }
}
