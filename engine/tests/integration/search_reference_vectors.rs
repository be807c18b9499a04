//! The search's formulas against lc0's numbers in reference/tm-test-vectors.json.

use engine::options::EngineOptions;
use engine::search::{collision_budget, cpuct, fast_log, wdl_mu, wdl_mu_centipawns};
use serde_json::Value;

fn vectors() -> Value {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/tm-test-vectors.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn rows(key: &str) -> Vec<Value> {
    vectors()[key]["rows"].as_array().unwrap().clone()
}

#[test]
fn fast_log_matches_lc0() {
    for row in rows("fast_log") {
        let x = row["x"].as_f64().unwrap() as f32;
        let expected = row["fast_log"].as_f64().unwrap() as f32;
        assert_eq!(fast_log(x), expected, "FastLog({x})");
    }
}

#[test]
fn cpuct_matches_lc0_with_fast_log() {
    let params = EngineOptions::default().search_params();
    for row in rows("cpuct") {
        let n = row["N"].as_u64().unwrap() as u32;
        let expected = row["cpuct_f32_fastlog"].as_f64().unwrap() as f32;
        assert_eq!(cpuct(&params, n, false), expected, "cpuct({n})");
        assert_eq!(cpuct(&params, n, true), expected, "cpuct({n}) at the root, by default the same");
    }
}

#[test]
fn collision_budget_matches_lc0() {
    let params = EngineOptions::default().search_params();
    for row in rows("collisions_left") {
        let n = row["n"].as_u64().unwrap();
        assert_eq!(u64::from(collision_budget(&params, n)), row["collisions_left"].as_u64().unwrap(), "n = {n}");
    }
}

#[test]
fn wdl_mu_score_matches_lc0_output() {
    for row in rows("uci_score_wdl_mu") {
        let raw = row["raw_wdl"].as_array().unwrap();
        let (w, d, l) =
            (raw[0].as_f64().unwrap() as f32, raw[1].as_f64().unwrap() as f32, raw[2].as_f64().unwrap() as f32);
        let wl = w - l;
        let mu = row["mu"].as_f64().unwrap() as f32;
        assert!((wdl_mu(wl, d) - mu).abs() < 1e-4, "{}: mu {} vs {mu}", row["position"], wdl_mu(wl, d));
        assert_eq!(
            i64::from(wdl_mu_centipawns(wl, d, true)),
            row["uci_score_cp"].as_i64().unwrap(),
            "{}",
            row["position"]
        );
    }
}
