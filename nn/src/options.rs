//! Backend configuration and the factory that builds a backend from it: network loading, device and
//! precision choice with CPU fallback, the recording and the NN cache decorators, and the replay of a recording.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use tch::{Device, Kind};

use crate::backend::Backend;
use crate::cache::CachingBackend;
use crate::cpu_features::native_bf16;
use crate::cuda::load_cuda_runtime;
use crate::encoder::HistoryFill;
use crate::error::NnError;
use crate::loader::load_network;
use crate::network::{Body, Network};
use crate::onnx::DataType;
use crate::onnx_backend::{
    onnx_runtime, tensorrt_cache_folder, tensorrt_engine_cached, tensorrt_prefix, OnnxBackend, OnnxDevice, OnnxError,
    OnnxSettings,
};
use crate::policy_map::TransposedMoves;
use crate::precision_timing::time_precisions;
use crate::queued_batch::PolicyOutput;
use crate::recording::RecordingBackend;
use crate::replay::ReplayBackend;
use crate::round_robin::RoundRobinBackend;
use crate::test_backend::{TestBackend, TestMode};
use crate::torch_backend::{default_rust_batch_limit, CudaSettings, TorchBackend};

/// Which backend evaluates positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The network through libtorch.
    Torch,
    /// The network through ONNX Runtime: TensorRT and CUDA on NVIDIA GPUs, its CPU provider on the CPU.
    Onnx,
    /// Uniform priors, value 0 (no network).
    Uniform,
    /// lc0's `random` backend: values and priors hashed from the input planes (no network).
    Random,
    /// The evaluations of a record file (no network).
    Replay,
}

impl BackendKind {
    /// Every backend's name, as options and flags write it, in the order of [`BackendKind::ALL`].
    pub const NAMES: &'static [&'static str] = &["torch", "onnx", "uniform", "random", "replay"];
    /// Every backend, in the order of [`BackendKind::NAMES`].
    pub const ALL: [Self; 5] = [Self::Torch, Self::Onnx, Self::Uniform, Self::Random, Self::Replay];

    /// What Kairos sets in place of one of lc0's backends (lc0 909a4082's `REGISTER_NETWORK` names), for a user who
    /// brings lc0's settings; None for a name lc0 does not have, or shares (`random`).
    pub fn lc0_equivalent(lc0_name: &str) -> Option<&'static str> {
        const CUDA: &str = "Backend=torch (the default) with BackendDevice=cuda (or cuda:N), fp16 there by default";
        const CUDA_FP32: &str = "Backend=torch (the default) with BackendDevice=cuda (or cuda:N) and Precision=fp32";
        const CPU: &str =
            "Backend=torch (the default) with BackendDevice=cpu, in bf16 or fp32 as it times faster at load";
        const OTHER_GPU: &str = "not in Kairos, which runs networks on NVIDIA GPUs through CUDA and on CPUs: \
                                 Backend=torch (the default) with BackendDevice=cpu runs this machine's CPU";
        Some(match lc0_name.to_ascii_lowercase().as_str() {
            "cuda" | "cudnn" => CUDA_FP32,
            "cuda-auto" | "cuda-fp16" | "cudnn-auto" | "cudnn-fp16" | "xla" | "tensorflow-cc" => CUDA,
            "onnx-cuda" | "onnx-trt" => {
                "Backend=onnx with BackendDevice=cuda (or cuda:N): ONNX Runtime's TensorRT provider, then its CUDA \
                 provider, fp16 by default"
            }
            "blas" | "eigen" | "onednn" | "tensorflow-cc-cpu" => CPU,
            "onnx-cpu" => "Backend=onnx with BackendDevice=cpu: ONNX Runtime's CPU provider",
            "metal" | "opencl" | "dx12" | "onnx-dml" | "onnx-rocm" | "onnx-migraphx" | "onnx-coreml" | "sycl"
            | "sycl-auto" | "sycl-fp16" => OTHER_GPU,
            "roundrobin" | "multiplexing" | "demux" => {
                "Backend=torch (the default) with the devices listed in BackendDevice (cuda:0,cuda:1), which take \
                 batches in turn as lc0's roundrobin"
            }
            "trivial" => "Backend=uniform (no network)",
            "recordreplay" => "Backend=replay with RecordFile=PATH to replay a recording (RecordFile alone records)",
            "check" => "not in Kairos, whose tests check its backends against lc0's recorded outputs",
            _ => return None,
        })
    }
}

impl FromStr for BackendKind {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        named(Self::NAMES, &Self::ALL, s).ok_or(NnError::InvalidOption {
            option: "backend",
            value: s.into(),
            expected: "torch, onnx, uniform, random or replay",
        })
    }
}

/// The variant whose name is `name`, names and variants given in the same order.
fn named<T: Copy>(names: &[&str], variants: &[T], name: &str) -> Option<T> {
    names.iter().position(|candidate| *candidate == name).map(|index| variants[index])
}

/// Where the network runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The CPU.
    Cpu,
    /// A CUDA device by ordinal; falls back to the CPU with a warning when CUDA is missing.
    Cuda(usize),
    /// CUDA device 0 if available, else the CPU.
    Auto,
}

/// What a device list may hold, for its errors.
const DEVICES_EXPECTED: &str = "cpu, cuda, cuda:N or auto, or several of them separated by commas";

/// Parses `BackendDevice`: one device, or several separated by commas (`cuda:0,cuda:1`), each its own backend.
pub fn parse_devices(text: &str) -> Result<Vec<DeviceChoice>, NnError> {
    text.split(',')
        .map(|part| {
            part.trim().parse().map_err(|_| NnError::InvalidOption {
                option: "device",
                value: text.into(),
                expected: DEVICES_EXPECTED,
            })
        })
        .collect()
}

impl FromStr for DeviceChoice {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        let invalid =
            || NnError::InvalidOption { option: "device", value: s.into(), expected: "cpu, cuda, cuda:N or auto" };
        match s {
            "cpu" => Ok(Self::Cpu),
            "cuda" => Ok(Self::Cuda(0)),
            "auto" => Ok(Self::Auto),
            _ => s.strip_prefix("cuda:").and_then(|n| n.parse().ok()).map(Self::Cuda).ok_or_else(invalid),
        }
    }
}

/// The arithmetic precision of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// fp16 on CUDA; on a CPU with native bf16 the faster there of bf16 and fp32, timed when the network loads;
    /// fp32 on other CPUs.
    Auto,
    /// IEEE single precision.
    Fp32,
    /// bfloat16 (outputs within [`BF16_TOLERANCE`] of fp32 on Maia-1900); fast only on CPUs with native
    /// bf16 (AVX512-BF16, AMX): on AVX2-only CPUs libtorch emulates it about 30 times slower than fp32.
    Bf16,
    /// IEEE half precision, CUDA only (outputs within [`FP16_TOLERANCE`] of fp32 on Maia-1900).
    Fp16,
}

/// The bound on the difference of priors (T = 1.359) and of W/D/L between the bf16 CPU path and fp32;
/// Maia-1900 on the five reference positions shows at most 0.0092 (priors) and 0.0066 (W/D/L).
pub const BF16_TOLERANCE: f32 = 0.02;

/// The same bound for fp16, the CUDA default; libtorch's CPU half-precision kernels run the same forward pass
/// at most 0.0006 (priors) and 0.0014 (W/D/L) from fp32 on the five reference positions.
pub const FP16_TOLERANCE: f32 = 0.005;

impl Precision {
    /// Every precision's name, as options and flags write it, in the order of [`Precision::ALL`].
    pub const NAMES: &'static [&'static str] = &["auto", "fp32", "bf16", "fp16"];
    /// Every precision, in the order of [`Precision::NAMES`].
    pub const ALL: [Self; 4] = [Self::Auto, Self::Fp32, Self::Bf16, Self::Fp16];
}

impl FromStr for Precision {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        named(Self::NAMES, &Self::ALL, s).ok_or(NnError::InvalidOption {
            option: "precision",
            value: s.into(),
            expected: "auto, fp32, bf16 or fp16",
        })
    }
}

impl FromStr for HistoryFill {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        named(Self::NAMES, &Self::ALL, s).ok_or(NnError::InvalidOption {
            option: "history fill",
            value: s.into(),
            expected: "no, fen_only or always",
        })
    }
}

/// Everything needed to build a backend; the engine fills it from its options (the one place of their defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct BackendOptions {
    /// The Lc0 weights file (used by the torch backend).
    pub weights: PathBuf,
    /// Which backend.
    pub kind: BackendKind,
    /// Where it runs: one device, or several taking batches in turn (lc0's `roundrobin`); never empty.
    pub devices: Vec<DeviceChoice>,
    /// In which precision.
    pub precision: Precision,
    /// Threads of each forward pass on the CPU (0: libtorch's default, one per core); `None`: by network, as
    /// [`CpuLayout::for_body`] says.
    pub cpu_threads: Option<usize>,
    /// The largest CPU batch computed by the network in plain Rust (0: none; `None`: by precision and network, as
    /// [`crate::torch_backend::default_rust_batch_limit`]).
    pub rust_batch_limit: Option<usize>,
    /// On CUDA, the forward pass replayed from a CUDA graph per batch size instead of launched eagerly.
    pub cuda_graphs: bool,
    /// On CUDA, cuDNN times its convolution algorithms at each new shape and keeps the fastest.
    pub cudnn_benchmark: bool,
    /// Convolutions run with their bias, ReLU and skip in one call (cuDNN's, oneDNN's) where it agrees at load.
    pub fused_convolutions: bool,
    /// How many CPU backends, taking batches in turn, a lone `cpu` or `auto` opens on the CPU: one per core
    /// keeps every core busy (each backend's forward pass runs on a thread of its own).
    pub cpu_backends: usize,
    /// The policy softmax temperature.
    pub policy_temperature: f32,
    /// Softmax with the exact exponential instead of lc0's FastExp (for network checks, not for play).
    pub exact_softmax: bool,
    /// NN cache entries (0 disables the cache).
    pub cache_size: usize,
    /// Where a transposed position's moves are looked up in the policy (canonical input formats).
    pub transposed_moves: TransposedMoves,
    /// When the network's empty history slots are filled with copies of the first known position.
    pub history_fill: HistoryFill,
    /// What each batch of a test backend or a replay waits, as a GPU's would (zero: none; the torch backend
    /// ignores it).
    pub test_backend_delay: Duration,
    /// The largest batch the search sends (MinibatchSize, or MaxPrefetch where larger; 0: the backend's recommended
    /// batch size): the onnx backend's TensorRT profile covers batches 1 to it.
    pub largest_batch: usize,
    /// With [`BackendKind::Replay`] the recording replayed; with another backend, where its evaluations are
    /// recorded (`None`: nowhere).
    pub record_file: Option<PathBuf>,
}

/// Builds the backend the options describe, wrapped in the NN cache unless its size is 0.
pub fn open_backend(options: &BackendOptions) -> Result<Arc<dyn Backend>, NnError> {
    open_backend_described(options).map(|(backend, _)| backend)
}

/// [`open_backend`], with the start-up report of what was opened (`round robin of 2 torch backends, each on cpu,
/// …`): how a network runs on the CPU depends on its body, known once it is loaded.
pub fn open_backend_described(options: &BackendOptions) -> Result<(Arc<dyn Backend>, String), NnError> {
    if !(options.policy_temperature > 0.0 && options.policy_temperature.is_finite()) {
        return Err(NnError::InvalidOption {
            option: "policy_temperature",
            value: options.policy_temperature.to_string(),
            expected: "a positive finite number",
        });
    }
    if options.devices.is_empty() {
        return Err(NnError::InvalidOption { option: "device", value: String::new(), expected: DEVICES_EXPECTED });
    }
    let mut children: Vec<Arc<dyn Backend>> = Vec::new();
    let mut layout = CpuLayout::given(options);
    let mut placements = Vec::new();
    let mut onnx_providers = Vec::new();
    if options.kind == BackendKind::Torch {
        let network = load_network(&options.weights)?;
        layout = CpuLayout::for_body(options, &network.body);
        let backends;
        (backends, placements) = torch_backends(options, &network, layout)?;
        children.extend(backends.into_iter().map(|backend| backend as Arc<dyn Backend>));
    } else if options.kind == BackendKind::Onnx {
        let network = load_network(&options.weights)?;
        layout = CpuLayout::for_body(options, &network.body);
        for backend in onnx_backends(options, &network, layout)? {
            onnx_providers.push(backend.providers().to_owned());
            children.push(backend);
        }
    } else if options.kind == BackendKind::Replay {
        let path = options.record_file.as_deref().ok_or(NnError::InvalidOption {
            option: "RecordFile",
            value: String::new(),
            expected: "with Backend=replay, the path of a recording (made by RecordFile=PATH on another backend)",
        })?;
        children.push(Arc::new(ReplayBackend::open(path, options.test_backend_delay)?));
    } else {
        let mode = if options.kind == BackendKind::Uniform { TestMode::Uniform } else { TestMode::Random { seed: 0 } };
        for _ in &options.devices {
            let backend = TestBackend::with_delay(mode, options.test_backend_delay)
                .with_encoding(options.history_fill, options.policy_temperature);
            children.push(Arc::new(backend));
        }
    }
    let mut backend: Arc<dyn Backend> =
        if children.len() == 1 { children.remove(0) } else { Arc::new(RoundRobinBackend::new(children)) };
    if let (Some(path), false) = (&options.record_file, options.kind == BackendKind::Replay) {
        backend = Arc::new(RecordingBackend::new(backend, path)?);
    }
    let backend =
        if options.cache_size > 0 { Arc::new(CachingBackend::new(backend, options.cache_size)) } else { backend };
    let described = match options.kind {
        BackendKind::Onnx => describe_onnx(options, &onnx_providers),
        _ => describe(options, layout, &placements),
    };
    Ok((backend, described))
}

/// An ONNX Runtime backend for each device of the options; a lone `cpu` (or `auto` without a usable GPU) opens
/// `layout`'s backends, each a session of its own with `layout`'s intra-op threads, as the torch backend's CPU layout.
fn onnx_backends(
    options: &BackendOptions,
    network: &Network,
    layout: CpuLayout,
) -> Result<Vec<Arc<OnnxBackend>>, NnError> {
    let data_type = |on_gpu: bool| match (options.precision, on_gpu) {
        (Precision::Auto | Precision::Fp16, true) => Ok(DataType::F16),
        (Precision::Auto | Precision::Fp32, false) | (Precision::Fp32, true) => Ok(DataType::F32),
        (precision @ (Precision::Fp16 | Precision::Bf16), _) => Err(NnError::InvalidOption {
            option: "precision",
            value: format!("{precision:?}").to_ascii_lowercase(),
            expected: "with Backend=onnx, auto, fp32, or fp16 on a GPU (the CPU provider runs fp32)",
        }),
    };
    let weights =
        std::fs::read(&options.weights).map_err(|source| NnError::Io { path: options.weights.clone(), source })?;
    let lone = options.devices.len() == 1;
    let mut backends = Vec::new();
    for &choice in &options.devices {
        let device = match choice {
            DeviceChoice::Cpu => OnnxDevice::Cpu,
            DeviceChoice::Cuda(ordinal) => OnnxDevice::Cuda(ordinal),
            DeviceChoice::Auto if gpu_providers_compiled_in() => OnnxDevice::Cuda(0),
            DeviceChoice::Auto => OnnxDevice::Cpu,
        };
        let on_gpu = device != OnnxDevice::Cpu;
        let data_type = data_type(on_gpu)?;
        let settings = OnnxSettings {
            device,
            data_type,
            cpu_threads: layout.threads,
            largest_batch: match options.largest_batch {
                0 => 256,
                given => given,
            },
            tensorrt_cache: tensorrt_cache_folder(),
            tensorrt_prefix: tensorrt_prefix(&weights, data_type),
            policy: PolicyOutput {
                temperature: options.policy_temperature,
                exact_softmax: options.exact_softmax,
                transposed_moves: options.transposed_moves,
            },
            history_fill: options.history_fill,
        };
        let first = Arc::new(OnnxBackend::new(network, &settings).map_err(onnx_error)?);
        let copies = if lone && first.runs_on_cpu() && matches!(choice, DeviceChoice::Cpu | DeviceChoice::Auto) {
            layout.backends
        } else {
            1
        };
        let more: Vec<_> = (1..copies)
            .map(|_| OnnxBackend::new(network, &settings).map(Arc::new).map_err(onnx_error))
            .collect::<Result<_, _>>()?;
        backends.push(first);
        backends.extend(more);
    }
    Ok(backends)
}

/// With `Backend=onnx` on a GPU whose TensorRT engine for this network and precision is not cached yet, the line to
/// show while it builds (minutes the first time); None otherwise.
pub fn tensorrt_build_notice(options: &BackendOptions) -> Option<String> {
    let on_gpu = options.kind == BackendKind::Onnx
        && options.devices.iter().any(|device| matches!(device, DeviceChoice::Cuda(_) | DeviceChoice::Auto))
        && tensorrt_compiled_in();
    let data_type = match options.precision {
        Precision::Auto | Precision::Fp16 => DataType::F16,
        Precision::Fp32 | Precision::Bf16 => DataType::F32,
    };
    if !on_gpu {
        return None;
    }
    let weights = std::fs::read(&options.weights).ok()?;
    let folder = tensorrt_cache_folder();
    let prefix = tensorrt_prefix(&weights, data_type);
    (!tensorrt_engine_cached(&folder, &prefix)).then(|| {
        format!(
            "TensorRT builds its engine for {} (first load of this network and precision: minutes); it is cached in {}",
            options.weights.display(),
            folder.display()
        )
    })
}

/// Whether the ONNX Runtime library has the TensorRT provider compiled in (onnxruntime-gpu's).
fn tensorrt_compiled_in() -> bool {
    use ort::ep::ExecutionProvider;
    onnx_runtime().is_ok() && ort::ep::TensorRT::is_available().unwrap_or(false)
}

/// Whether the ONNX Runtime library has the TensorRT or CUDA provider compiled in (onnxruntime-gpu's), for
/// `BackendDevice=auto`.
fn gpu_providers_compiled_in() -> bool {
    use ort::ep::ExecutionProvider;
    onnx_runtime().is_ok()
        && (ort::ep::TensorRT::is_available().unwrap_or(false) || ort::ep::CUDA::is_available().unwrap_or(false))
}

/// ONNX Runtime's error as the backend factory's.
fn onnx_error(error: OnnxError) -> NnError {
    NnError::Onnx(error.to_string())
}

/// The start-up report of the onnx backends, whose `providers` say what each runs on.
fn describe_onnx(options: &BackendOptions, providers: &[String]) -> String {
    let described = match providers {
        [one] => format!("onnx, {one}"),
        [first, ..] if providers.iter().all(|p| p == first) => {
            format!("round robin of {} onnx backends, each {first}", providers.len())
        }
        many => format!("round robin of {} onnx backends: {}", many.len(), many.join("; ")),
    };
    match &options.record_file {
        Some(path) => format!("{described}, recorded into {}", path.display()),
        None => described,
    }
}

/// How the CPU's backends of a lone `cpu` (or `auto` without a GPU) run a network: how many there are, taking
/// batches in turn, and the threads of each one's forward passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CpuLayout {
    backends: usize,
    threads: usize,
}

impl CpuLayout {
    /// The layout the options set, a residual tower's when they leave it to the network.
    fn given(options: &BackendOptions) -> Self {
        Self { backends: options.cpu_backends.max(1), threads: options.cpu_threads.unwrap_or(1) }
    }

    /// With `cpu_threads` left to the network: a residual tower takes a backend a core, one thread each (its
    /// batches, computed in plain Rust on the caller's thread, do not split across cores); an attention body one
    /// backend whose libtorch passes take those cores, its large products split well (a 256×10 transformer
    /// searched 1.31–1.40 times as fast so on a 2-core Xeon without bf16, level in bf16 on one with AMX;
    /// BENCHMARKS.md, "An attention body's passes on every core" and "The AMX Xeon a fourth time").
    fn for_body(options: &BackendOptions, body: &Body) -> Self {
        match (options.cpu_threads, body) {
            (None, Body::Attention(_)) => Self { backends: 1, threads: options.cpu_backends.max(1) },
            _ => Self::given(options),
        }
    }
}

/// A torch backend for each placement of `network`, the CPU's as `layout` says, with the placements they run; the
/// CPU's share the first one's weights, a GPU keeps a copy of its own. With `Precision=auto` on a CPU with native
/// bf16 the CPU's backends are built in bf16 and in fp32 and timed ([`time_precisions`]); the faster are kept.
fn torch_backends(
    options: &BackendOptions,
    network: &Network,
    layout: CpuLayout,
) -> Result<(Vec<Arc<TorchBackend>>, Vec<Placement>), NnError> {
    let policy = PolicyOutput {
        temperature: options.policy_temperature,
        exact_softmax: options.exact_softmax,
        transposed_moves: options.transposed_moves,
    };
    let cuda = CudaSettings {
        graphs: options.cuda_graphs,
        cudnn_benchmark: options.cudnn_benchmark,
        fusion: options.fused_convolutions,
    };
    let build = |device: Device, kind: Kind| {
        let rust_batch_limit =
            (options.rust_batch_limit).unwrap_or_else(|| default_rust_batch_limit(kind, &network.body));
        TorchBackend::new(network, device, kind, layout.threads, rust_batch_limit, cuda, policy)
            .map(|backend| backend.with_history_fill(options.history_fill))
    };
    let mut placements = placements(options, layout.backends)?;
    let mut timed = timed_cpu_backends(options, &mut placements, |kind| build(Device::Cpu, kind))?.into_iter();
    let mut backends = Vec::new();
    let mut on_cpu: Option<(&Placement, Arc<TorchBackend>)> = None;
    for placement in &placements {
        let on_the_cpu = placement.device == Device::Cpu;
        let backend = match (&on_cpu, if on_the_cpu { timed.next() } else { None }) {
            (_, Some(backend)) => backend,
            (Some((first, backend)), None) if *first == placement => Arc::new(backend.share().map_err(torch_error)?),
            _ => Arc::new(build(placement.device, placement.kind).map_err(torch_error)?),
        };
        if on_the_cpu && on_cpu.is_none() {
            on_cpu = Some((placement, Arc::clone(&backend)));
        }
        backends.push(backend);
    }
    Ok((backends, placements))
}

/// With `Precision=auto` on a CPU with native bf16 (where bf16 and fp32 are both candidates), the CPU's backends in
/// the precision that timed faster, `build` making the first of each and the rest sharing its weights; the CPU's
/// placements then say which and why. Empty elsewhere (an explicit precision, a CPU without native bf16, CUDA).
fn timed_cpu_backends(
    options: &BackendOptions,
    placements: &mut [Placement],
    build: impl Fn(Kind) -> Result<TorchBackend, tch::TchError>,
) -> Result<Vec<Arc<TorchBackend>>, NnError> {
    let on_the_cpu = placements.iter().filter(|placement| placement.device == Device::Cpu).count();
    let (Precision::Auto, Some(feature), 1..) = (options.precision, native_bf16(), on_the_cpu) else {
        return Ok(Vec::new());
    };
    let candidates = |kind: Kind| -> Result<Vec<Arc<TorchBackend>>, tch::TchError> {
        let first = build(kind)?;
        let shared = (1..on_the_cpu).map(|_| first.share().map(Arc::new)).collect::<Result<Vec<_>, _>>()?;
        Ok(std::iter::once(Arc::new(first)).chain(shared).collect())
    };
    let bf16 = candidates(Kind::BFloat16).map_err(torch_error)?;
    let fp32 = candidates(Kind::Float).map_err(torch_error)?;
    let timing = time_precisions(&bf16, &fp32)?;
    let (kind, reason) = (timing.choice(), timing.reason(feature, on_the_cpu));
    for placement in placements.iter_mut().filter(|placement| placement.device == Device::Cpu) {
        placement.kind = kind;
        placement.reason.clone_from(&reason);
    }
    Ok(if kind == Kind::Float { fp32 } else { bf16 })
}

/// libtorch's error as the backend factory's.
fn torch_error(error: tch::TchError) -> NnError {
    NnError::Torch(error.to_string())
}

/// Where each torch backend runs: every device of the list resolved, and a lone `cpu`, or `auto` without a GPU,
/// `cpu_backends` times on the CPU (a list names each of its backends).
fn placements(options: &BackendOptions, cpu_backends: usize) -> Result<Vec<Placement>, NnError> {
    let mut placements = Vec::new();
    let lone = options.devices.len() == 1;
    for &choice in &options.devices {
        let placement = resolve_device(choice, options.precision)?;
        let cpu_choice = matches!(choice, DeviceChoice::Auto | DeviceChoice::Cpu);
        let copies = if lone && cpu_choice && placement.device == Device::Cpu { cpu_backends } else { 1 };
        placements.extend(std::iter::repeat_n(placement, copies));
    }
    Ok(placements)
}

/// Where the network runs and in which tensor kind, with why: the start-up report of every command.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The device.
    pub device: Device,
    /// The tensor kind of the weights and activations.
    pub kind: Kind,
    /// Why this kind: the explicit option, or what `Precision=auto` found.
    pub reason: String,
}

impl Placement {
    /// One line for `info string`, `bench` and `backendbench`, e.g. `cpu, bf16 (Precision=auto: …)`.
    pub fn describe(&self) -> String {
        let device = match self.device {
            Device::Cuda(n) => format!("cuda:{n}"),
            _ => "cpu".to_owned(),
        };
        let kind = match self.kind {
            Kind::BFloat16 => "bf16",
            Kind::Half => "fp16",
            _ => "fp32",
        };
        format!("{device}, {kind} ({})", self.reason)
    }
}

/// The device and tensor kind for a choice; CUDA falls back to the CPU with a warning on stderr. `auto` is
/// fp16 on CUDA, fp32 on a CPU without native bf16, and bf16 on one with it (within [`BF16_TOLERANCE`] of fp32)
/// until the backends are built, where the faster of bf16 and fp32 on this CPU is timed ([`time_precisions`]).
pub fn resolve_device(choice: DeviceChoice, precision: Precision) -> Result<Placement, NnError> {
    let device = match choice {
        DeviceChoice::Cpu => Device::Cpu,
        DeviceChoice::Auto | DeviceChoice::Cuda(_) => {
            let ordinal = if let DeviceChoice::Cuda(n) = choice { n } else { 0 };
            load_cuda_runtime();
            if tch::Cuda::is_available() && ordinal < tch::Cuda::device_count().max(0) as usize {
                Device::Cuda(ordinal)
            } else {
                if choice != DeviceChoice::Auto {
                    log::warn!("CUDA device {ordinal} is not available; running the network on the CPU");
                }
                Device::Cpu
            }
        }
    };
    let explicit = |kind: Kind| (kind, "Precision set explicitly".to_owned());
    let (kind, reason) = match (precision, device) {
        (Precision::Auto, Device::Cpu) => match native_bf16() {
            Some(feature) => (
                Kind::BFloat16,
                format!("Precision=auto: this CPU has native bf16 ({feature}), to be timed against fp32 at load"),
            ),
            None => (Kind::Float, "Precision=auto: this CPU has no native bf16 (AMX-BF16 or AVX512-BF16)".to_owned()),
        },
        (Precision::Auto, _) => (Kind::Half, "Precision=auto: fp16 on CUDA".to_owned()),
        (Precision::Fp32, _) => explicit(Kind::Float),
        (Precision::Bf16, _) => explicit(Kind::BFloat16),
        (Precision::Fp16, Device::Cpu) => {
            return Err(NnError::InvalidOption {
                option: "precision",
                value: "fp16".into(),
                expected: "fp32 or bf16 on the CPU (fp16 needs CUDA)",
            })
        }
        (Precision::Fp16, _) => explicit(Kind::Half),
    };
    Ok(Placement { device, kind, reason })
}

/// What the options run on `layout`, for the start-up report: the `placements` of the torch backends (and their
/// threads on the CPU where a pass takes several), or the name of a test backend, and the file a recording goes to.
fn describe(options: &BackendOptions, layout: CpuLayout, placements: &[Placement]) -> String {
    let described = match options.kind {
        BackendKind::Torch => {
            let on_cpu = placements.iter().any(|placement| placement.device == Device::Cpu);
            let placements: Vec<String> = placements.iter().map(Placement::describe).collect();
            let described = match placements.as_slice() {
                [one] => format!("torch on {one}"),
                [first, ..] if placements.iter().all(|p| p == first) => {
                    format!("round robin of {} torch backends, each on {first}", placements.len())
                }
                many => format!("round robin of {} torch backends, on {}", many.len(), many.join("; ")),
            };
            match layout.threads {
                threads if on_cpu && threads > 1 => format!("{described}; each CPU pass on {threads} threads"),
                _ => described,
            }
        }
        BackendKind::Onnx | BackendKind::Uniform | BackendKind::Random => {
            let name = if options.kind == BackendKind::Uniform { "uniform" } else { "random" };
            match options.devices.len() {
                1 => format!("{name} (test backend, no network)"),
                many => format!("round robin of {many} {name} test backends (no network)"),
            }
        }
        BackendKind::Replay => {
            let path = options.record_file.as_deref().unwrap_or(Path::new(""));
            return format!("replay of {} (no network)", path.display());
        }
    };
    match &options.record_file {
        Some(path) => format!("{described}, recorded into {}", path.display()),
        None => described,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_backends_of_one_placement_share_one_network_and_a_list_of_cpus_too() {
        let weights = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/maia-1900.pb.gz"));
        let network = load_network(&weights).expect("scripts/setup installs Maia-1900");
        let options = BackendOptions {
            weights,
            kind: BackendKind::Torch,
            devices: vec![DeviceChoice::Cpu],
            precision: Precision::Fp32,
            cpu_threads: Some(1),
            rust_batch_limit: Some(1),
            cuda_graphs: false,
            cudnn_benchmark: false,
            fused_convolutions: false,
            cpu_backends: 3,
            policy_temperature: 1.0,
            exact_softmax: false,
            cache_size: 0,
            transposed_moves: TransposedMoves::AsPlanes,
            history_fill: HistoryFill::FenOnly,
            test_backend_delay: Duration::ZERO,
            largest_batch: 0,
            record_file: None,
        };
        let layout = |options: &BackendOptions| CpuLayout::for_body(options, &network.body);
        let (backends, _) = torch_backends(&options, &network, layout(&options)).expect("three CPU backends");
        assert_eq!(backends.len(), 3);
        assert!(backends[1..].iter().all(|backend| backend.shares_weights_with(&backends[0])), "one network");
        let listed = BackendOptions { devices: vec![DeviceChoice::Cpu, DeviceChoice::Cpu], ..options.clone() };
        let (backends, _) = torch_backends(&listed, &network, layout(&listed)).expect("two CPU backends");
        assert!(backends[1].shares_weights_with(&backends[0]), "cpu,cpu: one network");
        let alone = BackendOptions { cpu_backends: 1, ..options };
        let (apart, _) = torch_backends(&alone, &network, layout(&alone)).expect("one backend");
        assert!(!apart[0].shares_weights_with(&backends[0]), "another load, another network");
    }
}
