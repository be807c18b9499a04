//! PUCT selection (LC0-NOTES §4.3), the moves-left utility (§4.9), the collision budget (§4.4) and the
//! choice of the best move (§4.8).

use super::fastmath::fast_log;
use super::node::{EdgeAndNode, Node};
use super::params::SearchParams;
use std::cmp::Ordering;

/// cpuct(N) = cpuct + factor · FastLog((N + base)/base), N = the parent's visits.
pub fn cpuct(params: &SearchParams, parent_n: u32) -> f32 {
    let growth = if params.cpuct_factor == 0.0 {
        0.0
    } else {
        params.cpuct_factor * fast_log((parent_n as f32 + params.cpuct_base) / params.cpuct_base)
    };
    params.cpuct + growth
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
    let budget = 1.0
        + (params.max_collision_visits as f32 - 1.0)
            * fraction.powf(params.max_collision_visits_scaling_power);
    (budget.round() as u32).min(params.max_collision_visits)
}

/// First-play urgency of a node's unvisited children.
pub fn fpu(params: &SearchParams, node: &Node) -> f32 {
    if params.fpu_absolute {
        params.fpu_value
    } else {
        -(node.wl as f32) - params.fpu_value * node.visited_policy().sqrt()
    }
}

/// The moves-left utility for one parent: shorter wins and longer losses score higher (LC0-NOTES §4.9).
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
        Self {
            params,
            parent_m: parent.m,
            active,
        }
    }

    /// The utility of an edge whose Q is `q` (0 for unvisited edges).
    pub fn of(&self, edge: EdgeAndNode<'_>, q: f32) -> f32 {
        if !self.active || edge.n() == 0 {
            return 0.0;
        }
        let p = self.params;
        let child_m = edge.m(0.0);
        let sign = if -q < 0.0 { -1.0 } else { 1.0 };
        let mut utility = (p.moves_left_slope * (child_m - self.parent_m))
            .clamp(-p.moves_left_max_effect, p.moves_left_max_effect)
            * sign;
        let threshold = p.moves_left_threshold;
        let scaled_q = if threshold > 0.0 && threshold < 1.0 {
            (q.abs() - threshold).max(0.0) / (1.0 - threshold)
        } else {
            q
        };
        utility *= p.moves_left_constant_factor
            + p.moves_left_scaled_factor * scaled_q.abs()
            + p.moves_left_quadratic_factor * scaled_q * scaled_q;
        utility
    }
}

/// The exploration multiplier cpuct(N) · sqrt(max(N − 1, 1)).
pub fn puct_multiplier(params: &SearchParams, node: &Node) -> f32 {
    // lc0 takes std::sqrt of an unsigned count, which is the double overload, and multiplies in double.
    (f64::from(cpuct(params, node.n)) * f64::from(node.children_visits().max(1)).sqrt()) as f32
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum EdgeRank {
    TerminalLoss,
    NonTerminal,
    TerminalWin,
}

fn rank(edge: EdgeAndNode<'_>) -> EdgeRank {
    let wl = edge.q(0.0);
    if !edge.is_terminal() || wl == 0.0 {
        EdgeRank::NonTerminal
    } else if wl < 0.0 {
        EdgeRank::TerminalLoss
    } else {
        EdgeRank::TerminalWin
    }
}

/// lc0's order of preference between two children: `Less` means `a` is better.
pub fn compare_for_best(a: EdgeAndNode<'_>, b: EdgeAndNode<'_>) -> Ordering {
    let (rank_a, rank_b) = (rank(a), rank(b));
    if rank_a != rank_b {
        return rank_b.cmp(&rank_a);
    }
    if rank_a == EdgeRank::NonTerminal && a.is_terminal() && b.is_terminal() {
        return a.m(0.0).total_cmp(&b.m(0.0));
    }
    if a.n() != b.n() {
        return b.n().cmp(&a.n());
    }
    if a.q(0.0) != b.q(0.0) {
        return b.q(0.0).total_cmp(&a.q(0.0));
    }
    if a.prior != b.prior {
        return b.prior.cmp(&a.prior);
    }
    match rank_a {
        EdgeRank::TerminalWin => a.m(0.0).total_cmp(&b.m(0.0)),
        _ => b.m(0.0).total_cmp(&a.m(0.0)),
    }
}

/// The index of the best child by [`compare_for_best`] among those `allowed` (the first on ties).
pub fn best_child(node: &Node, allowed: impl Fn(usize) -> bool) -> Option<usize> {
    let mut best: Option<usize> = None;
    for index in (0..node.edges.len()).filter(|&i| allowed(i)) {
        match best {
            Some(current)
                if compare_for_best(node.edge(index), node.edge(current)) != Ordering::Less => {
            }
            _ => best = Some(index),
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::node::Edge;
    use shakmaty::{Chess, Position};

    #[test]
    fn moves_left_utility_favours_the_shorter_win_by_the_hand_worked_amount() {
        let params = SearchParams::default();
        let parent = Node {
            wl: 0.9,
            m: 20.0,
            n: 10,
            ..Node::default()
        };
        let mut holder = Node {
            edges: vec![Edge::new(&Chess::default().legal_moves()[0], 0.5)].into_boxed_slice().into(),
            ..Node::default()
        };
        holder.set_child(
            0,
            Node {
                wl: 0.9,
                m: 10.0,
                n: 5,
                ..Node::default()
            },
        );
        let edge = holder.edge(0);
        // clamp(0.0027·(10 − 20)) = −0.027, times sign(−0.9) = +0.027; q' = (0.9 − 0.8)/0.2 = 0.5;
        // scale 1.6521·0.5 − 0.6521·0.25 = 0.663025; utility 0.017901675.
        let utility = MovesLeftUtility::new(&params, &parent, true).of(edge, 0.9);
        assert!((utility - 0.017_901_675).abs() < 1e-6, "{utility}");
        assert_eq!(
            MovesLeftUtility::new(&params, &parent, false).of(edge, 0.9),
            0.0
        );
        let quiet_parent = Node { wl: 0.5, ..parent };
        assert_eq!(
            MovesLeftUtility::new(&params, &quiet_parent, true).of(edge, 0.9),
            0.0
        );
    }

    #[test]
    fn collision_budget_examples_from_the_notes() {
        let params = SearchParams::default();
        for (n, expected) in [
            (0, 1),
            (28, 1),
            (100, 7),
            (1000, 154),
            (10_000, 2819),
            (100_000, 50_273),
            (145_000, 80_000),
        ] {
            assert_eq!(collision_budget(&params, n), expected, "n = {n}");
        }
    }
}
