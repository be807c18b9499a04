//! The engine options registry: one declaration feeds UCI options, command-line flags and help.
//!
//! Each option is declared once (UCI name, lc0-style flag, type, default, range, help) in the
//! `declare_options!` table below. From that table come the typed [`EngineOptions`] struct, the UCI
//! `option name …` lines, the `--flag=value` parser and the help listing (docs/lc0/search.md §4.12). The time
//! managers' keys follow as options of their own ([`key_option_specs`]), derived from timemgr's registry, so that a
//! tuner that sets one number per option (OpenBench's SPSA) reaches them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use nn::policy_map::TransposedMoves;
use nn::{BackendOptions, DeviceChoice};
use timemgr::options::error::Suggestion;
use timemgr::options::{key_option, key_options, KeyOption, ParamKind, Value};
use timemgr::{CommonStopperOptions, TimeManagerConfig};

mod choices;
pub mod config_file;
mod lc0_names;
pub mod markdown;
mod time_manager;

pub use choices::{combo, Choice, FpuStrategy, RootFpuStrategy};
pub use config_file::ConfigFileError;
/// The network's choice options hold nn's types: re-exported so that a caller that sets them needs no `nn`.
pub use nn::{encoder::HistoryFill, BackendKind, Precision};
pub use time_manager::TimeManagerSetting;

use crate::search::{
    accurate_params, contempt, simplified_params, ContemptMode, Exploration, GatherBound, MoveTemperature,
    PickingTaskRule, RescaleParams, RootNoise, ScoreType, SearchParams,
};

/// Why an option could not be set, or a command line not understood; names the problem and the way out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptionsError {
    /// No option has this UCI name.
    #[error("unknown option '{name}'{suggestion}; send 'uci' (or run 'kairos --help') to list the options")]
    UnknownOption {
        /// The name that was given.
        name: String,
        /// The nearest option name, if one is near.
        suggestion: Suggestion,
    },
    /// No option has this command-line flag.
    #[error("unknown flag '--{flag}'{suggestion}; run 'kairos --help' to list the flags")]
    UnknownFlag {
        /// The flag without its leading dashes.
        flag: String,
        /// The nearest flag, if one is near.
        suggestion: Suggestion,
    },
    /// One of lc0's options for machinery Kairos does not have: set or given as a flag, it is refused with why.
    #[error("'{name}' is lc0's option {why}, so Kairos has nothing to set; leave it out")]
    Lc0Only {
        /// The option's UCI name or flag as given.
        name: String,
        /// What it tunes in lc0, and what Kairos does instead.
        why: &'static str,
    },
    /// A command-line argument is not of the form `--flag`, `--flag=value` or `--flag value`.
    #[error("unexpected argument '{argument}'; flags are written --flag=value or --flag value")]
    NotAFlag {
        /// The argument.
        argument: String,
    },
    /// A flag that needs a value was last on the command line.
    #[error("flag '--{flag}' needs a value: write --{flag}=VALUE")]
    MissingValue {
        /// The flag without its leading dashes.
        flag: String,
    },
    /// The value does not fit the option's type or range.
    #[error("invalid value '{value}' for option {option}: expected {allowed}")]
    BadValue {
        /// The option's UCI name.
        option: &'static str,
        /// The value that was given.
        value: String,
        /// What the option accepts.
        allowed: String,
    },
    /// A time-manager key option that the selected `TimeManager` does not take (the message names its owner).
    #[error(transparent)]
    TimeManagerKey(timemgr::OptionError),
    /// `--help` was asked for; the message is the help listing.
    #[error("{0}")]
    HelpRequested(String),
    /// The configuration file could not be read, or a line of it is not a flag.
    #[error(transparent)]
    ConfigFile(#[from] ConfigFileError),
    /// A flag of the configuration file was refused.
    #[error("in the configuration file {}: {source}", path.display())]
    ConfigFileFlag {
        /// The file.
        path: PathBuf,
        /// Why the flag was refused.
        source: Box<OptionsError>,
    },
    /// The weights file was found nowhere.
    #[error(
        "weights file '{given}' not found (tried: {}); in a checkout scripts/setup installs the default network, a \
         release keeps it beside the binary; or set WeightsFile / --weights to the path of an Lc0 .pb.gz network",
        tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    WeightsNotFound {
        /// The configured path.
        given: String,
        /// Every path that was looked at, in order.
        tried: Vec<PathBuf>,
    },
}

/// The type and range of an option, as UCI knows it (floats are sent as `type string`, like lc0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionKind {
    /// A boolean (`type check`).
    Check,
    /// An integer in `min..=max` (`type spin`).
    Spin {
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// A finite float in `min..=max` (`type string` on the UCI wire).
    Float {
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// Free text (`type string`).
    Text,
    /// One of a fixed list of words, matched case-insensitively (`type combo`).
    Combo(&'static [&'static str]),
    /// An action without a value (`type button`), pressed by `setoption name X`.
    Button,
}

impl OptionKind {
    /// The `type` word of its `option` line: a float is announced as `string`, as lc0 announces it.
    pub fn uci_type(&self) -> &'static str {
        match self {
            OptionKind::Check => "check",
            OptionKind::Spin { .. } => "spin",
            OptionKind::Float { .. } | OptionKind::Text => "string",
            OptionKind::Combo(_) => "combo",
            OptionKind::Button => "button",
        }
    }

    /// What this kind accepts, for error messages and help.
    fn allowed(&self) -> String {
        match self {
            OptionKind::Check => "true or false".to_string(),
            OptionKind::Spin { min, max } => format!("an integer from {min} to {max}"),
            OptionKind::Float { min, max } => format!("a number from {min} to {max}"),
            OptionKind::Text => "any text".to_string(),
            OptionKind::Combo(choices) => format!("one of {}", choices.join(", ")),
            OptionKind::Button => "no value (a button: setoption name X presses it)".to_string(),
        }
    }
}

/// Whether the `uci` answer lists an option: as lc0's, a GUI shows the options a player sets, and the rest only
/// when the engine was started with `--show-hidden`; `setoption`, flags and `kairos.config` take every option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Listed by `uci`: an option a player sets (network, threads, device, clock, Syzygy, contempt, output).
    Visible,
    /// Listed by `uci` only after `--show-hidden`: search tuning, diagnostics and the time managers' keys.
    Hidden,
}

/// The `visible` or `hidden` word of an entry of the options table, as a [`Visibility`].
macro_rules! visibility {
    (visible) => {
        Visibility::Visible
    };
    (hidden) => {
        Visibility::Hidden
    };
}

/// One declared option: its names, type, visibility and help.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptionSpec {
    /// The UCI name (`setoption name <uci_name>`).
    pub uci_name: &'static str,
    /// The command-line flag without dashes (`--<flag>=value`).
    pub flag: &'static str,
    /// Type and range.
    pub kind: OptionKind,
    /// Whether `uci` lists it without `--show-hidden`.
    pub visibility: Visibility,
    /// One line of help.
    pub help: &'static str,
}

impl OptionSpec {
    fn bad_value(&self, raw: &str) -> OptionsError {
        OptionsError::BadValue { option: self.uci_name, value: raw.to_string(), allowed: self.kind.allowed() }
    }
}

/// A value type an option can hold: parsed and validated against its spec, and printed back for UCI.
trait OptionField: Sized {
    /// Parses and range-checks `raw` for `spec`.
    fn from_raw(spec: &OptionSpec, raw: &str) -> Result<Self, OptionsError>;
    /// The value as UCI and the help listing print it.
    fn to_uci(&self) -> String;
}

impl OptionField for bool {
    fn from_raw(spec: &OptionSpec, raw: &str) -> Result<Self, OptionsError> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "true" | "on" | "yes" | "1" => Ok(true),
            "false" | "off" | "no" | "0" => Ok(false),
            _ => Err(spec.bad_value(raw)),
        }
    }
    fn to_uci(&self) -> String {
        self.to_string()
    }
}

impl OptionField for i64 {
    fn from_raw(spec: &OptionSpec, raw: &str) -> Result<Self, OptionsError> {
        let value: i64 = raw.trim().parse().map_err(|_| spec.bad_value(raw))?;
        match spec.kind {
            OptionKind::Spin { min, max } if !(min..=max).contains(&value) => Err(spec.bad_value(raw)),
            _ => Ok(value),
        }
    }
    fn to_uci(&self) -> String {
        self.to_string()
    }
}

impl OptionField for f64 {
    fn from_raw(spec: &OptionSpec, raw: &str) -> Result<Self, OptionsError> {
        let value: f64 = raw.trim().parse().map_err(|_| spec.bad_value(raw))?;
        let in_range = match spec.kind {
            OptionKind::Float { min, max } => (min..=max).contains(&value),
            _ => value.is_finite(),
        };
        if in_range {
            Ok(value)
        } else {
            Err(spec.bad_value(raw))
        }
    }
    fn to_uci(&self) -> String {
        self.to_string()
    }
}

/// A button's state: pressed since the session last acted on it (lc0's `Button::TestAndReset`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ButtonPress(pub bool);

impl From<bool> for ButtonPress {
    fn from(pressed: bool) -> Self {
        Self(pressed)
    }
}

impl ButtonPress {
    /// Whether the button was pressed; it is released.
    pub fn take(&mut self) -> bool {
        std::mem::take(&mut self.0)
    }
}

impl OptionField for ButtonPress {
    fn from_raw(_spec: &OptionSpec, _raw: &str) -> Result<Self, OptionsError> {
        Ok(Self(true))
    }
    fn to_uci(&self) -> String {
        String::new()
    }
}

impl OptionField for String {
    fn from_raw(_spec: &OptionSpec, raw: &str) -> Result<Self, OptionsError> {
        Ok(raw.to_string())
    }
    fn to_uci(&self) -> String {
        self.clone()
    }
}

impl<T: Choice> OptionField for T {
    fn from_raw(spec: &OptionSpec, raw: &str) -> Result<Self, OptionsError> {
        T::from_word(raw).ok_or_else(|| spec.bad_value(raw))
    }
    fn to_uci(&self) -> String {
        self.name().to_owned()
    }
}

impl OptionField for TimeManagerSetting {
    fn from_raw(spec: &OptionSpec, raw: &str) -> Result<Self, OptionsError> {
        TimeManagerSetting::parse(raw).map_err(|error| OptionsError::BadValue {
            option: spec.uci_name,
            value: raw.to_string(),
            allowed: format!("a valid time-manager string ({error})"),
        })
    }
    fn to_uci(&self) -> String {
        self.text().to_owned()
    }
}

/// Declares every option once; generates [`EngineOptions`], its `Default`, [`OPTIONS`] and the setters. Each entry
/// starts with `visible` or `hidden` ([`Visibility`]).
macro_rules! declare_options {
    ($( $visibility:ident $field:ident : $ty:ty = $default:expr, $kind:expr, $uci:literal, $flag:literal,
        $help:literal; )*) => {
        /// The value of every engine option; built from defaults, command-line flags and `setoption`.
        #[derive(Debug, Clone, PartialEq)]
        pub struct EngineOptions {
            $( #[doc = $help] pub $field: $ty, )*
            /// Whether `uci` lists the hidden options too: lc0's `--show-hidden` flag, which no UCI option sets.
            pub show_hidden: bool,
        }

        impl Default for EngineOptions {
            fn default() -> Self {
                Self { $( $field: <$ty>::from($default), )* show_hidden: false }
            }
        }

        /// The registry: every option in declaration order, as UCI and the help listing show them.
        pub const OPTIONS: &[OptionSpec] = &[
            $(
                OptionSpec { uci_name: $uci, flag: $flag, kind: $kind, visibility: visibility!($visibility), help: $help },
            )*
        ];

        impl EngineOptions {
            /// Sets the option whose UCI name is `name` (case-insensitive), checking only its type and range.
            fn assign(&mut self, name: &str, raw: &str) -> Result<(), OptionsError> {
                let name = name.trim();
                $(
                    if name.eq_ignore_ascii_case($uci) {
                        let spec = OptionSpec {
                            uci_name: $uci,
                            flag: $flag,
                            kind: $kind,
                            visibility: visibility!($visibility),
                            help: $help,
                        };
                        self.$field = <$ty as OptionField>::from_raw(&spec, raw)?;
                        return Ok(());
                    }
                )*
                if let Some(why) = lc0_names::lc0_only_option(name) {
                    return Err(OptionsError::Lc0Only { name: name.to_string(), why });
                }
                let suggestion = match lc0_names::renamed_option(name) {
                    Some(kairos) => Suggestion(Some(kairos.to_string())),
                    None => Suggestion::closest(name, all_option_specs().map(|spec| spec.uci_name)),
                };
                Err(OptionsError::UnknownOption { name: name.to_string(), suggestion })
            }

            /// The current values as text, in the order of [`OPTIONS`].
            fn values_as_text(&self) -> Vec<String> {
                vec![ $( self.$field.to_uci(), )* ]
            }
        }
    };
}

/// The default network: relative to the repository root or the working directory, unless the binary was built
/// with `make EVALFILE=PATH` (how OpenBench hands an engine its network; it deletes the build tree afterwards).
pub const DEFAULT_WEIGHTS: &str = match option_env!("KAIROS_EVALFILE") {
    Some(path) if !path.is_empty() => path,
    _ => "weights/maia-1900.pb.gz",
};

declare_options! {
    visible threads: i64 = 0, OptionKind::Spin { min: 0, max: 128 }, "Threads", "threads",
        "Search threads; 0 = the backend's suggestion: on a CPU one a core (each with a backend of its own; 1 with \
         BackendThreads other than 1 or on the virtual clock), on CUDA 2, as lc0 (BENCHMARKS.md).";
    visible minibatch_size: i64 = 0, OptionKind::Spin { min: 0, max: 1024 }, "MinibatchSize", "minibatch-size",
        "Positions per network batch; 0 = the backend's recommendation.";
    hidden max_prefetch: i64 = -1, OptionKind::Spin { min: -1, max: 1024 }, "MaxPrefetch", "max-prefetch",
        "Extra positions evaluated to fill a batch when too few are gathered; -1 = the backend's recommendation: \
         lc0's 32 on CUDA, none on a CPU, where each costs what a searched position does (BENCHMARKS.md).";
    visible nn_cache_size: i64 = 2_000_000, OptionKind::Spin { min: 0, max: 999_999_999 }, "NNCacheSize", "nncache",
        "Network evaluations kept in the cache.";
    hidden cpuct: f64 = 1.745, OptionKind::Float { min: 0.0, max: 100.0 }, "CPuct", "cpuct",
        "Exploration constant of PUCT.";
    hidden cpuct_base: f64 = 38739.0, OptionKind::Float { min: 1.0, max: 1e9 }, "CPuctBase", "cpuct-base",
        "Visit count scale at which the exploration constant grows.";
    hidden cpuct_factor: f64 = 3.894, OptionKind::Float { min: 0.0, max: 1000.0 }, "CPuctFactor", "cpuct-factor",
        "How much the exploration constant grows with visits.";
    hidden fpu_strategy: FpuStrategy = FpuStrategy::Reduction, combo::<FpuStrategy>(), "FpuStrategy", "fpu-strategy",
        "How the value of unvisited moves is set: parent Q minus a reduction, or an absolute value.";
    hidden fpu_value: f64 = 0.33, OptionKind::Float { min: -100.0, max: 100.0 }, "FpuValue", "fpu-value",
        "The FPU reduction (or absolute value).";
    hidden root_has_own_cpuct_params: bool = false, OptionKind::Check, "RootHasOwnCpuctParams",
        "root-has-own-cpuct-params", "The root's exploration constant from CPuctAtRoot, CPuctBaseAtRoot and \
         CPuctFactorAtRoot instead of CPuct, CPuctBase and CPuctFactor.";
    hidden cpuct_at_root: f64 = 1.745, OptionKind::Float { min: 0.0, max: 100.0 }, "CPuctAtRoot", "cpuct-at-root",
        "CPuct at the root, with RootHasOwnCpuctParams.";
    hidden cpuct_base_at_root: f64 = 38739.0, OptionKind::Float { min: 1.0, max: 1e9 }, "CPuctBaseAtRoot",
        "cpuct-base-at-root", "CPuctBase at the root, with RootHasOwnCpuctParams.";
    hidden cpuct_factor_at_root: f64 = 3.894, OptionKind::Float { min: 0.0, max: 1000.0 }, "CPuctFactorAtRoot",
        "cpuct-factor-at-root", "CPuctFactor at the root, with RootHasOwnCpuctParams.";
    hidden fpu_strategy_at_root: RootFpuStrategy = RootFpuStrategy::Same, combo::<RootFpuStrategy>(),
        "FpuStrategyAtRoot", "fpu-strategy-at-root", "FpuStrategy for the root's unvisited moves, with \
         FpuValueAtRoot; same: the FpuStrategy and FpuValue of every other node.";
    hidden fpu_value_at_root: f64 = 1.0, OptionKind::Float { min: -100.0, max: 100.0 }, "FpuValueAtRoot",
        "fpu-value-at-root", "The root's FPU reduction (or absolute value) unless FpuStrategyAtRoot is same.";
    hidden policy_temperature: f64 = 1.359, OptionKind::Float { min: 0.1, max: 10.0 }, "PolicyTemperature",
        "policy-softmax-temp", "Softmax temperature applied to the network's policy.";
    visible smart_pruning_factor: f64 = 1.33, OptionKind::Float { min: 0.0, max: 10.0 }, "SmartPruningFactor",
        "smart-pruning-factor", "Stop early when the best move cannot change; 0 disables.";
    hidden smart_pruning_minimum_batches: i64 = 0, OptionKind::Spin { min: 0, max: 10_000 },
        "SmartPruningMinimumBatches", "smart-pruning-minimum-batches",
        "Batches to evaluate before smart pruning may stop the search.";
    visible move_overhead_ms: i64 = 200, OptionKind::Spin { min: 0, max: 100_000_000 }, "MoveOverheadMs",
        "move-overhead", "Milliseconds reserved per move for communication lag; where no increment pays for it, the \
         clock also keeps the engine's measured cost of starting a move (its first network batch) for each of up to \
         60 moves to come (MoveFloorReserve).";
    hidden move_floor_reserve: bool = true, OptionKind::Check, "MoveFloorReserve", "move-floor-reserve",
        "On the wall clock without an increment that pays for it, keep the engine's measured cost of starting a \
         move for each of up to 60 moves to come, so that a long sudden-death game does not flag; off, the clock \
         keeps MoveOverheadMs alone, as lc0 (docs/time-managers.md).";
    hidden strict_timing: bool = true, OptionKind::Check, "StrictTiming", "strict-uci-timing",
        "The move's clock starts when go arrives, as Stockfish's and as the GUI's clock does; off, it starts at \
         position as lc0's default (a go without wtime or btime still starts it), which loses the time a GUI \
         spends between position and go, e.g. waiting for readyok (lc0 issue #2418; docs/uci.md).";
    visible time_manager: TimeManagerSetting = timemgr::DEFAULT_TIME_MANAGER, OptionKind::Text, "TimeManager",
        "time-manager",
        "Time manager and its parameters, e.g. legacy or smooth(max-move-budget=0.5); `kairos tm-help` lists them.";
    visible weights_file: String = DEFAULT_WEIGHTS, OptionKind::Text, "WeightsFile", "weights",
        "Path of the Lc0 network (.pb.gz); a relative path is looked up from the working directory, then under \
         the binary's folder and its parents, then by file name beside the binary (where a release keeps it).";
    visible backend: BackendKind = BackendKind::Torch, combo::<BackendKind>(), "Backend", "backend",
        "Evaluator: the network through libtorch (torch) or through ONNX Runtime (onnx: TensorRT, then CUDA, on \
         NVIDIA GPUs, its CPU provider on the CPU; the library is found through ORT_DYLIB_PATH, beside the binary \
         or in a checkout's .onnxruntime/), uniform priors or lc0's random backend (values and priors hashed from \
         the input planes) for tests, or a replay of a RecordFile.";
    visible backend_device: String = "auto", OptionKind::Text, "BackendDevice", "backend-device",
        "Device for the network (Backend=torch or onnx): auto (CUDA when present, else as cpu), cpu (one CPU \
         backend a search thread), cuda or cuda:N; several separated by commas (cuda:0,cuda:1) take batches in \
         turn, as lc0's roundrobin.";
    visible precision: Precision = Precision::Auto, combo::<Precision>(), "Precision", "precision",
        "Floating-point precision of the network (Backend=onnx: auto, fp32, or fp16 on a GPU; its CPU provider \
         runs fp32); for the torch backend auto = fp16 on CUDA, on a CPU with native bf16 (AMX-BF16 or \
         AVX512-BF16) bf16 or fp32, whichever times faster when the network loads (bf16 unless fp32 is more \
         than 3 % faster; the info string at load gives both timings), fp32 on other CPUs.";
    hidden backend_threads: i64 = -1, OptionKind::Spin { min: -1, max: 256 }, "BackendThreads", "backend-threads",
        "CPU threads of each network evaluation; 1 = each backend on one core (Threads=0 opens one a core, \
         Threads=1 keeps the engine to one core for matches), 0 = one backend whose libtorch passes use every \
         core; -1 = by network: 1 for a residual tower, and for an attention body one backend whose passes take \
         the cores the backends would have had (Threads=0: every core; a transformer 1.3–1.4 times as fast without \
         native bf16, level with AMX).";
    hidden rust_batch_limit: i64 = -1, OptionKind::Spin { min: -1, max: 1024 }, "RustBatchLimit", "rust-batch-limit",
        "Largest CPU batch evaluated by the network in plain Rust on the search thread, larger ones by \
         libtorch; -1 = by precision and network (for a residual tower every batch in fp32, and in bf16 on a CPU \
         with AVX512-BF16 but no AMX; in bf16 with AMX up to 7·(64/filters)²; none for an attention body), 0 = \
         libtorch only.";
    hidden cuda_graphs: bool = true, OptionKind::Check, "CudaGraphs", "cuda-graphs",
        "On CUDA, replay each batch size's forward pass as a CUDA graph, one launch instead of hundreds, every \
         size captured as the network loads; false runs it eagerly.";
    hidden cudnn_benchmark: bool = false, OptionKind::Check, "CudnnBenchmark", "cudnn-benchmark",
        "On CUDA, let cuDNN time its convolution algorithms at each new batch size and keep the fastest, instead of \
         its heuristics' choice (little gain, and the timing lengthens the load with CudaGraphs, else a search's \
         first seconds: BENCHMARKS.md); results may then differ between runs in the last bits.";
    hidden fused_convolutions: bool = true, OptionKind::Check, "FusedConvolutions", "fused-convolutions",
        "With a ReLU network, run each convolution with its bias, ReLU and a plain block's skip as one call \
         (cuDNN's on CUDA, oneDNN's on the CPU), checked at load against the separate operations (which stay \
         where the library refuses or disagrees); false: the separate operations.";
    hidden test_backend_delay_ms: f64 = 0.0, OptionKind::Float { min: 0.0, max: 10_000.0 }, "TestBackendDelayMs",
        "test-backend-delay-ms", "Milliseconds each batch of the uniform and random test backends waits without \
         using a core, as a GPU's batch does (lc0's random backend's delay): the search's threads measured without \
         a network. A replay's batches wait it too.";
    hidden record_file: String = "", OptionKind::Text, "RecordFile", "record-file",
        "With Backend=replay, the recording answered instead of a network; with another backend, the file every \
         evaluation it computes is appended to (empty: none). A search recorded at one search thread with a node \
         limit replays move for move at the search's own speed (lc0's recordreplay backend).";
    hidden lc0_transposed_policy: bool = false, OptionKind::Check, "Lc0TransposedPolicy", "lc0-transposed-policy",
        "Canonical-input networks (formats 3-5): look up the moves of a pawnless position without castling rights \
         as lc0 0.32-909a4082 does (a half turn, for visit-for-visit parity with it) instead of as the input \
         planes move (as the networks were trained).";
    hidden history_fill: HistoryFill = HistoryFill::FenOnly, combo::<HistoryFill>(), "HistoryFill", "history-fill",
        "The network sees 7 earlier positions beside the current one; where the game has none, copies of its first \
         position fill them: fen_only when the game starts from a FEN other than the start position (lc0's \
         default), always, or no (only one copy, its double push undone, when the first position has an \
         en-passant square).";
    visible chess960: bool = false, OptionKind::Check, "UCI_Chess960", "chess960",
        "Castling moves are written as king takes rook (Chess960); FENs with Chess960 castling are read either way.";
    visible show_wdl: bool = false, OptionKind::Check, "UCI_ShowWDL", "show-wdl",
        "Adds win/draw/loss permille to info lines.";
    visible show_moves_left: bool = false, OptionKind::Check, "UCI_ShowMovesLeft", "show-movesleft",
        "Adds the expected moves left to info lines (networks with a moves-left head).";
    visible show_eps: bool = false, OptionKind::Check, "UCI_ShowEPS", "show-eps",
        "Adds network evaluations per second (cache hits excluded) to info lines.";
    hidden clear_tree: ButtonPress = false, OptionKind::Button, "ClearTree", "clear-tree",
        "Forgets the search tree at the next go, keeping the network cache (lc0's ClearTree).";
    visible multipv: i64 = 1, OptionKind::Spin { min: 1, max: 500 }, "MultiPV", "multipv",
        "Number of best moves sent as their own info line (multipv 1, 2, ...).";
    hidden per_pv_counters: bool = false, OptionKind::Check, "PerPVCounters", "per-pv-counters",
        "Each info line's nodes are the visits of its first move instead of the search's total.";
    visible nodes_per_second_limit: f64 = 0.0, OptionKind::Float { min: 0.0, max: 1e6 }, "NodesPerSecondLimit",
        "nps-limit",
        "The most nodes a second the search makes, waiting after a batch while it is faster (0: no limit; closer \
         with smaller batches and longer searches). Not under VirtualClock, whose speed VirtualNps sets.";
    visible score_type: ScoreType = ScoreType::WdlMu, combo::<ScoreType>(), "ScoreType", "score-type",
        "What the info score shows: WDL_mu (lc0's default), centipawn variants, win_percentage, Q or W-L.";
    visible verbose_move_stats: bool = false, OptionKind::Check, "VerboseMoveStats", "verbose-move-stats",
        "Sends the statistics of every root move as info string lines before bestmove (without it they go to the \
         LogFile only, as in lc0).";
    hidden log_live_stats: bool = false, OptionKind::Check, "LogLiveStats", "log-live-stats",
        "The statistics of VerboseMoveStats at every info update too: as info string lines with \
         VerboseMoveStats, else to the LogFile only.";
    visible ram_limit_mb: i64 = 0, OptionKind::Spin { min: 0, max: 100_000_000 }, "RamLimitMb", "ram-limit-mb",
        "Stops the search before the tree and cache exceed this many MB; 0 disables.";
    hidden nodes_as_playouts: bool = false, OptionKind::Check, "NodesAsPlayouts", "nodes-as-playouts",
        "go nodes counts playouts of this search instead of visits including the reused tree.";
    hidden out_of_order_eval: bool = true, OptionKind::Check, "OutOfOrderEval", "out-of-order-eval",
        "Backs up cache hits and terminals before the rest of the batch.";
    hidden max_out_of_order_evals_factor: f64 = 2.4, OptionKind::Float { min: 0.0, max: 100.0 },
        "MaxOutOfOrderEvalsFactor", "max-out-of-order-evals-factor",
        "Out-of-order results one gather may back up, as a multiple of the minibatch size.";
    hidden gather_within_playouts_left: GatherBound = GatherBound::TimeTrouble, combo::<GatherBound>(),
        "GatherWithinPlayoutsLeft", "gather-within-playouts-left", "Which moves' gathers make no more playouts than \
         the stoppers expect the move to have left, so that a move on a very short clock cannot overrun it: \
         time-trouble (Kairos's default: moves that can afford fewer playouts than one gather's out-of-order limit \
         before the manager's hard time limit; every other move searches as lc0's), off (as lc0), small-moves \
         (moves on a reused tree whose node target is smaller than that limit) or all (a reused tree's first \
         gather then waits for the stoppers' first estimate); EXPERIMENTS.md.";
    hidden idling_minimum_work: i64 = 0, OptionKind::Spin { min: 0, max: 10_000 }, "IdlingMinimumWork",
        "idling-minimum-work", "With several search threads, a gather ends early because the backend is idle only \
         once it holds more than this many positions for the network.";
    hidden thread_idling_threshold: i64 = 1, OptionKind::Spin { min: 0, max: 128 }, "ThreadIdlingThreshold",
        "thread-idling-threshold", "The backend counts as idle while more than this many search threads (for \
         each backend of a round robin) are neither waiting for it nor sending it a batch; a gathering thread then \
         sends what it has at once.";
    hidden task_workers: i64 = -1, OptionKind::Spin { min: -1, max: 128 }, "TaskWorkers", "task-workers",
        "lc0's task workers a search thread, which pick subtrees a gather's pass hands them; Kairos's passes pick \
         those subtrees themselves, so above 0 this only orders each batch as lc0's tasks do, its picks after the \
         pass's. -1: lc0's choice, none on a CPU backend, else min(cores / max(Threads - 1, 1) - 1, 4).";
    hidden minimum_picking_work: i64 = 1, OptionKind::Spin { min: 1, max: 100_000 }, "MinimumPickingWork",
        "minimum-picking-work", "With task workers, a pass hands a child to a picking task only if it has more \
         than this many visits to pick.";
    hidden minimum_remaining_picking_work: i64 = 20, OptionKind::Spin { min: 0, max: 100_000 },
        "MinimumRemainingPickingWork", "minimum-remaining-picking-work", "With task workers, a pass hands a \
         child to a picking task only if more than this many of its visits are left to place after it.";
    hidden max_collision_visits: i64 = 80_000, OptionKind::Spin { min: 1, max: 100_000_000 }, "MaxCollisionVisits",
        "max-collision-visits", "Largest number of visits one gather may put on colliding leaves.";
    hidden max_collision_visits_scaling_start: i64 = 28, OptionKind::Spin { min: 1, max: 100_000 },
        "MaxCollisionVisitsScalingStart", "max-collision-visits-scaling-start",
        "Root visits at which the collision budget starts to grow beyond 1.";
    hidden max_collision_visits_scaling_end: i64 = 145_000, OptionKind::Spin { min: 0, max: 100_000_000 },
        "MaxCollisionVisitsScalingEnd", "max-collision-visits-scaling-end",
        "Root visits at which the collision budget reaches MaxCollisionVisits.";
    hidden max_collision_visits_scaling_power: f64 = 1.25, OptionKind::Float { min: 0.01, max: 100.0 },
        "MaxCollisionVisitsScalingPower", "max-collision-visits-scaling-power",
        "Exponent of the collision budget's growth between its start and end.";
    hidden moves_left_max_effect: f64 = 0.0345, OptionKind::Float { min: 0.0, max: 1.0 }, "MovesLeftMaxEffect",
        "moves-left-max-effect", "Largest utility the moves-left head adds to a move (networks with that head).";
    hidden moves_left_threshold: f64 = 0.8, OptionKind::Float { min: 0.0, max: 1.0 }, "MovesLeftThreshold",
        "moves-left-threshold", "|Q| of the parent above which the moves-left utility applies.";
    hidden moves_left_slope: f64 = 0.0027, OptionKind::Float { min: 0.0, max: 1.0 }, "MovesLeftSlope",
        "moves-left-slope", "Moves-left utility per ply of difference from the parent's expected plies left.";
    hidden moves_left_constant_factor: f64 = 0.0, OptionKind::Float { min: -1.0, max: 1.0 }, "MovesLeftConstantFactor",
        "moves-left-constant-factor", "Constant term of the moves-left utility's scaling in |Q|.";
    hidden moves_left_scaled_factor: f64 = 1.6521, OptionKind::Float { min: -2.0, max: 2.0 }, "MovesLeftScaledFactor",
        "moves-left-scaled-factor", "Linear term of the moves-left utility's scaling in |Q|.";
    hidden moves_left_quadratic_factor: f64 = -0.6521, OptionKind::Float { min: -1.0, max: 1.0 },
        "MovesLeftQuadraticFactor", "moves-left-quadratic-factor",
        "Quadratic term of the moves-left utility's scaling in |Q|.";
    hidden minimum_kld_gain_per_node: f64 = 0.0, OptionKind::Float { min: 0.0, max: 1.0 }, "MinimumKLDGainPerNode",
        "minimum-kldgain-per-node", "Stops when the root policy's KL-divergence gain per node falls below this; 0 disables.";
    hidden kld_gain_average_interval: i64 = 100, OptionKind::Spin { min: 1, max: 10_000_000 }, "KLDGainAverageInterval",
        "kldgain-average-interval", "Nodes between two checks of the KLD-gain stopper.";
    hidden sticky_endgames: bool = true, OptionKind::Check, "StickyEndgames", "sticky-endgames",
        "Propagates proven results up the tree.";
    hidden solid_tree_threshold: i64 = 100, OptionKind::Spin { min: 1, max: 2_000_000_000 }, "SolidTreeThreshold",
        "solid-tree-threshold", "Visits after which a node's children are laid out together as lc0's solid nodes, \
         which changes which of them its scans count as visited (and so the search, as in lc0).";
    hidden two_fold_draws: bool = true, OptionKind::Check, "TwoFoldDraws", "two-fold-draws",
        "Scores a position repeated once inside the tree as a draw.";
    visible draw_score: f64 = 0.0, OptionKind::Float { min: -1.0, max: 1.0 }, "DrawScore", "draw-score",
        "What a draw is worth to white: 0 standard scoring, -1 Armageddon (white must win).";
    visible contempt_mode: ContemptMode = ContemptMode::Play, combo::<ContemptMode>(), "ContemptMode", "contempt-mode",
        "Whose side contempt favours: play (the side to move; off for go infinite), white_side_analysis, \
         black_side_analysis, or disable.";
    visible contempt: String = "", OptionKind::Text, "Contempt", "contempt",
        "Simulated Elo advantage for the WDL rescaling: a number, or name=value entries matched against \
         UCI_Opponent (e.g. 50 or stockfish=100,lc0=-20); empty = UCI_RatingAdv.";
    hidden contempt_max_value: f64 = 420.0, OptionKind::Float { min: 0.0, max: 10000.0 }, "ContemptMaxValue",
        "contempt-max-value", "The largest contempt used; higher values are capped.";
    visible wdl_calibration_elo: f64 = 0.0, OptionKind::Float { min: 0.0, max: 10000.0 }, "WDLCalibrationElo",
        "wdl-calibration-elo", "Elo of the side to move (rapid-equivalent) for the WDL rescaling; 0 = use \
         WDLDrawRateTarget instead.";
    hidden wdl_contempt_attenuation: f64 = 1.0, OptionKind::Float { min: -10.0, max: 10.0 }, "WDLContemptAttenuation",
        "wdl-contempt-attenuation", "Scales how the Elo advantage is applied (1 for analysis, 0.5-0.6 for play).";
    hidden wdl_max_s: f64 = 1.4, OptionKind::Float { min: 0.0, max: 10.0 }, "WDLMaxS", "wdl-max-s",
        "Cap of the WDL sharpness s read from the network.";
    hidden wdl_eval_objectivity: f64 = 1.0, OptionKind::Float { min: 0.0, max: 1.0 }, "WDLEvalObjectivity",
        "wdl-eval-objectivity", "How objective the reported evaluation is under contempt: 0 the values searched \
         with, 1 contempt removed.";
    hidden wdl_draw_rate_target: f64 = 0.0, OptionKind::Float { min: 0.0, max: 0.999 }, "WDLDrawRateTarget",
        "wdl-draw-rate-target", "Target draw rate in equal positions for the WDL rescaling; 0 keeps the \
         network's; ignored with WDLCalibrationElo.";
    hidden wdl_draw_rate_reference: f64 = 0.5, OptionKind::Float { min: 0.001, max: 0.999 }, "WDLDrawRateReference",
        "wdl-draw-rate-reference", "The draw rate the network predicts at default settings.";
    hidden wdl_book_exit_bias: f64 = 0.65, OptionKind::Float { min: -2.0, max: 2.0 }, "WDLBookExitBias",
        "wdl-book-exit-bias", "Book exit bias assumed when measuring Elo (0.2 for the start position, 1 for a 50% \
         white win); matters above a target draw rate of 80%.";
    hidden temperature: f64 = 0.0, OptionKind::Float { min: 0.0, max: 100.0 }, "Temperature", "temperature",
        "Draw the move played among the root's moves, weighted by visits to the power 1/Temperature, instead of \
         playing the best one (0): larger values play more varied moves. The info lines keep the best move.";
    hidden temp_decay_moves: i64 = 0, OptionKind::Spin { min: 0, max: 640 }, "TempDecayMoves", "tempdecay-moves",
        "Lower Temperature linearly to 0 over this many moves of the game (0: no decay).";
    hidden temp_decay_delay_moves: i64 = 0, OptionKind::Spin { min: 0, max: 100 }, "TempDecayDelayMoves",
        "tempdecay-delay-moves", "Keep Temperature for this many moves before TempDecayMoves lowers it.";
    hidden temp_cutoff_move: i64 = 0, OptionKind::Spin { min: 0, max: 1000 }, "TempCutoffMove", "temp-cutoff-move",
        "From this move number on, TempEndgame replaces Temperature (0: never).";
    hidden temp_endgame: f64 = 0.0, OptionKind::Float { min: 0.0, max: 100.0 }, "TempEndgame", "temp-endgame",
        "The temperature from TempCutoffMove on, and the least the decay lowers Temperature to.";
    hidden temp_value_cutoff: f64 = 100.0, OptionKind::Float { min: 0.0, max: 100.0 }, "TempValueCutoff",
        "temp-value-cutoff", "With a temperature, never play a move whose win percentage is this many points \
         below the most visited move's.";
    hidden temp_visit_offset: f64 = 0.0, OptionKind::Float { min: -1000.0, max: 1000.0 }, "TempVisitOffset",
        "temp-visit-offset", "Added to each move's visits before the temperature weights them; a move left with \
         none is never played.";
    hidden dirichlet_noise_epsilon: f64 = 0.0, OptionKind::Float { min: 0.0, max: 1.0 }, "DirichletNoiseEpsilon",
        "noise-epsilon", "Share of the root's priors replaced by Dirichlet noise, so that the search also looks \
         at moves the network rates low (training; not for normal play).";
    hidden dirichlet_noise_alpha: f64 = 0.3, OptionKind::Float { min: 0.0, max: 10_000_000.0 }, "DirichletNoiseAlpha",
        "noise-alpha", "Alpha of the Dirichlet noise: larger values spread it more evenly over the moves.";
    visible uci_opponent: String = "", OptionKind::Text, "UCI_Opponent", "uci-opponent",
        "Set by the GUI: the opponent's title, rating, kind and name; matched by Contempt's name=value entries.";
    visible uci_rating_adv: f64 = 0.0, OptionKind::Float { min: -10000.0, max: 10000.0 }, "UCI_RatingAdv",
        "uci-rating-adv", "Set by some GUIs: the Elo advantage over the opponent, the default contempt.";
    visible syzygy_path: String = "", OptionKind::Text, "SyzygyPath", "syzygy-paths",
        "Directories of Syzygy tablebases (.rtbw, .rtbz), separated by ':' (';' on Windows); empty = none.";
    visible syzygy_fast_play: bool = false, OptionKind::Check, "SyzygyFastPlay", "syzygy-fast-play",
        "With DTZ tables, the network picks only among the winning moves of the shortest DTZ (faster wins, \
         not always the best ones).";
    visible ponder: bool = false, OptionKind::Check, "Ponder", "ponder",
        "The GUI may ponder: a position from another game resets the tree at go, not at once. go ponder is searched \
         whatever this says (before the predicted move, so a miss keeps the tree), as by lc0 and Stockfish.";
    hidden virtual_clock: bool = false, OptionKind::Check, "VirtualClock", "virtual-clock",
        "Measures time on a deterministic virtual clock (VirtualNps, VirtualBatchCostMs) instead of the wall.";
    hidden virtual_nps: i64 = 2000, OptionKind::Spin { min: 1, max: 1_000_000_000 }, "VirtualNps", "virtual-nps",
        "Playouts per virtual second.";
    hidden virtual_batch_cost_ms: f64 = 0.0, OptionKind::Float { min: 0.0, max: 100_000.0 }, "VirtualBatchCostMs",
        "virtual-batch-cost-ms", "Virtual milliseconds charged per network batch on top of the playouts.";
    hidden tm_trace_file: String = "", OptionKind::Text, "TmTraceFile", "tm-trace-file",
        "Appends one JSON line per move with the time manager's trace to this file; empty disables.";
    visible log_file: String = "", OptionKind::Text, "LogFile", "logfile",
        "Appends every UCI line in and out, with its time, to this file (as lc0), starting with the last 200 lines \
         before it was set; <stderr> writes them to stderr; empty: none.";
}

/// The UCI type and range of a time-manager key: integers are spins, switches checks, and decimals `type string`
/// (a UCI spin holds no fractions; OpenBench sends `setoption name X value 0.42`), range-checked on set.
fn key_kind(key: &KeyOption) -> OptionKind {
    match key.param.kind {
        ParamKind::Int { min, max, .. } => OptionKind::Spin { min, max },
        ParamKind::Float { min, max, .. } => OptionKind::Float { min, max },
        // Choice and text keys are not key options (timemgr keeps them in the string); only switches reach this arm.
        ParamKind::Bool { .. } | ParamKind::Choice { .. } | ParamKind::Text { .. } => OptionKind::Check,
    }
}

/// A time-manager key as an option: hidden, since a player picks a manager by `TimeManager` and a tuner sets keys.
fn key_option_spec(key: &'static KeyOption) -> OptionSpec {
    OptionSpec {
        uci_name: &key.uci_name,
        flag: &key.flag,
        kind: key_kind(key),
        visibility: Visibility::Hidden,
        help: key.param.help,
    }
}

static KEY_OPTION_SPECS: LazyLock<Vec<OptionSpec>> =
    LazyLock::new(|| key_options().iter().map(key_option_spec).collect());

/// Every numeric and boolean key of every time manager and estimator as an option (`SmoothMaxMoveBudget`,
/// `--smooth-max-move-budget`), in timemgr's order; all are announced whichever manager is selected, so that
/// the `uci` answer is stable and match runners can send them.
pub fn key_option_specs() -> &'static [OptionSpec] {
    &KEY_OPTION_SPECS
}

/// The declared options, then the time-manager keys: everything `setoption` and the flags accept.
pub fn all_option_specs() -> impl Iterator<Item = &'static OptionSpec> {
    OPTIONS.iter().chain(key_option_specs())
}

/// lc0's flag that makes `uci` list the hidden options too (a switch: `--show-hidden`, or `--show-hidden=false`).
pub const SHOW_HIDDEN_FLAG: &str = "show-hidden";

/// The error for a flag that is neither an option's nor one of the caller's `extra_flags`, naming the nearest.
fn unknown_flag(flag: &str, extra_flags: &[&str]) -> OptionsError {
    if let Some(why) = lc0_names::lc0_only_flag(flag) {
        return OptionsError::Lc0Only { name: format!("--{flag}"), why };
    }
    let flags = all_option_specs().map(|spec| spec.flag).chain([SHOW_HIDDEN_FLAG]).chain(extra_flags.iter().copied());
    let renamed = lc0_names::renamed_flag(flag).map(str::to_string);
    let nearest = renamed.or(Suggestion::closest(flag, flags).0);
    let suggestion = Suggestion(nearest.map(|near| format!("--{near}")));
    OptionsError::UnknownFlag { flag: flag.to_string(), suggestion }
}

impl EngineOptions {
    /// Sets the option whose UCI name is `name` (case-insensitive) from its textual value; the value is
    /// checked against the option's type and range, and a time-manager string is parsed and validated here,
    /// once. On error nothing changes. A time-manager key changes its key in the `TimeManager` configuration
    /// (the later write wins: a key overrides itself, a later `TimeManager` replaces the whole configuration).
    pub fn set(&mut self, name: &str, raw: &str) -> Result<(), OptionsError> {
        if let Some(key) = key_option(name) {
            return self.set_time_manager_key(key, raw);
        }
        let mut candidate = self.clone();
        candidate.assign(name, raw).map_err(lc0_names::with_lc0_backend_hint)?;
        candidate.devices()?;
        if let Err(error) = contempt(&candidate.uci_opponent, &candidate.contempt, 0.0) {
            return Err(OptionsError::BadValue {
                option: "Contempt",
                value: candidate.contempt,
                allowed: error.to_string(),
            });
        }
        *self = candidate;
        Ok(())
    }

    fn set_time_manager_key(&mut self, key: &'static KeyOption, raw: &str) -> Result<(), OptionsError> {
        let spec = key_option_spec(key);
        let value = match spec.kind {
            OptionKind::Spin { .. } => Value::Int(<i64 as OptionField>::from_raw(&spec, raw)?),
            OptionKind::Float { .. } => Value::Float(<f64 as OptionField>::from_raw(&spec, raw)?),
            _ => Value::Bool(<bool as OptionField>::from_raw(&spec, raw)?),
        };
        let changed = key.set_in(self.time_manager.config(), &value).map_err(OptionsError::TimeManagerKey)?;
        self.time_manager = TimeManagerSetting::from_config(changed).map_err(|error| OptionsError::BadValue {
            option: spec.uci_name,
            value: raw.to_string(),
            allowed: format!("a value the time manager accepts ({error})"),
        })?;
        Ok(())
    }

    /// The parsed `TimeManager` configuration.
    pub fn time_manager_config(&self) -> &TimeManagerConfig {
        self.time_manager.config()
    }

    /// Each time-manager key's value as text, in the order of [`key_option_specs`]: its value in the selected
    /// manager or estimator, or its registry default when the key belongs to another one.
    fn key_values_as_text(&self) -> Vec<String> {
        let config = self.time_manager_config();
        key_options()
            .iter()
            .map(|key| {
                let value = key.value_in(config).unwrap_or_else(|| key.param.default_value());
                value.to_string()
            })
            .collect()
    }

    /// The search's parameters, every one from these options (whose defaults are lc0's).
    pub fn search_params(&self) -> SearchParams {
        SearchParams {
            threads: self.threads as usize,
            minibatch_size: self.minibatch_size as usize,
            max_prefetch: usize::try_from(self.max_prefetch).ok(),
            out_of_order_eval: self.out_of_order_eval,
            max_out_of_order_evals_factor: self.max_out_of_order_evals_factor as f32,
            gather_bound: self.gather_within_playouts_left,
            idling_minimum_work: self.idling_minimum_work as usize,
            thread_idling_threshold: self.thread_idling_threshold as usize,
            task_workers: self.task_workers as i32,
            picking_task_rule: PickingTaskRule {
                min_work: self.minimum_picking_work as u32,
                min_remaining_work: self.minimum_remaining_picking_work as u32,
            },
            exploration: self.exploration(),
            root_exploration: self.root_exploration(),
            sticky_endgames: self.sticky_endgames,
            solid_tree_threshold: self.solid_tree_threshold as u32,
            two_fold_draws: self.two_fold_draws,
            max_collision_visits: self.max_collision_visits as u32,
            max_collision_visits_scaling_start: self.max_collision_visits_scaling_start as u32,
            max_collision_visits_scaling_end: self.max_collision_visits_scaling_end as u32,
            max_collision_visits_scaling_power: self.max_collision_visits_scaling_power as f32,
            moves_left_max_effect: self.moves_left_max_effect as f32,
            moves_left_threshold: self.moves_left_threshold as f32,
            moves_left_slope: self.moves_left_slope as f32,
            moves_left_constant_factor: self.moves_left_constant_factor as f32,
            moves_left_scaled_factor: self.moves_left_scaled_factor as f32,
            moves_left_quadratic_factor: self.moves_left_quadratic_factor as f32,
            ram_limit_mb: self.ram_limit_mb as u64,
            verbose_move_stats: self.verbose_move_stats,
            log_live_stats: self.log_live_stats,
            multipv: self.multipv as usize,
            per_pv_counters: self.per_pv_counters,
            nps_limit: self.nodes_per_second_limit as f32,
            score_type: self.score_type,
            syzygy_fast_play: self.syzygy_fast_play,
            draw_score: self.draw_score as f32,
            contempt_mode: self.contempt_mode,
            wdl_rescale: self.wdl_rescale_params(),
            wdl_max_s: self.wdl_max_s as f32,
            wdl_eval_objectivity: self.wdl_eval_objectivity as f32,
            move_temperature: MoveTemperature {
                initial: self.temperature as f32,
                decay_moves: self.temp_decay_moves as u32,
                decay_delay_moves: self.temp_decay_delay_moves as u32,
                cutoff_move: self.temp_cutoff_move as u32,
                endgame: self.temp_endgame as f32,
                value_cutoff: self.temp_value_cutoff as f32,
                visit_offset: self.temp_visit_offset as f32,
            },
            root_noise: RootNoise {
                epsilon: self.dirichlet_noise_epsilon as f32,
                alpha: self.dirichlet_noise_alpha as f32,
            },
        }
    }

    /// cpuct and first-play urgency below the root.
    fn exploration(&self) -> Exploration {
        Exploration {
            cpuct: self.cpuct as f32,
            cpuct_base: self.cpuct_base as f32,
            cpuct_factor: self.cpuct_factor as f32,
            fpu_absolute: match self.fpu_strategy {
                FpuStrategy::Reduction => false,
                FpuStrategy::Absolute => true,
            },
            fpu_value: self.fpu_value as f32,
        }
    }

    /// The root's, as lc0's `BaseSearchParams` resolves them: the `…AtRoot` cpuct only with
    /// `RootHasOwnCpuctParams`, the other nodes' FPU with `FpuStrategyAtRoot=same`.
    fn root_exploration(&self) -> Exploration {
        let below = self.exploration();
        let (cpuct, cpuct_base, cpuct_factor) = if self.root_has_own_cpuct_params {
            (self.cpuct_at_root as f32, self.cpuct_base_at_root as f32, self.cpuct_factor_at_root as f32)
        } else {
            (below.cpuct, below.cpuct_base, below.cpuct_factor)
        };
        let (fpu_absolute, fpu_value) = match self.fpu_strategy_at_root {
            RootFpuStrategy::Same => (below.fpu_absolute, below.fpu_value),
            RootFpuStrategy::Reduction => (false, self.fpu_value_at_root as f32),
            RootFpuStrategy::Absolute => (true, self.fpu_value_at_root as f32),
        };
        Exploration { cpuct, cpuct_base, cpuct_factor, fpu_absolute, fpu_value }
    }

    /// lc0's WDL rescaling from the contempt options (params.cc 687–703); `Contempt` is valid (`set` checks it).
    fn wdl_rescale_params(&self) -> RescaleParams {
        let value = contempt(&self.uci_opponent, &self.contempt, self.uci_rating_adv as f32)
            .unwrap_or(self.uci_rating_adv as f32);
        let (max, attenuation) = (self.contempt_max_value as f32, self.wdl_contempt_attenuation as f32);
        if self.wdl_calibration_elo == 0.0 {
            accurate_params(
                value, self.wdl_draw_rate_target as f32, self.wdl_draw_rate_reference as f32,
                self.wdl_book_exit_bias as f32, max, attenuation,
            )
        } else {
            simplified_params(
                value, self.wdl_draw_rate_reference as f32, self.wdl_calibration_elo as f32, max, attenuation,
            )
        }
    }

    /// The options of the generic stoppers (smart pruning, `go nodes` semantics, the RAM limit).
    pub fn common_stopper_options(&self) -> CommonStopperOptions {
        CommonStopperOptions {
            smart_pruning_factor: self.smart_pruning_factor as f32,
            smart_pruning_minimum_batches: self.smart_pruning_minimum_batches as u32,
            nodes_as_playouts: self.nodes_as_playouts,
            minimum_kld_gain_per_node: self.minimum_kld_gain_per_node as f32,
            kld_gain_average_interval: self.kld_gain_average_interval as u64,
            ram_limit_mb: self.ram_limit_mb as u64,
        }
    }

    /// The backend to open, without its cache (the caller wraps the cache so it can drop it per game);
    /// fails when the torch backend's weights file is found nowhere.
    pub fn backend_options(&self) -> Result<BackendOptions, OptionsError> {
        let weights = match self.backend {
            BackendKind::Torch | BackendKind::Onnx => self.resolve_weights_path()?,
            BackendKind::Uniform | BackendKind::Random | BackendKind::Replay => PathBuf::from(&self.weights_file),
        };
        Ok(BackendOptions {
            weights,
            kind: self.backend,
            devices: self.devices()?,
            precision: self.precision,
            cpu_threads: usize::try_from(self.backend_threads).ok(),
            rust_batch_limit: usize::try_from(self.rust_batch_limit).ok(),
            cuda_graphs: self.cuda_graphs,
            cudnn_benchmark: self.cudnn_benchmark,
            fused_convolutions: self.fused_convolutions,
            cpu_backends: self.cpu_backends(),
            policy_temperature: self.policy_temperature as f32,
            exact_softmax: false,
            cache_size: 0,
            transposed_moves: if self.lc0_transposed_policy {
                TransposedMoves::Lc0HalfTurn
            } else {
                TransposedMoves::AsPlanes
            },
            history_fill: self.history_fill,
            test_backend_delay: Duration::from_secs_f64(self.test_backend_delay_ms / 1000.0),
            largest_batch: self.largest_batch(),
            record_file: (!self.record_file.is_empty()).then(|| PathBuf::from(&self.record_file)),
        })
    }

    /// The largest batch the search sends, for the onnx backend's TensorRT profile: MinibatchSize, or MaxPrefetch
    /// where larger (0: the backend's recommended batch size). 0 for the other backends, so that changing the batch
    /// size does not reload their network.
    fn largest_batch(&self) -> usize {
        if self.backend != BackendKind::Onnx {
            return 0;
        }
        let minibatch = usize::try_from(self.minibatch_size).unwrap_or(0);
        minibatch.max(usize::try_from(self.max_prefetch).unwrap_or(0))
    }

    /// How many CPU backends `BackendDevice=auto` opens without a GPU: one a search thread, and with `Threads=0`
    /// one a core this process may use, so that the defaults keep every core busy (on the 2-core Xeon with AMX,
    /// 2.7 times lc0 onednn's defaults against 1.5 times with one backend; BENCHMARKS.md, "Every core"). One where
    /// libtorch's own threads take the cores (`BackendThreads` other than 1 and −1; with −1 an attention body's one
    /// backend takes their threads, `nn`'s choice once the network is loaded), and on the virtual clock, which
    /// replays a game exactly only with one search thread.
    fn cpu_backends(&self) -> usize {
        match usize::try_from(self.threads) {
            _ if !matches!(self.backend_threads, -1 | 1) || self.virtual_clock => 1,
            Ok(0) | Err(_) => std::thread::available_parallelism().map_or(1, usize::from),
            Ok(threads) => threads,
        }
    }

    fn devices(&self) -> Result<Vec<DeviceChoice>, OptionsError> {
        nn::parse_devices(&self.backend_device).map_err(|_| OptionsError::BadValue {
            option: "BackendDevice",
            value: self.backend_device.clone(),
            allowed: "auto, cpu, cuda or cuda:N (N = the GPU's index), or several separated by commas, each its own \
                      backend taking batches in turn (cuda:0,cuda:1)"
                .to_string(),
        })
    }

    /// Builds options from defaults and lc0-style flags (`--threads=2`, `--weights PATH`, `--ponder`,
    /// `--no-ponder`); any other argument is an error.
    pub fn from_cli_flags(args: &[String]) -> Result<EngineOptions, OptionsError> {
        let mut options = EngineOptions::default();
        options.apply_cli_flags(args, &[])?;
        Ok(options)
    }

    /// The UCI engine's options, as lc0 builds them: a configuration file's flags (`--config=PATH`, else the
    /// first `kairos.config` in `default_dirs`), then the command line's, which win. Returns the file read, if any.
    pub fn from_config_and_cli_flags(
        args: &[String],
        default_dirs: &[PathBuf],
    ) -> Result<(EngineOptions, Option<PathBuf>), OptionsError> {
        let config = config_file::read(args, default_dirs)?;
        let mut options = EngineOptions::default();
        if let Some(path) = &config.path {
            options.apply_cli_flags(&config.flags, &[]).map_err(|source| match source {
                OptionsError::HelpRequested(_) => source,
                source => OptionsError::ConfigFileFlag { path: path.clone(), source: Box::new(source) },
            })?;
        }
        options.apply_cli_flags(&config.rest, &[])?;
        Ok((options, config.path))
    }

    /// Applies lc0-style flags on top of the current values; flags named in `extra_flags` (without dashes)
    /// are not options but are returned as `(flag, value)` pairs for the caller's own parsing, in order.
    pub fn apply_cli_flags(
        &mut self,
        args: &[String],
        extra_flags: &[&str],
    ) -> Result<Vec<(String, String)>, OptionsError> {
        let options = self;
        let mut extras = Vec::new();
        let mut index = 0;
        while index < args.len() {
            let argument = &args[index];
            index += 1;
            let Some(body) = argument.strip_prefix("--") else {
                return Err(OptionsError::NotAFlag { argument: argument.clone() });
            };
            if body == "help" {
                return Err(OptionsError::HelpRequested(help_text()));
            }
            let (flag, inline_value) = match body.split_once('=') {
                Some((flag, value)) => (flag, Some(value.to_string())),
                None => (body, None),
            };
            if flag == SHOW_HIDDEN_FLAG {
                options.show_hidden = match inline_value {
                    None => true,
                    Some(value) => parse_show_hidden(&value)?,
                };
                continue;
            }
            let spec = all_option_specs().find(|spec| spec.flag == flag);
            let negated = flag
                .strip_prefix("no-")
                .and_then(|positive| all_option_specs().find(|spec| spec.flag == positive))
                .filter(|spec| spec.kind == OptionKind::Check);
            if spec.is_none() && negated.is_none() && !extra_flags.contains(&flag) {
                return Err(unknown_flag(flag, extra_flags));
            }
            let is_switch = matches!(spec, Some(spec) if spec.kind == OptionKind::Check);
            let value = match inline_value {
                Some(value) => value,
                None if is_switch || negated.is_some() => "true".to_string(),
                None => {
                    let next = args.get(index).filter(|next| !next.starts_with("--"));
                    let value = next.ok_or_else(|| OptionsError::MissingValue { flag: flag.to_string() })?;
                    index += 1;
                    value.clone()
                }
            };
            match (spec.or(negated), negated.is_some()) {
                (Some(spec), false) => options.set(spec.uci_name, &value)?,
                (Some(spec), true) => {
                    let value = !<bool as OptionField>::from_raw(spec, &value)?;
                    options.set(spec.uci_name, &value.to_string())?;
                }
                (None, _) if extra_flags.contains(&flag) => extras.push((flag.to_string(), value)),
                (None, _) => return Err(unknown_flag(flag, extra_flags)),
            }
        }
        Ok(extras)
    }

    /// The `option name …` lines answering the UCI `uci` command, showing the current values as defaults: the
    /// visible options, and the hidden ones too with [`EngineOptions::show_hidden`].
    pub fn uci_option_lines(&self) -> Vec<String> {
        self.announced_options()
            .map(|(spec, value)| match spec.kind {
                OptionKind::Check => format!("option name {} type check default {value}", spec.uci_name),
                OptionKind::Spin { min, max } => {
                    format!("option name {} type spin default {value} min {min} max {max}", spec.uci_name)
                }
                OptionKind::Float { .. } | OptionKind::Text => {
                    format!("option name {} type string default {value}", spec.uci_name).trim_end().to_string()
                }
                OptionKind::Combo(choices) => {
                    let vars: String = choices.iter().map(|choice| format!(" var {choice}")).collect();
                    format!("option name {} type combo default {value}{vars}", spec.uci_name)
                }
                OptionKind::Button => format!("option name {} type button", spec.uci_name),
            })
            .collect()
    }

    /// Every option `uci` lists, with its current value as text, in the order of [`all_option_specs`].
    pub fn announced_options(&self) -> impl Iterator<Item = (&'static OptionSpec, String)> {
        let show_hidden = self.show_hidden;
        all_option_specs()
            .zip(self.values_as_text().into_iter().chain(self.key_values_as_text()))
            .filter(move |(spec, _)| show_hidden || spec.visibility == Visibility::Visible)
    }

    /// The weights file to load: the configured path if it exists as given, otherwise, for a relative path, the
    /// same path under the executable's directory or an ancestor (a checkout's `target/release/kairos` finds
    /// `weights/`), then a file of that name beside the executable, where a release keeps its network as lc0 does.
    pub fn resolve_weights_path(&self) -> Result<PathBuf, OptionsError> {
        let given = Path::new(&self.weights_file);
        let mut tried = vec![given.to_path_buf()];
        if given.is_relative() {
            if let Ok(exe) = std::env::current_exe() {
                tried.extend(exe.ancestors().skip(1).map(|dir| dir.join(given)));
                if let Some(beside) = exe.parent().zip(given.file_name()).map(|(dir, name)| dir.join(name)) {
                    if !tried.contains(&beside) {
                        tried.push(beside);
                    }
                }
            }
        }
        match tried.iter().find(|path| path.is_file()) {
            Some(path) => Ok(path.clone()),
            None => Err(OptionsError::WeightsNotFound { given: self.weights_file.clone(), tried }),
        }
    }
}

/// The value of `--show-hidden=VALUE`: a switch's words, as any check option takes them.
fn parse_show_hidden(value: &str) -> Result<bool, OptionsError> {
    let spec = OptionSpec {
        uci_name: "--show-hidden",
        flag: SHOW_HIDDEN_FLAG,
        kind: OptionKind::Check,
        visibility: Visibility::Visible,
        help: "",
    };
    <bool as OptionField>::from_raw(&spec, value)
}

/// The help listing of every flag with its type, default and help line.
pub fn help_text() -> String {
    let defaults = EngineOptions::default().values_as_text();
    let mut text = String::from(
        "Options a player sets, which uci lists (command-line flag, UCI name, allowed values, default):\n",
    );
    let write_option = |text: &mut String, spec: &OptionSpec, default: &str| {
        let _ = writeln!(
            text,
            "  --{:<30} {}\n      {}; {}; default: {}",
            spec.flag,
            spec.uci_name,
            spec.help,
            spec.kind.allowed(),
            if default.is_empty() { "(empty)" } else { default }
        );
    };
    let options = || OPTIONS.iter().zip(&defaults);
    for (spec, default) in options().filter(|(spec, _)| spec.visibility == Visibility::Visible) {
        write_option(&mut text, spec, default);
    }
    let _ = writeln!(
        text,
        "\nHidden options (uci lists them only after --{SHOW_HIDDEN_FLAG}; setoption, flags and the configuration \
         file take them all the same):"
    );
    for (spec, default) in options().filter(|(spec, _)| spec.visibility == Visibility::Hidden) {
        write_option(&mut text, spec, default);
    }
    text.push_str(
        "\nTime-manager keys, hidden options too (each sets its key in the TimeManager string; refused unless \
         TimeManager selects its manager or estimator; the later of a key and TimeManager wins):\n",
    );
    for (key, spec) in key_options().iter().zip(key_option_specs()) {
        let _ = writeln!(
            text,
            "  --{:<30} {}\n      {} {}: {}; {}; default: {}",
            spec.flag,
            spec.uci_name,
            key.component.name,
            key.param.name,
            spec.help,
            spec.kind.allowed(),
            key.param.default_value()
        );
    }
    let _ = writeln!(
        text,
        "\nListing:\n  --{SHOW_HIDDEN_FLAG}\n      The uci answer lists the hidden options too (lc0's flag; also a \
         line of the configuration file)."
    );
    let _ = write!(
        text,
        "\nConfiguration file (UCI mode):\n  --{:<30} PATH\n      Flags read before the command line's, one a line \
         (--flag=value or flag=value, # for comments); without it the first {} beside the binary, in \
         $XDG_CONFIG_HOME/kairos (~/.config/kairos) or in $XDG_CONFIG_DIRS/kairos (/etc/xdg/kairos); --config= \
         reads none.\n",
        config_file::FLAG,
        config_file::DEFAULT_NAME
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lc0 909a4082's backends, its `REGISTER_NETWORK` names (src/neural/backends).
    const LC0_BACKENDS: &[&str] = &[
        "blas", "check", "cuda", "cuda-auto", "cuda-fp16", "cudnn", "cudnn-auto", "cudnn-fp16", "demux", "dx12",
        "eigen", "metal", "multiplexing", "onednn", "onnx-coreml", "onnx-cpu", "onnx-cuda", "onnx-dml",
        "onnx-migraphx", "onnx-rocm", "onnx-trt", "opencl", "random", "recordreplay", "roundrobin", "sycl",
        "sycl-auto", "sycl-fp16", "tensorflow-cc", "tensorflow-cc-cpu", "trivial", "xla",
    ];

    #[test]
    fn each_of_lc0s_backends_is_taken_or_refused_with_what_kairos_sets_instead() {
        for &name in LC0_BACKENDS {
            let mut options = EngineOptions::default();
            match options.set("Backend", name) {
                Ok(()) => assert_eq!(name, "random", "only lc0's random shares its name"),
                Err(error) => {
                    let text = error.to_string();
                    let hint = format!("lc0's {name} backend is ");
                    assert!(text.contains(&hint), "{text}");
                    assert_eq!(options, EngineOptions::default(), "nothing changed");
                }
            }
        }
        let cuda = EngineOptions::default().set("Backend", "cuda-fp16").unwrap_err().to_string();
        let expected = "is Backend=torch (the default) with BackendDevice=cuda (or cuda:N), fp16 there by default";
        assert!(cuda.ends_with(expected), "{cuda}");
        let cpu = EngineOptions::default().set("Backend", "onednn").unwrap_err().to_string();
        assert!(cpu.contains("is Backend=torch (the default) with BackendDevice=cpu"), "{cpu}");
        let other = EngineOptions::default().set("Backend", "foo").unwrap_err().to_string();
        assert!(!other.contains("lc0's"), "{other}");
    }

    #[test]
    fn lc0s_backend_options_point_to_backend_device() {
        let by_name = EngineOptions::default().set("BackendOptions", "gpu=1").unwrap_err().to_string();
        assert!(by_name.starts_with("unknown option 'BackendOptions'; did you mean 'BackendDevice'?"), "{by_name}");
        let by_flag = EngineOptions::from_cli_flags(&["--backend-opts=gpu=1".to_string()]).unwrap_err().to_string();
        assert!(by_flag.starts_with("unknown flag '--backend-opts'; did you mean '--backend-device'?"), "{by_flag}");
    }

    #[test]
    fn a_contempt_list_is_checked_when_set_and_reaches_the_search_as_lc0s_parameters() {
        let mut options = EngineOptions::default();
        let error = options.set("Contempt", "stockfish=lots").unwrap_err().to_string();
        assert!(error.contains("Contempt") && error.contains("name=number"), "{error}");
        assert_eq!(options.contempt, "", "nothing changed");
        options.set("Contempt", "stockfish=100,lc0=-20").unwrap();
        options.set("UCI_Opponent", "none 3500 computer Stockfish 17").unwrap();
        // 100 Elo against Stockfish: the hand-worked diff of the wdl_rescale tests.
        let params = options.search_params();
        assert!((params.wdl_rescale.diff - 0.874_448_9).abs() < 1e-5, "{:?}", params.wdl_rescale);
        assert_eq!(params.contempt_mode, ContemptMode::Play);
        options.set("UCI_Opponent", "none 2800 computer Lc0 0.31").unwrap();
        assert!(options.search_params().wdl_rescale.diff < 0.0, "-20 against lc0");
    }

    #[test]
    fn component_configs_carry_the_option_values() {
        let mut options = EngineOptions::default();
        options.set("FpuStrategy", "absolute").unwrap();
        options.set("Backend", "uniform").unwrap();
        options.set("SmartPruningFactor", "0").unwrap();
        assert!(options.search_params().exploration.fpu_absolute);
        assert_eq!(options.search_params().exploration.cpuct, 1.745);
        assert_eq!(options.common_stopper_options().smart_pruning_factor, 0.0);
        let backend = options.backend_options().unwrap();
        assert_eq!((backend.kind, backend.cache_size), (BackendKind::Uniform, 0));
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| arg.to_string()).collect()
    }

    #[test]
    fn defaults_match_lc0_uci_defaults() {
        let options = EngineOptions::default();
        assert_eq!(options.cpuct, 1.745);
        assert_eq!(options.cpuct_base, 38739.0);
        assert_eq!(options.cpuct_factor, 3.894);
        assert_eq!(options.fpu_strategy.name(), "reduction");
        assert_eq!(options.fpu_value, 0.33);
        assert_eq!(options.policy_temperature, 1.359);
        assert_eq!(options.smart_pruning_factor, 1.33);
        assert_eq!(options.move_overhead_ms, 200);
        assert_eq!(options.time_manager.text(), "regime");
        assert_eq!(options.nn_cache_size, 2_000_000);
        assert_eq!(options.max_prefetch, -1);
        assert!(options.out_of_order_eval && options.sticky_endgames && options.two_fold_draws);
        assert!(!options.show_wdl && !options.show_moves_left && !options.nodes_as_playouts);
        assert_eq!((options.multipv, options.score_type.name()), (1, "WDL_mu"));
        assert_eq!(options.virtual_nps, 2000);
    }

    #[test]
    fn every_option_has_distinct_names_and_its_default_passes_its_own_validation() {
        let defaults = EngineOptions::default();
        for (spec, value) in OPTIONS.iter().zip(defaults.values_as_text()) {
            let mut options = EngineOptions::default();
            options.set(spec.uci_name, &value).unwrap_or_else(|e| panic!("{}: {e}", spec.uci_name));
            // A button has no value to set back: setting it presses it.
            let pressed = spec.kind == OptionKind::Button && options.clear_tree.take();
            assert_eq!(options, defaults, "{}", spec.uci_name);
            assert_eq!(pressed, spec.kind == OptionKind::Button, "{}", spec.uci_name);
            let same_uci = all_option_specs().filter(|other| other.uci_name.eq_ignore_ascii_case(spec.uci_name));
            let same_flag = all_option_specs().filter(|other| other.flag == spec.flag);
            assert_eq!((same_uci.count(), same_flag.count()), (1, 1), "{}", spec.uci_name);
        }
    }

    #[test]
    fn setoption_names_are_case_insensitive_and_combos_canonical() {
        let mut options = EngineOptions::default();
        options.set("threads", "3").unwrap();
        options.set("FPUSTRATEGY", "Absolute").unwrap();
        options.set("uci_showwdl", "true").unwrap();
        assert_eq!((options.threads, options.fpu_strategy.name(), options.show_wdl), (3, "absolute", true));
        options.set("TimeManager", "smooth(max-move-budget=0.5)").unwrap();
        assert_eq!(options.time_manager.text(), "smooth(max-move-budget=0.5)");
        options.set("scoretype", "wdl_MU").unwrap();
        options.set("ScoreType", "w-l").unwrap();
        options.set("MultiPV", "4").unwrap();
        assert_eq!((options.score_type.name(), options.search_params().multipv), ("W-L", 4));
        assert_eq!(options.search_params().score_type, ScoreType::WinMinusLoss);
        options.set("BackendDevice", "cuda:1").unwrap();
        assert_eq!(options.backend_options().unwrap().devices, vec![DeviceChoice::Cuda(1)]);
    }

    #[test]
    fn an_engine_evaluates_on_one_core_unless_backend_threads_says_otherwise() {
        // Like lc0's blas backend (blas_cores=1) and a Stockfish-class Threads=1: two engines on two cores must
        // not each start a pool of one thread per core.
        // By default (-1) the network's body decides (nn's CpuLayout): one thread a backend for a residual tower.
        let mut options = EngineOptions::default();
        assert_eq!(options.backend_options().unwrap().cpu_threads, None);
        options.set("BackendThreads", "1").unwrap();
        assert_eq!(options.backend_options().unwrap().cpu_threads, Some(1));
        options.set("BackendThreads", "0").unwrap();
        assert_eq!(options.backend_options().unwrap().cpu_threads, Some(0));
        let error = options.set("BackendThreads", "-2").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid value '-2' for option BackendThreads: expected an integer from -1 to 256"
        );
    }

    #[test]
    fn a_cpu_without_gpu_gets_a_backend_a_search_thread_and_threads_zero_one_a_core() {
        let mut options = EngineOptions::default();
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(options.backend_options().unwrap().cpu_backends, cores, "Threads=0: one a core");
        options.set("Threads", "3").unwrap();
        assert_eq!(options.backend_options().unwrap().cpu_backends, 3);
        options.set("BackendThreads", "0").unwrap();
        assert_eq!(options.backend_options().unwrap().cpu_backends, 1, "libtorch's threads take the cores");
        options.set("BackendThreads", "-1").unwrap();
        assert_eq!(options.backend_options().unwrap().cpu_backends, 3, "an attention body's one backend takes 3");
        options.set("Threads", "0").unwrap();
        options.set("VirtualClock", "true").unwrap();
        assert_eq!(options.backend_options().unwrap().cpu_backends, 1, "the virtual clock replays one thread");
    }

    #[test]
    fn rust_batch_limit_minus_one_leaves_the_choice_to_the_precision_and_zero_turns_the_rust_network_off() {
        let mut options = EngineOptions::default();
        assert_eq!(options.backend_options().unwrap().rust_batch_limit, None);
        options.set("RustBatchLimit", "0").unwrap();
        assert_eq!(options.backend_options().unwrap().rust_batch_limit, Some(0));
        options.set("RustBatchLimit", "8").unwrap();
        assert_eq!(options.backend_options().unwrap().rust_batch_limit, Some(8));
        let error = options.set("RustBatchLimit", "-2").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid value '-2' for option RustBatchLimit: expected an integer from -1 to 1024"
        );
    }

    #[test]
    fn bad_values_name_the_option_value_and_range() {
        let mut options = EngineOptions::default();
        let error = options.set("Threads", "129").unwrap_err();
        assert_eq!(error.to_string(), "invalid value '129' for option Threads: expected an integer from 0 to 128");
        let error = options.set("CPuct", "nan").unwrap_err();
        assert_eq!(error.to_string(), "invalid value 'nan' for option CPuct: expected a number from 0 to 100");
        let error = options.set("Backend", "cudnn").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid value 'cudnn' for option Backend: expected one of torch, onnx, uniform, random, replay; lc0's \
             cudnn backend is Backend=torch (the default) with BackendDevice=cuda (or cuda:N) and Precision=fp32"
        );
        assert!(matches!(options.set("Ponder", "maybe"), Err(OptionsError::BadValue { option: "Ponder", .. })));
        assert!(matches!(options.set("Hash", "16"), Err(OptionsError::UnknownOption { .. })));
        assert_eq!(
            options.set("thread", "2").unwrap_err().to_string(),
            "unknown option 'thread'; did you mean 'Threads'?; send 'uci' (or run 'kairos --help') to list the \
             options"
        );
        let error = options.set("SmoothMaxMoveBudgte", "0.4").unwrap_err().to_string();
        assert!(error.contains("did you mean 'SmoothMaxMoveBudget'?"), "time-manager keys are options too: {error}");
        let error = options.set("TimeManager", "smooth,legacy").unwrap_err();
        assert!(matches!(error, OptionsError::BadValue { option: "TimeManager", .. }), "{error}");
        let error = options.set("TimeManager", "ctm(model=/nonexistent/ctm.safetensors)").unwrap_err().to_string();
        assert!(error.contains("/nonexistent/ctm.safetensors") && error.contains("kairos tm-train"), "{error}");
        let error = options.set("BackendDevice", "gpu").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid value 'gpu' for option BackendDevice: expected auto, cpu, cuda or cuda:N (N = the GPU's index), or \
             several separated by commas, each its own backend taking batches in turn (cuda:0,cuda:1)"
        );
        let error = options.set("ScoreType", "cp").unwrap_err();
        assert!(error.to_string().contains("expected one of centipawn, centipawn_with_drawscore"), "{error}");
        assert!(matches!(options.set("MultiPV", "0"), Err(OptionsError::BadValue { option: "MultiPV", .. })));
        assert_eq!(options, EngineOptions::default(), "failed sets change nothing");
    }

    #[test]
    fn the_time_manager_is_validated_when_it_is_set_and_not_again_by_other_options() {
        let committed =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/2026-11-24-ctm-data/ctm-1.0.safetensors");
        let model = std::env::temp_dir().join(format!("kairos-options-ctm-{}.safetensors", std::process::id()));
        std::fs::copy(&committed, &model).unwrap();
        let mut options = EngineOptions::default();
        options.set("TimeManager", &format!("ctm(model={})", model.display())).unwrap();
        std::fs::remove_file(&model).unwrap();
        // The model is gone: a manager can no longer be built, yet an unrelated option is set without reading it.
        options.set("Threads", "2").unwrap();
        options.set("MoveOverheadMs", "50").unwrap();
        let error = options.time_manager.build().err().unwrap().to_string();
        assert!(error.contains(&model.display().to_string()), "{error}");
        assert_eq!(options.time_manager.text(), format!("ctm(model={})", model.display()));
    }

    #[test]
    fn cli_flags_accept_equals_separate_value_switches_and_negations() {
        let options = EngineOptions::from_cli_flags(&args(&[
            "--threads=2", "--weights", "/tmp/net.pb.gz", "--show-wdl", "--ponder", "--cpuct=2.5",
            "--no-two-fold-draws", "--sticky-endgames=false",
        ]))
        .unwrap();
        assert_eq!(options.threads, 2);
        assert_eq!(options.weights_file, "/tmp/net.pb.gz");
        assert!(options.show_wdl && options.ponder && !options.two_fold_draws && !options.sticky_endgames);
        assert_eq!(options.cpuct, 2.5);
    }

    #[test]
    fn cli_errors_are_typed() {
        let parse = |list: &[&str]| EngineOptions::from_cli_flags(&args(list)).unwrap_err();
        let hash = OptionsError::UnknownFlag { flag: "hash".into(), suggestion: Suggestion(None) };
        assert_eq!(parse(&["--hash=16"]), hash);
        assert_eq!(parse(&["--hash"]), hash, "not 'needs a value'");
        assert_eq!(parse(&["--hash", "16"]), hash);
        assert_eq!(
            parse(&["--thread=2"]).to_string(),
            "unknown flag '--thread'; did you mean '--threads'?; run 'kairos --help' to list the flags"
        );
        assert_eq!(parse(&["threads=2"]), OptionsError::NotAFlag { argument: "threads=2".into() });
        assert_eq!(parse(&["--weights"]), OptionsError::MissingValue { flag: "weights".into() });
        assert_eq!(parse(&["--threads", "--ponder"]), OptionsError::MissingValue { flag: "threads".into() });
        assert!(matches!(parse(&["--nncache=-1"]), OptionsError::BadValue { option: "NNCacheSize", .. }));
        assert!(matches!(parse(&["--help"]), OptionsError::HelpRequested(text) if text.contains("--virtual-nps")));
    }

    #[test]
    fn extra_flags_are_handed_back_in_order() {
        let mut options = EngineOptions { threads: 5, cpuct: 3.0, ..EngineOptions::default() };
        let extras = options
            .apply_cli_flags(
                &args(&["--nodes=100", "--threads=1", "--fen", "8/8/8/8/8/8/8/K1k5 w - - 0 1"]),
                &["nodes", "fen"],
            )
            .unwrap();
        assert_eq!((options.threads, options.cpuct), (1, 3.0), "flags apply on top of the given values");
        assert_eq!(extras, vec![("nodes".into(), "100".into()), ("fen".into(), "8/8/8/8/8/8/8/K1k5 w - - 0 1".into())]);
    }

    /// Every option listed, as `--show-hidden` lists them.
    fn showing_hidden() -> EngineOptions {
        EngineOptions { show_hidden: true, ..EngineOptions::default() }
    }

    /// The names of the options of `option name …` lines.
    fn announced_names(lines: &[String]) -> Vec<&str> {
        lines.iter().filter_map(|line| line.strip_prefix("option name ")?.split(" type ").next()).collect()
    }

    #[test]
    fn uci_lines_follow_the_uci_grammar() {
        let lines = showing_hidden().uci_option_lines();
        assert_eq!(lines.len(), OPTIONS.len() + key_option_specs().len());
        assert!(lines.contains(&"option name Threads type spin default 0 min 0 max 128".to_string()));
        assert!(lines.contains(&"option name UCI_ShowWDL type check default false".to_string()));
        assert!(lines.contains(&"option name CPuct type string default 1.745".to_string()));
        assert!(lines.contains(&"option name TmTraceFile type string default".to_string()));
        assert!(lines
            .contains(&"option name FpuStrategy type combo default reduction var reduction var absolute".to_string()));
    }

    #[test]
    fn time_manager_keys_are_announced_with_registry_types_and_current_values() {
        let lines = showing_hidden().uci_option_lines();
        for expected in [
            "option name SmoothMaxMoveBudget type string default 0.3",
            "option name SmoothTrendNpsUpdatePeriodMs type spin default 0 min 0 max 600000",
            "option name SmoothNeedMoreTime type check default false",
            "option name MleLegacyMidpoint type string default 51.5",
            "option name LegacySlowmover type string default 1.0",
        ] {
            assert!(lines.contains(&expected.to_string()), "{expected} missing");
        }
        let mut options = showing_hidden();
        options.set("TimeManager", "smooth(preset=lc0)").unwrap();
        let lines = options.uci_option_lines();
        assert!(lines.contains(&"option name SmoothMaxMoveBudget type string default 0.42".to_string()));
        assert!(lines.contains(&"option name MleLegacyMidpoint type string default 45.2".to_string()));
        assert!(lines.contains(&"option name SmoothNeedMoreTime type check default true".to_string()));
    }

    #[test]
    fn uci_lists_the_options_a_player_sets_and_the_rest_only_with_show_hidden() {
        // The options lc0 909a4082 declares kAlwaysVisible, which even its simple mode lists (src/engine.cc,
        // src/chess/uciloop.cc, src/engine_loop.cc, src/neural/shared_params.cc, src/search/classic/params.cc,
        // src/search/classic/wrapper.cc and stoppers/): a player's options.
        const LC0_ALWAYS_VISIBLE: &[&str] = &[
            "WeightsFile", "Threads", "MoveOverheadMs", "SyzygyPath", "Ponder", "UCI_Chess960", "UCI_ShowWDL",
            "UCI_ShowMovesLeft", "UCI_ShowEPS", "LogFile", "MultiPV", "Contempt", "RamLimitMb",
        ];
        // The options lc0 declares kProOnly, which it lists only with --show-hidden.
        const LC0_PRO_ONLY: &[&str] = &[
            "CPuctAtRoot", "CPuctBaseAtRoot", "CPuctFactorAtRoot", "RootHasOwnCpuctParams", "FpuStrategyAtRoot",
            "FpuValueAtRoot", "ClearTree", "StrictTiming", "LogLiveStats", "NodesAsPlayouts", "MinimumKLDGainPerNode",
            "KLDGainAverageInterval", "Temperature", "TempDecayMoves", "TempDecayDelayMoves", "TempCutoffMove",
            "TempEndgame", "TempValueCutoff", "TempVisitOffset", "DirichletNoiseEpsilon", "DirichletNoiseAlpha",
            "ContemptMaxValue", "WDLContemptAttenuation", "WDLMaxS", "WDLDrawRateTarget", "WDLBookExitBias",
        ];
        // Beside those, what a player sets in a GUI: the backend and its device and precision, batch and cache
        // sizes, the time manager, Syzygy's fast play, how the score is shown, the draw score and contempt's
        // mode and calibration, the opponent a GUI names, a speed limit and the move statistics.
        const KAIROS_PLAYER_OPTIONS: &[&str] = &[
            "Backend", "BackendDevice", "Precision", "MinibatchSize", "NNCacheSize", "TimeManager",
            "SmartPruningFactor", "SyzygyFastPlay", "ScoreType", "DrawScore", "ContemptMode", "WDLCalibrationElo",
            "UCI_Opponent", "UCI_RatingAdv", "NodesPerSecondLimit", "VerboseMoveStats",
        ];
        let lines = EngineOptions::default().uci_option_lines();
        let mut listed = announced_names(&lines);
        listed.sort_unstable();
        let mut expected: Vec<&str> = LC0_ALWAYS_VISIBLE.iter().chain(KAIROS_PLAYER_OPTIONS).copied().collect();
        expected.sort_unstable();
        assert_eq!(listed, expected, "uci lists exactly the player's options");
        assert!((20..=40).contains(&listed.len()), "a GUI-sized list: {}", listed.len());
        for name in LC0_PRO_ONLY {
            let spec = OPTIONS.iter().find(|spec| spec.uci_name == *name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(spec.visibility, Visibility::Hidden, "{name} is hidden, as in lc0");
        }
        assert!(key_option_specs().iter().all(|spec| spec.visibility == Visibility::Hidden), "the keys are hidden");

        let all = showing_hidden().uci_option_lines();
        let every_name: Vec<&str> = all_option_specs().map(|spec| spec.uci_name).collect();
        assert_eq!(announced_names(&all), every_name, "--show-hidden lists every option, in the table's order");
        assert!(lines.iter().all(|line| all.contains(line)), "a visible option's line is the same either way");
    }

    #[test]
    fn show_hidden_is_a_switch_of_the_command_line_and_the_configuration_file() {
        assert!(!EngineOptions::default().show_hidden);
        assert!(EngineOptions::from_cli_flags(&args(&["--show-hidden"])).unwrap().show_hidden);
        assert!(EngineOptions::from_cli_flags(&args(&["--show-hidden=true", "--threads=2"])).unwrap().show_hidden);
        assert!(!EngineOptions::from_cli_flags(&args(&["--show-hidden", "--show-hidden=false"])).unwrap().show_hidden);
        assert_eq!(
            EngineOptions::from_cli_flags(&args(&["--show-hidden=maybe"])).unwrap_err().to_string(),
            "invalid value 'maybe' for option --show-hidden: expected true or false"
        );
        let error = EngineOptions::from_cli_flags(&args(&["--show-hiden"])).unwrap_err().to_string();
        assert!(error.contains("did you mean '--show-hidden'?"), "{error}");
        let dir = std::env::temp_dir().join(format!("kairos-show-hidden-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(config_file::DEFAULT_NAME), "show-hidden\nthreads=2\n").unwrap();
        let (options, _) = EngineOptions::from_config_and_cli_flags(&[], std::slice::from_ref(&dir)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(options.show_hidden && options.threads == 2, "a kairos.config line");
        let help = help_text();
        let hidden_at = help.find("Hidden options").expect("the help names the hidden options");
        assert!(help.find("--threads").unwrap() < hidden_at && help.find("--cpuct ").unwrap() > hidden_at, "{help}");
        assert!(help.contains("--show-hidden"), "{help}");
    }

    #[test]
    fn hidden_options_are_set_as_visible_ones_are() {
        let mut options = EngineOptions::default();
        options.set("CPuct", "2.5").unwrap();
        options.set("FpuStrategyAtRoot", "absolute").unwrap();
        assert_eq!((options.cpuct, options.fpu_strategy_at_root), (2.5, RootFpuStrategy::Absolute));
        assert!(options.search_params().root_exploration.fpu_absolute);
        let by_flag = EngineOptions::from_cli_flags(&args(&["--cpuct=2.5", "--fpu-strategy-at-root=absolute"]));
        assert_eq!(by_flag.unwrap(), options);
    }

    #[test]
    fn every_choice_is_announced_taken_and_read_back_and_others_are_refused_with_the_choices() {
        for spec in OPTIONS {
            let OptionKind::Combo(choices) = spec.kind else { continue };
            for choice in choices {
                let mut options = showing_hidden();
                options.set(spec.uci_name, &choice.to_ascii_uppercase()).unwrap_or_else(|e| panic!("{choice}: {e}"));
                let line = options.uci_option_lines().into_iter().find(|line| {
                    line.starts_with(&format!("option name {} type combo default {choice} var", spec.uci_name))
                });
                assert!(line.is_some(), "{} = {choice} reads back as {choice}", spec.uci_name);
            }
        }
        let error = EngineOptions::default().set("FpuStrategy", "relative").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid value 'relative' for option FpuStrategy: expected one of reduction, absolute"
        );
        let error = EngineOptions::from_cli_flags(&args(&["--history-fill=sometimes"])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid value 'sometimes' for option HistoryFill: expected one of no, fen_only, always"
        );
    }

    #[test]
    fn a_key_option_sets_its_key_in_the_time_manager_string_and_the_later_write_wins() {
        let mut options = EngineOptions::default();
        options.set("TimeManager", "smooth(max-move-budget=0.2,limit=nodes)").unwrap();
        options.set("SmoothMaxMoveBudget", "0.42").unwrap();
        options.set("smoothforcepiggybankms", "250").unwrap();
        options.set("MleLegacySteepness", "6").unwrap();
        options.set("SmoothNeedMoreTime", "true").unwrap();
        let by_keys = options.time_manager_config().clone();
        let written = TimeManagerConfig::parse(
            "smooth(limit=nodes,max-move-budget=0.42,force-piggybank-ms=250,need-more-time=true,mle-legacy(steepness=6.0))",
        )
        .unwrap();
        assert_eq!(by_keys, written, "{}", options.time_manager.text());
        options.set("TimeManager", "smooth(max-move-budget=0.25)").unwrap();
        assert_eq!(
            options.time_manager.text(),
            "smooth(max-move-budget=0.25)",
            "a later TimeManager replaces the string"
        );
    }

    #[test]
    fn a_key_of_another_manager_or_out_of_range_is_refused_and_changes_nothing() {
        let mut options = EngineOptions::default();
        options.set("TimeManager", "legacy").unwrap();
        let error = options.set("SmoothMaxMoveBudget", "0.42").unwrap_err();
        assert!(matches!(error, OptionsError::TimeManagerKey(_)), "{error:?}");
        assert!(
            error.to_string().starts_with(
                "SmoothMaxMoveBudget is key max-move-budget of time manager smooth, \
             but TimeManager is legacy; select it first (setoption name TimeManager value smooth"
            ),
            "{error}"
        );
        options.set("TimeManager", "smooth").unwrap();
        let error = options.set("SmoothMaxMoveBudget", "2").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid value '2' for option SmoothMaxMoveBudget: expected a number from 0.001 to 1"
        );
        assert!(matches!(options.set("SmoothTrendNpsUpdatePeriodMs", "0.5"), Err(OptionsError::BadValue { .. })));
        assert!(options.set("LognormalMu", "4").unwrap_err().to_string().contains("smooth(lognormal)"));
        assert_eq!(options.time_manager.text(), "smooth", "failed sets change nothing");
    }

    #[test]
    fn key_options_are_flags_in_command_line_order() {
        let options = EngineOptions::from_cli_flags(&args(&[
            "--time-manager=smooth(preset=lc0)", "--smooth-max-move-budget=0.5", "--no-smooth-need-more-time",
            "--mle-legacy-midpoint", "60",
        ]))
        .unwrap();
        assert_eq!(
            options.time_manager.text(),
            "smooth(preset=lc0,max-move-budget=0.5,need-more-time=false,mle-legacy(midpoint=60.0))"
        );
        let error = EngineOptions::from_cli_flags(&args(&["--legacy-slowmover=1.5", "--time-manager=legacy"]));
        assert!(matches!(error, Err(OptionsError::TimeManagerKey(_))), "smooth is selected when the key comes");
        let help = help_text();
        assert!(help.contains("--smooth-max-move-budget") && help.contains("SmoothMaxMoveBudget"), "{help}");
    }

    #[test]
    fn missing_weights_report_every_path_tried() {
        let options = EngineOptions { weights_file: "no/such/net.pb.gz".into(), ..EngineOptions::default() };
        match options.resolve_weights_path() {
            Err(OptionsError::WeightsNotFound { given, tried }) => {
                assert_eq!(given, "no/such/net.pb.gz");
                assert!(tried.len() >= 2 && tried[0] == Path::new("no/such/net.pb.gz"));
            }
            other => panic!("expected WeightsNotFound, got {other:?}"),
        }
    }

    proptest::proptest! {
        /// Any value given to any option either is taken, reads back as what `uci` then announces and is the
        /// same through the option's flag, or is refused and changes nothing; an unknown name is named as such.
        #[test]
        fn arbitrary_values_are_taken_consistently_or_refused_without_a_change(
            name in "\\PC{0,24}",
            value in "\\PC{0,24}",
        ) {
            for (index, spec) in OPTIONS.iter().enumerate() {
                let mut options = EngineOptions::default();
                let by_flag = EngineOptions::from_cli_flags(&[format!("--{}={value}", spec.flag)]);
                match options.set(spec.uci_name, &value) {
                    Ok(()) => {
                        let announced = options.values_as_text()[index].clone();
                        let mut again = options.clone();
                        again.set(spec.uci_name, &announced).unwrap();
                        proptest::prop_assert_eq!(&again, &options, "{} = {:?} announced as {:?}", spec.uci_name, value, announced);
                        proptest::prop_assert_eq!(by_flag.as_ref().ok(), Some(&options), "--{}={:?}", spec.flag, value);
                    }
                    Err(error) => {
                        proptest::prop_assert_eq!(&options, &EngineOptions::default(), "{}: {}", spec.uci_name, error);
                        proptest::prop_assert!(by_flag.is_err(), "--{}={:?} taken, setoption refused it: {}", spec.flag, value, error);
                    }
                }
            }
            let mut options = EngineOptions::default();
            let known = all_option_specs().any(|spec| spec.uci_name.eq_ignore_ascii_case(name.trim()));
            let result = options.set(&name, &value);
            if !known {
                proptest::prop_assert!(matches!(result, Err(OptionsError::UnknownOption { .. })), "{:?}: {:?}", name, result);
                proptest::prop_assert_eq!(options, EngineOptions::default());
            }
        }
    }
}
