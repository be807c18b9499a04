//! The game as UCI's `position` command describes it: a start position, the moves played, and what follows
//! from them (history, game ply, whether the game is over).

use super::history::PositionHistory;
use super::material::has_mating_material;
use nn::HistoryEntry;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position, Square};
use timemgr::ctm::{Piece, PiecePlacement};

/// Why a `position` command cannot be applied; each variant names the culprit and the fix.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PositionError {
    /// The FEN text does not parse.
    #[error("invalid FEN {fen:?}: {reason}; give six space-separated FEN fields")]
    FenSyntax {
        /// The FEN as given.
        fen: String,
        /// shakmaty's explanation.
        reason: String,
    },
    /// The FEN parses but describes an impossible position.
    #[error("illegal position in FEN {fen:?}: {reason}; fix the position (kings, checks, castling, en passant)")]
    FenPosition {
        /// The FEN as given.
        fen: String,
        /// shakmaty's explanation.
        reason: String,
    },
    /// A move is not in UCI notation.
    #[error("move {index} {text:?} is not a UCI move; write moves like e2e4, e7e8q or e1g1")]
    MoveSyntax {
        /// Zero-based index in the move list.
        index: usize,
        /// The move as given.
        text: String,
    },
    /// A move is not legal in the position it is played in.
    #[error("move {index} {text:?} is illegal in {fen}; check the move list against the start position")]
    IllegalMove {
        /// Zero-based index in the move list.
        index: usize,
        /// The move as given.
        text: String,
        /// The position the move was tried in.
        fen: String,
    },
}

/// How a game ended by the rules lc0 applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameOutcome {
    /// The side to move is checkmated.
    Checkmate {
        /// The side that gave mate.
        winner: Color,
    },
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// The position occurred for the third time.
    ThreefoldRepetition,
    /// One hundred plies without a capture or pawn move.
    FiftyMoveRule,
    /// Neither side can mate (lc0's rule, docs/lc0/search.md §4.7).
    InsufficientMaterial,
}

/// A game: its start position, the moves played since, and the resulting history.
#[derive(Clone, Debug)]
pub struct GameState {
    start: Chess,
    moves: Vec<Move>,
    history: PositionHistory,
    start_ply: u32,
}

impl Default for GameState {
    fn default() -> Self {
        Self::new(Chess::default())
    }
}

impl GameState {
    /// A game starting at `start` with no moves played.
    pub fn new(start: Chess) -> Self {
        let start_ply = 2 * (start.fullmoves().get() - 1) + u32::from(start.turn() == Color::Black);
        Self { history: PositionHistory::new(start.clone()), start, moves: Vec::new(), start_ply }
    }

    /// Builds the game of `position startpos|fen <fen> moves <moves>`; `fen` None means the start position.
    pub fn from_uci(fen: Option<&str>, moves: &[&str]) -> Result<Self, PositionError> {
        let start = match fen {
            None => Chess::default(),
            Some(text) => parse_fen(text)?,
        };
        let mut game = Self::new(start);
        for (index, text) in moves.iter().enumerate() {
            let uci: UciMove = text.parse().map_err(|_| PositionError::MoveSyntax { index, text: text.to_string() })?;
            let mv = uci.to_move(game.position()).map_err(|_| PositionError::IllegalMove {
                index,
                text: text.to_string(),
                fen: Fen::from_position(game.position(), shakmaty::EnPassantMode::Legal).to_string(),
            })?;
            game.play(mv);
        }
        Ok(game)
    }

    /// Plays a move that the caller knows to be legal in the current position.
    pub fn play(&mut self, mv: Move) {
        self.history.push(mv);
        self.moves.push(mv);
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        self.history.last()
    }

    /// The position the game started from (FEN or the start position).
    pub fn start(&self) -> &Chess {
        &self.start
    }

    /// The moves played since the start position.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The positions with repetition counts, oldest first, as the network wants them.
    pub fn history(&self) -> &[HistoryEntry] {
        self.history.entries()
    }

    /// The history with lc0's repetition bookkeeping, for the search to extend.
    pub fn position_history(&self) -> &PositionHistory {
        &self.history
    }

    /// The game one move shorter (None when no move was played): the position a ponder search searches, before
    /// the opponent's predicted move, as lc0 (`engine.cc` 202–216).
    pub fn before_last_move(&self) -> Option<Self> {
        let (_, earlier) = self.moves.split_last()?;
        let mut game = Self::new(self.start.clone());
        for mv in earlier {
            game.play(*mv);
        }
        Some(game)
    }

    /// Whether this game continues `earlier`: the same start position with `earlier`'s moves as a prefix.
    pub fn continues(&self, earlier: &GameState) -> bool {
        let fen = |game: &GameState| Fen::from_position(game.start(), shakmaty::EnPassantMode::Legal).to_string();
        fen(earlier) == fen(self) && self.moves().starts_with(earlier.moves())
    }

    /// Half-moves since the game's start: 2·(fullmove − 1) + (1 if black was to move) + moves applied.
    pub fn game_ply(&self) -> u32 {
        self.start_ply + self.moves.len() as u32
    }

    /// The pieces of the current position as the time managers read them (FEN letters carry them over).
    pub fn piece_placement(&self) -> PiecePlacement {
        let board = self.position().board();
        PiecePlacement::from_fn(|square| {
            board.piece_at(Square::ALL[square]).and_then(|p| Piece::from_fen_char(p.char()))
        })
    }

    /// Whether the game is over by the rules, in lc0's order: no legal moves first, then material, the
    /// fifty-move rule and threefold repetition.
    pub fn outcome(&self) -> Option<GameOutcome> {
        let position = self.position();
        if position.legal_moves().is_empty() {
            return Some(if position.is_check() {
                GameOutcome::Checkmate { winner: !position.turn() }
            } else {
                GameOutcome::Stalemate
            });
        }
        if !has_mating_material(position) {
            return Some(GameOutcome::InsufficientMaterial);
        }
        if position.halfmoves() >= 100 {
            return Some(GameOutcome::FiftyMoveRule);
        }
        if self.history.last_repetitions() >= 2 {
            return Some(GameOutcome::ThreefoldRepetition);
        }
        None
    }
}

/// A FEN in standard castling notation as a position, or the error that names what is wrong with it.
pub(crate) fn parse_fen(text: &str) -> Result<Chess, PositionError> {
    let fen: Fen = text.trim().parse().map_err(|e: shakmaty::fen::ParseFenError| PositionError::FenSyntax {
        fen: text.to_string(),
        reason: e.to_string(),
    })?;
    // Chess960 castling too, as lc0 reads it whatever UCI_Chess960 says.
    super::chess_from_fen(fen).map_err(|e| PositionError::FenPosition { fen: text.to_string(), reason: e.to_string() })
}
