//! Moves-left estimators: how many own (full) moves the game still has, for every manager that needs it.
//!
//! Units: every estimator returns **full moves** (own moves left). Ply-based laws (`ahle`, `lognormal`, the
//! network's head) are halved on the way out; the game ply always counts half-moves from the game start.

use statrs::function::erf::erfc;

use crate::options::registry::{AhleKeys, FixedKeys, LognormalKeys, MleLegacyKeys, MlhKeys, PiecesKeys};
use crate::options::{ComponentConfig, OptionError};
use crate::search_stats::MoveContext;

/// A configured moves-left estimator.
#[derive(Clone, Debug, PartialEq)]
pub enum MovesLeftEstimator {
    /// lc0's log-logistic median residual life, in f32 (docs/lc0/time-managers.md §2.5).
    MleLegacy {
        /// Median game length in full moves.
        midpoint: f32,
        /// Log-logistic shape.
        steepness: f32,
        /// How many games `midpoint` counts as beside the games played (0: the midpoint is fixed).
        follow_games: f32,
    },
    /// Ahle's rational fit of plies left.
    Ahle,
    /// Mean residual life of a lognormal game length in plies.
    Lognormal {
        /// Mean of ln(plies).
        mu: f64,
        /// Standard deviation of ln(plies).
        sigma: f64,
    },
    /// Linear in the number of pieces on the board.
    Pieces {
        /// Moves left with 32 pieces.
        full_board_moves: f64,
        /// Moves left with two pieces.
        bare_moves: f64,
    },
    /// The network's moves-left head, else the fallback.
    Mlh {
        /// Multiplier of the head's estimate.
        scale: f64,
        /// Used when the network has no moves-left head.
        fallback: Box<MovesLeftEstimator>,
    },
    /// A constant.
    Fixed {
        /// Full moves left.
        moves: f64,
    },
}

/// An estimate and, when the estimator could not use its preferred input, why.
#[derive(Clone, Debug, PartialEq)]
pub struct MovesLeft {
    /// Full moves left (f32, as lc0's managers compute).
    pub moves: f32,
    /// Set when the estimator fell back to something else.
    pub fallback: Option<String>,
}

impl MovesLeftEstimator {
    /// Builds an estimator from its validated configuration; `fallback` serves `mlh` without a head. An
    /// estimator in the registry that is not built here is a bug, reported as [`OptionError::Inconsistent`].
    pub fn from_config(config: &ComponentConfig, fallback: MovesLeftEstimator) -> Result<Self, OptionError> {
        Ok(match config.spec().name {
            "mle-legacy" => {
                let keys: MleLegacyKeys = config.keys()?;
                Self::MleLegacy { midpoint: keys.midpoint, steepness: keys.steepness, follow_games: keys.follow_games }
            }
            "ahle" => {
                let AhleKeys {} = config.keys()?;
                Self::Ahle
            }
            "lognormal" => {
                let keys: LognormalKeys = config.keys()?;
                Self::Lognormal { mu: keys.mu, sigma: keys.sigma }
            }
            "pieces" => {
                let keys: PiecesKeys = config.keys()?;
                Self::Pieces { full_board_moves: keys.full_board_moves, bare_moves: keys.bare_moves }
            }
            "mlh" => Self::Mlh { scale: config.keys::<MlhKeys>()?.scale, fallback: Box::new(fallback) },
            "fixed" => Self::Fixed { moves: config.keys::<FixedKeys>()?.moves },
            other => {
                return Err(OptionError::Inconsistent {
                    component: other.to_owned(),
                    reason: "registered but not buildable; this is a bug in the registry".to_owned(),
                })
            }
        })
    }

    /// Full moves left for the side to move.
    pub fn moves_left(&self, ctx: &MoveContext) -> MovesLeft {
        let plain = |moves: f32| MovesLeft { moves, fallback: None };
        let ply = ctx.game_ply;
        match self {
            Self::MleLegacy { midpoint, steepness, follow_games } => {
                plain(mle_legacy(ply, ctx.played_games.median_moves(*midpoint, *follow_games), *steepness))
            }
            Self::Ahle => plain((ahle_plies_left(f64::from(ply)) / 2.0) as f32),
            Self::Lognormal { mu, sigma } => plain((lognormal_plies_left(f64::from(ply), *mu, *sigma) / 2.0) as f32),
            Self::Pieces { full_board_moves, bare_moves } => {
                if ctx.piece_count < 2 {
                    return MovesLeft {
                        moves: *full_board_moves as f32,
                        fallback: Some("piece count unknown: assumed 32 pieces".to_owned()),
                    };
                }
                let share = f64::from(ctx.piece_count.min(32) - 2) / 30.0;
                plain((bare_moves + (full_board_moves - bare_moves) * share) as f32)
            }
            Self::Mlh { scale, fallback } => {
                match ctx.network_moves_left_plies.filter(|m| m.is_finite() && *m >= 0.0) {
                    Some(plies) => plain((f64::from(plies) / 2.0 * scale).max(1.0) as f32),
                    None => {
                        let estimate = fallback.moves_left(ctx);
                        MovesLeft {
                            fallback: Some(format!("no moves-left head: used {}", fallback.name())),
                            ..estimate
                        }
                    }
                }
            }
            Self::Fixed { moves } => plain(*moves as f32),
        }
    }

    /// The registry name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::MleLegacy { .. } => "mle-legacy",
            Self::Ahle => "ahle",
            Self::Lognormal { .. } => "lognormal",
            Self::Pieces { .. } => "pieces",
            Self::Mlh { .. } => "mlh",
            Self::Fixed { .. } => "fixed",
        }
    }
}

/// lc0's estimator in f32: `a·(1 + 2·(m/a)^b)^(1/b) − m` with `m = ply/2`, in full moves.
pub fn mle_legacy(ply: u32, midpoint: f32, steepness: f32) -> f32 {
    let moves = ply as f32 / 2.0;
    midpoint * (1.0 + 2.0 * (moves / midpoint).powf(steepness)).powf(1.0 / steepness) - moves
}

/// Ahle's fit of the plies left after `k` plies: `59.3 + (72830 − 2330k)/(k² + 10k + 2644)`.
pub fn ahle_plies_left(k: f64) -> f64 {
    59.3 + (72830.0 - 2330.0 * k) / (k * k + 10.0 * k + 2644.0)
}

/// `E[X | X > k] − k` for a game length `X ~ lognormal(mu, sigma)` in plies:
/// `e^(μ+σ²/2)·Φ((μ+σ²−ln k)/σ) / Φ((μ−ln k)/σ) − k`, with `Φ(z) = erfc(−z/√2)/2` (exact in the tail).
pub fn lognormal_plies_left(k: f64, mu: f64, sigma: f64) -> f64 {
    let mean = (mu + sigma * sigma / 2.0).exp();
    if k <= 0.0 {
        return mean;
    }
    let z = (mu - k.ln()) / sigma;
    let upper_cdf = |x: f64| erfc(-x / std::f64::consts::SQRT_2) / 2.0;
    let ratio = upper_cdf(z + sigma) / upper_cdf(z);
    if ratio.is_finite() && ratio > 0.0 {
        (mean * ratio - k).max(0.0)
    } else {
        // Both tails underflowed: the Mills-ratio asymptote of the residual mean, k·σ²/(ln k − μ).
        k * sigma * sigma / (k.ln() - mu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search_stats::PlayedGames;

    #[test]
    fn ahle_at_game_start_is_86_8_plies() {
        assert!((ahle_plies_left(0.0) - (59.3 + 72830.0 / 2644.0)).abs() < 1e-12);
        // k = 100: 59.3 + (72830 − 233000)/(10000 + 1000 + 2644) = 59.3 − 160170/13644.
        assert!((ahle_plies_left(100.0) - (59.3 - 160170.0 / 13644.0)).abs() < 1e-12);
    }

    #[test]
    fn lognormal_residual_matches_numerical_integration() {
        let (mu, sigma) = (4.2485, 0.5627);
        for k in [0.0, 20.0, 80.0, 200.0, 400.0] {
            // E[X − k | X > k] = ∫_k^∞ S(x) dx / S(k), S the survival function; trapezoid rule in x.
            let survival =
                |x: f64| if x <= 0.0 { 1.0 } else { erfc((x.ln() - mu) / sigma / std::f64::consts::SQRT_2) / 2.0 };
            let (mut integral, step) = (0.0, 0.01);
            let mut x = k;
            while x < 20000.0 {
                integral += (survival(x) + survival(x + step)) / 2.0 * step;
                x += step;
            }
            let expected = integral / survival(k);
            let got = lognormal_plies_left(k, mu, sigma);
            assert!((got - expected).abs() < 1e-3 * expected, "k={k}: {got} vs {expected}");
        }
    }

    /// Hand-worked: games of 30 and 60 full moves beside a midpoint of 50 counted as two games give the median
    /// (50²·30·60)^(1/4) = 4,500,000^(1/4) = 46.0578; at the game's start lc0's law returns its midpoint.
    #[test]
    fn mle_legacy_follows_the_games_played_when_asked() {
        let mut played = PlayedGames::default();
        played.record_game_plies(60);
        played.record_game_plies(120);
        let ctx = MoveContext { played_games: played, ..MoveContext::default() };
        let following = MovesLeftEstimator::MleLegacy { midpoint: 50.0, steepness: 7.0, follow_games: 2.0 };
        assert!((following.moves_left(&ctx).moves - 46.0578).abs() < 1e-3, "{:?}", following.moves_left(&ctx));
        let fixed = MovesLeftEstimator::MleLegacy { midpoint: 50.0, steepness: 7.0, follow_games: 0.0 };
        assert_eq!(fixed.moves_left(&ctx).moves, 50.0);
        let no_games = MoveContext::default();
        assert_eq!(following.moves_left(&no_games).moves, 50.0);
        // Later in the game the law moves with its midpoint: at ply 80 (m = 40) a·(1 + 2·(40/a)^7)^(1/7) − 40.
        let at_80 = MoveContext { game_ply: 80, ..ctx };
        let a = 46.0578f32;
        let expected = a * (1.0 + 2.0 * (40.0 / a).powf(7.0)).powf(1.0 / 7.0) - 40.0;
        assert!((following.moves_left(&at_80).moves - expected).abs() < 1e-3);
    }

    #[test]
    fn lognormal_far_tail_stays_finite_and_positive() {
        let far = lognormal_plies_left(4e9, 4.2485, 0.5627);
        assert!(far.is_finite() && far > 0.0, "{far}");
    }
}
