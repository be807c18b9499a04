//! The NN cache decorator (docs/lc0/backends.md §6.3): evaluations keyed by the position's hash and repetition
//! count, answered at once on a hit, oldest entries evicted first. Priors are kept in lc0's 16-bit edge
//! encoding, the precision the search keeps them at, so a hit gives the search the same edges as the network.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use hashbrown::HashTable;
use shakmaty::{Color, Position, Role};

use crate::backend::{
    Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation, QueuedKeys,
};
use crate::encoder::lc0_ep_square;
use crate::prior::{decode_prior, encode_prior};

/// The cache's entries, oldest first: fixed-size records in one ring, their priors in another, and an index from
/// key to record holding only a 4-byte insertion number, so that an entry costs about its priors plus 40 bytes
/// (#12: memory per tree node no more than lc0's).
#[derive(Default)]
struct Store {
    /// The insertion number (wrapping) of each entry, found by the entry's key.
    index: HashTable<u32>,
    /// The entries, oldest first; `records[0]` has insertion number `first_number`.
    records: VecDeque<Record>,
    /// Every entry's priors in lc0's 16-bit edge encoding, oldest first; `priors[0]` is prior number `first_prior`.
    priors: VecDeque<u16>,
    first_number: u32,
    first_prior: u64,
}

/// An evaluation as the cache holds it, its priors (half the bytes of f32) in the store's prior ring.
struct Record {
    key: u64,
    /// The number of the record's first prior in the ring.
    priors_start: u64,
    wl: f32,
    d: f32,
    m: f32,
    moves: u16,
}

impl Store {
    fn len(&self) -> usize {
        self.records.len()
    }

    fn find(&self, key: u64) -> Option<&Record> {
        let is_key = |number: &u32| self.record(*number).is_some_and(|record| record.key == key);
        let number = *self.index.find(key, is_key)?;
        self.record(number)
    }

    fn record(&self, number: u32) -> Option<&Record> {
        self.records.get(number.wrapping_sub(self.first_number) as usize)
    }

    fn evaluation(&self, record: &Record) -> Evaluation {
        let start = (record.priors_start - self.first_prior) as usize;
        let priors = self.priors.range(start..start + usize::from(record.moves));
        Evaluation { wl: record.wl, d: record.d, m: record.m, policy: priors.map(|&p| decode_prior(p)).collect() }
    }

    /// Adds an entry as the newest unless its key is already there: as lc0's cache, the entry there stays (a
    /// transposition evaluated twice in one batch keeps the first evaluation, from the history queued first).
    fn insert(&mut self, key: u64, evaluation: &Evaluation) {
        let Ok(moves) = u16::try_from(evaluation.policy.len()) else {
            return;
        };
        if self.find(key).is_some() {
            return;
        }
        let number = self.first_number.wrapping_add(self.records.len() as u32);
        self.records.push_back(Record {
            key,
            priors_start: self.first_prior + self.priors.len() as u64,
            wl: evaluation.wl,
            d: evaluation.d,
            m: evaluation.m,
            moves,
        });
        self.priors.extend(evaluation.policy.iter().map(|&p| encode_prior(p)));
        let Self { index, records, first_number, .. } = self;
        let key_of = |number: &u32| records[number.wrapping_sub(*first_number) as usize].key;
        index.insert_unique(key, number, key_of);
    }

    fn evict_oldest(&mut self) {
        let Some(oldest) = self.records.pop_front() else {
            return;
        };
        let number = self.first_number;
        if let Ok(entry) = self.index.find_entry(oldest.key, |&n| n == number) {
            entry.remove();
        }
        self.first_number = number.wrapping_add(1);
        self.priors.drain(..usize::from(oldest.moves));
        self.first_prior += u64::from(oldest.moves);
    }

    fn clear(&mut self) {
        self.first_number = self.first_number.wrapping_add(self.records.len() as u32);
        self.first_prior += self.priors.len() as u64;
        self.index.clear();
        self.records.clear();
        self.priors.clear();
    }
}

/// A backend that remembers the evaluations of another.
pub struct CachingBackend {
    inner: Arc<dyn Backend>,
    capacity: usize,
    store: Mutex<Store>,
}

/// The cache key of a request's last position, as lc0 keys its cache (`ComputeEvalPositionHash` in
/// `src/neural/memcache.cc`: the last position's `Hash()`): its pieces, side to move, castling rights, en-passant flag
/// as lc0 keeps it (the FEN's for the first known position, else wherever an enemy pawn attacks the passed square,
/// even when that capture would be illegal) and repetition count, each word mixed in turn; not the fifty-move counter,
/// so that a transposition reached in more moves takes the first one's evaluation, as in lc0. Its board's seven
/// bitboards take a few dozen instructions to mix, where a Zobrist hash walked every piece (about 800 instructions a
/// new leaf by callgrind).
pub fn cache_key(request: &EvalRequest<'_>) -> Option<u64> {
    let entry = request.history.last()?;
    let position = &entry.position;
    let board = position.board();
    let state = lc0_ep_square(request.history, request.history.len() - 1).map_or(64, u64::from)
        | u64::from(position.turn() == Color::White) << 7
        | u64::from(entry.repetitions) << 8;
    let words = Role::ALL.map(|role| board.by_role(role).0).into_iter().chain([
        board.white().0,
        position.castles().castling_rights().0,
        state,
    ]);
    Some(words.fold(0x2997_99ad_f0d9_5def, |hash, word| mix(hash.rotate_left(29) ^ word)))
}

/// splitmix64's finalizer: each input bit flips about half of the output's.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl CachingBackend {
    /// Wraps `inner` with a cache of `capacity` entries.
    pub fn new(inner: Arc<dyn Backend>, capacity: usize) -> Self {
        Self { inner, capacity, store: Mutex::new(Store::default()) }
    }

    /// The number of entries held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether the cache holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A poisoned lock only means another thread panicked mid-update of plain data; keep going.
    fn lock(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn lookup(&self, key: u64, moves: usize) -> Option<Evaluation> {
        let store = self.lock();
        let record = store.find(key)?;
        (moves == 0 || usize::from(record.moves) == moves).then(|| store.evaluation(record))
    }

    /// Adds a batch's evaluations under one lock, evicting the oldest entries beyond the capacity.
    fn insert(&self, keys: &[u64], evaluations: &[Evaluation]) {
        if self.capacity == 0 {
            return;
        }
        let mut store = self.lock();
        for (&key, evaluation) in keys.iter().zip(evaluations) {
            store.insert(key, evaluation);
            while store.len() > self.capacity {
                store.evict_oldest();
            }
        }
    }
}

impl Backend for CachingBackend {
    fn attributes(&self) -> BackendAttributes {
        self.inner.attributes()
    }

    fn clear_cache(&self) {
        self.lock().clear();
    }

    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(CachingComputation { backend: self, inner: self.inner.new_computation(), keys: QueuedKeys::default() })
    }
}

struct CachingComputation<'a> {
    backend: &'a CachingBackend,
    inner: Box<dyn Computation + 'a>,
    /// The cache key of each queued position.
    keys: QueuedKeys,
}

impl Computation for CachingComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        let key =
            cache_key(request).ok_or_else(|| BackendError::Encoding("the request has an empty history".into()))?;
        if let Some(hit) = self.backend.lookup(key, request.moves.len()) {
            return Ok(Added::Ready(hit));
        }
        let added = self.inner.add(request)?;
        self.keys.note(&added, key)?;
        Ok(added)
    }

    fn queued(&self) -> usize {
        self.inner.queued()
    }

    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        let results = self.inner.compute()?;
        self.backend.insert(self.keys.keys(), &results);
        Ok(results)
    }
}
