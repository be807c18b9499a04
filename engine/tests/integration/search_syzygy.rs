//! The search with Syzygy tables, as lc0's (src/search/classic/search.cc): the root's moves are narrowed by
//! the DTZ ranking, positions right after a capture or pawn move inside the tables end the search with their
//! table result, and `tbhits` counts both. The test network misjudges on purpose, so only the tables can be right.

use crate::common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use common::{lc0_defaults, request_for_visits, FnBackend};
use engine::position::GameState;
use engine::search::{InfoLine, Score, Search, SearchEvent, SearchOutcome, SearchParams};
use engine::tablebase::Tablebases;
use nn::{EvalRequest, Evaluation};
use shakmaty::CastlingMode;

fn tables() -> Arc<Tablebases> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reference/syzygy");
    Arc::new(Tablebases::load(dir.to_str().unwrap()).tablebases.unwrap())
}

type Judge = fn(&EvalRequest<'_>) -> Evaluation;

/// Uniform priors; WL 0.8 for the side to move where `looks_won`, −0.8 elsewhere.
fn judged(request: &EvalRequest<'_>, looks_won: bool) -> Evaluation {
    let n = request.moves.len();
    Evaluation { wl: if looks_won { 0.8 } else { -0.8 }, d: 0.1, m: 30.0, policy: vec![1.0 / n as f32; n] }
}

fn board(request: &EvalRequest<'_>) -> shakmaty::Board {
    shakmaty::Position::board(&request.history.last().unwrap().position).clone()
}

/// A position without rooks looks won for the side to move: after Qxh8 below, black looks better, which the
/// tables know to be false.
fn rookless_looks_won(request: &EvalRequest<'_>) -> Evaluation {
    judged(request, !board(request).rooks().any())
}

/// A position without knights looks lost for the side to move: Rxh8 below looks good for white, and the
/// tables know it loses.
fn knightless_looks_lost(request: &EvalRequest<'_>) -> Evaluation {
    judged(request, board(request).knights().any())
}

fn search(
    fen: &str,
    nodes: u64,
    tables: Option<Arc<Tablebases>>,
    fast_play: bool,
    judge: Judge,
) -> (SearchOutcome, InfoLine) {
    let params = SearchParams { threads: 1, minibatch_size: 1, syzygy_fast_play: fast_play, ..lc0_defaults() };
    let mut search = Search::new(Arc::new(FnBackend::new(1, judge)), params);
    search.set_tablebases(tables);
    search.set_position(&GameState::from_uci(Some(fen), &[]).unwrap());
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    let request = request_for_visits(nodes);
    let handle = search.start(
        request,
        Box::new(move |event| {
            if let SearchEvent::Info(line) = event {
                sink.lock().unwrap().push(line);
            }
        }),
    );
    let outcome = handle.wait().unwrap();
    let last = lines.lock().unwrap().last().cloned().unwrap();
    (outcome, last)
}

fn best(outcome: &SearchOutcome) -> String {
    best_uci(&outcome.best.unwrap())
}

fn best_uci(mv: &shakmaty::Move) -> String {
    mv.to_uci(CastlingMode::Standard).to_string()
}

#[test]
fn the_root_filter_keeps_the_stalemating_queen_moves_out() {
    let fen = "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1";
    let (outcome, line) = search(fen, 300, Some(tables()), false, rookless_looks_won);
    assert!(!["c1c7", "c1f4"].contains(&best(&outcome).as_str()), "{}", best(&outcome));
    // The root is inside the DTZ tables: one hit for the ranking, no probes below it (lc0's root_is_in_dtz).
    assert_eq!(line.tb_hits, 1);
    // KRvKP: captures and promotions are in the tree, but below a root ranked by DTZ nothing is probed.
    let (outcome, line) = search("8/8/8/8/8/2k5/2p5/K1R5 w - - 0 1", 300, Some(tables()), false, rookless_looks_won);
    assert!(["a1a2", "c1f1", "c1g1", "c1h1"].contains(&best(&outcome).as_str()), "{}", best(&outcome));
    assert_eq!(line.tb_hits, 1);
    // With fast play only the mate is left.
    let (outcome, line) = search(fen, 50, Some(tables()), true, rookless_looks_won);
    assert_eq!(best(&outcome), "c1c8");
    assert_eq!(line.score, Score::Mate(1), "the mate is proven over the board");
}

#[test]
fn positions_after_a_capture_inside_the_tables_end_the_search_with_their_result() {
    // KQNvKR has no table, so the root is not ranked; Qxh8+ reaches KQNvK right after a capture, which the
    // WDL table scores as a win, where the network sees black better: the search plays the capture only
    // because the tables end it there.
    let fen = "1k5r/8/8/8/8/8/8/4K1NQ w - - 0 1";
    let (outcome, line) = search(fen, 400, Some(tables()), false, rookless_looks_won);
    assert!(line.tb_hits > 0, "probes below the root are counted: {line:?}");
    assert_eq!(best(&outcome), "h1h8");
    // lc0 prints a tablebase win as mate round(M)/2 + 101, M being the parent's moves left less one.
    assert!(matches!(line.score, Score::Mate(moves) if moves >= 101), "{:?}", line.score);
    let (outcome, line) = search(fen, 400, None, false, rookless_looks_won);
    assert_eq!(line.tb_hits, 0);
    assert_ne!(best(&outcome), "h1h8", "without tables the network's error stands");
}

#[test]
fn a_capture_into_a_lost_table_position_is_avoided() {
    // KQNvKR: Rxh8+ reaches KRvKQ, a win for black to move by the tables, where the network sees white better.
    let fen = "1k5n/8/8/3q4/8/8/8/4K2R w - - 0 1";
    let (outcome, line) = search(fen, 400, Some(tables()), false, knightless_looks_lost);
    assert!(line.tb_hits > 0, "{line:?}");
    assert_ne!(best(&outcome), "h1h8");
    let (outcome, _) = search(fen, 400, None, false, knightless_looks_lost);
    assert_eq!(best(&outcome), "h1h8", "without tables the network's error stands");
}

#[test]
fn a_capture_into_a_blessed_loss_is_a_tablebase_draw() {
    // Six pieces: Bxd4 reaches KBNvKN with black to move, a loss that the fifty-move rule saves (python-chess:
    // WDL −1, DTZ −109). lc0 scores cursed wins and blessed losses as draws.
    let fen = "8/8/1n6/8/3r4/5K2/8/B4k1N w - - 0 1";
    let game = GameState::from_uci(Some(fen), &[]).unwrap();
    let capture = shakmaty::Position::legal_moves(game.position()).into_iter().find(|mv| best_uci(mv) == "a1d4");
    let search_capture = |tables: Option<Arc<Tablebases>>| {
        let params = SearchParams { threads: 1, minibatch_size: 1, ..lc0_defaults() };
        let mut search = Search::new(Arc::new(FnBackend::new(1, rookless_looks_won)), params);
        search.set_tablebases(tables);
        search.set_position(&game);
        let mut request = request_for_visits(50);
        request.searchmoves = vec![capture.unwrap()];
        let last = Arc::new(Mutex::new(None));
        let sink = Arc::clone(&last);
        let handle = search.start(
            request,
            Box::new(move |event| {
                if let SearchEvent::Info(line) = event {
                    *sink.lock().unwrap() = Some(line);
                }
            }),
        );
        handle.wait().unwrap();
        let line = last.lock().unwrap().clone();
        line.unwrap()
    };
    let line = search_capture(Some(tables()));
    assert_eq!((line.score, line.wdl), (Score::Cp(0), (0, 1000, 0)), "a proven draw: {line:?}");
    assert_eq!(line.tb_hits, 1);
    let line = search_capture(None);
    assert_ne!(line.score, Score::Cp(0), "the network alone sees black better: {line:?}");
}
