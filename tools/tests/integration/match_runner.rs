//! The match runner against the scripted fake engine (examples/fake_uci.rs) and, when installed, Stockfish.

use crate::common;

use common::fake_engine_path;

use std::path::PathBuf;

use tools::runner::{
    play_games, EngineConfig, Flow, GameRecord, GameResult, GameSettings, MatchPlan, Opening, Termination, TimeControl,
    Tournament,
};

fn fake(name: &str, args: &[&str], tc: &str) -> EngineConfig {
    EngineConfig {
        name: name.into(),
        command: fake_engine_path(),
        args: args.iter().map(|a| a.to_string()).collect(),
        options: Vec::new(),
        time_control: tc.parse::<TimeControl>().unwrap(),
        speaks_virtual_clock: true,
    }
}

fn plan(engines: Vec<EngineConfig>, pairs: u64, settings: GameSettings) -> MatchPlan {
    MatchPlan {
        engines,
        tournament: Tournament::Gauntlet,
        openings: vec![
            Opening::startpos(),
            Opening { fen: Opening::startpos().fen, moves: vec!["e2e4".into(), "c7c5".into()] },
        ],
        pairs_per_pairing: pairs,
        concurrency: 2,
        settings,
    }
}

fn run(plan: &MatchPlan) -> Vec<GameRecord> {
    plan.validate().unwrap();
    let mut games = play_games(plan, plan.schedule(), |_| Flow::Continue);
    games.sort_by_key(|g| g.game_id);
    games
}

fn short_games() -> GameSettings {
    GameSettings { max_plies: Some(24), hang_grace_ms: 1500, latency_margin_ms: 50, ..GameSettings::default() }
}

#[test]
fn well_behaved_engines_finish_every_game_with_full_move_records() {
    let games = run(&plan(vec![fake("a", &[], "10+0.1"), fake("b", &[], "10+0.1")], 2, short_games()));
    assert_eq!(games.len(), 4);
    assert_eq!(games.iter().map(|g| g.game_id).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!((games[0].white.as_str(), games[1].white.as_str()), ("a", "b"));
    assert_eq!(games[2].opening.moves, vec!["e2e4", "c7c5"]);
    for game in &games {
        assert!(!game.termination.needs_restart(), "{game:?}");
        for m in &game.moves {
            assert!(m.nodes.is_some() && m.depth.is_some() && m.score.is_some() && m.clock_left_ms.is_some());
            assert!(m.wall_ms.is_some());
        }
    }
}

fn assert_faulty_engine_loses_every_game(fault: &str, expected: Termination, tc: &str) -> Vec<GameRecord> {
    assert_faulty_engine_loses_every_game_with(fault, expected, tc, short_games())
}

fn assert_faulty_engine_loses_every_game_with(
    fault: &str,
    expected: Termination,
    tc: &str,
    settings: GameSettings,
) -> Vec<GameRecord> {
    let tag = format!("fault-{fault}-{}", std::process::id());
    let faulty = fake("faulty", &["--fail", fault, "--at", "2", "--tag", &tag], tc);
    let games = run(&plan(vec![faulty, fake("sound", &[], tc)], 2, settings));
    assert_eq!(games.len(), 4, "the match goes on after each failure");
    for game in &games {
        assert_eq!(game.termination, expected, "{game:?}");
        let faulty_is_white = game.white == "faulty";
        assert_eq!(game.result, GameResult::win_for(!faulty_is_white), "{game:?}");
        assert!(game.reason.starts_with("faulty"), "reason names the engine: {}", game.reason);
        let moves_before_failure = if faulty_is_white { 2 } else { 3 };
        assert_eq!(game.moves.len(), moves_before_failure, "the failure comes on the faulty engine's second move");
    }
    assert!(!process_with_argument_exists(&tag), "every {fault} engine process was ended");
    games
}

fn process_with_argument_exists(argument: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else { return false };
    entries.flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|cmdline| cmdline.split(|&b| b == 0).any(|word| word == argument.as_bytes()))
            .unwrap_or(false)
    })
}

#[test]
fn crashing_engine_loses_and_is_restarted() {
    let games = assert_faulty_engine_loses_every_game("crash", Termination::EngineCrashed, "10+0.1");
    assert!(games.iter().all(|g| g.reason.contains("exit status: 3")), "{:?}", games[0].reason);
}

#[test]
fn hung_engine_loses_and_is_killed() {
    assert_faulty_engine_loses_every_game("hang", Termination::EngineHung, "1+0");
}

/// A virtual clock whose engines count as hung after 600 ms of wall time without more nodes.
fn virtual_clock_stalling_at_600_ms() -> GameSettings {
    GameSettings { virtual_clock: true, stall_timeout_ms: 600, ..short_games() }
}

#[test]
fn a_virtual_clock_search_that_reports_progress_is_not_hung_however_long() {
    // On a virtual clock a move's wall time is not the clock's: 20,000 virtual nodes a second on a CPU searching
    // 2,000 make a 3-second move half a minute long. A 2-second search reporting more nodes every 100 ms must
    // outlast a 600 ms stall timeout (the runner killed such searches after 60 s from `go` before).
    let slow = fake("slow", &["--fail", "slow", "--at", "2"], "10+0.1");
    let games = run(&plan(vec![slow, fake("sound", &[], "10+0.1")], 1, virtual_clock_stalling_at_600_ms()));
    for game in &games {
        assert_eq!(game.termination, Termination::MaxPlies, "{game:?}");
    }
}

#[test]
fn a_virtual_clock_search_that_reports_no_more_nodes_is_hung() {
    let games = assert_faulty_engine_loses_every_game_with(
        "stuck",
        Termination::EngineHung,
        "10+0.1",
        virtual_clock_stalling_at_600_ms(),
    );
    assert!(
        games[0].reason.contains("sent no 'bestmove' and no 'info' with more nodes within 600 ms"),
        "{}",
        games[0].reason
    );
}

#[test]
fn illegal_move_loses() {
    assert_faulty_engine_loses_every_game("illegal", Termination::IllegalMove, "10+0.1");
}

#[test]
fn missing_bestmove_loses() {
    assert_faulty_engine_loses_every_game("nobestmove", Termination::NoBestMove, "10+0.1");
}

#[test]
fn clock_overrun_is_a_time_forfeit() {
    assert_faulty_engine_loses_every_game("overrun", Termination::TimeForfeit, "0.3+0");
}

#[test]
fn engine_that_cannot_start_loses_every_game() {
    let missing =
        EngineConfig { command: PathBuf::from("/nonexistent/kairos-engine"), ..fake("missing", &[], "10+0.1") };
    let games = run(&plan(vec![missing, fake("sound", &[], "10+0.1")], 1, short_games()));
    assert_eq!(games.len(), 2);
    for game in &games {
        assert_eq!(game.termination, Termination::EngineStartFailed);
        assert_eq!(game.result, GameResult::win_for(game.white == "sound"));
        assert!(game.reason.contains("/nonexistent/kairos-engine"), "{}", game.reason);
    }
}

fn virtual_match() -> Vec<GameRecord> {
    let settings = GameSettings { virtual_clock: true, ..short_games() };
    let a = fake("a", &["--time", "13", "--expect-option", "VirtualClock"], "1+0.1");
    let b = fake("b", &["--time", "29", "--expect-option", "VirtualClock"], "40/2+0");
    run(&plan(vec![a, b], 2, settings))
}

/// The games with their UTC start and end cleared: those stamps are the wall clock's, which no replay repeats.
fn without_wall_clock_stamps(games: Vec<GameRecord>) -> Vec<GameRecord> {
    games.into_iter().map(|game| GameRecord { started: None, ended: None, ..game }).collect()
}

#[test]
fn virtual_clock_match_replays_exactly_and_charges_reported_time() {
    let first = virtual_match();
    assert!(first.iter().all(|game| game.started.is_some() && game.started <= game.ended), "{first:?}");
    assert_eq!(without_wall_clock_stamps(first.clone()), without_wall_clock_stamps(virtual_match()));
    let game = &first[0];
    assert_eq!(game.termination, Termination::MaxPlies, "{game:?}");
    let white: Vec<(u64, Option<i64>)> =
        game.moves.iter().step_by(2).map(|m| (m.time_used_ms, m.clock_left_ms)).collect();
    let black: Vec<(u64, Option<i64>)> =
        game.moves.iter().skip(1).step_by(2).map(|m| (m.time_used_ms, m.clock_left_ms)).collect();
    assert_eq!(&white[..3], &[(13, Some(1087)), (13, Some(1174)), (13, Some(1261))]);
    assert_eq!(&black[..3], &[(29, Some(1971)), (29, Some(1942)), (29, Some(1913))]);
    assert!(game.moves.iter().all(|m| m.wall_ms.is_none()));
}

#[test]
fn stopping_dispatches_no_new_games() {
    let mut plan = plan(vec![fake("a", &[], "10+0.1"), fake("b", &[], "10+0.1")], 10, short_games());
    plan.concurrency = 1;
    let games = play_games(&plan, plan.schedule(), |_| Flow::Stop);
    assert_eq!(games.len(), 1);
}

#[test]
fn stockfish_plays_a_clean_match() {
    let stockfish = PathBuf::from("/usr/games/stockfish");
    assert!(
        stockfish.exists(),
        "/usr/games/stockfish is missing: run scripts/setup (make test does), which installs Debian's stockfish, \
         or apt-get install stockfish"
    );
    let sf = |name: &str| EngineConfig {
        name: name.into(),
        command: stockfish.clone(),
        args: Vec::new(),
        options: vec![("Threads".into(), "1".into()), ("Hash".into(), "16".into())],
        time_control: "nodes=2000".parse().unwrap(),
        speaks_virtual_clock: false,
    };
    let settings = GameSettings { max_plies: Some(40), ..GameSettings::default() };
    let games = run(&plan(vec![sf("sf-a"), sf("sf-b")], 1, settings));
    assert_eq!(games.len(), 2);
    for game in &games {
        assert!(!game.termination.needs_restart() && game.termination != Termination::TimeForfeit, "{game:?}");
        assert!(game.moves.iter().all(|m| m.nodes.is_some() && m.depth.is_some() && m.clock_left_ms.is_none()));
    }
}
