//! The network's moves-left estimate reaches the time manager: `Search::root_moves_left` evaluates a fresh
//! root once and reads a reused root's running mean.

mod common;

use std::sync::Arc;

use common::{FnBackend, Visits};
use engine::clock::{SharedClock, VirtualClock};
use engine::position::GameState;
use engine::search::{Search, SearchParams, SearchRequest};
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

fn search_to(search: &mut Search, visits: u64) {
    let clock: SharedClock = Arc::new(VirtualClock::new(10_000.0, 0.0));
    let request = SearchRequest {
        stopper: Box::new(Visits(visits)),
        clock,
        move_start_ms: 0.0,
        searchmoves: Vec::new(),
        hold_bestmove_until_stop: false,
    };
    search.start(request, Box::new(|_| {})).wait();
}

#[test]
fn a_fresh_root_is_evaluated_once_and_a_searched_root_gives_its_running_mean() {
    let backend = piece_count_moves_left(true);
    let params = SearchParams { threads: 1, minibatch_size: 4, ..SearchParams::default() };
    let mut search = Search::new(backend, params);
    let game = GameState::default();
    search.set_position(&game);
    assert_eq!(search.root_moves_left(&game).unwrap(), Some(64.0), "32 pieces, two plies each");

    search_to(&mut search, 200);
    let searched = search.root_moves_left(&game).unwrap().expect("a moves-left head");
    // Leaves predict 64 plies (62 after an exchange, possible from the third ply on) plus one per ply below the
    // root, so the running mean lies a little above the root's own 64.
    assert!(searched > 64.0 && searched < 80.0, "{searched}");

    let after_e4 = GameState::from_uci(None, &["e2e4"]).unwrap();
    assert!(search.set_position(&after_e4) > 0, "the reply's subtree is reused");
    let reused = search.root_moves_left(&after_e4).unwrap().unwrap();
    assert!(reused > 64.0, "a reused root gives its searched mean: {reused}");
}

#[test]
fn without_a_moves_left_head_there_is_no_estimate() {
    let mut search = Search::new(piece_count_moves_left(false), SearchParams::default());
    let game = GameState::default();
    search.set_position(&game);
    assert_eq!(search.root_moves_left(&game).unwrap(), None);
}
