//! `kairos match` end to end through its clap arguments, with the fake engine.

use crate::common;

use common::{fake_engine_path, scratch};

use std::path::Path;

use clap::Parser;
use tools::runner::{read_results, GameResult};
use tools::stats::{EloModel, SprtConfig, SprtDecision};
use tools::tally::PairingTally;
use tools::{run_match, MatchArgs};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: MatchArgs,
}

fn args(dir: &Path, extra: &[&str]) -> MatchArgs {
    let engine = fake_engine_path().display().to_string();
    let cmd = format!("cmd={engine}");
    let results = dir.join("results.jsonl").display().to_string();
    let pgn = dir.join("games.pgn").display().to_string();
    let mut line = vec!["match", "--engine", "name=a", &cmd, "--engine", "name=b", &cmd, "--each", "tc=10+0.1"];
    line.extend(["--results", &results, "--pgn", &pgn, "--max-plies", "16"]);
    line.extend(extra);
    Cli::try_parse_from(line).unwrap().args
}

fn book(dir: &Path) -> String {
    let path = dir.join("book.epd");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/four-openings.epd"), &path).unwrap();
    path.display().to_string()
}

#[test]
fn resume_skips_finished_games_and_continues_the_schedule() {
    let dir = scratch("resume");
    let openings = book(&dir);
    run_match(args(&dir, &["--games", "2", "--openings", &openings])).unwrap();
    let first = read_results(&dir.join("results.jsonl")).unwrap();
    assert_eq!(first.len(), 2);
    let err = run_match(args(&dir, &["--games", "4", "--openings", &openings])).unwrap_err();
    assert!(err.to_string().contains("--resume"), "{err}");
    run_match(args(&dir, &["--games", "6", "--openings", &openings, "--resume", "--concurrency", "2"])).unwrap();
    let all = read_results(&dir.join("results.jsonl")).unwrap();
    let mut ids: Vec<u64> = all.iter().map(|g| g.game_id).collect();
    ids.sort();
    assert_eq!(ids, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(all[..2], first[..]);
    let third_pair = all.iter().find(|g| g.game_id == 4).unwrap();
    assert_eq!(third_pair.opening.fen, "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1");
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 6);
    assert!(pgn.contains("[%clk 0:00:") && pgn.contains("[%emt 0:00:"), "{pgn}");
    let mismatched = run_match(args(&dir, &["--games", "6", "--resume"])).unwrap_err();
    assert!(mismatched.to_string().contains("does not fit"), "{mismatched}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cut_off_last_line_is_dropped_on_resume() {
    let dir = scratch("cutoff");
    run_match(args(&dir, &["--games", "2"])).unwrap();
    let path = dir.join("results.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"game_id\": 2, \"pair");
    std::fs::write(&path, text).unwrap();
    run_match(args(&dir, &["--games", "4", "--resume"])).unwrap();
    assert_eq!(read_results(&path).unwrap().len(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sprt_stops_at_the_upper_bound() {
    let dir = scratch("sprt");
    let engine = fake_engine_path().display().to_string();
    let results = dir.join("results.jsonl").display().to_string();
    let strong = format!("cmd={engine}");
    let crashing = [format!("cmd={engine}"), "arg=--fail".into(), "arg=crash".into()];
    let mut line: Vec<&str> = vec!["match", "--engine", "name=strong", &strong, "--engine", "name=crashing"];
    line.extend(crashing.iter().map(String::as_str));
    line.extend(["--each", "tc=10+0.1", "--results", &results, "--games", "200", "--sprt", "elo0=0", "elo1=10"]);
    run_match(Cli::try_parse_from(line).unwrap().args).unwrap();
    let games = read_results(Path::new(&results)).unwrap();
    assert!(games.len() < 200, "the SPRT stopped the match early");
    assert!(games.iter().all(|g| g.result == GameResult::win_for(g.white == "strong")));
    let mut tally = PairingTally::new("strong", "crashing");
    games.iter().for_each(|g| assert!(tally.add(g)));
    let config = SprtConfig { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };
    assert_eq!(config.decide(tally.llr(&config).unwrap()), SprtDecision::AcceptH1);
    let mut without_last = PairingTally::new("strong", "crashing");
    let mut sorted = games.clone();
    sorted.sort_by_key(|g| g.game_id);
    sorted[..sorted.len() - 2].iter().for_each(|g| assert!(without_last.add(g)));
    assert_eq!(
        config.decide(without_last.llr(&config).unwrap()),
        SprtDecision::Continue,
        "it stopped at the first crossing"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The strong-against-crashing match of `sprt_stops_at_the_upper_bound`, with `extra` arguments.
fn crashing_match(dir: &Path, extra: &[&str]) -> MatchArgs {
    let engine = fake_engine_path().display().to_string();
    let results = dir.join("results.jsonl").display().to_string();
    let strong = format!("cmd={engine}");
    let crashing = [format!("cmd={engine}"), "arg=--fail".into(), "arg=crash".into()];
    let mut line: Vec<&str> = vec!["match", "--engine", "name=strong", &strong, "--engine", "name=crashing"];
    line.extend(crashing.iter().map(String::as_str));
    line.extend(["--each", "tc=10+0.1", "--results", &results]);
    line.extend(extra);
    Cli::try_parse_from(line).unwrap().args
}

/// The game count at which the pairs of `games` (in file order) first cross a bound of `config`, replayed from
/// scratch with the tally and the fishtest-checked LLR.
fn first_crossing(games: &[tools::runner::GameRecord], config: &SprtConfig) -> Option<usize> {
    let mut tally = PairingTally::new("strong", "crashing");
    games
        .iter()
        .position(|game| {
            tally.add(game);
            tally.llr(config).is_ok_and(|llr| config.decide(llr) != SprtDecision::Continue)
        })
        .map(|index| index + 1)
}

#[test]
fn the_sprt_is_recorded_before_the_first_game_and_a_resume_continues_it() {
    let dir = scratch("sprt-resume");
    let path = dir.join("results.jsonl");
    run_match(crashing_match(&dir, &["--games", "2", "--sprt", "elo0=0", "elo1=10"])).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let expected = serde_json::json!({
        "sprt": {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05, "model": "Normalized"},
        "engines": ["strong", "crashing"],
    });
    assert_eq!(header, expected, "the first line fixes the test");
    assert_eq!(text.lines().count(), 3, "the header and two games");
    let file = tools::runner::read_results_file::<tools::runner::GameRecord>(&path).unwrap();
    assert_eq!((file.header.unwrap().engines[0].as_str(), file.games.len()), ("strong", 2));

    let changed = run_match(crashing_match(&dir, &["--games", "200", "--resume", "--sprt", "elo0=0", "elo1=5"]));
    let message = changed.unwrap_err().to_string();
    assert!(message.contains("records the SPRT 'elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized'"), "{message}");
    assert_eq!(read_results(&path).unwrap().len(), 2, "nothing was played");

    // Without --sprt the resume runs the recorded test: it stops at its bound, not after 200 games.
    run_match(crashing_match(&dir, &["--games", "200", "--resume"])).unwrap();
    let games = read_results(&path).unwrap();
    let config = SprtConfig { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };
    assert_eq!(first_crossing(&games, &config), Some(games.len()), "stopped at the recorded test's first crossing");

    // A test that has crossed is over: resuming it again plays nothing.
    run_match(crashing_match(&dir, &["--games", "200", "--resume", "--sprt", "elo0=0", "elo1=10"])).unwrap();
    assert_eq!(read_results(&path).unwrap().len(), games.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_games_at_a_time_stop_at_the_first_crossing() {
    let dir = scratch("sprt-concurrent");
    let args = crashing_match(&dir, &["--games", "200", "--concurrency", "2", "--sprt", "elo0=0", "elo1=10"]);
    run_match(args).unwrap();
    let games = read_results(&dir.join("results.jsonl")).unwrap();
    let config = SprtConfig { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };
    let crossing = first_crossing(&games, &config).expect("the match crossed a bound");
    // The game in progress on the other worker when the bound was reached still ends and is recorded.
    assert!(games.len() == crossing || games.len() == crossing + 1, "{} games, crossed at {crossing}", games.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_results_file_without_a_header_still_resumes_with_the_sprt_given() {
    let dir = scratch("sprt-headerless");
    run_match(crashing_match(&dir, &["--games", "2"])).unwrap();
    run_match(crashing_match(&dir, &["--games", "200", "--resume", "--sprt", "elo0=0", "elo1=10"])).unwrap();
    let games = read_results(&dir.join("results.jsonl")).unwrap();
    let config = SprtConfig { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };
    assert_eq!(first_crossing(&games, &config), Some(games.len()));
    let first_line = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert!(first_line.starts_with("{\"game_id\":0"), "no header is made up after the first game");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_name_the_problem() {
    let dir = scratch("bad");
    let odd = run_match(args(&dir, &["--games", "3"])).unwrap_err();
    assert!(odd.to_string().contains("must be even"), "{odd}");
    let sprt = run_match(args(&dir, &["--sprt", "elo0=5", "elo1=0"])).unwrap_err();
    assert!(sprt.to_string().contains("elo0 < elo1"), "{sprt}");
    let draw = run_match(args(&dir, &["--draw", "movenumber=x"])).unwrap_err();
    assert!(draw.to_string().contains("movenumber=x"), "{draw}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pgn_book_openings_are_played_twice_with_colours_reversed() {
    let dir = scratch("pgnbook");
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/2moves-first-five.pgn");
    let openings = tools::runner::load_openings(Path::new(book), tools::runner::OpeningOrder::Sequential).unwrap();
    assert_eq!(openings.len(), 5);
    assert_eq!(openings[0].moves, vec!["f2f4", "e7e6", "b2b4", "f8e7"]);
    assert_eq!(openings[4].moves, vec!["b2b4", "g8f6", "h2h3", "e7e5"]);
    run_match(args(&dir, &["--games", "4", "--openings", book, "--openings-order", "shuffled", "--seed", "11"]))
        .unwrap();
    let mut games = read_results(&dir.join("results.jsonl")).unwrap();
    games.sort_by_key(|g| g.game_id);
    let shuffled = tools::runner::load_openings(Path::new(book), tools::runner::OpeningOrder::Shuffled(11)).unwrap();
    for (index, game) in games.iter().enumerate() {
        assert_eq!(game.opening, shuffled[index / 2]);
        assert_eq!(game.white, if index % 2 == 0 { "a" } else { "b" });
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn draw_adjudication_ends_level_games() {
    let dir = scratch("draw");
    run_match(args(&dir, &["--games", "2", "--draw", "movenumber=1", "movecount=2", "score=10"])).unwrap();
    for game in read_results(&dir.join("results.jsonl")).unwrap() {
        assert_eq!(game.termination, tools::runner::Termination::DrawAdjudication, "{game:?}");
        assert_eq!(game.result, GameResult::Draw);
        assert_eq!(game.moves.len(), 4, "two level moves by each side");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
