//! `kairos leela2onnx` through the real binary: the file it writes decodes as an ONNX model with lc0's interface
//! (the numbers the model computes are checked against lc0's in nn's onnx_export test), and bad input is named
//! with the way out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use nn::onnx::proto::{DimensionValue, ModelProto, ValueInfoProto};
use prost::Message;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn kairos(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos")).args(args).current_dir(ROOT).output().expect("kairos runs")
}

/// A fresh folder for this test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-leela2onnx-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// A value's name, element type and shape, the batch written as 0.
fn signature(value: &ValueInfoProto) -> (String, i32, Vec<i64>) {
    let tensor = value.r#type.as_ref().and_then(|t| t.tensor_type.as_ref()).expect("a tensor type");
    let dims = tensor.shape.as_ref().expect("a shape").dim.iter().map(|d| match &d.value {
        Some(DimensionValue::DimValue(size)) => *size,
        _ => 0,
    });
    (value.name.clone(), tensor.elem_type, dims.collect())
}

fn written_model(path: &Path) -> ModelProto {
    ModelProto::decode(std::fs::read(path).expect("the ONNX file was written").as_slice()).expect("an ONNX model")
}

#[test]
fn a_transformer_with_moves_left_is_written_with_lc0s_interface_in_f32_and_f16() {
    let dir = scratch("interface");
    // ONNX's element types: 1 float, 10 float16.
    for (flag, element) in [("f32", 1), ("f16", 10)] {
        let output = dir.join(format!("smolgen-{flag}.onnx"));
        let run = kairos(&[
            "leela2onnx",
            "--input=reference/nets/transformer-pe-map-smolgen.pb.gz",
            "--output",
            output.to_str().expect("a UTF-8 path"),
            &format!("--onnx-data-type={flag}"),
        ]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let model = written_model(&output);
        assert_eq!(model.opset_import[0].version, 17);
        let graph = model.graph.expect("a graph");
        let inputs: Vec<_> = graph.input.iter().map(signature).collect();
        assert_eq!(inputs, [("/input/planes".to_string(), element, vec![0, 112, 8, 8])]);
        let outputs: Vec<_> = graph.output.iter().map(signature).collect();
        let expected = [("/output/policy", vec![0, 1858]), ("/output/wdl", vec![0, 3]), ("/output/mlh", vec![0, 1])];
        let expected: Vec<_> = expected.into_iter().map(|(name, dims)| (name.to_string(), element, dims)).collect();
        assert_eq!(outputs, expected);
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_classical_value_head_gives_output_value_in_place_of_wdl() {
    let dir = scratch("classical");
    let output = dir.join("classical.onnx");
    let input = "reference/nets/se-classical-value-classical-policy.pb.gz";
    let run = kairos(&["leela2onnx", "--input", input, "--output", output.to_str().expect("a UTF-8 path")]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let names: Vec<String> =
        written_model(&output).graph.expect("a graph").output.into_iter().map(|o| o.name).collect();
    assert_eq!(names, ["/output/policy", "/output/value"]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_missing_input_an_unwritable_output_and_an_unknown_data_type_are_named_with_the_way_out() {
    let dir = scratch("errors");
    let output = dir.join("never.onnx");
    let output = output.to_str().expect("a UTF-8 path");
    let missing = kairos(&["leela2onnx", "--input=no-such-net.pb.gz", "--output", output]);
    assert_eq!(missing.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("no-such-net.pb.gz") && stderr.contains("not found"), "{stderr}");
    assert!(stderr.contains("pass the path of an Lc0 .pb.gz network"), "{stderr}");

    let unwritable = kairos(&["leela2onnx", "--input=weights/maia-1900.pb.gz", "--output=/no-such-folder/maia.onnx"]);
    assert_eq!(unwritable.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&unwritable.stderr);
    assert!(stderr.contains("/no-such-folder/maia.onnx") && stderr.contains("writable folder"), "{stderr}");

    let bf16 = kairos(&["leela2onnx", "--input=weights/maia-1900.pb.gz", "--output", output, "--onnx-data-type=bf16"]);
    assert_ne!(bf16.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&bf16.stderr);
    assert!(stderr.contains("bf16") && stderr.contains("possible values: f32, f16"), "{stderr}");
    assert!(!Path::new(output).exists(), "nothing is written on an error");
    std::fs::remove_dir_all(dir).ok();
}
