//! Whether the kernel's IPv4 local and main tables are merged.
//!
//! The kernel keeps the local table merged into main until the first IPv4 rule is
//! configured (`fib_unmerge` in `fib4_rule_configure`), and never merges them again:
//! after `ip rule add ...; ip rule del ...` the rules are the defaults again, but the
//! tables stay unmerged and `net->ipv4.fib_has_custom_rules` stays set. No dump shows
//! that, but a lookup does: a route get for a local address answers from table local
//! (255) when the tables are unmerged and from main (254) while they are merged
//! (`ip route get` prints `table local` in the first case only). So the probe is one
//! non-dump `RTM_GETROUTE` for a destination the local table holds a local (or else
//! broadcast) route for, and the table of the answer.

use crate::kernel::{KRoute, AF_INET};
use crate::nl::{self, rtm, RtSocket};
use crate::KernelState;

/// `RTA_DST`.
const RTA_DST: u16 = 1;
/// `RTA_TABLE`.
const RTA_TABLE: u16 = 15;
/// `RTM_F_LOOKUP_TABLE`: set `rtm_table` to the table of the lookup's result.
const RTM_F_LOOKUP_TABLE: u32 = 0x1000;
/// `RTNH_F_DEAD`.
const RTNH_F_DEAD: u32 = 0x01;
/// `RTN_LOCAL`.
const RTN_LOCAL: u8 = 2;
/// `RTN_BROADCAST`.
const RTN_BROADCAST: u8 = 3;
/// `RT_TABLE_MAIN`.
const TABLE_MAIN: u32 = 254;
/// `RT_TABLE_LOCAL`.
const TABLE_LOCAL: u32 = 255;
/// `127.0.0.1`.
const LOOPBACK: u32 = 0x7f00_0001;

/// The destination to probe with: 127.0.0.1 when the local table has its local route,
/// else the address of another local route of the local table, else of a broadcast
/// one; `None` when the local table has neither (no address is configured and up).
pub(crate) fn target(k: &KernelState) -> Option<u32> {
    let usable = |r: &&KRoute, ty: u8| {
        !r.v6
            && r.table == TABLE_LOCAL
            && r.rtype == ty
            && r.dst.1 == 32
            && r.hops.iter().all(|h| h.flags & RTNH_F_DEAD == 0)
    };
    let of = |ty: u8| k.routes.iter().filter(move |r| usable(r, ty));
    of(RTN_LOCAL)
        .find(|r| r.dst.0 == u128::from(LOOPBACK))
        .or_else(|| of(RTN_LOCAL).next())
        .or_else(|| of(RTN_BROADCAST).next())
        .map(|r| r.dst.0 as u32)
}

/// The body of the request: `struct rtmsg` (AF_INET, a /32 destination,
/// `RTM_F_LOOKUP_TABLE`) and `RTA_DST`, what `ip route get DST` sends.
pub(crate) fn route_get_body(dst: u32) -> Vec<u8> {
    let mut b = vec![0u8; 12];
    b[0] = AF_INET;
    b[1] = 32;
    b[8..12].copy_from_slice(&RTM_F_LOOKUP_TABLE.to_ne_bytes());
    b.extend_from_slice(&8u16.to_ne_bytes());
    b.extend_from_slice(&RTA_DST.to_ne_bytes());
    b.extend_from_slice(&dst.to_be_bytes());
    b
}

/// The table of an `RTM_NEWROUTE` answer: `RTA_TABLE`, else the header's `rtm_table`.
pub(crate) fn answer_table(payload: &[u8]) -> Option<u32> {
    let header = *payload.get(..12)?.get(4)?;
    let attr = nl::attrs(&payload[12..])
        .filter(|a| a.ty == RTA_TABLE)
        .find_map(|a| a.u32());
    Some(attr.unwrap_or(u32::from(header)))
}

/// What a table id says: `Some(true)` for unmerged (local), `Some(false)` for merged
/// (main), `None` for anything else.
pub(crate) fn unmerged_from_table(table: u32) -> Option<bool> {
    match table {
        TABLE_LOCAL => Some(true),
        TABLE_MAIN => Some(false),
        _ => None,
    }
}

/// Ask the kernel: `Ok(true)` when its IPv4 local and main tables are unmerged. Only
/// meaningful while the IPv4 rules are the defaults (rule 0 then looks up local first).
pub(crate) fn unmerged(s: &mut RtSocket, k: &KernelState) -> Result<bool, String> {
    let dst = target(k).ok_or("the local table has no local or broadcast route to probe")?;
    let a = std::net::Ipv4Addr::from(dst);
    let answer = s
        .get(rtm::GETROUTE, &route_get_body(dst), rtm::NEWROUTE)
        .map_err(|e| format!("route get {a}: {e}"))?;
    let table = answer_table(&answer).ok_or(format!("route get {a}: a short answer"))?;
    unmerged_from_table(table).ok_or(format!("route get {a}: answered from table {table}"))
}

/// The IPv6 destination to probe `fib6_has_custom_rules` with: an address inside a
/// unicast route of table main (prefix shorter than /112), offset from its start so
/// that it is none of table local's host, anycast or multicast entries; `None`
/// without such a route.
pub(crate) fn target6(k: &KernelState) -> Option<u128> {
    let local = local6(k);
    k.routes
        .iter()
        .filter(|r| r.v6 && r.table == TABLE_MAIN && r.rtype == 1 && r.dst.1 <= 112)
        .map(|r| r.dst.0 | 0x5a5a)
        .find(|a| !local.contains(a) && (a >> 120) != 0xff)
}

/// The destinations of table local's IPv6 entries (which a probe address avoids).
fn local6(k: &KernelState) -> Vec<u128> {
    k.routes
        .iter()
        .filter(|r| r.v6 && r.table == TABLE_LOCAL)
        .map(|r| r.dst.0)
        .collect()
}

/// The body of `ip -6 route get DST`: `struct rtmsg` (AF_INET6, a /128 destination,
/// `RTM_F_LOOKUP_TABLE`) and `RTA_DST`.
pub(crate) fn route_get_body6(dst: u128) -> Vec<u8> {
    get_body6(dst, RTM_F_LOOKUP_TABLE)
}

/// A route get's body: `struct rtmsg` (AF_INET6, a /128 destination, `flags`) and
/// `RTA_DST`.
fn get_body6(dst: u128, flags: u32) -> Vec<u8> {
    let mut b = vec![0u8; 12];
    b[0] = crate::kernel::AF_INET6;
    b[1] = 128;
    b[8..12].copy_from_slice(&flags.to_ne_bytes());
    b.extend_from_slice(&20u16.to_ne_bytes());
    b.extend_from_slice(&RTA_DST.to_ne_bytes());
    b.extend_from_slice(&dst.to_be_bytes());
    b
}

/// The body of `ip -6 route get fibmatch DST oif OIF`: `RTM_F_FIB_MATCH`, `RTA_DST`
/// and `RTA_OIF`.
pub(crate) fn fibmatch_body6(dst: u128, oif: u32) -> Vec<u8> {
    const RTM_F_FIB_MATCH: u32 = 0x2000;
    const RTA_OIF: u16 = 4;
    let mut b = get_body6(dst, RTM_F_FIB_MATCH);
    b.extend_from_slice(&8u16.to_ne_bytes());
    b.extend_from_slice(&RTA_OIF.to_ne_bytes());
    b.extend_from_slice(&oif.to_ne_bytes());
    b
}

/// Probe the paths of the IPv6 multipath gateway routes (see
/// [`crate::LegProbe6`]): an address of the prefix that is no entry of table local,
/// and each path whose device is its own. An answer that is another route (a more
/// specific one, another table's, a path that cannot be used) leaves the path
/// unprobed.
pub(crate) fn legs6(s: &mut RtSocket, k: &KernelState) -> Vec<crate::LegProbe6> {
    let local = local6(k);
    let mut out = Vec::new();
    for r in k
        .routes
        .iter()
        .filter(|r| r.v6 && r.hops.len() > 1 && r.nhid == 0 && r.src.1 == 0 && r.rtype == 1)
    {
        let host = u128::MAX.checked_shr(u32::from(r.dst.1)).unwrap_or(0);
        let a = r.dst.0 | (0x5a5a & host);
        if local.contains(&a) || (a >> 120) == 0xff {
            continue;
        }
        let legs: Vec<Option<KRoute>> = r
            .hops
            .iter()
            .map(|h| {
                let own = h.oif != 0 && r.hops.iter().filter(|x| x.oif == h.oif).count() == 1;
                if !own {
                    return None;
                }
                let p = s
                    .get(rtm::GETROUTE, &fibmatch_body6(a, h.oif), rtm::NEWROUTE)
                    .ok()?;
                crate::kernel::decode_route(&p, &mut Vec::new()).filter(|x| {
                    x.table == r.table
                        && x.dst == r.dst
                        && x.priority == r.priority
                        && x.hops.len() == r.hops.len()
                })
            })
            .collect();
        if legs.iter().any(Option::is_some) {
            out.push(crate::LegProbe6 {
                key: (r.table, r.dst, r.src, r.priority),
                legs,
            });
        }
    }
    out
}

/// Ask the kernel whether it walks its IPv6 rules (`fib6_has_custom_rules`, set by the
/// first rule added, never by a delete). Only asked while the rules are defaults with
/// the main rule deleted: then a destination of a main route is answered from table
/// main when the flag is unset (the lookup goes to local, then main, without the
/// rules), and is unreachable when it is set (`Ok(true)`).
pub(crate) fn custom6(s: &mut RtSocket, k: &KernelState) -> Result<bool, String> {
    let dst = target6(k).ok_or("table main has no IPv6 unicast route to probe")?;
    let a = std::net::Ipv6Addr::from(dst);
    match s.get(rtm::GETROUTE, &route_get_body6(dst), rtm::NEWROUTE) {
        Ok(answer) => match answer_table(&answer) {
            Some(TABLE_MAIN) => Ok(false),
            t => Err(format!("-6 route get {a}: answered from table {t:?}")),
        },
        // ENETUNREACH: the rules were walked and none found it
        Err(e) if e.raw_os_error() == Some(101) => Ok(true),
        Err(e) => Err(format!("-6 route get {a}: {e}")),
    }
}

/// A route by table, destination and metric.
pub(crate) type RouteKey = (u32, (u128, u8), u32);

/// `ip route get A oif OIF` with `flags`: `struct rtmsg` (AF_INET, a /32 destination),
/// `RTA_DST` and `RTA_OIF`.
fn get_body4_oif(dst: u32, oif: u32, flags: u32) -> Vec<u8> {
    const RTA_OIF: u16 = 4;
    let mut b = route_get_body(dst);
    b[8..12].copy_from_slice(&flags.to_ne_bytes());
    b.extend_from_slice(&8u16.to_ne_bytes());
    b.extend_from_slice(&RTA_OIF.to_ne_bytes());
    b.extend_from_slice(&oif.to_ne_bytes());
    b
}

/// The most routes [`host_gw4`] asks about, so that a full table costs a few seconds.
const HOST_GW4_PROBES: usize = 4096;

/// The IPv4 gateway routes whose nexthop the kernel keeps with a host scope: its
/// gateway was a local address when the route was added (`fib_check_nh_v4_gw` takes
/// the scope of the gateway's route), so that lookups answer without the gateway
/// (`rt_set_nexthop` uses it only at link scope) for as long as the route lives. No
/// dump shows it. A route is asked about with two route gets for an address of its
/// prefix through its device: `fibmatch` must name it, and the plain answer then has
/// no `RTA_GATEWAY` (host scope) or has one (link scope). Returns the routes of each
/// (at most [`HOST_GW4_PROBES`] routes are asked about).
pub(crate) fn host_gw4(s: &mut RtSocket, k: &KernelState) -> (Vec<RouteKey>, Vec<RouteKey>) {
    const RTM_F_FIB_MATCH: u32 = 0x2000;
    const RTNH_F_DEAD: u32 = 0x01;
    const RTNH_F_ONLINK: u32 = 0x04;
    let local: Vec<u32> = k
        .routes
        .iter()
        .filter(|r| !r.v6 && r.table == TABLE_LOCAL)
        .map(|r| r.dst.0 as u32)
        .collect();
    let candidates: Vec<&KRoute> = k
        .routes
        .iter()
        .filter(|r| {
            !r.v6
                && r.rtype == 1
                && r.nhid == 0
                && r.hops.len() == 1
                && matches!(r.hops[0].gw, Some(crate::kernel::Ip::V4(_)))
                && r.hops[0].oif != 0
                && r.hops[0].flags & (RTNH_F_DEAD | RTNH_F_ONLINK) == 0
        })
        .collect();
    let mut probes = 0usize;
    let mut ask = |s: &mut RtSocket, r: &KRoute| -> Option<bool> {
        if probes >= HOST_GW4_PROBES {
            return None;
        }
        probes += 1;
        let host = u32::MAX.checked_shr(u32::from(r.dst.1)).unwrap_or(0);
        let a = (r.dst.0 as u32) | (0x5a5a & host);
        if local.contains(&a) {
            return None;
        }
        let oif = r.hops[0].oif;
        let m = s
            .get(
                rtm::GETROUTE,
                &get_body4_oif(a, oif, RTM_F_FIB_MATCH),
                rtm::NEWROUTE,
            )
            .ok()?;
        let m = crate::kernel::decode_route(&m, &mut Vec::new())?;
        // (while the local and main tables are merged, a local route's match is
        // answered as main's)
        let table = m.table == r.table || (r.table == TABLE_LOCAL && m.table == TABLE_MAIN);
        if !table || (m.dst, m.priority) != (r.dst, r.priority) {
            return None;
        }
        // the plain answer (a cloned route, which the dump decoder passes over): an
        // `RTA_GATEWAY` only when the gateway is used (link scope)
        const RTA_GATEWAY: u16 = 5;
        let p = s
            .get(
                rtm::GETROUTE,
                &get_body4_oif(a, oif, RTM_F_LOOKUP_TABLE),
                rtm::NEWROUTE,
            )
            .ok()?;
        let attrs = p.get(12..)?;
        Some(!nl::attrs(attrs).any(|x| x.ty == RTA_GATEWAY))
    };
    // every route (up to the limit) is asked about: a route added now could take
    // either scope from what its gateway's lookup finds at that moment
    let mut host = Vec::new();
    let mut link = Vec::new();
    for r in &candidates {
        match ask(s, r) {
            Some(true) => host.push((r.table, r.dst, r.priority)),
            Some(false) => link.push((r.table, r.dst, r.priority)),
            None => {}
        }
    }
    (host, link)
}
