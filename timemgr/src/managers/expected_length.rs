//! `expected-length`: spend `(t − i)/r + i` per move, r = the estimated own moves left.

use super::{ClockView, DeadlineBudget};
use crate::estimator::MovesLeftEstimator;
use crate::search_stats::MoveContext;
use crate::trace::MoveTrace;

/// The configuration of `expected-length(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectedLengthParams {
    /// Where r comes from (full moves; `ahle` by default, REM/2).
    pub estimator: MovesLeftEstimator,
}

/// The expected-length manager: stateless, the clock shared over the estimated moves left.
pub struct ExpectedLengthBudget {
    params: ExpectedLengthParams,
}

impl ExpectedLengthBudget {
    /// The manager for one game.
    pub fn new(params: ExpectedLengthParams) -> Self {
        Self { params }
    }
}

impl DeadlineBudget for ExpectedLengthBudget {
    fn budget_ms(&mut self, clock: &ClockView, ctx: &MoveContext, trace: &mut MoveTrace) -> f64 {
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
        budget
    }
}
