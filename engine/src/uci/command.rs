//! Parsing one UCI input line into a typed command; every malformed line becomes a [`CommandError`].

use timemgr::GoParams;

/// One command of the UCI protocol, as the engine understands it.
#[derive(Clone, Debug, PartialEq)]
pub enum UciCommand {
    /// `uci`: identify and list the options.
    Uci,
    /// `debug on|off`: accepted and ignored.
    Debug,
    /// `isready`: load what is still unloaded, then answer `readyok`.
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option's name (may contain spaces).
        name: String,
        /// The value; empty when `value` is absent.
        value: String,
    },
    /// `register ...`: accepted and ignored.
    Register,
    /// `ucinewgame`: forget the tree, the cache and the time manager's state.
    UciNewGame,
    /// `position startpos|fen <fen> [moves ...]`.
    Position {
        /// The FEN, or None for the start position.
        fen: Option<String>,
        /// The moves in UCI notation.
        moves: Vec<String>,
    },
    /// `go ...`.
    Go(GoCommand),
    /// `stop`: end the search and send its best move.
    Stop,
    /// `ponderhit`: the predicted move was played; search on as a normal timed search.
    PonderHit,
    /// `wait` (lc0's, not UCI's): read no further command until the search in flight has sent its best move, so
    /// that a script can send `go` and `quit` at once.
    Wait,
    /// `quit`.
    Quit,
}

/// The fields of a `go` command.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoCommand {
    /// Clock, limits, infinite and ponder.
    pub params: GoParams,
    /// `searchmoves`: restrict the root to these moves (UCI notation); empty = all moves.
    pub searchmoves: Vec<String>,
}

/// Why a line is not a command the engine can act on; the message names the problem and the fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The first word is not a UCI command.
    #[error(
        "unknown command '{0}'; expected uci, isready, setoption, ucinewgame, position, go, stop, ponderhit, wait \
         or quit"
    )]
    Unknown(String),
    /// `position` without `startpos` or `fen`.
    #[error("position needs 'startpos' or 'fen <fen>', got '{0}'")]
    PositionSource(String),
    /// `position` with something other than `moves` after the position.
    #[error("position: expected 'moves' after the position, got '{0}'")]
    PositionMoves(String),
    /// `setoption` without `name <name>`.
    #[error("setoption needs 'name <name> [value <value>]'")]
    SetOptionSyntax,
    /// A `go` field without a valid number after it.
    #[error("go {field}: '{value}' is not a valid value; expected {expected}")]
    GoValue {
        /// The field, e.g. `wtime`.
        field: &'static str,
        /// What followed it (empty when nothing did).
        value: String,
        /// What the field accepts.
        expected: &'static str,
    },
    /// A word in `go` that is no `go` field.
    #[error("go: unknown field '{0}'; expected wtime, btime, winc, binc, movestogo, movetime, nodes, depth, mate, infinite, ponder or searchmoves")]
    GoField(String),
}

/// Parses one input line; `Ok(None)` for a blank line.
pub fn parse_command(line: &str) -> Result<Option<UciCommand>, CommandError> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let command = match first {
        "uci" => UciCommand::Uci,
        "debug" => UciCommand::Debug,
        "isready" => UciCommand::IsReady,
        "setoption" => parse_setoption(&rest)?,
        "register" => UciCommand::Register,
        "ucinewgame" => UciCommand::UciNewGame,
        "position" => parse_position(&rest)?,
        "go" => UciCommand::Go(parse_go(&rest)?),
        "stop" => UciCommand::Stop,
        "ponderhit" => UciCommand::PonderHit,
        "wait" => UciCommand::Wait,
        "quit" => UciCommand::Quit,
        other => return Err(CommandError::Unknown(other.to_string())),
    };
    Ok(Some(command))
}

fn parse_setoption(words: &[&str]) -> Result<UciCommand, CommandError> {
    if words.first() != Some(&"name") {
        return Err(CommandError::SetOptionSyntax);
    }
    let body = &words[1..];
    let value_at = body.iter().position(|word| *word == "value").unwrap_or(body.len());
    let name = body[..value_at].join(" ");
    if name.is_empty() {
        return Err(CommandError::SetOptionSyntax);
    }
    let value = body.get(value_at + 1..).map(|value| value.join(" ")).unwrap_or_default();
    Ok(UciCommand::SetOption { name, value })
}

fn parse_position(words: &[&str]) -> Result<UciCommand, CommandError> {
    let moves_at = words.iter().position(|word| *word == "moves").unwrap_or(words.len());
    let (source, moves) = words.split_at(moves_at);
    let fen = match source.split_first() {
        Some((&"startpos", [])) => None,
        Some((&"startpos", [extra, ..])) => return Err(CommandError::PositionMoves(extra.to_string())),
        Some((&"fen", fields)) if !fields.is_empty() => Some(fields.join(" ")),
        _ => return Err(CommandError::PositionSource(source.join(" "))),
    };
    let moves = moves.iter().skip(1).map(|mv| mv.to_string()).collect();
    Ok(UciCommand::Position { fen, moves })
}

fn parse_go(words: &[&str]) -> Result<GoCommand, CommandError> {
    let mut go = GoCommand::default();
    let mut index = 0;
    while index < words.len() {
        let field = words[index];
        index += 1;
        let value = words.get(index).copied().unwrap_or("");
        let params = &mut go.params;
        let consumed = match field {
            "infinite" => {
                params.infinite = true;
                false
            }
            "ponder" => {
                params.ponder = true;
                false
            }
            "searchmoves" => {
                let count = words[index..].iter().take_while(|word| looks_like_uci_move(word)).count();
                go.searchmoves.extend(words[index..index + count].iter().map(|mv| mv.to_string()));
                index += count;
                false
            }
            "wtime" => store(&mut params.wtime, "wtime", value, "an integer number of milliseconds")?,
            "btime" => store(&mut params.btime, "btime", value, "an integer number of milliseconds")?,
            "winc" => store(&mut params.winc, "winc", value, "an integer number of milliseconds")?,
            "binc" => store(&mut params.binc, "binc", value, "an integer number of milliseconds")?,
            "movetime" => store(&mut params.movetime, "movetime", value, "an integer number of milliseconds")?,
            "movestogo" => store(&mut params.movestogo, "movestogo", value, "an integer number of moves")?,
            "nodes" => store(&mut params.nodes, "nodes", value, "a non-negative integer")?,
            "depth" => store(&mut params.depth, "depth", value, "a non-negative integer")?,
            "mate" => store(&mut params.mate, "mate", value, "a non-negative integer number of moves")?,
            other => return Err(CommandError::GoField(other.to_string())),
        };
        if consumed {
            index += 1;
        }
    }
    Ok(go)
}

/// Parses `value` into `slot`; returns true (the value word was consumed).
fn store<T: std::str::FromStr>(
    slot: &mut Option<T>,
    field: &'static str,
    value: &str,
    expected: &'static str,
) -> Result<bool, CommandError> {
    let parsed = value.parse().map_err(|_| CommandError::GoValue { field, value: value.to_string(), expected })?;
    *slot = Some(parsed);
    Ok(true)
}

/// Whether a word has the shape of a UCI move (`e2e4`, `e7e8q`, `0000`), so `searchmoves` knows where
/// its list ends.
fn looks_like_uci_move(word: &str) -> bool {
    let bytes = word.as_bytes();
    let square = |file: u8, rank: u8| (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&rank);
    match bytes {
        [f1, r1, f2, r2] => square(*f1, *r1) && square(*f2, *r2),
        [f1, r1, f2, r2, promotion] => square(*f1, *r1) && square(*f2, *r2) && b"qrbn".contains(promotion),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> UciCommand {
        parse_command(line).unwrap().unwrap()
    }

    #[test]
    fn go_reads_every_field() {
        let UciCommand::Go(go) = parse(
            "go wtime 60000 btime -5 winc 1000 binc 0 movestogo 40 movetime 500 nodes 800 depth 12 mate 3 \
             infinite ponder searchmoves e2e4 e7e8q",
        ) else {
            panic!("not a go");
        };
        let p = &go.params;
        assert_eq!((p.wtime, p.btime, p.winc, p.binc), (Some(60000), Some(-5), Some(1000), Some(0)));
        assert_eq!(
            (p.movestogo, p.movetime, p.nodes, p.depth, p.mate),
            (Some(40), Some(500), Some(800), Some(12), Some(3))
        );
        assert!(p.infinite && p.ponder);
        assert_eq!(go.searchmoves, vec!["e2e4", "e7e8q"]);
    }

    #[test]
    fn searchmoves_ends_at_the_next_field() {
        let UciCommand::Go(go) = parse("go searchmoves e2e4 d2d4 nodes 10") else { panic!("not a go") };
        assert_eq!(go.searchmoves, vec!["e2e4", "d2d4"]);
        assert_eq!(go.params.nodes, Some(10));
    }

    #[test]
    fn bad_go_values_are_named() {
        assert_eq!(
            parse_command("go nodes -3"),
            Err(CommandError::GoValue { field: "nodes", value: "-3".into(), expected: "a non-negative integer" })
        );
        assert!(matches!(parse_command("go wtime"), Err(CommandError::GoValue { field: "wtime", .. })));
        assert_eq!(parse_command("go fast"), Err(CommandError::GoField("fast".into())));
    }

    #[test]
    fn position_forms() {
        assert_eq!(parse("position startpos"), UciCommand::Position { fen: None, moves: vec![] });
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            UciCommand::Position { fen: None, moves: vec!["e2e4".into(), "e7e5".into()] }
        );
        assert_eq!(
            parse("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 moves a1a2"),
            UciCommand::Position { fen: Some("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()), moves: vec!["a1a2".into()] }
        );
        assert!(matches!(parse_command("position"), Err(CommandError::PositionSource(_))));
        assert!(matches!(parse_command("position fen"), Err(CommandError::PositionSource(_))));
        assert!(matches!(parse_command("position startpos e2e4"), Err(CommandError::PositionMoves(_))));
    }

    #[test]
    fn setoption_names_and_values_may_contain_spaces() {
        assert_eq!(
            parse("setoption name Weights File value /tmp/a b.pb.gz"),
            UciCommand::SetOption { name: "Weights File".into(), value: "/tmp/a b.pb.gz".into() }
        );
        assert_eq!(
            parse("setoption name TmTraceFile"),
            UciCommand::SetOption { name: "TmTraceFile".into(), value: String::new() }
        );
        assert_eq!(parse_command("setoption value 3"), Err(CommandError::SetOptionSyntax));
        assert_eq!(parse_command("setoption name value 3"), Err(CommandError::SetOptionSyntax));
    }

    #[test]
    fn blank_and_unknown_lines() {
        assert_eq!(parse_command("   "), Ok(None));
        assert_eq!(parse_command("xyzzy 1 2"), Err(CommandError::Unknown("xyzzy".into())));
        assert_eq!(parse("  isready  "), UciCommand::IsReady);
    }

    /// What any line must parse to: nothing for a blank line; else a command or an error of the command its
    /// first word names (or `Unknown` naming that word); a parsed `setoption` reads back the same when written
    /// out again.
    fn assert_parse_matches_the_first_word(line: &str) {
        let first = line.split_whitespace().next();
        let parsed = parse_command(line);
        match (first, parsed) {
            (None, result) => assert_eq!(result, Ok(None), "{line:?}"),
            (Some(_), Ok(None)) => panic!("{line:?}: a line with words is no blank line"),
            (Some(first), Ok(Some(command))) => {
                let expected = match &command {
                    UciCommand::Uci => "uci",
                    UciCommand::Debug => "debug",
                    UciCommand::IsReady => "isready",
                    UciCommand::SetOption { name, value } => {
                        let again = parse_command(&format!("setoption name {name} value {value}"));
                        assert_eq!(again, Ok(Some(command.clone())), "{line:?}");
                        "setoption"
                    }
                    UciCommand::Register => "register",
                    UciCommand::UciNewGame => "ucinewgame",
                    UciCommand::Position { .. } => "position",
                    UciCommand::Go(_) => "go",
                    UciCommand::Stop => "stop",
                    UciCommand::PonderHit => "ponderhit",
                    UciCommand::Wait => "wait",
                    UciCommand::Quit => "quit",
                };
                assert_eq!(first, expected, "{line:?}");
            }
            (Some(first), Err(error)) => {
                let owner = match &error {
                    CommandError::Unknown(word) => {
                        assert_eq!(word, first, "{line:?}");
                        return;
                    }
                    CommandError::SetOptionSyntax => "setoption",
                    CommandError::PositionSource(_) | CommandError::PositionMoves(_) => "position",
                    CommandError::GoValue { .. } | CommandError::GoField(_) => "go",
                };
                assert_eq!(first, owner, "{line:?}: {error}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_line_parses_to_what_its_first_word_names(line in "\\PC{0,80}") {
            assert_parse_matches_the_first_word(&line);
        }

        #[test]
        fn lines_of_command_words_parse_to_what_their_first_word_names(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "go", "position", "setoption", "name", "value", "moves", "fen", "startpos", "searchmoves",
                    "wtime", "nodes", "infinite", "ponder", "-1", "99999999999999999999", "e2e4", "e7e8q", "",
                    "uci", "debug", "isready", "register", "ucinewgame", "stop", "ponderhit", "wait", "quit",
                ]),
                0..12,
            )
        ) {
            assert_parse_matches_the_first_word(&words.join(" "));
        }
    }
}
