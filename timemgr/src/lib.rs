//! Time managers, moves-left estimators and the option-string parser.
//!
//! Pure and deterministic: no clock reads, no threads, no randomness except seeded. The search passes the
//! game state and its statistics in ([`search_stats`]); a [`TimeManager`] hands out a per-move stopper and,
//! once the search has ended, learns from how the move went ([`TimeManager::end_of_move`]). [`build_stopper_chain`] adds the generic stoppers the way lc0 does.
//!
//! ```
//! use timemgr::{build_stopper_chain, time_manager_from_str, CommonStopperOptions, GoParams, Hints, IterationStats, MoveContext};
//!
//! // One manager per game; one chain per `go`.
//! let mut tm = time_manager_from_str("smooth(preset=lc0)").unwrap();
//! let go = GoParams { wtime: Some(60_000), btime: Some(60_000), winc: Some(600), binc: Some(600), ..GoParams::default() };
//! let ctx = MoveContext { white_to_move: true, move_overhead_ms: 200, legal_moves: 20, ..MoveContext::default() };
//! // lc0's UCI defaults (the engine declares them with its options).
//! let lc0 = CommonStopperOptions { smart_pruning_factor: 1.33, smart_pruning_minimum_batches: 0, nodes_as_playouts: false,
//!                                  minimum_kld_gain_per_node: 0.0, kld_gain_average_interval: 100,
//!                                  ram_limit_mb: 0 };
//! let mut chain = build_stopper_chain(Some(tm.as_mut()), &go, &ctx, &lc0);
//! let stats = IterationStats { time_since_movestart_ms: 4700, total_nodes: 1000, nodes_since_movestart: 1000,
//!                              edge_n: vec![600, 400], time_since_first_batch_ms: 4680, ..IterationStats::default() };
//! let mut hints = Hints::default();
//! assert!(chain.should_stop(&stats, &mut hints)); // deadline 4688 ms (lc0's first-move budget)
//! drop(chain); // the search has ended and sent its best move; the manager learns from the move:
//! tm.end_of_move(&stats);
//! let trace = tm.drain_trace().remove(0);
//! assert_eq!(trace.deadline_ms, 4688);
//! println!("info string {}", trace.summary());
//! ```

#![warn(missing_docs)]

pub mod chain;
pub mod ctm;
pub mod decay;
pub mod estimator;
pub mod factory;
pub mod managers;
pub mod options;
pub mod planner;
pub mod search_stats;
pub mod stoppers;
pub mod trace;

pub use chain::{build_stopper_chain, CommonStopperOptions};
pub use factory::{build_time_manager, inert_keys, time_manager_from_str};
pub use managers::{ClockView, InertKey, TimeManager};
pub use options::{render_help, OptionError, TimeManagerConfig};
pub use planner::{plan, PlanConfig, PlanError, PlanReport, PlannedMove, TimeControl};
pub use search_stats::{
    GameLengths, GoParams, Hints, IterationStats, MoveContext, PlayedGames, Stopper, TimeUsageHint,
};
pub use trace::{MoveTrace, StopCause};

/// The engine's default manager: per game, smooth's node limit (whose SPRT against lc0's legacy passed at 10+0.1)
/// where moves are small, legacy (the stronger at 60+0.6) where they are large.
pub const DEFAULT_TIME_MANAGER: &str = "regime";

/// The default behind `kairos tm-proxy`: a manager of time alone, since a wrapped engine's node rate is its own.
pub const DEFAULT_PROXY_TIME_MANAGER: &str = "legacy";
