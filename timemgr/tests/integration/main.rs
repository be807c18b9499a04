//! The timemgr crate's integration tests, one module per file, linked into one test binary: one link and
//! one process start instead of one per file (CONTRIBUTING.md, "The full gate").

mod common;
mod ctm;
mod floor_reserve;
mod inert_keys;
mod lc0_vectors;
mod managers;
mod node_budget;
mod options;
mod planner;
mod regime;
mod robustness;
mod stoppers;
