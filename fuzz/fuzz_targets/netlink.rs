#![no_main]
//! Fuzz target `netlink`: see `fibkit_fuzz::netlink`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fibkit_fuzz::netlink(data));
