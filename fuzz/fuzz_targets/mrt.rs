#![no_main]
//! Fuzz target `mrt`: see `fibkit_fuzz::mrt`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fibkit_fuzz::mrt(data));
