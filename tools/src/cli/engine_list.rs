//! `--engine` occurrences kept apart: each occurrence's words describe one engine.

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

const ENGINE_ARG: &str = "engine";

/// The words of every `--engine` occurrence, one list per engine (clap's derive flattens them, so this is by hand).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineList(pub Vec<Vec<String>>);

impl FromArgMatches for EngineList {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let occurrences = matches
            .get_occurrences::<String>(ENGINE_ARG)
            .map(|groups| groups.map(|words| words.cloned().collect()).collect())
            .unwrap_or_default();
        Ok(EngineList(occurrences))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for EngineList {
    fn augment_args(cmd: Command) -> Command {
        cmd.arg(
            Arg::new(ENGINE_ARG)
                .long(ENGINE_ARG)
                .num_args(1..)
                .action(ArgAction::Append)
                .required(true)
                .value_name("KEY=VALUE")
                .help(
                    "An engine as key=value words: name=, cmd= (a path, or kairos for this executable), arg=, \
                     option.NAME=, tc=, virtualclock=yes|no. Repeat for each engine.",
                ),
        )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
