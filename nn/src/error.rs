//! The errors of loading a network, configuring a backend and evaluating a position; every message
//! names the problem and, where there is one, the way out.

use std::path::PathBuf;

use crate::backend::BackendError;
use crate::record_file::RecordFileError;

/// Why a network or a backend could not be set up, or a position not evaluated.
#[derive(Debug, thiserror::Error)]
pub enum NnError {
    /// The weights file does not exist.
    #[error(
        "weights file {path} not found; run scripts/setup (or weights/fetch.sh) to install the default \
         network weights/maia-1900.pb.gz, or pass the path of an Lc0 .pb.gz network"
    )]
    WeightsNotFound {
        /// The path that was tried.
        path: PathBuf,
    },
    /// The weights file exists but cannot be read.
    #[error("cannot read weights file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The file is not a valid Lc0 network (corrupt gzip, not protobuf, wrong magic, ...).
    #[error("{path} is not a usable Lc0 network: {reason}; use an Lc0 .pb.gz weights file such as weights/maia-1900.pb.gz (scripts/setup installs it)")]
    InvalidNetwork {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: NetworkProblem,
    },
    /// A backend option has a value the backend does not understand.
    #[error("invalid backend option {option}={value}: expected {expected}")]
    InvalidOption {
        /// The option's name.
        option: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// libtorch failed to build or run the network.
    #[error("libtorch error: {0}")]
    Torch(String),
    /// ONNX Runtime is missing or failed to run the network (Backend=onnx).
    #[error("{0}")]
    Onnx(String),
    /// The FEN cannot be parsed or describes an impossible position.
    #[error("invalid FEN {fen:?}: {reason}")]
    InvalidFen {
        /// The FEN given.
        fen: String,
        /// Why it was rejected.
        reason: String,
    },
    /// A move of the move list is malformed or illegal in its position.
    #[error("move {uci:?} (number {number} of the move list) is {reason}")]
    InvalidMove {
        /// The move as given.
        uci: String,
        /// Its 1-based position in the move list.
        number: usize,
        /// "not UCI notation" or "illegal in position <fen>".
        reason: String,
    },
    /// The backend failed on an evaluation.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// A record file cannot be recorded into or replayed.
    #[error(transparent)]
    RecordFile(#[from] RecordFileError),
}

/// What is wrong with a weights file's content.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NetworkProblem {
    /// The gzip stream is corrupt or truncated.
    #[error("corrupt gzip stream ({0})")]
    Gzip(String),
    /// The bytes are not a `pblczero.Net` protobuf message.
    #[error("not a pblczero.Net protobuf message ({0})")]
    Protobuf(String),
    /// The file is one of the old text formats lc0 dropped.
    #[error("old text weights format (version {0}) is no longer supported")]
    TextFormat(char),
    /// The magic number is not 0x1c0.
    #[error("wrong magic number {0:#x} (expected 0x1c0)")]
    Magic(u32),
    /// The network needs a newer engine than lc0 0.33.0.
    #[error("the network requires lc0 {0} or newer; this engine implements 0.33.0")]
    TooNew(String),
    /// The file has no weights (an ONNX model or an empty message), or a combination lc0 cannot run.
    #[error("{0}")]
    UnsupportedFormat(String),
    /// A format field holds a value lc0 refuses (or does not know).
    #[error("{field} {value} is not supported (supported: {supported})")]
    UnsupportedValue {
        /// The field of `NetworkFormat`, as the schema names it.
        field: &'static str,
        /// The value found.
        value: i32,
        /// The values that are supported, with their meaning.
        supported: String,
    },
    /// A layer has an encoding that cannot be decoded.
    #[error("layer {layer} has {problem}")]
    Encoding {
        /// The layer's name.
        layer: String,
        /// What is wrong.
        problem: String,
    },
    /// A layer the network format needs is absent.
    #[error("missing layer {0}")]
    MissingLayer(String),
    /// A layer's size does not fit the sizes inferred from the others.
    #[error("layer {layer} has {actual} values, expected {expected}")]
    WrongSize {
        /// The layer's name.
        layer: String,
        /// The number of values the other layers imply.
        expected: usize,
        /// The number found.
        actual: usize,
    },
}
