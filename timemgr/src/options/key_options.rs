//! Every number and switch of every manager and estimator as its own engine option (`SmoothMaxMoveBudget`,
//! `MleLegacyMidpoint`), derived from the registry: OpenBench's SPSA and fastchess set options one value each,
//! and cannot reach a key inside the `TimeManager` string. Setting one rewrites that string, so the manager
//! behaves exactly as if the key had been written in it.

use std::sync::LazyLock;

use super::config::TimeManagerConfig;
use super::dict::Value;
use super::error::OptionError;
use super::registry::{estimators, managers, ComponentKind, ComponentSpec, ParamKind, ParamSpec};
use super::value::ParamValue;

/// One registry key offered as an engine option.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyOption {
    /// The manager or estimator the key belongs to.
    pub component: &'static ComponentSpec,
    /// The key, with its type, default and range.
    pub param: &'static ParamSpec,
    /// The UCI name: component and key in CamelCase, lc0 style (`SmoothMaxMoveBudget`).
    pub uci_name: String,
    /// The command-line flag without dashes: component and key in kebab case (`smooth-max-move-budget`).
    pub flag: String,
}

/// `max-move-budget` → `MaxMoveBudget`.
fn camel_case(kebab: &str) -> String {
    kebab
        .split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

impl KeyOption {
    fn new(component: &'static ComponentSpec, param: &'static ParamSpec) -> Self {
        // A key that already starts with its component's name (alphazero-time-pct) does not repeat it.
        let key = param.name.strip_prefix(component.name).and_then(|rest| rest.strip_prefix('-')).unwrap_or(param.name);
        let flag = format!("{}-{key}", component.name);
        Self { component, param, uci_name: camel_case(&flag), flag }
    }

    /// Whether the option string selects this key's component: its manager, or a manager whose moves-left
    /// estimator it is.
    pub fn applies_to(&self, config: &TimeManagerConfig) -> bool {
        match self.component.kind {
            ComponentKind::Manager => config.manager.spec().name == self.component.name,
            ComponentKind::Estimator => config.estimator.as_ref().is_some_and(|e| e.spec().name == self.component.name),
        }
    }

    /// The key's value in `config`, if the key applies to it.
    pub fn value_in(&self, config: &TimeManagerConfig) -> Option<ParamValue> {
        if !self.applies_to(config) {
            return None;
        }
        match self.component.kind {
            ComponentKind::Manager => config.manager.get(self.param.name),
            ComponentKind::Estimator => config.estimator.as_ref().and_then(|e| e.get(self.param.name)),
        }
    }

    /// `config` with this key set to `value` (checked against the key's type and range); refused with
    /// [`OptionError::ForeignKey`] when `config` selects another manager or estimator.
    pub fn set_in(&self, config: &TimeManagerConfig, value: &Value) -> Result<TimeManagerConfig, OptionError> {
        if !self.applies_to(config) {
            return Err(self.foreign(config));
        }
        let mut changed = config.clone();
        let target = match self.component.kind {
            ComponentKind::Manager => Some(&mut changed.manager),
            ComponentKind::Estimator => changed.estimator.as_mut(),
        };
        if let Some(target) = target {
            target.set(self.param.name, value)?;
        }
        Ok(changed)
    }

    fn foreign(&self, config: &TimeManagerConfig) -> OptionError {
        let selected = config.name();
        let (owner, select) = match self.component.kind {
            ComponentKind::Manager => (format!("time manager {}", self.component.name), self.component.name.to_owned()),
            ComponentKind::Estimator => {
                let host = if config.manager.spec().default_estimator.is_some() { selected } else { "smooth" };
                (format!("moves-left estimator {}", self.component.name), format!("{host}({})", self.component.name))
            }
        };
        OptionError::ForeignKey {
            option: self.uci_name.clone(),
            key: self.param.name.to_owned(),
            owner,
            selected: config.to_string(),
            select,
        }
    }
}

static KEY_OPTIONS: LazyLock<Vec<KeyOption>> = LazyLock::new(|| {
    managers()
        .iter()
        .chain(estimators())
        .flat_map(|component| {
            component
                .all_params()
                .filter(|p| matches!(p.kind, ParamKind::Float { .. } | ParamKind::Int { .. } | ParamKind::Bool { .. }))
                .map(move |param| KeyOption::new(component, param))
        })
        .collect()
});

/// Every numeric and boolean key of every manager (the common adjustments included) and estimator, managers
/// first, each in registry order; choice keys (`preset`, `limit`) stay in the `TimeManager` string.
pub fn key_options() -> &'static [KeyOption] {
    &KEY_OPTIONS
}

/// The key option called `uci_name` (case-insensitive, as UCI names are).
pub fn key_option(uci_name: &str) -> Option<&'static KeyOption> {
    key_options().iter().find(|o| o.uci_name.eq_ignore_ascii_case(uci_name.trim()))
}

/// The key option of key `key` of component `component`.
pub fn key_option_of(component: &str, key: &str) -> Option<&'static KeyOption> {
    key_options().iter().find(|o| o.component.name == component && o.param.name == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_join_component_and_key_in_camel_case() {
        let names: Vec<(&str, &str)> = key_options().iter().map(|o| (o.uci_name.as_str(), o.flag.as_str())).collect();
        assert!(names.contains(&("SmoothMaxMoveBudget", "smooth-max-move-budget")));
        assert!(names.contains(&("SmoothTrendNpsUpdatePeriodMs", "smooth-trend-nps-update-period-ms")));
        assert!(names.contains(&("MleLegacyMidpoint", "mle-legacy-midpoint")));
        assert!(names.contains(&("AlphazeroTimePct", "alphazero-time-pct")));
        assert!(names.contains(&("ExpectedLengthInstantSingleMove", "expected-length-instant-single-move")));
        assert!(!names.iter().any(|(n, _)| *n == "SmoothPreset" || *n == "SmoothLimit"), "choices stay in the string");
        let mut unique: Vec<String> = names.iter().map(|(n, _)| n.to_ascii_lowercase()).collect();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "UCI names are unique ignoring case");
    }

    #[test]
    fn setting_a_key_equals_writing_it_in_the_string() {
        let base = TimeManagerConfig::parse("smooth(preset=lc0)").unwrap();
        let set = key_option("smoothmaxmovebudget").unwrap().set_in(&base, &Value::Float(0.55)).unwrap();
        assert_eq!(set, TimeManagerConfig::parse("smooth(preset=lc0,max-move-budget=0.55)").unwrap());
        let set = key_option("MleLegacyMidpoint").unwrap().set_in(&set, &Value::Int(60)).unwrap();
        assert_eq!(set.to_string(), "smooth(preset=lc0,max-move-budget=0.55,mle-legacy(midpoint=60.0))");
        assert_eq!(key_option("MleLegacyMidpoint").unwrap().value_in(&set), Some(ParamValue::Float(60.0)));
        assert_eq!(key_option("SmoothInitPiggybank").unwrap().value_in(&set), Some(ParamValue::Float(0.09)), "preset");
    }

    #[test]
    fn another_components_key_is_refused_with_its_owner() {
        let legacy = TimeManagerConfig::parse("legacy").unwrap();
        let error = key_option("SmoothMaxMoveBudget").unwrap().set_in(&legacy, &Value::Float(0.5)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "SmoothMaxMoveBudget is key max-move-budget of time manager smooth, but TimeManager is legacy; \
             select it first (setoption name TimeManager value smooth, or --time-manager=smooth before the flag), \
             then set SmoothMaxMoveBudget"
        );
        let geometric = TimeManagerConfig::parse("geometric").unwrap();
        let error = key_option("LognormalMu").unwrap().set_in(&geometric, &Value::Float(4.0)).unwrap_err();
        assert!(error.to_string().contains("moves-left estimator lognormal"), "{error}");
        assert!(error.to_string().contains("TimeManager value smooth(lognormal)"), "{error}");
        let error = key_option("MleLegacySteepness").unwrap().set_in(&legacy, &Value::Float(200.0)).unwrap_err();
        assert!(matches!(error, OptionError::OutOfRange { .. }), "{error}");
    }
}
