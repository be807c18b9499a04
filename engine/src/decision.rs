//! How much more search changes the decision: a position searched to N visits and then, in the same tree, on
//! to factor·N, with the best move and its Q at both ends (the raw data of `kairos tm-label`). One search
//! thread, no time limit and no smart pruning, and the network cache emptied before each position, so that a
//! position's result depends on nothing but the position, its history, the network and N.

use anyhow::bail;
use shakmaty::{Move, Position};
use timemgr::GoParams;

use crate::bench::{Bench, TreeUse};
use crate::options::EngineOptions;
use crate::position::GameState;

/// The search's decision after some visits.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The move the search would play.
    pub best: Move,
    /// The best move's Q from the side to move's view, in [−1, 1] (None if it has no visits).
    pub q: Option<f32>,
    /// The root's visits when the search stopped.
    pub visits: u64,
}

/// The decision at N visits and at factor·N.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionChange {
    /// After N visits.
    pub early: Decision,
    /// After factor·N visits, the same tree searched on.
    pub late: Decision,
}

impl DecisionChange {
    /// Whether the move to play changed.
    pub fn best_move_changed(&self) -> bool {
        self.early.best != self.late.best
    }
}

/// A search that probes positions at two node counts.
pub struct DecisionProbe {
    bench: Bench,
}

impl DecisionProbe {
    /// Opens the network the options name, with one search thread whatever they say (determinism).
    pub fn open(options: &EngineOptions) -> anyhow::Result<Self> {
        Ok(Self { bench: Bench::open(&EngineOptions { threads: 1, ..options.clone() })? })
    }

    /// Searches the game's position to `nodes` visits, then on to `factor`·`nodes`; None when the side to
    /// move has no legal move.
    pub fn probe(&mut self, game: &GameState, nodes: u64, factor: u64) -> anyhow::Result<Option<DecisionChange>> {
        if nodes == 0 || factor < 2 {
            bail!("nodes {nodes} and factor {factor}: a probe needs at least 1 node and a factor of at least 2");
        }
        if game.position().legal_moves().is_empty() {
            return Ok(None);
        }
        self.bench.forget();
        let early = self.decide(game, nodes, TreeUse::Fresh)?;
        let late = self.decide(game, nodes.saturating_mul(factor), TreeUse::Continue)?;
        Ok(Some(DecisionChange { early, late }))
    }

    fn decide(&mut self, game: &GameState, visits: u64, tree: TreeUse) -> anyhow::Result<Decision> {
        let go = GoParams { nodes: Some(visits), ..GoParams::default() };
        let outcome = self.bench.search_game(game, &go, tree)?;
        let Some(best) = outcome.best else {
            bail!("the search returned no move in a position with legal moves");
        };
        Ok(Decision { q: self.bench.root_q(&best), best, visits: outcome.stats.total_nodes })
    }
}
