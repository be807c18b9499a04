//! A squeeze-excitation block's passes over the full tensor on the CPU, in plain Rust over libtorch's channels-last
//! memory: the channels' means, where libtorch's `mean_dim` of a bf16 tensor first copies all of it to f32, and the
//! block's tail `relu(conv·γ + skip + shift)` in one pass, where libtorch makes three (`add`, `addcmul_`, `relu_`),
//! each in its AVX2 loops. In bf16 at batch 256 on the AMX Xeon these took a fifth of Maia-1900's forward pass
//! (BENCHMARKS.md, "The AMX Xeon a third time"). Sums and products are in f32, rounded once to the tensor's kind.
//! Between the two, the excitation's dense layers from the means to γ and the shift run on the host in f32 too
//! ([`HostExcitation`]): a dozen libtorch operators on `[batch][channels]` tensors cost more than their products.

use std::sync::OnceLock;

use tch::{Device, Kind, Tensor};

use crate::network::Dense;
use crate::rust_net::{Isa, Linear};

/// A `[batch][channels][8][8]` tensor in channels-last memory (`[batch][square][channel]`) on the CPU.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Layout {
    batch: usize,
    channels: usize,
    kind: Kind,
}

impl Layout {
    /// The layout of `t` if these kernels can read it: f32 or bf16, dense channels-last, with libtorch's own
    /// elementwise loops on one thread (with more, its parallel loops stay the faster path).
    fn of(t: &Tensor) -> Option<Self> {
        if t.device() != Device::Cpu || !matches!(t.kind(), Kind::Float | Kind::BFloat16) || tch::get_num_threads() != 1
        {
            return None;
        }
        let [batch, channels, 8, 8] = t.size()[..] else {
            return None;
        };
        if t.stride() != [64 * channels, 1, 8 * channels, channels] {
            return None;
        }
        Some(Self { batch: usize::try_from(batch).ok()?, channels: usize::try_from(channels).ok()?, kind: t.kind() })
    }

    fn len(self) -> usize {
        self.batch * 64 * self.channels
    }
}

/// The mean of each channel of each position of `t`, `[batch][channels]`, or `None` where [`Layout::of`] refuses it.
pub(super) fn channel_means(t: &Tensor) -> Option<Vec<f32>> {
    let layout = Layout::of(t)?;
    let mut means = vec![0.0; layout.batch * layout.channels];
    // SAFETY: `Layout::of` found a dense tensor of `len` elements of the matched kind, which `t` keeps alive.
    unsafe {
        match layout.kind {
            Kind::BFloat16 => dispatch_means(elements::<Bf16>(t, layout.len()), layout.channels, &mut means),
            _ => dispatch_means(elements::<f32>(t, layout.len()), layout.channels, &mut means),
        }
    }
    Some(means)
}

/// `out = relu(out·γ + skip + shift)`, `γ` and `shift` per position and channel (`[batch][channels]`). Returns
/// false, leaving `out` alone, where [`Layout::of`] refuses `out`, `skip` differs from it, or the vectors do not
/// match them.
pub(super) fn scale_shift_skip_relu(out: &mut Tensor, skip: &Tensor, gamma: &[f32], shift: &[f32]) -> bool {
    let Some(layout) = Layout::of(out).filter(|layout| Layout::of(skip) == Some(*layout)) else {
        return false;
    };
    let per_channel = layout.batch * layout.channels;
    if gamma.len() != per_channel || shift.len() != per_channel || out.data_ptr() == skip.data_ptr() {
        return false;
    }
    // SAFETY: both are dense tensors of `len` elements of the matched kind, distinct (checked above), kept alive by
    // their owners; `out` is borrowed mutably, so nothing else writes it meanwhile.
    unsafe {
        match layout.kind {
            Kind::BFloat16 => dispatch_tail(
                elements_mut::<Bf16>(out, layout.len()),
                elements::<Bf16>(skip, layout.len()),
                gamma,
                shift,
                layout.channels,
            ),
            _ => dispatch_tail(
                elements_mut::<f32>(out, layout.len()),
                elements::<f32>(skip, layout.len()),
                gamma,
                shift,
                layout.channels,
            ),
        }
    }
    true
}

/// A block's excitation on the host, from the channel means of its unbiased second convolution to the tail's γ and
/// shift: `fc1` (the convolution's bias folded into its own, as [`super::SqueezeExciteT`] holds it), ReLU, `fc2`,
/// whose first half through a sigmoid is γ and whose second half plus the convolution's bias times γ is the shift.
pub(super) struct HostExcitation {
    fc1: Linear,
    fc2: Linear,
    conv_biases: Vec<f32>,
}

impl HostExcitation {
    /// `fc1` with the convolution's bias already folded in; `conv_biases` the second convolution's. `None` for a
    /// layer without inputs (libtorch's operators then take the block, as for any excitation this one refuses).
    pub(super) fn new(fc1: &Dense, fc2: &Dense, conv_biases: &[f32]) -> Option<Self> {
        (fc1.inputs > 0 && fc2.inputs > 0).then(|| Self {
            fc1: Linear::new(fc1),
            fc2: Linear::new(fc2),
            conv_biases: conv_biases.to_vec(),
        })
    }

    /// γ and the shift, `[batch][channels]` each, from the means `[batch][channels]`; `None` for means of another
    /// width.
    pub(super) fn gamma_and_shift(&self, means: &[f32]) -> Option<(Vec<f32>, Vec<f32>)> {
        let channels = self.conv_biases.len();
        if self.fc1.inputs != channels || self.fc2.outputs != 2 * channels || !means.len().is_multiple_of(channels) {
            return None;
        }
        let mut hidden = dense_rows(&self.fc1, means);
        hidden.iter_mut().for_each(|h| *h = h.max(0.0));
        let both = dense_rows(&self.fc2, &hidden);
        let mut gamma = Vec::with_capacity(means.len());
        let mut shift = Vec::with_capacity(means.len());
        for position in both.chunks_exact(2 * channels) {
            let (gates, offsets) = position.split_at(channels);
            for ((&gate, &offset), &bias) in gates.iter().zip(offsets).zip(&self.conv_biases) {
                let g = 1.0 / (1.0 + (-gate).exp());
                gamma.push(g);
                shift.push(offset + bias * g);
            }
        }
        Some((gamma, shift))
    }
}

/// `layer` applied to each row of `x` (`[rows][inputs]`), `[rows][outputs]` (rust_net's
/// [`Linear::apply_to_squares`]), with FMA where the CPU has it.
fn dense_rows(layer: &Linear, x: &[f32]) -> Vec<f32> {
    match isa() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::detect` found AVX-512F and FMA on this CPU.
        Isa::Avx512 => unsafe { dense_avx512(layer, x) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::detect` found AVX2 and FMA on this CPU.
        Isa::Avx2 => unsafe { dense_avx2(layer, x) },
        _ => layer.apply_to_squares::<false>(x),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn dense_avx512(layer: &Linear, x: &[f32]) -> Vec<f32> {
    layer.apply_to_squares::<true>(x)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dense_avx2(layer: &Linear, x: &[f32]) -> Vec<f32> {
    layer.apply_to_squares::<true>(x)
}

/// # Safety
/// `t` holds `len` dense elements of `E`'s kind and outlives the slice.
unsafe fn elements<E>(t: &Tensor, len: usize) -> &[E] {
    // SAFETY: as the caller promises.
    unsafe { std::slice::from_raw_parts(t.data_ptr() as *const E, len) }
}

/// # Safety
/// As [`elements`], and no one else reads or writes `t` while the slice lives.
unsafe fn elements_mut<E>(t: &mut Tensor, len: usize) -> &mut [E] {
    // SAFETY: as the caller promises.
    unsafe { std::slice::from_raw_parts_mut(t.data_ptr() as *mut E, len) }
}

/// An element of a tensor as these kernels read and write it.
trait Element: Copy {
    fn widen(self) -> f32;
    fn narrow(value: f32) -> Self;
}

impl Element for f32 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }

    #[inline(always)]
    fn narrow(value: f32) -> Self {
        value
    }
}

/// A bf16's bits, rounded to nearest even as libtorch's `c10::BFloat16` rounds (a NaN stays a NaN).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Bf16(u16);

impl Element for Bf16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }

    #[inline(always)]
    fn narrow(value: f32) -> Self {
        let bits = value.to_bits();
        let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16;
        Self(if value.is_nan() { 0x7FC0 } else { rounded as u16 })
    }
}

fn isa() -> Isa {
    static DETECTED: OnceLock<Isa> = OnceLock::new();
    *DETECTED.get_or_init(Isa::detect)
}

fn dispatch_means<E: Element>(data: &[E], channels: usize, means: &mut [f32]) {
    match isa() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::detect` found AVX-512F on this CPU.
        Isa::Avx512 => unsafe { means_avx512(data, channels, means) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::detect` found AVX2 on this CPU.
        Isa::Avx2 => unsafe { means_avx2(data, channels, means) },
        _ => means_of(data, channels, means),
    }
}

fn dispatch_tail<E: Element>(out: &mut [E], skip: &[E], gamma: &[f32], shift: &[f32], channels: usize) {
    match isa() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::detect` found AVX-512F on this CPU.
        Isa::Avx512 => unsafe { tail_avx512(out, skip, gamma, shift, channels) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::detect` found AVX2 on this CPU.
        Isa::Avx2 => unsafe { tail_avx2(out, skip, gamma, shift, channels) },
        _ => tail(out, skip, gamma, shift, channels),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn means_avx512<E: Element>(data: &[E], channels: usize, means: &mut [f32]) {
    means_of(data, channels, means);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn means_avx2<E: Element>(data: &[E], channels: usize, means: &mut [f32]) {
    means_of(data, channels, means);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn tail_avx512<E: Element>(out: &mut [E], skip: &[E], gamma: &[f32], shift: &[f32], channels: usize) {
    tail(out, skip, gamma, shift, channels);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn tail_avx2<E: Element>(out: &mut [E], skip: &[E], gamma: &[f32], shift: &[f32], channels: usize) {
    tail(out, skip, gamma, shift, channels);
}

/// Each position's 64 squares summed channel by channel, then divided by 64 (exactly: a power of two).
#[inline(always)]
fn means_of<E: Element>(data: &[E], channels: usize, means: &mut [f32]) {
    for (position, mean) in data.chunks_exact(64 * channels).zip(means.chunks_exact_mut(channels)) {
        mean.fill(0.0);
        for square in position.chunks_exact(channels) {
            for (sum, value) in mean.iter_mut().zip(square) {
                *sum += value.widen();
            }
        }
        for sum in mean.iter_mut() {
            *sum /= 64.0;
        }
    }
}

#[inline(always)]
fn tail<E: Element>(out: &mut [E], skip: &[E], gamma: &[f32], shift: &[f32], channels: usize) {
    let positions = out.chunks_exact_mut(64 * channels).zip(skip.chunks_exact(64 * channels));
    for ((out, skip), (gamma, shift)) in positions.zip(gamma.chunks_exact(channels).zip(shift.chunks_exact(channels))) {
        for (out, skip) in out.chunks_exact_mut(channels).zip(skip.chunks_exact(channels)) {
            for (((out, skip), gamma), shift) in out.iter_mut().zip(skip).zip(gamma).zip(shift) {
                let value = out.widen() * gamma + skip.widen() + shift;
                *out = E::narrow(if value < 0.0 { 0.0 } else { value });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use tch::{Device, Kind, Tensor};

    use super::{channel_means, scale_shift_skip_relu, Bf16, Element, HostExcitation};
    use crate::network::Dense;

    /// `[batch][channels][8][8]` from values given square-major (`[batch][square][channel]`), in channels-last memory.
    /// As the network thread runs them: libtorch's loops on one thread (`BackendThreads=1`).
    fn channels_last(values: &[f32], batch: i64, channels: i64, kind: Kind) -> Tensor {
        tch::set_num_threads(1);
        Tensor::from_slice(values).reshape([batch, 8, 8, channels]).to_kind(kind).permute([0, 3, 1, 2])
    }

    /// The values of `t` square-major (`[batch][square][channel]`) for a `[batch][channels][8][8]` tensor, as given
    /// to [`channels_last`]; a `[batch][channels]` tensor's as they are.
    fn host(t: &Tensor) -> Vec<f32> {
        let t = if t.dim() == 4 { t.permute([0, 2, 3, 1]) } else { t.shallow_clone() };
        Vec::<f32>::try_from(t.to_kind(Kind::Float).contiguous().flatten(0, -1)).unwrap()
    }

    #[test]
    fn the_means_are_each_channels_average_over_its_64_squares() {
        // Two positions, three channels: channel c of square s of position p holds p·100 + c·10 + s/8 (whole
        // eighths, exact in bf16 up to 256), whose mean over the squares is p·100 + c·10 + 63/16.
        let values: Vec<f32> = (0..2)
            .flat_map(|p| (0..64).flat_map(move |s| (0..3).map(move |c| (p * 100 + c * 10) as f32 + s as f32 / 8.0)))
            .collect();
        for kind in [Kind::Float, Kind::BFloat16] {
            let t = channels_last(&values, 2, 3, kind);
            let means = channel_means(&t).expect("a channels-last CPU tensor");
            assert_eq!(means, [3.9375, 13.9375, 23.9375, 103.9375, 113.9375, 123.9375], "{kind:?}");
        }
    }

    #[test]
    fn the_tail_scales_shifts_adds_the_skip_and_cuts_below_zero() {
        // One position, two channels; every square the same: out (2, -1), skip (0.5, 0.25), γ (0.5, 2), shift
        // (-2, 1): 2·0.5 + 0.5 - 2 = -0.5 → 0, -1·2 + 0.25 + 1 = -0.75 → 0; with shift (1, 3): 2.5, 1.25.
        for (shift, want) in [([-2.0, 1.0], [0.0, 0.0]), ([1.0, 3.0], [2.5, 1.25])] {
            for kind in [Kind::Float, Kind::BFloat16] {
                let mut out = channels_last(&[2.0, -1.0].repeat(64), 1, 2, kind);
                let skip = channels_last(&[0.5, 0.25].repeat(64), 1, 2, kind);
                assert!(scale_shift_skip_relu(&mut out, &skip, &[0.5, 2.0], &shift));
                assert_eq!(host(&out), want.repeat(64), "{kind:?}");
            }
        }
    }

    #[test]
    fn they_agree_with_libtorchs_operations_on_random_tensors() {
        let (batch, channels) = (5, 24);
        tch::set_num_threads(1);
        for kind in [Kind::Float, Kind::BFloat16] {
            let conv =
                Tensor::randn([batch, 8, 8, channels], (Kind::Float, Device::Cpu)).to_kind(kind).permute([0, 3, 1, 2]);
            let skip =
                Tensor::randn([batch, 8, 8, channels], (Kind::Float, Device::Cpu)).to_kind(kind).permute([0, 3, 1, 2]);
            let gamma = Tensor::rand([batch, channels], (Kind::Float, Device::Cpu));
            let shift = Tensor::randn([batch, channels], (Kind::Float, Device::Cpu));
            let tolerance = if kind == Kind::Float { 1e-5 } else { 2e-2 };

            let want = host(&conv.to_kind(Kind::Float).mean_dim([2i64, 3].as_slice(), false, None::<Kind>));
            let means = channel_means(&conv).expect("a channels-last CPU tensor");
            for (got, want) in means.iter().zip(&want) {
                assert!((got - want).abs() <= tolerance, "{kind:?}: mean {got} against {want}");
            }

            let shape = [batch, channels, 1, 1];
            let want =
                (conv.to_kind(Kind::Float) * gamma.reshape(shape) + skip.to_kind(Kind::Float) + shift.reshape(shape))
                    .relu();
            let mut out = conv.copy();
            let (gamma, shift) = (host(&gamma), host(&shift));
            assert!(scale_shift_skip_relu(&mut out, &skip, &gamma, &shift));
            for (got, want) in host(&out).iter().zip(host(&want)) {
                assert!((got - want).abs() <= tolerance * want.abs().max(1.0), "{kind:?}: {got} against {want}");
            }
        }
    }

    #[test]
    fn tensors_in_another_layout_or_kind_are_left_to_libtorch() {
        tch::set_num_threads(1);
        let nchw = Tensor::ones([1, 4, 8, 8], (Kind::Float, Device::Cpu));
        assert_eq!(channel_means(&nchw), None);
        let half = Tensor::ones([1, 8, 8, 4], (Kind::Half, Device::Cpu)).permute([0, 3, 1, 2]);
        assert_eq!(channel_means(&half), None);
        let mut out = Tensor::ones([1, 8, 8, 4], (Kind::Float, Device::Cpu)).permute([0, 3, 1, 2]);
        assert!(!scale_shift_skip_relu(&mut out, &nchw, &[1.0; 4], &[0.0; 4]), "a skip in NCHW");
        assert!(!scale_shift_skip_relu(&mut out.shallow_clone(), &out, &[1.0; 4], &[0.0; 4]), "the skip is the output");
        let skip = out.copy();
        assert!(!scale_shift_skip_relu(&mut out, &skip, &[1.0; 3], &[0.0; 4]), "too few scales");
        tch::set_num_threads(2);
        assert_eq!(channel_means(&skip), None, "libtorch's loops on two threads");
        tch::set_num_threads(1);
        assert!(channel_means(&skip).is_some());
    }

    #[test]
    fn bf16_rounds_to_nearest_even_as_libtorch() {
        // 1 + 2⁻⁸ and 1 + 3·2⁻⁸ lie halfway between two bf16s: to the even one, 1 and 1 + 2⁻⁶.
        let (halfway_down, halfway_up) = (f32::from_bits(0x3F80_8000), f32::from_bits(0x3F81_8000));
        for value in [1.0f32, halfway_down, halfway_up, -3.3, 1e-40, f32::INFINITY, 65504.0, 3.0e38] {
            let libtorch = Tensor::from_slice(&[value]).to_kind(Kind::BFloat16).view_dtype(Kind::Int16);
            let bits = i16::try_from(&libtorch.reshape([])).unwrap() as u16;
            assert_eq!(Bf16::narrow(value).0, bits, "{value}");
        }
        assert!(Bf16::narrow(f32::NAN).widen().is_nan());
    }

    /// Two channels, one hidden unit, worked by hand. Position 1, means (3, 1): hidden relu(3 − 1 + 0.5) = 2.5, fc2
    /// (0, 2·2.5, 2.5 + 0.5, −2.5) = (0, 5, 3, −2.5), γ = (σ(0), σ(5)) = (0.5, 0.993307149), shift = (3 + 2·0.5,
    /// −2.5 + 4·0.993307149) = (4, 1.473228596). Position 2, means (0, 2): hidden relu(−1.5) = 0, fc2 its biases
    /// (0, 0, 0.5, 0), γ = (0.5, 0.5), shift = (0.5 + 1, 0 + 2).
    #[test]
    fn the_host_excitation_gives_gamma_and_shift_as_worked_by_hand() {
        let dense = |outputs, inputs, weights: &[f32], biases: &[f32]| Dense {
            outputs,
            inputs,
            weights: weights.to_vec(),
            biases: biases.to_vec(),
        };
        let fc1 = dense(1, 2, &[1.0, -1.0], &[0.5]);
        let fc2 = dense(4, 1, &[0.0, 2.0, 1.0, -1.0], &[0.0, 0.0, 0.5, 0.0]);
        let excitation = HostExcitation::new(&fc1, &fc2, &[2.0, 4.0]).expect("layers with inputs");
        let (gamma, shift) = excitation.gamma_and_shift(&[3.0, 1.0, 0.0, 2.0]).expect("two channels a position");
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-6);
        assert!(close(&gamma, &[0.5, 0.993_307_2, 0.5, 0.5]), "{gamma:?}");
        assert!(close(&shift, &[4.0, 1.473_228_6, 1.5, 2.0]), "{shift:?}");
        assert!(excitation.gamma_and_shift(&[1.0, 2.0, 3.0]).is_none(), "means of another width");
        assert!(HostExcitation::new(&dense(1, 0, &[], &[0.5]), &fc2, &[2.0, 4.0]).is_none(), "no inputs");
    }
}
