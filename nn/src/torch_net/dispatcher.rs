//! Operators tch does not bind, called by name through libtorch's stable C ABI (`aoti_torch_call_dispatcher`), whose
//! `AtenTensorHandle` is an `at::Tensor*`, as tch's tensor pointer is.

use std::ffi::{c_char, CStr};

use tch::{Device, Kind, TchError, Tensor};

/// libtorch's `StableIValue`: an argument or result on the dispatcher's stack, 64 bits.
type StableValue = u64;

/// libtorch's `AtenTensorHandle`: an `at::Tensor*`, as tch's tensor pointer.
pub(super) type TensorHandle = *mut torch_sys::C_tensor;

extern "C" {
    /// Calls an operator by name on a stack of arguments, its results replacing them (tensors are handed over).
    fn aoti_torch_call_dispatcher(op: *const c_char, overload: *const c_char, stack: *mut StableValue) -> i32;
}

/// `aten::copy_(dst, src, non_blocking=True)`: between page-locked host memory and a CUDA device the copy is only
/// queued on the current stream, where tch's `copy_` (non_blocking=False) waits for it to end; the caller
/// synchronizes before it reads or rewrites either side.
pub(super) fn copy_without_waiting(dst: &Tensor, src: &Tensor) -> Result<(), TchError> {
    let mut stack = [handed_over(dst), handed_over(src), StableValue::from(true)];
    // SAFETY: the stack holds copy_'s three arguments as libtorch's C ABI encodes them (a bool as the low byte); its
    // one result is `dst` again, whose handle is dropped.
    unsafe { call(c"aten::copy_", &mut stack) }.map(drop)
}

/// `operator(Tensor self, T? = None)`, whose one result is a tensor: the optional argument left out, as the
/// stable ABI writes `None` (a null pointer).
pub(super) fn call_with_none(operator: &CStr, tensor: &Tensor) -> Result<Tensor, TchError> {
    let mut stack = [handed_over(tensor), 0];
    // SAFETY: the stack holds the operator's two arguments as libtorch's C ABI encodes them.
    unsafe { call(operator, &mut stack) }
}

/// Zeros of `shape` and `kind` in page-locked host memory, whose copies to and from a CUDA device need not be waited
/// for: `pin_memory(Tensor self, Device? device=None)` without the device, which libtorch 2.11 deprecates (and tch
/// always passes, with a warning at every call). Needs CUDA.
pub(super) fn page_locked_zeros(shape: &[i64], kind: Kind) -> Result<Tensor, TchError> {
    call_with_none(c"aten::pin_memory", &Tensor::f_zeros(shape, (kind, Device::Cpu))?)
}

/// The tensor a libtorch C-ABI call (`aoti_torch_*`) returned in `output` with `status`, or an error naming
/// `operator` where it failed.
pub(super) fn returned_tensor(status: i32, output: TensorHandle, operator: &CStr) -> Result<Tensor, TchError> {
    if status != 0 || output.is_null() {
        return Err(TchError::Torch(format!("{} failed", operator.to_string_lossy())));
    }
    // SAFETY: a successful call left an owned `at::Tensor*` in `output`.
    Ok(unsafe { Tensor::from_ptr(output) })
}

/// A handle of `tensor` for the dispatcher's stack, which takes ownership of the handles it is given.
fn handed_over(tensor: &Tensor) -> StableValue {
    let handle = tensor.shallow_clone();
    let value = handle.as_ptr() as StableValue;
    std::mem::forget(handle);
    value
}

/// Calls `operator` on `stack`, whose one result, a tensor, the dispatcher leaves in the first slot.
///
/// # Safety
/// `stack` holds the operator's arguments as libtorch's C ABI encodes them, tensors as [`handed_over`] makes them,
/// and the operator returns one tensor.
unsafe fn call(operator: &CStr, stack: &mut [StableValue]) -> Result<Tensor, TchError> {
    // SAFETY: as the caller promises; the first slot receives the result.
    let status = unsafe { aoti_torch_call_dispatcher(operator.as_ptr(), c"".as_ptr(), stack.as_mut_ptr()) };
    // A successful call left an owned `at::Tensor*` in the first slot.
    returned_tensor(status, stack[0] as TensorHandle, operator)
}

#[cfg(test)]
mod tests {
    use tch::{Device, Kind, Tensor};

    use super::copy_without_waiting;

    #[test]
    fn a_copy_without_waiting_writes_the_source_into_the_destination_and_leaves_the_source() {
        let source = Tensor::from_slice(&[1.5f32, -2.0, 3.25, 0.0, 7.0, -0.5]).reshape([2, 3]);
        let destination = Tensor::zeros([2, 3], (Kind::Float, Device::Cpu));
        copy_without_waiting(&destination, &source).expect("aten::copy_ runs on the host");
        assert_eq!(Vec::<f32>::try_from(destination.flatten(0, -1)).unwrap(), [1.5, -2.0, 3.25, 0.0, 7.0, -0.5]);
        assert_eq!(Vec::<f32>::try_from(source.flatten(0, -1)).unwrap(), [1.5, -2.0, 3.25, 0.0, 7.0, -0.5]);
        // Into rows of a larger tensor, converting the kind, as the page-locked buffers are written.
        let rows = Tensor::zeros([3, 3], (Kind::Half, Device::Cpu));
        copy_without_waiting(&rows.narrow(0, 1, 2), &source).expect("copies into a view");
        let widened = Vec::<f32>::try_from(rows.to_kind(Kind::Float).flatten(0, -1)).unwrap();
        assert_eq!(widened, [0.0, 0.0, 0.0, 1.5, -2.0, 3.25, 0.0, 7.0, -0.5]);
    }

    #[test]
    fn a_copy_between_shapes_that_do_not_broadcast_is_an_error() {
        let source = Tensor::zeros([4], (Kind::Float, Device::Cpu));
        let destination = Tensor::zeros([3], (Kind::Float, Device::Cpu));
        assert!(copy_without_waiting(&destination, &source).is_err());
    }
}
