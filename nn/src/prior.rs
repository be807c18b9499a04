//! lc0's 16-bit prior encoding (docs/lc0/search.md §4.2): sign 0, exponent 96..127, 11 mantissa bits rounded to
//! nearest; values below 2^−31 become 0 and 1.0 is exact.

const ROUNDING_AND_BIAS: i32 = (1 << 11) - (3 << 28);

/// Packs a prior in [0, 1] into 16 bits the way lc0 stores edge priors.
pub fn encode_prior(p: f32) -> u16 {
    let shifted = (p.to_bits() as i32).wrapping_add(ROUNDING_AND_BIAS);
    if shifted < 0 {
        0
    } else {
        (shifted >> 12) as u16
    }
}

/// Unpacks a 16-bit prior.
pub fn decode_prior(packed: u16) -> f32 {
    f32::from_bits((u32::from(packed) << 12) | (3 << 28))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_exact_and_tiny_priors_vanish() {
        assert_eq!(decode_prior(encode_prior(1.0)), 1.0);
        assert_eq!(decode_prior(encode_prior(0.5)), 0.5);
        assert_eq!(encode_prior(0.0), 0);
        assert_eq!(encode_prior(2f32.powi(-32)), 0);
        assert_eq!(decode_prior(encode_prior(2f32.powi(-31))), 2f32.powi(-31));
    }

    #[test]
    fn rounds_to_eleven_mantissa_bits() {
        // 0.1 = 1.6 · 2^-4; with 11 mantissa bits the nearest values are 1638/2048 and 1639/2048 of 2^-3.
        let decoded = decode_prior(encode_prior(0.1));
        let step = 2f32.powi(-4) / 2048.0;
        assert!((decoded - 0.1).abs() <= step / 2.0, "{decoded}");
        assert_eq!(decoded, (0.1f32 / step).round() * step);
        // Just above a half step rounds up, just below rounds down.
        let base = 0.5f32;
        let half = 0.5 * 2f32.powi(-12);
        assert_eq!(decode_prior(encode_prior(base + half * 1.01)), base + 2.0 * half);
        assert_eq!(decode_prior(encode_prior(base + half * 0.99)), base);
    }
}
