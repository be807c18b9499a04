//! Handing freed heap memory back to the operating system between moves and once a network has loaded.

use std::sync::OnceLock;

/// How the process's own allocator, where the binary replaces glibc's malloc, hands back the pages it keeps.
static ALLOCATOR_PURGE: OnceLock<fn()> = OnceLock::new();

/// Tells [`release_all_freed_memory`] how the binary's allocator returns the freed pages it keeps; set once.
pub fn set_allocator_purge(purge: fn()) {
    let _ = ALLOCATOR_PURGE.set(purge);
}

/// Every freed page back to the system, the binary's allocator's too ([`set_allocator_purge`]): once a network has
/// loaded, when the parsed weights and the upload's temporaries were freed at once. jemalloc returns such pages
/// only as its decay runs, on later allocations, and an idle engine makes none: a 256×10 transformer's process held
/// 137 MB for the network after `isready`, 73 MB with the pages purged (BENCHMARKS.md, "Large networks on a Zen 4
/// EPYC"). Between moves [`release_freed_memory`] leaves jemalloc's decay alone, which keeps the batches' buffers.
pub fn release_all_freed_memory() {
    release_freed_memory();
    if let Some(purge) = ALLOCATOR_PURGE.get() {
        purge();
    }
}

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
