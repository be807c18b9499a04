//! The UCI front end: reads commands line by line, drives the search, and writes every answer as one
//! flushed line. Bad input never ends the session: it is answered with `info string error …`, and so is a
//! panic while handling a command, after which a `go` still gets its `bestmove`. With `LogFile` set, every line in
//! and out is logged there, and the network's warnings too.

pub mod child;
mod command;
mod log_file;
mod output;
mod session;
mod trace_file;
pub mod warnings;

pub use command::{parse_command, CommandError, GoCommand, UciCommand};
pub use output::UciOutput;
pub use session::{Flow, Session};
pub use trace_file::{append_traces, TraceFileError};

use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::fault::panic_message;
use crate::options::EngineOptions;

/// Runs the UCI loop until `quit` or the end of `input`; the output is shared with the search's
/// reporting thread. Each line read is logged before it is handled and `LogFile` applied after, as lc0 does.
/// Returns an error only when reading the input or writing the output fails.
pub fn run_uci(options: EngineOptions, input: impl BufRead, output: impl Write + Send + 'static) -> anyhow::Result<()> {
    let out = UciOutput::new(output);
    out.take_warnings();
    out.apply_log_file(&options.log_file)?;
    let mut session = Session::new(options, out.clone());
    for line in input.lines() {
        let line = match line {
            Ok(line) => line,
            Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
                out.error("input line is not valid UTF-8; ignored")?;
                continue;
            }
            Err(error) => {
                session.shut_down();
                return Err(error.into());
            }
        };
        out.log_input(&line);
        let flow = match parse_command(&line) {
            Ok(Some(command)) => {
                let is_go = matches!(command, UciCommand::Go(_));
                match catch_unwind(AssertUnwindSafe(|| session.handle(command))) {
                    Ok(flow) => flow,
                    Err(payload) => session.recover_from_panic(&line, &panic_message(payload.as_ref()), is_go),
                }
            }
            Ok(None) => Ok(Flow::Continue),
            Err(error) => out.error(&error.to_string()).map(|()| Flow::Continue),
        };
        let flow = flow.and_then(|flow| out.apply_log_file(session.log_file()).map(|()| flow));
        match flow {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => return Ok(()),
            Err(error) => {
                session.shut_down();
                return Err(error.into());
            }
        }
    }
    session.shut_down();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes the test can read after the loop has ended.
    #[derive(Clone, Default)]
    struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

    impl Write for SharedBuffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(bytes)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn session(options: EngineOptions, input: &[u8]) -> Vec<String> {
        let buffer = SharedBuffer::default();
        run_uci(options, Cursor::new(input.to_vec()), buffer.clone()).unwrap();
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn in_memory_session_answers_each_go_and_survives_invalid_utf8() {
        let options = EngineOptions { backend: nn::BackendKind::Uniform, threads: 1, ..EngineOptions::default() };
        let lines = session(options, b"isready\n\xff\xfe garbage\nposition startpos\ngo nodes 5\nisready\n");
        assert_eq!(lines.iter().filter(|line| *line == "readyok").count(), 2, "{lines:?}");
        assert!(lines.contains(&"info string error input line is not valid UTF-8; ignored".to_string()), "{lines:?}");
        assert_eq!(lines.iter().filter(|line| line.starts_with("bestmove ")).count(), 1, "{lines:?}");
    }

    #[test]
    fn a_time_manager_key_that_changes_nothing_is_named_with_the_way_out() {
        let options = EngineOptions { backend: nn::BackendKind::Uniform, threads: 1, ..EngineOptions::default() };
        let input = b"setoption name TimeManager value smooth(limit=nodes,init-timeuse=0.8,max-move-budget=0.2)\n\
                      setoption name TimeManager value smooth(limit=nodes,learn-node-use=true,init-timeuse=0.8)\n\
                      isready\n";
        let lines = session(options, input);
        let warnings: Vec<&String> = lines.iter().filter(|line| line.starts_with("info string warning")).collect();
        assert_eq!(warnings.len(), 1, "only the first string sets a key it never reads: {lines:?}");
        assert!(warnings[0].starts_with("info string warning TimeManager: init-timeuse has no effect:"), "{lines:?}");
        assert!(warnings[0].contains("learn-node-use=true"), "{lines:?}");
        assert_eq!(lines.last().map(String::as_str), Some("readyok"));
    }

    #[test]
    fn quit_ends_the_loop_before_later_lines() {
        let lines = session(EngineOptions::default(), b"uci\nquit\nisready\n");
        assert_eq!(lines.last().map(String::as_str), Some("uciok"));
        assert!(!lines.contains(&"readyok".to_string()));
    }
}
