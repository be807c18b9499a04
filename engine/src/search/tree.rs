//! The search tree bound to a game: tree reuse across moves, memory accounting, freeing old subtrees off the
//! search's path (docs/lc0/search.md §4.2, §4.7 two-fold reversal).

use super::node::{Edge, Node, Terminal};
use crate::position::{GameState, PackedMove, PositionHistory, PositionKey};
use shakmaty::{Chess, EnPassantMode, Move, Position};

/// The tree and the game position its root stands for.
#[derive(Debug)]
pub struct Tree {
    /// The root node.
    pub root: Box<Node>,
    /// The game's history up to the root.
    pub history: PositionHistory,
    start: Option<(PositionKey, u32, u32)>,
    moves: Vec<Move>,
    /// Nodes in the tree, for memory accounting.
    pub node_count: u64,
    /// Edges in the tree, for memory accounting.
    pub edge_count: u64,
}

impl Default for Tree {
    fn default() -> Self {
        Self {
            root: Box::default(),
            history: PositionHistory::new(Chess::default()),
            start: None,
            moves: Vec::new(),
            node_count: 1,
            edge_count: 0,
        }
    }
}

fn start_identity(position: &Chess) -> (PositionKey, u32, u32) {
    (
        PositionKey::new(position, EnPassantMode::Always),
        position.halfmoves(),
        position.fullmoves().get(),
    )
}

/// Frees a detached subtree on a background thread, so a big old tree never stalls the next search.
fn free_in_background(subtree: Box<Node>) {
    if subtree.edges.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("kairos-tree-free".into())
        .spawn(move || drop(subtree));
    // If no thread can be started the subtree was dropped with the closure, here, which is merely slower.
    drop(spawned);
}

impl Tree {
    /// Bytes used by the tree's nodes (each held in its parent's array) and edges.
    pub fn bytes(&self) -> u64 {
        let node = std::mem::size_of::<Node>() as u64;
        self.node_count * node + self.edge_count * std::mem::size_of::<Edge>() as u64
    }

    /// Forgets everything (UCI `ucinewgame`).
    pub fn reset(&mut self) {
        let old = std::mem::take(self);
        free_in_background(old.root);
    }

    /// Moves the root to `game`'s position, keeping the subtree of the moves played since the old root when
    /// the game continues the old one; returns the visits of the reused root (0 when nothing was kept).
    pub fn set_position(&mut self, game: &GameState) -> u64 {
        let identity = start_identity(game.start());
        let continues =
            self.start.as_ref() == Some(&identity) && game.moves().starts_with(&self.moves);
        let mut root = std::mem::take(&mut self.root);
        if continues {
            for mv in &game.moves()[self.moves.len()..] {
                let next = root
                    .edges
                    .iter()
                    .position(|e| e.mv == PackedMove::pack(mv))
                    .and_then(|i| root.take_child(i));
                free_in_background(std::mem::replace(&mut root, Box::new(next.unwrap_or_default())));
            }
        } else {
            free_in_background(std::mem::take(&mut root));
        }
        if root.terminal != Terminal::No || root.n_in_flight != 0 {
            free_in_background(std::mem::take(&mut root));
        }
        revert_stale_two_folds(&mut root, 0);
        self.root = root;
        self.history = game.position_history().clone();
        self.start = Some(identity);
        self.moves = game.moves().to_vec();
        let (nodes, edges) = self.root.count_subtree();
        self.node_count = nodes;
        self.edge_count = edges;
        u64::from(self.root.n)
    }

    /// The root position.
    pub fn root_position(&self) -> &Chess {
        self.history.last()
    }
}

/// Visits removed below a node by a two-fold reversal: how many and their moves-left value at the node.
struct Removed {
    visits: u32,
    m: f32,
}

/// A two-fold draw is valid only while its earlier occurrence lies inside the searched path: plies from the
/// root ≥ 4 and ≥ the cycle length (kept in its M). Stale ones become fresh nodes and their draws leave the
/// ancestors' means; no ancestor's proof rested on them (a two-fold keeps the bounds (−1, +1)), so proofs stay.
fn revert_stale_two_folds(node: &mut Node, plies_from_root: u32) -> Vec<Removed> {
    if node.terminal == Terminal::TwoFold {
        let valid = plies_from_root >= 4 && plies_from_root as f32 >= node.m;
        if valid {
            return Vec::new();
        }
        let removed = Removed {
            visits: node.n,
            m: node.m,
        };
        *node = node.renewed_in_place();
        return vec![removed];
    }
    let mut removed_here = Vec::new();
    for child in node.children_mut() {
        for removed in revert_stale_two_folds(child, plies_from_root + 1) {
            removed_here.push(Removed {
                visits: removed.visits,
                m: removed.m + 1.0,
            });
        }
    }
    for removed in &removed_here {
        let remaining = node.n - removed.visits;
        if remaining == 0 {
            // lc0's RevertTerminalVisits (node.cc 375–392): an emptied node reads as a draw.
            node.wl = 0.0;
            node.d = 1.0;
            node.m = 0.0;
        } else {
            let k = removed.visits as f32;
            node.wl = node.wl * f64::from(node.n) / f64::from(remaining);
            node.d = (node.d * node.n as f32 - k) / remaining as f32;
            node.m = (node.m * node.n as f32 - k * removed.m) / remaining as f32;
        }
        node.n = remaining;
    }
    removed_here
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    fn chain_with_two_fold() -> Node {
        // root → a → b → c → d, d a two-fold draw with cycle length 4; the values are hand-picked means.
        let mv = Chess::default().legal_moves()[0];
        let mut d = Node {
            n: 2,
            ..Node::default()
        };
        d.make_terminal(0, 4.0, Terminal::TwoFold);
        let wrap = |child: Node, n: u32, wl: f64, dd: f32, m: f32| {
            let mut node = Node {
                edges: vec![Edge::new(&mv, 1.0)].into_boxed_slice().into(),
                n,
                wl,
                d: dd,
                m,
                ..Node::default()
            };
            node.set_child(0, child);
            node
        };
        let c = wrap(d, 6, 0.5, 0.5, 3.0);
        let b = wrap(c, 7, -0.4, 0.4, 4.0);
        wrap(b, 8, 0.3, 0.25, 5.0)
    }

    #[test]
    fn two_fold_inside_the_path_is_kept() {
        let mut root = chain_with_two_fold();
        assert!(revert_stale_two_folds(&mut root, 1).is_empty());
        let d = root.child(0).unwrap().child(0).unwrap().child(0).unwrap();
        assert_eq!(d.terminal, Terminal::TwoFold);
    }

    #[test]
    fn stale_two_fold_is_reverted_and_its_visits_leave_the_ancestors() {
        let mut root = chain_with_two_fold();
        // Seen from a root two plies higher up the draw is only 3 plies deep: stale.
        revert_stale_two_folds(&mut root, 0);
        let b = root.child(0).unwrap();
        let c = b.child(0).unwrap();
        let d = c.child(0).unwrap();
        assert_eq!((d.n, d.terminal), (0, Terminal::No));
        // c: 6 visits, 2 of them draws (v 0, d 1, m 4 + 1 = 5): WL 0.5·6/4, D (0.5·6 − 2)/4, M (3·6 − 10)/4.
        assert_eq!(c.n, 4);
        assert!((c.wl - 0.75).abs() < 1e-9);
        assert!((c.d - 0.25).abs() < 1e-6);
        assert!((c.m - 2.0).abs() < 1e-6);
        // b: 7 → 5 visits, m of the draws 6.
        assert_eq!(b.n, 5);
        assert!((b.wl - (-0.4 * 7.0 / 5.0)).abs() < 1e-9);
        assert!((b.m - (4.0 * 7.0 - 12.0) / 5.0).abs() < 1e-5);
        assert_eq!(root.n, 6);
    }

    #[test]
    fn reverting_a_stale_two_fold_keeps_the_proofs_above_it_and_an_emptied_node_reads_as_a_draw() {
        // lc0 reverts only the visits (EnsureNodeTwoFoldCorrectForDepth, RevertTerminalVisits): a proof above
        // never rested on the two-fold, whose bounds stay (−1, +1).
        let mut root = chain_with_two_fold();
        root.child_mut(0).unwrap().make_terminal(1, 3.0, Terminal::EndOfGame);
        revert_stale_two_folds(&mut root, 0);
        let b = root.child(0).unwrap();
        assert_eq!((b.terminal, b.lower, b.upper, b.n), (Terminal::EndOfGame, 1, 1, 5));

        // c's two visits are both the draw's: c is left with none and reads WL 0, D 1, M 0.
        let mut root = chain_with_two_fold();
        let c = root.child_mut(0).unwrap().child_mut(0).unwrap();
        c.n = 2;
        revert_stale_two_folds(&mut root, 0);
        let c = root.child(0).unwrap().child(0).unwrap();
        assert_eq!((c.n, c.wl, c.d, c.m), (0, 0.0, 1.0, 0.0));
    }
}
