//! Prefetching (docs/lc0/search.md §4.5 step 4): when a batch is small, add the positions the search will probably
//! visit next, so their results wait in the NN cache. Their evaluations are not backed up.

use super::draw_score::DrawScore;
use super::gather_context::GatherContext;
use super::node::{Node, Terminal};
use super::params::SearchParams;
use super::select::{fpu, puct_multiplier};
use super::std_sort::partial_sort;
use crate::position::PositionHistory;
use nn::{BackendError, Computation, EvalRequest};
use shakmaty::Position;

/// Fills the batch with up to the gather's prefetch target − queued likely future leaves below `root`.
pub fn prefetch(
    root: &Node,
    history: &mut PositionHistory,
    gather: &GatherContext<'_>,
    computation: &mut dyn Computation,
) -> Result<(), BackendError> {
    let queued = computation.queued();
    if queued == 0 || queued >= gather.prefetch_target {
        return Ok(());
    }
    let budget = gather.prefetch_target - queued;
    let mut context = Prefetch { params: gather.params, draw_score: gather.draw_score, computation };
    prefetch_below(Some(root), 0, budget, history, &mut context)?;
    Ok(())
}

/// What a prefetch pass reads and fills.
struct Prefetch<'a> {
    params: &'a SearchParams,
    draw_score: DrawScore,
    computation: &'a mut dyn Computation,
}

/// Spends up to `budget` prefetches below `node` (None = an edge without a node); returns how many it used.
fn prefetch_below(
    node: Option<&Node>,
    plies: usize,
    budget: usize,
    history: &mut PositionHistory,
    context: &mut Prefetch<'_>,
) -> Result<usize, BackendError> {
    let params = context.params;
    if budget == 0 {
        return Ok(0);
    }
    let Some(node) = node.filter(|n| n.n + n.n_in_flight > 0) else {
        // As lc0: the slot counts as spent whether the position was already cached or is queued now, and
        // a position without legal moves is queued like any other.
        let moves = history.last().legal_moves();
        context.computation.add(&EvalRequest { history: history.entries(), moves: &moves })?;
        return Ok(1);
    };
    if node.n == 0 || node.terminal != Terminal::No {
        return Ok(0);
    }
    let at_root = plies == 0;
    let puct_mult = puct_multiplier(params, node, at_root);
    let draw_score = context.draw_score.at(plies);
    let fpu = fpu(params, node, draw_score, at_root);
    let mut scored: Vec<(f32, usize)> = node
        .edges_and_nodes()
        .enumerate()
        .filter(|(_, e)| e.p() != 0.0)
        .map(|(i, e)| (e.p() * puct_mult / (1 + e.n_started()) as f32 + e.q_with_draw(fpu, draw_score), i))
        .collect();
    // lc0 sorts the scores a few at a time as the loop reaches them, with std::partial_sort, whose order among
    // equal scores decides which of them is prefetched first.
    let mut first_unsorted = 0;
    let mut budget = budget;
    let mut spent_total = 0;
    let mut budget_to_spend = budget;
    let len = history.len();
    for rank in 0..scored.len() {
        if budget == 0 {
            break;
        }
        if first_unsorted != scored.len() && rank + 2 >= first_unsorted {
            let chunk = if budget < 2 { 2 } else { 3 };
            let sorted = scored.len().min(first_unsorted + chunk);
            partial_sort(&mut scored[first_unsorted..], sorted - first_unsorted, &|a, b| a.0 > b.0);
            first_unsorted = sorted;
        }
        let edge = node.edge(scored[rank].1);
        if let Some(&(next_score, _)) = scored.get(rank + 1) {
            // lc0 compares with the Q that uses the negated FPU here.
            let q = edge.q_with_draw(-fpu, draw_score);
            budget_to_spend = if next_score > q {
                let catch_up = (edge.p() * puct_mult / (next_score - q) - edge.n_started() as f32) as i64 + 1;
                usize::try_from(catch_up).unwrap_or(0).min(budget)
            } else {
                budget
            };
        }
        history.push(edge.mv.unpack(history.last().board()));
        let spent = prefetch_below(edge.node, plies + 1, budget_to_spend, history, context);
        history.truncate(len);
        let spent = spent?;
        budget -= spent.min(budget);
        spent_total += spent;
    }
    Ok(spent_total)
}
