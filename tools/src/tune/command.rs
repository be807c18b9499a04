//! `kairos tune`: arguments, the driver that plays, logs, resumes, plots and prints the tuned option string, and
//! the optional SPRT of the result against the start.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{ArgAction, Args, Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use super::journal::{IterationLine, Journal, RunHeader};
use super::match_objective::{MatchObjective, MatchSetup};
use super::openbench::{import_values, spsa_block};
use super::space::TuneSpace;
use super::spsa::{Gains, Objective, Spsa, SpsaError};
use crate::cli::{run_match, MatchArgs};
use crate::report::{write_chart, Chart, Series};
use crate::runner::{load_openings, GameSettings, Opening, OpeningOrder, KAIROS_COMMAND};

/// A tuning framework whose parameter blocks `kairos tune` writes and reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TuneFormat {
    /// OpenBench's SPSA: `Name, int|float, value, min, max, c_end, r_end` in, `Name, value` out.
    Openbench,
}

/// Arguments of `kairos tune`.
#[derive(Args, Debug, Clone)]
pub struct TuneArgs {
    /// The manager to tune, optionally with fixed keys: smooth or smooth(preset=lc0,…).
    #[arg(long)]
    pub time_manager: String,
    /// A key to tune as NAME=START:MIN:MAX (estimator keys as ESTIMATOR.KEY, e.g. mle-legacy.midpoint); repeat.
    #[arg(long = "param", action = ArgAction::Append, value_name = "NAME=START:MIN:MAX", required_unless_present = "import")]
    pub params: Vec<String>,
    /// Print the --param boxes as an SPSA input block for FORMAT (names are the engine's key options) and exit.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "import")]
    pub export: Option<TuneFormat>,
    /// Read tuned values (FORMAT FILE: `Name, value` lines or the input block) into --time-manager, print the
    /// resulting option string and exit.
    #[arg(long, num_args = 2, value_names = ["FORMAT", "FILE"])]
    pub import: Vec<String>,
    /// A fixed opponent's option string (e.g. legacy); without it the two perturbations play each other.
    #[arg(long)]
    pub against: Option<String>,
    /// Time control of every game: base+inc in seconds, movetime=MS or nodes=N.
    #[arg(long, default_value = "5+0.05")]
    pub tc: String,
    /// Games each perturbed side plays per iteration; even, since colours are reversed within pairs.
    #[arg(long, default_value_t = 8)]
    pub games_per_iteration: u64,
    /// SPSA iterations; A, the stability constant, is 10 % of them (not needed with --export or --import).
    #[arg(long, required_unless_present_any = ["export", "import"])]
    pub iterations: Option<u64>,
    /// Charge the virtual time Kairos reports instead of wall time, so that a run replays exactly.
    #[arg(long)]
    pub virtual_clock: bool,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Seed of the perturbation signs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// JSONL log, one line per iteration; the result goes to FILE.result.txt, plots to FILE.trajectory.png/svg.
    #[arg(long, default_value = "kairos-tune.jsonl")]
    pub log: PathBuf,
    /// Continue an interrupted run from --log.
    #[arg(long)]
    pub resume: bool,
    /// A UCI option for every engine, as KEY=VALUE; repeat.
    #[arg(long = "engine-option", action = ArgAction::Append, value_name = "KEY=VALUE")]
    pub engine_options: Vec<String>,
    /// The engine executable; kairos means this executable.
    #[arg(long, default_value = KAIROS_COMMAND)]
    pub engine_cmd: String,
    /// A command-line argument for the engine executable; repeat.
    #[arg(long = "engine-arg", action = ArgAction::Append, value_name = "ARG", allow_hyphen_values = true)]
    pub engine_args: Vec<String>,
    /// Perturbation size c at the first iteration, in each parameter's tuning steps.
    #[arg(long, default_value_t = 1.0)]
    pub c: f64,
    /// Learning-rate numerator a; by default a score difference of 0.5 moves each parameter one step at first.
    #[arg(long)]
    pub a: Option<f64>,
    /// Opening book (.pgn, or EPD otherwise), walked in order across iterations; default: the start position.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Adjudicate a draw after this many plies from the opening.
    #[arg(long)]
    pub max_plies: Option<u32>,
    /// After tuning, run an SPRT of the tuned string against the start (results in FILE.verify.jsonl).
    #[arg(long)]
    pub verify: bool,
    /// SPRT settings of --verify, as for `kairos match --sprt`.
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE", default_values = ["elo0=0", "elo1=5"])]
    pub sprt: Vec<String>,
    /// Most games --verify plays if the SPRT has not stopped; even.
    #[arg(long, default_value_t = 20_000)]
    pub verify_games: u64,
}

/// `FILE` with `suffix` appended to its name: where the result, plots and verification go.
pub fn sibling(log: &Path, suffix: &str) -> PathBuf {
    let mut name = log.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "kairos-tune".into());
    name.push(suffix);
    log.with_file_name(name)
}

fn engine_words(args: &TuneArgs) -> anyhow::Result<Vec<String>> {
    let mut words = vec![format!("cmd={}", args.engine_cmd), format!("tc={}", args.tc)];
    words.extend(args.engine_args.iter().map(|a| format!("arg={a}")));
    for option in &args.engine_options {
        if !option.contains('=') || option.starts_with('=') {
            bail!("--engine-option '{option}' is not KEY=VALUE (e.g. --engine-option Threads=1)");
        }
        if option.starts_with("TimeManager=") {
            bail!("--engine-option TimeManager=… would override the tuned string; use --time-manager and --against");
        }
        words.push(format!("option.{option}"));
    }
    Ok(words)
}

fn iterations(args: &TuneArgs) -> anyhow::Result<u64> {
    args.iterations.ok_or_else(|| anyhow::anyhow!("--iterations is required to tune"))
}

fn setup(args: &TuneArgs) -> anyhow::Result<MatchSetup> {
    if args.games_per_iteration == 0 || !args.games_per_iteration.is_multiple_of(2) {
        bail!(
            "--games-per-iteration {} must be even and positive: games come in pairs with colours reversed",
            args.games_per_iteration
        );
    }
    if iterations(args)? == 0 {
        bail!("--iterations must be at least 1");
    }
    if let Some(against) = &args.against {
        timemgr::time_manager_from_str(against).with_context(|| format!("--against {against}"))?;
    }
    let openings = match &args.openings {
        Some(path) => load_openings(path, OpeningOrder::Sequential)?,
        None => vec![Opening::startpos()],
    };
    Ok(MatchSetup {
        engine_words: engine_words(args)?,
        against: args.against.clone(),
        games_per_iteration: args.games_per_iteration,
        openings,
        concurrency: args.concurrency,
        settings: GameSettings {
            max_plies: args.max_plies,
            virtual_clock: args.virtual_clock,
            ..GameSettings::default()
        },
    })
}

fn header(args: &TuneArgs, space: &TuneSpace, gains: Gains, iterations: u64) -> RunHeader {
    let objective = format!(
        "engine {:?}; against {:?}; {} games per side per iteration; openings {:?}; max plies {:?}; virtual clock {}",
        engine_words(args).unwrap_or_default(),
        args.against,
        args.games_per_iteration,
        args.openings,
        args.max_plies,
        args.virtual_clock
    );
    RunHeader {
        time_manager: args.time_manager.clone(),
        params: space.params().to_vec(),
        gains,
        seed: args.seed,
        iterations,
        objective,
    }
}

fn replay(spsa: &mut Spsa, lines: &[IterationLine]) -> Result<(), SpsaError> {
    for line in lines {
        let step = spsa.replay(line.iteration, &line.signs, line.trial)?;
        for (param, &value) in spsa.params().iter().zip(&step.theta) {
            let logged = line.parameters.get(&param.name).copied().unwrap_or(f64::NAN);
            let agrees = (logged - value).abs() <= 1e-9 * value.abs().max(1.0);
            if !agrees {
                return Err(SpsaError::ReplayMismatch {
                    iteration: line.iteration,
                    reason: format!("{} is logged as {logged} but replays to {value}", param.name),
                });
            }
        }
    }
    Ok(())
}

/// The iterations' bar on a terminal (where stderr is a file or a pipe, indicatif hides it and each iteration
/// gets a line instead).
fn progress_bar(total: u64, done: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} iterations {elapsed_precise} {msg}") {
        bar.set_style(style);
    }
    bar.set_position(done);
    bar
}

/// Each parameter's trajectory, scaled to its bounds so that all share one axis from 0 (MIN) to 1 (MAX).
fn trajectories(spsa: &Spsa, lines: &[IterationLine]) -> Vec<Series> {
    spsa.params()
        .iter()
        .map(|p| {
            let scaled = |x: f64| (x - p.min) / (p.max - p.min);
            let start = std::iter::once((0.0, scaled(p.start)));
            let path =
                lines.iter().filter_map(|l| l.parameters.get(&p.name).map(|&x| ((l.iteration + 1) as f64, scaled(x))));
            (format!("{} [{}, {}]", p.name, p.min, p.max), start.chain(path).collect())
        })
        .collect()
}

fn plot(log: &Path, spsa: &Spsa, lines: &[IterationLine]) {
    let series = trajectories(spsa, lines);
    let chart = Chart {
        title: "SPSA trajectories",
        x_label: "iteration",
        y_label: "(value - MIN) / (MAX - MIN)",
        series: &series,
    };
    let dir = log.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let stem = sibling(log, ".trajectory");
    let stem = stem.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Err(e) = write_chart(dir, &stem, &chart) {
        eprintln!("warning: the trajectory plot was not written: {e}");
    }
}

#[derive(Parser)]
struct VerifyCommand {
    #[command(flatten)]
    args: MatchArgs,
}

/// The `kairos match` arguments of `--verify`: an SPRT of `tuned` against `start`.
pub fn verify_match_args(args: &TuneArgs, tuned: &str, start: &str) -> anyhow::Result<MatchArgs> {
    let words = engine_words(args)?;
    let mut argv = vec!["verify".to_owned()];
    for (name, time_manager) in [("tuned", tuned), ("start", start)] {
        argv.push("--engine".into());
        argv.push(format!("name={name}"));
        argv.push(format!("option.TimeManager={time_manager}"));
        argv.extend(words.iter().cloned());
    }
    argv.extend([
        "--games".into(),
        args.verify_games.to_string(),
        "--concurrency".into(),
        args.concurrency.to_string(),
    ]);
    argv.extend(["--results".into(), sibling(&args.log, ".verify.jsonl").display().to_string()]);
    argv.push("--sprt".into());
    argv.extend(args.sprt.iter().cloned());
    if let Some(path) = &args.openings {
        argv.extend(["--openings".into(), path.display().to_string()]);
    }
    if let Some(plies) = args.max_plies {
        argv.extend(["--max-plies".into(), plies.to_string()]);
    }
    if args.virtual_clock {
        argv.push("--virtual-clock".into());
    }
    if args.resume {
        argv.push("--resume".into());
    }
    Ok(VerifyCommand::try_parse_from(argv)?.args)
}

/// The outcome of a tuning run.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneOutcome {
    /// The option string at the start.
    pub start: String,
    /// The tuned option string (θ after the last iteration).
    pub tuned: String,
    /// Where the tuned string was saved.
    pub result_path: PathBuf,
}

/// Runs the tuning with games played by the match runner (resuming if asked); see [`tune_with`].
pub fn tune(args: &TuneArgs) -> anyhow::Result<TuneOutcome> {
    let space = TuneSpace::new(&args.time_manager, &args.params)?;
    let mut objective = MatchObjective::new(&space, setup(args)?, |_| {});
    let start = space.option_string(&space.starts())?;
    objective.plan(0, &start, &start)?;
    tune_with(args, &space, &mut objective)
}

/// Runs the tuning against any objective: checks every input, rebuilds a resumed run from the log, appends each
/// finished iteration to it, then writes the plot and the result file; no SPRT.
pub fn tune_with<O>(args: &TuneArgs, space: &TuneSpace, objective: &mut O) -> anyhow::Result<TuneOutcome>
where
    O: Objective<Error = anyhow::Error>,
{
    setup(args)?;
    let iterations = iterations(args)?;
    let gains = Gains::spall(iterations, args.a, args.c);
    let mut spsa = Spsa::new(space.params().to_vec(), gains, args.seed)?;
    let start = space.option_string(&space.starts())?;
    let (mut journal, mut lines) = Journal::open(&args.log, &header(args, space, gains, iterations), args.resume)?;
    lines.truncate(iterations as usize);
    replay(&mut spsa, &lines)?;
    let bar = progress_bar(iterations, spsa.iteration());
    let iteration_lines = !std::io::stderr().is_terminal();
    while spsa.iteration() < iterations {
        let step = spsa.step(objective)?;
        let line = IterationLine::new(&step, spsa.params(), space.option_string(&step.theta)?);
        journal.append(&line)?;
        bar.inc(1);
        let shown: Vec<String> = line.parameters.iter().map(|(k, v)| format!("{k}={v:.4}")).collect();
        let message = format!("y+ - y- {:+.3}  {}", line.score_difference, shown.join(" "));
        if iteration_lines {
            eprintln!("Finished iteration {} of {iterations}: {message}", spsa.iteration());
        }
        bar.set_message(message);
        lines.push(line);
    }
    bar.finish_and_clear();
    plot(&args.log, &spsa, &lines);
    let tuned = space.option_string(spsa.theta())?;
    let result_path = sibling(&args.log, ".result.txt");
    std::fs::write(&result_path, format!("{tuned}\n"))
        .with_context(|| format!("writing the result to {}", result_path.display()))?;
    Ok(TuneOutcome { start, tuned, result_path })
}

/// What `--export` prints: the SPSA input block of the `--param` boxes (the lines alone, on stdout).
pub fn export_block(args: &TuneArgs, format: TuneFormat) -> anyhow::Result<String> {
    let space = TuneSpace::new(&args.time_manager, &args.params)?;
    match format {
        TuneFormat::Openbench => Ok(spsa_block(&space)?),
    }
}

/// What `--import FORMAT FILE` prints: `--time-manager` with the file's tuned values written in.
pub fn import_file(args: &TuneArgs) -> anyhow::Result<String> {
    let [format, file] = args.import.as_slice() else {
        bail!("--import takes FORMAT FILE, e.g. --import openbench tuned.txt");
    };
    let format = TuneFormat::from_str(format, true)
        .map_err(|_| anyhow::anyhow!("--import: unknown format '{format}'; use openbench"))?;
    let text = std::fs::read_to_string(file).with_context(|| format!("--import: reading {file}"))?;
    match format {
        TuneFormat::Openbench => {
            Ok(import_values(&args.time_manager, &text).with_context(|| format!("--import {file}"))?)
        }
    }
}

/// Runs `kairos tune`: tunes, prints the tuned `--time-manager=…` string and, with `--verify`, runs the SPRT;
/// with `--export` or `--import` it only translates and plays no game.
pub fn run_tune(args: TuneArgs) -> anyhow::Result<()> {
    if let Some(format) = args.export {
        println!("{}", export_block(&args, format)?);
        eprintln!(
            "# names are Kairos key options; put TimeManager={} (no spaces) in the test's engine options",
            TuneSpace::new(&args.time_manager, &args.params)?.base()
        );
        return Ok(());
    }
    if !args.import.is_empty() {
        println!("{}", import_file(&args)?);
        return Ok(());
    }
    let outcome = tune(&args)?;
    println!("start: --time-manager={}", outcome.start);
    println!("tuned: --time-manager={}", outcome.tuned);
    println!("saved to {}", outcome.result_path.display());
    if args.verify {
        println!("verifying: SPRT of tuned against start");
        run_match(verify_match_args(&args, &outcome.tuned, &outcome.start)?)?;
    }
    Ok(())
}
