//! Where a result comes from (#35): which binary played (its `id name`: for Kairos the version, commit and
//! features), with which command and options, on which machine; recorded with every game, so that a run
//! whose binary changed midway can be told afterwards, and `--resume` can refuse to mix binaries.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

/// One side's engine in one game.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineProvenance {
    /// The engine's UCI `id name`.
    pub id: String,
    /// The command that ran it, with its arguments.
    pub command: String,
    /// The UCI options it was given, in order.
    pub options: Vec<(String, String)>,
}

/// The machine: its CPU model as the operating system names it, and its logical cores (read once).
pub fn machine_description() -> &'static str {
    static MACHINE: LazyLock<String> = LazyLock::new(read_machine);
    &MACHINE
}

fn read_machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            let model = info.lines().find_map(|line| line.strip_prefix("model name"))?;
            Some(model.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores")
}
