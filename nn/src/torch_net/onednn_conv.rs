//! A convolution with its bias, ReLU and (for a plain residual block) skip in one oneDNN call on the CPU, through
//! libtorch's stable C ABI (PyTorch's `mkldnn::_convolution_pointwise` and `_convolution_pointwise.binary`, which
//! its inductor uses for the same fusions). `conv2d` followed by `relu_` passes over the output a second time, in
//! libtorch's AVX2 elementwise loop: in bf16 at batch 256 on the AMX Xeon, Maia-1900's ReLUs took 9 % of a forward
//! pass (BENCHMARKS.md, "The AMX Xeon a third time").

use std::ffi::c_char;
use std::ptr;

use tch::{TchError, Tensor};

use super::dispatcher::{returned_tensor, TensorHandle};

extern "C" {
    /// `mkldnn::_convolution_pointwise(X, W, B?, padding, stride, dilation, groups, attr, scalars, algorithm?)`;
    /// borrows its tensors.
    fn aoti_torch_cpu_mkldnn__convolution_pointwise(
        input: TensorHandle,
        weights: TensorHandle,
        biases: *mut TensorHandle,
        padding: *const i64,
        padding_len: i64,
        stride: *const i64,
        stride_len: i64,
        dilation: *const i64,
        dilation_len: i64,
        groups: i64,
        attr: *const c_char,
        scalars: *const *const f64,
        scalars_len: i64,
        algorithm: *const *const c_char,
        output: *mut TensorHandle,
    ) -> i32;

    /// `mkldnn::_convolution_pointwise.binary(X, other, W, B?, padding, stride, dilation, groups, binary_attr,
    /// alpha?, unary_attr?, unary_scalars, unary_algorithm?)`; borrows its tensors.
    fn aoti_torch_cpu_mkldnn__convolution_pointwise_binary(
        input: TensorHandle,
        other: TensorHandle,
        weights: TensorHandle,
        biases: *mut TensorHandle,
        padding: *const i64,
        padding_len: i64,
        stride: *const i64,
        stride_len: i64,
        dilation: *const i64,
        dilation_len: i64,
        groups: i64,
        binary_attr: *const c_char,
        alpha: *mut f64,
        unary_attr: *const *const c_char,
        unary_scalars: *const *const f64,
        unary_scalars_len: i64,
        unary_algorithm: *const *const c_char,
        output: *mut TensorHandle,
    ) -> i32;
}

/// `relu(conv(x, weights) + biases)`, stride and dilation 1, `padding` on each side.
pub(super) fn conv_relu(x: &Tensor, weights: &Tensor, biases: &Tensor, padding: i64) -> Result<Tensor, TchError> {
    let mut bias_handle = biases.as_ptr() as TensorHandle;
    let (padding, ones) = ([padding, padding], [1i64, 1]);
    let mut output: TensorHandle = ptr::null_mut();
    // SAFETY: the tensors outlive the call, which only borrows them; the lists are two long as passed; no scalars
    // and no algorithm; on success `output` is an owned `at::Tensor*`.
    let status = unsafe {
        aoti_torch_cpu_mkldnn__convolution_pointwise(
            x.as_ptr() as TensorHandle,
            weights.as_ptr() as TensorHandle,
            &mut bias_handle,
            padding.as_ptr(),
            2,
            ones.as_ptr(),
            2,
            ones.as_ptr(),
            2,
            1,
            c"relu".as_ptr(),
            ptr::null(),
            0,
            ptr::null(),
            &mut output,
        )
    };
    returned_tensor(status, output, c"mkldnn::_convolution_pointwise")
}

/// `relu(conv(x, weights) + biases + skip)`, stride and dilation 1, `padding` on each side.
pub(super) fn conv_skip_relu(
    x: &Tensor,
    weights: &Tensor,
    biases: &Tensor,
    padding: i64,
    skip: &Tensor,
) -> Result<Tensor, TchError> {
    let mut bias_handle = biases.as_ptr() as TensorHandle;
    let (padding, ones) = ([padding, padding], [1i64, 1]);
    let relu: *const c_char = c"relu".as_ptr();
    let mut output: TensorHandle = ptr::null_mut();
    // SAFETY: as in `conv_relu`; `alpha` left out (null), the unary attribute one C string.
    let status = unsafe {
        aoti_torch_cpu_mkldnn__convolution_pointwise_binary(
            x.as_ptr() as TensorHandle,
            skip.as_ptr() as TensorHandle,
            weights.as_ptr() as TensorHandle,
            &mut bias_handle,
            padding.as_ptr(),
            2,
            ones.as_ptr(),
            2,
            ones.as_ptr(),
            2,
            1,
            c"add".as_ptr(),
            ptr::null_mut(),
            &relu,
            ptr::null(),
            0,
            ptr::null(),
            &mut output,
        )
    };
    returned_tensor(status, output, c"mkldnn::_convolution_pointwise.binary")
}
