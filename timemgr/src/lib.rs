//! Time managers, moves-left estimators and the option-string parser.
//!
//! Pure and deterministic: no clock reads, no threads, no randomness except seeded. The search passes the
//! game state and its statistics in ([`search_stats`]); a [`TimeManager`](search_stats) hands out a per-move
//! stopper and learns from how each move went.

pub mod search_stats;

pub use search_stats::{GoParams, Hints, IterationStats, MoveContext, Stopper, TimeUsageHint};
