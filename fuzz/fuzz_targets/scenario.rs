#![no_main]
//! `cargo fuzz run scenario`: satcp_core::fuzzing::scenario on coverage-guided inputs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| satcp_core::fuzzing::scenario(data));
