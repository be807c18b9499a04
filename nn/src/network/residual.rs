//! The convolutional residual tower (docs/lc0/network.md §5.5; lc0 `network_blas.cc`, the residual tower).

use super::{Conv, Dense};

/// The 3×3 input convolution and the residual blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualTower {
    /// 3×3 input convolution, 112 → filters.
    pub input: Conv,
    /// The residual blocks.
    pub blocks: Vec<ResidualBlock>,
}

impl ResidualTower {
    /// The number of filters of every block.
    pub fn filters(&self) -> usize {
        self.input.out_channels
    }

    /// The tower's parameters.
    pub fn parameters(&self) -> usize {
        self.input.parameters()
            + self
                .blocks
                .iter()
                .map(|b| {
                    b.conv1.parameters()
                        + b.conv2.parameters()
                        + b.se.as_ref().map_or(0, |se| se.fc1.parameters() + se.fc2.parameters())
                })
                .sum::<usize>()
    }
}

/// A squeeze-excitation unit: `fc2` has twice the filters as outputs (scales, then offsets).
#[derive(Clone, Debug, PartialEq)]
pub struct SqueezeExcitation {
    /// Filters → SE width.
    pub fc1: Dense,
    /// SE width → 2·filters.
    pub fc2: Dense,
}

/// One residual block.
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualBlock {
    /// First 3×3 convolution, followed by the activation.
    pub conv1: Conv,
    /// Second 3×3 convolution.
    pub conv2: Conv,
    /// Optional squeeze-excitation applied to the second convolution's output.
    pub se: Option<SqueezeExcitation>,
}
