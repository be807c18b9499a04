//! lc0's default `legacy` manager (docs/lc0/time-managers.md §2.2): an equal slice of the remaining game with a
//! first-move bonus, and the time saved by early stops spent on the next move (with `immediate-use` below 1, a
//! share of it a move after the first `spread-after` own moves, which budget as lc0's plain legacy with no
//! slowmover either, and with `reserve-in-slices` the unspent rest still counted in the slices); with
//! `unstable-extension`, a move whose most-visited root move is not the best by Q at the deadline searches on
//! (Kairos's, off by default).

use super::{ClockView, DeadlineBudget, InertKey};
use crate::estimator::MovesLeftEstimator;
pub use crate::options::registry::LegacyParams;
use crate::search_stats::MoveContext;
use crate::trace::{MoveTrace, TraceValue};

/// The legacy manager's state for one game: time spared by early stops, and how many own moves it has budgeted.
pub struct LegacyBudget {
    params: LegacyParams,
    estimator: MovesLeftEstimator,
    spared_ms: i64,
    own_moves_budgeted: i64,
}

impl LegacyBudget {
    /// A fresh state for one game; `estimator` is lc0's mle-legacy from the keys unless another was given.
    pub fn new(params: LegacyParams, estimator: MovesLeftEstimator) -> Self {
        Self { params, estimator, spared_ms: 0, own_moves_budgeted: 0 }
    }
}

impl LegacyParams {
    /// The keys that legacy never reads under these values (`own_curve_replaced`: an estimator is written in the
    /// string), so that a tuner or a user is told instead of tuning a key that changes nothing.
    pub fn inert_keys(&self, own_curve_replaced: bool) -> Vec<InertKey> {
        const OWN_CURVE: &str =
            "the estimator written in the string replaces legacy's own curve; tune the estimator's key";
        let mut inert = Vec::new();
        if own_curve_replaced {
            for key in ["midpoint-move", "steepness"] {
                inert.push(InertKey { key, unless_tuned: &[], why: OWN_CURVE });
            }
        }
        if self.immediate_use >= 1.0 && self.slowmover == 1.0 {
            inert.push(InertKey {
                key: "spread-after",
                unless_tuned: &["immediate-use", "slowmover"],
                why: "immediate-use=1 and slowmover=1 budget every move as the first ones; set either",
            });
        }
        inert
    }
}

impl DeadlineBudget for LegacyBudget {
    fn snapshot(&self) -> Vec<TraceValue> {
        vec![TraceValue { name: "spared_ms".into(), value: self.spared_ms as f64 }]
    }

    fn budget_ms(&mut self, clock: &ClockView, ctx: &MoveContext, trace: &mut MoveTrace) -> f64 {
        let estimate = self.estimator.moves_left(ctx);
        trace.estimator = Some(match &estimate.fallback {
            Some(why) => format!("{} ({why})", self.estimator.name()),
            None => self.estimator.name().to_owned(),
        });
        let mut moves = estimate.moves;
        trace.step("moves_left", f64::from(moves));
        if let Some(mtg) = clock.movestogo.filter(|&mtg| (mtg as f32) < moves) {
            moves = mtg as f32;
            trace.step("moves_left_capped_by_movestogo", f64::from(moves));
        }
        let p = &self.params;
        let first_move = self.own_moves_budgeted == 0;
        self.own_moves_budgeted += 1;
        let plain_legacy = self.own_moves_budgeted <= p.spread_after;
        let share_of_spared = if plain_legacy { 1.0 } else { p.immediate_use };
        let slowmover = if plain_legacy { 1.0 } else { p.slowmover };
        let increment = clock.increment_ms as f32;
        let mut total = (clock.time_ms as f32 + increment * (moves - 1.0) - clock.overhead_ms as f32).max(0.0);
        trace.step("total_remaining_ms", f64::from(total));
        let mut squander = 0i64;
        if self.spared_ms > 0 {
            if !p.reserve_in_slices {
                total = (total - self.spared_ms as f32).max(0.0);
            }
            squander = (self.spared_ms as f32 * share_of_spared) as i64;
            self.spared_ms -= squander;
            trace.step("squandered_spared_ms", squander as f64);
        }
        let mut slice = total / moves;
        trace.step("slice_ms", f64::from(slice));
        if first_move {
            let book_plies = ctx.game_ply.min(12) as f32;
            slice *= 1.0 + p.first_move_bonus + p.book_ply_bonus * book_plies;
            trace.step("first_move_slice_ms", f64::from(slice));
        }
        if slowmover < 1.0 || slice * slowmover > 200.0 {
            self.spared_ms = (self.spared_ms as f32 - slice * (slowmover - 1.0)) as i64;
            slice *= slowmover;
        }
        let budget = slice + squander as f32;
        trace.step("allocated_ms", f64::from(budget));
        f64::from(budget)
    }

    fn unstable_extension(&self) -> f64 {
        f64::from(self.params.unstable_extension)
    }

    fn learn(&mut self, move_time_ms: i64, deadline_ms: i64) {
        self.spared_ms = self.spared_ms.saturating_add(deadline_ms.saturating_sub(move_time_ms));
    }
}
