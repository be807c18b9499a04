//! `kairos_tests::fuzz_targets::clock_pgn` under libFuzzer.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_tests::fuzz_targets::clock_pgn(data));
