//! A release keeps its network beside the binary, as lc0 does (`make dist`): the default network is found there
//! from any working directory, with no checkout above the binary's folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DEFAULT_NETWORK: &str = "maia-1900.pb.gz";

/// A fresh folder under the system's temporary directory, outside the checkout.
fn empty_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-release-layout-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

fn describenet(binary: &Path, working_dir: &Path) -> Output {
    Command::new(binary).arg("describenet").current_dir(working_dir).output().expect("the copied kairos runs")
}

#[test]
fn the_default_network_is_found_beside_a_binary_copied_out_of_the_checkout() {
    let release = empty_dir("release");
    let elsewhere = empty_dir("elsewhere");
    let binary = release.join("kairos");
    std::fs::copy(env!("CARGO_BIN_EXE_kairos"), &binary).expect("the binary copies");

    let without = describenet(&binary, &elsewhere);
    let message = String::from_utf8_lossy(&without.stderr);
    assert!(!without.status.success(), "no network anywhere, yet describenet succeeded");
    let beside = release.join(DEFAULT_NETWORK);
    assert!(message.contains(&beside.display().to_string()), "the place beside the binary is not named: {message}");

    let network = Path::new(env!("CARGO_MANIFEST_DIR")).join("../weights").join(DEFAULT_NETWORK);
    std::fs::copy(&network, &beside).expect("scripts/setup installs weights/maia-1900.pb.gz");
    let with = describenet(&binary, &elsewhere);
    let report = String::from_utf8_lossy(&with.stdout);
    assert!(with.status.success(), "{}", String::from_utf8_lossy(&with.stderr));
    // Maia-1900's file as lc0's describenet shows it: 1,262,607 bytes, an SE network.
    assert!(report.contains("File size: 1262607 bytes") && report.contains("SE with head format"), "{report}");

    let _ = std::fs::remove_dir_all(&release);
    let _ = std::fs::remove_dir_all(&elsewhere);
}
