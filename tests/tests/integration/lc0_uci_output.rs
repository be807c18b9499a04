//! Kairos's UCI output against lc0's own, captured from lc0 (master 909a4082, blas backend) with the same
//! network, flags and positions: the `info` line and every VerboseMoveStats line of `go nodes 1` on the five
//! reference positions (reference/lc0-verbose-stats-nodes1.json) and after 400 visits, and where lc0's order among
//! ties decides the search (reference/tie-order-search-positions.json): under its uniform priors, sequential, with
//! MultiPV and with prefetch, and one tie of Maia-1900's. Text must match exactly, except that a number that comes
//! from the network may differ by one unit in its last printed digit (backend float noise, amplified by lc0's
//! 16-bit prior storage), and `time` and `nps` are left out.

use std::time::Duration;

use kairos_tests::{default_weights, reference_text, UciSession};
use serde_json::Value;

/// Both tokens are the same number up to one unit in the last printed digit, printed the same way.
fn same_up_to_last_digit(ours: &str, theirs: &str) -> bool {
    let decimals = |text: &str| text.split_once('.').map_or(0, |(_, fraction)| fraction.len());
    let (Ok(a), Ok(b)) = (ours.parse::<f64>(), theirs.parse::<f64>()) else {
        return false;
    };
    let places = decimals(theirs);
    places == decimals(ours) && (a - b).abs() <= 1.000_001 * 10f64.powi(-(places as i32))
}

/// The line without its `time` and `nps` fields, split into words (runs of spaces kept as empty words, so
/// the column layout is compared too).
fn comparable(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split(' ').collect();
    let is_info = !line.starts_with("info string");
    let mut kept = Vec::new();
    let mut index = 0;
    while index < words.len() {
        if is_info && matches!(words[index], "time" | "nps") {
            index += 2;
            continue;
        }
        kept.push(words[index].to_string());
        index += 1;
    }
    kept
}

/// The evaluator of lc0's captures but where a reference names another: Maia-1900 on the CPU in fp32, as lc0's blas
/// backend, whatever Precision=auto would pick on this CPU.
fn maia_fp32() -> Vec<String> {
    let weights = format!("--weights={}", default_weights().display());
    vec![weights, "--backend-device=cpu".into(), "--precision=fp32".into()]
}

/// Kairos's `info` lines and best move for `go nodes` on a position, searched sequentially as lc0 was for the
/// references, with `extra_flags` after those (the later of two values of a flag wins, in both engines).
fn kairos_lines(fen: &str, moves: &[&str], nodes: u32, extra_flags: &[String]) -> (Vec<String>, String) {
    let mut flags = vec![
        "--threads=1", "--minibatch-size=1", "--max-prefetch=0", "--out-of-order-eval=false",
        "--smart-pruning-factor=0", "--show-wdl", "--verbose-move-stats",
    ];
    flags.extend(extra_flags.iter().map(String::as_str));
    let mut engine = UciSession::start(&flags);
    let position = if moves.is_empty() {
        format!("position fen {fen}")
    } else {
        format!("position fen {fen} moves {}", moves.join(" "))
    };
    engine.send(&position);
    engine.send(&format!("go nodes {nodes}"));
    let mut lines = engine.read_until("bestmove", Duration::from_secs(60));
    let bestmove = lines.pop().expect("a bestmove line");
    // Kairos names its backend and precision in an `info string Backend: …` line at start-up, where lc0 writes
    // its backend's name to stderr: that line has no counterpart in lc0's UCI output.
    let compared = |line: &String| line.starts_with("info") && !line.starts_with("info string Backend: ");
    (lines.into_iter().filter(compared).collect(), bestmove)
}

#[test]
fn info_and_verbose_move_stats_match_lc0_at_one_node() {
    let last_digit_differences = compare_with_lc0("lc0-verbose-stats-nodes1.json", 1, &maia_fp32(), |lines| lines, 0.0);
    assert!(last_digit_differences <= 10, "{last_digit_differences} last-digit differences is more than float noise");
}

/// After 400 visits the root is solid (lc0's SolidTreeThreshold 100): lc0 has a node under every root move and shows
/// the unvisited ones with zero WL, D, M and Q. Only the last `info` line and the statistics are compared: how many
/// `info` lines come before depends on lc0's watchdog timing. Over 400 visits the network's float noise reaches U and
/// S through priors one 16-bit step apart (2⁻¹¹ relative): numbers within 1e-3 of lc0's, relative, pass too.
#[test]
fn final_info_and_verbose_move_stats_match_lc0_after_400_nodes() {
    let differences = compare_with_lc0("lc0-verbose-stats-nodes400.json", 400, &maia_fp32(), from_last_info, 1e-3);
    assert!(differences <= 60, "{differences} differences is more than float noise");
}

/// Under lc0's uniform priors and zero values (its `random` backend with `uniform=true`, Kairos's `uniform`) every
/// choice of the search is a tie, broken by the order of a node's edges: lc0's move generator's order put through
/// its std::sort, and so for the VerboseMoveStats lines. After 800 visits of each position of
/// reference/tie-order-search-positions.json (castling, en passant, promotions, DFRC) the last `info` line and the
/// statistics must be lc0's to the last digit.
#[test]
fn every_tie_of_a_search_under_uniform_priors_is_broken_as_lc0_breaks_it() {
    let uniform = ["--backend=uniform".to_string()];
    let differences = compare_with_lc0("lc0-uniform-verbose-stats-nodes800.json", 800, &uniform, from_last_info, 0.0);
    assert_eq!(differences, 0);
}

/// After 1. e4, Maia-1900 gives castling and d2d4 one 16-bit prior in the line 1... e5 2. Nf3 d6 3. Bc4 Be7 that
/// lc0 visits for its 386th visit: the order it breaks that tie in decides which of the two it expands, and so the
/// values of 1... e5 and of the root after 400 visits (reference/lc0-tie-order-verbose-stats-nodes400.json).
#[test]
fn a_tie_between_two_priors_of_maia_is_broken_as_lc0_breaks_it() {
    let differences =
        compare_with_lc0("lc0-tie-order-verbose-stats-nodes400.json", 400, &maia_fp32(), from_last_info, 1e-3);
    assert!(differences <= 60, "{differences} differences is more than float noise");
}

/// lc0 ranks its MultiPV lines with std::partial_sort, which leaves equal moves in an order of its own: under uniform
/// priors its first line after 800 visits from the start is h2h4 while its best move is d2d3. The last four `info`
/// lines (MultiPV 4) and the statistics of each position of reference/tie-order-search-positions.json must be lc0's.
#[test]
fn multipv_lines_rank_equal_moves_as_lc0_ranks_them() {
    let flags = ["--backend=uniform".to_string(), "--multipv=4".to_string()];
    let from_last_update = |lines: Vec<String>| {
        let first = lines.iter().rposition(|line| line.contains(" multipv 1 ")).expect("a first MultiPV line");
        lines[first..].to_vec()
    };
    let differences = compare_with_lc0("lc0-uniform-multipv-4-nodes800.json", 800, &flags, from_last_update, 0.0);
    assert_eq!(differences, 0);
}

/// lc0 prefetches into its cache the children a gather left unvisited, in the order of their scores, which it sorts
/// a few at a time with std::partial_sort; under uniform priors they all tie, and the cache hits a later gather meets
/// are backed up out of order, so that order shapes the tree. Batches of 8 with a prefetch of 32, 600 visits.
#[test]
fn prefetch_under_uniform_priors_warms_what_lc0_warms() {
    let flags = ["--backend=uniform", "--minibatch-size=8", "--max-prefetch=32", "--out-of-order-eval=true"];
    let flags: Vec<String> = flags.iter().map(|flag| flag.to_string()).collect();
    let differences = compare_with_lc0("lc0-uniform-prefetch-nodes600.json", 600, &flags, from_last_info, 0.0);
    assert_eq!(differences, 0);
}

/// lc0's `random` backend hashes each position's input planes into its values and logits, so that a search under it
/// meets no network's float noise: Kairos's `Backend=random` is that backend bit for bit, and every number of the last
/// `info` line and of VerboseMoveStats must be lc0's to the last digit after 800 sequential visits of each position
/// of reference/random-backend-search-positions.json (an en-passant square from a FEN, a pinned pawn's en passant
/// inside the tree, which lc0's cache key flags, castling, promotions, mates).
#[test]
fn a_sequential_search_under_lc0s_random_backend_is_lc0s_to_the_last_digit() {
    let random = ["--backend=random".to_string()];
    let differences = compare_with_lc0("lc0-random-verbose-stats-nodes800.json", 800, &random, from_last_info, 0.0);
    assert_eq!(differences, 0);
}

/// The same in batches of 32 with lc0's out-of-order evaluation and a prefetch of 32, 1500 visits, without task
/// workers (`--task-workers=0` in both engines: lc0 gives a backend that is not on the CPU some by default).
#[test]
fn a_batched_search_with_prefetch_under_lc0s_random_backend_is_lc0s_to_the_last_digit() {
    let flags = ["--backend=random", "--minibatch-size=32", "--max-prefetch=32", "--out-of-order-eval=true"];
    let flags: Vec<String> = flags.iter().chain(&["--task-workers=0"]).map(|flag| flag.to_string()).collect();
    let reference = "lc0-random-prefetch-verbose-stats-nodes1500.json";
    let differences = compare_with_lc0(reference, 1500, &flags, from_last_info, 0.0);
    assert_eq!(differences, 0);
}

/// With a task worker, lc0's choice for one search thread on two cores, a gather's pass hands some subtrees to
/// picking tasks and their picks follow its own in the batch, which changes the order of backups and with it the
/// search: in batches of 256 with prefetch and out-of-order evaluation, 30,000 visits, kiwipete's and the pinned en
/// passant's searches end otherwise than with `--task-workers=0`, and Kairos's must be lc0's to the last digit on
/// every position of reference/task-order-search-positions.json (those whose tasks' order lc0 repeats run after run).
#[test]
fn a_search_with_lc0s_task_workers_under_its_random_backend_is_lc0s_to_the_last_digit() {
    let flags = ["--backend=random", "--minibatch-size=256", "--max-prefetch=32", "--out-of-order-eval=true"];
    let flags: Vec<String> = flags.iter().chain(&["--task-workers=1"]).map(|flag| flag.to_string()).collect();
    let reference = "lc0-random-task-workers-verbose-stats-nodes30000.json";
    let differences = compare_with_lc0(reference, 30_000, &flags, from_last_info, 0.0);
    assert_eq!(differences, 0);
}

/// lc0's WDL rescaling in the search and in what it shows, under `Contempt=100` with the WDL_mu score, and under
/// `WDLCalibrationElo=2000`, `Contempt=150` and `DrawScore=0.2`: lc0's build fuses multiplies with adds in these
/// formulas, in its FPU, cpuct and softmax (docs/lc0/search.md §4.15), and so must Kairos to match it here.
#[test]
fn contempt_and_draw_score_under_lc0s_random_backend_are_lc0s_to_the_last_digit() {
    for (reference, extra) in [
        ("lc0-random-contempt-wdl-mu-verbose-stats-nodes800.json", &["--contempt=100", "--score-type=WDL_mu"][..]),
        (
            "lc0-random-calibrated-draw-score-verbose-stats-nodes800.json",
            &["--wdl-calibration-elo=2000", "--contempt=150", "--draw-score=0.2"][..],
        ),
    ] {
        let flags: Vec<String> = ["--backend=random"].iter().chain(extra).map(|flag| flag.to_string()).collect();
        let differences = compare_with_lc0(reference, 800, &flags, from_last_info, 0.0);
        assert_eq!(differences, 0, "{reference}");
    }
}

/// The last `info` line and the statistics after it: how many `info` lines come before depends on lc0's watchdog.
fn from_last_info(lines: Vec<String>) -> Vec<String> {
    let last = lines.iter().rposition(|line| line.starts_with("info depth")).expect("an info line");
    lines[last..].to_vec()
}

/// Compares Kairos's lines, under the evaluator's and any other `flags`, with the reference's (both cut by `cut`)
/// position by position; the number of numbers that differ, each one unit apart in its last printed digit or within
/// `relative` of lc0's.
fn compare_with_lc0(
    reference: &str,
    nodes: u32,
    flags: &[String],
    cut: impl Fn(Vec<String>) -> Vec<String>,
    relative: f64,
) -> usize {
    let reference: Value = serde_json::from_str(&reference_text(reference)).unwrap();
    let mut last_digit_differences = 0;
    for (name, position) in reference["positions"].as_object().unwrap() {
        let moves: Vec<&str> = position["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        let (ours, bestmove) = kairos_lines(position["fen"].as_str().unwrap(), &moves, nodes, flags);
        assert_eq!(bestmove, position["bestmove"].as_str().unwrap(), "{name}");
        let theirs: Vec<String> =
            position["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect();
        let (ours, theirs) = (cut(ours), cut(theirs));
        assert_eq!(ours.len(), theirs.len(), "{name}: {ours:#?}");
        for (our_line, their_line) in ours.iter().zip(&theirs) {
            let (a, b) = (comparable(our_line), comparable(their_line));
            assert_eq!(a.len(), b.len(), "{name}:\n ours  {our_line}\n lc0's {their_line}");
            for (x, y) in a.iter().zip(&b) {
                if x != y {
                    let (x, y) = (x.trim_end_matches(['%', ')']), y.trim_end_matches(['%', ')']));
                    let near = |a: f64, b: f64| (a - b).abs() <= relative * b.abs();
                    let relatively_close = matches!((x.parse(), y.parse()), (Ok(a), Ok(b)) if near(a, b));
                    let close = same_up_to_last_digit(x, y) || relatively_close;
                    assert!(close, "{name}: '{x}' vs '{y}'\n ours  {our_line}\n lc0's {their_line}");
                    eprintln!("{name}: '{x}' (Kairos) vs '{y}' (lc0) in {}", b[2]);
                    last_digit_differences += 1;
                }
            }
        }
    }
    eprintln!("numbers one unit apart in the last printed digit: {last_digit_differences}");
    last_digit_differences
}
