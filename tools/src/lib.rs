//! Match running, statistics and tuning.
