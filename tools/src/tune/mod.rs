//! SPSA tuning of time-manager parameters through self-play (`kairos tune`).
//!
//! [`spsa`] is the optimiser, generic over an [`Objective`]; [`space`] maps `--param` boxes onto a manager's
//! registry keys; [`match_objective`] measures by playing games with the match runner; [`journal`] is the JSONL log
//! that `--resume` rebuilds the run from; [`openbench`] writes and reads OpenBench's SPSA blocks; [`command`] is the
//! command-line driver.

pub mod command;
pub mod journal;
pub mod match_objective;
pub mod openbench;
pub mod space;
pub mod spsa;

pub use command::{
    export_block, import_file, run_tune, tune, tune_with, verify_match_args, TuneArgs, TuneFormat, TuneOutcome,
};
pub use openbench::{import_values, spsa_block, OpenBenchError, R_END};
pub use space::{SpaceError, TuneSpace};
pub use spsa::{Gains, Objective, Spsa, SpsaError, SpsaParam, Step, Trial};
