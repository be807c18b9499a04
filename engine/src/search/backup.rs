//! Backing up one visit from a leaf to the root with certainty propagation (docs/lc0/search.md §4.5 step 7, §4.7).

use super::node::{Bound, Node, Terminal};
use nn::prior::encode_prior;

/// What a backup carries from a child to its parent.
struct Carry {
    v: f32,
    d: f32,
    m: f32,
    n_to_fix: u32,
    v_delta: f32,
    d_delta: f32,
    m_delta: f32,
    update_parent_bounds: bool,
    /// The node just became a proven loss: its parent clears the prior of the edge to it.
    clear_own_prior: bool,
}

/// The search's options that a backup obeys.
#[derive(Clone, Copy, Debug)]
pub struct BackupRules {
    /// Proven results propagate up the tree (lc0's `StickyEndgames`).
    pub sticky_endgames: bool,
    /// Visits after which a node's children become solid (lc0's `SolidTreeThreshold`).
    pub solid_tree_threshold: u32,
}

/// Backs up one visit along `path` (edge indices from the root) with the leaf's value `(v, d, m)` from the
/// view of the player who moved into the leaf; a terminal node on the way backs up its own proven value.
pub fn backup(root: &mut Node, path: &[u16], v: f32, d: f32, m: f32, rules: BackupRules) {
    backup_from(root, path, true, v, d, m, rules);
}

fn backup_from(node: &mut Node, path: &[u16], is_root: bool, v: f32, d: f32, m: f32, rules: BackupRules) -> Carry {
    let mut carry = match path.split_first() {
        None => Carry {
            v,
            d,
            m,
            n_to_fix: 0,
            v_delta: 0.0,
            d_delta: 0.0,
            m_delta: 0.0,
            update_parent_bounds: rules.sticky_endgames && node.terminal != Terminal::No,
            clear_own_prior: false,
        },
        Some((&index, rest)) => {
            let child = node.child_mut(usize::from(index)).expect("backup path follows existing children");
            let mut carry = backup_from(child, rest, false, v, d, m, rules);
            if carry.clear_own_prior {
                // As lc0's MakeTerminal: a proven loss has no reason to keep an exploration bonus.
                node.edges[usize::from(index)].prior = encode_prior(0.0);
                carry.clear_own_prior = false;
            }
            if node.terminal != Terminal::No {
                carry.n_to_fix = 0;
            }
            carry.update_parent_bounds = carry.update_parent_bounds
                && !is_root
                && node.terminal == Terminal::No
                && maybe_set_bounds(node, &mut carry);
            carry.v = -carry.v;
            carry.v_delta = -carry.v_delta;
            carry.m += 1.0;
            carry
        }
    };
    if node.terminal != Terminal::No {
        carry.v = node.wl as f32;
        carry.d = node.d;
        carry.m = node.m;
    }
    node.finalize_score_update(carry.v, carry.d, carry.m, 1);
    if carry.n_to_fix > 0 && node.terminal == Terminal::No {
        node.adjust_for_terminal(carry.v_delta, carry.d_delta, carry.m_delta, carry.n_to_fix);
    }
    node.maybe_make_solid(rules.solid_tree_threshold);
    carry
}

/// Aggregates the children's proven bounds into `parent`; makes it terminal when they meet. Returns whether
/// bounds were set, so the grandparent should be checked too.
fn maybe_set_bounds(parent: &mut Node, carry: &mut Carry) -> bool {
    let mut lower: Bound = -1;
    let mut upper: Bound = -1;
    let mut losing_m = 0.0f32;
    // A result from the tables among the children makes the parent's a tablebase result too, unless a
    // child is a proven win over the board (lc0's prefer_tb).
    let mut prefer_tablebase = false;
    for edge in parent.edges_and_nodes() {
        let (edge_lower, edge_upper) = edge.bounds();
        lower = lower.max(edge_lower);
        upper = upper.max(edge_upper);
        let tablebase = edge.node.is_some_and(|child| child.terminal == Terminal::Tablebase);
        if edge_lower == 1 && !tablebase {
            prefer_tablebase = false;
            break;
        } else if edge_upper == -1 {
            losing_m = losing_m.max(edge.m(0.0));
        }
        prefer_tablebase |= tablebase;
    }
    if lower == -1 && upper == 1 {
        return false;
    }
    if lower == upper {
        carry.n_to_fix = parent.n;
        let (old_v, old_d, old_m) = (parent.wl as f32, parent.d, parent.m);
        let plies = if upper == -1 { losing_m.max(carry.m) } else { carry.m } + 1.0;
        let kind = if prefer_tablebase { Terminal::Tablebase } else { Terminal::EndOfGame };
        parent.make_terminal(-upper, plies, kind);
        carry.clear_own_prior = -upper == -1;
        carry.v_delta = -(parent.wl as f32 - old_v);
        carry.d_delta = parent.d - old_d;
        carry.m_delta = parent.m - old_m;
    } else {
        parent.lower = -upper;
        parent.upper = -lower;
    }
    true
}

/// Takes one visit out of flight along `path`, for a collision.
pub fn cancel_visit(root: &mut Node, path: &[u16]) {
    let mut node = root;
    node.n_in_flight -= 1;
    for &index in path {
        node = node.child_mut(usize::from(index)).expect("collision path follows existing children");
        node.n_in_flight -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::node::Edge;
    use shakmaty::{Chess, Position};

    /// lc0's defaults.
    const STICKY: BackupRules = BackupRules { sticky_endgames: true, solid_tree_threshold: 100 };

    /// root → parent → child, the parent's only move, with the child made terminal as `kind` and one visit in
    /// flight along the line, as a gather leaves it.
    fn line_to(kind: Terminal) -> Node {
        let mv = Chess::default().legal_moves()[0];
        let with_child = |child: Node, n: u32| {
            let edges = vec![Edge::new(&mv, 1.0)].into_boxed_slice().into();
            let mut node = Node { edges, n, n_in_flight: 1, ..Node::default() };
            node.set_child(0, child);
            node
        };
        let mut child = Node { n_in_flight: 1, ..Node::default() };
        child.make_terminal(0, 4.0, kind);
        with_child(with_child(child, 1), 2)
    }

    #[test]
    fn a_draw_by_the_rules_proves_its_parent_and_a_two_fold_proves_nothing() {
        // lc0 (node.cc 300–301, search.cc 2217–2369): a two-fold keeps the bounds (−1, +1), so the parent of an
        // only move into one stays unproven, while an only move into a draw by the rules proves the parent a draw.
        let mut by_rules = line_to(Terminal::EndOfGame);
        backup(&mut by_rules, &[0, 0], 0.0, 1.0, 4.0, STICKY);
        let parent = by_rules.child(0).unwrap();
        assert_eq!((parent.terminal, parent.lower, parent.upper), (Terminal::EndOfGame, 0, 0));

        let mut two_fold = line_to(Terminal::TwoFold);
        backup(&mut two_fold, &[0, 0], 0.0, 1.0, 4.0, STICKY);
        let parent = two_fold.child(0).unwrap();
        assert_eq!((parent.terminal, parent.lower, parent.upper), (Terminal::No, -1, 1));
        let child = parent.child(0).unwrap();
        assert_eq!((child.terminal, child.lower, child.upper), (Terminal::TwoFold, -1, 1));
    }

    #[test]
    fn nodes_turn_solid_at_the_solid_tree_threshold() {
        // After the backup the root has 3 visits and its only child 2, none in flight below either.
        for (threshold, root_solid, child_solid) in [(2, true, true), (3, true, false), (4, false, false)] {
            let mut root = line_to(Terminal::TwoFold);
            let rules = BackupRules { solid_tree_threshold: threshold, ..STICKY };
            backup(&mut root, &[0, 0], 0.0, 1.0, 4.0, rules);
            let child = root.child(0).unwrap();
            assert_eq!((root.n, child.n), (3, 2));
            assert_eq!((root.solid(), child.solid()), (root_solid, child_solid), "threshold {threshold}");
        }
    }
}
