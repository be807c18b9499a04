//! Embeds libtorch's directory (exported by the nn crate) as an rpath for the fuzz targets.
fn main() {
    if let Ok(lib) = std::env::var("DEP_KAIROS_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    }
}
