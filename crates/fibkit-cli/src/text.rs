//! `ip route get` answers as iproute2 6.1 prints them (text and `-j`).

use fibkit::lookup::RouteAnswer4;
use fibkit::lookup6::RouteAnswer6;
use fibkit::route::{Gateway, Metrics, Route4, Route6, RouteType};
use fibkit::Netns;
use fibkit_iproute::names::{fmt4, fmt6, proto_n2a, scope_n2a, table_n2a};
use fibkit_iproute::normal::metrics_words;
use serde_json::{json, Map, Value};

fn gw_text(g: &Gateway) -> String {
    match g {
        Gateway::V4(a) => fmt4(*a),
        Gateway::V6(a) => fmt6(*a),
    }
}

fn metrics_json(m: &Metrics) -> Vec<Value> {
    metrics_words(m)
        .iter()
        .filter_map(|w| {
            let (k, v) = w.split_once(' ')?;
            Some(match v.parse::<u64>() {
                Ok(n) => json!({ k: n }),
                Err(_) => json!({ k: v }),
            })
        })
        .collect()
}

fn dst4(r: &Route4) -> String {
    if r.dst.len == 0 {
        "default".into()
    } else if r.dst.len == 32 {
        fmt4(r.dst.addr)
    } else {
        r.dst.to_string()
    }
}

fn dst6(p: fibkit::prefix::Prefix6) -> String {
    if p.len == 0 {
        "default".into()
    } else if p.len == 128 {
        fmt6(p.addr)
    } else {
        p.to_string()
    }
}

/// A FIB entry as `ip route show` prints it (the `fibmatch` answer).
fn fib4_text(ns: &Netns, r: &Route4, rtype: RouteType, table: u32, json_out: bool) -> String {
    let nh = &r.info.nhs[0];
    if json_out {
        let mut o = Map::new();
        if rtype != RouteType::Unicast {
            o.insert("type".into(), json!(rtype.name()));
        }
        o.insert("dst".into(), json!(dst4(r)));
        if let Some(g) = &nh.gw {
            o.insert("gateway".into(), json!(gw_text(g)));
        }
        if nh.dev != 0 {
            o.insert("dev".into(), json!(ns.link_name(nh.dev)));
        }
        if table != 254 && table != 0 {
            o.insert("table".into(), json!(table_n2a(table)));
        }
        if r.info.proto != 3 {
            o.insert("protocol".into(), json!(proto_n2a(r.info.proto)));
        }
        if r.info.scope != 0 {
            o.insert("scope".into(), json!(scope_n2a(r.info.scope)));
        }
        if r.info.prefsrc != 0 {
            o.insert("prefsrc".into(), json!(fmt4(r.info.prefsrc)));
        }
        if r.info.priority != 0 {
            o.insert("metric".into(), json!(r.info.priority));
        }
        o.insert("flags".into(), json!([]));
        return format!("{}\n", Value::Array(vec![Value::Object(o)]));
    }
    let mut p = Vec::new();
    if rtype != RouteType::Unicast {
        p.push(rtype.name().to_string());
    }
    p.push(dst4(r));
    if r.tos != 0 {
        p.push(format!("tos 0x{:02x}", r.tos));
    }
    if let Some(g) = &nh.gw {
        p.push(format!("via {}", gw_text(g)));
    }
    if nh.dev != 0 {
        p.push(format!("dev {}", ns.link_name(nh.dev)));
    }
    if table != 254 && table != 0 {
        p.push(format!("table {}", table_n2a(table)));
    }
    if r.info.proto != 3 {
        p.push(format!("proto {}", proto_n2a(r.info.proto)));
    }
    if r.info.scope != 0 {
        p.push(format!("scope {}", scope_n2a(r.info.scope)));
    }
    if r.info.prefsrc != 0 {
        p.push(format!("src {}", fmt4(r.info.prefsrc)));
    }
    if r.info.priority != 0 {
        p.push(format!("metric {}", r.info.priority));
    }
    p.extend(metrics_words(&r.info.metrics));
    format!("{}\n", p.join(" "))
}

/// An IPv4 answer.
pub fn get4(ns: &Netns, r: &RouteAnswer4, fibmatch: bool, json_out: bool) -> String {
    if fibmatch {
        if let Some((route, _)) = &r.fib {
            return fib4_text(ns, route, r.rtype, r.table, json_out);
        }
    }
    let show_src = !r.input && r.prefsrc.is_some_and(|s| s != r.requested_src);
    let mut cache: Vec<&str> = Vec::new();
    match r.rtype {
        RouteType::Local => cache.push("local"),
        RouteType::Broadcast => {
            cache.push("local");
            cache.push("brd");
        }
        RouteType::Multicast => cache.push("mc"),
        _ => {}
    }
    if json_out {
        let mut o = Map::new();
        if r.rtype != RouteType::Unicast {
            o.insert("type".into(), json!(r.rtype.name()));
        }
        o.insert("dst".into(), json!(fmt4(r.flow.dst)));
        if r.requested_src != 0 {
            o.insert("from".into(), json!(fmt4(r.requested_src)));
        }
        if let Some(g) = &r.gateway {
            o.insert("gateway".into(), json!(gw_text(g)));
        }
        o.insert("dev".into(), json!(ns.link_name(r.dev)));
        if r.table != 254 && r.table != 0 {
            o.insert("table".into(), json!(table_n2a(r.table)));
        }
        if show_src {
            o.insert("prefsrc".into(), json!(fmt4(r.prefsrc.unwrap_or(0))));
        }
        o.insert("flags".into(), json!([]));
        if r.flow.mark != 0 {
            o.insert("mark".into(), json!(r.flow.mark));
        }
        if !r.input {
            o.insert("uid".into(), json!(r.flow.uid));
        }
        o.insert("cache".into(), json!(cache));
        if !r.metrics.is_empty() {
            o.insert("metrics".into(), json!(metrics_json(&r.metrics)));
        }
        if r.input {
            o.insert("iif".into(), json!(ns.link_name(r.flow.iif)));
        }
        return format!("{}\n", Value::Array(vec![Value::Object(o)]));
    }
    let mut p = Vec::new();
    if r.rtype != RouteType::Unicast {
        p.push(r.rtype.name().to_string());
    }
    p.push(fmt4(r.flow.dst));
    if r.requested_src != 0 {
        p.push(format!("from {}", fmt4(r.requested_src)));
    }
    if let Some(g) = &r.gateway {
        p.push(format!("via {}", gw_text(g)));
    }
    p.push(format!("dev {}", ns.link_name(r.dev)));
    if r.table != 254 && r.table != 0 {
        p.push(format!("table {}", table_n2a(r.table)));
    }
    if show_src {
        p.push(format!("src {}", fmt4(r.prefsrc.unwrap_or(0))));
    }
    if r.rtype == RouteType::Multicast {
        p.push("rt_offload_failed".into());
    }
    if r.flow.mark != 0 {
        p.push(format!("mark {}", r.flow.mark));
    }
    if !r.input {
        p.push(format!("uid {}", r.flow.uid));
    }
    let mut c = vec!["cache".to_string()];
    if !cache.is_empty() {
        c.push(format!("<{}>", cache.join(",")));
    }
    c.extend(metrics_words(&r.metrics));
    if r.input {
        c.push(format!("iif {}", ns.link_name(r.flow.iif)));
    }
    format!("{} \n    {}\n", p.join(" "), c.join(" "))
}

fn fib6_text(ns: &Netns, legs: &[Route6], json_out: bool) -> String {
    let r = &legs[0];
    let mut p = Vec::new();
    if r.rtype != RouteType::Unicast {
        p.push(r.rtype.name().to_string());
    }
    p.push(dst6(r.dst));
    if r.src.len != 0 {
        p.push(format!("from {}", dst6(r.src)));
    }
    if legs.len() == 1 {
        if let Some(g) = r.nh.gw {
            p.push(format!("via {}", fmt6(g)));
        }
        p.push(format!("dev {}", ns.link_name(r.nh.dev)));
    }
    if r.table != 254 {
        p.push(format!("table {}", table_n2a(r.table)));
    }
    if r.proto != 3 {
        p.push(format!("proto {}", proto_n2a(r.proto)));
    }
    if let Some(s) = r.prefsrc {
        p.push(format!("src {}", fmt6(s)));
    }
    p.push(format!("metric {}", r.metric));
    p.extend(metrics_words(&r.metrics));
    p.push(format!("pref {}", r.pref.name()));
    let mut s = p.join(" ");
    if legs.len() > 1 {
        for l in legs {
            s.push_str(&format!(
                "\n\tnexthop via {} dev {} weight {}",
                l.nh.gw.map(fmt6).unwrap_or_default(),
                ns.link_name(l.nh.dev),
                l.nh.weight
            ));
        }
    }
    if json_out {
        let o = json!([{ "dst": dst6(r.dst), "gateway": r.nh.gw.map(fmt6), "dev": ns.link_name(r.nh.dev), "metric": r.metric, "flags": [], "pref": r.pref.name() }]);
        return format!("{o}\n");
    }
    format!("{s}\n")
}

/// An IPv6 answer.
pub fn get6(
    ns: &Netns,
    r: &RouteAnswer6,
    fibmatch: bool,
    json_out: bool,
    dst: u128,
    src: u128,
    iif: u32,
) -> String {
    if fibmatch && !r.fib.is_empty() {
        return fib6_text(ns, &r.fib, json_out);
    }
    let route = r.fib.first();
    let proto = route.map_or(3, |x| x.proto);
    if json_out {
        let mut o = Map::new();
        if r.rtype != RouteType::Unicast {
            o.insert("type".into(), json!(r.rtype.name()));
        }
        o.insert("dst".into(), json!(fmt6(dst)));
        o.insert("from".into(), json!(fmt6(src)));
        if let Some(g) = r.gateway {
            o.insert("gateway".into(), json!(fmt6(g)));
        }
        o.insert("dev".into(), json!(ns.link_name(r.dev)));
        if r.table != 254 {
            o.insert("table".into(), json!(table_n2a(r.table)));
        }
        if proto != 3 {
            o.insert("protocol".into(), json!(proto_n2a(proto)));
        }
        if let Some(s) = r.prefsrc {
            o.insert("prefsrc".into(), json!(fmt6(s)));
        }
        o.insert("metric".into(), json!(r.metric));
        o.insert("flags".into(), json!([]));
        if iif != 0 {
            o.insert("iif".into(), json!(ns.link_name(iif)));
        }
        o.insert("pref".into(), json!(r.pref.name()));
        return format!("{}\n", Value::Array(vec![Value::Object(o)]));
    }
    let mut p = Vec::new();
    if r.rtype != RouteType::Unicast {
        p.push(r.rtype.name().to_string());
    }
    p.push(fmt6(dst));
    p.push(format!("from {}", fmt6(src)));
    if let Some(g) = r.gateway {
        p.push(format!("via {}", fmt6(g)));
    }
    p.push(format!("dev {}", ns.link_name(r.dev)));
    if r.table != 254 {
        p.push(format!("table {}", table_n2a(r.table)));
    }
    if proto != 3 {
        p.push(format!("proto {}", proto_n2a(proto)));
    }
    if let Some(s) = r.prefsrc {
        p.push(format!("src {}", fmt6(s)));
    }
    p.push(format!("metric {}", r.metric));
    p.extend(metrics_words(&r.metrics));
    if iif != 0 {
        p.push(format!("iif {}", ns.link_name(iif)));
    }
    p.push(format!("pref {}", r.pref.name()));
    format!("{}\n", p.join(" "))
}
