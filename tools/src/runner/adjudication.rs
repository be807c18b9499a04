//! Draw and resign adjudication from the scores engines report.

use serde::{Deserialize, Serialize};

use super::uci_process::Score;

/// Draw when both engines report |score| ≤ `score_cp` for `move_count` consecutive moves each, from move `from_move`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawAdjudication {
    /// First full-move number at which a draw may be adjudicated.
    pub from_move: u32,
    /// Consecutive moves per side that must be level.
    pub move_count: u32,
    /// Largest absolute score in centipawns that counts as level.
    pub score_cp: i32,
}

/// A side resigns when it reports score ≤ −`score_cp` for `move_count` consecutive own moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignAdjudication {
    /// Consecutive own moves with a hopeless score.
    pub move_count: u32,
    /// Centipawn deficit that counts as hopeless (mated-in scores always count).
    pub score_cp: i32,
}

/// What the adjudicator decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The game is drawn.
    Draw,
    /// One side resigns.
    Resign {
        /// Whether white is the side that resigns.
        white_lost: bool,
    },
}

/// Tracks score streaks over a game.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    draw: Option<DrawAdjudication>,
    resign: Option<ResignAdjudication>,
    level_plies: u32,
    hopeless_moves: [u32; 2],
}

impl Adjudicator {
    /// An adjudicator with no streaks yet.
    pub fn new(draw: Option<DrawAdjudication>, resign: Option<ResignAdjudication>) -> Self {
        Adjudicator { draw, resign, level_plies: 0, hopeless_moves: [0, 0] }
    }

    /// Records the mover's reported score; `fullmove` is the full-move number after the move.
    pub fn after_move(&mut self, white_moved: bool, score: Option<Score>, fullmove: u32) -> Option<Verdict> {
        let side = usize::from(!white_moved);
        let level = |limit: i32| matches!(score, Some(Score::Centipawns(cp)) if cp.abs() <= limit);
        if let Some(draw) = self.draw {
            self.level_plies = if level(draw.score_cp) { self.level_plies + 1 } else { 0 };
            if fullmove >= draw.from_move && self.level_plies >= 2 * draw.move_count {
                return Some(Verdict::Draw);
            }
        }
        if let Some(resign) = self.resign {
            let hopeless = match score {
                Some(Score::Centipawns(cp)) => cp <= -resign.score_cp,
                Some(Score::Mate(moves)) => moves < 0,
                None => false,
            };
            self.hopeless_moves[side] = if hopeless { self.hopeless_moves[side] + 1 } else { 0 };
            if self.hopeless_moves[side] >= resign.move_count {
                return Some(Verdict::Resign { white_lost: white_moved });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_needs_both_sides_level_for_long_enough_after_the_start_move() {
        let draw = DrawAdjudication { from_move: 3, move_count: 2, score_cp: 10 };
        let mut a = Adjudicator::new(Some(draw), None);
        let level = Some(Score::Centipawns(-5));
        assert_eq!(a.after_move(true, level, 1), None);
        assert_eq!(a.after_move(false, level, 2), None);
        assert_eq!(a.after_move(true, level, 2), None);
        assert_eq!(a.after_move(false, level, 3), Some(Verdict::Draw));
        let mut b = Adjudicator::new(Some(draw), None);
        for (white, fullmove) in [(true, 5), (false, 6), (true, 6)] {
            assert_eq!(b.after_move(white, level, fullmove), None);
        }
        assert_eq!(b.after_move(false, Some(Score::Centipawns(11)), 7), None);
        assert_eq!(b.after_move(true, level, 7), None);
    }

    #[test]
    fn resign_counts_only_the_losing_sides_own_moves() {
        let resign = ResignAdjudication { move_count: 2, score_cp: 500 };
        let mut a = Adjudicator::new(None, Some(resign));
        assert_eq!(a.after_move(true, Some(Score::Centipawns(-600)), 1), None);
        assert_eq!(a.after_move(false, Some(Score::Centipawns(600)), 2), None);
        assert_eq!(a.after_move(true, Some(Score::Mate(-4)), 2), Some(Verdict::Resign { white_lost: true }));
        let mut b = Adjudicator::new(None, Some(resign));
        assert_eq!(b.after_move(false, Some(Score::Centipawns(-600)), 1), None);
        assert_eq!(b.after_move(false, Some(Score::Centipawns(-499)), 2), None);
        assert_eq!(b.after_move(false, None, 3), None);
    }
}
