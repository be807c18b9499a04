//! An SPRT followed game by game in the order the games finished, as `kairos match --sprt` sees them: the test
//! ends at the first pair whose LLR reaches a bound, and games recorded after it (those already in progress when
//! the match stopped, or a match read later than it should have been) do not change that verdict.

use crate::runner::GameResult;
use crate::stats::{Pentanomial, SprtConfig, SprtDecision};
use crate::tally::PairingTally;

/// Where an SPRT first reached a bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// Games of the test counted when the bound was reached (the game that completed the deciding pair included).
    pub games: u64,
    /// The whole pairs then.
    pub pairs: Pentanomial,
    /// The LLR then.
    pub llr: f64,
    /// H0 or H1.
    pub decision: SprtDecision,
}

/// One pairing's SPRT, fed games in finishing order.
#[derive(Clone, Debug)]
pub struct SprtReplay {
    config: SprtConfig,
    tally: PairingTally,
    first_crossing: Option<Crossing>,
}

impl SprtReplay {
    /// A test of `first` against `second` with nothing counted yet.
    pub fn new(config: SprtConfig, first: &str, second: &str) -> Self {
        SprtReplay { config, tally: PairingTally::new(first, second), first_crossing: None }
    }

    /// Counts a game if it belongs to the pairing (returns whether it did) and notes the first crossing of a bound.
    pub fn add(&mut self, white: &str, black: &str, pair_id: u64, result: GameResult) -> bool {
        let pairs_before = self.tally.pairs.pairs();
        if !self.tally.add_result(white, black, pair_id, result) {
            return false;
        }
        let pair_completed = self.tally.pairs.pairs() > pairs_before;
        if pair_completed && self.first_crossing.is_none() {
            if let Ok(llr) = self.tally.llr(&self.config) {
                let decision = self.config.decide(llr);
                if decision != SprtDecision::Continue {
                    let games = self.tally.games.games();
                    self.first_crossing = Some(Crossing { games, pairs: self.tally.pairs, llr, decision });
                }
            }
        }
        true
    }

    /// The test.
    pub fn config(&self) -> &SprtConfig {
        &self.config
    }

    /// Everything counted so far, the games after the first crossing included.
    pub fn tally(&self) -> &PairingTally {
        &self.tally
    }

    /// Where the LLR first reached a bound, if it has.
    pub fn first_crossing(&self) -> Option<&Crossing> {
        self.first_crossing.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::EloModel;

    const WIN: GameResult = GameResult::WhiteWins;
    const LOSS: GameResult = GameResult::BlackWins;

    fn config() -> SprtConfig {
        SprtConfig { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized }
    }

    #[test]
    fn games_of_other_engines_are_not_counted() {
        let mut replay = SprtReplay::new(config(), "a", "b");
        assert!(!replay.add("a", "c", 0, WIN));
        assert!(replay.add("b", "a", 0, LOSS));
        assert_eq!(replay.tally().games.wins, 1);
    }

    #[test]
    fn the_first_crossing_stays_when_later_games_pull_the_llr_back() {
        let mut replay = SprtReplay::new(config(), "a", "b");
        let mut won_pairs = 0;
        while replay.first_crossing().is_none() && won_pairs < 500 {
            replay.add("a", "b", won_pairs, WIN);
            replay.add("b", "a", won_pairs, LOSS);
            won_pairs += 1;
        }
        let crossing = *replay.first_crossing().expect("won pairs cross the upper bound");
        assert_eq!((crossing.decision, crossing.games), (SprtDecision::AcceptH1, 2 * won_pairs));
        let (_, upper) = config().bounds();
        assert!(config().llr(&[0, 0, 0, 0, won_pairs]).unwrap() >= upper);
        assert!(config().llr(&[0, 0, 0, 0, won_pairs - 1]).unwrap() < upper, "one pair fewer had not crossed");
        // As many lost pairs bring the score back to level and the LLR inside the bounds; the verdict stays.
        for pair in won_pairs..2 * won_pairs {
            replay.add("a", "b", pair, LOSS);
            replay.add("b", "a", pair, WIN);
        }
        let end = replay.tally().llr(&config()).unwrap();
        assert_eq!(config().decide(end), SprtDecision::Continue, "{end}");
        assert_eq!(replay.first_crossing(), Some(&crossing));
    }
}
