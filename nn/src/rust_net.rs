//! The network in plain Rust, f32 (its Winograd products in bf16 where asked and the CPU has AVX512-BF16,
//! [`bf16_products`]), for convolutional networks on the CPU (#12 item 4). libtorch spends most of
//! a small batch in per-operator overhead (1.5–1.9 ms for a batch of one of Maia-1900, where lc0's blas backend
//! takes 0.68 ms), so the torch backend sends CPU batches up to its Rust batch limit here instead
//! ([`crate::torch_backend::default_rust_batch_limit`]).
//!
//! Activations are held square-major (`[64 squares][channels]`), so every loop runs along channels and
//! vectorises without reordering a sum. The first convolution sums over the input's set squares
//! ([`input_conv`]); the others are Winograd's ([`winograd`]).

mod bf16_products;
mod input_conv;
mod winograd;

use std::sync::{Mutex, PoisonError};

use crate::encoder::InputPlanes;
use crate::network::{Activation, Body, Conv, Dense, HeadInput, Network, PolicyHead, ValueKind};
use crate::policy_map::{conv_policy_map, POLICY_SIZE};
use crate::raw_outputs::RawOutputs;
use input_conv::InputConvolution;
use winograd::{Scratch, Winograd3x3};

/// Positions computed together: each layer's weights are read once for all of them, and sixteen positions'
/// F(4×4) tiles still fit the caches (Maia-1900 on the Xeon of BENCHMARKS.md, batch 32: 3147–3333
/// evaluations/s sixteen at a time, 2825–3129 eight at a time).
pub const POSITIONS_AT_ONCE: usize = 16;
/// Squares of the board.
const SQUARES: usize = 64;

/// A convolutional network in the layouts of this module.
pub struct RustNetwork {
    isa: Isa,
    activation: Activation,
    input: InputConvolution,
    tower: Vec<Block>,
    policy: Policy,
    value: Head,
    value_outputs: usize,
    moves_left: Option<Head>,
    /// Buffers of finished batches, for the next ones: new ones are zeroed, 4 % of a batch of one's time.
    spare_buffers: Mutex<Vec<Buffers>>,
}

/// The buffers of one forward pass: the Winograd domain's, and a block's input, middle and output.
#[derive(Default)]
struct Buffers {
    scratch: Scratch,
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
}

/// The vector instructions the forward pass is compiled for, found at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    Avx512,
    Avx2,
    Portable,
}

/// Caps the instructions the network in plain Rust uses, as oneDNN's `ONEDNN_MAX_CPU_ISA` caps oneDNN's:
/// `AVX2` or `PORTABLE` (for measuring a CPU without AVX-512 on one that has it).
pub const MAX_ISA_VARIABLE: &str = "KAIROS_MAX_CPU_ISA";

impl Isa {
    /// The widest this CPU has, capped by [`MAX_ISA_VARIABLE`].
    pub(crate) fn detect() -> Self {
        let cap = std::env::var(MAX_ISA_VARIABLE).unwrap_or_default().to_ascii_uppercase();
        Self::detect_up_to(match cap.as_str() {
            "AVX2" => Self::Avx2,
            "PORTABLE" => Self::Portable,
            _ => Self::Avx512,
        })
    }

    fn detect_up_to(cap: Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            let fma = std::arch::is_x86_feature_detected!("fma");
            if cap == Self::Avx512 && fma && std::arch::is_x86_feature_detected!("avx512f") {
                return Self::Avx512;
            }
            if cap != Self::Portable && fma && std::arch::is_x86_feature_detected!("avx2") {
                return Self::Avx2;
            }
        }
        Self::Portable
    }
}

/// A fully connected layer with its weights transposed, so that a product runs along the outputs; a 1×1
/// convolution is one applied to every square ([`Linear::apply_to_squares`]). The libtorch network's
/// squeeze-excitation on the CPU uses it too (`torch_net::squeeze_excite_cpu`).
pub(crate) struct Linear {
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
    /// `[inputs][outputs]`.
    weights: Vec<f32>,
    biases: Vec<f32>,
}

struct Block {
    conv1: Winograd3x3,
    conv2: Winograd3x3,
    se: Option<(Linear, Linear)>,
}

enum Policy {
    Classical { conv: Linear, fc: Linear },
    Convolution { conv1: Winograd3x3, conv2: Winograd3x3 },
}

/// Conv 1×1 + activation, flattened channel-major as the network was trained, hidden layer + activation, output.
struct Head {
    conv: Linear,
    fc1: Linear,
    fc2: Linear,
}

impl RustNetwork {
    /// The network in this path's layouts, its Winograd products in bf16 when `bf16` and the CPU has AVX512-BF16
    /// ([`bf16_products`]), or `None` for a network it does not cover (an attention body or policy).
    pub fn new(network: &Network, bf16: bool) -> Option<Self> {
        let isa = Isa::detect();
        let bf16_pairs = bf16 && isa == Isa::Avx512;
        let Body::Residual(body) = &network.body else {
            return None;
        };
        if !matches!(network.activation, Activation::Relu | Activation::Mish) {
            return None;
        }
        let policy = match &network.policy {
            PolicyHead::Classical { conv, fc } => {
                Policy::Classical { conv: Linear::pointwise(conv)?, fc: Linear::new(fc) }
            }
            PolicyHead::Convolution { conv1, conv2 } => Policy::Convolution {
                conv1: Winograd3x3::new(conv1, bf16_pairs)?,
                conv2: Winograd3x3::new(conv2, bf16_pairs)?,
            },
            PolicyHead::Attention(_) => return None,
        };
        let head = |input: &HeadInput, fc1: &Dense, fc2: &Dense| {
            let HeadInput::Convolution(conv) = input else {
                return None;
            };
            Some(Head { conv: Linear::pointwise(conv)?, fc1: Linear::new(fc1), fc2: Linear::new(fc2) })
        };
        let tower = body
            .blocks
            .iter()
            .map(|block| {
                Some(Block {
                    conv1: Winograd3x3::new(&block.conv1, bf16_pairs)?,
                    conv2: Winograd3x3::new(&block.conv2, bf16_pairs)?,
                    se: block.se.as_ref().map(|se| (Linear::new(&se.fc1), Linear::new(&se.fc2))),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let moves_left = match &network.moves_left {
            Some(m) => Some(head(&m.input, &m.fc1, &m.fc2)?),
            None => None,
        };
        Some(Self {
            isa,
            activation: network.activation,
            input: InputConvolution::new(&body.input)?,
            tower,
            policy,
            value: head(&network.value.input, &network.value.fc1, &network.value.fc2)?,
            value_outputs: match network.value.kind {
                ValueKind::Wdl => 3,
                ValueKind::Classical => 1,
            },
            moves_left,
            spare_buffers: Mutex::new(Vec::new()),
        })
    }

    /// Runs encoded positions, up to [`POSITIONS_AT_ONCE`] together, each layer's weights read once for all
    /// of them. The outputs are laid out as the libtorch network's.
    pub fn forward(&self, positions: &[InputPlanes]) -> RawOutputs {
        let batch = positions.len();
        let mut outputs = RawOutputs {
            policy: Vec::with_capacity(batch * POLICY_SIZE),
            value: Vec::with_capacity(batch * self.value_outputs),
            moves_left: self.moves_left.as_ref().map(|_| Vec::with_capacity(batch)),
        };
        // Chunks of equal size, so that no small remainder falls back to the slower small tiles.
        let chunk = batch.div_ceil(batch.div_ceil(POSITIONS_AT_ONCE).max(1)).max(1);
        let spare = self.spare_buffers.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let mut buffers = spare.unwrap_or_default();
        for positions in positions.chunks(chunk) {
            self.forward_batch(positions, &mut buffers, &mut outputs);
        }
        self.spare_buffers.lock().unwrap_or_else(PoisonError::into_inner).push(buffers);
        outputs
    }

    /// One chunk of positions, in the widest vector instructions of this CPU and with the Winograd tiles of
    /// its size ([`winograd::LARGE_TILES_FROM`]). Each tile size is its own compiled function: with both in
    /// one, LLVM stopped removing the zeroing of the transforms' buffers (8 % of a batch of one).
    fn forward_batch(&self, positions: &[InputPlanes], buffers: &mut Buffers, outputs: &mut RawOutputs) {
        let large = positions.len() >= winograd::LARGE_TILES_FROM;
        match (self.isa, large) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::detect` found AVX-512F and FMA on this CPU.
            (Isa::Avx512, true) => unsafe { self.forward_avx512::<true>(positions, buffers, outputs) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Isa::Avx512, false) => unsafe { self.forward_avx512::<false>(positions, buffers, outputs) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::detect` found AVX2 and FMA on this CPU.
            (Isa::Avx2, true) => unsafe { self.forward_avx2::<true>(positions, buffers, outputs) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Isa::Avx2, false) => unsafe { self.forward_avx2::<false>(positions, buffers, outputs) },
            (_, true) => self.forward_with::<false, 8, true>(positions, buffers, outputs),
            (_, false) => self.forward_with::<false, 8, false>(positions, buffers, outputs),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn forward_avx512<const LARGE: bool>(
        &self,
        positions: &[InputPlanes],
        buffers: &mut Buffers,
        outputs: &mut RawOutputs,
    ) {
        self.forward_with::<true, 64, LARGE>(positions, buffers, outputs);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2<const LARGE: bool>(
        &self,
        positions: &[InputPlanes],
        buffers: &mut Buffers,
        outputs: &mut RawOutputs,
    ) {
        self.forward_with::<true, 16, LARGE>(positions, buffers, outputs);
    }

    /// The forward pass of a batch; `FUSED` multiplies and adds in one rounding (FMA), as the CPUs that
    /// have it do fastest, and `WIDTH` is the number of outputs a convolution accumulates in registers at once
    /// (four AVX-512 or two AVX2 registers' worth); `LARGE` takes F(4×4) tiles, else F(2×2).
    #[inline(always)]
    fn forward_with<const FUSED: bool, const WIDTH: usize, const LARGE: bool>(
        &self,
        positions: &[InputPlanes],
        buffers: &mut Buffers,
        outputs: &mut RawOutputs,
    ) {
        let activation = self.activation;
        let filters = self.input.outputs;
        let Buffers { scratch, x, y, z } = buffers;
        self.input.apply::<FUSED>(positions, activation, x);
        for block in &self.tower {
            block.conv1.apply::<FUSED, WIDTH, LARGE>(x, scratch, Some(activation), y);
            block.conv2.apply::<FUSED, WIDTH, LARGE>(y, scratch, None, z);
            let positions = z.chunks_exact_mut(SQUARES * filters).zip(x.chunks_exact(SQUARES * filters));
            for (z, x) in positions {
                match &block.se {
                    Some((fc1, fc2)) => squeeze_excite_and_add::<FUSED>(z, x, fc1, fc2, activation),
                    None => add_and_activate(z, x, activation),
                }
            }
            std::mem::swap(x, z);
        }
        match &self.policy {
            Policy::Classical { conv, fc } => {
                let mut p = conv.apply_to_squares::<FUSED>(x);
                activate(activation, &mut p);
                for position in p.chunks_exact(SQUARES * conv.outputs) {
                    outputs.policy.extend(fc.apply::<FUSED>(&channel_major(position, conv.outputs)));
                }
            }
            Policy::Convolution { conv1, conv2 } => {
                conv1.apply::<FUSED, WIDTH, LARGE>(x, scratch, Some(activation), y);
                conv2.apply::<FUSED, WIDTH, LARGE>(y, scratch, None, z);
                for planes in z.chunks_exact(SQUARES * conv2.outputs) {
                    let start = outputs.policy.len();
                    outputs.policy.resize(start + POLICY_SIZE, 0.0);
                    for (slot, &index) in conv_policy_map().iter().enumerate() {
                        if let Ok(index) = usize::try_from(index) {
                            let (plane, square) = (slot / SQUARES, slot % SQUARES);
                            outputs.policy[start + index] = planes[square * conv2.outputs + plane];
                        }
                    }
                }
            }
        }
        outputs.value.extend(self.value.apply::<FUSED>(x, filters, activation).into_iter().flatten());
        if let (Some(head), Some(moves_left)) = (&self.moves_left, &mut outputs.moves_left) {
            moves_left.extend(head.apply::<FUSED>(x, filters, activation).iter().map(|m| m[0].max(0.0)));
        }
    }
}

/// `a + b·c`, fused into one rounding when `FUSED`.
#[inline(always)]
fn multiply_add<const FUSED: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FUSED {
        b.mul_add(c, a)
    } else {
        a + b * c
    }
}

/// `accumulator += scale · row`, along the row.
#[inline(always)]
fn add_scaled<const FUSED: bool>(accumulator: &mut [f32], scale: f32, row: &[f32]) {
    for (a, &r) in accumulator.iter_mut().zip(row) {
        *a = multiply_add::<FUSED>(*a, scale, r);
    }
}

/// The activation of every value, in the caller's instructions (inlined: a call of its own ran in SSE2).
#[inline(always)]
fn activate(activation: Activation, values: &mut [f32]) {
    for v in values {
        *v = activated(activation, *v);
    }
}

/// The activation of one value.
#[inline(always)]
fn activated(activation: Activation, v: f32) -> f32 {
    match activation {
        Activation::Relu => v.max(0.0),
        Activation::Mish => v * v.exp().ln_1p().tanh(),
        _ => unreachable!("RustNetwork::new takes only ReLU and Mish networks"),
    }
}

/// A residual block's end without squeeze-excitation: `activation(z + x)`.
#[inline(always)]
fn add_and_activate(z: &mut [f32], x: &[f32], activation: Activation) {
    for (z, &x) in z.iter_mut().zip(x) {
        *z = activated(activation, *z + x);
    }
}

/// `[64][channels]` to `[channels][64]`, the order the network's fully connected layers were trained on.
fn channel_major(values: &[f32], channels: usize) -> Vec<f32> {
    let mut out = vec![0.0; channels * SQUARES];
    for (square, row) in values.chunks_exact(channels).enumerate() {
        for (channel, &v) in row.iter().enumerate() {
            out[channel * SQUARES + square] = v;
        }
    }
    out
}

/// A residual block's end with lc0's squeeze-excitation: per channel, `activation(z·sigmoid(γ) + β + x)`, γ and
/// β from the channel means of `z` (one position's).
#[inline(always)]
fn squeeze_excite_and_add<const FUSED: bool>(
    z: &mut [f32],
    x: &[f32],
    fc1: &Linear,
    fc2: &Linear,
    activation: Activation,
) {
    let channels = fc1.inputs;
    let mut mean = vec![0.0; channels];
    for row in z.chunks_exact(channels) {
        for (m, &v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= SQUARES as f32);
    let mut hidden = fc1.apply::<FUSED>(&mean);
    activate(activation, &mut hidden);
    let gates_and_offsets = fc2.apply::<FUSED>(&hidden);
    let (gates, offsets) = gates_and_offsets.split_at(channels);
    let gates: Vec<f32> = gates.iter().map(|g| 1.0 / (1.0 + (-g).exp())).collect();
    for (row, x) in z.chunks_exact_mut(channels).zip(x.chunks_exact(channels)) {
        for (((v, &gate), &offset), &x) in row.iter_mut().zip(&gates).zip(offsets).zip(x) {
            *v = activated(activation, multiply_add::<FUSED>(offset, *v, gate) + x);
        }
    }
}

impl Linear {
    pub(crate) fn new(dense: &Dense) -> Self {
        Self::transposed(dense.inputs, dense.outputs, &dense.weights, &dense.biases)
    }

    /// A 1×1 convolution as the layer it applies to every square; `None` for another kernel.
    fn pointwise(conv: &Conv) -> Option<Self> {
        (conv.kernel == 1).then(|| Self::transposed(conv.in_channels, conv.out_channels, &conv.weights, &conv.biases))
    }

    /// The layer of `weights` given `[outputs][inputs]`, held `[inputs][outputs]`.
    fn transposed(inputs: usize, outputs: usize, weights: &[f32], biases: &[f32]) -> Self {
        let mut transposed = vec![0.0; inputs * outputs];
        for output in 0..outputs {
            for input in 0..inputs {
                transposed[input * outputs + output] = weights[output * inputs + input];
            }
        }
        Self { inputs, outputs, weights: transposed, biases: biases.to_vec() }
    }

    #[inline(always)]
    fn apply<const FUSED: bool>(&self, x: &[f32]) -> Vec<f32> {
        let mut out = self.biases.clone();
        self.accumulate::<FUSED>(x, &mut out);
        out
    }

    /// `[squares][inputs]` to `[squares][outputs]` (any rows: the squeeze-excitation's positions too).
    #[inline(always)]
    pub(crate) fn apply_to_squares<const FUSED: bool>(&self, x: &[f32]) -> Vec<f32> {
        let mut out = Vec::with_capacity(x.len() / self.inputs * self.outputs);
        for square in x.chunks_exact(self.inputs) {
            let start = out.len();
            out.extend_from_slice(&self.biases);
            self.accumulate::<FUSED>(square, &mut out[start..]);
        }
        out
    }

    /// `out += W·x`, a block of outputs at a time held in registers across all the inputs: adding each input's
    /// row into `out` in memory made every multiply-add wait for the previous one's store (the store of the 1×1
    /// value convolution's 32 outputs was a batch's hottest instruction). Each output's sum keeps its order.
    #[inline(always)]
    fn accumulate<const FUSED: bool>(&self, x: &[f32], out: &mut [f32]) {
        let mut first = 0;
        while first + 64 <= self.outputs {
            self.accumulate_block::<FUSED, 64>(x, first, out);
            first += 64;
        }
        if first + 32 <= self.outputs {
            self.accumulate_block::<FUSED, 32>(x, first, out);
            first += 32;
        }
        if first + 16 <= self.outputs {
            self.accumulate_block::<FUSED, 16>(x, first, out);
            first += 16;
        }
        if first < self.outputs {
            for (&v, row) in x.iter().zip(self.weights.chunks_exact(self.outputs)) {
                add_scaled::<FUSED>(&mut out[first..], v, &row[first..]);
            }
        }
    }

    /// [`Linear::apply`] of four inputs, each row of weights read once for the four; the same sums.
    #[inline(always)]
    fn apply_four<const FUSED: bool>(&self, xs: [&[f32]; 4]) -> [Vec<f32>; 4] {
        let mut outs = [self.biases.clone(), self.biases.clone(), self.biases.clone(), self.biases.clone()];
        let mut first = 0;
        while first + 64 <= self.outputs {
            self.accumulate_four::<FUSED, 64>(xs, first, &mut outs);
            first += 64;
        }
        if first + 32 <= self.outputs {
            self.accumulate_four::<FUSED, 32>(xs, first, &mut outs);
            first += 32;
        }
        if first + 16 <= self.outputs {
            self.accumulate_four::<FUSED, 16>(xs, first, &mut outs);
            first += 16;
        }
        if first < self.outputs {
            for (x, out) in xs.iter().zip(&mut outs) {
                for (&v, row) in x.iter().zip(self.weights.chunks_exact(self.outputs)) {
                    add_scaled::<FUSED>(&mut out[first..], v, &row[first..]);
                }
            }
        }
        outs
    }

    /// Outputs `first .. first + N` of [`Linear::apply_four`]: four blocks in registers.
    #[inline(always)]
    fn accumulate_four<const FUSED: bool, const N: usize>(
        &self,
        xs: [&[f32]; 4],
        first: usize,
        outs: &mut [Vec<f32>; 4],
    ) {
        let mut blocks: [[f32; N]; 4] =
            std::array::from_fn(|k| outs[k][first..first + N].try_into().expect("N outputs"));
        let rows = self.weights.chunks_exact(self.outputs);
        let inputs = xs[0].iter().zip(xs[1]).zip(xs[2].iter().zip(xs[3]));
        for (row, ((&v0, &v1), (&v2, &v3))) in rows.zip(inputs) {
            let w = &row[first..first + N];
            for (block, v) in blocks.iter_mut().zip([v0, v1, v2, v3]) {
                add_scaled::<FUSED>(block, v, w);
            }
        }
        for (out, block) in outs.iter_mut().zip(&blocks) {
            out[first..first + N].copy_from_slice(block);
        }
    }

    /// Outputs `first .. first + N` of [`Linear::accumulate`].
    #[inline(always)]
    fn accumulate_block<const FUSED: bool, const N: usize>(&self, x: &[f32], first: usize, out: &mut [f32]) {
        let out: &mut [f32; N] = (&mut out[first..first + N]).try_into().expect("N outputs");
        let mut block = *out;
        for (&v, row) in x.iter().zip(self.weights.chunks_exact(self.outputs)) {
            add_scaled::<FUSED>(&mut block, v, &row[first..first + N]);
        }
        *out = block;
    }
}

impl Head {
    /// The head's outputs for each position of `x` (`[positions][64][filters]`); the hidden layer (2048 inputs
    /// for Maia's value head, weights beyond the L1 cache) takes four positions for each row of weights read.
    /// Plain loops, no closures: a closure is compiled without the caller's vector instructions, and its
    /// multiply-adds became calls to the C library's `fmaf`.
    #[inline(always)]
    fn apply<const FUSED: bool>(&self, x: &[f32], filters: usize, activation: Activation) -> Vec<Vec<f32>> {
        let mut inputs = Vec::with_capacity(x.len() / (SQUARES * filters));
        for position in x.chunks_exact(SQUARES * filters) {
            let mut planes = self.conv.apply_to_squares::<FUSED>(position);
            activate(activation, &mut planes);
            inputs.push(channel_major(&planes, self.conv.outputs));
        }
        let mut hidden = Vec::with_capacity(inputs.len());
        let mut fours = inputs.chunks_exact(4);
        for four in fours.by_ref() {
            hidden.extend(self.fc1.apply_four::<FUSED>([&four[0], &four[1], &four[2], &four[3]]));
        }
        for input in fours.remainder() {
            hidden.push(self.fc1.apply::<FUSED>(input));
        }
        let mut outputs = Vec::with_capacity(hidden.len());
        for mut hidden in hidden {
            activate(activation, &mut hidden);
            outputs.push(self.fc2.apply::<FUSED>(&hidden));
        }
        outputs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoder::PLANES;

    /// `[channels][64]` to `[64][channels]`.
    pub(super) fn square_major(values: &[f32], channels: usize) -> Vec<f32> {
        let mut out = vec![0.0; channels * SQUARES];
        for (channel, plane) in values.chunks_exact(SQUARES).enumerate() {
            for (square, &v) in plane.iter().enumerate() {
                out[square * channels + channel] = v;
            }
        }
        out
    }

    /// Deterministic values in [−1, 1).
    pub(super) fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (state as f32 / u32::MAX as f32) * 2.0 - 1.0
            })
            .collect()
    }

    fn conv(inputs: usize, outputs: usize, kernel: usize, seed: u32) -> Conv {
        Conv {
            out_channels: outputs,
            in_channels: inputs,
            kernel,
            weights: values(outputs * inputs * kernel * kernel, seed).iter().map(|w| w * 0.2).collect(),
            biases: values(outputs, seed + 1),
        }
    }

    fn dense(inputs: usize, outputs: usize, seed: u32) -> Dense {
        Dense {
            outputs,
            inputs,
            weights: values(outputs * inputs, seed).iter().map(|w| w * 0.1).collect(),
            biases: values(outputs, seed + 1),
        }
    }

    /// A random network of 32 filters (two vector widths of channels) with every part Maia-1900 has.
    fn random_network() -> Network {
        Network {
            input_format: crate::network::InputFormat::Classical,
            activation: Activation::Relu,
            body: Body::Residual(crate::network::ResidualTower {
                input: conv(112, 32, 3, 10),
                blocks: vec![crate::network::ResidualBlock {
                    conv1: conv(32, 32, 3, 20),
                    conv2: conv(32, 32, 3, 30),
                    se: Some(crate::network::SqueezeExcitation { fc1: dense(32, 8, 40), fc2: dense(8, 64, 50) }),
                }],
            }),
            policy: PolicyHead::Convolution { conv1: conv(32, 32, 3, 60), conv2: conv(32, 80, 3, 70) },
            value: crate::network::ValueHead {
                kind: ValueKind::Wdl,
                input: crate::network::HeadInput::Convolution(conv(32, 32, 1, 80)),
                fc1: dense(2048, 128, 90),
                fc2: dense(128, 3, 100),
            },
            moves_left: None,
            smolgen_global: None,
        }
    }

    #[test]
    fn avx512_and_avx2_give_the_same_bits_and_the_portable_loops_agree_within_rounding() {
        let mut network = RustNetwork::new(&random_network(), false).expect("a convolutional network");
        // Ones on the squares where a random value is positive, five positions of 112 planes: one alone takes
        // F(2×2), all five F(4×4).
        let random = values(5 * PLANES * SQUARES, 7);
        let positions: Vec<InputPlanes> = random
            .chunks_exact(PLANES * SQUARES)
            .map(|position| {
                std::array::from_fn(|plane| crate::encoder::Plane {
                    mask: position[plane * SQUARES..][..SQUARES]
                        .iter()
                        .enumerate()
                        .filter(|(_, v)| **v > 0.0)
                        .fold(0, |mask, (square, _)| mask | 1 << square),
                    value: 1.0,
                })
            })
            .collect();
        let mut outputs = Vec::new();
        for isa in [Isa::Avx512, Isa::Avx2, Isa::Portable] {
            network.isa = Isa::detect_up_to(isa);
            let [alone, together] = [&positions[..1], &positions[..]].map(|positions| network.forward(positions));
            outputs.push((network.isa, [alone.policy, alone.value, together.policy, together.value].concat()));
        }
        let (best, reference) = &outputs[0];
        for (isa, raw) in &outputs[1..] {
            for (a, b) in raw.iter().zip(reference) {
                if *isa == Isa::Portable || *best == Isa::Portable {
                    // Separate and fused multiply-adds round apart by up to 4.4e-5 through this network's layers;
                    // 1e-4 is the tolerance of the logits against lc0's (tests/maia_reference.rs).
                    assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{isa:?} against {best:?}: {a} vs {b}");
                } else {
                    assert_eq!(a.to_bits(), b.to_bits(), "{isa:?} against {best:?}: {a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn a_pointwise_convolution_and_a_linear_layer_follow_their_definitions() {
        let conv = Conv { out_channels: 3, in_channels: 4, kernel: 1, weights: values(12, 4), biases: values(3, 5) };
        let x = values(4 * 64, 6);
        let out =
            channel_major(&Linear::pointwise(&conv).expect("1×1").apply_to_squares::<false>(&square_major(&x, 4)), 3);
        for o in 0..3 {
            for square in 0..64 {
                let want: f32 =
                    conv.biases[o] + (0..4).map(|i| conv.weights[o * 4 + i] * x[i * 64 + square]).sum::<f32>();
                assert!((out[o * 64 + square] - want).abs() < 1e-6);
            }
        }
        let dense =
            Dense { outputs: 2, inputs: 3, weights: vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.25], biases: vec![0.5, -0.5] };
        // Hand-worked: [0.5 + 1 + 4 + 9, −0.5 − 1 + 1 + 0.75].
        assert_eq!(Linear::new(&dense).apply::<false>(&[1.0, 2.0, 3.0]), vec![14.5, 0.25]);
    }

    #[test]
    fn four_inputs_at_once_give_each_the_bits_of_its_own_pass() {
        let (inputs, outputs) = (9, 115);
        let dense = Dense { outputs, inputs, weights: values(outputs * inputs, 31), biases: values(outputs, 32) };
        let linear = Linear::new(&dense);
        let xs: Vec<Vec<f32>> = (0..4).map(|k| values(inputs, 33 + k)).collect();
        let four = linear.apply_four::<true>([&xs[0], &xs[1], &xs[2], &xs[3]]);
        for (x, together) in xs.iter().zip(&four) {
            let alone = linear.apply::<true>(x);
            let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(together), bits(&alone));
        }
    }

    #[test]
    fn every_block_of_a_wide_layer_sums_its_own_outputs_in_the_definitions_order() {
        // 115 outputs: blocks of 64, 32 and 16 summed in registers and 3 left over; each sum in f32 from the bias,
        // input by input, as the definition reads.
        let (inputs, outputs) = (7, 115);
        let dense = Dense { outputs, inputs, weights: values(outputs * inputs, 21), biases: values(outputs, 22) };
        let x = values(inputs, 23);
        let got = Linear::new(&dense).apply::<false>(&x);
        for (o, got) in got.iter().enumerate() {
            let want = (0..inputs).fold(dense.biases[o], |sum, i| sum + dense.weights[o * inputs + i] * x[i]);
            assert_eq!(got.to_bits(), want.to_bits(), "output {o}: {got} against {want}");
        }
    }
}
