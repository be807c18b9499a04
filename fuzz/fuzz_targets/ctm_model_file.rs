//! `kairos_tests::fuzz_targets::ctm_model_file` under libFuzzer.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_tests::fuzz_targets::ctm_model_file(data));
