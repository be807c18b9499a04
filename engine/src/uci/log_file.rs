//! lc0's `LogFile`: every UCI line in (`>> `) and out (`<< `), each with its local time, appended to a file or
//! written to stderr, so that a user can see what a GUI and the engine said to each other. Until a log is set
//! the last 200 lines are kept and go to the log when it opens, as lc0 keeps them (so a `setoption` after `uci`
//! still logs the `uci` exchange).

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The `LogFile` value that logs to stderr instead of a file (lc0's).
pub const STDERR: &str = "<stderr>";

/// Lines kept while no log is set (lc0's `kBufferSizeLines`).
const BUFFERED_LINES: usize = 200;

/// The line that starts every log, as lc0 writes it (after two blank lines).
const LOG_STARTED: &str = "\n\n============= Log started. =============";

/// Why the log could not be opened or written; names the file and the way out.
#[derive(Debug, thiserror::Error)]
pub enum LogFileError {
    /// The file could not be opened for appending.
    #[error("cannot open LogFile '{path}': {source}; set LogFile to a writable path, to {STDERR} or to empty")]
    Open {
        /// The configured path.
        path: String,
        /// The operating system's reason.
        source: io::Error,
    },
    /// A line could not be written; the log was closed.
    #[error("cannot write to LogFile '{path}': {source}; logging stopped (set LogFile again to resume)")]
    Write {
        /// The configured path.
        path: String,
        /// The operating system's reason.
        source: io::Error,
    },
}

/// The session's log, shared by the UCI loop (input) and the output (every thread's answers).
pub struct UciLog {
    state: Mutex<LogState>,
}

enum Destination {
    None,
    Stderr,
    File(File),
}

struct LogState {
    /// The value of `LogFile` last applied (empty: no log).
    path: String,
    destination: Destination,
    /// The last lines while no log is set, with their times, formatted only if a log opens.
    buffer: VecDeque<(SystemTime, String)>,
    /// A write that failed since the last [`UciLog::take_failure`].
    failure: Option<LogFileError>,
}

impl Default for UciLog {
    fn default() -> Self {
        Self::new()
    }
}

impl UciLog {
    /// A log with nothing set yet; its first lines say which build started, with which command line.
    pub fn new() -> Self {
        let log = Self {
            state: Mutex::new(LogState {
                path: String::new(),
                destination: Destination::None,
                buffer: VecDeque::new(),
                failure: None,
            }),
        };
        log.write(format!("Kairos {} started.", crate::build_info::VERSION));
        let command_line: Vec<String> = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned()).collect();
        log.write(format!("Command line: {}", command_line.join(" ")));
        log
    }

    /// Logs a line the engine read.
    pub fn input(&self, line: &str) {
        self.write(format!(">> {line}"));
    }

    /// Logs a line the engine sent.
    pub fn output(&self, line: &str) {
        self.write(format!("<< {line}"));
    }

    /// Logs a line the engine neither read nor sent.
    pub fn note(&self, line: &str) {
        self.write(line.to_string());
    }

    /// Applies the value of `LogFile` (lc0's `SetFilename`): nothing if it is unchanged; empty closes the log,
    /// [`STDERR`] logs to stderr, any other value appends to that file. A new log starts with lc0's header and the
    /// lines kept so far. On an error no log is open, and the same value is not tried again until it changes.
    pub fn set_path(&self, path: &str) -> Result<(), LogFileError> {
        let mut state = self.lock();
        if state.path == path {
            return Ok(());
        }
        state.path = path.to_string();
        state.destination = Destination::None;
        state.destination = match path {
            "" => return Ok(()),
            STDERR => Destination::Stderr,
            _ => {
                let file = OpenOptions::new().create(true).append(true).open(path);
                Destination::File(file.map_err(|source| LogFileError::Open { path: path.to_string(), source })?)
            }
        };
        let mut text = format!("{LOG_STARTED}\n");
        for (time, line) in std::mem::take(&mut state.buffer) {
            text.push_str(&stamped(time, &line));
            text.push('\n');
        }
        state.append(&text);
        state.failure.take().map_or(Ok(()), Err)
    }

    /// The write failure since the last call, if any (the log is then closed).
    pub fn take_failure(&self) -> Option<LogFileError> {
        self.lock().failure.take()
    }

    fn write(&self, line: String) {
        let now = SystemTime::now();
        let mut state = self.lock();
        if matches!(state.destination, Destination::None) {
            if state.buffer.len() == BUFFERED_LINES {
                state.buffer.pop_front();
            }
            state.buffer.push_back((now, line));
        } else {
            let text = stamped(now, &line) + "\n";
            state.append(&text);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LogState> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl LogState {
    /// Writes `text` where the log goes; a failure closes the log and is kept for the caller to report.
    fn append(&mut self, text: &str) {
        let written = match &mut self.destination {
            Destination::None => Ok(()),
            Destination::Stderr => io::stderr().write_all(text.as_bytes()),
            Destination::File(file) => file.write_all(text.as_bytes()).and_then(|()| file.flush()),
        };
        if let Err(source) = written {
            self.destination = Destination::None;
            self.failure = Some(LogFileError::Write { path: self.path.clone(), source });
        }
    }
}

/// `line` after its time as lc0 writes it, local time to the microsecond: `MMDD HH:MM:SS.uuuuuu`.
fn stamped(time: SystemTime, line: &str) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since_epoch.as_secs() as libc::time_t;
    // SAFETY: `localtime_r` reads `seconds` and writes only the `tm` it is given, which lives on this stack
    // frame; unlike `localtime` it shares no static buffer between threads.
    let local = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        (!libc::localtime_r(&seconds, &mut tm).is_null()).then_some(tm)
    };
    let micros = since_epoch.subsec_micros();
    match local {
        Some(tm) => format!(
            "{:02}{:02} {:02}:{:02}:{:02}.{micros:06} {line}",
            tm.tm_mon + 1,
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec
        ),
        None => format!("{}.{micros:06} {line}", since_epoch.as_secs()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_path(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("kairos-log-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("log.txt")
    }

    /// The lines with their time stamps (which are checked apart) taken off.
    fn lines_without_time(text: &str) -> Vec<String> {
        let stamped = |line: &str| line.starts_with(|c: char| c.is_ascii_digit());
        text.lines().map(|line| if stamped(line) { &line[21..] } else { line }.to_string()).collect()
    }

    #[test]
    fn the_lines_before_a_log_is_set_open_it_after_lc0s_header() {
        let path = temp_path("buffer");
        let log = UciLog::new();
        log.input("uci");
        log.output("uciok");
        log.set_path(path.to_str().unwrap()).unwrap();
        log.input("isready");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("\n\n============= Log started. =============\n"), "{text:?}");
        let lines = lines_without_time(&text);
        assert!(lines[3].starts_with("Kairos ") && lines[3].ends_with(" started."), "{lines:?}");
        assert!(lines[4].starts_with("Command line: "), "{lines:?}");
        assert_eq!(lines[5..], [">> uci", "<< uciok", ">> isready"], "{lines:?}");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_log_appends_and_keeps_only_the_last_200_lines_from_before() {
        let path = temp_path("append");
        std::fs::write(&path, "an earlier session\n").unwrap();
        let log = UciLog::new();
        for index in 0..250 {
            log.input(&format!("line {index}"));
        }
        log.set_path(path.to_str().unwrap()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("an earlier session\n\n\n============= Log started."), "{text:?}");
        let lines = lines_without_time(&text);
        assert_eq!(lines.len(), 4 + 200, "the header's three lines, the earlier line and 200 kept");
        assert_eq!(lines[4], ">> line 50");
        assert_eq!(lines.last().unwrap(), ">> line 249");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn each_line_carries_lc0s_local_time_stamp() {
        let path = temp_path("stamp");
        let log = UciLog::new();
        log.set_path(path.to_str().unwrap()).unwrap();
        log.output("readyok");
        let text = std::fs::read_to_string(&path).unwrap();
        let line = text.lines().last().unwrap();
        // MMDD HH:MM:SS.uuuuuu, as lc0's `FormatTime`.
        let digits_at = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 16, 17, 18, 19];
        assert!(digits_at.iter().all(|&i| line.as_bytes()[i].is_ascii_digit()), "{line:?}");
        assert_eq!((&line[4..5], &line[7..8], &line[10..11], &line[13..14]), (" ", ":", ":", "."), "{line:?}");
        assert_eq!(&line[20..], " << readyok");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn an_unwritable_path_is_named_and_not_retried_until_it_changes() {
        let log = UciLog::new();
        let error = log.set_path("/nonexistent-dir/kairos.log").unwrap_err();
        assert!(error.to_string().starts_with("cannot open LogFile '/nonexistent-dir/kairos.log':"), "{error}");
        assert!(log.set_path("/nonexistent-dir/kairos.log").is_ok(), "the same value is not tried again");
        let path = temp_path("after-error");
        log.input("still kept");
        log.set_path(path.to_str().unwrap()).unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains(">> still kept"));
        log.set_path("").unwrap();
        log.input("not logged");
        assert!(!std::fs::read_to_string(&path).unwrap().contains("not logged"));
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_failed_write_closes_the_log_and_is_reported_once() {
        // Linux's /dev/full opens, and every write to it fails with "No space left on device".
        let log = UciLog::new();
        let error = log.set_path("/dev/full").unwrap_err();
        assert!(error.to_string().starts_with("cannot write to LogFile '/dev/full':"), "{error}");
        log.output("kept for a later log");
        assert!(log.take_failure().is_none(), "the log closed at the failure, so nothing else failed");
        let state = log.lock();
        assert!(matches!(state.destination, Destination::None));
        assert_eq!(state.buffer.back().map(|(_, line)| line.as_str()), Some("<< kept for a later log"));
    }
}
