//! `Precision=auto` on the CPU through the real binary: on a CPU with native bf16 the engine times bf16 against
//! fp32 when the network loads and names its choice with both timings at `isready`, in `bench` and in
//! `backendbench`; an explicit precision is named as set and is not timed; a CPU without native bf16 runs fp32,
//! untimed. The CPU's flags are read from /proc/cpuinfo, independently of the engine's CPUID detection.

use std::process::{Command, Output, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use engine::uci::child::UciChild;

/// Longest wait for any expected line; only a hang exceeds it.
const HANG_TIMEOUT: Duration = Duration::from_secs(120);

/// The CPU's native bf16 as the kernel lists it (`AMX-BF16`, `AVX512-BF16`), or None.
fn native_bf16() -> Option<&'static str> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("Linux /proc/cpuinfo");
    let flags: Vec<&str> =
        cpuinfo.lines().find(|line| line.starts_with("flags")).expect("a flags line").split_whitespace().collect();
    match (flags.contains(&"avx512_bf16"), flags.contains(&"amx_bf16")) {
        (false, _) => None,
        (true, true) => Some("AMX-BF16"),
        (true, false) => Some("AVX512-BF16"),
    }
}

/// The `info string Backend: …` line of a UCI session's first `isready`, which loads the network.
fn backend_at_isready(flags: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kairos"));
    command.args(flags).stderr(Stdio::null());
    let (mut child, lines): (UciChild, Receiver<String>) =
        UciChild::spawn_with_lines(&mut command).expect("kairos starts");
    child.send("isready").expect("the engine reads its input");
    let mut read = Vec::new();
    loop {
        let line = lines.recv_timeout(HANG_TIMEOUT).unwrap_or_else(|_| panic!("no readyok; read {read:?}"));
        if line == "readyok" {
            break;
        }
        read.push(line);
    }
    child.send("quit").expect("the engine reads its input");
    read.into_iter()
        .find_map(|line| line.strip_prefix("info string ").map(str::to_owned))
        .unwrap_or_else(|| panic!("an info string at isready"))
}

/// The first line of `kairos ARGS`' standard output.
fn first_line(args: &[&str]) -> String {
    let Output { status, stdout, stderr } =
        Command::new(env!("CARGO_BIN_EXE_kairos")).args(args).output().expect("kairos runs");
    assert!(status.success(), "{}", String::from_utf8_lossy(&stderr));
    String::from_utf8_lossy(&stdout).lines().next().expect("a first line").to_owned()
}

/// The number in `text` after `before` and up to the next `after`.
fn number_between(text: &str, before: &str, after: &str) -> f64 {
    let start = text.find(before).unwrap_or_else(|| panic!("'{before}' in {text}")) + before.len();
    let end = start + text[start..].find(after).unwrap_or_else(|| panic!("'{after}' after '{before}' in {text}"));
    text[start..end].parse().unwrap_or_else(|_| panic!("a number after '{before}' in {text}"))
}

/// Checks a start-up report of `Precision=auto` on the CPU: the timed choice with both timings where the CPU has
/// native bf16, fp32 untimed elsewhere.
fn assert_auto_report(report: &str) {
    let Some(feature) = native_bf16() else {
        assert!(
            report.contains("cpu, fp32 (Precision=auto: this CPU has no native bf16 (AMX-BF16 or AVX512-BF16))"),
            "{report}"
        );
        assert!(!report.contains("timed"), "no timing without native bf16: {report}");
        return;
    };
    let timed = format!(
        "(Precision=auto, timed at load on this CPU with native bf16 ({feature}): a batch of 4 and one of 32 on "
    );
    assert!(report.contains(&timed), "{report}");
    let bf16_ms = number_between(report, " took bf16 ", " ms");
    let fp32_ms = number_between(report, " ms, fp32 ", " ms");
    let rounds = number_between(report, "(fastest of ", " rounds)");
    assert!(bf16_ms > 0.0 && fp32_ms > 0.0, "{report}");
    assert!((2.0..=20.0).contains(&rounds), "2 to 20 rounds: {report}");
    let chosen_bf16 = report.contains("cpu, bf16 (Precision=auto, timed");
    let chosen_fp32 = report.contains("cpu, fp32 (Precision=auto, timed");
    assert!(chosen_bf16 != chosen_fp32, "one precision chosen: {report}");
    // Margins wide enough for the report's rounding to 0.01 ms: bf16 no slower keeps bf16, bf16 more than 5 %
    // slower gives fp32 (the 3 % margin itself is held by the unit tests of nn's precision_timing).
    if bf16_ms <= fp32_ms {
        assert!(chosen_bf16 && report.ends_with("; bf16 the faster)"), "{report}");
    }
    if bf16_ms > fp32_ms * 1.05 {
        assert!(chosen_fp32 && report.ends_with("; fp32 more than 3 % faster)"), "{report}");
    }
}

#[test]
fn auto_on_the_cpu_reports_its_timed_choice_at_isready() {
    let report = backend_at_isready(&["--backend-device=cpu"]);
    assert!(report.starts_with("Backend: "), "{report}");
    assert_auto_report(&report);
}

#[test]
fn an_explicit_precision_is_named_as_set_and_not_timed() {
    for precision in ["fp32", "bf16"] {
        let report = backend_at_isready(&["--backend-device=cpu", &format!("--precision={precision}")]);
        assert!(report.contains(&format!("cpu, {precision} (Precision set explicitly)")), "{report}");
        assert!(!report.contains("timed"), "an explicit precision is not timed: {report}");
    }
}

#[test]
fn bench_and_backendbench_name_the_precision_auto_chose() {
    let bench = first_line(&["bench", "--backend-device=cpu", "--nodes=1"]);
    assert!(bench.starts_with("Backend: "), "{bench}");
    assert_auto_report(&bench);
    let backendbench = first_line(&["backendbench", "--device=cpu", "--batches=1", "--max-batch-size=1"]);
    assert!(backendbench.starts_with("Backend: "), "{backendbench}");
    assert_auto_report(&backendbench);
    let explicit =
        first_line(&["backendbench", "--device=cpu", "--precision=fp32", "--batches=1", "--max-batch-size=1"]);
    assert!(explicit.contains("cpu, fp32 (Precision set explicitly)") && !explicit.contains("timed"), "{explicit}");
}
