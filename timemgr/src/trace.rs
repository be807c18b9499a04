//! One JSON-serialisable record per move of every time-management decision, and its one-line summary.

use serde::{Deserialize, Serialize};

/// One named number in a trace: a budget step or an estimator value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceValue {
    /// The step or estimator name (lc0's wording where lc0 logs it).
    pub name: String,
    /// Its value (f32 values widened exactly).
    pub value: f64,
}

/// Everything a manager decided for one move and what then happened, for `info string` and offline study.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveTrace {
    /// The manager's canonical option string.
    pub manager: String,
    /// Game ply at the root.
    pub game_ply: u32,
    /// Own clock in ms at `go`.
    pub clock_ms: i64,
    /// Own increment in ms (0 when absent).
    pub increment_ms: i64,
    /// `movestogo` as given.
    pub movestogo: Option<i32>,
    /// Move overhead in ms.
    pub move_overhead_ms: i64,
    /// Visits of the reused root.
    pub reused_visits: u64,
    /// The moves-left estimator used and, for `mlh`, whether it fell back.
    pub estimator: Option<String>,
    /// Every step of the budget, in computation order.
    pub steps: Vec<TraceValue>,
    /// Learned state before this move's budget.
    pub state_before: Vec<TraceValue>,
    /// Learned state after this move's budget.
    pub state_after_budget: Vec<TraceValue>,
    /// Learned state after the end-of-move update (empty until the move ends).
    pub state_after_move: Vec<TraceValue>,
    /// The hard deadline handed to the stopper, in ms since the move started.
    pub deadline_ms: i64,
    /// Why the search stopped, as far as the time manager's stopper knows.
    pub stop_reason: Option<String>,
    /// Time the move actually took (known at the end of the move).
    pub move_time_ms: Option<i64>,
    /// Root visits when the move was made.
    pub final_nodes: Option<u64>,
    /// The tree-size target the move stopped at, for node-limited managers (`smooth(limit=nodes)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_target: Option<f64>,
    /// Which of a node-limited manager's limits ended the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<StopCause>,
}

/// Which limit of a node-limited move fired: the target, smart pruning on the node budget, a single legal
/// move, the soft time cap or the hard deadline; `Other` when another stopper or the GUI ended the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopCause {
    /// The tree reached the node target.
    Target,
    /// No other root move could overtake the best within the remaining node budget.
    SmartPruning,
    /// Only one legal move.
    SingleMove,
    /// The soft time cap (a multiple of the expected move time) passed.
    SoftCap,
    /// The hard deadline (share of the clock, or the clock minus overhead) passed.
    HardDeadline,
    /// Another stopper or the GUI.
    Other,
}

impl StopCause {
    /// The cause as written in traces and summaries.
    pub fn label(self) -> &'static str {
        match self {
            StopCause::Target => "target",
            StopCause::SmartPruning => "smart-pruning",
            StopCause::SingleMove => "single-move",
            StopCause::SoftCap => "soft-cap",
            StopCause::HardDeadline => "hard-deadline",
            StopCause::Other => "other",
        }
    }
}

impl MoveTrace {
    /// Appends a budget step.
    pub fn step(&mut self, name: &str, value: f64) {
        self.steps.push(TraceValue { name: name.to_owned(), value });
    }

    /// The value of a recorded budget step, by name.
    pub fn step_value(&self, name: &str) -> Option<f64> {
        self.steps.iter().find(|s| s.name == name).map(|s| s.value)
    }

    /// One line for `info string`: manager, clock, the key budget numbers and the outcome.
    pub fn summary(&self) -> String {
        let mut line =
            format!("tm {} ply {} clock {}+{}", self.manager, self.game_ply, self.clock_ms, self.increment_ms);
        if let Some(mtg) = self.movestogo {
            line.push_str(&format!(" mtg {mtg}"));
        }
        if let Some(share) = self.step_value("predicted_share") {
            line.push_str(&format!(" predicted_share {share:.5}"));
        }
        let shown =
            ["planned_nodes_per_move", "moves_left", "allocated_ms", "allowed_piggybank_ms", "piggybank_after_ms"];
        for name in shown {
            if let Some(value) = self.step_value(name) {
                line.push_str(&format!(" {name} {value:.1}"));
            }
        }
        if let Some(target) = self.node_target {
            line.push_str(&format!(" node_target {target:.0}"));
        }
        line.push_str(&format!(" deadline {}", self.deadline_ms));
        if let Some(time) = self.move_time_ms {
            line.push_str(&format!(" used {time}"));
        }
        if let Some(nodes) = self.final_nodes.filter(|_| self.node_target.is_some()) {
            line.push_str(&format!(" nodes {nodes}"));
        }
        if let Some(reason) = &self.stop_reason {
            line.push_str(&format!(" ({reason})"));
        }
        line
    }
}

/// Collects traces: the move in progress and the finished ones not yet drained.
#[derive(Debug, Default)]
pub(crate) struct TraceBook {
    open: Option<MoveTrace>,
    done: Vec<MoveTrace>,
}

impl TraceBook {
    /// Starts a move's trace; a move that never reported its end is filed as it stands.
    pub(crate) fn open(&mut self, trace: MoveTrace) {
        if let Some(unfinished) = self.open.replace(trace) {
            self.done.push(unfinished);
        }
    }
    /// Files the move in progress with its outcome.
    pub(crate) fn close(&mut self, move_time_ms: i64, final_nodes: u64, stop_reason: String, state: Vec<TraceValue>) {
        if let Some(mut trace) = self.open.take() {
            trace.move_time_ms = Some(move_time_ms);
            trace.final_nodes = Some(final_nodes);
            trace.stop_reason = Some(stop_reason);
            trace.state_after_move = state;
            self.done.push(trace);
        }
    }
    /// Files a finished trace made elsewhere (by a fallback manager), after the move in progress if any.
    pub(crate) fn file(&mut self, trace: MoveTrace) {
        if let Some(unfinished) = self.open.take() {
            self.done.push(unfinished);
        }
        self.done.push(trace);
    }
    /// Records which limit ended the move in progress.
    pub(crate) fn set_stopped_by(&mut self, cause: Option<StopCause>) {
        if let Some(trace) = self.open.as_mut() {
            trace.stopped_by = cause;
        }
    }
    /// Hands over every finished trace; the move in progress stays open.
    pub(crate) fn drain(&mut self) -> Vec<MoveTrace> {
        std::mem::take(&mut self.done)
    }
}
