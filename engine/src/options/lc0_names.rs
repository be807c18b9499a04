//! lc0's option names that Kairos does not take as they are: options it has under another name, options for
//! machinery it lacks, and lc0's backend names, so that a user who brings lc0's settings learns why and what to set.

use nn::BackendKind;

use super::OptionsError;

/// An option's UCI name and flag.
struct OptionNames {
    uci_name: &'static str,
    flag: &'static str,
}

/// lc0 options whose job a Kairos option of another name does, suggested when lc0's name is given: lc0's backend
/// options (`gpu=1`, a multiplexing backend's `backends=…`) name its devices, which `BackendDevice` lists.
const LC0_RENAMED: &[(OptionNames, OptionNames)] = &[(
    OptionNames { uci_name: "BackendOptions", flag: "backend-opts" },
    OptionNames { uci_name: "BackendDevice", flag: "backend-device" },
)];

/// lc0 909a4082's visible options for machinery Kairos does not have, with what each tunes there and what Kairos
/// does instead: a user who brings lc0's settings learns why one is refused.
const LC0_ONLY: &[(OptionNames, &str)] = &[
    (OptionNames { uci_name: "MinimumPerTaskProcessing", flag: "minimum-per-task-processing" }, TASK_WORKERS_SHARE),
    (OptionNames { uci_name: "MinimumProcessingWork", flag: "minimum-processing-work" }, TASK_WORKERS_SHARE),
    (
        OptionNames { uci_name: "MaxConcurrentSearchers", flag: "max-concurrent-searchers" },
        "for how many of its search threads may gather a batch at once; Kairos's gather one at a time, under the \
         tree's lock",
    ),
    (
        OptionNames { uci_name: "SearchSpinBackoff", flag: "search-spin-backoff" },
        "for the backoff of the spin lock its search threads take turns on; Kairos's wait on a mutex",
    ),
    (
        OptionNames { uci_name: "GarbageCollectionDelay", flag: "garbage-collection-delay" },
        "for when its garbage collector frees the branches a move leaves behind; Kairos frees them at once, on a \
         thread of their own",
    ),
    (
        OptionNames { uci_name: "MaxCollisionEvents", flag: "max-collision-events" },
        "that its classic search reads but never uses (MaxCollisionVisits bounds the collisions, in lc0 as here)",
    ),
    (
        OptionNames { uci_name: "CacheHistoryLength", flag: "cache-history-length" },
        "that its classic search's cache never uses: it keys an evaluation on the position alone, as Kairos's does",
    ),
    (
        OptionNames { uci_name: "ConfigFile", flag: "config" },
        "naming the configuration file, read once at start-up: in UCI mode Kairos reads kairos.config, or the \
         file of --config=PATH on its command line",
    ),
];

/// Why lc0's two thresholds for its task workers' share of a batch's processing are refused.
const TASK_WORKERS_SHARE: &str =
    "for how its task workers share the examination of a batch's new leaves, which changes only its speed; \
     Kairos's search thread examines them itself";

/// Why the lc0 option of this UCI name (any case) is refused, if it is one Kairos lacks the machinery for.
pub(super) fn lc0_only_option(uci_name: &str) -> Option<&'static str> {
    LC0_ONLY.iter().find(|(lc0, _)| lc0.uci_name.eq_ignore_ascii_case(uci_name)).map(|(_, why)| *why)
}

/// Why the lc0 flag of this name (without `--`) is refused, if it is one Kairos lacks the machinery for.
pub(super) fn lc0_only_flag(flag: &str) -> Option<&'static str> {
    LC0_ONLY.iter().find(|(lc0, _)| lc0.flag == flag).map(|(_, why)| *why)
}

/// The UCI name of the Kairos option that does the job of the lc0 option of this UCI name (any case).
pub(super) fn renamed_option(uci_name: &str) -> Option<&'static str> {
    LC0_RENAMED.iter().find(|(lc0, _)| lc0.uci_name.eq_ignore_ascii_case(uci_name)).map(|(_, kairos)| kairos.uci_name)
}

/// The flag of the Kairos option that does the job of the lc0 flag of this name (both without `--`).
pub(super) fn renamed_flag(flag: &str) -> Option<&'static str> {
    LC0_RENAMED.iter().find(|(lc0, _)| lc0.flag == flag).map(|(_, kairos)| kairos.flag)
}

/// A `Backend` refused because it is one of lc0's names says what Kairos sets instead.
pub(super) fn with_lc0_backend_hint(error: OptionsError) -> OptionsError {
    match error {
        OptionsError::BadValue { option: "Backend", value, allowed } => {
            let allowed = match BackendKind::lc0_equivalent(value.trim()) {
                Some(equivalent) => format!("{allowed}; lc0's {} backend is {equivalent}", value.trim()),
                None => allowed,
            };
            OptionsError::BadValue { option: "Backend", value, allowed }
        }
        error => error,
    }
}
