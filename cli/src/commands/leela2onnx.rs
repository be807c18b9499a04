//! `kairos leela2onnx`: a network file written as an ONNX model with lc0's interface, as lc0's `leela2onnx`
//! (nn::onnx; its flags as lc0's: `--input`, `--output`, `--onnx-data-type`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;

use super::parse_mode_args;
use nn::onnx::{network_to_onnx, DataType, INPUT_PLANES, OPSET};

/// Write an Lc0 network as an ONNX model: input /input/planes [N,112,8,8]; outputs /output/policy [N,1858]
/// logits, /output/wdl [N,3] probabilities (or /output/value [N,1] for a classical value head) and
/// /output/mlh [N,1] where the network has a moves-left head.
#[derive(Parser)]
struct Leela2OnnxArgs {
    /// Lc0 network file (.pb.gz) to convert.
    #[arg(long)]
    input: PathBuf,
    /// ONNX file to write.
    #[arg(long)]
    output: PathBuf,
    /// Element type of the weights, input and outputs: f32 or f16 (lc0's names).
    #[arg(long = "onnx-data-type", default_value = "f32", value_parser = ["f32", "f16"])]
    data_type: String,
}

/// Runs `kairos leela2onnx`.
pub fn run(args: &[String]) -> Result<()> {
    let args: Leela2OnnxArgs = parse_mode_args("leela2onnx", args)?;
    let data_type = DataType::parse(&args.data_type).expect("clap admits only the names DataType parses");
    let network = nn::load_network(&args.input)?;
    let model = network_to_onnx(&network, data_type)
        .with_context(|| format!("cannot write {} as ONNX", args.input.display()))?;
    let bytes = nn::onnx::encode(&model);
    std::fs::write(&args.output, &bytes).with_context(|| {
        format!("cannot write the ONNX file {}; pass --output a path in a writable folder", args.output.display())
    })?;
    let outputs: Vec<String> = model
        .graph
        .iter()
        .flat_map(|graph| &graph.output)
        .map(|output| format!("{} {}", output.name, shape(output)))
        .collect();
    println!(
        "Wrote {} ({} bytes): ONNX opset {OPSET}, {}; input {INPUT_PLANES} [N,112,8,8]; outputs {}.",
        args.output.display(),
        bytes.len(),
        args.data_type,
        outputs.join(", ")
    );
    Ok(())
}

/// An interface value's shape as `[N,1858]`, the batch written N.
fn shape(value: &nn::onnx::proto::ValueInfoProto) -> String {
    use nn::onnx::proto::DimensionValue;
    let dims = value.r#type.iter().flat_map(|t| &t.tensor_type).flat_map(|t| &t.shape).flat_map(|s| &s.dim);
    let dims: Vec<String> = dims
        .map(|d| match &d.value {
            Some(DimensionValue::DimValue(size)) => size.to_string(),
            _ => "N".to_string(),
        })
        .collect();
    format!("[{}]", dims.join(","))
}
