//! The stage counters behind the `stage-timing` feature: nested stages are charged exclusively and add up
//! to the time the thread spent in them (`cargo test -p nn --features stage-timing --test integration stage_timing`).
#![cfg(feature = "stage-timing")]

use std::time::{Duration, Instant};

use nn::stage_timing::{enter, reset, totals, Stage};

fn total(stage: Stage) -> (Duration, u64) {
    let found = totals().into_iter().find(|total| total.stage == stage).expect("every stage is listed");
    (found.time, found.entries)
}

/// One test, since the counters are process-wide.
#[test]
fn stages_nest_exclusively_and_threads_add_up() {
    reset();
    let pause = Duration::from_millis(20);
    let started = Instant::now();
    {
        let _gather = enter(Stage::Gather);
        std::thread::sleep(pause);
        for _ in 0..2 {
            let _encode = enter(Stage::Encode);
            std::thread::sleep(pause);
        }
        std::thread::sleep(pause);
    }
    let elapsed = started.elapsed();
    std::thread::sleep(pause);
    let (gather, gather_entries) = total(Stage::Gather);
    let (encode, encode_entries) = total(Stage::Encode);
    assert_eq!((gather_entries, encode_entries), (1, 2));
    assert!(encode >= 2 * pause, "{encode:?}");
    assert!(gather >= 2 * pause, "{gather:?}");
    assert!(gather + encode <= elapsed, "{gather:?} + {encode:?} > {elapsed:?}: time outside the stages was charged");
    let other = [Stage::TreeLock, Stage::Network, Stage::Backup, Stage::Fetch];
    assert!(other.iter().all(|&stage| total(stage) == (Duration::ZERO, 0)), "{:?}", totals());

    // Each thread charges its own stage; their times add up.
    let workers: Vec<_> = (0..2)
        .map(|_| {
            std::thread::spawn(move || {
                let _fetch = enter(Stage::Fetch);
                std::thread::sleep(pause);
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("the worker ends");
    }
    let (fetch, entries) = total(Stage::Fetch);
    assert_eq!(entries, 2);
    assert!(fetch >= 2 * pause, "two threads' time adds up: {fetch:?}");
}
