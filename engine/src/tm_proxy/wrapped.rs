//! The wrapped engine as a child process: lines go to its input, and each line of its output arrives as an
//! [`Event::Engine`], then [`Event::EngineClosed`] when the output ends. Its standard error is the proxy's.

use std::io;
use std::process::Command;
use std::sync::mpsc::Sender;
use std::time::Duration;

use super::Event;
use crate::uci::child::UciChild;

/// How long the engine may take to exit after `quit` before it is killed.
const QUIT_WAIT: Duration = Duration::from_millis(1000);

/// A running wrapped engine; killed when dropped.
pub struct WrappedEngine {
    child: UciChild,
}

impl WrappedEngine {
    /// Starts `command` with `args` and a thread that turns its output into events.
    pub fn start(command: &str, args: &[String], events: Sender<Event>) -> io::Result<Self> {
        let closed = events.clone();
        let child = UciChild::spawn(
            Command::new(command).args(args),
            move |line| events.send(Event::Engine(line)).is_ok(),
            move || {
                let _ = closed.send(Event::EngineClosed);
            },
        )?;
        Ok(Self { child })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> io::Result<()> {
        self.child.send(line)
    }

    /// How the process ended, waiting up to `wait` for it to end.
    pub fn exit_status(&mut self, wait: Duration) -> String {
        match self.child.exit_status_within(wait) {
            Some(status) => status.to_string(),
            None => "still running".to_owned(),
        }
    }

    /// Sends `quit` and gives the engine a moment to exit; dropping it kills it if it has not.
    pub fn quit(&mut self) {
        self.child.quit(QUIT_WAIT);
    }
}
