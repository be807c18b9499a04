//! The generic stoppers (docs/lc0/stoppers.md §3.4–3.5) and the chain builder (§3.3), with hand-worked numbers.

use crate::common;

use common::{ctx, go, lc0_stopper_options};
use timemgr::stoppers::{KldGainStopper, SmartPruningStopper};
use timemgr::{
    build_stopper_chain, time_manager_from_str, CommonStopperOptions, GoParams, Hints, IterationStats, Stopper,
};

fn stats(t: i64, nodes: u64, edge_n: Vec<u32>) -> IterationStats {
    IterationStats {
        time_since_movestart_ms: t,
        nodes_since_movestart: nodes,
        total_nodes: nodes,
        edge_n,
        ..IterationStats::default()
    }
}

#[test]
fn smart_pruning_hand_worked() {
    let mut sp = SmartPruningStopper::new(1.33, 0);
    let mut hints = Hints::default();
    assert!(!sp.should_stop(&stats(100, 10, vec![6, 3, 1]), &mut hints), "first evaluation is recorded");
    assert!(!sp.should_stop(&stats(250, 500, vec![400, 50, 50]), &mut hints), "inside the 200 ms tolerance");
    // nodes 1000 + 300, elapsed 300 ms: nps = 1_300_000 div 300 + 1 = 4334; 1 s left: 4334/1.33 = 3258.6.
    let mut hints = Hints::default();
    hints.update_remaining_time(1000);
    assert!(!sp.should_stop(&stats(400, 1000, vec![3000, 1000, 0]), &mut hints), "gap 2000 can be closed");
    assert_eq!(hints.remaining_playouts(), 3258);
    let mut hints = Hints::default();
    hints.update_remaining_time(1000);
    assert!(sp.should_stop(&stats(400, 1000, vec![5000, 1000, 0]), &mut hints), "gap 4000 cannot");
    // An NPS hint replaces the estimate: 20000/1.33 = 15037.6.
    let mut hints = Hints::default();
    hints.update_remaining_time(1000);
    hints.update_estimated_nps(20_000.0);
    assert!(!sp.should_stop(&stats(400, 1000, vec![5000, 1000, 0]), &mut hints));
    assert_eq!(hints.remaining_playouts(), 15037);
}

#[test]
fn smart_pruning_trivial_roots_and_switches() {
    let mut hints = Hints::default();
    assert!(SmartPruningStopper::new(1.33, 0).should_stop(&stats(0, 0, vec![5]), &mut hints), "one legal move");
    let losing = IterationStats { num_losing_edges: 1, ..stats(0, 0, vec![5, 3]) };
    assert!(SmartPruningStopper::new(1.33, 0).should_stop(&losing, &mut hints), "one non-losing move");
    let resignable = IterationStats { may_resign: true, ..losing.clone() };
    assert!(!SmartPruningStopper::new(1.33, 0).should_stop(&resignable, &mut hints));
    let won = IterationStats { win_found: true, ..stats(0, 0, vec![5, 3, 1]) };
    assert!(SmartPruningStopper::new(1.33, 0).should_stop(&won, &mut hints));
    assert!(!SmartPruningStopper::new(0.0, 0).should_stop(&won, &mut hints), "factor 0 disables");
    // Minimum batches hold the stop back but not the playout hint.
    let mut sp = SmartPruningStopper::new(1.33, 10);
    sp.should_stop(&stats(100, 10, vec![6, 3, 1]), &mut hints);
    let mut hints = Hints::default();
    hints.update_remaining_time(0);
    let few_batches = IterationStats { batches_since_movestart: 5, ..stats(400, 1000, vec![5000, 1000, 0]) };
    assert!(!sp.should_stop(&few_batches, &mut hints));
    assert_eq!(hints.remaining_playouts(), 1);
}

#[test]
fn kld_gain_hand_worked() {
    // Snapshot [50, 50] at c = 100, then [150, 50] at c = 200:
    // KLD = 0.5·ln(0.5/0.75) + 0.5·ln(0.5/0.25) = 0.143841; per node 0.00143841.
    let run = |min_gain: f32| {
        let mut kld = KldGainStopper::new(min_gain, 100);
        let mut hints = Hints::default();
        assert!(!kld.should_stop(&stats(0, 101, vec![50, 50]), &mut hints));
        assert!(!kld.should_stop(&stats(0, 150, vec![100, 49]), &mut hints), "inside the interval");
        kld.should_stop(&stats(0, 201, vec![150, 50]), &mut hints)
    };
    assert!(run(0.0015));
    assert!(!run(0.0014));
}

fn poll(chain: &mut Box<dyn Stopper>, stats: &IterationStats) -> (bool, Hints) {
    let mut hints = Hints::default();
    (chain.should_stop(stats, &mut hints), hints)
}

#[test]
fn chain_honours_nodes_movetime_depth_and_mate() {
    let opts = lc0_stopper_options();
    let c = ctx(0, 0);
    let nodes = GoParams { nodes: Some(500), ..GoParams::default() };
    let mut chain = build_stopper_chain(None, &nodes, &c, &opts);
    let (stop, hints) = poll(&mut chain, &IterationStats { total_nodes: 400, ..stats(10, 100, vec![300, 100]) });
    assert!(!stop);
    assert_eq!(hints.remaining_playouts(), 100, "visits stopper publishes 500 − 400");
    assert!(poll(&mut chain, &IterationStats { total_nodes: 500, ..stats(10, 200, vec![300, 200]) }).0);
    assert_eq!(chain.stop_reason().as_deref(), Some("reached 500 visits"));

    let playouts = CommonStopperOptions { nodes_as_playouts: true, ..opts.clone() };
    let mut chain = build_stopper_chain(None, &nodes, &c, &playouts);
    assert!(!poll(&mut chain, &IterationStats { total_nodes: 600, ..stats(10, 400, vec![300, 300]) }).0);
    assert!(poll(&mut chain, &IterationStats { total_nodes: 700, ..stats(10, 500, vec![350, 350]) }).0);

    let movetime = GoParams { movetime: Some(1000), ..GoParams::default() };
    let mut chain = build_stopper_chain(None, &movetime, &c, &opts);
    assert!(!poll(&mut chain, &stats(799, 100, vec![50, 50])).0);
    assert!(poll(&mut chain, &stats(800, 100, vec![50, 50])).0, "movetime − overhead");

    let infinite = GoParams { movetime: Some(1000), infinite: true, ..GoParams::default() };
    let mut chain = build_stopper_chain(None, &infinite, &c, &opts);
    assert!(!poll(&mut chain, &stats(100_000, 100, vec![100, 0])).0, "no movetime, no smart pruning");

    let depth = GoParams { depth: Some(10), ..GoParams::default() };
    let mut chain = build_stopper_chain(None, &depth, &c, &opts);
    assert!(!poll(&mut chain, &IterationStats { average_depth: 9, ..stats(10, 10, vec![5, 5]) }).0);
    assert!(poll(&mut chain, &IterationStats { average_depth: 10, ..stats(10, 10, vec![5, 5]) }).0);

    let mate = GoParams { mate: Some(3), ..GoParams::default() };
    let mut chain = build_stopper_chain(None, &mate, &c, &opts);
    assert!(!poll(&mut chain, &IterationStats { mate_depth: Some(4), ..stats(10, 10, vec![5, 5]) }).0);
    assert!(poll(&mut chain, &IterationStats { mate_depth: Some(3), ..stats(10, 10, vec![5, 5]) }).0);
}

#[test]
fn the_ram_limit_is_a_member_of_the_chain_even_in_infinite_search() {
    let c = ctx(0, 0);
    let infinite = GoParams { infinite: true, ..GoParams::default() };
    let limited = CommonStopperOptions { ram_limit_mb: 2, ..lc0_stopper_options() };
    let mut chain = build_stopper_chain(None, &infinite, &c, &limited);
    assert!(!poll(&mut chain, &IterationStats { tree_bytes: 1_999_999, ..stats(10, 100, vec![100, 0]) }).0);
    assert!(poll(&mut chain, &IterationStats { tree_bytes: 2_000_000, ..stats(10, 100, vec![100, 0]) }).0);
    assert_eq!(chain.stop_reason().as_deref(), Some("the tree reached RamLimitMb (2 MB)"));
    let mut unlimited = build_stopper_chain(None, &infinite, &c, &lc0_stopper_options());
    assert!(!poll(&mut unlimited, &IterationStats { tree_bytes: u64::MAX, ..stats(10, 100, vec![100, 0]) }).0);
}

#[test]
fn chain_puts_the_time_manager_first_and_reports_back_to_it() {
    let mut tm = time_manager_from_str("legacy").unwrap();
    let no_pruning = CommonStopperOptions { smart_pruning_factor: 0.0, ..lc0_stopper_options() };
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &no_pruning);
    let (stop, hints) = poll(&mut chain, &stats(4000, 100, vec![60, 40]));
    assert!(!stop);
    assert_eq!(hints.remaining_time_ms(), 898, "deadline 4898 − 4000");
    let last = stats(4898, 200, vec![120, 80]);
    assert!(poll(&mut chain, &last).0);
    assert_eq!(chain.stop_reason().as_deref(), Some("deadline 4898 ms reached"));
    tm.end_of_move(&last);
    let traces = tm.drain_trace();
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0].move_time_ms, Some(4898));
    assert_eq!(traces[0].stop_reason.as_deref(), Some("deadline 4898 ms reached"));
}

#[test]
fn smart_pruning_uses_the_smooth_hints() {
    let mut tm = time_manager_from_str("smooth(preset=lc0)").unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &lc0_stopper_options());
    let first = IterationStats { time_since_first_batch_ms: 80, ..stats(100, 2000, vec![1500, 400, 100]) };
    assert!(!poll(&mut chain, &first).0);
    // At 1500 ms smooth is in its forced window (limit D + A_p = 9764) and publishes 25000 NPS:
    // 8.264 s · 25000 / 1.33 = 155338 playouts cannot be beaten by a gap of 30000.
    let later = IterationStats { time_since_first_batch_ms: 1000, ..stats(1100, 25_000, vec![35_000, 5_000, 1_000]) };
    let (stop, hints) = poll(&mut chain, &later);
    assert!(!stop);
    assert_eq!(hints.estimated_nps(), Some(25_000.0));
    assert_eq!(hints.remaining_time_ms(), 9764 - 1100);
    assert_eq!(hints.remaining_playouts(), (8.664 * 25_000.0 / 1.33) as u64);
}
