//! `sprt-tests.json`: the SPRTs of an experiment folder whose results files carry no header, written down from
//! the commands that played them (their `--sprt`, or the test the docs declared before its games) so that their
//! verdicts can be re-derived. Matches run since the runner writes headers need no declaration.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::stats::{EloModel, SprtConfig};

/// The name of the declarations file in an experiment folder.
pub const DECLARATIONS_FILE: &str = "sprt-tests.json";

/// A declarations file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DeclarationError {
    /// Reading failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The JSON does not describe tests.
    #[error("{path}: {reason}; see tools/src/report/verdicts/declarations.rs for the fields")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// One declared SPRT.
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    /// Where its games are.
    pub source: DeclaredSource,
    /// What the README or EXPERIMENTS.md said of it, shown beside the re-derived verdict.
    pub docs_said: Option<String>,
    /// The managers and clock, for records written before the runner kept each engine's options.
    pub unrecorded_setting: Option<String>,
}

/// Where a declared test's games are, and the test when the file does not say it.
#[derive(Clone, Debug, PartialEq)]
pub enum DeclaredSource {
    /// A `kairos match` results file (`.jsonl` or `.jsonl.gz`), relative to the folder.
    Results {
        /// The results file.
        path: String,
        /// The engine whose results the test counts.
        engine: String,
        /// The test, in normalised Elo as the runner's.
        sprt: SprtConfig,
        /// Games at the start of the file that were seen before the test was chosen, and so not counted.
        skip_games: u64,
    },
    /// An OpenBench test's `info` as its API gives it, relative to the folder: its bounds and pentanomial.
    OpenBench {
        /// The info file.
        path: String,
    },
}

/// The fields as written; `resolve` checks them into a [`Declaration`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    results: Option<String>,
    openbench: Option<String>,
    engine: Option<String>,
    elo0: Option<f64>,
    elo1: Option<f64>,
    alpha: Option<f64>,
    beta: Option<f64>,
    #[serde(default)]
    skip_games: u64,
    docs_said: Option<String>,
    unrecorded_setting: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenFile {
    tests: Vec<Written>,
}

impl Written {
    fn resolve(self) -> Result<Declaration, String> {
        let source = match (self.results, self.openbench) {
            (Some(path), None) => {
                let missing = |field: &str| format!("the test of {path} lacks \"{field}\"");
                let sprt = SprtConfig {
                    elo0: self.elo0.ok_or_else(|| missing("elo0"))?,
                    elo1: self.elo1.ok_or_else(|| missing("elo1"))?,
                    alpha: self.alpha.ok_or_else(|| missing("alpha"))?,
                    beta: self.beta.ok_or_else(|| missing("beta"))?,
                    model: EloModel::Normalized,
                };
                sprt.validate().map_err(|e| format!("the test of {path}: {e}"))?;
                let engine = self.engine.ok_or_else(|| missing("engine"))?;
                DeclaredSource::Results { path, engine, sprt, skip_games: self.skip_games }
            }
            (None, Some(path)) => {
                let stray = [self.elo0, self.elo1, self.alpha, self.beta].iter().any(Option::is_some);
                if stray || self.engine.is_some() || self.skip_games != 0 {
                    return Err(format!("the OpenBench test {path} takes its bounds and engines from that file"));
                }
                DeclaredSource::OpenBench { path }
            }
            _ => return Err("each test names either \"results\" or \"openbench\"".to_owned()),
        };
        Ok(Declaration { source, docs_said: self.docs_said, unrecorded_setting: self.unrecorded_setting })
    }
}

/// Reads a folder's declarations file.
pub fn read_declarations(path: &Path) -> Result<Vec<Declaration>, DeclarationError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| DeclarationError::Io { path: path.to_owned(), source })?;
    let invalid = |reason: String| DeclarationError::Invalid { path: path.to_owned(), reason };
    let file: WrittenFile = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    file.tests.into_iter().map(|test| test.resolve().map_err(invalid)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<Declaration>, String> {
        let file: WrittenFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        file.tests.into_iter().map(Written::resolve).collect()
    }

    #[test]
    fn a_results_test_reads_its_bounds_in_normalised_elo() {
        let text = r#"{"tests": [{"results": "r.jsonl.gz", "engine": "a", "elo0": -10, "elo1": 0,
            "alpha": 0.05, "beta": 0.1, "skip_games": 272, "docs_said": "H1"}]}"#;
        let declared = parse(text).unwrap();
        let DeclaredSource::Results { path, engine, sprt, skip_games } = &declared[0].source else { panic!() };
        assert_eq!((path.as_str(), engine.as_str(), *skip_games), ("r.jsonl.gz", "a", 272));
        assert_eq!((sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta), (-10.0, 0.0, 0.05, 0.1));
        assert_eq!(sprt.model, EloModel::Normalized);
        assert_eq!(declared[0].docs_said.as_deref(), Some("H1"));
    }

    #[test]
    fn mistakes_are_named() {
        let missing =
            parse(r#"{"tests": [{"results": "r.jsonl", "engine": "a", "elo0": 0, "elo1": 5, "beta": 0.05}]}"#);
        assert!(missing.unwrap_err().contains("lacks \"alpha\""));
        let both = parse(r#"{"tests": [{"results": "r.jsonl", "openbench": "i.json"}]}"#);
        assert!(both.unwrap_err().contains("either"));
        let typo = parse(r#"{"tests": [{"result": "r.jsonl"}]}"#);
        assert!(typo.unwrap_err().contains("unknown field `result`"));
        let reversed =
            parse(r#"{"tests": [{"results": "r", "engine": "a", "elo0": 5, "elo1": 0, "alpha": 0.05, "beta": 0.05}]}"#);
        assert!(reversed.unwrap_err().contains("elo0 < elo1"));
    }
}
