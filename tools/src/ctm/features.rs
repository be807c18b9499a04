//! The thesis's input: 768 one-hot piece-square values and the player's material, seen from the player whose
//! time is predicted (the winner), so that player is always "player 1" at the bottom of the board.
//!
//! Index of a piece: `(side · 6 + role) · 64 + square`, side 0 for the player's pieces and 1 for the
//! opponent's, role 0–5 for pawn, knight, bishop, rook, queen, king, square 0–63 from a1, b1, … to h8 after
//! flipping the board top to bottom when the player is Black. Index 768 is the player's piece count (kings
//! and pawns included: 16 at the start), the thesis's "material".

use shakmaty::{Board, Color, Role};

/// The 12 piece planes × 64 squares.
pub const BOARD_FEATURES: usize = 768;
/// The full input: the planes and the material.
pub const FEATURES: usize = BOARD_FEATURES + 1;

/// 0–5 for pawn … king.
fn role_index(role: Role) -> usize {
    match role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}

/// The indices of the one-hot entries, one per piece on the board, in ascending order.
pub fn one_hot_indices(board: &Board, player: Color) -> Vec<usize> {
    let mut indices: Vec<usize> = board
        .iter()
        .map(|(square, piece)| {
            let square = if player == Color::Black { square.flip_vertical() } else { square };
            let side = usize::from(piece.color != player);
            (side * 6 + role_index(piece.role)) * 64 + square.to_usize()
        })
        .collect();
    indices.sort_unstable();
    indices
}

/// The player's number of pieces, kings and pawns included.
pub fn material(board: &Board, player: Color) -> u8 {
    board.by_color(player).count() as u8
}

/// The 769 input values of one position as bytes (0/1, then the material).
pub fn encode(board: &Board, player: Color) -> [u8; FEATURES] {
    let mut values = [0u8; FEATURES];
    for index in one_hot_indices(board, player) {
        values[index] = 1;
    }
    values[BOARD_FEATURES] = material(board, player);
    values
}
