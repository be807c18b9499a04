//! lc0's approximate logarithm and logistic (docs/lc0/network.md §5.8.2), used for cpuct and the WDL_mu score so both
//! match lc0 to the last bit.

/// lc0's FastLog2: exponent plus a quadratic fit of the mantissa, in f32.
pub fn fast_log2(a: f32) -> f32 {
    let bits = a.to_bits();
    let biased_exponent = (bits >> 23) as f32;
    let mantissa = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000) - 1.0;
    // lc0 subtracts the bias before adding the exponent; the f32 rounding of that order is part of its values, and
    // its build fuses both products with the sums after them (docs/lc0/search.md §4.15).
    let fit = (-0.346_555_23_f32).mul_add(mantissa, 1.346_555_2);
    mantissa.mul_add(fit, -127.0) + biased_exponent
}

/// lc0's FastLog: natural logarithm via [`fast_log2`].
pub fn fast_log(a: f32) -> f32 {
    std::f32::consts::LN_2 * fast_log2(a)
}

/// lc0's FastLogistic: 1 / (1 + FastExp(−a)), saturated beyond ±20.
pub fn fast_logistic(a: f32) -> f32 {
    if a > 20.0 {
        1.0
    } else if a < -20.0 {
        0.0
    } else {
        1.0 / (1.0 + nn::softmax::fast_exp(-a))
    }
}
