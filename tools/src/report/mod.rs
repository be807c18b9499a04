//! `kairos match-report`: time-usage tables, plots and a Markdown summary from a results file; with `--verdicts`,
//! every committed SPRT re-derived from its raw results ([`verdicts`]).

mod node_budget;
mod plots;
mod usage;
pub mod verdicts;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

pub use node_budget::{parse_trace_argument, read_node_budget, NodeBudget, TraceError};
pub use plots::{write_chart, Chart, PlotError, Series};
pub use usage::{usage_by_engine, EngineUsage, GameEnd, Summary, EVENNESS_MOVES};

use crate::runner::{binaries_by_engine, read_results, rfc3339_text, GameRecord};

/// Arguments of `kairos match-report`.
#[derive(Args, Debug, Clone)]
pub struct MatchReportArgs {
    /// Results file written by `kairos match` (one JSON line per game; `.gz` is read as it is).
    #[arg(required_unless_present = "verdicts")]
    pub results: Option<PathBuf>,
    /// Directory for the plots and summary.md (created if missing).
    #[arg(long, required_unless_present = "verdicts")]
    pub out: Option<PathBuf>,
    /// An engine's time-manager trace as NAME=FILE (its TmTraceFile): adds the node target against the tree
    /// size reached, for node-limited managers. Repeat for each engine.
    #[arg(long, value_name = "NAME=FILE")]
    pub trace: Vec<String>,
    /// Instead of one match's report, print every SPRT under DIR re-derived from its raw results (the runner's
    /// model, the verdict at the first crossing and at the end) as Markdown: docs/verdicts.md is
    /// `kairos match-report --verdicts experiments`.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["results", "out", "trace"])]
    pub verdicts: Option<PathBuf>,
}

/// Runs `kairos match-report`: reads the results, writes three charts (PNG and SVG) and `summary.md`; or, with
/// `--verdicts`, prints the verdicts document.
pub fn run_match_report(args: MatchReportArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.verdicts {
        let rows = verdicts::collect_verdicts(dir)?;
        print!("{}", verdicts::verdicts_markdown(dir, &rows));
        return Ok(());
    }
    let (Some(results), Some(out)) = (&args.results, &args.out) else {
        anyhow::bail!("give a results file and --out DIR, or --verdicts DIR");
    };
    let games = read_results(results)?;
    if games.is_empty() {
        anyhow::bail!("{} holds no finished games; play some with kairos match first", results.display());
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let engines = usage_by_engine(&games);
    write_charts(out, &engines)?;
    let mut text = markdown(results, games.len(), &engines);
    text.push_str(&provenance_markdown(&games));
    let mut budget_series = Vec::new();
    for argument in &args.trace {
        let (engine, path) = parse_trace_argument(argument)?;
        let budget = read_node_budget(&path)?;
        text.push_str(&budget.markdown(&engine));
        budget_series.extend(budget.series(&engine));
    }
    if !budget_series.is_empty() {
        let chart = Chart {
            title: "Node target and tree size reached",
            x_label: "full move number",
            y_label: "nodes",
            series: &budget_series,
        };
        write_chart(out, "node-budget", &chart)?;
        text.push_str(
            "
![node budget](node-budget.png)
",
        );
    }
    let summary = out.join("summary.md");
    std::fs::write(&summary, text).with_context(|| format!("writing {}", summary.display()))?;
    println!("wrote {}", summary.display());
    Ok(())
}

fn mean_series(
    engines: &[(String, EngineUsage)],
    pick: impl Fn(&EngineUsage) -> &std::collections::BTreeMap<u32, Vec<f64>>,
) -> Vec<Series> {
    engines
        .iter()
        .map(|(name, usage)| {
            let points = pick(usage)
                .iter()
                .filter_map(|(&x, values)| Summary::of(values).map(|s| (f64::from(x), s.mean)))
                .collect();
            (name.clone(), points)
        })
        .collect()
}

fn write_charts(dir: &Path, engines: &[(String, EngineUsage)]) -> anyhow::Result<()> {
    let charts = [
        (
            "time-per-move",
            "Mean time per move",
            "engine's move number after the book",
            "time used (ms)",
            mean_series(engines, |u| &u.time_by_move),
        ),
        (
            "clock-by-ply",
            "Mean clock remaining",
            "ply after the book",
            "clock left (ms)",
            mean_series(engines, |u| &u.clock_by_ply),
        ),
        (
            "tree-size",
            "Mean tree size at move time",
            "engine's move number after the book",
            "nodes",
            mean_series(engines, |u| &u.nodes_by_move),
        ),
    ];
    for (stem, title, x_label, y_label, series) in &charts {
        write_chart(dir, stem, &Chart { title, x_label, y_label, series })?;
    }
    Ok(())
}

/// Which binaries played (by `id name`) and on which machines: an engine with two binaries is flagged.
fn provenance_markdown(games: &[GameRecord]) -> String {
    let mut out = String::from("\n## Binaries and machines\n\n| engine | binary (`id name`) | games |\n");
    out.push_str("|---|---|---|\n");
    for (engine, binaries) in binaries_by_engine(games) {
        let flag = if binaries.len() > 1 { " **(more than one binary: results mix builds)**" } else { "" };
        for (id, count) in binaries {
            let _ = writeln!(out, "| {engine}{flag} | {id} | {count} |");
        }
    }
    let machines: BTreeSet<&str> = games.iter().filter_map(|game| game.machine.as_deref()).collect();
    let machines: Vec<&str> = machines.into_iter().collect();
    let machines = if machines.is_empty() { "unrecorded".to_owned() } else { machines.join("; ") };
    let _ = writeln!(out, "\nMachines: {machines}.");
    out.push_str(&played_markdown(games));
    out
}

/// When the games were played (the first start to the last end, UTC); nothing for files written before the
/// runner kept the times.
fn played_markdown(games: &[GameRecord]) -> String {
    let first = games.iter().filter_map(|game| game.started).min();
    let last = games.iter().filter_map(|game| game.ended).max();
    let (Some(first), Some(last)) = (first, last) else { return String::new() };
    let timed = games.iter().filter(|game| game.started.is_some()).count();
    let untimed = games.len() - timed;
    let untimed = if untimed > 0 { format!(" ({untimed} games without times)") } else { String::new() };
    format!("\nPlayed: {} to {} (UTC){untimed}.\n", rfc3339_text(first), rfc3339_text(last))
}

fn cell(summary: Option<Summary>, pick: impl Fn(&Summary) -> f64) -> String {
    summary.map(|s| format!("{:.0}", pick(&s))).unwrap_or_else(|| "-".into())
}

fn markdown(results: &Path, game_count: usize, engines: &[(String, EngineUsage)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Time usage\n\n{game_count} games from `{}`.\n", results.display());
    let _ = writeln!(
        out,
        "| engine | games | flags | clock left at end: mean / median / min (ms) | clock left at end of games longer than the median | nodes per move: mean | tree-size CV | tree-size CV, own moves {}-{} |",
        EVENNESS_MOVES.start(),
        EVENNESS_MOVES.end()
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for (name, usage) in engines {
        let end = Summary::of(&usage.clock_at_end);
        let nodes = Summary::of(&usage.nodes);
        let cv = |summary: Option<Summary>| {
            summary.map(|s| format!("{:.3}", s.coefficient_of_variation)).unwrap_or_else(|| "-".into())
        };
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} / {} / {} | {} | {} | {} | {} |",
            usage.games,
            usage.flags,
            cell(end, |s| s.mean),
            cell(end, |s| s.median),
            cell(end, |s| s.min),
            usage.clock_left_in_long_games().map_or("-".into(), |share| format!("{:.1} % of base", 100.0 * share)),
            cell(nodes, |s| s.mean),
            cv(nodes),
            cv(usage.evenness()),
        );
    }
    for (name, usage) in engines {
        let _ = writeln!(out, "\n## {name}: time per move number\n");
        let _ = writeln!(out, "| move | moves | mean (ms) | median (ms) | max (ms) | mean clock left after (ms) |");
        let _ = writeln!(out, "|---|---|---|---|---|---|");
        for (&number, times) in &usage.time_by_move {
            let Some(time) = Summary::of(times) else { continue };
            let clock = usage.clock_by_move.get(&number).and_then(|values| Summary::of(values));
            let _ = writeln!(
                out,
                "| {number} | {} | {:.0} | {:.0} | {:.0} | {} |",
                time.count,
                time.mean,
                time.median,
                time.max,
                cell(clock, |s| s.mean)
            );
        }
    }
    let _ = writeln!(out, "\n## Plots\n\n![time per move](time-per-move.png)\n\n![clock remaining](clock-by-ply.png)\n\n![tree size](tree-size.png)");
    out
}
