//! `kairos tm-proxy` in front of Debian's Stockfish (and a scripted engine that dies): what the wrapped
//! engine receives, what the GUI sees, and a short match against Stockfish with its own time management.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use kairos_tests::{kairos_binary, run_kairos, stockfish_binary, workspace_root, UciSession};
use serde_json::Value;

const ANSWER: Duration = Duration::from_secs(30);

/// A scratch directory of the test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-tm-proxy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// `kairos tm-proxy ARGS -- sh -c '…'`: Stockfish behind `tee`, which copies what the proxy sends it to `log`.
fn proxied_stockfish(proxy_args: &[&str], log: &Path) -> UciSession {
    let script = format!("tee -a \"$0\" | {}", stockfish_binary());
    let log = log.to_str().expect("UTF-8 path");
    let mut args = vec!["tm-proxy"];
    args.extend_from_slice(proxy_args);
    args.extend_from_slice(&["--", "/bin/sh", "-c", script.as_str(), log]);
    UciSession::start(&args)
}

fn lines_sent_to_the_engine(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log).expect("the engine's input log").lines().map(str::to_owned).collect()
}

#[test]
fn stockfish_searches_the_time_the_manager_plans_and_never_sees_the_clock() {
    let dir = scratch("movetime");
    let log = dir.join("stockfish-input.log");
    let mut proxy = proxied_stockfish(&["--time-manager=simple", "--move-overhead=200"], &log);
    proxy.send("uci");
    let handshake = proxy.read_until("uciok", ANSWER);
    assert!(handshake.contains(&"option name TimeManager type string default simple".to_owned()), "{handshake:?}");
    assert!(
        handshake.iter().any(|line| line.starts_with("option name Hash type spin")),
        "Stockfish's options: {handshake:?}"
    );
    assert!(handshake.iter().any(|line| line.starts_with("id name Stockfish")), "{handshake:?}");
    proxy.send("setoption name Threads value 1");
    proxy.send("isready");
    proxy.read_until("readyok", ANSWER);
    proxy.send("position startpos");
    proxy.send("go wtime 10000 btime 10000 winc 100 binc 100");
    let search = proxy.read_until("bestmove", ANSWER);
    assert!(search.iter().any(|line| line.starts_with("info depth") && line.contains(" nodes ")), "{search:?}");
    // The manager learns from the move and shows its trace.
    let trace = proxy.read_until("info string tm simple", ANSWER);
    assert!(trace.last().is_some_and(|line| line.contains("ply 0 clock 10000+100")), "{trace:?}");

    // legacy's first move, as `kairos tm-plan` plans it for the same clock and overhead.
    let plan = run_kairos(
        &["tm-plan", "--time-manager=legacy", "--tc", "10+0.1", "--plies", "2", "--move-overhead", "200", "--json"],
        &dir,
        ANSWER,
    );
    assert_eq!(plan.code, Some(0), "{}", plan.stderr);
    let first: Value = serde_json::from_str(plan.stdout.lines().next().expect("a planned move")).expect("JSON");
    let legacy_ms = first["allocated_ms"].as_i64().expect("allocated_ms");
    proxy.send("setoption name TimeManager value legacy");
    proxy.send("ucinewgame");
    proxy.send("position startpos");
    proxy.send("go wtime 10000 btime 10000 winc 100 binc 100");
    proxy.read_until("bestmove", ANSWER);
    proxy.send("isready");
    proxy.read_until("readyok", ANSWER);

    let sent = lines_sent_to_the_engine(&log);
    let gos: Vec<String> = sent.iter().filter(|line| line.starts_with("go")).cloned().collect();
    // simple at ply 0 (timemgr/src/managers/simple.rs, default keys base-pct 1.4, ply-pct 0.049, time-factor
    // 1.5): (10000 − 200) ms × (1.4 % + 1.5 × 100/10000) = 9800 × 0.029 = 284.2, truncated to 284 ms.
    assert_eq!(gos, vec!["go movetime 284".to_owned(), format!("go movetime {legacy_ms}")], "{sent:?}");
    assert!(sent.contains(&"setoption name Threads value 1".to_owned()), "{sent:?}");
    assert!(!sent.iter().any(|line| line.contains("TimeManager")), "the proxy's own option stays with it: {sent:?}");
    drop(proxy);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_limit_as_clock_stockfish_gets_a_clock_scaled_by_the_share_it_spends() {
    let dir = scratch("clock");
    let log = dir.join("stockfish-input.log");
    let mut proxy = proxied_stockfish(&["--time-manager=simple", "--move-overhead=200", "--limit-as=clock"], &log);
    proxy.send("uci");
    let handshake = proxy.read_until("uciok", ANSWER);
    assert!(
        handshake.contains(&"option name LimitAs type combo default clock var movetime var clock".to_owned()),
        "{handshake:?}"
    );
    proxy.send("setoption name Threads value 1");
    let mut used_ms = Vec::new();
    for _ in 0..2 {
        proxy.send("ucinewgame");
        proxy.send("position startpos");
        proxy.send("go wtime 10000 btime 10000 winc 100 binc 100");
        proxy.read_until("bestmove", ANSWER);
        let trace = proxy.read_until("info string tm simple", ANSWER);
        let line = trace.last().expect("the manager's trace");
        let used = line.split(" used ").nth(1).and_then(|rest| rest.split_whitespace().next()).expect("used ms");
        used_ms.push(used.parse::<f64>().expect("a number"));
    }
    proxy.send("setoption name LimitAs value movetime");
    proxy.send("ucinewgame");
    proxy.send("position startpos");
    proxy.send("go wtime 10000 btime 10000 winc 100 binc 100");
    proxy.read_until("bestmove", ANSWER);
    proxy.send("setoption name LimitAs value sometimes");
    let error = proxy.read_until("info string error", ANSWER);
    assert!(error.last().is_some_and(|line| line.contains("LimitAs 'sometimes'")), "{error:?}");
    proxy.send("isready");
    proxy.read_until("readyok", ANSWER);

    let sent = lines_sent_to_the_engine(&log);
    let gos: Vec<String> = sent.iter().filter(|line| line.starts_with("go")).cloned().collect();
    // simple plans 284 ms for this clock (the test above). The first clock assumes Stockfish spends 3 % of it:
    // 284 / 0.03 = 9466.7, so white gets 9467 ms, black keeps 10000 and nobody has an increment. The second
    // divides by the share that move showed: u ms of 9467.
    let share = used_ms[0] / 9467.0;
    let second = (284.0 / share).round();
    assert_eq!(
        gos,
        vec![
            "go wtime 9467 btime 10000".to_owned(),
            format!("go wtime {second} btime 10000"),
            "go movetime 284".to_owned()
        ],
        "used {used_ms:?}: {sent:?}"
    );
    assert!(!sent.iter().any(|line| line.contains("LimitAs")), "the proxy's own option stays with it: {sent:?}");
    drop(proxy);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn on_a_scaled_clock_an_engine_that_never_stops_is_stopped_at_three_plans() {
    // A scripted engine that searches until it is told to stop.
    let script = "while read -r line; do case \"$line\" in \
                  uci) echo 'id name Endless'; echo uciok;; isready) echo readyok;; stop) echo 'bestmove e2e4';; esac; done";
    let mut proxy = UciSession::start(&[
        "tm-proxy", "--time-manager=simple", "--move-overhead=200", "--limit-as=clock", "--", "/bin/sh", "-c", script,
    ]);
    proxy.send("uci");
    proxy.read_until("uciok", ANSWER);
    proxy.send("position startpos");
    let asked = std::time::Instant::now();
    proxy.send("go wtime 10000 btime 10000 winc 100 binc 100");
    let search = proxy.read_until("bestmove", ANSWER);
    let waited = asked.elapsed();
    assert_eq!(search.last().map(String::as_str), Some("bestmove e2e4"), "{search:?}");
    // simple plans 284 ms; the proxy lets the engine run to 3 × 284 = 852 ms, within half of (10000 − 200).
    assert!(waited >= Duration::from_millis(852), "stopped after {waited:?}, before three plans");
    assert!(waited < Duration::from_millis(4900), "stopped after {waited:?}, beyond half of the clock");
    assert!(!search.iter().any(|line| line.contains("no bestmove")), "a planned stop is no overrun: {search:?}");
}

#[test]
fn malformed_input_is_answered_and_the_proxy_keeps_serving() {
    let dir = scratch("malformed");
    let log = dir.join("stockfish-input.log");
    let mut proxy = proxied_stockfish(&[], &log);
    proxy.send("uci");
    proxy.read_until("uciok", ANSWER);
    proxy.send("go wtime soon");
    assert_eq!(
        proxy.read_until("info string error", ANSWER).last().map(String::as_str),
        Some("info string error go wtime: 'soon' is not a valid value; expected an integer number of milliseconds; not passed to the wrapped engine")
    );
    proxy.send("position startpos moves e2e5");
    let error = proxy.read_until("info string error", ANSWER);
    assert!(
        error.last().is_some_and(|line| line.contains("e2e5") && line.contains("previous position is kept")),
        "{error:?}"
    );
    proxy.send("setoption name TimeManager value smooth(max-move-budget=7)");
    let error = proxy.read_until("info string error", ANSWER);
    assert!(error.last().is_some_and(|line| line.contains("previous one is kept")), "{error:?}");
    proxy.send("isready");
    proxy.read_until("readyok", ANSWER);
    proxy.send("position startpos moves e2e4");
    proxy.send("go depth 3");
    let search = proxy.read_until("bestmove", ANSWER);
    assert!(search.iter().any(|line| line.starts_with("info depth 3")), "{search:?}");
    proxy.send("isready");
    proxy.read_until("readyok", ANSWER);
    let sent = lines_sent_to_the_engine(&log);
    assert!(sent.contains(&"go depth 3".to_owned()), "a go without a clock passes unchanged: {sent:?}");
    assert!(!sent.iter().any(|line| line.contains("soon") || line.contains("e2e5")), "{sent:?}");
    drop(proxy);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_engine_that_dies_during_a_search_ends_the_proxy_with_an_error() {
    // A scripted engine that answers the handshake and exits with status 3 at its first go.
    let script = "while read -r line; do case \"$line\" in \
                  uci) echo 'id name Doomed'; echo uciok;; isready) echo readyok;; go*) exit 3;; esac; done";
    let mut child = Command::new(kairos_binary())
        .args(["tm-proxy", "--", "/bin/sh", "-c", script])
        .current_dir(workspace_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kairos tm-proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "uci\nisready\nposition startpos\ngo wtime 1000 btime 1000").expect("write");
    let stdout = child.stdout.take().expect("stdout");
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let all: Vec<String> = BufReader::new(stdout).lines().map_while(Result::ok).collect();
        let _ = sender.send(all);
    });
    let Ok(output) = lines.recv_timeout(ANSWER) else {
        let _ = child.kill();
        panic!("the proxy did not end after its engine died");
    };
    let status = child.wait().expect("exit status");
    drop(stdin);
    assert!(output.contains(&"uciok".to_owned()) && output.contains(&"readyok".to_owned()), "{output:?}");
    assert_eq!(
        output.last().map(String::as_str),
        Some("info string error the wrapped engine exited (exit status: 3) during a search, so no bestmove can follow")
    );
    assert!(!output.iter().any(|line| line.starts_with("bestmove")), "{output:?}");
    assert_eq!(status.code(), Some(1), "a GUI sees an engine crash");
}

#[test]
fn proxied_stockfish_plays_stockfish_without_losing_on_time() {
    let dir = scratch("match");
    let openings = workspace_root().join("tests/data/four-openings.epd");
    let (stockfish_arg, stockfish_cmd) = (format!("arg={}", stockfish_binary()), format!("cmd={}", stockfish_binary()));
    let args = [
        "match",
        "--engine",
        "name=proxied",
        "cmd=kairos",
        "arg=tm-proxy",
        "arg=--time-manager=legacy",
        "arg=--",
        stockfish_arg.as_str(),
        "virtualclock=no",
        "--engine",
        "name=stockfish",
        stockfish_cmd.as_str(),
        "--each",
        "tc=2+0.05",
        "option.Threads=1",
        "option.Hash=16",
        "--games",
        "4",
        "--openings",
        openings.to_str().unwrap(),
        "--results",
        "results.jsonl",
    ];
    let output = run_kairos(&args, &dir, Duration::from_secs(300));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let text = std::fs::read_to_string(dir.join("results.jsonl")).expect("results file");
    let games: Vec<Value> =
        text.lines().map(|line| serde_json::from_str(line).expect("one JSON object per game")).collect();
    assert_eq!(games.len(), 4);
    let complete = ["Checkmate", "Stalemate", "InsufficientMaterial", "FiftyMoveRule", "ThreefoldRepetition"];
    for game in &games {
        let termination = game["termination"].as_str().unwrap_or("");
        assert!(
            complete.contains(&termination),
            "a game played to its end by the rules: {termination} ({})",
            game["reason"]
        );
        for record in game["moves"].as_array().unwrap() {
            assert!(record["clock_left_ms"].as_i64().unwrap() >= 0, "{record}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_engine_or_a_bad_manager_string_is_named_with_the_way_out() {
    let dir = scratch("bad-start");
    let missing = run_kairos(&["tm-proxy", "--", "/nonexistent/engine"], &dir, ANSWER);
    assert_eq!(missing.code, Some(1), "{}", missing.stderr);
    assert!(
        missing.stderr.contains("could not start the wrapped engine '/nonexistent/engine'")
            && missing.stderr.contains("check the path after --"),
        "{}",
        missing.stderr
    );
    let bad = run_kairos(&["tm-proxy", "--time-manager=bogus(", "--", stockfish_binary()], &dir, ANSWER);
    assert_eq!(bad.code, Some(1), "{}", bad.stderr);
    assert!(bad.stderr.contains("--time-manager 'bogus('") && bad.stderr.contains("kairos tm-help"), "{}", bad.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn chess960_passes_through_the_proxy() {
    let dir = scratch("chess960");
    let log = dir.join("stockfish-input.log");
    let mut proxy = proxied_stockfish(&["--time-manager=simple"], &log);
    proxy.send("uci");
    proxy.read_until("uciok", ANSWER);
    proxy.send("setoption name UCI_Chess960 value true");
    // Both sides castled, written as king takes rook: the proxy follows the game itself to plan its time.
    let position = "position fen 1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1 moves e1b1 e8g8";
    proxy.send(position);
    proxy.send("go wtime 5000 btime 5000");
    let search = proxy.read_until("bestmove", ANSWER);
    assert!(!search.iter().any(|line| line.contains("error")), "{search:?}");
    let sent = lines_sent_to_the_engine(&log);
    assert!(sent.contains(&"setoption name UCI_Chess960 value true".to_owned()), "{sent:?}");
    assert!(sent.contains(&position.to_owned()), "{sent:?}");
    assert!(sent.iter().any(|line| line.starts_with("go movetime")), "the clock became a move time: {sent:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The number after `key` in a trace summary line.
fn number_after(line: &str, key: &str) -> f64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|word| *word == key).unwrap_or_else(|| panic!("{key} in {line}"));
    words[at + 1].trim_end_matches(',').parse().unwrap_or_else(|_| panic!("a number after {key} in {line}"))
}

#[test]
fn a_new_games_manager_starts_from_the_wrapped_engines_measured_speed() {
    let dir = scratch("engine-nps");
    let mut proxy = proxied_stockfish(&["--time-manager=smooth(limit=nodes)"], &dir.join("stockfish-input.log"));
    proxy.send("uci");
    proxy.read_until("uciok", ANSWER);
    proxy.send("setoption name Threads value 1");
    let mut first_moves = Vec::new();
    for _ in 0..2 {
        proxy.send("ucinewgame");
        proxy.send("position startpos");
        proxy.send("go wtime 60000 btime 60000 winc 600 binc 600");
        proxy.read_until("bestmove", ANSWER);
        first_moves.push(proxy.read_until("info string tm smooth", ANSWER).pop().unwrap());
    }
    // Game 1 has no measure yet: PR 1195's 20,000 nps. Game 2 starts from Stockfish's speed over game 1's move,
    // which the proxy measured from its `info` lines: the same allocation becomes that many more nodes.
    let (first, second) = (&first_moves[0], &first_moves[1]);
    assert_eq!(number_after(first, "allocated_ms"), number_after(second, "allocated_ms"), "{first}\n{second}");
    let measured_nps = number_after(first, "nodes") * 1000.0 / number_after(first, "used");
    let ratio = number_after(second, "node_target") / number_after(first, "node_target");
    let expected = measured_nps / 20_000.0;
    let apart = format!("node targets {ratio:.2}× apart, speeds {expected:.2}×\n{first}\n{second}");
    assert!((ratio / expected - 1.0).abs() < 0.25, "{apart}");
    drop(proxy);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_proxys_moves_left_law_follows_the_games_played_when_asked() {
    let dir = scratch("follow-games");
    let manager = "--time-manager=legacy(mle-legacy(midpoint=50,follow-games=2))";
    let mut proxy = proxied_stockfish(&[manager], &dir.join("stockfish-input.log"));
    proxy.send("uci");
    proxy.read_until("uciok", ANSWER);
    proxy.send("setoption name Threads value 1");
    let mut moves_left = Vec::new();
    for full_move in [30, 60, 1] {
        proxy.send("ucinewgame");
        proxy.send(&format!("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 {full_move}"));
        proxy.send("go wtime 2000 btime 2000");
        proxy.read_until("bestmove", ANSWER);
        let summary = proxy.read_until("info string tm legacy", ANSWER).pop().unwrap();
        moves_left.push(number_after(&summary, "moves_left"));
    }
    // lc0's law a·(1 + 2·(m/a)^7)^(1/7) − m. Game 1 (m = 29): a = 50, 21.31; it lasted 30 moves. Game 2 (m = 59):
    // a = (50²·30)^(1/3) = 42.17, 6.58; it lasted 60 moves. Game 3 (m = 0): a = (50²·30·60)^(1/4) = 46.06.
    let expected = [21.31, 6.58, 46.06];
    for (game, (got, expected)) in moves_left.iter().zip(expected).enumerate() {
        assert!((got - expected).abs() <= 0.06, "game {}: moves_left {got}, hand-worked {expected}", game + 1);
    }
    drop(proxy);
    let _ = std::fs::remove_dir_all(&dir);
}
