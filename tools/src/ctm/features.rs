//! The thesis's 769 inputs of a shakmaty position: the board handed to [`timemgr::ctm::features`], the one
//! implementation that `tm-data` writes for training and the `ctm` manager computes at play time.

use shakmaty::{Board, Color, Square};
use timemgr::ctm::{features, Colour, Piece, PiecePlacement};

pub use timemgr::ctm::features::{BOARD_FEATURES, FEATURES};

/// The board's pieces as timemgr reads them (FEN letters carry them over).
pub fn placement(board: &Board) -> PiecePlacement {
    PiecePlacement::from_fn(|square| board.piece_at(Square::ALL[square]).and_then(|p| Piece::from_fen_char(p.char())))
}

fn colour(player: Color) -> Colour {
    if player == Color::White {
        Colour::White
    } else {
        Colour::Black
    }
}

/// The indices of the one-hot entries, one per piece on the board, in ascending order.
pub fn one_hot_indices(board: &Board, player: Color) -> Vec<usize> {
    features::one_hot_indices(&placement(board), colour(player))
}

/// The player's number of pieces, kings and pawns included.
pub fn material(board: &Board, player: Color) -> u8 {
    features::material(&placement(board), colour(player))
}

/// The 769 input values of one position as bytes (0/1, then the material).
pub fn encode(board: &Board, player: Color) -> [u8; FEATURES] {
    features::encode(&placement(board), colour(player))
}
