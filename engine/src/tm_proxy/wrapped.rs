//! The wrapped engine as a child process: lines go to its input, and each line of its output arrives as an
//! [`Event::Engine`], then [`Event::EngineClosed`] when the output ends. Its standard error is the proxy's.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use super::Event;

/// How long the engine may take to exit after `quit` before it is killed.
const QUIT_WAIT: Duration = Duration::from_millis(1000);

/// A running wrapped engine; killed when dropped.
pub struct WrappedEngine {
    child: Child,
    stdin: ChildStdin,
}

impl WrappedEngine {
    /// Starts `command` with `args` and a thread that turns its output into events.
    pub fn start(command: &str, args: &[String], events: Sender<Event>) -> io::Result<Self> {
        let mut child = Command::new(command).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("the process has no pipes"));
        };
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut bytes = Vec::new();
            loop {
                bytes.clear();
                match reader.read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&bytes).trim_end_matches(['\n', '\r']).to_owned();
                        if events.send(Event::Engine(line)).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = events.send(Event::EngineClosed);
        });
        Ok(Self { child, stdin })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()
    }

    /// How the process ended, waiting up to `wait` for it to end.
    pub fn exit_status(&mut self, wait: Duration) -> String {
        let deadline = Instant::now() + wait;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) => return "still running".to_owned(),
                Err(error) => return format!("status unknown: {error}"),
            }
        }
    }

    /// Gives the engine, which was sent `quit`, a moment to exit; dropping it kills it if it has not.
    pub fn wait_for_exit(&mut self) {
        self.exit_status(QUIT_WAIT);
    }
}

impl Drop for WrappedEngine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
