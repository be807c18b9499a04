//! lc0's `simple` manager (LC0-NOTES §2.4, #1764 revised in #1876).

use std::sync::{Arc, Mutex};

use super::{finish_budget, lock, new_trace, Adjustments, ClockView, DeadlineStopper, EndOfMove, TimeManager};
use crate::search_stats::{GoParams, IterationStats, MoveContext, Stopper};
use crate::trace::{MoveTrace, TraceBook, TraceValue};

/// The keys of `simple(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct SimpleParams {
    /// Percentage of the available time at ply 0.
    pub base_pct: f32,
    /// Percentage added per ply.
    pub ply_pct: f32,
    /// Weight of increment ÷ clock.
    pub time_factor: f32,
    /// Percentage bonus on the first budgeted move.
    pub opening_bonus_pct: f32,
    /// Common adjustments.
    pub adjustments: Adjustments,
}

struct SimpleState {
    params: SimpleParams,
    name: String,
    previous_budget: f32,
    previous_available: f32,
    bonus_applied: bool,
    traces: TraceBook,
}

impl SimpleState {
    fn snapshot(&self) -> Vec<TraceValue> {
        vec![
            TraceValue { name: "previous_budget_ms".into(), value: f64::from(self.previous_budget) },
            TraceValue { name: "previous_available_ms".into(), value: f64::from(self.previous_available) },
        ]
    }
}

impl EndOfMove for SimpleState {
    fn end_of_move(&mut self, move_time_ms: i64, _deadline_ms: i64, stats: &IterationStats, reason: String) {
        let snapshot = self.snapshot();
        self.traces.close(move_time_ms, stats.total_nodes, reason, snapshot);
    }
}

/// lc0's `simple` manager; with `movestogo = k` a move gets at least `(T − O)/k`.
pub struct SimpleManager {
    state: Arc<Mutex<SimpleState>>,
}

impl SimpleManager {
    /// A fresh manager for one game; `name` is the canonical option string shown in traces.
    pub fn new(params: SimpleParams, name: String) -> Self {
        let state = SimpleState { params, name, previous_budget: 0.0, previous_available: 0.0, bonus_applied: false, traces: TraceBook::default() };
        Self { state: Arc::new(Mutex::new(state)) }
    }
}

impl TimeManager for SimpleManager {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        let clock = ClockView::from_go(go, ctx)?;
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        let mut trace = new_trace(st.name.clone(), &clock, go, ctx);
        trace.state_before = st.snapshot();
        let p = &st.params;
        let available = (clock.time_ms - clock.overhead_ms) as f32;
        let increment = clock.increment_ms as f32;
        let ratio = if clock.time_ms > 0 { increment / clock.time_ms as f32 } else { 0.0 };
        let pct = (p.base_pct + ctx.game_ply as f32 * p.ply_pct) * 0.01 + ratio * p.time_factor;
        trace.step("fraction", f64::from(pct));
        let mut budget = available * pct;
        if !st.bonus_applied {
            budget += budget * p.opening_bonus_pct * 0.01;
            st.bonus_applied = true;
        }
        if st.previous_budget > 0.0 {
            let saved = (st.previous_budget - (st.previous_available - (available - increment))).max(0.0);
            trace.step("saved_last_move_ms", f64::from(saved));
            budget += saved;
        }
        if let Some(mtg) = clock.movestogo {
            budget = budget.max(available / mtg as f32);
        }
        budget = budget.min(available).max(0.0);
        st.previous_budget = budget;
        st.previous_available = available;
        trace.step("allocated_ms", f64::from(budget));
        let deadline = finish_budget(f64::from(budget), &st.params.adjustments, &clock, ctx, &mut trace);
        trace.state_after_budget = st.snapshot();
        st.traces.open(trace);
        drop(guard);
        Some(DeadlineStopper::boxed(deadline, Arc::clone(&self.state)))
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        lock(&self.state).traces.drain()
    }
}
