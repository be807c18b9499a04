//! `Precision=auto` on a CPU with native bf16: bf16 or fp32, whichever runs the search's batches faster on this
//! CPU, timed when the network loads (at the first `isready`, just before the speed calibration times a search in
//! the precision chosen; `bench`, `backendbench` and `eval` load it the same way). CPU flags cannot tell the
//! machines apart: on a 2-core Xeon (family 6 model 207) with AVX512-BF16 but no AMX the search made 6,461 nps in
//! bf16 and 8,814 in fp32, while on the AMX Xeons and the Zen 4 and Zen 5 EPYCs (AVX512-BF16, no AMX) bf16 is
//! the faster (BENCHMARKS.md). The batches run on every CPU backend at once, as the search runs them: what one
//! core computes alone need not be what two computing together do.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tch::Kind;

use crate::bench::StartPositionBatches;
use crate::error::NnError;
use crate::torch_backend::TorchBackend;

/// The batch sizes timed: a small one, which the network in plain Rust computes where libtorch takes the larger
/// ones (`RustBatchLimit`; 7 for Maia in bf16 with AMX), and the search's batch on a CPU (its recommended 32).
pub const TIMED_BATCHES: [usize; 2] = [4, 32];

/// How much faster fp32 must time than bf16 to be chosen: on a near tie the rule by flags (bf16 on a CPU with
/// native bf16) stays. Below the 5 % that `auto` may lose to the best fixed precision, leaving room for the
/// timing's own error.
pub const FP32_MARGIN: f64 = 0.03;

/// Rounds of timing at least (the first carries each backend's first-batch costs) and at most: two rounds of a
/// 20×256 tower's batches add about two seconds to its load on a 2-core Zen 4 EPYC, on top of its second network.
const ROUNDS: std::ops::RangeInclusive<usize> = 2..=20;

/// After this much timing on the wall clock no further round starts once the fewest are done, which keeps the
/// load's added cost near a tenth of a second for Maia (a round of about 10 ms on an idle 2-core Zen 4 EPYC); a
/// 20×256 tower's rounds take a few tenths of a second each.
const TIMING_BUDGET: Duration = Duration::from_millis(100);

/// Each precision's CPU time (the process's, every thread's) for one round: one batch of each of
/// [`TIMED_BATCHES`] on every CPU backend at once, as the search's threads compute them, its fastest round. CPU
/// time leaves out the time another program's threads held the cores, which on a loaded machine made the wall
/// clock's rounds of the same batches differ fivefold; what the precisions cost on the cores they run on (their
/// instructions, their memory traffic, a sibling thread sharing a core) it keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrecisionTiming {
    /// bf16's milliseconds.
    pub bf16_ms: f64,
    /// fp32's milliseconds.
    pub fp32_ms: f64,
    /// Rounds timed, alternating the precisions.
    pub rounds: usize,
}

impl PrecisionTiming {
    /// The precision to run: fp32 only where bf16 took more than [`FP32_MARGIN`] longer, bf16 on a near tie.
    pub fn choice(&self) -> Kind {
        if self.bf16_ms > self.fp32_ms * (1.0 + FP32_MARGIN) {
            Kind::Float
        } else {
            Kind::BFloat16
        }
    }

    /// Why `auto` runs [`PrecisionTiming::choice`] on a CPU whose native bf16 is `feature`, with both timings, for
    /// the start-up report of every command.
    pub fn reason(&self, feature: &str, backends: usize) -> String {
        let [small, large] = TIMED_BATCHES;
        let on = if backends == 1 { "one backend".to_owned() } else { format!("each of {backends} backends at once") };
        let margin = FP32_MARGIN * 100.0;
        let verdict = match self.choice() {
            Kind::Float => format!("fp32 more than {margin} % faster"),
            _ if self.bf16_ms <= self.fp32_ms => "bf16 the faster".to_owned(),
            _ => format!("fp32 not more than {margin} % faster"),
        };
        format!(
            "Precision=auto, timed at load on this CPU with native bf16 ({feature}): a batch of {small} and one of \
             {large} on {on} took bf16 {:.2} ms, fp32 {:.2} ms of CPU time (fastest of {} rounds); {verdict}",
            self.bf16_ms, self.fp32_ms, self.rounds
        )
    }
}

/// Times the two precisions' CPU backends (the same network, one backend a search thread) in alternating
/// rounds, so that whatever else runs on the machine weighs on both alike.
pub fn time_precisions(bf16: &[Arc<TorchBackend>], fp32: &[Arc<TorchBackend>]) -> Result<PrecisionTiming, NnError> {
    let batches = StartPositionBatches::new();
    let started = Instant::now();
    let mut timing = PrecisionTiming { bf16_ms: f64::INFINITY, fp32_ms: f64::INFINITY, rounds: 0 };
    while timing.rounds < *ROUNDS.end() && (timing.rounds < *ROUNDS.start() || started.elapsed() < TIMING_BUDGET) {
        timing.bf16_ms = timing.bf16_ms.min(time_round(&batches, bf16)?);
        timing.fp32_ms = timing.fp32_ms.min(time_round(&batches, fp32)?);
        timing.rounds += 1;
    }
    Ok(timing)
}

/// The process's CPU milliseconds for every backend to compute one batch of each timed size, each backend on a
/// thread of its own.
fn time_round(batches: &StartPositionBatches, backends: &[Arc<TorchBackend>]) -> Result<f64, NnError> {
    let started = process_cpu_ms();
    std::thread::scope(|scope| {
        let threads: Vec<_> = backends
            .iter()
            .map(|backend| {
                scope.spawn(move || TIMED_BATCHES.iter().try_for_each(|&size| batches.evaluate(backend.as_ref(), size)))
            })
            .collect();
        threads.into_iter().try_for_each(|thread| {
            thread.join().unwrap_or_else(|_| Err(NnError::Torch("a timed batch panicked".into())))
        })
    })?;
    Ok(process_cpu_ms() - started)
}

/// The CPU time of every thread of this process so far, in milliseconds.
fn process_cpu_ms() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given; the process's CPU clock always exists.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    debug_assert_eq!(status, 0);
    time.tv_sec as f64 * 1000.0 + time.tv_nsec as f64 / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(bf16_ms: f64, fp32_ms: f64) -> PrecisionTiming {
        PrecisionTiming { bf16_ms, fp32_ms, rounds: 3 }
    }

    /// The 2-core Xeon of model 207 (AVX512-BF16, no AMX): 6,461 nps in bf16 and 8,814 in fp32 are 1000/6461 =
    /// 154.8 ms and 1000/8814 = 113.5 ms a thousand nodes, bf16 36 % the slower: fp32.
    #[test]
    fn the_xeon_whose_bf16_searched_slower_gets_fp32() {
        assert_eq!(timing(154.8, 113.5).choice(), Kind::Float);
    }

    /// bf16 the faster (the Zen 4 EPYC's 2026-11-24 bench stages: bf16 3,583 ms against fp32 5,177 ms): bf16.
    #[test]
    fn bf16_the_faster_stays() {
        assert_eq!(timing(3583.0, 5177.0).choice(), Kind::BFloat16);
    }

    /// A near tie keeps bf16: 10.2 ms against 10.0 is bf16 2 % slower, inside the 3 % margin; 10.4 against 10.0
    /// (4 %) is beyond it, and so is fp32 faster by just over 3 % (10.31 against 10.0).
    #[test]
    fn a_near_tie_keeps_bf16_and_a_gap_beyond_the_margin_gives_fp32() {
        assert_eq!(timing(10.2, 10.0).choice(), Kind::BFloat16);
        assert_eq!(timing(10.29, 10.0).choice(), Kind::BFloat16);
        assert_eq!(timing(10.31, 10.0).choice(), Kind::Float);
        assert_eq!(timing(10.4, 10.0).choice(), Kind::Float);
        assert_eq!(timing(10.0, 10.0).choice(), Kind::BFloat16);
    }

    /// The report names the CPU's bf16, both timings, the rounds and the verdict.
    #[test]
    fn the_reason_gives_both_timings_and_the_verdict() {
        assert_eq!(
            timing(154.8, 113.5).reason("AVX512-BF16", 2),
            "Precision=auto, timed at load on this CPU with native bf16 (AVX512-BF16): a batch of 4 and one of 32 \
             on each of 2 backends at once took bf16 154.80 ms, fp32 113.50 ms of CPU time (fastest of 3 rounds); \
             fp32 more than 3 % faster"
        );
        assert!(timing(10.2, 10.0).reason("AMX-BF16", 1).ends_with(
            "on one backend took bf16 10.20 ms, fp32 10.00 ms of CPU time (fastest of 3 rounds); fp32 not more \
             than 3 % faster"
        ));
        assert!(timing(9.0, 10.0).reason("AMX-BF16", 1).ends_with("; bf16 the faster"));
    }
}
