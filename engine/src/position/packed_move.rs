//! A legal move in 16 bits, as lc0 keeps one in a tree edge: the squares and the kind of move, with the moving
//! and captured pieces left to the position it is played from. Half the bytes of a `shakmaty::Move`, which is
//! what makes an edge 4 bytes.

use shakmaty::{Board, Move, Role, Square};

/// A chess move packed into 16 bits; [`PackedMove::unpack`] restores it against its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedMove(u16);

/// Bits 12–14: what kind of move the squares describe.
const NORMAL: u16 = 0;
const PROMOTION_BASE: u16 = 1;
const EN_PASSANT: u16 = 5;
const CASTLE: u16 = 6;

const PROMOTION_ROLES: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

impl PackedMove {
    /// Packs a move of standard chess. Drops (`Move::Put`) exist only in crazyhouse, which Kairos does not
    /// play, so none reaches here.
    pub fn pack(mv: &Move) -> Self {
        let (from, to, kind) = match *mv {
            Move::Normal { from, to, promotion: None, .. } => (from, to, NORMAL),
            Move::Normal { from, to, promotion: Some(role), .. } => {
                let index = PROMOTION_ROLES.iter().position(|&r| r == role).unwrap_or(3);
                (from, to, PROMOTION_BASE + index as u16)
            }
            Move::EnPassant { from, to } => (from, to, EN_PASSANT),
            Move::Castle { king, rook } => (king, rook, CASTLE),
            Move::Put { .. } => unreachable!("a drop is a crazyhouse move; standard chess has none"),
        };
        Self(u16::from(from) | u16::from(to) << 6 | kind << 12)
    }

    /// The move on `board`, the board of the position it was packed from: the moving and captured pieces
    /// are read from it.
    pub fn unpack(self, board: &Board) -> Move {
        let from = self.from();
        let to = self.to();
        match self.kind() {
            EN_PASSANT => Move::EnPassant { from, to },
            CASTLE => Move::Castle { king: from, rook: to },
            kind => Move::Normal {
                role: board.role_at(from).unwrap_or(Role::Pawn),
                from,
                capture: board.role_at(to),
                to,
                promotion: (kind != NORMAL).then(|| PROMOTION_ROLES[usize::from(kind - PROMOTION_BASE)]),
            },
        }
    }

    fn from(self) -> Square {
        Square::new(u32::from(self.0 & 0x3f))
    }

    fn to(self) -> Square {
        Square::new(u32::from(self.0 >> 6 & 0x3f))
    }

    fn kind(self) -> u16 {
        self.0 >> 12 & 0x7
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::game::parse_fen;
    use shakmaty::{Chess, Position};

    fn position(fen: &str) -> Chess {
        parse_fen(fen).unwrap()
    }

    /// Every legal move of positions with castling, en passant, promotions with and without capture, and
    /// ordinary captures survives packing, and distinct moves pack to distinct values.
    #[test]
    fn every_legal_move_round_trips_and_packs_uniquely() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ];
        let mut moves_seen = 0;
        for fen in fens {
            let pos = position(fen);
            let legal = pos.legal_moves();
            let packed: Vec<PackedMove> = legal.iter().map(PackedMove::pack).collect();
            for (mv, p) in legal.iter().zip(&packed) {
                assert_eq!(p.unpack(pos.board()), *mv, "{fen}: {mv:?}");
            }
            let mut distinct = packed.clone();
            distinct.sort_by_key(|p| p.0);
            distinct.dedup();
            assert_eq!(distinct.len(), packed.len(), "{fen}");
            moves_seen += legal.len();
        }
        assert_eq!(moves_seen, 20 + 48 + 6 + 44 + 31 + 24, "perft(1) of the positions");
    }

    #[test]
    fn a_packed_move_is_two_bytes() {
        assert_eq!(std::mem::size_of::<PackedMove>(), 2);
    }
}
