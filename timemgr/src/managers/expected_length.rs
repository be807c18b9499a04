//! `expected-length`: spend `(t − i)/r + i` per move, r = the estimated own moves left.

use std::sync::{Arc, Mutex};

use super::{finish_budget, lock, new_trace, Adjustments, ClockView, DeadlineStopper, EndOfMove, TimeManager};
use crate::estimator::MovesLeftEstimator;
use crate::search_stats::{GoParams, IterationStats, MoveContext, Stopper};
use crate::trace::{MoveTrace, TraceBook};

/// The configuration of `expected-length(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectedLengthParams {
    /// Where r comes from (full moves; `ahle` by default, REM/2).
    pub estimator: MovesLeftEstimator,
    /// Common adjustments.
    pub adjustments: Adjustments,
}

struct ExpectedLengthState {
    name: String,
    traces: TraceBook,
}

impl EndOfMove for ExpectedLengthState {
    fn end_of_move(&mut self, move_time_ms: i64, _deadline_ms: i64, stats: &IterationStats, reason: String) {
        self.traces.close(move_time_ms, stats.total_nodes, reason, Vec::new());
    }
}

/// The `expected-length` manager: t is the clock minus the overhead, r at least 1 and at most `movestogo`.
pub struct ExpectedLengthManager {
    params: ExpectedLengthParams,
    state: Arc<Mutex<ExpectedLengthState>>,
}

impl ExpectedLengthManager {
    /// A manager for one game; `name` is the canonical option string shown in traces.
    pub fn new(params: ExpectedLengthParams, name: String) -> Self {
        Self { params, state: Arc::new(Mutex::new(ExpectedLengthState { name, traces: TraceBook::default() })) }
    }
}

impl TimeManager for ExpectedLengthManager {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        let clock = ClockView::from_go(go, ctx)?;
        let mut st = lock(&self.state);
        let mut trace = new_trace(st.name.clone(), &clock, go, ctx);
        let estimate = self.params.estimator.moves_left(ctx);
        trace.estimator = Some(match &estimate.fallback {
            Some(why) => format!("{} ({why})", self.params.estimator.name()),
            None => self.params.estimator.name().to_owned(),
        });
        let mut moves = f64::from(estimate.moves);
        trace.step("moves_left", moves);
        if let Some(mtg) = clock.movestogo {
            moves = moves.min(f64::from(mtg));
        }
        moves = moves.max(1.0);
        let (time, increment) = (clock.hard_cap_ms() as f64, clock.increment_ms as f64);
        let budget = (time - increment) / moves + increment;
        trace.step("allocated_ms", budget);
        let deadline = finish_budget(budget, &self.params.adjustments, &clock, ctx, &mut trace);
        st.traces.open(trace);
        drop(st);
        Some(DeadlineStopper::boxed(deadline, Arc::clone(&self.state)))
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        lock(&self.state).traces.drain()
    }
}
