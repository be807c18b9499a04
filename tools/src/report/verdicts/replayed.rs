//! One SPRT re-derived from its raw games: the games read in the order they finished, the test replayed pair by
//! pair to its first crossing and on to the last game recorded.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::Deserialize;

use crate::runner::{read_results_file, EngineProvenance, GameResult};
use crate::sprt_replay::{Crossing, SprtReplay};
use crate::stats::{Pentanomial, SprtConfig};

/// The part of a game record a verdict needs; the moves are skipped.
#[derive(Deserialize)]
struct GameOutcome {
    pair_id: u64,
    white: String,
    black: String,
    white_time_control: String,
    result: GameResult,
    #[serde(default)]
    white_engine: Option<EngineProvenance>,
    #[serde(default)]
    black_engine: Option<EngineProvenance>,
}

/// How the first crossing is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FirstCrossing {
    /// Replayed from the games: where the LLR first reached a bound, or `None` if it never did.
    Replayed(Option<Crossing>),
    /// The counts alone were recorded (an OpenBench test, which stops itself at its first crossing).
    StoppedByOpenBench,
}

/// One SPRT as its raw files have it.
#[derive(Clone, Debug)]
pub struct ReplayedTest {
    /// The engine the test counts, then its opponent.
    pub engines: [String; 2],
    /// Each engine's `TimeManager` option, where the records kept the engines' options.
    pub managers: BTreeMap<String, String>,
    /// The clock as the records give it, with `VirtualNps` where the engines had one.
    pub time_control: String,
    /// The test.
    pub sprt: SprtConfig,
    /// Games at the start of the file not counted (seen before the test was chosen).
    pub skip_games: u64,
    /// Games counted.
    pub games: u64,
    /// The whole pairs counted.
    pub pairs: Pentanomial,
    /// Where the LLR first reached a bound.
    pub first_crossing: FirstCrossing,
}

impl ReplayedTest {
    /// The LLR over every pair counted.
    pub fn final_llr(&self) -> Option<f64> {
        self.sprt.llr(&self.pairs.counts_by_score()).ok()
    }
}

/// Replays the test of `engine` in a results file: the header's test if the file has one, else `declared`.
pub fn replay_results(
    path: &Path,
    engine: Option<&str>,
    declared: Option<SprtConfig>,
    skip_games: u64,
) -> anyhow::Result<ReplayedTest> {
    let file = read_results_file::<GameOutcome>(path)?;
    let (sprt, first) = match (&file.header, declared, engine) {
        (Some(header), _, _) => (header.sprt, header.engines[0].clone()),
        (None, Some(sprt), Some(engine)) => (sprt, engine.to_owned()),
        _ => anyhow::bail!("{} records no SPRT and none is declared for it", path.display()),
    };
    let counted = file.games.get(skip_games as usize..).unwrap_or_default();
    let opponent = counted
        .iter()
        .find_map(|game| match (game.white == first, game.black == first) {
            (true, _) => Some(game.black.clone()),
            (_, true) => Some(game.white.clone()),
            _ => None,
        })
        .with_context(|| format!("{}: no game of {first} after the first {skip_games}", path.display()))?;
    let mut replay = SprtReplay::new(sprt, &first, &opponent);
    for game in counted {
        replay.add(&game.white, &game.black, game.pair_id, game.result);
    }
    let tally = replay.tally();
    Ok(ReplayedTest {
        engines: [first.clone(), opponent.clone()],
        managers: managers(&file.games),
        time_control: time_control(counted),
        sprt,
        skip_games,
        games: tally.games.games(),
        pairs: tally.pairs,
        first_crossing: FirstCrossing::Replayed(replay.first_crossing().copied()),
    })
}

/// Each engine's `TimeManager` from the first game that recorded its options.
fn managers(games: &[GameOutcome]) -> BTreeMap<String, String> {
    let mut managers = BTreeMap::new();
    for game in games {
        for (name, engine) in [(&game.white, &game.white_engine), (&game.black, &game.black_engine)] {
            let manager = engine.as_ref().and_then(|e| option(e, "TimeManager"));
            if let Some(manager) = manager.filter(|_| !managers.contains_key(name)) {
                managers.insert(name.clone(), manager.to_owned());
            }
        }
    }
    managers
}

/// The last value given to a UCI option (the runner sends `--each` options first, an engine's own after them).
fn option<'a>(engine: &'a EngineProvenance, name: &str) -> Option<&'a str> {
    engine.options.iter().rev().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
}

fn time_control(games: &[GameOutcome]) -> String {
    let Some(game) = games.first() else { return "-".to_owned() };
    let nps = game.white_engine.as_ref().and_then(|engine| option(engine, "VirtualNps"));
    match nps {
        Some(nps) => format!("{}, VirtualNps {nps}", game.white_time_control),
        None => game.white_time_control.clone(),
    }
}

/// The fields of OpenBench's test `info` that a verdict needs.
#[derive(Deserialize)]
struct OpenBenchInfo {
    info: OpenBenchTest,
}

#[derive(Deserialize)]
struct OpenBenchTest {
    dev_options: String,
    base_options: String,
    dev_time_control: String,
    elolower: f64,
    eloupper: f64,
    alpha: f64,
    beta: f64,
    penta: [u64; 5],
}

/// An OpenBench test from its `info`: normalised-Elo bounds and the pentanomial, `[LL, LD, DD + WL, DW, WW]`.
pub fn replay_openbench(path: &Path) -> anyhow::Result<ReplayedTest> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let test = serde_json::from_str::<OpenBenchInfo>(&text)
        .with_context(|| format!("{} is not an OpenBench test's info", path.display()))?
        .info;
    let sprt = SprtConfig {
        elo0: test.elolower,
        elo1: test.eloupper,
        alpha: test.alpha,
        beta: test.beta,
        model: crate::stats::EloModel::Normalized,
    };
    let [ll, ld, even, dw, ww] = test.penta;
    let pairs = Pentanomial { ll, ld, wl: 0, dd: even, wd: dw, ww };
    let manager = |options: &str| {
        options.split_whitespace().find_map(|word| word.strip_prefix("TimeManager=")).unwrap_or("?").to_owned()
    };
    let engines = ["dev".to_owned(), "base".to_owned()];
    let managers = BTreeMap::from([
        (engines[0].clone(), manager(&test.dev_options)),
        (engines[1].clone(), manager(&test.base_options)),
    ]);
    Ok(ReplayedTest {
        engines,
        managers,
        time_control: format!("{} scaled by OpenBench", test.dev_time_control),
        sprt,
        skip_games: 0,
        games: 2 * pairs.pairs(),
        pairs,
        first_crossing: FirstCrossing::StoppedByOpenBench,
    })
}
