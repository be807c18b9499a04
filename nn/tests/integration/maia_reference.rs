//! Maia-1900 against lc0's own numbers (reference/maia1900-reference.json): input planes identical,
//! policy indices identical, logits within 1e-4, W/D/L and priors within 1e-5 through libtorch in fp32 and
//! through the network in plain Rust, and the bf16 CPU path within its stated tolerance of fp32.

use std::path::PathBuf;

use nn::encoder::{encode_position, BoardTransform, HistoryFill, InputPlanes};
use nn::network::Network;
use nn::options::{BF16_TOLERANCE, FP16_TOLERANCE};
use nn::policy_map::{move_policy_index, TransposedMoves};
use nn::rust_net::RustNetwork;
use nn::softmax::{fast_exp, policy_softmax};
use nn::torch_backend::wdl_softmax;
use nn::torch_net::{RawOutputs, TorchNetwork};
use nn::{game_history, load_network, BackendKind, BackendOptions, DeviceChoice, EvalRequest, Precision};
use serde_json::Value;
use shakmaty::{CastlingMode, Move, Position};

const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/maia1900-reference.json");
const WEIGHTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/maia-1900.pb.gz");

struct Case {
    name: String,
    history: Vec<nn::HistoryEntry>,
    json: Value,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(REFERENCE).expect("reference/maia1900-reference.json is vendored in the repo");
    let root: Value = serde_json::from_str(&text).expect("valid JSON");
    root["positions"]
        .as_object()
        .expect("positions object")
        .iter()
        .map(|(name, json)| {
            let moves: Vec<String> =
                json["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
            let history = game_history(json["fen"].as_str().unwrap(), &moves).expect("reference positions are legal");
            Case { name: name.clone(), history, json: json.clone() }
        })
        .collect()
}

fn maia() -> Network {
    load_network(&PathBuf::from(WEIGHTS)).unwrap_or_else(|e| panic!("Maia-1900 is required for this test: {e}"))
}

fn positions(network: &Network, cases: &[Case]) -> Vec<InputPlanes> {
    cases
        .iter()
        .map(|case| encode_position(&case.history, network.input_format, HistoryFill::FenOnly).unwrap().planes)
        .collect()
}

fn run(network: &Network, cases: &[Case], kind: tch::Kind) -> RawOutputs {
    let torch = TorchNetwork::new(network, tch::Device::Cpu, kind).unwrap();
    torch.forward(&positions(network, cases)).unwrap()
}

/// As the engine's network thread runs libtorch on the CPU (`BackendThreads=1`, `FusedConvolutions=true`): oneDNN's
/// convolutions with their ReLU and the squeeze-excitation's full-size passes in plain Rust. Returns whether the
/// convolutions were fused.
fn run_as_the_engine(network: &Network, cases: &[Case], kind: tch::Kind) -> (RawOutputs, bool) {
    tch::set_num_threads(1);
    let mut torch = TorchNetwork::new(network, tch::Device::Cpu, kind).unwrap();
    let fused = torch.fuse_convolutions().unwrap_or(false);
    (torch.forward(&positions(network, cases)).unwrap(), fused)
}

fn legal_moves(case: &Case) -> Vec<Move> {
    case.history.last().unwrap().position.legal_moves().into_iter().collect()
}

fn uci(m: &Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

#[test]
fn input_planes_match_lc0() {
    for case in cases() {
        let planes =
            encode_position(&case.history, nn::network::InputFormat::Classical, HistoryFill::FenOnly).unwrap().planes;
        let expected = case.json["input_planes"].as_array().unwrap();
        assert_eq!(expected.len(), 112);
        for (i, (plane, reference)) in planes.iter().zip(expected).enumerate() {
            let mask: u64 = reference[0].as_str().unwrap().parse().unwrap();
            let value = reference[1].as_f64().unwrap() as f32;
            for square in 0..64 {
                let ours = if plane.mask >> square & 1 == 1 { plane.value } else { 0.0 };
                let theirs = if mask >> square & 1 == 1 { value } else { 0.0 };
                assert_eq!(ours, theirs, "{}: plane {i}, square {square}", case.name);
            }
        }
    }
}

#[test]
fn policy_indices_match_lc0() {
    for case in cases() {
        let turn = case.history.last().unwrap().position.turn();
        let expected = case.json["policy_nn_index"].as_object().unwrap();
        let moves = legal_moves(&case);
        assert_eq!(moves.len(), expected.len(), "{}", case.name);
        for m in &moves {
            let index = move_policy_index(m, turn, BoardTransform::IDENTITY, TransposedMoves::AsPlanes).unwrap();
            assert_eq!(Some(index as u64), expected[&uci(m)].as_u64(), "{}: {}", case.name, uci(m));
        }
    }
}

#[test]
fn fp32_outputs_match_lc0() {
    let network = maia();
    let cases = cases();
    assert_matches_lc0(&run(&network, &cases, tch::Kind::Float), &cases);
}

#[test]
fn fp32_outputs_match_lc0_on_the_engines_cpu_path() {
    let network = maia();
    let cases = cases();
    let (outputs, fused) = run_as_the_engine(&network, &cases, tch::Kind::Float);
    assert!(fused, "oneDNN fuses Maia's convolutions and ReLUs in fp32");
    assert_matches_lc0(&outputs, &cases);
}

#[test]
fn latency_path_outputs_match_lc0() {
    let network = maia();
    let cases = cases();
    let small = RustNetwork::new(&network, false).expect("Maia-1900 is a convolutional network");
    assert_matches_lc0(&small.forward(&positions(&network, &cases)), &cases);
}

/// Logits within 1e-4 of lc0's, W/D/L and priors within 1e-5, no moves-left output.
fn assert_matches_lc0(raw: &RawOutputs, cases: &[Case]) {
    for (i, case) in cases.iter().enumerate() {
        let logits = &raw.policy[i * 1858..(i + 1) * 1858];
        for (j, reference) in case.json["logits_1858"].as_array().unwrap().iter().enumerate() {
            let diff = (logits[j] - reference.as_f64().unwrap() as f32).abs();
            assert!(diff < 1e-4, "{}: logit {j} differs by {diff}", case.name);
        }
        let wdl = wdl_softmax([raw.value[3 * i], raw.value[3 * i + 1], raw.value[3 * i + 2]]);
        for (ours, reference) in wdl.iter().zip(case.json["wdl"].as_array().unwrap()) {
            assert!((ours - reference.as_f64().unwrap() as f32).abs() < 1e-5, "{}: wdl {wdl:?}", case.name);
        }
        let turn = case.history.last().unwrap().position.turn();
        let moves = legal_moves(case);
        let move_logits: Vec<f64> = moves
            .iter()
            .map(|m| {
                f64::from(
                    logits[move_policy_index(m, turn, BoardTransform::IDENTITY, TransposedMoves::AsPlanes).unwrap()],
                )
            })
            .collect();
        let max = move_logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = move_logits.iter().map(|x| (x - max).exp()).sum();
        for (m, x) in moves.iter().zip(&move_logits) {
            let prior = (x - max).exp() / sum;
            let reference = case.json["policy"][uci(m)].as_f64().unwrap();
            assert!((prior - reference).abs() < 1e-5, "{}: {} prior {prior} vs {reference}", case.name, uci(m));
        }
        assert!(raw.moves_left.is_none());
    }
}

#[test]
fn backend_priors_use_fast_exp_like_lc0_through_libtorch_and_through_the_rust_network() {
    for rust_batch_limit in [Some(0), None] {
        backend_priors_match_lc0(rust_batch_limit);
    }
}

fn backend_priors_match_lc0(rust_batch_limit: Option<usize>) {
    let options = BackendOptions {
        weights: PathBuf::from(WEIGHTS),
        kind: BackendKind::Torch,
        devices: vec![DeviceChoice::Cpu],
        precision: Precision::Fp32,
        cpu_threads: Some(0),
        rust_batch_limit,
        cuda_graphs: true,
        cudnn_benchmark: false,
        fused_convolutions: true,
        cpu_backends: 1,
        policy_temperature: 1.359,
        exact_softmax: false,
        cache_size: 0,
        transposed_moves: TransposedMoves::AsPlanes,
        history_fill: HistoryFill::FenOnly,
        test_backend_delay: std::time::Duration::ZERO,
        largest_batch: 0,
        record_file: None,
    };
    let backend = nn::open_backend(&options).unwrap_or_else(|e| panic!("{e}"));
    assert!(backend.attributes().has_wdl && !backend.attributes().has_moves_left);
    for case in cases() {
        let moves = legal_moves(&case);
        let mut computation = backend.new_computation();
        computation.add(&EvalRequest { history: &case.history, moves: &moves }).unwrap();
        let evaluation = computation.compute().unwrap().remove(0);
        let turn = case.history.last().unwrap().position.turn();
        let logits = case.json["logits_1858"].as_array().unwrap();
        let reference_logits: Vec<f32> = moves
            .iter()
            .map(|m| {
                logits[move_policy_index(m, turn, BoardTransform::IDENTITY, TransposedMoves::AsPlanes).unwrap()]
                    .as_f64()
                    .unwrap() as f32
            })
            .collect();
        let expected = policy_softmax(&reference_logits, 1.359);
        for (ours, reference) in evaluation.policy.iter().zip(&expected) {
            assert!(
                (ours - reference).abs() < 1e-5,
                "{} (Rust batch limit {rust_batch_limit:?}): {ours} vs {reference}",
                case.name
            );
        }
        let q = case.json["q"].as_f64().unwrap() as f32;
        assert!((evaluation.wl - q).abs() < 1e-5, "{}: q {} vs {q}", case.name, evaluation.wl);
    }
}

#[test]
fn fast_exp_matches_lc0_values() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/tm-test-vectors.json");
    let root: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for row in root["fast_exp"]["rows"].as_array().unwrap() {
        let x = row["x"].as_f64().unwrap() as f32;
        let expected = row["fast_exp"].as_f64().unwrap() as f32;
        let got = fast_exp(x);
        assert!((got - expected).abs() <= expected * 1e-6, "FastExp({x}) = {got}, lc0 {expected}");
    }
}

#[test]
fn bf16_stays_within_its_stated_tolerance_of_fp32() {
    assert_reduced_precision_within(tch::Kind::BFloat16, BF16_TOLERANCE);
}

/// On a CPU with native bf16 oneDNN fuses the bf16 convolutions too; elsewhere libtorch may refuse them in bf16
/// and the separate operations run, within the same tolerance either way.
#[test]
fn bf16_on_the_engines_cpu_path_stays_within_its_stated_tolerance_of_fp32() {
    let network = maia();
    let cases = cases();
    let full = run(&network, &cases, tch::Kind::Float);
    let (reduced, fused) = run_as_the_engine(&network, &cases, tch::Kind::BFloat16);
    assert!(fused || nn::cpu_features::native_bf16().is_none(), "oneDNN fuses bf16 where the CPU has it");
    assert_within(&full, &reduced, &cases, BF16_TOLERANCE, "bf16 on the engine's CPU path");
}

/// CUDA runs fp16 by default; libtorch's CPU kernels run the same half-precision forward pass (every
/// weight, activation and the policy gather in fp16), so its outputs can be held to a bound without a GPU.
#[test]
fn fp16_stays_within_its_stated_tolerance_of_fp32() {
    assert_reduced_precision_within(tch::Kind::Half, FP16_TOLERANCE);
}

/// The network in plain Rust built for bf16: on a CPU with AVX512-BF16 (by /proc/cpuinfo) its Winograd products
/// are rounded to bf16, so its outputs differ from fp32's but stay within [`BF16_TOLERANCE`], in a batch (F(4×4)
/// tiles) and position by position (F(2×2)); elsewhere it is the fp32 network, bit for bit.
#[test]
fn the_rust_network_in_bf16_stays_within_the_bf16_tolerance_where_the_cpu_has_it_and_is_fp32_elsewhere() {
    let network = maia();
    let cases = cases();
    let inputs = positions(&network, &cases);
    let (fp32, bf16) = (RustNetwork::new(&network, false).unwrap(), RustNetwork::new(&network, true).unwrap());
    let one_by_one = |rust: &RustNetwork| {
        let mut outputs = RawOutputs { policy: vec![], value: vec![], moves_left: None };
        for position in &inputs {
            let alone = rust.forward(std::slice::from_ref(position));
            outputs.policy.extend(alone.policy);
            outputs.value.extend(alone.value);
        }
        outputs
    };
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("Linux /proc/cpuinfo");
    let flags = cpuinfo.lines().find(|line| line.starts_with("flags")).expect("a flags line");
    let has_bf16 = ["avx512f", "avx512_bf16"].iter().all(|flag| flags.split_whitespace().any(|f| f == *flag));
    let reference = run(&network, &cases, tch::Kind::Float);
    for (tiles, full, reduced) in
        [("F(4×4)", fp32.forward(&inputs), bf16.forward(&inputs)), ("F(2×2)", one_by_one(&fp32), one_by_one(&bf16))]
    {
        if has_bf16 {
            assert_within(&reference, &reduced, &cases, BF16_TOLERANCE, &format!("Rust bf16, {tiles}"));
            let largest = full.policy.iter().zip(&reduced.policy).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(largest > 1e-4, "{tiles}: bf16 products should round (largest logit change {largest})");
        } else {
            assert_eq!((&full.policy, &full.value), (&reduced.policy, &reduced.value), "{tiles} without AVX512-BF16");
        }
    }
}

fn assert_reduced_precision_within(kind: tch::Kind, tolerance: f32) {
    let network = maia();
    let cases = cases();
    let full = run(&network, &cases, tch::Kind::Float);
    let reduced = run(&network, &cases, kind);
    assert_within(&full, &reduced, &cases, tolerance, &format!("{kind:?}"));
}

/// Every legal move's prior and every W/D/L probability of `reduced` within `tolerance` of `full`'s.
fn assert_within(full: &RawOutputs, reduced: &RawOutputs, cases: &[Case], tolerance: f32, kind: &str) {
    let (mut worst_prior, mut worst_wdl) = (0f32, 0f32);
    for (i, case) in cases.iter().enumerate() {
        let turn = case.history.last().unwrap().position.turn();
        let moves = legal_moves(case);
        let priors = |raw: &RawOutputs| {
            let logits: Vec<f32> = moves
                .iter()
                .map(|m| {
                    let index =
                        move_policy_index(m, turn, BoardTransform::IDENTITY, TransposedMoves::AsPlanes).unwrap();
                    raw.policy[i * 1858 + index]
                })
                .collect();
            policy_softmax(&logits, 1.359)
        };
        for (a, b) in priors(full).iter().zip(&priors(reduced)) {
            worst_prior = worst_prior.max((a - b).abs());
            assert!((a - b).abs() <= tolerance, "{}: prior {a} (fp32) vs {b} ({kind})", case.name);
        }
        let wdl = |raw: &RawOutputs| wdl_softmax([raw.value[3 * i], raw.value[3 * i + 1], raw.value[3 * i + 2]]);
        for (a, b) in wdl(full).iter().zip(&wdl(reduced)) {
            worst_wdl = worst_wdl.max((a - b).abs());
            assert!((a - b).abs() <= tolerance, "{}: wdl {a} (fp32) vs {b} ({kind})", case.name);
        }
    }
    eprintln!("{kind}: largest difference from fp32 {worst_prior} (priors), {worst_wdl} (W/D/L)");
}

/// A batch of 5 is computed padded to 6 (`padded_batch_size`): it must still return exactly 5 positions'
/// outputs, each the one that position gets when it is evaluated alone.
#[test]
fn a_padded_batch_returns_each_position_its_own_outputs() {
    let network = maia();
    let cases = cases();
    assert_eq!(cases.len(), 5);
    assert_eq!(nn::torch_net::padded_batch_size(cases.len()), 6);
    let together = run(&network, &cases, tch::Kind::Float);
    assert_eq!(together.policy.len(), 5 * 1858);
    assert_eq!(together.value.len(), 5 * 3);
    for (i, case) in cases.iter().enumerate() {
        let alone = run(&network, std::slice::from_ref(case), tch::Kind::Float);
        let batched_policy = &together.policy[i * 1858..(i + 1) * 1858];
        for (ours, theirs) in batched_policy.iter().zip(&alone.policy) {
            assert!((ours - theirs).abs() < 1e-4, "{}: policy {ours} vs {theirs} alone", case.name);
        }
        for (ours, theirs) in together.value[i * 3..(i + 1) * 3].iter().zip(&alone.value) {
            assert!((ours - theirs).abs() < 1e-4, "{}: value {ours} vs {theirs} alone", case.name);
        }
    }
}
