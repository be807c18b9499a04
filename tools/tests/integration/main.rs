//! The tools crate's integration tests, one module per file, linked into one test binary: one link and
//! one process start instead of one per file (CONTRIBUTING.md, "The full gate").

mod common;
mod ctm;
mod ctm_inference;
mod ctm_label;
mod match_cli;
mod match_report;
mod match_runner;
mod statistics;
mod tune_command;
mod tune_spsa;
mod verdicts;
