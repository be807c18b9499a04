//! `Backend=replay`: answers each position from a record file (`RecordFile`) instead of a network, so that a
//! search recorded on a slow network runs again on the same trees at the search's own speed (lc0's `recordreplay`
//! backend's `replay_file`). Like the test backends it answers when the batch is computed, outside the tree lock,
//! and may wait `TestBackendDelayMs` a batch, as a GPU would.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::backend::{Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation};
use crate::record_file::{read_records, record_key, RecordFileError, RecordedAttributes};
use crate::torch_backend::MAX_BATCH;

/// A backend answering from a recording.
pub struct ReplayBackend {
    path: PathBuf,
    attributes: RecordedAttributes,
    records: HashMap<u64, Evaluation>,
    delay: Duration,
    requests: AtomicU64,
    misses: AtomicU64,
}

impl ReplayBackend {
    /// Reads the recording at `path`; each batch then waits `delay` without using a core.
    pub fn open(path: &Path, delay: Duration) -> Result<Self, RecordFileError> {
        let (attributes, records) = read_records(path)?;
        Ok(Self {
            path: path.to_owned(),
            attributes,
            records,
            delay,
            requests: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    /// How many positions were asked for, and how many of them the recording lacked (answered with uniform priors
    /// and value 0): a search that strays from the recorded one, by other settings, threads or limits, misses some.
    pub fn misses(&self) -> (u64, u64) {
        (self.requests.load(Ordering::Relaxed), self.misses.load(Ordering::Relaxed))
    }

    /// The recorded evaluation of a position with `moves` legal moves, or uniform priors and value 0.
    fn answer(&self, key: u64, moves: usize) -> Evaluation {
        self.requests.fetch_add(1, Ordering::Relaxed);
        match self.records.get(&key) {
            Some(evaluation) if evaluation.policy.len() == moves => evaluation.clone(),
            _ => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                Evaluation { wl: 0.0, d: 0.0, m: 0.0, policy: vec![1.0 / moves.max(1) as f32; moves] }
            }
        }
    }
}

/// A replay that strayed says so once, when it ends, as a warning (stderr, and a UCI session's LogFile).
impl Drop for ReplayBackend {
    fn drop(&mut self) {
        let (requests, misses) = self.misses();
        if misses > 0 {
            log::warn!(
                "replay: {misses} of {requests} positions were not in {} and were answered with uniform priors and \
                 value 0; record with the replay's settings (threads, minibatch, limits in nodes: a search limited \
                 by time strays, as does the UCI speed calibration at the first isready)",
                self.path.display()
            );
        }
    }
}

impl Backend for ReplayBackend {
    fn attributes(&self) -> BackendAttributes {
        self.attributes.to_backend()
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(ReplayComputation { backend: self, queued: Vec::new() })
    }
}

struct ReplayComputation<'a> {
    backend: &'a ReplayBackend,
    /// Each queued position's key and legal moves.
    queued: Vec<(u64, usize)>,
}

impl Computation for ReplayComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        if self.queued.len() >= MAX_BATCH {
            return Err(BackendError::BatchFull(MAX_BATCH));
        }
        let key =
            record_key(request).ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        self.queued.push((key, request.moves.len()));
        Ok(Added::Queued(self.queued.len() - 1))
    }

    fn queued(&self) -> usize {
        self.queued.len()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        if !self.backend.delay.is_zero() {
            std::thread::sleep(self.backend.delay);
        }
        Ok(self.queued.iter().map(|&(key, moves)| self.backend.answer(key, moves)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{evaluate_one, HistoryEntry};
    use crate::recording::RecordingBackend;
    use crate::test_backend::{TestBackend, TestMode};
    use shakmaty::{Chess, Move, Position};
    use std::sync::Arc;

    /// The start position and the positions after each of its moves, each with its legal moves.
    fn positions() -> Vec<(Vec<HistoryEntry>, Vec<Move>)> {
        let start = Chess::default();
        let entry = |position: &Chess| HistoryEntry { position: position.clone(), repetitions: 0 };
        let mut all = vec![(vec![entry(&start)], start.legal_moves().to_vec())];
        for m in start.legal_moves() {
            let after = start.clone().play(m).unwrap();
            all.push((vec![entry(&start), entry(&after)], after.legal_moves().to_vec()));
        }
        all
    }

    /// What the random backend answered while recorded, the replay answers; a position it never saw gets uniform
    /// priors and counts as a miss.
    #[test]
    fn a_replay_answers_what_the_recorded_backend_answered() {
        let path = std::env::temp_dir().join(format!("kairos-replay-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let random = TestBackend::new(TestMode::Random { seed: 11 });
        let recorded: Vec<Evaluation> = {
            let recording =
                RecordingBackend::new(Arc::new(TestBackend::new(TestMode::Random { seed: 11 })), &path).unwrap();
            let mut computation = recording.new_computation();
            for (history, moves) in &positions()[1..] {
                computation.add(&EvalRequest { history, moves }).unwrap();
            }
            computation.compute().unwrap()
        };
        let replay = ReplayBackend::open(&path, Duration::ZERO).unwrap();
        assert_eq!(replay.attributes(), random.attributes());
        for ((history, moves), recorded) in positions()[1..].iter().zip(&recorded) {
            let request = EvalRequest { history, moves };
            let expected = evaluate_one(&random, &request).unwrap();
            assert_eq!(recorded, &expected);
            assert_eq!(evaluate_one(&replay, &request).unwrap(), expected);
        }
        let (history, moves) = &positions()[0];
        let unseen = evaluate_one(&replay, &EvalRequest { history, moves }).unwrap();
        assert_eq!(unseen, Evaluation { wl: 0.0, d: 0.0, m: 0.0, policy: vec![0.05; 20] });
        assert_eq!(replay.misses(), (21, 1));
        std::fs::remove_file(&path).unwrap();
    }
}
