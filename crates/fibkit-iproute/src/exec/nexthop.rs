//! `ip nexthop`: iproute2's ipnexthop.c over fibkit's nexthop objects.

use fibkit::nexthop::{Nexthop, NexthopCfg, NexthopKind};
use fibkit::prefix::Family;
use fibkit::route::{scope, Gateway};
use fibkit::{Errno, Netns};

use super::{bad_addr, invarg, matches, Args, Failure, Opts, Outcome, Res};
use crate::names::{parse_addr, parse_u32, proto_a2n, proto_n2a, scope_n2a, Addr, AltFamily};

/// `ip nexthop ...` (the words after `nexthop`).
pub(super) fn nexthop_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return nh_list(ns, opts, &[]);
    };
    let rest = &a[1..];
    if matches(cmd, "add") {
        return nh_modify(ns, opts, rest, Verb::Add);
    }
    if matches(cmd, "replace") {
        return nh_modify(ns, opts, rest, Verb::Replace);
    }
    if matches(cmd, "delete") {
        return nh_modify(ns, opts, rest, Verb::Delete);
    }
    if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        return nh_list(ns, opts, rest);
    }
    if matches(cmd, "get") {
        return nh_get(ns, opts, rest);
    }
    if matches(cmd, "flush") {
        return nh_flush(ns, opts, rest);
    }
    if matches(cmd, "bucket") {
        return bucket_cmd(ns, opts, rest);
    }
    if matches(cmd, "help") {
        return Err(usage());
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip nexthop help\".\n"),
        255,
    ))
}

fn usage() -> Failure {
    Failure::parse(
        "Usage: ip nexthop { list | flush } [ protocol ID ] SELECTOR
       ip nexthop { add | replace } id ID NH [ protocol ID ]
       ip nexthop { get | del } id ID
       ip nexthop bucket list BUCKET_SELECTOR
       ip nexthop bucket get id ID index INDEX
SELECTOR := [ id ID ] [ dev DEV ] [ vrf NAME ] [ master DEV ]
            [ groups ] [ fdb ]
BUCKET_SELECTOR := SELECTOR | [ nhid ID ]
NH := { blackhole | [ via ADDRESS ] [ dev DEV ] [ onlink ]
        [ encap ENCAPTYPE ENCAPHDR ] |
        group GROUP [ fdb ] [ type TYPE [ TYPE_ARGS ] ] }
GROUP := [ <id[,weight]>/<id[,weight]>/... ]
TYPE := { mpath | resilient }
TYPE_ARGS := [ RESILIENT_ARGS ]
RESILIENT_ARGS := [ buckets BUCKETS ] [ idle_timer IDLE ]
                  [ unbalanced_timer UNBALANCED ]
ENCAPTYPE := [ mpls ]
ENCAPHDR := [ MPLSLABEL ]
",
        255,
    )
}

/// iproute2's "Device does not exist" (the name is resolved by asking the kernel).
fn no_device(name: &str) -> Failure {
    let mut f = invarg("Device does not exist\n", name);
    f.errno = Some(crate::show::lookup_errno(name));
    f
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verb {
    Add,
    Replace,
    Delete,
}

/// `get_unsigned`: strtoul with base 0, the whole word, at most 2^32-1.
fn get_unsigned(s: &str) -> Option<u32> {
    parse_u32(s)
}

/// `add_nh_group_attr`'s parse of `id[,weight]/...`.
fn parse_group(g: &str) -> Res<Vec<(u32, u32)>> {
    let mut out = Vec::new();
    for part in g.split('/') {
        let (id, w) = match part.split_once(',') {
            Some((i, w)) => (i, Some(w)),
            None => (part, None),
        };
        // iproute2 cuts the string in place: the error names the text up to the
        // first separator
        let shown = g.split(['/', ',']).next().unwrap_or(g);
        let Some(id) = get_unsigned(id).filter(|_| !id.is_empty()) else {
            return Err(invarg("\"group\" value is invalid\n", shown));
        };
        let weight = match w {
            None => 1,
            Some(w) => match get_unsigned(w) {
                Some(x) if (1..=256).contains(&x) => x,
                _ => return Err(invarg("\"weight\" is invalid\n", w)),
            },
        };
        out.push((id, weight));
    }
    Ok(out)
}

/// iproute2's request for `ipnh_modify`: a header and attributes in a buffer of 1048
/// bytes. An attribute that does not fit is left out with a complaint on stderr
/// (`addattr_l`), which only the group's refusal stops at (its caller checks).
struct NhRequest {
    len: usize,
    complaints: String,
}

impl NhRequest {
    const BOUND: usize = 1048;

    fn new() -> NhRequest {
        // NLMSG_LENGTH(sizeof(struct nhmsg))
        NhRequest {
            len: 24,
            complaints: String::new(),
        }
    }

    /// `addraw_l` of `len` bytes of attributes, against its own bound of 1024.
    fn add_raw(&mut self, len: usize) -> bool {
        let align = |x: usize| (x + 3) & !3;
        let need = align(self.len) + align(len);
        if need > 1024 {
            self.complaints
                .push_str("addraw_l ERROR: message exceeded bound of 1024\n");
            return false;
        }
        self.len = need;
        true
    }

    /// `addattr_l` of an attribute with `payload` bytes: whether it went in.
    fn add(&mut self, payload: usize) -> bool {
        let align = |x: usize| (x + 3) & !3;
        let need = align(self.len) + align(4 + payload);
        if need > Self::BOUND {
            self.complaints.push_str(&format!(
                "addattr_l ERROR: message exceeded bound of {}\n",
                Self::BOUND
            ));
            return false;
        }
        self.len = need;
        true
    }
}

/// The payload of a gateway read in another family (`via link|mpls|bridge`): a link
/// address's bytes, an MPLS stack's four per label, none for an address of no length.
fn other_family_len(word: &str, v: &str) -> usize {
    if matches!(v, "default" | "any" | "all") {
        return 0;
    }
    match word {
        "link" if v.contains('.') => 4,
        "link" => v.split(':').count(),
        "mpls" => 4 * v.split('/').count(),
        _ => 0,
    }
}

/// The bytes an `encap ip|ip6 ...` adds to the request (`NHA_ENCAP` with the tunnel
/// attributes the words gave, then `NHA_ENCAP_TYPE`); `None` for the other types.
fn encap_payload(words: &[String]) -> Option<usize> {
    let (kind, rest) = words.split_first()?;
    let addr = match kind.as_str() {
        "ip" => 4,
        "ip6" => 16,
        _ => return None,
    };
    let (mut size, mut flags) = (0, false);
    let mut w = rest.iter();
    while let Some(k) = w.next() {
        size += match k.as_str() {
            "id" => 12,
            "dst" | "src" => 4 + addr,
            "tos" | "ttl" | "tc" | "hoplimit" => 8,
            "key" | "csum" | "seq" => {
                flags = true;
                continue;
            }
            _ => return None,
        };
        w.next();
    }
    if flags {
        size += 8;
    }
    Some(4 + size + 8)
}

/// `ipnh_modify`: add, replace and delete share one parser.
fn nh_modify(ns: &mut Netns, opts: &Opts, a: &[String], verb: Verb) -> Res<Outcome> {
    let mut req = NhRequest::new();
    nh_modify_req(ns, opts, a, verb, &mut req).map_err(|mut f| {
        // what addattr_l printed comes first
        f.stderr.insert_str(0, &req.complaints);
        f
    })
}

fn nh_modify_req(
    ns: &mut Netns,
    opts: &Opts,
    a: &[String],
    verb: Verb,
    req: &mut NhRequest,
) -> Res<Outcome> {
    let mut cfg = NexthopCfg {
        family: opts.family,
        ..Default::default()
    };
    let mut id: Option<u32> = None;
    let mut attrs = false;
    // the header's family when it is none of a nexthop's (`-0`, or a gateway's)
    let mut other: Option<&str> = opts.alt.map(|f| match f {
        AltFamily::Packet => "link",
        AltFamily::Mpls => "mpls",
        AltFamily::Bridge => "bridge",
    });
    let mut it = Args::new(a);
    while let Some(k) = it.next() {
        match k {
            "id" => {
                let v = it.val()?;
                let x = get_unsigned(v).ok_or_else(|| invarg("invalid id value", v))?;
                if req.add(4) {
                    id = Some(x);
                }
            }
            "dev" => {
                let v = it.val()?;
                let dev = super::ll_index(ns, v).ok_or_else(|| no_device(v))?;
                if req.add(4) {
                    cfg.dev = dev;
                    attrs = true;
                }
                if cfg.family.is_none() && other.is_none() {
                    cfg.family = Some(Family::V4);
                }
            }
            "via" => {
                let mut v = it.val()?;
                let mut fam = cfg.family;
                let mut gw_other = other;
                let mut explicit = false;
                match v {
                    "inet" | "inet6" => {
                        fam = Some(if v == "inet" { Family::V4 } else { Family::V6 });
                        gw_other = None;
                        explicit = true;
                        v = it.val()?;
                    }
                    // read_family's other words: the address is read in that family
                    "link" | "mpls" | "bridge" => {
                        gw_other = Some(v);
                        v = it.val()?;
                    }
                    _ => {}
                }
                if let Some(word) = gw_other {
                    super::via_other_family(word, v)?;
                    if cfg.family.is_none() && other.is_none() {
                        // the header takes the gateway's family, which no nexthop has
                        other = Some(word);
                    } else if other != Some(word) {
                        // ll_addr_a2n cut the word at its first colon
                        let shown = if word == "link" && !v.contains('.') {
                            v.split(':').next().unwrap_or(v)
                        } else {
                            v
                        };
                        return Err(invarg("address family mismatch\n", shown));
                    }
                    attrs |= req.add(other_family_len(word, v));
                    continue;
                }
                // get_addr: `all` and `any` (and `default` of no family yet) are an
                // address of no length and no family
                // (of two gateways the kernel reads the last)
                if super::addr_of_no_length(v, fam) {
                    if req.add(0) {
                        cfg.gw_empty = true;
                        cfg.gw = None;
                        attrs = true;
                    }
                    continue;
                }
                // get_addr_1: `default` of a known family is its zero address
                let addr = match (v, fam) {
                    ("default", Some(Family::V4)) => Addr::V4(0),
                    ("default", Some(Family::V6)) => Addr::V6(0),
                    _ => parse_addr(v, fam).ok_or_else(|| bad_addr(v, fam))?,
                };
                let af = addr.family();
                if other.is_some() {
                    // an explicit inet or inet6 beside a header of another family
                    return Err(invarg("address family mismatch\n", v));
                }
                match cfg.family {
                    None => cfg.family = Some(af),
                    Some(f) if f != af && explicit => {
                        return Err(invarg("address family mismatch\n", v))
                    }
                    _ => {}
                }
                if req.add(if af == Family::V4 { 4 } else { 16 }) {
                    cfg.gw_empty = false;
                    cfg.gw = Some(match addr {
                        Addr::V4(x) => Gateway::V4(x),
                        Addr::V6(x) => Gateway::V6(x),
                    });
                    attrs = true;
                }
            }
            "blackhole" => {
                if req.add(0) {
                    cfg.blackhole = true;
                    attrs = true;
                }
                if cfg.family.is_none() && other.is_none() {
                    cfg.family = Some(Family::V4);
                }
            }
            "fdb" => {
                if req.add(0) {
                    cfg.fdb = true;
                    attrs = true;
                }
            }
            "onlink" => cfg.onlink = true,
            "group" => {
                let v = it.val()?;
                let g = parse_group(v)?;
                if !req.add(8 * g.len()) {
                    // the caller's check names the word as the parse left it
                    let shown = v.split(['/', ',']).next().unwrap_or(v);
                    return Err(invarg("\"group\" value is invalid\n", shown));
                }
                cfg.group = Some(g);
                attrs = true;
            }
            "type" => {
                let v = it.val()?;
                // the last type that went in counts (a second NHA_GROUP_TYPE)
                let resilient = match v {
                    "mpath" => false,
                    "resilient" => {
                        // parse_nh_group_type_res nests NHA_RES_GROUP when a word
                        // follows
                        if it.peek().is_some() && req.add(0) {
                            cfg.res_group = true;
                            attrs = true;
                            // the kernel reads the last NHA_RES_GROUP alone
                            (cfg.buckets, cfg.idle_timer, cfg.unbalanced_timer) =
                                (None, None, None);
                        }
                        while let Some(w) = it.peek() {
                            // buckets: get_u16; the timers: seconds, sent in
                            // hundredths, so below UINT32_MAX / 100
                            let (msg, max, size) = match w {
                                "buckets" => ("invalid buckets value", u32::from(u16::MAX), 2),
                                "idle_timer" => ("invalid idle timer value", u32::MAX / 100 - 1, 4),
                                "unbalanced_timer" => {
                                    ("invalid unbalanced timer value", u32::MAX / 100 - 1, 4)
                                }
                                _ => break,
                            };
                            it.next();
                            let x = it.val()?;
                            let v = get_unsigned(x)
                                .filter(|&v| v <= max)
                                .ok_or_else(|| invarg(msg, x))?;
                            if !req.add(size) {
                                continue;
                            }
                            match w {
                                "buckets" => cfg.buckets = Some(v as u16),
                                "idle_timer" => cfg.idle_timer = Some(v),
                                _ => cfg.unbalanced_timer = Some(v),
                            }
                        }
                        true
                    }
                    _ => return Err(invarg("\"type\" value is invalid\n", v)),
                };
                if req.add(2) {
                    cfg.resilient = resilient;
                    attrs = true;
                }
            }
            "encap" => {
                let from = it.i;
                let e = super::encap::parse_encap(ns, &mut it)?;
                // lwt_parse_encap builds the attributes aside; addraw_l copies them in
                // against a bound of 1024
                let size = encap_payload(&it.v[from..it.i]);
                if size.is_none_or(|n| req.add_raw(n)) {
                    cfg.encap = Some(e);
                    attrs = true;
                }
            }
            "help" => return Err(usage()),
            w if matches(w, "protocol") => {
                let v = it.val()?;
                cfg.proto =
                    proto_a2n(v).ok_or_else(|| invarg("\"protocol\" value is invalid\n", v))?;
            }
            w => return Err(invarg("", w)),
        }
    }
    // the group type and its parameters are read with a group only (rtm_to_nh_config)
    if cfg.group.is_none() {
        cfg.resilient = false;
        cfg.res_group = false;
        (cfg.buckets, cfg.idle_timer, cfg.unbalanced_timer) = (None, None, None);
    }
    let done = |r: fibkit::Result<()>| {
        r.map(|()| Outcome::Ok(String::new()))
            .map_err(Failure::kernel)
    };
    if verb == Verb::Delete {
        // rtm_del_nexthop: only the id may be sent (the attributes are parsed before
        // the header is checked)
        if attrs {
            return done(Err(fibkit::Error::msg(
                Errno::EINVAL,
                "Unknown attribute type",
            )));
        }
        if cfg.onlink || cfg.proto != 0 {
            return done(Err(fibkit::Error::msg(
                Errno::EINVAL,
                "Invalid values in header",
            )));
        }
        // the notification describes the object as it was
        let echo = opts.echo.then(|| {
            id.and_then(|i| ns.nexthop(i))
                .map(|o| echo_text(ns, opts, o, true))
        });
        ns.nexthop_del(id).map_err(Failure::kernel)?;
        return Ok(Outcome::Ok(echo.flatten().unwrap_or_default()));
    }
    if other.is_some() {
        // rtm_to_nh_config: the family of `-0` or of a gateway in another family
        // (`via link|mpls|bridge`) is none of a nexthop's
        return done(Err(fibkit::Error::msg(
            Errno::EINVAL,
            "Invalid address family",
        )));
    }
    cfg.id = id.unwrap_or(0);
    let id = ns
        .nexthop_new(&cfg, verb == Verb::Replace)
        .map_err(Failure::kernel)?;
    let echo = match ns.nexthop(id) {
        Some(o) if opts.echo => echo_text(ns, opts, o, false),
        _ => String::new(),
    };
    Ok(Outcome::Ok(echo))
}

/// What `ip -echo nexthop add|replace|del` prints: the kernel's notification of the
/// object, as `print_nexthop()` prints it inside an object of its own
/// (`[{{...}}]` in JSON); a deletion's starts with `Deleted `.
fn echo_text(ns: &Netns, opts: &Opts, o: &Nexthop, deleted: bool) -> String {
    if opts.json {
        let mut m = serde_json::Map::new();
        if deleted {
            m.insert("deleted".into(), serde_json::Value::Bool(true));
        }
        if let serde_json::Value::Object(x) = nh_json(ns, o, opts.details) {
            m.extend(x);
        }
        let extra = encap_of(o)
            .map(|e| super::encap::encap_json_members(ns, e))
            .unwrap_or_default();
        let at = if deleted { 2 } else { 1 };
        return crate::show::json_echo_spliced(&(m, at, extra), opts.pretty);
    }
    let head = if deleted { "Deleted " } else { "" };
    format!("{head}{}\n", nh_text(ns, o, opts.details))
}

/// The dump's selector (`ip nexthop list|flush ...`).
#[derive(Default)]
struct Select {
    dev: Option<u32>,
    groups: bool,
    fdb: bool,
    master: bool,
    /// The `master` device's index (`ll_name_to_index`).
    master_idx: u32,
    /// `filter.proto`: any unsigned int, 0 being no filter (print_nexthop and
    /// flush_nexthop compare it only when set; one above 255 matches nothing).
    proto: u32,
    id: Option<u32>,
}

/// `__nh_valid_dump_req`: an index an `ifN` form gives that is not a positive int is
/// refused (`dev` before `master`); `None` when the dump request is taken. The errno
/// is the failed name lookup's (iproute2 asked the kernel for a device `ifN` first).
fn dump_index_refusal(dev: Option<u32>, master: u32) -> Option<&'static str> {
    if dev.is_some_and(|d| d > i32::MAX as u32) {
        Some("Error: Invalid device index.\n")
    } else if master > i32::MAX as u32 {
        Some("Error: Invalid master device index.\n")
    } else {
        None
    }
}

/// A listing's dump refused by [`dump_index_refusal`].
fn dump_refused(text: &str) -> Failure {
    Failure {
        errno: Some(Errno::ENODEV),
        ..Failure::parse(format!("{text}Dump terminated\n"), 2)
    }
}

fn parse_select(ns: &Netns, a: &[String], get_style_id: bool) -> Res<Select> {
    let mut s = Select::default();
    let mut it = Args::new(a);
    while let Some(w) = it.next() {
        if w == "id" {
            let v = it.val()?;
            let x = get_unsigned(v).ok_or_else(|| invarg("invalid id value", v))?;
            s.id = Some(x);
            if get_style_id {
                // `list id N` is `get id N`: the rest is not read
                return Ok(s);
            }
        } else if matches(w, "dev") {
            let v = it.val()?;
            s.dev = Some(super::ll_index(ns, v).ok_or_else(|| no_device(v))?);
        } else if matches(w, "groups") {
            s.groups = true;
        } else if matches(w, "master") {
            let v = it.val()?;
            s.master_idx = super::ll_index(ns, v).ok_or_else(|| no_device(v))?;
            s.master = true;
        } else if matches(w, "vrf") {
            let v = it.val()?;
            return Err(crate::exec::not_vrf(ns, invarg("Invalid VRF\n", v), v));
        } else if matches(w, "protocol") {
            let v = it.val()?;
            s.proto = get_unsigned(v).ok_or_else(|| invarg("invalid protocol value", v))?;
        } else if matches(w, "fdb") {
            s.fdb = true;
        } else if matches(w, "help") {
            // (`matches`: any prefix of it, `h` too)
            return Err(usage());
        } else {
            return Err(invarg("", w));
        }
    }
    Ok(s)
}

/// Whether the dump with selector `s` (and the header family) lists `o`.
fn selected(ns: &Netns, o: &Nexthop, s: &Select, family: Option<Family>) -> bool {
    if s.proto != 0 && s.proto != u32::from(o.proto) {
        return false;
    }
    if s.groups && !o.is_group() {
        return false;
    }
    // (the kernel parses an `fdb` selector but does not apply it: everything is listed)
    device_selected(ns, o, family, s.dev, s.master.then_some(s.master_idx))
}

/// The device part of `nh_dump_filtered`: with a device, master or family filter, no
/// group is listed, and an object's family, device and its device's master (the
/// index, read as an int) must be the filter's.
fn device_selected(
    ns: &Netns,
    o: &Nexthop,
    family: Option<Family>,
    dev: Option<u32>,
    master: Option<u32>,
) -> bool {
    if dev.is_none() && master.is_none() && family.is_none() {
        return true;
    }
    if o.is_group() || family.is_some_and(|f| o.family() != Some(f)) {
        return false;
    }
    // the object's nhc_dev: a blackhole's is the loopback (nexthop_create gives it
    // the namespace's loopback device), an fdb one has none
    let own = match o.kind {
        NexthopKind::Single { dev: 0, .. } => None,
        NexthopKind::Single { dev, .. } => Some(dev),
        NexthopKind::Blackhole { .. } => Some(LOOPBACK_IFINDEX),
        NexthopKind::Group { .. } => None,
    };
    if dev.is_some_and(|d| own != Some(d)) {
        return false;
    }
    match master {
        None => true,
        Some(m) => own
            .and_then(|d| ns.link(d))
            .is_some_and(|l| l.master != 0 && l.master == m),
    }
}

/// The loopback's ifindex (it is made first in every namespace).
const LOOPBACK_IFINDEX: u32 = 1;

fn gw_text(g: Gateway) -> String {
    // print_rta_gateway: format_host (a name with -r)
    match g {
        Gateway::V4(a) => crate::names::host4(a),
        Gateway::V6(a) => crate::names::host6(a),
    }
}

/// One object as `print_nexthop` prints it (each field followed by a space).
pub(crate) fn nh_text(ns: &Netns, o: &Nexthop, details: bool) -> String {
    let mut s = format!("id {} ", o.id);
    let mut nh_scope = scope::UNIVERSE;
    match &o.kind {
        NexthopKind::Group { members } => {
            let parts: Vec<String> = members
                .iter()
                .map(|&(m, w)| {
                    if w > 1 {
                        format!("{m},{w}")
                    } else {
                        m.to_string()
                    }
                })
                .collect();
            s.push_str(&format!("group {} ", parts.join("/")));
            if let Some(t) = &o.res {
                let now = ns.now().saturating_mul(1000);
                s.push_str(&format!(
                    "type resilient buckets {} idle_timer {} unbalanced_timer {} unbalanced_time {} ",
                    t.num_buckets(),
                    secs_g(t.idle_timer_ms()),
                    secs_g(t.unbalanced_timer_ms()),
                    secs_g(t.unbalanced_time_ms(now))
                ));
            }
        }
        NexthopKind::Single {
            gw,
            dev,
            scope: sc,
            encap,
            ..
        } => {
            if let Some(e) = encap {
                s.push_str(&super::encap::encap_text(ns, e));
            }
            if let Some(g) = gw {
                s.push_str(&format!("via {} ", gw_text(*g)));
            }
            if !o.fdb {
                s.push_str(&format!("dev {} ", ns.link_name(*dev)));
            }
            nh_scope = *sc;
        }
        NexthopKind::Blackhole { .. } => {}
    }
    if nh_scope != scope::UNIVERSE || details {
        s.push_str(&format!("scope {} ", scope_n2a(nh_scope)));
    }
    if matches!(o.kind, NexthopKind::Blackhole { .. }) {
        s.push_str("blackhole ");
    }
    if o.proto != 0 || details {
        s.push_str(&format!("proto {} ", proto_n2a(o.proto)));
    }
    if matches!(
        o.kind,
        NexthopKind::Single { onlink: true, .. } | NexthopKind::Blackhole { onlink: true, .. }
    ) {
        s.push_str("onlink ");
    }
    if o.fdb {
        s.push_str("fdb");
    }
    s
}

/// One object as `ip -j nexthop` prints it.
pub(crate) fn nh_json(ns: &Netns, o: &Nexthop, details: bool) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("id".into(), o.id.into());
    let mut nh_scope = scope::UNIVERSE;
    match &o.kind {
        NexthopKind::Group { members } => {
            let g: Vec<serde_json::Value> = members
                .iter()
                .map(|&(id, w)| {
                    let mut e = serde_json::Map::new();
                    e.insert("id".into(), id.into());
                    if w > 1 {
                        e.insert("weight".into(), w.into());
                    }
                    serde_json::Value::Object(e)
                })
                .collect();
            m.insert("group".into(), g.into());
            if let Some(t) = &o.res {
                let now = ns.now().saturating_mul(1000);
                m.insert("type".into(), "resilient".into());
                let mut r = serde_json::Map::new();
                r.insert("buckets".into(), t.num_buckets().into());
                r.insert("idle_timer".into(), secs_json(t.idle_timer_ms()));
                r.insert(
                    "unbalanced_timer".into(),
                    secs_json(t.unbalanced_timer_ms()),
                );
                r.insert(
                    "unbalanced_time".into(),
                    secs_json(t.unbalanced_time_ms(now)),
                );
                m.insert("resilient_args".into(), serde_json::Value::Object(r));
            }
        }
        NexthopKind::Single {
            gw, dev, scope: sc, ..
        } => {
            if let Some(g) = gw {
                m.insert("gateway".into(), gw_text(*g).into());
            }
            if !o.fdb {
                m.insert("dev".into(), ns.link_name(*dev).into());
            }
            nh_scope = *sc;
        }
        NexthopKind::Blackhole { .. } => {}
    }
    if nh_scope != scope::UNIVERSE || details {
        m.insert("scope".into(), scope_n2a(nh_scope).into());
    }
    if matches!(o.kind, NexthopKind::Blackhole { .. }) {
        m.insert("blackhole".into(), serde_json::Value::Null);
    }
    if o.proto != 0 || details {
        m.insert("protocol".into(), proto_n2a(o.proto).into());
    }
    let flags: Vec<serde_json::Value> = if matches!(
        o.kind,
        NexthopKind::Single { onlink: true, .. } | NexthopKind::Blackhole { onlink: true, .. }
    ) {
        vec!["onlink".into()]
    } else {
        Vec::new()
    };
    m.insert("flags".into(), flags.into());
    if o.fdb {
        m.insert("fdb".into(), serde_json::Value::Null);
    }
    serde_json::Value::Object(m)
}

fn render(ns: &Netns, opts: &Opts, list: &[&Nexthop]) -> String {
    if opts.json && list.iter().any(|o| encap_of(o).is_some()) {
        // iproute2's members of an encapsulation follow the id, and repeat keys (`id`,
        // `dst`, `src`), which a JSON map cannot hold
        let objs: Vec<_> = list
            .iter()
            .map(|o| {
                let m = match nh_json(ns, o, opts.details) {
                    serde_json::Value::Object(m) => m,
                    _ => serde_json::Map::new(),
                };
                let extra = encap_of(o)
                    .map(|e| super::encap::encap_json_members(ns, e))
                    .unwrap_or_default();
                (m, 1, extra)
            })
            .collect();
        return crate::show::json_list_spliced(&objs, opts.pretty);
    }
    if opts.json {
        let v: Vec<serde_json::Value> = list.iter().map(|o| nh_json(ns, o, opts.details)).collect();
        return crate::show::json_list(&v, opts.pretty);
    }
    list.iter()
        .map(|o| format!("{}\n", nh_text(ns, o, opts.details)))
        .collect()
}

fn not_found() -> Failure {
    Failure::kernel(fibkit::Error::new(Errno::ENOENT))
}

/// `ip nexthop get id N`.
fn nh_get(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let mut id = None;
    let mut it = Args::new(a);
    while let Some(w) = it.next() {
        if w == "id" {
            let v = it.val()?;
            id = Some(get_unsigned(v).ok_or_else(|| invarg("invalid id value", v))?);
        } else {
            return Err(usage());
        }
    }
    match id {
        None | Some(0) => Err(usage()),
        Some(id) => {
            let o = ns.nexthop(id).ok_or_else(not_found)?;
            Ok(Outcome::Ok(render(ns, opts, &[o])))
        }
    }
}

/// `ip nexthop list|show [SELECTOR]`.
fn nh_list(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let s = parse_select(ns, a, true)?;
    if let Some(id) = s.id {
        if id == 0 {
            return Err(Failure::kernel(fibkit::Error::msg(
                Errno::EINVAL,
                "Invalid nexthop id",
            )));
        }
        let o = ns.nexthop(id).ok_or_else(not_found)?;
        return Ok(Outcome::Ok(render(ns, opts, &[o])));
    }
    if let Some(m) = dump_index_refusal(s.dev, s.master_idx) {
        return Err(dump_refused(m));
    }
    let list: Vec<&Nexthop> = ns
        .nexthops()
        .filter(|o| opts.alt.is_none() && selected(ns, o, &s, opts.family))
        .collect();
    Ok(Outcome::Ok(render(ns, opts, &list)))
}

/// `ip nexthop flush [SELECTOR]`: every group first, then the rest (with a
/// selector, one pass); one delete per object; a count at the end.
fn nh_flush(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let s = parse_select(ns, a, false)?;
    if let Some(id) = s.id {
        return match ns.nexthop_del(Some(id)) {
            Ok(()) => Ok(Outcome::Ok(String::new())),
            Err(e) => {
                let mut f = Failure::kernel(e);
                f.status = 1;
                Err(f)
            }
        };
    }
    if let Some(m) = dump_index_refusal(s.dev, s.master_idx) {
        // ipnh_flush reports the failed dump, then that nothing was flushed
        return Err(Failure {
            stdout: "Nothing to flush\n".to_string(),
            errno: Some(Errno::ENODEV),
            ..Failure::parse(format!("{m}Dump terminated. Failed to flush nexthops\n"), 2)
        });
    }
    let all = a.is_empty() && opts.family.is_none() && opts.alt.is_none();
    let mut passes = Vec::new();
    if all {
        passes.push(Select {
            groups: true,
            ..Default::default()
        });
    }
    passes.push(s);
    let mut count = 0;
    for p in &passes {
        let ids: Vec<u32> = ns
            .nexthops()
            .filter(|o| opts.alt.is_none() && selected(ns, o, p, opts.family))
            .map(|o| o.id)
            .collect();
        for id in ids {
            if ns.nexthop_del(Some(id)).is_ok() {
                count += 1;
            }
        }
    }
    Ok(Outcome::Ok(if count == 0 {
        "Nothing to flush\n".to_string()
    } else {
        format!("Flushed {count} nexthops\n")
    }))
}

/// The dump lines of the scenario runner's `dump nexthops` (iproute2's text).
pub fn nexthop_lines(ns: &Netns) -> Vec<String> {
    ns.nexthops().map(|o| nh_text(ns, o, false)).collect()
}

/// A time in ms as iproute2's `print_tv` shows it: seconds, `%g` of a value kept in
/// hundredths (the kernel's `clock_t`).
fn secs_g(ms: u64) -> String {
    let centis = ms / 10;
    let (whole, frac) = (centis / 100, centis % 100);
    if whole >= 1_000_000 {
        // %g's exponent form, six significant digits
        let v = centis as f64 / 100.0;
        let exp = v.log10().floor() as i32;
        let mant = v / 10f64.powi(exp);
        let m = format!("{mant:.5}");
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e+{exp:02}");
    }
    let digits = whole.to_string().len();
    let decimals = 6usize.saturating_sub(digits).min(2);
    let v = centis as f64 / 100.0;
    let mut t = format!("{v:.decimals$}");
    if frac != 0 && t.contains('.') {
        t = t.trim_end_matches('0').trim_end_matches('.').to_string();
    } else if t.contains('.') {
        t = whole.to_string();
    }
    t
}

/// The same time as `ip -j` shows it: a JSON number of seconds, a double that the
/// JSON writer prints with `%g` (`1.71799e+07`).
fn secs_json(ms: u64) -> serde_json::Value {
    let centis = ms / 10;
    serde_json::Number::from_f64(centis as f64 / 100.0)
        .map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// `ip nexthop bucket ...` (`do_ipnh_bucket`).
fn bucket_cmd(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return bucket_list(ns, opts, &[]);
    };
    let rest = &a[1..];
    if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        return bucket_list(ns, opts, rest);
    }
    if matches(cmd, "get") {
        return bucket_get(ns, opts, rest);
    }
    if matches(cmd, "help") {
        return Err(usage());
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip nexthop help\".\n"),
        255,
    ))
}

/// One bucket as `print_nexthop_bucket` prints it.
fn bucket_text(ns: &Netns, id: u32, t: &fibkit::nhres::ResTable, i: usize) -> String {
    let now = ns.now().saturating_mul(1000);
    format!(
        "id {id} index {i} idle_time {} nhid {} \n",
        secs_g(t.bucket_idle_ms(i, now)),
        t.bucket_nh(i).unwrap_or(0)
    )
}

fn bucket_json(ns: &Netns, id: u32, t: &fibkit::nhres::ResTable, i: usize) -> serde_json::Value {
    let now = ns.now().saturating_mul(1000);
    let mut b = serde_json::Map::new();
    b.insert("index".into(), i.into());
    b.insert("idle_time".into(), secs_json(t.bucket_idle_ms(i, now)));
    b.insert("nhid".into(), t.bucket_nh(i).unwrap_or(0).into());
    let mut m = serde_json::Map::new();
    m.insert("id".into(), id.into());
    m.insert("bucket".into(), serde_json::Value::Object(b));
    m.insert("flags".into(), serde_json::Value::Array(Vec::new()));
    serde_json::Value::Object(m)
}

/// `nexthop_find_group_resilient`: object `id` as a resilient group, or the kernel's
/// refusal.
fn find_resilient(ns: &Netns, id: u32) -> Result<&Nexthop, fibkit::Error> {
    let o = ns.nexthop(id).ok_or(fibkit::Error::new(Errno::ENOENT))?;
    if !o.is_group() {
        return Err(fibkit::Error::msg(Errno::EINVAL, "Not a nexthop group"));
    }
    if o.res.is_none() {
        return Err(fibkit::Error::msg(
            Errno::EINVAL,
            "Nexthop group not of type resilient",
        ));
    }
    Ok(o)
}

/// A bucket dump that the kernel ended with an error.
fn bucket_dump_failed(e: &fibkit::Error) -> Failure {
    let text = e.iproute_text();
    let stderr = match text.strip_prefix("Error: ") {
        Some(_) => format!("{text}\nDump terminated\n"),
        None => "Dump terminated\n".to_string(),
    };
    Failure::parse(stderr, 2)
}

/// `ip nexthop bucket list|show [id ID] [nhid ID] [dev DEV] [master DEV] [vrf NAME]`.
fn bucket_list(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let (mut id, mut nhid, mut dev, mut master) = (0u32, 0u32, None, false);
    let mut master_idx = 0;
    let mut it = Args::new(a);
    while let Some(w) = it.next() {
        if matches(w, "dev") {
            let v = it.val()?;
            dev = Some(super::ll_index(ns, v).ok_or_else(|| no_device(v))?);
        } else if matches(w, "master") {
            let v = it.val()?;
            master_idx = super::ll_index(ns, v).ok_or_else(|| no_device(v))?;
            master = true;
        } else if matches(w, "vrf") {
            let v = it.val()?;
            return Err(crate::exec::not_vrf(ns, invarg("Invalid VRF\n", v), v));
        } else if w == "id" {
            let v = it.val()?;
            id = get_unsigned(v).ok_or_else(|| invarg("invalid id value", v))?;
        } else if w == "nhid" {
            let v = it.val()?;
            nhid = get_unsigned(v).ok_or_else(|| invarg("invalid id value", v))?;
        } else if matches(w, "help") {
            return Err(usage());
        } else {
            return Err(invarg("", w));
        }
    }
    if let Some(m) = dump_index_refusal(dev, master_idx) {
        return Err(dump_refused(m));
    }
    let groups: Vec<&Nexthop> = if id != 0 {
        vec![find_resilient(ns, id).map_err(|e| bucket_dump_failed(&e))?]
    } else {
        ns.nexthops().filter(|o| o.res.is_some()).collect()
    };
    // nh_dump_filtered on each bucket's member
    let shown = |m: u32| -> bool {
        if nhid != 0 && m != nhid {
            return false;
        }
        if dev.is_none() && !master && opts.family.is_none() {
            return true;
        }
        ns.nexthop(m)
            .is_some_and(|o| device_selected(ns, o, opts.family, dev, master.then_some(master_idx)))
    };
    let mut text = String::new();
    let mut json = Vec::new();
    for g in groups {
        let Some(t) = &g.res else { continue };
        for i in 0..t.num_buckets() {
            if !shown(t.bucket_nh(i).unwrap_or(0)) {
                continue;
            }
            if opts.json {
                json.push(bucket_json(ns, g.id, t, i));
            } else {
                text.push_str(&bucket_text(ns, g.id, t, i));
            }
        }
    }
    if opts.json {
        return Ok(Outcome::Ok(crate::show::json_list(&json, opts.pretty)));
    }
    Ok(Outcome::Ok(text))
}

/// `ip nexthop bucket get id ID index INDEX`.
fn bucket_get(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let (mut id, mut index) = (0u32, None);
    let mut it = Args::new(a);
    while let Some(w) = it.next() {
        if w == "id" {
            let v = it.val()?;
            id = get_unsigned(v).ok_or_else(|| invarg("invalid id value", v))?;
        } else if w == "index" {
            let v = it.val()?;
            let x = get_unsigned(v)
                .filter(|&x| x <= u32::from(u16::MAX))
                .ok_or_else(|| invarg("invalid bucket index value", v))?;
            index = Some(x as usize);
        } else {
            return Err(usage());
        }
    }
    let (Some(index), true) = (index, id != 0) else {
        return Err(usage());
    };
    let o = find_resilient(ns, id).map_err(Failure::kernel)?;
    let Some(t) = &o.res else {
        return Err(not_found());
    };
    if index >= t.num_buckets() {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::ENOENT,
            "Bucket index out of bounds",
        )));
    }
    if opts.json {
        return Ok(Outcome::Ok(crate::show::json_list(
            &[bucket_json(ns, id, t, index)],
            opts.pretty,
        )));
    }
    Ok(Outcome::Ok(bucket_text(ns, id, t, index)))
}

/// The encapsulation of a single object, if it has one.
fn encap_of(o: &Nexthop) -> Option<&fibkit::encap::Encap> {
    match &o.kind {
        NexthopKind::Single { encap, .. } => encap.as_deref(),
        _ => None,
    }
}
