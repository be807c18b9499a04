//! `regime`, Kairos's default: for each game, one of two managers by how many nodes its moves will get.
//!
//! The node limit tuned at 10+0.1 (`smooth(preset=kairos)`) beat lc0's `legacy` where a move gets a few hundred
//! nodes, and lost to it where a move gets a few thousand (EXPERIMENTS.md, #34). So at the game's first move
//! with a clock the manager works out the nodes a move will get,
//!
//! n = NPS · (T + i·(M − 1) − O) / M,
//!
//! legacy's even slice of the clock without its first-move bonus (T the clock, i the increment, O the move
//! overhead, M the moves left from lc0's curve, capped by `movestogo`) times the engine's own measure of its
//! speed (20,000 nodes a second, PR 1195's start, when it has none), and hands the game to `large-trees` when
//! n ≥ `switch-nodes`, else to `small-trees`. The choice holds for the rest of the game: both managers keep
//! state from move to move, and a game's clock falls as it goes whichever plays it.

use super::smooth::engine_nps_or_fallback;
use super::{ClockView, TimeManager};
use crate::estimator::mle_legacy;
pub use crate::options::registry::RegimeKeys;
use crate::options::registry::{ComponentKeys, LegacyParams};
use crate::search_stats::{GoParams, IterationStats, MoveContext, Stopper};
use crate::trace::{MoveTrace, TraceValue};

/// The nodes a move gets on average from this move on: the engine's speed times legacy's even slice of the clock
/// (moves left from lc0's default curve, legacy's default midpoint and steepness).
pub fn planned_nodes_per_move(clock: &ClockView, ctx: &MoveContext) -> f64 {
    let lc0 = LegacyParams::defaults();
    let mut moves = f64::from(mle_legacy(ctx.game_ply, lc0.midpoint_move, lc0.steepness));
    if let Some(mtg) = clock.movestogo.filter(|&mtg| f64::from(mtg) < moves) {
        moves = f64::from(mtg);
    }
    let moves = moves.max(1.0);
    let game_time_ms =
        (clock.time_ms as f64 + clock.increment_ms as f64 * (moves - 1.0) - clock.overhead_ms as f64).max(0.0);
    f64::from(engine_nps_or_fallback(ctx)) * game_time_ms / moves / 1000.0
}

/// Which of the two managers plays the game, once the first move with a clock has decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    SmallTrees,
    LargeTrees,
}

/// One game's state: both candidate managers, fresh, until the choice; then the chosen one plays every move.
pub struct RegimeManager {
    name: String,
    switch_nodes: f64,
    small_trees: Box<dyn TimeManager>,
    large_trees: Box<dyn TimeManager>,
    choice: Option<Choice>,
    /// The choice's numbers, written at the front of the first trace the chosen manager files.
    decision: Vec<TraceValue>,
}

impl RegimeManager {
    /// A fresh manager for one game, from its threshold and the two candidates built from their strings;
    /// `name` is the canonical option string, which prefixes the chosen manager's in every trace.
    pub fn boxed(
        name: String,
        switch_nodes: f64,
        small_trees: Box<dyn TimeManager>,
        large_trees: Box<dyn TimeManager>,
    ) -> Box<dyn TimeManager> {
        Box::new(Self { name, switch_nodes, small_trees, large_trees, choice: None, decision: Vec::new() })
    }

    fn chosen(&mut self) -> Option<&mut Box<dyn TimeManager>> {
        match self.choice? {
            Choice::SmallTrees => Some(&mut self.small_trees),
            Choice::LargeTrees => Some(&mut self.large_trees),
        }
    }
}

impl TimeManager for RegimeManager {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        if self.choice.is_none() {
            let clock = ClockView::from_go(go, ctx)?;
            let planned = planned_nodes_per_move(&clock, ctx);
            let large = planned >= self.switch_nodes;
            self.choice = Some(if large { Choice::LargeTrees } else { Choice::SmallTrees });
            self.decision = vec![
                TraceValue { name: "planned_nodes_per_move".into(), value: planned },
                TraceValue { name: "switch_nodes".into(), value: self.switch_nodes },
                TraceValue { name: "large_trees".into(), value: f64::from(u8::from(large)) },
            ];
        }
        self.chosen()?.stopper(go, ctx)
    }

    fn end_of_move(&mut self, final_stats: &IterationStats) {
        if let Some(manager) = self.chosen() {
            manager.end_of_move(final_stats);
        }
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        let mut traces = self.chosen().map(|manager| manager.drain_trace()).unwrap_or_default();
        if let Some(first) = traces.first_mut().filter(|_| !self.decision.is_empty()) {
            first.steps.splice(0..0, std::mem::take(&mut self.decision));
        }
        for trace in &mut traces {
            trace.manager = format!("{} by {}", self.name, trace.manager);
        }
        traces
    }
}
