//! Draws inside the search (docs/lc0/search.md §4.7): insufficient material, the fifty-move rule, threefold and
//! two-fold repetitions become terminal draws. The test network says white is clearly better everywhere
//! (WL = ±0.9), so black, to move at every root here, prefers any proven draw to any evaluated position.

use crate::common;

use common::{lc0_defaults, request_for_visits, FnBackend};
use engine::position::GameState;
use engine::search::{Score, Search, SearchEvent, SearchOutcome, SearchParams};
use nn::{EvalRequest, Evaluation};
use shakmaty::CastlingMode;
use std::sync::{Arc, Mutex};

/// White is clearly better in every position, from the side to move's point of view.
fn white_better(request: &EvalRequest<'_>) -> Evaluation {
    let n = request.moves.len();
    let white_to_move = shakmaty::Position::turn(&request.history.last().unwrap().position) == shakmaty::Color::White;
    let wl = if white_to_move { 0.9 } else { -0.9 };
    Evaluation { wl, d: 0.05, m: 0.0, policy: vec![1.0 / n as f32; n] }
}

fn search(fen: Option<&str>, moves: &str, nodes: u64, two_fold_draws: bool) -> (SearchOutcome, Score) {
    let params = SearchParams { threads: 1, minibatch_size: 1, two_fold_draws, ..lc0_defaults() };
    let mut search = Search::new(Arc::new(FnBackend::new(1, white_better)), params);
    let moves: Vec<&str> = moves.split_whitespace().collect();
    search.set_position(&GameState::from_uci(fen, &moves).unwrap());
    let scores = Arc::new(Mutex::new(Vec::new()));
    let sink_scores = Arc::clone(&scores);
    let request = request_for_visits(nodes);
    let outcome = search
        .start(
            request,
            Box::new(move |event| {
                if let SearchEvent::Info(line) = event {
                    sink_scores.lock().unwrap().push(line.score);
                }
            }),
        )
        .wait()
        .unwrap();
    let score = *scores.lock().unwrap().last().unwrap();
    (outcome, score)
}

fn best(outcome: &SearchOutcome) -> String {
    outcome.best.unwrap().to_uci(CastlingMode::Standard).to_string()
}

/// Black to move checks forever: Qe1+ Kh2 Qh4+ Kg1 repeats the root after four plies; white's replies are
/// forced, and white's queen-side pawns keep the position free of stalemate traps.
const PERPETUAL: &str = "k7/8/8/8/7q/8/PPP3P1/6K1 b - - 0 1";

#[test]
fn capturing_into_insufficient_material_is_a_draw() {
    // The pawn on d7 checks; Kxd7 leaves king and knight against king.
    let (outcome, score) = search(Some("3nk3/3P4/8/8/8/8/8/4K3 b - - 0 1"), "", 200, true);
    assert_eq!(best(&outcome), "e8d7");
    assert_eq!(score, Score::Cp(0));
}

#[test]
fn the_hundredth_quiet_ply_is_a_draw() {
    let (outcome, score) = search(Some("4k3/4p3/8/8/8/8/8/4K3 b - - 99 80"), "", 200, true);
    assert!(best(&outcome).starts_with("e8"), "a king move reaches the fifty-move draw, got {}", best(&outcome));
    assert_eq!(score, Score::Cp(0));
    // Two plies earlier nothing is drawn within reach of a small search, so every move looks lost.
    let (_, score) = search(Some("4k3/4p3/8/8/8/8/8/4K3 b - - 97 80"), "", 30, true);
    assert!(matches!(score, Score::Cp(cp) if cp < -100), "{score:?}");
}

#[test]
fn a_third_occurrence_is_a_draw() {
    let (outcome, score) = search(None, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1", 200, true);
    assert_eq!(best(&outcome), "f6g8");
    assert_eq!(score, Score::Cp(0));
}

#[test]
fn a_second_occurrence_inside_the_searched_path_is_a_draw_only_with_two_fold_draws() {
    let (with_outcome, with) = search(Some(PERPETUAL), "", 5000, true);
    let (_, without) = search(Some(PERPETUAL), "", 5000, false);
    assert_eq!(best(&with_outcome), "h4e1");
    let (Score::Cp(with), Score::Cp(without)) = (with, without) else { panic!("no mate expected") };
    assert!(with > without + 50, "the perpetual should be a proven draw with two-fold draws: {with} vs {without}");
    assert!(with.abs() < 50, "{with}");
}

#[test]
fn a_repetition_of_a_position_before_the_root_is_not_a_two_fold_draw() {
    // The root repeats the FEN position; Qe1+ one ply into the search repeats a position from before the
    // root, which is not inside the searched path, so it is no draw and every move still looks lost.
    let (_, score) = search(Some(PERPETUAL), "h4e1 g1h2 e1h4 h2g1", 30, true);
    assert!(matches!(score, Score::Cp(cp) if cp < -100), "{score:?}");
}
