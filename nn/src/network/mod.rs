//! A loaded network in plain f32 arrays, batch norm already folded into the convolutions (docs/lc0/network.md
//! §5.3–5.7): the form every evaluator (libtorch here, plain loops in tests) builds from. One module per body type
//! and per head; the layers they share are here.

mod attention;
mod policy;
mod residual;
mod value;

pub use attention::{AttentionBody, EncoderLayer, EncoderStack, Ffn, InputEmbedding, Mha, Smolgen};
pub use policy::{AttentionPolicy, PolicyHead};
pub use residual::{ResidualBlock, ResidualTower, SqueezeExcitation};
pub use value::{HeadInput, MovesLeftHead, ValueHead, ValueKind};

/// The input plane format the network was trained with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Format 1: castling rights as four all-ones planes.
    Classical,
    /// Format 2: castling rights as the squares of the rooks that may castle.
    CastlingPlane,
    /// Format 3: format 2 with the board canonicalised (flipped and transposed; lc0's canonicalization).
    Canonical,
    /// Format 4: format 3 with the fifty-move counter in hectoplies.
    CanonicalHectoplies,
    /// Format 132: format 4 with the armageddon plane.
    CanonicalHectopliesArmageddon,
    /// Format 5: format 4 without the side-to-move plane and history-filling (lc0's V2).
    CanonicalV2,
    /// Format 133: format 5 with the armageddon plane.
    CanonicalV2Armageddon,
}

/// An activation function (lc0's `ActivationFunction`, less softmax, which no CPU backend of lc0 applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// max(x, 0).
    Relu,
    /// x·tanh(softplus(x)).
    Mish,
    /// The identity.
    None,
    /// tanh(x).
    Tanh,
    /// 1 / (1 + e^−x).
    Sigmoid,
    /// Scaled exponential linear unit (λ 1.0507, α 1.67326).
    Selu,
    /// x·sigmoid(x).
    Swish,
    /// max(x, 0)².
    Relu2,
}

impl Activation {
    /// lc0's name for it, as `describenet` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::Mish => "mish",
            Activation::None => "none",
            Activation::Tanh => "tanh",
            Activation::Sigmoid => "sigmoid",
            Activation::Selu => "selu",
            Activation::Swish => "swish",
            Activation::Relu2 => "relu_2",
        }
    }
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

impl Conv {
    /// Weights and biases.
    pub fn parameters(&self) -> usize {
        self.weights.len() + self.biases.len()
    }
}

impl Dense {
    /// Weights and biases.
    pub fn parameters(&self) -> usize {
        self.weights.len() + self.biases.len()
    }
}

/// A linear map without bias `y = W·x` (smolgen's compression and its global weights).
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    /// Outputs.
    pub outputs: usize,
    /// Inputs.
    pub inputs: usize,
    /// `[outputs][inputs]`, row-major.
    pub weights: Vec<f32>,
}

impl Projection {
    /// Weights.
    pub fn parameters(&self) -> usize {
        self.weights.len()
    }
}

/// Layer normalisation over channels: `γ·(x − mean)/sqrt(var + ε) + β`.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerNorm {
    /// Scales, one per channel.
    pub gammas: Vec<f32>,
    /// Offsets, one per channel.
    pub betas: Vec<f32>,
    /// ε added to the variance (lc0 uses 1e-3 or 1e-6 depending on where).
    pub epsilon: f32,
}

impl LayerNorm {
    /// Scales and offsets.
    pub fn parameters(&self) -> usize {
        self.gammas.len() + self.betas.len()
    }
}

/// The body: what turns the input planes into features for the heads.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// A convolutional residual tower, features as `[filters][64]` planes.
    Residual(ResidualTower),
    /// A transformer over the 64 squares, features as `[64][embedding]` (boxed: it is the larger by far).
    Attention(Box<AttentionBody>),
}

/// A complete network.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// How positions are encoded for it.
    pub input_format: InputFormat,
    /// The default activation of body and heads.
    pub activation: Activation,
    /// The body.
    pub body: Body,
    /// The policy head.
    pub policy: PolicyHead,
    /// The value head.
    pub value: ValueHead,
    /// The moves-left head, if the network has one.
    pub moves_left: Option<MovesLeftHead>,
    /// Smolgen's global weights, generator width → 64·64, shared by every encoder layer with smolgen.
    pub smolgen_global: Option<Projection>,
}

impl Body {
    /// The width of the body's features, which the heads read: filters of a tower, or the embedding of a
    /// transformer.
    pub fn width(&self) -> usize {
        match self {
            Body::Residual(tower) => tower.filters(),
            Body::Attention(body) => body.embedding_size(),
        }
    }

    /// The body's parameters, as loaded (batch norm folded).
    pub fn parameters(&self) -> usize {
        match self {
            Body::Residual(tower) => tower.parameters(),
            Body::Attention(body) => body.parameters(),
        }
    }
}

impl Network {
    /// Every parameter of the network as loaded (batch norm folded into the convolutions).
    pub fn parameters(&self) -> usize {
        self.body.parameters()
            + self.policy.parameters()
            + self.value.parameters()
            + self.moves_left.as_ref().map_or(0, MovesLeftHead::parameters)
            + self.smolgen_global.as_ref().map_or(0, Projection::parameters)
    }

    /// Every encoder stack of the network: the body's, then the policy head's.
    pub fn encoder_stacks(&self) -> Vec<&EncoderStack> {
        let body = match &self.body {
            Body::Attention(body) => Some(&body.encoders),
            Body::Residual(_) => None,
        };
        let policy = match &self.policy {
            PolicyHead::Attention(head) => head.encoders.as_ref(),
            _ => None,
        };
        body.into_iter().chain(policy).collect()
    }
}
