//! The label of `kairos tm-label`: how much more search changes the decision, a value in [0, 1].
//!
//! - `blend` (the default): 1 if the move the search plays after factor·N visits differs from the one after
//!   N, else min(1, |Q(factor·N) − Q(N)| / q-scale), Q being the best move's value from the side to move's
//!   view in [−1, 1]: a decision that stands but whose value still moves is partly unstable.
//! - `flip`: 1 if the move changed, else 0.
//!
//! A position with one legal move is 0 under both without a search: no amount of search changes it.

use engine::decision::DecisionChange;

/// How a decision change becomes a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LabelRule {
    /// 1 if the best move changed, else |ΔQ| / q-scale capped at 1.
    Blend,
    /// 1 if the best move changed, else 0.
    Flip,
}

impl LabelRule {
    /// The name on the command line and in dataset headers.
    pub fn name(self) -> &'static str {
        match self {
            LabelRule::Blend => "blend",
            LabelRule::Flip => "flip",
        }
    }
}

/// The label of a searched position under `rule`; `q_scale` (> 0) is the |ΔQ| that counts as a changed move.
pub fn instability(change: &DecisionChange, rule: LabelRule, q_scale: f64) -> f32 {
    if change.best_move_changed() {
        return 1.0;
    }
    match (rule, change.early.q, change.late.q) {
        (LabelRule::Blend, Some(early), Some(late)) => (f64::from(late - early).abs() / q_scale).min(1.0) as f32,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::decision::Decision;
    use shakmaty::{Chess, Position};

    fn change(early_move: usize, early_q: f32, late_move: usize, late_q: f32) -> DecisionChange {
        let moves = Chess::default().legal_moves();
        let decision = |index: usize, q: f32| Decision { best: moves[index], q: Some(q), visits: 0 };
        DecisionChange { early: decision(early_move, early_q), late: decision(late_move, late_q) }
    }

    #[test]
    fn a_changed_move_is_1_under_both_rules() {
        for rule in [LabelRule::Blend, LabelRule::Flip] {
            assert_eq!(instability(&change(0, 0.1, 1, 0.1), rule, 0.2), 1.0);
        }
    }

    #[test]
    fn a_kept_move_is_its_q_shift_over_the_scale_capped_at_1_or_0_for_flip() {
        // |0.15 − 0.10| / 0.2 = 0.25.
        assert!((instability(&change(3, 0.10, 3, 0.15), LabelRule::Blend, 0.2) - 0.25).abs() < 1e-6);
        // |−0.3 − 0.2| / 0.2 = 2.5, capped.
        assert_eq!(instability(&change(3, 0.2, 3, -0.3), LabelRule::Blend, 0.2), 1.0);
        assert_eq!(instability(&change(3, 0.2, 3, -0.3), LabelRule::Flip, 0.2), 0.0);
    }
}
