//! `kairos_tests::fuzz_targets::openbench_import` under libFuzzer.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_tests::fuzz_targets::openbench_import(data));
