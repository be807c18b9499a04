//! The batch evaluation API the search talks to (docs/lc0/backends.md §6.1, §6.8): backends create computations,
//! computations collect positions and evaluate them in one batch. Decorators (the NN cache) wrap a backend
//! and expose the same API, so batching and caching compose without touching the search.

use shakmaty::{Chess, Move};

/// One position of a game's history, as the encoder needs it.
#[derive(Clone, Debug)]
pub struct HistoryEntry {
    /// The position.
    pub position: Chess,
    /// How many times this position occurred before in the game (0 = first time), docs/lc0/search.md §4.7.
    pub repetitions: u32,
}

/// A position to evaluate: its history and the moves whose priors are wanted.
#[derive(Clone, Copy, Debug)]
pub struct EvalRequest<'a> {
    /// The game from its first known position, oldest first; the last entry is the position to evaluate.
    /// The encoder copies the first entry into empty slots (lc0's `fen_only` fill) and takes its en-passant
    /// square as its FEN gave it; it looks back 8 positions, or in lc0's V2 formats (5, 133) as far as the
    /// last capture or pawn move.
    pub history: &'a [HistoryEntry],
    /// The legal moves of the position to evaluate, in the order the priors are wanted.
    pub moves: &'a [Move],
}

/// The network's verdict on one position, from the side to move's point of view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// Win − loss probability, in [−1, 1].
    pub wl: f32,
    /// Draw probability (0 for networks without a WDL head).
    pub d: f32,
    /// Expected plies left (0 for networks without a moves-left head).
    pub m: f32,
    /// Priors of the requested moves, in request order, after the softmax with the policy temperature.
    pub policy: Vec<f32>,
}

/// What a backend can do, so the search can size its batches.
#[derive(Clone, Debug, PartialEq)]
pub struct BackendAttributes {
    /// The network has a WDL value head.
    pub has_wdl: bool,
    /// The network has a moves-left head.
    pub has_moves_left: bool,
    /// The minibatch size the backend works best with.
    pub recommended_batch_size: usize,
    /// The largest batch the backend accepts.
    pub maximum_batch_size: usize,
    /// How many positions prefetching may fill a small batch up to (`MaxPrefetch=-1` takes it): worth it where a
    /// batch costs its launches more than its positions, waste where each position costs what a searched one does.
    pub recommended_prefetch: usize,
    /// How many search threads suit the backend.
    pub suggested_threads: usize,
    /// The network runs on the CPU (lc0's `runs_on_cpu`): lc0 then gives its search threads no task workers.
    pub runs_on_cpu: bool,
    /// How many batches it computes at once (one a backend of a round robin): the search counts it idle only
    /// while fewer are in flight.
    pub concurrent_batches: usize,
}

impl BackendAttributes {
    /// A network backend's attributes on the CPU or on a GPU, the choices measured with libtorch and shared by
    /// every backend that runs a real network.
    pub fn of_network(has_wdl: bool, has_moves_left: bool, maximum_batch_size: usize, runs_on_cpu: bool) -> Self {
        BackendAttributes {
            has_wdl,
            has_moves_left,
            recommended_batch_size: if runs_on_cpu { 32 } else { 256 },
            maximum_batch_size,
            // lc0's 32 on CUDA; none on a CPU, where a prefetched position costs what a searched one does: without
            // it Maia-1900 searched 5–16 % faster on a Zen 4 EPYC and won 280 games at 10+0.1 by +25 ± 26 Elo, a
            // transformer searched 4 times as fast (BENCHMARKS.md, "Prefetching on a CPU").
            recommended_prefetch: if runs_on_cpu { 0 } else { 32 },
            // Two on CUDA, as lc0: since the gather ends early for an idle backend, a second search thread
            // searches 1.35–1.57 times as fast on an H100 (means of five runs on each of Maia-1900, a 20×256 SE
            // net and a transformer), and a fourth adds nothing (BENCHMARKS.md, "Two search threads on CUDA").
            suggested_threads: if runs_on_cpu { 1 } else { 2 },
            runs_on_cpu,
            concurrent_batches: 1,
        }
    }
}

/// Whether an added position is waiting for the batch or was answered at once (a cache hit).
#[derive(Clone, Debug, PartialEq)]
pub enum Added {
    /// Queued; its result comes from `compute` at this index of the returned vector.
    Queued(usize),
    /// Answered immediately; the search may back it up out of order.
    Ready(Evaluation),
}

/// Why an evaluation failed; names the problem and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The batch holds as many positions as the backend accepts.
    #[error("batch is full: the backend accepts at most {0} positions per batch")]
    BatchFull(usize),
    /// The request cannot be encoded (no history, or a move the policy cannot express).
    #[error("cannot encode the position: {0}")]
    Encoding(String),
    /// The computation itself failed (a libtorch or device error).
    #[error("network evaluation failed: {0}")]
    Compute(String),
}

/// The key of each position a decorator's inner computation queued, in queueing order: what the decorators that act
/// on a batch's results by key (the NN cache, the recording) keep beside it.
#[derive(Default)]
pub(crate) struct QueuedKeys(Vec<u64>);

impl QueuedKeys {
    /// Notes `key` for a position the inner computation `added`: kept if it was queued, where the inner computation
    /// must have queued it next.
    pub(crate) fn note(&mut self, added: &Added, key: u64) -> Result<(), BackendError> {
        if let Added::Queued(index) = *added {
            if index != self.0.len() {
                let expected = self.0.len();
                return Err(BackendError::Compute(format!("inner backend queued at {index}, expected {expected}")));
            }
            self.0.push(key);
        }
        Ok(())
    }

    /// The queued positions' keys, in queueing order.
    pub(crate) fn keys(&self) -> &[u64] {
        &self.0
    }
}

/// Evaluates positions in batches; shared by all search threads.
pub trait Backend: Send + Sync {
    /// What this backend can do.
    fn attributes(&self) -> BackendAttributes;
    /// Starts an empty batch, owned by one search thread.
    fn new_computation(&self) -> Box<dyn Computation + '_>;
    /// Forgets cached evaluations (on `ucinewgame`); a backend without a cache has nothing to forget.
    fn clear_cache(&self) {}
}

/// One batch under construction.
pub trait Computation: Send {
    /// Adds a position: queued for the batch, or answered at once.
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError>;
    /// How many positions are queued for the network.
    fn queued(&self) -> usize;
    /// Evaluates every queued position in one batch; results in queueing order.
    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError>;
}

/// Evaluates one position on its own, outside the search's batching (a cache hit answers at once).
pub fn evaluate_one(backend: &dyn Backend, request: &EvalRequest<'_>) -> Result<Evaluation, BackendError> {
    let mut computation = backend.new_computation();
    match computation.add(request)? {
        Added::Ready(evaluation) => Ok(evaluation),
        Added::Queued(index) => computation
            .compute()?
            .into_iter()
            .nth(index)
            .ok_or_else(|| BackendError::Compute("the backend returned no result".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queued position's key is kept in queueing order, an answered one's is not, and a queue index out of order
    /// is an error naming both indices.
    #[test]
    fn queued_keys_follow_the_inner_queue() {
        let mut keys = QueuedKeys::default();
        keys.note(&Added::Queued(0), 7).unwrap();
        keys.note(&Added::Ready(Evaluation::default()), 8).unwrap();
        keys.note(&Added::Queued(1), 9).unwrap();
        assert_eq!(keys.keys(), [7, 9]);
        let error = keys.note(&Added::Queued(5), 10).unwrap_err();
        assert_eq!(error.to_string(), "network evaluation failed: inner backend queued at 5, expected 2");
        assert_eq!(keys.keys(), [7, 9]);
    }
}
