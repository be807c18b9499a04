//! `kairos match-report --verdicts DIR`: every SPRT under DIR re-derived from its raw results, under the runner's
//! model (normalised Elo over pentanomial pairs), with its verdict at the first crossing of a bound and at the last
//! game recorded, as a Markdown document (docs/verdicts.md is its output).
//!
//! A test is found in two ways: a results file whose header records it (`kairos match --sprt` writes one), or an
//! entry in a folder's `sprt-tests.json` for results written before headers existed.

mod declarations;
mod replayed;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

pub use declarations::{read_declarations, Declaration, DeclarationError, DeclaredSource, DECLARATIONS_FILE};
pub use replayed::{replay_openbench, replay_results, FirstCrossing, ReplayedTest};

use crate::stats::{Pentanomial, SprtDecision};

/// One row of the verdicts table: where the test's games are and what they say.
#[derive(Clone, Debug)]
pub struct VerdictRow {
    /// The file the test was read from, relative to the directory walked.
    pub source: String,
    /// The test re-derived.
    pub test: ReplayedTest,
    /// What the docs said of it.
    pub docs_said: Option<String>,
    /// Managers and clock written in the declaration, for records that did not keep them.
    pub unrecorded_setting: Option<String>,
}

/// Every SPRT under `dir`, in path order.
pub fn collect_verdicts(dir: &Path) -> anyhow::Result<Vec<VerdictRow>> {
    let mut folders = Vec::new();
    walk(dir, &mut folders)?;
    folders.sort();
    let mut rows = Vec::new();
    for folder in folders {
        let declared = folder.join(DECLARATIONS_FILE);
        if declared.is_file() {
            for declaration in read_declarations(&declared)? {
                rows.push(declared_row(dir, &folder, declaration)?);
            }
        }
        for path in headed_results(&folder)? {
            let test = replay_results(&path, None, None, 0)?;
            rows.push(VerdictRow { source: relative(dir, &path), test, docs_said: None, unrecorded_setting: None });
        }
    }
    Ok(rows)
}

fn walk(dir: &Path, folders: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    folders.push(dir.to_owned());
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let path = entry.with_context(|| format!("reading {}", dir.display()))?.path();
        if path.is_dir() {
            walk(&path, folders)?;
        }
    }
    Ok(())
}

/// The results files in `folder` that start with an SPRT header; of a gzipped file and its gunzipped twin (a run
/// being resumed) only the gunzipped one, which holds every game.
fn headed_results(folder: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut headed = Vec::new();
    for entry in std::fs::read_dir(folder).with_context(|| format!("reading {}", folder.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let gunzipped_twin = name.strip_suffix(".gz").is_some_and(|plain| folder.join(plain).is_file());
        if (name.ends_with(".jsonl") || name.ends_with(".jsonl.gz")) && !gunzipped_twin && starts_with_header(&path) {
            headed.push(path);
        }
    }
    headed.sort();
    Ok(headed)
}

/// Whether the file's first line is a results header (read alone, so that traces and long files cost little).
fn starts_with_header(path: &Path) -> bool {
    use std::io::{BufRead, BufReader, Read};
    let Ok(file) = std::fs::File::open(path) else { return false };
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut first = String::new();
    BufReader::new(reader).read_line(&mut first).is_ok()
        && serde_json::from_str::<crate::runner::ResultsHeader>(&first).is_ok()
}

fn declared_row(dir: &Path, folder: &Path, declaration: Declaration) -> anyhow::Result<VerdictRow> {
    let (path, test) = match &declaration.source {
        DeclaredSource::Results { path, engine, sprt, skip_games } => {
            let path = existing_results(&folder.join(path))?;
            if starts_with_header(&path) {
                anyhow::bail!("{} records its own SPRT; remove its entry from {DECLARATIONS_FILE}", path.display());
            }
            let test = replay_results(&path, Some(engine), Some(*sprt), *skip_games)?;
            (path, test)
        }
        DeclaredSource::OpenBench { path } => {
            let path = folder.join(path);
            let test = replay_openbench(&path)?;
            (path, test)
        }
    };
    Ok(VerdictRow {
        source: relative(dir, &path),
        test,
        docs_said: declaration.docs_said,
        unrecorded_setting: declaration.unrecorded_setting,
    })
}

/// The declared results file, or its gzipped or gunzipped twin (committed gzipped, gunzipped to resume).
fn existing_results(path: &Path) -> anyhow::Result<PathBuf> {
    let text = path.to_string_lossy();
    let twin = match text.strip_suffix(".gz") {
        Some(plain) => PathBuf::from(plain),
        None => PathBuf::from(format!("{text}.gz")),
    };
    [path.to_owned(), twin]
        .into_iter()
        .find(|candidate| candidate.is_file())
        .with_context(|| format!("{} is declared in {DECLARATIONS_FILE} but missing (nor gzipped)", path.display()))
}

/// The results file's name under `dir`, without `.gz`: the same whether the file is read as committed (gzipped) or
/// gunzipped to resume, so that the document does not change with it.
fn relative(dir: &Path, path: &Path) -> String {
    let name = path.strip_prefix(dir).unwrap_or(path).to_string_lossy().into_owned();
    name.strip_suffix(".gz").map(str::to_owned).unwrap_or(name)
}

/// The verdicts document: how it was made, the table, and the managers behind each row.
pub fn verdicts_markdown(dir: &Path, rows: &[VerdictRow]) -> String {
    let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    let mut out = String::new();
    let _ = writeln!(out, "# SPRT verdicts, re-derived from the raw results\n");
    let _ =
        writeln!(out, "Generated by `kairos match-report --verdicts {name}`: edit the results files or the folders'");
    let _ = writeln!(
        out,
        "`{DECLARATIONS_FILE}`, not this file. Every test is read under the runner's model, whatever model"
    );
    out.push_str(concat!(
        "the docs first used: normalised Elo over pentanomial pairs (the GSPRT of fishtest and OpenBench), elo0 and\n",
        "elo1 in nElo, Wald's bounds from α and β. The games are replayed in the order they finished, as\n",
        "`kairos match --sprt` counts them, and the verdict is taken at the first pair whose LLR reaches a bound;\n",
        "the games recorded after it are counted in the other columns but do not change it. **Bold**: the verdict\n",
        "at the last game differs from the one at the first crossing.\n\n",
    ));
    out.push_str("| # | results | engines (counted first) | clock | test: nElo [elo0, elo1], α, β (LLR bounds) ");
    out.push_str("| games | pentanomial (0–2) | Elo ± 95 % | nElo ± 95 % | first crossing | at the last game | ");
    out.push_str("the docs said |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (index, row) in rows.iter().enumerate() {
        let _ = writeln!(out, "{}", table_row(index + 1, row));
    }
    out.push_str("\n## Managers\n\n");
    for (index, row) in rows.iter().enumerate() {
        let _ = writeln!(out, "{}. `{}`: {}", index + 1, row.source, setting(row));
    }
    out
}

fn table_row(number: usize, row: &VerdictRow) -> String {
    let test = &row.test;
    let (lower, upper) = test.sprt.bounds();
    let skipped =
        if test.skip_games > 0 { format!("; games after the first {}", test.skip_games) } else { String::new() };
    let hypotheses = format!(
        "[{}, {}], {}, {} ({lower:.2}, {upper:.2}){skipped}",
        test.sprt.elo0, test.sprt.elo1, test.sprt.alpha, test.sprt.beta
    );
    let (elo, nelo) = match test.pairs.estimate() {
        // Adding 0.0 turns an estimate of -0.0 into 0.0.
        Ok(e) => {
            (format!("{:+.1} ± {:.1}", e.elo + 0.0, e.elo_error), format!("{:+.1} ± {:.1}", e.nelo + 0.0, e.nelo_error))
        }
        Err(_) => ("-".to_owned(), "-".to_owned()),
    };
    let end_decision = test.final_llr().map(|llr| test.sprt.decide(llr));
    let end = match test.final_llr() {
        Some(llr) => format!("{} (LLR {llr:+.2})", verdict_word(test.sprt.decide(llr))),
        None => "-".to_owned(),
    };
    let (first, differs) = match test.first_crossing {
        FirstCrossing::Replayed(Some(crossing)) => (
            format!("{} at game {} (LLR {:+.2})", verdict_word(crossing.decision), crossing.games, crossing.llr),
            end_decision != Some(crossing.decision),
        ),
        FirstCrossing::Replayed(None) => ("none".to_owned(), false),
        FirstCrossing::StoppedByOpenBench => ("OpenBench's own stop (counts only)".to_owned(), false),
    };
    let end = if differs { format!("**{end}**") } else { end };
    format!(
        "| {number} | `{}` | {} vs {} | {} | {hypotheses} | {} | {} | {elo} | {nelo} | {first} | {end} | {} |",
        row.source,
        test.engines[0],
        test.engines[1],
        test.time_control,
        test.games,
        pentanomial_text(&test.pairs),
        row.docs_said.as_deref().unwrap_or("-"),
    )
}

fn verdict_word(decision: SprtDecision) -> &'static str {
    match decision {
        SprtDecision::AcceptH0 => "H0",
        SprtDecision::AcceptH1 => "H1",
        SprtDecision::Continue => "none",
    }
}

fn pentanomial_text(pairs: &Pentanomial) -> String {
    let c = pairs.counts_by_score();
    format!("[{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4])
}

fn setting(row: &VerdictRow) -> String {
    let recorded: Vec<String> = row
        .test
        .engines
        .iter()
        .filter_map(|name| row.test.managers.get(name).map(|manager| format!("{name} `{manager}`")))
        .collect();
    match (recorded.is_empty(), &row.unrecorded_setting) {
        (false, _) => recorded.join(", "),
        (true, Some(setting)) => format!("{setting} (from the declaration; the records predate each engine's options)"),
        (true, None) => "not recorded".to_owned(),
    }
}
