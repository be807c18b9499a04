//! Simultaneous-perturbation stochastic approximation (SPSA), generic over what is measured.
//!
//! Reference: J. C. Spall, "Implementation of the simultaneous perturbation algorithm for stochastic
//! optimization", IEEE Transactions on Aerospace and Electronic Systems 34(3), 1998. At iteration k (from 0) the
//! gains are a_k = a / (k + 1 + A)^alpha and c_k = c / (k + 1)^gamma with alpha = 0.602, gamma = 0.101 and the
//! stability constant A = 10 % of the iterations (Spall's §III recommendations). Every parameter moves in units of
//! its own tuning step, so one pair of scalars a, c serves parameters of any scale. Each iteration draws a
//! Bernoulli ±1 vector Δ_k, measures θ + c_k Δ_k against θ − c_k Δ_k and climbs the score:
//! θ ← θ + a_k (y₊ − y₋) / (2 c_k Δ_k), clamped to each parameter's bounds.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Spall's recommended exponent of the learning-rate decay.
pub const SPALL_ALPHA: f64 = 0.602;
/// Spall's recommended exponent of the perturbation decay.
pub const SPALL_GAMMA: f64 = 0.101;
/// The stability constant A as a fraction of the planned iterations (Spall: about 10 %).
pub const STABILITY_FRACTION: f64 = 0.1;
/// The score difference y₊ − y₋ that the default `a` turns into a one-step move at the first iteration.
pub const DEFAULT_FIRST_DIFFERENCE: f64 = 0.5;

/// One tuned parameter: where it starts, the box it must stay in and the size of a meaningful change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaParam {
    /// The key being tuned (e.g. `max-move-budget` or `mle-legacy.midpoint`).
    pub name: String,
    /// Starting value.
    pub start: f64,
    /// Smallest value tried.
    pub min: f64,
    /// Largest value tried.
    pub max: f64,
    /// Unit in which perturbations and updates are measured (the registry's tuning step).
    pub step: f64,
}

/// The gain sequences a_k and c_k, in units of each parameter's step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gains {
    /// Learning-rate numerator a.
    pub a: f64,
    /// Perturbation size c at the first iteration.
    pub c: f64,
    /// Stability constant A.
    pub stability: f64,
    /// Learning-rate exponent alpha.
    pub alpha: f64,
    /// Perturbation exponent gamma.
    pub gamma: f64,
}

impl Gains {
    /// Spall's schedule for `iterations` iterations; without `a`, picks it so that a score difference of
    /// [`DEFAULT_FIRST_DIFFERENCE`] moves every parameter by one step at the first iteration.
    pub fn spall(iterations: u64, a: Option<f64>, c: f64) -> Self {
        let stability = (STABILITY_FRACTION * iterations as f64).floor();
        let a = a.unwrap_or_else(|| 2.0 * c * (1.0 + stability).powf(SPALL_ALPHA) / DEFAULT_FIRST_DIFFERENCE);
        Gains { a, c, stability, alpha: SPALL_ALPHA, gamma: SPALL_GAMMA }
    }

    /// c_k: the perturbation of iteration `k`, in steps.
    pub fn perturbation(&self, k: u64) -> f64 {
        self.c / (k as f64 + 1.0).powf(self.gamma)
    }

    /// a_k: the learning rate of iteration `k`.
    pub fn learning_rate(&self, k: u64) -> f64 {
        self.a / (k as f64 + 1.0 + self.stability).powf(self.alpha)
    }
}

/// What one iteration measured, in exact game units: points are counted in half points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trial {
    /// Twice the points the θ + c_k Δ_k side scored.
    pub plus_half_points: u64,
    /// Games the θ + c_k Δ_k side played.
    pub plus_games: u64,
    /// Twice the points the θ − c_k Δ_k side scored.
    pub minus_half_points: u64,
    /// Games the θ − c_k Δ_k side played.
    pub minus_games: u64,
}

impl Trial {
    /// y₊ − y₋: the difference of the two sides' mean scores (each in [0, 1]); 0 for a side without games.
    pub fn score_difference(&self) -> f64 {
        let mean = |half_points: u64, games: u64| {
            if games == 0 {
                0.5
            } else {
                half_points as f64 / (2.0 * games as f64)
            }
        };
        mean(self.plus_half_points, self.plus_games) - mean(self.minus_half_points, self.minus_games)
    }
}

/// Something that can compare two parameter vectors by playing (or simulating) games.
pub trait Objective {
    /// Why a measurement failed.
    type Error;

    /// Measures `plus` against `minus` at iteration `iteration`; a higher score is better.
    fn measure(&mut self, iteration: u64, plus: &[f64], minus: &[f64]) -> Result<Trial, Self::Error>;
}

/// The two points an iteration compares.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    /// The iteration, from 0.
    pub iteration: u64,
    /// Δ_k: +1 or −1 per parameter.
    pub signs: Vec<i8>,
    /// c_k in steps.
    pub perturbation: f64,
    /// θ + c_k Δ_k, clamped to the bounds.
    pub plus: Vec<f64>,
    /// θ − c_k Δ_k, clamped to the bounds.
    pub minus: Vec<f64>,
}

/// One finished iteration: what was compared, what came out and where θ went.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The comparison.
    pub proposal: Proposal,
    /// a_k.
    pub learning_rate: f64,
    /// The measurement.
    pub trial: Trial,
    /// θ after the update.
    pub theta: Vec<f64>,
}

/// Settings that SPSA cannot run with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpsaError {
    /// Nothing to tune.
    #[error("no parameters to tune: give at least one --param NAME=START:MIN:MAX")]
    NoParameters,
    /// A parameter's box or step is unusable.
    #[error("parameter {name}: {reason}")]
    BadParameter {
        /// The parameter.
        name: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// a or c is not a positive finite number.
    #[error("SPSA gains a={a}, c={c} must be positive and finite")]
    BadGains {
        /// The learning-rate numerator.
        a: f64,
        /// The perturbation size.
        c: f64,
    },
    /// A replayed iteration does not fit the run being rebuilt.
    #[error("iteration {iteration} does not fit this run: {reason}")]
    ReplayMismatch {
        /// The iteration.
        iteration: u64,
        /// What differs.
        reason: String,
    },
}

/// The optimiser's state: θ, the next iteration and the seed from which every Δ_k is drawn.
#[derive(Clone, Debug)]
pub struct Spsa {
    params: Vec<SpsaParam>,
    gains: Gains,
    seed: u64,
    theta: Vec<f64>,
    iteration: u64,
}

impl Spsa {
    /// Starts at each parameter's start value, after checking boxes, steps and gains.
    pub fn new(params: Vec<SpsaParam>, gains: Gains, seed: u64) -> Result<Self, SpsaError> {
        if params.is_empty() {
            return Err(SpsaError::NoParameters);
        }
        for p in &params {
            let bad = |reason: String| SpsaError::BadParameter { name: p.name.clone(), reason };
            if !(p.min.is_finite() && p.max.is_finite() && p.min < p.max) {
                return Err(bad(format!("bounds {}:{} need MIN < MAX, both finite", p.min, p.max)));
            }
            if !(p.start >= p.min && p.start <= p.max) {
                return Err(bad(format!("start {} lies outside its bounds [{}, {}]", p.start, p.min, p.max)));
            }
            if !(p.step.is_finite() && p.step > 0.0) {
                return Err(bad(format!("tuning step {} must be positive", p.step)));
            }
        }
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !(positive(gains.a) && positive(gains.c)) {
            return Err(SpsaError::BadGains { a: gains.a, c: gains.c });
        }
        let theta = params.iter().map(|p| p.start).collect();
        Ok(Spsa { params, gains, seed, theta, iteration: 0 })
    }

    /// The parameters being tuned.
    pub fn params(&self) -> &[SpsaParam] {
        &self.params
    }

    /// The gain schedule.
    pub fn gains(&self) -> Gains {
        self.gains
    }

    /// The current θ.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// The next iteration to run (the number finished so far).
    pub fn iteration(&self) -> u64 {
        self.iteration
    }

    /// Δ_k, drawn from ChaCha8 stream k of the seed, so that any iteration's draw is known without replaying.
    fn signs(&self, k: u64) -> Vec<i8> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(k);
        self.params.iter().map(|_| if rng.random::<bool>() { 1 } else { -1 }).collect()
    }

    /// The comparison the next iteration makes.
    pub fn propose(&self) -> Proposal {
        let k = self.iteration;
        let signs = self.signs(k);
        let perturbation = self.gains.perturbation(k);
        let shifted = |direction: f64| -> Vec<f64> {
            self.params
                .iter()
                .zip(&self.theta)
                .zip(&signs)
                .map(|((p, &x), &s)| (x + direction * perturbation * f64::from(s) * p.step).clamp(p.min, p.max))
                .collect()
        };
        Proposal { iteration: k, plus: shifted(1.0), minus: shifted(-1.0), signs, perturbation }
    }

    /// Applies a measurement of `proposal` (which must be the current one) and moves to the next iteration.
    fn apply(&mut self, proposal: Proposal, trial: Trial) -> Step {
        let learning_rate = self.gains.learning_rate(proposal.iteration);
        let difference = trial.score_difference();
        for ((x, p), &s) in self.theta.iter_mut().zip(&self.params).zip(&proposal.signs) {
            let gradient = difference / (2.0 * proposal.perturbation * f64::from(s));
            *x = (*x + learning_rate * gradient * p.step).clamp(p.min, p.max);
        }
        self.iteration += 1;
        Step { proposal, learning_rate, trial, theta: self.theta.clone() }
    }

    /// Runs one iteration against `objective`.
    pub fn step<O: Objective>(&mut self, objective: &mut O) -> Result<Step, O::Error> {
        let proposal = self.propose();
        let trial = objective.measure(proposal.iteration, &proposal.plus, &proposal.minus)?;
        Ok(self.apply(proposal, trial))
    }

    /// Re-applies a recorded iteration (for `--resume`), checking that its number and Δ_k are the ones this run
    /// would draw.
    pub fn replay(&mut self, iteration: u64, signs: &[i8], trial: Trial) -> Result<Step, SpsaError> {
        let proposal = self.propose();
        if iteration != proposal.iteration {
            return Err(SpsaError::ReplayMismatch {
                iteration,
                reason: format!("expected iteration {} next", proposal.iteration),
            });
        }
        if signs != proposal.signs.as_slice() {
            return Err(SpsaError::ReplayMismatch {
                iteration,
                reason: format!("perturbation signs {signs:?} differ from this seed's {:?}", proposal.signs),
            });
        }
        Ok(self.apply(proposal, trial))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(start: f64, step: f64) -> SpsaParam {
        SpsaParam { name: "x".into(), start, min: 0.0, max: 10.0, step }
    }

    #[test]
    fn gains_follow_spalls_formulas() {
        let gains = Gains::spall(200, Some(3.0), 2.0);
        assert_eq!(gains.stability, 20.0);
        assert_eq!(gains.perturbation(0), 2.0);
        assert!((gains.perturbation(9) - 2.0 / 10f64.powf(0.101)).abs() < 1e-15);
        assert!((gains.learning_rate(4) - 3.0 / 25f64.powf(0.602)).abs() < 1e-15);
        let auto = Gains::spall(200, None, 1.0);
        assert!((auto.learning_rate(0) * 0.5 / (2.0 * auto.perturbation(0)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_hand_worked_iteration() {
        let gains = Gains { a: 2.0, c: 1.0, stability: 0.0, alpha: 1.0, gamma: 1.0 };
        let mut spsa = Spsa::new(vec![param(5.0, 0.5)], gains, 7).unwrap();
        let proposal = spsa.propose();
        let s = f64::from(proposal.signs[0]);
        assert_eq!(proposal.plus, vec![5.0 + 0.5 * s]);
        assert_eq!(proposal.minus, vec![5.0 - 0.5 * s]);
        // 3 of 4 points for plus, 1 of 4 for minus: y+ - y- = 0.5; a_0 = 2, c_0 = 1, so θ moves 0.5 s steps of 0.5.
        let trial = Trial { plus_half_points: 6, plus_games: 4, minus_half_points: 2, minus_games: 4 };
        let step = spsa.replay(0, &proposal.signs, trial).unwrap();
        assert_eq!(step.theta, vec![5.0 + 0.25 * s]);
        assert_eq!(spsa.iteration(), 1);
        assert!(matches!(spsa.replay(0, &proposal.signs, trial), Err(SpsaError::ReplayMismatch { .. })));
    }

    #[test]
    fn updates_stay_inside_the_bounds() {
        let gains = Gains { a: 1000.0, c: 1.0, stability: 0.0, alpha: 0.602, gamma: 0.101 };
        let mut spsa = Spsa::new(vec![param(9.5, 1.0)], gains, 1).unwrap();
        let proposal = spsa.propose();
        assert!(proposal.plus[0] <= 10.0 && proposal.minus[0] <= 10.0);
        let trial = Trial { plus_half_points: 8, plus_games: 4, minus_half_points: 0, minus_games: 4 };
        let theta = spsa.replay(0, &proposal.signs, trial).unwrap().theta[0];
        assert!(theta == 10.0 || theta == 0.0);
    }

    #[test]
    fn bad_settings_are_refused() {
        let gains = Gains::spall(10, None, 1.0);
        assert_eq!(Spsa::new(vec![], gains, 0).err(), Some(SpsaError::NoParameters));
        assert!(matches!(Spsa::new(vec![param(11.0, 1.0)], gains, 0), Err(SpsaError::BadParameter { .. })));
        assert!(matches!(Spsa::new(vec![param(1.0, 0.0)], gains, 0), Err(SpsaError::BadParameter { .. })));
        let zero_c = Gains { c: 0.0, ..gains };
        assert!(matches!(Spsa::new(vec![param(1.0, 1.0)], zero_c, 0), Err(SpsaError::BadGains { .. })));
    }

    #[test]
    fn score_difference_is_exact_in_half_points() {
        let trial = Trial { plus_half_points: 5, plus_games: 4, minus_half_points: 3, minus_games: 4 };
        assert_eq!(trial.score_difference(), 0.25);
        assert_eq!(Trial::default().score_difference(), 0.0);
    }
}
