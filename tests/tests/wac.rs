//! Win At Chess at a fixed node count with the default network: how many of the 300 tactical positions
//! the search solves, as a regression guard (the count is recorded in BENCHMARKS.md).

use engine::bench::Bench;
use engine::options::EngineOptions;
use kairos_tests::{default_weights, reference_text};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess};
use timemgr::GoParams;

/// Nodes per position: small enough for CI on two cores, large enough for the search to matter.
const NODES: u64 = 200;
/// 84 solved with one thread at 200 nodes when this test was written (Maia-1900 is a human-like network, weak
/// at tactics); a little slack allows for float differences between CPUs.
const SOLVED_FLOOR: usize = 80;

/// One EPD line: the FEN and the best moves in UCI notation.
fn parse_wac_line(line: &str) -> (String, Vec<String>) {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let fen = format!("{} 0 1", fields[..4].join(" "));
    let position: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
    let operations = fields[4..].join(" ");
    let best = operations.split(';').find_map(|op| op.trim().strip_prefix("bm ")).expect("a bm operation");
    let moves = best
        .split_whitespace()
        .map(|san| {
            let mv = san.parse::<San>().unwrap().to_move(&position).unwrap();
            UciMove::from_standard(mv).to_string()
        })
        .collect();
    (fen, moves)
}

#[test]
fn wac_solved_count_at_a_fixed_node_count() {
    let options = EngineOptions {
        weights_file: default_weights().to_string_lossy().into_owned(),
        threads: 1,
        ..EngineOptions::default()
    };
    let mut bench = Bench::open(&options).expect("open the default network");
    let go = GoParams { nodes: Some(NODES), ..GoParams::default() };
    let suite = reference_text("wac.epd");
    let mut solved = Vec::new();
    let mut total = 0;
    for line in suite.lines().filter(|line| !line.trim().is_empty()) {
        let (fen, best_moves) = parse_wac_line(line);
        let result = bench.search(&fen, &go).expect("search");
        total += 1;
        if best_moves.contains(&result.best_move) {
            solved.push(total);
        }
    }
    assert_eq!(total, 300);
    println!("WAC at {NODES} nodes, 1 thread: {} of {total} solved", solved.len());
    assert!(solved.len() >= SOLVED_FLOOR, "solved {} < floor {SOLVED_FLOOR}", solved.len());
}

#[test]
fn wac_lines_parse_into_legal_best_moves() {
    let (fen, moves) = parse_wac_line(r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#);
    assert_eq!(fen, "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1");
    assert_eq!(moves, vec!["g3g6"]);
}
