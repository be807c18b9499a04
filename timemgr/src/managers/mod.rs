//! The per-game time managers and what they share: the trait, the clock view and the common adjustments.

pub mod alphazero;
pub mod expected_length;
pub mod geometric;
pub mod legacy;
pub mod simple;
pub mod smooth;

use std::sync::{Arc, Mutex, MutexGuard};

use crate::search_stats::{GoParams, Hints, IterationStats, MoveContext, Stopper};
use crate::trace::MoveTrace;

/// A per-game time manager: budgets each move from the clock and learns from how the move went.
pub trait TimeManager: Send {
    /// The stopper that enforces this move's budget; `None` without a clock, in `go infinite` or `go ponder`
    /// (then no state is read or written).
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>>;
    /// Every finished move's trace since the last call, oldest first.
    fn drain_trace(&mut self) -> Vec<MoveTrace>;
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
    /// Move overhead in ms.
    pub overhead_ms: i64,
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
        Some(Self {
            time_ms: time?.clamp(-LIMIT, LIMIT),
            increment_ms: increment.unwrap_or(0).clamp(0, LIMIT),
            movestogo: go.movestogo.filter(|&mtg| mtg > 0),
            overhead_ms: ctx.move_overhead_ms.clamp(0, LIMIT),
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

/// The chessprogramming-wiki adjustments every manager offers, all off by default (lc0 has none of them).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Adjustments {
    /// Move at once when there is exactly one legal move.
    pub instant_single_move: bool,
    /// Cray Blitz: multiply the budget by `2 − min(n, 10)/10` for the `n`-th own move after the book.
    pub out_of_book_factor: bool,
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

/// What a manager learns when a move it budgeted ends.
pub(crate) trait EndOfMove: Send {
    /// `move_time_ms`: time since the move started; `deadline_ms`: the budget the stopper enforced.
    fn end_of_move(&mut self, move_time_ms: i64, deadline_ms: i64, stats: &IterationStats, reason: String);
}

/// A plain deadline that reports the end of the move to its manager (legacy, alphazero, simple, geometric,
/// expected-length).
pub(crate) struct DeadlineStopper<S: EndOfMove> {
    deadline_ms: i64,
    state: Arc<Mutex<S>>,
    hit_deadline: bool,
}

impl<S: EndOfMove> DeadlineStopper<S> {
    pub(crate) fn boxed(deadline_ms: i64, state: Arc<Mutex<S>>) -> Box<dyn Stopper>
    where
        S: 'static,
    {
        Box::new(Self { deadline_ms, state, hit_deadline: false })
    }
}

impl<S: EndOfMove> Stopper for DeadlineStopper<S> {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        hints.update_remaining_time(self.deadline_ms.saturating_sub(stats.time_since_movestart_ms));
        self.hit_deadline = stats.time_since_movestart_ms >= self.deadline_ms;
        self.hit_deadline
    }
    fn on_search_done(&mut self, stats: &IterationStats) {
        let reason = if self.hit_deadline {
            format!("deadline {} ms reached", self.deadline_ms)
        } else {
            "stopped before the deadline (another stopper or the GUI)".to_owned()
        };
        lock(&self.state).end_of_move(stats.time_since_movestart_ms, self.deadline_ms, stats, reason);
    }
    fn stop_reason(&self) -> Option<String> {
        self.hit_deadline.then(|| format!("deadline {} ms reached", self.deadline_ms))
    }
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
pub(crate) fn finish_budget(budget_ms: f64, adjustments: &Adjustments, clock: &ClockView, ctx: &MoveContext, trace: &mut MoveTrace) -> i64 {
    let (adjusted, why) = adjustments.apply(budget_ms, ctx);
    if let Some(why) = why {
        trace.step(&format!("adjusted_ms ({why})"), adjusted);
    }
    let deadline = (adjusted.max(0.0) as i64).min(clock.hard_cap_ms());
    trace.deadline_ms = deadline;
    deadline
}
