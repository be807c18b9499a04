//! `kairos tune` with Kairos itself as the engine: a tiny SPSA run under the virtual clock replays exactly,
//! emits an option string the time-manager parser accepts, and moves θ towards the side that scored better.
//!
//! The games are decisive by design: the openings are five Win At Chess positions where the side to move mates
//! (WAC.001, 004, 008, 009, 010), the network is the uniform test backend (value 0 everywhere, so only proven
//! mates decide), and the tuned key is `init-nps` of `smooth(limit=nodes)`, which sets the first moves' node
//! targets: the side with more nodes proves the mate that the other misses. The manager's string is pinned
//! (`learn-node-use=true`, bare's default until 2026-11-28), so that a change of a manager default does not
//! change these twelve games.

use std::path::Path;
use std::time::Duration;

use kairos_tests::{run_kairos, workspace_root};
use serde_json::Value;

/// The tuned manager; its keys beside `limit=nodes` keep this fixture's games as they were written for.
const MANAGER: &str = "smooth(limit=nodes,learn-node-use=true)";

fn tune(dir: &Path, log: &str) -> (String, Vec<Value>, String) {
    let openings = workspace_root().join("tests/data/mating-openings.epd");
    let args = [
        "tune",
        "--time-manager",
        MANAGER,
        "--param",
        "init-nps=2000:100:20000",
        "--param",
        "init-tree-reuse=0.5:0.2:0.8",
        "--against",
        "legacy",
        "--tc",
        "10+0.1",
        // Four games an iteration: with two, a single game decided an iteration's direction, and two unrelated
        // changes to the search (EXPERIMENTS.md, #34 item 1) flipped the run's end below its start.
        "--games-per-iteration",
        "4",
        "--iterations",
        "3",
        "--virtual-clock",
        "--seed",
        "5",
        "--max-plies",
        "40",
        "--engine-option",
        "Backend=uniform",
        "--engine-option",
        "Threads=1",
        "--engine-option",
        "VirtualNps=20000",
        "--openings",
        openings.to_str().unwrap(),
        "--log",
        log,
    ];
    let output = run_kairos(&args, dir, Duration::from_secs(600));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let result = std::fs::read_to_string(dir.join(format!("{log}.result.txt"))).expect("result file");
    let lines = std::fs::read_to_string(dir.join(log)).expect("log");
    let lines = lines.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    (result.trim().to_string(), lines, output.stderr)
}

#[test]
fn a_tiny_virtual_clock_tuning_run_replays_exactly_and_emits_a_valid_string() {
    let dir = std::env::temp_dir().join(format!("kairos-tune-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (first_result, first_log, first_stderr) = tune(&dir, "first.jsonl");
    let (second_result, second_log, _) = tune(&dir, "second.jsonl");
    assert_eq!(first_log, second_log, "same seed, same run");
    assert_eq!(first_result, second_result);
    assert_eq!(first_log.iter().filter(|line| line["kind"] == "iteration").count(), 3);
    let option_string = first_result.strip_prefix("--time-manager=").unwrap_or(&first_result);
    let parsed = timemgr::TimeManagerConfig::parse(option_string).expect("the tuner's result parses");
    let start = timemgr::TimeManagerConfig::parse(MANAGER).unwrap().to_string();
    assert!(option_string.starts_with("smooth(") && option_string.contains(",limit=nodes"), "{option_string}");
    assert_ne!(parsed.to_string(), start, "a decisive iteration moved θ: {option_string}");
    // More nodes prove more mates, so the tuner must end with a larger init-nps than it started from.
    let tuned: timemgr::options::registry::SmoothParams = parsed.manager.keys().expect("smooth's keys");
    assert!(tuned.learn_node_use, "the keys not tuned are kept: {option_string}");
    assert!(tuned.init_nps > 2000.0, "init-nps went down to {}: {option_string}", tuned.init_nps);
    let iterations: Vec<&Value> = first_log.iter().filter(|line| line["kind"] == "iteration").collect();
    assert!(
        iterations.iter().any(|line| line["score_difference"] != 0.0),
        "the mating openings decide some iteration, so the direction check below runs: {iterations:?}"
    );
    // Each step moves every parameter towards the side that scored better, and not at all on even scores.
    let mut previous = serde_json::json!({"init-nps": 2000.0, "init-tree-reuse": 0.5});
    for line in iterations {
        let difference = line["score_difference"].as_f64().unwrap();
        for name in ["init-nps", "init-tree-reuse"] {
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
    // stderr is a pipe here, so each iteration has its line, with the log's score difference.
    let finished: Vec<&str> = first_stderr.lines().filter(|line| line.starts_with("Finished iteration ")).collect();
    assert_eq!(finished.len(), 3, "{first_stderr}");
    let logged = first_log.iter().filter(|line| line["kind"] == "iteration");
    for (number, (printed, line)) in finished.iter().zip(logged).enumerate() {
        let difference = line["score_difference"].as_f64().unwrap();
        let expected = format!("Finished iteration {} of 3: y+ - y- {difference:+.3}  init-nps=", number + 1);
        assert!(printed.starts_with(&expected), "{printed}\nexpected {expected}");
    }
    assert!(dir.join("first.jsonl.trajectory.svg").is_file(), "trajectory plot written");
    let _ = std::fs::remove_dir_all(&dir);
}
