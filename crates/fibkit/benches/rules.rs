//! The cost of policy rules on an IPv4 and IPv6 output lookup: the fast path (only the
//! default rules ever existed) against 1, 10, 100 and 1000 non-matching custom rules,
//! on tables of real prefixes (a deterministic sample of the RIS 2026 tables); then the
//! snapshot's compiled answers with custom rules of two kinds.

#![allow(missing_docs)] // criterion's macros generate undocumented items

// the integration tests' fixture: a namespace with one dummy link and its addresses
#[path = "../tests/common/mod.rs"]
mod common;
use common::ns_with_link;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use fibkit::fib4::{NhCfg, Route4Cfg, RouteOp};
use fibkit::fib6::{Flow6, Route6Cfg};
use fibkit::lookup::Flow4;
use fibkit::prefix::{Prefix4, Prefix6};
use fibkit::route::Gateway;
use fibkit::rule::{RuleAction, RulePrefix, RuleSpec};
use fibkit::Netns;

const ROUTES: usize = 20_000;

fn tables() -> (Netns, Vec<u32>, Vec<u128>) {
    let (mut ns, d0) = ns_with_link();
    let v4 = fibkit_bench::data::embedded_v4().expect("embedded v4");
    let v6 = fibkit_bench::data::embedded_v6().expect("embedded v6");
    let v4 = fibkit_bench::data::sample(&v4, ROUTES, 7);
    let v6 = fibkit_bench::data::sample(&v6, ROUTES, 7);
    ns.bulk(|ns| {
        for (a, l) in &v4 {
            let cfg = Route4Cfg {
                dst: *a,
                dst_len: *l,
                nh: NhCfg {
                    gw: Some(Gateway::V4(0xc000_02fe)),
                    dev: d0,
                    ..Default::default()
                },
                ..Default::default()
            };
            let _ = ns.route4_modify(RouteOp::Add, &cfg);
        }
        for (a, l) in &v6 {
            let cfg = Route6Cfg {
                dst: Prefix6::new(*a, *l),
                nh: NhCfg {
                    gw: Some(Gateway::V6((0x2001_0db8_0001u128 << 80) | 0xfe)),
                    dev: d0,
                    ..Default::default()
                },
                ..Default::default()
            };
            let _ = ns.route6_modify(RouteOp::Add, &cfg);
        }
    });
    let d4: Vec<u32> = v4
        .iter()
        .take(1024)
        .map(|(a, l)| a | (0x5a5a_5a5a & !fibkit::prefix::mask4(*l)))
        .collect();
    let d6: Vec<u128> = v6
        .iter()
        .take(1024)
        .map(|(a, l)| a | (0x5a5a_5a5a & !fibkit::prefix::mask6(*l)))
        .collect();
    (ns, d4, d6)
}

fn add_rules(ns: &mut Netns, n: usize) {
    for i in 0..n {
        for v6 in [false, true] {
            let src = if v6 {
                RulePrefix::V6(Prefix6::new((0x2001_0db8_ff00u128 + i as u128) << 80, 48))
            } else {
                RulePrefix::V4(Prefix4::new(0xcb00_7100 + i as u32, 32))
            };
            let spec = RuleSpec {
                pref: Some(1000 + i as u32),
                src: Some(src),
                action: Some(RuleAction::Lookup(100)),
                table: Some(100),
                ..Default::default()
            };
            ns.rule_add(v6, &spec).expect("rule");
        }
    }
}

/// `n` rules that a source-less flow may match: `fwmark i+1` (an unmarked flow is
/// checked against none of them) or `dport 1000+i` (every flow is checked against
/// them before it reads a compiled answer).
fn add_selector_rules(ns: &mut Netns, n: usize, kind: &str) {
    if kind == "wg-quick" {
        // `not fwmark 0xca6c lookup 100` and `lookup main suppress_prefixlength 0`,
        // table 100 holding a default route through the "tunnel"
        let d0 = ns.link_index("d0").expect("d0");
        ns.route4_modify(
            RouteOp::Add,
            &Route4Cfg {
                table: 100,
                scope: 253,
                nh: NhCfg {
                    dev: d0,
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .expect("table 100 v4");
        ns.route6_modify(
            RouteOp::Add,
            &Route6Cfg {
                table: 100,
                nh: NhCfg {
                    dev: d0,
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .expect("table 100 v6");
        for v6 in [false, true] {
            for spec in [
                RuleSpec {
                    mark: Some(0xca6c),
                    invert: true,
                    action: Some(RuleAction::Lookup(100)),
                    ..Default::default()
                },
                RuleSpec {
                    action: Some(RuleAction::Lookup(254)),
                    suppress_prefixlen: Some(0),
                    ..Default::default()
                },
            ] {
                ns.rule_add(v6, &spec).expect("rule");
            }
        }
        return;
    }
    for i in 0..n {
        for v6 in [false, true] {
            let mut spec = RuleSpec {
                pref: Some(2000 + i as u32),
                action: Some(RuleAction::Lookup(100)),
                table: Some(100),
                ..Default::default()
            };
            if kind == "fwmark" {
                spec.mark = Some(i as u32 + 1);
            } else {
                let port = 1000 + i as u32;
                spec.ipproto = Some(6);
                spec.dport = Some(fibkit::rule::Range {
                    start: port,
                    end: port,
                });
            }
            ns.rule_add(v6, &spec).expect("rule");
        }
    }
}

/// The snapshot's output lookups with custom rules: `from` rules (which no source-less
/// flow can match) and `fwmark` rules (no unmarked flow) are left out of the check;
/// `dport` rules are checked per flow.
fn bench_snapshot(c: &mut Criterion) {
    let (ns0, d4, d6) = tables();
    let mut g = c.benchmark_group("snapshot_output_rules");
    for (kind, n) in [
        ("none", 0usize),
        ("from", 10),
        ("from", 1000),
        ("fwmark", 100),
        ("dport", 1),
        ("dport", 10),
        ("dport", 100),
        ("wg-quick", 2),
        // flows with a source address: the full lookup on the snapshot's copy
        ("with-src", 0),
    ] {
        let mut ns = ns0.clone();
        if kind == "from" {
            add_rules(&mut ns, n);
        } else {
            add_selector_rules(&mut ns, n, kind);
        }
        let snap = fibkit::snapshot::Snapshot::new(ns);
        let id = format!("{kind}-{n}");
        g.bench_function(BenchmarkId::new("ipv4", &id), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 1023;
                black_box(snap.output4(&Flow4 {
                    dst: d4[i],
                    src: if kind == "with-src" { 0xc000_0201 } else { 0 },
                    proto: 17,
                    ..Default::default()
                }))
            })
        });
        g.bench_function(BenchmarkId::new("ipv6", &id), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 1023;
                black_box(snap.output6(&Flow6 {
                    dst: d6[i],
                    src: if kind == "with-src" {
                        (0x2001_0db8_0001u128 << 80) | 1
                    } else {
                        0
                    },
                    proto: 6,
                    ..Default::default()
                }))
            })
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let (ns0, d4, d6) = tables();
    let mut g = c.benchmark_group("route_output_rules");
    // the direct table lookup the fast path must not exceed (main table only)
    g.bench_function("ipv4/direct-main-table", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) & 1023;
            black_box(ns0.table_lookup4(254, d4[i]).is_ok())
        })
    });
    g.bench_function("ipv6/direct-main-table", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) & 1023;
            black_box(ns0.table_lookup6(254, d6[i]).is_ok())
        })
    });
    for n in [0usize, 1, 10, 100, 1000] {
        let mut ns = ns0.clone();
        add_rules(&mut ns, n);
        g.bench_with_input(BenchmarkId::new("ipv4-policy-lookup", n), &n, |b, _| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 1023;
                black_box(
                    ns.policy_lookup4(&Flow4 {
                        dst: d4[i],
                        proto: 17,
                        ..Default::default()
                    })
                    .is_ok(),
                )
            })
        });
        g.bench_with_input(BenchmarkId::new("ipv4", n), &n, |b, _| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 1023;
                black_box(
                    ns.route_get4(&Flow4 {
                        dst: d4[i],
                        proto: 17,
                        ..Default::default()
                    })
                    .is_ok(),
                )
            })
        });
        g.bench_with_input(BenchmarkId::new("ipv6", n), &n, |b, _| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 1023;
                black_box(
                    ns.route_output6(&Flow6 {
                        dst: d6[i],
                        proto: 6,
                        ..Default::default()
                    })
                    .is_ok(),
                )
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench, bench_snapshot
}
criterion_main!(benches);
