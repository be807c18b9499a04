//! The thesis's input: 768 one-hot piece-square values and the player's material, seen from the player whose
//! time is predicted, so that player is always "player 1" at the bottom of the board. `kairos tm-data` writes
//! these for training and the `ctm` manager computes them at play time: one implementation for both.
//!
//! Index of a piece: `(side · 6 + role) · 64 + square`, side 0 for the player's pieces and 1 for the
//! opponent's, role 0–5 for pawn, knight, bishop, rook, queen, king, square 0–63 from a1, b1, … to h8 after
//! flipping the board top to bottom when the player is Black. Index 768 is the player's piece count (kings
//! and pawns included: 16 at the start), the thesis's "material".

use super::placement::{Colour, PiecePlacement};

/// The 12 piece planes × 64 squares.
pub const BOARD_FEATURES: usize = 768;
/// The full input: the planes and the material.
pub const FEATURES: usize = BOARD_FEATURES + 1;

/// The indices of the one-hot entries, one per piece on the board, in ascending order.
pub fn one_hot_indices(placement: &PiecePlacement, player: Colour) -> Vec<usize> {
    let mut indices: Vec<usize> = placement
        .pieces()
        .map(|(square, piece)| {
            // Flipping top to bottom keeps the file and mirrors the rank: square ^ 56.
            let square = if player == Colour::Black { square ^ 56 } else { square };
            let side = usize::from(piece.colour != player);
            (side * 6 + piece.role.index()) * 64 + square
        })
        .collect();
    indices.sort_unstable();
    indices
}

/// The player's number of pieces, kings and pawns included.
pub fn material(placement: &PiecePlacement, player: Colour) -> u8 {
    placement.pieces().filter(|(_, piece)| piece.colour == player).count() as u8
}

/// The 769 input values of one position as bytes (0/1, then the material).
pub fn encode(placement: &PiecePlacement, player: Colour) -> [u8; FEATURES] {
    let mut values = [0u8; FEATURES];
    for index in one_hot_indices(placement, player) {
        values[index] = 1;
    }
    values[BOARD_FEATURES] = material(placement, player);
    values
}
