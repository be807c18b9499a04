//! A position's legal moves in the order lc0's move generator lists them (board.cc, `GeneratePseudolegalMoves`),
//! the order lc0 gives a node's edges before it sorts them by prior. Where two priors tie, that order (and lc0's
//! `std::sort`) decides which edge PUCT meets first, so a search visit for visit with lc0's needs it.
//! Checked against lc0's own generator (reference/lc0-move-order.json).

use shakmaty::{Color, Move, Role, Square};

/// Fills `order` with the indices of `moves`, the legal moves (at most 256) of a position with `turn` to move, in
/// lc0's order.
pub fn lc0_move_order(moves: &[Move], turn: Color, order: &mut Vec<u32>) {
    // Integer keys, the rank above the move's index, sort several times faster than the moves by their rank.
    order.clear();
    order.extend(moves.iter().zip(0..).map(|(mv, index)| u32::from(lc0_generation_rank(mv, turn)) << 8 | index));
    order.sort_unstable();
    for key in order.iter_mut() {
        *key &= 0xFF;
    }
}

/// Where `mv` stands in lc0's list of the legal moves of a position with `turn` to move, lowest first. lc0 walks
/// the side to move's pieces from its own first rank up (a1 to h8 for white, a8 to h1 for black) and lists each
/// piece's moves together: a king's steps then its castlings (queenside first), a queen's rook-line moves then its
/// bishop-line moves, each by target square; a pawn's push, double push or promotions, then its capture to the
/// lower file, then to the higher one, promotions queen, rook, bishop, knight.
fn lc0_generation_rank(mv: &Move, turn: Color) -> u16 {
    let relative = |square: Square| u16::from(if turn == Color::White { square } else { square.flip_vertical() });
    let from = mv.from().unwrap_or(mv.to());
    let to = mv.to();
    let within_piece = match *mv {
        Move::Castle { king, rook } => 64 + u16::from(rook.file() > king.file()),
        Move::Normal { role: Role::Pawn, .. } | Move::EnPassant { .. } => {
            let promotion = match mv.promotion() {
                None | Some(Role::Queen) => 0,
                Some(Role::Rook) => 1,
                Some(Role::Bishop) => 2,
                Some(_) => 3,
            };
            if to.file() == from.file() {
                let double_push = u32::from(from.rank()).abs_diff(u32::from(to.rank())) == 2;
                if double_push {
                    1
                } else if mv.is_promotion() {
                    2 + promotion
                } else {
                    0
                }
            } else if to.file() < from.file() {
                8 + promotion
            } else {
                16 + promotion
            }
        }
        Move::Normal { role: Role::Queen, .. } if from.file() != to.file() && from.rank() != to.rank() => {
            64 + relative(to)
        }
        _ => relative(to),
    };
    relative(from) << 7 | within_piece
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{chess_from_fen, uci_move};
    use serde_json::Value;
    use shakmaty::fen::Fen;
    use shakmaty::Position;

    #[test]
    fn legal_moves_come_in_lc0s_generator_order() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/lc0-move-order.json");
        let reference: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let positions = reference["positions"].as_array().unwrap();
        assert!(positions.len() > 350, "{} positions", positions.len());
        for position in positions {
            let fen = position["fen"].as_str().unwrap();
            // perft.epd holds a few checks no legal game reaches, which Kairos refuses as positions; lc0 and shakmaty
            // generate their moves all the same.
            let chess = match chess_from_fen(fen.parse::<Fen>().unwrap()) {
                Ok(chess) => chess,
                Err(error) => error.ignore_impossible_check().unwrap(),
            };
            let legal = chess.legal_moves();
            let mut order = Vec::new();
            lc0_move_order(&legal, chess.turn(), &mut order);
            let ours: Vec<String> = order.iter().map(|&index| uci_move(&legal[index as usize], true)).collect();
            let lc0s: Vec<&str> = position["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
            assert_eq!(ours, lc0s, "{fen}");
        }
    }
}
