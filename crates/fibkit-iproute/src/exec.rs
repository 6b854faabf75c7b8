//! Executing `ip` command lines against a [`Netns`]: the parsers of iproute2's `ip route`,
//! `ip rule`, `ip addr`, `ip link`, `ip neigh` and `sysctl`, with iproute2's error texts.

use fibkit::addr::{ifa, Addr4, Addr6};
use fibkit::fib4::{NhCfg, Route4Cfg, RouteOp};
use fibkit::fib6::{Flow6, Route6Cfg};
use fibkit::link::LinkKind;
use fibkit::lookup::{Flow4, RouteAnswer4};
use fibkit::lookup6::RouteAnswer6;
use fibkit::netns::{LinkAdd, Neighbour, NudState};
use fibkit::prefix::{Family, Prefix4, Prefix6};
use fibkit::route::{nhflags, rtax, scope, table as tid, Gateway, Metrics, Pref, RouteType};
use fibkit::rule::{Range, RuleAction, RulePrefix, RuleSpec};
use fibkit::{Errno, Netns};

use crate::names::*;

mod encap;
mod genl;
mod kindopts;
mod linkmore;
mod mptcp;
mod nexthop;
mod ntable;
mod stats;
mod token;
mod tunnel;
mod tuntap;
mod xfrm;
pub(crate) use encap::encap_fields;
pub use encap::{encap_json_members, encap_text};
pub use nexthop::nexthop_lines;
pub(crate) use nexthop::{nh_json, nh_text};

/// Global options of one `ip` invocation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Opts {
    /// `-4` / `-6`.
    pub family: Option<Family>,
    /// `-j`.
    pub json: bool,
    /// `-d`.
    pub details: bool,
    /// `-o`.
    pub oneline: bool,
    /// `-p`.
    pub pretty: bool,
    /// `-br`.
    pub brief: bool,
    /// `-N`.
    pub numeric: bool,
    /// `-r`: addresses printed by `format_host` are looked up in the hosts database.
    pub resolve: bool,
    /// `-s` given this many times (only flushes print anything more).
    pub stats: u32,
    /// `-0` / `-M` / `-B` / `-f link|mpls|bridge`: the preferred family is none of
    /// inet/inet6 (`family` is then `None`).
    pub alt: Option<AltFamily>,
    /// `ip mrule`: the multicast routing rules of the family (see
    /// [`crate::show::ShowOpts::mc`]).
    pub mc: bool,
    /// `-echo`: a change prints the kernel's notification of it.
    pub echo: bool,
}

/// A failed command, as `ip` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What `ip` printed on stdout before it failed (a usage text some parsers print
    /// there).
    pub stdout: String,
    /// The kernel's errno, when the kernel refused the request (`None`: iproute2 itself
    /// refused it before talking to the kernel).
    pub errno: Option<Errno>,
    /// What `ip` prints on stderr.
    pub stderr: String,
    /// `ip`'s exit status.
    pub status: i32,
    /// Whether iproute2 ended this failure with `exit()` (a parser's `invarg`,
    /// `get_prefix`, `usage`; `ip neigh`'s refused change) rather than by returning
    /// an error: `ip -batch` then stops at once, `-force` or not, with this status and
    /// without its `Command failed FILE:LINE` line (`do_batch`). Recorded for every
    /// failing statement of the scenarios in `conformance/batch-exits.txt`.
    pub exits: bool,
}

impl Failure {
    /// The same failure, ended by `exit()` (`yes`) or returned (see [`Failure::exits`]).
    #[must_use]
    pub fn exiting(self, yes: bool) -> Failure {
        Failure { exits: yes, ..self }
    }

    fn kernel(e: fibkit::Error) -> Failure {
        Failure {
            stdout: String::new(),
            errno: Some(e.errno),
            stderr: format!("{}\n", e.iproute_text()),
            status: 2,
            exits: false,
        }
    }
    fn errno(e: Errno) -> Failure {
        Failure::kernel(fibkit::Error::new(e))
    }
    /// iproute2's own refusal, before it asks the kernel; status 255 is its `exit(-1)`
    /// (`invarg`, `duparg`, a `usage` text), any other a returned error until
    /// [`Failure::exiting`] says otherwise.
    fn parse(msg: impl Into<String>, status: i32) -> Failure {
        Failure {
            stdout: String::new(),
            errno: None,
            stderr: msg.into(),
            status,
            exits: status == 255,
        }
    }
    /// `ip` killed by SIGSEGV: it read past the end of its arguments (a NULL `*argv`
    /// handed to `strcmp`); nothing printed, the shell's status is the signal's.
    fn segv() -> Failure {
        Failure {
            stdout: String::new(),
            errno: None,
            stderr: String::new(),
            status: -11,
            exits: true,
        }
    }
}

/// The answer of one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Success, with what `ip` prints on stdout.
    Ok(String),
    /// An `ip route get` answer.
    Get(Box<GetAnswer>),
}

/// The answer of `ip route get`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GetAnswer {
    /// IPv4.
    V4(RouteAnswer4, bool),
    /// IPv6.
    V6(RouteAnswer6, bool),
}

type Res<T> = Result<T, Failure>;

fn invarg(msg: &str, arg: &str) -> Failure {
    Failure::parse(format!("Error: argument \"{arg}\" is wrong: {msg}\n"), 255)
}

/// `rtm_getroute_parse_ip_proto`'s refusal (TCP, UDP and the family's ICMP only).
fn unsupported_ip_proto() -> Failure {
    Failure::kernel(fibkit::Error::msg(
        Errno::EOPNOTSUPP,
        "Unsupported ip proto",
    ))
}

/// iproute2's `missarg`: a word the command needs was not given.
fn missarg(key: &str) -> Failure {
    Failure::parse(format!("Error: argument \"{key}\" is required\n"), 255)
}

fn incomplete() -> Failure {
    Failure::parse("Command line is not complete. Try option \"help\"\n", 255)
}

fn nodev(d: &str) -> Failure {
    // iproute2 resolves the name with RTM_GETLINK, which the kernel refuses
    Failure {
        stdout: String::new(),
        errno: Some(crate::show::lookup_errno(d)),
        stderr: format!("Cannot find device \"{d}\"\n"),
        status: 1,
        exits: false,
    }
}

/// `exit(nodev(d))`: the message, then `exit(-1)` (status 255), where a parser cannot
/// return (a multipath leg's, an encapsulation's, a vxlan's device).
fn nodev_exit(d: &str) -> Failure {
    Failure {
        status: 255,
        exits: true,
        ..nodev(d)
    }
}

fn bad_prefix(s: &str, fam: Option<Family>) -> Failure {
    Failure::parse(
        format!(
            "Error: {} prefix is expected rather than \"{s}\".\n",
            family_word(fam)
        ),
        1,
    )
    .exiting(true)
}

/// `get_prefix()`: a prefix of the family (or any, while it is open); with `-0` (the
/// AF_PACKET family) iproute2 takes none.
fn prefix_arg(v: &str, fam: Option<Family>) -> Res<Pfx> {
    match crate::names::alt() {
        Some(AltFamily::Packet) => Err(Failure::parse(
            format!("Error: \"{v}\" may be inet prefix, but it is not allowed in this context.\n"),
            1,
        )
        .exiting(true)),
        Some(alt) => {
            // MPLS: one label, get_prefix_1 taking what follows the first `/` for a
            // length of at most af_bit_len's 20 bits; bridge: `default`/`any`/`all` only
            let ok = match alt {
                AltFamily::Mpls => match v.split_once('/') {
                    Some((l, n)) => {
                        mpls_labels(l) == Some(1)
                            && crate::show::get_netmask(n).is_some_and(|n| n <= 20)
                    }
                    None => mpls_labels(v) == Some(1),
                },
                _ => matches!(v, "default" | "any" | "all"),
            };
            if ok {
                // a prefix of no inet family: no route of it exists; a change or a
                // `get` is refused after the line is read (see `alt_refused`)
                parse_prefix("default", None).ok_or_else(|| bad_prefix(v, fam))
            } else {
                Err(Failure::parse(
                    format!(
                        "Error: {} prefix is expected rather than \"{v}\".\n",
                        alt.name()
                    ),
                    1,
                )
                .exiting(true))
            }
        }
        None => parse_prefix(v, fam).ok_or_else(|| bad_prefix(v, fam)),
    }
}

/// A route or address change, or a route `get`, of the MPLS or bridge family: this
/// kernel has no handler for either (no MPLS module; the bridge family has none), so
/// rtnetlink answers EOPNOTSUPP.
fn alt_refused(opts: &Opts) -> Res<()> {
    // (the options' family, or the one a first `via mpls|bridge ...` gave the request)
    match opts.alt.or(crate::names::alt()) {
        Some(AltFamily::Mpls | AltFamily::Bridge) => {
            Err(Failure::kernel(fibkit::Error::new(Errno::EOPNOTSUPP)))
        }
        _ => Ok(()),
    }
}

fn bad_addr(s: &str, fam: Option<Family>) -> Failure {
    Failure::parse(
        format!(
            "Error: {} address is expected rather than \"{s}\".\n",
            family_word(fam)
        ),
        1,
    )
    .exiting(true)
}

/// `get_addr(.., family)` of a `via` in the family `word` (`link`, `mpls` or `bridge`;
/// `__get_addr_1`): `default`, `any` and `all` are an address of no length but for
/// MPLS; a link-layer address goes through `ll_addr_a2n`, an MPLS one through
/// `mpls_pton`; anything else is refused as it is for a bridge.
pub(super) fn via_other_family(word: &str, v: &str) -> Res<()> {
    // ll_addr_a2n cuts the word in place at its first colon before reading it
    let shown = if word == "link" && !v.contains('.') {
        v.split(':').next().unwrap_or(v)
    } else {
        v
    };
    let refused = |pre: String| {
        Failure::parse(
            format!("{pre}Error: {word} address is expected rather than \"{shown}\".\n"),
            1,
        )
        .exiting(true)
    };
    if matches!(v, "default" | "any" | "all") {
        return if word == "mpls" {
            Err(refused(String::new()))
        } else {
            Ok(())
        };
    }
    match word {
        "link" => ll_addr_a2n(v, 256)
            .map(|_| ())
            .map_err(|f| refused(f.stderr)),
        "mpls" if !v.contains(':') && mpls_labels(v).is_some() => Ok(()),
        _ => Err(refused(String::new())),
    }
}

/// Argument cursor.
struct Args<'a> {
    v: &'a [String],
    i: usize,
}

impl<'a> Args<'a> {
    fn new(v: &'a [String]) -> Self {
        Args { v, i: 0 }
    }
    fn peek(&self) -> Option<&'a str> {
        self.v.get(self.i).map(String::as_str)
    }
    fn next(&mut self) -> Option<&'a str> {
        let r = self.peek();
        if r.is_some() {
            self.i += 1;
        }
        r
    }
    /// The value after a keyword (iproute2's NEXT_ARG).
    fn val(&mut self) -> Res<&'a str> {
        self.next().ok_or_else(incomplete)
    }
}

fn ifindex(ns: &Netns, name: &str) -> Res<u32> {
    ll_index(ns, name).ok_or_else(|| nodev(name))
}

fn get_u32(s: &str, msg: &str) -> Res<u32> {
    parse_u32(s).ok_or_else(|| invarg(msg, s))
}

/// The global options at the start of an `ip` command line, read as [`run_ip`] reads
/// them (ip's main: `--opt` is `-opt`, most by any prefix in ip's order, `-loops`,
/// `-family`, `-batch`, `-rcvbuf` and `-netns` with a value): how many words they
/// take and the full names of those given (`-j` and `--js` are `-json`). For the front
/// end, which prints a query's answer after the command.
pub fn global_options(argv: &[String]) -> (usize, Vec<&'static str>) {
    const NAMES: [&str; 27] = [
        "-loops",
        "-family",
        "-4",
        "-6",
        "-0",
        "-M",
        "-B",
        "-human",
        "-human-readable",
        "-iec",
        "-stats",
        "-statistics",
        "-details",
        "-resolve",
        "-oneline",
        "-timestamp",
        "-tshort",
        "-Version",
        "-force",
        "-batch",
        "-rcvbuf",
        "-brief",
        "-json",
        "-pretty",
        "-netns",
        "-Numeric",
        "-echo",
    ];
    let mut given = Vec::new();
    let mut i = 0;
    while i < argv.len() && argv[i].starts_with('-') && argv[i].len() > 1 {
        let w = argv[i].as_str();
        if w == "--" {
            i += 1;
            break;
        }
        let o = w
            .strip_prefix('-')
            .filter(|x| x.starts_with('-'))
            .unwrap_or(w);
        let exact = ["-4", "-6", "-0", "-M", "-B", "-echo"];
        let name = NAMES.iter().copied().find(|kw| {
            if exact.contains(kw) {
                o == *kw
            } else {
                o.len() > 1 && kw.starts_with(o)
            }
        });
        if let Some(n) = name {
            given.push(n);
            if matches!(n, "-loops" | "-family" | "-batch" | "-rcvbuf" | "-netns") {
                i += 1;
            }
        }
        i += 1;
    }
    (i.min(argv.len()), given)
}

/// Execute one `ip` command (arguments after `ip`), returning what it printed.
pub fn run_ip(ns: &mut Netns, argv: &[String]) -> Res<Outcome> {
    // the warnings iproute2 printed while reading the line come before a failure's
    // own text (a success leaves them to the caller: `parse_warnings`)
    crate::names::ifn_probed();
    crate::names::take_parse_stderr();
    run_ip_line(ns, argv).map_err(|mut f| {
        if crate::names::ifn_probed() && f.errno.is_none() {
            f.errno = Some(Errno::ENODEV);
        }
        let w = crate::names::take_parse_stderr() + &parse_warnings_in(&|d| ll_index(ns, d), argv);
        if !w.is_empty() {
            f.stderr = w + &f.stderr;
        }
        f
    })
}

/// The global options of an `ip` command line as ip's main reads them, before it
/// opens a batch or runs the object: `Ok(None)` when they pass, `Ok(Some(text))` when
/// `-V` ends `ip` there (status 0), or the failure that ends it (an unknown option, a
/// missing or refused value, `-help`). For the front end, which reads a batch after
/// them.
pub fn check_global_options(argv: &[String]) -> Res<Option<String>> {
    match read_options(argv)? {
        Opening::Version(v) => Ok(Some(v)),
        Opening::Options(..) => Ok(None),
    }
}

/// What reading the global options gave.
enum Opening {
    /// The options, and the index of the object's word.
    Options(Opts, usize),
    /// `-V`: the version text ip prints before it exits.
    Version(String),
}

fn run_ip_line(ns: &mut Netns, argv: &[String]) -> Res<Outcome> {
    // each command takes its own (short) time, as in the kernel
    ns.tick();
    let (opts, i) = match read_options(argv)? {
        Opening::Options(o, i) => (o, i),
        Opening::Version(v) => return Ok(Outcome::Ok(v)),
    };
    // iproute2's global: every name printed for this command (and by a front end
    // printing its answer) follows it
    crate::names::set_numeric(opts.numeric);
    crate::names::set_resolve(opts.resolve);
    crate::names::set_alt(opts.alt);
    if crate::names::strict() {
        // a single command is a process of its own (a batch's lines share one)
        crate::names::new_process();
    }
    let Some(obj) = argv.get(i) else {
        return Err(Failure::parse(IP_USAGE, 255));
    };
    run_object(ns, &opts, obj, &argv[i + 1..])
}

fn read_options(argv: &[String]) -> Res<Opening> {
    let mut opts = Opts::default();
    let mut color: Option<(&str, &str)> = None;
    let mut i = 0;
    while i < argv.len() && argv[i].starts_with('-') && argv[i].len() > 1 {
        let given = argv[i].as_str();
        // ip.c: a word `--` ends the options (the next word is the object)
        if given == "--" {
            i += 1;
            break;
        }
        // ip.c: `--opt` is `-opt`; most options by any prefix, tried in ip's order
        let o = given
            .strip_prefix('-')
            .filter(|x| x.starts_with('-'))
            .unwrap_or(given);
        let m = |kw: &str| o.len() > 1 && kw.starts_with(o);
        // an option that takes a value and is the last word: ip's usage()
        let value_missing = |i: usize| i + 1 >= argv.len();
        if m("-loops") {
            if value_missing(i) {
                return Err(Failure::parse(IP_USAGE, 255));
            }
            i += 1;
        } else if m("-family") {
            if value_missing(i) {
                return Err(Failure::parse(IP_USAGE, 255));
            }
            i += 1;
            match argv.get(i).map(String::as_str) {
                // `-f help` is ip's usage(), before the family is read
                Some("help") => return Err(Failure::parse(IP_USAGE, 255)),
                Some("inet") => (opts.family, opts.alt) = (Some(Family::V4), None),
                Some("inet6") => (opts.family, opts.alt) = (Some(Family::V6), None),
                Some("link") => (opts.family, opts.alt) = (None, Some(AltFamily::Packet)),
                Some("mpls") => (opts.family, opts.alt) = (None, Some(AltFamily::Mpls)),
                Some("bridge") => (opts.family, opts.alt) = (None, Some(AltFamily::Bridge)),
                Some(x) => {
                    return Err(Failure::parse(
                        format!("Error: argument \"{x}\" is wrong: invalid protocol family\n"),
                        255,
                    ))
                }
                None => return Err(incomplete()),
            }
        } else if o == "-4" {
            (opts.family, opts.alt) = (Some(Family::V4), None);
        } else if o == "-6" {
            (opts.family, opts.alt) = (Some(Family::V6), None);
        } else if o == "-0" {
            (opts.family, opts.alt) = (None, Some(AltFamily::Packet));
        } else if o == "-M" {
            (opts.family, opts.alt) = (None, Some(AltFamily::Mpls));
        } else if o == "-B" {
            (opts.family, opts.alt) = (None, Some(AltFamily::Bridge));
        } else if m("-human") || m("-human-readable") || m("-iec") {
        } else if m("-stats") || m("-statistics") {
            opts.stats += 1;
        } else if m("-details") {
            opts.details = true;
        } else if m("-resolve") {
            opts.resolve = true;
        } else if m("-oneline") {
            opts.oneline = true;
        } else if m("-timestamp") || m("-tshort") {
        } else if m("-Version") {
            return Ok(Opening::Version(
                "ip utility, iproute2-6.1.0, libbpf 1.1.2\n".to_string(),
            ));
        } else if m("-force") {
            // handled by the front end (fib -force)
        } else if m("-batch") {
            // handled by the front end (fib -batch FILE); the file name is its value
            if value_missing(i) {
                return Err(Failure::parse(IP_USAGE, 255));
            }
            i += 1;
        } else if m("-brief") {
            opts.brief = true;
        } else if m("-json") {
            opts.json = true;
        } else if m("-pretty") {
            opts.pretty = true;
        } else if m("-rcvbuf") {
            // the socket's receive buffer: no effect on a model, but ip reads the size
            // (`get_unsigned`) and refuses what is not one
            if value_missing(i) {
                return Err(Failure::parse(IP_USAGE, 255));
            }
            i += 1;
            if parse_u32(&argv[i]).is_none() {
                return Err(Failure::parse(
                    format!("Invalid rcvbuf size '{}'\n", argv[i]),
                    255,
                ));
            }
        } else if let Some(c) = color_option(o) {
            color = Some((c, given));
        } else if m("-help") {
            return Err(Failure::parse(IP_USAGE, 255));
        } else if m("-netns") {
            // one modelled namespace: no other can be opened (ip hands a missing name
            // on as a null pointer, which its message prints as `(null)`)
            let n = argv.get(i + 1).map_or("(null)", String::as_str);
            return Err(Failure::parse(
                format!("Cannot open network namespace \"{n}\": No such file or directory\n"),
                255,
            ));
        } else if m("-Numeric") {
            opts.numeric = true;
        } else if o == "-echo" {
            // the one option ip compares whole (`-e` is unknown)
            opts.echo = true;
        } else if m("-all") {
        } else {
            return Err(Failure::parse(
                format!("Option \"{given}\" is unknown, try \"ip -help\".\n"),
                255,
            ));
        }
        i += 1;
    }
    // check_enable_color: JSON has none, `never` none, `auto` only on a terminal. fib
    // prints what ip prints when its output is not a terminal, and refuses colours
    if let Some((c, given)) = color.filter(|_| !opts.json) {
        let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
        if c == "always" || (c == "auto" && tty) {
            return Err(Failure::parse(
                format!("Option \"{given}\": fib prints no colours (ip's output to a pipe or file has none)\n"),
                255,
            ));
        }
    }
    Ok(Opening::Options(opts, i))
}

/// The object's command (`obj`: its word, `rest`: the words after it).
fn run_object(ns: &mut Netns, opts: &Opts, obj: &str, rest: &[String]) -> Res<Outcome> {
    let opts = *opts;
    let o = obj;
    if matches(o, "route") || o == "r" || o == "ro" {
        return route_cmd(ns, &opts, rest);
    }
    if matches(o, "rule") || o == "ru" {
        return rule_cmd(ns, &opts, rest);
    }
    if matches(o, "address") || o == "a" {
        return addr_cmd(ns, &opts, rest);
    }
    if matches(o, "link") || o == "l" {
        return link_cmd(ns, &opts, rest);
    }
    if matches(o, "neighbour") || matches(o, "neighbor") || o == "n" {
        return neigh_cmd(ns, &opts, rest);
    }
    if matches(o, "nexthop") {
        return nexthop::nexthop_cmd(ns, &opts, rest);
    }
    // ip.c's table order: `n` is `neighbor`, `nt` on `ntable`, `ntb` `ntbl`
    if o.len() >= 2 && (matches(o, "ntable") || matches(o, "ntbl")) {
        return ntable::ntable_cmd(ns, &opts, rest);
    }
    // ip.c's table order: `l` is `link`, `m` and `ma` `maddress` (below), `t`, `tu`
    // and `tun` `tunnel`, `tc` and `tcp` `tcpmetrics`, `s` `sr`
    if o.len() >= 2 && matches(o, "l2tp") {
        return genl::missing_family(genl::Missing::L2tp, rest);
    }
    if matches(o, "fou") {
        return genl::missing_family(genl::Missing::Fou, rest);
    }
    if matches(o, "ila") {
        return genl::missing_family(genl::Missing::Ila, rest);
    }
    if o.len() >= 3 && matches(o, "macsec") {
        return genl::missing_family(genl::Missing::Macsec, rest);
    }
    if matches(o, "tunnel") || matches(o, "tunl") {
        return tunnel::tunnel_cmd(ns, &opts, rest);
    }
    // `tap` is `tuntap` too
    if (o.len() >= 4 && matches(o, "tuntap")) || (o.len() >= 2 && matches(o, "tap")) {
        return tuntap::tuntap_cmd(ns, &opts, rest);
    }
    if matches(o, "token") {
        return token::token_cmd(ns, &opts, rest);
    }
    if (o.len() >= 2 && matches(o, "tcpmetrics")) || matches(o, "tcp_metrics") {
        return genl::tcp_metrics_cmd(&opts, rest);
    }
    if matches(o, "sr") {
        return genl::sr_cmd(ns, &opts, rest);
    }
    if o.len() >= 5 && matches(o, "addrlabel") {
        return addrlabel_cmd(ns, &opts, rest);
    }
    // ip.c's table order: `m` and `ma` are `maddress`, `mr` `mroute`
    if matches(o, "maddress") {
        return maddr_cmd(ns, &opts, rest);
    }
    if o.len() >= 2 && matches(o, "mroute") {
        return mroute_cmd(ns, &opts, rest);
    }
    if o.len() >= 3 && matches(o, "mrule") {
        return mrule_cmd(ns, &opts, rest);
    }
    // `net` is `netns`, which comes first in ip.c's table
    if o.len() >= 4 && matches(o, "netconf") {
        return netconf_cmd(ns, &opts, rest);
    }
    if matches(o, "vrf") {
        return vrf_cmd(ns, &opts, rest);
    }
    // `ip monitor` waits for the kernel's notifications; a model sends none (`fib
    // mirror --follow` follows a live host's)
    if o.len() >= 2 && matches(o, "monitor") {
        return Err(Failure::parse(
            "ip monitor: fib has no event stream to follow (`fib mirror --follow` follows a live host's)\n",
            255,
        ));
    }
    // ip.c's table order: `xfrm` follows `monitor`; no earlier object starts with `x`
    if matches(o, "xfrm") {
        return xfrm::xfrm_cmd(ns, &opts, rest);
    }
    // ip.c's table order: `m` is `maddress` (above), `mp` on `mptcp`
    if o.len() >= 2 && matches(o, "mptcp") {
        return mptcp::mptcp_cmd(ns, &opts, rest);
    }
    // ip.c's table order: `i` is `ila` (above), `io` on `ioam`
    if o.len() >= 2 && matches(o, "ioam") {
        return genl::ioam_cmd(ns, &opts, rest);
    }
    // ip.c's table order: `s` is `sr` (above), `st` on `stats`
    if o.len() >= 2 && matches(o, "stats") {
        return stats::stats_cmd(ns, &opts, rest);
    }
    // ip.c's table order: no earlier object starts with `h`
    if matches(o, "help") {
        return Err(Failure::parse(IP_USAGE, 255));
    }
    Err(Failure::parse(
        format!("Object \"{o}\" is unknown, try \"ip help\".\n"),
        1,
    ))
}

/// `ip help`, and `ip` without an object: iproute2 6.1's `usage()` (exit status 255).
const IP_USAGE: &str = "Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }
       ip [ -force ] -batch filename
where  OBJECT := { address | addrlabel | amt | fou | help | ila | ioam | l2tp |
                   link | macsec | maddress | monitor | mptcp | mroute | mrule |
                   neighbor | neighbour | netconf | netns | nexthop | ntable |
                   ntbl | route | rule | sr | tap | tcpmetrics |
                   token | tunnel | tuntap | vrf | xfrm }
       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] | -r[esolve] |
                    -h[uman-readable] | -iec | -j[son] | -p[retty] |
                    -f[amily] { inet | inet6 | mpls | bridge | link } |
                    -4 | -6 | -M | -B | -0 |
                    -l[oops] { maximum-addr-flush-attempts } | -br[ief] |
                    -o[neline] | -t[imestamp] | -ts[hort] | -b[atch] [filename] |
                    -rc[vbuf] [size] | -n[etns] name | -N[umeric] | -a[ll] |
                    -c[olor]}
";

fn show_opts(opts: &Opts) -> crate::show::ShowOpts {
    crate::show::ShowOpts {
        json: opts.json,
        details: opts.details,
        family: opts.family,
        oneline: opts.oneline,
        pretty: opts.pretty,
        brief: opts.brief,
        alt: opts.alt,
        mc: opts.mc,
        stats: opts.stats,
    }
}

fn show_err(e: crate::show::ShowError) -> Failure {
    Failure {
        stdout: e.stdout,
        errno: e.errno,
        stderr: e.text,
        status: e.status,
        exits: e.exits,
    }
}

// ------------------------------------------------------------------ route

fn route_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return show(ns, opts, &[], crate::show::route_show);
    };
    let rest = &a[1..];
    let op = if matches(cmd, "add") {
        Some(RouteOp::Add)
    } else if matches(cmd, "change") || cmd == "chg" {
        Some(RouteOp::Change)
    } else if matches(cmd, "replace") {
        Some(RouteOp::Replace)
    } else if matches(cmd, "prepend") {
        Some(RouteOp::Prepend)
    } else if matches(cmd, "append") {
        Some(RouteOp::Append)
    } else if matches(cmd, "test") {
        Some(RouteOp::Test)
    } else if matches(cmd, "delete") {
        Some(RouteOp::Delete)
    } else {
        None
    };
    if let Some(op) = op {
        return route_modify(ns, opts, op, rest).map(Outcome::Ok);
    }
    if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        return show(ns, opts, rest, crate::show::route_show);
    }
    if matches(cmd, "get") {
        return route_get(ns, opts, rest).map(|g| Outcome::Get(Box::new(g)));
    }
    if matches(cmd, "flush") {
        return route_flush(ns, opts, rest);
    }
    // `save` (before `restore` and `showdump` in do_iproute's order) writes a binary
    // dump that scenarios cannot hold: left unknown
    if !matches(cmd, "save") && (matches(cmd, "restore") || matches(cmd, "showdump")) {
        // (do_cmd negates the -1 they return: status 1)
        return Err(dump_magic_mismatch(1));
    }
    if matches(cmd, "help") {
        return Err(Failure::parse(crate::show::USAGE_ROUTE, 255));
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip route help\".\n"),
        255,
    ))
}

/// `ip route restore|showdump`, `ip addr showdump|restore` and `ip rule restore` first
/// read the dump's magic number from standard input (`route_dump_check_magic`,
/// `ipadd_dump_check_magic`, `rule_dump_check_magic`): a scenario line has none (not a terminal, nothing to
/// read), so `fread` reads no element and the magic stays 0. The route commands return
/// -1 (`status` 1), the address and rule commands `exit(-1)` (255).
fn dump_magic_mismatch(status: i32) -> Failure {
    Failure::parse("Magic mismatch (0 elems, 0 magic)\n", status)
}

fn show(
    ns: &Netns,
    opts: &Opts,
    args: &[String],
    f: fn(&Netns, &crate::show::ShowOpts, &[String]) -> Result<String, crate::show::ShowError>,
) -> Res<Outcome> {
    f(ns, &show_opts(opts), args)
        .map(Outcome::Ok)
        .map_err(show_err)
}

fn route_flush(ns: &mut Netns, opts: &Opts, args: &[String]) -> Res<Outcome> {
    if args.is_empty() {
        return Err(Failure::parse(
            "\"ip route flush\" requires arguments.\n",
            1,
        ));
    }
    let (cloned, family) =
        crate::show::route_flush_filter(ns, &show_opts(opts), args).map_err(show_err)?;
    let mut out = String::new();
    if cloned {
        // iproute_flush_cache writes net.ipv4.route.flush unless the family is IPv6;
        // IPv4 stops there, else the cached clones are dumped and deleted (none: fibkit
        // models no exceptions)
        if family != Some(Family::V6) {
            ns.rt_cache_flush4();
            if opts.stats > 0 {
                out.push_str("*** IPv4 routing cache is flushed.\n");
            }
        }
        if family == Some(Family::V4) {
            return Ok(Outcome::Ok(out));
        }
    }
    // iproute_flush dumps and sends each route back as a delete, round after round,
    // until a dump finds nothing: a route the dump hid (an IPv6 entry between the legs
    // of a multipath route, see `fib6_dump_messages`) goes in a later round. A round
    // that deleted nothing ends it here (the kernel would go on dumping them for 30
    // seconds); a round that deleted some routes goes on, even to dump the same or as
    // many routes again (its deletes took routes the dump hid: an IPv6 delete without
    // a nexthop id takes the first route through an object; conformance scenario 479)
    // With `-s` each round is counted on stdout, and with `-s -s` each route it takes
    // printed first.
    let mut stalled = false;
    let mut round = 0;
    let routes = |ns: &Netns| -> usize {
        ns.tables4().map(|t| t.len()).sum::<usize>()
            + ns.tables6()
                .map(|t| t.lists().map(Vec::len).sum::<usize>())
                .sum::<usize>()
    };
    loop {
        let d = crate::show::route_flush_dump(ns, &show_opts(opts), args, opts.stats > 1)
            .map_err(show_err)
            .map_err(|f| Failure {
                stdout: format!("{out}{}", f.stdout),
                ..f
            })?;
        if d.routes.is_empty() || stalled {
            if opts.stats > 0 {
                out.push_str(&if round == 0 && (!cloned || family == Some(Family::V6)) {
                    "Nothing to flush.\n".to_string()
                } else {
                    let s = if round > 1 { "s" } else { "" };
                    format!("*** Flush is complete after {round} round{s} ***\n")
                });
            }
            return Ok(Outcome::Ok(out));
        }
        round += 1;
        let messages = d.routes.len();
        let before = routes(ns);
        // the socket has read nothing yet in the first round (see `flush_round`); a
        // batch's socket has (a one-line batch of `ip` too: its refusal behind a dump
        // of one part is seen after the dump)
        let first_read = round == 1 && crate::names::strict();
        flush_round(ns, d, first_read, &mut out).map_err(|f| Failure {
            stdout: out.clone(),
            ..f
        })?;
        stalled = routes(ns) == before;
        if opts.stats > 0 {
            out.push_str(&format!(
                "\n*** Round {round}, deleting {messages} entries ***\n"
            ));
        }
    }
}

/// One round of `route_flush`: the deletes of the routes one dump selected, sent as
/// iproute2 sends them while it reads the dump (`-s -s` prints each route taken into
/// `out`).
///
/// iproute2 copies each route it takes into a buffer of 3584 bytes and sends the
/// buffer as one batch of deletes whenever the next route would not fit, and once more
/// after the dump. The kernel answers only the deletes it refuses (no ACK asked), and
/// iproute2 looks for a refusal by peeking at the first message its socket holds just
/// after a batch (`rtnl_send_check`): the refusal is seen only when nothing of the
/// dump is queued before it. A refusal seen while the dump is read stops the flush
/// there ("Flush terminated": the routes not yet sent stay); one seen after the dump
/// ends it after all were sent; one left behind a part of the dump is read by the dump
/// loop as a message of another request and dropped, unseen.
///
/// The kernel queues a part of the dump when the dump starts and at every read of the
/// socket while the dump runs (iproute2 reads each part twice: a peek for its length,
/// then the read), the end of the dump (NLMSG_DONE) as a part of its own. A part holds
/// as many messages as fit in its buffer (a dump of both families goes on from its
/// IPv4 routes to its IPv6 ones in the same part): `NLMSG_GOODSIZE` (3776 bytes with
/// 4 KiB pages) until the socket has been read with a large buffer (iproute2 reads
/// with 32 KiB, so from the third part of the first round on), then 32 KiB less the
/// buffer's overhead.
fn flush_round(
    ns: &mut Netns,
    d: crate::show::FlushDump,
    first_read: bool,
    out: &mut String,
) -> Res<()> {
    use std::collections::VecDeque;
    const FLUSH_BUF: usize = 3584;
    const GOOD_SIZE: usize = 3776;
    const BIG_SIZE: usize = 32768 - 320;
    enum Item {
        /// A part of the dump: a range of `d.dumped`.
        Part(usize, usize),
        Done,
        Refusal(Errno),
    }
    let dumped = d.dumped;
    let mut printed = d.printed.into_iter();
    let mut routes = d.routes.into_iter();
    let mut queue: VecDeque<Item> = VecDeque::new();
    let mut next = 0usize;
    let mut running = true;
    let mut big = !first_read;
    let mut make_part = |queue: &mut VecDeque<Item>, running: &mut bool, big: bool| {
        if !*running {
            return;
        }
        if next >= dumped.len() {
            queue.push_back(Item::Done);
            *running = false;
            return;
        }
        let cap = if big { BIG_SIZE } else { GOOD_SIZE };
        let start = next;
        let mut used = 0;
        while next < dumped.len() {
            // a dump of both families fills its parts across them
            let m = dumped[next];
            if next > start && used + m.len > cap {
                break;
            }
            used += m.len;
            next += 1;
        }
        queue.push_back(Item::Part(start, next));
    };
    let refusal = |e: Errno, mid_dump: bool| Failure {
        stdout: String::new(),
        errno: Some(e),
        stderr: format!(
            "Failed to send flush request: {}\n{}",
            e.strerror(),
            if mid_dump { "Flush terminated\n" } else { "" }
        ),
        // iproute_flush's negative return
        status: 2,
        exits: false,
    };
    // the deletes of one batch; then the peek: a refusal at the head of the queue is
    // seen (a peek that finds something is a read, which lets the dump go on)
    let send = |ns: &mut Netns,
                batch: &mut Vec<Vec<crate::show::Selected>>,
                queue: &mut VecDeque<Item>|
     -> Option<Errno> {
        for legs in batch.drain(..) {
            let head_proto = match legs.first() {
                Some(crate::show::Selected::V6(r)) => r.proto,
                _ => 0,
            };
            let mut last_err = None;
            for r in legs {
                if let Err(e) = flush_delete(ns, r, head_proto) {
                    last_err = Some(e.errno);
                }
            }
            if let Some(e) = last_err {
                queue.push_back(Item::Refusal(e));
            }
        }
        match queue.front() {
            Some(Item::Refusal(e)) => Some(*e),
            _ => None,
        }
    };
    let mut batch: Vec<Vec<crate::show::Selected>> = Vec::new();
    let mut used = 0usize;
    make_part(&mut queue, &mut running, big);
    loop {
        // rtnl_recvmsg: the peek, then the read, each letting the dump go on
        make_part(&mut queue, &mut running, big);
        let item = queue.pop_front();
        big = true;
        make_part(&mut queue, &mut running, big);
        match item {
            None | Some(Item::Done) => break,
            Some(Item::Refusal(_)) => {}
            Some(Item::Part(a, b)) => {
                for m in &dumped[a..b] {
                    if !m.taken {
                        continue;
                    }
                    if used + m.len > FLUSH_BUF {
                        let seen = send(ns, &mut batch, &mut queue);
                        if !queue.is_empty() {
                            make_part(&mut queue, &mut running, big);
                        }
                        if let Some(e) = seen {
                            return Err(refusal(e, true));
                        }
                        used = 0;
                    }
                    used += m.len;
                    batch.extend(routes.next());
                    if let Some(t) = printed.next() {
                        out.push_str(&t);
                    }
                }
            }
        }
    }
    if let Some(e) = send(ns, &mut batch, &mut queue) {
        return Err(refusal(e, false));
    }
    Ok(())
}

/// The delete of one dumped route entry (`proto6`: the IPv6 message's protocol).
fn flush_delete(ns: &mut Netns, r: crate::show::Selected, proto6: u8) -> fibkit::Result<()> {
    {
        match r {
            crate::show::Selected::V4(r) => {
                let cfg = Route4Cfg {
                    table: r.table,
                    dst: r.dst.addr,
                    dst_len: r.dst.len,
                    tos: r.tos,
                    rtype: r.rtype,
                    proto: r.info.proto,
                    scope: r.info.scope,
                    priority: r.info.priority,
                    prefsrc: r.info.prefsrc,
                    nh: NhCfg {
                        gw: r.info.nhs.first().and_then(|n| n.gw),
                        dev: r.info.nhs.first().map_or(0, |n| n.dev),
                        ..Default::default()
                    },
                    nh_id: r.info.nh_id,
                    ..Default::default()
                };
                ns.route4_modify(RouteOp::Delete, &cfg)
            }
            crate::show::Selected::V6(r) => {
                let cfg = Route6Cfg {
                    table: r.table,
                    dst: r.dst,
                    src: r.src,
                    rtype: r.rtype,
                    proto: proto6,
                    metric: r.metric,
                    nh: NhCfg {
                        gw: r.nh.gw.map(Gateway::V6),
                        dev: r.nh.dev,
                        ..Default::default()
                    },
                    nh_id: r.nh_id,
                    ..Default::default()
                };
                ns.route6_modify(RouteOp::Delete, &cfg)
            }
        }
    }
}

/// The keyword of `iprule_modify` a word of a rule line stands for, in iproute2's order
/// (exact, or by any prefix: `p` is `preference`, `t` `tun_id`, `s`
/// `suppress_prefixlength`, `r` `realms`, `m` `map-to`); other words (types, `goto`,
/// `nop`, after an optional `type`) come back as they are.
fn rule_keyword(k: &str) -> &str {
    const ORDER: [(&str, bool); 28] = [
        ("not", true),
        ("from", true),
        ("to", true),
        ("preference", false),
        ("order", false),
        ("priority", false),
        ("tos", true),
        ("dsfield", false),
        ("fwmark", true),
        ("realms", false),
        ("protocol", false),
        ("tun_id", false),
        ("table", false),
        ("lookup", true),
        ("suppress_prefixlength", false),
        ("sup_pl", true),
        ("suppress_ifgroup", false),
        ("sup_group", true),
        ("dev", true),
        ("iif", true),
        ("oif", true),
        ("l3mdev", true),
        ("uidrange", true),
        ("nat", true),
        ("map-to", false),
        ("ipproto", true),
        ("sport", true),
        ("dport", true),
    ];
    for (kw, exact) in ORDER {
        if (exact && k == kw) || (!exact && matches(k, kw)) {
            return kw;
        }
    }
    k
}

/// The keyword of `iproute_modify` a word of a route line stands for: iproute2 tries
/// them in this order, some only as written and the others by any prefix (`m` is
/// `metric`, `p` `priority`, `preference` is the metric too, `proto` is `protocol`,
/// `realm` `realms`, `i` `initcwnd`, `c` `cwnd`, `s` `ssthresh`, `t` `table`). Words it
/// does not stand for come back as they are.
fn route_keyword(k: &str) -> &str {
    const ORDER: [(&str, bool); 39] = [
        ("src", true),
        ("as", true),
        ("via", true),
        ("from", true),
        ("tos", true),
        ("dsfield", false),
        ("expires", true),
        ("metric", false),
        ("priority", false),
        ("preference", true),
        ("scope", true),
        ("mtu", true),
        ("hoplimit", true),
        ("advmss", true),
        ("reordering", false),
        ("rtt", true),
        ("rto_min", true),
        ("window", false),
        ("cwnd", false),
        ("initcwnd", false),
        ("initrwnd", false),
        ("features", false),
        ("quickack", false),
        ("congctl", false),
        ("rttvar", false),
        ("ssthresh", false),
        ("realms", false),
        ("onlink", true),
        ("nexthop", true),
        ("nhid", true),
        ("protocol", false),
        ("table", false),
        ("vrf", false),
        ("dev", true),
        ("oif", true),
        ("pref", false),
        ("encap", true),
        ("ttl-propagate", true),
        ("fastopen_no_cookie", false),
    ];
    for (kw, exact) in ORDER {
        if (exact && k == kw) || (!exact && matches(k, kw)) {
            return kw;
        }
    }
    k
}

/// The `RTAX_*` attribute a metric keyword of `iproute_modify` (as [`route_keyword`]
/// names it) adds to RTA_METRICS, for the ones carrying a number.
fn route_metric_id(k: &str) -> Option<u8> {
    // the numeric metrics: every id `rtax::name` names but the lock mask and congctl
    (rtax::MTU..=rtax::FASTOPEN_NO_COOKIE).find(|&id| id != rtax::CC_ALGO && rtax::name(id) == k)
}

fn metric_value(a: &mut Args<'_>, name: &str, m: &mut Metrics, id: u8) -> Res<()> {
    let mut v = a.val()?;
    if v == "lock" {
        m.locks |= 1 << id;
        v = a.val()?;
    }
    let n = parse_u32(v).ok_or_else(|| invarg(&format!("\"{name}\" value is invalid\n"), v))?;
    m.set(id, n);
    Ok(())
}

/// `TIME` of `rtt`, `rttvar` and `rto_min` (iproute2's `get_time_rtt`): a number with
/// `s`/`sec`/`ms`/`msec` is in milliseconds, a bare number is "raw" (the caller sends
/// it unscaled). Stores the value in ms (or raw) and returns whether it was raw.
/// `rtt`, `rttvar` (after an optional `lock`) and `rto_min` (without one: iproute2
/// always locks it): the value through `get_time_rtt`, stored as is; whether it was a
/// bare number (`raw`) is returned.
fn time_value(a: &mut Args<'_>, name: &str, m: &mut Metrics, id: u8) -> Res<bool> {
    let mut v = a.val()?;
    if v == "lock" && id != rtax::RTO_MIN {
        m.locks |= 1 << id;
        v = a.val()?;
    }
    let (n, raw) =
        get_time_rtt(v).ok_or_else(|| invarg(&format!("\"{name}\" value is invalid\n"), v))?;
    m.set(id, n);
    Ok(raw)
}

/// The number C's `strtod` reads at the start of `v` and how many bytes it took:
/// leading blanks, a sign, then a decimal number (an exponent only with digits after
/// it) or a hexadecimal one (`0x`, hex digits with an optional point, an optional
/// binary exponent `p`); `None` when it reads nothing. (`inf`/`nan` are left out:
/// `get_time_rtt` only reads a word holding a point, and nothing a word could hold
/// after them is a unit.)
fn strtod_prefix(v: &str) -> Option<(f64, usize)> {
    let b = v.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let sign = |t: f64| if neg { -t } else { t };
    // hexadecimal: "0x" must be followed by a digit, or a point and a digit
    if i + 1 < b.len() && b[i] == b'0' && (b[i + 1] | 0x20) == b'x' {
        let h = i + 2;
        let int_digits = b[h..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        let mut j = h + int_digits;
        let mut frac_digits = 0;
        if j < b.len() && b[j] == b'.' {
            frac_digits = b[j + 1..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit())
                .count();
        }
        if int_digits + frac_digits > 0 {
            // the significand: 16 hex digits kept exactly, any later non-zero one
            // as a sticky low bit, so the one rounding to f64 is the right one
            let mut mant: u64 = 0;
            let mut kept = 0u32;
            let mut sticky = false;
            let mut exp: i64 = 0;
            let mut digit = |c: u8, frac: bool, exp: &mut i64| {
                let d = u64::from((c as char).to_digit(16).unwrap_or(0));
                if mant == 0 && d == 0 {
                    if frac {
                        *exp -= 4;
                    }
                    return;
                }
                if kept < 16 {
                    mant = (mant << 4) | d;
                    kept += 1;
                    if frac {
                        *exp -= 4;
                    }
                } else {
                    sticky |= d != 0;
                    if !frac {
                        *exp += 4;
                    }
                }
            };
            for &c in &b[h..h + int_digits] {
                digit(c, false, &mut exp);
            }
            if frac_digits > 0 || (j < b.len() && b[j] == b'.') {
                for &c in &b[j + 1..j + 1 + frac_digits] {
                    digit(c, true, &mut exp);
                }
                j += 1 + frac_digits;
            }
            if j < b.len() && (b[j] | 0x20) == b'p' {
                let mut k = j + 1;
                let mut eneg = false;
                if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                    eneg = b[k] == b'-';
                    k += 1;
                }
                let ed = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
                if ed > 0 {
                    let mut e: i64 = 0;
                    for &c in &b[k..k + ed] {
                        e = (e * 10 + i64::from(c - b'0')).min(1 << 20);
                    }
                    exp += if eneg { -e } else { e };
                    j = k + ed;
                }
            }
            if sticky {
                mant |= 1;
            }
            #[allow(clippy::cast_precision_loss)]
            let m = mant as f64;
            let t = if m == 0.0 {
                0.0
            } else {
                // two steps keep the power of two itself finite
                let e = exp.clamp(-4000, 4000);
                let half = i32::try_from(e / 2).unwrap_or(0);
                let rest = i32::try_from(e - e / 2).unwrap_or(0);
                m * 2f64.powi(half) * 2f64.powi(rest)
            };
            return Some((sign(t), j));
        }
        // "0x" without digits: the "0" alone is the number
        return Some((sign(0.0), i + 1));
    }
    let start = i;
    let int_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        frac_digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if int_digits + frac_digits > 0 {
            i += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return None; // no digits: strtod consumed nothing
    }
    // an exponent counts only with digits after it
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let ed = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if ed > 0 {
            i = j + ed;
        }
    }
    let t: f64 = v[start..i].parse().ok()?;
    Some((sign(t), i))
}

/// iproute2's `get_time_rtt`: milliseconds from a number (`strtoul` base 0, or `strtod`
/// when there is a dot) with an optional case-insensitive unit `s`/`sec`/`secs` (times
/// 1000) or `ms`/`msec`/`msecs`; a fraction rounds up; converted to 32 bits as C's
/// `(unsigned int)` of a double does on x86-64. `raw`: no unit was given.
fn get_time_rtt(v: &str) -> Option<(u32, bool)> {
    let (t, rest) = if v.contains('.') {
        let (t, used) = strtod_prefix(v)?;
        if t < 0.0 || t.is_infinite() {
            return None;
        }
        (t, &v[used..])
    } else {
        let (n, used, overflow) = crate::show::strtoul(v, 0);
        if used == 0 || overflow {
            return None;
        }
        (n as f64, &v[used..])
    };
    let raw = rest.is_empty();
    let t = if raw {
        t
    } else if ["s", "sec", "secs"]
        .iter()
        .any(|u| rest.eq_ignore_ascii_case(u))
    {
        t * 1000.0
    } else if ["ms", "msec", "msecs"]
        .iter()
        .any(|u| rest.eq_ignore_ascii_case(u))
    {
        t
    } else {
        return None;
    };
    // cvttsd2si into a 64-bit register (the "indefinite" value past its range), low
    // 32 bits kept; then one more when the conversion cut a fraction off
    let wide = if t < (1u64 << 63) as f64 {
        t as i64
    } else {
        i64::MIN
    };
    let mut val = wide as u32;
    if f64::from(val) < t {
        val = val.wrapping_add(1);
    }
    Some((val, raw))
}

/// `get_addr`'s words for an address of no length: `all` and `any`, and `default`
/// while the family is open (of a known family it is the zero address).
fn addr_of_no_length(v: &str, fam: Option<Family>) -> bool {
    matches!(v, "all" | "any") || (v == "default" && fam.is_none())
}

/// One `nexthop` or the single-path part of a route request. A nexthop's `dev` is
/// resolved at once; the single path's only once the whole line is parsed (iproute2
/// keeps its name until then: a syntax error later on the line wins), so its name
/// goes to `late_dev`.
fn parse_nh<'a>(
    ns: &Netns,
    a: &mut Args<'a>,
    fam: &mut Option<Family>,
    nh: &mut NhCfg,
    single: bool,
    late_dev: &mut Option<&'a str>,
    zero_len: &mut bool,
) -> Res<bool> {
    let Some(k) = a.peek() else { return Ok(false) };
    match k {
        "via" => {
            a.next();
            let mut v = a.val()?;
            // read_family's other words: the address is read in that family
            // (get_addr_1), and the request carries it as an RTA_VIA no route takes
            if matches!(v, "link" | "mpls" | "bridge") {
                let x = a.val()?;
                via_other_family(v, x)?;
                if fam.is_none() {
                    // no family yet: the request takes the gateway's, in which the
                    // rest of the line is read (a prefix of it, `src`) and which
                    // rtnetlink has no handler for (see `alt_refused`)
                    crate::names::set_alt(Some(match v {
                        "link" => AltFamily::Packet,
                        "mpls" => AltFamily::Mpls,
                        _ => AltFamily::Bridge,
                    }));
                    return Ok(true);
                }
                let route_gw = nh
                    .gw
                    .is_some_and(|g| matches!(g, Gateway::V6(_)) == (*fam == Some(Family::V6)));
                if single || nh.gw.is_none() {
                    nh.via_unsupported = true;
                } else if route_gw {
                    nh.gw_and_via = true;
                }
                return Ok(true);
            }
            let mut gf = *fam;
            if v == "inet" || v == "inet6" {
                gf = Some(if v == "inet" { Family::V4 } else { Family::V6 });
                v = a.val()?;
            }
            // get_addr: `all` and `any` are an address of no length, `default` one of
            // the family's length (none while the family is open); the kernel's
            // policy refuses an empty RTA_GATEWAY
            if single && addr_of_no_length(v, gf) {
                *zero_len = true;
                return Ok(true);
            }
            let v = if single && v == "default" {
                if gf == Some(Family::V6) {
                    "::"
                } else {
                    "0.0.0.0"
                }
            } else {
                v
            };
            let addr = parse_addr(v, gf).ok_or_else(|| bad_addr(v, gf))?;
            // parse_one_nh: a leg's gateway of the route's family is RTA_GATEWAY, one of
            // the other RTA_VIA, and a leg may carry both
            // (the kernel reads a leg's first attribute of a kind: `nla_find`)
            let prev = nh.gw.map(|g| matches!(g, Gateway::V6(_)));
            // (a leg's RTA_GATEWAY, of the route's family, is read whatever RTA_VIA
            // came before it)
            let route_family = fam.map(|f| f == Family::V6);
            let first = single
                || prev.is_none()
                || (prev != route_family && Some(addr.family() == Family::V6) == route_family);
            if first {
                nh.gw = match addr {
                    Addr::V4(0) => None,
                    Addr::V4(x) => Some(Gateway::V4(x)),
                    Addr::V6(x) => Some(Gateway::V6(x)),
                };
            }
            if fam.is_none() {
                *fam = Some(addr.family());
            }
            if !single && prev.is_some_and(|p6| p6 != (addr.family() == Family::V6)) {
                nh.gw_and_via = true;
            }
        }
        // a path of `nexthop` takes `dev` only (`parse_one_nh`)
        "dev" | "oif" if single || k == "dev" => {
            a.next();
            let d = a.val()?;
            if single {
                *late_dev = Some(d);
            } else {
                nh.dev = ll_index(ns, d).ok_or_else(|| nodev_exit(d))?;
            }
        }
        "weight" if !single => {
            a.next();
            let v = a.val()?;
            let w = parse_u32(v)
                .filter(|w| (1..=256).contains(w))
                .ok_or_else(|| invarg("\"weight\" is invalid\n", v))?;
            nh.weight = w;
        }
        "onlink" => {
            a.next();
            nh.flags |= nhflags::ONLINK;
        }
        "encap" => {
            a.next();
            nh.encap = Some(encap::parse_encap(ns, a)?);
        }
        // RTA_NEWDST (MPLS only): read, its family checked, not kept
        "as" => {
            a.next();
            let mut v = a.val()?;
            if v == "to" {
                v = a.val()?;
            }
            // get_addr_1 takes `default`, `all` and `any` in any family (which it keeps)
            if !matches!(v, "default" | "all" | "any") {
                let x = parse_addr(v, *fam).ok_or_else(|| bad_addr(v, *fam))?;
                fam.get_or_insert(x.family());
            }
        }
        _ if !single && matches(k, "realms") => {
            a.next();
            let v = a.val()?;
            nh.realm = crate::show::get_rt_realms_or_raw(v)
                .ok_or_else(|| invarg("\"realm\" value is invalid\n", v))?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The parsed form of `ip route add|del|...`.
struct RouteReq {
    fam: Option<Family>,
    dst: Option<Pfx>,
    src: Option<Pfx>,
    rtype: Option<RouteType>,
    /// A type word iproute2 read as a number above `RTN_MAX` (`+12`): sent as it is.
    bad_type: Option<u8>,
    table: Option<u32>,
    proto: Option<u8>,
    scope: Option<u8>,
    metric: Option<u32>,
    tos: u8,
    prefsrc: Option<Addr>,
    nh: NhCfg,
    multipath: Vec<NhCfg>,
    metrics: Metrics,
    pref: Option<Pref>,
    expires: Option<u64>,
    nhid: u32,
    /// `nhid` was given (iproute2 sends the id, 0 included).
    nhid_given: bool,
    /// `via` was given (even `via 0.0.0.0`, which the kernel treats as no gateway).
    via_given: bool,
    /// An address attribute of no length was sent (`via all`, `src any`, ...).
    zero_len: bool,
    /// An encapsulation type the kernel lacks was given, even if a later `encap`
    /// replaced it.
    unsupported_encap: bool,
    /// Such an encapsulation type came before an `RTA_VIA` of no IP family (IPv4's
    /// attribute loop meets the attributes in the order of the line).
    encap_before_via: bool,
}

fn parse_route_req(ns: &Netns, opts: &Opts, args: &[String]) -> Res<RouteReq> {
    let mut r = RouteReq {
        fam: opts.family,
        dst: None,
        src: None,
        rtype: None,
        bad_type: None,
        table: None,
        proto: None,
        scope: None,
        metric: None,
        tos: 0,
        prefsrc: None,
        nh: NhCfg::default(),
        multipath: Vec::new(),
        metrics: Metrics::default(),
        pref: None,
        expires: None,
        nhid: 0,
        nhid_given: false,
        via_given: false,
        zero_len: false,
        unsupported_encap: false,
        encap_before_via: false,
    };
    let mut a = Args::new(args);
    let mut late_dev = None;
    let mut nexthops = false;
    // the size of `mxbuf` and how much of it RTA_METRICS holds (its own header first)
    const MXBUF: usize = 256;
    let mut mx_len = 4usize;
    // the request's length as iproute_modify fills it (its header and `rtmsg`, then
    // each attribute a word adds), for the bound parse_nexthops checks; `None` once
    // a word adds what is not counted (an encapsulation)
    let mut msg_len = Some(28usize);
    let mut dev_given = false;
    while let Some(k) = a.peek() {
        if k == "via" {
            if r.via_given {
                return Err(invarg("use nexthop syntax to specify multiple via\n", k));
            }
            r.via_given = true;
            // `-M` / `-B` without a family word: the gateway is read in that family
            // (`get_addr(.., rtm_family)`); no route of it is ever made
            if let (Some(alt @ (AltFamily::Mpls | AltFamily::Bridge)), Some(v)) =
                (opts.alt, args.get(a.i + 1))
            {
                if !matches!(v.as_str(), "inet" | "inet6" | "link" | "mpls" | "bridge") {
                    let ok = match alt {
                        AltFamily::Mpls => mpls_labels(v).is_some(),
                        _ => matches!(v.as_str(), "default" | "any" | "all"),
                    };
                    if !ok {
                        return Err(Failure::parse(
                            format!(
                                "Error: {} address is expected rather than \"{v}\".\n",
                                alt.name()
                            ),
                            1,
                        )
                        .exiting(true));
                    }
                    a.next();
                    a.next();
                    continue;
                }
            }
        }
        let nh_start = a.i;
        let encap_before = r.nh.encap.clone();
        if parse_nh(
            ns,
            &mut a,
            &mut r.fam,
            &mut r.nh,
            true,
            &mut late_dev,
            &mut r.zero_len,
        )? {
            match k {
                "via" | "as" => {
                    msg_len = msg_len.and_then(|l| {
                        let size = route_addr_attr_size(&args[nh_start + 1..a.i], r.fam)?;
                        Some(l + size)
                    });
                }
                "dev" | "oif" => dev_given = true,
                "onlink" => {}
                // lwt_parse_encap builds the encapsulation aside and iproute_modify
                // copies it in with `addraw_l` and a bound of 1024 for the whole
                // message so far: past it, the copy is left out with a message and
                // the route goes without it
                // the SRH goes into lwt_parse_encap's own buffer of 1024 bytes (after its
                // header and RTA_ENCAP's): one that does not fit is refused with a
                // message, and iproute_modify reads on from the word after `encap`
                "encap"
                    if encap_attr_size(&args[nh_start..a.i])
                        .is_some_and(|size| size - 8 + 4 > 1024) =>
                {
                    crate::names::note_parse_stderr(
                        "rta_addattr_l: Error! max allowed bound 1024 exceeded\n",
                    );
                    r.nh.encap = encap_before;
                    a.i = nh_start + 1;
                    continue;
                }
                "encap" => match (msg_len, encap_attr_size(&args[nh_start..a.i])) {
                    (Some(l), Some(size)) if l + size > 1024 => {
                        crate::names::note_parse_stderr(
                            "addraw_l ERROR: message exceeded bound of 1024\n",
                        );
                        r.nh.encap = encap_before;
                    }
                    (Some(l), Some(size)) => msg_len = Some(l + size),
                    _ => msg_len = None,
                },
                _ => msg_len = None,
            }
            // rtm_to_fib_config checks each RTA_ENCAP_TYPE as it reads it: an
            // unsupported one refuses an IPv4 request even when another follows
            // (rtm_to_fib6_config reads the last only)
            let unsupported = matches!(
                r.nh.encap.as_deref(),
                Some(fibkit::encap::Encap::Unsupported { .. })
            );
            r.encap_before_via |= unsupported && !r.nh.via_unsupported;
            r.unsupported_encap |= unsupported;
            continue;
        }
        a.next();
        let raw = k;
        let k = route_keyword(raw);
        // iproute2 adds one more attribute to RTA_METRICS for each metric word, so a
        // metric given again is sent twice: the kernel keeps the last value on an add,
        // but a delete compares each (`fib_metrics_match`)
        let overridden = route_metric_id(k).and_then(|id| r.metrics.get(id).map(|v| (id, v)));
        // iproute2 builds RTA_METRICS in a buffer of 256 bytes (`mxbuf`): an attribute
        // that does not fit is left out with a message on stderr (`rta_addattr32`,
        // `rta_addattr_l` for the name of `congctl`, which goes without its NUL) and
        // the line goes on; a `lock` word has set its bit already
        let mx_attr = if route_metric_id(k).is_some() {
            Some((8, "rta_addattr32"))
        } else if k == "congctl" {
            let name = match a.peek() {
                Some("lock") => args.get(a.i + 1).map(String::as_str),
                w => w,
            };
            name.map(|n| ((4 + n.len() + 3) & !3, "rta_addattr_l"))
        } else {
            None
        };
        let before = mx_attr.map(|_| r.metrics.clone());
        match k {
            "src" => {
                let v = a.val()?;
                // get_addr in the request's family when it is none of IP's
                if let Some(alt) = crate::names::alt() {
                    via_other_family(alt.name(), v)?;
                    continue;
                }
                // (as `via`: `all`/`any`, or `default` of no family yet, have no length)
                if addr_of_no_length(v, r.fam) {
                    r.zero_len = true;
                    continue;
                }
                let v = match (v, r.fam) {
                    ("default", Some(Family::V6)) => "::",
                    ("default", _) => "0.0.0.0",
                    _ => v,
                };
                let x = parse_addr(v, r.fam).ok_or_else(|| bad_addr(v, r.fam))?;
                if r.fam.is_none() {
                    r.fam = Some(x.family());
                }
                r.prefsrc = Some(x);
            }
            "from" => {
                // a source prefix sets the family too (`default`/`any`/`all` leave it
                // open)
                let v = a.val()?;
                let p = prefix_arg(v, r.fam)?;
                if r.fam.is_none() && !matches!(v, "default" | "any" | "all") {
                    r.fam = Some(p.addr.family());
                }
                r.src = Some(p);
            }
            "tos" | "dsfield" => {
                let v = a.val()?;
                r.tos = dsfield_a2n(v).ok_or_else(|| invarg("\"tos\" value is invalid\n", v))?;
            }
            "expires" => {
                let v = a.val()?;
                r.expires = Some(u64::from(get_u32(v, "\"expires\" value is invalid\n")?));
            }
            "metric" | "priority" | "preference" => {
                let v = a.val()?;
                r.metric = Some(get_u32(v, "\"metric\" value is invalid\n")?);
            }
            "scope" => {
                let v = a.val()?;
                r.scope = Some(scope_a2n(v).ok_or_else(|| invarg("invalid \"scope\" value\n", v))?);
            }
            "mtu" => metric_value(&mut a, "mtu", &mut r.metrics, rtax::MTU)?,
            "hoplimit" => {
                metric_value(&mut a, "hoplimit", &mut r.metrics, rtax::HOPLIMIT)?;
                if r.metrics.get(rtax::HOPLIMIT).unwrap_or(0) > 255 {
                    let v = args[a.i - 1].clone();
                    return Err(invarg("\"hoplimit\" value is invalid\n", &v));
                }
            }
            "advmss" => metric_value(&mut a, "mss", &mut r.metrics, rtax::ADVMSS)?,
            "reordering" => metric_value(&mut a, "reordering", &mut r.metrics, rtax::REORDERING)?,
            "window" => metric_value(&mut a, "window", &mut r.metrics, rtax::WINDOW)?,
            "cwnd" => metric_value(&mut a, "cwnd", &mut r.metrics, rtax::CWND)?,
            "initcwnd" => metric_value(&mut a, "initcwnd", &mut r.metrics, rtax::INITCWND)?,
            "initrwnd" => metric_value(&mut a, "initrwnd", &mut r.metrics, rtax::INITRWND)?,
            "ssthresh" => metric_value(&mut a, "ssthresh", &mut r.metrics, rtax::SSTHRESH)?,
            "rtt" => {
                // iproute2 sends RTAX_RTT in units of 1/8 ms; a bare number as it is
                if !time_value(&mut a, "rtt", &mut r.metrics, rtax::RTT)? {
                    let v = r.metrics.get(rtax::RTT).unwrap_or(0);
                    r.metrics.set(rtax::RTT, v.wrapping_mul(8));
                }
            }
            "rttvar" => {
                // ... and RTAX_RTTVAR in units of 1/4 ms
                if !time_value(&mut a, "rttvar", &mut r.metrics, rtax::RTTVAR)? {
                    let v = r.metrics.get(rtax::RTTVAR).unwrap_or(0);
                    r.metrics.set(rtax::RTTVAR, v.wrapping_mul(4));
                }
            }
            "rto_min" => {
                time_value(&mut a, "rto_min", &mut r.metrics, rtax::RTO_MIN)?;
                // iproute2 always sends rto_min locked
                r.metrics.locks |= 1 << rtax::RTO_MIN;
            }
            "features" => {
                let v = a.val()?;
                if v != "ecn" {
                    return Err(invarg("\"features\" value not valid\n", v));
                }
                r.metrics.set(rtax::FEATURES, 1);
            }
            "quickack" | "fastopen_no_cookie" => {
                let v = a.val()?;
                let n = parse_u32(v)
                    .ok_or_else(|| invarg(&format!("\"{k}\" value is invalid\n"), v))?;
                if n > 1 {
                    return Err(invarg(&format!("\"{k}\" value should be 0 or 1\n"), v));
                }
                let id = if k == "quickack" {
                    rtax::QUICKACK
                } else {
                    rtax::FASTOPEN_NO_COOKIE
                };
                r.metrics.set(id, n);
            }
            "congctl" => {
                let mut v = a.val()?;
                if v == "lock" {
                    r.metrics.locks |= 1 << rtax::CC_ALGO;
                    v = a.val()?;
                }
                // each `congctl` is one more RTAX_CC_ALGO in the request, and the
                // kernel checks every one (`ip_metrics_convert`): an unknown name
                // given first stays to be refused; the other names are kept for a
                // delete, which compares each (`fib_metrics_match`)
                match r.metrics.congctl.take() {
                    Some(old) if !fibkit::route::congctl_known(&old) => {
                        r.metrics.congctl = Some(old);
                        r.metrics.repeated_cc.push(v.to_string());
                    }
                    old => {
                        r.metrics.repeated_cc.extend(old);
                        r.metrics.congctl = Some(v.to_string());
                    }
                }
            }
            "realms" | "realm" => {
                let v = a.val()?;
                r.nh.realm = crate::show::get_rt_realms_or_raw(v)
                    .ok_or_else(|| invarg("\"realm\" value is invalid\n", v))?;
            }
            "nexthop" => {
                // iproute_modify stops reading at `nexthop`: the rest of the line is
                // parse_nexthops', read once the destination and the device are
                nexthops = true;
                break;
            }
            // fibkit has no VRF device: every name is iproute2's "Invalid VRF"
            "vrf" => {
                let v = a.val()?;
                return Err(not_vrf(ns, invarg("Invalid VRF\n", v), v));
            }
            // RTA_TTL_PROPAGATE (MPLS only): read and checked, not kept
            "ttl-propagate" => {
                let v = a.val()?;
                if !matches(v, "enabled") && !matches(v, "disabled") {
                    return Err(invarg("\"ttl-propagate\" value is invalid\n", v));
                }
            }
            "nhid" => {
                let v = a.val()?;
                r.nhid = get_u32(v, "\"id\" value is invalid\n")?;
                r.nhid_given = true;
            }
            "protocol" | "proto" => {
                let v = a.val()?;
                r.proto =
                    Some(proto_a2n(v).ok_or_else(|| invarg("\"protocol\" value is invalid\n", v))?);
            }
            "table" => {
                let v = a.val()?;
                let t = table_a2n(v).ok_or_else(|| invarg("\"table\" value is invalid\n", v))?;
                // iproute2 puts a table below 256 in the header (`rtm_table`), a higher
                // one in an RTA_TABLE attribute, which the kernel prefers to the
                // header: once sent, a later small table does not undo it
                // (conformance scenario 752)
                if t >= 256 || r.table.is_none_or(|old| old < 256) {
                    r.table = Some(t);
                }
            }
            "pref" => {
                let v = a.val()?;
                r.pref = Some(match v {
                    "low" => Pref::Low,
                    "medium" => Pref::Medium,
                    "high" => Pref::High,
                    _ => match parse_u32(v).filter(|x| *x <= 255) {
                        Some(1) => Pref::High,
                        Some(3) => Pref::Low,
                        Some(_) => Pref::Medium,
                        None => return Err(invarg("\"pref\" value is invalid\n", v)),
                    },
                });
            }
            _ => {
                let mut v = raw;
                if v == "to" {
                    v = a.val()?;
                }
                // a type word (not one starting with a digit: that is a prefix)
                if !v.starts_with(|c: char| c.is_ascii_digit()) {
                    if let Some(n) = crate::names::rtntype_a2n(v) {
                        match RouteType::from_u8(n) {
                            Some(t) => {
                                r.rtype = Some(t);
                                r.bad_type = None;
                            }
                            // a number past the known types (`+12`) is sent as it is
                            None => {
                                r.rtype = None;
                                r.bad_type = Some(n);
                            }
                        }
                        v = a.val()?;
                    }
                }
                // iproute_modify: any prefix of `help` (after `to` and a type) is the
                // usage
                if matches(v, "help") {
                    return Err(Failure::parse(route_usage(), 255));
                }
                if r.dst.is_some() {
                    return Err(Failure::parse(
                        format!("Error: either \"to\" is duplicate, or \"{v}\" is a garbage.\n"),
                        255,
                    ));
                }
                let p = prefix_arg(v, r.fam)?;
                // `default`/`any`/`all` leave the family open (a later `via inet6` makes
                // the route IPv6; random seed 22286)
                if r.fam.is_none() && !matches!(v, "default" | "any" | "all") {
                    r.fam = Some(p.addr.family());
                }
                r.dst = Some(p);
            }
        }
        // the attribute the word added to the request (a metric goes into mxbuf)
        let attr = match k {
            // RTA_PREFSRC goes in whatever its length (`any`/`all`: none; `default`:
            // the family's); RTA_SRC only with one
            "src" => match args[a.i - 1].as_str() {
                "any" | "all" => 4,
                w => prefix_attr_size(w, r.fam).max(4),
            },
            "from" => prefix_attr_size(&args[a.i - 1], r.fam),
            "expires" | "metric" | "priority" | "preference" | "realms" | "realm" | "nhid"
            | "pref" | "ttl-propagate" => 8,
            "table" if table_a2n(&args[a.i - 1]).is_some_and(|t| t >= 256) => 8,
            "tos" | "dsfield" | "scope" | "protocol" | "proto" | "table" => 0,
            _ if mx_attr.is_some() => 0,
            // the destination (after `to` and a type), when it has a length
            _ => prefix_attr_size(&args[a.i - 1], r.fam),
        };
        msg_len = msg_len.map(|l| l + attr);
        let mut sent = true;
        if let (Some((size, func)), Some(before)) = (mx_attr, before) {
            if mx_len + size > MXBUF {
                let locks = r.metrics.locks;
                r.metrics = before;
                r.metrics.locks = locks;
                crate::names::note_parse_stderr(&format!(
                    "{func}: Error! max allowed bound {MXBUF} exceeded\n"
                ));
                sent = false;
            } else {
                mx_len += size;
            }
        }
        if let (Some(p), true) = (overridden, sent) {
            r.metrics.repeated.push(p);
        }
    }
    if r.dst.is_none() {
        return Err(Failure::parse(route_usage(), 255));
    }
    if let Some(d) = late_dev {
        r.nh.dev = ifindex(ns, d)?;
    }
    // the lock mask goes last into the metrics buffer, once the device is known
    if r.metrics.locks != 0 && mx_len + 8 > MXBUF {
        r.metrics.locks = 0;
        crate::names::note_parse_stderr(&format!(
            "rta_addattr32: Error! max allowed bound {MXBUF} exceeded\n"
        ));
    }
    // then RTA_OIF and RTA_METRICS go into the request
    if dev_given {
        msg_len = msg_len.map(|l| l + 8);
    }
    if mx_len > 4 {
        let lock = if r.metrics.locks != 0 { 8 } else { 0 };
        msg_len = msg_len.map(|l| l + mx_len + lock);
    }
    if nexthops {
        if a.peek().is_none() {
            return Err(Failure::parse(
                "Error: unexpected end of line after \"nexthop\"\n",
                255,
            ));
        }
        // parse_nexthops builds RTA_MULTIPATH in a buffer of 4096 bytes: each leg's
        // header, then the attributes its words add, each checked against that
        // bound as it goes in (an encapsulation or a non-IP gateway stops the count)
        let mut mp_len = Some(4usize);
        loop {
            let mut nh = NhCfg {
                weight: 1,
                ..Default::default()
            };
            mp_len = mp_len.map(|l| l + 8);
            // a leg's attributes are found with nla_find, which takes the first of a
            // kind: a second `realms` or `encap` of a leg is parsed and sent, but the
            // first counts (scenario 489)
            let mut first_realm = None;
            let mut first_encap = None;
            loop {
                let word = a.peek();
                let attr = mp_attr_size(&a.v[a.i.min(a.v.len())..], r.fam);
                match parse_nh(
                    ns, &mut a, &mut r.fam, &mut nh, false, &mut None, &mut false,
                ) {
                    Ok(true) => match word {
                        _ if over_mp_bound(&mut mp_len, attr) => {
                            return Err(Failure::parse(
                                "rta_addattr_l: Error! max allowed bound 4096 exceeded\n\
                                 Error: cannot parse nexthop\n",
                                255,
                            ));
                        }
                        Some("encap") => match &first_encap {
                            Some(e) => nh.encap = Clone::clone(e),
                            None => first_encap = Some(nh.encap.clone()),
                        },
                        Some(w) if matches(w, "realms") => match first_realm {
                            Some(v) => nh.realm = v,
                            None => first_realm = Some(nh.realm),
                        },
                        _ => {}
                    },
                    Ok(false) => break,
                    Err(mut f) => {
                        if f.errno == Some(Errno::ENODEV) {
                            f.stderr.push_str("Error: cannot parse nexthop\n");
                        }
                        return Err(f);
                    }
                }
            }
            r.multipath.push(nh);
            match a.peek() {
                Some("nexthop") => {
                    a.next();
                    if a.peek().is_none() {
                        return Err(Failure::parse(
                            "Error: unexpected end of line after \"nexthop\"\n",
                            255,
                        ));
                    }
                }
                Some(x) => {
                    return Err(Failure::parse(
                        format!(
                            "Error: \"nexthop\" or end of line is expected instead of \"{x}\"\n"
                        ),
                        255,
                    ))
                }
                None => break,
            }
        }
        // parse_nexthops adds RTA_MULTIPATH to the request with a bound of 4096 for
        // the whole message (`addattr_l`): past it, iproute_modify gives up (a
        // return, not an exit)
        if let (Some(l), Some(mp)) = (msg_len, mp_len) {
            if l + mp > 4096 {
                return Err(
                    Failure::parse("addattr_l ERROR: message exceeded bound of 4096\n", 1)
                        .exiting(false),
                );
            }
        }
    }
    Ok(r)
}

/// The size an address word of `iproute_modify` adds to the request: `words` are what
/// `via` or `as` read (an optional family word, then the address), in a route of
/// family `fam`; a gateway of the route's family is RTA_GATEWAY, another is RTA_VIA
/// (with its own family field). `None` when not counted.
fn route_addr_attr_size(words: &[String], fam: Option<Family>) -> Option<usize> {
    let (explicit, addr) = match words {
        [f, a] if f == "inet" || f == "inet6" || f == "to" => (Some(f.as_str()), a.as_str()),
        [a] => (None, a.as_str()),
        _ => return None,
    };
    let v6 = match (explicit, addr) {
        (Some("inet"), _) => false,
        (Some("inet6"), _) => true,
        (_, "default") => fam == Some(Family::V6),
        _ => addr.contains(':'),
    };
    // `any`/`all`, and `default` of no family yet, have no length: the attribute is
    // its header
    if matches!(addr, "any" | "all") || (addr == "default" && explicit.is_none() && fam.is_none()) {
        return Some(4);
    }
    Some(gateway_attr_size(if v6 { 16 } else { 4 }, fam))
}

/// The bytes a gateway of `len` address bytes adds to a route of family `fam`:
/// RTA_GATEWAY, or RTA_VIA (a 2-byte family first, padded) for the other family.
fn gateway_attr_size(len: usize, fam: Option<Family>) -> usize {
    match (fam, len) {
        (Some(Family::V4), 16) | (Some(Family::V6), 4) => (4 + 2 + len + 3) & !3,
        _ => 4 + len,
    }
}

/// The bytes an `encap` of a route adds to the request (RTA_ENCAP with its nested
/// attributes, then RTA_ENCAP_TYPE), for the forms counted: a seg6 encapsulation in
/// `encap` mode without HMAC, whose SRH is 8 bytes and 16 a segment after the
/// tunnel's 4-byte mode (`parse_encap_seg6`). `None` for the others.
fn encap_attr_size(words: &[String]) -> Option<usize> {
    match words {
        [e, t, m, mode, s, list]
            if e == "encap" && t == "seg6" && m == "mode" && mode == "encap" && s == "segs" =>
        {
            let n = list.split(',').count();
            // RTA_ENCAP (4) holding SEG6_IPTUNNEL_SRH (4 + 4 + SRH), RTA_ENCAP_TYPE (8)
            Some(4 + 4 + 4 + 8 + 16 * n + 8)
        }
        _ => None,
    }
}

/// The size a prefix word adds to the request (RTA_DST, RTA_SRC), in a request of
/// family `fam` so far: its address bytes after the attribute header; nothing for
/// `any`/`all`, nor for `default` before the family is known (`get_addr_1` gives it
/// the family's length, 0 for AF_UNSPEC), which iproute_modify does not send.
fn prefix_attr_size(word: &str, fam: Option<Family>) -> usize {
    match (word, fam) {
        ("any" | "all", _) | ("default", None) => 0,
        ("default", Some(Family::V4)) => 8,
        ("default", Some(Family::V6)) => 20,
        (w, _) if w.contains(':') => 20,
        _ => 8,
    }
}

/// The bytes a multipath leg's next words add to RTA_MULTIPATH (`parse_one_nh`):
/// `Some(0)` for words kept in the leg's header, `None` when not counted
/// (an encapsulation, realms, a gateway of another family).
fn mp_attr_size(rest: &[String], route_fam: Option<Family>) -> Option<usize> {
    let w = |i: usize| rest.get(i).map(String::as_str);
    match w(0)? {
        "via" => {
            let (fam, addr) = match w(1)? {
                "inet" => (Some(4), w(2)?),
                "inet6" => (Some(16), w(2)?),
                "link" | "mpls" | "bridge" => return None,
                x => (None, x),
            };
            let len = fam.unwrap_or(if addr.contains(':') { 16 } else { 4 });
            // a gateway of the route's family is RTA_GATEWAY; another is RTA_VIA, with
            // its 2-byte family first (`parse_one_nh`)
            Some(gateway_attr_size(len, route_fam))
        }
        // RTA_FLOW's own complaint is not modelled: stop counting
        x if matches(x, "realms") => None,
        "encap" => None,
        _ => Some(0),
    }
}

/// Adds an attribute of `attr` bytes to the RTA_MULTIPATH count; whether it went past
/// iproute2's bound of 4096 (`rta_addattr_l`).
fn over_mp_bound(len: &mut Option<usize>, attr: Option<usize>) -> bool {
    match (*len, attr) {
        (Some(l), Some(0)) => {
            *len = Some(l);
            false
        }
        (Some(l), Some(n)) if l + n > 4096 => true,
        (Some(l), Some(n)) => {
            *len = Some(l + n);
            false
        }
        _ => {
            *len = None;
            false
        }
    }
}

/// A route change; returns what `-echo` prints (nothing without it).
fn route_modify(ns: &mut Netns, opts: &Opts, op: RouteOp, args: &[String]) -> Res<String> {
    let r = parse_route_req(ns, opts, args)?;
    let Some(mut dst) = r.dst else {
        return Err(Failure::parse(route_usage(), 255));
    };
    alt_refused(opts)?;
    // the attribute policy (`rtm_ipv4_policy`, `rtm_ipv6_policy`): an address of no
    // length
    if r.zero_len {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::ERANGE,
            "Attribute failed policy validation",
        )));
    }
    // rtm_to_fib_config / rtm_to_fib6_config judge the header's dsfield before any
    // attribute (an unsupported encapsulation below; conformance scenario 472)
    match r.fam.unwrap_or(Family::V4) {
        Family::V4 if r.tos & 0x03 != 0 => {
            return Err(Failure::kernel(fibkit::Error::msg(
                Errno::EINVAL,
                "Invalid dsfield (tos): ECN bits must be 0",
            )));
        }
        Family::V6 if r.tos != 0 => {
            return Err(Failure::kernel(fibkit::Error::msg(
                Errno::EINVAL,
                "Invalid dsfield (tos): option not available for IPv6",
            )));
        }
        _ => {}
    }
    // a type past RTN_MAX: rtm_to_fib_config refuses it after the dsfield, for every
    // command (conformance scenario 751); IPv6 is below
    if r.bad_type.is_some() && r.fam.unwrap_or(Family::V4) == Family::V4 {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EINVAL,
            "Invalid route type",
        )));
    }
    // rtm_to_fib_config reads an RTA_VIA in its attribute loop (fib_gw_from_via),
    // before it judges the request as a whole (IPv6: the engine, after the nexthop id)
    if r.fam.unwrap_or(Family::V4) == Family::V4 && r.nh.via_unsupported && !r.encap_before_via {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EINVAL,
            "Unsupported address family in RTA_VIA",
        )));
    }
    // rtm_to_fib6_config refuses a nexthop id beside a nexthop specification before
    // it looks at an encapsulation type (IPv4 checks the type first, in its attribute
    // loop; conformance scenario 478)
    if r.fam == Some(Family::V6)
        && r.nhid_given
        && (r.nh.dev != 0
            || matches!(r.nh.gw, Some(fibkit::route::Gateway::V6(_)))
            || (r.via_given && r.nh.gw.is_none() && !r.nh.via_unsupported)
            || r.nh.encap.is_some()
            || !r.multipath.is_empty())
    {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EINVAL,
            "Nexthop specification and nexthop id are mutually exclusive",
        )));
    }
    // rtm_to_fib_config / rtm_to_fib6_config (`lwtunnel_valid_encap_type`, also of
    // each multipath leg): an encapsulation type the kernel lacks is refused with the
    // request, for every command
    let unsupported = |e: &Option<std::sync::Arc<fibkit::encap::Encap>>| {
        matches!(e.as_deref(), Some(fibkit::encap::Encap::Unsupported { .. }))
    };
    let v4_refused = r.unsupported_encap && r.fam.unwrap_or(Family::V4) == Family::V4;
    // (a new IPv6 multipath route's legs are checked after rtm_to_fib6_multipath_config
    // has looked at their gateways: the engine's route6_modify)
    let v6_new = r.fam == Some(Family::V6) && op != RouteOp::Delete;
    if v4_refused
        || unsupported(&r.nh.encap)
        || (!v6_new && r.multipath.iter().any(|n| unsupported(&n.encap)))
    {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EOPNOTSUPP,
            "lwt encapsulation type not supported",
        )));
    }
    let fam = r.fam.unwrap_or(Family::V4);
    if fam == Family::V6 && dst.addr == Addr::V4(0) && dst.len == 0 {
        dst.addr = Addr::V6(0);
    }
    let delete = op == RouteOp::Delete;
    // IPv6: ip6_route_info_create refuses a type past RTN_MAX before it looks for the
    // table (a delete never looks at the type); it makes a route of no type (`+0`) a
    // unicast one (conformance scenario 751)
    if fam == Family::V6 && r.bad_type.is_some() && !delete {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EINVAL,
            "Invalid route type",
        )));
    }
    let rtype = match r.rtype {
        Some(RouteType::Unspec) if fam == Family::V6 && !delete => RouteType::Unicast,
        Some(t) => t,
        None if delete || r.bad_type.is_some() => RouteType::Unspec,
        None => RouteType::Unicast,
    };
    let has_gw = r.nh.gw.is_some() || r.via_given;
    let has_nh = !r.multipath.is_empty();
    let scope = r.scope.unwrap_or(match rtype {
        RouteType::Local | RouteType::Nat => scope::HOST,
        RouteType::Broadcast | RouteType::Multicast | RouteType::Anycast => scope::LINK,
        RouteType::Unicast | RouteType::Unspec => {
            if delete {
                scope::NOWHERE
            } else if !has_gw && !has_nh && r.nhid == 0 {
                scope::LINK
            } else {
                scope::UNIVERSE
            }
        }
        // other types keep the request's initial scope: RT_SCOPE_NOWHERE ("any") for a
        // delete, RT_SCOPE_UNIVERSE for the other commands (conformance scenario 158)
        _ if delete => scope::NOWHERE,
        _ => scope::UNIVERSE,
    });
    // iproute2 sends these types to the local table for every command, deletes
    // included (conformance scenario 159)
    let table = r.table.unwrap_or(
        if matches!(
            rtype,
            RouteType::Local | RouteType::Broadcast | RouteType::Nat | RouteType::Anycast
        ) {
            tid::LOCAL
        } else {
            tid::MAIN
        },
    );
    let proto = r.proto.unwrap_or(if delete {
        0
    } else {
        fibkit::route::proto::BOOT
    });
    match fam {
        Family::V4 => {
            let Addr::V4(d) = dst.addr else {
                return Err(bad_prefix(&args.join(" "), Some(Family::V4)));
            };
            if let Some(p) = r.src {
                // IPv4 ignores a source prefix (RTA_SRC is not part of fib_config)
                let _ = p;
            }
            let prefsrc = match r.prefsrc {
                Some(Addr::V4(x)) => x,
                Some(Addr::V6(_)) => {
                    return Err(Failure::kernel(fibkit::Error::new(Errno::EINVAL)))
                }
                None => 0,
            };
            let cfg = Route4Cfg {
                table,
                dst: d,
                dst_len: dst.len,
                tos: r.tos,
                rtype,
                proto,
                scope,
                priority: r.metric.unwrap_or(0),
                prefsrc,
                nh: r.nh,
                multipath: r.multipath,
                nh_id: r.nhid,
                metrics: r.metrics,
            };
            let t = crate::show::EchoTarget {
                v6: false,
                table,
                dst: u128::from(d),
                dst_len: dst.len,
            };
            let req = crate::show::EchoRequest {
                delete,
                dev: cfg.nh.dev,
                proto: cfg.proto,
                metric: cfg.priority,
                append_paths: false,
                del_paths: Vec::new(),
            };
            echoed(ns, opts, &t, req, |ns| {
                ns.route4_modify(op, &cfg).map_err(Failure::kernel)
            })
        }
        Family::V6 => {
            let Addr::V6(d) = dst.addr else {
                return Err(Failure::kernel(fibkit::Error::new(Errno::EINVAL)));
            };
            let src = match r.src {
                Some(Pfx {
                    addr: Addr::V6(s),
                    len,
                    ..
                }) => Prefix6 { addr: s, len },
                Some(_) => return Err(Failure::kernel(fibkit::Error::new(Errno::EINVAL))),
                None => Prefix6::default(),
            };
            let prefsrc = match r.prefsrc {
                Some(Addr::V6(x)) => Some(x),
                Some(Addr::V4(_)) => {
                    return Err(Failure::kernel(fibkit::Error::new(Errno::EINVAL)))
                }
                None => None,
            };
            let cfg = Route6Cfg {
                table,
                dst: Prefix6 {
                    addr: d,
                    len: dst.len,
                },
                src,
                rtype,
                proto,
                metric: r.metric.unwrap_or(0),
                pref: r.pref.unwrap_or(Pref::Medium),
                prefsrc,
                nh: r.nh,
                multipath: r.multipath,
                metrics: r.metrics,
                expires: r.expires,
                tos: r.tos,
                flags: 0,
                nh_id: r.nhid,
                nh_id_attr: r.nhid_given,
                table_unspec: false,
                ignore_dev_down: false,
            };
            let t = crate::show::EchoTarget {
                v6: true,
                table,
                dst: d,
                dst_len: dst.len,
            };
            let del_paths = if delete {
                cfg.multipath
                    .iter()
                    .map(|leg| {
                        let dev = if leg.dev != 0 { leg.dev } else { cfg.nh.dev };
                        let gw = match leg.gw.or(cfg.nh.gw) {
                            Some(Gateway::V6(g)) => Some(g),
                            _ => None,
                        };
                        (dev, gw)
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let req = crate::show::EchoRequest {
                delete,
                dev: cfg.nh.dev,
                proto: cfg.proto,
                metric: cfg.metric,
                append_paths: op == RouteOp::Append && !cfg.multipath.is_empty(),
                del_paths,
            };
            echoed(ns, opts, &t, req, |ns| {
                ns.route6_modify(op, &cfg).map_err(Failure::kernel)
            })
        }
    }
}

/// Runs a route change and, with `-echo`, returns the notification the kernel echoes
/// for it (see [`crate::show::route_echo_after`]).
fn echoed(
    ns: &mut Netns,
    opts: &Opts,
    t: &crate::show::EchoTarget,
    req: crate::show::EchoRequest,
    change: impl FnOnce(&mut Netns) -> Res<()>,
) -> Res<String> {
    if !opts.echo {
        return change(ns).map(|()| String::new());
    }
    let before = crate::show::route_echo_before(ns, t);
    // (what an earlier request left there is not this one's)
    let _ = ns.take_mpath_partial_echo();
    if let Err(e) = change(ns) {
        // an IPv6 multipath add whose later leg failed notified the legs it had
        // inserted before undoing them: iproute2 reads that notification first
        if let Some(legs) = ns.take_mpath_partial_echo().filter(|_| t.v6 && !req.delete) {
            return Ok(crate::show::route6_partial_echo(
                ns,
                &show_opts(opts),
                &before,
                &legs,
            ));
        }
        // an IPv6 deletion path by path answers with the last path's error after the
        // notifications of those that went: iproute2 takes the first message it reads,
        // a notification, as the answer and never reads the error
        if t.v6 && req.delete {
            let echo = crate::show::route_echo_after(ns, &show_opts(opts), t, &before, req);
            if !echo.is_empty() {
                return Ok(echo);
            }
        }
        return Err(e);
    }
    let echo = crate::show::route_echo_after(ns, &show_opts(opts), t, &before, req);
    // no notification: iproute2 prints the acknowledgement it read instead (nothing,
    // or `[{}]` in JSON)
    if echo.is_empty() {
        return Ok(crate::show::echo_nothing(&show_opts(opts)));
    }
    Ok(echo)
}

fn route_usage() -> String {
    crate::show::USAGE_ROUTE.to_string()
}

/// The `ip route get` keyword `raw` stands for (itself when it is none): iproute_get's
/// keywords, most by any prefix, in its order (`f` is `from`, `i` `iif`, `m` `mark`,
/// `o` `oif`, `d` `dsfield`, `dp` `dport`, `s` `sport`, `fib` `fibmatch`, `c`
/// `connected`; only `as` and `dev` must be written out); `tos` and `dsfield`
/// both give `tos`. (The CLI reads the command line again with it for the answer's
/// text, so both readings take the same words as the same keywords.)
pub fn get_keyword(raw: &str) -> &str {
    if raw == "tos" || matches(raw, "dsfield") {
        return "tos";
    }
    [
        ("from", false),
        ("iif", false),
        ("mark", false),
        ("oif", false),
        ("notify", false),
        ("connected", false),
        ("vrf", false),
        ("uid", false),
        ("fibmatch", false),
        ("as", true),
        ("sport", false),
        ("dport", false),
        ("ipproto", false),
    ]
    .iter()
    .find(|(kw, exact)| if *exact { raw == *kw } else { matches(raw, kw) })
    .map_or(raw, |(kw, _)| kw)
}

/// Whether the words of an `ip route get` after `get` ask for `connected` without
/// `from` (iproute_get then asks a second time; see the CLI).
pub fn route_get_connects(words: &[&str]) -> bool {
    let (mut connected, mut from) = (false, false);
    let mut i = 0;
    while i < words.len() {
        match get_keyword(words[i]) {
            "connected" => connected = true,
            "from" => {
                from = true;
                i += 1;
            }
            "as" if words.get(i + 1) == Some(&"to") => i += 2,
            "tos" | "iif" | "mark" | "oif" | "dev" | "vrf" | "uid" | "as" | "sport" | "dport"
            | "ipproto" | "to" => i += 1,
            _ => {}
        }
        i += 1;
    }
    connected && !from
}

/// The `ip` arguments of iproute_get's second print after `connected`: the first one
/// ended the JSON output, so the answer comes again as text (no `-j`, no `-p`).
pub fn connected_text_args(args: &[String]) -> Vec<String> {
    args.iter()
        .filter(|a| !matches!(a.as_str(), "-j" | "-json" | "-p" | "-pretty"))
        .cloned()
        .collect()
}

/// A route query asked again (iproute2's second request for `connected`, the oracle's
/// second run for a query's text): its answer, `None` when it fails this time. The
/// second lookup sees what the first left behind (`fib_select_default`'s turn).
pub fn route_get_again(ns: &mut Netns, args: &[String]) -> Option<Box<GetAnswer>> {
    match run_ip(ns, args) {
        Ok(Outcome::Get(b)) => Some(b),
        _ => None,
    }
}

/// Whether a route get's answer carries a source that `connected` can turn into the
/// second request's: `RTA_PREFSRC` (which an IPv4 input answer and an output one whose
/// source was given do not carry; a `fibmatch` answer's is the route's `src`), or else
/// `RTA_SRC`, which every IPv6 answer but a `fibmatch` one carries (`from ::` at
/// least) and a `fibmatch` one only for a source-specific route. Without either
/// iproute2 stops with "Failed to connect the route".
pub fn get_answer_connects(g: &GetAnswer) -> bool {
    match g {
        GetAnswer::V4(r, true) => r.fib.as_ref().is_some_and(|(rt, _)| rt.info.prefsrc != 0),
        GetAnswer::V4(r, false) => !r.input && r.prefsrc.is_some_and(|s| s != r.requested_src),
        GetAnswer::V6(r, true) => r
            .fib
            .first()
            .is_some_and(|rt| rt.prefsrc.is_some() || rt.src.len > 0),
        GetAnswer::V6(_, false) => true,
    }
}

fn route_get(ns: &mut Netns, opts: &Opts, args: &[String]) -> Res<GetAnswer> {
    let mut a = Args::new(args);
    let mut fam = opts.family;
    let mut dst: Option<Pfx> = None;
    let mut src: Option<Pfx> = None;
    let mut src_kw = false;
    let mut iif: Option<&str> = None;
    let mut oif: Option<&str> = None;
    let mut mark = 0u32;
    let mut tos = 0u8;
    let mut uid: Option<u32> = None;
    let mut fibmatch = false;
    let mut notify = false;
    // `as [to] ADDR` (RTA_NEWDST), which the kernel refuses in a query
    let mut newdst = false;
    let mut ipproto: Option<u8> = None;
    let mut sport = 0u16;
    let mut dport = 0u16;
    while let Some(raw) = a.next() {
        let k = get_keyword(raw);
        match k {
            "tos" | "dsfield" => {
                let v = a.val()?;
                tos = dsfield_a2n(v).ok_or_else(|| invarg("TOS value is invalid\n", v))?;
            }
            "from" => {
                let v = a.val()?;
                // iproute_get: a source that is any prefix of `help` is the usage
                if matches(v, "help") {
                    return Err(Failure::parse(route_usage(), 255));
                }
                let p = prefix_arg(v, fam)?;
                // `any`/`all` send no address; `default` only while the family is open
                src_kw = matches!(v, "any" | "all") || (v == "default" && fam.is_none());
                if fam.is_none() {
                    fam = Some(p.addr.family());
                }
                src = Some(p);
            }
            "iif" => iif = Some(a.val()?),
            "oif" | "dev" => oif = Some(a.val()?),
            "mark" => {
                let v = a.val()?;
                mark = get_u32(v, "invalid mark value")?;
            }
            "uid" => {
                let v = a.val()?;
                uid = Some(get_u32(v, "invalid UID\n")?);
            }
            "fibmatch" => fibmatch = true,
            "notify" => notify = true,
            "connected" => {}
            "as" => {
                let mut v = a.val()?;
                if v == "to" {
                    v = a.val()?;
                }
                // (`default`, `all` and `any` in any family, which they keep)
                if !matches!(v, "default" | "all" | "any") {
                    let x = parse_addr(v, fam).ok_or_else(|| bad_addr(v, fam))?;
                    if fam.is_none() {
                        fam = Some(x.family());
                    }
                }
                newdst = true;
            }
            // ipvrf_get_table: fibkit has no VRF device
            "vrf" => {
                let v = a.val()?;
                return Err(not_vrf(ns, invarg("Invalid VRF\n", v), v));
            }
            "sport" => {
                let v = a.val()?;
                sport = parse_u32(v)
                    .and_then(|x| u16::try_from(x).ok())
                    .ok_or_else(|| invarg("invalid sport\n", v))?;
            }
            "dport" => {
                let v = a.val()?;
                dport = parse_u32(v)
                    .and_then(|x| u16::try_from(x).ok())
                    .ok_or_else(|| invarg("invalid dport\n", v))?;
            }
            "ipproto" => {
                let v = a.val()?;
                ipproto =
                    Some(ipproto_a2n(v).ok_or_else(|| invarg("Invalid \"ipproto\" value\n", v))?);
            }
            _ => {
                let mut v = k;
                if v == "to" {
                    v = a.val()?;
                }
                if matches(v, "help") {
                    return Err(Failure::parse(route_usage(), 255));
                }
                let p = prefix_arg(v, fam)?;
                fam = Some(p.addr.family());
                dst = Some(p);
            }
        }
    }
    let Some(dst) = dst else {
        return Err(Failure::parse("need at least a destination address\n", 1));
    };
    alt_refused(opts)?;
    // the source's length goes to the kernel as given (the destination's was warned
    // about and made a host length): inet_rtm_valid_getroute_req and its IPv6 twin,
    // which check the header, flags and attributes of a strict request only (a
    // batch's is not: the kernel then ignores what it does not use)
    let strict = crate::names::strict();
    let header_err = |v6: bool, p: &Pfx| -> Option<Failure> {
        if !strict {
            return None;
        }
        let host = if v6 { 128 } else { 32 };
        if p.len != 0 && u32::from(p.len) != host {
            let m = if v6 {
                "ipv6: Invalid values in header for get route request"
            } else {
                "ipv4: Invalid values in header for route get request"
            };
            return Some(Failure::kernel(fibkit::Error::msg(Errno::EINVAL, m)));
        }
        // a zero length with an address (RTA_SRC; `src_kw`: none was sent)
        if p.len == 0 && !src_kw {
            let m = if v6 {
                "ipv6: rtm_src_len and rtm_dst_len must be 128 for IPv6"
            } else {
                "ipv4: rtm_src_len and rtm_dst_len must be 32 for IPv4"
            };
            return Some(Failure::kernel(fibkit::Error::msg(Errno::EINVAL, m)));
        }
        None
    };
    let iif_idx = match iif {
        Some(d) => ifindex(ns, d)?,
        None => 0,
    };
    let oif_idx = match oif {
        Some(d) => ifindex(ns, d)?,
        None => 0,
    };
    if let Some(e) = src
        .as_ref()
        .and_then(|p| header_err(matches!(dst.addr, Addr::V6(_)), p))
    {
        return Err(e);
    }
    match dst.addr {
        Addr::V4(d) => {
            let s = match src.map(|p| p.addr) {
                Some(Addr::V4(s)) => s,
                Some(Addr::V6(_)) => return Err(Failure::errno(Errno::EINVAL)),
                None => 0,
            };
            if newdst && strict {
                return Err(Failure::kernel(fibkit::Error::msg(
                    Errno::EINVAL,
                    "ipv4: Unsupported attribute in route get request",
                )));
            }
            let proto = ipproto.unwrap_or(17);
            if !matches!(proto, 1 | 6 | 17) {
                return Err(unsupported_ip_proto());
            }
            let fl = Flow4 {
                dst: d,
                src: s,
                oif: oif_idx,
                iif: iif_idx,
                mark,
                tos,
                proto,
                sport,
                dport,
                uid: uid.unwrap_or(0),
                scope: scope::UNIVERSE,
            };
            let mut r = ns
                .route_get4(&fl)
                .map_err(Failure::errno)?
                .to_owned_answer();
            // inet_rtm_getroute marks the route before a fibmatch answer is chosen
            r.notify = ns.route_get4_notify(&mut r, notify);
            // an output answer is the nexthop's cached output route
            ns.route_get4_output_cache(&mut r, notify);
            // inet_rtm_getroute: a uid the query names is reported for input lookups
            // too, unless it is INVALID_UID
            if uid.is_some() {
                r.uid = uid.filter(|&u| u != u32::MAX);
            }
            if fibmatch && r.fib.is_none() {
                return Err(Failure::errno(Errno::EHOSTUNREACH));
            }
            Ok(GetAnswer::V4(r, fibmatch))
        }
        Addr::V6(d) => {
            // inet6_rtm_valid_getroute_req: the header's flags, then the attributes
            if notify && strict {
                return Err(Failure::kernel(fibkit::Error::msg(
                    Errno::EINVAL,
                    "ipv6: Invalid flags for get route request",
                )));
            }
            if newdst && strict {
                return Err(Failure::kernel(fibkit::Error::msg(
                    Errno::EINVAL,
                    "ipv6: Unsupported attribute in get route request",
                )));
            }
            let s = match src.map(|p| p.addr) {
                Some(Addr::V6(s)) => s,
                Some(Addr::V4(_)) => return Err(Failure::errno(Errno::EINVAL)),
                None => 0,
            };
            let proto = ipproto.unwrap_or(0);
            if ipproto.is_some() && !matches!(proto, 6 | 17 | 58) {
                return Err(unsupported_ip_proto());
            }
            // inet6_rtm_getroute: RTA_OIF goes into the flow of an output lookup only;
            // an input lookup (`iif`) runs without it, so `oif` rules do not see it
            let fl = Flow6 {
                dst: d,
                src: s,
                oif: if iif_idx != 0 { 0 } else { oif_idx },
                iif: iif_idx,
                mark,
                uid: uid.unwrap_or(if iif_idx != 0 { u32::MAX } else { 0 }),
                tos,
                flowlabel: 0,
                proto,
                sport,
                dport,
            };
            // the copy in the nexthop object's fib6_nh answers (a reject route's error
            // included)
            let r = ns.route_get6_copies(&fl).map_err(Failure::errno)?;
            Ok(GetAnswer::V6(r, fibmatch))
        }
    }
}

// ------------------------------------------------------------------- rule

/// iprule.c's `usage()`, for `ip rule help` and `ip mrule help`.
const RULE_USAGE: &str = "Usage: ip rule { add | del } SELECTOR ACTION
       ip rule { flush | save | restore }
       ip rule [ list [ SELECTOR ]]
SELECTOR := [ not ] [ from PREFIX ] [ to PREFIX ] [ tos TOS ]
            [ fwmark FWMARK[/MASK] ]
            [ iif STRING ] [ oif STRING ] [ pref NUMBER ] [ l3mdev ]
            [ uidrange NUMBER-NUMBER ]
            [ ipproto PROTOCOL ]
            [ sport [ NUMBER | NUMBER-NUMBER ]
            [ dport [ NUMBER | NUMBER-NUMBER ] ]
ACTION := [ table TABLE_ID ]
          [ protocol PROTO ]
          [ nat ADDRESS ]
          [ realms [SRCREALM/]DSTREALM ]
          [ goto NUMBER ]
          SUPPRESSOR
SUPPRESSOR := [ suppress_prefixlength NUMBER ]
              [ suppress_ifgroup DEVGROUP ]
TABLE_ID := [ local | main | default | NUMBER ]
";

fn rule_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return show(ns, opts, &[], crate::show::rule_show);
    };
    let rest = &a[1..];
    let add = matches(cmd, "add");
    if add || matches(cmd, "delete") {
        let spec = parse_rule(opts, rest, add)?;
        no_packet_rules(ns, opts)?;
        let v6 = spec_family(opts, &spec) == Family::V6;
        let before = opts
            .echo
            .then(|| if opts.mc { ns.mrules(v6) } else { ns.rules(v6) }.to_vec());
        let r = match (opts.mc, add) {
            (true, true) => ns.mrule_add(v6, &spec),
            (true, false) => ns.mrule_del(v6, &spec),
            (false, true) => ns.rule_add(v6, &spec),
            (false, false) => ns.rule_del(v6, &spec),
        };
        r.map_err(Failure::kernel)?;
        return Ok(Outcome::Ok(before.map_or_else(String::new, |b| {
            crate::show::rule_echo(ns, &show_opts(opts), v6, &b, !add)
        })));
    }
    if matches(cmd, "flush") {
        let (sel, v6) =
            crate::show::rule_flush_select(ns, &show_opts(opts), rest).map_err(show_err)?;
        if opts.mc {
            ns.mrule_flush(v6, &sel).map_err(Failure::kernel)?;
        } else {
            ns.rule_flush(v6, &sel).map_err(Failure::kernel)?;
        }
        // iprule_list_flush_or_save runs the flush's dump inside a JSON array, as a
        // listing's: nothing is printed into it
        let empty = match (opts.json, opts.pretty) {
            (false, _) => "",
            (true, false) => "[]\n",
            (true, true) => "[ ]\n",
        };
        return Ok(Outcome::Ok(empty.to_string()));
    }
    if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        return show(ns, opts, rest, crate::show::rule_show);
    }
    // do_iprule: list, save, restore, add, ...: any prefix of `restore` (`r`) that is
    // not one of `save`; iprule_restore exits on a bad magic (rule_dump_check_magic)
    if matches(cmd, "restore") {
        return Err(dump_magic_mismatch(255));
    }
    if matches(cmd, "help") {
        return Err(Failure::parse(RULE_USAGE, 255));
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip rule help\".\n"),
        255,
    ))
}

/// `ip addrlabel { add | del } prefix PREFIX [ dev DEV ] label LABEL`, `list`, `flush`.
fn addrlabel_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    const USAGE: &str = "Usage: ip addrlabel { add | del } prefix PREFIX [ dev DEV ] [ label LABEL ]\n       ip addrlabel [ list | flush | help ]\n";
    let Some(cmd) = a.first().map(String::as_str) else {
        return show(ns, opts, &[], crate::show::addrlabel_show);
    };
    let rest = &a[1..];
    // only inet6 has address labels: another family's request is refused
    let refused = || Failure::kernel(fibkit::Error::new(Errno::EOPNOTSUPP));
    let add = matches(cmd, "add");
    if add || matches(cmd, "delete") {
        let (mut prefix, mut dev, mut label) = (None, 0u32, None);
        let mut i = 0;
        while i < rest.len() {
            let w = rest[i].as_str();
            let mut next = || -> Res<&str> {
                i += 1;
                rest.get(i).map(String::as_str).ok_or_else(incomplete)
            };
            match w {
                "prefix" => prefix = Some(prefix_arg(next()?, opts.family)?),
                "dev" => {
                    let v = next()?;
                    dev = ll_index(ns, v).ok_or_else(|| {
                        let mut f = Failure::parse(
                            format!("Error: argument \"{v}\" is wrong: dev is invalid\n\n"),
                            255,
                        );
                        // the name was looked up in the kernel first
                        f.errno = Some(Errno::ENODEV);
                        f
                    })?;
                }
                "label" => {
                    let v = next()?;
                    label = Some(
                        parse_u32(v)
                            .filter(|&l| l != u32::MAX)
                            .ok_or_else(|| invarg("label is invalid\n", v))?,
                    );
                }
                // other words, `help` too, are passed over (ipaddrlabel_modify)
                _ => {}
            }
            i += 1;
        }
        let Some(prefix) = prefix else {
            return Err(Failure::parse(
                "Not enough information: \"prefix\" argument is required.\n",
                1,
            ));
        };
        let Some(label) = label else {
            return Err(Failure::parse(
                "Not enough information: \"label\" argument is required.\n",
                1,
            ));
        };
        if opts.alt.is_some() || opts.family == Some(Family::V4) {
            return Err(refused());
        }
        let Addr::V6(addr) = prefix.addr else {
            // a 4-byte IFAL_ADDRESS fails the attribute policy
            return Err(Failure::kernel(fibkit::Error::msg(
                Errno::ERANGE,
                "Attribute failed policy validation",
            )));
        };
        let p = Prefix6 {
            addr,
            len: prefix.len,
        };
        let r = if add {
            ns.addrlabel_add(p, dev, label)
        } else {
            ns.addrlabel_del(p, dev)
        };
        return r
            .map(|()| Outcome::Ok(String::new()))
            .map_err(Failure::kernel);
    }
    if matches(cmd, "list") || matches(cmd, "lst") || matches(cmd, "show") {
        return show(ns, opts, rest, crate::show::addrlabel_show);
    }
    if matches(cmd, "flush") {
        if !rest.is_empty() {
            return Err(Failure::parse(
                "\"ip addrlabel flush\" does not allow extra arguments\n",
                1,
            ));
        }
        if opts.alt.is_some() || opts.family == Some(Family::V4) {
            return Err(Failure {
                stdout: String::new(),
                errno: Some(Errno::EOPNOTSUPP),
                stderr: "RTNETLINK answers: Operation not supported\nFlush terminated\n"
                    .to_string(),
                status: 1,
                exits: false,
            });
        }
        // one dump, then a delete of each entry
        for e in ns.addrlabels().to_vec() {
            ns.addrlabel_del(e.prefix, e.ifindex)
                .map_err(Failure::kernel)?;
        }
        return Ok(Outcome::Ok(String::new()));
    }
    if matches(cmd, "help") {
        return Err(Failure::parse(USAGE, 255));
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip addrlabel help\".\n"),
        255,
    ))
}

/// `get_prefix()` in a multicast family (`ip mrule`, `ip mroute`): iproute2 reads no
/// address of it, so only the words of the zero-length prefix pass.
fn mc_prefix(v: &str) -> Res<()> {
    if matches!(v, "default" | "any" | "all") {
        Ok(())
    } else {
        Err(Failure::parse(
            format!("Error: ??? prefix is expected rather than \"{v}\".\n"),
            1,
        )
        .exiting(true))
    }
}

/// `ip [-6] mrule ...` (`do_multirule`): `ip rule` on the family's multicast routing
/// rules; only inet and inet6 have them.
fn mrule_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    if let Some(alt) = opts.alt {
        return Err(Failure::parse(
            format!(
                "Multicast rules are only supported for IPv4/IPv6, was: {}\n",
                alt.af()
            ),
            255,
        ));
    }
    let opts = Opts { mc: true, ..*opts };
    rule_cmd(ns, &opts, a)
}

/// `ip netconf [show|list|lst] [dev DEV]`: the forwarding, rp_filter, proxy_neigh
/// and ignore_routes_with_linkdown settings per family and device (see
/// [`crate::show::netconf_show`]). Words other than `dev` are skipped, as ipnetconf.c
/// does; `dev` takes a name or `ifN` (iproute2's `ll_name_to_index`).
fn netconf_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let mut args = a;
    if let Some(cmd) = a.first() {
        if matches(cmd, "show") || matches(cmd, "lst") || matches(cmd, "list") {
            args = &a[1..];
        } else if matches(cmd, "help") {
            return Err(Failure::parse(
                "Usage: ip netconf show [ dev STRING ]\n",
                255,
            ));
        } else {
            return Err(Failure::parse(
                format!("Command \"{cmd}\" is unknown, try \"ip netconf help\".\n"),
                255,
            ));
        }
    }
    let mut dev = 0u32;
    let mut i = 0;
    while i < args.len() {
        if args[i] == "dev" {
            i += 1;
            let d = args.get(i).ok_or_else(incomplete)?;
            // (`filter.ifindex` is an int: an index read as negative is refused)
            dev = ll_index(ns, d)
                .filter(|&i| i <= i32::MAX as u32)
                .ok_or_else(|| Failure::parse(format!("Device \"{d}\" does not exist.\n"), 1))?;
        }
        i += 1;
    }
    let so = show_opts(opts);
    let single = dev != 0 && (opts.family.is_some() || opts.alt.is_some());
    if single && opts.alt.is_some() {
        // the other families have no netconf state: the request gets no entry
        return Ok(Outcome::Ok(String::new()));
    }
    Ok(Outcome::Ok(crate::show::netconf_show(ns, &so, dev, single)))
}

/// ipmaddr.c's `usage()`.
const USAGE_MADDR: &str =
    "Usage: ip maddr [ add | del ] MULTIADDR dev STRING\n       ip maddr show [ dev STRING ]\n";

/// `ip maddress [add|del|show|list|lst|help] ...` (ipmaddr.c's `do_multiaddr`); no
/// word lists.
fn maddr_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first() else {
        return maddr_list(ns, opts, a);
    };
    let rest = &a[1..];
    if matches(cmd, "add") {
        return maddr_modify(ns, rest, true);
    }
    if matches(cmd, "delete") {
        return maddr_modify(ns, rest, false);
    }
    if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        return maddr_list(ns, opts, rest);
    }
    if matches(cmd, "help") {
        return Err(Failure::parse(USAGE_MADDR, 255));
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip maddr help\".\n"),
        255,
    ))
}

/// `ip maddr show [[dev] NAME]` (`multiaddr_list`): any word other than `dev` is the
/// device's name (a `help` one asks for the usage), and a second one is `duparg2`'s
/// error. The name is compared with the names the kernel's files print (see
/// [`crate::show::maddr_show`]).
fn maddr_list(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let mut it = Args::new(a);
    let mut dev: Option<&str> = None;
    while let Some(w) = it.next() {
        let w = if w == "dev" {
            it.val()?
        } else if matches(w, "help") {
            return Err(Failure::parse(USAGE_MADDR, 255));
        } else {
            w
        };
        if dev.is_some() {
            return Err(dup_dev(w));
        }
        dev = Some(w);
    }
    Ok(Outcome::Ok(crate::show::maddr_show(
        ns,
        &show_opts(opts),
        dev,
    )))
}

/// `ll_addr_a2n(buf, max, s)`: the bytes read and its answer, the number of bytes
/// (`max + 1` when more than `max` colon-separated parts are given; the rest is not
/// read). A word with a dot is an IPv4 address (`get_addr_1(AF_INET)`, four bytes);
/// otherwise each part is what `sscanf("%x")` reads into an int, 0 to 255.
fn ll_addr_a2n(s: &str, max: usize) -> Res<(Vec<u8>, usize)> {
    let bad = |c: &str| Failure::parse(format!("\"{c}\" is invalid lladdr.\n"), 1);
    if s.contains('.') {
        return match crate::show::get_addr_ipv4(s).filter(|_| !s.contains(':')) {
            Some(a) => Ok((a.to_be_bytes().to_vec(), 4)),
            None => Err(bad(s)),
        };
    }
    let mut out = Vec::new();
    let mut rest = s;
    for i in 0..max {
        let (part, next) = match rest.split_once(':') {
            Some((p, n)) => (p, Some(n)),
            None => (rest, None),
        };
        // %x: strtoul's value stored into an int
        let (v, used, _) = crate::show::strtoul(part, 16);
        match u8::try_from(v as u32 as i32) {
            Ok(b) if used > 0 => out.push(b),
            _ => return Err(bad(part)),
        }
        match next {
            Some(n) => rest = n,
            None => return Ok((out, i + 1)),
        }
    }
    Ok((out, max + 1))
}

/// `ip maddr add|del [address] LLADDR dev NAME` (`multiaddr_modify`): the line is read
/// in order (an address's length is checked as it is read), then the kernel's
/// `SIOCADDMULTI`/`SIOCDELMULTI` on the device named (`dev_ioctl` ends the name at a
/// colon; an alternative name finds its device too). No address asks for
/// 00:00:00:00:00:00, which the kernel takes. The kernel's refusals are `perror("ioctl")`.
fn maddr_modify(ns: &mut Netns, a: &[String], add: bool) -> Res<Outcome> {
    let dup = |key: &str, v: &str| {
        Failure::parse(
            format!("Error: duplicate \"{key}\": \"{v}\" is the second value.\n"),
            255,
        )
    };
    let mut it = Args::new(a);
    let mut dev: Option<&str> = None;
    // ifr_hwaddr.sa_data, whose first byte tells whether an address was given
    let mut addr = [0u8; 6];
    while let Some(w) = it.next() {
        if w == "dev" {
            let v = it.val()?;
            if dev.is_some() {
                return Err(dup("dev", v));
            }
            if !crate::show::ifname_ok(v) {
                return Err(invarg("\"dev\" not a valid ifname", v));
            }
            dev = Some(v);
            continue;
        }
        let w = if matches(w, "address") { it.val()? } else { w };
        if matches(w, "help") {
            return Err(Failure::parse(USAGE_MADDR, 255));
        }
        if addr[0] != 0 {
            return Err(dup("address", w));
        }
        let (bytes, len) = ll_addr_a2n(w, 14)?;
        if len != 6 {
            return Err(Failure::parse(
                format!("Error: Invalid address length {len} - must be 6 bytes\n"),
                1,
            ));
        }
        addr.copy_from_slice(&bytes);
    }
    let Some(dev) = dev else {
        return Err(Failure::parse(
            "Not enough information: \"dev\" is required.\n",
            255,
        ));
    };
    let ioctl = |e: Errno| Failure {
        stdout: String::new(),
        errno: Some(e),
        stderr: format!("ioctl: {}\n", e.strerror()),
        status: 1,
        // multiaddr_modify: perror, then exit(1)
        exits: true,
    };
    let name = ioctl_dev_name(dev).unwrap_or(dev);
    let idx = ns.link_index(name).ok_or_else(|| ioctl(Errno::ENODEV))?;
    let r = if add {
        ns.maddr_add(idx, addr)
    } else {
        ns.maddr_del(idx, addr)
    };
    r.map_err(|e| ioctl(e.errno))?;
    Ok(Outcome::Ok(String::new()))
}

/// A `vrf NAME` argument: iproute2 asks the kernel for the link NAME by name (not
/// through the `ifN` fallback) to read its kind; fibkit has no VRF device, so the
/// answer is always `failure`, with the ENODEV of that query when no device has the
/// name or altname (the message stays iproute2's).
pub(crate) fn not_vrf(ns: &Netns, mut failure: Failure, name: &str) -> Failure {
    if ns.link_index(name).is_none() {
        failure.errno = Some(Errno::ENODEV);
    }
    failure
}

/// `ip vrf`: fibkit models no VRF device (the modelled kernel has no `vrf` driver), so
/// the listing is empty and every VRF name is invalid, as iproute2's ipvrf.c says on
/// such a kernel. `identify` looks at the process only: none is in a VRF here.
fn vrf_cmd(ns: &Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    const USAGE: &str = "Usage:\tip vrf show [NAME] ...\n\tip vrf exec [NAME] cmd ...\n\tip vrf identify [PID]\n\tip vrf pids [NAME]\n";
    let fail = |msg: &str, status: i32| Failure::parse(format!("{msg}\n"), status);
    let show = |args: &[String]| -> Res<Outcome> {
        match args {
            [] if opts.json => Ok(Outcome::Ok(
                if opts.pretty { "[ ]\n" } else { "[]\n" }.to_string(),
            )),
            [] => Ok(Outcome::Ok(
                "Name              Table\n-----------------------\nNo VRF has been configured\n"
                    .to_string(),
            )),
            // ipvrf_show returns -1: a batch goes on
            [name] => Err(not_vrf(ns, fail("Invalid VRF", 255).exiting(false), name)),
            _ => Err(Failure::parse(USAGE, 255)),
        }
    };
    let Some(cmd) = a.first() else {
        return show(&[]);
    };
    let rest = &a[1..];
    if matches(cmd, "identify") {
        return match rest {
            [] => Ok(Outcome::Ok(String::new())),
            [pid] => match pid.parse::<u32>() {
                Ok(p) if std::path::Path::new(&format!("/proc/{p}")).exists() => {
                    Ok(Outcome::Ok(String::new()))
                }
                Ok(_) => Err(fail(
                    "Failed to lookup vrf association: No such file or directory",
                    1,
                )),
                Err(_) => Err(invarg("Invalid pid\n", pid)),
            },
            [_, extra, ..] => Err(invarg("Extra arguments specified\n", extra)),
        };
    }
    if matches(cmd, "pids") {
        return Err(match rest {
            [name] => not_vrf(ns, fail("Invalid VRF name", 1), name),
            _ => fail("Invalid arguments", 1),
        });
    }
    if matches(cmd, "exec") {
        return Err(match rest {
            [] => fail("No VRF name specified", 1),
            [_] => fail("No command specified", 1),
            [name, ..] => not_vrf(ns, fail("Invalid VRF name", 255), name),
        });
    }
    if matches(cmd, "show") || matches(cmd, "lst") || matches(cmd, "list") {
        return show(rest);
    }
    if matches(cmd, "help") {
        return Err(Failure::parse(USAGE, 255));
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip vrf help\".\n"),
        255,
    ))
}

/// iproute2's `matches_color`: the colour an option asks for (`-c`, `-color`,
/// `-color=always` ask for colours; `=auto` and `=never` as said), or `None` when the
/// option is not a colour option.
fn color_option(o: &str) -> Option<&'static str> {
    let (word, value) = o.split_once('=').unwrap_or((o, ""));
    if word.len() < 2 || !"-color".starts_with(word) {
        return None;
    }
    match value {
        "" | "always" => Some("always"),
        "auto" => Some("auto"),
        "never" => Some("never"),
        _ => None,
    }
}

/// iproute2's `sscanf(name, "if%u")`: the index an `ifN` name gives (`strtoul`'s
/// value kept in 32 bits: a sign wraps it, an overflow saturates), `None` when the name
/// is not of that form.
pub(super) fn if_name_number(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("if")?.trim_start();
    let (neg, digits) = match rest.as_bytes().first() {
        Some(b'-') => (true, &rest[1..]),
        Some(b'+') => (false, &rest[1..]),
        _ => (false, rest),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    // strtoul saturates (ERANGE) whatever the sign
    let v = match digits[..end].parse::<u64>() {
        Ok(v) if neg => v.wrapping_neg(),
        Ok(v) => v,
        Err(_) => u64::MAX,
    };
    Some((v & 0xffff_ffff) as u32)
}

/// iproute2's `ll_name_to_index`, which every `dev`-like argument goes through: the
/// device of that name or alternative name (`ll_link_get`), else the device
/// `if_nametoindex` finds, whose `SIOCGIFINDEX` ioctl cuts the name at its first `:`
/// (`dev_ioctl`: an old alias label, so `d0:1` is `d0`), else the `ifN` form (see
/// [`if_name_number`]) whether or not a device has that index; `None` for index 0,
/// which iproute2 reports as `Cannot find device`. A caller handing the index to the
/// kernel must answer for an index no device has as the kernel would.
pub fn ll_index(ns: &Netns, name: &str) -> Option<u32> {
    if let Some(i) = ns.link_index(name) {
        return Some(i);
    }
    // the kernel's answer to the lookup by name, ENODEV, is the last errno so far
    crate::names::note_ifn_probe();
    if let Some(i) = ioctl_dev_name(name).and_then(|n| ns.link_index(n)) {
        return Some(i);
    }
    if_name_number(name).filter(|&i| i != 0)
}

/// The device name an ioctl on `name` looks up when it differs from `name`:
/// `dev_ioctl` cuts the request's name at its first `:` (the alias label of old
/// IPv4 address aliases). glibc's `if_nametoindex` sends no name of `IFNAMSIZ`
/// bytes or more; no device name holds a `:` (`dev_valid_name`).
pub(crate) fn ioctl_dev_name(name: &str) -> Option<&str> {
    if name.len() >= 16 {
        return None;
    }
    name.split_once(':').map(|(head, _)| head)
}

/// `ip [-6] mroute [show|list] [[to] PREFIX] [from PREFIX] [iif DEV] [table ID]`: the
/// multicast routes, of which fibkit has none (no multicast routing daemon can run in
/// it), from the family's existing multicast tables (IPv4: `default`; IPv6: `main`).
fn mroute_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    const USAGE: &str = "Usage: ip mroute show [ [ to ] PREFIX ] [ from PREFIX ] [ iif DEVICE ]\n                      [ table TABLE_ID ]\nTABLE_ID := [ local | main | default | all | NUMBER ]\n";
    let usage = || Failure::parse(USAGE, 255);
    let mut args = a;
    if let Some(cmd) = a.first() {
        if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
            args = &a[1..];
        } else if matches(cmd, "help") {
            return Err(usage());
        } else {
            return Err(Failure::parse(
                format!("Command \"{cmd}\" is unknown, try \"ip mroute help\".\n"),
                255,
            ));
        }
    }
    // other preferred families have no multicast table: nothing is listed
    let v6 = match (opts.alt, opts.family) {
        (Some(_), _) => return Ok(Outcome::Ok(String::new())),
        (None, Some(Family::V6)) => true,
        (None, _) => false,
    };
    // iproute2's table: IPv4 `default` unless named (for backward compatibility),
    // every table for IPv6; 0 (all) is not sent
    let mut table = if v6 { 0u32 } else { tid::DEFAULT };
    let mut iif = None;
    let mut i = 0;
    while i < args.len() {
        let w = args[i].as_str();
        let mut next = || -> Res<&str> {
            i += 1;
            args.get(i).map(String::as_str).ok_or_else(incomplete)
        };
        if matches(w, "table") {
            let v = next()?;
            match crate::names::table_a2n(v) {
                Some(t) => table = t,
                None if v == "all" => table = 0,
                None if v == "help" => return Err(usage()),
                None => {
                    return Err(Failure::parse(
                        format!("Error: argument \"{v}\" is wrong: table id value is invalid\n\n"),
                        255,
                    ))
                }
            }
        } else if w == "iif" {
            iif = Some(next()?.to_string());
        } else if matches(w, "from") {
            mc_prefix(next()?)?;
        } else {
            let v = if w == "to" { next()? } else { w };
            if matches(v, "help") {
                return Err(usage());
            }
            mc_prefix(v)?;
        }
        i += 1;
    }
    if let Some(d) = iif {
        if ll_index(ns, &d).is_none() {
            return Err(nodev(&d));
        }
    }
    // the empty JSON array, as json_writer prints it (`-p`: with a space)
    let empty = match (opts.json, opts.pretty) {
        (false, _) => "",
        (true, false) => "[]\n",
        (true, true) => "[ ]\n",
    };
    if !ns.kernel.mroute(v6) {
        // no multicast routing: the request goes to every family's route dump
        // (rtnl_dump_all: IPv4's, then IPv6's, each of the table asked for, or all), and
        // iproute2 stops at the first route that is not a multicast one
        let other = |t: RouteType| t != RouteType::Multicast;
        // a dump without strict checking (a batch's) is of every table
        let table = if crate::names::strict() { table } else { 0 };
        let v4 = ns
            .tables4()
            .filter(|t| table == 0 || t.id == table)
            .any(|t| t.iter().any(|r| other(r.rtype)));
        let v6r = ns
            .tables6()
            .filter(|t| table == 0 || t.id == table)
            .any(|t| t.lists().flatten().any(|r| other(r.rtype)));
        if v4 || v6r {
            return Err(Failure {
                stdout: empty.to_string(),
                errno: None,
                stderr: "Non multicast route received, kernel does support IP multicast?\nDump terminated\n".into(),
                status: 1,
                // mroute_list: exit(1) after a failed dump
                exits: true,
            });
        }
        return Ok(Outcome::Ok(empty.to_string()));
    }
    // ipmr_rtm_dumproute: a table named in a strict request must exist
    let exists =
        table == 0 || table == if v6 { tid::MAIN } else { tid::DEFAULT } || !crate::names::strict();
    if !exists {
        return Err(Failure {
            stdout: empty.to_string(),
            errno: None,
            stderr: format!(
                "Error: {}: MR table does not exist.\nDump terminated\n",
                if v6 { "ipv6" } else { "ipv4" }
            ),
            status: 1,
            exits: true,
        });
    }
    Ok(Outcome::Ok(empty.to_string()))
}

/// `fib_nl_newrule`/`fib_nl_delrule` of an AF_PACKET rule (`-0`), or of a multicast
/// family whose multicast routing the kernel was built without: no rules of that family.
fn no_packet_rules(ns: &Netns, opts: &Opts) -> Res<()> {
    let no_mc = opts.mc && !ns.kernel.mroute(opts.family == Some(Family::V6));
    if opts.alt.is_some() || no_mc {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EAFNOSUPPORT,
            "Rule family not supported",
        )));
    }
    Ok(())
}

/// iproute2 sends rules of an unspecified family as AF_INET (even with IPv6 selectors,
/// which the kernel then refuses).
fn spec_family(opts: &Opts, _spec: &RuleSpec) -> Family {
    opts.family.unwrap_or(Family::V4)
}

fn rule_prefix(v: &str, fam: Option<Family>, mc: bool) -> Res<RulePrefix> {
    if mc {
        mc_prefix(v)?;
        return Ok(if fam == Some(Family::V6) {
            RulePrefix::V6(Prefix6 { addr: 0, len: 0 })
        } else {
            RulePrefix::V4(Prefix4 { addr: 0, len: 0 })
        });
    }
    let p = prefix_arg(v, fam)?;
    // a zero-length selector is no selector (the kernel ignores the address)
    Ok(match p.addr {
        Addr::V4(a) => RulePrefix::V4(Prefix4 {
            addr: a,
            len: p.len,
        }),
        Addr::V6(a) => RulePrefix::V6(Prefix6 {
            addr: a,
            len: p.len,
        }),
    })
}

/// `sscanf("%hu-%hu")`: a number, optionally `-` and a second one (a single number
/// is a one-port range). glibc reads each as `strtoul` does: blanks, a sign (a negative
/// number wraps), decimal digits (too many saturate), then keeps the low 16 bits.
fn parse_port_range(v: &str, msg: &str) -> Res<Range> {
    fn hu(s: &str) -> Option<(u32, &str)> {
        let (x, n, overflow) = crate::show::strtoul(s, 10);
        // an overflow is ULONG_MAX, negated or not
        let x = if overflow { u64::MAX } else { x };
        (n > 0).then(|| ((x & 0xffff) as u32, &s[n..]))
    }
    let (start, rest) = hu(v).ok_or_else(|| invarg(msg, v))?;
    let end = rest
        .strip_prefix('-')
        .and_then(hu)
        .map_or(start, |(e, _)| e);
    Ok(Range { start, end })
}

fn parse_rule(opts: &Opts, args: &[String], add: bool) -> Res<RuleSpec> {
    let mut s = RuleSpec::default();
    let fam = opts.family;
    if add {
        s.action = Some(RuleAction::Lookup(0));
    }
    let mut table_ok = false;
    let mut tid = 0u32;
    let mut nat = false;
    // a stale ERANGE left by the `sscanf` of an earlier range (`get_u64` reads it)
    let mut erange = false;
    // the FRA_TABLE attribute (the last table of 256 or more)
    let mut fra_table = None;
    if args.is_empty() {
        let verb = if add { "add" } else { "del" };
        return Err(Failure::parse(
            format!("\"ip rule {verb}\" requires arguments.\n"),
            1,
        ));
    }
    let mut a = Args::new(args);
    while let Some(raw) = a.next() {
        let k = rule_keyword(raw);
        match k {
            "not" => s.invert = true,
            "from" => {
                // the family stays `-4`/`-6`'s (or IPv4): an address of the other one
                // is the kernel's to refuse, unless its length is 0
                let v = a.val()?;
                let p = rule_prefix(v, fam, opts.mc)?;
                s.src = Some(p);
            }
            "to" => {
                // the family stays `-4`/`-6`'s (or IPv4): an address of the other one
                // is the kernel's to refuse, unless its length is 0
                let v = a.val()?;
                let p = rule_prefix(v, fam, opts.mc)?;
                s.dst = Some(p);
            }
            "preference" | "order" | "priority" => {
                let v = a.val()?;
                s.pref = Some(get_u32(v, "preference value is invalid\n")?);
            }
            "tos" | "dsfield" => {
                let v = a.val()?;
                s.tos = Some(dsfield_a2n(v).ok_or_else(|| invarg("TOS value is invalid\n", v))?);
            }
            "fwmark" => {
                let v = a.val()?;
                let (m, mask) = match v.split_once('/') {
                    Some((m, k)) => (m, Some(k)),
                    None => (v, None),
                };
                s.mark = Some(parse_u32(m).ok_or_else(|| invarg("fwmark value is invalid\n", m))?);
                if let Some(k) = mask {
                    s.mask =
                        Some(parse_u32(k).ok_or_else(|| invarg("fwmask value is invalid\n", k))?);
                }
            }
            "realms" => {
                let v = a.val()?;
                let r = crate::show::get_rt_realms_or_raw(v)
                    .ok_or_else(|| invarg("invalid realms\n", v))?;
                s.realms = Some(r);
            }
            "protocol" => {
                let v = a.val()?;
                s.protocol =
                    Some(proto_a2n(v).ok_or_else(|| invarg("\"protocol\" value is invalid\n", v))?);
            }
            "table" | "lookup" => {
                let v = a.val()?;
                let t = table_a2n(v).ok_or_else(|| invarg("invalid table ID\n", v))?;
                // a table of 256 or more goes in FRA_TABLE, which stays when a later
                // word sets the header's table, and the kernel reads it first
                if t >= 256 {
                    fra_table = Some(t);
                }
                s.table = Some(t);
                tid = t;
                table_ok = true;
            }
            "suppress_prefixlength" | "sup_pl" => {
                let v = a.val()?;
                // iprule_modify's get_s32 (strtol base 0: `010` is 8, `0x8` and ` 8` read)
                let n: i32 = crate::names::parse_int(v)
                    .map(|x| x as i32)
                    .filter(|n| *n >= 0)
                    .ok_or_else(|| invarg("suppress_prefixlength value is invalid\n", v))?;
                s.suppress_prefixlen = Some(n);
            }
            "suppress_ifgroup" | "sup_group" => {
                let v = a.val()?;
                let g = crate::show::group_a2n(v)
                    .ok_or_else(|| invarg("Invalid \"suppress_ifgroup\" value\n", v))?;
                s.suppress_ifgroup = Some(g as i32);
            }
            "dev" | "iif" | "oif" => {
                let v = a.val()?;
                if !crate::show::ifname_ok(v) {
                    let what = if k == "oif" {
                        "\"oif\""
                    } else {
                        "\"iif\"/\"dev\""
                    };
                    return Err(invarg(&format!("{what} not a valid ifname"), v));
                }
                if k == "oif" {
                    s.oif = Some(v.to_string());
                } else {
                    s.iif = Some(v.to_string());
                }
            }
            "l3mdev" => {
                s.l3mdev = true;
                table_ok = true;
            }
            "uidrange" => {
                let v = a.val()?;
                // iprule_modify's sscanf("%u-%u"): decimal, blanks and a sign before each
                // number, whatever follows the second ignored (`5-10x` is 5-10)
                let (n, x, y) = crate::show::scan_range(v, 32);
                erange = crate::show::scan_range_erange(v, erange);
                if n != 2 {
                    return Err(invarg("invalid UID range\n", v));
                }
                s.uid = Some(Range { start: x, end: y });
            }
            "ipproto" => {
                let v = a.val()?;
                s.ipproto =
                    Some(ipproto_a2n(v).ok_or_else(|| invarg("Invalid \"ipproto\" value\n", v))?);
            }
            "sport" => {
                let v = a.val()?;
                erange = crate::show::scan_range_erange(v, erange);
                s.sport = Some(parse_port_range(v, "invalid port range\n")?);
            }
            "dport" => {
                let v = a.val()?;
                erange = crate::show::scan_range_erange(v, erange);
                s.dport = Some(parse_port_range(v, "invalid dport range\n")?);
            }
            "tun_id" => {
                let v = a.val()?;
                s.tun_id = Some(
                    crate::names::get_u64_errno(v, erange)
                        .ok_or_else(|| invarg("\"tun_id\" value is invalid\n", v))?,
                );
            }
            "nat" | "map-to" => {
                let v = a.val()?;
                // get_addr32()
                parse_v4(v).ok_or_else(|| {
                    Failure::parse(
                        format!("Error: an IP address is expected rather than \"{v}\"\n"),
                        1,
                    )
                    .exiting(true)
                })?;
                s.action = Some(RuleAction::Other(10));
                nat = true;
            }
            _ => {
                let mut v = k;
                if v == "type" {
                    v = a.val()?;
                }
                // iprule_modify: any prefix of `help` is the usage
                if matches(v, "help") {
                    return Err(Failure::parse(RULE_USAGE, 255));
                }
                if matches(v, "goto") {
                    let v = a.val()?;
                    let t = get_u32(v, "invalid target\n")?;
                    s.goto = Some(t);
                    s.action = Some(RuleAction::Goto(t));
                    table_ok = true;
                    continue;
                }
                if matches(v, "nop") {
                    s.action = Some(RuleAction::Nop);
                    table_ok = true;
                    continue;
                }
                let t = crate::names::rtntype_a2n(v)
                    .ok_or_else(|| invarg("Failed to parse rule type", v))?;
                // the route type's number is the rule's action (FR_ACT_*)
                s.action = Some(match t {
                    1 => RuleAction::Lookup(0),
                    2 => RuleAction::Goto(u32::MAX),
                    3 => RuleAction::Nop,
                    6 => RuleAction::Blackhole,
                    7 => RuleAction::Unreachable,
                    8 => RuleAction::Prohibit,
                    x => RuleAction::Other(x),
                });
                // iprule_modify sets table_ok after any type: `unicast` without a
                // table asks for table 0 (the kernel picks an empty one)
                table_ok = true;
                // action 0 (FR_ACT_UNSPEC): a delete then matches any action
                // (`rule_find`)
                if t == 0 && !add {
                    s.action = None;
                }
                // type 2 (`local`) is FR_ACT_GOTO: the kernel asks for a target
                // (`FRA_GOTO`) only once the whole request is read, so an earlier or a
                // later `goto N` gives it one (`fib_nl2rule`)
            }
        }
    }
    // frh_get_table: FRA_TABLE, when sent, over the header's table
    if fra_table.is_some() {
        s.table = fra_table;
    }
    // a zero-length selector is none: the kernel reads no address for it
    // (`fib_nl2rule`), whatever its family
    for p in [&mut s.src, &mut s.dst] {
        if p.as_ref().is_some_and(RulePrefix::is_empty) {
            *p = None;
        }
    }
    // iprule_modify returns -EINVAL here: exit status 22
    if s.l3mdev && tid != 0 {
        return Err(Failure::parse(
            "table can not be specified for l3mdev rules\n",
            22,
        ));
    }
    if add && nat && !table_ok {
        // a nat rule keeps iproute2's default table
        s.table = Some(tid::MAIN);
    }
    if add {
        if let Some(RuleAction::Lookup(_)) = s.action {
            let t = if table_ok {
                s.table.unwrap_or(0)
            } else {
                tid::MAIN
            };
            s.action = Some(RuleAction::Lookup(t));
            s.table = Some(t);
        }
    } else if let (Some(t), None) = (s.table, s.action) {
        // a delete naming a table selects lookup rules of that table
        s.table = Some(t);
    }
    Ok(s)
}

// ------------------------------------------------------------------- addr

fn addr_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return show(ns, opts, &[], crate::show::addr_show);
    };
    let rest = &a[1..];
    // do_ipaddr's order: add (NLM_F_CREATE|NLM_F_EXCL), change (NLM_F_REPLACE), replace
    // (NLM_F_CREATE|NLM_F_REPLACE); the kernel creates a missing address either way
    let modify = if matches(cmd, "add") {
        Some((true, false))
    } else if matches(cmd, "change") || cmd == "chg" || matches(cmd, "replace") {
        Some((true, true))
    } else if matches(cmd, "delete") {
        Some((false, false))
    } else {
        None
    };
    if let Some((add, replace)) = modify {
        let before = opts.echo.then(|| crate::show::addr_echo_before(ns));
        let changed = addr_modify(ns, opts, rest, add, replace)?;
        let echo = before.map_or_else(String::new, |b| {
            crate::show::addr_echo_after(ns, &show_opts(opts), &b, changed, !add)
        });
        return Ok(Outcome::Ok(echo));
    }
    if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        return show(ns, opts, rest, crate::show::addr_show);
    }
    if matches(cmd, "flush") {
        // ipaddr_flush(): rounds of "dump through the filter, delete what it shows", until
        // a round finds nothing (deleting a primary address takes its subnet's
        // secondaries, or promotes one, which the next round then finds); errors of
        // single deletions do not stop it. `-s` counts the rounds, `-s -s` also prints
        // each address a round takes
        let so = show_opts(opts);
        let mut out = String::new();
        let done = |round: usize, out: &mut String| {
            if opts.stats > 0 {
                out.push_str(&if round == 0 {
                    "Nothing to flush.\n".to_string()
                } else {
                    let s = if round > 1 { "s" } else { "" };
                    format!("*** Flush is complete after {round} round{s} ***\n")
                });
            }
        };
        for round in 0..10 {
            let (found, primary_only, printed) =
                crate::show::addr_flush_dump(ns, &so, rest, opts.stats > 1)
                    .map_err(show_err)
                    .map_err(|f| Failure {
                        stdout: format!("{out}{}", f.stdout),
                        ..f
                    })?;
            if found.is_empty() {
                done(round, &mut out);
                return Ok(Outcome::Ok(out));
            }
            out.push_str(&printed);
            let n = found.len();
            for a in found {
                let _ = match a {
                    crate::show::FlushAddr::V4(dev, local, plen, addr) => {
                        ns.addr4_del(dev, Some(local), Some(plen), addr, None)
                    }
                    crate::show::FlushAddr::V6(dev, addr, plen) => {
                        ns.addr6_del(dev, addr, Some(plen))
                    }
                };
            }
            if opts.stats > 0 {
                out.push_str(&format!(
                    "\n*** Round {}, deleting {n} addresses ***\n",
                    round + 1
                ));
            }
            if primary_only {
                done(round + 1, &mut out);
                return Ok(Outcome::Ok(out));
            }
        }
        return Err(Failure {
            stdout: out,
            ..Failure::parse("*** Flush remains incomplete after 10 rounds. ***\n", 1)
        });
    }
    // `save` comes first in do_ipaddr's order (a binary dump: left unknown)
    if !matches(cmd, "save") && (matches(cmd, "showdump") || matches(cmd, "restore")) {
        // ipaddr_showdump and ipaddr_restore exit(-1) on a bad magic
        return Err(dump_magic_mismatch(255));
    }
    if matches(cmd, "help") {
        return Err(Failure::parse(crate::show::USAGE_ADDR, 255));
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip address help\".\n"),
        255,
    ))
}

/// The address flags iproute2's `ipaddr_modify` knows by name: mask, read-only (a
/// warning, nothing set), IPv6-only (a warning unless the family is already IPv6 when
/// the word is read).
const ADDR_FLAG_WORDS: [(&str, u32, bool, bool); 13] = [
    ("secondary", ifa::SECONDARY, true, false),
    ("temporary", ifa::SECONDARY, true, false),
    ("nodad", ifa::NODAD, false, true),
    ("optimistic", ifa::OPTIMISTIC, false, true),
    ("dadfailed", ifa::DADFAILED, true, true),
    ("home", ifa::HOMEADDRESS, false, true),
    ("deprecated", ifa::DEPRECATED, true, true),
    ("tentative", ifa::TENTATIVE, true, true),
    ("permanent", ifa::PERMANENT, true, true),
    ("mngtmpaddr", ifa::MANAGETEMPADDR, false, true),
    ("noprefixroute", ifa::NOPREFIXROUTE, false, false),
    ("autojoin", ifa::MCAUTOJOIN, false, false),
    ("stable-privacy", ifa::STABLE_PRIVACY, true, true),
];

/// What iproute2 prints on stderr while it reads a command line that then goes on:
/// the address flags it will not send (read-only ones, IPv6-only ones before the family
/// is known to be IPv6) and a rule's deprecated `nat`. Empty for other commands.
pub fn parse_warnings(argv: &[String]) -> String {
    // after a success every device the line named exists; what the request's
    // building printed (see `names::note_parse_stderr`) came first
    crate::names::take_parse_stderr() + &parse_warnings_in(&|_| Some(1), argv)
}

/// [`parse_warnings`] with `resolve` naming the devices that exist.
fn parse_warnings_in(resolve: &dyn Fn(&str) -> Option<u32>, argv: &[String]) -> String {
    let n = global_options(argv).0;
    let mut fam: Option<Family> = None;
    let mut k = 0;
    while k < n {
        let w = argv[k].as_str();
        let o = w
            .strip_prefix('-')
            .filter(|x| x.starts_with('-'))
            .unwrap_or(w);
        match o {
            "-4" => fam = Some(Family::V4),
            "-6" => fam = Some(Family::V6),
            "-0" | "-M" | "-B" => fam = None,
            _ if o.len() > 1 && "-family".starts_with(o) => {
                k += 1;
                fam = match argv.get(k).map(String::as_str) {
                    Some("inet") => Some(Family::V4),
                    Some("inet6") => Some(Family::V6),
                    _ => None,
                };
            }
            _ => {}
        }
        k += 1;
    }
    let words = &argv[n..];
    let (Some(obj), Some(cmd)) = (words.first(), words.get(1)) else {
        return String::new();
    };
    let mut out = String::new();
    let rule = matches(obj, "rule") || (obj.len() >= 3 && matches(obj, "mrule"));
    if rule && (matches(cmd, "add") || matches(cmd, "delete")) {
        // the warning comes once the address after the keyword is there
        // (`type nat` is a type, not the keyword)
        for (i, w) in words[2..].windows(2).enumerate() {
            let after_type = i > 0 && words[2 + i - 1] == "type";
            if !after_type && matches!(rule_keyword(&w[0]), "nat" | "map-to") {
                out += "Warning: route NAT is deprecated\n";
            }
        }
        return out;
    }
    // (`replace`, tried after the others, is a creation too: NLM_F_CREATE)
    let create = matches(cmd, "add")
        || (!matches(cmd, "set") && !matches(cmd, "change") && matches(cmd, "replace"));
    if matches(obj, "link") && (create || matches(cmd, "set") || matches(cmd, "change")) {
        if let Some(p) = words.iter().position(|w| w == "type") {
            let kind = words.get(p + 1).map(String::as_str);
            // a new VXLAN device without a destination port (printed once the line is
            // read)
            if kind == Some("vxlan") && create && vxlan_port_warning(resolve, &words[p + 2..]) {
                out += VXLAN_PORT_WARNING;
            }
            // a macvlan's `macaddr set` word that is not an address
            if let Some(k @ ("macvlan" | "macvtap")) = kind {
                let _ = macvlan_parse_opt(&mut Args::new(&words[p + 2..]), k, &mut out);
            }
        }
        return out;
    }
    let modify = matches(cmd, "add")
        || matches(cmd, "change")
        || cmd == "chg"
        || matches(cmd, "replace")
        || matches(cmd, "delete");
    if !(matches(obj, "address") && modify) {
        return out;
    }
    let delete = matches(cmd, "delete");
    // `ipaddr_modify`'s loop, to the word where it gives up (a bad or repeated value,
    // a missing one): the warnings of the flag words read before that point
    let mut local: Option<&str> = None;
    let (mut peer, mut brd, mut any, mut valid, mut preferred) =
        (false, false, false, false, false);
    let mut dev = false;
    let mut a = words[2..].iter().map(String::as_str);
    // get_addr: an address of the family, or `default`/`all`/`any` (which leave the
    // family as it is)
    let addr_ok = |v: &str, fam: Option<Family>| {
        matches!(v, "default" | "all" | "any") || parse_addr(v, fam).is_some()
    };
    let lifetime_ok = |v: &str| v == "forever" || parse_u32(v).is_some();
    let completed = loop {
        let Some(k) = a.next() else { break true };
        if k == "peer" || k == "remote" {
            let Some(v) = a.next() else { break false };
            let Some(p) = (!peer).then(|| parse_prefix(v, fam)).flatten() else {
                break false;
            };
            // (an address of no length leaves `peer_len` 0 and the family open)
            if !addr_of_no_length(v, fam) {
                fam.get_or_insert(p.addr.family());
                peer = true;
            }
        } else if matches(k, "broadcast") || k == "brd" {
            let Some(v) = a.next() else { break false };
            if brd {
                break false;
            }
            if v != "+" && v != "-" {
                if !addr_ok(v, fam) {
                    break false;
                }
                if let Some(x) = parse_addr(v, fam) {
                    fam.get_or_insert(x.family());
                }
            }
            // an address of no length is no broadcast address to iproute2's count
            brd = !addr_of_no_length(v, fam);
        } else if k == "anycast" {
            let Some(v) = a.next() else { break false };
            if any || !addr_ok(v, fam) {
                break false;
            }
            if let Some(x) = parse_addr(v, fam) {
                fam.get_or_insert(x.family());
            }
            any = true;
        } else if k == "scope" {
            if a.next().and_then(scope_a2n).is_none() {
                break false;
            }
        } else if k == "dev" || k == "label" {
            if a.next().is_none() {
                break false;
            }
            dev |= k == "dev";
        } else if matches(k, "metric") || matches(k, "priority") || matches(k, "preference") {
            if a.next().and_then(parse_u32).is_none() {
                break false;
            }
        } else if matches(k, "valid_lft") || matches(k, "preferred_lft") {
            let seen = if matches(k, "valid_lft") {
                &mut valid
            } else {
                &mut preferred
            };
            if *seen || !a.next().is_some_and(lifetime_ok) {
                break false;
            }
            *seen = true;
        } else if let Some(&(name, _, ro, v6only)) = ADDR_FLAG_WORDS.iter().find(|f| f.0 == k) {
            if ro {
                out += &format!("Warning: {name} option is not mutable from userspace\n");
            } else if v6only && fam != Some(Family::V6) {
                out += &format!("Warning: {name} option can be set only for IPv6 addresses\n");
            }
        } else {
            let v = if k == "local" {
                match a.next() {
                    Some(v) => v,
                    None => break false,
                }
            } else {
                k
            };
            if matches(v, "help") || local.is_some() {
                break false;
            }
            let Some(p) = parse_prefix(v, fam) else {
                break false;
            };
            // (an address of no length leaves `local_len` 0 and the family open)
            if !addr_of_no_length(v, fam) {
                fam.get_or_insert(p.addr.family());
                local = Some(v);
            }
        }
    };
    if !completed || !dev {
        return out;
    }
    // an IPv4 delete by the local address alone: a wildcard deletion
    if let (true, false, Some(l), None) = (delete, peer, local, crate::names::alt()) {
        if !l.contains('/') && parse_v4(l).is_some() {
            out += &format!(
                "Warning: Executing wildcard deletion to stay compatible with old scripts.\n         Explicitly specify the prefix length ({l}/32) to avoid this warning.\n         This special behaviour is likely to disappear in further releases,\n         fix your scripts!\n"
            );
        }
    }
    out
}

/// `ip addr add|change|replace|del` (`ipaddr_modify`): the line read in order, the
/// family set by `-4`/`-6` or the first address read; a peer gives the prefix length
/// (falling back to the local address's when it has none); `brd +`/`-` are computed from
/// the peer (or local) address and its own length; then the kernel's side
/// (`inet_rtm_newaddr`/`inet6_rtm_newaddr` and their deletes).
/// An address change; returns the IPv4 address an add, change or replace was about
/// (device, local address, prefix length), for `-echo`.
fn addr_modify(
    ns: &mut Netns,
    opts: &Opts,
    args: &[String],
    add: bool,
    replace: bool,
) -> Res<Option<(u32, u32, u8)>> {
    let dup = |key: &str, v: &str| {
        Failure::parse(
            format!("Error: duplicate \"{key}\": \"{v}\" is the second value.\n"),
            255,
        )
    };
    let mut a = Args::new(args);
    let mut fam = opts.family;
    let mut local: Option<Pfx> = None;
    let mut peer: Option<Pfx> = None;
    let mut dev: Option<&str> = None;
    // `brd`: +1 all host bits set, -1 cleared, or an address
    let mut brd: Option<Result<Addr, i8>> = None;
    let mut anycast = false;
    let mut empty_brd = false;
    // an IFA_LOCAL or IFA_ADDRESS of no length (`any`, `all`, `default` of no family
    // yet), which both families' attribute policies refuse
    let mut empty_addr = false;
    let mut sc: Option<u8> = None;
    let mut metric = 0u32;
    let mut flags = 0u32;
    let mut label: Option<String> = None;
    // each `label` adds an IFA_LABEL attribute, and the policy checks every one
    // (conformance scenario 476)
    let mut long_label = false;
    // set_lifetime: `forever` or seconds (iproute2's defaults: forever)
    let (mut valid_lft, mut preferred_lft): (Option<u32>, Option<u32>) = (None, None);
    while let Some(k) = a.next() {
        match k {
            "peer" | "remote" => {
                let v = a.val()?;
                if peer.is_some() {
                    return Err(dup("peer", v));
                }
                let p = prefix_arg(v, fam)?;
                // ipaddr_modify counts the bytes read (`peer_len`): a peer of no length
                // is no peer to a second `peer` word, and leaves the family open
                if addr_of_no_length(v, fam) {
                    empty_addr = true;
                    continue;
                }
                fam.get_or_insert(p.addr.family());
                peer = Some(p);
            }
            _ if k == "brd" || (!k.is_empty() && "broadcast".starts_with(k)) => {
                let v = a.val()?;
                if brd.is_some() {
                    return Err(dup("broadcast", v));
                }
                // get_addr: `all`/`any` (and `default` of no family yet) have no length,
                // which IPv4's attribute policy refuses (and which leaves room for a
                // second `brd`: iproute2 counts the length); `default` is the zero
                // address of a known family
                if addr_of_no_length(v, fam) {
                    empty_brd = true;
                    continue;
                }
                brd = Some(match v {
                    "+" => Err(1),
                    "-" => Err(-1),
                    "default" if fam == Some(Family::V6) => Ok(Addr::V6(0)),
                    "default" => Ok(Addr::V4(0)),
                    _ => {
                        let x = parse_addr(v, fam).ok_or_else(|| bad_addr(v, fam))?;
                        fam.get_or_insert(x.family());
                        Ok(x)
                    }
                });
            }
            "anycast" => {
                let v = a.val()?;
                if anycast {
                    return Err(dup("anycast", v));
                }
                // (`all`, `any` and `default` leave the family as it is; the kernel
                // reads no anycast address of an add anyway)
                if !matches!(v, "all" | "any" | "default") {
                    let x = parse_addr(v, fam).ok_or_else(|| bad_addr(v, fam))?;
                    fam.get_or_insert(x.family());
                }
                anycast = true;
            }
            "scope" => {
                let v = a.val()?;
                sc = Some(scope_a2n(v).ok_or_else(|| invarg("invalid scope value.", v))?);
            }
            "dev" => dev = Some(a.val()?),
            "label" => {
                let l = a.val()?.to_string();
                long_label |= l.len() > 15;
                label = Some(l);
            }
            _ if matches(k, "metric") || matches(k, "priority") || matches(k, "preference") => {
                let v = a.val()?;
                metric = get_u32(v, "\"metric\" value is invalid\n")?;
            }
            _ if matches(k, "valid_lft") || matches(k, "preferred_lft") => {
                let valid = matches(k, "valid_lft");
                let (slot, key) = if valid {
                    (&mut valid_lft, "valid_lft")
                } else {
                    (&mut preferred_lft, "preferred_lft")
                };
                if slot.is_some() {
                    // duparg() before NEXT_ARG(): the keyword is its own "second value"
                    return Err(dup(key, k));
                }
                let v = a.val()?;
                let t = if v == "forever" {
                    Some(u32::MAX)
                } else {
                    parse_u32(v)
                };
                *slot = Some(t.ok_or_else(|| invarg(&format!("{key} value"), v))?);
            }
            _ if ADDR_FLAG_WORDS.iter().any(|f| f.0 == k) => {
                let &(_, mask, ro, v6only) =
                    ADDR_FLAG_WORDS.iter().find(|f| f.0 == k).expect("found");
                // the warnings themselves: `parse_warnings`
                if !(ro || (v6only && fam != Some(Family::V6))) {
                    flags |= mask;
                }
            }
            _ => {
                let mut v = k;
                if v == "local" {
                    v = a.val()?;
                }
                // ipaddr_modify: any prefix of `help` is the usage
                if matches(v, "help") {
                    return Err(Failure::parse(crate::show::USAGE_ADDR, 255));
                }
                if local.is_some() {
                    return Err(Failure::parse(
                        format!("Error: either \"local\" is duplicate, or \"{v}\" is a garbage.\n"),
                        255,
                    ));
                }
                let p = prefix_arg(v, fam)?;
                // `local_len` likewise: a local address of no length is no local
                // address to a second one
                if addr_of_no_length(v, fam) {
                    empty_addr = true;
                    continue;
                }
                fam.get_or_insert(p.addr.family());
                local = Some(p);
            }
        }
    }
    let Some(d) = dev else {
        return Err(Failure::parse(
            "Not enough information: \"dev\" argument is required.\n",
            1,
        ));
    };
    // IFA_ADDRESS: the peer, else the local address (but for an IPv4 delete without a
    // prefix length: a wildcard deletion, by the local address alone)
    let wildcard_del = !add
        && peer.is_none()
        && local.is_some_and(|l| matches!(l.addr, Addr::V4(_)) && !l.explicit_len);
    let address: Option<Pfx> = peer.or(if wildcard_del { None } else { local });
    let plen = match peer {
        Some(p) if p.len != 0 => p.len,
        _ => local.map_or(0, |l| l.len),
    };
    let mut broadcast: Option<u32> = None;
    match brd {
        Some(Err(sign)) if add => {
            if fam != Some(Family::V4) {
                return Err(Failure::parse(
                    "Broadcast can be set only for IPv4 addresses\n",
                    1,
                ));
            }
            if let Some(Pfx {
                addr: Addr::V4(x),
                len,
                ..
            }) = address
            {
                if len <= 30 {
                    let host = !fibkit::prefix::mask4(len);
                    broadcast = Some(if sign > 0 { x | host } else { x & !host });
                }
            }
        }
        Some(Ok(Addr::V4(x))) => broadcast = Some(x),
        _ => {}
    }
    let idx = ifindex(ns, d)?;
    alt_refused(opts)?;
    // IFA_CACHEINFO, sent when either is given (else the kernel takes both as forever);
    // the engine turns them into the permanent and deprecated flags
    let life = fibkit::addr::Lifetime {
        valid: valid_lft.unwrap_or(u32::MAX),
        preferred: preferred_lft.unwrap_or(u32::MAX),
        tstamp: 0,
    };
    if valid_lft.is_some() || preferred_lft.is_some() {
        let (v, p) = (life.valid, life.preferred);
        if v == 0 {
            return Err(Failure::parse("valid_lft is zero\n", 1));
        }
        if v < p {
            return Err(Failure::parse(
                "preferred_lft is greater than valid_lft\n",
                1,
            ));
        }
    }
    let is_mc = match local.map(|l| l.addr) {
        Some(Addr::V4(x)) => fibkit::prefix::v4::is_multicast(x),
        Some(Addr::V6(x)) => fibkit::prefix::v6::is_multicast(x),
        None => false,
    };
    if flags & ifa::MCAUTOJOIN != 0 && !is_mc {
        return Err(Failure::parse("autojoin needs multicast address\n", 1));
    }
    let kerr = |e: Errno, m: &'static str| {
        Failure::kernel(if m.is_empty() {
            fibkit::Error::new(e)
        } else {
            fibkit::Error::msg(e, m)
        })
    };
    match fam {
        Some(Family::V4) => {
            // nlmsg_parse against ifa_ipv4_policy: a broadcast address of no length
            // (`brd all`), a label of more than IFNAMSIZ - 1 bytes
            if empty_brd || long_label || empty_addr {
                return Err(kerr(Errno::ERANGE, "Attribute failed policy validation"));
            }
            if !add {
                // inet_rtm_deladdr: the first address matching what was sent (without a
                // local address, the device's first one)
                let v4 = |p: Option<Pfx>| match p.map(|p| p.addr) {
                    Some(Addr::V4(x)) => Some(x),
                    _ => None,
                };
                let addr = v4(address);
                return ns
                    .addr4_del(idx, v4(local), addr.map(|_| plen), addr, label.as_deref())
                    .map(|()| None)
                    .map_err(Failure::kernel);
            }
            if plen > 32 {
                return Err(kerr(Errno::EINVAL, "ipv4: Invalid prefix length"));
            }
            let Some(Pfx {
                addr: Addr::V4(l), ..
            }) = local
            else {
                return Err(kerr(Errno::EINVAL, "ipv4: Local address is not supplied"));
            };
            let address = match address {
                Some(Pfx {
                    addr: Addr::V4(p), ..
                }) => p,
                _ => l,
            };
            let scope = sc.unwrap_or(if fibkit::prefix::v4::is_loopback(l) {
                scope::HOST
            } else {
                scope::UNIVERSE
            });
            let a4 = Addr4 {
                life,
                local: l,
                address,
                plen,
                broadcast: broadcast.unwrap_or(0),
                scope,
                flags: flags | ifa::PERMANENT,
                metric,
                // without IFA_LABEL, rtm_to_ifaddr takes the device's name (not the
                // alternative name that named it: random seed altnames 125)
                label: label.unwrap_or_else(|| {
                    ns.link(idx)
                        .map_or_else(|| d.to_string(), |l| l.name.clone())
                }),
                hashed: 0,
            };
            if replace {
                ns.addr4_replace(idx, a4).map_err(Failure::kernel)?;
            } else {
                ns.addr4_add(idx, a4).map_err(Failure::kernel)?;
            }
            Ok(Some((idx, l, plen)))
        }
        Some(Family::V6) => {
            // nlmsg_parse against ifa_ipv6_policy: an address attribute of no length
            // (IFA_LABEL, IFA_BROADCAST and IFA_ANYCAST are not in it)
            if empty_addr {
                return Err(kerr(Errno::ERANGE, "Attribute failed policy validation"));
            }
            // extract_addr: the local address, else IFA_ADDRESS; a different IFA_ADDRESS
            // beside a local one is the peer
            let addr6 = |p: Option<Pfx>| match p.map(|p| p.addr) {
                Some(Addr::V6(x)) => Some(x),
                _ => None,
            };
            let (pfx, peer6) = match (addr6(local), addr6(address)) {
                (Some(l), Some(p)) if p != l => (l, Some(p)),
                (Some(l), _) => (l, None),
                (None, Some(p)) => (p, None),
                (None, None) => return Err(kerr(Errno::EINVAL, "")),
            };
            if plen > 128 {
                return Err(kerr(Errno::EINVAL, "ipv6: Invalid prefix length"));
            }
            if !add {
                return ns
                    .addr6_del(idx, pfx, Some(plen))
                    .map(|()| None)
                    .map_err(Failure::kernel);
            }
            let t = fibkit::prefix::v6::addr_type(pfx);
            // inet6_addr_add sets the scope from the address (ipv6_addr_scope), whatever
            // the request's `scope`: a multicast address's scope is its scope field's
            // (interface-local host, link-local link, site-local site)
            let mc_scope = (t & fibkit::prefix::v6::MULTICAST != 0).then_some((pfx >> 112) & 0xf);
            let scope = if t & fibkit::prefix::v6::LOOPBACK != 0 || mc_scope == Some(1) {
                scope::HOST
            } else if t & fibkit::prefix::v6::LINKLOCAL != 0 || mc_scope == Some(2) {
                scope::LINK
            } else if mc_scope == Some(5) || t & fibkit::prefix::v6::SITELOCAL != 0 {
                scope::SITE
            } else {
                scope::UNIVERSE
            };
            let a6 = Addr6 {
                predad: false,
                life,
                addr: pfx,
                plen,
                flags,
                metric,
                scope,
                peer: peer6,
            };
            if replace {
                ns.addr6_replace(idx, a6).map_err(Failure::kernel)?;
            } else {
                ns.addr6_add(idx, a6).map_err(Failure::kernel)?;
            }
            Ok(None)
        }
        // the request's family is AF_UNSPEC: no handler
        None => Err(kerr(Errno::EOPNOTSUPP, "")),
    }
}

// ------------------------------------------------------------------- link

/// `ll_proto_a2n`: an Ethernet protocol by iproute2's name for it (any case) or a
/// number of 16 bits in any base.
fn ll_proto_id(v: &str) -> Option<u16> {
    const NAMES: [(&str, u16); 53] = [
        ("loop", 0x0060),
        ("pup", 0x0200),
        ("pupat", 0x0201),
        ("ip", 0x0800),
        ("x25", 0x0805),
        ("arp", 0x0806),
        ("bpq", 0x08ff),
        ("ieeepup", 0x0a00),
        ("ieeepupat", 0x0a01),
        ("dec", 0x6000),
        ("dna_dl", 0x6001),
        ("dna_rc", 0x6002),
        ("dna_rt", 0x6003),
        ("lat", 0x6004),
        ("diag", 0x6005),
        ("cust", 0x6006),
        ("sca", 0x6007),
        ("rarp", 0x8035),
        ("atalk", 0x809b),
        ("aarp", 0x80f3),
        ("ipx", 0x8137),
        ("ipv6", 0x86dd),
        ("ppp_disc", 0x8863),
        ("ppp_ses", 0x8864),
        ("atmmpoa", 0x884c),
        ("atmfate", 0x8884),
        ("802_3", 0x0001),
        ("ax25", 0x0002),
        ("all", 0x0003),
        ("802_2", 0x0004),
        ("snap", 0x0005),
        ("ddcmp", 0x0006),
        ("wan_ppp", 0x0007),
        ("ppp_mp", 0x0008),
        ("localtalk", 0x0009),
        ("can", 0x000c),
        ("ppptalk", 0x0010),
        ("tr_802_2", 0x0011),
        ("mobitex", 0x0015),
        ("control", 0x0016),
        ("irda", 0x0017),
        ("econet", 0x0018),
        ("tipc", 0x88ca),
        ("profinet", 0x8892),
        ("aoe", 0x88a2),
        ("ethercat", 0x88a4),
        ("802.1Q", 0x8100),
        ("802.1ad", 0x88a8),
        ("mpls_uc", 0x8847),
        ("mpls_mc", 0x8848),
        ("teb", 0x6558),
        ("LLDP", 0x88cc),
        ("ipv4", 0x0800),
    ];
    NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(v))
        .map(|&(_, id)| id)
        .or_else(|| crate::show::get_u32(v, 0).and_then(|x| u16::try_from(x).ok()))
}

/// `sscanf(s, "%x")`: blanks, a sign, an optional `0x`, then the hex digits there are.
fn scan_hex(s: &str) -> Option<i64> {
    let s = s.trim_start();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .filter(|r| r.starts_with(|c: char| c.is_ascii_hexdigit()))
        .unwrap_or(s);
    let digits: &str = &s[..s.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(s.len())];
    if digits.is_empty() {
        return None;
    }
    let v = i64::from_str_radix(&digits[digits.len().saturating_sub(15)..], 16).ok()?;
    Some(if neg { -v } else { v })
}

/// `ll_addr_a2n`: colon-separated bytes (each what `%x` reads, up to 255), or an IPv4
/// address's four; the refusal quotes the bad part (exit status 1).
fn parse_lladdr(s: &str) -> Res<Vec<u8>> {
    let bad = |c: &str| Failure::parse(format!("\"{c}\" is invalid lladdr.\n"), 1);
    // ll_addr_a2n: a word with a dot is an IPv4 address as get_addr_1 reads it
    // (get_addr_ipv4: one to four parts, each strtoul in base 0), four bytes
    if s.contains('.') {
        return crate::names::parse_v4(s)
            .map(|a| a.to_be_bytes().to_vec())
            .ok_or_else(|| bad(s));
    }
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let (part, next) = match rest.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (rest, None),
        };
        match scan_hex(part) {
            Some(v) if (0..=255).contains(&v) => out.push(v as u8),
            _ => return Err(bad(part)),
        }
        // MAX_ADDR_LEN bytes at most
        match next {
            Some(n) if out.len() < 32 => rest = n,
            _ => break,
        }
    }
    Ok(out)
}

/// An Ethernet link address from `ll_addr_a2n`'s bytes: the kernel refuses any other
/// length when making a link (`ifb_validate`, `veth_validate`), and a shorter one when
/// changing it (`validate_linkmsg`; a longer one is cut).
fn ether_addr(b: &[u8], exact: bool) -> Res<[u8; 6]> {
    if b.len() < 6 || (exact && b.len() != 6) {
        return Err(Failure::errno(Errno::EINVAL));
    }
    let mut m = [0u8; 6];
    m.copy_from_slice(&b[..6]);
    Ok(m)
}

/// `veth_parse_opt` (link_veth.c; vxcan's too): the words after the kind start with
/// `peer`, else the kind's usage is printed on stdout (exit status 1); the peer's
/// words are iplink_parse's, where a type is a second one.
fn veth_parse_opt<'a>(ns: &Netns, it: &mut Args<'a>, peer: &mut LinkAttrs, kind: &str) -> Res<()> {
    let Some(w) = it.next() else {
        return Ok(());
    };
    veth_peer_words(ns, w, it, peer, kind, true)?;
    // the end of the peer's iplink_parse (a creation's): `name` and `dev` agree, and a
    // `link` names a device (looked up, then sent in the peer's message, which the
    // kernel ignores); both before anything reaches the kernel
    name_and_dev(peer)?;
    if let Some(d) = &peer.link {
        ll_index(ns, d).ok_or_else(|| nodev(d))?;
    }
    // (the peer's address, as the kernel's veth_validate of the peer sees it)
    if peer.bad_mac.is_some() {
        return Err(Failure::errno(Errno::EINVAL));
    }
    Ok(())
}

/// iplink_parse at creation: a group with no device names the group's devices, which a
/// creation cannot change (a word after the kind is garbage first); both exit.
fn group_at_creation(next: Option<&str>) -> Failure {
    Failure::parse(
        match next {
            Some(w) => {
                format!("Garbage instead of arguments \"{w} ...\". Try \"ip link help\".\n")
            }
            None => "group cannot be used when creating devices.\n".to_string(),
        },
        255,
    )
}

/// `veth_parse_opt`'s first word `w` and the peer's words (iplink_parse's; a type is a
/// second one): a first word other than `peer` prints the kind's usage on stdout (exit
/// status 1).
fn veth_peer_words<'a>(
    ns: &Netns,
    w: &str,
    it: &mut Args<'a>,
    peer: &mut LinkAttrs,
    kind: &str,
    create: bool,
) -> Res<()> {
    if w != "peer" {
        return Err(Failure {
            stdout: linkmore::kind_help(kind).unwrap_or_default().into(),
            errno: None,
            stderr: String::new(),
            status: 1,
            exits: false,
        });
    }
    let t = link_add_attrs(ns, it, peer)?;
    // (the peer's own iplink_parse ends with its group check, before the second type)
    if create && peer.group.is_some() && peer.name.is_none() && peer.dev.is_none() {
        return Err(group_at_creation(it.peek()));
    }
    if let Some(t) = t {
        return Err(Failure::parse(
            format!("Error: duplicate \"type\": \"{t}\" is the second value.\n"),
            255,
        ));
    }
    Ok(())
}

/// `veth_parse_opt` (vxcan's too) on `ip link set DEV type veth WORDS`: the peer's
/// words go through iplink_parse as a change's do, whose end (as for the device's
/// own) checks an address's length against the peer device's, refuses an index, needs
/// a device and looks it up (`Cannot find device`). A peer that exists makes
/// IFLA_INFO_DATA (VETH_INFO_PEER), which rtnl_changelink refuses (EOPNOTSUPP): veth
/// has no changelink, and this kernel no vxcan (rtnl_get_peer_net first hands a veth
/// peer's attributes to veth_validate: see link_set).
fn veth_change_opt(ns: &Netns, it: &mut Args<'_>, kind: &str) -> Res<LinkAttrs> {
    let mut peer = LinkAttrs::default();
    let w = it.next().unwrap_or("");
    veth_peer_words(ns, w, it, &mut peer, kind, false)?;
    let dev = peer.dev.as_deref().or(peer.name.as_deref());
    // nl_get_ll_addr_len of the peer device (a tun has no address to compare with)
    if let (Some(l), Some(b)) = (
        dev.and_then(|d| ll_index(ns, d)).and_then(|i| ns.link(i)),
        &peer.bad_mac,
    ) {
        if !l.is_tun() {
            return Err(Failure::parse(
                format!("Invalid address length {} - must be 6 bytes\n", b.len()),
                1,
            ));
        }
    }
    if peer.more.index.is_some() {
        return Err(Failure::parse(
            "index can be used only when creating devices or when moving device to another netns.\n",
            255,
        ));
    }
    // a group without a device names no peer device (iplink_parse's group change)
    if dev.is_none() && peer.group.is_some_and(|g| g != u32::MAX) {
        return Ok(peer);
    }
    let Some(d) = dev else {
        return Err(Failure::parse(
            "Not enough information: \"dev\" argument is required.\n",
            255,
        ));
    };
    ll_index(ns, d).ok_or_else(|| nodev(d))?;
    Ok(peer)
}

/// iplink_parse's check of a device word (`check_altifname`): not empty, no '/' or
/// white space, of any length (a name too long is the kernel's to refuse).
fn check_altifname(v: &str) -> Res<()> {
    if v.is_empty() || v.contains('/') || v.bytes().any(|b| b.is_ascii_whitespace()) {
        return Err(invarg("\"dev\" not a valid ifname", v));
    }
    Ok(())
}

/// iplink_parse takes any word it has no keyword for as the device, but a prefix of
/// `help` first prints the usage and exits (`ip link add h type dummy`, `ip link set
/// d0 he`, `ip link del help`; after `dev`, or as `name`, it is a name).
fn link_word_help(w: &str) -> Res<()> {
    if matches(w, "help") {
        return Err(Failure::parse(crate::show::USAGE_LINK, 255));
    }
    Ok(())
}

/// iproute2's `ip link` add, set and delete first probe the kernel with an empty
/// RTM_NEWLINK (`iplink_have_newlink`), which fails with ENODEV: a command line it then
/// refuses leaves that errno behind (what the oracle records).
fn probe_errno(mut f: Failure) -> Failure {
    if f.errno.is_none() {
        f.errno = Some(Errno::ENODEV);
    }
    f
}

/// `ip link set`: the whole line is parsed first (a bad value changes nothing), then
/// the kernel applies the request in `do_setlink`'s order (address, MTU, group, name,
/// flags and up or down, then master), stopping at the first refusal with the earlier changes
/// made.
fn link_set(ns: &mut Netns, rest: &[String]) -> Res<Outcome> {
    let mut it = Args::new(rest);
    let mut dev: Option<&str> = None;
    let mut dev_from_name = false;
    let (mut mac, mut mtu, mut group, mut name) = (None, None, None, None);
    let mut master: Option<u32> = None;
    let mut updown: Option<bool> = None;
    let (mut txqlen, mut alias) = (None, None);
    let (mut flags, mut flags_mask) = (0u32, 0u32);
    let mut addrgenmode: Option<u8> = None;
    let mut macvlan: Option<(bool, MacvlanOpts)> = None;
    let mut vxlan: Option<fibkit::vxlan::VxlanChange> = None;
    let mut bridge: Option<fibkit::bridge::BridgeChange> = None;
    let mut port: Option<fibkit::bridge::PortChange> = None;
    let mut carrier: Option<bool> = None;
    let mut brd: Option<Vec<u8>> = None;
    let mut more = linkmore::LinkMore::default();
    // options of a kind the kernel does not know (IFLA_INFO_DATA without link ops)
    let mut foreign_data = false;
    let mut kind_word: Option<&str> = None;
    // a veth peer's attributes (`type veth peer ...`)
    let mut veth_peer: Option<LinkAttrs> = None;
    while let Some(raw) = it.next() {
        let k = link_keyword(raw);
        if linkmore::word(ns, k, &mut it, &mut more, dev)? {
            continue;
        }
        match k {
            "up" => updown = Some(true),
            "down" => updown = Some(false),
            "nomaster" => master = Some(0),
            "master" => {
                // iproute2 resolves the name while parsing
                let v = it.val()?;
                let m = ll_index(ns, v).ok_or_else(|| invarg("Device does not exist\n", v))?;
                master = Some(m);
            }
            // iplink_parse takes a group, an MTU, a queue length and a name once (a
            // first value of -1 reads as none given)
            "group" => {
                let v = it.val()?;
                if group.is_some_and(|g| g != u32::MAX) {
                    return Err(duparg("group", v));
                }
                // rtnl_group_a2n
                let g = crate::show::group_a2n(v).map(|g| g as u32);
                group = Some(g.ok_or_else(|| invarg("Invalid \"group\" value\n", v))?);
            }
            "mtu" => {
                let v = it.val()?;
                if mtu.is_some_and(|m| m != u32::MAX) {
                    return Err(duparg("mtu", v));
                }
                mtu = Some(
                    crate::names::parse_int(v)
                        .ok_or_else(|| invarg("Invalid \"mtu\" value\n", v))?,
                );
            }
            "address" => mac = Some(parse_lladdr(it.val()?)?),
            "name" => {
                // check_ifname (the kernel's dev_valid_name, in part)
                let v = it.val()?;
                if name.is_some() {
                    return Err(duparg("name", v));
                }
                if v.is_empty()
                    || v.len() >= 16
                    || v.contains(|c: char| c == '/' || c.is_ascii_whitespace())
                {
                    return Err(invarg("\"name\" not a valid ifname", v));
                }
                name = Some(v);
                // iplink_parse: without a device yet, the name names it (a device
                // named later replaces it; with `group`, one device is changed:
                // random seed groups 10)
                if dev.is_none() {
                    dev = Some(v);
                    dev_from_name = true;
                }
            }
            "txqueuelen" | "qlen" | "txqlen" => {
                let v = it.val()?;
                if txqlen.is_some_and(|q| q != u32::MAX) {
                    return Err(duparg("txqueuelen", v));
                }
                txqlen = Some(
                    crate::names::parse_int(v)
                        .ok_or_else(|| invarg("Invalid \"txqueuelen\" value\n", v))?,
                );
            }
            "alias" => {
                let v = it.val()?;
                if v.len() >= 256 {
                    return Err(invarg("alias too long\n", v));
                }
                alias = Some(v);
            }
            "arp" | "multicast" | "allmulticast" | "promisc" | "dynamic" | "trailers" => {
                add_flag(k, it.val()?, &mut flags, &mut flags_mask)?;
            }
            "addrgenmode" => {
                // iproute2's names; `random` makes a stable privacy link-local address
                // from a secret drawn at random at the next link up
                let v = it.val()?;
                // (strcasecmp)
                addrgenmode = Some(match v.to_ascii_lowercase().as_str() {
                    "eui64" => 0u8,
                    "none" => 1,
                    "stable_secret" => 2,
                    "random" => 3,
                    _ => return Err(invarg("Invalid address generation mode", v)),
                });
            }
            "type" => {
                // iplink_parse ends at the kind; iplink_modify hands the rest of the
                // line to the kind's parser once the device is known
                kind_word = Some(it.val()?);
                break;
            }
            "carrier" => carrier = Some(parse_on_off(k, it.val()?)?),
            // settings fibkit does not keep: read as iproute2 reads them, then refused
            // rather than ignored once the device is known
            // IFLA_BROADCAST (a second one replaces the first)
            "broadcast" | "brd" => brd = Some(parse_lladdr(it.val()?)?),
            // the lower device matters at creation only: not sent otherwise
            "link" => {
                it.val()?;
            }
            // this kernel has no VRF driver, so no name is a VRF device's: iproute2's
            // name_is_vrf refuses every one
            "vrf" => return Err(invarg("Not a valid VRF name\n", it.val()?)),
            "netns" => {
                return Err(unmodelled_link_setting(k, it.val()?));
            }
            _ => {
                link_word_help(raw)?;
                let v = if raw == "dev" { it.val()? } else { raw };
                // (`dev != name`: a device the name gave is replaced)
                if dev.is_some() && !dev_from_name {
                    return Err(dup_dev(v));
                }
                check_altifname(v)?;
                dev = Some(v);
                dev_from_name = false;
            }
        }
    }
    // iplink_parse, once the line is read: an address of the device's own length (a
    // tun, which has none, sends no IFLA_ADDRESS to compare with), and no index but
    // at creation
    if let (Some(l), Some(b)) = (
        dev.and_then(|d| ll_index(ns, d)).and_then(|i| ns.link(i)),
        &mac,
    ) {
        if !l.is_tun() && b.len() != 6 {
            return Err(Failure::parse(
                format!("Invalid address length {} - must be 6 bytes\n", b.len()),
                1,
            ));
        }
    }
    if more.index.is_some() {
        return Err(Failure::parse(
            "index can be used only when creating devices or when moving device to another netns.\n",
            255,
        ));
    }
    // a group without a device selects the devices (iplink_parse sends index 0 with
    // IFLA_GROUP, which rtnl_newlink hands to rtnl_group_changelink)
    if let (None, None, Some(g)) = (dev, name, group.filter(|&g| g != u32::MAX)) {
        let mut words = rest;
        if kind_word.is_some() {
            // without a device the kind is dropped, and words after it are garbage
            // (iplink_parse exits)
            if let Some(w) = it.next() {
                return Err(Failure::parse(linkmore::garbage(w).stderr, 255));
            }
            words = &rest[..it.i.saturating_sub(2)];
        }
        // (rtnl_newlink's attribute policy, before the group is looked at)
        policy("", &more)?;
        return link_set_group(ns, words, g);
    }
    let Some(d) = dev else {
        return Err(Failure::parse(
            "Not enough information: \"dev\" argument is required.\n",
            255,
        ));
    };
    let idx = ll_index(ns, d).ok_or_else(|| nodev(d))?;
    match kind_word {
        None => {}
        Some("vxlan") => {
            let resolve = |d: &str| ll_index(ns, d);
            let words = it.i < rest.len();
            let a = vxlan_parse_opt(&resolve, &mut it, true)?;
            // (iplink_parse sends `mtu -1` too: vxlan_validate refuses it)
            let sent_mtu = mtu;
            policy("", &more)?;
            fibkit::vxlan::validate_change(mac.as_deref(), sent_mtu, a.conf.srcport, words)
                .map_err(Failure::kernel)?;
            let mut change = a.change;
            // vxlan_nl2conf reads IFLA_MTU after the flags, before `df` and
            // `vnifilter`: a change cannot carry it
            if sent_mtu.is_some() && a.refused_at.is_none_or(|o| o > 25) {
                change.refused = Some("Cannot change mtu");
            }
            vxlan = Some(change);
        }
        Some("bridge") => bridge = bridge_parse_opt(&mut it)?,
        Some("bridge_slave") => port = bridge_slave_parse_opt(ns, &mut it)?,
        Some(v @ ("macvlan" | "macvtap")) => {
            // no words: iproute2 sends the kind without settings, which no device's
            // link operations are asked to take (any device, of any kind: random
            // seed macvlan 114)
            let words = it.i < rest.len();
            let o = macvlan_parse_opt(&mut it, v, &mut String::new())?;
            if words {
                macvlan = Some((v == "macvtap", o));
            }
        }
        // this kernel has no VLAN driver: options make data it refuses
        Some("vlan") => foreign_data = linkmore::vlan_parse_opt(&mut it)?,
        // tun_validate, whatever the request (once the attributes met the policy)
        Some("tun") => {
            policy("", &more)?;
            return Err(Failure::kernel(fibkit::Error::msg(
                Errno::EOPNOTSUPP,
                "tun/tap creation via rtnetlink is not supported",
            )));
        }
        // the words make an empty IFLA_INFO_DATA, which the device's own link
        // operations (none change a link) or no kind's take
        Some(v) if linkmore::KINDS_WITHOUT_OPTIONS.contains(&v) => {
            let words = it.next().is_some();
            while it.next().is_some() {}
            // (a port kind's, `*_slave`, are IFLA_INFO_SLAVE_DATA: see below)
            if words && v.ends_with("_slave") && ns.bridge_port(idx).is_some() {
                port = Some(fibkit::bridge::PortChange::default());
            } else {
                foreign_data = words;
            }
        }
        // a kind iproute2 has no parser for takes no options; the kernel, which knows
        // none by that name either, ignores the bare kind
        Some(v) if !linkmore::iproute2_kind(v) => {
            if let Some(w) = it.next() {
                return Err(linkmore::garbage(w));
            }
        }
        // no words: the kind alone, which no device's link operations are asked to
        // take (its validate below aside)
        Some(_) if it.i >= rest.len() => {}
        Some(v @ ("veth" | "vxcan")) => {
            let p = veth_change_opt(ns, &mut it, v)?;
            veth_peer = (v == "veth").then_some(p);
            foreign_data = true;
        }
        // a port kind's words make IFLA_INFO_SLAVE_DATA, which rtnl_newlink parses with
        // the master's port policy whatever port kind was named: on a bridge port,
        // bond_slave's IFLA_BOND_SLAVE_QUEUE_ID (5) is read as IFLA_BRPORT_GUARD and
        // IFLA_BOND_SLAVE_PRIO (9) as IFLA_BRPORT_UNICAST_FLOOD, u8 attributes: the
        // value's lowest byte (little-endian) sets the flag, the last one given wins
        Some("bond_slave") if ns.bridge_port(idx).is_some() => {
            use fibkit::bridge::port_flag as f;
            let words = kindopts::parse_opt(ns, "bond_slave", &mut it, true)
                .transpose()?
                .unwrap_or_default();
            let mut c = fibkit::bridge::PortChange::default();
            for (k, v) in words {
                let (flag, n) = if k == "queue_id" {
                    (f::GUARD, parse_u32(v).unwrap_or(0))
                } else {
                    (f::FLOOD, crate::show::strtol(v, 0).0 as u32)
                };
                c.flags.0 |= flag;
                if n & 0xff != 0 {
                    c.flags.1 |= flag;
                } else {
                    c.flags.1 &= !flag;
                }
            }
            port = Some(c);
        }
        // ipvlan_parse_opt, then data no device here takes
        Some(v @ ("ipvlan" | "ipvtap")) => {
            linkmore::ipvlan_parse_opt(&mut it, v)?;
            foreign_data = true;
        }
        // the kind's own parser (kindopts): its words make data no device here takes
        Some(v) if kindopts::has_parser(v) && !kindopts::is_tunnel(v) => {
            if let Some(r) = kindopts::parse_opt(ns, v, &mut it, true) {
                r?;
            }
            foreign_data = true;
        }
        // a tunnel's parser first reads the device's own settings (RTM_GETLINK) and
        // takes the attributes of its kind's numbers as its own: a device with none
        // to report (no IFLA_INFO_DATA: the loopback, a dummy, a veth) ends it
        // (get_failed), and so does one whose attribute there is no address of the
        // family: a tun's (IFLA_TUN_* bytes) for every tunnel kind, a bridge's for all
        // but vti, whose IFLA_VTI_LOCAL and _REMOTE are the bridge's u32 ageing time
        // and STP state; vti then reads its words and sends data the bridge refuses.
        // Other devices' settings are not modelled.
        Some(v) if kindopts::is_tunnel(v) => match ns.link(idx).map(|l| &l.kind) {
            Some(LinkKind::Bridge) if v == "vti" => {
                if let Some(r) = kindopts::parse_opt(ns, v, &mut it, true) {
                    r?;
                }
                foreign_data = true;
            }
            // a vxlan's data always holds u8 attributes (its TOS, TTL, PROXY) at the
            // numbers where all but ip6tnl find an address; ip6tnl's IFLA_IPTUN_LOCAL
            // and _REMOTE are the vxlan's IPv4 group and lower device, sent only when
            // set (vxlan_fill_info)
            Some(LinkKind::Vxlan(x))
                if v == "ip6tnl"
                    && x.lower == 0
                    && !x.remote.is_some_and(|r| r.is_ipv4() && !r.is_unspecified()) =>
            {
                if let Some(r) = kindopts::parse_opt(ns, v, &mut it, true) {
                    r?;
                }
                foreign_data = true;
            }
            // a macvlan's data (macvlan_fill_info): MODE (1, u32), FLAGS (2, u16), the
            // sources (5, nested, when any), MACADDR_COUNT (6, u32), BC_QUEUE_LEN (7,
            // u32), ...: ipip, sit and ip6tnl find FLAGS where an address goes, the
            // IPv6 GRE kinds a u32, vti and vti6 the sources; the GRE kinds read the
            // count as their local address and the queue length as their remote one
            // (little-endian bytes), which the words may replace before
            // gre_parse_opt's check of a multicast remote
            Some(LinkKind::Macvlan {
                sources,
                bcqueuelen,
                ..
            }) if match v {
                "gre" | "gretap" | "erspan" => true,
                "vti" | "vti6" => sources.is_empty(),
                _ => false,
            } =>
            {
                let mut words = Vec::new();
                if matches!(v, "gre" | "gretap" | "erspan") {
                    let a = |n: u32| std::net::Ipv4Addr::from(n.to_le_bytes()).to_string();
                    words = vec![
                        "remote".to_string(),
                        a(*bcqueuelen),
                        "local".to_string(),
                        a(sources.len() as u32),
                    ];
                }
                while let Some(w) = it.next() {
                    words.push(w.to_string());
                }
                if let Some(r) = kindopts::parse_opt(ns, v, &mut Args::new(&words), true) {
                    r?;
                }
                foreign_data = true;
            }
            Some(
                LinkKind::Loopback
                | LinkKind::Dummy
                | LinkKind::Veth { .. }
                | LinkKind::Tun { .. }
                | LinkKind::Bridge
                | LinkKind::Vxlan(_)
                | LinkKind::Macvlan { .. },
            ) => return Err(Failure::parse("Failed to get existing tunnel info.\n", 1)),
            _ => return Err(unmodelled_link_setting("type", v)),
        },
        // the kind's parser asked for its usage (a tunnel's first asks the kernel for
        // the device's tunnel settings, not modelled)
        Some(v) if !linkmore::TUNNEL_KINDS.contains(&v) => {
            return Err(linkmore::kind_help_asked(v, &it.v[it.i..])
                .unwrap_or_else(|| unmodelled_link_setting("type", v)));
        }
        Some(v) => return Err(unmodelled_link_setting("type", v)),
    }
    // rtnl_newlink parses the request against ifla_policy first (the name iproute2
    // checked itself)
    policy("", &more)?;
    // rtnl_newlink refuses an index read as negative (an `ifN` of 2^31 or more) before
    // anything else; nl_get_ll_addr_len's lookup by that index failed first
    if idx > i32::MAX as u32 {
        let mut f = Failure::kernel(fibkit::Error::msg(
            Errno::EINVAL,
            "ifindex can't be negative",
        ));
        if mac.is_some() {
            f.stderr = format!("RTNETLINK answers: Invalid argument\n{}", f.stderr);
        }
        return Err(f);
    }
    // the kind's data policy, then its own validate
    bridge_data_policy(bridge.as_ref())?;
    // the kind's own validate (rtnl_newlink runs it first, whatever the device):
    // br_validate, veth_validate, ifb_validate and macvlan_validate refuse an address
    // that is not 6 bytes long (EINVAL: only a tun's, whose length iproute2 does not
    // check, gets here) or not unicast Ethernet (EADDRNOTAVAIL), veth_validate an MTU
    // outside 68..65535 (random seed macvlan 114)
    if let Some(k) = kind_word {
        if matches!(k, "bridge" | "veth" | "ifb" | "macvlan" | "macvtap") {
            if let Some(m) = mac.as_deref() {
                match <[u8; 6]>::try_from(m) {
                    Err(_) => return Err(Failure::errno(Errno::EINVAL)),
                    Ok(m) if !fibkit::link::is_valid_ether_addr(&m) => {
                        return Err(Failure::errno(Errno::EADDRNOTAVAIL));
                    }
                    Ok(_) => {}
                }
            }
        }
        if k == "veth" && mtu.is_some_and(|m| !(68..=65535).contains(&m)) {
            return Err(Failure::errno(Errno::EINVAL));
        }
    }
    // rtnl_get_peer_net (after the kind's validate): veth_validate of the peer's
    // attributes, whose every `mtu` iproute2 sends
    if let Some(p) = &veth_peer {
        if p.bad_mac.is_some() {
            return Err(Failure::errno(Errno::EINVAL));
        }
        if p.mac
            .is_some_and(|m| !fibkit::link::is_valid_ether_addr(&m))
        {
            return Err(Failure::errno(Errno::EADDRNOTAVAIL));
        }
        if p.mtu.is_some_and(|m| !(68..=65535).contains(&m)) {
            return Err(Failure::errno(Errno::EINVAL));
        }
    }
    // rtnl_newlink finds no device by the index (after the kind's validate), and the
    // request is no group change
    if ns.link(idx).is_none() {
        let mut f = Failure::errno(Errno::ENODEV);
        if mac.is_some() {
            // iplink_parse asked first for the device's address length
            // (nl_get_ll_addr_len, by the same index), which failed the same way
            f.stderr = f.stderr.repeat(2);
        }
        return Err(f);
    }
    // validate_linkmsg, before anything changes
    if let Some(b) = &brd {
        ns.link_check_broadcast(idx, b).map_err(Failure::kernel)?;
    }
    if ns.link(idx).is_some() {
        ns.link_check_gso(idx, more.gso_max_size, more.gso_max_segs, more.gro_max_size)
            .map_err(Failure::kernel)?;
    }
    if let Some(m) = addrgenmode {
        // validate_linkmsg (inet6_validate_link_af), before any change is made
        if !ns.has_idev6(idx) {
            return Err(Failure::errno(Errno::EAFNOSUPPORT));
        }
        // check_addr_gen_mode: stable privacy needs a secret
        if m == 2 && ns.stable_secret6(idx).is_none() {
            return Err(Failure::errno(Errno::EINVAL));
        }
    }
    // rtnl_changelink: the kind's own settings (IFLA_INFO_DATA, then the master's for
    // its port, IFLA_INFO_SLAVE_DATA) before do_setlink's; either, applied, makes
    // do_setlink end with netdev_state_change, even when a later setting is refused
    if foreign_data {
        return Err(Failure::errno(Errno::EOPNOTSUPP));
    }
    let mut notify = false;
    if let Some(c) = &vxlan {
        ns.vxlan_changelink(idx, c).map_err(Failure::kernel)?;
        notify = true;
    }
    if let Some((tap, o)) = macvlan {
        ns.macvlan_changelink(idx, tap, o.mode, o.flags, o.bcqueuelen, o.sources.as_ref())
            .map_err(Failure::kernel)?;
        notify = true;
    }
    if let Some(c) = &bridge {
        ns.bridge_changelink(idx, c).map_err(Failure::kernel)?;
        notify = true;
    }
    if let Some(c) = &port {
        ns.bridge_port_changelink(idx, c).map_err(Failure::kernel)?;
        notify = true;
    }
    let gen0 = ns.link(idx).map_or(0, |l| l.oper.gen);
    let r = link_set_rest(
        ns,
        idx,
        d,
        mac,
        mtu,
        group,
        name,
        alias,
        brd,
        master,
        updown,
        flags,
        flags_mask,
        txqlen,
        addrgenmode,
        carrier,
        &more,
    );
    // the link watch a carrier change of this request started runs after it
    ns.link_watch_settle(idx, gen0);
    if notify {
        // (after a refusal too: do_setlink's error path)
        ns.netdev_state_change(idx).map_err(Failure::kernel)?;
    }
    r
}

/// `ip link set group G SETTINGS`: rtnl_group_changelink applies the settings to
/// every device of the group in turn (validate_linkmsg, then do_setlink), stopping at
/// the first refusal with the devices before it changed; no device in the group is no
/// error. Each device takes the request as `ip link set SETTINGS dev NAME` would.
fn link_set_group(ns: &mut Netns, words: &[String], g: u32) -> Res<Outcome> {
    let members: Vec<u32> = ns
        .links()
        .filter(|l| l.group == g)
        .map(|l| l.index)
        .collect();
    // one request under the RTNL lock: the link watch runs after it (see
    // Netns::hold_link_watch), whether or not a device refused
    ns.hold_link_watch(true);
    let mut result = Ok(Outcome::Ok(String::new()));
    for idx in members {
        let Some(name) = ns.link(idx).map(|l| l.name.clone()) else {
            continue;
        };
        let mut one = words.to_vec();
        one.push("dev".into());
        one.push(name);
        if let Err(e) = link_set(ns, &one) {
            result = Err(e);
            break;
        }
    }
    ns.hold_link_watch(false);
    result
}

/// [`link_set`] from do_setlink's settings on.
#[allow(clippy::too_many_arguments)]
fn link_set_rest(
    ns: &mut Netns,
    idx: u32,
    d: &str,
    mac: Option<Vec<u8>>,
    mtu: Option<u32>,
    group: Option<u32>,
    name: Option<&str>,
    alias: Option<&str>,
    brd: Option<Vec<u8>>,
    master: Option<u32>,
    updown: Option<bool>,
    flags: u32,
    flags_mask: u32,
    txqlen: Option<u32>,
    mut addrgenmode: Option<u8>,
    carrier: Option<bool>,
    more: &linkmore::LinkMore,
) -> Res<Outcome> {
    // the link watch count before the request (see the operational state below)
    let gen0 = ns.link(idx).map_or(0, |l| l.oper.gen);
    if let Some(b) = mac {
        // (its length checked by iplink_parse) the device's refusal (ifb cannot change its address), or the address's
        // validate_linkmsg refuses an address shorter than the device's: a tun has
        // none, so any length reaches dev_set_mac_address, which it refuses
        let m = if ns.link(idx).is_some_and(|l| l.is_tun()) {
            let mut m = [0u8; 6];
            let n = b.len().min(6);
            m[..n].copy_from_slice(&b[..n]);
            m
        } else {
            ether_addr(&b, false)?
        };
        ns.link_set_mac(idx, m).map_err(Failure::kernel)?;
    }
    if let Some(m) = mtu {
        ns.link_set_mtu(idx, m).map_err(Failure::kernel)?;
    }
    if let Some(g) = group {
        ns.link_set_group(idx, g).map_err(Failure::kernel)?;
    }
    // iproute2 sends no new name when it is the word that named the device (`ip link
    // set foo name foo`, foo an alternative name, renames nothing)
    if let Some(n) = name.filter(|n| *n != d) {
        ns.link_set_name(idx, n).map_err(Failure::kernel)?;
    }
    if let Some(a) = alias {
        ns.link_set_alias(idx, a).map_err(Failure::kernel)?;
    }
    // do_setlink: IFLA_BROADCAST after the alias, before the flags
    if let Some(b) = brd {
        ns.link_set_broadcast(idx, &b).map_err(Failure::kernel)?;
    }
    // a veth that comes up gets its carrier through the link watch, after the request:
    // its link-local address is made then, in the mode this request sets (a dummy's
    // is made at once, in the mode it had; random seed 31476)
    let veth = ns
        .link(idx)
        .is_some_and(|l| matches!(l.kind, fibkit::link::LinkKind::Veth { .. }));
    // (IFLA_AF_SPEC, applied, makes do_setlink end with netdev_state_change: a
    // NETDEV_CHANGE on a device that is up, as for a group or an alias; random seed
    // 74031)
    let af_spec = addrgenmode.is_some();
    if veth && updown == Some(true) && ns.has_idev6(idx) {
        if let Some(m) = addrgenmode.take() {
            ns.link_set_addrgenmode(idx, m).map_err(Failure::kernel)?;
        }
    }
    // likewise the link watch after the request sees the link mode it sets (a `mode
    // dormant` veth brought up by it is dormant, never ready for IPv6), unless the
    // request fails before IFLA_LINKMODE (`carrier` always does on a veth; a refused master
    // or queue length puts the old mode back)
    let mut mode_before = None;
    let mut mode_changed = false;
    if veth && updown == Some(true) && carrier.is_none() {
        if let (Some(m), Some(l)) = (more.linkmode, ns.link(idx)) {
            mode_before = Some(l.oper.link_mode);
            mode_changed = ns.link_set_linkmode(idx, m).map_err(Failure::kernel)?;
        }
    }
    let restore_mode = |ns: &mut Netns| {
        if let Some(m) = mode_before {
            let _ = ns.link_set_linkmode(idx, m);
            // the link watch after the request then finds the old mode, and its
            // NETDEV_CHANGE configures IPv6 on a device that is ready
            ns.link_watch_run(idx);
            let _ = ns.netdev_state_change(idx);
        }
    };
    if updown.is_some() || flags_mask != 0 {
        // dev_change_flags: the flags, then up or down
        if let Err(e) = ns.link_change_flags(idx, updown, flags, flags_mask) {
            restore_mode(ns);
            return Err(Failure::kernel(e));
        }
    }
    if let Some(m) = master {
        // do_set_master (IFLA_MASTER; `nomaster` sends 0), after the flags: only a
        // bridge takes ports, and a refused master leaves the device up (conformance
        // scenario 413)
        if let Err(e) = ns.link_set_master(idx, m) {
            restore_mode(ns);
            return Err(Failure::kernel(e));
        }
    }
    if let Some(on) = carrier {
        // dev_change_carrier: of the kinds fibkit models only the tun driver (tun and
        // tap) has ndo_change_carrier (its dummy is the oracle's ifb). tun_net_change_carrier
        // turns the carrier on only for a device with a queue attached, which a device
        // living on without its file (`persist`) never has: EPERM; `off` is
        // netif_carrier_off on a carrier that is already off, so nothing changes and the
        // request goes on. The others refuse (EOPNOTSUPP). do_setlink's error path still
        // ends with netdev_state_change after a group or an alias
        let tun = ns
            .link(idx)
            .is_some_and(|l| matches!(l.kind, fibkit::link::LinkKind::Tun { .. }));
        if !tun || on {
            if group.is_some() || alias.is_some() {
                ns.netdev_state_change(idx).map_err(Failure::kernel)?;
            }
            return Err(Failure::errno(if tun {
                Errno::EPERM
            } else {
                Errno::EOPNOTSUPP
            }));
        }
    }
    // do_setlink ends with netdev_state_change once a setting that notifies was
    // written (a group, an alias, a new link mode, IFLA_AF_SPEC, protodown, XDP),
    // after a later refusal too
    let mut notify = group.is_some() || alias.is_some();
    let fail = |ns: &mut Netns, notify: bool, f: Failure| -> Res<Outcome> {
        if notify {
            ns.netdev_state_change(idx).map_err(Failure::kernel)?;
        }
        Err(f)
    };
    if let Some(q) = txqlen {
        if let Err(e) = ns.link_set_txqlen(idx, q) {
            restore_mode(ns);
            return fail(ns, notify, Failure::kernel(e));
        }
    }
    // the GSO and GRO limits (checked by validate_linkmsg), the operational state and
    // the link mode
    ns.link_set_gso(idx, more.gso_max_size, more.gso_max_segs, more.gro_max_size)
        .map_err(Failure::kernel)?;
    if let Some(s) = more.operstate {
        // a carrier change earlier in the request (the device going up) left a link
        // watch to run after it: set_operstate looks at the state from before, and
        // the link watch then makes the state anew from the carrier, so whatever it
        // set does not last (links seed 7643: `ip link set VETH up state dormant`)
        if ns.link(idx).map_or(0, |l| l.oper.gen) == gen0 {
            ns.link_set_operstate(idx, s).map_err(Failure::kernel)?;
        }
    }
    if let Some(m) = more.linkmode {
        notify |= ns.link_set_linkmode(idx, m).map_err(Failure::kernel)? || mode_changed;
    }
    // IFLA_VFINFO_LIST: no device fibkit models has virtual functions
    if let Some(e) = more.vf {
        return fail(ns, notify, Failure::errno(e));
    }
    // IFLA_AF_SPEC comes after the flags: a device brought up by the same request makes
    // its link-local address in the mode it had, and one whose MTU this request took
    // below IPv6's minimum has no IPv6 state left (the changes before it stay)
    if let Some(m) = addrgenmode {
        if let Err(e) = ns.link_set_addrgenmode(idx, m) {
            return fail(ns, notify, Failure::kernel(e));
        }
    }
    notify |= af_spec;
    if more.protodown.is_some() || more.pd_reason.is_some() {
        if let Err(e) = ns.link_set_proto_down(idx, more.protodown, more.pd_reason) {
            return fail(ns, notify, Failure::kernel(e));
        }
        notify = true;
    }
    // `xdp off`: nothing attached is detached
    notify |= more.xdp;
    if notify {
        ns.netdev_state_change(idx).map_err(Failure::kernel)?;
    }
    Ok(Outcome::Ok(String::new()))
}

/// A link setting fibkit does not keep, refused rather than ignored.
fn unmodelled_link_setting(k: &str, v: &str) -> Failure {
    Failure {
        stdout: String::new(),
        errno: Some(Errno::EOPNOTSUPP),
        stderr: format!("Error: fibkit does not model the link setting \"{k} {v}\".\n"),
        status: 2,
        exits: false,
    }
}

/// A flag word of `iplink_parse` (`arp`, `multicast`, `allmulticast`, `promisc`,
/// `trailers`, `dynamic`) and its `on`/`off`: the flag and whether it is set (`arp off`
/// sets NOARP, `trailers off` NOTRAILERS). Anything but exactly `on` or `off` is
/// iproute2's `on_off` error.
fn link_flag(k: &str, v: &str) -> Res<(u32, bool)> {
    use fibkit::link::iff;
    let on = match v {
        "on" => true,
        "off" => false,
        _ => {
            return Err(Failure::parse(
                format!("Error: argument of \"{k}\" must be \"on\" or \"off\", not \"{v}\"\n"),
                1,
            ))
        }
    };
    Ok(match k {
        "arp" => (iff::NOARP, !on),
        "trailers" => (iff::NOTRAILERS, !on),
        "multicast" => (iff::MULTICAST, on),
        "allmulticast" => (iff::ALLMULTI, on),
        "promisc" => (iff::PROMISC, on),
        _ => (iff::DYNAMIC, on),
    })
}

/// iproute2's `duparg`: a setting `iplink_parse` takes once given again.
fn duparg(key: &str, v: &str) -> Failure {
    Failure::parse(
        format!("Error: duplicate \"{key}\": \"{v}\" is the second value.\n"),
        255,
    )
}

/// iproute2's `parse_on_off` (`carrier`): `off` or `on`, or any prefix of them (`o` is
/// `off`); else its message, and `iplink_parse`'s -EINVAL as the exit status.
fn parse_on_off(k: &str, v: &str) -> Res<bool> {
    if matches(v, "off") {
        Ok(false)
    } else if matches(v, "on") {
        Ok(true)
    } else {
        Err(Failure::parse(
            format!("Error: argument of \"{k}\" must be one of \"off\", \"on\", not \"{v}\"\n"),
            22,
        ))
    }
}

/// Records a flag word's setting in `flags`/`mask` (a later word for the same flag wins).
fn add_flag(k: &str, v: &str, flags: &mut u32, mask: &mut u32) -> Res<()> {
    let (bit, set) = link_flag(k, v)?;
    *mask |= bit;
    if set {
        *flags |= bit;
    } else {
        *flags &= !bit;
    }
    Ok(())
}

/// `duparg2("dev", word)`: a second device word.
fn dup_dev(v: &str) -> Failure {
    Failure::parse(
        format!("Error: either \"dev\" is duplicate, or \"{v}\" is a garbage.\n"),
        255,
    )
}

/// The keyword of `iplink_parse` a word stands for, in its order (exact, or by any
/// prefix: `a` is `address`, `al` `alias`, `m` `master`, `n` `nomaster`, `d` `dynamic`,
/// `t` `type`, `txq` `txqueuelen`); other words come back as they are.
fn link_keyword(k: &str) -> &str {
    const ORDER: [(&str, bool); 41] = [
        ("up", true),
        ("down", true),
        ("name", true),
        ("index", true),
        ("link", false),
        ("address", false),
        ("broadcast", false),
        ("brd", true),
        ("txqueuelen", false),
        ("qlen", true),
        ("txqlen", false),
        ("mtu", true),
        ("xdpgeneric", true),
        ("xdpdrv", true),
        ("xdpoffload", true),
        ("xdp", true),
        ("netns", true),
        ("multicast", true),
        ("allmulticast", true),
        ("promisc", true),
        ("trailers", true),
        ("arp", true),
        ("carrier", true),
        ("vf", true),
        ("master", false),
        ("vrf", true),
        ("nomaster", false),
        ("dynamic", false),
        ("type", false),
        ("alias", false),
        ("group", true),
        ("mode", true),
        ("state", true),
        ("numtxqueues", false),
        ("numrxqueues", false),
        ("addrgenmode", false),
        ("protodown", true),
        ("protodown_reason", true),
        ("gso_max_size", true),
        ("gso_max_segs", true),
        ("gro_max_size", true),
    ];
    for (kw, exact) in ORDER {
        if (exact && k == kw) || (!exact && matches(k, kw)) {
            return kw;
        }
    }
    k
}

/// The attributes `iplink_parse` reads before `type` (for a veth, again after `peer`).
#[derive(Default)]
struct LinkAttrs {
    name: Option<String>,
    dev: Option<String>,
    mac: Option<[u8; 6]>,
    mtu: Option<u32>,
    txqlen: Option<u32>,
    group: Option<u32>,
    up: bool,
    /// Interface flags asked for (`arp off`, `promisc on`, ...) and which.
    flags: u32,
    flags_mask: u32,
    /// `master BR`, resolved while parsing (as iproute2 does).
    master: Option<(u32, String)>,
    /// `link DEV`: the lower device, resolved after the whole line is read.
    link: Option<String>,
    /// Index, queue counts, state, mode, GSO limits (and the settings a creation
    /// ignores: protodown, VFs).
    more: linkmore::LinkMore,
    /// `broadcast LLADDR`.
    broadcast: Option<Vec<u8>>,
    /// `addrgenmode MODE` (IFLA_AF_SPEC), which a creation refuses.
    af_spec: bool,
    /// The last `address` given, when it is not six bytes long: the kind's validate
    /// refuses it (EINVAL) once the kernel is asked, if the kernel knows the kind.
    bad_mac: Option<Vec<u8>>,
}

/// `iplink_parse` for `ip link add`: the words up to `type` (returned with what follows
/// it) or the end. Words of settings fibkit does not keep are refused.
fn link_add_attrs<'a>(ns: &Netns, it: &mut Args<'a>, at: &mut LinkAttrs) -> Res<Option<&'a str>> {
    let dup = |key: &str, v: &str| {
        Failure::parse(
            format!("Error: duplicate \"{key}\": \"{v}\" is the second value.\n"),
            255,
        )
    };
    while let Some(raw) = it.next() {
        let k = link_keyword(raw);
        let d = at.dev.clone().or_else(|| at.name.clone());
        if linkmore::word(ns, k, it, &mut at.more, d.as_deref())? {
            continue;
        }
        match k {
            "up" => at.up = true,
            "down" => at.up = false,
            "name" => {
                let v = it.val()?;
                if at.name.is_some() {
                    return Err(dup("name", v));
                }
                if !crate::show::ifname_ok(v) {
                    return Err(invarg("\"name\" not a valid ifname", v));
                }
                at.name = Some(v.to_string());
            }
            "address" => {
                let v = it.val()?;
                let b = parse_lladdr(v)?;
                at.mac = ether_addr(&b, true).ok();
                at.bad_mac = at.mac.is_none().then_some(b);
            }
            "mtu" => {
                let v = it.val()?;
                // (-1 is iproute2's mark for no MTU yet)
                if at.mtu.is_some_and(|m| m != u32::MAX) {
                    return Err(dup("mtu", v));
                }
                at.mtu = Some(
                    crate::names::parse_int(v)
                        .ok_or_else(|| invarg("Invalid \"mtu\" value\n", v))?,
                );
            }
            "txqueuelen" | "qlen" | "txqlen" => {
                let v = it.val()?;
                if at.txqlen.is_some_and(|q| q != u32::MAX) {
                    return Err(dup("txqueuelen", v));
                }
                at.txqlen = Some(
                    crate::names::parse_int(v)
                        .ok_or_else(|| invarg("Invalid \"txqueuelen\" value\n", v))?,
                );
            }
            "group" => {
                // rtnl_group_a2n: a name of the group file (`default` is 0) or a number
                let v = it.val()?;
                if at.group.is_some() {
                    return Err(dup("group", v));
                }
                // rtnl_group_a2n
                at.group = Some(
                    crate::show::group_a2n(v)
                        .map(|g| g as u32)
                        .ok_or_else(|| invarg("Invalid \"group\" value\n", v))?,
                );
            }
            // the kernel does not apply an alias at creation
            "alias" => {
                let v = it.val()?;
                if v.len() >= 256 {
                    return Err(invarg("alias too long\n", v));
                }
            }
            "type" => return Ok(Some(it.val()?)),
            "arp" | "multicast" | "allmulticast" | "promisc" | "trailers" | "dynamic" => {
                add_flag(k, it.val()?, &mut at.flags, &mut at.flags_mask)?;
            }
            "master" => {
                let v = it.val()?;
                let m = ll_index(ns, v).ok_or_else(|| invarg("Device does not exist\n", v))?;
                at.master = Some((m, v.to_string()));
            }
            // IFLA_MASTER 0 (the last one counts): rtnl_newlink_create's do_set_master
            // leaves the new device alone
            "nomaster" => at.master = None,
            "link" => {
                at.link = Some(it.val()?.to_string());
            }
            // rtnl_create_link does not look at a carrier
            "carrier" => {
                parse_on_off(k, it.val()?)?;
            }
            "broadcast" | "brd" => at.broadcast = Some(parse_lladdr(it.val()?)?),
            "addrgenmode" => {
                // (strcasecmp, as for `ip link set`)
                let v = it.val()?;
                let l = v.to_ascii_lowercase();
                if !["eui64", "none", "stable_secret", "random"].contains(&l.as_str()) {
                    return Err(invarg("Invalid address generation mode\n", v));
                }
                at.af_spec = true;
            }
            // no device is a VRF here (no VRF driver): name_is_vrf refuses every name
            "vrf" => return Err(invarg("Not a valid VRF name\n", it.val()?)),
            "netns" | "link-netns" | "link-netnsid" => {
                return Err(unmodelled_link_setting(k, it.next().unwrap_or("")));
            }
            _ => {
                link_word_help(raw)?;
                let v = if raw == "dev" { it.val()? } else { raw };
                if at.dev.is_some() {
                    return Err(dup_dev(v));
                }
                check_altifname(v)?;
                at.dev = Some(v.to_string());
            }
        }
    }
    Ok(None)
}

/// iplink_parse at creation: `name` and `dev` (any other word) may both be given
/// only as the same name.
fn name_and_dev(at: &LinkAttrs) -> Res<()> {
    match (&at.name, &at.dev) {
        (Some(n), Some(d)) if n != d => Err(Failure::parse(
            "both \"name\" and \"dev\" cannot be used when creating devices.\n",
            255,
        )),
        _ => Ok(()),
    }
}

/// `ip link add`: `iplink_modify` with `RTM_NEWLINK|NLM_F_CREATE|NLM_F_EXCL`. Words after
/// a dummy's (ifb's) type are ignored, as iproute2 ignores them for a kind without
/// options; a veth takes `peer` and the peer's own attributes.
/// `ifla_policy`'s checks (`fibkit::linkstate::check_ifla_policy`) of a request's
/// name and `gso_max_size`.
fn policy(name: &str, more: &linkmore::LinkMore) -> Res<()> {
    fibkit::linkstate::check_ifla_policy(name, more.gso_max_size).map_err(Failure::kernel)
}

/// `rtnl_newlink` parses a kind's IFLA_INFO_DATA against the kind's policy before its
/// validate: `br_policy` gives IFLA_BR_GROUP_ADDR (NLA_BINARY) at most ETH_ALEN bytes,
/// so a longer group address refuses the whole request before anything is applied (a
/// shorter one passes here and is br_changelink's EINVAL).
fn bridge_data_policy(c: Option<&fibkit::bridge::BridgeChange>) -> Res<()> {
    if c.and_then(|c| c.group_addr.as_ref())
        .is_some_and(|a| a.len() > 6)
    {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::ERANGE,
            "Attribute failed policy validation",
        )));
    }
    Ok(())
}

/// [`policy`] for the attributes of `ip link add` before its kind (the device's name,
/// as `name` or `dev`).
fn main_policy(at: &LinkAttrs) -> Res<()> {
    let name = at.name.as_deref().or(at.dev.as_deref()).unwrap_or("");
    policy(name, &at.more)
}

/// How `ip link add` or `replace` runs a creation.
#[derive(Clone, Copy)]
struct AddMode {
    /// The address the oracle put on the command line (see `link_cmd`).
    auto_mac: Option<[u8; 6]>,
    /// Whether the oracle turned `type dummy` into `type ifb`.
    dummy: bool,
    /// `ip link replace`: NLM_F_REPLACE instead of NLM_F_EXCL, which makes a device
    /// that exists EOPNOTSUPP (`rtnl_changelink`) instead of EEXIST.
    replace: bool,
}

fn link_add(ns: &mut Netns, rest: &[String], mode: AddMode, fam: Option<Family>) -> Res<u32> {
    let mut it = Args::new(rest);
    let mut at = LinkAttrs::default();
    let kind = link_add_attrs(ns, &mut it, &mut at)?;
    // iplink_parse: a group with no device names the group's devices, which a creation
    // cannot change (words after the kind are garbage first); both exit
    if at.group.is_some() && at.name.is_none() && at.dev.is_none() {
        return Err(group_at_creation(it.peek()));
    }
    name_and_dev(&at)?;
    // iplink_parse resolves `link` once the line is read, before the kind's options
    let lower = match &at.link {
        Some(d) => ll_index(ns, d).ok_or_else(|| nodev(d))?,
        None => 0,
    };
    let mut peer = LinkAttrs::default();
    let mut peer_inherits = false;
    let mut macvlan_sources = None;
    let mut bridge = None;
    let kind = match kind {
        Some("ifb") => LinkKind::Dummy,
        Some("dummy") if mode.dummy => LinkKind::Dummy,
        // the kernel's tun link ops refuse (tun_validate)
        Some("tun") => LinkKind::Tun {
            owner: None,
            group: None,
            tap: false,
            flags: 0,
        },
        Some("veth") => {
            if it.peek().is_none() {
                // no peer message: the peer is made from this request's attributes
                peer_inherits = true;
                peer.mtu = at.mtu;
                peer.txqlen = at.txqlen;
            }
            // (the peer's master, resolved by iproute2, is not applied: veth_newlink
            // configures the peer without do_set_master)
            veth_parse_opt(ns, &mut it, &mut peer, "veth")?;
            LinkKind::Veth { peer: 0 }
        }
        Some("bridge") => {
            bridge = bridge_parse_opt(&mut it)?;
            LinkKind::Bridge
        }
        Some("vxlan") => {
            let resolve = |d: &str| ll_index(ns, d);
            // no words: iproute2 sends no settings, which vxlan_validate refuses after
            // the address and MTU
            if it.i >= it.v.len() {
                main_policy(&at)?;
                let mac = at.bad_mac.as_deref().or(at.mac.as_ref().map(|m| &m[..]));
                fibkit::vxlan::validate_change(mac, at.mtu, (0, 0), false)
                    .map_err(Failure::kernel)?;
            }
            let a = vxlan_parse_opt(&resolve, &mut it, false)?;
            let mut conf = a.conf;
            // a GPE device is a layer-3 one (vxlan_raw_setup: ARPHRD_NONE, no address)
            conf.gpe = a.gpe;
            // without an address, `-4`/`-6` sends an unspecified group of the family,
            // which makes an IPv6 device of `-6`
            if conf.remote.is_none() && conf.local.is_none() {
                conf.remote = match fam {
                    Some(Family::V4) => Some(std::net::Ipv4Addr::UNSPECIFIED.into()),
                    Some(Family::V6) => Some(std::net::Ipv6Addr::UNSPECIFIED.into()),
                    None => None,
                };
            }
            LinkKind::Vxlan(Box::new(conf))
        }
        Some(k @ ("macvlan" | "macvtap")) => {
            let o = macvlan_parse_opt(&mut it, k, &mut String::new())?;
            macvlan_sources = o.sources;
            // macvlan_common_newlink's defaults: vepa, no flags, a queue of 1000
            LinkKind::Macvlan {
                lower: 0,
                mode: o.mode.unwrap_or(fibkit::link::macvlan_mode::VEPA),
                flags: o.flags.unwrap_or(0),
                bcqueuelen: o.bcqueuelen.unwrap_or(1000),
                max_mtu: 0,
                tap: k == "macvtap",
                sources: Vec::new(),
            }
        }
        Some(k) => {
            // vxcan's peer, as a veth's
            if k == "vxcan" {
                veth_parse_opt(ns, &mut it, &mut LinkAttrs::default(), k)?;
            }
            // the kind's own parser (kindopts), which reads every word
            let parsed = kindopts::parse_opt(ns, k, &mut it, false)
                .transpose()?
                .is_some();
            // the kind's parser asked for its usage
            if !parsed
                && !matches!(k, "vlan" | "ipvlan" | "ipvtap")
                && linkmore::iproute2_kind(k)
                && !linkmore::KINDS_WITHOUT_OPTIONS.contains(&k)
            {
                if let Some(f) = linkmore::kind_help_asked(k, &it.v[it.i..]) {
                    return Err(f);
                }
            }
            // iproute2's VLAN options, or garbage after a kind it has no parser for
            if k == "vlan" {
                linkmore::vlan_parse_opt(&mut it)?;
            } else if k == "ipvlan" || k == "ipvtap" {
                linkmore::ipvlan_parse_opt(&mut it, k)?;
            } else if !linkmore::iproute2_kind(k) {
                if let Some(w) = it.next() {
                    return Err(linkmore::garbage(w));
                }
            }
            // rtnl_newlink: the attribute policy, then a device that exists (EEXIST)
            // before a kind it does not know (no such link kind: its extack)
            main_policy(&at)?;
            let name = at.name.as_deref().or(at.dev.as_deref()).unwrap_or("");
            if ns.link_add_exists(at.more.index, name) {
                let e = if mode.replace {
                    Errno::EOPNOTSUPP
                } else {
                    Errno::EEXIST
                };
                return Err(Failure::kernel(fibkit::Error::new(e)));
            }
            return Err(Failure::kernel(fibkit::Error::msg(
                Errno::EOPNOTSUPP,
                "Unknown device type",
            )));
        }
        None => {
            // iplink_modify returns -1, which do_cmd negates: exit status 1
            return Err(Failure::parse(
                "Not enough information: \"type\" argument is required\n",
                1,
            ));
        }
    };
    let mut kind = kind;
    if let LinkKind::Macvlan { lower: l, .. } = &mut kind {
        *l = lower;
    }
    // rtnl_newlink's attribute policy, before the kind's validate (a veth peer's is
    // checked by Netns::link_add after it)
    main_policy(&at)?;
    bridge_data_policy(bridge.as_ref())?;
    // the kind's validate (ifb_validate, veth_validate, br_validate, macvlan_validate,
    // vxlan_validate): an address of any length but six bytes (tun_validate refuses
    // every request first)
    match &kind {
        // tun_validate refuses every request, before rtnl_newlink looks the name up
        LinkKind::Tun { .. } => {
            return Err(Failure::kernel(fibkit::Error::msg(
                Errno::EOPNOTSUPP,
                "tun/tap creation via rtnetlink is not supported",
            )))
        }
        LinkKind::Vxlan(_) if at.bad_mac.is_some() => {
            let mac = at.bad_mac.as_deref();
            fibkit::vxlan::validate_change(mac, at.mtu, (0, 0), true).map_err(Failure::kernel)?;
        }
        _ if at.bad_mac.is_some() => return Err(Failure::errno(Errno::EINVAL)),
        _ => {}
    }
    let name = at.name.or(at.dev).unwrap_or_default();
    let peer_name = peer.name.or(peer.dev);
    let req = LinkAdd {
        name,
        kind: Some(kind),
        peer: peer_name,
        mac: at.mac.or(mode.auto_mac),
        random_mac: mode.auto_mac.is_none(),
        replace: mode.replace,
        mtu: at.mtu,
        group: at.group,
        up: at.up,
        txqlen: at.txqlen,
        peer_mtu: peer.mtu,
        peer_mac: peer.mac,
        peer_txqlen: peer.txqlen,
        flags: at.flags,
        flags_mask: at.flags_mask,
        peer_flags: peer.flags,
        peer_flags_mask: peer.flags_mask,
        peer_up: peer.up,
        master: at.master.map(|(m, _)| m),
        macvlan_sources,
        bridge,
        index: at.more.index,
        peer_index: peer.more.index,
        queues: (at.more.numtx, at.more.numrx),
        gso: (
            at.more.gso_max_size,
            at.more.gso_max_segs,
            at.more.gro_max_size,
        ),
        operstate: at.more.operstate,
        link_mode: at.more.linkmode,
        peer_inherits,
        broadcast: at.broadcast,
        peer_broadcast: peer.broadcast,
        peer_group: peer.group,
        peer_queues: (peer.more.numtx, peer.more.numrx),
        peer_gso: (
            peer.more.gso_max_size,
            peer.more.gso_max_segs,
            peer.more.gro_max_size,
        ),
        peer_link_mode: peer.more.linkmode,
        af_spec: at.af_spec || peer.af_spec,
    };
    ns.link_add(&req).map_err(Failure::kernel)
}

/// The usage `iplink_bridge.c` prints (`print_explain`, iproute2 6.1).
const BRIDGE_USAGE: &str = "Usage: ... bridge [ fdb_flush ]\n\
\t\t  [ forward_delay FORWARD_DELAY ]\n\
\t\t  [ hello_time HELLO_TIME ]\n\
\t\t  [ max_age MAX_AGE ]\n\
\t\t  [ ageing_time AGEING_TIME ]\n\
\t\t  [ stp_state STP_STATE ]\n\
\t\t  [ priority PRIORITY ]\n\
\t\t  [ group_fwd_mask MASK ]\n\
\t\t  [ group_address ADDRESS ]\n\
\t\t  [ no_linklocal_learn NO_LINKLOCAL_LEARN ]\n\
\t\t  [ vlan_filtering VLAN_FILTERING ]\n\
\t\t  [ vlan_protocol VLAN_PROTOCOL ]\n\
\t\t  [ vlan_default_pvid VLAN_DEFAULT_PVID ]\n\
\t\t  [ vlan_stats_enabled VLAN_STATS_ENABLED ]\n\
\t\t  [ vlan_stats_per_port VLAN_STATS_PER_PORT ]\n\
\t\t  [ mcast_snooping MULTICAST_SNOOPING ]\n\
\t\t  [ mcast_vlan_snooping MULTICAST_VLAN_SNOOPING ]\n\
\t\t  [ mcast_router MULTICAST_ROUTER ]\n\
\t\t  [ mcast_query_use_ifaddr MCAST_QUERY_USE_IFADDR ]\n\
\t\t  [ mcast_querier MULTICAST_QUERIER ]\n\
\t\t  [ mcast_hash_elasticity HASH_ELASTICITY ]\n\
\t\t  [ mcast_hash_max HASH_MAX ]\n\
\t\t  [ mcast_last_member_count LAST_MEMBER_COUNT ]\n\
\t\t  [ mcast_startup_query_count STARTUP_QUERY_COUNT ]\n\
\t\t  [ mcast_last_member_interval LAST_MEMBER_INTERVAL ]\n\
\t\t  [ mcast_membership_interval MEMBERSHIP_INTERVAL ]\n\
\t\t  [ mcast_querier_interval QUERIER_INTERVAL ]\n\
\t\t  [ mcast_query_interval QUERY_INTERVAL ]\n\
\t\t  [ mcast_query_response_interval QUERY_RESPONSE_INTERVAL ]\n\
\t\t  [ mcast_startup_query_interval STARTUP_QUERY_INTERVAL ]\n\
\t\t  [ mcast_stats_enabled MCAST_STATS_ENABLED ]\n\
\t\t  [ mcast_igmp_version IGMP_VERSION ]\n\
\t\t  [ mcast_mld_version MLD_VERSION ]\n\
\t\t  [ nf_call_iptables NF_CALL_IPTABLES ]\n\
\t\t  [ nf_call_ip6tables NF_CALL_IP6TABLES ]\n\
\t\t  [ nf_call_arptables NF_CALL_ARPTABLES ]\n\
\n\
Where: VLAN_PROTOCOL := { 802.1Q | 802.1ad }\n";

/// `bridge_parse_opt`'s keywords in its order; `true`: only the exact word (the two
/// boolean options), otherwise any prefix.
const BRIDGE_KEYWORDS: &[(&str, bool)] = &[
    ("forward_delay", false),
    ("hello_time", false),
    ("max_age", false),
    ("ageing_time", false),
    ("stp_state", false),
    ("priority", false),
    ("vlan_filtering", false),
    ("vlan_protocol", false),
    ("group_fwd_mask", false),
    ("group_address", false),
    ("no_linklocal_learn", true),
    ("fdb_flush", false),
    ("vlan_default_pvid", false),
    ("vlan_stats_enabled", false),
    ("vlan_stats_per_port", false),
    ("mcast_router", false),
    ("mcast_snooping", false),
    ("mcast_vlan_snooping", true),
    ("mcast_query_use_ifaddr", false),
    ("mcast_querier", false),
    ("mcast_hash_elasticity", false),
    ("mcast_hash_max", false),
    ("mcast_last_member_count", false),
    ("mcast_startup_query_count", false),
    ("mcast_last_member_interval", false),
    ("mcast_membership_interval", false),
    ("mcast_querier_interval", false),
    ("mcast_query_interval", false),
    ("mcast_query_response_interval", false),
    ("mcast_startup_query_interval", false),
    ("mcast_stats_enabled", false),
    ("mcast_igmp_version", false),
    ("mcast_mld_version", false),
    ("nf_call_iptables", false),
    ("nf_call_ip6tables", false),
    ("nf_call_arptables", false),
    ("help", false),
];

/// `bridge_parse_opt` (iproute2 6.1): the settings of `ip link add|set ... type bridge
/// OPTIONS`, `None` when no word follows (no `IFLA_INFO_DATA` is sent then).
fn bridge_parse_opt(it: &mut Args<'_>) -> Res<Option<fibkit::bridge::BridgeChange>> {
    let fail = |msg: String| Failure::parse(msg, 1);
    let mut c = fibkit::bridge::BridgeChange::default();
    let mut any = false;
    while let Some(w) = it.next() {
        any = true;
        let Some(k) = BRIDGE_KEYWORDS
            .iter()
            .find(|(kw, exact)| if *exact { w == *kw } else { matches(w, kw) })
            .map(|(kw, _)| *kw)
        else {
            return Err(fail(format!(
                "bridge: unknown command \"{w}\"?\n{BRIDGE_USAGE}"
            )));
        };
        match k {
            "help" => return Err(fail(BRIDGE_USAGE.to_string())),
            "fdb_flush" => continue,
            _ => {}
        }
        let v = it.val()?;
        let msg = format!("invalid {k}");
        let n32 = || parse_u32(v).ok_or_else(|| invarg(&msg, v));
        let n16 = || {
            parse_u32(v)
                .and_then(|x| u16::try_from(x).ok())
                .ok_or_else(|| invarg(&msg, v))
        };
        let n8 = || {
            parse_u32(v)
                .and_then(|x| u8::try_from(x).ok())
                .ok_or_else(|| invarg(&msg, v))
        };
        let n64 = || parse_u64(v).ok_or_else(|| invarg(&msg, v));
        let interval = |i: usize, c: &mut fibkit::bridge::BridgeChange| -> Res<()> {
            c.mcast_intervals[i] = Some(n64()?);
            Ok(())
        };
        match k {
            "forward_delay" => c.forward_delay = Some(n32()?),
            "hello_time" => c.hello_time = Some(n32()?),
            "max_age" => c.max_age = Some(n32()?),
            "ageing_time" => c.ageing_time = Some(n32()?),
            "stp_state" => c.stp_state = Some(n32()?),
            "priority" => c.priority = Some(n16()?),
            "vlan_filtering" => c.vlan_filtering = Some(n8()?),
            "vlan_protocol" => {
                // ll_proto_a2n; the kernel, built without VLAN filtering, ignores it
                if ll_proto_id(v).is_none() {
                    return Err(invarg(&msg, v));
                }
            }
            "group_fwd_mask" => c.group_fwd_mask = Some(n16()?),
            "group_address" => c.group_addr = Some(parse_lladdr(v)?),
            "no_linklocal_learn" => c.no_ll_learn = Some(n8()? != 0),
            // ignored by a kernel without VLAN filtering (br_changelink's #ifdef)
            "vlan_default_pvid" => {
                n16()?;
            }
            "vlan_stats_enabled" | "vlan_stats_per_port" => {
                n8()?;
            }
            "mcast_router" => c.mcast_router = Some(n8()?),
            "mcast_snooping" => c.mcast_snooping = Some(n8()?),
            "mcast_vlan_snooping" => c.mcast_vlan_snooping = Some(n8()? != 0),
            "mcast_query_use_ifaddr" => c.mcast_query_use_ifaddr = Some(n8()?),
            "mcast_querier" => c.mcast_querier = Some(n8()?),
            // deprecated: the kernel warns and keeps 16
            "mcast_hash_elasticity" => {
                n32()?;
            }
            "mcast_hash_max" => c.hash_max = Some(n32()?),
            "mcast_last_member_count" => c.last_member_count = Some(n32()?),
            "mcast_startup_query_count" => c.startup_query_count = Some(n32()?),
            "mcast_last_member_interval" => interval(0, &mut c)?,
            "mcast_membership_interval" => interval(1, &mut c)?,
            "mcast_querier_interval" => interval(2, &mut c)?,
            "mcast_query_interval" => interval(3, &mut c)?,
            "mcast_query_response_interval" => interval(4, &mut c)?,
            "mcast_startup_query_interval" => interval(5, &mut c)?,
            "mcast_stats_enabled" => c.mcast_stats = Some(n8()?),
            "mcast_igmp_version" => c.igmp_version = Some(n8()?),
            "mcast_mld_version" => c.mld_version = Some(n8()?),
            "nf_call_iptables" => c.nf_call[0] = Some(n8()?),
            "nf_call_ip6tables" => c.nf_call[1] = Some(n8()?),
            _ => c.nf_call[2] = Some(n8()?),
        }
    }
    Ok(any.then_some(c))
}

/// The usage `iplink_bridge_slave.c` prints (`print_explain`, iproute2 6.1).
const BRIDGE_SLAVE_USAGE: &str = "Usage: ... bridge_slave [ fdb_flush ]\n\
\t\t\t[ state STATE ]\n\
\t\t\t[ priority PRIO ]\n\
\t\t\t[ cost COST ]\n\
\t\t\t[ guard {on | off} ]\n\
\t\t\t[ hairpin {on | off} ]\n\
\t\t\t[ fastleave {on | off} ]\n\
\t\t\t[ root_block {on | off} ]\n\
\t\t\t[ learning {on | off} ]\n\
\t\t\t[ flood {on | off} ]\n\
\t\t\t[ proxy_arp {on | off} ]\n\
\t\t\t[ proxy_arp_wifi {on | off} ]\n\
\t\t\t[ mcast_router MULTICAST_ROUTER ]\n\
\t\t\t[ mcast_fast_leave {on | off} ]\n\
\t\t\t[ mcast_flood {on | off} ]\n\
\t\t\t[ bcast_flood {on | off} ]\n\
\t\t\t[ mcast_to_unicast {on | off} ]\n\
\t\t\t[ group_fwd_mask MASK ]\n\
\t\t\t[ neigh_suppress {on | off} ]\n\
\t\t\t[ vlan_tunnel {on | off} ]\n\
\t\t\t[ isolated {on | off} ]\n\
\t\t\t[ locked {on | off} ]\n\
\t\t\t[ backup_port DEVICE ] [ nobackup_port ]\n";

/// `bridge_slave_parse_opt`'s keywords in its order, with the port flag an `on`/`off`
/// word sets (0: a keyword with another kind of value, or none).
const BRIDGE_SLAVE_KEYWORDS: &[(&str, u32)] = {
    use fibkit::bridge::port_flag as f;
    &[
        ("fdb_flush", 0),
        ("state", 0),
        ("priority", 0),
        ("cost", 0),
        ("hairpin", f::HAIRPIN),
        ("guard", f::GUARD),
        ("root_block", f::ROOT_BLOCK),
        ("fastleave", f::FAST_LEAVE),
        ("learning", f::LEARNING),
        ("flood", f::FLOOD),
        ("mcast_flood", f::MCAST_FLOOD),
        ("bcast_flood", f::BCAST_FLOOD),
        ("mcast_to_unicast", f::MCAST_TO_UNICAST),
        ("proxy_arp", f::PROXY_ARP),
        ("proxy_arp_wifi", f::PROXY_ARP_WIFI),
        ("mcast_router", 0),
        ("mcast_fast_leave", f::FAST_LEAVE),
        ("neigh_suppress", f::NEIGH_SUPPRESS),
        ("group_fwd_mask", 0),
        ("vlan_tunnel", f::VLAN_TUNNEL),
        ("isolated", f::ISOLATED),
        ("locked", f::LOCKED),
        ("backup_port", 0),
        ("nobackup_port", 0),
        ("help", 0),
    ]
};

/// `bridge_slave_parse_opt` (iproute2 6.1): the settings of `ip link set DEV type
/// bridge_slave OPTIONS`, `None` when no word follows.
fn bridge_slave_parse_opt(
    ns: &Netns,
    it: &mut Args<'_>,
) -> Res<Option<fibkit::bridge::PortChange>> {
    let fail = |msg: String| Failure::parse(msg, 1);
    let mut c = fibkit::bridge::PortChange::default();
    let mut any = false;
    while let Some(w) = it.next() {
        any = true;
        let Some(&(k, flag)) = BRIDGE_SLAVE_KEYWORDS.iter().find(|(kw, _)| matches(w, kw)) else {
            return Err(fail(format!(
                "bridge_slave: unknown option \"{w}\"?\n{BRIDGE_SLAVE_USAGE}"
            )));
        };
        match k {
            "help" => return Err(fail(BRIDGE_SLAVE_USAGE.to_string())),
            "fdb_flush" => continue,
            "nobackup_port" => {
                c.backup = Some(0);
                continue;
            }
            _ => {}
        }
        let v = it.val()?;
        if flag != 0 {
            // parse_on_off: a prefix of "off", then of "on"
            let on = if matches(v, "off") {
                false
            } else if matches(v, "on") {
                true
            } else {
                // parse_on_off's refusal ends bridge_slave_parse with exit(1)
                return Err(fail(format!(
                    "Error: argument of \"{k}\" must be one of \"off\", \"on\", not \"{v}\"\n"
                ))
                .exiting(true));
            };
            c.flags.0 |= flag;
            if on {
                c.flags.1 |= flag;
            } else {
                c.flags.1 &= !flag;
            }
            continue;
        }
        let small = |max: u32, msg: &str| {
            parse_u32(v)
                .filter(|x| *x <= max)
                .ok_or_else(|| invarg(msg, v))
        };
        match k {
            "state" => c.state = Some(small(0xff, "state is invalid")? as u8),
            "priority" => c.priority = Some(small(0xffff, "priority is invalid")? as u16),
            "cost" => c.cost = Some(small(u32::MAX, "cost is invalid")?),
            "mcast_router" => c.mcast_router = Some(small(0xff, "invalid mcast_router")? as u8),
            "group_fwd_mask" => {
                c.group_fwd_mask = Some(small(0xffff, "invalid group_fwd_mask")? as u16)
            }
            _ => {
                // backup_port: the name resolved while parsing
                let b = ll_index(ns, v).ok_or_else(|| invarg("Device does not exist\n", v))?;
                c.backup = Some(b);
            }
        }
    }
    Ok(any.then_some(c))
}

/// The usage `iplink_vxlan.c` prints (`print_explain`, iproute2 6.1).
const VXLAN_USAGE: &str = "Usage: ... vxlan id VNI\n\
\t\t[ { group | remote } IP_ADDRESS ]\n\
\t\t[ local ADDR ]\n\
\t\t[ ttl TTL ]\n\
\t\t[ tos TOS ]\n\
\t\t[ df DF ]\n\
\t\t[ flowlabel LABEL ]\n\
\t\t[ dev PHYS_DEV ]\n\
\t\t[ dstport PORT ]\n\
\t\t[ srcport MIN MAX ]\n\
\t\t[ [no]learning ]\n\
\t\t[ [no]proxy ]\n\
\t\t[ [no]rsc ]\n\
\t\t[ [no]l2miss ]\n\
\t\t[ [no]l3miss ]\n\
\t\t[ ageing SECONDS ]\n\
\t\t[ maxaddress NUMBER ]\n\
\t\t[ [no]udpcsum ]\n\
\t\t[ [no]udp6zerocsumtx ]\n\
\t\t[ [no]udp6zerocsumrx ]\n\
\t\t[ [no]remcsumtx ] [ [no]remcsumrx ]\n\
\t\t[ [no]external ] [ gbp ] [ gpe ]\n\
\t\t[ [no]vnifilter ]\n\
\n\
Where:\tVNI\t:= 0-16777215\n\
\tADDR\t:= { IP_ADDRESS | any }\n\
\tTOS\t:= { NUMBER | inherit }\n\
\tTTL\t:= { 1..255 | auto | inherit }\n\
\tDF\t:= { unset | set | inherit }\n\
\tLABEL := 0-1048575\n";

/// What `type vxlan` asked for: the settings (defaults where not given) and which
/// were given.
struct VxlanArgs {
    conf: fibkit::vxlan::Vxlan,
    change: fibkit::vxlan::VxlanChange,
    /// `dstport` was given.
    port_set: bool,
    /// Where the first refused setting comes in `vxlan_nl2conf`'s order.
    refused_at: Option<u8>,
    /// `gpe`: a layer-3 device (whose IPv6 link-local address the kernel draws at
    /// random, as a tun's: addrconf_dev_config's random mode for ARPHRD_NONE).
    gpe: bool,
}

/// `vxlan_parse_opt` (iproute2 6.1): every setting (`gpe` apart, for the caller).
/// `set_op`: an `ip link set` (no VNI needed); what a change cannot carry is kept as
/// the kernel's refusal, in `vxlan_nl2conf`'s order.
fn vxlan_parse_opt(
    resolve: &dyn Fn(&str) -> Option<u32>,
    it: &mut Args<'_>,
    set_op: bool,
) -> Res<VxlanArgs> {
    use fibkit::vxlan::Vxlan;
    use std::net::IpAddr;
    let fail = |msg: String| Failure::parse(msg, 1);
    let dup = |key: &str, v: &str| {
        Failure::parse(
            format!("Error: either \"{key}\" is duplicate, or \"{v}\" is a garbage.\n"),
            255,
        )
    };
    let mut conf = Vxlan::default();
    let mut change = fibkit::vxlan::VxlanChange::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut once = |bit: &'static str, key: &str, v: &str| -> Res<()> {
        if seen.contains(&bit) {
            return Err(dup(key, v));
        }
        seen.push(bit);
        Ok(())
    };
    let (mut daddr, mut saddr): (Option<IpAddr>, Option<IpAddr>) = (None, None);
    let (mut id_set, mut dev_set, mut port_set, mut metadata) = (false, false, false, false);
    let (mut vnifilter, mut gpe) = (false, false);
    // what a change of an existing device cannot ask for: the kernel's refusal, by
    // vxlan_nl2conf's order of attributes (the first one wins)
    let mut refused: Option<(u8, &'static str)> = None;
    let mut refuse = |ord: u8, msg: &'static str| {
        if refused.is_none_or(|(o, _)| ord < o) {
            refused = Some((ord, msg));
        }
    };
    let fam_of = |a: Option<IpAddr>| match a {
        Some(IpAddr::V4(_)) => Some(Family::V4),
        Some(IpAddr::V6(_)) => Some(Family::V6),
        None => None,
    };
    let ip = |v: &str, fam: Option<Family>| -> Res<IpAddr> {
        match crate::names::parse_addr(v, fam) {
            Some(Addr::V4(a)) => Ok(IpAddr::V4(a.into())),
            Some(Addr::V6(a)) => Ok(IpAddr::V6(a.into())),
            None => Err(bad_addr(v, fam)),
        }
    };
    while let Some(w) = it.next() {
        if matches(w, "id") || matches(w, "vni") {
            let v = it.val()?;
            once("id", "id", v)?;
            let vni = parse_u32(v)
                .filter(|&n| n < 1 << 24)
                .ok_or_else(|| invarg("invalid id", v))?;
            conf.vni = vni;
            change.vni = Some(vni);
            id_set = true;
        } else if matches(w, "group") || matches(w, "remote") {
            let group = matches(w, "group");
            if daddr.is_some_and(|a| a.is_multicast() != group) {
                return Err(fail(
                    "vxlan: both group and remote cannot be specified\n".into(),
                ));
            }
            let v = it.val()?;
            once("group", if group { "group" } else { "remote" }, v)?;
            // get_addr reads `default`/`any`/`all` without ADDRTYPE_INET: never valid
            // here; an unspecified address (0.0.0.0, ::) is a remote one, and picks
            // the device's family (random seed vxlan 2)
            if matches!(v, "default" | "any" | "all") {
                let what = if group { "group" } else { "remote" };
                return Err(invarg(&format!("invalid {what} address"), v));
            }
            let a = ip(v, fam_of(saddr))?;
            if a.is_multicast() != group || (group && a.is_unspecified()) {
                let what = if group { "group" } else { "remote" };
                return Err(invarg(&format!("invalid {what} address"), v));
            }
            daddr = Some(a);
            change.remote = Some(a);
        } else if matches(w, "local") {
            let v = it.val()?;
            once("local", "local", v)?;
            if matches!(v, "default" | "any" | "all") {
                return Err(invarg("invalid local address", v));
            }
            let a = ip(v, fam_of(daddr))?;
            if a.is_multicast() {
                return Err(invarg("invalid local address", v));
            }
            saddr = Some(a);
            change.local = Some(a);
        } else if matches(w, "dev") {
            let v = it.val()?;
            once("dev", "dev", v)?;
            let idx = resolve(v).ok_or_else(|| nodev_exit(v))?;
            conf.lower = idx;
            change.lower = Some(idx);
            dev_set = true;
        } else if matches(w, "ttl") || matches(w, "hoplimit") {
            let v = it.val()?;
            once("ttl", "ttl", v)?;
            let t = match v {
                "inherit" => (0, true),
                "auto" => (0, false),
                _ => {
                    let n = parse_u32(v).ok_or_else(|| invarg("invalid TTL", v))?;
                    if n > 255 {
                        return Err(invarg("TTL must be <= 255", v));
                    }
                    (n as u8, false)
                }
            };
            (conf.ttl, conf.ttl_inherit) = t;
            if t.1 {
                refuse(6, "vxlan: cannot change TTL_INHERIT flag");
            } else {
                change.ttl = Some(t.0);
            }
        } else if matches(w, "tos") || matches(w, "dsfield") {
            let v = it.val()?;
            once("tos", "tos", v)?;
            let t = if v == "inherit" {
                1
            } else {
                crate::names::dsfield_a2n(v).ok_or_else(|| invarg("bad TOS value", v))?
            };
            conf.tos = t;
            change.tos = Some(t);
        } else if matches(w, "df") {
            let v = it.val()?;
            once("df", "df", v)?;
            let d = match v {
                "unset" => 0,
                "set" => 1,
                "inherit" => 2,
                _ => return Err(invarg("DF must be 'unset', 'set' or 'inherit'", v)),
            };
            conf.df = d;
            change.df = Some(d);
        } else if matches(w, "label") || matches(w, "flowlabel") {
            let v = it.val()?;
            once("flowlabel", "flowlabel", v)?;
            let l = parse_u32(v)
                .filter(|l| l & !0xf_ffff == 0)
                .ok_or_else(|| invarg("invalid flowlabel", v))?;
            conf.label = l;
            change.label = Some(l);
        } else if matches(w, "ageing") {
            let v = it.val()?;
            once("ageing", "ageing", v)?;
            let a = if v == "none" {
                0
            } else {
                parse_u32(v).ok_or_else(|| invarg("ageing timer", v))?
            };
            conf.ageing = a;
            change.ageing = Some(a);
        } else if matches(w, "maxaddress") {
            let v = it.val()?;
            once("maxaddress", "maxaddress", v)?;
            conf.limit = if v == "unlimited" {
                0
            } else {
                parse_u32(v).ok_or_else(|| invarg("max addresses", v))?
            };
            refuse(15, "Cannot change limit");
        } else if matches(w, "port") || matches(w, "srcport") {
            let v = it.val()?;
            once("srcport", "srcport", v)?;
            let lo = parse_u32(v)
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| invarg("min port", v))?;
            let v = it.val()?;
            let hi = parse_u32(v)
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| invarg("max port", v))?;
            conf.srcport = (lo, hi);
            if lo != 0 || hi != 0 {
                refuse(17, "Cannot change port range");
            }
        } else if matches(w, "dstport") {
            let v = it.val()?;
            once("dstport", "dstport", v)?;
            conf.dstport = parse_u32(v)
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| invarg("dst port", v))?;
            port_set = true;
            if conf.dstport != 0 {
                refuse(18, "Cannot change port");
            }
        } else if matches(w, "nolearning") || matches(w, "learning") {
            once("learning", w, w)?;
            let on = !matches(w, "nolearning");
            conf.learning = on;
            change.learning = Some(on);
        } else if let Some((bit, on, ord, msg)) = VXLAN_FLAGS.iter().find_map(|&(k, ord, msg)| {
            if matches(w, &format!("no{k}")) {
                Some((k, false, ord, msg))
            } else if matches(w, k) {
                Some((k, true, ord, msg))
            } else {
                None
            }
        }) {
            once(bit, w, w)?;
            match bit {
                "proxy" => conf.proxy = on,
                "rsc" => conf.rsc = on,
                "l2miss" => conf.l2miss = on,
                "l3miss" => conf.l3miss = on,
                "udpcsum" => conf.udp_csum = on,
                "udp6zerocsumtx" => conf.zero_csum6_tx = on,
                "udp6zerocsumrx" => conf.zero_csum6_rx = on,
                "remcsumtx" => conf.remcsum_tx = on,
                _ => conf.remcsum_rx = on,
            }
            refuse(ord, msg);
        } else if matches(w, "external") || matches(w, "noexternal") {
            once("external", w, w)?;
            metadata = matches(w, "external");
            if metadata {
                conf.learning = false;
            }
            refuse(16, "vxlan: cannot change COLLECT_METADATA flag");
        } else if matches(w, "gbp") {
            once("gbp", w, w)?;
            conf.gbp = true;
            refuse(24, "vxlan: cannot change GBP flag");
        } else if w == "vnifilter" || w == "novnifilter" {
            // the exact words only
            once("vnifilter", w, w)?;
            vnifilter = w == "vnifilter";
            conf.vnifilter = vnifilter;
            refuse(26, "vxlan: cannot change flag");
        } else if matches(w, "gpe") {
            once("gpe", w, w)?;
            gpe = true;
        } else if matches(w, "help") {
            return Err(fail(VXLAN_USAGE.to_string()));
        } else {
            return Err(fail(format!(
                "vxlan: unknown command \"{w}\"?\n{VXLAN_USAGE}"
            )));
        }
    }
    // GPE's own port (4790) is sent when none was given (and the missing port's
    // warning left out): a change cannot carry it
    if gpe && !port_set {
        port_set = true;
        refuse(18, "Cannot change port");
    }
    if !metadata && vnifilter {
        return Err(fail(
            "vxlan: vnifilter is valid only when 'external' is set\n".into(),
        ));
    }
    if metadata && id_set {
        return Err(fail(
            "vxlan: both 'external' and vni cannot be specified\n".into(),
        ));
    }
    if !metadata && !id_set && !set_op {
        return Err(fail("vxlan: missing virtual network identifier\n".into()));
    }
    if daddr.is_some_and(|a| a.is_multicast()) && !dev_set {
        return Err(fail(
            "vxlan: 'group' requires 'dev' to be specified\n".into(),
        ));
    }
    conf.remote = daddr;
    conf.local = saddr;
    conf.external = metadata;
    change.refused = refused.map(|(_, m)| m);
    let refused_at = refused.map(|(o, _)| o);
    Ok(VxlanArgs {
        refused_at,
        conf,
        change,
        port_set,
        gpe,
    })
}

/// Whether `ip link add ... type vxlan WORDS` prints [`VXLAN_PORT_WARNING`]: no
/// `dstport`, and the words read without an error before the warning (`resolve`
/// names the devices that exist).
fn vxlan_port_warning(resolve: &dyn Fn(&str) -> Option<u32>, words: &[String]) -> bool {
    let mut it = Args::new(words);
    vxlan_parse_opt(resolve, &mut it, false).is_ok_and(|a| !a.port_set)
}

/// The flags of `vxlan_parse_opt` that take a `no` form, in its order, with their
/// place in `vxlan_nl2conf` and the kernel's refusal to change them.
const VXLAN_FLAGS: [(&str, u8, &str); 9] = [
    ("proxy", 11, "vxlan: cannot change PROXY flag"),
    ("rsc", 12, "vxlan: cannot change RSC flag"),
    ("l2miss", 13, "vxlan: cannot change L2MISS flag"),
    ("l3miss", 14, "vxlan: cannot change L3MISS flag"),
    ("udpcsum", 19, "Cannot change UDP_CSUM flag"),
    (
        "udp6zerocsumtx",
        20,
        "vxlan: cannot change UDP_ZERO_CSUM6_TX flag",
    ),
    (
        "udp6zerocsumrx",
        21,
        "vxlan: cannot change UDP_ZERO_CSUM6_RX flag",
    ),
    ("remcsumtx", 22, "vxlan: cannot change REMCSUM_TX flag"),
    ("remcsumrx", 23, "vxlan: cannot change REMCSUM_RX flag"),
];

/// The warning `vxlan_parse_opt` prints for a new device without `dstport`, once the
/// rest of the line is read (see [`parse_warnings`]).
const VXLAN_PORT_WARNING: &str = "vxlan: destination port not specified\n\
Will use Linux kernel default (non-standard value)\n\
Use 'dstport 4789' to get the IANA assigned value\n\
Use 'dstport 0' to get default and quiet this message\n";

/// The usage `iplink_macvlan.c` prints (`print_explain`) for `macvlan` (`macvtap` in
/// its place for a macvtap: see [`macvlan_usage`]).
const MACVLAN_USAGE: &str =
    "Usage: ... macvlan mode MODE [flag MODE_FLAG] MODE_OPTS [bcqueuelen BC_QUEUE_LEN]\n\
\n\
MODE: private | vepa | bridge | passthru | source\n\
MODE_FLAG: null | nopromisc | nodst\n\
MODE_OPTS: for mode \"source\":\n\
\tmacaddr { { add | del } <macaddr> | set [ <macaddr> [ <macaddr>  ... ] ] | flush }\n\
BC_QUEUE_LEN: Length of the rx queue for broadcast/multicast: [0-4294967295]\n";

/// [`MACVLAN_USAGE`] for the kind `kind` (`macvlan` or `macvtap`).
fn macvlan_usage(kind: &str) -> String {
    MACVLAN_USAGE.replacen("macvlan", kind, 1)
}

/// What `type macvlan` asks for: `IFLA_MACVLAN_MODE`, `_FLAGS` and `_BC_QUEUE_LEN`,
/// each only when given, and a change to the source addresses (`macaddr`).
struct MacvlanOpts {
    mode: Option<u32>,
    flags: Option<u16>,
    bcqueuelen: Option<u32>,
    sources: Option<fibkit::macvlan::SourcesChange>,
}

/// `macvlan_parse_opt`: the words after `type macvlan` (the lower device comes with
/// `link`). What it prints and goes on from (an address of `macaddr set` that
/// `ll_addr_a2n` cannot read) is appended to `warn`.
///
/// `macaddr set` reads addresses until a word is not six bytes; that word is then read
/// again as an option, as `ll_addr_a2n` left it: cut at its first colon, which it
/// overwrote. Each `macaddr` sends its mode again (the last one counts), `add`/`del`
/// their address, `set` a new list.
fn macvlan_parse_opt(it: &mut Args<'_>, kind: &str, warn: &mut String) -> Res<MacvlanOpts> {
    let usage = macvlan_usage(kind);
    use fibkit::link::macvlan_mode as mm;
    let fail = |msg: String| Failure::parse(msg, 1);
    let mut mode = 0;
    let mut flags = 0u16;
    let mut has_flags = false;
    let mut bcqueuelen = None;
    let mut sources: Option<fibkit::macvlan::SourcesChange> = None;
    // a word read again (PREV_ARG after `ll_addr_a2n` changed it)
    let mut again: Option<String> = None;
    loop {
        let owned = match again.take() {
            Some(w) => w,
            None => match it.next() {
                Some(w) => w.to_string(),
                None => break,
            },
        };
        let w = owned.as_str();
        if matches(w, "mode") {
            let v = it.val()?;
            mode = match v {
                "private" => mm::PRIVATE,
                "vepa" => mm::VEPA,
                "bridge" => mm::BRIDGE,
                "passthru" => mm::PASSTHRU,
                "source" => mm::SOURCE,
                _ => return Err(fail(format!(
                    "Error: argument of \"mode\" must be \"private\", \"vepa\", \"bridge\", \"passthru\" or \"source\", not \"{v}\"\n"
                ))),
            };
        } else if matches(w, "flag") {
            let v = it.val()?;
            flags |= match v {
                "nopromisc" => 1,
                "nodst" => 2,
                "null" => 0,
                _ => return Err(fail(format!(
                    "Error: argument of \"flag\" must be \"nopromisc\", \"nodst\" or \"null\", not \"{v}\"\n"
                ))),
            };
            has_flags = true;
        } else if matches(w, "macaddr") {
            let sc = sources.get_or_insert_with(Default::default);
            sc.mode = match it.val()? {
                "add" => mm::MACADDR_ADD,
                "del" => mm::MACADDR_DEL,
                "set" => mm::MACADDR_SET,
                "flush" => mm::MACADDR_FLUSH,
                _ => return Err(fail(usage)),
            };
            if sc.mode == mm::MACADDR_ADD || sc.mode == mm::MACADDR_DEL {
                // not six bytes: a failure without a word of its own
                match ll_addr_a2n(it.val()?, 6)? {
                    (b, 6) => sc.addr = Some(b.try_into().unwrap_or_default()),
                    _ => return Err(fail(String::new())),
                }
            }
            if sc.mode == mm::MACADDR_SET {
                let mut list = Vec::new();
                while let Some(a) = it.next() {
                    match ll_addr_a2n(a, 6) {
                        Ok((b, 6)) => list.push(b.try_into().unwrap_or_default()),
                        other => {
                            if let Err(f) = other {
                                warn.push_str(&f.stderr);
                            }
                            let cut = if a.contains('.') {
                                a
                            } else {
                                a.split(':').next().unwrap_or(a)
                            };
                            again = Some(cut.to_string());
                            break;
                        }
                    }
                }
                sc.data = Some(list);
            }
        } else if matches(w, "nopromisc") {
            flags |= 1;
            has_flags = true;
        } else if matches(w, "nodst") {
            flags |= 2;
            has_flags = true;
        } else if matches(w, "bcqueuelen") {
            let v = it.val()?;
            bcqueuelen = Some(parse_u32(v).ok_or_else(|| {
                fail(format!(
                    "Error: argument of \"bcqueuelen\" must be a positive integer [0-4294967295], not \"{v}\"\n"
                ))
            })?);
        } else if matches(w, "help") {
            return Err(fail(usage));
        } else {
            return Err(fail(format!("{kind}: unknown option \"{w}\"?\n{usage}")));
        }
    }
    if has_flags && flags & 1 != 0 && mode != mm::PASSTHRU {
        return Err(fail(format!(
            "{kind}: nopromisc flag only valid in passthru mode\n{usage}"
        )));
    }
    Ok(MacvlanOpts {
        mode: (mode != 0).then_some(mode),
        flags: has_flags.then_some(flags),
        bcqueuelen,
        sources,
    })
}

/// `ip link delete`: `iplink_modify` with RTM_DELLINK, so the whole line goes through
/// `iplink_parse` as for a change (every attribute read and checked, then dropped by
/// `rtnl_dellink`, which looks at the device's index alone): the address length
/// check, no `index`, a group without a device deleting the group (garbage after it
/// refused), a device required and looked up; then the kind's own words.
fn link_delete(ns: &mut Netns, opts: &Opts, rest: &[String]) -> Res<Outcome> {
    let mut it = Args::new(rest);
    let mut at = LinkAttrs::default();
    let kind = link_add_attrs(ns, &mut it, &mut at)?;
    // `name` alone names the device too
    let dev = at.dev.clone().or_else(|| at.name.clone());
    if let (Some(l), Some(b)) = (
        dev.as_deref()
            .and_then(|d| ll_index(ns, d))
            .and_then(|i| ns.link(i)),
        &at.bad_mac,
    ) {
        if !l.is_tun() {
            return Err(Failure::parse(
                format!("Invalid address length {} - must be 6 bytes\n", b.len()),
                1,
            ));
        }
    }
    if at.more.index.is_some() {
        return Err(Failure::parse(
            "index can be used only when creating devices or when moving device to another netns.\n",
            255,
        ));
    }
    if let (None, Some(g)) = (&dev, at.group) {
        // iplink_parse drops the kind: words after it are garbage (`help` too)
        if kind.is_some() {
            if let Some(w) = it.next() {
                return Err(Failure::parse(
                    format!("Garbage instead of arguments \"{w} ...\". Try \"ip link help\".\n"),
                    255,
                ));
            }
        }
        return link_delete_group(ns, g);
    }
    let Some(d) = dev.as_deref() else {
        return Err(Failure::parse(
            "Not enough information: \"dev\" argument is required.\n",
            255,
        ));
    };
    let d = d.to_string();
    let d = d.as_str();
    let found = ll_index(ns, d).ok_or_else(|| nodev(d))?;
    // the kind's parser reads the rest of the line (the kernel ignores what it makes)
    match kind {
        // no words: no parser runs
        Some(_) if it.peek().is_none() => {}
        None => {}
        Some(k @ ("veth" | "vxcan")) => {
            veth_change_opt(ns, &mut it, k)?;
        }
        Some("bridge") => {
            bridge_parse_opt(&mut it)?;
        }
        Some("bridge_slave") => {
            bridge_slave_parse_opt(ns, &mut it)?;
        }
        Some(k @ ("macvlan" | "macvtap")) => {
            macvlan_parse_opt(&mut it, k, &mut String::new())?;
        }
        Some("vxlan") => {
            let resolve = |d: &str| ll_index(ns, d);
            vxlan_parse_opt(&resolve, &mut it, true)?;
        }
        Some("vlan") => {
            linkmore::vlan_parse_opt(&mut it)?;
        }
        Some(k @ ("ipvlan" | "ipvtap")) => {
            linkmore::ipvlan_parse_opt(&mut it, k)?;
        }
        Some(k) if linkmore::KINDS_WITHOUT_OPTIONS.contains(&k) => {}
        Some(k) if !linkmore::iproute2_kind(k) => {
            if let Some(w) = it.next() {
                return Err(linkmore::garbage(w));
            }
        }
        // a tunnel's parser first asks for the device's own tunnel settings: a device
        // with no kind data ends it (only these are modelled, as for `ip link set`)
        Some(k) if kindopts::is_tunnel(k) => match ns.link(found).map(|l| &l.kind) {
            Some(
                LinkKind::Loopback | LinkKind::Dummy | LinkKind::Veth { .. } | LinkKind::Tun { .. },
            ) => {
                return Err(Failure::parse("Failed to get existing tunnel info.\n", 1));
            }
            _ => return Err(unmodelled_link_setting("type", k)),
        },
        Some(k) => match kindopts::parse_opt(ns, k, &mut it, true) {
            Some(r) => {
                r?;
            }
            None => {
                return Err(linkmore::kind_help_asked(k, &it.v[it.i..])
                    .unwrap_or_else(|| unmodelled_link_setting("type", k)));
            }
        },
    }
    let idx = ll_index(ns, d).ok_or_else(|| nodev(d))?;
    if idx > i32::MAX as u32 {
        // rtnl_dellink takes no negative index (nor a name or group instead)
        return Err(Failure::errno(Errno::EINVAL));
    }
    if ns.link(idx).is_none() {
        // rtnl_dellink finds no device by the index
        return Err(Failure::errno(Errno::ENODEV));
    }
    // the notification describes the link as it goes
    let echo = ns
        .link(idx)
        .filter(|_| opts.echo)
        .map(|l| crate::show::link_echo(ns, &show_opts(opts), l, true, None));
    ns.link_del(idx).map_err(Failure::kernel)?;
    Ok(Outcome::Ok(echo.unwrap_or_default()))
}

/// `ip link delete group GROUP` (`rtnl_group_dellink`): every device of the group,
/// none in group 0 (EPERM); ENODEV when the group is empty, EOPNOTSUPP when one of
/// them has no link operations (the loopback) and nothing goes.
fn link_delete_group(ns: &mut Netns, group: u32) -> Res<Outcome> {
    if group == 0 {
        return Err(Failure::kernel(fibkit::Error::new(Errno::EPERM)));
    }
    let members: Vec<(u32, bool)> = ns
        .links()
        .filter(|l| l.group == group)
        .map(|l| (l.index, l.is_loopback()))
        .collect();
    if members.is_empty() {
        return Err(Failure::kernel(fibkit::Error::new(Errno::ENODEV)));
    }
    if members.iter().any(|&(_, lo)| lo) {
        return Err(Failure::kernel(fibkit::Error::new(Errno::EOPNOTSUPP)));
    }
    for (idx, _) in members {
        // (a veth's peer goes with it)
        if ns.link(idx).is_some() {
            ns.link_del(idx).map_err(Failure::kernel)?;
        }
    }
    Ok(Outcome::Ok(String::new()))
}

fn link_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return show(ns, opts, &[], crate::show::link_show);
    };
    let rest = &a[1..];
    // do_iplink tries `add`, `set`/`change`, then `replace` (NLM_F_CREATE|NLM_F_REPLACE,
    // which iplink_modify treats as a creation): any prefix of the word
    let replace = !matches(cmd, "add")
        && !matches(cmd, "set")
        && !matches(cmd, "change")
        && matches(cmd, "replace");
    if matches(cmd, "add") || replace {
        // the oracle rewrites a link command holding the word `add` (`translate`): each
        // `type dummy` becomes `type ifb` (this kernel has no dummy driver), and without
        // `address` between that word and `type` it puts one there, numbering every
        // such command, so a refused one takes a number too. Without the word (`ip link
        // a`, `ip link replace`) a dummy is an unknown kind and the kernel draws an
        // address at random (see LinkAdd::random_mac).
        let oracle = a.iter().position(|w| w == "add").map(|at| {
            let ty = a.iter().position(|w| w == "type").unwrap_or(a.len());
            let named = a
                .get(at..ty)
                .is_some_and(|s| s.iter().any(|w| w == "address"));
            // (an `add` after `type`, a veth peer's name, would give the peer the address)
            (!named).then(|| ns.next_link_mac()).filter(|_| at < ty)
        });
        let macs: Vec<(u32, [u8; 6])> = ns.links().map(|l| (l.index, l.mac)).collect();
        let mode = AddMode {
            auto_mac: oracle.flatten(),
            // (the word `type` itself: `typ dummy` goes to the kernel as written)
            dummy: oracle.is_some() && a.windows(2).any(|w| w[0] == "type" && w[1] == "dummy"),
            replace,
        };
        let idx = link_add(ns, rest, mode, opts.family).map_err(probe_errno)?;
        if !opts.echo {
            return Ok(Outcome::Ok(String::new()));
        }
        // the new link that was asked for (not a veth's peer, registered before it)
        let new = ns.link(idx);
        return Ok(Outcome::Ok(new.map_or_else(String::new, |l| {
            // a passthru macvlan is made with its lower device's address as it was
            let made_with = match l.kind {
                fibkit::link::LinkKind::Macvlan {
                    lower,
                    mode: fibkit::link::macvlan_mode::PASSTHRU,
                    ..
                } => macs.iter().find(|(i, _)| *i == lower).map(|(_, m)| *m),
                _ => None,
            };
            crate::show::link_echo(ns, &show_opts(opts), l, false, made_with)
        })));
    }
    if matches(cmd, "set") || matches(cmd, "change") {
        // the kernel echoes no notification of a change to an existing link
        let out = link_set(ns, rest).map_err(probe_errno)?;
        if opts.echo {
            return Ok(Outcome::Ok(crate::show::echo_nothing(&show_opts(opts))));
        }
        return Ok(out);
    }
    if matches(cmd, "delete") {
        return link_delete(ns, opts, rest).map_err(probe_errno);
    }
    if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        return show(ns, opts, rest, crate::show::link_show);
    }
    // every `ip link` command line probes the kernel first (`iplink_have_newlink`),
    // which leaves ENODEV behind a refusal
    let unknown = |cmd: &str| {
        probe_errno(Failure::parse(
            format!("Command \"{cmd}\" is unknown, try \"ip link help\".\n"),
            255,
        ))
    };
    if matches(cmd, "afstats") {
        // iplink_afstats: `dev` (the whole word, once) and `help`, read to the end
        // of the line; the per-family statistics are MPLS's only, which this kernel
        // has not, so the dump prints nothing inside its JSON array
        let mut dev: Option<&str> = None;
        let mut k = 0;
        while k < rest.len() {
            let w = rest[k].as_str();
            if w == "dev" {
                let v = rest.get(k + 1).ok_or_else(|| probe_errno(incomplete()))?;
                if dev.is_some() {
                    return Err(probe_errno(Failure::parse(
                        format!("Error: either \"dev\" is duplicate, or \"{v}\" is a garbage.\n"),
                        255,
                    )));
                }
                dev = Some(v);
                k += 1;
            } else if matches(w, "help") {
                return Err(probe_errno(Failure::parse(crate::show::USAGE_LINK, 255)));
            } else {
                return Err(unknown(w));
            }
            k += 1;
        }
        // a missing device is reported, and the status is still 0
        if let Some(d) = dev.filter(|d| ll_index(ns, d).is_none()) {
            return Err(Failure {
                stdout: String::new(),
                errno: None,
                stderr: format!("Device \"{d}\" does not exist.\n"),
                status: 0,
                exits: false,
            });
        }
        let empty = match (opts.json, opts.pretty) {
            (false, _) => "",
            (true, false) => "[]\n",
            (true, true) => "[ ]\n",
        };
        return Ok(Outcome::Ok(empty.to_string()));
    }
    if matches(cmd, "xstats") {
        return link_xstats(ns, opts, rest).map_err(probe_errno);
    }
    if matches(cmd, "property") {
        return link_property(ns, rest).map_err(probe_errno);
    }
    if matches(cmd, "help") {
        // do_help: the usage, or the help of the link kind named (printed, status 0)
        return match rest.first().map(String::as_str) {
            Some(k) => match linkmore::kind_help(k) {
                Some(text) => Ok(Outcome::Ok(text.to_string())),
                None => Err(probe_errno(Failure::parse(crate::show::USAGE_LINK, 255))),
            },
            None => Err(probe_errno(Failure::parse(crate::show::USAGE_LINK, 255))),
        };
    }
    Err(unknown(cmd))
}

/// `ip link property { add | del } dev DEV [ altname NAME ]...`: a device's
/// alternative names (iplink.c's `iplink_prop`). The whole line is read first: an
/// altname or device name must be non-empty without `/` or white space; then the
/// device must exist; the kernel takes the names in turn (see
/// [`Netns::link_altnames_add`]).
fn link_property(ns: &mut Netns, a: &[String]) -> Res<Outcome> {
    let usage = || Failure::parse(crate::show::USAGE_LINK, 255);
    let Some(op) = a.first() else {
        return Err(usage());
    };
    let add = if matches(op, "add") {
        true
    } else if matches(op, "del") {
        false
    } else if matches(op, "help") {
        return Err(usage());
    } else {
        return Err(Failure::parse("Operator required\n", 255));
    };
    // check_altifname
    let valid = |n: &str| !n.is_empty() && !n.chars().any(|c| c == '/' || c.is_ascii_whitespace());
    let mut names: Vec<String> = Vec::new();
    let mut dev: Option<&str> = None;
    let mut i = 1;
    while i < a.len() {
        let w = a[i].as_str();
        if matches(w, "altname") {
            i += 1;
            let n = a.get(i).ok_or_else(incomplete)?;
            if !valid(n) {
                return Err(invarg("not a valid altname", n));
            }
            names.push(n.clone());
        } else if matches(w, "help") {
            return Err(usage());
        } else {
            let mut v = w;
            if w == "dev" {
                i += 1;
                v = a.get(i).ok_or_else(incomplete)?;
            }
            if dev.is_some() {
                return Err(dup_dev(v));
            }
            if !valid(v) {
                return Err(invarg("\"dev\" not a valid ifname", v));
            }
            dev = Some(v);
        }
        i += 1;
    }
    let Some(d) = dev else {
        return Err(Failure::parse(
            "Not enough of information: \"dev\" argument is required.\n",
            255,
        ));
    };
    let idx = ll_index(ns, d).ok_or_else(|| nodev(d))?;
    if idx > i32::MAX as u32 {
        // rtnl_linkprop takes no negative index
        return Err(Failure::errno(Errno::EINVAL));
    }
    if ns.link(idx).is_none() {
        // rtnl_linkprop finds no device by the index
        return Err(Failure::errno(Errno::ENODEV));
    }
    let r = if add {
        ns.link_altnames_add(idx, &names)
    } else {
        ns.link_altnames_del(idx, &names)
    };
    r.map(|()| Outcome::Ok(String::new()))
        .map_err(Failure::kernel)
}

/// `ip link xstats type TYPE [ ARGS ]` (iproute2 6.1's `iplink_ifla_xstats`): the
/// extended statistics of the links of a kind, from an `RTM_GETSTATS` dump. Only bonds
/// and bridges (and their ports) have them; another kind iproute2 knows is refused, as
/// is a kind it does not know.
///
/// - **Bridges** (`bridge_parse_xstats`, words matched exactly, the last selector
///   winning): `igmp`/`mcast` the IGMP/MLD counters only, `stp` the spanning tree ones
///   only, `dev DEV` one device (`ll_name_to_index`, `ifN` too; the last one given),
///   `help` the kind's usage (stdout, status 0). Every bridge (`bridge`) or bridge port
///   (`bridge_slave`) the filter keeps is printed by [`stats::link_xstats_bridge`].
/// - **Bonds** (`bond_parse_xstats`: `lacp`/`802.3ad`, `dev`, `help`): fibkit models
///   none, and this kernel has no bonding, yet iproute2 6.1's printer parses the nest of
///   every device the dump answers for into an array one entry too short
///   (`bond_print_stats_attr`'s `parse_rtattr(bondtb, LINK_XSTATS_TYPE_MAX+1, ...)`), which
///   the stack protector catches when the function returns: a bridge (`bond`) or a bridge
///   port (`bond_slave`) that the `dev` filter keeps makes `ip` abort (SIGABRT, status
///   134, its buffered output lost, a batch ended); without one it lists nothing.
fn link_xstats(ns: &Netns, opts: &Opts, rest: &[String]) -> Res<Outcome> {
    let Some(w) = rest.first() else {
        return Err(Failure::parse("xstats: missing argument\n", 1));
    };
    if matches(w, "help") {
        return Ok(Outcome::Ok(
            "Usage: ... xstats type TYPE [ ARGS ]\n".to_string(),
        ));
    }
    if !matches(w, "type") {
        return Err(Failure::parse(
            format!("Error: argument \"{w}\" is wrong: unknown argument\n"),
            255,
        ));
    }
    let Some(kind) = rest.get(1) else {
        return Err(incomplete());
    };
    if !linkmore::iproute2_kind(kind) {
        return Err(Failure::parse(
            format!("Error: argument \"{kind}\" is wrong: invalid type\n"),
            255,
        ));
    }
    let bridge = match kind.as_str() {
        "bridge" | "bridge_slave" => true,
        "bond" | "bond_slave" => false,
        _ => {
            return Err(Failure::parse(
                format!("xstats: link type {kind} doesn't support xstats\n"),
                1,
            ))
        }
    };
    // the kind's own arguments
    let mut blocks = stats::BridgeBlocks::All;
    let mut filter = 0;
    let mut it = rest[2..].iter();
    while let Some(w) = it.next() {
        match w.as_str() {
            "igmp" | "mcast" if bridge => blocks = stats::BridgeBlocks::Mcast,
            "stp" if bridge => blocks = stats::BridgeBlocks::Stp,
            // the bond printer's selector changes nothing here
            "lacp" | "802.3ad" if !bridge => {}
            "dev" => {
                let dev = it.next().ok_or_else(incomplete)?;
                filter = stats::name_to_index(ns, dev);
                if filter == 0 {
                    return Err(nodev(dev));
                }
            }
            "help" => {
                let sel = if bridge { "igmp" } else { "802.3ad" };
                return Ok(Outcome::Ok(format!(
                    "Usage: ... {kind} [ {sel} ] [ dev DEVICE ]\n"
                )));
            }
            _ => return Err(invarg("unknown attribute", w)),
        }
    }
    // `strstr(lu->id, "_slave")`: the ports' nest
    let slave = kind.ends_with("_slave");
    if bridge {
        return Ok(Outcome::Ok(stats::link_xstats_bridge(
            ns, opts, slave, blocks, filter,
        )));
    }
    if !stats::xstats_devices(ns, slave, filter).is_empty() {
        return Err(Failure {
            stdout: String::new(),
            errno: None,
            stderr: "*** stack smashing detected ***: terminated\n".to_string(),
            status: 134,
            exits: true,
        });
    }
    Ok(Outcome::Ok(if opts.json {
        crate::show::json_list(&[], opts.pretty)
    } else {
        String::new()
    }))
}

// ------------------------------------------------------------------ neigh

/// The destination of an `ip neigh` line as `get_addr` reads it.
#[derive(Clone, Copy)]
enum NeighDst {
    Addr(Addr),
    /// `default`, `any` or `all` without `-4`/`-6`: get_addr_1 leaves the family
    /// AF_UNSPEC, which iproute2 then takes for no destination
    NoFamily,
    /// `any` or `all` with a family: no bytes, an NDA_DST the kernel finds too short
    NoBytes,
}

/// The address of an `ip neigh` line: a second one is iproute2's duplicate (`proxy ADDR`
/// names it as "address", a plain word as "to").
fn neigh_dst(dst: &mut Option<NeighDst>, v: &str, fam: Option<Family>, proxy: bool) -> Res<()> {
    if dst.is_some() {
        let msg = if proxy {
            format!("Error: duplicate \"address\": \"{v}\" is the second value.\n")
        } else {
            format!("Error: either \"to\" is duplicate, or \"{v}\" is a garbage.\n")
        };
        return Err(Failure::parse(msg, 255));
    }
    if crate::names::packet() {
        // `-0`: get_addr reads a link-layer address (`ll_addr_a2n`, which cuts its
        // argument at the first colon before get_addr quotes it); the kernel then
        // refuses the family
        if let Err(mut f) = parse_lladdr(v) {
            let first = if v.contains('.') {
                v
            } else {
                v.split(':').next().unwrap_or(v)
            };
            f.stderr.push_str(&format!(
                "Error: link address is expected rather than \"{first}\".\n"
            ));
            return Err(f.exiting(true));
        }
        *dst = Some(NeighDst::Addr(Addr::V4(0)));
        return Ok(());
    }
    if let Some(alt) = crate::names::alt() {
        // `-M`: a label stack; `-B`: only `default`/`any`/`all` (family AF_BRIDGE, no
        // bytes): no neighbour table takes either
        let ok = match alt {
            AltFamily::Mpls => crate::names::mpls_labels(v).is_some(),
            _ => matches!(v, "default" | "any" | "all"),
        };
        if !ok {
            return Err(Failure::parse(
                format!(
                    "Error: {} address is expected rather than \"{v}\".\n",
                    alt.name()
                ),
                1,
            )
            .exiting(true));
        }
        *dst = Some(NeighDst::Addr(Addr::V4(0)));
        return Ok(());
    }
    // get_addr_1's words: `default` is the family's zero address, `any` and `all`
    // have no bytes; without a family neither has one
    if matches!(v, "default" | "any" | "all") {
        *dst = Some(match fam {
            None => NeighDst::NoFamily,
            Some(_) if v != "default" => NeighDst::NoBytes,
            Some(Family::V6) => NeighDst::Addr(Addr::V6(0)),
            Some(_) => NeighDst::Addr(Addr::V4(0)),
        });
        return Ok(());
    }
    *dst = Some(NeighDst::Addr(
        parse_addr(v, fam).ok_or_else(|| bad_addr(v, fam))?,
    ));
    Ok(())
}

/// A neighbour table's key of an address: the address (IPv4 in the low 32 bits) and
/// whether it is IPv6.
fn neigh_key(a: Addr) -> (u128, bool) {
    match a {
        Addr::V4(x) => (u128::from(x), false),
        Addr::V6(x) => (x, true),
    }
}

/// `ip neigh get ADDR dev DEV` (`ipneigh_get`, the kernel's `neigh_get`): the entry in
/// any state, printed as a listing prints it with the device named (text even with
/// `-j`: iproute2 opens no JSON context here). Proxy entries are not modelled: `proxy
/// ADDR` finds none.
fn neigh_get(ns: &Netns, opts: &Opts, args: &[String]) -> Res<Outcome> {
    let mut it = Args::new(args);
    let mut dst: Option<NeighDst> = None;
    let mut dev = None;
    let mut proxy = false;
    // ipneigh_get: a word `help` abbreviates, where an address goes, is the usage
    let usage = || Failure::parse(crate::show::USAGE_NEIGH, 255);
    while let Some(k) = it.next() {
        match k {
            "dev" => dev = Some(it.val()?),
            _ if matches(k, "proxy") => {
                let v = it.val()?;
                if matches(v, "help") {
                    return Err(usage());
                }
                neigh_dst(&mut dst, v, opts.family, true)?;
                proxy = true;
            }
            _ => {
                let v = if k == "to" { it.val()? } else { k };
                if matches(v, "help") {
                    return Err(usage());
                }
                neigh_dst(&mut dst, v, opts.family, false)?;
            }
        }
    }
    let dst = match dst {
        Some(NeighDst::NoFamily) => None,
        d => d,
    };
    let (Some(dst), Some(d)) = (dst, dev.or(if proxy { Some("") } else { None })) else {
        return Err(Failure::parse(
            "Device and address are required arguments.\n",
            1,
        ));
    };
    let dev = if d.is_empty() { 0 } else { ifindex(ns, d)? };
    if opts.alt.is_some() {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EAFNOSUPPORT,
            "Unsupported family in header for neighbor get request",
        )));
    }
    // neigh_valid_get_req reads NDA_DST before neigh_get looks the device up
    let NeighDst::Addr(dst) = dst else {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::EINVAL,
            "Invalid network address in neighbor get request",
        )));
    };
    // neigh_get looks the request's index up (an `ifN` form may name none)
    if dev != 0 && ns.link(dev).is_none() {
        return Err(Failure::kernel(fibkit::Error::msg(
            Errno::ENODEV,
            "Unknown device ifindex",
        )));
    }
    if proxy {
        let (addr, v6) = neigh_key(dst);
        return crate::show::proxy_line(ns, dev, addr, v6)
            .map(Outcome::Ok)
            .ok_or_else(|| {
                Failure::kernel(fibkit::Error::msg(
                    Errno::ENOENT,
                    "Proxy neighbour entry not found",
                ))
            });
    }
    let (addr, v6) = neigh_key(dst);
    crate::show::neigh_get_line(ns, &show_opts(opts), dev, addr, v6)
        .map(Outcome::Ok)
        .ok_or_else(|| {
            Failure::kernel(fibkit::Error::msg(
                Errno::ENOENT,
                "Neighbour entry not found",
            ))
        })
}

/// What `ip neigh flush` prints after one round that deleted `n` entries (`-s`).
fn flush_summary(stats: u32, n: usize) -> String {
    match (stats, n) {
        (0, _) => String::new(),
        (_, 0) => "Nothing to flush.\n".to_string(),
        (_, n) => format!(
            "\n*** Round 1, deleting {n} entries ***\n*** Flush is complete after 1 round ***\n"
        ),
    }
}

/// The kernel's refusal of a neighbour change: `ipneigh_modify` ends with `exit(2)`.
fn neigh_refused(e: fibkit::Error) -> Failure {
    Failure::kernel(e).exiting(true)
}

fn neigh_cmd(ns: &mut Netns, opts: &Opts, a: &[String]) -> Res<Outcome> {
    let Some(cmd) = a.first().map(String::as_str) else {
        return show(ns, opts, &[], crate::show::neigh_show);
    };
    let rest = &a[1..];
    if matches(cmd, "get") {
        return neigh_get(ns, opts, rest);
    }
    let add = matches(cmd, "add");
    let replace = matches(cmd, "replace");
    // do_ipneigh: `chg` is `change` too
    let change = !replace && (matches(cmd, "change") || cmd == "chg");
    let del = matches(cmd, "delete");
    if add || replace || change || del {
        let mut it = Args::new(rest);
        let mut dst: Option<NeighDst> = None;
        let mut dev = None;
        let mut state = NudState::Permanent;
        // the link-layer address as written: read once the line is (`null`: none)
        let mut lla: Option<&str> = None;
        let (mut flags, mut managed, mut protocol, mut proxy) = (0u8, false, 0u8, false);
        let mut use_ = false;
        while let Some(k) = it.next() {
            match k {
                "dev" => dev = Some(it.val()?),
                "nud" => {
                    let v = it.val()?;
                    // nud_state_a2n: permanent, reachable and failed by any prefix, the
                    // others as written, or one NUD bit as a number
                    let bit = if matches(v, "permanent") {
                        Some(0x80)
                    } else if matches(v, "reachable") {
                        Some(0x02)
                    } else {
                        match v {
                            "noarp" => Some(0x40),
                            "none" => Some(0),
                            "stale" => Some(0x04),
                            "incomplete" => Some(0x01),
                            "delay" => Some(0x08),
                            "probe" => Some(0x10),
                            _ if matches(v, "failed") => Some(0x20),
                            _ => parse_u32(v).filter(|n| *n < 0x100 && n & n.wrapping_sub(1) == 0),
                        }
                    };
                    state = match bit {
                        Some(0x80) => NudState::Permanent,
                        Some(0x02) => NudState::Reachable,
                        Some(0x04) => NudState::Stale,
                        Some(0x08) => NudState::Delay,
                        Some(0x10) => NudState::Probe,
                        Some(0x20) => NudState::Failed,
                        Some(0x01) => NudState::Incomplete,
                        Some(0x40) => NudState::Noarp,
                        Some(0) => NudState::None,
                        _ => return Err(invarg("nud state is bad", v)),
                    };
                }
                _ if matches(k, "lladdr") => {
                    let v = it.val()?;
                    if lla.is_some() {
                        return Err(duparg("lladdr", v));
                    }
                    lla = Some(v);
                }
                "router" => flags |= fibkit::netns::ntf::ROUTER,
                // NTF_USE: the entry is made or found and resolved, not updated
                "use" => use_ = true,
                // `managed` asks for no state (a later `nud` still sets one)
                "managed" => {
                    managed = true;
                    state = NudState::None;
                }
                _ if matches(k, "extern_learn") => flags |= fibkit::netns::ntf::EXT_LEARNED,
                // (`p` and `pr` are `proxy`: iproute2 tries it first)
                _ if matches(k, "protocol") && !matches(k, "proxy") => {
                    let v = it.val()?;
                    protocol = crate::show::rtprot_a2n(v)
                        .ok_or_else(|| invarg("\"protocol\" value is invalid\n", v))?;
                }
                // `proxy ADDR`: a proxy entry for the address
                _ if matches(k, "proxy") => {
                    let v = it.val()?;
                    if matches(v, "help") {
                        return Err(Failure::parse(crate::show::USAGE_NEIGH, 255));
                    }
                    neigh_dst(&mut dst, v, opts.family, true)?;
                    proxy = true;
                }
                x => {
                    // ipneigh_modify skips a word `help` abbreviates (after `to`): the
                    // next one is the address
                    let mut v = if x == "to" { it.val()? } else { x };
                    if matches(v, "help") {
                        v = it.val()?;
                    }
                    neigh_dst(&mut dst, v, opts.family, false)?;
                }
            }
        }
        // `proxy ADDR` stands for the device too (dev_ok): without `dev` the request
        // names none, and the kernel's proxy entry is for every device (dev NULL)
        if dev.is_none() && !proxy {
            return Err(Failure::parse(
                "Device and destination are required arguments.\n",
                255,
            ));
        }
        let dst = match dst {
            Some(NeighDst::Addr(a)) => Some(a),
            // an NDA_DST without bytes: the kernel's "Invalid network address", after
            // the device and the link-layer address's length (neigh_add, neigh_delete)
            Some(NeighDst::NoBytes) => None,
            _ => {
                return Err(Failure::parse(
                    "Device and destination are required arguments.\n",
                    255,
                ))
            }
        };
        let lladdr = match lla {
            Some(v) if v != "null" => Some(parse_lladdr(v)?),
            _ => None,
        };
        let idx = match dev {
            Some(d) => ifindex(ns, d)?,
            None => 0,
        };
        match opts.alt {
            // an AF_BRIDGE request is a forwarding-database change (rtnl_fdb_add/del),
            // which refuses a message without a link-layer address
            Some(AltFamily::Bridge) => {
                return Err(neigh_refused(fibkit::Error::msg(
                    Errno::EINVAL,
                    "invalid address",
                )));
            }
            // no neighbour table of the AF_PACKET or AF_MPLS family
            Some(_) => return Err(neigh_refused(fibkit::Error::new(Errno::EAFNOSUPPORT))),
            None => {}
        }
        let Some(dst) = dst else {
            // neigh_add and neigh_delete look the device up, neigh_add checks the
            // link-layer address's length, then both the destination's
            let short = match ns.link(idx) {
                None if idx != 0 => return Err(neigh_refused(fibkit::Error::new(Errno::ENODEV))),
                None => false,
                Some(l) => !del && !l.is_tun() && lladdr.as_ref().is_some_and(|b| b.len() < 6),
            };
            let msg = if short {
                "Invalid link address"
            } else {
                "Invalid network address"
            };
            return Err(neigh_refused(fibkit::Error::msg(Errno::EINVAL, msg)));
        };
        let (addr, v6) = neigh_key(dst);
        if del {
            let r = if proxy {
                ns.pneigh_del(idx, addr, v6)
            } else {
                ns.neigh_del(idx, addr, v6)
            };
            return r
                .map(|()| Outcome::Ok(String::new()))
                .map_err(neigh_refused);
        }
        // neigh_add: shorter than the device's address is refused, longer is cut; a
        // tun has none (addr_len 0: anything passes, and __neigh_update ignores it)
        let no_ha = ns.link(idx).is_some_and(|l| l.is_tun());
        let lladdr = match lladdr {
            // (no device: neigh_add checks no length)
            Some(_) if no_ha || idx == 0 => None,
            Some(b) if b.len() < 6 => {
                return Err(neigh_refused(fibkit::Error::msg(
                    Errno::EINVAL,
                    "Invalid link address",
                )))
            }
            Some(b) => ether_addr(&b, false).ok(),
            None => None,
        };
        if proxy {
            // neither the state nor the link-layer address is kept
            return ns
                .pneigh_add(idx, addr, v6, flags, managed, protocol)
                .map(|()| Outcome::Ok(String::new()))
                .map_err(neigh_refused);
        }
        let n = Neighbour {
            dev: idx,
            addr,
            v6,
            state,
            lladdr,
            flags,
            managed,
            protocol,
        };
        let r = if use_ {
            ns.neigh_use(n, !change, replace || change)
        } else if change {
            ns.neigh_change(n)
        } else {
            ns.neigh_set(n, replace)
        };
        return r
            .map(|()| Outcome::Ok(String::new()))
            .map_err(neigh_refused);
    }
    if matches(cmd, "list") || matches(cmd, "show") || matches(cmd, "lst") {
        return show(ns, opts, rest, crate::show::neigh_show);
    }
    if matches(cmd, "flush") && opts.alt == Some(AltFamily::Bridge) {
        // the forwarding database's rows the filter selects, each deleted in turn;
        // all are checked first, so a refusal changes nothing
        let sel = crate::show::fdb_flush_select(ns, &show_opts(opts), rest).map_err(show_err)?;
        let mut after = ns.clone();
        for r in &sel {
            after.fdb_delete(r).map_err(Failure::kernel)?;
        }
        *ns = after;
        return Ok(Outcome::Ok(flush_summary(opts.stats, sel.len())));
    }
    if matches(cmd, "flush") {
        // one dump, then a delete per entry (one round: nothing comes back here)
        let sel = crate::show::neigh_flush_select(ns, &show_opts(opts), rest).map_err(show_err)?;
        // with `-s -s` print_neigh prints each entry it queues for deletion
        let mut out = if opts.stats >= 2 {
            crate::show::neigh_flush_listing(ns, &show_opts(opts), rest).map_err(show_err)?
        } else {
            String::new()
        };
        for &(dev, addr, v6, proxy) in &sel {
            if proxy {
                ns.pneigh_del(dev, addr, v6).map_err(Failure::kernel)?;
            } else {
                ns.neigh_del(dev, addr, v6).map_err(Failure::kernel)?;
            }
        }
        out.push_str(&flush_summary(opts.stats, sel.len()));
        return Ok(Outcome::Ok(out));
    }
    if matches(cmd, "help") {
        return Err(Failure::parse(crate::show::USAGE_NEIGH, 255));
    }
    Err(Failure::parse(
        format!("Command \"{cmd}\" is unknown, try \"ip neigh help\".\n"),
        255,
    ))
}

// ----------------------------------------------------------------- sysctl

/// Apply `sysctl KEY=VALUE`; the error text is what `sysctl -w` prints.
pub fn run_sysctl(ns: &mut Netns, assignment: &str) -> Result<(), String> {
    let before = flushing_sysctls4(ns);
    let r = set_sysctl(ns, assignment);
    if r.is_ok() {
        // compiled answers and cached nexthop checks depend on sysctls
        ns.sysctls_changed();
        let after = flushing_sysctls4(ns);
        // devinet_sysctl_forward and the flushing entries flush the IPv4 route cache
        // on a change; accept_local only when turned off; `default.forwarding` never
        let flush = before.len() != after.len()
            || before.iter().zip(&after).any(|(b, a)| {
                (b.0 != a.0 && !b.4)
                    || b.1 != a.1
                    || b.2 != a.2
                    || (b.3 != 0 && a.3 == 0)
                    || b.5 != a.5
            });
        if flush {
            ns.rt_cache_flush4();
        }
    }
    r
}

/// Per IPv4 configuration (`all`, `default`, each device's): the sysctls whose
/// change flushes the route cache: forwarding, route_localnet, promote_secondaries,
/// accept_local, whether it is `default`, and bc_forwarding.
fn flushing_sysctls4(ns: &Netns) -> Vec<(u32, u32, u32, u32, bool, u32)> {
    let s = &ns.sysctl;
    let one = |c: &fibkit::sysctl::DevConf4, dflt: bool| {
        (
            c.forwarding,
            c.route_localnet,
            c.promote_secondaries,
            c.accept_local,
            dflt,
            c.bc_forwarding,
        )
    };
    let mut v = vec![one(&s.v4_all, false), one(&s.v4_default, true)];
    v.extend(s.v4_dev.values().map(|c| one(c, false)));
    v
}

/// An IPv6 knob with side effects per device (`forwarding`, `disable_ipv6`): `all` also
/// sets `default` and every device with IPv6 state, `default` only new devices, a
/// device name that device (`idx`); `set` applies it to one device.
fn v6_knob(
    ns: &mut Netns,
    dev: &str,
    idx: Option<u32>,
    on: bool,
    field: fn(&mut fibkit::sysctl::DevConf6) -> &mut u32,
    set: fn(&mut Netns, u32, bool),
) {
    match dev {
        "all" => {
            *field(&mut ns.sysctl.v6_all) = u32::from(on);
            *field(&mut ns.sysctl.v6_default) = u32::from(on);
            let devs: Vec<u32> = ns.sysctl.v6_dev.keys().copied().collect();
            for d in devs {
                set(ns, d, on);
            }
        }
        "default" => *field(&mut ns.sysctl.v6_default) = u32::from(on),
        _ => set(ns, idx.unwrap_or(0), on),
    }
}

/// The sysctl files under `/proc/sys/net` (see the file's header).
const SYSCTL_NAMES: &str = include_str!("sysctl-names.txt");

/// The values the numeric sysctl files take, as recorded from the kernel by
/// `conformance/sysctl-ranges.py` (see the file's header).
const SYSCTL_RANGES: &str = include_str!("sysctl-ranges.txt");

/// What the numeric sysctl file `parts` names takes.
enum SysctlValues {
    /// One interval.
    Range(i128, i128),
    /// Milliseconds kept as jiffies (`proc_dointvec_ms_jiffies`; `positive`: the
    /// `_minmax` variant with a minimum of one jiffy, `interval_probe_time_ms`): see
    /// [`ms_jiffies`].
    MsJiffies { positive: bool },
}

/// `do_proc_dointvec_ms_jiffies_conv` of the number `v` written: `msecs_to_jiffies`
/// takes the value cut to its low 32 bits (a negative one negated first, as an
/// unsigned long), and one that is negative as an `int` means an infinite timeout,
/// which no `int` holds (EINVAL). The milliseconds a read then shows, if taken:
/// whole jiffies (HZ 250: four milliseconds each).
fn ms_jiffies(v: i128, positive: bool) -> Option<u64> {
    let mag = u64::try_from(v.unsigned_abs()).ok()?;
    let m = if v < 0 { mag.wrapping_neg() } else { mag } as u32;
    if i32::try_from(m).is_err() || (positive && m == 0) {
        return None;
    }
    let ms_per_jiffy = 1000 / fibkit::bridge::HZ;
    Some(u64::from(m).div_ceil(ms_per_jiffy) * ms_per_jiffy)
}

/// The values the file `parts` names (`parts[0]` is `net`) takes, if it reads one
/// number; `None` for the others (text, several numbers, not recorded). A file whose
/// values are not one interval keeps milliseconds as jiffies (all of them do here).
fn sysctl_range(parts: &[&str]) -> Option<SysctlValues> {
    let (name, mut w) = sysctl_recorded(parts)?;
    match w.next()? {
        "irregular" => Some(SysctlValues::MsJiffies {
            positive: name.ends_with("interval_probe_time_ms"),
        }),
        lo => Some(SysctlValues::Range(
            lo.parse().ok()?,
            w.next()?.parse().ok()?,
        )),
    }
}

/// The line `conformance/sysctl-ranges.py` recorded for the file `parts` names
/// (`parts[0]` is `net`): the name as recorded (`net/` left off, a device's directory
/// as `*`) and the words after it.
fn sysctl_recorded(parts: &[&str]) -> Option<(String, std::str::SplitAsciiWhitespace<'static>)> {
    let mut name: Vec<&str> = parts.get(1..)?.to_vec();
    if name.len() == 4 && matches!(name[1], "conf" | "neigh") {
        name[2] = "*";
    }
    let want = name.join("/");
    let words = SYSCTL_RANGES.lines().find_map(|l| {
        let mut w = l.split_ascii_whitespace();
        (!l.starts_with('#') && w.next()? == want).then_some(w)
    })?;
    Some((want, words))
}

/// Whether the numeric sysctl file `parts` names (`parts[0]` is `net`) reads an
/// unsigned number, as recorded (`unsigned` after its bounds): `proc_douintvec_minmax`,
/// `proc_dou8vec_minmax` and `proc_doulongvec_minmax` (`__do_proc_douintvec`,
/// `__do_proc_doulongvec_minmax`) refuse a written `-` sign with EINVAL before looking
/// at the number, so `-0`, which the signed `proc_dointvec*` handlers take as 0, is
/// refused even where 0 is in bounds.
fn sysctl_unsigned(parts: &[&str]) -> bool {
    sysctl_recorded(parts).is_some_and(|(_, mut w)| w.nth(2) == Some("unsigned"))
}

/// The number a sysctl handler reads from what is written (`proc_get_long`): spaces,
/// an optional `-`, a digit, then `strtoul` in base 0 (`0x` hexadecimal, a leading 0
/// octal; more than 64 bits is an error), ending the text or followed by a space.
fn proc_number(s: &str) -> Option<i128> {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (v, rest) = proc_get_long(s)?;
    if !rest.is_empty() && !rest.starts_with([' ', '\t', '\n']) {
        return None;
    }
    Some(v)
}

/// `proc_get_long` without its trailer check: an optional `-`, a digit, then
/// `strtoul` in base 0 (more than 64 bits is an error); the number and the text after.
fn proc_get_long(s: &str) -> Option<(i128, &str)> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    if !s.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let b = s.as_bytes();
    let (radix, body) =
        if b[0] == b'0' && b.len() > 2 && (b[1] | 0x20) == b'x' && b[2].is_ascii_hexdigit() {
            (16, &s[2..])
        } else if b[0] == b'0' {
            (8, s)
        } else {
            (10, s)
        };
    let end = body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len());
    let mag = u64::from_str_radix(&body[..end], radix).ok()?;
    let v = if neg {
        -i128::from(mag)
    } else {
        i128::from(mag)
    };
    Some((v, &body[end..]))
}

/// Whether `proc_do_large_bitmap` takes `val` for a bitmap of `bits` bits
/// (`ip_local_reserved_ports`): after leading newlines, ports `A` or ranges `A-B`
/// (`A <= B`), each below `bits` and without a sign, separated by commas or newlines;
/// an empty write is taken.
fn large_bitmap_ok(val: &str, bits: i128) -> bool {
    let mut rest = val.trim_start_matches('\n');
    while !rest.is_empty() {
        let Some((a, r)) = proc_get_long(rest) else {
            return false;
        };
        if !(0..bits).contains(&a) || rest.starts_with('-') {
            return false;
        }
        let mut r = r;
        if let Some(after) = r.strip_prefix('-') {
            // the range's end: a trailer of `,` or a newline (or nothing)
            let Some((b, r2)) = proc_get_long(after) else {
                return false;
            };
            if !(a..bits).contains(&b) || after.starts_with('-') {
                return false;
            }
            r = r2;
            if !r.is_empty() && !r.starts_with([',', '\n', '\0']) {
                return false;
            }
        } else if !r.is_empty() && !r.starts_with([',', '\n']) {
            return false;
        }
        // the trailer, then any newlines (proc_skip_char)
        rest = r.get(1..).unwrap_or("").trim_start_matches('\n');
    }
    true
}

/// Whether `/proc/sys/net/...` has the file `parts` names (`parts[0]` is `net`): one
/// of [`SYSCTL_NAMES`], a configuration's (`conf/*/`, `neigh/*/`: which configurations
/// exist is checked where the value is set) or, with IPv6 multicast routing, an IPv6
/// configuration's `mc_forwarding`; an IPv6 configuration's `seg6_require_hmac` only
/// with SRv6 HMAC.
fn sysctl_exists(ns: &Netns, parts: &[&str]) -> bool {
    let Some(("net", rest)) = parts.split_first().map(|(a, r)| (*a, r)) else {
        return false;
    };
    let want = match rest {
        ["ipv6", "conf", _, "mc_forwarding"] => return ns.kernel.ipv6_mroute,
        // addrconf_sysctl's seg6_require_hmac entry is built with CONFIG_IPV6_SEG6_HMAC
        ["ipv6", "conf", _, "seg6_require_hmac"] if !ns.kernel.ipv6_seg6_hmac => return false,
        [fam @ ("ipv4" | "ipv6"), dir @ ("conf" | "neigh"), _, name] => {
            format!("{fam}/{dir}/*/{name}")
        }
        _ => rest.join("/"),
    };
    SYSCTL_NAMES
        .lines()
        .any(|l| !l.starts_with('#') && l == want)
}

/// Whether a device's configuration directory (`net/FAM/conf|neigh/D`) exists: with
/// the family's state on the device; the neighbour tables' `default` settings only
/// in the first network namespace, and none for `all`.
fn sysctl_dev_dir(ns: &Netns, fam: &str, dir: &str, d: &str) -> bool {
    match (fam, dir, d) {
        (_, "neigh", "all" | "default") => false,
        (_, _, "all" | "default") => true,
        ("ipv4", _, d) => ns
            .link_index_by_name(d)
            .is_some_and(|i| ns.sysctl.v4_dev.contains_key(&i)),
        (_, _, d) => ns.link_index_by_name(d).is_some_and(|i| ns.has_idev6(i)),
    }
}

/// Whether the file `parts` names exists (`parts[0]` is `net`), its device's
/// directory included.
fn sysctl_file(ns: &Netns, parts: &[&str]) -> bool {
    sysctl_exists(ns, parts)
        && match parts {
            ["net", fam @ ("ipv4" | "ipv6"), dir @ ("conf" | "neigh"), d, _] => {
                sysctl_dev_dir(ns, fam, dir, d)
            }
            _ => true,
        }
}

/// Whether `parts` names a directory of `/proc/sys` (`parts[0]` is `net`).
fn sysctl_dir(ns: &Netns, parts: &[&str]) -> bool {
    let Some((&"net", rest)) = parts.split_first() else {
        return false;
    };
    let mut rest = rest.to_vec();
    if let [fam @ ("ipv4" | "ipv6"), dir @ ("conf" | "neigh"), d, ..] = rest.as_slice() {
        if !sysctl_dev_dir(ns, fam, dir, d) {
            return false;
        }
        rest[2] = "*";
    }
    let want = format!("{}/", rest.join("/"));
    SYSCTL_NAMES
        .lines()
        .any(|l| !l.starts_with('#') && l.starts_with(&want))
}

/// Where the local port range and the first unprivileged port are kept.
const LOCAL_PORT_RANGE: &str = "net.ipv4.ip_local_port_range";
const UNPRIVILEGED_PORT_START: &str = "net.ipv4.ip_unprivileged_port_start";

/// The name of a fragment queue threshold file (`ipfrag_low_thresh`,
/// `ip6frag_high_thresh`, ...) if `knob` is one of the family's.
fn frag_thresh_key(fam: &str, knob: &str) -> Option<String> {
    let pre = if fam == "ipv4" { "ipfrag_" } else { "ip6frag_" };
    let which = knob.strip_prefix(pre)?.strip_suffix("_thresh")?;
    matches!(which, "low" | "high").then(|| format!("net.{fam}.{knob}"))
}

/// A fragment queue threshold (`which`: low or high; a new namespace's: 3 MiB and
/// 4 MiB).
fn frag_thresh(ns: &Netns, fam: &str, which: &str) -> i128 {
    let pre = if fam == "ipv4" { "ipfrag" } else { "ip6frag" };
    ns.sysctl
        .other
        .get(&format!("net.{fam}.{pre}_{which}_thresh"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(if which == "low" { 3 << 20 } else { 4 << 20 })
}

/// The local port range (a new namespace's: 32768 60999).
fn local_port_range(ns: &Netns) -> (i128, i128) {
    ns.sysctl
        .other
        .get(LOCAL_PORT_RANGE)
        .and_then(|v| {
            let (a, b) = v.split_once('\t')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .unwrap_or((32768, 60999))
}

/// The first port an unprivileged process may bind (a new namespace's: 1024).
fn unprivileged_port_start(ns: &Netns) -> i128 {
    ns.sysctl
        .other
        .get(UNPRIVILEGED_PORT_START)
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024)
}

/// A vector written through `proc_dointvec_minmax`: numbers separated by white
/// space, at least one and at most `cur.len()`, each within `lo..=hi`; they replace
/// `cur`'s values from the first on.
fn proc_vector(val: &str, cur: &[i128], lo: i128, hi: i128) -> Option<Vec<i128>> {
    let words: Vec<&str> = val.split_ascii_whitespace().collect();
    if words.is_empty() || words.len() > cur.len() {
        return None;
    }
    let mut out = cur.to_vec();
    for (slot, w) in out.iter_mut().zip(&words) {
        let v = proc_number(w).filter(|v| (lo..=hi).contains(v))?;
        *slot = v;
    }
    Some(out)
}

/// `cpumask_parse` (`bitmap_parse`) of `val` for a mask of `nbits` CPUs, as
/// `rps_default_mask_sysctl` reads it: from the end, chunks of at most eight
/// hexadecimal digits between commas or white space; a character that is neither is
/// EINVAL (but for the one before a chunk's eighth digit, passed over), a ninth
/// digit, a chunk more than the mask has or a CPU it does not have EOVERFLOW. The
/// error's text, if any.
fn cpumask_parse(val: &str, nbits: u32) -> Result<(), &'static str> {
    const EINVAL: &str = "Invalid argument";
    const EOVERFLOW: &str = "Value too large for defined data type";
    let b = val.split('\n').next().unwrap_or("").as_bytes();
    let sep = |c: u8| c == b',' || c.is_ascii_whitespace();
    let hex = |c: u8| char::from(c).to_digit(16);
    let mut end = b.len();
    let mut chunks_left = nbits.div_ceil(32);
    let mut chunk = 0u32;
    loop {
        while end > 0 && sep(b[end - 1]) {
            end -= 1;
        }
        if end == 0 {
            return Ok(());
        }
        if chunks_left == 0 {
            return Err(EOVERFLOW);
        }
        chunks_left -= 1;
        let mut v = 0u64;
        for i in 0..8 {
            v |= u64::from(hex(b[end - 1]).ok_or(EINVAL)?) << (4 * i);
            end -= 1;
            if end == 0 || sep(b[end - 1]) {
                break;
            }
            if i == 7 {
                // bitmap_get_x32_reverse reads the character before the eighth
                // digit too: a ninth digit overflows, anything else is passed over
                if hex(b[end - 1]).is_some() {
                    return Err(EOVERFLOW);
                }
                end -= 1;
            }
        }
        // a CPU at or above nbits
        let first = chunk * 32;
        if first + 32 > nbits && v >> nbits.saturating_sub(first).min(32) != 0 {
            return Err(EOVERFLOW);
        }
        chunk += 1;
    }
}

/// Whether `proc_tcp_fastopen_key` takes `val`: a key and, after the first comma, a
/// backup key, each read by `sscanf_key` as `%x-%x-%x-%x` (the kernel's `vsscanf`:
/// spaces skipped before each number, which needs a hexadecimal digit first; an
/// `0x` after it is skipped whatever follows (`_parse_integer_fixup_radix`), and any
/// length is cut to 32 bits; text after the fourth number is ignored).
fn fastopen_key_ok(val: &str) -> bool {
    let four_hex = |mut s: &str| {
        for i in 0..4 {
            if i > 0 {
                match s.strip_prefix('-') {
                    Some(r) => s = r,
                    None => return false,
                }
            }
            s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
            let b = s.as_bytes();
            if !b.first().is_some_and(u8::is_ascii_hexdigit) {
                return false;
            }
            if b.len() > 1 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
                s = &s[2..];
            }
            s = s.trim_start_matches(|c: char| c.is_ascii_hexdigit());
        }
        true
    };
    match val.split_once(',') {
        Some((key, backup)) => four_hex(key) && four_hex(backup),
        None => four_hex(val),
    }
}

fn set_sysctl(ns: &mut Netns, assignment: &str) -> Result<(), String> {
    let (key, val) = assignment
        .split_once('=')
        .ok_or_else(|| format!("sysctl: \"{assignment}\" must be of the form name=value"))?;
    let key = key.trim();
    let val = val.trim();
    // procps's slashdot: a dotted name swaps its separators, so `/` in it is a `.` of
    // a component (`net.ipv4.conf.d0/5.forwarding` is device d0.5's)
    let rel: String = key
        .chars()
        .map(|c| match c {
            '.' => '/',
            '/' => '.',
            c => c,
        })
        .collect();
    let path = format!("/proc/sys/{rel}");
    let nostat = || format!("sysctl: cannot stat {path}: No such file or directory");
    let num = |v: &str| -> Result<i64, String> {
        v.parse::<i64>()
            .map_err(|_| format!("sysctl: setting key \"{key}\": Invalid argument"))
    };
    let parts: Vec<&str> = rel.split('/').collect();
    if !sysctl_file(ns, &parts) {
        // stat of a name under a file fails with ENOTDIR; a directory procps's
        // WriteSetting passes over, writing nothing, and succeeds
        if (3..parts.len()).any(|i| sysctl_file(ns, &parts[..i])) {
            return Err(format!("sysctl: cannot stat {path}: Not a directory"));
        }
        if sysctl_dir(ns, &parts) {
            return Ok(());
        }
        return Err(nostat());
    }
    // the file's handler reads a number and checks its bounds first; what follows
    // sees the number it read, written in decimal
    let canonical;
    let invalid = || format!("sysctl: setting key \"{key}\": Invalid argument");
    // ip_unprivileged_port_start's recorded maximum is the local port range's start
    // (checked below, ipv4_privileged_ports); the handler's own bound is 65535
    let range = match parts.as_slice() {
        ["net", "ipv4", "ip_unprivileged_port_start"] => Some(SysctlValues::Range(0, 65535)),
        // a CPU mask in hexadecimal, read below
        ["net", "core", "rps_default_mask"] => None,
        // a bitmap of the 256 ICMPv6 types (proc_do_large_bitmap), read below
        ["net", "ipv6", "icmp", "ratemask"] => None,
        // the fragment queues' thresholds bound each other (proc_doulongvec_minmax
        // with extra1/extra2 pointing at the other one): recorded at their defaults
        ["net", fam @ ("ipv4" | "ipv6"), knob] if frag_thresh_key(fam, knob).is_some() => {
            let low = frag_thresh(ns, fam, "low");
            let high = frag_thresh(ns, fam, "high");
            Some(if knob.contains("low") {
                SysctlValues::Range(0, high)
            } else {
                SysctlValues::Range(low, i128::from(u64::MAX))
            })
        }
        _ => sysctl_range(&parts),
    };
    // an unsigned handler refuses any minus sign, `-0` too (sysctl_unsigned)
    if matches!(range, Some(SysctlValues::Range(..)))
        && sysctl_unsigned(&parts)
        && val
            .trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c'])
            .starts_with('-')
    {
        return Err(invalid());
    }
    let val = match range {
        Some(SysctlValues::Range(lo, hi)) => match proc_number(val) {
            Some(v) if (lo..=hi).contains(&v) => {
                canonical = v.to_string();
                canonical.as_str()
            }
            _ => return Err(invalid()),
        },
        Some(SysctlValues::MsJiffies { positive }) => {
            let ms = proc_number(val)
                .and_then(|v| ms_jiffies(v, positive))
                .ok_or_else(invalid)?;
            canonical = ms.to_string();
            canonical.as_str()
        }
        None => val,
    };
    match parts.as_slice() {
        ["net", "ipv4", "ip_forward"] | ["net", "ipv4", "conf", "all", "forwarding"] => {
            // devinet_sysctl_forward: all's value reaches default and every device
            // only when it changes (IPv6's all.forwarding pushes it every time;
            // conformance scenario 309); "changes" compares the ints as written, so
            // 1 then 2 is a change (conformance scenario 812)
            let v = num(val)? as u32;
            let s = &mut ns.sysctl;
            if s.v4_all.forwarding != v {
                s.v4_all.forwarding = v;
                s.v4_default.forwarding = v;
                for c in s.v4_dev.values_mut() {
                    c.forwarding = v;
                }
            }
        }
        ["net", "ipv4", "fib_multipath_hash_policy"] => {
            ns.sysctl.fib_multipath_hash_policy = num(val)? as u32
        }
        ["net", "ipv4", "fib_multipath_hash_fields"] => {
            ns.sysctl.fib_multipath_hash_fields = parse_u32(val).ok_or_else(nostat)?
        }
        ["net", "ipv4", "fib_multipath_hash_seed"] => {
            ns.sysctl.fib_multipath_hash_seed = num(val)? as u32
        }
        ["net", "ipv4", "fib_multipath_use_neigh"] => {
            ns.sysctl.fib_multipath_use_neigh = num(val)? as u32
        }
        ["net", "ipv6", "fib_multipath_hash_policy"] => {
            ns.sysctl.fib6_multipath_hash_policy = num(val)? as u32
        }
        ["net", "ipv6", "fib_multipath_hash_fields"] => {
            ns.sysctl.fib6_multipath_hash_fields = parse_u32(val).ok_or_else(nostat)?
        }
        // read-only (DEVINET_SYSCTL_RO_ENTRY): procps's WriteSetting warns about a
        // file it may not write and succeeds without writing
        ["net", "ipv4", "conf", _, "mc_forwarding"] => {}
        ["net", "ipv4", "conf", dev, knob] => {
            let v = num(val)?;
            // /proc/sys/net/ipv4/conf has a directory per device name, none for an
            // alternative name
            let idx = ns.link_index_by_name(dev);
            let s = &mut ns.sysctl;
            let conf = match *dev {
                "all" => &mut s.v4_all,
                "default" => &mut s.v4_default,
                _ => idx.and_then(|i| s.v4_dev.get_mut(&i)).ok_or_else(nostat)?,
            };
            let v = v as u32;
            let Some((field, bit)) = conf.knob_mut(knob) else {
                // disable_policy, disable_xfrm and drop_unicast_in_l2_multicast are
                // flushing entries (ipv4_doint_and_flush): a new value flushes the
                // route cache (a device holds `default`'s values of when it got its
                // IPv4 state, copied then: Netns::sysctl_dev_from_default)
                let before = s.other.get(key).and_then(|x| x.parse::<i64>().ok());
                let flush = matches!(
                    *knob,
                    "disable_policy" | "disable_xfrm" | "drop_unicast_in_l2_multicast"
                ) && before.unwrap_or(0) != i64::from(v as i32);
                s.other.insert(key.to_string(), val.to_string());
                if flush {
                    ns.rt_cache_flush4();
                }
                return Ok(());
            };
            // a device's `forwarding` keeps the int as written too (only its truth is
            // read: IN_DEV_FORWARD)
            *field = v;
            if let Some(bit) = bit {
                // devinet_conf_proc: the knob is now this configuration's own, and a
                // value written to `default` reaches every device that has not had
                // one written (devinet_copy_dflt_conf)
                conf.written |= bit;
                if *dev == "default" {
                    for c in s.v4_dev.values_mut() {
                        if c.written & bit == 0 {
                            if let Some((f, _)) = c.knob_mut(knob) {
                                *f = v;
                            }
                        }
                    }
                }
            }
        }
        ["net", "ipv6", "conf", dev, "stable_secret"] => {
            // addrconf_sysctl_stable_secret: `all` has none, and a value in6_pton does
            // not take is EIO
            let eio = || format!("sysctl: setting key \"{key}\": Input/output error");
            let idx = match *dev {
                "all" => return Err(eio()),
                "default" => None,
                d => Some(
                    ns.link_index_by_name(d)
                        .filter(|&i| ns.has_idev6(i))
                        .ok_or_else(nostat)?,
                ),
            };
            // in6_pton with no delimiter (-1) ends the address at the first character
            // that is not a hex digit, `:` or `.`; what follows is not read
            let end = val
                .find(|c: char| !(c.is_ascii_hexdigit() || c == ':' || c == '.'))
                .unwrap_or(val.len());
            let secret: std::net::Ipv6Addr = val[..end].parse().map_err(|_| eio())?;
            ns.set_stable_secret(idx, u128::from(secret))
                .map_err(|_| nostat())?;
        }
        ["net", "ipv6", "conf", dev, "addr_gen_mode"] => {
            // proc_douintvec, then addrconf_sysctl_addr_gen_mode's checks
            let einval = || format!("sysctl: setting key \"{key}\": Invalid argument");
            let mode = val.parse::<u32>().map_err(|_| einval())?;
            let (idx, all) = match *dev {
                "all" => (None, true),
                "default" => (None, false),
                d => (
                    Some(
                        ns.link_index_by_name(d)
                            .filter(|&i| ns.has_idev6(i))
                            .ok_or_else(nostat)?,
                    ),
                    false,
                ),
            };
            ns.sysctl_addr_gen_mode(idx, all, mode)
                .map_err(|_| einval())?;
        }
        ["net", "ipv6", "conf", dev, knob] => {
            let v = num(val)?;
            let idx = match *dev {
                "all" | "default" => None,
                d => Some(
                    ns.link_index_by_name(d)
                        .filter(|&i| ns.has_idev6(i))
                        .ok_or_else(nostat)?,
                ),
            };
            if *knob == "mtu" {
                // addrconf_sysctl_mtu: for a device, at most its MTU too (the minimum,
                // 1280, is the recorded bound checked above)
                match idx.and_then(|i| ns.link(i).map(|l| (i, l.mtu))) {
                    Some((_, max)) if v > i64::from(max) => {
                        return Err(format!("sysctl: setting key \"{key}\": Invalid argument"))
                    }
                    Some((i, _)) => ns.set_mtu6(i, v as u32),
                    None => {
                        ns.sysctl.other.insert(key.to_string(), val.to_string());
                    }
                }
                return Ok(());
            }
            type Field = fn(&mut fibkit::sysctl::DevConf6) -> &mut u32;
            type Apply = fn(&mut Netns, u32, bool);
            let with_effects: Option<(Field, Apply)> = match *knob {
                "disable_ipv6" => Some((|c| &mut c.disable_ipv6, Netns::set_disable_ipv6)),
                "forwarding" => Some((|c| &mut c.forwarding, Netns::set_forwarding6)),
                _ => None,
            };
            if let Some((field, set)) = with_effects {
                v6_knob(ns, dev, idx, v != 0, field, set);
                return Ok(());
            }
            let conf = match *dev {
                "all" => &mut ns.sysctl.v6_all,
                "default" => &mut ns.sysctl.v6_default,
                _ => ns
                    .sysctl
                    .v6_dev
                    .get_mut(&idx.unwrap_or(0))
                    .ok_or_else(nostat)?,
            };
            match *knob {
                "ignore_routes_with_linkdown" if *dev == "all" => {
                    // addrconf_fixup_linkdown: every write to `all` sets `default` and
                    // every device with IPv6 state as well (scenario 343)
                    let v = v as u32;
                    let s = &mut ns.sysctl;
                    s.v6_all.ignore_routes_with_linkdown = v;
                    s.v6_default.ignore_routes_with_linkdown = v;
                    for c in s.v6_dev.values_mut() {
                        c.ignore_routes_with_linkdown = v;
                    }
                }
                "ignore_routes_with_linkdown" => conf.ignore_routes_with_linkdown = v as u32,
                "keep_addr_on_down" => conf.keep_addr_on_down = v as i32,
                "accept_dad" => conf.accept_dad = v as i32,
                "router_solicitations" => conf.router_solicitations = v as i32,
                "use_oif_addrs_only" => conf.use_oif_addrs_only = v as u32,
                "optimistic_dad" => conf.optimistic_dad = v as u32,
                "use_optimistic" => conf.use_optimistic = v as u32,
                "ndisc_evict_nocarrier" => conf.ndisc_evict_nocarrier = v as u32,
                "proxy_ndp" => conf.proxy_ndp = v as u32,
                "use_tempaddr" => conf.use_tempaddr = v as i32,
                "router_probe_interval" => conf.rtr_probe_interval_ms = v.saturating_mul(1000),
                _ => {
                    ns.sysctl.other.insert(key.to_string(), val.to_string());
                }
            }
        }
        ["net", fam @ ("ipv4" | "ipv6"), "neigh", dev, knob] => {
            // a device's neighbour table settings exist with its family's state, and
            // are its neighbour parameters (fibkit::ntable): `retrans_time` (USER_HZ)
            // and `retrans_time_ms`, `base_reachable_time` (s) and `..._ms`, and
            // `unres_qlen` and `unres_qlen_bytes` are one value each
            let idx = ns.link_index_by_name(dev).ok_or_else(nostat)?;
            let v6 = *fam == "ipv6";
            let p = ns.neigh_parms_mut(idx, v6).ok_or_else(nostat)?;
            if !p.set_sysctl(knob, num(val)?, v6) {
                ns.sysctl.other.insert(key.to_string(), val.to_string());
            }
        }
        // ipv4_sysctl_rtcache_flush reads nothing: any write flushes the route cache
        ["net", "ipv4", "route", "flush"] => ns.rt_cache_flush4(),
        // vectors read by proc_dointvec_minmax: the numbers written replace the
        // values from the first on (the words a scenario gives come joined, so one)
        ["net", "ipv4", "ip_local_port_range"] => {
            // ipv4_local_port_range: each port 1..=65535, then the range may not be
            // reversed nor start below ip_unprivileged_port_start
            let (lo, hi) = local_port_range(ns);
            let new = proc_vector(val, &[lo, hi], 1, 65535).ok_or_else(invalid)?;
            if new[1] < new[0] || new[0] < unprivileged_port_start(ns) {
                return Err(invalid());
            }
            ns.sysctl
                .other
                .insert(LOCAL_PORT_RANGE.into(), format!("{}\t{}", new[0], new[1]));
        }
        ["net", "ipv4", "ip_unprivileged_port_start"] => {
            // ipv4_privileged_ports: the local port range may not start below it
            let v = num(val)?;
            if i128::from(v) > local_port_range(ns).0 {
                return Err(invalid());
            }
            ns.sysctl
                .other
                .insert(UNPRIVILEGED_PORT_START.into(), v.to_string());
        }
        ["net", "ipv4", "ping_group_range"] => {
            // ipv4_ping_group_range: proc_doulongvec_minmax over group ids
            // 0..=GID_T_MAX (2^32 - 2); a reversed range becomes the empty one, 1 0
            let cur = ns.sysctl.other.get(key).cloned();
            let cur: Vec<i128> = cur
                .as_deref()
                .unwrap_or("1\t0")
                .split('\t')
                .filter_map(|x| x.parse().ok())
                .collect();
            let mut new =
                proc_vector(val, &cur, 0, i128::from(u32::MAX - 1)).ok_or_else(invalid)?;
            if new[1] < new[0] {
                new = vec![1, 0];
            }
            ns.sysctl
                .other
                .insert(key.to_string(), format!("{}\t{}", new[0], new[1]));
        }
        ["net", "ipv6", "icmp", "ratemask"] => {
            if !large_bitmap_ok(val, 256) {
                return Err(invalid());
            }
            ns.sysctl.other.insert(key.to_string(), val.to_string());
        }
        ["net", "ipv4", "ip_local_reserved_ports"] => {
            if !large_bitmap_ok(val, 65536) {
                return Err(invalid());
            }
            ns.sysctl.other.insert(key.to_string(), val.to_string());
        }
        ["net", fam, knob] if frag_thresh_key(fam, knob).is_some() => {
            if let Some(k) = frag_thresh_key(fam, knob) {
                ns.sysctl.other.insert(k, val.to_string());
            }
        }
        ["net", "core", "rps_default_mask"] => {
            // the recorded maximum is the mask of every CPU the machine has
            let nbits = match sysctl_range(&parts) {
                Some(SysctlValues::Range(_, max)) => (max + 1).trailing_zeros(),
                _ => 1,
            };
            if let Err(e) = cpumask_parse(val, nbits) {
                return Err(format!("sysctl: setting key \"{key}\": {e}"));
            }
            ns.sysctl.other.insert(key.to_string(), val.to_string());
        }
        ["net", "ipv4", "tcp_fastopen_key"] => {
            if !fastopen_key_ok(val) {
                return Err(invalid());
            }
            ns.sysctl.other.insert(key.to_string(), val.to_string());
        }
        ["net", "ipv4", f @ ("tcp_rmem" | "tcp_wmem")] => {
            // three sizes, each at least one (extra1 SYSCTL_ONE, no maximum); the
            // kernel recorded refuses a first tcp_rmem size below a page (4096)
            let min = if *f == "tcp_rmem" { 4096 } else { 1 };
            proc_vector(val, &[0, 0, 0], min, i128::from(i32::MAX)).ok_or_else(invalid)?;
            ns.sysctl.other.insert(key.to_string(), val.to_string());
        }
        // ipv6_sysctl_rtcache_flush: any number written runs the routes' garbage
        // collector now (the expired routes dumps still list go)
        ["net", "ipv6", "route", "flush"] => {
            num(val)?;
            ns.fib6_run_gc_now();
        }
        // another file the kernel has (checked above): kept without effect
        _ => {
            ns.sysctl.other.insert(key.to_string(), val.to_string());
        }
    }
    Ok(())
}
