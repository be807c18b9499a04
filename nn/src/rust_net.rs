//! The network in plain Rust, f32, for convolutional networks on the CPU (#12 item 4). libtorch spends most of
//! a small batch in per-operator overhead (1.5–1.9 ms for a batch of one of Maia-1900, where lc0's blas backend
//! takes 0.68 ms), so the torch backend sends CPU batches up to its Rust batch limit here instead
//! ([`crate::torch_backend::default_rust_batch_limit`]).
//!
//! Activations are held square-major (`[64 squares][channels]`), so every loop runs along channels and
//! vectorises without reordering a sum. Each 3×3 convolution is Winograd F(2×2, 3×3) (Lavin and Gray, 2016):
//! the 8×8 board is 16 tiles of 2×2 outputs read from 4×4 inputs, and the multiplications become 16 small
//! matrix products, 2.25 times fewer than a direct convolution. lc0's blas backend uses F(4×4, 3×3), 4 times
//! fewer, which was no faster here and rounds worse (2.2e-5 against under 1e-5 on this module's test
//! convolution): lc0's verbose statistics at one node then differed from Kairos's in 45 last printed digits,
//! where `tests/tests/lc0_uci_output.rs` allows 10.

use crate::encoder::{InputPlanes, PLANES};
use crate::network::{Activation, Conv, Dense, Network, PolicyHead, ValueKind};
use crate::policy_map::{conv_policy_map, POLICY_SIZE};
use crate::torch_net::RawOutputs;

/// Positions computed together: each layer's weights are read once for all of them, and eight positions'
/// Winograd tiles still fit the caches (Maia-1900 on the Xeon of BENCHMARKS.md: 2405 evaluations/s at batch 32
/// eight at a time, 2112 twelve at a time).
pub const POSITIONS_AT_ONCE: usize = 8;
/// Squares of the board.
const SQUARES: usize = 64;
/// 2×2 output tiles of the board.
const TILES: usize = 16;
/// Values of a 4×4 Winograd tile.
const TILE_VALUES: usize = 16;

/// A convolutional network in the layouts of this module.
pub struct RustNetwork {
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

/// Caps the instructions the network in plain Rust uses, as oneDNN's `ONEDNN_MAX_CPU_ISA` caps oneDNN's:
/// `AVX2` or `PORTABLE` (for measuring a CPU without AVX-512 on one that has it).
pub const MAX_ISA_VARIABLE: &str = "KAIROS_MAX_CPU_ISA";

impl Isa {
    fn detect() -> Self {
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

/// A 3×3 convolution with its weights transformed to the Winograd domain.
struct Winograd3x3 {
    inputs: usize,
    outputs: usize,
    /// `[16 tile values][inputs][outputs]`: G·g·Gᵀ of each filter.
    transformed: Vec<f32>,
    biases: Vec<f32>,
}

/// A fully connected layer with its weights transposed, so that a product runs along the outputs; a 1×1
/// convolution is one applied to every square ([`Linear::apply_to_squares`]).
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
    /// The network in this path's layouts, or `None` for a network it does not cover (an attention policy).
    pub fn new(network: &Network) -> Option<Self> {
        let policy = match &network.policy {
            PolicyHead::Classical { conv, fc } => Policy::Classical {
                conv: Linear::pointwise(conv)?,
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
                conv: Linear::pointwise(conv)?,
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

    /// Runs encoded positions, up to [`POSITIONS_AT_ONCE`] together, each layer's weights read once for all
    /// of them. The outputs are laid out as the libtorch network's.
    pub fn forward(&self, positions: &[InputPlanes]) -> RawOutputs {
        let batch = positions.len();
        let mut outputs = RawOutputs {
            policy: Vec::with_capacity(batch * POLICY_SIZE),
            value: Vec::with_capacity(batch * self.value_outputs),
            moves_left: self.moves_left.as_ref().map(|_| Vec::with_capacity(batch)),
        };
        for positions in positions.chunks(POSITIONS_AT_ONCE) {
            self.forward_batch(positions, &mut outputs);
        }
        outputs
    }

    fn forward_batch(&self, positions: &[InputPlanes], outputs: &mut RawOutputs) {
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::detect` found AVX-512F and FMA on this CPU.
            Isa::Avx512 => unsafe { self.forward_avx512(positions, outputs) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::detect` found AVX2 and FMA on this CPU.
            Isa::Avx2 => unsafe { self.forward_avx2(positions, outputs) },
            _ => self.forward_with::<false, 8>(positions, outputs),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn forward_avx512(&self, positions: &[InputPlanes], outputs: &mut RawOutputs) {
        self.forward_with::<true, 64>(positions, outputs);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(&self, positions: &[InputPlanes], outputs: &mut RawOutputs) {
        self.forward_with::<true, 16>(positions, outputs);
    }

    /// The forward pass of a batch; `FUSED` multiplies and adds in one rounding (FMA), as the CPUs that
    /// have it do fastest, and `WIDTH` is the number of outputs a convolution accumulates in registers at once
    /// (four AVX-512 or two AVX2 registers' worth).
    #[inline(always)]
    fn forward_with<const FUSED: bool, const WIDTH: usize>(&self, positions: &[InputPlanes], outputs: &mut RawOutputs) {
        let activation = self.activation;
        let filters = self.input.outputs;
        let mut x = square_major_input(positions);
        let mut scratch = Scratch::default();
        let mut y = self.input.apply::<FUSED, WIDTH>(&x, &mut scratch);
        activate(activation, &mut y);
        x = y;
        for block in &self.tower {
            let mut y = block.conv1.apply::<FUSED, WIDTH>(&x, &mut scratch);
            activate(activation, &mut y);
            let mut z = block.conv2.apply::<FUSED, WIDTH>(&y, &mut scratch);
            if let Some((fc1, fc2)) = &block.se {
                for position in z.chunks_exact_mut(SQUARES * filters) {
                    squeeze_excite::<FUSED>(position, fc1, fc2, activation);
                }
            }
            for (z, x) in z.iter_mut().zip(&x) {
                *z += x;
            }
            activate(activation, &mut z);
            x = z;
        }
        match &self.policy {
            Policy::Classical { conv, fc } => {
                let mut p = conv.apply_to_squares::<FUSED>(&x);
                activate(activation, &mut p);
                for position in p.chunks_exact(SQUARES * conv.outputs) {
                    outputs.policy.extend(fc.apply::<FUSED>(&channel_major(position, conv.outputs)));
                }
            }
            Policy::Convolution { conv1, conv2 } => {
                let mut p = conv1.apply::<FUSED, WIDTH>(&x, &mut scratch);
                activate(activation, &mut p);
                let planes = conv2.apply::<FUSED, WIDTH>(&p, &mut scratch);
                for planes in planes.chunks_exact(SQUARES * conv2.outputs) {
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
        for position in x.chunks_exact(SQUARES * filters) {
            outputs.value.extend(self.value.apply::<FUSED>(position, activation));
            if let (Some(head), Some(moves_left)) = (&self.moves_left, &mut outputs.moves_left) {
                moves_left.push(head.apply::<FUSED>(position, activation)[0].max(0.0));
            }
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

/// The positions' input planes as `[positions][64 squares][112 planes]`, straight from their bit masks.
fn square_major_input(positions: &[InputPlanes]) -> Vec<f32> {
    let mut x = vec![0.0; positions.len() * SQUARES * PLANES];
    for (planes, x) in positions.iter().zip(x.chunks_exact_mut(SQUARES * PLANES)) {
        for (square, row) in x.chunks_exact_mut(PLANES).enumerate() {
            for (value, plane) in row.iter_mut().zip(planes) {
                *value = if plane.mask >> square & 1 == 1 { plane.value } else { 0.0 };
            }
        }
    }
    x
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
    /// `[16 tiles][16 tile values][inputs]`.
    tiles: Vec<f32>,
    /// `[16 tiles][16 tile values][outputs]`.
    products: Vec<f32>,
}

/// Tiles whose products share each row of weights loaded (the register block's height).
const TILE_BLOCK: usize = 4;

impl Winograd3x3 {
    fn new(conv: &Conv) -> Option<Self> {
        if conv.kernel != 3 {
            return None;
        }
        let (inputs, outputs) = (conv.in_channels, conv.out_channels);
        // G of F(2×2, 3×3), in f64 so the transformed weights are rounded once.
        const G: [[f64; 3]; 4] = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]];
        let mut transformed = vec![0.0; TILE_VALUES * inputs * outputs];
        for output in 0..outputs {
            for input in 0..inputs {
                let g = &conv.weights[(output * inputs + input) * 9..][..9];
                for i in 0..4 {
                    for j in 0..4 {
                        let mut sum = 0.0;
                        for k in 0..3 {
                            for l in 0..3 {
                                sum += G[i][k] * f64::from(g[k * 3 + l]) * G[j][l];
                            }
                        }
                        transformed[((i * 4 + j) * inputs + input) * outputs + output] = sum as f32;
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

    /// The convolution of each position of `x` (`[positions][64][inputs]`, padding 1) as
    /// `[positions][64][outputs]`; `WIDTH` outputs are computed at a time in registers.
    #[inline(always)]
    fn apply<const FUSED: bool, const WIDTH: usize>(&self, x: &[f32], scratch: &mut Scratch) -> Vec<f32> {
        let (inputs, outputs) = (self.inputs, self.outputs);
        let positions = x.len() / (SQUARES * inputs);
        let tile_count = positions * TILES;
        // Every value of both buffers is written before it is read, so a resize (not a clear) is enough.
        let tiles = &mut scratch.tiles;
        tiles.resize(tile_count * TILE_VALUES * inputs, 0.0);
        for (x, tiles) in x.chunks_exact(SQUARES * inputs).zip(tiles.chunks_exact_mut(TILES * TILE_VALUES * inputs)) {
            transform_input_tiles(x, inputs, tiles);
        }
        let products = &mut scratch.products;
        products.resize(tile_count * TILE_VALUES * outputs, 0.0);
        // One product per tile value ξ: [16 tiles per position][inputs] · [inputs][outputs], four tiles at a
        // time while this ξ's weights are in the cache.
        for value in 0..TILE_VALUES {
            let weights = &self.transformed[value * inputs * outputs..][..inputs * outputs];
            for first_tile in (0..tile_count).step_by(TILE_BLOCK) {
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
        let mut out = vec![0.0; positions * SQUARES * outputs];
        for (products, out) in products.chunks_exact(TILES * TILE_VALUES * outputs).zip(out.chunks_exact_mut(SQUARES * outputs)) {
            transform_output_tiles(products, outputs, &self.biases, out);
        }
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

/// Bᵀ·d·B of every 4×4 input tile (rows and files 2t − 1 … 2t + 2, zero off the board), along the channels.
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
        let (tile_rank, tile_file) = ((tile / 4) as isize * 2 - 1, (tile % 4) as isize * 2 - 1);
        let d: [&[f32]; 16] = std::array::from_fn(|k| at(tile_rank + (k / 4) as isize, tile_file + (k % 4) as isize));
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

/// Bᵀ·d of F(2×2, 3×3) along one line of four values (each `L` lanes).
#[inline(always)]
fn input_line<const L: usize>(d: [&[f32; L]; 4]) -> [[f32; L]; 4] {
    let mut r = [[0.0f32; L]; 4];
    for l in 0..L {
        let (d0, d1, d2, d3) = (d[0][l], d[1][l], d[2][l], d[3][l]);
        r[0][l] = d0 - d2;
        r[1][l] = d1 + d2;
        r[2][l] = d2 - d1;
        r[3][l] = d1 - d3;
    }
    r
}

/// The input transform of channels `c .. c + L` of one tile; `out` is the tile's `[16][channels]`.
#[inline(always)]
fn input_transform_lanes<const L: usize>(d: &[&[f32]; 16], c: usize, out: &mut [f32], channels: usize) {
    let mut e = [[0.0f32; L]; 16];
    for (e, d) in e.iter_mut().zip(d) {
        e.copy_from_slice(&d[c..c + L]);
    }
    // Bᵀ·d, column by column: t[i][j].
    let mut t = [[0.0f32; L]; 16];
    for j in 0..4 {
        let column = input_line::<L>([&e[j], &e[4 + j], &e[8 + j], &e[12 + j]]);
        for (i, value) in column.into_iter().enumerate() {
            t[i * 4 + j] = value;
        }
    }
    // (Bᵀ·d)·B, row by row.
    for i in 0..4 {
        let r = 4 * i;
        let row = input_line::<L>([&t[r], &t[r + 1], &t[r + 2], &t[r + 3]]);
        for (j, value) in row.iter().enumerate() {
            let at = (r + j) * channels + c;
            out[at..at + L].copy_from_slice(value);
        }
    }
}

/// Aᵀ·m·A of every tile's products, plus the bias, into the 2×2 squares of the tile.
#[inline(always)]
fn transform_output_tiles(products: &[f32], channels: usize, biases: &[f32], out: &mut [f32]) {
    for (tile, m) in products.chunks_exact(TILE_VALUES * channels).enumerate() {
        let (tile_rank, tile_file) = ((tile / 4) * 2, (tile % 4) * 2);
        let squares: [usize; 4] =
            std::array::from_fn(|k| ((tile_rank + k / 2) * 8 + tile_file + k % 2) * channels);
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

/// Aᵀ·m of F(2×2, 3×3) along one line of four values (each `L` lanes).
#[inline(always)]
fn output_line<const L: usize>(m: [&[f32; L]; 4]) -> [[f32; L]; 2] {
    let mut y = [[0.0f32; L]; 2];
    for l in 0..L {
        let (m0, m1, m2, m3) = (m[0][l], m[1][l], m[2][l], m[3][l]);
        y[0][l] = m0 + m1 + m2;
        y[1][l] = m1 - m2 - m3;
    }
    y
}

/// The output transform of channels `c .. c + L` of one tile (`m` is its `[16][channels]`), written at the
/// tile's four `squares` (offsets into `out`).
#[inline(always)]
fn output_transform_lanes<const L: usize>(
    m: &[f32],
    c: usize,
    channels: usize,
    biases: &[f32],
    squares: &[usize; 4],
    out: &mut [f32],
) {
    let mut e = [[0.0f32; L]; 16];
    for (k, e) in e.iter_mut().enumerate() {
        e.copy_from_slice(&m[k * channels + c..k * channels + c + L]);
    }
    // Aᵀ·m, column by column: t[i][j] for i < 2.
    let mut t = [[0.0f32; L]; 8];
    for j in 0..4 {
        let column = output_line::<L>([&e[j], &e[4 + j], &e[8 + j], &e[12 + j]]);
        for (i, value) in column.into_iter().enumerate() {
            t[i * 4 + j] = value;
        }
    }
    let bias: &[f32; L] = biases[c..c + L].try_into().unwrap_or(&[0.0; L]);
    // (Aᵀ·m)·A, row by row, plus the bias.
    for i in 0..2 {
        let r = 4 * i;
        let row = output_line::<L>([&t[r], &t[r + 1], &t[r + 2], &t[r + 3]]);
        for (j, mut value) in row.into_iter().enumerate() {
            for (v, b) in value.iter_mut().zip(bias) {
                *v += b;
            }
            let at = squares[i * 2 + j] + c;
            out[at..at + L].copy_from_slice(&value);
        }
    }
}

impl Linear {
    fn new(dense: &Dense) -> Self {
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
        Self {
            inputs,
            outputs,
            weights: transposed,
            biases: biases.to_vec(),
        }
    }

    #[inline(always)]
    fn apply<const FUSED: bool>(&self, x: &[f32]) -> Vec<f32> {
        let mut out = self.biases.clone();
        self.accumulate::<FUSED>(x, &mut out);
        out
    }

    /// `[squares][inputs]` to `[squares][outputs]`.
    #[inline(always)]
    fn apply_to_squares<const FUSED: bool>(&self, x: &[f32]) -> Vec<f32> {
        let mut out = Vec::with_capacity(x.len() / self.inputs * self.outputs);
        for square in x.chunks_exact(self.inputs) {
            let start = out.len();
            out.extend_from_slice(&self.biases);
            self.accumulate::<FUSED>(square, &mut out[start..]);
        }
        out
    }

    /// `out += W·x`.
    #[inline(always)]
    fn accumulate<const FUSED: bool>(&self, x: &[f32], out: &mut [f32]) {
        for (&v, row) in x.iter().zip(self.weights.chunks_exact(self.outputs)) {
            add_scaled::<FUSED>(out, v, row);
        }
    }
}

impl Head {
    #[inline(always)]
    fn apply<const FUSED: bool>(&self, x: &[f32], activation: Activation) -> Vec<f32> {
        let mut planes = self.conv.apply_to_squares::<FUSED>(x);
        activate(activation, &mut planes);
        let mut hidden = self.fc1.apply::<FUSED>(&channel_major(&planes, self.conv.outputs));
        activate(activation, &mut hidden);
        self.fc2.apply::<FUSED>(&hidden)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            for (index, (&got, &want)) in out.iter().zip(&expected).enumerate() {
                assert!((f64::from(got) - want).abs() < 1e-5, "fused {fused}, value {index}: {got} against {want}");
            }
        }
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
            input: conv(112, 32, 3, 10),
            tower: vec![crate::network::ResidualBlock {
                conv1: conv(32, 32, 3, 20),
                conv2: conv(32, 32, 3, 30),
                se: Some(crate::network::SqueezeExcitation { fc1: dense(32, 8, 40), fc2: dense(8, 64, 50) }),
            }],
            policy: PolicyHead::Convolution { conv1: conv(32, 32, 3, 60), conv2: conv(32, 80, 3, 70) },
            value: crate::network::ValueHead {
                kind: ValueKind::Wdl,
                conv: conv(32, 32, 1, 80),
                fc1: dense(2048, 128, 90),
                fc2: dense(128, 3, 100),
            },
            moves_left: None,
        }
    }

    #[test]
    fn avx512_and_avx2_give_the_same_bits_and_the_portable_loops_agree_within_rounding() {
        let mut network = RustNetwork::new(&random_network()).expect("a convolutional network");
        // Ones on the squares where a random value is positive, three positions of 112 planes.
        let random = values(3 * PLANES * SQUARES, 7);
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
            outputs.push((network.isa, network.forward(&positions)));
        }
        let (best, reference) = &outputs[0];
        for (isa, raw) in &outputs[1..] {
            for (a, b) in raw.policy.iter().chain(&raw.value).zip(reference.policy.iter().chain(&reference.value)) {
                if *isa == Isa::Portable || *best == Isa::Portable {
                    assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "{isa:?} against {best:?}: {a} vs {b}");
                } else {
                    assert_eq!(a.to_bits(), b.to_bits(), "{isa:?} against {best:?}: {a} vs {b}");
                }
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
        let out = channel_major(&Linear::pointwise(&conv).expect("1×1").apply_to_squares::<false>(&square_major(&x, 4)), 3);
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
