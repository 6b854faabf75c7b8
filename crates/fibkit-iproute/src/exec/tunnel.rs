//! `ip tunnel` and `ip -6 tunnel`: iproute2's iptunnel.c and ip6tunnel.c on the
//! kernel fibkit models, which was built without any tunnel driver (no ipip, gre,
//! sit, vti, ip6_tunnel, ip6_gre or ip6_vti; `ip link add ... type gre` is refused as
//! an unknown kind the same way).
//!
//! The commands are ioctls on a device named in the request (`SIOC*TUNNEL`, `SIOC*PRL`,
//! `SIOC*6RD`, all in the `SIOCDEVPRIVATE` range). Without the drivers none of them can
//! succeed: `dev_ifsioc` answers ENODEV for a name no device has and EOPNOTSUPP for
//! any device fibkit models (none has an `ndo_siocdevprivate` that takes them; a
//! bridge's answers EOPNOTSUPP to these requests), and an ioctl number of 0, which
//! `ip tunnel prl` and `ip tunnel 6rd` send when no change is named, is ENOTTY before
//! any device is looked at. What is modelled is iproute2's reading of the line (its
//! messages, in its order), which name each request goes to, and the listing, which
//! finds no device of a tunnel type (`ARPHRD_TUNNEL`, `IPGRE`, `SIT`, `TUNNEL6`,
//! `IP6GRE`) and so prints nothing (`[]` with `-j`).
//!
//! An ioctl's refusal reaches the oracle only as text, so those failures carry no
//! errno; `Cannot find device` (a `dev` resolved over rtnetlink) is ENODEV.

use fibkit::prefix::Family;
use fibkit::{Errno, Netns};

use super::{bad_addr, incomplete, invarg, matches, nodev, Failure, Opts, Outcome, Res};
use crate::names::{dsfield_a2n, parse_addr, parse_prefix, parse_v4, Addr};
use crate::show::{get_u32, get_u8, ifname_ok};

const IPPROTO_IPIP: u8 = 4;
const IPPROTO_GRE: u8 = 47;
const IPPROTO_IPV6: u8 = 41;

/// `SIOCDEVPRIVATE`.
const SIOCDEVPRIVATE: u32 = 0x89f0;
const SIOCADDPRL: u32 = SIOCDEVPRIVATE + 5;
const SIOCDELPRL: u32 = SIOCDEVPRIVATE + 6;
const SIOCADD6RD: u32 = SIOCDEVPRIVATE + 9;
const SIOCDEL6RD: u32 = SIOCDEVPRIVATE + 10;

/// The request an `ip tunnel` command makes of its device.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cmd {
    Get,
    Add,
    Change,
    Del,
}

/// `ip tunnel ...` (the words after `tunnel`), with `-4`, `-6` or neither.
pub(super) fn tunnel_cmd(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    // do_iptunnel: the first `mode` word followed by a value decides the family when
    // that value is an IPv6 mode, whatever -4 said
    let v6_mode = a
        .windows(2)
        .find(|w| w[0] == "mode")
        .is_some_and(|w| V6_MODES.contains(&w[1].as_str()));
    if let Some(alt) = opts.alt {
        if !v6_mode {
            return Err(Failure::parse(
                format!("Unsupported protocol family: {}\n", alt.af()),
                255,
            ));
        }
    }
    if v6_mode || opts.family == Some(Family::V6) {
        return tunnel6(ns, opts, a);
    }
    let Some(cmd) = a.first().map(String::as_str) else {
        return show4(ns, opts, &[]);
    };
    let rest = &a[1..];
    if matches(cmd, "add") {
        return add4(ns, Cmd::Add, rest);
    }
    if matches(cmd, "change") {
        return add4(ns, Cmd::Change, rest);
    }
    if matches(cmd, "delete") {
        let p = parse4(ns, rest, Cmd::Del)?;
        let name = if p.name.is_empty() {
            p.defname().unwrap_or("")
        } else {
            &p.name
        };
        return Err(request(ns, "delete", name));
    }
    if matches(cmd, "show") || matches(cmd, "lst") || matches(cmd, "list") {
        return show4(ns, opts, rest);
    }
    if matches(cmd, "prl") {
        return prl(ns, rest);
    }
    if matches(cmd, "6rd") {
        return six_rd(ns, rest);
    }
    if matches(cmd, "help") {
        return Err(usage4());
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip tunnel help\"\n"),
        255,
    ))
}

/// The modes `tunnel_mode_is_ipv6` sends to ip6tunnel.c.
const V6_MODES: [&str; 11] = [
    "ipv6/ipv6",
    "ip6ip6",
    "vti6",
    "ip/ipv6",
    "ipv4/ipv6",
    "ipip6",
    "ip4ip6",
    "ip6gre",
    "gre/ipv6",
    "any/ipv6",
    "any",
];

fn usage4() -> Failure {
    Failure::parse(
        "Usage: ip tunnel { add | change | del | show | prl | 6rd } [ NAME ]\n        \
         [ mode { gre | ipip | isatap | sit | vti } ]\n        \
         [ remote ADDR ] [ local ADDR ]\n        \
         [ [i|o]seq ] [ [i|o]key KEY ] [ [i|o]csum ]\n        \
         [ prl-default ADDR ] [ prl-nodefault ADDR ] [ prl-delete ADDR ]\n        \
         [ 6rd-prefix ADDR ] [ 6rd-relay_prefix ADDR ] [ 6rd-reset ]\n        \
         [ ttl TTL ] [ tos TOS ] [ [no]pmtudisc ] [ dev PHYS_DEV ]\n\n\
         Where: NAME := STRING\n       \
         ADDR := { IP_ADDRESS | any }\n       \
         TOS  := { STRING | 00..ff | inherit | inherit/STRING | inherit/00..ff }\n       \
         TTL  := { 1..255 | inherit }\n       \
         KEY  := { DOTTED_QUAD | NUMBER }\n",
        255,
    )
}

fn usage6() -> Failure {
    Failure::parse(
        "Usage: ip -f inet6 tunnel { add | change | del | show } [ NAME ]\n          \
         [ mode { ip6ip6 | ipip6 | ip6gre | vti6 | any } ]\n          \
         [ remote ADDR local ADDR ] [ dev PHYS_DEV ]\n          \
         [ encaplimit ELIM ]\n          \
         [ hoplimit TTL ] [ tclass TCLASS ] [ flowlabel FLOWLABEL ]\n          \
         [ dscp inherit ]\n          \
         [ [no]allow-localremote ]\n          \
         [ [i|o]seq ] [ [i|o]key KEY ] [ [i|o]csum ]\n\n\
         Where: NAME      := STRING\n       \
         ADDR      := IPV6_ADDRESS\n       \
         ELIM      := { none | 0..255 }(default=4)\n       \
         TTL       := 0..255 (default=64)\n       \
         TCLASS    := { 0x0..0xff | inherit }\n       \
         FLOWLABEL := { 0x0..0xfffff | inherit }\n       \
         KEY       := { DOTTED_QUAD | NUMBER }\n",
        255,
    )
}

/// What a tunnel ioctl on the device called `name` gets from this kernel:
/// `dev_ioctl` looks the name up only as far as its first `:` (`d0:1` asks `d0`).
fn ioctl_errno(ns: &Netns, name: &str) -> Errno {
    let name = super::ioctl_dev_name(name).unwrap_or(name);
    if ns.link_index(name).is_some() {
        Errno::EOPNOTSUPP
    } else {
        Errno::ENODEV
    }
}

/// tunnel.c's message for a failed `get`, `add` or `delete` request (`what`) made of
/// the device called `name` (`return -1`: exit status 1).
fn request(ns: &Netns, what: &str, name: &str) -> Failure {
    ioctl_failure(format!(
        "{what} tunnel \"{name}\" failed: {}\n",
        ioctl_errno(ns, name).strerror()
    ))
}

fn ioctl_failure(stderr: String) -> Failure {
    Failure {
        stdout: String::new(),
        errno: None,
        stderr,
        status: 1,
        exits: false,
    }
}

/// `get_addr32`: an IPv4 address, or `any`/`all`/`default` (0).
fn addr32(v: &str) -> Res<u32> {
    if matches!(v, "any" | "all" | "default") {
        return Ok(0);
    }
    parse_v4(v).ok_or_else(|| {
        Failure::parse(
            format!("Error: an IP address is expected rather than \"{v}\"\n"),
            1,
        )
        .exiting(true)
    })
}

/// `tnl_parse_key`: a dotted quad, or an unsigned number in any base.
pub(super) fn parse_key(what: &str, v: &str) -> Res<u32> {
    if v.contains('.') {
        return addr32(v);
    }
    get_u32(v, 0).ok_or_else(|| {
        Failure::parse(
            format!("invalid value for \"{what}\": \"{v}\"; it should be an unsigned integer\n"),
            255,
        )
    })
}

/// The name word of `parse_args` (`v`: the word after `name`, or `w` itself when it is
/// no keyword): one only, a valid one, and for `change` as the line's first word the
/// tunnel is read first (`tnl_get_ioctl`), which fails here.
fn name_word(
    ns: &Netns,
    name: &mut String,
    w: &str,
    v: &str,
    cmd: Cmd,
    count: usize,
    usage: fn() -> Failure,
) -> Res<()> {
    // a word that is no keyword and a prefix of `help` is the usage (`name help` is a
    // name)
    if w != "name" && matches(w, "help") {
        return Err(usage());
    }
    if !name.is_empty() {
        return Err(Failure::parse(
            format!("Error: either \"name\" is duplicate, or \"{v}\" is a garbage.\n"),
            255,
        ));
    }
    if !ifname_ok(v) {
        return Err(invarg("\"name\" not a valid ifname", v));
    }
    *name = v.to_string();
    if cmd == Cmd::Change && count == 0 {
        return Err(request(ns, "get", v));
    }
    Ok(())
}

/// What iptunnel.c's `parse_args` keeps that decides a command's course.
#[derive(Default)]
struct Parm4 {
    name: String,
    proto: u8,
    vti: bool,
    keyed: bool,
    ikey: u32,
    ttl: u8,
    nopmtudisc: bool,
    daddr: u32,
    saddr: u32,
}

impl Parm4 {
    /// `tnl_defname`: the fallback device of the mode.
    fn defname(&self) -> Option<&'static str> {
        match self.proto {
            IPPROTO_IPIP if self.vti => Some("ip_vti0"),
            IPPROTO_IPIP => Some("tunl0"),
            IPPROTO_GRE => Some("gre0"),
            IPPROTO_IPV6 => Some("sit0"),
            _ => None,
        }
    }
}

/// iptunnel.c's `parse_args`.
fn parse4(ns: &Netns, a: &[String], cmd: Cmd) -> Res<Parm4> {
    let mut p = Parm4::default();
    let mut medium = None;
    let mut it = a.iter().map(String::as_str);
    let mut count = 0;
    let set_proto = |p: &mut Parm4, proto: u8| {
        if p.proto != 0 && p.proto != proto {
            return Err(Failure::parse(
                "You managed to ask for more than one tunnel mode.\n",
                255,
            ));
        }
        p.proto = proto;
        Ok(())
    };
    while let Some(w) = it.next() {
        let mut val = || it.next().ok_or_else(incomplete);
        match w {
            "mode" => match val()? {
                "ipip" | "ip/ip" => set_proto(&mut p, IPPROTO_IPIP)?,
                "gre" | "gre/ip" => set_proto(&mut p, IPPROTO_GRE)?,
                "sit" | "ipv6/ip" | "isatap" => set_proto(&mut p, IPPROTO_IPV6)?,
                "vti" => {
                    set_proto(&mut p, IPPROTO_IPIP)?;
                    p.vti = true;
                }
                m => {
                    return Err(Failure::parse(
                        format!("Unknown tunnel mode \"{m}\"\n"),
                        255,
                    ))
                }
            },
            "key" | "ikey" => {
                p.ikey = parse_key(w, val()?)?;
                p.keyed = true;
            }
            "okey" => {
                parse_key(w, val()?)?;
                p.keyed = true;
            }
            "seq" | "iseq" | "oseq" | "csum" | "icsum" | "ocsum" => {}
            "nopmtudisc" => p.nopmtudisc = true,
            "pmtudisc" => p.nopmtudisc = false,
            "remote" => p.daddr = addr32(val()?)?,
            "local" => p.saddr = addr32(val()?)?,
            "dev" => medium = Some(val()?),
            "ttl" | "hoplimit" | "hlim" => {
                let v = val()?;
                if v != "inherit" {
                    p.ttl = get_u8(v, 0).ok_or_else(|| invarg("invalid TTL\n", v))?;
                }
            }
            _ if w == "tos" || w == "tclass" || matches(w, "dsfield") => {
                // strsep cut the word at its first '/': the part before it is what an
                // error names; a value follows `inherit/` only
                let v = val()?;
                let (head, tail) = match v.split_once('/') {
                    Some((h, t)) => (h, Some(t)),
                    None => (v, None),
                };
                let ds = if head == "inherit" { tail } else { Some(head) };
                if let Some(ds) = ds {
                    dsfield_a2n(ds).ok_or_else(|| invarg("bad TOS value", head))?;
                }
            }
            _ => {
                let v = if w == "name" { val()? } else { w };
                name_word(ns, &mut p.name, w, v, cmd, count, usage4)?;
            }
        }
        count += 1;
    }
    if p.proto == 0 {
        let n = p.name.as_str();
        if n.starts_with("gre") {
            p.proto = IPPROTO_GRE;
        } else if n.starts_with("ipip") {
            p.proto = IPPROTO_IPIP;
        } else if n.starts_with("sit") || n.starts_with("isatap") {
            p.proto = IPPROTO_IPV6;
        } else if n.starts_with("vti") {
            p.proto = IPPROTO_IPIP;
            p.vti = true;
        }
    }
    if p.keyed && !p.vti && p.proto != IPPROTO_GRE {
        return Err(Failure::parse(
            "Keys are not allowed with ipip and sit tunnels\n",
            1,
        ));
    }
    if let Some(m) = medium {
        // ll_name_to_index: an `ifN` form too
        if super::ll_index(ns, m).is_none() {
            return Err(nodev(m));
        }
    }
    let multicast = p.daddr >> 28 == 0xe;
    if p.ikey == 0 && multicast {
        p.ikey = p.daddr;
        p.keyed = true;
    }
    if multicast && p.saddr == 0 {
        return Err(Failure::parse(
            "A broadcast tunnel requires a source address\n",
            1,
        ));
    }
    Ok(p)
}

/// `do_add` (SIOCADDTUNNEL or SIOCCHGTUNNEL).
fn add4(ns: &Netns, cmd: Cmd, a: &[String]) -> Res<Outcome> {
    let p = parse4(ns, a, cmd)?;
    if p.ttl != 0 && p.nopmtudisc {
        return Err(Failure::parse(
            "ttl != 0 and nopmtudisc are incompatible\n",
            1,
        ));
    }
    let Some(base) = p.defname() else {
        return Err(Failure::parse(
            "cannot determine tunnel mode (ipip, gre, vti or sit)\n",
            1,
        ));
    };
    // a change goes to the tunnel named, an add to the mode's fallback device
    let dev = if cmd == Cmd::Change && !p.name.is_empty() {
        &p.name
    } else {
        base
    };
    Err(request(ns, "add", dev))
}

/// The listing of tunnel devices (`do_tunnels_list`): none exists here.
fn no_tunnels(opts: &Opts) -> Outcome {
    Outcome::Ok(
        match (opts.json, opts.pretty) {
            (false, _) => "",
            (true, false) => "[]\n",
            (true, true) => "[ ]\n",
        }
        .to_string(),
    )
}

/// `do_show`: a mode (named, or read from the name) asks its device; without one the
/// list is walked.
fn show4(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let p = parse4(ns, a, Cmd::Get)?;
    let Some(base) = p.defname() else {
        return Ok(no_tunnels(opts));
    };
    let dev = if p.name.is_empty() { base } else { &p.name };
    Err(request(ns, "get", dev))
}

/// `tnl_gen_ioctl`'s message: the request number in hex (0 when no change was named:
/// ENOTTY, before any device is looked for).
fn gen_ioctl(ns: &Netns, cmd: u32, dev: &str) -> Failure {
    let e = if cmd == 0 {
        Errno::ENOTTY
    } else {
        ioctl_errno(ns, dev)
    };
    ioctl_failure(format!("{dev}: ioctl {cmd:x} failed: {}\n", e.strerror()))
}

/// `dev` of `prl` and `6rd`: `check_ifname`.
fn dev_word(v: &str) -> Res<&str> {
    if ifname_ok(v) {
        Ok(v)
    } else {
        Err(invarg("\"dev\" not a valid ifname", v))
    }
}

fn must_specify_device() -> Failure {
    Failure::parse("Must specify device\n", 255)
}

/// `do_prl`: one potential-router-list entry at a time.
fn prl(ns: &Netns, a: &[String]) -> Res<Outcome> {
    let mut it = a.iter().map(String::as_str);
    let mut cmd = 0;
    let mut count = 0;
    let mut medium = None;
    while let Some(w) = it.next() {
        let mut val = || it.next().ok_or_else(incomplete);
        match w {
            "prl-default" | "prl-nodefault" => {
                cmd = SIOCADDPRL;
                addr32(val()?)?;
                count += 1;
            }
            "prl-delete" => {
                cmd = SIOCDELPRL;
                addr32(val()?)?;
                count += 1;
            }
            "dev" => medium = Some(dev_word(val()?)?),
            _ => {
                return Err(Failure::parse(
                    format!("Invalid PRL parameter \"{w}\"\n"),
                    255,
                ))
            }
        }
        if count > 1 {
            return Err(Failure::parse("One PRL entry at a time\n", 255));
        }
    }
    let dev = medium.ok_or_else(must_specify_device)?;
    Err(gen_ioctl(ns, cmd, dev))
}

/// `do_6rd`.
fn six_rd(ns: &Netns, a: &[String]) -> Res<Outcome> {
    let mut it = a.iter().map(String::as_str);
    let mut cmd = 0;
    let mut medium = None;
    while let Some(w) = it.next() {
        let mut val = || it.next().ok_or_else(incomplete);
        match w {
            "6rd-prefix" | "6rd-relay_prefix" => {
                // get_prefix exits with its own message
                let fam = if w == "6rd-prefix" {
                    Family::V6
                } else {
                    Family::V4
                };
                let v = val()?;
                parse_prefix(v, Some(fam)).ok_or_else(|| super::bad_prefix(v, Some(fam)))?;
                cmd = SIOCADD6RD;
            }
            "6rd-reset" => cmd = SIOCDEL6RD,
            "dev" => medium = Some(dev_word(val()?)?),
            _ => {
                return Err(Failure::parse(
                    format!("Invalid 6RD parameter \"{w}\"\n"),
                    255,
                ))
            }
        }
    }
    let dev = medium.ok_or_else(must_specify_device)?;
    Err(gen_ioctl(ns, cmd, dev))
}

/// What ip6tunnel.c's `parse_args` keeps that decides a command's course.
struct Parm6 {
    name: String,
    proto: u8,
    vti: bool,
}

/// `do_ip6tunnel`.
fn tunnel6(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return show6(ns, opts, &[]);
    };
    let rest = &a[1..];
    let add = |cmd: Cmd| -> Res<Outcome> {
        let p = parse6(ns, rest, cmd, IPPROTO_IPV6)?;
        // an unnamed tunnel is only remarked on: the request still goes out
        let remark = if p.name.is_empty() {
            "Tunnel interface name not specified\n"
        } else {
            ""
        };
        let dev = if cmd == Cmd::Change && !p.name.is_empty() {
            p.name.as_str()
        } else {
            p.base()
        };
        let f = request(ns, "add", dev);
        Err(Failure {
            stderr: format!("{remark}{}", f.stderr),
            ..f
        })
    };
    if matches(cmd, "add") {
        return add(Cmd::Add);
    }
    if matches(cmd, "change") {
        return add(Cmd::Change);
    }
    if matches(cmd, "delete") {
        let p = parse6(ns, rest, Cmd::Del, IPPROTO_IPV6)?;
        let dev = if p.name.is_empty() { p.base() } else { &p.name };
        return Err(request(ns, "delete", dev));
    }
    if matches(cmd, "show") || matches(cmd, "lst") || matches(cmd, "list") {
        return show6(ns, opts, rest);
    }
    if matches(cmd, "help") {
        return Err(usage6());
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip -f inet6 tunnel help\".\n"),
        255,
    ))
}

impl Parm6 {
    /// The fallback device of `do_add` and `do_del`.
    fn base(&self) -> &'static str {
        if self.proto == IPPROTO_GRE {
            "ip6gre0"
        } else if self.vti {
            "ip6_vti0"
        } else {
            "ip6tnl0"
        }
    }
}

/// `do_show`: a name asks its device (unless `-s`, which lists); else the list.
fn show6(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let p = parse6(ns, a, Cmd::Get, 0)?;
    if p.name.is_empty() || opts.stats > 0 {
        return Ok(no_tunnels(opts));
    }
    Err(request(ns, "get", &p.name))
}

/// ip6tunnel.c's `parse_args` (`proto`: the caller's starting protocol).
fn parse6(ns: &Netns, a: &[String], cmd: Cmd, proto: u8) -> Res<Parm6> {
    let mut p = Parm6 {
        name: String::new(),
        proto,
        vti: false,
    };
    let mut medium = None;
    let mut it = a.iter().map(String::as_str);
    let mut count = 0;
    let addr6 = |v: &str| match parse_addr(v, Some(Family::V6)) {
        Some(Addr::V6(_)) => Ok(()),
        _ if matches!(v, "any" | "all" | "default") => Ok(()),
        _ => Err(bad_addr(v, Some(Family::V6))),
    };
    while let Some(w) = it.next() {
        let mut val = || it.next().ok_or_else(incomplete);
        match w {
            "mode" => match val()? {
                "ipv6/ipv6" | "ip6ip6" => p.proto = IPPROTO_IPV6,
                "vti6" => {
                    p.proto = IPPROTO_IPV6;
                    p.vti = true;
                }
                "ip/ipv6" | "ipv4/ipv6" | "ipip6" | "ip4ip6" => p.proto = IPPROTO_IPIP,
                "ip6gre" | "gre/ipv6" => p.proto = IPPROTO_GRE,
                "any/ipv6" | "any" => p.proto = 0,
                m => {
                    return Err(Failure::parse(
                        format!("Unknown tunnel mode \"{m}\"\n"),
                        255,
                    ))
                }
            },
            "remote" | "local" => addr6(val()?)?,
            "dev" => medium = Some(val()?),
            // get_u8's failure is not told apart from success here: no error
            "encaplimit" => {
                val()?;
            }
            "hoplimit" | "ttl" | "hlim" => {
                let v = val()?;
                get_u8(v, 0).ok_or_else(|| invarg("invalid TTL", v))?;
            }
            _ if matches!(w, "tclass" | "tc" | "tos") || matches(w, "dsfield") => {
                let v = val()?;
                if v != "inherit" {
                    get_u8(v, 16).ok_or_else(|| invarg("invalid TClass", v))?;
                }
            }
            "flowlabel" | "fl" => {
                let v = val()?;
                if v != "inherit" && get_u32(v, 16).is_none_or(|l| l > 0xfffff) {
                    return Err(invarg("invalid Flowlabel", v));
                }
            }
            "dscp" => {
                let v = val()?;
                if v != "inherit" {
                    return Err(invarg("not inherit", v));
                }
            }
            "allow-localremote" | "noallow-localremote" => {}
            "key" | "ikey" | "okey" => {
                parse_key(w, val()?)?;
            }
            "seq" | "iseq" | "oseq" | "csum" | "icsum" | "ocsum" => {}
            _ => {
                let v = if w == "name" { val()? } else { w };
                name_word(ns, &mut p.name, w, v, cmd, count, usage6)?;
            }
        }
        count += 1;
    }
    if let Some(m) = medium {
        // ll_name_to_index: an `ifN` form too
        if super::ll_index(ns, m).is_none() {
            return Err(nodev(m));
        }
    }
    Ok(p)
}
