//! lc0's randomised play through the UCI binary with the real network: `Temperature` draws the move played among
//! the root's moves while the `info` lines keep the best one, `TempCutoffMove` hands over to `TempEndgame`, and
//! `DirichletNoiseEpsilon` mixes noise into a new root's priors (shown by VerboseMoveStats), not into a reused one's.

use std::collections::BTreeSet;
use std::time::Duration;

use kairos_tests::{default_weights, UciSession};

const LIMIT: Duration = Duration::from_secs(120);

fn session(options: &[(&str, &str)]) -> UciSession {
    let weights = default_weights();
    let mut session = UciSession::start(&["--weights", weights.to_str().unwrap()]);
    for (name, value) in [("Threads", "1"), ("SmartPruningFactor", "0")].iter().chain(options) {
        session.send(&format!("setoption name {name} value {value}"));
    }
    session
}

/// The move played and the first move of the last `info` line's PV, for `searches` new games from the start.
fn played_and_shown(options: &[(&str, &str)], searches: usize) -> Vec<(String, String)> {
    let mut session = session(options);
    (0..searches)
        .map(|_| {
            for line in ["ucinewgame", "position startpos", "go nodes 200"] {
                session.send(line);
            }
            let lines = session.read_until("bestmove", LIMIT);
            let played = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
            let info = lines.iter().rev().find(|line| line.contains(" pv ")).expect("an info line with a PV");
            let shown = info.split(" pv ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
            (played, shown)
        })
        .collect()
}

#[test]
fn a_temperature_varies_the_move_played_and_its_cutoff_move_ends_that() {
    let drawn = played_and_shown(&[("Temperature", "5")], 12);
    let played: BTreeSet<&String> = drawn.iter().map(|(played, _)| played).collect();
    let shown: BTreeSet<&String> = drawn.iter().map(|(_, shown)| shown).collect();
    // At temperature 5 the weights are the visit shares to the power 0.2: about a dozen visited moves weigh within
    // a factor of two of one another, so twelve draws giving fewer than three moves has a chance below 1e-6.
    assert!(played.len() >= 3, "the moves played vary: {drawn:?}");
    assert_eq!(shown.len(), 1, "the info lines show the best move every time: {drawn:?}");
    // TempCutoffMove=1: from the first move on the endgame temperature, here 0, plays the best move.
    let cut = played_and_shown(&[("Temperature", "5"), ("TempCutoffMove", "1"), ("TempEndgame", "0")], 4);
    assert!(cut.iter().all(|(played, shown)| played == shown && *shown == cut[0].1), "{cut:?}");
    assert_eq!(BTreeSet::from([&cut[0].1]), shown, "the same best move as the info lines above");
}

/// Each root move's prior in percent, from the VerboseMoveStats lines of `go nodes N`.
fn root_priors(session: &mut UciSession, go: &str) -> Vec<(String, f64)> {
    session.send(go);
    let lines = session.read_until("bestmove", LIMIT);
    let mut priors: Vec<(String, f64)> = lines
        .iter()
        .filter(|line| line.starts_with("info string") && !line.starts_with("info string node "))
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "(P:")?;
            Some((words[2].to_string(), words[at + 1].trim_end_matches("%)").parse().ok()?))
        })
        .collect();
    priors.sort_by(|a, b| a.0.cmp(&b.0));
    priors
}

#[test]
fn dirichlet_noise_changes_a_new_roots_priors_and_keeps_them_for_a_reused_root() {
    let mut plain = session(&[("VerboseMoveStats", "true")]);
    plain.send("position startpos");
    let network = root_priors(&mut plain, "go nodes 1");
    assert_eq!(network.len(), 20, "the twenty moves of the start position: {network:?}");

    let mut noisy = session(&[("VerboseMoveStats", "true"), ("DirichletNoiseEpsilon", "0.5")]);
    noisy.send("position startpos");
    let first = root_priors(&mut noisy, "go nodes 1");
    let total: f64 = first.iter().map(|(_, p)| p).sum();
    assert!((total - 100.0).abs() < 0.5, "the noisy priors still sum to 100 %: {total}");
    let moved = first.iter().zip(&network).filter(|((_, a), (_, b))| (a - b).abs() > 0.05).count();
    assert!(moved >= 15, "half of each prior is noise: {first:?} against {network:?}");
    noisy.send("position startpos");
    assert_eq!(root_priors(&mut noisy, "go nodes 2"), first, "the reused root keeps its noisy priors");
    noisy.send("ucinewgame");
    noisy.send("position startpos");
    assert_ne!(root_priors(&mut noisy, "go nodes 1"), first, "a new root draws new noise");
}
