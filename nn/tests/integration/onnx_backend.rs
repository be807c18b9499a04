//! The ONNX Runtime backend (`Backend=onnx`) through the batch API on ONNX Runtime's CPU provider, against lc0's own
//! numbers: Maia-1900 (reference/maia1900-reference.json) with Q and the priors within 1e-5, as the torch backend is
//! held (maia_reference.rs), and the random-weight transformer with smolgen and a moves-left head
//! (reference/lc0-test-nets.json, lc0 909a4082's blas backend) with Q, D, moves left and the priors within 1e-4, the
//! tolerance of lc0_test_nets.rs. And where the library is looked for, and the error when it is nowhere.

use std::path::{Path, PathBuf};

use nn::encoder::{encode_position, BoardTransform, HistoryFill};
use nn::onnx::DataType;
use nn::onnx_backend::{find_library, tensorrt_engine_cached, tensorrt_prefix, OnnxError};
use nn::policy_map::{move_policy_index, TransposedMoves};
use nn::softmax::policy_softmax;
use nn::{game_history, BackendKind, BackendOptions, DeviceChoice, EvalRequest, Evaluation, Precision};
use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move, Position};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The onnx backend on the CPU in fp32, as lc0's blas backend ran, with lc0's softmax at `temperature`.
fn options(weights: PathBuf, temperature: f32) -> BackendOptions {
    BackendOptions {
        weights,
        kind: BackendKind::Onnx,
        devices: vec![DeviceChoice::Cpu],
        precision: Precision::Fp32,
        cpu_threads: Some(1),
        rust_batch_limit: None,
        cuda_graphs: false,
        cudnn_benchmark: false,
        fused_convolutions: false,
        cpu_backends: 1,
        policy_temperature: temperature,
        exact_softmax: false,
        cache_size: 0,
        transposed_moves: TransposedMoves::AsPlanes,
        history_fill: HistoryFill::FenOnly,
        test_backend_delay: std::time::Duration::ZERO,
        largest_batch: 0,
        record_file: None,
    }
}

/// Evaluates every request in one batch through the backend the options open.
fn evaluate(options: &BackendOptions, requests: &[(Vec<nn::HistoryEntry>, Vec<Move>)]) -> Vec<Evaluation> {
    let (backend, description) = nn::open_backend_described(options).unwrap_or_else(|e| panic!("{e}"));
    assert!(description.starts_with("onnx, CPU provider"), "{description}");
    let mut computation = backend.new_computation();
    for (history, moves) in requests {
        computation.add(&EvalRequest { history, moves }).expect("queued");
    }
    computation.compute().expect("the batch evaluates")
}

fn close(ours: f32, theirs: f32, tolerance: f32, what: &str) {
    assert!((ours - theirs).abs() <= tolerance, "{what}: {ours} against lc0's {theirs}");
}

#[test]
fn maia_evaluations_match_lc0() {
    let path = Path::new(ROOT).join("reference/maia1900-reference.json");
    let root: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("vendored")).expect("JSON");
    let cases: Vec<(String, Value)> =
        root["positions"].as_object().expect("positions").iter().map(|(n, v)| (n.clone(), v.clone())).collect();
    let requests: Vec<_> = cases
        .iter()
        .map(|(_, json)| {
            let moves: Vec<String> =
                json["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().into()).collect();
            let history = game_history(json["fen"].as_str().unwrap(), &moves).expect("legal");
            let legal: Vec<Move> = history.last().unwrap().position.legal_moves().into_iter().collect();
            (history, legal)
        })
        .collect();
    let temperature = 1.359;
    let weights = Path::new(ROOT).join("weights/maia-1900.pb.gz");
    let evaluations = evaluate(&options(weights, temperature), &requests);
    for ((name, json), ((history, moves), evaluation)) in cases.iter().zip(requests.iter().zip(&evaluations)) {
        let turn = history.last().unwrap().position.turn();
        let logits = json["logits_1858"].as_array().unwrap();
        let reference: Vec<f32> = moves
            .iter()
            .map(|m| {
                let index = move_policy_index(m, turn, BoardTransform::IDENTITY, TransposedMoves::AsPlanes).unwrap();
                logits[index].as_f64().unwrap() as f32
            })
            .collect();
        let expected = policy_softmax(&reference, temperature);
        assert_eq!(evaluation.policy.len(), expected.len(), "{name}");
        for (m, (&ours, &theirs)) in moves.iter().zip(evaluation.policy.iter().zip(&expected)) {
            close(ours, theirs, 1e-5, &format!("{name}: prior of {}", m.to_uci(CastlingMode::Standard)));
        }
        close(evaluation.wl, json["q"].as_f64().unwrap() as f32, 1e-5, &format!("{name}: Q"));
        let wdl = json["wdl"].as_array().unwrap();
        close(evaluation.d, wdl[1].as_f64().unwrap() as f32, 1e-5, &format!("{name}: D"));
        assert_eq!(evaluation.m, 0.0, "{name}: Maia has no moves-left head");
    }
}

#[test]
fn transformer_evaluations_match_lc0() {
    let net = "transformer-pe-map-smolgen";
    let path = Path::new(ROOT).join("reference/lc0-test-nets.json");
    let root: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("vendored")).expect("JSON");
    let positions = root["nets"][net].as_array().expect("the net's positions").clone();
    let requests: Vec<_> = positions
        .iter()
        .map(|position| {
            let moves: Vec<String> =
                position["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().into()).collect();
            let history = game_history(position["fen"].as_str().unwrap(), &moves).expect("legal");
            let board = &history.last().unwrap().position;
            // lc0's legal moves, in the order of its logits, castling as the king takes its rook.
            let legal: Vec<Move> = position["legal_moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().parse::<UciMove>().unwrap().to_move(board).expect("legal"))
                .collect();
            (history, legal)
        })
        .collect();
    let temperature = 1.0;
    let weights = Path::new(ROOT).join(format!("reference/nets/{net}.pb.gz"));
    let evaluations = evaluate(&options(weights, temperature), &requests);
    assert_eq!(evaluations.len(), positions.len());
    let network = nn::load_network(&Path::new(ROOT).join(format!("reference/nets/{net}.pb.gz"))).expect("the net");
    let mut priors_compared = 0;
    for ((position, (history, moves)), evaluation) in positions.iter().zip(&requests).zip(&evaluations) {
        let name = format!("{net}, {}", position["name"]);
        // lc0's recording pairs its legal moves with their untransformed policy indices, which are the network's
        // only where the canonical format leaves the board as it is; Q, D and moves left hold everywhere.
        let encoded = encode_position(history, network.input_format, HistoryFill::FenOnly).expect("a history");
        if encoded.transform == BoardTransform::IDENTITY {
            let recorded = position["policy_at_legal_indices"].as_array().unwrap();
            let turn = history.last().unwrap().position.turn();
            for (m, entry) in moves.iter().zip(recorded) {
                let index = move_policy_index(m, turn, BoardTransform::IDENTITY, TransposedMoves::AsPlanes);
                assert_eq!(index, Some(entry[0].as_u64().unwrap() as usize), "{name}: the recorded moves' order");
            }
            let logits: Vec<f32> = recorded.iter().map(|entry| entry[1].as_f64().unwrap() as f32).collect();
            let expected = policy_softmax(&logits, temperature);
            assert_eq!(evaluation.policy.len(), expected.len(), "{name}");
            for (i, (&ours, &theirs)) in evaluation.policy.iter().zip(&expected).enumerate() {
                close(ours, theirs, 1e-4, &format!("{name}: prior {i}"));
            }
            priors_compared += 1;
        }
        close(evaluation.wl, position["q"].as_f64().unwrap() as f32, 1e-4, &format!("{name}: Q"));
        close(evaluation.d, position["d"].as_f64().unwrap() as f32, 1e-4, &format!("{name}: D"));
        close(evaluation.m, position["m"].as_f64().unwrap() as f32, 1e-4, &format!("{name}: moves left"));
    }
    assert!(priors_compared >= 12, "priors compared on only {priors_compared} positions");
}

/// A fresh empty folder under the target directory.
fn empty_folder(name: &str) -> PathBuf {
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("onnx-library-{name}"));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder under the target directory");
    folder
}

#[test]
fn the_library_is_taken_from_ort_dylib_path_then_beside_the_binary_then_its_lib_then_the_checkout() {
    let exe_dir = empty_folder("exe");
    let checkout = empty_folder("checkout");
    let capi = checkout.join(".onnxruntime/onnxruntime/capi");
    std::fs::create_dir_all(&capi).unwrap();
    // A provider's library is not ONNX Runtime's own.
    std::fs::write(capi.join("libonnxruntime_providers_shared.so"), b"").unwrap();
    std::fs::write(capi.join("libonnxruntime.so.1.31.1"), b"").unwrap();
    let found = |env: Option<&Path>| find_library(env.map(|p| p.as_os_str().to_owned()), Some(&exe_dir), &checkout);
    assert_eq!(found(None).unwrap(), capi.join("libonnxruntime.so.1.31.1"));
    std::fs::create_dir_all(exe_dir.join("lib")).unwrap();
    std::fs::write(exe_dir.join("lib/libonnxruntime.so.1.30.0"), b"").unwrap();
    assert_eq!(found(None).unwrap(), exe_dir.join("lib/libonnxruntime.so.1.30.0"));
    std::fs::write(exe_dir.join("libonnxruntime.so"), b"").unwrap();
    assert_eq!(found(None).unwrap(), exe_dir.join("libonnxruntime.so"));
    let named = checkout.join("elsewhere.so");
    std::fs::write(&named, b"").unwrap();
    assert_eq!(found(Some(&named)).unwrap(), named);
}

#[test]
fn a_missing_library_is_an_error_naming_every_place_tried_and_the_way_out() {
    let exe_dir = empty_folder("missing-exe");
    let checkout = empty_folder("missing-checkout");
    let error = find_library(None, Some(&exe_dir), &checkout).unwrap_err();
    assert!(matches!(error, OnnxError::LibraryNotFound { .. }), "{error:?}");
    let message = error.to_string();
    for place in [
        "ORT_DYLIB_PATH (not set)".to_owned(),
        format!("{}/libonnxruntime.so*", exe_dir.display()),
        format!("{}/lib/libonnxruntime.so*", exe_dir.display()),
        format!("{}/.onnxruntime/onnxruntime/capi/libonnxruntime.so*", checkout.display()),
    ] {
        assert!(message.contains(&place), "{place} missing from: {message}");
    }
    for way_out in ["pip install onnxruntime", "onnxruntime-gpu", "tensorrt-cu13", "ORT_DYLIB_PATH"] {
        assert!(message.contains(way_out), "{way_out} missing from: {message}");
    }
    // A path in ORT_DYLIB_PATH that is no file is the error, even where another library could be found.
    std::fs::create_dir_all(exe_dir.join("lib")).unwrap();
    std::fs::write(exe_dir.join("lib/libonnxruntime.so.1.31.1"), b"").unwrap();
    let missing = checkout.join("no-such-libonnxruntime.so");
    let error = find_library(Some(missing.clone().into_os_string()), Some(&exe_dir), &checkout).unwrap_err();
    let message = error.to_string();
    assert!(message.contains(&format!("ORT_DYLIB_PATH={} (no such file)", missing.display())), "{message}");
    assert!(message.contains("pip install onnxruntime"), "{message}");
}

/// TensorRT's cached engines are named by FNV-1a of the network file (the published 64-bit value of "a") and the
/// precision, and an engine counts as cached once a file of that prefix is in the folder.
#[test]
fn a_cached_engine_is_found_by_the_networks_hash_and_precision() {
    assert_eq!(tensorrt_prefix(b"a", DataType::F16), "kairos_af63dc4c8601ec8c_fp16");
    assert_eq!(tensorrt_prefix(b"", DataType::F32), "kairos_cbf29ce484222325_fp32");
    let folder = empty_folder("engine-cache");
    let prefix = tensorrt_prefix(b"a", DataType::F16);
    assert!(!tensorrt_engine_cached(&folder, &prefix));
    std::fs::write(folder.join(format!("{}_fp32.engine", tensorrt_prefix(b"a", DataType::F32))), b"").unwrap();
    assert!(!tensorrt_engine_cached(&folder, &prefix), "another precision's engine");
    std::fs::write(folder.join(format!("{prefix}_trt_sm90.engine")), b"").unwrap();
    assert!(tensorrt_engine_cached(&folder, &prefix));
}
