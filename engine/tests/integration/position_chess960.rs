//! Chess960 positions as Kairos reads and writes them: the 960 start positions of the published Chess960 perft
//! suite (reference/chess960.perft, from the Chessprogramming wiki's "Chess960 Perft Results", as Ethereal and
//! shakmaty carry it) parse from their Shredder-FEN and give the published node counts, and every castling
//! move written in either notation reads back as the same move.

use engine::position::{uci_move, GameState};
use shakmaty::{Chess, Move, Position};

struct Case {
    fen: String,
    counts: Vec<u64>,
}

fn suite() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/chess960.perft")).unwrap();
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        if let Some(fen) = line.strip_prefix("epd ") {
            cases.push(Case { fen: fen.to_string(), counts: Vec::new() });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let count = rest.split_whitespace().nth(1).unwrap().parse().unwrap();
            cases.last_mut().unwrap().counts.push(count);
        }
    }
    cases
}

fn perft(position: &Chess, depth: u32) -> u64 {
    let moves = position.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|mv| {
            let mut next = position.clone();
            next.play_unchecked(*mv);
            perft(&next, depth - 1)
        })
        .sum()
}

#[test]
fn the_960_start_positions_give_the_published_perft_counts() {
    let cases = suite();
    assert_eq!(cases.len(), 960);
    for (index, case) in cases.iter().enumerate() {
        let game = GameState::from_uci(Some(&case.fen), &[]).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        // Depth 4 everywhere, depth 5 on every 40th position (the whole suite to depth 5 is 11 billion nodes).
        let depth = if index % 40 == 0 { 5 } else { 4 };
        assert_eq!(perft(game.position(), depth), case.counts[depth as usize - 1], "perft {depth} of {}", case.fen);
    }
}

#[test]
fn castling_reads_back_from_either_notation() {
    let mut castles_seen = 0;
    for case in suite() {
        let game = GameState::from_uci(Some(&case.fen), &[]).unwrap();
        let castles: Vec<Move> = game.position().legal_moves().into_iter().filter(|mv| mv.is_castle()).collect();
        castles_seen += castles.len();
        for mv in castles.iter().chain(game.position().legal_moves().iter().take(3)) {
            for chess960 in [true, false] {
                let text = uci_move(mv, chess960);
                let replayed = GameState::from_uci(Some(&case.fen), &[&text]).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(replayed.moves(), [*mv], "{text} in {}", case.fen);
            }
        }
    }
    assert!(castles_seen > 100, "the suite's positions after a few moves castle: {castles_seen}");
}

#[test]
fn x_fen_and_shredder_fen_castling_fields_read_the_same_rights() {
    // Rooks on b1/g1 (and b8/g8): KQkq means the outermost rooks, HAha-style letters name the files.
    let shredder = GameState::from_uci(Some("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1"), &[]).unwrap();
    let x_fen = GameState::from_uci(Some("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq - 0 1"), &[]).unwrap();
    assert_eq!(shredder.position().castles().castling_rights(), x_fen.position().castles().castling_rights());
    assert_eq!(shredder.position().castles().castling_rights().count(), 4);
    // A standard FEN is unchanged.
    let standard = GameState::from_uci(Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), &[]).unwrap();
    assert_eq!(standard.position().castles().castling_rights().count(), 4);
}
