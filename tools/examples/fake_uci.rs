//! A scripted UCI engine for the match-runner tests: plays legal moves at once and misbehaves on request.
//!
//! Arguments: `--fail crash|hang|illegal|nobestmove|overrun|slow|stuck` with `--at N` (the N-th `go` of each game,
//! default 1) and `--time MS` (the `time` reported in `info`, which a virtual-clock runner charges; default 7).
//! `slow` searches for 2 s of wall time, reporting more nodes every 100 ms, then answers; `stuck` reports the same
//! nodes every 100 ms and never answers.
//! `--expect-option NAME` makes it exit at the first `go` unless `setoption name NAME ...` came before. A `--fail`
//! comes in games only: a search before the first `ucinewgame` (`kairos match`'s check before its first game) plays.

use std::io::{BufRead, Write};
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position};

struct Script {
    failure: Option<String>,
    at_go: u32,
    reported_time_ms: u64,
    expected_option: Option<String>,
}

fn parse_args() -> Script {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    Script {
        failure: value("--fail"),
        at_go: value("--at").and_then(|v| v.parse().ok()).unwrap_or(1),
        reported_time_ms: value("--time").and_then(|v| v.parse().ok()).unwrap_or(7),
        expected_option: value("--expect-option"),
    }
}

fn parse_position(words: &[&str]) -> Option<Chess> {
    let moves_at = words.iter().position(|w| *w == "moves").unwrap_or(words.len());
    let mut position = match words.get(1) {
        Some(&"startpos") => Chess::default(),
        Some(&"fen") => words[2..moves_at].join(" ").parse::<Fen>().ok()?.into_position(CastlingMode::Standard).ok()?,
        _ => return None,
    };
    for text in words.iter().skip(moves_at + 1) {
        let m = text.parse::<UciMove>().ok()?.to_move(&position).ok()?;
        position.play_unchecked(m);
    }
    Some(position)
}

fn clock_of(words: &[&str], name: &str) -> u64 {
    words.iter().position(|w| *w == name).and_then(|i| words.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn main() {
    let script = parse_args();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut position = Chess::default();
    let mut searches = 0u32;
    let mut in_game = false;
    let mut options_set: Vec<String> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let reply = match words.first().copied() {
            Some("uci") => "id name FakeUci\nid author Kairos tests\nuciok".to_owned(),
            Some("isready") => "readyok".to_owned(),
            Some("ucinewgame") => {
                searches = 0;
                in_game = true;
                continue;
            }
            Some("setoption") => {
                options_set.extend(words.get(2).map(|name| name.to_string()));
                continue;
            }
            Some("position") => {
                position = parse_position(&words).unwrap_or_default();
                continue;
            }
            Some("go") => {
                if script.expected_option.as_ref().is_some_and(|name| !options_set.contains(name)) {
                    std::process::exit(4);
                }
                searches += 1;
                let failing = (in_game && searches == script.at_go).then_some(script.failure.as_deref()).flatten();
                let legal = position.legal_moves();
                let ply = position.fullmoves().get() * 2 + u32::from(position.turn() == Color::Black);
                let chosen = legal.get((ply as usize * 7 + searches as usize) % legal.len().max(1));
                let best = chosen.map(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string());
                let info = format!(
                    "info depth {} seldepth {} nodes {} score cp {} time {} pv {}",
                    1 + ply % 5,
                    3 + ply % 7,
                    100 + 10 * u64::from(ply),
                    i64::from(ply % 9) - 4,
                    script.reported_time_ms,
                    best.as_deref().unwrap_or("")
                );
                match failing {
                    Some("crash") => std::process::exit(3),
                    Some("hang") => loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    },
                    Some("slow") => {
                        for step in 1..=20 {
                            std::thread::sleep(Duration::from_millis(100));
                            let _ = writeln!(out, "info nodes {} time {}", step * 1000, script.reported_time_ms);
                            let _ = out.flush();
                        }
                        format!("{info}\nbestmove {}", best.unwrap_or_else(|| "(none)".into()))
                    }
                    Some("stuck") => loop {
                        std::thread::sleep(Duration::from_millis(100));
                        let _ = writeln!(out, "info nodes 1000 time {}", script.reported_time_ms);
                        let _ = out.flush();
                    },
                    Some("illegal") => format!("{info}\nbestmove a1a1"),
                    Some("nobestmove") => format!("{info}\nbestmove (none)"),
                    Some("overrun") => {
                        let own = if position.turn() == Color::White { "wtime" } else { "btime" };
                        std::thread::sleep(Duration::from_millis(clock_of(&words, own) + 400));
                        format!("{info}\nbestmove {}", best.unwrap_or_else(|| "(none)".into()))
                    }
                    _ => format!("{info}\nbestmove {}", best.unwrap_or_else(|| "(none)".into())),
                }
            }
            Some("quit") => break,
            _ => continue,
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}
