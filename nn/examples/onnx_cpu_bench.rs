//! Network evaluations per second of ONNX Runtime's CPU provider on a network exported by `kairos leela2onnx`
//! (fp32), timed as `kairos backendbench` times Kairos's own path: two warm-up batches at the largest size, then
//! per size one untimed batch and `--batches` timed ones of the start position, each batch's planes expanded into
//! the input tensor and its outputs read back as part of the time. ONNX Runtime is the library scripts/setup
//! installs into .onnxruntime/.
//!
//! `cargo run --release -p nn --example onnx_cpu_bench -- --weights NET.pb.gz --threads 1 --batch-sizes 1,8,32`

use std::path::{Path, PathBuf};
use std::time::Instant;

use nn::encoder::{encode_position, HistoryFill, InputPlanes, PLANES};
use nn::onnx::{network_to_onnx_bytes, DataType, INPUT_PLANES};
use nn::{load_network, HistoryEntry};
use ort::session::Session;
use ort::value::Tensor;
use shakmaty::Chess;

struct Args {
    weights: PathBuf,
    threads: usize,
    batch_sizes: Vec<usize>,
    batches: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        weights: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/maia-1900.pb.gz")),
        threads: 1,
        batch_sizes: vec![1, 8, 32, 64, 256],
        batches: 20,
    };
    let words: Vec<String> = std::env::args().skip(1).collect();
    for pair in words.chunks(2) {
        let [flag, value] = pair else { return Err(format!("{} needs a value", pair[0])) };
        let number = |what: &str| value.parse::<usize>().map_err(|_| format!("{what}: {value} is not a count"));
        match flag.as_str() {
            "--weights" => args.weights = PathBuf::from(value),
            "--threads" => args.threads = number("--threads")?,
            "--batches" => args.batches = number("--batches")?,
            "--batch-sizes" => {
                args.batch_sizes = value
                    .split(',')
                    .map(|s| s.parse().map_err(|_| format!("--batch-sizes: {s} is not a size")))
                    .collect::<Result<_, _>>()?
            }
            other => {
                return Err(format!("unknown flag {other}; flags: --weights, --threads, --batches, --batch-sizes"))
            }
        }
    }
    Ok(args)
}

/// The ONNX Runtime library of scripts/setup.
fn onnx_runtime_library() -> Result<PathBuf, String> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.onnxruntime/onnxruntime/capi");
    std::fs::read_dir(&directory)
        .ok()
        .and_then(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("libonnxruntime.so.")))
        })
        .ok_or_else(|| format!("no ONNX Runtime library in {}: run scripts/setup", directory.display()))
}

/// `planes` copied `size` times into an NCHW f32 input.
fn input(planes: &InputPlanes, size: usize) -> Vec<f32> {
    let mut input = Vec::with_capacity(size * PLANES * 64);
    for _ in 0..size {
        for plane in planes {
            input.extend((0..64).map(|square| if plane.mask >> square & 1 == 1 { plane.value } else { 0.0 }));
        }
    }
    input
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let network = load_network(&args.weights)?;
    let environment = ort::init_from(onnx_runtime_library()?)?.build()?;
    let bytes = network_to_onnx_bytes(&network, DataType::F32)?;
    let mut session = Session::builder(&environment)?
        .with_intra_threads(args.threads)
        .map_err(|e| e.to_string())?
        .with_inter_threads(1)
        .map_err(|e| e.to_string())?
        .commit_from_memory(&bytes)?;
    let history = [HistoryEntry { position: Chess::default(), repetitions: 0 }];
    let planes = encode_position(&history, network.input_format, HistoryFill::FenOnly).ok_or("no planes")?.planes;
    let mut run = |size: usize| -> Result<f64, Box<dyn std::error::Error>> {
        let start = Instant::now();
        let tensor = Tensor::from_array(([size as i64, PLANES as i64, 8, 8], input(&planes, size)))?;
        let outputs = session.run(ort::inputs![INPUT_PLANES => tensor])?;
        let mut read = 0.0f32;
        for (_, value) in outputs.iter() {
            read += value.try_extract_tensor::<f32>()?.1[0];
        }
        std::hint::black_box(read);
        Ok(start.elapsed().as_secs_f64() * 1000.0)
    };
    println!("Backend: ONNX Runtime CPU provider, fp32, {} intra-op thread(s)", args.threads);
    println!("size, mean nps, mean ms, median nps");
    if let Some(&largest) = args.batch_sizes.iter().max() {
        run(largest)?;
        run(largest)?;
    }
    for &size in &args.batch_sizes {
        run(size)?;
        let mut times = (0..args.batches.max(1)).map(|_| run(size)).collect::<Result<Vec<f64>, _>>()?;
        times.sort_by(f64::total_cmp);
        let mean_ms = times.iter().sum::<f64>() / times.len() as f64;
        let median_ms = times[times.len() / 2];
        let nps = |ms: f64| size as f64 * 1000.0 / ms;
        println!("{size}, {:.1}, {mean_ms:.3}, {:.1}", nps(mean_ms), nps(median_ms));
    }
    Ok(())
}
