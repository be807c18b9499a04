//! Helpers shared by the match and tuning tests: the scripted fake engine and scratch directories.

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::path::PathBuf;

/// The fake UCI engine (examples/fake_uci.rs), which `cargo test` builds beside the test executables.
pub fn fake_engine_path() -> PathBuf {
    let test_exe = std::env::current_exe().expect("test executable path");
    let profile_dir = test_exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
    let path = profile_dir.join("examples").join("fake_uci");
    assert!(path.exists(), "{} is missing: run `cargo test -p tools`, which builds the examples", path.display());
    path
}

/// An empty directory of its own for one test, named after the test binary and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-{}-{name}-{}", env!("CARGO_CRATE_NAME"), std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}
