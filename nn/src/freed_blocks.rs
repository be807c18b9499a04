//! Keeps the memory of the network's per-batch buffers in the process. Each batch allocates and frees buffers
//! of hundreds of kB to a few MB (the network in plain Rust: tiles, products, each convolution's output). glibc's
//! malloc gives such blocks back to the kernel when they are freed (`munmap`, or trimming the top of a thread's
//! heap past its trim threshold, from 128 kB up as it adapts), and the next batch faults every page in again,
//! zeroed by the kernel. On a 2-core AMD EPYC with two search threads in fp32 (every batch in plain Rust), 5.8–6.2 s
//! of the 39 s of CPU time of a 20-second `benchmark` went to the kernel, and the search made 12,125–12,521
//! nodes/s against 14,802–15,621 with the thresholds set (BENCHMARKS.md, "An AMD EPYC with AVX512-BF16").
//! The `kairos` binary runs jemalloc as its malloc, which keeps freed blocks by itself (the same faults a
//! benchmark as with these thresholds); they matter to the crate's other users, its tests among them.

/// Blocks up to this size come from malloc's heaps rather than their own mappings (glibc's largest allowed).
const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free memory a heap keeps at its top before giving it back: more than a batch's buffers of a large net.
const TRIM_THRESHOLD: i32 = 64 << 20;

/// Sets glibc's thresholds so that freed buffers stay for the next batch (fixed values also stop glibc's
/// adaptation of them); once per process, and nothing on other C libraries.
pub fn keep_freed_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: mallopt only changes malloc's parameters; both values are within glibc's bounds.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
                libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
            }
        });
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// Page faults of the calling thread so far (getrusage's minor faults).
    fn thread_page_faults() -> i64 {
        // SAFETY: getrusage writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) }, 0);
        usage.ru_minflt
    }

    /// Page faults of a thread (not the main one: the search's threads have heaps of their own) that 20 times
    /// allocates, writes and frees the buffers of a batch, eight of 1 MiB.
    fn faults_over_twenty_batches() -> i64 {
        std::thread::spawn(|| {
            let batch = || {
                let buffers: Vec<Vec<u8>> = (0..8).map(|i| vec![i as u8 + 1; 1 << 20]).collect();
                std::hint::black_box(&buffers);
            };
            batch();
            let before = thread_page_faults();
            for _ in 0..20 {
                batch();
            }
            thread_page_faults() - before
        })
        .join()
        .expect("the batches' thread")
    }

    #[test]
    fn freed_buffers_are_reused_without_faulting_their_pages_in_again() {
        // One batch touches 8 MiB, 2,048 pages of 4 kB: without the thresholds every batch faults them in anew
        // (40,960 faults over twenty; glibc's own adaptation keeps only part of them).
        keep_freed_blocks();
        let faults = faults_over_twenty_batches();
        assert!(faults < 2048, "{faults} page faults over 20 batches: the freed buffers went back to the kernel");
    }
}
