#![no_main]
//! Fuzz target `scenario`: see `fibkit_fuzz::scenario`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fibkit_fuzz::scenario(data));
