//! A dense layer as libtorch tensors: on the CPU in bf16 its weights are prepacked for oneDNN
//! ([`super::packed_linear`]), elsewhere plain `[outputs][inputs]` for `Tensor::linear`.

use tch::{TchError, Tensor};

use super::packed_linear;
use super::{activate, TensorMaker};
use crate::network::{Activation, Dense, Projection};

/// A dense layer's weights and biases (none for a projection).
pub(super) struct DenseT {
    weights: Tensor,
    biases: Option<Tensor>,
    /// Whether `weights` are in oneDNN's layout.
    packed: bool,
}

impl DenseT {
    fn new(
        make: &TensorMaker,
        weights: &[f32],
        biases: Option<&[f32]>,
        outputs: usize,
        inputs: usize,
    ) -> Result<Self, TchError> {
        let plain = make.matrix(weights, outputs, inputs)?;
        let packed = make.packs_dense_layers();
        Ok(Self {
            weights: if packed { packed_linear::pack(&plain)? } else { plain },
            biases: biases.map(|b| make.vector(b)).transpose()?,
            packed,
        })
    }

    /// A dense layer of the network.
    pub fn dense(make: &TensorMaker, d: &Dense) -> Result<Self, TchError> {
        Self::new(make, &d.weights, Some(&d.biases), d.outputs, d.inputs)
    }

    /// Dense layers on the same input as one, their outputs one after another.
    pub fn stacked(make: &TensorMaker, layers: &[&Dense]) -> Result<Self, TchError> {
        let weights: Vec<f32> = layers.iter().flat_map(|d| d.weights.iter().copied()).collect();
        let biases: Vec<f32> = layers.iter().flat_map(|d| d.biases.iter().copied()).collect();
        let inputs = layers.first().map_or(0, |d| d.inputs);
        Self::new(make, &weights, Some(&biases), biases.len(), inputs)
    }

    /// A projection: a dense layer without biases.
    pub fn projection(make: &TensorMaker, p: &Projection) -> Result<Self, TchError> {
        Self::new(make, &p.weights, None, p.outputs, p.inputs)
    }

    /// `x·Wᵀ + b` along `x`'s last dimension.
    pub fn apply(&self, x: &Tensor) -> Result<Tensor, TchError> {
        self.apply_activated(x, Activation::None)
    }

    /// `activation(x·Wᵀ + b)`, the activation in the same oneDNN call where it can be.
    pub fn apply_activated(&self, x: &Tensor, activation: Activation) -> Result<Tensor, TchError> {
        if !self.packed {
            return activate(&x.f_linear(&self.weights, self.biases.as_ref())?, activation);
        }
        let size = x.size();
        let (rows, width) = size.split_at(size.len() - 1);
        let flat = x.f_reshape([-1, width[0]])?;
        let (fused, after) = match packed_linear::fused_name(activation) {
            Some(name) => (name, Activation::None),
            None => (c"none", activation),
        };
        let y = packed_linear::linear(&flat, &self.weights, self.biases.as_ref(), fused)?;
        let outputs = y.size()[1];
        activate(&y.f_reshape([rows, &[outputs]].concat())?, after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    /// The prepacked oneDNN call (where the CPU has native bf16) against libtorch's own `linear` and activation on
    /// the same bf16 weights, for inputs of two and three dimensions and an activation fused (swish) or applied
    /// after (mish).
    #[test]
    fn a_prepacked_layer_computes_what_linear_computes() {
        let make = TensorMaker { device: Device::Cpu, kind: Kind::BFloat16 };
        let (inputs, outputs) = (48, 40);
        let weights: Vec<f32> = (0..inputs * outputs).map(|i| ((i * 37 % 101) as f32 - 50.0) / 200.0).collect();
        let biases: Vec<f32> = (0..outputs).map(|i| (i as f32 - 20.0) / 40.0).collect();
        let dense = Dense { inputs, outputs, weights: weights.clone(), biases: biases.clone() };
        let layer = DenseT::dense(&make, &dense).expect("a packed layer");
        let native = cfg!(target_arch = "x86_64") && crate::cpu_features::native_bf16().is_some();
        assert_eq!(layer.packed, native, "bf16 on an x86 CPU with native bf16 packs");
        let plain = make.matrix(&weights, outputs, inputs).unwrap();
        let plain_biases = make.vector(&biases).unwrap();
        // Fixed inputs in [−1, 1] keep every output below 4 in size, where one bf16 step is at most 2⁻⁶.
        let x_values: Vec<f32> = (0..6 * inputs).map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0).collect();
        let x = Tensor::from_slice(&x_values).reshape([2, 3, inputs as i64]).to_kind(Kind::BFloat16);
        for activation in [Activation::None, Activation::Swish, Activation::Mish] {
            for input in [x.shallow_clone(), x.reshape([6, inputs as i64])] {
                let expected = activate(&input.linear(&plain, Some(&plain_biases)), activation).unwrap();
                let got = layer.apply_activated(&input, activation).unwrap();
                assert_eq!(got.size(), expected.size());
                let difference =
                    (got.to_kind(Kind::Float) - expected.to_kind(Kind::Float)).abs().max().double_value(&[]);
                // Both sides round to bf16 (8 bits of mantissa) on their own: one step apart at most.
                assert!(difference <= 1.0 / 64.0, "{activation:?}: differs by {difference}");
            }
        }
    }
}
