//! `smooth`: PR 1195's manager and lc0's later additions (docs/lc0/smooth.md §1), in f32 where lc0 computes in f32.
//!
//! Budget (§1.5): moves left → remaining game time → remaining game nodes at the smoothed NPS → average new
//! nodes per move → target tree size `n_avg/(1 − tree_reuse)` → new nodes = target − reused (never negative;
//! `reuse-credit` < 1 counts part of the reused tree as expected instead of as inherited)
//! → time = new nodes / NPS → allocation = time / time-use, capped at `max-move-budget·T` and `T − O`.
//! Under the node limit `immediate-use` > 0 adds that share of what the last move's smart pruning left unsearched
//! to the target, after taking its time off the remaining game time (legacy's spending of saved time).
//! NPS, tree reuse and time use are learned (§1.7) with updates weighted by the move's length in average moves.
//!
//! Deliberate departures from lc0, switched off by `lc0-compat=true` (which `preset=lc0` sets):
//! * the piggybank is charged only for the allowance it granted and never goes negative, and a negative
//!   allowance is clamped to 0 (lc0 charges every ms past the deadline: −56 ms in the scenario, §1.10);
//! * the visits-trend watcher rotates its snapshots once `period` has passed, so the visit rates are measured
//!   over at least the stated window (lc0 rotates on every poll *within* the period, §1.6.3).
//!
//! Always fixed (lc0's own later fixes, also applied to the PR 1195 presets): NPS smoothing in the right
//! direction (#1243), new nodes clamped at 0 (#1476), no division by a zero allocation (#1527), allocation ≤
//! `T − O` (#1528), allowance ≤ `T − O − A` (#1530).
//!
//! `theta` < 1 implements lc0 #1529: the target is kept on `θ·N_total + (1−θ)·N_best`. With `s` the best
//! move's share of the root visits at the end of the previous move, every new node adds `w = θ + (1−θ)s` to
//! that measure and the reused tree `w·R`, so `n_new = max(0, n_target − w·R)/w`; θ = 1 is lc0.

use std::ops::{Mul, Sub};
use std::sync::{Arc, Mutex};

use super::{lock, new_trace, Adjustments, ClockView, InertKey, TimeManager};
use crate::decay::{exponential_decay, linear_decay};
use crate::estimator::MovesLeftEstimator;
pub use crate::options::registry::{SmoothLimit, SmoothParams};
use crate::search_stats::{GoParams, Hints, IterationStats, MoveContext, Stopper, TimeUsageHint};
use crate::trace::{MoveTrace, StopCause, TraceBook, TraceValue};

mod nodes;

use nodes::{affordable_playouts, NodePlan, NodeStopper};

/// The learned state (docs/lc0/smooth.md §1.4) plus the best-move share for `theta`.
#[derive(Clone, Debug, PartialEq)]
struct SmoothState {
    /// Tree-reuse estimate.
    tree_reuse: f32,
    /// NPS estimate.
    nps: f32,
    /// Whether a move has ended (linear NPS decay only then).
    nps_is_reliable: bool,
    /// Time-use estimate.
    timeuse: f32,
    /// Planned average move time of the latest budget (weighting unit of the updates).
    avg_ms_per_move: f32,
    /// The latest allocation A.
    move_allocated_time: f32,
    /// Root visits when the previous move was made.
    last_move_final_nodes: i64,
    /// Time since the first batch at the latest NPS update.
    last_time: i64,
    /// The piggybank in ms.
    piggybank: i64,
    /// Whether no budget was computed yet.
    is_first_move: bool,
    /// The next budgeted move's opening bonus: `first-move-bonus`, times `first-move-bonus-decay` each move.
    opening_bonus: f32,
    /// Best move's share of the root visits at the end of the previous move.
    best_share: f32,
    /// Effective nodes that the next move adds to its target: `immediate-use` of what the last move's smart
    /// pruning left unsearched.
    carried_nodes: f32,
}

impl SmoothState {
    /// What one root visit adds to the effective count θ·N + (1 − θ)·N_best, with N_best at the last move's best
    /// share of N: the factor between visits (and so time at the NPS estimate) and effective nodes.
    fn visit_weight(&self, theta: f32) -> f32 {
        theta + (1.0 - theta) * self.best_share
    }

    fn snapshot(&self) -> Vec<TraceValue> {
        let v = |name: &str, value: f64| TraceValue { name: name.to_owned(), value };
        vec![
            v("nps", f64::from(self.nps)),
            v("nps_is_reliable", f64::from(u8::from(self.nps_is_reliable))),
            v("tree_reuse", f64::from(self.tree_reuse)),
            v("timeuse", f64::from(self.timeuse)),
            v("avg_ms_per_move", f64::from(self.avg_ms_per_move)),
            v("move_allocated_time_ms", f64::from(self.move_allocated_time)),
            v("last_move_final_nodes", self.last_move_final_nodes as f64),
            v("last_time", self.last_time as f64),
            v("piggybank_time", self.piggybank as f64),
        ]
    }
}

struct Shared {
    params: SmoothParams,
    estimator: MovesLeftEstimator,
    adjustments: Adjustments,
    name: String,
    state: SmoothState,
    traces: TraceBook,
    current: Option<MoveInProgress>,
}

/// What the stopper of the move in progress has seen so far, for the end-of-move step.
struct MoveInProgress {
    deadline_ms: i64,
    allowance_ms: i64,
    piggybank_reason: Option<&'static str>,
    stopped: Option<String>,
    /// The node budget of a node-limited move, and the limit that ended it.
    node_plan: Option<NodePlan>,
    stopped_by: Option<StopCause>,
}

impl Shared {
    /// §1.7.4 (linear, since #1596) or the original exponential decay; records `last_time`.
    fn update_nps(&mut self, since_first_batch_ms: i64, nodes: u64) -> f32 {
        let s = &mut self.state;
        if since_first_batch_ms <= 0 {
            return s.nps;
        }
        let elapsed = since_first_batch_ms as f32;
        let current = 1000.0 * nodes as f32 / elapsed;
        let step = since_first_batch_ms.saturating_sub(s.last_time) as f32;
        if self.params.nps_update_period > 0.0 {
            s.nps = if s.nps_is_reliable && since_first_batch_ms > s.last_time {
                linear_decay(s.nps, current, elapsed, step, 1000.0 * self.params.nps_update_period)
            } else {
                current
            };
        } else if since_first_batch_ms > s.last_time {
            s.nps = exponential_decay(s.nps, current, self.params.nps_update_rate, step / 1000.0);
        }
        s.last_time = since_first_batch_ms;
        s.nps
    }

    /// Notes what the stopper of the move in progress saw.
    fn record(&mut self, update: impl FnOnce(&mut MoveInProgress)) {
        if let Some(current) = self.current.as_mut() {
            update(current);
        }
    }

    /// §1.7.2.
    fn learn(&mut self, report: EndOfMoveReport) {
        let p = &self.params;
        let s = &mut self.state;
        s.nps_is_reliable = true;
        let x = if s.avg_ms_per_move <= 0.0 { 0.0 } else { report.move_time_ms as f32 / s.avg_ms_per_move };
        let used_share =
            if s.move_allocated_time <= 0.0 { 1.0 } else { report.move_time_ms as f32 / s.move_allocated_time };
        if report.piggybank_used {
            let overrun = report.move_time_ms.saturating_sub(report.deadline_ms).max(0);
            if p.lc0_compat {
                s.piggybank = s.piggybank.saturating_sub(overrun);
            } else {
                s.piggybank = (s.piggybank - overrun.min(report.allowance_ms.max(0))).max(0);
            }
        }
        let target = match report.node_use {
            Some(share) => share,
            None if report.piggybank_used => 1.0,
            None => used_share,
        };
        if !p.node_use_is_fixed() {
            s.timeuse = exponential_decay(s.timeuse, target, p.timeuse_update_rate, x).max(p.min_timeuse);
        }
        s.last_move_final_nodes = report.total_nodes as i64;
        let total: u64 = report.edge_n.iter().map(|&n| u64::from(n)).sum();
        if let (Some(&best), true) = (report.edge_n.iter().max(), total > 0) {
            s.best_share = best as f32 / total as f32;
        }
        let snapshot = s.snapshot();
        self.traces.set_stopped_by(report.stopped_by);
        self.traces.close(report.move_time_ms, report.total_nodes, report.reason, snapshot);
    }
}

struct EndOfMoveReport {
    move_time_ms: i64,
    deadline_ms: i64,
    allowance_ms: i64,
    piggybank_used: bool,
    total_nodes: u64,
    edge_n: Vec<u32>,
    reason: String,
    /// limit=nodes: the node-use sample that replaces the time-use sample.
    node_use: Option<f32>,
    /// limit=nodes: the limit that ended the move.
    stopped_by: Option<StopCause>,
}

/// Every intermediate of one budget (§1.5), named as in the test-vector file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SmoothBudget {
    /// Piggybank before the cap (after the initial deposit on the first move).
    pub piggybank_before_ms: i64,
    /// M.
    pub remaining_moves: f32,
    /// P_max.
    pub max_piggybank_time_ms: f32,
    /// Piggybank after the cap.
    pub piggybank_after_cap_ms: i64,
    /// B.
    pub total_remaining_ms: f32,
    /// G.
    pub remaining_game_nodes: f32,
    /// n_avg.
    pub avg_nodes_per_move: f32,
    /// B / M.
    pub avg_ms_per_move: f32,
    /// n_target.
    pub nodes_per_move_including_reuse: f32,
    /// n_new.
    pub move_estimate_nodes: f32,
    /// t_brutto.
    pub expected_movetime_brutto_ms: f32,
    /// t_piggy.
    pub time_to_piggybank_ms: f32,
    /// t_netto.
    pub expected_movetime_netto_ms: f32,
    /// A_p before the cap.
    pub allowed_piggybank_before_cap_ms: i64,
    /// A before the caps.
    pub allocated_before_caps_ms: f32,
    /// A.
    pub allocated_ms: f32,
    /// A_p.
    pub allowed_piggybank_ms: i64,
    /// D = trunc(A) (after the adjustments, if any are on).
    pub deadline_ms: i64,
    /// Piggybank after the deposit.
    pub piggybank_after_ms: i64,
}

impl SmoothBudget {
    /// Every intermediate with its name, in computation order.
    pub fn steps(&self) -> [(&'static str, f64); 19] {
        [
            ("piggybank_before_ms", self.piggybank_before_ms as f64),
            ("remaining_moves", f64::from(self.remaining_moves)),
            ("max_piggybank_time_ms", f64::from(self.max_piggybank_time_ms)),
            ("piggybank_after_cap_ms", self.piggybank_after_cap_ms as f64),
            ("total_remaining_ms", f64::from(self.total_remaining_ms)),
            ("remaining_game_nodes", f64::from(self.remaining_game_nodes)),
            ("avg_nodes_per_move", f64::from(self.avg_nodes_per_move)),
            ("avg_ms_per_move", f64::from(self.avg_ms_per_move)),
            ("nodes_per_move_including_reuse", f64::from(self.nodes_per_move_including_reuse)),
            ("move_estimate_nodes", f64::from(self.move_estimate_nodes)),
            ("expected_movetime_brutto_ms", f64::from(self.expected_movetime_brutto_ms)),
            ("time_to_piggybank_ms", f64::from(self.time_to_piggybank_ms)),
            ("expected_movetime_netto_ms", f64::from(self.expected_movetime_netto_ms)),
            ("allowed_piggybank_before_cap_ms", self.allowed_piggybank_before_cap_ms as f64),
            ("allocated_before_caps_ms", f64::from(self.allocated_before_caps_ms)),
            ("allocated_ms", f64::from(self.allocated_ms)),
            ("allowed_piggybank_ms", self.allowed_piggybank_ms as f64),
            ("deadline_ms", self.deadline_ms as f64),
            ("piggybank_after_ms", self.piggybank_after_ms as f64),
        ]
    }

    fn record(&self, trace: &mut MoveTrace) {
        for (name, value) in self.steps() {
            trace.step(name, value);
        }
    }
}

impl SmoothParams {
    /// Whether the node limit plans every target as the budget itself, so the time-use estimator stays at 1.
    fn node_use_is_fixed(&self) -> bool {
        self.limit == SmoothLimit::Nodes && !self.learn_node_use
    }

    /// The keys that the code above never reads under these values, so that a tuner or a user is told instead
    /// of tuning a key that changes nothing.
    pub fn inert_keys(&self) -> Vec<InertKey> {
        const NO_PIGGYBANK: &str = "the node limit keeps no piggybank; it is a key of limit=time";
        const TIME_STOPPER: &str =
            "the node limit's stopper has no trend watcher or piggybank; it is a key of limit=time";
        const TREND_OFF: &str = "the trend watcher is off (trend-nps-update-period-ms=0)";
        const NODE_USE: &str = "the node limit keeps node use at 1 unless learn-node-use=true; add that key";
        const NODE_LIMIT: &str = "only the node limit reads it; add limit=nodes";
        const LC0_FAULTS: &str = "lc0's faults are the piggybank's and the trend watcher's: a key of limit=time";
        const EMPTY_PIGGYBANK: &str =
            "nothing is paid into the piggybank (init-piggybank=0 and per-move-piggybank=0); set one of them";
        const DEPOSITS: &[&str] = &["init-piggybank", "per-move-piggybank"];
        const UNSPENT_PIGGYBANK: &str = "nothing spends the piggybank (trend-nps-update-period-ms=0, \
                                         force-piggybank-ms=-1, need-more-time=false); set one of them";
        const SPENDERS: &[&str] = &["trend-nps-update-period-ms", "force-piggybank-ms"];
        let mut inert = Vec::new();
        let mut add = |key, unless_tuned, why| inert.push(InertKey { key, unless_tuned, why });
        match self.limit {
            SmoothLimit::Nodes => {
                for key in ["init-piggybank", "per-move-piggybank", "max-piggybank-use", "max-piggybank-moves"] {
                    add(key, &[], NO_PIGGYBANK);
                }
                for key in [
                    "trend-nps-update-period-ms", "bestmove-optimism", "overtaker-optimism", "force-piggybank-ms",
                    "need-more-time",
                ] {
                    add(key, &[], TIME_STOPPER);
                }
                add("lc0-compat", &[], LC0_FAULTS);
                if !self.learn_node_use {
                    for key in ["init-timeuse", "min-timeuse", "timeuse-update-rate"] {
                        add(key, &[], NODE_USE);
                    }
                }
            }
            SmoothLimit::Time => {
                for key in ["nodes-time-cap", "prune-floor", "search-forced", "learn-node-use", "immediate-use"] {
                    add(key, &[], NODE_LIMIT);
                }
                let empty = self.init_piggybank == 0.0 && self.per_move_piggybank == 0.0;
                if empty {
                    for key in ["max-piggybank-use", "max-piggybank-moves"] {
                        add(key, DEPOSITS, EMPTY_PIGGYBANK);
                    }
                }
                if !empty && self.trend_period_ms == 0 && self.force_piggybank_ms < 0 && !self.need_more_time {
                    add("max-piggybank-use", SPENDERS, UNSPENT_PIGGYBANK);
                }
                if self.trend_period_ms == 0 {
                    for key in ["bestmove-optimism", "overtaker-optimism"] {
                        add(key, &["trend-nps-update-period-ms"], TREND_OFF);
                    }
                }
            }
        }
        if self.first_move_bonus == 0.0 {
            add("first-move-bonus-decay", &["first-move-bonus"], "there is no bonus to decay (first-move-bonus=0)");
        }
        if self.nps_update_period > 0.0 {
            add("nps-update-rate", &["nps-update-period"], "the NPS update is linear (nps-update-period > 0)");
        }
        inert
    }
}

/// The start of the NPS estimate with `init-nps=0` when the engine has no measure of its own: PR 1195's value.
const FALLBACK_INIT_NPS: f32 = 20_000.0;

/// The engine's own measure of its speed when it has a usable one, else PR 1195's start: where smooth's
/// `init-nps=0` and regime's planned nodes begin.
pub(crate) fn engine_nps_or_fallback(ctx: &MoveContext) -> f32 {
    ctx.engine_nps.filter(|nps| nps.is_finite() && *nps > 0.0).unwrap_or(FALLBACK_INIT_NPS)
}

/// The smooth manager; its stopper reports NPS samples on every poll, and it learns at the end of each move.
pub struct SmoothManager {
    shared: Arc<Mutex<Shared>>,
}

impl SmoothManager {
    /// A fresh manager for one game; `name` is the canonical option string shown in traces.
    pub fn new(params: SmoothParams, estimator: MovesLeftEstimator, adjustments: Adjustments, name: String) -> Self {
        let state = SmoothState {
            tree_reuse: params.init_tree_reuse,
            nps: params.init_nps,
            nps_is_reliable: false,
            timeuse: if params.node_use_is_fixed() { 1.0 } else { params.init_timeuse },
            avg_ms_per_move: 0.0,
            move_allocated_time: 0.0,
            last_move_final_nodes: 0,
            last_time: 0,
            piggybank: 0,
            is_first_move: true,
            opening_bonus: params.first_move_bonus,
            best_share: 1.0,
            carried_nodes: 0.0,
        };
        let shared =
            Shared { params, estimator, adjustments, name, state, traces: TraceBook::default(), current: None };
        Self { shared: Arc::new(Mutex::new(shared)) }
    }
}

/// The new nodes a move searches toward the tree-size target when it inherits `reused` (effective) nodes and
/// the budget expected the share `expected_reuse` of the target to be reused: `reuse-credit` counts that share of
/// what is inherited and the rest as expected, so 1 is lc0 (the target less what is reused) and 0 gives every move
/// the average new nodes, whatever it inherits (as legacy gives it the same share of the clock). Never negative.
fn new_nodes_toward<F>(target: F, reused: F, expected_reuse: F, credit: F) -> F
where
    F: Copy + PartialOrd + From<f32> + Sub<Output = F> + Mul<Output = F>,
{
    let new_nodes = target - credit * reused - (F::from(1.0) - credit) * expected_reuse * target;
    if new_nodes > F::from(0.0) {
        new_nodes
    } else {
        F::from(0.0)
    }
}

/// Steps 1–18 of §1.5 on the shared state.
fn compute_budget(sh: &mut Shared, clock: &ClockView, ctx: &MoveContext, trace: &mut MoveTrace) -> SmoothBudget {
    let p = sh.params.clone();
    let s = &mut sh.state;
    let mut b = SmoothBudget::default();
    let time = clock.time_ms;
    let node_limited = p.limit == SmoothLimit::Nodes;
    if s.is_first_move {
        if p.init_nps == 0.0 {
            s.nps = engine_nps_or_fallback(ctx);
            trace.step("init_nps", f64::from(s.nps));
        }
        s.piggybank = if node_limited { 0 } else { (time as f32 * p.init_piggybank) as i64 };
        if !p.lc0_compat {
            s.piggybank = s.piggybank.max(0);
        }
        s.is_first_move = false;
    }
    b.piggybank_before_ms = s.piggybank;
    let reused = ctx.reused_visits;
    if s.last_move_final_nodes != 0 && s.last_time != 0 && s.avg_ms_per_move >= 0.0 {
        let x = if s.avg_ms_per_move <= 0.0 { 0.0 } else { s.last_time as f32 / s.avg_ms_per_move };
        let sample = reused as f32 / s.last_move_final_nodes as f32;
        trace.step("tree_reuse_sample", f64::from(sample));
        s.tree_reuse = exponential_decay(s.tree_reuse, sample, p.tree_reuse_update_rate, x).min(p.max_tree_reuse);
    }
    s.last_time = 0;
    let estimate = sh.estimator.moves_left(ctx);
    trace.estimator = Some(match &estimate.fallback {
        Some(why) => format!("{} ({why})", sh.estimator.name()),
        None => sh.estimator.name().to_owned(),
    });
    let mut moves = estimate.moves;
    if let Some(mtg) = clock.movestogo.filter(|&mtg| (mtg as f32) < moves) {
        moves = mtg as f32;
    }
    b.remaining_moves = moves;
    let increment = clock.increment_ms as f32;
    let overhead = clock.overhead_ms as f32;
    let game_time = (time as f32 + increment * (moves - 1.0) - overhead).max(0.0);
    b.max_piggybank_time_ms = p.max_piggybank_moves * game_time / moves;
    if s.piggybank as f32 > b.max_piggybank_time_ms {
        s.piggybank = b.max_piggybank_time_ms as i64;
    }
    b.piggybank_after_cap_ms = s.piggybank;
    let weight = s.visit_weight(p.theta);
    let carried_ms = if s.carried_nodes > 0.0 && s.nps > 0.0 {
        trace.step("carried_nodes", f64::from(s.carried_nodes));
        s.carried_nodes / weight / s.nps * 1000.0
    } else {
        0.0
    };
    b.total_remaining_ms =
        (time.saturating_sub(s.piggybank) as f32 + increment * (moves - 1.0) - overhead - carried_ms).max(0.0);
    b.remaining_game_nodes = b.total_remaining_ms * s.nps / 1000.0;
    b.avg_nodes_per_move = b.remaining_game_nodes / moves;
    s.avg_ms_per_move = b.total_remaining_ms / moves;
    b.avg_ms_per_move = s.avg_ms_per_move;
    b.nodes_per_move_including_reuse = b.avg_nodes_per_move / (1.0 - s.tree_reuse);
    if s.opening_bonus > 0.0 {
        // The whole target grows, the reused tree included, so that the move after a big one is not starved.
        b.nodes_per_move_including_reuse *= 1.0 + s.opening_bonus;
        trace.step("opening_bonus_target_nodes", f64::from(b.nodes_per_move_including_reuse));
        s.opening_bonus *= p.first_move_bonus_decay;
    }
    let target = b.nodes_per_move_including_reuse;
    b.move_estimate_nodes = if weight < 1.0 && weight > 0.0 {
        new_nodes_toward(target, weight * reused as f32, s.tree_reuse, p.reuse_credit) / weight
    } else {
        new_nodes_toward(target, reused as f32, s.tree_reuse, p.reuse_credit)
    };
    b.expected_movetime_brutto_ms = b.move_estimate_nodes / s.nps * 1000.0;
    b.time_to_piggybank_ms = if node_limited {
        0.0
    } else {
        (b.max_piggybank_time_ms - s.piggybank as f32).min(b.expected_movetime_brutto_ms * p.per_move_piggybank)
    };
    b.expected_movetime_netto_ms = b.expected_movetime_brutto_ms - b.time_to_piggybank_ms;
    let mut allowance = (s.piggybank as f32 * p.max_piggybank_use) as i64;
    b.allowed_piggybank_before_cap_ms = allowance;
    let mut allocated = b.expected_movetime_netto_ms / s.timeuse;
    b.allocated_before_caps_ms = allocated;
    let cap = time as f32 * p.max_move_budget;
    if allocated > cap {
        allocated = cap;
    }
    let hard_cap = (time - clock.overhead_ms) as f32;
    if allocated > hard_cap {
        allocated = hard_cap.max(0.0);
    }
    if allowance as f32 > hard_cap - allocated {
        allowance = (hard_cap - allocated) as i64;
    }
    if !p.lc0_compat {
        allowance = allowance.max(0);
    }
    s.move_allocated_time = allocated;
    b.allocated_ms = allocated;
    b.allowed_piggybank_ms = allowance;
    s.piggybank = (s.piggybank as f32 + b.time_to_piggybank_ms) as i64;
    b.piggybank_after_ms = s.piggybank;
    let (adjusted, why) = sh.adjustments.apply(f64::from(allocated), ctx);
    b.deadline_ms = adjusted.max(0.0) as i64;
    if let Some(why) = why {
        trace.step(&format!("adjusted_ms ({why})"), adjusted);
        b.deadline_ms = b.deadline_ms.min(clock.hard_cap_ms());
        b.allowed_piggybank_ms = b.allowed_piggybank_ms.min(clock.hard_cap_ms() - b.deadline_ms);
    }
    b
}

impl TimeManager for SmoothManager {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        let clock = ClockView::from_go(go, ctx)?;
        let mut sh = lock(&self.shared);
        let mut trace = new_trace(sh.name.clone(), &clock, go, ctx);
        trace.state_before = sh.state.snapshot();
        let budget = compute_budget(&mut sh, &clock, ctx, &mut trace);
        budget.record(&mut trace);
        trace.deadline_ms = budget.deadline_ms;
        trace.state_after_budget = sh.state.snapshot();
        let node_plan = (sh.params.limit == SmoothLimit::Nodes)
            .then(|| NodePlan::new(&budget, &sh.params, &sh.state, &clock, ctx, &mut trace));
        sh.traces.open(trace);
        sh.current = Some(MoveInProgress {
            deadline_ms: budget.deadline_ms,
            allowance_ms: budget.allowed_piggybank_ms,
            piggybank_reason: None,
            stopped: None,
            node_plan,
            stopped_by: None,
        });
        if let Some(plan) = node_plan {
            return Some(Box::new(NodeStopper { shared: Arc::clone(&self.shared), plan, stopped_by: None }));
        }
        let p = &sh.params;
        let trend = (p.trend_period_ms > 0).then(|| TrendWatcher {
            period_ms: p.trend_period_ms,
            lc0_rotation: p.lc0_compat,
            bestmove_optimism: f64::from(p.bestmove_optimism),
            overtaker_optimism: f64::from(p.overtaker_optimism),
            snapshots: None,
        });
        let stopper = SmoothStopper {
            shared: Arc::clone(&self.shared),
            deadline_ms: budget.deadline_ms,
            allowance_ms: budget.allowed_piggybank_ms,
            force_piggybank_ms: p.force_piggybank_ms,
            need_more_time: p.need_more_time,
            trend,
            piggybank_used: false,
            stopped: None,
        };
        Some(Box::new(stopper))
    }

    fn end_of_move(&mut self, final_stats: &IterationStats) {
        let mut sh = lock(&self.shared);
        let Some(current) = sh.current.take() else {
            return;
        };
        let node_use = current.node_plan.map(|plan| plan.node_use_sample(final_stats, current.stopped_by));
        let unsearched = current.node_plan.map_or(0.0, |plan| plan.unsearched(final_stats, current.stopped_by));
        sh.state.carried_nodes = sh.params.immediate_use * unsearched as f32;
        let mut reason = match (current.node_plan, current.stopped_by) {
            (Some(plan), cause) => plan.stop_reason(cause.unwrap_or(StopCause::Other), Some(final_stats.total_nodes)),
            (None, _) => {
                current.stopped.unwrap_or_else(|| "stopped before the deadline (another stopper or the GUI)".to_owned())
            }
        };
        if let Some(why) = current.piggybank_reason {
            reason.push_str(&format!("; entered piggybank: {why}"));
        }
        sh.learn(EndOfMoveReport {
            move_time_ms: final_stats.time_since_movestart_ms,
            deadline_ms: current.deadline_ms,
            allowance_ms: current.allowance_ms,
            piggybank_used: current.piggybank_reason.is_some(),
            total_nodes: final_stats.total_nodes,
            edge_n: final_stats.edge_n.clone(),
            reason,
            node_use,
            stopped_by: current.node_plan.map(|_| current.stopped_by.unwrap_or(StopCause::Other)),
        });
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        lock(&self.shared).traces.drain()
    }
}

#[derive(Clone, Debug)]
struct Snapshot {
    time_ms: i64,
    visits: Vec<u32>,
}

/// The visits-trend watcher (§1.6.3): may a move other than the best overtake it before `by`?
#[derive(Clone, Debug)]
struct TrendWatcher {
    period_ms: i64,
    lc0_rotation: bool,
    bestmove_optimism: f64,
    overtaker_optimism: f64,
    /// (prev, cur, last)
    snapshots: Option<(Snapshot, Snapshot, Snapshot)>,
}

impl TrendWatcher {
    fn update(&mut self, time_ms: i64, visits: &[u32]) {
        let snapshot = Snapshot { time_ms, visits: visits.to_vec() };
        let (prev, cur, last) = match self.snapshots.take() {
            None => (snapshot.clone(), snapshot.clone(), snapshot),
            Some((prev, cur, last)) if time_ms <= last.time_ms => {
                self.snapshots = Some((prev, cur, last));
                return;
            }
            Some((prev, cur, _)) => (prev, cur, snapshot),
        };
        let rotate = if self.lc0_rotation {
            cur.time_ms.saturating_add(self.period_ms) >= time_ms
        } else {
            time_ms.saturating_sub(cur.time_ms) >= self.period_ms
        };
        self.snapshots = Some(if rotate { (cur, last.clone(), last) } else { (prev, cur, last) });
    }

    fn best_move_may_be_overtaken(&self, by_ms: i64) -> bool {
        let Some((prev, _, last)) = &self.snapshots else {
            return false;
        };
        if prev.time_ms >= last.time_ms || by_ms <= last.time_ms {
            return false;
        }
        let span = last.time_ms.saturating_sub(prev.time_ms) as f64;
        let rate = |i: usize| {
            let before = prev.visits.get(i).copied().unwrap_or(0);
            (f64::from(last.visits[i]) - f64::from(before)) / span
        };
        let Some(best) = (0..last.visits.len()).reduce(|b, i| if last.visits[i] > last.visits[b] { i } else { b })
        else {
            return false;
        };
        let horizon = by_ms.saturating_sub(last.time_ms) as f64;
        let best_future = f64::from(last.visits[best]) + self.bestmove_optimism * rate(best) * horizon;
        (0..last.visits.len())
            .filter(|&i| i != best)
            .any(|i| f64::from(last.visits[i]) + self.overtaker_optimism * rate(i) * horizon > best_future)
    }
}

/// The per-move smooth stopper (§1.6.1): a deadline D, extended to D + A_p while the piggybank is in use; it
/// gives the manager an NPS sample on every poll and records when it enters the piggybank and why it stops.
struct SmoothStopper {
    shared: Arc<Mutex<Shared>>,
    deadline_ms: i64,
    allowance_ms: i64,
    force_piggybank_ms: i64,
    need_more_time: bool,
    trend: Option<TrendWatcher>,
    piggybank_used: bool,
    stopped: Option<String>,
}

impl Stopper for SmoothStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        let mut shared = lock(&self.shared);
        let nps = shared.update_nps(stats.time_since_first_batch_ms, stats.nodes_since_movestart);
        if stats.time_usage_hint == TimeUsageHint::ImmediateMove {
            self.stopped = Some("the search asked to move at once".to_owned());
            shared.record(|current| current.stopped = self.stopped.clone());
            return true;
        }
        let now = stats.time_since_movestart_ms;
        if let Some(trend) = self.trend.as_mut() {
            trend.update(now, &stats.edge_n);
        }
        let extended = self.deadline_ms + self.allowance_ms;
        let reason = if self.need_more_time && stats.time_usage_hint == TimeUsageHint::NeedMoreTime {
            Some("requested by search")
        } else if self.force_piggybank_ms >= 0 && stats.time_since_first_batch_ms <= self.force_piggybank_ms {
            Some("forced used in the beginning of the move")
        } else if self.trend.as_ref().is_some_and(|t| t.best_move_may_be_overtaken(extended)) {
            Some("bestmove can be overtaken")
        } else {
            None
        };
        let limit = if reason.is_some() { extended } else { self.deadline_ms };
        hints.update_estimated_nps(nps);
        hints.update_remaining_time(limit.saturating_sub(now));
        if reason.is_some() && now >= self.deadline_ms && !self.piggybank_used {
            self.piggybank_used = true;
            shared.record(|current| current.piggybank_reason = reason);
        }
        let stop = now >= limit;
        if stop {
            self.stopped =
                Some(format!("ran out of time: elapsed={now} limit={limit} piggy={}", u8::from(self.piggybank_used)));
            shared.record(|current| current.stopped = self.stopped.clone());
        }
        stop
    }

    fn stop_reason(&self) -> Option<String> {
        self.stopped.clone()
    }

    fn affordable_playouts(&mut self, stats: &IterationStats) -> Option<u64> {
        let nps = lock(&self.shared).state.nps;
        let limit = self.deadline_ms.saturating_add(self.allowance_ms);
        Some(affordable_playouts(limit, stats.time_since_movestart_ms, nps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::registry::ComponentKeys;

    fn watcher(lc0_rotation: bool) -> TrendWatcher {
        TrendWatcher { period_ms: 3000, lc0_rotation, bestmove_optimism: 0.2, overtaker_optimism: 4.0, snapshots: None }
    }

    fn prev_time(w: &TrendWatcher) -> i64 {
        w.snapshots.as_ref().map_or(-1, |(prev, _, _)| prev.time_ms)
    }

    #[test]
    fn trend_rates_span_the_stated_window_unless_lc0_compatible() {
        let (mut fixed, mut lc0) = (watcher(false), watcher(true));
        for t in (10..=6010).step_by(100) {
            fixed.update(t, &[t as u32, 0]);
            lc0.update(t, &[t as u32, 0]);
        }
        // lc0 rotates on every poll within the period: the rate spans one 100 ms poll interval.
        assert_eq!(prev_time(&lc0), 5910);
        // Fixed: snapshots rotate when 3000 ms have passed (at 3010 and 6010), so the rate spans ≥ 3000 ms.
        assert_eq!(prev_time(&fixed), 3010);
        // Polls more than a period apart: lc0 stops rotating for good; the fixed watcher keeps going.
        let mut lc0_sparse = watcher(true);
        let mut fixed_sparse = watcher(false);
        for t in [10, 4000, 8000, 12000] {
            lc0_sparse.update(t, &[1, 1]);
            fixed_sparse.update(t, &[1, 1]);
        }
        assert_eq!(prev_time(&lc0_sparse), 10);
        assert_eq!(prev_time(&fixed_sparse), 8000);
    }

    #[test]
    fn overtaking_projection_hand_worked() {
        let mut w = watcher(true);
        w.update(1000, &[800, 150, 50]);
        w.update(1100, &[880, 165, 55]);
        // Rates per ms: best 0.8, second 0.15. By 2100 (Δ = 1000): best 880 + 0.2·0.8·1000 = 1040;
        // second 165 + 4·0.15·1000 = 765 — not overtaken. By 3100 (Δ = 2000): 1200 vs 1365 — overtaken.
        assert!(!w.best_move_may_be_overtaken(2100));
        assert!(w.best_move_may_be_overtaken(3100));
        assert!(!w.best_move_may_be_overtaken(1100), "no time left");
    }

    #[test]
    fn exponential_nps_smoothing_of_pr_1195() {
        let params = SmoothParams {
            init_nps: 20000.0,
            nps_update_rate: 5.0,
            nps_update_period: 0.0,
            ..SmoothParams::defaults()
        };
        let estimator = MovesLeftEstimator::MleLegacy { midpoint: 51.5, steepness: 7.0, follow_games: 0.0 };
        let manager = SmoothManager::new(params, estimator, Adjustments::defaults(), "smooth".into());
        let mut shared = lock(&manager.shared);
        // 25000 NPS observed over the first second: one fifth of a 5 s half-life from 20000.
        let nps = shared.update_nps(1000, 25_000);
        assert!((nps - (25000.0 - 5000.0 * 0.5f32.powf(0.2))).abs() < 1e-2, "{nps}");
        assert_eq!(shared.update_nps(1000, 25_000), nps, "no time passed, no change");
        assert_eq!(shared.update_nps(0, 0), nps, "before the first batch");
    }
}
