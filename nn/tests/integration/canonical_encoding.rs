//! Input planes, board transforms and policy indices for input formats 1, 2, 3, 4, 5, 132 and 133
//! against lc0's own (`reference/lc0-canonical-planes.json`, captured from lc0 909a4082 by
//! `reference/capture-lc0-planes.py`; `src/neural/encoder.cc`).

use std::collections::BTreeMap;

use nn::encoder::{
    encode_position, encode_position_into, BoardTransform, EncodedPosition, HistoryFill, InputPlanes, Plane, PLANES,
};
use nn::game_history;
use nn::network::InputFormat;
use nn::policy_map::{move_policy_index, TransposedMoves};
use serde_json::Value;
use shakmaty::{CastlingMode, Position};

const REFERENCE: &str = include_str!("../../../reference/lc0-canonical-planes.json");
const SLOT_PLANES: usize = 13;

struct Case {
    name: String,
    history: Vec<nn::HistoryEntry>,
    json: Value,
}

fn cases() -> Vec<Case> {
    let reference: Value = serde_json::from_str(REFERENCE).unwrap();
    reference["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            let moves: Vec<String> =
                case["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect();
            Case {
                name: case["name"].as_str().unwrap().to_owned(),
                history: game_history(case["fen"].as_str().unwrap(), &moves).unwrap(),
                json: case.clone(),
            }
        })
        .collect()
}

fn format(code: &str) -> InputFormat {
    match code {
        "1" => InputFormat::Classical,
        "2" => InputFormat::CastlingPlane,
        "3" => InputFormat::Canonical,
        "4" => InputFormat::CanonicalHectoplies,
        "132" => InputFormat::CanonicalHectopliesArmageddon,
        "5" => InputFormat::CanonicalV2,
        "133" => InputFormat::CanonicalV2Armageddon,
        other => panic!("unknown input format {other}"),
    }
}

/// lc0's answers for one case, by format code; an entry without planes is one where lc0 crashed.
fn lc0_formats(case: &Case) -> &serde_json::Map<String, Value> {
    case.json["formats"].as_object().unwrap()
}

fn encode(case: &Case, code: &str) -> EncodedPosition {
    encode_position(&case.history, format(code), HistoryFill::FenOnly).unwrap()
}

/// The value a plane puts on `square` (lc0 leaves value 1 on empty planes; only set squares count).
fn dense(mask: u64, value: f32, square: usize) -> f32 {
    if mask >> square & 1 == 1 {
        value
    } else {
        0.0
    }
}

fn reference_planes(entry: &Value) -> Vec<(u64, f32)> {
    entry["planes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|plane| {
            let mask = plane[0].as_str().unwrap().parse().unwrap();
            (mask, plane[1].as_f64().unwrap() as f32)
        })
        .collect()
}

fn assert_planes_equal(ours: &InputPlanes, expected: &[(u64, f32)], what: &str) {
    assert_eq!(expected.len(), ours.len(), "{what}");
    for (index, (plane, &(mask, value))) in ours.iter().zip(expected).enumerate() {
        for square in 0..64 {
            assert_eq!(
                dense(plane.mask, plane.value, square),
                dense(mask, value, square),
                "{what}: plane {index}, square {square}"
            );
        }
    }
}

fn legal_moves_by_uci(case: &Case) -> BTreeMap<String, shakmaty::Move> {
    let position = &case.history.last().unwrap().position;
    position.legal_moves().into_iter().map(|m| (m.to_uci(CastlingMode::Standard).to_string(), m)).collect()
}

#[test]
fn planes_match_lc0_in_every_format() {
    let mut compared = 0;
    for case in cases() {
        for (code, entry) in lc0_formats(&case) {
            if entry.get("planes").is_none() {
                continue;
            }
            let what = format!("{} in format {code}", case.name);
            assert_planes_equal(&encode(&case, code).planes, &reference_planes(entry), &what);
            compared += 1;
        }
    }
    assert!(compared >= 20 * 7, "only {compared} encodings compared");
}

/// A batch's encoder writes every position into planes that held another: one buffer, set to ones at first, takes
/// each case in each format in turn, and each time holds lc0's planes and transform, nothing of the one before.
#[test]
fn planes_written_over_others_match_lc0() {
    let mut planes: InputPlanes = [Plane { mask: !0, value: 9.0 }; PLANES];
    for case in cases() {
        for (code, entry) in lc0_formats(&case) {
            if entry.get("planes").is_none() {
                continue;
            }
            let what = format!("{} in format {code}, over the planes before", case.name);
            let transform =
                encode_position_into(&case.history, format(code), HistoryFill::FenOnly, &mut planes).unwrap();
            assert_planes_equal(&planes, &reference_planes(entry), &what);
            assert_eq!(u64::from(transform.lc0_code()), entry["transform"].as_u64().unwrap(), "{what}");
        }
    }
}

#[test]
fn transforms_match_lc0() {
    for case in cases() {
        for (code, entry) in lc0_formats(&case) {
            let Some(transform) = entry.get("transform") else {
                continue;
            };
            assert_eq!(
                u64::from(encode(&case, code).transform.lc0_code()),
                transform.as_u64().unwrap(),
                "{} in format {code}",
                case.name
            );
        }
    }
}

#[test]
fn untransformed_move_indices_match_lc0() {
    for case in cases() {
        let turn = case.history.last().unwrap().position.turn();
        let expected = case.json["identity_indices"].as_object().unwrap();
        let moves = legal_moves_by_uci(&case);
        assert_eq!(moves.len(), expected.len(), "{}", case.name);
        for (uci, m) in &moves {
            let index = move_policy_index(m, turn, BoardTransform::IDENTITY, TransposedMoves::AsPlanes);
            assert_eq!(index.map(|i| i as u64), expected[uci].as_u64(), "{}: {uci}", case.name);
        }
    }
}

/// Each move's squares moved by the same transform as the planes by default, and exactly as lc0 909a4082's own
/// `MoveToNNIndex` with `TransposedMoves::Lc0HalfTurn`; the two differ only where the transform transposes.
#[test]
fn transformed_move_indices_follow_the_planes_or_lc0() {
    let mut transposed_disagreements = 0;
    for case in cases() {
        let turn = case.history.last().unwrap().position.turn();
        let moves = legal_moves_by_uci(&case);
        for (code, entry) in lc0_formats(&case) {
            let Some(policy) = entry.get("policy").and_then(Value::as_object) else {
                continue;
            };
            let transform = encode(&case, code).transform;
            assert_eq!(moves.len(), policy.len(), "{} in format {code}", case.name);
            for (uci, m) in &moves {
                let what = format!("{} in format {code}: {uci}", case.name);
                let index = move_policy_index(m, turn, transform, TransposedMoves::AsPlanes).map(|i| i as u64);
                assert_eq!(index, policy[uci]["plane_frame"].as_u64(), "{what}");
                let lc0 = policy[uci]["lc0"].as_u64();
                let as_lc0 = move_policy_index(m, turn, transform, TransposedMoves::Lc0HalfTurn).map(|i| i as u64);
                assert_eq!(as_lc0, lc0, "{what}, as lc0 maps it");
                if transform.lc0_code() & 4 == 0 {
                    assert_eq!(index, lc0, "{what}");
                } else if index != lc0 {
                    transposed_disagreements += 1;
                }
            }
        }
    }
    assert!(transposed_disagreements > 0, "lc0's transposed move indices were expected to differ");
}

/// lc0 909a4082 crashes on V2 (formats 5 and 133) when its search for repetitions reaches the fill copies
/// of a FEN with a non-zero fifty-move counter; Kairos stops at the first known position, giving format 4's
/// current board and auxiliary planes (V2 changes only the history) with the older slots empty.
#[test]
fn v2_stops_at_the_first_known_position_where_lc0_crashes() {
    let mut crashes = 0;
    for case in cases() {
        let formats = lc0_formats(&case);
        for (code, entry) in formats {
            let Some(outcome) = entry.get("lc0_outcome") else {
                continue;
            };
            assert!(["5", "133"].contains(&code.as_str()), "{}: {outcome}", case.name);
            assert!(outcome.as_str().unwrap().contains("SIGSEGV"), "{}: {outcome}", case.name);
            let mut expected = reference_planes(&formats["4"]);
            for plane in &mut expected[SLOT_PLANES..8 * SLOT_PLANES] {
                plane.0 = 0;
            }
            if code == "133" {
                expected[110] = reference_planes(&formats["132"])[110];
            }
            let what = format!("{} in format {code}", case.name);
            assert_planes_equal(&encode(&case, code).planes, &expected, &what);
            crashes += 1;
        }
    }
    assert!(crashes > 0, "the reference was expected to record lc0's V2 crash");
}
