//! PUCT selection (docs/lc0/search.md §4.3), the moves-left utility (§4.9), the collision budget (§4.4) and the
//! choice of the best move (§4.8).

use super::fastmath::fast_log;
use super::node::{EdgeAndNode, Node};
use super::params::{Exploration, SearchParams};
use std::cmp::Ordering;

/// cpuct(N) = cpuct + factor · FastLog((N + base)/base), N = the parent's visits, with the root's parameters at the
/// root (lc0's `ComputeCpuct`).
pub fn cpuct(params: &SearchParams, parent_n: u32, at_root: bool) -> f32 {
    let exploration = params.exploration_at(at_root);
    let growth = if exploration.cpuct_factor == 0.0 {
        0.0
    } else {
        let base = exploration.cpuct_base;
        // Not fused in lc0's build, unlike the FastLog inside it: the growth reaches the sum through a branch.
        exploration.cpuct_factor * fast_log((parent_n as f32 + base) / base)
    };
    exploration.cpuct + growth
}

/// The collision allowance of one gather for `n = min(root N, remaining playouts)`.
pub fn collision_budget(params: &SearchParams, n: u64) -> u32 {
    let start = u64::from(params.max_collision_visits_scaling_start);
    let end = u64::from(params.max_collision_visits_scaling_end);
    if n >= end {
        return params.max_collision_visits;
    }
    if n <= start {
        return 1;
    }
    let fraction = (n - start) as f32 / (end - start) as f32;
    let budget =
        1.0 + (params.max_collision_visits as f32 - 1.0) * fraction.powf(params.max_collision_visits_scaling_power);
    (budget.round() as u32).min(params.max_collision_visits)
}

/// First-play urgency of a node's unvisited children (the root's own at the root, `at_root`).
pub fn fpu(params: &SearchParams, node: &Node, draw_score: f32, at_root: bool) -> f32 {
    fpu_given_visited_policy(params.exploration_at(at_root), node, draw_score, node.visited_policy())
}

/// The same for a caller that has summed [`Node::visited_policy`] in its own walk of the children.
pub fn fpu_given_visited_policy(exploration: &Exploration, node: &Node, draw_score: f32, visited_policy: f32) -> f32 {
    if exploration.fpu_absolute {
        exploration.fpu_value
    } else {
        // −Q − value·√P in one fused multiply-add, as lc0's build computes it.
        (-exploration.fpu_value).mul_add(visited_policy.sqrt(), -node.q(-draw_score))
    }
}

/// The moves-left utility for one parent: shorter wins and longer losses score higher (docs/lc0/search.md §4.9).
#[derive(Clone, Copy, Debug)]
pub struct MovesLeftUtility<'a> {
    params: &'a SearchParams,
    parent_m: f32,
    active: bool,
}

impl<'a> MovesLeftUtility<'a> {
    /// The utility below `parent`; inactive without a moves-left head or when the parent's |Q| is small.
    pub fn new(params: &'a SearchParams, parent: &Node, has_moves_left: bool) -> Self {
        let active = has_moves_left && (parent.wl as f32).abs() > params.moves_left_threshold;
        Self { params, parent_m: parent.m, active }
    }

    /// `addend` plus the moves-left utility of an edge whose Q is `q` (none for unvisited edges), as lc0's build
    /// computes `addend + GetMUtility(edge, q)`: the quadratic's terms fused, the utility rounded before the sum
    /// (docs/lc0/search.md §4.15). The search adds it to Q, VerboseMoveStats to Q + U.
    pub fn plus_utility(&self, edge: EdgeAndNode<'_>, q: f32, addend: f32) -> f32 {
        if !self.active || edge.n() == 0 {
            return addend + 0.0;
        }
        let p = self.params;
        let child_m = edge.m(0.0);
        let sign = if -q < 0.0 { -1.0 } else { 1.0 };
        let utility = (p.moves_left_slope * (child_m - self.parent_m))
            .clamp(-p.moves_left_max_effect, p.moves_left_max_effect)
            * sign;
        let threshold = p.moves_left_threshold;
        let scaled_q =
            if threshold > 0.0 && threshold < 1.0 { (q.abs() - threshold).max(0.0) / (1.0 - threshold) } else { q };
        let linear = p.moves_left_scaled_factor.mul_add(scaled_q.abs(), p.moves_left_constant_factor);
        let scale = (p.moves_left_quadratic_factor * scaled_q).mul_add(scaled_q, linear);
        addend + utility * scale
    }
}

/// The exploration multiplier cpuct(N) · sqrt(max(N − 1, 1)).
pub fn puct_multiplier(params: &SearchParams, node: &Node, at_root: bool) -> f32 {
    // lc0 takes std::sqrt of an unsigned count, which is the double overload, and multiplies in double.
    (f64::from(cpuct(params, node.n, at_root)) * f64::from(node.children_visits().max(1)).sqrt()) as f32
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum EdgeRank {
    TerminalLoss,
    TablebaseLoss,
    NonTerminal,
    TablebaseWin,
    TerminalWin,
}

fn rank(edge: EdgeAndNode<'_>) -> EdgeRank {
    let wl = edge.q(0.0);
    let tablebase = edge.is_tablebase_terminal();
    if !edge.is_terminal() || wl == 0.0 {
        EdgeRank::NonTerminal
    } else if wl < 0.0 {
        if tablebase {
            EdgeRank::TablebaseLoss
        } else {
            EdgeRank::TerminalLoss
        }
    } else if tablebase {
        EdgeRank::TablebaseWin
    } else {
        EdgeRank::TerminalWin
    }
}

/// lc0's order of preference between two children, their Q with `draw_score` for the player to move: `Less`
/// means `a` is better.
pub fn compare_for_best(a: EdgeAndNode<'_>, b: EdgeAndNode<'_>, draw_score: f32) -> Ordering {
    let (rank_a, rank_b) = (rank(a), rank(b));
    if rank_a != rank_b {
        return rank_b.cmp(&rank_a);
    }
    if rank_a == EdgeRank::NonTerminal && a.is_terminal() && b.is_terminal() {
        // Two proven draws: one by the rules before one from the tables, then the shorter.
        let (tb_a, tb_b) = (a.is_tablebase_terminal(), b.is_tablebase_terminal());
        if tb_a != tb_b {
            return tb_a.cmp(&tb_b);
        }
        return a.m(0.0).total_cmp(&b.m(0.0));
    }
    match rank_a {
        EdgeRank::NonTerminal => b
            .n()
            .cmp(&a.n())
            .then_with(|| b.q_with_draw(0.0, draw_score).total_cmp(&a.q_with_draw(0.0, draw_score)))
            .then_with(|| b.prior.cmp(&a.prior)),
        // Both proven wins: the shorter; both proven losses: the longer.
        EdgeRank::TablebaseWin | EdgeRank::TerminalWin => a.m(0.0).total_cmp(&b.m(0.0)),
        EdgeRank::TablebaseLoss | EdgeRank::TerminalLoss => b.m(0.0).total_cmp(&a.m(0.0)),
    }
}

/// The index of the best child by [`compare_for_best`] among those `allowed` (the first on ties).
pub fn best_child(node: &Node, draw_score: f32, allowed: impl Fn(usize) -> bool) -> Option<usize> {
    let mut best: Option<usize> = None;
    for index in (0..node.edges.len()).filter(|&i| allowed(i)) {
        match best {
            Some(current) if compare_for_best(node.edge(index), node.edge(current), draw_score) != Ordering::Less => {}
            _ => best = Some(index),
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::node::{Edge, Terminal};
    use shakmaty::{Chess, Position};

    /// A parent whose children are `(wl, m, n, terminal kind)` from the mover's view, all with prior 0.1.
    fn parent_of(children: &[(f64, f32, u32, Terminal)]) -> Node {
        let moves = Chess::default().legal_moves();
        let edges: Vec<Edge> = (0..children.len()).map(|i| Edge::new(&moves[i], 0.1)).collect();
        let mut parent = Node { edges: edges.into_boxed_slice().into(), ..Node::default() };
        for (index, &(wl, m, n, terminal)) in children.iter().enumerate() {
            let mut child = Node { n, ..Node::default() };
            if terminal == Terminal::No {
                child.wl = wl;
                child.m = m;
            } else {
                child.make_terminal(wl as i8, m, terminal);
            }
            parent.set_child(index, child);
        }
        parent
    }

    #[test]
    fn the_best_child_follows_lc0s_ranks_then_shorter_wins_and_rule_draws() {
        use Terminal::{EndOfGame, No, Tablebase};
        // A win over the board beats a tablebase win, which beats a well-visited ordinary move.
        let ranks = [(1.0, 9.0, 1, EndOfGame), (1.0, 1.0, 50, Tablebase), (0.9, 5.0, 100, No)];
        assert_eq!(best_child(&parent_of(&ranks), 0.0, |_| true), Some(0));
        assert_eq!(best_child(&parent_of(&ranks), 0.0, |i| i != 0), Some(1));
        // Two proven wins: the shorter, whatever the visits (lc0 compares M only).
        let wins = [(1.0, 9.0, 10, EndOfGame), (1.0, 3.0, 1, EndOfGame)];
        assert_eq!(best_child(&parent_of(&wins), 0.0, |_| true), Some(1));
        // Two proven losses: the longer.
        let losses = [(-1.0, 3.0, 10, Tablebase), (-1.0, 9.0, 1, Tablebase)];
        assert_eq!(best_child(&parent_of(&losses), 0.0, |_| true), Some(1));
        // A tablebase loss is still better than a loss over the board.
        let mixed = [(-1.0, 9.0, 1, EndOfGame), (-1.0, 1.0, 1, Tablebase)];
        assert_eq!(best_child(&parent_of(&mixed), 0.0, |_| true), Some(1));
        // Two proven draws: the one by the rules before the one from the tables, even if longer.
        let draws = [(0.0, 2.0, 5, Tablebase), (0.0, 8.0, 5, EndOfGame)];
        assert_eq!(best_child(&parent_of(&draws), 0.0, |_| true), Some(1));
    }

    #[test]
    fn moves_left_utility_favours_the_shorter_win_by_the_hand_worked_amount() {
        let params = crate::options::EngineOptions::default().search_params();
        let parent = Node { wl: 0.9, m: 20.0, n: 10, ..Node::default() };
        let mut holder = Node {
            edges: vec![Edge::new(&Chess::default().legal_moves()[0], 0.5)].into_boxed_slice().into(),
            ..Node::default()
        };
        holder.set_child(0, Node { wl: 0.9, m: 10.0, n: 5, ..Node::default() });
        let edge = holder.edge(0);
        // clamp(0.0027·(10 − 20)) = −0.027, times sign(−0.9) = +0.027; q' = (0.9 − 0.8)/0.2 = 0.5;
        // scale 1.6521·0.5 − 0.6521·0.25 = 0.663025; utility 0.017901675.
        let utility = MovesLeftUtility::new(&params, &parent, true).plus_utility(edge, 0.9, 0.9) - 0.9;
        assert!((utility - 0.017_901_675).abs() < 1e-6, "{utility}");
        assert_eq!(MovesLeftUtility::new(&params, &parent, false).plus_utility(edge, 0.9, 0.9), 0.9);
        let quiet_parent = Node { wl: 0.5, ..parent };
        assert_eq!(MovesLeftUtility::new(&params, &quiet_parent, true).plus_utility(edge, 0.9, 0.9), 0.9);
    }

    #[test]
    fn collision_budget_examples_from_the_notes() {
        let params = crate::options::EngineOptions::default().search_params();
        for (n, expected) in
            [(0, 1), (28, 1), (100, 7), (1000, 154), (10_000, 2819), (100_000, 50_273), (145_000, 80_000)]
        {
            assert_eq!(collision_budget(&params, n), expected, "n = {n}");
        }
    }
}
