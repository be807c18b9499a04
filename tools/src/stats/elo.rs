//! Elo, normalised Elo and likelihood of superiority from trinomial or pentanomial counts
//! (docs/lc0/match-statistics.md §7.2–7.3).

use libm::{erf, erfc};
use serde::{Deserialize, Serialize};

use super::StatsError;

/// Two-sided 95 % quantile of the standard normal distribution, as fastchess and fishtest use it.
pub const Z_95: f64 = 1.959963984540054;

/// Normalised-Elo scale `800 / ln 10`: converts a score per standard deviation into nElo.
pub const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// Expected score of a player who is `elo` points stronger (`L(x)` of docs/lc0/match-statistics.md §7.1).
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference that produces the expected score `score` (`E(s)` of docs/lc0/match-statistics.md §7.1); ±∞ at
/// 0 and 1.
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Standard normal cumulative distribution function `Φ`.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Per-game results of the first engine: wins, draws and losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trinomial {
    /// Games the first engine won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games the first engine lost.
    pub losses: u64,
}

impl Trinomial {
    /// Number of games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Counts in ascending score order (loss, draw, win), the order the likelihood functions expect.
    pub fn counts_by_score(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }

    /// Adds one game scored 0, ½ or 1 from the first engine's view.
    pub fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Win => self.wins += 1,
            Outcome::Draw => self.draws += 1,
            Outcome::Loss => self.losses += 1,
        }
    }

    /// Elo, error, nElo and LOS over games (docs/lc0/match-statistics.md §7.2).
    pub fn estimate(&self) -> Result<EloEstimate, StatsError> {
        EloEstimate::from_counts(&self.counts_by_score(), 1.0)
    }
}

/// One game's result from one engine's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Scored 1.
    Win,
    /// Scored ½.
    Draw,
    /// Scored 0.
    Loss,
}

impl Outcome {
    /// The game score: 1, ½ or 0.
    pub fn score(self) -> f64 {
        match self {
            Outcome::Win => 1.0,
            Outcome::Draw => 0.5,
            Outcome::Loss => 0.0,
        }
    }

    /// The same game seen by the opponent.
    pub fn reversed(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }
}

/// Results of game pairs (same opening, colours swapped) from the first engine's point of view.
///
/// WL and DD are kept apart for display but merged into one class by every statistic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Both games lost.
    pub ll: u64,
    /// One loss, one draw.
    pub ld: u64,
    /// One win, one loss.
    pub wl: u64,
    /// Both games drawn.
    pub dd: u64,
    /// One win, one draw.
    pub wd: u64,
    /// Both games won.
    pub ww: u64,
}

impl Pentanomial {
    /// Builds counts from the six-cell form `[LL, LD, WL, DD, WD, WW]` used by the reference vectors.
    pub fn from_six(cells: [u64; 6]) -> Self {
        let [ll, ld, wl, dd, wd, ww] = cells;
        Pentanomial { ll, ld, wl, dd, wd, ww }
    }

    /// Number of pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts_by_score().iter().sum()
    }

    /// Counts of pair scores 0, ½, 1, 1½, 2 (fastchess's `Ptnml(0-2)`), WL and DD merged.
    pub fn counts_by_score(&self) -> [u64; 5] {
        [self.ll, self.ld, self.wl + self.dd, self.wd, self.ww]
    }

    /// Adds one finished pair given both games' outcomes for the first engine.
    pub fn add_pair(&mut self, first: Outcome, second: Outcome) {
        use Outcome::*;
        match (first, second) {
            (Loss, Loss) => self.ll += 1,
            (Loss, Draw) | (Draw, Loss) => self.ld += 1,
            (Win, Loss) | (Loss, Win) => self.wl += 1,
            (Draw, Draw) => self.dd += 1,
            (Win, Draw) | (Draw, Win) => self.wd += 1,
            (Win, Win) => self.ww += 1,
        }
    }

    /// Elo, error, nElo and LOS over pairs (docs/lc0/match-statistics.md §7.3).
    pub fn estimate(&self) -> Result<EloEstimate, StatsError> {
        EloEstimate::from_counts(&self.counts_by_score(), 2.0)
    }
}

/// Strength estimate of the first engine with 95 % errors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Mean score per game in [0, 1].
    pub score: f64,
    /// Variance of one sample's score (a game, or a pair's mean score).
    pub variance: f64,
    /// Logistic Elo difference.
    pub elo: f64,
    /// Half-width of the 95 % interval of `elo`.
    pub elo_error: f64,
    /// Normalised Elo: score excess per standard deviation of a game, times `NELO_SCALE`.
    pub nelo: f64,
    /// Half-width of the 95 % interval of `nelo`.
    pub nelo_error: f64,
    /// Likelihood of superiority, `Φ((s − ½)/SE)`, in [0, 1].
    pub los: f64,
}

impl EloEstimate {
    /// Estimates from counts of evenly spaced sample scores 0..=1; `games_per_sample` is 1 for games, 2 for pairs.
    fn from_counts(counts: &[u64], games_per_sample: f64) -> Result<Self, StatsError> {
        let samples: u64 = counts.iter().sum();
        if samples == 0 {
            return Err(StatsError::NoGames);
        }
        let n = samples as f64;
        let step = 1.0 / (counts.len() - 1) as f64;
        let mean_of = |f: &dyn Fn(f64) -> f64| -> f64 {
            counts.iter().enumerate().map(|(i, &c)| c as f64 / n * f(i as f64 * step)).sum()
        };
        let score = mean_of(&|a| a);
        let variance = mean_of(&|a| (a - score) * (a - score));
        if variance <= 0.0 {
            return Err(StatsError::ZeroVariance);
        }
        let standard_error = (variance / n).sqrt();
        let low = (score - Z_95 * standard_error).max(0.0);
        let high = (score + Z_95 * standard_error).min(1.0);
        let game_sigma = (games_per_sample * variance).sqrt();
        Ok(EloEstimate {
            score,
            variance,
            elo: score_to_elo(score),
            elo_error: (score_to_elo(high) - score_to_elo(low)) / 2.0,
            nelo: (score - 0.5) / game_sigma * NELO_SCALE,
            nelo_error: Z_95 * standard_error / game_sigma * NELO_SCALE,
            los: normal_cdf((score - 0.5) / standard_error),
        })
    }
}

/// lc0 selfplay's `tournamentstatus` numbers (docs/lc0/backends.md §6.7): Elo of the score and a LOS that ignores
/// draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lc0TournamentStatus {
    /// `−400·log10(1/p − 1)`, `None` unless 0 < p < 1.
    pub elo: Option<f64>,
    /// `½ + ½·erf((W − L)/sqrt(2(W + L)))`, `None` unless W + L > 0.
    pub los: Option<f64>,
}

impl Lc0TournamentStatus {
    /// Computes lc0's summary numbers so that Kairos output can be compared with lc0 selfplay logs.
    pub fn from_counts(counts: &Trinomial) -> Self {
        let games = counts.games() as f64;
        let p = (counts.wins as f64 + counts.draws as f64 / 2.0) / games;
        let decisive = (counts.wins + counts.losses) as f64;
        let difference = counts.wins as f64 - counts.losses as f64;
        Lc0TournamentStatus {
            elo: (p > 0.0 && p < 1.0).then(|| score_to_elo(p)),
            los: (decisive > 0.0).then(|| 0.5 + 0.5 * erf(difference / (2.0 * decisive).sqrt())),
        }
    }
}
