//! `--limit-as=clock`: the manager's planned time reaches the wrapped engine as a clock, scaled so that the
//! engine's own time management spends the planned time on average. The manager decides how much a move is
//! worth; the engine's own stop rules (best-move stability, a falling score) still end a move early or late.
//!
//! The scale is learned: the share of the given clock that the engine spends is the ratio of two running means
//! over the session's moves (games included, as the engine stays the same), of the time spent and of the clock
//! given, so that the mean time spent, not a typical move's, is the plan's. (A geometric mean of the shares
//! lets the few long moves of an engine's own stop rules through: at 10+0 Stockfish spent twice the plan over
//! the first 20 moves that way.) Every move is learned from, a game's first too: Stockfish's first search of a
//! game runs 2–4 times its usual share and shrinks the next few moves' clocks, but leaving it out only moved
//! the time to that first move, up to the 3 T stop, and was no stronger (EXPERIMENTS.md, 2026-11-26).
//! The engine gets `go wtime W btime B` for the planned time τ with the mover's W = τ ÷ that share: no
//! increment and no `movestogo`, which the manager has already counted, so the engine's spending follows W
//! alone. W may exceed the real clock: the proxy sends `stop` when the move has taken [`STRETCH`] × τ or half
//! of the mover's real clock after the move overhead, whichever comes first, but never before τ.

use timemgr::GoParams;

use super::limit::{go_line, MoveLimit};
use crate::uci::GoCommand;

/// How the wrapped engine gets the manager's plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LimitAs {
    /// `go movetime T` (or `go nodes N movetime T`): the engine's time management stays out.
    #[default]
    MoveTime,
    /// A scaled clock: the engine's own time management spends the planned time on average.
    Clock,
}

impl LimitAs {
    /// The names of the values, as `--limit-as` and the UCI option `LimitAs` take them.
    pub const NAMES: [&'static str; 2] = ["movetime", "clock"];

    /// The value of a name (case-insensitive), None for an unknown name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "movetime" => Some(Self::MoveTime),
            "clock" => Some(Self::Clock),
            _ => None,
        }
    }

    /// The name of the value.
    pub fn name(self) -> &'static str {
        match self {
            Self::MoveTime => Self::NAMES[0],
            Self::Clock => Self::NAMES[1],
        }
    }
}

/// The most a move may take, as a multiple of the planned time (before the half-clock bound).
pub const STRETCH: u64 = 3;
/// The share of its clock the engine is first assumed to spend on a move: Stockfish's own optimum for the
/// middlegame without increment is 2.5–4 % of the clock (its `timeman.cpp`), and the learning corrects the rest.
const FIRST_SHARE: f64 = 0.03;
/// The weight of the newest move in the running means of the time spent and the clock given.
const LEARNING_RATE: f64 = 0.2;
/// The clock the engine gets is at least this many ms, so that a short plan is no zero clock.
const MIN_CLOCK_MS: u64 = 10;

/// The learned share of the given clock that the wrapped engine spends on a move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockScale {
    /// The running mean of the time spent, in ms (None before the first move).
    mean_used_ms: Option<f64>,
    /// The running mean of the clock given, in ms.
    mean_clock_ms: f64,
}

impl Default for ClockScale {
    fn default() -> Self {
        Self { mean_used_ms: None, mean_clock_ms: 0.0 }
    }
}

impl ClockScale {
    /// The share of the given clock the engine is expected to spend on its next move.
    pub fn share(&self) -> f64 {
        match self.mean_used_ms {
            Some(used) => used / self.mean_clock_ms,
            None => FIRST_SHARE,
        }
    }

    /// The clock in ms that makes the engine spend `planned_ms` at the learned share.
    pub fn clock_for(&self, planned_ms: u64) -> u64 {
        ((planned_ms as f64 / self.share()).round() as u64).max(MIN_CLOCK_MS)
    }

    /// Learns from a move that took `used_ms` on a clock of `clock_ms`.
    pub fn learn(&mut self, clock_ms: u64, used_ms: u64) {
        let (used, clock) = (used_ms.max(1) as f64, clock_ms.max(1) as f64);
        match self.mean_used_ms.as_mut() {
            Some(mean_used) => {
                *mean_used += LEARNING_RATE * (used - *mean_used);
                self.mean_clock_ms += LEARNING_RATE * (clock - self.mean_clock_ms);
            }
            None => (self.mean_used_ms, self.mean_clock_ms) = (Some(used), clock),
        }
    }

    /// The engine's `go` for a planned move: the GUI's `go` with the mover's clock replaced by the scaled one,
    /// the opponent's clock as it is, and no increment or `movestogo`; `go depth 1` for the fastest move. Also
    /// returns the clock given (None for the fastest move).
    pub fn clocked_go(&self, go: &GoCommand, limit: MoveLimit, white_to_move: bool) -> (String, Option<u64>) {
        let mut params = GoParams { winc: None, binc: None, movestogo: None, ..go.params.clone() };
        if limit == MoveLimit::FastestMove {
            params = GoParams { wtime: None, btime: None, depth: Some(1), ..params };
            return (go_line(&params, &go.searchmoves), None);
        }
        let clock_ms = self.clock_for(limit.time_ms());
        let clock = Some(i64::try_from(clock_ms).unwrap_or(i64::MAX));
        if white_to_move {
            params.wtime = clock;
        } else {
            params.btime = clock;
        }
        (go_line(&params, &go.searchmoves), Some(clock_ms))
    }
}

/// When the proxy stops a move of planned time `planned_ms` that the engine searches on its own clock: at
/// [`STRETCH`] × the plan or half the mover's real clock after the overhead, whichever comes first, but never
/// before the plan (the manager's own safe time).
pub fn hard_stop_ms(planned_ms: u64, movers_clock_ms: i64, move_overhead_ms: i64) -> u64 {
    let half_clock = (movers_clock_ms.saturating_sub(move_overhead_ms).max(0) / 2) as u64;
    (STRETCH * planned_ms).min(half_clock).max(planned_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tm_proxy::limit::parse_go as go;

    #[test]
    fn the_mover_gets_the_plan_divided_by_the_share_and_nothing_of_the_increment() {
        let scale = ClockScale::default();
        let clocked = go("go wtime 60000 btime 58000 winc 100 binc 100 movestogo 30");
        // 900 ms ÷ 3 % = 30000 ms for white; black's clock stays.
        let limit = MoveLimit::MoveTime { ms: 900 };
        assert_eq!(scale.clocked_go(&clocked, limit, true), ("go wtime 30000 btime 58000".to_owned(), Some(30000)));
        assert_eq!(scale.clocked_go(&clocked, limit, false), ("go wtime 60000 btime 30000".to_owned(), Some(30000)));
        let nodes = MoveLimit::Nodes { nodes: 5000, ms: 600 };
        assert_eq!(scale.clocked_go(&clocked, nodes, true).0, "go wtime 20000 btime 58000");
        assert_eq!(scale.clocked_go(&clocked, MoveLimit::FastestMove, true), ("go depth 1".to_owned(), None));
        assert_eq!(scale.clock_for(0), MIN_CLOCK_MS);
    }

    #[test]
    fn the_share_is_the_ratio_of_the_running_means_of_time_spent_and_clock_given() {
        let mut scale = ClockScale::default();
        // The first move sets both means: 600 of 10000 ms is 6 %.
        scale.learn(10_000, 600);
        assert!((scale.share() - 0.06).abs() < 1e-12, "{}", scale.share());
        // A short move on a larger clock: means 600 + 0.2 × (100 − 600) = 500 and 10000 + 0.2 × 10000 = 12000.
        scale.learn(20_000, 100);
        assert!((scale.share() - 500.0 / 12_000.0).abs() < 1e-12, "{}", scale.share());
        // A geometric mean would give 0.06^0.8 × 0.005^0.2 = 0.0365; the long move keeps its weight here.
        // Many moves at 5 % bring the share to 5 %.
        for _ in 0..200 {
            scale.learn(20_000, 1000);
        }
        assert!((scale.share() - 0.05).abs() < 1e-9, "{}", scale.share());
        assert_eq!(scale.clock_for(500), 10_000);
    }

    #[test]
    fn the_hard_stop_is_three_plans_within_half_the_clock() {
        assert_eq!(hard_stop_ms(1000, 60_000, 200), 3000);
        // (5200 − 200) / 2 = 2500 caps 3 × 1000.
        assert_eq!(hard_stop_ms(1000, 5200, 200), 2500);
        // The plan itself is never cut.
        assert_eq!(hard_stop_ms(1000, 1200, 200), 1000);
        assert_eq!(hard_stop_ms(1000, 100, 200), 1000);
    }

    #[test]
    fn names_round_trip() {
        for name in LimitAs::NAMES {
            assert_eq!(LimitAs::from_name(name).map(LimitAs::name), Some(name));
        }
        assert_eq!(LimitAs::from_name(" Clock "), Some(LimitAs::Clock));
        assert_eq!(LimitAs::from_name("nodes"), None);
    }
}
