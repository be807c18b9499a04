//! The CPU's latency path (#12 item 4): a plain-Rust f32 forward pass of one position at a time for
//! convolutional networks, for the tiny batches of small trees and early search. libtorch spends most of a
//! batch of one in per-operator overhead (1.5–1.9 ms for Maia-1900 where lc0's blas backend takes 0.63 ms), so
//! batches up to [`SMALL_BATCH_MAX`] come here instead.
//!
//! Activations are held square-major (`[64 squares][channels]`), so every loop runs along channels and
//! vectorises without reordering a sum. Each 3×3 convolution is Winograd F(4×4, 3×3) (Lavin and Gray, 2016),
//! as lc0's blas backend computes its convolutions: the 8×8 board is 4 tiles of 4×4 outputs read from 6×6
//! inputs, and the multiplications become 36 small matrix products, 4 times fewer than a direct convolution.

use crate::network::{Activation, Conv, Dense, Network, PolicyHead, ValueKind};
use crate::policy_map::{conv_policy_map, POLICY_SIZE};
use crate::torch_net::RawOutputs;

/// The largest batch the latency path takes: above it libtorch's batched kernels are faster (BENCHMARKS.md,
/// "Batch 1").
pub const SMALL_BATCH_MAX: usize = 4;

/// Squares of the board.
const SQUARES: usize = 64;
/// 4×4 output tiles of the board.
const TILES: usize = 4;
/// Values of a 6×6 Winograd tile.
const TILE_VALUES: usize = 36;

/// A convolutional network in the layouts of this path.
pub struct SmallBatchNetwork {
    isa: Isa,
    activation: Activation,
    input: Winograd3x3,
    tower: Vec<Block>,
    policy: Policy,
    value: Head,
    value_outputs: usize,
    moves_left: Option<Head>,
}

/// The vector instructions the forward pass is compiled for, found at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    Avx512,
    Avx2,
    Portable,
}

impl Isa {
    fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma") {
                return Self::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                return Self::Avx2;
            }
        }
        Self::Portable
    }
}

/// A 3×3 convolution with its weights transformed to the Winograd domain.
struct Winograd3x3 {
    inputs: usize,
    outputs: usize,
    /// `[36 tile values][inputs][outputs]`: G·g·Gᵀ of each filter.
    transformed: Vec<f32>,
    biases: Vec<f32>,
}

/// A 1×1 convolution as a matrix over channels.
struct Pointwise {
    inputs: usize,
    outputs: usize,
    /// `[inputs][outputs]`.
    weights: Vec<f32>,
    biases: Vec<f32>,
}

/// A fully connected layer with its weights transposed, so that a product runs along the outputs.
struct Linear {
    inputs: usize,
    outputs: usize,
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
    Classical { conv: Pointwise, fc: Linear },
    Convolution { conv1: Winograd3x3, conv2: Winograd3x3 },
}

/// Conv 1×1 + activation, flattened channel-major as the network was trained, hidden layer + activation, output.
struct Head {
    conv: Pointwise,
    fc1: Linear,
    fc2: Linear,
}

impl SmallBatchNetwork {
    /// The network in this path's layouts, or `None` for a network it does not cover (an attention policy).
    pub fn new(network: &Network) -> Option<Self> {
        let policy = match &network.policy {
            PolicyHead::Classical { conv, fc } => Policy::Classical {
                conv: Pointwise::new(conv)?,
                fc: Linear::new(fc),
            },
            PolicyHead::Convolution { conv1, conv2 } => Policy::Convolution {
                conv1: Winograd3x3::new(conv1)?,
                conv2: Winograd3x3::new(conv2)?,
            },
            PolicyHead::Attention { .. } => return None,
        };
        let head = |conv: &Conv, fc1: &Dense, fc2: &Dense| {
            Some(Head {
                conv: Pointwise::new(conv)?,
                fc1: Linear::new(fc1),
                fc2: Linear::new(fc2),
            })
        };
        let tower = network
            .tower
            .iter()
            .map(|block| {
                Some(Block {
                    conv1: Winograd3x3::new(&block.conv1)?,
                    conv2: Winograd3x3::new(&block.conv2)?,
                    se: block.se.as_ref().map(|se| (Linear::new(&se.fc1), Linear::new(&se.fc2))),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let moves_left = match &network.moves_left {
            Some(m) => Some(head(&m.conv, &m.fc1, &m.fc2)?),
            None => None,
        };
        Some(Self {
            isa: Isa::detect(),
            activation: network.activation,
            input: Winograd3x3::new(&network.input)?,
            tower,
            policy,
            value: head(&network.value.conv, &network.value.fc1, &network.value.fc2)?,
            value_outputs: match network.value.kind {
                ValueKind::Wdl => 3,
                ValueKind::Classical => 1,
            },
            moves_left,
        })
    }

    /// Runs `batch` positions one at a time; `input` is `[batch][112][64]` f32 values. The outputs are laid out
    /// as the libtorch network's.
    pub fn forward(&self, input: &[f32], batch: usize) -> RawOutputs {
        let planes = self.input.inputs * SQUARES;
        let mut outputs = RawOutputs {
            policy: Vec::with_capacity(batch * POLICY_SIZE),
            value: Vec::with_capacity(batch * self.value_outputs),
            moves_left: self.moves_left.as_ref().map(|_| Vec::with_capacity(batch)),
        };
        for position in input.chunks_exact(planes).take(batch) {
            self.forward_one(position, &mut outputs);
        }
        outputs
    }

    fn forward_one(&self, input: &[f32], outputs: &mut RawOutputs) {
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::detect` found AVX-512F and FMA on this CPU.
            Isa::Avx512 => unsafe { self.forward_avx512(input, outputs) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::detect` found AVX2 and FMA on this CPU.
            Isa::Avx2 => unsafe { self.forward_avx2(input, outputs) },
            _ => self.forward_with::<false, 8>(input, outputs),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn forward_avx512(&self, input: &[f32], outputs: &mut RawOutputs) {
        self.forward_with::<true, 64>(input, outputs);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(&self, input: &[f32], outputs: &mut RawOutputs) {
        self.forward_with::<true, 16>(input, outputs);
    }

    /// The forward pass of one position; `FUSED` multiplies and adds in one rounding (FMA), as the CPUs that
    /// have it do fastest, and `WIDTH` is the number of outputs a convolution accumulates in registers at once
    /// (four AVX-512 or two AVX2 registers' worth).
    #[inline(always)]
    fn forward_with<const FUSED: bool, const WIDTH: usize>(&self, input: &[f32], outputs: &mut RawOutputs) {
        let act = |values: &mut [f32]| activate(self.activation, values);
        let mut x = square_major(input, self.input.inputs);
        let mut scratch = Scratch::default();
        let mut y = self.input.apply::<FUSED, WIDTH>(&x, &mut scratch);
        act(&mut y);
        x = y;
        for block in &self.tower {
            let mut y = block.conv1.apply::<FUSED, WIDTH>(&x, &mut scratch);
            act(&mut y);
            let mut z = block.conv2.apply::<FUSED, WIDTH>(&y, &mut scratch);
            if let Some((fc1, fc2)) = &block.se {
                squeeze_excite::<FUSED>(&mut z, fc1, fc2, self.activation);
            }
            for (z, x) in z.iter_mut().zip(&x) {
                *z += x;
            }
            act(&mut z);
            x = z;
        }
        match &self.policy {
            Policy::Classical { conv, fc } => {
                let mut p = conv.apply::<FUSED>(&x);
                act(&mut p);
                outputs.policy.extend(fc.apply::<FUSED>(&channel_major(&p, conv.outputs)));
            }
            Policy::Convolution { conv1, conv2 } => {
                let mut p = conv1.apply::<FUSED, WIDTH>(&x, &mut scratch);
                act(&mut p);
                let planes = conv2.apply::<FUSED, WIDTH>(&p, &mut scratch);
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
        outputs.value.extend(self.value.apply::<FUSED>(&x, self.activation));
        if let (Some(head), Some(moves_left)) = (&self.moves_left, &mut outputs.moves_left) {
            moves_left.push(head.apply::<FUSED>(&x, self.activation)[0].max(0.0));
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

fn activate(activation: Activation, values: &mut [f32]) {
    match activation {
        Activation::Relu => values.iter_mut().for_each(|v| *v = v.max(0.0)),
        Activation::Mish => values.iter_mut().for_each(|v| *v *= v.exp().ln_1p().tanh()),
    }
}

/// `[channels][64]` to `[64][channels]`.
fn square_major(values: &[f32], channels: usize) -> Vec<f32> {
    let mut out = vec![0.0; channels * SQUARES];
    for (channel, plane) in values.chunks_exact(SQUARES).enumerate() {
        for (square, &v) in plane.iter().enumerate() {
            out[square * channels + channel] = v;
        }
    }
    out
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

/// lc0's squeeze-excitation: per channel, `z·sigmoid(γ) + β` from the channel means.
#[inline(always)]
fn squeeze_excite<const FUSED: bool>(z: &mut [f32], fc1: &Linear, fc2: &Linear, activation: Activation) {
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
    for row in z.chunks_exact_mut(channels) {
        for ((v, &gate), &offset) in row.iter_mut().zip(&gates).zip(offsets) {
            *v = multiply_add::<FUSED>(offset, *v, gate);
        }
    }
}

/// Buffers of the Winograd domain, kept across the convolutions of one position.
#[derive(Default)]
struct Scratch {
    /// `[4 tiles][36 tile values][inputs]`.
    tiles: Vec<f32>,
    /// `[4 tiles][36 tile values][outputs]`.
    products: Vec<f32>,
}

/// Tiles whose products share each row of weights loaded (the register block's height): all four.
const TILE_BLOCK: usize = TILES;

impl Winograd3x3 {
    fn new(conv: &Conv) -> Option<Self> {
        if conv.kernel != 3 {
            return None;
        }
        let (inputs, outputs) = (conv.in_channels, conv.out_channels);
        // G of F(4×4, 3×3), in f64 so the transformed weights are rounded once.
        const G: [[f64; 3]; 6] = [
            [1.0 / 4.0, 0.0, 0.0],
            [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
            [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
            [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
            [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
            [0.0, 0.0, 1.0],
        ];
        let mut transformed = vec![0.0; TILE_VALUES * inputs * outputs];
        for output in 0..outputs {
            for input in 0..inputs {
                let g = &conv.weights[(output * inputs + input) * 9..][..9];
                for i in 0..6 {
                    for j in 0..6 {
                        let mut sum = 0.0;
                        for k in 0..3 {
                            for l in 0..3 {
                                sum += G[i][k] * f64::from(g[k * 3 + l]) * G[j][l];
                            }
                        }
                        transformed[((i * 6 + j) * inputs + input) * outputs + output] = sum as f32;
                    }
                }
            }
        }
        Some(Self {
            inputs,
            outputs,
            transformed,
            biases: conv.biases.clone(),
        })
    }

    /// The convolution of `x` (`[64][inputs]`, padding 1) as `[64][outputs]`; `WIDTH` outputs are computed
    /// at a time in registers.
    #[inline(always)]
    fn apply<const FUSED: bool, const WIDTH: usize>(&self, x: &[f32], scratch: &mut Scratch) -> Vec<f32> {
        let (inputs, outputs) = (self.inputs, self.outputs);
        // Every value of both buffers is written before it is read, so a resize (not a clear) is enough.
        let tiles = &mut scratch.tiles;
        tiles.resize(TILES * TILE_VALUES * inputs, 0.0);
        transform_input_tiles(x, inputs, tiles);
        let products = &mut scratch.products;
        products.resize(TILES * TILE_VALUES * outputs, 0.0);
        // One product per tile value ξ: [4 tiles][inputs] · [inputs][outputs].
        for value in 0..TILE_VALUES {
            let weights = &self.transformed[value * inputs * outputs..][..inputs * outputs];
            for first_tile in (0..TILES).step_by(TILE_BLOCK) {
                let rows: [&[f32]; TILE_BLOCK] = std::array::from_fn(|t| {
                    &tiles[((first_tile + t) * TILE_VALUES + value) * inputs..][..inputs]
                });
                let mut first_output = 0;
                while first_output + WIDTH <= outputs {
                    let block = product_block::<FUSED, WIDTH>(weights, outputs, first_output, &rows);
                    store_block(products, first_tile, value, outputs, first_output, &block);
                    first_output += WIDTH;
                }
                // 80 policy planes are two blocks of 32 and one of 16.
                if first_output + 16 <= outputs {
                    let block = product_block::<FUSED, 16>(weights, outputs, first_output, &rows);
                    store_block(products, first_tile, value, outputs, first_output, &block);
                    first_output += 16;
                }
                for output in first_output..outputs {
                    for (t, row) in rows.iter().enumerate() {
                        let mut sum = 0.0;
                        for (input, &v) in row.iter().enumerate() {
                            sum = multiply_add::<FUSED>(sum, v, weights[input * outputs + output]);
                        }
                        products[((first_tile + t) * TILE_VALUES + value) * outputs + output] = sum;
                    }
                }
            }
        }
        let mut out = vec![0.0; SQUARES * outputs];
        transform_output_tiles(products, outputs, &self.biases, &mut out);
        out
    }
}

/// Writes a block of [`product_block`] into the tiles' products.
#[inline(always)]
fn store_block<const WIDTH: usize>(
    products: &mut [f32],
    first_tile: usize,
    value: usize,
    outputs: usize,
    first_output: usize,
    block: &[[f32; WIDTH]; TILE_BLOCK],
) {
    for (t, block) in block.iter().enumerate() {
        let at = ((first_tile + t) * TILE_VALUES + value) * outputs + first_output;
        products[at..at + WIDTH].copy_from_slice(block);
    }
}

/// `WIDTH` outputs (from `first_output`) of [`TILE_BLOCK`] tiles' products, accumulated in registers.
#[inline(always)]
fn product_block<const FUSED: bool, const WIDTH: usize>(
    weights: &[f32],
    outputs: usize,
    first_output: usize,
    rows: &[&[f32]; TILE_BLOCK],
) -> [[f32; WIDTH]; TILE_BLOCK] {
    let mut block = [[0.0f32; WIDTH]; TILE_BLOCK];
    let [r0, r1, r2, r3] = rows;
    let lines = weights.chunks_exact(outputs).zip(r0.iter().zip(*r1).zip(r2.iter().zip(*r3)));
    for (line, ((&v0, &v1), (&v2, &v3))) in lines {
        let Some(weights) = line.get(first_output..first_output + WIDTH) else {
            break;
        };
        for (accumulators, v) in block.iter_mut().zip([v0, v1, v2, v3]) {
            for (a, &w) in accumulators.iter_mut().zip(weights) {
                *a = multiply_add::<FUSED>(*a, v, w);
            }
        }
    }
    block
}

/// Channels a tile transform handles at once (one AVX-512 register).
const LANES: usize = 16;

/// Bᵀ·d·B of every 6×6 input tile (rows and files 4t − 1 … 4t + 4, zero off the board), along the channels.
#[inline(always)]
fn transform_input_tiles(x: &[f32], channels: usize, tiles: &mut [f32]) {
    let zeros = vec![0.0; channels];
    let at = |rank: isize, file: isize| -> &[f32] {
        if (0..8).contains(&rank) && (0..8).contains(&file) {
            &x[(rank * 8 + file) as usize * channels..][..channels]
        } else {
            &zeros
        }
    };
    for (tile, out) in tiles.chunks_exact_mut(TILE_VALUES * channels).enumerate() {
        let (tile_rank, tile_file) = ((tile / 2) as isize * 4 - 1, (tile % 2) as isize * 4 - 1);
        let d: [&[f32]; 36] = std::array::from_fn(|k| at(tile_rank + (k / 6) as isize, tile_file + (k % 6) as isize));
        let mut c = 0;
        while c + LANES <= channels {
            input_transform_lanes::<LANES>(&d, c, out, channels);
            c += LANES;
        }
        while c < channels {
            input_transform_lanes::<1>(&d, c, out, channels);
            c += 1;
        }
    }
}

/// Bᵀ·d of F(4×4, 3×3) along one line of six values (each `L` lanes).
#[inline(always)]
fn input_line<const L: usize>(d: [&[f32; L]; 6]) -> [[f32; L]; 6] {
    let mut r = [[0.0f32; L]; 6];
    for l in 0..L {
        let (d0, d1, d2, d3, d4, d5) = (d[0][l], d[1][l], d[2][l], d[3][l], d[4][l], d[5][l]);
        r[0][l] = 4.0 * d0 - 5.0 * d2 + d4;
        r[1][l] = -4.0 * d1 - 4.0 * d2 + d3 + d4;
        r[2][l] = 4.0 * d1 - 4.0 * d2 - d3 + d4;
        r[3][l] = -2.0 * d1 - d2 + 2.0 * d3 + d4;
        r[4][l] = 2.0 * d1 - d2 - 2.0 * d3 + d4;
        r[5][l] = 4.0 * d1 - 5.0 * d3 + d5;
    }
    r
}

/// The input transform of channels `c .. c + L` of one tile; `out` is the tile's `[36][channels]`.
#[inline(always)]
fn input_transform_lanes<const L: usize>(d: &[&[f32]; 36], c: usize, out: &mut [f32], channels: usize) {
    let mut e = [[0.0f32; L]; 36];
    for (e, d) in e.iter_mut().zip(d) {
        e.copy_from_slice(&d[c..c + L]);
    }
    // Bᵀ·d, column by column: t[i][j].
    let mut t = [[0.0f32; L]; 36];
    for j in 0..6 {
        let column = input_line::<L>([&e[j], &e[6 + j], &e[12 + j], &e[18 + j], &e[24 + j], &e[30 + j]]);
        for (i, value) in column.into_iter().enumerate() {
            t[i * 6 + j] = value;
        }
    }
    // (Bᵀ·d)·B, row by row.
    for i in 0..6 {
        let r = 6 * i;
        let row = input_line::<L>([&t[r], &t[r + 1], &t[r + 2], &t[r + 3], &t[r + 4], &t[r + 5]]);
        for (j, value) in row.iter().enumerate() {
            let at = (r + j) * channels + c;
            out[at..at + L].copy_from_slice(value);
        }
    }
}

/// Aᵀ·m·A of every tile's products, plus the bias, into the 4×4 squares of the tile.
#[inline(always)]
fn transform_output_tiles(products: &[f32], channels: usize, biases: &[f32], out: &mut [f32]) {
    for (tile, m) in products.chunks_exact(TILE_VALUES * channels).enumerate() {
        let (tile_rank, tile_file) = ((tile / 2) * 4, (tile % 2) * 4);
        let squares: [usize; 16] =
            std::array::from_fn(|k| ((tile_rank + k / 4) * 8 + tile_file + k % 4) * channels);
        let mut c = 0;
        while c + LANES <= channels {
            output_transform_lanes::<LANES>(m, c, channels, biases, &squares, out);
            c += LANES;
        }
        while c < channels {
            output_transform_lanes::<1>(m, c, channels, biases, &squares, out);
            c += 1;
        }
    }
}

/// Aᵀ·m of F(4×4, 3×3) along one line of six values (each `L` lanes).
#[inline(always)]
fn output_line<const L: usize>(m: [&[f32; L]; 6]) -> [[f32; L]; 4] {
    let mut y = [[0.0f32; L]; 4];
    for l in 0..L {
        let (m0, m1, m2, m3, m4, m5) = (m[0][l], m[1][l], m[2][l], m[3][l], m[4][l], m[5][l]);
        let (sum12, difference12) = (m1 + m2, m1 - m2);
        let (sum34, difference34) = (m3 + m4, m3 - m4);
        y[0][l] = m0 + sum12 + sum34;
        y[1][l] = difference12 + 2.0 * difference34;
        y[2][l] = sum12 + 4.0 * sum34;
        y[3][l] = difference12 + 8.0 * difference34 + m5;
    }
    y
}

/// The output transform of channels `c .. c + L` of one tile (`m` is its `[36][channels]`), written at the
/// tile's sixteen `squares` (offsets into `out`).
#[inline(always)]
fn output_transform_lanes<const L: usize>(
    m: &[f32],
    c: usize,
    channels: usize,
    biases: &[f32],
    squares: &[usize; 16],
    out: &mut [f32],
) {
    let mut e = [[0.0f32; L]; 36];
    for (k, e) in e.iter_mut().enumerate() {
        e.copy_from_slice(&m[k * channels + c..k * channels + c + L]);
    }
    // Aᵀ·m, column by column: t[i][j] for i < 4.
    let mut t = [[0.0f32; L]; 24];
    for j in 0..6 {
        let column = output_line::<L>([&e[j], &e[6 + j], &e[12 + j], &e[18 + j], &e[24 + j], &e[30 + j]]);
        for (i, value) in column.into_iter().enumerate() {
            t[i * 6 + j] = value;
        }
    }
    let bias: &[f32; L] = biases[c..c + L].try_into().unwrap_or(&[0.0; L]);
    // (Aᵀ·m)·A, row by row, plus the bias.
    for i in 0..4 {
        let r = 6 * i;
        let row = output_line::<L>([&t[r], &t[r + 1], &t[r + 2], &t[r + 3], &t[r + 4], &t[r + 5]]);
        for (j, mut value) in row.into_iter().enumerate() {
            for (v, b) in value.iter_mut().zip(bias) {
                *v += b;
            }
            let at = squares[i * 4 + j] + c;
            out[at..at + L].copy_from_slice(&value);
        }
    }
}

impl Pointwise {
    fn new(conv: &Conv) -> Option<Self> {
        if conv.kernel != 1 {
            return None;
        }
        let (inputs, outputs) = (conv.in_channels, conv.out_channels);
        let mut weights = vec![0.0; inputs * outputs];
        for output in 0..outputs {
            for input in 0..inputs {
                weights[input * outputs + output] = conv.weights[output * inputs + input];
            }
        }
        Some(Self {
            inputs,
            outputs,
            weights,
            biases: conv.biases.clone(),
        })
    }

    /// `[64][inputs]` to `[64][outputs]`.
    #[inline(always)]
    fn apply<const FUSED: bool>(&self, x: &[f32]) -> Vec<f32> {
        let mut out = Vec::with_capacity(SQUARES * self.outputs);
        for square in x.chunks_exact(self.inputs) {
            let start = out.len();
            out.extend_from_slice(&self.biases);
            let row_out = &mut out[start..];
            for (&v, row) in square.iter().zip(self.weights.chunks_exact(self.outputs)) {
                add_scaled::<FUSED>(row_out, v, row);
            }
        }
        out
    }
}

impl Linear {
    fn new(dense: &Dense) -> Self {
        let (inputs, outputs) = (dense.inputs, dense.outputs);
        let mut weights = vec![0.0; inputs * outputs];
        for output in 0..outputs {
            for input in 0..inputs {
                weights[input * outputs + output] = dense.weights[output * inputs + input];
            }
        }
        Self {
            inputs,
            outputs,
            weights,
            biases: dense.biases.clone(),
        }
    }

    #[inline(always)]
    fn apply<const FUSED: bool>(&self, x: &[f32]) -> Vec<f32> {
        let mut out = self.biases.clone();
        for (&v, row) in x.iter().zip(self.weights.chunks_exact(self.outputs)) {
            add_scaled::<FUSED>(&mut out, v, row);
        }
        out
    }
}

impl Head {
    #[inline(always)]
    fn apply<const FUSED: bool>(&self, x: &[f32], activation: Activation) -> Vec<f32> {
        let mut planes = self.conv.apply::<FUSED>(x);
        activate(activation, &mut planes);
        let mut hidden = self.fc1.apply::<FUSED>(&channel_major(&planes, self.conv.outputs));
        activate(activation, &mut hidden);
        self.fc2.apply::<FUSED>(&hidden)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direct 3×3 convolution over `[channels][64]` planes, by the definition (cross-correlation, padding 1).
    fn direct(conv: &Conv, x: &[f32]) -> Vec<f64> {
        let mut out = vec![0.0; conv.out_channels * 64];
        for o in 0..conv.out_channels {
            for square in 0..64i32 {
                let (rank, file) = (square / 8, square % 8);
                let mut sum = f64::from(conv.biases[o]);
                for i in 0..conv.in_channels {
                    for kr in 0..3 {
                        for kf in 0..3 {
                            let (r, f) = (rank + kr - 1, file + kf - 1);
                            if (0..8).contains(&r) && (0..8).contains(&f) {
                                let w = conv.weights[((o * conv.in_channels + i) * 3 + kr as usize) * 3 + kf as usize];
                                sum += f64::from(w) * f64::from(x[i * 64 + (r * 8 + f) as usize]);
                            }
                        }
                    }
                }
                out[o * 64 + square as usize] = sum;
            }
        }
        out
    }

    /// Deterministic values in [−1, 1).
    fn values(n: usize, seed: u32) -> Vec<f32> {
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

    #[test]
    fn winograd_equals_the_direct_convolution_on_every_square_and_channel() {
        let conv = Conv {
            out_channels: 5,
            in_channels: 7,
            kernel: 3,
            weights: values(5 * 7 * 9, 1),
            biases: values(5, 2),
        };
        let x = values(7 * 64, 3);
        let expected = direct(&conv, &x);
        let winograd = Winograd3x3::new(&conv).expect("a 3×3 convolution");
        for fused in [false, true] {
            let mut scratch = Scratch::default();
            let out = if fused {
                winograd.apply::<true, 4>(&square_major(&x, 7), &mut scratch)
            } else {
                winograd.apply::<false, 2>(&square_major(&x, 7), &mut scratch)
            };
            let out = channel_major(&out, 5);
            // F(4×4, 3×3)'s transforms multiply by up to 8 and divide by 24, so f32 rounding reaches about 2e-5
            // on these unit-scale weights and inputs (a direct f32 convolution: about 1e-6).
            for (index, (&got, &want)) in out.iter().zip(&expected).enumerate() {
                assert!((f64::from(got) - want).abs() < 5e-5, "fused {fused}, value {index}: {got} against {want}");
            }
        }
    }

    #[test]
    fn a_pointwise_convolution_and_a_linear_layer_follow_their_definitions() {
        let conv = Conv {
            out_channels: 3,
            in_channels: 4,
            kernel: 1,
            weights: values(12, 4),
            biases: values(3, 5),
        };
        let x = values(4 * 64, 6);
        let out = channel_major(&Pointwise::new(&conv).expect("1×1").apply::<false>(&square_major(&x, 4)), 3);
        for o in 0..3 {
            for square in 0..64 {
                let want: f32 = conv.biases[o] + (0..4).map(|i| conv.weights[o * 4 + i] * x[i * 64 + square]).sum::<f32>();
                assert!((out[o * 64 + square] - want).abs() < 1e-6);
            }
        }
        let dense = Dense {
            outputs: 2,
            inputs: 3,
            weights: vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.25],
            biases: vec![0.5, -0.5],
        };
        // Hand-worked: [0.5 + 1 + 4 + 9, −0.5 − 1 + 1 + 0.75].
        assert_eq!(Linear::new(&dense).apply::<false>(&[1.0, 2.0, 3.0]), vec![14.5, 0.25]);
    }
}
