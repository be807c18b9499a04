//! The search's tunable parameters; their defaults are lc0's UCI defaults, declared once with the engine's
//! options (`crate::options`, docs/lc0/search.md §4.1).

use super::info::ScoreType;
use super::root_noise::RootNoise;
use super::temperature::MoveTemperature;
use super::wdl_rescale::{ContemptMode, RescaleParams};

/// How widely PUCT explores a node's children: cpuct's growth with the node's visits and the first-play urgency
/// of its unvisited children (docs/lc0/search.md §4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exploration {
    /// cpuct at N = 0.
    pub cpuct: f32,
    /// Visits scale of cpuct's logarithmic growth.
    pub cpuct_base: f32,
    /// Weight of cpuct's logarithmic growth.
    pub cpuct_factor: f32,
    /// First-play urgency is `fpu_value` itself (true) or a reduction from the parent's Q (false).
    pub fpu_absolute: bool,
    /// The FPU value or reduction.
    pub fpu_value: f32,
}

/// Every option the search obeys. It has no defaults of its own: `EngineOptions::default().search_params()`
/// gives lc0's UCI defaults, declared once in the options table.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchParams {
    /// Search threads (0 = the backend's suggestion).
    pub threads: usize,
    /// Leaves per network batch (0 = the backend's recommendation).
    pub minibatch_size: usize,
    /// Fill batches smaller than this with likely future leaves, only to warm the cache (0 = off; None = the
    /// backend's recommendation).
    pub max_prefetch: Option<usize>,
    /// Back up cache hits and terminals at once instead of waiting for the batch.
    pub out_of_order_eval: bool,
    /// Out-of-order results per gather, as a multiple of the minibatch size.
    pub max_out_of_order_evals_factor: f32,
    /// Which moves' gathers make no more playouts than the stoppers expect to be left (Kairos; `Off`: as lc0).
    pub gather_bound: GatherBound,
    /// With several threads, a gather ends early for an idle backend only once it queued more than this.
    pub idling_minimum_work: usize,
    /// The backend is idle while more than this many threads are neither computing nor waiting for it.
    pub thread_idling_threshold: usize,
    /// lc0's task workers a search thread (-1: lc0's choice by backend, threads and cores); Kairos's passes
    /// pick the tasks' subtrees themselves, so any above 0 only puts the batch in the order lc0's tasks leave it.
    pub task_workers: i32,
    /// When a pass hands a subtree to a picking task (lc0's MinimumPickingWork, MinimumRemainingPickingWork).
    pub picking_task_rule: PickingTaskRule,
    /// cpuct and first-play urgency below the root.
    pub exploration: Exploration,
    /// The same at the root, where lc0 lets them differ (`RootHasOwnCpuctParams`, `FpuStrategyAtRoot`).
    pub root_exploration: Exploration,
    /// Propagate proven wins, losses and draws up the tree.
    pub sticky_endgames: bool,
    /// Visits after which a node's children are laid out as lc0's solid ones (lc0's `SolidTreeThreshold`).
    pub solid_tree_threshold: u32,
    /// Score a position repeated once inside the searched path as a draw.
    pub two_fold_draws: bool,
    /// Largest collision budget of one gather.
    pub max_collision_visits: u32,
    /// Root N at which the collision budget starts growing beyond 1.
    pub max_collision_visits_scaling_start: u32,
    /// Root N at which the collision budget reaches its maximum.
    pub max_collision_visits_scaling_end: u32,
    /// Exponent of the collision budget's growth.
    pub max_collision_visits_scaling_power: f32,
    /// Largest moves-left utility.
    pub moves_left_max_effect: f32,
    /// |Q| of the parent above which the moves-left utility applies.
    pub moves_left_threshold: f32,
    /// Utility per ply of moves-left difference.
    pub moves_left_slope: f32,
    /// Constant term of the moves-left scaling polynomial in |Q|.
    pub moves_left_constant_factor: f32,
    /// Linear term of the moves-left scaling polynomial in |Q|.
    pub moves_left_scaled_factor: f32,
    /// Quadratic term of the moves-left scaling polynomial in |Q|.
    pub moves_left_quadratic_factor: f32,
    /// Memory budget for the tree in MB (0 = unlimited); also the denominator of `hashfull`.
    pub ram_limit_mb: u64,
    /// Send per-move statistics before `bestmove`.
    pub verbose_move_stats: bool,
    /// The per-move statistics also at every `info` update (lc0's `LogLiveStats`).
    pub log_live_stats: bool,
    /// How many best moves get their own `info` line (MultiPV).
    pub multipv: usize,
    /// Each `info` line's `nodes` are its first move's visits (lc0's `PerPVCounters`).
    pub per_pv_counters: bool,
    /// The most nodes a second the search may make on the wall clock (0: no limit; lc0's `NodesPerSecondLimit`).
    pub nps_limit: f32,
    /// What the `score` of an `info` line shows.
    pub score_type: ScoreType,
    /// With DTZ tables, keep only the root's winning moves of the shortest DTZ (lc0's `SyzygyFastPlay`).
    pub syzygy_fast_play: bool,
    /// What a draw is worth to white (lc0's DrawScore: 0 standard scoring, −1 Armageddon).
    pub draw_score: f32,
    /// Whose side the contempt favours.
    pub contempt_mode: ContemptMode,
    /// lc0's WDL rescaling from the contempt options (ratio 1 and diff 0: none).
    pub wdl_rescale: RescaleParams,
    /// The cap of the logistic width s read from a network's WDL.
    pub wdl_max_s: f32,
    /// How objective the displayed evaluation is under contempt (1: fully).
    pub wdl_eval_objectivity: f32,
    /// How randomly the move played is drawn from the root's moves (temperature 0: the best move).
    pub move_temperature: MoveTemperature,
    /// The Dirichlet noise mixed into the root's priors.
    pub root_noise: RootNoise,
}

/// Which moves' gathers the stoppers' playouts left bound (`GatherWithinPlayoutsLeft`; the engine's option defaults
/// to `TimeTrouble`, the search's parameters to lc0's `Off`). lc0 bounds none: a gather of cache hits and terminals
/// backs up to `MaxOutOfOrderEvalsFactor` batches out of order, which on a very short clock overruns a move of a
/// few nodes (EXPERIMENTS.md, #34 item 1's time losses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GatherBound {
    /// No move's, as lc0.
    #[default]
    Off,
    /// A move on a reused tree whose stoppers allow it fewer playouts than one gather may back up out of order:
    /// such moves only, so that every other move searches as lc0's.
    SmallMoves,
    /// A move on a reused tree that can afford, before its hard time limit at the manager's speed estimate, fewer
    /// playouts than one gather may back up out of order: only moves in time trouble, so that every move with
    /// time in hand searches as lc0's.
    TimeTrouble,
    /// Every move's, a reused tree's first gather waiting for the stoppers' first estimate.
    All,
}

impl SearchParams {
    /// The exploration at the root (`at_root`) or below it.
    pub fn exploration_at(&self, at_root: bool) -> &Exploration {
        if at_root {
            &self.root_exploration
        } else {
            &self.exploration
        }
    }
}

impl GatherBound {
    /// The option's values, in the order of [`GatherBound::ALL`].
    pub const NAMES: &'static [&'static str] = &["off", "small-moves", "time-trouble", "all"];
    /// Every bound, in the order of [`GatherBound::NAMES`].
    pub const ALL: [Self; 4] = [Self::Off, Self::SmallMoves, Self::TimeTrouble, Self::All];
}

/// When a pass hands a child's visits to a picking task (lc0's MinimumPickingWork and MinimumRemainingPickingWork,
/// with task workers): more than `min_work` of them, under two thirds of the visits the pass or task has not yet
/// placed, and leaving more than `min_remaining_work` of those after it (docs/lc0/search.md §4.16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PickingTaskRule {
    /// lc0's MinimumPickingWork.
    pub min_work: u32,
    /// lc0's MinimumRemainingPickingWork.
    pub min_remaining_work: u32,
}

/// lc0's task workers a search thread (SearchWorker's constructor, search.h): `TaskWorkers` if 0 or more, else
/// none on a CPU backend and otherwise `min(cores / max(threads − 1, 1) − 1, 4)` in lc0's unsigned arithmetic,
/// where a quotient of 0 wraps round to the most, 4. Kairos counts the cores it may run on where lc0 counts the
/// machine's.
pub fn task_workers(setting: i32, runs_on_cpu: bool, threads: usize, cores: usize) -> u32 {
    if let Ok(workers) = u32::try_from(setting) {
        return workers;
    }
    if runs_on_cpu {
        return 0;
    }
    let working_threads = threads.saturating_sub(1).max(1);
    let share = u32::try_from(cores / working_threads).unwrap_or(u32::MAX);
    share.wrapping_sub(1).min(4)
}

#[cfg(test)]
mod tests {
    use super::task_workers;

    #[test]
    fn task_workers_are_lc0s_choice() {
        // Set: as set, on any backend.
        assert_eq!(task_workers(0, false, 1, 16), 0);
        assert_eq!(task_workers(3, true, 1, 16), 3);
        // -1 on a CPU backend: none.
        assert_eq!(task_workers(-1, true, 1, 16), 0);
        // -1 elsewhere, min(cores / max(threads − 1, 1) − 1, 4): 16 cores at 1, 2, 3 and 5 threads give 15, 15, 7
        // and 3; 2 cores at 1 thread 1, one core 0, and 2 cores at 4 threads 2 / 3 = 0, whose − 1 wraps to the most.
        let on_16 = [1, 2, 3, 5].map(|threads| task_workers(-1, false, threads, 16));
        assert_eq!(on_16, [4, 4, 4, 3]);
        assert_eq!(task_workers(-1, false, 1, 2), 1);
        assert_eq!(task_workers(-1, false, 1, 1), 0);
        assert_eq!(task_workers(-1, false, 4, 2), 4);
    }
}
