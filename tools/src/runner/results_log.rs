//! The results file: one JSON line per finished game, flushed at once, readable after a crash.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::record::GameRecord;

/// A results file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// Opening, reading or writing failed.
    #[error("results file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A complete line is not a game record.
    #[error("results file {path}, line {line}: not a game record ({reason}); repair or remove that line")]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The JSON error.
        reason: String,
    },
    /// Refused to append to the results of another match.
    #[error("results file {0} already holds games: pass --resume to continue that match, or choose another file")]
    AlreadyExists(PathBuf),
}

/// Reads every complete record; a last line without a newline (cut off by a crash) is ignored.
pub fn read_results(path: &Path) -> Result<Vec<GameRecord>, ResultsError> {
    let text = std::fs::read_to_string(path).map_err(|source| ResultsError::Io { path: path.to_owned(), source })?;
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    complete
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|e| ResultsError::BadLine {
                path: path.to_owned(),
                line: index + 1,
                reason: e.to_string(),
            })
        })
        .collect()
}

/// An open results file that new games are appended to.
pub struct ResultsLog {
    path: PathBuf,
    file: File,
}

impl ResultsLog {
    /// Opens for a new match (the file must be absent or empty) or, with `resume`, returns the games already there
    /// and cuts off a partial last line.
    pub fn open(path: &Path, resume: bool) -> Result<(Self, Vec<GameRecord>), ResultsError> {
        let io = |source| ResultsError::Io { path: path.to_owned(), source };
        let existing_len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let previous = if existing_len > 0 {
            if !resume {
                return Err(ResultsError::AlreadyExists(path.to_owned()));
            }
            read_results(path)?
        } else {
            Vec::new()
        };
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        if existing_len > 0 {
            let text = std::fs::read(path).map_err(io)?;
            let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            file.set_len(keep as u64).map_err(io)?;
        }
        Ok((ResultsLog { path: path.to_owned(), file }, previous))
    }

    /// Appends one game and flushes it to the operating system.
    pub fn append(&mut self, record: &GameRecord) -> Result<(), ResultsError> {
        let mut line = serde_json::to_string(record)
            .map_err(|e| ResultsError::Io { path: self.path.clone(), source: std::io::Error::other(e) })?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|source| ResultsError::Io { path: self.path.clone(), source })
    }
}
