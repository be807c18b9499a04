//! The libtorch backend: encodes positions, runs batches of up to 1024 through a [`TorchNetwork`] and
//! turns the raw outputs into evaluations with lc0's legal-move softmax (LC0-NOTES §6.2, §5.8).

use std::sync::Mutex;

use shakmaty::Position;
use tch::{Device, Kind};

use crate::backend::{
    Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation,
};
use crate::encoder::{encode_position, write_dense, PLANES};
use crate::network::{InputFormat, Network, ValueKind};
use crate::policy_map::{move_policy_index, POLICY_SIZE};
use crate::softmax::{exact_policy_softmax, policy_softmax};
use crate::stage_timing::{enter, Stage};
use crate::torch_net::{RawOutputs, TorchNetwork};

/// The largest batch the backend runs (as lc0's network adapter).
pub const MAX_BATCH: usize = 1024;

/// A network on a device; one batch runs at a time (libtorch tensors are not shareable across threads).
pub struct TorchBackend {
    network: Mutex<TorchNetwork>,
    input_format: InputFormat,
    value_kind: ValueKind,
    has_moves_left: bool,
    runs_on_cpu: bool,
    policy_temperature: f32,
    exact_softmax: bool,
}

impl TorchBackend {
    /// Builds the backend for `network` on `device` in precision `kind`, with a policy temperature and
    /// lc0's FastExp softmax, or the exact one when `exact_softmax`.
    pub fn new(
        network: &Network,
        device: Device,
        kind: Kind,
        policy_temperature: f32,
        exact_softmax: bool,
    ) -> Result<Self, tch::TchError> {
        Ok(Self {
            network: Mutex::new(TorchNetwork::new(network, device, kind)?),
            input_format: network.input_format,
            value_kind: network.value.kind,
            has_moves_left: network.moves_left.is_some(),
            runs_on_cpu: device == Device::Cpu,
            policy_temperature,
            exact_softmax,
        })
    }

    fn run(&self, input: &[f32], batch: usize) -> Result<RawOutputs, BackendError> {
        let network = self
            .network
            .lock()
            .map_err(|_| BackendError::Compute("a previous batch panicked".into()))?;
        network
            .forward(input, batch)
            .map_err(|e| BackendError::Compute(e.to_string()))
    }
}

impl Backend for TorchBackend {
    fn attributes(&self) -> BackendAttributes {
        BackendAttributes {
            has_wdl: self.value_kind == ValueKind::Wdl,
            has_moves_left: self.has_moves_left,
            runs_on_cpu: self.runs_on_cpu,
            recommended_batch_size: if self.runs_on_cpu { 32 } else { 256 },
            maximum_batch_size: MAX_BATCH,
            suggested_threads: if self.runs_on_cpu { 1 } else { 2 },
        }
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(TorchComputation {
            backend: self,
            input: Vec::new(),
            move_indices: Vec::new(),
        })
    }
}

struct TorchComputation<'a> {
    backend: &'a TorchBackend,
    input: Vec<f32>,
    move_indices: Vec<Vec<usize>>,
}

impl Computation for TorchComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        if self.move_indices.len() >= MAX_BATCH {
            return Err(BackendError::BatchFull(MAX_BATCH));
        }
        let _timer = enter(Stage::Encode);
        let planes = encode_position(request.history, self.backend.input_format)
            .ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        let turn = request.history[request.history.len() - 1].position.turn();
        let indices = request
            .moves
            .iter()
            .map(|m| {
                move_policy_index(m, turn).ok_or_else(|| {
                    BackendError::Encoding(format!("move {m:?} has no policy index"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let start = self.input.len();
        self.input.resize(start + PLANES * 64, 0.0);
        write_dense(&planes, &mut self.input[start..]);
        self.move_indices.push(indices);
        Ok(Added::Queued(self.move_indices.len() - 1))
    }

    fn queued(&self) -> usize {
        self.move_indices.len()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        let batch = self.move_indices.len();
        if batch == 0 {
            return Ok(Vec::new());
        }
        let raw = {
            let _timer = enter(Stage::Network);
            self.backend.run(&self.input, batch)?
        };
        let value_width = raw.value.len() / batch;
        Ok(self
            .move_indices
            .iter()
            .enumerate()
            .map(|(i, indices)| {
                let logits = &raw.policy[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
                let value = &raw.value[i * value_width..(i + 1) * value_width];
                let (wl, d) = match self.backend.value_kind {
                    ValueKind::Wdl => {
                        let [w, d, l] = wdl_softmax([value[0], value[1], value[2]]);
                        (w - l, d)
                    }
                    ValueKind::Classical => (value[0].tanh(), 0.0),
                };
                let move_logits: Vec<f32> = indices.iter().map(|&index| logits[index]).collect();
                Evaluation {
                    wl,
                    d,
                    m: raw.moves_left.as_ref().map_or(0.0, |m| m[i]),
                    policy: if self.backend.exact_softmax {
                        exact_policy_softmax(&move_logits, self.backend.policy_temperature)
                    } else {
                        policy_softmax(&move_logits, self.backend.policy_temperature)
                    },
                }
            })
            .collect())
    }
}

/// Win, draw and loss probabilities from the value head's logits (exact exp, in f64).
pub fn wdl_softmax(logits: [f32; 3]) -> [f32; 3] {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps = logits.map(|x| (f64::from(x) - f64::from(max)).exp());
    let sum: f64 = exps.iter().sum();
    exps.map(|e| (e / sum) as f32)
}
