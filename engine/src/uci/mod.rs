//! The UCI front end: reads commands line by line, drives the search, and writes every answer as one
//! flushed line. Bad input never ends the session: it is answered with `info string error …`.

mod command;
mod output;
mod session;
mod trace_file;

pub use command::{parse_command, CommandError, GoCommand, UciCommand};
pub use output::UciOutput;
pub use session::{Flow, Session};
pub use trace_file::{append_traces, TraceFileError};

use std::io::{BufRead, Write};

use crate::options::EngineOptions;

/// Runs the UCI loop until `quit` or the end of `input`; the output is shared with the search's
/// reporting thread. Returns an error only when reading the input or writing the output fails.
pub fn run_uci(options: EngineOptions, input: impl BufRead, output: impl Write + Send + 'static) -> anyhow::Result<()> {
    let out = UciOutput::new(output);
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
        let flow = match parse_command(&line) {
            Ok(Some(command)) => session.handle(command),
            Ok(None) => Ok(Flow::Continue),
            Err(error) => out.error(&error.to_string()).map(|()| Flow::Continue),
        };
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
