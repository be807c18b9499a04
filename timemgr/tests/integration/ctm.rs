//! The `ctm` manager against hand-worked numbers: a model file whose net is written by hand (ρ̂ follows
//! from the material alone), the window switch to the fallback, instability models mapped to a share through
//! base-share, and errors that name the file.

use std::collections::HashMap;
use std::path::PathBuf;

use safetensors::tensor::{Dtype, TensorView};
use timemgr::ctm::features::{encode, FEATURES};
use timemgr::ctm::{Colour, CtmNetwork, PiecePlacement, TargetKind};
use timemgr::{
    build_stopper_chain, render_help, time_manager_from_str, CommonStopperOptions, GoParams, IterationStats,
    MoveContext, MoveTrace, TimeManagerConfig,
};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-timemgr-ctm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A ctm-1.0 file whose net computes y = 2^-10 · material: hidden1's first unit reads input 768 (left as it
/// is: mean 0, std 1), hidden2's first unit copies it, the output weighs it 2^-10; every other weight is 0.
/// The target's mean 2^-7 and std 2 make ρ̂ = 2 · material / 1024 + 1/128, exact in binary. No target_kind
/// in the header, as in files written before it existed.
fn write_material_model(name: &str) -> PathBuf {
    write_model_with_target(name, None, 1.0 / 128.0)
}

/// The same net with `target_kind` in the header (when given) and the target's mean `target_mean`:
/// y = 2 · material / 1024 + target_mean.
fn write_model_with_target(name: &str, target_kind: Option<&str>, target_mean: f32) -> PathBuf {
    let mut hidden1 = vec![0f32; 400 * FEATURES];
    hidden1[768] = 1.0;
    let mut hidden2 = vec![0f32; 200 * 400];
    hidden2[0] = 1.0;
    let mut output = vec![0f32; 200];
    output[0] = 1.0 / 1024.0;
    let tensors: Vec<(&str, Vec<usize>, Vec<f32>)> = vec![
        ("hidden1.weight", vec![400, FEATURES], hidden1),
        ("hidden1.bias", vec![400], vec![0.0; 400]),
        ("hidden2.weight", vec![200, 400], hidden2),
        ("hidden2.bias", vec![200], vec![0.0; 200]),
        ("output.weight", vec![1, 200], output),
        ("output.bias", vec![1], vec![0.0]),
        ("norm.feature_mean", vec![FEATURES], vec![0.0; FEATURES]),
        ("norm.feature_std", vec![FEATURES], vec![1.0; FEATURES]),
        ("norm.target", vec![2], vec![target_mean, 2.0]),
    ];
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .into_iter()
        .map(|(name, shape, values)| (name.to_owned(), shape, values.iter().flat_map(|v| v.to_le_bytes()).collect()))
        .collect();
    let views: Vec<(String, TensorView)> = bytes
        .iter()
        .map(|(name, shape, data)| (name.clone(), TensorView::new(Dtype::F32, shape.clone(), data).unwrap()))
        .collect();
    let mut metadata = HashMap::from([
        ("format".to_owned(), "kairos-ctm-model-1".to_owned()),
        ("arch".to_owned(), "ctm-1.0".to_owned()),
        ("kernel".to_owned(), "3".to_owned()),
    ]);
    if let Some(kind) = target_kind {
        metadata.insert("target_kind".to_owned(), kind.to_owned());
    }
    let path = temp(name);
    std::fs::write(&path, safetensors::tensor::serialize(views, &Some(metadata)).unwrap()).unwrap();
    path
}

#[test]
fn the_hand_written_net_predicts_from_the_material() {
    let network = CtmNetwork::load(&write_material_model("material.safetensors")).unwrap();
    // 16 pieces: 2 · 16/1024 + 1/128 = 0.0390625.
    assert_eq!(network.predict(&encode(&PiecePlacement::initial(), Colour::White)), 0.0390625);
    // King and pawn against king: White has 2 pieces (2 · 2/1024 + 1/128 = 0.01171875), Black 1.
    let ending: PiecePlacement = "4k3/8/8/8/8/8/4P3/4K3".parse().unwrap();
    assert_eq!(network.predict(&encode(&ending, Colour::White)), 0.01171875);
    assert_eq!(network.predict(&encode(&ending, Colour::Black)), 0.009765625);
}

/// One move through the manager: its trace, with the deadline it handed out.
fn play_move(manager: &mut dyn timemgr::TimeManager, ply: u32, placement: Option<PiecePlacement>) -> MoveTrace {
    let go = GoParams { wtime: Some(64_000), btime: Some(64_000), ..GoParams::default() };
    let ctx = MoveContext {
        white_to_move: ply.is_multiple_of(2),
        game_ply: ply,
        move_overhead_ms: 0,
        legal_moves: 20,
        placement,
        ..MoveContext::default()
    };
    build_stopper_chain(Some(&mut *manager), &go, &ctx, &CommonStopperOptions::go_limits_only());
    manager.end_of_move(&IterationStats { time_since_movestart_ms: 100, ..IterationStats::default() });
    manager.drain_trace().pop().unwrap()
}

#[test]
fn the_model_budgets_its_window_and_the_fallback_the_rest() {
    let model = write_material_model("window.safetensors");
    let spec = format!("ctm(model={},start-move=3,end-move=4,fallback=alphazero)", model.display());
    let mut ctm = time_manager_from_str(&spec).unwrap();
    let mut alphazero = time_manager_from_str("alphazero").unwrap();
    let fallback_deadline = play_move(alphazero.as_mut(), 0, None).deadline_ms;
    let board = || Some(PiecePlacement::initial());
    // Ply 0 is move 1 and ply 8 move 5: outside moves 3–4, alphazero's 12 % of 64 s.
    for ply in [0, 8] {
        let trace = play_move(ctm.as_mut(), ply, board());
        assert_eq!(trace.deadline_ms, fallback_deadline, "ply {ply}");
        assert!(trace.manager.ends_with(&format!("by fallback alphazero (move {} is outside moves 3-4)", ply / 2 + 1)));
    }
    // Plies 4 (White's move 3) and 7 (Black's move 4): 0.0390625 · 64000 = 2500 ms.
    for ply in [4, 7] {
        let trace = play_move(ctm.as_mut(), ply, board());
        assert_eq!(trace.deadline_ms, 2500, "ply {ply}");
        assert_eq!(trace.step_value("predicted_share"), Some(0.0390625));
        assert!(trace.summary().contains("predicted_share 0.03906"), "{}", trace.summary());
    }
    // Inside the window without a position the model cannot budget: the fallback does.
    let trace = play_move(ctm.as_mut(), 5, None);
    assert_eq!(trace.deadline_ms, fallback_deadline);
    assert!(trace.manager.ends_with("(no position)"), "{}", trace.manager);
}

#[test]
fn a_model_without_a_target_kind_predicts_the_share_and_ignores_base_share() {
    let model = write_material_model("old.safetensors");
    assert_eq!(CtmNetwork::load(&model).unwrap().target_kind(), TargetKind::ShareOfClock);
    // 0.0390625 · 64000 = 2500 ms whatever base-share says.
    let mut ctm = time_manager_from_str(&format!("ctm(model={},base-share=0.1)", model.display())).unwrap();
    let trace = play_move(ctm.as_mut(), 0, Some(PiecePlacement::initial()));
    assert_eq!(trace.deadline_ms, 2500);
    assert_eq!(trace.step_value("predicted_instability"), None);
}

#[test]
fn an_instability_model_spends_base_share_times_its_ratio_to_the_mean() {
    // y = 2 · 16/1024 + 1/128 = 0.0390625 = 5 ȳ at the start, ȳ = 1/128.
    let model = write_model_with_target("instability.safetensors", Some("instability"), 1.0 / 128.0);
    let network = CtmNetwork::load(&model).unwrap();
    assert_eq!(network.target_kind(), TargetKind::Instability);
    assert_eq!(network.target_mean(), 1.0 / 128.0);
    // 5 · 0.01 = 0.05 of 64000 ms = 3200 ms.
    let mut ctm = time_manager_from_str(&format!("ctm(model={},base-share=0.01)", model.display())).unwrap();
    let trace = play_move(ctm.as_mut(), 0, Some(PiecePlacement::initial()));
    assert_eq!(trace.step_value("predicted_instability"), Some(0.0390625));
    assert_eq!(trace.deadline_ms, 3200);
    // 5 · 0.05 = 0.25 is clamped to max-share 0.2: 12800 ms.
    let mut greedy = time_manager_from_str(&format!("ctm(model={},base-share=0.05)", model.display())).unwrap();
    let trace = play_move(greedy.as_mut(), 0, Some(PiecePlacement::initial()));
    assert_eq!(trace.deadline_ms, 12_800);
}

#[test]
fn an_instability_model_without_a_positive_mean_or_an_unknown_kind_is_refused() {
    let flat = write_model_with_target("flat.safetensors", Some("instability"), 0.0);
    let error = time_manager_from_str(&format!("ctm(model={})", flat.display())).err().unwrap().to_string();
    assert!(error.contains("training mean of 0") && error.contains("kairos tm-label"), "{error}");
    let unknown = write_model_with_target("unknown.safetensors", Some("nodes"), 0.01);
    let error = time_manager_from_str(&format!("ctm(model={})", unknown.display())).err().unwrap().to_string();
    assert!(error.contains("unknown target_kind 'nodes'"), "{error}");
}

#[test]
fn without_a_model_the_fallback_budgets_every_move() {
    let mut ctm = time_manager_from_str("ctm").unwrap();
    let mut legacy = time_manager_from_str("legacy").unwrap();
    for ply in [0, 1, 40] {
        let trace = play_move(ctm.as_mut(), ply, Some(PiecePlacement::initial()));
        assert_eq!(trace.deadline_ms, play_move(legacy.as_mut(), ply, None).deadline_ms);
        assert!(trace.manager.ends_with("(no model given)"), "{}", trace.manager);
    }
}

#[test]
fn a_bad_model_file_is_an_error_naming_it_and_the_way_out() {
    let missing = time_manager_from_str("ctm(model=/nonexistent/ctm.safetensors)").err().unwrap().to_string();
    for part in ["/nonexistent/ctm.safetensors", "kairos tm-train", "leave model out"] {
        assert!(missing.contains(part), "{part} missing from: {missing}");
    }
    let corrupt = temp("corrupt.safetensors");
    std::fs::write(&corrupt, b"not a model").unwrap();
    let error = time_manager_from_str(&format!("ctm(model={})", corrupt.display())).err().unwrap().to_string();
    assert!(error.contains(&corrupt.display().to_string()) && error.contains("not a model written by"), "{error}");
}

#[test]
fn keys_are_checked_and_printed_back() {
    let config = TimeManagerConfig::parse("ctm(fallback='smooth(preset=lc0)', max-share=0.1)").unwrap();
    assert_eq!(config.to_string(), "ctm(max-share=0.1,fallback='smooth(preset=lc0)')");
    assert_eq!(TimeManagerConfig::parse(&config.to_string()).unwrap(), config);
    time_manager_from_str(&config.to_string()).unwrap();
    let path = TimeManagerConfig::parse("ctm(model=/models/ctm-2.1.safetensors)").unwrap();
    assert_eq!(path.to_string(), "ctm(model=/models/ctm-2.1.safetensors)", "a path is written bare");
    for (bad, part) in [
        ("ctm(fallback=ctm)", "is ctm again"),
        ("ctm(fallback=slow)", "fallback 'slow'"),
        ("ctm(start-move=30,end-move=20)", "start-move 30 is after end-move 20"),
        ("ctm(model=1)", "expects text"),
    ] {
        let error = time_manager_from_str(bad).err().unwrap().to_string();
        assert!(error.contains(part), "{bad}: {error}");
    }
    let help = render_help(Some("ctm")).unwrap();
    for key in ["model", "start-move", "end-move", "max-share", "base-share", "fallback"] {
        assert!(help.contains(key), "{key} missing from tm-help: {help}");
    }
}
