//! The first 3×3 convolution, read straight from the encoder's planes. Each plane is a bit mask and one value,
//! and a position sets a few hundred of its 7,168 squares (the pieces of 8 positions, and the auxiliary planes),
//! so summing the kernel's taps over the set squares takes about an eighth of the multiplications of the
//! Winograd convolution of the dense input (whose 112 channels also made it the widest transform of a pass).
//! Whole planes of the auxiliary group (castling, side to move, the rule-50 count, the plane of ones) each add
//! a precomputed response instead of 64 squares of taps. The sums are direct, so they round less than
//! Winograd's.

use super::{add_scaled, SQUARES};
use crate::encoder::{InputPlanes, FIRST_AUXILIARY_PLANE, PLANES};
use crate::network::{Activation, Conv};

/// Taps of a 3×3 kernel.
const TAPS: usize = 9;
/// Planes that have a whole-plane response.
const AUXILIARY_PLANES: usize = PLANES - FIRST_AUXILIARY_PLANE;

/// A 3×3 convolution of the 112 input planes, with its weights laid out for sums over set squares.
pub struct InputConvolution {
    /// Output channels (filters).
    pub outputs: usize,
    /// `[planes][taps][outputs]`.
    taps: Vec<f32>,
    /// `[auxiliary planes][squares][outputs]`: a plane of ones' contribution to each output square, the taps
    /// that fall on the board summed in f64 and rounded once.
    whole_planes: Vec<f32>,
    biases: Vec<f32>,
}

/// A plane's value on one square.
#[derive(Clone, Copy)]
struct SetSquare {
    plane: usize,
    value: f32,
}

impl InputConvolution {
    /// The convolution in this module's layout, or `None` for a kernel other than 3×3 or an input other than
    /// the encoder's planes.
    pub fn new(conv: &Conv) -> Option<Self> {
        if conv.kernel != 3 || conv.in_channels != PLANES {
            return None;
        }
        let outputs = conv.out_channels;
        let weight = |output: usize, plane: usize, tap: usize| conv.weights[(output * PLANES + plane) * TAPS + tap];
        let mut taps = vec![0.0; PLANES * TAPS * outputs];
        for plane in 0..PLANES {
            for tap in 0..TAPS {
                for output in 0..outputs {
                    taps[(plane * TAPS + tap) * outputs + output] = weight(output, plane, tap);
                }
            }
        }
        let mut whole_planes = vec![0.0; AUXILIARY_PLANES * SQUARES * outputs];
        for auxiliary in 0..AUXILIARY_PLANES {
            for square in 0..SQUARES {
                for output in 0..outputs {
                    let sum: f64 = (0..TAPS)
                        .filter(|&tap| tap_source(square, tap).is_some())
                        .map(|tap| f64::from(weight(output, FIRST_AUXILIARY_PLANE + auxiliary, tap)))
                        .sum();
                    whole_planes[(auxiliary * SQUARES + square) * outputs + output] = sum as f32;
                }
            }
        }
        Some(Self { outputs, taps, whole_planes, biases: conv.biases.clone() })
    }

    /// The convolution of each position, then `activation`, into `out` as `[positions][64][outputs]`.
    #[inline(always)]
    pub fn apply<const FUSED: bool>(&self, positions: &[InputPlanes], activation: Activation, out: &mut Vec<f32>) {
        let outputs = self.outputs;
        out.resize(positions.len() * SQUARES * outputs, 0.0);
        let mut set_squares = Vec::new();
        let mut whole = Vec::new();
        for (planes, out) in positions.iter().zip(out.chunks_exact_mut(SQUARES * outputs)) {
            let starts = self.gather(planes, &mut set_squares, &mut whole);
            let sources = Sources { set_squares: &set_squares, starts: &starts, whole: &whole };
            let mut first = 0;
            while first + 64 <= outputs {
                self.output_block::<FUSED, 64>(&sources, first, activation, out);
                first += 64;
            }
            if first + 32 <= outputs {
                self.output_block::<FUSED, 32>(&sources, first, activation, out);
                first += 32;
            }
            if first + 16 <= outputs {
                self.output_block::<FUSED, 16>(&sources, first, activation, out);
                first += 16;
            }
            for first in first..outputs {
                self.output_block::<FUSED, 1>(&sources, first, activation, out);
            }
        }
    }

    /// The set squares of a position's planes, grouped by square (each square's planes in ascending order;
    /// the returned `starts[s]..starts[s + 1]` index `set_squares`), and the whole auxiliary planes apart.
    #[inline(always)]
    fn gather(
        &self,
        planes: &InputPlanes,
        set_squares: &mut Vec<SetSquare>,
        whole: &mut Vec<(usize, f32)>,
    ) -> [usize; SQUARES + 1] {
        whole.clear();
        let is_whole = |plane: usize, mask: u64| plane >= FIRST_AUXILIARY_PLANE && mask == u64::MAX;
        let mut starts = [0; SQUARES + 1];
        for (plane, p) in planes.iter().enumerate() {
            if is_whole(plane, p.mask) {
                whole.push((plane - FIRST_AUXILIARY_PLANE, p.value));
                continue;
            }
            for square in squares(p.mask) {
                starts[square + 1] += 1;
            }
        }
        for square in 0..SQUARES {
            starts[square + 1] += starts[square];
        }
        set_squares.clear();
        set_squares.resize(starts[SQUARES], SetSquare { plane: 0, value: 0.0 });
        let mut next = starts;
        for (plane, p) in planes.iter().enumerate() {
            if is_whole(plane, p.mask) {
                continue;
            }
            for square in squares(p.mask) {
                set_squares[next[square]] = SetSquare { plane, value: p.value };
                next[square] += 1;
            }
        }
        starts
    }

    /// Outputs `first .. first + N` of every square of one position, summed in registers: the bias, the whole
    /// planes, then each tap's set squares in plane order.
    #[inline(always)]
    fn output_block<const FUSED: bool, const N: usize>(
        &self,
        sources: &Sources<'_>,
        first: usize,
        activation: Activation,
        out: &mut [f32],
    ) {
        let outputs = self.outputs;
        let bias: [f32; N] = self.biases[first..first + N].try_into().expect("N biases");
        for square in 0..SQUARES {
            let mut sum = bias;
            for &(auxiliary, value) in sources.whole {
                let row = &self.whole_planes[(auxiliary * SQUARES + square) * outputs + first..][..N];
                add_scaled::<FUSED>(&mut sum, value, row);
            }
            for tap in 0..TAPS {
                let Some(source) = tap_source(square, tap) else {
                    continue;
                };
                for set in &sources.set_squares[sources.starts[source]..sources.starts[source + 1]] {
                    let row = &self.taps[(set.plane * TAPS + tap) * outputs + first..][..N];
                    add_scaled::<FUSED>(&mut sum, set.value, row);
                }
            }
            for v in &mut sum {
                *v = super::activated(activation, *v);
            }
            out[square * outputs + first..][..N].copy_from_slice(&sum);
        }
    }
}

/// A position's set squares as [`InputConvolution::gather`] groups them.
struct Sources<'a> {
    set_squares: &'a [SetSquare],
    starts: &'a [usize; SQUARES + 1],
    whole: &'a [(usize, f32)],
}

/// The input square that kernel tap `tap` (row-major over the 3×3 kernel) reads for output `square`, or
/// `None` off the board (the padding's zeros).
#[inline(always)]
fn tap_source(square: usize, tap: usize) -> Option<usize> {
    let rank = (square / 8 + tap / 3).checked_sub(1).filter(|&r| r < 8)?;
    let file = (square % 8 + tap % 3).checked_sub(1).filter(|&f| f < 8)?;
    Some(rank * 8 + file)
}

/// The squares of a mask, a1 first.
#[inline(always)]
fn squares(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let square = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            square
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::values;
    use super::*;
    use crate::encoder::Plane;

    /// The convolution by its definition (cross-correlation, padding 1) over the dense planes, in f64, and beside
    /// each output the sum of its terms' magnitudes, the scale of its rounding error.
    fn direct(conv: &Conv, planes: &InputPlanes) -> Vec<(f64, f64)> {
        let input = |plane: usize, rank: i32, file: i32| -> f64 {
            let p = planes[plane];
            let on_board = (0..8).contains(&rank) && (0..8).contains(&file);
            if on_board && p.mask >> (rank * 8 + file) & 1 == 1 {
                f64::from(p.value)
            } else {
                0.0
            }
        };
        let mut out = vec![(0.0, 0.0); SQUARES * conv.out_channels];
        for square in 0..SQUARES as i32 {
            for output in 0..conv.out_channels {
                let mut sum = f64::from(conv.biases[output]);
                let mut magnitude = sum.abs();
                for plane in 0..PLANES {
                    for tap in 0..TAPS as i32 {
                        let weight = conv.weights[(output * PLANES + plane) * TAPS + tap as usize];
                        let term = f64::from(weight) * input(plane, square / 8 + tap / 3 - 1, square % 8 + tap % 3 - 1);
                        sum += term;
                        magnitude += term.abs();
                    }
                }
                out[square as usize * conv.out_channels + output] = (sum, magnitude);
            }
        }
        out
    }

    #[test]
    fn sums_over_set_squares_equal_the_direct_convolution_on_every_square_and_channel() {
        // 83 outputs: blocks of 64 and 16 and three single outputs.
        let outputs = 83;
        let conv = Conv {
            out_channels: outputs,
            in_channels: PLANES,
            kernel: 3,
            weights: values(outputs * PLANES * TAPS, 11),
            biases: values(outputs, 12),
        };
        let input = InputConvolution::new(&conv).expect("a 3×3 convolution of the input planes");
        let masks = values(PLANES, 13);
        let mut planes = [Plane::default(); PLANES];
        for (plane, (p, noise)) in planes.iter_mut().zip(&masks).enumerate() {
            // Sparse masks, a repeated whole history plane (not auxiliary: summed square by square), and whole
            // auxiliary planes with values other than one.
            let bits = (noise.to_bits() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            p.mask = match plane {
                12 | 105 | 108 | 110 => u64::MAX,
                109 => 0,
                _ => bits & bits.rotate_left(17) & bits.rotate_left(31),
            };
            p.value = if plane == 108 { 0.37 } else { 1.0 };
        }
        let expected = direct(&conv, &planes);
        for activation in [Activation::Relu, Activation::Mish] {
            let mut out = Vec::new();
            input.apply::<true>(&[planes, planes], activation, &mut out);
            for (position, out) in out.chunks_exact(SQUARES * outputs).enumerate() {
                for (index, (&got, &(want, magnitude))) in out.iter().zip(&expected).enumerate() {
                    // A few units of f32 precision of the terms' magnitudes (ReLU and Mish change a value by at
                    // most 1.1 times a change of their input); a wrong tap is off by a whole term.
                    let want = super::super::activated(activation, want as f32);
                    let tolerance = 8.0 * f32::EPSILON * magnitude as f32;
                    assert!(
                        (got - want).abs() <= tolerance,
                        "{activation:?}, position {position}, square {} output {}: {got} against {want}",
                        index / outputs,
                        index % outputs
                    );
                }
            }
        }
    }
}
