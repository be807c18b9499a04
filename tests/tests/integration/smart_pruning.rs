//! Smart pruning through the UCI binary with the real network: on a lopsided position (a free queen) the
//! search stops long before its node limit, because the runner-up can no longer catch the best move.

use std::time::Duration;

use kairos_tests::{default_weights, UciSession};

const FREE_QUEEN: &str = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3";
const NODE_LIMIT: u64 = 3000;

/// Searches the position with `go nodes` under the virtual clock (so the 200 ms grace period of smart pruning
/// is deterministic) and returns the best move and the final node count.
fn search(smart_pruning_factor: &str) -> (String, u64) {
    let weights = default_weights();
    let mut session = UciSession::start(&["--weights", weights.to_str().unwrap()]);
    for line in [
        "setoption name VirtualClock value true".to_string(),
        "setoption name Threads value 1".to_string(),
        format!("setoption name SmartPruningFactor value {smart_pruning_factor}"),
        format!("position fen {FREE_QUEEN}"),
        format!("go nodes {NODE_LIMIT}"),
    ] {
        session.send(&line);
    }
    let lines = session.read_until("bestmove", Duration::from_secs(120));
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    let info = lines.iter().rev().find(|line| line.starts_with("info depth")).expect("a final info");
    let words: Vec<&str> = info.split_whitespace().collect();
    let nodes = words.iter().position(|w| *w == "nodes").map(|i| words[i + 1].parse().unwrap()).unwrap();
    (best, nodes)
}

#[test]
fn smart_pruning_stops_early_on_a_lopsided_position() {
    let (pruned_best, pruned_nodes) = search("1.33");
    let (full_best, full_nodes) = search("0");
    assert_eq!(pruned_best, "f3h4", "the knight takes the queen");
    assert_eq!(full_best, "f3h4");
    assert!(full_nodes >= NODE_LIMIT, "without smart pruning the node limit is reached: {full_nodes}");
    assert!(
        pruned_nodes < NODE_LIMIT * 2 / 3,
        "with smart pruning the search stops once the runner-up cannot catch up: {pruned_nodes} of {NODE_LIMIT}"
    );
}
