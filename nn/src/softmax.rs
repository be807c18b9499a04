//! The policy softmax over legal moves with lc0's temperature and approximate exp (docs/lc0/network.md §5.8), so
//! that priors match lc0's to the last bit of f32 rounding.

/// lc0's `FastExp2`: a quadratic on the fraction, scaled by 2^n through the exponent bits.
pub fn fast_exp2(x: f32) -> f32 {
    if x < -126.0 {
        return 0.0;
    }
    let n = if x >= 0.0 {
        x.trunc()
    } else {
        (x - 1.0).trunc()
    };
    let f = x - n;
    let p = 1.0 + f * (0.660_233_9 + 0.339_766_06 * f);
    // n lies in [-127, 127] for finite results; adding it to the exponent field is a multiply by 2^n.
    let bits = (p.to_bits() as i32).wrapping_add((n as i32) << 23);
    f32::from_bits(bits as u32)
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

/// The same softmax with the exact exponential: the network's own distribution, for checks of a network
/// implementation (`kairos eval`), where lc0's FastExp would shift priors by up to about 2·10⁻⁴.
pub fn exact_policy_softmax(logits: &[f32], temperature: f32) -> Vec<f32> {
    softmax_with(logits, temperature, f32::exp)
}

fn softmax_with(logits: &[f32], temperature: f32, exp: fn(f32) -> f32) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let inverse_temperature = 1.0 / temperature;
    let exps: Vec<f32> = logits
        .iter()
        .map(|&x| exp((x - max) * inverse_temperature))
        .collect();
    let sum: f32 = exps.iter().sum();
    if sum > 0.0 {
        let scale = 1.0 / sum;
        exps.into_iter().map(|e| e * scale).collect()
    } else {
        exps
    }
}
