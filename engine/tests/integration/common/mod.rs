//! Test doubles shared by the search tests: the default parameters, a network whose verdict is a plain
//! function of the request, and a stopper at a visit count.

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::sync::Arc;

use engine::clock::VirtualClock;
use engine::options::EngineOptions;
use engine::search::{SearchParams, SearchRequest};
use nn::{Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation};
use shakmaty::zobrist::Zobrist64;
use shakmaty::EnPassantMode;
use timemgr::search_stats::{Hints, IterationStats, Stopper};

/// lc0's UCI defaults of the search, as the engine's options table declares them (the one place they are).
pub fn lc0_defaults() -> SearchParams {
    EngineOptions::default().search_params()
}

/// A backend that evaluates each position with `evaluate`, in batches of up to 256.
pub struct FnBackend<F> {
    evaluate: F,
    has_moves_left: bool,
    batch_size: usize,
}

impl<F: Fn(&EvalRequest<'_>) -> Evaluation + Send + Sync> FnBackend<F> {
    /// A WDL network without a moves-left head that recommends batches of `batch_size`.
    pub fn new(batch_size: usize, evaluate: F) -> Self {
        Self { evaluate, has_moves_left: false, batch_size }
    }

    /// The same network with (`true`) or without a moves-left head.
    pub fn with_moves_left(self, has_moves_left: bool) -> Self {
        Self { has_moves_left, ..self }
    }
}

struct FnBatch<'a, F> {
    evaluate: &'a F,
    results: Vec<Evaluation>,
}

impl<F: Fn(&EvalRequest<'_>) -> Evaluation + Send + Sync> Backend for FnBackend<F> {
    fn attributes(&self) -> BackendAttributes {
        BackendAttributes {
            has_wdl: true,
            has_moves_left: self.has_moves_left,
            recommended_batch_size: self.batch_size,
            maximum_batch_size: 256,
            recommended_prefetch: 32,
            suggested_threads: 1,
            runs_on_cpu: true,
            concurrent_batches: 1,
        }
    }
    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(FnBatch { evaluate: &self.evaluate, results: Vec::new() })
    }
}

impl<F: Fn(&EvalRequest<'_>) -> Evaluation + Send + Sync> Computation for FnBatch<'_, F> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        self.results.push((self.evaluate)(request));
        Ok(Added::Queued(self.results.len() - 1))
    }
    fn queued(&self) -> usize {
        self.results.len()
    }
    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        Ok(self.results)
    }
}

/// Stops once the root (reused visits included) has this many visits.
pub struct Visits(pub u64);

impl Stopper for Visits {
    fn should_stop(&mut self, stats: &IterationStats, _: &mut Hints) -> bool {
        stats.total_nodes >= self.0
    }
}

/// A search of every root move until `nodes` visits, on a virtual clock, with no end-of-move callback.
pub fn request_for_visits(nodes: u64) -> SearchRequest {
    request_until(Box::new(Visits(nodes)))
}

/// A search of every root move until `stopper` says stop, on a virtual clock, with no end-of-move callback.
pub fn request_until(stopper: Box<dyn Stopper>) -> SearchRequest {
    SearchRequest::new(stopper, Arc::new(VirtualClock::new(1000.0, 0.0)))
}

/// Stops once the root has this many visits or a win is proven.
pub struct VisitsOrWin(pub u64);

impl Stopper for VisitsOrWin {
    fn should_stop(&mut self, stats: &IterationStats, _: &mut Hints) -> bool {
        stats.total_nodes >= self.0 || stats.win_found
    }
}

/// Every position even and every move equally likely.
pub fn uniform(request: &EvalRequest<'_>) -> Evaluation {
    let moves = request.moves.len().max(1);
    Evaluation { wl: 0.0, d: 0.0, m: 0.0, policy: vec![1.0 / moves as f32; request.moves.len()] }
}

/// Values and priors derived from the position's Zobrist hash: fixed, but far from uniform.
pub fn hashed(request: &EvalRequest<'_>) -> Evaluation {
    let position = &request.history.last().expect("a position").position;
    let hash = mix(shakmaty::Position::zobrist_hash::<Zobrist64>(position, EnPassantMode::Legal).0);
    let weights: Vec<f32> =
        (0..request.moves.len()).map(|i| 1.0 + (mix(hash ^ i as u64) % 1000) as f32 / 100.0).collect();
    let total: f32 = weights.iter().sum();
    Evaluation {
        wl: (hash % 2001) as f32 / 1000.0 - 1.0,
        d: 0.0,
        m: 0.0,
        policy: weights.iter().map(|w| w / total).collect(),
    }
}

/// A 64-bit finaliser (MurmurHash3's) that spreads the hash over the priors.
pub fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}
