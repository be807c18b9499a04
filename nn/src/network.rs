//! A loaded network in plain f32 arrays, batch norm already folded into the convolutions (LC0-NOTES
//! §5.3–5.7): the form every evaluator (libtorch here, plain loops in tests) builds from.

/// The input plane format the network was trained with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Format 1: castling rights as four all-ones planes.
    Classical,
    /// Format 2: castling rights as the squares of the rooks that may castle.
    CastlingPlane,
}

/// The activation of the body and heads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// max(x, 0).
    Relu,
    /// x·tanh(softplus(x)).
    Mish,
}

/// A convolution with a square kernel, OIHW weights and one bias per output channel.
#[derive(Clone, Debug, PartialEq)]
pub struct Conv {
    /// Output channels.
    pub out_channels: usize,
    /// Input channels.
    pub in_channels: usize,
    /// Kernel width and height (1 or 3).
    pub kernel: usize,
    /// `[out][in][kernel][kernel]`.
    pub weights: Vec<f32>,
    /// `[out]`.
    pub biases: Vec<f32>,
}

/// A fully connected layer `y = W·x + b`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// Outputs.
    pub outputs: usize,
    /// Inputs.
    pub inputs: usize,
    /// `[outputs][inputs]`, row-major.
    pub weights: Vec<f32>,
    /// `[outputs]`.
    pub biases: Vec<f32>,
}

/// A squeeze-excitation unit: `fc2` has twice the filters as outputs (scales, then offsets).
#[derive(Clone, Debug, PartialEq)]
pub struct SqueezeExcitation {
    /// Filters → SE width.
    pub fc1: Dense,
    /// SE width → 2·filters.
    pub fc2: Dense,
}

/// One residual block.
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualBlock {
    /// First 3×3 convolution, followed by the activation.
    pub conv1: Conv,
    /// Second 3×3 convolution.
    pub conv2: Conv,
    /// Optional squeeze-excitation applied to the second convolution's output.
    pub se: Option<SqueezeExcitation>,
}

/// The policy head.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyHead {
    /// 1×1 conv + activation, then a fully connected layer to the 1858 moves.
    Classical {
        /// The 1×1 convolution.
        conv: Conv,
        /// Flattened channels → 1858 logits.
        fc: Dense,
    },
    /// 3×3 conv + activation, then a 3×3 conv to 80 planes (73 used), mapped by the 73×64 table.
    Convolution {
        /// First convolution (BN folded).
        conv1: Conv,
        /// Second convolution (bias only).
        conv2: Conv,
    },
    /// Square embedding with SELU, query-key logits and promotion offsets, mapped by the 4288 table.
    Attention {
        /// Filters → embedding width.
        embedding: Dense,
        /// Embedding → query width.
        query: Dense,
        /// Embedding → key width.
        key: Dense,
        /// `[4][key width]`, no bias: promotion offsets (queen, rook, bishop, common knight term).
        promotion: Vec<f32>,
    },
}

/// What the value head outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// One tanh output.
    Classical,
    /// Win, draw, loss logits.
    Wdl,
}

/// The value head: conv + activation, hidden layer + activation, output layer.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueHead {
    /// Classical or WDL.
    pub kind: ValueKind,
    /// 1×1 convolution.
    pub conv: Conv,
    /// Hidden layer.
    pub fc1: Dense,
    /// Output layer (1 or 3 outputs).
    pub fc2: Dense,
}

/// The moves-left head: conv + activation, hidden layer + activation, one ReLU output.
#[derive(Clone, Debug, PartialEq)]
pub struct MovesLeftHead {
    /// 1×1 convolution.
    pub conv: Conv,
    /// Hidden layer.
    pub fc1: Dense,
    /// Output layer (1 output).
    pub fc2: Dense,
}

/// A complete convolutional network.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// How positions are encoded for it.
    pub input_format: InputFormat,
    /// Activation of body and heads.
    pub activation: Activation,
    /// 3×3 input convolution, 112 → filters.
    pub input: Conv,
    /// The residual tower.
    pub tower: Vec<ResidualBlock>,
    /// The policy head.
    pub policy: PolicyHead,
    /// The value head.
    pub value: ValueHead,
    /// The moves-left head, if the network has one.
    pub moves_left: Option<MovesLeftHead>,
}

impl Network {
    /// The number of filters of the residual tower.
    pub fn filters(&self) -> usize {
        self.input.out_channels
    }
}
