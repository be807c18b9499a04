//! Backend configuration and the factory that builds a backend from it: network loading, device and
//! precision choice with CPU fallback, and the NN cache decorator.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use tch::{Device, Kind};

use crate::backend::Backend;
use crate::cache::CachingBackend;
use crate::cuda::load_cuda_runtime;
use crate::error::NnError;
use crate::loader::load_network;
use crate::test_backend::{TestBackend, TestMode};
use crate::torch_backend::TorchBackend;

/// Which backend evaluates positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The network through libtorch.
    Torch,
    /// Uniform priors, value 0 (no network).
    Uniform,
    /// Deterministic pseudo-random outputs (no network).
    Random,
}

impl BackendKind {
    /// Every backend's name, as options and flags write it, in the order of [`BackendKind::ALL`].
    pub const NAMES: &'static [&'static str] = &["torch", "uniform", "random"];
    /// Every backend, in the order of [`BackendKind::NAMES`].
    pub const ALL: [Self; 3] = [Self::Torch, Self::Uniform, Self::Random];
}

impl FromStr for BackendKind {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        named(Self::NAMES, &Self::ALL, s).ok_or(NnError::InvalidOption {
            option: "backend",
            value: s.into(),
            expected: "torch, uniform or random",
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

impl FromStr for DeviceChoice {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        let invalid = || NnError::InvalidOption {
            option: "device",
            value: s.into(),
            expected: "cpu, cuda, cuda:N or auto",
        };
        match s {
            "cpu" => Ok(Self::Cpu),
            "cuda" => Ok(Self::Cuda(0)),
            "auto" => Ok(Self::Auto),
            _ => s
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(Self::Cuda)
                .ok_or_else(invalid),
        }
    }
}

/// The arithmetic precision of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// fp16 on CUDA, fp32 on the CPU.
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

/// Everything needed to build a backend; the engine fills it from its options (the one place of their defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct BackendOptions {
    /// The Lc0 weights file (used by the torch backend).
    pub weights: PathBuf,
    /// Which backend.
    pub kind: BackendKind,
    /// Where it runs.
    pub device: DeviceChoice,
    /// In which precision.
    pub precision: Precision,
    /// The policy softmax temperature.
    pub policy_temperature: f32,
    /// Softmax with the exact exponential instead of lc0's FastExp (for network checks, not for play).
    pub exact_softmax: bool,
    /// NN cache entries (0 disables the cache).
    pub cache_size: usize,
}

/// Builds the backend the options describe, wrapped in the NN cache unless its size is 0.
pub fn open_backend(options: &BackendOptions) -> Result<Arc<dyn Backend>, NnError> {
    if !(options.policy_temperature > 0.0 && options.policy_temperature.is_finite()) {
        return Err(NnError::InvalidOption {
            option: "policy_temperature",
            value: options.policy_temperature.to_string(),
            expected: "a positive finite number",
        });
    }
    let backend: Arc<dyn Backend> = match options.kind {
        BackendKind::Uniform => Arc::new(TestBackend::new(TestMode::Uniform)),
        BackendKind::Random => Arc::new(TestBackend::new(TestMode::Random { seed: 0 })),
        BackendKind::Torch => {
            let network = load_network(&options.weights)?;
            let (device, kind) = resolve_device(options.device, options.precision)?;
            Arc::new(
                TorchBackend::new(
                    &network,
                    device,
                    kind,
                    options.policy_temperature,
                    options.exact_softmax,
                )
                .map_err(|e| NnError::Torch(e.to_string()))?,
            )
        }
    };
    Ok(if options.cache_size > 0 {
        Arc::new(CachingBackend::new(backend, options.cache_size))
    } else {
        backend
    })
}

/// The device and tensor kind for a choice; CUDA falls back to the CPU with a warning on stderr.
pub fn resolve_device(
    choice: DeviceChoice,
    precision: Precision,
) -> Result<(Device, Kind), NnError> {
    let device = match choice {
        DeviceChoice::Cpu => Device::Cpu,
        DeviceChoice::Auto | DeviceChoice::Cuda(_) => {
            let ordinal = if let DeviceChoice::Cuda(n) = choice {
                n
            } else {
                0
            };
            load_cuda_runtime();
            if tch::Cuda::is_available() && ordinal < tch::Cuda::device_count().max(0) as usize {
                Device::Cuda(ordinal)
            } else {
                if choice != DeviceChoice::Auto {
                    eprintln!("warning: CUDA device {ordinal} is not available; running the network on the CPU");
                }
                Device::Cpu
            }
        }
    };
    let kind = match (precision, device) {
        (Precision::Auto, Device::Cpu) | (Precision::Fp32, _) => Kind::Float,
        (Precision::Auto, _) => Kind::Half,
        (Precision::Bf16, _) => Kind::BFloat16,
        (Precision::Fp16, Device::Cpu) => {
            return Err(NnError::InvalidOption {
                option: "precision",
                value: "fp16".into(),
                expected: "fp32 or bf16 on the CPU (fp16 needs CUDA)",
            })
        }
        (Precision::Fp16, _) => Kind::Half,
    };
    Ok((device, kind))
}
