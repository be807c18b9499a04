//! Every default is declared once (engine's options table) and reaches the binary, the library and the lc0
//! parity tests unchanged: the binary's `uci` answer equals the declared table, the lc0-named options carry
//! lc0's published UCI defaults (LC0-NOTES §3.4–3.5, §4.1, written here by hand), and the search parameters the
//! parity tests run on are the binary's.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use engine::options::EngineOptions;
use engine::search::SearchParams;

/// lc0's UCI defaults of the options Kairos shares with it, as LC0-NOTES lists them.
const LC0_DEFAULTS: &[(&str, &str)] = &[
    ("Threads", "0"),
    ("MinibatchSize", "0"),
    ("MaxPrefetch", "32"),
    ("NNCacheSize", "2000000"),
    ("CPuct", "1.745"),
    ("CPuctBase", "38739"),
    ("CPuctFactor", "3.894"),
    ("FpuStrategy", "reduction"),
    ("FpuValue", "0.33"),
    ("PolicyTemperature", "1.359"),
    ("SmartPruningFactor", "1.33"),
    ("SmartPruningMinimumBatches", "0"),
    ("MoveOverheadMs", "200"),
    ("TimeManager", "legacy"),
    ("OutOfOrderEval", "true"),
    ("MaxOutOfOrderEvalsFactor", "2.4"),
    ("MaxCollisionVisits", "80000"),
    ("MaxCollisionVisitsScalingStart", "28"),
    ("MaxCollisionVisitsScalingEnd", "145000"),
    ("MaxCollisionVisitsScalingPower", "1.25"),
    ("MovesLeftMaxEffect", "0.0345"),
    ("MovesLeftThreshold", "0.8"),
    ("MovesLeftSlope", "0.0027"),
    ("MovesLeftConstantFactor", "0"),
    ("MovesLeftScaledFactor", "1.6521"),
    ("MovesLeftQuadraticFactor", "-0.6521"),
    ("MinimumKLDGainPerNode", "0"),
    ("KLDGainAverageInterval", "100"),
    ("StickyEndgames", "true"),
    ("TwoFoldDraws", "true"),
    ("NodesAsPlayouts", "false"),
    ("RamLimitMb", "0"),
    ("MultiPV", "1"),
    ("ScoreType", "WDL_mu"),
    ("UCI_ShowWDL", "false"),
    ("UCI_ShowMovesLeft", "false"),
    ("VerboseMoveStats", "false"),
];

/// The `option name … default …` lines the binary answers `uci` with, as name → default.
fn binary_defaults() -> BTreeMap<String, String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("kairos starts");
    child.stdin.take().expect("stdin").write_all(b"uci\nquit\n").expect("kairos reads");
    let output = child.wait_with_output().expect("kairos answers");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.lines().filter_map(option_default).collect()
}

/// Name and default of one UCI `option` line.
fn option_default(line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix("option name ")?;
    let (name, rest) = rest.split_once(" type ")?;
    let default = rest.split_once(" default").map_or("", |(_, tail)| tail.trim_start());
    let default = default.split(" min ").next().unwrap_or("").split(" var ").next().unwrap_or("");
    Some((name.to_owned(), default.to_owned()))
}

#[test]
fn the_binary_announces_the_declared_defaults_and_lc0s() {
    let announced = binary_defaults();
    let declared: BTreeMap<String, String> =
        EngineOptions::default().uci_option_lines().iter().filter_map(|line| option_default(line)).collect();
    assert_eq!(announced, declared, "the binary's uci answer is the declared table");
    for (name, lc0) in LC0_DEFAULTS {
        let ours = announced.get(*name).unwrap_or_else(|| panic!("no option {name}"));
        let same = match (ours.parse::<f64>(), lc0.parse::<f64>()) {
            (Ok(a), Ok(b)) => a == b,
            _ => ours == lc0,
        };
        assert!(same, "{name}: Kairos's default {ours}, lc0's {lc0}");
    }
}

#[test]
fn the_parity_tests_search_with_the_binarys_parameters() {
    // The parity tests and every search test take SearchParams::default() or EngineOptions' flags; the binary
    // takes its options. Setting every option to the default the binary announces gives the same parameters.
    let mut options = EngineOptions::default();
    for (name, default) in binary_defaults() {
        options.set(&name, &default).unwrap_or_else(|e| panic!("{name}={default}: {e}"));
    }
    assert_eq!(options.search_params(), SearchParams::default());
    let params = SearchParams::default();
    let lc0 = |name: &str| LC0_DEFAULTS.iter().find(|(n, _)| *n == name).unwrap().1.parse::<f32>().unwrap();
    for (field, name) in [
        (params.cpuct, "CPuct"),
        (params.cpuct_base, "CPuctBase"),
        (params.cpuct_factor, "CPuctFactor"),
        (params.fpu_value, "FpuValue"),
        (params.max_out_of_order_evals_factor, "MaxOutOfOrderEvalsFactor"),
        (params.max_collision_visits_scaling_power, "MaxCollisionVisitsScalingPower"),
        (params.moves_left_max_effect, "MovesLeftMaxEffect"),
        (params.moves_left_threshold, "MovesLeftThreshold"),
        (params.moves_left_slope, "MovesLeftSlope"),
        (params.moves_left_scaled_factor, "MovesLeftScaledFactor"),
        (params.moves_left_quadratic_factor, "MovesLeftQuadraticFactor"),
    ] {
        assert_eq!(field, lc0(name), "{name} reaches the search as lc0's f32");
    }
    let stoppers = EngineOptions::default().common_stopper_options();
    assert_eq!(stoppers.smart_pruning_factor, lc0("SmartPruningFactor"));
    assert_eq!(stoppers.kld_gain_average_interval, 100);
}
