//! The `kairos` binary: UCI by default (lc0 style, `kairos --threads=2 --weights=PATH`), subcommands for
//! everything else (`kairos bench`, `kairos eval …`, `kairos tm-help`, `kairos match …`).

mod commands;

use std::process::ExitCode;

/// jemalloc for Rust and, unprefixed, for libtorch's C++ as well: glibc's malloc spent an eighth of a CPU search on
/// libtorch's per-operation allocations (BENCHMARKS.md, "jemalloc as the process's malloc").
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    nn::load_cuda_runtime();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match commands::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", one_line(&error));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, as `{error:#}` prints them, but without a cause whose text is already
/// shown: many errors quote their source in their own message ("results file F: No such file…").
fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}
