//! `kairos describenet`: what a weights file holds, as lc0's `describenet` shows it (lc0
//! `src/tools/describenet.cc`), with the sizes read from the decoded network rather than from the byte count of
//! two-byte weights, and the parameter count that lc0 does not print.

use std::fmt::Write;
use std::path::Path;

use crate::error::NnError;
use crate::loader::format::{
    describe_value, ACTIVATIONS, DEFAULT_ACTIVATIONS, EMBEDDINGS, INPUTS, MOVES_LEFT, NETWORKS, POLICIES, VALUES,
};
use crate::loader::{build_network, read_net};
use crate::network::{AttentionBody, Body, EncoderStack, HeadInput, InputEmbedding, Network, PolicyHead, ValueKind};
use crate::proto;

/// The description of the network at `path`, in lc0's justified `Name: value` sections.
pub fn describe_network(path: &Path) -> Result<String, NnError> {
    let (net, file_bytes) = read_net(path)?;
    let network = build_network(&net).map_err(|reason| NnError::InvalidNetwork { path: path.to_path_buf(), reason })?;
    let mut out = Description::default();
    general(&mut out, &net, file_bytes);
    format(&mut out, &net);
    training(&mut out, &net);
    body(&mut out, &network);
    heads(&mut out, &net, &network);
    parameters(&mut out, &net, &network);
    Ok(out.text)
}

#[derive(Default)]
struct Description {
    text: String,
}

impl Description {
    fn section(&mut self, title: &str) {
        let _ = write!(self.text, "\n{title}\n{}\n", "~".repeat(title.chars().count()));
    }

    fn line(&mut self, name: &str, value: impl std::fmt::Display) {
        let _ = writeln!(self.text, "{name:>28}: {value}");
    }
}

fn general(out: &mut Description, net: &proto::Net, file_bytes: usize) {
    out.section("General");
    if let Some(v) = &net.min_version {
        out.line(
            "Minimal Lc0 version",
            format!("v{}.{}.{}", v.major.unwrap_or(0), v.minor.unwrap_or(0), v.patch.unwrap_or(0)),
        );
    }
    out.line("File size", format!("{file_bytes} bytes"));
    if let Some(license) = &net.license {
        out.line("License", license);
    }
}

fn format(out: &mut Description, net: &proto::Net) {
    out.section("Format (as written in the file)");
    let Some(format) = &net.format else {
        out.line("Format", "none (lc0 reads it as classical 112 planes, classical heads)");
        return;
    };
    if let Some(encoding) = format.weights_encoding {
        out.line("Weights encoding", encoding_name(encoding));
    }
    let Some(f) = &format.network_format else {
        return;
    };
    let fields = [
        ("Input", f.input, INPUTS),
        ("Network", f.network, NETWORKS),
        ("Policy", f.policy, POLICIES),
        ("Value", f.value, VALUES),
        ("MLH", f.moves_left, MOVES_LEFT),
        ("Default activation", f.default_activation, DEFAULT_ACTIVATIONS),
        ("Smolgen activation", f.smolgen_activation, ACTIVATIONS),
        ("FFN activation", f.ffn_activation, ACTIVATIONS),
        ("Input embedding", f.input_embedding, EMBEDDINGS),
    ];
    for (name, value, values) in fields {
        if let Some(value) = value {
            out.line(name, describe_value(values, value));
        }
    }
}

fn encoding_name(encoding: i32) -> String {
    match proto::Encoding::try_from(encoding) {
        Ok(known) => format!("{known:?}").to_uppercase(),
        Err(_) => format!("{encoding} (unknown)"),
    }
}

fn training(out: &mut Description, net: &proto::Net) {
    let Some(t) = &net.training_params else {
        return;
    };
    out.section("Training Parameters");
    if let Some(v) = t.training_steps {
        out.line("Training steps", v);
    }
    if let Some(v) = t.learning_rate {
        out.line("Learning rate", v);
    }
    if let Some(v) = t.mse_loss {
        out.line("MSE loss", v);
    }
    if let Some(v) = t.policy_loss {
        out.line("Policy loss", v);
    }
    if let Some(v) = t.accuracy {
        out.line("Accuracy", v);
    }
    if let Some(v) = &t.lc0_params {
        out.line("Lc0 Params", v);
    }
}

fn body(out: &mut Description, network: &Network) {
    out.section("Body (as run)");
    out.line("Input format", format!("{:?}", network.input_format));
    out.line("Default activation", network.activation.name());
    match &network.body {
        Body::Residual(tower) => {
            out.line("Body type", "residual tower");
            out.line("Blocks", tower.blocks.len());
            out.line("SE blocks", tower.blocks.iter().filter(|b| b.se.is_some()).count());
            out.line("Filters", tower.filters());
        }
        Body::Attention(body) => attention_body(out, body),
    }
}

fn attention_body(out: &mut Description, body: &AttentionBody) {
    out.line("Body type", "attention (transformer)");
    match &body.embedding {
        InputEmbedding::PositionalMap => out.line("Input embedding", "positional map (64 channels)"),
        InputEmbedding::Dense { preprocess } => {
            out.line("Input embedding", format!("dense positional embedding ({} channels)", preprocess.outputs / 64))
        }
    }
    out.line("Embedding size", body.embedding_size());
    out.line("Input gating", if body.gating.is_some() { "yes" } else { "no" });
    encoders(out, "Encoders", &body.encoders);
}

fn encoders(out: &mut Description, label: &str, stack: &EncoderStack) {
    out.line(label, stack.layers.len());
    let Some(first) = stack.layers.first() else {
        return;
    };
    out.line("Encoder heads", stack.heads);
    out.line("Dmodel", first.mha.query.outputs);
    out.line("Encoder DFF", first.ffn.dense1.outputs);
    out.line("FFN activation", stack.ffn_activation.name());
    match &first.mha.smolgen {
        Some(s) => {
            out.line(
                "Smolgen",
                format!(
                    "{} channels a square, hidden {}, {} generator outputs a head",
                    s.compress.outputs,
                    s.dense1.outputs,
                    s.dense2.outputs / stack.heads
                ),
            );
            out.line("Smolgen activation", stack.smolgen_activation.name());
        }
        None => out.line("Smolgen", "no"),
    }
}

fn heads(out: &mut Description, net: &proto::Net, network: &Network) {
    out.section("Heads (as run)");
    match &network.policy {
        PolicyHead::Classical { conv, .. } => out.line("Policy", format!("classical ({} channels)", conv.out_channels)),
        PolicyHead::Convolution { .. } => out.line("Policy", "convolution"),
        PolicyHead::Attention(head) => {
            out.line("Policy", "attention");
            out.line("Policy activation", head.embedding_activation.name());
            out.line("Policy embedding", head.embedding.outputs);
            out.line("Policy Dmodel", head.query.outputs);
            if let Some(stack) = &head.encoders {
                encoders(out, "Policy encoders", stack);
            }
        }
    }
    let value = match network.value.kind {
        ValueKind::Wdl => "WDL",
        ValueKind::Classical => "classical",
    };
    out.line("Value", format!("{value} ({})", head_shape(&network.value.input, network.value.fc1.outputs)));
    match &network.moves_left {
        Some(m) => out.line("MLH", format!("present ({})", head_shape(&m.input, m.fc1.outputs))),
        None => out.line("MLH", "absent"),
    }
    if let Some(weights) = &net.weights {
        if let Some(policy_heads) = &weights.policy_heads {
            out.line("Policy heads", format!("{} (plays vanilla)", policy_head_names(policy_heads).join(", ")));
        }
        if let Some(value_heads) = &weights.value_heads {
            out.line("Value heads", format!("{} (plays winner)", value_head_names(value_heads).join(", ")));
        }
    }
}

fn head_shape(input: &HeadInput, hidden: usize) -> String {
    let kind = match input {
        HeadInput::Convolution(_) => "convolution",
        HeadInput::Embedding(_) => "embedding",
    };
    format!("{kind} of {} channels, hidden layer of {hidden}", input.channels())
}

fn policy_head_names(heads: &proto::PolicyHeads) -> Vec<String> {
    let fixed = [
        ("vanilla", heads.vanilla.is_some()),
        ("optimistic", heads.optimistic_st.is_some()),
        ("soft", heads.soft.is_some()),
        ("opponent", heads.opponent.is_some()),
    ];
    fixed
        .iter()
        .filter(|(_, present)| *present)
        .map(|(name, _)| (*name).to_string())
        .chain(heads.policy_head_map.iter().filter_map(|h| h.key.clone()))
        .collect()
}

fn value_head_names(heads: &proto::ValueHeads) -> Vec<String> {
    let fixed = [("winner", heads.winner.is_some()), ("q", heads.q.is_some()), ("st", heads.st.is_some())];
    fixed
        .iter()
        .filter(|(_, present)| *present)
        .map(|(name, _)| (*name).to_string())
        .chain(heads.value_head_map.iter().filter_map(|h| h.key.clone()))
        .collect()
}

fn parameters(out: &mut Description, net: &proto::Net, network: &Network) {
    out.section("Parameters (as run: batch norm folded, the heads played)");
    out.line("Body", network.body.parameters());
    if let Some(global) = &network.smolgen_global {
        out.line("Smolgen global weights", global.parameters());
    }
    out.line("Policy head", network.policy.parameters());
    out.line("Value head", network.value.parameters());
    if let Some(m) = &network.moves_left {
        out.line("MLH", m.parameters());
    }
    let total = network.parameters();
    out.line("Total", total);
    out.line("In memory as fp32", format!("{:.1} MB", (total * 4) as f64 / 1e6));
    let stored = stored_bytes(net);
    out.line("Stored weights in the file", format!("{:.1} MB before compression", stored as f64 / 1e6));
}

/// The bytes of every layer in the file, at each layer's own encoding (lc0's describenet counts two a weight).
fn stored_bytes(net: &proto::Net) -> usize {
    net.weights.as_ref().map_or(0, prost::Message::encoded_len)
}
