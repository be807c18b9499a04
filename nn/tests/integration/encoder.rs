//! Input planes worked out by hand (docs/lc0/network.md §5.9): history fill, the en-passant undo in the fill
//! copies, perspective, repetitions, rule-50 and the castling planes of formats 1 and 2.

use nn::encoder::{encode_position, HistoryFill, InputPlanes};
use nn::game_history;
use nn::network::InputFormat;

const RANK_2: u64 = 0xff00;
const RANK_7: u64 = 0x00ff_0000_0000_0000;
const ALL: u64 = !0;

fn planes(fen: &str, moves: &[&str], format: InputFormat) -> InputPlanes {
    let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    encode_position(&game_history(fen, &moves).unwrap(), format, HistoryFill::FenOnly).unwrap().planes
}

fn filled_slots(p: &InputPlanes) -> usize {
    (0..8).filter(|slot| p[slot * 13..slot * 13 + 12].iter().any(|plane| plane.mask != 0)).count()
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn start_position_fills_only_known_slots() {
    assert_eq!(filled_slots(&planes(START, &[], InputFormat::Classical)), 1);
    assert_eq!(filled_slots(&planes(START, &["e2e4", "e7e5"], InputFormat::Classical)), 3);
    assert_eq!(filled_slots(&planes("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", &[], InputFormat::Classical)), 8);
}

fn planes_with_fill(fen: &str, moves: &[&str], fill: HistoryFill) -> InputPlanes {
    let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    encode_position(&game_history(fen, &moves).unwrap(), InputFormat::Classical, fill).unwrap().planes
}

#[test]
fn always_fills_after_the_start_position_and_no_never_fills() {
    let start_board: [u64; 12] =
        [RANK_2, 0x42, 0x24, 0x81, 0x08, 0x10, RANK_7, 0x42 << 56, 0x24 << 56, 0x81 << 56, 0x08 << 56, 0x10 << 56];
    let p = planes_with_fill(START, &[], HistoryFill::Always);
    for slot in 0..8 {
        let pieces: Vec<u64> = p[slot * 13..slot * 13 + 12].iter().map(|plane| plane.mask).collect();
        assert_eq!(pieces, start_board, "slot {slot}: the start position");
    }
    let after_e4_e5 = |fill| filled_slots(&planes_with_fill(START, &["e2e4", "e7e5"], fill));
    assert_eq!(after_e4_e5(HistoryFill::Always), 8, "two moves and six copies of the start position");
    assert_eq!(after_e4_e5(HistoryFill::FenOnly), 3);
    assert_eq!(after_e4_e5(HistoryFill::No), 3);
    let endgame = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1";
    assert_eq!(filled_slots(&planes_with_fill(endgame, &[], HistoryFill::No)), 1, "a FEN, no copies");
    assert_eq!(filled_slots(&planes_with_fill(endgame, &["e1d1"], HistoryFill::No)), 2);
    assert_eq!(filled_slots(&planes_with_fill(endgame, &["e1d1"], HistoryFill::Always)), 8);
}

#[test]
fn no_fill_keeps_one_copy_with_the_double_push_undone_after_a_fen_with_an_en_passant_square() {
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2";
    let p = planes_with_fill(fen, &[], HistoryFill::No);
    assert_eq!(filled_slots(&p), 2, "the position and the one before its double push");
    assert_eq!(p[6].mask, RANK_7 & !(1 << 52) | 1 << 36, "now: their pawn on e5");
    assert_eq!(p[13 + 6].mask, RANK_7, "before: their pawn back on e7");
    let after_a_move = planes_with_fill(fen, &["g1f3"], HistoryFill::No);
    assert_eq!(filled_slots(&after_a_move), 3, "the game's two positions and the undone push");
    assert_eq!(after_a_move[2 * 13].mask, RANK_2, "black to move: our (black's) pawns seen from black, e7 back");
}

#[test]
fn fill_copies_undo_the_double_push_for_white_to_move() {
    let p = planes("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2", &[], InputFormat::Classical);
    let black_pawns_now = RANK_7 & !(1 << 52) | 1 << 36;
    assert_eq!(p[6].mask, black_pawns_now, "the current slot shows the pushed pawn");
    for slot in 1..8 {
        assert_eq!(p[slot * 13 + 6].mask, RANK_7, "slot {slot}: their e-pawn back on e7");
        assert_eq!(p[slot * 13].mask, RANK_2 & !(1 << 12) | 1 << 28, "slot {slot}: our pawns unchanged");
    }
}

#[test]
fn fill_copies_undo_the_double_push_for_black_to_move() {
    let p = planes("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", &[], InputFormat::Classical);
    assert_eq!(p[0].mask, RANK_2, "our (black) pawns, mirrored to rank 2");
    assert_eq!(p[6].mask, RANK_7 & !(1 << 52) | 1 << 36, "their e4 pawn mirrored to e5");
    for slot in 1..8 {
        assert_eq!(p[slot * 13 + 6].mask, RANK_7, "slot {slot}: their pawn back on e2 (e7 mirrored)");
    }
    assert_eq!(p[108].mask, ALL, "black to move");
}

#[test]
fn repetitions_set_the_repetition_plane() {
    let p = planes(START, &["g1f3", "g8f6", "f3g1", "f6g8"], InputFormat::Classical);
    assert_eq!(p[12].mask, ALL, "the current position occurred before");
    assert_eq!(p[4 * 13 + 12].mask, 0, "the first occurrence is not a repetition");
    assert_eq!(filled_slots(&p), 5);
}

#[test]
fn auxiliary_planes_of_the_classical_format() {
    let p = planes("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 57 40", &[], InputFormat::Classical);
    let masks: Vec<u64> = p[104..112].iter().map(|plane| plane.mask).collect();
    assert_eq!(masks[..5], [ALL, 0, 0, ALL, ALL], "we (black) castle queenside, they kingside; black to move");
    assert_eq!((p[109].mask, p[109].value), (ALL, 57.0), "raw rule-50 counter");
    assert!(p[110].mask == 0 || p[110].value == 0.0, "plane 110 is all zeros");
    assert_eq!((p[111].mask, p[111].value), (ALL, 1.0));
}

#[test]
fn castling_plane_format_marks_rook_squares() {
    let white = planes("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", &[], InputFormat::CastlingPlane);
    assert_eq!(white[104].mask, 1 << 56, "a8 rook keeps a queenside right");
    assert_eq!(white[105].mask, 1 << 7, "h1 rook keeps a kingside right");
    assert_eq!((white[106].mask, white[107].mask), (0, 0));
    let black = planes("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1", &[], InputFormat::CastlingPlane);
    assert_eq!(black[104].mask, 1, "a8 mirrored to a1");
    assert_eq!(black[105].mask, 1 << 63, "h1 mirrored to h8");
}

#[test]
fn empty_history_has_no_encoding() {
    assert!(encode_position(&[], InputFormat::Classical, HistoryFill::FenOnly).is_none());
}

/// Random games that often move a piece back where it came from (so positions repeat) and run long without a
/// capture or pawn move (so the V2 formats look far back), from four starts: the initial position, kiwipete, a FEN
/// with an en-passant square, and one with a fifty-move counter already at 40.
fn shuffling_games() -> Vec<Vec<nn::backend::HistoryEntry>> {
    use rand::{Rng, SeedableRng};
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, Chess, Position};
    let starts = [
        START,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "4k3/2r5/8/3n4/8/2N5/5R2/4K3 b - - 40 70",
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut games = Vec::new();
    for (number, fen) in starts.iter().cycle().take(12).enumerate() {
        let setup: Fen = fen.parse().unwrap();
        let mut position: Chess = setup.into_position(CastlingMode::Standard).unwrap();
        let mut played: Vec<shakmaty::Move> = Vec::new();
        for _ in 0..60 + 20 * number {
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            let back = played.len().checked_sub(2).map(|i| &played[i]).and_then(|earlier| {
                legal.iter().find(|m| m.from() == Some(earlier.to()) && Some(m.to()) == earlier.from())
            });
            let m = match back {
                Some(&m) if rng.random_bool(0.6) => m,
                _ => legal[rng.random_range(0..legal.len())],
            };
            position.play_unchecked(m);
            played.push(m);
        }
        let moves: Vec<String> = played.iter().map(|m| UciMove::from_standard(*m).to_string()).collect();
        games.push(game_history(fen, &moves).unwrap());
    }
    games
}

#[test]
fn the_history_copied_for_a_batch_encodes_as_the_whole_game_in_every_format() {
    use nn::encoder::copy_read_history;
    let formats = [
        InputFormat::Classical,
        InputFormat::CastlingPlane,
        InputFormat::Canonical,
        InputFormat::CanonicalHectoplies,
        InputFormat::CanonicalHectopliesArmageddon,
        InputFormat::CanonicalV2,
        InputFormat::CanonicalV2Armageddon,
    ];
    let (mut shortened, mut repeated) = (0, 0);
    for (number, game) in shuffling_games().into_iter().enumerate() {
        for end in 1..=game.len() {
            let whole = &game[..end];
            repeated += usize::from(whole[end - 1].repetitions > 0);
            for format in formats {
                let mut copy = Vec::new();
                copy_read_history(whole, format, &mut copy);
                shortened += usize::from(copy.len() < whole.len());
                for fill in HistoryFill::ALL {
                    assert_eq!(
                        encode_position(&copy, format, fill),
                        encode_position(whole, format, fill),
                        "{format:?}, {fill:?}, position {end} of game {number}"
                    );
                }
            }
        }
    }
    assert!(
        shortened > 1000 && repeated > 50,
        "the games exercise the copy: {shortened} shortened, {repeated} repeated"
    );
}
