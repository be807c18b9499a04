//! Network-free backends for tests and tools: uniform priors with value 0, or deterministic
//! pseudo-random outputs seeded from the position's hash (lc0's `trivial` and `random` backends).

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
}

impl TestBackend {
    /// A test backend in `mode`.
    pub fn new(mode: TestMode) -> Self {
        Self { mode }
    }

    fn evaluate(&self, request: &EvalRequest<'_>) -> Result<Evaluation, BackendError> {
        let entry = request
            .history
            .last()
            .ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        let moves = request.moves.len();
        Ok(match self.mode {
            TestMode::Uniform => Evaluation {
                wl: 0.0,
                d: 0.0,
                m: 0.0,
                policy: vec![1.0 / moves.max(1) as f32; moves],
            },
            TestMode::Random { seed } => {
                let hash: Zobrist64 = entry.position.zobrist_hash(EnPassantMode::Legal);
                let mut rng =
                    ChaCha8Rng::seed_from_u64(hash.0 ^ seed ^ u64::from(entry.repetitions));
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
        })
    }
}

impl Backend for TestBackend {
    fn attributes(&self) -> BackendAttributes {
        BackendAttributes {
            has_wdl: true,
            has_moves_left: false,
            recommended_batch_size: 32,
            maximum_batch_size: MAX_BATCH,
            suggested_threads: 1,
        }
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(TestComputation {
            backend: self,
            results: Vec::new(),
        })
    }
}

struct TestComputation<'a> {
    backend: &'a TestBackend,
    results: Vec<Evaluation>,
}

impl Computation for TestComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        if self.results.len() >= MAX_BATCH {
            return Err(BackendError::BatchFull(MAX_BATCH));
        }
        self.results.push(self.backend.evaluate(request)?);
        Ok(Added::Queued(self.results.len() - 1))
    }

    fn queued(&self) -> usize {
        self.results.len()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        Ok(self.results)
    }
}
