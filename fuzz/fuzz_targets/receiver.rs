#![no_main]
//! `cargo fuzz run receiver`: satcp_core::fuzzing::receiver on coverage-guided inputs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| satcp_core::fuzzing::receiver(data));
