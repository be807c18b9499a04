//! `kairos eval` through the binary against lc0's verified outputs for Maia-1900.

use std::time::Duration;

use kairos_tests::{default_weights, reference_text, run_kairos, workspace_root};
use serde_json::Value;

#[test]
fn eval_prints_lc0s_wdl_and_policy_for_every_reference_position() {
    let weights = default_weights();
    let reference: Value = serde_json::from_str(&reference_text("maia1900-reference.json")).unwrap();
    let positions = reference["positions"].as_object().unwrap();
    assert_eq!(positions.len(), 5);
    for (name, expected) in positions {
        let mut args = vec!["eval", "--device", "cpu", "--precision", "fp32", "--weights", weights.to_str().unwrap()];
        args.extend(["--fen", expected["fen"].as_str().unwrap()]);
        let moves: Vec<&str> = expected["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        if !moves.is_empty() {
            args.push("--moves");
            args.extend(&moves);
        }
        let output = run_kairos(&args, &workspace_root(), Duration::from_secs(120));
        assert_eq!(output.code, Some(0), "{name}: {}", output.stderr);
        let actual: Value = serde_json::from_str(output.stdout.trim()).unwrap();
        for i in 0..3 {
            let (a, e) = (actual["wdl"][i].as_f64().unwrap(), expected["wdl"][i].as_f64().unwrap());
            assert!((a - e).abs() < 1e-5, "{name} wdl[{i}]: {a} vs lc0 {e}");
        }
        assert!((actual["q"].as_f64().unwrap() - expected["q"].as_f64().unwrap()).abs() < 1e-5, "{name} q");
        assert!(actual["m"].is_null(), "{name}: Maia-1900 has no moves-left head");
        let expected_policy = expected["policy"].as_object().unwrap();
        let actual_policy = actual["policy"].as_object().unwrap();
        assert_eq!(actual_policy.len(), expected_policy.len(), "{name}: one prior per legal move");
        for (uci, p) in expected_policy {
            let a = actual_policy.get(uci).and_then(Value::as_f64).unwrap_or_else(|| panic!("{name}: no {uci}"));
            assert!((a - p.as_f64().unwrap()).abs() < 1e-5, "{name} {uci}: {a} vs lc0 {p}");
        }
    }
}

#[test]
fn eval_rejects_a_bad_fen_and_an_illegal_move_with_a_message() {
    let root = workspace_root();
    let bad_fen = run_kairos(&["eval", "--backend", "uniform", "--fen", "not a fen"], &root, Duration::from_secs(30));
    assert_eq!(bad_fen.code, Some(1));
    assert!(bad_fen.stderr.contains("error"), "{}", bad_fen.stderr);
    let illegal = run_kairos(&["eval", "--backend", "uniform", "--moves", "e2e5"], &root, Duration::from_secs(30));
    assert_eq!(illegal.code, Some(1));
    assert!(illegal.stderr.contains("e2e5"), "the message names the move: {}", illegal.stderr);
}

#[test]
fn eval_names_a_missing_weights_file_and_the_way_to_get_one() {
    let output = run_kairos(&["eval", "--weights", "no/such/net.pb.gz"], &workspace_root(), Duration::from_secs(30));
    assert_eq!(output.code, Some(1));
    assert!(output.stderr.contains("no/such/net.pb.gz"), "{}", output.stderr);
    assert!(output.stderr.contains("scripts/setup"), "{}", output.stderr);
}
