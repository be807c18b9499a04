//! `kairos_tests::fuzz_targets::fen_and_moves` under libFuzzer.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_tests::fuzz_targets::fen_and_moves(data));
