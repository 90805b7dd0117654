#![no_main]
//! `cargo fuzz run arq`: satcp_core::fuzzing::arq on coverage-guided inputs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| satcp_core::fuzzing::arq(data));
