//! `ip mptcp` (iproute2 6.1's ipmptcp.c, the `mptcp_pm` generic netlink family): the
//! path manager's endpoints and limits ([`fibkit::mptcp`]).

use fibkit::mptcp::{flag, Endpoint, MpAddr};
use fibkit::{Errno, Netns};

use super::{incomplete, invarg, matches, missarg, Failure, Opts, Outcome, Res};
use crate::show::{get_u32, get_u8};

const USAGE: &str = "Usage:\tip mptcp endpoint add ADDRESS [ dev NAME ] [ id ID ]\n\
\t\t\t\t      [ port NR ] [ FLAG-LIST ]\n\
\tip mptcp endpoint delete id ID [ ADDRESS ]\n\
\tip mptcp endpoint change [ id ID ] [ ADDRESS ] [ port NR ] CHANGE-OPT\n\
\tip mptcp endpoint show [ id ID ]\n\
\tip mptcp endpoint flush\n\
\tip mptcp limits set [ subflows NR ] [ add_addr_accepted NR ]\n\
\tip mptcp limits show\n\
\tip mptcp monitor\n\
FLAG-LIST := [ FLAG-LIST ] FLAG\n\
FLAG  := [ signal | subflow | backup | fullmesh ]\n\
CHANGE-OPT := [ backup | nobackup | fullmesh | nofullmesh ]\n";

/// The flag words (`mptcp_addr_flag_names`, matched whole): the `no` forms set
/// nothing.
const FLAG_WORDS: [(&str, u32); 6] = [
    ("signal", flag::SIGNAL),
    ("subflow", flag::SUBFLOW),
    ("backup", flag::BACKUP),
    ("fullmesh", flag::FULLMESH),
    ("nobackup", 0),
    ("nofullmesh", 0),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cmd {
    Add,
    Del,
    Change,
    Get,
}

/// An address as `get_addr(..., AF_UNSPEC)` reads it: `default`, `any` and `all` are
/// addresses of no family and no bytes.
#[derive(Clone, Copy)]
enum Word {
    Addr(MpAddr),
    Unspec,
}

/// What `mptcp_parse_opt` put into the request.
struct Req {
    addr: Option<Word>,
    id: Option<u8>,
    flags: u32,
    ifindex: u32,
    port: u16,
}

fn usage() -> Failure {
    Failure::parse(USAGE, 255)
}

fn unknown(w: &str) -> Failure {
    Failure::parse(
        format!("Command \"{w}\" is unknown, try \"ip mptcp help\".\n"),
        255,
    )
}

/// The nested address's policy (`mptcp_pm_address_nl_policy`): an address of no
/// family goes out as an IPv6 attribute of no bytes, which the exact length refuses
/// before the command runs.
fn policy(r: &Req) -> Res<()> {
    match r.addr {
        Some(Word::Unspec) => Err(Failure::kernel(fibkit::Error::msg(
            Errno::ERANGE,
            "binary attribute size out of range",
        ))),
        _ => Ok(()),
    }
}

/// `mptcp_parse_opt`: the words in order (flags, `id`, `dev`, `port`, else an
/// address, the last one kept), then the checks of the command's shape.
fn parse_opt(ns: &Netns, a: &[String], cmd: Cmd) -> Res<Req> {
    let mut r = Req {
        addr: None,
        id: None,
        flags: 0,
        ifindex: 0,
        port: 0,
    };
    let mut it = a.iter().map(String::as_str);
    while let Some(w) = it.next() {
        if let Some(&(_, f)) = FLAG_WORDS.iter().find(|(n, _)| *n == w) {
            r.flags |= f;
            if cmd == Cmd::Add && r.flags & flag::SIGNAL != 0 && r.flags & flag::FULLMESH != 0 {
                return Err(invarg("flags mustn't have both signal and fullmesh", w));
            }
            if cmd == Cmd::Change && r.flags & !(flag::BACKUP | flag::FULLMESH) != 0 {
                return Err(invarg("invalid flags, backup and fullmesh only", w));
            }
        } else if matches(w, "id") {
            let v = it.next().ok_or_else(incomplete)?;
            r.id = Some(get_u8(v, 0).ok_or_else(|| invarg("invalid ID\n", v))?);
        } else if matches(w, "dev") {
            let v = it.next().ok_or_else(incomplete)?;
            if !crate::show::ifname_ok(v) {
                return Err(invarg("invalid interface name\n", v));
            }
            // ll_name_to_index asks the kernel for a name not in its cache: ENODEV
            // (an `ifN` form is taken whether or not a device has that index: the
            // kernel keeps the endpoint's index as given)
            r.ifindex = super::ll_index(ns, v).ok_or_else(|| Failure {
                errno: Some(Errno::ENODEV),
                ..invarg("device does not exist\n", v)
            })?;
        } else if matches(w, "port") {
            let v = it.next().ok_or_else(incomplete)?;
            r.port = get_u32(v, 0)
                .and_then(|p| u16::try_from(p).ok())
                .ok_or_else(|| invarg("expected port", v))?;
        } else {
            r.addr = Some(address(w)?);
        }
    }
    if r.addr.is_none() && cmd == Cmd::Add {
        return Err(missarg("ADDRESS"));
    }
    if cmd == Cmd::Del {
        match r.id {
            None => return Err(missarg("ID")),
            Some(id) if id != 0 && r.addr.is_some() => {
                return Err(invarg("invalid for non-zero id address\n", "ADDRESS"))
            }
            Some(0) if r.addr.is_none() => {
                return Err(invarg(
                    "address is needed for deleting id 0 address\n",
                    "ID",
                ))
            }
            _ => {}
        }
    }
    if cmd == Cmd::Add && r.port != 0 && r.flags & flag::SIGNAL == 0 {
        return Err(invarg("flags must have signal when using port", "port"));
    }
    if cmd == Cmd::Change && r.id.is_some() && r.port != 0 {
        return Err(invarg("port can't be used with id", "port"));
    }
    Ok(r)
}

/// `get_addr(.., AF_UNSPEC)`: exits with status 1 on a word that is no address.
fn address(w: &str) -> Res<Word> {
    if matches!(w, "default" | "any" | "all") {
        return Ok(Word::Unspec);
    }
    match crate::names::parse_addr(w, None) {
        Some(crate::names::Addr::V4(a)) => Ok(Word::Addr(MpAddr::V4(a))),
        Some(crate::names::Addr::V6(a)) => Ok(Word::Addr(MpAddr::V6(a))),
        None => Err(Failure::parse(
            format!("Error: any valid address is expected rather than \"{w}\".\n"),
            1,
        )
        .exiting(true)),
    }
}

fn addr_of(r: &Req) -> Option<MpAddr> {
    match r.addr {
        Some(Word::Addr(a)) => Some(a),
        _ => None,
    }
}

fn done(r: fibkit::Result<()>) -> Res<Outcome> {
    r.map(|()| Outcome::Ok(String::new()))
        .map_err(Failure::kernel)
}

fn show_one(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    if a.is_empty() {
        let o = super::show_opts(opts);
        return Ok(Outcome::Ok(crate::show::mptcp_endpoints_show(ns, &o, None)));
    }
    let r = parse_opt(ns, a, Cmd::Get)?;
    policy(&r)?;
    // a get looks the ID up (none given: 0, never an endpoint's)
    let id = r.id.unwrap_or(0);
    if ns.mptcp_endpoint(id).is_none() {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EINVAL,
            "address not found",
        )));
    }
    let o = super::show_opts(opts);
    Ok(Outcome::Ok(crate::show::mptcp_endpoints_show(
        ns,
        &o,
        Some(id),
    )))
}

fn endpoint(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(w) = a.first().map(String::as_str) else {
        return show_one(ns, opts, &[]);
    };
    let rest = &a[1..];
    if matches(w, "add") {
        let r = parse_opt(ns, rest, Cmd::Add)?;
        policy(&r)?;
        let addr = addr_of(&r).ok_or_else(|| missarg("ADDRESS"))?;
        return done(ns.mptcp_add(&Endpoint {
            addr,
            port: r.port,
            id: r.id.unwrap_or(0),
            flags: r.flags,
            ifindex: r.ifindex,
            v6only: false,
        }));
    }
    if matches(w, "change") {
        let r = parse_opt(ns, rest, Cmd::Change)?;
        policy(&r)?;
        let addr = addr_of(&r).map(|x| (x, r.port));
        return done(ns.mptcp_set_flags(addr, r.id.unwrap_or(0), r.flags));
    }
    if matches(w, "delete") {
        let r = parse_opt(ns, rest, Cmd::Del)?;
        policy(&r)?;
        return done(ns.mptcp_del(r.id.unwrap_or(0)));
    }
    if matches(w, "show") {
        return show_one(ns, opts, rest);
    }
    if matches(w, "flush") {
        ns.mptcp_flush();
        return Ok(Outcome::Ok(String::new()));
    }
    Err(unknown(w))
}

/// `mptcp_parse_limit`: `subflows N` and `add_addr_accepted N`, each a `get_u32`.
fn parse_limits(a: &[String]) -> Res<(Option<u32>, Option<u32>)> {
    let (mut accept, mut subflows) = (None, None);
    let mut it = a.iter().map(String::as_str);
    while let Some(w) = it.next() {
        if matches(w, "subflows") {
            let v = it.next().ok_or_else(incomplete)?;
            subflows = Some(get_u32(v, 0).ok_or_else(|| invarg("invalid subflows\n", v))?);
        } else if matches(w, "add_addr_accepted") {
            let v = it.next().ok_or_else(incomplete)?;
            accept = Some(get_u32(v, 0).ok_or_else(|| invarg("invalid add_addr_accepted\n", v))?);
        } else {
            return Err(invarg("unknown limit", w));
        }
    }
    Ok((accept, subflows))
}

/// `print_mptcp_limit`: no JSON object is opened around it, so it prints text even
/// with `-j`.
fn limits_text(ns: &Netns) -> String {
    let (accept, subflows) = ns.mptcp_limits();
    format!("add_addr_accepted {accept} subflows {subflows} \n")
}

fn monitor() -> Failure {
    Failure::parse(
        "ip mptcp monitor: fib has no event stream to follow (it runs no MPTCP connection)\n",
        255,
    )
}

/// `ip mptcp ...` (`do_mptcp`).
pub(super) fn mptcp_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(w) = a.first().map(String::as_str) else {
        return Err(usage());
    };
    if matches(w, "help") {
        return Err(usage());
    }
    let rest = &a[1..];
    if matches(w, "endpoint") {
        return endpoint(ns, opts, rest);
    }
    // a `limits` word that is neither `set` nor `show` falls through to the
    // `monitor` test, as the word after `monitor` does to the unknown command
    let mut at = 0;
    if matches(w, "limits") {
        match rest.first().map(String::as_str) {
            None => return Ok(Outcome::Ok(limits_text(ns))),
            Some(s) if matches(s, "set") => {
                let (accept, subflows) = parse_limits(&rest[1..])?;
                ns.mptcp_set_limits(accept, subflows)
                    .map_err(Failure::kernel)?;
                return Ok(Outcome::Ok(String::new()));
            }
            Some(s) if matches(s, "show") => {
                parse_limits(&rest[1..])?;
                return Ok(Outcome::Ok(limits_text(ns)));
            }
            Some(_) => at = 1,
        }
    }
    let w = a[at].as_str();
    if matches(w, "monitor") {
        return match a.get(at + 1) {
            None => Err(monitor()),
            Some(next) => Err(unknown(next)),
        };
    }
    Err(unknown(w))
}
