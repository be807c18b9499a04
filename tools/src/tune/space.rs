//! The search space: `--param NAME=START:MIN:MAX` checked against the time-manager registry, and θ written back
//! as a `NAME(…)` option string.

use timemgr::options::error::Suggestion;
use timemgr::options::{ParamKind, ParamSpec};
use timemgr::{OptionError, TimeManagerConfig};

use super::spsa::SpsaParam;

/// A `--time-manager` or `--param` that cannot be tuned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpaceError {
    /// The base option string or a value in it is invalid.
    #[error("--time-manager: {0}")]
    Option(#[from] OptionError),
    /// `--param` is not `NAME=START:MIN:MAX`.
    #[error("--param '{0}' is not NAME=START:MIN:MAX with three numbers (e.g. max-move-budget=0.3:0.1:0.6)")]
    Syntax(String),
    /// The key names no numeric parameter of the manager or its estimator.
    #[error("--param {key}: {manager} has no numeric key of that name{suggestion}; tunable keys: {valid}")]
    UnknownKey {
        /// The key given.
        key: String,
        /// The manager being tuned.
        manager: String,
        /// The nearest tunable key, if one is near.
        suggestion: Suggestion,
        /// Every tunable key, comma-separated.
        valid: String,
    },
    /// The key has no effect under the rest of the option string, so its games could not tell its values apart.
    #[error("--param {key}: {manager} never reads it: {why}")]
    Inert {
        /// The key.
        key: String,
        /// The option string being tuned.
        manager: String,
        /// Why, and the way out.
        why: &'static str,
    },
    /// The same key twice.
    #[error("--param {0} is given twice; keep one")]
    Duplicate(String),
    /// Bounds reversed or beyond what the key allows.
    #[error("--param {key}: bounds {min}:{max} must satisfy {allowed_min} <= MIN < MAX <= {allowed_max}")]
    Bounds {
        /// The key.
        key: String,
        /// The lower bound given.
        min: f64,
        /// The upper bound given.
        max: f64,
        /// The key's smallest valid value.
        allowed_min: f64,
        /// The key's largest valid value.
        allowed_max: f64,
    },
    /// The start lies outside the bounds.
    #[error("--param {key}: start {start} lies outside its bounds [{min}, {max}]; move the start or widen the bounds")]
    StartOutside {
        /// The key.
        key: String,
        /// The start given.
        start: f64,
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
    },
}

/// The manager being tuned and, per tuned key, its registry entry and SPSA box.
#[derive(Clone, Debug)]
pub struct TuneSpace {
    base: TimeManagerConfig,
    specs: Vec<&'static ParamSpec>,
    params: Vec<SpsaParam>,
}

fn parse_param(text: &str) -> Result<(String, f64, f64, f64), SpaceError> {
    let syntax = || SpaceError::Syntax(text.to_owned());
    let (key, numbers) = text.split_once('=').ok_or_else(syntax)?;
    let values: Vec<f64> =
        numbers.split(':').map(|n| n.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|_| syntax())?;
    match values.as_slice() {
        &[start, min, max] if values.iter().all(|v| v.is_finite()) => Ok((key.trim().to_owned(), start, min, max)),
        _ => Err(syntax()),
    }
}

fn tunable_keys(base: &TimeManagerConfig) -> Vec<String> {
    let manager = timemgr::options::numeric_params(base.manager.spec()).into_iter().map(|p| p.name.to_owned());
    let estimator = base.estimator.iter().flat_map(|e| {
        let name = e.spec().name;
        timemgr::options::numeric_params(e.spec()).into_iter().map(move |p| format!("{name}.{}", p.name))
    });
    manager.chain(estimator).collect()
}

fn lookup(base: &TimeManagerConfig, key: &str) -> Option<&'static ParamSpec> {
    let spec = match key.split_once('.') {
        Some((estimator, inner)) => base.estimator.as_ref().filter(|e| e.spec().name == estimator)?.spec().param(inner),
        None => base.manager.spec().param(key),
    }?;
    matches!(spec.kind, ParamKind::Float { .. } | ParamKind::Int { .. }).then_some(spec)
}

fn range_and_step(spec: &ParamSpec) -> (f64, f64, f64) {
    match spec.kind {
        ParamKind::Float { min, max, step, .. } => (min, max, step),
        ParamKind::Int { min, max, step, .. } => (min as f64, max as f64, step as f64),
        ParamKind::Bool { .. } | ParamKind::Choice { .. } | ParamKind::Text { .. } => (0.0, 0.0, 0.0),
    }
}

/// Refuses a tuned key that the manager never reads under the base string, unless the key that would give it an
/// effect is tuned too.
fn refuse_inert(base: &TimeManagerConfig, tuned: &[SpsaParam]) -> Result<(), SpaceError> {
    let is_tuned = |key: &str| tuned.iter().any(|p| p.name == key);
    for inert in timemgr::inert_keys(base)? {
        if is_tuned(inert.key) && !inert.unless_tuned.iter().any(|key| is_tuned(key)) {
            return Err(SpaceError::Inert { key: inert.key.to_owned(), manager: base.to_string(), why: inert.why });
        }
    }
    Ok(())
}

impl TuneSpace {
    /// Parses and builds the base option string and checks every `--param` against the registry; an estimator key is
    /// written `ESTIMATOR.KEY` or `estimator.KEY` (the manager's estimator, whatever its name).
    pub fn new(time_manager: &str, params: &[String]) -> Result<Self, SpaceError> {
        let base = TimeManagerConfig::parse(time_manager)?;
        // Building the manager checks what parsing cannot, such as a ctm model file, before any game is played.
        timemgr::build_time_manager(&base)?;
        let mut specs = Vec::new();
        let mut tuned: Vec<SpsaParam> = Vec::new();
        for text in params {
            let (written, start, min, max) = parse_param(text)?;
            let key = match (written.strip_prefix("estimator."), base.estimator.as_ref()) {
                (Some(inner), Some(estimator)) => format!("{}.{inner}", estimator.spec().name),
                _ => written,
            };
            let spec = lookup(&base, &key).ok_or_else(|| {
                let valid = tunable_keys(&base);
                SpaceError::UnknownKey {
                    key: key.clone(),
                    manager: base.name().to_owned(),
                    suggestion: Suggestion::closest(&key, valid.iter().map(String::as_str)),
                    valid: valid.join(", "),
                }
            })?;
            if tuned.iter().any(|p| p.name == key) {
                return Err(SpaceError::Duplicate(key));
            }
            let (allowed_min, allowed_max, step) = range_and_step(spec);
            if !(allowed_min <= min && min < max && max <= allowed_max) {
                return Err(SpaceError::Bounds { key, min, max, allowed_min, allowed_max });
            }
            if !(min <= start && start <= max) {
                return Err(SpaceError::StartOutside { key, start, min, max });
            }
            specs.push(spec);
            tuned.push(SpsaParam { name: key, start, min, max, step });
        }
        refuse_inert(&base, &tuned)?;
        let space = TuneSpace { base, specs, params: tuned };
        space.config(&space.starts())?;
        Ok(space)
    }

    /// The base option string as parsed, before any tuned value (which manager and estimator are tuned).
    pub fn base(&self) -> &TimeManagerConfig {
        &self.base
    }

    /// The SPSA parameters, in `--param` order.
    pub fn params(&self) -> &[SpsaParam] {
        &self.params
    }

    /// The start values, in `--param` order.
    pub fn starts(&self) -> Vec<f64> {
        self.params.iter().map(|p| p.start).collect()
    }

    /// The base configuration with `theta` written in (integer keys rounded to the nearest integer).
    pub fn config(&self, theta: &[f64]) -> Result<TimeManagerConfig, OptionError> {
        let mut config = self.base.clone();
        for ((param, spec), &value) in self.params.iter().zip(&self.specs).zip(theta) {
            let value = match spec.kind {
                ParamKind::Int { .. } => value.round(),
                _ => value,
            };
            config.set_number(&param.name, value)?;
        }
        Ok(config)
    }

    /// The canonical option string for `theta`.
    pub fn option_string(&self, theta: &[f64]) -> Result<String, OptionError> {
        self.config(theta).map(|c| c.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn params_and_estimator_params_are_found_with_registry_steps() {
        let base = TimeManagerConfig::parse("smooth").unwrap();
        let estimator = base.estimator.as_ref().unwrap().spec();
        let estimator_key = timemgr::options::numeric_params(estimator)[0];
        let (min, max, step) = range_and_step(estimator_key);
        let mid = (min.max(-1e6) + max.min(1e6)) / 2.0;
        let qualified = format!("{}.{}={mid}:{}:{}", estimator.name, estimator_key.name, min.max(-1e6), max.min(1e6));
        let space =
            TuneSpace::new("smooth", &[words(&["max-move-budget=0.3:0.1:0.6"]), vec![qualified]].concat()).unwrap();
        assert_eq!(space.params().len(), 2);
        assert_eq!(space.params()[1].step, step);
        let text = space.option_string(&[0.45, mid]).unwrap();
        assert!(text.contains("max-move-budget=0.45"), "{text}");
        let tuned: timemgr::options::registry::SmoothParams =
            TimeManagerConfig::parse(&text).unwrap().manager.keys().unwrap();
        assert_eq!(tuned.max_move_budget, 0.45);
    }

    #[test]
    fn estimator_prefix_names_the_managers_estimator() {
        let space = TuneSpace::new("smooth", &words(&["estimator.steepness=6:2:9"])).unwrap();
        let name = &space.params()[0].name;
        assert_eq!(name, "mle-legacy.steepness");
        assert!(space.option_string(&[8.0]).unwrap().contains("steepness=8.0"));
    }

    #[test]
    fn bad_params_name_the_problem() {
        let err = |params: &[&str]| TuneSpace::new("smooth", &words(params)).unwrap_err();
        assert!(matches!(err(&["max-move-budget=0.3:0.1"]), SpaceError::Syntax(_)));
        assert!(matches!(err(&["max-move-budgt=0.3:0.1:0.6"]), SpaceError::UnknownKey { .. }));
        let text = err(&["max-move-budgt=0.3:0.1:0.6"]).to_string();
        assert!(
            text.starts_with(
                "--param max-move-budgt: smooth has no numeric key of that name; did you mean \
            'max-move-budget'?; tunable keys: "
            ),
            "{text}"
        );
        assert!(matches!(err(&["max-move-budget=0.3:0.6:0.1"]), SpaceError::Bounds { .. }));
        assert!(matches!(err(&["max-move-budget=0.3:-5:0.6"]), SpaceError::Bounds { .. }));
        assert!(matches!(err(&["max-move-budget=0.9:0.1:0.6"]), SpaceError::StartOutside { .. }));
        assert!(matches!(
            err(&["max-move-budget=0.3:0.1:0.6", "max-move-budget=0.3:0.1:0.6"]),
            SpaceError::Duplicate(_)
        ));
        assert!(matches!(TuneSpace::new("smoth", &[]).unwrap_err(), SpaceError::Option(_)));
    }

    #[test]
    fn a_key_the_manager_never_reads_is_refused_with_the_way_out() {
        let error = TuneSpace::new("smooth(limit=nodes)", &words(&["init-timeuse=0.9:0.5:1.0"])).unwrap_err();
        assert!(matches!(error, SpaceError::Inert { .. }), "{error}");
        let text = error.to_string();
        assert!(text.contains("init-timeuse") && text.contains("learn-node-use=true"), "{text}");
        let learned = "smooth(limit=nodes,learn-node-use=true)";
        assert!(TuneSpace::new(learned, &words(&["init-timeuse=0.9:0.5:1.0"])).is_ok());
        // A decay of no bonus is refused alone, and accepted when the bonus is tuned beside it.
        let decay = "first-move-bonus-decay=0.5:0.0:0.9";
        assert!(matches!(TuneSpace::new("smooth", &words(&[decay])), Err(SpaceError::Inert { .. })));
        assert!(TuneSpace::new("smooth", &words(&[decay, "first-move-bonus=0.5:0.0:2.0"])).is_ok());
    }
}
