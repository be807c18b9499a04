//! Match running, statistics and tuning.

pub mod cli;
pub mod runner;
pub mod stats;
pub mod tally;

pub use cli::{run_match, MatchArgs};
pub use runner::{play_games, GameRecord, MatchPlan};
