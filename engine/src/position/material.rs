//! lc0's mating-material rule, which differs from FIDE's dead-position rule (docs/lc0/search.md §4.7).

use shakmaty::{Bitboard, Chess, Position};

/// Whether either side could still mate, by lc0's rule: any rook, queen or pawn means yes; otherwise fewer
/// than four pieces means no; any knight means yes; only bishops mean yes iff they stand on both colours.
pub fn has_mating_material(position: &Chess) -> bool {
    let board = position.board();
    if (board.rooks() | board.queens() | board.pawns()).any() {
        return true;
    }
    if board.occupied().count() < 4 {
        return false;
    }
    if board.knights().any() {
        return true;
    }
    let bishops = board.bishops();
    (bishops & Bitboard::LIGHT_SQUARES).any() && (bishops & Bitboard::DARK_SQUARES).any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::game::parse_fen;

    fn position(fen: &str) -> Chess {
        parse_fen(fen).unwrap()
    }

    #[test]
    fn lc0_mating_material_rule() {
        assert!(!has_mating_material(&position("8/8/8/4k3/8/8/8/4K3 w - - 0 1")));
        assert!(!has_mating_material(&position("8/8/8/4k3/8/8/8/3NK3 w - - 0 1")));
        assert!(!has_mating_material(&position("8/8/8/4k3/8/8/8/3BK3 w - - 0 1")));
        assert!(has_mating_material(&position("8/8/8/4k3/8/8/8/2NNK3 w - - 0 1")));
        assert!(has_mating_material(&position("8/8/8/4k3/8/8/8/2NBK3 w - - 0 1")));
        assert!(has_mating_material(&position("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1")));
        // Bishops on one colour (c1 and e3 are both dark) cannot mate; on both colours they can.
        assert!(!has_mating_material(&position("8/8/8/4k3/8/4B3/8/2B1K3 w - - 0 1")));
        assert!(has_mating_material(&position("8/8/8/4k3/8/3B4/8/2B1K3 w - - 0 1")));
        assert!(!has_mating_material(&position("8/8/8/4k3/3b4/8/8/2B1K3 w - - 0 1")));
    }
}
