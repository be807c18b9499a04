//! The contract between the search and everything that decides when it stops (docs/lc0/stoppers.md §3.1–3.3, §3.8).
//!
//! The search knows nothing of clocks: after each iteration it publishes [`IterationStats`] and obeys the
//! answer of one [`Stopper`]. Stoppers talk back through [`Hints`].

use crate::ctm::PiecePlacement;

/// Why a stopper may want the search to run longer or shorter than planned (docs/lc0/smooth.md §1.6.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TimeUsageHint {
    /// Nothing special.
    #[default]
    Normal,
    /// The most-visited root move is not the one with the best Q (+ moves-left utility).
    NeedMoreTime,
    /// The search wants to move at once.
    ImmediateMove,
}

/// Everything a stopper may base its decision on; filled by the search after each iteration.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IterationStats {
    /// Milliseconds since the move clock started (at `position`, or at `go`).
    pub time_since_movestart_ms: i64,
    /// Milliseconds since the first statistics collection that saw playouts; 0 before that.
    pub time_since_first_batch_ms: i64,
    /// Playouts of this search plus the visits of the reused root.
    pub total_nodes: u64,
    /// Playouts of this search.
    pub nodes_since_movestart: u64,
    /// Network batches of this search.
    pub batches_since_movestart: u64,
    /// Cumulative depth ÷ playouts (integer division).
    pub average_depth: u32,
    /// Shortest proven mate among the root moves in moves, if any.
    pub mate_depth: Option<u32>,
    /// Visits of each root child, in the root's edge order (sorted by prior).
    pub edge_n: Vec<u32>,
    /// Some visited root child is a proven win.
    pub win_found: bool,
    /// Number of visited root children that are proven losses.
    pub num_losing_edges: u32,
    /// No visited root child has Q > −0.98.
    pub may_resign: bool,
    /// The search's own request for more (or less) time.
    pub time_usage_hint: TimeUsageHint,
    /// The network's moves-left estimate for the root in plies, once known (networks with that head): the
    /// reused root's running mean, else the root's own evaluation.
    pub root_moves_left_plies: Option<f32>,
    /// Bytes the search tree holds (what `RamLimitMb` watches); 0 where the caller does not measure it.
    #[serde(default)]
    pub tree_bytes: u64,
}

/// Remaining playouts when nothing limits them (lc0's 4,000,000,000).
pub const UNLIMITED_PLAYOUTS: u64 = 4_000_000_000;
/// Remaining time when nothing limits it (lc0's 100,000,000,000 ms).
pub const UNLIMITED_TIME_MS: i64 = 100_000_000_000;

/// What stoppers tell the search back: merged by minimum for time and playouts, overwritten for NPS.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hints {
    remaining_time_ms: i64,
    remaining_playouts: u64,
    estimated_nps: Option<f32>,
}

impl Default for Hints {
    fn default() -> Self {
        Self { remaining_time_ms: UNLIMITED_TIME_MS, remaining_playouts: UNLIMITED_PLAYOUTS, estimated_nps: None }
    }
}

impl Hints {
    /// Resets every hint before a poll, seeding the NPS with a limit when one is set (lc0's `nps-limit`).
    pub fn reset(&mut self, nps_limit: Option<f32>) {
        *self = Self { estimated_nps: nps_limit, ..Self::default() };
    }
    /// Offers a remaining time; the smallest offer of a poll wins.
    pub fn update_remaining_time(&mut self, ms: i64) {
        self.remaining_time_ms = self.remaining_time_ms.min(ms);
    }
    /// Offers a number of remaining playouts; the smallest offer of a poll wins.
    pub fn update_remaining_playouts(&mut self, playouts: u64) {
        self.remaining_playouts = self.remaining_playouts.min(playouts);
    }
    /// Sets the estimated NPS; the last writer wins.
    pub fn update_estimated_nps(&mut self, nps: f32) {
        self.estimated_nps = Some(nps);
    }
    /// Remaining time in ms, for the watchdog's sleep.
    pub fn remaining_time_ms(&self) -> i64 {
        self.remaining_time_ms
    }
    /// Remaining playouts, never less than 1, for root pruning and the collision budget.
    pub fn remaining_playouts(&self) -> u64 {
        self.remaining_playouts.max(1)
    }
    /// The estimated NPS, if a stopper offered one.
    pub fn estimated_nps(&self) -> Option<f32> {
        self.estimated_nps
    }
}

/// Decides when one search stops; polled by every search thread (behind a lock). What a time manager learns
/// from the move reaches it afterwards, through [`crate::TimeManager::end_of_move`].
pub trait Stopper: Send {
    /// Answers whether the search should stop now; may offer hints.
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool;
    /// Whether this stopper prunes on its own exact node budget, so the chain leaves out the generic smart
    /// pruning (which guesses the remaining playouts from time and NPS).
    fn prunes_on_its_own_budget(&self) -> bool {
        false
    }
    /// A short reason for the last `true` of `should_stop`, for logs and traces.
    fn stop_reason(&self) -> Option<String> {
        None
    }
    /// The playouts this stopper will allow the move, asked once before the search starts, where it knows them
    /// without searching (a node or visit target), so that the search can keep a small move's gathers within
    /// them. It must not change what `should_stop` will answer.
    fn playouts_left_at_start(&mut self, _stats: &IterationStats) -> Option<u64> {
        None
    }
    /// The playouts the move can still afford before its hard time limit at the stopper's speed estimate, asked
    /// once a move (before the first gather of a reused tree, after the root's evaluation on a fresh one), so
    /// that a move in time trouble keeps its gathers small enough not to overrun the clock. It must not change
    /// what `should_stop` will answer.
    fn affordable_playouts(&mut self, _stats: &IterationStats) -> Option<u64> {
        None
    }
}

/// The parameters of one UCI `go` command; times in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GoParams {
    /// White's remaining clock.
    pub wtime: Option<i64>,
    /// Black's remaining clock.
    pub btime: Option<i64>,
    /// White's increment per move.
    pub winc: Option<i64>,
    /// Black's increment per move.
    pub binc: Option<i64>,
    /// Moves until the next time control (values ≤ 0 are ignored).
    pub movestogo: Option<i32>,
    /// Fixed time for this move.
    pub movetime: Option<i64>,
    /// Node (visit) limit for this move.
    pub nodes: Option<u64>,
    /// Average-depth limit for this move.
    pub depth: Option<u32>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
}

/// What a time manager knows about the position and the search when it budgets a move.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MoveContext {
    /// Whether white is to move (selects wtime/winc or btime/binc).
    pub white_to_move: bool,
    /// Half-moves since the game's start: 2·(fullmove − 1) + (1 if black to move) + moves applied since.
    pub game_ply: u32,
    /// Visits of the reused root (0 without tree reuse).
    pub reused_visits: u64,
    /// Move overhead in ms (UCI MoveOverheadMs, default 200).
    pub move_overhead_ms: i64,
    /// Number of legal moves at the root.
    pub legal_moves: usize,
    /// Pieces on the board, kings included, for table-based moves-left estimators.
    pub piece_count: u32,
    /// The network's moves-left estimate for the root in plies, when the network has that head.
    pub network_moves_left_plies: Option<f32>,
    /// Own moves played since the opening book was left, when known (Cray Blitz's out-of-book factor).
    pub moves_out_of_book: Option<u32>,
    /// Whether the engine prunes the search early (SmartPruningFactor > 0); set by the stopper chain.
    pub smart_pruning: bool,
    /// The pieces on the board, for managers that read the position (`ctm`); `None` where the caller has no
    /// position.
    pub placement: Option<PiecePlacement>,
    /// The engine's own measure of its speed in nodes per second (its last search, a calibration when the
    /// network loaded, or VirtualNps on the virtual clock): where a manager with `init-nps=0` starts.
    pub engine_nps: Option<f32>,
    /// The lengths of the games this engine has finished since it started, for estimators that follow them.
    #[serde(default)]
    pub played_games: PlayedGames,
    /// What a move costs on this engine and machine before its first playouts, in wall-clock ms (the engine's
    /// running measure; `None` on the virtual clock and before its first move): the least any move takes, even
    /// one told to stop at once, so the clock must keep it for every move still to come.
    #[serde(default)]
    pub move_floor_ms: Option<f32>,
}

/// The games of an engine process as its session sees them: the ply of its last own move in the game being
/// played, and the games finished before it, each of which lasted its last own move and the opponent's reply.
#[derive(Clone, Copy, Debug, Default)]
pub struct GameLengths {
    last_own_move_ply: Option<u32>,
    finished: PlayedGames,
}

impl GameLengths {
    /// The engine searches its own move at `ply`.
    pub fn own_move(&mut self, ply: u32) {
        self.last_own_move_ply = Some(ply);
    }

    /// A new game begins: the one before, if the engine moved in it, is counted as finished.
    pub fn new_game(&mut self) {
        if let Some(ply) = self.last_own_move_ply.take() {
            self.finished.record_game_plies(ply + 2);
        }
    }

    /// The games finished so far.
    pub fn finished(&self) -> PlayedGames {
        self.finished
    }
}

/// The games an engine process has finished, summarised as the log-logistic law of game length needs them: its
/// median is `exp(mean of ln length)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlayedGames {
    /// Games finished.
    pub games: u32,
    /// Sum of ln(length in full moves) over them.
    pub log_length_sum: f64,
}

impl PlayedGames {
    /// Counts a finished game of `plies` half-moves from the game's start (at least one full move).
    pub fn record_game_plies(&mut self, plies: u32) {
        self.games += 1;
        self.log_length_sum += (f64::from(plies) / 2.0).max(1.0).ln();
    }

    /// The median game length when `prior` full moves count as `prior_games` games beside the games played:
    /// `exp((prior_games·ln prior + Σ ln length) / (prior_games + games))`; `prior` itself without games, when
    /// `prior_games` is 0 (the estimator does not follow the games), and should the sums be out of range.
    pub fn median_moves(&self, prior: f32, prior_games: f32) -> f32 {
        if self.games == 0 || prior_games <= 0.0 {
            return prior;
        }
        let weight = f64::from(prior_games);
        let log_median = (weight * f64::from(prior).ln() + self.log_length_sum) / (weight + f64::from(self.games));
        let median = log_median.exp() as f32;
        if median.is_finite() && median >= 1.0 {
            median
        } else {
            prior
        }
    }
}
