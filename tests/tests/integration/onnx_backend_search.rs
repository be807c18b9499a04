//! `Backend=onnx` end to end: Kairos searching Maia-1900 through ONNX Runtime's CPU provider (the library scripts/setup
//! installs into .onnxruntime/) plays lc0's own best move on the positions of lc0's sequential 400-visit searches
//! (reference/lc0-sequential-search-400.json, lc0 909a4082's blas backend), searched as lc0 was; and without the
//! library the engine says where it looked and how to install it, and keeps serving.

use std::time::Duration;

use kairos_tests::{default_weights, reference_text, UciSession};
use serde_json::Value;

#[test]
fn a_sequential_400_node_search_through_onnx_runtime_plays_lc0s_best_move() {
    let reference: Value = serde_json::from_str(&reference_text("lc0-sequential-search-400.json")).expect("JSON");
    let weights = format!("--weights={}", default_weights().display());
    let mut engine = UciSession::start(&[
        &weights, "--backend=onnx", "--backend-device=cpu", "--precision=fp32", "--threads=1", "--minibatch-size=1",
        "--max-prefetch=0", "--out-of-order-eval=false", "--smart-pruning-factor=0",
    ]);
    engine.send("isready");
    let start = engine.read_until("readyok", Duration::from_secs(120));
    let backend = start.iter().find(|line| line.starts_with("info string Backend: ")).expect("the backend line");
    assert!(backend.contains("onnx, CPU provider"), "{start:?}");
    let positions = reference["positions"].as_object().expect("positions");
    assert_eq!(positions.len(), 5);
    for (name, case) in positions {
        let moves: Vec<&str> = case["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        let fen = case["fen"].as_str().unwrap();
        match moves.as_slice() {
            [] => engine.send(&format!("position fen {fen}")),
            moves => engine.send(&format!("position fen {fen} moves {}", moves.join(" "))),
        }
        engine.send("go nodes 400");
        let lines = engine.read_until("bestmove", Duration::from_secs(120));
        let bestmove = lines.last().expect("a bestmove line");
        let ours = bestmove.split_whitespace().nth(1).expect("a move");
        assert_eq!(ours, case["bestmove"].as_str().unwrap(), "{name}: {lines:?}");
    }
}

#[test]
fn without_the_library_the_engine_names_the_places_tried_and_the_way_out_and_keeps_serving() {
    let missing = "/nonexistent/libonnxruntime.so";
    let weights = format!("--weights={}", default_weights().display());
    let mut engine = UciSession::start_with_env(
        &[&weights, "--backend=onnx", "--backend-device=cpu"],
        &[("ORT_DYLIB_PATH", missing)],
    );
    engine.send("isready");
    let lines = engine.read_until("readyok", Duration::from_secs(60));
    let error = lines.iter().find(|line| line.starts_with("info string error")).expect("an error line");
    for expected in [&format!("ORT_DYLIB_PATH={missing} (no such file)"), "pip install onnxruntime", "onnxruntime-gpu"]
    {
        assert!(error.contains(expected), "{expected} missing from: {error}");
    }
    engine.send("setoption name Backend value uniform");
    engine.send("position startpos");
    engine.send("go nodes 10");
    let lines = engine.read_until("bestmove", Duration::from_secs(60));
    assert!(lines.last().is_some_and(|line| line.split_whitespace().nth(1).is_some()), "{lines:?}");
}
