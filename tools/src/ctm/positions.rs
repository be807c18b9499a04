//! The positions `kairos tm-label` labels: every position of PGN games and every line of EPD/FEN files, kept
//! as lines of play (a start and the moves from it) so that each position is searched with its history.
//! Positions without a legal move are left out, a position that occurs again (same board, side to move,
//! castling and en passant square) is kept only at its first occurrence, and `--limit` draws a seeded sample.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use super::clock_pgn::read_games;
use super::CtmError;
use crate::runner::epd_position;

/// A start position and the moves played from it; its positions share a game id (the split is by game).
#[derive(Clone, Debug)]
pub struct Line {
    /// The position before the first move.
    pub start: Chess,
    /// The moves, all legal.
    pub moves: Vec<Move>,
    /// The game id written to the dataset.
    pub game: u32,
}

/// One position to label: a line and how many of its moves are played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    /// Index into the lines.
    pub line: usize,
    /// Moves played from the line's start.
    pub ply: usize,
}

/// What the inputs held.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Games and EPD positions read.
    pub lines: Vec<Line>,
    /// PGN games left out: malformed clock comments, a bad FEN header or an illegal move.
    pub skipped_games: usize,
}

/// Whether `path` is read as PGN (extension `.pgn`, any case) rather than as EPD/FEN lines.
pub fn is_pgn(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
}

/// Reads PGN games and EPD/FEN files in order, numbering games across them; a PGN game that cannot be
/// replayed is counted and left out, a bad EPD line is an error naming it.
pub fn read_inputs(paths: &[PathBuf]) -> Result<Inputs, CtmError> {
    let mut inputs = Inputs::default();
    for path in paths {
        if is_pgn(path) {
            let (games, malformed) = read_games(path, true)?;
            inputs.skipped_games += malformed;
            for game in games {
                match replay(game.fen.as_deref(), game.moves.iter().map(|san| &san.san)) {
                    Some((start, moves)) => push_line(&mut inputs.lines, start, moves)?,
                    None => inputs.skipped_games += 1,
                }
            }
        } else {
            let text = std::fs::read_to_string(path).map_err(|source| CtmError::Io { path: path.clone(), source })?;
            for (number, line) in text.lines().enumerate() {
                let bad = |reason: String| CtmError::BadFile {
                    path: path.clone(),
                    reason: format!("line {}: {reason}; fix or remove the line", number + 1),
                };
                if let Some(start) = parse_epd(line).map_err(bad)? {
                    push_line(&mut inputs.lines, start, Vec::new())?;
                }
            }
        }
    }
    Ok(inputs)
}

fn push_line(lines: &mut Vec<Line>, start: Chess, moves: Vec<Move>) -> Result<(), CtmError> {
    let game = u32::try_from(lines.len()).map_err(|_| {
        CtmError::Invalid(format!("{} games do not fit the u32 game ids; split the input", lines.len()))
    })?;
    lines.push(Line { start, moves, game });
    Ok(())
}

/// The start (the FEN header, else the initial position) and the moves, or None if one is illegal.
fn replay<'a>(fen: Option<&str>, sans: impl Iterator<Item = &'a shakmaty::san::San>) -> Option<(Chess, Vec<Move>)> {
    let start = match fen {
        None => Chess::default(),
        Some(text) => text.parse::<Fen>().ok()?.into_position(CastlingMode::Standard).ok()?,
    };
    let mut position = start.clone();
    let mut moves = Vec::new();
    for san in sans {
        let mv = san.to_move(&position).ok()?;
        position.play_unchecked(mv);
        moves.push(mv);
    }
    Some((start, moves))
}

/// The position of an EPD or FEN line as opening books read it ([`epd_position`]); None for an empty line or
/// a comment (`#`).
pub fn parse_epd(line: &str) -> Result<Option<Chess>, String> {
    if line.trim_start().starts_with('#') {
        return Ok(None);
    }
    epd_position(line)
}

/// What stands for a position when repeats are dropped: board, side to move, castling and en passant.
fn position_key(position: &Chess) -> String {
    let fen = Fen::from_position(position, EnPassantMode::Legal).to_string();
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// Every position of every line with a legal move, each distinct position once (its first occurrence), in
/// input order; with `limit`, a sample of that many drawn with `seed`, still in input order.
pub fn candidates(lines: &[Line], limit: Option<usize>, seed: u64) -> Vec<Candidate> {
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let mut position = line.start.clone();
        for ply in 0..=line.moves.len() {
            if !position.legal_moves().is_empty() && seen.insert(position_key(&position)) {
                found.push(Candidate { line: index, ply });
            }
            if let Some(mv) = line.moves.get(ply) {
                position.play_unchecked(*mv);
            }
        }
    }
    if let Some(limit) = limit.filter(|&limit| limit < found.len()) {
        found.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        found.truncate(limit);
        found.sort_unstable();
    }
    found
}
