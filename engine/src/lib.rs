//! Kairos: positions and history, the PUCT search, stoppers, the UCI loop and the command-line modes.

#![warn(missing_docs)]

pub mod bench;
pub mod clock;
pub mod commands;
pub mod options;
pub mod position;
pub mod search;
pub mod uci;
