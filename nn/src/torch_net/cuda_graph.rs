//! libtorch's CUDA graphs (`at::cuda::CUDAGraph`) and the stream they are captured on, for the forward pass
//! replayed in one launch (#33 item 4). tch exposes neither, and libtorch_cuda.so is loaded only at run time
//! ([`crate::cuda::load_cuda_runtime`]), so the C++ members are found with dlsym by their Itanium names and called
//! through `cuda_graph_shim.cpp`, which catches libtorch's exceptions. A missing symbol (a CPU-only libtorch, or
//! one whose API changed) makes [`GraphApi::get`] `None`, and the forward pass stays eager.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// libtorch's `MempoolId_t`: the memory pool a graph's tensors are allocated from; `(0, 0)` asks for a new one.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct MempoolId {
    first: u64,
    second: u64,
}

/// `c10::cuda::CUDAStream`, 16 trivially copyable bytes (the device, then the stream's id).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct CudaStream {
    device: u64,
    id: u64,
}

/// `cudaStreamCaptureModeThreadLocal`: only this thread's CUDA calls may not interfere with the capture.
const CAPTURE_MODE_THREAD_LOCAL: c_int = 1;

/// Bytes reserved for one `at::cuda::CUDAGraph`: 104 in libtorch 2.11 (a probe compiled against its headers);
/// the rest is room for a later version's fields.
const GRAPH_STORAGE: usize = 1024;

/// How long an error message from libtorch may be.
const MESSAGE_CAPACITY: usize = 2048;

extern "C" {
    fn kairos_graph_construct(
        construct: *const c_void,
        graph: *mut c_void,
        error: *mut c_char,
        capacity: usize,
    ) -> c_int;
    fn kairos_graph_call(member: *const c_void, graph: *mut c_void, error: *mut c_char, capacity: usize) -> c_int;
    fn kairos_graph_capture_begin(
        begin: *const c_void,
        graph: *mut c_void,
        pool_first: u64,
        pool_second: u64,
        mode: c_int,
        error: *mut c_char,
        capacity: usize,
    ) -> c_int;
    fn kairos_graph_pool(
        pool: *const c_void,
        graph: *mut c_void,
        first: *mut u64,
        second: *mut u64,
        error: *mut c_char,
        capacity: usize,
    ) -> c_int;
    fn kairos_stream_from_pool(
        from_pool: *const c_void,
        device: i8,
        stream: *mut CudaStream,
        error: *mut c_char,
        capacity: usize,
    ) -> c_int;
    fn kairos_current_stream(
        current: *const c_void,
        device: i8,
        stream: *mut CudaStream,
        error: *mut c_char,
        capacity: usize,
    ) -> c_int;
    fn kairos_set_current_stream(
        set_current: *const c_void,
        stream: *const CudaStream,
        error: *mut c_char,
        capacity: usize,
    ) -> c_int;
}

/// The libtorch functions a graph needs, by their Itanium C++ names (libtorch 2.11; the names encode the argument
/// types, so a changed signature is a missing symbol, not a wrong call).
const SYMBOLS: [&CStr; 9] = [
    c"_ZN2at4cuda9CUDAGraphC1Eb",
    c"_ZN2at4cuda9CUDAGraphD1Ev",
    c"_ZN2at4cuda9CUDAGraph13capture_beginESt4pairIyyE21cudaStreamCaptureMode",
    c"_ZN2at4cuda9CUDAGraph11capture_endEv",
    c"_ZN2at4cuda9CUDAGraph6replayEv",
    c"_ZN2at4cuda9CUDAGraph4poolEv",
    c"_ZN3c104cuda17getStreamFromPoolEba",
    c"_ZN3c104cuda20getCurrentCUDAStreamEa",
    c"_ZN3c104cuda20setCurrentCUDAStreamENS0_10CUDAStreamE",
];

/// The resolved functions, in the order of [`SYMBOLS`].
pub(super) struct GraphApi {
    construct: *const c_void,
    destruct: *const c_void,
    capture_begin: *const c_void,
    capture_end: *const c_void,
    replay: *const c_void,
    pool: *const c_void,
    stream_from_pool: *const c_void,
    current_stream: *const c_void,
    set_current_stream: *const c_void,
}

// SAFETY: the pointers are addresses of functions in a loaded library that is never unloaded.
unsafe impl Send for GraphApi {}
// SAFETY: as above; they are only read.
unsafe impl Sync for GraphApi {}

impl GraphApi {
    /// The API, or `None` where this process's libtorch lacks one of its functions (a CPU-only build, or
    /// libtorch_cuda.so not loaded yet: call after [`crate::cuda::load_cuda_runtime`]).
    pub(super) fn get() -> Option<&'static GraphApi> {
        static API: OnceLock<Option<GraphApi>> = OnceLock::new();
        API.get_or_init(|| {
            let mut found = [std::ptr::null::<c_void>(); SYMBOLS.len()];
            for (slot, name) in found.iter_mut().zip(SYMBOLS) {
                // SAFETY: dlsym with a valid NUL-terminated name in the global scope, where libtorch_cuda.so is
                // loaded (RTLD_GLOBAL).
                *slot = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.cast_const();
            }
            if found.iter().any(|f| f.is_null()) {
                return None;
            }
            let [construct, destruct, capture_begin, capture_end, replay, pool, stream_from_pool, current_stream,
                set_current_stream] = found;
            Some(GraphApi {
                construct,
                destruct,
                capture_begin,
                capture_end,
                replay,
                pool,
                stream_from_pool,
                current_stream,
                set_current_stream,
            })
        })
        .as_ref()
    }

    /// A new stream of `device` from libtorch's pool: graphs must be captured on a stream other than the default.
    pub(super) fn side_stream(&self, device: i8) -> Result<CudaStream, String> {
        let mut stream = CudaStream { device: 0, id: 0 };
        // SAFETY: the function is `getStreamFromPool(bool, DeviceIndex)`, which the shim calls and writes out.
        checked(|error| unsafe {
            kairos_stream_from_pool(self.stream_from_pool, device, &mut stream, error, MESSAGE_CAPACITY)
        })?;
        Ok(stream)
    }

    /// Runs `work` with `stream` as libtorch's current stream of its device, then restores the one before.
    pub(super) fn on_stream<T>(&self, device: i8, stream: CudaStream, work: impl FnOnce() -> T) -> Result<T, String> {
        let mut previous = CudaStream { device: 0, id: 0 };
        // SAFETY: `getCurrentCUDAStream(DeviceIndex)` and `setCurrentCUDAStream(CUDAStream)` through the shim.
        checked(|error| unsafe {
            kairos_current_stream(self.current_stream, device, &mut previous, error, MESSAGE_CAPACITY)
        })?;
        self.set_current(&stream)?;
        let result = work();
        self.set_current(&previous)?;
        Ok(result)
    }

    fn set_current(&self, stream: &CudaStream) -> Result<(), String> {
        // SAFETY: `setCurrentCUDAStream(CUDAStream)` through the shim, with a stream libtorch handed out.
        checked(|error| unsafe { kairos_set_current_stream(self.set_current_stream, stream, error, MESSAGE_CAPACITY) })
    }
}

/// One `at::cuda::CUDAGraph`, owned here and destroyed on drop.
pub(super) struct CudaGraph {
    api: &'static GraphApi,
    storage: Box<GraphStorage>,
}

#[repr(C, align(16))]
struct GraphStorage([u8; GRAPH_STORAGE]);

impl CudaGraph {
    /// Captures the CUDA work `record` launches on `stream` of `device` (made current for it), its tensors
    /// allocated from `pool` (the default: a new pool). Nothing runs until [`CudaGraph::replay`].
    pub(super) fn capture<T>(
        api: &'static GraphApi,
        device: i8,
        stream: CudaStream,
        pool: MempoolId,
        record: impl FnOnce() -> Result<T, String>,
    ) -> Result<(Self, T), String> {
        let mut graph = Self { api, storage: Box::new(GraphStorage([0; GRAPH_STORAGE])) };
        // SAFETY: the constructor of a `CUDAGraph` on storage larger and at least as aligned as one.
        checked(|error| unsafe { kairos_graph_construct(api.construct, graph.object(), error, MESSAGE_CAPACITY) })?;
        let recorded = api.on_stream(device, stream, || {
            // SAFETY: `capture_begin(MempoolId_t, cudaStreamCaptureMode)` on the constructed graph.
            checked(|error| unsafe {
                kairos_graph_capture_begin(
                    api.capture_begin,
                    graph.object(),
                    pool.first,
                    pool.second,
                    CAPTURE_MODE_THREAD_LOCAL,
                    error,
                    MESSAGE_CAPACITY,
                )
            })?;
            // The capture is ended whether or not the recording succeeded, so that the stream is usable again.
            let recorded = record();
            // SAFETY: `capture_end()` on the graph whose capture began above.
            let ended =
                checked(|error| unsafe { kairos_graph_call(api.capture_end, graph.object(), error, MESSAGE_CAPACITY) });
            let recorded = recorded?;
            ended.map(|()| recorded)
        })??;
        Ok((graph, recorded))
    }

    /// Launches the captured work on the current stream.
    pub(super) fn replay(&mut self) -> Result<(), String> {
        // SAFETY: `replay()` on a graph whose capture ended.
        checked(|error| unsafe { kairos_graph_call(self.api.replay, self.object(), error, MESSAGE_CAPACITY) })
    }

    /// The memory pool this graph's tensors live in, which later captures may share.
    pub(super) fn pool(&mut self) -> Result<MempoolId, String> {
        let mut pool = MempoolId::default();
        // SAFETY: `pool()` on the constructed graph, which the shim writes out.
        checked(|error| unsafe {
            let (first, second) = (&mut pool.first, &mut pool.second);
            kairos_graph_pool(self.api.pool, self.object(), first, second, error, MESSAGE_CAPACITY)
        })?;
        Ok(pool)
    }

    fn object(&mut self) -> *mut c_void {
        self.storage.0.as_mut_ptr().cast()
    }
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        let api = self.api;
        // SAFETY: the destructor of the graph constructed in `capture`; a failure has no one left to tell.
        let _ = checked(|error| unsafe { kairos_graph_call(api.destruct, self.object(), error, MESSAGE_CAPACITY) });
    }
}

/// Runs one shim call with a message buffer: its message as the error when it reports failure.
fn checked(call: impl FnOnce(*mut c_char) -> c_int) -> Result<(), String> {
    let mut message = vec![0u8; MESSAGE_CAPACITY];
    if call(message.as_mut_ptr().cast()) == 0 {
        return Ok(());
    }
    let text = CStr::from_bytes_until_nul(&message).map(|text| text.to_string_lossy().into_owned());
    Err(text.unwrap_or_else(|_| "libtorch reported an error".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtorchs_cuda_library_exports_every_symbol_by_its_itanium_name() {
        // libtorch_cuda.so does not load on this CPU-only machine (setup leaves out cuDNN, cuBLAS and the rest),
        // so its dynamic string table is read instead: a wrong name would leave every CUDA pass eager unnoticed.
        let dir = crate::cuda::libtorch_dir().expect("libtorch_cpu.so is loaded");
        let library = std::fs::read(dir.join("libtorch_cuda.so")).expect("setup installs PyTorch's CUDA build");
        for name in SYMBOLS {
            let entry = [&[0u8][..], name.to_bytes_with_nul()].concat();
            assert!(library.windows(entry.len()).any(|w| w == entry), "{name:?} is not in libtorch_cuda.so");
        }
    }

    #[test]
    fn an_exception_thrown_through_the_shim_is_an_error_with_its_message() {
        // libstdc++'s `std::__throw_length_error(const char*)` stands in for a member that throws: the shim hands
        // it the "graph" pointer, here the message itself.
        // SAFETY: dlsym with a valid name; libstdc++ is loaded by libtorch.
        let throw = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"_ZSt20__throw_length_errorPKc".as_ptr()) };
        assert!(!throw.is_null(), "libstdc++ exports std::__throw_length_error");
        let mut what = *b"the graph was not captured\0";
        // SAFETY: the function takes one pointer argument, a NUL-terminated string, as the shim passes it.
        let result =
            checked(|error| unsafe { kairos_graph_call(throw, what.as_mut_ptr().cast(), error, MESSAGE_CAPACITY) });
        assert_eq!(result, Err("the graph was not captured".to_owned()));
    }
}
