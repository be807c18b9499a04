//! Helpers shared by the integration tests: the vector file and a driver for one move.

#![allow(dead_code)]

use serde_json::Value;
use timemgr::{CommonStopperOptions, GoParams, Hints, IterationStats, MoveContext, MoveTrace, TimeManager};

/// The vendored lc0 test vectors.
pub fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/tm-test-vectors.json");
    let text = std::fs::read_to_string(path).expect("reference/tm-test-vectors.json is vendored");
    serde_json::from_str(&text).expect("the vector file is JSON")
}

/// `go wtime T btime T winc I binc I` for white.
pub fn go(time: i64, inc: i64) -> GoParams {
    GoParams { wtime: Some(time), btime: Some(time), winc: Some(inc), binc: Some(inc), ..GoParams::default() }
}

/// White to move at `ply` with lc0's default overhead.
pub fn ctx(ply: u32, reused: u64) -> MoveContext {
    MoveContext {
        white_to_move: true,
        game_ply: ply,
        reused_visits: reused,
        move_overhead_ms: 200,
        legal_moves: 20,
        piece_count: 32,
        ..MoveContext::default()
    }
}

/// Budgets one move, ends it at once (1 ms, 1 node) and returns its trace.
pub fn budget_only(tm: &mut dyn TimeManager, go: &GoParams, ctx: &MoveContext) -> MoveTrace {
    let mut stopper = tm.stopper(go, ctx).expect("a clock was given");
    let stats = IterationStats { time_since_movestart_ms: 1, total_nodes: 1, ..IterationStats::default() };
    stopper.should_stop(&stats, &mut Hints::default());
    tm.end_of_move(&stats);
    let mut traces = tm.drain_trace();
    assert_eq!(traces.len(), 1);
    traces.remove(0)
}

/// Asserts `got` is within `rel` relative error of `want`.
pub fn close(got: f64, want: f64, rel: f64, what: &str) {
    let tolerance = rel * want.abs().max(1e-9);
    assert!((got - want).abs() <= tolerance, "{what}: got {got}, want {want} (rel {rel})");
}

/// A trace value by name from a list of (name, value).
pub fn state_value(values: &[timemgr::trace::TraceValue], name: &str) -> f64 {
    values.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no state value {name}")).value
}

/// lc0's UCI-mode defaults of the generic stoppers (docs/lc0/stoppers.md §3.4–3.5): smart pruning 1.33, no minimum
/// batches, KLD gain off with its interval of 100, no RAM limit.
pub fn lc0_stopper_options() -> CommonStopperOptions {
    CommonStopperOptions {
        smart_pruning_factor: 1.33,
        smart_pruning_minimum_batches: 0,
        nodes_as_playouts: false,
        minimum_kld_gain_per_node: 0.0,
        kld_gain_average_interval: 100,
        ram_limit_mb: 0,
    }
}
