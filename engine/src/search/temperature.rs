//! lc0's randomised move choice (docs/lc0/search.md §4.8): with a temperature the move played is drawn among the
//! root's moves with weights growing with their visits, instead of the best one, so that games from one opening
//! differ (`Temperature` and its decay, lc0 `src/search/classic/search.cc`, `EnsureBestMoveKnown` and
//! `GetBestRootChildWithTemperature`). The `info` lines and the ponder move's own choice keep the best moves.

use super::node::Node;
use crate::position::PackedMove;

/// lc0's temperature options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveTemperature {
    /// The temperature of the first move (`Temperature`; 0: the best move, always).
    pub initial: f32,
    /// Over how many moves it falls linearly to 0 (`TempDecayMoves`; 0: it does not fall).
    pub decay_moves: u32,
    /// How many moves it stays at `initial` before it falls (`TempDecayDelayMoves`).
    pub decay_delay_moves: u32,
    /// The move number from which `endgame` replaces it (`TempCutoffMove`; 0: never).
    pub cutoff_move: u32,
    /// The temperature from `cutoff_move` on, and the floor of the decay (`TempEndgame`).
    pub endgame: f32,
    /// Moves whose win percentage is this much below the most visited move's are never drawn
    /// (`TempValueCutoff`, in percentage points: Q's scale of −1…1 is 100 points).
    pub value_cutoff: f32,
    /// Added to every move's visits before weighting (`TempVisitOffset`); a move it takes to 0 or below is not drawn.
    pub visit_offset: f32,
}

impl MoveTemperature {
    /// The temperature of the move after `moves_played` full moves of the game (lc0's game ply / 2).
    pub fn at(&self, moves_played: u32) -> f32 {
        if self.cutoff_move != 0 && moves_played + 1 >= self.cutoff_move {
            return self.endgame;
        }
        if self.initial == 0.0 || self.decay_moves == 0 {
            return self.initial;
        }
        let (delay, decay) = (self.decay_delay_moves, self.decay_moves);
        let temperature = if moves_played >= delay + decay {
            0.0
        } else if moves_played >= delay {
            self.initial * (delay + decay - moves_played) as f32 / decay as f32
        } else {
            self.initial
        };
        temperature.max(self.endgame)
    }
}

/// The root's edge drawn at `temperature` (> 0): among the moves `allows` takes (`searchmoves`) whose Q (the
/// unvisited ones' `fpu`, with `draw_score`) is within the value cutoff of the most visited move's, each with weight
/// `((N + offset) / max(N + offset))^(1/temperature)`, or its prior where no move has visits after the offset.
/// `toss(sum)` is a uniform draw in `[0, sum)`; the edge is the first whose running sum of weights reaches it.
/// `None` where no move may be drawn.
pub fn draw_root_edge(
    root: &Node,
    allows: impl Fn(PackedMove) -> bool,
    temperature: f32,
    settings: &MoveTemperature,
    fpu: f32,
    draw_score: f32,
    toss: impl FnOnce(f32) -> f32,
) -> Option<usize> {
    let offset = settings.visit_offset;
    let allowed = || root.edges_and_nodes().enumerate().filter(|(_, edge)| allows(edge.mv));
    let (mut max_n, mut max_eval) = (0.0f32, -1.0f32);
    for (_, edge) in allowed() {
        if edge.n() as f32 + offset > max_n {
            max_n = edge.n() as f32 + offset;
            max_eval = edge.q_with_draw(fpu, draw_score);
        }
    }
    let min_eval = max_eval - settings.value_cutoff / 50.0;
    let mut sum = 0.0f32;
    let mut cumulative = Vec::new();
    for (index, edge) in allowed() {
        if edge.q_with_draw(fpu, draw_score) < min_eval {
            continue;
        }
        let share = if max_n <= 0.0 { edge.p() } else { (edge.n() as f32 + offset) / max_n };
        sum += share.max(0.0).powf(1.0 / temperature);
        cumulative.push((sum, index));
    }
    if sum <= 0.0 {
        return None;
    }
    let toss = toss(sum);
    cumulative.iter().find(|(running, _)| *running >= toss).or(cumulative.last()).map(|&(_, index)| index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::node::Edge;
    use shakmaty::{Chess, Position};

    fn settings() -> MoveTemperature {
        MoveTemperature {
            initial: 1.0,
            decay_moves: 0,
            decay_delay_moves: 0,
            cutoff_move: 0,
            endgame: 0.0,
            value_cutoff: 100.0,
            visit_offset: 0.0,
        }
    }

    /// A root over the start position's first three moves with these visits and child Qs (prior 0.5, 0.3, 0.2).
    fn root(visits: [u32; 3], qs: [f64; 3]) -> Node {
        let moves = Chess::default().legal_moves();
        let edges = [0.5, 0.3, 0.2]
            .into_iter()
            .zip(moves.iter())
            .zip(visits.into_iter().zip(qs))
            .map(|((p, mv), (n, wl))| (Edge::new(mv, p), (n > 0).then(|| Node { n, wl, ..Node::default() })))
            .collect();
        Node::with_edges(edges, Node { n: 1 + visits.iter().sum::<u32>(), ..Node::default() })
    }

    /// The sum of the weights that [`draw_root_edge`] tosses over.
    fn weight_sum(root: &Node, temperature: f32, settings: &MoveTemperature) -> f32 {
        let mut seen = 0.0;
        draw_root_edge(
            root,
            |_| true,
            temperature,
            settings,
            -1.0,
            0.0,
            |sum| {
                seen = sum;
                0.0
            },
        );
        seen
    }

    fn draw(root: &Node, temperature: f32, settings: &MoveTemperature, toss: f32) -> Option<usize> {
        draw_root_edge(root, |_| true, temperature, settings, -1.0, 0.0, |_| toss)
    }

    #[test]
    fn weights_are_the_visit_shares_to_the_power_one_over_the_temperature() {
        let root = root([100, 50, 25], [0.1, 0.0, -0.1]);
        // T = 1: weights 1, 0.5, 0.25; running sums 1, 1.5, 1.75.
        assert_eq!(weight_sum(&root, 1.0, &settings()), 1.75);
        assert_eq!(draw(&root, 1.0, &settings(), 0.99), Some(0));
        assert_eq!(draw(&root, 1.0, &settings(), 1.2), Some(1));
        assert_eq!(draw(&root, 1.0, &settings(), 1.6), Some(2));
        // T = 2: weights 1, √0.5 = 0.7071, √0.25 = 0.5; running sums 1, 1.7071, 2.2071.
        assert_eq!(draw(&root, 2.0, &settings(), 1.70), Some(1));
        assert_eq!(draw(&root, 2.0, &settings(), 1.71), Some(2));
    }

    #[test]
    fn the_value_cutoff_and_the_visit_offset_leave_moves_out() {
        let root = root([100, 50, 25], [0.1, 0.0, -0.1]);
        // Cutoff 7.5 points = 0.15 of Q below the most visited move's 0.1: the third move (Q −0.1) is out.
        let cut = MoveTemperature { value_cutoff: 7.5, ..settings() };
        assert_eq!(weight_sum(&root, 1.0, &cut), 1.5);
        assert_eq!(draw(&root, 1.0, &cut, 1.49), Some(1));
        // Offset −30: shares 70/70, 20/70 and none for the third (−5 visits).
        let offset = MoveTemperature { visit_offset: -30.0, ..settings() };
        assert_eq!(weight_sum(&root, 1.0, &offset), 1.0 + 20.0 / 70.0);
        assert_eq!(draw(&root, 1.0, &offset, 0.99), Some(0));
        assert_eq!(draw(&root, 1.0, &offset, 1.01), Some(1));
    }

    #[test]
    fn without_visits_the_priors_are_the_weights() {
        let root = root([0, 0, 0], [0.0; 3]);
        // Priors 0.5, 0.3, 0.2 (16-bit, within 0.001): running sums 0.5, 0.8, 1.0.
        assert_eq!(draw(&root, 1.0, &settings(), 0.49), Some(0));
        assert_eq!(draw(&root, 1.0, &settings(), 0.79), Some(1));
        assert_eq!(draw(&root, 1.0, &settings(), 0.81), Some(2));
    }

    #[test]
    fn the_temperature_decays_linearly_after_its_delay_down_to_the_endgame_floor() {
        let decaying = MoveTemperature { initial: 1.0, decay_moves: 10, decay_delay_moves: 4, ..settings() };
        let at = |moves| decaying.at(moves);
        assert_eq!((at(0), at(3), at(4)), (1.0, 1.0, 1.0));
        assert_eq!((at(9), at(13), at(14), at(40)), (0.5, 0.1, 0.0, 0.0));
        let floored = MoveTemperature { endgame: 0.3, ..decaying };
        assert_eq!((floored.at(9), floored.at(13), floored.at(40)), (0.5, 0.3, 0.3));
        // TempCutoffMove 20: from the 20th move (19 played) the endgame temperature, decayed or not.
        let cut = MoveTemperature { cutoff_move: 20, endgame: 0.2, ..settings() };
        assert_eq!((cut.at(18), cut.at(19), cut.at(60)), (1.0, 0.2, 0.2));
        assert_eq!(MoveTemperature { initial: 0.0, ..decaying }.at(0), 0.0);
    }
}
