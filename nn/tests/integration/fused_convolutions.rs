//! `TorchNetwork::fuse_convolutions` (a convolution + bias + skip + ReLU in one call: oneDNN's on the CPU, cuDNN's on
//! CUDA): on the CPU in fp32 it fuses, and the network computes what it computed before to within float rounding
//! (its outputs against lc0's are in `maia_reference.rs`); for networks without a ReLU tower it has nothing to fuse.
//! What it computes on CUDA is checked by `scripts/gpu-check` against lc0's outputs.

use std::path::Path;

use nn::encoder::{encode_position, HistoryFill, InputPlanes};
use nn::network::Network;
use nn::torch_net::TorchNetwork;
use nn::{game_history, load_network};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn inputs(network: &Network) -> Vec<InputPlanes> {
    [&[][..], &["e2e4", "c7c5", "g1f3"]]
        .iter()
        .map(|moves| {
            let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            let history = game_history(START, &moves).expect("legal");
            encode_position(&history, network.input_format, HistoryFill::FenOnly).expect("a history").planes
        })
        .collect()
}

#[test]
fn on_the_cpu_onednn_fuses_and_the_network_computes_what_it_computed_before() {
    let network = load_network(&Path::new(ROOT).join("weights/maia-1900.pb.gz")).expect("scripts/setup installs it");
    let mut torch = TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::Float).expect("libtorch network");
    let positions = inputs(&network);
    let before = torch.forward(&positions).expect("a batch");
    assert!(matches!(torch.fuse_convolutions(), Ok(true)), "Maia's ReLU tower on the CPU");
    let after = torch.forward(&positions).expect("the fused operations run");
    for (name, after, before) in [("policy", &after.policy, &before.policy), ("value", &after.value, &before.value)] {
        let largest = after.iter().zip(before).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(largest < 1e-4, "{name}: fused up to {largest} from the separate operations");
    }
}

#[test]
fn networks_without_a_relu_tower_have_nothing_to_fuse() {
    for net in ["conv-convolution-policy-mlh-mish", "transformer-pe-map-smolgen"] {
        let network = load_network(&Path::new(ROOT).join(format!("reference/nets/{net}.pb.gz"))).expect("a test net");
        let mut torch = TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::Float).expect("libtorch network");
        assert!(matches!(torch.fuse_convolutions(), Ok(false)), "{net}");
    }
}
