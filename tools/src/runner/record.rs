//! What a finished game leaves behind: per-move data, the result and why the game ended.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::openings::Opening;
use super::provenance::EngineProvenance;
use super::uci_process::Score;
use super::variant::Variant;
use crate::stats::Outcome;

/// The game result in PGN terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameResult {
    /// 1-0.
    WhiteWins,
    /// 0-1.
    BlackWins,
    /// 1/2-1/2.
    Draw,
}

impl GameResult {
    /// The PGN result token.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// A win for the given side (`true` = white).
    pub fn win_for(white: bool) -> Self {
        if white {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Termination {
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// 100 plies without capture or pawn move.
    FiftyMoveRule,
    /// The same position occurred three times.
    ThreefoldRepetition,
    /// A side used more than its clock plus the latency margin.
    TimeForfeit,
    /// An engine exited or closed its output.
    EngineCrashed,
    /// An engine did not answer in time and was killed.
    EngineHung,
    /// An engine sent an illegal or unparsable move.
    IllegalMove,
    /// An engine answered `bestmove (none)` or `0000` with legal moves available.
    NoBestMove,
    /// An engine could not be started or did not finish its handshake.
    EngineStartFailed,
    /// The opening's position or moves are invalid, so the game was not played.
    InvalidOpening,
    /// The game reached the maximum number of plies.
    MaxPlies,
    /// Both engines agreed the game is level for long enough.
    DrawAdjudication,
    /// One engine's score stayed hopeless for long enough.
    ResignAdjudication,
}

impl Termination {
    /// Whether the engine that caused this ending must be restarted before its next game.
    pub fn needs_restart(self) -> bool {
        matches!(
            self,
            Termination::EngineCrashed | Termination::EngineHung | Termination::IllegalMove | Termination::NoBestMove
        )
    }

    /// Whether an engine or the opening failed (rather than the game ending over the board or by
    /// adjudication): `kairos match` warns of each such game as it ends.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Termination::TimeForfeit
                | Termination::EngineCrashed
                | Termination::EngineHung
                | Termination::IllegalMove
                | Termination::NoBestMove
                | Termination::EngineStartFailed
                | Termination::InvalidOpening
        )
    }

    /// The PGN `Termination` tag value.
    pub fn pgn_tag(self) -> &'static str {
        match self {
            Termination::TimeForfeit => "time forfeit",
            Termination::EngineCrashed
            | Termination::EngineHung
            | Termination::EngineStartFailed
            | Termination::InvalidOpening => "abandoned",
            Termination::IllegalMove | Termination::NoBestMove => "rules infraction",
            Termination::MaxPlies | Termination::DrawAdjudication | Termination::ResignAdjudication => "adjudication",
            _ => "normal",
        }
    }
}

/// One engine move with what the runner measured and the engine reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// The move in UCI notation.
    pub uci: String,
    /// Time charged to the clock in ms (virtual time in virtual-clock mode).
    pub time_used_ms: u64,
    /// Wall time from `go` to `bestmove`; absent in virtual-clock mode so that records replay exactly.
    pub wall_ms: Option<u64>,
    /// Clock left after the move, increment or delay refund included; absent for fixed-time and fixed-node moves.
    pub clock_left_ms: Option<i64>,
    /// Nodes the engine reported.
    pub nodes: Option<u64>,
    /// Depth the engine reported.
    pub depth: Option<u32>,
    /// Selective depth the engine reported.
    pub seldepth: Option<u32>,
    /// Score the engine reported, from its own view.
    pub score: Option<Score>,
}

/// One finished game, as written to the results file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Position of the game in the match schedule; stable across `--resume`.
    pub game_id: u64,
    /// The pair (same opening, colours reversed) this game belongs to.
    pub pair_id: u64,
    /// White engine's name.
    pub white: String,
    /// Black engine's name.
    pub black: String,
    /// White's time control as text.
    pub white_time_control: String,
    /// Black's time control as text.
    pub black_time_control: String,
    /// The opening played.
    pub opening: Opening,
    /// Standard chess or Chess960 (left out of the results file for standard chess).
    #[serde(default, skip_serializing_if = "Variant::is_standard")]
    pub variant: Variant,
    /// The result.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// Human-readable details, such as the failing engine and what it did.
    pub reason: String,
    /// Engine moves after the book moves.
    pub moves: Vec<MoveRecord>,
    /// White's binary, command and options (absent in files written before they were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_engine: Option<EngineProvenance>,
    /// Black's binary, command and options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_engine: Option<EngineProvenance>,
    /// The machine the game was played on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// When the runner began the game (UTC, whole seconds; absent in files written before it was recorded).
    /// Virtual-clock games replay exactly in everything else.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "time::serde::rfc3339::option")]
    pub started: Option<OffsetDateTime>,
    /// When the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "time::serde::rfc3339::option")]
    pub ended: Option<OffsetDateTime>,
}

/// A moment as RFC 3339 text (`2026-12-03T17:20:05Z`), as the results file, the PGN and `match-report` show it.
pub fn rfc3339_text(moment: OffsetDateTime) -> String {
    moment.format(&Rfc3339).unwrap_or_else(|_| "?".to_owned())
}

/// The wall clock now in UTC to the whole second, as `GameRecord` keeps it.
pub fn utc_now_in_seconds() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(0).unwrap_or(now)
}

/// For each engine name, the `id name` of each binary its recorded games were played with, and how many games
/// each played (games written before provenance was recorded count under "unrecorded").
pub fn binaries_by_engine(games: &[GameRecord]) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut binaries: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for game in games {
        for (name, engine) in [(&game.white, &game.white_engine), (&game.black, &game.black_engine)] {
            let id = engine.as_ref().map_or_else(|| "unrecorded".to_owned(), |engine| engine.id.clone());
            *binaries.entry(name.clone()).or_default().entry(id).or_default() += 1;
        }
    }
    binaries
}

impl GameRecord {
    /// The outcome for the named engine, `None` if it did not play.
    pub fn outcome_for(&self, engine: &str) -> Option<Outcome> {
        let white_view = match self.result {
            GameResult::WhiteWins => Outcome::Win,
            GameResult::BlackWins => Outcome::Loss,
            GameResult::Draw => Outcome::Draw,
        };
        if self.white == engine {
            Some(white_view)
        } else if self.black == engine {
            Some(white_view.reversed())
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRITTEN_BEFORE_TIMES: &str = concat!(
        r#"{"game_id":0,"pair_id":0,"white":"a","black":"b","white_time_control":"10+0.1","#,
        r#""black_time_control":"10+0.1","opening":{"fen":"8/8/8/8/8/8/8/K1k5 w - - 0 1","moves":[]},"#,
        r#""result":"Draw","termination":"InsufficientMaterial","reason":"insufficient material","moves":[],"#,
        r#""machine":"Some CPU, 2 cores"}"#
    );

    #[test]
    fn games_written_before_times_were_kept_read_and_write_back_unchanged() {
        let game: GameRecord = serde_json::from_str(WRITTEN_BEFORE_TIMES).unwrap();
        assert_eq!((game.started, game.ended), (None, None));
        assert_eq!(serde_json::to_string(&game).unwrap(), WRITTEN_BEFORE_TIMES);
    }

    #[test]
    fn start_and_end_are_written_in_rfc3339_utc() {
        let with_times = WRITTEN_BEFORE_TIMES.replace(
            r#""machine":"Some CPU, 2 cores"}"#,
            r#""machine":"Some CPU, 2 cores","started":"2026-12-03T17:20:05Z","ended":"2026-12-03T17:21:35Z"}"#,
        );
        let game: GameRecord = serde_json::from_str(&with_times).unwrap();
        let (started, ended) = (game.started.unwrap(), game.ended.unwrap());
        assert_eq!((started.hour(), started.minute(), started.second()), (17, 20, 5));
        assert_eq!((ended - started).whole_seconds(), 90);
        assert_eq!(serde_json::to_string(&game).unwrap(), with_times);
    }

    #[test]
    fn now_is_kept_to_the_whole_second_in_utc() {
        let now = utc_now_in_seconds();
        assert_eq!((now.nanosecond(), now.offset().is_utc()), (0, true));
    }
}
