//! `ip token`: iproute2's iptoken.c over fibkit's per-device IPv6 tokens
//! ([`Netns::token_set`]).

use fibkit::prefix::Family;
use fibkit::{Errno, Netns};

use super::{bad_prefix, invarg, matches, Failure, Opts, Outcome, Res};
use crate::names::{parse_prefix, Addr};

/// `ip token ...` (the words after `token`).
pub(super) fn token_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return list(ns, opts, &[]);
    };
    let rest = &a[1..];
    if matches(cmd, "list") || matches(cmd, "lst") || matches(cmd, "show") {
        return list(ns, opts, rest);
    }
    if matches(cmd, "set") || matches(cmd, "add") {
        return set(ns, rest, false);
    }
    if matches(cmd, "delete") {
        return set(ns, rest, true);
    }
    // iptoken_get: the listing, with or without a device
    if matches(cmd, "get") {
        return list(ns, opts, rest);
    }
    if matches(cmd, "help") {
        return Err(usage());
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip token help\".\n"),
        255,
    ))
}

fn usage() -> Failure {
    Failure::parse(
        "Usage: ip token [ list | set | del | get ] [ TOKEN ] [ dev DEV ]\n",
        255,
    )
}

/// `dev NAME`: the device's index, or iproute2's `invarg`.
fn dev_index(ns: &Netns, name: &str) -> Res<u32> {
    // (ll_name_to_index asked the kernel, which answered ENODEV)
    super::ll_index(ns, name).ok_or_else(|| Failure {
        errno: Some(Errno::ENODEV),
        ..invarg("dev is invalid\n", name)
    })
}

/// `iptoken_list`: every device with IPv6 state, by index, but the loopback and
/// devices without neighbour discovery (NOARP); with `dev` (the first one given: the
/// scan stops there) that device only.
fn list(ns: &Netns, opts: &Opts, args: &[String]) -> Res<Outcome> {
    let mut only = None;
    let mut it = args.iter();
    while let Some(w) = it.next() {
        if w == "dev" {
            let Some(v) = it.next() else {
                return Err(super::incomplete());
            };
            // (an int: an index read as negative filters nothing)
            only = Some(dev_index(ns, v)?).filter(|&i| i <= i32::MAX as u32);
            break;
        }
    }
    let mut rows = Vec::new();
    let mut links: Vec<_> = ns.links().collect();
    links.sort_by_key(|l| l.index);
    for l in links {
        if only.is_some_and(|i| i != l.index) || l.is_loopback() || l.noarp() {
            continue;
        }
        if let Some(t) = ns.token(l.index) {
            // print_token: format_host (a name with -r)
            let text = crate::names::host6(u128::from(t));
            rows.push((text, l.name.clone()));
        }
    }
    if opts.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(t, n)| serde_json::json!({ "token": t, "ifname": n }))
            .collect();
        return Ok(Outcome::Ok(crate::show::json_list(&v, opts.pretty)));
    }
    Ok(Outcome::Ok(
        rows.iter()
            .map(|(t, n)| format!("token {t} dev {n}\n"))
            .collect(),
    ))
}

/// `iptoken_set`: the first `dev` and the first other word (the token, read as an IPv6
/// prefix; `del` reads none and sends `::`); later words are passed over.
fn set(ns: &mut Netns, args: &[String], delete: bool) -> Res<Outcome> {
    let mut dev = None;
    let mut token: Option<u128> = None;
    let mut it = args.iter();
    while let Some(w) = it.next() {
        if w == "dev" {
            let Some(v) = it.next() else {
                return Err(super::incomplete());
            };
            if dev.is_none() {
                dev = Some(dev_index(ns, v)?);
            }
        } else {
            if matches(w, "help") {
                return Err(usage());
            }
            // (a delete reads no token: it sends `::`)
            if token.is_none() && !delete {
                let p = parse_prefix(w, Some(Family::V6))
                    .ok_or_else(|| bad_prefix(w, Some(Family::V6)))?;
                token = Some(match p.addr {
                    Addr::V6(x) => x,
                    Addr::V4(_) => 0,
                });
            }
        }
    }
    if token.is_none() && !delete {
        return Err(Failure::parse(
            "Not enough information: token is required.\n",
            1,
        ));
    }
    let Some(dev) = dev else {
        return Err(Failure::parse(
            "Not enough information: \"dev\" argument is required.\n",
            1,
        ));
    };
    let t = if delete { 0 } else { token.unwrap_or(0) };
    ns.token_set(dev, t)
        .map(|()| Outcome::Ok(String::new()))
        .map_err(Failure::kernel)
}
