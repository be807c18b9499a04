//! `kairos match`: command-line arguments and the driver that records, tallies and stops the match.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::{ArgAction, Args, ValueEnum};

use super::engine_list::EngineList;
use super::progress::MatchProgress;
use super::words::{key_values, number};
use crate::runner::{
    binaries_by_engine, load_openings, play_games, DrawAdjudication, EngineConfig, Flow, GameRecord, GameSettings,
    MatchPlan, Opening, OpeningOrder, PgnLog, ResignAdjudication, ResultsHeader, ResultsLog, SearchDeadline,
    Tournament, UciProcess, Variant,
};
use crate::sprt_replay::SprtReplay;
use crate::stats::{EloModel, SprtConfig, SprtDecision};
use crate::tally::PairingTally;

/// Who plays whom, as a command-line value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TournamentArg {
    /// The first engine against each of the others.
    Gauntlet,
    /// Every engine against every other.
    RoundRobin,
}

/// How the book is walked, as a command-line value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OpeningOrderArg {
    /// In file order.
    Sequential,
    /// Shuffled with --seed.
    Shuffled,
}

/// Arguments of `kairos match`.
#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    /// The engines, one `--engine` occurrence each.
    #[command(flatten)]
    pub engines: EngineList,
    /// Settings shared by every engine, same keys as --engine (e.g. tc=10+0.1); an engine's own words win.
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// Gauntlet (first engine against the rest) or round robin.
    #[arg(long, value_enum, default_value_t = TournamentArg::Gauntlet)]
    pub tournament: TournamentArg,
    /// Games per pairing; must be even, since every opening is played twice with colours reversed.
    #[arg(long, default_value_t = 2)]
    pub games: u64,
    /// Opening book: .pgn, or EPD otherwise; without it every game starts from the start position.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Order in which the book is used.
    #[arg(long, value_enum, default_value_t = OpeningOrderArg::Sequential)]
    pub openings_order: OpeningOrderArg,
    /// Seed of the shuffled opening order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// PGN file each game is written to as it ends (with --resume, the games it lacks are written from the
    /// results file; a new match refuses a PGN that already holds games).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Results file: one JSON line per finished game (input of match-report and --resume).
    #[arg(long, default_value = "kairos-match.jsonl")]
    pub results: PathBuf,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Stop at an SPRT bound: elo0= elo1= alpha= beta= model=normalized|logistic, or OpenBench's
    /// bounds=[elo0, elo1] confidence=[beta, alpha] (two engines only).
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE")]
    pub sprt: Vec<String>,
    /// Continue a stopped match: skip the games already in --results and rebuild the statistics from them.
    /// Each engine must be the binary (`id name`) that played its recorded games.
    #[arg(long)]
    pub resume: bool,
    /// With --resume, continue even when an engine's binary differs from the one in the results file.
    #[arg(long)]
    pub allow_mixed_binaries: bool,
    /// Charge the virtual time Kairos reports instead of wall time, so that a match replays exactly.
    #[arg(long)]
    pub virtual_clock: bool,
    /// The variant: standard, or chess960 (also fischerandom, frc; DFRC positions too): the engines get
    /// UCI_Chess960, castling is sent as king takes rook, and the PGN carries [Variant "Chess960"].
    #[arg(long, default_value = "standard")]
    pub variant: Variant,
    /// Adjudicate a draw after this many plies from the opening.
    #[arg(long)]
    pub max_plies: Option<u32>,
    /// Draw adjudication: movenumber= movecount= score= (centipawns).
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE")]
    pub draw: Vec<String>,
    /// Resign adjudication: movecount= score= (centipawns).
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE")]
    pub resign: Vec<String>,
    /// Milliseconds a move may exceed the clock before it is a time loss.
    #[arg(long, default_value_t = 50)]
    pub latency_margin_ms: u64,
    /// Milliseconds after the clock runs out before a silent engine is declared hung and killed.
    #[arg(long, default_value_t = 5000)]
    pub hang_grace_ms: u64,
    /// Milliseconds a fixed-node or virtual-clock move may go without bestmove or more nodes before the engine is
    /// declared hung.
    #[arg(long, default_value_t = 60_000)]
    pub stall_timeout_ms: u64,
    /// Milliseconds an engine may take to answer uci and isready.
    #[arg(long, default_value_t = 60_000)]
    pub startup_timeout_ms: u64,
}

/// Splits `--sprt` words into `key=value` pairs; a value in brackets may contain spaces and commas
/// (`bounds=[0.00, 5.00]`, as OpenBench writes it, arrives as two shell words).
fn sprt_pairs(words: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    let text = words.join(" ");
    let mut pairs = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let (key, after) = rest
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--sprt: '{rest}' is not key=value (e.g. elo0=0 or bounds=[0, 5])"))?;
        let end = if after.starts_with('[') {
            after.find(']').map(|i| i + 1).ok_or_else(|| anyhow::anyhow!("--sprt: {key}={after} lacks its ']'"))?
        } else {
            after.find(' ').unwrap_or(after.len())
        };
        pairs.push((key.trim().to_owned(), after[..end].to_owned()));
        rest = after[end..].trim_start();
    }
    Ok(pairs)
}

/// The two numbers of an OpenBench pair `[a, b]`.
fn bracketed_pair(key: &str, value: &str) -> anyhow::Result<(f64, f64)> {
    let inner = value.strip_prefix('[').and_then(|v| v.strip_suffix(']'));
    let numbers: Option<Vec<f64>> = inner.and_then(|v| v.split(',').map(|n| n.trim().parse::<f64>().ok()).collect());
    match numbers.as_deref() {
        Some(&[a, b]) => Ok((a, b)),
        _ => bail!("--sprt: {key}={value} is not [number, number] (OpenBench writes e.g. {key}=[0.00, 5.00])"),
    }
}

/// The SPRT of `--sprt`: fastchess's `elo0= elo1= alpha= beta= model=`, or OpenBench's `bounds=[elo0, elo1]` and
/// `confidence=[beta, alpha]` (its order: `create_workload` reads beta first); alpha and beta default to 0.05 and
/// the model to normalized Elo, which OpenBench's pentanomial SPRT uses too.
pub fn sprt_config(words: &[String]) -> anyhow::Result<Option<SprtConfig>> {
    if words.is_empty() {
        return Ok(None);
    }
    const KEYS: [&str; 7] = ["elo0", "elo1", "alpha", "beta", "model", "bounds", "confidence"];
    let mut map: HashMap<String, String> = HashMap::new();
    for (key, value) in sprt_pairs(words)? {
        if !KEYS.contains(&key.as_str()) {
            bail!("--sprt: unknown key '{key}' (keys: {})", KEYS.join(", "));
        }
        let expanded: Vec<(&str, f64)> = match key.as_str() {
            "bounds" => {
                let (elo0, elo1) = bracketed_pair(&key, &value)?;
                vec![("elo0", elo0), ("elo1", elo1)]
            }
            "confidence" => {
                let (beta, alpha) = bracketed_pair(&key, &value)?;
                vec![("beta", beta), ("alpha", alpha)]
            }
            _ => {
                if map.insert(key.clone(), value).is_some() {
                    bail!("--sprt: {key} is given twice (bounds= sets elo0 and elo1, confidence= beta and alpha)");
                }
                continue;
            }
        };
        for (name, number) in expanded {
            if map.insert(name.to_owned(), number.to_string()).is_some() {
                bail!("--sprt: {name} is given twice (bounds= sets elo0 and elo1, confidence= beta and alpha)");
            }
        }
    }
    let model = match map.get("model").map(String::as_str) {
        None | Some("normalized") => EloModel::Normalized,
        Some("logistic") => EloModel::Logistic,
        Some(other) => bail!("--sprt: model={other} is unknown; use normalized or logistic"),
    };
    let config = SprtConfig {
        elo0: number("--sprt", &map, "elo0", None)?,
        elo1: number("--sprt", &map, "elo1", None)?,
        alpha: number("--sprt", &map, "alpha", Some(0.05))?,
        beta: number("--sprt", &map, "beta", Some(0.05))?,
        model,
    };
    config.validate()?;
    Ok(Some(config))
}

fn settings(args: &MatchArgs) -> anyhow::Result<GameSettings> {
    let draw_adjudication = if args.draw.is_empty() {
        None
    } else {
        let map = key_values("--draw", &args.draw, &["movenumber", "movecount", "score"])?;
        Some(DrawAdjudication {
            from_move: number("--draw", &map, "movenumber", Some(40))?,
            move_count: number("--draw", &map, "movecount", Some(8))?,
            score_cp: number("--draw", &map, "score", Some(10))?,
        })
    };
    let resign_adjudication = if args.resign.is_empty() {
        None
    } else {
        let map = key_values("--resign", &args.resign, &["movecount", "score"])?;
        Some(ResignAdjudication {
            move_count: number("--resign", &map, "movecount", Some(3))?,
            score_cp: number("--resign", &map, "score", Some(600))?,
        })
    };
    Ok(GameSettings {
        max_plies: args.max_plies,
        draw_adjudication,
        resign_adjudication,
        latency_margin_ms: args.latency_margin_ms,
        hang_grace_ms: args.hang_grace_ms,
        stall_timeout_ms: args.stall_timeout_ms,
        startup_timeout_ms: args.startup_timeout_ms,
        virtual_clock: args.virtual_clock,
        variant: args.variant,
    })
}

/// Builds the match plan the arguments describe.
pub fn plan_from_args(args: &MatchArgs) -> anyhow::Result<MatchPlan> {
    if args.games == 0 || !args.games.is_multiple_of(2) {
        bail!("--games {} must be even and positive: every opening is played twice with colours reversed", args.games);
    }
    let engines = args
        .engines
        .0
        .iter()
        .map(|words| EngineConfig::from_words(&args.each, words))
        .collect::<Result<Vec<_>, _>>()?;
    let openings = match &args.openings {
        Some(path) => {
            let order = match args.openings_order {
                OpeningOrderArg::Sequential => OpeningOrder::Sequential,
                OpeningOrderArg::Shuffled => OpeningOrder::Shuffled(args.seed),
            };
            load_openings(path, order)?
        }
        None => vec![Opening::startpos()],
    };
    let plan = MatchPlan {
        engines,
        tournament: match args.tournament {
            TournamentArg::Gauntlet => Tournament::Gauntlet,
            TournamentArg::RoundRobin => Tournament::RoundRobin,
        },
        openings,
        pairs_per_pairing: args.games / 2,
        concurrency: args.concurrency,
        settings: settings(args)?,
    };
    plan.validate()?;
    Ok(plan)
}

/// Runs `kairos match`: plays, records every game as it ends, shows progress and prints the statistics. With an
/// SPRT the results file's header fixes the test before the first game, the match stops at the first pair whose
/// LLR reaches a bound, and a resumed match continues the test its file records.
pub fn run_match(args: MatchArgs) -> anyhow::Result<()> {
    let plan = plan_from_args(&args)?;
    let asked = sprt_config(&args.sprt)?;
    let pairings = plan.pairings();
    if asked.is_some() && pairings.len() != 1 {
        bail!("--sprt needs exactly one pairing (two engines); this match has {}", pairings.len());
    }
    let (mut results, previous) = ResultsLog::open(&args.results, args.resume)?;
    let sprt = settle_sprt(asked, results.header(), &plan, &args.results, previous.len())?;
    let schedule = plan.schedule();
    let mut tallies: Vec<PairingTally> =
        pairings.iter().map(|&(a, b)| PairingTally::new(&plan.engines[a].name, &plan.engines[b].name)).collect();
    let mut replay = sprt.as_ref().map(|header| SprtReplay::new(header.sprt, &header.engines[0], &header.engines[1]));
    let mut done = std::collections::HashSet::new();
    for record in &previous {
        check_resumed(&plan, &schedule, record)?;
        done.insert(record.game_id);
        tallies.iter_mut().any(|t| t.add(record));
        if let Some(replay) = replay.as_mut() {
            replay.add(&record.white, &record.black, record.pair_id, record.result);
        }
    }
    check_engines(&plan, &previous, args.allow_mixed_binaries)?;
    let mut pgn = match args.pgn.as_deref() {
        Some(path) => {
            let (pgn, written) = PgnLog::open(path, &previous)?;
            if written > 0 {
                let path = path.display();
                eprintln!("warning: PGN file {path} lacked {written} of the results file's games; written from it");
            }
            Some(pgn)
        }
        None => None,
    };
    if let Some(header) = sprt.as_ref().filter(|_| results.header().is_none() && previous.is_empty()) {
        results.write_header(header)?;
    }
    let crossed = |replay: &Option<SprtReplay>| replay.as_ref().is_some_and(|r| r.first_crossing().is_some());
    if let Some(crossing) = replay.as_ref().and_then(SprtReplay::first_crossing) {
        eprintln!(
            "the SPRT {} reached its bound after {} of the recorded games; the test is over and no game is played",
            args.results.display(),
            crossing.games
        );
    }
    let jobs: Vec<_> = schedule.iter().filter(|job| !done.contains(&job.game_id)).cloned().collect();
    let progress = MatchProgress::new(schedule.len() as u64, done.len() as u64);
    let config = sprt.as_ref().map(|header| header.sprt);
    let mut failure: Option<anyhow::Error> = None;
    if !crossed(&replay) {
        play_games(&plan, jobs, |record| {
            let written = results.append(record).map_err(anyhow::Error::from).and_then(|()| match pgn.as_mut() {
                Some(pgn) => pgn.append(record).map_err(anyhow::Error::from),
                None => Ok(()),
            });
            if let Err(e) = written {
                failure.get_or_insert(e);
                return Flow::Stop;
            }
            tallies.iter_mut().any(|t| t.add(record));
            if let Some(replay) = replay.as_mut() {
                replay.add(&record.white, &record.black, record.pair_id, record.result);
            }
            progress.warn_of_failure(record);
            progress.update(record, &tallies[0], config.as_ref());
            if crossed(&replay) {
                Flow::Stop
            } else {
                Flow::Continue
            }
        });
    }
    progress.finish();
    for tally in &tallies {
        println!("{}\n", tally.summary(config.as_ref()));
    }
    if let Some(crossing) = replay.as_ref().and_then(SprtReplay::first_crossing) {
        let hypothesis = if crossing.decision == SprtDecision::AcceptH0 { "H0" } else { "H1" };
        println!(
            "SPRT verdict at its first crossing: {hypothesis} accepted after {} games (LLR {:.2}); games recorded \
             after it do not change it",
            crossing.games, crossing.llr
        );
    }
    match failure {
        Some(e) => Err(e.context("recording a finished game failed; the match was stopped")),
        None => Ok(()),
    }
}

/// The SPRT a match runs: the one its results file records, which a resume may repeat but not change, or the one
/// asked for. A file that holds games but no header (written before headers existed, or by a match without
/// `--sprt`) takes the test asked for, with a warning that it was not fixed before its first game.
fn settle_sprt(
    asked: Option<SprtConfig>,
    recorded: Option<&ResultsHeader>,
    plan: &MatchPlan,
    path: &Path,
    games_recorded: usize,
) -> anyhow::Result<Option<ResultsHeader>> {
    let path = path.display();
    let engines = match plan.pairings().as_slice() {
        &[(first, second)] => Some([plan.engines[first].name.clone(), plan.engines[second].name.clone()]),
        _ => None,
    };
    let Some(recorded) = recorded else {
        if asked.is_some() && games_recorded > 0 {
            eprintln!(
                "warning: results file {path} holds {games_recorded} games but records no SPRT (written before the \
                 runner recorded the test, or by a match without --sprt): the bounds given now were not fixed before \
                 its first game"
            );
        }
        return Ok(asked.zip(engines).map(|(sprt, engines)| ResultsHeader { sprt, engines }));
    };
    if engines.as_ref() != Some(&recorded.engines) {
        bail!(
            "results file {path} records an SPRT of {} against {}; this match is not that pairing: resume with the \
             same engines, or start a new --results file",
            recorded.engines[0],
            recorded.engines[1]
        );
    }
    match asked {
        Some(asked) if asked != recorded.sprt => bail!(
            "results file {path} records the SPRT '{}'; this resume asks for '{asked}'. A resumed match continues \
             the test fixed before its first game: resume with --sprt {} (or without --sprt), or start a new \
             --results file for a new test",
            recorded.sprt,
            recorded.sprt
        ),
        Some(_) => {}
        None => eprintln!("continuing the SPRT that results file {path} records: {}", recorded.sprt),
    }
    Ok(Some(recorded.clone()))
}

/// Starts each engine once before the first game, warns of what its start-up suggests is wrong with its
/// settings (options it does not announce, errors it printed), and has it play one move (`go nodes 1` from the
/// start position). An engine that cannot start or cannot move stops the match before any game: its games would
/// be forfeits that say nothing of its play and would enter the results and the SPRT (as cutechess-cli and
/// fastchess refuse such an engine). When resuming, it refuses (unless `allow_mixed`) an engine whose recorded
/// games another binary played; with `allow_mixed` it says which ones differ.
fn check_engines(plan: &MatchPlan, previous: &[GameRecord], allow_mixed: bool) -> anyhow::Result<()> {
    let recorded = binaries_by_engine(previous);
    let timeout = std::time::Duration::from_millis(plan.settings.startup_timeout_ms);
    for engine in &plan.engines {
        let mut process = UciProcess::start(engine, &[], timeout).map_err(|failure| {
            anyhow::anyhow!(
                "engine {} cannot start ({failure}): fix its cmd= or options and run the match again (with \
                 --resume to continue a results file); no game was played",
                engine.name
            )
        })?;
        for warning in process.setup_warnings() {
            eprintln!("warning: engine {}: {warning}", engine.name);
        }
        check_plays_a_move(&engine.name, &mut process, timeout)?;
        let current = process.id_name().to_owned();
        process.quit();
        let Some(ids) = recorded.get(&engine.name) else { continue };
        let others: Vec<&String> = ids.keys().filter(|id| **id != current).collect();
        if others.is_empty() {
            continue;
        }
        let recorded_ids = others.iter().map(|id| format!("'{id}'")).collect::<Vec<_>>().join(", ");
        if !allow_mixed {
            bail!(
                "engine {} is now '{current}' but its games in the results file were played by {recorded_ids}: \
                 resume with that binary, start a new --results file, or pass --allow-mixed-binaries",
                engine.name
            );
        }
        eprintln!("warning: engine {} is now '{current}'; earlier games were played by {recorded_ids}", engine.name);
    }
    Ok(())
}

/// Asks the engine for one move from the start position; a missing or null `bestmove` (Kairos without its
/// network answers `bestmove 0000`) or no answer within `timeout` is an error naming the engine.
fn check_plays_a_move(name: &str, process: &mut UciProcess, timeout: std::time::Duration) -> anyhow::Result<()> {
    let way_out = "fix its settings (the warnings above say what it objected to) and run the match again (with \
                   --resume to continue a results file); no game was played";
    let report = process
        .search("position startpos", "go nodes 1", SearchDeadline::FromGo(timeout))
        .map_err(|failure| anyhow::anyhow!("engine {name} cannot play a move ({failure}): {way_out}"))?;
    if matches!(report.best_move.as_str(), "" | "(none)" | "0000") {
        bail!(
            "engine {name} cannot play a move: it answered 'bestmove {}' to 'go nodes 1' from the start position: \
             {way_out}",
            report.best_move
        );
    }
    Ok(())
}

fn check_resumed(plan: &MatchPlan, schedule: &[crate::runner::GameJob], record: &GameRecord) -> anyhow::Result<()> {
    let matches = schedule.get(record.game_id as usize).is_some_and(|job| {
        plan.engines[job.white].name == record.white
            && plan.engines[job.black].name == record.black
            && job.opening == record.opening
            && job.pair_id == record.pair_id
    });
    if !matches {
        bail!(
            "game {} in the results file does not fit this match (engines, openings or order differ): \
             resume with the same settings, or start a new --results file",
            record.game_id
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn openbench_bounds_and_confidence_read_as_elo0_elo1_beta_alpha() {
        let config = sprt_config(&words("bounds=[0.00, 5.00] confidence=[0.10, 0.05]")).unwrap().unwrap();
        assert_eq!((config.elo0, config.elo1, config.beta, config.alpha), (0.0, 5.0, 0.10, 0.05));
        assert_eq!(config.model, EloModel::Normalized);
        // Wald's bounds by hand: ln(0.10 / 0.95) = -2.2513, ln(0.90 / 0.05) = ln 18 = 2.8904.
        let (lower, upper) = config.bounds();
        assert!((lower - -2.2513).abs() < 1e-4 && (upper - 2.8904).abs() < 1e-4, "{lower} {upper}");
        let same = sprt_config(&words("elo0=0 elo1=5 alpha=0.05 beta=0.10")).unwrap().unwrap();
        assert_eq!(config, same, "the two spellings agree");
        let unspaced = sprt_config(&words("bounds=[-1.5,3] model=logistic")).unwrap().unwrap();
        assert_eq!((unspaced.elo0, unspaced.elo1, unspaced.alpha, unspaced.beta), (-1.5, 3.0, 0.05, 0.05));
    }

    #[test]
    fn bad_sprt_words_are_named() {
        let error = |text: &str| format!("{:#}", sprt_config(&words(text)).unwrap_err());
        assert!(error("bounds=[0, 5] elo0=1").contains("elo0 is given twice"));
        assert!(error("bounds=[0 5]").contains("is not [number, number]"));
        assert!(error("bounds=[0, 5").contains("lacks its ']'"));
        assert!(error("bound=[0, 5]").contains("unknown key 'bound'"));
        assert!(error("bounds=[5, 0]").contains("elo0 < elo1"));
    }
}
