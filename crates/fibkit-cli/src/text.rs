//! `ip route get` answers as iproute2 6.1 prints them (text and `-j`).

use fibkit::lookup::RouteAnswer4;
use fibkit::lookup6::RouteAnswer6;
use fibkit::route::{Gateway, Metrics, RouteType};
use fibkit::Netns;
use fibkit_iproute::exec::{encap_json_members, encap_text};
use fibkit_iproute::names::{
    fmt4, fmt6, host4, host6, proto_n2a, rtntype_n2a, scope_n2a, table_n2a,
};
use fibkit_iproute::show::{
    fibmatch_text, json_list_spliced, json_text, metrics_json as show_metrics_json, metrics_text,
    rtrealm_n2a, FibEntry, ShowOpts,
};
use serde_json::{json, Map, Value};

/// The route's metrics as `ip -j` lists them.
fn metrics_json(m: &Metrics) -> Value {
    serde_json::from_str(&show_metrics_json(m)).unwrap_or(Value::Null)
}

/// `realm TO` or `realms FROM/TO`, as print_rta_flow prints them.
fn realms_text(realm: u32) -> String {
    let (from, to) = (realm >> 16, realm & 0xffff);
    if from != 0 {
        format!("realms {}/{}", rtrealm_n2a(from), rtrealm_n2a(to))
    } else {
        format!("realm {}", rtrealm_n2a(to))
    }
}

/// What `print_rta_cacheinfo` prints with `-s` of the dst an answer was given as
/// (`rtnl_put_cacheinfo`): its users, and its age when the clock ticks since it was
/// made (`rta_lastuse`, hundredths of a second: `jiffies_delta_to_clock_t` at
/// `HZ` 250) are not 0, in whole seconds. `rta_used` stays 0: no lookup a query makes
/// counts a use (`dst_use_noref` is for IPv6 exception routes only). A dst made
/// for the query alone (`None`) has the query's reference and no age.
fn dst_use_fields(
    ns: &Netns,
    u: Option<fibkit::lookup::DstUse>,
    single: u32,
) -> (u32, Option<u64>) {
    let Some(u) = u else {
        return (single, None);
    };
    let jiffies = ns.now_ms().saturating_sub(u.made_ms) / 4;
    let ticks = jiffies * 100 / 250;
    (u.users, (ticks != 0).then_some(ticks / 100))
}

/// A JSON answer, with the members of the route's encapsulation after its `dst` and
/// `from` (they repeat keys, `dst`, `src`, `tos`, which a map cannot hold).
fn answer_json(
    ns: &Netns,
    o: Map<String, Value>,
    encap: Option<&fibkit::encap::Encap>,
    pretty: bool,
) -> String {
    let Some(e) = encap else {
        return json_text(&Value::Array(vec![Value::Object(o)]), pretty);
    };
    let at = o
        .keys()
        .position(|k| k == "from")
        .or_else(|| o.keys().position(|k| k == "dst"))
        .map_or(0, |i| i + 1);
    let extra = encap_json_members(ns, e);
    json_list_spliced(&[(o, at, extra)], pretty)
}

/// An IPv4 answer, printed as `ip` prints it with `opts` (`-j`, and `-d`, which
/// prints the route type and table always).
/// The destination, source and gateway go through `format_host` (with `-r` a name from
/// the hosts database), the preferred source through `rt_addr_n2a` (a number always).
pub fn get4(ns: &Netns, r: &RouteAnswer4, fibmatch: bool, opts: &ShowOpts) -> String {
    let (json_out, details) = (opts.json, opts.details);
    if fibmatch {
        if let Some((route, _)) = &r.fib {
            // the entry the answer took, with the TOS of the one the lookup matched
            let shown = fibkit::route::Route4 {
                tos: r.dscp,
                ..route.clone()
            };
            return fibmatch_text(ns, opts, FibEntry::V4(&shown, r.table, r.rtype), 0);
        }
    }
    let show_src = !r.input && r.prefsrc.is_some_and(|s| s != r.requested_src);
    let realm = r.realms;
    // rt_fill_info reports the matched entry's TOS (res.dscp), not the flow's
    let tos = r.dscp;
    let encap = r.encap(ns).map(|e| &**e);
    let mut cache: Vec<&str> = Vec::new();
    match r.rtype {
        RouteType::Local => cache.push("local"),
        // a directed broadcast forwarded under bc_forwarding is made by
        // __mkroute_input, which sets neither
        RouteType::Broadcast if !r.bc_forwarded => {
            cache.push("local");
            cache.push("brd");
        }
        RouteType::Multicast => {
            // RTCF_LOCAL for a group the device joined (input multicast routes exist
            // only for those)
            if r.input || ns.dev_has_mc(r.dev, r.flow.dst) {
                cache.push("local");
            }
            cache.push("mc");
        }
        _ => {}
    }
    // __mkroute_output marks every output route through a loopback device RTCF_LOCAL,
    // and then a multicast one local only when the device joined the group
    if !r.input && r.dev == 1 && r.rtype != RouteType::Multicast && !cache.contains(&"local") {
        cache.insert(0, "local");
    }
    // RTCF_DOREDIRECT: a forward back out of its input device
    if ns.input_redirect4(r) {
        cache.push("redirect");
    }
    // RTCF_NOTIFY, last of the flags iproute2 names (and RTM_F_NOTIFY in the line)
    if r.notify {
        cache.push("notify");
    }
    if json_out {
        let mut o = Map::new();
        if r.rtype != RouteType::Unicast || details {
            o.insert("type".into(), json!(rtntype_n2a(r.rtype as u8)));
        }
        o.insert("dst".into(), json!(host4(r.requested_dst)));
        if r.requested_src != 0 {
            o.insert("from".into(), json!(host4(r.requested_src)));
        }
        if tos != 0 {
            o.insert("tos".into(), json!(format!("0x{tos:02x}")));
        }
        match &r.gateway {
            Some(Gateway::V4(g)) => {
                o.insert("gateway".into(), json!(host4(*g)));
            }
            Some(Gateway::V6(g)) => {
                o.insert(
                    "via".into(),
                    json!({ "family": "inet6", "host": host6(*g) }),
                );
            }
            None => {}
        }
        o.insert("dev".into(), json!(ns.link_name(r.dev)));
        if r.table != 0 && (r.table != 254 || details) {
            o.insert("table".into(), json!(table_n2a(r.table)));
        }
        if show_src {
            o.insert("prefsrc".into(), json!(fmt4(r.prefsrc.unwrap_or(0))));
        }
        // RTCF_MULTICAST aliases RTM_F_OFFLOAD_FAILED in the reply's rtm_flags
        let mut flags: Vec<&str> = Vec::new();
        if r.notify {
            flags.push("notify");
        }
        if r.rtype == RouteType::Multicast {
            flags.push("rt_offload_failed");
        }
        o.insert("flags".into(), json!(flags));
        if r.flow.mark != 0 {
            o.insert("mark".into(), json!(r.flow.mark));
        }
        if realm != 0 {
            let mut fl = Map::new();
            if realm >> 16 != 0 {
                fl.insert("from".into(), json!(rtrealm_n2a(realm >> 16)));
            }
            fl.insert("to".into(), json!(rtrealm_n2a(realm & 0xffff)));
            o.insert("flow".into(), Value::Object(fl));
        }
        if let Some(u) = r.uid {
            o.insert("uid".into(), json!(u));
        }
        o.insert("cache".into(), json!(cache));
        if opts.stats > 0 {
            let (users, age) = dst_use_fields(ns, r.dst_use, 1);
            o.insert("users".into(), json!(users));
            if let Some(a) = age {
                o.insert("age".into(), json!(a));
            }
        }
        if !r.metrics.is_empty() {
            o.insert("metrics".into(), metrics_json(&r.metrics));
        }
        if r.input {
            o.insert("iif".into(), json!(ns.link_name(r.flow.iif)));
        }
        return answer_json(ns, o, encap, opts.pretty);
    }
    let mut p = Vec::new();
    if r.rtype != RouteType::Unicast || details {
        p.push(rtntype_n2a(r.rtype as u8));
    }
    p.push(host4(r.requested_dst));
    if r.requested_src != 0 {
        p.push(format!("from {}", host4(r.requested_src)));
    }
    if let Some(e) = encap {
        // ` encap ... ` (iproute2 prints it with a blank before and after)
        p.push(encap_text(ns, e).trim_end().to_string());
    }
    if tos != 0 {
        p.push(format!("tos 0x{tos:02x}"));
    }
    match &r.gateway {
        Some(Gateway::V4(g)) => p.push(format!("via {}", host4(*g))),
        Some(Gateway::V6(g)) => p.push(format!("via inet6 {}", host6(*g))),
        None => {}
    }
    p.push(format!("dev {}", ns.link_name(r.dev)));
    if r.table != 0 && (r.table != 254 || details) {
        p.push(format!("table {}", table_n2a(r.table)));
    }
    if show_src {
        p.push(format!("src {}", fmt4(r.prefsrc.unwrap_or(0))));
    }
    if r.notify {
        p.push("notify".into());
    }
    if r.rtype == RouteType::Multicast {
        p.push("rt_offload_failed".into());
    }
    if r.flow.mark != 0 {
        // iproute2 6.1 prints a mark below 16 in decimal, others in hex (seen from
        // `ip route get ... mark N`: 15 -> `mark 15`, 16 -> `mark 0x10`)
        p.push(if r.flow.mark < 16 {
            format!("mark {}", r.flow.mark)
        } else {
            format!("mark 0x{:x}", r.flow.mark)
        });
    }
    if realm != 0 {
        p.push(realms_text(realm));
    }
    if let Some(u) = r.uid {
        p.push(format!("uid {u}"));
    }
    let mut c = vec!["cache".to_string()];
    if !cache.is_empty() {
        c.push(format!("<{}>", cache.join(",")));
    }
    if opts.stats > 0 {
        let (users, age) = dst_use_fields(ns, r.dst_use, 1);
        c.push(format!("users {users}"));
        if let Some(a) = age {
            c.push(format!("age {a}sec"));
        }
    }
    let mx = metrics_text(&r.metrics);
    if !mx.is_empty() {
        c.push(mx);
    }
    if r.input {
        c.push(format!("iif {}", ns.link_name(r.flow.iif)));
    }
    // iproute2 ends every printed field with a blank; the cache line starts with
    // _SL_ (`\` with -o)
    let sl = if opts.oneline { "\\" } else { "\n" };
    format!("{} {sl}    {} \n", p.join(" "), c.join(" "))
}

/// An IPv6 answer.
pub fn get6(
    ns: &Netns,
    r: &RouteAnswer6,
    fibmatch: bool,
    opts: &ShowOpts,
    dst: u128,
    src: u128,
    iif: u32,
) -> String {
    let (json_out, details) = (opts.json, opts.details);
    if fibmatch && !r.fib.is_empty() {
        return fibmatch_text(ns, opts, FibEntry::V6(&r.fib), iif);
    }
    let route = r.fib.first();
    let proto = route.map_or(3, |x| x.proto);
    if json_out {
        let mut o = Map::new();
        if r.rtype != RouteType::Unicast || details {
            o.insert("type".into(), json!(rtntype_n2a(r.rtype as u8)));
        }
        o.insert("dst".into(), json!(host6(dst)));
        o.insert("from".into(), json!(host6(src)));
        if let Some(g) = r.gateway {
            o.insert("gateway".into(), json!(host6(g)));
        }
        o.insert("dev".into(), json!(ns.link_name(r.dev)));
        if r.table != 254 || details {
            o.insert("table".into(), json!(table_n2a(r.table)));
        }
        if proto != 3 || details {
            o.insert("protocol".into(), json!(proto_n2a(proto)));
        }
        // rt6_fill_info answers with universe scope, which only -d prints
        if details {
            o.insert("scope".into(), json!(scope_n2a(0)));
        }
        if let Some(s) = r.prefsrc {
            o.insert("prefsrc".into(), json!(fmt6(s)));
        }
        o.insert("metric".into(), json!(r.metric));
        o.insert("flags".into(), json!([]));
        if opts.stats > 0 {
            let (users, age) = dst_use_fields(ns, r.dst_use, 2);
            o.insert("users".into(), json!(users));
            if let Some(a) = age {
                o.insert("age".into(), json!(a));
            }
        }
        if !r.metrics.is_empty() {
            o.insert("metrics".into(), metrics_json(&r.metrics));
        }
        if iif != 0 {
            o.insert("iif".into(), json!(ns.link_name(iif)));
        }
        o.insert("pref".into(), json!(r.pref.name()));
        return answer_json(
            ns,
            o,
            route.and_then(|x| x.nh.encap.as_deref()),
            opts.pretty,
        );
    }
    let mut p = Vec::new();
    if r.rtype != RouteType::Unicast || details {
        p.push(rtntype_n2a(r.rtype as u8));
    }
    p.push(host6(dst));
    p.push(format!("from {}", host6(src)));
    if let Some(e) = route.and_then(|x| x.nh.encap.as_deref()) {
        p.push(encap_text(ns, e).trim_end().to_string());
    }
    if let Some(g) = r.gateway {
        p.push(format!("via {}", host6(g)));
    }
    p.push(format!("dev {}", ns.link_name(r.dev)));
    if r.table != 254 || details {
        p.push(format!("table {}", table_n2a(r.table)));
    }
    if proto != 3 || details {
        p.push(format!("proto {}", proto_n2a(proto)));
    }
    if details {
        p.push(format!("scope {}", scope_n2a(0)));
    }
    if let Some(s) = r.prefsrc {
        p.push(format!("src {}", fmt6(s)));
    }
    p.push(format!("metric {}", r.metric));
    if opts.stats > 0 {
        let (users, age) = dst_use_fields(ns, r.dst_use, 2);
        p.push(format!("users {users}"));
        if let Some(a) = age {
            p.push(format!("age {a}sec"));
        }
    }
    let mx = metrics_text(&r.metrics);
    if !mx.is_empty() {
        p.push(mx);
    }
    if iif != 0 {
        p.push(format!("iif {}", ns.link_name(iif)));
    }
    p.push(format!("pref {}", r.pref.name()));
    format!("{}\n", p.join(" "))
}
