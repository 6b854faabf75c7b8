//! `ip ntable` (iproute2 6.1's ipntable.c): the neighbour tables' parameters per
//! device ([`fibkit::ntable`]), listed and changed.

use fibkit::ntable::ParmChange;
use fibkit::prefix::Family;
use fibkit::Netns;

use super::{duparg, incomplete, invarg, ll_index, matches, missarg, nodev, show_opts};
use super::{Failure, Opts, Outcome, Res};
use crate::show::{get_u32, strtoul, NtableFilter};

/// `ip ntable help`: iproute2 6.1's usage (exit status 255).
const USAGE: &str = "Usage: ip ntable change name NAME [ dev DEV ]
        [ thresh1 VAL ] [ thresh2 VAL ] [ thresh3 VAL ] [ gc_int MSEC ]
        [ PARMS ]
Usage: ip ntable show [ dev DEV ] [ name NAME ]
PARMS := [ base_reachable MSEC ] [ retrans MSEC ] [ gc_stale MSEC ]
         [ delay_probe MSEC ] [ queue LEN ]
         [ app_probes VAL ] [ ucast_probes VAL ] [ mcast_probes VAL ]
         [ anycast_delay MSEC ] [ proxy_delay MSEC ] [ proxy_queue LEN ]
         [ locktime MSEC ]
";

/// `get_u64()`: the whole string a number `strtoull` reads without overflow (a
/// negative one wraps).
fn get_u64(s: &str) -> Option<u64> {
    let (v, n, overflow) = strtoul(s, 0);
    (!s.is_empty() && n == s.len() && !overflow).then_some(v)
}

/// The family `ip ntable` asks for (`preferred_family`): `Some(None)` for one of
/// neither table (`-0`, `-M`, `-B`, `-f link|mpls|bridge`).
fn family(opts: &Opts) -> Option<Option<bool>> {
    match (opts.family, opts.alt) {
        (Some(f), _) => Some(Some(f == Family::V6)),
        (None, Some(_)) => Some(None),
        (None, None) => None,
    }
}

/// `ipntable_modify`: the words read in order (a device named by `dev` must exist,
/// `name` is needed, and at least one setting), then `neightbl_set`.
fn change(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let mut name: Option<&str> = None;
    let mut dev: Option<u32> = None;
    let mut changes = Vec::new();
    let mut table_wide = false;
    let mut i = 0;
    while i < a.len() {
        let w = a[i].as_str();
        // every word takes a value (NEXT_ARG); an unknown one is refused first
        let val = || a.get(i + 1).map(String::as_str).ok_or_else(incomplete);
        let bad = |k: &str, v: &str| invarg(&format!("\"{k}\" value is invalid"), v);
        let u32v = |k: &str| val().and_then(|v| get_u32(v, 0).ok_or_else(|| bad(k, v)));
        let u64v = |k: &str| val().and_then(|v| get_u64(v).ok_or_else(|| bad(k, v)));
        match w {
            "name" => {
                let v = val()?;
                if name.is_some() {
                    return Err(duparg("NAME", v));
                }
                name = Some(v);
            }
            "thresh1" | "thresh2" | "thresh3" => {
                u32v(w)?;
                table_wide = true;
            }
            "gc_int" => {
                u64v(w)?;
                table_wide = true;
            }
            "dev" => {
                let v = val()?;
                dev = Some(ll_index(ns, v).ok_or_else(|| nodev(v))?);
            }
            "base_reachable" => changes.push(ParmChange::BaseReachable(u64v(w)?)),
            "retrans" => changes.push(ParmChange::Retrans(u64v(w)?)),
            "gc_stale" => changes.push(ParmChange::GcStale(u64v(w)?)),
            "delay_probe" => changes.push(ParmChange::DelayProbe(u64v(w)?)),
            "queue" => changes.push(ParmChange::Queue(u32v(w)?)),
            "app_probes" => changes.push(ParmChange::AppProbes(u32v(w)?)),
            "ucast_probes" => changes.push(ParmChange::UcastProbes(u32v(w)?)),
            "mcast_probes" => changes.push(ParmChange::McastProbes(u32v(w)?)),
            "anycast_delay" => changes.push(ParmChange::AnycastDelay(u64v(w)?)),
            "proxy_delay" => changes.push(ParmChange::ProxyDelay(u64v(w)?)),
            "proxy_queue" => changes.push(ParmChange::ProxyQueue(u32v(w)?)),
            "locktime" => changes.push(ParmChange::Locktime(u64v(w)?)),
            _ => return Err(invarg("unknown", w)),
        }
        i += 2;
    }
    let Some(name) = name else {
        return Err(missarg("NAME"));
    };
    if !table_wide && changes.is_empty() {
        return Err(Failure::parse(
            "Not enough information: changeable attributes required.\n",
            255,
        ));
    }
    // NDTA_PARMS goes when it holds anything: a device, or a parameter (for the
    // table's own defaults without a device)
    let parms = (dev.is_some() || !changes.is_empty()).then(|| (dev.unwrap_or(0), &changes[..]));
    let fam = match family(opts) {
        Some(None) => return Err(Failure::errno(fibkit::Errno::ENOENT).exiting(true)),
        Some(Some(v6)) => Some(v6),
        None => None,
    };
    // rtnl_talk's failure is exit(2)
    ns.ntable_change(name, fam, parms, table_wide)
        .map_err(|e| Failure::errno(e).exiting(true))?;
    Ok(Outcome::Ok(String::new()))
}

/// `ipntable_show`: `dev DEV|none` and `name NAME` (the last of each counts).
fn show(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let mut f = NtableFilter {
        family: family(opts),
        ..Default::default()
    };
    let mut i = 0;
    while i < a.len() {
        let w = a[i].as_str();
        if w != "dev" && w != "name" {
            return Err(invarg("unknown", w));
        }
        let v = a.get(i + 1).ok_or_else(incomplete)?;
        if w == "name" {
            f.name = Some(v.clone());
        } else if v == "none" {
            f.dev = Some(None);
        } else {
            let d = ll_index(ns, v).ok_or_else(|| invarg("\"DEV\" is invalid", v))?;
            f.dev = Some(Some(d));
        }
        i += 2;
    }
    Ok(Outcome::Ok(crate::show::ntable_show(
        ns,
        &show_opts(opts),
        &f,
    )))
}

/// `ip ntable` (`do_ipntable`).
pub(super) fn ntable_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return show(ns, opts, &[]);
    };
    let rest = &a[1..];
    if matches(cmd, "change") || matches(cmd, "chg") {
        return change(ns, opts, rest);
    }
    if matches(cmd, "show") || matches(cmd, "lst") || matches(cmd, "list") {
        return show(ns, opts, rest);
    }
    if matches(cmd, "help") {
        return Err(Failure::parse(USAGE, 255));
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip ntable help\".\n"),
        255,
    ))
}
