//! Match running, statistics and tuning.

pub mod runner;
pub mod stats;
