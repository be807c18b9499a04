//! The binary's malloc: jemalloc, unprefixed, so that libtorch's C++ allocations go through it as Rust's do.

use std::process::Command;

/// jemalloc reads `MALLOC_CONF` only when it is built unprefixed, as the C library's `malloc` that every shared
/// library (libtorch's among them) calls; a prefixed build reads `_RJEM_MALLOC_CONF`, glibc neither.
#[cfg(target_os = "linux")]
#[test]
fn jemalloc_answers_the_c_librarys_malloc() {
    let run = |variable: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
            .arg("--version")
            .env(variable, "stats_print:true")
            .output()
            .expect("kairos runs");
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stderr).contains("___ Begin jemalloc statistics ___")
    };
    assert!(run("MALLOC_CONF"), "MALLOC_CONF read: jemalloc is the process's malloc");
    assert!(!run("_RJEM_MALLOC_CONF"), "the prefixed variable ignored: jemalloc is built unprefixed");
}
