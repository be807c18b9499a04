//! The two smoothing rules lc0 uses for its learned estimates (docs/lc0/smooth.md §1.7.1, §1.7.4), in f32 as lc0
//! computes.

/// Moves `from` halfway toward `to` for every `half_life` units of `x`: `to − (to − from)·0.5^(x/half_life)`.
pub fn exponential_decay(from: f32, to: f32, half_life: f32, x: f32) -> f32 {
    to - (to - from) * 0.5f32.powf(x / half_life)
}

/// lc0's NPS smoothing since #1596: jumps up at once, otherwise falls linearly so that it would meet `target`
/// when `elapsed` reaches `window`; `step` is the time since the previous update.
pub fn linear_decay(current: f32, target: f32, elapsed: f32, step: f32, window: f32) -> f32 {
    if current <= target {
        return target;
    }
    if step <= 0.0 {
        return current;
    }
    if elapsed >= window {
        return target;
    }
    let step = step.min(elapsed);
    let phase = (elapsed - step) / window;
    let origin = (phase * target - current) / (phase - 1.0);
    let progress = elapsed / window;
    if progress <= 0.0 {
        origin
    } else if progress >= 1.0 {
        target
    } else {
        origin + (target - origin) * progress
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halfway_after_one_half_life() {
        assert_eq!(exponential_decay(0.5, 1.0, 3.0, 3.0), 0.75);
        assert_eq!(exponential_decay(0.3, 0.9, 3.39, 0.0), 0.3);
    }

    #[test]
    fn linear_decay_first_poll_keeps_the_start_value_as_origin() {
        // δ = τ makes φ = 0, so the line starts at `current` and falls by τ/W of the gap.
        let v = linear_decay(25000.0, 18000.0, 100.0, 100.0, 20000.0);
        assert!((v - 24965.0).abs() < 1e-3, "{v}");
    }
}
