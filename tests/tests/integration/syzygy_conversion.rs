//! Kairos converts the basic table wins against Stockfish, both with the same tables: KQvK, KRvK and KBNvK
//! from start squares drawn at random (tests/data/syzygy-conversions.epd, white to move and winning by the
//! tables, seed 32 of the python-chess sampler described there). Each opening is played twice with colours
//! swapped, so Stockfish also shows that the positions are wins; not one game may be drawn.

use std::time::Duration;

use kairos_tests::{run_kairos, stockfish_binary, workspace_root};
use serde_json::Value;

#[test]
fn kqk_krk_and_kbnk_are_won_against_stockfish_without_a_draw() {
    let dir = std::env::temp_dir().join(format!("kairos-syzygy-conversion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let openings = workspace_root().join("tests/data/syzygy-conversions.epd");
    let tables = workspace_root().join("reference/syzygy");
    let syzygy = format!("option.SyzygyPath={}", tables.display());
    let stockfish = format!("cmd={}", stockfish_binary());
    let args = [
        "match",
        "--engine",
        "name=kairos",
        "cmd=kairos",
        "option.Threads=1",
        "--engine",
        "name=stockfish",
        &stockfish,
        "option.Threads=1",
        "option.Hash=16",
        "--each",
        "tc=4+0.04",
        &syzygy,
        "--games",
        "12",
        "--openings",
        openings.to_str().unwrap(),
        "--results",
        "results.jsonl",
    ];
    let output = run_kairos(&args, &dir, Duration::from_secs(600));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let games: Vec<Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(games.len(), 12);
    for game in &games {
        assert_eq!(game["result"], "WhiteWins", "the side with the material wins every game: {}", game["reason"]);
    }
    let kairos_wins = games.iter().filter(|g| g["white"] == "kairos").count();
    assert_eq!(kairos_wins, 6, "Kairos had the winning side in six games and won them all");
    let _ = std::fs::remove_dir_all(&dir);
}
