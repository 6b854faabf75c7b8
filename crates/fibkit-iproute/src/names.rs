//! iproute2's name tables and number parsers (`rt_tables`, `rt_protos`, `rt_scopes`,
//! `rt_dsfield`, protocol names) and its address and prefix syntax.

use std::net::{Ipv4Addr, Ipv6Addr};

use fibkit::prefix::Family;

/// An address parsed from the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addr {
    /// IPv4.
    V4(u32),
    /// IPv6.
    V6(u128),
}

impl Addr {
    /// The family of the address.
    pub fn family(self) -> Family {
        match self {
            Addr::V4(_) => Family::V4,
            Addr::V6(_) => Family::V6,
        }
    }
}

/// A prefix parsed from the command line (address as written, host bits kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pfx {
    /// The address.
    pub addr: Addr,
    /// The prefix length.
    pub len: u8,
    /// Whether the length was given explicitly.
    pub explicit_len: bool,
}

/// Parse an address of `fam` (None: either).
pub fn parse_addr(s: &str, fam: Option<Family>) -> Option<Addr> {
    if fam != Some(Family::V6) {
        if let Some(a) = parse_v4(s) {
            return Some(Addr::V4(a));
        }
    }
    if fam != Some(Family::V4) && s.contains(':') {
        if let Ok(a) = s.parse::<Ipv6Addr>() {
            return Some(Addr::V6(u128::from(a)));
        }
    }
    None
}

/// iproute2's IPv4 parser (`get_addr_ipv4`): one to four dot-separated parts, each
/// read by `strtoul` in base 0 (`010` is octal 8, `0x0a` hex 10) and at most 255.
pub fn parse_v4(s: &str) -> Option<u32> {
    if s.contains(':') {
        return None;
    }
    crate::show::get_addr_ipv4(s)
}

/// Parse a prefix (`default`, `any`, `all`, `ADDR`, `ADDR/LEN`).
pub fn parse_prefix(s: &str, fam: Option<Family>) -> Option<Pfx> {
    if s == "default" || s == "any" || s == "all" {
        let addr = match fam {
            Some(Family::V6) => Addr::V6(0),
            _ => Addr::V4(0),
        };
        return Some(Pfx {
            addr,
            len: 0,
            explicit_len: true,
        });
    }
    let (a, l) = match s.split_once('/') {
        Some((a, l)) => (a, Some(l)),
        None => (s, None),
    };
    let addr = parse_addr(a, fam)?;
    let max = match addr {
        Addr::V4(_) => 32,
        Addr::V6(_) => 128,
    };
    let len = match l {
        Some(l) => {
            // get_prefix_1 reads the length with get_netmask: a number in any base
            // strtoul takes (`0x18`, `030`), or a dotted IPv4 netmask for either family
            let n = crate::show::get_netmask(l)?;
            if n > max {
                return None;
            }
            n as u8
        }
        None => max as u8,
    };
    Some(Pfx {
        addr,
        len,
        explicit_len: l.is_some(),
    })
}

/// The family word iproute2 uses in "... prefix is expected" messages.
pub fn family_word(fam: Option<Family>) -> &'static str {
    match fam {
        Some(Family::V4) => "inet",
        Some(Family::V6) => "inet6",
        None => "any valid",
    }
}

/// `rtnl_rttable_a2n`.
pub fn table_a2n(s: &str) -> Option<u32> {
    match s {
        "local" => Some(255),
        "main" => Some(254),
        "default" => Some(253),
        "unspec" => Some(0),
        _ => parse_u32(s),
    }
}

thread_local! {
    /// iproute2's global `numeric` (`-N`): the `*_n2a` functions print numbers.
    static NUMERIC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// iproute2's global `resolve_hosts` (`-r`): `format_host` prints host names.
    static RESOLVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// iproute2's global `preferred_family` when it is none of inet/inet6 (`-0`, `-M`,
    /// `-B`, `-f link|mpls|bridge`): 0 none, else [`AltFamily::code`].
    static ALT: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
    /// Whether dumps are strict (`rtnl_set_strict_dump`): iproute2 asks for strict
    /// checking for a single command, not in a batch.
    static STRICT: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
    /// Whether this `ip` process has read `rt_realms` (`rtnl_rtrealm_init`).
    static REALMS_READ: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The `ip stats show` commands this `ip` process ran (each raises iproute2's
    /// global `show_stats` for good).
    static STATS_SHOWS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Whether the command being run resolved an `ifN` form that names no device
    /// (`ll_name_to_index` asked the kernel for a device of that name first).
    static IFN_PROBED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Whether this `ip` process printed `print_neigh`'s warning that the kernel did
    /// not filter a dump by master device (a static of iproute2's: once per process).
    static MASTER_WARNED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// What iproute2 printed on stderr while it built the request of the command
    /// being run and then went on (a route metric past the bound of its buffer).
    static PARSE_STDERR: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// iproute2 printed `text` on stderr while building the request and went on.
pub(crate) fn note_parse_stderr(text: &str) {
    PARSE_STDERR.with(|s| s.borrow_mut().push_str(text));
}

/// What [`note_parse_stderr`] collected since the last call (which forgets it).
pub(crate) fn take_parse_stderr() -> String {
    PARSE_STDERR.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// Whether `print_neigh`'s master-filter warning is due now: true the first time in an
/// `ip` process.
pub(crate) fn master_warning_due() -> bool {
    !MASTER_WARNED.with(|n| n.replace(true))
}

/// `ll_link_get` failed with ENODEV for an `ifN` form (see [`ifn_probed`]).
pub(crate) fn note_ifn_probe() {
    IFN_PROBED.with(|n| n.set(true));
}

/// Whether the command resolved an `ifN` form through a failed name lookup since the
/// last call (which forgets it): the ENODEV of that lookup is the last errno a
/// failure with no kernel answer of its own saw.
pub(crate) fn ifn_probed() -> bool {
    IFN_PROBED.with(|n| n.replace(false))
}

/// One more `ip stats show` in this `ip` process: the number of them so far, this one
/// included.
pub(crate) fn count_stats_show() -> u32 {
    STATS_SHOWS.with(|n| {
        let v = n.get().saturating_add(1);
        n.set(v);
        v
    })
}

/// The `ip stats show` commands this `ip` process ran so far.
pub(crate) fn stats_shows() -> u32 {
    STATS_SHOWS.with(std::cell::Cell::get)
}

/// `rtnl_rtrealm_initialize` has run in this `ip` process: realm 0 is then named by
/// the file (`cosmos`) instead of the built-in `unknown`.
pub(crate) fn realms_read() -> bool {
    REALMS_READ.with(std::cell::Cell::get)
}

/// `rtnl_rtrealm_initialize`: the process reads `rt_realms` (a name asked for, or a
/// realm number with no built-in name printed).
pub(crate) fn read_realms() {
    REALMS_READ.with(|n| n.set(true));
}

/// A new `ip` process: what iproute2 read of its name files is forgotten (a single
/// command each time, a batch once at its start).
pub fn new_process() {
    MASTER_WARNED.with(|n| n.set(false));
    REALMS_READ.with(|n| n.set(false));
    STATS_SHOWS.with(|n| n.set(0));
}

/// A preferred family other than inet and inet6: iproute2 takes it, and the kernel
/// has no routes, rules or neighbours of it (this kernel has no MPLS module; bridge
/// neighbours are the bridge forwarding database, see `fibkit::fdb`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AltFamily {
    /// AF_PACKET: `-0`, `-f link`.
    Packet,
    /// AF_MPLS: `-M`, `-f mpls`.
    Mpls,
    /// AF_BRIDGE: `-B`, `-f bridge`.
    Bridge,
}

impl AltFamily {
    fn code(self) -> u8 {
        match self {
            AltFamily::Packet => 1,
            AltFamily::Mpls => 2,
            AltFamily::Bridge => 3,
        }
    }

    /// The family's `AF_*` number.
    pub fn af(self) -> u8 {
        match self {
            AltFamily::Packet => 17,
            AltFamily::Mpls => 28,
            AltFamily::Bridge => 7,
        }
    }

    /// iproute2's `family_name()`.
    pub fn name(self) -> &'static str {
        match self {
            AltFamily::Packet => "link",
            AltFamily::Mpls => "mpls",
            AltFamily::Bridge => "bridge",
        }
    }
}

/// Set the preferred family for the command parsed next on this thread
/// ([`crate::exec::run_ip`] sets it from each command's options): prefixes and
/// addresses are then read as iproute2's `get_prefix`/`get_addr` read them.
pub fn set_alt(alt: Option<AltFamily>) {
    ALT.with(|n| n.set(alt.map_or(0, AltFamily::code)));
}

/// The preferred family in force when it is not inet/inet6 (see [`set_alt`]).
pub fn alt() -> Option<AltFamily> {
    match ALT.with(std::cell::Cell::get) {
        1 => Some(AltFamily::Packet),
        2 => Some(AltFamily::Mpls),
        3 => Some(AltFamily::Bridge),
        _ => None,
    }
}

/// Whether `-0` is in force (see [`set_alt`]).
pub fn packet() -> bool {
    alt() == Some(AltFamily::Packet)
}

/// iproute2's `mpls_pton` of one label stack (`L1/L2/...`, each label read by
/// `strtoul(.., 0)` and below 2^20): the number of labels, `None` when it does not read.
pub fn mpls_labels(s: &str) -> Option<usize> {
    let mut n = 0;
    for part in s.split('/') {
        // (strtoul: blanks and a sign before the digits are read; the label must end
        // at the `/` or the end of the word)
        let (v, used, overflow) = crate::show::strtoul(part, 0);
        if used == 0 || used != part.len() || overflow || v >= 1 << 20 {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// Set `-N` for the commands and printing that follow on this thread (iproute2 keeps it
/// in a global for the whole command: [`crate::exec::run_ip`] sets it from each
/// command's options, and a front end printing an answer after it sees the same).
pub fn set_numeric(on: bool) {
    NUMERIC.with(|n| n.set(on));
}

/// Set `-r` (`-resolve`) for the commands and printing that follow on this thread, as
/// [`set_numeric`] does `-N`.
pub fn set_resolve(on: bool) {
    RESOLVE.with(|n| n.set(on));
}

/// Ask the kernel with strict dump checking (a single command, the default) or without
/// (`ip -batch`, whose socket iproute2 6.1 never makes strict): without it, the kernel
/// ignores a route dump's table, so a listing or flush of a table that does not exist
/// is empty rather than refused, a multicast route listing on a kernel without
/// multicast routing meets every family's routes, and a route query's header, flags
/// and attributes are not checked (what the lookup does not use is ignored).
pub fn set_strict(on: bool) {
    new_process();
    STRICT.with(|n| n.set(on));
}

/// Whether dumps are strict (see [`set_strict`]).
pub fn strict() -> bool {
    STRICT.with(std::cell::Cell::get)
}

/// Whether `-N` is in force (see [`set_numeric`]).
pub fn numeric() -> bool {
    NUMERIC.with(std::cell::Cell::get)
}

/// `rtnl_rtntype_n2a`: a route type's name, its number with `-N` (or when unknown).
pub fn rtntype_n2a(t: u8) -> String {
    if numeric() {
        return t.to_string();
    }
    match fibkit::route::RouteType::from_u8(t) {
        Some(rt) => rt.name().to_string(),
        None => t.to_string(),
    }
}

/// `rtnl_rtntype_a2n`: a route type's number from its name as iproute2 reads it (`local`,
/// `nat` and `throw` exactly, the others by any prefix, in its order: `b` is broadcast,
/// `u` unreachable, `x` xresolve) or from a number up to 255.
pub fn rtntype_a2n(s: &str) -> Option<u8> {
    let by_prefix: [(&str, u8); 8] = [
        ("broadcast", 3),
        ("anycast", 4),
        ("multicast", 5),
        ("prohibit", 8),
        ("unreachable", 7),
        ("blackhole", 6),
        ("xresolve", 11),
        ("unicast", 1),
    ];
    if s == "local" {
        return Some(2);
    }
    if s == "nat" {
        return Some(10);
    }
    if s == "brd" {
        return Some(3);
    }
    if let Some(&(_, t)) = by_prefix.iter().find(|(name, _)| matches(s, name)) {
        return Some(t);
    }
    if s == "throw" {
        return Some(9);
    }
    let (v, n, _) = crate::show::strtoul(s, 0);
    if n == 0 || n != s.len() {
        return None;
    }
    u8::try_from(v).ok()
}

/// `rtnl_rttable_n2a`.
pub fn table_n2a(t: u32) -> String {
    if numeric() {
        return t.to_string();
    }
    match t {
        255 => "local".into(),
        254 => "main".into(),
        253 => "default".into(),
        0 => "unspec".into(),
        n => n.to_string(),
    }
}

/// Routing protocol names (`/etc/iproute2/rt_protos` defaults of iproute2 6.1).
const PROTOS: &[(u8, &str)] = &[
    (0, "unspec"),
    (1, "redirect"),
    (2, "kernel"),
    (3, "boot"),
    (4, "static"),
    (8, "gated"),
    (9, "ra"),
    (10, "mrt"),
    (11, "zebra"),
    (12, "bird"),
    (13, "dnrouted"),
    (14, "xorp"),
    (15, "ntk"),
    (16, "dhcp"),
    (18, "keepalived"),
    (42, "babel"),
    (99, "openr"),
    (186, "bgp"),
    (187, "isis"),
    (188, "ospf"),
    (189, "rip"),
    (192, "eigrp"),
];

/// The protocol number of a name of `rt_protos`.
pub(crate) fn proto_by_name(s: &str) -> Option<u8> {
    PROTOS.iter().find(|(_, nm)| *nm == s).map(|(n, _)| *n)
}

/// `rtnl_rtprot_a2n`.
pub fn proto_a2n(s: &str) -> Option<u8> {
    if let Some(n) = proto_by_name(s) {
        return Some(n);
    }
    let v = parse_u32(s)?;
    u8::try_from(v).ok()
}

/// `rtnl_rtprot_n2a`.
pub fn proto_n2a(p: u8) -> String {
    if numeric() {
        return p.to_string();
    }
    PROTOS
        .iter()
        .find(|(n, _)| *n == p)
        .map_or_else(|| p.to_string(), |(_, s)| (*s).to_string())
}

/// The scope number of a name of `rt_scopes`.
pub(crate) fn scope_by_name(s: &str) -> Option<u8> {
    match s {
        "global" => Some(0),
        "nowhere" => Some(255),
        "host" => Some(254),
        "link" => Some(253),
        "site" => Some(200),
        _ => None,
    }
}

/// `rtnl_rtscope_a2n`: a name of `rt_scopes` (the kernel's `universe` is `global`
/// there, and no name of its own) or a number.
pub fn scope_a2n(s: &str) -> Option<u8> {
    scope_by_name(s).or_else(|| u8::try_from(parse_u32(s)?).ok())
}

/// `rtnl_rtscope_n2a`.
pub fn scope_n2a(s: u8) -> String {
    if numeric() {
        return s.to_string();
    }
    match s {
        0 => "global".into(),
        255 => "nowhere".into(),
        254 => "host".into(),
        253 => "link".into(),
        200 => "site".into(),
        n => n.to_string(),
    }
}

/// DS field names (`rt_dsfield`).
const DSFIELD: &[(u8, &str)] = &[
    (0x00, "default"),
    (0x20, "CS1"),
    (0x40, "CS2"),
    (0x60, "CS3"),
    (0x80, "CS4"),
    (0xa0, "CS5"),
    (0xc0, "CS6"),
    (0xe0, "CS7"),
    (0x28, "AF11"),
    (0x30, "AF12"),
    (0x38, "AF13"),
    (0x48, "AF21"),
    (0x50, "AF22"),
    (0x58, "AF23"),
    (0x68, "AF31"),
    (0x70, "AF32"),
    (0x78, "AF33"),
    (0x88, "AF41"),
    (0x90, "AF42"),
    (0x98, "AF43"),
    (0xb8, "EF"),
];

/// The DS field value of a name of `rt_dsfield`.
pub(crate) fn dsfield_by_name(s: &str) -> Option<u8> {
    DSFIELD.iter().find(|(_, nm)| *nm == s).map(|(n, _)| *n)
}

/// `rtnl_dsfield_a2n`.
pub fn dsfield_a2n(s: &str) -> Option<u8> {
    if let Some(n) = dsfield_by_name(s) {
        return Some(n);
    }
    let v = parse_u32_hexdefault(s)?;
    u8::try_from(v).ok()
}

/// `rtnl_dsfield_n2a`.
pub fn dsfield_n2a(v: u8) -> String {
    if numeric() {
        return format!("0x{v:02x}");
    }
    DSFIELD
        .iter()
        .find(|(n, _)| *n == v)
        .map_or_else(|| format!("0x{v:02x}"), |(_, s)| (*s).to_string())
}

/// `inet_proto_a2n`: a decimal number up to 255 (`get_u8` in base 10), else a name or
/// alias of the oracle machine's `/etc/protocols` (case-sensitive, as
/// `getprotobyname` compares), its number cut to 8 bits as iproute2 sends it.
pub fn ipproto_a2n(s: &str) -> Option<u8> {
    crate::show::inet_proto_a2n(s)
}

/// `inet_proto_n2a`.
pub fn ipproto_n2a(p: u8) -> String {
    crate::show::inet_proto_n2a(p)
}

/// `get_u32` with base 0 (decimal, `0x` hex, leading-0 octal). Like iproute2's
/// `get_u32`/`get_unsigned` and the `rtnl_*_a2n` readers, which all call `strtoul` and
/// check only that the whole word was read: leading blanks and a `+` are taken, and a
/// `-` negates in 64 bits (so `-0` is 0, any other negative number is too large).
pub fn parse_u32(s: &str) -> Option<u32> {
    crate::show::get_u32(s, 0)
}

/// iproute2's `get_u64`: `strtoull(s, 0)` with the whole word read (leading blanks, a
/// `+` or a `-` taken: a negative number wraps, so `-2` is 2^64-2). `strtoull` itself
/// refuses an overflow; a result of 2^64-1 is also refused when `errno` was already
/// ERANGE from an earlier reading of the same command line (see [`get_u64_errno`]).
pub fn parse_u64(s: &str) -> Option<u64> {
    get_u64_errno(s, false)
}

/// `get_u64` with the `errno` the process had before the call: it tells an overflow
/// from a result of `ULLONG_MAX` by `errno == ERANGE` without clearing `errno` first,
/// so with `erange` set (a stale ERANGE) it refuses `-1`, `0xffffffffffffffff` and
/// the like as well.
pub fn get_u64_errno(s: &str, erange: bool) -> Option<u64> {
    let (v, n, overflow) = crate::show::strtoul(s, 0);
    if s.is_empty() || n == 0 || n != s.len() || overflow {
        return None;
    }
    (!(erange && v == u64::MAX)).then_some(v)
}

/// `get_integer(s, 0)`: `strtol` with base detection into an `int` (a sign and leading
/// blanks allowed), returned as the two's-complement `u32` the kernel then reads.
pub fn parse_int(s: &str) -> Option<u32> {
    let (v, n) = crate::show::strtol(s, 0);
    if n == 0 || n != s.len() {
        return None;
    }
    i32::try_from(v).ok().map(|x| x as u32)
}

/// Base-16 by default (for `tos`, as `rtnl_dsfield_a2n` uses `strtoul(arg, 16)`, a
/// `0x` prefix, leading blanks and a sign included).
pub fn parse_u32_hexdefault(s: &str) -> Option<u32> {
    crate::show::get_u32(s, 16)
}

/// iproute2's `matches(arg, keyword)`: `arg` is a non-empty prefix of `keyword`.
pub fn matches(arg: &str, kw: &str) -> bool {
    !arg.is_empty() && kw.starts_with(arg)
}

/// The name an account database (`/etc/passwd` or `/etc/group`) gives id `id`
/// (`getpwuid`/`getgrgid` over the files).
pub fn id_name(db: &str, id: u32) -> Option<String> {
    let text = std::fs::read_to_string(db).ok()?;
    text.lines().find_map(|l| {
        let mut f = l.split(':');
        let name = f.next()?;
        let _pw = f.next()?;
        (f.next()?.parse::<u32>().ok()? == id).then(|| name.to_string())
    })
}

/// The id an account database (`/etc/passwd` or `/etc/group`) gives name `name`
/// (`getpwnam`/`getgrnam` over the files).
pub fn name_id(db: &str, name: &str) -> Option<u32> {
    let text = std::fs::read_to_string(db).ok()?;
    text.lines().find_map(|l| {
        let mut f = l.split(':');
        if f.next()? != name {
            return None;
        }
        let _pw = f.next()?;
        f.next()?.parse().ok()
    })
}

/// Format an IPv6 address as iproute2 prints it (glibc's `inet_ntop`, whose
/// embedded-IPv4 forms include the IPv4-compatible `::a.b.c.d`).
pub fn fmt6(a: u128) -> String {
    crate::show::ntop6(a)
}

/// Format an IPv4 address.
pub fn fmt4(a: u32) -> String {
    Ipv4Addr::from(a).to_string()
}

/// The name `gethostbyaddr` finds for an address in the hosts database
/// (`/etc/hosts`, glibc's `files` source): the canonical name, the first one after the
/// address, of the first line holding the address in the same family. iproute2's
/// `resolve_address` asks for an IPv4-mapped IPv6 address as the IPv4 address it
/// maps. The `dns` source is not modelled: the scenario's namespace reaches no name
/// server, so the lookup fails and the number is printed.
fn hosts_name(a: std::net::IpAddr) -> Option<String> {
    let a = match a {
        std::net::IpAddr::V6(v) => v
            .to_ipv4_mapped()
            .map_or(std::net::IpAddr::V6(v), std::net::IpAddr::V4),
        v4 => v4,
    };
    let text = std::fs::read_to_string("/etc/hosts").ok()?;
    text.lines().find_map(|l| {
        let l = l.split('#').next().unwrap_or_default();
        let mut f = l.split_whitespace();
        let addr = f.next()?;
        let name = f.next()?;
        let same = match a {
            std::net::IpAddr::V4(v) => addr.parse::<Ipv4Addr>().ok() == Some(v),
            std::net::IpAddr::V6(v) => addr.parse::<Ipv6Addr>().ok() == Some(v),
        };
        same.then(|| name.to_string())
    })
}

/// iproute2's `format_host` of an IPv4 address: with `-r` the host name the hosts
/// database gives it, else (or when it has none) the number.
pub fn host4(a: u32) -> String {
    if RESOLVE.with(std::cell::Cell::get) {
        if let Some(n) = hosts_name(std::net::IpAddr::V4(Ipv4Addr::from(a))) {
            return n;
        }
    }
    fmt4(a)
}

/// iproute2's `format_host` of an address of either family (see [`host4`]).
pub fn host_ip(a: std::net::IpAddr) -> String {
    match a {
        std::net::IpAddr::V4(v) => host4(u32::from(v)),
        std::net::IpAddr::V6(v) => host6(u128::from(v)),
    }
}

/// iproute2's `format_host` of an IPv6 address (see [`host4`]).
pub fn host6(a: u128) -> String {
    if RESOLVE.with(std::cell::Cell::get) {
        if let Some(n) = hosts_name(std::net::IpAddr::V6(Ipv6Addr::from(a))) {
            return n;
        }
    }
    fmt6(a)
}
