//! Time-usage figures per engine, computed from the per-move records of a results file.

use std::collections::BTreeMap;

use crate::runner::{GameRecord, Termination, TimeControl};

/// The own moves (after the book) over which the report measures how even the tree size is: the window of
/// issue #10 (PR 1195's "same tree size at every move"), past the opening and before most games end.
pub const EVENNESS_MOVES: std::ops::RangeInclusive<u32> = 10..=60;

/// Mean, median and maximum of a set of values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Number of values.
    pub count: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (mean of the two middle values for an even count).
    pub median: f64,
    /// Largest value.
    pub max: f64,
    /// Smallest value.
    pub min: f64,
    /// Standard deviation over mean (population form); 0 when the mean is 0.
    pub coefficient_of_variation: f64,
}

impl Summary {
    /// Summarises `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
        let variance = sorted.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        Some(Summary {
            count: n,
            mean,
            median,
            max: sorted[n - 1],
            min: sorted[0],
            coefficient_of_variation: if mean == 0.0 { 0.0 } else { variance.sqrt() / mean },
        })
    }
}

/// Everything the report shows for one engine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineUsage {
    /// Games the engine played.
    pub games: usize,
    /// Games it lost on time.
    pub flags: usize,
    /// Time used (ms) by the engine's own move number (1 = its first move after the book).
    pub time_by_move: BTreeMap<u32, Vec<f64>>,
    /// Clock left (ms) after its moves, by game ply after the book (1-based).
    pub clock_by_ply: BTreeMap<u32, Vec<f64>>,
    /// Clock left (ms) after its moves, by its own move number.
    pub clock_by_move: BTreeMap<u32, Vec<f64>>,
    /// Clock left (ms) after its last move of each game.
    pub clock_at_end: Vec<f64>,
    /// Nodes reported at move time, by the engine's own move number.
    pub nodes_by_move: BTreeMap<u32, Vec<f64>>,
    /// Nodes reported at move time over all moves.
    pub nodes: Vec<f64>,
    /// How each game ended for the engine: its length and the clock it had left.
    pub game_ends: Vec<GameEnd>,
}

/// One game's length and the engine's clock at its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameEnd {
    /// Plies played after the book.
    pub plies: usize,
    /// The engine's clock after its last move, in ms.
    pub clock_left_ms: f64,
    /// The engine's base time, in ms (for the share of the clock left).
    pub base_ms: f64,
}

impl EngineUsage {
    /// Tree size at move time over the own moves of [`EVENNESS_MOVES`].
    pub fn evenness(&self) -> Option<Summary> {
        let values: Vec<f64> =
            self.nodes_by_move.range(EVENNESS_MOVES).flat_map(|(_, nodes)| nodes.iter().copied()).collect();
        Summary::of(&values)
    }

    /// Mean clock left at the end of the games longer than the median game, as a share of the base time:
    /// whether a manager uses all its time when the game runs long.
    pub fn clock_left_in_long_games(&self) -> Option<f64> {
        let plies: Vec<f64> = self.game_ends.iter().map(|end| end.plies as f64).collect();
        let median = Summary::of(&plies)?.median;
        let shares: Vec<f64> = self
            .game_ends
            .iter()
            .filter(|end| end.plies as f64 > median && end.base_ms > 0.0)
            .map(|end| end.clock_left_ms / end.base_ms)
            .collect();
        Summary::of(&shares).map(|s| s.mean)
    }
}

/// Collects per-engine usage from game records, engines in order of first appearance.
pub fn usage_by_engine(games: &[GameRecord]) -> Vec<(String, EngineUsage)> {
    let mut engines: Vec<(String, EngineUsage)> = Vec::new();
    for game in games {
        for (white, name) in [(true, &game.white), (false, &game.black)] {
            let index = match engines.iter().position(|(n, _)| n == name) {
                Some(index) => index,
                None => {
                    engines.push((name.clone(), EngineUsage::default()));
                    engines.len() - 1
                }
            };
            add_game(&mut engines[index].1, game, white);
        }
    }
    engines
}

fn add_game(usage: &mut EngineUsage, game: &GameRecord, white: bool) {
    usage.games += 1;
    let white_starts = game.opening.fen.split_whitespace().nth(1) != Some("b");
    let white_moves_after_book = white_starts == game.opening.moves.len().is_multiple_of(2);
    let first_own = usize::from(white_moves_after_book != white);
    if game.termination == Termination::TimeForfeit && game.moves.len() % 2 == first_own {
        usage.flags += 1;
    }
    let mut last_clock = None;
    for (own_index, (ply, m)) in game.moves.iter().enumerate().skip(first_own).step_by(2).enumerate() {
        let move_number = own_index as u32 + 1;
        usage.time_by_move.entry(move_number).or_default().push(m.time_used_ms as f64);
        if let Some(clock) = m.clock_left_ms {
            usage.clock_by_ply.entry(ply as u32 + 1).or_default().push(clock as f64);
            usage.clock_by_move.entry(move_number).or_default().push(clock as f64);
            last_clock = Some(clock as f64);
        }
        if let Some(nodes) = m.nodes {
            usage.nodes_by_move.entry(move_number).or_default().push(nodes as f64);
            usage.nodes.push(nodes as f64);
        }
    }
    usage.clock_at_end.extend(last_clock);
    let control = if white { &game.white_time_control } else { &game.black_time_control };
    let base_ms = match control.parse::<TimeControl>() {
        Ok(TimeControl::Fischer { base_ms, .. } | TimeControl::Bronstein { base_ms, .. }) => Some(base_ms as f64),
        _ => None,
    };
    if let (Some(clock_left_ms), Some(base_ms)) = (last_clock, base_ms) {
        usage.game_ends.push(GameEnd { plies: game.moves.len(), clock_left_ms, base_ms });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_hand_worked_values() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.count, s.mean, s.median, s.max, s.min), (4, 2.5, 2.5, 4.0, 1.0));
        assert!((s.coefficient_of_variation - 1.25f64.sqrt() / 2.5).abs() < 1e-15);
        assert_eq!(Summary::of(&[5.0, 1.0, 3.0]).unwrap().median, 3.0);
        assert!(Summary::of(&[]).is_none());
    }
}
