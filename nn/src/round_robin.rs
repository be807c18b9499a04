//! lc0's `roundrobin` backend (docs/lc0/backends.md §6.4): one backend per device, each new batch on the next one,
//! so that the search's threads keep several devices busy at once (`BackendDevice=cuda:0,cuda:1`, or `cpu,cpu`
//! for two forward passes side by side on the CPU). It decorates the same batch API as every backend.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::backend::{Backend, BackendAttributes, Computation};

/// Several backends taking batches in turn.
pub struct RoundRobinBackend {
    children: Vec<Arc<dyn Backend>>,
    next: AtomicUsize,
}

impl RoundRobinBackend {
    /// Batches go to `children` in turn, the first to the first; `children` must not be empty.
    pub fn new(children: Vec<Arc<dyn Backend>>) -> Self {
        assert!(!children.is_empty(), "a round robin needs at least one backend");
        Self { children, next: AtomicUsize::new(0) }
    }
}

impl Backend for RoundRobinBackend {
    /// The first child's, with the threads every child suggests added up (one search thread per device at least),
    /// and on the CPU only if every child is: Kairos's default on a CPU is a round robin of CPU backends, where lc0
    /// runs one CPU backend.
    fn attributes(&self) -> BackendAttributes {
        let mut attributes = self.children[0].attributes();
        attributes.suggested_threads = self.children.iter().map(|child| child.attributes().suggested_threads).sum();
        attributes.concurrent_batches = self.children.iter().map(|child| child.attributes().concurrent_batches).sum();
        attributes.runs_on_cpu = self.children.iter().all(|child| child.attributes().runs_on_cpu);
        attributes
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.children.len();
        self.children[turn].new_computation()
    }

    fn clear_cache(&self) {
        self.children.iter().for_each(|child| child.clear_cache());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Added, BackendError, EvalRequest, Evaluation};
    use std::sync::atomic::AtomicU32;

    /// A backend that answers every position with its own number as W−L and counts its batches and clears.
    struct Numbered {
        number: f32,
        batches: AtomicU32,
        clears: AtomicU32,
        threads: usize,
    }

    struct NumberedComputation<'a> {
        backend: &'a Numbered,
        queued: usize,
    }

    impl Backend for Numbered {
        fn attributes(&self) -> BackendAttributes {
            BackendAttributes {
                has_wdl: true,
                has_moves_left: false,
                recommended_batch_size: 7,
                maximum_batch_size: 64,
                recommended_prefetch: 5,
                suggested_threads: self.threads,
                runs_on_cpu: true,
                concurrent_batches: 1,
            }
        }
        fn new_computation(&self) -> Box<dyn Computation + '_> {
            Box::new(NumberedComputation { backend: self, queued: 0 })
        }
        fn clear_cache(&self) {
            self.clears.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl Computation for NumberedComputation<'_> {
        fn add(&mut self, _: &EvalRequest<'_>) -> Result<Added, BackendError> {
            self.queued += 1;
            Ok(Added::Queued(self.queued - 1))
        }
        fn queued(&self) -> usize {
            self.queued
        }
        fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
            self.backend.batches.fetch_add(1, Ordering::SeqCst);
            Ok(vec![Evaluation { wl: self.backend.number, d: 0.0, m: 0.0, policy: Vec::new() }; self.queued])
        }
    }

    fn numbered(number: f32, threads: usize) -> Arc<Numbered> {
        Arc::new(Numbered { number, batches: AtomicU32::new(0), clears: AtomicU32::new(0), threads })
    }

    #[test]
    fn batches_go_to_the_devices_in_turn_and_every_cache_is_cleared() {
        let (first, second) = (numbered(1.0, 1), numbered(2.0, 2));
        let backend = RoundRobinBackend::new(vec![first.clone(), second.clone()]);
        let history = [crate::backend::HistoryEntry { position: shakmaty::Chess::default(), repetitions: 0 }];
        let request = EvalRequest { history: &history, moves: &[] };
        let answers: Vec<f32> = (0..5)
            .map(|_| {
                let mut computation = backend.new_computation();
                computation.add(&request).unwrap();
                computation.compute().unwrap()[0].wl
            })
            .collect();
        assert_eq!(answers, vec![1.0, 2.0, 1.0, 2.0, 1.0]);
        assert_eq!((first.batches.load(Ordering::SeqCst), second.batches.load(Ordering::SeqCst)), (3, 2));
        assert_eq!(backend.attributes().suggested_threads, 3, "the children's threads added up");
        assert_eq!(backend.attributes().recommended_batch_size, 7);
        backend.clear_cache();
        assert_eq!((first.clears.load(Ordering::SeqCst), second.clears.load(Ordering::SeqCst)), (1, 1));
    }
}
