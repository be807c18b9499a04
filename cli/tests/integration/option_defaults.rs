//! Every default is declared once (the engine's options table) and reaches the binary, the library and the lc0
//! parity tests unchanged: the binary's `uci` answer is the declared table line for line; the options Kairos
//! shares with lc0 carry lc0's UCI defaults and ranges (written here by hand, an independent reference); and the
//! search parameters, stopper options and backend options the engine builds from its defaults, which the
//! binary runs on, hold those same values.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use engine::options::{EngineOptions, OptionKind, OptionsError, OPTIONS};
use engine::search::ScoreType;
use nn::encoder::HistoryFill;
use nn::{BackendKind, DeviceChoice, Precision};

/// One lc0 option: its UCI name, its UCI default as text and, for numbers, its range `(min, max)`.
type Lc0Option = (&'static str, &'static str, Option<(f64, f64)>);

/// Every option Kairos shares with lc0, as lc0 declares it: from docs/lc0 (smooth.md §1.3 MoveOverheadMs,
/// stoppers.md §3.4–3.5, search.md §4.1) and, for the ranges those pages leave out, lc0's own option
/// declarations (`SearchParams::Populate`, `PopulateCommonStopperOptions`, the engine's `PopulateOptions`).
const LC0_OPTIONS: &[Lc0Option] = &[
    ("Threads", "0", Some((0.0, 128.0))),
    ("MinibatchSize", "0", Some((0.0, 1024.0))),
    ("MaxPrefetch", "32", Some((0.0, 1024.0))),
    ("NNCacheSize", "2000000", Some((0.0, 999_999_999.0))),
    ("CPuct", "1.745", Some((0.0, 100.0))),
    ("CPuctBase", "38739", Some((1.0, 1e9))),
    ("CPuctFactor", "3.894", Some((0.0, 1000.0))),
    ("FpuStrategy", "reduction", None),
    ("FpuValue", "0.330", Some((-100.0, 100.0))),
    ("PolicyTemperature", "1.359", Some((0.1, 10.0))),
    ("SmartPruningFactor", "1.33", Some((0.0, 10.0))),
    ("SmartPruningMinimumBatches", "0", Some((0.0, 10_000.0))),
    ("MoveOverheadMs", "200", Some((0.0, 100_000_000.0))),
    ("TimeManager", "legacy", None),
    ("OutOfOrderEval", "true", None),
    ("MaxOutOfOrderEvalsFactor", "2.4", Some((0.0, 100.0))),
    ("IdlingMinimumWork", "0", Some((0.0, 10_000.0))),
    ("ThreadIdlingThreshold", "1", Some((0.0, 128.0))),
    ("TaskWorkers", "-1", Some((-1.0, 128.0))),
    ("MinimumPickingWork", "1", Some((1.0, 100_000.0))),
    ("MinimumRemainingPickingWork", "20", Some((0.0, 100_000.0))),
    ("MaxCollisionVisits", "80000", Some((1.0, 100_000_000.0))),
    ("MaxCollisionVisitsScalingStart", "28", Some((1.0, 100_000.0))),
    ("MaxCollisionVisitsScalingEnd", "145000", Some((0.0, 100_000_000.0))),
    ("MaxCollisionVisitsScalingPower", "1.25", Some((0.01, 100.0))),
    ("MovesLeftMaxEffect", "0.0345", Some((0.0, 1.0))),
    ("MovesLeftThreshold", "0.8", Some((0.0, 1.0))),
    ("MovesLeftSlope", "0.0027", Some((0.0, 1.0))),
    ("MovesLeftConstantFactor", "0.0", Some((-1.0, 1.0))),
    ("MovesLeftScaledFactor", "1.6521", Some((-2.0, 2.0))),
    ("MovesLeftQuadraticFactor", "-0.6521", Some((-1.0, 1.0))),
    ("MinimumKLDGainPerNode", "0.0", Some((0.0, 1.0))),
    ("KLDGainAverageInterval", "100", Some((1.0, 10_000_000.0))),
    ("StickyEndgames", "true", None),
    ("TwoFoldDraws", "true", None),
    ("NodesAsPlayouts", "false", None),
    ("RamLimitMb", "0", Some((0.0, 100_000_000.0))),
    ("MultiPV", "1", Some((1.0, 500.0))),
    ("ScoreType", "WDL_mu", None),
    ("UCI_ShowWDL", "false", None),
    ("UCI_ShowMovesLeft", "false", None),
    ("VerboseMoveStats", "false", None),
    ("SyzygyPath", "", None),
    ("SyzygyFastPlay", "false", None),
    ("UCI_Chess960", "false", None),
    ("DrawScore", "0", Some((-1.0, 1.0))),
    ("ContemptMode", "play", None),
    ("Contempt", "", None),
    ("ContemptMaxValue", "420", Some((0.0, 10000.0))),
    ("WDLCalibrationElo", "0", Some((0.0, 10000.0))),
    ("WDLContemptAttenuation", "1", Some((-10.0, 10.0))),
    ("WDLMaxS", "1.4", Some((0.0, 10.0))),
    ("WDLEvalObjectivity", "1", Some((0.0, 1.0))),
    ("WDLDrawRateTarget", "0", Some((0.0, 0.999))),
    ("WDLDrawRateReference", "0.5", Some((0.001, 0.999))),
    ("WDLBookExitBias", "0.65", Some((-2.0, 2.0))),
    ("UCI_Opponent", "", None),
    ("UCI_RatingAdv", "0", Some((-10000.0, 10000.0))),
    ("LogFile", "", None),
    ("PerPVCounters", "false", None),
    ("StrictTiming", "false", None),
    ("NodesPerSecondLimit", "0", Some((0.0, 1e6))),
    ("SolidTreeThreshold", "100", Some((1.0, 2e9))),
    ("HistoryFill", "fen_only", None),
    ("RootHasOwnCpuctParams", "false", None),
    ("CPuctAtRoot", "1.745", Some((0.0, 100.0))),
    ("CPuctBaseAtRoot", "38739", Some((1.0, 1e9))),
    ("CPuctFactorAtRoot", "3.894", Some((0.0, 1000.0))),
    ("FpuStrategyAtRoot", "same", None),
    ("FpuValueAtRoot", "1.0", Some((-100.0, 100.0))),
    ("Temperature", "0", Some((0.0, 100.0))),
    ("TempDecayMoves", "0", Some((0.0, 640.0))),
    ("TempDecayDelayMoves", "0", Some((0.0, 100.0))),
    ("TempCutoffMove", "0", Some((0.0, 1000.0))),
    ("TempEndgame", "0", Some((0.0, 100.0))),
    ("TempValueCutoff", "100", Some((0.0, 100.0))),
    ("TempVisitOffset", "0", Some((-1000.0, 1000.0))),
    ("DirichletNoiseEpsilon", "0", Some((0.0, 1.0))),
    ("DirichletNoiseAlpha", "0.3", Some((0.0, 10_000_000.0))),
];

/// Every option of lc0 909a4082's `uci` answer with `--show-hidden`, in its order (copied from that answer).
const LC0_UCI_OPTIONS: &[&str] = &[
    "LogFile", "ConfigFile", "Ponder", "SyzygyPath", "StrictTiming", "Threads", "MinibatchSize", "CPuct",
    "CPuctAtRoot", "CPuctBase", "CPuctBaseAtRoot", "CPuctFactor", "CPuctFactorAtRoot", "RootHasOwnCpuctParams",
    "TwoFoldDraws", "Temperature", "TempDecayMoves", "TempDecayDelayMoves", "TempCutoffMove", "TempEndgame",
    "TempValueCutoff", "TempVisitOffset", "DirichletNoiseEpsilon", "DirichletNoiseAlpha", "VerboseMoveStats",
    "LogLiveStats", "FpuStrategy", "FpuValue", "FpuStrategyAtRoot", "FpuValueAtRoot", "CacheHistoryLength",
    "MaxCollisionEvents", "MaxCollisionVisits", "MaxCollisionVisitsScalingStart", "MaxCollisionVisitsScalingEnd",
    "MaxCollisionVisitsScalingPower", "OutOfOrderEval", "MaxOutOfOrderEvalsFactor", "StickyEndgames", "SyzygyFastPlay",
    "MultiPV", "PerPVCounters", "ScoreType", "MovesLeftMaxEffect", "MovesLeftThreshold", "MovesLeftSlope",
    "MovesLeftConstantFactor", "MovesLeftScaledFactor", "MovesLeftQuadraticFactor", "MaxConcurrentSearchers",
    "DrawScore", "ContemptMode", "Contempt", "ContemptMaxValue", "WDLCalibrationElo", "WDLContemptAttenuation",
    "WDLMaxS", "WDLEvalObjectivity", "WDLDrawRateTarget", "WDLDrawRateReference", "WDLBookExitBias",
    "NodesPerSecondLimit", "TaskWorkers", "MinimumProcessingWork", "MinimumPickingWork", "MinimumRemainingPickingWork",
    "MinimumPerTaskProcessing", "IdlingMinimumWork", "ThreadIdlingThreshold", "UCI_Opponent", "UCI_RatingAdv",
    "SearchSpinBackoff", "GarbageCollectionDelay", "MaxPrefetch", "SolidTreeThreshold", "KLDGainAverageInterval",
    "MinimumKLDGainPerNode", "SmartPruningFactor", "SmartPruningMinimumBatches", "NodesAsPlayouts", "RamLimitMb",
    "MoveOverheadMs", "TimeManager", "ClearTree", "UCI_Chess960", "UCI_ShowWDL", "UCI_ShowEPS", "UCI_ShowMovesLeft",
    "PolicyTemperature", "HistoryFill", "WeightsFile", "Backend", "BackendOptions", "NNCacheSize",
];

/// lc0's default of `name`, as text.
fn lc0_default(name: &str) -> &'static str {
    LC0_OPTIONS
        .iter()
        .find(|(lc0_name, _, _)| *lc0_name == name)
        .unwrap_or_else(|| panic!("{name} is not in LC0_OPTIONS"))
        .1
}

/// The lc0 options whose Kairos default departs from lc0's on purpose, with Kairos's default and range: `regime`,
/// which plays lc0's legacy where moves get many nodes and the node limit that passed its SPRT against legacy where
/// they get few (EXPERIMENTS.md, 2026-11-24/25 and 2026-11-29); `MaxPrefetch=-1`, the backend's recommendation,
/// lc0's 32 on CUDA and none on a CPU, where a prefetched position costs what a searched one does (BENCHMARKS.md,
/// "Prefetching on a CPU"); `StrictTiming=true`, the move's clock started when `go` arrives as Stockfish's, where
/// lc0's, started at `position`, loses the time a GUI spends before `go` (lc0 issue #2418; docs/uci.md).
const DELIBERATE_DEPARTURES: &[Lc0Option] =
    &[("TimeManager", "regime", None), ("MaxPrefetch", "-1", Some((-1.0, 1024.0))), ("StrictTiming", "true", None)];

/// lc0's default of the float option `name`, as the search stores it (f32).
fn lc0_f32(name: &str) -> f32 {
    lc0_default(name).parse().unwrap_or_else(|_| panic!("{name} is not a number"))
}

/// lc0's default of the integer option `name`.
fn lc0_integer(name: &str) -> u64 {
    lc0_default(name).parse().unwrap_or_else(|_| panic!("{name} is not an integer"))
}

/// lc0's default of the check option `name`.
fn lc0_check(name: &str) -> bool {
    lc0_default(name).parse().unwrap_or_else(|_| panic!("{name} is not true or false"))
}

/// The `option name …` lines the binary answers `uci` with, hidden options included, in order.
fn binary_option_lines() -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .arg("--show-hidden")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("kairos starts");
    child.stdin.take().expect("stdin").write_all(b"uci\nquit\n").expect("kairos reads");
    let output = child.wait_with_output().expect("kairos answers");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.lines().filter(|line| line.starts_with("option name ")).map(str::to_owned).collect()
}

/// Name and default of one UCI `option` line.
fn option_default(line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix("option name ")?;
    let (name, rest) = rest.split_once(" type ")?;
    let default = rest.split_once(" default").map_or("", |(_, tail)| tail.trim_start());
    let default = default.split(" min ").next().unwrap_or("").split(" var ").next().unwrap_or("");
    Some((name.to_owned(), default.to_owned()))
}

/// The binary's announced defaults, as name → default.
fn binary_defaults() -> BTreeMap<String, String> {
    binary_option_lines().iter().filter_map(|line| option_default(line)).collect()
}

#[test]
fn the_binary_announces_the_declared_table_line_for_line() {
    assert_eq!(
        binary_option_lines(),
        EngineOptions { show_hidden: true, ..EngineOptions::default() }.uci_option_lines(),
        "the binary's uci answer (names, types, defaults, ranges, choices) is the declared table"
    );
}

#[test]
fn the_lc0_named_options_carry_lc0s_defaults_and_ranges() {
    let announced = binary_defaults();
    for (name, lc0, lc0_range) in LC0_OPTIONS {
        let ours = announced.get(*name).unwrap_or_else(|| panic!("the binary announces no option {name}"));
        let (lc0, lc0_range) = match DELIBERATE_DEPARTURES.iter().find(|(departing, _, _)| departing == name) {
            Some((_, kairos, kairos_range)) => (kairos, kairos_range),
            None => (lc0, lc0_range),
        };
        let same = match (ours.parse::<f64>(), lc0.parse::<f64>()) {
            (Ok(a), Ok(b)) => a == b,
            _ => ours == lc0,
        };
        assert!(same, "{name}: Kairos's default {ours}, lc0's {lc0}");
        let spec = OPTIONS.iter().find(|spec| spec.uci_name == *name).expect("announced options are declared");
        let declared_range = match spec.kind {
            OptionKind::Spin { min, max } => Some((min as f64, max as f64)),
            OptionKind::Float { min, max } => Some((min, max)),
            OptionKind::Check | OptionKind::Text | OptionKind::Combo(_) | OptionKind::Button => None,
        };
        assert_eq!(declared_range, *lc0_range, "{name}: Kairos's range, lc0's");
    }
}

#[test]
fn the_search_stoppers_and_backend_are_built_with_the_declared_defaults() {
    // What the binary announces, set back option by option, gives what the engine builds from its defaults.
    // The time-manager keys are views of the TimeManager string (engine/src/options/mod.rs tests them): setting a
    // key of a manager that is not selected is refused by design, so only the declared table is set back.
    let mut announced = EngineOptions::default();
    // A button has no default: pressing it is no setting.
    let declared = |name: &str| OPTIONS.iter().any(|s| s.uci_name == name && s.kind != OptionKind::Button);
    for (name, default) in binary_defaults().into_iter().filter(|(name, _)| declared(name)) {
        announced.set(&name, &default).unwrap_or_else(|e| panic!("{name}={default}: {e}"));
    }
    let defaults = EngineOptions::default();
    assert_eq!(announced, defaults);
    let params = defaults.search_params();

    for (field, name) in [
        (params.exploration.cpuct, "CPuct"),
        (params.exploration.cpuct_base, "CPuctBase"),
        (params.exploration.cpuct_factor, "CPuctFactor"),
        (params.exploration.fpu_value, "FpuValue"),
        (params.max_out_of_order_evals_factor, "MaxOutOfOrderEvalsFactor"),
        (params.max_collision_visits_scaling_power, "MaxCollisionVisitsScalingPower"),
        (params.moves_left_max_effect, "MovesLeftMaxEffect"),
        (params.moves_left_threshold, "MovesLeftThreshold"),
        (params.moves_left_slope, "MovesLeftSlope"),
        (params.moves_left_constant_factor, "MovesLeftConstantFactor"),
        (params.moves_left_scaled_factor, "MovesLeftScaledFactor"),
        (params.moves_left_quadratic_factor, "MovesLeftQuadraticFactor"),
        (params.root_exploration.cpuct, "CPuctAtRoot"),
        (params.nps_limit, "NodesPerSecondLimit"),
        (params.move_temperature.initial, "Temperature"),
        (params.move_temperature.endgame, "TempEndgame"),
        (params.move_temperature.value_cutoff, "TempValueCutoff"),
        (params.move_temperature.visit_offset, "TempVisitOffset"),
        (params.root_noise.epsilon, "DirichletNoiseEpsilon"),
        (params.root_noise.alpha, "DirichletNoiseAlpha"),
    ] {
        assert_eq!(field, lc0_f32(name), "{name} reaches the search as lc0's f32");
    }
    for (field, name) in [
        (params.threads as u64, "Threads"),
        (params.minibatch_size as u64, "MinibatchSize"),
        (params.idling_minimum_work as u64, "IdlingMinimumWork"),
        (params.thread_idling_threshold as u64, "ThreadIdlingThreshold"),
        (u64::from(params.picking_task_rule.min_work), "MinimumPickingWork"),
        (u64::from(params.picking_task_rule.min_remaining_work), "MinimumRemainingPickingWork"),
        (u64::from(params.max_collision_visits), "MaxCollisionVisits"),
        (u64::from(params.max_collision_visits_scaling_start), "MaxCollisionVisitsScalingStart"),
        (u64::from(params.max_collision_visits_scaling_end), "MaxCollisionVisitsScalingEnd"),
        (params.ram_limit_mb, "RamLimitMb"),
        (params.multipv as u64, "MultiPV"),
        (u64::from(params.solid_tree_threshold), "SolidTreeThreshold"),
        (u64::from(params.move_temperature.decay_moves), "TempDecayMoves"),
        (u64::from(params.move_temperature.decay_delay_moves), "TempDecayDelayMoves"),
        (u64::from(params.move_temperature.cutoff_move), "TempCutoffMove"),
    ] {
        assert_eq!(field, lc0_integer(name), "{name} reaches the search as lc0's");
    }
    assert_eq!(params.max_prefetch, None, "MaxPrefetch=-1 reaches the search as the backend's recommendation");
    assert_eq!(params.task_workers.to_string(), lc0_default("TaskWorkers"), "TaskWorkers reaches the search as lc0's");
    for (field, name) in [
        (params.out_of_order_eval, "OutOfOrderEval"),
        (params.sticky_endgames, "StickyEndgames"),
        (params.two_fold_draws, "TwoFoldDraws"),
        (params.verbose_move_stats, "VerboseMoveStats"),
        (params.syzygy_fast_play, "SyzygyFastPlay"),
        (params.per_pv_counters, "PerPVCounters"),
    ] {
        assert_eq!(field, lc0_check(name), "{name} reaches the search as lc0's");
    }
    assert_eq!(params.exploration.fpu_absolute, lc0_default("FpuStrategy") == "absolute", "FpuStrategy");
    assert_eq!(params.root_exploration, params.exploration, "lc0's root defaults: RootHasOwnCpuctParams off, same FPU");
    assert_eq!(Some(params.score_type), ScoreType::from_name(lc0_default("ScoreType")), "ScoreType");

    let stoppers = defaults.common_stopper_options();
    assert_eq!(stoppers.smart_pruning_factor, lc0_f32("SmartPruningFactor"));
    assert_eq!(u64::from(stoppers.smart_pruning_minimum_batches), lc0_integer("SmartPruningMinimumBatches"));
    assert_eq!(stoppers.nodes_as_playouts, lc0_check("NodesAsPlayouts"));
    assert_eq!(stoppers.minimum_kld_gain_per_node, lc0_f32("MinimumKLDGainPerNode"));
    assert_eq!(stoppers.kld_gain_average_interval, lc0_integer("KLDGainAverageInterval"));

    let backend = defaults.backend_options().expect("the default network is installed (scripts/setup)");
    assert_eq!(backend.policy_temperature, lc0_f32("PolicyTemperature"));
    assert_eq!(Some(backend.history_fill), lc0_default("HistoryFill").parse::<HistoryFill>().ok(), "HistoryFill");
    assert_eq!(
        (backend.kind, backend.devices, backend.precision, backend.exact_softmax, backend.cache_size),
        (BackendKind::Torch, vec![DeviceChoice::Auto], Precision::Auto, false, 0),
        "the declared Backend, BackendDevice and Precision; lc0's softmax; the session adds the NNCacheSize cache"
    );
    assert_eq!(defaults.nn_cache_size as u64, lc0_integer("NNCacheSize"));
}

#[test]
fn every_option_lc0_lists_is_kairos_s_or_refused_with_what_kairos_does_instead() {
    let announced = binary_defaults();
    let mut refused = Vec::new();
    for name in LC0_UCI_OPTIONS.iter().filter(|name| !announced.contains_key(**name)) {
        let error = EngineOptions::default().set(name, "1").expect_err("an option Kairos does not announce");
        let explained = match &error {
            OptionsError::Lc0Only { .. } => true,
            OptionsError::UnknownOption { suggestion, .. } => {
                suggestion.0.as_ref().is_some_and(|kairos| announced.contains_key(kairos))
            }
            _ => false,
        };
        assert!(explained, "{name}: {error}");
        refused.push(*name);
    }
    // lc0's machinery Kairos has no counterpart of (its task workers' share of a batch's processing, spin locks, its
    // garbage collector, two options its classic search ignores, the configuration file's name) and BackendOptions,
    // which BackendDevice replaces.
    assert_eq!(refused.len(), 9, "{refused:?}");
    let by_flag = EngineOptions::from_cli_flags(&["--minimum-processing-work=2".to_string()]).unwrap_err();
    let why = "'--minimum-processing-work' is lc0's option for how its task workers share the examination";
    assert!(by_flag.to_string().starts_with(why), "{by_flag}");
}
