//! Embeds libtorch's directory as an rpath so that the tools tests, which train CTM nets with tch, find it at
//! run time.
fn main() {
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    }
}
