//! Shared helpers for the end-to-end tests: where the kairos binary, the default network and the reference
//! data are, a way to run the binary with a time limit, and a UCI session with it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use engine::uci::child::UciChild;

pub mod fuzz_targets;

/// How long a UCI session's engine may take to exit after `quit` before it is killed.
const QUIT_WAIT: Duration = Duration::from_secs(10);

/// The workspace root, so tests find `reference/` and `weights/` wherever cargo runs them from.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A file under `reference/`, read as text.
pub fn reference_text(name: &str) -> String {
    let path = workspace_root().join("reference").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

/// The default network; the test fails with the way out when it is missing.
pub fn default_weights() -> PathBuf {
    let path = workspace_root().join("weights/maia-1900.pb.gz");
    assert!(path.is_file(), "{} is missing: run scripts/setup (or make test) first", path.display());
    path
}

/// The kairos binary cargo built beside this test executable (`cargo test --workspace` builds it).
pub fn kairos_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>/deps");
    let binary = profile_dir.join("kairos");
    assert!(binary.is_file(), "{} not built: run the tests with `cargo test --workspace`", binary.display());
    binary
}

/// Debian's Stockfish, the opponent and reference engine of several tests (scripts/setup installs it).
pub fn stockfish_binary() -> &'static str {
    const STOCKFISH: &str = "/usr/games/stockfish";
    assert!(
        Path::new(STOCKFISH).exists(),
        "{STOCKFISH} is missing: run scripts/setup (make test does), which installs Debian's stockfish"
    );
    STOCKFISH
}

/// What a finished run of the binary printed.
#[derive(Debug)]
pub struct Output {
    /// The exit code (None when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs kairos with `args` in `dir`, killing it and failing the test after `limit`.
pub fn run_kairos(args: &[&str], dir: &Path, limit: Duration) -> Output {
    run_kairos_with_env(args, &[], dir, limit)
}

/// [`run_kairos`] with these environment variables set for the binary (and the engines it starts).
pub fn run_kairos_with_env(args: &[&str], env: &[(&str, &str)], dir: &Path, limit: Duration) -> Output {
    let mut child = Command::new(kairos_binary())
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kairos");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for kairos") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kairos {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        code: status.code(),
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}

/// A kairos process in UCI mode, driven line by line like a GUI drives it.
pub struct UciSession {
    child: UciChild,
    lines: std::sync::mpsc::Receiver<String>,
}

impl UciSession {
    /// Starts `kairos args…` in the workspace root.
    pub fn start(args: &[&str]) -> Self {
        Self::start_with_env(args, &[])
    }

    /// Starts `kairos args…` in the workspace root with these environment variables set.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(kairos_binary());
        command.args(args).envs(env.iter().copied()).current_dir(workspace_root()).stderr(Stdio::null());
        let (child, lines) = UciChild::spawn_with_lines(&mut command).expect("start kairos");
        Self { child, lines }
    }

    /// Sends one command line.
    pub fn send(&mut self, line: &str) {
        self.child.send(line).expect("write to kairos");
    }

    /// Every line up to and including the first that starts with `prefix`; fails the test after `limit`.
    pub fn read_until(&mut self, prefix: &str, limit: Duration) -> Vec<String> {
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no line starting with {prefix:?} within {limit:?}; got {seen:?}"),
            }
        }
    }
}

impl Drop for UciSession {
    fn drop(&mut self) {
        self.child.quit(QUIT_WAIT);
    }
}
