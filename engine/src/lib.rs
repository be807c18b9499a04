//! Kairos: positions and history, the PUCT search, stoppers, the UCI loop and the command-line modes.

pub mod clock;
