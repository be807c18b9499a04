//! The 112 input planes (LC0-NOTES §5.9): 8 history slots of 13 planes from the side to move's view,
//! lc0's `fen_only` history fill with its en-passant undo, and the auxiliary planes of input formats 1
//! and 2.

use shakmaty::{Bitboard, CastlingSide, Chess, Color, Position, Role, Square};

use crate::backend::HistoryEntry;
use crate::network::InputFormat;

/// The number of input planes.
pub const PLANES: usize = 112;
const HISTORY_SLOTS: usize = 8;
const PLANES_PER_SLOT: usize = 13;
const AUX: usize = HISTORY_SLOTS * PLANES_PER_SLOT;
const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// One input plane: `value` on the squares of `mask` (bit = square, a1 = 0), zero elsewhere.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Plane {
    /// The squares set.
    pub mask: u64,
    /// Their value.
    pub value: f32,
}

impl Plane {
    fn ones(mask: u64) -> Self {
        Self { mask, value: 1.0 }
    }
}

/// The encoded input of one position.
pub type InputPlanes = [Plane; PLANES];

/// Encodes a position with its history; `None` when the history is empty.
pub fn encode_position(history: &[HistoryEntry], format: InputFormat) -> Option<InputPlanes> {
    let current = &history.last()?.position;
    let us = current.turn();
    let mirror = |mask: Bitboard| {
        if us == Color::Black {
            mask.flip_vertical().0
        } else {
            mask.0
        }
    };
    let mut planes = [Plane::default(); PLANES];

    let castles = current.castles();
    match format {
        InputFormat::Classical => {
            let right = |color, side| {
                if castles.has(color, side) {
                    Plane::ones(!0)
                } else {
                    Plane::default()
                }
            };
            planes[AUX] = right(us, CastlingSide::QueenSide);
            planes[AUX + 1] = right(us, CastlingSide::KingSide);
            planes[AUX + 2] = right(!us, CastlingSide::QueenSide);
            planes[AUX + 3] = right(!us, CastlingSide::KingSide);
        }
        InputFormat::CastlingPlane => {
            let rooks = |side| {
                let squares = [Color::White, Color::Black]
                    .into_iter()
                    .filter_map(|color| castles.rook(color, side))
                    .fold(Bitboard::EMPTY, |acc, sq| acc | Bitboard::from_square(sq));
                Plane::ones(mirror(squares))
            };
            planes[AUX] = rooks(CastlingSide::QueenSide);
            planes[AUX + 1] = rooks(CastlingSide::KingSide);
        }
    }
    if us == Color::Black {
        planes[AUX + 4] = Plane::ones(!0);
    }
    planes[AUX + 5] = Plane {
        mask: !0,
        value: current.halfmoves() as f32,
    };
    planes[AUX + 7] = Plane::ones(!0);

    let first = &history[0];
    let fill_allowed = !is_start_position(&first.position);
    for slot in 0..HISTORY_SLOTS {
        let (entry, synthesized) = match history.len().checked_sub(slot + 1) {
            Some(index) => (&history[index], false),
            None if fill_allowed => (first, true),
            None => break,
        };
        let board = entry.position.board();
        let base = slot * PLANES_PER_SLOT;
        for (offset, role) in ROLES.iter().enumerate() {
            planes[base + offset] = Plane::ones(mirror(board.by_role(*role) & board.by_color(us)));
            planes[base + 6 + offset] =
                Plane::ones(mirror(board.by_role(*role) & board.by_color(!us)));
        }
        if entry.repetitions >= 1 {
            planes[base + 12] = Plane::ones(!0);
        }
        if synthesized {
            if let Some(ep) = entry.position.maybe_ep_square() {
                undo_double_push(&mut planes, base, ep, entry.position.turn(), us, &mirror);
            }
        }
    }
    Some(planes)
}

/// Puts the pawn that made the double push recorded by `ep` back on its starting square.
fn undo_double_push(
    planes: &mut InputPlanes,
    base: usize,
    ep: Square,
    turn_at_ep: Color,
    us: Color,
    mirror: &dyn Fn(Bitboard) -> u64,
) {
    let pusher = !turn_at_ep;
    let (to, from) = match pusher {
        Color::White => (u32::from(ep) + 8, u32::from(ep) - 8),
        Color::Black => (u32::from(ep) - 8, u32::from(ep) + 8),
    };
    let plane = if pusher == us { base } else { base + 6 };
    let moved = mirror(Bitboard(1 << to));
    let origin = mirror(Bitboard(1 << from));
    planes[plane].mask = (planes[plane].mask & !moved) | origin;
}

fn is_start_position(position: &Chess) -> bool {
    let start = Chess::default();
    position.board() == start.board()
        && position.turn() == Color::White
        && position.castles().castling_rights() == start.castles().castling_rights()
        && position.maybe_ep_square().is_none()
}

/// Writes the planes as a dense `[112][8][8]` f32 tensor into `out` (length 112·64).
pub fn write_dense(planes: &InputPlanes, out: &mut [f32]) {
    for (plane, chunk) in planes.iter().zip(out.chunks_exact_mut(64)) {
        for (square, value) in chunk.iter_mut().enumerate() {
            *value = if plane.mask >> square & 1 == 1 {
                plane.value
            } else {
                0.0
            };
        }
    }
}
