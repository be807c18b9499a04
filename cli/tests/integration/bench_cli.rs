//! `kairos bench` and `kairos benchmark` through the real binary, on the network-free backends.

use std::process::{Command, Output};

fn kairos(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos")).args(args).output().expect("kairos runs")
}

fn stdout_lines(output: &Output) -> Vec<String> {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().map(str::to_string).collect()
}

/// The number after `key` in a line of words.
fn number_after(line: &str, key: &str) -> u64 {
    let words: Vec<&str> = line.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
    let at = words.iter().position(|word| *word == key).unwrap_or_else(|| panic!("{key} in {line}"));
    words[at + 1].parse().unwrap_or_else(|_| panic!("number after {key} in {line}"))
}

#[test]
fn bench_is_deterministic_and_ends_with_the_openbench_line() {
    let run = || {
        let lines = stdout_lines(&kairos(&["bench", "--backend=random", "--nodes=120"]));
        assert_eq!(lines[0], "Backend: random (test backend, no network)", "bench names its backend first");
        lines[1..].to_vec()
    };
    let (first, second) = (run(), run());
    assert_eq!(first.len(), 11, "{first:?}");
    let per_position = |lines: &[String]| -> Vec<(String, u64)> {
        lines[..10]
            .iter()
            .map(|line| (line.split_whitespace().nth(3).unwrap().to_string(), number_after(line, "nodes")))
            .collect()
    };
    assert_eq!(per_position(&first), per_position(&second), "same moves and node counts");
    let last: Vec<&str> = first[10].split_whitespace().collect();
    assert_eq!((last.len(), last[1], last[3]), (4, "nodes", "nps"), "{}", first[10]);
    let total: u64 = per_position(&first).iter().map(|(_, nodes)| nodes).sum();
    assert_eq!(last[0].parse::<u64>().unwrap(), total);
    assert!(per_position(&first).iter().all(|(_, nodes)| *nodes >= 120), "every position reaches --nodes");
}

#[test]
fn several_devices_take_batches_in_turn_and_search_the_same_tree() {
    let run = |devices: &str| {
        stdout_lines(&kairos(&["bench", "--backend=random", "--nodes=120", "--backend-device", devices]))
    };
    let (one, two) = (run("cpu"), run("cpu,cpu"));
    assert_eq!(two[0], "Backend: round robin of 2 random test backends (no network)");
    // One search thread and identical backends: the same moves and nodes at every position as with one device.
    let signature = |lines: &[String]| -> Vec<String> {
        lines[1..11].iter().map(|line| line.split(" time ").next().unwrap().to_string()).collect()
    };
    assert_eq!(signature(&one), signature(&two));
    let refused = kairos(&["bench", "--backend=random", "--backend-device", "cpu,gpu"]);
    assert!(!refused.status.success());
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("several separated by commas"), "the error names the way out: {message}");
}

#[test]
fn benchmark_prints_lc0s_per_position_lines_and_totals() {
    let lines =
        stdout_lines(&kairos(&["benchmark", "--backend=uniform", "--threads=1", "--movetime=40", "--num-positions=2"]));
    let positions: Vec<&String> = lines.iter().filter(|line| line.starts_with("Position: ")).collect();
    assert_eq!(positions.len(), 2);
    // lc0's benchmark positions, in lc0's order (src/tools/benchmark.h 42–43).
    assert_eq!(*positions[0], "Position: 1/2 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert!(positions[1].starts_with("Position: 2/2 r3k2r/p1ppqpb1/"), "{}", positions[1]);
    let results: Vec<&String> = lines.iter().filter(|line| line.starts_with("Benchmark time ")).collect();
    let bestmoves: Vec<&String> = lines.iter().filter(|line| line.starts_with("bestmove ")).collect();
    assert_eq!((results.len(), bestmoves.len()), (2, 2));
    let time: u64 = results.iter().map(|line| number_after(line, "time")).sum();
    let nodes: u64 = results.iter().map(|line| number_after(line, "ms")).sum();
    for line in &results {
        // lc0's own words (src/tools/benchmark.cc 153–158): `Benchmark time T ms, N nodes, P nps, move M`.
        let (time, nodes) = (number_after(line, "time"), number_after(line, "ms"));
        let nps = nodes * 1000 / time.max(1);
        let best = line.rsplit(' ').next().unwrap();
        assert_eq!(**line, format!("Benchmark time {time} ms, {nodes} nodes, {nps} nps, move {best}"));
    }
    let tail = &lines[lines.len() - 4..];
    assert_eq!(tail[0], "===========================");
    assert_eq!(tail[1], format!("Total time (ms) : {time}"));
    assert_eq!(tail[2], format!("Nodes searched  : {nodes}"));
    let nps = (1000.0 * nodes as f64 / (time + 1) as f64).round() as u64;
    assert_eq!(tail[3], format!("Nodes/second    : {nps}"));
}

#[test]
fn benchmark_takes_one_fen_and_a_node_limit() {
    let fen = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1";
    let lines = stdout_lines(&kairos(&["benchmark", "--backend=uniform", "--nodes=30", "--movetime=-1", "--fen", fen]));
    assert!(lines.contains(&format!("Position: 1/1 {fen}")), "{lines:?}");
    let result = lines.iter().find(|line| line.starts_with("Benchmark time ")).unwrap();
    assert!(number_after(result, "ms") >= 30, "{result}");
}

#[test]
fn bad_flags_fail_with_a_message_naming_them() {
    for (args, expected) in [
        (vec!["bench", "--nodes=0"], "--nodes=0"),
        (vec!["bench", "--bogus=1"], "--bogus"),
        (vec!["benchmark", "--movetime=soon"], "--movetime=soon"),
        (vec!["bench", "--threads=999"], "Threads"),
    ] {
        let output = kairos(&args);
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn a_misspelt_mode_is_named_with_the_nearest_mode() {
    for (word, expected) in [
        ("bnech", "unknown mode 'bnech'; did you mean 'bench'?; run 'kairos help'"),
        ("tm-halp", "unknown mode 'tm-halp'; did you mean 'tm-help'?; run 'kairos help'"),
        ("nosuch", "unknown mode 'nosuch'; run 'kairos help'"),
    ] {
        let output = kairos(&[word]);
        assert!(!output.status.success(), "{word}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with(&format!("error: {expected}")), "{word}: {stderr}");
    }
}

#[test]
fn an_error_that_quotes_its_cause_prints_it_once() {
    let output = kairos(&["match-report", "/nonexistent/results.jsonl", "--out", "/nonexistent/report"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let expected = "error: results file /nonexistent/results.jsonl: No such file or directory (os error 2)";
    assert_eq!(stderr.trim_end(), expected);
}

/// A search recorded with `RecordFile` and replayed with `Backend=replay` picks the same moves with the same node
/// counts as the recorded backend's own search; a longer replay strays past the recording and says so.
#[test]
fn a_recorded_bench_replays_move_for_move() {
    let path = std::env::temp_dir().join(format!("kairos-bench-record-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let file = path.to_str().unwrap();
    let signature = |lines: &[String]| -> Vec<String> {
        lines[1..11].iter().map(|line| line.split(" time ").next().unwrap().to_string()).collect()
    };
    let plain = stdout_lines(&kairos(&["bench", "--backend=random", "--nodes=300"]));
    let recorded = stdout_lines(&kairos(&["bench", "--backend=random", "--nodes=300", "--record-file", file]));
    assert_eq!(recorded[0], format!("Backend: random (test backend, no network), recorded into {file}"));
    let replay = kairos(&["bench", "--backend=replay", "--nodes=300", "--record-file", file]);
    assert_eq!(String::from_utf8_lossy(&replay.stderr), "", "every position was in the recording");
    let replayed = stdout_lines(&replay);
    assert_eq!(replayed[0], format!("Backend: replay of {file} (no network)"));
    assert_eq!(signature(&recorded), signature(&plain), "recording changes nothing");
    assert_eq!(signature(&replayed), signature(&plain), "the replay searches the recorded trees");
    let longer = kairos(&["bench", "--backend=replay", "--nodes=600", "--record-file", file]);
    assert!(longer.status.success());
    let message = String::from_utf8_lossy(&longer.stderr);
    assert!(
        message.starts_with("warning: replay: ") && message.contains(&format!("positions were not in {file}")),
        "{message}"
    );
    std::fs::remove_file(&path).unwrap();
    let missing = kairos(&["bench", "--backend=replay", "--nodes=300", "--record-file", file]);
    assert!(!missing.status.success());
    let message = String::from_utf8_lossy(&missing.stderr);
    assert!(message.contains(&format!("record file {file}")), "the error names the file: {message}");
}
