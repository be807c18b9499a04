//! lc0's `VerboseMoveStats` lines: one per root move, least visited (then lowest Q + U) first, then one for the
//! root node.

use super::draw_score::DrawScore;
use super::node::{EdgeAndNode, Node, Terminal};
use super::params::SearchParams;
use super::select::{fpu, puct_multiplier, MovesLeftUtility};
use super::std_sort::std_sort;
use super::wdl_rescale::SearchContempt;
use crate::position::uci_move;
use nn::encoder::BoardTransform;
use nn::policy_map::{move_policy_index, TransposedMoves};
use shakmaty::{Chess, Position};

/// The statistics lines for the root, whose moves are unpacked against `root_position`.
pub fn verbose_move_stats(
    root: &Node,
    root_position: &Chess,
    params: &SearchParams,
    has_moves_left: bool,
    contempt: &SearchContempt,
    draw_score: DrawScore,
) -> Vec<String> {
    node_lines(root, root_position, params, has_moves_left, contempt, draw_score.at(0), true)
}

/// The same lines for the node under the root's edge `index` (lc0 logs them for the move played), its draw score
/// and exploration those of odd depth; `None` where the edge has no node.
pub fn verbose_move_stats_below(
    root: &Node,
    root_position: &Chess,
    index: usize,
    params: &SearchParams,
    has_moves_left: bool,
    contempt: &SearchContempt,
    draw_score: DrawScore,
) -> Option<Vec<String>> {
    let node = root.child(index)?;
    let mut position = root_position.clone();
    position.play_unchecked(root.edges[index].mv.unpack(root_position.board()));
    Some(node_lines(node, &position, params, has_moves_left, contempt, draw_score.at(1), false))
}

/// One line per child of `node` (the root or a child of it, `at_root` saying which), then one for the node itself.
fn node_lines(
    node: &Node,
    position: &Chess,
    params: &SearchParams,
    has_moves_left: bool,
    contempt: &SearchContempt,
    draw_score: f32,
    at_root: bool,
) -> Vec<String> {
    let node_fpu = fpu(params, node, draw_score, at_root);
    let puct_mult = puct_multiplier(params, node, at_root);
    let moves_left = MovesLeftUtility::new(params, node, has_moves_left);
    let u = |edge: EdgeAndNode<'_>| edge.p() * puct_mult / (1 + edge.n_started()) as f32;
    // lc0 sorts (visits, Q + U, edge) tuples with std::sort, which leaves ties where libstdc++'s sort does.
    let score = |edge: EdgeAndNode<'_>| edge.q_with_draw(node_fpu, draw_score) + u(edge);
    let mut edges: Vec<(u32, f32, EdgeAndNode<'_>)> = node.edges_and_nodes().map(|e| (e.n(), score(e), e)).collect();
    std_sort(&mut edges, |a, b| a.0 < b.0 || (a.0 == b.0 && a.1 < b.1));
    let mut lines: Vec<String> = edges
        .into_iter()
        .map(|(_, _, edge)| {
            let child = edge.node;
            let q = edge.q_with_draw(node_fpu, draw_score);
            // lc0 left-aligns a move's policy index and right-aligns the node's edge count; it shows
            // the untransformed index (`MoveToNNIndex(move, 0)`) whatever the input format.
            let mv = edge.mv.unpack(position.board());
            let index = move_policy_index(&mv, position.turn(), BoardTransform::IDENTITY, TransposedMoves::AsPlanes)
                .map_or_else(|| format!("{:<4}", "-"), |i| format!("{i:<4}"));
            let mut line = head(
                // lc0 writes these moves as in Chess960, castling as king takes rook.
                &uci_move(&mv, true),
                &index,
                edge.n(),
                child.map_or(0, |c| c.n_in_flight),
                edge.p(),
            );
            // lc0 shows a child's values wherever it has a node, visited or not: once created, and under a solid
            // node for every move (an unvisited one's WL, D and M all 0).
            let values = match child {
                Some(c) => Some((c.wl as f32, c.d, c.m)),
                None if node.solid() => Some((0.0, 0.0, 0.0)),
                None => None,
            };
            line.push_str(&node_stats(values, node_fpu, contempt, draw_score));
            line.push_str(&format!(
                "(U: {:>6.5}) (S: {:>8.5}) ",
                u(edge),
                moves_left.plus_utility(edge, q, q + u(edge))
            ));
            line.push_str(&tail(child.filter(|c| c.n > 0), 1.0, draw_score));
            line
        })
        .collect();
    let mut line = head("node ", &format!("{:>4}", node.edges.len()), node.n, node.n_in_flight, node.visited_policy());
    line.push_str(&node_stats(Some((-node.wl as f32, node.d, node.m)), node_fpu, contempt, draw_score));
    line.push_str(&tail(Some(node), -1.0, draw_score));
    lines.push(line);
    lines
}

/// The start of a line, with `index` already padded to its column.
fn head(label: &str, index: &str, n: u32, in_flight: u32, p: f32) -> String {
    let precision = if p >= 0.99995 { 1 } else { 2 };
    format!("{label:<5} ({index}) N: {n:>7} (+{in_flight:>2}) (P: {:>5.precision$}%) ", p * 100.0)
}

/// WL, D and M of a node as lc0 displays them (through its WDL display transform), and Q, which is the
/// displayed WL plus the draw score times the displayed D, or the FPU for a move without visits.
fn node_stats(values: Option<(f32, f32, f32)>, fpu: f32, contempt: &SearchContempt, draw_score: f32) -> String {
    match values {
        Some((wl, d, m)) => {
            let (wl, d, _) = contempt.display(wl, d);
            let q = draw_score.mul_add(d, wl);
            format!("(WL: {wl:>8.5}) (D: {d:>5.3}) (M: {m:>4.1}) (Q: {q:>8.5}) ")
        }
        None => format!("(WL:  -.-----) (D: -.---) (M:  -.-) (Q: {fpu:>8.5}) "),
    }
}

/// The value column (a proven node's value, else the network's own evaluation of the position, as lc0 shows
/// it from its NN cache) and the bound tag, with `sign` −1 for the root, whose values are stored from the
/// opponent's view.
fn tail(node: Option<&Node>, sign: f64, draw_score: f32) -> String {
    let Some(node) = node else {
        return "(V:  -.----) ".to_string();
    };
    let value = match (node.terminal, node.network_wl()) {
        (Terminal::No, None) => None,
        (Terminal::No, Some(network_wl)) => Some(f64::from(network_wl)),
        // lc0: GetQ(sign · draw score), shown times sign.
        _ => Some(f64::from(node.q(sign as f32 * draw_score))),
    };
    let value = value.map_or_else(|| "(V:  -.----) ".to_string(), |value| format!("(V: {:>7.4}) ", sign * value));
    let (lower, upper) = if sign < 0.0 { (-node.upper, -node.lower) } else { (node.lower, node.upper) };
    let tag = match (lower, upper) {
        (l, u) if l == u => "(T) ",
        (0, 1) => "(W) ",
        (-1, 0) => "(L) ",
        _ => "",
    };
    format!("{value}{tag}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::node::Edge;

    #[test]
    fn lines_follow_lc0s_layout() {
        let moves = Chess::default().legal_moves();
        let e2e4 = moves.iter().find(|m| uci_move(m, true) == "e2e4").copied().unwrap();
        let child = Node { n: 166, wl: 0.03, d: 0.05, m: 0.0, network_wl: 0.0337, ..Node::default() };
        let root = Node::with_edges(
            vec![(Edge::new(&e2e4, 0.4424), Some(child))],
            Node { n: 167, wl: -0.03, d: 0.05, network_wl: -0.0251, ..Node::default() },
        );
        let lines = verbose_move_stats(
            &root,
            &Chess::default(),
            &crate::options::EngineOptions::default().search_params(),
            false,
            &SearchContempt::default(),
            DrawScore::default(),
        );
        assert_eq!(lines.len(), 2);
        // WL and D go through lc0's display transform: (0.03, 0.05) is shown as (0.02898, 0.047), and Q is the
        // shown WL; S adds U to the raw Q (0.03). V is the network's own value, the root's from its side to move.
        // Every field ends with a space, as lc0 writes them.
        assert_eq!(lines[0], "e2e4  (322 ) N:     166 (+ 0) (P: 44.24%) (WL:  0.02898) (D: 0.047) (M:  0.0) (Q:  0.02898) (U: 0.06009) (S:  0.09009) (V:  0.0337) ");
        assert_eq!(
            lines[1],
            "node  (   1) N:     167 (+ 0) (P: 44.24%) (WL:  0.02898) (D: 0.047) (M:  0.0) (Q:  0.02898) (V:  0.0251) "
        );
    }

    #[test]
    fn moves_with_equal_visits_are_ordered_by_q_plus_u_as_lc0() {
        let moves = Chess::default().legal_moves();
        let child = |wl: f64| Some(Node { n: 1, wl, ..Node::default() });
        let root = Node::with_edges(
            vec![(Edge::new(&moves[0], 0.3), child(0.5)), (Edge::new(&moves[1], 0.4), child(-0.5))],
            Node { n: 3, ..Node::default() },
        );
        let lines = verbose_move_stats(
            &root,
            &Chess::default(),
            &crate::options::EngineOptions::default().search_params(),
            false,
            &SearchContempt::default(),
            DrawScore::default(),
        );
        // Equal N: the lower Q + U comes first although its prior is higher.
        assert!(lines[0].starts_with(&uci_move(&moves[1], true)), "{lines:?}");
        assert!(lines[1].starts_with(&uci_move(&moves[0], true)), "{lines:?}");
    }
}
