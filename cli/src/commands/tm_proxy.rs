//! `kairos tm-proxy`: any UCI engine behind a Kairos time manager.

use anyhow::Result;
use clap::Parser;

use engine::options::EngineOptions;
use engine::tm_proxy::{run_tm_proxy, LimitAs, ProxyConfig};

use super::parse_mode_args;

/// Speak UCI on stdin/stdout in front of another UCI engine: everything passes through, but a `go` with a
/// clock becomes `go movetime T` (or `go nodes N movetime T`) as the time manager plans it, and the manager
/// learns from each move's measured time and reported nodes. Example:
/// kairos tm-proxy --time-manager=legacy -- /usr/games/stockfish
#[derive(Parser)]
struct TmProxyArgs {
    /// The manager in option-string form, e.g. 'smooth(preset=lc0)' (also the UCI option TimeManager); legacy
    /// by default, as Kairos's own default plans in nodes at Kairos's node rate.
    #[arg(long = "time-manager", default_value_t = timemgr::DEFAULT_PROXY_TIME_MANAGER.to_owned())]
    time_manager: String,
    /// Move overhead in ms, as the engine's MoveOverheadMs (also the UCI option MoveOverheadMs); the proxy
    /// sends stop when the engine overruns the planned time by half of it.
    #[arg(long = "move-overhead", default_value_t = EngineOptions::default().move_overhead_ms)]
    move_overhead: i64,
    /// How the engine gets the plan (also the UCI option LimitAs): `movetime` keeps its own time management
    /// out; `clock` gives it a clock scaled so that its own time management spends the planned time on
    /// average, keeping its own stop rules within the move.
    #[arg(long = "limit-as", default_value = "movetime", value_parser = parse_limit_as)]
    limit_as: LimitAs,
    /// The wrapped engine and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "ENGINE [ARGS]")]
    engine: Vec<String>,
}

/// Runs `kairos tm-proxy`.
pub fn run(args: &[String]) -> Result<()> {
    let args: TmProxyArgs = parse_mode_args("tm-proxy", args)?;
    let Some((engine, engine_args)) = args.engine.split_first() else {
        anyhow::bail!("give the wrapped engine after --, e.g. kairos tm-proxy -- /usr/games/stockfish");
    };
    let config = ProxyConfig {
        time_manager: args.time_manager,
        move_overhead_ms: args.move_overhead,
        limit_as: args.limit_as,
        engine: engine.clone(),
        engine_args: engine_args.to_vec(),
    };
    run_tm_proxy(config, std::io::BufReader::new(std::io::stdin()), std::io::stdout())?;
    Ok(())
}

/// `--limit-as`'s value, or which names it takes.
fn parse_limit_as(name: &str) -> Result<LimitAs, String> {
    LimitAs::from_name(name).ok_or_else(|| format!("expected one of {}", LimitAs::NAMES.join(", ")))
}
