//! Kairos against Kairos through `kairos match` under the virtual clock: the match replays exactly.

use std::path::Path;
use std::time::Duration;

use kairos_tests::{run_kairos, workspace_root};
use serde_json::Value;

fn play_match(dir: &Path, results: &str) -> Vec<Value> {
    let openings = workspace_root().join("tests/data/four-openings.epd");
    let args = [
        "match",
        "--engine",
        "name=smooth",
        "cmd=kairos",
        "option.TimeManager=smooth(preset=lc0)",
        "--engine",
        "name=legacy",
        "cmd=kairos",
        "option.TimeManager=legacy",
        "--each",
        "tc=10+0.1",
        "option.Backend=uniform",
        "option.Threads=1",
        "option.VirtualNps=20000",
        "--virtual-clock",
        "--games",
        "4",
        "--max-plies",
        "60",
        "--openings",
        openings.to_str().unwrap(),
        "--results",
        results,
    ];
    let output = run_kairos(&args, dir, Duration::from_secs(300));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let text = std::fs::read_to_string(dir.join(results)).expect("results file");
    text.lines().map(|line| serde_json::from_str(line).expect("one JSON object per game")).collect()
}

/// The records without when each game was played (the one thing a replay does not repeat), after checking that
/// each game says when it started and ended, in that order.
fn without_times(games: &[Value]) -> Vec<Value> {
    games
        .iter()
        .map(|game| {
            let mut game = game.clone();
            let record = game.as_object_mut().unwrap();
            let started = record.remove("started").and_then(|v| v.as_str().map(str::to_owned));
            let ended = record.remove("ended").and_then(|v| v.as_str().map(str::to_owned));
            let (started, ended) = (started.expect("started"), ended.expect("ended"));
            assert!(started.len() == 20 && started.ends_with('Z') && started <= ended, "{started} to {ended}");
            game
        })
        .collect()
}

#[test]
fn a_virtual_clock_match_between_two_time_managers_replays_exactly() {
    let dir = std::env::temp_dir().join(format!("kairos-match-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let first = play_match(&dir, "first.jsonl");
    let second = play_match(&dir, "second.jsonl");
    assert_eq!(first.len(), 4, "four games");
    let replayed = without_times(&first) == without_times(&second);
    assert!(replayed, "the same match under the virtual clock gives the same records");
    for game in &first {
        assert_ne!(game["termination"], "TimeForfeit", "no side loses on time: {}", game["reason"]);
        let moves = game["moves"].as_array().unwrap();
        assert!(!moves.is_empty());
        for record in moves {
            assert!(record["clock_left_ms"].as_i64().unwrap() >= 0, "{record}");
            assert!(record["nodes"].as_u64().unwrap() > 0, "every move searched: {record}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_game_records_its_binaries_and_machine_and_resume_refuses_another_binary() {
    let dir = std::env::temp_dir().join(format!("kairos-provenance-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let openings = workspace_root().join("tests/data/four-openings.epd");
    let args = |games: &'static str, extra: &[&'static str]| {
        let mut args = vec![
            "match", "--engine", "name=smooth", "cmd=kairos", "option.TimeManager=smooth(preset=lc0)", "--engine",
            "name=legacy", "cmd=kairos", "option.TimeManager=legacy", "--each", "tc=10+0.1", "option.Backend=uniform",
            "option.Threads=1", "option.VirtualNps=20000", "--virtual-clock", "--max-plies", "20", "--games", games,
            "--results", "games.jsonl", "--pgn", "games.pgn",
        ];
        args.extend(["--openings", openings.to_str().unwrap()]);
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_owned).collect::<Vec<String>>()
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_kairos(&args, &dir, Duration::from_secs(300))
    };
    let first = run(args("2", &[]));
    assert_eq!(first.code, Some(0), "{}", first.stderr);

    let results = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    let games: Vec<Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(games.len(), 2);
    let id = games[0]["white_engine"]["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("Kairos ") && id.contains("+git."), "the engine's id name: {id}");
    for game in &games {
        for side in ["white_engine", "black_engine"] {
            assert_eq!(game[side]["id"], id.as_str(), "both engines run this binary");
            let options = game[side]["options"].as_array().unwrap();
            assert!(options.iter().any(|o| o[0] == "VirtualClock" && o[1] == "true"), "{options:?}");
        }
        assert!(!game["machine"].as_str().unwrap().is_empty());
    }
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    let pgn_of_two_games = pgn.clone();
    assert!(pgn.contains(&format!("[WhiteEngine \"{id}\"]")) && pgn.contains("[Machine \""), "{pgn}");
    let started = games[0]["started"].as_str().unwrap();
    let date = format!("[Date \"{}\"]", started[..10].replace('-', "."));
    let start_tag = format!("[GameStartTime \"{started}\"]");
    assert!(pgn.contains(&date) && pgn.contains(&start_tag) && pgn.contains("[GameDuration \"00:"), "{pgn}");

    // The recorded games now say another build played "legacy": resuming with this binary is refused.
    let other = "Kairos 0.0.1+git.000000000000";
    let recorded = std::fs::read_to_string(&results).unwrap();
    let edited = recorded.lines().map(|line| {
        let mut game: Value = serde_json::from_str(line).unwrap();
        for (name, side) in [("white", "white_engine"), ("black", "black_engine")] {
            if game[name] == "legacy" {
                game[side]["id"] = Value::from(other);
            }
        }
        format!("{game}\n")
    });
    std::fs::write(&results, edited.collect::<String>()).unwrap();
    let refused = run(args("4", &["--resume"]));
    assert_ne!(refused.code, Some(0));
    let named = refused.stderr.contains(&format!("engine legacy is now '{id}'")) && refused.stderr.contains(other);
    assert!(named, "{}", refused.stderr);
    assert!(refused.stderr.contains("--allow-mixed-binaries"), "{}", refused.stderr);
    assert_eq!(std::fs::read_to_string(&results).unwrap().lines().count(), 2, "nothing was played");

    // The runner stopped in the middle of the second game's PGN (before its engine tags, which the edit above
    // changed): resuming writes that game again from the results.
    let pgn_path = dir.join("games.pgn");
    let second_game = pgn.rfind("[Event ").unwrap();
    std::fs::write(&pgn_path, &pgn[..second_game + 60]).unwrap();
    let mixed = run(args("4", &["--resume", "--allow-mixed-binaries"]));
    assert_eq!(mixed.code, Some(0), "{}", mixed.stderr);
    assert!(mixed.stderr.contains("warning: engine legacy is now"), "{}", mixed.stderr);
    let rewritten = "warning: PGN file games.pgn lacked 1 of the results file's games; written from it";
    assert!(mixed.stderr.contains(rewritten), "{}", mixed.stderr);
    assert_eq!(std::fs::read_to_string(&results).unwrap().lines().count(), 4);
    let pgn = std::fs::read_to_string(&pgn_path).unwrap();
    assert!(pgn.starts_with(&pgn_of_two_games[..second_game]), "the first game as it was written:\n{pgn}");
    let second = &pgn[second_game..];
    assert!(second.starts_with("[Event ") && second.contains(&format!("Engine \"{other}\"]")), "{pgn}");
    let rounds: Vec<&str> = pgn.lines().filter(|line| line.starts_with("[Round ")).collect();
    assert_eq!(rounds, ["[Round \"1\"]", "[Round \"2\"]", "[Round \"3\"]", "[Round \"4\"]"], "{pgn}");
    // A new match is not appended to another match's PGN.
    let refused = run(args("4", &[]).into_iter().map(|a| a.replace("games.jsonl", "other.jsonl")).collect());
    assert_ne!(refused.code, Some(0));
    let named = "PGN file games.pgn is not this match's: it does not begin with the 0 games of the results file";
    assert!(refused.stderr.contains(named), "{}", refused.stderr);
    let report = run(vec!["match-report".into(), "games.jsonl".into(), "--out".into(), "report".into()]);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    let summary = std::fs::read_to_string(dir.join("report/summary.md")).unwrap();
    let flagged = format!("| legacy **(more than one binary: results mix builds)** | {other} | 2 |");
    assert!(summary.contains(&flagged), "{summary}");
    assert!(summary.contains(&format!("| smooth | {id} | 4 |")), "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mistaken_options_are_warned_of_and_the_match_is_played() {
    let dir = std::env::temp_dir().join(format!("kairos-match-warnings-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = [
        "match", "--engine", "name=plain", "cmd=kairos", "--engine", "name=mistaken", "cmd=kairos", "option.Thread=1",
        "option.Threads=999", "--each", "option.Backend=uniform", "tc=1+0.01", "--games", "2", "--results",
        "warnings.jsonl",
    ];
    let output = run_kairos(&args, &dir, Duration::from_secs(120));
    assert_eq!(output.code, Some(0), "the match ends normally: {}", output.stderr);
    let warnings: Vec<&str> = output.stderr.lines().filter(|line| line.starts_with("warning: ")).collect();
    let expected = [
        "warning: engine mistaken: it announces no option 'Thread'; did you mean 'Threads'?; sent anyway",
        "warning: engine mistaken: it answered its options with 'info string error unknown option 'Thread'",
        "warning: engine mistaken: it answered its options with 'info string error invalid value '999' for option \
         Threads",
    ];
    assert_eq!(warnings.len(), expected.len(), "{}", output.stderr);
    for (warning, expected) in warnings.iter().zip(&expected) {
        assert!(warning.starts_with(expected), "{warning}\nexpected {expected}");
    }
    let games = std::fs::read_to_string(dir.join("warnings.jsonl")).unwrap();
    assert_eq!(games.lines().filter(|line| line.contains("\"game_id\"")).count(), 2, "{games}");
    assert!(!games.contains("EngineStartFailed") && !games.contains("NoBestMove"), "{games}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs a two-game match of `engine` (extra `--engine` words) against a uniform-policy Kairos and returns its
/// output, the directory it ran in and whether it wrote a results file.
fn match_against(engine: &[&str], dir_name: &str) -> (kairos_tests::Output, std::path::PathBuf, bool) {
    let dir = std::env::temp_dir().join(format!("{dir_name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut args = vec!["match", "--engine"];
    args.extend_from_slice(engine);
    args.extend(["--engine", "name=uniform", "cmd=kairos", "option.Backend=uniform"]);
    args.extend(["--each", "tc=1+0.01", "--games", "2", "--results", "refused.jsonl"]);
    let output = run_kairos(&args, &dir, Duration::from_secs(120));
    let games = std::fs::read_to_string(dir.join("refused.jsonl")).unwrap_or_default();
    let wrote_games = games.lines().any(|line| line.contains("\"game_id\""));
    (output, dir, wrote_games)
}

#[test]
fn an_engine_that_cannot_start_stops_the_match_before_any_game() {
    let missing = std::env::temp_dir().join("kairos-no-such-engine");
    let cmd = format!("cmd={}", missing.display());
    let (output, dir, wrote_games) = match_against(&["name=missing", &cmd], "kairos-match-missing-test");
    assert_ne!(output.code, Some(0), "{}", output.stderr);
    let error = format!("engine missing cannot start (could not start '{}'", missing.display());
    assert!(output.stderr.contains(&error), "{}", output.stderr);
    assert!(output.stderr.contains("no game was played"), "{}", output.stderr);
    assert!(!output.stderr.contains("Finished game"), "{}", output.stderr);
    assert!(!wrote_games, "no forfeit enters the results");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_engine_that_cannot_move_stops_the_match_before_any_game() {
    // Kairos without its network keeps serving but answers every 'go' with 'bestmove 0000'.
    let engine = ["name=netless", "cmd=kairos", "option.WeightsFile=/nonexistent/net.pb.gz"];
    let (output, dir, wrote_games) = match_against(&engine, "kairos-match-netless-test");
    assert_ne!(output.code, Some(0), "{}", output.stderr);
    let error =
        "engine netless cannot play a move: it answered 'bestmove 0000' to 'go nodes 1' from the start position";
    assert!(output.stderr.contains(error), "{}", output.stderr);
    assert!(output.stderr.contains("warning: engine netless: it answered its options with 'info string error"));
    assert!(!output.stderr.contains("Finished game"), "{}", output.stderr);
    assert!(!wrote_games, "no forfeit enters the results");
    std::fs::remove_dir_all(&dir).ok();
}
