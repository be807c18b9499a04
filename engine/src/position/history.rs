//! A game's positions with lc0's repetition bookkeeping: identity includes side to move, castling rights and
//! lc0's en-passant flag; repetitions are found by scanning back 4, 6, 8, … plies (docs/lc0/search.md §4.7).

use nn::HistoryEntry;
use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Move, Position, Square};

/// What makes two positions "the same" for repetitions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionKey {
    board: Board,
    turn: Color,
    castling_rights: Bitboard,
    en_passant: Option<Square>,
}

impl PositionKey {
    /// The key of a position; `ep_mode` is `Always` for a position given by FEN (its flag is taken as given)
    /// and `PseudoLegal` after a move (lc0 sets the flag only if an enemy pawn attacks the passed square).
    pub fn new(position: &Chess, ep_mode: EnPassantMode) -> Self {
        Self {
            board: position.board().clone(),
            turn: position.turn(),
            castling_rights: position.castles().castling_rights(),
            en_passant: position.ep_square(ep_mode),
        }
    }
}

/// Positions from the first known one, with repetition counts and cycle lengths kept up to date.
#[derive(Clone, Debug)]
pub struct PositionHistory {
    entries: Vec<HistoryEntry>,
    keys: Vec<PositionKey>,
    /// Plies since the previous occurrence of each position (0 when it is new).
    cycle_lengths: Vec<u32>,
}

impl PositionHistory {
    /// A history that starts at `first` (given by FEN or the start position).
    pub fn new(first: Chess) -> Self {
        let key = PositionKey::new(&first, EnPassantMode::Always);
        Self {
            entries: vec![HistoryEntry { position: first, repetitions: 0 }],
            keys: vec![key],
            cycle_lengths: vec![0],
        }
    }

    /// Plays a legal move on the last position and records the new position's repetitions.
    pub fn push(&mut self, mv: Move) {
        let mut position = self.last().clone();
        position.play_unchecked(mv);
        let key = PositionKey::new(&position, EnPassantMode::PseudoLegal);
        let (repetitions, cycle_length) = self.find_repetition(&position, &key);
        self.entries.push(HistoryEntry { position, repetitions });
        self.keys.push(key);
        self.cycle_lengths.push(cycle_length);
    }

    /// Shortens the history to its first `len` positions (at least one is always kept).
    pub fn truncate(&mut self, len: usize) {
        let len = len.max(1);
        self.entries.truncate(len);
        self.keys.truncate(len);
        self.cycle_lengths.truncate(len);
    }

    /// The current position.
    pub fn last(&self) -> &Chess {
        &self.entries[self.entries.len() - 1].position
    }

    /// How often the current position occurred before (lc0's repetition count).
    pub fn last_repetitions(&self) -> u32 {
        self.entries[self.entries.len() - 1].repetitions
    }

    /// Plies since the current position's previous occurrence (0 if it has none).
    pub fn last_cycle_length(&self) -> u32 {
        self.cycle_lengths[self.cycle_lengths.len() - 1]
    }

    /// Whether a position repeated since the last capture or pawn move (lc0's
    /// `DidRepeatSinceLastZeroingMove`): the tablebase root filter then plays the shortest win.
    pub fn repeated_since_zeroing(&self) -> bool {
        for entry in self.entries.iter().rev() {
            if entry.repetitions > 0 {
                return true;
            }
            if entry.position.halfmoves() == 0 {
                return false;
            }
        }
        false
    }

    /// Every position, oldest first.
    pub fn entries(&self) -> &[HistoryEntry] {
        &self.entries
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a history holds at least its first position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find_repetition(&self, position: &Chess, key: &PositionKey) -> (u32, u32) {
        if position.halfmoves() < 4 {
            return (0, 0);
        }
        let newest = self.entries.len();
        let mut distance = 0;
        loop {
            distance += 2;
            let Some(index) = newest.checked_sub(distance) else {
                return (0, 0);
            };
            if self.keys[index] == *key {
                return (1 + self.entries[index].repetitions, distance as u32);
            }
            if self.entries[index].position.halfmoves() < 2 {
                return (0, 0);
            }
        }
    }
}
