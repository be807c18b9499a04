//! The thesis's training samples and filters: decisive games, ended in checkmate, both players rated at
//! least 2000, one time control, no ply over 15 % of the base time; one sample per ply of the winner, the
//! position before the move seen from the winner, with target ρ = time spent ÷ the clock before the move.

use std::fmt;
use std::str::FromStr;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position};

use super::clock_pgn::ClockedGame;
use super::features::{encode, FEATURES};
use super::CtmError;

/// How the game must have ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Ending {
    /// The loser was checkmated on the board (the thesis).
    Checkmate,
    /// Any decisive result: mate, resignation, time forfeit, abandonment.
    Any,
}

/// A base time and increment in seconds, as in the PGN `TimeControl` header `60+0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeControl {
    /// Seconds on the clock at the start.
    pub base: f64,
    /// Seconds added after each move.
    pub increment: f64,
}

impl FromStr for TimeControl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        match (base.trim().parse::<f64>(), increment.trim().parse::<f64>()) {
            (Ok(base), Ok(increment)) if base >= 0.0 && increment >= 0.0 => Ok(TimeControl { base, increment }),
            _ => Err(format!("'{text}' is not a time control BASE+INC in seconds such as 60+0")),
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.base, self.increment)
    }
}

/// Which time controls are kept: `any`, or a comma-separated list such as `60+0,180+0`.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeControlFilter {
    /// Every game with a time control.
    Any,
    /// Only these.
    Only(Vec<TimeControl>),
}

impl FromStr for TimeControlFilter {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text == "any" {
            return Ok(TimeControlFilter::Any);
        }
        text.split(',').map(str::parse).collect::<Result<Vec<_>, _>>().map(TimeControlFilter::Only)
    }
}

impl fmt::Display for TimeControlFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControlFilter::Any => write!(f, "any"),
            TimeControlFilter::Only(list) => {
                let names: Vec<String> = list.iter().map(ToString::to_string).collect();
                write!(f, "{}", names.join(","))
            }
        }
    }
}

/// The filters, each defaulting to the thesis's value.
#[derive(Clone, Debug)]
pub struct Filters {
    /// How the game ended.
    pub ending: Ending,
    /// Both players' rating at least this.
    pub min_rating: u32,
    /// Which time controls.
    pub time_control: TimeControlFilter,
    /// Games where any ply took more than this share of the base time are dropped.
    pub max_ply_share: f64,
}

impl Default for Filters {
    fn default() -> Self {
        Filters {
            ending: Ending::Checkmate,
            min_rating: 2000,
            time_control: TimeControlFilter::Only(vec![TimeControl { base: 60.0, increment: 0.0 }]),
            max_ply_share: 0.15,
        }
    }
}

/// How many games and plies are left after a filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterRow {
    /// The filter, with its value.
    pub name: String,
    /// Games left.
    pub games: usize,
    /// Plies of those games (the last row: samples).
    pub plies: usize,
}

/// One training sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The 769 inputs from the winner's view.
    pub features: [u8; FEATURES],
    /// ρ = time spent on the ply ÷ the winner's clock before it.
    pub rho: f32,
    /// Which game (numbered across all input files), for the split by game.
    pub game: u32,
}

/// A game that passed the header filters, with its clocks checked.
struct Timed<'a> {
    game: &'a ClockedGame,
    /// The game's number in the input.
    id: u32,
    winner: Color,
    control: TimeControl,
    /// Seconds each ply took (clock before − clock after + increment).
    spent: Vec<f64>,
    /// The mover's clock before each ply.
    before: Vec<f64>,
}

/// The clocks of a game's plies: each ply's time spent and the clock before it, or why they cannot be used.
pub fn ply_times(clocks: &[Option<f64>], control: TimeControl) -> Result<(Vec<f64>, Vec<f64>), String> {
    let mut last = [control.base, control.base];
    let (mut spent, mut before) = (Vec::with_capacity(clocks.len()), Vec::with_capacity(clocks.len()));
    for (ply, clock) in clocks.iter().enumerate() {
        let clock = clock.ok_or_else(|| format!("ply {} has no %clk", ply + 1))?;
        let side = ply % 2;
        let used = last[side] - clock + control.increment;
        if used < 0.0 {
            return Err(format!(
                "ply {}: the clock rose from {} to {clock} s, more than the increment",
                ply + 1,
                last[side]
            ));
        }
        spent.push(used);
        before.push(last[side]);
        last[side] = clock;
    }
    Ok((spent, before))
}

fn starting_position(game: &ClockedGame) -> Result<Chess, CtmError> {
    match &game.fen {
        None => Ok(Chess::default()),
        Some(fen) => fen
            .parse::<Fen>()
            .ok()
            .and_then(|fen| fen.into_position(CastlingMode::Standard).ok())
            .ok_or_else(|| game.error(format!("bad FEN header '{fen}'; fix the game or pass --skip-bad-games"))),
    }
}

/// Plays the game through, returning the position before each move and the final one.
fn replay(game: &ClockedGame) -> Result<(Vec<Chess>, Chess), CtmError> {
    let mut position = starting_position(game)?;
    let mut before = Vec::with_capacity(game.moves.len());
    for (ply, san) in game.moves.iter().enumerate() {
        let mv = san.san.to_move(&position).map_err(|_| {
            game.error(format!("ply {}: illegal move {san}; fix the game or pass --skip-bad-games", ply + 1))
        })?;
        before.push(position.clone());
        position.play_unchecked(mv);
    }
    Ok((before, position))
}

/// Counts the games and plies of a stage.
fn row(name: String, games: &[&ClockedGame]) -> FilterRow {
    FilterRow { name, games: games.len(), plies: games.iter().map(|g| g.moves.len()).sum() }
}

/// Applies the filters in order and builds the samples; a sample's game id is the game's index in `games`.
/// Games whose clock rises by more than the increment (on Lichess the opponent can give time) are filtered
/// out; games that cannot be replayed are errors, or with `skip_bad` are dropped and counted.
pub fn extract(
    games: &[ClockedGame],
    filters: &Filters,
    skip_bad: bool,
) -> Result<(Vec<Sample>, Vec<FilterRow>), CtmError> {
    let mut rows = Vec::new();
    let all: Vec<&ClockedGame> = games.iter().collect();
    rows.push(row("read".into(), &all));

    let mut clocked = Vec::new();
    let mut timed = Vec::new();
    for (id, game) in games.iter().enumerate() {
        let control = game.time_control.as_deref().and_then(|tc| tc.parse::<TimeControl>().ok());
        let complete = !game.moves.is_empty() && game.clocks.iter().all(Option::is_some);
        let (Some(control), true) = (control, complete) else { continue };
        clocked.push(game);
        if let Ok((spent, before)) = ply_times(&game.clocks, control) {
            timed.push(Timed { game, id: id as u32, winner: Color::White, control, spent, before });
        }
    }
    rows.push(row("%clk on every ply, known time control".into(), &clocked));
    let stage = |name: String, timed: &[Timed]| row(name, &timed.iter().map(|t| t.game).collect::<Vec<_>>());
    rows.push(stage("clock never rises by more than the increment".into(), &timed));

    timed.retain_mut(|t| match t.game.result.as_deref() {
        Some("1-0") => {
            t.winner = Color::White;
            true
        }
        Some("0-1") => {
            t.winner = Color::Black;
            true
        }
        _ => false,
    });
    rows.push(stage("decisive (1-0 or 0-1)".into(), &timed));

    timed.retain(|t| {
        let rating = |elo: Option<u32>| elo.map_or(filters.min_rating == 0, |elo| elo >= filters.min_rating);
        rating(t.game.white_elo) && rating(t.game.black_elo)
    });
    rows.push(stage(format!("both rated >= {}", filters.min_rating), &timed));

    if let TimeControlFilter::Only(list) = &filters.time_control {
        timed.retain(|t| list.contains(&t.control));
    }
    rows.push(stage(format!("time control {}", filters.time_control), &timed));

    timed.retain(|t| t.spent.iter().all(|&s| s <= filters.max_ply_share * t.control.base));
    rows.push(stage(format!("no ply > {} % of base time", filters.max_ply_share * 100.0), &timed));

    let mut replayed = Vec::new();
    let mut unplayable = 0;
    for t in timed {
        match replay(t.game) {
            Ok((positions, end)) => {
                if filters.ending == Ending::Any || end.is_checkmate() {
                    replayed.push((t, positions));
                }
            }
            Err(_) if skip_bad => unplayable += 1,
            Err(error) => return Err(error),
        }
    }
    let games: Vec<&ClockedGame> = replayed.iter().map(|(t, _)| t.game).collect();
    let mut ending = match filters.ending {
        Ending::Checkmate => "ended in checkmate".to_string(),
        Ending::Any => "ending: any".to_string(),
    };
    if unplayable > 0 {
        ending.push_str(&format!(" ({unplayable} with illegal moves dropped)"));
    }
    rows.push(row(ending, &games));

    let mut samples = Vec::new();
    for (t, positions) in &replayed {
        for (ply, position) in positions.iter().enumerate() {
            if position.turn() != t.winner || t.before[ply] <= 0.0 {
                continue;
            }
            samples.push(Sample {
                features: encode(position.board(), t.winner),
                rho: (t.spent[ply] / t.before[ply]) as f32,
                game: t.id,
            });
        }
    }
    rows.push(FilterRow {
        name: "winner's plies with clock > 0 (samples)".into(),
        games: replayed.len(),
        plies: samples.len(),
    });
    Ok((samples, rows))
}

/// The filter table as printed by `tm-data`.
pub fn format_table(rows: &[FilterRow]) -> String {
    let width = rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(0).max(6);
    let mut out = format!("{:<width$}  {:>7}  {:>8}\n", "filter", "games", "plies");
    for r in rows {
        out.push_str(&format!("{:<width$}  {:>7}  {:>8}\n", r.name, r.games, r.plies));
    }
    out
}
