//! The per-move node budget of a node-limited time manager (`smooth(limit=nodes)`), from the engine's
//! `TmTraceFile`: the target against the tree size reached, and which limit ended each move.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use timemgr::{MoveTrace, StopCause};

use super::plots::Series;
use super::usage::{Summary, EVENNESS_MOVES};

/// A trace file that could not be read; names the file, the line and the way out.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// `--trace` was not `NAME=FILE`.
    #[error("--trace '{0}': write NAME=FILE, the engine's name in the match and its TmTraceFile")]
    Argument(String),
    /// The file could not be read.
    #[error("cannot read trace file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A line is not a time-manager trace.
    #[error("{path}:{line}: not a time-manager trace ({source}); point --trace at a TmTraceFile written by kairos")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What serde reported.
        source: serde_json::Error,
    },
}

/// One engine's traced moves with a node target, grouped by full move number (game ply / 2 + 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeBudget {
    /// Node targets by full move number.
    pub target_by_move: BTreeMap<u32, Vec<f64>>,
    /// Tree sizes reached by full move number.
    pub reached_by_move: BTreeMap<u32, Vec<f64>>,
    /// How many moves each limit ended.
    pub stopped_by: BTreeMap<&'static str, usize>,
    /// Every move's full move number, tree size reached and whether it ended at its target, in trace order.
    pub moves: Vec<(u32, f64, bool)>,
}

/// Parses `NAME=FILE`.
pub fn parse_trace_argument(text: &str) -> Result<(String, PathBuf), TraceError> {
    match text.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => Ok((name.to_owned(), PathBuf::from(file))),
        _ => Err(TraceError::Argument(text.to_owned())),
    }
}

/// Reads a trace file (one JSON trace per line; blank lines are skipped).
pub fn read_node_budget(path: &Path) -> Result<NodeBudget, TraceError> {
    let text = std::fs::read_to_string(path).map_err(|source| TraceError::Io { path: path.to_owned(), source })?;
    let mut budget = NodeBudget::default();
    for (index, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let trace: MoveTrace = serde_json::from_str(line).map_err(|source| TraceError::Parse {
            path: path.to_owned(),
            line: index + 1,
            source,
        })?;
        let (Some(target), Some(reached)) = (trace.node_target, trace.final_nodes) else { continue };
        let full_move = trace.game_ply / 2 + 1;
        budget.target_by_move.entry(full_move).or_default().push(target);
        budget.reached_by_move.entry(full_move).or_default().push(reached as f64);
        let cause = trace.stopped_by.unwrap_or(StopCause::Other);
        *budget.stopped_by.entry(cause.label()).or_default() += 1;
        budget.moves.push((full_move, reached as f64, cause == StopCause::Target));
    }
    Ok(budget)
}

impl NodeBudget {
    /// The full moves of the report's own moves 10–60 ([`EVENNESS_MOVES`]) when every game left its book at the
    /// trace's first full move (the same for every opening of a book such as 8mvs).
    pub fn evenness_window(&self) -> Option<std::ops::RangeInclusive<u32>> {
        let first = self.moves.iter().map(|&(full_move, _, _)| full_move).min()?;
        Some(first + EVENNESS_MOVES.start() - 1..=first + EVENNESS_MOVES.end() - 1)
    }

    /// Tree size reached over the moves of [`NodeBudget::evenness_window`]: of every move, and of the moves
    /// that ended at their target (not by smart pruning, a single legal move or a time limit).
    pub fn evenness(&self) -> Option<(Summary, Option<Summary>)> {
        let window = self.evenness_window()?;
        let in_window = || self.moves.iter().filter(|(full_move, _, _)| window.contains(full_move));
        let every: Vec<f64> = in_window().map(|&(_, reached, _)| reached).collect();
        let at_target: Vec<f64> = in_window().filter(|m| m.2).map(|&(_, reached, _)| reached).collect();
        Some((Summary::of(&every)?, Summary::of(&at_target)))
    }

    /// The mean target and mean tree size reached by full move number, as two chart lines (none without targets).
    pub fn series(&self, engine: &str) -> Vec<Series> {
        let means = |by_move: &BTreeMap<u32, Vec<f64>>| {
            by_move.iter().filter_map(|(&x, values)| Summary::of(values).map(|s| (f64::from(x), s.mean))).collect()
        };
        if self.target_by_move.is_empty() {
            return Vec::new();
        }
        vec![
            (format!("{engine}: node target"), means(&self.target_by_move)),
            (format!("{engine}: tree size reached"), means(&self.reached_by_move)),
        ]
    }

    /// A Markdown section: the limits that ended the moves, and target against reached by ten-move bands.
    pub fn markdown(&self, engine: &str) -> String {
        let mut out = format!("\n## {engine}: node budget (from its TmTraceFile)\n\n");
        let moves: usize = self.stopped_by.values().sum();
        if moves == 0 {
            out.push_str("No move of this trace had a node target: its manager limits time, not nodes.\n");
            return out;
        }
        let causes: Vec<String> = self.stopped_by.iter().map(|(cause, count)| format!("{cause} {count}")).collect();
        let _ = writeln!(out, "{moves} moves with a node target; ended by: {}.\n", causes.join(", "));
        if let (Some(window), Some((every, at_target))) = (self.evenness_window(), self.evenness()) {
            let at_target = at_target
                .map(|s| format!("{:.3} over the {} that ended at their target", s.coefficient_of_variation, s.count))
                .unwrap_or_else(|| "none ended at its target".to_owned());
            let _ = writeln!(
                out,
                "Tree size reached, full moves {}-{} (own moves {}-{} when every game leaves its book at full move {}): CV {:.3} over all {} moves; {at_target}.\n",
                window.start(),
                window.end(),
                EVENNESS_MOVES.start(),
                EVENNESS_MOVES.end(),
                window.start() + 1 - EVENNESS_MOVES.start(),
                every.coefficient_of_variation,
                every.count,
            );
        }
        let _ = writeln!(out, "| full moves | moves | mean target | mean reached | reached / target |");
        let _ = writeln!(out, "|---|---|---|---|---|");
        let mut bands: BTreeMap<u32, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
        for (&number, targets) in &self.target_by_move {
            let band = bands.entry((number - 1) / 10).or_default();
            band.0.extend(targets);
            band.1.extend(self.reached_by_move.get(&number).into_iter().flatten());
        }
        for (band, (targets, reached)) in bands {
            let (Some(target), Some(reached)) = (Summary::of(&targets), Summary::of(&reached)) else { continue };
            let _ = writeln!(
                out,
                "| {}-{} | {} | {:.0} | {:.0} | {:.2} |",
                band * 10 + 1,
                band * 10 + 10,
                target.count,
                target.mean,
                reached.mean,
                reached.mean / target.mean
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evenness_counts_the_window_after_the_first_traced_move_and_separates_moves_at_their_target() {
        let dir = std::env::temp_dir().join(format!("kairos-node-evenness-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("trace.jsonl");
        let line = |ply: u32, reached: u64, cause: StopCause| {
            let trace = MoveTrace {
                game_ply: ply,
                node_target: Some(200.0),
                final_nodes: Some(reached),
                stopped_by: Some(cause),
                ..MoveTrace::default()
            };
            serde_json::to_string(&trace).unwrap()
        };
        // The first move is ply 16 (full move 9, after an 8-move book), so own moves 10-60 are full moves
        // 18-68: plies 34-137. Ply 32 (move 17) and ply 136 (move 69) are outside.
        let text = [
            line(16, 50, StopCause::Target),
            line(32, 9000, StopCause::Target),
            line(34, 100, StopCause::Target),
            line(35, 300, StopCause::Target),
            line(134, 200, StopCause::SingleMove),
            line(136, 9000, StopCause::Target),
        ]
        .join("\n");
        std::fs::write(&path, text).unwrap();
        let budget = read_node_budget(&path).unwrap();
        assert_eq!(budget.evenness_window(), Some(18..=68));
        let (every, at_target) = budget.evenness().unwrap();
        // Every move: 100, 300, 200: mean 200, population sd sqrt(20000 / 3). At the target: 100, 300: CV 0.5.
        assert_eq!(every.count, 3);
        assert!((every.coefficient_of_variation - (20000.0f64 / 3.0).sqrt() / 200.0).abs() < 1e-12);
        let at_target = at_target.unwrap();
        assert_eq!(at_target.count, 2);
        assert!((at_target.coefficient_of_variation - 0.5).abs() < 1e-12);
        let section = budget.markdown("nodes");
        assert!(
            section.contains("full moves 18-68 (own moves 10-60 when every game leaves its book at full move 9): CV 0.408 over all 3 moves; 0.500 over the 2 that ended at their target."),
            "{section}"
        );
    }

    #[test]
    fn traces_group_by_full_move_and_count_the_limits() {
        let dir = std::env::temp_dir().join(format!("kairos-node-budget-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("trace.jsonl");
        let line = |ply: u32, target: f64, reached: u64, cause: Option<StopCause>| {
            let trace = MoveTrace {
                game_ply: ply,
                node_target: Some(target),
                final_nodes: Some(reached),
                stopped_by: cause,
                ..MoveTrace::default()
            };
            serde_json::to_string(&trace).unwrap()
        };
        let legacy =
            serde_json::to_string(&MoveTrace { game_ply: 3, final_nodes: Some(9), ..MoveTrace::default() }).unwrap();
        let text = [
            line(20, 1000.0, 1001, Some(StopCause::Target)),
            line(21, 800.0, 500, Some(StopCause::SmartPruning)),
            legacy,
            String::new(),
            line(22, 900.0, 903, Some(StopCause::Target)),
        ]
        .join("\n");
        std::fs::write(&path, text).unwrap();
        let budget = read_node_budget(&path).unwrap();
        // Plies 20 and 21 are full move 11, ply 22 is move 12; the trace without a target is left out.
        assert_eq!(budget.target_by_move.get(&11), Some(&vec![1000.0, 800.0]));
        assert_eq!(budget.reached_by_move.get(&12), Some(&vec![903.0]));
        assert_eq!(budget.stopped_by, BTreeMap::from([("smart-pruning", 1), ("target", 2)]));
        let section = budget.markdown("nodes");
        assert!(section.contains("| 11-20 | 3 | 900 | 801 | 0.89 |"), "{section}");
        std::fs::write(&path, "{\"manager\": 5}\n").unwrap();
        let error = read_node_budget(&path).unwrap_err().to_string();
        assert!(error.contains("trace.jsonl:1: not a time-manager trace"), "{error}");
        let time_limited =
            serde_json::to_string(&MoveTrace { game_ply: 4, final_nodes: Some(300), ..MoveTrace::default() });
        std::fs::write(&path, time_limited.unwrap()).unwrap();
        let budget = read_node_budget(&path).unwrap();
        assert!(budget.series("ctm").is_empty());
        assert!(budget.markdown("ctm").contains("No move of this trace had a node target"));
        assert!(parse_trace_argument("nodes").is_err());
        assert_eq!(parse_trace_argument("a=b/c").unwrap(), ("a".to_owned(), PathBuf::from("b/c")));
    }
}
