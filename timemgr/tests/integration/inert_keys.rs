//! `inert_keys`: every key it names for an option string changes nothing in play. A scripted game (smart-prunable
//! moves, close races whose runner-up gains, a reused tree) is played with each named key at both ends of its range,
//! and every stop decision, hint, deadline, node target and learned state must be the same; keys the managers do
//! read, at their ends, must change something in the same game, so the script can tell.

use crate::common;

use common::{ctx, go, lc0_stopper_options};
use timemgr::options::{ParamKind, TimeManagerConfig, Value};
use timemgr::{build_stopper_chain, build_time_manager, inert_keys, Hints, IterationStats};

/// The search's nodes per millisecond in the script.
const NODES_PER_MS: f64 = 1.5;

/// The root visit shares at `t_ms` into own move `k`: even moves have one clear best move (smart pruning can
/// end them); odd ones a close race in which the runner-up gains on the best (the trend watcher's case).
fn shares(k: u32, t_ms: i64) -> [f64; 3] {
    let progress = (t_ms as f64 / 2000.0).min(1.0);
    if k.is_multiple_of(2) {
        [0.75, 0.15, 0.10]
    } else {
        [0.48 - 0.08 * progress, 0.36 + 0.08 * progress, 0.16]
    }
}

fn stats(k: u32, t_ms: i64, reused: u64) -> IterationStats {
    let new = (NODES_PER_MS * t_ms as f64) as u64;
    let total = reused + new;
    let edge_n: Vec<u32> = shares(k, t_ms).iter().map(|s| (s * total as f64) as u32).collect();
    IterationStats {
        time_since_movestart_ms: t_ms,
        time_since_first_batch_ms: t_ms,
        total_nodes: total,
        nodes_since_movestart: new,
        edge_n,
        may_resign: true,
        ..IterationStats::default()
    }
}

/// Everything a key could change in play, move by move: each poll's decision and hints, then the move's
/// deadline, node target, cause, time and the manager's learned state.
fn play(spec: &str) -> Vec<String> {
    let config = TimeManagerConfig::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let mut tm = build_time_manager(&config).unwrap();
    let options = lc0_stopper_options();
    let (mut clock, increment, mut reused) = (10_000_i64, 100_i64, 0_u64);
    let mut seen = Vec::new();
    for k in 0..12 {
        let mut context = ctx(2 * k + 16, reused);
        context.smart_pruning = true;
        context.engine_nps = Some(1500.0);
        let mut chain = build_stopper_chain(Some(tm.as_mut()), &go(clock, increment), &context, &options);
        let mut t = 0;
        let last = loop {
            t += 20;
            let polled = stats(k, t, reused);
            let mut hints = Hints::default();
            let stop = chain.should_stop(&polled, &mut hints);
            seen.push(format!("{k} {t} {stop} {} {}", hints.remaining_time_ms(), hints.remaining_playouts()));
            if stop || t >= clock {
                break polled;
            }
        };
        tm.end_of_move(&last);
        let trace = tm.drain_trace().remove(0);
        let state: Vec<String> = trace.state_after_move.iter().map(|v| format!("{}={}", v.name, v.value)).collect();
        seen.push(format!(
            "move {k}: deadline {} target {:?} {:?} {:?} {}",
            trace.deadline_ms,
            trace.node_target,
            trace.stopped_by,
            trace.move_time_ms,
            state.join(" ")
        ));
        clock += increment - t;
        reused = last.total_nodes * 2 / 5;
    }
    seen
}

/// `base` with `key` written at each end of its range (`false` and `true` for a switch).
fn at_both_ends(base: &str, key: &str) -> [String; 2] {
    let config = TimeManagerConfig::parse(base).unwrap();
    let spec = config.manager.spec().param(key).unwrap_or_else(|| panic!("{base} has no key {key}"));
    let ends = match spec.kind {
        ParamKind::Float { min, max, .. } => [Value::Float(min), Value::Float(max.min(1e4))],
        ParamKind::Int { min, max, .. } => [Value::Int(min), Value::Int(max)],
        ParamKind::Bool { .. } => [Value::Bool(false), Value::Bool(true)],
        ParamKind::Choice { .. } | ParamKind::Text { .. } => panic!("{key}: not a number or a switch"),
    };
    ends.map(|value| {
        let mut config = config.clone();
        config.manager.set(key, &value).unwrap();
        config.to_string()
    })
}

const BASES: [&str; 6] = [
    "smooth(limit=nodes)",
    "smooth(limit=nodes,learn-node-use=true)",
    "smooth(preset=kairos)",
    "smooth",
    "smooth(preset=lc0)",
    "legacy(mle-legacy(midpoint=60.0))",
];

#[test]
fn every_key_named_inert_changes_nothing_in_play() {
    let mut checked = 0;
    for base in BASES {
        for inert in inert_keys(&TimeManagerConfig::parse(base).unwrap()).unwrap() {
            let [low, high] = at_both_ends(base, inert.key);
            let (key, why) = (inert.key, inert.why);
            assert_eq!(play(&low), play(&high), "{base}: {key} is named inert ({why}) but changes play");
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} inert keys were checked");
}

#[test]
fn the_keys_that_are_read_change_the_same_game() {
    // The script's control: keys the managers read under each base, at their ends, must show in what it records.
    let read = [
        ("smooth(limit=nodes)", "prune-floor"),
        ("smooth(limit=nodes)", "max-move-budget"),
        ("smooth(limit=nodes,learn-node-use=true)", "init-timeuse"),
        ("smooth", "init-timeuse"),
        ("smooth", "per-move-piggybank"),
        ("smooth(per-move-piggybank=0.1,force-piggybank-ms=1000)", "max-piggybank-use"),
        ("smooth(per-move-piggybank=0.1)", "max-piggybank-moves"),
        ("smooth(preset=lc0)", "max-piggybank-use"),
        ("smooth(preset=lc0,force-piggybank-ms=-1)", "overtaker-optimism"),
        ("smooth(first-move-bonus=1.0)", "first-move-bonus-decay"),
        ("legacy", "midpoint-move"),
        ("legacy(immediate-use=0.5)", "spread-after"),
        ("legacy(slowmover=1.5)", "spread-after"),
    ];
    for (base, key) in read {
        let config = TimeManagerConfig::parse(base).unwrap();
        assert!(inert_keys(&config).unwrap().iter().all(|inert| inert.key != key), "{base}: {key} is read");
        let [low, high] = at_both_ends(base, key);
        assert_ne!(play(&low), play(&high), "{base}: {key} at its ends should change the scripted game");
    }
}

#[test]
fn the_node_limit_names_the_time_use_keys_and_the_way_out() {
    let names = |spec: &str| -> Vec<&'static str> {
        inert_keys(&TimeManagerConfig::parse(spec).unwrap()).unwrap().iter().map(|i| i.key).collect()
    };
    let bare = names("smooth(limit=nodes)");
    let time_use = ["init-timeuse", "min-timeuse", "timeuse-update-rate", "init-piggybank"];
    assert!(time_use.iter().all(|k| bare.contains(k)), "{bare:?}");
    assert!(!bare.contains(&"prune-floor") && !bare.contains(&"max-move-budget"));
    let learned = names("smooth(limit=nodes,learn-node-use=true)");
    assert!(!learned.contains(&"init-timeuse"));
    let time = names("smooth");
    assert!(time.contains(&"prune-floor") && !time.contains(&"init-timeuse"));
    let why = inert_keys(&TimeManagerConfig::parse("smooth(limit=nodes)").unwrap()).unwrap();
    let init_timeuse = why.iter().find(|i| i.key == "init-timeuse").unwrap();
    assert!(init_timeuse.why.contains("learn-node-use=true"), "{}", init_timeuse.why);
}
