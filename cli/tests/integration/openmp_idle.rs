//! libtorch's OpenMP threads once a search is over, through the real binary with an attention-body network (its
//! passes on two OpenMP threads): none spins on a core while the other engine of a match is to move, unless the
//! user asks libgomp to, and the engines Kairos starts get the user's environment.
#![cfg(target_os = "linux")]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// The wait settings of libgomp a user may choose, and the mark of the process Kairos restarted with its own.
const WAIT_VARIABLES: [&str; 3] = ["OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KAIROS_OPENMP_WAIT_SET"];

/// Longest wait for an expected line; only a hang exceeds it.
const HANG_TIMEOUT: Duration = Duration::from_secs(120);

/// How long the engine is watched after each `bestmove`.
const IDLE_WINDOW: Duration = Duration::from_millis(500);

/// A small random-weight transformer (embedding 32, 2 layers, smolgen) from `make_test_nets`.
fn attention_network() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reference/nets/transformer-pe-map-smolgen.pb.gz")
}

/// A `kairos` UCI process and its output lines.
struct Engine {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts the binary on the attention network with two OpenMP threads (whatever the cores), the wait
    /// variables set as `environment` says and otherwise absent.
    fn start(environment: &[(&str, &str)]) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kairos"));
        command.arg(format!("--weights={}", attention_network().display())).arg("--backend-threads=2");
        for variable in WAIT_VARIABLES {
            command.env_remove(variable);
        }
        command.envs(environment.iter().copied());
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("kairos starts");
        let input = child.stdin.take().expect("piped input");
        let output = BufReader::new(child.stdout.take().expect("piped output"));
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in output.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine { child, input, lines };
        engine.send("uci");
        engine.wait_for("uciok");
        engine.send("isready");
        engine.wait_for("readyok");
        engine
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").expect("the engine reads its input");
    }

    fn wait_for(&mut self, prefix: &str) {
        let deadline = Instant::now() + HANG_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return,
                Ok(_) => {}
                Err(why) => panic!("no '{prefix}' line from the engine: {why}"),
            }
        }
    }

    /// Searches `go nodes` to its end, then returns the CPU time all the process's threads take in the next
    /// [`IDLE_WINDOW`]. The window opens at the `readyok` after `wait` (lc0's command), which joins the search's
    /// threads: the batches still in flight at `bestmove` are computed by then, and only a spinning thread runs.
    fn cpu_while_idle_after_search(&mut self, nodes: u32) -> Duration {
        self.send("position startpos moves e2e4");
        self.send(&format!("go nodes {nodes}"));
        self.wait_for("bestmove");
        self.send("wait");
        self.send("isready");
        self.wait_for("readyok");
        let before = self.cpu_by_thread();
        std::thread::sleep(IDLE_WINDOW);
        let after = self.cpu_by_thread();
        let nanoseconds =
            after.iter().map(|(thread, &ns)| ns.saturating_sub(before.get(thread).copied().unwrap_or(0))).sum();
        Duration::from_nanos(nanoseconds)
    }

    /// Each thread's time on a CPU so far, in ns (the first field of the kernel's `schedstat`, finer than the
    /// 10 ms ticks of `stat`).
    fn cpu_by_thread(&self) -> HashMap<String, u64> {
        let tasks = format!("/proc/{}/task", self.child.id());
        std::fs::read_dir(&tasks)
            .unwrap_or_else(|why| panic!("{tasks}: {why}"))
            .filter_map(|task| {
                let task = task.ok()?;
                // A thread that ends meanwhile has no schedstat left to read.
                let schedstat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
                let ns = schedstat.split_whitespace().next()?.parse().ok()?;
                Some((task.file_name().to_string_lossy().into_owned(), ns))
            })
            .collect()
    }

    /// The wait variables in the environment the running process started with (after Kairos's own restart).
    fn wait_environment(&self) -> Vec<String> {
        let environ = std::fs::read(format!("/proc/{}/environ", self.child.id())).expect("/proc/PID/environ");
        environ
            .split(|&byte| byte == 0)
            .map(|entry| String::from_utf8_lossy(entry).into_owned())
            .filter(|entry| WAIT_VARIABLES.iter().any(|variable| entry.starts_with(&format!("{variable}="))))
            .collect()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// At libgomp's own default (300,000 polls) the worker spins after the last pass of every search, 2–10 ms of a
/// core on a 2-core AMD EPYC (2026-12-07) in most windows; with Kairos's setting (1,000 polls) it sleeps within
/// tens of µs, and the process takes no measurable CPU once the search is over.
#[test]
fn no_thread_takes_a_core_once_the_search_is_over() {
    let mut engine = Engine::start(&[]);
    let windows: Vec<Duration> = (0..6).map(|_| engine.cpu_while_idle_after_search(100)).collect();
    let total: Duration = windows.iter().sum();
    assert!(
        total < Duration::from_millis(1),
        "{windows:?} of CPU in windows of {IDLE_WINDOW:?} after the search: OpenMP's threads spin (the process \
         started with {:?})",
        engine.wait_environment()
    );
}

/// A user's own setting stays as it is (no restart, nothing added), and libgomp follows it: a policy that spins
/// keeps a core busy after the move, which also shows that the measurement above sees a spinning thread.
#[test]
fn a_users_own_wait_setting_is_kept_and_followed() {
    for (variable, spinning) in [("OMP_WAIT_POLICY", "ACTIVE"), ("GOMP_SPINCOUNT", "INFINITE")] {
        let mut engine = Engine::start(&[(variable, spinning)]);
        assert_eq!(engine.wait_environment(), [format!("{variable}={spinning}")], "the user's environment, alone");
        let cpu = engine.cpu_while_idle_after_search(100);
        assert!(cpu > IDLE_WINDOW / 10, "{variable}={spinning}: only {cpu:?} of CPU in {IDLE_WINDOW:?} of idle");
    }
}

/// The engine `kairos tm-proxy` starts inherits the user's environment, without Kairos's setting: an opponent's
/// OpenMP runs as its user runs it.
#[test]
fn the_engines_kairos_starts_get_the_users_environment() {
    let directory = std::env::temp_dir().join(format!("kairos-openmp-environment-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let written = directory.join("environment");
    let _ = std::fs::remove_file(&written);
    // The wrapped "engine" writes its environment, then waits for the proxy's input to end.
    let script = "env > \"$0.partial\" && mv \"$0.partial\" \"$0\" && cat > /dev/null";
    let mut command = Command::new(env!("CARGO_BIN_EXE_kairos"));
    for variable in WAIT_VARIABLES {
        command.env_remove(variable);
    }
    let mut proxy = command
        .args(["tm-proxy", "--", "sh", "-c", script])
        .arg(&written)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("kairos starts");
    let deadline = Instant::now() + HANG_TIMEOUT;
    while !written.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(proxy.stdin.take());
    let _ = proxy.kill();
    let _ = proxy.wait();
    let environment = std::fs::read_to_string(&written).expect("the wrapped engine wrote its environment");
    std::fs::remove_dir_all(&directory).unwrap();
    let set: Vec<&str> = environment
        .lines()
        .filter(|line| WAIT_VARIABLES.iter().any(|variable| line.starts_with(&format!("{variable}="))))
        .collect();
    assert!(set.is_empty(), "the wrapped engine got {set:?}");
    assert!(environment.lines().any(|line| line.starts_with("PATH=")), "the rest of the environment is handed on");
}

/// Started by running the dynamic loader itself, where `/proc/self/exe` names the loader, the binary runs as given
/// (a restart there would hand its arguments to the loader) and says that OpenMP's threads will spin.
#[cfg(all(target_arch = "x86_64", target_env = "gnu"))]
#[test]
fn started_through_the_dynamic_loader_it_runs_as_given() {
    let mut command = Command::new("/lib64/ld-linux-x86-64.so.2");
    for variable in WAIT_VARIABLES {
        command.env_remove(variable);
    }
    let output = command.arg(env!("CARGO_BIN_EXE_kairos")).arg("--version").output().expect("the loader runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success() && stdout.starts_with("kairos "), "{stdout}{stderr}");
    assert!(stderr.contains("not restarted with GOMP_SPINCOUNT=1000 (started through the dynamic loader)"), "{stderr}");
}
