//! timemgr's plain-Rust CTM nets against the tch forward pass: each architecture trained for two epochs from a
//! fixed seed, written to a model file, read back by timemgr, and both run on 1,000 real positions, those before
//! each move of 20 Lichess games of May 2025 (`tests/data/lichess-2025-05-20-games.pgn`: the first 20 standard
//! games of at least 20 plies of the `pgn-reader` crate's Lichess sample, clocks stripped; Lichess game data is
//! CC0); the predicted ρ must agree within 1e-5. The same holds for the three models trained on the Lichess
//! clock data in experiments/.

use std::collections::HashMap;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};
use timemgr::ctm::features::FEATURES;
use timemgr::ctm::Architecture;
use timemgr::ctm::{CtmNetwork, TargetKind};
use tools::ctm::clock_pgn::read_games;
use tools::ctm::dataset::Dataset;
use tools::ctm::features::encode;
use tools::ctm::model::CtmModel;
use tools::ctm::samples::Sample;
use tools::ctm::train::{train, TrainConfig};

/// The first `count` positions before a move of the test games, each with the side to move's 769 inputs, a
/// target drawn uniformly from [0, 2] (spread like z-scores, so that an error in ρ is not hidden by a small
/// standard deviation) and its game's number.
fn real_positions(count: usize, seed: u64) -> Dataset {
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lichess-2025-05-20-games.pgn");
    let (games, _) = read_games(&pgn, false).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut samples = Vec::with_capacity(count);
    for (number, game) in games.iter().enumerate() {
        let mut position = Chess::default();
        for san in &game.moves {
            samples.push(Sample {
                features: encode(position.board(), position.turn()),
                rho: rng.random_range(0.0..2.0),
                game: number as u32,
            });
            let chosen = san.san.to_move(&position).unwrap_or_else(|e| panic!("game {number}: {san}: {e}"));
            position.play_unchecked(chosen);
        }
    }
    assert!(samples.len() >= count, "the test games hold only {} positions", samples.len());
    samples.truncate(count);
    Dataset::from_samples(&samples, TargetKind::ShareOfClock)
}

/// The largest difference between tch's ρ of `model` and timemgr's of the same file at `path` over `data`, and
/// the spread (max − min) of tch's predictions.
fn compare(model: &CtmModel, path: &Path, data: &Dataset) -> (f32, f32) {
    let rows: Vec<usize> = (0..data.len()).collect();
    let tch_rho = model.predict(data, &rows);
    let network = CtmNetwork::load(path).unwrap();
    assert_eq!(network.arch(), model.arch);
    let mut worst = 0f32;
    for (&row, &expected) in rows.iter().zip(&tch_rho) {
        let features: [u8; FEATURES] = data.row(row).try_into().unwrap();
        worst = worst.max((network.predict(&features) - expected).abs());
    }
    let spread = tch_rho.iter().copied().fold(f32::NEG_INFINITY, f32::max)
        - tch_rho.iter().copied().fold(f32::INFINITY, f32::min);
    (worst, spread)
}

#[test]
fn plain_rust_predictions_equal_the_tch_forward_pass_on_1000_positions() {
    let data = real_positions(1000, 11);
    let dir = std::env::temp_dir().join(format!("kairos-ctm-inference-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (arch, kernel) in [(Architecture::Mlp, 3), (Architecture::Cnn, 5), (Architecture::ResidualCnn, 3)] {
        let config = TrainConfig {
            kernel,
            batch_size: 128,
            max_epochs: 2,
            learning_rate: 3e-3,
            seed: 7,
            ..TrainConfig::thesis(arch)
        };
        let trained = train(&data, &config, |_| {}).unwrap();
        let path = dir.join(format!("{}-k{kernel}.safetensors", arch.name()));
        trained.model.save(&path, HashMap::new()).unwrap();
        let (worst, spread) = compare(&trained.model, &path, &data);
        println!("{} kernel {kernel}: largest difference {worst:e} over predictions spread {spread}", arch.name());
        assert!(spread > 1e-2, "{}: the predictions hardly vary ({spread}); the check would be weak", arch.name());
        assert!(worst <= 1e-5, "{} kernel {kernel}: plain Rust and tch differ by {worst}", arch.name());
    }
}

/// The models trained on the Lichess clock data (experiments/2026-11-24-ctm-data, 40 epochs): the weights a
/// user would play with.
#[test]
fn the_trained_experiment_models_agree_too() {
    let data = real_positions(1000, 11);
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/2026-11-24-ctm-data");
    for arch in ["ctm-1.0", "ctm-2.0", "ctm-2.1"] {
        let path = folder.join(format!("{arch}.safetensors"));
        let model = CtmModel::load(&path).unwrap();
        let (worst, spread) = compare(&model, &path, &data);
        println!("{arch} (trained): largest difference {worst:e} over predictions spread {spread}");
        assert!(worst <= 1e-5, "{arch}: plain Rust and tch differ by {worst}");
    }
}
