//! Match running, statistics and tuning.

pub mod stats;
