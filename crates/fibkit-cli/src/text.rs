//! `ip route get` answers as iproute2 prints them (text and `-j`).

use fibkit::lookup::RouteGet4;
use fibkit::lookup6::RouteGet6;
use fibkit::Netns;
use fibkit_iproute::normal;

/// An IPv4 answer.
pub fn get4(ns: &Netns, r: &RouteGet4, fibmatch: bool, json: bool) -> String {
    let line = normal::get4_line(ns, r, fibmatch);
    if json {
        return format!("[{{\"line\":{:?}}}]\n", line);
    }
    format!("{} {line}\n", fibkit_iproute::names::fmt4(r.flow.dst))
}

/// An IPv6 answer.
pub fn get6(ns: &Netns, r: &RouteGet6, fibmatch: bool, json: bool) -> String {
    let line = normal::get6_line(ns, r, fibmatch);
    if json {
        return format!("[{{\"line\":{:?}}}]\n", line);
    }
    format!("{line}\n")
}
