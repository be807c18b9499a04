//! Chess960 as a GUI and a tournament runner play it: `UCI_Chess960` decides how castling is written (as lc0:
//! king takes rook when on, the king's two squares for a standard castling when off), Shredder-FEN and X-FEN
//! positions are read, and `kairos match --variant chess960` plays Chess960 and DFRC games with a PGN that
//! says so.

use std::time::Duration;

use kairos_tests::{run_kairos, workspace_root, UciSession};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

fn bestmove(engine: &mut UciSession, position: &str, searchmove: &str) -> String {
    engine.send(position);
    engine.send(&format!("go nodes 5 searchmoves {searchmove}"));
    let line = engine.read_until("bestmove", LIMIT).pop().unwrap();
    line.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
}

#[test]
fn castling_is_written_as_lc0_writes_it_with_and_without_uci_chess960() {
    let mut engine = UciSession::start(&["--backend=uniform", "--threads=1"]);
    let standard = "position fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    // Rooks on b1 and g1: castling long is the king taking the b-rook.
    let fischer = "position fen 1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1";
    assert_eq!(bestmove(&mut engine, standard, "e1g1"), "bestmove e1g1");
    assert_eq!(bestmove(&mut engine, standard, "e1h1"), "bestmove e1g1", "either notation is read");
    assert_eq!(bestmove(&mut engine, fischer, "e1b1"), "bestmove e1b1", "not a standard castling: king takes rook");
    engine.send("setoption name UCI_Chess960 value true");
    assert_eq!(bestmove(&mut engine, standard, "e1g1"), "bestmove e1h1");
    assert_eq!(bestmove(&mut engine, fischer, "e1b1"), "bestmove e1b1");
    // X-FEN: KQkq names the outermost rooks, here the same b- and g-rooks.
    let x_fen = "position fen 1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq - 0 1";
    assert_eq!(bestmove(&mut engine, x_fen, "e1b1"), "bestmove e1b1");
}

#[test]
fn a_chess960_match_records_its_variant_and_plays_legal_castling() {
    let dir = std::env::temp_dir().join(format!("kairos-chess960-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = workspace_root().join("tests/data/dfrc-200.epd");
    let args = [
        "match",
        "--engine",
        "name=first",
        "cmd=kairos",
        "--engine",
        "name=second",
        "cmd=kairos",
        "--each",
        "tc=10+0.1",
        "option.Backend=uniform",
        "option.Threads=1",
        "option.VirtualNps=5000",
        "--virtual-clock",
        "--variant",
        "chess960",
        "--games",
        "8",
        "--max-plies",
        "80",
        "--openings",
        book.to_str().unwrap(),
        "--results",
        "results.jsonl",
        "--pgn",
        "games.pgn",
    ];
    let output = run_kairos(&args, &dir, Duration::from_secs(300));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let games: Vec<Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(games.len(), 8);
    for game in &games {
        assert_eq!(game["variant"], "chess960");
        assert!(
            !["IllegalMove", "TimeForfeit", "EngineCrashed", "NoBestMove"]
                .contains(&game["termination"].as_str().unwrap()),
            "{}",
            game["reason"]
        );
    }
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Variant \"Chess960\"]").count(), 8, "{pgn}");
    assert_eq!(pgn.matches("[SetUp \"1\"]").count(), 8);
    // The book's first position (HBga), written in X-FEN: KQkq for the outermost rooks.
    assert!(pgn.contains("[FEN \"rbbnknrq/pppppppp/8/8/8/8/PPPPPPPP/QRNBNKBR w KQkq - 0 1\"]"), "{pgn}");

    // A standard match refuses a book with Chess960 castling and says how to play it.
    let refused = run_kairos(
        &args[..args.len() - 2].iter().filter(|a| **a != "--variant" && **a != "chess960").copied().collect::<Vec<_>>(),
        &dir,
        LIMIT,
    );
    assert_ne!(refused.code, Some(0));
    assert!(refused.stderr.contains("--variant chess960"), "{}", refused.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}
