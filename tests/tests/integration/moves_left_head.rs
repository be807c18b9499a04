//! A network with a real moves-left head (issue #31 item 6): reference/nets/transformer-pe-map-smolgen.pb.gz,
//! whose outputs lc0 recorded in reference/lc0-test-nets.json. The `mlh` estimator budgets from the head's
//! estimate of the root, and lc0's moves-left utility moves each visited root move's score by the hand-worked
//! amount.

use std::time::Duration;

use kairos_tests::{reference_text, UciSession};
use serde_json::Value;

const NET: &str = "--weights=reference/nets/transformer-pe-map-smolgen.pb.gz";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// lc0's recorded moves-left output for a position of the test net.
fn lc0_moves_left(position: &str) -> f64 {
    let reference: Value = serde_json::from_str(&reference_text("lc0-test-nets.json")).expect("valid JSON");
    reference["nets"]["transformer-pe-map-smolgen"]
        .as_array()
        .expect("positions")
        .iter()
        .find(|p| p["name"] == position)
        .and_then(|p| p["m"].as_f64())
        .expect("a recorded position")
}

#[test]
fn the_mlh_estimator_budgets_from_the_heads_estimate_of_the_root() {
    let path = std::env::temp_dir().join(format!("kairos-mlh-trace-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let trace = format!("--tm-trace-file={}", path.display());
    let mut engine = UciSession::start(&[
        NET, "--precision=fp32", "--backend-device=cpu", "--threads=1", "--time-manager=smooth(mlh(scale=0.5))", &trace,
    ]);
    engine.send(&format!("position fen {KIWIPETE}"));
    engine.send("go wtime 5000 btime 5000");
    engine.read_until("bestmove", Duration::from_secs(60));
    drop(engine);
    let text = std::fs::read_to_string(&path).expect("trace file written");
    let move_trace: Value = serde_json::from_str(text.lines().next().expect("one move")).expect("JSON");
    assert_eq!(move_trace["estimator"], "mlh", "the head's estimate was used, not the fallback: {text}");
    let remaining = move_trace["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["name"] == "remaining_moves")
        .and_then(|s| s["value"].as_f64())
        .expect("remaining_moves");
    // lc0's head says 29.6025 plies left from Kiwipete: 14.80 moves, times the scale 0.5.
    let expected = lc0_moves_left("kiwipete") / 2.0 * 0.5;
    assert!((remaining - expected).abs() < 1e-3, "remaining moves {remaining}, hand-worked {expected}");
    let _ = std::fs::remove_file(&path);
}

/// One `info string` line of VerboseMoveStats: the move (or `node`) and its numbers by label.
struct StatsLine {
    name: String,
    numbers: Vec<(String, f64)>,
}

impl StatsLine {
    fn parse(line: &str) -> Option<Self> {
        let rest = line.strip_prefix("info string ")?;
        let name = rest.split_whitespace().next()?.to_string();
        let mut numbers = Vec::new();
        // Labelled numbers stand inside parentheses, `N:` between them: splitting at both finds every one.
        for word in rest.split(['(', ')']) {
            let mut parts = word.trim().splitn(2, ':');
            if let (Some(label), Some(value)) = (parts.next(), parts.next()) {
                if let Ok(value) = value.trim().trim_end_matches('%').parse::<f64>() {
                    numbers.push((label.trim().to_string(), value));
                }
            }
        }
        // Other info strings (the backend's, say) carry no visit count.
        numbers.iter().any(|(label, _)| label == "N").then_some(Self { name, numbers })
    }

    fn get(&self, label: &str) -> f64 {
        self.numbers
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("{}: no {label} in {:?}", self.name, self.numbers))
    }
}

#[test]
fn the_moves_left_utility_moves_each_visited_moves_score_by_the_hand_worked_amount() {
    // lc0's defaults but for the threshold (0: every |Q| counts), a constant factor of 1 and a stronger slope
    // and cap, so that the utility is far above the printed digits whatever the random net's Q.
    let mut engine = UciSession::start(&[
        NET, "--precision=fp32", "--backend-device=cpu", "--threads=1", "--minibatch-size=1", "--max-prefetch=0",
        "--no-out-of-order-eval", "--smart-pruning-factor=0", "--moves-left-threshold=0",
        "--moves-left-constant-factor=1", "--moves-left-slope=0.01", "--moves-left-max-effect=0.2",
        "--verbose-move-stats",
    ]);
    engine.send(&format!("position fen {KIWIPETE}"));
    engine.send("go nodes 60");
    let lines = engine.read_until("bestmove", Duration::from_secs(60));
    let stats: Vec<StatsLine> = lines.iter().filter_map(|l| StatsLine::parse(l)).collect();
    let root = stats.iter().find(|s| s.name == "node").expect("the root's line");
    let root_m = root.get("M");
    let visited: Vec<&StatsLine> =
        stats.iter().filter(|s| s.name != "node" && s.get("N") > 0.0 && s.get("Q").abs() > 0.002).collect();
    assert!(visited.len() >= 4, "{lines:?}");
    let mut largest_utility: f64 = 0.0;
    for line in visited {
        let (q, u, s, child_m) = (line.get("Q"), line.get("U"), line.get("S"), line.get("M"));
        // lc0: clamp(slope·(M_child − M_parent), ±max effect), signed against Q, times
        // 1 + 1.6521·|Q| − 0.6521·Q² (threshold 0 leaves Q as it is).
        let sign = if q > 0.0 { -1.0 } else { 1.0 };
        let utility = (0.01 * (child_m - root_m)).clamp(-0.2, 0.2) * sign * (1.0 + 1.6521 * q.abs() - 0.6521 * q * q);
        // M is printed to 0.1 (each ±0.05: 1e-3 of utility), Q as lc0 displays it (within 1e-3 of the Q used),
        // U and S to 1e-5.
        let bound = 1e-3 * 1.1 + 1e-3 * 0.2 * 1.7 + 2e-5;
        assert!(
            (s - q - u - utility).abs() <= bound,
            "{}: S − Q − U = {} but the hand-worked utility is {utility} (M {child_m}, root M {root_m}, Q {q})",
            line.name,
            s - q - u
        );
        largest_utility = largest_utility.max(utility.abs());
    }
    assert!(largest_utility > 0.01, "the utility must show: largest {largest_utility}");
}
