//! The command-line modes of the kairos binary: the first argument names a mode, anything else (or nothing)
//! means UCI with lc0-style flags.

mod backendbench;
mod describenet;
mod eval;
mod leela2onnx;
mod time_manager;
mod tm_proxy;
mod uci_options;

use anyhow::Result;
use clap::Parser;

/// A mode of the binary, its name and what it is for (listed by `kairos help`).
struct Mode {
    name: &'static str,
    summary: &'static str,
    run: fn(&[String]) -> Result<()>,
}

const MODES: &[Mode] = &[
    Mode { name: "uci", summary: "speak UCI on stdin/stdout (the default mode)", run: run_uci },
    Mode { name: "uci-options", summary: "the UCI options as Markdown (docs/uci-options.md)", run: uci_options::run },
    Mode { name: "bench", summary: "fixed-node search of fixed positions; last line 'N nodes M nps'", run: run_bench },
    Mode { name: "benchmark", summary: "lc0-style timed search of a set of positions", run: run_benchmark },
    Mode { name: "eval", summary: "evaluate one position with the network and print JSON", run: eval::run },
    Mode {
        name: "describenet",
        summary: "a network file's format, body, heads, sizes and parameter count",
        run: describenet::run,
    },
    Mode {
        name: "leela2onnx",
        summary: "write a network as an ONNX model with lc0's interface (lc0 leela2onnx's flags)",
        run: leela2onnx::run,
    },
    Mode { name: "backendbench", summary: "network evaluations per second by batch size", run: backendbench::run },
    Mode { name: "tm-help", summary: "list time managers, estimators and their parameters", run: time_manager::help },
    Mode { name: "tm-plan", summary: "plan a synthetic game with a time manager", run: time_manager::plan },
    Mode {
        name: "tm-proxy",
        summary: "wrap a UCI engine; a Kairos time manager sets its limit (go movetime or a scaled clock)",
        run: tm_proxy::run,
    },
    Mode { name: "match", summary: "play games between UCI engines with statistics and SPRT", run: run_match },
    Mode { name: "match-report", summary: "time-usage report and plots of a match's results", run: run_match_report },
    Mode { name: "tune", summary: "tune a time manager's parameters by SPSA through self-play", run: run_tune },
    Mode { name: "tm-data", summary: "CTM-Net dataset from PGNs with [%clk] (thesis filters)", run: run_tm_data },
    Mode {
        name: "tm-label",
        summary: "CTM-Net dataset labelled by Kairos's search: does N -> 8N nodes change the move?",
        run: run_tm_label,
    },
    Mode { name: "tm-train", summary: "train a CTM-Net (ctm-1.0, 2.0, 2.1) on a tm-data dataset", run: run_tm_train },
    Mode {
        name: "tm-predict",
        summary: "a trained CTM-Net's share of the clock for FEN/EPD positions",
        run: run_tm_predict,
    },
    Mode { name: "help", summary: "this list", run: print_modes },
];

/// Runs the mode the arguments name.
pub fn run(args: &[String]) -> Result<()> {
    match args.first().and_then(|first| MODES.iter().find(|mode| mode.name == first.as_str())) {
        Some(mode) => (mode.run)(&args[1..]),
        None if matches!(args.first().map(String::as_str), Some("-h")) => print_modes(&[]),
        None if matches!(args.first().map(String::as_str), Some("--version" | "-V")) => {
            println!("{}", engine::build_info::describe());
            Ok(())
        }
        None => match args.first().filter(|first| !first.starts_with('-')) {
            Some(word) => Err(unknown_mode(word)),
            None => run_uci(args),
        },
    }
}

/// A first argument that is neither a mode nor a flag is most likely a misspelt mode: name the nearest.
fn unknown_mode(word: &str) -> anyhow::Error {
    let suggestion = timemgr::options::error::Suggestion::closest(word, MODES.iter().map(|mode| mode.name));
    anyhow::anyhow!(
        "unknown mode '{word}'{suggestion}; run 'kairos help' to list the modes (in UCI mode, the default, flags are \
         written --flag=value)"
    )
}

fn print_modes(_: &[String]) -> Result<()> {
    println!("kairos {}: an lc0-style chess engine built around time management\n", env!("CARGO_PKG_VERSION"));
    println!("usage: kairos [MODE] [--flag=value ...]   (no mode: UCI)\n");
    for mode in MODES {
        println!("  {:<14} {}", mode.name, mode.summary);
    }
    println!("\n'kairos MODE --help' describes a mode; 'kairos --help' in UCI mode lists the engine options;");
    println!("'kairos --version' prints the version.");
    Ok(())
}

fn run_uci(args: &[String]) -> Result<()> {
    print_help_or(|| {
        let default_dirs = engine::options::config_file::default_dirs();
        let (options, config) = engine::options::EngineOptions::from_config_and_cli_flags(args, &default_dirs)?;
        if let Some(path) = config {
            eprintln!("Found configuration file: {}", path.display());
        }
        let stdin = std::io::stdin();
        engine::uci::run_uci(options, stdin.lock(), std::io::stdout())
    })
}

fn run_bench(args: &[String]) -> Result<()> {
    print_help_or(|| engine::bench::run_bench(args))
}

fn run_benchmark(args: &[String]) -> Result<()> {
    print_help_or(|| engine::bench::run_benchmark(args))
}

/// Runs a mode that takes engine flags; `--help` among them prints the options instead of failing.
fn print_help_or(mode: impl FnOnce() -> Result<()>) -> Result<()> {
    match mode() {
        Err(error) => match error.downcast_ref::<engine::options::OptionsError>() {
            Some(engine::options::OptionsError::HelpRequested(text)) => {
                print!("{text}");
                Ok(())
            }
            _ => Err(error),
        },
        ok => ok,
    }
}

/// Parses a mode's arguments with clap, naming the mode in usage and errors.
fn parse_mode_args<T: Parser>(mode: &str, args: &[String]) -> Result<T> {
    let words = std::iter::once(format!("kairos {mode}")).chain(args.iter().cloned());
    T::try_parse_from(words).map_err(|error| {
        // --help and --version print and end the process as clap users expect.
        if matches!(error.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) {
            error.exit();
        }
        // main prints "error: " before every failure; clap's own rendering starts with it too.
        let text = error.to_string();
        anyhow::anyhow!("{}", text.strip_prefix("error: ").unwrap_or(&text).trim_end())
    })
}

// Makes a command parser of a tool's arguments (the tools crate declares them as `clap::Args`); a plain
// comment, since a doc comment here would replace each tool's own help heading.
#[derive(Parser)]
struct ToolCommand<A: clap::Args> {
    #[command(flatten)]
    args: A,
}

/// Parses a tool mode's arguments.
fn parse_tool_args<A: clap::Args>(mode: &str, args: &[String]) -> Result<A> {
    Ok(parse_mode_args::<ToolCommand<A>>(mode, args)?.args)
}

fn run_match(args: &[String]) -> Result<()> {
    tools::run_match(parse_tool_args("match", args)?)
}

fn run_match_report(args: &[String]) -> Result<()> {
    tools::run_match_report(parse_tool_args("match-report", args)?)
}

fn run_tune(args: &[String]) -> Result<()> {
    tools::run_tune(parse_tool_args("tune", args)?)
}

fn run_tm_data(args: &[String]) -> Result<()> {
    tools::run_tm_data(parse_tool_args("tm-data", args)?)
}

fn run_tm_label(args: &[String]) -> Result<()> {
    tools::run_tm_label(parse_tool_args("tm-label", args)?)
}

fn run_tm_train(args: &[String]) -> Result<()> {
    tools::run_tm_train(parse_tool_args("tm-train", args)?)
}

fn run_tm_predict(args: &[String]) -> Result<()> {
    tools::run_tm_predict(parse_tool_args("tm-predict", args)?)
}
