//! `kairos describenet` on a test network whose sizes are worked out by hand from its generator's spec
//! (nn/examples/make_test_nets.rs, `transformer-classical-input-mish`), and on a file that is not a network.

use std::time::Duration;

use kairos_tests::{run_kairos, workspace_root};

/// The value after `name:` on the first line that has it.
fn field<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find_map(|line| line.trim_start().strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name:?} in\n{text}"))
}

#[test]
fn a_transformer_is_described_with_its_true_sizes_and_parameter_count() {
    let output = run_kairos(
        &["describenet", "--weights", "reference/nets/transformer-classical-input-mish.pb.gz"],
        &workspace_root(),
        Duration::from_secs(60),
    );
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let text = &output.stdout;
    assert_eq!(field(text, "Input"), "1 (classical)");
    assert_eq!(field(text, "Network"), "6 (attention body)");
    assert_eq!(field(text, "Weights encoding"), "LINEAR16");
    assert_eq!(field(text, "Embedding size"), "32");
    assert_eq!(field(text, "Encoders"), "2");
    assert_eq!(field(text, "Encoder heads"), "4");
    assert_eq!(field(text, "Encoder DFF"), "48");
    assert_eq!(field(text, "Input gating"), "no");
    // Embedding (112 + 64)·32 + 32 = 5664; a layer: Q, K, V and output 4·(32·32 + 32) = 4224, two norms
    // 2·64, FFN 32·48 + 48 + 48·32 + 32 = 3152, so 7504; two layers 15008.
    assert_eq!(field(text, "Body"), "20672");
    // Embedding 32·24 + 24, query and key 2·(24·24 + 24), promotion offsets 4·24.
    assert_eq!(field(text, "Policy head"), "2088");
    // 32·8 + 8, then 512·32 + 32, then 32·3 + 3.
    assert_eq!(field(text, "Value head"), "16779");
    assert_eq!(field(text, "Total"), "39539");
    let heads = &text[text.find("Heads (as run)").expect("a heads section")..];
    assert_eq!(field(heads, "MLH"), "absent");
    assert_eq!(field(heads, "Policy Dmodel"), "24");
}

#[test]
fn a_file_that_is_not_a_network_is_named_with_the_way_out() {
    let output = run_kairos(&["describenet", "--weights", "Cargo.toml"], &workspace_root(), Duration::from_secs(60));
    assert_eq!(output.code, Some(1));
    assert!(output.stderr.contains("Cargo.toml"), "{}", output.stderr);
    assert!(output.stderr.contains("not a usable Lc0 network"), "{}", output.stderr);
}
