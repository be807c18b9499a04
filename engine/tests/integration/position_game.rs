//! GameState against hand-worked games: parsing errors, game ply, repetition counts, lc0's en-passant
//! identity, and game-over detection.

use engine::position::{GameOutcome, GameState, PositionError};
use shakmaty::Color;

fn game(fen: Option<&str>, moves: &str) -> GameState {
    let moves: Vec<&str> = moves.split_whitespace().collect();
    GameState::from_uci(fen, &moves).unwrap()
}

#[test]
fn errors_name_the_bad_fen_or_the_illegal_move_and_its_index() {
    let error = GameState::from_uci(Some("not a fen"), &[]).unwrap_err();
    assert!(matches!(&error, PositionError::FenSyntax { fen, .. } if fen == "not a fen"), "{error}");
    let error = GameState::from_uci(Some("8/8/8/8/8/8/8/8 w - - 0 1"), &[]).unwrap_err();
    assert!(matches!(error, PositionError::FenPosition { .. }), "{error}");
    let error = GameState::from_uci(None, &["e2e4", "e7e5", "e1e3"]).unwrap_err();
    assert!(matches!(&error, PositionError::IllegalMove { index: 2, text, .. } if text == "e1e3"), "{error}");
    assert!(error.to_string().contains("move 2 \"e1e3\""));
    let error = GameState::from_uci(None, &["e2e4", "xyz"]).unwrap_err();
    assert!(matches!(error, PositionError::MoveSyntax { index: 1, .. }));
}

#[test]
fn game_ply_counts_from_the_fen_move_number() {
    assert_eq!(game(None, "").game_ply(), 0);
    assert_eq!(game(None, "e2e4 e7e5 g1f3").game_ply(), 3);
    // Fullmove 10, black to move: 2·9 + 1 = 19, plus two moves.
    assert_eq!(
        game(Some("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 10"), "g8f6 b1c3").game_ply(),
        21
    );
}

#[test]
fn repetitions_follow_lc0s_scan() {
    let shuffle = "g1f3 g8f6 f3g1 f6g8";
    let once = game(None, shuffle);
    let reps: Vec<u32> = once.history().iter().map(|e| e.repetitions).collect();
    assert_eq!(reps, vec![0, 0, 0, 0, 1]);
    assert_eq!(once.position_history().last_cycle_length(), 4);
    assert_eq!(once.outcome(), None);
    let twice = game(None, &format!("{shuffle} {shuffle}"));
    assert_eq!(twice.history().last().unwrap().repetitions, 2);
    assert_eq!(twice.outcome(), Some(GameOutcome::ThreefoldRepetition));
}

#[test]
fn castling_rights_are_part_of_the_identity() {
    // The king walks away and back: same squares, but castling rights are gone, so no repetition.
    let g = game(Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "e1f1 e8f8 f1e1 f8e8");
    assert_eq!(g.history().last().unwrap().repetitions, 0);
    // A second shuffle repeats the rights-less position.
    let g = game(Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "e1f1 e8f8 f1e1 f8e8 e1f1 e8f8 f1e1 f8e8");
    assert_eq!(g.history().last().unwrap().repetitions, 1);
}

#[test]
fn en_passant_flag_counts_only_when_an_enemy_pawn_attacks() {
    // After 1. e4 no black pawn can take en passant, so the flag is unset: the position after 1. e4 Nf6
    // 2. Nf3 Ng8 3. Ng1 Nf6 4. Nf3 ... is compared without it. Here the e4 position recurs after four knight
    // moves and must count as a repetition.
    let g = game(None, "e2e4 g8f6 g1f3 f6g8 f3g1");
    assert_eq!(g.history().last().unwrap().repetitions, 1);
    // With a black pawn on d4, the flag after e2e4 is set, so the same board later (flag gone) is new.
    let fen = "rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let g = game(Some(fen), "e2e4 g8f6 g1f3 f6g8 f3g1");
    assert_eq!(g.history().last().unwrap().repetitions, 0);
}

#[test]
fn game_over_by_the_rules() {
    let mated = game(None, "f2f3 e7e5 g2g4 d8h4");
    assert_eq!(mated.outcome(), Some(GameOutcome::Checkmate { winner: Color::Black }));
    assert_eq!(game(Some("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), "").outcome(), Some(GameOutcome::Stalemate));
    assert_eq!(game(Some("8/8/8/4k3/8/8/8/3NK3 w - - 0 1"), "").outcome(), Some(GameOutcome::InsufficientMaterial));
    assert_eq!(game(Some("8/8/8/4k3/8/8/8/2NNK3 w - - 0 1"), "").outcome(), None);
    let fifty = game(Some("8/8/8/4k3/8/8/8/R3K3 w - - 99 80"), "a1a2");
    assert_eq!(fifty.outcome(), Some(GameOutcome::FiftyMoveRule));
    // Mate on the hundredth ply is mate, not a draw.
    let mate_at_fifty = game(Some("7k/8/6K1/8/8/8/8/R7 w - - 99 80"), "a1a8");
    assert_eq!(mate_at_fifty.outcome(), Some(GameOutcome::Checkmate { winner: Color::White }));
}

#[test]
fn a_continuation_has_the_same_start_and_the_earlier_moves_as_a_prefix() {
    let start = game(None, "");
    let one = game(None, "e2e4");
    let two = game(None, "e2e4 e7e5");
    let other = game(None, "d2d4");
    let fen = game(Some("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"), "");
    assert!(two.continues(&start) && two.continues(&one) && two.continues(&two));
    assert!(!one.continues(&two) && !other.continues(&one) && !fen.continues(&start));
}

#[test]
fn before_last_move_is_the_game_one_move_shorter_with_its_history() {
    let fen = Some("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1");
    let before = game(fen, "e2e4 e5d6 e1e2").before_last_move().unwrap();
    let expected = game(fen, "e2e4 e5d6");
    assert_eq!(before.moves(), expected.moves());
    assert_eq!(before.game_ply(), expected.game_ply());
    assert_eq!(before.history().len(), expected.history().len());
    assert!(before.position() == expected.position());
    assert!(game(fen, "e2e4 e5d6 e1e2").continues(&before));
    assert!(game(fen, "").before_last_move().is_none(), "a game without moves has no earlier position");
}

#[test]
fn piece_placement_is_the_boards_fen_field() {
    assert_eq!(game(None, "").piece_placement().to_string(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
    // 1. e4 d5 2. exd5 Nf6 3. Nf3 Nxd5 4. Be2 e6 5. O-O: captures, and castling moves king and rook together.
    assert_eq!(
        game(None, "e2e4 d7d5 e4d5 g8f6 g1f3 f6d5 f1e2 e7e6 e1g1").piece_placement().to_string(),
        "rnbqkb1r/ppp2ppp/4p3/3n4/8/5N2/PPPPBPPP/RNBQ1RK1"
    );
    let ending = game(Some("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"), "e7e8n");
    assert_eq!(ending.piece_placement().to_string(), "4N3/6k1/8/8/8/8/8/4K3", "an under-promotion");
}
