//! oneDNN's linear layer on weights reordered once into its blocked layout, through libtorch's stable C ABI
//! (PyTorch's `mkldnn::_reorder_linear_weight` and `_linear_pointwise`, which its inductor uses on frozen
//! models). `Tensor::linear` in bf16 on the CPU reorders the weights at every call: on the Xeon with AMX of
//! BENCHMARKS.md one call took 37–780 µs where the prepacked one took 16–400 µs, from 1 to 2048 rows.
//!
//! tch does not bind these operators, but its tensors are libtorch's `at::Tensor*`, which the C ABI's
//! `AtenTensorHandle` is, so the functions libtorch exports are called as they are.

use std::ffi::{c_char, CStr};
use std::ptr;

use tch::{TchError, Tensor};

use super::dispatcher::{call_with_none, returned_tensor, TensorHandle};

use crate::network::Activation;

extern "C" {
    /// `mkldnn::_linear_pointwise(X, W, B?, attr, scalars, algorithm?)`; borrows its tensors.
    fn aoti_torch_cpu__linear_pointwise(
        input: TensorHandle,
        weights: TensorHandle,
        biases: *mut TensorHandle,
        attr: *const c_char,
        scalars: *const *const f64,
        scalars_len: i64,
        algorithm: *const *const c_char,
        output: *mut TensorHandle,
    ) -> i32;
}

/// `weights` (`[outputs][inputs]`, on the CPU) reordered into oneDNN's layout for every batch size.
pub(super) fn pack(weights: &Tensor) -> Result<Tensor, TchError> {
    // `_reorder_linear_weight(Tensor self, int? batch_size=None)`.
    call_with_none(c"mkldnn::_reorder_linear_weight", weights)
}

/// The activation oneDNN can apply in the same call, as libtorch names it.
pub(super) fn fused_name(activation: Activation) -> Option<&'static CStr> {
    match activation {
        Activation::None => Some(c"none"),
        Activation::Relu => Some(c"relu"),
        Activation::Swish => Some(c"swish"),
        Activation::Tanh => Some(c"tanh"),
        Activation::Sigmoid => Some(c"sigmoid"),
        Activation::Mish | Activation::Selu | Activation::Relu2 => None,
    }
}

/// `activation(x·Wᵀ + b)` for `x` of two dimensions, `activation` one of [`fused_name`]'s.
pub(super) fn linear(
    x: &Tensor,
    packed: &Tensor,
    biases: Option<&Tensor>,
    activation: &CStr,
) -> Result<Tensor, TchError> {
    let mut bias_handle = biases.map_or(ptr::null_mut(), |b| b.as_ptr() as TensorHandle);
    let bias_argument = if biases.is_some() { &mut bias_handle as *mut TensorHandle } else { ptr::null_mut() };
    let mut output: TensorHandle = ptr::null_mut();
    // SAFETY: the tensors outlive the call, which only borrows them; no scalars and no algorithm are passed;
    // on success `output` is an owned `at::Tensor*`.
    let status = unsafe {
        aoti_torch_cpu__linear_pointwise(
            x.as_ptr() as TensorHandle,
            packed.as_ptr() as TensorHandle,
            bias_argument,
            activation.as_ptr(),
            ptr::null(),
            0,
            ptr::null(),
            &mut output,
        )
    };
    returned_tensor(status, output, c"mkldnn::_linear_pointwise")
}
