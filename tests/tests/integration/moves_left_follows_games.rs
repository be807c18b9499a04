//! `mle-legacy(follow-games=N)` (#34 item 1): the moves-left law's midpoint follows the lengths of the games the
//! engine finished, counted at each `ucinewgame` from the last position it searched, with the configured midpoint
//! weighing as N games. The remaining moves in the manager's trace are checked against hand-worked values.

use std::path::Path;
use std::time::Duration;

use kairos_tests::UciSession;
use serde_json::Value;

/// Plays three one-move "games" (white to move at full move 30, at full move 60, then the start position) with
/// the manager `spec`, and returns the remaining moves the manager traced for each.
fn remaining_moves_of_three_games(spec: &str, trace: &Path) -> Vec<f64> {
    let _ = std::fs::remove_file(trace);
    let trace_flag = format!("--tm-trace-file={}", trace.display());
    let manager = format!("--time-manager={spec}");
    let mut engine = UciSession::start(&["--backend=uniform", "--threads=1", &manager, &trace_flag]);
    for position in [
        "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 30",
        "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 60",
        "startpos",
    ] {
        engine.send("ucinewgame");
        engine.send(&format!("position {position}"));
        engine.send("go wtime 2000 btime 2000");
        engine.read_until("bestmove", Duration::from_secs(30));
    }
    drop(engine);
    let text = std::fs::read_to_string(trace).expect("trace file written");
    let _ = std::fs::remove_file(trace);
    text.lines()
        .map(|line| {
            let move_trace: Value = serde_json::from_str(line).expect("JSON");
            move_trace["steps"]
                .as_array()
                .expect("steps")
                .iter()
                .find(|s| s["name"] == "remaining_moves")
                .and_then(|s| s["value"].as_f64())
                .expect("remaining_moves")
        })
        .collect()
}

/// lc0's law `a·(1 + 2·(m/a)^7)^(1/7) − m` at full moves `m` played.
fn mle_legacy(a: f64, m: f64) -> f64 {
    a * (1.0 + 2.0 * (m / a).powf(7.0)).powf(1.0 / 7.0) - m
}

#[test]
fn the_midpoint_follows_the_games_played_as_their_geometric_mean_beside_the_prior() {
    let trace = std::env::temp_dir().join(format!("kairos-follow-games-{}.jsonl", std::process::id()));
    let got = remaining_moves_of_three_games("smooth(mle-legacy(midpoint=50,follow-games=2))", &trace);
    // Game 1 (ply 58) knows no game: midpoint 50. It lasted 60 plies (its move and the reply): 30 moves.
    // Game 2 (ply 118): (50²·30)^(1/3) = 42.1716. It lasted 120 plies: 60 moves.
    // Game 3 (ply 0): (50²·30·60)^(1/4) = 46.0578, which is the law's value at the start.
    let expected = [mle_legacy(50.0, 29.0), mle_legacy(42.171_633, 59.0), 46.057_794];
    assert_eq!(got.len(), 3, "one traced move a game: {got:?}");
    for (game, (got, expected)) in got.iter().zip(expected).enumerate() {
        assert!((got - expected).abs() < 2e-3, "game {}: {got} remaining moves, hand-worked {expected}", game + 1);
    }
}

#[test]
fn without_follow_games_the_midpoint_stays_where_it_was_set() {
    let trace = std::env::temp_dir().join(format!("kairos-fixed-midpoint-{}.jsonl", std::process::id()));
    let got = remaining_moves_of_three_games("smooth(mle-legacy(midpoint=50))", &trace);
    let expected = [mle_legacy(50.0, 29.0), mle_legacy(50.0, 59.0), 50.0];
    for (game, (got, expected)) in got.iter().zip(expected).enumerate() {
        assert!((got - expected).abs() < 2e-3, "game {}: {got} remaining moves, hand-worked {expected}", game + 1);
    }
}
