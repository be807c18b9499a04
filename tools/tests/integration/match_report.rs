//! `kairos match-report` on hand-made records with hand-worked numbers.

use tools::report::{usage_by_engine, EngineUsage, GameEnd, Summary};
use tools::runner::{GameRecord, GameResult, MoveRecord, Opening, ResultsLog, Termination, Variant};
use tools::{run_match_report, MatchReportArgs};

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

fn mv(time: u64, clock: i64, nodes: u64) -> MoveRecord {
    MoveRecord {
        uci: "a2a3".into(),
        time_used_ms: time,
        wall_ms: None,
        clock_left_ms: Some(clock),
        nodes: Some(nodes),
        depth: Some(3),
        seldepth: None,
        score: None,
    }
}

fn game(
    game_id: u64,
    white: &str,
    black: &str,
    book: &[&str],
    termination: Termination,
    moves: Vec<MoveRecord>,
) -> GameRecord {
    GameRecord {
        game_id,
        pair_id: game_id / 2,
        white: white.into(),
        black: black.into(),
        white_time_control: "1+0".into(),
        black_time_control: "1+0".into(),
        opening: Opening { fen: Opening::startpos().fen, moves: book.iter().map(|m| m.to_string()).collect() },
        variant: Variant::Standard,
        result: GameResult::Draw,
        termination,
        reason: String::new(),
        moves,
        white_engine: None,
        black_engine: None,
        machine: None,
        started: None,
        ended: None,
    }
}

fn games() -> Vec<GameRecord> {
    vec![
        // No book: "a" (white) moves at plies 1 and 3; "b" flags on its second move.
        game(0, "a", "b", &[], Termination::TimeForfeit, vec![mv(100, 900, 10), mv(200, 800, 20), mv(300, 600, 30)]),
        // One book ply: black ("a") moves first after the book.
        game(1, "b", "a", &["e2e4"], Termination::MaxPlies, vec![mv(50, 950, 40), mv(70, 930, 50), mv(150, 800, 60)]),
    ]
}

#[test]
fn usage_assigns_moves_to_the_right_engine() {
    let engines = usage_by_engine(&games());
    let (name_a, a) = &engines[0];
    let (name_b, b) = &engines[1];
    assert_eq!((name_a.as_str(), name_b.as_str()), ("a", "b"));
    assert_eq!((a.games, a.flags, b.flags), (2, 0, 1));
    assert_eq!(a.time_by_move[&1], vec![100.0, 50.0]);
    assert_eq!(a.time_by_move[&2], vec![300.0, 150.0]);
    assert_eq!(b.time_by_move[&1], vec![200.0, 70.0]);
    assert_eq!(a.clock_by_ply[&1], vec![900.0, 950.0]);
    assert_eq!(a.clock_by_ply[&3], vec![600.0, 800.0]);
    assert_eq!(a.clock_at_end, vec![600.0, 800.0]);
    assert_eq!(b.clock_at_end, vec![800.0, 930.0]);
    let nodes = Summary::of(&a.nodes).unwrap();
    assert_eq!(nodes.mean, 35.0);
    let deviation = ((25.0f64.powi(2) + 5.0f64.powi(2) + 5.0f64.powi(2) + 25.0f64.powi(2)) / 4.0).sqrt();
    assert!((nodes.coefficient_of_variation - deviation / 35.0).abs() < 1e-15);
}

#[test]
fn report_writes_plots_and_summary() {
    let dir = std::env::temp_dir().join(format!("kairos-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let results = dir.join("results.jsonl");
    let (mut log, previous) = ResultsLog::open(&results, false).unwrap();
    assert!(previous.is_empty());
    games().iter().for_each(|g| log.append(g).unwrap());
    let out = dir.join("report");
    let args = MatchReportArgs { results: Some(results), out: Some(out.clone()), trace: Vec::new(), verdicts: None };
    run_match_report(args).unwrap();
    for stem in ["time-per-move", "clock-by-ply", "tree-size"] {
        for ext in ["png", "svg"] {
            let path = out.join(format!("{stem}.{ext}"));
            assert!(std::fs::metadata(&path).map(|m| m.len() > 1000).unwrap_or(false), "{} written", path.display());
        }
    }
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("| a | 2 | 0 | 700 / 700 / 600 | - | 35 |"),
        "no game is longer than the median: {summary}"
    );
    assert!(summary.contains("| b | 2 | 1 |"), "{summary}");
    assert!(summary.contains("| 2 | 2 | 225 | 225 | 300 | 700 |"), "{summary}");
    assert!(!summary.contains("Played:"), "games without times say nothing of when: {summary}");

    // The second game played first, from 23:59:40 to 00:00:20 the next day (UTC); the first one after it.
    let moment = |text: &str| Some(OffsetDateTime::parse(text, &Rfc3339).unwrap());
    let mut timed = games();
    (timed[0].started, timed[0].ended) = (moment("2026-12-04T00:00:21Z"), moment("2026-12-04T00:01:02Z"));
    (timed[1].started, timed[1].ended) = (moment("2026-12-03T23:59:40Z"), moment("2026-12-04T00:00:20Z"));
    let timed_results = dir.join("timed.jsonl");
    let (mut log, _) = ResultsLog::open(&timed_results, false).unwrap();
    timed.iter().for_each(|g| log.append(g).unwrap());
    let args =
        MatchReportArgs { results: Some(timed_results), out: Some(out.clone()), trace: Vec::new(), verdicts: None };
    run_match_report(args).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("\nPlayed: 2026-12-03T23:59:40Z to 2026-12-04T00:01:02Z (UTC).\n"), "{summary}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn evenness_window_and_clock_left_in_long_games() {
    let mut usage = EngineUsage::default();
    for (number, nodes) in [(9, 1.0), (10, 100.0), (60, 300.0), (61, 1000.0)] {
        usage.nodes_by_move.insert(number, vec![nodes]);
    }
    // Own moves 10 and 60 only: mean 200, deviation 100.
    assert_eq!(usage.evenness().map(|s| (s.count, s.coefficient_of_variation)), Some((2, 0.5)));
    for (plies, clock_left_ms) in [(10, 100.0), (20, 50.0), (30, 20.0), (40, 40.0)] {
        usage.game_ends.push(GameEnd { plies, clock_left_ms, base_ms: 1000.0 });
    }
    // Median 25 plies: the 30- and 40-ply games left 20 and 40 ms of 1000, 3 % on average.
    assert!((usage.clock_left_in_long_games().unwrap() - 0.03).abs() < 1e-12);
    let engines = usage_by_engine(&games());
    assert_eq!(engines[0].1.game_ends[0], GameEnd { plies: 3, clock_left_ms: 600.0, base_ms: 1000.0 });
}
