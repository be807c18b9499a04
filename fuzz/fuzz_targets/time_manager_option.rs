//! `kairos_tests::fuzz_targets::time_manager_option` under libFuzzer.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_tests::fuzz_targets::time_manager_option(data));
