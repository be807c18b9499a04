//! The `TimeManager` option: the text as it was given and its configuration, parsed and validated once, when
//! the option is set, so that a game's manager is built straight from the configuration.

use timemgr::{build_time_manager, OptionError, TimeManager, TimeManagerConfig};

/// A validated `TimeManager` value: what `uci` shows (the text as given) and what the managers are built from.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeManagerSetting {
    text: String,
    config: TimeManagerConfig,
}

impl TimeManagerSetting {
    /// Parses `text` and builds its manager once, so that what only a build checks (a CTM model file) is
    /// checked here too.
    pub fn parse(text: &str) -> Result<Self, OptionError> {
        Self::validated(text.to_owned(), TimeManagerConfig::parse(text)?)
    }

    /// A configuration changed key by key; its text is the configuration's canonical form.
    pub fn from_config(config: TimeManagerConfig) -> Result<Self, OptionError> {
        Self::validated(config.to_string(), config)
    }

    fn validated(text: String, config: TimeManagerConfig) -> Result<Self, OptionError> {
        build_time_manager(&config)?;
        Ok(Self { text, config })
    }

    /// The option's value as it was given (or, after a key option, in canonical form).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The parsed configuration.
    pub fn config(&self) -> &TimeManagerConfig {
        &self.config
    }

    /// A fresh manager for one game.
    pub fn build(&self) -> Result<Box<dyn TimeManager>, OptionError> {
        build_time_manager(&self.config)
    }
}

impl From<&str> for TimeManagerSetting {
    /// The declared default of the options table; it is a constant that a test parses, so it cannot fail
    /// at run time.
    fn from(text: &str) -> Self {
        let config =
            TimeManagerConfig::parse(text).unwrap_or_else(|error| panic!("default TimeManager {text}: {error}"));
        Self { text: text.to_owned(), config }
    }
}
