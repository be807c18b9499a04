//! The option list at a player's size, as lc0's: the binary's `uci` answer lists exactly the options
//! docs/uci-options.md lists as visible, with the same defaults, and every option of the document after
//! `--show-hidden` (a flag or a `kairos.config` line); a hidden option is still set by `setoption`; and the committed
//! document is what `kairos uci-options` prints, so that an option changed without regenerating it fails here.

use std::path::PathBuf;
use std::time::Duration;

use engine::options::markdown::{GENERATOR_COMMAND, HIDDEN_HEADING, VISIBLE_HEADING};
use kairos_tests::{run_kairos, workspace_root, UciSession};

const LIMIT: Duration = Duration::from_secs(60);

/// An option's name and its default as text (empty for an empty string or a button).
type NamedDefault = (String, String);

/// The committed document.
fn document() -> String {
    let path = workspace_root().join("docs/uci-options.md");
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

/// The `uci` answer of `kairos args…`, which shows each option's current value as its default.
fn uci_answer(args: &[&str]) -> Vec<String> {
    let mut engine = UciSession::start(args);
    engine.send("uci");
    engine.read_until("uciok", LIMIT)
}

/// Name and default of each `option name NAME type T [default D] [min …] [var …]` line, in order.
fn announced(lines: &[String]) -> Vec<NamedDefault> {
    lines
        .iter()
        .filter_map(|line| {
            let (name, rest) = line.strip_prefix("option name ")?.split_once(" type ")?;
            let default = rest.split_once(" default").map_or("", |(_, tail)| tail.trim_start());
            let default = default.split(" min ").next().unwrap_or_default().split(" var ").next().unwrap_or_default();
            Some((name.to_owned(), default.to_owned()))
        })
        .collect()
}

/// Name and default of each row of the document's tables from `heading` to the next `## ` heading, in order;
/// the default column is found by its header, a default is written `` `value` ``, `(empty)` or `—` (a button).
fn documented(document: &str, heading: &str) -> Vec<NamedDefault> {
    let start = document.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("no heading {heading}"));
    let section = &document[start + heading.len() + 2..];
    let section = section.find("\n## ").map_or(section, |end| &section[..end]);
    let mut rows = Vec::new();
    let mut default_column = None;
    for line in section.lines().filter(|line| line.starts_with("| ")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        if cells[0] == "Option" {
            default_column = cells.iter().position(|cell| *cell == "Default");
            continue;
        }
        let Some(name) = cells[0].strip_prefix('`').and_then(|cell| cell.strip_suffix('`')) else { continue };
        let cell = cells[default_column.expect("a header row names the Default column")];
        let default = match cell {
            "(empty)" | "—" => "",
            code => code.strip_prefix('`').and_then(|code| code.strip_suffix('`')).expect("a default in code"),
        };
        rows.push((name.to_owned(), default.to_owned()));
    }
    rows
}

fn sorted(mut list: Vec<NamedDefault>) -> Vec<NamedDefault> {
    list.sort();
    list
}

#[test]
fn uci_lists_exactly_the_documents_visible_options_and_show_hidden_lists_them_all() {
    let document = document();
    let visible = documented(&document, VISIBLE_HEADING);
    let hidden = documented(&document, HIDDEN_HEADING);
    assert!((20..=40).contains(&visible.len()), "a GUI-sized list: {} options", visible.len());
    assert!(hidden.iter().any(|(name, _)| name == "CPuct") && hidden.iter().any(|(name, _)| name == "LegacySlowmover"));

    let plain = announced(&uci_answer(&[]));
    assert_eq!(plain, visible, "uci lists the visible options of docs/uci-options.md, in order, with their defaults");
    let hidden_names: Vec<&String> = hidden.iter().map(|(name, _)| name).collect();
    let leaked: Vec<&NamedDefault> = plain.iter().filter(|(name, _)| hidden_names.contains(&name)).collect();
    assert!(leaked.is_empty(), "no hidden option without --show-hidden: {leaked:?}");

    let everything = sorted(visible.iter().chain(&hidden).cloned().collect());
    let shown = announced(&uci_answer(&["--show-hidden"]));
    assert_eq!(sorted(shown), everything, "--show-hidden lists every option of the document");

    let dir = std::env::temp_dir().join(format!("kairos-uci-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("kairos.config");
    std::fs::write(&config, "# list them all\nshow-hidden\n").unwrap();
    let from_config = announced(&uci_answer(&[&format!("--config={}", config.display())]));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(sorted(from_config), everything, "a show-hidden line of kairos.config does the same");
}

#[test]
fn a_hidden_option_is_set_by_setoption_though_uci_does_not_list_it() {
    let trace = std::env::temp_dir().join(format!("kairos-hidden-trace-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&trace);
    let mut engine = UciSession::start(&["--backend=uniform", "--threads=1"]);
    engine.send("uci");
    let listed = announced(&engine.read_until("uciok", LIMIT));
    let names: Vec<&str> = listed.iter().map(|(name, _)| name.as_str()).collect();
    assert!(!names.contains(&"TmTraceFile") && !names.contains(&"LegacySlowmover"), "both are hidden: {names:?}");

    engine.send(&format!("setoption name TmTraceFile value {}", trace.display()));
    engine.send("setoption name TimeManager value legacy");
    engine.send("setoption name LegacySlowmover value 2.5");
    engine.send("uci");
    let after = engine.read_until("uciok", LIMIT);
    let time_manager = announced(&after).into_iter().find(|(name, _)| name == "TimeManager").expect("TimeManager");
    assert_eq!(time_manager.1, "legacy(slowmover=2.5)", "the key set itself in the visible TimeManager string");
    assert!(after.iter().all(|line| !line.starts_with("info string error")), "{after:?}");

    engine.send("position startpos");
    engine.send("go wtime 2000 btime 2000");
    engine.read_until("bestmove", LIMIT);
    drop(engine);
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let _ = std::fs::remove_file(&trace);
    assert_eq!(text.lines().count(), 1, "TmTraceFile wrote the move's trace: {text:?}");
    assert!(text.contains("legacy"), "the trace of the legacy manager: {text}");
}

#[test]
fn the_committed_document_is_the_generators_output() {
    let output = run_kairos(&["uci-options"], &workspace_root(), LIMIT);
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let path: PathBuf = workspace_root().join("docs/uci-options.md");
    assert!(
        output.stdout == document(),
        "{} differs from what the options table says now: run `{GENERATOR_COMMAND}`",
        path.display()
    );
}
