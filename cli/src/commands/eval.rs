//! `kairos eval`: one position through the network, printed as JSON (for checks against lc0).

use anyhow::{Context, Result};
use clap::Parser;

use super::parse_mode_args;
use engine::options::{Choice, EngineOptions};

/// Evaluate one position and print `{"wdl":[w,d,l],"q":…,"d":…,"m":…|null,"policy":{…}}`.
#[derive(Parser)]
struct EvalArgs {
    /// Lc0 network file (default: the installed Maia-1900).
    #[arg(long)]
    weights: Option<String>,
    /// Position in FEN (default: the start position).
    #[arg(long, default_value = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")]
    fen: String,
    /// Moves in UCI notation played from the FEN before evaluating.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Policy softmax temperature (default 1: the raw network policy).
    #[arg(long = "policy-temp")]
    policy_temp: Option<f32>,
    /// Use lc0's approximate exponential in the softmax, as lc0's displayed priors do, instead of the exact
    /// one (which differs by up to about 2e-4).
    #[arg(long = "lc0-softmax")]
    lc0_softmax: bool,
    /// torch, onnx, uniform, random or replay.
    #[arg(long, default_value = EngineOptions::default().backend.name())]
    backend: String,
    /// cpu, cuda, cuda:N or auto.
    #[arg(long, default_value_t = EngineOptions::default().backend_device)]
    device: String,
    /// auto, fp32, bf16 or fp16.
    #[arg(long, default_value = EngineOptions::default().precision.name())]
    precision: String,
}

/// Runs `kairos eval`.
pub fn run(args: &[String]) -> Result<()> {
    let args: EvalArgs = parse_mode_args("eval", args)?;
    let options = nn::BackendOptions {
        exact_softmax: !args.lc0_softmax,
        ..backend_options(args.weights.as_deref(), &args.backend, &args.device, &args.precision)?
    };
    let report = nn::evaluate_position(&options, &args.fen, &args.moves, args.policy_temp)?;
    println!("{}", serde_json::to_string(&report).context("serialising the evaluation")?);
    Ok(())
}

/// Backend options from the flags shared by the network commands, read as the engine reads its
/// `WeightsFile`, `Backend`, `BackendDevice` and `Precision` options.
pub(super) fn backend_options(
    weights: Option<&str>,
    backend: &str,
    device: &str,
    precision: &str,
) -> Result<nn::BackendOptions> {
    let mut options = EngineOptions::default();
    if let Some(weights) = weights {
        options.set("WeightsFile", weights)?;
    }
    options.set("Backend", backend)?;
    options.set("BackendDevice", device)?;
    options.set("Precision", precision)?;
    Ok(options.backend_options()?)
}
