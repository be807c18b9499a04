//! `kairos tm-label`: positions read from PGN and EPD, labels where the answer is known (one legal move, a
//! mate in one that the search finds at N), the second search going on to factor·N in the same tree, and the
//! labelled dataset through tm-train's loader and trainer into a model that says it predicts instability.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use engine::decision::DecisionProbe;
use engine::options::{BackendKind, EngineOptions, Precision};
use safetensors::tensor::{Dtype, TensorView};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};
use timemgr::ctm::Architecture;
use timemgr::ctm::{CtmNetwork, TargetKind};
use tools::ctm::dataset::Dataset;
use tools::ctm::instability::LabelRule;
use tools::ctm::label::{label_candidates, label_position, LabelSettings};
use tools::ctm::model::CtmModel;
use tools::ctm::positions::{candidates, parse_epd, read_inputs, Line};
use tools::ctm::samples::Sample;
use tools::ctm::train::{train, TrainConfig};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-ctm-label-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn line(fen: &str) -> Line {
    let start: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
    Line { start, moves: Vec::new(), game: 7 }
}

/// A probe on the uniform backend: no network, every prior equal, every value 0.
fn uniform_probe() -> DecisionProbe {
    DecisionProbe::open(&EngineOptions { backend: BackendKind::Uniform, ..EngineOptions::default() }).unwrap()
}

/// A probe on the installed Maia-1900 in fp32.
fn maia_probe() -> DecisionProbe {
    let weights = Path::new(env!("CARGO_MANIFEST_DIR")).join("../weights/maia-1900.pb.gz");
    assert!(weights.is_file(), "{} is missing: run scripts/setup first", weights.display());
    let options = EngineOptions {
        weights_file: weights.to_string_lossy().into_owned(),
        precision: Precision::Fp32,
        backend_device: "cpu".into(),
        ..EngineOptions::default()
    };
    DecisionProbe::open(&options).unwrap()
}

const SETTINGS: LabelSettings = LabelSettings { nodes: 8, factor: 8, rule: LabelRule::Blend, q_scale: 0.2 };

#[test]
fn a_position_with_one_legal_move_is_0_without_a_search() {
    // The white king on a1 can only take the queen on b2.
    let forced = line("k7/8/8/8/8/8/1q6/K7 w - - 0 1");
    assert_eq!(forced.start.legal_moves().len(), 1);
    let labelled = label_position(&mut uniform_probe(), &forced, 0, &SETTINGS).unwrap();
    assert_eq!((labelled.sample.rho, labelled.searched, labelled.best_move_changed), (0.0, false, false));
    assert_eq!(labelled.sample.game, 7);
}

#[test]
fn a_mate_in_one_found_at_n_stays_so_its_label_is_0() {
    // Ra8# (a back-rank mate); Maia finds it within 8 visits and the proven win does not move.
    let mate = line("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    let mut probe = maia_probe();
    let game = engine::position::GameState::new(mate.start.clone());
    let change = probe.probe(&game, 8, 8).unwrap().unwrap();
    assert_eq!(change.early.best.to_string(), "Ra1-a8");
    assert_eq!((change.early.q, change.late.q), (Some(1.0), Some(1.0)));
    let labelled = label_position(&mut probe, &mate, 0, &SETTINGS).unwrap();
    assert_eq!((labelled.sample.rho, labelled.searched, labelled.best_move_changed), (0.0, true, false));
}

#[test]
fn the_second_search_goes_on_to_factor_n_visits_and_repeats_exactly() {
    let game = engine::position::GameState::default();
    let mut probe = uniform_probe();
    let change = probe.probe(&game, 10, 8).unwrap().unwrap();
    // The stopper ends each search at the limit; the batch in flight still lands, so a few visits more.
    assert!((10..30).contains(&change.early.visits), "{change:?}");
    assert!((80..100).contains(&change.late.visits), "{change:?}");
    assert_eq!(probe.probe(&game, 10, 8).unwrap().unwrap(), change, "the same probe again");
    let error = probe.probe(&game, 10, 1).unwrap_err().to_string();
    assert!(error.contains("factor of at least 2"), "{error}");
}

#[test]
fn positions_come_from_pgn_and_epd_each_distinct_one_once() {
    // Five games of 4 plies, 5 positions each: the start is in all five and 1. f4 in two, so 25 − 4 − 1 = 20.
    // The EPD's first position (1. e4) is the third game's second: 3 of its 4 are new.
    let inputs = read_inputs(&[data("2moves-first-five.pgn"), data("four-openings.epd")]).unwrap();
    assert_eq!(inputs.lines.len(), 9);
    assert_eq!(inputs.lines[8].game, 8, "EPD positions are games of their own");
    let all = candidates(&inputs.lines, None, 1);
    assert_eq!(all.iter().filter(|c| c.line < 5).count(), 20);
    assert_eq!(all.len(), 23);
    let sample = candidates(&inputs.lines, Some(5), 3);
    assert_eq!(sample.len(), 5);
    assert!(sample.windows(2).all(|w| w[0] < w[1]), "the sample stays in input order");
    assert_eq!(sample, candidates(&inputs.lines, Some(5), 3), "the same seed, the same sample");
}

#[test]
fn epd_lines_with_and_without_move_counters_parse_and_bad_ones_say_why() {
    let epd = parse_epd(r#"6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8#; id "mate";"#).unwrap().unwrap();
    // Rook 7 + 5, king 2, pawns 6.
    assert_eq!(epd.legal_moves().len(), 20);
    let fen = parse_epd("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1").unwrap().unwrap();
    assert_eq!(fen.halfmoves(), 1);
    assert_eq!(parse_epd("# a comment").unwrap(), None);
    assert!(parse_epd("8/8/8 w").unwrap_err().contains("no board, side to move, castling"));
}

#[test]
fn a_labelled_dataset_trains_into_a_model_that_predicts_instability() {
    let inputs = read_inputs(&[data("2moves-first-five.pgn")]).unwrap();
    let chosen = candidates(&inputs.lines, None, 1);
    let settings = LabelSettings { nodes: 4, factor: 4, rule: LabelRule::Flip, q_scale: 0.2 };
    let labelled = label_candidates(&mut uniform_probe(), &inputs.lines, &chosen, &settings, |_| {}).unwrap();
    assert_eq!(labelled.len(), chosen.len());
    assert!(labelled.iter().all(|l| l.searched && (l.sample.rho == 0.0 || l.sample.rho == 1.0)));
    let samples: Vec<Sample> = labelled.into_iter().map(|l| l.sample).collect();
    let dataset = Dataset::from_samples(&samples, TargetKind::Instability);
    let path = temp("labels.safetensors");
    dataset.save(&path, HashMap::new()).unwrap();
    let loaded = Dataset::load(&path).unwrap();
    assert_eq!(loaded, dataset);
    assert_eq!(loaded.target_kind, TargetKind::Instability);
    let config = TrainConfig {
        max_epochs: 1,
        batch_size: 8,
        validation_fraction: 0.4,
        ..TrainConfig::thesis(Architecture::Cnn)
    };
    let trained = train(&loaded, &config, |_| {}).unwrap();
    assert_eq!(trained.model.target_kind, TargetKind::Instability);
    let model_path = temp("labels-model.safetensors");
    trained.model.save(&model_path, HashMap::new()).unwrap();
    assert_eq!(CtmModel::load(&model_path).unwrap().target_kind, TargetKind::Instability);
    assert_eq!(CtmNetwork::load(&model_path).unwrap().target_kind(), TargetKind::Instability);
}

#[test]
fn a_dataset_without_a_target_kind_holds_rho() {
    let features = vec![0u8; 2 * 769];
    let target: Vec<u8> = [0.05f32, 0.1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let game: Vec<u8> = [0u32, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let tensors = vec![
        ("features", TensorView::new(Dtype::U8, vec![2, 769], &features).unwrap()),
        ("game", TensorView::new(Dtype::U32, vec![2], &game).unwrap()),
        ("target", TensorView::new(Dtype::F32, vec![2], &target).unwrap()),
    ];
    let metadata = HashMap::from([("format".to_owned(), "kairos-ctm-data-1".to_owned())]);
    let path = temp("old.safetensors");
    std::fs::write(&path, safetensors::tensor::serialize(tensors, &Some(metadata)).unwrap()).unwrap();
    let loaded = Dataset::load(&path).unwrap();
    assert_eq!((loaded.target_kind, loaded.target), (TargetKind::ShareOfClock, vec![0.05, 0.1]));
}
