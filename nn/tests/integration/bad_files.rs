//! Every kind of bad weights file gives a typed error naming the problem, never a panic.

use crate::synthetic;

use std::io::Write;

use nn::{NetworkProblem, NnError};
use prost::Message;
use synthetic::{build, Spec, Storage};

const SPEC: Spec = Spec {
    filters: 4,
    blocks: 1,
    se: true,
    mish: false,
    policy: 2,
    wdl: true,
    moves_left: false,
    storage: Storage::Float16,
    betas: true,
};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap();
    out
}

fn good() -> nn::proto::Net {
    build(SPEC, 3).0
}

fn problem(net: &nn::proto::Net) -> NetworkProblem {
    nn::parse_network(&gzip(&net.encode_to_vec())).expect_err("the network must be rejected")
}

#[test]
fn the_good_network_loads_gzipped_and_plain() {
    assert!(nn::parse_network(&gzip(&good().encode_to_vec())).is_ok());
    assert!(nn::parse_network(&good().encode_to_vec()).is_ok());
}

#[test]
fn truncated_gzip_is_a_gzip_error() {
    let bytes = gzip(&good().encode_to_vec());
    for cut in [3, bytes.len() / 2, bytes.len() - 5] {
        assert!(matches!(nn::parse_network(&bytes[..cut]), Err(NetworkProblem::Gzip(_))), "cut at {cut}");
    }
}

#[test]
fn a_gzip_that_claims_or_inflates_more_than_it_holds_is_refused_before_it_is_followed() {
    let bomb = gzip(&vec![0u8; 10_000_000]);
    assert!(bomb.len() < 20_000, "ten million zeros compress to {} bytes", bomb.len());
    let with_claim = |claimed: u32| {
        let mut bytes = bomb.clone();
        let at = bytes.len() - 4;
        bytes[at..].copy_from_slice(&claimed.to_le_bytes());
        bytes
    };
    // The trailer says 1,000 bytes: inflating stops at 1,001 and the file is refused.
    match nn::parse_network(&with_claim(1_000)) {
        Err(NetworkProblem::Gzip(reason)) => assert!(reason.contains("inflates beyond the 1000 bytes"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // A claim of 4 GB from a few kilobytes is impossible for deflate: refused before any allocation.
    match nn::parse_network(&with_claim(u32::MAX)) {
        Err(NetworkProblem::Gzip(reason)) => assert!(reason.contains("more than"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // The honest trailer inflates all ten million zeros, which are no network.
    assert!(matches!(nn::parse_network(&bomb), Err(NetworkProblem::Protobuf(_) | NetworkProblem::Magic(_))));
}

#[test]
fn random_bytes_and_text_formats_are_rejected() {
    let mut state = 0x1234_5678_u32;
    let noise: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect();
    assert!(nn::parse_network(&noise).is_err());
    assert!(nn::parse_network(&gzip(&noise)).is_err());
    assert!(nn::parse_network(&[]).is_err());
    assert_eq!(nn::parse_network(b"2\n0.5 0.25\n").unwrap_err(), NetworkProblem::TextFormat('2'));
    assert_eq!(nn::parse_network(&gzip(b"1\n0.5\n")).unwrap_err(), NetworkProblem::TextFormat('1'));
}

#[test]
fn wrong_magic_and_too_new_versions_are_rejected() {
    let mut net = good();
    net.magic = Some(0x1c1);
    assert_eq!(problem(&net), NetworkProblem::Magic(0x1c1));
    let mut net = good();
    net.min_version = Some(nn::proto::EngineVersion { major: Some(0), minor: Some(34), patch: Some(0) });
    assert_eq!(problem(&net), NetworkProblem::TooNew("0.34.0".into()));
    net.min_version = Some(nn::proto::EngineVersion { major: Some(97), minor: Some(98), patch: Some(99) });
    assert!(nn::parse_network(&gzip(&net.encode_to_vec())).is_ok());
}

#[test]
fn missing_layers_are_named() {
    let mut net = good();
    net.weights.as_mut().unwrap().policy1 = None;
    assert_eq!(problem(&net), NetworkProblem::MissingLayer("policy1".into()));
    let mut net = good();
    net.weights.as_mut().unwrap().ip2_val_b = None;
    assert_eq!(problem(&net), NetworkProblem::MissingLayer("ip2_val bias".into()));
    let mut net = good();
    net.weights = None;
    assert!(matches!(problem(&net), NetworkProblem::UnsupportedFormat(_)));
}

#[test]
fn wrong_sizes_are_reported_with_the_layer() {
    let mut net = good();
    let se = net.weights.as_mut().unwrap().residual[0].se.as_mut().unwrap();
    se.b2.as_mut().unwrap().params.as_mut().unwrap().truncate(4);
    assert!(matches!(problem(&net), NetworkProblem::WrongSize { ref layer, .. } if layer.contains("se")));
    let mut net = good();
    let conv = net.weights.as_mut().unwrap().residual[0].conv1.as_mut().unwrap();
    conv.bn_means.as_mut().unwrap().params.as_mut().unwrap().truncate(2);
    assert!(
        matches!(problem(&net), NetworkProblem::WrongSize { ref layer, .. } if layer == "residual[0].conv1.bn_means")
    );
    let mut net = good();
    net.weights
        .as_mut()
        .unwrap()
        .input
        .as_mut()
        .unwrap()
        .weights
        .as_mut()
        .unwrap()
        .params
        .as_mut()
        .unwrap()
        .truncate(10);
    assert!(matches!(problem(&net), NetworkProblem::WrongSize { ref layer, .. } if layer == "input.weights"));
    let mut net = good();
    net.weights.as_mut().unwrap().ip1_val_w.as_mut().unwrap().params.as_mut().unwrap().push(0);
    assert!(matches!(problem(&net), NetworkProblem::Encoding { .. }));
}

#[test]
fn unsupported_formats_are_named() {
    let format = |f: &mut dyn FnMut(&mut nn::proto::NetworkFormat)| {
        let mut net = good();
        f(net.format.as_mut().unwrap().network_format.as_mut().unwrap());
        problem(&net)
    };
    let refused = |f: &mut dyn FnMut(&mut nn::proto::NetworkFormat)| match format(f) {
        NetworkProblem::UnsupportedValue { field, value, supported } => (field, value, supported),
        other => panic!("expected an unsupported value, got {other:?}"),
    };
    let (field, value, supported) = refused(&mut |f| f.network = Some(8));
    assert_eq!((field, value), ("network", 8));
    assert!(supported.contains("6 attention body"), "{supported}");
    assert_eq!(refused(&mut |f| f.input = Some(6)).0, "input");
    assert_eq!(refused(&mut |f| f.value = Some(3)), ("value", 3, "1 classical, 2 WDL".to_string()));
    assert_eq!(refused(&mut |f| f.policy = Some(4)).0, "policy");
    assert_eq!(refused(&mut |f| f.moves_left = Some(2)).0, "moves_left");
    assert_eq!(refused(&mut |f| f.default_activation = Some(2)).0, "default_activation");
    let message = format(&mut |f| f.value = Some(3)).to_string();
    assert_eq!(message, "value 3 is not supported (supported: 1 classical, 2 WDL)");
    let attention = |f: &mut nn::proto::NetworkFormat| {
        f.network = Some(6);
        f.policy = Some(3);
    };
    let (field, value, _) = refused(&mut |f| {
        attention(f);
        f.smolgen_activation = Some(9);
    });
    assert_eq!((field, value), ("smolgen_activation", 9), "softmax, which lc0's CPU backends refuse");
    assert_eq!(
        refused(&mut |f| {
            attention(f);
            f.input_embedding = Some(3);
        })
        .0,
        "input_embedding"
    );
    assert!(format(&mut |f| f.network = Some(5)).to_string().contains("ONNX"));
    assert!(format(&mut |f| f.network = Some(6)).to_string().contains("needs the attention policy"));
    let mut net = good();
    net.onnx_model = Some(vec![1, 2, 3]);
    assert!(matches!(problem(&net), NetworkProblem::UnsupportedFormat(ref t) if t.contains("ONNX")));
    let mut net = good();
    net.weights.as_mut().unwrap().encoder.push(nn::proto::EncoderLayer::default());
    net.format.as_mut().unwrap().network_format.as_mut().unwrap().network = Some(3);
    assert!(
        matches!(problem(&net), NetworkProblem::UnsupportedFormat(ref t) if t.contains("residual-tower")),
        "{:?}",
        problem(&net)
    );
}

#[test]
fn explicit_unknown_encoding_is_rejected() {
    let mut net = good();
    net.weights.as_mut().unwrap().ip2_val_w.as_mut().unwrap().encoding = Some(0);
    assert!(matches!(problem(&net), NetworkProblem::Encoding { ref layer, .. } if layer == "ip2_val weights"));
}

#[test]
fn file_errors_name_the_file_and_the_way_out() {
    let missing = std::path::Path::new("/nonexistent/maia-1900.pb.gz");
    let error = nn::load_network(missing).unwrap_err();
    assert!(matches!(error, NnError::WeightsNotFound { .. }));
    let text = error.to_string();
    assert!(text.contains("/nonexistent/maia-1900.pb.gz") && text.contains("scripts/setup"), "{text}");
    let dir = std::env::temp_dir().join(format!("nn-bad-file-{}", std::process::id()));
    std::fs::write(&dir, b"not a network").unwrap();
    let error = nn::load_network(&dir).unwrap_err();
    std::fs::remove_file(&dir).unwrap();
    assert!(matches!(error, NnError::InvalidNetwork { .. }), "{error}");
    assert!(error.to_string().contains(&dir.display().to_string()));
}

#[test]
fn corrupted_bytes_never_panic() {
    let bytes = good().encode_to_vec();
    let mut state = 0x9e37_79b9_u32;
    for _ in 0..2000 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let mut corrupted = bytes.clone();
        let position = state as usize % corrupted.len();
        corrupted[position] ^= (state >> 24) as u8 | 1;
        if state.is_multiple_of(3) {
            corrupted.truncate(state as usize % corrupted.len());
        }
        if let Ok(network) = nn::parse_network(&corrupted) {
            let torch = nn::torch_net::TorchNetwork::new(&network, tch::Device::Cpu, tch::Kind::Float).unwrap();
            let half_everywhere = nn::encoder::Plane { mask: !0, value: 0.5 };
            torch.forward(&[[half_everywhere; 112]]).unwrap();
        }
    }
}
