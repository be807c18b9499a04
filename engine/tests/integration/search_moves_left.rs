//! The network's moves-left estimate for the root, published in the search's statistics for the time manager:
//! a fresh root's own evaluation, a reused root's running mean.

use crate::common;

use std::sync::Arc;

use common::{lc0_defaults, FnBackend, Visits};
use engine::clock::{SharedClock, VirtualClock};
use engine::position::GameState;
use engine::search::{Search, SearchOutcome, SearchParams, SearchRequest};
use nn::{EvalRequest, Evaluation};

/// A network (with or without a moves-left head) that predicts two plies left per piece on the board.
fn piece_count_moves_left(has_head: bool) -> Arc<dyn nn::Backend> {
    let evaluate = |request: &EvalRequest<'_>| {
        let position = &request.history.last().unwrap().position;
        let pieces = shakmaty::Position::board(position).occupied().count() as f32;
        let priors = vec![1.0 / request.moves.len().max(1) as f32; request.moves.len()];
        Evaluation { wl: 0.0, d: 0.3, m: 2.0 * pieces, policy: priors }
    };
    Arc::new(FnBackend::new(8, evaluate).with_moves_left(has_head))
}

/// Searches the current position to `visits` and returns the outcome.
fn search_to(search: &mut Search, visits: u64) -> SearchOutcome {
    let clock: SharedClock = Arc::new(VirtualClock::new(10_000.0, 0.0));
    let request = SearchRequest::new(Box::new(Visits(visits)), clock);
    search.start(request, Box::new(|_| {})).wait().expect("a best move")
}

#[test]
fn a_fresh_root_reports_its_evaluation_and_a_reused_root_its_running_mean() {
    let backend = piece_count_moves_left(true);
    let params = SearchParams { threads: 1, minibatch_size: 1, ..lc0_defaults() };
    let mut search = Search::new(backend, params);
    search.set_position(&GameState::default());
    let fresh = search_to(&mut search, 3);
    assert_eq!(fresh.stats.root_moves_left_plies, Some(64.0), "32 pieces, two plies each");

    // Worked by hand, one leaf per visit: visit 1 evaluates the root; visit 2 its first child c1 (all priors
    // 1/20, all values 0); visit 3 goes to c1 again, whose Q + U = 0 + 1.745·0.05·1/2 = 0.0436 beats an
    // unvisited move's FPU 0 − 0.33·√0.05 plus 1.745·0.05·1/1, 0.0135, and evaluates a grandchild. Every
    // leaf has 32 pieces (no capture within two plies of the start), so c1 holds the mean of its own 64 and the
    // grandchild's 64 + 1 ply: 64.5.
    let (c1, visits) = search.root_visits().into_iter().max_by_key(|(_, n)| *n).unwrap();
    assert_eq!(visits, 2);
    let uci = c1.to_uci(shakmaty::CastlingMode::Standard).to_string();
    assert!(search.set_position(&GameState::from_uci(None, &[uci.as_str()]).unwrap()) > 0, "c1's subtree is reused");
    let reused = search_to(&mut search, 3).stats.root_moves_left_plies;
    assert_eq!(reused, Some(64.5), "a reused root gives its running mean");
}

#[test]
fn without_a_moves_left_head_there_is_no_estimate() {
    let mut search = Search::new(piece_count_moves_left(false), lc0_defaults());
    search.set_position(&GameState::default());
    assert_eq!(search_to(&mut search, 10).stats.root_moves_left_plies, None);
}
