//! The search tree bound to a game: tree reuse across moves, memory accounting, freeing old subtrees off the
//! search's path (docs/lc0/search.md §4.2, §4.7 two-fold reversal).

use super::node::{Edge, Node, Terminal};
use super::stats::Progress;
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

/// The tree and the counters of the running search, behind one lock.
pub struct TreeState {
    /// The tree.
    pub tree: Tree,
    /// The running search's counters.
    pub progress: Progress,
}

fn start_identity(position: &Chess) -> (PositionKey, u32, u32) {
    (PositionKey::new(position, EnPassantMode::Always), position.halfmoves(), position.fullmoves().get())
}

/// Frees a detached subtree on a background thread, so a big old tree never stalls the next search.
fn free_in_background(subtree: Box<Node>) {
    if subtree.edges.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new().name("kairos-tree-free".into()).spawn(move || drop(subtree));
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
        let continues = self.start.as_ref() == Some(&identity) && game.moves().starts_with(&self.moves);
        let mut root = std::mem::take(&mut self.root);
        if continues {
            for mv in &game.moves()[self.moves.len()..] {
                let next =
                    root.edges.iter().position(|e| e.mv == PackedMove::pack(mv)).and_then(|i| root.take_child(i));
                free_in_background(std::mem::replace(&mut root, Box::new(next.unwrap_or_default())));
            }
        } else {
            free_in_background(std::mem::take(&mut root));
        }
        if root.terminal != Terminal::No || root.n_in_flight != 0 {
            free_in_background(std::mem::take(&mut root));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_tree_keeps_its_two_fold_draws_until_the_search_reaches_them() {
        // lc0 reverts a two-fold whose first occurrence fell before the new root only when its picker reaches
        // it (EnsureNodeTwoFoldCorrectForDepth), so moving the root leaves the draw and its visits in place.
        let game = GameState::from_uci(None, &["g1f3", "g8f6"]).unwrap();
        let mut tree = Tree::default();
        tree.set_position(&GameState::default());
        let chain = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut node: &mut Node = &mut tree.root;
        let mut position = Chess::default();
        for (ply, text) in chain.iter().enumerate() {
            let mv = text.parse::<shakmaty::uci::UciMove>().unwrap().to_move(&position).unwrap();
            node.edges = vec![Edge::new(&mv, 1.0)].into_boxed_slice().into();
            node.n = 10 - ply as u32;
            let mut child = Node { n: 9 - ply as u32, ..Node::default() };
            if ply == chain.len() - 1 {
                child.make_terminal(0, 4.0, Terminal::TwoFold);
            }
            node.set_child(0, child);
            node = node.child_mut(0).unwrap();
            shakmaty::Position::play_unchecked(&mut position, mv);
        }
        assert_eq!(tree.set_position(&game), 8, "the reused root keeps every visit, the draw's included");
        let draw = tree.root.child(0).unwrap().child(0).unwrap();
        assert_eq!((draw.terminal, draw.n), (Terminal::TwoFold, 6));
    }
}
