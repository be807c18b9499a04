//! `kairos bench` and `kairos benchmark`.
//!
//! `bench` searches a fixed set of middlegames for a fixed number of nodes each on one thread, so its
//! node count is a deterministic signature of the search; its last line is OpenBench's `N nodes M nps`.
//! `benchmark` is lc0's timed benchmark (docs/lc0/backends.md §6.5): a time and/or node limit per position, no smart
//! pruning, and lc0's totals block.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{bail, Context};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, EnPassantMode, Move, Position};
use timemgr::{build_stopper_chain, CommonStopperOptions, GoParams, MoveContext};

use crate::clock::{SharedClock, WallClock};
use crate::options::EngineOptions;
use crate::position::GameState;
use crate::search::{Search, SearchEvent, SearchOutcome, SearchRequest};

/// Varied middlegames from the standard (Stockfish) bench set.
pub const BENCH_POSITIONS: &[&str] = &[
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14",
    "r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
];

/// lc0's `benchmark` positions (Stockfish's bench set, some with moves after the FEN), in lc0's order, so that
/// `kairos benchmark` and `lc0 benchmark` search the same positions (docs/lc0/backends.md §6.5).
pub const BENCHMARK_POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14 moves d4e6",
    "r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14 moves g2g4",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
    "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
    "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1 moves g5g6 f3e3 g6g5 e3f3",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    "8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
    "8/3p4/p1bk3p/Pp6/1Kp1PpPp/2P2P1P/2P5/5B2 b - - 0 1",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "6k1/6p1/P6p/r1N5/5p2/7P/1b3PP1/4R1K1 w - - 0 1",
    "1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1",
    "6k1/4pp1p/3p2p1/P1pPb3/R7/1r2P1PP/3B1P2/6K1 w - - 0 1",
    "8/3p3B/5p2/5P2/p7/PP5b/k7/6K1 w - - 0 1",
    "5rk1/q6p/2p3bR/1pPp1rP1/1P1Pp3/P3B1Q1/1K3P2/R7 w - - 93 90",
    "4rrk1/1p1nq3/p7/2p1P1pp/3P2bp/3Q1Bn1/PPPB4/1K2R1NR w - - 40 21",
    "r3k2r/3nnpbp/q2pp1p1/p7/Pp1PPPP1/4BNN1/1P5P/R2Q1RK1 w kq - 0 16",
    "3Qb1k1/1r2ppb1/pN1n2q1/Pp1Pp1Pr/4P2p/4BP2/4B1R1/1R5K b - - 11 40",
];

/// Nodes per position of `kairos bench` unless `--nodes` says otherwise.
pub const DEFAULT_BENCH_NODES: u64 = 1000;
/// Milliseconds per position of `kairos benchmark` (lc0's default).
pub const DEFAULT_BENCHMARK_MOVETIME_MS: i64 = 10_000;
/// NN cache entries of both benchmarks (lc0's benchmark default).
const BENCH_CACHE_SIZE: i64 = 200_000;

/// What one benchmarked search produced.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionResult {
    /// The move chosen, in UCI notation (`0000` without a legal move).
    pub best_move: String,
    /// Playouts of the search.
    pub nodes: u64,
    /// Wall milliseconds of the search.
    pub time_ms: u64,
}

/// Runs `kairos bench [--nodes=N] [engine flags]`: prints one line per position and `N nodes M nps` last.
pub fn run_bench(args: &[String]) -> anyhow::Result<()> {
    let mut options = EngineOptions { threads: 1, nn_cache_size: BENCH_CACHE_SIZE, ..EngineOptions::default() };
    let mut nodes = DEFAULT_BENCH_NODES;
    for (flag, value) in options.apply_cli_flags(args, &["nodes"])? {
        if flag == "nodes" {
            nodes = parse_flag(&flag, &value, "a positive number of nodes")?;
            if nodes == 0 {
                bail!("--nodes=0: expected a positive number of nodes");
            }
        }
    }
    let go = GoParams { nodes: Some(nodes), ..GoParams::default() };
    let mut bench = Bench::open(&options)?;
    println!("Backend: {}", bench.description);
    #[cfg(feature = "stage-timing")]
    nn::stage_timing::reset();
    let (mut total_nodes, mut total_ms) = (0u64, 0u64);
    for (index, fen) in BENCH_POSITIONS.iter().enumerate() {
        let result = bench.search(fen, &go)?;
        println!(
            "Position {:>2}/{}: bestmove {} nodes {} time {} ms  {fen}",
            index + 1,
            BENCH_POSITIONS.len(),
            result.best_move,
            result.nodes,
            result.time_ms
        );
        total_nodes += result.nodes;
        total_ms += result.time_ms;
    }
    println!("{total_nodes} nodes {} nps", total_nodes * 1000 / total_ms.max(1));
    #[cfg(feature = "stage-timing")]
    print_stage_table(total_nodes, total_ms);
    Ok(())
}

/// Prints where the searches of `bench` or `benchmark` spent their time, stage by stage (the `stage-timing` feature,
/// #12).
#[cfg(feature = "stage-timing")]
fn print_stage_table(total_nodes: u64, total_ms: u64) {
    let totals = nn::stage_timing::totals();
    // The network thread's stages are spent while a search thread waits in `Network`: part of it, not added to it.
    let sum_ms: f64 = totals
        .iter()
        .filter(|total| !total.stage.on_network_thread())
        .map(|total| total.time.as_secs_f64() * 1000.0)
        .sum();
    println!();
    println!("Stage timing: {total_nodes} nodes, {total_ms} ms of search wall time");
    println!("{:<34} {:>10} {:>7} {:>9} {:>9}", "stage", "total ms", "share", "us/node", "entries");
    for total in &totals {
        let ms = total.time.as_secs_f64() * 1000.0;
        println!(
            "{:<34} {:>10.1} {:>6.1}% {:>9.1} {:>9}",
            total.stage.name(),
            ms,
            100.0 * ms / sum_ms.max(f64::MIN_POSITIVE),
            ms * 1000.0 / total_nodes.max(1) as f64,
            total.entries
        );
    }
    println!(
        "{:<34} {:>10.1} {:>6.1}% {:>9.1}   ({:.1}% of the search wall time; over 100% with several threads)",
        "all stages",
        sum_ms,
        100.0,
        sum_ms * 1000.0 / total_nodes.max(1) as f64,
        100.0 * sum_ms / total_ms.max(1) as f64
    );
    println!("(the network thread's rows are part of \"run the network\" and not in the sum)");
}

/// Runs `kairos benchmark [--movetime=MS] [--nodes=N] [--num-positions=K] [--fen=FEN] [engine flags]`
/// with lc0's output format.
pub fn run_benchmark(args: &[String]) -> anyhow::Result<()> {
    let mut options = EngineOptions { threads: 2, nn_cache_size: BENCH_CACHE_SIZE, ..EngineOptions::default() };
    let mut go = GoParams { movetime: Some(DEFAULT_BENCHMARK_MOVETIME_MS), ..GoParams::default() };
    let mut positions: Vec<String> = BENCHMARK_POSITIONS.iter().map(|fen| fen.to_string()).collect();
    let mut num_positions = positions.len();
    for (flag, value) in options.apply_cli_flags(args, &["movetime", "nodes", "num-positions", "fen"])? {
        match flag.as_str() {
            "movetime" => {
                let movetime: i64 = parse_flag(&flag, &value, "milliseconds")?;
                go.movetime = (movetime >= 0).then_some(movetime);
            }
            "nodes" => {
                let nodes: i64 = parse_flag(&flag, &value, "a number of nodes")?;
                go.nodes = u64::try_from(nodes).ok().filter(|n| *n > 0);
            }
            "num-positions" => num_positions = parse_flag(&flag, &value, "a number of positions")?,
            _ => positions = vec![value],
        }
    }
    if go.movetime.is_none() && go.nodes.is_none() {
        bail!("benchmark needs a limit: give --movetime=MS (default 10000) or --nodes=N");
    }
    positions.truncate(num_positions.max(1));
    let mut bench = Bench::open(&options)?;
    println!("Backend: {}", bench.description);
    #[cfg(feature = "stage-timing")]
    nn::stage_timing::reset();
    let (mut total_nodes, mut total_ms) = (0u64, 0u64);
    for (index, fen) in positions.iter().enumerate() {
        println!("\nPosition: {}/{} {fen}", index + 1, positions.len());
        let result = bench.search(fen, &go)?;
        let nps = result.nodes * 1000 / result.time_ms.max(1);
        println!("Benchmark time {} ms, {} nodes, {nps} nps, move {}", result.time_ms, result.nodes, result.best_move);
        println!("bestmove {}", result.best_move);
        total_nodes += result.nodes;
        total_ms += result.time_ms;
    }
    println!("\n===========================");
    println!("Total time (ms) : {total_ms}");
    println!("Nodes searched  : {total_nodes}");
    println!("Nodes/second    : {}", (1000.0 * total_nodes as f64 / (total_ms + 1) as f64).round() as u64);
    #[cfg(feature = "stage-timing")]
    print_stage_table(total_nodes, total_ms);
    Ok(())
}

/// Parses a benchmark flag's value, naming the flag and what it expects on failure.
fn parse_flag<T: std::str::FromStr>(flag: &str, value: &str, expected: &str) -> anyhow::Result<T> {
    value.trim().parse().ok().with_context(|| format!("--{flag}={value}: expected {expected}"))
}

/// A backend and a search configured from engine options, searching one position at a time.
pub struct Bench {
    search: Search,
    backend: Arc<dyn nn::Backend>,
    stopper_options: CommonStopperOptions,
    /// What the backend runs on, for the first line of `bench` and `benchmark`.
    pub description: String,
}

/// Whether a search starts from an empty tree or goes on with the tree of the last search of the same game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeUse {
    /// Forget the tree (the network cache stays).
    Fresh,
    /// Keep the tree: `go nodes` then counts the visits already in it.
    Continue,
}

impl Bench {
    /// Opens the backend the options name and builds a search on it.
    pub fn open(options: &EngineOptions) -> anyhow::Result<Self> {
        let mut backend_options = options.backend_options()?;
        backend_options.cache_size = usize::try_from(options.nn_cache_size).unwrap_or(usize::MAX);
        let (backend, description) = nn::open_backend_described(&backend_options)?;
        let stopper_options = CommonStopperOptions { smart_pruning_factor: 0.0, ..options.common_stopper_options() };
        let search = Search::new(Arc::clone(&backend), options.search_params());
        Ok(Self { search, backend, stopper_options, description })
    }

    /// Searches `position` (a FEN, optionally followed by `moves` and UCI moves, as lc0's benchmark positions)
    /// from an empty tree under the limits of `go` (no time manager, no smart pruning).
    pub fn search(&mut self, position: &str, go: &GoParams) -> anyhow::Result<PositionResult> {
        let (fen, moves) = match position.split_once(" moves ") {
            Some((fen, moves)) => (fen, moves.split_whitespace().collect()),
            None => (position, Vec::new()),
        };
        let game = GameState::from_uci(Some(fen), &moves)?;
        if game.position().legal_moves().is_empty() {
            return Ok(PositionResult { best_move: "0000".into(), nodes: 0, time_ms: 0 });
        }
        let started = Instant::now();
        let outcome = self.search_game(&game, go, TreeUse::Fresh)?;
        let time_ms = started.elapsed().as_millis() as u64;
        let best_move =
            outcome.best.map_or_else(|| "0000".to_string(), |mv| mv.to_uci(CastlingMode::Standard).to_string());
        Ok(PositionResult { best_move, nodes: outcome.stats.nodes_since_movestart, time_ms })
    }

    /// Forgets the tree and the network cache, so that the next search depends on nothing searched before.
    pub fn forget(&mut self) {
        self.search.reset();
        self.backend.clear_cache();
    }

    /// Searches the game's current position under the limits of `go` (no time manager, no smart pruning),
    /// from an empty tree or going on with the last one.
    pub fn search_game(&mut self, game: &GameState, go: &GoParams, tree: TreeUse) -> anyhow::Result<SearchOutcome> {
        let position = game.position();
        if tree == TreeUse::Fresh {
            self.search.reset();
        }
        self.search.set_position(game);
        let context = MoveContext {
            white_to_move: position.turn().is_white(),
            game_ply: game.game_ply(),
            legal_moves: position.legal_moves().len(),
            piece_count: position.board().occupied().count() as u32,
            ..MoveContext::default()
        };
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink_errors = Arc::clone(&errors);
        let sink = Box::new(move |event: SearchEvent| {
            if let SearchEvent::Error(message) = event {
                sink_errors.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(message);
            }
        });
        let clock: SharedClock = Arc::new(WallClock::new());
        let request = SearchRequest::new(build_stopper_chain(None, go, &context, &self.stopper_options), clock);
        let outcome = self.search.start(request, sink).wait();
        let fen = || Fen::from_position(position, EnPassantMode::Legal).to_string();
        let errors = errors.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).join("; ");
        if !errors.is_empty() {
            bail!("search of {} failed: {errors}", fen());
        }
        outcome.with_context(|| format!("search of {} ended without a best move", fen()))
    }

    /// The Q of a root move after the last search, from the side to move's view (None if it has no visits).
    pub fn root_q(&self, mv: &Move) -> Option<f32> {
        self.search.root_q(mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmark_positions_are_lc0s_and_every_move_after_them_is_legal() {
        assert_eq!(BENCHMARK_POSITIONS.len(), 34, "lc0's benchmark has 34 positions");
        assert_eq!(BENCHMARK_POSITIONS[0], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let mut with_moves = 0;
        for position in BENCHMARK_POSITIONS {
            let (fen, moves) = position.split_once(" moves ").unwrap_or((position, ""));
            let moves: Vec<&str> = moves.split_whitespace().collect();
            with_moves += usize::from(!moves.is_empty());
            let game = GameState::from_uci(Some(fen), &moves).unwrap_or_else(|e| panic!("{position}: {e}"));
            assert!(!game.position().legal_moves().is_empty(), "{position} has a move to search");
        }
        assert_eq!(with_moves, 3, "three of lc0's positions go on with moves");
    }

    #[test]
    fn a_benchmark_position_with_moves_is_searched_after_them() {
        let mut bench = Bench::open(&EngineOptions { backend: nn::BackendKind::Uniform, ..EngineOptions::default() })
            .expect("a uniform backend opens");
        let go = GoParams { nodes: Some(50), ..GoParams::default() };
        // After 1. e4 it is Black's move: a White move as the best move would mean the moves were ignored.
        let start_then_e4 = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4";
        let result = bench.search(start_then_e4, &go).unwrap();
        let black_moves: Vec<String> = GameState::from_uci(None, &["e2e4"])
            .unwrap()
            .position()
            .legal_moves()
            .iter()
            .map(|mv| mv.to_uci(CastlingMode::Standard).to_string())
            .collect();
        assert!(black_moves.contains(&result.best_move), "{} is a move of Black's after 1. e4", result.best_move);
    }

    #[test]
    fn bench_positions_are_legal_middlegames_with_moves() {
        for fen in BENCH_POSITIONS {
            let game = GameState::from_uci(Some(fen), &[]).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert!(game.position().legal_moves().len() > 10, "{fen}");
            assert!(game.position().board().occupied().count() >= 20, "{fen} is no middlegame");
            assert_eq!(
                &Fen::from_position(game.position(), EnPassantMode::Legal).to_string(),
                fen,
                "the FEN round-trips"
            );
        }
    }
}
