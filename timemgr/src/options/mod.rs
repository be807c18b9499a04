//! Option strings (`NAME(key=value,…,estimator(key=value))`): lc0's grammar, one declarative registry per
//! manager and estimator, typed validation with suggestions, help text and canonical printing.

pub mod config;
pub mod dict;
pub mod error;
pub mod help;
pub mod key_options;
pub mod registry;
pub mod value;

pub use config::{ComponentConfig, TimeManagerConfig};
pub use dict::{parse_dict, Dict, Value};
pub use error::OptionError;
pub use help::render_help;
pub use key_options::{key_option, key_option_of, key_options, KeyOption};
pub use registry::{
    component, estimators, managers, numeric_params, ComponentKind, ComponentSpec, ParamKind, ParamSpec, Preset,
};
pub use value::ParamValue;
