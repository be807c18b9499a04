//! `kairos describenet`: the format, body, heads and parameter count of a network file, as lc0's
//! `describenet`.

use anyhow::Result;
use clap::Parser;

use super::parse_mode_args;
use engine::options::EngineOptions;

/// Describe a network file: its format, body, heads, sizes and parameter count.
#[derive(Parser)]
struct DescribeArgs {
    /// Lc0 network file (default: the installed Maia-1900).
    #[arg(long, short = 'w')]
    weights: Option<String>,
}

/// Runs `kairos describenet`.
pub fn run(args: &[String]) -> Result<()> {
    let args: DescribeArgs = parse_mode_args("describenet", args)?;
    let defaults = EngineOptions::default();
    let options = EngineOptions { weights_file: args.weights.unwrap_or(defaults.weights_file.clone()), ..defaults };
    let path = options.resolve_weights_path()?;
    print!("{}", nn::describe::describe_network(&path)?);
    Ok(())
}
