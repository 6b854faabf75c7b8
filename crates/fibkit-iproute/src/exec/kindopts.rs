//! The option parsers (`parse_opt`) iproute2 6.1 runs for `ip link add|set ... type
//! KIND ARGS` of the kinds this kernel has no driver for (bonds and their ports,
//! VRFs, GRE tunnels, ...): iproute2 reads every word before it sends anything, so a
//! bad word is its own refusal (with its message and exit status), and only a line
//! that parses reaches the kernel, which knows no such kind. Each parser is a table
//! of [`Opt`]s read in iproute2's order (the first keyword a word abbreviates wins),
//! with what ends an unknown word ([`Unknown`]) and the checks made once the words
//! are read ([`Parser::finish`]).

use fibkit::Netns;

use super::{bad_addr, bad_prefix, invarg, ll_addr_a2n, ll_index, nodev, nodev_exit, Args};
use super::{Failure, Res};
use crate::names::{matches, parse_prefix, table_a2n};
use crate::show::{get_addr_ipv4, get_u32, get_u8};
use fibkit::prefix::Family;

/// How an option reads its value (iproute2's helpers; a refusal by `invarg` names the
/// value and the message, exit status 255).
#[derive(Clone, Copy)]
enum Val {
    /// No value.
    Flag,
    /// `get_u8`/`get_u16`/`get_u32` (any base) of at most the maximum, else `invarg`.
    Num(u32, &'static str),
    /// `get_s32`, else `invarg`.
    S32(&'static str),
    /// A word taken as is (`inherit`, `auto`, `none`), or else a number as [`Val::Num`].
    WordOrNum(&'static str, u32, &'static str),
    /// bond's `get_index`: a decimal index into the list or one of its names.
    Index(&'static [&'static str], &'static str),
    /// One of the words, exactly, else `invarg`.
    OneOf(&'static [&'static str], &'static str),
    /// A device by name (`ll_name_to_index`): `nodev`, returned (status 1) or, with
    /// `true`, passed to `exit` (status 255).
    Dev(bool),
    /// `get_addr(.., AF_INET)` (`false`) or `AF_INET6` (`true`).
    Addr(bool),
    /// bond's target lists: an optional word of comma-separated addresses (IPv4 through
    /// `get_addr32`, IPv6 through `get_addr`), 16 at most read.
    AddrList(bool),
    /// `ll_addr_a2n`: a link-layer address (a bad one returns, status 1).
    LlAddr,
    /// `rtnl_rttable_a2n`, else `invarg`.
    Table(&'static str),
    /// `tnl_parse_key`: a dotted quad or a number.
    Key(&'static str),
    /// `inherit` or `rtnl_dsfield_a2n`, else `invarg("bad TOS value")`.
    Tos,
    /// Its own check.
    Custom(fn(&str) -> Res<()>),
    /// Its own check, given the keywords read before it and their values.
    After(fn(&str, &Seen<'_>) -> Res<()>),
    /// The kind's usage, status 1 (`help`).
    Help,
    /// `parse_on_off`: a prefix of `off` or `on` (the refusal is returned, exit status
    /// 1).
    OnOff,
    /// can's `set_ctrlmode`: exactly `on` or `off`.
    CtrlMode,
    /// Its own check, of the namespace's devices.
    NsCheck(fn(&Netns, &str) -> Res<()>),
    /// A word whose handling is not modelled.
    Unmodelled,
}

/// One keyword of a parser: matched by any prefix (`matches`) or exactly (`strcmp`).
#[derive(Clone, Copy)]
struct Opt {
    w: &'static str,
    exact: bool,
    val: Val,
    /// The attribute the keyword sets (a number of the kind's own) may be given once:
    /// the name a second is reported by (empty: the word as typed), and how.
    once: Option<(u8, &'static str, Dup)>,
}

/// How a parser refuses a setting given twice.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dup {
    /// `check_duparg` (`duparg2`) once the value is read: "either KEY is duplicate, or
    /// VALUE is a garbage" (exit status 255).
    Garbage,
    /// The same before the value is read, with the keyword in both places.
    GarbageFirst,
    /// `duparg` once the value is read: "duplicate KEY: VALUE is the second value".
    Second,
}

const fn m(w: &'static str, val: Val) -> Opt {
    Opt {
        w,
        exact: false,
        val,
        once: None,
    }
}

const fn x(w: &'static str, val: Val) -> Opt {
    Opt {
        w,
        exact: true,
        val,
        once: None,
    }
}

impl Opt {
    /// The keyword's attribute may be given once (see [`Opt::once`], [`Dup::Garbage`]).
    const fn once(self, attr: u8, key: &'static str) -> Opt {
        Opt {
            once: Some((attr, key, Dup::Garbage)),
            ..self
        }
    }

    /// The keyword may be given once, refused as `dup` says.
    const fn once_as(self, attr: u8, dup: Dup) -> Opt {
        Opt {
            once: Some((attr, self.w, dup)),
            ..self
        }
    }
}

/// What a word no keyword takes makes the parser print before the kind's usage (exit
/// status 1).
#[derive(Clone, Copy)]
enum Unknown {
    /// `KIND: unknown command "WORD"?`
    Command,
    /// `KIND: unknown option "WORD"?`
    Option,
    /// Only the usage.
    Usage,
    /// `KIND: what is "WORD"?`
    WhatIs,
    /// Nothing: the word is passed over.
    Skip,
    /// `KIND: unknown option "WORD"` (no question mark).
    OptionPlain,
}

/// A parser's checks once every word is read (see [`Parser::finish`]).
type Finish = fn(&str, &Seen<'_>, bool) -> Res<()>;

/// A kind's parser.
struct Parser {
    kinds: &'static [&'static str],
    /// Tunnels first read the device's settings when changing one.
    tunnel: bool,
    opts: &'static [&'static [Opt]],
    unknown: Unknown,
    /// The checks once every word is read, given the keywords met (full names) and
    /// their values, in order, and whether a device is changed (not created).
    finish: Option<Finish>,
    /// What the parser reads before its keywords.
    pre: Option<fn(&mut Args<'_>) -> Res<()>>,
}

const BOND_MODES: &[&str] = &[
    "balance-rr",
    "active-backup",
    "balance-xor",
    "broadcast",
    "802.3ad",
    "balance-tlb",
    "balance-alb",
];

/// `bond_parse_opt` (iplink_bond.c).
const BOND: &[Opt] = &[
    m("mode", Val::Index(BOND_MODES, "invalid mode")),
    m("active_slave", Val::Dev(false)),
    m("clear_active_slave", Val::Flag),
    m("miimon", Val::Num(u32::MAX, "invalid miimon")),
    m("updelay", Val::Num(u32::MAX, "invalid updelay")),
    m("downdelay", Val::Num(u32::MAX, "invalid downdelay")),
    m(
        "peer_notify_delay",
        Val::Num(u32::MAX, "invalid peer_notify_delay"),
    ),
    m("use_carrier", Val::Num(255, "invalid use_carrier")),
    m("arp_interval", Val::Num(u32::MAX, "invalid arp_interval")),
    m("arp_ip_target", Val::AddrList(false)),
    x("ns_ip6_target", Val::AddrList(true)),
    m(
        "arp_validate",
        Val::Index(
            &[
                "none",
                "active",
                "backup",
                "all",
                "filter",
                "filter_active",
                "filter_backup",
            ],
            "invalid arp_validate",
        ),
    ),
    m(
        "arp_all_targets",
        Val::Index(&["any", "all"], "invalid arp_all_targets"),
    ),
    x("arp_missed_max", Val::Num(255, "invalid arp_missed_max")),
    m("primary", Val::Dev(false)),
    m(
        "primary_reselect",
        Val::Index(&["always", "better", "failure"], "invalid primary_reselect"),
    ),
    m(
        "fail_over_mac",
        Val::Index(&["none", "active", "follow"], "invalid fail_over_mac"),
    ),
    m(
        "xmit_hash_policy",
        Val::Index(
            &[
                "layer2",
                "layer3+4",
                "layer2+3",
                "encap2+3",
                "encap3+4",
                "vlan+srcmac",
            ],
            "invalid xmit_hash_policy",
        ),
    ),
    m("resend_igmp", Val::Num(u32::MAX, "invalid resend_igmp")),
    m(
        "num_grat_arp",
        Val::Num(255, "invalid num_grat_arp|num_unsol_na"),
    ),
    m(
        "num_unsol_na",
        Val::Num(255, "invalid num_grat_arp|num_unsol_na"),
    ),
    m(
        "all_slaves_active",
        Val::Num(255, "invalid all_slaves_active"),
    ),
    m("min_links", Val::Num(u32::MAX, "invalid min_links")),
    m("lp_interval", Val::Num(u32::MAX, "invalid lp_interval")),
    m(
        "packets_per_slave",
        Val::Num(u32::MAX, "invalid packets_per_slave"),
    ),
    m(
        "lacp_rate",
        Val::Index(&["slow", "fast"], "invalid lacp_rate"),
    ),
    x(
        "lacp_active",
        Val::Index(&["off", "on"], "invalid lacp_active"),
    ),
    m(
        "ad_select",
        Val::Index(&["stable", "bandwidth", "count"], "invalid ad_select"),
    ),
    m(
        "ad_user_port_key",
        Val::Num(0xffff, "invalid ad_user_port_key"),
    ),
    m(
        "ad_actor_sys_prio",
        Val::Num(0xffff, "invalid ad_actor_sys_prio"),
    ),
    m("ad_actor_system", Val::LlAddr),
    m("tlb_dynamic_lb", Val::Num(255, "invalid tlb_dynamic_lb")),
    m("help", Val::Help),
];

/// `bond_slave_parse_opt` (iplink_bond_slave.c): `help` only in place of an unknown
/// word.
const BOND_SLAVE: &[Opt] = &[
    m("queue_id", Val::Num(0xffff, "queue_id is invalid")),
    m("prio", Val::S32("prio is invalid")),
    m("help", Val::Help),
];

/// `vrf_parse_opt` (iplink_vrf.c; its message ends in a newline of its own).
const VRF: &[Opt] = &[
    m("table", Val::Table("invalid table ID\n")),
    m("help", Val::Help),
];

/// `erspan INDEX`: a number, then 1 to 2^20 - 1.
fn erspan_index(v: &str) -> Res<()> {
    let n = get_u32(v, 0).ok_or_else(|| invarg("invalid erspan index\n", v))?;
    if n == 0 || n >= 1 << 20 {
        return Err(invarg("erspan index must be > 0 and <= 20-bit\n", v));
    }
    Ok(())
}

/// `erspan_ver VERSION`: 0, 1 or 2.
fn erspan_ver(v: &str) -> Res<()> {
    let n = get_u8(v, 0).ok_or_else(|| invarg("invalid erspan version\n", v))?;
    if n > 2 {
        return Err(invarg("erspan version must be 0/1/2\n", v));
    }
    Ok(())
}

/// `erspan_dir ingress|egress`, by any prefix.
fn erspan_dir(v: &str) -> Res<()> {
    if matches(v, "ingress") || matches(v, "egress") {
        return Ok(());
    }
    Err(invarg("Invalid erspan direction.", v))
}

/// The encapsulation words the IPv4 tunnels share (`strcmp`).
const ENCAP: &[Opt] = &[
    x("noencap", Val::Flag),
    x(
        "encap",
        Val::OneOf(&["fou", "gue", "none"], "Invalid encap type."),
    ),
    x(
        "encap-sport",
        Val::WordOrNum("auto", 0xffff, "Invalid source port."),
    ),
    x("encap-dport", Val::Num(0xffff, "Invalid destination port.")),
    x("encap-csum", Val::Flag),
    x("noencap-csum", Val::Flag),
    x("encap-udp6-csum", Val::Flag),
    x("noencap-udp6-csum", Val::Flag),
    x("encap-remcsum", Val::Flag),
    x("noencap-remcsum", Val::Flag),
];

/// The keys and flags both `gre_parse_opt`s (link_gre.c, link_gre6.c) read first.
const GRE_KEYS: &[Opt] = &[
    m("key", Val::Key("key")),
    m("nokey", Val::Flag),
    m("ikey", Val::Key("ikey")),
    m("noikey", Val::Flag),
    m("okey", Val::Key("okey")),
    m("nookey", Val::Flag),
    m("seq", Val::Flag),
    m("noseq", Val::Flag),
    m("iseq", Val::Flag),
    m("noiseq", Val::Flag),
    m("oseq", Val::Flag),
    m("nooseq", Val::Flag),
    m("csum", Val::Flag),
    m("nocsum", Val::Flag),
    m("icsum", Val::Flag),
    m("noicsum", Val::Flag),
    m("ocsum", Val::Flag),
    m("noocsum", Val::Flag),
];

/// `gre_parse_opt` (link_gre.c) after its keys and flags, before its encapsulation
/// words.
const GRE: &[Opt] = &[
    m("nopmtudisc", Val::Flag),
    m("pmtudisc", Val::Flag),
    m("remote", Val::Addr(false)),
    m("local", Val::Addr(false)),
    m("dev", Val::Dev(true)),
    m("ttl", Val::WordOrNum("inherit", 255, "invalid TTL\n")),
    m("hoplimit", Val::WordOrNum("inherit", 255, "invalid TTL\n")),
    m("hlim", Val::WordOrNum("inherit", 255, "invalid TTL\n")),
    m("tos", Val::Tos),
    m("tclass", Val::Tos),
    m("dsfield", Val::Tos),
];

/// gre_parse_opt's words after the encapsulation ones.
const GRE_TAIL: &[Opt] = &[
    x("external", Val::Flag),
    x("ignore-df", Val::Flag),
    x("noignore-df", Val::Flag),
    x("fwmark", Val::Num(u32::MAX, "invalid fwmark\n")),
];

/// The words only `type erspan` takes (gre_is_erspan).
const ERSPAN: &[Opt] = &[
    x("erspan", Val::Custom(erspan_index)),
    x("erspan_ver", Val::Custom(erspan_ver)),
    x("erspan_dir", Val::Custom(erspan_dir)),
    x("erspan_hwid", Val::Num(0xffff, "invalid erspan hwid\n")),
];

/// `tclass` of the IPv6 tunnels: `inherit` or a hexadecimal byte.
fn tclass6(v: &str) -> Res<()> {
    if v == "inherit" || get_u8(v, 16).is_some() {
        return Ok(());
    }
    Err(invarg("invalid TClass", v))
}

/// `flowlabel` of the IPv6 tunnels: `inherit` or a hexadecimal 20-bit label.
fn flowlabel6(v: &str) -> Res<()> {
    if v == "inherit" || get_u32(v, 16).is_some_and(|n| n <= 0xfffff) {
        return Ok(());
    }
    Err(invarg("invalid Flowlabel", v))
}

/// `dscp inherit`, the only value.
fn dscp6(v: &str) -> Res<()> {
    if v == "inherit" {
        return Ok(());
    }
    Err(invarg("not inherit", v))
}

/// The words of `gre_parse_opt` (link_gre6.c) after the keys and flags, before the
/// encapsulation ones: IPv6 endpoints, and the IPv6 tunnel's hop limit and traffic
/// class.
const GRE6: &[Opt] = &[
    m("remote", Val::Addr(true)),
    m("local", Val::Addr(true)),
    m("dev", Val::Dev(true)),
    m("ttl", Val::WordOrNum("inherit", 255, "invalid HLIM\n")),
    m("hoplimit", Val::WordOrNum("inherit", 255, "invalid HLIM\n")),
    m("hlim", Val::WordOrNum("inherit", 255, "invalid HLIM\n")),
    m("tos", Val::Custom(tclass6)),
    m("tclass", Val::Custom(tclass6)),
    m("dsfield", Val::Custom(tclass6)),
    x("flowlabel", Val::Custom(flowlabel6)),
    x("fl", Val::Custom(flowlabel6)),
    x("dscp", Val::Custom(dscp6)),
];

/// link_gre6.c's words after the encapsulation ones.
const GRE6_TAIL: &[Opt] = &[
    x(
        "fwmark",
        Val::WordOrNum("inherit", u32::MAX, "invalid fwmark\n"),
    ),
    x("encaplimit", Val::WordOrNum("none", 255, "invalid ELIM")),
    x("allow-localremote", Val::Flag),
    x("noallow-localremote", Val::Flag),
    x("external", Val::Flag),
];

/// Any value (ip6tunnel_parse_opt's `encaplimit` check of `get_u8(..) < -1` never
/// refuses one).
fn any_value(_: &str) -> Res<()> {
    Ok(())
}

/// `ip6tunnel_parse_opt` (link_ip6tnl.c).
const IP6TNL: &[Opt] = &[
    x(
        "mode",
        Val::OneOf(
            &[
                "ipv6/ipv6",
                "ip6ip6",
                "ip/ipv6",
                "ipv4/ipv6",
                "ipip6",
                "ip4ip6",
                "any/ipv6",
                "any",
            ],
            "Cannot guess tunnel mode.",
        ),
    ),
    x("remote", Val::Addr(true)),
    x("local", Val::Addr(true)),
    m("dev", Val::Dev(true)),
    x("ttl", Val::WordOrNum("inherit", 255, "invalid HLIM\n")),
    x("hoplimit", Val::WordOrNum("inherit", 255, "invalid HLIM\n")),
    x("hlim", Val::WordOrNum("inherit", 255, "invalid HLIM\n")),
    x("encaplimit", Val::Custom(any_value)),
    x("tos", Val::Custom(tclass6)),
    x("tclass", Val::Custom(tclass6)),
    x("tc", Val::Custom(tclass6)),
    m("dsfield", Val::Custom(tclass6)),
    x("flowlabel", Val::Custom(flowlabel6)),
    x("fl", Val::Custom(flowlabel6)),
    x("dscp", Val::Custom(dscp6)),
    x(
        "fwmark",
        Val::WordOrNum("inherit", u32::MAX, "invalid fwmark\n"),
    ),
    x("allow-localremote", Val::Flag),
    x("noallow-localremote", Val::Flag),
];

/// `6rd-prefix`: an IPv6 prefix (`get_prefix` exits on a bad one).
fn prefix6(v: &str) -> Res<()> {
    parse_prefix(v, Some(Family::V6))
        .map(|_| ())
        .ok_or_else(|| bad_prefix(v, Some(Family::V6)))
}

/// `6rd-relay_prefix`: an IPv4 prefix.
fn prefix4(v: &str) -> Res<()> {
    parse_prefix(v, Some(Family::V4))
        .map(|_| ())
        .ok_or_else(|| bad_prefix(v, Some(Family::V4)))
}

/// `iptunnel_parse_opt` (link_iptnl.c), `type ipip` and `type sit`, before its
/// encapsulation words (`isatap` is sit's, and so are the modes of IPv6 inside).
const IPTNL: &[Opt] = &[
    x("remote", Val::Addr(false)),
    x("local", Val::Addr(false)),
    m("dev", Val::Dev(true)),
    x("ttl", Val::WordOrNum("inherit", 255, "invalid TTL\n")),
    x("hoplimit", Val::WordOrNum("inherit", 255, "invalid TTL\n")),
    x("hlim", Val::WordOrNum("inherit", 255, "invalid TTL\n")),
    x("tos", Val::Tos),
    x("tclass", Val::Tos),
    m("dsfield", Val::Tos),
    x("nopmtudisc", Val::Flag),
    x("pmtudisc", Val::Flag),
];
const IPIP_MODE: &[Opt] = &[x(
    "mode",
    Val::OneOf(
        &[
            "ipv4/ipv4",
            "ipip",
            "ip4ip4",
            "mpls/ipv4",
            "mplsip",
            "any/ipv4",
            "any",
        ],
        "Cannot guess tunnel mode.",
    ),
)];
const SIT_MODE: &[Opt] = &[
    x("isatap", Val::Flag),
    x(
        "mode",
        Val::OneOf(
            &[
                "ipv6/ipv4",
                "ip6ip",
                "ipv4/ipv4",
                "ipip",
                "ip4ip4",
                "mpls/ipv4",
                "mplsip",
                "any/ipv4",
                "any",
            ],
            "Cannot guess tunnel mode.",
        ),
    ),
];
const IPTNL_TAIL: &[Opt] = &[
    x("external", Val::Flag),
    x("6rd-prefix", Val::Custom(prefix6)),
    x("6rd-relay_prefix", Val::Custom(prefix4)),
    x("6rd-reset", Val::Unmodelled),
    x("fwmark", Val::Num(u32::MAX, "invalid fwmark\n")),
];

/// `vti_parse_opt` (link_vti.c) and link_vti6.c's, by the family of their endpoints.
const VTI: &[Opt] = &[
    m("key", Val::Key("key")),
    m("ikey", Val::Key("ikey")),
    m("okey", Val::Key("okey")),
    m("remote", Val::Addr(false)),
    m("local", Val::Addr(false)),
    m("dev", Val::Dev(true)),
    x("fwmark", Val::Num(u32::MAX, "invalid fwmark\n")),
];
const VTI6: &[Opt] = &[
    m("key", Val::Key("key")),
    m("ikey", Val::Key("ikey")),
    m("okey", Val::Key("okey")),
    m("remote", Val::Addr(true)),
    m("local", Val::Addr(true)),
    m("dev", Val::Dev(true)),
    x("fwmark", Val::Num(u32::MAX, "invalid fwmark\n")),
];

/// geneve's `remote`: any family's address (`get_addr(.., AF_UNSPEC)`), not a
/// multicast one nor `any` (is_addrtype_inet_not_multi).
fn geneve_remote(v: &str) -> Res<()> {
    if matches!(v, "default" | "all" | "any") {
        return Err(invarg("invalid remote address", v));
    }
    let multicast = if v.contains(':') {
        let a: std::net::Ipv6Addr = v.parse().map_err(|_| bad_addr(v, None))?;
        a.is_multicast()
    } else {
        let a = get_addr_ipv4(v).ok_or_else(|| bad_addr(v, None))?;
        a >> 28 == 0xe
    };
    if multicast {
        return Err(invarg("invalid remote address", v));
    }
    Ok(())
}

/// geneve's `ttl`: `inherit`, `auto` or a number up to 255.
fn geneve_ttl(v: &str) -> Res<()> {
    if v == "inherit" || v == "auto" {
        return Ok(());
    }
    match get_u32(v, 0) {
        None => Err(invarg("invalid TTL", v)),
        Some(n) if n > 255 => Err(invarg("TTL must be <= 255", v)),
        Some(_) => Ok(()),
    }
}

/// `geneve_parse_opt` (iplink_geneve.c): every setting once (`check_duparg`).
const GENEVE: &[Opt] = &[
    m("id", Val::Num(0xff_ffff, "invalid id")).once(1, "id"),
    m("vni", Val::Num(0xff_ffff, "invalid id")).once(1, "id"),
    m("remote", Val::Custom(geneve_remote)).once(2, "remote"),
    m("ttl", Val::Custom(geneve_ttl)).once(3, "ttl"),
    m("hoplimit", Val::Custom(geneve_ttl)).once(3, "ttl"),
    m("tos", Val::Tos).once(4, "tos"),
    m("dsfield", Val::Tos).once(4, "tos"),
    m(
        "df",
        Val::OneOf(
            &["unset", "set", "inherit"],
            "DF must be 'unset', 'set' or 'inherit'",
        ),
    )
    .once(13, "df"),
    m("label", Val::Num(0xfffff, "invalid flowlabel")).once(11, "flowlabel"),
    m("flowlabel", Val::Num(0xfffff, "invalid flowlabel")).once(11, "flowlabel"),
    m("dstport", Val::Num(0xffff, "dstport")).once(5, "dstport"),
    m("external", Val::Flag).once(6, ""),
    m("noexternal", Val::Flag).once(6, ""),
    m("udpcsum", Val::Flag).once(8, ""),
    m("noudpcsum", Val::Flag).once(8, ""),
    m("udp6zerocsumtx", Val::Flag).once(9, ""),
    m("noudp6zerocsumtx", Val::Flag).once(9, ""),
    m("udp6zerocsumrx", Val::Flag).once(10, ""),
    m("noudp6zerocsumrx", Val::Flag).once(10, ""),
    x("innerprotoinherit", Val::Flag).once(14, ""),
    m("help", Val::Help),
];

/// geneve_parse_opt's checks: `external` without an id, or else an id, and a remote
/// when a device is created.
fn geneve_finish(_kind: &str, seen: &[(&'static str, &str)], set: bool) -> Res<()> {
    let has = |k: &str| seen.iter().any(|(w, _)| *w == k);
    let id = has("id") || has("vni");
    let fail = |m: &str| Err(Failure::parse(format!("geneve: {m}\n"), 1));
    if has("external") {
        if id {
            return fail("both 'external' and vni cannot be specified");
        }
        return Ok(());
    }
    if !id {
        return fail("missing virtual network identifier");
    }
    if !set && !has("remote") {
        return fail("remote link partner not specified");
    }
    Ok(())
}

/// hsr's slave devices: `invarg` when there is none of the name.
fn hsr_slave(ns: &Netns, v: &str) -> Res<()> {
    if ll_index(ns, v).is_none() {
        return Err(invarg("No such interface", v));
    }
    Ok(())
}

/// `hsr_parse_opt` (iplink_hsr.c): its checks of `version` and `proto` compare
/// get_u8's answer, not the number, with 0 and 1, so any byte is taken.
const HSR: &[Opt] = &[
    m("supervision", Val::Num(255, "ADDR-BYTE is invalid")),
    m("version", Val::Num(255, "version is invalid")),
    m("proto", Val::Num(255, "protocol is invalid")),
    m("slave1", Val::NsCheck(hsr_slave)),
    m("slave2", Val::NsCheck(hsr_slave)),
    m("help", Val::Help),
];

/// xfrm's `if_id`: a number other than 0.
fn xfrm_if_id(v: &str) -> Res<()> {
    if get_u32(v, 0).is_some_and(|n| n != 0) {
        return Ok(());
    }
    Err(invarg("if_id value is invalid", v))
}

/// `xfrm_parse_opt` (link_xfrm.c).
const XFRM: &[Opt] = &[
    m("dev", Val::Dev(true)),
    m("if_id", Val::Custom(xfrm_if_id)),
    x("external", Val::Flag),
];

/// xfrm_parse_opt's checks: `external` alone, or else an interface id.
fn xfrm_finish(_kind: &str, seen: &[(&'static str, &str)], _set: bool) -> Res<()> {
    let has = |k: &str| seen.iter().any(|(w, _)| *w == k);
    if has("external") {
        if has("if_id") || has("dev") {
            return Err(Failure::parse(
                "xfrmi: both 'external' and if_id/link cannot be specified\n",
                1,
            ));
        }
        return Ok(());
    }
    if !has("if_id") {
        return Err(missarg("IF_ID"));
    }
    Ok(())
}

/// `missarg`: a required keyword is missing (exit status 255).
fn missarg(k: &str) -> Failure {
    Failure::parse(format!("Error: argument \"{k}\" is required\n"), 255)
}

/// bareudp's `ethertype`: what `ll_proto_a2n` reads.
fn ethertype(v: &str) -> Res<()> {
    if super::ll_proto_id(v).is_none() {
        return Err(invarg("ethertype", v));
    }
    Ok(())
}

/// `bareudp_parse_opt` (iplink_bareudp.c).
const BAREUDP: &[Opt] = &[
    m("dstport", Val::Num(0xffff, "dstport")).once(1, "dstport"),
    m("ethertype", Val::Custom(ethertype)).once(2, "ethertype"),
    m("srcportmin", Val::Num(0xffff, "srcportmin")).once(3, "srcportmin"),
    m("multiproto", Val::Flag).once(4, ""),
    m("nomultiproto", Val::Flag).once(4, ""),
    m("help", Val::Help),
];

/// bareudp_parse_opt's checks: a port and an ethertype are required.
fn bareudp_finish(_kind: &str, seen: &[(&'static str, &str)], _set: bool) -> Res<()> {
    for k in ["dstport", "ethertype"] {
        if !seen.iter().any(|(w, _)| *w == k) {
            return Err(missarg(k));
        }
    }
    Ok(())
}

/// amt's `local` and `discovery`: an address of the discovery address's family, any
/// until one is given.
fn amt_addr(v: &str, seen: &Seen<'_>) -> Res<()> {
    let fam = seen
        .iter()
        .rev()
        .find(|(w, _)| *w == "discovery")
        // (`any`, `all` and `default` leave the family unspecified)
        .filter(|(_, d)| !matches!(*d, "any" | "all" | "default"))
        .map(|(_, d)| {
            if d.contains(':') {
                Family::V6
            } else {
                Family::V4
            }
        });
    let ok = match fam {
        None if v.contains(':') => addr(v, true).is_ok(),
        None => addr(v, false).is_ok(),
        Some(f) => addr(v, f == Family::V6).is_ok(),
    };
    if ok {
        return Ok(());
    }
    Err(bad_addr(v, fam))
}

/// amt's `mode`: a bad one prints only the usage.
fn amt_mode(v: &str) -> Res<()> {
    if v == "gateway" || v == "relay" {
        return Ok(());
    }
    Err(Failure::parse(
        super::linkmore::kind_help("amt").unwrap_or_default(),
        1,
    ))
}

/// `amt_parse_opt` (iplink_amt.c): exact keywords.
const AMT: &[Opt] = &[
    x("mode", Val::Custom(amt_mode)),
    x("relay_port", Val::Num(0xffff, "relay_port")),
    x("gateway_port", Val::Num(0xffff, "gateway_port")),
    x("max_tunnels", Val::Num(u32::MAX, "max_tunnels")),
    x("dev", Val::Dev(true)),
    x("local", Val::After(amt_addr)).once(1, "local"),
    x("discovery", Val::After(amt_addr)).once(2, "discovery"),
    x("help", Val::Help),
];

/// gtp's `hsize`: a number below 2^17.
fn gtp_hsize(v: &str) -> Res<()> {
    let n = get_u32(v, 0).ok_or_else(|| invarg("invalid PDP hash size", v))?;
    if n >= 1 << 17 {
        return Err(invarg("PDP hash size too big", v));
    }
    Ok(())
}

/// gtp's `restart_count`: a decimal byte.
fn gtp_restart_count(v: &str) -> Res<()> {
    if get_u8(v, 10).is_none() {
        return Err(invarg("invalid restart_count", v));
    }
    Ok(())
}

/// `gtp_parse_opt` (iplink_gtp.c): exact keywords, each once; any other word is passed
/// over.
const GTP: &[Opt] = &[
    x(
        "role",
        Val::OneOf(&["sgsn", "ggsn"], "invalid role, use sgsn or ggsn"),
    )
    .once(1, "role"),
    x("hsize", Val::Custom(gtp_hsize)).once(2, "hsize"),
    x("restart_count", Val::Custom(gtp_restart_count)).once(3, "restart_count"),
    x("help", Val::Help),
];

/// gtp_parse_opt's check: a role is required.
fn gtp_finish(_kind: &str, seen: &[(&'static str, &str)], _set: bool) -> Res<()> {
    if !seen.iter().any(|(w, _)| *w == "role") {
        return Err(Failure::parse(
            "gtp: role of the gtp device was not specified\n",
            1,
        ));
    }
    Ok(())
}

/// ipoib's `mode`: `datagram` or `connected` (mode_arg returns, status 1).
fn ipoib_mode(v: &str) -> Res<()> {
    if v == "datagram" || v == "connected" {
        return Ok(());
    }
    Err(Failure::parse(
        "Error: argument of \"mode\" must be \"datagram\"or \"connected\"\n",
        1,
    ))
}

/// `ipoib_parse_opt` (iplink_ipoib.c).
const IPOIB: &[Opt] = &[
    m("pkey", Val::Num(0xffff, "pkey is invalid")),
    m("mode", Val::Custom(ipoib_mode)),
    m("umcast", Val::Num(0xffff, "umcast is invalid")),
    m("help", Val::Help),
];

/// `rmnet_parse_opt` (iplink_rmnet.c).
const RMNET: &[Opt] = &[
    m("mux_id", Val::Num(0xffff, "mux_id is invalid")),
    m("help", Val::Help),
];

/// `wwan_parse_opt` (iplink_wwan.c).
const WWAN: &[Opt] = &[
    m("linkid", Val::Num(u32::MAX, "linkid")),
    m("help", Val::Help),
];

/// dsa's conduit: a device by name, else `invarg`.
fn dsa_conduit(ns: &Netns, v: &str) -> Res<()> {
    if ll_index(ns, v).is_none() {
        return Err(invarg("Device does not exist", v));
    }
    Ok(())
}

/// `dsa_parse_opt` (iplink_dsa.c): exact keywords.
const DSA: &[Opt] = &[
    x("conduit", Val::NsCheck(dsa_conduit)),
    x("master", Val::NsCheck(dsa_conduit)),
    x("help", Val::Help),
];

/// `batadv_parse_opt` (iplink_batadv.c): the routing algorithm is sent as written.
const BATADV: &[Opt] = &[m("ra", Val::Custom(any_value)), m("help", Val::Help)];

/// `parse_one_of`: a prefix of one of the words, in order; else its message and
/// -EINVAL, which iplink_modify turns into -1 (exit status 1).
fn one_of(k: &str, list: &[&str], v: &str) -> Res<()> {
    if list.iter().any(|w| matches(v, w)) {
        return Ok(());
    }
    let names: Vec<String> = list.iter().map(|w| format!("\"{w}\"")).collect();
    Err(Failure::parse(
        format!(
            "Error: argument of \"{k}\" must be one of {}, not \"{v}\"\n",
            names.join(", ")
        ),
        1,
    ))
}

fn macsec_validate(v: &str) -> Res<()> {
    one_of("validate", &["disabled", "check", "strict"], v)
}

fn macsec_offload(v: &str) -> Res<()> {
    one_of("offload", &["off", "phy", "mac"], v)
}

/// macsec's `cipher`.
fn macsec_cipher(v: &str) -> Res<()> {
    const NAMES: [&str; 9] = [
        "default",
        "gcm-aes-128",
        "GCM-AES-128",
        "gcm-aes-256",
        "GCM-AES-256",
        "gcm-aes-xpn-128",
        "GCM-AES-XPN-128",
        "gcm-aes-xpn-256",
        "GCM-AES-XPN-256",
    ];
    if NAMES.contains(&v) {
        return Ok(());
    }
    Err(invarg(
        "expected: default, gcm-aes-128, gcm-aes-256, gcm-aes-xpn-128 or gcm-aes-xpn-256",
        v,
    ))
}

/// macsec's `icvlen` (`get_icvlen`): a byte from 8 to 16.
fn macsec_icvlen(v: &str) -> Res<()> {
    let n = get_u8(v, 0).ok_or_else(|| invarg("expected ICV length", v))?;
    if !(8..=16).contains(&n) {
        return Err(invarg("ICV length must be in the range {8..16}", v));
    }
    Ok(())
}

/// macsec's `encodingsa` (`get_an`): 0 to 3.
fn macsec_an(v: &str) -> Res<()> {
    if get_u8(v, 0).is_some_and(|n| n <= 3) {
        return Ok(());
    }
    Err(invarg("expected an { 0..3 }", v))
}

/// `macsec_parse_opt` (ipmacsec.c) after the SCI: exact keywords.
const MACSEC: &[Opt] = &[
    x("cipher", Val::Custom(macsec_cipher)).once_as(1, Dup::Second),
    x("icvlen", Val::Custom(macsec_icvlen)).once_as(2, Dup::Second),
    x("encrypt", Val::OnOff),
    x("send_sci", Val::OnOff),
    x("end_station", Val::OnOff),
    x("scb", Val::OnOff),
    x("protect", Val::OnOff),
    x("replay", Val::OnOff),
    x("window", Val::Num(u32::MAX, "expected replay window size")),
    x("validate", Val::Custom(macsec_validate)),
    x("encodingsa", Val::Custom(macsec_an)).once_as(3, Dup::GarbageFirst),
    x("offload", Val::Custom(macsec_offload)),
];

/// macsec's SCI first (`get_sci_portaddr`): `sci` and a 64-bit hexadecimal number,
/// or `address` and a link address (then, maybe, a port), or a port (1 to 65535).
fn macsec_sci(it: &mut Args<'_>) -> Res<()> {
    let port = |it: &mut Args<'_>| -> Res<()> {
        if it.peek() == Some("port") {
            it.next();
            let v = it.val()?;
            let n = get_u32(v, 0)
                .filter(|&n| n <= 0xffff)
                .ok_or_else(|| invarg("expected port", v))?;
            if n == 0 {
                return Err(invarg("expected port != 0", v));
            }
        }
        Ok(())
    };
    match it.peek() {
        Some("sci") => {
            it.next();
            let v = it.val()?;
            let (_, used, overflow) = crate::show::strtoul(v, 16);
            if v.is_empty() || used != v.len() || overflow {
                return Err(invarg("expected sci", v));
            }
        }
        Some("address") => {
            it.next();
            let v = it.val()?;
            if let Err(f) = ll_addr_a2n(v, 6) {
                let mut e = invarg("expected lladdr", v);
                e.stderr = format!("{}{}", f.stderr, e.stderr);
                return Err(e);
            }
            port(it)?;
        }
        _ => port(it)?,
    }
    Ok(())
}

/// macsec_parse_opt's checks: send_sci, end_station and scb exclude each other (but
/// end_station and scb both off), and a replay window goes with `replay`.
fn macsec_finish(_kind: &str, seen: &[(&'static str, &str)], _set: bool) -> Res<()> {
    let last = |k: &str| seen.iter().rev().find(|(w, _)| *w == k).map(|(_, v)| *v);
    // (a prefix of both is `off`)
    let on = |k: &str| last(k) == Some("on");
    let (sci, es, scb) = (on("send_sci"), on("end_station"), on("scb"));
    if (sci && (es || scb)) || (es && scb) {
        return Err(Failure::parse(
            "invalid combination of send_sci/end_station/scb\n",
            1,
        ));
    }
    // (a window of 2^32 - 1 is the parser's "none")
    let window = last("window")
        .and_then(|v| get_u32(v, 0))
        .filter(|&n| n != u32::MAX);
    match (window, last("replay")) {
        (Some(w), None) => Err(Failure::parse(
            format!(
                "replay window set, but replay protection not enabled. did you mean 'replay on window {w}'?\n"
            ),
            1,
        )),
        (None, Some("on")) => Err(Failure::parse(
            "replay protection enabled, but no window set. did you mean 'replay on window VALUE'?\n",
            1,
        )),
        _ => Ok(()),
    }
}

/// can's `sample-point` and `dsample-point` (`get_float`: `strtof` of the whole word).
fn can_float(v: &str) -> bool {
    !v.is_empty() && v.trim_start().parse::<f32>().is_ok() && !v.starts_with('+')
        || v.starts_with('+') && v[1..].parse::<f32>().is_ok()
}

fn can_sample_point(v: &str) -> Res<()> {
    if can_float(v) {
        return Ok(());
    }
    Err(invarg("invalid \"sample-point\" value\n", v))
}

fn can_dsample_point(v: &str) -> Res<()> {
    if can_float(v) {
        return Ok(());
    }
    Err(invarg("invalid \"dsample-point\" value\n", v))
}

/// can's on/off words (`set_ctrlmode`: exactly `on` or `off`, else exit(-1)).
fn can_ctrlmode(k: &str, v: &str) -> Res<()> {
    if v == "on" || v == "off" {
        return Ok(());
    }
    Err(Failure::parse(
        format!("Error: argument of \"{k}\" must be \"on\" or \"off\", not \"{v}\"\n"),
        255,
    ))
}

/// can's `tdc-mode`.
fn can_tdc_mode(v: &str) -> Res<()> {
    if matches!(v, "auto" | "manual" | "off") {
        return Ok(());
    }
    Err(Failure::parse(
        format!(
            "Error: argument of \"tdc-mode\" must be \"auto\", \"manual\" or \"off\", not \"{v}\"\n"
        ),
        255,
    ))
}

/// `can_parse_opt` (iplink_can.c).
const CAN: &[Opt] = &[
    m("bitrate", Val::Num(u32::MAX, "invalid \"bitrate\" value\n")),
    m("sample-point", Val::Custom(can_sample_point)),
    m("tq", Val::Num(u32::MAX, "invalid \"tq\" value\n")),
    m(
        "prop-seg",
        Val::Num(u32::MAX, "invalid \"prop-seg\" value\n"),
    ),
    m(
        "phase-seg1",
        Val::Num(u32::MAX, "invalid \"phase-seg1\" value\n"),
    ),
    m(
        "phase-seg2",
        Val::Num(u32::MAX, "invalid \"phase-seg2\" value\n"),
    ),
    m("sjw", Val::Num(u32::MAX, "invalid \"sjw\" value\n")),
    m(
        "dbitrate",
        Val::Num(u32::MAX, "invalid \"dbitrate\" value\n"),
    ),
    m("dsample-point", Val::Custom(can_dsample_point)),
    m("dtq", Val::Num(u32::MAX, "invalid \"dtq\" value\n")),
    m(
        "dprop-seg",
        Val::Num(u32::MAX, "invalid \"dprop-seg\" value\n"),
    ),
    m(
        "dphase-seg1",
        Val::Num(u32::MAX, "invalid \"dphase-seg1\" value\n"),
    ),
    m(
        "dphase-seg2",
        Val::Num(u32::MAX, "invalid \"dphase-seg2\" value\n"),
    ),
    m("dsjw", Val::Num(u32::MAX, "invalid \"dsjw\" value\n")),
    m("tdcv", Val::Num(u32::MAX, "invalid \"tdcv\" value\n")),
    m("tdco", Val::Num(u32::MAX, "invalid \"tdco\" value\n")),
    m("tdcf", Val::Num(u32::MAX, "invalid \"tdcf\" value\n")),
    m("loopback", Val::CtrlMode),
    m("listen-only", Val::CtrlMode),
    m("triple-sampling", Val::CtrlMode),
    m("one-shot", Val::CtrlMode),
    m("berr-reporting", Val::CtrlMode),
    m("fd", Val::CtrlMode),
    m("fd-non-iso", Val::CtrlMode),
    m("presume-ack", Val::CtrlMode),
    m("cc-len8-dlc", Val::CtrlMode),
    m("tdc-mode", Val::Custom(can_tdc_mode)),
    m("restart", Val::Flag),
    m(
        "restart-ms",
        Val::Num(u32::MAX, "invalid \"restart-ms\" value\n"),
    ),
    m(
        "termination",
        Val::Num(0xffff, "invalid \"termination\" value\n"),
    ),
    m("help", Val::Help),
];

/// gre_parse_opt's check of a multicast remote: it needs a local address.
fn gre_finish(_kind: &str, seen: &[(&'static str, &str)], _set: bool) -> Res<()> {
    let last = |k: &str| seen.iter().rev().find(|(w, _)| *w == k).map(|(_, v)| *v);
    let specific = |v: Option<&str>| {
        v.filter(|v| !matches!(*v, "any" | "all" | "default"))
            .and_then(get_addr_ipv4)
            // (0.0.0.0 is an unspecified address: is_addrtype_inet_not_unspec)
            .filter(|&a| a != 0)
    };
    if let Some(r) = specific(last("remote")) {
        if (r >> 28) == 0xe && specific(last("local")).is_none() {
            return Err(Failure::parse(
                "A broadcast tunnel requires a source address.\n",
                1,
            ));
        }
    }
    Ok(())
}

const PARSERS: &[Parser] = &[
    Parser {
        kinds: &["bond"],
        tunnel: false,
        opts: &[BOND],
        unknown: Unknown::Command,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["bond_slave"],
        tunnel: false,
        opts: &[BOND_SLAVE],
        unknown: Unknown::Option,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["vrf"],
        tunnel: false,
        opts: &[VRF],
        unknown: Unknown::Option,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["gre", "gretap"],
        tunnel: true,
        opts: &[GRE_KEYS, GRE, ENCAP, GRE_TAIL],
        unknown: Unknown::Usage,
        finish: Some(gre_finish),
        pre: None,
    },
    Parser {
        kinds: &["erspan"],
        tunnel: true,
        opts: &[GRE_KEYS, GRE, ENCAP, GRE_TAIL, ERSPAN],
        unknown: Unknown::Usage,
        finish: Some(gre_finish),
        pre: None,
    },
    // (link_gre6.c takes the ERSPAN words whatever the kind)
    Parser {
        kinds: &["ip6gre", "ip6gretap", "ip6erspan"],
        tunnel: true,
        opts: &[GRE_KEYS, GRE6, ENCAP, GRE6_TAIL, ERSPAN],
        unknown: Unknown::Usage,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["ip6tnl"],
        tunnel: true,
        opts: &[IP6TNL, ENCAP, &[x("external", Val::Flag)]],
        unknown: Unknown::Usage,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["ipip"],
        tunnel: true,
        opts: &[IPTNL, IPIP_MODE, ENCAP, IPTNL_TAIL],
        unknown: Unknown::Usage,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["sit"],
        tunnel: true,
        opts: &[IPTNL, SIT_MODE, ENCAP, IPTNL_TAIL],
        unknown: Unknown::Usage,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["vti"],
        tunnel: true,
        opts: &[VTI],
        unknown: Unknown::Usage,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["vti6"],
        tunnel: true,
        opts: &[VTI6],
        unknown: Unknown::Usage,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["geneve"],
        tunnel: false,
        opts: &[GENEVE],
        unknown: Unknown::Command,
        finish: Some(geneve_finish),
        pre: None,
    },
    Parser {
        kinds: &["hsr"],
        tunnel: false,
        opts: &[HSR],
        unknown: Unknown::WhatIs,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["xfrm"],
        tunnel: false,
        opts: &[XFRM],
        unknown: Unknown::Usage,
        finish: Some(xfrm_finish),
        pre: None,
    },
    Parser {
        kinds: &["bareudp"],
        tunnel: false,
        opts: &[BAREUDP],
        unknown: Unknown::Command,
        finish: Some(bareudp_finish),
        pre: None,
    },
    Parser {
        kinds: &["amt"],
        tunnel: false,
        opts: &[AMT],
        unknown: Unknown::Command,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["gtp"],
        tunnel: false,
        opts: &[GTP],
        unknown: Unknown::Skip,
        finish: Some(gtp_finish),
        pre: None,
    },
    Parser {
        kinds: &["ipoib"],
        tunnel: false,
        opts: &[IPOIB],
        unknown: Unknown::Option,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["rmnet"],
        tunnel: false,
        opts: &[RMNET],
        unknown: Unknown::Command,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["wwan"],
        tunnel: false,
        opts: &[WWAN],
        unknown: Unknown::Command,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["dsa"],
        tunnel: false,
        opts: &[DSA],
        unknown: Unknown::Command,
        finish: None,
        pre: None,
    },
    Parser {
        kinds: &["batadv"],
        tunnel: false,
        opts: &[BATADV],
        unknown: Unknown::Command,
        finish: None,
        pre: None,
    },
    // (`help` is an unknown word: macsec has no such keyword)
    Parser {
        kinds: &["macsec"],
        tunnel: false,
        opts: &[MACSEC],
        unknown: Unknown::Command,
        finish: Some(macsec_finish),
        pre: Some(macsec_sci),
    },
    Parser {
        kinds: &["can"],
        tunnel: false,
        opts: &[CAN],
        unknown: Unknown::OptionPlain,
        finish: None,
        pre: None,
    },
];

fn parser(kind: &str) -> Option<&'static Parser> {
    PARSERS.iter().find(|p| p.kinds.contains(&kind))
}

/// Whether iproute2's parser of `kind` is modelled here.
pub(super) fn has_parser(kind: &str) -> bool {
    parser(kind).is_some()
}

/// Whether `kind` is a tunnel whose parser is modelled here.
pub(super) fn is_tunnel(kind: &str) -> bool {
    parser(kind).is_some_and(|p| p.tunnel)
}

/// `get_addr(.., AF_INET|AF_INET6)`, as `get_addr_1` reads it.
fn addr(v: &str, v6: bool) -> Res<()> {
    let ok = matches!(v, "default" | "all" | "any")
        || if v6 {
            v.contains(':') && v.parse::<std::net::Ipv6Addr>().is_ok()
        } else {
            !v.contains(':') && get_addr_ipv4(v).is_some()
        };
    if ok {
        return Ok(());
    }
    Err(bad_addr(v, Some(if v6 { Family::V6 } else { Family::V4 })))
}

/// A number of base 0 up to `max` (`get_u8`, `get_u16`, `get_u32`).
fn num(v: &str, max: u32) -> bool {
    get_u32(v, 0).is_some_and(|n| n <= max)
}

/// `get_s32`: `strtol` in base 0 of the whole word, within an int.
fn s32(v: &str) -> bool {
    let (n, used) = crate::show::strtol(v, 0);
    !v.is_empty() && used == v.len() && i32::try_from(n).is_ok()
}

/// The keywords a parser read (their full names) and their values, in order.
pub(super) type Words<'a> = Vec<(&'static str, &'a str)>;

/// [`Words`] as the checks see them.
type Seen<'a> = [(&'static str, &'a str)];

/// Reads the options of `type KIND` (`it` after the kind) as iproute2's parser of the
/// kind does, if it is one modelled here: `None` when it is not. The words, all read,
/// leave `Ok` with the keywords met; a refusal is iproute2's.
pub(super) fn parse_opt<'a>(
    ns: &Netns,
    kind: &str,
    it: &mut Args<'a>,
    set: bool,
) -> Option<Res<Words<'a>>> {
    let p = parser(kind)?;
    // iplink_modify calls the parser only when words follow the kind
    if it.peek().is_none() {
        return Some(Ok(Vec::new()));
    }
    Some(run(ns, p, kind, it, set))
}

fn run<'a>(ns: &Netns, p: &Parser, kind: &str, it: &mut Args<'a>, set: bool) -> Res<Words<'a>> {
    let usage = super::linkmore::kind_help(kind).unwrap_or_default();
    let mut seen: Words<'a> = Vec::new();
    let mut given = 0u64;
    if let Some(f) = p.pre {
        f(it)?;
    }
    while let Some(w) = it.next() {
        let opt = p.opts.iter().flat_map(|o| o.iter()).find(|o| {
            if o.exact {
                w == o.w
            } else {
                matches(w, o.w)
            }
        });
        let Some(o) = opt else {
            if let Unknown::Skip = p.unknown {
                continue;
            }
            let head = match p.unknown {
                Unknown::Skip => String::new(),
                Unknown::OptionPlain => format!("{kind}: unknown option \"{w}\"\n"),
                Unknown::Command => format!("{kind}: unknown command \"{w}\"?\n"),
                Unknown::Option => format!("{kind}: unknown option \"{w}\"?\n"),
                Unknown::Usage => String::new(),
                Unknown::WhatIs => format!("{kind}: what is \"{w}\"?\n"),
            };
            return Err(Failure::parse(format!("{head}{usage}"), 1));
        };
        let dup = |key: &str, v: &str, how: Dup| {
            let msg = match how {
                Dup::Second => {
                    format!("Error: duplicate \"{key}\": \"{v}\" is the second value.\n")
                }
                _ => format!("Error: either \"{key}\" is duplicate, or \"{v}\" is a garbage.\n"),
            };
            Failure::parse(msg, 255)
        };
        if let Some((attr, key, Dup::GarbageFirst)) = o.once {
            if given & (1 << attr) != 0 {
                return Err(dup(key, key, Dup::GarbageFirst));
            }
        }
        let v = match o.val {
            Val::Flag => "",
            Val::Help => return Err(Failure::parse(usage, 1)),
            Val::Unmodelled => return Err(super::unmodelled_link_setting(w, kind)),
            // NEXT_ARG_OK: the list is optional (an empty one is sent)
            Val::AddrList(_) => it.next().unwrap_or(""),
            _ => it.val()?,
        };
        // check_duparg (duparg2): after the value is read, before it is checked
        if let Some((attr, key, how)) = o.once {
            if given & (1 << attr) != 0 {
                let (key, v) = if key.is_empty() { (w, w) } else { (key, v) };
                return Err(dup(key, v, how));
            }
            given |= 1 << attr;
        }
        match o.val {
            Val::Flag | Val::Help | Val::Unmodelled => {}
            Val::Num(max, msg) => {
                if !num(v, max) {
                    return Err(invarg(msg, v));
                }
            }
            Val::S32(msg) => {
                if !s32(v) {
                    return Err(invarg(msg, v));
                }
            }
            Val::WordOrNum(word, max, msg) => {
                if v != word && !num(v, max) {
                    return Err(invarg(msg, v));
                }
            }
            Val::Index(names, msg) => {
                // get_integer in base 10, an index into the list, or a name
                let (n, used) = crate::show::strtol(v, 10);
                let by_index = !v.is_empty()
                    && used == v.len()
                    && usize::try_from(n).is_ok_and(|i| i < names.len());
                if !by_index && !names.contains(&v) {
                    return Err(invarg(msg, v));
                }
            }
            Val::OneOf(words, msg) => {
                if !words.contains(&v) {
                    return Err(invarg(msg, v));
                }
            }
            Val::Dev(exits) => {
                if ll_index(ns, v).is_none() {
                    return Err(if exits { nodev_exit(v) } else { nodev(v) });
                }
            }
            Val::Addr(v6) => addr(v, v6)?,
            Val::AddrList(v6) => {
                for t in v.split(',').filter(|t| !t.is_empty()).take(16) {
                    if v6 {
                        addr(t, true)?;
                    } else if !matches!(t, "default" | "all" | "any")
                        && (t.contains(':') || get_addr_ipv4(t).is_none())
                    {
                        // get_addr32
                        return Err(Failure::parse(
                            format!("Error: an IP address is expected rather than \"{t}\"\n"),
                            1,
                        )
                        .exiting(true));
                    }
                }
            }
            Val::LlAddr => {
                ll_addr_a2n(v, 32)?;
            }
            Val::Table(msg) => {
                if table_a2n(v).is_none() {
                    return Err(invarg(msg, v));
                }
            }
            Val::Key(what) => {
                super::tunnel::parse_key(what, v)?;
            }
            Val::Tos => {
                if v != "inherit" && crate::show::dsfield_a2n(v).is_none() {
                    return Err(invarg("bad TOS value", v));
                }
            }
            Val::Custom(f) => f(v)?,
            Val::After(f) => f(v, &seen)?,
            Val::NsCheck(f) => f(ns, v)?,
            Val::CtrlMode => can_ctrlmode(o.w, v)?,
            // (iplink_modify turns the parser's -EINVAL into its own -1: status 1)
            Val::OnOff => {
                super::parse_on_off(o.w, v).map_err(|f| Failure { status: 1, ..f })?;
            }
        }
        seen.push((o.w, v));
    }
    if let Some(f) = p.finish {
        f(kind, &seen, set)?;
    }
    Ok(seen)
}
