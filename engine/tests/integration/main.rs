//! The engine crate's integration tests, one module per file, linked into one test binary: one link and
//! one process start instead of one per file (CONTRIBUTING.md, "The full gate").

mod common;
mod position_chess960;
mod position_game;
mod search_behaviour;
mod search_draws;
mod search_lc0_parity;
mod search_moves_left;
mod search_panics;
mod search_reference_vectors;
mod search_syzygy;
mod syzygy_tables;
mod uci_memory;
