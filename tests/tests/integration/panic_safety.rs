//! A panic never costs a game (#35): with a fault injected into the binary (`KAIROS_INJECT_FAULT`, see
//! engine/src/fault.rs) at each place a search can break, every `go` is still answered with the error and a
//! legal `bestmove`, the engine keeps serving, and whole games through `kairos match` end normally.

use std::time::Duration;

use kairos_tests::{run_kairos_with_env, workspace_root, UciSession};
use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

const WAIT: Duration = Duration::from_secs(60);

/// The move of a `bestmove` line, checked to be legal in `position`.
fn legal_best_move(position: &Chess, line: &str) -> shakmaty::Move {
    let text = line.split_whitespace().nth(1).unwrap_or_else(|| panic!("no move in {line:?}"));
    let uci: UciMove = text.parse().unwrap_or_else(|_| panic!("{text} is no UCI move"));
    uci.to_move(position).unwrap_or_else(|_| panic!("{text} is not legal here"))
}

#[test]
fn every_go_is_answered_with_a_legal_move_whatever_panics() {
    for fault in ["go", "search:3", "bestmove", "end-of-move"] {
        // The virtual clock keeps the timed go's node target clear of the nps the panicked first move taught
        // the time manager: on the wall a busy machine had planned 8 nodes, two iterations, before `search:3`.
        let flags = ["--backend=uniform", "--threads=1", "--virtual-clock", "--virtual-nps=20000"];
        let mut engine = UciSession::start_with_env(&flags, &[("KAIROS_INJECT_FAULT", fault)]);
        engine.send("uci");
        engine.read_until("uciok", WAIT);
        let mut position = Chess::default();
        let mut moves: Vec<String> = Vec::new();
        for go in ["go nodes 200", "go wtime 2000 btime 2000 winc 20 binc 20"] {
            let mut position_line = "position startpos".to_owned();
            if !moves.is_empty() {
                position_line += &format!(" moves {}", moves.join(" "));
            }
            engine.send(&position_line);
            engine.send(go);
            let answer = engine.read_until("bestmove", WAIT);
            // The end of the move runs after `bestmove`, on the search's thread: its error follows it.
            let is_error = |line: &String| line.starts_with("info string error") && line.contains("injected fault");
            let error = match answer.iter().find(|line| is_error(line)) {
                Some(line) => line.clone(),
                None => engine.read_until("info string error", WAIT).pop().unwrap(),
            };
            assert!(is_error(&error), "{fault}, {go}: {answer:?} {error}");
            engine.send("isready");
            engine.read_until("readyok", WAIT);
            let best = legal_best_move(&position, answer.last().unwrap());
            moves.push(best.to_uci(shakmaty::CastlingMode::Standard).to_string());
            position.play_unchecked(best);
        }
    }
}

#[test]
fn a_match_whose_engines_panic_every_move_plays_its_games_to_a_normal_end() {
    let dir = std::env::temp_dir().join(format!("kairos-panic-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let openings = workspace_root().join("tests/data/four-openings.epd");
    let args = [
        "match",
        "--engine",
        "name=a",
        "cmd=kairos",
        "option.TimeManager=legacy",
        "--engine",
        "name=b",
        "cmd=kairos",
        "option.TimeManager=smooth",
        "--each",
        "tc=10+0.1",
        "option.Backend=uniform",
        "option.Threads=1",
        "option.VirtualNps=20000",
        "--virtual-clock",
        "--games",
        "2",
        "--max-plies",
        "40",
        "--openings",
        openings.to_str().unwrap(),
        "--results",
        "games.jsonl",
    ];
    let output = run_kairos_with_env(&args, &[("KAIROS_INJECT_FAULT", "search:2")], &dir, Duration::from_secs(300));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let text = std::fs::read_to_string(dir.join("games.jsonl")).expect("results file");
    let games: Vec<Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(games.len(), 2);
    for game in &games {
        let termination = game["termination"].as_str().unwrap();
        assert!(
            !["TimeForfeit", "EngineCrashed", "EngineHung", "IllegalMove", "NoBestMove"].contains(&termination),
            "{termination}: {}",
            game["reason"]
        );
        let moves = game["moves"].as_array().unwrap();
        assert!(moves.len() >= 20, "the game went on: {game}");
        // Every search broke in its second iteration: each move is the fallback after a few visits, where a
        // whole search would have thousands.
        assert!(moves.iter().all(|record| record["nodes"].as_u64().unwrap() < 100), "{game}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
