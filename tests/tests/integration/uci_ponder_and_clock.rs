//! lc0's later UCI rules through the kairos binary: `go ponder` is searched whatever the Ponder option says and
//! at the start position, a `ponderhit` while not pondering is ignored (lc0 PR #2409), and the move's clock starts
//! when `go` arrives unless StrictTiming is off (lc0 issue #2418; docs/uci.md).
//!
//! The clock tests bound the engine's `info … time` (milliseconds since its move's clock started, on the same
//! monotonic clock as the test's) by instants the test takes itself, so no bound depends on the machine's speed:
//! a clock started at `go` cannot show more than the time since the test sent `go`, and a clock started at
//! `position` shows at least the pause the test made after the engine had read `position`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kairos_tests::UciSession;
use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// Longest wait for an expected line; only a hang exceeds it.
const HANG: Duration = Duration::from_secs(60);

/// The pause between `position` and `go`: far longer than the engine takes to read a line and answer a 50-node
/// search, so that a clock started at `position` shows it.
const PAUSE: Duration = Duration::from_millis(500);

fn start(flags: &[&str]) -> UciSession {
    UciSession::start(&[&["--backend=uniform", "--threads=1"], flags].concat())
}

fn ready(engine: &mut UciSession) -> Vec<String> {
    engine.send("isready");
    engine.read_until("readyok", HANG)
}

fn bestmove(engine: &mut UciSession) -> Vec<String> {
    engine.read_until("bestmove", HANG)
}

/// The lines of a ponder search just started: until its first report, then for [`PAUSE`] more, then up to the
/// answer to `isready`.
fn ponder_for_a_while(engine: &mut UciSession) -> Vec<String> {
    let mut lines = engine.read_until("info depth", HANG);
    std::thread::sleep(PAUSE);
    lines.extend(ready(engine));
    lines
}

fn errors(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|line| line.starts_with("info string error")).collect()
}

fn bestmoves(lines: &[String]) -> usize {
    lines.iter().filter(|line| line.starts_with("bestmove")).count()
}

fn position_after(fen: Option<&str>, moves: &[&str]) -> Chess {
    let mut position: Chess = match fen {
        Some(fen) => fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap(),
        None => Chess::default(),
    };
    for text in moves {
        let mv = text.parse::<UciMove>().unwrap().to_move(&position).unwrap();
        position.play_unchecked(mv);
    }
    position
}

/// Whether the move of the last line, a `bestmove`, is legal in `position`.
fn best_is_legal(lines: &[String], position: &Chess) -> bool {
    let best = lines.last().and_then(|line| line.strip_prefix("bestmove ")).expect("a bestmove line");
    let text = best.split_whitespace().next().expect("bestmove has a move");
    text.parse::<UciMove>().ok().and_then(|uci| uci.to_move(position).ok()).is_some()
}

/// The `time` field of every `info depth` line.
fn info_times(lines: &[String]) -> Vec<i64> {
    let times: Vec<i64> = lines
        .iter()
        .filter(|line| line.starts_with("info depth"))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|word| *word == "time").expect("info has a time");
            words[at + 1].parse().expect("time is a number")
        })
        .collect();
    assert!(!times.is_empty(), "the search reports: {lines:?}");
    times
}

fn whole_ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap()
}

/// Whether every PV move of the `info depth` lines with a PV is legal along its line from `position`.
fn pvs_are_legal_from(lines: &[String], position: &Chess) -> bool {
    lines.iter().filter(|line| line.starts_with("info depth") && line.contains(" pv ")).all(|line| {
        let mut along = position.clone();
        line.split(" pv ").nth(1).unwrap().split_whitespace().all(|text| {
            match text.parse::<UciMove>().ok().and_then(|uci| uci.to_move(&along).ok()) {
                Some(mv) => {
                    along.play_unchecked(mv);
                    true
                }
                None => false,
            }
        })
    })
}

#[test]
fn go_ponder_with_ponder_off_searches_until_stop_or_ponderhit() {
    // Ponder is off by default. With 200 ms on the clock a timed search would have moved long before the pause
    // ends; a ponder search holds its move.
    let mut engine = start(&[]);
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go ponder wtime 200 btime 200");
    let pondering = ponder_for_a_while(&mut engine);
    assert!(errors(&pondering).is_empty(), "accepted as with Ponder on: {pondering:?}");
    assert_eq!(bestmoves(&pondering), 0, "a ponder search holds its move: {pondering:?}");
    // lc0 shows the lines of the position before the predicted e7e5 from after it.
    assert!(pvs_are_legal_from(&pondering, &position_after(None, &["e2e4", "e7e5"])), "{pondering:?}");
    engine.send("stop");
    let stopped = bestmove(&mut engine);
    assert!(best_is_legal(&stopped, &position_after(None, &["e2e4", "e7e5"])), "{stopped:?}");

    engine.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
    engine.send("go ponder wtime 200 btime 200");
    assert_eq!(bestmoves(&ponder_for_a_while(&mut engine)), 0);
    engine.send("ponderhit");
    let hit = bestmove(&mut engine);
    assert!(errors(&hit).is_empty(), "{hit:?}");
    assert!(best_is_legal(&hit, &position_after(None, &["e2e4", "e7e5", "g1f3", "b8c6"])), "{hit:?}");
    assert_eq!(bestmoves(&ready(&mut engine)), 0, "one bestmove per go");
}

#[test]
fn go_ponder_at_the_start_position_searches_it_until_ponderhit() {
    // No move to predict: the position as given is searched, held like any ponder search (Stockfish, lc0 #2409).
    for flags in [&[][..], &["--ponder"][..]] {
        let mut engine = start(flags);
        engine.send("position startpos");
        engine.send("go ponder wtime 200 btime 200");
        let pondering = ponder_for_a_while(&mut engine);
        assert!(errors(&pondering).is_empty(), "{flags:?}: {pondering:?}");
        assert_eq!(bestmoves(&pondering), 0, "{flags:?}: {pondering:?}");
        assert!(pvs_are_legal_from(&pondering, &Chess::default()), "{flags:?}: lines of the start position");
        engine.send("ponderhit");
        let hit = bestmove(&mut engine);
        assert!(best_is_legal(&hit, &Chess::default()), "{flags:?}: {hit:?}");
        // A bare FEN has no move to predict either.
        engine.send("position fen 8/8/8/4k3/8/8/4P3/4K3 w - - 0 1");
        engine.send("go ponder wtime 200 btime 200");
        engine.send("stop");
        let stopped = bestmove(&mut engine);
        assert!(errors(&stopped).is_empty(), "{flags:?}: {stopped:?}");
        assert!(best_is_legal(&stopped, &position_after(Some("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"), &[])));
    }
}

#[test]
fn a_ponderhit_while_not_pondering_is_ignored_and_the_engine_serves_on() {
    let mut engine = start(&[]);
    ready(&mut engine);
    // Idle, before any search and after one.
    engine.send("ponderhit");
    assert_eq!(ready(&mut engine), ["readyok"], "nothing but the answer to isready");
    engine.send("position startpos");
    engine.send("go nodes 20");
    bestmove(&mut engine);
    engine.send("ponderhit");
    let after_search = ready(&mut engine);
    assert!(errors(&after_search).is_empty() && bestmoves(&after_search) == 0, "{after_search:?}");
    // During a normal search: it searches on and ends by stop alone.
    engine.send("go infinite");
    engine.send("ponderhit");
    let searching = ready(&mut engine);
    assert!(errors(&searching).is_empty(), "{searching:?}");
    assert_eq!(bestmoves(&searching), 0, "ponderhit does not end an infinite search: {searching:?}");
    engine.send("stop");
    assert!(best_is_legal(&bestmove(&mut engine), &Chess::default()));
    engine.send("go nodes 20");
    assert!(best_is_legal(&bestmove(&mut engine), &Chess::default()), "and the next go is answered");
}

/// The time-manager traces of `path`, one JSON object a move.
fn read_traces(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("trace file written");
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn trace_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("kairos-{name}-{}.jsonl", std::process::id()))
}

#[test]
fn go_ponder_with_ponder_off_keeps_the_games_tree_and_time_manager() {
    // lc0 with Ponder off moves its tree at position, so a go ponder behind it would start afresh; here the game
    // goes on as with Ponder on: the ponder search continues the tree, and ponderhit the time manager.
    let path = trace_path("ponder-off-hit");
    let _ = std::fs::remove_file(&path);
    let trace_flag = format!("--tm-trace-file={}", path.display());
    let mut engine = start(&["--time-manager=smooth(preset=kairos)", &trace_flag]);
    engine.send("position startpos moves e2e4");
    engine.send("go wtime 5000 btime 5000");
    let reply = bestmove(&mut engine).last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    engine.read_until("info string tm", HANG);
    engine.send(&format!("position startpos moves e2e4 {reply} a2a3"));
    engine.send("go ponder wtime 5000 btime 4900");
    std::thread::sleep(Duration::from_millis(300));
    ready(&mut engine);
    engine.send("ponderhit");
    let hit = bestmove(&mut engine);
    assert!(best_is_legal(&hit, &position_after(None, &["e2e4", &reply, "a2a3"])), "{hit:?}");
    engine.read_until("info string tm", HANG);
    drop(engine);
    let traces = read_traces(&path);
    let _ = std::fs::remove_file(&path);
    assert_eq!(traces.len(), 2, "the ponder search runs no time manager");
    assert!(traces[1]["reused_visits"].as_u64().unwrap() > 0, "the tree under a2a3 is kept: {}", traces[1]);
    assert_eq!(traces[1]["state_before"], traces[0]["state_after_move"], "the same manager goes on");
}

/// Sends `position startpos`, pauses for [`PAUSE`] (after the engine has answered `isready`, when `isready` is
/// set), sends `go`, and returns the search's lines and the time from sending `go` to reading `bestmove`.
fn pause_then_go(engine: &mut UciSession, isready: bool, go: &str) -> (Vec<String>, Duration) {
    engine.send("position startpos");
    if isready {
        ready(engine);
    }
    std::thread::sleep(PAUSE);
    let sent = Instant::now();
    engine.send(go);
    let lines = bestmove(engine);
    (lines, sent.elapsed())
}

#[test]
fn the_moves_clock_starts_when_go_arrives() {
    // Whether or not the GUI asks isready in between, as Stockfish: the time between position and go is the
    // GUI's, not the engine's (a clock started at position would show the whole pause here).
    for isready in [false, true] {
        let mut engine = start(&[]);
        ready(&mut engine);
        let (lines, since_go) = pause_then_go(&mut engine, isready, "go wtime 60000 btime 60000 nodes 50");
        for time in info_times(&lines) {
            assert!(time <= whole_ms(since_go), "isready {isready}: {time} ms shown, {since_go:?} since go");
        }
    }
}

#[test]
fn strict_timing_off_starts_the_moves_clock_at_position_as_lc0s_default() {
    let mut engine = start(&["--strict-uci-timing=false"]);
    ready(&mut engine);
    // The engine has read position before it answers isready; the pause follows, then go.
    let (lines, _) = pause_then_go(&mut engine, true, "go wtime 60000 btime 60000 nodes 50");
    for time in info_times(&lines) {
        assert!(time >= whole_ms(PAUSE), "the clock ran from position: {time} ms shown after a {PAUSE:?} pause");
    }
    // lc0 starts a go without wtime or btime at go, StrictTiming or not.
    let (lines, since_go) = pause_then_go(&mut engine, false, "go nodes 50");
    for time in info_times(&lines) {
        assert!(time <= whole_ms(since_go), "{time} ms shown, {since_go:?} since go");
    }
}

#[test]
fn a_new_games_clock_counts_the_move_from_its_start() {
    // With Ponder on, a position from another game starts the new game (and, on the virtual clock, a fresh clock)
    // at go, after the move's clock started: the move is measured from that start, never before the clock's zero.
    for strict in ["true", "false"] {
        let mut engine = start(&["--ponder", "--virtual-clock", &format!("--strict-uci-timing={strict}")]);
        engine.send("position startpos");
        engine.send("go nodes 200");
        let first = bestmove(&mut engine);
        assert!(info_times(&first).iter().any(|&time| time > 0), "the first game's search takes virtual time");
        engine.send("position fen 8/8/8/4k3/8/8/4P3/4K3 w - - 0 1");
        engine.send("go wtime 60000 btime 60000 nodes 50");
        let second = bestmove(&mut engine);
        for time in info_times(&second) {
            assert!(time >= 0, "StrictTiming {strict}: a move cannot have run {time} ms");
        }
    }
}
