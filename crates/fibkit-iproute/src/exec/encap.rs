//! `encap TYPE ...` of routes, their nexthops and nexthop objects: iproute2's
//! iproute_lwtunnel.c (parse and print) over [`fibkit::encap::Encap`].

use std::sync::Arc;

use fibkit::encap::{srh_segments, Encap, Seg6Mode, TUNNEL_FLAG_NAMES};
use fibkit::prefix::Family;
use fibkit::Errno;

use super::{bad_addr, invarg, missarg, Args, Failure, Res};
use crate::names::{dsfield_a2n, fmt4, fmt6, parse_addr, parse_u32, parse_u64, Addr};

/// `duparg2`.
fn duparg(key: &str, arg: &str) -> Failure {
    Failure::parse(
        format!("Error: either \"{key}\" is duplicate, or \"{arg}\" is a garbage.\n"),
        255,
    )
}

/// What the kernel answers for an encapsulation type it was built without, or one
/// fibkit does not model.
fn unsupported() -> Failure {
    Failure::kernel(fibkit::Error::msg(
        Errno::EOPNOTSUPP,
        "lwt encapsulation type not supported",
    ))
}

/// One address of `fam` (`get_addr`, which exits on a bad one).
fn addr(s: &str, fam: Family) -> Res<Addr> {
    parse_addr(s, Some(fam)).ok_or_else(|| bad_addr(s, Some(fam)))
}

/// `lwt_parse_encap`, with `a` just past `encap`: the type and its options (the words
/// after them are left for the caller).
pub(super) fn parse_encap(ns: &fibkit::Netns, a: &mut Args<'_>) -> Res<Arc<Encap>> {
    let t = a.val()?;
    let known = [
        "mpls",
        "ip",
        "ip6",
        "ila",
        "bpf",
        "seg6",
        "seg6local",
        "rpl",
        "ioam6",
        "xfrm",
    ];
    if !known.contains(&t) {
        return Err(invarg("\"encap type\" value is invalid\n", t));
    }
    // NEXT_ARG, then at least two words must be left (`argc <= 1` is an error)
    if a.peek().is_none() {
        return Err(super::incomplete());
    }
    if a.v.len() - a.i <= 1 {
        return Err(Failure::parse(
            "Error: unexpected end of line after \"encap\"\n",
            255,
        ));
    }
    match t {
        "ip" => parse_ip(a, false),
        "ip6" => parse_ip(a, true),
        // a kernel without SRv6 tunnels refuses both once iproute2 has read them
        // (lwtunnel_valid_encap_type, where the request's attributes are read)
        "seg6" | "seg6local" => {
            let (e, kind) = if t == "seg6" {
                (parse_seg6(a)?, "seg6")
            } else {
                (parse_seg6local(ns, a)?, "seg6local")
            };
            if ns.kernel.ipv6_seg6_lwtunnel {
                Ok(e)
            } else {
                Ok(Arc::new(Encap::Unsupported { kind }))
            }
        }
        // the kernel has no mpls encapsulation: the kernel refuses it once iproute2
        // has read the line
        "mpls" => parse_mpls(a),
        "rpl" => parse_rpl(a),
        "ila" => parse_ila(a),
        "xfrm" => parse_xfrm(ns, a),
        "ioam6" => parse_ioam6(a),
        "bpf" => parse_bpf(a),
        _ => Err(unsupported()),
    }
}

/// `parse_encap_bpf`: `in`, `out` and `xmit` programs and a `headroom` (read once,
/// later ones checked). fibkit loads no eBPF program: a program whose object file or
/// pinned path does not exist fails as iproute2's loader fails on it, one that exists
/// is refused as not modelled. Without a program the kernel refuses the encapsulation
/// where it builds it (bpf_build_state: EINVAL whatever the headroom).
fn parse_bpf(a: &mut Args<'_>) -> Res<Arc<Encap>> {
    while let Some(k) = a.peek() {
        match k {
            "in" | "out" | "xmit" => {
                a.next();
                return Err(parse_bpf_program(a));
            }
            "headroom" => {
                a.next();
                let v = a.val()?;
                if crate::show::get_u32(v, 0).is_none_or(|n| n == 0) {
                    return Err(invarg("headroom is invalid\n", v));
                }
            }
            "help" => {
                return Err(Failure::parse(
                    "Usage: ip route ... encap bpf [ in BPF ] [ out BPF ] [ xmit BPF ] [...]\n\
                     BPF := obj FILE [ section NAME ] [ verbose ]\n",
                    255,
                ))
            }
            _ => break,
        }
    }
    Ok(Arc::new(Encap::Refused {
        kind: "bpf",
        errno: Errno::EINVAL,
        msg: None,
    }))
}

/// `lwt_parse_bpf` of one program, which always fails here: the loader's message (see
/// [`bpf_program_failure`]), then "Failed to parse eBPF program" with `strerror(1)`.
fn parse_bpf_program(a: &mut Args<'_>) -> Failure {
    let failed = a.val().and_then(|mode| bpf_program_failure(a, mode));
    match failed {
        Ok(msg) => Failure::parse(
            format!("{msg}Failed to parse eBPF program: Operation not permitted\n"),
            255,
        ),
        Err(f) => f,
    }
}

/// `bpf_do_parse` and the load of an eBPF program (for an encapsulation or `xdp`),
/// with `a` just past its mode word: `obj`/`object-file`, or `pinned`/`object-pinned`/
/// `fd`, the path, then `section NAME`, `program NAME` and `verbose` in that order (the
/// program type is the hook's, so no `type` word). fibkit loads no program: the result
/// is the loader's message when the path does not exist (libelf's for an object file,
/// the pinned lookup's errno), or a line cut short, or fibkit's refusal of a program
/// that exists.
pub(super) fn bpf_program_failure(a: &mut Args<'_>, mode: &str) -> Res<String> {
    use crate::names::matches;
    let object = matches(mode, "object-file") || mode == "obj";
    let pinned = matches(mode, "object-pinned") || matches(mode, "pinned") || matches(mode, "fd");
    if !object && !pinned {
        return Ok(format!("What mode is \"{mode}\"?\n"));
    }
    let path = a.val()?;
    for (word, exact) in [("section", false), ("program", true)] {
        if a.peek()
            .is_some_and(|w| if exact { w == word } else { matches(w, word) })
        {
            a.next();
            a.val()?;
        }
    }
    if a.peek().is_some_and(|w| matches(w, "verbose")) {
        a.next();
    }
    let not_modelled = || Failure {
        stdout: String::new(),
        errno: Some(Errno::EOPNOTSUPP),
        stderr: format!("Error: fibkit does not load eBPF programs (\"{path}\").\n"),
        status: 2,
        exits: false,
    };
    // a pinned path under the loader's work directory (`m:NAME`) may mount bpffs
    if pinned && path.len() > 2 && path.starts_with("m:") {
        return Err(not_modelled());
    }
    match std::fs::metadata(path) {
        Ok(_) => Err(not_modelled()),
        // open() fails: bpf_elf_ctx_init returns -1
        Err(_) if object => Ok("Cannot initialize ELF context!\n".to_string()),
        // BPF_OBJ_GET fails with the path's errno
        Err(e) => {
            let why = match e.raw_os_error() {
                Some(2) => "No such file or directory",
                Some(20) => "Not a directory",
                Some(36) => "File name too long",
                Some(40) => "Too many levels of symbolic links",
                _ => return Err(not_modelled()),
            };
            Ok(format!(
                "Couldn't retrieve pinned program '{path}': {why}\n"
            ))
        }
    }
}

/// `parse_encap_rpl`: `segs LIST` (IPv6 addresses, comma-separated; once). This kernel
/// has no RPL encapsulation ([`Encap::Unsupported`]).
fn parse_rpl(a: &mut Args<'_>) -> Res<Arc<Encap>> {
    let mut segs: Option<&str> = None;
    while a.peek() == Some("segs") {
        a.next();
        let v = a.val()?;
        if segs.is_some() {
            return Err(duparg("segs", v));
        }
        segs = Some(v);
    }
    // parse_rpl_srh reads the addresses once the options are read
    parse_segs(segs.unwrap_or(""))?;
    Ok(Arc::new(Encap::Unsupported { kind: "rpl" }))
}

/// `parse_encap_ioam6`: `[freq K/N] [mode inline|encap|auto] [tundst ADDR] trace
/// prealloc` then `type`, `ns` and `size` (each once, all three needed), in iproute2's
/// order and with its messages. Options ending the line leave their last word to the
/// route's parser, as iproute2 does. This kernel has no IOAM tunnel
/// ([`Encap::Unsupported`]).
fn parse_ioam6(a: &mut Args<'_>) -> Res<Arc<Encap>> {
    // NEXT_ARG after a value: another word must follow
    let more = |a: &Args<'_>| {
        if a.peek().is_none() {
            Err(super::incomplete())
        } else {
            Ok(())
        }
    };
    if a.peek() == Some("freq") {
        a.next();
        let v = a.val()?;
        if v.len() > 15 {
            return Err(invarg("Invalid frequency (too long)", v));
        }
        let parts: Vec<&str> = v.split('/').collect();
        let num = |x: &str| x.parse::<u32>().ok().filter(|_| !x.is_empty());
        let (k, n) = match parts.as_slice() {
            [k, n] => match (num(k), num(n)) {
                (Some(k), Some(n)) => (k, n),
                _ => return Err(invarg("Invalid frequency (malformed)", v)),
            },
            _ => return Err(invarg("Invalid frequency (malformed)", v)),
        };
        let bounds = 1..=1_000_000;
        if !bounds.contains(&k) {
            return Err(invarg("Out of bound \"k\" frequency", v));
        }
        if !bounds.contains(&n) {
            return Err(invarg("Out of bound \"n\" frequency", v));
        }
        if k > n {
            return Err(invarg("Frequency with k > n is forbidden", v));
        }
        more(a)?;
    }
    let mut inline = true;
    if a.peek() == Some("mode") {
        a.next();
        let v = a.val()?;
        inline = match v {
            "inline" => true,
            "encap" | "auto" => false,
            _ => return Err(invarg("Invalid mode", v)),
        };
        more(a)?;
    }
    if a.peek() == Some("tundst") {
        if inline {
            return Err(invarg("Inline mode does not need tundst", "tundst"));
        }
        a.next();
        let v = a.val()?;
        if v == "any" || v == "all" {
            return Err(invarg("Invalid IPv6 address for tundst", v));
        }
        addr(v, Family::V6)?;
        more(a)?;
    } else if !inline {
        return Err(missarg("tundst"));
    }
    if a.peek() != Some("trace") {
        return Err(missarg("trace"));
    }
    a.next();
    more(a)?;
    if a.peek() != Some("prealloc") {
        return Err(missarg("prealloc"));
    }
    a.next();
    let (mut ty, mut ns, mut size) = (0u32, None::<u16>, 0u16);
    let u16_arg = |v: &str| parse_u32(v).and_then(|n| u16::try_from(n).ok());
    let mut read_any = false;
    loop {
        let Some(w) = a.peek() else {
            // the options end the line: iproute2 stops on their last word, which the
            // route's parser then reads again
            if read_any {
                a.i -= 1;
            }
            break;
        };
        match w {
            "type" => {
                a.next();
                let v = a.val()?;
                if ty != 0 {
                    return Err(duparg("type", v));
                }
                ty = parse_u32(v)
                    .filter(|&t| t != 0)
                    .ok_or_else(|| invarg("Invalid trace type", v))?;
            }
            "ns" => {
                a.next();
                let v = a.val()?;
                if ns.is_some() {
                    return Err(duparg("ns", v));
                }
                ns = Some(u16_arg(v).ok_or_else(|| invarg("Invalid namespace ID", v))?);
            }
            "size" => {
                a.next();
                let v = a.val()?;
                if size != 0 {
                    return Err(duparg("size", v));
                }
                size = u16_arg(v)
                    .filter(|&n| n != 0)
                    .ok_or_else(|| invarg("Invalid trace size", v))?;
                if size % 4 != 0 {
                    return Err(invarg("Trace size must be a 4-octet multiple", v));
                }
                if size > 244 {
                    return Err(invarg("Trace size is too big", v));
                }
            }
            _ => break,
        }
        read_any = true;
    }
    if ty == 0 {
        return Err(missarg("type"));
    }
    if ns.is_none() {
        return Err(missarg("ns"));
    }
    if size == 0 {
        return Err(missarg("size"));
    }
    Ok(Arc::new(Encap::Unsupported { kind: "ioam6" }))
}

/// `parse_encap_ila`: a locator (`get_addr64`: up to four groups of at most four hex
/// digits) and `csum-mode`, `ident-type`, `hook-type` by name. This kernel has no ILA
/// tunnel ([`Encap::Unsupported`]).
fn parse_ila(a: &mut Args<'_>) -> Res<Arc<Encap>> {
    let loc = a.val()?;
    let groups: Vec<&str> = loc.split(':').collect();
    let good = groups.len() <= 4
        && groups.iter().all(|g| {
            let h = g
                .strip_prefix("0x")
                .or_else(|| g.strip_prefix("0X"))
                .unwrap_or(g);
            !h.is_empty() && h.len() <= 4 && h.chars().all(|c| c.is_ascii_hexdigit())
        });
    if !good {
        return Err(Failure::parse(format!("Bad locator: {loc}\n"), 1).exiting(true));
    }
    loop {
        let (key, names): (&str, &[&str]) = match a.peek() {
            Some("csum-mode") => (
                "csum-mode",
                &[
                    "adj-transport",
                    "neutral-map",
                    "neutral-map-auto",
                    "no-action",
                ],
            ),
            Some("ident-type") => ("ident-type", &["luid", "use-format"]),
            Some("hook-type") => ("hook-type", &["output", "input"]),
            _ => break,
        };
        a.next();
        let v = a.val()?;
        if !names.contains(&v) {
            return Err(invarg(&format!("\"{key}\" value is invalid\n"), v));
        }
    }
    Ok(Arc::new(Encap::Unsupported { kind: "ila" }))
}

/// `parse_encap_xfrm`: `if_id N` (not 0) and `link_dev DEV`, each once; the parser
/// passes over any other word to the end of the line (it has no `break`), and without
/// an `if_id` prints its usage. This kernel has no xfrm tunnel
/// ([`Encap::Unsupported`]).
fn parse_xfrm(ns: &fibkit::Netns, a: &mut Args<'_>) -> Res<Arc<Encap>> {
    let usage = || {
        Failure::parse(
            "Usage: ip route ... encap xfrm if_id IF_ID [ link_dev LINK ]\n",
            255,
        )
    };
    let (mut if_id, mut link) = (false, false);
    while let Some(k) = a.next() {
        match k {
            "if_id" => {
                let v = a.val()?;
                if if_id {
                    return Err(duparg("if_id", v));
                }
                if_id = true;
                if parse_u32(v).is_none_or(|n| n == 0) {
                    return Err(invarg("\"if_id\" value is invalid\n", v));
                }
            }
            "link_dev" => {
                let v = a.val()?;
                if link {
                    return Err(duparg("link_dev", v));
                }
                link = true;
                if super::ll_index(ns, v).is_none() {
                    return Err(super::nodev_exit(v));
                }
            }
            "help" => return Err(usage()),
            _ => {}
        }
    }
    if !if_id {
        return Err(usage());
    }
    Ok(Arc::new(Encap::Unsupported { kind: "xfrm" }))
}

/// `parse_encap_mpls`: a label stack (`get_addr` of AF_MPLS: `/`-separated labels
/// below 2^20, as `strtoul` reads them, at most 64) and `ttl N`s. This kernel has no
/// MPLS encapsulation ([`Encap::Unsupported`]).
fn parse_mpls(a: &mut Args<'_>) -> Res<Arc<Encap>> {
    let v = a.val()?;
    // mpls_pton: labels until the end of the word; more than 64 is too many
    let mut rest = v;
    let mut labels = 0;
    let ok = loop {
        let (label, used, _) = crate::show::strtoul(rest, 0);
        if label >= 1 << 20 || used == 0 {
            break false;
        }
        labels += 1;
        match rest[used..].strip_prefix('/') {
            None => break used == rest.len(),
            Some(_) if labels == 64 => {
                return Err(Failure::parse(
                    format!("Error: too many labels.\nError: mpls address is expected rather than \"{v}\".\n"),
                    1,
                ).exiting(true));
            }
            Some(r) => rest = r,
        }
    };
    if !ok {
        return Err(Failure::parse(
            format!("Error: mpls address is expected rather than \"{v}\".\n"),
            1,
        )
        .exiting(true));
    }
    let mut ttl = false;
    while a.peek() == Some("ttl") {
        a.next();
        let v = a.val()?;
        if ttl {
            return Err(duparg("ttl", v));
        }
        ttl = true;
        crate::show::get_u8(v, 0).ok_or_else(|| invarg("\"ttl\" value is invalid\n", v))?;
    }
    Ok(Arc::new(Encap::Unsupported { kind: "mpls" }))
}

/// `parse_encap_ip` / `parse_encap_ip6`.
fn parse_ip(a: &mut Args<'_>, v6: bool) -> Res<Arc<Encap>> {
    let fam = if v6 { Family::V6 } else { Family::V4 };
    let (mut id, mut src, mut dst, mut ttl, mut tos, mut flags) =
        (0u64, 0u128, 0u128, 0u8, 0u8, 0u16);
    let mut seen: Vec<&str> = Vec::new();
    let mut vxlan_gbp = None;
    let (ttl_word, tos_word) = if v6 {
        ("hoplimit", "tc")
    } else {
        ("ttl", "tos")
    };
    while let Some(k) = a.peek() {
        let key = match k {
            "id" | "dst" | "src" | "key" | "csum" | "seq" => k,
            _ if k == ttl_word || k == tos_word => k,
            // the tunnel options: one of geneve, vxlan, erspan (counted as `opts`
            // before their value is read)
            "vxlan_opts" => {
                a.next();
                if seen.contains(&"opts") {
                    return Err(duparg("opts", k));
                }
                seen.push("opts");
                let v = a.val()?;
                let g =
                    parse_u32(v).ok_or_else(|| invarg("\"vxlan_opts\" value is invalid\n", v))?;
                // ip_tun_parse_opts_vxlan keeps the group policy id and the D and A bits
                vxlan_gbp = Some(g & fibkit::encap::VXLAN_GBP_MASK);
                continue;
            }
            _ => break,
        };
        a.next();
        let flag = TUNNEL_FLAG_NAMES.iter().find(|(_, n)| *n == key);
        if let Some(&(f, _)) = flag {
            if seen.contains(&key) {
                return Err(duparg(key, key));
            }
            seen.push(key);
            flags |= f;
            continue;
        }
        let v = a.val()?;
        if seen.contains(&key) {
            return Err(duparg(key, v));
        }
        seen.push(key);
        match key {
            "id" => {
                id = parse_u64(v).ok_or_else(|| invarg("\"id\" value is invalid\n", v))?;
            }
            "dst" | "src" => {
                let x = match addr(v, fam)? {
                    Addr::V4(x) => u128::from(x),
                    Addr::V6(x) => x,
                };
                if key == "dst" {
                    dst = x;
                } else {
                    src = x;
                }
            }
            _ if key == ttl_word => {
                ttl = parse_u32(v)
                    .and_then(|x| u8::try_from(x).ok())
                    .ok_or_else(|| invarg(&format!("\"{key}\" value is invalid\n"), v))?;
            }
            _ => {
                tos = dsfield_a2n(v)
                    .ok_or_else(|| invarg(&format!("\"{key}\" value is invalid\n"), v))?;
            }
        }
    }
    Ok(Arc::new(if v6 {
        Encap::Ip6 {
            id,
            src,
            dst,
            hoplimit: ttl,
            tc: tos,
            flags,
            vxlan_gbp,
        }
    } else {
        Encap::Ip {
            id,
            src: src as u32,
            dst: dst as u32,
            ttl,
            tos,
            flags,
            vxlan_gbp,
        }
    }))
}

/// `parse_encap_seg6` (and `parse_srh`: an inline header gets a last `::` slot for
/// the final destination).
fn parse_seg6(a: &mut Args<'_>) -> Res<Arc<Encap>> {
    let (mut mode, mut segs, mut hmac) = (None, None, 0u32);
    let mut seen: Vec<&str> = Vec::new();
    while let Some(k) = a.peek() {
        if !matches!(k, "mode" | "segs" | "hmac") {
            break;
        }
        a.next();
        let v = a.val()?;
        if seen.contains(&k) {
            return Err(duparg(k, v));
        }
        seen.push(k);
        match k {
            "mode" => {
                mode = Some(
                    Seg6Mode::from_name(v)
                        .ok_or_else(|| invarg("\"mode\" value is invalid\n", v))?,
                );
            }
            "segs" => {
                if mode.is_none() {
                    return Err(invarg("\"segs\" provided before \"mode\"\n", v));
                }
                segs = Some(parse_segs(v)?);
            }
            _ => hmac = parse_u32(v).unwrap_or(0),
        }
    }
    let mode = mode.unwrap_or(Seg6Mode::Inline);
    let segs = srh_segments(segs.unwrap_or_default(), mode == Seg6Mode::Inline);
    Ok(Arc::new(Encap::Seg6 { mode, segs, hmac }))
}

/// The addresses of `segs A,B,...` (`parse_srh`'s `inet_get_addr`, which exits on a
/// bad one).
fn parse_segs(list: &str) -> Res<Vec<u128>> {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| match addr(s, Family::V6)? {
            Addr::V6(x) => Ok(x),
            Addr::V4(_) => Err(bad_addr(s, Some(Family::V6))),
        })
        .collect()
}

/// `print_srh`'s list: `segs N [ A B ... ] ` and the JSON array.
fn segs_field(segs: &[u128]) -> (String, Vec<String>) {
    let list: Vec<String> = segs.iter().map(|s| fmt6(*s)).collect();
    (format!("segs {} [ {} ] ", segs.len(), list.join(" ")), list)
}

/// One printed field: its JSON key (`None`: text only), its text and its JSON value.
pub(crate) struct Field {
    /// JSON key.
    pub key: Option<&'static str>,
    /// Text, with iproute2's trailing blank.
    pub text: String,
    /// JSON value.
    pub json: serde_json::Value,
}

fn field(key: &'static str, text: String, json: serde_json::Value) -> Field {
    Field {
        key: Some(key),
        text,
        json,
    }
}

/// `lwt_print_encap`: the fields iproute2 prints for `e`, the first being ` encap
/// TYPE ` (with a blank before it).
pub(crate) fn encap_fields(ns: &fibkit::Netns, e: &Encap) -> Vec<Field> {
    let mut f = vec![field(
        "encap",
        format!(" encap {} ", e.type_name()),
        e.type_name().into(),
    )];
    let flags = |f: &mut Vec<Field>, flags: u16| {
        for (bit, name) in TUNNEL_FLAG_NAMES {
            if flags & bit != 0 {
                f.push(field(name, format!("{name} "), true.into()));
            }
        }
    };
    // lwtunnel_print_opts: a new line, then the options (a JSON array of objects)
    let vxlan = |f: &mut Vec<Field>, gbp: Option<u32>| {
        if let Some(g) = gbp {
            f.push(field(
                "vxlan_opts",
                format!("\n\tvxlan_opts {g} "),
                serde_json::json!([{ "gbp": g }]),
            ));
        }
    };
    match e {
        Encap::Ip {
            id,
            src,
            dst,
            ttl,
            tos,
            flags: fl,
            vxlan_gbp,
        } => {
            f.push(field("id", format!("id {id} "), (*id).into()));
            f.push(field(
                "src",
                format!("src {} ", fmt4(*src)),
                fmt4(*src).into(),
            ));
            f.push(field(
                "dst",
                format!("dst {} ", fmt4(*dst)),
                fmt4(*dst).into(),
            ));
            f.push(field("ttl", format!("ttl {ttl} "), (*ttl).into()));
            f.push(field("tos", format!("tos {tos} "), (*tos).into()));
            flags(&mut f, *fl);
            vxlan(&mut f, *vxlan_gbp);
        }
        Encap::Ip6 {
            id,
            src,
            dst,
            hoplimit,
            tc,
            flags: fl,
            vxlan_gbp,
        } => {
            f.push(field("id", format!("id {id} "), (*id).into()));
            f.push(field(
                "src",
                format!("src {} ", fmt6(*src)),
                fmt6(*src).into(),
            ));
            f.push(field(
                "dst",
                format!("dst {} ", fmt6(*dst)),
                fmt6(*dst).into(),
            ));
            f.push(field(
                "hoplimit",
                format!("hoplimit {hoplimit} "),
                (*hoplimit).into(),
            ));
            f.push(field("tc", format!("tc {tc} "), (*tc).into()));
            flags(&mut f, *fl);
            vxlan(&mut f, *vxlan_gbp);
        }
        Encap::Seg6Local {
            action,
            table,
            nh4,
            nh6,
            oif,
            srh,
            count: _,
            flavors,
        } => {
            f.push(field(
                "action",
                format!("action {action} "),
                (*action).into(),
            ));
            if let Some((segs, hmac)) = srh {
                let (text, list) = segs_field(segs);
                let mut j = serde_json::json!({ "segs": list });
                if *hmac != 0 {
                    j["hmac"] = format!("0x{hmac:x}").into();
                }
                f.push(field("srh", text, j));
                if *hmac != 0 {
                    f.push(Field {
                        key: None,
                        text: format!("hmac {hmac:X} "),
                        json: serde_json::Value::Null,
                    });
                }
            }
            if let Some(t) = table {
                let n = crate::names::table_n2a(*t);
                f.push(field("table", format!("table {n} "), n.into()));
            }
            if let Some(a) = nh4 {
                f.push(field("nh4", format!("nh4 {} ", fmt4(*a)), fmt4(*a).into()));
            }
            if let Some(a) = nh6 {
                f.push(field("nh6", format!("nh6 {} ", fmt6(*a)), fmt6(*a).into()));
            }
            if let Some(i) = oif {
                let n = ns.link_name(*i).to_string();
                f.push(field("oif", format!("oif {n} "), n.into()));
            }
            if let Some((ops, lblen, nflen)) = flavors {
                let names = fibkit::encap::seg6_flavor::names(*ops);
                f.push(field(
                    "flavors",
                    format!("flavors {} ", names.join(",")),
                    serde_json::json!(names),
                ));
                if ops & fibkit::encap::seg6_flavor::NEXT_CSID != 0 {
                    f.push(field("lblen", format!("lblen {lblen} "), (*lblen).into()));
                    f.push(field("nflen", format!("nflen {nflen} "), (*nflen).into()));
                }
            }
        }
        Encap::Seg6 { mode, segs, hmac } => {
            f.push(field(
                "mode",
                format!("mode {} ", mode.name()),
                mode.name().into(),
            ));
            let (text, list) = segs_field(segs);
            f.push(field("segs", text, list.into()));
            if *hmac != 0 {
                f.push(field(
                    "hmac",
                    format!("hmac {hmac:X} "),
                    format!("0x{hmac:x}").into(),
                ));
            }
        }
        // never stored: the kernel refuses it
        Encap::Unsupported { .. } | Encap::Refused { .. } => {}
    }
    f
}

/// The text iproute2 prints for `e` (` encap TYPE ...`, ending in a blank).
pub fn encap_text(ns: &fibkit::Netns, e: &Encap) -> String {
    encap_fields(ns, e).into_iter().map(|f| f.text).collect()
}

/// The JSON members iproute2 prints for `e`, in order (keys may repeat the route's
/// own: `dst`, `src`, `tos`).
pub fn encap_json_members(ns: &fibkit::Netns, e: &Encap) -> Vec<(String, serde_json::Value)> {
    encap_fields(ns, e)
        .into_iter()
        .filter_map(|f| f.key.map(|k| (k.to_string(), f.json)))
        .collect()
}

/// `parse_encap_seg6local`: the behaviour and its attributes; the kernel's
/// `seg6_local_build_state` keeps those the behaviour has.
fn parse_seg6local(ns: &fibkit::Netns, a: &mut Args<'_>) -> Res<Arc<Encap>> {
    let (mut action, mut table, mut vrftable, mut nh4, mut nh6, mut oif) =
        (None, None, None, None, None, None);
    let (mut srh, mut count, mut flavors) = (None, false, None);
    let (mut lblen, mut nflen) = (32u8, 16u8);
    let mut seen: Vec<&str> = Vec::new();
    let actions = fibkit::encap::SEG6LOCAL_ACTIONS;
    while let Some(k) = a.peek() {
        if !matches!(
            k,
            "action"
                | "table"
                | "vrftable"
                | "nh4"
                | "nh6"
                | "iif"
                | "oif"
                | "srh"
                | "count"
                | "flavors"
                | "endpoint"
        ) {
            break;
        }
        a.next();
        if k == "endpoint" {
            // End.BPF's program (lwt_parse_bpf), which fibkit cannot load
            return Err(parse_bpf_program(a));
        }
        if k == "count" {
            if seen.contains(&k) {
                return Err(duparg(k, k));
            }
            seen.push(k);
            count = true;
            continue;
        }
        let v = a.val()?;
        if seen.contains(&k) {
            return Err(duparg(k, v));
        }
        seen.push(k);
        match k {
            "action" => {
                let Some(x) = actions.iter().find(|x| **x == v) else {
                    return Err(invarg("\"action\" value is invalid\n", v));
                };
                action = Some(*x);
            }
            "table" | "vrftable" => {
                let what = if k == "table" {
                    "invalid table id\n"
                } else {
                    "invalid vrf table id\n"
                };
                let t = crate::names::table_a2n(v).ok_or_else(|| invarg(what, v))?;
                if k == "table" {
                    table = Some(t);
                } else {
                    vrftable = Some(t);
                }
            }
            "nh4" => {
                if let Addr::V4(x) = addr(v, Family::V4)? {
                    nh4 = Some(x);
                }
            }
            "nh6" => {
                if let Addr::V6(x) = addr(v, Family::V6)? {
                    nh6 = Some(x);
                }
            }
            "iif" | "oif" => {
                let i = super::ll_index(ns, v).ok_or_else(|| super::nodev_exit(v))?;
                if k == "oif" {
                    oif = Some(i);
                }
            }
            "srh" => {
                if v != "segs" {
                    return Err(invarg("missing \"segs\" attribute for srh\n", v));
                }
                let segs = parse_segs(a.val()?)?;
                if a.peek().is_none() {
                    // the segments ending the line: iproute2 stops without stepping
                    // past them, so the route's parser reads them again
                    srh = Some((segs, 0));
                    a.i -= 1;
                    break;
                }
                let mut hmac = 0;
                if a.peek() == Some("hmac") {
                    a.next();
                    hmac = parse_u32(a.val()?).unwrap_or(0);
                }
                srh = Some((segs, hmac));
            }
            "flavors" => {
                // parse_seg6local_flavors: comma-separated names (any case, each once)
                let mut mask = 0u32;
                let bad = || invarg("invalid \"flavors\" attribute\n", v);
                let names = fibkit::encap::seg6_flavor::NAMES;
                // (strtok: empty names are skipped, so `,` asks for none)
                if v.is_empty() {
                    return Err(bad());
                }
                for w in v.split(',').filter(|w| !w.is_empty()) {
                    let Some((b, _)) = names.iter().find(|(_, n)| n.eq_ignore_ascii_case(w)) else {
                        return Err(bad());
                    };
                    if mask & b != 0 {
                        return Err(bad());
                    }
                    mask |= b;
                }
                // with next-csid, `lblen N` then `nflen N` may follow
                if mask & fibkit::encap::seg6_flavor::NEXT_CSID != 0 {
                    for (key, what, slot) in [
                        ("lblen", "locator-block length", &mut lblen),
                        ("nflen", "locator-node function length", &mut nflen),
                    ] {
                        // seg6local_parse_flavors steps forward unchecked
                        // (NEXT_ARG_FWD) and compares the next word: after the
                        // flavors, or after `lblen N`, with no word left, `strcmp` is
                        // handed the NULL that ends argv and `ip` dies of SIGSEGV
                        // (once `nflen N` is read, it steps back before comparing)
                        if a.peek().is_none() {
                            return Err(Failure::segv());
                        }
                        if a.peek() == Some(key) {
                            a.next();
                            let x = a.val()?;
                            *slot = parse_u32(x).and_then(|n| u8::try_from(n).ok()).ok_or_else(
                                || invarg(&format!("\"{what}\" value is invalid\n"), x),
                            )?;
                        }
                    }
                }
                flavors = Some(mask);
            }
            _ => {}
        }
    }
    // parse_encap_seg6local, having read no `action`, says so and exit(-1)s
    let Some(action) = action else {
        return Err(Failure::parse("Missing action type\n", 255));
    };
    // an SRH to insert (all but End.B6.Encaps) ends with the final destination's slot
    let srh = srh.map(|(segs, hmac)| (srh_segments(segs, action != "End.B6.Encaps"), hmac));
    // the kernel builds it, and refuses it, only where the route is made
    let e = Encap::seg6local(
        action,
        table,
        vrftable,
        nh4,
        nh6,
        oif,
        srh,
        count,
        flavors.map(|f| (f, lblen, nflen)),
    );
    Ok(Arc::new(e.unwrap_or_else(|err| Encap::Refused {
        kind: "seg6local",
        errno: err.errno,
        msg: err.msg,
    })))
}
