//! Turns a validated option string into a time manager: the one place where registry keys meet code.

use crate::estimator::MovesLeftEstimator;
use crate::managers::alphazero::AlphaZeroBudget;
use crate::managers::ctm::{CtmKeys, CtmManager, CtmParams};
use crate::managers::expected_length::{ExpectedLengthBudget, ExpectedLengthParams};
use crate::managers::geometric::{GeometricBudget, GeometricParams};
use crate::managers::legacy::{LegacyBudget, LegacyParams};
use crate::managers::regime::{RegimeKeys, RegimeManager};
use crate::managers::simple::SimpleBudget;
use crate::managers::smooth::{SmoothManager, SmoothParams};
use crate::managers::{DeadlineManager, InertKey, TimeManager};
use crate::options::registry::{Adjustments, ComponentKeys};
use crate::options::{ComponentConfig, OptionError, TimeManagerConfig};

/// Parses an option string such as `smooth(preset=lc0)` and builds a fresh manager for one game.
pub fn time_manager_from_str(spec: &str) -> Result<Box<dyn TimeManager>, OptionError> {
    build_time_manager(&TimeManagerConfig::parse(spec)?)
}

/// Builds a fresh manager (for one game) from a validated configuration; every key is read through its
/// component's typed struct ([`crate::options::registry::ComponentKeys`]), never by name.
pub fn build_time_manager(config: &TimeManagerConfig) -> Result<Box<dyn TimeManager>, OptionError> {
    let m = &config.manager;
    let name = config.to_string();
    let adjustments = m.adjustments()?;
    let manager: Box<dyn TimeManager> = match config.name() {
        "regime" => {
            if adjustments != Adjustments::defaults() {
                return Err(OptionError::Inconsistent {
                    component: "regime".to_owned(),
                    reason: "instant-single-move and out-of-book-factor belong to the manager that plays the \
                             game; write them in small-trees or large-trees, e.g. \
                             large-trees='legacy(instant-single-move=true)'"
                        .to_owned(),
                });
            }
            let keys: RegimeKeys = m.keys()?;
            let small_trees = inner_manager("regime", "small-trees", &keys.small_trees)?;
            let large_trees = inner_manager("regime", "large-trees", &keys.large_trees)?;
            RegimeManager::boxed(name, keys.switch_nodes, small_trees, large_trees)
        }
        "legacy" => {
            let params: LegacyParams = m.keys()?;
            // lc0's legacy keys configure the default estimator unless an estimator sub-dictionary changed it.
            let lc0_default = MovesLeftEstimator::MleLegacy {
                midpoint: params.midpoint_move,
                steepness: params.steepness,
                follow_games: 0.0,
            };
            let estimator = match &config.estimator {
                Some(est) if !is_untouched_default(config, est) => MovesLeftEstimator::from_config(est, lc0_default)?,
                _ => lc0_default,
            };
            DeadlineManager::boxed(LegacyBudget::new(params, estimator), adjustments, name)
        }
        "alphazero" => DeadlineManager::boxed(AlphaZeroBudget::new(m.keys()?), adjustments, name),
        "simple" => DeadlineManager::boxed(SimpleBudget::new(m.keys()?), adjustments, name),
        "smooth" => Box::new(SmoothManager::new(m.keys()?, estimator_of(config)?, adjustments, name)),
        "geometric" => {
            let params = GeometricParams::from_keys(&m.keys()?)?;
            DeadlineManager::boxed(GeometricBudget::new(params), adjustments, name)
        }
        "ctm" => {
            let keys: CtmKeys = m.keys()?;
            let params = CtmParams::from_keys(&keys)?;
            CtmManager::boxed(params, inner_manager("ctm", "fallback", &keys.fallback)?, adjustments, name)
        }
        "expected-length" => {
            let params = ExpectedLengthParams { estimator: estimator_of(config)? };
            DeadlineManager::boxed(ExpectedLengthBudget::new(params), adjustments, name)
        }
        other => {
            return Err(OptionError::Inconsistent {
                component: other.to_owned(),
                reason: "registered but not buildable; this is a bug in the registry".to_owned(),
            })
        }
    };
    Ok(manager)
}

/// The keys of `config` that its manager never reads under the rest of the string (see [`InertKey`]).
pub fn inert_keys(config: &TimeManagerConfig) -> Result<Vec<InertKey>, OptionError> {
    Ok(match config.name() {
        "smooth" => config.manager.keys::<SmoothParams>()?.inert_keys(),
        "legacy" => {
            let own_curve_replaced = config.estimator.as_ref().is_some_and(|est| !is_untouched_default(config, est));
            config.manager.keys::<LegacyParams>()?.inert_keys(own_curve_replaced)
        }
        _ => Vec::new(),
    })
}

/// A manager named in key `key` of manager `owner` (ctm's fallback, regime's candidates): any manager but
/// `owner` itself; errors name the owner, the key and the string.
fn inner_manager(owner: &str, key: &str, spec: &str) -> Result<Box<dyn TimeManager>, OptionError> {
    let wrap = |error: OptionError| OptionError::Inconsistent {
        component: owner.to_owned(),
        reason: format!("{key} '{spec}': {error}"),
    };
    let config = TimeManagerConfig::parse(spec).map_err(wrap)?;
    if config.name() == owner {
        return Err(OptionError::Inconsistent {
            component: owner.to_owned(),
            reason: format!("{key} '{spec}' is {owner} again; name another manager, e.g. {key}=legacy"),
        });
    }
    build_time_manager(&config).map_err(wrap)
}

/// Whether the estimator is the manager's default one with its default values (nothing written for it).
fn is_untouched_default(config: &TimeManagerConfig, estimator: &ComponentConfig) -> bool {
    config.default_estimator().as_ref() == Some(estimator)
}

/// The configured estimator; `mlh` falls back to the manager's default estimator with its preset values.
fn estimator_of(config: &TimeManagerConfig) -> Result<MovesLeftEstimator, OptionError> {
    let lc0_default = || MovesLeftEstimator::MleLegacy { midpoint: 51.5, steepness: 7.0, follow_games: 0.0 };
    let fallback = match config.default_estimator() {
        Some(est) => MovesLeftEstimator::from_config(&est, lc0_default())?,
        None => lc0_default(),
    };
    match &config.estimator {
        Some(est) => MovesLeftEstimator::from_config(est, fallback),
        None => Ok(fallback),
    }
}
