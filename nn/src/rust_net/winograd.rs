//! 3×3 convolutions by Winograd's minimal filtering (Lavin and Gray, 2016), square-major along the channels.
//!
//! Two tile sizes, both at lc0's interpolation points:
//! - **F(4×4, 3×3)**: the board is 4 tiles of 4×4 outputs read from 6×6 inputs, and the multiplications become
//!   36 small matrix products, 4 times fewer than a direct convolution. lc0's blas backend uses it.
//! - **F(2×2, 3×3)**: 16 tiles of 2×2 outputs from 4×4 inputs, 16 products, 2.25 times fewer.
//!
//! The products are three quarters of a forward pass, so F(4×4) is 22–37 % faster from batch 4 up
//! (BENCHMARKS.md). Below 4 positions it is slower: a loaded row of its weights serves fewer tiles than one
//! position gives F(2×2) (4 a position against 16), and its weights are 2.25 times larger, so those batches take
//! F(2×2) ([`LARGE_TILES_FROM`]). F(4×4) rounds worse (coefficients up to 8), within the tolerances against lc0
//! that the tests hold.

use super::bf16_products;
use super::{activated, multiply_add, SQUARES};
use crate::network::{Activation, Conv};

/// Positions from which a batch takes F(4×4) (the caller's choice, [`Winograd3x3::apply`]): four positions
/// give each of its weight rows 16 tiles, as one position gives F(2×2)'s. The best crossover moves with the
/// filters, the precision and the cache (2 to 7 positions on an AMX Xeon), but no search there moved with it
/// (BENCHMARKS.md, "A faster AMX host, and the Winograd tile size by batch").
pub const LARGE_TILES_FROM: usize = 4;

/// A 3×3 convolution with its weights transformed to the Winograd domain of both tile sizes.
pub struct Winograd3x3 {
    /// Input channels.
    pub inputs: usize,
    /// Output channels (filters).
    pub outputs: usize,
    /// F(2×2)'s G·g·Gᵀ of each filter, 16 tile values.
    small: TileWeights,
    /// F(4×4)'s, 36 tile values.
    large: TileWeights,
    biases: Vec<f32>,
}

/// One tile size's transformed weights, in f32 or in [`bf16_products`]' pairs.
enum TileWeights {
    /// `[tile values][inputs][outputs]`.
    F32(Vec<f32>),
    /// `[tile values][inputs / 2][outputs]`, a pair of inputs' weights to each `u32`.
    Bf16Pairs(Vec<u32>),
}

/// Buffers of the Winograd domain, kept across the convolutions of a batch.
#[derive(Default)]
pub struct Scratch {
    /// `[tiles][tile values][inputs]`.
    tiles: Vec<f32>,
    /// `[tiles][tile values][outputs]`.
    products: Vec<f32>,
    /// `tiles` rounded to bf16 in pairs, for [`bf16_products`].
    tile_pairs: Vec<u32>,
}

impl Winograd3x3 {
    /// The convolution's weights in both Winograd domains, in bf16 pairs when `bf16` and this CPU and its
    /// channels fit them ([`bf16_products::fits`]; half of f32's memory), or `None` for a kernel other than 3×3.
    pub fn new(conv: &Conv, bf16: bool) -> Option<Self> {
        if conv.kernel != 3 {
            return None;
        }
        let (inputs, outputs) = (conv.in_channels, conv.out_channels);
        let pairs = bf16 && bf16_products::fits(inputs, outputs);
        let held = |weights: Vec<f32>| {
            if pairs {
                TileWeights::Bf16Pairs(bf16_products::weight_pairs(&weights, inputs, outputs))
            } else {
                TileWeights::F32(weights)
            }
        };
        Some(Self {
            inputs,
            outputs,
            small: held(f2x2::transform_weights(conv)),
            large: held(f4x4::transform_weights(conv)),
            biases: conv.biases.clone(),
        })
    }

    /// The convolution of each position of `x` (`[positions][64][inputs]`, padding 1), then `activation` if any,
    /// into `out` as `[positions][64][outputs]` (resized, not cleared: every value is written), with F(4×4)
    /// tiles when `LARGE` (for [`LARGE_TILES_FROM`] positions or more) and F(2×2) tiles otherwise; `WIDTH`
    /// outputs are computed at a time in registers. Weights built in bf16 pairs take [`bf16_products`]' instead.
    #[inline(always)]
    pub fn apply<const FUSED: bool, const WIDTH: usize, const LARGE: bool>(
        &self,
        x: &[f32],
        scratch: &mut Scratch,
        activation: Option<Activation>,
        out: &mut Vec<f32>,
    ) {
        if LARGE {
            f4x4::apply::<FUSED, WIDTH>(self, &self.large, x, scratch, activation, out);
        } else {
            f2x2::apply::<FUSED, WIDTH>(self, &self.small, x, scratch, activation, out);
        }
    }
}

/// Tiles whose products share each row of weights loaded (the register block's height).
const TILE_BLOCK: usize = 4;

/// Channels a tile transform handles at once (one AVX-512 register).
const LANES: usize = 16;

/// The Winograd products of every tile: for each tile value ξ, `[tiles][inputs] · [inputs][outputs]`,
/// [`TILE_BLOCK`] tiles at a time while ξ's weights are in the cache. `tile_values` is the tile size's count
/// of ξ; a position's tiles are a multiple of the block for both sizes.
#[inline(always)]
fn multiply_tiles<const FUSED: bool, const WIDTH: usize>(
    weights: &[f32],
    (inputs, outputs): (usize, usize),
    tile_values: usize,
    tiles: &[f32],
    products: &mut [f32],
) {
    let tile_count = tiles.len() / (tile_values * inputs);
    for value in 0..tile_values {
        let weights = &weights[value * inputs * outputs..][..inputs * outputs];
        let at = |tile: usize, channels: usize| (tile * tile_values + value) * channels;
        for first_tile in (0..tile_count).step_by(TILE_BLOCK) {
            let rows: [&[f32]; TILE_BLOCK] = std::array::from_fn(|t| &tiles[at(first_tile + t, inputs)..][..inputs]);
            let starts: [usize; TILE_BLOCK] = std::array::from_fn(|t| at(first_tile + t, outputs));
            let mut first_output = 0;
            while first_output + WIDTH <= outputs {
                let block = product_block::<FUSED, WIDTH>(weights, outputs, first_output, &rows);
                store_block(products, &starts, first_output, &block);
                first_output += WIDTH;
            }
            // 80 policy planes are two blocks of 32 and one of 16.
            if first_output + 16 <= outputs {
                let block = product_block::<FUSED, 16>(weights, outputs, first_output, &rows);
                store_block(products, &starts, first_output, &block);
                first_output += 16;
            }
            for output in first_output..outputs {
                for (row, start) in rows.iter().zip(starts) {
                    let mut sum = 0.0;
                    for (input, &v) in row.iter().enumerate() {
                        sum = multiply_add::<FUSED>(sum, v, weights[input * outputs + output]);
                    }
                    products[start + output] = sum;
                }
            }
        }
    }
}

/// Writes a block of [`product_block`] into the products of its tiles, which start at `starts`.
#[inline(always)]
fn store_block<const WIDTH: usize>(
    products: &mut [f32],
    starts: &[usize; TILE_BLOCK],
    first_output: usize,
    block: &[[f32; WIDTH]; TILE_BLOCK],
) {
    for (block, start) in block.iter().zip(starts) {
        let at = start + first_output;
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

/// One tile size's transforms: `$side`×`$side` output tiles, the 3-row `$g` of its weight transform (in f64 so
/// the transformed weights are rounded once), and `input_line` (Bᵀ·d) and `output_line` (Aᵀ·m) along one
/// line of a tile. Everything else is the same for both sizes.
macro_rules! tile_size {
    ($name:ident, $side:literal, $g:expr, $input_line:item, $output_line:item) => {
        mod $name {
            use super::*;

            /// Squares along a side of an output tile.
            const TILE_SIDE: usize = $side;
            /// Squares along a side of the input tile it is computed from.
            const INPUT_SIDE: usize = TILE_SIDE + 2;
            /// Output tiles along a side of the board.
            const TILES_PER_SIDE: usize = 8 / TILE_SIDE;
            /// Output tiles of the board.
            const TILES: usize = TILES_PER_SIDE * TILES_PER_SIDE;
            /// Values of a Winograd tile.
            const TILE_VALUES: usize = INPUT_SIDE * INPUT_SIDE;
            const G: [[f64; 3]; INPUT_SIDE] = $g;
            const _: () = assert!(TILES % TILE_BLOCK == 0, "a position's tiles fill whole blocks");

            /// G·g·Gᵀ of each filter, `[tile values][inputs][outputs]`.
            pub fn transform_weights(conv: &Conv) -> Vec<f32> {
                let (inputs, outputs) = (conv.in_channels, conv.out_channels);
                let mut transformed = vec![0.0; TILE_VALUES * inputs * outputs];
                for output in 0..outputs {
                    for input in 0..inputs {
                        let g = &conv.weights[(output * inputs + input) * 9..][..9];
                        for i in 0..INPUT_SIDE {
                            for j in 0..INPUT_SIDE {
                                let mut sum = 0.0;
                                for k in 0..3 {
                                    for l in 0..3 {
                                        sum += G[i][k] * f64::from(g[k * 3 + l]) * G[j][l];
                                    }
                                }
                                transformed[((i * INPUT_SIDE + j) * inputs + input) * outputs + output] = sum as f32;
                            }
                        }
                    }
                }
                transformed
            }

            /// [`Winograd3x3::apply`] with this tile size's weights.
            #[inline(always)]
            pub fn apply<const FUSED: bool, const WIDTH: usize>(
                conv: &Winograd3x3,
                weights: &TileWeights,
                x: &[f32],
                scratch: &mut Scratch,
                activation: Option<Activation>,
                out: &mut Vec<f32>,
            ) {
                let (inputs, outputs) = (conv.inputs, conv.outputs);
                let positions = x.len() / (SQUARES * inputs);
                let Scratch { tiles, products, tile_pairs } = scratch;
                // Every value of both buffers is written before it is read, so a resize (not a clear) is enough.
                tiles.resize(positions * TILES * TILE_VALUES * inputs, 0.0);
                let per_position = TILES * TILE_VALUES;
                for (x, tiles) in x.chunks_exact(SQUARES * inputs).zip(tiles.chunks_exact_mut(per_position * inputs)) {
                    transform_input_tiles(x, inputs, tiles);
                }
                products.resize(positions * per_position * outputs, 0.0);
                match weights {
                    TileWeights::F32(weights) => {
                        multiply_tiles::<FUSED, WIDTH>(weights, (inputs, outputs), TILE_VALUES, tiles, products);
                    }
                    // SAFETY: pairs are built only on a CPU with the instructions and for channels that fit
                    // them ([`bf16_products::fits`]); a position's tiles are whole blocks.
                    TileWeights::Bf16Pairs(pairs) => unsafe {
                        bf16_products::multiply(pairs, (inputs, outputs), TILE_VALUES, tiles, tile_pairs, products);
                    },
                }
                out.resize(positions * SQUARES * outputs, 0.0);
                let positions_out = out.chunks_exact_mut(SQUARES * outputs);
                for (products, out) in products.chunks_exact(per_position * outputs).zip(positions_out) {
                    transform_output_tiles(products, outputs, &conv.biases, activation, out);
                }
            }

            /// Bᵀ·d·B of every input tile (rows and files from one before the output tile to one after it, zero
            /// off the board), along the channels.
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
                // The lanes' working arrays, zeroed once here: declared inside the loop, each was zeroed by a call of
                // `memset` for every tile and 16 channels (5 % of a batch of 16).
                let mut lanes = ([[0.0f32; LANES]; TILE_VALUES], [[0.0f32; LANES]; TILE_VALUES]);
                let mut lane = ([[0.0f32; 1]; TILE_VALUES], [[0.0f32; 1]; TILE_VALUES]);
                for (tile, out) in tiles.chunks_exact_mut(TILE_VALUES * channels).enumerate() {
                    let rank = (tile / TILES_PER_SIDE * TILE_SIDE) as isize - 1;
                    let file = (tile % TILES_PER_SIDE * TILE_SIDE) as isize - 1;
                    let d: [&[f32]; TILE_VALUES] = std::array::from_fn(|k| {
                        at(rank + (k / INPUT_SIDE) as isize, file + (k % INPUT_SIDE) as isize)
                    });
                    let mut c = 0;
                    while c + LANES <= channels {
                        input_transform_lanes::<LANES>(&d, c, out, channels, &mut lanes);
                        c += LANES;
                    }
                    while c < channels {
                        input_transform_lanes::<1>(&d, c, out, channels, &mut lane);
                        c += 1;
                    }
                }
            }

            $input_line

            /// The input transform of channels `c .. c + L` of one tile; `out` is the tile's
            /// `[tile values][channels]`, `(e, t)` working arrays whose values are all overwritten.
            #[inline(always)]
            fn input_transform_lanes<const L: usize>(
                d: &[&[f32]; TILE_VALUES],
                c: usize,
                out: &mut [f32],
                channels: usize,
                (e, t): &mut ([[f32; L]; TILE_VALUES], [[f32; L]; TILE_VALUES]),
            ) {
                for (e, d) in e.iter_mut().zip(d) {
                    e.copy_from_slice(&d[c..c + L]);
                }
                // Bᵀ·d, column by column: t[i][j].
                for j in 0..INPUT_SIDE {
                    let column = input_line::<L>(e, j, INPUT_SIDE);
                    for (i, value) in column.into_iter().enumerate() {
                        t[i * INPUT_SIDE + j] = value;
                    }
                }
                // (Bᵀ·d)·B, row by row.
                for i in 0..INPUT_SIDE {
                    let r = INPUT_SIDE * i;
                    let row = input_line::<L>(t, r, 1);
                    for (j, value) in row.iter().enumerate() {
                        let at = (r + j) * channels + c;
                        out[at..at + L].copy_from_slice(value);
                    }
                }
            }

            /// Aᵀ·m·A of every tile's products, plus the bias, then the activation if any, into the squares of the
            /// tile.
            #[inline(always)]
            fn transform_output_tiles(
                products: &[f32],
                channels: usize,
                biases: &[f32],
                activation: Option<Activation>,
                out: &mut [f32],
            ) {
                // Zeroed once here, as the input transform's.
                let mut lanes = ([[0.0f32; LANES]; TILE_VALUES], [[0.0f32; LANES]; TILE_SIDE * INPUT_SIDE]);
                let mut lane = ([[0.0f32; 1]; TILE_VALUES], [[0.0f32; 1]; TILE_SIDE * INPUT_SIDE]);
                for (tile, m) in products.chunks_exact(TILE_VALUES * channels).enumerate() {
                    let (rank, file) = (tile / TILES_PER_SIDE * TILE_SIDE, tile % TILES_PER_SIDE * TILE_SIDE);
                    let squares: [usize; TILE_SIDE * TILE_SIDE] =
                        std::array::from_fn(|k| ((rank + k / TILE_SIDE) * 8 + file + k % TILE_SIDE) * channels);
                    let mut c = 0;
                    while c + LANES <= channels {
                        let at = (c, channels, biases, activation);
                        output_transform_lanes::<LANES>(m, at, &squares, out, &mut lanes);
                        c += LANES;
                    }
                    while c < channels {
                        output_transform_lanes::<1>(m, (c, channels, biases, activation), &squares, out, &mut lane);
                        c += 1;
                    }
                }
            }

            $output_line

            /// The output transform of channels `c .. c + L` of one tile (`m` is its `[tile values][channels]`),
            /// written at the tile's `squares` (offsets into `out`); `(e, t)` are working arrays whose values are
            /// all overwritten.
            #[inline(always)]
            fn output_transform_lanes<const L: usize>(
                m: &[f32],
                (c, channels, biases, activation): (usize, usize, &[f32], Option<Activation>),
                squares: &[usize; TILE_SIDE * TILE_SIDE],
                out: &mut [f32],
                (e, t): &mut ([[f32; L]; TILE_VALUES], [[f32; L]; TILE_SIDE * INPUT_SIDE]),
            ) {
                for (k, e) in e.iter_mut().enumerate() {
                    e.copy_from_slice(&m[k * channels + c..k * channels + c + L]);
                }
                // Aᵀ·m, column by column: t[i][j] for i < TILE_SIDE.
                for j in 0..INPUT_SIDE {
                    let column = output_line::<L>(e, j, INPUT_SIDE);
                    for (i, value) in column.into_iter().enumerate() {
                        t[i * INPUT_SIDE + j] = value;
                    }
                }
                let bias: &[f32; L] = biases[c..c + L].try_into().unwrap_or(&[0.0; L]);
                // (Aᵀ·m)·A, row by row, plus the bias.
                for i in 0..TILE_SIDE {
                    let r = INPUT_SIDE * i;
                    let row = output_line::<L>(t, r, 1);
                    for (j, mut value) in row.into_iter().enumerate() {
                        for (v, b) in value.iter_mut().zip(bias) {
                            *v += b;
                        }
                        if let Some(activation) = activation {
                            for v in &mut value {
                                *v = activated(activation, *v);
                            }
                        }
                        let at = squares[i * TILE_SIDE + j] + c;
                        out[at..at + L].copy_from_slice(&value);
                    }
                }
            }
        }
    };
}

tile_size!(
    f2x2,
    2,
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]],
    /// Bᵀ·d of F(2×2, 3×3) along one line of four values, `line[first + k·stride]` (each `L` lanes).
    // Lane l of every line at once: iterating over one array would leave the others indexed.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn input_line<const L: usize>(line: &[[f32; L]], first: usize, stride: usize) -> [[f32; L]; 4] {
        let d = (&line[first], &line[first + stride], &line[first + 2 * stride], &line[first + 3 * stride]);
        let mut r = [[0.0f32; L]; 4];
        for l in 0..L {
            let (d0, d1, d2, d3) = (d.0[l], d.1[l], d.2[l], d.3[l]);
            r[0][l] = d0 - d2;
            r[1][l] = d1 + d2;
            r[2][l] = d2 - d1;
            r[3][l] = d1 - d3;
        }
        r
    },
    /// Aᵀ·m of F(2×2, 3×3) along one line of four values, `line[first + k·stride]` (each `L` lanes).
    // Lane l of every line at once: iterating over one array would leave the others indexed.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn output_line<const L: usize>(line: &[[f32; L]], first: usize, stride: usize) -> [[f32; L]; 2] {
        let m = (&line[first], &line[first + stride], &line[first + 2 * stride], &line[first + 3 * stride]);
        let mut y = [[0.0f32; L]; 2];
        for l in 0..L {
            let (m0, m1, m2, m3) = (m.0[l], m.1[l], m.2[l], m.3[l]);
            y[0][l] = m0 + m1 + m2;
            y[1][l] = m1 - m2 - m3;
        }
        y
    }
);

tile_size!(
    f4x4,
    4,
    [
        [1.0 / 4.0, 0.0, 0.0],
        [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
        [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
        [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
        [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
        [0.0, 0.0, 1.0],
    ],
    /// Bᵀ·d of F(4×4, 3×3) along one line of six values, `line[first + k·stride]` (each `L` lanes).
    // Lane l of every line at once: iterating over one array would leave the others indexed.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn input_line<const L: usize>(line: &[[f32; L]], first: usize, stride: usize) -> [[f32; L]; 6] {
        let at = |k: usize| &line[first + k * stride];
        let d = (at(0), at(1), at(2), at(3), at(4), at(5));
        let mut r = [[0.0f32; L]; 6];
        for l in 0..L {
            let (d0, d1, d2, d3, d4, d5) = (d.0[l], d.1[l], d.2[l], d.3[l], d.4[l], d.5[l]);
            r[0][l] = 4.0 * d0 - 5.0 * d2 + d4;
            r[1][l] = (d3 + d4) - 4.0 * (d1 + d2);
            r[2][l] = (d4 - d3) + 4.0 * (d1 - d2);
            r[3][l] = (d4 - d2) + 2.0 * (d3 - d1);
            r[4][l] = (d4 - d2) - 2.0 * (d3 - d1);
            r[5][l] = 4.0 * d1 - 5.0 * d3 + d5;
        }
        r
    },
    /// Aᵀ·m of F(4×4, 3×3) along one line of six values, `line[first + k·stride]` (each `L` lanes).
    // Lane l of every line at once: iterating over one array would leave the others indexed.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn output_line<const L: usize>(line: &[[f32; L]], first: usize, stride: usize) -> [[f32; L]; 4] {
        let at = |k: usize| &line[first + k * stride];
        let m = (at(0), at(1), at(2), at(3), at(4), at(5));
        let mut y = [[0.0f32; L]; 4];
        for l in 0..L {
            let (m0, m1, m2, m3, m4, m5) = (m.0[l], m.1[l], m.2[l], m.3[l], m.4[l], m.5[l]);
            let (sum12, difference12) = (m1 + m2, m1 - m2);
            let (sum34, difference34) = (m3 + m4, m3 - m4);
            y[0][l] = m0 + sum12 + sum34;
            y[1][l] = difference12 + 2.0 * difference34;
            y[2][l] = sum12 + 4.0 * sum34;
            y[3][l] = difference12 + 8.0 * difference34 + m5;
        }
        y
    }
);

#[cfg(test)]
mod tests {
    use super::super::channel_major;
    use super::super::tests::{square_major, values};
    use super::*;

    /// A direct 3×3 convolution over `[channels][64]` planes, by the definition (cross-correlation, padding 1),
    /// and beside each output the sum of its terms' magnitudes, the scale of its rounding error.
    fn direct(conv: &Conv, x: &[f32]) -> Vec<(f64, f64)> {
        let mut out = vec![(0.0, 0.0); conv.out_channels * 64];
        for o in 0..conv.out_channels {
            for square in 0..64i32 {
                let (rank, file) = (square / 8, square % 8);
                let mut sum = f64::from(conv.biases[o]);
                let mut magnitude = sum.abs();
                for i in 0..conv.in_channels {
                    for kr in 0..3 {
                        for kf in 0..3 {
                            let (r, f) = (rank + kr - 1, file + kf - 1);
                            if (0..8).contains(&r) && (0..8).contains(&f) {
                                let w = conv.weights[((o * conv.in_channels + i) * 3 + kr as usize) * 3 + kf as usize];
                                let term = f64::from(w) * f64::from(x[i * 64 + (r * 8 + f) as usize]);
                                sum += term;
                                magnitude += term.abs();
                            }
                        }
                    }
                }
                out[o * 64 + square as usize] = (sum, magnitude);
            }
        }
        out
    }

    #[test]
    fn both_tile_sizes_equal_the_direct_convolution_on_every_square_and_channel() {
        let conv =
            Conv { out_channels: 5, in_channels: 7, kernel: 3, weights: values(5 * 7 * 9, 1), biases: values(5, 2) };
        let winograd = Winograd3x3::new(&conv, false).expect("a 3×3 convolution");
        // Rounding error in units of f32 precision of an output's terms' magnitudes: F(2×2) reaches 0.8 here,
        // F(4×4) 25 (its transforms' coefficients go up to 8, as lc0's do); a wrong coefficient is off by whole
        // terms.
        for (positions, units) in [(1, 4.0), (LARGE_TILES_FROM, 64.0)] {
            let x = values(positions * 7 * 64, 3);
            let square_major_x: Vec<f32> = x.chunks_exact(7 * 64).flat_map(|x| square_major(x, 7)).collect();
            for fused in [false, true] {
                let mut scratch = Scratch::default();
                let large = positions >= LARGE_TILES_FROM;
                let mut out = Vec::new();
                let input = &square_major_x;
                match (fused, large) {
                    (true, true) => winograd.apply::<true, 4, true>(input, &mut scratch, None, &mut out),
                    (true, false) => winograd.apply::<true, 4, false>(input, &mut scratch, None, &mut out),
                    (false, true) => winograd.apply::<false, 2, true>(input, &mut scratch, None, &mut out),
                    (false, false) => winograd.apply::<false, 2, false>(input, &mut scratch, None, &mut out),
                }
                for (position, (x, out)) in x.chunks_exact(7 * 64).zip(out.chunks_exact(5 * 64)).enumerate() {
                    let expected = direct(&conv, x);
                    for (index, (&got, &(want, magnitude))) in channel_major(out, 5).iter().zip(&expected).enumerate() {
                        let tolerance = units * f64::from(f32::EPSILON) * magnitude;
                        assert!(
                            (f64::from(got) - want).abs() <= tolerance,
                            "{positions} positions, fused {fused}, position {position} value {index}: {got} against {want}"
                        );
                    }
                }
            }
        }
    }
}
