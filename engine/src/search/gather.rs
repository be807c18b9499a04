//! One worker iteration's tree side (docs/lc0/search.md §4.4–4.6): descend with virtual loss to collect leaves,
//! detect terminals, back up out-of-order results, then expand and back up the evaluated batch.

use super::backup::{backup, cancel_visit};
use super::node::{Bound, Edge, EdgeAndNode, Node, Terminal, VisitedWalk};
use super::packed_slice::PackedSlice;
use super::params::SearchParams;
use super::prefetch::prefetch;
use super::select::{fpu_given_visited_policy, puct_multiplier, MovesLeftUtility};
use super::stats::{best_root_edge, Progress, RootFilter};
use super::tree::{Tree, TreeState};
use super::draw_score::DrawScore;
use super::wdl_rescale::SearchContempt;
use crate::position::{has_mating_material, PackedMove, PositionHistory};
use crate::tablebase::Tablebases;
use nn::prior::encode_prior;
use nn::stage_timing::{enter, Stage};
use nn::{Added, BackendError, Computation, EvalRequest, Evaluation};
use shakmaty::{Move, Position};
use shakmaty_syzygy::Wdl;
use std::ops::DerefMut;

/// Where a picked leaf's value comes from.
enum LeafValue {
    /// Waiting in the network batch at this index.
    Queued(usize),
    /// Answered at once by the backend (a cache hit).
    Ready(Evaluation),
    /// An evaluation already made into the node's edges, outside the tree lock ([`prepare`]).
    Prepared(PreparedLeaf),
    /// A proven node: its own stored value.
    Terminal,
}

/// A leaf's evaluation with its edges built and sorted by prior, ready to be put in the tree.
struct PreparedLeaf {
    edges: PackedSlice<Edge>,
    wl: f32,
    d: f32,
    m: f32,
    /// Whether the network evaluated it in this batch (not a cache hit).
    from_network: bool,
}

impl PreparedLeaf {
    /// The edges of a leaf with `moves` from its evaluation, sorted by prior as lc0 sorts them; `keys` is a buffer
    /// for the sort, kept by the caller from one leaf to the next.
    fn new(
        moves: &[Move],
        evaluation: Evaluation,
        from_network: bool,
        keys: &mut Vec<u32>,
    ) -> Result<Self, BackendError> {
        if evaluation.policy.len() != moves.len() {
            return Err(BackendError::Compute(format!(
                "the network returned {} priors for {} legal moves",
                evaluation.policy.len(),
                moves.len()
            )));
        }
        // lc0 sorts by the 16-bit prior, highest first (node.cc, SortEdges; its order among equal priors is its
        // std::sort's over its own move order). Here equal priors keep the legal moves' order, by an unstable sort of
        // keys that hold the prior's complement above the move's index: fewer instructions than a stable sort of
        // the edges.
        keys.clear();
        let key = |(index, &p): (usize, &f32)| (u32::from(!encode_prior(p)) << 16) | index as u32;
        keys.extend(evaluation.policy.iter().enumerate().map(key));
        keys.sort_unstable();
        let edges = (keys.iter())
            .map(|&key| Edge { mv: PackedMove::pack(&moves[(key & 0xFFFF) as usize]), prior: !(key >> 16) as u16 })
            .collect();
        Ok(Self { edges, wl: evaluation.wl, d: evaluation.d, m: evaluation.m, from_network })
    }
}

/// A leaf waiting to be backed up.
struct Leaf {
    /// Its path from the root in [`Store::paths`].
    path: Span,
    /// Its legal moves in [`Store::moves`] (none until it is examined, or if it was not new).
    moves: Span,
    value: LeafValue,
}

/// The leaves and collisions of one gather, to finish after the batch is computed.
#[derive(Default)]
pub struct Gathered {
    leaves: Vec<Leaf>,
    collisions: Vec<Collision>,
    store: Store,
    /// Playouts already backed up during the gather (out of order).
    pub out_of_order_playouts: u64,
}

/// The paths and legal moves of a gather's leaves and collisions, end to end in two buffers: a vector for each
/// path and each leaf's moves made nearly a third of a search's allocations with a fast backend.
#[derive(Default)]
struct Store {
    paths: Vec<u16>,
    moves: Vec<Move>,
}

/// Where one path or one leaf's moves lie in a buffer of the [`Store`].
#[derive(Clone, Copy, Default)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    /// Appends `items` to `buffer`; where they lie.
    fn append<T: Copy>(buffer: &mut Vec<T>, items: &[T]) -> Self {
        let start = buffer.len();
        buffer.extend_from_slice(items);
        Self { start, end: buffer.len() }
    }

    /// The items of `buffer` it spans.
    fn of<T>(self, buffer: &[T]) -> &[T] {
        &buffer[self.start..self.end]
    }

    fn len(self) -> usize {
        self.end - self.start
    }

    fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl Gathered {
    /// Whether the gather picked nothing at all.
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty() && self.collisions.is_empty() && self.out_of_order_playouts == 0
    }
}

/// Visits that reached a node already being evaluated (or a proven one): in flight on the node's ancestors
/// until the batch ends, never backed up.
struct Collision {
    /// Its path from the root in [`Store::paths`].
    path: Span,
    multivisit: u32,
    /// How far the gather may enlarge this collision to end sooner (0: not at all).
    max_visits: u32,
}

/// What one multi-visit pass picked, in lc0's order.
enum Picked {
    /// One visit to evaluate (a new node) or to back up at once (a proven node), its path in [`Store::paths`].
    Visit(Span),
    /// See [`Collision`].
    Collision(Collision),
}

/// The read-only context of one gather.
pub struct GatherContext<'a> {
    /// Search parameters.
    pub params: &'a SearchParams,
    /// The root move filter.
    pub filter: &'a RootFilter,
    /// The tables to end the search with below the root; None without tables, or when the DTZ tables
    /// already ranked the root's moves (as lc0: the filter then decides the result).
    pub tablebases: Option<&'a Tablebases>,
    /// The WDL rescaling applied to every new evaluation.
    pub contempt: &'a SearchContempt,
    /// What a draw is worth at each depth.
    pub draw_score: DrawScore,
    /// Whether the network has a moves-left head (moves-left utility).
    pub has_moves_left: bool,
    /// Leaves wanted in the batch.
    pub batch_target: usize,
    /// Collision visits allowed in this gather.
    pub collision_budget: u32,
    /// The hints' remaining playouts, for root pruning.
    pub remaining_playouts: u64,
    /// Whether this gather makes no more playouts than `remaining_playouts` (`GatherWithinPlayoutsLeft`).
    pub within_playouts_left: bool,
    /// Whether the search was asked to stop (the gather still runs while the root has no visits).
    pub stopping: &'a dyn Fn() -> bool,
    /// Whether no other search thread keeps the backend busy (lc0's idle backend; always false with one thread):
    /// the gather then sends what it has at once.
    pub backend_idle: &'a dyn Fn() -> bool,
}

/// The most playouts one gather of `batch_target` leaves may back up out of order (lc0's
/// `MaxOutOfOrderEvalsFactor` times the batch).
pub fn max_out_of_order(params: &SearchParams, batch_target: usize) -> usize {
    ((params.max_out_of_order_evals_factor * batch_target as f32) as usize).max(1)
}

/// Collects up to `batch_target` leaves into `computation` as lc0's GatherMinibatch does: passes that hand
/// out several visits at once, until the batch is full, the collision budget is spent or (several threads) the
/// backend is idle; out-of-order results are backed up at once. As lc0 (ProcessPickedTask), each pass picks under
/// the tree lock (`state`) and lets go of it while it examines its new leaves (their moves, the rules' and the
/// tables' verdicts, the cache), taking it again with `relock` to write what it found; the lock comes back held.
pub fn gather<G: DerefMut<Target = TreeState>>(
    mut state: G,
    relock: impl Fn() -> G,
    context: &GatherContext<'_>,
    computation: &mut dyn Computation,
) -> Result<(Gathered, G), BackendError> {
    let params = context.params;
    let max_out_of_order = max_out_of_order(params, context.batch_target);
    let mut gathered = Gathered::default();
    let mut batch_size = 0;
    let mut out_of_order = 0;
    let mut collisions_left = i64::from(context.collision_budget);
    // Kairos, not lc0 (GatherWithinPlayoutsLeft): a gather makes no more playouts than the stoppers expect the move
    // to have left, so that on a short clock one gather of cache hits and terminals (up to MaxOutOfOrderEvalsFactor
    // batches) cannot overrun the move's time (EXPERIMENTS.md, #34 item 1's time losses).
    let playouts_left = if context.within_playouts_left {
        usize::try_from(context.remaining_playouts).unwrap_or(usize::MAX).max(1)
    } else {
        usize::MAX
    };
    let root_len = state.tree.history.len();
    let mut history = {
        let _timer = enter(Stage::History);
        LeafHistory::new(state.tree.history.clone())
    };
    let mut pass_buffers = PassBuffers::default();
    let (mut visits, mut collisions) = (Vec::new(), Vec::new());
    let (mut new_leaves, mut path_moves) = (Vec::new(), Vec::new());
    while batch_size < context.batch_target
        && out_of_order < max_out_of_order
        && batch_size + out_of_order < playouts_left
    {
        if batch_size > 0 && computation.queued() == 0 {
            break;
        }
        if batch_size > 0 && computation.queued() > params.idling_minimum_work && (context.backend_idle)() {
            break;
        }
        if state.tree.root.n > 0 && (context.stopping)() {
            break;
        }
        let limit = collisions_left
            .min((context.batch_target - batch_size) as i64)
            .min((max_out_of_order - out_of_order) as i64)
            .min(i64::try_from(playouts_left - batch_size - out_of_order).unwrap_or(i64::MAX))
            .max(1) as u32;
        let TreeState { tree, progress } = &mut *state;
        let paths = &mut gathered.store.paths;
        let reverted_visits = pick_nodes(tree, limit, context, &mut pass_buffers, paths);
        // lc0: reverted two-fold visits were reused visits the search no longer has (initial_visits_).
        progress.reused_visits = progress.reused_visits.saturating_sub(reverted_visits);
        if pass_buffers.picked.is_empty() {
            break;
        }
        // Under the lock, only what the examination needs from the tree: each new leaf's moves from the root.
        path_moves.clear();
        for pick in pass_buffers.picked.drain(..) {
            match pick {
                Picked::Visit(path) => {
                    batch_size += 1;
                    let start = path_moves.len();
                    if push_moves_along(&tree.root, path.of(paths), &mut path_moves).n == 0 {
                        new_leaves.push((visits.len(), start..path_moves.len()));
                    } else {
                        path_moves.truncate(start);
                    }
                    visits.push(Leaf { path, moves: Span::default(), value: LeafValue::Terminal });
                }
                Picked::Collision(collision) => collisions.push(collision),
            }
        }
        drop(state);
        let mut proofs = Vec::new();
        for (index, moves) in new_leaves.drain(..) {
            {
                let _timer = enter(Stage::History);
                history.go_to(&path_moves[moves]);
            }
            let leaf = &mut visits[index];
            let moves = &mut gathered.store.moves;
            let examined = examine_leaf(leaf.path.len(), &history.positions, context, computation, moves)?;
            leaf.moves = examined.moves;
            match examined.verdict {
                Verdict::Value(value) => leaf.value = value,
                Verdict::Proven(proof) => proofs.push((index, proof)),
            }
        }
        state = relock();
        let TreeState { tree, progress } = &mut *state;
        let store = &gathered.store;
        for (index, proof) in proofs {
            proof.write(tree, progress, visits[index].path.of(&store.paths));
        }
        let ready = |leaf: &Leaf| matches!(leaf.value, LeafValue::Ready(_) | LeafValue::Terminal);
        if params.out_of_order_eval && visits.iter().any(ready) {
            // As lc0: drop this pass's collisions (they may have been caused by the out-of-order leaves) and
            // back the ready leaves up at once, the last picked first.
            let timer = enter(Stage::Collisions);
            for collision in &collisions {
                cancel_collision(&mut tree.root, collision, &store.paths);
            }
            collisions.clear();
            drop(timer);
            let mut waiting = Vec::new();
            for leaf in visits.drain(..).rev() {
                if ready(&leaf) {
                    let _timer = enter(Stage::Backup);
                    finish_leaf(tree, progress, leaf, store, context)?;
                    gathered.out_of_order_playouts += 1;
                    batch_size -= 1;
                    out_of_order += 1;
                } else {
                    waiting.push(leaf);
                }
            }
            waiting.reverse();
            visits.append(&mut waiting);
        }
        gathered.leaves.append(&mut visits);
        let _timer = enter(Stage::Collisions);
        let mut budget_spent = false;
        for mut collision in collisions.drain(..) {
            if collision.max_visits > 0 && collisions_left > i64::from(collision.multivisit) {
                let extra = (i64::from(collision.max_visits).min(collisions_left)
                    - i64::from(collision.multivisit)) as u32;
                collision.multivisit += extra;
                add_in_flight_above(&mut tree.root, collision.path.of(&gathered.store.paths), extra);
            }
            collisions_left -= i64::from(collision.multivisit);
            gathered.collisions.push(collision);
            if collisions_left <= 0 || (context.stopping)() {
                budget_spent = true;
            }
        }
        if budget_spent {
            break;
        }
    }
    if !(context.stopping)() {
        let _timer = enter(Stage::Prefetch);
        let mut history = history.positions;
        history.truncate(root_len);
        prefetch(&state.tree.root, &mut history, params, context.draw_score, computation)?;
    }
    Ok((gathered, state))
}

/// Backs up the gathered leaves with the batch's `results` and cancels the collisions; returns the playouts.
pub fn finish(
    tree: &mut Tree,
    progress: &mut Progress,
    gathered: Gathered,
    context: &GatherContext<'_>,
) -> Result<u64, BackendError> {
    let mut playouts = gathered.out_of_order_playouts;
    let timer = enter(Stage::Collisions);
    for collision in &gathered.collisions {
        cancel_collision(&mut tree.root, collision, &gathered.store.paths);
    }
    drop(timer);
    for leaf in gathered.leaves {
        finish_leaf(tree, progress, leaf, &gathered.store, context)?;
        playouts += 1;
    }
    Ok(playouts)
}

/// Makes each leaf's evaluation from the computed batch into its edges, without the tree: as lc0 fills a new
/// node's priors outside its lock (FetchMinibatchResults), so that another search thread may hold the tree
/// meanwhile. [`finish`] then only puts them in place and backs up.
pub fn prepare(gathered: &mut Gathered, mut results: Vec<Evaluation>) -> Result<(), BackendError> {
    let mut keys = Vec::new();
    let Gathered { leaves, store, .. } = gathered;
    for leaf in leaves {
        let moves = leaf.moves.of(&store.moves);
        let prepared = match &mut leaf.value {
            LeafValue::Queued(index) => {
                let index = *index;
                let evaluation = results.get_mut(index).map(std::mem::take).ok_or_else(|| {
                    BackendError::Compute(format!("the batch returned no result for position {index}"))
                })?;
                PreparedLeaf::new(moves, evaluation, true, &mut keys)?
            }
            LeafValue::Ready(evaluation) => {
                PreparedLeaf::new(moves, std::mem::take(evaluation), false, &mut keys)?
            }
            LeafValue::Prepared(_) | LeafValue::Terminal => continue,
        };
        leaf.value = LeafValue::Prepared(prepared);
    }
    Ok(())
}

/// Takes every gathered visit out of flight without backing anything up (the batch failed).
pub fn abandon(tree: &mut Tree, gathered: Gathered) {
    let paths = &gathered.store.paths;
    for collision in &gathered.collisions {
        cancel_collision(&mut tree.root, collision, paths);
    }
    for leaf in &gathered.leaves {
        cancel_visit(&mut tree.root, leaf.path.of(paths));
    }
}

/// Takes a collision's visits out of flight on the nodes above it, its path in `paths`.
fn cancel_collision(root: &mut Node, collision: &Collision, paths: &[u16]) {
    for_each_above(root, collision.path.of(paths), |node| node.n_in_flight -= collision.multivisit);
}

/// Puts `count` more visits in flight on the nodes above the end of `path` (the root included).
fn add_in_flight_above(root: &mut Node, path: &[u16], count: u32) {
    for_each_above(root, path, |node| node.n_in_flight += count);
}

/// Calls `f` on the root and every node down to the parent of the end of `path` (none for an empty path).
fn for_each_above(root: &mut Node, path: &[u16], mut f: impl FnMut(&mut Node)) {
    let Some((_, above)) = path.split_last() else {
        return;
    };
    let mut node = root;
    f(node);
    for &index in above {
        node = child_at(node, index);
        f(node);
    }
}

fn child_at(node: &mut Node, index: u16) -> &mut Node {
    node.child_mut(usize::from(index))
        .expect("paths follow existing children")
}

/// The game's positions up to one leaf of the gather: moving to the next leaf replays only the moves after the
/// two leaves' common ancestor (a pass picks its leaves in depth-first order, so they share most of their path).
struct LeafHistory {
    positions: PositionHistory,
    root_len: usize,
    /// The moves from the root to the last position.
    moves: Vec<PackedMove>,
}

impl LeafHistory {
    fn new(root: PositionHistory) -> Self {
        Self { root_len: root.len(), positions: root, moves: Vec::new() }
    }

    /// Makes the last position the one after `wanted`, the moves from the root.
    fn go_to(&mut self, wanted: &[PackedMove]) {
        let common = self.moves.iter().zip(wanted).take_while(|(a, b)| a == b).count();
        self.positions.truncate(self.root_len + common);
        self.moves.truncate(common);
        for &mv in &wanted[common..] {
            self.positions.push(mv.unpack(self.positions.last().board()));
            self.moves.push(mv);
        }
    }
}

/// Appends the moves from the root to the end of `path`; the node there.
fn push_moves_along<'a>(root: &'a Node, path: &[u16], moves: &mut Vec<PackedMove>) -> &'a Node {
    let mut node = root;
    for &index in path {
        moves.push(node.edges[usize::from(index)].mv);
        node = node.child(usize::from(index)).expect("paths follow existing children");
    }
    node
}

/// One multi-visit pass from the root, lc0's PickNodesToExtendTask without task workers: `limit` visits
/// are handed down the tree, each node giving its best child as many as it takes for the second best to catch
/// up; a new or proven node takes one visit and the rest collide there. Leaves the picks in `buffers.picked`, their
/// paths appended to `paths`, and returns the visits of stale two-fold draws it reverted on the way.
fn pick_nodes(
    tree: &mut Tree,
    limit: u32,
    context: &GatherContext<'_>,
    buffers: &mut PassBuffers,
    paths: &mut Vec<u16>,
) -> u64 {
    // The best root move is wanted only to prune those that cannot catch up with it in the playouts left, and none
    // is behind it by more than the root's visits.
    let can_prune = context.remaining_playouts < u64::from(tree.root.n);
    let best = can_prune.then(|| best_root_edge(&tree.root, context.filter, context.draw_score)).flatten();
    let mut pass = Pass {
        context,
        limit,
        root_best: best,
        root_best_n: best.map_or(0, |i| tree.root.edge(i).n()),
        max_limit: u32::MAX,
        new_nodes: 0,
        picked: std::mem::take(&mut buffers.picked),
        reverted_visits: 0,
        scores: std::mem::take(&mut buffers.scores),
        spare_counts: std::mem::take(&mut buffers.spare_counts),
        paths,
    };
    let mut path = std::mem::take(&mut buffers.path);
    path.clear();
    pass.hand_out(&mut tree.root, &mut path, limit, true);
    buffers.path = path;
    tree.node_count += pass.new_nodes;
    buffers.scores = pass.scores;
    buffers.spare_counts = pass.spare_counts;
    buffers.picked = pass.picked;
    pass.reverted_visits
}

/// The buffers of a gather's passes, kept from one pass to the next: allocated afresh for each pass, they grew
/// again in every pass, most of which pick one or two leaves.
#[derive(Default)]
struct PassBuffers {
    scores: ScoreScratch,
    spare_counts: Vec<Vec<u32>>,
    /// What the last pass picked, drained by the gather.
    picked: Vec<Picked>,
    /// The path from the root to the node being visited.
    path: Vec<u16>,
}

/// The state of one pass.
struct Pass<'a, 'c, 'p> {
    context: &'a GatherContext<'c>,
    limit: u32,
    root_best: Option<usize>,
    root_best_n: u32,
    /// The fewest visits after which some node's best child would change, over the pass so far.
    max_limit: u32,
    new_nodes: u64,
    picked: Vec<Picked>,
    /// Visits of the stale two-fold draws reverted in this pass.
    reverted_visits: u64,
    /// The buffers of a node's scoring, reused by every node of the gather's passes (a node's scoring ends before its
    /// children's begins): allocating them at each node took a fifth of a search's time with a fast backend.
    scores: ScoreScratch,
    /// Visit-count buffers of the nodes whose children are being visited, one per level, reused.
    spare_counts: Vec<Vec<u32>>,
    /// Where the picks' paths go.
    paths: &'p mut Vec<u16>,
}

/// A node's reachable children as its scoring loop sees them, and at the root whether each is allowed.
#[derive(Default)]
struct ScoreScratch {
    children: Vec<ScoredChild>,
    allowed: Vec<bool>,
}

impl ScoreScratch {
    /// Scores the first `reachable` children of `node` into `children`: one read of each edge and its child for the
    /// prior, the visits started and, where lc0's VisitedNodes walk counts the child visited, its utility. The same
    /// walk sums the visited children's priors for the FPU that the others take (as `select::fpu` would in a second
    /// walk), also of children past `reachable`; none lies past the child slots, since a slot exists up to the
    /// highest child created and a solid node's walk ends at its first child without visits started.
    fn score(
        &mut self,
        node: &Node,
        reachable: usize,
        params: &SearchParams,
        draw_score: f32,
        moves_left: MovesLeftUtility<'_>,
        puct_mult: f32,
    ) {
        let children = &mut self.children;
        children.clear();
        let mut walk = Some(VisitedWalk::new(node));
        let mut visited_policy = 0.0;
        for (index, (edge, slot)) in node.edges.iter().zip(node.children.iter()).enumerate() {
            let child = slot.created().then_some(slot);
            let edge = EdgeAndNode { mv: edge.mv, prior: edge.prior, node: child };
            let visited = match walk.as_mut().map(|walk| walk.step(edge)) {
                Some(Some(visited)) => visited,
                Some(None) => {
                    walk = None;
                    false
                }
                None => false,
            };
            let policy = edge.p();
            if visited {
                visited_policy += policy;
            }
            if index >= reachable {
                if walk.is_none() {
                    break;
                }
                continue;
            }
            let utility = match child {
                Some(child) if visited => {
                    let q = child.q(draw_score);
                    q + moves_left.of(edge, q)
                }
                _ => 0.0,
            };
            children.push(ScoredChild { policy, utility, started: edge.n_started(), score: 0.0, visited });
        }
        let unslotted = &node.edges[children.len()..reachable];
        children.extend(unslotted.iter().map(|edge| ScoredChild {
            policy: edge.p(),
            utility: 0.0,
            started: 0,
            score: 0.0,
            visited: false,
        }));
        let fpu = fpu_given_visited_policy(params, node, draw_score, visited_policy);
        for child in children.iter_mut() {
            if !child.visited {
                child.utility = fpu;
            }
            child.rescore(puct_mult);
        }
    }
}

/// One child as the scan for the best reads it, in one row so that the scoring loop stores it at once.
#[derive(Clone, Copy)]
struct ScoredChild {
    policy: f32,
    /// The child's Q and moves-left utility where the walk counts it visited, else the FPU.
    utility: f32,
    /// Visits completed or in flight.
    started: u32,
    score: f32,
    visited: bool,
}

impl ScoredChild {
    /// Sets the score from the prior, the visits started and the utility.
    #[inline(always)]
    fn rescore(&mut self, puct_mult: f32) {
        self.score = puct_score(self.policy, puct_mult, self.started, self.utility);
    }
}

/// Visits taken out of a subtree by reverting a stale two-fold draw: how many, and their moves left as seen
/// from the node that reports them to its parent.
struct Reverted {
    visits: u32,
    m: f32,
}

/// lc0's Node::RevertTerminalVisits (node.cc 375–392) for the draws of a two-fold (W−L 0, D 1) with moves left
/// `m`: an emptied node reads as a draw.
fn revert_draw_visits(node: &mut Node, visits: u32, m: f32) {
    let remaining = node.n.saturating_sub(visits);
    if remaining == 0 {
        node.wl = 0.0;
        node.d = 1.0;
        node.m = 0.0;
    } else {
        let (k, left) = (visits as f32, remaining as f32);
        node.wl -= f64::from(visits) * (0.0 - node.wl) / f64::from(remaining);
        node.d -= k * (1.0 - node.d) / left;
        node.m -= k * (m - node.m) / left;
    }
    node.n = remaining;
}

/// lc0's Node::TryStartScoreUpdate: a node without visits that is already being evaluated takes no more.
fn try_start(node: &mut Node) -> bool {
    if node.n == 0 && node.n_in_flight > 0 {
        return false;
    }
    node.n_in_flight += 1;
    true
}

impl Pass<'_, '_, '_> {
    /// Whether the root move at `index` may still be searched: allowed by `searchmoves`, and (smart pruning)
    /// the current best or still able to catch up with it in the remaining playouts.
    fn root_allows(&self, index: usize, edge: EdgeAndNode<'_>) -> bool {
        if Some(index) != self.root_best {
            let behind = i64::from(self.root_best_n) - i64::from(edge.n());
            if i64::try_from(self.context.remaining_playouts).unwrap_or(i64::MAX) < behind {
                return false;
            }
        }
        self.context.filter.allows(edge.mv)
    }

    /// Hands `limit` visits out below `node`; returns the visits of stale two-folds reverted below it, which
    /// `node`'s ancestors lose too.
    fn hand_out(&mut self, node: &mut Node, path: &mut Vec<u16>, mut limit: u32, is_root: bool) -> Vec<Reverted> {
        if node.n == 0 || node.terminal != Terminal::No {
            if is_root && try_start(node) {
                limit -= 1;
                self.picked.push(Picked::Visit(Span::append(self.paths, path)));
            }
            if limit > 0 {
                let max_visits =
                    if limit == self.limit && self.max_limit > limit { self.max_limit } else { 0 };
                self.picked.push(Picked::Collision(Collision {
                    path: Span::append(self.paths, path),
                    multivisit: limit,
                    max_visits,
                }));
            }
            return Vec::new();
        }
        if is_root {
            node.n_in_flight += limit;
        }
        let params = self.context.params;
        // lc0 looks only at the first edges (sorted by prior) that this pass could reach, and stops a scan
        // one edge after the first edge without visits.
        let reachable = if is_root && !self.context.filter.is_empty() {
            node.edges.len()
        } else {
            node.edges.len().min((node.n + node.n_in_flight + limit + 2) as usize)
        };
        let draw_score = self.context.draw_score.at(path.len());
        let moves_left = MovesLeftUtility::new(params, node, self.context.has_moves_left);
        let puct_mult = puct_multiplier(params, node);
        let mut scratch = std::mem::take(&mut self.scores);
        scratch.score(node, reachable, params, draw_score, moves_left, puct_mult);
        let ScoreScratch { children, allowed } = &mut scratch;
        allowed.clear();
        // Without `searchmoves`, and without a best root move to prune the others against, every root move is allowed.
        if is_root && (self.root_best.is_some() || !self.context.filter.is_empty()) {
            allowed.extend((0..reachable).map(|i| self.root_allows(i, node.edge(i))));
        }
        let mut to_perform = self.spare_counts.pop().unwrap_or_default();
        to_perform.clear();
        to_perform.resize(reachable, 0);
        // The children below the highest one handed visits: the rest of `to_perform` stays 0.
        let mut handed = 0;
        let mut reverted = Vec::new();
        // The scan for the best child is most of a pass's time. Where every child is allowed (always below the root,
        // and at the root unless `searchmoves` or pruning leave one out) it ends one child after the first without
        // visits started, which only moves on as visits start.
        let some_child_barred = allowed.iter().any(|&allowed| !allowed);
        let mut first_unstarted = children.iter().position(|child| child.started == 0).unwrap_or(reachable);
        while limit > 0 {
            let Ranking { best, second_score, has_second, .. } = if some_child_barred {
                rank_allowed(children, allowed)
            } else {
                rank(&children[..reachable.min(first_unstarted + 2)])
            };
            let Some(best) = best else {
                // No root move is allowed (lc0 always keeps its best one): take the visits back, pick nothing.
                node.n_in_flight -= limit;
                break;
            };
            let mut new_visits = limit;
            if has_second {
                let mut to_change_best = u32::MAX;
                let ScoredChild { policy, utility, started, .. } = children[best];
                if utility < second_score {
                    let n1 = (started + 1) as f32;
                    let estimate = (policy * puct_mult / (second_score - utility) - n1 + 1.0)
                        .clamp(1.0, 1e9);
                    to_change_best = estimate as u32;
                }
                self.max_limit = self.max_limit.min(to_change_best);
                new_visits = limit.min(to_change_best);
            }
            to_perform[best] += new_visits;
            handed = handed.max(best + 1);
            limit -= new_visits;
            let (child, created) = node.create_child(best);
            if created {
                self.new_nodes += 1;
            }
            // lc0's EnsureNodeTwoFoldCorrectForDepth (search.cc 1532–1570): a two-fold draw whose first
            // occurrence now lies before the root (a reused tree) becomes a fresh node when the picker reaches it,
            // and its draws leave every node above it; until then they count, as in lc0.
            let depth = path.len() + 1;
            if child.terminal == Terminal::TwoFold && (depth as f32) < child.m {
                let stale = Reverted { visits: child.n, m: child.m };
                *child = child.renewed_in_place();
                self.reverted_visits += u64::from(stale.visits);
                revert_draw_visits(node, stale.visits, stale.m + 1.0);
                reverted.push(Reverted { visits: stale.visits, m: stale.m + 1.0 });
            }
            let child = node.child_mut(best).expect("the child was just created");
            if try_start(child) {
                let scored = &mut children[best];
                scored.started += 1;
                new_visits -= 1;
                let expanded = child.n > 0 && child.terminal == Terminal::No;
                if expanded {
                    child.n_in_flight += new_visits;
                    scored.started += new_visits;
                } else {
                    to_perform[best] -= 1;
                    path.push(best as u16);
                    self.picked.push(Picked::Visit(Span::append(self.paths, path)));
                    path.pop();
                }
                scored.rescore(puct_mult);
                while first_unstarted < reachable && children[first_unstarted].started > 0 {
                    first_unstarted += 1;
                }
            } else {
                // A collision changes nothing the scan reads, so lc0's loop would pick this child again, turn
                // after turn, until the limit is spent: it gets the rest at once.
                to_perform[best] += limit;
                limit = 0;
            }
        }
        self.scores = scratch;
        for (index, &visits) in to_perform[..handed].iter().enumerate() {
            if visits == 0 {
                continue;
            }
            let child = node
                .child_mut(index)
                .expect("visits were handed to an existing child");
            path.push(index as u16);
            let below = self.hand_out(child, path, visits, false);
            path.pop();
            for stale in below {
                revert_draw_visits(node, stale.visits, stale.m + 1.0);
                reverted.push(Reverted { visits: stale.visits, m: stale.m + 1.0 });
            }
        }
        self.spare_counts.push(to_perform);
        reverted
    }
}

/// A child's PUCT score from its prior, the node's exploration multiplier, its visits started and its utility, in
/// lc0's order of operations (PickNodesToExtendTask).
#[inline(always)]
fn puct_score(p: f32, puct_mult: f32, started: u32, utility: f32) -> f32 {
    p * puct_mult / (1 + started) as f32 + utility
}

/// The scan's outcome over a node's children: the best one and its score, and the second-best score if any other
/// was scanned.
struct Ranking {
    best: Option<usize>,
    best_score: f32,
    second_score: f32,
    has_second: bool,
}

/// lc0's scan for the best child (PickNodesToExtendTask) over the children `allowed` lets through: the highest score
/// wins (the first on a tie), and the scan ends one allowed child after the first without visits started, since
/// the children are sorted by prior.
fn rank_allowed(children: &[ScoredChild], allowed: &[bool]) -> Ranking {
    let mut ranking = Ranking::new();
    let mut can_exit = false;
    for (index, (child, &allowed)) in children.iter().zip(allowed).enumerate() {
        if !allowed {
            continue;
        }
        ranking.update(index, child.score);
        if can_exit {
            break;
        }
        if child.started == 0 {
            can_exit = true;
        }
    }
    ranking
}

/// The same scan over children that are all allowed, `scanned` ending where the scan ends.
#[inline(always)]
fn rank(scanned: &[ScoredChild]) -> Ranking {
    let mut ranking = Ranking::new();
    for (index, child) in scanned.iter().enumerate() {
        ranking.update(index, child.score);
    }
    ranking
}

impl Ranking {
    fn new() -> Self {
        Self { best: None, best_score: f32::MIN, second_score: f32::MIN, has_second: false }
    }

    /// Takes the child at `index` into the ranking.
    #[inline(always)]
    fn update(&mut self, index: usize, score: f32) {
        if score > self.best_score {
            self.has_second = self.best.is_some();
            self.second_score = self.best_score;
            self.best_score = score;
            self.best = Some(index);
        } else if score > self.second_score {
            self.second_score = score;
            self.has_second = true;
        }
    }
}

/// What the examination of a new leaf found: its legal moves, in the store's buffer, and its verdict.
struct Examined {
    moves: Span,
    verdict: Verdict,
}

/// A new leaf's value to wait for or take, or a proof to write into its node.
enum Verdict {
    Value(LeafValue),
    Proven(Proof),
}

/// A new leaf proven by the rules or the tables, found outside the tree lock and written into the node under it.
struct Proof {
    /// The result for the player who moved into the leaf: 1 a win, 0 a draw, −1 a loss.
    result: Bound,
    /// Plies left; None for a table's result, which gives none: the parent's estimate, one ply on.
    plies_left: Option<f32>,
    kind: Terminal,
}

impl Proof {
    /// Makes the node at `path` terminal with this result.
    fn write(&self, tree: &mut Tree, progress: &mut Progress, path: &[u16]) {
        let plies_left = self.plies_left.unwrap_or_else(|| {
            let parent_path = &path[..path.len().saturating_sub(1)];
            (node_at(&mut tree.root, parent_path).m - 1.0).max(0.0)
        });
        node_at(&mut tree.root, path).make_terminal(self.result, plies_left, self.kind);
        if self.kind == Terminal::Tablebase {
            progress.tb_hits += 1;
            if self.result == -1 {
                // As lc0's MakeTerminal (node.cc 313–315): a proven loss keeps no exploration bonus.
                let (&index, parent_path) = path.split_last().expect("below the root");
                node_at(&mut tree.root, parent_path).edges[usize::from(index)].prior = encode_prior(0.0);
            }
        }
    }
}

/// Appends the moves of a new leaf `plies_from_root` below the root, the last position of `history`, to `moves`,
/// detects terminals (docs/lc0/search.md §4.7) and queues the rest for the network; reads nothing of the tree.
fn examine_leaf(
    plies_from_root: usize,
    history: &PositionHistory,
    context: &GatherContext<'_>,
    computation: &mut dyn Computation,
    moves: &mut Vec<Move>,
) -> Result<Examined, BackendError> {
    let params = context.params;
    let position = history.last();
    let legal = Span::append(moves, &position.legal_moves());
    let proven = |result, plies_left, kind| {
        Ok(Examined { moves: legal, verdict: Verdict::Proven(Proof { result, plies_left, kind }) })
    };
    if legal.is_empty() {
        let result = if position.is_check() { 1 } else { 0 };
        return proven(result, Some(0.0), Terminal::EndOfGame);
    }
    if plies_from_root > 0 {
        let plies_from_root = plies_from_root as u32;
        let repetitions = history.last_repetitions();
        let cycle = history.last_cycle_length();
        if !has_mating_material(position) || position.halfmoves() >= 100 || repetitions >= 2 {
            return proven(0, Some(0.0), Terminal::EndOfGame);
        }
        if repetitions == 1
            && plies_from_root >= 4
            && params.two_fold_draws
            && plies_from_root >= cycle
        {
            return proven(0, Some(cycle as f32), Terminal::TwoFold);
        }
        if let Some(tables) = context.tablebases {
            if position.halfmoves() == 0 && tables.covers(position) {
                if let Some(wdl) = tables.probe_wdl_after_zeroing(position) {
                    let result = match wdl {
                        Wdl::Win => -1,
                        Wdl::Loss => 1,
                        // Cursed wins and blessed losses are draws under the fifty-move rule.
                        Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => 0,
                    };
                    return proven(result, None, Terminal::Tablebase);
                }
            }
        }
    }
    let request = EvalRequest {
        history: history.entries(),
        moves: legal.of(moves),
    };
    let value = match computation.add(&request)? {
        Added::Queued(index) => LeafValue::Queued(index),
        Added::Ready(evaluation) => LeafValue::Ready(evaluation),
    };
    Ok(Examined { moves: legal, verdict: Verdict::Value(value) })
}

fn node_at<'a>(root: &'a mut Node, path: &[u16]) -> &'a mut Node {
    let mut node = root;
    for &index in path {
        node = node
            .child_mut(usize::from(index))
            .expect("leaf path follows existing children");
    }
    node
}

fn finish_leaf(
    tree: &mut Tree,
    progress: &mut Progress,
    leaf: Leaf,
    store: &Store,
    context: &GatherContext<'_>,
) -> Result<(), BackendError> {
    let moves = leaf.moves.of(&store.moves);
    let prepared = match leaf.value {
        LeafValue::Terminal => None,
        LeafValue::Prepared(prepared) => Some(prepared),
        LeafValue::Ready(evaluation) => Some(PreparedLeaf::new(moves, evaluation, false, &mut Vec::new())?),
        LeafValue::Queued(index) => {
            return Err(BackendError::Compute(format!("position {index} of the batch was never prepared")));
        }
    };
    let path = leaf.path.of(&store.paths);
    let node = node_at(&mut tree.root, path);
    let (v, d, m) = match prepared {
        None => (node.wl as f32, node.d, node.m),
        Some(prepared) => {
            if prepared.from_network {
                progress.network_evaluations += 1;
            }
            tree.edge_count += prepared.edges.len() as u64;
            node.edges = prepared.edges;
            node.set_network_wl(-prepared.wl);
            if path.is_empty() {
                progress.root_moves_left = Some(prepared.m);
            }
            let (v, d) = if context.contempt.reshapes_evaluations() {
                context.contempt.leaf(-prepared.wl, prepared.d, path.len())
            } else {
                (-prepared.wl, prepared.d)
            };
            (v, d, prepared.m)
        }
    };
    backup(
        &mut tree.root,
        path,
        v,
        d,
        m,
        context.params.sticky_endgames,
    );
    let depth = path.len() as u32 + 1;
    progress.playouts += 1;
    progress.cumulative_depth += u64::from(depth);
    progress.max_depth = progress.max_depth.max(depth);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nn::test_backend::{TestBackend, TestMode};
    use nn::Backend;
    use shakmaty::Chess;
    use std::sync::{Mutex, MutexGuard};

    /// Runs `body` with a gather context for `params` without a root filter, contempt or tablebases, the batch
    /// target, the collision budget, the stoppers' playouts left and whether the backend is idle given.
    fn with_context<R>(
        params: &SearchParams,
        (batch_target, collision_budget, remaining_playouts): (usize, u32, u64),
        backend_idle: bool,
        body: impl FnOnce(&GatherContext<'_>) -> R,
    ) -> R {
        let (filter, contempt) = (RootFilter::default(), SearchContempt::default());
        let (stopping, idle) = (|| false, move || backend_idle);
        body(&GatherContext {
            params,
            filter: &filter,
            tablebases: None,
            contempt: &contempt,
            draw_score: DrawScore::default(),
            has_moves_left: false,
            batch_target,
            collision_budget,
            remaining_playouts,
            within_playouts_left: true,
            stopping: &stopping,
            backend_idle: &idle,
        })
    }

    /// A fresh tree at the start position with no counters, behind a lock as the search keeps it.
    fn fresh_state() -> Mutex<TreeState> {
        Mutex::new(TreeState { tree: Tree::default(), progress: Progress::default() })
    }

    fn state_of(state: &Mutex<TreeState>) -> MutexGuard<'_, TreeState> {
        state.lock().unwrap()
    }

    /// One gather from `state` as a search thread makes it, the lock taken again between passes.
    fn gather_from<'m>(
        state: &'m Mutex<TreeState>,
        context: &GatherContext<'_>,
        computation: &mut dyn Computation,
    ) -> (Gathered, MutexGuard<'m, TreeState>) {
        gather(state_of(state), || state_of(state), context, computation).unwrap()
    }

    /// The playouts of each of three gathers from the start position (each batch backed up before the next),
    /// MinibatchSize 32, with the backend idle or not, the collision budget and the stoppers' playouts left given
    /// (no prefetch: it would add positions to the batch).
    fn playouts_per_gather(backend_idle: bool, collision_budget: u32, remaining_playouts: u64) -> Vec<usize> {
        let defaults = crate::options::EngineOptions::default().search_params();
        let params =
            SearchParams { minibatch_size: 32, max_prefetch: 0, ..defaults };
        let backend = TestBackend::new(TestMode::Random { seed: 3 });
        let state = fresh_state();
        with_context(&params, (32, collision_budget, remaining_playouts), backend_idle, |context| {
            (0..3)
                .map(|_| {
                    let mut computation = backend.new_computation();
                    let (mut gathered, held) = gather_from(&state, context, computation.as_mut());
                    let playouts = computation.queued() + gathered.out_of_order_playouts as usize;
                    drop(held);
                    prepare(&mut gathered, computation.compute().unwrap()).unwrap();
                    let TreeState { tree, progress } = &mut *state_of(&state);
                    finish(tree, progress, gathered, context).unwrap();
                    playouts
                })
                .collect()
        })
    }

    /// The first gather of a fresh tree (the root alone), the batch computed, and `results` edited before it is
    /// prepared and put in the tree; the prepared error if any, else the root's moves and priors in edge order.
    fn root_after(edit: impl Fn(&mut Vec<Evaluation>)) -> Result<Vec<(PackedMove, f32)>, BackendError> {
        let params = SearchParams { max_prefetch: 0, ..crate::options::EngineOptions::default().search_params() };
        let backend = TestBackend::new(TestMode::Random { seed: 5 });
        let state = fresh_state();
        with_context(&params, (8, 1, u64::MAX), false, |context| {
            let mut computation = backend.new_computation();
            let (mut gathered, held) = gather_from(&state, context, computation.as_mut());
            drop(held);
            let mut results = computation.compute().unwrap();
            edit(&mut results);
            prepare(&mut gathered, results)?;
            let TreeState { tree, progress } = &mut *state_of(&state);
            finish(tree, progress, gathered, context).unwrap();
            Ok(tree.root.edges.iter().map(|edge| (edge.mv, edge.p())).collect())
        })
    }

    #[test]
    fn a_prepared_leaf_gets_every_legal_move_sorted_by_prior() {
        let priors: Vec<f32> = root_after(|_| {}).unwrap().into_iter().map(|(_, p)| p).collect();
        assert_eq!(priors.len(), 20, "the start position's 20 moves");
        assert!(priors.windows(2).all(|pair| pair[0] >= pair[1]), "{priors:?}");
        assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-2, "{priors:?}");
    }

    #[test]
    fn equal_priors_keep_the_order_of_the_legal_moves() {
        // The start position's 20 legal moves in shakmaty's order, every third given 0.08 and the rest 0.03: moves
        // 0, 3, …, 18 come first and the others after them, each group in the order of the legal moves.
        let legal: Vec<PackedMove> = Chess::default().legal_moves().iter().map(PackedMove::pack).collect();
        let prior_of = |index: usize| if index % 3 == 0 { 0.08 } else { 0.03 };
        let edges = root_after(|results| {
            results[0].policy = (0..legal.len()).map(prior_of).collect();
        })
        .unwrap();
        let (high, low): (Vec<usize>, Vec<usize>) = (0..legal.len()).partition(|&index| prior_of(index) > 0.05);
        let expected: Vec<PackedMove> = high.into_iter().chain(low).map(|index| legal[index]).collect();
        assert_eq!(edges.iter().map(|&(mv, _)| mv).collect::<Vec<_>>(), expected);
        assert!(edges[..7].iter().all(|&(_, p)| (p - 0.08).abs() < 1e-3), "{edges:?}");
        assert!(edges[7..].iter().all(|&(_, p)| (p - 0.03).abs() < 1e-3), "{edges:?}");
    }

    #[test]
    fn the_fpu_counts_every_visited_child_also_past_the_reachable_ones() {
        // lc0's FPU reduction takes the priors of every child its VisitedNodes walk counts visited (GetVisitedPolicy),
        // whether a pass can reach it or not (reverted two-fold draws can leave a node fewer visits than its children
        // reach). The start position's 20 moves with priors 0.3, eleven of 0.05 and eight of 0.15/8; the first and
        // the twelfth children visited once (WL 0.1 and −0.2), the node three times (WL −0.05); 5 reachable.
        let moves = Chess::default().legal_moves();
        let prior_of = |index: usize| match index {
            0 => 0.3,
            1..=11 => 0.05,
            _ => 0.15 / 8.0,
        };
        let visited_once = |wl| Node { n: 1, wl, d: 0.2, m: 30.0, ..Node::default() };
        let edges = (0..moves.len())
            .map(|index| {
                let child = match index {
                    0 => Some(visited_once(0.1)),
                    11 => Some(visited_once(-0.2)),
                    _ => None,
                };
                (Edge::new(&moves[index], prior_of(index)), child)
            })
            .collect();
        let node = Node::with_edges(edges, Node { n: 3, wl: -0.05, d: 0.3, m: 31.0, ..Node::default() });
        let params = crate::options::EngineOptions::default().search_params();
        assert!(!params.fpu_absolute, "the default FPU is relative to the node's Q");
        let mut scratch = ScoreScratch::default();
        scratch.score(&node, 5, &params, 0.0, MovesLeftUtility::new(&params, &node, false), 1.0);
        // FPU = −Q − FpuValue·√(p₀ + p₁₁) at draw score 0, the priors as their 16 bits hold them.
        let (p0, p11) = (node.edges[0].p(), node.edges[11].p());
        let fpu = 0.05 - params.fpu_value * (p0 + p11).sqrt();
        assert!((fpu - (0.05 - params.fpu_value * p0.sqrt())).abs() > 1e-3, "the twelfth child matters");
        let utilities: Vec<f32> = scratch.children.iter().map(|child| child.utility).collect();
        assert_eq!(utilities.len(), 5);
        assert!((utilities[0] - 0.1).abs() < 1e-6, "{utilities:?}");
        assert!(utilities[1..].iter().all(|&utility| (utility - fpu).abs() < 1e-6), "{utilities:?}, FPU {fpu}");
    }

    #[test]
    fn a_batch_short_of_results_or_priors_is_an_error() {
        let error = root_after(|results| results.clear()).unwrap_err().to_string();
        assert!(error.contains("no result for position 0"), "{error}");
        let one_prior_short = |results: &mut Vec<Evaluation>| {
            results[0].policy.pop();
        };
        let error = root_after(one_prior_short).unwrap_err().to_string();
        assert!(error.contains("19 priors for 20 legal moves"), "{error}");
    }

    #[test]
    fn an_idle_backend_gets_each_gathers_first_leaves_at_once_as_lc0s() {
        // lc0's GatherMinibatch (search.cc 1322–1332, IdlingMinimumWork 0): with the backend idle, a gather
        // returns as soon as its batch holds a position for the network, so each gather sends the one leaf of
        // its first pass; with the backend busy, passes go on until a visit collides.
        // A collision budget of 1: each pass hands out one visit.
        assert_eq!(playouts_per_gather(true, 1, u64::MAX), vec![1, 1, 1]);
        let busy = playouts_per_gather(false, 1, u64::MAX);
        assert_eq!(busy[0], 1, "the root is the first gather's only leaf");
        assert!(busy[1..].iter().all(|&leaves| leaves > 1), "{busy:?}");
    }

    #[test]
    fn a_gather_makes_no_more_playouts_than_the_stoppers_expect_to_be_left() {
        // Without a limit the gathers after the root's pick more than 5 leaves; with 5 playouts left, 5 each.
        let unlimited = playouts_per_gather(false, 1000, u64::MAX);
        assert!(unlimited[1..].iter().all(|&playouts| playouts > 5), "{unlimited:?}");
        assert_eq!(playouts_per_gather(false, 1000, 5), vec![1, 5, 5]);
    }

    /// A computation that notes, at each position added, whether the tree's lock was free at that moment.
    struct LockWatcher<'a> {
        inner: Box<dyn Computation + 'a>,
        state: &'a Mutex<TreeState>,
        lock_free: Vec<bool>,
    }

    impl Computation for LockWatcher<'_> {
        fn add(&mut self, request: &EvalRequest<'_>) -> Result<Added, BackendError> {
            self.lock_free.push(self.state.try_lock().is_ok());
            self.inner.add(request)
        }

        fn queued(&self) -> usize {
            self.inner.queued()
        }

        fn compute(self: Box<Self>) -> Result<Vec<Evaluation>, BackendError> {
            self.inner.compute()
        }
    }

    #[test]
    fn a_gather_asks_for_its_leaves_evaluations_without_the_tree_lock_as_lc0() {
        // lc0's ProcessPickedTask (search.cc) generates a new leaf's moves and adds it to the computation after
        // PickNodesToExtend has let go of nodes_mutex_, so that another search thread may pick meanwhile.
        let defaults = crate::options::EngineOptions::default().search_params();
        let params = SearchParams { minibatch_size: 32, max_prefetch: 0, ..defaults };
        let backend = TestBackend::new(TestMode::Random { seed: 3 });
        let state = fresh_state();
        with_context(&params, (32, 1000, u64::MAX), false, |context| {
            for _ in 0..3 {
                let inner = backend.new_computation();
                let mut watcher = LockWatcher { inner, state: &state, lock_free: Vec::new() };
                let (mut gathered, held) = gather_from(&state, context, &mut watcher);
                drop(held);
                let lock_free = std::mem::take(&mut watcher.lock_free);
                assert!(!lock_free.is_empty() && lock_free.iter().all(|&free| free), "{lock_free:?}");
                prepare(&mut gathered, Box::new(watcher).compute().unwrap()).unwrap();
                let TreeState { tree, progress } = &mut *state_of(&state);
                finish(tree, progress, gathered, context).unwrap();
            }
        });
        assert!(state_of(&state).tree.root.n > 3);
    }

    #[test]
    fn reverted_draws_leave_a_nodes_means_as_lc0s_revert_terminal_visits() {
        // 6 visits with WL 0.5, D 0.5, M 3; 2 of them draws (WL 0, D 1) with M 5 leave: WL 0.5·6/4, D
        // (0.5·6 − 2)/4, M (3·6 − 10)/4.
        let mut node = Node { n: 6, wl: 0.5, d: 0.5, m: 3.0, ..Node::default() };
        revert_draw_visits(&mut node, 2, 5.0);
        assert_eq!(node.n, 4);
        assert!((node.wl - 0.75).abs() < 1e-9 && (node.d - 0.25).abs() < 1e-6 && (node.m - 2.0).abs() < 1e-6);
        // A node whose visits were all draws is left with none and reads as a draw.
        let mut emptied = Node { n: 2, wl: 0.3, d: 0.2, m: 7.0, ..Node::default() };
        revert_draw_visits(&mut emptied, 2, 5.0);
        assert_eq!((emptied.n, emptied.wl, emptied.d, emptied.m), (0, 0.0, 1.0, 0.0));
    }
}
