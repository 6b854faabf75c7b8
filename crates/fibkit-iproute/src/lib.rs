//! # fibkit-iproute: iproute2's syntax and output for fibkit
//!
//! - [`exec`]: parse `ip route|rule|addr|link|neigh ...` command lines the way iproute2 6.1
//!   does and apply them to a [`fibkit::Netns`], with iproute2's error texts and exit codes.
//! - [`show`]: iproute2's `show`/`list` output, text and JSON.
//! - [`normal`]: the oracle's normalized one-line format of route answers and FIB entries.
//! - [`scenario`]: the scenario runner (the oracle's scenario format in, its output out).
//! - [`random`]: random scenarios for differential runs against the kernel.

#![forbid(unsafe_code)]

pub mod batch;
pub mod exec;
pub mod names;
pub mod normal;
pub mod random;
pub mod scenario;
pub mod show;
