//! The options table as Markdown: `kairos uci-options` prints it and docs/uci-options.md is its output, so that the
//! document lists what the `uci` answer announces, visible options first, with the same defaults.

use std::fmt::Write as _;

use timemgr::options::key_options;

use super::{EngineOptions, OptionKind, OptionSpec, Visibility, OPTIONS, SHOW_HIDDEN_FLAG};

/// The command that writes the document, named in it so that a reader who changes an option knows how to update it.
pub const GENERATOR_COMMAND: &str = "kairos uci-options > docs/uci-options.md";

/// The heading of the visible options' table.
pub const VISIBLE_HEADING: &str = "## Visible options";

/// The heading of the hidden options' tables.
pub const HIDDEN_HEADING: &str = "## Hidden options";

/// Every option with its default as `uci` announces it: a table of the visible ones, then the hidden engine
/// options and the time managers' keys.
pub fn uci_options_markdown() -> String {
    let all = EngineOptions { show_hidden: true, ..EngineOptions::default() };
    let announced: Vec<(&OptionSpec, String)> = all.announced_options().collect();
    let (engine, keys) = announced.split_at(OPTIONS.len());
    let visible: Vec<_> = engine.iter().filter(|(spec, _)| spec.visibility == Visibility::Visible).collect();
    let hidden: Vec<_> = engine.iter().filter(|(spec, _)| spec.visibility == Visibility::Hidden).collect();

    let mut text = String::new();
    let _ = write!(
        text,
        "# UCI options\n\n\
         <!-- Generated from the options table (engine/src/options/mod.rs) and the time managers' registry by \
         `{GENERATOR_COMMAND}`; a test checks that it matches. Edit the table, not this file. -->\n\n\
         As lc0's, Kairos's `uci` answer lists the {} options a player sets. The other {} (search tuning, \
         diagnostics and the time managers' keys) are listed only when the engine is started with \
         `--{SHOW_HIDDEN_FLAG}` (a command-line flag, or a `{SHOW_HIDDEN_FLAG}` line in `kairos.config`). Listed or \
         not, every option is taken by `setoption name NAME value VALUE`, by its command-line flag \
         (`--flag=VALUE`) and by a line of `kairos.config`; `kairos --help` lists them all. Numbers with a \
         fraction are announced as `type string`, as lc0 announces them, and range-checked when set.\n\n",
        visible.len(),
        hidden.len() + keys.len()
    );
    let _ = writeln!(text, "{VISIBLE_HEADING}\n");
    option_table(&mut text, &visible);
    let _ = writeln!(text, "\n{HIDDEN_HEADING}\n\n### Engine\n");
    option_table(&mut text, &hidden);
    text.push_str(
        "\n### Time-manager keys\n\nEach sets its key in the `TimeManager` string (`SmoothMaxMoveBudget=0.4` is \
         `max-move-budget=0.4` of `smooth`) and is refused unless `TimeManager` selects its manager or estimator; \
         the later of a key and `TimeManager` wins. `kairos tm-help` describes the managers.\n\n\
         | Option | Flag | Manager key | Type | Default | Allowed values | Description |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for (key, (spec, default)) in key_options().iter().zip(keys) {
        let _ = writeln!(
            text,
            "| `{}` | `--{}` | `{}` `{}` | {} | {} | {} | {} |",
            spec.uci_name,
            spec.flag,
            key.component.name,
            key.param.name,
            spec.kind.uci_type(),
            default_cell(default),
            cell(&spec.kind.allowed()),
            cell(spec.help)
        );
    }
    text
}

/// A table of declared options: name, flag, type, default, allowed values and help.
fn option_table(text: &mut String, options: &[&(&OptionSpec, String)]) {
    text.push_str("| Option | Flag | Type | Default | Allowed values | Description |\n|---|---|---|---|---|---|\n");
    for (spec, default) in options {
        let default = if spec.kind == OptionKind::Button { "—".to_owned() } else { default_cell(default) };
        let _ = writeln!(
            text,
            "| `{}` | `--{}` | {} | {} | {} | {} |",
            spec.uci_name,
            spec.flag,
            spec.kind.uci_type(),
            default,
            cell(&spec.kind.allowed()),
            cell(spec.help)
        );
    }
}

/// A default as code, or `(empty)` for an empty string, which Markdown cannot show as code.
fn default_cell(default: &str) -> String {
    if default.is_empty() {
        "(empty)".to_owned()
    } else {
        format!("`{default}`")
    }
}

/// Text in a table cell: a `|` would end the cell, and `<…>` would be read as an HTML tag.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('<', "&lt;").replace('>', "&gt;")
}
