//! The read-only context of one gather, shared by the gather and its passes (`pick`), kept apart so that both
//! import it and neither imports the other's caller.

use super::draw_score::DrawScore;
use super::params::{PickingTaskRule, SearchParams};
use super::stats::RootFilter;
use super::wdl_rescale::SearchContempt;
use crate::tablebase::Tablebases;

/// The read-only context of one gather.
pub struct GatherContext<'a> {
    /// Search parameters.
    pub params: &'a SearchParams,
    /// The root move filter.
    pub filter: &'a RootFilter,
    /// The tables to end the search with below the root; None without tables, or when the DTZ tables
    /// already ranked the root's moves (as lc0: the filter then decides the result).
    pub tablebases: Option<&'a Tablebases>,
    /// The WDL rescaling applied to every new evaluation.
    pub contempt: &'a SearchContempt,
    /// What a draw is worth at each depth.
    pub draw_score: DrawScore,
    /// Whether the network has a moves-left head (moves-left utility).
    pub has_moves_left: bool,
    /// Leaves wanted in the batch.
    pub batch_target: usize,
    /// How many positions prefetching fills a smaller batch up to (0: none).
    pub prefetch_target: usize,
    /// Collision visits allowed in this gather.
    pub collision_budget: u32,
    /// The hints' remaining playouts, for root pruning.
    pub remaining_playouts: u64,
    /// Whether this gather makes no more playouts than `remaining_playouts` (`GatherWithinPlayoutsLeft`).
    pub within_playouts_left: bool,
    /// Whether the search was asked to stop (the gather still runs while the root has no visits).
    pub stopping: &'a dyn Fn() -> bool,
    /// When a pass hands subtrees to picking tasks, which reorder the batch as lc0's task workers do (None: no
    /// tasks, as lc0 on a CPU backend or with `TaskWorkers=0`).
    pub picking_tasks: Option<PickingTaskRule>,
    /// Whether no other search thread keeps the backend busy (lc0's idle backend; always false with one thread):
    /// the gather then sends what it has at once.
    pub backend_idle: &'a dyn Fn() -> bool,
}
