//! A FEN's position in every castling notation lc0 reads: standard, Shredder-FEN (`HAha`) and X-FEN (`KQkq` for
//! the outermost rooks, whatever their files), so that Chess960 and DFRC positions load wherever a FEN does.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, PositionError};

/// The position of `setup`: with standard castling rights if they are, else with Chess960's.
pub fn chess_from_fen(setup: Fen) -> Result<Chess, Box<PositionError<Chess>>> {
    match setup.clone().into_position(CastlingMode::Standard) {
        Ok(position) => Ok(position),
        Err(_) => setup.into_position(CastlingMode::Chess960).map_err(Box::new),
    }
}
