//! Plays one game between two engine slots, enforcing the rules, the clocks and the adjudication settings.

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Position};

use super::adjudication::{Adjudicator, DrawAdjudication, ResignAdjudication, Verdict};
use super::engine_config::EngineConfig;
use super::openings::{InvalidOpening, Opening};
use super::provenance::{machine_description, EngineProvenance};
use super::record::{utc_now_in_seconds, GameRecord, GameResult, MoveRecord, Termination};
use super::time_control::{GoLimits, SideClock};
use super::uci_process::{EngineFailure, SearchDeadline, UciProcess};
use super::variant::Variant;

/// Settings shared by every game of a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSettings {
    /// Draw when the game reaches this many plies after the opening.
    pub max_plies: Option<u32>,
    /// Optional draw adjudication.
    pub draw_adjudication: Option<DrawAdjudication>,
    /// Optional resign adjudication.
    pub resign_adjudication: Option<ResignAdjudication>,
    /// Time a move may exceed the clock by before it is a time loss (pipe and scheduling latency).
    pub latency_margin_ms: u64,
    /// Extra wall time after the clock runs out before a silent engine counts as hung and is killed.
    pub hang_grace_ms: u64,
    /// Wall time a fixed-node or virtual-clock search may go without reporting more nodes before the engine counts
    /// as hung.
    pub stall_timeout_ms: u64,
    /// Wall time for the `uci` and `isready` handshakes.
    pub startup_timeout_ms: u64,
    /// Charge the time engines report (`info ... time`) instead of wall time (Kairos's virtual clock).
    pub virtual_clock: bool,
    /// Standard chess or Chess960.
    #[serde(default)]
    pub variant: Variant,
}

impl Default for GameSettings {
    fn default() -> Self {
        GameSettings {
            max_plies: None,
            draw_adjudication: None,
            resign_adjudication: None,
            latency_margin_ms: 50,
            hang_grace_ms: 5000,
            stall_timeout_ms: 60_000,
            startup_timeout_ms: 60_000,
            virtual_clock: false,
            variant: Variant::Standard,
        }
    }
}

/// An engine configuration and, once started, its process; restarted after a failure.
pub struct EngineSlot {
    config: EngineConfig,
    process: Option<UciProcess>,
    /// The running engine's provenance: its `id name`, command and options (set when it starts).
    provenance: Option<EngineProvenance>,
}

impl EngineSlot {
    /// A slot that starts its engine on first use.
    pub fn new(config: EngineConfig) -> Self {
        EngineSlot { config, process: None, provenance: None }
    }

    /// The configuration this slot runs.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    fn prepare(&mut self, settings: &GameSettings) -> Result<&mut UciProcess, EngineFailure> {
        let timeout = Duration::from_millis(settings.startup_timeout_ms);
        let reused = self.process.take().and_then(|mut process| {
            let fresh_game = process.send("ucinewgame").and_then(|()| process.sync(timeout));
            fresh_game.is_ok().then_some(process)
        });
        let process = match reused {
            Some(process) => process,
            None => {
                let mut extra = Vec::new();
                if settings.virtual_clock && self.config.speaks_virtual_clock {
                    extra.push(("VirtualClock".to_owned(), "true".to_owned()));
                }
                if let Some((name, value)) = settings.variant.uci_option() {
                    extra.push((name.to_owned(), value.to_owned()));
                }
                let mut process = UciProcess::start(&self.config, &extra, timeout)?;
                let command = std::iter::once(self.config.command.display().to_string())
                    .chain(self.config.args.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(" ");
                let options = self.config.options.iter().chain(&extra).cloned().collect();
                self.provenance = Some(EngineProvenance { id: process.id_name().to_owned(), command, options });
                process.send("ucinewgame")?;
                process.sync(timeout)?;
                process
            }
        };
        Ok(self.process.insert(process))
    }

    /// Kills the engine so that the next game starts a fresh one.
    pub fn discard(&mut self) {
        self.process = None;
    }

    /// Sends `quit` and lets the engine exit.
    pub fn shut_down(&mut self) {
        if let Some(process) = self.process.take() {
            process.quit();
        }
    }
}

/// The game's identity in the match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameJob {
    /// Position in the schedule.
    pub game_id: u64,
    /// The pair this game belongs to.
    pub pair_id: u64,
    /// Index of the white engine in the plan.
    pub white: usize,
    /// Index of the black engine in the plan.
    pub black: usize,
    /// The opening.
    pub opening: Opening,
}

struct Ending {
    result: GameResult,
    termination: Termination,
    reason: String,
    /// Whether white (true) or black (false) misbehaved and must be restarted.
    culprit: Option<bool>,
}

impl Ending {
    fn loss(white_lost: bool, termination: Termination, reason: String) -> Self {
        Ending { result: GameResult::win_for(!white_lost), termination, reason, culprit: Some(white_lost) }
    }

    fn draw(termination: Termination, reason: &str) -> Self {
        Ending { result: GameResult::Draw, termination, reason: reason.to_owned(), culprit: None }
    }
}

/// Plays one game; engine failures become losses for the failing side and never abort the match.
pub fn play_game(job: &GameJob, white: &mut EngineSlot, black: &mut EngineSlot, settings: &GameSettings) -> GameRecord {
    let started = utc_now_in_seconds();
    let mut moves = Vec::new();
    let ending = run_game(job, [&mut *white, &mut *black], settings, &mut moves);
    if let Some(white_failed) = ending.culprit.filter(|_| ending.termination.needs_restart()) {
        if white_failed {
            white.discard()
        } else {
            black.discard()
        }
    }
    GameRecord {
        game_id: job.game_id,
        pair_id: job.pair_id,
        white: white.config.name.clone(),
        black: black.config.name.clone(),
        white_time_control: white.config.time_control.to_string(),
        black_time_control: black.config.time_control.to_string(),
        opening: job.opening.clone(),
        variant: settings.variant,
        result: ending.result,
        termination: ending.termination,
        reason: ending.reason,
        moves,
        white_engine: white.provenance.clone(),
        black_engine: black.provenance.clone(),
        machine: Some(machine_description().to_owned()),
        started: Some(started),
        ended: Some(utc_now_in_seconds()),
    }
}

fn failure_ending(white: bool, name: &str, failure: EngineFailure) -> Ending {
    let termination = match failure {
        EngineFailure::StartFailed { .. } => Termination::EngineStartFailed,
        EngineFailure::Hung { .. } => Termination::EngineHung,
        EngineFailure::Crashed { .. } | EngineFailure::WriteFailed(_) => Termination::EngineCrashed,
    };
    Ending::loss(white, termination, format!("{name}: {failure}"))
}

fn run_game(
    job: &GameJob,
    mut slots: [&mut EngineSlot; 2],
    settings: &GameSettings,
    moves: &mut Vec<MoveRecord>,
) -> Ending {
    for (index, slot) in slots.iter_mut().enumerate() {
        if let Err(failure) = slot.prepare(settings) {
            let ending = failure_ending(index == 0, &slot.config.name, failure);
            return Ending { termination: Termination::EngineStartFailed, ..ending };
        }
    }
    let ReplayedOpening { mut position, mut history, moves: mut played } =
        match replay_opening(&job.opening, settings.variant) {
            Ok(start) => start,
            Err(invalid) => return Ending::draw(Termination::InvalidOpening, &invalid.to_string()),
        };
    let start_command = if job.opening.fen == Opening::startpos().fen {
        "position startpos".to_owned()
    } else {
        format!("position fen {}", job.opening.fen)
    };
    let mut clocks = [SideClock::new(slots[0].config.time_control), SideClock::new(slots[1].config.time_control)];
    let mut adjudicator = Adjudicator::new(settings.draw_adjudication, settings.resign_adjudication);
    loop {
        if let Some(ending) = rules_ending(&position, &history) {
            return ending;
        }
        if settings.max_plies.is_some_and(|max| moves.len() as u32 >= max) {
            return Ending::draw(Termination::MaxPlies, "maximum plies reached");
        }
        let white_to_move = position.turn() == Color::White;
        let side = usize::from(!white_to_move);
        let name = slots[side].config.name.clone();
        let command = if played.is_empty() {
            start_command.clone()
        } else {
            format!("{start_command} moves {}", played.join(" "))
        };
        let go = go_command(&clocks, side);
        let deadline = move_deadline(&clocks[side], settings);
        let search = match slots[side].process.as_mut() {
            Some(process) => process.search(&command, &go, deadline),
            None => Err(EngineFailure::Crashed { exit_status: None }),
        };
        let report = match search {
            Ok(report) => report,
            Err(failure) => return failure_ending(white_to_move, &name, failure),
        };
        if matches!(report.best_move.as_str(), "" | "(none)" | "0000") {
            let text = format!("{name}: bestmove '{}' with legal moves available", report.best_move);
            return Ending::loss(white_to_move, Termination::NoBestMove, text);
        }
        let chess_move = match report.best_move.parse::<UciMove>().ok().and_then(|m| m.to_move(&position).ok()) {
            Some(m) => m,
            None => {
                let text = format!("{name}: illegal move '{}'", report.best_move);
                return Ending::loss(white_to_move, Termination::IllegalMove, text);
            }
        };
        let used_ms = if settings.virtual_clock { report.reported_time_ms.unwrap_or(0) } else { report.wall_ms };
        let left_before = clocks[side].remaining_ms();
        if !clocks[side].charge(used_ms, settings.latency_margin_ms) {
            let text = format!("{name} used {used_ms} ms with {left_before} ms left");
            let winner = if white_to_move { Color::Black } else { Color::White };
            if position.has_insufficient_material(winner) {
                return Ending::draw(Termination::TimeForfeit, &format!("{text}; the opponent cannot mate"));
            }
            return Ending::loss(white_to_move, Termination::TimeForfeit, text);
        }
        let uci = UciMove::from_move(chess_move, settings.variant.castling_mode()).to_string();
        moves.push(MoveRecord {
            uci: uci.clone(),
            time_used_ms: used_ms,
            wall_ms: (!settings.virtual_clock).then_some(report.wall_ms),
            clock_left_ms: clocks[side].has_clock().then(|| clocks[side].remaining_ms()),
            nodes: report.nodes,
            depth: report.depth,
            seldepth: report.seldepth,
            score: report.score,
        });
        played.push(uci);
        position.play_unchecked(chess_move);
        *history.entry(position_key(&position)).or_insert(0) += 1;
        if let Some(verdict) = adjudicator.after_move(white_to_move, report.score, position.fullmoves().get()) {
            return match verdict {
                Verdict::Draw => Ending::draw(Termination::DrawAdjudication, "both engines report a level score"),
                Verdict::Resign { white_lost } => {
                    let loser = slots[usize::from(!white_lost)].config.name.clone();
                    Ending {
                        culprit: None,
                        ..Ending::loss(white_lost, Termination::ResignAdjudication, format!("{loser} resigns"))
                    }
                }
            };
        }
    }
}

fn position_key(position: &Chess) -> u64 {
    position.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// An opening played out: where the game starts.
struct ReplayedOpening {
    /// The position after the book moves.
    position: Chess,
    /// How often each position occurred.
    history: HashMap<u64, u32>,
    /// The book moves in the variant's notation.
    moves: Vec<String>,
}

/// The opening played out, its moves in the variant's notation (a Chess960 engine reads castling as king
/// takes rook, whatever notation the book used).
fn replay_opening(opening: &Opening, variant: Variant) -> Result<ReplayedOpening, InvalidOpening> {
    let (positions, book_moves) = opening.replay()?;
    let mut history = HashMap::new();
    for position in &positions {
        *history.entry(position_key(position)).or_insert(0) += 1;
    }
    let moves = book_moves.into_iter().map(|m| UciMove::from_move(m, variant.castling_mode()).to_string()).collect();
    let position = positions.last().cloned().unwrap_or_default();
    Ok(ReplayedOpening { position, history, moves })
}

fn rules_ending(position: &Chess, history: &HashMap<u64, u32>) -> Option<Ending> {
    if position.legal_moves().is_empty() {
        return Some(if position.is_check() {
            let white_mated = position.turn() == Color::White;
            Ending { culprit: None, ..Ending::loss(white_mated, Termination::Checkmate, "checkmate".into()) }
        } else {
            Ending::draw(Termination::Stalemate, "stalemate")
        });
    }
    if position.is_insufficient_material() {
        return Some(Ending::draw(Termination::InsufficientMaterial, "insufficient material"));
    }
    if position.halfmoves() >= 100 {
        return Some(Ending::draw(Termination::FiftyMoveRule, "fifty-move rule"));
    }
    if history.get(&position_key(position)).is_some_and(|&n| n >= 3) {
        return Some(Ending::draw(Termination::ThreefoldRepetition, "threefold repetition"));
    }
    None
}

fn go_command(clocks: &[SideClock; 2], side: usize) -> String {
    match clocks[side].go_limits() {
        GoLimits::MoveTime(ms) => format!("go movetime {ms}"),
        GoLimits::Nodes(n) => format!("go nodes {n}"),
        GoLimits::Clock { moves_to_go, .. } => {
            let mut go = String::from("go");
            for (colour, clock) in ["w", "b"].iter().zip(clocks) {
                if let GoLimits::Clock { remaining_ms, increment_ms, .. } = clock.go_limits() {
                    go.push_str(&format!(" {colour}time {remaining_ms} {colour}inc {increment_ms}"));
                }
            }
            if let Some(m) = moves_to_go {
                go.push_str(&format!(" movestogo {m}"));
            }
            go
        }
    }
}

fn move_deadline(clock: &SideClock, settings: &GameSettings) -> SearchDeadline {
    if settings.virtual_clock || !clock.is_timed() {
        SearchDeadline::WithoutProgress(Duration::from_millis(settings.stall_timeout_ms))
    } else {
        let timeout = clock.remaining_ms().max(0) as u64 + settings.latency_margin_ms + settings.hang_grace_ms;
        SearchDeadline::FromGo(Duration::from_millis(timeout))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clocks(white: &str, black: &str) -> [SideClock; 2] {
        [SideClock::new(white.parse().unwrap()), SideClock::new(black.parse().unwrap())]
    }

    #[test]
    fn go_sends_both_clocks_and_the_movers_moves_to_go() {
        let mut c = clocks("40/60+0", "40/60+0");
        assert_eq!(go_command(&c, 0), "go wtime 60000 winc 0 btime 60000 binc 0 movestogo 40");
        assert!(c[0].charge(1000, 0));
        assert_eq!(go_command(&c, 0), "go wtime 59000 winc 0 btime 60000 binc 0 movestogo 39");
        let mixed = clocks("10+0.1", "nodes=500");
        assert_eq!(go_command(&mixed, 0), "go wtime 10000 winc 100");
        assert_eq!(go_command(&mixed, 1), "go nodes 500");
        assert_eq!(go_command(&clocks("movetime=200", "5~1"), 0), "go movetime 200");
        assert_eq!(go_command(&clocks("movetime=200", "5~1"), 1), "go btime 5000 binc 0");
    }

    #[test]
    fn hang_deadline_follows_the_clock_unless_time_is_virtual() {
        let settings = GameSettings {
            latency_margin_ms: 50,
            hang_grace_ms: 1000,
            stall_timeout_ms: 9000,
            ..GameSettings::default()
        };
        let c = clocks("10+0.1", "nodes=500");
        let ms = Duration::from_millis;
        assert_eq!(move_deadline(&c[0], &settings), SearchDeadline::FromGo(ms(11_050)));
        assert_eq!(move_deadline(&c[1], &settings), SearchDeadline::WithoutProgress(ms(9000)));
        let virtual_clock = GameSettings { virtual_clock: true, ..settings };
        assert_eq!(move_deadline(&c[0], &virtual_clock), SearchDeadline::WithoutProgress(ms(9000)));
    }
}
