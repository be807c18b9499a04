//! The ONNX Runtime backend (`Backend=onnx`): the network exported in memory by [`crate::onnx`] with lc0's interface
//! and run by an ONNX Runtime session, whose execution providers compile it for the device. On NVIDIA GPUs that is
//! TensorRT (its engine built once per network and precision and cached on disk), with CUDA for what TensorRT does
//! not take; on the CPU, ONNX Runtime's own CPU provider. The library is loaded at run time
//! ([`find_library`]), so nothing is downloaded at build time and a build without it still runs every other backend.
//!
//! Batches are encoded and their outputs turned into evaluations by the same code as the libtorch backend's
//! ([`QueuedBatch`]); only the value outputs differ in form (the exported graph ends in the W/D/L softmax and the
//! classical value's tanh).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use ort::environment::Environment;
use ort::ep::{ExecutionProvider, TensorRT, CUDA};
use ort::session::builder::SessionBuilder;
use ort::session::Session;
use ort::value::Tensor;

use crate::backend::{Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation};
use crate::encoder::{HistoryFill, InputPlanes, PLANES};
use crate::network::{Network, ValueKind};
use crate::onnx::{
    network_to_onnx_bytes, DataType, ExportError, INPUT_PLANES, OUTPUT_MLH, OUTPUT_POLICY, OUTPUT_VALUE, OUTPUT_WDL,
};
use crate::policy_map::POLICY_SIZE;
use crate::queued_batch::{Encoding, PolicyOutput, QueuedBatch};
use crate::raw_outputs::RawOutputs;

/// The largest batch a computation accepts; batches beyond the TensorRT profile's largest run in parts.
pub const MAX_BATCH: usize = 1024;

/// The way out when no ONNX Runtime library is found or it does not load.
const INSTALL_HINT: &str = "install ONNX Runtime (`pip install onnxruntime` for the CPU; `pip install onnxruntime-gpu \
                            tensorrt-cu13` for NVIDIA GPUs) and set ORT_DYLIB_PATH to its libonnxruntime.so \
                            (in the package's onnxruntime/capi/ folder), or run scripts/setup in a checkout";

/// Why the ONNX Runtime backend could not start.
#[derive(Debug, thiserror::Error)]
pub enum OnnxError {
    /// No ONNX Runtime library in any of the places looked in.
    #[error("no ONNX Runtime library found (looked in: {}); {INSTALL_HINT}", tried.join("; "))]
    LibraryNotFound {
        /// The places looked in, in order.
        tried: Vec<String>,
    },
    /// The library was found but ONNX Runtime could not start from it.
    #[error("cannot start ONNX Runtime from {path}: {reason}; {INSTALL_HINT}")]
    LibraryLoad {
        /// The library.
        path: String,
        /// ONNX Runtime's or the loader's message.
        reason: String,
    },
    /// The network cannot be written as ONNX.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// An earlier start of ONNX Runtime in this process failed; its message.
    #[error("{0}")]
    Unavailable(String),
    /// ONNX Runtime refused the session.
    #[error("ONNX Runtime cannot run the network: {0}")]
    Session(String),
}

/// The ONNX Runtime library to load, looked for in order: the `ORT_DYLIB_PATH` environment variable (`env_path`; a
/// path there that is no file is an error, not a reason to look elsewhere), a `libonnxruntime.so*` in `exe_dir` (the
/// kairos binary's folder) or its `lib/`, then in the checkout's `.onnxruntime/onnxruntime/capi/` (scripts/setup's).
pub fn find_library(env_path: Option<OsString>, exe_dir: Option<&Path>, checkout: &Path) -> Result<PathBuf, OnnxError> {
    if let Some(path) = env_path.filter(|path| !path.is_empty()).map(PathBuf::from) {
        return if path.is_file() {
            Ok(path)
        } else {
            Err(OnnxError::LibraryNotFound { tried: vec![format!("ORT_DYLIB_PATH={} (no such file)", path.display())] })
        };
    }
    let mut folders: Vec<PathBuf> = exe_dir.map(|dir| vec![dir.to_path_buf(), dir.join("lib")]).unwrap_or_default();
    folders.push(checkout.join(".onnxruntime/onnxruntime/capi"));
    folders.iter().find_map(|folder| library_in(folder)).ok_or_else(|| {
        let mut tried = vec!["ORT_DYLIB_PATH (not set)".to_owned()];
        tried.extend(folders.iter().map(|folder| format!("{}/libonnxruntime.so*", folder.display())));
        OnnxError::LibraryNotFound { tried }
    })
}

/// The ONNX Runtime library in `folder` (`libonnxruntime.so` or a versioned name; not a provider's library).
fn library_in(folder: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
            (name == "libonnxruntime.so" || name.starts_with("libonnxruntime.so.")) && path.is_file()
        })
        .collect();
    found.sort();
    found.pop()
}

/// The process's ONNX Runtime environment (ONNX Runtime allows one a process), started on first use from the library
/// [`find_library`] finds; a failure is kept and reported to every later caller, as the process cannot load
/// another library in its place.
pub fn onnx_runtime() -> Result<&'static Environment, OnnxError> {
    static ENVIRONMENT: OnceLock<Result<Environment, String>> = OnceLock::new();
    let started = ENVIRONMENT.get_or_init(|| {
        let exe_dir = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_path_buf));
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let library = find_library(std::env::var_os("ORT_DYLIB_PATH"), exe_dir.as_deref(), &checkout)
            .map_err(|error| error.to_string())?;
        let failed =
            |reason: String| OnnxError::LibraryLoad { path: library.display().to_string(), reason }.to_string();
        ort::init_from(&library)
            .map_err(|error| failed(error.to_string()))?
            .with_name("kairos")
            .build()
            .map_err(|error| failed(error.to_string()))
    });
    started.as_ref().map_err(|message| OnnxError::Unavailable(message.clone()))
}

/// Where the network runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnnxDevice {
    /// ONNX Runtime's CPU provider.
    Cpu,
    /// An NVIDIA GPU by ordinal: TensorRT, then CUDA for what TensorRT does not take.
    Cuda(usize),
}

/// How the backend runs its network.
#[derive(Clone, Debug, PartialEq)]
pub struct OnnxSettings {
    /// The device.
    pub device: OnnxDevice,
    /// The model's precision; on a GPU fp16 also lets TensorRT choose half-precision kernels.
    pub data_type: DataType,
    /// The CPU provider's intra-op threads (0: ONNX Runtime's default, one a core).
    pub cpu_threads: usize,
    /// The largest batch TensorRT's optimisation profile covers (from batch 1); larger batches run in parts.
    pub largest_batch: usize,
    /// Where TensorRT keeps its built engines.
    pub tensorrt_cache: PathBuf,
    /// The cached engines' name prefix: one per network and precision, so that a changed network builds anew.
    pub tensorrt_prefix: String,
    /// How the policy logits become priors.
    pub policy: PolicyOutput,
    /// When the empty history slots are filled.
    pub history_fill: HistoryFill,
}

/// A network in an ONNX Runtime session; callers from any thread run their batches through it one at a time.
pub struct OnnxBackend {
    session: Mutex<Session>,
    data_type: DataType,
    encoding: Encoding,
    policy: PolicyOutput,
    value_kind: ValueKind,
    has_moves_left: bool,
    runs_on_cpu: bool,
    largest_batch: usize,
    providers: String,
}

impl OnnxBackend {
    /// Exports `network` in memory and opens a session for it as `settings` say. On a GPU whose providers ONNX
    /// Runtime cannot register (a CPU-only ONNX Runtime, no TensorRT or CUDA libraries), it warns and runs on the CPU.
    pub fn new(network: &Network, settings: &OnnxSettings) -> Result<Self, OnnxError> {
        let environment = onnx_runtime()?;
        let session_error = |error: ort::Error<SessionBuilder>| OnnxError::Session(error.to_string());
        let mut builder = Session::builder(environment).map_err(|error| OnnxError::Session(error.to_string()))?;
        let (mut providers, mut runs_on_cpu) = (String::from("CPU provider"), true);
        if let OnnxDevice::Cuda(ordinal) = settings.device {
            match register_gpu_providers(&mut builder, ordinal, settings) {
                Some(registered) => (providers, runs_on_cpu) = (registered, false),
                None => log::warn!(
                    "ONNX Runtime cannot use GPU {ordinal} (neither TensorRT nor CUDA registers: install \
                     onnxruntime-gpu and tensorrt-cu13 and put their libraries on LD_LIBRARY_PATH); running on the CPU"
                ),
            }
        }
        if runs_on_cpu {
            // Idle intra-op threads sleep rather than spin: on cores shared with other processes (the 2-core EPYC
            // of BENCHMARKS.md) spinning workers took the cores the pass itself needed.
            builder = builder.with_intra_threads(settings.cpu_threads).map_err(session_error)?;
            builder = builder.with_intra_op_spinning(false).map_err(session_error)?;
            providers = match settings.cpu_threads {
                0 => "CPU provider, an intra-op thread a core".into(),
                1 => "CPU provider, 1 intra-op thread".into(),
                n => format!("CPU provider, {n} intra-op threads"),
            };
        }
        let data_type = if runs_on_cpu { DataType::F32 } else { settings.data_type };
        let bytes = network_to_onnx_bytes(network, data_type)?;
        let session = builder.commit_from_memory(&bytes).map_err(|error| OnnxError::Session(error.to_string()))?;
        Ok(Self {
            session: Mutex::new(session),
            data_type,
            encoding: Encoding {
                input_format: network.input_format,
                history_fill: settings.history_fill,
                transposed_moves: settings.policy.transposed_moves,
            },
            policy: settings.policy,
            value_kind: network.value.kind,
            has_moves_left: network.moves_left.is_some(),
            runs_on_cpu,
            largest_batch: if runs_on_cpu { MAX_BATCH } else { settings.largest_batch.clamp(1, MAX_BATCH) },
            providers,
        })
    }

    /// The execution providers the session runs on, e.g. `TensorRT (fp16, engine cache …), then CUDA`.
    pub fn providers(&self) -> &str {
        &self.providers
    }

    /// Whether the network runs on the CPU (no GPU asked for, or none usable).
    pub fn runs_on_cpu(&self) -> bool {
        self.runs_on_cpu
    }

    /// The outputs of `positions`, run in parts of at most the profile's largest batch.
    fn run(&self, positions: &[InputPlanes]) -> Result<RawOutputs, BackendError> {
        let mut raw = RawOutputs {
            policy: Vec::with_capacity(positions.len() * POLICY_SIZE),
            value: Vec::new(),
            moves_left: self.has_moves_left.then(Vec::new),
        };
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        for part in positions.chunks(self.largest_batch) {
            self.run_part(&mut session, part, &mut raw).map_err(|error| BackendError::Compute(error.to_string()))?;
        }
        Ok(raw)
    }

    /// Runs one part and appends its outputs, as f32, to `raw`.
    fn run_part(&self, session: &mut Session, positions: &[InputPlanes], raw: &mut RawOutputs) -> ort::Result<()> {
        let shape = [positions.len() as i64, PLANES as i64, 8, 8];
        let input = input_tensor(positions);
        let outputs = match self.data_type {
            DataType::F32 => session.run(ort::inputs![INPUT_PLANES => Tensor::from_array((shape, input))?])?,
            DataType::F16 => {
                let input: Vec<half::f16> = input.into_iter().map(half::f16::from_f32).collect();
                session.run(ort::inputs![INPUT_PLANES => Tensor::from_array((shape, input))?])?
            }
        };
        let value_name = match self.value_kind {
            ValueKind::Wdl => OUTPUT_WDL,
            ValueKind::Classical => OUTPUT_VALUE,
        };
        let append = |name: &str, into: &mut Vec<f32>| -> ort::Result<()> {
            match self.data_type {
                DataType::F32 => into.extend_from_slice(outputs[name].try_extract_tensor::<f32>()?.1),
                DataType::F16 => {
                    into.extend(outputs[name].try_extract_tensor::<half::f16>()?.1.iter().map(|x| x.to_f32()))
                }
            }
            Ok(())
        };
        append(OUTPUT_POLICY, &mut raw.policy)?;
        append(value_name, &mut raw.value)?;
        if let Some(moves_left) = raw.moves_left.as_mut() {
            append(OUTPUT_MLH, moves_left)?;
        }
        Ok(())
    }
}

/// Registers TensorRT and then CUDA for GPU `ordinal` on `builder`: TensorRT with fp16 where the settings' model is
/// fp16, its engine cache in the settings' folder and an optimisation profile from batch 1 to the largest batch;
/// CUDA for the nodes TensorRT does not take. None where neither registers. CUDA graphs stay off: ONNX Runtime
/// captures one graph a `gpu_graph_id` and the search's batch sizes vary; the GPU path is unmeasured (2026-12-07).
fn register_gpu_providers(builder: &mut SessionBuilder, ordinal: usize, settings: &OnnxSettings) -> Option<String> {
    let device_id = i32::try_from(ordinal).unwrap_or(i32::MAX);
    let fp16 = settings.data_type == DataType::F16;
    let shape = |batch: usize| format!("{INPUT_PLANES}:{batch}x{PLANES}x8x8");
    let largest = settings.largest_batch.clamp(1, MAX_BATCH);
    let cache = &settings.tensorrt_cache;
    let tensorrt = std::fs::create_dir_all(cache)
        .map_err(|error| format!("cannot create the engine cache {}: {error}", cache.display()))
        .and_then(|()| {
            TensorRT::default()
                .with_device_id(device_id)
                .with_fp16(fp16)
                .with_engine_cache(true)
                .with_engine_cache_path(cache.display())
                .with_engine_cache_prefix(&settings.tensorrt_prefix)
                .with_timing_cache(true)
                .with_timing_cache_path(cache.display())
                .with_profile_min_shapes(shape(1))
                .with_profile_opt_shapes(shape(largest))
                .with_profile_max_shapes(shape(largest))
                .register(builder)
                .map_err(|error| error.to_string())
        });
    if let Err(why) = &tensorrt {
        log::warn!("ONNX Runtime's TensorRT provider does not register ({why}); the CUDA provider runs the network");
    }
    let cuda = CUDA::default().with_device_id(device_id).register(builder);
    if let Err(why) = &cuda {
        log::warn!("ONNX Runtime's CUDA provider does not register ({why})");
    }
    let precision = if fp16 { "fp16" } else { "fp32" };
    let described = format!("TensorRT ({precision}, batches 1-{largest}, engine cache {})", cache.display());
    match (tensorrt.is_ok(), cuda.is_ok()) {
        (true, true) => Some(format!("{described}, then CUDA")),
        (true, false) => Some(described),
        (false, true) => Some(format!("CUDA ({precision})")),
        (false, false) => None,
    }
}

/// The planes as the NCHW `[batch][112][8][8]` input, bit `8·rank + file` of a mask the square `[rank][file]`.
fn input_tensor(positions: &[InputPlanes]) -> Vec<f32> {
    let mut input = Vec::with_capacity(positions.len() * PLANES * 64);
    for planes in positions {
        for plane in planes {
            input.extend((0..64).map(|square| if plane.mask >> square & 1 == 1 { plane.value } else { 0.0 }));
        }
    }
    input
}

/// Where TensorRT's engines are cached: `$XDG_CACHE_HOME/kairos/trt`, else `~/.cache/kairos/trt`, else the
/// temporary folder's `kairos-trt`.
pub fn tensorrt_cache_folder() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME").filter(|path| !path.is_empty()).map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").filter(|home| !home.is_empty()).map(|home| PathBuf::from(home).join(".cache"))
    });
    match base {
        Some(base) => base.join("kairos").join("trt"),
        None => std::env::temp_dir().join("kairos-trt"),
    }
}

/// The cached engines' name prefix for a network file's bytes in `data_type`: a change to the network or the
/// precision builds a new engine rather than reading a stale one (FNV-1a of the bytes).
pub fn tensorrt_prefix(weights: &[u8], data_type: DataType) -> String {
    let hash = weights
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3));
    let precision = if data_type == DataType::F16 { "fp16" } else { "fp32" };
    format!("kairos_{hash:016x}_{precision}")
}

/// Whether `folder` holds an engine of `prefix` already (else the first load builds it, which takes minutes).
pub fn tensorrt_engine_cached(folder: &Path, prefix: &str) -> bool {
    std::fs::read_dir(folder).is_ok_and(|entries| {
        entries.flatten().any(|entry| entry.file_name().to_str().is_some_and(|name| name.starts_with(prefix)))
    })
}

impl Backend for OnnxBackend {
    fn attributes(&self) -> BackendAttributes {
        let mut attributes = BackendAttributes::of_network(
            self.value_kind == ValueKind::Wdl,
            self.has_moves_left,
            MAX_BATCH,
            self.runs_on_cpu,
        );
        // TensorRT's optimisation profile ends at the largest batch the search asks for.
        if !self.runs_on_cpu {
            attributes.recommended_batch_size = attributes.recommended_batch_size.min(self.largest_batch);
        }
        attributes
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(OnnxComputation { backend: self, batch: QueuedBatch::default() })
    }
}

/// A batch under construction for an [`OnnxBackend`].
struct OnnxComputation<'a> {
    backend: &'a OnnxBackend,
    batch: QueuedBatch,
}

impl Computation for OnnxComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        self.batch.add(request, self.backend.encoding.input_format, MAX_BATCH)
    }

    fn queued(&self) -> usize {
        self.batch.len()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        if self.batch.is_empty() {
            return Ok(Vec::new());
        }
        let backend = self.backend;
        let (positions, gather) = self.batch.encode(backend.encoding)?;
        let raw = backend.run(&positions)?.gathered(&gather);
        // The exported graph ends in the W/D/L softmax and the classical value's tanh.
        let value = |value: &[f32]| match backend.value_kind {
            ValueKind::Wdl => (value[0] - value[2], value[1]),
            ValueKind::Classical => (value[0], 0.0),
        };
        Ok(self.batch.evaluations(&raw, value, &backend.policy))
    }
}
