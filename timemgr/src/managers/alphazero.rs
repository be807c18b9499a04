//! lc0's `alphazero` manager (docs/lc0/time-managers.md §2.3): a fixed percentage of the remaining time per move.

use super::{ClockView, DeadlineBudget};
pub use crate::options::registry::AlphaZeroParams;
use crate::search_stats::MoveContext;
use crate::trace::MoveTrace;

/// The alphazero manager: stateless, a fixed share of the clock.
pub struct AlphaZeroBudget {
    params: AlphaZeroParams,
}

impl AlphaZeroBudget {
    /// The manager for one game.
    pub fn new(params: AlphaZeroParams) -> Self {
        Self { params }
    }
}

impl DeadlineBudget for AlphaZeroBudget {
    fn budget_ms(&mut self, clock: &ClockView, _ctx: &MoveContext, trace: &mut MoveTrace) -> f64 {
        let available = (clock.time_ms - clock.overhead_ms) as f32;
        let mut budget = available * self.params.time_pct / 100.0;
        trace.step("allocated_ms", f64::from(budget));
        if let Some(mtg) = clock.movestogo {
            budget = budget.max(available / mtg as f32);
            trace.step("movestogo_floor_ms", f64::from(budget));
        }
        f64::from(budget)
    }
}
