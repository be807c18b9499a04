//! One worker iteration's tree side (LC0-NOTES §4.4–4.6): descend with virtual loss to collect leaves,
//! detect terminals, back up out-of-order results, then expand and back up the evaluated batch.

use super::backup::{backup, cancel_visit};
use super::node::{Edge, Node, Terminal};
use super::params::SearchParams;
use super::prefetch::prefetch;
use super::select::{pick_child, AnyChild, ChildFilter};
use super::stats::{best_root_edge, Progress, RootFilter};
use super::tree::Tree;
use crate::position::{has_mating_material, PositionHistory};
use nn::{Added, BackendError, Computation, EvalRequest, Evaluation};
use shakmaty::{Move, Position};

/// Where a picked leaf's value comes from.
enum LeafValue {
    /// Waiting in the network batch at this index.
    Queued(usize),
    /// Answered at once by the backend (a cache hit).
    Ready(Evaluation),
    /// A proven node: its own stored value.
    Terminal,
}

/// A leaf waiting to be backed up.
struct Leaf {
    path: Vec<u16>,
    moves: Vec<Move>,
    value: LeafValue,
}

/// The leaves and collisions of one gather, to finish after the batch is computed.
#[derive(Default)]
pub struct Gathered {
    leaves: Vec<Leaf>,
    collisions: Vec<Vec<u16>>,
    /// Playouts already backed up during the gather (out of order).
    pub out_of_order_playouts: u64,
}

impl Gathered {
    /// Whether the gather picked nothing at all.
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty() && self.collisions.is_empty() && self.out_of_order_playouts == 0
    }
}

/// What a descent found.
enum Pick {
    Collision(Vec<u16>),
    Leaf { path: Vec<u16>, new: bool },
}

/// The read-only context of one gather.
pub struct GatherContext<'a> {
    /// Search parameters.
    pub params: &'a SearchParams,
    /// The root move filter.
    pub filter: &'a RootFilter,
    /// Whether the network has a moves-left head (moves-left utility).
    pub has_moves_left: bool,
    /// Leaves wanted in the batch.
    pub batch_target: usize,
    /// Collision visits allowed in this gather.
    pub collision_budget: u32,
    /// The hints' remaining playouts, for root pruning.
    pub remaining_playouts: u64,
    /// Whether the search was asked to stop (the gather still runs while the root has no visits).
    pub stopping: &'a dyn Fn() -> bool,
}

struct RootChildren<'a> {
    filter: &'a RootFilter,
    best: Option<usize>,
    best_n: u32,
    remaining_playouts: u64,
}

impl ChildFilter for RootChildren<'_> {
    fn allows(&self, index: usize, edge: &Edge) -> bool {
        if !self.filter.allows(&edge.mv) {
            return false;
        }
        let hopeless = i64::try_from(self.remaining_playouts).unwrap_or(i64::MAX)
            < i64::from(self.best_n) - i64::from(edge.n());
        Some(index) == self.best || !hopeless
    }
}

/// Collects up to `batch_target` leaves into `computation`, backing up out-of-order results at once.
pub fn gather(
    tree: &mut Tree,
    progress: &mut Progress,
    context: &GatherContext<'_>,
    computation: &mut dyn Computation,
) -> Result<Gathered, BackendError> {
    let params = context.params;
    let max_out_of_order =
        ((params.max_out_of_order_evals_factor * context.batch_target as f32) as usize).max(1);
    let mut gathered = Gathered::default();
    let mut batch_size = 0;
    let mut out_of_order = 0;
    let mut collisions_left = i64::from(context.collision_budget);
    let root_len = tree.history.len();
    let mut history = tree.history.clone();
    while batch_size < context.batch_target && out_of_order < max_out_of_order {
        if batch_size > 0 && computation.queued() == 0 {
            break;
        }
        if tree.root.n > 0 && (context.stopping)() {
            break;
        }
        history.truncate(root_len);
        let mut new_nodes = 0;
        let pick = descend(tree, &mut history, context, &mut new_nodes);
        tree.node_count += new_nodes;
        match pick {
            Pick::Collision(path) => {
                collisions_left -= 1;
                gathered.collisions.push(path);
            }
            Pick::Leaf { path, new } => {
                batch_size += 1;
                let (moves, value) = if new {
                    examine_leaf(tree, &path, &history, params, computation)?
                } else {
                    (Vec::new(), LeafValue::Terminal)
                };
                let leaf = Leaf { path, moves, value };
                let ready = matches!(leaf.value, LeafValue::Ready(_) | LeafValue::Terminal);
                if params.out_of_order_eval && ready {
                    out_of_order += 1;
                    finish_leaf(tree, progress, leaf, None, context)?;
                    gathered.out_of_order_playouts += 1;
                } else {
                    gathered.leaves.push(leaf);
                }
            }
        }
        if collisions_left <= 0 {
            break;
        }
    }
    if !(context.stopping)() {
        history.truncate(root_len);
        prefetch(&tree.root, &mut history, params, computation)?;
    }
    Ok(gathered)
}

/// Backs up the gathered leaves with the batch's `results` and cancels the collisions; returns the playouts.
pub fn finish(
    tree: &mut Tree,
    progress: &mut Progress,
    gathered: Gathered,
    results: &[Evaluation],
    context: &GatherContext<'_>,
) -> Result<u64, BackendError> {
    let mut playouts = gathered.out_of_order_playouts;
    for path in &gathered.collisions {
        cancel_visit(&mut tree.root, path);
    }
    for leaf in gathered.leaves {
        finish_leaf(tree, progress, leaf, Some(results), context)?;
        playouts += 1;
    }
    Ok(playouts)
}

/// Takes every gathered visit out of flight without backing anything up (the batch failed).
pub fn abandon(tree: &mut Tree, gathered: Gathered) {
    for path in gathered
        .collisions
        .iter()
        .chain(gathered.leaves.iter().map(|l| &l.path))
    {
        cancel_visit(&mut tree.root, path);
    }
}

fn descend(
    tree: &mut Tree,
    history: &mut PositionHistory,
    context: &GatherContext<'_>,
    new_nodes: &mut u64,
) -> Pick {
    let best = best_root_edge(&tree.root, context.filter);
    let root_filter = RootChildren {
        filter: context.filter,
        best,
        best_n: best.map_or(0, |i| tree.root.edges[i].n()),
        remaining_playouts: context.remaining_playouts,
    };
    let mut path: Vec<u16> = Vec::new();
    let root_choice = if tree.root.n > 0 && tree.root.terminal == Terminal::No {
        pick_child(
            context.params,
            &tree.root,
            context.has_moves_left,
            &root_filter,
        )
    } else {
        None
    };
    let mut node: &mut Node = &mut tree.root;
    let mut choice = root_choice;
    loop {
        if node.n == 0 && node.n_in_flight > 0 {
            node.n_in_flight += 1;
            return Pick::Collision(path);
        }
        node.n_in_flight += 1;
        if node.n == 0 {
            return Pick::Leaf { path, new: true };
        }
        if node.terminal != Terminal::No {
            return Pick::Leaf { path, new: false };
        }
        let Some(index) =
            choice.or_else(|| pick_child(context.params, node, context.has_moves_left, &AnyChild))
        else {
            return Pick::Collision(path);
        };
        choice = None;
        let edge = &mut node.edges[index];
        history.push(edge.mv);
        path.push(index as u16);
        if edge.child.is_none() {
            *new_nodes += 1;
        }
        node = edge.child.get_or_insert_with(Box::default);
    }
}

/// Generates a new leaf's moves, detects terminals (LC0-NOTES §4.7) and queues the rest for the network.
fn examine_leaf(
    tree: &mut Tree,
    path: &[u16],
    history: &PositionHistory,
    params: &SearchParams,
    computation: &mut dyn Computation,
) -> Result<(Vec<Move>, LeafValue), BackendError> {
    let position = history.last();
    let moves: Vec<Move> = position.legal_moves().into_iter().collect();
    let node = node_at(&mut tree.root, path);
    if moves.is_empty() {
        node.make_terminal(
            if position.is_check() { 1 } else { 0 },
            0.0,
            Terminal::EndOfGame,
        );
        return Ok((moves, LeafValue::Terminal));
    }
    if !path.is_empty() {
        let plies_from_root = path.len() as u32;
        let repetitions = history.last_repetitions();
        let cycle = history.last_cycle_length();
        if !has_mating_material(position) || position.halfmoves() >= 100 || repetitions >= 2 {
            node.make_terminal(0, 0.0, Terminal::EndOfGame);
            return Ok((moves, LeafValue::Terminal));
        }
        if repetitions == 1
            && plies_from_root >= 4
            && params.two_fold_draws
            && plies_from_root >= cycle
        {
            node.make_terminal(0, cycle as f32, Terminal::TwoFold);
            return Ok((moves, LeafValue::Terminal));
        }
    }
    let request = EvalRequest {
        history: history.encoder_window(),
        moves: &moves,
    };
    let value = match computation.add(&request)? {
        Added::Queued(index) => LeafValue::Queued(index),
        Added::Ready(evaluation) => LeafValue::Ready(evaluation),
    };
    Ok((moves, value))
}

fn node_at<'a>(root: &'a mut Node, path: &[u16]) -> &'a mut Node {
    let mut node = root;
    for &index in path {
        node = node.edges[usize::from(index)]
            .child
            .as_deref_mut()
            .expect("leaf path follows existing children");
    }
    node
}

fn finish_leaf(
    tree: &mut Tree,
    progress: &mut Progress,
    leaf: Leaf,
    results: Option<&[Evaluation]>,
    context: &GatherContext<'_>,
) -> Result<(), BackendError> {
    let evaluation = match leaf.value {
        LeafValue::Terminal => None,
        LeafValue::Ready(evaluation) => Some(evaluation),
        LeafValue::Queued(index) => {
            Some(results.and_then(|r| r.get(index)).cloned().ok_or_else(|| {
                BackendError::Compute(format!("the batch returned no result for position {index}"))
            })?)
        }
    };
    let node = node_at(&mut tree.root, &leaf.path);
    let (v, d, m) = match evaluation {
        None => (node.wl as f32, node.d, node.m),
        Some(evaluation) => {
            if evaluation.policy.len() != leaf.moves.len() {
                return Err(BackendError::Compute(format!(
                    "the network returned {} priors for {} legal moves",
                    evaluation.policy.len(),
                    leaf.moves.len()
                )));
            }
            let mut edges: Vec<Edge> = leaf
                .moves
                .iter()
                .zip(&evaluation.policy)
                .map(|(mv, p)| Edge::new(*mv, *p))
                .collect();
            edges.sort_by_key(|edge| std::cmp::Reverse(edge.prior));
            tree.edge_count += edges.len() as u64;
            node.edges = edges.into_boxed_slice();
            node.network_wl = Some(-evaluation.wl);
            (-evaluation.wl, evaluation.d, evaluation.m)
        }
    };
    backup(
        &mut tree.root,
        &leaf.path,
        v,
        d,
        m,
        context.params.sticky_endgames,
    );
    let depth = leaf.path.len() as u32 + 1;
    progress.playouts += 1;
    progress.cumulative_depth += u64::from(depth);
    progress.max_depth = progress.max_depth.max(depth);
    Ok(())
}
