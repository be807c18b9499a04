//! Games with a `[%clk h:mm:ss]` comment after each move, read from PGN with pgn-reader.

use std::fs::File;
use std::io::{BufReader, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};

use super::CtmError;

/// One game as the PGN gives it: the headers the filters need, the moves and each move's clock.
#[derive(Clone, Debug, Default)]
pub struct ClockedGame {
    /// The file the game came from (for error messages).
    pub path: PathBuf,
    /// 1-based number of the game in its file.
    pub number: usize,
    /// The `Site` header (Lichess puts the game's address there).
    pub site: Option<String>,
    /// `WhiteElo`, when it is a number.
    pub white_elo: Option<u32>,
    /// `BlackElo`, when it is a number.
    pub black_elo: Option<u32>,
    /// The `TimeControl` header as written, e.g. `60+0`.
    pub time_control: Option<String>,
    /// The `Result` header as written, e.g. `1-0`.
    pub result: Option<String>,
    /// The `FEN` header of a game that does not start from the initial position.
    pub fen: Option<String>,
    /// The mainline moves.
    pub moves: Vec<SanPlus>,
    /// The clock after each move in seconds, `None` where the move has no `%clk`.
    pub clocks: Vec<Option<f64>>,
}

impl ClockedGame {
    /// An error about this game, with the file, number and site that find it.
    pub fn error(&self, reason: impl Into<String>) -> CtmError {
        CtmError::BadGame {
            path: self.path.clone(),
            game: self.number,
            site: self.site.as_ref().map(|site| format!(" ({site})")).unwrap_or_default(),
            reason: reason.into(),
        }
    }
}

/// Parses the `h:mm:ss` or `h:mm:ss.fff` of a `%clk` into seconds.
pub fn parse_clock(text: &str) -> Option<f64> {
    let mut parts = text.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || h.is_empty() || !h.bytes().all(|b| b.is_ascii_digit()) || m.len() != 2 {
        return None;
    }
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.len() != 2 || !digits(m) || !digits(whole) || !digits(fraction) {
        return None;
    }
    let (h, m, s): (f64, f64, f64) = (h.parse().ok()?, m.parse().ok()?, s.parse().ok()?);
    (m < 60.0 && s < 60.0).then_some(h * 3600.0 + m * 60.0 + s)
}

/// The `%clk` value inside a comment: `Ok(None)` when there is none, `Err` with the text when it is malformed.
fn clock_in_comment(comment: &[u8]) -> Result<Option<f64>, String> {
    let text = String::from_utf8_lossy(comment);
    let Some(start) = text.find("[%clk") else { return Ok(None) };
    let rest = &text[start + 5..];
    let value = rest.split(']').next().unwrap_or("").trim();
    match (rest.contains(']'), parse_clock(value)) {
        (true, Some(seconds)) => Ok(Some(seconds)),
        _ => Err(format!("malformed clock comment {{{}}}", text.trim())),
    }
}

/// Collects one game; a malformed clock ends the game's reading with the reason.
struct GameVisitor<'a> {
    path: &'a Path,
    number: usize,
}

impl Visitor for GameVisitor<'_> {
    type Tags = ClockedGame;
    type Movetext = (ClockedGame, Option<String>);
    type Output = Result<ClockedGame, (ClockedGame, String)>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.number += 1;
        ControlFlow::Continue(ClockedGame { path: self.path.to_owned(), number: self.number, ..Default::default() })
    }

    fn tag(&mut self, game: &mut ClockedGame, name: &[u8], value: RawTag<'_>) -> ControlFlow<Self::Output> {
        let value = value.decode_utf8_lossy().into_owned();
        match name {
            b"Site" => game.site = Some(value),
            b"WhiteElo" => game.white_elo = value.parse().ok(),
            b"BlackElo" => game.black_elo = value.parse().ok(),
            b"TimeControl" => game.time_control = Some(value),
            b"Result" => game.result = Some(value),
            b"FEN" => game.fen = Some(value),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, game: ClockedGame) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue((game, None))
    }

    fn san(&mut self, movetext: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        movetext.0.moves.push(san_plus);
        movetext.0.clocks.push(None);
        ControlFlow::Continue(())
    }

    fn comment(&mut self, movetext: &mut Self::Movetext, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        match clock_in_comment(comment.as_bytes()) {
            Ok(Some(seconds)) => {
                if let Some(last) = movetext.0.clocks.last_mut() {
                    *last = Some(seconds);
                }
            }
            Ok(None) => {}
            Err(reason) => {
                let ply = movetext.0.moves.len();
                movetext.1.get_or_insert(format!("ply {ply}: {reason}"));
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, (game, error): Self::Movetext) -> Self::Output {
        match error {
            None => Ok(game),
            Some(reason) => Err((game, reason)),
        }
    }
}

/// Reads every game of a PGN file. A game with a malformed clock is an error naming it, or with
/// `skip_bad` is counted in the second value and left out.
pub fn read_games(path: &Path, skip_bad: bool) -> Result<(Vec<ClockedGame>, usize), CtmError> {
    let file = File::open(path).map_err(|source| CtmError::Io { path: path.to_owned(), source })?;
    read_games_from(BufReader::new(file), path, skip_bad)
}

/// [`read_games`] from any reader; `path` names the source in errors.
pub fn read_games_from(input: impl Read, path: &Path, skip_bad: bool) -> Result<(Vec<ClockedGame>, usize), CtmError> {
    let mut reader = Reader::new(input);
    let mut visitor = GameVisitor { path, number: 0 };
    let (mut games, mut skipped) = (Vec::new(), 0);
    loop {
        let read = reader.read_game(&mut visitor).map_err(|source| CtmError::BadGame {
            path: path.to_owned(),
            game: visitor.number,
            site: String::new(),
            reason: format!("the PGN cannot be parsed here ({source}); fix or remove this game"),
        })?;
        match read {
            None => return Ok((games, skipped)),
            Some(Ok(game)) => games.push(game),
            Some(Err(_)) if skip_bad => skipped += 1,
            Some(Err((game, reason))) => {
                return Err(game.error(format!("{reason}; fix the game or pass --skip-bad-games to leave it out")))
            }
        }
    }
}
