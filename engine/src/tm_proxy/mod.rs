//! `kairos tm-proxy`: a UCI engine that wraps another UCI engine and gives it a Kairos time manager.
//!
//! Everything passes through in both directions (`uci` with the wrapped engine's options plus the proxy's
//! `TimeManager`, `MoveOverheadMs` and `LimitAs`, `isready`, `setoption`, `position`, `ucinewgame`, `stop`,
//! `ponderhit`, `quit`, `info` lines, `bestmove`, and commands the proxy does not know), except a `go` with a
//! clock:
//!
//! * the manager plans the move from the clock, the position and what it learned in the game
//!   ([`limit::ManagedMove::plan`]), and the engine gets `go movetime T`, or `go nodes N movetime T` when
//!   the plan is a node target (`smooth(limit=nodes)`); `wtime`/`btime`/`winc`/`binc`/`movestogo` never
//!   reach it, so its own time management stays out;
//! * when `bestmove` arrives, the manager learns from the move: the time the proxy measured from `go`, and
//!   the nodes (or NPS × time) of the engine's last `info` lines;
//! * if no `bestmove` has come half the move overhead after T, the proxy sends `stop` itself;
//! * with `--limit-as=clock` (the UCI option `LimitAs`), the engine gets a scaled clock instead, so that its
//!   own time management spends T on average and its own stop rules stay in play ([`clock_scale`]).
//!
//! `go infinite`, `depth`, `nodes`, `movetime` and `mate` without a clock pass through unchanged. `go ponder`
//! with a clock becomes `go ponder` without one; at `ponderhit` the manager plans the move and the proxy
//! sends `stop` after T (the engine has no limit of its own then). What a manager needs that a foreign engine
//! cannot report falls back as [`fallback`] describes, and the proxy says so once per manager.
//!
//! Malformed UCI from the GUI gets `info string error …` and is not forwarded; the proxy keeps serving. If
//! the wrapped engine exits, the proxy says so on `info string error` and ends with an error: no `bestmove`
//! can follow a pending `go`, and a GUI sees an engine crash.

mod clock_scale;
mod fallback;
mod info;
mod limit;
mod session;
mod wrapped;

use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Instant;

use crate::options::{EngineOptions, OptionsError, TimeManagerSetting};
use crate::uci::{Flow, UciOutput};
pub use clock_scale::LimitAs;
use session::ProxySession;
use wrapped::WrappedEngine;

/// What `kairos tm-proxy` is started with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProxyConfig {
    /// The time manager's option string (the `TimeManager` option's default).
    pub time_manager: String,
    /// The move overhead in ms (the `MoveOverheadMs` option's default).
    pub move_overhead_ms: i64,
    /// How the engine gets the plan (the `LimitAs` option's default).
    pub limit_as: LimitAs,
    /// The wrapped engine's executable.
    pub engine: String,
    /// The wrapped engine's arguments.
    pub engine_args: Vec<String>,
}

/// Why the proxy stopped serving.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The time-manager string is invalid.
    #[error("--time-manager '{spec}': {reason}; `kairos tm-help` lists the managers and their parameters")]
    TimeManager {
        /// The string given.
        spec: String,
        /// What is wrong with it (not a `source`: the message already says it; boxed, as it is large).
        reason: Box<timemgr::OptionError>,
    },
    /// The move overhead is out of the option's range.
    #[error("--move-overhead: {0}")]
    MoveOverhead(OptionsError),
    /// The wrapped engine could not be started.
    #[error("could not start the wrapped engine '{command}': {reason}; check the path after --")]
    StartEngine {
        /// The executable.
        command: String,
        /// The operating system's reason (not a `source`: the message already says it).
        reason: io::Error,
    },
    /// The wrapped engine exited or closed its output.
    #[error("the wrapped engine exited ({status}){}", search_note(.searching))]
    EngineExited {
        /// How it ended.
        status: String,
        /// Whether a `go` was waiting for its `bestmove`.
        searching: bool,
    },
    /// Reading the GUI's input failed.
    #[error("reading the GUI's input failed: {0}")]
    Input(io::Error),
    /// Writing to the GUI failed.
    #[error("writing to the GUI failed: {0}")]
    Output(#[from] io::Error),
}

/// What an engine's exit means for a pending `go`.
fn search_note(searching: &bool) -> &'static str {
    if *searching {
        " during a search, so no bestmove can follow"
    } else {
        ""
    }
}

/// Serves `input` (the GUI's commands) until `quit` or its end, answering on `output`, with the wrapped
/// engine of `config` behind it.
pub fn run_tm_proxy(
    config: ProxyConfig,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> Result<(), ProxyError> {
    let time_manager = TimeManagerSetting::parse(&config.time_manager)
        .map_err(|reason| ProxyError::TimeManager { spec: config.time_manager.clone(), reason: Box::new(reason) })?;
    let mut options = EngineOptions { time_manager, ..EngineOptions::default() };
    options.set("MoveOverheadMs", &config.move_overhead_ms.to_string()).map_err(ProxyError::MoveOverhead)?;
    let manager = options
        .time_manager
        .build()
        .map_err(|reason| ProxyError::TimeManager { spec: config.time_manager.clone(), reason: Box::new(reason) })?;
    let (sender, events) = mpsc::channel();
    let engine = WrappedEngine::start(&config.engine, &config.engine_args, sender.clone())
        .map_err(|reason| ProxyError::StartEngine { command: config.engine.clone(), reason })?;
    read_gui_lines(input, sender);
    let mut session = ProxySession::new(options, config.limit_as, manager, engine, UciOutput::new(output));
    loop {
        let received = match session.stop_deadline() {
            Some(deadline) => events.recv_timeout(deadline.saturating_duration_since(Instant::now())),
            None => events.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        let flow = match received {
            Ok(Event::Gui(line)) => session.handle_gui_line(&line)?,
            Ok(Event::GuiNotUtf8) => {
                session.out().error("input line is not valid UTF-8; ignored")?;
                Flow::Continue
            }
            Ok(Event::GuiClosed) => session.quit()?,
            Ok(Event::GuiFailed(error)) => return Err(ProxyError::Input(error)),
            Ok(Event::Engine(line)) => session.handle_engine_line(&line)?,
            Ok(Event::EngineClosed) => return Err(session.engine_exited()),
            Err(RecvTimeoutError::Timeout) => session.deadline_passed()?,
            Err(RecvTimeoutError::Disconnected) => Flow::Quit,
        };
        if flow == Flow::Quit {
            return Ok(());
        }
    }
}

/// What the proxy's loop waits for.
pub(crate) enum Event {
    /// A line from the GUI.
    Gui(String),
    /// A GUI line that is not UTF-8.
    GuiNotUtf8,
    /// The GUI's input ended.
    GuiClosed,
    /// Reading the GUI's input failed.
    GuiFailed(io::Error),
    /// A line from the wrapped engine.
    Engine(String),
    /// The wrapped engine's output ended.
    EngineClosed,
}

/// Reads the GUI's lines on a thread of their own, so that the loop also hears the engine and the clock.
fn read_gui_lines(mut input: impl BufRead + Send + 'static, events: Sender<Event>) {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            let event = match input.read_until(b'\n', &mut bytes) {
                Ok(0) => Event::GuiClosed,
                Ok(_) => match std::str::from_utf8(&bytes) {
                    Ok(line) => Event::Gui(line.trim_end_matches(['\n', '\r']).to_owned()),
                    Err(_) => Event::GuiNotUtf8,
                },
                Err(error) => Event::GuiFailed(error),
            };
            let last = matches!(event, Event::GuiClosed | Event::GuiFailed(_));
            if events.send(event).is_err() || last {
                return;
            }
        }
    });
}
