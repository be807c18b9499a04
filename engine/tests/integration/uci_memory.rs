//! Memory handed back once a network has loaded: the binary's allocator is purged then (jemalloc keeps the pages
//! of the parsed weights and the upload's temporaries otherwise, as long as the engine idles). A test binary of its
//! own, beside `uci::tests`' in-memory sessions: the purge is set once a process and counted, and no other test's
//! load may count.

use std::io::{Cursor, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use engine::options::EngineOptions;
use engine::uci::run_uci;

static PURGES: AtomicUsize = AtomicUsize::new(0);

fn count_purge() {
    PURGES.fetch_add(1, Ordering::SeqCst);
}

/// What the session wrote, kept for the assertions.
#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<u8>>>);

impl Write for Written {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("unpoisoned").extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_allocator_is_purged_once_the_network_has_loaded_and_not_before() {
    engine::memory::set_allocator_purge(count_purge);
    let written = Written::default();
    let mut options = EngineOptions::default();
    options.set("Backend", "uniform").expect("a backend for tests");
    run_uci(options.clone(), Cursor::new("uci\nquit\n"), written.clone()).expect("the session runs");
    assert_eq!(PURGES.load(Ordering::SeqCst), 0, "no network, no purge");
    run_uci(options, Cursor::new("uci\nisready\nquit\n"), written.clone()).expect("the session runs");
    let output = String::from_utf8(written.0.lock().expect("unpoisoned").clone()).expect("UTF-8");
    assert!(output.contains("readyok"), "{output}");
    assert!(PURGES.load(Ordering::SeqCst) >= 1, "purged after the load: {output}");
}
