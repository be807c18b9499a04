//! The policy softmax over legal moves with lc0's temperature and approximate exp (docs/lc0/network.md §5.8), so
//! that priors match lc0's to the last bit of f32 rounding.

/// lc0's `FastExp2`: a quadratic on the fraction, scaled by 2^n through the exponent bits. Without branches, so that
/// a softmax's exponentials compile to vector instructions (lc0 branches on the sign; the two forms agree bit for bit
/// on every x from −126 up to 2^31, as the test shows).
pub fn fast_exp2(x: f32) -> f32 {
    // lc0 converts a − 1 for negative a: the floor, except at the negative integers, where its fraction is 1.
    let n = (if x < 0.0 { x - 1.0 } else { x }) as i32;
    let f = x - n as f32;
    // lc0's build fuses both products with the sums after them (docs/lc0/search.md §4.15).
    let p = f.mul_add(0.339_766_06_f32.mul_add(f, 0.660_233_9), 1.0);
    // Adding n to the exponent field is a multiply by 2^n.
    let scaled = f32::from_bits((p.to_bits() as i32).wrapping_add(n << 23) as u32);
    if x < -126.0 {
        0.0
    } else {
        scaled
    }
}

/// lc0's `FastExp(x) = FastExp2(log2(e)·x)`.
pub fn fast_exp(x: f32) -> f32 {
    fast_exp2(std::f32::consts::LOG2_E * x)
}

/// Priors of the moves with logits `logits`, at `temperature`, computed as lc0 does (f32, FastExp,
/// max subtracted, sum accumulated in order, then multiplied by the reciprocal).
pub fn policy_softmax(logits: &[f32], temperature: f32) -> Vec<f32> {
    softmax_with(logits, temperature, fast_exp)
}

/// [`policy_softmax`], or with `exact` the exact exponential: the network's own distribution, for checks of a network
/// implementation (`kairos eval`), where lc0's FastExp would shift priors by up to about 2·10⁻⁴.
pub fn move_priors(logits: &[f32], temperature: f32, exact: bool) -> Vec<f32> {
    if exact {
        softmax_with(logits, temperature, f32::exp)
    } else {
        softmax_with(logits, temperature, fast_exp)
    }
}

/// The softmax with `exp`, a type parameter rather than a function pointer so that it inlines into the loop.
fn softmax_with(logits: &[f32], temperature: f32, exp: impl Fn(f32) -> f32) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let inverse_temperature = 1.0 / temperature;
    let mut exps: Vec<f32> = logits.iter().map(|&x| exp((x - max) * inverse_temperature)).collect();
    let sum: f32 = exps.iter().sum();
    if sum > 0.0 {
        let scale = 1.0 / sum;
        for e in &mut exps {
            *e *= scale;
        }
    }
    exps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lc0's `FastExp2` (`src/utils/fastmath.h`) with its branches and an integer conversion, its polynomial fused as
    /// lc0's build fuses it (docs/lc0/search.md §4.15).
    fn lc0_fast_exp2(a: f32) -> f32 {
        let exp = if a < 0.0 {
            if a < -126.0 {
                return 0.0;
            }
            (a - 1.0).trunc() as i32
        } else {
            a.trunc() as i32
        };
        let out = a - exp as f32;
        let out = out.mul_add(0.339_766_06_f32.mul_add(out, 0.660_233_9), 1.0);
        f32::from_bits((out.to_bits() as i32).wrapping_add(((exp as u32) << 23) as i32) as u32)
    }

    /// The branch-free form is lc0's bit for bit from below −126 (zero) to 2^31, on a fine sweep, at the integers
    /// (where lc0's fraction for a negative a is 1) and at the ends of the range.
    #[test]
    fn fast_exp2_is_lc0s_bit_for_bit() {
        let sweep = (0..2_000_000).map(|i| (i as f32 - 1_300_000.0) * 0.000_1);
        let integers = (-130..=130).map(|i| i as f32);
        let ends = [-126.0, -126.000_01, -125.999_99, -0.0, 0.0, 1e-30, -1e-30, 8_388_608.5, 2.1e9];
        for x in sweep.chain(integers).chain(ends) {
            assert_eq!(fast_exp2(x).to_bits(), lc0_fast_exp2(x).to_bits(), "{x}");
        }
        assert_eq!(fast_exp2(-127.5), 0.0);
        assert!(fast_exp2(f32::NAN).is_nan());
    }

    /// Without `exact` the priors are lc0's; with it, e^x: the logits 0 and ln 3 give 1/4 and 3/4.
    #[test]
    fn move_priors_are_lc0s_or_the_exact_softmax() {
        let logits = [0.3, -1.2, 2.5];
        assert_eq!(move_priors(&logits, 1.359, false), policy_softmax(&logits, 1.359));
        let exact = move_priors(&[0.0, 3.0f32.ln()], 1.0, true);
        assert!((exact[0] - 0.25).abs() < 1e-7 && (exact[1] - 0.75).abs() < 1e-7, "{exact:?}");
        let fast = move_priors(&[0.0, 3.0f32.ln()], 1.0, false);
        assert!((fast[0] - 0.25).abs() > 1e-6, "FastExp is not exact: {fast:?}");
    }
}
