//! `regime`, the default: the planned nodes a move worked by hand, and each game played move for move by the
//! manager chosen for it.

use crate::common;

use common::{budget_only, close, ctx, go};
use timemgr::managers::regime::planned_nodes_per_move;
use timemgr::{time_manager_from_str, ClockView, GoParams, IterationStats, MoveContext, DEFAULT_TIME_MANAGER};

/// White's first move out of an 8-move book (ply 16), lc0's overhead of 200 ms, the engine measuring `nps`.
fn out_of_book(nps: Option<f32>) -> MoveContext {
    MoveContext { engine_nps: nps, ..ctx(16, 0) }
}

fn clock(time: i64, inc: i64) -> ClockView {
    ClockView::from_go(&go(time, inc), &ctx(16, 0)).expect("a clock")
}

#[test]
fn planned_nodes_are_legacys_even_slice_times_the_engines_speed() {
    // By hand: at ply 16 lc0's curve leaves 51.5·(1 + 2·(8/51.5)^7)^(1/7) − 8 = 43.50003 moves.
    // 60+0.6: (60,000 + 600·42.50003 − 200) / 43.50003 = 1,960.92 ms a move; at 1,400 nps 2,745.3 nodes.
    close(planned_nodes_per_move(&clock(60_000, 600), &out_of_book(Some(1400.0))), 2745.29, 1e-5, "60+0.6");
    // 10+0.1: (10,000 + 100·42.50003 − 200) / 43.50003 = 322.99 ms; 452.2 nodes.
    close(planned_nodes_per_move(&clock(10_000, 100), &out_of_book(Some(1400.0))), 452.18, 1e-5, "10+0.1");
    // No measure of its own (or a useless one): PR 1195's 20,000 nodes a second.
    for nps in [None, Some(0.0), Some(f32::NAN)] {
        close(planned_nodes_per_move(&clock(10_000, 100), &out_of_book(nps)), 6459.8, 1e-5, "20,000 nps");
    }
    // movestogo caps the moves left: 40/10 with 30 s and no increment is (30,000 − 200) / 10 = 2,980 ms a move.
    let mtg = GoParams { movestogo: Some(10), ..go(30_000, 0) };
    let view = ClockView::from_go(&mtg, &ctx(16, 0)).unwrap();
    close(planned_nodes_per_move(&view, &out_of_book(Some(1000.0))), 2980.0, 1e-9, "movestogo");
}

/// Plays `moves` moves of one game with a falling clock through `spec`, returning each move's deadline.
fn deadlines(spec: &str, start: (i64, i64), nps: f32, moves: u32) -> (Vec<i64>, Vec<String>) {
    let mut tm = time_manager_from_str(spec).unwrap();
    let (mut time, inc) = start;
    let (mut deadlines, mut managers) = (Vec::new(), Vec::new());
    for k in 0..moves {
        let context = MoveContext { engine_nps: Some(nps), reused_visits: u64::from(k) * 300, ..ctx(16 + 2 * k, 0) };
        let trace = budget_only(tm.as_mut(), &go(time, inc), &context);
        deadlines.push(trace.deadline_ms);
        managers.push(trace.manager);
        time = time - trace.deadline_ms / 2 + inc;
    }
    (deadlines, managers)
}

#[test]
fn each_game_is_played_move_for_move_by_the_manager_chosen_for_it() {
    // 60+0.6 at 1,400 nps plans 2,745 nodes a move, over the 1,000 of the switch: the game of the legacy that
    // passed the non-regression SPRT against lc0's on 2026-12-05 (EXPERIMENTS.md), written as that match wrote it.
    let (by_regime, names) = deadlines("regime", (60_000, 600), 1400.0, 12);
    let tested = "legacy(immediate-use=0.15,spread-after=5,slowmover=1.5)";
    assert_eq!(by_regime, deadlines(tested, (60_000, 600), 1400.0, 12).0);
    assert!(names.iter().all(|name| name == "regime by legacy(preset=kairos)"), "{names:?}");
    // Its first five own moves are lc0's legacy to the millisecond; from the sixth the time that moves saved (each
    // uses half its deadline here) is spread over the moves, where lc0's legacy spends it all on the next.
    let lc0 = deadlines("legacy", (60_000, 600), 1400.0, 12).0;
    assert_eq!(by_regime[..5], lc0[..5]);
    assert!(by_regime[5] < lc0[5] / 2 && by_regime[11] > lc0[11] * 2, "{by_regime:?} against lc0's {lc0:?}");
    // 10+0.1 at 1,400 nps plans 452: the node limit that passed its SPRT there.
    let (by_regime, names) = deadlines("regime", (10_000, 100), 1400.0, 12);
    assert_eq!(by_regime, deadlines("smooth(preset=kairos)", (10_000, 100), 1400.0, 12).0);
    assert!(names.iter().all(|name| name == "regime by smooth(preset=kairos)"), "{names:?}");
    // The choice is the game's: the clock falling below the switch later on does not hand it over.
    let (by_regime, _) = deadlines("regime(switch-nodes=2745)", (60_000, 600), 1400.0, 40);
    assert_eq!(by_regime, deadlines("legacy(preset=kairos)", (60_000, 600), 1400.0, 40).0);
    // The default is this manager.
    assert_eq!(DEFAULT_TIME_MANAGER, "regime");
}

#[test]
fn the_switch_is_at_the_planned_nodes_and_the_first_trace_says_why() {
    let cases = [
        ("2745", "regime(switch-nodes=2745.0) by legacy(preset=kairos)"),
        ("2746", "regime(switch-nodes=2746.0) by smooth(preset=kairos)"),
    ];
    for (switch, want) in cases {
        let mut tm = time_manager_from_str(&format!("regime(switch-nodes={switch})")).unwrap();
        let first = budget_only(tm.as_mut(), &go(60_000, 600), &out_of_book(Some(1400.0)));
        assert_eq!(first.manager, want);
        let names: Vec<&str> = first.steps.iter().take(3).map(|step| step.name.as_str()).collect();
        assert_eq!(names, ["planned_nodes_per_move", "switch_nodes", "large_trees"]);
        close(first.step_value("planned_nodes_per_move").unwrap(), 2745.29, 1e-5, "trace");
        assert!(first.summary().contains("planned_nodes_per_move 2745.3"), "{}", first.summary());
        let second = budget_only(tm.as_mut(), &go(58_000, 600), &ctx(18, 0));
        assert_eq!(second.manager, want);
        assert_eq!(second.step_value("planned_nodes_per_move"), None, "only the first move decides");
    }
    // Exactly at the switch the game is large-trees': 1,000 nps and 40/30 with 10 to go plan 2,980 nodes.
    let mtg = GoParams { movestogo: Some(10), ..go(30_000, 0) };
    for (switch, want) in [("2980", "by legacy(preset=kairos)"), ("2980.001", "by smooth(preset=kairos)")] {
        let mut tm = time_manager_from_str(&format!("regime(switch-nodes={switch})")).unwrap();
        let trace = budget_only(tm.as_mut(), &mtg, &out_of_book(Some(1000.0)));
        assert!(trace.manager.ends_with(want), "{switch}: {}", trace.manager);
    }
    // Other managers on either side, keys and all.
    let mut tm = time_manager_from_str("regime(small-trees=alphazero,large-trees='legacy(slowmover=0.5)')").unwrap();
    let trace = budget_only(tm.as_mut(), &go(60_000, 600), &out_of_book(Some(1400.0)));
    let want = "regime(small-trees=alphazero,large-trees='legacy(slowmover=0.5)') by legacy(slowmover=0.5)";
    assert_eq!(trace.manager, want);
}

#[test]
fn a_move_without_a_clock_leaves_the_choice_to_the_first_move_with_one() {
    let mut tm = time_manager_from_str("regime").unwrap();
    let infinite = GoParams { infinite: true, ..go(10_000, 100) };
    assert!(tm.stopper(&infinite, &out_of_book(Some(1400.0))).is_none());
    tm.end_of_move(&IterationStats::default());
    assert!(tm.drain_trace().is_empty());
    let trace = budget_only(tm.as_mut(), &go(60_000, 600), &out_of_book(Some(1400.0)));
    assert_eq!(trace.manager, "regime by legacy(preset=kairos)");
}

#[test]
fn bad_candidates_are_errors_naming_the_key_and_the_way_out() {
    let refusal = |spec: &str| time_manager_from_str(spec).err().expect("refused").to_string();
    let nested = refusal("regime(small-trees=regime)");
    assert!(
        nested.contains("small-trees 'regime' is regime again") && nested.contains("small-trees=legacy"),
        "{nested}"
    );
    let unknown = refusal("regime(large-trees=legasy)");
    assert!(unknown.contains("large-trees 'legasy'") && unknown.contains("legacy"), "{unknown}");
    let adjusted = refusal("regime(instant-single-move=true)");
    assert!(adjusted.contains("large-trees='legacy(instant-single-move=true)'"), "{adjusted}");
    let bad_key = refusal("regime(large-trees='legacy(slowmover=-1)')");
    assert!(bad_key.contains("large-trees") && bad_key.contains("slowmover"), "{bad_key}");
}
