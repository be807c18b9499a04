//! The OpenBench conventions Kairos relies on, through the binary: time-manager keys as UCI options that a match
//! runner can set one value at a time (fastchess only sends options the engine announces, and the keys are hidden
//! options, which `uci` lists after `--show-hidden`), the SPSA block
//! OpenBench's `create_spsa_run` splits into seven fields, its `Name, value` output read back into a string that
//! `tm-plan` accepts, and OpenBench's SPRT spelling in `kairos match --sprt`.

use std::time::Duration;

use kairos_tests::{run_kairos, workspace_root, UciSession};

const LIMIT: Duration = Duration::from_secs(60);

/// The announced default of option `name` in a `uci` answer.
fn announced<'a>(lines: &'a [String], name: &str) -> Option<&'a str> {
    let prefix = format!("option name {name} type ");
    lines.iter().find_map(|line| line.strip_prefix(&prefix)).map(|rest| {
        let default = rest.split_once("default").map_or("", |(_, tail)| tail.trim_start());
        default.split(" min ").next().unwrap_or(default)
    })
}

/// `tm-plan`'s JSON lines for `time_manager`, with the string as given and in canonical form (which the lines
/// echo) replaced by `TM`.
fn plan(time_manager: &str) -> String {
    let args = ["tm-plan", "--time-manager", time_manager, "--tc", "10+0.1", "--json", "--seed", "3"];
    let output = run_kairos(&args, &workspace_root(), LIMIT);
    assert_eq!(output.code, Some(0), "{time_manager}: {}", output.stderr);
    let canonical = timemgr::TimeManagerConfig::parse(time_manager).expect("a valid string").to_string();
    output.stdout.replace(time_manager, "TM").replace(&canonical, "TM")
}

#[test]
fn key_options_are_announced_set_one_by_one_and_equal_the_same_keys_in_the_string() {
    let mut engine = UciSession::start(&["--backend=uniform", "--show-hidden"]);
    engine.send("uci");
    let first = engine.read_until("uciok", LIMIT);
    assert_eq!(announced(&first, "SmoothMaxMoveBudget"), Some("0.3"), "{first:?}");
    // init-nps 0: smooth starts from the engine's own measure of its speed.
    assert_eq!(announced(&first, "SmoothInitNps"), Some("0.0"), "{first:?}");
    assert_eq!(announced(&first, "RegimeSwitchNodes"), Some("1000.0"), "the default, regime: {first:?}");
    assert_eq!(announced(&first, "LegacySlowmover"), Some("1.0"), "another manager's keys too: {first:?}");
    assert!(first.contains(&"option name SmoothTrendNpsUpdatePeriodMs type spin default 0 min 0 max 600000".into()));
    assert!(first.contains(&"option name SmoothNeedMoreTime type check default false".into()));
    assert_eq!(announced(&first, "MleLegacyMidpoint"), Some("51.5"));

    engine.send("setoption name TimeManager value legacy");
    engine.send("setoption name SmoothMaxMoveBudget value 0.42");
    engine.send("isready");
    let refused = engine.read_until("readyok", LIMIT);
    assert!(
        refused.iter().any(|line| line.starts_with(
            "info string error SmoothMaxMoveBudget is key max-move-budget of time manager smooth, but TimeManager is \
             legacy; select it first (setoption name TimeManager value smooth"
        )),
        "{refused:?}"
    );

    // OpenBench's order: the test's options (TimeManager) first, then the SPSA values.
    engine.send("setoption name TimeManager value smooth(limit=nodes)");
    engine.send("setoption name SmoothMaxMoveBudget value 0.42");
    engine.send("setoption name MleLegacyMidpoint value 60");
    engine.send("setoption name SmoothMaxMoveBudget value 7");
    engine.send("isready");
    let set = engine.read_until("readyok", LIMIT);
    let errors: Vec<&String> = set.iter().filter(|line| line.starts_with("info string error")).collect();
    assert_eq!(
        errors,
        ["info string error invalid value '7' for option SmoothMaxMoveBudget: expected a number from 0.001 to 1"],
        "only the out-of-range value is refused, and the engine keeps serving"
    );
    engine.send("uci");
    let second = engine.read_until("uciok", LIMIT);
    let live = announced(&second, "TimeManager").expect("TimeManager is announced").to_owned();
    assert_eq!(live, "smooth(max-move-budget=0.42,limit=nodes,mle-legacy(midpoint=60.0))");
    assert_eq!(announced(&second, "SmoothMaxMoveBudget"), Some("0.42"));

    let by_hand = plan("smooth(limit=nodes,max-move-budget=0.42,mle-legacy(midpoint=60))");
    assert_eq!(plan(&live), by_hand, "the keys set by option plan exactly as the keys written in the string");
    assert_ne!(plan("smooth(limit=nodes)"), by_hand, "and the keys change the plan");

    engine.send("setoption name TimeManager value smooth(limit=time)");
    engine.send("uci");
    let third = engine.read_until("uciok", LIMIT);
    assert_eq!(announced(&third, "TimeManager"), Some("smooth(limit=time)"), "a later TimeManager replaces all");
    assert_eq!(announced(&third, "SmoothMaxMoveBudget"), Some("0.3"));
}

#[test]
fn key_options_are_flags_and_listed_in_help() {
    let help = run_kairos(&["--help"], &workspace_root(), LIMIT);
    assert_eq!(help.code, Some(0), "{}", help.stderr);
    assert!(help.stdout.contains("--smooth-max-move-budget") && help.stdout.contains("MleLegacyMidpoint"));
    let mut engine = UciSession::start(&["--backend=uniform", "--time-manager=smooth", "--smooth-max-move-budget=0.5"]);
    engine.send("uci");
    let lines = engine.read_until("uciok", LIMIT);
    assert_eq!(announced(&lines, "TimeManager"), Some("smooth(max-move-budget=0.5)"));
}

#[test]
fn the_exported_spsa_block_is_openbenchs_and_reads_back_into_a_plannable_string() {
    let dir = std::env::temp_dir().join(format!("kairos-openbench-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let export = run_kairos(
        &[
            "tune",
            "--time-manager=smooth",
            "--param=max-move-budget=0.3:0.1:0.6",
            "--param=trend-nps-update-period-ms=3000:0:6000",
            "--param=mle-legacy.midpoint=51.5:30:80",
            "--export=openbench",
        ],
        &dir,
        LIMIT,
    );
    assert_eq!(export.code, Some(0), "{}", export.stderr);
    // Written by hand from OpenBench's create_spsa_run: name, int|float, value, min, max, c_end, r_end.
    assert_eq!(
        export.stdout,
        "SmoothMaxMoveBudget, float, 0.3, 0.1, 0.6, 0.02, 0.002\n\
         SmoothTrendNpsUpdatePeriodMs, int, 3000, 0, 6000, 250, 0.002\n\
         MleLegacyMidpoint, float, 51.5, 30.0, 80.0, 1.0, 0.002\n"
    );
    for line in export.stdout.lines() {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert!(fields[1] == "int" || fields[1] == "float");
        assert!(fields[2..].iter().all(|f| f.parse::<f64>().is_ok()), "{line}");
    }
    let block = dir.join("block.txt");
    std::fs::write(&block, &export.stdout).unwrap();
    let import = |file: &std::path::Path| {
        run_kairos(&["tune", "--time-manager=smooth", "--import", "openbench", file.to_str().unwrap()], &dir, LIMIT)
    };
    let round_trip = import(&block);
    assert_eq!(round_trip.code, Some(0), "{}", round_trip.stderr);
    assert_eq!(round_trip.stdout, "smooth(trend-nps-update-period-ms=3000)\n", "the start values");

    // OpenBench's spsa_optimal_values: "Name, value", integers rounded.
    let tuned = dir.join("tuned.txt");
    std::fs::write(
        &tuned,
        "SmoothMaxMoveBudget, 0.4523\nSmoothTrendNpsUpdatePeriodMs, 2750\nMleLegacyMidpoint, 57.25\n",
    )
    .unwrap();
    let tuned_string = import(&tuned);
    assert_eq!(tuned_string.code, Some(0), "{}", tuned_string.stderr);
    let string = tuned_string.stdout.trim();
    assert_eq!(string, "smooth(max-move-budget=0.4523,trend-nps-update-period-ms=2750,mle-legacy(midpoint=57.25))");
    plan(string);

    // The node limit has no trend watcher: exporting that key there is refused before any tune, with the reason.
    let inert = run_kairos(
        &[
            "tune",
            "--time-manager=smooth(limit=nodes)",
            "--param=trend-nps-update-period-ms=3000:0:6000",
            "--export=openbench",
        ],
        &dir,
        LIMIT,
    );
    assert_eq!(inert.code, Some(1));
    let refusal = "trend-nps-update-period-ms: smooth(limit=nodes) never reads it";
    assert!(inert.stderr.contains(refusal), "{}", inert.stderr);

    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "SmoothMaxMoveBudget, 0.45\nLegacySlowmover, 1.1\n").unwrap();
    let refused = import(&bad);
    assert_eq!(refused.code, Some(1));
    assert!(
        refused.stderr.contains("line 2: LegacySlowmover is key slowmover of time manager legacy"),
        "{}",
        refused.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn match_takes_openbenchs_sprt_spelling_and_prints_fastchess_lines() {
    let dir = std::env::temp_dir().join(format!("kairos-openbench-sprt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = [
        "match", "--engine", "name=nodes", "cmd=kairos", "option.TimeManager=smooth(limit=nodes)", "--engine",
        "name=legacy", "cmd=kairos", "option.TimeManager=legacy", "--each", "tc=10+0.1", "option.Backend=uniform",
        "option.Threads=1", "option.VirtualNps=20000", "--virtual-clock", "--games", "2", "--max-plies", "20",
        "--results", "sprt.jsonl", "--sprt", "bounds=[0.00,", "5.00]", "confidence=[0.10,", "0.05]",
    ];
    let output = run_kairos(&args, &dir, Duration::from_secs(300));
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let lines: Vec<&str> = output.stdout.lines().collect();
    assert_eq!(lines[0], "Results of nodes vs legacy:", "{}", output.stdout);
    assert!(lines.iter().any(|l| l.starts_with("Games: 2, Wins: ")), "{}", output.stdout);
    assert!(lines.iter().any(|l| l.starts_with("Ptnml(0-2): [")), "{}", output.stdout);
    // ln(0.10 / 0.95) = -2.25 and ln(0.90 / 0.05) = 2.89: beta is confidence's first number, as in OpenBench.
    assert!(
        lines.iter().any(|l| l.starts_with("LLR: ") && l.ends_with(" (-2.25, 2.89) [0.00, 5.00]")),
        "{}",
        output.stdout
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn make_builds_to_exe_with_evalfile_as_the_default_network() {
    // OpenBench's client runs `make -j EXE=<name> [EVALFILE=<absolute path>]` in a temporary tree (Client/utils.py).
    let output = std::process::Command::new("make")
        .args(["-n", "EXE=kairos-dev", "EVALFILE=/nets/maia-1900.pb.gz"])
        .current_dir(workspace_root())
        // cargo test exports CARGO, and `make test` its MAKEFLAGS; the Makefile would take both.
        .env_remove("CARGO")
        .env_remove("MAKEFLAGS")
        .env_remove("MAKELEVEL")
        .output()
        .expect("make runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let plan = String::from_utf8(output.stdout).expect("UTF-8");
    let lines: Vec<&str> = plan.lines().collect();
    // The client unpacks GitHub's zip with Python's zipfile, which keeps no execute bits: a script runs through
    // its interpreter (a live OpenBench worker failed with `./scripts/setup: Permission denied`).
    assert!(lines.contains(&"bash scripts/setup"), "{plan}");
    assert!(lines.iter().all(|line| !line.starts_with("./")), "a recipe needs an execute bit: {plan}");
    let setup = std::fs::read_to_string(workspace_root().join("scripts/setup")).expect("scripts/setup");
    let by_path: Vec<&str> = setup
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with("\"$root/") || line.starts_with("./"))
        .collect();
    assert!(by_path.is_empty(), "scripts/setup runs a script through its execute bit: {by_path:?}");
    assert!(
        lines.contains(&"KAIROS_EVALFILE=\"/nets/maia-1900.pb.gz\" cargo build --release -p kairos --bin kairos"),
        "{plan}"
    );
    assert_eq!(lines.last(), Some(&"cp target/release/kairos \"kairos-dev\""), "{plan}");
}
