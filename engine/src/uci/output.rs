//! The engine's output stream, shared by the UCI loop and the search's reporting thread; one line at a
//! time, flushed after each so a GUI sees it at once, and logged to `LogFile` when one is set.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use super::log_file::UciLog;

/// A cloneable handle that writes whole lines to the engine's output.
#[derive(Clone)]
pub struct UciOutput {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
    log: Arc<UciLog>,
}

impl UciOutput {
    /// Wraps a writer (stdout, or a buffer in tests).
    pub fn new(writer: impl Write + Send + 'static) -> Self {
        Self { sink: Arc::new(Mutex::new(Box::new(writer))), log: Arc::new(UciLog::new()) }
    }

    /// Writes `line` and a newline, then flushes; lines from different threads never interleave, and the log
    /// holds them in the order they were sent.
    pub fn send(&self, line: &str) -> io::Result<()> {
        let mut sink = self.sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.log.output(line);
        sink.write_all(line.as_bytes())?;
        sink.write_all(b"\n")?;
        sink.flush()
    }

    /// Sends `info string error <message>`, the way every recoverable error is reported.
    pub fn error(&self, message: &str) -> io::Result<()> {
        self.send(&format!("info string error {message}"))
    }

    /// Logs a line the engine read.
    pub fn log_input(&self, line: &str) {
        self.log.input(line);
    }

    /// Makes this output's log the one that the libraries' warnings go to, beside stderr.
    pub fn take_warnings(&self) {
        super::warnings::register_session_log(Arc::clone(&self.log));
    }

    /// Logs a line of the engine's own that is not sent (lc0's `LOGFILE`), such as move statistics.
    pub fn log_note(&self, line: &str) {
        self.log.note(line);
    }

    /// Applies the `LogFile` option and reports, as an error line, a log that cannot be opened or that failed
    /// to write since the last call.
    pub fn apply_log_file(&self, path: &str) -> io::Result<()> {
        let failure = self.log.set_path(path).err().or_else(|| self.log.take_failure());
        match failure {
            Some(failure) => self.error(&failure.to_string()),
            None => Ok(()),
        }
    }
}
