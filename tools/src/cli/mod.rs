//! Command-line front ends that the `kairos` binary embeds.

mod engine_list;
mod match_command;
mod progress;
mod words;

pub use engine_list::EngineList;
pub use match_command::{plan_from_args, run_match, sprt_config, MatchArgs, OpeningOrderArg, TournamentArg};
