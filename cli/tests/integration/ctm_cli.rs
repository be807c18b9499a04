//! `kairos tm-data`, `tm-label`, `tm-train` and `tm-predict` through the real binary: the filter table, the
//! relaxation flags, a clear error for a missing file, a one-epoch training run that writes the model and the
//! PNG, that model's predictions for the ERET suite, and a search-labelled dataset that trains into an
//! instability model.

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

/// `kairos tm-train` for one epoch in batches of 8; asserts success and returns what it printed.
fn train_one_epoch(arch: &str, data: &Path, model: &Path) -> String {
    let (data, model) = (data.to_str().unwrap(), model.to_str().unwrap());
    let args = ["tm-train", "--arch", arch, "--data", data, "--out", model, "--max-epochs", "1", "--batch", "8"];
    let trained = kairos(&args);
    let text = String::from_utf8_lossy(&trained.stdout).into_owned();
    assert!(trained.status.success(), "{text}{}", String::from_utf8_lossy(&trained.stderr));
    text
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
    let text = train_one_epoch("ctm-2.0", &data, &model);
    assert!(text.contains("best epoch 1"), "{text}");
    assert!(model.exists() && model.with_extension("png").exists());

    let epd = temp("two.epd");
    std::fs::write(
        &epd,
        "# two ERET positions\n\
         r1bqk1r1/1p1p1n2/p1n2pN1/2p1b2Q/2P1Pp2/1PN5/PB4PP/R4RK1 w q - - bm Rxf4; id \"ERET 001 - Relief\";\n\
         r1n2N1k/2n2K1p/3pp3/5Pp1/b5R1/8/1PPP4/8 w - - bm Ng6; id \"ERET 002 - Zugzwang\";\n",
    )
    .unwrap();
    let predicted = kairos(&[
        "tm-predict",
        "--model",
        model.to_str().unwrap(),
        "--epd",
        epd.to_str().unwrap(),
        "r2r2k1/1p1n1pp1/4pnp1/8/PpBRqP2/1Q2B1P1/1P5P/R5K1 b",
    ]);
    let text = String::from_utf8_lossy(&predicted.stdout);
    assert!(predicted.status.success(), "{text}{}", String::from_utf8_lossy(&predicted.stderr));
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].ends_with("ERET 001 - Relief") && rows[1].ends_with("ERET 002 - Zugzwang"), "{text}");
    assert!(rows[2].ends_with("r2r2k1/1p1n1pp1/4pnp1/8/PpBRqP2/1Q2B1P1/1P5P/R5K1"), "{text}");
    for row in rows {
        let rho: f32 = row.split_whitespace().next().unwrap().parse().expect("a number first");
        assert!(rho.is_finite(), "{row}");
    }
}

#[test]
fn tm_predict_names_a_missing_model() {
    let output = kairos(&["tm-predict", "--model", "/nonexistent/model.safetensors", "8/8/8/8/8/8/8/K6k w"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/model.safetensors"));
}

#[test]
fn tm_data_names_a_missing_file() {
    let output = kairos(&["tm-data", "/nonexistent/games.pgn", "--out", temp("x.ctmdata").to_str().unwrap()]);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("/nonexistent/games.pgn"), "{error}");
}

#[test]
fn tm_label_writes_an_instability_dataset_that_trains_into_an_instability_model() {
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/tests/data/2moves-first-five.pgn");
    let data = temp("labels.ctmdata");
    let labelled = kairos(&[
        "tm-label",
        "--positions",
        games.to_str().unwrap(),
        "--out",
        data.to_str().unwrap(),
        "--nodes",
        "4",
        "--factor",
        "2",
        "--backend",
        "uniform",
    ]);
    let text = String::from_utf8_lossy(&labelled.stdout);
    assert!(labelled.status.success(), "{text}{}", String::from_utf8_lossy(&labelled.stderr));
    for part in ["20 positions (20 searched", "best move changed:", "label: mean", "wrote 20 samples"] {
        assert!(text.contains(part), "{part} missing from: {text}");
    }
    let model = temp("labels-model.safetensors");
    let text = train_one_epoch("ctm-1.0", &data, &model);
    assert!(text.contains("(target: instability)"), "{text}");
    let predicted = kairos(&["tm-predict", "--model", model.to_str().unwrap(), "8/8/8/8/8/8/8/K6k w"]);
    let text = String::from_utf8_lossy(&predicted.stdout);
    assert!(text.contains("predicted decision instability"), "{text}");
}

#[test]
fn tm_label_refuses_a_factor_below_2_with_the_flag_to_change() {
    let epd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/tests/data/four-openings.epd");
    let output = kairos(&[
        "tm-label",
        "--positions",
        epd.to_str().unwrap(),
        "--out",
        temp("x.ctmdata").to_str().unwrap(),
        "--factor",
        "1",
    ]);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("--factor 1") && error.contains("2 or more"), "{error}");
}
