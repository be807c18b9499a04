//! Generalised SPRT: log-likelihood ratios under the logistic, normalised and BayesElo models
//! (docs/lc0/match-statistics.md §7.4).

use serde::{Deserialize, Serialize};

use super::elo::{elo_to_score, NELO_SCALE};
use super::StatsError;

/// Count given to an empty cell before a likelihood is computed, so that no probability is zero (fishtest).
pub const EMPTY_CELL_COUNT: f64 = 1e-3;

/// Largest change of any probability at which the normalised-model fixed point counts as converged (fishtest).
const NORMALIZED_MLE_TOLERANCE: f64 = 1e-9;

/// Most fixed-point rounds of the normalised-model MLE (fishtest and fastchess both use 10).
const NORMALIZED_MLE_ROUNDS: usize = 10;

/// How the two hypotheses' Elo values are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EloModel {
    /// Logistic Elo (fishtest `LLR_logistic`).
    Logistic,
    /// Normalised Elo (fastchess default, fishtest `LLR_normalized`).
    Normalized,
}

/// The hypotheses and error rates of one SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtConfig {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative hypothesis.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
    /// How `elo0` and `elo1` are read.
    pub model: EloModel,
}

/// What an SPRT says after the samples seen so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// Neither bound reached: keep playing.
    Continue,
    /// LLR at or below the lower bound: H0 (Elo = elo0) accepted.
    AcceptH0,
    /// LLR at or above the upper bound: H1 (Elo = elo1) accepted.
    AcceptH1,
}

/// The `--sprt` words that give this test (`elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized`), so that a
/// message can name the test to repeat.
impl std::fmt::Display for SprtConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let model = match self.model {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        };
        write!(f, "elo0={} elo1={} alpha={} beta={} model={model}", self.elo0, self.elo1, self.alpha, self.beta)
    }
}

impl SprtConfig {
    /// Checks that the error rates are probabilities and the hypotheses differ, so the bounds are finite.
    pub fn validate(&self) -> Result<(), StatsError> {
        let rate_ok = |r: f64| r > 0.0 && r < 1.0;
        if !rate_ok(self.alpha) || !rate_ok(self.beta) || self.alpha + self.beta >= 1.0 {
            return Err(StatsError::BadErrorRates { alpha: self.alpha, beta: self.beta });
        }
        if !(self.elo0.is_finite() && self.elo1.is_finite() && self.elo0 < self.elo1) {
            return Err(StatsError::BadHypotheses { elo0: self.elo0, elo1: self.elo1 });
        }
        Ok(())
    }

    /// Wald's bounds `(ln(β/(1 − α)), ln((1 − β)/α))`.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The decision for a given LLR.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr <= lower {
            SprtDecision::AcceptH0
        } else if llr >= upper {
            SprtDecision::AcceptH1
        } else {
            SprtDecision::Continue
        }
    }

    /// LLR of counts of evenly spaced scores 0..=1 in ascending order: 3 cells (L, D, W) or 5 (pair scores).
    pub fn llr(&self, counts: &[u64]) -> Result<f64, StatsError> {
        let sample = Sample::regularized(counts)?;
        let (pmf0, pmf1) = match self.model {
            EloModel::Logistic => {
                (sample.mle_with_mean(elo_to_score(self.elo0))?, sample.mle_with_mean(elo_to_score(self.elo1))?)
            }
            EloModel::Normalized => {
                let per_sample = if counts.len() == 5 { std::f64::consts::SQRT_2 } else { 1.0 };
                let t = |nelo: f64| nelo / NELO_SCALE * per_sample;
                (sample.mle_with_t_value(t(self.elo0))?, sample.mle_with_t_value(t(self.elo1))?)
            }
        };
        Ok(sample.log_likelihood_ratio(&pmf0, &pmf1))
    }
}

/// Regularised empirical distribution of sample scores.
struct Sample {
    values: Vec<f64>,
    pmf: Vec<f64>,
    count: f64,
}

impl Sample {
    fn regularized(counts: &[u64]) -> Result<Self, StatsError> {
        if counts.len() != 3 && counts.len() != 5 {
            return Err(StatsError::BadCellCount(counts.len()));
        }
        if counts.iter().all(|&c| c == 0) {
            return Err(StatsError::NoGames);
        }
        let cells: Vec<f64> = counts.iter().map(|&c| (c as f64).max(EMPTY_CELL_COUNT)).collect();
        let count: f64 = cells.iter().sum();
        let step = 1.0 / (counts.len() - 1) as f64;
        Ok(Sample {
            values: (0..counts.len()).map(|i| i as f64 * step).collect(),
            pmf: cells.iter().map(|c| c / count).collect(),
            count,
        })
    }

    fn log_likelihood_ratio(&self, pmf0: &[f64], pmf1: &[f64]) -> f64 {
        let per_sample: f64 = self.pmf.iter().zip(pmf0.iter().zip(pmf1)).map(|(p, (p0, p1))| p * (p1 / p0).ln()).sum();
        self.count * per_sample
    }

    /// Maximum-likelihood pmf on the sample's support whose mean is `mean` (logistic model).
    fn mle_with_mean(&self, mean: f64) -> Result<Vec<f64>, StatsError> {
        let shifted: Vec<f64> = self.values.iter().map(|a| a - mean).collect();
        let theta = solve_secular(&self.pmf, &shifted)?;
        Ok(self.pmf.iter().zip(&shifted).map(|(p, x)| p / (1.0 + theta * x)).collect())
    }

    /// Maximum-likelihood pmf whose normalised score excess `(μ − ½)/σ` equals `t` (normalised model).
    fn mle_with_t_value(&self, t: f64) -> Result<Vec<f64>, StatsError> {
        let mut pmf = vec![1.0 / self.values.len() as f64; self.values.len()];
        for _ in 0..NORMALIZED_MLE_ROUNDS {
            let mu: f64 = pmf.iter().zip(&self.values).map(|(p, a)| p * a).sum();
            let sigma = pmf.iter().zip(&self.values).map(|(p, a)| p * (a - mu) * (a - mu)).sum::<f64>().sqrt();
            let phi: Vec<f64> =
                self.values.iter().map(|a| a - 0.5 - t * sigma * (1.0 + ((a - mu) / sigma).powi(2)) / 2.0).collect();
            let theta = solve_secular(&self.pmf, &phi)?;
            let next: Vec<f64> = self.pmf.iter().zip(&phi).map(|(p, x)| p / (1.0 + theta * x)).collect();
            let change = next.iter().zip(&pmf).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            pmf = next;
            if change < NORMALIZED_MLE_TOLERANCE {
                break;
            }
        }
        Ok(pmf)
    }
}

/// Root `θ` of `Σ pᵢxᵢ/(1 + θxᵢ) = 0` on `(−1/max x, −1/min x)`, where the left side falls strictly.
///
/// Bisection down to adjacent floating-point numbers: slower than Brent's method but exact to the last bit.
fn solve_secular(pmf: &[f64], x: &[f64]) -> Result<f64, StatsError> {
    let min = x.iter().copied().fold(f64::INFINITY, f64::min);
    let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min < 0.0 && max > 0.0) {
        return Err(StatsError::HypothesisOutsideSupport);
    }
    let f = |theta: f64| -> f64 { pmf.iter().zip(x).map(|(p, xi)| p * xi / (1.0 + theta * xi)).sum() };
    let (mut low, mut high) = (-1.0 / max, -1.0 / min);
    loop {
        let mid = low + (high - low) / 2.0;
        if mid <= low || mid >= high {
            return Ok(mid);
        }
        if f(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
}

/// OpenBench's trinomial BayesElo LLR: `Σ Rᵢ ln(P1ᵢ/P0ᵢ)` with the draw Elo estimated from the sample.
///
/// `elo0` and `elo1` are BayesElo; needs at least one loss, one draw and one win.
pub fn bayeselo_llr(results: [u64; 3], elo0: f64, elo1: f64) -> Result<f64, StatsError> {
    if results.contains(&0) {
        return Err(StatsError::BayesEloNeedsEveryResult);
    }
    let [losses, draws, wins] = results.map(|r| r as f64);
    let games = losses + draws + wins;
    let (l, w) = (losses / games, wins / games);
    let draw_elo = 200.0 * ((1.0 - l) / l * (1.0 - w) / w).log10();
    let probabilities = |elo: f64| {
        let win = 1.0 / (1.0 + 10f64.powf((-elo + draw_elo) / 400.0));
        let loss = 1.0 / (1.0 + 10f64.powf((elo + draw_elo) / 400.0));
        [loss, 1.0 - win - loss, win]
    };
    let (p0, p1) = (probabilities(elo0), probabilities(elo1));
    Ok([losses, draws, wins].iter().zip(p0.iter().zip(p1)).map(|(r, (a, b))| r * (b / a).ln()).sum())
}
