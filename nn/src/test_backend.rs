//! Network-free backends for tests and tools: uniform priors with value 0, or lc0's `random` backend bit for bit
//! (values and priors hashed from the position's input planes, `src/neural/backends/network_random.cc`), so that a
//! search compared with lc0's under `--backend=random` meets no network's float noise. As lc0's, they do their work
//! when the batch is computed, outside the search's tree lock, and may wait a set time per batch as a GPU would, so
//! that the search's threads can be measured without a network.

use std::time::Duration;

use crate::backend::{Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation};
use crate::encoder::{encode_position_into, BoardTransform, HistoryFill, Plane, PLANES};
use crate::network::InputFormat;
use crate::policy_map::{PolicyFrame, TransposedMoves};
use crate::softmax::policy_softmax;
use crate::torch_backend::MAX_BATCH;
use shakmaty::Position;

/// What the test backend answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestMode {
    /// Uniform priors, value 0, draw 0 (lc0's `random` with `uniform=true`).
    Uniform,
    /// lc0's `random` backend: W−L, D and each move's logit hashed from the position's classical input planes,
    /// then the policy softmax at the backend's temperature.
    Random {
        /// lc0's `seed` backend option, the hash's starting value.
        seed: u64,
    },
}

/// A backend without a network.
pub struct TestBackend {
    mode: TestMode,
    delay: Duration,
    /// How the random mode's planes fill the history slots before the first known position.
    history_fill: HistoryFill,
    /// The random mode's policy softmax temperature.
    policy_temperature: f32,
}

/// What a queued position's answer depends on: in random mode the hash of its planes and its moves' policy indices.
struct Pending {
    hash: u64,
    policy_indices: Vec<u16>,
    moves: usize,
}

impl TestBackend {
    /// A test backend in `mode` that answers at once.
    pub fn new(mode: TestMode) -> Self {
        Self::with_delay(mode, Duration::ZERO)
    }

    /// A test backend in `mode` whose every batch takes `delay` without using a core (lc0's random backend's
    /// `delay`), as a GPU's batch does.
    pub fn with_delay(mode: TestMode, delay: Duration) -> Self {
        Self { mode, delay, history_fill: HistoryFill::FenOnly, policy_temperature: 1.0 }
    }

    /// The same backend encoding the random mode's planes with `history_fill` and taking its softmax at
    /// `policy_temperature` (lc0's `HistoryFill` and `PolicyTemperature`).
    pub fn with_encoding(self, history_fill: HistoryFill, policy_temperature: f32) -> Self {
        Self { history_fill, policy_temperature, ..self }
    }

    fn pending(&self, request: &EvalRequest<'_>) -> Result<Pending, BackendError> {
        let entry =
            request.history.last().ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        let moves = request.moves.len();
        let TestMode::Random { seed } = self.mode else {
            return Ok(Pending { hash: 0, policy_indices: Vec::new(), moves });
        };
        let mut planes = [Plane::default(); PLANES];
        encode_position_into(request.history, InputFormat::Classical, self.history_fill, &mut planes)
            .ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        let frame = PolicyFrame::new(entry.position.turn(), BoardTransform::IDENTITY, TransposedMoves::AsPlanes);
        let policy_indices = request
            .moves
            .iter()
            .map(|m| {
                frame
                    .index(m)
                    .and_then(|index| u16::try_from(index).ok())
                    .ok_or_else(|| BackendError::Encoding(format!("the move {m} has no policy index")))
            })
            .collect::<Result<_, _>>()?;
        Ok(Pending { hash: planes_hash(seed, &planes), policy_indices, moves })
    }

    fn evaluate(&self, pending: &Pending) -> Evaluation {
        let moves = pending.moves;
        match self.mode {
            TestMode::Uniform => Evaluation { wl: 0.0, d: 0.0, m: 0.0, policy: vec![1.0 / moves.max(1) as f32; moves] },
            TestMode::Random { .. } => {
                let hash = pending.hash;
                // lc0's GetQVal: an int over 100000.0, in double, returned as float.
                let wl = ((hash % 200_000) as i32 - 100_000) as f64 / 100_000.0;
                let wl = wl as f32;
                // GetDVal: a float product, then a double division, returned as float.
                let max_d = 1.0 - wl.abs();
                let d = (f64::from(max_d * (hash_cat_list(&[hash, 1234]) % 10_000) as f32) / 10_000.0) as f32;
                // GetPVal: a logit uniform over [0, 3) in steps of 3/10000, in float.
                let step = 3.0_f32 / 10_000.0;
                let logits: Vec<f32> = pending
                    .policy_indices
                    .iter()
                    .map(|&index| (hash_cat_list(&[hash, u64::from(index)]) % 10_000) as f32 * step)
                    .collect();
                Evaluation { wl, d, m: 0.0, policy: policy_softmax(&logits, self.policy_temperature) }
            }
        }
    }
}

/// lc0's random backend's input hash: from the seed, each plane's mask and then its value's bits, a plane without
/// squares read as lc0 leaves it (value 1.0, where Kairos's encoder leaves 0.0).
fn planes_hash(seed: u64, planes: &[Plane; PLANES]) -> u64 {
    planes.iter().fold(seed, |hash, plane| {
        let value = if plane.mask == 0 { 1.0_f32 } else { plane.value };
        let hash = hash_cat_list(&[hash, plane.mask]);
        hash_cat_list(&[hash, u64::from(value.to_bits())])
    })
}

/// lc0's `Hash` (utils/hashcat.h): scrambles one value.
fn scramble(value: u64) -> u64 {
    0xfad0_d7f2_fbb0_59f1_u64
        .wrapping_mul(value.wrapping_add(0xbaad_41cd_cb83_9961))
        .wrapping_add(0x7ace_c005_0bf8_2f43_u64.wrapping_mul((value >> 31).wrapping_add(0xd571_b3a9_2b1b_2755)))
}

/// lc0's `HashCat(hash, x)`: appends `x` to `hash`.
fn hash_cat(hash: u64, x: u64) -> u64 {
    hash ^ 0x2997_99ad_f0d9_5def_u64.wrapping_add(scramble(x)).wrapping_add(hash << 6).wrapping_add(hash >> 2)
}

/// lc0's `HashCat({…})`: the values appended in turn to a hash of 0.
fn hash_cat_list(values: &[u64]) -> u64 {
    values.iter().fold(0, |hash, &x| hash_cat(hash, x))
}

impl Backend for TestBackend {
    fn attributes(&self) -> BackendAttributes {
        BackendAttributes {
            has_wdl: true,
            has_moves_left: false,
            recommended_batch_size: 32,
            maximum_batch_size: MAX_BATCH,
            recommended_prefetch: 32,
            suggested_threads: 1,
            // As lc0's random backend, which is no CPU backend: lc0 gives it task workers.
            runs_on_cpu: false,
            concurrent_batches: 1,
        }
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(TestComputation { backend: self, pending: Vec::new() })
    }
}

struct TestComputation<'a> {
    backend: &'a TestBackend,
    pending: Vec<Pending>,
}

impl Computation for TestComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        if self.pending.len() >= MAX_BATCH {
            return Err(BackendError::BatchFull(MAX_BATCH));
        }
        self.pending.push(self.backend.pending(request)?);
        Ok(Added::Queued(self.pending.len() - 1))
    }

    fn queued(&self) -> usize {
        self.pending.len()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        if !self.backend.delay.is_zero() {
            std::thread::sleep(self.backend.delay);
        }
        Ok(self.pending.iter().map(|pending| self.backend.evaluate(pending)).collect())
    }
}
