//! What the search reports: iteration statistics for the stoppers (docs/lc0/stoppers.md §3.1, docs/lc0/smooth.md
//! §1.6.2), the best move, the principal variation, `info` lines and verbose move statistics.

use super::draw_score::DrawScore;
use super::info::{mate_moves, shown_value, wdl_permille, InfoLine, Score, ScoreType};
use super::node::Node;
use super::params::SearchParams;
use super::select::{best_child, compare_for_best, fpu, MovesLeftUtility};
use super::std_sort::partial_sort;
use super::temperature::draw_root_edge;
use super::wdl_rescale::SearchContempt;
use crate::position::PackedMove;
use rand::Rng;
use shakmaty::{Chess, Move, Position};
use std::cmp::Ordering;
use timemgr::search_stats::{IterationStats, TimeUsageHint};

/// Counters of one search.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Playouts (backed-up visits) of this search.
    pub playouts: u64,
    /// Of `playouts`, those backed up out of order by gathers whose batch is still being computed: the
    /// stoppers count them once the batch is backed up, so that a search at fixed nodes stops at the same
    /// count whether or not the watchdog polls while the last batch computes.
    pub pending_playouts: u64,
    /// Iterations that backed something up.
    pub batches: u64,
    /// Sum of the depths of all playouts (root = 1).
    pub cumulative_depth: u64,
    /// The deepest playout.
    pub max_depth: u32,
    /// Visits of the reused root.
    pub reused_visits: u64,
    /// Positions the network evaluated for backed-up visits (cache hits and proven nodes excluded).
    pub network_evaluations: u64,
    /// Tablebase probes that gave a result (lc0's `tbhits`).
    pub tb_hits: u64,
    /// The root's moves-left estimate in plies: the reused root's running mean, else the root's own
    /// evaluation once it is backed up (read only for networks with a moves-left head).
    pub root_moves_left: Option<f32>,
}

/// The root's children a search may choose: all, or those of `searchmoves`.
#[derive(Clone, Debug, Default)]
pub struct RootFilter {
    moves: Vec<PackedMove>,
}

impl RootFilter {
    /// A filter from UCI `searchmoves` (empty = every move).
    pub fn new(moves: &[Move]) -> Self {
        Self { moves: moves.iter().map(PackedMove::pack).collect() }
    }
    /// Whether every move may be searched (no `searchmoves`).
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
    /// Whether the root move `mv` may be searched and played.
    pub fn allows(&self, mv: PackedMove) -> bool {
        self.moves.is_empty() || self.moves.contains(&mv)
    }
}

/// The best root child by lc0's rule among the allowed moves.
pub fn best_root_edge(root: &Node, filter: &RootFilter, draw_score: DrawScore) -> Option<usize> {
    best_child(root, draw_score.at(0), |i| filter.allows(root.edges[i].mv))
}

/// The principal variation as lc0 prints it: best children while their node exists, ending with at most one
/// edge that has no node yet (chosen by prior). Its second move is the ponder move.
pub fn principal_variation(
    root: &Node,
    root_position: &Chess,
    filter: &RootFilter,
    draw_score: DrawScore,
) -> Vec<Move> {
    best_root_edge(root, filter, draw_score)
        .map_or_else(Vec::new, |first| variation(root, root_position, first, draw_score))
}

/// The variation whose first move is played: the principal variation, or with a temperature (lc0's
/// `EnsureBestMoveKnown`) a root move drawn by [`draw_root_edge`] and the best moves after it.
pub fn played_variation(
    root: &Node,
    root_position: &Chess,
    filter: &RootFilter,
    draw_score: DrawScore,
    params: &SearchParams,
) -> Vec<Move> {
    let settings = &params.move_temperature;
    let temperature = settings.at(root_position.fullmoves().get() - 1);
    if temperature > 0.0 {
        let root_draw_score = draw_score.at(0);
        let fpu = fpu(params, root, root_draw_score, true);
        let uniform = |sum: f32| (rand::rng().random::<f64>() * f64::from(sum)) as f32;
        let allows = |mv| filter.allows(mv);
        if let Some(first) = draw_root_edge(root, allows, temperature, settings, fpu, root_draw_score, uniform) {
            return variation(root, root_position, first, draw_score);
        }
    }
    principal_variation(root, root_position, filter, draw_score)
}

/// The variation that starts with the root's edge `first` and follows the best children from there.
fn variation(root: &Node, root_position: &Chess, first: usize, draw_score: DrawScore) -> Vec<Move> {
    let mut position = root_position.clone();
    let mut pv = Vec::new();
    let mut node = root;
    let mut index = Some(first);
    while let Some(i) = index {
        let mv = node.edges[i].mv.unpack(position.board());
        pv.push(mv);
        let Some(child) = node.child(i) else { break };
        position.play_unchecked(mv);
        node = child;
        index = best_child(node, draw_score.at(pv.len()), |_| true);
    }
    pv
}

/// The statistics a stopper sees, except the two time fields, which the caller fills from its clock.
pub fn iteration_stats(
    root: &Node,
    progress: &Progress,
    params: &SearchParams,
    has_moves_left: bool,
    draw_score: DrawScore,
) -> IterationStats {
    let mut stats = IterationStats {
        total_nodes: progress.playouts - progress.pending_playouts + progress.reused_visits,
        nodes_since_movestart: progress.playouts - progress.pending_playouts,
        batches_since_movestart: progress.batches,
        average_depth: (progress.cumulative_depth / progress.playouts.max(1)) as u32,
        may_resign: true,
        root_moves_left_plies: progress.root_moves_left.filter(|_| has_moves_left),
        ..IterationStats::default()
    };
    if root.n == 0 {
        return stats;
    }
    // lc0 takes the odd-depth draw score here (GetDrawScore(true)), unlike everywhere else at the root.
    let stats_draw_score = draw_score.at(1);
    let root_fpu = fpu(params, root, stats_draw_score, true);
    let moves_left = MovesLeftUtility::new(params, root, has_moves_left);
    let mut max_n = 0;
    let mut best_qu = -1000.0f32;
    let mut most_visited_is_best = true;
    for edge in root.edges_and_nodes() {
        let n = edge.n();
        stats.edge_n.push(n);
        let wl = edge.q(0.0);
        if n > 0 && edge.is_terminal() {
            if wl > 0.0 {
                stats.win_found = true;
                if !edge.is_tablebase_terminal() {
                    let depth = (edge.m(0.0).round() / 2.0) as u32 + 1;
                    stats.mate_depth = Some(stats.mate_depth.map_or(depth, |d| d.min(depth)));
                }
            } else if wl < 0.0 {
                stats.num_losing_edges += 1;
            }
        }
        let q = edge.q_with_draw(root_fpu, stats_draw_score);
        if n > 0 && q > -0.98 {
            stats.may_resign = false;
        }
        let qu = moves_left.plus_utility(edge, q, q);
        if n > max_n {
            max_n = n;
            most_visited_is_best = false;
        }
        if qu >= best_qu {
            most_visited_is_best = n == max_n;
            best_qu = qu;
        }
    }
    if !most_visited_is_best {
        stats.time_usage_hint = TimeUsageHint::NeedMoreTime;
    }
    stats
}

/// Everything an `info` line needs besides the tree.
pub struct InfoContext<'a> {
    /// Search counters.
    pub progress: &'a Progress,
    /// The root move filter.
    pub filter: &'a RootFilter,
    /// The root's position, against which the tree's moves are unpacked.
    pub root_position: &'a Chess,
    /// Milliseconds since the move clock started.
    pub time_ms: i64,
    /// Milliseconds since the first batch (0 before it).
    pub since_first_batch_ms: i64,
    /// Whether the network has a WDL head.
    pub has_wdl: bool,
    /// Whether the network has a moves-left head.
    pub has_moves_left: bool,
    /// Tree memory in permille of the RAM limit, when one is set.
    pub hashfull: Option<u32>,
    /// Lines to send (MultiPV).
    pub multipv: usize,
    /// What the score shows.
    pub score_type: ScoreType,
    /// The search's WDL rescaling, inverted for display.
    pub contempt: SearchContempt,
    /// What a draw is worth at each depth.
    pub draw_score: DrawScore,
    /// Each line's `nodes` are its first move's visits instead of the search's total (lc0's `PerPVCounters`).
    pub per_pv_counters: bool,
}

/// The root's children in lc0's best-move order (§4.8) among the allowed moves, the first `count` of them, ranked
/// as lc0 ranks its MultiPV lines (`GetBestChildrenNoTemperature`: libstdc++'s std::partial_sort, which puts equal
/// children in an order of its own, so that lc0's first line need not show its best move); none before the root
/// has a visit.
///
/// lc0's order is not total where terminal draws meet other moves (two terminals compare by M, a terminal and a
/// non-terminal by N). Rust's sort panics when it sees that, which killed the search thread in a game of the
/// 10+0.1 SPRT (EXPERIMENTS.md); libstdc++'s heap operations, reproduced here, take the order as it comes.
pub fn best_root_edges(root: &Node, filter: &RootFilter, draw_score: DrawScore, count: usize) -> Vec<usize> {
    if root.n == 0 {
        return Vec::new();
    }
    let draw_score = draw_score.at(0);
    let mut ranked: Vec<usize> = (0..root.edges.len()).filter(|&i| filter.allows(root.edges[i].mv)).collect();
    let preferred = |&a: &usize, &b: &usize| compare_for_best(root.edge(a), root.edge(b), draw_score) == Ordering::Less;
    partial_sort(&mut ranked, count, &preferred);
    ranked.truncate(count);
    ranked
}

/// The `info` lines for the current tree: one per MultiPV rank, each scored by its own first move, as lc0's
/// `SendUciInfo`; a root without visits gives one line scored by the root itself.
pub fn info_lines(root: &Node, context: &InfoContext<'_>) -> Vec<InfoLine> {
    let edges = best_root_edges(root, context.filter, context.draw_score, context.multipv.max(1));
    if edges.is_empty() {
        return vec![line_for(root, None, context)];
    }
    edges
        .iter()
        .enumerate()
        .map(|(rank, &index)| {
            let mut line = line_for(root, Some(index), context);
            line.multipv = (context.multipv > 1).then_some(rank + 1);
            line
        })
        .collect()
}

fn line_for(root: &Node, edge_index: Option<usize>, context: &InfoContext<'_>) -> InfoLine {
    let progress = context.progress;
    let edge = edge_index.map(|i| root.edge(i));
    let default_wl = -(root.wl as f32);
    let draw_score = context.draw_score.at(0);
    let default_q = -root.q(-draw_score);
    let q = edge.map_or(default_q, |edge| edge.q_with_draw(default_q, draw_score));
    let (wl, d, m, terminal, tablebase) = match edge {
        Some(edge) => {
            (edge.q(default_wl), edge.d(root.d), edge.m(0.0), edge.is_terminal(), edge.is_tablebase_terminal())
        }
        None => (default_wl, root.d, 0.0, false, false),
    };
    let shown = shown_value(context.score_type, wl, d, q, context.has_wdl, &context.contempt);
    let score = if terminal && shown.wl != 0.0 {
        Score::Mate(mate_moves(shown.wl, m, tablebase))
    } else {
        Score::Cp(shown.score)
    };
    let moves_left = context.has_moves_left.then(|| {
        let m = edge.map_or(1.0 + root.m, |edge| edge.m(1.0 + root.m));
        ((1.0 + m) / 2.0) as u32
    });
    let per_second =
        |count: u64| (context.since_first_batch_ms > 0).then(|| count * 1000 / context.since_first_batch_ms as u64);
    let pv = match edge_index {
        Some(index) => variation(root, context.root_position, index, context.draw_score),
        None => Vec::new(),
    };
    InfoLine {
        depth: ((progress.cumulative_depth / progress.playouts.max(1)) as u32).max(1),
        seldepth: progress.max_depth,
        time_ms: context.time_ms,
        nodes: match edge {
            Some(edge) if context.per_pv_counters => u64::from(edge.n()),
            _ => progress.playouts + progress.reused_visits,
        },
        score,
        wdl: wdl_permille(shown.wl, shown.d),
        moves_left,
        hashfull: context.hashfull,
        nps: per_second(progress.playouts),
        eps: per_second(progress.network_evaluations),
        tb_hits: progress.tb_hits,
        multipv: None,
        pv,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::node::{Edge, Terminal};
    use shakmaty::{Chess, Position};

    #[test]
    fn best_root_edges_rank_a_cycle_of_terminal_draws_without_panicking() {
        // lc0's order: two terminal draws by M (a before b), a terminal and a non-terminal by N (b before c,
        // c before a): a cycle, which made Rust's sort panic in a game of the SPRT.
        let moves = Chess::default().legal_moves();
        let edge = |index: usize, n: u32, m: f32, terminal: Terminal| {
            let child = Node { n, m, wl: 0.0, terminal, ..Node::default() };
            (Edge::new(&moves[index], 0.1), Some(child))
        };
        let root = Node::with_edges(
            vec![
                edge(0, 5, 1.0, Terminal::EndOfGame),
                edge(1, 10, 2.0, Terminal::EndOfGame),
                edge(2, 7, 9.0, Terminal::No),
            ],
            Node { n: 22, ..Node::default() },
        );
        // g++'s std::partial_sort of three items where a is preferred to b, b to c and c to a gives b, c, a; of the
        // best one, c, as the bestmove best_child picks (a program on g++ 12.2's <algorithm> printed both).
        assert_eq!(best_root_edges(&root, &RootFilter::new(&[]), DrawScore::default(), 3), vec![1, 2, 0]);
        let best = best_child(&root, 0.0, |_| true);
        assert_eq!(best_root_edges(&root, &RootFilter::new(&[]), DrawScore::default(), 1), vec![best.unwrap()]);
    }

    /// A child's (N, WL, M, proven).
    type Child = (u32, f64, f32, bool);

    /// A root with one edge per (prior, child) pair.
    fn root(children: &[(f32, Option<Child>)]) -> Node {
        let moves = Chess::default().legal_moves();
        let edges: Vec<(Edge, Option<Node>)> = children
            .iter()
            .zip(moves.iter())
            .map(|(&(p, child), mv)| {
                let child = child.map(|(n, wl, m, terminal)| Node {
                    n,
                    wl,
                    m,
                    terminal: if terminal { Terminal::EndOfGame } else { Terminal::No },
                    ..Node::default()
                });
                (Edge::new(mv, p), child)
            })
            .collect();
        let n = 1 + children.iter().filter_map(|c| c.1.map(|x| x.0)).sum::<u32>();
        Node::with_edges(edges, Node { n, ..Node::default() })
    }

    fn stats_of(node: &Node) -> IterationStats {
        let progress = Progress { playouts: 10, cumulative_depth: 25, ..Progress::default() };
        iteration_stats(
            node,
            &progress,
            &crate::options::EngineOptions::default().search_params(),
            false,
            DrawScore::default(),
        )
    }

    #[test]
    fn proven_children_fill_win_mate_and_losing_counts() {
        let node = root(&[
            (0.5, Some((3, 1.0, 2.0, true))),
            (0.3, Some((2, -1.0, 1.0, true))),
            (0.2, Some((4, 1.0, 0.0, true))),
        ]);
        let stats = stats_of(&node);
        assert_eq!(stats.edge_n, vec![3, 2, 4]);
        assert!(stats.win_found);
        assert_eq!(stats.mate_depth, Some(1));
        assert_eq!(stats.num_losing_edges, 1);
        assert!(!stats.may_resign);
        assert_eq!(stats.average_depth, 2);
    }

    #[test]
    fn may_resign_when_every_visited_child_is_below_minus_0_98() {
        let node = root(&[(0.5, Some((3, -0.99, 0.0, false))), (0.5, None)]);
        assert!(stats_of(&node).may_resign);
    }

    #[test]
    fn need_more_time_when_the_most_visited_child_is_not_the_best_q() {
        let agree = root(&[(0.5, Some((10, 0.2, 0.0, false))), (0.3, Some((5, 0.1, 0.0, false)))]);
        assert_eq!(stats_of(&agree).time_usage_hint, TimeUsageHint::Normal);
        let disagree = root(&[(0.5, Some((10, 0.1, 0.0, false))), (0.3, Some((5, 0.2, 0.0, false)))]);
        assert_eq!(stats_of(&disagree).time_usage_hint, TimeUsageHint::NeedMoreTime);
        // Equal Q: the later child wins the tie, so the most visited one is no longer the best.
        let tie = root(&[(0.5, Some((10, 0.1, 0.0, false))), (0.3, Some((5, 0.1, 0.0, false)))]);
        assert_eq!(stats_of(&tie).time_usage_hint, TimeUsageHint::NeedMoreTime);
    }

    #[test]
    fn best_move_prefers_proven_wins_then_visits_then_q_then_prior() {
        let node = root(&[
            (0.6, Some((50, 0.3, 0.0, false))),
            (0.1, Some((2, 1.0, 4.0, true))),
            (0.1, Some((2, 1.0, 2.0, true))),
        ]);
        // Both wins have N = 2; the shorter one (M = 2) is preferred.
        assert_eq!(best_root_edge(&node, &RootFilter::default(), DrawScore::default()), Some(2));
        let node = root(&[(0.6, Some((50, 0.3, 0.0, false))), (0.3, Some((50, 0.4, 0.0, false)))]);
        assert_eq!(best_root_edge(&node, &RootFilter::default(), DrawScore::default()), Some(1));
        let node = root(&[(0.6, Some((50, 0.3, 0.0, false))), (0.3, Some((60, -1.0, 3.0, true)))]);
        assert_eq!(
            best_root_edge(&node, &RootFilter::default(), DrawScore::default()),
            Some(0),
            "a proven loss is last whatever its N"
        );
    }
}
