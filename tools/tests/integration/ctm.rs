//! CTM-Net data and training: features, ρ and filter counts against hand-worked values, errors that name the
//! game, the dataset and model files, and small training runs (fit, determinism).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position};
use timemgr::ctm::Architecture;
use timemgr::ctm::TargetKind;
use tools::ctm::clock_pgn::{parse_clock, read_games};
use tools::ctm::dataset::Dataset;
use tools::ctm::features::{encode, material, one_hot_indices};
use tools::ctm::model::CtmModel;
use tools::ctm::samples::{extract, ply_times, Ending, FilterRow, Filters, Sample, TimeControl, TimeControlFilter};
use tools::ctm::train::{r_squared, split_by_game, train, TrainConfig};
use tools::ctm::CtmError;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-ctm-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

/// (side · 6 + role) · 64 + square, worked out by hand for the initial position.
const START_INDICES: [usize; 32] = [
    8, 9, 10, 11, 12, 13, 14, 15, // player's pawns a2–h2
    65, 70, // knights b1 g1: 64 + 1, 64 + 6
    130, 133, // bishops c1 f1: 128 + 2, 128 + 5
    192, 199, // rooks a1 h1
    259, // queen d1: 256 + 3
    324, // king e1: 320 + 4
    432, 433, 434, 435, 436, 437, 438, 439, // opponent's pawns a7–h7: 384 + 48…55
    505, 510, // knights b8 g8: 448 + 57, 448 + 62
    570, 573, // bishops c8 f8: 512 + 58, 512 + 61
    632, 639, // rooks a8 h8: 576 + 56, 576 + 63
    699, // queen d8: 640 + 59
    764, // king e8: 704 + 60
];

#[test]
fn start_position_features_are_the_hand_worked_indices_and_material_16() {
    let start = Chess::default();
    assert_eq!(one_hot_indices(start.board(), Color::White), START_INDICES);
    // Mirrored for Black the initial position looks the same: queens stay on the d-file.
    assert_eq!(one_hot_indices(start.board(), Color::Black), START_INDICES);
    let values = encode(start.board(), Color::White);
    assert_eq!(values.len(), 769);
    assert_eq!(values[768], 16);
    assert_eq!(values[..768].iter().map(|&v| usize::from(v)).sum::<usize>(), 32);
    assert!(START_INDICES.iter().all(|&i| values[i] == 1));
}

#[test]
fn black_sees_the_board_flipped_with_colours_swapped() {
    // After 1. e4 from Black's view: White's e4 pawn is an opponent pawn on e5 (square 36): 384 + 36.
    let after_e4 = position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let indices = one_hot_indices(after_e4.board(), Color::Black);
    assert!(indices.contains(&420));
    assert!(!indices.contains(&(384 + 12)), "White's e2 pawn has gone");
    assert_eq!(&indices[..8], &[8, 9, 10, 11, 12, 13, 14, 15], "Black's pawns are the player's, on rank 2");
    // King and pawn against king: White has 2 pieces, Black 1.
    let ending = position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(one_hot_indices(ending.board(), Color::White), vec![12, 324, 764]);
    assert_eq!(one_hot_indices(ending.board(), Color::Black), vec![320 + 4, 384 + 52, 704 + 60]);
    assert_eq!((material(ending.board(), Color::White), material(ending.board(), Color::Black)), (2, 1));
}

#[test]
fn clocks_parse_with_and_without_fractions_and_reject_nonsense() {
    assert_eq!(parse_clock("0:01:00"), Some(60.0));
    assert_eq!(parse_clock("1:02:03"), Some(3723.0));
    assert_eq!(parse_clock("0:00:09.5"), Some(9.5));
    for bad in ["0:1:00", "0:0x:59", "0:61:00", "0:00", "a:00:00", "0:00:60"] {
        assert_eq!(parse_clock(bad), None, "{bad}");
    }
}

#[test]
fn ply_times_add_the_increment_and_start_from_the_base() {
    let control = TimeControl { base: 60.0, increment: 1.0 };
    let clocks = [Some(60.0), Some(60.0), Some(59.0), Some(58.0), Some(55.5)];
    let (spent, before) = ply_times(&clocks, control).unwrap();
    // White: 60 → 60 → 59 → 55.5 with +1 each move; Black: 60 → 60 → 58.
    assert_eq!(spent, vec![1.0, 1.0, 2.0, 3.0, 4.5]);
    assert_eq!(before, vec![60.0, 60.0, 60.0, 60.0, 59.0]);
    let rising = [Some(60.0), Some(60.0), Some(62.0)];
    assert!(ply_times(&rising, control).unwrap_err().contains("ply 3"));
}

fn filter_games() -> Vec<tools::ctm::clock_pgn::ClockedGame> {
    read_games(&data("ctm-filters.pgn"), false).unwrap().0
}

fn counts(rows: &[FilterRow]) -> Vec<(usize, usize)> {
    rows.iter().map(|r| (r.games, r.plies)).collect()
}

#[test]
fn thesis_filters_leave_one_game_and_its_four_white_plies() {
    let games = filter_games();
    assert_eq!(games.len(), 8);
    let (samples, rows) = extract(&games, &Filters::default(), false).unwrap();
    // read 8 (37 plies); clocked 7 (G7 out); clock never rises 6 (G8); decisive 5 (G6); rated 4 (G2);
    // 60+0 3 (G3); 15 % 2 (G4); checkmate 1 (G5); G1's four White plies.
    assert_eq!(counts(&rows), vec![(8, 37), (7, 35), (6, 31), (5, 29), (4, 25), (3, 18), (2, 11), (1, 7), (1, 4)]);
    assert!(rows[4].name.contains("2000") && rows[5].name.contains("60+0") && rows[6].name.contains("15"));
    // G1 (60+0): White's clocks 60 → 60 → 58 → 57 → 54, so ρ = 0/60, 2/60, 1/58, 3/57.
    let rho: Vec<f32> = samples.iter().map(|s| s.rho).collect();
    let expected = [0.0, 2.0 / 60.0, 1.0 / 58.0, 3.0 / 57.0];
    assert!(rho.iter().zip(expected).all(|(r, e)| (f64::from(*r) - e).abs() < 1e-7), "{rho:?}");
    assert!(samples.iter().all(|s| s.game == 0));
    assert_eq!(samples[0].features, encode(Chess::default().board(), Color::White));
}

#[test]
fn relaxed_filters_keep_every_decisive_clocked_game_and_only_winners_plies() {
    let games = filter_games();
    let relaxed = Filters {
        ending: Ending::Any,
        min_rating: 0,
        time_control: TimeControlFilter::Any,
        max_ply_share: f64::INFINITY,
    };
    let (samples, rows) = extract(&games, &relaxed, false).unwrap();
    assert_eq!(counts(&rows), vec![(8, 37), (7, 35), (6, 31), (5, 29), (5, 29), (5, 29), (5, 29), (5, 29), (5, 16)]);
    // G2: Black wins the fool's mate; its plies 2 and 4 with Black's clock 60 → 60 → 56: ρ 0 and 4/60.
    let g2: Vec<&Sample> = samples.iter().filter(|s| s.game == 1).collect();
    assert_eq!(g2.len(), 2);
    assert!((f64::from(g2[1].rho) - 4.0 / 60.0).abs() < 1e-7);
    // Its first sample is after 1. f3 from Black's view: White's f3 pawn is an opponent pawn on f6 (45).
    assert_eq!(g2[0].features[384 + 45], 1);
    assert_eq!(g2[0].features[768], 16);
    let games_used: BTreeSet<u32> = samples.iter().map(|s| s.game).collect();
    assert_eq!(games_used, BTreeSet::from([0, 1, 2, 3, 4]));
}

#[test]
fn time_control_lists_parse() {
    assert_eq!("any".parse::<TimeControlFilter>(), Ok(TimeControlFilter::Any));
    let list: TimeControlFilter = "60+0,180+2".parse().unwrap();
    assert_eq!(
        list,
        TimeControlFilter::Only(vec![
            TimeControl { base: 60.0, increment: 0.0 },
            TimeControl { base: 180.0, increment: 2.0 }
        ])
    );
    assert!("sixty".parse::<TimeControlFilter>().is_err());
}

#[test]
fn bad_input_is_an_error_naming_the_file_game_and_way_out() {
    let missing = read_games(Path::new("/nonexistent/games.pgn"), false).unwrap_err();
    assert!(missing.to_string().contains("/nonexistent/games.pgn"), "{missing}");

    let error = read_games(&data("ctm-bad-clock.pgn"), false).unwrap_err().to_string();
    for part in ["ctm-bad-clock.pgn", "game 2", "bad2", "ply 3", "--skip-bad-games"] {
        assert!(error.contains(part), "{part} missing from: {error}");
    }
    let (games, skipped) = read_games(&data("ctm-bad-clock.pgn"), true).unwrap();
    assert_eq!((games.len(), skipped), (1, 1));

    let games = read_games(&data("ctm-illegal.pgn"), false).unwrap().0;
    let relaxed = Filters { ending: Ending::Any, min_rating: 0, ..Filters::default() };
    let error = extract(&games, &relaxed, false).unwrap_err().to_string();
    assert!(error.contains("illegal1") && error.contains("illegal move"), "{error}");
    let (samples, rows) = extract(&games, &relaxed, true).unwrap();
    assert!(samples.is_empty() && rows.last().map(|r| r.games) == Some(0));
}

/// `games` games of `per_game` samples: the initial position's pieces with a random material m (1–16), and
/// ρ = 0.01 + 0.003 · m, so the material alone explains the target.
fn synthetic(games: u32, per_game: u32, seed: u64) -> Dataset {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let board = encode(Chess::default().board(), Color::White);
    let mut samples = Vec::new();
    for game in 0..games {
        for _ in 0..per_game {
            let mut features = board;
            let m: u8 = rng.random_range(1..=16);
            features[768] = m;
            samples.push(Sample { features, rho: 0.01 + 0.003 * f32::from(m), game });
        }
    }
    Dataset::from_samples(&samples, TargetKind::ShareOfClock)
}

fn quick(arch: Architecture, epochs: usize) -> TrainConfig {
    TrainConfig { batch_size: 128, max_epochs: epochs, learning_rate: 3e-3, ..TrainConfig::thesis(arch) }
}

#[test]
fn dataset_round_trips_through_safetensors() {
    let dataset = synthetic(5, 3, 7);
    let path = temp("round-trip.ctmdata");
    dataset.save(&path, HashMap::from([("note".to_string(), "test".to_string())])).unwrap();
    assert_eq!(Dataset::load(&path).unwrap(), dataset);
    std::fs::write(&path, b"not safetensors").unwrap();
    assert!(matches!(Dataset::load(&path), Err(CtmError::BadFile { .. })));
}

#[test]
fn r_squared_matches_a_hand_computation() {
    // mean 7/3, SS_tot = 42/9, SS_res = 1: R² = 1 − 9/42.
    assert!((r_squared(&[1.0, 2.0, 3.0], &[1.0, 2.0, 4.0]) - (1.0 - 9.0 / 42.0)).abs() < 1e-12);
}

#[test]
fn split_is_by_game_and_seeded() {
    let games: Vec<u32> = (0..400).map(|i| i / 4).collect();
    let (train_rows, val_rows) = split_by_game(&games, 0.25, 3).unwrap();
    let set = |rows: &[usize]| rows.iter().map(|&i| games[i]).collect::<BTreeSet<u32>>();
    assert!(set(&train_rows).is_disjoint(&set(&val_rows)));
    assert_eq!((set(&train_rows).len(), set(&val_rows).len()), (75, 25));
    assert_eq!(split_by_game(&games, 0.25, 3).unwrap(), (train_rows.clone(), val_rows));
    assert_ne!(split_by_game(&games, 0.25, 4).unwrap().0, train_rows);
    assert!(split_by_game(&[5, 5, 5], 0.25, 1).is_err());
}

#[test]
fn mlp_and_cnn_learn_a_linear_function_of_the_material() {
    let dataset = synthetic(100, 20, 1);
    for arch in [Architecture::Mlp, Architecture::Cnn] {
        let trained = train(&dataset, &quick(arch, 12), |_| {}).unwrap();
        let best = trained.history.iter().find(|s| s.epoch == trained.best_epoch).unwrap();
        assert!(best.val_r2 > 0.9, "{}: validation R² {}", arch.name(), best.val_r2);
        assert_eq!(trained.games, (75, 25));
        assert!(trained.mean_baseline_val_r2 < 0.05, "the mean explains nothing: {}", trained.mean_baseline_val_r2);
    }
}

#[test]
fn same_seed_same_weights_and_the_model_file_round_trips() {
    let dataset = synthetic(20, 10, 2);
    let run = |seed| train(&dataset, &TrainConfig { seed, ..quick(Architecture::ResidualCnn, 2) }, |_| {}).unwrap();
    let (a, b, c) = (run(5), run(5), run(6));
    assert!(a.model.weights() == b.model.weights(), "same seed, different weights");
    assert_eq!(a.history, b.history);
    assert!(a.model.weights() != c.model.weights(), "another seed, the same weights");

    let path = temp("model.safetensors");
    a.model.save(&path, HashMap::new()).unwrap();
    let loaded = CtmModel::load(&path).unwrap();
    assert_eq!((loaded.arch, loaded.kernel), (Architecture::ResidualCnn, 3));
    assert_eq!(loaded.norm, a.model.norm);
    assert!(loaded.weights() == a.model.weights(), "the weights changed on the way through the file");
    let rows: Vec<usize> = (0..dataset.len()).collect();
    assert_eq!(loaded.predict(&dataset, &rows), a.model.predict(&dataset, &rows));
    assert!(matches!(CtmModel::load(&data("ctm-filters.pgn")), Err(CtmError::Model(_))));
}
