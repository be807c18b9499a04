//! Tree nodes and edges (docs/lc0/search.md §4.2): running means of WL, D and M from the view of the player who moved
//! into the node, visit counts, proven bounds; edges hold the move and a 16-bit prior, sorted by prior, and a
//! node's children live beside its edges, created on their first visit, as in lc0.

use super::packed_slice::PackedSlice;
use crate::position::PackedMove;
use nn::prior::decode_prior;

/// Why a node is an end of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminal {
    /// An ordinary node.
    No,
    /// Mate, stalemate, a draw by rule, or a result proven from the children.
    EndOfGame,
    /// A position repeated once inside the searched path.
    TwoFold,
    /// A result read from the Syzygy tables (or proven from children of which one such was the best).
    Tablebase,
}

/// A proven game result from the view of the player who moved into the node: −1 loss, 0 draw, +1 win.
pub type Bound = i8;

/// A position in the tree.
#[derive(Debug)]
pub struct Node {
    /// The moves with their priors, sorted by prior after evaluation; empty before.
    pub edges: PackedSlice<Edge>,
    /// The child of each edge, by edge index, held in place up to the highest edge ever visited: most nodes
    /// are leaves and visits reach the edges in prior order, so a node costs its own bytes and no pointer or
    /// allocation of its own; a slot below the highest is a placeholder until its child is created.
    pub(super) children: PackedSlice<Node>,
    /// Mean of win − loss.
    pub wl: f64,
    /// Mean draw probability.
    pub d: f32,
    /// Mean plies left.
    pub m: f32,
    /// Completed visits.
    pub n: u32,
    /// Visits started and not yet backed up.
    pub n_in_flight: u32,
    /// Whether and why this node ends the search.
    pub terminal: Terminal,
    /// Proven lower bound of the result.
    pub lower: Bound,
    /// Proven upper bound of the result.
    pub upper: Bound,
    /// The network's own WL of the position (same view as `wl`), NaN until evaluated (see
    /// [`Node::network_wl`]); NaN rather than an `Option` keeps a node at 56 bytes.
    pub(super) network_wl: f32,
    /// lc0's solid flag and whether the node is created, in one byte.
    pub(super) flags: NodeFlags,
}

/// Two flags of a node in one byte, as lc0 keeps its own in bit fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct NodeFlags(u8);

impl NodeFlags {
    /// lc0 keeps the children of a node with `SolidTreeThreshold` visits in one array; that changes
    /// which children its scans count as visited (see [`Node::visited_children`]).
    const SOLID: u8 = 1;
    /// The parent has created this node, as lc0 creates a child on its first visit (a placeholder slot has
    /// not).
    const CREATED: u8 = 2;

    fn has(self, flag: u8) -> bool {
        self.0 & flag != 0
    }

    fn set(&mut self, flag: u8) {
        self.0 |= flag;
    }
}

impl Default for Node {
    fn default() -> Self {
        Self {
            edges: PackedSlice::default(),
            children: PackedSlice::default(),
            wl: 0.0,
            d: 0.0,
            m: 0.0,
            n: 0,
            n_in_flight: 0,
            terminal: Terminal::No,
            lower: -1,
            upper: 1,
            network_wl: f32::NAN,
            flags: NodeFlags::default(),
        }
    }
}

/// A move from a node with its prior, as lc0's Edge; the child, once visited, is kept by the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The move, packed; unpack it against the node's position.
    pub mv: PackedMove,
    /// The prior in lc0's 16-bit encoding.
    pub prior: u16,
}

impl Edge {
    /// An edge with the prior `prior`, for the tests' trees (a search builds its edges sorted, in `gather`).
    #[cfg(test)]
    pub fn new(mv: &shakmaty::Move, prior: f32) -> Self {
        Self { mv: PackedMove::pack(mv), prior: nn::prior::encode_prior(prior) }
    }
    /// The decoded prior.
    pub fn p(&self) -> f32 {
        decode_prior(self.prior)
    }
}

/// An edge with its child if it has one, lc0's EdgeAndNode: what the search's formulas read.
#[derive(Clone, Copy, Debug)]
pub struct EdgeAndNode<'a> {
    /// The move, packed; unpack it against the parent's position.
    pub mv: PackedMove,
    /// The prior in lc0's 16-bit encoding.
    pub prior: u16,
    /// The child node, once visited.
    pub node: Option<&'a Node>,
}

impl EdgeAndNode<'_> {
    /// The decoded prior.
    pub fn p(&self) -> f32 {
        decode_prior(self.prior)
    }
    /// The child's completed visits (0 without a child).
    pub fn n(&self) -> u32 {
        self.node.map_or(0, |c| c.n)
    }
    /// Visits completed or in flight.
    pub fn n_started(&self) -> u32 {
        self.node.map_or(0, |c| c.n + c.n_in_flight)
    }
    /// The child's Q from the parent's view, or `default` if it has no visits.
    pub fn q(&self, default: f32) -> f32 {
        match self.node {
            Some(c) if c.n > 0 => c.wl as f32,
            _ => default,
        }
    }
    /// lc0's Q of the child, WL + `draw_score`·D for the player to move at the parent, or `default` if it has
    /// no visits.
    pub fn q_with_draw(&self, default: f32, draw_score: f32) -> f32 {
        match self.node {
            Some(c) if c.n > 0 => c.q(draw_score),
            _ => default,
        }
    }
    /// The child's D, or `default` if it has no visits.
    pub fn d(&self, default: f32) -> f32 {
        match self.node {
            Some(c) if c.n > 0 => c.d,
            _ => default,
        }
    }
    /// The child's M, or `default` if it has no visits.
    pub fn m(&self, default: f32) -> f32 {
        match self.node {
            Some(c) if c.n > 0 => c.m,
            _ => default,
        }
    }
    /// Whether the child is a visited terminal.
    pub fn is_terminal(&self) -> bool {
        matches!(self.node, Some(c) if c.n > 0 && c.terminal != Terminal::No)
    }
    /// Whether the child is a visited terminal whose result comes from the tablebases.
    pub fn is_tablebase_terminal(&self) -> bool {
        matches!(self.node, Some(c) if c.n > 0 && c.terminal == Terminal::Tablebase)
    }
    /// The child's proven bounds (regular without a child).
    pub fn bounds(&self) -> (Bound, Bound) {
        self.node.map_or((-1, 1), |c| (c.lower, c.upper))
    }
}

/// lc0's VisitedNodes walk over a node's edges, one edge at a time in edge order ([`Node::visited_children`]), for
/// loops that read each edge once for several purposes.
pub(super) struct VisitedWalk {
    solid: bool,
    /// How many edges the walk has counted: those with a child, or every edge of a solid node.
    counted: usize,
}

impl VisitedWalk {
    pub(super) fn new(node: &Node) -> Self {
        Self { solid: node.solid(), counted: 0 }
    }

    /// Whether the next edge is a visited child; `None` once the walk has ended (at the first counted edge after the
    /// first that was never started), after which no later edge is visited.
    pub(super) fn step(&mut self, edge: EdgeAndNode<'_>) -> Option<bool> {
        if !self.solid && edge.node.is_none() {
            return Some(false);
        }
        if self.counted > 0 && edge.n_started() == 0 {
            return None;
        }
        self.counted += 1;
        Some(edge.n() > 0)
    }
}

impl Node {
    /// The edge at `index` with its child.
    pub fn edge(&self, index: usize) -> EdgeAndNode<'_> {
        let Edge { mv, prior } = self.edges[index];
        EdgeAndNode { mv, prior, node: self.child(index) }
    }

    /// Every edge with its child, in edge order.
    pub fn edges_and_nodes(&self) -> impl Iterator<Item = EdgeAndNode<'_>> + '_ {
        (0..self.edges.len()).map(|index| self.edge(index))
    }

    /// The network's own WL of the position (same view as `wl`), once evaluated: VerboseMoveStats' V column.
    pub fn network_wl(&self) -> Option<f32> {
        (!self.network_wl.is_nan()).then_some(self.network_wl)
    }

    /// Records the network's own WL of the position (same view as `wl`).
    pub fn set_network_wl(&mut self, wl: f32) {
        self.network_wl = wl;
    }

    /// Whether the parent has created this node (a placeholder slot has not).
    pub(super) fn created(&self) -> bool {
        self.flags.has(NodeFlags::CREATED)
    }

    /// Whether lc0 would hold this node's children in one array (see [`Node::visited_children`]).
    pub fn solid(&self) -> bool {
        self.flags.has(NodeFlags::SOLID)
    }

    /// The node as new, still created in its slot: what a stale two-fold becomes.
    pub(super) fn renewed_in_place(&self) -> Node {
        let mut flags = NodeFlags::default();
        if self.created() {
            flags.set(NodeFlags::CREATED);
        }
        Node { flags, ..Node::default() }
    }

    /// The child of the edge at `index`, once visited.
    pub fn child(&self, index: usize) -> Option<&Node> {
        self.children.get(index).filter(|child| child.created())
    }

    /// The child of the edge at `index`, mutable.
    pub fn child_mut(&mut self, index: usize) -> Option<&mut Node> {
        self.children.get_mut(index).filter(|child| child.created())
    }

    /// The node at the end of `path` (edge indices down from this node), whose every step a pass created.
    pub fn descendant_mut(&mut self, path: &[u16]) -> &mut Node {
        path.iter()
            .fold(self, |node, &index| node.child_mut(usize::from(index)).expect("paths follow existing children"))
    }

    /// The child of the edge at `index`, created (empty) if it does not exist yet, and whether it was.
    pub fn create_child(&mut self, index: usize) -> (&mut Node, bool) {
        if index >= self.children.len() {
            let mut children = Vec::with_capacity(index + 1);
            children.extend(std::mem::take(&mut self.children).into_boxed_slice().into_vec());
            children.resize_with(index + 1, Node::default);
            self.children = children.into_boxed_slice().into();
        }
        let child = &mut self.children[index];
        let created = !child.created();
        child.flags.set(NodeFlags::CREATED);
        (child, created)
    }

    /// A node with these edges and children, for tests that build trees by hand.
    #[cfg(test)]
    pub fn with_edges(edges: Vec<(Edge, Option<Node>)>, parent: Node) -> Node {
        let mut node = Node { edges: edges.iter().map(|(edge, _)| *edge).collect(), ..parent };
        for (index, (_, child)) in edges.into_iter().enumerate() {
            if let Some(child) = child {
                node.set_child(index, child);
            }
        }
        node
    }

    /// Puts `child` under the edge at `index`, for tests that build trees by hand.
    #[cfg(test)]
    pub fn set_child(&mut self, index: usize, child: Node) {
        let (slot, _) = self.create_child(index);
        let flags = slot.flags;
        *slot = Node { flags, ..child };
    }

    /// Takes the child of the edge at `index` out of the node, if it has one.
    pub fn take_child(&mut self, index: usize) -> Option<Node> {
        let child = self.children.get_mut(index)?;
        child.created().then(|| std::mem::take(child))
    }

    /// The children that exist.
    pub fn children(&self) -> impl Iterator<Item = &Node> + '_ {
        self.children.iter().filter(|child| child.created())
    }

    /// Visits of the children: N − 1, or 0 before the first visit.
    pub fn children_visits(&self) -> u32 {
        self.n.saturating_sub(1)
    }

    /// Adds `k` visits with values `(v, d, m)` to the running means and takes them out of flight.
    pub fn finalize_score_update(&mut self, v: f32, d: f32, m: f32, k: u32) {
        let total = f64::from(self.n + k);
        self.wl += f64::from(k) * (f64::from(v) - self.wl) / total;
        self.d += k as f32 * (d - self.d) / (self.n + k) as f32;
        self.m += k as f32 * (m - self.m) / (self.n + k) as f32;
        self.n += k;
        self.n_in_flight -= k;
    }

    /// Shifts the means after `k` of the visits below turned out to be a proven result.
    pub fn adjust_for_terminal(&mut self, v: f32, d: f32, m: f32, k: u32) {
        self.wl += f64::from(k) * f64::from(v) / f64::from(self.n);
        self.d += k as f32 * d / self.n as f32;
        self.m += k as f32 * m / self.n as f32;
    }

    /// Makes the node a proven result (`result` from the view of the player who moved into it).
    /// A two-fold draw keeps its bounds, as in lc0 (node.cc 300–301): it holds only while its earlier
    /// occurrence stays inside the searched path, so no proof may rest on it.
    pub fn make_terminal(&mut self, result: Bound, plies_left: f32, kind: Terminal) {
        if kind != Terminal::TwoFold {
            self.lower = result;
            self.upper = result;
        }
        self.terminal = kind;
        self.m = plies_left;
        self.wl = f64::from(result);
        self.d = if result == 0 { 1.0 } else { 0.0 };
    }

    /// lc0's Q of this node for the player who moved into it: WL + `draw_score`·D.
    pub fn q(&self, draw_score: f32) -> f32 {
        // lc0's `wl_ + draw_score * d_`: the float product added to the double WL, then rounded to float.
        (self.wl + f64::from(draw_score * self.d)) as f32
    }

    /// Sum of the priors of the visited children, as lc0 counts them ([`Node::visited_children`]).
    pub fn visited_policy(&self) -> f32 {
        // A fold from +0.0: an empty f32 sum is −0.0, which would print as "-0.00%".
        self.visited_children().map(|i| self.edges[i].p()).fold(0.0, |sum, p| sum + p)
    }

    /// The indices of the children with visits, as lc0's VisitedNodes walks them: in edge order, skipping
    /// children that are only in flight, and ending at the first child after the first that was never
    /// started (a created child for an ordinary node, any child for a solid one), since policy order makes
    /// later ones unlikely.
    pub fn visited_children(&self) -> impl Iterator<Item = usize> + '_ {
        let mut walk = VisitedWalk::new(self);
        self.edges_and_nodes()
            .enumerate()
            .map_while(move |(index, edge)| walk.step(edge).map(|visited| (index, visited)))
            .filter_map(|(index, visited)| visited.then_some(index))
    }

    /// lc0's MakeSolid, once a node has `threshold` visits: only when no child holds a leaf visit in flight and
    /// every visit in flight here went to a child (no collision right below).
    pub fn maybe_make_solid(&mut self, threshold: u32) {
        if self.solid() || self.n < threshold || self.edges.is_empty() || self.terminal != Terminal::No {
            return;
        }
        let mut in_flight = 0;
        for child in self.children() {
            if child.n_in_flight > 0 && (child.n <= 1 || child.terminal != Terminal::No) {
                return;
            }
            in_flight += child.n_in_flight;
        }
        if in_flight == self.n_in_flight {
            self.flags.set(NodeFlags::SOLID);
        }
    }

    /// Number of nodes in this subtree (this one included) and of edges, for memory accounting.
    pub fn count_subtree(&self) -> (u64, u64) {
        let mut nodes = 1;
        let mut edges = self.edges.len() as u64;
        for child in self.children() {
            let (n, e) = child.count_subtree();
            nodes += n;
            edges += e;
        }
        (nodes, edges)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    /// lc0's Edge is a 16-bit move and a 16-bit prior; most of a large tree is edges of unvisited moves.
    #[test]
    fn an_edge_is_four_bytes_as_lc0s() {
        assert_eq!(std::mem::size_of::<Edge>(), 4);
    }

    /// A child is held in its parent's array, so it costs its own bytes and no pointer or allocation, and
    /// those bytes are 56, 8 fewer than lc0's 64.
    #[test]
    fn a_node_is_56_bytes_held_in_place() {
        assert_eq!(std::mem::size_of::<Node>(), 56);
    }

    #[test]
    fn a_renewed_node_keeps_its_slot_created_and_forgets_solidity_visits_and_evaluation() {
        let mut node = Node { n: 150, terminal: Terminal::TwoFold, ..Node::default() };
        assert_eq!(node.network_wl(), None);
        node.set_network_wl(-0.25);
        assert_eq!(node.network_wl(), Some(-0.25));
        node.flags.set(NodeFlags::SOLID);
        node.flags.set(NodeFlags::CREATED);
        let renewed = node.renewed_in_place();
        assert!(renewed.created());
        assert!(!renewed.solid());
        assert_eq!((renewed.n, renewed.terminal, renewed.network_wl()), (0, Terminal::No, None));
        assert!(!Node::default().renewed_in_place().created());
    }

    /// lc0's VisitedNodes (node.h): children with N > 0 in edge order, passing over those only in flight, ending at
    /// the first child after the first that was never started; a solid node counts every edge, an ordinary one only
    /// the edges with a child. Hand-worked cases.
    #[test]
    fn the_visited_children_are_lc0s_visited_nodes() {
        let moves = shakmaty::Chess::default().legal_moves();
        // (edge index, N, visits in flight) of each child.
        let node_with = |children: &[(usize, u32, u32)], solid: bool| {
            let mut node = Node { edges: moves.iter().map(|mv| Edge::new(mv, 0.05)).collect(), ..Node::default() };
            for &(index, n, n_in_flight) in children {
                node.set_child(index, Node { n, n_in_flight, ..Node::default() });
            }
            if solid {
                node.flags.set(NodeFlags::SOLID);
            }
            node
        };
        let visited = |node: &Node| node.visited_children().collect::<Vec<_>>();
        // Solid: edge 0 was never started but is the first, so the walk goes on; edge 2 is only in flight; edge 4,
        // without a child, ends it before edge 5.
        let solid = node_with(&[(1, 3, 0), (2, 0, 2), (3, 1, 0), (5, 5, 0)], true);
        assert_eq!(visited(&solid), [1, 3]);
        // Ordinary: only the edges with a child count, so edges 0, 2 and 5 are passed over; the child at 6 was
        // never started and ends the walk before 7.
        assert_eq!(visited(&node_with(&[(1, 2, 0), (3, 0, 1), (4, 4, 0), (6, 0, 0), (7, 1, 0)], false)), [1, 4]);
        // Ordinary, its first child never started: the first is passed over, not the end.
        assert_eq!(visited(&node_with(&[(2, 0, 0), (3, 2, 0)], false)), [3]);
    }

    #[test]
    fn slots_below_the_highest_child_are_not_children_until_created() {
        let moves = shakmaty::Chess::default().legal_moves();
        let mut node = Node { edges: moves.iter().map(|mv| Edge::new(mv, 0.05)).collect(), ..Node::default() };
        let (child, created) = node.create_child(3);
        assert!(created);
        child.n = 7;
        assert!(!node.create_child(3).1, "a second call finds the child made by the first");
        assert_eq!(node.create_child(3).0.n, 7);
        assert!(node.child(1).is_none() && node.child(5).is_none());
        assert_eq!(node.children().map(|c| c.n).collect::<Vec<_>>(), [7]);
        assert_eq!(node.edges_and_nodes().filter(|e| e.node.is_some()).count(), 1);
        assert!(node.take_child(1).is_none());
        assert_eq!(node.take_child(3).map(|c| c.n), Some(7));
        assert!(node.child(3).is_none(), "a taken child is gone");
        assert_eq!(node.children().count(), 0);
    }
}
