//! Hand-worked numbers and edge cases for every manager.

use crate::common;

use common::{budget_only, close, ctx, go, state_value};
use timemgr::estimator::{ahle_plies_left, mle_legacy};
use timemgr::managers::geometric::{solve_alpha, AlphaRule};
use timemgr::{time_manager_from_str, GoParams, Hints, IterationStats, MoveContext, TimeUsageHint};

const ALL: &[&str] = &[
    "legacy", "alphazero", "simple", "smooth", "smooth(preset=lc0)", "smooth(preset=lc0,lc0-compat=false)",
    "geometric", "expected-length", "expected-length(lognormal)", "legacy(pieces)", "smooth(mlh)",
];

#[test]
fn geometric_alpha_reproduces_the_seed_tables() {
    for (s, t0, want) in [
        (1000.0, 600_000.0, 10.4),
        (1000.0, 300_000.0, 13.4),
        (1000.0, 180_000.0, 17.8),
        (100.0, 60_000.0, 10.4),
        (100.0, 30_000.0, 13.4),
        (100.0, 15_000.0, 20.7),
    ] {
        let (alpha, short) = solve_alpha(AlphaRule::MinimumMoveTime, 40, s, t0);
        assert!(!short);
        assert!((alpha - want).abs() <= 0.1, "s={s} t0={t0}: alpha {alpha} vs {want}");
        // The defining equation: the clock after 40 moves is the reserve alpha·s.
        close(t0 * (1.0 - 1.0 / alpha).powi(40), alpha * s, 1e-9, "reserve equation");
    }
}

#[test]
fn geometric_reserve_rules_and_short_clocks() {
    let (alpha, _) = solve_alpha(AlphaRule::ReserveFraction(0.1), 40, 100.0, 60_000.0);
    close((1.0 - 1.0 / alpha).powi(40), 0.1, 1e-12, "fraction");
    let (alpha, _) = solve_alpha(AlphaRule::ReserveMs(6000.0), 40, 100.0, 60_000.0);
    close((1.0 - 1.0 / alpha).powi(40), 0.1, 1e-12, "ms");
    // 10 s cannot hold 40 geometric moves ending at 1 s per move: alpha = N + 1 and the flag.
    assert_eq!(solve_alpha(AlphaRule::MinimumMoveTime, 40, 1000.0, 10_000.0), (41.0, true));
    assert_eq!(solve_alpha(AlphaRule::Fixed(12.0), 40, 1000.0, 10_000.0), (12.0, false));
}

#[test]
fn geometric_budgets_a_fixed_fraction_of_the_clock() {
    let mut tm = time_manager_from_str("geometric(min-move-ms=1000)").unwrap();
    let (alpha, _) = solve_alpha(AlphaRule::MinimumMoveTime, 40, 1000.0, 600_000.0);
    let first = budget_only(tm.as_mut(), &go(600_000, 0), &ctx(0, 0));
    assert_eq!(first.deadline_ms, (600_000.0 / alpha) as i64);
    // Alpha is solved once per game; later moves divide the clock they get by the same alpha.
    let second = budget_only(tm.as_mut(), &go(300_000, 500), &ctx(2, 0));
    assert_eq!(second.deadline_ms, (300_000.0 / alpha + 500.0) as i64);
    assert!(time_manager_from_str("geometric(alpha=1.0)").is_err());
}

#[test]
fn expected_length_uses_ahle_by_default() {
    let mut tm = time_manager_from_str("expected-length").unwrap();
    let trace = budget_only(tm.as_mut(), &go(60_000, 0), &ctx(0, 0));
    let r = (59.3 + 72830.0 / 2644.0) / 2.0;
    close(trace.step_value("moves_left").unwrap(), r, 1e-6, "r");
    close(trace.step_value("allocated_ms").unwrap(), 59_800.0 / r, 1e-6, "budget");
    // With an increment: (t − i)/r + i.
    let mut tm = time_manager_from_str("expected-length").unwrap();
    let trace = budget_only(tm.as_mut(), &go(60_000, 1000), &ctx(40, 0));
    let r = ahle_plies_left(40.0) / 2.0;
    close(trace.step_value("allocated_ms").unwrap(), 58_800.0 / r + 1000.0, 1e-6, "with increment");
}

#[test]
fn mlh_uses_the_head_or_reports_its_fallback() {
    let mut tm = time_manager_from_str("expected-length(mlh)").unwrap();
    let with_head = MoveContext { network_moves_left_plies: Some(60.0), ..ctx(0, 0) };
    let trace = budget_only(tm.as_mut(), &go(60_000, 0), &with_head);
    assert_eq!(trace.step_value("moves_left"), Some(30.0));
    assert_eq!(trace.estimator.as_deref(), Some("mlh"));
    let trace = budget_only(tm.as_mut(), &go(60_000, 0), &ctx(0, 0));
    assert_eq!(trace.estimator.as_deref(), Some("mlh (no moves-left head: used ahle)"));
    close(trace.step_value("moves_left").unwrap(), ahle_plies_left(0.0) / 2.0, 1e-6, "fallback");
    // Smooth's fallback is its preset's estimator.
    let mut tm = time_manager_from_str("smooth(preset=lc0,mlh)").unwrap();
    let trace = budget_only(tm.as_mut(), &go(60_000, 600), &ctx(0, 0));
    close(trace.step_value("remaining_moves").unwrap(), 45.2, 1e-6, "smooth mlh fallback");
}

/// Ends one smooth move whose last NPS poll came `since_first_batch` ms after the first batch.
fn smooth_after_move(since_first_batch: i64, edge_n: Vec<u32>, spec: &str) -> Box<dyn timemgr::TimeManager> {
    let mut tm = time_manager_from_str(spec).unwrap();
    let mut stopper = tm.stopper(&go(60_000, 600), &ctx(0, 0)).unwrap();
    let stats = IterationStats {
        time_since_movestart_ms: since_first_batch + 20,
        time_since_first_batch_ms: since_first_batch,
        nodes_since_movestart: 100_000,
        total_nodes: 100_000,
        edge_n,
        ..IterationStats::default()
    };
    stopper.should_stop(&stats, &mut Hints::default());
    tm.end_of_move(&stats);
    assert_eq!(tm.drain_trace().len(), 1);
    tm
}

#[test]
fn estimator_updates_weigh_moves_by_their_length_in_average_moves() {
    // First budget at 60000+600: avg_ms_per_move = 1790.2655. The next move reuses 30% of the tree.
    let tree_reuse_after = |since_first_batch: i64| {
        let mut tm = smooth_after_move(since_first_batch, vec![50_000, 50_000], "smooth(preset=lc0)");
        let trace = common::budget_only(tm.as_mut(), &go(55_000, 600), &ctx(2, 30_000));
        assert_eq!(trace.step_value("tree_reuse_sample"), Some(0.30000001192092896));
        state_value(&trace.state_after_budget, "tree_reuse")
    };
    // One average move: halfway over one half-life of 3.39 moves, decay(0.52, 0.3, 3.39, 1) = 0.479318.
    close(tree_reuse_after(1790), 0.479_317_755, 1e-4, "one average move");
    // A move twice as long counts as two: 0.3 + 0.22·0.5^(2/3.39).
    close(tree_reuse_after(3581), 0.3 + 0.22 * 0.5f64.powf(2.0 / 3.39), 1e-4, "double move");
    let double_gap = (tree_reuse_after(3581) - 0.3) / 0.22;
    let single_gap = (tree_reuse_after(1790) - 0.3) / 0.22;
    close(double_gap, single_gap * single_gap, 1e-3, "two average moves = one move twice as long");
    // An instant move barely moves the estimate.
    assert!((tree_reuse_after(1) - 0.52).abs() < 1e-4);
}

#[test]
fn theta_spends_more_when_the_best_move_is_not_dominant() {
    let nodes = |spec: &str| {
        let mut tm = smooth_after_move(1790, vec![500, 300, 200], spec);
        common::budget_only(tm.as_mut(), &go(55_000, 600), &ctx(2, 0)).step_value("move_estimate_nodes").unwrap()
    };
    // Best share 0.5, θ = 0.5: every new node adds w = 0.75 to θ·N + (1−θ)·N_best.
    close(nodes("smooth(preset=lc0,theta=0.5)"), nodes("smooth(preset=lc0)") / 0.75, 1e-6, "theta");
}

#[test]
fn no_clock_means_no_stopper_and_no_state_change() {
    for spec in ALL {
        let mut tm = time_manager_from_str(spec).unwrap();
        let movetime = GoParams { movetime: Some(1000), ..GoParams::default() };
        let infinite = GoParams { infinite: true, ..go(60_000, 600) };
        let ponder = GoParams { ponder: true, ..go(60_000, 600) };
        let black_only = GoParams { btime: Some(1000), ..GoParams::default() };
        for go_params in [movetime, infinite, ponder, black_only, GoParams::default()] {
            assert!(tm.stopper(&go_params, &ctx(0, 0)).is_none(), "{spec} {go_params:?}");
        }
        assert!(tm.drain_trace().is_empty());
    }
    // The first real budget is still the first move's (piggybank deposit, first-move state).
    let mut tm = time_manager_from_str("smooth(preset=lc0)").unwrap();
    assert!(tm.stopper(&GoParams { infinite: true, ..go(60_000, 600) }, &ctx(0, 0)).is_none());
    let trace = budget_only(tm.as_mut(), &go(60_000, 600), &ctx(0, 0));
    assert_eq!(trace.deadline_ms, 4688);
}

#[test]
fn black_reads_its_own_clock() {
    let mut tm = time_manager_from_str("alphazero").unwrap();
    let go_params =
        GoParams { wtime: Some(60_000), btime: Some(10_000), winc: Some(0), binc: Some(0), ..GoParams::default() };
    let trace = budget_only(tm.as_mut(), &go_params, &MoveContext { white_to_move: false, ..ctx(1, 0) });
    assert_eq!(trace.deadline_ms, 1176);
}

#[test]
fn movestogo_one_spends_up_to_the_caps() {
    let one = GoParams { movestogo: Some(1), ..go(60_000, 600) };
    let deadline =
        |spec: &str| budget_only(time_manager_from_str(spec).unwrap().as_mut(), &one, &ctx(0, 0)).deadline_ms;
    assert_eq!(deadline("smooth(preset=lc0)"), 25_200, "0.42·T binds");
    assert_eq!(deadline("legacy"), 59_800, "T − O binds");
    assert_eq!(deadline("alphazero"), 59_800);
    assert_eq!(deadline("expected-length"), 59_800);
    assert_eq!(deadline("geometric"), 59_800);
    // movestogo ≤ 0 is ignored, as in lc0.
    let ignored = GoParams { movestogo: Some(0), ..go(60_000, 600) };
    assert_eq!(budget_only(time_manager_from_str("legacy").unwrap().as_mut(), &ignored, &ctx(0, 0)).deadline_ms, 4898);
}

#[test]
fn exhausted_or_tiny_clocks_give_zero_deadlines() {
    for spec in ALL {
        for time in [0, -500, 150, 200] {
            let mut tm = time_manager_from_str(spec).unwrap();
            let trace = budget_only(tm.as_mut(), &go(time, 0), &ctx(10, 0));
            assert_eq!(trace.deadline_ms, 0, "{spec} T={time}");
            if let Some(allowance) = trace.step_value("allowed_piggybank_ms") {
                if !spec.contains("preset=lc0)") {
                    assert!(allowance >= 0.0, "{spec} T={time}: allowance {allowance}");
                }
            }
        }
    }
}

#[test]
fn reused_tree_larger_than_target_moves_at_once() {
    let mut tm = time_manager_from_str("smooth").unwrap();
    let mut stopper = tm.stopper(&go(60_000, 600), &ctx(0, 1_000_000)).unwrap();
    let stats = IterationStats { time_since_movestart_ms: 1, total_nodes: 1_000_001, ..IterationStats::default() };
    assert!(stopper.should_stop(&stats, &mut Hints::default()));
    tm.end_of_move(&stats);
    let trace = tm.drain_trace().remove(0);
    assert_eq!(trace.step_value("move_estimate_nodes"), Some(0.0));
    assert_eq!((trace.step_value("allocated_ms"), trace.deadline_ms), (Some(0.0), 0));
}

#[test]
fn first_move_from_a_late_fen() {
    // "… w - - 0 30": ply 58. Legacy's book bonus counts at most 12 plies: 1 + 1.8 + 0.25·12 = 5.8 slices.
    let mut tm = time_manager_from_str("legacy").unwrap();
    let trace = budget_only(tm.as_mut(), &go(60_000, 600), &ctx(58, 0));
    let m = f64::from(mle_legacy(58, 51.5, 7.0));
    let want = ((60_000.0 + 600.0 * (m - 1.0) - 200.0) / m * 5.8).min(59_800.0);
    close(trace.step_value("allocated_ms").unwrap(), want, 1e-5, "legacy at ply 58");
}

#[test]
fn adjustments_single_move_and_out_of_book() {
    let single = MoveContext { legal_moves: 1, ..ctx(20, 0) };
    for spec in
        ["legacy(instant-single-move=true)", "smooth(instant-single-move=true)", "geometric(instant-single-move=true)"]
    {
        let trace = budget_only(time_manager_from_str(spec).unwrap().as_mut(), &go(60_000, 600), &single);
        assert_eq!(trace.deadline_ms, 0, "{spec}");
    }
    let plain = budget_only(time_manager_from_str("alphazero").unwrap().as_mut(), &go(60_000, 0), &ctx(20, 0));
    let fresh = MoveContext { moves_out_of_book: Some(1), ..ctx(20, 0) };
    let factor = budget_only(
        time_manager_from_str("alphazero(out-of-book-factor=true)").unwrap().as_mut(),
        &go(60_000, 0),
        &fresh,
    );
    assert_eq!(plain.deadline_ms, 7176);
    assert_eq!(factor.deadline_ms, (7176.0 * 1.9) as i64, "2 − 1/10");
    let late = MoveContext { moves_out_of_book: Some(25), ..ctx(20, 0) };
    let factor = budget_only(
        time_manager_from_str("alphazero(out-of-book-factor=true)").unwrap().as_mut(),
        &go(60_000, 0),
        &late,
    );
    assert_eq!(factor.deadline_ms, 7176);
}

/// `spec` after a first move at 60+0.6 whose deadline, 4898 ms, was 4000 ms more than the 898 ms it searched.
fn legacy_after_saving_4000_ms(spec: &str) -> Box<dyn timemgr::TimeManager> {
    let mut tm = time_manager_from_str(spec).unwrap();
    tm.stopper(&go(60_000, 600), &ctx(0, 0)).unwrap();
    let stats = IterationStats { time_since_movestart_ms: 898, total_nodes: 10, ..IterationStats::default() };
    tm.end_of_move(&stats);
    let first = tm.drain_trace().remove(0);
    assert_eq!((first.deadline_ms, state_value(&first.state_after_move, "spared_ms")), (4898, 4000.0), "{spec}");
    tm
}

#[test]
fn legacy_spends_saved_time_on_the_next_move() {
    let mut tm = legacy_after_saving_4000_ms("legacy");
    let trace = budget_only(tm.as_mut(), &go(59_702, 600), &ctx(2, 0));
    // total = 59702 + 600·(M − 1) − 200 − 4000; slice = total/M; plus the 4000 squandered at once.
    let m = f64::from(mle_legacy(2, 51.5, 7.0));
    let want = (59_702.0 + 600.0 * (m - 1.0) - 200.0 - 4000.0) / m + 4000.0;
    close(trace.step_value("allocated_ms").unwrap(), want, 1e-5, "squander");
}

#[test]
fn legacy_spends_a_share_of_saved_time_after_its_first_spread_after_moves() {
    // Move 1 saves 4000 ms. Own move 2 spends all of it when spread-after = 2, a quarter otherwise; own
    // move 3 spends a quarter of what is left plus what move 2 (ended after 1 ms) saved, in both.
    let cases = [("legacy(immediate-use=0.25)", 0.25), ("legacy(immediate-use=0.25,spread-after=2)", 1.0)];
    for (spec, move_2_share) in cases {
        let mut tm = legacy_after_saving_4000_ms(spec);
        let second = budget_only(tm.as_mut(), &go(59_702, 600), &ctx(2, 0));
        let m = f64::from(mle_legacy(2, 51.5, 7.0));
        let want = (59_702.0 + 600.0 * (m - 1.0) - 200.0 - 4000.0) / m + 4000.0 * move_2_share;
        close(second.step_value("allocated_ms").unwrap(), want, 1e-5, spec);
        let spared = 4000.0 * (1.0 - move_2_share) + (second.deadline_ms - 1) as f64;
        assert_eq!(state_value(&second.state_after_move, "spared_ms"), spared, "{spec}");
        let third = budget_only(tm.as_mut(), &go(59_000, 600), &ctx(4, 0));
        let m = f64::from(mle_legacy(4, 51.5, 7.0));
        let want = (59_000.0 + 600.0 * (m - 1.0) - 200.0 - spared) / m + (0.25 * spared).trunc();
        close(third.step_value("allocated_ms").unwrap(), want, 1e-5, spec);
    }
}

#[test]
fn legacy_applies_slowmover_only_after_its_first_spread_after_moves() {
    // Without spread-after the first move is 1.5 times its 4898 ms; with spread-after = 1 it is lc0's plain legacy
    // (the helper checks 4898 ms and 4000 saved), and own move 2 spends the 4000 saved and 1.5 slices, the extra
    // half slice advanced from the time saved, which goes below 0 before the 1 ms move saves the rest of its deadline.
    let mut plain = time_manager_from_str("legacy(slowmover=1.5)").unwrap();
    let plain = budget_only(plain.as_mut(), &go(60_000, 600), &ctx(0, 0));
    assert!((7347..=7348).contains(&plain.deadline_ms), "1.5 × 4898: {}", plain.deadline_ms);
    let mut tm = legacy_after_saving_4000_ms("legacy(slowmover=1.5,spread-after=1)");
    let second = budget_only(tm.as_mut(), &go(59_702, 600), &ctx(2, 0));
    let m = f64::from(mle_legacy(2, 51.5, 7.0));
    let slice = (59_702.0 + 600.0 * (m - 1.0) - 200.0 - 4000.0) / m;
    close(second.step_value("allocated_ms").unwrap(), 1.5 * slice + 4000.0, 1e-5, "1.5 slices and the 4000 saved");
    let spared = state_value(&second.state_after_move, "spared_ms");
    let want = -(0.5 * slice).trunc() + (second.deadline_ms - 1) as f64;
    assert!((spared - want).abs() <= 1.0, "spared {spared}, want {want}");
}

#[test]
fn legacy_with_reserve_in_slices_leaves_the_unspent_reserve_in_the_time_the_slices_share() {
    // Move 1 saves 4000 ms; own move 2 spends a quarter of it on top of a slice of the whole clock.
    let mut tm = legacy_after_saving_4000_ms("legacy(immediate-use=0.25,reserve-in-slices=true)");
    let second = budget_only(tm.as_mut(), &go(59_702, 600), &ctx(2, 0));
    let m = f64::from(mle_legacy(2, 51.5, 7.0));
    let want = (59_702.0 + 600.0 * (m - 1.0) - 200.0) / m + 1000.0;
    close(second.step_value("allocated_ms").unwrap(), want, 1e-5, "slice");
    assert_eq!(state_value(&second.state_after_move, "spared_ms"), 3000.0 + (second.deadline_ms - 1) as f64);
}

#[test]
fn trace_summary_is_one_line_with_the_key_numbers() {
    let trace =
        budget_only(time_manager_from_str("smooth(preset=lc0)").unwrap().as_mut(), &go(60_000, 600), &ctx(0, 0));
    let line = trace.summary();
    assert!(!line.contains('\n'));
    assert!(line.starts_with("tm smooth(preset=lc0) ply 0 clock 60000+600"), "{line}");
    assert!(line.contains("allocated_ms 4688.8") && line.contains("deadline 4688"), "{line}");
    let json = serde_json::to_value(&trace).unwrap();
    assert_eq!(json["deadline_ms"], 4688);
    let names: Vec<&str> = json["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names.first(), Some(&"piggybank_before_ms"), "steps in computation order");
    assert_eq!(names.last(), Some(&"piggybank_after_ms"));
    let position = |n: &str| names.iter().position(|x| *x == n).unwrap();
    assert!(position("remaining_moves") < position("total_remaining_ms"));
    assert!(position("expected_movetime_brutto_ms") < position("allocated_ms"));
}

#[test]
fn init_nps_zero_starts_from_the_engines_own_measure_and_a_value_overrides_it() {
    let measured = MoveContext { engine_nps: Some(4_321.0), ..ctx(0, 0) };
    let cases = [
        ("smooth(limit=nodes)", measured.clone(), 4_321.0),
        ("smooth(preset=kairos)", measured.clone(), 4_321.0),
        // No measure yet: PR 1195's 20000.
        ("smooth(limit=nodes)", ctx(0, 0), 20_000.0),
        // A value is an override, and lc0's preset keeps lc0's constant.
        ("smooth(limit=nodes,init-nps=3000)", measured.clone(), 3_000.0),
        ("smooth(preset=lc0)", measured, 20_000.0),
    ];
    for (spec, context, want) in cases {
        let mut tm = time_manager_from_str(spec).unwrap();
        let trace = budget_only(tm.as_mut(), &go(60_000, 600), &context);
        assert_eq!(state_value(&trace.state_after_budget, "nps"), want, "{spec}");
        // The node budget follows: 60 s at `want` nodes per second over the remaining game.
        let remaining_ms = trace.step_value("total_remaining_ms").unwrap();
        close(trace.step_value("remaining_game_nodes").unwrap(), remaining_ms * want / 1000.0, 1e-5, spec);
    }
}

/// One poll of a stopper at `time_ms` with `hint`, as the search makes it; returns the answer and the hints.
fn poll_at(stopper: &mut dyn timemgr::Stopper, time_ms: i64, hint: TimeUsageHint) -> (bool, Hints) {
    let stats = IterationStats {
        time_since_movestart_ms: time_ms,
        total_nodes: 100,
        nodes_since_movestart: 100,
        time_usage_hint: hint,
        ..IterationStats::default()
    };
    let mut hints = Hints::default();
    (stopper.should_stop(&stats, &mut hints), hints)
}

#[test]
fn legacy_searches_on_past_its_deadline_while_the_most_visited_move_is_not_the_best_by_q() {
    // lc0's legacy: the first move at 60+0.6 has the deadline 4898 ms, and it is final.
    let mut lc0 = time_manager_from_str("legacy").unwrap();
    let mut stopper = lc0.stopper(&go(60_000, 600), &ctx(0, 0)).unwrap();
    assert!(poll_at(stopper.as_mut(), 4898, TimeUsageHint::NeedMoreTime).0, "without the key the deadline is final");

    // With unstable-extension=0.5 the move may search on to 4898 · 1.5 = 7347 ms while unstable.
    let mut tm = time_manager_from_str("legacy(unstable-extension=0.5)").unwrap();
    let mut stopper = tm.stopper(&go(60_000, 600), &ctx(0, 0)).unwrap();
    let (stop, hints) = poll_at(stopper.as_mut(), 4000, TimeUsageHint::Normal);
    assert!(!stop);
    assert_eq!(hints.remaining_time_ms(), 898, "a stable move offers smart pruning the time to its deadline");
    let (stop, hints) = poll_at(stopper.as_mut(), 4000, TimeUsageHint::NeedMoreTime);
    assert!(!stop);
    assert_eq!(hints.remaining_time_ms(), 7347 - 4000, "an unstable one the time to the later deadline");
    let (stop, hints) = poll_at(stopper.as_mut(), 4898, TimeUsageHint::NeedMoreTime);
    assert!(!stop, "at the deadline an unstable move searches on");
    assert_eq!(hints.remaining_time_ms(), 7347 - 4898);
    assert!(!poll_at(stopper.as_mut(), 6000, TimeUsageHint::NeedMoreTime).0);
    assert!(poll_at(stopper.as_mut(), 6500, TimeUsageHint::Normal).0, "stops once the two agree");
    let reason = stopper.stop_reason().unwrap();
    assert!(reason.contains("searched on while the most-visited move was not the best by Q"), "{reason}");
    drop(stopper);
    tm.end_of_move(&IterationStats { time_since_movestart_ms: 6500, total_nodes: 100, ..IterationStats::default() });
    let trace = tm.drain_trace().remove(0);
    assert_eq!(trace.deadline_ms, 4898);
    assert_eq!(trace.step_value("unstable_deadline_ms"), Some(7347.0));
    assert!(trace.stop_reason.as_deref().unwrap().contains("searched on"), "{:?}", trace.stop_reason);
    // The 1,602 ms spent past the deadline count against the time spared, as any overrun does.
    assert_eq!(state_value(&trace.state_after_move, "spared_ms"), -1602.0);

    // An unstable move stops at the later deadline; a stable one at the first.
    let mut tm = time_manager_from_str("legacy(unstable-extension=0.5)").unwrap();
    let mut stopper = tm.stopper(&go(60_000, 600), &ctx(0, 0)).unwrap();
    assert!(!poll_at(stopper.as_mut(), 7346, TimeUsageHint::NeedMoreTime).0);
    assert!(poll_at(stopper.as_mut(), 7347, TimeUsageHint::NeedMoreTime).0, "the later deadline is final");
    let mut tm = time_manager_from_str("legacy(unstable-extension=0.5)").unwrap();
    let mut stopper = tm.stopper(&go(60_000, 600), &ctx(0, 0)).unwrap();
    let (stop, _) = poll_at(stopper.as_mut(), 4898, TimeUsageHint::Normal);
    assert!(stop);
    assert_eq!(stopper.stop_reason().as_deref(), Some("deadline 4898 ms reached"));
}

#[test]
fn legacy_unstable_extension_never_passes_the_clock_minus_the_overhead() {
    // 3 s and no increment at ply 12 (six book moves): the first move's slice gets 1 + 1.8 + 0.25 · 12 = 5.8
    // slices of (3000 − 200) / M; ten times more would pass the 2,800 ms the clock allows.
    let mut tm = time_manager_from_str("legacy(unstable-extension=10)").unwrap();
    let mut stopper = tm.stopper(&go(3000, 0), &ctx(12, 0)).unwrap();
    let m = f64::from(mle_legacy(12, 51.5, 7.0));
    let deadline = (2800.0 / m * 5.8) as i64;
    assert!(deadline * 11 > 2800, "the example must reach the cap: {deadline}");
    let (stop, hints) = poll_at(stopper.as_mut(), deadline, TimeUsageHint::NeedMoreTime);
    assert!(!stop);
    assert_eq!(hints.remaining_time_ms(), 2800 - deadline);
    assert!(poll_at(stopper.as_mut(), 2800, TimeUsageHint::NeedMoreTime).0);
}

#[test]
fn smart_pruning_gives_an_unstable_move_the_time_of_its_extension() {
    // Deadline 4898 ms, extension to 9796. At 4,000 ms with 4,000 playouts since the first evaluation (at 10 ms)
    // smart pruning estimates (4000 + 300) · 1000 / 3990 + 1 = 1078 nps. A stable move has 898 ms left, room for
    // 0.898 · 1078 / 1.33 = 728 playouts; an unstable one 5,796 ms, room for 5.796 · 1078 / 1.33 = 4,698. So a gap
    // of 800 visits ends a stable move but not an unstable one, and a gap of 4,750 ends both.
    for (edge_n, hint, stops) in [
        (vec![2400, 1600], TimeUsageHint::Normal, true),
        (vec![2400, 1600], TimeUsageHint::NeedMoreTime, false),
        (vec![4800, 50], TimeUsageHint::NeedMoreTime, true),
    ] {
        let mut tm = time_manager_from_str("legacy(unstable-extension=1)").unwrap();
        let options = common::lc0_stopper_options();
        let mut chain = timemgr::build_stopper_chain(Some(tm.as_mut()), &go(60_000, 600), &ctx(0, 0), &options);
        let first = IterationStats {
            time_since_movestart_ms: 10,
            nodes_since_movestart: 1,
            total_nodes: 1,
            edge_n: vec![1, 0],
            ..IterationStats::default()
        };
        assert!(!chain.should_stop(&first, &mut Hints::default()));
        let later = IterationStats {
            time_since_movestart_ms: 4000,
            nodes_since_movestart: 4000,
            total_nodes: u64::from(edge_n.iter().sum::<u32>()),
            edge_n: edge_n.clone(),
            time_usage_hint: hint,
            ..IterationStats::default()
        };
        assert_eq!(chain.should_stop(&later, &mut Hints::default()), stops, "{edge_n:?} {hint:?}");
    }
}
