#![no_main]
//! Fuzz target `proc_text`: see `fibkit_fuzz::proc_text`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fibkit_fuzz::proc_text(data));
