//! Embeds libtorch's directory as an rpath so that `cargo run` and `cargo test` find it at run time, and compiles
//! the C++ that calls libtorch's CUDA graph API with its exceptions caught (`src/torch_net/cuda_graph_shim.cpp`).
fn main() {
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
        println!("cargo:lib={lib}");
    }
    println!("cargo:rerun-if-changed=src/torch_net/cuda_graph_shim.cpp");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .warnings(true)
        .file("src/torch_net/cuda_graph_shim.cpp")
        .compile("kairos_cuda_graph_shim");
}
