//! The match progress bar on stderr (indicatif hides it when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

use crate::runner::GameRecord;
use crate::stats::SprtConfig;
use crate::tally::PairingTally;

/// Shows games played, score, Elo ± error and LLR.
pub struct MatchProgress {
    bar: ProgressBar,
}

impl MatchProgress {
    /// A bar for `total` games, `done` of them already played (resumed).
    pub fn new(total: u64, done: u64) -> Self {
        let bar = ProgressBar::new(total);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed_precise} {msg}") {
            bar.set_style(style);
        }
        bar.set_position(done);
        MatchProgress { bar }
    }

    /// Redraws after a game with the first pairing's numbers.
    pub fn update(&self, tally: &PairingTally, sprt: Option<&SprtConfig>) {
        self.bar.inc(1);
        let g = &tally.games;
        let mut message = format!("score {:.1}/{}", g.wins as f64 + g.draws as f64 / 2.0, g.games());
        let estimate = if tally.pairs.pairs() > 0 { tally.pairs.estimate() } else { g.estimate() };
        if let Ok(e) = estimate {
            message.push_str(&format!("  Elo {:+.1} +/- {:.1}", e.elo, e.elo_error));
        }
        if let Some(llr) = sprt.and_then(|config| tally.llr(config).ok()) {
            message.push_str(&format!("  LLR {llr:.2}"));
        }
        self.bar.set_message(message);
    }

    /// Prints a game that an engine or the opening failed on stderr, above the bar (or alone when it is hidden).
    pub fn warn_of_failure(&self, record: &GameRecord) {
        if record.termination.is_failure() {
            let (id, white, black) = (record.game_id, &record.white, &record.black);
            let (ending, reason) = (record.termination, &record.reason);
            self.bar.suspend(|| eprintln!("warning: game {id} ({white} vs {black}) ended by {ending:?}: {reason}"));
        }
    }

    /// Removes the bar before the final summary is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
