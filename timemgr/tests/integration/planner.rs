//! The planner: time-control parsing, a synthetic game, and the property that no manager ever allocates more
//! than the clock minus the overhead.

use proptest::prelude::*;
use timemgr::planner::TimeControl;
use timemgr::{plan, PlanConfig, PlanError};

/// The move overhead of every plan here: lc0's MoveOverheadMs default, the engine's.
const MOVE_OVERHEAD_MS: i64 = 200;

#[test]
fn time_controls_parse() {
    assert_eq!(
        "60+0.6".parse::<TimeControl>().unwrap(),
        TimeControl { moves: None, base_ms: 60_000, increment_ms: 600 }
    );
    assert_eq!(
        "40/60+0".parse::<TimeControl>().unwrap(),
        TimeControl { moves: Some(40), base_ms: 60_000, increment_ms: 0 }
    );
    assert_eq!("300".parse::<TimeControl>().unwrap(), TimeControl { moves: None, base_ms: 300_000, increment_ms: 0 });
    for bad in ["", "abc", "60+", "0/60+1", "-5+1", "60+x", "40/", "1e300+0"] {
        assert!(matches!(bad.parse::<TimeControl>(), Err(PlanError::TimeControl(_))), "{bad}");
    }
}

#[test]
fn a_normal_game_does_not_flag_and_renders() {
    let config = PlanConfig::new("smooth(preset=lc0)", "60+0.6".parse().unwrap(), MOVE_OVERHEAD_MS);
    let report = plan(&config).unwrap();
    assert_eq!(report.moves.len(), 80);
    assert!(!report.flagged);
    assert_eq!(report.total_time_used_ms, report.moves.iter().map(|m| m.move_time_ms).sum::<i64>());
    assert_eq!(report.final_clock_ms, 60_000 + 80 * 600 - report.total_time_used_ms);
    assert!(report.moves[0].node_target.is_some());
    let json = report.to_json_lines();
    let lines: Vec<serde_json::Value> = json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 81);
    assert_eq!(lines[80]["flagged"], false);
    assert_eq!(lines[0]["allocated_ms"], 4688 + 5076, "forced piggybank window: D + A_p");
    assert!(report.to_text().contains("flagged: false"));
    assert_eq!(plan(&config).unwrap(), report, "deterministic for a seed");
    let other_seed = plan(&PlanConfig { seed: 7, ..config }).unwrap();
    assert_ne!(other_seed.moves[1].nps, report.moves[1].nps);
}

#[test]
fn repeating_controls_refill_the_clock() {
    let report = plan(&PlanConfig::new("legacy", "10/5+0".parse().unwrap(), MOVE_OVERHEAD_MS)).unwrap();
    assert_eq!(report.moves[0].movestogo, Some(10));
    assert_eq!(report.moves[9].movestogo, Some(1));
    assert_eq!(report.moves[10].movestogo, Some(10));
    assert_eq!(report.moves[10].clock_ms, report.moves[9].clock_after_ms);
    assert!(report.moves[10].clock_ms > report.moves[9].clock_ms);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let tc: TimeControl = "60+0".parse().unwrap();
    assert!(matches!(plan(&PlanConfig::new("smoth", tc, MOVE_OVERHEAD_MS)), Err(PlanError::Option(_))));
    assert!(matches!(
        plan(&PlanConfig { nps: 0.0, ..PlanConfig::new("legacy", tc, MOVE_OVERHEAD_MS) }),
        Err(PlanError::Model(_))
    ));
    assert!(matches!(
        plan(&PlanConfig { timeuse: 1.5, ..PlanConfig::new("legacy", tc, MOVE_OVERHEAD_MS) }),
        Err(PlanError::Model(_))
    ));
}

const MANAGERS: &[&str] = &[
    "legacy",
    "legacy(slowmover=2.0,out-of-book-factor=true)",
    "alphazero",
    "simple(opening-bonus-pct=100.0)",
    "smooth",
    "smooth(preset=lc0)",
    "smooth(preset=lc0,lc0-compat=false,theta=0.3)",
    "smooth(preset=pr1195-merged,out-of-book-factor=true)",
    "geometric",
    "geometric(alpha=3.0)",
    "expected-length",
    "expected-length(lognormal)",
    "legacy(pieces)",
    "smooth(preset=lc0,mlh)",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn no_manager_allocates_more_than_the_clock_minus_overhead(
        manager in 0..MANAGERS.len(),
        base_s in 0.05f64..300.0,
        increment_ms in 0i64..5000,
        period in proptest::option::of(1u32..60),
        overhead in 0i64..1000,
        seed in any::<u64>(),
    ) {
        let tc = TimeControl { moves: period, base_ms: (base_s * 1000.0) as i64, increment_ms };
        let config = PlanConfig { plies: 60, seed, ..PlanConfig::new(MANAGERS[manager], tc, overhead) };
        let report = plan(&config).unwrap();
        for m in &report.moves {
            prop_assert!(
                m.allocated_ms <= (m.clock_ms - overhead).max(0),
                "{} move {}: allocated {} with clock {} and overhead {}",
                MANAGERS[manager], m.move_number, m.allocated_ms, m.clock_ms, overhead
            );
        }
    }
}
