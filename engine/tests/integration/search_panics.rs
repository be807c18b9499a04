//! A panic anywhere in a search (the network, a stopper, the end of the move) never leaves a `go` without an
//! answer (#35): the move ends with the error reported and a legal best move, the caller's end of the move
//! runs once, and the next search of the same `Search` plays normally (on a fresh tree when the panic left
//! visits in flight).

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use common::{hashed, lc0_defaults, request_until, FnBackend, Visits};
use engine::position::GameState;
use engine::search::{Search, SearchEvent, SearchOutcome, SearchParams, SearchRequest};
use nn::{EvalRequest, Evaluation};
use shakmaty::{Chess, Position};
use timemgr::search_stats::{Hints, IterationStats, Stopper};

/// What one search left behind.
struct Ended {
    outcome: Option<SearchOutcome>,
    errors: Vec<String>,
    best_moves: usize,
    ends_of_move: u32,
}

/// Searches the start position until `stopper`, counting best moves, errors and calls of the end of the move
/// (which panics itself when `panicking_end` is set). A search that never ends fails the test after a minute
/// instead of hanging it.
fn search_once(mut search: Search, stopper: Box<dyn Stopper + Send>, panicking_end: bool) -> (Search, Ended) {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink_events = Arc::clone(&events);
        let ends = Arc::new(AtomicU32::new(0));
        let counted = Arc::clone(&ends);
        let request = SearchRequest {
            after_bestmove: Some(Box::new(move |_| {
                counted.fetch_add(1, Ordering::SeqCst);
                assert!(!panicking_end, "the manager's learning broke");
            })),
            ..request_until(stopper)
        };
        search.set_position(&GameState::default());
        let sink = Box::new(move |event| sink_events.lock().unwrap().push(event));
        let outcome = search.start(request, sink).wait();
        let events = events.lock().unwrap().clone();
        let errors = events.iter().filter_map(|e| match e {
            SearchEvent::Error(text) => Some(text.clone()),
            _ => None,
        });
        let ended = Ended {
            outcome,
            errors: errors.collect(),
            best_moves: events.iter().filter(|e| matches!(e, SearchEvent::BestMove { .. })).count(),
            ends_of_move: ends.load(Ordering::SeqCst),
        };
        let _ = sender.send((search, ended));
    });
    receiver.recv_timeout(std::time::Duration::from_secs(60)).expect("the search ended within a minute")
}

fn params(threads: usize) -> SearchParams {
    SearchParams { threads, minibatch_size: 4, max_prefetch: Some(0), ..lc0_defaults() }
}

/// A network that panics on its `after`-th evaluation (counting from 1), and evaluates like `hashed` otherwise.
fn panicking_network(after: u32) -> Arc<FnBackend<impl Fn(&EvalRequest<'_>) -> Evaluation + Send + Sync>> {
    let evaluations = AtomicU32::new(0);
    Arc::new(FnBackend::new(4, move |request: &EvalRequest<'_>| {
        if evaluations.fetch_add(1, Ordering::SeqCst) + 1 == after {
            panic!("the network broke");
        }
        hashed(request)
    }))
}

fn assert_legal_at_the_start(outcome: &Option<SearchOutcome>) {
    let best = outcome.as_ref().and_then(|outcome| outcome.best).expect("a best move");
    assert!(Chess::default().is_legal(best), "{best:?}");
}

#[test]
fn a_panicking_network_ends_the_move_with_the_error_and_the_best_move_so_far() {
    for threads in [1, 2] {
        let search = Search::new(panicking_network(40), params(threads));
        let (search, ended) = search_once(search, Box::new(Visits(1_000_000)), false);
        assert_eq!((ended.best_moves, ended.ends_of_move), (1, 1), "threads {threads}");
        assert!(ended.errors.iter().any(|e| e.contains("panicked (the network broke)")), "{:?}", ended.errors);
        assert_legal_at_the_start(&ended.outcome);
        // The best so far: one of the visited root moves.
        let best = ended.outcome.unwrap().best.unwrap();
        assert!(search.root_visits().is_empty() || search.root_visits().iter().any(|(mv, n)| *mv == best && *n > 0));

        // The network evaluates from now on: the next search plays normally, on a fresh tree since the panic
        // left its batch's visits in flight.
        let (_, next) = search_once(search, Box::new(Visits(200)), false);
        assert!(next.errors.is_empty(), "{:?}", next.errors);
        let stats = &next.outcome.as_ref().unwrap().stats;
        assert!(stats.total_nodes >= 200, "{stats:?}");
        assert_eq!(stats.total_nodes, stats.nodes_since_movestart, "a fresh tree: nothing reused");
    }
}

#[test]
fn a_panic_before_the_first_visit_still_plays_a_legal_move() {
    let (_, ended) = search_once(Search::new(panicking_network(1), params(1)), Box::new(Visits(100)), false);
    assert_eq!((ended.best_moves, ended.ends_of_move), (1, 1));
    assert_legal_at_the_start(&ended.outcome);
}

/// A stopper (a time manager's) that panics at its `after`-th poll.
struct PanickingStopper {
    polls: u32,
    after: u32,
}

impl Stopper for PanickingStopper {
    fn should_stop(&mut self, _: &IterationStats, _: &mut Hints) -> bool {
        self.polls += 1;
        assert!(self.polls < self.after, "the time manager broke");
        false
    }
}

#[test]
fn a_panicking_stopper_ends_the_move_with_the_error_and_a_legal_move() {
    let stopper = Box::new(PanickingStopper { polls: 0, after: 30 });
    let (_, ended) = search_once(Search::new(Arc::new(FnBackend::new(4, hashed)), params(2)), stopper, false);
    assert_eq!((ended.best_moves, ended.ends_of_move), (1, 1));
    assert!(ended.errors.iter().any(|e| e.contains("the time manager broke")), "{:?}", ended.errors);
    assert_legal_at_the_start(&ended.outcome);
}

#[test]
fn a_panicking_end_of_move_is_reported_after_the_best_move() {
    let search = Search::new(Arc::new(FnBackend::new(4, hashed)), params(1));
    let (_, ended) = search_once(search, Box::new(Visits(100)), true);
    assert_eq!((ended.best_moves, ended.ends_of_move), (1, 1));
    let reported = ended.errors.iter().any(|e| e.contains("end of the move") && e.contains("manager's learning broke"));
    assert!(reported, "{:?}", ended.errors);
    assert!(ended.outcome.unwrap().stats.total_nodes >= 100, "the search itself ran to its end");
}
