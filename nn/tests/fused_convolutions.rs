//! `TorchNetwork::fuse_convolutions` (cuDNN's convolution + bias + skip + ReLU in one call, CUDA only) where it
//! cannot fuse: on the CPU, where libtorch has no such call, it must refuse and leave the network computing
//! exactly what it computed before; for networks without a ReLU tower it has nothing to fuse. What it computes on
//! CUDA is checked by `scripts/gpu-check` against lc0's outputs.

use std::path::Path;

use nn::encoder::{encode_position, InputPlanes};
use nn::torch_net::TorchNetwork;
use nn::network::Network;
use nn::{game_history, load_network};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn inputs(network: &Network) -> Vec<InputPlanes> {
    [&[][..], &["e2e4", "c7c5", "g1f3"]]
        .iter()
        .map(|moves| {
            let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            let history = game_history(START, &moves).expect("legal");
            encode_position(&history, network.input_format).expect("a history").planes
        })
        .collect()
}

#[test]
fn on_the_cpu_fusion_is_refused_and_the_network_computes_what_it_computed_before() {
    let network = load_network(&Path::new(ROOT).join("weights/maia-1900.pb.gz")).expect("scripts/setup installs it");
    let mut torch = TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::Float).expect("libtorch network");
    let positions = inputs(&network);
    let before = torch.forward(&positions).expect("a batch");
    let refused = torch.fuse_convolutions();
    assert!(refused.is_err(), "Maia's ReLU tower on the CPU: {refused:?}");
    let after = torch.forward(&positions).expect("the separate operations still run");
    assert_eq!(after.policy, before.policy);
    assert_eq!(after.value, before.value);
}

#[test]
fn networks_without_a_relu_tower_have_nothing_to_fuse() {
    for net in ["conv-convolution-policy-mlh-mish", "transformer-pe-map-smolgen"] {
        let network = load_network(&Path::new(ROOT).join(format!("reference/nets/{net}.pb.gz"))).expect("a test net");
        let mut torch = TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::Float).expect("libtorch network");
        assert!(matches!(torch.fuse_convolutions(), Ok(false)), "{net}");
    }
}
