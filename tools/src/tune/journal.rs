//! The tuning log: a JSONL file whose first line describes the run and whose every further line is one finished
//! iteration, appended and flushed as soon as its games are done, so that `--resume` loses nothing.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::spsa::{Gains, SpsaParam, Step, Trial};

/// Everything that decides a run's course; `--resume` refuses a log whose header differs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// The base option string.
    pub time_manager: String,
    /// The tuned parameters.
    pub params: Vec<SpsaParam>,
    /// The gain schedule.
    pub gains: Gains,
    /// The seed of the perturbation draws.
    pub seed: u64,
    /// Planned iterations.
    pub iterations: u64,
    /// What one iteration measures (engines, time control, games), in words.
    pub objective: String,
}

/// One finished iteration as logged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationLine {
    /// The iteration, from 0.
    pub iteration: u64,
    /// Δ_k.
    pub signs: Vec<i8>,
    /// c_k, in tuning steps.
    pub perturbation: f64,
    /// a_k.
    pub learning_rate: f64,
    /// The measured games, in exact half points.
    pub trial: Trial,
    /// y₊ − y₋.
    pub score_difference: f64,
    /// θ + c_k Δ_k by name.
    pub plus: BTreeMap<String, f64>,
    /// θ − c_k Δ_k by name.
    pub minus: BTreeMap<String, f64>,
    /// θ after the update, by name.
    pub parameters: BTreeMap<String, f64>,
    /// θ after the update as an option string.
    pub time_manager: String,
}

impl IterationLine {
    /// The log line for `step`, naming values after `params`.
    pub fn new(step: &Step, params: &[SpsaParam], time_manager: String) -> Self {
        let named = |values: &[f64]| params.iter().map(|p| p.name.clone()).zip(values.iter().copied()).collect();
        IterationLine {
            iteration: step.proposal.iteration,
            signs: step.proposal.signs.clone(),
            perturbation: step.proposal.perturbation,
            learning_rate: step.learning_rate,
            trial: step.trial,
            score_difference: step.trial.score_difference(),
            plus: named(&step.proposal.plus),
            minus: named(&step.proposal.minus),
            parameters: named(&step.theta),
            time_manager,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Line {
    Run(RunHeader),
    Iteration(IterationLine),
}

/// A tuning log that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading or writing failed.
    #[error("tuning log {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A complete line does not parse.
    #[error("tuning log {path}, line {line}: {reason}; repair or remove that line")]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A fresh run would overwrite an earlier one.
    #[error("tuning log {0} already holds a run: pass --resume to continue it, or choose another --log")]
    AlreadyExists(PathBuf),
    /// `--resume` with settings other than the logged run's.
    #[error(
        "tuning log {path} was written by a run with other settings; resume with the same arguments, or choose \
         another --log\n  logged:  {logged}\n  now:     {now}"
    )]
    DifferentRun {
        /// The file.
        path: PathBuf,
        /// The logged header line.
        logged: String,
        /// The header these arguments give.
        now: String,
    },
}

/// An open tuning log that finished iterations are appended to.
pub struct Journal {
    path: PathBuf,
    file: File,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |source| JournalError::Io { path: path.to_owned(), source }
}

fn to_json(line: &Line) -> String {
    serde_json::to_string(line).unwrap_or_else(|e| format!("{{\"kind\":\"unserializable\",\"reason\":\"{e}\"}}"))
}

impl Journal {
    /// Opens the log for `header`. A fresh run needs an absent or empty file; with `resume`, the logged header must
    /// match and the logged iterations are returned (a last line cut off by a crash is dropped from the file).
    pub fn open(path: &Path, header: &RunHeader, resume: bool) -> Result<(Self, Vec<IterationLine>), JournalError> {
        let header_line = to_json(&Line::Run(header.clone()));
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io_error(path)(e)),
        };
        let complete_len = text.rfind('\n').map_or(0, |i| i + 1);
        let complete = &text[..complete_len];
        let mut iterations = Vec::new();
        if !complete.trim().is_empty() {
            if !resume {
                return Err(JournalError::AlreadyExists(path.to_owned()));
            }
            let mut lines = complete.lines();
            let logged = lines.next().unwrap_or_default();
            if logged != header_line {
                return Err(JournalError::DifferentRun {
                    path: path.to_owned(),
                    logged: logged.to_owned(),
                    now: header_line,
                });
            }
            for (index, text) in lines.enumerate() {
                let bad = |reason: String| JournalError::BadLine { path: path.to_owned(), line: index + 2, reason };
                match serde_json::from_str::<Line>(text) {
                    Ok(Line::Iteration(line)) => iterations.push(line),
                    Ok(Line::Run(_)) => return Err(bad("a second run header".into())),
                    Err(e) => return Err(bad(e.to_string())),
                }
            }
        }
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io_error(path))?;
        if complete_len < text.len() || complete.trim().is_empty() {
            file.set_len(complete_len as u64).map_err(io_error(path))?;
        }
        let mut journal = Journal { path: path.to_owned(), file };
        if complete.trim().is_empty() {
            journal.write_line(&header_line)?;
        }
        Ok((journal, iterations))
    }

    /// Appends a finished iteration and flushes it to disk.
    pub fn append(&mut self, line: &IterationLine) -> Result<(), JournalError> {
        self.write_line(&to_json(&Line::Iteration(line.clone())))
    }

    fn write_line(&mut self, line: &str) -> Result<(), JournalError> {
        let path = self.path.clone();
        self.file.write_all(format!("{line}\n").as_bytes()).map_err(io_error(&path))?;
        self.file.flush().map_err(io_error(&path))?;
        self.file.sync_data().map_err(io_error(&path))
    }
}
