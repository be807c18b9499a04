//! The proxy's state between the GUI and the wrapped engine (the game, the time manager, the search in
//! flight) and what each line from either side does to it.

use std::time::{Duration, Instant};

use shakmaty::Position;
use timemgr::{GameLengths, GoParams, MoveContext, TimeManager};

use super::clock_scale::{hard_stop_ms, ClockScale, LimitAs};
use super::fallback::missing_inputs;
use super::info::SearchCounts;
use super::limit::{final_stats, limited_go, ManagedMove, MoveLimit};
use super::wrapped::WrappedEngine;
use super::ProxyError;
use crate::options::EngineOptions;
use crate::position::GameState;
use crate::uci::{parse_command, CommandError, Flow, GoCommand, UciCommand, UciOutput};

/// The engine's options the proxy takes as its own (as the engine declares them); each hides a wrapped
/// engine's option of that name.
const ENGINE_OPTIONS: [&str; 2] = ["TimeManager", "MoveOverheadMs"];
/// The proxy's option that selects how the engine gets the plan.
const LIMIT_AS_OPTION: &str = "LimitAs";
/// How long to wait for the exit status of an engine whose output has ended.
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(200);

/// The search a `go` started, until its `bestmove`.
enum Search {
    /// The GUI's own limits (no clock): nothing to plan or learn.
    PassedThrough,
    /// `go ponder` with a clock, sent without it; planned at `ponderhit`.
    Pondering(GoCommand),
    /// A move under the time manager.
    Managed(ManagedSearch),
}

/// A move under the time manager.
struct ManagedSearch {
    planned: ManagedMove,
    /// When the move's time started: at `go`, or at `ponderhit`.
    started: Instant,
    /// The counts of the engine's `info` lines; None when they do not belong to the measured time (after a
    /// ponder search, whose counts began before `ponderhit`).
    counts: Option<SearchCounts>,
    /// When the proxy sends `stop`.
    stop_at: Instant,
    /// Whether the engine got the limit (else, after `ponderhit` or on a scaled clock, the proxy's `stop` is
    /// the limit).
    engine_has_limit: bool,
    /// The scaled clock the engine searched on (`--limit-as=clock`), to learn its share from.
    given_clock_ms: Option<u64>,
    stop_sent: bool,
}

/// One proxy session.
pub struct ProxySession {
    out: UciOutput,
    engine: WrappedEngine,
    /// `TimeManager` and `MoveOverheadMs`, parsed and validated by the engine's options table.
    options: EngineOptions,
    manager: Box<dyn TimeManager>,
    limit_as: LimitAs,
    clock_scale: ClockScale,
    game: GameState,
    /// The game ply of the game's first planned move: where the GUI's book ended.
    book_exit_ply: Option<u32>,
    /// The planned moves and the games finished since the proxy started, for the moves-left estimators that
    /// follow them.
    game_lengths: GameLengths,
    search: Option<Search>,
    /// The manager whose missing inputs were last explained.
    explained_spec: Option<String>,
    told_no_counts: bool,
    told_nodes_as_time: bool,
    /// The wrapped engine's speed over its last managed move, from its `info` lines: where managers with
    /// `init-nps=0` start.
    engine_nps: Option<f32>,
}

impl ProxySession {
    /// A session with the start position and a fresh manager built from `options`.
    pub fn new(
        options: EngineOptions,
        limit_as: LimitAs,
        manager: Box<dyn TimeManager>,
        engine: WrappedEngine,
        out: UciOutput,
    ) -> Self {
        Self {
            out,
            engine,
            options,
            manager,
            limit_as,
            clock_scale: ClockScale::default(),
            game: GameState::default(),
            book_exit_ply: None,
            game_lengths: GameLengths::default(),
            search: None,
            explained_spec: None,
            told_no_counts: false,
            told_nodes_as_time: false,
            engine_nps: None,
        }
    }

    /// The GUI's output.
    pub fn out(&self) -> &UciOutput {
        &self.out
    }

    /// When the proxy must send `stop` unless `bestmove` comes first.
    pub fn stop_deadline(&self) -> Option<Instant> {
        match &self.search {
            Some(Search::Managed(search)) if !search.stop_sent => Some(search.stop_at),
            _ => None,
        }
    }

    /// Acts on one line from the GUI.
    pub fn handle_gui_line(&mut self, line: &str) -> Result<Flow, ProxyError> {
        let command = match parse_command(line) {
            Ok(Some(command)) => command,
            Ok(None) => return Ok(Flow::Continue),
            Err(CommandError::Unknown(_)) => {
                // The wrapped engine may know it (Stockfish's `d`, `eval`, `bench`): its answer, not ours.
                self.send_to_engine(line)?;
                return Ok(Flow::Continue);
            }
            Err(error) => {
                self.out.error(&format!("{error}; not passed to the wrapped engine"))?;
                return Ok(Flow::Continue);
            }
        };
        match command {
            UciCommand::SetOption { name, value } if is_own_option(&name) => self.set_own_option(&name, &value)?,
            UciCommand::Position { fen, moves } => self.set_position(fen.as_deref(), &moves, line)?,
            UciCommand::UciNewGame => {
                self.new_game(GameState::default());
                self.send_to_engine(line)?;
            }
            UciCommand::Go(go) => self.go(go, line)?,
            UciCommand::PonderHit => self.ponder_hit(line)?,
            UciCommand::Quit => return self.quit(),
            _ => self.send_to_engine(line)?,
        }
        Ok(Flow::Continue)
    }

    /// Acts on one line from the wrapped engine: passes it on, adding the proxy's options before `uciok`,
    /// hiding the engine's options that the proxy's replace, and ending the move at `bestmove`.
    pub fn handle_engine_line(&mut self, line: &str) -> Result<Flow, ProxyError> {
        match line.split_whitespace().next().unwrap_or("") {
            "option" if option_name(line).is_some_and(|name| is_own_option(&name)) => {}
            "uciok" => {
                for own in self.own_option_lines() {
                    self.out.send(&own)?;
                }
                self.out.send(line)?;
            }
            "info" => {
                if let Some(Search::Managed(ManagedSearch { counts: Some(counts), .. })) = self.search.as_mut() {
                    counts.absorb(line);
                }
                self.out.send(line)?;
            }
            "bestmove" => {
                self.out.send(line)?;
                self.end_search()?;
            }
            _ => self.out.send(line)?,
        }
        Ok(Flow::Continue)
    }

    /// The move's time is up and no `bestmove` came: sends `stop` (once).
    pub fn deadline_passed(&mut self) -> Result<Flow, ProxyError> {
        let Some(Search::Managed(search)) = self.search.as_mut() else {
            return Ok(Flow::Continue);
        };
        search.stop_sent = true;
        let overrun = search.engine_has_limit.then(|| {
            format!(
                "info string tm-proxy: no bestmove {} ms after a limit of {} ms; sent stop",
                search.started.elapsed().as_millis(),
                search.planned.limit.time_ms()
            )
        });
        self.send_to_engine("stop")?;
        if let Some(note) = overrun {
            self.out.send(&note)?;
        }
        Ok(Flow::Continue)
    }

    /// Passes `quit` on and gives the engine a moment to exit.
    pub fn quit(&mut self) -> Result<Flow, ProxyError> {
        self.engine.quit();
        Ok(Flow::Quit)
    }

    /// The wrapped engine has gone: says so to the GUI and returns the error that ends the proxy.
    pub fn engine_exited(&mut self) -> ProxyError {
        let status = self.engine.exit_status(EXIT_STATUS_WAIT);
        let error = ProxyError::EngineExited { status, searching: self.search.is_some() };
        let _ = self.out.error(&error.to_string());
        error
    }

    fn send_to_engine(&mut self, line: &str) -> Result<(), ProxyError> {
        match self.engine.send(line) {
            Ok(()) => Ok(()),
            Err(_) => Err(self.engine_exited()),
        }
    }

    /// The `option` lines of the engine's options the proxy takes, as the engine announces them, and `LimitAs`.
    fn own_option_lines(&self) -> Vec<String> {
        let engine_lines = self.options.uci_option_lines();
        let mut lines: Vec<String> = ENGINE_OPTIONS
            .iter()
            .filter_map(|name| engine_lines.iter().find(|line| option_name(line).as_deref() == Some(*name)).cloned())
            .collect();
        lines.push(format!(
            "option name {LIMIT_AS_OPTION} type combo default {} {}",
            self.limit_as.name(),
            LimitAs::NAMES.map(|name| format!("var {name}")).join(" ")
        ));
        lines
    }

    fn set_own_option(&mut self, name: &str, value: &str) -> Result<(), ProxyError> {
        if self.search.is_some() {
            self.out.error(&format!("cannot set option {name} during a search; send stop first"))?;
        } else if name.eq_ignore_ascii_case(LIMIT_AS_OPTION) {
            match LimitAs::from_name(value) {
                Some(limit_as) => self.limit_as = limit_as,
                None => self.out.error(&format!(
                    "LimitAs '{value}' is none of {}; the previous value is kept",
                    LimitAs::NAMES.join(", ")
                ))?,
            }
        } else {
            let before = self.options.time_manager.clone();
            match self.options.set(name, value) {
                Ok(()) if self.options.time_manager != before => self.new_manager(),
                Ok(()) => {}
                Err(error) => self.out.error(&format!("{error}; the previous one is kept"))?,
            }
        }
        Ok(())
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String], line: &str) -> Result<(), ProxyError> {
        let words: Vec<&str> = moves.iter().map(String::as_str).collect();
        match GameState::from_uci(fen, &words) {
            Ok(game) if game.continues(&self.game) => self.game = game,
            Ok(game) => self.new_game(game),
            Err(error) => {
                self.out.error(&format!("{error}; not passed to the wrapped engine, the previous position is kept"))?;
                return Ok(());
            }
        }
        self.send_to_engine(line)
    }

    /// A new game: a fresh manager, no book exit yet; the last game's length is counted.
    fn new_game(&mut self, game: GameState) {
        self.game_lengths.new_game();
        self.game = game;
        self.book_exit_ply = None;
        self.new_manager();
    }

    /// A fresh manager from the `TimeManager` option (validated when it was set; should its model file have
    /// gone since, the manager in use is kept).
    fn new_manager(&mut self) {
        if let Ok(manager) = self.options.time_manager.build() {
            self.manager = manager;
        }
    }

    fn go(&mut self, go: GoCommand, line: &str) -> Result<(), ProxyError> {
        if self.search.is_some() {
            self.out.error("go while the wrapped engine is still searching; not passed on, send stop first")?;
            return Ok(());
        }
        let white = self.game.position().turn().is_white();
        let movers_clock = if white { go.params.wtime } else { go.params.btime };
        if go.params.infinite || movers_clock.is_none() {
            if go.params.wtime.is_some() || go.params.btime.is_some() {
                self.out.send("info string tm-proxy: go has no clock for the side to move; passed on unchanged")?;
            }
            self.search = Some(Search::PassedThrough);
            return self.send_to_engine(line);
        }
        if go.params.ponder {
            self.send_to_engine(&limited_go(&go, None))?;
            self.search = Some(Search::Pondering(go));
            return Ok(());
        }
        let started = Instant::now();
        let Some(planned) = self.plan(&go.params)? else {
            self.search = Some(Search::PassedThrough);
            return self.send_to_engine(line);
        };
        let (line, given_clock_ms) = match self.limit_as {
            LimitAs::MoveTime => (limited_go(&go, Some(planned.limit)), None),
            LimitAs::Clock => {
                if matches!(planned.limit, MoveLimit::Nodes { .. }) && !self.told_nodes_as_time {
                    self.told_nodes_as_time = true;
                    self.out.send(
                        "info string tm-proxy: LimitAs clock passes only the plan's time; the node target is not sent",
                    )?;
                }
                self.clock_scale.clocked_go(&go, planned.limit, white)
            }
        };
        self.send_to_engine(&line)?;
        let stop_after_ms = match given_clock_ms {
            Some(_) => hard_stop_ms(planned.limit.time_ms(), movers_clock.unwrap_or(0), self.options.move_overhead_ms),
            // Half the overhead for the engine's overrun; the other half covers its answer to stop and the pipes.
            None => planned.limit.time_ms().saturating_add((self.options.move_overhead_ms / 2) as u64),
        };
        let stop_at = started + Duration::from_millis(stop_after_ms);
        let counts = Some(SearchCounts::default());
        let engine_has_limit = given_clock_ms.is_none();
        let search =
            ManagedSearch { planned, started, counts, stop_at, engine_has_limit, given_clock_ms, stop_sent: false };
        self.search = Some(Search::Managed(search));
        Ok(())
    }

    fn ponder_hit(&mut self, line: &str) -> Result<(), ProxyError> {
        let mut go = match self.search.take() {
            Some(Search::Pondering(go)) => go,
            other => {
                self.search = other;
                return self.send_to_engine(line);
            }
        };
        go.params.ponder = false;
        let started = Instant::now();
        self.send_to_engine(line)?;
        match self.plan(&go.params)? {
            Some(planned) => {
                let stop_at = started + Duration::from_millis(planned.limit.time_ms());
                let search = ManagedSearch {
                    planned,
                    started,
                    counts: None,
                    stop_at,
                    engine_has_limit: false,
                    given_clock_ms: None,
                    stop_sent: false,
                };
                self.search = Some(Search::Managed(search));
            }
            None => {
                self.out.send("info string tm-proxy: the manager planned nothing for this ponderhit; sent stop")?;
                self.search = Some(Search::PassedThrough);
                self.send_to_engine("stop")?;
            }
        }
        Ok(())
    }

    /// The manager's plan for a `go` with a clock, after saying once per manager what it must do without.
    fn plan(&mut self, go: &GoParams) -> Result<Option<ManagedMove>, ProxyError> {
        let spec = self.options.time_manager.text();
        if self.explained_spec.as_deref() != Some(spec) {
            self.explained_spec = Some(spec.to_owned());
            for note in missing_inputs(self.options.time_manager_config()) {
                self.out.send(&format!("info string tm-proxy: {spec}: {note}"))?;
            }
        }
        let context = self.move_context();
        Ok(ManagedMove::plan(self.manager.as_mut(), go, &context))
    }

    /// What the manager knows of the move: the position, the overhead, the moves since the book.
    fn move_context(&mut self) -> MoveContext {
        let game_ply = self.game.game_ply();
        let book_exit_ply = *self.book_exit_ply.get_or_insert(game_ply);
        self.game_lengths.own_move(game_ply);
        let position = self.game.position();
        MoveContext {
            white_to_move: position.turn().is_white(),
            game_ply,
            reused_visits: 0,
            move_overhead_ms: self.options.move_overhead_ms,
            legal_moves: position.legal_moves().len(),
            piece_count: position.board().occupied().count() as u32,
            network_moves_left_plies: None,
            moves_out_of_book: Some(game_ply.saturating_sub(book_exit_ply) / 2 + 1),
            smart_pruning: false,
            placement: Some(self.game.piece_placement()),
            engine_nps: self.engine_nps,
            played_games: self.game_lengths.finished(),
            // The wrapped engine's floor is not measured here; MoveOverheadMs covers it.
            move_floor_ms: None,
        }
    }

    /// After `bestmove`: the manager learns from a managed move, and its trace is shown.
    fn end_search(&mut self) -> Result<(), ProxyError> {
        let Some(Search::Managed(search)) = self.search.take() else {
            return Ok(());
        };
        let elapsed_ms = u64::try_from(search.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let nodes = search.counts.and_then(|counts| counts.nodes_after(elapsed_ms));
        if search.counts.is_some() && nodes.is_none() && !self.told_no_counts {
            self.told_no_counts = true;
            self.out.send(
                "info string tm-proxy: the wrapped engine reports neither nodes nor nps; managers that learn the \
                 speed keep their first estimate",
            )?;
        }
        if let Some(clock_ms) = search.given_clock_ms {
            self.clock_scale.learn(clock_ms, elapsed_ms);
        }
        if let Some(nodes) = nodes.filter(|_| elapsed_ms >= 20) {
            self.engine_nps = Some(nodes as f32 * 1000.0 / elapsed_ms as f32);
        }
        let stats = final_stats(elapsed_ms, nodes);
        for trace in search.planned.finish(self.manager.as_mut(), &stats, nodes.is_some()) {
            self.out.send(&format!("info string {}", trace.summary()))?;
        }
        Ok(())
    }
}

/// Whether a UCI option name is one of the proxy's own (UCI names are case-insensitive).
fn is_own_option(name: &str) -> bool {
    ENGINE_OPTIONS.iter().chain([&LIMIT_AS_OPTION]).any(|own| name.eq_ignore_ascii_case(own))
}

/// The name in an engine's `option name <name> type …` line.
fn option_name(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let start = words.iter().position(|word| *word == "name")? + 1;
    let end = words[start..].iter().position(|word| *word == "type").map_or(words.len(), |offset| start + offset);
    Some(words[start..end].join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_names_may_contain_spaces() {
        assert_eq!(
            option_name("option name Move Overhead type spin default 10 min 0 max 5000").as_deref(),
            Some("Move Overhead")
        );
        assert_eq!(option_name("option name TimeManager type string default legacy").as_deref(), Some("TimeManager"));
        assert_eq!(option_name("option type check"), None);
        assert!(is_own_option("timemanager") && is_own_option("MoveOverheadMs") && !is_own_option("Move Overhead"));
        assert!(is_own_option("limitas"));
    }
}
