//! `backendbench` as lc0 runs it (docs/lc0/backends.md §6.6): warm up twice at the largest batch, then time a
//! number of batches per size and report throughput statistics (the first batch excluded).

use std::time::Instant;

use shakmaty::{Chess, Move, Position};

use crate::backend::{Backend, EvalRequest, HistoryEntry};
use crate::error::NnError;

/// Throughput of one batch size.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRow {
    /// Positions per batch.
    pub batch_size: usize,
    /// Mean evaluations per second over the timed batches.
    pub mean_nps: f64,
    /// Mean milliseconds per batch.
    pub mean_ms: f64,
    /// Standard deviation of the milliseconds per batch.
    pub sdev_ms: f64,
    /// Coefficient of variation (sdev / mean).
    pub cv: f64,
    /// Evaluations per second of the fastest batch.
    pub max_nps: f64,
    /// Evaluations per second of the median batch.
    pub median_nps: f64,
    /// Evaluations per second of the slowest batch.
    pub min_nps: f64,
    /// Milliseconds of the first (untimed) batch.
    pub first_ms: f64,
}

/// Times `batches_per_size` batches (plus one excluded first batch) of the start position at each size on
/// `backend`, opened without an NN cache (every batch is the same position).
pub fn backend_bench(
    backend: &dyn Backend,
    batch_sizes: &[usize],
    batches_per_size: usize,
) -> Result<Vec<BenchRow>, NnError> {
    let start = StartPositionBatches::new();
    let run = |size: usize| start.time_ms(backend, size);
    if let Some(&largest) = batch_sizes.iter().max() {
        run(largest)?;
        run(largest)?;
    }
    let mut rows = Vec::with_capacity(batch_sizes.len());
    for &size in batch_sizes {
        let first_ms = run(size)?;
        let mut times = (0..batches_per_size.max(1)).map(|_| run(size)).collect::<Result<Vec<f64>, _>>()?;
        times.sort_by(f64::total_cmp);
        let count = times.len() as f64;
        let mean_ms = times.iter().sum::<f64>() / count;
        let sdev_ms = (times.iter().map(|t| (t - mean_ms).powi(2)).sum::<f64>() / count).sqrt();
        let nps = |ms: f64| size as f64 * 1000.0 / ms;
        rows.push(BenchRow {
            batch_size: size,
            mean_nps: nps(mean_ms),
            mean_ms,
            sdev_ms,
            cv: sdev_ms / mean_ms,
            max_nps: nps(times[0]),
            median_nps: nps(times[times.len() / 2]),
            min_nps: nps(times[times.len() - 1]),
            first_ms,
        });
    }
    Ok(rows)
}

/// Batches of the start position: what `backendbench` and the load-time timing of `Precision=auto` run.
pub(crate) struct StartPositionBatches {
    history: [HistoryEntry; 1],
    moves: Vec<Move>,
}

impl StartPositionBatches {
    /// The start position and its legal moves.
    pub(crate) fn new() -> Self {
        let position = Chess::default();
        let moves = position.legal_moves().into_iter().collect();
        Self { history: [HistoryEntry { position, repetitions: 0 }], moves }
    }

    /// Evaluates one batch of `size` copies of the start position on `backend`, queued and computed as the search
    /// does.
    pub(crate) fn evaluate(&self, backend: &dyn Backend, size: usize) -> Result<(), NnError> {
        let request = EvalRequest { history: &self.history, moves: &self.moves };
        let mut computation = backend.new_computation();
        for _ in 0..size {
            computation.add(&request)?;
        }
        computation.compute()?;
        Ok(())
    }

    /// Milliseconds of [`StartPositionBatches::evaluate`] on the wall clock.
    fn time_ms(&self, backend: &dyn Backend, size: usize) -> Result<f64, NnError> {
        let start = Instant::now();
        self.evaluate(backend, size)?;
        Ok(start.elapsed().as_secs_f64() * 1000.0)
    }
}
