//! The search's arithmetic against lc0's own, compiled as lc0's build compiles it (reference/lc0-fused-arithmetic.json,
//! from capture-lc0-fused-arithmetic.py: g++ -O3 -march=native fuses a product and the sum after it into one fused
//! multiply-add). Each case's result must be lc0's to the bit; about half of them round otherwise without fusion.
#![cfg(test)]

use super::fastmath::{fast_log2, fast_logistic};
use super::node::{Edge, Node};
use super::select::{cpuct, fpu_given_visited_policy, MovesLeftUtility};
use super::wdl_rescale::{accurate_params, simplified_params, wdl_rescale, RescaleParams};
use serde_json::Value;
use shakmaty::{Chess, Position};

/// The recorded cases of one function, each a row of hex words.
fn cases(name: &str) -> Vec<Vec<String>> {
    let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/lc0-fused-arithmetic.json"));
    let reference: Value = serde_json::from_str(text).expect("the reference parses");
    let rows = reference["cases"][name].as_array().unwrap_or_else(|| panic!("no cases of {name}"));
    assert!(rows.len() > 100, "{name}: {} cases", rows.len());
    rows.iter()
        .map(|row| row.as_array().unwrap().iter().map(|word| word.as_str().unwrap().to_string()).collect())
        .collect()
}

fn float(hex: &str) -> f32 {
    f32::from_bits(u32::from_str_radix(hex, 16).expect("8 hex digits"))
}

fn double(hex: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(hex, 16).expect("16 hex digits"))
}

/// Asserts that `ours` has the bits of lc0's result `theirs`, naming the case.
fn assert_bits(name: &str, row: &[String], ours: f32, theirs: &str) {
    assert_eq!(format!("{:08x}", ours.to_bits()), theirs, "{name} {row:?}: ours {ours}, lc0's {}", float(theirs));
}

#[test]
fn fast_log2_exp2_and_logistic_are_lc0s_to_the_bit() {
    for row in cases("fast_log2") {
        assert_bits("fast_log2", &row, fast_log2(float(&row[0])), &row[1]);
    }
    for row in cases("fast_exp2") {
        assert_bits("fast_exp2", &row, nn::softmax::fast_exp2(float(&row[0])), &row[1]);
    }
    for row in cases("fast_logistic") {
        assert_bits("fast_logistic", &row, fast_logistic(float(&row[0])), &row[1]);
    }
}

#[test]
fn cpuct_and_fpu_are_lc0s_to_the_bit() {
    let mut params = crate::options::EngineOptions::default().search_params();
    for row in cases("cpuct") {
        params.exploration.cpuct = float(&row[0]);
        params.exploration.cpuct_base = float(&row[1]);
        params.exploration.cpuct_factor = float(&row[2]);
        assert_bits("cpuct", &row, cpuct(&params, row[3].parse().unwrap(), false), &row[4]);
    }
    for row in cases("fpu") {
        let node = Node { wl: double(&row[0]), d: float(&row[1]), ..Node::default() };
        params.exploration.fpu_absolute = false;
        params.exploration.fpu_value = float(&row[3]);
        let ours = fpu_given_visited_policy(&params.exploration, &node, float(&row[2]), float(&row[4]));
        assert_bits("fpu", &row, ours, &row[5]);
    }
}

#[test]
fn the_moves_left_utility_added_to_q_is_lc0s_to_the_bit() {
    let mut params = crate::options::EngineOptions::default().search_params();
    (params.moves_left_slope, params.moves_left_max_effect) = (0.0027, 0.0345);
    (params.moves_left_constant_factor, params.moves_left_scaled_factor) = (0.0, 1.6521);
    params.moves_left_quadratic_factor = -0.6521;
    let moves = Chess::default().legal_moves();
    for row in cases("moves_left") {
        let mut parent = Node {
            wl: double(&row[0]),
            m: float(&row[1]),
            edges: vec![Edge::new(&moves[0], 0.5)].into_boxed_slice().into(),
            ..Node::default()
        };
        parent.set_child(0, Node { m: float(&row[2]), n: 1, ..Node::default() });
        params.moves_left_threshold = float(&row[3]);
        let utility = MovesLeftUtility::new(&params, &parent, true);
        assert_bits("moves_left", &row, utility.plus_utility(parent.edge(0), float(&row[4]), float(&row[5])), &row[6]);
    }
}

#[test]
fn wdl_rescaling_and_its_contempt_parameters_are_lc0s_to_the_bit() {
    for row in cases("wdl_rescale") {
        let params = RescaleParams { ratio: float(&row[2]), diff: float(&row[3]) };
        let (v, d, mu) = wdl_rescale(float(&row[0]), float(&row[1]), params, float(&row[4]), row[5] == "1", 1.4);
        assert_bits("wdl_rescale v", &row, v, &row[6]);
        assert_bits("wdl_rescale d", &row, d, &row[7]);
        assert_eq!(f64::from(mu), double(&row[8]), "wdl_rescale mu {row:?}");
    }
    for row in cases("contempt_params") {
        let (contempt, target, bias, elo) = (float(&row[0]), float(&row[1]), float(&row[2]), float(&row[3]));
        let accurate = accurate_params(contempt, target, 0.5, bias, 420.0, 1.0);
        assert_bits("accurate ratio", &row, accurate.ratio, &row[4]);
        assert_bits("accurate diff", &row, accurate.diff, &row[5]);
        let simplified = simplified_params(contempt, 0.5, elo, 420.0, 1.0);
        assert_bits("simplified ratio", &row, simplified.ratio, &row[6]);
        assert_bits("simplified diff", &row, simplified.diff, &row[7]);
    }
}
