//! The cli crate's integration tests, one module per file, linked into one test binary: one link and
//! one process start instead of one per file (CONTRIBUTING.md, "The full gate").

mod allocator;
mod bench_cli;
mod ctm_cli;
mod leela2onnx_cli;
mod openmp_idle;
mod option_defaults;
mod precision_at_load;
mod release_layout;
mod uci_protocol;
