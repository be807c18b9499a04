//! Operators tch does not bind, called by name through libtorch's stable C ABI (`aoti_torch_call_dispatcher`), whose
//! `AtenTensorHandle` is an `at::Tensor*`, as tch's tensor pointer is.

use std::ffi::{c_char, CStr};

use tch::{TchError, Tensor};

/// libtorch's `StableIValue`: an argument or result on the dispatcher's stack, 64 bits.
type StableValue = u64;

extern "C" {
    /// Calls an operator by name on a stack of arguments, its results replacing them (tensors are handed over).
    fn aoti_torch_call_dispatcher(op: *const c_char, overload: *const c_char, stack: *mut StableValue) -> i32;
}

/// `operator(Tensor self, T? = None)`, whose one result is a tensor: the optional argument left out, as the
/// stable ABI writes `None` (a null pointer).
pub(super) fn call_with_none(operator: &CStr, tensor: &Tensor) -> Result<Tensor, TchError> {
    let handed_over = tensor.shallow_clone();
    let mut stack = [handed_over.as_ptr() as StableValue, 0];
    // The dispatcher takes ownership of the handle it is given.
    std::mem::forget(handed_over);
    // SAFETY: the stack holds the operator's two arguments as libtorch's C ABI encodes them, and the first slot
    // receives its one result, an owned tensor handle.
    let status = unsafe { aoti_torch_call_dispatcher(operator.as_ptr(), c"".as_ptr(), stack.as_mut_ptr()) };
    if status != 0 {
        return Err(TchError::Torch(format!("{} failed", operator.to_string_lossy())));
    }
    // SAFETY: a successful call left an owned `at::Tensor*` in the first slot.
    Ok(unsafe { Tensor::from_ptr(stack[0] as *mut torch_sys::C_tensor) })
}
