//! The NN cache decorator (LC0-NOTES §6.3): evaluations keyed by the position's hash and repetition
//! count, answered at once on a hit, oldest entries evicted first. Priors are kept in lc0's 16-bit edge
//! encoding, the precision the search keeps them at, so a hit gives the search the same edges as the network.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use shakmaty::zobrist::Zobrist64;
use shakmaty::{EnPassantMode, Position};

use crate::backend::{
    Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation,
};
use crate::prior::{decode_prior, encode_prior};

#[derive(Default)]
struct Store {
    entries: HashMap<u64, CachedEvaluation>,
    insertion_order: VecDeque<u64>,
}

/// An evaluation as the cache holds it: half the bytes of the priors as f32.
struct CachedEvaluation {
    wl: f32,
    d: f32,
    m: f32,
    priors: Box<[u16]>,
}

impl CachedEvaluation {
    fn new(evaluation: &Evaluation) -> Self {
        Self {
            wl: evaluation.wl,
            d: evaluation.d,
            m: evaluation.m,
            priors: evaluation.policy.iter().map(|&p| encode_prior(p)).collect(),
        }
    }

    fn evaluation(&self) -> Evaluation {
        Evaluation {
            wl: self.wl,
            d: self.d,
            m: self.m,
            policy: self.priors.iter().map(|&p| decode_prior(p)).collect(),
        }
    }
}

/// A backend that remembers the evaluations of another.
pub struct CachingBackend {
    inner: Arc<dyn Backend>,
    capacity: usize,
    store: Mutex<Store>,
}

/// The cache key of a request's last position: its hash combined with its repetition count.
pub fn cache_key(request: &EvalRequest<'_>) -> Option<u64> {
    let entry = request.history.last()?;
    let hash: Zobrist64 = entry.position.zobrist_hash(EnPassantMode::Legal);
    let repetitions = u64::from(entry.repetitions);
    let mixed = 0x2997_99ad_f0d9_5def_u64
        .wrapping_add(repetitions)
        .wrapping_add(hash.0 << 6)
        .wrapping_add(hash.0 >> 2);
    Some(hash.0 ^ mixed)
}

impl CachingBackend {
    /// Wraps `inner` with a cache of `capacity` entries.
    pub fn new(inner: Arc<dyn Backend>, capacity: usize) -> Self {
        Self {
            inner,
            capacity,
            store: Mutex::new(Store::default()),
        }
    }

    /// The number of entries held.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether the cache holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A poisoned lock only means another thread panicked mid-update of plain data; keep going.
    fn lock(&self) -> MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn lookup(&self, key: u64, moves: usize) -> Option<Evaluation> {
        let store = self.lock();
        store
            .entries
            .get(&key)
            .filter(|e| moves == 0 || e.priors.len() == moves)
            .map(CachedEvaluation::evaluation)
    }

    fn insert(&self, key: u64, evaluation: &Evaluation) {
        if self.capacity == 0 {
            return;
        }
        let mut store = self.lock();
        // As lc0's cache: an entry already there stays (a transposition evaluated twice in one batch keeps
        // the first evaluation, from the history queued first).
        if let std::collections::hash_map::Entry::Vacant(slot) = store.entries.entry(key) {
            slot.insert(CachedEvaluation::new(evaluation));
            store.insertion_order.push_back(key);
        }
        while store.entries.len() > self.capacity {
            match store.insertion_order.pop_front() {
                Some(oldest) => store.entries.remove(&oldest),
                None => break,
            };
        }
    }
}

impl Backend for CachingBackend {
    fn attributes(&self) -> BackendAttributes {
        self.inner.attributes()
    }

    fn clear_cache(&self) {
        let mut store = self.lock();
        store.entries.clear();
        store.insertion_order.clear();
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(CachingComputation {
            backend: self,
            inner: self.inner.new_computation(),
            keys: Vec::new(),
        })
    }
}

struct CachingComputation<'a> {
    backend: &'a CachingBackend,
    inner: Box<dyn Computation + 'a>,
    /// The cache key of each queued position, in queueing order.
    keys: Vec<u64>,
}

impl Computation for CachingComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        let key = cache_key(request)
            .ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        if let Some(hit) = self.backend.lookup(key, request.moves.len()) {
            return Ok(Added::Ready(hit));
        }
        let added = self.inner.add(request)?;
        if let Added::Queued(index) = added {
            if index == self.keys.len() {
                self.keys.push(key);
            } else {
                return Err(BackendError::Compute(format!(
                    "inner backend queued at {index}, expected {}",
                    self.keys.len()
                )));
            }
        }
        Ok(added)
    }

    fn queued(&self) -> usize {
        self.inner.queued()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        let results = self.inner.compute()?;
        for (key, evaluation) in self.keys.iter().zip(&results) {
            self.backend.insert(*key, evaluation);
        }
        Ok(results)
    }
}
