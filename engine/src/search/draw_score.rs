//! lc0's `DrawScore`: what a draw is worth, given from white's view and seen by the player to move at each
//! depth of the tree (`Search::GetDrawScore` in src/search/classic/search.cc 423–427). Q = WL + draw score · D.

use shakmaty::Color;

/// The draw score of one search, resolved against the root's side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DrawScore {
    /// For the player to move at the root.
    root: f32,
}

impl DrawScore {
    /// `white_view` is the `DrawScore` option (−1: Armageddon, a draw loses for white).
    pub fn new(white_view: f32, root_turn: Color) -> Self {
        Self { root: if root_turn == Color::White { white_view } else { -white_view } }
    }

    /// For the player to move at a node `plies` below the root (lc0's GetDrawScore(plies odd)).
    pub fn at(self, plies: usize) -> f32 {
        if plies.is_multiple_of(2) {
            self.root
        } else {
            -self.root
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draw_score_alternates_with_the_player_to_move() {
        // Armageddon (−1, white must win): white to move at the root values a draw at −1, black at +1.
        let white_root = DrawScore::new(-1.0, Color::White);
        assert_eq!((white_root.at(0), white_root.at(1), white_root.at(2)), (-1.0, 1.0, -1.0));
        let black_root = DrawScore::new(-1.0, Color::Black);
        assert_eq!((black_root.at(0), black_root.at(1)), (1.0, -1.0));
    }
}
