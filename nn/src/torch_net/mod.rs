//! The network as libtorch tensors on a device and in a precision, and its batched forward pass
//! (docs/lc0/network.md §5.5–5.7). Outputs come back to the host as f32, the policy logits widened only where the
//! search reads them.

use tch::{Device, Kind, Tensor};

mod attention;
mod cuda_graph;
mod dense;
mod dispatcher;
mod graphed;
mod input_rows;
mod onednn_conv;
mod packed_linear;
mod squeeze_excite_cpu;

use attention::{AttentionBodyT, EncoderStackT};
use dense::DenseT;
pub(crate) use graphed::GraphedForward;
pub(crate) use input_rows::{clear_rows_from, write_row, BatchInputs, InputRows};
use squeeze_excite_cpu::HostExcitation;

use crate::encoder::{write_square_major_input, InputPlanes, PLANES};
use crate::network::{Activation, Body, Conv, Dense, HeadInput, Network, PolicyHead, SqueezeExcitation, ValueKind};
use crate::policy_map::{attention_policy_map, conv_policy_map, POLICY_SIZE};
pub use crate::raw_outputs::RawOutputs;
use crate::raw_outputs::{GatheredOutputs, PolicyGather};

/// The batch size a batch of `batch` positions is computed at: 1 to 4 as they are, then the next of 6, 8, 12,
/// 16, 24, 32, 48, 64, … (a power of two or three quarters of one), so at most a third of a batch is padding.
///
/// libtorch's oneDNN kernels build and cache compiled primitives for every input shape they see, about 5 MB per
/// batch size for Maia-1900 in bf16, and a search produces every batch size from 1 to its minibatch plus
/// prefetch. Unpadded, an engine's resident memory grew by 15 % from game 10 to game 500 of a 1+0.01 match
/// (BENCHMARKS.md, "Reliability at scale"); with these sizes the caches fill in the first games and stay.
pub fn padded_batch_size(batch: usize) -> usize {
    if batch <= 4 {
        return batch;
    }
    let power = batch.next_power_of_two();
    let three_quarters = power / 4 * 3;
    if batch <= three_quarters {
        three_quarters
    } else {
        power
    }
}

/// Every padded batch size of batches of 1 to `largest` positions, in increasing order: the graphs a network
/// captures as it loads.
pub(crate) fn every_padded_size(largest: usize) -> Vec<usize> {
    let mut sizes: Vec<usize> = (1..=largest).map(padded_batch_size).collect();
    sizes.dedup();
    sizes
}

struct ConvT {
    weights: Tensor,
    biases: Tensor,
    padding: i64,
}

struct BlockT {
    conv1: ConvT,
    conv2: ConvT,
    se: Option<SqueezeExciteT>,
}

/// A block's squeeze-excitation, reading the pooled second convolution without its bias: `W·(mean + b) + c` is
/// `W·mean + (c + W·b)`, so `fc1` holds the convolution's bias folded into its own, once at load.
struct SqueezeExciteT {
    fc1: DenseT,
    fc2: DenseT,
    /// The same layers in f32 on the host, for a CPU network (`squeeze_excite_cpu`).
    host: Option<HostExcitation>,
}

impl SqueezeExciteT {
    fn new(make: &TensorMaker, se: &SqueezeExcitation, conv_biases: &[f32]) -> Result<Self, tch::TchError> {
        let fc1 = &se.fc1;
        let folded = fc1
            .biases
            .iter()
            .zip(fc1.weights.chunks(fc1.inputs))
            .map(|(&c, row)| c as f64 + row.iter().zip(conv_biases).map(|(&w, &b)| w as f64 * b as f64).sum::<f64>())
            .map(|bias| bias as f32)
            .collect();
        let folded = Dense { biases: folded, ..fc1.clone() };
        Ok(Self {
            fc1: DenseT::dense(make, &folded)?,
            fc2: DenseT::dense(make, &se.fc2)?,
            host: if make.device == Device::Cpu { HostExcitation::new(&folded, &se.fc2, conv_biases) } else { None },
        })
    }
}

enum BodyT {
    Residual { input: ConvT, tower: Vec<BlockT>, filters: i64 },
    Attention(Box<AttentionBodyT>),
}

enum PolicyT {
    Classical {
        conv: ConvT,
        fc: DenseT,
    },
    Convolution {
        conv1: ConvT,
        conv2: ConvT,
    },
    Attention {
        embedding: DenseT,
        embedding_activation: Activation,
        encoders: Option<EncoderStackT>,
        query: DenseT,
        key: DenseT,
        promotion: Tensor,
        key_width: usize,
    },
}

enum HeadInputT {
    Convolution(ConvT),
    Embedding(DenseT),
}

struct HeadT {
    input: HeadInputT,
    fc1: DenseT,
    fc2: DenseT,
}

/// Uploads weights to one device in one precision.
struct TensorMaker {
    device: Device,
    kind: Kind,
}

impl TensorMaker {
    fn tensor(&self, values: &[f32], shape: &[i64]) -> Result<Tensor, tch::TchError> {
        Tensor::f_from_slice(values)?.f_reshape(shape)?.f_to_device(self.device)?.f_to_kind(self.kind)
    }

    fn vector(&self, values: &[f32]) -> Result<Tensor, tch::TchError> {
        self.tensor(values, &[values.len() as i64])
    }

    fn matrix(&self, values: &[f32], rows: usize, columns: usize) -> Result<Tensor, tch::TchError> {
        self.tensor(values, &[rows as i64, columns as i64])
    }

    /// Whether dense layers are prepacked for oneDNN: on an x86 CPU in native bf16, where it was measured to pay
    /// ([`packed_linear`]); in fp32 it made no difference.
    fn packs_dense_layers(&self) -> bool {
        self.device == Device::Cpu
            && self.kind == Kind::BFloat16
            && cfg!(target_arch = "x86_64")
            && crate::cpu_features::native_bf16().is_some()
    }
}

/// Applies an activation function (lc0's `Activate`).
fn activate(x: &Tensor, activation: Activation) -> Result<Tensor, tch::TchError> {
    match activation {
        Activation::Relu => x.f_relu(),
        Activation::Mish => x.f_mish(),
        Activation::None => Ok(x.shallow_clone()),
        Activation::Tanh => x.f_tanh(),
        Activation::Sigmoid => x.f_sigmoid(),
        Activation::Selu => x.f_selu(),
        Activation::Swish => x.f_silu(),
        Activation::Relu2 => x.f_relu()?.f_square(),
    }
}

/// A network ready to run on one device in one precision.
pub struct TorchNetwork {
    device: Device,
    kind: Kind,
    activation: Activation,
    body: BodyT,
    policy: PolicyT,
    /// For each of the 1858 policy indices, its position in the head's flat output.
    policy_gather: Option<Tensor>,
    value: HeadT,
    value_kind: ValueKind,
    moves_left: Option<HeadT>,
    /// Smolgen's global weights, shared by every encoder layer.
    smolgen_global: Option<DenseT>,
    /// `1 << file` for the 8 files, `[1][1][8][1]` bytes, to expand the planes' bit masks on the device.
    file_bits: Tensor,
    /// Each convolution followed by a ReLU runs as one cuDNN or oneDNN call, its bias and activation (and a plain
    /// residual block's skip) in the convolution's epilogue ([`TorchNetwork::fuse_convolutions`]).
    fused_convolutions: bool,
}

// SAFETY: a network's tensors are written only while it is built (`new`, and `fuse_convolutions`, which takes
// `&mut self`; tch's in-place operations take `&mut Tensor`, which a `&self` method cannot lend); every `&self`
// method reads them to compute new tensors, and libtorch's tensors, their reference counts atomic, may be read
// from several threads at once (how PyTorch serves one module to many threads). tch leaves `Tensor` without `Sync`
// because some of its `&self` methods write (the `_out` operations into their `out`, as `copy_without_waiting`
// into its `dst`): none of them is given a weight.
unsafe impl Sync for TorchNetwork {}

/// The same NCHW tensor with its channels innermost in memory (PyTorch's channels-last format), in which every
/// convolution runs. On the CPU oneDNN computes in that layout, and NCHW tensors cost it a reorder in and out of
/// every convolution: Maia-1900 in bf16 at batch 32 on an Intel Xeon with AMX went from 3054–3221 to 4016–4057
/// evaluations/s, fp32 +5–7 % (BENCHMARKS.md, "libtorch in channels-last"). On CUDA it changed nothing beyond
/// noise, as the eager pass there is bound by launches and host work, not by cuDNN (BENCHMARKS.md, "Kairos beside
/// lc0's cuda backend"); one layout keeps one code path.
fn channels_last(t: &Tensor) -> Result<Tensor, tch::TchError> {
    t.f_permute([0, 2, 3, 1])?.f_contiguous()?.f_permute([0, 3, 1, 2])
}

/// A convolution, its bias and a ReLU in one call: cuDNN's on CUDA, oneDNN's on the CPU.
fn fused_conv_relu(x: &Tensor, c: &ConvT) -> Result<Tensor, tch::TchError> {
    if x.device() == Device::Cpu {
        return onednn_conv::conv_relu(x, &c.weights, &c.biases, c.padding);
    }
    x.f_cudnn_convolution_relu(&c.weights, Some(&c.biases), [1, 1], [c.padding, c.padding], [1, 1], 1)
}

/// A convolution, a skip connection, its bias and a ReLU in one call: cuDNN's on CUDA, oneDNN's on the CPU.
fn fused_conv_skip_relu(x: &Tensor, c: &ConvT, skip: &Tensor) -> Result<Tensor, tch::TchError> {
    if x.device() == Device::Cpu {
        return onednn_conv::conv_skip_relu(x, &c.weights, &c.biases, c.padding, skip);
    }
    x.f_cudnn_convolution_add_relu(&c.weights, skip, 1.0, Some(&c.biases), [1, 1], [c.padding, c.padding], [1, 1], 1)
}

/// A convolution's output `[batch][channels][8][8]` as one row a position, square-major (`[64][channels]`): in the
/// channels-last memory every convolution writes this is a view, where lc0's channel-major flattening copied the
/// whole tensor (2.6 % of a bf16 pass on the CPU at batch 256, BENCHMARKS.md, "The AMX Xeon a third time"). The
/// dense layer or policy map after it takes its inputs in this order ([`square_major_columns`],
/// [`square_major_slots`]).
fn square_major_rows(x: &Tensor, batch: i64) -> Result<Tensor, tch::TchError> {
    x.f_permute([0, 2, 3, 1])?.f_reshape([batch, -1])
}

/// `dense` with its inputs reordered from lc0's channel-major flattening (`[channels][64]`) to square-major
/// (`[64][channels]`), as [`square_major_rows`] hands them over.
fn square_major_columns(dense: &Dense) -> Dense {
    let channels = dense.inputs / 64;
    let weights = dense
        .weights
        .chunks(dense.inputs)
        .flat_map(|row| (0..64).flat_map(move |square| (0..channels).map(move |channel| row[channel * 64 + square])))
        .collect();
    Dense { weights, ..dense.clone() }
}

/// A convolutional policy's map from lc0's channel-major slots (`[planes][64]`) to square-major ones over the
/// convolution's `channels` outputs (lc0's nets have 80, of which the map's 73 planes are read), as
/// [`square_major_rows`] hands the logits over.
fn square_major_slots(map: &[i16], channels: usize) -> Vec<i16> {
    let planes = map.len() / 64;
    let slot = move |square: usize, channel: usize| if channel < planes { map[channel * 64 + square] } else { -1 };
    (0..64).flat_map(|square| (0..channels).map(move |channel| slot(square, channel))).collect()
}

/// For each policy index, the slot of `map` that holds it.
fn gather_index(map: &[i16], device: Device) -> Result<Tensor, tch::TchError> {
    let mut slots = vec![0i64; POLICY_SIZE];
    for (slot, &index) in map.iter().enumerate() {
        if let Ok(index) = usize::try_from(index) {
            slots[index] = slot as i64;
        }
    }
    Tensor::f_from_slice(&slots)?.f_to_device(device)
}

/// A batch's outputs still on the device: `[batch][1858]` policy logits, `[batch][3 or 1]` values and
/// `[batch][1]` moves left.
struct DeviceOutputs {
    policy: Tensor,
    value: Tensor,
    moves_left: Option<Tensor>,
}

impl DeviceOutputs {
    /// The outputs as f32 on the host.
    fn to_host(&self) -> Result<RawOutputs, tch::TchError> {
        Ok(RawOutputs {
            policy: host_f32_vec(&self.policy)?,
            value: host_f32_vec(&self.value)?,
            moves_left: self.moves_left.as_ref().map(host_f32_vec).transpose()?,
        })
    }

    /// The first `batch` positions' outputs on the host, of the policy only the logits `gather` reads: its rows
    /// leave the device in the precision the network computed them in.
    fn to_host_gathered(&self, gather: &PolicyGather, batch: usize) -> Result<GatheredOutputs, tch::TchError> {
        let first = |t: &Tensor| t.f_narrow(0, 0, batch as i64);
        let policy = first(&self.policy)?.f_to_device(Device::Cpu)?.f_contiguous()?;
        Ok(GatheredOutputs {
            logits: gather_host_logits(&policy, gather)?,
            value: host_f32_vec(&first(&self.value)?)?,
            moves_left: self.moves_left.as_ref().map(|m| host_f32_vec(&first(m)?)).transpose()?,
        })
    }
}

/// The elements of `t` as f32 on the host, in row-major order.
fn host_f32_vec(t: &Tensor) -> Result<Vec<f32>, tch::TchError> {
    let t = t.f_to_kind(Kind::Float)?.f_to_device(Device::Cpu)?.f_contiguous()?;
    Ok(host_slice::<f32>(&t).to_vec())
}

/// The logits `gather` reads from policy rows in a contiguous host tensor, read in its own precision (f32, f16 or
/// bf16) and widened where read; rows in any other precision are widened first.
fn gather_host_logits(policy: &Tensor, gather: &PolicyGather) -> Result<Vec<f32>, tch::TchError> {
    Ok(match policy.kind() {
        Kind::Float => gather.logits(host_slice::<f32>(policy)),
        Kind::Half => gather.logits(host_slice::<half::f16>(policy)),
        Kind::BFloat16 => gather.logits(host_slice::<half::bf16>(policy)),
        _ => gather.logits(host_slice::<f32>(&policy.f_to_kind(Kind::Float)?)),
    })
}

/// The element types host tensors are read as, each with its libtorch kind: tch 0.24's own `Element` gives bf16 the
/// kind of f16 (tch-rs issue 995, open), which would let a bf16 tensor pass for an f16 one.
trait HostElement: Copy {
    const KIND: Kind;
}

impl HostElement for f32 {
    const KIND: Kind = Kind::Float;
}

impl HostElement for half::f16 {
    const KIND: Kind = Kind::Half;
}

impl HostElement for half::bf16 {
    const KIND: Kind = Kind::BFloat16;
}

/// The elements of a contiguous host tensor of `T`'s kind, to write (panics on another kind or layout).
fn host_slice_mut<T: HostElement>(t: &mut Tensor) -> &mut [T] {
    let writable = t.kind() == T::KIND && t.device() == Device::Cpu && t.is_contiguous();
    assert!(writable, "not a contiguous {:?} tensor on the host", T::KIND);
    let length = t.numel();
    if length == 0 {
        return &mut [];
    }
    // SAFETY: `t` is a contiguous tensor of `length` elements of `T` in host memory (checked above), borrowed
    // mutably for as long as the slice lives, so nothing else reads or writes it meanwhile.
    unsafe { std::slice::from_raw_parts_mut(t.data_ptr().cast::<T>(), length) }
}

/// The elements of a contiguous host tensor of `T`, without a copy.
fn host_slice<T: HostElement>(t: &Tensor) -> &[T] {
    let readable = t.kind() == T::KIND && t.device() == Device::Cpu && t.is_contiguous();
    assert!(readable, "not a contiguous {:?} tensor on the host", T::KIND);
    let length = t.numel();
    if length == 0 {
        return &[];
    }
    // SAFETY: `t` is a contiguous tensor of `length` elements of `T` in host memory (checked above), which lives as
    // long as the borrow of `t` and which nothing writes while the slice lives.
    unsafe { std::slice::from_raw_parts(t.data_ptr().cast::<T>(), length) }
}

impl TorchNetwork {
    /// Uploads the network's weights to `device` in precision `kind` (Float, Half or BFloat16).
    pub fn new(network: &Network, device: Device, kind: Kind) -> Result<Self, tch::TchError> {
        let make = TensorMaker { device, kind };
        let conv = |c: &Conv| -> Result<ConvT, tch::TchError> {
            let shape = [c.out_channels as i64, c.in_channels as i64, c.kernel as i64, c.kernel as i64];
            let weights = channels_last(&make.tensor(&c.weights, &shape)?)?;
            Ok(ConvT { weights, biases: make.vector(&c.biases)?, padding: (c.kernel / 2) as i64 })
        };
        let head = |input: &HeadInput, fc1: &Dense, fc2: &Dense| -> Result<HeadT, tch::TchError> {
            let (input, fc1) = match input {
                HeadInput::Convolution(c) => (HeadInputT::Convolution(conv(c)?), square_major_columns(fc1)),
                HeadInput::Embedding(d) => (HeadInputT::Embedding(DenseT::dense(&make, d)?), fc1.clone()),
            };
            Ok(HeadT { input, fc1: DenseT::dense(&make, &fc1)?, fc2: DenseT::dense(&make, fc2)? })
        };
        let body = match &network.body {
            Body::Residual(tower) => BodyT::Residual {
                input: conv(&tower.input)?,
                tower: tower
                    .blocks
                    .iter()
                    .map(|b| {
                        let se = match &b.se {
                            Some(se) => Some(SqueezeExciteT::new(&make, se, &b.conv2.biases)?),
                            None => None,
                        };
                        Ok(BlockT { conv1: conv(&b.conv1)?, conv2: conv(&b.conv2)?, se })
                    })
                    .collect::<Result<Vec<_>, tch::TchError>>()?,
                filters: tower.filters() as i64,
            },
            Body::Attention(body) => BodyT::Attention(Box::new(AttentionBodyT::new(&make, body, network.activation)?)),
        };
        let (policy, policy_gather) = match &network.policy {
            PolicyHead::Classical { conv: c, fc } => {
                (PolicyT::Classical { conv: conv(c)?, fc: DenseT::dense(&make, &square_major_columns(fc))? }, None)
            }
            PolicyHead::Convolution { conv1, conv2 } => (
                PolicyT::Convolution { conv1: conv(conv1)?, conv2: conv(conv2)? },
                Some(gather_index(&square_major_slots(conv_policy_map(), conv2.out_channels), device)?),
            ),
            PolicyHead::Attention(head) => (
                PolicyT::Attention {
                    embedding: DenseT::dense(&make, &head.embedding)?,
                    embedding_activation: head.embedding_activation,
                    encoders: head.encoders.as_ref().map(|e| EncoderStackT::new(&make, e)).transpose()?,
                    query: DenseT::dense(&make, &head.query)?,
                    key: DenseT::dense(&make, &head.key)?,
                    promotion: make.matrix(&head.promotion, 4, head.key.outputs)?,
                    key_width: head.key.outputs,
                },
                Some(gather_index(attention_policy_map(), device)?),
            ),
        };
        let value = head(&network.value.input, &network.value.fc1, &network.value.fc2)?;
        let moves_left = match &network.moves_left {
            Some(m) => Some(head(&m.input, &m.fc1, &m.fc2)?),
            None => None,
        };
        Ok(Self {
            device,
            kind,
            activation: network.activation,
            body,
            policy,
            policy_gather,
            value,
            value_kind: network.value.kind,
            moves_left,
            smolgen_global: network.smolgen_global.as_ref().map(|g| DenseT::projection(&make, g)).transpose()?,
            file_bits: Tensor::f_from_slice(&std::array::from_fn::<u8, 8, _>(|file| 1u8 << file))?
                .f_reshape([1, 1, 8, 1])?
                .f_to_device(device)?,
            fused_convolutions: false,
        })
    }

    /// The device the network runs on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// From now on runs each convolution that a ReLU follows, and a plain residual block's second convolution with
    /// its skip, as one call (on CUDA libtorch's `cudnn_convolution_relu` and `cudnn_convolution_add_relu`, on the
    /// CPU oneDNN's `mkldnn::_convolution_pointwise`: the bias, the skip and the ReLU in the convolution's
    /// epilogue), where `conv2d` makes a pass of its own over the output for each. Returns `Ok(false)` where
    /// nothing would fuse (another activation, an attention body), and an error where libtorch refuses the fused
    /// calls (as oneDNN does bf16 on CPUs without AVX-512) or they disagree with the separate operations on a
    /// random batch; either way the separate operations stay.
    pub fn fuse_convolutions(&mut self) -> Result<bool, tch::TchError> {
        let BodyT::Residual { input, tower, .. } = &self.body else {
            return Ok(false);
        };
        let Some(block) = tower.first().filter(|_| self.activation == Activation::Relu) else {
            return Ok(false);
        };
        let tolerance = if self.kind == Kind::Float { 1e-4 } else { 2e-2 };
        let agree = |separate: &Tensor, fused: &Tensor, what: &str| -> Result<(), tch::TchError> {
            // Relative to the largest output: in half precision a fused epilogue rounds once where the separate
            // operations round after each, a few units in the last place of the largest values.
            let largest = separate.f_abs()?.f_max()?.f_double_value(&[])?.max(1.0);
            let difference = separate.f_sub(fused)?.f_abs()?.f_max()?.f_double_value(&[])?;
            if difference <= tolerance * largest {
                return Ok(());
            }
            Err(tch::TchError::Torch(format!(
                "the fused {what} is up to {difference} from the separate operations (outputs up to {largest})"
            )))
        };
        tch::no_grad(|| {
            let planes = Tensor::f_rand([2, PLANES as i64, 8, 8], (self.kind, self.device))?;
            let planes = channels_last(&planes)?;
            let x = self.conv_activated(&planes, input)?;
            agree(&x, &fused_conv_relu(&planes, input)?, "convolution and ReLU")?;
            let y = self.conv_activated(&x, &block.conv1)?;
            let z = self.conv_skip_activated(&y, &block.conv2, &x)?;
            agree(&z, &fused_conv_skip_relu(&y, &block.conv2, &x)?, "convolution, skip and ReLU")
        })?;
        self.fused_convolutions = true;
        Ok(true)
    }

    /// Runs a batch of encoded positions, padded with empty ones to `padded_batch_size` (their outputs are
    /// dropped).
    pub fn forward(&self, positions: &[InputPlanes]) -> Result<RawOutputs, tch::TchError> {
        let batch = positions.len();
        let padded = padded_batch_size(batch);
        let mut outputs = tch::no_grad(|| self.padded_pass(positions, padded)?.to_host())?;
        outputs.keep_first(batch, padded);
        Ok(outputs)
    }

    /// [`TorchNetwork::forward`] with the policy reduced to the logits `gather` reads, read where the rows lie.
    pub fn forward_gathered(
        &self,
        positions: &[InputPlanes],
        gather: &PolicyGather,
    ) -> Result<GatheredOutputs, tch::TchError> {
        let padded = padded_batch_size(positions.len());
        tch::no_grad(|| self.padded_pass(positions, padded)?.to_host_gathered(gather, positions.len()))
    }

    /// [`TorchNetwork::forward_gathered`] of `batch` positions written into `rows`.
    pub(crate) fn forward_rows_gathered(
        &self,
        rows: &InputRows,
        batch: usize,
        gather: &PolicyGather,
    ) -> Result<GatheredOutputs, tch::TchError> {
        let padded = padded_batch_size(batch);
        tch::no_grad(|| {
            let input = self.expand_rows(rows, padded)?;
            self.device_outputs(&input, padded as i64)?.to_host_gathered(gather, batch)
        })
    }

    /// The outputs of `positions` padded with empty ones to `padded`, still on the device.
    fn padded_pass(&self, positions: &[InputPlanes], padded: usize) -> Result<DeviceOutputs, tch::TchError> {
        let input = if self.device == Device::Cpu {
            self.channels_last_input(positions, padded)?
        } else {
            let mut rows = InputRows::new(padded, false)?;
            rows.write(positions, padded);
            self.expand_rows(&rows, padded)?
        };
        self.device_outputs(&input, padded as i64)
    }

    /// The network's input from the first `padded` of `rows`, copied to the device and expanded there.
    fn expand_rows(&self, rows: &InputRows, padded: usize) -> Result<Tensor, tch::TchError> {
        let (masks, values) = rows.first(padded)?;
        self.expand_on_device(&masks.f_to_device(self.device)?, &values.f_to_device(self.device)?)
    }

    /// The input planes written square by square on the host, which is the channels-last layout itself, in the
    /// network's kind straight into the tensor's memory: no expansion's operators, and no f32 vector copied in and
    /// converted (two more passes: without them a bf16 pass at batch 256 ran 12 % faster, BENCHMARKS.md, "The AMX
    /// Xeon a third time").
    fn channels_last_input(&self, positions: &[InputPlanes], padded: usize) -> Result<Tensor, tch::TchError> {
        let mut input = Tensor::f_empty([padded as i64, 8, 8, PLANES as i64], (self.kind, Device::Cpu))?;
        match self.kind {
            Kind::BFloat16 => write_square_major_input(positions, host_slice_mut(&mut input), half::bf16::from_f32),
            Kind::Half => write_square_major_input(positions, host_slice_mut(&mut input), half::f16::from_f32),
            _ => write_square_major_input(positions, host_slice_mut::<f32>(&mut input), |value| value),
        }
        input.f_permute([0, 3, 1, 2])
    }

    /// The input planes from their bit masks and values on the device (`[batch][112][1]` each, as [`InputRows`]
    /// hold them), in channels-last layout and the network's precision. A mask's eight bytes are its eight ranks
    /// (bit `8·rank + file`, little-endian), so the planes are expanded byte by byte straight into channels-last
    /// order, `[batch][rank][file][plane]`: a byte and a flag a square and plane where 64-bit masks and f32 planes
    /// took eight and four, and no reorder after.
    fn expand_on_device(&self, masks: &Tensor, values: &Tensor) -> Result<Tensor, tch::TchError> {
        let batch = masks.size()[0];
        let planes = PLANES as i64;
        let ranks = masks.f_view_dtype(Kind::Uint8)?.f_reshape([batch, planes, 8])?.f_permute([0, 2, 1])?;
        let set = ranks.f_contiguous()?.f_unsqueeze(2)?.f_bitwise_and_tensor(&self.file_bits)?.f_ne(0)?;
        let values = values.f_to_kind(self.kind)?.f_reshape([batch, 1, 1, planes])?;
        set.f_mul(&values)?.f_permute([0, 3, 1, 2])
    }

    fn act(&self, x: &Tensor) -> Result<Tensor, tch::TchError> {
        activate(x, self.activation)
    }

    fn act_in_place(&self, x: &mut Tensor) -> Result<(), tch::TchError> {
        match self.activation {
            Activation::Relu => x.f_relu_().map(drop),
            Activation::Mish => x.f_mish_().map(drop),
            other => {
                *x = activate(x, other)?;
                Ok(())
            }
        }
    }

    /// A convolution and the network's activation after it.
    fn conv_activated(&self, x: &Tensor, c: &ConvT) -> Result<Tensor, tch::TchError> {
        if self.fused_convolutions {
            return fused_conv_relu(x, c);
        }
        let mut y = Self::conv(x, c)?;
        self.act_in_place(&mut y)?;
        Ok(y)
    }

    /// A plain residual block's second convolution, its skip added, and the network's activation after them.
    fn conv_skip_activated(&self, y: &Tensor, c: &ConvT, skip: &Tensor) -> Result<Tensor, tch::TchError> {
        if self.fused_convolutions {
            return fused_conv_skip_relu(y, c, skip);
        }
        let mut z = Self::conv(y, c)?;
        z.f_add_(skip).map(drop)?;
        self.act_in_place(&mut z)?;
        Ok(z)
    }

    fn conv(x: &Tensor, c: &ConvT) -> Result<Tensor, tch::TchError> {
        x.f_conv2d(&c.weights, Some(&c.biases), [1, 1], [c.padding, c.padding], [1, 1], 1)
    }

    /// A value or moves-left head's output before its final activation. `features` are the body's:
    /// `[batch][filters][8][8]` for a tower, `[batch][64][embedding]` for an attention body.
    fn head(&self, features: &Tensor, h: &HeadT, batch: i64) -> Result<Tensor, tch::TchError> {
        let rows = match &h.input {
            HeadInputT::Convolution(conv) => square_major_rows(&self.conv_activated(features, conv)?, batch)?,
            HeadInputT::Embedding(dense) => self.act(&dense.apply(features)?)?.f_reshape([batch, -1])?,
        };
        let v = h.fc1.apply_activated(&rows, self.activation)?;
        h.fc2.apply(&v)
    }

    /// The outputs of a batch of `batch` positions from the input planes, on the device.
    fn device_outputs(&self, input: &Tensor, batch: i64) -> Result<DeviceOutputs, tch::TchError> {
        let features = match &self.body {
            BodyT::Residual { input: input_conv, tower, filters } => {
                self.residual_tower(input, input_conv, tower, *filters, batch)?
            }
            BodyT::Attention(body) => {
                let squares = input.f_permute([0, 2, 3, 1])?.f_reshape([batch, 64, PLANES as i64])?;
                body.apply(&squares, self.smolgen_global.as_ref())?
            }
        };
        let value_outputs = if self.value_kind == ValueKind::Wdl { 3 } else { 1 };
        Ok(DeviceOutputs {
            policy: self.policy(&features, batch)?,
            value: self.head(&features, &self.value, batch)?.f_reshape([batch, value_outputs])?,
            moves_left: match &self.moves_left {
                Some(head) => Some(self.head(&features, head, batch)?.f_relu()?),
                None => None,
            },
        })
    }

    fn residual_tower(
        &self,
        input: &Tensor,
        input_conv: &ConvT,
        tower: &[BlockT],
        filters: i64,
        batch: i64,
    ) -> Result<Tensor, tch::TchError> {
        // The tower's activations, scalings and residual sums are computed in place: each is a fresh tensor
        // no one else holds, and every allocation saved is one less malloc and pass over memory a layer.
        let mut x = self.conv_activated(input, input_conv)?;
        for block in tower {
            let y = self.conv_activated(&x, &block.conv1)?;
            x = match &block.se {
                Some(se) => self.squeeze_excite_activated(&y, &x, &block.conv2, se, [batch, filters])?,
                None => self.conv_skip_activated(&y, &block.conv2, &x)?,
            };
        }
        Ok(x)
    }

    /// A block's second convolution scaled and shifted by its squeeze-excitation, plus the residual `x`, and the
    /// block's activation: `(conv(y) + b) * gamma + beta + x`, computed as `conv(y) * gamma + (x + b * gamma +
    /// beta)`, so that the full-size tensor is passed over by one add and one fused multiply-add (no bias add of
    /// its own, no separate scaling), the bias entering the small `[batch][filters]` tensors instead.
    fn squeeze_excite_activated(
        &self,
        y: &Tensor,
        x: &Tensor,
        conv2: &ConvT,
        se: &SqueezeExciteT,
        [batch, filters]: [i64; 2],
    ) -> Result<Tensor, tch::TchError> {
        let padding = [conv2.padding, conv2.padding];
        let mut unbiased = y.f_conv2d(&conv2.weights, None::<Tensor>, [1, 1], padding, [1, 1], 1)?;
        // On the CPU the block runs in plain Rust where its kernels take the tensors (squeeze_excite_cpu).
        let means = squeeze_excite_cpu::channel_means(&unbiased);
        if let (Some(means), Some(host), Activation::Relu) = (&means, &se.host, self.activation) {
            if let Some((gamma, shift)) = host.gamma_and_shift(means) {
                if squeeze_excite_cpu::scale_shift_skip_relu(&mut unbiased, x, &gamma, &shift) {
                    return Ok(unbiased);
                }
            }
        }
        let pooled = match means {
            Some(means) => Tensor::f_from_slice(&means)?.f_reshape([batch, filters])?.f_to_kind(self.kind)?,
            None => unbiased.f_mean_dim([2i64, 3].as_slice(), false, None::<Kind>)?,
        };
        let s = se.fc2.apply(&self.act(&se.fc1.apply(&pooled)?)?)?;
        let gamma = s.f_narrow(1, 0, filters)?.f_sigmoid()?;
        let shift = s.f_narrow(1, filters, filters)?.f_addcmul(&conv2.biases, &gamma)?;
        let mut z = x.f_add(&shift.f_reshape([batch, filters, 1, 1])?)?;
        z.f_addcmul_(&unbiased, &gamma.f_reshape([batch, filters, 1, 1])?).map(drop)?;
        self.act_in_place(&mut z)?;
        Ok(z)
    }

    /// The 1858 policy logits from the body's features.
    fn policy(&self, features: &Tensor, batch: i64) -> Result<Tensor, tch::TchError> {
        let flat = match &self.policy {
            PolicyT::Classical { conv, fc } => {
                let p = square_major_rows(&self.conv_activated(features, conv)?, batch)?;
                return fc.apply(&p);
            }
            PolicyT::Convolution { conv1, conv2 } => {
                let p = self.conv_activated(features, conv1)?;
                square_major_rows(&Self::conv(&p, conv2)?, batch)?
            }
            PolicyT::Attention { embedding, embedding_activation, encoders, query, key, promotion, key_width } => {
                let squares = match &self.body {
                    BodyT::Residual { filters, .. } => features.f_reshape([batch, *filters, 64])?.f_transpose(1, 2)?,
                    BodyT::Attention(_) => features.shallow_clone(),
                };
                let mut h = embedding.apply_activated(&squares, *embedding_activation)?;
                if let Some(encoders) = encoders {
                    h = encoders.apply(h, self.smolgen_global.as_ref())?;
                }
                let q = query.apply(&h)?;
                let k = key.apply(&h)?;
                let logits = q.f_matmul(&k.f_transpose(1, 2)?)?.f_divide_scalar((*key_width as f64).sqrt())?;
                let offsets = k.f_narrow(1, 56, 8)?.f_matmul(&promotion.f_transpose(0, 1)?)?;
                let bonus = offsets.f_narrow(2, 0, 3)?.f_add(&offsets.f_narrow(2, 3, 1)?)?;
                let promotions = logits
                    .f_narrow(1, 48, 8)?
                    .f_narrow(2, 56, 8)?
                    .f_unsqueeze(-1)?
                    .f_add(&bonus.f_unsqueeze(1)?)?
                    .f_reshape([batch, 192])?;
                Tensor::f_cat(&[logits.f_reshape([batch, 4096])?, promotions], 1)?
            }
        };
        match &self.policy_gather {
            Some(gather) => flat.f_index_select(1, gather),
            None => Ok(flat),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{every_padded_size, padded_batch_size, TorchNetwork, PLANES};
    use crate::loader::load_network;
    use tch::{Device, Kind, Tensor};

    #[test]
    fn masks_expand_into_their_squares_in_channels_last_order() {
        let weights = concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/maia-1900.pb.gz");
        let network = load_network(std::path::Path::new(weights)).expect("scripts/setup installs Maia-1900");
        let torch = TorchNetwork::new(&network, Device::Cpu, Kind::Float).expect("libtorch network");
        // Position 1, plane 3: f3 (rank 2, file 5, bit 21) at 0.5; plane 111: h8 (bit 63) at 1. All else empty.
        let mut masks = vec![0i64; 2 * PLANES];
        let mut values = vec![0f32; 2 * PLANES];
        (masks[PLANES + 3], values[PLANES + 3]) = (1 << 21, 0.5);
        (masks[PLANES + 111], values[PLANES + 111]) = (1 << 63, 1.0);
        let rows = |t: Tensor| t.reshape([2, PLANES as i64, 1]);
        let planes = torch
            .expand_on_device(&rows(Tensor::from_slice(&masks)), &rows(Tensor::from_slice(&values)))
            .expect("expands");
        assert_eq!(planes.size(), [2, 112, 8, 8]);
        assert_eq!(planes.stride(), [7168, 1, 896, 112], "channels-last, so the first convolution needs no reorder");
        assert_eq!(planes.double_value(&[1, 3, 2, 5]), 0.5);
        assert_eq!(planes.double_value(&[1, 111, 7, 7]), 1.0);
        assert_eq!(planes.abs().sum(Kind::Double).double_value(&[]), 1.5, "nothing else set");
    }

    #[test]
    fn batches_are_padded_to_a_power_of_two_or_three_quarters_of_one() {
        let expected = [
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 6),
            (6, 6),
            (7, 8),
            (8, 8),
            (9, 12),
            (12, 12),
            (13, 16),
            (17, 24),
            (24, 24),
            (25, 32),
            (32, 32),
            (33, 48),
            (49, 64),
            (64, 64),
            (65, 96),
            (200, 256),
        ];
        for (batch, padded) in expected {
            assert_eq!(padded_batch_size(batch), padded, "batch {batch}");
        }
    }

    #[test]
    fn a_network_loaded_for_batches_of_up_to_1024_captures_twenty_sizes() {
        let sizes = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024];
        assert_eq!(every_padded_size(1024), sizes);
        assert_eq!(every_padded_size(5), [1, 2, 3, 4, 6]);
    }
}
