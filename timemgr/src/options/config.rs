//! A validated option string: the manager with every key's value, and its moves-left estimator.

use std::fmt;

use super::dict::{parse_dict, Dict, Value};
use super::error::{Names, OptionError, Suggestion};
use super::registry::{
    component, estimators, managers, Adjustments, ComponentKeys, ComponentKind, ComponentSpec, ParamKind, ParamSpec,
    PresetChoice, PresetValue,
};
use super::value::ParamValue;

/// One component (manager or estimator) with a value for each of its keys.
#[derive(Clone, Debug, PartialEq)]
pub struct ComponentConfig {
    spec: &'static ComponentSpec,
    values: Vec<ParamValue>,
    defaults: Vec<ParamValue>,
}

impl ComponentConfig {
    /// Every key at its default (after a preset's `preset_values`, given as key/number pairs, and its
    /// `preset_choices`, as key/choice pairs).
    fn with_defaults(
        spec: &'static ComponentSpec,
        preset_values: &[PresetValue],
        preset_choices: &[PresetChoice],
    ) -> Self {
        let defaults: Vec<ParamValue> = spec
            .all_params()
            .map(|p| {
                let preset = preset_values.iter().find(|(k, _)| *k == p.name).map(|&(_, v)| v);
                let choice = preset_choices.iter().find(|(k, _)| *k == p.name).map(|&(_, c)| c);
                match p.kind {
                    ParamKind::Float { default, .. } => ParamValue::Float(preset.unwrap_or(default)),
                    ParamKind::Int { default, .. } => ParamValue::Int(preset.map_or(default, |v| v as i64)),
                    ParamKind::Bool { default } => ParamValue::Bool(preset.map_or(default, |v| v != 0.0)),
                    ParamKind::Choice { default, .. } => ParamValue::Choice(choice.unwrap_or(default)),
                    ParamKind::Text { default } => ParamValue::Text(default.to_owned()),
                }
            })
            .collect();
        Self { spec, values: defaults.clone(), defaults }
    }

    /// The registry entry.
    pub fn spec(&self) -> &'static ComponentSpec {
        self.spec
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.spec.all_params().position(|p| p.name == name)
    }

    /// The value of `name`, if the component has that key.
    pub fn get(&self, name: &str) -> Option<ParamValue> {
        self.index(name).map(|i| self.values[i].clone())
    }

    /// Whether `name` holds a value other than its (preset) default, i.e. the option string set it.
    pub fn is_changed(&self, name: &str) -> bool {
        self.index(name).is_some_and(|i| self.values[i] != self.defaults[i])
    }

    /// The component's own keys as their typed struct; `K` must be this component's (else a registry bug).
    pub fn keys<K: ComponentKeys>(&self) -> Result<K, OptionError> {
        if self.spec.params != K::KEYS {
            return Err(OptionError::Inconsistent {
                component: self.spec.name.to_owned(),
                reason: format!("the code reads it as {}; this is a bug in the registry", std::any::type_name::<K>()),
            });
        }
        K::from_values(self.spec.name, &self.values[..K::KEYS.len()])
    }

    /// The common adjustments that follow a manager's own keys.
    pub fn adjustments(&self) -> Result<Adjustments, OptionError> {
        let own = self.spec.params.len();
        if self.spec.kind != ComponentKind::Manager || !self.spec.all_params().skip(own).eq(Adjustments::KEYS) {
            return Err(OptionError::Inconsistent {
                component: self.spec.name.to_owned(),
                reason: "it takes no adjustments; this is a bug in the registry".to_owned(),
            });
        }
        Adjustments::from_values(self.spec.name, &self.values[own..])
    }

    /// Sets a numeric key (the tuner's entry point), checking type and range.
    pub fn set_number(&mut self, name: &str, value: f64) -> Result<(), OptionError> {
        let value =
            if value.fract() == 0.0 && value.abs() < 9e15 { Value::Int(value as i64) } else { Value::Float(value) };
        self.set(name, &value)
    }

    /// Sets a key from a written value, checking type and range.
    pub fn set(&mut self, name: &str, value: &Value) -> Result<(), OptionError> {
        let Some(index) = self.index(name) else {
            return Err(self.unknown_key(name));
        };
        let param = self.spec.all_params().nth(index).copied();
        let Some(param) = param else {
            return Err(self.unknown_key(name));
        };
        self.values[index] = validate(self.spec.name, &param, value)?;
        Ok(())
    }

    fn unknown_key(&self, key: &str) -> OptionError {
        let valid: Vec<&str> = self.spec.all_params().map(|p| p.name).collect();
        OptionError::UnknownKey {
            component: self.spec.name.to_owned(),
            key: key.to_owned(),
            suggestion: Suggestion::closest(key, valid.iter().copied()),
            valid: Names(valid.iter().map(|s| (*s).to_owned()).collect()),
        }
    }

    /// `name(key=value,…)` with only the keys that differ from their (preset) defaults; the preset first.
    fn write_with(&self, f: &mut fmt::Formatter<'_>, extra: Option<&ComponentConfig>) -> fmt::Result {
        let preset = self.get("preset").filter(|p| Some(p) != self.index("preset").map(|i| &self.defaults[i]));
        let mut items: Vec<String> = Vec::new();
        if let Some(preset) = preset {
            items.push(format!("preset={preset}"));
        }
        for ((param, value), default) in self.spec.all_params().zip(&self.values).zip(&self.defaults) {
            if param.name != "preset" && value != default {
                items.push(format!("{}={value}", param.name));
            }
        }
        if let Some(extra) = extra {
            items.push(extra.to_string());
        }
        if items.is_empty() {
            f.write_str(self.spec.name)
        } else {
            write!(f, "{}({})", self.spec.name, items.join(","))
        }
    }
}

impl fmt::Display for ComponentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_with(f, None)
    }
}

/// Checks a written value against a key's type and range.
fn validate(component: &str, param: &ParamSpec, value: &Value) -> Result<ParamValue, OptionError> {
    let wrong_type = |expected: &str| OptionError::WrongType {
        component: component.to_owned(),
        key: param.name.to_owned(),
        expected: expected.to_owned(),
        found: value.to_string(),
    };
    let out_of_range = |range: String| OptionError::OutOfRange {
        component: component.to_owned(),
        key: param.name.to_owned(),
        value: match value {
            Value::Int(i) => i.to_string(),
            Value::Float(x) => x.to_string(),
            other => other.to_string(),
        },
        range,
    };
    match (param.kind, value) {
        (ParamKind::Float { min, max, .. }, Value::Float(_) | Value::Int(_)) => {
            let x = match value {
                Value::Int(i) => *i as f64,
                Value::Float(x) => *x,
                _ => 0.0,
            };
            if (min..=max).contains(&x) {
                Ok(ParamValue::Float(x))
            } else {
                Err(out_of_range(format!("[{min}, {max}]")))
            }
        }
        (ParamKind::Float { .. }, _) => Err(wrong_type("a number")),
        (ParamKind::Int { min, max, .. }, Value::Int(i)) => {
            if (min..=max).contains(i) {
                Ok(ParamValue::Int(*i))
            } else {
                Err(out_of_range(format!("[{min}, {max}]")))
            }
        }
        (ParamKind::Int { .. }, _) => Err(wrong_type("an integer (written without a decimal point)")),
        (ParamKind::Bool { .. }, Value::Bool(b)) => Ok(ParamValue::Bool(*b)),
        (ParamKind::Bool { .. }, _) => Err(wrong_type("true or false")),
        (ParamKind::Choice { choices, .. }, Value::Str(s)) => match choices.iter().find(|c| **c == s) {
            Some(choice) => Ok(ParamValue::Choice(choice)),
            None => Err(OptionError::UnknownComponent {
                what: "choice",
                name: s.clone(),
                suggestion: Suggestion::closest(s, choices.iter().copied()),
                valid: Names(choices.iter().map(|c| (*c).to_owned()).collect()),
            }),
        },
        (ParamKind::Choice { choices, .. }, _) => Err(wrong_type(&format!("one of {}", choices.join(", ")))),
        (ParamKind::Text { .. }, Value::Str(text)) => Ok(ParamValue::Text(text.clone())),
        (ParamKind::Text { .. }, _) => {
            Err(wrong_type("text (quote it if it starts with a digit, e.g. '2025/model.bin')"))
        }
    }
}

/// A validated time-manager option string: the manager and, if it uses one, its moves-left estimator.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeManagerConfig {
    /// The manager and its keys.
    pub manager: ComponentConfig,
    /// The moves-left estimator (the manager's default when none was written).
    pub estimator: Option<ComponentConfig>,
    /// The manager's default estimator with its preset values (what `mlh` falls back to).
    default_estimator: Option<ComponentConfig>,
}

impl TimeManagerConfig {
    /// Parses and validates `NAME(key=value,…,estimator(key=value))`.
    pub fn parse(spec: &str) -> Result<Self, OptionError> {
        let dict = parse_dict(spec)?;
        let manager_names = || Names(managers().iter().map(|m| m.name.to_owned()).collect());
        if let Some((key, _)) = dict.values.first() {
            return Err(OptionError::UnknownComponent {
                what: "time manager",
                name: key.clone(),
                suggestion: Suggestion::closest(key, managers().iter().map(|m| m.name)),
                valid: manager_names(),
            });
        }
        let [(name, body)] = dict.subdicts.as_slice() else {
            return Err(OptionError::ManagerCount { count: dict.subdicts.len(), valid: manager_names() });
        };
        let spec = managers().iter().find(|m| m.name == name).ok_or_else(|| OptionError::UnknownComponent {
            what: "time manager",
            name: name.clone(),
            suggestion: Suggestion::closest(name, managers().iter().map(|m| m.name)),
            valid: manager_names(),
        })?;
        Self::from_dict(spec, body)
    }

    fn from_dict(spec: &'static ComponentSpec, body: &Dict) -> Result<Self, OptionError> {
        let preset = match body.value("preset") {
            Some(value) => match spec.param("preset") {
                Some(param) => match validate(spec.name, param, value)? {
                    ParamValue::Choice(name) => spec.preset(name),
                    _ => None,
                },
                None => None,
            },
            None => spec.presets.first(),
        };
        let mut manager =
            ComponentConfig::with_defaults(spec, preset.map_or(&[], |p| p.values), preset.map_or(&[], |p| p.choices));
        let estimator_dicts: Vec<&(String, Dict)> = body.subdicts.iter().collect();
        let default_estimator = spec
            .default_estimator
            .and_then(component)
            .filter(|c| c.kind == ComponentKind::Estimator)
            .map(|e| ComponentConfig::with_defaults(e, preset.map_or(&[], |p| p.estimator_values), &[]));
        let mut estimator = match (spec.default_estimator, estimator_dicts.as_slice()) {
            (None, []) => None,
            (None, [(name, _), ..]) => {
                return Err(OptionError::Inconsistent {
                    component: spec.name.to_owned(),
                    reason: format!("takes no moves-left estimator, but '{name}(…)' was given; remove it"),
                })
            }
            (Some(_), []) => default_estimator.clone(),
            (Some(_), [(name, _)]) => {
                let est =
                    estimators().iter().find(|e| e.name == name).ok_or_else(|| OptionError::UnknownComponent {
                        what: "moves-left estimator",
                        name: name.clone(),
                        suggestion: Suggestion::closest(name, estimators().iter().map(|e| e.name)),
                        valid: Names(estimators().iter().map(|e| e.name.to_owned()).collect()),
                    })?;
                let same_as_default = Some(est.name) == spec.default_estimator;
                let preset_values = if same_as_default { preset.map_or(&[][..], |p| p.estimator_values) } else { &[] };
                Some(ComponentConfig::with_defaults(est, preset_values, &[]))
            }
            (Some(_), [_, (second, _), ..]) => {
                return Err(OptionError::Inconsistent {
                    component: spec.name.to_owned(),
                    reason: format!("more than one moves-left estimator given ('{second}(…)' is extra); keep one"),
                })
            }
        };
        if let (Some(est), Some((_, est_body))) = (estimator.as_mut(), estimator_dicts.first()) {
            if let Some((name, _)) = est_body.subdicts.first() {
                return Err(est.unknown_key(name));
            }
            for (key, value) in &est_body.values {
                est.set(key, value)?;
            }
        }
        for (key, value) in &body.values {
            if manager.index(key).is_some() {
                manager.set(key, value)?;
                continue;
            }
            // lc0's parent fallback (§1.12.4): an estimator key written on the manager reaches the estimator
            // unless the estimator's own sub-dictionary sets it.
            let written_in_sub = estimator_dicts.first().is_some_and(|(_, d)| d.value(key).is_some());
            match estimator.as_mut().filter(|e| e.index(key).is_some()) {
                Some(est) if !written_in_sub => est.set(key, value)?,
                Some(_) => {}
                None => return Err(manager.unknown_key(key)),
            }
        }
        Ok(Self { manager, estimator, default_estimator })
    }

    /// The manager's default estimator with its preset values, if the manager uses one.
    pub fn default_estimator(&self) -> Option<ComponentConfig> {
        self.default_estimator.clone()
    }

    /// The manager's name.
    pub fn name(&self) -> &'static str {
        self.manager.spec().name
    }

    /// Sets a numeric key of the manager, or of the estimator as `estimator.key` (for the tuner).
    pub fn set_number(&mut self, key: &str, value: f64) -> Result<(), OptionError> {
        match key.split_once('.') {
            Some((est_name, est_key)) => match self.estimator.as_mut().filter(|e| e.spec().name == est_name) {
                Some(est) => est.set_number(est_key, value),
                None => Err(self.manager.unknown_key(key)),
            },
            None => self.manager.set_number(key, value),
        }
    }
}

/// The canonical option string: only keys that differ from their defaults, estimator last if not default.
impl fmt::Display for TimeManagerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let estimator = self.estimator.as_ref().filter(|e| Some(*e) != self.default_estimator.as_ref());
        self.manager.write_with(f, estimator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_string_lists_only_changes() {
        let config =
            TimeManagerConfig::parse("smooth(max-move-budget=1, preset=lc0, mle-legacy(midpoint=50))").unwrap();
        assert_eq!(config.to_string(), "smooth(preset=lc0,max-move-budget=1.0,mle-legacy(midpoint=50.0))");
        assert_eq!(TimeManagerConfig::parse("legacy()").unwrap().to_string(), "legacy");
    }
}
