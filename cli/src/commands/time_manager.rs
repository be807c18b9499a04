//! `kairos tm-help` and `kairos tm-plan`: the time managers explained and compared before any real game.

use anyhow::Result;
use clap::Parser;

use engine::options::EngineOptions;
use timemgr::PlanConfig;

use super::parse_mode_args;

/// List every time manager and moves-left estimator, or one of them, with each parameter's default,
/// range and meaning.
#[derive(Parser)]
struct HelpArgs {
    /// A manager or estimator name (e.g. smooth, legacy, ahle); all when omitted.
    name: Option<String>,
}

/// Runs `kairos tm-help`.
pub fn help(args: &[String]) -> Result<()> {
    let args: HelpArgs = parse_mode_args("tm-help", args)?;
    print!("{}", timemgr::render_help(args.name.as_deref())?);
    Ok(())
}

/// Play a synthetic game against a model search and print each move's allocation, node target,
/// estimator states and clock; ends with the total time used and whether the clock ran out.
#[derive(Parser)]
struct PlanArgs {
    /// The manager in option-string form, e.g. 'smooth(preset=lc0)'.
    #[arg(long = "time-manager", default_value_t = EngineOptions::default().time_manager.text().to_owned())]
    time_manager: String,
    /// Time control in seconds: 60+0.6, or 40/60+0 for moves-to-go controls.
    #[arg(long, default_value = "60+0.6")]
    tc: timemgr::planner::TimeControl,
    /// Moves to go to announce at every move (overrides the control's own count).
    #[arg(long = "moves-to-go")]
    moves_to_go: Option<u32>,
    /// Plies in the synthetic game (both sides).
    #[arg(long, default_value_t = PlanConfig::DEFAULT_PLIES)]
    plies: u32,
    /// Mean nodes per second of the model search.
    #[arg(long, default_value_t = PlanConfig::DEFAULT_NPS)]
    nps: f64,
    /// Relative standard deviation of the NPS from move to move.
    #[arg(long = "nps-noise", default_value_t = PlanConfig::DEFAULT_NPS_NOISE)]
    nps_noise: f64,
    /// Fraction of the final tree reused at the next own move.
    #[arg(long, default_value_t = PlanConfig::DEFAULT_REUSE)]
    reuse: f64,
    /// Fraction of the allocation the model search uses before smart pruning stops it.
    #[arg(long, default_value_t = PlanConfig::DEFAULT_TIMEUSE)]
    timeuse: f64,
    /// Seed of the NPS noise.
    #[arg(long, default_value_t = PlanConfig::DEFAULT_SEED)]
    seed: u64,
    /// Move overhead in ms, as the engine's MoveOverheadMs.
    #[arg(long = "move-overhead", default_value_t = EngineOptions::default().move_overhead_ms)]
    move_overhead: i64,
    /// One JSON object per move and a final summary object instead of the table.
    #[arg(long)]
    json: bool,
}

/// Runs `kairos tm-plan`.
pub fn plan(args: &[String]) -> Result<()> {
    let args: PlanArgs = parse_mode_args("tm-plan", args)?;
    let config = PlanConfig {
        moves_to_go: args.moves_to_go,
        plies: args.plies,
        nps: args.nps,
        nps_noise: args.nps_noise,
        reuse: args.reuse,
        timeuse: args.timeuse,
        seed: args.seed,
        ..PlanConfig::new(&args.time_manager, args.tc, args.move_overhead)
    };
    let report = timemgr::plan(&config)?;
    print!("{}", if args.json { report.to_json_lines() } else { report.to_text() });
    Ok(())
}
