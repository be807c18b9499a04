//! The nn crate's integration tests, one module per file, linked into one test binary: one link and
//! one process start instead of one per file (CONTRIBUTING.md, "The full gate").
//! `network_thread.rs` beside this folder stays a binary of its own: it counts the threads of its process.

mod bad_files;
mod cache_and_test_backends;
mod canonical_encoding;
mod encoder;
mod eval_report;
mod fused_convolutions;
mod gathered_outputs;
mod lc0_test_nets;
mod maia_reference;
mod move_indices;
mod onnx_backend;
mod onnx_export;
mod policy_maps;
mod stage_timing;
mod synthetic;
mod synthetic_networks;
