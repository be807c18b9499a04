//! Tiny networks in the weights schema, covering every supported head, activation and encoding, run
//! through the loader, the libtorch network and the network in plain Rust, and compared with an
//! independent f64 forward pass.

use crate::synthetic;

use nn::encoder::{encode_position, write_dense, HistoryFill};
use nn::network::InputFormat;
use nn::rust_net::RustNetwork;
use nn::torch_net::{RawOutputs, TorchNetwork};
use prost::Message;
use synthetic::{build, forward, Spec, Storage};

const BASE: Spec = Spec {
    filters: 4,
    blocks: 2,
    se: true,
    mish: false,
    policy: 1,
    wdl: true,
    moves_left: false,
    storage: Storage::Linear16,
    betas: true,
};

fn check(spec: Spec) {
    let (net, reference) = build(spec, 7);
    let mut bytes = Vec::new();
    let mut gz = flate2::write::GzEncoder::new(&mut bytes, flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &net.encode_to_vec()).unwrap();
    gz.finish().unwrap();
    let network = nn::parse_network(&bytes).unwrap_or_else(|e| panic!("{spec:?}: {e}"));
    assert_eq!(network.moves_left.is_some(), spec.moves_left);
    let history = nn::game_history(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3",
        &["f8c5".into(), "c2c3".into()],
    )
    .unwrap();
    let planes = encode_position(&history, InputFormat::Classical, HistoryFill::FenOnly).unwrap().planes;
    let mut input = vec![0.0f32; 112 * 64];
    write_dense(&planes, &mut input);
    let torch = TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::Float).unwrap();
    compare(spec, "libtorch", torch.forward(&[planes]).unwrap(), &reference, &input);
    match RustNetwork::new(&network, false) {
        Some(rust) => compare(spec, "Rust network", rust.forward(&[planes]), &reference, &input),
        None => assert_eq!(spec.policy, 3, "{spec:?}: only attention policies skip the Rust network"),
    }
}

fn compare(spec: Spec, path: &str, raw: RawOutputs, reference: &synthetic::Reference, input: &[f32]) {
    let (policy, value, moves_left) = forward(reference, input);
    let close = |ours: f32, theirs: f64, what: &str| {
        assert!(
            (f64::from(ours) - theirs).abs() <= 1e-4 * (1.0 + theirs.abs()),
            "{spec:?}, {path}: {what} {ours} vs {theirs}"
        );
    };
    for (i, (&ours, &theirs)) in raw.policy.iter().zip(&policy).enumerate() {
        close(ours, theirs, &format!("policy logit {i}"));
    }
    assert_eq!(raw.value.len(), value.len());
    for (&ours, &theirs) in raw.value.iter().zip(&value) {
        close(ours, theirs, "value output");
    }
    match (raw.moves_left, moves_left) {
        (Some(ours), Some(theirs)) => close(ours[0], theirs, "moves left"),
        (None, None) => {}
        other => panic!("{spec:?}: moves-left presence differs: {other:?}"),
    }
}

#[test]
fn classical_policy_classical_value_relu_se_linear16() {
    check(Spec { wdl: false, ..BASE });
}

#[test]
fn convolution_policy_wdl_moves_left_mish_without_se_float16() {
    check(Spec { policy: 2, se: false, mish: true, moves_left: true, storage: Storage::Float16, ..BASE });
}

#[test]
fn attention_policy_wdl_bfloat16() {
    check(Spec { policy: 3, storage: Storage::Bfloat16, ..BASE });
}

#[test]
fn float32_with_missing_batch_norm_betas() {
    check(Spec { storage: Storage::Float32, betas: false, moves_left: true, ..BASE });
}
