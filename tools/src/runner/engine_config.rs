//! Engine configurations from `key=value` words (`--engine name=smooth cmd=kairos option.X=Y tc=10+0.1`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::time_control::{TimeControl, TimeControlError};

/// The `cmd` value that stands for the running Kairos executable.
pub const KAIROS_COMMAND: &str = "kairos";

/// How to start and configure one engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// Name in results, PGN and reports; unique within a match.
    pub name: String,
    /// Executable to run.
    pub command: PathBuf,
    /// Command-line arguments.
    pub args: Vec<String>,
    /// UCI options sent with `setoption`, in order.
    pub options: Vec<(String, String)>,
    /// The engine's time control.
    pub time_control: TimeControl,
    /// Whether the engine understands `VirtualClock` and reports virtual time (Kairos does).
    pub speaks_virtual_clock: bool,
}

/// A bad engine specification.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineConfigError {
    /// A word without `=`.
    #[error("'{0}' is not key=value: engine settings look like name=X cmd=PATH arg=A option.NAME=V tc=10+0.1")]
    NotKeyValue(String),
    /// A key the runner does not know.
    #[error("unknown engine key '{0}': use name, cmd, arg, option.NAME, tc or virtualclock")]
    UnknownKey(String),
    /// No `cmd=`.
    #[error("engine '{0}' has no cmd=: give cmd=PATH or cmd=kairos")]
    MissingCommand(String),
    /// No `tc=` on the engine or in `--each`.
    #[error("engine '{0}' has no time control: add tc=... to it or to --each")]
    MissingTimeControl(String),
    /// The time control does not parse.
    #[error(transparent)]
    TimeControl(#[from] TimeControlError),
    /// `virtualclock=` takes yes or no.
    #[error("virtualclock={0}: use yes or no")]
    BadFlag(String),
    /// `cmd=kairos` but the running executable cannot be found.
    #[error("cmd=kairos needs the running executable's path, which is unavailable: {0}; give cmd=PATH")]
    NoCurrentExe(String),
    /// `option.TimeManager` of a Kairos engine names no manager that can be built (a typo, a missing model file).
    #[error("engine '{engine}': option.TimeManager: {reason}")]
    TimeManager {
        /// The engine's name.
        engine: String,
        /// Why the manager cannot be built, with the way out.
        reason: String,
    },
}

impl EngineConfig {
    /// Builds a configuration from the shared `--each` words followed by the engine's own (later words win).
    pub fn from_words(each: &[String], own: &[String]) -> Result<Self, EngineConfigError> {
        let mut name = None;
        let mut command: Option<String> = None;
        let mut args = Vec::new();
        let mut options: Vec<(String, String)> = Vec::new();
        let mut time_control = None;
        let mut virtual_flag = None;
        for word in each.iter().chain(own) {
            let (key, value) = word.split_once('=').ok_or_else(|| EngineConfigError::NotKeyValue(word.clone()))?;
            match key {
                "name" => name = Some(value.to_owned()),
                "cmd" => command = Some(value.to_owned()),
                "arg" => args.push(value.to_owned()),
                "tc" => time_control = Some(value.parse::<TimeControl>()?),
                "virtualclock" => {
                    virtual_flag = Some(match value {
                        "yes" | "true" => true,
                        "no" | "false" => false,
                        _ => return Err(EngineConfigError::BadFlag(value.to_owned())),
                    })
                }
                _ => match key.strip_prefix("option.") {
                    Some(option) => {
                        options.retain(|(n, _)| n != option);
                        options.push((option.to_owned(), value.to_owned()));
                    }
                    None => return Err(EngineConfigError::UnknownKey(key.to_owned())),
                },
            }
        }
        let label = name.clone().or_else(|| command.clone()).unwrap_or_else(|| "?".into());
        let command = command.ok_or_else(|| EngineConfigError::MissingCommand(label.clone()))?;
        let is_kairos = command == KAIROS_COMMAND;
        let path = if is_kairos {
            std::env::current_exe().map_err(|e| EngineConfigError::NoCurrentExe(e.to_string()))?
        } else {
            PathBuf::from(&command)
        };
        let name = name.unwrap_or_else(|| command.clone());
        if is_kairos {
            // Kairos as a UCI engine lists its hidden options too, so that setting one (VirtualNps, a time-manager
            // key) draws no warning that the engine does not announce it; a mode (`tm-proxy …`) takes no such flag.
            let runs_a_mode = args.first().is_some_and(|first| !first.starts_with('-'));
            if !runs_a_mode {
                args.insert(0, "--show-hidden".to_owned());
            }
            // The engine would answer a bad TimeManager with an info string and play on with its previous
            // manager; checking here stops the match before a game is played under the wrong manager.
            for (_, value) in options.iter().filter(|(option, _)| option.eq_ignore_ascii_case("TimeManager")) {
                timemgr::time_manager_from_str(value)
                    .map_err(|e| EngineConfigError::TimeManager { engine: name.clone(), reason: e.to_string() })?;
            }
        }
        Ok(EngineConfig {
            name,
            command: path,
            args,
            options,
            time_control: time_control.ok_or(EngineConfigError::MissingTimeControl(label))?,
            speaks_virtual_clock: virtual_flag.unwrap_or(is_kairos),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn kairos_in_a_mode_gets_no_uci_flag_before_the_modes_name() {
        let proxy = EngineConfig::from_words(
            &words("tc=1+0"),
            &words("name=proxied cmd=kairos arg=tm-proxy arg=--time-manager=legacy"),
        )
        .unwrap();
        assert_eq!(proxy.args, ["tm-proxy", "--time-manager=legacy"]);
        let uci = EngineConfig::from_words(&words("tc=1+0"), &words("name=plain cmd=kairos arg=--threads=1")).unwrap();
        assert_eq!(uci.args, ["--show-hidden", "--threads=1"]);
    }

    #[test]
    fn own_words_override_each() {
        let config = EngineConfig::from_words(
            &words("tc=10+0.1 option.Threads=1"),
            &words("name=smooth cmd=kairos option.TimeManager=smooth(steepness=7.0) option.Threads=2 tc=5+0"),
        )
        .unwrap();
        assert_eq!(config.name, "smooth");
        assert_eq!(config.command, std::env::current_exe().unwrap());
        assert_eq!(config.args, ["--show-hidden"], "its hidden options are set as the others");
        assert!(config.speaks_virtual_clock);
        assert_eq!(config.time_control, "5+0".parse().unwrap());
        assert_eq!(
            config.options,
            vec![
                ("TimeManager".to_owned(), "smooth(steepness=7.0)".to_owned()),
                ("Threads".to_owned(), "2".to_owned())
            ]
        );
    }

    #[test]
    fn external_engines_do_not_speak_the_virtual_clock() {
        let config = EngineConfig::from_words(&[], &words("cmd=/usr/games/stockfish arg=--x tc=nodes=1000")).unwrap();
        assert_eq!(config.name, "/usr/games/stockfish");
        assert_eq!(config.args, vec!["--x"]);
        assert!(!config.speaks_virtual_clock);
    }

    #[test]
    fn bad_words_name_the_problem() {
        assert_eq!(EngineConfig::from_words(&[], &words("cmd")), Err(EngineConfigError::NotKeyValue("cmd".into())));
        assert_eq!(
            EngineConfig::from_words(&[], &words("cmd=x tc=1+0 colour=red")),
            Err(EngineConfigError::UnknownKey("colour".into()))
        );
        assert_eq!(
            EngineConfig::from_words(&[], &words("cmd=x")),
            Err(EngineConfigError::MissingTimeControl("x".into()))
        );
        assert_eq!(EngineConfig::from_words(&[], &words("tc=1+0")), Err(EngineConfigError::MissingCommand("?".into())));
        let error =
            EngineConfig::from_words(&[], &words("name=c cmd=kairos tc=1+0 option.TimeManager=ctm(model=/no/m.st)"))
                .unwrap_err()
                .to_string();
        assert!(error.starts_with("engine 'c': option.TimeManager: ") && error.contains("/no/m.st"), "{error}");
        assert!(error.contains("kairos tm-train"), "{error}");
    }
}
