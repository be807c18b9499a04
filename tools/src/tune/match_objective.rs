//! The real objective: each iteration plays game pairs with the match runner between the θ + c_k Δ_k and
//! θ − c_k Δ_k option strings, or between each of them and a fixed reference.

use crate::runner::{play_games, EngineConfig, Flow, GameRecord, GameSettings, MatchPlan, Opening, Tournament};

use super::space::TuneSpace;
use super::spsa::{Objective, Trial};

/// The engine name of the θ + c_k Δ_k side in game records.
pub const PLUS_NAME: &str = "plus";
/// The engine name of the θ − c_k Δ_k side in game records.
pub const MINUS_NAME: &str = "minus";
/// The engine name of the fixed reference in game records.
pub const REFERENCE_NAME: &str = "reference";

/// How one iteration's games are played.
#[derive(Clone, Debug)]
pub struct MatchSetup {
    /// Engine words shared by every side (cmd=, arg=, option.NAME=, tc=, virtualclock=).
    pub engine_words: Vec<String>,
    /// The fixed opponent's option string; without it, plus plays minus.
    pub against: Option<String>,
    /// Games each perturbed side plays per iteration (even: colours are reversed within pairs).
    pub games_per_iteration: u64,
    /// Openings; iteration k starts at opening k × pairs so that iterations walk the book.
    pub openings: Vec<Opening>,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Clocks, adjudication and the virtual clock.
    pub settings: GameSettings,
}

/// Plays each iteration's games and counts each side's points.
pub struct MatchObjective<'a> {
    space: &'a TuneSpace,
    setup: MatchSetup,
    on_game: Box<dyn FnMut(&GameRecord) + 'a>,
}

impl<'a> MatchObjective<'a> {
    /// An objective for `space` played as `setup` describes; `on_game` sees every finished game.
    pub fn new(space: &'a TuneSpace, setup: MatchSetup, on_game: impl FnMut(&GameRecord) + 'a) -> Self {
        MatchObjective { space, setup, on_game: Box::new(on_game) }
    }

    fn engine(&self, name: &str, time_manager: &str) -> anyhow::Result<EngineConfig> {
        let own = [format!("name={name}"), format!("option.TimeManager={time_manager}")];
        Ok(EngineConfig::from_words(&self.setup.engine_words, &own)?)
    }

    /// The plan of iteration `iteration` for the two option strings; checked before it is returned.
    pub fn plan(&self, iteration: u64, plus: &str, minus: &str) -> anyhow::Result<MatchPlan> {
        let mut engines = Vec::new();
        if let Some(reference) = &self.setup.against {
            engines.push(self.engine(REFERENCE_NAME, reference)?);
        }
        engines.push(self.engine(PLUS_NAME, plus)?);
        engines.push(self.engine(MINUS_NAME, minus)?);
        let pairs = self.setup.games_per_iteration / 2;
        let book = &self.setup.openings;
        let first = if book.is_empty() { 0 } else { ((iteration * pairs) % book.len() as u64) as usize };
        let openings = book[first..].iter().chain(&book[..first]).cloned().collect();
        let plan = MatchPlan {
            engines,
            tournament: Tournament::Gauntlet,
            openings,
            pairs_per_pairing: pairs,
            concurrency: self.setup.concurrency,
            settings: self.setup.settings.clone(),
        };
        plan.validate()?;
        Ok(plan)
    }
}

/// Each side's points in `games`, in half points.
pub fn count_trial(games: &[GameRecord]) -> Trial {
    let mut trial = Trial::default();
    for game in games {
        if let Some(outcome) = game.outcome_for(PLUS_NAME) {
            trial.plus_half_points += (2.0 * outcome.score()) as u64;
            trial.plus_games += 1;
        }
        if let Some(outcome) = game.outcome_for(MINUS_NAME) {
            trial.minus_half_points += (2.0 * outcome.score()) as u64;
            trial.minus_games += 1;
        }
    }
    trial
}

impl Objective for MatchObjective<'_> {
    type Error = anyhow::Error;

    fn measure(&mut self, iteration: u64, plus: &[f64], minus: &[f64]) -> anyhow::Result<Trial> {
        let plan = self.plan(iteration, &self.space.option_string(plus)?, &self.space.option_string(minus)?)?;
        let on_game = &mut self.on_game;
        let games = play_games(&plan, plan.schedule(), |record| {
            on_game(record);
            Flow::Continue
        });
        Ok(count_trial(&games))
    }
}
