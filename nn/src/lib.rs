//! Lc0 networks: loading `.pb.gz` weights, encoding positions into 112 input planes, mapping policy
//! outputs to moves, running the network through libtorch, and the batched backends the search uses.

#![warn(missing_docs)]

pub mod backend;
pub mod bench;
pub mod cache;
pub mod cpu_features;
pub mod cuda;
pub mod describe;
pub mod encoder;
pub mod error;
pub mod fen;
mod freed_blocks;
pub mod layer;
pub mod loader;
pub mod network;
pub mod onnx;
pub mod onnx_backend;
pub mod options;
pub mod policy_map;
pub mod positional_encoding;
pub mod precision_timing;
pub mod prior;
pub mod proto;
pub mod queued_batch;
pub mod raw_outputs;
pub mod record_file;
pub mod recording;
pub mod replay;
pub mod report;
pub mod round_robin;
pub mod rust_net;
pub mod softmax;
pub mod stage_timing;
pub mod test_backend;
pub mod torch_backend;
pub mod torch_net;

pub use backend::{
    evaluate_one, Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation, HistoryEntry,
};
pub use bench::{backend_bench, BenchRow};
pub use cache::CachingBackend;
pub use cpu_features::native_bf16;
pub use cuda::load_cuda_runtime;
pub use error::{NetworkProblem, NnError};
pub use loader::{load_network, parse_network};
pub use options::{
    open_backend, open_backend_described, parse_devices, tensorrt_build_notice, BackendKind, BackendOptions,
    DeviceChoice, Placement, Precision,
};
pub use report::{evaluate_position, game_history, EvalReport};
pub use round_robin::RoundRobinBackend;
