//! Loading libtorch's CUDA library at run time, so that one binary runs on CPU-only and CUDA machines
//! (the linker drops `libtorch_cuda.so` as unneeded, and without it libtorch sees no GPU).

use std::ffi::{c_int, c_void, CStr, CString};
use std::path::PathBuf;

const CUDA_LIBRARY: &str = "libtorch_cuda.so";

/// Tries to load `libtorch_cuda.so` from the directory of the loaded `libtorch_cpu.so`, then by its
/// plain name; returns whether it is loaded. Failure is normal on machines without CUDA.
pub fn load_cuda_runtime() -> bool {
    let candidates = libtorch_dir()
        .map(|dir| dir.join(CUDA_LIBRARY).to_string_lossy().into_owned())
        .into_iter()
        .chain(std::iter::once(CUDA_LIBRARY.to_string()));
    candidates
        .filter_map(|name| CString::new(name).ok())
        .any(|name| {
            // SAFETY: dlopen with a valid NUL-terminated name; the handle is deliberately kept open.
            let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
            !handle.is_null()
        })
}

/// Keeps cuDNN's fp32 convolutions in IEEE fp32: libtorch lets them use TF32 by default, which put
/// Maia-1900's priors 8.8e-4 from lc0's on an H100 (5.6e-7 without TF32). Returns false where this libtorch
/// lacks the switch (`at::Context::setAllowTF32CuDNN`).
pub fn disable_tf32_convolutions() -> bool {
    const GLOBAL_CONTEXT: &CStr = c"_ZN2at13globalContextEv";
    const SET_ALLOW_TF32_CUDNN: &CStr = c"_ZN2at7Context17setAllowTF32CuDNNEb";
    // SAFETY: dlsym with valid names in the default scope, where the linked libtorch_cpu.so is.
    let (global_context, set_allow) = unsafe {
        (
            libc::dlsym(libc::RTLD_DEFAULT, GLOBAL_CONTEXT.as_ptr()),
            libc::dlsym(libc::RTLD_DEFAULT, SET_ALLOW_TF32_CUDNN.as_ptr()),
        )
    };
    if global_context.is_null() || set_allow.is_null() {
        return false;
    }
    // SAFETY: the symbols are `at::Context& at::globalContext()` and the non-virtual member
    // `void at::Context::setAllowTF32CuDNN(bool)`, whose Itanium C++ ABI is a C call with `this` first.
    unsafe {
        let global_context: extern "C" fn() -> *mut c_void = std::mem::transmute(global_context);
        let set_allow: extern "C" fn(*mut c_void, bool) = std::mem::transmute(set_allow);
        set_allow(global_context(), false);
    }
    true
}

/// The directory of the `libtorch_cpu.so` this process has loaded, where its other libraries are.
pub(crate) fn libtorch_dir() -> Option<PathBuf> {
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: the loader passes a valid info pointer; `data` is the `Option<PathBuf>` given below.
        let (info, found) = unsafe { (&*info, &mut *(data as *mut Option<PathBuf>)) };
        if info.dlpi_name.is_null() {
            return 0;
        }
        // SAFETY: dlpi_name is a NUL-terminated string owned by the loader.
        let name = unsafe { CStr::from_ptr(info.dlpi_name) }.to_string_lossy();
        let path = PathBuf::from(name.as_ref());
        if path
            .file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with("libtorch_cpu.so"))
        {
            *found = path.parent().map(PathBuf::from);
            return 1;
        }
        0
    }
    let mut found: Option<PathBuf> = None;
    // SAFETY: the callback only reads loader data and writes to `found`, which outlives the call.
    unsafe {
        libc::dl_iterate_phdr(
            Some(visit),
            &mut found as *mut Option<PathBuf> as *mut c_void,
        )
    };
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_linked_libtorch_has_the_tf32_switch() {
        // Without it, fp32 on CUDA silently runs cuDNN's convolutions in TF32 (priors 8.8e-4 off lc0's).
        assert!(disable_tf32_convolutions());
    }
}
