//! OpenBench's SPSA language: the input block a tune is created from (`Name, int|float, value, min, max, c_end,
//! r_end`, one line per parameter, as OpenBench's `spsa_utils.create_spsa_run` splits it) and the tuned values it
//! reports (`Name, value`, as `spsa_optimal_values` writes them). Names are the engine's time-manager key options
//! (`SmoothMaxMoveBudget`), which OpenBench sets with `setoption` on top of the test's `TimeManager=…`.

use timemgr::options::{key_option, key_option_of, key_options, KeyOption, ParamKind, ParamValue, Value};
use timemgr::{OptionError, TimeManagerConfig};

use super::space::TuneSpace;

/// OpenBench's end-of-run learning rate for every exported parameter: OpenBench's code takes r_end from each
/// input line and has no default of its own; 0.002 is the value its tunes customarily use.
pub const R_END: f64 = 0.002;

/// Why an SPSA block could not be written or tuned values not read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OpenBenchError {
    /// The base `--time-manager` string is invalid.
    #[error("--time-manager: {0}")]
    Base(Box<OptionError>),
    /// A tuned key has no engine option (the registry and the key options disagree).
    #[error("{0} has no engine option, so OpenBench cannot set it; this is a bug in the key options")]
    NoOption(String),
    /// A line is neither of OpenBench's two forms.
    #[error("line {line}: '{text}' is neither 'Name, value' nor 'Name, int|float, value, min, max, c_end, r_end'")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A name that is no time-manager key option.
    #[error("line {line}: {name} is not a time-manager key option{suggestion}; `kairos --help` lists them")]
    UnknownName {
        /// 1-based line number.
        line: usize,
        /// The name given.
        name: String,
        /// "; did you mean 'X'?" or nothing.
        suggestion: timemgr::options::error::Suggestion,
    },
    /// A value that is not a number.
    #[error("line {line}: the value '{value}' of {name} is not a number")]
    BadValue {
        /// 1-based line number.
        line: usize,
        /// The option name.
        name: String,
        /// The value given.
        value: String,
    },
    /// The value does not fit the key, or the key belongs to another manager than `--time-manager`.
    #[error("line {line}: {source}")]
    Key {
        /// 1-based line number.
        line: usize,
        /// What the time-manager registry said (boxed, as it is large).
        source: Box<OptionError>,
    },
}

fn option_of(space: &TuneSpace, name: &str) -> Result<&'static KeyOption, OpenBenchError> {
    let (component, key) = name.split_once('.').unwrap_or((space.base().name(), name));
    key_option_of(component, key).ok_or_else(|| OpenBenchError::NoOption(name.to_owned()))
}

/// OpenBench's SPSA input block for the `--param` boxes of `space`: one line per parameter, named by its
/// engine option, with the start, the box, c_end = the registry's tuning step and r_end = [`R_END`].
pub fn spsa_block(space: &TuneSpace) -> Result<String, OpenBenchError> {
    let mut lines = Vec::new();
    for param in space.params() {
        let option = option_of(space, &param.name)?;
        let line = match option.param.kind {
            ParamKind::Int { step, .. } => format!(
                "{}, int, {}, {}, {}, {step}, {R_END}",
                option.uci_name,
                param.start.round(),
                param.min.round(),
                param.max.round()
            ),
            _ => format!(
                "{}, float, {}, {}, {}, {}, {R_END}",
                option.uci_name,
                ParamValue::Float(param.start),
                ParamValue::Float(param.min),
                ParamValue::Float(param.max),
                ParamValue::Float(param.step)
            ),
        };
        lines.push(line);
    }
    Ok(lines.join("\n"))
}

/// The option string `base` with OpenBench's tuned values written in: each line is `Name, value` or a whole input
/// line (its value is the third field); blank lines and `#` comments are skipped; integer keys take the nearest
/// integer. A name of a key that `base` does not select is refused with the manager it belongs to.
pub fn import_values(base: &str, text: &str) -> Result<String, OpenBenchError> {
    let mut config = TimeManagerConfig::parse(base).map_err(|error| OpenBenchError::Base(Box::new(error)))?;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = trimmed.split(',').map(str::trim).collect();
        let (name, value) = match fields.as_slice() {
            [name, value] | [name, _, value, _, _, _, _] => (*name, *value),
            _ => return Err(OpenBenchError::Syntax { line, text: trimmed.to_owned() }),
        };
        let option = key_option(name).ok_or_else(|| OpenBenchError::UnknownName {
            line,
            name: name.to_owned(),
            suggestion: timemgr::options::error::Suggestion::closest(
                name,
                key_options().iter().map(|o| o.uci_name.as_str()),
            ),
        })?;
        let number: f64 = value
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| OpenBenchError::BadValue { line, name: name.to_owned(), value: value.to_owned() })?;
        let value = match option.param.kind {
            ParamKind::Int { .. } => Value::Int(number.round() as i64),
            ParamKind::Bool { .. } => Value::Bool(number != 0.0),
            _ => Value::Float(number),
        };
        config =
            option.set_in(&config, &value).map_err(|source| OpenBenchError::Key { line, source: Box::new(source) })?;
    }
    Ok(config.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space(base: &str, params: &[&str]) -> TuneSpace {
        TuneSpace::new(base, &params.iter().map(|p| p.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn the_block_has_openbenchs_seven_fields_with_the_registry_step() {
        // limit=time: the node limit has no trend watcher, and its key would be refused there.
        let space = space(
            "smooth",
            &[
                "max-move-budget=0.3:0.1:0.6", "trend-nps-update-period-ms=3000:0:6000",
                "mle-legacy.midpoint=51.5:30:80",
            ],
        );
        assert_eq!(
            spsa_block(&space).unwrap(),
            "SmoothMaxMoveBudget, float, 0.3, 0.1, 0.6, 0.02, 0.002\n\
             SmoothTrendNpsUpdatePeriodMs, int, 3000, 0, 6000, 250, 0.002\n\
             MleLegacyMidpoint, float, 51.5, 30.0, 80.0, 1.0, 0.002"
        );
    }

    #[test]
    fn the_block_reads_back_as_the_start_and_tuned_values_override_it() {
        let space = space("smooth(limit=nodes)", &["max-move-budget=0.35:0.1:0.6", "mle-legacy.steepness=6:2:9"]);
        let block = spsa_block(&space).unwrap();
        assert_eq!(
            import_values("smooth(limit=nodes)", &block).unwrap(),
            space.option_string(&space.starts()).unwrap()
        );
        let tuned = "SmoothMaxMoveBudget, 0.4523\n\nMleLegacySteepness, 7.25\n";
        assert_eq!(
            import_values("smooth(limit=nodes)", tuned).unwrap(),
            "smooth(max-move-budget=0.4523,limit=nodes,mle-legacy(steepness=7.25))"
        );
        assert_eq!(
            import_values("smooth", "SmoothForcePiggybankMs, 1234.6").unwrap(),
            "smooth(force-piggybank-ms=1235)",
            "integers are rounded"
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let error = import_values("smooth", "SmoothMaxMoveBudget, 0.4\nSmoothMaxMoveBudgte, 0.4").unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 2: SmoothMaxMoveBudgte is not a time-manager key option; did you mean 'SmoothMaxMoveBudget'?; \
             `kairos --help` lists them"
        );
        let error = import_values("smooth", "LegacySlowmover, 1.2").unwrap_err();
        assert!(
            error.to_string().starts_with("line 1: LegacySlowmover is key slowmover of time manager legacy"),
            "{error}"
        );
        assert!(matches!(import_values("smooth", "a, b, c"), Err(OpenBenchError::Syntax { line: 1, .. })));
        assert!(matches!(import_values("smooth", "SmoothMaxMoveBudget, x"), Err(OpenBenchError::BadValue { .. })));
        assert!(matches!(import_values("smooth", "SmoothMaxMoveBudget, 3"), Err(OpenBenchError::Key { line: 1, .. })));
    }
}
