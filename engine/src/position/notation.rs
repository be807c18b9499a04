//! Moves in UCI notation as lc0 writes them (`Move::ToString` in lc0's src/chess/types.h): castling as
//! king-takes-rook when `UCI_Chess960` is on, and also when it is off unless it is a castling of standard
//! chess (king on the e-file, rook on the a- or h-file), which is written as the king's two-square move.

use shakmaty::{CastlingMode, File, Move};

/// `mv` in UCI notation; `chess960` is the `UCI_Chess960` option.
pub fn uci_move(mv: &Move, chess960: bool) -> String {
    let notation = match mv {
        Move::Castle { king, rook }
            if !chess960 && king.file() == File::E && matches!(rook.file(), File::A | File::H) =>
        {
            mv.to_uci(CastlingMode::Standard)
        }
        _ => mv.to_uci(CastlingMode::Chess960),
    };
    notation.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::GameState;
    use shakmaty::Position;

    fn castles(fen: &str) -> Vec<Move> {
        let game = GameState::from_uci(Some(fen), &[]).unwrap();
        game.position().legal_moves().into_iter().filter(|mv| mv.is_castle()).collect()
    }

    #[test]
    fn castling_is_written_as_lc0_writes_it() {
        // Standard chess: the king's two squares unless UCI_Chess960 is on.
        let standard = castles("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let written = |chess960| {
            let mut moves: Vec<String> = standard.iter().map(|mv| uci_move(mv, chess960)).collect();
            moves.sort();
            moves
        };
        assert_eq!(written(false), ["e1c1", "e1g1"]);
        assert_eq!(written(true), ["e1a1", "e1h1"]);
        // A Chess960 position (king b1, rooks a1 and h1): king takes rook either way, as lc0 does.
        let fischer = castles("r3k2r/8/8/8/8/8/8/RK5R w HAha - 0 1");
        let mut moves: Vec<String> = fischer.iter().map(|mv| uci_move(mv, false)).collect();
        moves.sort();
        assert_eq!(moves, ["b1a1", "b1h1"]);
    }
}
