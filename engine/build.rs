//! Embeds libtorch's directory (exported by the nn crate) as an rpath for this crate's binaries and tests, and
//! the git commit the engine is built from (with `-dirty` when tracked files differ from it) as
//! `KAIROS_GIT_COMMIT`, for `id name` and `--version`; `unknown` outside a git checkout (OpenBench's archives).
use std::process::Command;

fn main() {
    if let Ok(lib) = std::env::var("DEP_KAIROS_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for watched in [".git/HEAD", ".git/index", ".git/packed-refs", "engine/src", "nn/src", "timemgr/src", "cli/src"] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    // A commit moves the branch that HEAD names, not HEAD itself, and need not rewrite the index.
    if let Ok(head) = std::fs::read_to_string(root.join(".git/HEAD")) {
        if let Some(branch) = head.trim().strip_prefix("ref: ") {
            println!("cargo:rerun-if-changed={}", root.join(".git").join(branch).display());
        }
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(&root)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    // Only this repository's own history: an unpacked archive inside another checkout is not that checkout.
    let own_history = root.join(".git").exists();
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]).filter(|_| own_history) {
        Some(commit) if !commit.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{commit}-dirty")
            } else {
                commit
            }
        }
        _ => "unknown".to_owned(),
    };
    println!("cargo:rustc-env=KAIROS_GIT_COMMIT={commit}");
}
