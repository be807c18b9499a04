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

use std::sync::{Arc, Mutex};

use super::{finish_budget, lock, new_trace, Adjustments, ClockView, DeadlineStopper, EndOfMove, TimeManager};
use crate::search_stats::{GoParams, IterationStats, MoveContext, Stopper};
use crate::trace::{MoveTrace, TraceBook, TraceValue};

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
    /// Common adjustments.
    pub adjustments: Adjustments,
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

struct GeometricState {
    params: GeometricParams,
    name: String,
    alpha: Option<f64>,
    traces: TraceBook,
}

impl GeometricState {
    fn snapshot(&self) -> Vec<TraceValue> {
        self.alpha.map(|alpha| TraceValue { name: "alpha".into(), value: alpha }).into_iter().collect()
    }
}

impl EndOfMove for GeometricState {
    fn end_of_move(&mut self, move_time_ms: i64, _deadline_ms: i64, stats: &IterationStats, reason: String) {
        let snapshot = self.snapshot();
        self.traces.close(move_time_ms, stats.total_nodes, reason, snapshot);
    }
}

/// The `geometric` manager: `max(T/α, s) + increment` per move, at most `T − O`; with `movestogo = k` the
/// divisor is at most k.
pub struct GeometricManager {
    state: Arc<Mutex<GeometricState>>,
}

impl GeometricManager {
    /// A fresh manager for one game (α is solved at its first budget); `name` is shown in traces.
    pub fn new(params: GeometricParams, name: String) -> Self {
        Self { state: Arc::new(Mutex::new(GeometricState { params, name, alpha: None, traces: TraceBook::default() })) }
    }
}

impl TimeManager for GeometricManager {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        let clock = ClockView::from_go(go, ctx)?;
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        let mut trace = new_trace(st.name.clone(), &clock, go, ctx);
        trace.state_before = st.snapshot();
        let p = &st.params;
        let alpha = match st.alpha {
            Some(alpha) => alpha,
            None => {
                let (alpha, short) = solve_alpha(p.rule, p.moves, p.min_move_ms, clock.time_ms as f64);
                if short {
                    trace.step("alpha_clock_too_short_for_rule", alpha);
                }
                st.alpha = Some(alpha);
                alpha
            }
        };
        let divisor = clock.movestogo.map_or(alpha, |mtg| alpha.min(f64::from(mtg)));
        trace.step("divisor", divisor);
        let slice = (clock.time_ms as f64 / divisor).max(p.min_move_ms);
        let budget = slice + clock.increment_ms as f64;
        trace.step("allocated_ms", budget);
        let deadline = finish_budget(budget, &p.adjustments, &clock, ctx, &mut trace);
        trace.state_after_budget = st.snapshot();
        st.traces.open(trace);
        drop(guard);
        Some(DeadlineStopper::boxed(deadline, Arc::clone(&self.state)))
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        lock(&self.state).traces.drain()
    }
}
