#![no_main]
//! Fuzz target `ip_lines`: see `fibkit_fuzz::ip_lines`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fibkit_fuzz::ip_lines(data));
