//! `fib import mrt FILE [--format bgpdump|prefixes|updates|batch] [--peer ADDR]
//! [--family 4|6] [--keep-going]`: an MRT RIB dump or update stream (plain, gzip or
//! bzip2) as text for the other `fib` commands.
//!
//! - `bgpdump` (default): the lines of `bgpdump -m`;
//! - `prefixes`: the distinct unicast prefixes (of the RIB entries, or the announcements
//!   of an update stream), sorted, IPv4 then IPv6, one per line: a table for
//!   `fib bench lpm --table`;
//! - `updates`: `A PREFIX` / `W PREFIX` in arrival order: a stream for
//!   `fib bench updates --file`;
//! - `batch`: a `fib -batch` script loading the routes on a dummy link `mrt0`.
//!
//! A record that does not decode stops the import with
//! `fib import: FILE: record N at byte OFFSET: reason` and status 1, after the lines of
//! the records before it; `--keep-going` reports it and goes on. Records of types that
//! are not decoded are skipped and counted, as bgpdump skips them.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{BufWriter, Write};
use std::net::IpAddr;
use std::process::ExitCode;

use fibkit_mrt::bgp::Attributes;
use fibkit_mrt::record::Rib;
use fibkit_mrt::{bgpdump, Body, Message, Prefix, Reader, Record};

const USAGE: &str = "Usage: fib import mrt FILE [ --format { bgpdump | prefixes | updates | batch } ]\n                       [ --peer ADDR ] [ --family { 4 | 6 } ] [ --keep-going ]\n";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Bgpdump,
    Prefixes,
    Updates,
    Batch,
}

struct Options {
    file: String,
    format: Format,
    peer: Option<IpAddr>,
    family: Option<u8>,
    keep_going: bool,
}

fn parse_args(args: &[String]) -> Option<Options> {
    let (first, rest) = args.split_first()?;
    if first != "mrt" {
        return None;
    }
    let mut file = None;
    let mut o = Options {
        file: String::new(),
        format: Format::Bgpdump,
        peer: None,
        family: None,
        keep_going: false,
    };
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--format" => {
                o.format = match it.next()?.as_str() {
                    "bgpdump" => Format::Bgpdump,
                    "prefixes" => Format::Prefixes,
                    "updates" => Format::Updates,
                    "batch" => Format::Batch,
                    _ => return None,
                }
            }
            "--peer" => o.peer = Some(it.next()?.parse().ok()?),
            "--family" => {
                o.family = match it.next()?.as_str() {
                    "4" => Some(4),
                    "6" => Some(6),
                    _ => return None,
                }
            }
            "--keep-going" => o.keep_going = true,
            s if s.starts_with("--") => return None,
            _ if file.is_none() => file = Some(a.clone()),
            _ => return None,
        }
    }
    o.file = file?;
    Some(o)
}

/// Entry point of `fib import`: output buffered; a closed pipe ends it quietly with
/// status 141, as `fib`'s other output does.
pub fn main(args: &[String]) -> ExitCode {
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut err = std::io::stderr().lock();
    match run(args, &mut out, &mut err).and_then(|s| out.flush().map(|()| s)) {
        Ok(status) => ExitCode::from(status),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(141),
        Err(e) => {
            eprintln!("fib import: cannot write the output: {e}");
            ExitCode::from(1)
        }
    }
}

/// `fib import ARGS`, writing to `out` and `err`; returns the exit status.
fn run(args: &[String], out: &mut impl Write, err: &mut impl Write) -> std::io::Result<u8> {
    if args
        .first()
        .is_some_and(|a| matches!(a.as_str(), "help" | "-h" | "--help"))
    {
        out.write_all(USAGE.as_bytes())?;
        return Ok(0);
    }
    let Some(opts) = parse_args(args) else {
        err.write_all(USAGE.as_bytes())?;
        return Ok(255);
    };
    let file = opts.file.as_str();
    let reader = match std::fs::File::open(file).and_then(Reader::new) {
        Ok(r) => r,
        Err(e) => {
            writeln!(err, "fib import: {file}: {e}")?;
            return Ok(1);
        }
    };
    let mut sink = Sink::new(&opts);
    let mut status = 0u8;
    let mut unsupported = 0u64;
    let mut text = String::new();
    for (i, r) in reader.enumerate() {
        match r {
            Ok(rec) => {
                if rec.body == Body::Unsupported {
                    unsupported += 1;
                    continue;
                }
                text.clear();
                sink.record(&rec, &mut text);
                out.write_all(text.as_bytes())?;
            }
            Err(e) => {
                out.flush()?;
                writeln!(
                    err,
                    "fib import: {file}: record {} at byte {}: {e}",
                    i + 1,
                    e.offset()
                )?;
                status = 1;
                if !opts.keep_going || e.is_fatal() {
                    break;
                }
            }
        }
    }
    if status == 0 || opts.keep_going {
        text.clear();
        sink.finish(&mut text);
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    if unsupported > 0 {
        writeln!(
            err,
            "fib import: {file}: skipped {unsupported} records of unsupported types"
        )?;
    }
    Ok(status)
}

/// Where the routes go, per output format.
struct Sink {
    format: Format,
    peer: Option<IpAddr>,
    family: Option<u8>,
    /// `prefixes`: the set so far.
    prefixes: BTreeSet<Prefix>,
    /// `batch` from a RIB: prefixes already given a route.
    loaded: HashSet<Prefix>,
    /// `batch` from updates: the current table, prefix to next hop.
    table: HashMap<Prefix, IpAddr>,
    preamble: bool,
}

fn family_ok(family: Option<u8>, p: &Prefix) -> bool {
    match family {
        Some(4) => !p.is_ipv6(),
        Some(6) => p.is_ipv6(),
        _ => true,
    }
}

/// A next hop `fib` can route through onlink: unicast, of the prefix's family.
fn usable(nh: IpAddr, p: &Prefix) -> bool {
    let bad = match nh {
        IpAddr::V4(a) => {
            p.is_ipv6()
                || a.is_unspecified()
                || a.is_broadcast()
                || a.is_multicast()
                || a.is_loopback()
        }
        IpAddr::V6(a) => !p.is_ipv6() || a.is_unspecified() || a.is_multicast() || a.is_loopback(),
    };
    !bad
}

/// The next hop of a route: IPv4 from NEXT_HOP (or an IPv4 MP_REACH next hop), IPv6
/// from MP_REACH_NLRI (its global address).
fn next_hop(a: &Attributes, p: &Prefix) -> Option<IpAddr> {
    let mp = a
        .mp_reach
        .iter()
        .filter(|m| m.afi == if p.is_ipv6() { 2 } else { 1 })
        .find_map(|m| m.next_hops.first().copied());
    let nh = if p.is_ipv6() {
        mp
    } else {
        a.next_hop.map(IpAddr::V4).or(mp)
    }?;
    usable(nh, p).then_some(nh)
}

/// The prefix in the form `fib` reads (`ip`'s form; IPv6 as RFC 5952).
fn show(p: &Prefix) -> String {
    format!("{}/{}", p.addr(), p.len())
}

impl Sink {
    fn new(o: &Options) -> Sink {
        Sink {
            format: o.format,
            peer: o.peer,
            family: o.family,
            prefixes: BTreeSet::new(),
            loaded: HashSet::new(),
            table: HashMap::new(),
            preamble: false,
        }
    }

    fn peer_ok(&self, ip: IpAddr) -> bool {
        self.peer.is_none_or(|p| p == ip)
    }

    fn preamble(&mut self, out: &mut String) {
        if !self.preamble {
            self.preamble = true;
            out.push_str("link add mrt0 type dummy\nlink set mrt0 up\n");
        }
    }

    /// One RIB route (a TABLE_DUMP entry or a TABLE_DUMP_V2 entry).
    fn rib_route(&mut self, p: Prefix, peer: IpAddr, a: &Attributes, out: &mut String) {
        if !self.peer_ok(peer) || !family_ok(self.family, &p) {
            return;
        }
        match self.format {
            Format::Prefixes => {
                self.prefixes.insert(p);
            }
            Format::Batch => {
                if self.loaded.contains(&p) {
                    return;
                }
                if let Some(nh) = next_hop(a, &p) {
                    self.preamble(out);
                    self.loaded.insert(p);
                    out.push_str(&format!(
                        "route add {} via {nh} dev mrt0 onlink proto bgp\n",
                        show(&p)
                    ));
                }
            }
            Format::Updates => out.push_str(&format!("A {}\n", show(&p))),
            Format::Bgpdump => {}
        }
    }

    fn rib(&mut self, r: &Rib, out: &mut String) {
        if r.safi != 1 {
            return;
        }
        for e in &r.entries {
            self.rib_route(r.prefix, e.peer.ip, &e.attributes, out);
        }
    }

    fn record(&mut self, rec: &Record, out: &mut String) {
        if self.format == Format::Bgpdump {
            bgpdump::write_lines(rec, out);
            return;
        }
        match &rec.body {
            Body::TableDump(t) => self.rib_route(t.prefix, t.peer_ip, &t.attributes, out),
            Body::Rib(r) => self.rib(r, out),
            Body::Message(m) => {
                let Message::Update(u) = &m.message else {
                    return;
                };
                if !self.peer_ok(m.peer_ip) {
                    return;
                }
                let a = &u.attributes;
                let unicast_w = a.mp_unreach.iter().filter(|x| x.safi == 1);
                let withdrawn = u
                    .withdrawn
                    .iter()
                    .chain(unicast_w.flat_map(|x| x.nlri.iter()));
                for n in withdrawn {
                    self.withdraw(n.prefix, out);
                }
                let unicast_a = a.mp_reach.iter().filter(|x| x.safi == 1);
                let announced = u
                    .announced
                    .iter()
                    .chain(unicast_a.flat_map(|x| x.nlri.iter()));
                for n in announced {
                    self.announce(n.prefix, a, out);
                }
            }
            _ => {}
        }
    }

    fn withdraw(&mut self, p: Prefix, out: &mut String) {
        if !family_ok(self.family, &p) {
            return;
        }
        match self.format {
            Format::Updates => out.push_str(&format!("W {}\n", show(&p))),
            Format::Batch => {
                if self.table.remove(&p).is_some() {
                    out.push_str(&format!("route del {}\n", show(&p)));
                }
            }
            Format::Prefixes | Format::Bgpdump => {}
        }
    }

    fn announce(&mut self, p: Prefix, a: &Attributes, out: &mut String) {
        if !family_ok(self.family, &p) {
            return;
        }
        match self.format {
            Format::Updates => out.push_str(&format!("A {}\n", show(&p))),
            Format::Prefixes => {
                self.prefixes.insert(p);
            }
            Format::Batch => {
                if let Some(nh) = next_hop(a, &p) {
                    self.preamble(out);
                    self.table.insert(p, nh);
                    out.push_str(&format!(
                        "route replace {} via {nh} dev mrt0 onlink proto bgp\n",
                        show(&p)
                    ));
                }
            }
            Format::Bgpdump => {}
        }
    }

    fn finish(&mut self, out: &mut String) {
        if self.format == Format::Prefixes {
            for p in &self.prefixes {
                out.push_str(&show(p));
                out.push('\n');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibkit_iproute::exec::{run_ip, GetAnswer, Outcome};

    fn data(f: &str) -> String {
        format!(
            "{}/../fibkit-mrt/tests/data/{f}",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    /// `fib import ARGS`: (status, stdout, stderr).
    fn import(args: &[&str]) -> (u8, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = run(&args, &mut out, &mut err).unwrap();
        (
            status,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    /// Runs a batch script on a fresh namespace (every command must succeed), then
    /// `route get DST`, as `fib -batch` prints it.
    fn load_and_get(script: &str, dst: &str) -> String {
        let mut ns = fibkit::Netns::new();
        for line in script.lines() {
            let words: Vec<String> = line.split_whitespace().map(String::from).collect();
            assert!(run_ip(&mut ns, &words).is_ok(), "command failed: {line}");
        }
        let get: Vec<String> = ["route", "get", dst].map(String::from).to_vec();
        match run_ip(&mut ns, &get) {
            Ok(Outcome::Get(g)) => match &*g {
                GetAnswer::V4(r, fm) => crate::text::get4(&ns, r, *fm, &Default::default()),
                GetAnswer::V6(r, fm) => {
                    let (d, s, iif) = crate::get6_flow(&ns, &get);
                    crate::text::get6(&ns, r, *fm, &Default::default(), d, s, iif)
                }
            },
            _ => panic!("route get {dst} failed"),
        }
    }

    #[test]
    fn batch_of_a_rib_loads_and_routes_via_the_peer() {
        let f = data("bview.ipv4_unicast_add_path.gz");
        let (st, script, _) = import(&["mrt", &f, "--format", "batch"]);
        assert_eq!(st, 0);
        assert!(script.starts_with("link add mrt0 type dummy\nlink set mrt0 up\nroute add "));
        // One route per prefix: the first entry's.
        assert_eq!(script.matches("route add 10.0.10.0/24 ").count(), 1);
        assert!(load_and_get(&script, "10.0.10.1").contains("via 10.0.15.1 dev mrt0"));
        let (_, script, _) = import(&["mrt", &f, "--format", "batch", "--peer", "10.0.16.2"]);
        assert!(load_and_get(&script, "10.0.26.1").contains("via 10.0.16.2 dev mrt0"));
    }

    #[test]
    fn batch_of_an_ipv6_rib_uses_the_mp_next_hop() {
        let f = data("bview.64k_stream_overflow.gz");
        let peer = "2001:1890:111d:1::63";
        let (st, script, _) = import(&["mrt", &f, "--format", "batch", "--peer", peer]);
        assert_eq!(st, 0);
        let got = load_and_get(&script, "2001:579:1040::1");
        assert!(got.contains(&format!("via {peer} dev mrt0")), "{got}");
    }

    #[test]
    fn batch_of_updates_replaces_and_deletes() {
        let f = data("updates.20160811.1600.gz");
        let peer = "2001:7f8:54::188";
        let (st, script, _) = import(&["mrt", &f, "--format", "batch", "--peer", peer]);
        assert_eq!(st, 0);
        assert!(script.contains("route replace "));
        // Every deletion names a prefix the script added before.
        let mut live = HashSet::new();
        for l in script.lines() {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.get(..2) {
                Some(["route", "replace"]) => {
                    live.insert(w[2]);
                }
                Some(["route", "del"]) => assert!(live.remove(w[2]), "{l}"),
                _ => {}
            }
        }
    }

    #[test]
    fn prefixes_and_updates_formats() {
        let (st, out, _) = import(&[
            "mrt",
            &data("bview.ipv4_unicast_add_path.gz"),
            "--format",
            "prefixes",
        ]);
        assert_eq!(st, 0);
        let lines: Vec<&str> = out.lines().collect();
        let mut sorted: Vec<Prefix> = lines
            .iter()
            .map(|l| {
                let (a, n) = l.split_once('/').unwrap();
                Prefix::new(a.parse().unwrap(), n.parse().unwrap()).unwrap()
            })
            .collect();
        sorted.dedup();
        assert_eq!(sorted.len(), lines.len());
        assert!(sorted.windows(2).all(|w| w[0] < w[1]));
        assert!(lines.contains(&"10.0.10.0/24"));

        let (st, out, _) = import(&[
            "mrt",
            &data("updates.long_withdrawal.gz"),
            "--format",
            "updates",
        ]);
        assert_eq!(st, 0);
        assert_eq!(out.lines().count(), 4096);
        assert!(out.starts_with("W 2001:db8::/64\nW 2001:db8:0:1::/64\n"));
    }

    #[test]
    fn bgpdump_format_is_the_default() {
        let (st, out, err) = import(&["mrt", &data("updates.nlri_mask_trailing_bits.gz")]);
        assert_eq!((st, err.as_str()), (0, ""));
        assert_eq!(
            out,
            "BGP4MP|1289168632|A|12.0.1.63|7018|11.8.0.0/13|7018 3549 12389 48275 51044|IGP|12.0.1.63|0|0|6923:3339|NAG||\n"
        );
    }

    #[test]
    fn bad_arguments_and_missing_files() {
        for args in [
            &["mrt"][..],
            &["rib", "x"],
            &["mrt", "x", "--format", "json"],
            &["mrt", "x", "--peer", "nope"],
            &["mrt", "x", "--bogus"],
        ] {
            let (st, out, err) = import(args);
            assert_eq!((st, out.as_str()), (255, ""), "{args:?}");
            assert!(err.starts_with("Usage: fib import mrt FILE"));
        }
        let (st, _, err) = import(&["mrt", "/nonexistent/rib.gz"]);
        assert_eq!(st, 1);
        assert!(
            err.starts_with("fib import: /nonexistent/rib.gz: "),
            "{err}"
        );
    }

    #[test]
    fn corrupt_record_stops_or_is_skipped() {
        // Three copies of an 88-byte BGP4MP record; the second's BGP marker damaged.
        let mut one = Vec::new();
        let file = std::fs::File::open(data("updates.nlri_mask_trailing_bits.gz")).unwrap();
        let (_, mut raw) = fibkit_mrt::decompress(file).unwrap();
        std::io::Read::read_to_end(&mut raw, &mut one).unwrap();
        assert_eq!(one.len(), 88);
        let mut bad = one.clone();
        bad[30] = 0;
        let bytes = [one.clone(), bad, one].concat();
        let path = std::env::temp_dir().join(format!("fib-import-{}.mrt", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let p = path.to_str().unwrap();
        let (st, out, err) = import(&["mrt", p]);
        assert_eq!((st, out.lines().count()), (1, 1));
        assert_eq!(
            err,
            format!("fib import: {p}: record 2 at byte 88: type 16 subtype 1: bad bgp marker\n")
        );
        let (st, out, err) = import(&["mrt", p, "--keep-going"]);
        assert_eq!((st, out.lines().count(), err.lines().count()), (1, 2, 1));
        // A truncated stream ends the import even with --keep-going.
        std::fs::write(&path, &bytes[..100]).unwrap();
        let (st, out, err) = import(&["mrt", p, "--keep-going"]);
        assert_eq!((st, out.lines().count()), (1, 1));
        assert!(
            err.contains("record 2 at byte 88: truncated record"),
            "{err}"
        );
        let _ = std::fs::remove_file(&path);
    }
}
