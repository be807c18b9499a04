//! The pieces on the board without a chess library: FEN's piece-placement field as data, which the engine
//! fills for every move and the CTM features read.

use std::fmt;
use std::str::FromStr;

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// White.
    White,
    /// Black.
    Black,
}

/// A kind of piece, in the order of the CTM input planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Pawn.
    Pawn,
    /// Knight.
    Knight,
    /// Bishop.
    Bishop,
    /// Rook.
    Rook,
    /// Queen.
    Queen,
    /// King.
    King,
}

/// FEN's letters of the roles, in [`Role`] order.
const ROLE_LETTERS: [(char, Role); 6] = [
    ('p', Role::Pawn),
    ('n', Role::Knight),
    ('b', Role::Bishop),
    ('r', Role::Rook),
    ('q', Role::Queen),
    ('k', Role::King),
];

impl Role {
    /// 0–5 for pawn … king.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A piece: its colour and role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Whose piece it is.
    pub colour: Colour,
    /// What it is.
    pub role: Role,
}

impl Piece {
    /// The piece of a FEN letter (`P`, `n`, …: upper case for White); `None` for any other character.
    pub fn from_fen_char(letter: char) -> Option<Self> {
        let role = ROLE_LETTERS.iter().find(|(l, _)| *l == letter.to_ascii_lowercase())?.1;
        let colour = if letter.is_ascii_uppercase() { Colour::White } else { Colour::Black };
        Some(Piece { colour, role })
    }

    /// The piece's FEN letter.
    pub fn fen_char(self) -> char {
        let letter = ROLE_LETTERS[self.role.index()].0;
        if self.colour == Colour::White {
            letter.to_ascii_uppercase()
        } else {
            letter
        }
    }
}

/// What is on each of the 64 squares, a1 = 0, b1 = 1, …, h8 = 63; written and read as FEN's piece
/// placement (`rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR`).
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct PiecePlacement {
    squares: [Option<Piece>; 64],
}

impl PiecePlacement {
    /// The board with `piece_on(square)` on each square, a1 = 0 … h8 = 63.
    pub fn from_fn(piece_on: impl FnMut(usize) -> Option<Piece>) -> Self {
        Self { squares: std::array::from_fn(piece_on) }
    }

    /// The initial position.
    pub fn initial() -> Self {
        let back_rank =
            [Role::Rook, Role::Knight, Role::Bishop, Role::Queen, Role::King, Role::Bishop, Role::Knight, Role::Rook];
        Self::from_fn(|square| {
            let (rank, file) = (square / 8, square % 8);
            let colour = if rank < 4 { Colour::White } else { Colour::Black };
            match rank {
                0 | 7 => Some(Piece { colour, role: back_rank[file] }),
                1 | 6 => Some(Piece { colour, role: Role::Pawn }),
                _ => None,
            }
        })
    }

    /// Every piece with its square, from a1 to h8.
    pub fn pieces(&self) -> impl Iterator<Item = (usize, Piece)> + '_ {
        self.squares.iter().enumerate().filter_map(|(square, piece)| piece.map(|p| (square, p)))
    }
}

impl fmt::Debug for PiecePlacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PiecePlacement({self})")
    }
}

/// FEN's piece placement: rank 8 first, files a to h, digits for runs of empty squares.
impl fmt::Display for PiecePlacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.squares[rank * 8 + file] {
                    Some(piece) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{}", piece.fen_char())?;
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        Ok(())
    }
}

/// Why a text is not a FEN piece placement.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a FEN piece placement ({reason}); write 8 ranks from rank 8 down, separated by '/'")]
pub struct PlacementError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl FromStr for PiecePlacement {
    type Err = PlacementError;

    fn from_str(text: &str) -> Result<Self, PlacementError> {
        let error = |reason: String| PlacementError { text: text.to_owned(), reason };
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != 8 {
            return Err(error(format!("{} ranks", ranks.len())));
        }
        let mut squares = [None; 64];
        for (row, rank_text) in ranks.iter().enumerate() {
            let rank = 7 - row;
            let mut file = 0usize;
            for letter in rank_text.chars() {
                if let Some(run) = letter.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += run as usize;
                } else {
                    let piece = Piece::from_fen_char(letter).ok_or_else(|| error(format!("'{letter}' is no piece")))?;
                    if file < 8 {
                        squares[rank * 8 + file] = Some(piece);
                    }
                    file += 1;
                }
                if file > 8 {
                    return Err(error(format!("rank {} has more than 8 squares", rank + 1)));
                }
            }
            if file != 8 {
                return Err(error(format!("rank {} has {file} squares", rank + 1)));
            }
        }
        Ok(Self { squares })
    }
}

impl From<PiecePlacement> for String {
    fn from(placement: PiecePlacement) -> String {
        placement.to_string()
    }
}

impl TryFrom<String> for PiecePlacement {
    type Error = PlacementError;

    fn try_from(text: String) -> Result<Self, PlacementError> {
        text.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

    #[test]
    fn the_initial_position_reads_and_writes_as_its_fen() {
        assert_eq!(PiecePlacement::initial().to_string(), INITIAL);
        assert_eq!(INITIAL.parse::<PiecePlacement>(), Ok(PiecePlacement::initial()));
        let pieces: Vec<(usize, Piece)> = PiecePlacement::initial().pieces().collect();
        assert_eq!(pieces.len(), 32);
        assert_eq!(pieces[4], (4, Piece { colour: Colour::White, role: Role::King }), "e1");
        assert_eq!(pieces[31], (63, Piece { colour: Colour::Black, role: Role::Rook }), "h8");
    }

    #[test]
    fn runs_of_empty_squares_and_bad_text() {
        let ending: PiecePlacement = "4k3/8/8/8/8/8/4P3/4K3".parse().unwrap();
        let pieces: Vec<(usize, char)> = ending.pieces().map(|(s, p)| (s, p.fen_char())).collect();
        assert_eq!(pieces, vec![(4, 'K'), (12, 'P'), (60, 'k')]);
        for bad in
            ["", "8/8/8/8/8/8/8", "9/8/8/8/8/8/8/8", "7/8/8/8/8/8/8/8", "ppppppppp/8/8/8/8/8/8/8", "x7/8/8/8/8/8/8/8"]
        {
            assert!(bad.parse::<PiecePlacement>().is_err(), "{bad}");
        }
    }
}
