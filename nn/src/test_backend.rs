//! Network-free backends for tests and tools: uniform priors with value 0, or deterministic
//! pseudo-random outputs seeded from the position's hash (lc0's `trivial` and `random` backends). As lc0's, they
//! do their work when the batch is computed, outside the search's tree lock, and may wait a set time per batch
//! as a GPU would, so that the search's threads can be measured without a network.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{EnPassantMode, Position};

use crate::backend::{
    Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation,
};
use crate::torch_backend::MAX_BATCH;

/// What the test backend answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestMode {
    /// Uniform priors, value 0, draw 0.
    Uniform,
    /// Priors and W/D/L drawn from a generator seeded by the position's hash and this seed.
    Random {
        /// Mixed into every position's seed.
        seed: u64,
    },
}

/// A backend without a network.
pub struct TestBackend {
    mode: TestMode,
    delay: Duration,
}

/// What a queued position's answer depends on (the hash only in random mode).
struct Pending {
    hash: u64,
    repetitions: u32,
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
        Self { mode, delay }
    }

    fn pending(&self, request: &EvalRequest<'_>) -> Result<Pending, BackendError> {
        let entry = request
            .history
            .last()
            .ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        let hash = match self.mode {
            TestMode::Uniform => 0,
            TestMode::Random { .. } => entry.position.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0,
        };
        Ok(Pending { hash, repetitions: entry.repetitions, moves: request.moves.len() })
    }

    fn evaluate(&self, pending: &Pending) -> Evaluation {
        let moves = pending.moves;
        match self.mode {
            TestMode::Uniform => Evaluation {
                wl: 0.0,
                d: 0.0,
                m: 0.0,
                policy: vec![1.0 / moves.max(1) as f32; moves],
            },
            TestMode::Random { seed } => {
                let mut rng = ChaCha8Rng::seed_from_u64(pending.hash ^ seed ^ u64::from(pending.repetitions));
                let w: f32 = rng.random();
                let d: f32 = rng.random::<f32>() * (1.0 - w);
                let raw: Vec<f32> = (0..moves).map(|_| rng.random::<f32>() + 1e-3).collect();
                let sum: f32 = raw.iter().sum();
                Evaluation {
                    wl: 2.0 * w + d - 1.0,
                    d,
                    m: 0.0,
                    policy: raw.into_iter().map(|p| p / sum).collect(),
                }
            }
        }
    }
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
            concurrent_batches: 1,
        }
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(TestComputation {
            backend: self,
            pending: Vec::new(),
        })
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
