//! lc0's `alphazero` manager (LC0-NOTES §2.3): a fixed percentage of the remaining time per move.

use std::sync::{Arc, Mutex};

use super::{finish_budget, lock, new_trace, Adjustments, ClockView, DeadlineStopper, EndOfMove, TimeManager};
use crate::search_stats::{GoParams, IterationStats, MoveContext, Stopper};
use crate::trace::{MoveTrace, TraceBook};

/// The keys of `alphazero(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaZeroParams {
    /// Percentage of `T − O` per move.
    pub time_pct: f32,
    /// Common adjustments.
    pub adjustments: Adjustments,
}

struct AlphaZeroState {
    name: String,
    traces: TraceBook,
}

impl EndOfMove for AlphaZeroState {
    fn end_of_move(&mut self, move_time_ms: i64, _deadline_ms: i64, stats: &IterationStats, reason: String) {
        self.traces.close(move_time_ms, stats.total_nodes, reason, Vec::new());
    }
}

/// lc0's `alphazero` manager; with `movestogo = k` a move gets at least `(T − O)/k` (lc0 ignores movestogo).
pub struct AlphaZeroManager {
    params: AlphaZeroParams,
    state: Arc<Mutex<AlphaZeroState>>,
}

impl AlphaZeroManager {
    /// A manager for one game; `name` is the canonical option string shown in traces.
    pub fn new(params: AlphaZeroParams, name: String) -> Self {
        Self { params, state: Arc::new(Mutex::new(AlphaZeroState { name, traces: TraceBook::default() })) }
    }
}

impl TimeManager for AlphaZeroManager {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        let clock = ClockView::from_go(go, ctx)?;
        let mut st = lock(&self.state);
        let mut trace = new_trace(st.name.clone(), &clock, go, ctx);
        let available = (clock.time_ms - clock.overhead_ms) as f32;
        let mut budget = available * self.params.time_pct / 100.0;
        trace.step("allocated_ms", f64::from(budget));
        if let Some(mtg) = clock.movestogo {
            budget = budget.max(available / mtg as f32);
            trace.step("movestogo_floor_ms", f64::from(budget));
        }
        let deadline = finish_budget(f64::from(budget), &self.params.adjustments, &clock, ctx, &mut trace);
        st.traces.open(trace);
        drop(st);
        Some(DeadlineStopper::boxed(deadline, Arc::clone(&self.state)))
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        lock(&self.state).traces.drain()
    }
}
