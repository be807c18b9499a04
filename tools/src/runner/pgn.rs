//! PGN output: SAN moves with `%clk`, `%emt` and the engine's score, depth and nodes on every move.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Color, Position};
use time::OffsetDateTime;

use super::openings::{InvalidOpening, Opening};
use super::record::{rfc3339_text, GameRecord, MoveRecord};
use super::uci_process::Score;

/// Formats milliseconds as `H:MM:SS.mmm` for `%clk` and `%emt`.
pub fn clock_text(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    format!("{sign}{}:{:02}:{:02}.{:03}", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
}

fn score_text(score: Score) -> String {
    match score {
        Score::Centipawns(cp) => format!("{:+.2}", cp as f64 / 100.0),
        Score::Mate(moves) if moves < 0 => format!("-M{}", -moves),
        Score::Mate(moves) => format!("+M{moves}"),
    }
}

fn move_comment(record: &MoveRecord) -> String {
    let mut parts = Vec::new();
    if let Some(left) = record.clock_left_ms {
        parts.push(format!("[%clk {}]", clock_text(left)));
    }
    parts.push(format!("[%emt {}]", clock_text(record.time_used_ms as i64)));
    if let Some(score) = record.score {
        let depth = record.depth.map(|d| format!("/{d}")).unwrap_or_default();
        parts.push(format!("{}{depth}", score_text(score)));
    }
    if let Some(nodes) = record.nodes {
        parts.push(format!("nodes={nodes}"));
    }
    parts.join(" ")
}

/// The PGN `Date` tag's form, `YYYY.MM.DD`.
fn pgn_date(moment: OffsetDateTime) -> String {
    format!("{:04}.{:02}.{:02}", moment.year(), u8::from(moment.month()), moment.day())
}

/// `HH:MM:SS`, as cutechess and fastchess write `GameDuration`.
fn duration_text(duration: time::Duration) -> String {
    let seconds = duration.whole_seconds().max(0);
    format!("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// A game that cannot be written as PGN.
#[derive(Debug, thiserror::Error)]
pub enum PgnError {
    /// The PGN file cannot be opened or written.
    #[error("PGN file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The opening is invalid.
    #[error(transparent)]
    Opening(#[from] InvalidOpening),
    /// The PGN file is not the first games of the results file: another match's, or not written by Kairos.
    #[error(
        "PGN file {path} is not this match's: it does not begin with the {recorded} games of the results file (it \
         holds {held} games as kairos match writes them, and then other games or other text); choose another PGN \
         file or move this one away"
    )]
    NotThisMatch {
        /// The file.
        path: PathBuf,
        /// Whole games it holds.
        held: usize,
        /// Games in the results file.
        recorded: usize,
    },
    /// A recorded engine move is illegal.
    #[error("game {game_id}: recorded move '{uci}' is illegal; the results file is damaged")]
    IllegalMove {
        /// The game.
        game_id: u64,
        /// The move.
        uci: String,
    },
}

/// Renders a game as PGN text; fails only if the record's moves are not legal from its opening.
pub fn game_to_pgn(game: &GameRecord, round: u64) -> Result<String, PgnError> {
    let mut position = game.opening.start_position()?;
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| out.push_str(&format!("[{name} \"{}\"]\n", value.replace('"', "'")));
    tag("Event", "Kairos match");
    tag("Site", "?");
    tag("Date", &game.started.map_or_else(|| "????.??.??".to_owned(), pgn_date));
    tag("Round", &round.to_string());
    tag("White", &game.white);
    tag("Black", &game.black);
    tag("Result", game.result.pgn());
    if game.white_time_control == game.black_time_control {
        tag("TimeControl", &game.white_time_control);
    } else {
        tag("WhiteTimeControl", &game.white_time_control);
        tag("BlackTimeControl", &game.black_time_control);
    }
    if let Some(variant) = game.variant.pgn_tag() {
        tag("Variant", variant);
    }
    if game.opening.fen != Opening::startpos().fen || !game.variant.is_standard() {
        tag("SetUp", "1");
        tag("FEN", &game.opening.fen);
    }
    tag("Termination", game.termination.pgn_tag());
    for (side, engine) in [("White", &game.white_engine), ("Black", &game.black_engine)] {
        if let Some(engine) = engine {
            tag(&format!("{side}Engine"), &engine.id);
            let options: Vec<String> = engine.options.iter().map(|(name, value)| format!("{name}={value}")).collect();
            tag(&format!("{side}Options"), &options.join(" "));
        }
    }
    if let Some(machine) = &game.machine {
        tag("Machine", machine);
    }
    if let (Some(started), Some(ended)) = (game.started, game.ended) {
        tag("GameStartTime", &rfc3339_text(started));
        tag("GameEndTime", &rfc3339_text(ended));
        tag("GameDuration", &duration_text(ended - started));
    }
    tag("PlyCount", &(game.opening.moves.len() + game.moves.len()).to_string());
    out.push('\n');
    let book = game.opening.moves.iter().map(|m| (m, None));
    let engine = game.moves.iter().map(|m| (&m.uci, Some(m)));
    let mut words = Vec::new();
    for (index, (uci, record)) in book.chain(engine).enumerate() {
        let m = uci
            .parse::<UciMove>()
            .ok()
            .and_then(|m| m.to_move(&position).ok())
            .ok_or_else(|| PgnError::IllegalMove { game_id: game.game_id, uci: uci.clone() })?;
        let number = position.fullmoves().get();
        if position.turn() == Color::White {
            words.push(format!("{number}."));
        } else if index == 0 {
            words.push(format!("{number}..."));
        }
        words.push(SanPlus::from_move_and_play_unchecked(&mut position, m).to_string());
        match record {
            Some(record) => words.push(format!("{{{}}}", move_comment(record))),
            None => words.push("{book}".into()),
        }
    }
    words.push(format!("{{{}}}", game.reason.replace(['{', '}'], "")));
    words.push(game.result.pgn().to_owned());
    let mut line_length = 0;
    for word in words {
        if line_length > 0 && line_length + word.len() + 1 > 79 {
            out.push('\n');
            line_length = 0;
        } else if line_length > 0 {
            out.push(' ');
            line_length += 1;
        }
        line_length += word.len();
        out.push_str(&word);
    }
    out.push_str("\n\n");
    Ok(out)
}

/// A PGN file that finished games are appended to, flushed after each.
pub struct PgnLog {
    path: PathBuf,
    file: File,
}

impl PgnLog {
    /// Opens the PGN of a match whose results file holds `recorded`, in the order it holds them. The PGN must
    /// hold the first of those games, whole, and may end with the start of the next one (the runner stopped in
    /// the middle of writing it); that start is replaced, and the games the PGN lacks are written from the
    /// results. Returns how many games were written so. Any other PGN is another match's (or not Kairos's) and
    /// is refused untouched.
    pub fn open(path: &Path, recorded: &[GameRecord]) -> Result<(Self, usize), PgnError> {
        let io = |source| PgnError::Io { path: path.to_owned(), source };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
        };
        let held = whole_games(&text);
        let whole_length = held.iter().map(|game| game.len()).sum();
        let cut_off = &text[whole_length..];
        let next_game = recorded.get(held.len()).map(|game| game_to_pgn(game, game.game_id + 1)).transpose()?;
        let continues = held.len() <= recorded.len()
            && held.iter().zip(recorded).all(|(text, game)| is_pgn_of(text, game))
            && (cut_off.is_empty() || next_game.is_some_and(|next| next.starts_with(cut_off)));
        if !continues {
            let (held, recorded) = (held.len(), recorded.len());
            return Err(PgnError::NotThisMatch { path: path.to_owned(), held, recorded });
        }
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        file.set_len(whole_length as u64).map_err(io)?;
        let mut log = PgnLog { path: path.to_owned(), file };
        for game in &recorded[held.len()..] {
            log.append(game)?;
        }
        Ok((log, recorded.len() - held.len()))
    }

    /// Appends one game and flushes it.
    pub fn append(&mut self, game: &GameRecord) -> Result<(), PgnError> {
        let text = game_to_pgn(game, game.game_id + 1)?;
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|source| PgnError::Io { path: self.path.clone(), source })
    }
}

/// The whole games `text` begins with, each game's own text. A game is read as `game_to_pgn` writes it: its
/// tags from `[Event`, a blank line, its movetext (no blank line inside), a blank line; it is whole when its
/// movetext ends with its `Result` tag's value.
fn whole_games(text: &str) -> Vec<&str> {
    let (mut games, mut length) = (Vec::new(), 0);
    while let Some(game_length) = whole_game_at_start(&text[length..]) {
        games.push(&text[length..length + game_length]);
        length += game_length;
    }
    games
}

/// Whether a game's PGN text is the record's game: the tags that name it (its round, players and result) are
/// the ones `game_to_pgn` gives the record, whatever version of Kairos wrote the rest.
fn is_pgn_of(text: &str, game: &GameRecord) -> bool {
    let tag_value = |name: &str| {
        let prefix = format!("[{name} \"");
        text.lines().find_map(|line| line.strip_prefix(&prefix)?.strip_suffix("\"]"))
    };
    let expected = [
        ("Round", (game.game_id + 1).to_string()),
        ("White", game.white.clone()),
        ("Black", game.black.clone()),
        ("Result", game.result.pgn().to_owned()),
    ];
    expected.iter().all(|(name, value)| tag_value(name) == Some(&value.replace('"', "'")))
}

fn whole_game_at_start(text: &str) -> Option<usize> {
    if !text.starts_with("[Event ") {
        return None;
    }
    let movetext_start = text.find("\n\n")? + 2;
    let length = movetext_start + text[movetext_start..].find("\n\n")? + 2;
    let tags = &text[..movetext_start];
    let result = tags.lines().find_map(|line| line.strip_prefix("[Result \"")?.strip_suffix("\"]"))?;
    (text[movetext_start..length].split_whitespace().last() == Some(result)).then_some(length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::provenance::EngineProvenance;
    use crate::runner::record::{GameResult, Termination};
    use crate::runner::variant::Variant;
    use time::format_description::well_known::Rfc3339;

    #[test]
    fn clock_text_shows_hours_minutes_seconds_and_milliseconds() {
        assert_eq!(clock_text(3_723_045), "1:02:03.045");
        assert_eq!(clock_text(-250), "-0:00:00.250");
    }

    fn mv(uci: &str, left: i64) -> MoveRecord {
        MoveRecord {
            uci: uci.into(),
            time_used_ms: 120,
            wall_ms: Some(121),
            clock_left_ms: Some(left),
            nodes: Some(800),
            depth: Some(6),
            seldepth: None,
            score: Some(Score::Centipawns(-35)),
        }
    }

    /// Fool's mate after a two-ply book, black mating.
    fn fools_mate() -> GameRecord {
        GameRecord {
            game_id: 0,
            pair_id: 0,
            white: "a".into(),
            black: "b".into(),
            white_time_control: "10+0.1".into(),
            black_time_control: "10+0.1".into(),
            opening: Opening { fen: Opening::startpos().fen, moves: vec!["f2f3".into(), "e7e5".into()] },
            variant: Variant::Standard,
            result: GameResult::BlackWins,
            termination: Termination::Checkmate,
            reason: "checkmate".into(),
            moves: vec![mv("g2g4", 9980), mv("d8h4", 9870)],
            white_engine: Some(EngineProvenance {
                id: "Kairos 0.1.0+git.0123456789ab".into(),
                command: "kairos".into(),
                options: vec![("TimeManager".into(), "legacy".into()), ("Threads".into(), "1".into())],
            }),
            black_engine: None,
            machine: Some("Some CPU, 2 cores".into()),
            started: None,
            ended: None,
        }
    }

    #[test]
    fn pgn_has_san_clock_and_engine_data() {
        let game = fools_mate();
        let pgn = game_to_pgn(&game, 1).unwrap().replace('\n', " ");
        assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
        assert!(
            pgn.contains("1. f3 {book} e5 {book} 2. g4 {[%clk 0:00:09.980] [%emt 0:00:00.120] -0.35/6 nodes=800}"),
            "{pgn}"
        );
        assert!(pgn.contains("Qh4# {[%clk 0:00:09.870]"), "{pgn}");
        assert!(!pgn.contains("[Variant"), "standard chess has no Variant tag: {pgn}");
        assert!(
            pgn.contains(
                "[WhiteEngine \"Kairos 0.1.0+git.0123456789ab\"] [WhiteOptions \"TimeManager=legacy Threads=1\"]"
            ),
            "{pgn}"
        );
        assert!(pgn.contains("[Machine \"Some CPU, 2 cores\"]") && !pgn.contains("BlackEngine"), "{pgn}");
        assert!(pgn.contains("[Date \"????.??.??\"]") && !pgn.contains("GameStartTime"), "no time recorded: {pgn}");
        // A Chess960 game: the tag, the set-up and castling (written as king takes rook) in SAN.
        let fischer = GameRecord {
            opening: Opening { fen: "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1".into(), moves: vec![] },
            variant: Variant::Chess960,
            result: GameResult::Draw,
            termination: Termination::MaxPlies,
            moves: vec![mv("e1b1", 9980), mv("e8g8", 9870)],
            ..game
        };
        let fischer_pgn = game_to_pgn(&fischer, 2).unwrap().replace('\n', " ");
        assert!(
            fischer_pgn.contains(
                "[Variant \"Chess960\"] [SetUp \"1\"] [FEN \"1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1\"]"
            ),
            "{fischer_pgn}"
        );
        assert!(
            fischer_pgn.contains("1. O-O-O {[%clk 0:00:09.980]") && fischer_pgn.contains("O-O {[%clk 0:00:09.870]"),
            "{fischer_pgn}"
        );
        assert!(pgn.trim_end().ends_with("{checkmate} 0-1"), "{pgn}");

        // A game from 23:58:50 to 00:01:05 the next day (UTC), written as cutechess and fastchess tag it.
        let moment = |text: &str| OffsetDateTime::parse(text, &Rfc3339).unwrap();
        let timed = GameRecord {
            started: Some(moment("2026-12-31T23:58:50Z")),
            ended: Some(moment("2027-01-01T00:01:05Z")),
            ..fischer
        };
        let timed_pgn = game_to_pgn(&timed, 3).unwrap();
        assert!(timed_pgn.contains("[Date \"2026.12.31\"]\n"), "{timed_pgn}");
        let times = "[GameStartTime \"2026-12-31T23:58:50Z\"]\n[GameEndTime \"2027-01-01T00:01:05Z\"]\n\
                     [GameDuration \"00:02:15\"]\n";
        assert!(timed_pgn.contains(times), "{timed_pgn}");
    }

    /// Three games as `kairos match` numbers them, the second drawn.
    fn three_games() -> Vec<GameRecord> {
        (0..3)
            .map(|game_id| GameRecord {
                game_id,
                result: if game_id == 1 { GameResult::Draw } else { GameResult::BlackWins },
                ..fools_mate()
            })
            .collect()
    }

    fn scratch_file(name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("kairos-pgn-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_pgn_cut_off_anywhere_in_a_game_keeps_only_the_games_before() {
        let games = three_games();
        let texts: Vec<String> = games.iter().map(|game| game_to_pgn(game, game.game_id + 1).unwrap()).collect();
        let two = texts[..2].concat();
        assert_eq!(whole_games(""), Vec::<&str>::new());
        assert_eq!(whole_games(&two), texts[..2]);
        assert_eq!(whole_games(&texts.concat()), texts);
        let third = &texts[2];
        let after_tags = third.find("\n\n").unwrap() + 2;
        let final_blank_line = third.len() - 1;
        for cut in [1, 20, after_tags - 1, after_tags, after_tags + 5, third.len() - 5, final_blank_line] {
            let text = format!("{two}{}", &third[..cut]);
            assert_eq!(whole_games(&text), texts[..2], "cut at byte {cut} of the third game:\n{text}");
        }
        let without_termination = "[Event \"?\"]\n[Result \"1-0\"]\n\n1. e4 e5\n\n";
        let unterminated = format!("{two}{without_termination}");
        assert_eq!(whole_games(&unterminated), texts[..2], "movetext ends with the result");
    }

    #[test]
    fn opening_the_pgn_writes_the_games_it_lacks_from_the_results() {
        let games = three_games();
        let texts: Vec<String> = games.iter().map(|game| game_to_pgn(game, game.game_id + 1).unwrap()).collect();
        let cut = &texts[1][..texts[1].len() / 2];
        let path = scratch_file("lacks", &format!("{}{cut}", texts[0]));
        let (log, written) = PgnLog::open(&path, &games).unwrap();
        drop(log);
        assert_eq!(written, 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), texts.concat(), "the cut game replaced, the third added");
        let (_, written) = PgnLog::open(&path, &games).unwrap();
        assert_eq!((written, std::fs::read_to_string(&path).unwrap()), (0, texts.concat()), "nothing lacking");

        let absent = std::env::temp_dir().join(format!("kairos-pgn-{}-absent", std::process::id()));
        let (_, written) = PgnLog::open(&absent, &[]).unwrap();
        assert_eq!((written, std::fs::read_to_string(&absent).unwrap()), (0, String::new()), "a new match");
        std::fs::remove_file(&path).unwrap();
        std::fs::remove_file(&absent).unwrap();
    }

    #[test]
    fn a_pgn_not_of_this_match_is_refused_untouched() {
        let games = three_games();
        let text: String = games.iter().map(|game| game_to_pgn(game, game.game_id + 1).unwrap()).collect();
        let path = scratch_file("more", &text);
        let refused = PgnLog::open(&path, &games[..1]).err().expect("refused");
        let message = refused.to_string();
        let named = "does not begin with the 1 games of the results file (it holds 3 games";
        assert!(message.contains(named), "{message}");
        assert!(PgnLog::open(&path, &[]).is_err(), "a new match does not append to an old PGN");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "left as it was");
        // Nor does a resumed one to a PGN that is not Kairos's (here with CRLF line ends), nor to one whose last
        // game is not the start of the results' next game.
        let crlf = text.replace('\n', "\r\n");
        std::fs::write(&path, &crlf).unwrap();
        assert!(PgnLog::open(&path, &games).is_err(), "not read as Kairos's games, so not cut");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), crlf, "left as it was");
        let first = game_to_pgn(&games[0], 1).unwrap();
        let other_start = format!("{first}[Event \"Another match\"]\n");
        std::fs::write(&path, &other_start).unwrap();
        assert!(PgnLog::open(&path, &games).is_err(), "a cut-off game that is not the next one");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), other_start, "left as it was");
        // Nor to one whose whole games are not the results' first: here its first game has another result, then
        // one with the colours reversed, each of them whole with nothing after.
        let drawn_first = game_to_pgn(&games[1], 1).unwrap();
        let reversed = GameRecord { white: "b".into(), black: "a".into(), ..games[0].clone() };
        for other_game in [drawn_first, game_to_pgn(&reversed, 1).unwrap()] {
            std::fs::write(&path, &other_game).unwrap();
            let refused = PgnLog::open(&path, &games).err().expect("another game refused").to_string();
            assert!(refused.contains("the 3 games of the results file (it holds 1 games"), "{refused}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), other_game, "left as it was");
        }
        // A game written by another version of Kairos (here without the tags that name the machine) is this one.
        std::fs::write(&path, first.replace("[Machine \"Some CPU, 2 cores\"]\n", "")).unwrap();
        assert_eq!(PgnLog::open(&path, &games).unwrap().1, 2, "the first game kept, the other two written");
        std::fs::remove_file(&path).unwrap();
    }
}
