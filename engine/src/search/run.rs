//! One running search: worker threads (pick leaves under the tree lock, examine and compute them outside it, back
//! them up under it), a watchdog, stopper polling and the single `bestmove` (docs/lc0/stoppers.md §3.6,
//! docs/lc0/search.md §4.5).

use super::draw_score::DrawScore;
use super::gather::{abandon, finish, gather, max_out_of_order, prepare};
use super::gather_context::GatherContext;
use super::node::Node;
use super::params::{task_workers, GatherBound, PickingTaskRule, SearchParams};
use super::select::collision_budget;
use super::stats::{best_root_edge, info_lines, iteration_stats, played_variation, InfoContext, RootFilter};
use super::tree::{Tree, TreeState};
use super::verbose::{verbose_move_stats, verbose_move_stats_below};
use super::wdl_rescale::SearchContempt;
use super::{AfterBestMove, SearchEvent, SearchOutcome};
use crate::clock::SharedClock;
use crate::fault::{panic_message, Fault, FaultPlace};
use crate::position::{uci_move, PackedMove};
use crate::tablebase::Tablebases;
use nn::stage_timing::{enter, Stage};
use nn::{Backend, BackendError};
use shakmaty::{Chess, Move, Position};
use std::any::Any;
use std::iter;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use timemgr::search_stats::{Hints, IterationStats, Stopper};

/// Minimum interval between periodic `info` lines when nothing changes, on the search's clock and on the wall: on a
/// virtual clock slower than the wall a long move still reports its progress (a match runner watches for it).
const INFO_INTERVAL: Duration = Duration::from_secs(5);

/// The longest a worker whose gather found only collisions waits for another thread's backup.
const COLLISION_WAIT: Duration = Duration::from_millis(5);

/// What one iteration achieved, to decide whether the worker should wait before the next.
enum Work {
    /// Visits were backed up.
    Playouts,
    /// Every pick collided with a leaf another thread is evaluating; the search had backed up this many
    /// batches.
    CollisionsOnly(u64),
    /// Nothing to do (stopping, or a terminal root).
    Nothing,
}

/// Everything about the conversation with the caller, behind its own lock (always taken after the tree's).
struct Control {
    stopper: Box<dyn Stopper>,
    sink: Box<dyn FnMut(SearchEvent) + Send>,
    hints: Hints,
    first_batch_ms: Option<f64>,
    last_info: Option<LastInfo>,
    outcome: Option<SearchOutcome>,
    done: bool,
    /// `time-trouble` on a fresh tree: whether the first poll after the root's evaluation still has to ask the
    /// stoppers what the move can afford (asking before it would budget without the root's moves-left estimate).
    time_trouble_pending: bool,
}

/// The last periodic `info`: what it showed, and when on the search's clock and on the wall.
struct LastInfo {
    best: Option<PackedMove>,
    depth: u32,
    seldepth: u32,
    at_ms: f64,
    at_wall: Instant,
}

impl LastInfo {
    /// Whether a new periodic `info` is due: what it would show has changed, or [`INFO_INTERVAL`] has passed on the
    /// search's clock (`now_ms`) or on the wall.
    fn is_outdated(&self, best: Option<PackedMove>, depth: u32, seldepth: u32, now_ms: f64) -> bool {
        self.best != best
            || self.depth != depth
            || self.seldepth != seldepth
            || now_ms - self.at_ms >= INFO_INTERVAL.as_secs_f64() * 1000.0
            || self.at_wall.elapsed() >= INFO_INTERVAL
    }
}

/// State shared by the threads of one search.
pub struct Run {
    state: Arc<Mutex<TreeState>>,
    params: SearchParams,
    backend: Arc<dyn Backend>,
    has_wdl: bool,
    has_moves_left: bool,
    batch_target: usize,
    /// `MaxPrefetch` resolved: the backend's recommendation unless the options set one.
    prefetch_target: usize,
    /// When a gather's passes hand subtrees to picking tasks: with lc0's task workers (`TaskWorkers` resolved).
    picking_tasks: Option<PickingTaskRule>,
    /// Whether this move's gathers stay within the stoppers' playouts left (`GatherWithinPlayoutsLeft`); on a
    /// fresh tree in time-trouble mode, true for the root's gather and then decided at the first poll.
    within_playouts_left: AtomicBool,
    /// Search threads started.
    thread_count: usize,
    /// Batches the backend computes at once.
    concurrent_batches: usize,
    /// Threads between the end of their gather and the end of their batch's computation (lc0's
    /// backend_waiting_counter_).
    backend_waiting: AtomicUsize,
    clock: SharedClock,
    move_start_ms: f64,
    filter: RootFilter,
    tablebases: Option<Arc<Tablebases>>,
    contempt: SearchContempt,
    draw_score: DrawScore,
    hold: bool,
    stop: AtomicBool,
    user_stop: AtomicBool,
    abort: AtomicBool,
    failed: AtomicBool,
    /// The injected fault, for the reliability tests ([`crate::fault`]), and the iterations it counts.
    fault: Option<Fault>,
    iterations: AtomicU64,
    control: Mutex<Control>,
    after_bestmove: Mutex<Option<AfterBestMove>>,
    wake: Condvar,
    /// Notified, with the tree lock, after every backed-up batch.
    backed_up: Condvar,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

/// What `Run::new` needs.
pub struct RunConfig {
    /// The tree, shared with the owning `Search`.
    pub state: Arc<Mutex<TreeState>>,
    /// Search parameters.
    pub params: SearchParams,
    /// The evaluator.
    pub backend: Arc<dyn Backend>,
    /// The stopper chain.
    pub stopper: Box<dyn Stopper>,
    /// The caller's end of the move.
    pub after_bestmove: Option<AfterBestMove>,
    /// Receives info lines and the best move.
    pub sink: Box<dyn FnMut(SearchEvent) + Send>,
    /// The move's clock.
    pub clock: SharedClock,
    /// Clock time when the move's clock started.
    pub move_start_ms: f64,
    /// The root move filter.
    pub filter: RootFilter,
    /// The tables the search probes below the root (see [`GatherContext::tablebases`]).
    pub tablebases: Option<Arc<Tablebases>>,
    /// The WDL rescaling of this search.
    pub contempt: SearchContempt,
    /// What a draw is worth at each depth of this search.
    pub draw_score: DrawScore,
    /// Hold `bestmove` until `stop` (infinite, ponder).
    pub hold: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Takes the tree lock for a search iteration, the wait charged to [`Stage::TreeLock`].
fn lock_tree(state: &Mutex<TreeState>) -> MutexGuard<'_, TreeState> {
    let _timer = enter(Stage::TreeLock);
    lock(state)
}

/// The playouts that bound a reused tree's move from its start, if `GatherWithinPlayoutsLeft` bounds this move (a
/// fresh tree's first gather is its root alone; `time-trouble` asks about it at the first poll, see
/// [`time_trouble_playouts`]): `small-moves`, the playouts the stoppers allow it when fewer than one gather may back
/// up out of order; `time-trouble`, when it can afford fewer than that before its hard time limit, those it allows
/// or affords, whichever is fewer.
fn bounded_move_playouts(
    root: &Node,
    stopper: &mut dyn Stopper,
    stats: &IterationStats,
    params: &SearchParams,
    batch_target: usize,
) -> Option<u64> {
    let limit = max_out_of_order(params, batch_target) as u64;
    if root.n == 0 {
        return None;
    }
    match params.gather_bound {
        GatherBound::SmallMoves => stopper.playouts_left_at_start(stats).filter(|&left| left < limit),
        GatherBound::TimeTrouble => {
            let affordable = time_trouble_playouts(stopper, stats, limit)?;
            Some(stopper.playouts_left_at_start(stats).map_or(affordable, |left| left.min(affordable)))
        }
        GatherBound::Off | GatherBound::All => None,
    }
}

/// `time-trouble`: the playouts the move can afford, if fewer than `limit` (one gather's out-of-order limit).
fn time_trouble_playouts(stopper: &mut dyn Stopper, stats: &IterationStats, limit: u64) -> Option<u64> {
    stopper.affordable_playouts(stats).filter(|&affordable| affordable < limit)
}

impl Run {
    /// Starts the worker threads and the watchdog.
    pub fn start(config: RunConfig) -> Arc<Self> {
        let attributes = config.backend.attributes();
        let threads = match config.params.threads {
            // lc0 adds a thread for a GPU backend; here the backend's suggestion is the whole count, measured.
            0 => attributes.suggested_threads.max(1),
            n => n,
        };
        let batch_target = match config.params.minibatch_size {
            0 => attributes.recommended_batch_size.max(1),
            n => n,
        }
        .min(attributes.maximum_batch_size.max(1));
        let prefetch_target = config.params.max_prefetch.unwrap_or(attributes.recommended_prefetch);
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let task_workers = task_workers(config.params.task_workers, attributes.runs_on_cpu, threads, cores);
        let picking_tasks = (task_workers > 0).then_some(config.params.picking_task_rule);
        let mut stopper = config.stopper;
        let bounded_move = matches!(config.params.gather_bound, GatherBound::SmallMoves | GatherBound::TimeTrouble)
            .then(|| {
                let state = lock(&config.state);
                let stats = iteration_stats(
                    &state.tree.root, &state.progress, &config.params, attributes.has_moves_left, config.draw_score,
                );
                bounded_move_playouts(&state.tree.root, stopper.as_mut(), &stats, &config.params, batch_target)
            })
            .flatten();
        let time_trouble_pending =
            config.params.gather_bound == GatherBound::TimeTrouble && lock(&config.state).tree.root.n == 0;
        let mut hints = Hints::default();
        // A fresh tree in time-trouble mode: its first gather ends after the root (a cached root would otherwise
        // let it back up the cache's hits out of order before the first poll has asked what the move can afford).
        if let Some(left) = bounded_move.or(time_trouble_pending.then_some(1)) {
            hints.update_remaining_playouts(left);
        }
        let within_playouts_left =
            config.params.gather_bound == GatherBound::All || bounded_move.is_some() || time_trouble_pending;
        let run = Arc::new(Self {
            state: config.state,
            params: config.params,
            backend: config.backend,
            has_wdl: attributes.has_wdl,
            has_moves_left: attributes.has_moves_left,
            batch_target,
            prefetch_target,
            picking_tasks,
            within_playouts_left: AtomicBool::new(within_playouts_left),
            thread_count: threads,
            concurrent_batches: attributes.concurrent_batches.max(1),
            backend_waiting: AtomicUsize::new(0),
            clock: config.clock,
            move_start_ms: config.move_start_ms,
            filter: config.filter,
            tablebases: config.tablebases,
            contempt: config.contempt,
            draw_score: config.draw_score,
            hold: config.hold,
            stop: AtomicBool::new(false),
            user_stop: AtomicBool::new(false),
            abort: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            fault: Fault::from_env(),
            iterations: AtomicU64::new(0),
            control: Mutex::new(Control {
                stopper,
                sink: config.sink,
                hints,
                first_batch_ms: None,
                last_info: None,
                outcome: None,
                done: false,
                time_trouble_pending,
            }),
            after_bestmove: Mutex::new(config.after_bestmove),
            wake: Condvar::new(),
            backed_up: Condvar::new(),
            threads: Mutex::new(Vec::new()),
        });
        // A reused tree: the stoppers' hints (the playouts left) before the first gather, which they bound.
        if run.params.gather_bound == GatherBound::All && lock(&run.state).tree.root.n > 0 {
            run.guarded("search", || run.poll());
        }
        let mut handles = Vec::new();
        for index in 0..threads {
            let worker = Arc::clone(&run);
            handles.push(spawn(format!("kairos-search-{index}"), move || worker.work()));
        }
        let watchdog = Arc::clone(&run);
        handles.push(spawn("kairos-watchdog".into(), move || watchdog.watch()));
        *lock(&run.threads) = handles.into_iter().flatten().collect();
        run
    }

    /// Asks the search to stop and releases a held best move.
    pub fn stop(&self) {
        self.user_stop.store(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
        self.guarded("search", || self.poll());
        self.wake.notify_all();
    }

    /// Ends the search without a best move.
    pub fn abort(&self) {
        self.abort.store(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
        self.wake.notify_all();
    }

    /// Waits for every thread and returns the outcome, if a best move was sent.
    pub fn join(&self) -> Option<SearchOutcome> {
        let handles = std::mem::take(&mut *lock(&self.threads));
        for handle in handles {
            // A panicking search thread has already lost its work; the outcome below says what was sent.
            let _ = handle.join();
        }
        lock(&self.control).outcome.clone()
    }

    /// Whether every thread has ended.
    pub fn is_finished(&self) -> bool {
        lock(&self.threads).iter().all(std::thread::JoinHandle::is_finished)
    }

    /// Whether the best move was sent.
    pub fn best_move_sent(&self) -> bool {
        lock(&self.control).done
    }

    fn elapsed_ms(&self) -> f64 {
        self.clock.elapsed_ms() - self.move_start_ms
    }

    fn work(&self) {
        loop {
            if self.abort.load(Ordering::SeqCst) || self.failed.load(Ordering::SeqCst) {
                break;
            }
            let root_visited = lock(&self.state).tree.root.n > 0;
            if self.stop.load(Ordering::SeqCst) && root_visited {
                break;
            }
            let iteration = match catch_unwind(AssertUnwindSafe(|| self.iteration())) {
                Ok(iteration) => iteration,
                Err(payload) => {
                    self.fail_after_panic("search thread", payload.as_ref());
                    break;
                }
            };
            match iteration {
                Ok(Work::Playouts) => self.keep_under_nps_limit(),
                Ok(Work::CollisionsOnly(batches)) => self.wait_for_backup(batches),
                Ok(Work::Nothing) => std::thread::sleep(Duration::from_millis(10)),
                Err(error) => {
                    self.failed.store(true, Ordering::SeqCst);
                    self.stop.store(true, Ordering::SeqCst);
                    (lock(&self.control).sink)(SearchEvent::Error(format!(
                        "{error}; the move ends with the best move found so far (set Backend or BackendDevice \
                         to another device if this one keeps failing)"
                    )));
                }
            }
            let _timer = enter(Stage::Stoppers);
            if !self.guarded("search thread", || self.poll()) {
                break;
            }
        }
        self.guarded("search thread", || self.poll());
        self.wake.notify_all();
    }

    /// Runs `body`; a panic in it ends the search as [`Run::fail_after_panic`] says. Whether it ran through.
    fn guarded(&self, place: &str, body: impl FnOnce()) -> bool {
        match catch_unwind(AssertUnwindSafe(body)) {
            Ok(()) => true,
            Err(payload) => {
                self.fail_after_panic(place, payload.as_ref());
                false
            }
        }
    }

    /// A panic in `place`: the search stops, the error is reported, and unless a best move went out already
    /// the most visited allowed root move (else a legal one) is sent without the code that panicked; the
    /// caller's end of the move then runs as after any best move.
    fn fail_after_panic(&self, place: &str, payload: &(dyn Any + Send)) {
        self.failed.store(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
        let error = format!(
            "internal error: the {place} panicked ({}); the move ends with the best move found so far",
            panic_message(payload)
        );
        if let Ok(Some(outcome)) = catch_unwind(AssertUnwindSafe(|| self.send_fallback_bestmove(&error))) {
            self.end_the_move(&outcome);
        }
        self.wake.notify_all();
    }

    /// Reports `error` and, unless the best move was sent, sends the fallback best move; its outcome if sent.
    fn send_fallback_bestmove(&self, error: &str) -> Option<SearchOutcome> {
        let state = lock(&self.state);
        let mut control = lock(&self.control);
        (control.sink)(SearchEvent::Error(error.to_owned()));
        if control.done {
            return None;
        }
        let stats = IterationStats {
            time_since_movestart_ms: self.elapsed_ms() as i64,
            total_nodes: u64::from(state.tree.root.n),
            ..IterationStats::default()
        };
        let outcome = SearchOutcome { best: self.fallback_move(&state.tree), ponder: None, stats };
        Some(self.send_best_move(&mut control, outcome))
    }

    /// Sends the one `bestmove` of this search and marks the search done; the outcome for the end of the move.
    fn send_best_move(&self, control: &mut Control, outcome: SearchOutcome) -> SearchOutcome {
        (control.sink)(SearchEvent::BestMove {
            best: outcome.best,
            ponder: outcome.ponder,
            final_stats: outcome.stats.clone(),
        });
        control.outcome = Some(outcome.clone());
        control.done = true;
        self.wake.notify_all();
        outcome
    }

    /// The move to play when the search has none of its own: the most visited root move the filter allows,
    /// else the first legal one it allows, else any legal one (None only without legal moves).
    fn fallback_move(&self, tree: &Tree) -> Option<Move> {
        let board = tree.root_position().board();
        let visited = tree.root.edges_and_nodes().filter(|edge| edge.n() > 0 && self.filter.allows(edge.mv));
        let most_visited = visited.max_by_key(|edge| edge.n()).map(|edge| edge.mv.unpack(board));
        most_visited.or_else(|| {
            let legal = tree.root_position().legal_moves();
            let allowed = legal.iter().find(|mv| self.filter.allows(PackedMove::pack(mv))).copied();
            allowed.or_else(|| legal.first().copied())
        })
    }

    /// Hands the outcome to the caller's end of the move, once, outside the search's locks; a panic there
    /// is reported (the best move is out already).
    fn end_the_move(&self, outcome: &SearchOutcome) {
        let Some(after_bestmove) = lock(&self.after_bestmove).take() else {
            return;
        };
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| after_bestmove(outcome))) {
            let error = format!(
                "internal error: the end of the move (the time manager's learning) panicked ({}); the game goes on",
                panic_message(payload.as_ref())
            );
            (lock(&self.control).sink)(SearchEvent::Error(error));
        }
    }

    fn watch(&self) {
        // Under a virtual clock the workers' own polls after each batch see every change of time; polls from
        // here would hit the stateful stoppers at moments that depend on thread timing.
        let polls = self.clock.advances_between_batches();
        loop {
            if polls && !self.guarded("watchdog", || self.poll()) {
                break;
            }
            let control = lock(&self.control);
            if control.done || self.abort.load(Ordering::SeqCst) {
                break;
            }
            let wait_ms = control.hints.remaining_time_ms().clamp(1, 100) as u64;
            // Woken early by stop or abort; the next poll sees it.
            drop(self.wake.wait_timeout(control, Duration::from_millis(wait_ms)));
        }
    }

    /// lc0's `NodesPerSecondLimit`: after a batch, waits a millisecond at a time while the search has made more
    /// nodes a second since its first batch than the limit. Only on the wall clock: a virtual clock stands still
    /// while the search waits.
    fn keep_under_nps_limit(&self) {
        let limit = f64::from(self.params.nps_limit);
        if limit <= 0.0 || !self.clock.advances_between_batches() {
            return;
        }
        while !self.stop.load(Ordering::SeqCst) && !self.abort.load(Ordering::SeqCst) {
            let first_batch_ms = lock(&self.control).first_batch_ms;
            let since_ms = self.elapsed_ms() - first_batch_ms.unwrap_or(0.0);
            let playouts = lock(&self.state).progress.playouts;
            if since_ms > 0.0 && playouts as f64 * 1000.0 / since_ms <= limit {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// One gather–compute–backup cycle.
    fn iteration(&self) -> Result<Work, BackendError> {
        let backend = Arc::clone(&self.backend);
        let mut computation = backend.new_computation();
        let hints = lock(&self.control).hints.clone();
        let stopping = || self.stop.load(Ordering::SeqCst);
        // lc0's test (search.cc 1322–1332), with the threshold counted per batch the backend computes at once: a
        // round robin with a backend per thread (the CPU's default) is never idle for want of threads.
        let backend_idle = || {
            self.thread_count > 1
                && self.thread_count.saturating_sub(self.backend_waiting.load(Ordering::Relaxed))
                    > self.params.thread_idling_threshold * self.concurrent_batches
        };
        let state = lock_tree(&self.state);
        if self.fault.is_some() {
            Fault::strike(self.fault, FaultPlace::Search, self.iterations.fetch_add(1, Ordering::SeqCst) + 1);
        }
        let tree = &state.tree;
        if tree.root.n > 0 && tree.root.terminal != super::node::Terminal::No {
            self.stop.store(true, Ordering::SeqCst);
            return Ok(Work::Nothing);
        }
        let context = GatherContext {
            params: &self.params,
            filter: &self.filter,
            tablebases: self.tablebases.as_deref(),
            contempt: &self.contempt,
            draw_score: self.draw_score,
            has_moves_left: self.has_moves_left,
            batch_target: self.batch_target,
            prefetch_target: self.prefetch_target,
            collision_budget: collision_budget(&self.params, u64::from(tree.root.n).min(hints.remaining_playouts())),
            remaining_playouts: hints.remaining_playouts(),
            within_playouts_left: self.within_playouts_left.load(Ordering::SeqCst),
            picking_tasks: self.picking_tasks,
            stopping: &stopping,
            backend_idle: &backend_idle,
        };
        let (mut gathered, mut state) = {
            let _timer = enter(Stage::Gather);
            gather(state, || lock_tree(&self.state), &context, computation.as_mut())?
        };
        if gathered.is_empty() {
            return Ok(Work::Nothing);
        }
        let pending = gathered.out_of_order_playouts;
        state.progress.pending_playouts += pending;
        drop(state);
        self.backend_waiting.fetch_add(1, Ordering::Relaxed);
        let results = if computation.queued() > 0 {
            let _timer = enter(Stage::Fetch);
            computation.compute()
        } else {
            Ok(Vec::new())
        };
        self.backend_waiting.fetch_sub(1, Ordering::Relaxed);
        let prepared = results.and_then(|results| {
            let _timer = enter(Stage::Backup);
            prepare(&mut gathered, results)
        });
        let mut state = lock_tree(&self.state);
        let TreeState { tree, progress } = &mut *state;
        progress.pending_playouts -= pending;
        if let Err(error) = prepared {
            abandon(tree, gathered);
            return Err(error);
        }
        let playouts = {
            let _timer = enter(Stage::Backup);
            finish(tree, progress, gathered, &context)?
        };
        if playouts == 0 {
            return Ok(Work::CollisionsOnly(progress.batches));
        }
        progress.batches += 1;
        self.clock.on_batch(playouts);
        self.backed_up.notify_all();
        Ok(Work::Playouts)
    }

    /// Waits until the search has backed up more than `batches` batches, at most [`COLLISION_WAIT`]. A gather
    /// that found only other threads' in-flight leaves would find the same ones at once, and spinning on the
    /// tree lock delays the very backups it waits for: on CUDA, 4 search threads made 2,475 NPS against
    /// 21,815 for one (BENCHMARKS.md, "CUDA on an NVIDIA H100").
    fn wait_for_backup(&self, batches: u64) {
        let state = lock(&self.state);
        drop(
            self.backed_up
                .wait_timeout_while(state, COLLISION_WAIT, |state| state.progress.batches == batches)
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
    }

    /// Polls the stopper, sends periodic info, and sends the best move once the search may end; after the
    /// best move, with every lock released, hands the outcome to the caller's end of the move.
    fn poll(&self) {
        if let Some(outcome) = self.poll_under_locks() {
            self.end_the_move(&outcome);
        }
    }

    /// The body of [`Run::poll`] under the tree and control locks; the outcome when it sent the best move.
    fn poll_under_locks(&self) -> Option<SearchOutcome> {
        let state = lock(&self.state);
        let mut control = lock(&self.control);
        if control.done {
            return None;
        }
        let root = &state.tree.root;
        let now = self.elapsed_ms();
        let mut stats = iteration_stats(root, &state.progress, &self.params, self.has_moves_left, self.draw_score);
        stats.tree_bytes = state.tree.bytes();
        if stats.nodes_since_movestart > 0 && control.first_batch_ms.is_none() {
            control.first_batch_ms = Some(now);
        }
        stats.time_since_movestart_ms = now as i64;
        stats.time_since_first_batch_ms = control.first_batch_ms.map_or(0, |first| (now - first) as i64);
        if stats.total_nodes > 0 && !self.stop.load(Ordering::SeqCst) {
            let mut hints = Hints::default();
            hints.reset((self.params.nps_limit > 0.0).then_some(self.params.nps_limit));
            if control.stopper.should_stop(&stats, &mut hints) {
                self.stop.store(true, Ordering::SeqCst);
                self.wake.notify_all();
            }
            if std::mem::take(&mut control.time_trouble_pending) {
                let limit = max_out_of_order(&self.params, self.batch_target) as u64;
                let affordable = time_trouble_playouts(control.stopper.as_mut(), &stats, limit);
                if let Some(affordable) = affordable {
                    hints.update_remaining_playouts(hints.remaining_playouts().min(affordable));
                }
                self.within_playouts_left.store(affordable.is_some(), Ordering::SeqCst);
            }
            control.hints = hints;
        }
        if self.abort.load(Ordering::SeqCst) {
            return None;
        }
        let info_context = InfoContext {
            progress: &state.progress,
            filter: &self.filter,
            root_position: state.tree.root_position(),
            time_ms: now as i64,
            since_first_batch_ms: stats.time_since_first_batch_ms,
            has_wdl: self.has_wdl,
            has_moves_left: self.has_moves_left,
            hashfull: self.hashfull(&state.tree),
            multipv: self.params.multipv,
            score_type: self.params.score_type,
            contempt: self.contempt,
            draw_score: self.draw_score,
            per_pv_counters: self.params.per_pv_counters,
        };
        let root_ready = stats.total_nodes > 0 || self.failed.load(Ordering::SeqCst);
        let may_send =
            self.stop.load(Ordering::SeqCst) && root_ready && (!self.hold || self.user_stop.load(Ordering::SeqCst));
        if may_send {
            for line in info_lines(root, &info_context) {
                (control.sink)(SearchEvent::Info(line));
            }
            let pv = played_variation(root, state.tree.root_position(), &self.filter, self.draw_score, &self.params);
            for event in self.move_stats(root, state.tree.root_position(), pv.first()) {
                (control.sink)(event);
            }
            Fault::strike(self.fault, FaultPlace::BestMove, 1);
            let outcome = SearchOutcome {
                // A failed search may end before the root's first visit: it still plays a legal move.
                best: pv.first().copied().or_else(|| self.fallback_move(&state.tree)),
                ponder: pv.get(1).copied(),
                stats,
            };
            return Some(self.send_best_move(&mut control, outcome));
        }
        if stats.nodes_since_movestart == 0 {
            return None;
        }
        let best = best_root_edge(root, &self.filter, self.draw_score).map(|i| root.edges[i].mv);
        let depth = ((state.progress.cumulative_depth / state.progress.playouts.max(1)) as u32).max(1);
        let seldepth = state.progress.max_depth;
        if control.last_info.as_ref().is_none_or(|last| last.is_outdated(best, depth, seldepth, now)) {
            control.last_info = Some(LastInfo { best, depth, seldepth, at_ms: now, at_wall: Instant::now() });
            for line in info_lines(root, &info_context) {
                (control.sink)(SearchEvent::Info(line));
            }
            if self.params.log_live_stats {
                for event in self.move_stats(root, state.tree.root_position(), None) {
                    (control.sink)(event);
                }
            }
        }
        None
    }

    /// lc0's `SendMovesStats`: the root's VerboseMoveStats lines, sent as `info string` with VerboseMoveStats and
    /// else only logged (at every best move, and with LogLiveStats at every info update); with the move `played`,
    /// the lines of the node under it, logged.
    fn move_stats(&self, root: &Node, root_position: &Chess, played: Option<&Move>) -> Vec<SearchEvent> {
        let (params, contempt) = (&self.params, &self.contempt);
        let lines = verbose_move_stats(root, root_position, params, self.has_moves_left, contempt, self.draw_score);
        let mut events = vec![if params.verbose_move_stats {
            SearchEvent::VerboseStats(lines)
        } else {
            SearchEvent::LoggedLines(iter::once("=== Move stats:".to_string()).chain(lines).collect())
        }];
        let played_edge = played.and_then(|mv| root.edges.iter().position(|edge| edge.mv == PackedMove::pack(mv)));
        let below = played_edge.and_then(|index| {
            verbose_move_stats_below(root, root_position, index, params, self.has_moves_left, contempt, self.draw_score)
        });
        if let (Some(played), Some(below)) = (played, below) {
            let header = format!("--- Opponent moves after: {}", uci_move(played, true));
            events.push(SearchEvent::LoggedLines(iter::once(header).chain(below).collect()));
        }
        events
    }

    fn hashfull(&self, tree: &Tree) -> Option<u32> {
        (self.params.ram_limit_mb > 0)
            .then(|| (tree.bytes() * 1000 / (self.params.ram_limit_mb * 1_000_000)).min(1000) as u32)
    }

    /// The statistics of the search so far.
    pub fn stats(&self) -> IterationStats {
        let state = lock(&self.state);
        let stats =
            iteration_stats(&state.tree.root, &state.progress, &self.params, self.has_moves_left, self.draw_score);
        IterationStats { tree_bytes: state.tree.bytes(), ..stats }
    }
}

fn spawn(name: String, body: impl FnOnce() + Send + 'static) -> Option<std::thread::JoinHandle<()>> {
    std::thread::Builder::new().name(name).spawn(body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `info` shown `wall_ago` ago on the wall, at 1,000 ms on the search's clock: best move none, depth 7,
    /// seldepth 12.
    fn shown(wall_ago: Duration) -> LastInfo {
        let at_wall = Instant::now().checked_sub(wall_ago).expect("the machine has been up for a minute");
        LastInfo { best: None, depth: 7, seldepth: 12, at_ms: 1000.0, at_wall }
    }

    #[test]
    fn a_periodic_info_is_due_after_five_seconds_on_either_clock_or_at_any_change() {
        let recent = shown(Duration::from_secs(1));
        assert!(!recent.is_outdated(None, 7, 12, 3000.0), "nothing changed, 2 s on the clock, 1 s on the wall");
        assert!(recent.is_outdated(None, 8, 12, 3000.0), "a new depth");
        assert!(recent.is_outdated(None, 7, 13, 3000.0), "a new seldepth");
        assert!(recent.is_outdated(None, 7, 12, 6000.0), "5 s on the search's clock");
        // A virtual clock slower than the wall (20,000 virtual nodes a second on a CPU searching 2,000): 1 s on the
        // search's clock is 10 s on the wall, and a match runner watching for progress must still hear of it.
        assert!(shown(Duration::from_secs(6)).is_outdated(None, 7, 12, 2000.0), "5 s on the wall");
    }
}
