//! `kairos tm-plan`: plays a synthetic game against a model search and reports every move's budget.
//!
//! The model: only our side's moves are searched (white, plies 0, 2, 4, …). Each move's NPS is the nominal NPS
//! times `1 + noise·u`, u uniform in [−1, 1] from a seeded ChaCha8 generator. The first batch arrives 10 ms
//! after the move starts; the chain (time manager + visits stopper, no smart pruning) is polled every
//! `poll_ms`, or every 1/200 of the announced time left when that is longer (bounded work for long clocks); the search also stops on its own once `t ≥ timeuse·(t + remaining time)` (how smart pruning
//! shortens moves), or, under a manager that announces a node budget (`smooth(limit=nodes)`), once the root
//! visits reach `timeuse·(visits + remaining playouts)`. Root visits split 60/30/10 over three moves; the reused tree is `reuse ×` the previous
//! final root visits; pieces fall linearly from 32 to 6 over the planned plies, while the board a manager
//! reads (`ctm`) stays the initial position: the model game has counts, not moves. The clock loses the move time
//! and gains the increment; `flagged` is set when a move takes longer than the clock had.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::chain::{build_stopper_chain, CommonStopperOptions};
use crate::ctm::PiecePlacement;
use crate::factory::time_manager_from_str;
use crate::options::OptionError;
use crate::search_stats::{GoParams, Hints, IterationStats, MoveContext, PlayedGames};
use crate::trace::{MoveTrace, StopCause, TraceValue};

/// Why a plan could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The time control is not `BASE+INC` or `MOVES/BASE+INC` in seconds.
    #[error("bad time control '{0}': write BASE+INC or MOVES/BASE+INC in seconds, e.g. 60+0.6 or 40/60+0")]
    TimeControl(String),
    /// The time-manager option string was rejected.
    #[error(transparent)]
    Option(#[from] OptionError),
    /// A model parameter is outside its range.
    #[error("{0}")]
    Model(String),
}

/// A time control: base and increment in ms, optionally repeating every `moves` own moves.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TimeControl {
    /// Moves per period (`40/…`), if the control repeats.
    pub moves: Option<u32>,
    /// Base time per period in ms.
    pub base_ms: i64,
    /// Increment per move in ms.
    pub increment_ms: i64,
}

impl std::str::FromStr for TimeControl {
    type Err = PlanError;

    /// Parses `60+0.6` or `40/60+0` (seconds).
    fn from_str(text: &str) -> Result<Self, PlanError> {
        let bad = || PlanError::TimeControl(text.to_owned());
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => (Some(moves.trim().parse::<u32>().ok().filter(|&m| m > 0).ok_or_else(bad)?), rest),
            None => (None, text),
        };
        let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
        let seconds = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e9)
                .map(|x| (x * 1000.0).round() as i64)
        };
        Ok(Self { moves, base_ms: seconds(base).ok_or_else(bad)?, increment_ms: seconds(increment).ok_or_else(bad)? })
    }
}

/// What `kairos tm-plan` passes in.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanConfig {
    /// The time-manager option string.
    pub time_manager: String,
    /// The time control.
    pub time_control: TimeControl,
    /// `movestogo` sent with every `go` (overrides the control's own count).
    pub moves_to_go: Option<u32>,
    /// Length of the synthetic game in plies (both sides).
    pub plies: u32,
    /// Nominal nodes per second.
    pub nps: f64,
    /// Relative NPS noise per move (0..1).
    pub nps_noise: f64,
    /// Fraction of the previous final root visits reused (0..1).
    pub reuse: f64,
    /// Fraction of the time limit the model search uses before stopping on its own (0..1].
    pub timeuse: f64,
    /// Seed of the noise.
    pub seed: u64,
    /// Move overhead in ms (the engine's MoveOverheadMs).
    pub move_overhead_ms: i64,
    /// Poll interval of the model search in ms.
    pub poll_ms: i64,
}

impl PlanConfig {
    /// Default length of the synthetic game in plies.
    pub const DEFAULT_PLIES: u32 = 160;
    /// Default nominal NPS of the model search.
    pub const DEFAULT_NPS: f64 = 2000.0;
    /// Default relative NPS noise.
    pub const DEFAULT_NPS_NOISE: f64 = 0.1;
    /// Default share of the previous tree reused.
    pub const DEFAULT_REUSE: f64 = 0.5;
    /// Default share of the limit the model search uses before stopping on its own.
    pub const DEFAULT_TIMEUSE: f64 = 0.7;
    /// Default seed of the noise.
    pub const DEFAULT_SEED: u64 = 1;
    /// Poll interval of the model search in ms.
    pub const DEFAULT_POLL_MS: i64 = 10;

    /// The model's defaults (also `kairos tm-plan`'s) for a manager, a time control and a move overhead; the
    /// overhead is the caller's because its default is the engine's MoveOverheadMs, declared with the engine.
    pub fn new(time_manager: &str, time_control: TimeControl, move_overhead_ms: i64) -> Self {
        Self {
            time_manager: time_manager.to_owned(),
            time_control,
            moves_to_go: None,
            plies: Self::DEFAULT_PLIES,
            nps: Self::DEFAULT_NPS,
            nps_noise: Self::DEFAULT_NPS_NOISE,
            reuse: Self::DEFAULT_REUSE,
            timeuse: Self::DEFAULT_TIMEUSE,
            seed: Self::DEFAULT_SEED,
            move_overhead_ms,
            poll_ms: Self::DEFAULT_POLL_MS,
        }
    }
}

/// One planned move.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlannedMove {
    /// Own move number, from 1.
    pub move_number: u32,
    /// Game ply.
    pub ply: u32,
    /// Clock at `go` in ms.
    pub clock_ms: i64,
    /// `movestogo` sent.
    pub movestogo: Option<u32>,
    /// The largest time limit the stopper chain announced (deadline plus any allowance), in ms.
    pub allocated_ms: i64,
    /// The manager's tree-size target, when it plans in nodes (smooth): the stop itself with `limit=nodes`.
    pub node_target: Option<f64>,
    /// Which limit ended the move, for node-limited managers.
    pub stopped_by: Option<StopCause>,
    /// Reused root visits at `go`.
    pub reused_visits: u64,
    /// Model NPS of this move.
    pub nps: f64,
    /// Time the move took.
    pub move_time_ms: i64,
    /// Root visits at the end.
    pub final_nodes: u64,
    /// Learned state after the move.
    pub estimator_state: Vec<TraceValue>,
    /// Clock after the move and the increment.
    pub clock_after_ms: i64,
    /// The manager's one-line summary.
    pub summary: String,
}

/// The whole plan and its outcome.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlanReport {
    /// The manager's option string.
    pub time_manager: String,
    /// Every own move, in order.
    pub moves: Vec<PlannedMove>,
    /// Sum of the move times.
    pub total_time_used_ms: i64,
    /// Clock at the end.
    pub final_clock_ms: i64,
    /// Whether some move took longer than the clock had.
    pub flagged: bool,
}

/// Plays the synthetic game.
pub fn plan(config: &PlanConfig) -> Result<PlanReport, PlanError> {
    let in_unit = |x: f64| (0.0..=1.0).contains(&x);
    let nps_ok = config.nps > 0.0 && config.nps.is_finite();
    if !nps_ok || !in_unit(config.nps_noise) || !in_unit(config.reuse) {
        return Err(PlanError::Model("nps must be > 0; nps-noise and reuse in [0, 1]".to_owned()));
    }
    if !(config.timeuse > 0.0 && config.timeuse <= 1.0) || config.poll_ms <= 0 {
        return Err(PlanError::Model("timeuse must be in (0, 1] and the poll interval > 0".to_owned()));
    }
    let mut manager = time_manager_from_str(&config.time_manager)?;
    let no_pruning = CommonStopperOptions::go_limits_only();
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let tc = TimeControl { moves: config.time_control.moves.filter(|&m| m > 0), ..config.time_control };
    let mut clock = tc.base_ms;
    let mut previous_nodes = 0u64;
    let mut report = PlanReport {
        time_manager: config.time_manager.clone(),
        moves: Vec::new(),
        total_time_used_ms: 0,
        final_clock_ms: clock,
        flagged: false,
    };
    for (index, ply) in (0..config.plies).step_by(2).enumerate() {
        let move_number = index as u32 + 1;
        let period_left = tc.moves.map(|m| m - index as u32 % m);
        let movestogo = config.moves_to_go.or(period_left);
        let go = GoParams {
            wtime: Some(clock),
            btime: Some(clock),
            winc: Some(tc.increment_ms),
            binc: Some(tc.increment_ms),
            movestogo: movestogo.map(|m| m as i32),
            ..GoParams::default()
        };
        let reused = (previous_nodes as f64 * config.reuse).round() as u64;
        let ctx = MoveContext {
            white_to_move: true,
            game_ply: ply,
            reused_visits: reused,
            move_overhead_ms: config.move_overhead_ms,
            legal_moves: 30,
            piece_count: 32 - (26 * u64::from(ply) / u64::from(config.plies.max(1))) as u32,
            network_moves_left_plies: None,
            moves_out_of_book: Some(move_number),
            smart_pruning: false,
            placement: Some(PiecePlacement::initial()),
            engine_nps: Some(config.nps as f32),
            played_games: PlayedGames::default(),
            // The model's moves cost their nodes and nothing else, as on the virtual clock.
            move_floor_ms: None,
        };
        let nps = config.nps * (1.0 + config.nps_noise * rng.random_range(-1.0..=1.0));
        let mut chain = build_stopper_chain(Some(manager.as_mut()), &go, &ctx, &no_pruning);
        let (mut t, mut allocated) = (0i64, 0i64);
        let stats = loop {
            let stats = model_stats(t, nps, reused);
            let mut hints = Hints::default();
            let stop = chain.should_stop(&stats, &mut hints);
            let limit = t.saturating_add(hints.remaining_time_ms());
            allocated = allocated.max(limit.min(crate::search_stats::UNLIMITED_TIME_MS));
            let satisfied = if hints.remaining_playouts() < crate::search_stats::UNLIMITED_PLAYOUTS {
                let nodes = stats.total_nodes as f64;
                nodes >= config.timeuse * (nodes + hints.remaining_playouts() as f64)
            } else {
                t as f64 >= config.timeuse * limit as f64
            };
            if stop || satisfied || t >= clock.max(0).saturating_add(config.poll_ms) {
                break stats;
            }
            t = t.saturating_add(config.poll_ms.max(limit.saturating_sub(t) / 200));
        };
        drop(chain);
        manager.end_of_move(&stats);
        let trace: Option<MoveTrace> = manager.drain_trace().pop();
        if stats.time_since_movestart_ms > clock {
            report.flagged = true;
        }
        clock = clock.saturating_sub(stats.time_since_movestart_ms).saturating_add(tc.increment_ms);
        if tc.moves.is_some_and(|m| move_number.is_multiple_of(m)) {
            clock = clock.saturating_add(tc.base_ms);
        }
        report.total_time_used_ms = report.total_time_used_ms.saturating_add(stats.time_since_movestart_ms);
        previous_nodes = stats.total_nodes;
        report.moves.push(PlannedMove {
            move_number,
            ply,
            clock_ms: go.wtime.unwrap_or(0),
            movestogo,
            allocated_ms: allocated,
            node_target: trace
                .as_ref()
                .and_then(|t| t.node_target.or_else(|| t.step_value("nodes_per_move_including_reuse"))),
            stopped_by: trace.as_ref().and_then(|t| t.stopped_by),
            reused_visits: reused,
            nps,
            move_time_ms: stats.time_since_movestart_ms,
            final_nodes: stats.total_nodes,
            estimator_state: trace.as_ref().map(|t| t.state_after_move.clone()).unwrap_or_default(),
            clock_after_ms: clock,
            summary: trace.as_ref().map(MoveTrace::summary).unwrap_or_default(),
        });
        if report.flagged {
            break;
        }
    }
    report.final_clock_ms = clock;
    Ok(report)
}

/// The model search's statistics at `t` ms into the move.
fn model_stats(t: i64, nps: f64, reused: u64) -> IterationStats {
    const FIRST_BATCH_MS: i64 = 10;
    let since_first_batch = (t - FIRST_BATCH_MS).max(0);
    let playouts = (nps * since_first_batch as f64 / 1000.0) as u64;
    let total = playouts.saturating_add(reused);
    let share = |s: f64| (s * total as f64) as u32;
    IterationStats {
        time_since_movestart_ms: t,
        time_since_first_batch_ms: since_first_batch,
        total_nodes: total,
        nodes_since_movestart: playouts,
        batches_since_movestart: playouts / 32,
        average_depth: 1 + (total as f64).max(1.0).log2() as u32,
        edge_n: vec![share(0.6), share(0.3), share(0.1)],
        may_resign: false,
        ..IterationStats::default()
    }
}

impl PlanReport {
    /// JSON Lines: one object per move, then a summary object with `"flagged"`.
    pub fn to_json_lines(&self) -> String {
        let mut out = String::new();
        for planned in &self.moves {
            out.push_str(&serde_json::to_string(planned).unwrap_or_default());
            out.push('\n');
        }
        let summary = serde_json::json!({
            "summary": true,
            "time_manager": self.time_manager,
            "moves": self.moves.len(),
            "total_time_used_ms": self.total_time_used_ms,
            "final_clock_ms": self.final_clock_ms,
            "flagged": self.flagged,
        });
        out.push_str(&summary.to_string());
        out.push('\n');
        out
    }

    /// A table for humans: one row per move, then the totals.
    pub fn to_text(&self) -> String {
        let mut out = format!("time manager: {}\n", self.time_manager);
        out.push_str(
            "move  ply    clock_ms  mtg  alloc_ms  used_ms  node_target  final_nodes  clock_after  stopped_by\n",
        );
        for m in &self.moves {
            out.push_str(&format!(
                "{:>4} {:>4} {:>11} {:>4} {:>9} {:>8} {:>12} {:>12} {:>12}  {}\n",
                m.move_number,
                m.ply,
                m.clock_ms,
                m.movestogo.map_or("-".to_owned(), |v| v.to_string()),
                m.allocated_ms,
                m.move_time_ms,
                m.node_target.map_or("-".to_owned(), |v| format!("{v:.0}")),
                m.final_nodes,
                m.clock_after_ms,
                m.stopped_by.map_or("-", StopCause::label),
            ));
        }
        out.push_str(&format!(
            "total time used {} ms, final clock {} ms, flagged: {}\n",
            self.total_time_used_ms, self.final_clock_ms, self.flagged
        ));
        out
    }
}
