//! The settings of `iplink_parse` (iproute2 6.1) beyond names, addresses, flags and
//! kinds: the operational state and link mode, queue counts, GSO/GRO limits,
//! protodown, `index`, a virtual function's settings (`vf N ...`) and `xdp off`.
//! Each is read with iproute2's checks and messages; [`LinkMore`] carries what the
//! kernel is sent.

use fibkit::{Errno, Netns};

use super::{duparg, incomplete, invarg, parse_lladdr, parse_on_off, Args, Failure, Res};
use crate::names::{matches, parse_int, parse_u32};

/// What the words of [`word`] asked for.
#[derive(Default)]
pub(super) struct LinkMore {
    /// `state STATE` (`IF_OPER_*`; the last one given).
    pub(super) operstate: Option<u8>,
    /// `mode default|dormant`.
    pub(super) linkmode: Option<u8>,
    /// `numtxqueues N` (an `int`; the kernel reads it at creation only).
    pub(super) numtx: Option<i32>,
    /// `numrxqueues N`.
    pub(super) numrx: Option<i32>,
    /// `index N` (positive).
    pub(super) index: Option<u32>,
    /// `protodown on|off`.
    pub(super) protodown: Option<bool>,
    /// The last `protodown_reason N on|off`, as a mask and a value.
    pub(super) pd_reason: Option<(u32, u32)>,
    /// `gso_max_size N`.
    pub(super) gso_max_size: Option<u32>,
    /// `gso_max_segs N`.
    pub(super) gso_max_segs: Option<u32>,
    /// `gro_max_size N`.
    pub(super) gro_max_size: Option<u32>,
    /// The kernel's answer to the last `vf N ...` (`do_setvfinfo`): no device fibkit
    /// models has virtual functions, so EOPNOTSUPP, or EINVAL for a VF number the
    /// kernel refuses first.
    pub(super) vf: Option<Errno>,
    /// `xdp|xdpgeneric|xdpdrv|xdpoffload off|none` (a detach: nothing is attached).
    pub(super) xdp: bool,
}

/// `get_operstate`: iproute2's names of the states, any case.
fn get_operstate(v: &str) -> Option<u8> {
    fibkit::link::oper::NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(v))
        .map(|i| i as u8)
}

/// `get_integer(..., 0)`: an `int` in any base strtol reads, the whole word.
fn get_integer(v: &str) -> Option<i32> {
    let (n, used) = crate::show::strtol(v, 0);
    if used != v.len() || v.is_empty() {
        return None;
    }
    i32::try_from(n).ok()
}

/// The word `k` (a keyword of `iplink_parse`, see `link_keyword`) and its values, if
/// it is one of these settings: `Ok(false)` leaves it to the caller. `dev` is the
/// device named so far (a VF's address length is its own).
pub(super) fn word(
    ns: &Netns,
    k: &str,
    it: &mut Args<'_>,
    m: &mut LinkMore,
    dev: Option<&str>,
) -> Res<bool> {
    match k {
        "state" => {
            let v = it.val()?;
            m.operstate = Some(get_operstate(v).ok_or_else(|| invarg("Invalid operstate\n", v))?);
        }
        "mode" => {
            let v = it.val()?;
            m.linkmode = Some(if v.eq_ignore_ascii_case("default") {
                0
            } else if v.eq_ignore_ascii_case("dormant") {
                1
            } else {
                return Err(invarg("Invalid link mode\n", v));
            });
        }
        "index" => {
            let v = it.val()?;
            if m.index.is_some() {
                return Err(duparg("index", v));
            }
            // atoi: (int)strtol, base 10
            let i = crate::show::strtol(v, 10).0 as i32;
            if i <= 0 {
                return Err(invarg("Invalid \"index\" value", v));
            }
            m.index = Some(i as u32);
        }
        "numtxqueues" | "numrxqueues" => {
            let v = it.val()?;
            let slot = if k == "numtxqueues" {
                &mut m.numtx
            } else {
                &mut m.numrx
            };
            // (a first value of -1 reads as none given)
            if slot.is_some_and(|n| n != -1) {
                return Err(duparg(k, v));
            }
            let n = parse_int(v).ok_or_else(|| invarg(&format!("Invalid \"{k}\" value\n"), v))?;
            *slot = Some(n as i32);
        }
        // IFLA_PARENT_DEV_NAME: the kernel reports a device's parent in dumps and
        // reads none from a request (rtnl_newlink and do_setlink pass it over)
        "parentdev" => {
            it.val()?;
        }
        "protodown" => m.protodown = Some(parse_on_off(k, it.val()?)?),
        "protodown_reason" => {
            let v = it.val()?;
            // protodown_reason_a2n: a number below 32 (no names are configured)
            let r = parse_u32(v)
                .filter(|n| *n < 32)
                .ok_or_else(|| invarg("invalid protodown reason\n", v))?;
            let w = it.val()?;
            let mask = 1u32 << r;
            let value = if matches(w, "on") {
                mask
            } else if matches(w, "off") {
                0
            } else {
                return Err(Failure::parse(
                    format!(
                        "Error: argument of \"protodown_reason\" must be \"on\" or \"off\", not \"{w}\"\n"
                    ),
                    1,
                ));
            };
            m.pd_reason = Some((mask, value));
        }
        "gso_max_size" | "gro_max_size" => {
            let v = it.val()?;
            let n = parse_u32(v).ok_or_else(|| invarg(&format!("Invalid \"{k}\" value\n"), v))?;
            if k == "gso_max_size" {
                m.gso_max_size = Some(n);
            } else {
                m.gro_max_size = Some(n);
            }
        }
        "gso_max_segs" => {
            let v = it.val()?;
            // at most GSO_MAX_SEGS
            let n = parse_u32(v)
                .filter(|n| *n <= 65535)
                .ok_or_else(|| invarg("Invalid \"gso_max_segs\" value\n", v))?;
            m.gso_max_segs = Some(n);
        }
        "vf" => {
            let v = it.val()?;
            let vf = get_integer(v).ok_or_else(|| invarg("Invalid \"vf\" value\n", v))?;
            let Some(d) = dev else {
                return Err(Failure::parse(
                    "Error: argument \"dev\" is required\n".to_string(),
                    255,
                ));
            };
            m.vf = Some(parse_vf(ns, vf, it, d)?);
        }
        "xdp" | "xdpgeneric" | "xdpdrv" | "xdpoffload" => {
            let v = it.val()?;
            // xdp_parse: an offload needs the device's index
            if k == "xdpoffload" && dev.and_then(|d| ns.link_index(d)).is_none() {
                return Err(incomplete());
            }
            if it.peek().is_none() && (v == "off" || v == "none") {
                m.xdp = true;
                return Ok(true);
            }
            // bpf_parse_and_load_common: an object file or a pinned program, which
            // fibkit cannot load (the loader's message alone)
            return Err(match super::encap::bpf_program_failure(it, v) {
                Ok(msg) => Failure::parse(msg, 255),
                Err(f) => f,
            });
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The attributes of a VF request in the order `do_setvfinfo` looks at them.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum VfAttr {
    Mac,
    Vlan,
    VlanList,
    TxRate,
    Rate,
    Spoofchk,
    LinkState,
    RssQueryEn,
    Trust,
    NodeGuid,
    PortGuid,
}

/// `get_guid`: exactly `xx:xx:xx:xx:xx:xx:xx:xx` in hex.
fn guid_ok(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 23
        && (0..8).all(|i| {
            let p = &b[i * 3..i * 3 + 2];
            p.iter().all(u8::is_ascii_hexdigit) && (i == 7 || b[i * 3 + 2] == b':')
        })
}

/// `ll_proto_a2n` for a VF's VLAN protocol: 802.1Q (true) or 802.1ad (false), or
/// iproute2's refusals.
fn vf_vlan_proto(v: &str) -> Res<bool> {
    let id = super::ll_proto_id(v).ok_or_else(|| invarg("protocol is invalid\n", v))?;
    match id {
        0x8100 => Ok(true),
        0x88a8 => Ok(false),
        _ => Err(invarg(
            "Invalid \"vlan protocol\" value - supported 802.1Q, 802.1ad\n",
            v,
        )),
    }
}

/// `iplink_parse_vf_vlan_info`: `vlan VID [qos Q] [proto P]`; whether the protocol is
/// 802.1Q.
fn vf_vlan_info(it: &mut Args<'_>) -> Res<bool> {
    let v = it.val()?;
    if parse_u32(v).is_none_or(|n| n > 4095) {
        return Err(invarg("Invalid \"vlan\" value\n", v));
    }
    if it.peek().is_some_and(|w| matches(w, "qos")) {
        it.next();
        let q = it.val()?;
        parse_u32(q).ok_or_else(|| invarg("Invalid \"qos\" value\n", q))?;
    }
    if it.peek().is_some_and(|w| matches(w, "proto")) {
        it.next();
        return vf_vlan_proto(it.val()?);
    }
    Ok(true)
}

/// `iplink_parse_vf` for VF `vf` of `dev`, then the kernel's answer to it.
fn parse_vf(ns: &Netns, vf: i32, it: &mut Args<'_>, dev: &str) -> Res<Errno> {
    // the rate API in use is decided by a look at every word left on the line
    let rest: Vec<&str> = {
        let mut a = Args { v: it.v, i: it.i };
        std::iter::from_fn(|| a.next()).collect()
    };
    let new_rate_api = rest
        .iter()
        .any(|w| matches(w, "max_tx_rate") || matches(w, "min_tx_rate"));
    let override_legacy = rest.iter().any(|w| matches(w, "max_tx_rate"));
    let start = it.i;
    let mut attrs: Vec<VfAttr> = Vec::new();
    let (mut tmin, mut tmax): (Option<u32>, Option<u32>) = (None, None);
    let on_off = |k: &str, it: &mut Args<'_>| -> Res<()> { parse_on_off(k, it.val()?).map(|_| ()) };
    while let Some(w) = it.peek() {
        it.next();
        if matches(w, "mac") {
            let v = it.val()?;
            let b = parse_lladdr(v)?;
            // the device's own address length (unknown for a tun, which sends none)
            let halen = match super::ll_index(ns, dev).and_then(|i| ns.link(i)) {
                Some(l) if !l.is_tun() => 6,
                _ => -1,
            };
            if halen > 0 && b.len() as i32 != halen {
                return Err(Failure::parse(
                    format!(
                        "Invalid address length {} - must be {halen} bytes\n",
                        b.len()
                    ),
                    1,
                ));
            }
            attrs.push(VfAttr::Mac);
        } else if matches(w, "vlan") {
            if vf_vlan_info(it)? {
                attrs.push(VfAttr::Vlan);
            } else {
                // a list, which takes the `vlan` words that follow
                while it.peek().is_some_and(|x| matches(x, "vlan")) {
                    it.next();
                    vf_vlan_info(it)?;
                }
                attrs.push(VfAttr::VlanList);
            }
        } else if matches(w, "rate") {
            let v = it.val()?;
            let r = parse_u32(v).ok_or_else(|| invarg("Invalid \"rate\" value\n", v))?;
            if !new_rate_api {
                attrs.push(VfAttr::TxRate);
            } else if !override_legacy {
                tmax = Some(r);
            }
        } else if matches(w, "max_tx_rate") {
            let v = it.val()?;
            tmax = Some(parse_u32(v).ok_or_else(|| invarg("Invalid \"max tx rate\" value\n", v))?);
        } else if matches(w, "min_tx_rate") {
            let v = it.val()?;
            tmin = Some(parse_u32(v).ok_or_else(|| invarg("Invalid \"min tx rate\" value\n", v))?);
        } else if matches(w, "spoofchk") {
            on_off("spoofchk", it)?;
            attrs.push(VfAttr::Spoofchk);
        } else if matches(w, "query_rss") {
            on_off("query_rss", it)?;
            attrs.push(VfAttr::RssQueryEn);
        } else if matches(w, "trust") {
            on_off("trust", it)?;
            attrs.push(VfAttr::Trust);
        } else if matches(w, "state") {
            let v = it.val()?;
            if !["auto", "enable", "disable"].iter().any(|s| matches(v, s)) {
                return Err(invarg("Invalid \"state\" value\n", v));
            }
            attrs.push(VfAttr::LinkState);
        } else if matches(w, "node_guid") || matches(w, "port_guid") {
            let v = it.val()?;
            if !guid_ok(v) {
                return Err(invarg("Invalid GUID format\n", v));
            }
            attrs.push(if matches(w, "node_guid") {
                VfAttr::NodeGuid
            } else {
                VfAttr::PortGuid
            });
        } else {
            it.i -= 1;
            break;
        }
    }
    if new_rate_api {
        let (Some(lo), Some(hi)) = (tmin, tmax) else {
            // the missing one is read from the device's VF list first
            // (ipaddr_get_vf_rate), which starts by looking the device up: one that
            // does not exist (as yet: a device or veth peer being made) ends ip there
            // (exit 1). A device without VFs (any here: virtual devices have no
            // parent, so no IFLA_VFINFO_LIST) leaves 6.1's rates uninitialised.
            if super::ll_index(ns, dev).is_none() {
                return Err(Failure {
                    stdout: String::new(),
                    errno: Some(crate::show::lookup_errno(dev)),
                    stderr: format!("Device {dev} does not exist\n"),
                    status: 1,
                    exits: true,
                });
            }
            return Err(super::unmodelled_link_setting(
                "vf",
                "min_tx_rate|max_tx_rate",
            ));
        };
        if hi != 0 && lo > hi {
            return Err(Failure::parse(
                format!(
                    "Invalid min_tx_rate {} - must be <= max_tx_rate {}\n",
                    lo as i32, hi as i32
                ),
                1,
            ));
        }
        attrs.push(VfAttr::Rate);
    }
    if it.i == start {
        return Err(incomplete());
    }
    attrs.sort_unstable();
    // do_setvfinfo: the first attribute present decides; each refuses a VF number of
    // INT_MAX or more before it finds no VF operation (a VLAN list only the latter)
    Ok(match attrs.first() {
        Some(VfAttr::VlanList) | None => Errno::EOPNOTSUPP,
        Some(_) if vf as u32 >= i32::MAX as u32 => Errno::EINVAL,
        Some(_) => Errno::EOPNOTSUPP,
    })
}

/// iproute2 6.1's kinds (the `link_util`s `get_link_kind` finds) other than the
/// tunnels ([`TUNNEL_KINDS`]): a `type KIND` hands its options to the kind's parser
/// (after a kind of neither list a word is garbage), and `ip link xstats type KIND`
/// takes it; [`iproute2_kind`] asks for either list.
const OTHER_KINDS: [&str; 36] = [
    "amt",
    "bareudp",
    "batadv",
    "bond",
    "bond_slave",
    "bridge",
    "bridge_slave",
    "can",
    "dsa",
    "dummy",
    "geneve",
    "gtp",
    "hsr",
    "ifb",
    "ipoib",
    "ipvlan",
    "ipvtap",
    "macvlan",
    "macvtap",
    "netdevsim",
    "nlmon",
    "rmnet",
    "team",
    "team_slave",
    "vcan",
    "virt_wifi",
    "vlan",
    "vrf",
    "vrf_slave",
    "vxcan",
    "vxlan",
    "wwan",
    "macsec",
    "tun",
    "veth",
    "xfrm",
];

/// Whether iproute2 6.1 has a `link_util` for `kind` (see [`OTHER_KINDS`]).
pub(super) fn iproute2_kind(kind: &str) -> bool {
    OTHER_KINDS.contains(&kind) || TUNNEL_KINDS.contains(&kind)
}

/// The kinds iproute2 knows without a parser of options: words after one make an
/// empty `IFLA_INFO_DATA`, which no device here can take.
pub(super) const KINDS_WITHOUT_OPTIONS: [&str; 10] = [
    "dummy",
    "ifb",
    "netdevsim",
    "nlmon",
    "team",
    "team_slave",
    "vcan",
    "virt_wifi",
    "vrf_slave",
    "tun",
];

/// iplink_modify's refusal of words after a kind iproute2 has no parser for (a
/// first word that is any prefix of `help` asks for the usage).
pub(super) fn garbage(w: &str) -> Failure {
    if matches(w, "help") {
        return Failure::parse(crate::show::USAGE_LINK, 255);
    }
    Failure::parse(
        format!("Garbage instead of arguments \"{w} ...\". Try \"ip link help\".\n"),
        1,
    )
}

/// The tunnel kinds, whose option parsers first ask the kernel for the device's
/// tunnel settings when changing a device.
pub(super) const TUNNEL_KINDS: [&str; 11] = [
    "gre",
    "gretap",
    "erspan",
    "ip6gre",
    "ip6gretap",
    "ip6erspan",
    "ip6tnl",
    "ipip",
    "sit",
    "vti",
    "vti6",
];

/// The link kinds' own usage texts (see the file's header).
const KIND_HELP: &str = include_str!("../link-help.txt");

/// What `ip link help KIND` prints for `kind`, if iproute2 has a text for it.
pub(super) fn kind_help(kind: &str) -> Option<&'static str> {
    let at = KIND_HELP.find(&format!("\n@@ {kind}\n"))? + kind.len() + 5;
    let len = KIND_HELP[at..]
        .find("\n@@ ")
        .map_or(KIND_HELP.len() - at, |n| n + 1);
    Some(&KIND_HELP[at..at + len])
}

/// A kind's option parser (`parse_opt`) reading `help` among the words after `type
/// KIND`: its usage, on stderr with exit status 1 (`veth` and `vxcan` print theirs on
/// stdout; `macsec` first calls the word unknown).
pub(super) fn kind_help_asked(kind: &str, words: &[String]) -> Option<Failure> {
    let asked = words
        .iter()
        .enumerate()
        .any(|(i, w)| w == "help" || (i == 0 && matches(w, "help")));
    let text = kind_help(kind).filter(|_| asked)?;
    let mut f = Failure::parse(text, 1);
    match kind {
        "veth" | "vxcan" => {
            f = Failure {
                stdout: text.to_string(),
                stderr: String::new(),
                ..f
            }
        }
        "macsec" => f.stderr = format!("macsec: unknown command \"help\"?\n{text}"),
        _ => {}
    }
    Some(f)
}

/// The usage `iplink_vlan.c` prints (`print_explain`, iproute2 6.1).
const VLAN_USAGE: &str = "Usage: ... vlan id VLANID\n\
\t\t[ protocol VLANPROTO ]\n\
\t\t[ reorder_hdr { on | off } ]\n\
\t\t[ gvrp { on | off } ]\n\
\t\t[ mvrp { on | off } ]\n\
\t\t[ loose_binding { on | off } ]\n\
\t\t[ bridge_binding { on | off } ]\n\
\t\t[ ingress-qos-map QOS-MAP ]\n\
\t\t[ egress-qos-map QOS-MAP ]\n\
\n\
VLANID := 0-4095\n\
VLANPROTO: [ 802.1Q | 802.1ad ]\n\
QOS-MAP := [ QOS-MAP ] QOS-MAPPING\n\
QOS-MAPPING := FROM:TO\n";

/// `ipvlan_parse_opt` (`type ipvlan` and `type ipvtap`): a mode of `l2`, `l3` or
/// `l3s`, one of the flags `bridge`, `private`, `vepa`, or `help`; anything else is
/// an unknown option, followed by the kind's usage (exit status 1). This kernel has no
/// ipvlan driver: a line that parses is refused once sent.
pub(super) fn ipvlan_parse_opt(it: &mut Args<'_>, kind: &str) -> Res<()> {
    let usage = kind_help(kind).unwrap_or_default();
    let mut flag_given = false;
    while let Some(w) = it.next() {
        if matches(w, "mode") {
            let v = it.val()?;
            if !matches!(v, "l2" | "l3" | "l3s") {
                return Err(Failure::parse(
                    "Error: argument of \"mode\" must be either \"l2\", \"l3\" or \"l3s\"\n",
                    1,
                ));
            }
        } else if !flag_given
            && (matches(w, "private") || matches(w, "vepa") || matches(w, "bridge"))
        {
            flag_given = true;
        } else if matches(w, "help") {
            return Err(Failure::parse(usage, 1));
        } else {
            return Err(Failure::parse(
                format!("{kind}: unknown option \"{w}\"?\n{usage}"),
                1,
            ));
        }
    }
    Ok(())
}

/// `vlan_parse_opt`: the options of `type vlan`, read and checked (this kernel has
/// no VLAN driver: the request is refused once sent). Whether any word followed.
pub(super) fn vlan_parse_opt(it: &mut Args<'_>) -> Res<bool> {
    // vlan_parse returns -1 (exit status 1) after its messages
    let fail = |msg: String| Failure::parse(msg, 1);
    let mut any = false;
    while let Some(w) = it.next() {
        any = true;
        let flag = [
            "reorder_hdr",
            "gvrp",
            "mvrp",
            "loose_binding",
            "bridge_binding",
        ]
        .into_iter()
        .find(|f| matches(w, f));
        if matches(w, "protocol") {
            let v = it.val()?;
            if super::ll_proto_id(v).is_none() {
                return Err(invarg("protocol is invalid", v));
            }
        } else if matches(w, "id") {
            let v = it.val()?;
            if crate::show::get_u32(v, 0).is_none_or(|n| n > 0xffff) {
                return Err(invarg("id is invalid", v));
            }
        } else if let Some(f) = flag {
            let v = it.val()?;
            if v != "on" && v != "off" {
                return Err(fail(format!(
                    "Error: argument of \"{f}\" must be \"on\" or \"off\", not \"{v}\"\n"
                )));
            }
        } else if matches(w, "ingress-qos-map") || matches(w, "egress-qos-map") {
            let which = if matches(w, "ingress-qos-map") {
                "ingress"
            } else {
                "egress"
            };
            it.val()?;
            it.i -= 1;
            // parse_mapping: FROM:TO words while they have a colon; a bad one is
            // named by its part before the colon
            while let Some(m) = it.peek() {
                let Some((from, to)) = m.split_once(':') else {
                    break;
                };
                if crate::show::get_u32(from, 0).is_none() || crate::show::get_u32(to, 0).is_none()
                {
                    return Err(invarg(&format!("invalid {which}-qos-map"), from));
                }
                it.next();
            }
        } else if matches(w, "help") {
            return Err(fail(VLAN_USAGE.to_string()));
        } else {
            return Err(fail(format!(
                "vlan: unknown command \"{w}\"?\n{VLAN_USAGE}"
            )));
        }
    }
    Ok(any)
}
