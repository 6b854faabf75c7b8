//! Multipath path selection: the kernel's upper bounds and hash (see [`crate::flowhash`]).

use crate::fib4::FibResult4;
use crate::fib6::Flow6;
use crate::lookup::Flow4;
use crate::netns::Netns;
use crate::route::nhflags;

/// IPv4 multipath hash of a flow (`fib_multipath_hash`), as compared with upper bounds.
pub fn multipath_hash4(ns: &Netns, fl: &Flow4) -> u32 {
    let k = crate::flowhash::HashInput4 {
        src: fl.src,
        dst: fl.dst,
        proto: fl.proto,
        sport: fl.sport,
        dport: fl.dport,
    };
    crate::flowhash::multipath_hash4(
        ns.sysctl.fib_multipath_hash_seed,
        ns.sysctl.fib_multipath_hash_policy,
        ns.sysctl.fib_multipath_hash_fields,
        &k,
    )
}

/// IPv6 multipath hash of a flow (`rt6_multipath_hash`).
pub fn multipath_hash6(ns: &Netns, fl: &Flow6) -> u32 {
    let k = crate::flowhash::HashInput6 {
        src: fl.src,
        dst: fl.dst,
        flowlabel: fl.flowlabel,
        proto: fl.proto,
        sport: fl.sport,
        dport: fl.dport,
    };
    crate::flowhash::multipath_hash6(
        ns.sysctl.fib_multipath_hash_seed,
        ns.sysctl.fib6_multipath_hash_policy,
        ns.sysctl.fib6_multipath_hash_fields,
        &k,
    )
}

/// IPv6 upper bounds (`rt6_multipath_rebalance`).
pub fn upper_bounds6(weights: &[u32], alive: &[bool]) -> Vec<i32> {
    crate::flowhash::upper_bounds6(weights, alive)
}

/// `fib_select_multipath`: choose the leg for `hash` (6.18: a leg whose source matches the
/// flow's source is preferred).
pub fn select_multipath4(ns: &Netns, res: &mut FibResult4<'_>, hash: u32, fl: &Flow4) {
    let nhs = &res.route.info.nhs;
    let weights: Vec<u32> = nhs.iter().map(|n| n.weight).collect();
    if res.route.info.nh_id != 0 {
        // a resilient group: the member of the hash's bucket, whatever its state
        if let Some(i) = ns.nh_res_select(res.route.info.nh_id, hash) {
            if i < nhs.len() {
                res.nh_sel = i;
            }
            return;
        }
        // a group object: its own walk, which always looks at the neighbours and
        // knows no source preference (nexthop_path_fib_result)
        let good: Vec<bool> = nhs.iter().map(|n| ns.nh_good4(n)).collect();
        res.nh_sel = crate::nexthop::select_hthr(&weights, &good, hash);
        return;
    }
    // the upper bounds are the ones the last fib_rebalance() set: it passed over
    // the dead paths and those without carrier where that was ignored then
    // (nhflags::SKIP). fib_multipath_use_neigh does not rebalance: the walk only
    // steps over a leg whose link-scope gateway has an invalid neighbour entry
    // (fib_good_nh), so its share falls to the next usable leg, not to all of them
    let use_neigh = ns.sysctl.fib_multipath_use_neigh != 0;
    let alive: Vec<bool> = nhs.iter().map(|n| n.flags & nhflags::SKIP == 0).collect();
    let mut bounds = crate::flowhash::upper_bounds(&weights, &alive);
    if use_neigh {
        for (b, n) in bounds.iter_mut().zip(nhs.iter()) {
            if n.scope == crate::route::scope::LINK && !ns.nh_good4(n) {
                *b = -1;
            }
        }
    }
    // the source each leg remembers (nh_saddr), as it is: fib_select_multipath does
    // not check nh_saddr_genid, so after an address event a leg still offers the
    // address chosen before it until a lookup without a source picks that leg and
    // fib_result_prefsrc chooses again
    let saddr_match: Vec<bool> = nhs
        .iter()
        .map(|nh| fl.src != 0 && nh.saddr.last() == fl.src)
        .collect();
    if let Some(i) = crate::flowhash::select_leg_saddr(&bounds, hash, &saddr_match) {
        res.nh_sel = i;
    }
}
