//! Time as an injected value, so the same search and time manager run on wall time or on a deterministic
//! virtual clock (`VirtualClock`, `VirtualNps`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A source of elapsed time in milliseconds since the clock was created.
pub trait Clock: Send + Sync {
    /// Milliseconds elapsed since the clock's start.
    fn elapsed_ms(&self) -> f64;
    /// Told by the search after each evaluated batch; only a virtual clock advances here.
    fn on_batch(&self, _playouts: u64) {}
    /// Whether time passes between batches; when it does not, polling between batches learns nothing and
    /// would only make the search depend on thread timing.
    fn advances_between_batches(&self) -> bool {
        true
    }
}

/// Real time.
#[derive(Debug)]
pub struct WallClock {
    start: Instant,
}

impl WallClock {
    /// A wall clock starting now.
    pub fn new() -> Self {
        Self { start: Instant::now() }
    }
}

impl Default for WallClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for WallClock {
    fn elapsed_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }
}

/// Deterministic time: each batch costs `batch_cost_ms` plus its playouts at `nps` nodes per second.
#[derive(Debug)]
pub struct VirtualClock {
    nps: f64,
    batch_cost_ms: f64,
    /// Elapsed time in microseconds, so concurrent batches add up exactly.
    elapsed_us: AtomicU64,
}

impl VirtualClock {
    /// A virtual clock at zero.
    pub fn new(nps: f64, batch_cost_ms: f64) -> Self {
        Self { nps: nps.max(1.0), batch_cost_ms: batch_cost_ms.max(0.0), elapsed_us: AtomicU64::new(0) }
    }
}

impl Clock for VirtualClock {
    fn elapsed_ms(&self) -> f64 {
        self.elapsed_us.load(Ordering::SeqCst) as f64 / 1000.0
    }
    fn advances_between_batches(&self) -> bool {
        false
    }
    fn on_batch(&self, playouts: u64) {
        let us = (self.batch_cost_ms * 1000.0 + playouts as f64 * 1.0e6 / self.nps).round() as u64;
        self.elapsed_us.fetch_add(us, Ordering::SeqCst);
    }
}

/// A clock shared between the UCI loop and the search threads.
pub type SharedClock = Arc<dyn Clock>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_clock_charges_playouts_at_the_given_rate_plus_batch_cost() {
        let clock = VirtualClock::new(2000.0, 1.5);
        clock.on_batch(10); // 10 playouts at 2000/s = 5 ms, plus 1.5 ms
        clock.on_batch(0); // batch cost only
        assert!((clock.elapsed_ms() - 8.0).abs() < 1e-9);
    }

    #[test]
    fn wall_clock_measures_real_time_and_batches_do_not_move_it() {
        let clock = WallClock::new();
        let real = Instant::now();
        let before = clock.elapsed_ms();
        std::thread::sleep(std::time::Duration::from_millis(25));
        clock.on_batch(1_000_000_000);
        let after = clock.elapsed_ms();
        let passed = real.elapsed().as_secs_f64() * 1000.0;
        // The clock's interval lies inside the independently measured one, and a sleep shows in full.
        assert!(after - before >= 25.0, "a 25 ms sleep shows as {} ms", after - before);
        assert!(after - before <= passed + 1e-6, "{} ms on the clock, {passed} ms passed", after - before);
        assert!(clock.advances_between_batches() && !VirtualClock::new(1.0, 0.0).advances_between_batches());
    }
}
