//! Which build this is: the version, the git commit and the features, so that every result can be traced to
//! the binary that played it (`id name`, `kairos --version`, the match records).

/// The version and commit, as lc0 writes its own: `0.1.0+git.<commit>[-dirty]`.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+git.", env!("KAIROS_GIT_COMMIT"));

/// The cargo features this build has, `none` without any.
pub fn features() -> &'static str {
    if cfg!(feature = "stage-timing") {
        "stage-timing"
    } else {
        "none"
    }
}

/// The UCI `id name`: the version, and the features when there are any.
pub fn id_name() -> String {
    match features() {
        "none" => format!("Kairos {VERSION}"),
        features => format!("Kairos {VERSION} ({features})"),
    }
}

/// `kairos --version`: the version, the features and the target.
pub fn describe() -> String {
    format!("kairos {VERSION} (features: {}; {} {})", features(), std::env::consts::ARCH, std::env::consts::OS)
}
