//! The reserve for a move's floor: hand-worked amounts, and what it does to a manager's budget.

use crate::common;

use common::{budget_only, ctx, go};
use timemgr::managers::{floor_reserve_ms, FLOOR_RESERVE_MOVES};
use timemgr::{time_manager_from_str, GoParams, MoveContext};

#[test]
fn the_reserve_is_the_floor_past_the_increment_for_the_moves_to_the_next_control() {
    assert_eq!(FLOOR_RESERVE_MOVES, 60);
    // Sudden death: 5 ms a move for 60 moves.
    assert_eq!(floor_reserve_ms(Some(5.0), 0, None), 300);
    // An increment of 2 ms pays for 2 of the 5: 3 × 60.
    assert_eq!(floor_reserve_ms(Some(5.0), 2, None), 180);
    // An increment at or above the floor pays for every move.
    assert_eq!(floor_reserve_ms(Some(5.0), 5, None), 0);
    assert_eq!(floor_reserve_ms(Some(5.0), 100, None), 0);
    // A repeating control refills after `movestogo` moves: 5 × 20; never more than 60 moves.
    assert_eq!(floor_reserve_ms(Some(5.0), 0, Some(20)), 100);
    assert_eq!(floor_reserve_ms(Some(5.0), 0, Some(100)), 300);
    // Rounded up to the ms: 2.01 × 60 = 120.6.
    assert_eq!(floor_reserve_ms(Some(2.01), 0, None), 121);
    // No measure (the virtual clock, the first move): nothing kept.
    assert_eq!(floor_reserve_ms(None, 0, None), 0);
}

/// One move of `spec` at `time` ms (no increment) with `floor` and `overhead_ms`: its trace's overhead and deadline.
fn overhead_and_deadline(spec: &str, go: &GoParams, floor: Option<f32>, overhead_ms: i64) -> (i64, i64) {
    let mut manager = time_manager_from_str(spec).unwrap();
    let context = MoveContext { move_floor_ms: floor, move_overhead_ms: overhead_ms, ..ctx(20, 0) };
    let trace = budget_only(manager.as_mut(), go, &context);
    (trace.move_overhead_ms, trace.deadline_ms)
}

#[test]
fn a_manager_budgets_as_if_the_overhead_held_the_reserve() {
    for spec in ["legacy(preset=lc0)", "smooth(preset=kairos)", "regime"] {
        // 5 ms a move: 200 + 300 ms kept, the same budget as an overhead of 500.
        let with_floor = overhead_and_deadline(spec, &go(3000, 0), Some(5.0), 200);
        assert_eq!(with_floor, overhead_and_deadline(spec, &go(3000, 0), None, 500), "{spec}");
        assert_eq!(with_floor.0, 500, "{spec}");
        // 450 ms left cannot pay for 60 more moves of 5 ms and the overhead: move at once.
        assert_eq!(overhead_and_deadline(spec, &go(450, 0), Some(5.0), 200).1, 0, "{spec}");
        assert!(overhead_and_deadline(spec, &go(450, 0), None, 200).1 > 0, "{spec}: without the floor it searches");
        // With an increment above the floor nothing is kept.
        assert_eq!(overhead_and_deadline(spec, &go(3000, 10), Some(5.0), 200).0, 200, "{spec}");
    }
}
