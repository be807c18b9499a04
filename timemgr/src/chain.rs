//! Builds the per-`go` stopper chain the way lc0's common wrapper does (docs/lc0/stoppers.md §3.3).

use crate::managers::TimeManager;
use crate::search_stats::{GoParams, MoveContext, Stopper, UNLIMITED_PLAYOUTS};
use crate::stoppers::{
    ChainedStopper, DepthStopper, KldGainStopper, MateStopper, MemoryStopper, PlayoutsStopper, SmartPruningStopper,
    TimeLimitStopper, VisitsStopper,
};

/// The UCI options that shape the generic stoppers. The engine fills them from its options, where their
/// defaults (lc0's UCI-mode defaults) are declared.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CommonStopperOptions {
    /// `SmartPruningFactor` (0..10, 1.33 in UCI mode; 0 disables smart pruning).
    pub smart_pruning_factor: f32,
    /// `SmartPruningMinimumBatches` (0..10000).
    pub smart_pruning_minimum_batches: u32,
    /// `NodesAsPlayouts`: `go nodes` counts playouts of this search instead of root visits.
    pub nodes_as_playouts: bool,
    /// `MinimumKLDGainPerNode` (0..1, 0 disables the KLD-gain stopper).
    pub minimum_kld_gain_per_node: f32,
    /// `KLDGainAverageInterval` in nodes (1..10,000,000).
    pub kld_gain_average_interval: u64,
    /// `RamLimitMb`: the tree's size at which the search stops (0 = no limit).
    pub ram_limit_mb: u64,
}

impl CommonStopperOptions {
    /// No generic stopper beyond the limits `go` itself sets: no smart pruning, no KLD gain (`tm-plan`'s
    /// model search, which models early stops itself).
    pub fn go_limits_only() -> Self {
        Self {
            smart_pruning_factor: 0.0,
            smart_pruning_minimum_batches: 0,
            nodes_as_playouts: false,
            minimum_kld_gain_per_node: 0.0,
            kld_gain_average_interval: 1,
            ram_limit_mb: 0,
        }
    }
}

/// Builds the chain for one `go`: time manager, memory, playouts, visits, movetime, depth, mate, KLD gain, smart
/// pruning (last, so it sees every other member's hints). The move overhead comes from `ctx`.
pub fn build_stopper_chain(
    tm: Option<&mut dyn TimeManager>,
    go: &GoParams,
    ctx: &MoveContext,
    opts: &CommonStopperOptions,
) -> Box<dyn Stopper> {
    let mut chain = ChainedStopper::new();
    let ctx = MoveContext { smart_pruning: opts.smart_pruning_factor > 0.0, ..ctx.clone() };
    let mut manager_prunes = false;
    if let Some(stopper) = tm.and_then(|tm| tm.stopper(go, &ctx)) {
        manager_prunes = stopper.prunes_on_its_own_budget();
        chain.push(stopper);
    }
    if opts.ram_limit_mb > 0 {
        chain.push(Box::new(MemoryStopper::new(opts.ram_limit_mb)));
    }
    let publish_playouts = opts.smart_pruning_factor > 0.0;
    let visits_limit = match go.nodes {
        Some(nodes) if opts.nodes_as_playouts => {
            chain.push(Box::new(PlayoutsStopper::new(nodes, publish_playouts)));
            UNLIMITED_PLAYOUTS
        }
        Some(nodes) => nodes,
        None => UNLIMITED_PLAYOUTS,
    };
    chain.push(Box::new(VisitsStopper::new(visits_limit, publish_playouts)));
    let infinite = go.infinite || go.ponder || go.mate.is_some();
    if let Some(movetime) = go.movetime.filter(|_| !infinite) {
        chain.push(Box::new(TimeLimitStopper::new(movetime.saturating_sub(ctx.move_overhead_ms))));
    }
    if let Some(depth) = go.depth {
        chain.push(Box::new(DepthStopper::new(depth)));
    }
    if let Some(mate) = go.mate {
        chain.push(Box::new(MateStopper::new(mate)));
    }
    if !infinite {
        if opts.minimum_kld_gain_per_node > 0.0 {
            chain.push(Box::new(KldGainStopper::new(opts.minimum_kld_gain_per_node, opts.kld_gain_average_interval)));
        }
        if opts.smart_pruning_factor > 0.0 && !manager_prunes {
            chain.push(Box::new(SmartPruningStopper::new(
                opts.smart_pruning_factor,
                u64::from(opts.smart_pruning_minimum_batches),
            )));
        }
    }
    Box::new(chain)
}
