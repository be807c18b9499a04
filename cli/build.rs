//! Embeds libtorch's directory (exported by the nn crate) as an rpath for this crate's binaries and tests,
//! and for the binaries also the checkout's own `.libtorch` relative to `target/<profile>/`, so that a
//! checkout moved or copied to another machine (with `scripts/setup` run there) still finds libtorch, and the
//! directory that path resolves to when `scripts/setup` linked an installed PyTorch: OpenBench builds in a
//! temporary directory that it deletes after `make`, and the binary must still find libtorch.
fn main() {
    if let Ok(lib) = std::env::var("DEP_KAIROS_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN/../../.libtorch/torch/lib");
        if let Ok(resolved) = std::fs::canonicalize(&lib) {
            if resolved != std::path::Path::new(&lib) {
                println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{}", resolved.display());
            }
        }
    }
}
