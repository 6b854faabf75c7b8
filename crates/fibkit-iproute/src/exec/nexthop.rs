//! `ip nexthop`: iproute2's ipnexthop.c over fibkit's nexthop objects.

use fibkit::nexthop::{Nexthop, NexthopCfg, NexthopKind};
use fibkit::prefix::Family;
use fibkit::route::{scope, Gateway};
use fibkit::{Errno, Netns};

use super::{bad_addr, invarg, matches, Args, Failure, Opts, Outcome, Res};
use crate::names::{parse_addr, parse_u32, proto_a2n, proto_n2a, Addr};

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
    if matches(cmd, "list") || matches(cmd, "show") || cmd == "lst" {
        return nh_list(ns, opts, rest);
    }
    if matches(cmd, "get") {
        return nh_get(ns, opts, rest);
    }
    if matches(cmd, "flush") {
        return nh_flush(ns, opts, rest);
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
    f.errno = Some(Errno::ENODEV);
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

/// `ipnh_modify`: add, replace and delete share one parser.
fn nh_modify(ns: &mut Netns, opts: &Opts, a: &[String], verb: Verb) -> Res<Outcome> {
    let mut cfg = NexthopCfg {
        family: opts.family,
        ..Default::default()
    };
    let mut id: Option<u32> = None;
    let mut attrs = false;
    let mut it = Args::new(a);
    while let Some(k) = it.next() {
        match k {
            "id" => {
                let v = it.val()?;
                let x = get_unsigned(v).ok_or_else(|| invarg("invalid id value", v))?;
                id = Some(x);
            }
            "dev" => {
                let v = it.val()?;
                cfg.dev = ns.link_index(v).ok_or_else(|| no_device(v))?;
                if cfg.family.is_none() {
                    cfg.family = Some(Family::V4);
                }
                attrs = true;
            }
            "via" => {
                let mut v = it.val()?;
                let mut fam = cfg.family;
                let mut explicit = false;
                if v == "inet" || v == "inet6" {
                    fam = Some(if v == "inet" { Family::V4 } else { Family::V6 });
                    explicit = true;
                    v = it.val()?;
                }
                let addr = parse_addr(v, fam).ok_or_else(|| bad_addr(v, fam))?;
                let af = addr.family();
                match cfg.family {
                    None => cfg.family = Some(af),
                    Some(f) if f != af && explicit => {
                        return Err(invarg("address family mismatch\n", v))
                    }
                    _ => {}
                }
                cfg.gw = Some(match addr {
                    Addr::V4(x) => Gateway::V4(x),
                    Addr::V6(x) => Gateway::V6(x),
                });
                attrs = true;
            }
            "blackhole" => {
                cfg.blackhole = true;
                if cfg.family.is_none() {
                    cfg.family = Some(Family::V4);
                }
                attrs = true;
            }
            "fdb" => {
                cfg.fdb = true;
                attrs = true;
            }
            "onlink" => cfg.onlink = true,
            "group" => {
                let v = it.val()?;
                cfg.group = Some(parse_group(v)?);
                attrs = true;
            }
            "type" => {
                let v = it.val()?;
                match v {
                    "mpath" => {}
                    "resilient" => {
                        cfg.resilient = true;
                        while let Some(w) = it.peek() {
                            let msg = match w {
                                "buckets" => "invalid buckets value",
                                "idle_timer" => "invalid idle timer value",
                                "unbalanced_timer" => "invalid unbalanced timer value",
                                _ => break,
                            };
                            it.next();
                            let x = it.val()?;
                            if get_unsigned(x).is_none() {
                                return Err(invarg(msg, x));
                            }
                            cfg.buckets |= w == "buckets";
                        }
                    }
                    _ => return Err(invarg("\"type\" value is invalid\n", v)),
                }
                attrs = true;
            }
            "encap" => {
                // the encapsulation's own words are not parsed: fibkit refuses them
                it.val()?;
                it.val()?;
                cfg.encap = true;
                attrs = true;
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
    let done = |r: fibkit::Result<()>| {
        r.map(|()| Outcome::Ok(String::new()))
            .map_err(Failure::kernel)
    };
    if verb == Verb::Delete {
        // rtm_del_nexthop: only the id may be sent
        if cfg.onlink || cfg.proto != 0 {
            return done(Err(fibkit::Error::msg(
                Errno::EINVAL,
                "Invalid values in header",
            )));
        }
        if attrs {
            return done(Err(fibkit::Error::msg(
                Errno::EINVAL,
                "Unknown attribute type",
            )));
        }
        return done(ns.nexthop_del(id));
    }
    cfg.id = id.unwrap_or(0);
    done(ns.nexthop_new(&cfg, verb == Verb::Replace).map(|_| ()))
}

/// The dump's selector (`ip nexthop list|flush ...`).
#[derive(Default)]
struct Select {
    dev: Option<u32>,
    groups: bool,
    fdb: bool,
    master: bool,
    proto: Option<u8>,
    id: Option<u32>,
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
            s.dev = Some(ns.link_index(v).ok_or_else(|| no_device(v))?);
        } else if matches(w, "groups") {
            s.groups = true;
        } else if matches(w, "master") {
            let v = it.val()?;
            ns.link_index(v).ok_or_else(|| no_device(v))?;
            s.master = true;
        } else if matches(w, "vrf") {
            let v = it.val()?;
            if ns.link_index(v).is_none() {
                return Err(invarg("VRF does not exist\n", v));
            }
            return Err(invarg("Invalid VRF\n", v));
        } else if matches(w, "protocol") {
            let v = it.val()?;
            let p = get_unsigned(v)
                .filter(|&p| p <= 255)
                .ok_or_else(|| invarg("invalid protocol value", v))?;
            s.proto = Some(p as u8);
        } else if matches(w, "fdb") {
            s.fdb = true;
        } else if w == "help" {
            return Err(usage());
        } else {
            return Err(invarg("", w));
        }
    }
    Ok(s)
}

/// Whether the dump with selector `s` (and the header family) lists `o`.
fn selected(o: &Nexthop, s: &Select, family: Option<Family>) -> bool {
    if s.proto.is_some_and(|p| p != o.proto) {
        return false;
    }
    if s.groups && !o.is_group() {
        return false;
    }
    if s.master {
        // no device of fibkit has a master
        return false;
    }
    // (the kernel parses an `fdb` selector but does not apply it: everything is listed)
    if s.dev.is_some() || family.is_some() {
        // a device or family filter drops every group
        if o.is_group() {
            return false;
        }
        if family.is_some_and(|f| o.family() != Some(f)) {
            return false;
        }
        if let Some(d) = s.dev {
            return matches!(o.kind, NexthopKind::Single { dev, .. } if dev == d);
        }
    }
    true
}

fn scope_name(s: u8) -> String {
    match s {
        scope::UNIVERSE => "global".into(),
        scope::SITE => "site".into(),
        scope::LINK => "link".into(),
        scope::HOST => "host".into(),
        scope::NOWHERE => "nowhere".into(),
        x => x.to_string(),
    }
}

fn gw_text(g: Gateway) -> String {
    match g {
        Gateway::V4(a) => std::net::Ipv4Addr::from(a).to_string(),
        Gateway::V6(a) => std::net::Ipv6Addr::from(a).to_string(),
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
        }
        NexthopKind::Single {
            gw, dev, scope: sc, ..
        } => {
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
        s.push_str(&format!("scope {} ", scope_name(nh_scope)));
    }
    if matches!(o.kind, NexthopKind::Blackhole { .. }) {
        s.push_str("blackhole ");
    }
    if o.proto != 0 || details {
        s.push_str(&format!("proto {} ", proto_n2a(o.proto)));
    }
    if matches!(o.kind, NexthopKind::Single { onlink: true, .. }) {
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
        m.insert("scope".into(), scope_name(nh_scope).into());
    }
    if matches!(o.kind, NexthopKind::Blackhole { .. }) {
        m.insert("blackhole".into(), serde_json::Value::Null);
    }
    if o.proto != 0 || details {
        m.insert("protocol".into(), proto_n2a(o.proto).into());
    }
    let flags: Vec<serde_json::Value> =
        if matches!(o.kind, NexthopKind::Single { onlink: true, .. }) {
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
    let list: Vec<&Nexthop> = ns
        .nexthops()
        .filter(|o| selected(o, &s, opts.family))
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
    let all = a.is_empty() && opts.family.is_none();
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
            .filter(|o| selected(o, p, opts.family))
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
