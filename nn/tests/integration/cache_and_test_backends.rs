//! The NN cache decorator (hits, misses, move-count guard, repetition in the key, FIFO eviction, clear)
//! and the network-free test backends.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use nn::cache::{cache_key, CachingBackend};
use nn::prior::encode_prior;
use nn::test_backend::{TestBackend, TestMode};
use nn::{Added, Backend, BackendAttributes, BackendError, Computation, EvalRequest, Evaluation, HistoryEntry};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Move, Position};

/// Counts the positions that reach the network.
struct Counting {
    inner: TestBackend,
    evaluated: AtomicUsize,
}

struct CountingComputation<'a> {
    owner: &'a Counting,
    inner: Box<dyn Computation + 'a>,
}

impl Backend for Counting {
    fn attributes(&self) -> BackendAttributes {
        self.inner.attributes()
    }
    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(CountingComputation { owner: self, inner: self.inner.new_computation() })
    }
}

impl Computation for CountingComputation<'_> {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        self.inner.add(request)
    }
    fn queued(&self) -> usize {
        self.inner.queued()
    }
    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        self.owner.evaluated.fetch_add(self.inner.queued(), Ordering::SeqCst);
        self.inner.compute()
    }
}

fn positions(count: usize) -> Vec<Chess> {
    let mut out = vec![Chess::default()];
    while out.len() < count {
        let last = out.last().unwrap().clone();
        for m in last.legal_moves() {
            if out.len() < count {
                out.push(last.clone().play(m).unwrap());
            }
        }
    }
    out
}

fn entry(position: &Chess, repetitions: u32) -> Vec<HistoryEntry> {
    vec![HistoryEntry { position: position.clone(), repetitions }]
}

fn moves(position: &Chess) -> Vec<Move> {
    position.legal_moves().into_iter().collect()
}

fn setup(capacity: usize) -> (Arc<Counting>, CachingBackend) {
    let counting =
        Arc::new(Counting { inner: TestBackend::new(TestMode::Random { seed: 5 }), evaluated: AtomicUsize::new(0) });
    let cache = CachingBackend::new(counting.clone(), capacity);
    (counting, cache)
}

fn evaluate(backend: &dyn Backend, history: &[HistoryEntry], moves: &[Move]) -> (bool, Evaluation) {
    let mut computation = backend.new_computation();
    match computation.add(&EvalRequest { history, moves }).unwrap() {
        Added::Ready(evaluation) => (true, evaluation),
        Added::Queued(index) => (false, computation.compute().unwrap().remove(index)),
    }
}

#[test]
fn second_request_is_a_hit_with_the_same_result() {
    let (counting, cache) = setup(10);
    let start = Chess::default();
    let (hit, first) = evaluate(&cache, &entry(&start, 0), &moves(&start));
    assert!(!hit);
    let (hit, second) = evaluate(&cache, &entry(&start, 0), &moves(&start));
    assert!(hit);
    assert_eq!((first.wl, first.d, first.m), (second.wl, second.d, second.m));
    // Priors come back at the search's 16-bit edge precision: the same edge prior, within half of the
    // encoding's 2^-11 relative step of the network's value.
    assert_eq!(first.policy.len(), second.policy.len());
    for (&network, &cached) in first.policy.iter().zip(&second.policy) {
        assert_eq!(encode_prior(network), encode_prior(cached));
        assert!((network - cached).abs() <= network * 2f32.powi(-12), "{network} {cached}");
    }
    assert_eq!(counting.evaluated.load(Ordering::SeqCst), 1);
}

#[test]
fn repetition_count_and_move_count_are_part_of_a_hit() {
    let (_, cache) = setup(10);
    let start = Chess::default();
    let all = moves(&start);
    evaluate(&cache, &entry(&start, 0), &all);
    assert!(!evaluate(&cache, &entry(&start, 1), &all).0, "another repetition count is another key");
    assert!(!evaluate(&cache, &entry(&start, 0), &all[..5]).0, "a different number of moves is a miss");
    assert!(evaluate(&cache, &entry(&start, 0), &[]).0, "no moves requested always hits");
}

#[test]
fn oldest_entries_are_evicted_first() {
    let (counting, cache) = setup(3);
    let list = positions(4);
    for p in &list {
        evaluate(&cache, &entry(p, 0), &moves(p));
    }
    assert_eq!(cache.len(), 3);
    assert!(!evaluate(&cache, &entry(&list[0], 0), &moves(&list[0])).0, "the oldest was evicted");
    assert!(evaluate(&cache, &entry(&list[3], 0), &moves(&list[3])).0, "the newest stays");
    assert_eq!(counting.evaluated.load(Ordering::SeqCst), 5);
}

#[test]
fn entries_that_outlive_many_evictions_keep_their_own_priors() {
    // Kiwipete, its 48 children and 11 other positions, with 2 to 48 moves each, through a cache of 7: the
    // survivors' priors sit behind many evicted entries of other lengths, and each must come back as the
    // network gave it.
    let (_, cache) = setup(7);
    let direct = TestBackend::new(TestMode::Random { seed: 5 });
    let kiwipete: Chess = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let mut list: Vec<Chess> = moves(&kiwipete).into_iter().map(|m| kiwipete.clone().play(m).unwrap()).collect();
    list.insert(0, kiwipete);
    list.extend(positions(11));
    let lengths: std::collections::BTreeSet<usize> = list.iter().map(|p| moves(p).len()).collect();
    assert!(list.len() == 60 && lengths.len() > 5, "{lengths:?}");
    for p in &list {
        evaluate(&cache, &entry(p, 0), &moves(p));
    }
    assert_eq!(cache.len(), 7);
    for p in &list[53..] {
        let (hit, cached) = evaluate(&cache, &entry(p, 0), &moves(p));
        let (_, network) = evaluate(&direct, &entry(p, 0), &moves(p));
        assert!(hit);
        assert_eq!((cached.wl, cached.d, cached.m), (network.wl, network.d, network.m));
        let encoded = |e: &Evaluation| e.policy.iter().map(|&q| encode_prior(q)).collect::<Vec<_>>();
        assert_eq!(encoded(&cached), encoded(&network));
    }
    assert!(!evaluate(&cache, &entry(&list[52], 0), &moves(&list[52])).0);
    cache.clear_cache();
    evaluate(&cache, &entry(&list[0], 0), &moves(&list[0]));
    assert!(evaluate(&cache, &entry(&list[0], 0), &moves(&list[0])).0, "a cleared cache fills again");
    assert_eq!(cache.len(), 1);
}

#[test]
fn clear_forgets_everything_and_zero_capacity_caches_nothing() {
    let (_, cache) = setup(10);
    let start = Chess::default();
    evaluate(&cache, &entry(&start, 0), &moves(&start));
    cache.clear_cache();
    assert!(cache.is_empty());
    assert!(!evaluate(&cache, &entry(&start, 0), &moves(&start)).0);
    let (_, none) = setup(0);
    evaluate(&none, &entry(&start, 0), &moves(&start));
    assert!(!evaluate(&none, &entry(&start, 0), &moves(&start)).0);
}

#[test]
fn mixed_batches_return_queued_results_in_order() {
    let (_, cache) = setup(10);
    let list = positions(3);
    evaluate(&cache, &entry(&list[1], 0), &moves(&list[1]));
    let direct = TestBackend::new(TestMode::Random { seed: 5 });
    let mut computation = cache.new_computation();
    let histories: Vec<_> = list.iter().map(|p| entry(p, 0)).collect();
    let move_lists: Vec<_> = list.iter().map(moves).collect();
    let added: Vec<Added> = (0..3)
        .map(|i| computation.add(&EvalRequest { history: &histories[i], moves: &move_lists[i] }).unwrap())
        .collect();
    assert_eq!(added[0], Added::Queued(0));
    assert!(matches!(added[1], Added::Ready(_)));
    assert_eq!(added[2], Added::Queued(1));
    assert_eq!(computation.queued(), 2);
    let results = computation.compute().unwrap();
    assert_eq!(results[1], evaluate(&direct, &histories[2], &move_lists[2]).1);
}

#[test]
fn test_backends_are_deterministic_and_well_formed() {
    let list = positions(6);
    let uniform = TestBackend::new(TestMode::Uniform);
    let random = TestBackend::new(TestMode::Random { seed: 1 });
    for p in &list {
        let m = moves(p);
        let (_, u) = evaluate(&uniform, &entry(p, 0), &m);
        assert_eq!(u.wl, 0.0);
        assert!(u.policy.iter().all(|&x| x == 1.0 / m.len() as f32));
        let (_, a) = evaluate(&random, &entry(p, 0), &m);
        let (_, b) = evaluate(&random, &entry(p, 0), &m);
        assert_eq!(a, b);
        assert!((a.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(a.wl.abs() <= 1.0 && (0.0..=1.0).contains(&a.d) && a.wl.abs() + a.d <= 1.0 + 1e-6);
    }
    let (_, x) = evaluate(&random, &entry(&list[1], 0), &moves(&list[1]));
    let (_, y) = evaluate(&random, &entry(&list[2], 0), &moves(&list[2]));
    assert_ne!(x.wl, y.wl, "different positions get different values");
}

#[test]
fn a_delayed_test_backend_waits_once_a_batch_and_answers_as_an_undelayed_one() {
    let list = positions(3);
    let histories: Vec<Vec<HistoryEntry>> = list.iter().map(|p| entry(p, 0)).collect();
    let move_lists: Vec<Vec<Move>> = list.iter().map(moves).collect();
    let plain = TestBackend::new(TestMode::Random { seed: 1 });
    let delay = std::time::Duration::from_millis(40);
    let delayed = TestBackend::with_delay(TestMode::Random { seed: 1 }, delay);
    let started = std::time::Instant::now();
    let mut computation = delayed.new_computation();
    for (history, moves) in histories.iter().zip(&move_lists) {
        computation.add(&EvalRequest { history, moves }).unwrap();
    }
    let results = computation.compute().unwrap();
    assert!(started.elapsed() >= delay, "the batch took {:?}, under its delay", started.elapsed());
    for ((history, moves), result) in histories.iter().zip(&move_lists).zip(&results) {
        assert_eq!(*result, evaluate(&plain, history, moves).1);
    }
}

#[test]
fn a_full_batch_is_refused() {
    let backend = TestBackend::new(TestMode::Uniform);
    let start = Chess::default();
    let history = entry(&start, 0);
    let mut computation = backend.new_computation();
    for _ in 0..backend.attributes().maximum_batch_size {
        computation.add(&EvalRequest { history: &history, moves: &[] }).unwrap();
    }
    assert!(matches!(
        computation.add(&EvalRequest { history: &history, moves: &[] }),
        Err(BackendError::BatchFull(1024))
    ));
    assert!(matches!(
        backend.new_computation().add(&EvalRequest { history: &[], moves: &[] }),
        Err(BackendError::Encoding(_))
    ));
}

/// A network whose value is the history's length, so two histories of one position tell apart.
struct HistoryLength;

struct HistoryLengthComputation {
    values: Vec<Evaluation>,
}

impl Backend for HistoryLength {
    fn attributes(&self) -> BackendAttributes {
        TestBackend::new(TestMode::Uniform).attributes()
    }
    fn new_computation(&self) -> Box<dyn Computation + '_> {
        Box::new(HistoryLengthComputation { values: Vec::new() })
    }
}

impl Computation for HistoryLengthComputation {
    fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
        self.values.push(Evaluation {
            wl: request.history.len() as f32 / 10.0,
            d: 0.0,
            m: 0.0,
            policy: vec![1.0 / request.moves.len() as f32; request.moves.len()],
        });
        Ok(Added::Queued(self.values.len() - 1))
    }
    fn queued(&self) -> usize {
        self.values.len()
    }
    fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
        Ok(self.values)
    }
}

#[test]
fn a_transposition_evaluated_twice_in_one_batch_keeps_the_first_evaluation_as_lc0() {
    let cache = CachingBackend::new(Arc::new(HistoryLength), 100);
    let start = Chess::default();
    let after_nf3_nf6 = ["g1f3", "g8f6"].iter().fold(start.clone(), |p, m| {
        let mv = m.parse::<shakmaty::uci::UciMove>().unwrap().to_move(&p).unwrap();
        p.play(mv).unwrap()
    });
    let short = entry(&after_nf3_nf6, 0);
    let long: Vec<HistoryEntry> = [start.clone(), after_nf3_nf6.clone()]
        .iter()
        .map(|position| HistoryEntry { position: position.clone(), repetitions: 0 })
        .collect();
    let legal = moves(&after_nf3_nf6);
    let mut batch = cache.new_computation();
    batch.add(&EvalRequest { history: &short, moves: &legal }).unwrap();
    batch.add(&EvalRequest { history: &long, moves: &legal }).unwrap();
    let results = batch.compute().unwrap();
    assert_eq!((results[0].wl, results[1].wl), (0.1, 0.2), "each request gets its own evaluation");
    let (hit, cached) = evaluate(&cache, &long, &legal);
    assert!(hit);
    assert_eq!(cached.wl, 0.1, "lc0's cache keeps the entry inserted first");
}

/// The key of a FEN's position with its repetition count.
fn key(fen: &str, repetitions: u32) -> u64 {
    let fen: Fen = fen.parse().expect("a FEN");
    let position: Chess = fen.into_position(CastlingMode::Standard).expect("a legal position");
    cache_key(&EvalRequest { history: &entry(&position, repetitions), moves: &[] }).expect("a history")
}

#[test]
fn the_key_tells_positions_apart_as_the_rules_do() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(key(start, 0), key("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7 12", 0), "move counters");
    assert_ne!(key(start, 0), key(start, 1), "repetitions");
    assert_ne!(key(start, 0), key("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", 0), "side to move");
    assert_ne!(key(start, 0), key("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Qkq - 0 1", 0), "castling");
    assert_ne!(key(start, 0), key("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RQBNKBNR w KQkq - 0 1", 0), "knight and queen");
    assert_ne!(key(start, 0), key("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w kq - 0 1", 0), "king and queen");
    let colours = "4k3/8/8/8/3pP3/8/8/4K3 w - - 0 1";
    assert_ne!(key(colours, 0), key("4k3/8/8/8/3Pp3/8/8/4K3 w - - 0 1", 0), "pawns' colours swapped");
    // A FEN's en-passant square counts as lc0's FEN parser keeps it, whether or not a pawn can capture there.
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_ne!(key(after_e4, 0), key("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 0));
    let capturable = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3";
    assert_ne!(key(capturable, 0), key("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3", 0));
}

/// After a double step lc0 flags en passant wherever an enemy pawn attacks the passed square, even where taking
/// would leave its king in check (`ChessBoard::ApplyMove`), and its cache key with it: after g2g4 here fxg3 would
/// open the fourth rank to the rook on c4, yet the position differs from the one reached by Rc4 after g4.
#[test]
fn the_key_flags_en_passant_after_a_double_step_as_lc0_does() {
    let start: Fen = "8/2p5/3p4/KP2r3/5p1k/8/4P1P1/2R5 w - - 0 1".parse().unwrap();
    let start: Chess = start.into_position(CastlingMode::Standard).unwrap();
    let play = |moves: &[&str]| -> Vec<HistoryEntry> {
        let mut positions = vec![start.clone()];
        for m in moves {
            let position = positions.last().unwrap();
            let mv = m.parse::<shakmaty::uci::UciMove>().unwrap().to_move(position).unwrap();
            positions.push(position.clone().play(mv).unwrap());
        }
        positions.into_iter().map(|position| HistoryEntry { position, repetitions: 0 }).collect()
    };
    let key_after = |moves: &[&str]| cache_key(&EvalRequest { history: &play(moves), moves: &[] }).unwrap();
    let pushed_last = key_after(&["c1c4", "e5e6", "g2g4"]);
    let rook_last = key_after(&["g2g4", "e5e6", "c1c4"]);
    let board = |moves: &[&str]| play(moves).last().unwrap().position.board().clone();
    assert_eq!(board(&["c1c4", "e5e6", "g2g4"]), board(&["g2g4", "e5e6", "c1c4"]));
    assert_ne!(pushed_last, rook_last, "the double step's flag tells the two apart");
}
