//! `smooth(limit=nodes)`: the per-move tree-size target is itself the stop (PR 1195: "it may make sense to
//! have search limit in nodes instead of time"); time is only the safety net, a soft cap at a multiple of the
//! expected move time and the hard deadline.
//!
//! Nodes are counted as lc0 #1529 weighs them, `θ·N + (1 − θ)·N_best` (plain root visits N when θ = 1, the
//! default), reused visits included.

use std::sync::{Arc, Mutex};

use super::{lock, Shared, SmoothBudget, SmoothParams, SmoothState};
use crate::managers::ClockView;
use crate::search_stats::{Hints, IterationStats, MoveContext, Stopper};
use crate::trace::{MoveTrace, StopCause};

/// One move's node budget and its time limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct NodePlan {
    /// Effective nodes at which the move stops, reused visits included.
    pub target: f64,
    /// The reused tree's effective nodes as the budget estimates them (weight × reused visits).
    base: f64,
    /// θ of the effective count.
    theta: f64,
    /// Time after which the move stops although the target is not reached (NPS collapse).
    pub soft_cap_ms: i64,
    /// Time the move may never pass: the clock share `max-move-budget` and the clock minus the overhead.
    pub hard_deadline_ms: i64,
    /// Only one legal move: played at once unless forced moves are searched.
    single_move: bool,
    /// Whether a forced move (one legal move, or one that does not lose) is searched like any other.
    search_forced: bool,
    /// Whether to stop when no other move can overtake the best within the node budget.
    smart_pruning: bool,
    /// Effective nodes below which smart pruning waits (`prune-floor` of the new part of the target).
    prune_floor: f64,
}

impl NodePlan {
    /// Why a move under this plan stopped, as the stopper reports it and the trace keeps it: the cause and the
    /// target, and the tree size reached once the move is over.
    pub fn stop_reason(&self, cause: StopCause, reached: Option<u64>) -> String {
        match reached {
            Some(nodes) => format!("{} (node target {:.0}, reached {nodes})", cause.label(), self.target),
            None => format!("{} (node target {:.0})", cause.label(), self.target),
        }
    }

    /// The plan from the move's budget: the constant tree size `nodes_per_move_including_reuse`, whose new
    /// part is stretched by the learned share of the target that moves reach (the time-use estimator of the
    /// time mode, here a node-use estimator), so that smart-pruned moves and full ones average out to the
    /// budget; the expected time to reach it comes from the NPS estimate.
    pub(super) fn new(
        budget: &SmoothBudget,
        params: &SmoothParams,
        state: &SmoothState,
        clock: &ClockView,
        ctx: &MoveContext,
        trace: &mut MoveTrace,
    ) -> Self {
        let (node_use, nps) = (state.timeuse, state.nps);
        let weight = f64::from(state.visit_weight(params.theta));
        let base = weight * ctx.reused_visits as f64;
        let new_nodes = super::new_nodes_toward(
            f64::from(budget.nodes_per_move_including_reuse),
            base,
            f64::from(state.tree_reuse),
            f64::from(params.reuse_credit),
        );
        let carried = f64::from(state.carried_nodes);
        let target = base + new_nodes / f64::from(node_use) + carried;
        let expected_ms = (target - base) / weight / f64::from(nps) * 1000.0;
        let hard_deadline_ms =
            (clock.time_ms as f64 * f64::from(params.max_move_budget)).min(clock.hard_cap_ms() as f64);
        let hard_deadline_ms = hard_deadline_ms.max(0.0) as i64;
        let soft_cap_ms = (expected_ms * f64::from(params.nodes_time_cap)).min(hard_deadline_ms as f64) as i64;
        for (name, value) in [
            ("node_target", target),
            ("expected_node_movetime_ms", expected_ms),
            ("soft_cap_ms", soft_cap_ms as f64),
            ("hard_deadline_ms", hard_deadline_ms as f64),
        ] {
            trace.step(name, value);
        }
        trace.node_target = Some(target);
        trace.deadline_ms = hard_deadline_ms;
        Self {
            target,
            base,
            theta: f64::from(params.theta),
            soft_cap_ms,
            hard_deadline_ms,
            single_move: ctx.legal_moves == 1,
            search_forced: params.search_forced,
            smart_pruning: ctx.smart_pruning,
            prune_floor: base + f64::from(params.prune_floor) * (target - base),
        }
    }

    /// The effective node count of the statistics: θ·N + (1 − θ)·N_best.
    fn effective(&self, stats: &IterationStats) -> f64 {
        let best = stats.edge_n.iter().copied().max().unwrap_or(0);
        self.theta * stats.total_nodes as f64 + (1.0 - self.theta) * f64::from(best)
    }

    /// The most visits the search can still make before the target: every visit adds at least θ.
    fn remaining_visits(&self, stats: &IterationStats) -> u64 {
        let remaining = (self.target - self.effective(stats)).max(0.0);
        if self.theta > 0.0 {
            (remaining / self.theta).ceil() as u64
        } else {
            crate::search_stats::UNLIMITED_PLAYOUTS
        }
    }

    /// Which limit, if any, ends the move now. Smart pruning is exact: the best move's lead over the runner-up
    /// exceeds every visit left in the node budget, so no other move can even draw level; it waits for the
    /// prune floor unless the root is decided.
    pub(super) fn limit_reached(&self, stats: &IterationStats) -> Option<StopCause> {
        let now = stats.time_since_movestart_ms;
        let mut visits: Vec<u32> = stats.edge_n.clone();
        visits.sort_unstable_by(|a, b| b.cmp(a));
        let lead = match visits.as_slice() {
            [best, second, ..] => u64::from(best - second),
            _ => 0,
        };
        if self.single_move && !self.search_forced {
            Some(StopCause::SingleMove)
        } else if self.effective(stats) >= self.target {
            Some(StopCause::Target)
        } else if self.smart_pruning && (self.prunable(stats, lead) || self.decided(stats)) {
            Some(StopCause::SmartPruning)
        } else if now >= self.hard_deadline_ms {
            Some(StopCause::HardDeadline)
        } else if now >= self.soft_cap_ms {
            Some(StopCause::SoftCap)
        } else {
            None
        }
    }

    /// Whether the best move's lead can no longer be caught and the tree has reached the prune floor.
    fn prunable(&self, stats: &IterationStats, lead: u64) -> bool {
        lead > self.remaining_visits(stats) && self.effective(stats) >= self.prune_floor
    }

    /// Whether the root is decided whatever the budget: a proven win, or (unless forced moves are searched) at
    /// most one move that does not lose, as lc0's smart pruning stops.
    fn decided(&self, stats: &IterationStats) -> bool {
        let forced = stats.edge_n.len() <= stats.num_losing_edges as usize + usize::from(!stats.may_resign);
        stats.win_found || (forced && !self.search_forced)
    }

    /// The effective nodes of the target that a finished move left unsearched because smart pruning stopped it
    /// (0 when any other limit stopped it), which `immediate-use` hands on to the next move.
    pub(super) fn unsearched(&self, stats: &IterationStats, cause: Option<StopCause>) -> f64 {
        if cause == Some(StopCause::SmartPruning) {
            (self.target - self.effective(stats)).max(0.0)
        } else {
            0.0
        }
    }

    /// The node-use sample of a finished move: the share of the target's new nodes reached when smart pruning
    /// stopped it, 1 when it stopped for any other reason (a collapsed NPS is no reason to plan bigger trees).
    pub(super) fn node_use_sample(&self, stats: &IterationStats, cause: Option<StopCause>) -> f32 {
        if cause != Some(StopCause::SmartPruning) || self.target <= self.base {
            return 1.0;
        }
        ((self.effective(stats) - self.base) / (self.target - self.base)).clamp(0.0, 1.0) as f32
    }
}

/// The per-move stopper of `smooth(limit=nodes)`: it reports NPS samples to the manager on every poll,
/// publishes the remaining node budget, and stops at the first limit reached. Its NPS is nodes per
/// millisecond since the move started, the first batch's time included: the rate at which a node target
/// spends the clock. (lc0 times from the end of the first batch but counts its nodes, which reads some 12 %
/// fast on moves of a few hundred nodes and made node targets overspend.)
pub(super) struct NodeStopper {
    pub shared: Arc<Mutex<Shared>>,
    pub plan: NodePlan,
    pub stopped_by: Option<StopCause>,
}

impl Stopper for NodeStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        let mut shared = lock(&self.shared);
        let nps = shared.update_nps(stats.time_since_movestart_ms, stats.nodes_since_movestart);
        hints.update_estimated_nps(nps);
        hints.update_remaining_playouts(self.plan.remaining_visits(stats));
        hints.update_remaining_time(self.plan.soft_cap_ms.saturating_sub(stats.time_since_movestart_ms));
        self.stopped_by = self.plan.limit_reached(stats);
        if let Some(cause) = self.stopped_by {
            shared.record(|current| current.stopped_by = Some(cause));
        }
        self.stopped_by.is_some()
    }

    fn prunes_on_its_own_budget(&self) -> bool {
        self.plan.smart_pruning
    }

    fn stop_reason(&self) -> Option<String> {
        self.stopped_by.map(|cause| self.plan.stop_reason(cause, None))
    }

    fn playouts_left_at_start(&mut self, stats: &IterationStats) -> Option<u64> {
        Some(self.plan.remaining_visits(stats))
    }

    fn affordable_playouts(&mut self, stats: &IterationStats) -> Option<u64> {
        let nps = lock(&self.shared).state.nps;
        Some(affordable_playouts(self.plan.hard_deadline_ms, stats.time_since_movestart_ms, nps))
    }
}

/// The playouts that `nps` fits between `elapsed_ms` and `limit_ms` (none once the limit has passed).
pub(super) fn affordable_playouts(limit_ms: i64, elapsed_ms: i64, nps: f32) -> u64 {
    let left_ms = limit_ms.saturating_sub(elapsed_ms).max(0);
    (left_ms as f64 * f64::from(nps.max(0.0)) / 1000.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_reason_names_the_cause_the_target_and_once_known_the_tree_reached() {
        let plan = NodePlan {
            target: 1234.4,
            base: 0.0,
            theta: 1.0,
            soft_cap_ms: 1000,
            hard_deadline_ms: 2000,
            single_move: false,
            search_forced: false,
            smart_pruning: true,
            prune_floor: 0.0,
        };
        assert_eq!(plan.stop_reason(StopCause::Target, None), "target (node target 1234)");
        assert_eq!(
            plan.stop_reason(StopCause::SmartPruning, Some(1100)),
            "smart-pruning (node target 1234, reached 1100)"
        );
    }
}
