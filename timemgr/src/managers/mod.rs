//! The per-game time managers and what they share: the trait, the clock view and the common adjustments.

pub mod alphazero;
pub mod ctm;
pub mod expected_length;
pub mod geometric;
pub mod legacy;
pub mod regime;
pub mod simple;
pub mod smooth;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub use crate::options::registry::Adjustments;
use crate::search_stats::{GoParams, Hints, IterationStats, MoveContext, Stopper, TimeUsageHint};
use crate::trace::{MoveTrace, TraceBook, TraceValue};

/// A per-game time manager: budgets each move from the clock and learns from how the move went.
pub trait TimeManager: Send {
    /// The stopper that enforces this move's budget; `None` without a clock, in `go infinite` or `go ponder`
    /// (then no state is read or written).
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>>;
    /// Learns from the move that just ended, given the search's final statistics; called once per move
    /// after the search has sent its best move and released its locks (not for aborted searches).
    fn end_of_move(&mut self, final_stats: &IterationStats);
    /// Every finished move's trace since the last call, oldest first.
    fn drain_trace(&mut self) -> Vec<MoveTrace>;
}

/// A key that the manager never reads under the rest of its option string, and why, so that tuning it is refused
/// rather than spent on games that cannot change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InertKey {
    /// The key, as written in the option string.
    pub key: &'static str,
    /// Keys that give it an effect again when one of them is tuned too (their value is then not fixed).
    pub unless_tuned: &'static [&'static str],
    /// Why it has no effect, and the way out.
    pub why: &'static str,
}

/// The side to move's clock as a manager sees it at `go`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockView {
    /// Own remaining time in ms (may be ≤ 0 when the GUI reports an exhausted clock).
    pub time_ms: i64,
    /// Own increment in ms, negative values treated as 0.
    pub increment_ms: i64,
    /// `movestogo` when it is positive; lc0 ignores values ≤ 0.
    pub movestogo: Option<i32>,
    /// Move overhead in ms: UCI `MoveOverheadMs` and the reserve for the moves still to come
    /// ([`floor_reserve_ms`]).
    pub overhead_ms: i64,
}

/// Moves of a game without increment whose least cost the clock keeps in reserve: games between engines run
/// past move 80 (a random-weight attention-body net's games at 1+0 had a median of 165 plies, 2026-12-07), and a
/// move costs its floor however short its budget, so without the reserve the last moves flag one by one.
pub const FLOOR_RESERVE_MOVES: i64 = 60;

/// The clock kept for the least cost of the moves still to come, in ms: what a move's floor exceeds the increment
/// by, times the moves to the next time control, at most [`FLOOR_RESERVE_MOVES`]; 0 where the increment pays for
/// each move's floor or the floor is not known (the virtual clock, the game's first move).
pub fn floor_reserve_ms(move_floor_ms: Option<f32>, increment_ms: i64, movestogo: Option<i32>) -> i64 {
    let Some(floor) = move_floor_ms else {
        return 0;
    };
    let shortfall = (f64::from(floor) - increment_ms as f64).max(0.0);
    let moves = movestogo.map_or(FLOOR_RESERVE_MOVES, |mtg| i64::from(mtg).min(FLOOR_RESERVE_MOVES));
    (shortfall * moves as f64).ceil() as i64
}

impl ClockView {
    /// Reads the clock of the side to move; `None` when no manager should run (no clock, infinite, ponder).
    /// Times are clamped to ±2^40 ms (35 years) and the overhead to [0, 2^40] so no budget arithmetic overflows.
    pub fn from_go(go: &GoParams, ctx: &MoveContext) -> Option<Self> {
        const LIMIT: i64 = 1 << 40;
        if go.infinite || go.ponder {
            return None;
        }
        let (time, increment) = if ctx.white_to_move { (go.wtime, go.winc) } else { (go.btime, go.binc) };
        let increment_ms = increment.unwrap_or(0).clamp(0, LIMIT);
        let movestogo = go.movestogo.filter(|&mtg| mtg > 0);
        let reserve_ms =
            floor_reserve_ms(ctx.move_floor_ms.map(|floor| floor.clamp(0.0, 1e6)), increment_ms, movestogo);
        Some(Self {
            time_ms: time?.clamp(-LIMIT, LIMIT),
            increment_ms,
            movestogo,
            overhead_ms: ctx.move_overhead_ms.clamp(0, LIMIT).saturating_add(reserve_ms).min(LIMIT),
        })
    }

    /// Time the move may take at most: the clock minus the overhead, never negative.
    pub fn hard_cap_ms(&self) -> i64 {
        (self.time_ms - self.overhead_ms).max(0)
    }
}

/// Locks a manager's shared state; a poisoned lock still holds consistent numbers (no invariant spans a panic).
pub(crate) fn lock<T>(state: &Arc<Mutex<T>>) -> MutexGuard<'_, T> {
    state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Adjustments {
    /// Applies the enabled adjustments to a budget in ms; returns the new budget and what changed it.
    pub fn apply(&self, budget_ms: f64, ctx: &MoveContext) -> (f64, Option<&'static str>) {
        if self.instant_single_move && ctx.legal_moves == 1 {
            return (0.0, Some("single legal move"));
        }
        if self.out_of_book_factor {
            if let Some(moves) = ctx.moves_out_of_book {
                let factor = 2.0 - f64::from(moves.min(10)) / 10.0;
                return (budget_ms * factor, (factor != 1.0).then_some("out-of-book factor"));
            }
        }
        (budget_ms, None)
    }
}

/// What a deadline manager (legacy, alphazero, simple, geometric, expected-length) adds to the scaffold they
/// share, [`DeadlineManager`]: its own state, the move's budget, and what it learns when the move ends.
pub trait DeadlineBudget: Send {
    /// The state shown in traces before and after each move (default: none, for stateless managers).
    fn snapshot(&self) -> Vec<TraceValue> {
        Vec::new()
    }
    /// The move's budget in ms before the adjustments and the hard cap, each step recorded in `trace`.
    fn budget_ms(&mut self, clock: &ClockView, ctx: &MoveContext, trace: &mut MoveTrace) -> f64;
    /// How much longer than its deadline, as a multiple of it, a move may search while its most-visited root move
    /// is not the best by Q (default: 0, the deadline is final).
    fn unstable_extension(&self) -> f64 {
        0.0
    }
    /// Learns from a finished move: `move_time_ms` taken against `deadline_ms` allowed (default: nothing).
    fn learn(&mut self, _move_time_ms: i64, _deadline_ms: i64) {}
}

/// The one scaffold of the deadline managers: reads the clock, asks the budget, applies the adjustments and
/// the hard cap, hands out a [`DeadlineStopper`], and files the trace when the move ends.
pub struct DeadlineManager<B: DeadlineBudget> {
    budget: B,
    adjustments: Adjustments,
    name: String,
    deadline_ms: Option<i64>,
    extended: Arc<AtomicBool>,
    traces: TraceBook,
}

impl<B: DeadlineBudget + 'static> DeadlineManager<B> {
    /// A fresh manager for one game; `name` is the canonical option string shown in traces.
    pub fn boxed(budget: B, adjustments: Adjustments, name: String) -> Box<dyn TimeManager> {
        Box::new(Self {
            budget,
            adjustments,
            name,
            deadline_ms: None,
            extended: Arc::default(),
            traces: TraceBook::default(),
        })
    }
}

impl<B: DeadlineBudget> TimeManager for DeadlineManager<B> {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        let clock = ClockView::from_go(go, ctx)?;
        let mut trace = new_trace(self.name.clone(), &clock, go, ctx);
        trace.state_before = self.budget.snapshot();
        let budget_ms = self.budget.budget_ms(&clock, ctx, &mut trace);
        let deadline_ms = finish_budget(budget_ms, &self.adjustments, &clock, ctx, &mut trace);
        let extension = self.budget.unstable_extension();
        let unstable_deadline_ms = if extension > 0.0 {
            let extended = (deadline_ms as f64 * (1.0 + extension)).min(clock.hard_cap_ms() as f64) as i64;
            trace.step("unstable_deadline_ms", extended as f64);
            extended
        } else {
            deadline_ms
        };
        trace.state_after_budget = self.budget.snapshot();
        self.traces.open(trace);
        self.deadline_ms = Some(deadline_ms);
        self.extended = Arc::default();
        Some(Box::new(DeadlineStopper {
            deadline_ms,
            unstable_deadline_ms,
            extended: Arc::clone(&self.extended),
            reached: false,
        }))
    }

    fn end_of_move(&mut self, final_stats: &IterationStats) {
        let Some(deadline_ms) = self.deadline_ms.take() else {
            return;
        };
        let move_time_ms = final_stats.time_since_movestart_ms;
        self.budget.learn(move_time_ms, deadline_ms);
        let reason = if self.extended.load(Ordering::Relaxed) {
            searched_on(deadline_ms)
        } else if move_time_ms >= deadline_ms {
            deadline_reached(deadline_ms)
        } else {
            "stopped before the deadline (another stopper or the GUI)".to_owned()
        };
        self.traces.close(move_time_ms, final_stats.total_nodes, reason, self.budget.snapshot());
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        self.traces.drain()
    }
}

/// The stopper of every [`DeadlineManager`]: a deadline, past which the move searches on up to a later one while
/// its most-visited root move is not the best by Q (the two are equal unless the manager extends unstable moves).
pub struct DeadlineStopper {
    deadline_ms: i64,
    unstable_deadline_ms: i64,
    extended: Arc<AtomicBool>,
    reached: bool,
}

impl DeadlineStopper {
    /// A deadline that is final.
    pub(crate) fn plain(deadline_ms: i64) -> Self {
        Self { deadline_ms, unstable_deadline_ms: deadline_ms, extended: Arc::default(), reached: false }
    }
}

impl Stopper for DeadlineStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        let now = stats.time_since_movestart_ms;
        // While unstable the move may search to the later deadline, and smart pruning must know it: otherwise it
        // ends the move before the deadline whenever the best move by Q trails by more than the time left.
        let limit_ms = match stats.time_usage_hint {
            TimeUsageHint::NeedMoreTime => self.unstable_deadline_ms,
            _ => self.deadline_ms,
        };
        hints.update_remaining_time(limit_ms.saturating_sub(now));
        self.reached = now >= limit_ms;
        if !self.reached && now >= self.deadline_ms {
            self.extended.store(true, Ordering::Relaxed);
        }
        self.reached
    }
    fn stop_reason(&self) -> Option<String> {
        self.reached.then(|| match self.extended.load(Ordering::Relaxed) {
            true => searched_on(self.deadline_ms),
            false => deadline_reached(self.deadline_ms),
        })
    }
}

/// The stop reason of a move that ran to its deadline, in stoppers and traces alike.
fn deadline_reached(deadline_ms: i64) -> String {
    format!("deadline {deadline_ms} ms reached")
}

/// The stop reason of a move that searched past its deadline because its best moves by visits and by Q differed.
fn searched_on(deadline_ms: i64) -> String {
    format!("deadline {deadline_ms} ms reached; searched on while the most-visited move was not the best by Q")
}

/// Opens a trace with the inputs every manager shares.
pub(crate) fn new_trace(manager: String, clock: &ClockView, go: &GoParams, ctx: &MoveContext) -> MoveTrace {
    MoveTrace {
        manager,
        game_ply: ctx.game_ply,
        clock_ms: clock.time_ms,
        increment_ms: clock.increment_ms,
        movestogo: go.movestogo,
        move_overhead_ms: clock.overhead_ms,
        reused_visits: ctx.reused_visits,
        ..MoveTrace::default()
    }
}

/// Applies the adjustments and the hard cap `[0, T − O]` to a budget, recording both in the trace.
pub(crate) fn finish_budget(
    budget_ms: f64,
    adjustments: &Adjustments,
    clock: &ClockView,
    ctx: &MoveContext,
    trace: &mut MoveTrace,
) -> i64 {
    let (adjusted, why) = adjustments.apply(budget_ms, ctx);
    if let Some(why) = why {
        trace.step(&format!("adjusted_ms ({why})"), adjusted);
    }
    let deadline = (adjusted.max(0.0) as i64).min(clock.hard_cap_ms());
    trace.deadline_ms = deadline;
    deadline
}
