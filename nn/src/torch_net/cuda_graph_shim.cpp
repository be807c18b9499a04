// Calls into libtorch's C++ CUDA graph API that catch its exceptions (#33 item 4). The Rust side finds
// `at::cuda::CUDAGraph`'s members and c10's stream functions with dlsym, as libtorch_cuda.so is loaded only at run
// time, and calls them through these functions: a C++ exception must not unwind into Rust, where it would abort
// the engine. Each returns 0, or 1 with the exception's message in `error` (NUL-terminated, cut to `capacity`).
// Only the standard library is needed; the types below have the layout and calling convention of libtorch's.
#include <cstddef>
#include <cstdio>
#include <exception>

namespace {

// `c10::MempoolId_t`, a std::pair<unsigned long long, unsigned long long>: two integer registers.
struct MempoolId {
  unsigned long long first;
  unsigned long long second;
};

// `c10::cuda::CUDAStream`: a trivially copyable c10::Stream of 16 bytes (device, then stream id).
struct CudaStream {
  unsigned long long device;
  unsigned long long id;
};

template <typename Call>
int guarded(Call call, char* error, std::size_t capacity) {
  try {
    call();
    return 0;
  } catch (const std::exception& exception) {
    std::snprintf(error, capacity, "%s", exception.what());
  } catch (...) {
    std::snprintf(error, capacity, "an unknown C++ exception");
  }
  return 1;
}

}  // namespace

extern "C" {

// `CUDAGraph::CUDAGraph(bool keep_graph)` on storage of at least sizeof(CUDAGraph).
int kairos_graph_construct(void (*construct)(void*, bool), void* graph, char* error, std::size_t capacity) {
  return guarded([&] { construct(graph, false); }, error, capacity);
}

// A member without arguments or result: `capture_end`, `replay`, the destructor.
int kairos_graph_call(void (*member)(void*), void* graph, char* error, std::size_t capacity) {
  return guarded([&] { member(graph); }, error, capacity);
}

// `CUDAGraph::capture_begin(MempoolId_t pool, cudaStreamCaptureMode mode)`.
int kairos_graph_capture_begin(void (*begin)(void*, MempoolId, int), void* graph, unsigned long long pool_first,
                               unsigned long long pool_second, int mode, char* error, std::size_t capacity) {
  return guarded([&] { begin(graph, MempoolId{pool_first, pool_second}, mode); }, error, capacity);
}

// `MempoolId_t CUDAGraph::pool()`.
int kairos_graph_pool(MempoolId (*pool)(void*), void* graph, unsigned long long* first, unsigned long long* second,
                      char* error, std::size_t capacity) {
  return guarded(
      [&] {
        MempoolId id = pool(graph);
        *first = id.first;
        *second = id.second;
      },
      error, capacity);
}

// `c10::cuda::getStreamFromPool(bool high_priority, DeviceIndex device)`.
int kairos_stream_from_pool(CudaStream (*from_pool)(bool, signed char), signed char device, CudaStream* stream,
                            char* error, std::size_t capacity) {
  return guarded([&] { *stream = from_pool(false, device); }, error, capacity);
}

// `c10::cuda::getCurrentCUDAStream(DeviceIndex device)`.
int kairos_current_stream(CudaStream (*current)(signed char), signed char device, CudaStream* stream, char* error,
                          std::size_t capacity) {
  return guarded([&] { *stream = current(device); }, error, capacity);
}

// `c10::cuda::setCurrentCUDAStream(CUDAStream stream)`.
int kairos_set_current_stream(void (*set_current)(CudaStream), const CudaStream* stream, char* error,
                              std::size_t capacity) {
  return guarded([&] { set_current(*stream); }, error, capacity);
}

}  // extern "C"
