//! One worker iteration's tree side (docs/lc0/search.md §4.4–4.6): descend with virtual loss to collect leaves
//! (the passes of [`super::pick`]), detect terminals, back up out-of-order results, then expand and back up the
//! evaluated batch.

use super::backup::{backup, cancel_visit, BackupRules};
use super::gather_context::GatherContext;
use super::node::{Bound, Edge, Node, Terminal};
use super::packed_slice::PackedSlice;
use super::params::SearchParams;
use super::pick::{pick_nodes, Collision, PassBuffers, Picked, Span};
use super::prefetch::prefetch;
use super::stats::Progress;
use super::std_sort::std_sort;
use super::tree::{Tree, TreeState};
use crate::position::{has_mating_material, lc0_move_order, PackedMove, PositionHistory};
use nn::prior::encode_prior;
use nn::stage_timing::{enter, Stage};
use nn::{Added, BackendError, Computation, EvalRequest, Evaluation};
use shakmaty::{Color, Move, Position};
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
    /// The edges of a leaf with `moves` and `turn` to move from its evaluation, sorted by prior as lc0 sorts them;
    /// `keys` is a buffer for the sort, kept by the caller from one leaf to the next.
    fn new(
        moves: &[Move],
        turn: Color,
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
        // lc0 sorts its edges, in its move generator's order, by the 16-bit prior, highest first (node.cc,
        // SortEdges), with std::sort, which is not stable: equal priors end where libstdc++'s sort leaves them.
        // Keys hold the prior's complement above the move's index. Distinct priors have one order, which the
        // standard library's sort finds faster; only ties need lc0's move order and libstdc++'s sort.
        let prior_key = |index: u32| u32::from(!encode_prior(evaluation.policy[index as usize])) << 16 | index;
        keys.clear();
        keys.extend((0..moves.len() as u32).map(prior_key));
        keys.sort_unstable();
        if keys.windows(2).any(|pair| pair[0] >> 16 == pair[1] >> 16) {
            lc0_move_order(moves, turn, keys);
            for key in keys.iter_mut() {
                *key = prior_key(*key);
            }
            std_sort(keys, |a, b| a >> 16 < b >> 16);
        }
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
    /// Its legal moves in [`Store::moves`] (none until it is examined, or if it was not new or was proven).
    moves: Span,
    /// The side to move there, whose moves lc0 lists in its own order.
    turn: Color,
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

impl Gathered {
    /// Whether the gather picked nothing at all.
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty() && self.collisions.is_empty() && self.out_of_order_playouts == 0
    }
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
                    // Its side to move is set when it is examined, as its moves are; a leaf not new has neither.
                    let turn = Color::White;
                    visits.push(Leaf { path, moves: Span::default(), turn, value: LeafValue::Terminal });
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
            leaf.turn = history.positions.last().turn();
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
                let extra =
                    (i64::from(collision.max_visits).min(collisions_left) - i64::from(collision.multivisit)) as u32;
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
        prefetch(&state.tree.root, &mut history, context, computation)?;
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
                PreparedLeaf::new(moves, leaf.turn, evaluation, true, &mut keys)?
            }
            LeafValue::Ready(evaluation) => {
                PreparedLeaf::new(moves, leaf.turn, std::mem::take(evaluation), false, &mut keys)?
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
        node = node.descendant_mut(&[index]);
        f(node);
    }
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

/// What the examination of a new leaf found: its legal moves in the store's buffer (none if proven), and its verdict.
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
            (tree.root.descendant_mut(parent_path).m - 1.0).max(0.0)
        });
        tree.root.descendant_mut(path).make_terminal(self.result, plies_left, self.kind);
        if self.kind == Terminal::Tablebase {
            progress.tb_hits += 1;
            if self.result == -1 {
                // As lc0's MakeTerminal (node.cc 313–315): a proven loss keeps no exploration bonus.
                let (&index, parent_path) = path.split_last().expect("below the root");
                tree.root.descendant_mut(parent_path).edges[usize::from(index)].prior = encode_prior(0.0);
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
    let legal = position.legal_moves();
    // A proven leaf gets no edges, so only a leaf to evaluate keeps its moves in the store.
    let proven = |result, plies_left, kind| {
        Ok(Examined { moves: Span::default(), verdict: Verdict::Proven(Proof { result, plies_left, kind }) })
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
        if repetitions == 1 && plies_from_root >= 4 && params.two_fold_draws && plies_from_root >= cycle {
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
    let legal = Span::append(moves, &legal);
    let request = EvalRequest { history: history.entries(), moves: legal.of(moves) };
    let value = match computation.add(&request)? {
        Added::Queued(index) => LeafValue::Queued(index),
        Added::Ready(evaluation) => LeafValue::Ready(evaluation),
    };
    Ok(Examined { moves: legal, verdict: Verdict::Value(value) })
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
        LeafValue::Ready(evaluation) => Some(PreparedLeaf::new(moves, leaf.turn, evaluation, false, &mut Vec::new())?),
        LeafValue::Queued(index) => {
            return Err(BackendError::Compute(format!("position {index} of the batch was never prepared")));
        }
    };
    let path = leaf.path.of(&store.paths);
    let node = tree.root.descendant_mut(path);
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
                context.params.root_noise.apply(&mut node.edges, &mut rand::rng());
            }
            let (v, d) = if context.contempt.reshapes_evaluations() {
                context.contempt.leaf(-prepared.wl, prepared.d, path.len())
            } else {
                (-prepared.wl, prepared.d)
            };
            (v, d, prepared.m)
        }
    };
    let rules = BackupRules {
        sticky_endgames: context.params.sticky_endgames,
        solid_tree_threshold: context.params.solid_tree_threshold,
    };
    backup(&mut tree.root, path, v, d, m, rules);
    let depth = path.len() as u32 + 1;
    progress.playouts += 1;
    progress.cumulative_depth += u64::from(depth);
    progress.max_depth = progress.max_depth.max(depth);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::uci_move;
    use crate::search::draw_score::DrawScore;
    use crate::search::params::PickingTaskRule;
    use crate::search::select::collision_budget;
    use crate::search::stats::RootFilter;
    use crate::search::wdl_rescale::SearchContempt;
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
        with_tasks_context(params, (batch_target, collision_budget, remaining_playouts), backend_idle, None, body)
    }

    /// The same with picking tasks as `picking_tasks` says.
    fn with_tasks_context<R>(
        params: &SearchParams,
        (batch_target, collision_budget, remaining_playouts): (usize, u32, u64),
        backend_idle: bool,
        picking_tasks: Option<PickingTaskRule>,
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
            prefetch_target: params.max_prefetch.unwrap_or(0),
            collision_budget,
            remaining_playouts,
            within_playouts_left: true,
            picking_tasks,
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

    /// The playouts of each of three gathers from the start position under uniform priors (each batch backed up
    /// before the next), MinibatchSize 32, with the backend idle or not, the collision budget and the stoppers'
    /// playouts left given (no prefetch: it would add positions to the batch).
    fn playouts_per_gather(backend_idle: bool, collision_budget: u32, remaining_playouts: u64) -> Vec<usize> {
        let defaults = crate::options::EngineOptions::default().search_params();
        let params = SearchParams { minibatch_size: 32, max_prefetch: Some(0), ..defaults };
        let backend = TestBackend::new(TestMode::Uniform);
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
        let params = SearchParams { max_prefetch: Some(0), ..crate::options::EngineOptions::default().search_params() };
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

    /// A tree grown from the start position by `gathers` batches of 256 under the random backend, each backed up
    /// before the next, then one more gather with picking tasks as `picking_tasks` says (no out-of-order evaluation
    /// or prefetch, so that every pick stays in the batch); that gather's leaves and collisions, each as its path
    /// from the root (a collision's with its visits), in the batch's order.
    fn last_gathers_picks(gathers: usize, picking_tasks: Option<PickingTaskRule>) -> Vec<(Vec<u16>, u32)> {
        let defaults = crate::options::EngineOptions::default().search_params();
        let params = SearchParams { out_of_order_eval: false, max_prefetch: Some(0), ..defaults };
        let backend = TestBackend::new(TestMode::Random { seed: 11 });
        let state = fresh_state();
        // A gather's collisions as the search allows them, by the root's visits.
        let budget = || collision_budget(&params, u64::from(state_of(&state).tree.root.n));
        for _ in 0..gathers {
            with_context(&params, (256, budget(), u64::MAX), false, |context| {
                let mut computation = backend.new_computation();
                let (mut gathered, held) = gather_from(&state, context, computation.as_mut());
                drop(held);
                prepare(&mut gathered, computation.compute().unwrap()).unwrap();
                let TreeState { tree, progress } = &mut *state_of(&state);
                finish(tree, progress, gathered, context).unwrap();
            });
        }
        with_tasks_context(&params, (256, budget(), u64::MAX), false, picking_tasks, |context| {
            let mut computation = backend.new_computation();
            let (gathered, _held) = gather_from(&state, context, computation.as_mut());
            let paths = &gathered.store.paths;
            let leaves = gathered.leaves.iter().map(|leaf| (leaf.path.of(paths).to_vec(), 0));
            let collisions =
                gathered.collisions.iter().map(|collision| (collision.path.of(paths).to_vec(), collision.multivisit));
            leaves.chain(collisions).collect()
        })
    }

    #[test]
    fn picking_tasks_put_a_batch_in_another_order_and_change_nothing_else() {
        // lc0's task workers pick subtrees a pass hands them, as the pass itself would have, and their picks join
        // the batch after the pass's own (docs/lc0/search.md §4.16): the same leaves and collisions, reordered.
        let rule = PickingTaskRule { min_work: 1, min_remaining_work: 20 };
        let without = last_gathers_picks(60, None);
        let with_tasks = last_gathers_picks(60, Some(rule));
        assert!(without.len() > 40, "a batch of many picks: {}", without.len());
        assert_ne!(with_tasks, without, "some subtree went to a task");
        let sorted = |mut picks: Vec<(Vec<u16>, u32)>| {
            picks.sort();
            picks
        };
        assert_eq!(sorted(with_tasks), sorted(without));
    }

    #[test]
    fn a_prepared_leaf_gets_every_legal_move_sorted_by_prior() {
        let priors: Vec<f32> = root_after(|_| {}).unwrap().into_iter().map(|(_, p)| p).collect();
        assert_eq!(priors.len(), 20, "the start position's 20 moves");
        assert!(priors.windows(2).all(|pair| pair[0] >= pair[1]), "{priors:?}");
        assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-2, "{priors:?}");
    }

    #[test]
    fn equal_priors_end_in_the_order_lc0s_std_sort_leaves_its_moves() {
        // The start position's 20 moves, all with one prior. lc0 lists them as its generator does, knights first
        // (reference/lc0-move-order.json: b1a3 b1c3 g1f3 g1h3 a2a3 a2a4 … h2h3 h2h4), and g++'s std::sort
        // leaves 20 equal elements in the order 10, 19, 18, …, 11, 0, 9, 8, …, 1 of them
        // (reference/libstdcxx-sort-orders.json).
        let edges = root_after(|results| results[0].policy = vec![0.05; 20]).unwrap();
        let board = Chess::default().board().clone();
        let order: Vec<String> = edges.iter().map(|&(mv, _)| uci_move(&mv.unpack(&board), false)).collect();
        let expected = "d2d3 h2h4 h2h3 g2g4 g2g3 f2f4 f2f3 e2e4 e2e3 d2d4 \
                        b1a3 c2c4 c2c3 b2b4 b2b3 a2a4 a2a3 g1h3 g1f3 b1c3";
        assert_eq!(order.join(" "), expected);
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
        let params = SearchParams { minibatch_size: 32, max_prefetch: Some(0), ..defaults };
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
}
