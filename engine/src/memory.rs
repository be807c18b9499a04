//! Handing freed heap memory back to the operating system between moves.

/// Returns the pages of freed heap chunks to the operating system (glibc's `malloc_trim`), which glibc otherwise
/// keeps resident: libtorch's per-batch temporaries and the tree's regrown child arrays leave some 10 MB of
/// them in a 1,000,000-node search (BENCHMARKS.md, "Memory per node"). It takes under a millisecond there. The
/// `kairos` binary replaces glibc's malloc with jemalloc, whose own decay returns freed pages (this then trims
/// only what glibc still holds); tests and other users of the crate keep glibc's.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers; it walks glibc's own arenas under their locks.
    unsafe {
        libc::malloc_trim(0);
    }
}
