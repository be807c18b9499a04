//! Running W/D/L and pentanomial counts per pairing, built from game records in any order.

use std::collections::HashMap;

use crate::runner::{GameRecord, GameResult};
use crate::stats::{Outcome, Pentanomial, SprtConfig, SprtDecision, StatsError, Trinomial};

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
        self.add_result(&record.white, &record.black, record.pair_id, record.result)
    }

    /// Counts a game given by its players, pair and result if it belongs to this pairing; returns whether it did.
    pub fn add_result(&mut self, white: &str, black: &str, pair_id: u64, result: GameResult) -> bool {
        let white_view = match result {
            GameResult::WhiteWins => Outcome::Win,
            GameResult::BlackWins => Outcome::Loss,
            GameResult::Draw => Outcome::Draw,
        };
        let outcome = if (white, black) == (&self.first, &self.second) {
            white_view
        } else if (white, black) == (&self.second, &self.first) {
            white_view.reversed()
        } else {
            return false;
        };
        self.games.add(outcome);
        match self.half_pairs.remove(&pair_id) {
            Some(other) => self.pairs.add_pair(other, outcome),
            None => {
                self.half_pairs.insert(pair_id, outcome);
            }
        }
        true
    }

    /// LLR of the completed pairs under `config`.
    pub fn llr(&self, config: &SprtConfig) -> Result<f64, StatsError> {
        config.llr(&self.pairs.counts_by_score())
    }

    /// fastchess's head-to-head summary lines (its `output_fastchess.hpp`, pentanomial reporting): Elo and nElo
    /// with 95 % errors, LOS and draw ratios, the game counts, `Ptnml(0-2)` and, with an SPRT, the LLR line and,
    /// once a bound is reached, fastchess's `SPRT (…) completed` line.
    pub fn summary(&self, sprt: Option<&SprtConfig>) -> String {
        let g = &self.games;
        let p = &self.pairs;
        let points = g.wins as f64 + g.draws as f64 / 2.0;
        let pairs = p.pairs() as f64;
        let mut lines = vec![format!("Results of {} vs {}:", self.first, self.second)];
        let estimate = if p.pairs() > 0 { p.estimate() } else { g.estimate() };
        match estimate {
            Ok(e) => {
                lines.push(format!(
                    "Elo: {:.2} +/- {:.2}, nElo: {:.2} +/- {:.2}",
                    e.elo, e.elo_error, e.nelo, e.nelo_error
                ));
                lines.push(format!(
                    "LOS: {:.2} %, DrawRatio: {:.2} %, PairsRatio: {:.2}",
                    e.los * 100.0,
                    (p.wl + p.dd) as f64 / pairs * 100.0,
                    (p.ww + p.wd) as f64 / (p.ld + p.ll) as f64
                ));
            }
            Err(e) => lines.push(format!("Elo: {e}")),
        }
        lines.push(format!(
            "Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({:.2} %)",
            g.games(),
            g.wins,
            g.losses,
            g.draws,
            points / g.games() as f64 * 100.0
        ));
        let c = p.counts_by_score();
        lines.push(format!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {:.2}",
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            p.wl as f64 / p.dd as f64
        ));
        if let Some(config) = sprt {
            let (lower, upper) = config.bounds();
            let hypotheses = format!("[{:.2}, {:.2}]", config.elo0, config.elo1);
            match self.llr(config) {
                Ok(llr) => {
                    let fraction = if llr >= 0.0 { llr / upper } else { -llr / lower };
                    lines.push(format!(
                        "LLR: {llr:.2} ({:.1}%) ({lower:.2}, {upper:.2}) {hypotheses}",
                        fraction * 100.0
                    ));
                    match config.decide(llr) {
                        SprtDecision::AcceptH0 => {
                            lines.push(format!("SPRT ({hypotheses}) completed - H0 was accepted"))
                        }
                        SprtDecision::AcceptH1 => {
                            lines.push(format!("SPRT ({hypotheses}) completed - H1 was accepted"))
                        }
                        SprtDecision::Continue => {}
                    }
                }
                Err(e) => lines.push(format!("LLR: {e}")),
            }
        }
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_speaks_fastchess() {
        let mut tally = PairingTally::new("smooth", "legacy");
        // Pairs from smooth's side: WW, WD, DD, WL, LD, so 4 wins, 4 draws and 2 losses.
        tally.pairs = Pentanomial::from_six([0, 1, 1, 1, 1, 1]);
        tally.games = Trinomial { wins: 4, draws: 4, losses: 2 };
        let config =
            SprtConfig { elo0: 0.0, elo1: 5.0, alpha: 0.05, beta: 0.05, model: crate::stats::EloModel::Normalized };
        let text = tally.summary(Some(&config));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Results of smooth vs legacy:");
        assert!(lines[1].starts_with("Elo: ") && lines[1].contains(" +/- ") && lines[1].contains(", nElo: "), "{text}");
        assert!(lines[2].starts_with("LOS: ") && lines[2].contains("DrawRatio: 40.00 %, PairsRatio: 2.00"), "{text}");
        assert_eq!(lines[3], "Games: 10, Wins: 4, Losses: 2, Draws: 4, Points: 6.0 (60.00 %)");
        assert_eq!(lines[4], "Ptnml(0-2): [0, 1, 2, 1, 1], WL/DD Ratio: 1.00");
        assert!(lines[5].starts_with("LLR: ") && lines[5].ends_with(" (-2.94, 2.94) [0.00, 5.00]"), "{text}");
    }
}
