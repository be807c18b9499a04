//! `kairos tune` end to end: input checks, a tiny run with real games against the fake UCI engine
//! (examples/fake_uci.rs), the log, the result string, `--resume` after an interruption and `--verify`'s match.

use crate::common;

use common::{fake_engine_path, scratch};

use std::path::Path;

use clap::Parser;
use tools::runner::{GameSettings, Opening, Termination};
use tools::tune::match_objective::{count_trial, MatchObjective, MatchSetup};
use tools::tune::{tune, tune_with, verify_match_args, Objective, Trial, TuneArgs, TuneSpace};

#[derive(Parser)]
#[command(args_override_self = true)]
struct Cli {
    #[command(flatten)]
    args: TuneArgs,
}

fn args(log: &Path, extra: &[&str]) -> TuneArgs {
    let engine = fake_engine_path();
    let mut argv = vec![
        "tune",
        "--time-manager",
        "smooth",
        "--param",
        "max-move-budget=0.3:0.1:0.6",
        "--param",
        "init-tree-reuse=0.5:0.2:0.8",
        "--tc",
        "10+0.1",
        "--games-per-iteration",
        "2",
        "--max-plies",
        "12",
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--engine-cmd",
        engine.to_str().expect("utf-8 path"),
        "--log",
        log.to_str().expect("utf-8 path"),
    ];
    argv.extend_from_slice(extra);
    Cli::try_parse_from(argv).expect("valid arguments").args
}

fn error_of(log: &Path, extra: &[&str]) -> String {
    format!("{:#}", tune(&args(log, extra)).expect_err("the run should be refused"))
}

#[test]
fn bad_input_is_refused_before_any_game_or_log() {
    let dir = scratch("bad-input");
    let log = dir.join("run.jsonl");
    let cases: [(&[&str], &str); 9] = [
        (&["--time-manager", "smoth", "--iterations", "2"], "unknown time manager 'smoth'"),
        (&["--param", "max-move-budgt=0.3:0.1:0.6", "--iterations", "2"], "has no numeric key"),
        (&["--param", "max-tree-reuse=0.5:-0.1:0.9", "--iterations", "2"], "<= MIN < MAX"),
        (&["--param", "max-tree-reuse=0.9:0.1:0.8", "--iterations", "2"], "start 0.9 lies outside"),
        (&["--games-per-iteration", "3", "--iterations", "2"], "must be even"),
        (&["--against", "legasy", "--iterations", "2"], "--against legasy"),
        (&["--iterations", "0"], "--iterations must be at least 1"),
        (&["--time-manager", "ctm(model=/nonexistent/ctm.safetensors)", "--iterations", "2"], "kairos tm-train"),
        (
            &["--against", "ctm(model=/nonexistent/ctm.safetensors)", "--iterations", "2"],
            "/nonexistent/ctm.safetensors",
        ),
    ];
    for (extra, expected) in cases {
        let message = error_of(&log, extra);
        assert!(message.contains(expected), "{extra:?}: '{message}' lacks '{expected}'");
        assert!(!log.exists(), "{extra:?} wrote a log before refusing");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_tiny_run_with_real_games_is_reproducible_and_emits_a_parseable_string() {
    let dir = scratch("real-games");
    let first_log = dir.join("first.jsonl");
    let second_log = dir.join("second.jsonl");
    let first = tune(&args(&first_log, &["--iterations", "2", "--against", "legacy"])).expect("first run");
    let second = tune(&args(&second_log, &["--iterations", "2", "--against", "legacy"])).expect("second run");
    let first_text = std::fs::read_to_string(&first_log).unwrap();
    assert_eq!(first_text, std::fs::read_to_string(&second_log).unwrap());
    assert_eq!(first.tuned, second.tuned);
    let lines: Vec<serde_json::Value> = first_text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "a header and two iterations");
    assert_eq!(lines[0]["kind"], "run");
    for (k, line) in lines[1..].iter().enumerate() {
        assert_eq!(line["kind"], "iteration");
        assert_eq!(line["iteration"], k as u64);
        // Against a reference, each side plays its own two games.
        assert_eq!(line["trial"]["plus_games"], 2);
        assert_eq!(line["trial"]["minus_games"], 2);
        timemgr::TimeManagerConfig::parse(line["time_manager"].as_str().unwrap()).unwrap();
    }
    let saved = std::fs::read_to_string(&first.result_path).unwrap();
    assert_eq!(saved.trim_end(), first.tuned);
    assert_eq!(first.result_path, dir.join("first.jsonl.result.txt"));
    let parsed = timemgr::TimeManagerConfig::parse(&first.tuned).expect("the tuned string parses");
    assert_eq!(parsed.name(), "smooth");
    assert_eq!(first.start, "smooth");
    std::fs::remove_dir_all(&dir).ok();
}

/// A game-level stub: each side scores from a simulated strength with an optimum at budget 0.45, reuse 0.3, and
/// can be told to fail at one iteration to simulate an interruption.
struct Stub {
    fail_at: Option<u64>,
}

impl Objective for Stub {
    type Error = anyhow::Error;

    fn measure(&mut self, iteration: u64, plus: &[f64], minus: &[f64]) -> anyhow::Result<Trial> {
        if self.fail_at == Some(iteration) {
            anyhow::bail!("interrupted at iteration {iteration}");
        }
        let loss = |t: &[f64]| ((t[0] - 0.45) / 0.1).powi(2) + ((t[1] - 0.3) / 0.1).powi(2);
        let games = 8u64;
        let noise = (iteration * 7919 % 5) as f64 - 2.0;
        let plus_half_points = ((8.0 + 4.0 * (loss(minus) - loss(plus)) + noise).round().clamp(0.0, 16.0)) as u64;
        Ok(Trial {
            plus_half_points,
            plus_games: games,
            minus_half_points: 2 * games - plus_half_points,
            minus_games: games,
        })
    }
}

#[test]
fn resume_after_an_interruption_gives_the_same_log_and_result() {
    let dir = scratch("resume");
    let whole_log = dir.join("whole.jsonl");
    let cut_log = dir.join("cut.jsonl");
    let whole_args = args(&whole_log, &["--iterations", "12"]);
    let space = TuneSpace::new(&whole_args.time_manager, &whole_args.params).unwrap();
    let whole = tune_with(&whole_args, &space, &mut Stub { fail_at: None }).expect("uninterrupted run");
    assert_ne!(whole.tuned, whole.start, "the stub's gradient should move the parameters");

    let cut_args = args(&cut_log, &["--iterations", "12"]);
    let interrupted = tune_with(&cut_args, &space, &mut Stub { fail_at: Some(5) });
    assert!(format!("{:#}", interrupted.unwrap_err()).contains("interrupted at iteration 5"));
    assert_eq!(std::fs::read_to_string(&cut_log).unwrap().lines().count(), 6, "header and iterations 0-4 kept");
    let mut crashed = std::fs::read_to_string(&cut_log).unwrap();
    crashed.push_str("{\"kind\":\"iteration\",\"itera");
    std::fs::write(&cut_log, crashed).unwrap();

    let refused = tune_with(&cut_args, &space, &mut Stub { fail_at: None }).unwrap_err();
    assert!(format!("{refused:#}").contains("pass --resume"), "{refused:#}");
    let other_seed = args(&cut_log, &["--iterations", "12", "--seed", "6", "--resume"]);
    let refused = tune_with(&other_seed, &space, &mut Stub { fail_at: None }).unwrap_err();
    assert!(format!("{refused:#}").contains("other settings"), "{refused:#}");

    let resume_args = args(&cut_log, &["--iterations", "12", "--resume"]);
    let resumed = tune_with(&resume_args, &space, &mut Stub { fail_at: None }).expect("resumed run");
    assert_eq!(resumed.tuned, whole.tuned);
    assert_eq!(std::fs::read_to_string(&cut_log).unwrap(), std::fs::read_to_string(&whole_log).unwrap());
    assert_eq!(std::fs::read_to_string(&resumed.result_path).unwrap(), format!("{}\n", whole.tuned));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn verify_plays_an_sprt_between_the_tuned_string_and_the_start() {
    let dir = scratch("verify");
    let tune_args = args(&dir.join("run.jsonl"), &["--iterations", "1", "--sprt", "elo0=-2", "elo1=3"]);
    let match_args = verify_match_args(&tune_args, "smooth(max-move-budget=0.42)", "smooth").unwrap();
    assert_eq!(match_args.sprt, vec!["elo0=-2", "elo1=3"]);
    assert_eq!(match_args.results, dir.join("run.jsonl.verify.jsonl"));
    let plan = tools::cli::plan_from_args(&match_args).unwrap();
    let names: Vec<&str> = plan.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["tuned", "start"]);
    let manager = |i: usize| plan.engines[i].options.iter().find(|(k, _)| k == "TimeManager").map(|(_, v)| v.clone());
    assert_eq!(manager(0).as_deref(), Some("smooth(max-move-budget=0.42)"));
    assert_eq!(manager(1).as_deref(), Some("smooth"));
    assert_eq!(plan.engines[0].command, fake_engine_path());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn each_side_gets_its_perturbed_string_and_plays_its_games() {
    let tune_args = args(Path::new("unused.jsonl"), &["--iterations", "1"]);
    let space = TuneSpace::new(&tune_args.time_manager, &tune_args.params).unwrap();
    let engine_words = vec![
        format!("cmd={}", fake_engine_path().display()),
        "arg=--expect-option".to_owned(),
        "arg=TimeManager".to_owned(),
        "tc=10+0.1".to_owned(),
    ];
    let setup = MatchSetup {
        engine_words,
        against: Some("legacy".into()),
        games_per_iteration: 4,
        openings: vec![Opening::startpos()],
        concurrency: 2,
        settings: GameSettings { max_plies: Some(10), ..GameSettings::default() },
    };
    let mut records = Vec::new();
    let mut objective = MatchObjective::new(&space, setup, |record| records.push(record.clone()));
    let plan = objective.plan(3, "smooth(max-move-budget=0.32)", "smooth(max-move-budget=0.28)").unwrap();
    let options: Vec<(&str, &str)> = plan
        .engines
        .iter()
        .map(|e| (e.name.as_str(), e.options.iter().find(|(k, _)| k == "TimeManager").unwrap().1.as_str()))
        .collect();
    assert_eq!(
        options,
        [("reference", "legacy"), ("plus", "smooth(max-move-budget=0.32)"), ("minus", "smooth(max-move-budget=0.28)")]
    );
    let trial = objective.measure(0, &[0.32, 0.5], &[0.28, 0.5]).unwrap();
    drop(objective);
    assert_eq!((trial.plus_games, trial.minus_games), (4, 4));
    assert_eq!(records.len(), 8, "4 games each for plus and minus against the reference");
    for record in &records {
        // The fake engine exits at its first `go` unless `setoption name TimeManager` came first.
        assert_eq!(record.termination, Termination::MaxPlies, "{}", record.reason);
    }
    assert_eq!(trial, count_trial(&records));
    assert_eq!(trial.plus_half_points + trial.minus_half_points, 8, "every game is a draw by the ply limit");
}
