//! The forward pass on CUDA replayed from CUDA graphs, one per padded batch size (#33 item 4). Eagerly, libtorch
//! launches each of a pass's few hundred kernels from the host, and on an H100 a batch of 1 took Kairos 2.0–6.8 ms
//! where lc0 took 0.18–0.67 ms (BENCHMARKS.md, "Kairos beside lc0's cuda backend"); a graph launches them all at
//! once. Each batch size's graph reads its input from tensors of its own and writes its outputs to tensors of its
//! own, which the copies in and out go through; every graph allocates from one shared memory pool, as PyTorch's
//! `make_graphed_callables` does, since the graphs never run at the same time.

use std::collections::HashMap;

use tch::{Device, Kind, Tensor};

use super::cuda_graph::{CudaGraph, CudaStream, GraphApi, MempoolId};
use super::dispatcher::{copy_without_waiting, page_locked_zeros};
use super::input_rows::{BatchInputs, InputRows};
use super::{every_padded_size, gather_host_logits, host_slice, padded_batch_size, DeviceOutputs, TorchNetwork};
use crate::encoder::PLANES;
use crate::policy_map::POLICY_SIZE;
use crate::raw_outputs::{GatheredOutputs, PolicyGather};
use crate::stage_timing::{enter, Stage};

/// The graphs of one network on one CUDA device, one a padded batch size: all of them as the network loads
/// ([`GraphedForward::capture_every_size`]), or each as its size first occurs.
pub(crate) struct GraphedForward {
    api: &'static GraphApi,
    device: Device,
    index: i8,
    /// The stream graphs are captured on (capture needs one other than the default).
    stream: CudaStream,
    /// The pool every graph allocates from: the first graph's, once there is one.
    pool: MempoolId,
    graphs: HashMap<usize, CapturedBatch>,
    /// Page-locked host memory the outputs are copied to, and the inputs from where the batch comes as planes, for
    /// the largest batch.
    host: HostBuffers,
}

/// One batch size's graph and the device tensors it reads and writes.
struct CapturedBatch {
    graph: CudaGraph,
    masks: Tensor,
    values: Tensor,
    outputs: DeviceOutputs,
}

/// Page-locked host tensors of the largest batch's positions: the copies from and to them run at the bus's speed,
/// without a staging copy.
struct HostBuffers {
    /// The rows a batch that comes as planes is written into.
    inputs: InputRows,
    policy: Tensor,
    value: Tensor,
    moves_left: Tensor,
}

impl GraphedForward {
    /// Graphs for `network` at batches of up to `capacity` positions, or why there can be none: not on CUDA, or a
    /// libtorch without the graph API.
    pub(crate) fn new(network: &TorchNetwork, capacity: usize) -> Result<Self, String> {
        let Device::Cuda(ordinal) = network.device else {
            return Err("CUDA graphs need a CUDA device".into());
        };
        let api = GraphApi::get().ok_or("this libtorch does not export at::cuda::CUDAGraph")?;
        let index = i8::try_from(ordinal).map_err(|_| format!("CUDA device {ordinal} is out of range"))?;
        let stream = api.side_stream(index)?;
        let host = HostBuffers::new(capacity, network.kind).map_err(|e| e.to_string())?;
        let pool = MempoolId::default();
        Ok(Self { api, device: network.device, index, stream, pool, graphs: HashMap::new(), host })
    }

    /// The outputs of a batch's `inputs` from the graph of their padded batch size, captured first if it is new; of
    /// the policy, the logits `gather` reads.
    pub(crate) fn forward(
        &mut self,
        network: &TorchNetwork,
        inputs: &BatchInputs,
        gather: &PolicyGather,
    ) -> Result<GatheredOutputs, String> {
        let batch = inputs.len();
        let padded = padded_batch_size(batch);
        let capacity = match inputs {
            BatchInputs::Planes(_) => self.host.capacity(),
            BatchInputs::Rows { rows, .. } => rows.capacity().min(self.host.capacity()),
        };
        if batch == 0 || padded > capacity {
            return Err(format!("a batch of {batch} positions has no graph (1 to {capacity})"));
        }
        let torch = |e: tch::TchError| e.to_string();
        tch::no_grad(|| {
            self.ensure_captured(network, padded)?;
            let captured = self.graphs.get_mut(&padded).expect("captured above");
            let rows = match inputs {
                BatchInputs::Planes(positions) => {
                    let _inputs = enter(Stage::NetworkInputs);
                    self.host.inputs.write(positions, padded);
                    &self.host.inputs
                }
                BatchInputs::Rows { rows, .. } => rows,
            };
            let copies = enter(Stage::NetworkInputCopies);
            let (masks, values) = rows.first(padded).map_err(torch)?;
            for (device, host) in [(&captured.masks, &masks), (&captured.values, &values)] {
                copy_without_waiting(device, host).map_err(torch)?;
            }
            drop(copies);
            let replay = enter(Stage::NetworkReplay);
            captured.graph.replay()?;
            let outputs = self.host.copy_outputs(&captured.outputs, batch).map_err(torch)?;
            tch::Cuda::synchronize(i64::from(self.index));
            drop(replay);
            let _read = enter(Stage::NetworkOutputs);
            outputs.read(gather).map_err(torch)
        })
    }

    /// Captures a graph for every padded batch size up to the largest batch, so that no search waits for a capture
    /// (an eager pass and the capture, each a new shape for cuDNN and cuBLAS) in its first batches.
    pub(crate) fn capture_every_size(&mut self, network: &TorchNetwork) -> Result<(), String> {
        tch::no_grad(|| {
            let sizes = every_padded_size(self.host.capacity());
            sizes.into_iter().try_for_each(|padded| self.ensure_captured(network, padded))
        })
    }

    /// Captures the graph of `padded` positions unless there is one.
    fn ensure_captured(&mut self, network: &TorchNetwork, padded: usize) -> Result<(), String> {
        if !self.graphs.contains_key(&padded) {
            let captured = self.capture(network, padded)?;
            self.graphs.insert(padded, captured);
        }
        Ok(())
    }

    /// Captures the forward pass at `padded` positions, after one eager pass on the capture stream (which lets
    /// cuDNN and cuBLAS set up their kernels and workspaces outside the capture, as PyTorch advises).
    fn capture(&mut self, network: &TorchNetwork, padded: usize) -> Result<CapturedBatch, String> {
        let _timer = enter(Stage::GraphCapture);
        let torch = |e: tch::TchError| e.to_string();
        let shape = [padded as i64, PLANES as i64, 1];
        let masks = Tensor::f_zeros(shape, (Kind::Int64, self.device)).map_err(torch)?;
        let values = Tensor::f_zeros(shape, (Kind::Float, self.device)).map_err(torch)?;
        let pass = || -> Result<DeviceOutputs, String> {
            let input = network.expand_on_device(&masks, &values).map_err(torch)?;
            let outputs = network.device_outputs(&input, padded as i64).map_err(torch)?;
            outputs.into_host_kinds(network.kind).map_err(torch)
        };
        tch::Cuda::synchronize(i64::from(self.index));
        self.api.on_stream(self.index, self.stream, || pass().map(drop))??;
        tch::Cuda::synchronize(i64::from(self.index));
        let (mut graph, outputs) = CudaGraph::capture(self.api, self.index, self.stream, self.pool, pass)?;
        if self.pool == MempoolId::default() {
            self.pool = graph.pool()?;
        }
        Ok(CapturedBatch { graph, masks, values, outputs })
    }
}

impl DeviceOutputs {
    /// The same outputs in the kinds of the page-locked buffers they are copied to, so that the copy is all that is
    /// left: the policy in `policy_kind`, the network's precision (in fp16 half the bytes of f32 cross the bus), the
    /// rest in f32.
    fn into_host_kinds(self, policy_kind: Kind) -> Result<Self, tch::TchError> {
        Ok(Self {
            policy: self.policy.f_to_kind(policy_kind)?,
            value: self.value.f_to_kind(Kind::Float)?,
            moves_left: self.moves_left.map(|m| m.f_to_kind(Kind::Float)).transpose()?,
        })
    }
}

impl HostBuffers {
    fn new(capacity: usize, policy_kind: Kind) -> Result<Self, tch::TchError> {
        let rows = capacity as i64;
        Ok(Self {
            inputs: InputRows::new(capacity, true)?,
            policy: page_locked_zeros(&[rows, POLICY_SIZE as i64], policy_kind)?,
            value: page_locked_zeros(&[rows, 3], Kind::Float)?,
            moves_left: page_locked_zeros(&[rows, 1], Kind::Float)?,
        })
    }

    fn capacity(&self) -> usize {
        self.inputs.capacity()
    }

    /// Queues the copies of the first `batch` rows of the graph's outputs into the page-locked buffers, behind the
    /// replay on the current stream; the caller synchronizes before it reads them.
    fn copy_outputs(&self, outputs: &DeviceOutputs, batch: usize) -> Result<HostOutputs, tch::TchError> {
        let rows = batch as i64;
        let copied = |device: &Tensor, host: &Tensor| -> Result<Tensor, tch::TchError> {
            let host = host.f_narrow(0, 0, rows)?.f_narrow(1, 0, device.size()[1])?;
            copy_without_waiting(&host, &device.f_narrow(0, 0, rows)?)?;
            Ok(host)
        };
        Ok(HostOutputs {
            policy: copied(&outputs.policy, &self.policy)?,
            value: copied(&outputs.value, &self.value)?,
            moves_left: outputs.moves_left.as_ref().map(|m| copied(m, &self.moves_left)).transpose()?,
        })
    }
}

/// A batch's outputs in the page-locked buffers, once the device has copied them there.
struct HostOutputs {
    policy: Tensor,
    value: Tensor,
    moves_left: Option<Tensor>,
}

impl HostOutputs {
    /// The outputs, of the policy the logits `gather` reads, read in the page-locked buffers.
    fn read(&self, gather: &PolicyGather) -> Result<GatheredOutputs, tch::TchError> {
        let first = |host: &Tensor| -> Result<Vec<f32>, tch::TchError> {
            Ok(host_slice::<f32>(&host.f_contiguous()?).to_vec())
        };
        Ok(GatheredOutputs {
            logits: gather_host_logits(&self.policy.f_contiguous()?, gather)?,
            value: first(&self.value)?,
            moves_left: self.moves_left.as_ref().map(first).transpose()?,
        })
    }
}
