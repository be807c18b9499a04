//! `kairos tm-data` and `kairos tm-train` through the real binary: the filter table, the relaxation flags, a
//! clear error for a missing file, and a one-epoch training run that writes the model and the PNG.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kairos(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos")).args(args).output().expect("kairos runs")
}

fn pgn() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/tests/data/ctm-filters.pgn").display().to_string()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-ctm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn tm_data_prints_the_filter_table_and_tm_train_writes_model_and_plot() {
    let data = temp("games.ctmdata");
    let thesis = kairos(&["tm-data", &pgn(), "--out", data.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&thesis.stdout);
    assert!(thesis.status.success(), "{}", String::from_utf8_lossy(&thesis.stderr));
    let last = text.lines().find(|l| l.starts_with("winner's plies")).expect("samples row");
    assert_eq!(last.split_whitespace().rev().take(2).collect::<Vec<_>>(), ["4", "1"], "{text}");

    let relaxed = kairos(&[
        "tm-data",
        &pgn(),
        "--out",
        data.to_str().unwrap(),
        "--min-rating",
        "0",
        "--time-control",
        "any",
        "--ending",
        "any",
        "--max-ply-share",
        "inf",
    ]);
    let text = String::from_utf8_lossy(&relaxed.stdout);
    assert!(text.contains("wrote 16 samples"), "{text}");

    let model = temp("model.safetensors");
    let trained = kairos(&[
        "tm-train",
        "--arch",
        "ctm-2.0",
        "--data",
        data.to_str().unwrap(),
        "--out",
        model.to_str().unwrap(),
        "--max-epochs",
        "1",
        "--batch",
        "8",
    ]);
    let text = String::from_utf8_lossy(&trained.stdout);
    assert!(trained.status.success(), "{text}{}", String::from_utf8_lossy(&trained.stderr));
    assert!(text.contains("best epoch 1"), "{text}");
    assert!(model.exists() && model.with_extension("png").exists());
}

#[test]
fn tm_data_names_a_missing_file() {
    let output = kairos(&["tm-data", "/nonexistent/games.pgn", "--out", temp("x.ctmdata").to_str().unwrap()]);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("/nonexistent/games.pgn"), "{error}");
}
