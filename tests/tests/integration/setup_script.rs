//! `scripts/setup` on a machine without network that already has PyTorch 2.11 (as the GPU machines have, in a
//! virtual environment) and ONNX Runtime 1.31.1: it must link them instead of downloading, stay idempotent, and
//! refuse another PyTorch version with a message that names the way out. pip is held offline (`PIP_NO_INDEX`)
//! throughout, so any download attempt fails the run.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kairos_tests::{default_weights, workspace_root};

/// A throw-away copy of the set-up scripts and the default network, with a Python path of its own.
struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    fn new(name: &str) -> Self {
        let root = std::env::temp_dir().join(format!("kairos-setup-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for dir in ["scripts", "weights", "site"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        let checkout = workspace_root();
        fs::copy(checkout.join("scripts/setup"), root.join("scripts/setup")).unwrap();
        fs::copy(checkout.join("weights/fetch.sh"), root.join("weights/fetch.sh")).unwrap();
        fs::copy(default_weights(), root.join("weights/maia-1900.pb.gz")).unwrap();
        Self { root }
    }

    /// Makes `torch` importable from the sandbox's Python path, as a virtual environment's site-packages.
    fn install_python_torch(&self, torch_dir: &Path) {
        symlink(torch_dir, self.root.join("site/torch")).unwrap();
    }

    /// Makes `onnxruntime` importable from the sandbox's Python path, as a virtual environment's site-packages.
    fn install_python_onnxruntime(&self) {
        let dir = workspace_root().join(".onnxruntime/onnxruntime");
        let dir = fs::canonicalize(&dir).unwrap_or_else(|e| panic!("{}: {e}; run scripts/setup first", dir.display()));
        symlink(dir, self.root.join("site/onnxruntime")).unwrap();
    }

    fn run_setup(&self) -> Output {
        Command::new("bash")
            .arg(self.root.join("scripts/setup"))
            .env("PYTHONPATH", self.root.join("site"))
            .env("PIP_NO_INDEX", "1")
            .env_remove("PIP_INDEX_URL")
            .env_remove("PIP_FIND_LINKS")
            .output()
            .expect("run scripts/setup")
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// The checkout's own libtorch 2.11, which `make test` has installed before the tests run.
fn checkout_torch() -> PathBuf {
    let dir = workspace_root().join(".libtorch/torch");
    fs::canonicalize(&dir).unwrap_or_else(|e| panic!("{}: {e}; run scripts/setup first", dir.display()))
}

#[test]
fn setup_links_an_installed_pytorch_2_11_without_downloading_and_is_idempotent() {
    let sandbox = Sandbox::new("link");
    sandbox.install_python_torch(&checkout_torch());
    sandbox.install_python_onnxruntime();

    let first = sandbox.run_setup();
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "setup failed offline with PyTorch 2.11 present:\n{stderr}");
    assert!(stderr.contains("using the PyTorch 2.11.0 installed at"), "{stderr}");
    assert!(stderr.contains("maia-1900.pb.gz present and verified"), "{stderr}");
    assert!(stderr.contains("using the ONNX Runtime 1.31.1 installed at"), "{stderr}");
    let linked = sandbox.root.join(".libtorch/torch");
    assert!(fs::symlink_metadata(&linked).unwrap().file_type().is_symlink());
    assert_eq!(fs::canonicalize(&linked).unwrap(), checkout_torch());
    assert!(linked.join("lib/libtorch_cpu.so").is_file());

    let second = sandbox.run_setup();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "second setup failed:\n{stderr}");
    assert!(stderr.contains("libtorch 2.11.0 present in .libtorch"), "{stderr}");
    assert!(stderr.contains("ONNX Runtime 1.31.1 present in .onnxruntime"), "{stderr}");
    assert_eq!(fs::canonicalize(&linked).unwrap(), checkout_torch());
}

#[test]
fn setup_ignores_another_pytorch_version_and_says_how_to_get_2_11() {
    let sandbox = Sandbox::new("other-version");
    let old_torch = sandbox.root.join("old-torch");
    fs::create_dir_all(old_torch.join("lib")).unwrap();
    fs::write(old_torch.join("lib/libtorch_cpu.so"), b"").unwrap();
    fs::write(old_torch.join("version.py"), "__version__ = '2.10.0+cu128'\n").unwrap();
    fs::write(old_torch.join("__init__.py"), "").unwrap();
    sandbox.install_python_torch(&old_torch);

    let output = sandbox.run_setup();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "setup accepted PyTorch 2.10:\n{stderr}");
    assert!(!stderr.contains("using the PyTorch"), "{stderr}");
    assert!(stderr.contains("could not install torch==2.11.0 with pip"), "{stderr}");
    assert!(!sandbox.root.join(".libtorch").exists(), "a failed install left .libtorch behind");
}
