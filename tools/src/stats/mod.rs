//! Match statistics: Elo with errors, pentanomial counts, LOS and SPRT (docs/lc0/match-statistics.md §7).

mod elo;
mod sprt;

pub use elo::{
    elo_to_score, normal_cdf, score_to_elo, EloEstimate, Lc0TournamentStatus, Outcome, Pentanomial, Trinomial,
    NELO_SCALE, Z_95,
};
pub use sprt::{bayeselo_llr, EloModel, SprtConfig, SprtDecision, EMPTY_CELL_COUNT};

/// Why a statistic cannot be computed from the counts given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// No finished game or pair yet.
    #[error("no finished games: play at least one game (pair) before asking for statistics")]
    NoGames,
    /// Every sample has the same score, so the variance, error bars and LOS are undefined.
    #[error("every game (pair) has the same score, so errors are undefined: play more games")]
    ZeroVariance,
    /// The likelihood functions take 3 (trinomial) or 5 (pentanomial) cells.
    #[error("got {0} result cells; give 3 (loss, draw, win) or 5 (pair scores 0, 1/2, 1, 3/2, 2)")]
    BadCellCount(usize),
    /// α and β must lie in (0, 1) with α + β < 1.
    #[error("SPRT error rates alpha={alpha}, beta={beta} are invalid: each must be in (0, 1) and their sum below 1")]
    BadErrorRates {
        /// The rejected α.
        alpha: f64,
        /// The rejected β.
        beta: f64,
    },
    /// The hypotheses must be finite with elo0 < elo1.
    #[error("SPRT hypotheses elo0={elo0}, elo1={elo1} are invalid: use finite values with elo0 < elo1")]
    BadHypotheses {
        /// The rejected null hypothesis.
        elo0: f64,
        /// The rejected alternative.
        elo1: f64,
    },
    /// A hypothesis asks for a mean score outside the range of observed scores.
    #[error("an SPRT hypothesis lies outside the possible scores: choose elo0/elo1 closer to 0")]
    HypothesisOutsideSupport,
    /// BayesElo's draw Elo needs a loss, a draw and a win.
    #[error("the BayesElo LLR needs at least one loss, one draw and one win")]
    BayesEloNeedsEveryResult,
}
