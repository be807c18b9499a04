//! Every structure Kairos loads against lc0 itself (issue #31): the random-weight networks of reference/nets
//! (written by `cargo run -p nn --example make_test_nets`) on 24 positions each, Kairos's libtorch network in
//! fp32 (and the network in plain Rust where it runs the net) against lc0 909a4082's blas backend as
//! recorded in reference/lc0-test-nets.json by reference/capture-lc0-nets.py: Q, D, moves left and the raw
//! policy logits within 1e-4.

use std::path::Path;

use nn::encoder::{encode_position, HistoryFill, InputPlanes};
use nn::network::{Body, Network, ValueKind};
use nn::rust_net::RustNetwork;
use nn::torch_backend::wdl_softmax;
use nn::torch_net::{RawOutputs, TorchNetwork};
use nn::{game_history, load_network};
use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const TOLERANCE: f64 = 1e-4;

/// The recorded networks and, for each, its positions with lc0's outputs.
fn reference() -> Vec<(String, Vec<Value>)> {
    let path = Path::new(ROOT).join("reference/lc0-test-nets.json");
    let text = std::fs::read_to_string(&path).expect("reference/lc0-test-nets.json is in the repository");
    let root: Value = serde_json::from_str(&text).expect("valid JSON");
    root["nets"]
        .as_object()
        .expect("a nets object")
        .iter()
        .map(|(name, positions)| (name.clone(), positions.as_array().expect("positions").clone()))
        .collect()
}

fn load(name: &str) -> Network {
    let path = Path::new(ROOT).join(format!("reference/nets/{name}.pb.gz"));
    load_network(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn planes(network: &Network, position: &Value) -> InputPlanes {
    let moves: Vec<String> =
        position["moves"].as_array().expect("moves").iter().map(|m| m.as_str().expect("a move").to_string()).collect();
    let history = game_history(position["fen"].as_str().expect("a FEN"), &moves).expect("a legal game");
    encode_position(&history, network.input_format, HistoryFill::FenOnly).expect("a history").planes
}

/// Checks batch element `i` of `raw` against lc0's recording of the position.
fn compare(net: &str, path: &str, network: &Network, raw: &RawOutputs, i: usize, expected: &Value) {
    let label = format!("{net}, {path}, {}", expected["name"]);
    let close = |ours: f64, theirs: f64, what: &str| {
        assert!((ours - theirs).abs() <= TOLERANCE, "{label}: {what} {ours} against lc0's {theirs}");
    };
    let value_width = raw.value.len() / (raw.policy.len() / 1858);
    let value = &raw.value[i * value_width..(i + 1) * value_width];
    let (q, d) = match network.value.kind {
        ValueKind::Wdl => {
            let [w, d, l] = wdl_softmax([value[0], value[1], value[2]]);
            (f64::from(w - l), f64::from(d))
        }
        ValueKind::Classical => (f64::from(value[0].tanh()), 0.0),
    };
    close(q, expected["q"].as_f64().expect("q"), "Q");
    close(d, expected["d"].as_f64().expect("d"), "D");
    let moves_left = raw.moves_left.as_ref().map_or(0.0, |m| f64::from(m[i]));
    close(moves_left, expected["m"].as_f64().expect("m"), "moves left");
    let policy = &raw.policy[i * 1858..(i + 1) * 1858];
    for list in ["policy_at_legal_indices", "policy_top"] {
        for entry in expected[list].as_array().expect("a policy list") {
            let index = entry[0].as_u64().expect("an index") as usize;
            close(f64::from(policy[index]), entry[1].as_f64().expect("a logit"), &format!("logit {index}"));
        }
    }
    let sums = [
        policy.iter().map(|&p| f64::from(p)).sum::<f64>(),
        policy.iter().map(|&p| f64::from(p).powi(2)).sum(),
        policy.iter().enumerate().map(|(i, &p)| f64::from(p) * (i as f64).sin()).sum(),
    ];
    for (k, (ours, theirs)) in sums.iter().zip(expected["policy_sums"].as_array().expect("sums")).enumerate() {
        let theirs = theirs.as_f64().expect("a sum");
        assert!(
            (ours - theirs).abs() <= 1e-3 * (1.0 + theirs.abs()),
            "{label}: policy sum {k} {ours} against lc0's {theirs}"
        );
    }
}

#[test]
fn every_test_network_matches_lc0_on_every_position_in_one_batch_and_alone() {
    let nets = reference();
    assert_eq!(nets.len(), 11, "one recording per network of reference/nets");
    let mut attention_bodies = 0;
    for (name, positions) in &nets {
        let network = load(name);
        attention_bodies += usize::from(matches!(network.body, Body::Attention(_)));
        // lc0 909a4082 crashes on a few V2-format positions; those are checked by the encoder's tests.
        let recorded: Vec<&Value> = positions.iter().filter(|p| p.get("lc0_failed").is_none()).collect();
        assert!(recorded.len() >= 18, "{name}: only {} positions recorded", recorded.len());
        let inputs: Vec<InputPlanes> = recorded.iter().map(|p| planes(&network, p)).collect();
        let torch = TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::Float).expect("libtorch network");
        let batch = torch.forward(&inputs).expect("a batch");
        for (i, expected) in recorded.iter().enumerate() {
            compare(name, "libtorch batch", &network, &batch, i, expected);
            let alone = torch.forward(&inputs[i..=i]).expect("one position");
            compare(name, "libtorch alone", &network, &alone, 0, expected);
        }
        if let Some(rust) = RustNetwork::new(&network, false) {
            let raw = rust.forward(&inputs);
            for (i, expected) in recorded.iter().enumerate() {
                compare(name, "Rust network", &network, &raw, i, expected);
            }
        }
    }
    assert_eq!(attention_bodies, 7, "seven of the networks are transformers");
}

/// As the engine's network thread runs them on the CPU (`BackendThreads=1`, `FusedConvolutions=true`): oneDNN's
/// fused convolutions where a ReLU tower has them, and a squeeze-excitation's full-size passes in plain Rust.
#[test]
fn every_test_network_matches_lc0_on_the_engines_cpu_path() {
    tch::set_num_threads(1);
    let mut squeeze_excitation_towers = 0;
    for (name, positions) in &reference() {
        let network = load(name);
        squeeze_excitation_towers +=
            usize::from(matches!(&network.body, Body::Residual(tower) if tower.blocks[0].se.is_some()));
        let recorded: Vec<&Value> = positions.iter().filter(|p| p.get("lc0_failed").is_none()).collect();
        let inputs: Vec<InputPlanes> = recorded.iter().map(|p| planes(&network, p)).collect();
        let mut torch = TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::Float).expect("libtorch network");
        torch.fuse_convolutions().expect("nothing to fuse, or oneDNN fuses in fp32");
        let batch = torch.forward(&inputs).expect("a batch");
        for (i, expected) in recorded.iter().enumerate() {
            compare(name, "libtorch as the engine runs it", &network, &batch, i, expected);
        }
    }
    assert_eq!(squeeze_excitation_towers, 3, "three of the networks have squeeze-excitation");
}

/// The bf16 CPU path of every transformer within [`nn::options::BF16_TOLERANCE`] of lc0's fp32 Q and D, and of
/// its moves left relative to their size, as Maia-1900's bf16 path is held (the policy logits, unbounded, are
/// left to fp32 above).
#[test]
fn every_transformer_in_bf16_stays_within_the_bf16_tolerance_of_lc0() {
    let tolerance = f64::from(nn::options::BF16_TOLERANCE);
    let mut worst: f64 = 0.0;
    for (name, positions) in reference() {
        let network = load(&name);
        if !matches!(network.body, Body::Attention(_)) {
            continue;
        }
        let recorded: Vec<&Value> = positions.iter().filter(|p| p.get("lc0_failed").is_none()).collect();
        let inputs: Vec<InputPlanes> = recorded.iter().map(|p| planes(&network, p)).collect();
        let torch = TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::BFloat16).expect("libtorch network");
        let raw = torch.forward(&inputs).expect("a batch");
        let value_width = raw.value.len() / inputs.len();
        for (i, expected) in recorded.iter().enumerate() {
            let value = &raw.value[i * value_width..(i + 1) * value_width];
            let [w, d, l] = wdl_softmax([value[0], value[1], value[2]]);
            let m = raw.moves_left.as_ref().map_or(0.0, |m| f64::from(m[i]));
            let lc0_m = expected["m"].as_f64().expect("m");
            let differences = [
                (f64::from(w - l) - expected["q"].as_f64().expect("q")).abs(),
                (f64::from(d) - expected["d"].as_f64().expect("d")).abs(),
                (m - lc0_m).abs() / lc0_m.max(1.0),
            ];
            for difference in differences {
                assert!(difference <= tolerance, "{name}, {}: bf16 differs by {difference}", expected["name"]);
                worst = worst.max(difference);
            }
        }
    }
    assert!(worst > 0.0, "bf16 must round somewhere: the test would not see a broken bf16 path");
}
