//! Opening books: EPD (one position a line) or PGN (move sequences), in file order or shuffled with a seed.

use std::path::Path;

use engine::position::chess_from_fen;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Move, Position};

/// A start position and the book moves played from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// FEN of the position before the book moves.
    pub fen: String,
    /// Book moves in UCI notation.
    pub moves: Vec<String>,
}

/// A book that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    /// The file cannot be read.
    #[error("cannot read opening book {path}: {source}")]
    Read {
        /// The book's path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A position or move in the book is invalid.
    #[error("{path}, entry {entry}: {reason}; fix or remove that entry")]
    BadEntry {
        /// The book's path.
        path: String,
        /// 1-based line (EPD) or game (PGN) number.
        entry: usize,
        /// What is wrong.
        reason: String,
    },
    /// The book has no openings.
    #[error("opening book {0} holds no openings")]
    Empty(String),
}

impl Opening {
    /// The standard start position with no book moves.
    pub fn startpos() -> Self {
        Opening { fen: Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string(), moves: Vec::new() }
    }

    /// The position before the book moves.
    pub fn start_position(&self) -> Result<Chess, InvalidOpening> {
        let fen: Fen = self.fen.parse().map_err(|e| InvalidOpening(format!("bad FEN '{}': {e}", self.fen)))?;
        chess_from_fen(fen).map_err(|e| InvalidOpening(format!("illegal position '{}': {e}", self.fen)))
    }

    /// The positions from the start through every book move, checking each move's legality.
    pub fn positions(&self) -> Result<Vec<Chess>, InvalidOpening> {
        self.replay().map(|(positions, _)| positions)
    }

    /// The positions from the start through every book move, and the book moves themselves, checked legal.
    pub fn replay(&self) -> Result<(Vec<Chess>, Vec<Move>), InvalidOpening> {
        let mut position = self.start_position()?;
        let mut positions = vec![position.clone()];
        let mut moves = Vec::with_capacity(self.moves.len());
        for text in &self.moves {
            let m = text
                .parse::<UciMove>()
                .ok()
                .and_then(|m| m.to_move(&position).ok())
                .ok_or_else(|| InvalidOpening(format!("book move '{text}' is illegal after '{}'", self.fen)))?;
            position.play_unchecked(m);
            positions.push(position.clone());
            moves.push(m);
        }
        Ok((positions, moves))
    }
}

/// An opening whose position or moves are not legal chess.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}; fix or remove that opening")]
pub struct InvalidOpening(pub String);

/// How the book is walked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningOrder {
    /// In file order.
    Sequential,
    /// Shuffled with a seed, so that a match can be repeated.
    Shuffled(u64),
}

/// Reads a book (`.pgn` by extension, otherwise EPD) and orders it.
pub fn load_openings(path: &Path, order: OpeningOrder) -> Result<Vec<Opening>, OpeningError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| OpeningError::Read { path: name.clone(), source })?;
    let is_pgn = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let mut openings = if is_pgn { parse_pgn(&text) } else { parse_epd(&text) }
        .map_err(|(entry, reason)| OpeningError::BadEntry { path: name.clone(), entry, reason })?;
    if openings.is_empty() {
        return Err(OpeningError::Empty(name));
    }
    if let OpeningOrder::Shuffled(seed) = order {
        openings.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    }
    Ok(openings)
}

/// The position of one EPD or FEN line: the four position fields and the move counters when both are there;
/// the operations after them are ignored. None for a blank line.
pub fn epd_position(line: &str) -> Result<Option<Chess>, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.is_empty() {
        return Ok(None);
    }
    if fields.len() < 4 {
        return Err(format!("'{line}' has no board, side to move, castling and en passant fields"));
    }
    let counters = fields[4..].iter().take(2).take_while(|f| f.parse::<u32>().is_ok()).count();
    let fen = if counters == 2 { fields[..6].join(" ") } else { fields[..4].join(" ") };
    Opening { fen, moves: Vec::new() }.start_position().map(Some).map_err(|e| e.0)
}

/// Parses EPD lines (see [`epd_position`]). Errors carry the 1-based line number.
fn parse_epd(text: &str) -> Result<Vec<Opening>, (usize, String)> {
    let mut openings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if let Some(position) = epd_position(line).map_err(|reason| (index + 1, reason))? {
            let fen = Fen::from_position(&position, EnPassantMode::Legal).to_string();
            openings.push(Opening { fen, moves: Vec::new() });
        }
    }
    Ok(openings)
}

/// Parses PGN games into a start position (the `FEN` tag or the standard one) and their main-line moves.
/// Errors carry the 1-based game number.
fn parse_pgn(text: &str) -> Result<Vec<Opening>, (usize, String)> {
    let mut openings = Vec::new();
    let mut fen: Option<String> = None;
    let mut movetext = String::new();
    let mut finish = |fen: &mut Option<String>, movetext: &mut String| -> Result<(), (usize, String)> {
        if movetext.trim().is_empty() && fen.is_none() {
            return Ok(());
        }
        let entry = openings.len() + 1;
        let opening = match fen.take() {
            Some(fen) => Opening { fen, moves: Vec::new() },
            None => Opening::startpos(),
        };
        let moves = san_to_uci(&opening, movetext).map_err(|e| (entry, e))?;
        openings.push(Opening { moves, ..opening });
        movetext.clear();
        Ok(())
    };
    for line in text.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[') {
            if !movetext.trim().is_empty() {
                finish(&mut fen, &mut movetext)?;
            }
            if let Some(value) = tag.strip_prefix("FEN ") {
                fen = Some(value.trim_end_matches(']').trim().trim_matches('"').to_owned());
            }
        } else {
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    finish(&mut fen, &mut movetext)?;
    Ok(openings)
}

fn san_to_uci(opening: &Opening, movetext: &str) -> Result<Vec<String>, String> {
    let mut position = opening.start_position().map_err(|e| e.0)?;
    let mut moves = Vec::new();
    let mut depth = 0usize;
    let mut cleaned = String::new();
    for c in movetext.chars() {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => cleaned.push(c),
            _ => {}
        }
    }
    for token in cleaned.split_whitespace() {
        if ["*", "1-0", "0-1", "1/2-1/2"].contains(&token) {
            continue;
        }
        let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if token.is_empty() || token.starts_with('$') {
            continue;
        }
        let san: San =
            token.trim_end_matches(['+', '#', '!', '?']).parse().map_err(|e| format!("bad SAN '{token}': {e}"))?;
        let m = san.to_move(&position).map_err(|e| format!("illegal move '{token}': {e}"))?;
        moves.push(UciMove::from_move(m, position.castles().mode()).to_string());
        position.play_unchecked(m);
    }
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_games_become_uci_moves() {
        let pgn = "[Event \"?\"]\n[Result \"*\"]\n\n1. e4 d5 2. Bb5+ c6 *\n\n[Event \"?\"]\n\n1. Nf3 {comment} (1. d4) Nf6 $1 1-0\n";
        let openings = parse_pgn(pgn).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].moves, vec!["e2e4", "d7d5", "f1b5", "c7c6"]);
        assert_eq!(openings[1].moves, vec!["g1f3", "g8f6"]);
        assert_eq!(openings[1].fen, Opening::startpos().fen);
    }

    #[test]
    fn pgn_fen_tag_and_illegal_moves() {
        let pgn = "[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 *\n";
        assert_eq!(parse_pgn(pgn).unwrap()[0].moves, vec!["e2e4"]);
        assert_eq!(parse_pgn("1. e5 *").unwrap_err().0, 1);
    }

    #[test]
    fn epd_lines_with_and_without_counters() {
        let epd = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\n4k3/8/8/8/8/8/8/4K2R w K - bm Rh2;\n";
        let openings = parse_epd(epd).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(openings[1].fen, "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        assert_eq!(parse_epd("8/8/8 w").unwrap_err().0, 1);
    }

    #[test]
    fn shuffling_is_repeatable() {
        let dir = std::env::temp_dir().join(format!("kairos-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.epd");
        let lines: Vec<String> = (1..=8).map(|i| format!("4k3/8/8/8/8/8/8/4K2R w K - 0 {i}")).collect();
        std::fs::write(&path, lines.join("\n")).unwrap();
        let a = load_openings(&path, OpeningOrder::Shuffled(7)).unwrap();
        let b = load_openings(&path, OpeningOrder::Shuffled(7)).unwrap();
        let sequential = load_openings(&path, OpeningOrder::Sequential).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, sequential);
        assert_eq!(sequential[0].fen, lines[0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
