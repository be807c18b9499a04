//! The process's logger for the libraries' warnings (the network's, sent through the `log` facade): each goes to
//! stderr as `warning: …`, and into the UCI session's `LogFile` once a session has registered its log, as lc0 logs
//! the lines it writes to stderr (`StderrLogMessage`, docs/lc0/search.md §4.14).

use std::sync::{Arc, Mutex, PoisonError};

use log::{Level, LevelFilter, Log, Metadata, Record};

use super::log_file::UciLog;

/// The logger; [`install`] makes it the process's.
struct StderrAndSessionLog;

/// The log of the UCI session that registered last, if any.
static SESSION_LOG: Mutex<Option<Arc<UciLog>>> = Mutex::new(None);

static LOGGER: StderrAndSessionLog = StderrAndSessionLog;

impl Log for StderrAndSessionLog {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= Level::Warn
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let label = if record.level() == Level::Error { "error" } else { "warning" };
        let line = format!("{label}: {}", record.args());
        eprintln!("{line}");
        if let Some(log) = SESSION_LOG.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
            log.note(&line);
        }
    }

    fn flush(&self) {}
}

/// Makes the libraries' warnings and errors reach stderr (the binary calls it first thing); a second call, or a
/// logger set before, leaves the first in place.
pub fn install() {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LevelFilter::Warn);
    }
}

/// Sends the warnings to `log` as well, instead of to the log registered before.
pub(super) fn register_session_log(log: Arc<UciLog>) {
    *SESSION_LOG.lock().unwrap_or_else(PoisonError::into_inner) = Some(log);
}
