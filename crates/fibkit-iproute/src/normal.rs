//! The oracle's normalized one-line format for `ip route get` answers and FIB entries
//! (the format of `../shared/oracle/linux-oracle`'s QUERY and DUMP lines).

use fibkit::lookup::RouteAnswer4;
use fibkit::lookup6::RouteAnswer6;
use fibkit::route::{nhflags, rtax, Gateway, Metrics, Route4, Route6, RouteType};
use fibkit::Netns;

use crate::names::{fmt4, fmt6, host4, host6, proto_n2a, rtntype_n2a, scope_n2a, table_n2a};

fn table_word(t: u32) -> String {
    if t == 0 {
        "main".into()
    } else {
        table_n2a(t)
    }
}

fn gw_word(g: &Gateway, route_v6: bool) -> String {
    match (g, route_v6) {
        (Gateway::V4(a), false) => format!("via {}", host4(*a)),
        (Gateway::V6(a), true) => format!("via {}", host6(*a)),
        (Gateway::V6(a), false) => format!("via inet6 {}", host6(*a)),
        (Gateway::V4(a), true) => format!("via inet {}", host4(*a)),
    }
}

/// The metrics words (`mtu 1400`, `mtu lock 1400`, ...), in RTAX order.
pub fn metrics_words(m: &Metrics) -> Vec<String> {
    let mut out = Vec::new();
    let mut ids: Vec<u8> = m.vals.iter().map(|(k, _)| *k).collect();
    if m.congctl.is_some() {
        ids.push(rtax::CC_ALGO);
    }
    // `print_rta_metrics()` also prints a locked metric the kernel left out for its
    // value 0 (`mtu lock 0`: the lock bit alone), as 0
    ids.extend((2u8..=17).filter(|&i| i != rtax::CC_ALGO && m.locks & (1u32 << i) != 0));
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        // iproute2's JSON keys: `congestion` for the algorithm, and the feature flag
        // as a key of its own with a null value (the oracle prints Python's `None`)
        let name = match id {
            rtax::CC_ALGO => "congestion",
            rtax::FEATURES => "ecn",
            _ => rtax::name(id),
        };
        let val = if id == rtax::CC_ALGO {
            m.congctl.clone().unwrap_or_default()
        } else {
            let v = m.get(id).unwrap_or(0);
            if id == rtax::FEATURES {
                "None".to_string()
            } else if id == rtax::RTT {
                (v / 8).to_string()
            } else if id == rtax::RTTVAR {
                (v / 4).to_string()
            } else {
                v.to_string()
            }
        };
        // iproute2's JSON reports a locked metric by its value alone
        out.push(format!("{name} {val}"));
    }
    out
}

/// iproute2's flag words for `RTNH_F_*` bits, in its print order.
pub fn flag_words(flags: u32) -> Vec<&'static str> {
    let mut v = Vec::new();
    if flags & nhflags::DEAD != 0 {
        v.push("dead");
    }
    if flags & nhflags::ONLINK != 0 {
        v.push("onlink");
    }
    if flags & nhflags::PERVASIVE != 0 {
        v.push("pervasive");
    }
    if flags & nhflags::OFFLOAD != 0 {
        v.push("offload");
    }
    if flags & nhflags::LINKDOWN != 0 {
        v.push("linkdown");
    }
    v
}

/// The flags of a nexthop as the kernel reports them (`fib_nexthop_info`): a linkdown
/// nexthop on a device that ignores linkdown routes is also reported dead.
fn nh_report_flags(flags: u32, ignore_linkdown: bool) -> u32 {
    let mut f = flags & (nhflags::DEAD | nhflags::ONLINK | nhflags::LINKDOWN | nhflags::PERVASIVE);
    if f & nhflags::LINKDOWN != 0 && ignore_linkdown {
        f |= nhflags::DEAD;
    }
    f
}

fn dst4(r: &Route4) -> String {
    if r.dst.len == 0 {
        "default".into()
    } else if r.dst.len == 32 {
        // a host route's destination goes through format_host (a name with -r)
        host4(r.dst.addr)
    } else {
        format!("{}/{}", fmt4(r.dst.addr), r.dst.len)
    }
}

fn dst6(p: fibkit::prefix::Prefix6) -> String {
    if p.len == 0 {
        "default".into()
    } else if p.len == 128 {
        host6(p.addr)
    } else {
        format!("{}/{}", fmt6(p.addr), p.len)
    }
}

/// The oracle reads iproute2's JSON into a map, where the keys of a single-path
/// route's encapsulation overwrite the route's own: an `ip` or `ip6` encapsulation's
/// `dst` takes the place of the destination, and an `ip` one's `tos` (a number) is
/// the route's when the route has none. Rewrites `dst` so, and returns that `tos`.
fn oracle_encap_keys(encap: Option<&fibkit::encap::Encap>, dst: &mut String) -> Option<u8> {
    use fibkit::encap::Encap;
    match encap? {
        Encap::Ip { dst: d, tos, .. } => {
            *dst = fmt4(*d);
            Some(*tos)
        }
        Encap::Ip6 { dst: d, .. } => {
            *dst = fmt6(*d);
            None
        }
        // (a seg6local `table` comes before the route's own, which -d always prints)
        Encap::Seg6 { .. }
        | Encap::Seg6Local { .. }
        | Encap::Unsupported { .. }
        | Encap::Refused { .. } => None,
    }
}

/// An IPv4 FIB entry in the normalized `fib` form (dump lines and fibmatch answers).
pub fn fib4_line(ns: &Netns, r: &Route4, rtype: RouteType) -> String {
    fib4_line_in(ns, r, rtype, r.table)
}

/// Like [`fib4_line`], reporting `table` (a fibmatch answer names the table the lookup
/// ran in: main for local routes while local and main are merged).
pub fn fib4_line_in(ns: &Netns, r: &Route4, rtype: RouteType, table: u32) -> String {
    fib4_words(ns, r, rtype, table).join(" ")
}

/// The words of [`fib4_line_in`], one per key the oracle reads.
fn fib4_words(ns: &Netns, r: &Route4, rtype: RouteType, table: u32) -> Vec<String> {
    // a route through a blackhole object is reported as a blackhole, whatever its type
    let rtype = if ns.nh_is_blackhole(r.info.nh_id) {
        RouteType::Blackhole
    } else {
        rtype
    };
    let mut p: Vec<String> = vec![rtntype_n2a(rtype as u8), dst4(r)];
    let encap = match r.info.nhs.as_slice() {
        [nh] => nh.encap.as_deref(),
        _ => None,
    };
    let encap_tos = oracle_encap_keys(encap, &mut p[1]);
    if r.tos != 0 {
        p.push(format!("tos 0x{:02x}", r.tos));
    } else if let Some(t) = encap_tos {
        p.push(format!("tos {t}"));
    }
    if r.info.nh_id != 0 {
        p.push(format!("nhid {}", r.info.nh_id));
    }
    let info = &r.info;
    // without nexthop_compat_mode a route through an object shows its id alone
    let paths = info.nh_id == 0 || ns.sysctl.nexthop_compat_mode();
    let single = info.nhs.len() == 1;
    let mut flags = info.flags & (nhflags::DEAD | nhflags::LINKDOWN);
    // a route dumped without its one path's flags carries its own (`fib_flags`, a
    // request's `onlink` among them; conformance scenario 753)
    if !(single && paths) {
        flags |= info.flags & nhflags::ONLINK;
    }
    if single && paths {
        let nh = &info.nhs[0];
        if let Some(g) = &nh.gw {
            p.push(gw_word(g, false));
        }
        if nh.dev != 0 {
            p.push(format!("dev {}", ns.link_name(nh.dev)));
        }
        flags |= nh_report_flags(nh.flags, ns.ignore_linkdown4(nh.dev));
    }
    p.push(format!("table {}", table_word(table)));
    p.push(format!("proto {}", proto_n2a(info.proto)));
    p.push(format!("scope {}", scope_n2a(info.scope)));
    if info.prefsrc != 0 {
        p.push(format!("src {}", fmt4(info.prefsrc)));
    }
    if info.priority != 0 {
        p.push(format!("metric {}", info.priority));
    }
    p.extend(metrics_words(&info.metrics));
    let fw = flag_words(flags);
    if !fw.is_empty() {
        p.push(format!("flags {}", fw.join(",")));
    }
    if !single && paths {
        for nh in &info.nhs {
            let mut q = Vec::new();
            if let Some(g) = &nh.gw {
                q.push(gw_word(g, false));
            }
            if nh.dev != 0 {
                q.push(format!("dev {}", ns.link_name(nh.dev)));
            }
            q.push(format!("weight {}", nh.weight));
            let fw = flag_words(nh_report_flags(nh.flags, ns.ignore_linkdown4(nh.dev)));
            if !fw.is_empty() {
                q.push(format!("flags {}", fw.join(",")));
            }
            p.push(format!("nexthop({})", q.join(" ")));
        }
    }
    p
}

/// An IPv6 FIB entry (with its ECMP siblings, first leg first) in the normalized form.
pub fn fib6_line(ns: &Netns, legs: &[&Route6]) -> String {
    fib6_words(ns, legs).join(" ")
}

/// The words of [`fib6_line`], one per key the oracle reads.
fn fib6_words(ns: &Netns, legs: &[&Route6]) -> Vec<String> {
    let r = legs[0];
    let mut p: Vec<String> = vec![rtntype_n2a(r.rtype as u8), dst6(r.dst)];
    let single = legs.len() == 1 && !ns.nh_is_group(r.nh_id);
    let encap_tos = oracle_encap_keys(r.nh.encap.as_deref().filter(|_| single), &mut p[1]);
    // iproute2 prints a source prefix of length 128 as a bare address, so `from ::/128`
    // reads "::" in its JSON, which the oracle takes for no source at all.
    let from = dst6(r.src);
    if r.src.len != 0 && from != "::" {
        p.push(format!("from {from}"));
    }
    if let Some(t) = encap_tos {
        p.push(format!("tos {t}"));
    }
    if r.nh_id != 0 {
        p.push(format!("nhid {}", r.nh_id));
    }
    // (a route through a group object is reported as multipath, one path or more;
    // without nexthop_compat_mode, a route through an object shows its id alone)
    let paths = r.nh_id == 0 || ns.sysctl.nexthop_compat_mode();
    let mut flags = 0;
    if single && paths {
        if let Some(g) = r.nh.gw {
            p.push(format!("via {}", host6(g)));
        }
        if r.nh.dev != 0 {
            p.push(format!("dev {}", ns.link_name(r.nh.dev)));
        }
        flags |= nh_report_flags(r.nh.flags, ns.ignore_linkdown6(r.nh.dev));
    }
    p.push(format!("table {}", table_word(r.table)));
    p.push(format!("proto {}", proto_n2a(r.proto)));
    // (rt6_fill_node reports every IPv6 route with RT_SCOPE_UNIVERSE; `-N` prints it as
    // a number like the other names)
    p.push(format!("scope {}", scope_n2a(0)));
    if let Some(s) = r.prefsrc {
        p.push(format!("src {}", fmt6(s)));
    }
    p.push(format!("metric {}", r.metric));
    p.push(format!("pref {}", r.pref.name()));
    p.extend(metrics_words(&r.metrics));
    if r.expires.is_some() {
        p.push("expires".into());
    }
    let fw = flag_words(flags);
    if !fw.is_empty() {
        p.push(format!("flags {}", fw.join(",")));
    }
    if !single && paths {
        for l in legs {
            let mut q = Vec::new();
            if let Some(g) = l.nh.gw {
                q.push(format!("via {}", host6(g)));
            }
            q.push(format!("dev {}", ns.link_name(l.nh.dev)));
            q.push(format!("weight {}", l.nh.weight));
            let fw = flag_words(nh_report_flags(l.nh.flags, ns.ignore_linkdown6(l.nh.dev)));
            if !fw.is_empty() {
                q.push(format!("flags {}", fw.join(",")));
            }
            p.push(format!("nexthop({})", q.join(" ")));
        }
    }
    p
}

/// How the oracle reads a query's answer (`do_query`, `family_of`): as a FIB entry only
/// when a word of the command line is `fibmatch` written out (an abbreviation asks for
/// the entry, which the oracle then prints as an answer), and as IPv6 when the global
/// options hold `-6` or `inet6` (before `-4` or `inet`, whatever their order), or,
/// without either, when a word after them has a `:` (`oif d0:1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OracleView {
    /// the words of a FIB entry (`kind == "fib"`)
    pub fib: bool,
    /// the IPv6 reading (`family == 6`)
    pub v6: bool,
}

impl OracleView {
    /// The view of `ip ARGS` (the arguments after `ip`).
    pub fn of(args: &[String]) -> OracleView {
        let mut i = 0;
        let mut opts: Vec<&str> = Vec::new();
        while i < args.len() && args[i].starts_with('-') {
            opts.push(&args[i]);
            if matches!(args[i].as_str(), "-f" | "-family") {
                if let Some(v) = args.get(i + 1) {
                    opts.push(v);
                }
                i += 1;
            }
            i += 1;
        }
        let has = |w: &str| opts.contains(&w);
        let v6 = if has("-6") || has("inet6") {
            true
        } else if has("-4") || has("inet") {
            false
        } else {
            args.iter().any(|a| !a.starts_with('-') && a.contains(':'))
        };
        OracleView {
            fib: args.iter().any(|a| a == "fibmatch"),
            v6,
        }
    }
}

/// The oracle's answer words of a FIB entry's: the entry's without its prefix, source
/// prefix, TOS, protocol and scope, its preferred source after the device.
fn fib_words_as_get(words: Vec<String>) -> String {
    let key = |w: &str| w.split(' ').next().unwrap_or("").to_string();
    let mut src = words.iter().find(|w| key(w) == "src").cloned();
    let mut out: Vec<String> = Vec::new();
    for (i, w) in words.into_iter().enumerate() {
        let k = key(&w);
        if i == 1
            || matches!(
                k.as_str(),
                "from" | "tos" | "proto" | "scope" | "error" | "src"
            )
        {
            continue;
        }
        if k == "table" {
            out.extend(src.take());
        }
        out.push(w);
    }
    out.join(" ")
}

/// A normalized IPv4 `ip route get` answer.
pub fn get4_line(ns: &Netns, r: &RouteAnswer4, fibmatch: bool) -> String {
    get4_line_as(
        ns,
        r,
        fibmatch,
        OracleView {
            fib: fibmatch,
            v6: false,
        },
    )
}

/// [`get4_line`] as the oracle reads it in `view`.
pub fn get4_line_as(ns: &Netns, r: &RouteAnswer4, fibmatch: bool, view: OracleView) -> String {
    if fibmatch {
        if let Some((route, _)) = &r.fib {
            // the entry the answer took, with the TOS of the one the lookup matched
            let shown = Route4 {
                tos: r.dscp,
                ..route.clone()
            };
            let words = fib4_words(ns, &shown, r.rtype, r.table);
            return if view.fib {
                words.join(" ")
            } else {
                fib_words_as_get(words)
            };
        }
    }
    let mut p: Vec<String> = vec![rtntype_n2a(r.rtype as u8)];
    if let Some(g) = &r.gateway {
        p.push(gw_word(g, false));
    }
    p.push(format!("dev {}", ns.link_name(r.dev)));
    if let Some(s) = r.prefsrc {
        if !r.input && s != r.requested_src {
            p.push(format!("src {}", fmt4(s)));
        }
    }
    p.push(format!("table {}", table_word(r.table)));
    p.extend(metrics_words(&r.metrics));
    // every answer carries RTM_F_CLONED (iproute2's `cache` key), which the oracle
    // reports as `cached` when it reads the answer as IPv6; it drops
    // `rt_offload_failed` (RTCF_MULTICAST read as an rtm flag) only when it reads it
    // as IPv4
    if view.v6 {
        p.push("cached".into());
    }
    let mut flags = Vec::new();
    if r.notify {
        flags.push("notify");
    }
    if view.v6 && r.rtype == RouteType::Multicast {
        flags.push("rt_offload_failed");
    }
    if !flags.is_empty() {
        p.push(format!("flags {}", flags.join(",")));
    }
    p.join(" ")
}

/// A normalized IPv6 `ip -6 route get` answer.
pub fn get6_line(ns: &Netns, r: &RouteAnswer6, fibmatch: bool) -> String {
    get6_line_as(
        ns,
        r,
        fibmatch,
        OracleView {
            fib: fibmatch,
            v6: true,
        },
    )
}

/// [`get6_line`] as the oracle reads it in `view`.
pub fn get6_line_as(ns: &Netns, r: &RouteAnswer6, fibmatch: bool, view: OracleView) -> String {
    if fibmatch {
        let legs: Vec<&Route6> = r.fib.iter().collect();
        if !legs.is_empty() {
            let words = fib6_words(ns, &legs);
            return if view.fib {
                words.join(" ")
            } else {
                fib_words_as_get(words)
            };
        }
    }
    let mut p: Vec<String> = vec![rtntype_n2a(r.rtype as u8)];
    if let Some(g) = r.gateway {
        p.push(format!("via {}", host6(g)));
    }
    p.push(format!("dev {}", ns.link_name(r.dev)));
    if let Some(s) = r.prefsrc {
        p.push(format!("src {}", fmt6(s)));
    }
    p.push(format!("table {}", table_word(r.table)));
    p.push(format!("metric {}", r.metric));
    p.push(format!("pref {}", r.pref.name()));
    p.extend(metrics_words(&r.metrics));
    p.join(" ")
}

/// IPv4 tables in the kernel's dump order (`fib_table_hash`: bucket = id & 255,
/// newest table first within a bucket).
pub fn tables4_order(ns: &Netns) -> Vec<u32> {
    let mut ids: Vec<(u32, u64, u32)> = ns
        .tables4()
        .map(|t| (t.id & 255, u64::MAX - ns.table4_created(t.id), t.id))
        .collect();
    ids.sort();
    ids.into_iter().map(|(_, _, id)| id).collect()
}

/// IPv6 tables in the kernel's dump order.
pub fn tables6_order(ns: &Netns) -> Vec<u32> {
    let mut ids: Vec<(u32, u64, u32)> = ns
        .tables6()
        .map(|t| (t.id & 255, u64::MAX - ns.table6_created(t.id), t.id))
        .collect();
    ids.sort();
    ids.into_iter().map(|(_, _, id)| id).collect()
}

/// All routes of both families as the oracle's `DUMP` lines.
pub fn dump_routes(ns: &Netns) -> Vec<String> {
    let mut out = Vec::new();
    for id in tables4_order(ns) {
        if let Some(t) = ns.table4(id) {
            for r in t.iter() {
                out.push(format!("route4 {}", fib4_line(ns, r, r.rtype)));
            }
        }
    }
    for id in tables6_order(ns) {
        if let Some(t) = ns.table6(id) {
            for legs in fibkit::table::fib6_dump_messages(&t.dump_order()) {
                out.push(format!("route6 {}", fib6_line(ns, &legs)));
            }
        }
    }
    out
}
