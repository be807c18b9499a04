//! The UCI front end end to end, through the real `kairos` binary: scripted sessions, bad input, ponder,
//! the time-manager trace, random command sequences, and virtual-clock replays. Timeouts only guard
//! against hangs; nothing asserts on wall time.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use engine::uci::child::UciChild;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// Longest wait for any expected line; only a hang exceeds it.
const HANG_TIMEOUT: Duration = Duration::from_secs(60);

/// A running engine with a line reader on its output.
struct Engine {
    child: UciChild,
    lines: Receiver<String>,
    transcript: Vec<String>,
}

impl Engine {
    fn start(flags: &[&str]) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kairos"));
        command.args(flags).stderr(Stdio::null());
        let (child, lines) = UciChild::spawn_with_lines(&mut command).expect("kairos starts");
        Engine { child, lines, transcript: Vec::new() }
    }

    fn send(&mut self, line: &str) {
        self.transcript.push(format!("> {line}"));
        self.child.send(line).expect("engine reads its input");
    }

    /// Reads lines until one satisfies `done`; returns every line read, that one last.
    fn read_until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + HANG_TIMEOUT;
        let mut read = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.transcript.push(format!("< {line}"));
                    let finished = done(&line);
                    read.push(line);
                    if finished {
                        return read;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("engine hung; transcript:\n{}", self.transcript.join("\n")),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("engine exited early; transcript:\n{}", self.transcript.join("\n"))
                }
            }
        }
    }

    fn ready(&mut self) -> Vec<String> {
        self.send("isready");
        self.read_until(|line| line == "readyok")
    }

    fn bestmove(&mut self) -> Vec<String> {
        self.read_until(|line| line.starts_with("bestmove"))
    }

    /// Sends `quit`, waits for the process to end and returns all output not read yet.
    fn quit(mut self) -> Vec<String> {
        self.send("quit");
        let mut rest = Vec::new();
        let deadline = Instant::now() + HANG_TIMEOUT;
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => rest.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("engine did not quit; transcript:\n{}", self.transcript.join("\n"))
                }
            }
        }
        let status = self.child.exit_status_within(HANG_TIMEOUT);
        assert!(status.is_some_and(|status| status.success()), "exit status {status:?}");
        rest
    }
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

fn is_legal(position: &Chess, text: &str) -> bool {
    text.parse::<UciMove>().ok().and_then(|uci| uci.to_move(position).ok()).is_some()
}

/// The move of a `bestmove` line.
fn best_of(line: &str) -> &str {
    line.split_whitespace().nth(1).expect("bestmove has a move")
}

/// Checks an `info` line against lc0's field order and that its PV is a legal line from `position`.
fn assert_well_formed_info(line: &str, position: &Chess) {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[0], "info");
    if words.get(1) == Some(&"string") {
        return;
    }
    let expected = ["depth", "seldepth", "time", "nodes", "score"];
    for (index, field) in expected.iter().enumerate() {
        assert_eq!(words.get(1 + 2 * index), Some(field), "{line}");
    }
    for index in [2, 4, 6, 8] {
        assert!(words[index].parse::<u64>().is_ok(), "{line}");
    }
    assert!(matches!(words[10], "cp" | "mate") && words[11].parse::<i32>().is_ok(), "{line}");
    let pv_at = words.iter().position(|word| *word == "pv").expect("info has a pv");
    let mut line_position = position.clone();
    for text in &words[pv_at + 1..] {
        let mv = text.parse::<UciMove>().ok().and_then(|uci| uci.to_move(&line_position).ok());
        let mv = mv.unwrap_or_else(|| panic!("pv move {text} is illegal in: {line}"));
        line_position.play_unchecked(mv);
    }
}

fn errors(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|line| line.starts_with("info string error")).collect()
}

#[test]
fn scripted_session_gives_one_legal_bestmove_per_go_and_well_formed_info() {
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1"]);
    engine.send("uci");
    let hello = engine.read_until(|line| line == "uciok");
    assert!(hello[0].starts_with("id name Kairos"));
    assert!(hello.contains(&"option name Threads type spin default 1 min 0 max 128".to_string()));
    assert!(hello.contains(&"option name MoveOverheadMs type spin default 200 min 0 max 100000000".to_string()));
    let backend = "info string Backend: uniform (test backend, no network)";
    assert_eq!(engine.ready(), [backend, "readyok"], "the first isready loads the backend and names it");
    assert_eq!(engine.ready(), ["readyok"], "later ones only answer");

    engine.send("ucinewgame");
    engine.send("position startpos moves e2e4");
    let after_e4 = position_after(None, &["e2e4"]);
    engine.send("go nodes 50");
    let search = engine.bestmove();
    assert!(is_legal(&after_e4, best_of(search.last().unwrap())), "{search:?}");
    let infos: Vec<&String> = search.iter().filter(|line| line.starts_with("info")).collect();
    assert!(!infos.is_empty());
    infos.iter().for_each(|line| assert_well_formed_info(line, &after_e4));
    let last_nodes: u64 = infos.last().unwrap().split_whitespace().nth(8).unwrap().parse().unwrap();
    assert!((50..50 + 64).contains(&last_nodes), "go nodes 50 stops at 50 visits plus at most a batch: {last_nodes}");

    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go wtime 3000 btime 3000 winc 100 binc 100");
    let timed = engine.bestmove();
    let after_e5 = position_after(None, &["e2e4", "e7e5"]);
    assert!(is_legal(&after_e5, best_of(timed.last().unwrap())), "{timed:?}");

    engine.send("go infinite");
    let mid_search = engine.ready();
    assert!(
        mid_search.iter().all(|line| !line.starts_with("bestmove")),
        "infinite holds its best move: {mid_search:?}"
    );
    engine.send("stop");
    let stopped = engine.bestmove();
    assert!(is_legal(&after_e5, best_of(stopped.last().unwrap())));

    engine.send("stop");
    let rest = engine.quit();
    assert!(rest.iter().all(|line| !line.starts_with("bestmove")), "a stop without a search sends nothing: {rest:?}");
}

#[test]
fn bad_input_is_reported_and_the_engine_keeps_serving() {
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1"]);
    for bad in [
        "position startpos moves e2e4 e2e4",
        "position fen rnbqkbnr/pppppppp/8/8 w",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position",
        "setoption name NoSuchOption value 3",
        "setoption name Threads value 1000",
        "setoption name CPuct value lots",
        "setoption name TimeManager value smooth,legacy",
        "setoption",
        "go nodes many",
        "go sideways",
        "xyzzy",
        "\u{1b}[A%%%",
    ] {
        engine.send(bad);
        let answer = engine.ready();
        assert_eq!(errors(&answer).len(), 1, "{bad:?} gives exactly one error: {answer:?}");
        if bad.starts_with("go") {
            assert!(answer.iter().all(|line| !line.starts_with("bestmove")), "{answer:?}");
        }
    }
    engine.send("position startpos moves e2e4 e7e5 g1f3");
    engine.send("position startpos moves e2e4 e7e5 g1f3 e5e4");
    engine.send("go nodes 20");
    let answer = engine.bestmove();
    assert_eq!(errors(&answer).len(), 1, "the illegal position is reported: {answer:?}");
    let kept = position_after(None, &["e2e4", "e7e5", "g1f3"]);
    assert!(is_legal(&kept, best_of(answer.last().unwrap())), "the previous position is kept: {answer:?}");
    engine.quit();
}

#[test]
fn positions_without_legal_moves_get_bestmove_0000() {
    let mut engine = Engine::start(&["--backend=uniform"]);
    engine.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    engine.send("go wtime 1000 btime 1000");
    assert_eq!(engine.bestmove().last().unwrap(), "bestmove 0000");
    engine.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    engine.send("go nodes 10");
    assert_eq!(engine.bestmove().last().unwrap(), "bestmove 0000", "stalemate");
    engine.quit();
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1"]);
    engine.send("position startpos");
    engine.send("go nodes 40 searchmoves h2h3 a2a3 a7a5");
    let answer = engine.bestmove();
    assert_eq!(errors(&answer).len(), 1, "a7a5 is not a legal move for white: {answer:?}");
    assert!(matches!(best_of(answer.last().unwrap()), "h2h3" | "a2a3"), "{answer:?}");
    engine.quit();
}

#[test]
fn multipv_sends_one_line_per_best_move_in_best_move_order() {
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1"]);
    engine.send("setoption name MultiPV value 3");
    engine.send("position startpos moves e2e4");
    engine.send("go nodes 60");
    let answer = engine.bestmove();
    let start = position_after(None, &["e2e4"]);
    let last_block: Vec<&String> = answer.iter().rev().skip(1).take(3).collect::<Vec<_>>().into_iter().rev().collect();
    for (rank, line) in last_block.iter().enumerate() {
        assert_well_formed_info(line, &start);
        assert!(line.contains(&format!(" tbhits 0 multipv {} pv ", rank + 1)), "{line}");
    }
    let first_moves: Vec<&str> =
        last_block.iter().map(|line| line.split(" pv ").nth(1).unwrap().split(' ').next().unwrap()).collect();
    assert_eq!(first_moves[0], best_of(answer.last().unwrap()), "multipv 1 is the best move: {answer:?}");
    assert!(first_moves[0] != first_moves[1] && first_moves[1] != first_moves[2], "{first_moves:?}");
    engine.send("setoption name MultiPV value 1");
    engine.send("go nodes 20");
    let answer = engine.bestmove();
    assert!(answer.iter().all(|line| !line.contains(" multipv ")), "MultiPV 1 prints no rank: {answer:?}");
    engine.send("setoption name MultiPV value 0");
    assert_eq!(errors(&engine.ready()).len(), 1, "MultiPV is 1 to 500");
    // A GUI may change options the moment `bestmove` arrives, while the search threads still wind down.
    for round in 1..=10 {
        engine.send("go nodes 1");
        engine.bestmove();
        engine.send(&format!("setoption name MultiPV value {round}"));
        let answer = engine.ready();
        assert!(errors(&answer).is_empty(), "setoption right after bestmove is accepted: {answer:?}");
    }
    engine.quit();
}

/// The number after the word `name` in `line` (an info line's `nodes`, `time`, or a statistics line's `N:`).
fn field(line: &str, name: &str) -> u64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == name).unwrap_or_else(|| panic!("no {name} in {line}"));
    words[at + 1].parse().unwrap_or_else(|_| panic!("{name} is not a number in {line}"))
}

#[test]
fn per_pv_counters_show_each_lines_first_move_visits_as_its_nodes() {
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1"]);
    for line in ["setoption name MultiPV value 3", "setoption name VerboseMoveStats value true", "position startpos"] {
        engine.send(line);
    }
    let last_lines = |answer: &[String]| -> Vec<String> {
        let infos: Vec<&String> = answer.iter().filter(|line| line.starts_with("info depth")).collect();
        infos[infos.len() - 3..].iter().map(|line| line.to_string()).collect()
    };
    engine.send("go nodes 300");
    let totals = last_lines(&engine.bestmove());
    let total = field(&totals[0], "nodes");
    assert!(total >= 300 && totals.iter().all(|line| field(line, "nodes") == total), "the total: {totals:?}");
    engine.send("setoption name PerPVCounters value true");
    engine.send("ucinewgame");
    engine.send("position startpos");
    engine.send("go nodes 300");
    let answer = engine.bestmove();
    for line in last_lines(&answer) {
        let first = line.split(" pv ").nth(1).unwrap().split(' ').next().unwrap();
        let verbose = answer.iter().find(|l| l.starts_with(&format!("info string {first} "))).expect("a stats line");
        assert_eq!(field(&line, "nodes"), field(verbose, "N:"), "{line} against {verbose}");
        assert!(field(&line, "nodes") < total * 2 / 3, "one of twenty root moves: {line}");
    }
    engine.quit();
}

#[test]
fn nodes_per_second_limit_keeps_the_search_to_that_speed() {
    let last_info = |limit: &str| {
        let mut engine = Engine::start(&["--backend=uniform", "--threads=1", "--minibatch-size=1"]);
        engine.send(&format!("setoption name NodesPerSecondLimit value {limit}"));
        engine.send("position startpos");
        engine.send("go movetime 1000");
        let answer = engine.bestmove();
        engine.quit();
        answer.iter().rev().find(|line| line.starts_with("info depth")).expect("an info line").clone()
    };
    let free = last_info("0");
    assert!(field(&free, "nodes") > 5000, "the uniform backend searches far faster unlimited: {free}");
    let limited = last_info("500");
    let (nodes, nps) = (field(&limited, "nodes"), field(&limited, "nps"));
    assert!((300..=650).contains(&nodes) && nps <= 550, "about 500 nodes in the second: {limited}");
}

#[test]
fn clear_tree_makes_the_next_search_start_from_an_empty_tree() {
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1"]);
    let mut nodes_after = |commands: &[&str]| {
        commands.iter().for_each(|command| engine.send(command));
        let answer = engine.bestmove();
        let info = answer.iter().rev().find(|line| line.starts_with("info depth")).expect("an info line").clone();
        field(&info, "nodes")
    };
    assert!(nodes_after(&["position startpos", "go nodes 100"]) >= 100);
    assert!(nodes_after(&["position startpos", "go nodes 1"]) >= 100, "the tree is reused");
    let cleared = nodes_after(&["setoption name ClearTree", "position startpos", "go nodes 1"]);
    assert!(cleared < 10, "the tree was forgotten: {cleared} nodes");
    nodes_after(&["position startpos", "go nodes 100"]);
    assert!(nodes_after(&["position startpos", "go nodes 1"]) >= 100, "the press was used up: reused again");
    engine.quit();
}

#[test]
fn show_eps_adds_network_evaluations_per_second_after_nps() {
    let field = |line: &str, name: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        words.iter().position(|w| *w == name).map(|at| words[at + 1].parse::<u64>().unwrap())
    };
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1"]);
    engine.send("position startpos");
    engine.send("go nodes 2000");
    let answer = engine.bestmove();
    assert!(answer.iter().all(|line| !line.contains(" eps ")), "UCI_ShowEPS is off by default: {answer:?}");
    engine.send("setoption name UCI_ShowEPS value true");
    engine.send("ucinewgame");
    engine.send("position startpos");
    engine.send("go nodes 2000");
    let answer = engine.bestmove();
    let last = answer.iter().rev().find(|line| line.starts_with("info depth")).unwrap();
    let (nps, eps) = (field(last, "nps").expect("nps after 2000 playouts"), field(last, "eps").expect("eps"));
    assert!(last.contains(&format!(" nps {nps} eps {eps} tbhits 0 ")), "{last}");
    assert!(eps <= nps, "cache hits and proven nodes are playouts without an evaluation: {last}");
    engine.quit();
}

#[test]
fn network_failure_is_an_error_line_and_go_still_answers() {
    let mut engine = Engine::start(&["--weights=/nonexistent/net.pb.gz"]);
    let answer = engine.ready();
    let error = errors(&answer);
    assert_eq!(error.len(), 1, "{answer:?}");
    assert!(error[0].contains("/nonexistent/net.pb.gz") && error[0].contains("tried"), "{}", error[0]);
    engine.send("go nodes 10");
    let answer = engine.bestmove();
    assert_eq!(errors(&answer).len(), 1);
    assert_eq!(answer.last().unwrap(), "bestmove 0000");
    engine.send("setoption name Backend value uniform");
    engine.send("go nodes 10");
    assert!(is_legal(&Chess::default(), best_of(engine.bestmove().last().unwrap())), "recovers after setoption");
    engine.quit();
}

/// A game's searches recorded through `RecordFile` and replayed by `Backend=replay` answer the recorded moves with
/// the recorded node counts; a replay without a recording is an error naming `RecordFile`, and the engine serves on.
#[test]
fn a_recorded_game_replays_over_uci_and_a_replay_without_a_recording_is_named() {
    let path = std::env::temp_dir().join(format!("kairos-uci-record-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let searches = |flags: &[&str]| {
        let mut engine = Engine::start(flags);
        engine.ready();
        let mut answers = Vec::new();
        for moves in ["", " moves e2e4", " moves e2e4 c7c5"] {
            engine.send(&format!("position startpos{moves}"));
            engine.send("go nodes 400");
            let lines = engine.bestmove();
            let nodes =
                lines.iter().rev().find(|line| line.starts_with("info depth")).map(|line| {
                    line.split_whitespace().skip_while(|word| *word != "nodes").nth(1).unwrap().to_string()
                });
            answers.push((best_of(lines.last().unwrap()).to_string(), nodes));
        }
        engine.quit();
        answers
    };
    let file = path.to_str().unwrap();
    let recorded = searches(&["--backend=random", "--threads=1", "--record-file", file]);
    assert_eq!(recorded, searches(&["--backend=random", "--threads=1"]), "recording changes nothing");
    assert_eq!(searches(&["--backend=replay", "--threads=1", "--record-file", file]), recorded);
    std::fs::remove_file(&path).unwrap();
    let mut engine = Engine::start(&["--backend=replay"]);
    let answer = engine.ready();
    let error = errors(&answer);
    assert!(error.len() == 1 && error[0].contains("RecordFile"), "{answer:?}");
    engine.send("setoption name Backend value uniform");
    engine.send("go nodes 10");
    assert!(is_legal(&Chess::default(), best_of(engine.bestmove().last().unwrap())), "serves on after setoption");
    engine.quit();
}

#[test]
fn ponderhit_turns_the_ponder_search_into_one_timed_search() {
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1", "--ponder"]);
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go ponder wtime 2000 btime 2000");
    assert!(engine.ready().iter().all(|line| !line.starts_with("bestmove")), "pondering holds the move");
    engine.send("ponderhit");
    let answer = engine.bestmove();
    assert!(is_legal(&position_after(None, &["e2e4", "e7e5"]), best_of(answer.last().unwrap())));
    engine.send("go ponder wtime 2000 btime 2000");
    engine.ready();
    engine.send("stop");
    engine.bestmove();
    let rest = engine.quit();
    assert!(rest.iter().all(|line| !line.starts_with("bestmove")), "one bestmove per go: {rest:?}");
}

/// The time-manager traces of a `TmTraceFile`, one JSON object a move.
fn read_traces(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).expect("trace file written");
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// Plays Black's first move after 1. e4, then ponders on the GUI's predicted White reply a2a3 for a moment.
/// Returns the engine, the lines of the ponder search so far and Black's first move.
fn ponder_after_first_move(trace: &std::path::Path) -> (Engine, Vec<String>, String) {
    let flag = format!("--tm-trace-file={}", trace.display());
    // A manager whose state changes with every move (the default's choice between two depends on the speed).
    let manager = "--time-manager=smooth(preset=kairos)";
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1", "--ponder", "--show-wdl", manager, &flag]);
    engine.send("position startpos moves e2e4");
    engine.send("go wtime 5000 btime 5000");
    let reply = best_of(engine.bestmove().last().unwrap()).to_string();
    engine.read_until(|line| line.starts_with("info string tm"));
    engine.send(&format!("position startpos moves e2e4 {reply} a2a3"));
    engine.send("go ponder wtime 5000 btime 4900");
    std::thread::sleep(Duration::from_millis(300));
    let pondering = engine.ready();
    (engine, pondering, reply)
}

/// Waits for the move searched after `moves` (legal there) and its trace, quits, and returns every trace.
fn last_move_and_traces(mut engine: Engine, trace: &std::path::Path, moves: &[&str]) -> Vec<serde_json::Value> {
    let answer = engine.bestmove();
    assert!(is_legal(&position_after(None, moves), best_of(answer.last().unwrap())), "{answer:?}");
    engine.read_until(|line| line.starts_with("info string tm"));
    engine.quit();
    let traces = read_traces(trace);
    let _ = std::fs::remove_file(trace);
    traces
}

#[test]
fn a_ponder_search_shows_the_engines_own_lines_after_the_predicted_move() {
    let path = std::env::temp_dir().join(format!("kairos-ponder-lines-{}.jsonl", std::process::id()));
    let (mut engine, pondering, reply) = ponder_after_first_move(&path);
    // lc0 searches the position before a2a3 and shows its lines from Black's side, the PV after a2a3.
    let after_prediction = position_after(None, &["e2e4", &reply, "a2a3"]);
    let lines: Vec<&String> = pondering.iter().filter(|line| line.starts_with("info depth")).collect();
    assert!(!lines.is_empty(), "the ponder search reports: {pondering:?}");
    let with_pv = lines.iter().filter(|line| line.contains(" pv ")).count();
    assert!(with_pv > 0, "the uniform priors visit a2a3, so some lines have its PV: {lines:?}");
    for line in &lines {
        if line.contains(" pv ") {
            assert_well_formed_info(line, &after_prediction);
        }
    }
    engine.send("stop");
    let stopped = engine.bestmove();
    assert!(is_legal(&after_prediction, best_of(stopped.last().unwrap())), "{stopped:?}");
    engine.quit();
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_ponder_miss_keeps_the_tree_and_the_time_manager() {
    let path = std::env::temp_dir().join(format!("kairos-ponder-miss-{}.jsonl", std::process::id()));
    let (mut engine, _, reply) = ponder_after_first_move(&path);
    engine.send("stop");
    engine.bestmove();
    // White played h2h3, not the predicted a2a3: the ponder search's tree, rooted before White's move, has
    // visits under h2h3 too, and the game goes on with its manager (as lc0's tree reuse at the next search).
    engine.send(&format!("position startpos moves e2e4 {reply} h2h3"));
    engine.send("go wtime 4900 btime 4800");
    let traces = last_move_and_traces(engine, &path, &["e2e4", &reply, "h2h3"]);
    let plies: Vec<u64> = traces.iter().map(|trace| trace["game_ply"].as_u64().unwrap()).collect();
    assert_eq!(plies, vec![1, 3], "the ponder search runs no time manager");
    assert!(traces[1]["reused_visits"].as_u64().unwrap() > 0, "the tree under h2h3 is kept: {}", traces[1]);
    assert_ne!(traces[0]["state_before"], traces[0]["state_after_move"], "the manager learns from a move");
    assert_eq!(traces[1]["state_before"], traces[0]["state_after_move"], "the same manager goes on");
}

#[test]
fn ponderhit_reuses_the_visits_under_the_predicted_move() {
    let path = std::env::temp_dir().join(format!("kairos-ponder-hit-{}.jsonl", std::process::id()));
    let (mut engine, _, reply) = ponder_after_first_move(&path);
    engine.send("ponderhit");
    let traces = last_move_and_traces(engine, &path, &["e2e4", &reply, "a2a3"]);
    assert_eq!(traces.len(), 2);
    assert!(traces[1]["reused_visits"].as_u64().unwrap() > 0, "{}", traces[1]);
    assert_eq!(traces[1]["state_before"], traces[0]["state_after_move"]);
}

/// The first move's trace step `step` (`init_nps`: smooth's start from the engine's measure;
/// `planned_nodes_per_move`: regime's), if any.
fn first_move_step(flags: &[&str], with_isready: bool, step: &str) -> Option<f64> {
    let path = std::env::temp_dir().join(format!("kairos-{step}-{}-{with_isready}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let flag = format!("--tm-trace-file={}", path.display());
    let mut engine = Engine::start(&[flags, &[flag.as_str()]].concat());
    if with_isready {
        engine.ready();
    }
    engine.send("position startpos");
    engine.send("go wtime 60000 btime 60000");
    engine.bestmove();
    engine.read_until(|line| line.starts_with("info string tm"));
    engine.quit();
    let traces = read_traces(&path);
    let _ = std::fs::remove_file(&path);
    let steps = traces[0]["steps"].as_array().unwrap().clone();
    steps.iter().find(|value| value["name"] == step).map(|value| value["value"].as_f64().unwrap())
}

#[test]
fn the_time_managers_start_from_the_engines_measured_speed() {
    let base = ["--backend=uniform", "--threads=1", "--time-manager=smooth(preset=kairos)"];
    let init_nps = |flags: &[&str], with_isready| first_move_step(flags, with_isready, "init_nps");
    // On the virtual clock the speed is VirtualNps.
    let virtual_clock = [&base[..], &["--virtual-clock", "--virtual-nps=777"]].concat();
    assert_eq!(init_nps(&virtual_clock, true), Some(777.0));
    // On the wall clock a short search when the network loads at isready measures it.
    let measured = init_nps(&base, true).expect("smooth(preset=kairos) starts from the engine's measure");
    assert!(measured > 0.0 && measured != 20_000.0, "{measured}");
    // Without isready nothing was measured before the first move: PR 1195's 20000.
    assert_eq!(init_nps(&base, false), Some(20_000.0));
    // An explicit init-nps overrides the measure.
    let explicit = [&base[..2], &["--time-manager=smooth(preset=kairos,init-nps=3000)"]].concat();
    assert_eq!(init_nps(&explicit, true), None);

    // The default, regime, plans its game from the same measure: at 777 nps, 60 s and no increment from the
    // start position (51.5 moves left on lc0's curve), (60,000 - 200) / 51.5 ms a move = 902.2 nodes.
    let planned = |flags: &[&str]| first_move_step(flags, true, "planned_nodes_per_move");
    let default_virtual = ["--backend=uniform", "--threads=1", "--virtual-clock", "--virtual-nps=777"];
    let virtual_plan = planned(&default_virtual).expect("the default decides at the first move");
    assert!((virtual_plan - 902.2).abs() < 0.05, "{virtual_plan}");
    let wall_plan = planned(&base[..2]).expect("the default decides at the first move");
    assert!(wall_plan > 0.0 && (wall_plan - 20_000.0 * 59.8 / 51.5).abs() > 1.0, "{wall_plan}");
}

/// The overhead each of two moves' traces records with `flags` and `go` (the first move from the start
/// position, the second after 1. e4 e5).
fn overheads_of_two_moves(flags: &[&str], go: &str) -> Vec<i64> {
    let path = std::env::temp_dir().join(format!("kairos-floor-{}-{}.jsonl", std::process::id(), flags.len()));
    let _ = std::fs::remove_file(&path);
    let flag = format!("--tm-trace-file={}", path.display());
    let mut engine = Engine::start(&[flags, &[flag.as_str()]].concat());
    for position in ["position startpos", "position startpos moves e2e4 e7e5"] {
        engine.send(position);
        engine.send(go);
        engine.bestmove();
        engine.read_until(|line| line.starts_with("info string tm"));
    }
    engine.quit();
    let traces = read_traces(&path);
    let _ = std::fs::remove_file(&path);
    traces.iter().map(|trace| trace["move_overhead_ms"].as_i64().unwrap()).collect()
}

/// What a move costs before its first playouts is kept for the moves still to come where no increment pays for
/// it: with a test backend whose batches wait 20 ms, the second move keeps at least 60 × 20 ms beyond
/// `MoveOverheadMs` (200); nothing is measured before the first move, an increment of 1 s pays for every move,
/// on the virtual clock a move costs only its nodes, and `MoveFloorReserve` off keeps the overhead alone (lc0).
#[test]
fn a_clock_without_increment_keeps_each_moves_floor_for_the_moves_to_come() {
    let base = ["--backend=uniform", "--threads=1", "--test-backend-delay-ms=20"];
    let sudden_death = overheads_of_two_moves(&base, "go wtime 3000 btime 3000");
    assert_eq!(sudden_death[0], 200, "nothing measured before the first move");
    assert!(sudden_death[1] >= 200 + 60 * 20, "the second move keeps 60 floors: {sudden_death:?}");
    let increment = overheads_of_two_moves(&base[..], "go wtime 3000 btime 3000 winc 1000 binc 1000");
    assert_eq!(increment, [200, 200]);
    let virtual_clock = [&base[..], &["--virtual-clock"]].concat();
    assert_eq!(overheads_of_two_moves(&virtual_clock, "go wtime 3000 btime 3000"), [200, 200]);
    let as_lc0 = [&base[..], &["--move-floor-reserve=false", "--move-overhead=150"]].concat();
    assert_eq!(overheads_of_two_moves(&as_lc0, "go wtime 3000 btime 3000"), [150, 150], "MoveOverheadMs alone");
}

#[test]
fn time_manager_trace_is_appended_per_move_and_summarised() {
    let path = std::env::temp_dir().join(format!("kairos-uci-trace-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let flag = format!("--tm-trace-file={}", path.display());
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1", &flag]);
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..3 {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        engine.send("go wtime 5000 btime 5000 winc 50 binc 50");
        let answer = engine.bestmove();
        moves.push(best_of(answer.last().unwrap()).to_string());
        let summary = engine.read_until(|line| line.starts_with("info string tm"));
        let last = summary.last().unwrap();
        assert!(last.starts_with("info string tm regime by ") && last.contains(" deadline "), "{summary:?}");
    }
    engine.quit();
    let text = std::fs::read_to_string(&path).expect("trace file written");
    let plies: Vec<u64> = text
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["game_ply"].as_u64().unwrap())
        .collect();
    assert_eq!(plies, vec![0, 1, 2]);
    let _ = std::fs::remove_file(&path);
}

/// A `LogFile`'s logs, each the lines after lc0's header with their time stamps (`MMDD HH:MM:SS.uuuuuu `, as
/// lc0's) checked and taken off.
fn logs_in(path: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).expect("the log was written");
    let mut logs: Vec<Vec<String>> = Vec::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        if line == "============= Log started. =============" {
            logs.push(Vec::new());
            continue;
        }
        let (stamp, rest) = line.split_at_checked(21).unwrap_or_else(|| panic!("a stamped line: {line:?}"));
        let digits = stamp.bytes().filter(u8::is_ascii_digit).count();
        assert!(digits == 16 && &stamp[4..5] == " " && stamp.ends_with(' '), "a stamp like lc0's: {line:?}");
        logs.last_mut().expect("a header starts the file").push(rest.to_string());
    }
    logs
}

#[test]
fn log_file_holds_every_line_in_and_out_in_order_as_lc0s() {
    let path = std::env::temp_dir().join(format!("kairos-uci-log-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let set_log = format!("setoption name LogFile value {}", path.display());
    let set_bad_log = "setoption name LogFile value /nonexistent-dir/kairos.log";
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1"]);
    engine.send("uci");
    let mut sent = engine.read_until(|line| line == "uciok");
    // Set after `uci`, as a GUI sets options: the lines before it are in the log too (lc0 keeps the last 200).
    engine.send(&set_log);
    sent.extend(engine.ready());
    engine.send("position startpos moves e2e4");
    engine.send("go nodes 30");
    sent.extend(engine.bestmove());
    engine.send(set_bad_log);
    sent.extend(engine.ready());
    let refused = "info string error cannot open LogFile '/nonexistent-dir/kairos.log': ";
    assert!(sent.iter().any(|line| line.starts_with(refused)), "{sent:?}");
    // Back to the first file: a second log is appended, with the lines kept since the first one closed.
    engine.send(&set_log);
    sent.extend(engine.ready());
    sent.extend(engine.quit());
    let logs = logs_in(&path);
    assert_eq!(logs.len(), 2, "{logs:?}");
    let every_line = logs.concat();
    let outputs: Vec<&str> = every_line.iter().filter_map(|line| line.strip_prefix("<< ")).collect();
    assert_eq!(outputs, sent.iter().map(String::as_str).collect::<Vec<_>>(), "every line sent, in order");
    let inputs = |log: &[String]| -> Vec<String> {
        log.iter().filter_map(|line| line.strip_prefix(">> ")).map(str::to_string).collect()
    };
    assert!(logs[0][0].starts_with("Kairos ") && logs[0][1].starts_with("Command line: "), "{logs:?}");
    let expected_first: [&str; 6] =
        ["uci", &set_log, "isready", "position startpos moves e2e4", "go nodes 30", set_bad_log];
    assert_eq!(inputs(&logs[0]), expected_first);
    assert_eq!(inputs(&logs[1]), ["isready", set_log.as_str(), "isready", "quit"]);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn move_stats_are_logged_at_every_best_move_and_with_log_live_stats_at_every_info_update() {
    let path = std::env::temp_dir().join(format!("kairos-live-stats-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let log_flag = format!("--logfile={}", path.display());
    let mut engine = Engine::start(&["--backend=uniform", "--threads=1", &log_flag]);
    let count = |lines: &[String], prefix: &str| lines.iter().filter(|line| line.starts_with(prefix)).count();
    engine.send("position startpos");
    engine.send("go nodes 300");
    let plain = engine.bestmove();
    let stats_sent = plain.iter().filter(|line| line.starts_with("info string") && line.contains(" N: ")).count();
    assert_eq!(stats_sent, 0, "VerboseMoveStats is off: no statistics sent: {plain:?}");
    engine.send("setoption name LogLiveStats value true");
    engine.send("ucinewgame");
    engine.send("position startpos");
    engine.send("go nodes 3000");
    let live = engine.bestmove();
    let updates = count(&live, "info depth");
    assert!(updates >= 3, "several info updates: {live:?}");
    engine.send("setoption name VerboseMoveStats value true");
    engine.send("ucinewgame");
    engine.send("position startpos");
    engine.send("go nodes 3000");
    let sent = engine.bestmove();
    assert_eq!(count(&sent, "info string node "), count(&sent, "info depth"), "with each update: {sent:?}");
    engine.quit();
    let log = logs_in(&path).concat();
    let headers: Vec<usize> = (0..log.len()).filter(|&at| log[at] == "=== Move stats:").collect();
    // One block at the first best move, then one with each info update of the second search (its last one with
    // the best move); the third search sent its statistics instead.
    assert_eq!(headers.len(), 1 + updates, "{log:?}");
    for &at in &headers {
        let block = &log[at + 1..at + 22];
        assert!(block[..20].iter().all(|line| line.contains(" N: ")) && block[20].starts_with("node "), "{block:?}");
    }
    // After each best move's block, lc0's block for the node under the move played: black's twenty replies.
    let played = plain.last().unwrap().split_whitespace().nth(1).unwrap();
    let after = headers[0] + 22;
    assert_eq!(log[after], format!("--- Opponent moves after: {played}"), "{log:?}");
    let replies = &log[after + 1..after + 22];
    assert!(replies[..20].iter().all(|line| line.contains(" N: ")) && replies[20].starts_with("node "), "{replies:?}");
    assert!(replies.iter().any(|line| line.starts_with("e7e5 ")), "black's moves: {replies:?}");
    let opponent_blocks = log.iter().filter(|line| line.starts_with("--- Opponent moves after: ")).count();
    assert_eq!(opponent_blocks, 3, "one a best move, none with the live updates: {log:?}");
    let _ = std::fs::remove_file(&path);
}

/// The engine's whole output for the `commands`, sent at once without reading in between as a script pipes them,
/// then `quit`.
fn output_of_piped_commands(flags: &[&str], commands: &[&str]) -> String {
    let mut engine = Engine::start(flags);
    commands.iter().for_each(|command| engine.send(command));
    engine.quit().join("\n")
}

#[test]
fn wait_lets_a_piped_search_reach_its_limit_before_quit() {
    // 40 visits one at a time, each batch taking 5 ms: about 200 ms of search, which `quit` right after `go` stops
    // early; lc0's `wait` holds `quit` back until the best move is out. A search that holds its best move for
    // `stop` is not waited for.
    let flags =
        ["--backend=uniform", "--threads=1", "--minibatch-size=1", "--max-prefetch=0", "--test-backend-delay-ms=5"];
    let last_nodes = |output: &str| -> u64 {
        let Some(info) = output.lines().rev().find(|line| line.starts_with("info depth")) else {
            return 0;
        };
        field(info, "nodes")
    };
    let waited = output_of_piped_commands(&flags, &["position startpos", "go nodes 40", "wait"]);
    assert!(waited.contains("\nbestmove "), "{waited}");
    assert_eq!(last_nodes(&waited), 40, "{waited}");
    let stopped = output_of_piped_commands(&flags, &["position startpos", "go nodes 40"]);
    assert!(stopped.contains("\nbestmove "), "{stopped}");
    assert!(last_nodes(&stopped) < 40, "{stopped}");
    // Where lc0 would wait for ever (its `stop` unread), Kairos refuses and reads on.
    let infinite = output_of_piped_commands(&flags, &["position startpos", "go infinite", "wait", "stop"]);
    assert!(infinite.contains("info string error wait: this search (go infinite or go ponder)"), "{infinite}");
    assert_eq!(infinite.matches("bestmove ").count(), 1, "{infinite}");
}

#[test]
fn the_networks_warnings_reach_stderr_and_the_log_file() {
    let path = std::env::temp_dir().join(format!("kairos-warning-log-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let log_flag = format!("--logfile={}", path.display());
    let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([log_flag.as_str(), "--backend-device=cuda:7"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().expect("stdin").write_all(b"isready\nquit\n")?;
            child.wait_with_output()
        })
        .expect("kairos runs");
    let warning = "warning: CUDA device 7 is not available; running the network on the CPU";
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.lines().any(|line| line == warning), "{stderr}");
    let log = logs_in(&path).concat();
    let at = log.iter().position(|line| line == warning).unwrap_or_else(|| panic!("the warning is logged: {log:?}"));
    assert!(log[..at].contains(&">> isready".to_string()) && log[at..].contains(&"<< readyok".to_string()), "{log:?}");
    let _ = std::fs::remove_file(&path);
}

/// The binary's `uci` answer and stderr with `args` and the environment `env`, and whether it exited cleanly.
fn uci_answer(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> (Vec<String>, String, bool) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kairos"));
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().expect("stdin").write_all(b"uci\nquit\n")?;
            child.wait_with_output()
        })
        .expect("kairos runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    (stdout.lines().map(str::to_string).collect(), stderr, output.status.success())
}

#[test]
fn a_configuration_file_sets_flags_before_the_command_line_as_lc0s() {
    let dir = std::env::temp_dir().join(format!("kairos-uci-config-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("kairos")).unwrap();
    let named = dir.join("named.config");
    std::fs::write(&named, "# the GUI passes no flags\nmultipv=3\n  --show-wdl  \n--threads=2\n").unwrap();
    let config = format!("--config={}", named.display());
    let (lines, stderr, ok) = uci_answer(&[&config, "--threads=1"], &[]);
    assert!(ok && stderr.contains(&format!("Found configuration file: {}", named.display())), "{stderr}");
    assert!(lines.contains(&"option name MultiPV type spin default 3 min 1 max 500".to_string()), "{lines:?}");
    assert!(lines.contains(&"option name UCI_ShowWDL type check default true".to_string()), "{lines:?}");
    let threads = "option name Threads type spin default 1 min 0 max 128".to_string();
    assert!(lines.contains(&threads), "the command line wins: {lines:?}");
    // Without --config: kairos.config in $XDG_CONFIG_HOME/kairos, as lc0 looks in its user directory.
    std::fs::write(dir.join("kairos").join("kairos.config"), "multipv=4\n").unwrap();
    let (lines, _, ok) = uci_answer(&[], &[("XDG_CONFIG_HOME", dir.as_os_str())]);
    assert!(ok && lines.contains(&"option name MultiPV type spin default 4 min 1 max 500".to_string()), "{lines:?}");
    let (lines, _, ok) = uci_answer(&["--config="], &[("XDG_CONFIG_HOME", dir.as_os_str())]);
    assert!(ok && lines.contains(&"option name MultiPV type spin default 1 min 1 max 500".to_string()), "{lines:?}");
    // A wrong flag in the file ends the start with the file named.
    std::fs::write(&named, "multipv=3\nmulti-pv=3\n").unwrap();
    let (lines, stderr, ok) = uci_answer(&[&config], &[]);
    assert!(!ok && lines.is_empty(), "{lines:?}");
    let expected = format!("in the configuration file {}: unknown flag '--multi-pv'", named.display());
    assert!(stderr.contains(&expected), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn log_file_stamps_are_local_time_as_date_gives_it() {
    // A zone 5 h 30 min east of UTC, written in POSIX's form so that it needs no time-zone database.
    const ZONE: &str = "IST-5:30";
    let path = std::env::temp_dir().join(format!("kairos-uci-log-zone-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let date = || {
        let output = Command::new("date").env("TZ", ZONE).arg("+%m%d %H:%M").output().expect("date runs");
        String::from_utf8(output.stdout).expect("UTF-8").trim().to_string()
    };
    let before = date();
    let log_file = format!("--logfile={}", path.display());
    let (_, _, ok) = uci_answer(&["--backend=uniform", &log_file], &[("TZ", ZONE.as_ref())]);
    let after = date();
    assert!(ok);
    let text = std::fs::read_to_string(&path).expect("the log was written");
    let uci = text.lines().find(|line| line.ends_with(" >> uci")).expect("the uci line is logged");
    assert!([&before, &after].contains(&&uci[..10].to_string()), "{uci:?}: not {before} or {after}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn moves_out_of_book_count_from_the_games_first_search() {
    let path = std::env::temp_dir().join(format!("kairos-uci-book-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let trace = format!("--tm-trace-file={}", path.display());
    let flags = ["--backend=uniform", "--threads=1", "--time-manager=legacy(out-of-book-factor=true)", &trace];
    let mut engine = Engine::start(&flags);
    // The GUI's book plays 1. e4 e5; the engine is then asked for white's moves at plies 2, 4 and 6 (the
    // game goes on with fixed moves: only the count matters).
    for moves in ["e2e4 e7e5", "e2e4 e7e5 g1f3 b8c6", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"] {
        engine.send(&format!("position startpos moves {moves}"));
        engine.send("go wtime 60000 btime 60000 movetime 30");
        engine.bestmove();
    }
    engine.send("ucinewgame");
    engine.send("position startpos moves d2d4 d7d5");
    engine.send("go wtime 60000 btime 60000 movetime 30");
    engine.bestmove();
    engine.quit();
    let text = std::fs::read_to_string(&path).expect("trace file written");
    let factors: Vec<f64> = text
        .lines()
        .map(|line| {
            let trace: serde_json::Value = serde_json::from_str(line).unwrap();
            let step = |name: &str| {
                trace["steps"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()["value"]
                    .as_f64()
                    .unwrap()
            };
            step("adjusted_ms (out-of-book factor)") / step("allocated_ms")
        })
        .collect();
    // Cray Blitz: 2 − n/10 for the n-th own move after the book; a new game starts counting again.
    let expected = [1.9, 1.8, 1.7, 1.9];
    assert_eq!(factors.len(), expected.len(), "{text}");
    for (factor, expected) in factors.iter().zip(expected) {
        assert!((factor - expected).abs() < 1e-9, "{factors:?}");
    }
    let _ = std::fs::remove_file(&path);
}

/// Plays `plies` moves of a self-play game on the virtual clock, deducting the virtual time reported
/// by the final `info` of each move; returns the moves and each move's (deadline, used) from the trace.
fn virtual_clock_game(plies: usize) -> (Vec<String>, Vec<(i64, i64)>) {
    let mut engine = Engine::start(&[
        "--backend=random", "--threads=1", "--minibatch-size=8", "--virtual-clock", "--virtual-nps=2000",
        "--virtual-batch-cost-ms=2", "--move-overhead=50",
    ]);
    engine.send("ucinewgame");
    let mut clocks = [3000i64, 3000i64];
    let (mut moves, mut budgets) = (Vec::new(), Vec::new());
    for ply in 0..plies {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        engine.send(&format!("go wtime {} btime {} winc 20 binc 20", clocks[0], clocks[1]));
        let answer = engine.bestmove();
        let last_info = answer.iter().rev().find(|line| line.starts_with("info depth")).expect("an info line");
        let used: i64 = last_info.split_whitespace().nth(6).unwrap().parse().unwrap();
        clocks[ply % 2] += 20 - used;
        moves.push(best_of(answer.last().unwrap()).to_string());
        let summary = engine.read_until(|line| line.starts_with("info string tm"));
        let words: Vec<&str> = summary.last().unwrap().split_whitespace().collect();
        let after = |key: &str| -> i64 {
            let at = words.iter().position(|word| *word == key).unwrap_or_else(|| panic!("{key} in {words:?}"));
            words[at + 1].parse().unwrap()
        };
        budgets.push((after("deadline"), after("used")));
    }
    engine.quit();
    (moves, budgets)
}

#[test]
fn virtual_clock_games_replay_move_for_move_and_keep_the_deadline_within_one_batch() {
    let (moves, budgets) = virtual_clock_game(8);
    let (again, budgets_again) = virtual_clock_game(8);
    assert_eq!(moves, again, "the same game on the virtual clock");
    assert_eq!(budgets, budgets_again, "the same budgets and times");
    // One batch on this clock: 2 ms plus its playouts at 2000/s. As in lc0, a batch holds up to 8 network
    // evaluations plus up to 2.4 × 8 = 19 out-of-order results (cache hits, proven nodes): 2 + 27/2 = 15.5 ms.
    for (deadline, used) in &budgets {
        assert!(*used <= deadline + 16, "used {used} ms against a deadline of {deadline} ms");
    }
    assert!(budgets.iter().any(|(_, used)| *used > 0), "virtual time moves: {budgets:?}");
}

/// One command of a random session, with how many `bestmove` lines it can cause.
fn random_command(rng: &mut ChaCha8Rng, moves: &mut Vec<String>) -> String {
    match rng.random_range(0..12) {
        0 => "isready".into(),
        1 => "stop".into(),
        2 => "ucinewgame".into(),
        3 => {
            if rng.random_bool(0.5) {
                moves.clear();
            }
            let position = position_after(None, &moves.iter().map(String::as_str).collect::<Vec<_>>());
            let legal = position.legal_moves();
            if !legal.is_empty() && rng.random_bool(0.8) {
                let mv = legal[rng.random_range(0..legal.len())].to_uci(CastlingMode::Standard).to_string();
                moves.push(mv);
            }
            format!("position startpos moves {}", moves.join(" "))
        }
        4 => format!("go nodes {}", rng.random_range(1..200)),
        5 => format!("go wtime {} btime {} winc 10 binc 10", rng.random_range(0..500), rng.random_range(0..500)),
        6 => "go infinite".into(),
        7 => "go ponder wtime 300 btime 300".into(),
        8 => "ponderhit".into(),
        9 => format!("go movetime {}", rng.random_range(0..50)),
        10 => ["position startpos moves a1a8", "setoption name Threads value 2", "gibberish", "go depth 2"]
            [rng.random_range(0..4)]
        .into(),
        _ => "position fen 8/8/8/4k3/8/8/4P3/4K3 w - - 0 1".into(),
    }
}

#[test]
fn random_command_sequences_never_hang_and_answer_every_go_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(20240601);
    for _ in 0..12 {
        let mut engine = Engine::start(&["--backend=uniform", "--threads=2", "--minibatch-size=4"]);
        let (mut gos, mut moves, mut lines) = (0, Vec::new(), Vec::new());
        for _ in 0..25 {
            let command = random_command(&mut rng, &mut moves);
            gos += usize::from(command.starts_with("go"));
            engine.send(&command);
        }
        engine.send("stop");
        lines.extend(engine.ready());
        lines.extend(engine.quit());
        let bestmoves = lines.iter().filter(|line| line.starts_with("bestmove")).count();
        assert_eq!(bestmoves, gos, "{lines:?}");
    }
}

#[test]
fn real_network_searches_the_start_position() {
    // fp32 as lc0's blas backend, whatever Precision=auto would pick on this CPU.
    let mut engine = Engine::start(&["--threads=1", "--backend-device=cpu", "--precision=fp32"]);
    let ready = engine.ready();
    assert!(errors(&ready).is_empty(), "the default network loads: {ready:?}");
    let backend = "info string Backend: torch on cpu, fp32 (Precision set explicitly)";
    assert!(ready.iter().any(|line| line == backend), "the start-up report names the precision and why: {ready:?}");
    engine.send("setoption name UCI_ShowWDL value true");
    engine.send("position startpos");
    engine.send("go nodes 1");
    let answer = engine.bestmove();
    let info = answer.iter().rev().find(|line| line.starts_with("info depth")).expect("an info line");
    assert!(info.contains(" score cp 62 "), "lc0 reports cp 62 for Maia-1900 at the start position: {info}");
    // lc0 shows the raw (WL, D) = (0.033732, 0.054669) through its display transform, as (0.03279, 0.052) in
    // its verbose output (docs/lc0/search.md §4.11); unrounded (0.0327853, 0.0517728), so
    // W = round(500·(1 + 0.0327853 − 0.0517728)) = round(490.51) = 491, L = round(457.72) = 458, D = 51.
    // The raw pair would give 490 54 456.
    assert!(info.contains(" wdl 491 51 458 "), "{info}");
    engine.send("setoption name ScoreType value Q");
    // A new game drops the tree, so this search is again the root's single evaluation.
    engine.send("ucinewgame");
    engine.send("position startpos");
    engine.send("go nodes 1");
    let answer = engine.bestmove();
    let info = answer.iter().rev().find(|line| line.starts_with("info depth")).expect("an info line");
    assert!(info.contains(" score cp 337 "), "Q = 0.033732 shows as trunc(10000·Q): {info}");
    assert!(info.contains(" wdl 490 54 456 "), "only WDL_mu transforms the W/D/L: {info}");
    engine.send("setoption name ScoreType value WDL_mu");
    engine.send("go nodes 200");
    let answer = engine.bestmove();
    assert!(is_legal(&Chess::default(), best_of(answer.last().unwrap())));
    answer
        .iter()
        .filter(|line| line.starts_with("info"))
        .for_each(|line| assert_well_formed_info(line, &Chess::default()));
    engine.quit();
}

#[test]
fn time_manager_state_lives_for_one_game() {
    let path = std::env::temp_dir().join(format!("kairos-uci-tm-state-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let flag = format!("--tm-trace-file={}", path.display());
    let mut engine =
        Engine::start(&["--backend=random", "--threads=1", "--virtual-clock", "--time-manager=smooth", &flag]);
    for command in [
        "position startpos",
        "position startpos moves e2e4",
        "ucinewgame",
        "position startpos",
        "position startpos moves d2d4",
        "position fen 8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    ] {
        engine.send(command);
        if command.starts_with("position") {
            engine.send("go wtime 3000 btime 3000");
            engine.bestmove();
            engine.read_until(|line| line.starts_with("info string tm"));
        }
    }
    engine.quit();
    let states: Vec<serde_json::Value> = std::fs::read_to_string(&path)
        .expect("trace file written")
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["state_before"].clone())
        .collect();
    assert_eq!(states.len(), 5);
    assert_ne!(states[1], states[0], "the second move of a game starts from what the first taught");
    assert_eq!(states[2], states[0], "ucinewgame starts a fresh manager");
    assert_ne!(states[3], states[0], "a continuation keeps the manager");
    assert_eq!(states[4], states[0], "a position that does not continue the game starts a fresh manager");
    let _ = std::fs::remove_file(&path);
}

#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_named_without_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let argument = std::ffi::OsStr::from_bytes(b"--weights=\xff.pb.gz");
    let output =
        Command::new(env!("CARGO_BIN_EXE_kairos")).arg(argument).stdin(Stdio::null()).output().expect("kairos runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: argument --weights=\u{fffd}.pb.gz is not valid UTF-8;"), "{stderr}");
}
