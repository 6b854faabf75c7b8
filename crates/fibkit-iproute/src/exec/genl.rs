//! The `ip` objects that talk generic netlink: `ip sr` (the SRv6 tunnel source,
//! [`Netns::seg6_tunsrc`]), `ip tcp_metrics` (the TCP metrics cache, always empty in
//! a model that carries no TCP connection), and the ones whose family this kernel was
//! built without (`fou`, `l2tp`, `ila`, `macsec`): iproute2 asks the generic netlink
//! controller for the family first, which answers ENOENT, and stops.

use fibkit::prefix::Family;
use fibkit::{Errno, Netns};

use super::{bad_addr, bad_prefix, incomplete, invarg, matches, Failure, Opts, Outcome, Res};
use crate::names::{parse_addr, parse_prefix, Addr};
use crate::show::get_u32;

/// The objects of the generic netlink families this kernel lacks.
#[derive(Clone, Copy)]
pub(super) enum Missing {
    Fou,
    L2tp,
    Ila,
    Macsec,
}

impl Missing {
    fn usage(self) -> &'static str {
        match self {
            Missing::Fou => {
                "Usage: ip fou add port PORT { ipproto PROTO  | gue }\n\
                 \t\t   [ local IFADDR ] [ peer IFADDR ]\n\
                 \t\t   [ peer_port PORT ] [ dev IFNAME ]\n       \
                 ip fou del port PORT [ local IFADDR ]\n\
                 \t\t   [ peer IFADDR ] [ peer_port PORT ]\n\
                 \t\t   [ dev IFNAME ]\n       \
                 ip fou show\n\n\
                 Where: PROTO { ipproto-name | 1..255 }\n       \
                 PORT { 1..65535 }\n       \
                 IFADDR { addr }\n"
            }
            Missing::L2tp => {
                "Usage: ip l2tp add tunnel\n          \
                 remote ADDR local ADDR\n          \
                 tunnel_id ID peer_tunnel_id ID\n          \
                 [ encap { ip | udp } ]\n          \
                 [ udp_sport PORT ] [ udp_dport PORT ]\n          \
                 [ udp_csum { on | off } ]\n          \
                 [ udp6_csum_tx { on | off } ]\n          \
                 [ udp6_csum_rx { on | off } ]\n\
                 Usage: ip l2tp add session [ name NAME ]\n          \
                 tunnel_id ID\n          \
                 session_id ID peer_session_id ID\n          \
                 [ cookie HEXSTR ] [ peer_cookie HEXSTR ]\n          \
                 [ seq { none | send | recv | both } ]\n          \
                 [ l2spec_type L2SPEC ]\n       \
                 ip l2tp del tunnel tunnel_id ID\n       \
                 ip l2tp del session tunnel_id ID session_id ID\n       \
                 ip l2tp show tunnel [ tunnel_id ID ]\n       \
                 ip l2tp show session [ tunnel_id ID ] [ session_id ID ]\n\n\
                 Where: NAME   := STRING\n       \
                 ADDR   := { IP_ADDRESS | any }\n       \
                 PORT   := { 0..65535 }\n       \
                 ID     := { 1..4294967295 }\n       \
                 HEXSTR := { 8 or 16 hex digits (4 / 8 bytes) }\n       \
                 L2SPEC := { none | default }\n"
            }
            Missing::Ila => {
                "Usage: ip ila add loc_match LOCATOR_MATCH loc LOCATOR [ dev DEV ] OPTIONS\n       \
                 ip ila del loc_match LOCATOR_MATCH [ loc LOCATOR ] [ dev DEV ]\n       \
                 ip ila list\n\
                 OPTIONS := [ csum-mode { adj-transport | neutral-map |\n                         \
                 neutral-map-auto | no-action } ]\n           \
                 [ ident-type { luid | use-format } ]\n"
            }
            Missing::Macsec => {
                "Usage: ip macsec add DEV tx sa { 0..3 } [ OPTS ] key ID KEY\n       \
                 ip macsec set DEV tx sa { 0..3 } [ OPTS ]\n       \
                 ip macsec del DEV tx sa { 0..3 }\n       \
                 ip macsec add DEV rx SCI [ on | off ]\n       \
                 ip macsec set DEV rx SCI [ on | off ]\n       \
                 ip macsec del DEV rx SCI\n       \
                 ip macsec add DEV rx SCI sa { 0..3 } [ OPTS ] key ID KEY\n       \
                 ip macsec set DEV rx SCI sa { 0..3 } [ OPTS ]\n       \
                 ip macsec del DEV rx SCI sa { 0..3 }\n       \
                 ip macsec show\n       \
                 ip macsec show DEV\n       \
                 ip macsec offload DEV [ off | phy | mac ]\n\
                 where  OPTS := [ pn <u32> | xpn <u64> ] [ salt SALT ] [ ssci <u32> ] [ on | off ]\n       \
                 ID   := 128-bit hex string\n       \
                 KEY  := 128-bit or 256-bit hex string\n       \
                 SCI  := { sci <u64> | port { 1..2^16-1 } address <lladdr> }\n       \
                 SALT := 96-bit hex string\n"
            }
        }
    }
}

/// `ip fou|l2tp|ila|macsec ...`: the usage for none or `help`, else the family lookup's
/// failure (`genl_resolve_family`, exit status 1).
pub(super) fn missing_family(m: Missing, a: &[String]) -> Res<Outcome> {
    match a.first() {
        Some(w) if !matches(w, "help") => Err(Failure {
            stdout: String::new(),
            errno: Some(Errno::ENOENT),
            stderr: "RTNETLINK answers: No such file or directory\nError talking to the kernel\n"
                .into(),
            status: 1,
            // genl_init_handle: exit(1)
            exits: true,
        }),
        _ => Err(Failure::parse(m.usage(), 255)),
    }
}

fn sr_usage() -> Failure {
    Failure::parse(
        "Usage: ip sr { COMMAND | help }\n          \
         ip sr hmac show\n          \
         ip sr hmac set KEYID ALGO\n          \
         ip sr tunsrc show\n          \
         ip sr tunsrc set ADDRESS\n\
         where  ALGO := { sha1 | sha256 }\n",
        255,
    )
}

/// `ip sr ...` (ipseg6.c): the tunnel source is kept and shown; the HMAC key table is
/// listed (empty: no key can be set, as `hmac set` reads its secret from a terminal,
/// which fibkit does not model and refuses).
pub(super) fn sr_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(w) = a.first().map(String::as_str) else {
        return Err(sr_usage());
    };
    if matches(w, "help") {
        return Err(sr_usage());
    }
    let unknown = |v: &str| invarg("unknown", v);
    let mut it = a[1..].iter().map(String::as_str);
    if matches(w, "hmac") {
        let v = it.next().ok_or_else(incomplete)?;
        if matches(v, "show") {
            // a kernel without the HMAC table answers the dump with ENOTSUPP (524);
            // with -j the array was opened before the dump (`[`, `[ ` with -p) and
            // is never closed
            if !ns.kernel.ipv6_seg6_hmac {
                let open = match (opts.json, opts.pretty) {
                    (false, _) => "",
                    (true, false) => "[",
                    (true, true) => "[ ",
                };
                return Err(Failure {
                    stdout: open.into(),
                    errno: None,
                    stderr: "RTNETLINK answers: Unknown error 524\nDump terminated\n".into(),
                    status: 1,
                    exits: true,
                });
            }
            // a dump: no key, so nothing but the JSON array
            return Ok(Outcome::Ok(empty_json(opts).into()));
        }
        if matches(v, "set") {
            let id = it.next().ok_or_else(incomplete)?;
            if get_u32(id, 0).is_none_or(|k| k == 0) {
                return Err(invarg("hmac KEYID value is invalid", id));
            }
            let alg = it.next().ok_or_else(incomplete)?;
            if alg != "sha1" && alg != "sha256" {
                return Err(invarg("hmac ALGO value is invalid", alg));
            }
            // iproute2 prompts for the secret, reads none (a blank one deletes the
            // key) and sends the request, which a kernel without the HMAC table
            // refuses with ENOTSUPP (524)
            if !ns.kernel.ipv6_seg6_hmac {
                return Err(Failure {
                    stdout: String::new(),
                    errno: Some(fibkit::Errno::ENOTSUPP),
                    stderr: "Enter secret for HMAC key ID (blank to delete): RTNETLINK answers: Unknown error 524\n".into(),
                    status: 1,
                    exits: false,
                });
            }
            return Err(Failure::parse(
                "ip sr hmac set: fib reads no secret (ip prompts for it on a terminal)\n",
                255,
            ));
        }
        return Err(unknown(v));
    }
    if matches(w, "tunsrc") {
        let v = it.next().ok_or_else(incomplete)?;
        if matches(v, "show") {
            return Ok(Outcome::Ok(crate::show::seg6_tunsrc_show(
                ns.seg6_tunsrc(),
                &super::show_opts(opts),
            )));
        }
        if matches(v, "set") {
            let addr = it.next().ok_or_else(incomplete)?;
            // get_addr(AF_INET6): `any`, `all` and `default` are ::
            let a = match parse_addr(addr, Some(Family::V6)) {
                Some(Addr::V6(a)) => a,
                _ if matches!(addr, "any" | "all" | "default") => 0,
                _ => return Err(bad_addr(addr, Some(Family::V6))),
            };
            ns.set_seg6_tunsrc(a);
            return Ok(Outcome::Ok(String::new()));
        }
        return Err(unknown(v));
    }
    Err(unknown(w))
}

/// The empty JSON array `new_json_obj` and `delete_json_obj` print (`-p`: spaced).
fn empty_json(opts: &Opts) -> &'static str {
    match (opts.json, opts.pretty) {
        (false, _) => "",
        (true, false) => "[]\n",
        (true, true) => "[ ]\n",
    }
}

fn tcpm_usage() -> Failure {
    Failure::parse(
        "Usage:\tip tcp_metrics/tcpmetrics { COMMAND | help }\n\
         \tip tcp_metrics { show | flush } SELECTOR\n\
         \tip tcp_metrics delete [ address ] ADDRESS\n\
         SELECTOR := [ [ address ] PREFIX ]\n",
        255,
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tcpm {
    List,
    Del,
    Flush,
}

/// `ip tcp_metrics ...` (tcp_metrics.c) over an empty cache: a listing prints
/// nothing, a flush has nothing to do, and a request naming one address is ESRCH.
pub(super) fn tcp_metrics_cmd(opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(w) = a.first().map(String::as_str) else {
        return tcpm_do(opts, Tcpm::List, &[]);
    };
    let cmds = [
        ("list", Tcpm::List),
        ("lst", Tcpm::List),
        ("show", Tcpm::List),
        ("delete", Tcpm::Del),
        ("remove", Tcpm::Del),
        ("flush", Tcpm::Flush),
    ];
    if let Some((_, c)) = cmds.iter().find(|(n, _)| matches(w, n)) {
        return tcpm_do(opts, *c, &a[1..]);
    }
    if matches(w, "help") {
        return Err(tcpm_usage());
    }
    Err(Failure::parse(
        format!("Command \"{w}\" is unknown, try \"ip tcp_metrics help\".\n"),
        255,
    ))
}

/// `tcpm_do_cmd`.
fn tcpm_do(opts: &Opts, cmd: Tcpm, a: &[String]) -> Res<Outcome> {
    if let Some(alt) = opts.alt {
        return Err(Failure::parse(
            format!("Unsupported protocol family: {}\n", alt.af()),
            1,
        ));
    }
    let fam = opts.family;
    // the prefix lengths given (`bitlen`: 0 for `default`/`any`/`all`), and whether
    // the destination is one whole address
    let mut dlen: Option<u8> = None;
    let mut slen: Option<u8> = None;
    let mut one = false;
    // the loop steps twice past each word it read: `argc--; argv++` at the end of its
    // body, and again in the `for` (so every other selector is skipped)
    let mut i = 0;
    while let Some(w) = a.get(i).map(String::as_str) {
        let src = w == "src" || w == "source";
        let (who, v) = if src || w == "addr" || w == "address" {
            i += 1;
            (w, a.get(i).map(String::as_str).ok_or_else(incomplete)?)
        } else {
            ("address", w)
        };
        i += 2;
        if matches(v, "help") {
            return Err(tcpm_usage());
        }
        let slot = if src { &mut slen } else { &mut dlen };
        if slot.is_some() {
            return Err(Failure::parse(
                format!("Error: either \"{who}\" is duplicate, or \"{v}\" is a garbage.\n"),
                255,
            ));
        }
        let p = parse_prefix(v, fam).ok_or_else(|| bad_prefix(v, fam))?;
        let full = match p.addr {
            Addr::V4(_) => 32,
            Addr::V6(_) => 128,
        };
        // `default`, `any` and `all` have no bytes of address
        let whole = !matches!(v, "default" | "any" | "all") && p.len == full;
        *slot = Some(p.len);
        if (src || cmd == Tcpm::Del) && !whole {
            return Err(Failure::parse(
                format!("Error: a specific IP address is expected rather than \"{v}\"\n"),
                1,
            ));
        }
        if !src {
            one = whole;
        }
    }
    if cmd == Tcpm::Del && !one {
        return Err(Failure::parse(
            "Error: argument \"address\" is required\n",
            255,
        ));
    }
    // one destination (a get or a delete; a flush of one address is a delete), with
    // or without a source: no such entry
    if one {
        return Err(Failure::errno(Errno::ESRCH));
    }
    if cmd == Tcpm::Flush {
        // a flush of everything is one delete request, which succeeds; a filtered
        // one is a dump that finds nothing: "Nothing to flush." and exit status 0
        let everything =
            dlen.is_none_or(|l| l == 0) && slen.is_none_or(|l| l == 0) && fam.is_none();
        if everything {
            return Ok(Outcome::Ok(String::new()));
        }
        return Err(Failure {
            stdout: String::new(),
            errno: None,
            stderr: "Nothing to flush.\n".into(),
            status: 0,
            exits: false,
        });
    }
    Ok(Outcome::Ok(empty_json(opts).into()))
}

const IOAM_USAGE: &str = "Usage:\tip ioam { COMMAND | help }\n\
\tip ioam namespace show\n\
\tip ioam namespace add ID [ data DATA32 ] [ wide DATA64 ]\n\
\tip ioam namespace del ID\n\
\tip ioam schema show\n\
\tip ioam schema add ID DATA\n\
\tip ioam schema del ID\n\
\tip ioam namespace set ID schema { ID | none }\n";

/// A `get_u16(v, 0)` of ipioam6.c.
fn ioam_u16(v: &str) -> Option<u16> {
    get_u32(v, 0).and_then(|n| u16::try_from(n).ok())
}

/// `get_u64(v, 16)`: `strtoull` in base 16 over the whole word (a sign and leading
/// blanks taken, as strtoull takes them).
fn ioam_u64(v: &str) -> Option<u64> {
    let (n, used, overflow) = crate::show::strtoul(v, 16);
    (!v.is_empty() && used == v.len() && !overflow).then_some(n)
}

/// `ip ioam ...` (iproute2 6.1's ipioam6.c, the `IOAM6` generic netlink family): IOAM
/// namespaces and schemas ([`fibkit::ioam`]). The kernel's refusals carry no message
/// and make `ip` exit with 1; listings come by ID (the kernel's in its hash tables'
/// random order).
pub(super) fn ioam_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let usage = || Failure::parse(IOAM_USAGE, 255);
    let Some(w) = a.first().map(String::as_str) else {
        return Err(usage());
    };
    if w == "help" {
        return Err(usage());
    }
    let mut it = a[1..].iter().map(String::as_str);
    let mut next = || it.next().ok_or_else(incomplete);
    let kernel = |r: fibkit::Result<()>| -> Res<Outcome> {
        r.map(|()| Outcome::Ok(String::new())).map_err(|e| Failure {
            stdout: String::new(),
            errno: Some(e.errno),
            stderr: format!("RTNETLINK answers: {}\n", e.errno.strerror()),
            status: 1,
            exits: false,
        })
    };
    let show = |schemas: bool, ns: &Netns| {
        let o = super::show_opts(opts);
        Ok(Outcome::Ok(if schemas {
            crate::show::ioam_schemas_show(ns, &o)
        } else {
            crate::show::ioam_namespaces_show(ns, &o)
        }))
    };
    match w {
        "namespace" => {
            let v = next()?;
            match v {
                "show" => show(false, ns),
                "add" => {
                    let id = next()?;
                    let id = ioam_u16(id).ok_or_else(|| invarg("Invalid namespace ID", id))?;
                    let rest: Vec<&str> = a[3..].iter().map(String::as_str).collect();
                    let (mut data, mut wide) = (None, None);
                    let mut i = 0;
                    let mut maybe_wide = false;
                    if let Some(&k) = rest.first() {
                        if k != "data" && k != "wide" {
                            return Err(invarg("Invalid argument", k));
                        }
                        let val = rest.get(1).copied().ok_or_else(incomplete)?;
                        if k == "data" {
                            data =
                                Some(get_u32(val, 0).ok_or_else(|| invarg("Invalid data", val))?);
                            maybe_wide = true;
                        } else {
                            wide = Some(
                                ioam_u64(val).ok_or_else(|| invarg("Invalid wide data", val))?,
                            );
                        }
                        i = 2;
                    }
                    if let Some(&k) = rest.get(i) {
                        if !maybe_wide || k != "wide" {
                            return Err(invarg("Unexpected argument", k));
                        }
                        let val = rest.get(i + 1).copied().ok_or_else(incomplete)?;
                        wide = Some(ioam_u64(val).ok_or_else(|| invarg("Invalid wide data", val))?);
                    }
                    kernel(ns.ioam_ns_add(id, data, wide))
                }
                "del" => {
                    let id = next()?;
                    let id = ioam_u16(id).ok_or_else(|| invarg("Invalid namespace ID", id))?;
                    kernel(ns.ioam_ns_del(id))
                }
                "set" => {
                    let id = next()?;
                    let id = ioam_u16(id).ok_or_else(|| invarg("Invalid namespace ID", id))?;
                    let k = next()?;
                    if k != "schema" {
                        return Err(invarg("Unknown", k));
                    }
                    let s = next()?;
                    let sc = if s == "none" {
                        None
                    } else {
                        Some(get_u32(s, 0).ok_or_else(|| invarg("Invalid schema ID", s))?)
                    };
                    kernel(ns.ioam_ns_set_schema(id, sc))
                }
                _ => Err(invarg("Unknown", v)),
            }
        }
        "schema" => {
            let v = next()?;
            match v {
                "show" => show(true, ns),
                "add" => {
                    let id = next()?;
                    let id = get_u32(id, 0).ok_or_else(|| invarg("Invalid schema ID", id))?;
                    let d = next()?;
                    if d.len() > fibkit::ioam::MAX_SCHEMA_DATA_LEN {
                        return Err(invarg("Schema DATA too big", d));
                    }
                    kernel(ns.ioam_sc_add(id, d.as_bytes()))
                }
                "del" => {
                    let id = next()?;
                    let id = get_u32(id, 0).ok_or_else(|| invarg("Invalid schema ID", id))?;
                    kernel(ns.ioam_sc_del(id))
                }
                _ => Err(invarg("Unknown", v)),
            }
        }
        _ => Err(invarg("Unknown", w)),
    }
}
