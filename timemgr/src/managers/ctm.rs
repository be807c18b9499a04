//! `ctm`: Rheude's CTM-Net as a time manager. The model predicts ρ̂, the share of the remaining time a strong
//! human spends on the side to move's position, and the move gets
//!
//! τ = min(ρ̂·(T − O) + i, c·(T − O)), and with `movestogo` m at least (T − O)/m,
//!
//! T the clock, O the move overhead, i the increment and c = `max-share`; then the common adjustments and the
//! hard cap T − O. The thesis's data are sudden death without increment, where ρ̂·T is all there is: the
//! increment arrives after every move, so the move may spend it on top, and the cap c keeps a low clock
//! from being spent on increments it has not yet received. With `movestogo` the clock refills after m moves,
//! so the model's whole-game share is raised to an even split of what is left of the period.
//!
//! The model budgets the moves from `start-move` to `end-move` (full-move numbers, the thesis's windows); the
//! fallback manager budgets every other move, and every move the model cannot (no model given, no position
//! in the context, a prediction that is not a number). It learns only from the moves it budgets.
//!
//! A model trained on `kairos tm-label`'s search labels predicts the decision instability ŷ instead of ρ̂;
//! its share is ρ̂ = b·ŷ/ȳ clamped to [0, c], b = `base-share` and ȳ the training mean of the labels (the
//! model's target normalisation): a position as unstable as the average gets b, twice as unstable 2b.

use std::ops::RangeInclusive;
use std::path::Path;

use super::{deadline_reached, finish_budget, new_trace, Adjustments, ClockView, DeadlineStopper, TimeManager};
use crate::ctm::features::encode;
use crate::ctm::{Colour, CtmNetwork, TargetKind};
pub use crate::options::registry::CtmKeys;
use crate::options::OptionError;
use crate::search_stats::{GoParams, IterationStats, MoveContext, Stopper};
use crate::trace::{MoveTrace, TraceBook};

/// The validated keys: the net (none when no model is given), the window of moves, the cap and the share of
/// an average instability.
#[derive(Clone, Debug)]
pub struct CtmParams {
    /// The loaded model; `None` lets the fallback budget every move.
    pub network: Option<CtmNetwork>,
    /// The full-move numbers the model budgets.
    pub window: RangeInclusive<u32>,
    /// Cap of one move's time as a share of the clock minus the overhead.
    pub max_share: f64,
    /// The share an instability model gives a position of average instability.
    pub base_share: f64,
}

impl CtmParams {
    /// Loads the model and checks the window.
    pub fn from_keys(keys: &CtmKeys) -> Result<Self, OptionError> {
        if keys.start_move > keys.end_move {
            return Err(OptionError::Inconsistent {
                component: "ctm".to_owned(),
                reason: format!(
                    "start-move {} is after end-move {}; the model would budget no move",
                    keys.start_move, keys.end_move
                ),
            });
        }
        let network = match keys.model.as_str() {
            "" => None,
            path => Some(CtmNetwork::load(Path::new(path))?),
        };
        if let Some(network) = &network {
            let mean = network.target_mean();
            if network.target_kind() == TargetKind::Instability && !(mean.is_finite() && mean > 0.0) {
                return Err(OptionError::Inconsistent {
                    component: "ctm".to_owned(),
                    reason: format!(
                        "the instability model '{}' has a training mean of {mean}, so base-share*y/mean is not \
                         defined; label positions where more search changes the decision (a larger --factor or \
                         more positions in kairos tm-label) and train again",
                        keys.model
                    ),
                });
            }
        }
        let move_number = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(Self {
            network,
            window: move_number(keys.start_move)..=move_number(keys.end_move),
            max_share: keys.max_share,
            base_share: keys.base_share,
        })
    }
}

/// What the model says about one position.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Prediction {
    /// ρ̂, the share of the clock to spend.
    share: f32,
    /// ŷ, for an instability model.
    instability: Option<f32>,
}

/// The share of the clock for an instability model's ŷ: `base_share`·ŷ/ȳ with ȳ = `training_mean` (> 0),
/// clamped to [0, `max_share`].
pub fn share_from_instability(instability: f32, training_mean: f32, base_share: f64, max_share: f64) -> f64 {
    (base_share * f64::from(instability) / f64::from(training_mean)).clamp(0.0, max_share)
}

/// Who budgets the move in flight.
enum MoveOwner {
    /// The model, with this deadline.
    Model { deadline_ms: i64 },
    /// The fallback manager, for this reason.
    Fallback { why: String },
}

/// The ctm manager for one game.
pub struct CtmManager {
    params: CtmParams,
    fallback: Box<dyn TimeManager>,
    adjustments: Adjustments,
    name: String,
    in_flight: Option<MoveOwner>,
    traces: TraceBook,
}

impl CtmManager {
    /// A fresh manager for one game; `name` is the canonical option string shown in traces.
    pub fn boxed(
        params: CtmParams,
        fallback: Box<dyn TimeManager>,
        adjustments: Adjustments,
        name: String,
    ) -> Box<dyn TimeManager> {
        Box::new(Self { params, fallback, adjustments, name, in_flight: None, traces: TraceBook::default() })
    }

    /// ρ̂ (and ŷ) for this move, or why the model does not budget it.
    fn prediction(&self, ctx: &MoveContext) -> Result<Prediction, String> {
        let move_number = ctx.game_ply / 2 + 1;
        let window = &self.params.window;
        if !window.contains(&move_number) {
            return Err(format!("move {move_number} is outside moves {}-{}", window.start(), window.end()));
        }
        let network = self.params.network.as_ref().ok_or("no model given")?;
        let placement = ctx.placement.as_ref().ok_or("no position")?;
        let colour = if ctx.white_to_move { Colour::White } else { Colour::Black };
        let output = network.predict(&encode(placement, colour));
        if !output.is_finite() {
            return Err(format!("the model predicted {output}"));
        }
        Ok(match network.target_kind() {
            TargetKind::ShareOfClock => Prediction { share: output, instability: None },
            TargetKind::Instability => {
                let (base_share, max_share) = (self.params.base_share, self.params.max_share);
                let share = share_from_instability(output, network.target_mean(), base_share, max_share);
                Prediction { share: share as f32, instability: Some(output) }
            }
        })
    }
}

impl TimeManager for CtmManager {
    fn stopper(&mut self, go: &GoParams, ctx: &MoveContext) -> Option<Box<dyn Stopper>> {
        let clock = ClockView::from_go(go, ctx)?;
        match self.prediction(ctx) {
            Ok(prediction) => {
                let mut trace = new_trace(self.name.clone(), &clock, go, ctx);
                if let Some(instability) = prediction.instability {
                    trace.step("predicted_instability", f64::from(instability));
                }
                let budget_ms = model_budget_ms(prediction.share, &clock, self.params.max_share, &mut trace);
                let deadline_ms = finish_budget(budget_ms, &self.adjustments, &clock, ctx, &mut trace);
                self.traces.open(trace);
                self.in_flight = Some(MoveOwner::Model { deadline_ms });
                Some(Box::new(DeadlineStopper::plain(deadline_ms)))
            }
            Err(why) => {
                let stopper = self.fallback.stopper(go, ctx);
                self.in_flight = stopper.is_some().then_some(MoveOwner::Fallback { why });
                stopper
            }
        }
    }

    fn end_of_move(&mut self, final_stats: &IterationStats) {
        let move_time_ms = final_stats.time_since_movestart_ms;
        match self.in_flight.take() {
            None => {}
            Some(MoveOwner::Model { deadline_ms }) => {
                let reason = if move_time_ms >= deadline_ms {
                    deadline_reached(deadline_ms)
                } else {
                    "stopped before the deadline (another stopper or the GUI)".to_owned()
                };
                self.traces.close(move_time_ms, final_stats.total_nodes, reason, Vec::new());
            }
            Some(MoveOwner::Fallback { why }) => {
                self.fallback.end_of_move(final_stats);
                for mut trace in self.fallback.drain_trace() {
                    trace.manager = format!("{} by fallback {} ({why})", self.name, trace.manager);
                    self.traces.file(trace);
                }
            }
        }
    }

    fn drain_trace(&mut self) -> Vec<MoveTrace> {
        self.traces.drain()
    }
}

/// The model's budget before the adjustments and the hard cap: τ of the module's formula, each step traced.
fn model_budget_ms(rho: f32, clock: &ClockView, max_share: f64, trace: &mut MoveTrace) -> f64 {
    let available = clock.hard_cap_ms() as f64;
    trace.step("predicted_share", f64::from(rho));
    trace.step("available_ms", available);
    let wanted = f64::from(rho).max(0.0) * available + clock.increment_ms as f64;
    let mut budget = wanted.min(max_share * available);
    if budget < wanted {
        trace.step("capped_at_max_share_ms", budget);
    }
    if let Some(moves) = clock.movestogo {
        let even_split = available / f64::from(moves);
        if even_split > budget {
            budget = even_split;
            trace.step("raised_to_movestogo_split_ms", budget);
        }
    }
    trace.step("allocated_ms", budget);
    budget
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(time_ms: i64, increment_ms: i64, movestogo: Option<i32>, overhead_ms: i64) -> ClockView {
        ClockView { time_ms, increment_ms, movestogo, overhead_ms }
    }

    fn budget(rho: f32, clock: ClockView) -> f64 {
        model_budget_ms(rho, &clock, 0.2, &mut MoveTrace::default())
    }

    /// Equal to a thousandth of a millisecond (ρ̂ is an f32).
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn the_share_of_the_clock_minus_the_overhead() {
        // 0.05 · (60000 − 200) = 2990 ms.
        assert!(close(budget(0.05, clock(60_000, 0, None, 200)), 2990.0));
        // A negative prediction spends nothing but the increment: 0 · 9900 + 500.
        assert!(close(budget(-0.01, clock(10_000, 500, None, 100)), 500.0));
    }

    #[test]
    fn the_increment_is_spent_on_top_but_never_past_the_cap() {
        // 0.03 · 9900 + 500 = 797 ms, below the cap 0.2 · 9900 = 1980.
        assert!(close(budget(0.03, clock(10_000, 500, None, 100)), 797.0));
        // A low clock: 0.03 · 500 + 1000 = 1015 ms wanted, capped at 0.2 · 500 = 100.
        assert!(close(budget(0.03, clock(600, 1000, None, 100)), 100.0));
        // A greedy prediction: 0.5 · 59800 = 29900 wanted, capped at 0.2 · 59800 = 11960.
        let mut trace = MoveTrace::default();
        assert!(close(model_budget_ms(0.5, &clock(60_000, 0, None, 200), 0.2, &mut trace), 11960.0));
        assert!(trace.step_value("capped_at_max_share_ms").is_some_and(|capped| close(capped, 11960.0)));
    }

    #[test]
    fn movestogo_raises_the_share_to_an_even_split_of_the_period() {
        // 0.05 · 20000 = 1000 ms, raised to 20000 / 4 = 5000 (the clock refills after 4 moves).
        assert!(close(budget(0.05, clock(20_000, 0, Some(4), 0)), 5000.0));
        // With 40 moves to go the model's 1000 ms beats the split of 500.
        assert!(close(budget(0.05, clock(20_000, 0, Some(40), 0)), 1000.0));
    }

    #[test]
    fn an_instability_is_a_multiple_of_the_base_share() {
        // ŷ = ȳ gets the base share, ŷ = 2ȳ twice it: 0.03 and 0.06.
        assert!((share_from_instability(0.25, 0.25, 0.03, 0.2) - 0.03).abs() < 1e-9);
        assert!((share_from_instability(0.5, 0.25, 0.03, 0.2) - 0.06).abs() < 1e-9);
        // A stable position (ŷ = 0.05, ȳ = 0.25) gets a fifth: 0.006.
        assert!((share_from_instability(0.05, 0.25, 0.03, 0.2) - 0.006).abs() < 1e-9);
    }

    #[test]
    fn an_instability_share_is_clamped_to_zero_and_max_share() {
        // 0.03 · 0.9 / 0.1 = 0.27, above max-share 0.2.
        assert_eq!(share_from_instability(0.9, 0.1, 0.03, 0.2), 0.2);
        // A net may predict below 0; the share stays 0.
        assert_eq!(share_from_instability(-0.02, 0.1, 0.03, 0.2), 0.0);
    }

    #[test]
    fn an_exhausted_clock_gives_nothing() {
        assert_eq!(budget(0.05, clock(150, 0, None, 200)), 0.0);
    }
}
