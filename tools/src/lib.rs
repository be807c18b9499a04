//! Engine matches and their analysis: a UCI match runner ([`runner`]), Elo/SPRT statistics ([`stats`]),
//! per-pairing tallies ([`tally`]), time-usage reports ([`report`]) and the `kairos match` front end ([`cli`]).
#![warn(missing_docs)]

pub mod cli;
pub mod report;
pub mod runner;
pub mod stats;
pub mod tally;
pub mod tune;

pub use cli::{run_match, MatchArgs};
pub use report::{run_match_report, MatchReportArgs};
pub use runner::{play_games, GameRecord, MatchPlan};
pub use tune::{run_tune, TuneArgs};
