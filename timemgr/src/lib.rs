//! Time managers, moves-left estimators and the option-string parser.
//!
//! Pure and deterministic: no clock reads, no threads, no randomness except seeded. The search passes the
//! game state and its statistics in ([`search_stats`]); a [`TimeManager`] hands out a per-move stopper and
//! learns from how each move went. [`build_stopper_chain`] adds the generic stoppers the way lc0 does.

#![warn(missing_docs)]

pub mod chain;
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
pub use factory::{build_time_manager, time_manager_from_str};
pub use managers::{ClockView, TimeManager};
pub use options::{render_help, OptionError, TimeManagerConfig};
pub use planner::{plan, PlanConfig, PlanError, PlanReport, PlannedMove, TimeControl};
pub use search_stats::{GoParams, Hints, IterationStats, MoveContext, Stopper, TimeUsageHint};
pub use trace::MoveTrace;

/// The engine's default manager, as in lc0.
pub const DEFAULT_TIME_MANAGER: &str = "legacy";
