//! The match's progress on stderr: a bar on a terminal; where stderr is a file or a pipe (a match left running in
//! the background, a CI log), where indicatif hides the bar, a line for each finished game instead. Games are
//! numbered from 1, as the PGN's `Round` numbers them.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::runner::GameRecord;
use crate::stats::SprtConfig;
use crate::tally::PairingTally;

/// Shows games played, score, Elo ± error and LLR.
pub struct MatchProgress {
    bar: ProgressBar,
    /// Whether each finished game gets a line of its own (stderr is not a terminal).
    game_lines: bool,
}

impl MatchProgress {
    /// A bar for `total` games, `done` of them already played (resumed).
    pub fn new(total: u64, done: u64) -> Self {
        let bar = ProgressBar::new(total);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed_precise} {msg}") {
            bar.set_style(style);
        }
        bar.set_position(done);
        MatchProgress { bar, game_lines: !std::io::stderr().is_terminal() }
    }

    /// Redraws after a game with the first pairing's standing, or prints the game's line with it.
    pub fn update(&self, record: &GameRecord, tally: &PairingTally, sprt: Option<&SprtConfig>) {
        self.bar.inc(1);
        let standing = standing(tally, sprt);
        if self.game_lines {
            let (number, total) = (record.game_id + 1, self.bar.length().unwrap_or(0));
            let (white, black, result, reason) = (&record.white, &record.black, record.result.pgn(), &record.reason);
            eprintln!("Finished game {number} of {total} ({white} vs {black}): {result} {{{reason}}}; {standing}");
        }
        self.bar.set_message(standing);
    }

    /// Prints a game that an engine or the opening failed on stderr, above the bar (or alone when it is hidden).
    pub fn warn_of_failure(&self, record: &GameRecord) {
        if record.termination.is_failure() {
            let (number, white, black) = (record.game_id + 1, &record.white, &record.black);
            let (ending, reason) = (record.termination, &record.reason);
            let warning = format!("warning: game {number} ({white} vs {black}) ended by {ending:?}: {reason}");
            self.bar.suspend(|| eprintln!("{warning}"));
        }
    }

    /// Removes the bar before the final summary is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The first engine's score, Elo ± error (over pairs once there are any) and, under `--sprt`, the LLR.
fn standing(tally: &PairingTally, sprt: Option<&SprtConfig>) -> String {
    let g = &tally.games;
    let mut standing = format!("{} score {:.1}/{}", tally.first, g.wins as f64 + g.draws as f64 / 2.0, g.games());
    let estimate = if tally.pairs.pairs() > 0 { tally.pairs.estimate() } else { g.estimate() };
    if let Ok(e) = estimate {
        standing.push_str(&format!("  Elo {:+.1} +/- {:.1}", e.elo, e.elo_error));
    }
    if let Some(llr) = sprt.and_then(|config| tally.llr(config).ok()) {
        standing.push_str(&format!("  LLR {llr:.2}"));
    }
    standing
}
