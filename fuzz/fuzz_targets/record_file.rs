//! `kairos_tests::fuzz_targets::record_file` under libFuzzer.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_tests::fuzz_targets::record_file(data));
