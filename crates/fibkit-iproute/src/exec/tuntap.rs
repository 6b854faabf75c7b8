//! `ip tuntap`: iproute2's iptuntap.c over fibkit's persistent tun and tap devices
//! ([`Netns::tuntap_add`], [`Netns::tuntap_del`]). The requests are ioctls
//! (`TUNSETIFF`, `TUNSETPERSIST`), so a refusal is `perror`'s text, no errno the
//! oracle can learn, and exit status 1.

use fibkit::link::tunf;
use fibkit::{Errno, Netns};

use super::{invarg, matches, Failure, Opts, Outcome, Res};

/// `ip tuntap ...` (the words after `tuntap`).
pub(super) fn tuntap_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return show(ns, opts);
    };
    let rest = &a[1..];
    if matches(cmd, "add") {
        let req = parse(rest, true)?;
        return ns
            .tuntap_add_owned(&req.name, req.tap, req.flags, req.owner, req.group)
            .map(|_| Outcome::Ok(String::new()))
            .map_err(|e| ioctl("TUNSETIFF", e.errno));
    }
    if matches(cmd, "delete") {
        let req = parse(rest, false)?;
        return ns
            .tuntap_del(&req.name, req.tap, req.flags)
            .map(|()| Outcome::Ok(String::new()))
            .map_err(|e| ioctl("TUNSETIFF", e.errno));
    }
    if matches(cmd, "show") || matches(cmd, "lst") || matches(cmd, "list") {
        // do_show does not look at its arguments
        return show(ns, opts);
    }
    if matches(cmd, "help") {
        return Err(usage());
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip tuntap help\".\n"),
        255,
    ))
}

fn show(ns: &Netns, opts: &Opts) -> Res<Outcome> {
    Ok(Outcome::Ok(crate::show::tuntap_show(
        ns,
        &super::show_opts(opts),
    )))
}

fn usage() -> Failure {
    Failure::parse(
        "Usage: ip tuntap { add | del | show | list | lst | help } [ dev PHYS_DEV ]\n       \
         [ mode { tun | tap } ] [ user USER ] [ group GROUP ]\n       \
         [ one_queue ] [ pi ] [ vnet_hdr ] [ multi_queue ] [ name NAME ]\n\n\
         Where: USER  := { STRING | NUMBER }\n       GROUP := { STRING | NUMBER }\n",
        255,
    )
}

/// `perror("ioctl(NAME)")`, and `return -1` (exit status 1).
fn ioctl(name: &str, e: Errno) -> Failure {
    Failure {
        stdout: String::new(),
        errno: Some(e),
        stderr: format!("ioctl({name}): {}\n", e.strerror()),
        status: 1,
        exits: false,
    }
}

/// What `parse_args` fills in.
struct Req {
    name: String,
    tap: bool,
    flags: u16,
    owner: Option<u32>,
    group: Option<u32>,
}

/// `strtol(s, &end, 10)` with nothing left over: leading white space and a sign
/// taken, the value cut to a `long`; `None` for an empty word or one with more.
fn strtol(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let (neg, d) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if s.is_empty() || d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v = d
        .parse::<i128>()
        .unwrap_or(i128::MAX)
        .min(i128::from(i64::MAX));
    Some(if neg {
        (-v).max(i128::from(i64::MIN)) as i64
    } else {
        v as i64
    })
}

/// iptuntap.c's `parse_args` (`user` and `group` only for `add`). Its `exit(-1)`s are
/// exit status 255; a missing mode is its `return -1` (exit status 1).
fn parse(a: &[String], add: bool) -> Res<Req> {
    let mut name = String::new();
    let (mut tun, mut tap) = (false, false);
    let mut flags = tunf::NO_PI;
    let (mut owner, mut group) = (None, None);
    let mut it = a.iter().map(String::as_str);
    // get_ifname (check_ifname): not empty, under 16 bytes, no '/' or white space; the
    // kernel's other refusals (`.`, `..`, a `:`) come from TUNSETIFF
    let ifname_ok = crate::show::ifname_ok;
    while let Some(w) = it.next() {
        if matches(w, "mode") {
            let v = it.next().ok_or_else(super::incomplete)?;
            let more =
                || Failure::parse("You managed to ask for more than one tunnel mode.\n", 255);
            if matches(v, "tun") {
                if tap {
                    return Err(more());
                }
                tun = true;
            } else if matches(v, "tap") {
                if tun {
                    return Err(more());
                }
                tap = true;
            } else {
                return Err(Failure::parse(
                    format!("Unknown tunnel mode \"{v}\"\n"),
                    255,
                ));
            }
        } else if add && (matches(w, "user") || matches(w, "group")) {
            // a number (strtol: all of the word), else a name of the system's
            // accounts; -1 is none
            let user = matches(w, "user");
            let v = it.next().ok_or_else(super::incomplete)?;
            let (db, what) = if user {
                ("/etc/passwd", "user")
            } else {
                ("/etc/group", "group")
            };
            let id = match strtol(v) {
                Some(n) => n as u32,
                None => crate::names::name_id(db, v)
                    // parse_args: exit(-1)
                    .ok_or_else(|| Failure::parse(format!("invalid {what} \"{v}\"\n"), 255))?,
            };
            let id = (id != u32::MAX).then_some(id);
            if user {
                owner = id;
            } else {
                group = id;
            }
        } else if matches(w, "pi") {
            flags &= !tunf::NO_PI;
        } else if matches(w, "one_queue") {
            flags |= tunf::ONE_QUEUE;
        } else if matches(w, "vnet_hdr") {
            flags |= tunf::VNET_HDR;
        } else if matches(w, "multi_queue") {
            flags |= tunf::MULTI_QUEUE;
        } else if matches(w, "dev") {
            let v = it.next().ok_or_else(super::incomplete)?;
            if !ifname_ok(v) {
                return Err(invarg("\"dev\" not a valid ifname", v));
            }
            name = v.to_string();
        } else {
            let v = if matches(w, "name") {
                it.next().ok_or_else(super::incomplete)?
            } else if matches(w, "help") {
                return Err(usage());
            } else {
                w
            };
            if !name.is_empty() {
                return Err(Failure::parse(
                    format!("Error: either \"name\" is duplicate, or \"{v}\" is a garbage.\n"),
                    255,
                ));
            }
            if !ifname_ok(v) {
                return Err(invarg("\"name\" not a valid ifname", v));
            }
            name = v.to_string();
        }
    }
    if !tun && !tap {
        return Err(Failure::parse("You failed to specify a tunnel mode\n", 1));
    }
    Ok(Req {
        name,
        tap,
        flags,
        owner,
        group,
    })
}
