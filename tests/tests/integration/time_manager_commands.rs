//! `kairos tm-help` and `kairos tm-plan` through the binary.

use std::time::Duration;

use kairos_tests::{run_kairos, workspace_root};
use serde_json::Value;

const MANAGERS: [&str; 7] =
    ["smooth", "smooth(preset=lc0)", "legacy", "alphazero", "simple", "geometric(moves=40)", "expected-length"];

#[test]
fn tm_help_lists_every_manager_and_estimator() {
    let output = run_kairos(&["tm-help"], &workspace_root(), Duration::from_secs(30));
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    for name in [
        "smooth", "legacy", "alphazero", "simple", "geometric", "expected-length", "ctm", "mle-legacy", "ahle",
        "lognormal", "pieces", "mlh", "fixed",
    ] {
        assert!(output.stdout.contains(name), "tm-help does not mention {name}");
    }
    let smooth = run_kairos(&["tm-help", "smooth"], &workspace_root(), Duration::from_secs(30));
    assert!(smooth.stdout.contains("max-move-budget"), "{}", smooth.stdout);
    let unknown = run_kairos(&["tm-help", "smoth"], &workspace_root(), Duration::from_secs(30));
    assert_eq!(unknown.code, Some(1));
    assert!(unknown.stderr.contains("smooth"), "suggests the closest name: {}", unknown.stderr);
}

#[test]
fn every_manager_plans_a_game_without_flagging_and_reports_it_in_json() {
    for manager in MANAGERS {
        for tc in ["60+0.6", "10+0.1", "40/60+0"] {
            let args = ["tm-plan", "--time-manager", manager, "--tc", tc, "--json", "--seed", "7"];
            let output = run_kairos(&args, &workspace_root(), Duration::from_secs(60));
            assert_eq!(output.code, Some(0), "{manager} {tc}: {}", output.stderr);
            let lines: Vec<Value> = output
                .stdout
                .lines()
                .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
                .collect();
            let summary = lines.last().expect("a summary line");
            assert_eq!(summary["flagged"], Value::Bool(false), "{manager} at {tc} ran out of time: {summary}");
            assert!(lines.len() > 10, "{manager} {tc}: one object per move");
        }
    }
}

#[test]
fn tm_plan_is_reproducible_with_a_seed() {
    let args = ["tm-plan", "--time-manager", "smooth(preset=lc0)", "--tc", "10+0.1", "--json", "--seed", "3"];
    let first = run_kairos(&args, &workspace_root(), Duration::from_secs(60));
    let second = run_kairos(&args, &workspace_root(), Duration::from_secs(60));
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn a_bad_option_string_names_the_key_and_the_closest_valid_one() {
    let args = ["tm-plan", "--time-manager", "smooth(max-move-budgte=0.5)", "--tc", "60+0.6"];
    let output = run_kairos(&args, &workspace_root(), Duration::from_secs(30));
    assert_eq!(output.code, Some(1));
    assert!(output.stderr.contains("max-move-budgte"), "{}", output.stderr);
    assert!(output.stderr.contains("max-move-budget"), "{}", output.stderr);
}

#[test]
fn a_bad_flag_value_is_one_error_line_that_names_the_flag() {
    let output = run_kairos(&["tm-plan", "--plies", "many"], &workspace_root(), Duration::from_secs(30));
    assert_eq!(output.code, Some(1));
    let first_line = output.stderr.lines().next().unwrap_or_default();
    assert!(first_line.starts_with("error: invalid value 'many' for '--plies <PLIES>'"), "{}", output.stderr);
    assert_eq!(output.stderr.matches("error:").count(), 1, "{}", output.stderr);
}

#[test]
fn version_flags_and_id_name_carry_the_workspace_version_and_the_git_commit() {
    let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).expect("the workspace manifest");
    let version = manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("a version line in Cargo.toml");
    // The commit as git itself names it (the tests run in a git checkout: CI clones one).
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(workspace_root())
        .output()
        .expect("git runs");
    let commit = String::from_utf8(head.stdout).unwrap().trim().to_owned();
    assert_eq!(commit.len(), 12, "a 12-digit commit");
    let build = format!("{version}+git.{commit}");
    let target = format!("{} {}", std::env::consts::ARCH, std::env::consts::OS);
    for flag in ["--version", "-V"] {
        let output = run_kairos(&[flag], &workspace_root(), Duration::from_secs(30));
        assert_eq!(output.code, Some(0), "{flag}: {}", output.stderr);
        // `-dirty` when the tracked files differ from the commit (a developer's tree; never in CI's clone).
        let expected = |build: &str| format!("kairos {build} (features: none; {target})\n");
        let dirty = format!("{build}-dirty");
        assert!(output.stdout == expected(&build) || output.stdout == expected(&dirty), "{flag}: {:?}", output.stdout);
    }
    let mut engine = kairos_tests::UciSession::start(&["--backend=uniform"]);
    engine.send("uci");
    let id = engine.read_until("id name", Duration::from_secs(30)).pop().unwrap();
    assert!(id == format!("id name Kairos {build}") || id == format!("id name Kairos {build}-dirty"), "{id}");
}

#[test]
fn ctm_plans_with_a_trained_model_and_refuses_a_missing_one() {
    let model = workspace_root().join("experiments/2026-11-24-ctm-data/ctm-2.1.safetensors");
    for window in ["", ",start-move=5,end-move=30,fallback=alphazero"] {
        let manager = format!("ctm(model={}{window})", model.display());
        for tc in ["60+0.6", "10+0.1", "40/60+0"] {
            let args = ["tm-plan", "--time-manager", &manager, "--tc", tc, "--json", "--seed", "7"];
            let output = run_kairos(&args, &workspace_root(), Duration::from_secs(60));
            assert_eq!(output.code, Some(0), "{manager} {tc}: {}", output.stderr);
            let summary: Value = serde_json::from_str(output.stdout.lines().last().expect("a summary line")).unwrap();
            assert_eq!(summary["flagged"], Value::Bool(false), "{manager} at {tc} ran out of time: {summary}");
        }
    }
    let args = ["tm-plan", "--time-manager", "ctm(model=/nonexistent/ctm.safetensors)", "--tc", "60+0"];
    let output = run_kairos(&args, &workspace_root(), Duration::from_secs(30));
    assert_eq!(output.code, Some(1));
    for part in ["/nonexistent/ctm.safetensors", "kairos tm-train"] {
        assert!(output.stderr.contains(part), "{part} missing from: {}", output.stderr);
    }
}
