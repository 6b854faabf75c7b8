//! `fibkit-bench`: the measurement side of fibkit's `bench` commands.
//!
//! fibkit's `bench kbench` repeats the lookup micro-benchmark that was used to measure the
//! Linux patch "ipv6: avoid overhead when no custom FIB rules are installed" (2017), so that
//! a fibkit result can be read line for line beside the kernel module's output. This crate
//! holds everything of that benchmark that does not depend on fibkit's own lookup code:
//!
//! - [`kbench`]: the statistics line, the depth line and the text histogram, byte for byte
//!   as the kernel module prints them; the destination walk (with the module's x86-64
//!   per-32-bit-word quirk); the knobs and a driver that times any lookup closure; an SVG
//!   rendering of the histogram.
//! - [`data`]: readers for the real RIS 2026 route tables (plain or gzip), their update
//!   streams, a deterministic sampler, the round-robin gateway assignment of the kbench
//!   route set, and the embedded default tables.
//!
//! The crate depends on no other fibkit crate: the lookup under test is passed in as a
//! closure, and so is the clock.
#![forbid(unsafe_code)]

pub mod data;
pub mod kbench;
