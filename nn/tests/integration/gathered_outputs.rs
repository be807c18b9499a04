//! The logits the search reads, gathered from the policy rows where they reach the host in the network's own
//! precision (`TorchNetwork::forward_gathered`), against the same logits from libtorch's f32 rows of every
//! position (`forward`, then `RawOutputs::gathered`): in f32, f16 and bf16 on a batch that is padded, they must
//! be the same bit for bit, as f16 and bf16 widen to f32 exactly.

use std::path::Path;

use nn::encoder::{encode_position, HistoryFill, InputPlanes};
use nn::raw_outputs::PolicyGather;
use nn::torch_net::TorchNetwork;
use nn::{game_history, load_network};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Five positions: `padded_batch_size(5)` is 6, so one empty position is computed and must not be read.
const GAMES: [&[&str]; 5] = [
    &[],
    &["e2e4"],
    &["e2e4", "c7c5", "g1f3"],
    &["d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4"],
    &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1"],
];

/// Each position reads its own 40 indices, spread over the whole row and different for every position, so that
/// a row read from the wrong position or at the wrong offset shows.
fn gather() -> PolicyGather {
    let indices = (0..GAMES.len()).flat_map(|position| (0..40).map(move |k| (k * 46 + position * 7) % 1858));
    PolicyGather { indices: indices.collect(), moves: vec![40; GAMES.len()] }
}

fn assert_gathered_rows_equal_the_f32_rows(net: &str, kind: tch::Kind) {
    let network = load_network(&Path::new(ROOT).join(format!("reference/nets/{net}.pb.gz"))).expect("a test net");
    let inputs: Vec<InputPlanes> = GAMES
        .iter()
        .map(|moves| {
            let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            let history = game_history(START, &moves).expect("legal");
            encode_position(&history, network.input_format, HistoryFill::FenOnly).expect("a history").planes
        })
        .collect();
    let torch = TorchNetwork::new(&network, tch::Device::Cpu, kind).expect("libtorch network");
    let gather = gather();
    let expected = torch.forward(&inputs).expect("a batch").gathered(&gather);
    let gathered = torch.forward_gathered(&inputs, &gather).expect("a batch");
    assert_eq!(gathered.logits.len(), GAMES.len() * 40, "{net} in {kind:?}");
    let bits = |logits: &[f32]| logits.iter().map(|l| l.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&gathered.logits), bits(&expected.logits), "{net} in {kind:?}: the gathered logits");
    assert_eq!(gathered.value, expected.value, "{net} in {kind:?}: the values");
    assert_eq!(gathered.moves_left, expected.moves_left, "{net} in {kind:?}: moves left");
    assert!(gathered.moves_left.is_some(), "{net} has a moves-left head, which must be read too");
}

#[test]
fn convolution_policy_logits_are_gathered_exactly_in_every_precision() {
    for kind in [tch::Kind::Float, tch::Kind::Half, tch::Kind::BFloat16] {
        assert_gathered_rows_equal_the_f32_rows("conv-convolution-policy-mlh-mish", kind);
    }
}

#[test]
fn attention_policy_logits_are_gathered_exactly_in_every_precision() {
    for kind in [tch::Kind::Float, tch::Kind::Half, tch::Kind::BFloat16] {
        assert_gathered_rows_equal_the_f32_rows("se-attention-policy-mlh", kind);
    }
}
