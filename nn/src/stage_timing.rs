//! Where a search's time goes (#12): with the cargo feature `stage-timing`, each thread charges the wall
//! time between its stage changes to the stage it is in, in process-wide counters that `kairos bench`
//! prints. Stages nest (encoding inside the gather): the inner stage's time is not charged to the outer one,
//! so the stages add up to the time of the threads that entered them. Without the feature [`enter`] is an
//! empty inline function returning a zero-sized value, so the timed code costs nothing.

/// A part of a search iteration, named after the steps of lc0's search worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Waiting for the tree lock (another search thread holds it).
    TreeLock,
    /// GatherMinibatch: descending the tree, move generation, terminal checks, NN cache lookups.
    Gather,
    /// CollectCollisions: putting collided visits in flight and taking them out again.
    Collisions,
    /// Rebuilding the game history of a picked leaf for the encoder.
    History,
    /// Encoding a position into input planes and its legal moves into policy indices.
    Encode,
    /// MaybePrefetchIntoCache: adding likely future leaves to a small batch.
    Prefetch,
    /// RunNNComputation: the backend's forward pass, as the search thread waits for it.
    Network,
    /// FetchMinibatchResults: value and policy softmax of the outputs, NN cache inserts.
    Fetch,
    /// DoBackupUpdate: expanding the evaluated leaves and backing their values up.
    Backup,
    /// The stopper chain (smart pruning, limits, time manager) and the `info` lines after each batch.
    Stoppers,
    /// On CUDA's network thread, inside a search thread's `Network`: capturing a batch size's CUDA graph.
    GraphCapture,
    /// On CUDA's network thread: writing a batch's inputs to page-locked memory.
    NetworkInputs,
    /// On CUDA's network thread: queueing the inputs' copies to the device.
    NetworkInputCopies,
    /// On CUDA's network thread: the graph's replay and the outputs' copies to the host, waited for.
    NetworkReplay,
    /// On CUDA's network thread: reading the outputs the evaluations need from page-locked memory.
    NetworkOutputs,
}

#[cfg(feature = "stage-timing")]
pub use counters::{reset, totals, StageTotal};

/// Charges the time until it is dropped to the stage it was entered with.
#[must_use = "the stage ends when the timer is dropped"]
pub struct Timer {
    #[cfg(feature = "stage-timing")]
    previous: Option<Stage>,
}

/// Enters `stage` on this thread until the returned timer is dropped; the stage entered before pauses.
#[inline(always)]
pub fn enter(stage: Stage) -> Timer {
    #[cfg(feature = "stage-timing")]
    {
        Timer { previous: counters::switch(Some(stage), true) }
    }
    #[cfg(not(feature = "stage-timing"))]
    {
        let _ = stage;
        Timer {}
    }
}

#[cfg(feature = "stage-timing")]
impl Drop for Timer {
    fn drop(&mut self) {
        counters::switch(self.previous, false);
    }
}

#[cfg(feature = "stage-timing")]
mod counters {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use super::Stage;

    impl Stage {
        /// Every stage, in the order of a search iteration.
        pub const ALL: [Stage; 15] = [
            Stage::TreeLock,
            Stage::Gather,
            Stage::Collisions,
            Stage::History,
            Stage::Encode,
            Stage::Prefetch,
            Stage::Network,
            Stage::Fetch,
            Stage::Backup,
            Stage::Stoppers,
            Stage::GraphCapture,
            Stage::NetworkInputs,
            Stage::NetworkInputCopies,
            Stage::NetworkReplay,
            Stage::NetworkOutputs,
        ];

        /// Whether the stage is the network thread's, whose time a search thread waits out in `Network`.
        pub fn on_network_thread(self) -> bool {
            matches!(
                self,
                Stage::GraphCapture
                    | Stage::NetworkInputs
                    | Stage::NetworkInputCopies
                    | Stage::NetworkReplay
                    | Stage::NetworkOutputs
            )
        }

        /// The stage's name in the printed table (lc0's step where it has one).
        pub fn name(self) -> &'static str {
            match self {
                Stage::TreeLock => "tree lock wait",
                Stage::Gather => "gather (descend, movegen, cache)",
                Stage::Collisions => "collect collisions",
                Stage::History => "history",
                Stage::Encode => "encode",
                Stage::Prefetch => "prefetch",
                Stage::Network => "run the network",
                Stage::Fetch => "fetch (softmax)",
                Stage::Backup => "backup",
                Stage::Stoppers => "stoppers and info",
                Stage::GraphCapture => "  network thread: graph capture",
                Stage::NetworkInputs => "  network thread: inputs written",
                Stage::NetworkInputCopies => "  network thread: input copies",
                Stage::NetworkReplay => "  network thread: replay, copies",
                Stage::NetworkOutputs => "  network thread: read outputs",
            }
        }
    }

    const NONE: AtomicU64 = AtomicU64::new(0);
    static NANOS: [AtomicU64; Stage::ALL.len()] = [NONE; Stage::ALL.len()];
    static ENTRIES: [AtomicU64; Stage::ALL.len()] = [NONE; Stage::ALL.len()];

    thread_local! {
        /// The stage this thread is in and since when.
        static CURRENT: Cell<Option<(Stage, Instant)>> = const { Cell::new(None) };
    }

    /// Charges the time since the last switch to the current stage and makes `next` current; returns the
    /// stage that was current. `entering` counts an entry of `next`.
    pub(super) fn switch(next: Option<Stage>, entering: bool) -> Option<Stage> {
        let now = Instant::now();
        let previous = CURRENT.with(|current| current.replace(next.map(|stage| (stage, now))));
        if let Some((stage, since)) = previous {
            let nanos = u64::try_from(now.duration_since(since).as_nanos()).unwrap_or(u64::MAX);
            NANOS[stage as usize].fetch_add(nanos, Ordering::Relaxed);
        }
        if let (true, Some(stage)) = (entering, next) {
            ENTRIES[stage as usize].fetch_add(1, Ordering::Relaxed);
        }
        previous.map(|(stage, _)| stage)
    }

    /// The time and the entries of one stage, summed over all threads.
    #[derive(Clone, Debug, PartialEq)]
    pub struct StageTotal {
        /// The stage.
        pub stage: Stage,
        /// Wall time spent in it, summed over the threads.
        pub time: Duration,
        /// How often it was entered.
        pub entries: u64,
    }

    /// Zeroes every counter, so that the next [`totals`] cover only what follows.
    pub fn reset() {
        for counter in NANOS.iter().chain(&ENTRIES) {
            counter.store(0, Ordering::Relaxed);
        }
    }

    /// Every stage's totals since the last [`reset`], in [`Stage::ALL`]'s order.
    pub fn totals() -> Vec<StageTotal> {
        Stage::ALL
            .iter()
            .map(|&stage| StageTotal {
                stage,
                time: Duration::from_nanos(NANOS[stage as usize].load(Ordering::Relaxed)),
                entries: ENTRIES[stage as usize].load(Ordering::Relaxed),
            })
            .collect()
    }
}
