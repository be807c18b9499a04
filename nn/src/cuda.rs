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
    candidates.filter_map(|name| CString::new(name).ok()).any(|name| {
        // SAFETY: dlopen with a valid NUL-terminated name; the handle is deliberately kept open.
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        !handle.is_null()
    })
}

/// Keeps cuDNN's fp32 convolutions in IEEE fp32: libtorch lets them use TF32 by default, which put
/// Maia-1900's priors 8.8e-4 from lc0's on an H100 (5.6e-7 without TF32). Returns false where this libtorch
/// lacks the switch (`at::Context::setAllowTF32CuDNN`).
pub fn disable_tf32_convolutions() -> bool {
    set_context_flag(c"_ZN2at7Context17setAllowTF32CuDNNEb", false)
}

/// Lets cuDNN time its convolution algorithms at each new input shape and keep the fastest
/// (`torch.backends.cudnn.benchmark`), instead of its heuristics' pick; returns false where libtorch lacks the
/// switch (`at::Context::setBenchmarkCuDNN`). Different runs may pick different algorithms, so results may differ in
/// the last bits between runs.
pub fn set_cudnn_benchmark(on: bool) -> bool {
    set_context_flag(c"_ZN2at7Context17setBenchmarkCuDNNEb", on)
}

/// Calls a `void at::Context::NAME(bool)` setter of libtorch's global context, found by its Itanium name.
fn set_context_flag(setter: &CStr, value: bool) -> bool {
    const GLOBAL_CONTEXT: &CStr = c"_ZN2at13globalContextEv";
    // SAFETY: dlsym with valid names in the default scope, where the linked libtorch_cpu.so is.
    let (global_context, set) = unsafe {
        (libc::dlsym(libc::RTLD_DEFAULT, GLOBAL_CONTEXT.as_ptr()), libc::dlsym(libc::RTLD_DEFAULT, setter.as_ptr()))
    };
    if global_context.is_null() || set.is_null() {
        return false;
    }
    // SAFETY: the symbols are `at::Context& at::globalContext()` and a non-virtual member
    // `void at::Context::NAME(bool)`, whose Itanium C++ ABI is a C call with `this` first.
    unsafe {
        let global_context: extern "C" fn() -> *mut c_void = std::mem::transmute(global_context);
        let set: extern "C" fn(*mut c_void, bool) = std::mem::transmute(set);
        set(global_context(), value);
    }
    true
}

/// The directory of the `libtorch_cpu.so` this process has loaded, where its other libraries are.
pub(crate) fn libtorch_dir() -> Option<PathBuf> {
    unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
        // SAFETY: the loader passes a valid info pointer; `data` is the `Option<PathBuf>` given below.
        let (info, found) = unsafe { (&*info, &mut *(data as *mut Option<PathBuf>)) };
        if info.dlpi_name.is_null() {
            return 0;
        }
        // SAFETY: dlpi_name is a NUL-terminated string owned by the loader.
        let name = unsafe { CStr::from_ptr(info.dlpi_name) }.to_string_lossy();
        let path = PathBuf::from(name.as_ref());
        if path.file_name().is_some_and(|f| f.to_string_lossy().starts_with("libtorch_cpu.so")) {
            *found = path.parent().map(PathBuf::from);
            return 1;
        }
        0
    }
    let mut found: Option<PathBuf> = None;
    // SAFETY: the callback only reads loader data and writes to `found`, which outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut found as *mut Option<PathBuf> as *mut c_void) };
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

    #[test]
    fn the_linked_libtorch_has_the_cudnn_benchmark_switch() {
        // Without it `CudnnBenchmark` would change nothing; libtorch's own getter reads the flag back.
        const BENCHMARK: &CStr = c"_ZNK2at7Context14benchmarkCuDNNEv";
        // SAFETY: dlsym with a valid name; the symbol is `bool at::Context::benchmarkCuDNN() const`.
        let getter = unsafe { libc::dlsym(libc::RTLD_DEFAULT, BENCHMARK.as_ptr()) };
        assert!(!getter.is_null());
        // SAFETY: as in `set_context_flag`, a member called with `this` first.
        let read = || unsafe {
            let global: extern "C" fn() -> *mut c_void =
                std::mem::transmute(libc::dlsym(libc::RTLD_DEFAULT, c"_ZN2at13globalContextEv".as_ptr()));
            let get: extern "C" fn(*mut c_void) -> bool = std::mem::transmute(getter);
            get(global())
        };
        assert!(set_cudnn_benchmark(true));
        assert!(read());
        assert!(set_cudnn_benchmark(false));
        assert!(!read());
    }
}
