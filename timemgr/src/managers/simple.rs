//! lc0's `simple` manager (docs/lc0/time-managers.md §2.4, #1764 revised in #1876).

use super::{ClockView, DeadlineBudget};
pub use crate::options::registry::SimpleParams;
use crate::search_stats::MoveContext;
use crate::trace::{MoveTrace, TraceValue};

/// The simple manager's state for one game: last move's budget and clock, and whether the bonus was given.
pub struct SimpleBudget {
    params: SimpleParams,
    previous_budget: f32,
    previous_available: f32,
    bonus_applied: bool,
}

impl SimpleBudget {
    /// A fresh state for one game.
    pub fn new(params: SimpleParams) -> Self {
        Self { params, previous_budget: 0.0, previous_available: 0.0, bonus_applied: false }
    }
}

impl DeadlineBudget for SimpleBudget {
    fn snapshot(&self) -> Vec<TraceValue> {
        vec![
            TraceValue { name: "previous_budget_ms".into(), value: f64::from(self.previous_budget) },
            TraceValue { name: "previous_available_ms".into(), value: f64::from(self.previous_available) },
        ]
    }

    fn budget_ms(&mut self, clock: &ClockView, ctx: &MoveContext, trace: &mut MoveTrace) -> f64 {
        let p = &self.params;
        let available = (clock.time_ms - clock.overhead_ms) as f32;
        let increment = clock.increment_ms as f32;
        let ratio = if clock.time_ms > 0 { increment / clock.time_ms as f32 } else { 0.0 };
        let pct = (p.base_pct + ctx.game_ply as f32 * p.ply_pct) * 0.01 + ratio * p.time_factor;
        trace.step("fraction", f64::from(pct));
        let mut budget = available * pct;
        if !self.bonus_applied {
            budget += budget * p.opening_bonus_pct * 0.01;
            self.bonus_applied = true;
        }
        if self.previous_budget > 0.0 {
            let saved = (self.previous_budget - (self.previous_available - (available - increment))).max(0.0);
            trace.step("saved_last_move_ms", f64::from(saved));
            budget += saved;
        }
        if let Some(mtg) = clock.movestogo {
            budget = budget.max(available / mtg as f32);
        }
        budget = budget.min(available).max(0.0);
        self.previous_budget = budget;
        self.previous_available = available;
        trace.step("allocated_ms", f64::from(budget));
        f64::from(budget)
    }
}
