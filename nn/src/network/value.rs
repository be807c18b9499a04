//! The value and moves-left heads, which share one shape: a per-square reduction of the body's features,
//! a hidden layer and the output (docs/lc0/network.md §5.7; lc0 `network_blas.cc`).

use super::{Conv, Dense};

/// How a value or moves-left head reduces the body's features per square.
#[derive(Clone, Debug, PartialEq)]
pub enum HeadInput {
    /// A 1×1 convolution of a residual tower, flattened channel-major (`[channels][64]`).
    Convolution(Conv),
    /// A dense layer on each square of an attention body, flattened square-major (`[64][channels]`).
    Embedding(Dense),
}

impl HeadInput {
    /// The channels per square it produces.
    pub fn channels(&self) -> usize {
        match self {
            HeadInput::Convolution(conv) => conv.out_channels,
            HeadInput::Embedding(dense) => dense.outputs,
        }
    }

    /// Its parameters.
    pub fn parameters(&self) -> usize {
        match self {
            HeadInput::Convolution(conv) => conv.parameters(),
            HeadInput::Embedding(dense) => dense.parameters(),
        }
    }
}

/// What the value head outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// One tanh output.
    Classical,
    /// Win, draw, loss logits.
    Wdl,
}

/// The value head: input + activation, hidden layer + activation, output layer.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueHead {
    /// Classical or WDL.
    pub kind: ValueKind,
    /// The per-square reduction.
    pub input: HeadInput,
    /// Hidden layer.
    pub fc1: Dense,
    /// Output layer (1 or 3 outputs).
    pub fc2: Dense,
}

/// The moves-left head: input + activation, hidden layer + activation, one ReLU output.
#[derive(Clone, Debug, PartialEq)]
pub struct MovesLeftHead {
    /// The per-square reduction.
    pub input: HeadInput,
    /// Hidden layer.
    pub fc1: Dense,
    /// Output layer (1 output).
    pub fc2: Dense,
}

impl ValueHead {
    /// The head's parameters.
    pub fn parameters(&self) -> usize {
        self.input.parameters() + self.fc1.parameters() + self.fc2.parameters()
    }
}

impl MovesLeftHead {
    /// The head's parameters.
    pub fn parameters(&self) -> usize {
        self.input.parameters() + self.fc1.parameters() + self.fc2.parameters()
    }
}
