//! `ip … show|list` printers (work in progress: a compilable placeholder while the
//! real module is developed; every function prints nothing).

#![forbid(unsafe_code)]

use fibkit::prefix::Family;
use fibkit::route::{Route4, Route6};
use fibkit::{Errno, Netns};

/// Global `ip` options that affect printing.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShowOpts {
    /// `-j`.
    pub json: bool,
    /// `-d`.
    pub details: bool,
    /// `-4`/`-6`.
    pub family: Option<Family>,
    /// `-o`.
    pub oneline: bool,
    /// `-p`.
    pub pretty: bool,
}

/// An error as `ip` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShowError {
    /// The kernel's errno, when known.
    pub errno: Option<Errno>,
    /// stderr text.
    pub text: String,
    /// Exit status.
    pub status: i32,
}

/// One route selected by `ip route show|flush ARGS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selected {
    /// IPv4.
    V4(Route4),
    /// IPv6.
    V6(Route6),
}

/// `ip route show`.
pub fn route_show(_ns: &Netns, _o: &ShowOpts, _a: &[String]) -> Result<String, ShowError> {
    Ok(String::new())
}
/// `ip route flush` selection.
pub fn route_select(_ns: &Netns, _o: &ShowOpts, _a: &[String]) -> Result<Vec<Selected>, ShowError> {
    Ok(Vec::new())
}
/// `ip addr show`.
pub fn addr_show(_ns: &Netns, _o: &ShowOpts, _a: &[String]) -> Result<String, ShowError> {
    Ok(String::new())
}
/// `ip link show`.
pub fn link_show(_ns: &Netns, _o: &ShowOpts, _a: &[String]) -> Result<String, ShowError> {
    Ok(String::new())
}
/// `ip rule show`.
pub fn rule_show(_ns: &Netns, _o: &ShowOpts, _a: &[String]) -> Result<String, ShowError> {
    Ok(String::new())
}
/// `ip neigh show`.
pub fn neigh_show(_ns: &Netns, _o: &ShowOpts, _a: &[String]) -> Result<String, ShowError> {
    Ok(String::new())
}
