//! The layers of the CTM nets as torch defines them: a fully connected layer y = W·x + b with W of shape
//! [out, in], and a stride-1 8 × 8 convolution (cross-correlation, zero padding kernel/2) with W of shape
//! [out, in, k, k]; activations in place.

use super::model_file::{ModelError, ModelFile};

/// A fully connected layer.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
}

impl Dense {
    /// Reads `NAME.weight` [outputs, inputs] and `NAME.bias` [outputs].
    pub(crate) fn read(file: &ModelFile, name: &str, inputs: usize, outputs: usize) -> Result<Self, ModelError> {
        Ok(Self {
            weight: file.tensor(&format!("{name}.weight"), &[outputs, inputs])?.to_vec(),
            bias: file.tensor(&format!("{name}.bias"), &[outputs])?.to_vec(),
            inputs,
        })
    }

    /// W·x + b.
    pub(crate) fn forward(&self, x: &[f32]) -> Vec<f32> {
        self.bias
            .iter()
            .zip(self.weight.chunks_exact(self.inputs))
            .map(|(b, row)| b + row.iter().zip(x).map(|(w, x)| w * x).sum::<f32>())
            .collect()
    }
}

/// Side of the board planes.
const SIDE: usize = 8;

/// A convolution over 8 × 8 planes that keeps their size.
#[derive(Clone, Debug)]
pub(crate) struct Conv {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    kernel: usize,
}

impl Conv {
    /// Reads `NAME.weight` [outputs, inputs, kernel, kernel] and `NAME.bias` [outputs].
    pub(crate) fn read(
        file: &ModelFile,
        name: &str,
        inputs: usize,
        outputs: usize,
        kernel: usize,
    ) -> Result<Self, ModelError> {
        Ok(Self {
            weight: file.tensor(&format!("{name}.weight"), &[outputs, inputs, kernel, kernel])?.to_vec(),
            bias: file.tensor(&format!("{name}.bias"), &[outputs])?.to_vec(),
            inputs,
            kernel,
        })
    }

    /// The output planes [outputs][8][8] of input planes [inputs][8][8], both flat.
    pub(crate) fn forward(&self, x: &[f32]) -> Vec<f32> {
        let (k, pad) = (self.kernel, self.kernel / 2);
        let side = SIDE + 2 * pad;
        // The input planes inside a border of `pad` zeros, so that every tap of every square reads a value and
        // the innermost loop runs over 8 squares of a row (which the compiler vectorises).
        let mut padded = vec![0f32; self.inputs * side * side];
        for (c, plane) in x.chunks_exact(SIDE * SIDE).take(self.inputs).enumerate() {
            for (y, row) in plane.chunks_exact(SIDE).enumerate() {
                let start = (c * side + y + pad) * side + pad;
                padded[start..start + SIDE].copy_from_slice(row);
            }
        }
        let mut out = Vec::with_capacity(self.bias.len() * SIDE * SIDE);
        for (o, bias) in self.bias.iter().enumerate() {
            let mut plane = [*bias; SIDE * SIDE];
            for (c, input) in padded.chunks_exact(side * side).enumerate() {
                let weights = &self.weight[(o * self.inputs + c) * k * k..][..k * k];
                for dy in 0..k {
                    for dx in 0..k {
                        let w = weights[dy * k + dx];
                        // out[y][x] += w · in[y + dy − pad][x + dx − pad], zero outside the board.
                        for (y, out_row) in plane.chunks_exact_mut(SIDE).enumerate() {
                            let in_row = &input[(y + dy) * side + dx..][..SIDE];
                            out_row.iter_mut().zip(in_row).for_each(|(o, i)| *o += w * i);
                        }
                    }
                }
            }
            out.extend_from_slice(&plane);
        }
        out
    }
}

/// max(x, 0).
pub(crate) fn relu(values: &mut [f32]) {
    values.iter_mut().for_each(|v| *v = v.max(0.0));
}

/// x for x > 0, else 0.01 · x (torch's default slope).
pub(crate) fn leaky_relu(values: &mut [f32]) {
    values.iter_mut().for_each(|v| {
        if *v < 0.0 {
            *v *= 0.01;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(weight: Vec<f32>, bias: Vec<f32>, inputs: usize, kernel: usize) -> Conv {
        Conv { weight, bias, inputs, kernel }
    }

    #[test]
    fn a_3x3_box_filter_sums_each_squares_neighbourhood() {
        // One input plane of ones, all weights 1, bias 0.5: a corner sees 4 squares, an edge 6, the middle 9.
        let out = conv(vec![1.0; 9], vec![0.5], 1, 3).forward(&[1.0; 64]);
        assert_eq!((out[0], out[1], out[9], out[63], out[7 * 8 + 3]), (4.5, 6.5, 9.5, 4.5, 6.5));
    }

    #[test]
    fn a_5x5_kernel_is_a_cross_correlation() {
        // Weight 1 only at (dy, dx) = (0, 4): out[y][x] = in[y − 2][x + 2], not flipped.
        let mut weight = vec![0.0; 25];
        weight[4] = 1.0;
        let input: Vec<f32> = (0..64).map(|i| i as f32).collect();
        let out = conv(weight, vec![0.0], 1, 5).forward(&input);
        assert_eq!(out[3 * 8 + 1], input[8 + 3], "out[3][1] = in[1][3]");
        assert_eq!(out[8 + 1], 0.0, "row −1 is padding");
        assert_eq!(out[3 * 8 + 6], 0.0, "column 8 is padding");
    }

    #[test]
    fn two_channels_add_up_and_dense_is_w_x_plus_b() {
        let out = conv(
            vec![0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0],
            vec![0.0],
            2,
            3,
        )
        .forward(&[[1.0; 64], [10.0; 64]].concat());
        assert!(out.iter().all(|&v| v == 32.0), "2 · 1 + 3 · 10 at every square");
        let dense = Dense { weight: vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.0], bias: vec![0.25, -0.5], inputs: 3 };
        assert_eq!(dense.forward(&[1.0, 1.0, 2.0]), vec![0.25 + 1.0 + 2.0 + 6.0, -0.5 - 1.0 + 0.5]);
        let mut values = [-2.0, 3.0];
        leaky_relu(&mut values);
        assert_eq!(values, [-0.02, 3.0]);
    }
}
