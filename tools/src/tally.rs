//! Running W/D/L and pentanomial counts per pairing, built from game records in any order.

use std::collections::HashMap;

use crate::runner::GameRecord;
use crate::stats::{Outcome, Pentanomial, SprtConfig, StatsError, Trinomial};

/// Results of one pairing from the first engine's point of view.
#[derive(Clone, Debug)]
pub struct PairingTally {
    /// The engine whose results are counted.
    pub first: String,
    /// Its opponent.
    pub second: String,
    /// Per-game counts.
    pub games: Trinomial,
    /// Per-pair counts over completed pairs.
    pub pairs: Pentanomial,
    half_pairs: HashMap<u64, Outcome>,
}

impl PairingTally {
    /// An empty tally for `first` against `second`.
    pub fn new(first: &str, second: &str) -> Self {
        PairingTally {
            first: first.to_owned(),
            second: second.to_owned(),
            games: Trinomial::default(),
            pairs: Pentanomial::default(),
            half_pairs: HashMap::new(),
        }
    }

    /// Counts a game if it belongs to this pairing; returns whether it did.
    pub fn add(&mut self, record: &GameRecord) -> bool {
        let players = (record.white.as_str(), record.black.as_str());
        if players != (&self.first, &self.second) && players != (&self.second, &self.first) {
            return false;
        }
        let Some(outcome) = record.outcome_for(&self.first) else { return false };
        self.games.add(outcome);
        match self.half_pairs.remove(&record.pair_id) {
            Some(other) => self.pairs.add_pair(other, outcome),
            None => {
                self.half_pairs.insert(record.pair_id, outcome);
            }
        }
        true
    }

    /// LLR of the completed pairs under `config`.
    pub fn llr(&self, config: &SprtConfig) -> Result<f64, StatsError> {
        config.llr(&self.pairs.counts_by_score())
    }

    /// A fastchess-style summary: score, Elo, nElo, LOS, pentanomial counts and, if given, the SPRT state.
    pub fn summary(&self, sprt: Option<&SprtConfig>) -> String {
        let g = &self.games;
        let points = g.wins as f64 + g.draws as f64 / 2.0;
        let mut lines = vec![format!(
            "{} vs {}: games {}, W {} D {} L {}, points {points:.1}",
            self.first,
            self.second,
            g.games(),
            g.wins,
            g.draws,
            g.losses
        )];
        let estimate = if self.pairs.pairs() > 0 { self.pairs.estimate() } else { g.estimate() };
        match estimate {
            Ok(e) => lines.push(format!(
                "Elo {:.2} +/- {:.2}, nElo {:.2} +/- {:.2}, LOS {:.2} %",
                e.elo,
                e.elo_error,
                e.nelo,
                e.nelo_error,
                e.los * 100.0
            )),
            Err(e) => lines.push(format!("Elo: {e}")),
        }
        let p = self.pairs.counts_by_score();
        lines.push(format!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}] (WL {} + DD {})",
            p[0], p[1], p[2], p[3], p[4], self.pairs.wl, self.pairs.dd
        ));
        if let Some(config) = sprt {
            let (lower, upper) = config.bounds();
            match self.llr(config) {
                Ok(llr) => lines.push(format!(
                    "LLR: {llr:.2} ({:.1} %) ({lower:.2}, {upper:.2}) [{}, {}] {:?}",
                    100.0 * llr / if llr < 0.0 { -lower } else { upper },
                    config.elo0,
                    config.elo1,
                    config.decide(llr)
                )),
                Err(e) => lines.push(format!("LLR: {e}")),
            }
        }
        lines.join("\n")
    }
}
