//! Kairos's UCI output against lc0's own, captured from lc0 (master 909a4082, blas backend) with the same
//! network, flags and positions: the `info` line and every VerboseMoveStats line of `go nodes 1` on the five
//! reference positions (reference/lc0-verbose-stats-nodes1.json). Text must match exactly, except that a
//! number that comes from the network may differ by one unit in its last printed digit (backend float noise,
//! amplified by lc0's 16-bit prior storage), and `time` and `nps` are left out.

use std::time::Duration;

use kairos_tests::{default_weights, reference_text, UciSession};
use serde_json::Value;

/// Both tokens are the same number up to one unit in the last printed digit, printed the same way.
fn same_up_to_last_digit(ours: &str, theirs: &str) -> bool {
    let decimals = |text: &str| text.split_once('.').map_or(0, |(_, fraction)| fraction.len());
    let (Ok(a), Ok(b)) = (ours.parse::<f64>(), theirs.parse::<f64>()) else {
        return false;
    };
    let places = decimals(theirs);
    places == decimals(ours) && (a - b).abs() <= 1.000_001 * 10f64.powi(-(places as i32))
}

/// The line without its `time` and `nps` fields, split into words (runs of spaces kept as empty words, so
/// the column layout is compared too).
fn comparable(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split(' ').collect();
    let is_info = !line.starts_with("info string");
    let mut kept = Vec::new();
    let mut index = 0;
    while index < words.len() {
        if is_info && matches!(words[index], "time" | "nps") {
            index += 2;
            continue;
        }
        kept.push(words[index].to_string());
        index += 1;
    }
    kept
}

fn kairos_lines(fen: &str, moves: &[&str]) -> (Vec<String>, String) {
    let weights = default_weights();
    let flag = format!("--weights={}", weights.display());
    let mut engine = UciSession::start(&[
        &flag,
        "--backend-device=cpu",
        // fp32 as lc0's blas backend, whatever Precision=auto would pick on this CPU.
        "--precision=fp32",
        "--threads=1",
        "--minibatch-size=1",
        "--max-prefetch=0",
        "--out-of-order-eval=false",
        "--smart-pruning-factor=0",
        "--show-wdl",
        "--verbose-move-stats",
    ]);
    let position = if moves.is_empty() {
        format!("position fen {fen}")
    } else {
        format!("position fen {fen} moves {}", moves.join(" "))
    };
    engine.send(&position);
    engine.send("go nodes 1");
    let mut lines = engine.read_until("bestmove", Duration::from_secs(60));
    let bestmove = lines.pop().expect("a bestmove line");
    // Kairos names its backend and precision in an `info string Backend: …` line at start-up, where lc0 writes
    // its backend's name to stderr: that line has no counterpart in lc0's UCI output.
    let compared = |line: &String| line.starts_with("info") && !line.starts_with("info string Backend: ");
    (lines.into_iter().filter(compared).collect(), bestmove)
}

#[test]
fn info_and_verbose_move_stats_match_lc0_at_one_node() {
    let reference: Value = serde_json::from_str(&reference_text("lc0-verbose-stats-nodes1.json")).unwrap();
    let mut last_digit_differences = 0;
    for (name, position) in reference["positions"].as_object().unwrap() {
        let moves: Vec<&str> = position["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        let (ours, bestmove) = kairos_lines(position["fen"].as_str().unwrap(), &moves);
        assert_eq!(bestmove, position["bestmove"].as_str().unwrap(), "{name}");
        let theirs: Vec<&str> = position["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        assert_eq!(ours.len(), theirs.len(), "{name}: {ours:#?}");
        for (our_line, their_line) in ours.iter().zip(&theirs) {
            let (a, b) = (comparable(our_line), comparable(their_line));
            assert_eq!(a.len(), b.len(), "{name}:\n ours  {our_line}\n lc0's {their_line}");
            for (x, y) in a.iter().zip(&b) {
                if x != y {
                    let close = same_up_to_last_digit(x.trim_end_matches(['%', ')']), y.trim_end_matches(['%', ')']));
                    assert!(close, "{name}: '{x}' vs '{y}'\n ours  {our_line}\n lc0's {their_line}");
                    eprintln!("{name}: '{x}' (Kairos) vs '{y}' (lc0) in {}", b[2]);
                    last_digit_differences += 1;
                }
            }
        }
    }
    eprintln!("numbers one unit apart in the last printed digit: {last_digit_differences}");
    assert!(last_digit_differences <= 10, "{last_digit_differences} last-digit differences is more than float noise");
}
