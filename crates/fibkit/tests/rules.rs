//! Property test: fibkit's rule walk against a direct transcription of the kernel's
//! `fib_rules_lookup` / `fib_rule_match` / `fib4_rule_match`, on random rule sets and flows.

use fibkit::fib4::{NhCfg, Route4Cfg, RouteOp};
use fibkit::lookup::Flow4;
use fibkit::prefix::{mask4, Prefix4};
use fibkit::route::Gateway;
use fibkit::rule::{Range, RuleAction, RulePrefix, RuleSpec};
use fibkit::{Errno, Netns};
use proptest::prelude::*;

mod common;
use common::ns_with_link;

/// A generated rule (what the test asks for).
#[derive(Clone, Debug)]
struct R {
    pref: u32,
    src: Option<(u32, u8)>,
    dst: Option<(u32, u8)>,
    mark: Option<(u32, u32)>,
    tos: u8,
    uid: Option<(u32, u32)>,
    ipproto: u8,
    dport: Option<(u32, u32)>,
    invert: bool,
    action: u8, // 0 lookup, 1 goto, 2 nop, 3 blackhole, 4 unreachable, 5 prohibit
    table: u32, // 100..=104 (104 has no routes)
    goto_off: u32,
}

fn rule_strategy() -> impl Strategy<Value = R> {
    (
        (1u32..60).prop_map(|p| p * 10),
        proptest::option::of((any::<u32>(), 0u8..=8)),
        proptest::option::of((0u32..4, 0u8..=2)),
        proptest::option::of((
            0u32..4,
            prop_oneof![Just(0u32), Just(1), Just(3), Just(u32::MAX)],
        )),
        prop_oneof![Just(0u8), Just(0x04), Just(0x10)],
        proptest::option::of((0u32..3, 0u32..3)),
        prop_oneof![Just(0u8), Just(6), Just(17)],
        proptest::option::of((1u32..3, 1u32..3)),
        any::<bool>(),
        0u8..6,
        100u32..105,
        1u32..20,
    )
        .prop_map(
            |(pref, src, dst, mark, tos, uid, ipproto, dport, invert, action, table, goto_off)| R {
                pref,
                src,
                dst: dst.map(|(a, l)| (0x0a00_0000 | (a << 22), l + 8)),
                mark,
                tos,
                uid: uid.map(|(a, b)| (a.min(b), a.max(b))),
                ipproto,
                dport: dport.map(|(a, b)| (a.min(b), a.max(b))),
                invert,
                action,
                table,
                goto_off,
            },
        )
}

#[derive(Clone, Copy, Debug)]
struct F {
    src: u32,
    dst: u32,
    mark: u32,
    tos: u8,
    uid: u32,
    proto: u8,
    dport: u16,
}

fn flow_strategy() -> impl Strategy<Value = F> {
    (
        prop_oneof![Just(0u32), Just(0xc000_0201)],
        (0u32..4, any::<u8>()).prop_map(|(a, b)| 0x0a00_0000 | (a << 22) | u32::from(b)),
        0u32..5,
        prop_oneof![Just(0u8), Just(0x04), Just(0x10), Just(0x13)],
        0u32..4,
        prop_oneof![Just(6u8), Just(17)],
        0u16..4,
    )
        .prop_map(|(src, dst, mark, tos, uid, proto, dport)| F {
            src,
            dst,
            mark,
            tos,
            uid,
            proto,
            dport,
        })
}

/// `fib_rule_match` + `fib4_rule_match`, written from the kernel source.
fn naive_match(r: &R, f: &F) -> bool {
    let mut ok = true;
    if let Some((m, mask)) = r.mark {
        // fwmark given with a mask attribute; mask 0 and mark 0 mean "no selector"
        let eff = if mask == 0 && m != 0 { u32::MAX } else { mask };
        if (m ^ f.mark) & eff != 0 {
            ok = false;
        }
    }
    if let Some((a, b)) = r.uid {
        if f.uid < a || f.uid > b {
            ok = false;
        }
    }
    if let Some((a, l)) = r.src {
        if l > 0 && (a ^ f.src) & mask4(l) != 0 {
            ok = false;
        }
    }
    if let Some((a, l)) = r.dst {
        if l > 0 && (a ^ f.dst) & mask4(l) != 0 {
            ok = false;
        }
    }
    if r.tos != 0 && r.tos != f.tos & 0x1c {
        ok = false;
    }
    if r.ipproto != 0 && r.ipproto != f.proto {
        ok = false;
    }
    if let Some((a, b)) = r.dport {
        if u32::from(f.dport) < a || u32::from(f.dport) > b {
            ok = false;
        }
    }
    ok ^ r.invert
}

/// `fib_rules_lookup` over the rules in list order; returns the table answering or the error.
fn naive_walk(rules: &[R], f: &F) -> Result<u32, Errno> {
    let mut i = 0;
    while i < rules.len() {
        let r = &rules[i];
        i += 1;
        if !naive_match(r, f) {
            continue;
        }
        match r.action {
            1 => {
                let target = r.pref + r.goto_off * 10;
                if let Some(j) = rules.iter().position(|x| x.pref == target) {
                    i = j;
                }
            }
            2 => {}
            3 => return Err(Errno::EINVAL),
            4 => return Err(Errno::ENETUNREACH),
            5 => return Err(Errno::EACCES),
            _ => {
                // tables 100..=103 have a default route; 104 is empty: continue
                if r.table != 104 {
                    return Ok(r.table);
                }
            }
        }
    }
    Err(Errno::ENETUNREACH)
}

fn setup() -> Netns {
    let (mut ns, d0) = ns_with_link();
    for t in 100..104u32 {
        let cfg = Route4Cfg {
            table: t,
            nh: NhCfg {
                gw: Some(Gateway::V4(0xc000_0200 | t)),
                dev: d0,
                ..Default::default()
            },
            ..Default::default()
        };
        ns.route4_modify(RouteOp::Add, &cfg).expect("route");
    }
    // the walk alone decides: remove the default rules
    for p in [0u32, 32766, 32767] {
        ns.rule_del(
            false,
            &RuleSpec {
                pref: Some(p),
                ..Default::default()
            },
        )
        .expect("del default rule");
    }
    ns
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(96)))]

    #[test]
    fn rule_walk_matches_kernel_transcription(
        rules in proptest::collection::vec(rule_strategy(), 0..14),
        flows in proptest::collection::vec(flow_strategy(), 1..24),
    ) {
        let mut ns = setup();
        let mut accepted: Vec<R> = Vec::new();
        for r in &rules {
            let action = match r.action {
                0 => RuleAction::Lookup(r.table),
                1 => RuleAction::Goto(r.pref + r.goto_off * 10),
                2 => RuleAction::Nop,
                3 => RuleAction::Blackhole,
                4 => RuleAction::Unreachable,
                _ => RuleAction::Prohibit,
            };
            let spec = RuleSpec {
                pref: Some(r.pref),
                src: r.src.map(|(a, l)| RulePrefix::V4(Prefix4 { addr: a, len: l })),
                dst: r.dst.map(|(a, l)| RulePrefix::V4(Prefix4 { addr: a, len: l })),
                tos: (r.tos != 0).then_some(r.tos),
                mark: r.mark.map(|(m, _)| m),
                mask: r.mark.and_then(|(_, k)| (k != 0).then_some(k)),
                uid: r.uid.map(|(a, b)| Range { start: a, end: b }),
                ipproto: (r.ipproto != 0).then_some(r.ipproto),
                dport: r.dport.map(|(a, b)| Range { start: a, end: b }),
                invert: r.invert,
                action: Some(action),
                table: (r.action == 0).then_some(r.table),
                goto: (r.action == 1).then_some(r.pref + r.goto_off * 10),
                ..Default::default()
            };
            if ns.rule_add(false, &spec).is_ok() {
                // the kernel inserts after the existing rules of equal priority
                let pos = accepted.iter().position(|x| x.pref > r.pref).unwrap_or(accepted.len());
                let mut r = r.clone();
                if let Some((m, k)) = r.mark {
                    r.mark = Some((m, if k == 0 && m == 0 { 0 } else { k }));
                }
                accepted.insert(pos, r);
            }
        }
        prop_assert_eq!(ns.rules(false).len(), accepted.len());
        for f in &flows {
            let fl = Flow4 {
                dst: f.dst,
                src: f.src,
                mark: f.mark,
                tos: f.tos,
                uid: f.uid,
                proto: f.proto,
                dport: f.dport,
                ..Default::default()
            };
            let got = ns.route_get4(&fl).map(|r| r.table);
            let want = naive_walk(&accepted, f);
            prop_assert_eq!(got, want, "flow {:?}", f);
        }
    }
}
