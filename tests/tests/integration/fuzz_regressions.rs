//! The fuzz targets' stable twin (#35 item 2): every seed of `fuzz/seeds/TARGET/` and every crasher the fuzzer
//! found (`fuzz/regressions/TARGET/`) goes through the same function as under libFuzzer, then a short run of
//! seeded mutations (byte flips, cuts, repeats, random bytes) of each seed. None may panic. The long
//! coverage-guided runs and their counts are in BENCHMARKS.md.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use kairos_tests::fuzz_targets::TARGETS;
use kairos_tests::workspace_root;

/// Mutated inputs tried per seed; the weights files, which take milliseconds each, get fewer.
const MUTATIONS: usize = 2000;
const MUTATIONS_OF_A_NETWORK: usize = 150;

fn files(folder: PathBuf) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .map(|entries| entries.flatten().map(|entry| entry.path()).filter(|path| path.is_file()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// A small deterministic generator (xorshift64*), so that a failure replays.
struct Mutator(u64);

impl Mutator {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn mutate(&mut self, seed: &[u8]) -> Vec<u8> {
        let mut data = seed.to_vec();
        for _ in 0..=self.below(4) {
            match self.below(5) {
                0 if !data.is_empty() => {
                    let at = self.below(data.len());
                    data[at] ^= 1 << self.below(8);
                }
                1 if !data.is_empty() => {
                    let at = self.below(data.len());
                    data[at] = self.next() as u8;
                }
                2 => data.truncate(self.below(data.len() + 1)),
                3 if !data.is_empty() => {
                    let (from, length) = (self.below(data.len()), 1 + self.below(16));
                    let piece: Vec<u8> = data[from..(from + length).min(data.len())].to_vec();
                    let at = self.below(data.len() + 1);
                    data.splice(at..at, piece);
                }
                _ => {
                    let at = self.below(data.len() + 1);
                    data.insert(at, self.next() as u8);
                }
            }
        }
        data
    }
}

#[test]
fn the_seeds_the_crashers_found_and_their_mutations_never_panic() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (name, target) in TARGETS {
        let seeds = files(workspace_root().join("fuzz/seeds").join(name));
        assert!(!seeds.is_empty(), "fuzz/seeds/{name} has no seed");
        let crashers = files(workspace_root().join("fuzz/regressions").join(name));
        let mut mutator = Mutator(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
        for path in seeds.iter().chain(&crashers) {
            let bytes = std::fs::read(path).unwrap();
            let mutations = if *name == "network_file" { MUTATIONS_OF_A_NETWORK } else { MUTATIONS };
            let inputs = std::iter::once(bytes.clone()).chain((0..mutations).map(|_| mutator.mutate(&bytes)));
            for (index, input) in inputs.enumerate() {
                runs += 1;
                if catch_unwind(AssertUnwindSafe(|| target(&input))).is_err() {
                    failures.push(format!("{name}: {} mutation {index} ({} bytes)", path.display(), input.len()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {runs} inputs panicked:\n{}", failures.len(), failures.join("\n"));
}
