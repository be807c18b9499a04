//! The `kairos` binary: UCI by default (lc0 style, `kairos --threads=2 --weights=PATH`), subcommands for
//! everything else (`kairos bench`, `kairos eval …`, `kairos tm-help`, `kairos match …`).

mod commands;
// Not in the unit tests' harness, whose process is not this binary's.
#[cfg(all(target_os = "linux", not(test)))]
mod openmp_wait;

use std::process::ExitCode;

/// jemalloc for Rust and, unprefixed, for libtorch's C++ as well: glibc's malloc spent an eighth of a CPU search on
/// libtorch's per-operation allocations (BENCHMARKS.md, "jemalloc as the process's malloc").
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    #[cfg(all(target_os = "linux", not(test)))]
    openmp_wait::hand_on_the_users_environment();
    engine::uci::warnings::install();
    engine::memory::set_allocator_purge(purge_jemalloc);
    nn::load_cuda_runtime();
    match utf8_arguments().and_then(|args| commands::run(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", one_line(&error));
            ExitCode::FAILURE
        }
    }
}

/// The command line after the program's name; an argument that is not UTF-8 is named (std's `args` panics on it).
fn utf8_arguments() -> anyhow::Result<Vec<String>> {
    std::env::args_os()
        .skip(1)
        .map(|arg| {
            arg.into_string().map_err(|arg| {
                anyhow::anyhow!(
                    "argument {} is not valid UTF-8; write paths and values in UTF-8",
                    arg.to_string_lossy()
                )
            })
        })
        .collect()
}

/// Returns every jemalloc arena's freed pages to the system: `arena.<i>.purge` with jemalloc 5's index for all of
/// them (`MALLCTL_ARENAS_ALL`, 4096).
fn purge_jemalloc() {
    use std::ptr::null_mut;
    // SAFETY: the purge control reads and writes no value (all four pointers null, length 0); the name is a
    // NUL-terminated static string.
    unsafe {
        tikv_jemalloc_sys::mallctl(c"arena.4096.purge".as_ptr(), null_mut(), null_mut(), null_mut(), 0);
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::purge_jemalloc;

    /// The process's resident memory in kB, from the kernel.
    fn resident_kb() -> i64 {
        let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
        let line = status.lines().find(|line| line.starts_with("VmRSS:")).expect("a VmRSS line");
        line.split_whitespace().nth(1).and_then(|kb| kb.parse().ok()).expect("a number of kB")
    }

    #[test]
    fn a_purge_returns_the_pages_jemalloc_keeps_after_a_load_to_the_system() {
        // As a network's load leaves them: many blocks written, then freed at once (jemalloc hands blocks of a MB
        // and more back by itself at once; a load's tensors and temporaries are mostly smaller).
        let blocks: Vec<Vec<u8>> = (0..4096).map(|i| vec![i as u8 | 1; 64 << 10]).collect();
        std::hint::black_box(&blocks);
        let loaded = resident_kb();
        drop(blocks);
        let freed = resident_kb();
        assert!(loaded - freed < 64 << 10, "jemalloc keeps freed pages: {loaded} kB loaded, {freed} kB freed");
        purge_jemalloc();
        let purged = resident_kb();
        assert!(freed - purged > 192 << 10, "{freed} kB before the purge, {purged} kB after");
    }
}
