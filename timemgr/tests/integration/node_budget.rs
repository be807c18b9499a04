//! `smooth(limit=nodes)`: the per-move tree-size target is the stop, with exact smart pruning on the node
//! budget and time as the safety net; every number below is worked out by hand from PR 1195's formulas.

use crate::common;

use common::{ctx, go, lc0_stopper_options};
use timemgr::{build_stopper_chain, time_manager_from_str, CommonStopperOptions, Hints, IterationStats, StopCause};

/// pr1195 defaults with a known NPS and no learned shortening yet: init-nps 2000, init-timeuse 1.
const MANAGER: &str = "smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0)";

/// First move at 60+0.6, overhead 200, nothing reused; mle-legacy(51.5, 7) gives M = 51.5 moves at ply 0.
/// Time for the game: 60000 + 600·50.5 − 200 = 90100 ms; nodes: 90100·2000/1000 = 180200; per move
/// 180200/51.5 = 3499.03; with the tree reuse estimate 0.5: 3499.03/(1 − 0.5) = 6998.06 nodes.
const TARGET: f64 = 6998.06;

fn stats(t: i64, total: u64, edge_n: Vec<u32>) -> IterationStats {
    IterationStats {
        time_since_movestart_ms: t,
        time_since_first_batch_ms: t,
        total_nodes: total,
        nodes_since_movestart: total,
        edge_n,
        ..IterationStats::default()
    }
}

fn options(smart_pruning_factor: f32) -> CommonStopperOptions {
    CommonStopperOptions { smart_pruning_factor, ..lc0_stopper_options() }
}

#[test]
fn the_target_is_the_stop_and_time_only_the_safety_net() {
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(0.0));
    let mut hints = Hints::default();
    assert!(!chain.should_stop(&stats(3000, 6998, vec![4000, 2000, 998]), &mut hints), "one node short");
    assert_eq!(hints.remaining_playouts(), 1);
    // The soft cap is twice the expected 6998.06/2000 s = 3499 ms: 6998 ms left at t = 0.
    assert_eq!(hints.remaining_time_ms(), 6998 - 3000);
    assert!(chain.should_stop(&stats(3100, 6999, vec![4001, 2000, 998]), &mut Hints::default()));
    assert_eq!(chain.stop_reason().as_deref(), Some("target (node target 6998)"));
    tm.end_of_move(&stats(3100, 6999, vec![4001, 2000, 998]));
    let trace = tm.drain_trace().remove(0);
    assert!((trace.node_target.unwrap() - TARGET).abs() < 0.01, "{:?}", trace.node_target);
    assert_eq!(
        (trace.stopped_by, trace.final_nodes, trace.move_time_ms),
        (Some(StopCause::Target), Some(6999), Some(3100))
    );
    assert_eq!(trace.deadline_ms, 18_000, "hard deadline: 0.3 of the 60 s clock");
    assert_eq!(trace.step_value("soft_cap_ms"), Some(6998.0));
    let json = serde_json::to_string(&trace).unwrap();
    assert!(json.contains("\"stopped_by\":\"target\"") && json.contains("\"node_target\":6998.0"), "{json}");
    assert!(
        trace.summary().contains("node_target 6998 deadline 18000 used 3100 nodes 6999 (target"),
        "{}",
        trace.summary()
    );
}

#[test]
fn the_chain_tells_the_playouts_left_before_the_search_without_changing_its_answers() {
    // The target of 6998.06 nodes with 4000 of them reused: 2998.06 left, so 2999 playouts.
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(0.0));
    let reused = IterationStats { total_nodes: 4000, edge_n: vec![3000, 999], ..IterationStats::default() };
    assert_eq!(chain.playouts_left_at_start(&reused), Some(2999));
    let mut hints = Hints::default();
    assert!(!chain.should_stop(&stats(3000, 6998, vec![4000, 2000, 998]), &mut hints), "one node short, as above");
    assert_eq!(hints.remaining_playouts(), 1);
    // lc0's legacy manager has no node target to tell: only the chain's unlimited visits (4,000,000,000) do.
    let mut legacy = time_manager_from_str("legacy").unwrap();
    let mut chain = build_stopper_chain(Some(legacy.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(0.0));
    assert_eq!(chain.playouts_left_at_start(&reused), Some(4_000_000_000 - 4000));
}

#[test]
fn the_chain_tells_the_playouts_a_move_can_afford_before_its_hard_deadline() {
    // 60 s on the clock: the hard deadline is 0.3 · 60000 = 18000 ms, at 2000 NPS 36000 playouts; 1000 ms into
    // the move, 17000 ms: 34000.
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(0.0));
    assert_eq!(chain.affordable_playouts(&stats(0, 0, vec![])), Some(36_000));
    assert_eq!(chain.affordable_playouts(&stats(1000, 0, vec![])), Some(34_000));
    // 250 ms left with the 200 ms overhead: min(0.3 · 250, 250 − 200) = 50 ms, 100 playouts; with 80 ms left
    // the overhead leaves nothing.
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(250, 10), &ctx(0, 0), &options(0.0));
    assert_eq!(chain.affordable_playouts(&stats(0, 0, vec![])), Some(100));
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(80, 10), &ctx(0, 0), &options(0.0));
    assert_eq!(chain.affordable_playouts(&stats(0, 0, vec![])), Some(0));
    // legacy's deadline stopper keeps no speed estimate: it affords no answer, and no move is bounded for it.
    let mut legacy = time_manager_from_str("legacy").unwrap();
    let mut chain = build_stopper_chain(Some(legacy.as_mut()), &go(80, 10), &ctx(0, 0), &options(0.0));
    assert_eq!(chain.affordable_playouts(&stats(0, 0, vec![])), None);
}

#[test]
fn soft_cap_and_hard_deadline_stop_a_search_whose_nps_collapsed() {
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(0.0));
    assert!(!chain.should_stop(&stats(6997, 500, vec![300, 200]), &mut Hints::default()));
    assert!(chain.should_stop(&stats(6998, 500, vec![300, 200]), &mut Hints::default()));
    tm.end_of_move(&stats(6998, 500, vec![300, 200]));
    assert_eq!(tm.drain_trace()[0].stopped_by, Some(StopCause::SoftCap));
    // A soft cap of 100 times the expected time is cut to the hard deadline: 0.3 of the clock.
    let mut tm =
        time_manager_from_str("smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,nodes-time-cap=100.0)").unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(0.0));
    assert!(!chain.should_stop(&stats(17_999, 500, vec![300, 200]), &mut Hints::default()));
    assert!(chain.should_stop(&stats(18_000, 500, vec![300, 200]), &mut Hints::default()));
    tm.end_of_move(&stats(18_000, 500, vec![300, 200]));
    assert_eq!(tm.drain_trace()[0].stopped_by, Some(StopCause::HardDeadline));
}

#[test]
fn smart_pruning_is_exact_on_the_node_budget_and_replaces_the_time_based_one() {
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(1.33));
    // 5000 of 6998.06 nodes: at most ceil(1998.06) = 1999 visits left. A lead of 1600 could be caught, though
    // lc0's time-based pruning (1999/1.33 = 1503 playouts) would stop; a lead of 2000 cannot.
    let mut hints = Hints::default();
    assert!(!chain.should_stop(&stats(100, 10, vec![6, 3, 1]), &mut hints));
    assert!(!chain.should_stop(&stats(2500, 5000, vec![3000, 1400, 599]), &mut hints), "lead 1600");
    assert_eq!(hints.remaining_playouts(), 1999);
    assert!(!chain.should_stop(&stats(2500, 5000, vec![3000, 1001, 998]), &mut Hints::default()), "lead 1999");
    assert!(chain.should_stop(&stats(2500, 5000, vec![3000, 1000, 999]), &mut Hints::default()), "lead 2000");
    assert_eq!(chain.stop_reason().as_deref(), Some("smart-pruning (node target 6998)"));
    tm.end_of_move(&stats(2500, 5000, vec![3000, 1000, 999]));
    assert_eq!(tm.drain_trace()[0].stopped_by, Some(StopCause::SmartPruning));
    // SmartPruningFactor 0 switches it off.
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(0.0));
    assert!(!chain.should_stop(&stats(2500, 5000, vec![4000, 500, 499]), &mut Hints::default()));
}

#[test]
fn the_prune_floor_holds_smart_pruning_back_until_that_share_of_the_target() {
    let mut tm = time_manager_from_str("smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,prune-floor=0.8)").unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(1.33));
    // Nothing reused: the floor is 0.8 · 6998.06 = 5598.45 nodes. At 5000 a lead of 2000 beats the 1999 visits
    // left, but the floor is not reached; at 5598 neither; at 5599 (1400 visits left) a lead of 3000 stops.
    assert!(!chain.should_stop(&stats(2500, 5000, vec![3000, 1000, 999]), &mut Hints::default()), "below the floor");
    assert!(!chain.should_stop(&stats(2800, 5598, vec![4000, 1000, 598]), &mut Hints::default()), "5598 < 5598.45");
    assert!(chain.should_stop(&stats(2800, 5599, vec![4000, 1000, 599]), &mut Hints::default()));
    assert_eq!(chain.stop_reason().as_deref(), Some("smart-pruning (node target 6998)"));
    // A proven win stops at once, floor or not.
    let mut tm = time_manager_from_str("smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,prune-floor=0.8)").unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(1.33));
    let won = IterationStats { win_found: true, ..stats(100, 50, vec![40, 10]) };
    assert!(chain.should_stop(&won, &mut Hints::default()));
}

#[test]
fn nps_counts_the_first_batchs_time_since_node_targets_spend_it() {
    let mut tm =
        time_manager_from_str("smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,nps-update-rate=1.0)").unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(0.0));
    // 1400 nodes in the 1000 ms since the move started (the first batch took 500 of them): a sample of 1400
    // nps, one half-life of 1 s after the initial 2000: 1400 − (1400 − 2000)·0.5 = 1700. Timed from the first
    // batch as lc0 times it, the sample would be 2800 and the estimate 2234.
    let polled = IterationStats { time_since_first_batch_ms: 500, ..stats(1000, 1400, vec![900, 500]) };
    let mut hints = Hints::default();
    assert!(!chain.should_stop(&polled, &mut hints));
    let nps = hints.estimated_nps().expect("the stopper publishes its NPS");
    assert!((nps - 1700.0).abs() < 0.01, "{nps}");
}

#[test]
fn a_single_legal_move_is_played_at_once() {
    let mut tm = time_manager_from_str(MANAGER).unwrap();
    let single = timemgr::MoveContext { legal_moves: 1, ..ctx(0, 0) };
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &single, &options(0.0));
    assert!(chain.should_stop(&stats(10, 1, vec![1]), &mut Hints::default()));
    tm.end_of_move(&stats(10, 1, vec![1]));
    assert_eq!(tm.drain_trace()[0].stopped_by, Some(StopCause::SingleMove));
}

#[test]
fn search_forced_searches_a_forced_move_to_its_target_but_a_proven_win_still_stops() {
    let spec = "smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,prune-floor=1.0,search-forced=true)";
    let single = timemgr::MoveContext { legal_moves: 1, ..ctx(0, 0) };
    let mut tm = time_manager_from_str(spec).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &single, &options(1.33));
    // One legal move: the same target as any first move (6998.06), reached at 6999.
    assert!(!chain.should_stop(&stats(10, 1, vec![1]), &mut Hints::default()));
    assert!(!chain.should_stop(&stats(3000, 6998, vec![6997]), &mut Hints::default()));
    assert!(chain.should_stop(&stats(3100, 6999, vec![6998]), &mut Hints::default()));
    tm.end_of_move(&stats(3100, 6999, vec![6998]));
    assert_eq!(tm.drain_trace()[0].stopped_by, Some(StopCause::Target));
    // Two moves, one of them a proven loss (the search may not resign): decided for lc0, searched here.
    let mut tm = time_manager_from_str(spec).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(1.33));
    let forced = IterationStats { num_losing_edges: 1, may_resign: false, ..stats(100, 50, vec![40, 10]) };
    assert!(!chain.should_stop(&forced, &mut Hints::default()));
    let won = IterationStats { win_found: true, ..stats(100, 50, vec![40, 10]) };
    assert!(chain.should_stop(&won, &mut Hints::default()));
    // Without the key the same forced position stops at once, as lc0's smart pruning stops it.
    let mut tm = time_manager_from_str("smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,prune-floor=1.0)").unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(1.33));
    assert!(chain.should_stop(&forced, &mut Hints::default()));
}

#[test]
fn the_node_use_estimator_learns_the_share_of_the_target_that_pruned_moves_reach() {
    let spec = "smooth(limit=nodes,learn-node-use=true,init-nps=2000.0,init-timeuse=1.0,nodes-time-cap=10.0)";
    let mut tm = time_manager_from_str(spec).unwrap();
    let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(1.33));
    // Pruned at 5249 of 6998.06 nodes (lead 3000 > 1750 visits left): a node-use sample of 0.75006. The move took
    // 17495 ms, ten planned average moves (90100/51.5 = 1749.5 ms), one half-life at timeuse-update-rate 10:
    // use = 1 − (1 − 0.75006)·0.5 = 0.87503.
    let pruned = stats(17_495, 5249, vec![4000, 1000, 248]);
    assert!(chain.should_stop(&pruned, &mut Hints::default()));
    tm.end_of_move(&pruned);
    let first = tm.drain_trace().remove(0);
    let timeuse = first.state_after_move.iter().find(|v| v.name == "timeuse").unwrap().value;
    assert!((timeuse - 0.87503).abs() < 1e-3, "{timeuse}");
    assert!(first.stop_reason.as_deref().unwrap().starts_with("smart-pruning (node target 6998, reached 5249)"));
}

#[test]
fn without_learned_node_use_a_pruned_move_leaves_the_next_target_as_budgeted() {
    // The pruned move of the test above (node-use sample 0.75006 over one half-life), then a second move with
    // nothing reused. Learning, the manager plans 1/0.87503 = 1.14282 times the budget; by default node use stays
    // 1 (init-timeuse 0.7 and min-timeuse 0.3 unused), so its target is the budget and its time use stays 1.
    let learned = "smooth(limit=nodes,learn-node-use=true,init-nps=2000.0,init-timeuse=1.0,nodes-time-cap=10.0)";
    let fixed = "smooth(limit=nodes,init-nps=2000.0,nodes-time-cap=10.0)";
    let [second_learned, second_fixed] = [learned, fixed].map(|spec| {
        let mut tm = time_manager_from_str(spec).unwrap();
        let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(1.33));
        let pruned = stats(17_495, 5249, vec![4000, 1000, 248]);
        assert!(chain.should_stop(&pruned, &mut Hints::default()), "{spec}: pruned");
        tm.end_of_move(&pruned);
        let first = tm.drain_trace().remove(0);
        assert!((first.node_target.unwrap() - TARGET).abs() < 0.01, "{spec}: {:?}", first.node_target);
        common::budget_only(tm.as_mut(), &go(43_105, 600), &ctx(2, 0))
    });
    let budget = second_fixed.step_value("nodes_per_move_including_reuse").unwrap();
    assert!((second_fixed.node_target.unwrap() - budget).abs() < 1e-6 * budget, "{second_fixed:?}");
    let timeuse = second_fixed.state_before.iter().find(|v| v.name == "timeuse").unwrap().value;
    assert_eq!(timeuse, 1.0);
    let ratio = second_learned.node_target.unwrap() / second_fixed.node_target.unwrap();
    assert!((ratio - 1.14282).abs() < 2e-4, "{ratio}");
}

#[test]
fn the_new_keys_default_to_lc0s_time_mode() {
    let config = timemgr::TimeManagerConfig::parse("smooth(preset=lc0,limit=time,nodes-time-cap=2.0)").unwrap();
    assert_eq!(config.to_string(), "smooth(preset=lc0)", "limit=time and nodes-time-cap=2 are the defaults");
    let error = timemgr::TimeManagerConfig::parse("smooth(limit=visits)").unwrap_err().to_string();
    assert!(error.contains("nodes"), "{error}");
}

#[test]
fn the_first_move_bonus_grows_only_the_first_moves_target() {
    // first-move-bonus=1.5: the first move's target is 2.5 times TARGET, 17495.15 nodes; its soft cap twice the
    // expected 17495.15/2000 s, 17495 ms, under the hard deadline of 18000 ms.
    let bonus = "smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,first-move-bonus=1.5)";
    let mut with_bonus = time_manager_from_str(bonus).unwrap();
    let mut without = time_manager_from_str(MANAGER).unwrap();
    let first = common::budget_only(with_bonus.as_mut(), &go(60_000, 600), &ctx(0, 0));
    assert!((first.node_target.unwrap() - 2.5 * TARGET).abs() < 0.01, "{:?}", first.node_target);
    assert_eq!(first.step_value("soft_cap_ms"), Some(17495.0));
    common::budget_only(without.as_mut(), &go(60_000, 600), &ctx(0, 0));
    // The second move is budgeted as without the bonus: both first moves ended after 1 ms and 1 node, which
    // teaches the two managers the same, to within the node-use sample (1/17495 against 1/6998) weighed by 1 ms.
    let [second_with, second_without] =
        [&mut with_bonus, &mut without].map(|tm| common::budget_only(tm.as_mut(), &go(59_400, 600), &ctx(2, 0)));
    let (a, b) = (second_with.node_target.unwrap(), second_without.node_target.unwrap());
    assert!((a - b).abs() <= 1e-6 * b, "{a} against {b}");
    assert!(second_with.step_value("opening_bonus_target_nodes").is_none());
}

#[test]
fn a_decaying_bonus_grows_each_opening_moves_whole_target_reused_tree_included() {
    // first-move-bonus=1.5 with decay 0.5: the targets are 2.5, 1.75, 1.375 and 1.1875 times the bonus-free
    // manager's, which learns the same (every move ends after 1 ms and 1 node). From the second move on 3,000
    // visits are reused: a bonus on the new nodes alone would give 3000 + 1.75·(T − 3000), not 1.75·T.
    let bonus = "smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,first-move-bonus=1.5,first-move-bonus-decay=0.5)";
    let mut with_bonus = time_manager_from_str(bonus).unwrap();
    let mut without = time_manager_from_str(MANAGER).unwrap();
    let mut clock = 60_000;
    for (ply, factor) in [(0, 2.5), (2, 1.75), (4, 1.375), (6, 1.1875)] {
        let reused = if ply == 0 { 0 } else { 3000 };
        let [a, b] = [&mut with_bonus, &mut without]
            .map(|tm| common::budget_only(tm.as_mut(), &go(clock, 600), &ctx(ply, reused)).node_target.unwrap());
        assert!(b > 3000.0 * 2.0, "the bonus-free target {b} must exceed the reused tree clearly");
        assert!((a - factor * b).abs() <= 1e-5 * a, "ply {ply}: {a} against {factor} x {b}");
        clock -= 400;
    }
}

#[test]
fn reuse_credit_counts_that_share_of_the_inherited_tree_and_the_rest_as_the_budget_expected() {
    // MANAGER's first move: the target tree is TARGET = 6998.06 with the tree-reuse estimate 0.5, so 3499.03 of it
    // were expected to be reused. Inheriting 4,000 visits, credit 1 (lc0) searches 6998.06 − 4000 = 2998.06 new
    // nodes; credit 0 the average 6998.06 − 3499.03 = 3499.03; credit 0.5 6998.06 − 2000 − 1749.515 = 3248.545.
    // Inheriting nothing, lc0 searches the whole target, credit 0 again the average.
    for (credit, reused, new_nodes) in
        [(1.0, 4000, 2998.06), (0.0, 4000, 3499.03), (0.5, 4000, 3248.545), (1.0, 0, 6998.06), (0.0, 0, 3499.03)]
    {
        let spec = format!("smooth(limit=nodes,init-nps=2000.0,init-timeuse=1.0,reuse-credit={credit})");
        let mut tm = time_manager_from_str(&spec).unwrap();
        let trace = common::budget_only(tm.as_mut(), &go(60_000, 600), &ctx(0, reused));
        let expected = reused as f64 + new_nodes;
        let target = trace.node_target.unwrap();
        assert!((target - expected).abs() < 0.01, "{spec}, {reused} reused: {target}");
        // The time mode plans the same new nodes (its move estimate), which its deadline is made of.
        let spec = format!("smooth(init-nps=2000.0,reuse-credit={credit})");
        let mut tm = time_manager_from_str(&spec).unwrap();
        let trace = common::budget_only(tm.as_mut(), &go(60_000, 600), &ctx(0, reused));
        let estimate = trace.step_value("move_estimate_nodes").unwrap();
        assert!((estimate - new_nodes).abs() < 0.01, "{spec}, {reused} reused: {estimate}");
    }
}

#[test]
fn immediate_use_adds_what_a_pruned_move_left_unsearched_to_the_next_target_and_takes_its_time_from_the_clock() {
    // The first move (target 6998.06, NPS 2000) is pruned at 5250 nodes after 2625 ms (lead 3000 > the 1749
    // visits left): 6998.06 − 5250 = 1748.06 nodes unsearched, 874.03 ms at 2000 NPS. With immediate-use u the
    // second move's remaining game time B is u·874.03 ms shorter than lc0's B0, so its budgeted target is
    // T0·(B0 − u·874.03)/B0, and its node target that plus u·1748.06.
    let pruned = stats(2625, 5250, vec![4000, 1000, 250]);
    let second_move = |immediate_use: f64, first: &IterationStats| {
        let spec = format!("smooth(limit=nodes,init-nps=2000.0,nodes-time-cap=10.0,immediate-use={immediate_use})");
        let mut tm = time_manager_from_str(&spec).unwrap();
        let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options(1.33));
        let stopped = chain.should_stop(first, &mut Hints::default());
        tm.end_of_move(first);
        let trace = tm.drain_trace().remove(0);
        (stopped, trace.stopped_by, common::budget_only(tm.as_mut(), &go(57_975, 600), &ctx(2, 0)))
    };
    let (stopped, cause, lc0) = second_move(0.0, &pruned);
    assert_eq!((stopped, cause), (true, Some(StopCause::SmartPruning)));
    let b0 = lc0.step_value("total_remaining_ms").unwrap();
    let t0 = lc0.node_target.unwrap();
    assert_eq!(lc0.step_value("carried_nodes"), None);
    for u in [1.0, 0.5] {
        let (_, _, carried) = second_move(u, &pruned);
        assert!((carried.step_value("carried_nodes").unwrap() - u * 1748.06).abs() < 0.01, "{u}: {carried:?}");
        let b = carried.step_value("total_remaining_ms").unwrap();
        assert!((b - (b0 - u * 874.03)).abs() < 0.01, "{u}: B {b} against B0 {b0}");
        let expected = t0 * (b0 - u * 874.03) / b0 + u * 1748.06;
        let target = carried.node_target.unwrap();
        assert!((target - expected).abs() < 0.01, "{u}: target {target}, expected {expected}");
    }
    // A move that reaches its target leaves nothing unsearched, so the next target is lc0's.
    let reached = stats(3500, 7000, vec![4000, 2000, 1000]);
    let (_, cause, after_target) = second_move(1.0, &reached);
    assert_eq!(cause, Some(StopCause::Target));
    let (_, _, lc0_after_target) = second_move(0.0, &reached);
    assert_eq!(after_target.step_value("carried_nodes"), None);
    assert_eq!(after_target.node_target, lc0_after_target.node_target);
}
