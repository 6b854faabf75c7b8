#![no_main]
//! Fuzz target `lpm`: see `fibkit_fuzz::lpm`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fibkit_fuzz::lpm(data));
