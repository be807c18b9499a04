//! `kairos tm-help [NAME]`: every manager and estimator with each key's default, range and meaning.

use super::error::{Names, OptionError, Suggestion};
use super::registry::{component, estimators, managers, ComponentKind, ComponentSpec, ParamKind};
use super::value::ParamValue;

/// Help for one manager or estimator, or for all of them when `name` is `None`.
pub fn render_help(name: Option<&str>) -> Result<String, OptionError> {
    match name {
        None => {
            let mut out = String::from("Time managers (option string: NAME(key=value,...,estimator(key=value))):\n\n");
            for spec in managers() {
                out.push_str(&render_component(spec));
            }
            out.push_str("Moves-left estimators (a sub-dictionary of a manager that uses one):\n\n");
            for spec in estimators() {
                out.push_str(&render_component(spec));
            }
            Ok(out)
        }
        Some(name) => component(name).map(render_component).ok_or_else(|| {
            let all = || managers().iter().chain(estimators()).map(|c| c.name);
            OptionError::UnknownComponent {
                what: "name",
                name: name.to_owned(),
                suggestion: Suggestion::closest(name, all()),
                valid: Names(all().map(str::to_owned).collect()),
            }
        }),
    }
}

fn render_component(spec: &ComponentSpec) -> String {
    let mut out = format!("{}\n  {}\n", spec.name, spec.help);
    if let Some(estimator) = spec.default_estimator {
        out.push_str(&format!("  moves-left estimator: {estimator} unless one is given\n"));
    }
    for param in spec.all_params() {
        let (kind, default, range) = match param.kind {
            ParamKind::Float { default, min, max, .. } => {
                ("float", ParamValue::Float(default).to_string(), format!("[{min}, {max}]"))
            }
            ParamKind::Int { default, min, max, .. } => ("int", default.to_string(), format!("[{min}, {max}]")),
            ParamKind::Bool { default } => ("bool", default.to_string(), "true|false".to_owned()),
            ParamKind::Choice { default, choices } => ("choice", default.to_owned(), choices.join("|")),
            ParamKind::Text { default } => ("text", ParamValue::Text(default.to_owned()).to_string(), String::new()),
        };
        out.push_str(&format!("  {:<28} {kind:<6} default {default:<10} {range:<22} {}\n", param.name, param.help));
    }
    for preset in spec.presets {
        out.push_str(&format!("  preset={}: {}\n", preset.name, preset.help));
        let choices = preset.choices.iter().map(|&(key, choice)| format!("{key}={choice}"));
        let changes: Vec<String> = choices
            .chain(preset.values.iter().chain(preset.estimator_values).map(|&(key, value)| {
                let shown = match spec.param(key).map(|p| p.kind) {
                    Some(ParamKind::Bool { .. }) => ParamValue::Bool(value != 0.0),
                    Some(ParamKind::Int { .. }) => ParamValue::Int(value as i64),
                    _ => ParamValue::Float(value),
                };
                format!("{key}={shown}")
            }))
            .collect();
        if !changes.is_empty() {
            out.push_str(&format!("    {}\n", changes.join(", ")));
        }
    }
    if spec.kind == ComponentKind::Manager && spec.params.is_empty() {
        out.push_str("  (no keys of its own)\n");
    }
    out.push('\n');
    out
}
