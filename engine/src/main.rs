//! The `kairos` binary: UCI by default, subcommands for everything else.
fn main() {}
