//! The routing sysctls fibkit models, read from `/proc/sys/net` (which shows the
//! namespace of the reading process).

use crate::Warning;

/// Namespace-wide keys.
pub const GLOBAL_KEYS: &[&str] = &[
    "net.ipv4.fib_multipath_hash_policy",
    "net.ipv4.fib_multipath_hash_fields",
    "net.ipv4.fib_multipath_hash_seed",
    "net.ipv4.fib_multipath_use_neigh",
    "net.ipv6.fib_multipath_hash_policy",
    "net.ipv6.fib_multipath_hash_fields",
    // (how dumps show routes through nexthop objects)
    "net.ipv4.nexthop_compat_mode",
];

/// Per-device IPv4 knobs (`net.ipv4.conf.{all,default,DEV}.KNOB`).
pub const CONF4_KNOBS: &[&str] = &[
    "forwarding",
    "rp_filter",
    "accept_local",
    "route_localnet",
    "ignore_routes_with_linkdown",
    "promote_secondaries",
    "src_valid_mark",
    "send_redirects",
    "shared_media",
    "arp_evict_nocarrier",
    "bc_forwarding",
    "proxy_arp",
];

/// Per-device IPv6 knobs (`net.ipv6.conf.{all,default,DEV}.KNOB`).
pub const CONF6_KNOBS: &[&str] = &[
    "forwarding",
    "ignore_routes_with_linkdown",
    "keep_addr_on_down",
    "accept_dad",
    "disable_ipv6",
    "router_solicitations",
    "use_oif_addrs_only",
    "ndisc_evict_nocarrier",
    "proxy_ndp",
];

/// One sysctl value as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KSysctl {
    /// The dotted key (`net.ipv4.conf.eth0.rp_filter`).
    pub key: String,
    /// The value, trimmed (`0x` hex for the hash fields, as the kernel prints them).
    pub value: String,
}

fn read(key: &str, w: &mut Vec<Warning>, quiet: bool) -> Option<KSysctl> {
    let path = format!("/proc/sys/{}", key.replace('.', "/"));
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(KSysctl {
            key: key.to_string(),
            value: s.trim().to_string(),
        }),
        Err(e) => {
            if !quiet {
                w.push(Warning::new(format!("cannot read {key}: {e}")));
            }
            None
        }
    }
}

/// Read every modelled sysctl: the global keys, then `all`, `default` and each device
/// of `devs` (names), IPv4 then IPv6. A device whose name holds a dot cannot be named
/// in a dotted key and is skipped with a warning; a key the kernel does not have (an
/// older kernel, a device without IPv6) is left out (warned for the namespace-wide ones).
pub fn read_all(devs: &[&str], w: &mut Vec<Warning>) -> Vec<KSysctl> {
    let mut out = Vec::new();
    for k in GLOBAL_KEYS {
        out.extend(read(k, w, false));
    }
    let mut scopes: Vec<&str> = vec!["all", "default"];
    for d in devs {
        if d.contains('.') || d.contains('/') {
            w.push(Warning::new(format!(
                "sysctls of device \"{d}\" not mirrored (a dot or slash in the name)"
            )));
        } else {
            scopes.push(d);
        }
    }
    for s in &scopes {
        let dev = matches!(*s, "all" | "default");
        for k in CONF4_KNOBS {
            out.extend(read(&format!("net.ipv4.conf.{s}.{k}"), w, !dev));
        }
    }
    for s in &scopes {
        let dev = matches!(*s, "all" | "default");
        for k in CONF6_KNOBS {
            out.extend(read(&format!("net.ipv6.conf.{s}.{k}"), w, !dev));
        }
    }
    out
}
