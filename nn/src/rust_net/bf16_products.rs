//! The Winograd products in bf16 with AVX512-BF16's dot product (`vdpbf16ps`), for `Precision=bf16` (and `auto`
//! on a CPU with native bf16). Each instruction multiplies two pairs of bf16 per f32 lane and adds both products
//! to the lane, so a tile's products take half the instructions of f32's FMAs, and the weights half the memory.
//! Tile values and weights are rounded to bf16 (to nearest, ties to even); the sums stay in f32.
//!
//! Layouts: a tile's values go in pairs of channels, `[tiles][tile values][inputs / 2]` with each pair one `u32`
//! (the even channel in the low half); the weights `[tile values][inputs / 2][outputs]`, each `u32` the pair of
//! channels' weights for one output, so that one broadcast pair of a tile and one load of 16 outputs' pairs make
//! one instruction.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m512bh, __m512i, _mm512_cvtne2ps_pbh, _mm512_dpbf16_ps, _mm512_loadu_ps, _mm512_loadu_si512, _mm512_set1_epi32,
    _mm512_setzero_ps, _mm512_setzero_si512, _mm512_storeu_ps, _mm512_storeu_si512,
};
#[cfg(target_arch = "x86_64")]
use std::mem::transmute;

use half::bf16;

/// The bf16 bits of `value`, rounded to nearest, ties to even (as `vcvtne2ps2bf16` does for normal values).
fn bf16_bits(value: f32) -> u32 {
    u32::from(bf16::from_f32(value).to_bits())
}

/// Whether a convolution of `inputs` channels into `outputs` filters can take these products: on a CPU with
/// AVX-512F and AVX512-BF16, with channels in whole pairs and outputs in whole registers of 16.
pub fn fits(inputs: usize, outputs: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    let available = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bf16");
    #[cfg(not(target_arch = "x86_64"))]
    let available = false;
    available && inputs.is_multiple_of(2) && outputs.is_multiple_of(LANES)
}

/// Outputs of one register.
const LANES: usize = 16;

/// Transformed weights `[tile values][inputs][outputs]` in f32 to this module's pairs.
pub fn weight_pairs(weights: &[f32], inputs: usize, outputs: usize) -> Vec<u32> {
    let mut pairs = Vec::with_capacity(weights.len() / 2);
    for value in weights.chunks_exact(inputs * outputs) {
        for two_inputs in value.chunks_exact(2 * outputs) {
            let (even, odd) = two_inputs.split_at(outputs);
            pairs.extend(even.iter().zip(odd).map(|(&e, &o)| bf16_bits(e) | bf16_bits(o) << 16));
        }
    }
    pairs
}

/// The Winograd products of `tiles` (f32, `[tiles][tile values][inputs]`) by `weights` in pairs into
/// `products`, with `tile_pairs` for the tiles rounded to bf16.
///
/// # Safety
/// The CPU and the shape must fit these products ([`fits`]); the tiles must be a multiple of 4.
pub unsafe fn multiply(
    weights: &[u32],
    (inputs, outputs): (usize, usize),
    tile_values: usize,
    tiles: &[f32],
    tile_pairs: &mut Vec<u32>,
    products: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's.
    unsafe {
        round_to_pairs(tiles, tile_pairs);
        multiply_tiles(weights, (inputs / 2, outputs), tile_values, tile_pairs, products);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (weights, inputs, outputs, tile_values, tiles, tile_pairs, products);
        unreachable!("weight pairs are built only on x86-64 (`fits`)");
    }
}

/// Every value of `values` (whole pairs) rounded to bf16 into `pairs`, two to a `u32`, 32 at a time.
///
/// # Safety
/// The CPU must have AVX-512F and AVX512-BF16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn round_to_pairs(values: &[f32], pairs: &mut Vec<u32>) {
    pairs.resize(values.len() / 2, 0);
    let mut rest_pairs = pairs.chunks_exact_mut(LANES);
    let mut rest_values = values.chunks_exact(2 * LANES);
    for (values, pairs) in (&mut rest_values).zip(&mut rest_pairs) {
        round_register(values.try_into().expect("32 values"), pairs.try_into().expect("16 pairs"));
    }
    let (values, pairs) = (rest_values.remainder(), rest_pairs.into_remainder());
    if !values.is_empty() {
        let mut padded = [0.0f32; 2 * LANES];
        padded[..values.len()].copy_from_slice(values);
        let mut rounded = [0u32; LANES];
        round_register(&padded, &mut rounded);
        pairs.copy_from_slice(&rounded[..pairs.len()]);
    }
}

/// 32 values rounded to bf16, two to a `u32`: one register's worth.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
#[inline]
fn round_register(values: &[f32; 2 * LANES], pairs: &mut [u32; LANES]) {
    // SAFETY: the arrays hold the 32 values read and the 16 pairs written.
    unsafe {
        let (low, high) = (_mm512_loadu_ps(values.as_ptr()), _mm512_loadu_ps(values[LANES..].as_ptr()));
        let rounded = transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(high, low));
        _mm512_storeu_si512(pairs.as_mut_ptr().cast(), rounded);
    }
}

/// Tiles whose products share each register of weights loaded.
const TILE_BLOCK: usize = 4;

/// For each tile value ξ, `[tiles][inputs] · [inputs][outputs]` into `products` (`[tiles][tile values][outputs]`,
/// f32), from `tiles` and `weights` in this module's pairs; 64 outputs at a time, then 16.
///
/// # Safety
/// The CPU must have AVX-512F and AVX512-BF16; `outputs` must be a multiple of 16 and the tiles a multiple of 4.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn multiply_tiles(
    weights: &[u32],
    (pairs, outputs): (usize, usize),
    tile_values: usize,
    tiles: &[u32],
    products: &mut [f32],
) {
    let tile_count = tiles.len() / (tile_values * pairs);
    assert!(outputs.is_multiple_of(LANES) && tile_count.is_multiple_of(TILE_BLOCK));
    assert!(products.len() >= tile_count * tile_values * outputs);
    for value in 0..tile_values {
        let weights = &weights[value * pairs * outputs..][..pairs * outputs];
        for first_tile in (0..tile_count).step_by(TILE_BLOCK) {
            // Plain loops, no closures (`array::from_fn`): a closure is compiled without this function's
            // AVX-512, and the loads of a block's weights in one were a call for every pair.
            let (mut rows, mut starts): ([&[u32]; TILE_BLOCK], _) = ([&[]; TILE_BLOCK], [0; TILE_BLOCK]);
            for (t, (row, start)) in rows.iter_mut().zip(&mut starts).enumerate() {
                let at = (first_tile + t) * tile_values + value;
                *row = &tiles[at * pairs..(at + 1) * pairs];
                *start = at * outputs;
            }
            let mut first_output = 0;
            while first_output + 4 * LANES <= outputs {
                // SAFETY: the caller's CPU; the block's weights and products are in bounds (asserted above).
                unsafe { product_block::<4>(weights, outputs, first_output, &rows, products, &starts) };
                first_output += 4 * LANES;
            }
            while first_output < outputs {
                // SAFETY: as above.
                unsafe { product_block::<1>(weights, outputs, first_output, &rows, products, &starts) };
                first_output += LANES;
            }
        }
    }
}

/// `REGISTERS` × 16 outputs (from `first_output`) of [`TILE_BLOCK`] tiles' products, accumulated in registers and
/// stored at each tile's `starts`.
///
/// # Safety
/// The CPU must have AVX-512F and AVX512-BF16; `first_output + 16·REGISTERS ≤ outputs`, every row holds the
/// weights' pairs, and `products` holds the block at each start.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
#[inline]
unsafe fn product_block<const REGISTERS: usize>(
    weights: &[u32],
    outputs: usize,
    first_output: usize,
    rows: &[&[u32]; TILE_BLOCK],
    products: &mut [f32],
    starts: &[usize; TILE_BLOCK],
) {
    let mut block = [[_mm512_setzero_ps(); REGISTERS]; TILE_BLOCK];
    let [r0, r1, r2, r3] = rows;
    let lines = weights.chunks_exact(outputs).zip(r0.iter().zip(*r1).zip(r2.iter().zip(*r3)));
    for (line, ((&p0, &p1), (&p2, &p3))) in lines {
        let line = &line[first_output..first_output + REGISTERS * LANES];
        // SAFETY: both types are 64 bytes.
        let mut w = [unsafe { transmute::<__m512i, __m512bh>(_mm512_setzero_si512()) }; REGISTERS];
        for (w, line) in w.iter_mut().zip(line.chunks_exact(LANES)) {
            // SAFETY: the chunk holds 16 pairs; both types are 64 bytes.
            *w = unsafe { transmute::<__m512i, __m512bh>(_mm512_loadu_si512(line.as_ptr().cast())) };
        }
        for (accumulators, pair) in block.iter_mut().zip([p0, p1, p2, p3]) {
            // SAFETY: both types are 64 bytes.
            let pair: __m512bh = unsafe { transmute::<__m512i, __m512bh>(_mm512_set1_epi32(pair as i32)) };
            for (a, &w) in accumulators.iter_mut().zip(&w) {
                *a = _mm512_dpbf16_ps(*a, pair, w);
            }
        }
    }
    for (accumulators, &start) in block.iter().zip(starts) {
        let out = &mut products[start + first_output..start + first_output + REGISTERS * LANES];
        for (r, a) in accumulators.iter().enumerate() {
            // SAFETY: the slice holds REGISTERS × 16 values.
            unsafe { _mm512_storeu_ps(out[r * LANES..].as_mut_ptr(), *a) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::values;
    use super::*;
    use crate::torch_backend::tests::cpu_flags;

    /// `value` rounded to bf16 (half's conversion, to nearest even), back in f64.
    fn rounded(value: f32) -> f64 {
        f64::from(bf16::from_f32(value).to_f32())
    }

    /// Every product of 8 tiles of 3 tile values by 6 inputs into 80 outputs (a block of 64 and one of 16, and a
    /// pair count that leaves the rounding a part-filled register) against the sums in f64 of the values and
    /// weights rounded to bf16, on a CPU with AVX512-BF16 (/proc/cpuinfo); without it, no convolution fits.
    #[test]
    fn the_products_are_the_sums_of_the_values_and_weights_rounded_to_bf16() {
        let (tile_count, tile_values, inputs, outputs) = (8, 3, 6, 80);
        let flags = cpu_flags();
        let has_bf16 = ["avx512f", "avx512_bf16"].iter().all(|flag| flags.iter().any(|f| f == flag));
        assert_eq!(fits(inputs, outputs), has_bf16, "flags: {flags:?}");
        if !has_bf16 {
            return;
        }
        assert!(!fits(5, outputs) && !fits(inputs, 72), "odd channels or a part register do not fit");
        let tiles = values(tile_count * tile_values * inputs, 1);
        let weights = values(tile_values * inputs * outputs, 2);
        let mut products = vec![f32::NAN; tile_count * tile_values * outputs];
        let pairs = weight_pairs(&weights, inputs, outputs);
        // SAFETY: the CPU has the instructions and the shape fits (both asserted); 8 tiles are whole blocks.
        unsafe { multiply(&pairs, (inputs, outputs), tile_values, &tiles, &mut Vec::new(), &mut products) };
        for tile in 0..tile_count {
            for value in 0..tile_values {
                for output in 0..outputs {
                    let (mut want, mut magnitude) = (0.0f64, 0.0f64);
                    for input in 0..inputs {
                        let x = tiles[(tile * tile_values + value) * inputs + input];
                        let w = weights[(value * inputs + input) * outputs + output];
                        want += rounded(x) * rounded(w);
                        magnitude += (rounded(x) * rounded(w)).abs();
                    }
                    let got = f64::from(products[(tile * tile_values + value) * outputs + output]);
                    let tolerance = 4.0 * f64::from(f32::EPSILON) * magnitude;
                    assert!(
                        (got - want).abs() <= tolerance,
                        "tile {tile}, value {value}, output {output}: {got} against {want}"
                    );
                }
            }
        }
    }
}
