//! One multi-visit pass of a gather from the root (docs/lc0/search.md §4.4): lc0's PickNodesToExtendTask, which
//! hands a pass's visits down the tree to the children that PUCT ranks best and notes the new leaves and the
//! collisions it reached.

use super::gather_context::GatherContext;
use super::node::{EdgeAndNode, Node, Terminal, VisitedWalk};
use super::params::{Exploration, PickingTaskRule};
use super::select::{fpu_given_visited_policy, puct_multiplier, MovesLeftUtility};
use super::stats::best_root_edge;
use super::tree::Tree;

/// One multi-visit pass from the root, lc0's PickNodesToExtend: `limit` visits are handed down the tree, each node
/// giving its best child as many as it takes for the second best to catch up; a new or proven node takes one visit
/// and the rest collide there. With picking tasks (`GatherContext::picking_tasks`, lc0's task workers) the pass
/// hands some subtrees to tasks, which pick them after it, each in the order it was made, their picks after the
/// pass's. Leaves the picks in `buffers.picked`, their paths appended to `paths`, and returns the visits of stale
/// two-fold draws it reverted on the way.
pub(super) fn pick_nodes(
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
        tasks: std::mem::take(&mut buffers.tasks),
        task_paths: std::mem::take(&mut buffers.task_paths),
        in_task: false,
        passed_off: 0,
        completed: 0,
    };
    pass.tasks.clear();
    pass.task_paths.clear();
    pass.hand_out(&mut tree.root, &mut buffers.path, limit, true);
    let path = &mut buffers.path;
    let mut next = 0;
    while let Some(&task) = pass.tasks.get(next) {
        next += 1;
        pass.start_task(task.visits);
        path.clear();
        path.extend_from_slice(task.path.of(&pass.task_paths));
        let start = tree.root.descendant_mut(path);
        let reverted = pass.hand_out(start, path, task.visits, false);
        revert_above(&mut tree.root, path, &reverted);
        path.clear();
    }
    tree.node_count += pass.new_nodes;
    buffers.scores = pass.scores;
    buffers.spare_counts = pass.spare_counts;
    buffers.picked = pass.picked;
    buffers.tasks = pass.tasks;
    buffers.task_paths = pass.task_paths;
    pass.reverted_visits
}

/// Takes the draws a task reverted below the node at `path` out of every node above it, up to the root, as lc0's
/// EnsureNodeTwoFoldCorrectForDepth does from the task itself: each level up is a ply further from the draw.
fn revert_above(root: &mut Node, path: &[u16], reverted: &[Reverted]) {
    let mut node = root;
    for (depth, &index) in path.iter().enumerate() {
        let plies_up = (path.len() - depth) as f32;
        for stale in reverted {
            revert_draw_visits(node, stale.visits, stale.m + plies_up);
        }
        node = node.descendant_mut(&[index]);
    }
}

/// Where one path or one leaf's moves lie in a buffer of a gather's store (`gather::Store`).
#[derive(Clone, Copy, Default)]
pub(super) struct Span {
    start: usize,
    end: usize,
}

impl Span {
    /// Appends `items` to `buffer`; where they lie.
    pub(super) fn append<T: Copy>(buffer: &mut Vec<T>, items: &[T]) -> Self {
        let start = buffer.len();
        buffer.extend_from_slice(items);
        Self { start, end: buffer.len() }
    }

    /// The items of `buffer` it spans.
    pub(super) fn of<T>(self, buffer: &[T]) -> &[T] {
        &buffer[self.start..self.end]
    }

    pub(super) fn len(self) -> usize {
        self.end - self.start
    }
}

/// Visits that reached a node already being evaluated (or a proven one): in flight on the node's ancestors
/// until the batch ends, never backed up.
pub(super) struct Collision {
    /// Its path from the root in the gather's paths.
    pub(super) path: Span,
    pub(super) multivisit: u32,
    /// How far the gather may enlarge this collision to end sooner (0: not at all).
    pub(super) max_visits: u32,
}

/// What one multi-visit pass picked, in lc0's order.
pub(super) enum Picked {
    /// One visit to evaluate (a new node) or to back up at once (a proven node), its path in the gather's paths.
    Visit(Span),
    /// See [`Collision`].
    Collision(Collision),
}

/// The buffers of a gather's passes, kept from one pass to the next: allocated afresh for each pass, they grew
/// again in every pass, most of which pick one or two leaves.
#[derive(Default)]
pub(super) struct PassBuffers {
    scores: ScoreScratch,
    spare_counts: Vec<Vec<u32>>,
    /// What the last pass picked, drained by the gather.
    pub(super) picked: Vec<Picked>,
    /// The path from the root to the node being visited (empty between passes: each step down is taken back).
    path: Vec<u16>,
    /// The pass's picking tasks, in the order they were made, and their paths from the root.
    tasks: Vec<PickingTask>,
    task_paths: Vec<u16>,
}

/// lc0's MAX_TASKS: a gather's pass makes at most this many picking tasks.
const MAX_PICKING_TASKS: usize = 100;

/// A subtree handed to a picking task: its root's path in the pass's task paths, and its visits.
#[derive(Clone, Copy)]
struct PickingTask {
    path: Span,
    visits: u32,
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
    /// The subtrees handed to picking tasks so far, in the order they were made.
    tasks: Vec<PickingTask>,
    task_paths: Vec<u16>,
    /// Whether a task is picking: its collisions are never enlarged, as lc0's tasks' are not (`base_depth > 0`).
    in_task: bool,
    /// The visits the pass or task being picked has handed to tasks, and those it has picked or collided.
    passed_off: u32,
    completed: u32,
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
        exploration: &Exploration,
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
                    moves_left.plus_utility(edge, q, q)
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
        let fpu = fpu_given_visited_policy(exploration, node, draw_score, visited_policy);
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
                self.completed += 1;
            }
            if limit > 0 {
                let enlargeable = !self.in_task && limit == self.limit && self.max_limit > limit;
                let max_visits = if enlargeable { self.max_limit } else { 0 };
                self.completed += limit;
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
        let puct_mult = puct_multiplier(params, node, is_root);
        let mut scratch = std::mem::take(&mut self.scores);
        scratch.score(node, reachable, params.exploration_at(is_root), draw_score, moves_left, puct_mult);
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
                    let estimate = (policy * puct_mult / (second_score - utility) - n1 + 1.0).clamp(1.0, 1e9);
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
                    self.completed += 1;
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
        if let Some(rule) = self.context.picking_tasks {
            self.hand_to_tasks(node, path, &mut to_perform[..handed], rule);
        }
        for (index, &visits) in to_perform[..handed].iter().enumerate() {
            if visits == 0 {
                continue;
            }
            let child = node.child_mut(index).expect("visits were handed to an existing child");
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

impl Pass<'_, '_, '_> {
    /// Readies the pass to pick a task's `visits`, as lc0 starts a task's PickNodesToExtendTask afresh.
    fn start_task(&mut self, visits: u32) {
        self.limit = visits;
        self.max_limit = u32::MAX;
        self.in_task = true;
        self.passed_off = 0;
        self.completed = 0;
    }

    /// lc0's split (PickNodesToExtendTask, after a node's visits are handed out): in child order, each expanded,
    /// unproven child whose visits `rule` lets go becomes a picking task, its visits taken out of `to_perform`.
    fn hand_to_tasks(&mut self, node: &Node, path: &[u16], to_perform: &mut [u32], rule: PickingTaskRule) {
        for (index, visits) in to_perform.iter_mut().enumerate() {
            let child_limit = i64::from(*visits);
            let placed = i64::from(self.passed_off) + i64::from(self.completed);
            let unplaced = i64::from(self.limit) - placed;
            let splits = child_limit > i64::from(rule.min_work)
                && child_limit < unplaced * 2 / 3
                && child_limit + placed < i64::from(self.limit) - i64::from(rule.min_remaining_work);
            if !splits {
                continue;
            }
            let child = node.child(index).expect("a child handed visits exists");
            if child.n == 0 || child.terminal != Terminal::No || self.tasks.len() >= MAX_PICKING_TASKS {
                continue;
            }
            let start = self.task_paths.len();
            self.task_paths.extend_from_slice(path);
            self.task_paths.push(index as u16);
            let task_path = Span { start, end: self.task_paths.len() };
            self.tasks.push(PickingTask { path: task_path, visits: *visits });
            self.passed_off += *visits;
            *visits = 0;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::node::Edge;
    use shakmaty::{Chess, Position};

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
        assert!(!params.exploration.fpu_absolute, "the default FPU is relative to the node's Q");
        let mut scratch = ScoreScratch::default();
        scratch.score(&node, 5, &params.exploration, 0.0, MovesLeftUtility::new(&params, &node, false), 1.0);
        // FPU = −Q − FpuValue·√(p₀ + p₁₁) at draw score 0, the priors as their 16 bits hold them.
        let (p0, p11) = (node.edges[0].p(), node.edges[11].p());
        let reduction = params.exploration.fpu_value;
        let fpu = 0.05 - reduction * (p0 + p11).sqrt();
        assert!((fpu - (0.05 - reduction * p0.sqrt())).abs() > 1e-3, "the twelfth child matters");
        let utilities: Vec<f32> = scratch.children.iter().map(|child| child.utility).collect();
        assert_eq!(utilities.len(), 5);
        assert!((utilities[0] - 0.1).abs() < 1e-6, "{utilities:?}");
        assert!(utilities[1..].iter().all(|&utility| (utility - fpu).abs() < 1e-6), "{utilities:?}, FPU {fpu}");
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
