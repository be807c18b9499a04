//! The ONNX export (`kairos leela2onnx`, nn::onnx) run by ONNX Runtime 1.31.1 on the CPU (the library scripts/setup
//! installs into .onnxruntime/) against lc0's own outputs: the random-weight networks of reference/nets as lc0
//! 909a4082's blas backend recorded them (reference/lc0-test-nets.json) and Maia-1900
//! (reference/maia1900-reference.json). fp32: Q, D, moves left and the policy logits within 1e-4, as Kairos's
//! libtorch network is held. fp16 (lc0's converter's fp16: input, weights and outputs in half precision): W/D/L,
//! Q and the priors over the legal moves within nn::options::FP16_TOLERANCE (0.005) of lc0's fp32, the bound the
//! project holds its CUDA fp16 path to, and moves left within it relative to their size.

use std::path::{Path, PathBuf};

use nn::encoder::{encode_position, HistoryFill, InputPlanes, PLANES};
use nn::network::{Network, ValueKind};
use nn::onnx::{network_to_onnx_bytes, DataType, INPUT_PLANES, OUTPUT_MLH, OUTPUT_POLICY, OUTPUT_VALUE, OUTPUT_WDL};
use nn::options::FP16_TOLERANCE;
use nn::{game_history, load_network};
use ort::session::Session;
use ort::value::Tensor;
use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// lc0's fp32 outputs against ours in fp32, as for Kairos's own networks (lc0_test_nets.rs, maia_reference.rs).
const FP32_TOLERANCE: f64 = 1e-4;

/// The process's ONNX Runtime environment (ort allows one a process), shared with the onnx backend's tests: the
/// library scripts/setup installs into .onnxruntime/ unless ORT_DYLIB_PATH names another.
fn onnx_runtime() -> &'static ort::environment::Environment {
    nn::onnx_backend::onnx_runtime().unwrap_or_else(|e| panic!("{e}"))
}

/// The outputs of a batch as f32, one row a position.
struct Outputs {
    policy: Vec<f32>,
    /// W/D/L probabilities (3 a position) or the classical value (1).
    value: Vec<f32>,
    moves_left: Option<Vec<f32>>,
}

/// The planes as the NCHW `[batch][112][8][8]` input, bit `8·rank + file` of a mask the square `[rank][file]`.
fn input_tensor(positions: &[InputPlanes]) -> Vec<f32> {
    let mut input = Vec::with_capacity(positions.len() * PLANES * 64);
    for planes in positions {
        for plane in planes {
            input.extend((0..64).map(|square| if plane.mask >> square & 1 == 1 { plane.value } else { 0.0 }));
        }
    }
    input
}

/// Runs the network exported in `data_type` on `positions` in one batch in ONNX Runtime's CPU provider.
fn run_exported(network: &Network, data_type: DataType, positions: &[InputPlanes]) -> Outputs {
    let bytes = network_to_onnx_bytes(network, data_type).expect("the network exports");
    let mut builder = Session::builder(onnx_runtime())
        .expect("a session builder")
        .with_intra_threads(1)
        .unwrap_or_else(|e| panic!("one thread: {e}"));
    let mut session =
        builder.commit_from_memory(&bytes).unwrap_or_else(|e| panic!("ONNX Runtime refuses the exported model: {e}"));
    let shape = [positions.len() as i64, PLANES as i64, 8, 8];
    let input = input_tensor(positions);
    let outputs = match data_type {
        DataType::F32 => session.run(ort::inputs![INPUT_PLANES => Tensor::from_array((shape, input)).unwrap()]),
        DataType::F16 => {
            let input: Vec<half::f16> = input.into_iter().map(half::f16::from_f32).collect();
            session.run(ort::inputs![INPUT_PLANES => Tensor::from_array((shape, input)).unwrap()])
        }
    }
    .expect("ONNX Runtime runs the model");
    let read = |name: &str| -> Option<Vec<f32>> {
        let value = outputs.get(name)?;
        Some(match data_type {
            DataType::F32 => value.try_extract_tensor::<f32>().expect("f32 output").1.to_vec(),
            DataType::F16 => {
                value.try_extract_tensor::<half::f16>().expect("f16 output").1.iter().map(|v| v.to_f32()).collect()
            }
        })
    };
    let value = match network.value.kind {
        ValueKind::Wdl => read(OUTPUT_WDL).expect("a WDL network has /output/wdl"),
        ValueKind::Classical => read(OUTPUT_VALUE).expect("a classical value head gives /output/value"),
    };
    let moves_left = read(OUTPUT_MLH);
    assert_eq!(moves_left.is_some(), network.moves_left.is_some(), "/output/mlh exactly where the net has the head");
    Outputs { policy: read(OUTPUT_POLICY).expect("/output/policy"), value, moves_left }
}

/// Q and D of position `i`: from the softmaxed W/D/L, or the tanh'd classical value.
fn q_and_d(network: &Network, outputs: &Outputs, i: usize) -> (f64, f64) {
    match network.value.kind {
        ValueKind::Wdl => {
            let [w, d, l] = [0, 1, 2].map(|k| f64::from(outputs.value[3 * i + k]));
            (w - l, d)
        }
        ValueKind::Classical => (f64::from(outputs.value[i]), 0.0),
    }
}

/// The softmax of `logits`, in f64.
fn softmax(logits: &[f64]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

/// The recorded networks and, for each, its positions with lc0's outputs (lc0 failed on a few V2 positions).
fn recorded_networks() -> Vec<(String, Network, Vec<Value>)> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("reference/lc0-test-nets.json"))
        .expect("reference/lc0-test-nets.json is in the repository");
    let root: Value = serde_json::from_str(&text).expect("valid JSON");
    root["nets"]
        .as_object()
        .expect("a nets object")
        .iter()
        .map(|(name, positions)| {
            let path = Path::new(ROOT).join(format!("reference/nets/{name}.pb.gz"));
            let network = load_network(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let recorded = positions.as_array().expect("positions").iter().filter(|p| p.get("lc0_failed").is_none());
            (name.clone(), network, recorded.cloned().collect())
        })
        .collect()
}

fn planes(network: &Network, position: &Value) -> InputPlanes {
    let moves: Vec<String> =
        position["moves"].as_array().expect("moves").iter().map(|m| m.as_str().expect("a move").to_string()).collect();
    let history = game_history(position["fen"].as_str().expect("a FEN"), &moves).expect("a legal game");
    encode_position(&history, network.input_format, HistoryFill::FenOnly).expect("a history").planes
}

/// The recorded logits of `position`'s legal moves (index, logit).
fn legal_logits(position: &Value) -> Vec<(usize, f64)> {
    let list = position["policy_at_legal_indices"].as_array().expect("legal logits");
    list.iter().map(|e| (e[0].as_u64().expect("an index") as usize, e[1].as_f64().expect("a logit"))).collect()
}

#[test]
fn every_test_network_exported_in_fp32_gives_lc0s_outputs_in_onnx_runtime() {
    let networks = recorded_networks();
    assert_eq!(networks.len(), 11, "one recording per network of reference/nets");
    for (name, network, positions) in &networks {
        let inputs: Vec<InputPlanes> = positions.iter().map(|p| planes(network, p)).collect();
        let outputs = run_exported(network, DataType::F32, &inputs);
        for (i, expected) in positions.iter().enumerate() {
            let label = format!("{name}, {}", expected["name"]);
            let close = |ours: f64, theirs: f64, what: &str| {
                assert!((ours - theirs).abs() <= FP32_TOLERANCE, "{label}: {what} {ours} against lc0's {theirs}");
            };
            let (q, d) = q_and_d(network, &outputs, i);
            close(q, expected["q"].as_f64().expect("q"), "Q");
            close(d, expected["d"].as_f64().expect("d"), "D");
            let moves_left = outputs.moves_left.as_ref().map_or(0.0, |m| f64::from(m[i]));
            close(moves_left, expected["m"].as_f64().expect("m"), "moves left");
            let policy = &outputs.policy[i * 1858..(i + 1) * 1858];
            for list in ["policy_at_legal_indices", "policy_top"] {
                for entry in expected[list].as_array().expect("a policy list") {
                    let index = entry[0].as_u64().expect("an index") as usize;
                    close(f64::from(policy[index]), entry[1].as_f64().expect("a logit"), &format!("logit {index}"));
                }
            }
            let sum: f64 = policy.iter().map(|&p| f64::from(p)).sum();
            let lc0_sum = expected["policy_sums"][0].as_f64().expect("a sum");
            assert!(
                (sum - lc0_sum).abs() <= 1e-3 * (1.0 + lc0_sum.abs()),
                "{label}: logit sum {sum} against {lc0_sum}"
            );
        }
    }
}

#[test]
fn every_test_network_exported_in_fp16_stays_within_the_fp16_tolerance_of_lc0() {
    let tolerance = f64::from(FP16_TOLERANCE);
    let mut worst: f64 = 0.0;
    for (name, network, positions) in recorded_networks() {
        let inputs: Vec<InputPlanes> = positions.iter().map(|p| planes(&network, p)).collect();
        let outputs = run_exported(&network, DataType::F16, &inputs);
        for (i, expected) in positions.iter().enumerate() {
            let (q, d) = q_and_d(&network, &outputs, i);
            let lc0_m = expected["m"].as_f64().expect("m");
            let m = outputs.moves_left.as_ref().map_or(0.0, |m| f64::from(m[i]));
            let legal = legal_logits(expected);
            let policy = &outputs.policy[i * 1858..(i + 1) * 1858];
            let ours = softmax(&legal.iter().map(|&(index, _)| f64::from(policy[index])).collect::<Vec<_>>());
            let theirs = softmax(&legal.iter().map(|&(_, logit)| logit).collect::<Vec<_>>());
            let prior_difference = ours.iter().zip(&theirs).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            let differences = [
                ("Q", (q - expected["q"].as_f64().expect("q")).abs()),
                ("D", (d - expected["d"].as_f64().expect("d")).abs()),
                ("moves left", (m - lc0_m).abs() / lc0_m.max(1.0)),
                ("a prior", prior_difference),
            ];
            for (what, difference) in differences {
                assert!(difference <= tolerance, "{name}, {}: fp16 {what} differs by {difference}", expected["name"]);
                worst = worst.max(difference);
            }
        }
    }
    assert!(worst > 0.0, "fp16 must round somewhere: the test would not see an fp32 model passed off as fp16");
}

/// Maia-1900 and lc0's numbers for its reference positions.
fn maia_cases() -> (Network, Vec<InputPlanes>, Vec<(String, Value)>) {
    let weights = PathBuf::from(ROOT).join("weights/maia-1900.pb.gz");
    let network = load_network(&weights).unwrap_or_else(|e| panic!("Maia-1900 is required for this test: {e}"));
    let text = std::fs::read_to_string(Path::new(ROOT).join("reference/maia1900-reference.json"))
        .expect("reference/maia1900-reference.json is in the repository");
    let root: Value = serde_json::from_str(&text).expect("valid JSON");
    let cases: Vec<(String, Value)> =
        root["positions"].as_object().expect("positions").iter().map(|(n, j)| (n.clone(), j.clone())).collect();
    let inputs = cases.iter().map(|(_, json)| planes(&network, json)).collect();
    (network, inputs, cases)
}

#[test]
fn maia_1900_exported_in_fp32_gives_lc0s_logits_and_wdl_in_onnx_runtime() {
    let (network, inputs, cases) = maia_cases();
    let outputs = run_exported(&network, DataType::F32, &inputs);
    assert!(outputs.moves_left.is_none(), "Maia-1900 has no moves-left head");
    for (i, (name, json)) in cases.iter().enumerate() {
        let logits = json["logits_1858"].as_array().expect("1858 logits");
        assert_eq!(logits.len(), 1858);
        for (j, reference) in logits.iter().enumerate() {
            let ours = f64::from(outputs.policy[i * 1858 + j]);
            let theirs = reference.as_f64().expect("a logit");
            assert!((ours - theirs).abs() <= FP32_TOLERANCE, "{name}: logit {j} {ours} against lc0's {theirs}");
        }
        for (k, reference) in json["wdl"].as_array().expect("W/D/L").iter().enumerate() {
            let (ours, theirs) = (f64::from(outputs.value[3 * i + k]), reference.as_f64().expect("a probability"));
            assert!((ours - theirs).abs() <= 1e-5, "{name}: W/D/L {k} {ours} against lc0's {theirs}");
        }
    }
}

#[test]
fn maia_1900_exported_in_fp16_stays_within_the_fp16_tolerance_of_lc0() {
    let (network, inputs, cases) = maia_cases();
    let outputs = run_exported(&network, DataType::F16, &inputs);
    let tolerance = f64::from(FP16_TOLERANCE);
    for (i, (name, json)) in cases.iter().enumerate() {
        for (k, reference) in json["wdl"].as_array().expect("W/D/L").iter().enumerate() {
            let (ours, theirs) = (f64::from(outputs.value[3 * i + k]), reference.as_f64().expect("a probability"));
            assert!((ours - theirs).abs() <= tolerance, "{name}: fp16 W/D/L {k} {ours} against lc0's {theirs}");
        }
        let indices = json["policy_nn_index"].as_object().expect("legal moves' indices");
        let priors = json["policy"].as_object().expect("lc0's priors");
        let legal: Vec<(f64, f64)> = indices
            .iter()
            .map(|(uci, index)| {
                let index = index.as_u64().expect("an index") as usize;
                (f64::from(outputs.policy[i * 1858 + index]), priors[uci].as_f64().expect("a prior"))
            })
            .collect();
        let ours = softmax(&legal.iter().map(|&(logit, _)| logit).collect::<Vec<_>>());
        for (prior, &(_, theirs)) in ours.iter().zip(&legal) {
            assert!((prior - theirs).abs() <= tolerance, "{name}: fp16 prior {prior} against lc0's {theirs}");
        }
    }
}
