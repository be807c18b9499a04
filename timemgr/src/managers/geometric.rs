//! `geometric`: every move takes a fixed fraction 1/α of the remaining clock.
//!
//! The solving rule (reproduces the seed tables to ±0.1): after N moves the clock is `t0·(1 − 1/α)^N`. That
//! must equal the reserve R — given in ms (`reserve-ms`), as a fraction of t0 (`reserve-fraction`), or, by
//! default, the clock `α·s` at which a 1/α slice has shrunk to the minimum move time s (`min-move-ms`), so
//! the geometric phase hands over exactly at move N to a tail of minimum-time moves. Fixed reserves solve
//! in closed form, `α = 1/(1 − (R/t0)^(1/N))`; the minimum-time rule solves `(1 − 1/α)^N/α = s/t0` for its
//! root in `(1, N + 1]` (the left side rises on that interval, peaking at α = N + 1; the other root would
//! spend the clock more slowly than the N moves need). When even α = N + 1 leaves the clock short of the
//! tail (`s/t0` above the peak), α = N + 1 is used and the trace says so.
//!
//! Only the ratio t0/s matters: N = 40 gives α ≈ 10.4 at t0/s = 600, 13.4 at 300, 17.8 at 180, 20.7 at 150.

use super::{ClockView, DeadlineBudget};
use crate::options::registry::GeometricKeys;
use crate::options::OptionError;
use crate::search_stats::MoveContext;
use crate::trace::{MoveTrace, TraceValue};

/// How α is fixed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaRule {
    /// α given (> 1).
    Fixed(f64),
    /// Clock after N moves equals this many ms.
    ReserveMs(f64),
    /// Clock after N moves equals this fraction of t0.
    ReserveFraction(f64),
    /// Clock after N moves equals α·s (s = `min_move_ms`).
    MinimumMoveTime,
}

/// The keys of `geometric(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct GeometricParams {
    /// How α is fixed.
    pub rule: AlphaRule,
    /// N: moves the solved α must last.
    pub moves: u32,
    /// Minimum move time s in ms.
    pub min_move_ms: f64,
}

impl GeometricParams {
    /// The rule for alpha from the keys: a fixed alpha, else a reserve in ms, else a reserve fraction, else the
    /// minimum move time; an alpha in (0, 1] is refused, since it would spend the whole clock at once.
    pub fn from_keys(keys: &GeometricKeys) -> Result<Self, OptionError> {
        let rule = if keys.alpha > 0.0 {
            if keys.alpha <= 1.0 {
                return Err(OptionError::Inconsistent {
                    component: "geometric".into(),
                    reason: format!(
                        "alpha={} would spend the whole clock at once; give alpha > 1, or 0 to solve it",
                        keys.alpha
                    ),
                });
            }
            AlphaRule::Fixed(keys.alpha)
        } else if keys.reserve_ms > 0.0 {
            AlphaRule::ReserveMs(keys.reserve_ms)
        } else if keys.reserve_fraction > 0.0 {
            AlphaRule::ReserveFraction(keys.reserve_fraction)
        } else {
            AlphaRule::MinimumMoveTime
        };
        let moves = u32::try_from(keys.moves).unwrap_or(1);
        Ok(Self { rule, moves, min_move_ms: keys.min_move_ms })
    }
}

/// α from the first clock reading `t0` (ms); the flag says whether the minimum-time rule had no root.
pub fn solve_alpha(rule: AlphaRule, moves: u32, min_move_ms: f64, t0: f64) -> (f64, bool) {
    let n = f64::from(moves.max(1));
    let from_reserve = |fraction: f64| {
        if fraction <= 0.0 {
            (f64::INFINITY, false)
        } else if fraction >= 1.0 {
            (n + 1.0, true)
        } else {
            (1.0 / (1.0 - fraction.powf(1.0 / n)), false)
        }
    };
    match rule {
        AlphaRule::Fixed(alpha) => (alpha, false),
        AlphaRule::ReserveMs(reserve) if t0 > 0.0 => from_reserve(reserve / t0),
        AlphaRule::ReserveFraction(fraction) => from_reserve(fraction),
        AlphaRule::ReserveMs(_) | AlphaRule::MinimumMoveTime => {
            let target = min_move_ms / t0.max(f64::MIN_POSITIVE);
            let rest = |alpha: f64| (1.0 - 1.0 / alpha).powf(n) / alpha - target;
            let peak = n + 1.0;
            let at_peak = rest(peak);
            if at_peak.is_nan() || at_peak <= 0.0 {
                return (peak, true);
            }
            let (mut low, mut high) = (1.0, peak);
            for _ in 0..200 {
                let mid = 0.5 * (low + high);
                if rest(mid) > 0.0 {
                    high = mid;
                } else {
                    low = mid;
                }
            }
            (0.5 * (low + high), false)
        }
    }
}

/// The geometric manager's state for one game: α, solved at the first move.
pub struct GeometricBudget {
    params: GeometricParams,
    alpha: Option<f64>,
}

impl GeometricBudget {
    /// A fresh state for one game.
    pub fn new(params: GeometricParams) -> Self {
        Self { params, alpha: None }
    }
}

impl DeadlineBudget for GeometricBudget {
    fn snapshot(&self) -> Vec<TraceValue> {
        self.alpha.map(|alpha| TraceValue { name: "alpha".into(), value: alpha }).into_iter().collect()
    }

    fn budget_ms(&mut self, clock: &ClockView, _ctx: &MoveContext, trace: &mut MoveTrace) -> f64 {
        let p = &self.params;
        let alpha = match self.alpha {
            Some(alpha) => alpha,
            None => {
                let (alpha, short) = solve_alpha(p.rule, p.moves, p.min_move_ms, clock.time_ms as f64);
                if short {
                    trace.step("alpha_clock_too_short_for_rule", alpha);
                }
                self.alpha = Some(alpha);
                alpha
            }
        };
        let divisor = clock.movestogo.map_or(alpha, |mtg| alpha.min(f64::from(mtg)));
        trace.step("divisor", divisor);
        let slice = (clock.time_ms as f64 / divisor).max(p.min_move_ms);
        let budget = slice + clock.increment_ms as f64;
        trace.step("allocated_ms", budget);
        budget
    }
}
