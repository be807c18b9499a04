//! Embeds libtorch's directory (exported by the nn crate) as an rpath for this crate's binaries and tests,
//! and for the binaries also the checkout's own `.libtorch` relative to `target/<profile>/`, so that a
//! checkout moved or copied to another machine (with `scripts/setup` run there) still finds libtorch.
fn main() {
    if let Ok(lib) = std::env::var("DEP_KAIROS_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN/../../.libtorch/torch/lib");
    }
}
