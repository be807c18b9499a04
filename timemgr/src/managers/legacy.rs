//! lc0's default `legacy` manager (LC0-NOTES §2.2): an equal slice of the remaining game with a first-move
//! bonus, and the time saved by early stops spent on the next move.

use std::sync::{Arc, Mutex};

use super::{finish_budget, lock, new_trace, Adjustments, ClockView, DeadlineStopper, EndOfMove, TimeManager};
use crate::estimator::MovesLeftEstimator;
use crate::search_stats::{GoParams, IterationStats, MoveContext, Stopper};
use crate::trace::{MoveTrace, TraceBook, TraceValue};

/// The keys of `legacy(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct LegacyParams {
    /// Multiplier of each slice.
    pub slowmover: f32,
    /// Fraction of the saved time the next move spends.
    pub immediate_use: f32,
    /// Extra slices on the first move.
    pub first_move_bonus: f32,
    /// Extra slices per book ply (up to 12) on the first move.
    pub book_ply_bonus: f32,
    /// Moves-left estimator (lc0: mle-legacy from `midpoint-move`/`steepness`).
    pub estimator: MovesLeftEstimator,
    /// Common adjustments.
    pub adjustments: Adjustments,
}

struct LegacyState {
    params: LegacyParams,
    name: String,
    spared_ms: i64,
    first_move: bool,
    traces: TraceBook,
}

impl LegacyState {
    fn snapshot(&self) -> Vec<TraceValue> {
        vec![TraceValue { name: "spared_ms".into(), value: self.spared_ms as f64 }]
    }
}

impl EndOfMove for LegacyState {
    fn end_of_move(&mut self, move_time_ms: i64, deadline_ms: i64, stats: &IterationStats, reason: String) {
        self.spared_ms = self.spared_ms.saturating_add(deadline_ms.saturating_sub(move_time_ms));
        let snapshot = self.snapshot();
        self.traces.close(move_time_ms, stats.total_nodes, reason, snapshot);
    }
}

/// lc0's `legacy` manager.
pub struct LegacyManager {
    state: Arc<Mutex<LegacyState>>,
}

impl LegacyManager {
    /// A fresh manager for one game; `name` is the canonical option string shown in traces.
    pub fn new(params: LegacyParams, name: String) -> Self {
        Self { state: Arc::new(Mutex::new(LegacyState { params, name, spared_ms: 0, first_move: true, traces: TraceBook::default() })) }
    }
}

impl TimeManager for LegacyManager {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        let clock = ClockView::from_go(go, ctx)?;
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        let mut trace = new_trace(st.name.clone(), &clock, go, ctx);
        trace.state_before = st.snapshot();
        let estimate = st.params.estimator.moves_left(ctx);
        trace.estimator = Some(match &estimate.fallback {
            Some(why) => format!("{} ({why})", st.params.estimator.name()),
            None => st.params.estimator.name().to_owned(),
        });
        let mut moves = estimate.moves;
        trace.step("moves_left", f64::from(moves));
        if let Some(mtg) = clock.movestogo.filter(|&mtg| (mtg as f32) < moves) {
            moves = mtg as f32;
            trace.step("moves_left_capped_by_movestogo", f64::from(moves));
        }
        let p = &st.params;
        let increment = clock.increment_ms as f32;
        let mut total = (clock.time_ms as f32 + increment * (moves - 1.0) - clock.overhead_ms as f32).max(0.0);
        trace.step("total_remaining_ms", f64::from(total));
        let mut squander = 0i64;
        if st.spared_ms > 0 {
            total = (total - st.spared_ms as f32).max(0.0);
            squander = (st.spared_ms as f32 * p.immediate_use) as i64;
            st.spared_ms -= squander;
            trace.step("squandered_spared_ms", squander as f64);
        }
        let mut slice = total / moves;
        trace.step("slice_ms", f64::from(slice));
        if st.first_move {
            let book_plies = ctx.game_ply.min(12) as f32;
            slice *= 1.0 + p.first_move_bonus + p.book_ply_bonus * book_plies;
            st.first_move = false;
            trace.step("first_move_slice_ms", f64::from(slice));
        }
        if p.slowmover < 1.0 || slice * p.slowmover > 200.0 {
            st.spared_ms = (st.spared_ms as f32 - slice * (p.slowmover - 1.0)) as i64;
            slice *= p.slowmover;
        }
        let budget = slice + squander as f32;
        trace.step("allocated_ms", f64::from(budget));
        let deadline = finish_budget(f64::from(budget), &p.adjustments, &clock, ctx, &mut trace);
        trace.state_after_budget = st.snapshot();
        st.traces.open(trace);
        drop(guard);
        Some(DeadlineStopper::boxed(deadline, Arc::clone(&self.state)))
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        lock(&self.state).traces.drain()
    }
}
