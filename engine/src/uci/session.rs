//! The state of one UCI session and what each command does to it: the game, the lazily built backend
//! and search, the per-game time manager and clock, and the search in flight.

use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

use nn::{Backend, CachingBackend};
use shakmaty::uci::UciMove;
use shakmaty::{Move, Position};
use timemgr::{
    build_stopper_chain, CommonStopperOptions, GameLengths, GoParams, Hints, IterationStats, MoveContext, Stopper,
    TimeManager,
};

use super::command::{GoCommand, UciCommand};
use super::output::UciOutput;
use super::trace_file::append_traces;
use crate::clock::{SharedClock, VirtualClock, WallClock};
use crate::fault::{Fault, FaultPlace};
use crate::options::EngineOptions;
use crate::position::{uci_move, GameState};
use crate::search::{ContemptMode, InfoFields, Search, SearchEvent, SearchHandle, SearchOutcome, SearchRequest};
use crate::tablebase::Tablebases;

/// Whether the loop goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received.
    Quit,
}

/// The time manager of the current game, shared with the search thread that ends each move.
type SharedTimeManager = Arc<Mutex<Box<dyn TimeManager>>>;

/// The backend (without cache) and the search built on it with the game's cache.
struct Evaluator {
    network: Arc<dyn Backend>,
    search: Search,
}

impl Evaluator {
    /// A fresh search with an empty cache over `network`.
    fn new(network: Arc<dyn Backend>, options: &EngineOptions) -> Self {
        let cache_size = usize::try_from(options.nn_cache_size).unwrap_or(usize::MAX);
        let backend: Arc<dyn Backend> =
            if cache_size > 0 { Arc::new(CachingBackend::new(network.clone(), cache_size)) } else { network.clone() };
        Self { search: Search::new(backend, options.search_params()), network }
    }
}

/// A search in flight; `ponder` keeps the `go` of a ponder search for `ponderhit`.
struct Running {
    handle: SearchHandle,
    ponder: Option<GoCommand>,
    /// A `go infinite` or `go ponder` search: its best move waits for `stop` or `ponderhit`.
    holds_bestmove: bool,
}

/// One UCI session.
pub struct Session {
    options: EngineOptions,
    out: UciOutput,
    evaluator: Option<Evaluator>,
    /// The Syzygy tables of `loaded_syzygy_path` (None: none, or none could be loaded).
    tablebases: Option<Arc<Tablebases>>,
    loaded_syzygy_path: String,
    /// The game of the last `position` (the start position before any).
    game: GameState,
    /// The game whose position the search was last given (lc0's tree head). It moves at `go` (a ponder search's
    /// to the game before the opponent's predicted move, so that a ponder miss continues this game with its tree,
    /// cache and manager); with Ponder off, a `position` that does not continue it starts the new game at once,
    /// as lc0 resets its tree there.
    search_game: GameState,
    time_manager: Option<SharedTimeManager>,
    /// The engine's measure of its own speed in nodes per second, kept across games: a short search when the
    /// network loads at `isready`, then every search's; the time managers start from it (`init-nps=0`).
    measured_nps: Arc<Mutex<Option<f32>>>,
    /// The engine's running measure of what a move costs before its first playouts, in wall-clock ms, kept
    /// across games: the time managers keep it in reserve for every move still to come in a game without
    /// increment (`MoveContext::move_floor_ms`); never measured on the virtual clock.
    measured_move_floor: Arc<Mutex<Option<f32>>>,
    clock: SharedClock,
    /// When the move's clock started, on `clock`: at `go` (or `ponderhit`), or with `StrictTiming` off at
    /// `position` or `ucinewgame` as lc0 by default, where a `go` without wtime or btime still starts it.
    move_start_ms: f64,
    /// `ClearTree` was pressed: the next search starts from an empty tree.
    clear_tree_pending: bool,
    running: Option<Running>,
    /// The game ply of this game's first search: where the GUI's opening book (if any) ended.
    book_exit_ply: Option<u32>,
    /// The engine's own moves and the games it finished since it started, for the moves-left estimators that
    /// follow them.
    game_lengths: GameLengths,
}

impl Session {
    /// A session with no game yet (a `go` before `position` searches the start position).
    pub fn new(options: EngineOptions, out: UciOutput) -> Self {
        let clock = new_clock(&options);
        let mut session = Self {
            options,
            out,
            evaluator: None,
            tablebases: None,
            loaded_syzygy_path: String::new(),
            game: GameState::default(),
            search_game: GameState::default(),
            time_manager: None,
            measured_nps: Arc::new(Mutex::new(None)),
            measured_move_floor: Arc::new(Mutex::new(None)),
            clock,
            move_start_ms: 0.0,
            clear_tree_pending: false,
            running: None,
            book_exit_ply: None,
            game_lengths: GameLengths::default(),
        };
        session.time_manager = session.new_time_manager();
        session
    }

    /// Acts on one command; an I/O error means the output is gone.
    pub fn handle(&mut self, command: UciCommand) -> io::Result<Flow> {
        match command {
            UciCommand::Uci => self.identify()?,
            UciCommand::Debug | UciCommand::Register => {}
            UciCommand::IsReady => {
                if self.running.is_none() {
                    let loading = self.evaluator.is_none();
                    if self.ensure_evaluator()? && loading {
                        self.calibrate_speed();
                    }
                    self.ensure_tablebases()?;
                }
                self.out.send("readyok")?;
            }
            UciCommand::SetOption { name, value } => self.set_option(&name, &value)?,
            UciCommand::UciNewGame => self.new_game()?,
            UciCommand::Position { fen, moves } => self.set_position(fen.as_deref(), &moves)?,
            UciCommand::Go(go) => self.go(go)?,
            UciCommand::Stop => self.finish_search(),
            UciCommand::PonderHit => self.ponder_hit()?,
            UciCommand::Wait => self.wait_for_search()?,
            UciCommand::Quit => {
                self.finish_search();
                return Ok(Flow::Quit);
            }
        }
        Ok(Flow::Continue)
    }

    /// After a panic while handling `line`: reports it and, for a `go` whose search never started, answers
    /// with a legal move (the engine keeps serving; the next search builds its tree afresh).
    pub fn recover_from_panic(&mut self, line: &str, message: &str, was_go: bool) -> io::Result<Flow> {
        self.out.error(&format!("internal error while handling '{line}': {message}; the engine keeps serving"))?;
        if let Some(evaluator) = self.evaluator.as_mut() {
            evaluator.search.reset();
        }
        if was_go && self.running.is_none() {
            let fallback = self.game.position().legal_moves().first().copied();
            self.out.send(&bestmove_line(fallback.as_ref(), None, self.options.chess960))?;
        }
        Ok(Flow::Continue)
    }

    /// The `LogFile` option's value, which the UCI loop applies after each command.
    pub fn log_file(&self) -> &str {
        &self.options.log_file
    }

    /// Ends the session as `quit` does (at the end of the input).
    pub fn shut_down(&mut self) {
        self.finish_search();
    }

    fn identify(&self) -> io::Result<()> {
        self.out.send(&format!("id name {}", crate::build_info::id_name()))?;
        self.out.send("id author The Kairos developers")?;
        for line in self.options.uci_option_lines() {
            self.out.send(&line)?;
        }
        self.out.send("uciok")
    }

    /// Stops the search in flight (it sends its own best move) and waits for it.
    fn finish_search(&mut self) {
        if let Some(running) = self.running.take() {
            running.handle.stop();
            running.handle.wait();
        }
    }

    /// Waits for the search in flight to end by its own limits, as lc0's `wait`; where lc0 would wait for ever (a
    /// `go infinite` or ponder search, whose `stop` or `ponderhit` it no longer reads), refuses and keeps serving.
    fn wait_for_search(&mut self) -> io::Result<()> {
        if self.running.as_ref().is_some_and(|running| running.holds_bestmove) {
            return self.out.error(
                "wait: this search (go infinite or go ponder) sends its best move only after stop or ponderhit; \
                 send one of those instead",
            );
        }
        if let Some(running) = self.running.take() {
            running.handle.wait();
        }
        Ok(())
    }

    /// Whether a search is still going for the GUI: its `bestmove` is not sent yet (threads that are only
    /// winding down after it do not count, so a `setoption` right after `bestmove` is accepted).
    fn searching(&self) -> bool {
        self.running.as_ref().is_some_and(|running| !running.handle.is_finished() && !running.handle.best_move_sent())
    }

    fn set_option(&mut self, name: &str, value: &str) -> io::Result<()> {
        if self.searching() {
            return self.out.error(&format!("cannot set option {name} during a search; send stop first"));
        }
        self.finish_search();
        let before = self.options.clone();
        if let Err(error) = self.options.set(name, value) {
            return self.out.error(&error.to_string());
        }
        self.clear_tree_pending |= self.options.clear_tree.take();
        let after = &self.options;
        if before.backend_options() != after.backend_options() {
            self.evaluator = None;
        } else if before.search_params() != after.search_params() || before.nn_cache_size != after.nn_cache_size {
            self.evaluator = self.evaluator.take().map(|evaluator| Evaluator::new(evaluator.network, after));
        }
        if before.time_manager != after.time_manager {
            self.time_manager = self.new_time_manager();
            self.warn_of_inert_keys()?;
        }
        if (before.virtual_clock, before.virtual_nps, before.virtual_batch_cost_ms)
            != (after.virtual_clock, after.virtual_nps, after.virtual_batch_cost_ms)
        {
            self.clock = new_clock(after);
            self.move_start_ms = self.clock.elapsed_ms();
        }
        Ok(())
    }

    /// Loads the network and builds the search if that has not happened yet; a failure is reported and
    /// answered with `false`, and the next `isready` or `go` tries again.
    fn ensure_evaluator(&mut self) -> io::Result<bool> {
        if self.evaluator.is_some() {
            return Ok(true);
        }
        if let Some(notice) = self.options.backend_options().ok().as_ref().and_then(nn::tensorrt_build_notice) {
            self.out.send(&format!("info string {notice}"))?;
        }
        let loaded = catch_unwind(AssertUnwindSafe(|| -> anyhow::Result<(Arc<dyn Backend>, String)> {
            let options = self.options.backend_options()?;
            Ok(nn::open_backend_described(&options)?)
        }));
        match loaded {
            Ok(Ok((network, description))) => {
                self.evaluator = Some(Evaluator::new(network, &self.options));
                crate::memory::release_all_freed_memory();
                self.out.send(&format!("info string Backend: {description}"))?;
                Ok(true)
            }
            Ok(Err(error)) => self.out.error(&format!("{error:#}")).map(|()| false),
            Err(_) => self.out.error("loading the network panicked; check WeightsFile and Backend").map(|()| false),
        }
    }

    /// Measures the engine's speed once the network is loaded (on the wall clock; the virtual clock's is
    /// VirtualNps): a short search of the start position with the session's settings, whose tree and cache are
    /// then dropped. The first move's manager starts from it instead of a constant (`init-nps=0`).
    fn calibrate_speed(&mut self) {
        if self.options.virtual_clock {
            return;
        }
        let Some(evaluator) = self.evaluator.as_mut() else {
            return;
        };
        evaluator.search.set_position(&GameState::default());
        let go = GoParams { movetime: Some(CALIBRATION_MS), ..GoParams::default() };
        let context = MoveContext { white_to_move: true, legal_moves: 20, piece_count: 32, ..MoveContext::default() };
        let common = CommonStopperOptions { smart_pruning_factor: 0.0, ..self.options.common_stopper_options() };
        let request = SearchRequest {
            stopper: build_stopper_chain(None, &go, &context, &common),
            after_bestmove: None,
            clock: Arc::new(WallClock::new()),
            move_start_ms: 0.0,
            searchmoves: Vec::new(),
            hold_bestmove_until_stop: false,
            infinite: false,
            ponder: false,
        };
        let outcome = evaluator.search.start(request, Box::new(|_| {})).wait();
        *evaluator = Evaluator::new(evaluator.network.clone(), &self.options);
        crate::memory::release_all_freed_memory();
        if let Some(nps) = outcome.and_then(|outcome| measured_nps(&outcome.stats)) {
            *lock(&self.measured_nps) = Some(nps);
        }
    }

    /// Loads the tables of `SyzygyPath` when it changed since the last load, as lc0 at `isready` and at
    /// each search: the files found are reported, and every directory or file left out is named.
    fn ensure_tablebases(&mut self) -> io::Result<()> {
        if self.options.syzygy_path == self.loaded_syzygy_path {
            return Ok(());
        }
        self.loaded_syzygy_path = self.options.syzygy_path.clone();
        self.tablebases = None;
        if self.loaded_syzygy_path.trim().is_empty() {
            return Ok(());
        }
        let loaded = Tablebases::load(&self.loaded_syzygy_path);
        for problem in &loaded.problems {
            self.out.error(&problem.to_string())?;
        }
        if let Some(tablebases) = loaded.tablebases {
            self.out.send(&format!("info string {}", tablebases.summary()))?;
            self.tablebases = Some(Arc::new(tablebases));
        }
        Ok(())
    }

    /// Tells the user which keys of the new TimeManager string change nothing under the rest of it, and why.
    fn warn_of_inert_keys(&self) -> io::Result<()> {
        let config = self.options.time_manager.config();
        let inert_keys = match timemgr::inert_keys(config) {
            Ok(keys) => keys,
            Err(error) => return self.out.error(&format!("TimeManager: {error}")),
        };
        for inert in inert_keys {
            if config.manager.is_changed(inert.key) {
                let (key, why) = (inert.key, inert.why);
                self.out.send(&format!("info string warning TimeManager: {key} has no effect: {why}"))?;
            }
        }
        Ok(())
    }

    /// A fresh time manager for a new game; a failure is reported and gives None.
    fn new_time_manager(&self) -> Option<SharedTimeManager> {
        match self.options.time_manager.build() {
            Ok(manager) => Some(Arc::new(Mutex::new(manager))),
            Err(error) => {
                let _ = self.out.error(&format!("TimeManager '{}': {error}", self.options.time_manager.text()));
                None
            }
        }
    }

    /// Forgets everything learned in the last game (tree, cache, time manager, virtual clock) but its length:
    /// the engine's last move and the opponent's reply.
    fn new_game(&mut self) -> io::Result<()> {
        self.finish_search();
        self.game_lengths.new_game();
        self.start_new_game_state();
        self.game = GameState::default();
        self.search_game = GameState::default();
        self.move_start_ms = self.clock.elapsed_ms();
        Ok(())
    }

    /// A fresh tree, cache, time manager and clock; a move whose clock already started keeps the time it has
    /// run, counted back from the new clock's start.
    fn start_new_game_state(&mut self) {
        self.evaluator = self.evaluator.take().map(|evaluator| Evaluator::new(evaluator.network, &self.options));
        self.time_manager = self.new_time_manager();
        self.move_start_ms -= self.clock.elapsed_ms();
        self.clock = new_clock(&self.options);
        self.book_exit_ply = None;
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) -> io::Result<()> {
        self.finish_search();
        let move_words: Vec<&str> = moves.iter().map(String::as_str).collect();
        let game = match GameState::from_uci(fen, &move_words) {
            Ok(game) => game,
            Err(error) => return self.out.error(&format!("{error}; the previous position is kept")),
        };
        if !self.options.ponder && !game.continues(&self.search_game) {
            self.move_search_to(&game);
        }
        self.game = game;
        self.move_start_ms = self.clock.elapsed_ms();
        Ok(())
    }

    /// Gives the search `game`'s position (lc0's `InitializeSearchPosition`); a game that does not continue the
    /// one searched last starts a new game state: tree, cache, time manager and clock.
    fn move_search_to(&mut self, game: &GameState) {
        if !game.continues(&self.search_game) {
            self.start_new_game_state();
        }
        self.search_game = game.clone();
    }

    /// The game a `go ponder` searches: the position before the opponent's predicted move, the last move of
    /// `position`, as lc0 (`engine.cc` 202–216), and that move; whatever the Ponder option says, which only
    /// tells the engine that the GUI may ponder (the UCI specification; lc0 PR #2409). Without a move to
    /// predict (the start position, a bare FEN), the position as given, as Stockfish and lc0 since #2409.
    fn ponder_game(&self) -> (GameState, Option<Move>) {
        match (self.game.before_last_move(), self.game.moves().last()) {
            (Some(before), Some(predicted)) => (before, Some(*predicted)),
            _ => (self.game.clone(), None),
        }
    }

    fn go(&mut self, go: GoCommand) -> io::Result<()> {
        self.finish_search();
        let no_clock = go.params.wtime.is_none() && go.params.btime.is_none();
        if self.options.strict_timing || no_clock {
            self.move_start_ms = self.clock.elapsed_ms();
        }
        let (game, predicted) = if go.params.ponder { self.ponder_game() } else { (self.game.clone(), None) };
        self.move_search_to(&game);
        self.start_search(go, predicted)
    }

    /// lc0's `PonderHit`: the ponder search ends without a move, the move's clock starts now, and the same `go`
    /// searches the game itself, reusing what the ponder search found under the predicted move. A `ponderhit`
    /// while not pondering (idle, or during another search) is ignored, as by lc0 since PR #2409 and by
    /// Stockfish: there is no ponder search to turn into a timed one, and the engine serves on.
    fn ponder_hit(&mut self) -> io::Result<()> {
        let Some(mut go) = self.running.as_ref().and_then(|running| running.ponder.clone()) else {
            self.out.log_note("ponderhit while not pondering; ignored");
            return Ok(());
        };
        if let Some(running) = self.running.take() {
            running.handle.abort();
            running.handle.wait();
        }
        go.params.ponder = false;
        self.move_start_ms = self.clock.elapsed_ms();
        let game = self.game.clone();
        self.move_search_to(&game);
        self.start_search(go, None)
    }

    /// Starts a search of `search_game` for `go` (a ponder search before the `predicted` move); whatever
    /// happens, exactly one `bestmove` follows (at once on failure).
    fn start_search(&mut self, go: GoCommand, predicted: Option<Move>) -> io::Result<()> {
        if !go.params.ponder {
            self.game_lengths.own_move(self.search_game.game_ply());
        }
        let position = self.search_game.position().clone();
        let legal_moves = position.legal_moves();
        if legal_moves.is_empty() {
            return self.out.send("bestmove 0000");
        }
        if !self.ensure_evaluator()? {
            return self.out.send("bestmove 0000");
        }
        Fault::strike(Fault::from_env(), FaultPlace::Go, 1);
        let Some(time_manager) = self.time_manager.clone().or_else(|| self.new_time_manager()) else {
            return self.out.send("bestmove 0000");
        };
        self.time_manager = Some(time_manager.clone());
        let mut searchmoves = Vec::new();
        for text in &go.searchmoves {
            match text.parse::<UciMove>().ok().and_then(|uci| uci.to_move(&position).ok()) {
                Some(mv) => searchmoves.push(mv),
                None => self.out.error(&format!("searchmoves: {text} is not a legal move here; ignored"))?,
            }
        }
        self.ensure_tablebases()?;
        let Some(evaluator) = self.evaluator.as_mut() else {
            return self.out.send("bestmove 0000");
        };
        evaluator.search.set_tablebases(self.tablebases.clone());
        if std::mem::take(&mut self.clear_tree_pending) {
            evaluator.search.reset();
        }
        let reused_visits = evaluator.search.set_position(&self.search_game);
        let game_ply = self.search_game.game_ply();
        let book_exit_ply = *self.book_exit_ply.get_or_insert(game_ply);
        let context = MoveContext {
            white_to_move: position.turn().is_white(),
            game_ply,
            reused_visits,
            move_overhead_ms: self.options.move_overhead_ms,
            legal_moves: legal_moves.len(),
            piece_count: position.board().occupied().count() as u32,
            network_moves_left_plies: None,
            moves_out_of_book: Some(game_ply.saturating_sub(book_exit_ply) / 2 + 1),
            smart_pruning: false,
            placement: Some(self.search_game.piece_placement()),
            engine_nps: if self.options.virtual_clock {
                Some(self.options.virtual_nps as f32)
            } else {
                *lock(&self.measured_nps)
            },
            played_games: self.game_lengths.finished(),
            move_floor_ms: if self.options.virtual_clock || !self.options.move_floor_reserve {
                None
            } else {
                *lock(&self.measured_move_floor)
            },
        };
        // The move's life: the manager hands out the stopper, the search runs and sends its best move, and
        // then the manager learns from the outcome and the trace is written, outside the search's locks.
        let stopper = Box::new(ManagedStopper {
            time_manager: time_manager.clone(),
            go: go.params.clone(),
            context,
            common: self.options.common_stopper_options(),
            chain: None,
        });
        let end_of_move = EndOfMove {
            out: self.out.clone(),
            time_manager,
            trace_file: self.options.tm_trace_file.clone(),
            measured_nps: self.measured_nps.clone(),
            measured_move_floor: (!self.options.virtual_clock).then(|| self.measured_move_floor.clone()),
        };
        let holds_bestmove = go.params.infinite || go.params.ponder;
        let request = SearchRequest {
            stopper,
            after_bestmove: Some(Box::new(move |outcome| end_of_move.run(outcome))),
            clock: self.clock.clone(),
            move_start_ms: self.move_start_ms,
            searchmoves,
            hold_bestmove_until_stop: holds_bestmove,
            infinite: go.params.infinite,
            ponder: go.params.ponder,
        };
        let fields = InfoFields {
            wdl: self.options.show_wdl,
            moves_left: self.options.show_moves_left,
            eps: self.options.show_eps,
            chess960: self.options.chess960,
        };
        let params = evaluator.search.params();
        if go.params.infinite && params.contempt_mode == ContemptMode::Play && params.wdl_rescale.diff != 0.0 {
            // lc0's warning (search.cc 180-191): the side to favour is unknown while analysing.
            self.out.send(
                "info string WARNING: Contempt mode set to 'disable' as 'play' not supported for infinite search.",
            )?;
        }
        let pondering = predicted
            .map(|predicted| Pondering { predicted, fallback: self.game.position().legal_moves().first().copied() });
        let reporter = Reporter { out: self.out.clone(), fields, pondering };
        let handle = evaluator.search.start(request, Box::new(move |event| reporter.report(event)));
        let ponder = go.params.ponder.then_some(go);
        self.running = Some(Running { handle, ponder, holds_bestmove });
        Ok(())
    }
}

/// Turns the search's events into output lines; runs on a search thread.
struct Reporter {
    out: UciOutput,
    fields: InfoFields,
    /// A ponder search's predicted move, whose lines are shown as the engine's own.
    pondering: Option<Pondering>,
}

/// What a ponder search, rooted before the opponent's predicted move, shows the GUI.
struct Pondering {
    predicted: Move,
    /// A legal move of the position after the predicted move, for a best move that is not the predicted one.
    fallback: Option<Move>,
}

impl Reporter {
    /// Sends one event; output errors are left for the main loop to notice on its next write.
    fn report(&self, event: SearchEvent) {
        let _ = self.try_report(event);
    }

    fn try_report(&self, event: SearchEvent) -> io::Result<()> {
        match event {
            SearchEvent::Info(info) => match &self.pondering {
                // lc0 shows one line while pondering: the first, with the PV after the predicted move.
                Some(_) if info.multipv.is_some_and(|rank| rank > 1) => Ok(()),
                Some(pondering) => self.out.send(&info.as_ponder_line(&pondering.predicted).to_uci(self.fields)),
                None => self.out.send(&info.to_uci(self.fields)),
            },
            SearchEvent::VerboseStats(lines) => {
                lines.iter().try_for_each(|line| self.out.send(&format!("info string {line}")))
            }
            SearchEvent::LoggedLines(lines) => {
                lines.iter().for_each(|line| self.out.log_note(line));
                Ok(())
            }
            SearchEvent::Error(message) => self.out.error(&message),
            SearchEvent::BestMove { best, ponder, .. } => match &self.pondering {
                // After `stop` on a ponder miss, which the GUI ignores: still a legal move of its position (lc0
                // sends the opponent's move here), the reply to the predicted move when that was best.
                Some(pondering) => {
                    let own = if best == Some(pondering.predicted) {
                        ponder.or(pondering.fallback)
                    } else {
                        pondering.fallback
                    };
                    self.out.send(&bestmove_line(own.as_ref(), None, self.fields.chess960))
                }
                None => self.out.send(&bestmove_line(best.as_ref(), ponder.as_ref(), self.fields.chess960)),
            },
        }
    }
}

/// The move's stopper chain, asked of the time manager at the search's first statistics, when the root's
/// moves-left estimate is known: the network evaluates the root on a search thread, not on the UCI thread.
struct ManagedStopper {
    time_manager: SharedTimeManager,
    go: GoParams,
    context: MoveContext,
    common: CommonStopperOptions,
    chain: Option<Box<dyn Stopper>>,
}

impl ManagedStopper {
    /// The move's stopper chain, built from the manager on first use: with a reused tree the root's moves-left
    /// estimate, which the chain may read, is the same then as at the first poll.
    fn chain(&mut self, stats: &IterationStats) -> &mut Box<dyn Stopper> {
        let Self { time_manager, go, context, common, chain } = self;
        chain.get_or_insert_with(|| {
            let context = MoveContext { network_moves_left_plies: stats.root_moves_left_plies, ..context.clone() };
            build_stopper_chain(Some(lock(time_manager).as_mut()), go, &context, common)
        })
    }
}

impl Stopper for ManagedStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        self.chain(stats).should_stop(stats, hints)
    }

    fn stop_reason(&self) -> Option<String> {
        self.chain.as_ref().and_then(|chain| chain.stop_reason())
    }

    fn playouts_left_at_start(&mut self, stats: &IterationStats) -> Option<u64> {
        self.chain(stats).playouts_left_at_start(stats)
    }

    fn affordable_playouts(&mut self, stats: &IterationStats) -> Option<u64> {
        self.chain(stats).affordable_playouts(stats)
    }
}

/// The end of a move, after the best move is sent: the time manager learns from the search's outcome, the
/// engine's measures of its speed and of a move's floor are renewed, then the move's trace is appended to
/// `TmTraceFile` and summarised as `info string`.
struct EndOfMove {
    out: UciOutput,
    time_manager: SharedTimeManager,
    trace_file: String,
    measured_nps: Arc<Mutex<Option<f32>>>,
    /// The measure of a move's floor, on the wall clock only.
    measured_move_floor: Option<Arc<Mutex<Option<f32>>>>,
}

impl EndOfMove {
    fn run(&self, outcome: &SearchOutcome) {
        if let Some(nps) = measured_nps(&outcome.stats) {
            *lock(&self.measured_nps) = Some(nps);
        }
        if let (Some(floor), Some(sample)) = (&self.measured_move_floor, move_floor_sample(&outcome.stats)) {
            let mut floor = lock(floor);
            *floor = Some(floor.map_or(sample, |old| old + MOVE_FLOOR_WEIGHT * (sample - old)));
        }
        let traces = {
            let mut manager = lock(&self.time_manager);
            Fault::strike(Fault::from_env(), FaultPlace::EndOfMove, 1);
            manager.end_of_move(&outcome.stats);
            manager.drain_trace()
        };
        if let Err(error) = append_traces(&self.trace_file, &traces) {
            let _ = self.out.error(&error.to_string());
        }
        for trace in &traces {
            let _ = self.out.send(&format!("info string {}", trace.summary()));
        }
        crate::memory::release_freed_memory();
    }
}

/// Milliseconds of the speed calibration when the network loads.
const CALIBRATION_MS: i64 = 200;

/// The weight of each move's sample in the running measure of a move's floor: about the last four moves count,
/// so a machine that gets busier (another engine's search, other work) raises it within a few moves.
const MOVE_FLOOR_WEIGHT: f32 = 0.25;

/// What a move cost before its first playouts, in ms (the start of its search and its first network batch);
/// None for a search without playouts.
fn move_floor_sample(stats: &IterationStats) -> Option<f32> {
    (stats.nodes_since_movestart > 0)
        .then(|| stats.time_since_movestart_ms.saturating_sub(stats.time_since_first_batch_ms).max(0) as f32)
}

/// A search's nodes per second since its first batch, as the time managers measure it; None for a search too
/// short to say (under 50 ms or 10 nodes).
fn measured_nps(stats: &IterationStats) -> Option<f32> {
    (stats.time_since_first_batch_ms >= 50 && stats.nodes_since_movestart >= 10)
        .then(|| stats.nodes_since_movestart as f32 * 1000.0 / stats.time_since_first_batch_ms as f32)
}

/// `bestmove <move> [ponder <move>]`, or `bestmove 0000` without a move; castling as lc0 writes it.
fn bestmove_line(best: Option<&Move>, ponder: Option<&Move>, chess960: bool) -> String {
    let uci = |mv: &Move| uci_move(mv, chess960);
    match (best, ponder) {
        (Some(best), Some(ponder)) => format!("bestmove {} ponder {}", uci(best), uci(ponder)),
        (Some(best), None) => format!("bestmove {}", uci(best)),
        (None, _) => "bestmove 0000".to_string(),
    }
}

/// The session's clock: wall time, or a fresh virtual clock per game.
fn new_clock(options: &EngineOptions) -> SharedClock {
    if options.virtual_clock {
        Arc::new(VirtualClock::new(options.virtual_nps as f64, options.virtual_batch_cost_ms))
    } else {
        Arc::new(WallClock::new())
    }
}

/// Locks a mutex, recovering the data if another thread panicked while holding it.
fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use timemgr::time_manager_from_str;

    #[test]
    fn the_manager_budgets_with_the_roots_moves_left_from_the_first_statistics() {
        let manager: SharedTimeManager = Arc::new(Mutex::new(time_manager_from_str("legacy(mlh)").unwrap()));
        let go = GoParams { wtime: Some(60_000), btime: Some(60_000), ..GoParams::default() };
        let mut stopper = ManagedStopper {
            time_manager: manager.clone(),
            go,
            context: MoveContext { white_to_move: true, move_overhead_ms: 0, ..MoveContext::default() },
            common: CommonStopperOptions {
                smart_pruning_factor: 0.0,
                smart_pruning_minimum_batches: 0,
                nodes_as_playouts: false,
                minimum_kld_gain_per_node: 0.0,
                kld_gain_average_interval: 100,
                ram_limit_mb: 0,
            },
            chain: None,
        };
        let stats = IterationStats { total_nodes: 1, root_moves_left_plies: Some(90.0), ..IterationStats::default() };
        assert!(!stopper.should_stop(&stats, &mut Hints::default()));
        let later = IterationStats { root_moves_left_plies: Some(10.0), ..stats.clone() };
        assert!(!stopper.should_stop(&later, &mut Hints::default()), "the chain is built once");
        let mut manager = lock(&manager);
        manager.end_of_move(&stats);
        let trace = manager.drain_trace().remove(0);
        assert_eq!(trace.estimator.as_deref(), Some("mlh"), "the network's estimate, no fallback");
        assert_eq!(trace.step_value("moves_left"), Some(45.0), "90 plies are 45 moves");
        // 60 s over 45 moves, times lc0's first-move bonus of 1 + 1.8: 1333.3 ms × 2.8 = 3733 ms.
        assert_eq!(trace.deadline_ms, 3733);
    }

    #[test]
    fn bestmove_lines() {
        let game = GameState::from_uci(None, &["e2e4"]).unwrap();
        let moves = game.position().legal_moves();
        let e5 = moves.iter().find(|mv| mv.to_uci(CastlingMode::Standard).to_string() == "e7e5").unwrap();
        assert_eq!(bestmove_line(Some(e5), None, false), "bestmove e7e5");
        assert_eq!(bestmove_line(Some(e5), Some(e5), false), "bestmove e7e5 ponder e7e5");
        assert_eq!(bestmove_line(None, Some(e5), false), "bestmove 0000");
    }
}
