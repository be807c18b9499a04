//! Legal moves to policy indices in the side-to-move frame: castling as king takes rook, black mirrored.

use nn::encoder::BoardTransform;
use nn::policy_map::{move_policy_index, TransposedMoves};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess};

fn index(fen: &str, uci: &str) -> Option<usize> {
    let position: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
    let m = uci.parse::<UciMove>().unwrap().to_move(&position).unwrap();
    move_policy_index(&m, shakmaty::Position::turn(&position), BoardTransform::IDENTITY, TransposedMoves::AsPlanes)
}

#[test]
fn castling_is_king_takes_rook_in_both_colours() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    assert_eq!(index(fen, "e1g1"), Some(103));
    assert_eq!(index(fen, "e1c1"), Some(97));
    let black = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1";
    assert_eq!(index(black, "e8g8"), Some(103));
    assert_eq!(index(black, "e8c8"), Some(97));
}

#[test]
fn black_moves_are_mirrored_and_promotions_mapped() {
    assert_eq!(index("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "e7e5"), Some(322));
    let promotion = "8/P6k/8/8/8/8/p6K/8 w - - 0 1";
    assert_eq!(index(promotion, "a7a8q"), Some(1792));
    assert_eq!(index(promotion, "a7a8n"), Some(1401));
    assert_eq!(index("8/P6k/8/8/8/8/p6K/8 b - - 0 1", "a2a1r"), Some(1793));
}
