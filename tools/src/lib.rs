//! Engine matches and their analysis: a UCI match runner ([`runner`]), Elo/SPRT statistics ([`stats`]),
//! per-pairing tallies ([`tally`]), an SPRT followed to its first crossing ([`sprt_replay`]), time-usage reports
//! and the verdicts of every committed SPRT ([`report`]), the `kairos match` front end ([`cli`]) and the CTM-Net
//! data, search labels and training of `tm-data`, `tm-label` and `tm-train` ([`ctm`]).
#![warn(missing_docs)]

pub mod cli;
pub mod ctm;
pub mod report;
pub mod runner;
pub mod sprt_replay;
pub mod stats;
pub mod tally;
pub mod tune;

pub use cli::{run_match, MatchArgs};
pub use ctm::command::{run_tm_data, run_tm_train, TmDataArgs, TmTrainArgs};
pub use ctm::label::{run_tm_label, TmLabelArgs};
pub use ctm::predict::{run_tm_predict, TmPredictArgs};
pub use report::{run_match_report, MatchReportArgs};
pub use runner::{play_games, GameRecord, MatchPlan};
pub use tune::{run_tune, TuneArgs};
