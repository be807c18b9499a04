//! The libtorch backend: encodes positions, runs batches of up to 1024 through a [`TorchNetwork`] and
//! turns the raw outputs into evaluations with lc0's legal-move softmax (docs/lc0/backends.md §6.2,
//! docs/lc0/network.md §5.8).
//!
//! Every batch runs on one long-lived network thread that also uploaded the weights (#12). libtorch's
//! intra-op thread pool (OpenMP) belongs to the thread that calls it: when each search's own threads ran the
//! forward pass, every search started a cold pool, and several callers oversubscribed the cores, which made
//! the forward pass inside a search about 1.6 times slower than in `backendbench`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, sync_channel, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use tch::{Device, Kind};

use crate::backend::{Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation};
use crate::cpu_features::{native_bf16, AVX512_BF16};
use crate::cuda::{disable_tf32_convolutions, set_cudnn_benchmark};
use crate::encoder::{encode_position_into, HistoryFill, InputPlanes, Plane, PLANES};
use crate::freed_blocks::keep_freed_blocks;
use crate::network::{Body, InputFormat, Network, ValueKind};
pub use crate::queued_batch::PolicyOutput;
use crate::queued_batch::{Encoding, QueuedBatch};
use crate::raw_outputs::{GatheredOutputs, PolicyGather};
use crate::rust_net::RustNetwork;
use crate::stage_timing::{enter, Stage};
use crate::torch_net::{
    clear_rows_from, padded_batch_size, write_row, BatchInputs, GraphedForward, InputRows, TorchNetwork,
};

/// The largest batch the backend runs (as lc0's network adapter).
pub const MAX_BATCH: usize = 1024;

/// Page-locked input rows for batches on CUDA, one for each batch that can be written or in flight at once: two
/// search threads (CUDA's suggestion) each writing one while the other's runs, and room for two more. A batch that
/// finds none free comes as planes, which the network thread writes into rows of its own.
const SPARE_INPUT_ROWS: usize = 4;

/// A network on a device, run by its own thread; callers from any thread queue batches to it.
pub struct TorchBackend {
    networks: Networks,
    input_format: InputFormat,
    history_fill: HistoryFill,
    value_kind: ValueKind,
    has_moves_left: bool,
    runs_on_cpu: bool,
    policy: PolicyOutput,
}

/// Which networks evaluate the batches. The network in plain Rust runs on the caller's own thread (no hand-over
/// to the network thread).
enum Networks {
    /// Every batch by libtorch (CUDA, an attention body, `RustBatchLimit=0`).
    Torch(NetworkThread),
    /// Every batch by the network in plain Rust; libtorch's copy is not built (it held 150 MB of a 20×256 tower's
    /// process in bf16, 200 MB in fp32).
    Rust(Arc<RustNetwork>),
    /// Batches of up to `limit` positions by the network in plain Rust, larger ones by libtorch.
    Split { rust: Arc<RustNetwork>, limit: usize, torch: NetworkThread },
}

#[cfg(test)]
impl Networks {
    /// The network in plain Rust and the network thread, where there are.
    fn parts(&self) -> (Option<&Arc<RustNetwork>>, Option<&NetworkThread>) {
        match self {
            Networks::Torch(torch) => (None, Some(torch)),
            Networks::Rust(rust) => (Some(rust), None),
            Networks::Split { rust, torch, .. } => (Some(rust), Some(torch)),
        }
    }
}

/// How the network runs on CUDA (ignored on the CPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CudaSettings {
    /// Each batch size's forward pass replayed from a CUDA graph ([`GraphedForward`]).
    pub graphs: bool,
    /// cuDNN times its algorithms at each new shape and keeps the fastest ([`set_cudnn_benchmark`]).
    pub cudnn_benchmark: bool,
    /// Convolutions run with their bias, ReLU and skip in one call, cuDNN's or (on the CPU) oneDNN's
    /// ([`TorchNetwork::fuse_convolutions`]).
    pub fusion: bool,
}

/// One batch for the network thread and where its outputs go, with the batch's input rows to use again.
struct Job {
    inputs: BatchInputs,
    gather: PolicyGather,
    reply: SyncSender<(Result<GatheredOutputs, BackendError>, Option<InputRows>)>,
}

/// The thread that runs every batch of a [`TorchNetwork`], one at a time, in arrival order.
struct NetworkThread {
    /// Taken on drop, which ends the thread's loop.
    jobs: Option<Sender<Job>>,
    handle: Option<JoinHandle<()>>,
    /// Input rows for callers to write their batches into ([`SPARE_INPUT_ROWS`] on CUDA, none on the CPU).
    spare_rows: Mutex<Vec<InputRows>>,
    /// The network the thread runs, for another thread on the same CPU to run too ([`NetworkThread::share`]).
    network: Arc<TorchNetwork>,
    /// The settings the thread started with.
    settings: ThreadSettings,
}

/// How a network thread runs its network.
#[derive(Clone, Copy)]
struct ThreadSettings {
    device: Device,
    kind: Kind,
    /// On the CPU, the threads of each forward pass (0: libtorch's default, one per core).
    cpu_threads: usize,
    cuda: CudaSettings,
}

/// What a network thread runs: a network it uploads itself, or one another thread on the CPU already runs.
enum ThreadNetwork {
    Upload(Box<Network>),
    Shared(Arc<TorchNetwork>),
}

impl NetworkThread {
    /// Starts the thread, which uploads `network`; returns once the weights are on the device.
    fn start(network: Network, settings: ThreadSettings) -> Result<Self, tch::TchError> {
        Self::start_with(ThreadNetwork::Upload(Box::new(network)), settings)
    }

    /// Another thread running this thread's network, whose weights both hold once: each CPU backend of a process
    /// (one a core by default) held a copy of its own, twice lc0's memory on two cores for a 20×256 tower or a
    /// transformer (BENCHMARKS.md, "Large networks on a Zen 4 EPYC"). Reading libtorch's tensors from several
    /// threads at once is safe; CUDA keeps a network a device.
    fn share(&self) -> Result<Self, tch::TchError> {
        Self::start_with(ThreadNetwork::Shared(Arc::clone(&self.network)), self.settings)
    }

    fn start_with(network: ThreadNetwork, settings: ThreadSettings) -> Result<Self, tch::TchError> {
        let ThreadSettings { device, kind, cpu_threads, cuda } = settings;
        let (jobs, queue) = channel::<Job>();
        type Ready = Result<(Vec<InputRows>, Arc<TorchNetwork>), tch::TchError>;
        let (ready, started) = sync_channel::<Ready>(1);
        let body = move || {
            // libtorch's thread count is the calling thread's OpenMP setting, so it is set here, where every
            // forward pass runs. One thread keeps OpenMP's spinning workers out of the cores of another engine
            // (two engines with two spinning pools each on two cores lost every game on time at 1+0.01).
            if device == Device::Cpu && cpu_threads > 0 {
                tch::set_num_threads(i32::try_from(cpu_threads).unwrap_or(i32::MAX));
            }
            if device != Device::Cpu && kind == Kind::Float && !disable_tf32_convolutions() {
                log::warn!(
                    "this libtorch cannot turn TF32 off, so fp32 convolutions on CUDA may run in TF32; \
                     set NVIDIA_TF32_OVERRIDE=0 to keep them fp32"
                );
            }
            if device != Device::Cpu && !set_cudnn_benchmark(cuda.cudnn_benchmark) && cuda.cudnn_benchmark {
                log::warn!("this libtorch cannot switch cuDNN's benchmark mode on; its heuristics choose");
            }
            let network = match network {
                ThreadNetwork::Upload(parsed) => match upload(*parsed, device, kind, cuda) {
                    Ok(network) => Arc::new(network),
                    Err(error) => {
                        let _ = ready.send(Err(error));
                        return;
                    }
                },
                ThreadNetwork::Shared(network) => network,
            };
            // Captured before the backend is ready, so that the first searches do not wait for the captures.
            let mut graphs = (cuda.graphs && device != Device::Cpu)
                .then(|| {
                    GraphedForward::new(&network, MAX_BATCH)
                        .and_then(|mut graphs| graphs.capture_every_size(&network).map(|()| graphs))
                        .map_err(|why| log::warn!("{why}; the network runs without CUDA graphs"))
                        .ok()
                })
                .flatten();
            let spare_rows = match device {
                Device::Cpu => Vec::new(),
                _ => (0..SPARE_INPUT_ROWS)
                    .map(|_| InputRows::new(MAX_BATCH, true))
                    .collect::<Result<_, _>>()
                    .unwrap_or_else(|why| {
                        log::warn!("no page-locked input rows ({why}); the network thread writes every batch");
                        Vec::new()
                    }),
            };
            let _ = ready.send(Ok((spare_rows, Arc::clone(&network))));
            while let Ok(job) = queue.recv() {
                // A panic inside libtorch's bindings fails this batch, not the thread.
                let batch = || run_batch(&network, &mut graphs, &job.inputs, &job.gather);
                let outputs = catch_unwind(AssertUnwindSafe(batch))
                    .unwrap_or_else(|_| Err(tch::TchError::Torch("the forward pass panicked".into())))
                    .map_err(|error| BackendError::Compute(error.to_string()));
                if let (Err(_), Device::Cuda(ordinal)) = (&outputs, device) {
                    // A failed batch may have left copies from its rows queued; they end before the rows go back.
                    tch::Cuda::synchronize(ordinal as i64);
                }
                let rows = match job.inputs {
                    BatchInputs::Rows { rows, .. } => Some(rows),
                    BatchInputs::Planes(_) => None,
                };
                // The caller may have given up waiting; nothing to do then.
                let _ = job.reply.send((outputs, rows));
            }
        };
        let handle = std::thread::Builder::new()
            .name("kairos-network".into())
            .spawn(body)
            .map_err(|error| tch::TchError::Torch(format!("cannot start the network thread: {error}")))?;
        let upload = started.recv().unwrap_or_else(|_| {
            Err(tch::TchError::Torch("the network thread ended while uploading the weights".into()))
        });
        // The thread is joined first where the upload failed (dropping the queue ends its loop).
        match upload {
            Ok((spare_rows, network)) => Ok(Self {
                jobs: Some(jobs),
                handle: Some(handle),
                spare_rows: Mutex::new(spare_rows),
                network,
                settings,
            }),
            Err(error) => {
                drop(jobs);
                let _ = handle.join();
                Err(error)
            }
        }
    }

    /// Input rows to write a batch into, if one is free.
    fn take_rows(&self) -> Option<InputRows> {
        self.spare_rows.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop()
    }

    /// Runs one batch on the network thread and waits for its outputs, of the policy the logits `gather` reads;
    /// the batch's rows, if it came in some, are free again after.
    fn run(&self, inputs: BatchInputs, gather: PolicyGather) -> Result<GatheredOutputs, BackendError> {
        let stopped = || BackendError::Compute("the network thread has stopped".into());
        let (reply, outputs) = sync_channel(1);
        self.jobs.as_ref().ok_or_else(stopped)?.send(Job { inputs, gather, reply }).map_err(|_| stopped())?;
        let (outputs, rows) = outputs.recv().map_err(|_| stopped())?;
        if let Some(rows) = rows {
            self.give_back(rows);
        }
        outputs
    }

    /// Makes `rows` free for the next batch.
    fn give_back(&self, rows: InputRows) {
        self.spare_rows.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(rows);
    }
}

/// `network`'s weights in libtorch's tensors on `device` in `kind`, its convolutions fused where `cuda` says so. The
/// parsed copy is dropped as soon as the tensors hold the weights: it would stay resident for the thread's life.
fn upload(network: Network, device: Device, kind: Kind, cuda: CudaSettings) -> Result<TorchNetwork, tch::TchError> {
    let mut uploaded = TorchNetwork::new(&network, device, kind)?;
    drop(network);
    if cuda.fusion {
        if let Err(why) = uploaded.fuse_convolutions() {
            log::warn!("{why}; the convolutions' bias, skip and ReLU run as separate operations");
        }
    }
    Ok(uploaded)
}

/// Runs one batch from its CUDA graph where there are graphs, else eagerly. A graph that fails turns the graphs
/// off and the batch runs eagerly: the engine keeps serving, at the eager pass's speed.
fn run_batch(
    network: &TorchNetwork,
    graphs: &mut Option<GraphedForward>,
    inputs: &BatchInputs,
    gather: &PolicyGather,
) -> Result<GatheredOutputs, tch::TchError> {
    if let Some(graphed) = graphs.as_mut().filter(|_| inputs.len() > 0) {
        match graphed.forward(network, inputs, gather) {
            Ok(outputs) => return Ok(outputs),
            Err(why) => {
                log::warn!("CUDA graphs are off from now on, as one failed: {why}");
                *graphs = None;
            }
        }
    }
    match inputs {
        BatchInputs::Planes(positions) => network.forward_gathered(positions, gather),
        BatchInputs::Rows { rows, batch } => network.forward_rows_gathered(rows, *batch, gather),
    }
}

impl Drop for NetworkThread {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(handle) = self.handle.take() {
            // The loop ends with the closed queue; a panic outside a batch has nothing left to report.
            let _ = handle.join();
        }
    }
}

impl TorchBackend {
    /// Builds the backend for `network` on `device` in precision `kind`, turning logits into priors as
    /// `policy` says; on the CPU, batches of up to `rust_batch_limit` positions (by default
    /// [`default_rust_batch_limit`]) run in plain Rust (all of them from [`MAX_BATCH`], and then libtorch's network
    /// is not built), and on CUDA the forward pass runs as `cuda` says.
    pub fn new(
        network: &Network,
        device: Device,
        kind: Kind,
        cpu_threads: usize,
        rust_batch_limit: usize,
        cuda: CudaSettings,
        policy: PolicyOutput,
    ) -> Result<Self, tch::TchError> {
        if device == Device::Cpu {
            keep_freed_blocks();
        }
        // A limit of 0 sends every batch to libtorch: the Rust network (whose Winograd weights take about six
        // times a tower's own in f32, three in bf16 pairs) is not built at all.
        let in_rust = device == Device::Cpu && rust_batch_limit > 0;
        let rust_network = if in_rust { RustNetwork::new(network, kind == Kind::BFloat16) } else { None };
        let settings = ThreadSettings { device, kind, cpu_threads, cuda };
        let torch = || NetworkThread::start(network.clone(), settings);
        let networks = match rust_network.map(Arc::new) {
            Some(rust) if rust_batch_limit >= MAX_BATCH => Networks::Rust(rust),
            Some(rust) => Networks::Split { rust, limit: rust_batch_limit, torch: torch()? },
            None => Networks::Torch(torch()?),
        };
        Ok(Self {
            networks,
            input_format: network.input_format,
            history_fill: HistoryFill::default(),
            value_kind: network.value.kind,
            has_moves_left: network.moves_left.is_some(),
            runs_on_cpu: device == Device::Cpu,
            policy,
        })
    }

    /// The backend with the empty history slots filled as `fill` says (lc0's `fen_only` unless set).
    pub fn with_history_fill(self, fill: HistoryFill) -> Self {
        Self { history_fill: fill, ..self }
    }

    /// How the backend encodes its inputs.
    fn encoding(&self) -> Encoding {
        Encoding {
            input_format: self.input_format,
            history_fill: self.history_fill,
            transposed_moves: self.policy.transposed_moves,
        }
    }

    /// Another backend on the same device with the same weights, held once by both (a process's CPU backends, one
    /// a core by default), and a network thread of its own where this one has one.
    pub fn share(&self) -> Result<Self, tch::TchError> {
        let networks = match &self.networks {
            Networks::Torch(torch) => Networks::Torch(torch.share()?),
            Networks::Rust(rust) => Networks::Rust(Arc::clone(rust)),
            Networks::Split { rust, limit, torch } => {
                Networks::Split { rust: Arc::clone(rust), limit: *limit, torch: torch.share()? }
            }
        };
        Ok(Self { networks, ..*self })
    }

    /// Whether both backends run the same copy of the weights, in plain Rust and in libtorch alike.
    #[cfg(test)]
    pub(crate) fn shares_weights_with(&self, other: &TorchBackend) -> bool {
        fn same<T>(a: Option<&Arc<T>>, b: Option<&Arc<T>>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
        }
        let (rust, torch) = self.networks.parts();
        let (other_rust, other_torch) = other.networks.parts();
        same(rust, other_rust) && same(torch.map(|t| &t.network), other_torch.map(|t| &t.network))
    }
}

/// The largest CPU batch the network in plain Rust computes by default for a network of `body` in `kind` (the
/// engine's `RustBatchLimit=-1`); larger ones go to libtorch. In fp32 the Rust network on one core is faster than
/// libtorch on one core at every batch size, with AVX-512 and with AVX2 alone (Maia-1900; BENCHMARKS.md, "The
/// network in plain Rust", "Winograd F(4×4, 3×3)"), and still at batch 32 on a 20×256 tower (104 against 71
/// evaluations/s). Against libtorch's native bf16 with AMX the crossover falls with the square of the filters:
/// up to batch 6 with Maia's 64 filters (2539–2667 against 2356–2491 evaluations/s, "libtorch in channels-last"),
/// batch 1 with 128 (439 against 326; 626 against 858 at 4) and never with 256 (37 against 73 at batch 1;
/// BENCHMARKS.md, "Transformers and large towers"): 7·(64/filters)² batches, none for an attention body, which
/// the Rust network does not run.
///
/// In bf16 on a CPU with AVX512-BF16 but no AMX every batch of a residual tower goes to the Rust network, whose
/// Winograd products then run in bf16 too: there libtorch's bf16 is the slower at every batch size (an AMD EPYC,
/// Zen 5, one core, batches 1–64: Maia-1900 6,000–8,300 evaluations/s against 4,300–4,900, a 20×256 SE tower
/// 141–284 against 63–163; BENCHMARKS.md, "Winograd products in bf16").
pub fn default_rust_batch_limit(kind: Kind, body: &Body) -> usize {
    let Body::Residual(tower) = body else {
        return 0;
    };
    if kind == Kind::Float || (kind == Kind::BFloat16 && native_bf16() == Some(AVX512_BF16)) {
        return MAX_BATCH;
    }
    let filters = tower.filters().max(1);
    7 * 64 * 64 / (filters * filters)
}

impl Backend for TorchBackend {
    fn attributes(&self) -> BackendAttributes {
        BackendAttributes::of_network(
            self.value_kind == ValueKind::Wdl,
            self.has_moves_left,
            MAX_BATCH,
            self.runs_on_cpu,
        )
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(TorchComputation { backend: self, batch: QueuedBatch::default() })
    }
}

/// A batch under construction for a [`TorchBackend`].
struct TorchComputation<'a> {
    backend: &'a TorchBackend,
    batch: QueuedBatch,
}

impl Computation for TorchComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        self.batch.add(request, self.backend.input_format, MAX_BATCH)
    }

    fn queued(&self) -> usize {
        self.batch.len()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        let backend = self.backend;
        let batch = self.batch.len();
        if batch == 0 {
            return Ok(Vec::new());
        }
        let raw = match &backend.networks {
            Networks::Rust(rust) => self.forward_in_rust(rust)?,
            Networks::Split { rust, limit, .. } if batch <= *limit => self.forward_in_rust(rust)?,
            Networks::Split { torch, .. } | Networks::Torch(torch) => {
                let (inputs, gather) = {
                    let _timer = enter(Stage::Encode);
                    match torch.take_rows() {
                        Some(mut rows) => match self.encode_into(&mut rows) {
                            Ok(gather) => (BatchInputs::Rows { rows, batch }, gather),
                            Err(error) => {
                                torch.give_back(rows);
                                return Err(error);
                            }
                        },
                        None => self.encode().map(|(positions, gather)| (BatchInputs::Planes(positions), gather))?,
                    }
                };
                let _timer = enter(Stage::Network);
                torch.run(inputs, gather)?
            }
        };
        let value = |value: &[f32]| match backend.value_kind {
            ValueKind::Wdl => {
                let [w, d, l] = wdl_softmax([value[0], value[1], value[2]]);
                (w - l, d)
            }
            ValueKind::Classical => (value[0].tanh(), 0.0),
        };
        Ok(self.batch.evaluations(&raw, value, &backend.policy))
    }
}

impl TorchComputation<'_> {
    /// The queued positions' outputs from the network in plain Rust, on this thread.
    fn forward_in_rust(&self, rust: &RustNetwork) -> Result<GatheredOutputs, BackendError> {
        let (positions, gather) = {
            let _timer = enter(Stage::Encode);
            self.encode()?
        };
        let _timer = enter(Stage::Network);
        Ok(rust.forward(&positions).gathered(&gather))
    }

    /// Every queued position's input planes, and the policy index of every queued move.
    fn encode(&self) -> Result<(Vec<InputPlanes>, PolicyGather), BackendError> {
        self.batch.encode(self.backend.encoding())
    }

    /// Writes the queued positions into `rows` as the network reads them on CUDA, padded with empty positions to
    /// the padded batch size; the policy gather of [`TorchComputation::encode`].
    fn encode_into(&self, rows: &mut InputRows) -> Result<PolicyGather, BackendError> {
        let batch = self.batch.len();
        let (masks, values) = rows.first_mut(padded_batch_size(batch));
        let mut planes = [Plane::default(); PLANES];
        let fill = self.backend.history_fill;
        let gather = self.batch.encode_each(self.backend.encoding(), |index, history, format| {
            let transform = encode_position_into(history, format, fill, &mut planes)?;
            write_row(&planes, index, masks, values);
            Some(transform)
        })?;
        clear_rows_from(batch, masks, values);
        Ok(gather)
    }
}

/// Win, draw and loss probabilities from the value head's logits (exact exp, in f64).
pub fn wdl_softmax(logits: [f32; 3]) -> [f32; 3] {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps = logits.map(|x| (f64::from(x) - f64::from(max)).exp());
    let sum: f64 = exps.iter().sum();
    exps.map(|e| (e / sum) as f32)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::backend::{evaluate_one, HistoryEntry};
    use crate::loader::load_network;
    use crate::network::{Conv, ResidualTower};
    use crate::policy_map::TransposedMoves;
    use shakmaty::{Chess, Move, Position};

    const WEIGHTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/maia-1900.pb.gz");
    const CPU_ONLY: CudaSettings = CudaSettings { graphs: false, cudnn_benchmark: false, fusion: false };

    /// Priors with the exact exponential, the policy planes as the network gives them.
    fn exact_policy() -> PolicyOutput {
        PolicyOutput { temperature: 1.0, exact_softmax: true, transposed_moves: TransposedMoves::AsPlanes }
    }

    fn backend() -> TorchBackend {
        let network = load_network(std::path::Path::new(WEIGHTS)).expect("scripts/setup installs Maia-1900");
        let policy = exact_policy();
        TorchBackend::new(&network, Device::Cpu, Kind::Float, 0, 0, CPU_ONLY, policy).expect("the network uploads")
    }

    fn start_position(backend: &TorchBackend) -> Result<Evaluation, BackendError> {
        let history = [HistoryEntry { position: Chess::default(), repetitions: 0 }];
        let moves: Vec<Move> = history[0].position.legal_moves().into_iter().collect();
        evaluate_one(backend, &EvalRequest { history: &history, moves: &moves })
    }

    #[test]
    fn a_failing_batch_is_an_error_and_the_network_thread_keeps_serving() {
        let backend = backend();
        let before = start_position(&backend).expect("the start position evaluates");
        // An empty batch fails in libtorch (no size can be inferred when the policy is flattened to [0, -1]),
        // on the network thread.
        let Networks::Torch(torch) = &backend.networks else {
            panic!("a Rust batch limit of 0 leaves every batch to libtorch");
        };
        match torch.run(BatchInputs::Planes(Vec::new()), PolicyGather::default()) {
            Err(BackendError::Compute(message)) => assert!(!message.is_empty()),
            other => panic!("expected a compute error, got {other:?}"),
        }
        assert_eq!(start_position(&backend).expect("the thread still runs batches"), before);
    }

    #[test]
    fn batches_written_into_input_rows_evaluate_as_batches_of_planes() {
        // On the CPU libtorch reads planes written square by square on the host; rows of masks and values (what a
        // search thread writes on CUDA) are expanded by tensor operators instead: two ways to the same input.
        let planes = backend();
        let rows = backend();
        let Networks::Torch(torch) = &rows.networks else {
            panic!("a Rust batch limit of 0 leaves every batch to libtorch");
        };
        assert!(torch.take_rows().is_none(), "no input rows on the CPU");
        *torch.spare_rows.lock().expect("unpoisoned") = vec![InputRows::new(MAX_BATCH, false).expect("host rows")];
        let mut history = vec![HistoryEntry { position: Chess::default(), repetitions: 0 }];
        for uci in ["e2e4", "c7c5", "g1f3"] {
            let position = &history[history.len() - 1].position;
            let mv = uci.parse::<shakmaty::uci::UciMove>().expect("UCI").to_move(position).expect("legal");
            history.push(HistoryEntry { position: position.clone().play(mv).expect("legal"), repetitions: 0 });
        }
        let evaluate = |backend: &TorchBackend| -> Vec<Evaluation> {
            let mut computation = backend.new_computation();
            for length in 1..=history.len() {
                let moves: Vec<Move> = history[length - 1].position.legal_moves().into_iter().collect();
                computation.add(&EvalRequest { history: &history[..length], moves: &moves }).expect("queued");
            }
            computation.compute().expect("evaluates")
        };
        let (expected, written) = (evaluate(&planes), evaluate(&rows));
        assert_eq!(torch.spare_rows.lock().expect("unpoisoned").len(), 1, "the rows are free again");
        assert_eq!(expected.len(), 4);
        for (expected, written) in expected.iter().zip(&written) {
            let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
            assert!(close(expected.wl, written.wl) && close(expected.d, written.d), "{expected:?} {written:?}");
            assert_eq!(expected.policy.len(), written.policy.len());
            let policies_close = expected.policy.iter().zip(&written.policy).all(|(&a, &b)| close(a, b));
            assert!(policies_close, "{expected:?} {written:?}");
        }
        assert_ne!(expected[0].policy, expected[1].policy, "the positions differ");
    }

    #[test]
    fn a_backend_that_runs_every_batch_in_rust_builds_no_libtorch_network_and_evaluates_as_a_split_one() {
        let network = load_network(std::path::Path::new(WEIGHTS)).expect("scripts/setup installs Maia-1900");
        let policy = exact_policy();
        let with_limit = |limit| TorchBackend::new(&network, Device::Cpu, Kind::Float, 0, limit, CPU_ONLY, policy);
        let rust_only = with_limit(MAX_BATCH).expect("the network builds");
        assert!(matches!(rust_only.networks, Networks::Rust(_)), "every batch in Rust");
        let split = with_limit(MAX_BATCH - 1).expect("the network builds");
        assert!(matches!(split.networks, Networks::Split { .. }), "the largest batch in libtorch");
        let evaluation = start_position(&rust_only).expect("the Rust network alone evaluates");
        assert_eq!(evaluation, start_position(&split).expect("a batch of one in Rust"));
    }

    #[test]
    fn batches_from_several_threads_get_their_own_outputs() {
        let backend = backend();
        let alone = start_position(&backend).expect("the start position evaluates");
        std::thread::scope(|scope| {
            let callers: Vec<_> = (0..4).map(|_| scope.spawn(|| start_position(&backend))).collect();
            for caller in callers {
                assert_eq!(caller.join().expect("no panic").expect("evaluates"), alone);
            }
        });
    }

    #[test]
    fn a_shared_backend_holds_the_same_weights_on_a_thread_of_its_own_and_evaluates_as_the_first() {
        let network = load_network(std::path::Path::new(WEIGHTS)).expect("scripts/setup installs Maia-1900");
        let policy = exact_policy();
        // Batches of one in Rust, larger ones in libtorch.
        let first = TorchBackend::new(&network, Device::Cpu, Kind::Float, 1, 1, CPU_ONLY, policy).expect("builds");
        let alone = TorchBackend::new(&network, Device::Cpu, Kind::Float, 1, 1, CPU_ONLY, policy).expect("builds");
        let shared = first.share().expect("shares");
        assert!(shared.shares_weights_with(&first) && !alone.shares_weights_with(&first));
        let thread_of = |backend: &TorchBackend| match &backend.networks {
            Networks::Split { torch, .. } => torch.handle.as_ref().expect("running").thread().id(),
            _ => panic!("a Rust batch limit of 1 splits the batches"),
        };
        assert_ne!(thread_of(&first), thread_of(&shared), "a network thread each");

        let history = [HistoryEntry { position: Chess::default(), repetitions: 0 }];
        let moves: Vec<Move> = history[0].position.legal_moves().into_iter().collect();
        let request = EvalRequest { history: &history, moves: &moves };
        let batch_of = |backend: &TorchBackend, size: usize| {
            let mut computation = backend.new_computation();
            (0..size).for_each(|_| drop(computation.add(&request).expect("queued")));
            computation.compute().expect("evaluates")
        };
        let expected = [batch_of(&alone, 1), batch_of(&alone, 3)];
        std::thread::scope(|scope| {
            let callers: Vec<_> = [&first, &shared, &first, &shared]
                .into_iter()
                .map(|backend| scope.spawn(move || (0..20).map(|i| batch_of(backend, 1 + 2 * (i % 2))).collect()))
                .collect();
            for caller in callers {
                let outputs: Vec<Vec<Evaluation>> = caller.join().expect("no panic");
                for (i, output) in outputs.iter().enumerate() {
                    assert_eq!(output, &expected[i % 2], "batch {i}");
                }
            }
        });
    }

    /// /proc/cpuinfo's flags, read apart from the CPUID detection under test.
    pub(crate) fn cpu_flags() -> Vec<String> {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("Linux /proc/cpuinfo");
        let flags = cpuinfo.lines().find(|line| line.starts_with("flags")).expect("a flags line");
        flags.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn bf16_sends_every_batch_of_a_residual_tower_to_plain_rust_only_on_avx512_bf16_without_amx() {
        let tower_of = |filters: usize| {
            let input = Conv { out_channels: filters, in_channels: 112, kernel: 3, weights: vec![], biases: vec![] };
            Body::Residual(ResidualTower { input, blocks: vec![] })
        };
        let nets = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reference/nets");
        let transformer = load_network(&nets.join("transformer-pe-map-smolgen.pb.gz")).expect("a transformer net");
        let flags = cpu_flags();
        let has = |flag: &str| flags.iter().any(|f| f == flag);
        let avx512_bf16_alone = has("avx512_bf16") && !has("amx_bf16");
        for (filters, amx_limit) in [(16, 112), (64, 7), (128, 1), (256, 0)] {
            let limit = default_rust_batch_limit(Kind::BFloat16, &tower_of(filters));
            let expected = if avx512_bf16_alone { MAX_BATCH } else { amx_limit };
            assert_eq!(limit, expected, "{filters} filters, flags: {flags:?}");
            let fp32 = default_rust_batch_limit(Kind::Float, &tower_of(filters));
            assert_eq!(fp32, MAX_BATCH, "fp32, {filters} filters");
        }
        for kind in [Kind::Float, Kind::BFloat16] {
            assert_eq!(default_rust_batch_limit(kind, &transformer.body), 0, "the Rust network runs no attention");
        }
    }
}
