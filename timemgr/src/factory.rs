//! Turns a validated option string into a time manager: the one place where registry keys meet code.

use crate::estimator::MovesLeftEstimator;
use crate::managers::alphazero::{AlphaZeroManager, AlphaZeroParams};
use crate::managers::expected_length::{ExpectedLengthManager, ExpectedLengthParams};
use crate::managers::geometric::{AlphaRule, GeometricManager, GeometricParams};
use crate::managers::legacy::{LegacyManager, LegacyParams};
use crate::managers::simple::{SimpleManager, SimpleParams};
use crate::managers::smooth::{SmoothManager, SmoothParams};
use crate::managers::{Adjustments, TimeManager};
use crate::options::{ComponentConfig, OptionError, TimeManagerConfig};

/// Parses an option string such as `smooth(preset=lc0)` and builds a fresh manager for one game.
pub fn time_manager_from_str(spec: &str) -> Result<Box<dyn TimeManager>, OptionError> {
    build_time_manager(&TimeManagerConfig::parse(spec)?)
}

/// Builds a fresh manager (for one game) from a validated configuration.
pub fn build_time_manager(config: &TimeManagerConfig) -> Result<Box<dyn TimeManager>, OptionError> {
    let m = &config.manager;
    let name = config.to_string();
    let adjustments =
        Adjustments { instant_single_move: m.flag("instant-single-move"), out_of_book_factor: m.flag("out-of-book-factor") };
    let manager: Box<dyn TimeManager> = match config.name() {
        "legacy" => {
            // lc0's legacy keys configure the default estimator unless an estimator sub-dictionary changed it.
            let lc0_default =
                MovesLeftEstimator::MleLegacy { midpoint: m.float32("midpoint-move"), steepness: m.float32("steepness") };
            let estimator = match &config.estimator {
                Some(est) if !is_untouched_default(config, est) => {
                    MovesLeftEstimator::from_config(est, lc0_default)
                }
                _ => lc0_default,
            };
            Box::new(LegacyManager::new(
                LegacyParams {
                    slowmover: m.float32("slowmover"),
                    immediate_use: m.float32("immediate-use"),
                    first_move_bonus: m.float32("first-move-bonus"),
                    book_ply_bonus: m.float32("book-ply-bonus"),
                    estimator,
                    adjustments,
                },
                name,
            ))
        }
        "alphazero" => {
            Box::new(AlphaZeroManager::new(AlphaZeroParams { time_pct: m.float32("alphazero-time-pct"), adjustments }, name))
        }
        "simple" => Box::new(SimpleManager::new(
            SimpleParams {
                base_pct: m.float32("base-pct"),
                ply_pct: m.float32("ply-pct"),
                time_factor: m.float32("time-factor"),
                opening_bonus_pct: m.float32("opening-bonus-pct"),
                adjustments,
            },
            name,
        )),
        "smooth" => Box::new(SmoothManager::new(
            SmoothParams {
                init_tree_reuse: m.float32("init-tree-reuse"),
                max_tree_reuse: m.float32("max-tree-reuse"),
                tree_reuse_update_rate: m.float32("tree-reuse-update-rate"),
                init_nps: m.float32("init-nps"),
                nps_update_rate: m.float32("nps-update-rate"),
                nps_update_period: m.float32("nps-update-period"),
                init_timeuse: m.float32("init-timeuse"),
                min_timeuse: m.float32("min-timeuse"),
                timeuse_update_rate: m.float32("timeuse-update-rate"),
                max_move_budget: m.float32("max-move-budget"),
                init_piggybank: m.float32("init-piggybank"),
                per_move_piggybank: m.float32("per-move-piggybank"),
                max_piggybank_use: m.float32("max-piggybank-use"),
                max_piggybank_moves: m.float32("max-piggybank-moves"),
                trend_period_ms: m.int("trend-nps-update-period-ms"),
                bestmove_optimism: m.float32("bestmove-optimism"),
                overtaker_optimism: m.float32("overtaker-optimism"),
                force_piggybank_ms: m.int("force-piggybank-ms"),
                need_more_time: m.flag("need-more-time"),
                lc0_compat: m.flag("lc0-compat"),
                theta: m.float32("theta"),
                estimator: estimator_of(config),
                adjustments,
            },
            name,
        )),
        "geometric" => {
            let rule = if m.float("alpha") > 0.0 {
                if m.float("alpha") <= 1.0 {
                    return Err(OptionError::Inconsistent {
                        component: "geometric".into(),
                        reason: format!("alpha={} would spend the whole clock at once; give alpha > 1, or 0 to solve it", m.float("alpha")),
                    });
                }
                AlphaRule::Fixed(m.float("alpha"))
            } else if m.float("reserve-ms") > 0.0 {
                AlphaRule::ReserveMs(m.float("reserve-ms"))
            } else if m.float("reserve-fraction") > 0.0 {
                AlphaRule::ReserveFraction(m.float("reserve-fraction"))
            } else {
                AlphaRule::MinimumMoveTime
            };
            let moves = u32::try_from(m.int("moves")).unwrap_or(1);
            Box::new(GeometricManager::new(
                GeometricParams { rule, moves, min_move_ms: m.float("min-move-ms"), adjustments },
                name,
            ))
        }
        "expected-length" => Box::new(ExpectedLengthManager::new(
            ExpectedLengthParams { estimator: estimator_of(config), adjustments },
            name,
        )),
        other => {
            return Err(OptionError::Inconsistent {
                component: other.to_owned(),
                reason: "registered but not buildable; this is a bug in the registry".to_owned(),
            })
        }
    };
    Ok(manager)
}

/// Whether the estimator is the manager's default one with its default values (nothing written for it).
fn is_untouched_default(config: &TimeManagerConfig, estimator: &ComponentConfig) -> bool {
    config.default_estimator().as_ref() == Some(estimator)
}

/// The configured estimator; `mlh` falls back to the manager's default estimator with its preset values.
fn estimator_of(config: &TimeManagerConfig) -> MovesLeftEstimator {
    let fallback = config
        .default_estimator()
        .map(|est| MovesLeftEstimator::from_config(&est, MovesLeftEstimator::MleLegacy { midpoint: 51.5, steepness: 7.0 }))
        .unwrap_or(MovesLeftEstimator::MleLegacy { midpoint: 51.5, steepness: 7.0 });
    match &config.estimator {
        Some(est) => MovesLeftEstimator::from_config(est, fallback),
        None => fallback,
    }
}
