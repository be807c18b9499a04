//! The policy softmax over legal moves with lc0's temperature and approximate exp (docs/lc0/network.md §5.8), so
//! that priors match lc0's to the last bit of f32 rounding.

/// lc0's `FastExp2`: a quadratic on the fraction, scaled by 2^n through the exponent bits.
pub fn fast_exp2(x: f32) -> f32 {
    if x < -126.0 {
        return 0.0;
    }
    let n = if x >= 0.0 {
        truncate(x)
    } else {
        truncate(x - 1.0)
    };
    let f = x - n;
    let p = 1.0 + f * (0.660_233_9 + 0.339_766_06 * f);
    // n lies in [-127, 127] for finite results; adding it to the exponent field is a multiply by 2^n.
    let bits = (p.to_bits() as i32).wrapping_add((n as i32) << 23);
    f32::from_bits(bits as u32)
}

/// `x.trunc()` without its call into libm (the baseline x86-64 target has no rounding instruction, and the calls were
/// a quarter of the softmax's instructions): below 2^23 in magnitude the conversion to i32 truncates exactly, and
/// every f32 from 2^23 up, and every NaN, is its own truncation.
fn truncate(x: f32) -> f32 {
    if x.abs() < 8_388_608.0 {
        (x as i32) as f32
    } else {
        x
    }
}

/// lc0's `FastExp(x) = FastExp2(log2(e)·x)`.
pub fn fast_exp(x: f32) -> f32 {
    fast_exp2(std::f32::consts::LOG2_E * x)
}

/// Priors of the moves with logits `logits`, at `temperature`, computed as lc0 does (f32, FastExp,
/// max subtracted, sum accumulated in order, then multiplied by the reciprocal).
pub fn policy_softmax(logits: &[f32], temperature: f32) -> Vec<f32> {
    softmax_with(logits.iter().copied(), temperature, fast_exp)
}

/// [`policy_softmax`] of the logits `all_logits[indices]`, read in place (a copy of the moves' logits was one of the
/// small steps that make up a batch's host work a position). With `exact`, the exponential is exact: the network's
/// own distribution, for checks of a network implementation (`kairos eval`), where lc0's FastExp would shift priors
/// by up to about 2·10⁻⁴.
pub fn gathered_policy_softmax(all_logits: &[f32], indices: &[usize], temperature: f32, exact: bool) -> Vec<f32> {
    let logits = indices.iter().map(|&index| all_logits[index]);
    softmax_with(logits, temperature, if exact { f32::exp } else { fast_exp })
}

fn softmax_with(logits: impl Iterator<Item = f32> + Clone, temperature: f32, exp: fn(f32) -> f32) -> Vec<f32> {
    let max = logits.clone().fold(f32::NEG_INFINITY, f32::max);
    let inverse_temperature = 1.0 / temperature;
    let mut exps: Vec<f32> = logits.map(|x| exp((x - max) * inverse_temperature)).collect();
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

    /// The truncation agrees with `f32::trunc` (up to the sign of a zero, which `fast_exp2` adds to an exponent as
    /// the integer 0 either way), on each side of 2^23 and of i32's range.
    #[test]
    fn truncate_is_f32_trunc() {
        let specials = [0.5, 0.999_999_9, 1.0, 126.5, -126.9, 8_388_607.5, 8_388_608.0, 3.0e9, f32::MAX];
        let steps = (0..200_000).map(|i| (i as f32 - 100_000.0) * 0.001_37);
        for x in specials.into_iter().chain(specials.map(|x| -x)).chain(steps) {
            assert_eq!(truncate(x), x.trunc(), "{x}");
        }
        assert!(truncate(f32::NAN).is_nan());
        assert_eq!(truncate(f32::INFINITY), f32::INFINITY);
    }

    /// The softmax of logits read through indices is the softmax of the same logits copied out first, bit for bit.
    #[test]
    fn gathered_softmax_is_the_softmax_of_the_gathered_logits() {
        let all: Vec<f32> = (0..1858).map(|i| ((i * 7919) % 1000) as f32 * 0.013 - 6.0).collect();
        let indices = [1857, 0, 400, 401, 999, 12, 1500];
        let gathered: Vec<f32> = indices.iter().map(|&i| all[i]).collect();
        for temperature in [1.0, 1.359] {
            let fast = gathered_policy_softmax(&all, &indices, temperature, false);
            assert_eq!(fast, policy_softmax(&gathered, temperature));
            let exact = gathered_policy_softmax(&all, &indices, temperature, true);
            assert_eq!(exact, softmax_with(gathered.iter().copied(), temperature, f32::exp));
        }
    }
}
