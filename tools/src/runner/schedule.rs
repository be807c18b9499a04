//! The match plan: who plays whom, with which openings, in a fixed order that `--resume` can rely on.

use serde::{Deserialize, Serialize};
use shakmaty::{CastlingMode, Position};

use super::engine_config::EngineConfig;
use super::game::{GameJob, GameSettings};
use super::openings::Opening;

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tournament {
    /// The first engine against each of the others.
    Gauntlet,
    /// Every engine against every other.
    RoundRobin,
}

/// Everything needed to play a match.
#[derive(Clone, Debug)]
pub struct MatchPlan {
    /// The engines; names must be unique.
    pub engines: Vec<EngineConfig>,
    /// Who plays whom.
    pub tournament: Tournament,
    /// Openings in the order they are used; each is played twice with colours reversed.
    pub openings: Vec<Opening>,
    /// Game pairs per pairing of engines.
    pub pairs_per_pairing: u64,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Rules, clocks and adjudication.
    pub settings: GameSettings,
}

/// A plan that cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// Fewer than two engines.
    #[error("a match needs at least two engines: give --engine twice or more")]
    TooFewEngines,
    /// Two engines share a name.
    #[error("two engines are named '{0}': give each a distinct name=")]
    DuplicateName(String),
    /// No openings.
    #[error(
        "the opening list is empty: give --openings FILE with at least one position, or none for the start position"
    )]
    NoOpenings,
    /// An opening is invalid.
    #[error("opening {index} is invalid: {reason}")]
    BadOpening {
        /// 1-based index in the ordered list.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// Virtual clock with an engine that does not report virtual time.
    #[error(
        "--virtual-clock needs engines that report virtual time; '{0}' does not (use cmd=kairos or virtualclock=yes)"
    )]
    NoVirtualClock(String),
    /// Zero concurrency or zero games.
    #[error("concurrency and the number of game pairs must both be at least 1")]
    NothingToRun,
}

impl MatchPlan {
    /// The pairings `(first, second)` as engine indices; statistics are from the first's view.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.engines.len();
        match self.tournament {
            Tournament::Gauntlet => (1..n).map(|i| (0, i)).collect(),
            Tournament::RoundRobin => (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect(),
        }
    }

    /// Checks the plan before any engine is started.
    pub fn validate(&self) -> Result<(), PlanError> {
        if self.engines.len() < 2 {
            return Err(PlanError::TooFewEngines);
        }
        for (i, engine) in self.engines.iter().enumerate() {
            if self.engines[..i].iter().any(|other| other.name == engine.name) {
                return Err(PlanError::DuplicateName(engine.name.clone()));
            }
            if self.settings.virtual_clock && !engine.speaks_virtual_clock {
                return Err(PlanError::NoVirtualClock(engine.name.clone()));
            }
        }
        if self.openings.is_empty() {
            return Err(PlanError::NoOpenings);
        }
        if self.concurrency == 0 || self.pairs_per_pairing == 0 {
            return Err(PlanError::NothingToRun);
        }
        for (index, opening) in self.openings.iter().enumerate() {
            let bad = |reason: String| PlanError::BadOpening { index: index + 1, reason };
            let positions = opening.positions().map_err(|e| bad(e.to_string()))?;
            let chess960_castling = positions[0].castles().mode() == CastlingMode::Chess960;
            if chess960_castling && self.settings.variant.is_standard() {
                return Err(bad(format!(
                    "'{}' has Chess960 castling rights; play it with --variant chess960",
                    opening.fen
                )));
            }
        }
        Ok(())
    }

    /// Every game in schedule order: pair by pair, each pairing in turn, first engine white in the pair's first game.
    pub fn schedule(&self) -> Vec<GameJob> {
        let pairings = self.pairings();
        let mut jobs = Vec::new();
        for pair in 0..self.pairs_per_pairing {
            let opening = &self.openings[(pair % self.openings.len() as u64) as usize];
            for (p, &(first, second)) in pairings.iter().enumerate() {
                let pair_id = pair * pairings.len() as u64 + p as u64;
                for (white, black) in [(first, second), (second, first)] {
                    let game_id = jobs.len() as u64;
                    jobs.push(GameJob { game_id, pair_id, white, black, opening: opening.clone() });
                }
            }
        }
        jobs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(name: &str) -> EngineConfig {
        EngineConfig {
            name: name.into(),
            command: "engine".into(),
            args: Vec::new(),
            options: Vec::new(),
            time_control: "1+0".parse().unwrap(),
            speaks_virtual_clock: false,
        }
    }

    fn plan(names: &[&str], tournament: Tournament) -> MatchPlan {
        MatchPlan {
            engines: names.iter().map(|n| engine(n)).collect(),
            tournament,
            openings: vec![Opening::startpos(), Opening { fen: Opening::startpos().fen, moves: vec!["d2d4".into()] }],
            pairs_per_pairing: 3,
            concurrency: 1,
            settings: GameSettings::default(),
        }
    }

    #[test]
    fn gauntlet_and_round_robin_pairings() {
        assert_eq!(plan(&["a", "b", "c"], Tournament::Gauntlet).pairings(), vec![(0, 1), (0, 2)]);
        assert_eq!(plan(&["a", "b", "c"], Tournament::RoundRobin).pairings(), vec![(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn schedule_plays_each_opening_twice_with_colours_reversed() {
        let jobs = plan(&["a", "b", "c"], Tournament::Gauntlet).schedule();
        assert_eq!(jobs.len(), 12);
        let view: Vec<(u64, u64, usize, usize, usize)> =
            jobs.iter().map(|j| (j.game_id, j.pair_id, j.white, j.black, j.opening.moves.len())).collect();
        assert_eq!(
            &view[..6],
            &[(0, 0, 0, 1, 0), (1, 0, 1, 0, 0), (2, 1, 0, 2, 0), (3, 1, 2, 0, 0), (4, 2, 0, 1, 1), (5, 2, 1, 0, 1)]
        );
        assert_eq!(view[8], (8, 4, 0, 1, 0), "the book wraps around");
    }

    #[test]
    fn invalid_plans_are_refused_with_the_reason() {
        assert_eq!(plan(&["a"], Tournament::Gauntlet).validate(), Err(PlanError::TooFewEngines));
        assert_eq!(plan(&["a", "a"], Tournament::Gauntlet).validate(), Err(PlanError::DuplicateName("a".into())));
        let mut bad_book = plan(&["a", "b"], Tournament::Gauntlet);
        bad_book.openings[1].moves = vec!["d2d5".into()];
        assert!(matches!(bad_book.validate(), Err(PlanError::BadOpening { index: 2, .. })));
        let mut virtual_clock = plan(&["a", "b"], Tournament::Gauntlet);
        virtual_clock.settings.virtual_clock = true;
        assert_eq!(virtual_clock.validate(), Err(PlanError::NoVirtualClock("a".into())));
        assert_eq!(plan(&["a", "b"], Tournament::RoundRobin).validate(), Ok(()));
    }
}
