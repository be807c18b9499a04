//! The `kairos` binary: UCI by default (lc0 style, `kairos --threads=2 --weights=PATH`), subcommands for
//! everything else (`kairos bench`, `kairos eval …`, `kairos tm-help`, `kairos match …`).

mod commands;

use std::process::ExitCode;

fn main() -> ExitCode {
    nn::load_cuda_runtime();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match commands::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
