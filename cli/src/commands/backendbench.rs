//! `kairos backendbench`: network throughput by batch size, as lc0's backendbench prints it.

use anyhow::{bail, Result};
use clap::Parser;

use super::{eval::backend_options, parse_mode_args};
use engine::options::{Choice, EngineOptions};

/// Measure network evaluations per second for a range of batch sizes.
#[derive(Parser)]
struct BackendBenchArgs {
    /// Lc0 network file (default: the installed Maia-1900).
    #[arg(long)]
    weights: Option<String>,
    /// torch or onnx (ONNX Runtime: TensorRT and CUDA on a GPU, its CPU provider on the CPU).
    #[arg(long, default_value = "torch")]
    backend: String,
    /// cpu, cuda, cuda:N or auto.
    #[arg(long, default_value_t = EngineOptions::default().backend_device)]
    device: String,
    /// auto, fp32, bf16 or fp16.
    #[arg(long, default_value = EngineOptions::default().precision.name())]
    precision: String,
    /// CPU threads of each forward pass, as the engine's BackendThreads (0 = one per core, -1 = by network).
    #[arg(long = "backend-threads", default_value_t = EngineOptions::default().backend_threads)]
    backend_threads: i64,
    /// Largest batch evaluated in plain Rust, as the engine's RustBatchLimit (-1 = by precision and network, 0 = none).
    #[arg(long = "rust-batch-limit", default_value_t = EngineOptions::default().rust_batch_limit, allow_negative_numbers = true)]
    rust_batch_limit: i64,
    /// On CUDA, replay the forward pass as a CUDA graph per batch size (the engine's CudaGraphs); false: eagerly.
    #[arg(long = "cuda-graphs", default_value_t = EngineOptions::default().cuda_graphs, action = clap::ArgAction::Set)]
    cuda_graphs: bool,
    /// On CUDA, let cuDNN time its algorithms and keep the fastest (the engine's CudnnBenchmark).
    #[arg(long = "cudnn-benchmark", default_value_t = EngineOptions::default().cudnn_benchmark, action = clap::ArgAction::Set)]
    cudnn_benchmark: bool,
    /// Convolutions with their bias, ReLU and skip in one call, cuDNN's on CUDA and oneDNN's on the CPU (the engine's
    /// FusedConvolutions).
    #[arg(
        long = "fused-convolutions",
        default_value_t = EngineOptions::default().fused_convolutions,
        action = clap::ArgAction::Set
    )]
    fused_convolutions: bool,
    /// Timed batches per size (the first batch of each size is not timed).
    #[arg(long, default_value_t = 20)]
    batches: usize,
    /// Smallest batch size (with --max-batch-size and --batch-step, as lc0).
    #[arg(long = "start-batch-size", default_value_t = 1)]
    start_batch_size: usize,
    /// Largest batch size.
    #[arg(long = "max-batch-size", default_value_t = 256)]
    max_batch_size: usize,
    /// Step between sizes; 0 doubles the size each time (1, 2, 4, …).
    #[arg(long = "batch-step", default_value_t = 0)]
    batch_step: usize,
}

/// A count of `--flag`, where -1 leaves the choice to Kairos (`None`: by network), as the engine's options do.
fn count_or_by_network(value: i64, flag: &str) -> Result<Option<usize>> {
    match value {
        -1 => Ok(None),
        count => usize::try_from(count).map(Some).map_err(|_| anyhow::anyhow!("--{flag} must be -1 or more")),
    }
}

/// Runs `kairos backendbench`.
pub fn run(args: &[String]) -> Result<()> {
    let args: BackendBenchArgs = parse_mode_args("backendbench", args)?;
    if args.start_batch_size == 0 || args.start_batch_size > args.max_batch_size || args.batches == 0 {
        bail!("need 1 <= --start-batch-size <= --max-batch-size and --batches >= 1");
    }
    let options = nn::BackendOptions {
        cpu_threads: count_or_by_network(args.backend_threads, "backend-threads")?,
        rust_batch_limit: count_or_by_network(args.rust_batch_limit, "rust-batch-limit")?,
        cuda_graphs: args.cuda_graphs,
        cudnn_benchmark: args.cudnn_benchmark,
        fused_convolutions: args.fused_convolutions,
        // The onnx backend's TensorRT profile covers every size timed.
        largest_batch: if args.backend == "onnx" { args.max_batch_size } else { 0 },
        ..backend_options(args.weights.as_deref(), &args.backend, &args.device, &args.precision)?
    };
    if !matches!(options.kind, nn::BackendKind::Torch | nn::BackendKind::Onnx) {
        bail!("--backend {}: backendbench times a network, torch or onnx", args.backend);
    }
    let sizes = batch_sizes(args.start_batch_size, args.max_batch_size, args.batch_step);
    let (backend, description) = nn::open_backend_described(&nn::BackendOptions { cache_size: 0, ..options })?;
    println!("Backend: {description}");
    let rows = nn::backend_bench(backend.as_ref(), &sizes, args.batches)?;
    println!("size, mean nps, mean ms, sdev, cv, max nps, median nps, min nps, first ms");
    for row in rows {
        println!(
            "{}, {:.0}, {:.3}, {:.3}, {:.3}, {:.0}, {:.0}, {:.0}, {:.3}",
            row.batch_size,
            row.mean_nps,
            row.mean_ms,
            row.sdev_ms,
            row.cv,
            row.max_nps,
            row.median_nps,
            row.min_nps,
            row.first_ms
        );
    }
    Ok(())
}

/// The batch sizes to time: an arithmetic range, or doublings when the step is 0.
fn batch_sizes(start: usize, max: usize, step: usize) -> Vec<usize> {
    let next = |size: usize| if step == 0 { size * 2 } else { size + step };
    std::iter::successors(Some(start), |&size| Some(next(size)).filter(|&n| n <= max)).collect()
}

#[cfg(test)]
mod tests {
    use super::batch_sizes;

    #[test]
    fn sizes_double_by_default_and_step_arithmetically_otherwise() {
        assert_eq!(batch_sizes(1, 256, 0), vec![1, 2, 4, 8, 16, 32, 64, 128, 256]);
        assert_eq!(batch_sizes(8, 30, 8), vec![8, 16, 24]);
        assert_eq!(batch_sizes(5, 5, 0), vec![5]);
    }
}
