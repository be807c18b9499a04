//! The tests crate's integration tests, one module per file, linked into one test binary: one link and
//! one process start instead of one per file (CONTRIBUTING.md, "The full gate").

mod architecture;
mod chess960;
mod describenet;
mod eval_matches_lc0;
mod fuzz_regressions;
mod kairos_match;
mod kairos_tune;
mod lc0_uci_output;
mod moves_left_follows_games;
mod moves_left_head;
mod onnx_backend_search;
mod openbench;
mod panic_safety;
mod setup_script;
mod smart_pruning;
mod syzygy_conversion;
mod syzygy_uci;
mod temperature_and_noise;
mod time_manager_commands;
mod tm_proxy;
mod uci_options;
mod uci_ponder_and_clock;
mod wac;
