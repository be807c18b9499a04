//! The results file: one JSON line per finished game, flushed at once, readable after a crash. A match with an
//! SPRT starts the file with a header line that fixes the test before the first game, so that a resumed match
//! continues the same test; files of matches without one, and files written before the header existed, start with
//! their first game.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::record::GameRecord;
use crate::stats::SprtConfig;

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
    /// Games cannot be appended to a gzipped file.
    #[error("results file {0} is gzipped: gunzip it to resume its match, or choose another file")]
    Gzipped(PathBuf),
}

/// The first line of an SPRT match's results file: the test and who it is about, fixed before the first game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultsHeader {
    /// The SPRT the match stops on.
    pub sprt: SprtConfig,
    /// The engine whose results the SPRT counts, then its opponent.
    pub engines: [String; 2],
}

/// Everything a results file holds: its header, if the match recorded one, and its complete game lines.
#[derive(Clone, Debug)]
pub struct ResultsFile<T> {
    /// The SPRT header, absent for matches without `--sprt` and files written before headers existed.
    pub header: Option<ResultsHeader>,
    /// One entry per complete game line, in the order the games finished.
    pub games: Vec<T>,
}

/// Reads every complete record; a last line without a newline (cut off by a crash) is ignored. A path ending in
/// `.gz` is read through gzip, as committed results are.
pub fn read_results(path: &Path) -> Result<Vec<GameRecord>, ResultsError> {
    Ok(read_results_file(path)?.games)
}

/// Reads the header and every complete game line as `T`: `GameRecord`, or a smaller view of it that skips the
/// moves when only the results are needed.
pub fn read_results_file<T: DeserializeOwned>(path: &Path) -> Result<ResultsFile<T>, ResultsError> {
    let text = read_text(path)?;
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let mut lines = complete.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()).peekable();
    let header = lines.peek().and_then(|(_, line)| serde_json::from_str::<ResultsHeader>(line).ok());
    if header.is_some() {
        lines.next();
    }
    let games = lines
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|e| ResultsError::BadLine {
                path: path.to_owned(),
                line: index + 1,
                reason: e.to_string(),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(ResultsFile { header, games })
}

/// Whether the path names a gzipped file.
fn is_gzipped(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "gz")
}

fn read_text(path: &Path) -> Result<String, ResultsError> {
    let io = |source| ResultsError::Io { path: path.to_owned(), source };
    if !is_gzipped(path) {
        return std::fs::read_to_string(path).map_err(io);
    }
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(File::open(path).map_err(io)?).read_to_string(&mut text).map_err(io)?;
    Ok(text)
}

/// An open results file that new games are appended to.
pub struct ResultsLog {
    path: PathBuf,
    file: File,
    header: Option<ResultsHeader>,
    holds_lines: bool,
}

impl ResultsLog {
    /// Opens for a new match (the file must be absent or empty) or, with `resume`, returns the games already there
    /// and cuts off a partial last line; `header` then says what the file recorded.
    pub fn open(path: &Path, resume: bool) -> Result<(Self, Vec<GameRecord>), ResultsError> {
        let io = |source| ResultsError::Io { path: path.to_owned(), source };
        if is_gzipped(path) {
            return Err(ResultsError::Gzipped(path.to_owned()));
        }
        let existing_len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let recorded = if existing_len > 0 {
            if !resume {
                return Err(ResultsError::AlreadyExists(path.to_owned()));
            }
            read_results_file(path)?
        } else {
            ResultsFile { header: None, games: Vec::new() }
        };
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        let mut keep = 0;
        if existing_len > 0 {
            let text = std::fs::read(path).map_err(io)?;
            keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            file.set_len(keep as u64).map_err(io)?;
        }
        let log = ResultsLog { path: path.to_owned(), file, header: recorded.header, holds_lines: keep > 0 };
        Ok((log, recorded.games))
    }

    /// The SPRT header the file started with, if any.
    pub fn header(&self) -> Option<&ResultsHeader> {
        self.header.as_ref()
    }

    /// Writes the header as the file's first line; only a file with no line yet takes one, since a test must be
    /// fixed before the first game.
    pub fn write_header(&mut self, header: &ResultsHeader) -> Result<(), ResultsError> {
        if self.holds_lines {
            let reason = "a header goes only into an empty results file, before the first game";
            return Err(ResultsError::Io { path: self.path.clone(), source: std::io::Error::other(reason) });
        }
        self.write_line(header)?;
        self.header = Some(header.clone());
        Ok(())
    }

    /// Appends one game and flushes it to the operating system.
    pub fn append(&mut self, record: &GameRecord) -> Result<(), ResultsError> {
        self.write_line(record)
    }

    fn write_line(&mut self, value: &impl Serialize) -> Result<(), ResultsError> {
        let mut line = serde_json::to_string(value)
            .map_err(|e| ResultsError::Io { path: self.path.clone(), source: std::io::Error::other(e) })?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|source| ResultsError::Io { path: self.path.clone(), source })?;
        self.holds_lines = true;
        Ok(())
    }
}
