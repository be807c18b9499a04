//! `kairos tune` with Kairos itself as the engine: a tiny SPSA run under the virtual clock replays exactly
//! and emits an option string the time-manager parser accepts.

use std::path::Path;
use std::time::Duration;

use kairos_tests::{run_kairos, workspace_root};
use serde_json::Value;

fn tune(dir: &Path, log: &str) -> (String, Vec<Value>) {
    let openings = workspace_root().join("tests/data/four-openings.epd");
    let args = [
        "tune",
        "--time-manager", "smooth(preset=lc0)",
        "--param", "max-move-budget=0.42:0.1:0.8",
        "--param", "init-tree-reuse=0.52:0.2:0.8",
        "--against", "legacy",
        "--tc", "10+0.1",
        "--games-per-iteration", "2",
        "--iterations", "3",
        "--virtual-clock",
        "--seed", "5",
        "--max-plies", "40",
        "--engine-option", "Backend=uniform",
        "--engine-option", "Threads=1",
        "--engine-option", "VirtualNps=20000",
        "--openings", openings.to_str().unwrap(),
        "--log", log,
    ];
    let output = run_kairos(&args, dir, Duration::from_secs(600));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let result = std::fs::read_to_string(dir.join(format!("{log}.result.txt"))).expect("result file");
    let lines = std::fs::read_to_string(dir.join(log)).expect("log");
    (result.trim().to_string(), lines.lines().map(|line| serde_json::from_str(line).unwrap()).collect())
}

#[test]
fn a_tiny_virtual_clock_tuning_run_replays_exactly_and_emits_a_valid_string() {
    let dir = std::env::temp_dir().join(format!("kairos-tune-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (first_result, first_log) = tune(&dir, "first.jsonl");
    let (second_result, second_log) = tune(&dir, "second.jsonl");
    assert_eq!(first_log, second_log, "same seed, same run");
    assert_eq!(first_result, second_result);
    assert_eq!(first_log.iter().filter(|line| line["kind"] == "iteration").count(), 3);
    let option_string = first_result.strip_prefix("--time-manager=").unwrap_or(&first_result);
    let parsed = timemgr::TimeManagerConfig::parse(option_string).expect("the tuner's result parses");
    assert!(option_string.starts_with("smooth("), "{option_string}");
    assert_eq!(
        parsed.to_string() == "smooth(preset=lc0)",
        first_log.iter().filter(|line| line["kind"] == "iteration").all(|line| line["score_difference"] == 0.0),
        "the result moves from the start exactly when some iteration's games were not even: {option_string}"
    );
    // Each step moves every parameter towards the side that scored better, and not at all on even scores.
    let mut previous = serde_json::json!({"init-tree-reuse": 0.52, "max-move-budget": 0.42});
    for line in first_log.iter().filter(|line| line["kind"] == "iteration") {
        let difference = line["score_difference"].as_f64().unwrap();
        for name in ["init-tree-reuse", "max-move-budget"] {
            let (before, after) = (previous[name].as_f64().unwrap(), line["parameters"][name].as_f64().unwrap());
            let towards_plus = line["plus"][name].as_f64().unwrap() - before;
            if difference == 0.0 {
                assert_eq!(after, before, "{line}");
            } else {
                assert!((after - before) * towards_plus * difference > 0.0, "{line}");
            }
        }
        previous = line["parameters"].clone();
    }
    assert!(dir.join("first.jsonl.trajectory.svg").is_file(), "trajectory plot written");
    let _ = std::fs::remove_dir_all(&dir);
}
