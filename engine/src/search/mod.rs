//! The PUCT Monte-Carlo tree search (docs/lc0/search.md §4): a tree kept across moves, worker threads that batch
//! leaves for the network, and stoppers that decide when to play.

mod backup;
mod draw_score;
mod fastmath;
mod gather;
mod gather_context;
mod info;
mod lc0_fused_arithmetic;
mod node;
mod packed_slice;
mod params;
mod pick;
mod prefetch;
mod root_noise;
mod run;
mod select;
mod stats;
mod std_sort;
mod temperature;
mod tree;
mod verbose;
mod wdl_rescale;

pub use draw_score::DrawScore;
pub use fastmath::{fast_log, fast_log2};
pub use info::{
    shown_value, wdl_display, wdl_mu, wdl_mu_centipawns, wdl_permille, InfoFields, InfoLine, Score, ScoreType,
    ShownValue,
};
pub use params::{Exploration, GatherBound, PickingTaskRule, SearchParams};
pub use root_noise::RootNoise;
pub use select::collision_budget;
pub use temperature::MoveTemperature;
pub use wdl_rescale::{
    accurate_params, contempt, simplified_params, wdl_rescale, BadContempt, ContemptMode, RescaleParams, SearchContempt,
};

use crate::clock::SharedClock;
use crate::position::{GameState, PackedMove};
use crate::tablebase::{RootProbe, Tablebases};
use run::{Run, RunConfig};
use shakmaty::{Move, Position};
use stats::{Progress, RootFilter};
use std::sync::{Arc, Mutex, MutexGuard};
use timemgr::search_stats::{IterationStats, Stopper};
use tree::TreeState;

/// cpuct(N) = cpuct + cpuct_factor · FastLog((N + cpuct_base)/cpuct_base) for a parent with N visits, with the
/// root's parameters at the root.
pub fn cpuct(params: &SearchParams, parent_visits: u32, at_root: bool) -> f32 {
    select::cpuct(params, parent_visits, at_root)
}

/// Called once with the outcome after the best move is sent, on the thread that sent it and outside the
/// search's locks: where the caller ends the move (the time manager learns, traces are written).
pub type AfterBestMove = Box<dyn FnOnce(&SearchOutcome) + Send>;

/// What one `go` asks of the search.
pub struct SearchRequest {
    /// Decides when to stop.
    pub stopper: Box<dyn Stopper>,
    /// The end of the move, if the caller has one (not called for aborted searches).
    pub after_bestmove: Option<AfterBestMove>,
    /// The move's clock (wall or virtual).
    pub clock: SharedClock,
    /// Clock time when the move's clock started.
    pub move_start_ms: f64,
    /// UCI `searchmoves` (empty = all legal moves; illegal ones are ignored).
    pub searchmoves: Vec<Move>,
    /// Hold `bestmove` until `stop` (`go infinite`, `go ponder`).
    pub hold_bestmove_until_stop: bool,
    /// `go infinite`: contempt mode `play` is off, as lc0 has it.
    pub infinite: bool,
    /// `go ponder`: the root is the opponent's position (before its predicted move), so contempt mode `play`
    /// favours the side not to move there, as lc0 (search.cc 192–196).
    pub ponder: bool,
}

impl SearchRequest {
    /// A search of every root move from clock time 0 that sends its best move as soon as `stopper` stops it,
    /// with no end-of-move callback: the request of a bench or a test, whose other fields a caller sets with
    /// `SearchRequest { field, ..SearchRequest::new(stopper, clock) }`.
    pub fn new(stopper: Box<dyn Stopper>, clock: SharedClock) -> Self {
        Self {
            stopper,
            after_bestmove: None,
            clock,
            move_start_ms: 0.0,
            searchmoves: Vec::new(),
            hold_bestmove_until_stop: false,
            infinite: false,
            ponder: false,
        }
    }
}

/// What the search tells the UCI layer.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchEvent {
    /// An `info` line.
    Info(InfoLine),
    /// Verbose move statistics, one `info string` per line.
    VerboseStats(Vec<String>),
    /// Lines for the `LogFile` only: the move statistics with VerboseMoveStats off, and those of the node under the
    /// move played, as lc0 logs them at every best move.
    LoggedLines(Vec<String>),
    /// The backend failed; the search stops and still sends a best move from what it has.
    Error(String),
    /// The search's move; `best` None means no legal move (`bestmove 0000`).
    BestMove {
        /// The move to play.
        best: Option<Move>,
        /// The expected reply.
        ponder: Option<Move>,
        /// The statistics at the end.
        final_stats: IterationStats,
    },
}

/// The result of a search that sent its best move.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    /// The move played (None without legal moves).
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// The final statistics.
    pub stats: IterationStats,
}

/// The root's moves for one search and what the tables did at the root.
struct RootMoves {
    filter: RootFilter,
    /// The tables to probe below the root.
    tablebases: Option<Arc<Tablebases>>,
    tb_hits: u64,
}

/// Controls a running search.
pub struct SearchHandle {
    run: Arc<Run>,
}

impl SearchHandle {
    /// Stops the search and releases a held best move (UCI `stop`, `ponderhit` after infinite).
    pub fn stop(&self) {
        self.run.stop();
    }
    /// Ends the search without a best move and without `after_bestmove` (quit, a new position).
    pub fn abort(&self) {
        self.run.abort();
    }
    /// Waits until the search has ended; the outcome if a best move was sent.
    pub fn wait(self) -> Option<SearchOutcome> {
        self.run.join()
    }
    /// Whether every search thread has ended.
    pub fn is_finished(&self) -> bool {
        self.run.is_finished()
    }
    /// Whether the `bestmove` was sent: the search is over for the GUI even while its threads wind down.
    pub fn best_move_sent(&self) -> bool {
        self.run.best_move_sent()
    }
    /// The statistics so far.
    pub fn stats(&self) -> IterationStats {
        self.run.stats()
    }
}

/// The search and its tree, kept across moves of one game.
pub struct Search {
    backend: Arc<dyn nn::Backend>,
    tablebases: Option<Arc<Tablebases>>,
    params: SearchParams,
    state: Arc<Mutex<TreeState>>,
    active: Option<Arc<Run>>,
}

impl Search {
    /// A search with an empty tree at the start position.
    pub fn new(backend: Arc<dyn nn::Backend>, params: SearchParams) -> Self {
        let state = TreeState { tree: tree::Tree::default(), progress: Progress::default() };
        Self { backend, tablebases: None, params, state: Arc::new(Mutex::new(state)), active: None }
    }

    /// Replaces the network; the tree is discarded because its values came from the old one.
    pub fn set_backend(&mut self, backend: Arc<dyn nn::Backend>) {
        self.finish_active();
        self.backend = backend;
        self.lock().tree.reset();
    }

    /// Replaces the Syzygy tables (None: none) for the next search; the tree's values stay valid.
    pub fn set_tablebases(&mut self, tablebases: Option<Arc<Tablebases>>) {
        self.finish_active();
        self.tablebases = tablebases;
    }

    /// Replaces the parameters for the next search.
    pub fn set_params(&mut self, params: SearchParams) {
        self.finish_active();
        self.params = params;
    }

    /// The current parameters.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// Moves the root to the game's position, keeping the subtree of the moves played since; returns the
    /// reused root's visits (0 when nothing could be kept).
    pub fn set_position(&mut self, game: &GameState) -> u64 {
        self.finish_active();
        self.lock().tree.set_position(game)
    }

    /// Forgets the tree (UCI `ucinewgame`).
    pub fn reset(&mut self) {
        self.finish_active();
        self.lock().tree.reset();
    }

    /// Visits of each root move, in the root's edge order (by prior); empty before the first search.
    pub fn root_visits(&self) -> Vec<(Move, u32)> {
        let state = self.lock();
        let board = state.tree.root_position().board();
        state.tree.root.edges_and_nodes().map(|e| (e.mv.unpack(board), e.n())).collect()
    }

    /// The Q of root move `mv` from the side to move's view; None if it is not a root move or has no visits.
    pub fn root_q(&self, mv: &Move) -> Option<f32> {
        let state = self.lock();
        let packed = PackedMove::pack(mv);
        let edge = state.tree.root.edges_and_nodes().find(|e| e.mv == packed)?;
        (edge.n() > 0).then(|| edge.q(0.0))
    }

    /// Bytes used by the tree, for memory limits.
    pub fn tree_bytes(&self) -> u64 {
        self.lock().tree.bytes()
    }

    /// Starts searching the current position (stopping and joining a search still running); events go to
    /// `sink` from the search's threads while they hold the search's locks, so the sink must not call back
    /// into this `Search` or the returned handle. `searchmoves` that are not legal are ignored; if none is
    /// legal every move is searched.
    pub fn start(&mut self, request: SearchRequest, sink: Box<dyn FnMut(SearchEvent) + Send>) -> SearchHandle {
        self.finish_active();
        let (filter, tablebases, contempt, draw_score) = {
            let mut state = self.lock();
            let reused = u64::from(state.tree.root.n);
            let legal = shakmaty::Position::legal_moves(state.tree.root_position());
            let searchmoves: Vec<Move> = request.searchmoves.into_iter().filter(|m| legal.contains(m)).collect();
            let root = self.root_moves(&state.tree, searchmoves);
            state.progress = Progress {
                reused_visits: reused,
                root_moves_left: (reused > 0).then_some(state.tree.root.m),
                tb_hits: root.tb_hits,
                ..Progress::default()
            };
            let turn = state.tree.root_position().turn();
            let p = &self.params;
            let contempt = SearchContempt::new(
                p.contempt_mode,
                p.wdl_rescale,
                p.wdl_max_s,
                p.wdl_eval_objectivity,
                if request.ponder { !turn } else { turn },
                request.infinite,
            );
            (root.filter, root.tablebases, contempt, DrawScore::new(self.params.draw_score, turn))
        };
        let run = Run::start(RunConfig {
            state: Arc::clone(&self.state),
            params: self.params.clone(),
            backend: Arc::clone(&self.backend),
            stopper: request.stopper,
            after_bestmove: request.after_bestmove,
            sink,
            clock: request.clock,
            move_start_ms: request.move_start_ms,
            filter,
            tablebases,
            contempt,
            draw_score,
            hold: request.hold_bestmove_until_stop,
        });
        self.active = Some(Arc::clone(&run));
        SearchHandle { run }
    }

    /// lc0's `MakeRootMoveFilter`: `searchmoves` if any, else the moves the tables rank best; the tables
    /// are probed in the search unless the DTZ ranking already decided the root.
    fn root_moves(&self, tree: &tree::Tree, searchmoves: Vec<Move>) -> RootMoves {
        let tables = self.tablebases.clone();
        if !searchmoves.is_empty() {
            return RootMoves { filter: RootFilter::new(&searchmoves), tablebases: tables, tb_hits: 0 };
        }
        let ranks = tables.as_ref().and_then(|tables| {
            let dtz_optimal = self.params.syzygy_fast_play || tree.history.repeated_since_zeroing();
            tables.rank_root_moves(tree.root_position(), dtz_optimal)
        });
        match ranks {
            Some(ranks) => RootMoves {
                filter: RootFilter::new(&ranks.best_moves()),
                tablebases: tables.filter(|_| ranks.probe != RootProbe::Dtz),
                tb_hits: 1,
            },
            None => RootMoves { filter: RootFilter::default(), tablebases: tables, tb_hits: 0 },
        }
    }

    /// Stops a search still running (sending its best move) and waits for its threads.
    fn finish_active(&mut self) {
        if let Some(run) = self.active.take() {
            run.stop();
            run.join();
        }
    }

    fn lock(&self) -> MutexGuard<'_, TreeState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for Search {
    fn drop(&mut self) {
        if let Some(run) = self.active.take() {
            run.abort();
            run.join();
        }
    }
}
