#![no_main]
//! `cargo fuzz run sender`: satcp_core::fuzzing::sender on coverage-guided inputs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| satcp_core::fuzzing::sender(data));
