//! `kairos match-report --verdicts`: SPRTs re-derived from raw results files, on a small hand-made tree of
//! experiments and on the committed ones. The expected LLRs are the profile-likelihood ratios that
//! `reference/sprt-llr-by-optimisation.py` computes with scipy's SLSQP (not the runner's fixed point); the
//! pentanomial counts are worked by hand from the games written here or, for committed runs, are the ones the
//! runner printed when the games were played (EXPERIMENTS.md).

use crate::common;

use std::io::Write;
use std::path::Path;

use common::scratch;
use tools::report::verdicts::{collect_verdicts, verdicts_markdown, FirstCrossing, VerdictRow};
use tools::runner::{GameRecord, GameResult, Opening, ResultsHeader, ResultsLog, Termination, Variant};
use tools::stats::{EloModel, SprtConfig, SprtDecision};

fn game(game_id: u64, pair_id: u64, white: &str, black: &str, result: GameResult) -> GameRecord {
    GameRecord {
        game_id,
        pair_id,
        white: white.into(),
        black: black.into(),
        white_time_control: "10+0.1".into(),
        black_time_control: "10+0.1".into(),
        opening: Opening::startpos(),
        variant: Variant::Standard,
        result,
        termination: Termination::Checkmate,
        reason: String::new(),
        moves: Vec::new(),
        white_engine: None,
        black_engine: None,
        machine: None,
        started: None,
        ended: None,
    }
}

/// Both games of a pair from the first engine's side: its result as white, then as black ('W', 'D' or 'L').
fn pair(pair_id: u64, first: &str, second: &str, results: [char; 2]) -> [GameRecord; 2] {
    let for_white = |result: char| match result {
        'W' => GameResult::WhiteWins,
        'L' => GameResult::BlackWins,
        _ => GameResult::Draw,
    };
    let for_black = |result: char| match result {
        'W' => GameResult::BlackWins,
        'L' => GameResult::WhiteWins,
        _ => GameResult::Draw,
    };
    [
        game(2 * pair_id, pair_id, first, second, for_white(results[0])),
        game(2 * pair_id + 1, pair_id, second, first, for_black(results[1])),
    ]
}

fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!((actual - expected).abs() < 1e-7, "{what}: got {actual}, expected {expected}");
}

/// `a/results.jsonl`: a headed SPRT (nElo 0 against 200, α = β = 0.1, bounds ±ln 9) whose pairs, from "new"'s
/// side, are WW, WL, WW, WL, WW, WL, WW, LL, LL, their games finishing two pairs at a time, interleaved.
fn write_headed_match(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let (mut log, _) = ResultsLog::open(&dir.join("results.jsonl"), false).unwrap();
    let sprt = SprtConfig { elo0: 0.0, elo1: 200.0, alpha: 0.1, beta: 0.1, model: EloModel::Normalized };
    log.write_header(&ResultsHeader { sprt, engines: ["new".into(), "old".into()] }).unwrap();
    let results = ["WW", "WL", "WW", "WL", "WW", "WL", "WW", "LL", "LL"];
    let pairs: Vec<[GameRecord; 2]> = results
        .iter()
        .enumerate()
        .map(|(i, r)| pair(i as u64, "new", "old", [r.as_bytes()[0] as char, r.as_bytes()[1] as char]))
        .collect();
    for two in pairs.chunks(2) {
        let order: Vec<&GameRecord> = match two {
            [a, b] => vec![&a[0], &b[0], &a[1], &b[1]],
            [a] => vec![&a[0], &a[1]],
            _ => unreachable!(),
        };
        order.into_iter().for_each(|game| log.append(game).unwrap());
    }
}

/// `b/`: a gzipped results file without a header whose test `sprt-tests.json` declares (its first pair seen
/// before the test, so skipped; then WD, DD and LD for "x"), and an OpenBench test's info.
fn write_declared_folder(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let games: Vec<GameRecord> = [['L', 'L'], ['W', 'D'], ['D', 'D'], ['L', 'D']]
        .iter()
        .enumerate()
        .flat_map(|(i, &results)| pair(i as u64, "x", "y", results))
        .collect();
    let file = std::fs::File::create(dir.join("results.jsonl.gz")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    for game in &games {
        writeln!(gz, "{}", serde_json::to_string(game).unwrap()).unwrap();
    }
    gz.finish().unwrap();
    let declarations = r#"{"tests": [
        {"results": "results.jsonl", "engine": "x", "elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05,
         "skip_games": 2, "docs_said": "no verdict", "unrecorded_setting": "x `legacy`, y `legacy`"},
        {"openbench": "ob-info.json", "docs_said": "H1 (OpenBench)"}]}"#;
    std::fs::write(dir.join("sprt-tests.json"), declarations).unwrap();
    let info = r#"{"info": {"dev_options": "Threads=1 TimeManager=smooth(preset=kairos)",
        "base_options": "Threads=1 TimeManager=legacy", "dev_time_control": "5.0+0.05", "elolower": 0.0,
        "eloupper": 5.0, "alpha": 0.05, "beta": 0.05, "penta": [1, 2, 3, 2, 1], "games": 18}}"#;
    std::fs::write(dir.join("ob-info.json"), info).unwrap();
}

fn row<'a>(rows: &'a [VerdictRow], source: &str) -> &'a VerdictRow {
    rows.iter().find(|row| row.source == source).unwrap_or_else(|| panic!("no row for {source}"))
}

#[test]
fn a_headed_match_is_judged_at_its_first_crossing_and_declared_tests_are_read() {
    let dir = scratch("verdicts");
    write_headed_match(&dir.join("a"));
    write_declared_folder(&dir.join("b"));
    let rows = collect_verdicts(&dir).unwrap();
    assert_eq!(rows.len(), 3, "{rows:#?}");

    let headed = &row(&rows, "a/results.jsonl").test;
    // By hand: the seventh pair (WW) completes [0, 0, 3, 0, 4] with its second game, the 15th game written;
    // LLR 2.4789094802 >= ln 9 = 2.1972, where six pairs, [0, 0, 3, 0, 3], gave 1.9605523391.
    let FirstCrossing::Replayed(Some(crossing)) = headed.first_crossing else { panic!("{headed:?}") };
    assert_eq!((crossing.games, crossing.decision), (15, SprtDecision::AcceptH1));
    assert_eq!(crossing.pairs.counts_by_score(), [0, 0, 3, 0, 4]);
    assert_close(crossing.llr, 2.4789094802, "LLR at the crossing");
    // All 18 games: [2, 0, 3, 0, 4], LLR -0.5606372106, back inside the bounds; the verdict stays H1.
    assert_eq!((headed.games, headed.pairs.counts_by_score()), (18, [2, 0, 3, 0, 4]));
    assert_close(headed.final_llr().unwrap(), -0.5606372106, "LLR at the end");
    assert_eq!(headed.engines, ["new".to_owned(), "old".to_owned()]);

    // Named without `.gz`, as it is declared and as it reads once gunzipped to resume.
    let declared = row(&rows, "b/results.jsonl");
    assert_eq!((declared.test.games, declared.test.skip_games), (6, 2));
    assert_eq!(declared.test.pairs.counts_by_score(), [0, 1, 1, 1, 0], "WD, DD and LD; the skipped LL not counted");
    assert_close(declared.test.final_llr().unwrap(), -0.0024853911, "declared test's LLR");
    assert_eq!(declared.test.first_crossing, FirstCrossing::Replayed(None));
    assert_eq!(declared.docs_said.as_deref(), Some("no verdict"));

    let openbench = &row(&rows, "b/ob-info.json").test;
    assert_eq!((openbench.games, openbench.pairs.counts_by_score()), (18, [1, 2, 3, 2, 1]));
    assert_close(openbench.final_llr().unwrap(), -0.0018638038, "OpenBench test's LLR");
    assert_eq!(openbench.managers["dev"], "smooth(preset=kairos)");

    let text = verdicts_markdown(&dir, &rows);
    let headed_line = text.lines().find(|line| line.contains("`a/results.jsonl`")).unwrap();
    assert!(headed_line.contains("| H1 at game 15 (LLR +2.48) | **none (LLR -0.56)** |"), "{headed_line}");
    assert!(headed_line.contains("[0, 200], 0.1, 0.1 (-2.20, 2.20)"), "{headed_line}");
    let declared_line = text.lines().find(|line| line.contains("`b/results.jsonl`")).unwrap();
    assert!(declared_line.contains("; games after the first 2 |"), "{declared_line}");
    assert!(text.contains("`b/results.jsonl`: x `legacy`, y `legacy` (from the declaration"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_results_file_reads_the_same_gzipped_or_gunzipped_and_its_twins_count_once() {
    let dir = scratch("verdicts-twins");
    write_headed_match(&dir.join("a"));
    let plain = dir.join("a/results.jsonl");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&std::fs::read(&plain).unwrap()).unwrap();
    std::fs::write(dir.join("a/results.jsonl.gz"), gz.finish().unwrap()).unwrap();
    let twins = collect_verdicts(&dir).unwrap();
    assert_eq!(twins.len(), 1, "a gunzipped file and its gzipped twin are one run: {twins:#?}");
    let both = verdicts_markdown(&dir, &twins);
    std::fs::remove_file(&plain).unwrap();
    let gzipped_only = verdicts_markdown(&dir, &collect_verdicts(&dir).unwrap());
    assert_eq!(both, gzipped_only, "the document does not change when the run is gunzipped to resume");
    assert!(gzipped_only.contains("`a/results.jsonl`") && !gzipped_only.contains("results.jsonl.gz"));
}

#[test]
fn a_declared_test_of_a_headed_file_and_a_missing_file_are_refused() {
    let dir = scratch("verdicts-refused");
    write_headed_match(&dir);
    let declaration = r#"{"tests": [{"results": "results.jsonl", "engine": "new", "elo0": 0, "elo1": 5,
        "alpha": 0.05, "beta": 0.05}]}"#;
    std::fs::write(dir.join("sprt-tests.json"), declaration).unwrap();
    let twice = collect_verdicts(&dir).unwrap_err().to_string();
    assert!(twice.contains("records its own SPRT"), "{twice}");
    std::fs::write(dir.join("sprt-tests.json"), declaration.replace("results.jsonl", "gone.jsonl")).unwrap();
    let missing = collect_verdicts(&dir).unwrap_err().to_string();
    assert!(missing.contains("gone.jsonl is declared in sprt-tests.json but missing"), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn experiments() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments")
}

/// The committed experiments' rows, read once for both tests that need them (reading them takes seconds).
fn committed_rows() -> &'static [VerdictRow] {
    static ROWS: std::sync::OnceLock<Vec<VerdictRow>> = std::sync::OnceLock::new();
    ROWS.get_or_init(|| collect_verdicts(&experiments()).unwrap())
}

#[test]
fn the_committed_verdicts_document_is_the_commands_output() {
    let generated = verdicts_markdown(&experiments(), committed_rows());
    let committed = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/verdicts.md"));
    assert!(
        committed.as_deref().ok() == Some(generated.as_str()),
        "docs/verdicts.md is not the command's output: run `kairos match-report --verdicts experiments > \
         docs/verdicts.md` in the repository root"
    );
}

#[test]
fn the_committed_runs_read_as_the_runner_printed_them() {
    let rows = committed_rows();
    // The default against legacy at 60+0.6: the runner stopped itself at H0 with [23, 102, 154, 57, 14] and
    // LLR -2.99 (EXPERIMENTS.md, 2026-11-27); the pair that crossed completed at its 700th game.
    let default = &row(rows, "2026-11-27-default-vs-legacy-60+0.6/results.jsonl").test;
    let FirstCrossing::Replayed(Some(crossing)) = default.first_crossing else { panic!("{default:?}") };
    assert_eq!((crossing.games, crossing.decision), (700, SprtDecision::AcceptH0));
    assert_eq!(crossing.pairs.counts_by_score(), [23, 102, 154, 57, 14]);
    assert_close(crossing.llr, -2.9874799567, "the default's LLR at H0");
    // The non-regression test of `legacy(preset=kairos)`'s string over games 273-4652: [87, 471, 1081, 480, 71]
    // as EXPERIMENTS.md printed it; in normalised Elo -10 against 0 its LLR is 0.7138712682, no verdict.
    let slowmover = "2026-11-28-where-the-elo-goes/60+0.6-legacy-spread-0.15-after-5-slowmover-1.5/results.jsonl";
    let non_regression = rows
        .iter()
        .find(|row| row.source == slowmover && row.test.skip_games == 272)
        .expect("the non-regression test is declared");
    assert_eq!(non_regression.test.pairs.counts_by_score(), [87, 471, 1081, 480, 71]);
    assert_eq!(non_regression.test.first_crossing, FirstCrossing::Replayed(None));
    assert_close(non_regression.test.final_llr().unwrap(), 0.7138712682, "the non-regression test's LLR");
    // The live OpenBench test: OpenBench's own API gave its LLR as 3.045833574693395.
    let openbench = &row(rows, "2026-11-27-openbench-live/sprt-3-info.json").test;
    assert_close(openbench.final_llr().unwrap(), 3.045833574693395, "OpenBench's LLR");
}
