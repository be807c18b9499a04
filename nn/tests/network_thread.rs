//! The torch backend's network thread lives exactly as long as the backend (its own test binary, so that no
//! other test's backend is counted).

use std::path::Path;

use nn::policy_map::TransposedMoves;
use nn::torch_backend::{CudaSettings, PolicyOutput, TorchBackend};

/// How many threads of this process are named `kairos-network` (the thread and the threads it started).
fn network_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("Linux lists a process's threads")
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "kairos-network")
        .count()
}

#[test]
fn the_backend_starts_a_network_thread_and_joins_it_when_dropped() {
    let weights = concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/maia-1900.pb.gz");
    let network = nn::load_network(Path::new(weights)).expect("scripts/setup installs Maia-1900");
    assert_eq!(network_threads(), 0);
    let policy = PolicyOutput { temperature: 1.0, exact_softmax: false, transposed_moves: TransposedMoves::AsPlanes };
    let cuda = CudaSettings { graphs: false, cudnn_benchmark: false, fusion: false };
    let backend = TorchBackend::new(&network, tch::Device::Cpu, tch::Kind::Float, 0, 0, cuda, policy).expect("uploads");
    // libtorch's OpenMP workers, started from the network thread, inherit its name.
    assert!(network_threads() >= 1);
    drop(backend);
    // The network thread is joined at once; the OpenMP workers it started are told to exit when it ends and
    // leave a moment later (libgomp frees a pool from its thread's exit), so allow them a few seconds.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while network_threads() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(network_threads(), 0, "dropping the backend joined its thread and its workers left");
}
