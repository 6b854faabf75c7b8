//! `ip xfrm` (iproute2 6.1's ipxfrm.c, xfrm_policy.c and xfrm_state.c): the security
//! policy database of [`fibkit::xfrm`], and the SA commands as this kernel answers
//! them (it has no ESP/AH/IPcomp types: no state can be made, so listings are empty).
//!
//! The parsers follow iproute2's argument walk closely, back-tracking included: a
//! selector is one run of words (`src`, `dst`, `dev` and one upper-layer spec), so a
//! second run is refused as a duplicate; a word no parser takes becomes a selector.

use fibkit::xfrm::{self, LifetimeCfg, Policy, PolicyId, Selector, Template, AF_INET, AF_INET6};
use fibkit::{Errno, Netns};

use super::{incomplete, invarg, ll_index, matches, missarg, Failure, Opts, Outcome, Res};
use crate::names::{fmt4, fmt6, parse_prefix, Addr};
use crate::show::{get_u32, get_u8, strtoul};

const XFRM_INF: u64 = u64::MAX;
const AF_PACKET: u16 = 17;
const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;
const IPPROTO_SCTP: u8 = 132;
const IPPROTO_DCCP: u8 = 33;
const IPPROTO_ICMP: u8 = 1;
const IPPROTO_ICMPV6: u8 = 58;
const IPPROTO_MH: u8 = 135;
const IPPROTO_GRE: u8 = 47;
const IPPROTO_ESP: u8 = 50;
const IPPROTO_AH: u8 = 51;
const IPPROTO_COMP: u8 = 108;
const IPPROTO_ROUTING: u8 = 43;
const IPPROTO_DSTOPTS: u8 = 60;

const XFRM_USAGE: &str = "Usage: ip xfrm XFRM-OBJECT { COMMAND | help }\n\
where  XFRM-OBJECT := state | policy | monitor\n";

const POLICY_USAGE: &str = "Usage: ip xfrm policy { add | update } SELECTOR dir DIR [ ctx CTX ]\n\
\t[ mark MARK [ mask MASK ] ] [ index INDEX ] [ ptype PTYPE ]\n\
\t[ action ACTION ] [ priority PRIORITY ] [ flag FLAG-LIST ]\n\
\t[ if_id IF_ID ] [ LIMIT-LIST ] [ TMPL-LIST ]\n\
Usage: ip xfrm policy { delete | get } { SELECTOR | index INDEX } dir DIR\n\
\t[ ctx CTX ] [ mark MARK [ mask MASK ] ] [ ptype PTYPE ]\n\
\t[ if_id IF_ID ]\n\
Usage: ip xfrm policy { deleteall | list } [ nosock ] [ SELECTOR ] [ dir DIR ]\n\
\t[ index INDEX ] [ ptype PTYPE ] [ action ACTION ] [ priority PRIORITY ]\n\
\t[ flag FLAG-LIST ]\n\
Usage: ip xfrm policy flush [ ptype PTYPE ]\n\
Usage: ip xfrm policy count\n\
Usage: ip xfrm policy set [ hthresh4 LBITS RBITS ] [ hthresh6 LBITS RBITS ]\n\
Usage: ip xfrm policy setdefault DIR ACTION [ DIR ACTION ] [ DIR ACTION ]\n\
Usage: ip xfrm policy getdefault\n\
SELECTOR := [ src ADDR[/PLEN] ] [ dst ADDR[/PLEN] ] [ dev DEV ] [ UPSPEC ]\n\
UPSPEC := proto { { tcp | udp | sctp | dccp } [ sport PORT ] [ dport PORT ] |\n\
                  { icmp | ipv6-icmp | mobility-header } [ type NUMBER ] [ code NUMBER ] |\n\
                  gre [ key { DOTTED-QUAD | NUMBER } ] | PROTO }\n\
DIR := in | out | fwd\n\
PTYPE := main | sub\n\
ACTION := allow | block\n\
FLAG-LIST := [ FLAG-LIST ] FLAG\n\
FLAG := localok | icmp\n\
LIMIT-LIST := [ LIMIT-LIST ] limit LIMIT\n\
LIMIT := { time-soft | time-hard | time-use-soft | time-use-hard } SECONDS |\n\
         { byte-soft | byte-hard } SIZE | { packet-soft | packet-hard } COUNT\n\
TMPL-LIST := [ TMPL-LIST ] tmpl TMPL\n\
TMPL := ID [ mode MODE ] [ reqid REQID ] [ level LEVEL ]\n\
ID := [ src ADDR ] [ dst ADDR ] [ proto XFRM-PROTO ] [ spi SPI ]\n\
XFRM-PROTO := esp | ah | comp | route2 | hao\n\
MODE := transport | tunnel | beet | ro | in_trigger\n\
LEVEL := required | use\n";

const STATE_USAGE: &str = "Usage: ip xfrm state { add | update } ID [ ALGO-LIST ] [ mode MODE ]\n\
        [ mark MARK [ mask MASK ] ] [ reqid REQID ] [ seq SEQ ]\n\
        [ replay-window SIZE ] [ replay-seq SEQ ] [ replay-oseq SEQ ]\n\
        [ replay-seq-hi SEQ ] [ replay-oseq-hi SEQ ]\n\
        [ flag FLAG-LIST ] [ sel SELECTOR ] [ LIMIT-LIST ] [ encap ENCAP ]\n\
        [ coa ADDR[/PLEN] ] [ ctx CTX ] [ extra-flag EXTRA-FLAG-LIST ]\n\
        [ offload [dev DEV] dir DIR ]\n\
        [ output-mark OUTPUT-MARK [ mask MASK ] ]\n\
        [ if_id IF_ID ] [ tfcpad LENGTH ]\n\
Usage: ip xfrm state allocspi ID [ mode MODE ] [ mark MARK [ mask MASK ] ]\n\
        [ reqid REQID ] [ seq SEQ ] [ min SPI max SPI ]\n\
Usage: ip xfrm state { delete | get } ID [ mark MARK [ mask MASK ] ]\n\
Usage: ip xfrm state deleteall [ ID ] [ mode MODE ] [ reqid REQID ]\n\
        [ flag FLAG-LIST ]\n\
Usage: ip xfrm state list [ nokeys ] [ ID ] [ mode MODE ] [ reqid REQID ]\n\
        [ flag FLAG-LIST ]\n\
Usage: ip xfrm state flush [ proto XFRM-PROTO ]\n\
Usage: ip xfrm state count\n\
ID := [ src ADDR ] [ dst ADDR ] [ proto XFRM-PROTO ] [ spi SPI ]\n\
XFRM-PROTO := esp | ah | comp | route2 | hao\n\
ALGO-LIST := [ ALGO-LIST ] ALGO\n\
ALGO := { enc | auth } ALGO-NAME ALGO-KEYMAT |\n\
        auth-trunc ALGO-NAME ALGO-KEYMAT ALGO-TRUNC-LEN |\n\
        aead ALGO-NAME ALGO-KEYMAT ALGO-ICV-LEN |\n\
        comp ALGO-NAME\n\
MODE := transport | tunnel | beet | ro | in_trigger\n\
FLAG-LIST := [ FLAG-LIST ] FLAG\n\
FLAG := noecn | decap-dscp | nopmtudisc | wildrecv | icmp | af-unspec | align4 | esn\n\
EXTRA-FLAG-LIST := [ EXTRA-FLAG-LIST ] EXTRA-FLAG\n\
EXTRA-FLAG := dont-encap-dscp | oseq-may-wrap\n\
SELECTOR := [ src ADDR[/PLEN] ] [ dst ADDR[/PLEN] ] [ dev DEV ] [ UPSPEC ]\n\
UPSPEC := proto { { tcp | udp | sctp | dccp } [ sport PORT ] [ dport PORT ] |\n\
                  { icmp | ipv6-icmp | mobility-header } [ type NUMBER ] [ code NUMBER ] |\n\
                  gre [ key { DOTTED-QUAD | NUMBER } ] | PROTO }\n\
LIMIT-LIST := [ LIMIT-LIST ] limit LIMIT\n\
LIMIT := { time-soft | time-hard | time-use-soft | time-use-hard } SECONDS |\n\
         { byte-soft | byte-hard } SIZE | { packet-soft | packet-hard } COUNT\n\
ENCAP := { espinudp | espinudp-nonike | espintcp } SPORT DPORT OADDR\n\
DIR := in | out\n";

/// `getprotobyname` over the oracle machine's `/etc/protocols` (the number kept in 8
/// bits, as the selector stores it).
fn getprotobyname(s: &str) -> Option<u8> {
    crate::show::getprotobyname(s).map(|p| (p & 0xff) as u8)
}

/// `strxf_proto`: the protocol's name, else its number.
fn strxf_proto(p: u8) -> String {
    crate::show::getprotobynumber(p).map_or_else(|| p.to_string(), str::to_string)
}

/// `xfrmproto_types`.
const XFRM_PROTOS: &[(&str, u8)] = &[
    ("esp", IPPROTO_ESP),
    ("ah", IPPROTO_AH),
    ("comp", IPPROTO_COMP),
    ("route2", IPPROTO_ROUTING),
    ("hao", IPPROTO_DSTOPTS),
    ("ipsec-any", 255),
];

fn strxf_xfrmproto(p: u8) -> String {
    XFRM_PROTOS
        .iter()
        .find(|(_, n)| *n == p)
        .map_or_else(|| p.to_string(), |(s, _)| (*s).to_string())
}

fn duparg(key: &str, v: &str) -> Failure {
    Failure::parse(
        format!("Error: duplicate \"{key}\": \"{v}\" is the second value.\n"),
        255,
    )
}

/// A message and `exit(1)`.
fn exit1(msg: String) -> Failure {
    Failure::parse(msg, 1).exiting(true)
}

/// The kernel's refusal, ended by `exit(2)` as iproute2's xfrm commands end it.
fn kernel(e: fibkit::Error) -> Failure {
    Failure::kernel(e).exiting(true)
}

/// iproute2's `argc`/`argv` walk over the words after a command.
struct Cur<'a> {
    v: &'a [String],
    i: isize,
}

impl<'a> Cur<'a> {
    fn new(v: &'a [String]) -> Self {
        Cur { v, i: 0 }
    }
    fn more(&self) -> bool {
        self.i < self.v.len() as isize
    }
    /// `*argv` (an empty word outside the line).
    fn w(&self) -> &'a str {
        usize::try_from(self.i)
            .ok()
            .and_then(|i| self.v.get(i))
            .map_or("", String::as_str)
    }
    /// `NEXT_ARG()`.
    fn next(&mut self) -> Res<&'a str> {
        self.i += 1;
        if self.i >= self.v.len() as isize {
            return Err(incomplete());
        }
        Ok(self.w())
    }
    /// `NEXT_ARG_OK()`.
    fn next_ok(&self) -> bool {
        self.i + 1 < self.v.len() as isize
    }
    /// `PREV_ARG()`.
    fn prev(&mut self) {
        self.i -= 1;
    }
    /// `argc`.
    fn argc(&self) -> isize {
        self.v.len() as isize - self.i
    }
}

/// What the filter of a listing holds (`struct xfrm_filter`'s policy part).
#[derive(Default)]
struct Filter {
    sel: Selector,
    src_mask: u8,
    dst_mask: u8,
    dev_mask: bool,
    proto_mask: bool,
    sport_mask: bool,
    dport_mask: bool,
    dir: Option<u8>,
    index: Option<u32>,
    ptype: Option<u8>,
    action: Option<u8>,
    priority: Option<u32>,
    flags: Option<u8>,
    nosock: bool,
}

/// The parse state shared by one command: `preferred_family` and the filter masks the
/// selector parser sets as it goes.
struct Ctx<'n> {
    ns: &'n Netns,
    fam: u16,
    filter: Filter,
}

fn opt_family(o: &Opts) -> u16 {
    match (o.family, o.alt) {
        (Some(fibkit::prefix::Family::V4), _) => AF_INET,
        (Some(fibkit::prefix::Family::V6), _) => AF_INET6,
        (None, Some(crate::names::AltFamily::Packet)) => AF_PACKET,
        (None, Some(crate::names::AltFamily::Mpls)) => 28,
        (None, Some(crate::names::AltFamily::Bridge)) => 7,
        _ => 0,
    }
}

/// `get_prefix(&p, arg, family)`: the family (0 for `default`/`any`/`all` read
/// without one), the 16 address bytes and the length.
fn get_prefix(arg: &str, fam: u16) -> Res<(u16, [u8; 16], u8)> {
    let fname = match fam {
        AF_INET => "inet",
        AF_INET6 => "inet6",
        28 => "mpls",
        7 => "bridge",
        _ => "any valid",
    };
    if fam == AF_PACKET {
        return Err(exit1(format!(
            "Error: \"{arg}\" may be inet prefix, but it is not allowed in this context.\n"
        )));
    }
    let bad = || {
        exit1(format!(
            "Error: {fname} prefix is expected rather than \"{arg}\".\n"
        ))
    };
    if matches!(arg, "default" | "any" | "all") {
        return match fam {
            28 | 7 => Err(bad()),
            f => Ok((f, [0; 16], 0)),
        };
    }
    let f = match fam {
        AF_INET => Some(fibkit::prefix::Family::V4),
        AF_INET6 => Some(fibkit::prefix::Family::V6),
        0 => None,
        _ => return Err(bad()),
    };
    let p = parse_prefix(arg, f).ok_or_else(bad)?;
    let mut b = [0u8; 16];
    let af = match p.addr {
        Addr::V4(a) => {
            b[..4].copy_from_slice(&a.to_be_bytes());
            AF_INET
        }
        Addr::V6(a) => {
            b = a.to_be_bytes();
            AF_INET6
        }
    };
    Ok((af, b, p.len))
}

fn addr_text(fam: u16, a: &[u8; 16]) -> String {
    match fam {
        AF_INET => fmt4(u32::from_be_bytes([a[0], a[1], a[2], a[3]])),
        AF_INET6 => fmt6(u128::from_be_bytes(*a)),
        _ => "???".to_string(),
    }
}

/// `get_u16(.., 0)`.
fn get_u16(s: &str) -> Option<u16> {
    get_u32(s, 0).and_then(|v| u16::try_from(v).ok())
}

/// `get_u64(.., 0)` (strtoull: a sign is taken, the whole word must be read).
fn get_u64(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let (v, n, of) = strtoul(s, 0);
    if n == 0 || n != s.len() || of {
        return None;
    }
    Some(v)
}

impl Ctx<'_> {
    /// `xfrm_selector_upspec_parse`.
    fn upspec(&mut self, c: &mut Cur<'_>, sel: &mut Selector) -> Res<()> {
        let start = c.argc();
        let (mut sportp, mut dportp, mut typep, mut codep, mut grekey) =
            (false, false, false, false, false);
        loop {
            match c.w() {
                "proto" => {
                    let v = c.next()?;
                    sel.proto = if v == "any" {
                        0
                    } else if let Some(p) = getprotobyname(v) {
                        p
                    } else {
                        get_u8(v, 0).ok_or_else(|| invarg("PROTO value is invalid", v))?
                    };
                    self.filter.proto_mask = true;
                }
                "sport" => {
                    sportp = true;
                    let v = c.next()?;
                    let p =
                        get_u16(v).ok_or_else(|| invarg("value after \"sport\" is invalid", v))?;
                    sel.sport = p;
                    if p != 0 {
                        sel.sport_mask = 0xffff;
                    }
                    self.filter.sport_mask = true;
                }
                "dport" => {
                    dportp = true;
                    let v = c.next()?;
                    let p =
                        get_u16(v).ok_or_else(|| invarg("value after \"dport\" is invalid", v))?;
                    sel.dport = p;
                    if p != 0 {
                        sel.dport_mask = 0xffff;
                    }
                    self.filter.dport_mask = true;
                }
                "type" => {
                    typep = true;
                    let v = c.next()?;
                    let t = get_u16(v)
                        .filter(|t| *t <= 0xff)
                        .ok_or_else(|| invarg("value after \"type\" is invalid", v))?;
                    sel.sport = t;
                    sel.sport_mask = 0xffff;
                    self.filter.sport_mask = true;
                }
                "code" => {
                    codep = true;
                    let v = c.next()?;
                    let t = get_u16(v)
                        .filter(|t| *t <= 0xff)
                        .ok_or_else(|| invarg("value after \"code\" is invalid", v))?;
                    sel.dport = t;
                    sel.dport_mask = 0xffff;
                    self.filter.dport_mask = true;
                }
                "key" => {
                    grekey = true;
                    let v = c.next()?;
                    let k = if v.contains('.') {
                        crate::names::parse_v4(v).ok_or_else(|| {
                            exit1(format!(
                                "Error: an IP address is expected rather than \"{v}\"\n"
                            ))
                        })?
                    } else {
                        get_u32(v, 0).ok_or_else(|| {
                            Failure::parse("value after \"key\" is invalid\n", 255)
                        })?
                    };
                    sel.sport = (k >> 16) as u16;
                    sel.dport = (k & 0xffff) as u16;
                    sel.sport_mask = 0xffff;
                    sel.dport_mask = 0xffff;
                    self.filter.dport_mask = true;
                }
                _ => {
                    c.prev();
                    break;
                }
            }
            if !c.next_ok() {
                break;
            }
            c.next()?;
        }
        if c.argc() == start {
            return Err(missarg("UPSPEC"));
        }
        if (sportp || dportp)
            && !matches!(
                sel.proto,
                IPPROTO_TCP | IPPROTO_UDP | IPPROTO_SCTP | IPPROTO_DCCP | 0
            )
        {
            return Err(exit1(format!(
                "\"sport\" and \"dport\" are invalid with PROTO value \"{}\"\n",
                strxf_proto(sel.proto)
            )));
        }
        if (typep || codep) && !matches!(sel.proto, IPPROTO_ICMP | IPPROTO_ICMPV6 | IPPROTO_MH) {
            return Err(exit1(format!(
                "\"type\" and \"code\" are invalid with PROTO value \"{}\"\n",
                strxf_proto(sel.proto)
            )));
        }
        if grekey && sel.proto != IPPROTO_GRE {
            return Err(exit1(format!(
                "\"key\" is invalid with PROTO value \"{}\"\n",
                strxf_proto(sel.proto)
            )));
        }
        Ok(())
    }

    /// `xfrm_selector_parse`.
    fn selector(&mut self, c: &mut Cur<'_>, sel: &mut Selector) -> Res<()> {
        let start = c.argc();
        let (mut sf, mut df) = (0u16, 0u16);
        let mut upspec = false;
        loop {
            match c.w() {
                w @ ("src" | "dst") => {
                    let v = c.next()?;
                    let (f, a, l) = get_prefix(v, self.fam)?;
                    if f == 0 {
                        return Err(invarg(
                            &format!("value after \"{w}\" has an unrecognized address family"),
                            v,
                        ));
                    }
                    sel.family = f;
                    if w == "src" {
                        sf = f;
                        sel.saddr = a;
                        sel.prefixlen_s = l;
                        self.filter.src_mask = l;
                    } else {
                        df = f;
                        sel.daddr = a;
                        sel.prefixlen_d = l;
                        self.filter.dst_mask = l;
                    }
                }
                "dev" => {
                    let v = c.next()?;
                    let idx = if v == "none" {
                        0
                    } else {
                        match ll_index(self.ns, v).and_then(|i| i32::try_from(i).ok()) {
                            Some(i) if i > 0 => i,
                            _ => return Err(invarg("DEV value is invalid", v)),
                        }
                    };
                    sel.ifindex = idx;
                    self.filter.dev_mask = true;
                }
                _ => {
                    if upspec {
                        c.prev();
                        break;
                    }
                    upspec = true;
                    self.upspec(c, sel)?;
                }
            }
            if !c.next_ok() {
                break;
            }
            c.next()?;
        }
        if sf != 0 && df != 0 && sf != df {
            return Err(invarg(
                "the same address family is required between values after \"src\" and \"dst\"",
                c.w(),
            ));
        }
        if c.argc() == start {
            return Err(missarg("SELECTOR"));
        }
        Ok(())
    }

    /// `xfrm_id_parse`: a template's (or an SA's) addresses, protocol and SPI.
    fn id(&mut self, c: &mut Cur<'_>, t: &mut Template, loose: bool) -> Res<()> {
        let start = c.argc();
        let (mut sf, mut df) = (0u16, 0u16);
        loop {
            match c.w() {
                w @ ("src" | "dst") => {
                    let v = c.next()?;
                    let (f, a, _) = get_prefix(v, self.fam)?;
                    if f == 0 {
                        return Err(invarg(
                            &format!("value after \"{w}\" has an unrecognized address family"),
                            v,
                        ));
                    }
                    t.family = f;
                    if w == "src" {
                        sf = f;
                        t.saddr = a;
                    } else {
                        df = f;
                        t.daddr = a;
                    }
                }
                "proto" => {
                    let v = c.next()?;
                    t.proto = XFRM_PROTOS
                        .iter()
                        .find(|(n, _)| *n == v)
                        .map(|(_, p)| *p)
                        .ok_or_else(|| invarg("XFRM-PROTO value is invalid", v))?;
                }
                "spi" => {
                    let v = c.next()?;
                    t.spi = get_u32(v, 0).ok_or_else(|| invarg("SPI value is invalid", v))?;
                }
                _ => {
                    c.prev();
                    break;
                }
            }
            if !c.next_ok() {
                break;
            }
            c.next()?;
        }
        if sf != 0 && df != 0 && sf != df {
            return Err(invarg(
                "the same address family is required between values after \"src\" and \"dst\"",
                c.w(),
            ));
        }
        if t.spi != 0 && t.proto != 0 {
            if matches!(t.proto, IPPROTO_ROUTING | IPPROTO_DSTOPTS) {
                return Err(exit1(format!(
                    "\"spi\" is invalid with XFRM-PROTO value \"{}\"\n",
                    strxf_xfrmproto(t.proto)
                )));
            } else if t.proto == IPPROTO_COMP && t.spi >= 0x10000 {
                return Err(exit1(format!(
                    "SPI value is too large with XFRM-PROTO value \"{}\"\n",
                    strxf_xfrmproto(t.proto)
                )));
            }
        }
        if !loose && t.proto == 0 {
            return Err(missarg("XFRM-PROTO"));
        }
        if c.argc() == start {
            return Err(missarg("ID"));
        }
        Ok(())
    }

    /// `xfrm_tmpl_parse`.
    fn tmpl(&mut self, c: &mut Cur<'_>, t: &mut Template) -> Res<()> {
        let start = c.argc();
        let mut idp = false;
        loop {
            match c.w() {
                "mode" => {
                    let v = c.next()?;
                    t.mode = mode_parse(v)?;
                }
                "reqid" => {
                    let v = c.next()?;
                    t.reqid = get_u32(v, 0).ok_or_else(|| invarg("REQID value is invalid", v))?;
                }
                "level" => {
                    let v = c.next()?;
                    t.optional = match v {
                        "required" => 0,
                        "use" => 1,
                        _ => return Err(invarg("LEVEL value is invalid\n", v)),
                    };
                }
                _ => {
                    if idp {
                        c.prev();
                        break;
                    }
                    idp = true;
                    self.fam = 0;
                    self.id(c, t, false)?;
                    self.fam = t.family;
                }
            }
            if !c.next_ok() {
                break;
            }
            c.next()?;
        }
        if c.argc() == start {
            return Err(missarg("TMPL"));
        }
        Ok(())
    }
}

fn mode_parse(v: &str) -> Res<u8> {
    Ok(if matches(v, "transport") {
        xfrm::mode::TRANSPORT
    } else if matches(v, "tunnel") {
        xfrm::mode::TUNNEL
    } else if matches(v, "ro") {
        xfrm::mode::RO
    } else if matches(v, "in_trigger") {
        xfrm::mode::IN_TRIGGER
    } else if matches(v, "beet") {
        xfrm::mode::BEET
    } else {
        return Err(invarg("MODE value is invalid", v));
    })
}

/// A word that may be given once (its flag `seen`): a second is `duparg(key, w)`.
fn once(seen: &mut bool, key: &str, w: &str) -> Res<()> {
    if std::mem::replace(seen, true) {
        return Err(duparg(key, w));
    }
    Ok(())
}

fn dir_parse(v: &str) -> Res<u8> {
    match v {
        "in" => Ok(xfrm::DIR_IN),
        "out" => Ok(xfrm::DIR_OUT),
        "fwd" => Ok(xfrm::DIR_FWD),
        _ => Err(invarg("DIR value is invalid", v)),
    }
}

fn ptype_parse(v: &str) -> Res<u8> {
    match v {
        "main" => Ok(xfrm::TYPE_MAIN),
        "sub" => Ok(xfrm::TYPE_SUB),
        _ => Err(invarg("PTYPE value is invalid", v)),
    }
}

fn action_parse(v: &str) -> Res<u8> {
    match v {
        "allow" => Ok(xfrm::ACTION_ALLOW),
        "block" => Ok(xfrm::ACTION_BLOCK),
        _ => Err(invarg("ACTION value is invalid\n", v)),
    }
}

/// `xfrm_policy_flag_parse` (the current word is the first flag).
fn flag_parse(c: &mut Cur<'_>, flags: &mut u8) -> Res<()> {
    let w = c.w();
    if w.len() > 2 && w.starts_with("0x") {
        *flags = get_u8(w, 16).ok_or_else(|| invarg("FLAG value is invalid", w))?;
        return Ok(());
    }
    loop {
        match c.w() {
            "localok" => *flags |= 1,
            "icmp" => *flags |= 2,
            _ => {
                c.prev();
                break;
            }
        }
        if !c.next_ok() {
            break;
        }
        c.next()?;
    }
    Ok(())
}

/// `xfrm_parse_mark` (the current word is `mark`).
fn mark_parse(c: &mut Cur<'_>) -> Res<(u32, u32)> {
    let v = c.next()?;
    let val = get_u32(v, 0).ok_or_else(|| invarg("MARK value is invalid\n", v))?;
    if c.argc() <= 1 {
        return Ok((val, 0xffff_ffff));
    }
    let w = c.next()?;
    if w == "mask" {
        let m = c.next()?;
        let mask = get_u32(m, 0).ok_or_else(|| invarg("MASK value is invalid\n", m))?;
        Ok((val, mask))
    } else {
        c.prev();
        Ok((val, 0xffff_ffff))
    }
}

/// `xfrm_lifetime_cfg_parse` (the current word names the limit).
fn limit_parse(c: &mut Cur<'_>, l: &mut LifetimeCfg) -> Res<()> {
    let w = c.w();
    let slot = match w {
        "time-soft" => &mut l.soft_add_expires_seconds,
        "time-hard" => &mut l.hard_add_expires_seconds,
        "time-use-soft" => &mut l.soft_use_expires_seconds,
        "time-use-hard" => &mut l.hard_use_expires_seconds,
        "byte-soft" => &mut l.soft_byte_limit,
        "byte-hard" => &mut l.hard_byte_limit,
        "packet-soft" => &mut l.soft_packet_limit,
        "packet-hard" => &mut l.hard_packet_limit,
        _ => return Err(invarg("LIMIT value is invalid", w)),
    };
    let v = c.next()?;
    *slot = get_u64(v).ok_or_else(|| invarg(&format!("value after \"{w}\" is invalid"), v))?;
    Ok(())
}

/// Entry point: `ip xfrm ...`.
pub(super) fn xfrm_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let usage = || Failure::parse(XFRM_USAGE, 255);
    let Some(obj) = a.first().map(String::as_str) else {
        return Err(usage());
    };
    let rest = &a[1..];
    if matches(obj, "state") || matches(obj, "sa") {
        state_cmd(ns, opts, rest)
    } else if matches(obj, "policy") {
        policy_cmd(ns, opts, rest)
    } else if matches(obj, "monitor") {
        // `ip xfrm monitor` waits for the kernel's notifications, as `ip monitor` does
        Err(Failure::parse(
            "ip xfrm monitor: fib has no event stream to follow (`fib mirror --follow` follows a live host's)\n",
            255,
        ))
    } else {
        Err(usage())
    }
}

fn policy_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return policy_list(ns, opts, &[], false);
    };
    let rest = &a[1..];
    if matches(cmd, "add") {
        policy_modify(ns, opts, rest, true)
    } else if matches(cmd, "update") {
        policy_modify(ns, opts, rest, false)
    } else if matches(cmd, "delete") {
        policy_get_or_delete(ns, opts, rest, true)
    } else if matches(cmd, "deleteall") || matches(cmd, "delall") {
        policy_list(ns, opts, rest, true)
    } else if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        policy_list(ns, opts, rest, false)
    } else if matches(cmd, "get") {
        policy_get_or_delete(ns, opts, rest, false)
    } else if matches(cmd, "flush") {
        policy_flush(ns, rest)
    } else if matches(cmd, "count") {
        Ok(Outcome::Ok(spd_count(ns, opts)))
    } else if matches(cmd, "set") {
        spd_set(ns, rest)
    } else if matches(cmd, "setdefault") {
        set_default(ns, rest)
    } else if matches(cmd, "getdefault") {
        let d = ns.xfrm().defaults();
        let name = |v: u8| match v {
            0 => "unspec",
            xfrm::USERPOLICY_BLOCK => "block",
            xfrm::USERPOLICY_ACCEPT => "accept",
            _ => "unknown",
        };
        Ok(Outcome::Ok(format!(
            "Default policies:\n in:  {}\n fwd: {}\n out: {}\n",
            name(d[0]),
            name(d[1]),
            name(d[2])
        )))
    } else if matches(cmd, "help") {
        Err(Failure::parse(POLICY_USAGE, 255))
    } else {
        Err(Failure::parse(
            format!("Command \"{cmd}\" is unknown, try \"ip xfrm policy help\".\n"),
            255,
        ))
    }
}

fn new_policy() -> Policy {
    Policy {
        sel: Selector::default(),
        lft: LifetimeCfg {
            soft_byte_limit: XFRM_INF,
            hard_byte_limit: XFRM_INF,
            soft_packet_limit: XFRM_INF,
            hard_packet_limit: XFRM_INF,
            ..Default::default()
        },
        priority: 0,
        index: 0,
        dir: 0,
        action: 0,
        flags: 0,
        share: 0,
        ptype: xfrm::TYPE_MAIN,
        mark: (0, 0),
        if_id: 0,
        tmpls: Vec::new(),
        add_time: 0,
    }
}

/// Wall-clock seconds now (what the kernel records as a policy's add time).
fn wall_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `xfrm_policy_modify`.
fn policy_modify(ns: &mut Netns, opts: &Opts, a: &[String], excl: bool) -> Res<Outcome> {
    let mut p = new_policy();
    let mut cx = Ctx {
        ns,
        fam: opt_family(opts),
        filter: Filter::default(),
    };
    p.sel.family = cx.fam;
    let mut c = Cur::new(a);
    let (mut dirp, mut selp, mut ptypep, mut sctxp) = (false, false, false, false);
    let mut mark = (0u32, 0u32);
    let mut if_id = None;
    let mut ntmpl = 0usize;
    while c.more() {
        let w = c.w();
        match w {
            "dir" => {
                once(&mut dirp, "dir", w)?;
                p.dir = dir_parse(c.next()?)?;
            }
            "ctx" => {
                once(&mut sctxp, "ctx", w)?;
                c.next()?;
            }
            "mark" => mark = mark_parse(&mut c)?,
            "index" => {
                let v = c.next()?;
                p.index = get_u32(v, 0).ok_or_else(|| invarg("INDEX value is invalid", v))?;
            }
            "ptype" => {
                once(&mut ptypep, "ptype", w)?;
                p.ptype = ptype_parse(c.next()?)?;
            }
            "action" => p.action = action_parse(c.next()?)?,
            "priority" => {
                let v = c.next()?;
                p.priority = get_u32(v, 0).ok_or_else(|| invarg("PRIORITY value is invalid", v))?;
            }
            "flag" => {
                c.next()?;
                flag_parse(&mut c, &mut p.flags)?;
            }
            "limit" => {
                c.next()?;
                limit_parse(&mut c, &mut p.lft)?;
            }
            "tmpl" => {
                // 1024 bytes of 64-byte templates
                if ntmpl + 1 > 16 {
                    return Err(exit1("Too many tmpls: buffer overflow\n".into()));
                }
                let mut t = Template {
                    family: cx.fam,
                    aalgos: u32::MAX,
                    ealgos: u32::MAX,
                    calgos: u32::MAX,
                    ..Default::default()
                };
                c.next()?;
                cx.tmpl(&mut c, &mut t)?;
                p.tmpls.push(t);
                ntmpl += 1;
            }
            "if_id" => {
                let v = c.next()?;
                if_id = Some(get_u32(v, 0).ok_or_else(|| invarg("IF_ID value is invalid", v))?);
            }
            _ => {
                once(&mut selp, "unknown", w)?;
                cx.selector(&mut c, &mut p.sel)?;
                if cx.fam == 0 {
                    cx.fam = p.sel.family;
                }
            }
        }
        c.i += 1;
    }
    if !dirp {
        return Err(exit1("Not enough information: DIR is required.\n".into()));
    }
    if mark.1 != 0 {
        p.mark = mark;
    }
    p.if_id = if_id.unwrap_or(0);
    if p.sel.family == 0 {
        p.sel.family = AF_INET;
    }
    // the families of templates iproute2 sends: 0 stays 0 until the kernel fills it
    p.add_time = wall_seconds();
    ns.xfrm_mut().insert(p, excl).map_err(kernel)?;
    Ok(Outcome::Ok(String::new()))
}

/// `xfrm_policy_get_or_delete`.
fn policy_get_or_delete(ns: &mut Netns, opts: &Opts, a: &[String], delete: bool) -> Res<Outcome> {
    let mut cx = Ctx {
        ns,
        fam: opt_family(opts),
        filter: Filter::default(),
    };
    let mut id = PolicyId {
        sel: Selector::default(),
        index: 0,
        dir: 0,
        ptype: xfrm::TYPE_MAIN,
        mark: (0, 0),
        if_id: 0,
    };
    let mut c = Cur::new(a);
    let (mut dirp, mut selp, mut indexp, mut ptypep, mut sctxp) =
        (false, false, false, false, false);
    let mut mark = (0u32, 0u32);
    while c.more() {
        let w = c.w();
        match w {
            "dir" => {
                once(&mut dirp, "dir", w)?;
                id.dir = dir_parse(c.next()?)?;
            }
            "ctx" => {
                once(&mut sctxp, "ctx", w)?;
                c.next()?;
            }
            "mark" => mark = mark_parse(&mut c)?,
            "index" => {
                once(&mut indexp, "index", w)?;
                let v = c.next()?;
                id.index = get_u32(v, 0).ok_or_else(|| invarg("INDEX value is invalid", v))?;
            }
            "ptype" => {
                once(&mut ptypep, "ptype", w)?;
                id.ptype = ptype_parse(c.next()?)?;
            }
            "if_id" => {
                let v = c.next()?;
                id.if_id = get_u32(v, 0).ok_or_else(|| invarg("IF_ID value is invalid", v))?;
            }
            _ => {
                if selp {
                    return Err(invarg("unknown", w));
                }
                selp = true;
                cx.selector(&mut c, &mut id.sel)?;
                if cx.fam == 0 {
                    cx.fam = id.sel.family;
                }
            }
        }
        c.i += 1;
    }
    if !dirp {
        return Err(exit1("Not enough information: DIR is required.\n".into()));
    }
    if !selp && !indexp {
        return Err(exit1(
            "Not enough information: either SELECTOR or INDEX is required.\n".into(),
        ));
    }
    if selp && indexp {
        return Err(Failure::parse(
            "Error: either \"SELECTOR\" is duplicate, or \"INDEX\" is a garbage.\n",
            255,
        ));
    }
    if id.sel.family == 0 {
        id.sel.family = AF_INET;
    }
    if mark.0 & mark.1 != 0 {
        id.mark = mark;
    }
    let fam = cx.fam;
    let p = ns.xfrm_mut().lookup(&id, delete).map_err(kernel)?;
    if delete {
        return Ok(Outcome::Ok(String::new()));
    }
    let po = PrintOpts::new(opts, fam);
    Ok(Outcome::Ok(policy_text(ns, &p, &po)))
}

/// What the printers need of the options.
struct PrintOpts {
    stats: u32,
    oneline: bool,
}

impl PrintOpts {
    fn new(o: &Opts, _fam: u16) -> Self {
        PrintOpts {
            stats: o.stats,
            oneline: o.oneline,
        }
    }
    fn sl(&self) -> &'static str {
        if self.oneline {
            "\\"
        } else {
            "\n"
        }
    }
}

fn dev_name(ns: &Netns, idx: i32) -> String {
    let i = idx as u32;
    match ns.link(i) {
        Some(l) => l.name.clone(),
        None => format!("if{i}"),
    }
}

/// `strxf_time` (the kernel's seconds as a calendar time; fib reads them in UTC).
fn strxf_time(t: u64) -> String {
    if t == 0 {
        return "-".into();
    }
    let days = (t / 86400) as i64;
    let secs = t % 86400;
    // days to civil date (proleptic Gregorian)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn limit_text(v: u64) -> String {
    if v == XFRM_INF {
        "(INF)".into()
    } else {
        v.to_string()
    }
}

/// `%#x`.
fn hash_x(v: u32) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// `xfrm_selector_print`.
fn selector_text(ns: &Netns, s: &Selector, po: &PrintOpts, out: &mut String) {
    let f = s.family;
    out.push_str(&format!(
        "src {}/{} dst {}/{} ",
        addr_text(f, &s.saddr),
        s.prefixlen_s,
        addr_text(f, &s.daddr),
        s.prefixlen_d
    ));
    if s.proto != 0 {
        out.push_str(&format!("proto {} ", strxf_proto(s.proto)));
    }
    match s.proto {
        IPPROTO_ICMP | IPPROTO_ICMPV6 => {
            if s.sport_mask != 0 {
                out.push_str(&format!("type {} ", s.sport));
            }
            if s.dport_mask != 0 {
                out.push_str(&format!("code {} ", s.dport));
            }
        }
        IPPROTO_GRE => {
            if s.sport_mask != 0 || s.dport_mask != 0 {
                out.push_str(&format!(
                    "key {} ",
                    (u32::from(s.sport) << 16) + u32::from(s.dport)
                ));
            }
        }
        IPPROTO_MH => {
            if s.sport_mask != 0 {
                out.push_str(&format!("type {} ", s.sport));
            }
            if s.dport_mask != 0 && po.stats > 0 {
                // the port as it sits in memory, network byte order read as a host
                // (little-endian) number
                out.push_str(&format!("(dport) 0x{:04x} ", s.dport.swap_bytes()));
            }
        }
        _ => {
            if s.sport_mask != 0 {
                out.push_str(&format!("sport {} ", s.sport));
            }
            if s.dport_mask != 0 {
                out.push_str(&format!("dport {} ", s.dport));
            }
        }
    }
    if s.ifindex > 0 {
        out.push_str(&format!("dev {} ", dev_name(ns, s.ifindex)));
    }
    if po.stats > 0 {
        out.push_str(&format!("uid {}", s.user));
    }
    out.push_str(po.sl());
}

/// `xfrm_policy_info_print` (through `xfrm_xfrma_print`).
fn policy_text(ns: &Netns, p: &Policy, po: &PrintOpts) -> String {
    let sl = po.sl();
    let mut o = String::new();
    selector_text(ns, &p.sel, po, &mut o);
    o.push('\t');
    o.push_str("dir ");
    match p.dir {
        0 => o.push_str("in"),
        1 => o.push_str("out"),
        2 => o.push_str("fwd"),
        d => o.push_str(&d.to_string()),
    }
    o.push(' ');
    match p.action {
        0 => {
            if po.stats > 0 {
                o.push_str("action allow ");
            }
        }
        1 => o.push_str("action block "),
        x => o.push_str(&format!("action {x} ")),
    }
    if po.stats > 0 {
        o.push_str(&format!("index {} ", p.index));
    }
    o.push_str(&format!("priority {} ", p.priority));
    o.push_str(&format!(
        "ptype {} ",
        match p.ptype {
            0 => "main".to_string(),
            1 => "sub".to_string(),
            x => x.to_string(),
        }
    ));
    if po.stats > 0 {
        o.push_str(&format!("share {} ", share_text(p.share)));
    }
    if po.stats > 0 || p.flags != 0 {
        let mut f = p.flags;
        o.push_str("flag ");
        for (bit, name) in [(1u8, "localok"), (2u8, "icmp")] {
            if f & bit != 0 {
                f &= !bit;
                o.push_str(name);
                if f != 0 {
                    o.push(' ');
                }
            }
        }
        if f != 0 {
            o.push_str(&format!("{f:x}"));
        }
    }
    if po.stats > 0 {
        o.push_str(&format!(" (0x{:08b})", p.flags));
    }
    o.push_str(sl);
    if po.stats > 0 {
        let l = &p.lft;
        o.push_str(&format!("\tlifetime config:{sl}"));
        o.push_str(&format!(
            "\t  limit: soft {}(bytes), hard {}(bytes){sl}",
            limit_text(l.soft_byte_limit),
            limit_text(l.hard_byte_limit)
        ));
        o.push_str(&format!(
            "\t  limit: soft {}(packets), hard {}(packets){sl}",
            limit_text(l.soft_packet_limit),
            limit_text(l.hard_packet_limit)
        ));
        o.push_str(&format!(
            "\t  expire add: soft {}(sec), hard {}(sec){sl}",
            l.soft_add_expires_seconds, l.hard_add_expires_seconds
        ));
        o.push_str(&format!(
            "\t  expire use: soft {}(sec), hard {}(sec){sl}",
            l.soft_use_expires_seconds, l.hard_use_expires_seconds
        ));
        o.push_str(&format!("\tlifetime current:{sl}"));
        o.push_str(&format!("\t  0(bytes), 0(packets){sl}"));
        o.push_str(&format!(
            "\t  add {} use {}{sl}",
            strxf_time(p.add_time),
            strxf_time(0)
        ));
    }
    if p.mark.0 | p.mark.1 != 0 {
        o.push_str(&format!(
            "\tmark {}/{} {sl}",
            hash_x(p.mark.0),
            hash_x(p.mark.1)
        ));
    }
    for t in &p.tmpls {
        o.push('\t');
        o.push_str(&format!(
            "tmpl src {} dst {}{sl}",
            addr_text(t.family, &t.saddr),
            addr_text(t.family, &t.daddr)
        ));
        o.push_str("\t\t");
        o.push_str(&format!("proto {} ", strxf_xfrmproto(t.proto)));
        if po.stats > 0 || t.spi != 0 {
            o.push_str(&format!("spi 0x{:08x}", t.spi));
            if po.stats > 0 {
                o.push_str(&format!("({})", t.spi));
            }
            o.push(' ');
        }
        o.push_str(&format!("reqid {}", t.reqid));
        if po.stats > 0 {
            o.push_str(&format!("(0x{:08x})", t.reqid));
        }
        o.push_str(" mode ");
        match t.mode {
            0 => o.push_str("transport"),
            1 => o.push_str("tunnel"),
            2 => o.push_str("ro"),
            3 => o.push_str("in_trigger"),
            4 => o.push_str("beet"),
            m => o.push_str(&m.to_string()),
        }
        o.push_str(sl);
        if po.stats > 0 || t.optional != 0 {
            o.push_str("\t\t");
            match t.optional {
                0 => {
                    if po.stats > 0 {
                        o.push_str("level required ");
                    }
                }
                1 => o.push_str("level use "),
                x => o.push_str(&format!("level {x} ")),
            }
            if po.stats > 0 {
                o.push_str(&format!("share {} ", share_text(t.share)));
            }
            o.push_str(sl);
        }
        if po.stats > 0 {
            o.push_str(&format!(
                "\t\tenc-mask {:08x} auth-mask {:08x} comp-mask {:08x}{sl}",
                t.ealgos, t.aalgos, t.calgos
            ));
        }
    }
    if p.if_id != 0 {
        o.push_str(&format!("\tif_id {}{sl}", hash_x(p.if_id)));
    }
    if po.oneline {
        o.push('\n');
    }
    o
}

fn share_text(s: u8) -> String {
    match s {
        0 => "any".into(),
        1 => "session".into(),
        2 => "user".into(),
        3 => "unique".into(),
        x => x.to_string(),
    }
}

/// `xfrm_addr_match`: the first `bits` bits equal.
fn addr_match(a: &[u8; 16], b: &[u8; 16], bits: u8) -> bool {
    let bits = usize::from(bits).min(128);
    let bytes = bits / 8;
    if a[..bytes] != b[..bytes] {
        return false;
    }
    let rem = bits % 8;
    if rem == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rem);
    (a[bytes] ^ b[bytes]) & mask == 0
}

/// `xfrm_policy_filter_match`.
fn filter_match(f: &Filter, fam: u16, p: &Policy) -> bool {
    if fam != 0 && fam != p.sel.family {
        return false;
    }
    if f.dir.is_some_and(|d| d != p.dir) {
        return false;
    }
    if f.nosock && p.dir >= xfrm::DIR_MAX {
        return false;
    }
    if f.ptype.is_some_and(|t| t != p.ptype) {
        return false;
    }
    if f.src_mask != 0 && !addr_match(&p.sel.saddr, &f.sel.saddr, f.src_mask) {
        return false;
    }
    if f.dst_mask != 0 && !addr_match(&p.sel.daddr, &f.sel.daddr, f.dst_mask) {
        return false;
    }
    if f.dev_mask && p.sel.ifindex != f.sel.ifindex {
        return false;
    }
    if f.proto_mask && p.sel.proto != f.sel.proto {
        return false;
    }
    if f.sport_mask && p.sel.sport != f.sel.sport {
        return false;
    }
    if f.dport_mask && p.sel.dport != f.sel.dport {
        return false;
    }
    if f.index.is_some_and(|i| i != p.index) {
        return false;
    }
    if f.action.is_some_and(|x| x != p.action) {
        return false;
    }
    if f.priority.is_some_and(|x| x != p.priority) {
        return false;
    }
    if f.flags.is_some_and(|x| x & p.flags == 0) {
        return false;
    }
    true
}

/// `xfrm_policy_list_or_deleteall`.
fn policy_list(ns: &mut Netns, opts: &Opts, a: &[String], deleteall: bool) -> Res<Outcome> {
    let fam0 = opt_family(opts);
    let mut cx = Ctx {
        ns,
        fam: fam0,
        filter: Filter::default(),
    };
    let use_filter = !a.is_empty() || fam0 != 0;
    let mut filter_fam = fam0;
    let mut c = Cur::new(a);
    let mut selp = false;
    let mut sel = Selector::default();
    while c.more() {
        let w = c.w();
        match w {
            "dir" => cx.filter.dir = Some(dir_parse(c.next()?)?),
            "index" => {
                let v = c.next()?;
                cx.filter.index =
                    Some(get_u32(v, 0).ok_or_else(|| invarg("INDEX value is invalid", v))?);
            }
            "ptype" => cx.filter.ptype = Some(ptype_parse(c.next()?)?),
            "action" => cx.filter.action = Some(action_parse(c.next()?)?),
            "priority" => {
                let v = c.next()?;
                cx.filter.priority =
                    Some(get_u32(v, 0).ok_or_else(|| invarg("PRIORITY value is invalid", v))?);
            }
            "flag" => {
                c.next()?;
                let mut fl = cx.filter.flags.unwrap_or(0);
                flag_parse(&mut c, &mut fl)?;
                cx.filter.flags = Some(fl);
            }
            "nosock" => cx.filter.nosock = true,
            _ => {
                if selp {
                    return Err(invarg("unknown", w));
                }
                selp = true;
                sel.family = filter_fam;
                cx.selector(&mut c, &mut sel)?;
                filter_fam = sel.family;
                if cx.fam == 0 {
                    cx.fam = sel.family;
                }
            }
        }
        c.i += 1;
    }
    let mut f = std::mem::take(&mut cx.filter);
    f.sel = sel;
    let po = PrintOpts::new(opts, cx.fam);
    let matching = |ns: &Netns| -> Vec<Policy> {
        ns.xfrm()
            .policies()
            .iter()
            .filter(|p| !use_filter || filter_match(&f, filter_fam, p))
            .cloned()
            .collect()
    };
    if !deleteall {
        let mut out = String::new();
        for p in matching(ns) {
            out.push_str(&policy_text(ns, &p, &po));
        }
        return Ok(Outcome::Ok(out));
    }
    // rounds of delete requests, each as many as fit iproute2's 8 KiB buffer
    loop {
        let all = matching(ns);
        if all.is_empty() {
            break;
        }
        let mut used = 0usize;
        let mut failed = None;
        for p in &all {
            let len = 80
                + if p.mark.0 | p.mark.1 != 0 { 16 } else { 0 }
                + if p.if_id != 0 { 8 } else { 0 };
            if used + len > 8192 {
                continue;
            }
            used += len;
            // the delete request carries no policy type: the kernel looks for a main one
            let id = PolicyId {
                sel: p.sel,
                index: p.index,
                dir: p.dir,
                ptype: xfrm::TYPE_MAIN,
                mark: p.mark,
                if_id: p.if_id,
            };
            if let Err(e) = ns.xfrm_mut().lookup(&id, true) {
                failed.get_or_insert(e.errno);
            }
        }
        if let Some(e) = failed {
            return Err(Failure {
                stdout: String::new(),
                errno: Some(e),
                stderr: format!("Failed to send delete-all request: {}\n", e.strerror()),
                status: 1,
                exits: true,
            });
        }
    }
    Ok(Outcome::Ok(String::new()))
}

/// `xfrm_policy_flush`.
fn policy_flush(ns: &mut Netns, a: &[String]) -> Res<Outcome> {
    let mut c = Cur::new(a);
    let mut ptype = None;
    while c.more() {
        let w = c.w();
        if w == "ptype" {
            if ptype.is_some() {
                return Err(duparg("ptype", w));
            }
            ptype = Some(ptype_parse(c.next()?)?);
        } else {
            return Err(invarg("unknown", w));
        }
        c.i += 1;
    }
    ns.xfrm_mut()
        .flush(ptype.unwrap_or(xfrm::TYPE_MAIN))
        .map_err(kernel)?;
    Ok(Outcome::Ok(String::new()))
}

/// `xfrm_spd_getinfo` / `print_spdinfo`.
fn spd_count(ns: &Netns, opts: &Opts) -> String {
    let sl = if opts.oneline { "\\" } else { "\n" };
    let c = ns.xfrm().counts();
    let mut o = format!("\t SPD IN  {} OUT {} FWD {}", c[0], c[1], c[2]);
    if opts.stats > 0 {
        o.push_str(" (Sock: IN 0 OUT 0 FWD 0)");
    }
    o.push_str(sl);
    if opts.stats > 1 {
        let x = ns.xfrm();
        o.push_str(&format!(
            "\t SPD buckets: count {} Max 1048576{sl}",
            x.idx_hmask()
        ));
        o.push_str(&format!(
            "\t SPD IPv4 thresholds: local {} remote {}{sl}",
            x.hthresh4.0, x.hthresh4.1
        ));
        o.push_str(&format!(
            "\t SPD IPv6 thresholds: local {} remote {}{sl}",
            x.hthresh6.0, x.hthresh6.1
        ));
    }
    if opts.oneline {
        o.push('\n');
    }
    o
}

/// `xfrm_spd_setinfo`.
fn spd_set(ns: &mut Netns, a: &[String]) -> Res<Outcome> {
    let mut c = Cur::new(a);
    let (mut t4, mut t6) = (None, None);
    while c.more() {
        let w = c.w();
        let (slot, max, name) = match w {
            "hthresh4" => (&mut t4, 32u8, "hthresh4"),
            "hthresh6" => (&mut t6, 128u8, "hthresh6"),
            _ => return Err(invarg("unknown", w)),
        };
        if slot.is_some() {
            return Err(duparg(name, w));
        }
        let l = c.next()?;
        let lb = get_u8(l, 0)
            .filter(|v| *v <= max)
            .ok_or_else(|| invarg(&format!("{name} LBITS value is invalid"), l))?;
        let r = c.next()?;
        let rb = get_u8(r, 0)
            .filter(|v| *v <= max)
            .ok_or_else(|| invarg(&format!("{name} RBITS value is invalid"), r))?;
        *slot = Some((lb, rb));
        c.i += 1;
    }
    let x = ns.xfrm_mut();
    if let Some(t) = t4 {
        x.hthresh4 = t;
    }
    if let Some(t) = t6 {
        x.hthresh6 = t;
    }
    Ok(Outcome::Ok(String::new()))
}

/// `xfrm_spd_setdefault`.
fn set_default(ns: &mut Netns, a: &[String]) -> Res<Outcome> {
    let mut c = Cur::new(a);
    // in, fwd, out as the request carries them
    let mut up = [0u8; 3];
    while c.more() {
        let w = c.w();
        let i = match w {
            "in" => 0,
            "fwd" => 1,
            "out" => 2,
            _ => return Err(invarg("unknown direction", w)),
        };
        if up[i] != 0 {
            return Err(duparg(w, w));
        }
        let v = c.next()?;
        up[i] = match v {
            "block" => xfrm::USERPOLICY_BLOCK,
            "accept" => xfrm::USERPOLICY_ACCEPT,
            _ => return Err(invarg(&format!("{w} policy value is invalid"), v)),
        };
        c.i += 1;
    }
    ns.xfrm_mut().set_defaults(up);
    Ok(Outcome::Ok(String::new()))
}

// ------------------------------------------------------------------ state

fn state_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return state_list(ns, opts, &[]);
    };
    let rest = &a[1..];
    if matches(cmd, "add") || matches(cmd, "update") {
        state_modify(ns, opts, rest)
    } else if matches(cmd, "allocspi") {
        state_allocspi_check(ns, opts, rest)?;
        // the kernel makes a larval state with a random SPI, which no model can
        // reproduce
        Err(Failure::parse(
            "ip xfrm state allocspi: fib does not model SA allocation (the kernel picks a random SPI)\n",
            255,
        ))
    } else if matches(cmd, "delete") || matches(cmd, "get") {
        state_get_or_delete(ns, opts, rest)
    } else if matches(cmd, "deleteall")
        || matches(cmd, "delall")
        || matches(cmd, "list")
        || matches(cmd, "show")
        || matches(cmd, "lst")
    {
        // `deleteall` finds nothing to delete, `list` nothing to print
        state_list(ns, opts, rest)
    } else if matches(cmd, "flush") {
        let mut c = Cur::new(rest);
        let mut protop = false;
        while c.more() {
            let w = c.w();
            if w == "proto" {
                once(&mut protop, "proto", w)?;
                let v = c.next()?;
                if !XFRM_PROTOS.iter().any(|(n, _)| *n == v) {
                    return Err(invarg("XFRM-PROTO value is invalid", v));
                }
            } else {
                return Err(invarg("unknown", w));
            }
            c.i += 1;
        }
        Ok(Outcome::Ok(String::new()))
    } else if matches(cmd, "count") {
        let mut o = "\t SAD count 0".to_string();
        if opts.stats > 0 {
            o.push_str(" (buckets count 8 Max 1048576)");
        }
        o.push('\n');
        Ok(Outcome::Ok(o))
    } else if matches(cmd, "help") {
        Err(Failure::parse(STATE_USAGE, 255))
    } else {
        Err(Failure::parse(
            format!("Command \"{cmd}\" is unknown, try \"ip xfrm state help\".\n"),
            255,
        ))
    }
}

/// `xfrm_state_allocspi`'s parsing and checks, then the kernel's `verify_spi_info`
/// (only AH, ESP and IPcomp, whose SPI is 16 bits). What passes both makes a larval
/// state, which fibkit does not model.
fn state_allocspi_check(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<()> {
    let mut cx = Ctx {
        ns,
        fam: opt_family(opts),
        filter: Filter::default(),
    };
    let mut c = Cur::new(a);
    let mut t = Template::default();
    let mut idp = false;
    let (mut min, mut max) = (None::<u32>, None::<u32>);
    while c.more() {
        let w = c.w();
        match w {
            "mode" => {
                mode_parse(c.next()?)?;
            }
            "mark" => {
                mark_parse(&mut c)?;
            }
            "reqid" => {
                let v = c.next()?;
                get_u32(v, 0).ok_or_else(|| invarg("REQID value is invalid", v))?;
            }
            "seq" => {
                let v = c.next()?;
                get_u32(v, 0).ok_or_else(|| invarg("SEQ value is invalid", v))?;
            }
            "min" | "max" => {
                let slot = if w == "min" { &mut min } else { &mut max };
                if slot.is_some() {
                    return Err(duparg(w, w));
                }
                let v = c.next()?;
                *slot = Some(
                    get_u32(v, 0)
                        .ok_or_else(|| invarg(&format!("value after \"{w}\" is invalid"), v))?,
                );
            }
            _ => {
                if idp {
                    return Err(invarg("unknown", w));
                }
                idp = true;
                t.family = cx.fam;
                cx.id(&mut c, &mut t, false)?;
                if t.spi != 0 {
                    return Err(exit1("\"spi\" is invalid\n".into()));
                }
                if cx.fam == 0 {
                    cx.fam = t.family;
                }
            }
        }
        c.i += 1;
    }
    if !idp {
        return Err(exit1("Not enough information: ID is required\n".into()));
    }
    let (_, hi) = match (min, max) {
        (Some(lo), Some(hi)) => {
            if lo > hi {
                return Err(exit1(
                    "value after \"min\" is larger than value after \"max\"\n".into(),
                ));
            }
            (lo, hi)
        }
        (Some(_), None) => return Err(exit1("\"max\" is missing\n".into())),
        (None, Some(_)) => return Err(exit1("\"min\" is missing\n".into())),
        (None, None) if t.proto == IPPROTO_COMP => (0x100, 0xffff),
        (None, None) => (0x100, 0x0fff_ffff),
    };
    let refuse = |msg: &str| Failure {
        stdout: String::new(),
        errno: Some(Errno::EINVAL),
        stderr: format!("Error: {msg}.\n"),
        status: 2,
        exits: true,
    };
    match t.proto {
        IPPROTO_ESP | IPPROTO_AH => Ok(()),
        IPPROTO_COMP if hi >= 0x10000 => Err(refuse("IPCOMP SPI must be <= 65535")),
        IPPROTO_COMP => Ok(()),
        _ => Err(refuse("Invalid protocol, must be one of AH, ESP, IPCOMP")),
    }
}

/// `xfrm_state_flag_parse`.
fn state_flag_parse(c: &mut Cur<'_>, flags: &mut u8) -> Res<()> {
    let w = c.w();
    if w.len() > 2 && w.starts_with("0x") {
        *flags = get_u8(w, 16).ok_or_else(|| invarg("FLAG value is invalid", w))?;
        return Ok(());
    }
    const NAMES: [&str; 8] = [
        "noecn",
        "decap-dscp",
        "nopmtudisc",
        "wildrecv",
        "icmp",
        "af-unspec",
        "align4",
        "esn",
    ];
    loop {
        match NAMES.iter().position(|n| *n == c.w()) {
            Some(i) => *flags |= 1 << i,
            None => {
                c.prev();
                break;
            }
        }
        if !c.next_ok() {
            break;
        }
        c.next()?;
    }
    Ok(())
}

/// `xfrm_state_list_or_deleteall`: no state exists, so nothing is listed or deleted.
fn state_list(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let mut cx = Ctx {
        ns,
        fam: opt_family(opts),
        filter: Filter::default(),
    };
    let mut c = Cur::new(a);
    let mut idp = false;
    while c.more() {
        let w = c.w();
        match w {
            "nokeys" => {}
            "mode" => {
                mode_parse(c.next()?)?;
            }
            "reqid" => {
                let v = c.next()?;
                get_u32(v, 0).ok_or_else(|| invarg("REQID value is invalid", v))?;
            }
            "flag" => {
                c.next()?;
                let mut f = 0;
                state_flag_parse(&mut c, &mut f)?;
            }
            _ => {
                if idp {
                    return Err(invarg("unknown", w));
                }
                idp = true;
                let mut t = Template::default();
                cx.id(&mut c, &mut t, true)?;
                if cx.fam == 0 {
                    cx.fam = t.family;
                }
            }
        }
        c.i += 1;
    }
    Ok(Outcome::Ok(String::new()))
}

/// `xfrm_state_get_or_delete`: the kernel finds no state (ESRCH).
fn state_get_or_delete(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let mut cx = Ctx {
        ns,
        fam: opt_family(opts),
        filter: Filter::default(),
    };
    let mut c = Cur::new(a);
    let mut idp = false;
    while c.more() {
        let w = c.w();
        if w == "mark" {
            mark_parse(&mut c)?;
        } else {
            if idp {
                return Err(invarg("unknown", w));
            }
            idp = true;
            let mut t = Template::default();
            cx.id(&mut c, &mut t, false)?;
        }
        c.i += 1;
    }
    Err(kernel(fibkit::Error::new(Errno::ESRCH)))
}

/// `xfrm_algo_parse`'s key check.
fn algo_key(key: &str) -> Res<()> {
    const MAX: usize = 512;
    if key.len() > 2 && key.starts_with("0x") {
        let p = &key.as_bytes()[2..];
        if p.len().div_ceil(2) > MAX {
            return Err(invarg("ALGO-KEYMAT value makes buffer overflow\n", key));
        }
        if !p.iter().all(u8::is_ascii_hexdigit) {
            return Err(invarg("ALGO-KEYMAT value is invalid", key));
        }
    } else if key.len() > MAX {
        return Err(invarg("ALGO-KEYMAT value makes buffer overflow\n", key));
    }
    Ok(())
}

/// `xfrm_state_modify`: iproute2's checks, then the kernel's refusal: it has no
/// ESP/AH/IPcomp type (`xfrm_get_type` finds none, EPROTONOSUPPORT).
fn state_modify(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let mut cx = Ctx {
        ns,
        fam: opt_family(opts),
        filter: Filter::default(),
    };
    let mut c = Cur::new(a);
    let mut t = Template::default();
    let mut smode = 0u8;
    let mut flags = 0u8;
    let mut replay_window = 0u32;
    let (mut tfcpad, mut sel_fam) = (false, 0u16);
    let (mut idp, mut coap, mut sctxp) = (false, false, false);
    let (mut ealg, mut aalg, mut aead, mut calg) = (false, false, false, false);
    while c.more() {
        let w = c.w();
        match w {
            "mode" => smode = mode_parse(c.next()?)?,
            "mark" => {
                mark_parse(&mut c)?;
            }
            "reqid" => {
                let v = c.next()?;
                get_u32(v, 0).ok_or_else(|| invarg("REQID value is invalid", v))?;
            }
            "seq" => {
                let v = c.next()?;
                get_u32(v, 0).ok_or_else(|| invarg("SEQ value is invalid", v))?;
            }
            "replay-window" | "replay-seq" | "replay-seq-hi" | "replay-oseq" | "replay-oseq-hi"
            | "if_id" | "tfcpad" => {
                let v = c.next()?;
                let n = get_u32(v, 0)
                    .ok_or_else(|| invarg(&format!("value after \"{w}\" is invalid"), v))?;
                if w == "replay-window" {
                    replay_window = n;
                }
                // iproute2 sends no TFC padding attribute for a zero length
                if w == "tfcpad" {
                    tfcpad = n != 0;
                }
            }
            "flag" => {
                c.next()?;
                state_flag_parse(&mut c, &mut flags)?;
            }
            "extra-flag" => {
                let v = c.next()?;
                if v.len() > 2 && v.starts_with("0x") {
                    get_u32(v, 16).ok_or_else(|| invarg("\"EXTRA-FLAG\" is invalid", v))?;
                } else {
                    loop {
                        if !matches!(c.w(), "dont-encap-dscp" | "oseq-may-wrap") {
                            c.prev();
                            break;
                        }
                        if !c.next_ok() {
                            break;
                        }
                        c.next()?;
                    }
                }
            }
            "sel" => {
                c.next()?;
                cx.fam = 0;
                let mut s = Selector::default();
                cx.selector(&mut c, &mut s)?;
                cx.fam = s.family;
                sel_fam = s.family;
            }
            "limit" => {
                c.next()?;
                let mut l = LifetimeCfg::default();
                limit_parse(&mut c, &mut l)?;
            }
            "encap" => {
                let v = c.next()?;
                if !matches!(v, "espinudp-nonike" | "espinudp" | "espintcp") {
                    return Err(invarg("ENCAP-TYPE value is invalid", v));
                }
                let v = c.next()?;
                get_u16(v).ok_or_else(|| invarg("SPORT value after \"encap\" is invalid", v))?;
                let v = c.next()?;
                get_u16(v).ok_or_else(|| invarg("DPORT value after \"encap\" is invalid", v))?;
                let v = c.next()?;
                if crate::names::parse_addr(v, None).is_none() {
                    return Err(exit1(format!(
                        "Error: any valid address is expected rather than \"{v}\".\n"
                    )));
                }
            }
            "coa" => {
                once(&mut coap, "coa", w)?;
                let v = c.next()?;
                let (f, _, _) = get_prefix(v, cx.fam)?;
                if f == 0 {
                    return Err(invarg(
                        "value after \"coa\" has an unrecognized address family",
                        v,
                    ));
                }
            }
            "ctx" => {
                once(&mut sctxp, "ctx", w)?;
                c.next()?;
            }
            "offload" => {
                // iproute2 6.1: an optional `dev NAME`, then `dir in|out` is required
                let mut v = c.next()?;
                if v == "dev" {
                    let d = c.next()?;
                    if ll_index(cx.ns, d).is_none() {
                        return Err(invarg("value after \"offload dev\" is invalid", d));
                    }
                    v = c.next()?;
                }
                if v != "dir" {
                    return Err(invarg("value after \"offload dir\" is invalid", v));
                }
                let d = c.next()?;
                if !matches!(d, "in" | "out") {
                    return Err(invarg("DIR value is invalid", d));
                }
            }
            "output-mark" => {
                let v = c.next()?;
                get_u32(v, 0).ok_or_else(|| invarg("value after \"output-mark\" is invalid", v))?;
                if c.argc() > 1 {
                    if c.next()? == "mask" {
                        let m = c.next()?;
                        get_u32(m, 0).ok_or_else(|| invarg("mask value is invalid\n", m))?;
                    } else {
                        c.prev();
                    }
                }
            }
            "enc" | "auth" | "comp" | "aead" | "auth-trunc" => {
                let dup = match w {
                    "aead" => ealg || aalg || aead,
                    "enc" => ealg || aead,
                    "auth" | "auth-trunc" => aalg || aead,
                    _ => calg,
                };
                if dup {
                    return Err(duparg("ALGO-TYPE", w));
                }
                match w {
                    "aead" => aead = true,
                    "enc" => ealg = true,
                    "auth" | "auth-trunc" => aalg = true,
                    _ => calg = true,
                }
                if !c.next_ok() {
                    return Err(missarg("ALGO-NAME"));
                }
                c.next()?;
                let mut key = "";
                if w != "comp" {
                    if !c.next_ok() {
                        return Err(missarg("ALGO-KEYMAT"));
                    }
                    key = c.next()?;
                }
                if w == "aead" || w == "auth-trunc" {
                    let what = if w == "aead" {
                        "ALGO-ICV-LEN"
                    } else {
                        "ALGO-TRUNC-LEN"
                    };
                    if !c.next_ok() {
                        return Err(missarg(what));
                    }
                    let v = c.next()?;
                    get_u32(v, 0).ok_or_else(|| invarg(&format!("{what} value is invalid"), v))?;
                }
                algo_key(key)?;
            }
            _ => {
                if idp {
                    return Err(invarg("unknown", w));
                }
                idp = true;
                t.family = cx.fam;
                cx.id(&mut c, &mut t, false)?;
                if cx.fam == 0 {
                    cx.fam = t.family;
                }
            }
        }
        c.i += 1;
    }
    if flags & 0x80 != 0 && replay_window == 0 {
        return Err(Failure::parse(
            "Error: esn flag set without replay-window.\n",
            255,
        ));
    }
    if replay_window > 4096 {
        return Err(Failure::parse(
            format!("Error: replay-window ({replay_window}) > XFRMA_REPLAY_ESN_MAX (4096).\n"),
            255,
        ));
    }
    if !idp {
        return Err(exit1("Not enough information: ID is required\n".into()));
    }
    let proto = t.proto;
    let pn = strxf_xfrmproto(proto);
    if matches!(proto, IPPROTO_ESP | IPPROTO_AH | IPPROTO_COMP) {
        let mode_ok = matches!(smode, xfrm::mode::TRANSPORT | xfrm::mode::TUNNEL)
            || (smode == xfrm::mode::BEET && proto == IPPROTO_ESP);
        if !mode_ok {
            return Err(exit1(format!(
                "MODE value is invalid with XFRM-PROTO value \"{pn}\"\n"
            )));
        }
        match proto {
            IPPROTO_ESP => {
                if calg {
                    return Err(exit1(format!(
                        "ALGO-TYPE value \"comp\" is invalid with XFRM-PROTO value \"{pn}\"\n"
                    )));
                }
                if !ealg && !aead {
                    return Err(exit1(format!(
                        "ALGO-TYPE value \"enc\" or \"aead\" is required with XFRM-PROTO value \"{pn}\"\n"
                    )));
                }
            }
            IPPROTO_AH => {
                if ealg || aead || calg {
                    return Err(exit1(format!(
                        "ALGO-TYPE values \"enc\", \"aead\", and \"comp\" are invalid with XFRM-PROTO value \"{pn}\"\n"
                    )));
                }
                if !aalg {
                    return Err(exit1(format!(
                        "ALGO-TYPE value \"auth\" or \"auth-trunc\" is required with XFRM-PROTO value \"{pn}\"\n"
                    )));
                }
            }
            _ => {
                if ealg || aalg || aead {
                    return Err(exit1(format!(
                        "ALGO-TYPE values \"enc\", \"auth\", \"auth-trunc\", and \"aead\" are invalid with XFRM-PROTO value \"{pn}\"\n"
                    )));
                }
                if !calg {
                    return Err(exit1(format!(
                        "ALGO-TYPE value \"comp\" is required with XFRM-PROTO value \"{pn}\"\n"
                    )));
                }
            }
        }
    } else if ealg || aalg || aead || calg {
        return Err(exit1(format!(
            "ALGO is invalid with XFRM-PROTO value \"{pn}\"\n"
        )));
    }
    if matches!(proto, IPPROTO_ROUTING | IPPROTO_DSTOPTS) {
        match smode {
            xfrm::mode::RO | xfrm::mode::IN_TRIGGER => {}
            0 => {
                return Err(exit1(format!(
                    "\"mode\" is required with XFRM-PROTO value \"{pn}\"\n"
                )))
            }
            _ => {
                return Err(exit1(format!(
                    "MODE value is invalid with XFRM-PROTO value \"{pn}\"\n"
                )))
            }
        }
        if !coap {
            return Err(exit1(format!(
                "\"coa\" is required with XFRM-PROTO value \"{pn}\"\n"
            )));
        }
    } else if coap {
        return Err(exit1(format!(
            "\"coa\" is invalid with XFRM-PROTO value \"{pn}\"\n"
        )));
    }
    // The kernel's own checks before the type lookup: `verify_newsa_info` (a TFC
    // padding length only on an ESP tunnel, the modes it accepts), then
    // `__xfrm_init_state` (a selector's family needs that family's mode table, and only
    // the tunnel-like modes may carry another family than the state's).
    let refuse = |errno: Errno, msg: &str| Failure {
        stdout: String::new(),
        errno: Some(errno),
        stderr: format!("Error: {msg}.\n"),
        status: 2,
        exits: true,
    };
    if tfcpad {
        match proto {
            IPPROTO_AH => {
                return Err(refuse(
                    Errno::EINVAL,
                    "Invalid attributes for AH: AEAD, CRYPT, COMP, TFCPAD",
                ))
            }
            IPPROTO_COMP => {
                return Err(refuse(
                    Errno::EINVAL,
                    "Invalid attributes for COMP: AEAD, AUTH, AUTH_TRUNC, CRYPT, TFCPAD",
                ))
            }
            IPPROTO_ESP if smode != xfrm::mode::TUNNEL => {
                return Err(refuse(
                    Errno::EINVAL,
                    "TFC padding can only be used in tunnel mode",
                ))
            }
            _ => {}
        }
    }
    if !matches!(
        smode,
        xfrm::mode::TRANSPORT | xfrm::mode::TUNNEL | xfrm::mode::RO | xfrm::mode::BEET
    ) {
        return Err(refuse(Errno::EINVAL, "Unsupported mode"));
    }
    let fam = if t.family == 0 { AF_INET } else { t.family };
    if sel_fam != 0 {
        if smode == xfrm::mode::RO && sel_fam != AF_INET6 {
            return Err(refuse(Errno::EPROTONOSUPPORT, "Requested mode not found"));
        }
        if smode == xfrm::mode::TRANSPORT && sel_fam != fam {
            return Err(refuse(
                Errno::EPROTONOSUPPORT,
                "Only tunnel modes can accommodate a change of family",
            ));
        }
    }
    // This kernel has no xfrm type for any protocol: `__xfrm_init_state` fails with
    // EPROTONOSUPPORT
    Err(Failure {
        stdout: String::new(),
        errno: Some(Errno::EPROTONOSUPPORT),
        stderr: "Error: Requested type not found.\n".into(),
        status: 2,
        exits: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(strxf_time(0), "-");
        assert_eq!(strxf_time(86_400 * 365 + 3661), "1971-01-01 01:01:01");
        assert_eq!(strxf_time(951_782_400), "2000-02-29 00:00:00");
    }

    #[test]
    fn prefix_bits() {
        let a = [10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut b = a;
        b[1] = 0x80;
        assert!(addr_match(&a, &b, 8));
        assert!(!addr_match(&a, &b, 9));
        assert!(addr_match(&a, &b, 0));
    }
}
