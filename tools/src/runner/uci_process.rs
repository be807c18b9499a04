//! One UCI engine of a match, run as a [`UciChild`]: deadlines on every wait, killed on drop.

use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use engine::uci::child::UciChild;
use timemgr::options::error::Suggestion;

use super::engine_config::EngineConfig;

/// How long to wait for an exit status after an engine closed its output, or after `quit`.
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(200);

/// What went wrong while talking to an engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineFailure {
    /// The process could not be started.
    #[error("could not start '{command}': {reason} (check cmd= and that the file is executable)")]
    StartFailed {
        /// The command that failed.
        command: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The engine closed its output or exited.
    #[error("engine exited or closed its output ({})", .exit_status.as_deref().unwrap_or("exit status not yet known"))]
    Crashed {
        /// How the process ended, if it has.
        exit_status: Option<String>,
    },
    /// The engine did not answer before the deadline and was killed.
    #[error("engine sent no {awaited} within {waited_ms} ms and was killed")]
    Hung {
        /// What the runner waited for, as the message names it (`'bestmove'`).
        awaited: String,
        /// How long the runner waited.
        waited_ms: u64,
    },
    /// Writing to the engine failed.
    #[error("could not write to the engine: {0}")]
    WriteFailed(String),
}

/// Everything an engine said about one search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchReport {
    /// The move text after `bestmove`.
    pub best_move: String,
    /// Wall time from `go` to `bestmove` in ms.
    pub wall_ms: u64,
    /// `time` of the last `info` line that had one (the engine's own, possibly virtual, time).
    pub reported_time_ms: Option<u64>,
    /// `depth` of the last `info` line that had one.
    pub depth: Option<u32>,
    /// `seldepth` of the last `info` line that had one.
    pub seldepth: Option<u32>,
    /// `nodes` of the last `info` line that had one.
    pub nodes: Option<u64>,
    /// Last `score`, from the mover's view.
    pub score: Option<Score>,
}

/// A UCI score from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Score {
    /// Centipawns.
    Centipawns(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl SearchReport {
    fn absorb_info(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut i = 1;
        while i < words.len() {
            let next = words.get(i + 1).copied().unwrap_or("");
            match words[i] {
                "depth" => self.depth = next.parse().ok().or(self.depth),
                "seldepth" => self.seldepth = next.parse().ok().or(self.seldepth),
                "nodes" => self.nodes = next.parse().ok().or(self.nodes),
                "time" => self.reported_time_ms = next.parse().ok().or(self.reported_time_ms),
                "score" => {
                    let value = words.get(i + 2).and_then(|v| v.parse().ok());
                    self.score = match (next, value) {
                        ("cp", Some(v)) => Some(Score::Centipawns(v)),
                        ("mate", Some(v)) => Some(Score::Mate(v)),
                        _ => self.score,
                    };
                    i += 1;
                }
                "pv" | "string" => break,
                _ => {}
            }
            i += 1;
        }
    }
}

/// When a searching engine counts as hung.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchDeadline {
    /// No `bestmove` this long after `go` (a timed clock: the clock left and a grace).
    FromGo(Duration),
    /// No `bestmove` and no `info` reporting more nodes than before for this long: a virtual clock or a node
    /// limit, where the wall time a move may take is not the clock's (20,000 virtual nodes a second on a CPU
    /// that searches 2,000 make a 3-second move half a minute long), but an engine that still searches is not hung.
    WithoutProgress(Duration),
}

/// A running engine process.
pub struct UciProcess {
    child: UciChild,
    lines: Receiver<String>,
    /// What the engine called itself in its `id name` line (empty if it sent none).
    id_name: String,
    /// What its start-up suggests is wrong with its settings (see [`UciProcess::setup_warnings`]).
    setup_warnings: Vec<String>,
}

impl UciProcess {
    /// Starts the engine, completes `uci`/`uciok`, sets its options and waits for `readyok`, noting what the
    /// exchange suggests is wrong with the options ([`UciProcess::setup_warnings`]).
    pub fn start(
        config: &EngineConfig,
        extra_options: &[(String, String)],
        timeout: Duration,
    ) -> Result<Self, EngineFailure> {
        let (child, lines) =
            UciChild::spawn_with_lines(Command::new(&config.command).args(&config.args).stderr(Stdio::null()))
                .map_err(|e| EngineFailure::StartFailed {
                    command: config.command.display().to_string(),
                    reason: e.to_string(),
                })?;
        let mut process = UciProcess { child, lines, id_name: String::new(), setup_warnings: Vec::new() };
        process.send("uci")?;
        let deadline = Instant::now() + timeout;
        let mut announced: Vec<String> = Vec::new();
        loop {
            let line = process.next_line(deadline, "'uciok'", timeout)?;
            let line = line.trim();
            if let Some(name) = line.strip_prefix("id name ") {
                process.id_name = name.trim().to_owned();
            } else if let Some(option) = line.strip_prefix("option name ") {
                announced.push(option.split(" type ").next().unwrap_or(option).trim().to_owned());
            } else if line == "uciok" {
                break;
            }
        }
        for (name, value) in config.options.iter().chain(extra_options) {
            if !announced.iter().any(|option| option.eq_ignore_ascii_case(name)) {
                let suggestion = Suggestion::closest(name, announced.iter().map(String::as_str));
                process.setup_warnings.push(format!("it announces no option '{name}'{suggestion}; sent anyway"));
            }
            process.send(&format!("setoption name {name} value {value}"))?;
        }
        process.send("isready")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = process.next_line(deadline, "'readyok'", timeout)?;
            let line = line.trim();
            if line == "readyok" {
                break;
            }
            if ["info string error", "error", "No such option"].iter().any(|start| line.starts_with(start)) {
                process.setup_warnings.push(format!("it answered its options with '{line}'"));
            }
        }
        Ok(process)
    }

    /// The engine's `id name` (empty if it sent none): its version, for the records.
    pub fn id_name(&self) -> &str {
        &self.id_name
    }

    /// What the start-up suggests is wrong with the engine's settings, which an engine otherwise ignores
    /// quietly: options it does not announce (a misspelt name), and the errors it printed while its options were
    /// set (Kairos's `info string error …`, lc0's `error …`, Stockfish's `No such option: …`).
    pub fn setup_warnings(&self) -> &[String] {
        &self.setup_warnings
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        self.child.send(line).map_err(|e| EngineFailure::WriteFailed(e.to_string()))
    }

    /// `isready` and wait for `readyok`.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), EngineFailure> {
        self.send("isready")?;
        self.wait_for(|l| l.trim() == "readyok", "'readyok'", timeout).map(|_| ())
    }

    /// Sends `position` and `go`, then collects `info` lines until `bestmove` or the deadline.
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        deadline: SearchDeadline,
    ) -> Result<SearchReport, EngineFailure> {
        self.send(position)?;
        let start = Instant::now();
        self.send(go)?;
        let mut report = SearchReport::default();
        let (timeout, awaited) = match deadline {
            SearchDeadline::FromGo(timeout) => (timeout, "'bestmove'"),
            SearchDeadline::WithoutProgress(timeout) => (timeout, "'bestmove' and no 'info' with more nodes"),
        };
        let mut deadline_at = start + timeout;
        let mut most_nodes = None;
        loop {
            let line = self.next_line(deadline_at, awaited, timeout)?;
            if line.starts_with("info") {
                report.absorb_info(&line);
                if matches!(deadline, SearchDeadline::WithoutProgress(_)) && report.nodes > most_nodes {
                    most_nodes = report.nodes;
                    deadline_at = Instant::now() + timeout;
                }
            } else if let Some(rest) = line.strip_prefix("bestmove") {
                report.wall_ms = start.elapsed().as_millis() as u64;
                report.best_move = rest.split_whitespace().next().unwrap_or("").to_owned();
                return Ok(report);
            }
        }
    }

    fn wait_for(
        &mut self,
        accept: impl Fn(&str) -> bool,
        awaited: &str,
        timeout: Duration,
    ) -> Result<String, EngineFailure> {
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.next_line(deadline, awaited, timeout)?;
            if accept(&line) {
                return Ok(line);
            }
        }
    }

    fn next_line(&mut self, deadline: Instant, awaited: &str, timeout: Duration) -> Result<String, EngineFailure> {
        match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                Err(EngineFailure::Hung { awaited: awaited.to_owned(), waited_ms: timeout.as_millis() as u64 })
            }
            Err(RecvTimeoutError::Disconnected) => {
                let exit_status = self.child.exit_status_within(EXIT_STATUS_WAIT).map(|status| status.to_string());
                Err(EngineFailure::Crashed { exit_status })
            }
        }
    }

    /// Asks the engine to quit and gives it a moment; dropping the process then kills it if it is still running.
    pub fn quit(mut self) {
        self.child.quit(EXIT_STATUS_WAIT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_fields_keep_the_last_value_seen() {
        let mut report = SearchReport::default();
        report.absorb_info("info depth 3 seldepth 5 nodes 120 score cp -15 time 40 pv e2e4 e7e5");
        report.absorb_info("info depth 4 nodes 300 score mate 3 nps 1000");
        report.absorb_info("info string time 99 is not a field");
        assert_eq!(report.depth, Some(4));
        assert_eq!(report.seldepth, Some(5));
        assert_eq!(report.nodes, Some(300));
        assert_eq!(report.score, Some(Score::Mate(3)));
        assert_eq!(report.reported_time_ms, Some(40));
    }
}
