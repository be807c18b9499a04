//! No input makes the crate panic: arbitrary option strings, clocks, contexts and statistics.

use crate::common;

use common::lc0_stopper_options;
use proptest::prelude::*;
use timemgr::options::{managers, ParamKind};
use timemgr::{
    build_stopper_chain, time_manager_from_str, CommonStopperOptions, GoParams, Hints, IterationStats, MoveContext,
    PlayedGames, TimeManagerConfig, TimeUsageHint,
};

fn registry_strings() -> impl Strategy<Value = String> {
    let names: Vec<&'static str> = managers().iter().map(|m| m.name).collect();
    (0..names.len(), proptest::collection::vec((0usize..64, -1e6f64..1e6, any::<bool>()), 0..6)).prop_map(
        move |(m, items)| {
            let spec = &managers()[m];
            let params: Vec<_> = spec.all_params().collect();
            let body: Vec<String> = items
                .iter()
                .map(|&(i, x, as_int)| {
                    let p = params[i % params.len()];
                    let value = match p.kind {
                        ParamKind::Bool { .. } => (x > 0.0).to_string(),
                        ParamKind::Choice { choices, .. } => choices[i % choices.len()].to_owned(),
                        _ if as_int => format!("{}", x as i64),
                        _ => format!("{x:e}"),
                    };
                    format!("{}={value}", p.name)
                })
                .collect();
            format!("{}({})", names[m], body.join(","))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "[a-z()=,.'\"0-9eE+\\- /_x]{0,40}") {
        if let Ok(config) = TimeManagerConfig::parse(&text) {
            prop_assert!(TimeManagerConfig::parse(&config.to_string()).is_ok());
        }
    }

    #[test]
    fn registry_shaped_strings_parse_or_explain(spec in registry_strings()) {
        match TimeManagerConfig::parse(&spec) {
            Ok(config) => {
                let canonical = config.to_string();
                prop_assert_eq!(&TimeManagerConfig::parse(&canonical).unwrap(), &config);
                // A manager that builds plays a move on an ordinary clock and traces it under its own name (ctm
                // without a model says which fallback played).
                if let Ok(mut manager) = time_manager_from_str(&canonical) {
                    let go = GoParams { wtime: Some(60_000), btime: Some(60_000), winc: Some(600), binc: Some(600), ..GoParams::default() };
                    let ctx = MoveContext { white_to_move: true, move_overhead_ms: 100, legal_moves: 20, ..MoveContext::default() };
                    let chain = build_stopper_chain(Some(manager.as_mut()), &go, &ctx, &lc0_stopper_options());
                    drop(chain);
                    manager.end_of_move(&IterationStats { total_nodes: 100, nodes_since_movestart: 100, ..IterationStats::default() });
                    let traces = manager.drain_trace();
                    prop_assert_eq!(traces.len(), 1);
                    prop_assert!(traces[0].manager.starts_with(config.name()), "{} for {}", traces[0].manager, canonical);
                }
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn any_clock_and_statistics_are_handled(
        manager in 0usize..12,
        time in any::<i64>(),
        inc in any::<i64>(),
        movestogo in proptest::option::of(any::<i32>()),
        overhead in any::<i64>(),
        ply in any::<u32>(),
        reused in any::<u64>(),
        engine_nps in proptest::option::of(any::<f32>()),
        played in (any::<u32>(), any::<f64>()),
        move_floor_ms in proptest::option::of(any::<f32>()),
        polls in proptest::collection::vec((any::<i64>(), any::<i64>(), any::<u64>(), proptest::collection::vec(any::<u32>(), 0..4), 0u8..3), 1..6),
    ) {
        let spec = ["legacy", "alphazero", "simple", "smooth", "smooth(preset=lc0)", "geometric", "expected-length(lognormal)", "legacy(mlh)", "smooth(limit=nodes)", "smooth(limit=nodes,theta=0.3,preset=lc0)", "ctm(fallback=geometric)", "smooth(mle-legacy(follow-games=3))"][manager];
        let mut tm = time_manager_from_str(spec).unwrap();
        let go = GoParams { wtime: Some(time), winc: Some(inc), movestogo, ..GoParams::default() };
        let ctx = MoveContext { white_to_move: true, game_ply: ply, reused_visits: reused, move_overhead_ms: overhead, legal_moves: 2, piece_count: ply % 40, network_moves_left_plies: Some(ply as f32 - 1000.0), moves_out_of_book: Some(ply % 13), smart_pruning: false, placement: None, engine_nps, played_games: PlayedGames { games: played.0, log_length_sum: played.1 }, move_floor_ms };
        for _ in 0..2 {
            let mut chain = build_stopper_chain(Some(tm.as_mut()), &go, &ctx, &CommonStopperOptions { minimum_kld_gain_per_node: 0.01, ..lc0_stopper_options() });
            let mut last = IterationStats::default();
            for (t, t_fb, nodes, edge_n, hint) in &polls {
                last = IterationStats {
                    time_since_movestart_ms: *t,
                    time_since_first_batch_ms: *t_fb,
                    total_nodes: *nodes,
                    nodes_since_movestart: nodes / 2,
                    edge_n: edge_n.clone(),
                    time_usage_hint: [TimeUsageHint::Normal, TimeUsageHint::NeedMoreTime, TimeUsageHint::ImmediateMove][*hint as usize],
                    ..IterationStats::default()
                };
                let mut hints = Hints::default();
                if chain.should_stop(&last, &mut hints) {
                    break;
                }
            }
            tm.end_of_move(&last);
            for trace in tm.drain_trace() {
                let cap = time.clamp(-(1 << 40), 1 << 40).saturating_sub(overhead.clamp(0, 1 << 40)).max(0);
                prop_assert!(trace.deadline_ms >= 0 && trace.deadline_ms <= cap, "{spec}: deadline {} cap {cap}", trace.deadline_ms);
            }
        }
    }
}
