//! The generated policy tables against lc0's (docs/lc0/network.md §5.10 and the policy_maps vectors): SHA-256s,
//! sizes, known entries, and that every map is a bijection onto the 1858 moves.

use nn::policy_map::{attention_policy_map, conv_policy_map, policy_index_of, policy_moves, POLICY_SIZE};
use serde_json::Value;
use sha2::{Digest, Sha256};
use shakmaty::Role;

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/tm-test-vectors.json");

fn vectors() -> Value {
    let root: Value = serde_json::from_str(&std::fs::read_to_string(VECTORS).unwrap()).unwrap();
    root["policy_maps"].clone()
}

fn sha256_lines<T: ToString>(items: impl Iterator<Item = T>) -> String {
    let text: String = items.map(|i| i.to_string() + "\n").collect();
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

fn assert_bijection(map: &[i16]) {
    let mut seen = vec![false; POLICY_SIZE];
    for &index in map.iter().filter(|&&i| i >= 0) {
        assert!(!seen[index as usize], "index {index} appears twice");
        seen[index as usize] = true;
    }
    assert!(seen.iter().all(|&s| s), "some policy index is not mapped");
}

#[test]
fn move_list_matches_lc0() {
    let v = &vectors()["policy_1858"];
    let moves = policy_moves();
    assert_eq!(moves.len(), 1858);
    assert_eq!(
        sha256_lines(moves.iter().map(|m| m.uci())),
        v["sha256_of_uci_strings_newline_joined_with_trailing_newline"]
    );
    for (uci, index) in v["index_of"].as_object().unwrap() {
        assert_eq!(moves[index.as_u64().unwrap() as usize].uci(), *uci);
    }
    let per_square: Vec<usize> = (0..5).map(|sq| moves.iter().filter(|m| m.from == sq).count()).collect();
    assert_eq!(per_square, [23, 24, 25, 25, 25]);
}

#[test]
fn conv_map_matches_lc0() {
    let v = &vectors()["conv_policy_73x64"];
    let map = conv_policy_map();
    assert_eq!(map.len(), 4672);
    assert_eq!(sha256_lines(map.iter()), v["sha256_of_decimal_lines"]);
    for (key, expected) in v["samples"].as_object().unwrap() {
        let (plane, square) = key.trim_start_matches("plane").split_once("_sq").unwrap();
        let slot = plane.parse::<usize>().unwrap() * 64 + square.parse::<usize>().unwrap();
        assert_eq!(i64::from(map[slot]), expected.as_i64().unwrap(), "{key}");
    }
    assert_bijection(map);
}

#[test]
fn attention_map_matches_lc0() {
    let v = &vectors()["attention_policy_4288"];
    let map = attention_policy_map();
    assert_eq!(map.len(), 4288);
    assert_eq!(sha256_lines(map.iter()), v["sha256_of_decimal_lines"]);
    for (slot, sample) in v["samples"].as_object().unwrap() {
        let slot: usize = slot.parse().unwrap();
        assert_eq!(i64::from(map[slot]), sample[0].as_i64().unwrap());
        assert_eq!(policy_moves()[map[slot] as usize].uci(), sample[1].as_str().unwrap());
    }
    assert_bijection(map);
}

#[test]
fn knight_promotions_use_the_plain_entry_and_odd_moves_have_none() {
    assert_eq!(policy_index_of(48, 56, Some(Role::Knight)), Some(1401));
    assert_eq!(policy_index_of(48, 56, Some(Role::Queen)), Some(1792));
    assert_eq!(policy_index_of(12, 28, Some(Role::Queen)), None);
    assert_eq!(policy_index_of(0, 63 - 6, None), None);
    assert_eq!(policy_index_of(64, 0, None), None);
}
