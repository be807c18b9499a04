//! `kairos uci-options`: the engine's options as Markdown, the text of docs/uci-options.md.

use anyhow::Result;
use clap::Parser;

use super::parse_mode_args;

/// Print every UCI option (visible ones first, then those `uci` lists only with --show-hidden) as Markdown:
/// `kairos uci-options > docs/uci-options.md` regenerates the document.
#[derive(Parser)]
struct UciOptionsArgs {}

/// Runs `kairos uci-options`.
pub fn run(args: &[String]) -> Result<()> {
    let UciOptionsArgs {} = parse_mode_args("uci-options", args)?;
    print!("{}", engine::options::markdown::uci_options_markdown());
    Ok(())
}
