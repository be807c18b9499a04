//! `evaluate_position` for `kairos eval`: JSON shape, UCI castling, temperature 1 by default, and
//! typed errors for bad FENs and illegal moves.

use std::path::PathBuf;

use nn::encoder::HistoryFill;
use nn::policy_map::TransposedMoves;
use nn::{evaluate_position, BackendKind, BackendOptions, DeviceChoice, NnError, Precision};

fn options(kind: BackendKind) -> BackendOptions {
    BackendOptions {
        weights: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/maia-1900.pb.gz")),
        kind,
        devices: vec![DeviceChoice::Cpu],
        precision: Precision::Fp32,
        cpu_threads: Some(0),
        rust_batch_limit: None,
        cuda_graphs: true,
        cudnn_benchmark: false,
        fused_convolutions: true,
        cpu_backends: 1,
        policy_temperature: 1.359,
        exact_softmax: false,
        cache_size: 0,
        transposed_moves: TransposedMoves::AsPlanes,
        history_fill: HistoryFill::FenOnly,
        test_backend_delay: std::time::Duration::ZERO,
        largest_batch: 0,
        record_file: None,
    }
}

#[test]
fn exact_softmax_gives_the_networks_own_distribution() {
    // lc0's raw Maia-1900 policy at T = 1 with the exact exponential (maia1900-reference.json):
    // e2e4 0.5638789591639835, d2d4 0.28911270326442906; FastExp would give 0.5640 for e2e4.
    let exact = BackendOptions { exact_softmax: true, ..options(BackendKind::Torch) };
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let report = evaluate_position(&exact, start, &[], None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.policy[0].0, "e2e4");
    assert!((report.policy[0].1 - 0.563_878_96).abs() < 1e-5, "{}", report.policy[0].1);
    assert_eq!(report.policy[1].0, "d2d4");
    assert!((report.policy[1].1 - 0.289_112_7).abs() < 1e-5, "{}", report.policy[1].1);
}

#[test]
fn maia_report_matches_lc0_at_temperature_one() {
    let report = evaluate_position(
        &options(BackendKind::Torch),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[],
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.policy[0].0, "e2e4");
    assert!((report.policy[0].1 - 0.5640).abs() < 1e-4, "lc0 shows 56.40 % with FastExp at T = 1");
    assert!((report.wdl[0] - 0.489532).abs() < 1e-5 && (report.wdl[2] - 0.455800).abs() < 1e-5);
    assert!((report.q - 0.033732).abs() < 1e-5);
    assert_eq!(report.m, None);
    let json: serde_json::Value = serde_json::to_value(&report).unwrap();
    assert!(json["m"].is_null());
    assert_eq!(json["wdl"].as_array().unwrap().len(), 3);
    assert_eq!(json["policy"].as_object().unwrap().len(), 20);
    let hotter = evaluate_position(
        &options(BackendKind::Torch),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[],
        Some(1.359),
    )
    .unwrap();
    assert!((hotter.policy[0].1 - 0.4424).abs() < 1e-4, "lc0 shows 44.24 % at T = 1.359");
}

#[test]
fn castling_is_reported_in_standard_uci() {
    let report =
        evaluate_position(&options(BackendKind::Uniform), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", &[], None).unwrap();
    assert!(report.policy.iter().any(|(m, _)| m == "e1g1") && report.policy.iter().any(|(m, _)| m == "e1c1"));
    assert!(!report.policy.iter().any(|(m, _)| m == "e1h1"));
}

#[test]
fn bad_input_gives_typed_errors() {
    let uniform = options(BackendKind::Uniform);
    assert!(matches!(evaluate_position(&uniform, "not a fen", &[], None), Err(NnError::InvalidFen { .. })));
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let illegal = evaluate_position(&uniform, start, &["e2e4".into(), "e2e4".into()], None).unwrap_err();
    assert!(matches!(illegal, NnError::InvalidMove { number: 2, .. }), "{illegal}");
    let garbage = evaluate_position(&uniform, start, &["zz".into()], None).unwrap_err();
    assert!(matches!(garbage, NnError::InvalidMove { number: 1, .. }));
    let missing = BackendOptions { weights: PathBuf::from("/no/such/net.pb.gz"), ..options(BackendKind::Torch) };
    let error = evaluate_position(&missing, start, &[], None).unwrap_err();
    assert!(error.to_string().contains("scripts/setup"), "{error}");
}

#[test]
fn options_parse_with_typed_errors() {
    assert_eq!("cuda:1".parse::<DeviceChoice>().unwrap(), DeviceChoice::Cuda(1));
    assert_eq!("cpu".parse::<DeviceChoice>().unwrap(), DeviceChoice::Cpu);
    assert!(matches!("gpu".parse::<DeviceChoice>(), Err(NnError::InvalidOption { option: "device", .. })));
    assert_eq!(nn::parse_devices("cuda:0, cuda:1").unwrap(), vec![DeviceChoice::Cuda(0), DeviceChoice::Cuda(1)]);
    assert_eq!(nn::parse_devices("cpu").unwrap(), vec![DeviceChoice::Cpu]);
    for bad in ["", "cpu,", "cpu,gpu"] {
        assert!(matches!(nn::parse_devices(bad), Err(NnError::InvalidOption { option: "device", .. })), "{bad:?}");
    }
    assert_eq!("bf16".parse::<Precision>().unwrap(), Precision::Bf16);
    assert!("fp8".parse::<Precision>().is_err());
    assert_eq!("random".parse::<BackendKind>().unwrap(), BackendKind::Random);
    assert!("blas".parse::<BackendKind>().is_err());
    let bad_temperature = BackendOptions { policy_temperature: 0.0, ..options(BackendKind::Uniform) };
    assert!(matches!(nn::open_backend(&bad_temperature), Err(NnError::InvalidOption { .. })));
    let fp16_on_cpu = BackendOptions { precision: Precision::Fp16, ..options(BackendKind::Torch) };
    assert!(matches!(nn::open_backend(&fp16_on_cpu), Err(NnError::InvalidOption { option: "precision", .. })));
}

#[test]
fn backend_bench_reports_every_size() {
    let backend = nn::open_backend(&options(BackendKind::Uniform)).unwrap();
    let rows = nn::backend_bench(backend.as_ref(), &[1, 4], 3).unwrap();
    assert_eq!(rows.iter().map(|r| r.batch_size).collect::<Vec<_>>(), [1, 4]);
    assert!(rows.iter().all(|r| r.mean_nps > 0.0 && r.max_nps >= r.median_nps && r.median_nps >= r.min_nps));
}

#[test]
fn missing_cuda_devices_fall_back_to_the_cpu() {
    nn::load_cuda_runtime();
    let count = if tch::Cuda::is_available() { tch::Cuda::device_count() as usize } else { 0 };
    let placement = nn::options::resolve_device(DeviceChoice::Cuda(count), Precision::Fp32).unwrap();
    assert_eq!((placement.device, placement.kind), (tch::Device::Cpu, tch::Kind::Float));
    let placement = nn::options::resolve_device(DeviceChoice::Cpu, Precision::Bf16).unwrap();
    assert_eq!((placement.device, placement.kind), (tch::Device::Cpu, tch::Kind::BFloat16));
    assert_eq!(placement.describe(), "cpu, bf16 (Precision set explicitly)");
}

/// `auto` without a GPU, and a lone `cpu` anywhere, open `cpu_backends` CPU backends taking batches in turn (a
/// lone `cpu` opened one on a 16-core GPU machine, which kept one core busy); a list opens one backend an entry.
#[test]
fn auto_and_cpu_open_one_cpu_backend_for_each_that_is_asked_for_and_a_list_one_an_entry() {
    nn::load_cuda_runtime();
    let cpu = "cpu, fp32 (Precision set explicitly)";
    let auto = BackendOptions { devices: vec![DeviceChoice::Auto], cpu_backends: 3, ..options(BackendKind::Torch) };
    let expected = if tch::Cuda::is_available() {
        "torch on cuda:0, fp32 (Precision set explicitly)".to_owned()
    } else {
        format!("round robin of 3 torch backends, each on {cpu}")
    };
    let (opened, description) = nn::open_backend_described(&auto).unwrap();
    assert_eq!(description, expected);
    let explicit = BackendOptions { devices: vec![DeviceChoice::Cpu], ..auto.clone() };
    let described = |options: &BackendOptions| nn::open_backend_described(options).unwrap().1;
    assert_eq!(described(&explicit), format!("round robin of 3 torch backends, each on {cpu}"));
    let listed = BackendOptions { devices: vec![DeviceChoice::Cpu, DeviceChoice::Cpu], ..auto.clone() };
    assert_eq!(described(&listed), format!("round robin of 2 torch backends, each on {cpu}"));
    let threads = if tch::Cuda::is_available() { 1 } else { 3 };
    assert_eq!(opened.attributes().suggested_threads, threads, "one search thread a backend");
    let prefetch = if tch::Cuda::is_available() { 32 } else { 0 };
    assert_eq!(opened.attributes().recommended_prefetch, prefetch, "lc0's prefetch on CUDA, none on a CPU");
}

/// `Precision=auto` on the CPU starts from bf16 exactly where the kernel lists a native bf16 instruction set in
/// /proc/cpuinfo (read here independently of the CPUID detection under test), to be timed against fp32 when the
/// backends are built; fp32 elsewhere, untimed.
#[test]
fn auto_precision_on_the_cpu_is_timed_where_the_cpu_has_bf16_natively() {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("Linux /proc/cpuinfo");
    let flags: Vec<&str> =
        cpuinfo.lines().find(|line| line.starts_with("flags")).expect("a flags line").split_whitespace().collect();
    let placement = nn::options::resolve_device(DeviceChoice::Cpu, Precision::Auto).unwrap();
    let description = placement.describe();
    if flags.contains(&"avx512_bf16") {
        assert_eq!(placement.kind, tch::Kind::BFloat16, "{description}");
        let feature = if flags.contains(&"amx_bf16") { "AMX-BF16" } else { "AVX512-BF16" };
        assert_eq!(
            description,
            format!(
                "cpu, bf16 (Precision=auto: this CPU has native bf16 ({feature}), to be timed against fp32 at load)"
            )
        );
    } else {
        assert_eq!(placement.kind, tch::Kind::Float, "{description}");
        assert_eq!(description, "cpu, fp32 (Precision=auto: this CPU has no native bf16 (AMX-BF16 or AVX512-BF16))");
    }
}

/// With `cpu_threads` left to the network (`BackendThreads=-1`, the default), a residual tower opens a CPU backend
/// a core, one thread each (its batches run in plain Rust on the caller's thread), and an attention body one
/// backend whose libtorch passes take those cores (measured 1.31–1.40 times as fast for a transformer without bf16).
#[test]
fn by_network_a_tower_opens_a_backend_a_core_and_an_attention_body_one_on_every_core() {
    let tower = BackendOptions { cpu_threads: None, cpu_backends: 2, ..options(BackendKind::Torch) };
    let (opened, description) = nn::open_backend_described(&tower).unwrap();
    assert_eq!(description, "round robin of 2 torch backends, each on cpu, fp32 (Precision set explicitly)");
    assert_eq!(opened.attributes().suggested_threads, 2, "a search thread a backend");
    let weights =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../reference/nets/transformer-pe-map-smolgen.pb.gz"));
    let attention = BackendOptions { weights, ..tower };
    let (opened, description) = nn::open_backend_described(&attention).unwrap();
    assert_eq!(description, "torch on cpu, fp32 (Precision set explicitly); each CPU pass on 2 threads");
    assert_eq!(opened.attributes().suggested_threads, 1, "one search thread for the one backend");
    let one_core = BackendOptions { cpu_backends: 1, ..attention.clone() };
    assert_eq!(nn::open_backend_described(&one_core).unwrap().1, "torch on cpu, fp32 (Precision set explicitly)");
    let given = BackendOptions { cpu_threads: Some(1), ..attention };
    assert_eq!(
        nn::open_backend_described(&given).unwrap().1,
        "round robin of 2 torch backends, each on cpu, fp32 (Precision set explicitly)",
        "BackendThreads=1 keeps a backend a core for any body"
    );
}
