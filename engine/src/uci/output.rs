//! The engine's output stream, shared by the UCI loop and the search's reporting thread; one line at a
//! time, flushed after each so a GUI sees it at once.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// A cloneable handle that writes whole lines to the engine's output.
#[derive(Clone)]
pub struct UciOutput {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl UciOutput {
    /// Wraps a writer (stdout, or a buffer in tests).
    pub fn new(writer: impl Write + Send + 'static) -> Self {
        Self { sink: Arc::new(Mutex::new(Box::new(writer))) }
    }

    /// Writes `line` and a newline, then flushes; lines from different threads never interleave.
    pub fn send(&self, line: &str) -> io::Result<()> {
        let mut sink = self.sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        sink.write_all(line.as_bytes())?;
        sink.write_all(b"\n")?;
        sink.flush()
    }

    /// Sends `info string error <message>`, the way every recoverable error is reported.
    pub fn error(&self, message: &str) -> io::Result<()> {
        self.send(&format!("info string error {message}"))
    }
}
