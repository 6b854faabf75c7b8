//! The one-line-per-route text of `bgpdump -m` (libbgpdump 1.6), byte for byte.
//!
//! ```text
//! TABLE_DUMP|1027381055|B|193.203.0.1|1853|3.0.0.0/8|1853 1239 80|IGP|193.203.0.1|0|0||NAG||
//! TABLE_DUMP2|1537344000|B|PEER|PEER_AS|PREFIX|AS_PATH|ORIGIN|NEXT_HOP|LOCAL_PREF|MED|COMMUNITIES|AG/NAG|AGGREGATOR|
//! BGP4MP|1192460700|A|193.0.0.56|3333|192.96.13.0/24|3333 12859 16637|IGP|193.0.0.56|0|0|12859:1000|NAG||
//! BGP4MP|1027377522|W|193.203.0.81|20751|200.31.199.0/24
//! BGP4MP_ET|1445565678.509481|STATE|206.220.231.55|3856|1|2
//! ```
//!
//! bgpdump's quirks are kept: a missing NEXT_HOP prints `255.255.255.255`, a missing
//! ORIGIN `INCOMPLETE`, a missing LOCAL_PREF or MED `0`; ADD-PATH records are named
//! `TABLE_DUMP2_AP` / `BGP4MP_AP` and carry the path identifier after the prefix;
//! records bgpdump does not print in this mode (PEER_INDEX_TABLE, RIB_GENERIC, multicast
//! RIBs, OPEN, KEEPALIVE, NOTIFICATION, unsupported types) give no line.

use std::fmt::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::bgp::{Attributes, Message, Nlri, Update};
use crate::prefix::DisplayIp;
use crate::record::{BgpMessage, Body, Record, TYPE_BGP};

/// Appends to `out` the lines `bgpdump -m` prints for `record`, each ending in `\n`.
pub fn write_lines(record: &Record, out: &mut String) {
    let time = match record.microseconds {
        Some(us) => format!("{}.{:06}", record.timestamp, us),
        None => record.timestamp.to_string(),
    };
    match &record.body {
        Body::TableDump(t) => {
            let a = &t.attributes;
            let _ = write!(
                out,
                "TABLE_DUMP|{time}|B|{}|{}|{}|",
                DisplayIp(t.peer_ip),
                t.peer_as,
                t.prefix
            );
            tail(out, a, &rib_next_hop(a), false);
        }
        Body::Rib(r) if !r.generic && r.safi == 1 => {
            let name = if r.addpath {
                "TABLE_DUMP2_AP"
            } else {
                "TABLE_DUMP2"
            };
            for e in &r.entries {
                let _ = write!(
                    out,
                    "{name}|{time}|B|{}|{}|{}|",
                    DisplayIp(e.peer.ip),
                    e.peer.asn,
                    r.prefix
                );
                if let Some(id) = e.path_id.filter(|_| r.addpath) {
                    let _ = write!(out, "{id}|");
                }
                let a = &e.attributes;
                tail(out, a, &rib_next_hop(a), false);
            }
        }
        Body::Message(m) => {
            if let Message::Update(u) = &m.message {
                if record.mrt_type == TYPE_BGP {
                    legacy_update(out, &time, m, u);
                } else {
                    bgp4mp_update(out, record, &time, m, u);
                }
            }
        }
        Body::StateChange(s) => {
            let name = if record.mrt_type == TYPE_BGP {
                "BGP"
            } else if record.microseconds.is_some() {
                "BGP4MP_ET"
            } else {
                "BGP4MP"
            };
            let _ = writeln!(
                out,
                "{name}|{time}|STATE|{}|{}|{}|{}",
                DisplayIp(s.peer_ip),
                s.peer_as,
                s.old_state,
                s.new_state
            );
        }
        _ => {}
    }
}

/// The lines of `record`, as a `String`.
pub fn lines(record: &Record) -> String {
    let mut s = String::new();
    write_lines(record, &mut s);
    s
}

/// A RIB entry's next hop as bgpdump picks it: an MP_REACH IPv6 unicast next hop,
/// else NEXT_HOP, else 255.255.255.255.
fn rib_next_hop(a: &Attributes) -> String {
    if let Some(nh) = a
        .mp_reach
        .iter()
        .find(|m| m.afi == 2 && m.safi == 1)
        .map(|m| v6_next_hop(&m.next_hops))
    {
        return nh;
    }
    v4_next_hop(a)
}

fn v4_next_hop(a: &Attributes) -> String {
    a.next_hop.unwrap_or(Ipv4Addr::BROADCAST).to_string()
}

fn v6_next_hop(hops: &[IpAddr]) -> String {
    match hops.first() {
        Some(ip @ IpAddr::V6(_)) => DisplayIp(*ip).to_string(),
        Some(IpAddr::V4(a)) => {
            let mut o = [0u8; 16];
            o[..4].copy_from_slice(&a.octets());
            DisplayIp(IpAddr::V6(Ipv6Addr::from(o))).to_string()
        }
        None => "::".to_string(),
    }
}

fn origin(a: &Attributes) -> &'static str {
    match a.origin {
        Some(0) => "IGP",
        Some(1) => "EGP",
        _ => "INCOMPLETE",
    }
}

fn communities(a: &Attributes) -> String {
    let mut s = String::new();
    for &c in a.communities.iter().flatten() {
        if !s.is_empty() {
            s.push(' ');
        }
        let _ = match c {
            0xffff_ff01 => write!(s, "no-export"),
            0xffff_ff02 => write!(s, "no-advertise"),
            0xffff_ff03 => write!(s, "local-AS"),
            _ => write!(s, "{}:{}", c >> 16, c & 0xffff),
        };
    }
    s
}

fn aggregator(a: &Attributes) -> String {
    match a.aggregator {
        Some(g) if g.addr != Ipv4Addr::BROADCAST => format!("{} {}", g.asn, g.addr),
        _ => String::new(),
    }
}

/// `AS_PATH|ORIGIN|NEXT_HOP|LOCAL_PREF|MED|COMMUNITIES|AG|AGGREGATOR|\n`; `signed`
/// prints LOCAL_PREF and MED as C `%d` does (bgpdump's MP IPv4 lines).
fn tail(out: &mut String, a: &Attributes, next_hop: &str, signed: bool) {
    let path = a
        .as_path
        .as_ref()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let lp = a.local_pref.unwrap_or(0);
    let med = a.med.unwrap_or(0);
    let _ = write!(out, "{path}|{}|{next_hop}|", origin(a));
    let _ = if signed {
        write!(out, "{}|{}|", lp as i32, med as i32)
    } else {
        write!(out, "{lp}|{med}|")
    };
    let ag = if a.atomic_aggregate { "AG" } else { "NAG" };
    let _ = writeln!(out, "{}|{ag}|{}|", communities(a), aggregator(a));
}

/// The (AFI, SAFI) order in which bgpdump prints MP_REACH / MP_UNREACH prefixes.
const MP_ORDER: [(u16, u8); 6] = [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)];

fn bgp4mp_update(out: &mut String, record: &Record, time: &str, m: &BgpMessage, u: &Update) {
    let mut name = String::from("BGP4MP");
    if record.microseconds.is_some() {
        name.push_str("_ET");
    }
    if m.local {
        name.push_str("_LOCAL");
    }
    if m.addpath {
        name.push_str("_AP");
    }
    let peer = DisplayIp(m.peer_ip);
    let a = &u.attributes;
    let head = |out: &mut String, kind: &str, n: &Nlri| {
        let _ = write!(
            out,
            "{name}|{time}|{kind}|{peer}|{}|{}",
            m.peer_as, n.prefix
        );
        if let Some(id) = n.path_id.filter(|_| m.addpath) {
            let _ = write!(out, "|{id}");
        }
    };
    if !u.withdrawn.is_empty() || !a.mp_unreach.is_empty() {
        for n in &u.withdrawn {
            head(out, "W", n);
            out.push('\n');
        }
        for fam in MP_ORDER {
            if let Some(mp) = a.mp_unreach.iter().find(|x| (x.afi, x.safi) == fam) {
                for n in &mp.nlri {
                    head(out, "W", n);
                    out.push('\n');
                }
            }
        }
    }
    if !u.announced.is_empty() || !a.mp_reach.is_empty() {
        // The attribute part is the same for every prefix of a message: format it once.
        let mut rest = String::new();
        if !u.announced.is_empty() {
            tail(&mut rest, a, &v4_next_hop(a), false);
            for n in &u.announced {
                head(out, "A", n);
                out.push('|');
                out.push_str(&rest);
            }
        }
        for fam in MP_ORDER {
            let Some(mp) = a.mp_reach.iter().find(|x| (x.afi, x.safi) == fam) else {
                continue;
            };
            let (nh, signed) = if fam.0 == 1 {
                let v4 = match mp.next_hops.first() {
                    Some(IpAddr::V4(v)) => *v,
                    Some(IpAddr::V6(v)) => {
                        let o = v.octets();
                        Ipv4Addr::new(o[0], o[1], o[2], o[3])
                    }
                    None => Ipv4Addr::UNSPECIFIED,
                };
                (v4.to_string(), true)
            } else {
                (v6_next_hop(&mp.next_hops), false)
            };
            rest.clear();
            tail(&mut rest, a, &nh, signed);
            for n in &mp.nlri {
                head(out, "A", n);
                out.push('|');
                out.push_str(&rest);
            }
        }
    }
}

/// Legacy BGP (type 5) updates, printed with bgpdump's own layout for them: no empty
/// field between MED and the communities.
fn legacy_update(out: &mut String, time: &str, m: &BgpMessage, u: &Update) {
    let peer = DisplayIp(m.peer_ip);
    for n in &u.withdrawn {
        let _ = writeln!(out, "BGP|{time}|W|{peer}|{}|{}", m.peer_as, n.prefix);
    }
    let a = &u.attributes;
    for n in &u.announced {
        let path = a
            .as_path
            .as_ref()
            .map(|p| p.to_string())
            .unwrap_or_default();
        let ag = if a.atomic_aggregate { "AG" } else { "NAG" };
        let _ = write!(
            out,
            "BGP|{time}|A|{peer}|{}|{}|{path}|{}|{}|{}|{}",
            m.peer_as,
            n.prefix,
            origin(a),
            v4_next_hop(a),
            a.local_pref.unwrap_or(0),
            a.med.unwrap_or(0)
        );
        // bgpdump writes the communities straight after the MED, without a separator.
        let _ = writeln!(out, "{}|{ag}|{}|", communities(a), aggregator(a));
    }
}
