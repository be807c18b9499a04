//! Lc0 networks: loading `.pb.gz` weights, encoding positions into 112 input planes, mapping policy
//! outputs to moves, running the network through libtorch, and the batched backends the search uses.

pub mod backend;

pub use backend::{Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation, HistoryEntry};
