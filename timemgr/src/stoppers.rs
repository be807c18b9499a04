//! The generic stoppers every search gets (docs/lc0/stoppers.md §3.4–3.5) and the chain that asks them in order
//! (§3.3).

use crate::search_stats::{Hints, IterationStats, Stopper};

/// Stops once the root has `limit` visits, reused visits included (`go nodes`).
#[derive(Debug)]
pub struct VisitsStopper {
    limit: u64,
    publish_remaining: bool,
}

impl VisitsStopper {
    /// `publish_remaining`: offer `limit − N` as remaining playouts (lc0 does so only with smart pruning on).
    pub fn new(limit: u64, publish_remaining: bool) -> Self {
        Self { limit, publish_remaining }
    }
}

impl Stopper for VisitsStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        if self.publish_remaining {
            hints.update_remaining_playouts(self.limit.saturating_sub(stats.total_nodes));
        }
        stats.total_nodes >= self.limit
    }
    fn stop_reason(&self) -> Option<String> {
        Some(format!("reached {} visits", self.limit))
    }
    fn playouts_left_at_start(&mut self, stats: &IterationStats) -> Option<u64> {
        Some(self.limit.saturating_sub(stats.total_nodes))
    }
}

/// Stops after `limit` playouts of this search (`go nodes` with `NodesAsPlayouts`).
#[derive(Debug)]
pub struct PlayoutsStopper {
    limit: u64,
    publish_remaining: bool,
}

impl PlayoutsStopper {
    /// `publish_remaining`: offer `limit − playouts` as remaining playouts (only with smart pruning on).
    pub fn new(limit: u64, publish_remaining: bool) -> Self {
        Self { limit, publish_remaining }
    }
}

impl Stopper for PlayoutsStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        if self.publish_remaining {
            hints.update_remaining_playouts(self.limit.saturating_sub(stats.nodes_since_movestart));
        }
        stats.nodes_since_movestart >= self.limit
    }
    fn stop_reason(&self) -> Option<String> {
        Some(format!("reached {} playouts", self.limit))
    }
    fn playouts_left_at_start(&mut self, stats: &IterationStats) -> Option<u64> {
        Some(self.limit.saturating_sub(stats.nodes_since_movestart))
    }
}

/// Stops once the search tree holds `limit_mb` megabytes (`RamLimitMb`; lc0's memory-watching stopper,
/// here on the tree's measured size instead of a node count estimated from it).
#[derive(Debug)]
pub struct MemoryStopper {
    limit_mb: u64,
}

impl MemoryStopper {
    /// A stopper at `limit_mb` × 1,000,000 bytes.
    pub fn new(limit_mb: u64) -> Self {
        Self { limit_mb }
    }
}

impl Stopper for MemoryStopper {
    fn should_stop(&mut self, stats: &IterationStats, _hints: &mut Hints) -> bool {
        stats.tree_bytes >= self.limit_mb.saturating_mul(1_000_000)
    }
    fn stop_reason(&self) -> Option<String> {
        Some(format!("the tree reached RamLimitMb ({} MB)", self.limit_mb))
    }
}

/// Stops when `limit_ms` have passed since the move clock started; publishes the time left.
#[derive(Debug)]
pub struct TimeLimitStopper {
    limit_ms: i64,
}

impl TimeLimitStopper {
    /// A hard deadline in milliseconds since the move started.
    pub fn new(limit_ms: i64) -> Self {
        Self { limit_ms }
    }
}

impl Stopper for TimeLimitStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        hints.update_remaining_time(self.limit_ms.saturating_sub(stats.time_since_movestart_ms));
        stats.time_since_movestart_ms >= self.limit_ms
    }
    fn stop_reason(&self) -> Option<String> {
        Some(format!("time limit {} ms reached", self.limit_ms))
    }
}

/// Stops when the average depth of the playouts reaches `depth` (`go depth`).
#[derive(Debug)]
pub struct DepthStopper {
    depth: u32,
}

impl DepthStopper {
    /// Average depth to reach.
    pub fn new(depth: u32) -> Self {
        Self { depth }
    }
}

impl Stopper for DepthStopper {
    fn should_stop(&mut self, stats: &IterationStats, _hints: &mut Hints) -> bool {
        stats.average_depth >= self.depth
    }
    fn stop_reason(&self) -> Option<String> {
        Some(format!("average depth {} reached", self.depth))
    }
}

/// Stops once a mate in at most `moves` is proven at the root (`go mate`).
#[derive(Debug)]
pub struct MateStopper {
    moves: u32,
}

impl MateStopper {
    /// Mate distance in full moves.
    pub fn new(moves: u32) -> Self {
        Self { moves }
    }
}

impl Stopper for MateStopper {
    fn should_stop(&mut self, stats: &IterationStats, _hints: &mut Hints) -> bool {
        stats.mate_depth.is_some_and(|depth| depth <= self.moves)
    }
    fn stop_reason(&self) -> Option<String> {
        Some(format!("mate in {} found", self.moves))
    }
}

/// Stops when the root visit distribution stops changing: KLD gain per node below a minimum (§3.5).
#[derive(Debug)]
pub struct KldGainStopper {
    min_gain_per_node: f64,
    average_interval: u64,
    previous: Option<Vec<u32>>,
    previous_count: u64,
}

impl KldGainStopper {
    /// `min_gain_per_node`: `MinimumKLDGainPerNode`; `average_interval`: `KLDGainAverageInterval` nodes.
    pub fn new(min_gain_per_node: f32, average_interval: u64) -> Self {
        Self { min_gain_per_node: f64::from(min_gain_per_node), average_interval, previous: None, previous_count: 0 }
    }
}

impl Stopper for KldGainStopper {
    fn should_stop(&mut self, stats: &IterationStats, _hints: &mut Hints) -> bool {
        let count = stats.total_nodes.saturating_sub(1);
        if count < self.previous_count.saturating_add(self.average_interval) {
            return false;
        }
        let mut stop = false;
        if let Some(previous) = &self.previous {
            let (old, new) = (self.previous_count as f64, count as f64);
            // lc0's build fuses each term's product with the running sum (docs/lc0/search.md §4.15).
            let kld = previous.iter().zip(&stats.edge_n).filter(|(&p, _)| p > 0).fold(0.0, |kld: f64, (&p, &q)| {
                let (p, q) = (f64::from(p) / old, f64::from(q) / new);
                p.mul_add((p / q).ln(), kld)
            });
            stop = kld / (new - old) < self.min_gain_per_node;
        }
        self.previous = Some(stats.edge_n.clone());
        self.previous_count = count;
        stop
    }
    fn stop_reason(&self) -> Option<String> {
        Some("KLD gain per node below the minimum".to_owned())
    }
}

/// Smart pruning's time tolerance: no pruning in the first 200 ms after the first evaluation.
pub const SMART_PRUNING_TOLERANCE_MS: i64 = 200;
/// Smart pruning's node tolerance, added to the playouts when it estimates the NPS itself.
pub const SMART_PRUNING_TOLERANCE_NODES: u64 = 300;

/// Stops when the second-best root move can no longer catch the best one in the time left (§3.4, exact).
#[derive(Debug)]
pub struct SmartPruningStopper {
    factor: f32,
    minimum_batches: u64,
    first_eval_time_ms: Option<i64>,
    last_reason: Option<String>,
}

impl SmartPruningStopper {
    /// `factor`: `SmartPruningFactor` (≤ 0 disables); `minimum_batches`: `SmartPruningMinimumBatches`.
    pub fn new(factor: f32, minimum_batches: u64) -> Self {
        Self { factor, minimum_batches, first_eval_time_ms: None, last_reason: None }
    }

    /// Playouts the search can still do, from the time and playout hints of the members polled before.
    fn remaining_playouts(&self, stats: &IterationStats, hints: &Hints, first_eval_ms: i64) -> f64 {
        let nodes = stats.nodes_since_movestart.saturating_add(SMART_PRUNING_TOLERANCE_NODES);
        let elapsed = stats.time_since_movestart_ms.saturating_sub(first_eval_ms).max(1) as u64;
        let nps = match hints.estimated_nps() {
            Some(nps) => f64::from(nps),
            None => (nodes.saturating_mul(1000) / elapsed + 1) as f64,
        };
        let factor = f64::from(self.factor);
        let by_time = hints.remaining_time_ms() as f64 / 1000.0 * nps / factor;
        let by_playouts = hints.remaining_playouts() as f64 / factor;
        by_time.min(by_playouts)
    }
}

impl Stopper for SmartPruningStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        if self.factor <= 0.0 {
            return false;
        }
        let children = stats.edge_n.len();
        let reason = if children == 1 {
            Some("only one legal move")
        } else if children <= stats.num_losing_edges as usize + usize::from(!stats.may_resign) {
            Some("at most one move does not lose")
        } else if stats.win_found {
            Some("a winning move is proven")
        } else {
            None
        };
        if let Some(reason) = reason {
            self.last_reason = Some(reason.to_owned());
            return true;
        }
        let first_eval_ms = match self.first_eval_time_ms {
            None => {
                if stats.nodes_since_movestart > 0 {
                    self.first_eval_time_ms = Some(stats.time_since_movestart_ms);
                }
                return false;
            }
            Some(first) => first,
        };
        if children == 0 || stats.time_since_movestart_ms < first_eval_ms.saturating_add(SMART_PRUNING_TOLERANCE_MS) {
            return false;
        }
        let remaining = self.remaining_playouts(stats, hints, first_eval_ms);
        hints.update_remaining_playouts(remaining.max(0.0) as u64);
        if stats.batches_since_movestart < self.minimum_batches {
            return false;
        }
        let (best, second) = two_largest(&stats.edge_n);
        let stop = remaining < f64::from(best - second);
        if stop {
            self.last_reason =
                Some(format!("smart pruning: {remaining:.0} playouts left cannot close a gap of {}", best - second));
        }
        stop
    }
    fn stop_reason(&self) -> Option<String> {
        self.last_reason.clone()
    }
}

/// The largest and second-largest values (0 where missing).
fn two_largest(values: &[u32]) -> (u32, u32) {
    values.iter().fold((0, 0), |(first, second), &v| if v > first { (v, first) } else { (first, second.max(v)) })
}

/// Asks its members in order and stops at the first that says so; every member hears `on_search_done`.
#[derive(Default)]
pub struct ChainedStopper {
    members: Vec<Box<dyn Stopper>>,
    stopped_by: Option<usize>,
}

impl ChainedStopper {
    /// An empty chain (never stops).
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends a member; members are asked in the order they were added.
    pub fn push(&mut self, stopper: Box<dyn Stopper>) {
        self.members.push(stopper);
    }
    /// Number of members, for tests and diagnostics.
    pub fn len(&self) -> usize {
        self.members.len()
    }
    /// Whether the chain has no member.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

impl Stopper for ChainedStopper {
    fn should_stop(&mut self, stats: &IterationStats, hints: &mut Hints) -> bool {
        for (index, member) in self.members.iter_mut().enumerate() {
            if member.should_stop(stats, hints) {
                self.stopped_by = Some(index);
                return true;
            }
        }
        false
    }
    fn stop_reason(&self) -> Option<String> {
        self.stopped_by.and_then(|index| self.members[index].stop_reason())
    }
    fn playouts_left_at_start(&mut self, stats: &IterationStats) -> Option<u64> {
        self.members.iter_mut().filter_map(|member| member.playouts_left_at_start(stats)).min()
    }
    fn affordable_playouts(&mut self, stats: &IterationStats) -> Option<u64> {
        self.members.iter_mut().filter_map(|member| member.affordable_playouts(stats)).min()
    }
}
