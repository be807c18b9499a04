//! Kairos against Kairos through `kairos match` under the virtual clock: the match replays exactly.

use std::path::Path;
use std::time::Duration;

use kairos_tests::{run_kairos, workspace_root};
use serde_json::Value;

fn play_match(dir: &Path, results: &str) -> Vec<Value> {
    let openings = workspace_root().join("tests/data/four-openings.epd");
    let args = [
        "match",
        "--engine", "name=smooth", "cmd=kairos", "option.TimeManager=smooth(preset=lc0)",
        "--engine", "name=legacy", "cmd=kairos", "option.TimeManager=legacy",
        "--each", "tc=10+0.1", "option.Backend=uniform", "option.Threads=1", "option.VirtualNps=20000",
        "--virtual-clock",
        "--games", "4",
        "--max-plies", "60",
        "--openings", openings.to_str().unwrap(),
        "--results", results,
    ];
    let output = run_kairos(&args, dir, Duration::from_secs(300));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let text = std::fs::read_to_string(dir.join(results)).expect("results file");
    text.lines().map(|line| serde_json::from_str(line).expect("one JSON object per game")).collect()
}

#[test]
fn a_virtual_clock_match_between_two_time_managers_replays_exactly() {
    let dir = std::env::temp_dir().join(format!("kairos-match-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let first = play_match(&dir, "first.jsonl");
    let second = play_match(&dir, "second.jsonl");
    assert_eq!(first.len(), 4, "four games");
    assert_eq!(first, second, "the same match under the virtual clock gives the same records");
    for game in &first {
        assert_ne!(game["termination"], "TimeForfeit", "no side loses on time: {}", game["reason"]);
        let moves = game["moves"].as_array().unwrap();
        assert!(!moves.is_empty());
        for record in moves {
            assert!(record["clock_left_ms"].as_i64().unwrap() >= 0, "{record}");
            assert!(record["nodes"].as_u64().unwrap() > 0, "every move searched: {record}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
