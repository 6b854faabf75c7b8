//! Engine properties: lookups agree with a naive scan of the RIB, on random route sets.

use fibkit::fib4::{NhCfg, Route4Cfg, RouteOp};
use fibkit::fib6::{Flow6, Route6Cfg};
use fibkit::lookup::Flow4;
use fibkit::prefix::{Prefix4, Prefix6};
use fibkit::route::{table as tid, Gateway};
use fibkit::rule::{RuleAction, RulePrefix, RuleSpec};
use fibkit::Netns;
use proptest::prelude::*;

mod common;
use common::{add_addr4, add_dummy, ns_with_link};

/// Adds custom rule `kind` (random selectors from `bits`, destination selector
/// `to`) to family `v6`: rules that select some output flows and not others, rules
/// that never select them, `not` (also wg-quick's `not fwmark`), goto and nop, and the
/// removal of a default rule.
/// Table 100 answers the rules that look it up.
fn add_custom_rule(ns: &mut Netns, v6: bool, kind: u8, bits: u32, to: RulePrefix) {
    let from = |len: u8| {
        if v6 {
            RulePrefix::V6(Prefix6::new(u128::from(bits) << 96, len))
        } else {
            RulePrefix::V4(Prefix4::new(bits, len))
        }
    };
    let pref = if bits & 1 == 0 {
        100 + (bits >> 20) % 100
    } else {
        40_000
    };
    let lookup = Some(RuleAction::Lookup(100));
    let spec = match kind {
        0 => RuleSpec {
            src: Some(from(1 + (bits % 8) as u8)),
            action: lookup,
            ..Default::default()
        },
        1 => RuleSpec {
            dst: Some(to),
            action: lookup,
            ..Default::default()
        },
        2 => RuleSpec {
            dst: Some(to),
            action: Some(RuleAction::Unreachable),
            ..Default::default()
        },
        3 => RuleSpec {
            iif: Some("lo".into()),
            dst: Some(to),
            action: Some(RuleAction::Prohibit),
            ..Default::default()
        },
        4 => RuleSpec {
            oif: Some("d0".into()),
            action: lookup,
            ..Default::default()
        },
        5 => RuleSpec {
            mark: Some(1),
            action: lookup,
            ..Default::default()
        },
        6 => RuleSpec {
            ipproto: Some(6),
            action: lookup,
            ..Default::default()
        },
        7 => RuleSpec {
            src: Some(from(24)),
            invert: true,
            dst: Some(to),
            action: lookup,
            ..Default::default()
        },
        8 => RuleSpec {
            dst: Some(to),
            action: Some(RuleAction::Goto(32767)),
            goto: Some(32767),
            ..Default::default()
        },
        9 => RuleSpec {
            action: Some(RuleAction::Nop),
            ..Default::default()
        },
        10 => RuleSpec {
            tos: Some(0x10),
            action: lookup,
            ..Default::default()
        },
        // wg-quick's: selects every flow without that mark
        11 => RuleSpec {
            mark: Some(0xca6c),
            invert: true,
            action: lookup,
            ..Default::default()
        },
        // wg-quick's other rule: main, unless only its default route answers
        13 => RuleSpec {
            action: Some(RuleAction::Lookup(tid::MAIN)),
            suppress_prefixlen: Some(0),
            ..Default::default()
        },
        // every output flow (from lo), before or after main
        14 => RuleSpec {
            iif: Some("lo".into()),
            action: lookup,
            ..Default::default()
        },
        // some users only
        15 => RuleSpec {
            uid: Some(fibkit::rule::Range {
                start: 0,
                end: bits % 2,
            }),
            action: lookup,
            ..Default::default()
        },
        // every flow, refused
        16 => RuleSpec {
            action: Some(RuleAction::Prohibit),
            ..Default::default()
        },
        // every flow, unless the answer's device is in the default group
        17 => RuleSpec {
            action: lookup,
            suppress_ifgroup: Some(0),
            ..Default::default()
        },
        _ => {
            let _ = ns.rule_del(
                v6,
                &RuleSpec {
                    pref: Some(32766),
                    ..Default::default()
                },
            );
            return;
        }
    };
    let spec = RuleSpec {
        pref: Some(pref),
        ..spec
    };
    let _ = ns.rule_add(v6, &spec);
}

/// The longest prefix of tables local+main covering `dst`, with the lowest metric there.
fn naive4(ns: &Netns, dst: u32) -> Option<(Prefix4, u32)> {
    let mut best: Option<(Prefix4, u32)> = None;
    for t in [tid::LOCAL, tid::MAIN] {
        for r in ns.table4(t).into_iter().flat_map(|t| t.iter()) {
            if r.dst.contains(dst) && r.tos == 0 {
                let better = match best {
                    None => true,
                    Some((p, m)) => {
                        r.dst.len > p.len || (r.dst.len == p.len && r.info.priority < m)
                    }
                };
                if better {
                    best = Some((r.dst, r.info.priority));
                }
            }
        }
    }
    best
}

fn naive6(ns: &Netns, dst: u128) -> Option<(Prefix6, u32)> {
    let mut best: Option<(Prefix6, u32)> = None;
    for t in [tid::LOCAL, tid::MAIN] {
        let Some(tb) = ns.table6(t) else { continue };
        // the local table is consulted first and wins whenever it matches
        let mut here: Option<(Prefix6, u32)> = None;
        for r in tb.dump_order() {
            if r.dst.contains(dst)
                && r.src.len == 0
                && !matches!(r.rtype, fibkit::route::RouteType::Multicast)
            {
                let better = match here {
                    None => true,
                    Some((p, m)) => r.dst.len > p.len || (r.dst.len == p.len && r.metric < m),
                };
                if better {
                    here = Some((r.dst, r.metric));
                }
            }
        }
        if here.is_some() && best.is_none() {
            best = here;
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(48)))]

    #[test]
    fn ipv4_lookup_matches_naive_scan(
        routes in proptest::collection::vec((any::<u32>(), 0u8..=32, 0u32..4), 1..60),
        dsts in proptest::collection::vec(any::<u32>(), 1..60),
    ) {
        let (mut ns, d0) = ns_with_link();
        for (a, len, metric) in &routes {
            let p = Prefix4::new(*a, *len);
            let cfg = Route4Cfg {
                dst: p.addr,
                dst_len: p.len,
                priority: *metric,
                nh: NhCfg { gw: Some(Gateway::V4(0xc000_02fe)), dev: d0, ..Default::default() },
                ..Default::default()
            };
            let _ = ns.route4_modify(RouteOp::Add, &cfg);
        }
        let mut probes = dsts.clone();
        for (a, len, _) in &routes {
            let p = Prefix4::new(*a, *len);
            probes.push(p.addr);
            probes.push(p.addr | !fibkit::prefix::mask4(p.len));
        }
        for dst in probes {
            if dst == 0 || dst >> 28 == 0xe || dst == u32::MAX {
                continue;
            }
            let got = ns.route_get4(&Flow4 { dst, proto: 17, ..Default::default() });
            let want = naive4(&ns, dst);
            match (got, want) {
                (Ok(r), Some((p, m))) => {
                    let (route, prefix) = r.fib.expect("a FIB entry answered");
                    prop_assert_eq!(prefix, p, "dst {:#x}", dst);
                    prop_assert_eq!(route.info.priority, m);
                }
                (Err(e), None) => prop_assert_eq!(e, fibkit::Errno::ENETUNREACH),
                (g, w) => prop_assert!(false, "dst {:#x}: got {:?}, naive {:?}", dst, g.map(|r| r.fib.map(|f| f.1)), w),
            }
        }
    }

    #[test]
    fn ipv6_lookup_matches_naive_scan(
        routes in proptest::collection::vec((any::<u128>(), 0u8..=128, 1u32..4), 1..40),
        dsts in proptest::collection::vec(any::<u128>(), 1..40),
    ) {
        let (mut ns, d0) = ns_with_link();
        for (a, len, metric) in &routes {
            let p = Prefix6::new(*a, *len);
            let cfg = Route6Cfg {
                dst: p,
                metric: *metric,
                nh: NhCfg { gw: Some(Gateway::V6(0x2001_0db8_0001_u128 << 80 | 0xfe)), dev: d0, ..Default::default() },
                ..Default::default()
            };
            let _ = ns.route6_modify(RouteOp::Add, &cfg);
        }
        let mut probes = dsts.clone();
        for (a, len, _) in &routes {
            probes.push(Prefix6::new(*a, *len).addr);
        }
        for dst in probes {
            if dst >> 120 == 0xff || dst == 0 {
                continue;
            }
            let got = ns.route_get6(&Flow6 { dst, ..Default::default() });
            let want = naive6(&ns, dst);
            match (got, want) {
                (Ok(r), Some((p, m))) => {
                    prop_assert_eq!(r.route.dst, p, "dst {:#x}", dst);
                    prop_assert_eq!(r.metric, m);
                }
                (Err(e), None) => prop_assert_eq!(e, fibkit::Errno::ENETUNREACH),
                (g, w) => prop_assert!(false, "dst {:#x}: got {:?}, naive {:?}", dst, g.map(|r| r.route.dst), w),
            }
        }
    }
}

#[test]
fn failed_request_changes_nothing() {
    let (mut ns, d0) = ns_with_link();
    let before = format!(
        "{:?}",
        ns.tables4()
            .map(|t| t.iter().cloned().collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );
    // unreachable gateway, host bits set, missing device: all refused, state unchanged
    let bad = [
        Route4Cfg {
            dst: 0x0a00_0000,
            dst_len: 8,
            nh: NhCfg {
                gw: Some(Gateway::V4(0xcb00_7101)),
                ..Default::default()
            },
            ..Default::default()
        },
        Route4Cfg {
            dst: 0x0a01_0203,
            dst_len: 8,
            nh: NhCfg {
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        },
        Route4Cfg {
            dst: 0x0a00_0000,
            dst_len: 8,
            nh: NhCfg {
                dev: 99,
                ..Default::default()
            },
            ..Default::default()
        },
    ];
    for cfg in &bad {
        assert!(ns.route4_modify(RouteOp::Add, cfg).is_err());
    }
    let after = format!(
        "{:?}",
        ns.tables4()
            .map(|t| t.iter().cloned().collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );
    assert_eq!(before, after);
}

mod snapshot_equivalence {
    use super::*;
    use fibkit::route::{Pref, RouteType};
    use fibkit::snapshot::{Answer6, Snapshot};

    fn rtype(k: u8) -> RouteType {
        match k {
            0..=5 => RouteType::Unicast,
            6 => RouteType::Unreachable,
            7 => RouteType::Throw,
            8 => RouteType::Prohibit,
            _ => RouteType::Blackhole,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(common::cases(48)))]

        /// The compiled fast path answers exactly what the full lookup answers.
        #[test]
        fn fast6_equals_full_lookup(
            routes in proptest::collection::vec((any::<u128>(), 0u8..=64, 1u32..4, 0u8..10, any::<bool>(), 0u8..3), 1..50),
            locals in proptest::collection::vec((any::<u128>(), 0u8..=48), 0..4),
            dsts in proptest::collection::vec(any::<u128>(), 1..60),
            forwarding in any::<bool>(),
            failed_neigh in any::<bool>(),
            bare in any::<bool>(),
            rules in proptest::collection::vec((0u8..19, any::<u32>(), any::<prop::sample::Index>()), 0..4),
            // routes through a second interface at some routes' prefixes (metric 1..3,
            // 0: a gateway route), and source-specific routes (source prefix length)
            via_d1 in proptest::collection::vec((any::<prop::sample::Index>(), 0u32..4), 0..6),
            from_src in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=64, any::<bool>()), 0..3),
            // destinations whose plain routes are then deleted: with source-specific
            // routes left, the radix tree keys them with a child (scenario 317)
            unplain in proptest::collection::vec(any::<prop::sample::Index>(), 0..3),
            // a route at the first sub-prefix of a route's prefix (holding its address)
            firsts in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..16), 0..3),
        ) {
            let (mut ns, d0) = ns_with_link();
            let d1 = add_dummy(&mut ns, "d1");
            let gw = |b: bool| (0x2001_0db8_0001_u128 << 80) | if b { 0xfe } else { 0xfd };
            for (a, len, metric, k, g, pref) in &routes {
                let t = rtype(*k);
                let cfg = Route6Cfg {
                    dst: Prefix6::new(*a, *len),
                    metric: *metric,
                    rtype: t,
                    pref: [Pref::Low, Pref::Medium, Pref::High][*pref as usize],
                    nh: if t == RouteType::Unicast {
                        NhCfg { gw: Some(Gateway::V6(gw(*g))), dev: d0, ..Default::default() }
                    } else {
                        NhCfg::default()
                    },
                    ..Default::default()
                };
                let _ = ns.route6_modify(RouteOp::Append, &cfg);
            }
            for (at, metric) in &via_d1 {
                let (a, len, ..) = routes[at.index(routes.len())];
                let nh = if *metric == 0 {
                    NhCfg { gw: Some(Gateway::V6(gw(true))), dev: d0, ..Default::default() }
                } else {
                    NhCfg { dev: d1, ..Default::default() }
                };
                let cfg = Route6Cfg { dst: Prefix6::new(a, len), metric: *metric, nh, ..Default::default() };
                let _ = ns.route6_modify(RouteOp::Append, &cfg);
                let cfg = Route6Cfg { nh: NhCfg { dev: d1, ..Default::default() }, metric: 1, ..cfg };
                let _ = ns.route6_modify(RouteOp::Append, &cfg);
            }
            for (at, slen, unspecified) in &from_src {
                let (a, len, ..) = routes[at.index(routes.len())];
                // a source prefix holding `::` answers flows without a source too
                let base = if *unspecified { 0 } else { 0x2001_0db8_00ff_u128 << 80 };
                let cfg = Route6Cfg {
                    dst: Prefix6::new(a, len),
                    src: Prefix6::new(base, *slen),
                    nh: NhCfg { dev: d1, ..Default::default() },
                    ..Default::default()
                };
                let _ = ns.route6_modify(RouteOp::Add, &cfg);
            }
            for (at, k) in &firsts {
                let (a, len, ..) = routes[at.index(routes.len())];
                let cfg = Route6Cfg {
                    dst: Prefix6::new(Prefix6::new(a, len).addr, len + k),
                    nh: NhCfg { dev: d0, ..Default::default() },
                    ..Default::default()
                };
                let _ = ns.route6_modify(RouteOp::Add, &cfg);
            }
            for at in &unplain {
                // mostly the destinations of source-specific routes
                let (a, len, ..) = match from_src.get(at.index(from_src.len() + 1)) {
                    Some((i, ..)) => routes[i.index(routes.len())],
                    None => routes[at.index(routes.len())],
                };
                let cfg = Route6Cfg { dst: Prefix6::new(a, len), metric: 0, nh: NhCfg::default(), ..Default::default() };
                for _ in 0..8 {
                    if ns.route6_modify(RouteOp::Delete, &cfg).is_err() {
                        break;
                    }
                }
            }
            for (a, len) in &locals {
                let cfg = Route6Cfg {
                    table: tid::LOCAL,
                    dst: Prefix6::new(*a, *len),
                    rtype: RouteType::Local,
                    nh: NhCfg { dev: 1, ..Default::default() },
                    ..Default::default()
                };
                let _ = ns.route6_modify(RouteOp::Add, &cfg);
            }
            if bare {
                // without the routes the kernel makes for the special destinations
                // (multicast, link-local, loopback), the index's own entries for them
                // are all that keeps those destinations off the compiled answers
                for (table, a, len) in [(tid::LOCAL, 0xff << 120, 8), (tid::MAIN, 0xfe80 << 112, 64), (tid::LOCAL, 1, 128)] {
                    let cfg = Route6Cfg { table, dst: Prefix6::new(a, len), rtype: RouteType::Unspec, metric: 0, nh: NhCfg::default(), ..Default::default() };
                    while ns.route6_modify(RouteOp::Delete, &cfg).is_ok() {}
                }
            }
            if failed_neigh {
                let _ = ns.neigh_set(
                    fibkit::netns::Neighbour { dev: d0, addr: gw(true), v6: true, state: fibkit::netns::NudState::Failed, lladdr: None, flags: 0, managed: false, protocol: 0 },
                    true,
                );
            }
            if forwarding {
                ns.set_forwarding6(d0, true);
                ns.sysctl.v6_all.forwarding = 1;
            }
            let cfg = Route6Cfg {
                table: 100,
                dst: Prefix6::new(0, 0),
                nh: NhCfg { gw: Some(Gateway::V6(gw(false))), dev: d0, ..Default::default() },
                ..Default::default()
            };
            ns.route6_modify(RouteOp::Add, &cfg).expect("table 100");
            for (kind, bits, at) in &rules {
                let (a, len, ..) = routes[at.index(routes.len())];
                add_custom_rule(&mut ns, true, *kind, *bits, RulePrefix::V6(Prefix6::new(a, len)));
            }
            let mut probes = dsts.clone();
            for (a, len, ..) in &routes {
                let p = Prefix6::new(*a, *len);
                probes.push(p.addr);
                probes.push(p.addr | !fibkit::prefix::mask6(p.len));
            }
            // the destinations the compiled answers never cover, and their edges
            let ff = |hi: u128| hi << 112;
            probes.extend([ff(0xff02) | 1, ff(0xff00), u128::MAX, ff(0xfe80) | 1, ff(0xfebf) | 0xffff, ff(0xfec0) | 1, 1, 0, 2]);
            let snap = Snapshot::new(ns.clone());
            let view = snap.output6_view();
            let mut batch = vec![Answer6::Slow; probes.len()];
            snap.output6_batch(&probes, &mut batch);
            // the visiting form: every position once, in order, the same answers
            let mut seen = Vec::new();
            snap.output6_batch_with(&probes, |i, a| seen.push((i, *a)));
            prop_assert_eq!(seen.len(), probes.len());
            for (k, (i, a)) in seen.iter().enumerate() {
                prop_assert_eq!(*i, k);
                prop_assert_eq!(*a, batch[k]);
            }
            // every flow looked up, with the kernel-path answer, for the flow batch
            let mut flows = Vec::new();
            for (i, dst) in probes.iter().enumerate() {
                let fl = Flow6 { dst: *dst, ..Default::default() };
                let want = Answer6::of(ns.route_output6(&fl));
                prop_assert_eq!(snap.output6(&fl), want, "dst {:#x}", dst);
                prop_assert_eq!(*snap.output6_ref(&fl), want, "ref, dst {:#x}", dst);
                prop_assert_eq!(*view.output6_ref(&fl), want, "view, dst {:#x}", dst);
                prop_assert_eq!(batch[i], want, "batch dst {:#x}", dst);
                flows.push((fl, want));
                // flows some custom rules select (mark, protocol, traffic class), and
                // flows only the full lookup answers (source, interfaces)
                for fl in [
                    Flow6 { mark: 1, ..fl },
                    Flow6 { mark: 0xca6c, ..fl },
                    Flow6 { proto: 6, dport: 80, ..fl },
                    Flow6 { tos: 0x10, ..fl },
                    Flow6 { uid: 1, ..fl },
                    Flow6 { src: gw(false), ..fl },
                    Flow6 { oif: d0, ..fl },
                    // input routes, from either interface, with sources inside and
                    // outside the source-specific routes' prefixes, or none
                    Flow6 { iif: d0, src: 0x2001_0db8_00ff_u128 << 80 | 1, ..fl },
                    Flow6 { iif: d1, src: 0x2001_0db8_00ff_u128 << 80 | 1, ..fl },
                    Flow6 { iif: d1, src: 0x2001_0db8_0002_u128 << 80 | 7, ..fl },
                    Flow6 { iif: d0, src: gw(true), mark: 1, ..fl },
                    Flow6 { iif: d1, ..fl },
                    Flow6 { iif: 99, src: gw(true), ..fl },
                ] {
                    let want = Answer6::of(ns.route_output6(&fl));
                    prop_assert_eq!(snap.output6(&fl), want, "flow {:?}", fl);
                    prop_assert_eq!(*snap.output6_ref(&fl), want, "ref, flow {:?}", fl);
                    prop_assert_eq!(*view.output6_ref(&fl), want, "view, flow {:?}", fl);
                    flows.push((fl, want));
                }
            }
            // the flow batch: the same answers, in order
            let fls: Vec<Flow6> = flows.iter().map(|(fl, _)| *fl).collect();
            let mut got = vec![Answer6::Slow; fls.len()];
            snap.output6_flows_batch(&fls, &mut got);
            let mut seen = Vec::new();
            snap.output6_flows_batch_with(&fls, |i, a| seen.push((i, *a)));
            prop_assert_eq!(seen.len(), fls.len());
            for (k, ((fl, want), (i, a))) in flows.iter().zip(&seen).enumerate() {
                prop_assert_eq!(got[k], *want, "flow batch {:?}", fl);
                prop_assert_eq!((*i, *a), (k, *want), "flow batch in place {:?}", fl);
            }
            // a batch of flows no compiled answer can serve (it skips the walk), and
            // one of marked flows only (which may take compiled answers)
            for only in [
                flows.iter().filter(|(fl, _)| fl.src != 0 || fl.oif != 0 || fl.iif != 0).collect::<Vec<_>>(),
                flows.iter().filter(|(fl, _)| fl.mark != 0 && fl.src == 0 && fl.oif == 0 && fl.iif == 0).collect(),
            ] {
                let fls: Vec<_> = only.iter().map(|(fl, _)| *fl).collect();
                let mut got = vec![Answer6::Slow; fls.len()];
                snap.output6_flows_batch(&fls, &mut got);
                for ((fl, want), got) in only.iter().zip(&got) {
                    prop_assert_eq!(got, want, "one-kind flow batch {:?}", fl);
                }
            }
        }
    }
}

mod snapshot_equivalence4 {
    use super::*;
    use fibkit::route::RouteType;
    use fibkit::snapshot::{Answer4, Snapshot};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(common::cases(48)))]

        /// The compiled IPv4 fast path answers exactly what `ip route get` answers.
        #[test]
        fn fast4_equals_full_lookup(
            routes in proptest::collection::vec((any::<u32>(), 0u8..=32, 0u32..3, 0u8..12, any::<bool>()), 1..60),
            dsts in proptest::collection::vec(any::<u32>(), 1..60),
            default_table in any::<bool>(),
            rules in proptest::collection::vec((0u8..19, any::<u32>(), any::<prop::sample::Index>()), 0..4),
            input in (0u32..4, 0u32..3, 0u32..3, any::<bool>()),
        ) {
            let (mut ns, d0) = ns_with_link();
            // a second interface, and what the input routes read of the sysctls:
            // forwarding per interface, rp_filter (all, d1), accept_local on d1
            let d1 = add_dummy(&mut ns, "d1");
            add_addr4(&mut ns, d1, 0xcb00_7101, 24);
            let (fwd, rpf_all, rpf_d1, accept_local) = input;
            ns.sysctl.v4_dev.entry(d0).or_default().forwarding = fwd & 1;
            ns.sysctl.v4_dev.entry(d1).or_default().forwarding = fwd >> 1;
            ns.sysctl.v4_all.rp_filter = rpf_all;
            ns.sysctl.v4_dev.entry(d1).or_default().rp_filter = rpf_d1;
            ns.sysctl.v4_dev.entry(d1).or_default().accept_local = u32::from(accept_local);
            for (a, len, metric, k, src) in &routes {
                let p = Prefix4::new(*a, *len);
                let (t, table, nh, mp) = match k {
                    0..=4 => (RouteType::Unicast, tid::MAIN, NhCfg { gw: Some(Gateway::V4(0xc000_02fe)), dev: d0, ..Default::default() }, vec![]),
                    5 => (RouteType::Unicast, tid::MAIN, NhCfg { dev: d0, ..Default::default() }, vec![]),
                    6 => (RouteType::Unreachable, tid::MAIN, NhCfg::default(), vec![]),
                    7 => (RouteType::Throw, tid::MAIN, NhCfg::default(), vec![]),
                    8 => (RouteType::Prohibit, tid::MAIN, NhCfg::default(), vec![]),
                    9 => (RouteType::Local, tid::LOCAL, NhCfg { dev: 1, ..Default::default() }, vec![]),
                    10 => (RouteType::Broadcast, tid::LOCAL, NhCfg { dev: d0, ..Default::default() }, vec![]),
                    _ => (
                        RouteType::Unicast,
                        tid::MAIN,
                        NhCfg::default(),
                        vec![
                            NhCfg { gw: Some(Gateway::V4(0xc000_02fd)), dev: d0, weight: 1, ..Default::default() },
                            NhCfg { gw: Some(Gateway::V4(0xc000_02fe)), dev: d0, weight: 1, ..Default::default() },
                        ],
                    ),
                };
                let scope = match t {
                    RouteType::Local => 254,
                    RouteType::Broadcast => 253,
                    _ if nh.gw.is_none() && mp.is_empty() && t == RouteType::Unicast => 253,
                    _ => 0,
                };
                let cfg = Route4Cfg {
                    table,
                    dst: p.addr,
                    dst_len: p.len,
                    rtype: t,
                    scope,
                    priority: *metric,
                    prefsrc: if *src && t != RouteType::Unreachable && t != RouteType::Throw && t != RouteType::Prohibit { 0xc000_0201 } else { 0 },
                    nh,
                    multipath: mp,
                    ..Default::default()
                };
                let _ = ns.route4_modify(RouteOp::Append, &cfg);
            }
            if default_table {
                let cfg = Route4Cfg { table: tid::DEFAULT, dst: 0x0800_0000, dst_len: 8, nh: NhCfg { dev: d0, ..Default::default() }, scope: 253, ..Default::default() };
                let _ = ns.route4_modify(RouteOp::Add, &cfg);
            }
            let cfg = Route4Cfg {
                table: 100,
                nh: NhCfg { gw: Some(Gateway::V4(0xc000_02fd)), dev: d0, ..Default::default() },
                ..Default::default()
            };
            ns.route4_modify(RouteOp::Add, &cfg).expect("table 100");
            for (kind, bits, at) in &rules {
                let (a, len, ..) = routes[at.index(routes.len())];
                add_custom_rule(&mut ns, false, *kind, *bits, RulePrefix::V4(Prefix4::new(a, len)));
            }
            let mut probes = dsts.clone();
            for (a, len, ..) in &routes {
                let p = Prefix4::new(*a, *len);
                probes.push(p.addr);
                probes.push(p.addr | !fibkit::prefix::mask4(p.len));
            }
            // the destinations the compiled answers never cover, and their edges
            probes.extend([0, 1, 0xdfff_ffff, 0xe000_0000, 0xe000_0001, 0xefff_ffff, 0xf000_0000, 0xffff_fffe, 0xffff_ffff]);
            let snap = Snapshot::new(ns.clone());
            let mut batch = vec![Answer4::Slow; probes.len()];
            snap.output4_batch(&probes, &mut batch);
            let mut seen = Vec::new();
            snap.output4_batch_with(&probes, |i, a| seen.push((i, *a)));
            prop_assert_eq!(seen.len(), probes.len());
            for (k, (i, a)) in seen.iter().enumerate() {
                prop_assert_eq!(*i, k);
                prop_assert_eq!(*a, batch[k]);
            }
            // every flow looked up, with the kernel-path answer, for the flow batch
            let mut flows = Vec::new();
            for (i, dst) in probes.iter().enumerate() {
                let fl = Flow4 { dst: *dst, proto: 17, ..Default::default() };
                let want = Answer4::of(ns.route_get4(&fl));
                prop_assert_eq!(snap.output4(&fl), want, "dst {:#x}", dst);
                prop_assert_eq!(*snap.output4_ref(&fl), want, "ref, dst {:#x}", dst);
                prop_assert_eq!(batch[i], want, "batch dst {:#x}", dst);
                flows.push((fl, want));
                // flows some custom rules select (mark, protocol, TOS with ECN bits),
                // and flows only the full lookup answers (source, interfaces)
                for fl in [
                    Flow4 { mark: 1, ..fl },
                    Flow4 { mark: 0xca6c, ..fl },
                    Flow4 { proto: 6, dport: 80, ..fl },
                    Flow4 { tos: 0x11, ..fl },
                    Flow4 { tos: 0x02, ..fl },
                    Flow4 { uid: 1, ..fl },
                    Flow4 { src: 0xc000_0201, ..fl },
                    Flow4 { oif: d0, ..fl },
                    // input routes (forwarded or not, with every kind of source: remote,
                    // on-link on either side, a local address, another destination),
                    // which may take compiled input answers
                    Flow4 { iif: d0, src: 0xc633_6401, ..fl },
                    Flow4 { iif: d1, src: 0xc633_6401, ..fl },
                    Flow4 { iif: d0, src: 0xc000_0207, ..fl },
                    Flow4 { iif: d1, src: 0xc000_0207, ..fl },
                    Flow4 { iif: d1, src: 0xcb00_7107, ..fl },
                    Flow4 { iif: d0, src: 0xcb00_7107, tos: 0x01, ..fl },
                    Flow4 { iif: d1, src: 0xc000_0201, ..fl },
                    Flow4 { iif: d0, src: 0xcb00_7101, ..fl },
                    Flow4 { iif: d1, src: probes[(i + 1) % probes.len()], ..fl },
                    Flow4 { iif: d0, src: probes[(i + 7) % probes.len()], mark: 1, ..fl },
                    Flow4 { iif: 1, src: 0xc633_6401, ..fl },
                ] {
                    let want = Answer4::of(ns.route_get4(&fl));
                    prop_assert_eq!(snap.output4(&fl), want, "flow {:?}", fl);
                    prop_assert_eq!(*snap.output4_ref(&fl), want, "ref, flow {:?}", fl);
                    flows.push((fl, want));
                }
            }
            // the flow batch: the same answers, in order
            let fls: Vec<Flow4> = flows.iter().map(|(fl, _)| *fl).collect();
            let mut got = vec![Answer4::Slow; fls.len()];
            snap.output4_flows_batch(&fls, &mut got);
            let mut seen = Vec::new();
            snap.output4_flows_batch_with(&fls, |i, a| seen.push((i, *a)));
            prop_assert_eq!(seen.len(), fls.len());
            for (k, ((fl, want), (i, a))) in flows.iter().zip(&seen).enumerate() {
                prop_assert_eq!(got[k], *want, "flow batch {:?}", fl);
                prop_assert_eq!((*i, *a), (k, *want), "flow batch in place {:?}", fl);
            }
            // a batch of flows no compiled answer can serve (it skips the walk), and
            // one of marked flows only (which may take compiled answers)
            for only in [
                flows.iter().filter(|(fl, _)| fl.src != 0 || fl.oif != 0 || fl.iif != 0 || fl.tos & 0xfc != 0).collect::<Vec<_>>(),
                flows.iter().filter(|(fl, _)| fl.mark != 0 && fl.src == 0 && fl.oif == 0 && fl.iif == 0 && fl.tos & 0xfc == 0).collect(),
            ] {
                let fls: Vec<_> = only.iter().map(|(fl, _)| *fl).collect();
                let mut got = vec![Answer4::Slow; fls.len()];
                snap.output4_flows_batch(&fls, &mut got);
                for ((fl, want), got) in only.iter().zip(&got) {
                    prop_assert_eq!(got, want, "one-kind flow batch {:?}", fl);
                }
            }
        }
    }
}

/// Compiled input answers (forwarded packets) against the full input route, over every
/// combination of what `ip_route_input_slow` and `fib_validate_source` read: the input
/// interface's forwarding, rp_filter, accept_local, custom local routes, the way back
/// to the source (none, unreachable, through the input interface or another one, a
/// local or broadcast address), hairpin forwarding, an interface without addresses,
/// and custom rules selecting some input routes or some routes back to the source.
#[test]
fn compiled_input_answers_equal_the_full_input_route() {
    use fibkit::snapshot::{Answer4, Snapshot};
    use std::collections::BTreeSet;
    let mut compiled = BTreeSet::new();
    let mut hits = 0usize;
    let mut total = 0usize;
    let mut hits_with_rules = 0usize;
    for case in 0..96u32 {
        let (fwd, rpf, accept_local, custom_local) =
            (case & 1, (case >> 1) % 3, (case / 6) & 1, (case / 12) & 1);
        let wide_accept = case % 48 >= 24;
        let rules = case >= 48;
        let (mut ns, d0) = ns_with_link();
        let d1 = add_dummy(&mut ns, "d1");
        add_addr4(&mut ns, d1, 0xcb00_7101, 24);
        // no address: the reverse path check's last resort
        let d2 = add_dummy(&mut ns, "d2");
        let via = |ns: &mut Netns, dst: u32, len: u8, gw: Option<u32>, dev: u32| {
            let cfg = Route4Cfg {
                dst,
                dst_len: len,
                scope: if gw.is_some() { 0 } else { 253 },
                nh: NhCfg {
                    gw: gw.map(Gateway::V4),
                    dev,
                    ..Default::default()
                },
                ..Default::default()
            };
            ns.route4_modify(RouteOp::Add, &cfg).expect("route");
        };
        via(&mut ns, 0x0a00_0000, 8, Some(0xc000_0203), d0);
        via(&mut ns, 0x0a01_0000, 16, Some(0xcb00_7103), d1);
        via(&mut ns, 0xac10_0000, 12, None, d2);
        via(&mut ns, 0xc633_6400, 24, Some(0xcb00_7105), d1);
        let unreachable = Route4Cfg {
            dst: 0x0a02_0000,
            dst_len: 16,
            rtype: fibkit::route::RouteType::Unreachable,
            ..Default::default()
        };
        ns.route4_modify(RouteOp::Add, &unreachable)
            .expect("unreachable");
        if custom_local == 1 {
            let local = Route4Cfg {
                table: tid::LOCAL,
                dst: 0x0a09_0909,
                dst_len: 32,
                rtype: fibkit::route::RouteType::Local,
                scope: 254,
                nh: NhCfg {
                    dev: 1,
                    ..Default::default()
                },
                ..Default::default()
            };
            ns.route4_modify(RouteOp::Add, &local).expect("local");
        }
        if rules {
            let t100 = Route4Cfg {
                table: 100,
                nh: NhCfg {
                    gw: Some(Gateway::V4(0xcb00_7109)),
                    dev: d1,
                    ..Default::default()
                },
                ..Default::default()
            };
            ns.route4_modify(RouteOp::Add, &t100).expect("table 100");
            let p = |a: u32, len: u8| Some(RulePrefix::V4(Prefix4::new(a, len)));
            for spec in [
                // input routes from d1 to 10.1/16
                RuleSpec {
                    iif: Some("d1".into()),
                    dst: p(0x0a01_0000, 16),
                    action: Some(RuleAction::Lookup(100)),
                    ..Default::default()
                },
                // the routes back to d0's hosts from 10.0.0.1 (packets to 10.0.0.1)
                RuleSpec {
                    src: p(0x0a00_0001, 32),
                    dst: p(0xc000_0200, 24),
                    action: Some(RuleAction::Prohibit),
                    ..Default::default()
                },
                // output routes only
                RuleSpec {
                    oif: Some("d0".into()),
                    action: Some(RuleAction::Lookup(100)),
                    ..Default::default()
                },
                // marked packets to 198.51.0.0/16: with `src_valid_mark`, no route
                // back to a source there (and no forward lookup here selected)
                RuleSpec {
                    mark: Some(5),
                    dst: p(0xc633_0000, 16),
                    action: Some(RuleAction::Prohibit),
                    ..Default::default()
                },
            ] {
                ns.rule_add(false, &spec).expect("rule");
            }
        }
        // the route back to the source with the packet's mark, or without
        ns.sysctl.v4_all.src_valid_mark = u32::from(case % 3 == 0);
        for d in [d0, d1, d2] {
            let c = ns.sysctl.v4_dev.entry(d).or_default();
            c.forwarding = if d == d2 { 1 } else { fwd };
            c.accept_local = if d == d1 || wide_accept {
                accept_local
            } else {
                0
            };
        }
        ns.sysctl.v4_all.rp_filter = rpf;
        let snap = Snapshot::new(ns.clone());
        // (the last ones martian: loopback, multicast, limited broadcast)
        let dsts = [
            0x0a00_0001,
            0x0a01_0001,
            0x0a02_0001,
            0xac10_0001,
            0x6440_0001,
            0x0a09_0909,
            0x7f00_0001,
            0xe000_0001,
            0xffff_ffff,
        ];
        let srcs = [
            0xc633_6407, // remote, back through d1
            0xc000_0207, // on-link d0
            0xcb00_7107, // on-link d1
            0xc000_0201, // local (d0)
            0xcb00_7101, // local (d1)
            0xc000_02ff, // d0's broadcast
            0x0a02_0007, // back through an unreachable route
            0x6440_0007, // no way back
            0x0a00_0009, // back through d0 via a gateway
            0xac10_0009, // back through d2
            0x7f00_0001, // martian: loopback, multicast, limited broadcast
            0xe000_0005,
            0xffff_ffff,
        ];
        let mut flows = Vec::new();
        for &dst in &dsts {
            for &src in &srcs {
                // (and an interface the namespace does not have)
                for (iif, mark) in [(d0, 0), (d1, 0), (d2, 0), (99, 0), (d0, 5), (d1, 5)] {
                    let fl = Flow4 {
                        dst,
                        src,
                        iif,
                        mark,
                        proto: 17,
                        ..Default::default()
                    };
                    let want = Answer4::of(ns.route_get4(&fl));
                    assert_eq!(snap.output4(&fl), want, "case {case} {fl:?}");
                    // (the shares below count the unmarked flows: a marked one a
                    // rule may select takes the full lookup)
                    let counted = usize::from(mark == 0);
                    if let Some(a) = snap.precomputed_input4(&fl) {
                        assert_eq!(a, want, "case {case} compiled {fl:?}");
                        compiled.insert(format!("{a:?}"));
                        hits += counted;
                        hits_with_rules += counted * usize::from(rules);
                    }
                    total += counted;
                    flows.push((fl, want));
                }
            }
        }
        // the flow batch walks input flows' destinations: the same answers
        let fls: Vec<Flow4> = flows.iter().map(|(fl, _)| *fl).collect();
        let mut got = vec![Answer4::Slow; fls.len()];
        snap.output4_flows_batch(&fls, &mut got);
        for ((fl, want), got) in flows.iter().zip(&got) {
            assert_eq!(got, want, "case {case} batch {fl:?}");
        }
    }
    // a large share of the flows (every one not martian, nor on an unknown interface,
    // nor needing a check of a local or broadcast route) takes compiled answers, which
    // cover forwarding, the lookup's errors and both kinds of refusal
    assert!(hits * 4 > total, "{hits} of {total} compiled");
    // custom rules leave the input routes they do not select compiled
    assert!(
        hits_with_rules * 8 > total,
        "{hits_with_rules} of {total} compiled with rules"
    );
    for a in [
        "Route",
        "Error(EHOSTUNREACH)",
        "Error(EINVAL)",
        "Error(ENETUNREACH)",
    ] {
        assert!(
            compiled.iter().any(|c| c.starts_with(a)),
            "no compiled {a}: {compiled:?}"
        );
    }
}

/// A source-specific route on a short prefix answers an input route when the longer
/// prefix's only route has an unreachable gateway and forwarding is off: the kernel's
/// first pass (`RT6_LOOKUP_F_REACHABLE`) backtracks from the longer node into the
/// short one's subtree and finds the source-specific route there, while an output flow
/// (no source) finds nothing reachable and retries, taking the longer prefix's route.
/// The compiled output answer is the longer prefix's route; input flows must not take
/// it when their source can change the first pass. (Found by the IPv6 property test.)
#[test]
fn ipv6_input_backtracks_into_a_source_subtree_before_the_retry() {
    use fibkit::netns::{Neighbour, NudState};
    use fibkit::snapshot::{Answer6, Snapshot};
    for (failed, forwarding) in [(true, false), (false, false), (true, true)] {
        let (mut ns, d0) = ns_with_link();
        let d1 = add_dummy(&mut ns, "d1");
        let gw = 0x2001_0db8_0001_u128 << 80 | 0xfe;
        let short = Prefix6::new(0x6000_u128 << 112, 3);
        let long = Prefix6::new(0x7ef8_a682_07c6_1400_u128 << 64, 55);
        let via_gw = Route6Cfg {
            dst: long,
            metric: 1,
            nh: NhCfg {
                gw: Some(Gateway::V6(gw)),
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        };
        ns.route6_modify(RouteOp::Add, &via_gw).expect("long route");
        let from_src = Route6Cfg {
            dst: short,
            src: Prefix6::new(0x2001_0db8_00ff_u128 << 80, 43),
            nh: NhCfg {
                dev: d1,
                ..Default::default()
            },
            ..Default::default()
        };
        ns.route6_modify(RouteOp::Add, &from_src)
            .expect("source route");
        if failed {
            let n = Neighbour {
                dev: d0,
                addr: gw,
                v6: true,
                state: NudState::Failed,
                lladdr: None,
                flags: 0,
                managed: false,
                protocol: 0,
            };
            ns.neigh_set(n, true).expect("neighbour");
        }
        if forwarding {
            ns.set_forwarding6(d0, true);
            ns.sysctl.v6_all.forwarding = 1;
        }
        let snap = Snapshot::new(ns.clone());
        let dst = long.addr | 0x55;
        let plain = Flow6 {
            dst,
            ..Default::default()
        };
        let input = Flow6 {
            iif: d0,
            src: 0x2001_0db8_00ff_u128 << 80 | 1,
            ..plain
        };
        let out = Answer6::of(ns.route_output6(&plain));
        let want = Answer6::of(ns.route_output6(&input));
        assert_eq!(
            snap.output6(&plain),
            out,
            "failed {failed} forwarding {forwarding}"
        );
        assert_eq!(
            snap.output6(&input),
            want,
            "failed {failed} forwarding {forwarding}"
        );
        // the kernel's answers: the retry's route for the output flow; the
        // source-specific one for the input flow only when the first pass fails
        let dev = |a: Answer6| match a {
            Answer6::Route { dev, .. } => dev,
            other => panic!("not a route: {other:?}"),
        };
        assert_eq!(dev(out), d0);
        assert_eq!(dev(want), if failed && !forwarding { d1 } else { d0 });
        // input flows take the compiled answer exactly when the first pass cannot
        // reach the source-specific routes
        let compiled = (!failed || forwarding).then_some(want);
        assert_eq!(
            snap.precomputed_input6(&input),
            compiled,
            "failed {failed} forwarding {forwarding}"
        );
    }
}

/// Readers looking up while the writer publishes: every answer belongs to one committed
/// state (the gateway and the source always come from the same version of the route).
#[test]
fn readers_see_only_committed_states() {
    use fibkit::fib::Fib;
    use fibkit::snapshot::Answer4;
    let (mut ns, d0) = ns_with_link();
    // a second address, so that the two committed states differ in source too
    common::add_addr4(&mut ns, d0, 0xc633_6401, 24);
    let route = |gw: u32| Route4Cfg {
        dst: 0x0a00_0000,
        dst_len: 8,
        nh: NhCfg {
            gw: Some(Gateway::V4(gw)),
            dev: d0,
            ..Default::default()
        },
        ..Default::default()
    };
    ns.route4_modify(RouteOp::Add, &route(0xc000_02fe))
        .expect("route");
    let mut fib = Fib::new(ns);
    let states = [
        (0xc000_02feu32, 0xc000_0201u32),
        (0xc633_64feu32, 0xc633_6401u32),
    ];
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut handles = Vec::new();
    for _ in 0..2 {
        let mut r = fib.reader();
        let stop = stop.clone();
        handles.push(std::thread::spawn(move || {
            let mut seen = [0u64; 2];
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let a = r.snapshot().output4(&Flow4 {
                    dst: 0x0a01_0203,
                    proto: 17,
                    ..Default::default()
                });
                let Answer4::Route {
                    gateway: Some(Gateway::V4(gw)),
                    prefsrc,
                    ..
                } = a
                else {
                    panic!("unexpected answer {a:?}");
                };
                let i = states
                    .iter()
                    .position(|s| *s == (gw, prefsrc))
                    .expect("a committed state");
                seen[i] += 1;
            }
            seen
        }));
    }
    for i in 0..200 {
        let (gw, _) = states[(i + 1) % 2];
        fib.apply(|ns| {
            ns.route4_modify(RouteOp::Replace, &route(gw))
                .expect("replace")
        });
        fib.publish();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut total = 0;
    for h in handles {
        let seen = h.join().expect("reader ok");
        total += seen[0] + seen[1];
    }
    assert!(total > 0);
}

mod incremental_publish {
    use super::*;
    use fibkit::fib::Fib;
    use fibkit::snapshot::Answer4;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(common::cases(32)))]

        /// After batches of route changes, the incrementally recompiled answers equal the
        /// full lookup's.
        #[test]
        fn incremental_answers_equal_full_lookup(
            base in proptest::collection::vec((any::<u32>(), 0u8..=28, any::<bool>()), 1..40),
            batches in proptest::collection::vec(proptest::collection::vec((any::<u32>(), 0u8..=28, 0u8..7, any::<bool>()), 1..12), 1..5),
            dsts in proptest::collection::vec(any::<u32>(), 1..40),
            rules in proptest::collection::vec((0u8..19, any::<u32>(), any::<prop::sample::Index>()), 0..3),
            late_rule in (0usize..6, 0u8..19, any::<u32>()),
            special in any::<bool>(),
        ) {
            // routes at the prefixes the compiled answers never cover, changed by the
            // batches like the others
            let mut base = base.clone();
            if special {
                base.extend([(0xe000_0000, 4, true), (0xffff_ffff, 32, false), (0, 32, true), (0xe000_0000, 8, false)]);
            }
            let (mut ns, d0) = ns_with_link();
            let route = |a: u32, len: u8, g: bool| {
                let p = Prefix4::new(a, len);
                Route4Cfg {
                    dst: p.addr,
                    dst_len: p.len,
                    nh: NhCfg { gw: Some(Gateway::V4(if g { 0xc000_02fe } else { 0xc000_02fd })), dev: d0, ..Default::default() },
                    ..Default::default()
                }
            };
            for (a, len, g) in &base {
                let _ = ns.route4_modify(RouteOp::Add, &route(*a, *len, *g));
                // a more specific prefix that plain flows skip (its only entry has a tos):
                // its answer comes from the fallback through the covering prefix
                let tos = Route4Cfg { tos: 0x10, ..route(*a, (*len + 4).min(32), *g) };
                let _ = ns.route4_modify(RouteOp::Add, &tos);
            }
            let cfg = Route4Cfg { table: 100, ..route(0, 0, true) };
            ns.route4_modify(RouteOp::Add, &cfg).expect("table 100");
            for (kind, bits, at) in &rules {
                let (a, len, _) = base[at.index(base.len())];
                add_custom_rule(&mut ns, false, *kind, *bits, RulePrefix::V4(Prefix4::new(a, len)));
            }
            // forwarded packets (input routes) arriving on d0 or on d1
            let d1 = add_dummy(&mut ns, "d1");
            add_addr4(&mut ns, d1, 0xcb00_7101, 24);
            for d in [d0, d1] {
                ns.sysctl.v4_dev.entry(d).or_default().forwarding = 1;
            }
            let mut fib = Fib::new(ns);
            let mut reader = fib.reader();
            let mut probes = dsts.clone();
            for (bi, batch) in batches.iter().enumerate() {
                fib.apply(|ns| {
                    // a rule added between publications (the compiled guard follows)
                    if bi == late_rule.0 {
                        let (a, len, _) = base[late_rule.2 as usize % base.len()];
                        add_custom_rule(ns, false, late_rule.1, late_rule.2, RulePrefix::V4(Prefix4::new(a, len)));
                    }
                    for (k, (a, len, op, g)) in batch.iter().enumerate() {
                        // half of the changes hit a base prefix (whose more specific
                        // tos-only prefix falls back through it)
                        let (a, len) = if k % 2 == 0 {
                            let (ba, bl, _) = base[(*a as usize) % base.len()];
                            (ba, bl)
                        } else {
                            (*a, *len)
                        };
                        let (a, len) = (&a, &len);
                        let cfg = route(*a, *len, *g);
                        let _ = match op {
                            0 => ns.route4_modify(RouteOp::Replace, &cfg),
                            1 => ns.route4_modify(RouteOp::Delete, &Route4Cfg { rtype: fibkit::route::RouteType::Unspec, proto: 0, scope: 255, nh: NhCfg::default(), ..cfg }),
                            3 => ns.route4_modify(RouteOp::Add, &Route4Cfg { tos: 0x10, ..cfg }),
                            // a local route: merged or not, local answers first
                            4 => ns.route4_modify(RouteOp::Add, &Route4Cfg {
                                table: tid::LOCAL,
                                rtype: fibkit::route::RouteType::Local,
                                scope: 254,
                                prefsrc: 0xc000_0201,
                                nh: NhCfg { dev: 1, ..Default::default() },
                                ..cfg
                            }),
                            // table 100, which custom rules may look up
                            5 => ns.route4_modify(RouteOp::Replace, &Route4Cfg { table: 100, ..cfg }),
                            6 => ns.route4_modify(RouteOp::Delete, &Route4Cfg { table: 100, rtype: fibkit::route::RouteType::Unspec, proto: 0, scope: 255, nh: NhCfg::default(), ..cfg }),
                            _ => ns.route4_modify(RouteOp::Add, &cfg),
                        };
                    }
                });
                fib.publish();
                for (a, len, ..) in batch {
                    probes.push(Prefix4::new(*a, *len).addr);
                    probes.push(Prefix4::new(*a, *len).addr | 1);
                }
                for (a, len, _) in &base {
                    probes.push(Prefix4::new(*a, *len).addr);
                    probes.push(Prefix4::new(*a, (*len + 4).min(32)).addr);
                }
                let snap = reader.snapshot();
                let mut batch = vec![Answer4::Slow; probes.len()];
                snap.output4_batch(&probes, &mut batch);
                for (k, (dst, got)) in probes.iter().zip(&batch).enumerate() {
                    let fl = Flow4 { dst: *dst, proto: 17, ..Default::default() };
                    prop_assert_eq!(*got, Answer4::of(fib.netns().route_get4(&fl)), "batch {:#x}", dst);
                    let back = probes[(k + 1) % probes.len()];
                    for fl in [
                        fl,
                        Flow4 { mark: 1, ..fl },
                        Flow4 { proto: 6, ..fl },
                        Flow4 { uid: 1, ..fl },
                        Flow4 { iif: d1, src: 0xcb00_7107, ..fl },
                        Flow4 { iif: d0, src: 0xc000_0207, ..fl },
                        Flow4 { iif: d0, src: back, ..fl },
                    ] {
                        let want = Answer4::of(fib.netns().route_get4(&fl));
                        prop_assert_eq!(snap.output4(&fl), want, "flow {:?}", fl);
                    }
                }
            }
        }
    }
}

/// wg-quick's rules select every unmarked flow: the answers of the whole rule walk are
/// compiled for unmarked flows (main when it has more than its default route, else
/// the tunnel's table), and marked flows take the full lookup.
mod wg_quick {
    use super::*;
    use fibkit::fib::Fib;
    use fibkit::snapshot::{Answer4, Snapshot};

    fn route(d0: u32, table: u32, a: u32, len: u8, gw: Option<u32>) -> Route4Cfg {
        Route4Cfg {
            table,
            dst: a,
            dst_len: len,
            scope: if gw.is_some() { 0 } else { 253 },
            nh: NhCfg {
                gw: gw.map(Gateway::V4),
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// wg-quick's rules: `not fwmark 0xca6c lookup 51820`, `lookup main
    /// suppress_prefixlength 0`.
    fn wg_rules(ns: &mut Netns, v6: bool) {
        for spec in [
            RuleSpec {
                mark: Some(0xca6c),
                invert: true,
                action: Some(RuleAction::Lookup(51820)),
                ..Default::default()
            },
            RuleSpec {
                action: Some(RuleAction::Lookup(tid::MAIN)),
                suppress_prefixlen: Some(0),
                ..Default::default()
            },
        ] {
            ns.rule_add(v6, &spec).expect("rule");
        }
    }

    fn wg_namespace() -> (Netns, u32) {
        let (mut ns, d0) = ns_with_link();
        for (a, len, gw) in [
            (0, 0, 0xc000_02fe),
            (0x0a00_0000, 8, 0xc000_02fd),
            // a prefix whose first address is multicast (the rest is not)
            (0xe000_0000, 3, 0xc000_02fc),
        ] {
            ns.route4_modify(RouteOp::Add, &route(d0, tid::MAIN, a, len, Some(gw)))
                .expect("main route");
        }
        ns.route4_modify(RouteOp::Add, &route(d0, 51820, 0, 0, None))
            .expect("tunnel default");
        wg_rules(&mut ns, false);
        (ns, d0)
    }

    const DSTS: [u32; 5] = [
        0x0a01_0203,
        0x0808_0808,
        0xf000_0001,
        0xc000_0207,
        0x0a00_0000,
    ];

    fn check(snap: &Snapshot, ns: &Netns) {
        for dst in DSTS {
            let fl = Flow4 {
                dst,
                proto: 17,
                ..Default::default()
            };
            let want = Answer4::of(ns.route_get4(&fl));
            assert_eq!(snap.precomputed4(&fl), Some(want), "{dst:#x}");
            assert_eq!(snap.output4(&fl), want, "{dst:#x}");
            // the tunnel's own packets carry the mark: the full walk answers them
            let marked = Flow4 { mark: 0xca6c, ..fl };
            assert_eq!(snap.precomputed4(&marked), None, "{dst:#x}");
            assert_eq!(snap.output4(&marked), Answer4::of(ns.route_get4(&marked)));
        }
    }

    #[test]
    fn ipv6_unmarked_flows_take_compiled_answers_of_the_whole_walk() {
        use fibkit::snapshot::Answer6;
        let (mut ns, d0) = ns_with_link();
        let gw = |x: u128| (0x2001_0db8_0001_u128 << 80) | x;
        let route = |table: u32, a: u128, len: u8, g: Option<u128>| Route6Cfg {
            table,
            dst: Prefix6::new(a, len),
            nh: NhCfg {
                gw: g.map(Gateway::V6),
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        };
        let net = |hi: u128| hi << 80;
        ns.route6_modify(RouteOp::Add, &route(tid::MAIN, 0, 0, Some(gw(0xfe))))
            .expect("main default");
        ns.route6_modify(
            RouteOp::Add,
            &route(tid::MAIN, net(0x2001_0db8_0010), 48, Some(gw(0xfd))),
        )
        .expect("main /48");
        ns.route6_modify(RouteOp::Add, &route(51820, 0, 0, None))
            .expect("tunnel default");
        wg_rules(&mut ns, true);
        let mut fib = Fib::new(ns);
        let mut r = fib.reader();
        let dsts = [
            net(0x2001_0db8_0010) | 1,
            net(0x2606_4700) | 1,
            net(0x2001_0db8_0001) | 7,
        ];
        for step in 0..2 {
            if step == 1 {
                // a route in the tunnel's table, between publications
                fib.apply(|ns| {
                    ns.route6_modify(
                        RouteOp::Add,
                        &route(51820, net(0x2606_4700), 32, Some(gw(0x77))),
                    )
                    .expect("tunnel route");
                    // a second leg: the flow's hash picks the gateway
                    ns.route6_modify(
                        RouteOp::Append,
                        &route(51820, net(0x2606_4700), 32, Some(gw(0x78))),
                    )
                    .expect("second leg");
                });
                fib.publish();
                let snap = r.snapshot();
                for i in 0..32u16 {
                    let fl = Flow6 {
                        dst: net(0x2606_4700) | u128::from(i) << 40 | 9,
                        proto: 6,
                        sport: 1000 + i,
                        dport: 443,
                        ..Default::default()
                    };
                    assert_eq!(snap.precomputed6(&fl), None, "multipath");
                    let want = Answer6::of(fib.netns().route_output6(&fl));
                    assert_eq!(snap.output6(&fl), want, "{fl:?}");
                }
            }
            let snap = r.snapshot();
            for dst in dsts {
                let fl = Flow6 {
                    dst,
                    ..Default::default()
                };
                let want = Answer6::of(fib.netns().route_output6(&fl));
                // (the tunnel's multipath route: the full lookup hashes the flow)
                let multipath = step == 1 && Prefix6::new(net(0x2606_4700), 32).contains(dst);
                let compiled = (!multipath).then_some(want);
                assert_eq!(snap.precomputed6(&fl), compiled, "{dst:#x}");
                assert_eq!(snap.output6(&fl), want, "{dst:#x}");
                let marked = Flow6 { mark: 0xca6c, ..fl };
                assert_eq!(snap.precomputed6(&marked), None, "{dst:#x}");
                assert_eq!(
                    snap.output6(&marked),
                    Answer6::of(fib.netns().route_output6(&marked))
                );
            }
        }
    }

    #[test]
    fn destinations_no_table_covers_take_the_walks_answer() {
        // no default route anywhere: an address outside every prefix gets what the
        // rules end with (here a prohibit rule after main), compiled like the rest
        use fibkit::snapshot::{Answer6, Snapshot};
        let (mut ns, _) = ns_with_link();
        for (v6, spec) in [false, true].into_iter().flat_map(|v6| {
            [
                RuleSpec {
                    pref: Some(100),
                    action: Some(RuleAction::Lookup(100)),
                    ..Default::default()
                },
                RuleSpec {
                    pref: Some(40000),
                    action: Some(RuleAction::Prohibit),
                    ..Default::default()
                },
            ]
            .map(|r| (v6, r))
        }) {
            ns.rule_add(v6, &spec).expect("rule");
        }
        let snap = Snapshot::new(ns.clone());
        let fl6 = Flow6 {
            dst: 0x2606_4700_u128 << 96 | 1,
            ..Default::default()
        };
        let want6 = Answer6::of(ns.route_output6(&fl6));
        // (the premise: the rules' end differs from "no route"; the prohibit action's
        // errno itself is recorded from the kernel in conformance scenario 208)
        assert_ne!(want6, Answer6::Error(fibkit::Errno::ENETUNREACH));
        assert_eq!(snap.precomputed6(&fl6), Some(want6));
        let fl4 = Flow4 {
            dst: 0x0808_0808,
            ..Default::default()
        };
        let want4 = Answer4::of(ns.route_get4(&fl4));
        assert_ne!(want4, Answer4::Error(fibkit::Errno::ENETUNREACH));
        assert_eq!(snap.precomputed4(&fl4), Some(want4));
    }

    #[test]
    fn one_rule_selecting_every_unmarked_flow_is_compiled_in() {
        // wg-quick's first rule alone: every unmarked flow goes the tunnel's way
        let (mut ns, _) = wg_namespace();
        ns.rule_del(
            false,
            &RuleSpec {
                action: Some(RuleAction::Lookup(tid::MAIN)),
                suppress_prefixlen: Some(0),
                ..Default::default()
            },
        )
        .expect("rule gone");
        check(&Snapshot::new(ns.clone()), &ns);
    }

    #[test]
    fn unmarked_flows_take_compiled_answers_of_the_whole_walk() {
        let (ns, _) = wg_namespace();
        let snap = Snapshot::new(ns.clone());
        check(&snap, &ns);
        // the default route via the tunnel, the rest via main
        let via = |dst| match snap.output4(&Flow4 {
            dst,
            ..Default::default()
        }) {
            Answer4::Route { table, .. } => table,
            other => panic!("{other:?}"),
        };
        assert_eq!(via(0x0808_0808), 51820);
        assert_eq!(via(0x0a01_0203), tid::MAIN);
    }

    #[test]
    fn changes_in_the_tunnel_table_reach_the_compiled_answers() {
        let (ns, d0) = wg_namespace();
        let mut fib = Fib::new(ns);
        let mut r = fib.reader();
        check(r.snapshot(), fib.netns());
        // one route change per publication, each checked
        let steps: [(RouteOp, Route4Cfg); 4] = [
            // a route in the tunnel's table only (main answers 10/8 first; 8.8.0.0/16
            // now goes the tunnel's new way)
            (
                RouteOp::Add,
                route(d0, 51820, 0x0808_0000, 16, Some(0xc000_0207)),
            ),
            // main's 8.0.0.0/8 answers inside the tunnel table's 8.8.0.0/16 (main comes
            // first and its match is longer than /0): changing it changes that answer
            (
                RouteOp::Add,
                route(d0, tid::MAIN, 0x0800_0000, 8, Some(0xc000_02fb)),
            ),
            (
                RouteOp::Replace,
                route(d0, tid::MAIN, 0x0800_0000, 8, Some(0xc000_02fa)),
            ),
            (RouteOp::Delete, route(d0, 51820, 0, 0, None)),
        ];
        for (op, cfg) in steps {
            fib.apply(|ns| ns.route4_modify(op, &cfg)).expect("change");
            fib.publish();
            check(r.snapshot(), fib.netns());
        }
    }
}

/// The writer hands the answer compiler the slot each changed prefix was held in; a
/// slot freed by a delete and taken by another prefix in the same batch, or left
/// empty, must not be mistaken for the prefix's own.
mod incremental_slots {
    use super::*;
    use fibkit::fib::Fib;
    use fibkit::snapshot::Answer4;

    fn route(d0: u32, a: u32, len: u8, gw: u32) -> Route4Cfg {
        Route4Cfg {
            dst: a,
            dst_len: len,
            nh: NhCfg {
                gw: Some(Gateway::V4(gw)),
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn delete(a: u32, len: u8) -> Route4Cfg {
        Route4Cfg {
            dst: a,
            dst_len: len,
            rtype: fibkit::route::RouteType::Unspec,
            proto: 0,
            scope: 255,
            ..Default::default()
        }
    }

    fn check(fib: &mut Fib, dsts: &[u32]) {
        let mut r = fib.reader();
        let snap = r.snapshot();
        for d in dsts {
            let fl = Flow4 {
                dst: *d,
                ..Default::default()
            };
            let want = Answer4::of(fib.netns().route_get4(&fl));
            assert_eq!(snap.output4(&fl), want, "{d:#x}");
        }
    }

    #[test]
    fn freed_and_reused_slots_are_not_trusted() {
        let (mut ns, d0) = ns_with_link();
        let (a, b, c) = (0xc000_0201, 0xc000_0202, 0xc000_0203);
        ns.route4_modify(RouteOp::Add, &route(d0, 0x0a00_0000, 8, a))
            .unwrap();
        ns.route4_modify(RouteOp::Add, &route(d0, 0x0a01_0200, 24, b))
            .unwrap();
        let mut fib = Fib::new(ns);
        let probes = [0x0a01_0201, 0x0a02_0001, 0xc0a8_0501];
        check(&mut fib, &probes);
        // the /24 (longer than the index top level: its slot is handed on) goes and a
        // new prefix takes its slot, in one batch
        fib.apply(|ns| {
            ns.route4_modify(RouteOp::Delete, &delete(0x0a01_0200, 24))
                .unwrap();
            ns.route4_modify(RouteOp::Add, &route(d0, 0xc0a8_0500, 24, c))
                .unwrap();
        });
        fib.publish();
        check(&mut fib, &probes);
        // deleted alone (its slot left empty), then the covering prefix changes
        fib.apply(|ns| {
            ns.route4_modify(RouteOp::Add, &route(d0, 0x0a01_0200, 24, b))
                .unwrap();
        });
        fib.publish();
        check(&mut fib, &probes);
        fib.apply(|ns| {
            ns.route4_modify(RouteOp::Delete, &delete(0x0a01_0200, 24))
                .unwrap();
        });
        fib.publish();
        check(&mut fib, &probes);
        fib.apply(|ns| {
            ns.route4_modify(RouteOp::Replace, &route(d0, 0x0a00_0000, 8, c))
                .unwrap();
        });
        fib.publish();
        check(&mut fib, &probes);
    }
}

mod incremental_publish6 {
    use super::*;
    use fibkit::fib::Fib;
    use fibkit::route::RouteType;
    use fibkit::snapshot::Answer6;

    fn rtype(k: u8) -> RouteType {
        match k {
            0..=4 => RouteType::Unicast,
            5 => RouteType::Unreachable,
            6 => RouteType::Throw,
            7 => RouteType::Prohibit,
            _ => RouteType::Blackhole,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(common::cases(32)))]

        /// After batches of IPv6 route changes in local and main, the incrementally
        /// recompiled answers equal the full lookup's.
        #[test]
        fn incremental6_answers_equal_full_lookup(
            base in proptest::collection::vec((any::<u128>(), 0u8..=64, 0u8..9, any::<bool>()), 1..30),
            batches in proptest::collection::vec(proptest::collection::vec((any::<u128>(), 0u8..=64, 0u8..7, 0u8..9, any::<bool>()), 1..12), 1..5),
            dsts in proptest::collection::vec(any::<u128>(), 1..30),
            rules in proptest::collection::vec((0u8..19, any::<u32>(), any::<prop::sample::Index>()), 0..3),
            late_rule in (0usize..6, 0u8..19, any::<u32>()),
            special in any::<bool>(),
        ) {
            let mut base = base.clone();
            if special {
                base.extend([(0xff << 120, 8, 0, true), (0xfe80 << 112, 10, 1, true), (1, 128, 0, false), (0xff02 << 112, 16, 0, true)]);
            }
            let (mut ns, d0) = ns_with_link();
            let d1 = add_dummy(&mut ns, "d1");
            let gw = |b: bool| (0x2001_0db8_0001_u128 << 80) | if b { 0xfe } else { 0xfd };
            let route = |a: u128, len: u8, k: u8, g: bool, table: u32| {
                // local routes are local, or throw (lookups fall through to main)
                let t = match (table == tid::LOCAL, k % 2) {
                    (true, 0) => RouteType::Local,
                    (true, _) => RouteType::Throw,
                    _ => rtype(k),
                };
                Route6Cfg {
                    table,
                    dst: Prefix6::new(a, len),
                    rtype: t,
                    metric: 1 + u32::from(k % 3),
                    nh: match t {
                        // (every third through d1: a node may hold both devices,
                        // which input routes from either one tell apart)
                        RouteType::Unicast if k % 3 == 2 => NhCfg { dev: d1, ..Default::default() },
                        RouteType::Unicast => NhCfg { gw: Some(Gateway::V6(gw(g))), dev: d0, ..Default::default() },
                        RouteType::Local => NhCfg { dev: 1, ..Default::default() },
                        _ => NhCfg::default(),
                    },
                    ..Default::default()
                }
            };
            for (a, len, k, g) in &base {
                let _ = ns.route6_modify(RouteOp::Append, &route(*a, *len, *k, *g, tid::MAIN));
            }
            let cfg = Route6Cfg { table: 100, ..route(0, 0, 0, true, tid::MAIN) };
            ns.route6_modify(RouteOp::Add, &cfg).expect("table 100");
            for (kind, bits, at) in &rules {
                let (a, len, ..) = base[at.index(base.len())];
                add_custom_rule(&mut ns, true, *kind, *bits, RulePrefix::V6(Prefix6::new(a, len)));
            }
            let mut fib = Fib::new(ns);
            let mut reader = fib.reader();
            let mut probes = dsts.clone();
            for (bi, batch) in batches.iter().enumerate() {
                fib.apply(|ns| {
                    if bi == late_rule.0 {
                        let (a, len, ..) = base[late_rule.2 as usize % base.len()];
                        add_custom_rule(ns, true, late_rule.1, late_rule.2, RulePrefix::V6(Prefix6::new(a, len)));
                    }
                    for (i, (a, len, op, k, g)) in batch.iter().enumerate() {
                        // half of the changes hit a base prefix or one covering it
                        let (a, len) = if i % 2 == 0 {
                            let (ba, bl, ..) = base[(*a as usize) % base.len()];
                            (ba, bl.saturating_sub(*len % 3 * 8))
                        } else {
                            (*a, *len)
                        };
                        // 4: the local table; 5 and 6: table 100, which custom rules
                        // may look up
                        let table = match op {
                            4 => tid::LOCAL,
                            5 | 6 => 100,
                            _ => tid::MAIN,
                        };
                        let cfg = route(a, len, *k, *g, table);
                        let _ = match op {
                            0 | 5 => ns.route6_modify(RouteOp::Replace, &cfg),
                            6 => ns.route6_modify(RouteOp::Delete, &Route6Cfg { rtype: RouteType::Unspec, metric: 0, nh: NhCfg::default(), ..cfg }),
                            1 => ns.route6_modify(RouteOp::Delete, &Route6Cfg { rtype: RouteType::Unspec, metric: 0, nh: NhCfg::default(), ..cfg }),
                            2 => ns.route6_modify(RouteOp::Append, &cfg),
                            _ => ns.route6_modify(RouteOp::Add, &cfg),
                        };
                    }
                });
                fib.publish();
                for (a, len, ..) in batch {
                    probes.push(Prefix6::new(*a, *len).addr);
                    probes.push(Prefix6::new(*a, *len).addr | 1);
                }
                for (a, len, ..) in &base {
                    probes.push(Prefix6::new(*a, *len).addr);
                    probes.push(Prefix6::new(*a, len.saturating_sub(8)).addr);
                }
                let snap = reader.snapshot();
                let mut batch = vec![Answer6::Slow; probes.len()];
                snap.output6_batch(&probes, &mut batch);
                for (dst, got) in probes.iter().zip(&batch) {
                    let fl = Flow6 { dst: *dst, ..Default::default() };
                    prop_assert_eq!(*got, Answer6::of(fib.netns().route_output6(&fl)), "batch {:#x}", dst);
                    for fl in [
                        fl,
                        Flow6 { mark: 1, ..fl },
                        Flow6 { proto: 6, ..fl },
                        Flow6 { uid: 1, ..fl },
                        Flow6 { iif: d0, src: gw(true), ..fl },
                        Flow6 { iif: d1, src: gw(false), ..fl },
                    ] {
                        let want = Answer6::of(fib.netns().route_output6(&fl));
                        prop_assert_eq!(snap.output6(&fl), want, "flow {:?}", fl);
                    }
                }
            }
        }
    }
}

/// The prefix of change `i` of a copies test: even changes hit a base prefix (the
/// `sel`-th, modulo), odd ones the change's own.
fn pick_change<A: Copy, G>(i: usize, sel: usize, own: (A, u8), base: &[(A, u8, G)]) -> (A, u8) {
    if i % 2 == 0 {
        let (a, l, _) = &base[sel % base.len()];
        (*a, *l)
    } else {
        own
    }
}

mod copies4 {
    use super::*;
    use fibkit::snapshot::Answer4;

    /// `ns_with_link` plus link `d1` (up) holding 198.51.100.1/24.
    fn ns_with_two_links() -> (Netns, u32, u32) {
        let (mut ns, d0) = ns_with_link();
        let d1 = common::add_dummy(&mut ns, "d1");
        common::add_addr4(&mut ns, d1, 0xc633_6401, 24);
        (ns, d0, d1)
    }

    fn answers(n: &Netns, probes: &[u32]) -> Vec<Answer4> {
        probes
            .iter()
            .map(|d| {
                Answer4::of(n.route_get4(&Flow4 {
                    dst: *d,
                    ..Default::default()
                }))
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(common::cases(32)))]

        /// IPv4 copies share route infos (equal infos are one allocation) and table
        /// slots (chunks copied on change): changes and device events applied to the
        /// original and to a copy give the same answers, and leave an earlier copy as
        /// it was.
        #[test]
        fn copies_change_independently(
            base in proptest::collection::vec((any::<u32>(), 0u8..=32, 0u8..4), 1..60),
            changes in proptest::collection::vec((any::<u32>(), 0u8..=32, 0u8..4, any::<bool>()), 1..40),
            down_at in 0usize..40,
            dsts in proptest::collection::vec(any::<u32>(), 1..30),
        ) {
            let (mut ns, d0, d1) = ns_with_two_links();
            // four nexthops, two per device: many routes share each info
            let route = |a: u32, len: u8, g: u8| {
                let (gw, dev) = match g {
                    0 => (0xc000_02fe, d0),
                    1 => (0xc000_02fd, d0),
                    2 => (0xc633_64fe, d1),
                    _ => (0xc633_64fd, d1),
                };
                let p = Prefix4::new(a, len);
                Route4Cfg {
                    dst: p.addr,
                    dst_len: p.len,
                    nh: NhCfg { gw: Some(Gateway::V4(gw)), dev, ..Default::default() },
                    ..Default::default()
                }
            };
            for (a, len, g) in &base {
                let _ = ns.route4_modify(RouteOp::Add, &route(*a, *len, *g));
            }
            let mut probes = dsts.clone();
            probes.extend(base.iter().map(|(a, l, _)| Prefix4::new(*a, *l).addr));
            let frozen = ns.clone();
            let before = answers(&ns, &probes);
            let mut copy = ns.clone();
            for (i, (a, len, g, del)) in changes.iter().enumerate() {
                if i == down_at {
                    ns.link_set_up(d1, false).expect("down");
                    copy.link_set_up(d1, false).expect("down");
                }
                let (a, len) = pick_change(i, *a as usize, (*a, *len), &base);
                let cfg = route(a, len, *g);
                let op = if *del { RouteOp::Delete } else { RouteOp::Replace };
                let r1 = ns.route4_modify(op, &cfg).map_err(|e| e.errno);
                let r2 = copy.route4_modify(op, &cfg).map_err(|e| e.errno);
                prop_assert_eq!(r1, r2);
                probes.push(Prefix4::new(a, len).addr);
            }
            prop_assert_eq!(answers(&copy, &probes), answers(&ns, &probes));
            prop_assert_eq!(answers(&frozen, &probes[..before.len()]), before);
            // the device event removed every route through d1 from both (and a route
            // through a device that is down cannot be added again)
            let via_d1 = |n: &Netns| n.table4(tid::MAIN).map_or(0, |t| {
                t.iter().filter(|r| r.info.nhs.iter().any(|h| h.dev == d1)).count()
            });
            if down_at < changes.len() {
                prop_assert_eq!((via_d1(&ns), via_d1(&copy)), (0, 0));
            }
        }
    }
}

mod copies {
    use super::*;
    use fibkit::snapshot::Answer6;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(common::cases(32)))]

        /// A copy of a namespace (what a snapshot holds) shares its tables' storage: changing
        /// the copy or the original afterwards leaves the other untouched, and a changed
        /// copy answers as the original does after the same changes.
        #[test]
        fn copies_change_independently(
            base in proptest::collection::vec((any::<u128>(), 0u8..=64, any::<bool>()), 1..40),
            changes in proptest::collection::vec((any::<u128>(), 0u8..=64, any::<bool>(), any::<bool>()), 1..40),
            dsts in proptest::collection::vec(any::<u128>(), 1..30),
        ) {
            let (mut ns, d0) = ns_with_link();
            let gw = |b: bool| (0x2001_0db8_0001_u128 << 80) | if b { 0xfe } else { 0xfd };
            let route = |a: u128, len: u8, g: bool| Route6Cfg {
                dst: Prefix6::new(a, len),
                nh: NhCfg { gw: Some(Gateway::V6(gw(g))), dev: d0, ..Default::default() },
                ..Default::default()
            };
            for (a, len, g) in &base {
                let _ = ns.route6_modify(RouteOp::Add, &route(*a, *len, *g));
            }
            let frozen = ns.clone();
            let mut copy = ns.clone();
            let mut probes = dsts.clone();
            for (a, len, ..) in base.iter().map(|(a, l, g)| (a, l, g)) {
                probes.push(Prefix6::new(*a, *len).addr);
            }
            let answers = |n: &Netns, probes: &[u128]| -> Vec<Answer6> {
                probes
                    .iter()
                    .map(|d| Answer6::of(n.route_output6(&Flow6 { dst: *d, ..Default::default() })))
                    .collect()
            };
            let before = answers(&ns, &probes);
            for (i, (a, len, g, del)) in changes.iter().enumerate() {
                let (a, len) = pick_change(i, *a as usize, (*a, *len), &base);
                let cfg = route(a, len, *g);
                let op = if *del { RouteOp::Delete } else { RouteOp::Replace };
                let cfg = if *del { Route6Cfg { nh: NhCfg::default(), ..cfg } } else { cfg };
                let r1 = ns.route6_modify(op, &cfg).map_err(|e| e.errno);
                let r2 = copy.route6_modify(op, &cfg).map_err(|e| e.errno);
                prop_assert_eq!(r1, r2);
                probes.push(Prefix6::new(a, len).addr);
            }
            prop_assert_eq!(answers(&copy, &probes), answers(&ns, &probes));
            prop_assert_eq!(answers(&frozen, &probes[..before.len()]), before);
        }
    }
}

/// Replaced snapshots are freed by the writer once no reader holds them: a reader still
/// on an old snapshot keeps it alive (retired, not freed), and the publication after the
/// reader moved on frees it.
#[test]
fn writer_frees_replaced_snapshots_once_readers_let_go() {
    use fibkit::fib::Fib;
    let (ns, _d0) = ns_with_link();
    let mut fib = Fib::new(ns);
    let mut r = fib.reader();
    let _ = r.snapshot();
    assert_eq!(fib.retired(), 0);
    fib.publish();
    // the reader has not looked since: its snapshot (generation 1) is retired, not freed
    assert_eq!(fib.retired(), 1);
    fib.publish();
    // still held by the reader: generations 1 and 2 both wait
    assert_eq!(fib.retired(), 2);
    let _ = r.snapshot();
    assert_eq!(r.generation(), 3);
    fib.publish();
    // the reader let go of generation 1 (and never took 2): both are freed; 3 waits
    assert_eq!(fib.retired(), 1);
    drop(r);
    fib.publish();
    assert_eq!(fib.retired(), 1);
}

/// A copy of a namespace (a snapshot's) leaves out the IPv6 tables' destination map and
/// answers from their persistent key map; changed, it rebuilds the map. Both must
/// behave exactly as the original, source-specific routes included.
mod table6_copies {
    use super::*;

    fn route(d0: u32, dst: u128, len: u8, src: Option<(u128, u8)>, g: u8) -> Route6Cfg {
        Route6Cfg {
            dst: Prefix6::new(dst, len),
            src: src.map_or(Prefix6::default(), |(a, l)| Prefix6::new(a, l)),
            nh: NhCfg {
                gw: Some(Gateway::V6((0x2001_0db8_0001_u128 << 80) | u128::from(g))),
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn same(a: &Netns, b: &Netns, probes: &[(u128, u128)]) -> Result<(), TestCaseError> {
        for (dst, src) in probes {
            let fl = Flow6 {
                dst: *dst,
                src: *src,
                ..Default::default()
            };
            let x = fibkit::snapshot::Answer6::of(a.route_output6(&fl));
            let y = fibkit::snapshot::Answer6::of(b.route_output6(&fl));
            prop_assert_eq!(x, y, "{:?}", fl);
        }
        let (ta, tb) = (
            a.table6(tid::MAIN).expect("main"),
            b.table6(tid::MAIN).expect("main"),
        );
        let mut da: Vec<Prefix6> = ta.dsts().collect();
        let mut db: Vec<Prefix6> = tb.dsts().collect();
        da.sort_unstable();
        db.sort_unstable();
        prop_assert_eq!(&da, &db);
        for d in &da {
            prop_assert_eq!(ta.has_subtree(*d), tb.has_subtree(*d));
            prop_assert_eq!(ta.longest_cover(*d), tb.longest_cover(*d));
            prop_assert_eq!(
                ta.dest(*d).map(|(l, s)| (l.cloned(), s)),
                tb.dest(*d).map(|(l, s)| (l.cloned(), s))
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(common::cases(48)))]

        #[test]
        fn copies_answer_and_change_like_the_original(
            base in proptest::collection::vec((0u128..8, 0u8..=64, proptest::option::of((0u128..4, 0u8..=64)), 0u8..4), 1..30),
            changes in proptest::collection::vec((0u128..8, 0u8..=64, proptest::option::of((0u128..4, 0u8..=64)), 0u8..4, any::<bool>()), 1..20),
        ) {
            let (mut ns, d0) = ns_with_link();
            // destinations and sources close together so that they nest
            let dst = |x: u128| (0x2001_0db8_0100_u128 << 80) | (x << 76);
            let src = |x: u128| (0x2001_0db8_0200_u128 << 80) | (x << 100);
            for (d, l, s, g) in &base {
                let _ = ns.route6_modify(RouteOp::Add, &route(d0, dst(*d), *l, s.map(|(a, sl)| (src(a), sl)), *g));
            }
            let mut probes = Vec::new();
            for x in 0..8u128 {
                for y in [0u128, src(0) | 1, src(3) | 9] {
                    probes.push((dst(x) | 5, y));
                }
            }
            // some destinations deleted before the copy (their records freed)
            for (d, l, s, g) in base.iter().step_by(3) {
                let cfg = route(d0, dst(*d), *l, s.map(|(a, sl)| (src(a), sl)), *g);
                let _ = ns.route6_modify(RouteOp::Delete, &Route6Cfg { nh: NhCfg::default(), ..cfg });
            }
            // a copy answers from its key map
            let copy = ns.clone();
            same(&ns, &copy, &probes)?;
            // and changed like the original, it stays the same
            let mut copy = copy;
            for (d, l, s, g, add) in &changes {
                let cfg = route(d0, dst(*d), *l, s.map(|(a, sl)| (src(a), sl)), *g);
                let op = if *add { RouteOp::Add } else { RouteOp::Delete };
                let cfg = if *add { cfg } else { Route6Cfg { nh: NhCfg::default(), ..cfg } };
                let x = ns.route6_modify(op, &cfg).is_ok();
                let y = copy.route6_modify(op, &cfg).is_ok();
                prop_assert_eq!(x, y);
            }
            same(&ns, &copy, &probes)?;
        }
    }
}

/// Inside a bulk change the IPv6 gateway checks are remembered; every outcome must
/// still be the one of the same changes made one at a time.
mod gateway_checks_in_bulk {
    use super::*;
    use fibkit::addr::Addr6;
    use fibkit::route::RouteType;

    const NET1: u128 = 0x2001_0db8_0001_u128 << 80;
    /// (kind, destination, gateway, table, device and flags), see [`change`].
    type Op = (u8, u8, u8, u8, u8);
    const NET2: u128 = 0x2001_0db8_0002_u128 << 80;

    /// One change: the gateways sit in 2001:db8:1::/64 (d0's subnet) and
    /// 2001:db8:2::/64 (reachable only through routes the changes add), and the
    /// destinations cover them at many lengths, so that changes keep altering how the
    /// gateways resolve.
    fn change(ns: &mut Netns, (d0, d1): (u32, u32), op: Op) -> String {
        let (kind, d, g, t, x) = op;
        let dsts = [
            (NET2, 64),
            (NET2 | 0xfe, 128),
            (NET2, 120),
            (NET1, 64),
            (0, 0),
        ];
        let gws = [
            NET2 | 0xfe,
            NET1 | 0xfe,
            NET2 | 0x1,
            NET1 | 1,
            0xfe80 << 112 | 1,
        ];
        let (a, len) = dsts[usize::from(d) % dsts.len()];
        let table = if t % 2 == 1 { 100 } else { tid::MAIN };
        let dev = match x % 3 {
            0 => 0,
            1 => d1,
            _ => d0,
        };
        let route = |rtype: RouteType, gw: Option<u128>| Route6Cfg {
            table,
            dst: Prefix6::new(a, len),
            rtype,
            nh: NhCfg {
                gw: gw.map(Gateway::V6),
                dev: if gw.is_none() && rtype == RouteType::Unicast && dev == 0 {
                    d1
                } else {
                    dev
                },
                flags: if x % 5 == 4 {
                    fibkit::route::nhflags::ONLINK
                } else {
                    0
                },
                ..Default::default()
            },
            ..Default::default()
        };
        // mostly the first two gateways
        let gw = gws[usize::from(g % 8).saturating_sub(3).min(gws.len() - 1)];
        let r = match kind % 9 {
            0..=2 => ns.route6_modify(RouteOp::Replace, &route(RouteType::Unicast, Some(gw))),
            3 => ns.route6_modify(RouteOp::Add, &route(RouteType::Unicast, None)),
            4 => ns.route6_modify(RouteOp::Replace, &route(RouteType::Unreachable, None)),
            5 => ns.route6_modify(
                RouteOp::Delete,
                &Route6Cfg {
                    table,
                    dst: Prefix6::new(a, len),
                    ..Default::default()
                },
            ),
            6 => ns.link_set_up(d1, x % 2 == 0),
            7 => {
                if x % 2 == 0 {
                    ns.addr6_add(
                        d1,
                        Addr6 {
                            predad: false,
                            life: Default::default(),
                            addr: NET2 | 0xfe,
                            plen: 64,
                            flags: 0,
                            metric: 0,
                            scope: 0,
                            peer: None,
                        },
                    )
                } else {
                    ns.addr6_del(d1, NET2 | 0xfe, Some(64))
                }
            }
            _ => ns.rule_add(
                true,
                &RuleSpec {
                    action: Some(fibkit::rule::RuleAction::Lookup(100)),
                    pref: Some(100 + u32::from(x)),
                    ..Default::default()
                },
            ),
        };
        format!("{r:?}")
    }

    fn namespace() -> (Netns, (u32, u32)) {
        let (mut ns, d0) = ns_with_link();
        let d1 = common::add_dummy(&mut ns, "d1");
        (ns, (d0, d1))
    }

    fn routes(ns: &Netns) -> Vec<String> {
        ns.tables6()
            .flat_map(|t| {
                t.dump_order()
                    .into_iter()
                    .map(|r| format!("{} {r:?}", t.id))
            })
            .collect()
    }

    /// `ops` in one bulk change and one at a time: the same outcomes and routes.
    fn same_in_bulk(ops: &[Op]) -> Result<(), TestCaseError> {
        let (mut one, devs) = namespace();
        let single: Vec<String> = ops.iter().map(|op| change(&mut one, devs, *op)).collect();
        let (mut bulk, devs_b) = namespace();
        prop_assert_eq!(devs, devs_b);
        let batched: Vec<String> =
            bulk.bulk(|ns| ops.iter().map(|op| change(ns, devs, *op)).collect());
        prop_assert_eq!(&batched, &single);
        prop_assert_eq!(routes(&bulk), routes(&one));
        Ok(())
    }

    #[test]
    fn remembered_checks_forget_what_changes_them() {
        let cases: [&[Op]; 5] = [
            // 2001:db8:2::/64 dev d1; 2001:db8:1::/64 via 2001:db8:2::fe (checked:
            // d1); the /64 deleted; the same gateway again: unreachable now
            &[
                (3, 0, 0, 0, 0),
                (0, 3, 0, 0, 0),
                (5, 0, 0, 0, 0),
                (0, 3, 0, 0, 0),
            ],
            // the /64 through d0 in table 100 and d1 in main: the gateway resolves
            // per table
            &[
                (3, 0, 0, 1, 2),
                (3, 0, 0, 0, 1),
                (0, 3, 0, 0, 0),
                (0, 3, 0, 1, 0),
            ],
            // onlink accepts an unreachable gateway, without it the check fails
            &[(0, 3, 0, 0, 4), (0, 3, 0, 0, 1)],
            // no route to the gateway; then it becomes an address of d1 (and its
            // subnet a route): a local gateway now
            &[(0, 3, 0, 0, 1), (7, 0, 0, 0, 0), (0, 3, 0, 0, 1)],
            // the gateway's route goes with its device
            &[
                (3, 0, 0, 0, 0),
                (0, 3, 0, 0, 0),
                (6, 0, 0, 0, 1),
                (0, 3, 0, 0, 0),
            ],
        ];
        for ops in cases {
            same_in_bulk(ops).unwrap_or_else(|e| panic!("{ops:?}: {e}"));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(common::cases(200)))]

        #[test]
        fn bulk_changes_fail_and_succeed_like_single_ones(
            ops in proptest::collection::vec((0u8..9, 0u8..5, 0u8..8, 0u8..2, 0u8..10), 1..50),
        ) {
            same_in_bulk(&ops)?;
        }
    }
}

/// An IPv6 route's expiry reaches the compiled answers when the clock passes it: the
/// published snapshot stops answering through it at once, although the route stays in
/// the table (listed by dumps) until the garbage collector's time.
#[test]
fn expiring_route_leaves_compiled_answers_when_the_clock_passes_it() {
    use fibkit::fib::Fib;
    use fibkit::snapshot::Answer6;
    let (mut ns, d0) = ns_with_link();
    let p = Prefix6::new(0x2001_0db8_0009u128 << 80, 64);
    let cfg = Route6Cfg {
        dst: p,
        nh: NhCfg {
            dev: d0,
            ..Default::default()
        },
        expires: Some(2),
        ..Default::default()
    };
    ns.route6_modify(RouteOp::Add, &cfg).expect("route added");
    let mut fib = Fib::new(ns);
    let mut reader = fib.reader();
    let fl = Flow6 {
        dst: p.addr | 1,
        ..Default::default()
    };
    let routed = |a: &Answer6| !matches!(a, Answer6::Error(_));
    assert!(routed(&reader.snapshot().output6(&fl)));
    for (now, listed) in [(1, true), (3, true), (29, true), (31, false)] {
        fib.apply(|ns| ns.set_now(now));
        fib.publish();
        let a = reader.snapshot().output6(&fl);
        assert_eq!(routed(&a), now < 2, "at {now}: {a:?}");
        let in_table = fib.apply(|ns| {
            ns.table6(tid::MAIN)
                .and_then(|t| t.get(p, Prefix6::default()))
                .is_some_and(|l| !l.is_empty())
        });
        assert_eq!(in_table, listed, "at {now}");
    }
}

/// Deleting an IPv4 route flushes the route cache only once a lookup has found the
/// entry (`FA_S_ACCESSED`, conformance scenario 481); compiling the fast-path snapshot
/// looks every prefix up without leaving that mark.
#[test]
fn ipv4_delete_flushes_only_looked_up_entries() {
    let (mut ns, d0) = ns_with_link();
    let route = |dst: u32| Route4Cfg {
        dst,
        dst_len: 16,
        nh: NhCfg {
            dev: d0,
            ..Default::default()
        },
        ..Default::default()
    };
    for dst in [0x0a09_0000, 0x0a08_0000] {
        ns.route4_modify(RouteOp::Add, &route(dst)).expect("add");
    }
    let _ = ns.compile_fast4();
    let gen = ns.rt_genid4();
    ns.route4_modify(RouteOp::Delete, &route(0x0a08_0000))
        .expect("delete");
    assert_eq!(ns.rt_genid4(), gen, "an entry no lookup found: no flush");
    let fl = Flow4 {
        dst: 0x0a09_0001,
        ..Default::default()
    };
    assert!(ns.route_get4(&fl).is_ok());
    ns.route4_modify(RouteOp::Delete, &route(0x0a09_0000))
        .expect("delete");
    assert_ne!(ns.rt_genid4(), gen, "an entry a lookup found: flushed");
}
