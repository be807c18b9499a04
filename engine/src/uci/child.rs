//! A UCI engine run as a child process, the one way Kairos starts one (tm-proxy's wrapped engine, the match
//! runner's engines, the end-to-end tests): piped input, a thread that hands on each line of its output, its
//! exit status within a wait, and killed when dropped.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// A running engine process; killed when dropped.
pub struct UciChild {
    child: Child,
    stdin: ChildStdin,
}

impl UciChild {
    /// Starts `command` (with the arguments, directory and standard error the caller gave it) with piped input
    /// and output. Each output line, without its line end and with invalid UTF-8 replaced, goes to `on_line`
    /// on a thread of its own until the output ends or `on_line` returns false; then `on_end` runs.
    pub fn spawn(
        command: &mut Command,
        mut on_line: impl FnMut(String) -> bool + Send + 'static,
        on_end: impl FnOnce() + Send + 'static,
    ) -> io::Result<Self> {
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
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
                        if !on_line(line) {
                            return;
                        }
                    }
                }
            }
            on_end();
        });
        Ok(Self { child, stdin })
    }

    /// Starts `command` as [`UciChild::spawn`] does, with its output lines on a channel that disconnects when
    /// the output ends.
    pub fn spawn_with_lines(command: &mut Command) -> io::Result<(Self, Receiver<String>)> {
        let (sender, lines) = mpsc::channel();
        let child = Self::spawn(command, move |line| sender.send(line).is_ok(), || {})?;
        Ok((child, lines))
    }

    /// Sends one line and flushes it.
    pub fn send(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()
    }

    /// The exit status if the process ends within `wait`.
    pub fn exit_status_within(&mut self, wait: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + wait;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// Sends `quit` and gives the engine `wait` to exit; its exit status if it did (dropping it kills it).
    pub fn quit(&mut self, wait: Duration) -> Option<ExitStatus> {
        self.send("quit").ok()?;
        self.exit_status_within(wait)
    }
}

impl Drop for UciChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_back_without_line_ends_and_the_channel_closes_at_the_end_of_the_output() {
        let mut command = Command::new("sh");
        command
            .args(["-c", "printf 'id name x\\r\\nreadyok\\n'; read line; echo \"got $line\"; printf 'bad \\377\\n'"]);
        let (mut child, lines) = UciChild::spawn_with_lines(&mut command).unwrap();
        let wait = Duration::from_secs(10);
        assert_eq!(lines.recv_timeout(wait).unwrap(), "id name x");
        assert_eq!(lines.recv_timeout(wait).unwrap(), "readyok");
        child.send("isready").unwrap();
        assert_eq!(lines.recv_timeout(wait).unwrap(), "got isready");
        assert_eq!(lines.recv_timeout(wait).unwrap(), "bad \u{fffd}");
        assert!(lines.recv_timeout(wait).is_err(), "the output ended");
        assert!(child.exit_status_within(wait).is_some_and(|status| status.success()));
    }

    #[test]
    fn an_engine_that_ignores_quit_has_no_exit_status_and_is_killed_when_dropped() {
        let mut command = Command::new("sh");
        command.args(["-c", "while read line; do :; done; sleep 30"]);
        let (mut child, _lines) = UciChild::spawn_with_lines(&mut command).unwrap();
        assert_eq!(child.quit(Duration::from_millis(200)), None);
        let started = Instant::now();
        drop(child);
        assert!(started.elapsed() < Duration::from_secs(10), "killed, not waited for");
    }
}
