//! `fib mirror` against a live kernel: a private network namespace is configured with
//! `ip`, mirrored, and every answer of `fib mirror` is compared with the kernel's own
//! (`ip -n NS ...`): route lookups of both families (stdout, exit status and error text),
//! `route show table all`, `rule show`, `nexthop show` and `neigh show`.
//!
//! Needs root and `ip netns`; skipped (with a message) otherwise. The namespace is
//! removed when the test ends, also on failure. No traffic is sent.

use std::process::{Command, Output};

/// A private namespace, deleted on drop.
struct Netns(String);

impl Netns {
    fn new(n: u32) -> Option<Netns> {
        let name = format!("fibkit-mirror-{}-{n}", std::process::id());
        let ok = Command::new("ip")
            .args(["netns", "add", &name])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        ok.then_some(Netns(name))
    }

    /// `ip -n NS ARGS`, which must succeed.
    fn ip(&self, args: &str) {
        let mut a = vec!["-n", &self.0];
        a.extend(args.split_whitespace());
        let o = Command::new("ip").args(&a).output().expect("ip runs");
        assert!(
            o.status.success(),
            "ip {args}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }

    /// `accept_dad` off for `all` and `default`: IPv6 addresses made afterwards are
    /// usable at once.
    fn no_dad(&self) {
        for s in [
            "net.ipv6.conf.all.accept_dad=0",
            "net.ipv6.conf.default.accept_dad=0",
        ] {
            let o = self.exec("sysctl", &["-q", "-w", s]);
            assert!(o.status.success(), "sysctl {s}");
        }
    }

    fn exec(&self, prog: &str, args: &[&str]) -> Output {
        Command::new("ip")
            .args(["netns", "exec", &self.0, prog])
            .args(args)
            .output()
            .expect("ip netns exec runs")
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).output();
    }
}

/// Whether the live comparison can run here: root (for `ip netns`), and the kernel and
/// iproute2 whose answers and text fibkit reproduces (Linux 6.18, iproute2 6.1.0; see
/// the header of the conformance recordings). Elsewhere the kernel may answer otherwise
/// by design, so the test says why and skips.
fn live() -> Result<(), String> {
    if !is_root() {
        return Err("needs root (ip netns)".into());
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    if !release.starts_with("6.18.") {
        return Err(format!(
            "fibkit models Linux 6.18, the running kernel is {}",
            release.trim()
        ));
    }
    let ip = Command::new("ip")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !ip.contains("iproute2-6.1.0") {
        return Err(format!(
            "fibkit prints iproute2 6.1.0's text, `ip -V` says {:?}",
            ip.trim()
        ));
    }
    if !fibkit_iproute::scenario::kernel_netlink_answers(std::time::Duration::from_secs(10)) {
        return Err("the kernel's rtnetlink does not answer (`ip link show lo` hung)".into());
    }
    Ok(())
}

/// A private namespace for a live test, or `None` (the reason printed) where the
/// comparison cannot run.
fn live_netns(n: u32) -> Option<Netns> {
    if let Err(why) = live() {
        println!("skipped: {why}");
        return None;
    }
    let ns = Netns::new(n);
    if ns.is_none() {
        println!("skipped: `ip netns add` failed");
    }
    ns
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// What a command answered: exit status, stdout, stderr.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

fn answer(o: Output) -> Answer {
    Answer {
        status: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// The kernel's answer: `ip -n NS ARGS`.
fn kernel(ns: &Netns, args: &str) -> Answer {
    let mut a = vec!["-n", ns.0.as_str()];
    a.extend(args.split_whitespace());
    answer(Command::new("ip").args(&a).output().expect("ip runs"))
}

/// fibkit's answer: `ip netns exec NS fib mirror -q ARGS`.
fn fibkit(ns: &Netns, args: &str) -> Answer {
    let mut a = vec!["mirror", "-q"];
    a.extend(args.split_whitespace());
    answer(ns.exec(env!("CARGO_BIN_EXE_fib"), &a))
}

/// The start of the smaller tests' namespaces: the loopback and two links up, an IPv4
/// subnet on each.
const TWO_LINKS: [&str; 7] = [
    "link set lo up",
    "link add d0 type ifb",
    "link add d1 type ifb",
    "link set d0 up",
    "link set d1 up",
    "addr add 192.0.2.1/24 dev d0",
    "addr add 198.51.100.1/24 dev d1",
];

/// Configure the rich namespace state the comparisons run on.
fn configure(ns: &Netns) {
    for c in [
        "link set lo up",
        "link add d0 type ifb",
        "link add d1 type ifb",
        "link add d2 type ifb",
        "link add v0 type veth peer name v1",
        "link set d0 up",
        "link set d1 up",
        "link set v0 up",
        "link set v1 up",
        "addr add 192.0.2.1/24 dev d0",
        "addr add 192.0.2.10/24 dev d0",
        "addr add 198.51.100.1/24 dev d1",
        "addr add 10.9.0.1/30 dev v0",
        "addr add 10.9.0.2/30 dev v1",
        "addr add 10.99.0.1/24 dev d2",
        "-6 addr add 2001:db8::1/64 dev d0 nodad",
        "-6 addr add 2001:db8:1::1/64 dev d1 nodad",
        "-6 addr add 2001:db8:9::1/64 dev v0 nodad",
        "-6 addr add 2001:db8:50::1/64 dev d0 nodad noprefixroute",
        "route add default via 192.0.2.254",
        "route add 10.1.0.0/16 dev d1",
        "route add 10.2.0.0/16 nexthop via 192.0.2.254 weight 1 nexthop via 198.51.100.254 weight 3",
        "route add blackhole 10.3.0.0/16",
        "route add unreachable 10.4.0.0/16",
        "route add prohibit 10.5.0.0/16",
        "route add default via 198.51.100.254 table 100",
        "route add throw 10.6.0.0/16 table 100",
        "route add 10.7.0.0/16 via 192.0.2.254 metric 50",
        "route add 10.7.0.0/16 via 198.51.100.254 metric 100",
        "route add 10.8.0.0/16 via 192.0.2.254 src 192.0.2.10 proto static",
        "route add 10.10.0.0/16 dev d0 scope link",
        "route add 10.11.0.0/16 via 192.0.2.254 mtu 1400 advmss 1360",
        "route add 10.12.0.0/16 via 172.16.0.1 dev d1 onlink",
        "route add 10.13.0.0/16 tos 0x10 via 198.51.100.254",
        "-6 route add default via 2001:db8::ff dev d0",
        "-6 route add 2001:db8:100::/48 via 2001:db8:1::ff pref high",
        "-6 route add 2001:db8:200::/48 nexthop via 2001:db8::ff dev d0 weight 1 nexthop via 2001:db8:1::ff dev d1 weight 2",
        "-6 route add 2001:db8:300::/48 from 2001:db8:1::/64 via 2001:db8:1::fe",
        "-6 route add unreachable 2001:db8:400::/48",
        "-6 route add blackhole 2001:db8:401::/48",
        "-6 route add prohibit 2001:db8:402::/48",
        "-6 route add 2001:db8:500::/48 dev d1 metric 2048 mtu 1300 hoplimit 7",
        // metrics of multipath routes: `ip` takes them before the paths (mirror-diff
        // seed 2433)
        "route add 10.44.0.0/16 mtu lock 1300 nexthop via 192.0.2.254 nexthop via 198.51.100.254",
        "-6 route add 2001:db8:710::/48 mtu 1400 pref high nexthop via 2001:db8::ff dev d0 nexthop via 2001:db8:1::ff dev d1",
        "-6 route add 2001:db8:600::/48 via 2001:db8::ff table 100",
        "nexthop add id 1 via 192.0.2.254 dev d0",
        "nexthop add id 2 via 198.51.100.254 dev d1",
        "nexthop add id 3 group 1/2,3",
        "nexthop add id 4 blackhole",
        "nexthop add id 6 via 2001:db8::ff dev d0",
        "route add 10.20.0.0/16 nhid 3",
        "route add 10.21.0.0/16 nhid 4",
        "-6 route add 2001:db8:700::/48 nhid 6",
        "rule add pref 100 from 10.9.0.0/24 lookup 100",
        "rule add pref 110 to 10.60.0.0/16 lookup 100",
        "rule add pref 120 fwmark 0x10/0xff lookup 100",
        "rule add pref 130 iif d1 to 10.61.0.0/16 lookup 100",
        "rule add pref 140 oif d1 to 10.62.0.0/16 prohibit",
        "rule add pref 150 tos 0x10 to 10.63.0.0/16 lookup 100",
        "rule add pref 160 ipproto tcp dport 443 to 10.64.0.0/16 lookup 100",
        "rule add pref 170 uidrange 1000-2000 to 10.65.0.0/16 unreachable",
        "rule add pref 180 lookup main suppress_prefixlength 0",
        "rule add pref 190 to 10.66.0.0/16 goto 210",
        "rule add pref 200 to 10.66.0.0/16 blackhole",
        "rule add pref 210 nop",
        "rule add pref 220 to 10.66.0.0/16 lookup 100",
        "-6 rule add pref 100 from 2001:db8:1::/64 lookup 100",
        "-6 rule add pref 110 fwmark 0x20 lookup 100",
        // a veth whose peer is down: no carrier, its routes are linkdown
        "link add v2 type veth peer name v3",
        "link set v2 up",
        "addr add 10.98.0.1/24 dev v2",
        "route add 10.97.0.0/16 via 10.98.0.254 dev v2",
        "route add 10.14.0.0/16 via inet6 2001:db8::ff dev d0",
        "route add 10.40.0.0/16 via 198.51.100.254 realms 1/3",
        "route add 10.42.0.0/16 nexthop via 192.0.2.254 dev d0 realms 5 nexthop via 198.51.100.254 dev d1 realms 2/7",
        "route add local 10.41.0.1 dev d0 realms 2",
        "-6 route add 2001:db8:800::/48 via 2001:db8:1::ff proto static pref low",
        "rule add pref 230 not iif lo lookup 100",
        "rule add pref 235 from 192.0.2.10 to 10.67.0.0/16 prohibit",
        "rule add pref 240 iif lo to 10.68.0.0/16 lookup 100",
        "rule add pref 250 lookup main suppress_ifgroup 5",
        "link set d1 group 5",
    ] {
        ns.ip(c);
    }
    for s in [
        "net.ipv4.ip_forward=1",
        "net.ipv4.conf.d0.rp_filter=1",
        // a fixed seed: the kernel's default (0) is random per boot
        "net.ipv4.fib_multipath_hash_seed=1",
    ] {
        let o = ns.exec("sysctl", &["-q", "-w", s]);
        assert!(o.status.success(), "sysctl {s}");
    }
}

const QUERIES: &[&str] = &[
    "route get 8.8.8.8",
    "route get 10.44.1.1",
    "-6 route get 2001:db8:710::1",
    // `connected` asks twice (the second answer as text); pretty JSON
    "route get 8.8.8.8 connected",
    "-j -p route get 8.8.8.8 connected",
    "route get fibmatch 8.8.8.8 connected",
    "route get fibmatch 192.0.2.5 connected",
    "-6 route get ::1 connected",
    "-j -p -d route get 192.0.2.5",
    "route get 192.0.2.5",
    "route get 192.0.2.1",
    "route get 127.0.0.1",
    "route get 10.1.2.3",
    "route get 10.2.0.1",
    "route get 10.2.0.2",
    "route get 10.2.99.7",
    "route get 10.3.0.1",
    "route get 10.4.0.1",
    "route get 10.5.0.1",
    "route get 10.7.0.1",
    "route get 10.8.0.1",
    "route get 10.11.0.1",
    "route get 10.12.0.1",
    "route get 10.13.0.1 tos 0x10",
    "route get 10.13.0.1",
    "route get 10.20.0.1",
    "route get 10.20.0.2",
    "route get 10.21.0.1",
    "route get 10.6.0.1 from 10.9.0.1",
    "route get 10.60.0.1",
    "route get 10.50.0.1 mark 0x10",
    "route get 10.50.0.1 mark 0x11",
    "route get 10.61.0.1 iif d1 from 198.51.100.7",
    "route get 10.61.0.1 from 198.51.100.1",
    "route get 10.62.0.1 oif d1",
    "route get 10.64.0.1 ipproto tcp dport 443",
    "route get 10.64.0.1 ipproto tcp dport 80",
    "route get 10.65.0.1 uid 1500",
    "route get 10.65.0.1 uid 10",
    "route get 10.66.0.1",
    "route get fibmatch 10.2.0.1",
    "route get fibmatch 10.3.0.1",
    "route get 192.0.2.5 from 192.0.2.10",
    "route get 8.8.8.8 iif d0 from 192.0.2.77",
    "route get 10.99.0.5",
    "route get 10.9.0.2 oif v0",
    "route get 10.97.0.1",
    "route get 10.98.0.7",
    "route get 10.14.0.1",
    "route get 10.40.0.1 mark 0x20",
    "-j route get 10.40.0.1 mark 0x20",
    "route get 10.40.0.1 from 192.0.2.9 iif d0",
    "route get 10.41.0.1",
    "route get 10.42.0.1",
    "route get 10.42.0.2",
    "route get fibmatch 10.42.0.1",
    "route get 224.0.0.5",
    "route get fibmatch 224.0.0.5",
    "route get 10.40.0.0/16",
    "route get 10.99.0.0/16",
    "-6 route get 2001:db8:100::/48",
    "route get 10.67.0.1",
    "route get 10.67.0.1 from 192.0.2.10",
    "route get 10.68.0.1",
    "route get 10.1.0.1 iif d0 from 10.1.0.9",
    "route get 10.1.0.1 iif d1 from 10.1.0.9",
    "-j route get 10.2.0.1",
    "-6 route get 2001:db8:800::1",
    "-6 -j route get 2001:db8:100::1",
    "-6 route get 2001:4860::1",
    "-6 route get 2001:db8:100::1",
    "-6 route get 2001:db8:200::1",
    "-6 route get 2001:db8:200::2",
    "-6 route get 2001:db8:300::1 from 2001:db8:1::1",
    "-6 route get 2001:db8:300::1",
    "-6 route get 2001:db8:400::1",
    "-6 route get 2001:db8:401::1",
    "-6 route get 2001:db8:402::1",
    "-6 route get 2001:db8:500::1",
    "-6 route get 2001:db8:710::1",
    "-6 route get 2001:db8::1",
    "-6 route get 2001:db8:600::1 from 2001:db8:1::1",
    "-6 route get 2001:db8:9::2 mark 0x20",
    "-6 route get fibmatch 2001:db8:200::1",
    "-6 route get 2001:db8:50::7",
];

const SHOWS: &[&str] = &[
    "-4 route show table all",
    "-6 route show table all",
    "-4 rule show",
    "-6 rule show",
    "nexthop show",
    // brief listings (the columns' padding is only visible here: recordings collapse
    // blanks) and -N's numbers
    "-br link show",
    "-br addr show",
    "-br -4 addr show",
    "-br -j addr show",
    "-br -o link show",
    "-N route show table all",
    "-N -6 route show table all",
    "-N rule show",
    "-N -d link show",
];

/// Compare the kernel's and fibkit's answers to each command; returns the differences.
fn compare(ns: &Netns, cmds: &[&str]) -> Vec<String> {
    let mut diffs = Vec::new();
    for c in cmds {
        let k = kernel(ns, c);
        let f = fibkit(ns, c);
        if k != f {
            diffs.push(format!("ip {c}\n  kernel: {k:?}\n  fibkit: {f:?}"));
        }
    }
    diffs
}

#[test]
fn mirror_answers_like_the_kernel() {
    let Some(ns) = live_netns(1) else {
        return;
    };
    configure(&ns);
    let mut diffs = compare(&ns, QUERIES);
    diffs.extend(compare(&ns, SHOWS));
    // the script round-trips: `fib -batch` of the saved mirror builds the same routes
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "-q", "--save", "-"]);
    assert!(saved.status.success());
    let script = String::from_utf8_lossy(&saved.stdout);
    // everything is mirrored but the ifb kind and the DAD state of the link-local
    // addresses of the veth pair (done or not, depending on timing)
    let loud = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror"]);
    let warnings = String::from_utf8_lossy(&loud.stderr);
    for w in warnings.lines() {
        assert!(
            w.contains("(kind ifb) mirrored as a dummy") || w.contains("tentative"),
            "unexpected warning: {w}"
        );
    }
    assert!(
        script.contains("nexthop add id 3 group 1,1/2,3"),
        "{script}"
    );
    assert!(
        script.contains("# sysctl net.ipv4.conf.all.forwarding=1"),
        "{script}"
    );
    assert!(
        diffs.is_empty(),
        "{} of {} answers differ:\n{}",
        diffs.len(),
        QUERIES.len() + SHOWS.len(),
        diffs.join("\n")
    );
}

#[test]
fn a_second_mirror_sees_changes() {
    let Some(ns) = live_netns(2) else {
        return;
    };
    ns.ip("link set lo up");
    ns.ip("link add d0 type ifb");
    ns.ip("link set d0 up");
    ns.ip("addr add 192.0.2.1/24 dev d0");
    let before = fibkit(&ns, "route get 10.1.2.3");
    assert_eq!(before, kernel(&ns, "route get 10.1.2.3"));
    assert_ne!(before.status, Some(0));
    ns.ip("route add 10.1.0.0/16 via 192.0.2.254");
    // a connected prefix route the user deleted stays deleted in the mirror
    ns.ip("route del 192.0.2.0/24 dev d0 table main");
    let diffs = compare(
        &ns,
        &[
            "route get 10.1.2.3",
            "route get 192.0.2.7",
            "-4 route show table all",
            "-6 route show table all",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// A `fib mirror --follow` child, killed on drop.
struct Child(std::process::Child);

/// `fib mirror -q --follow ARGS` in `ns`, its output piped.
fn follow(ns: &Netns, args: &[&str]) -> Child {
    Child(
        Command::new("ip")
            .args(["netns", "exec", &ns.0, env!("CARGO_BIN_EXE_fib")])
            .args(["mirror", "-q", "--follow"])
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("fib runs"),
    )
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn follow_resyncs_on_changes() {
    use std::io::BufRead;
    let Some(ns) = live_netns(3) else {
        return;
    };
    ns.ip("link set lo up");
    ns.ip("link add d0 type ifb");
    ns.ip("link set d0 up");
    ns.ip("addr add 192.0.2.1/24 dev d0");
    let mut child = follow(&ns, &["route", "get", "10.1.2.3"]);
    let out = child.0.stdout.take().expect("stdout");
    let mut lines = std::io::BufReader::new(out).lines();
    let first = lines.next().expect("a line").expect("text");
    assert!(first.starts_with("resync 0: "), "{first}");
    ns.ip("route add 10.1.0.0/16 via 192.0.2.254");
    let second = lines.next().expect("a line").expect("text");
    // an IPv4 route event alone is applied as it came, without a dump
    assert!(second.starts_with("update 1: 1 events: "), "{second}");
    assert!(second.contains("routes +1/-0"), "{second}");
    let answer = lines.next().expect("a line").expect("text");
    assert_eq!(
        answer,
        "10.1.2.3 via 192.0.2.254 dev d0 src 192.0.2.1 uid 0 "
    );
}

/// The `<redirect>` cache flag of forwarded answers (`RTCF_DOREDIRECT`,
/// `__mkroute_input`) under the knobs that decide it: `send_redirects` (all OR device),
/// `shared_media` (all OR device, else source and gateway on one subnet of the device),
/// and a source reached directly or through a gateway.
#[test]
fn redirect_flag_follows_sysctls() {
    let Some(ns) = live_netns(4) else {
        return;
    };
    for c in TWO_LINKS.iter().copied().chain([
        "route add 10.3.0.0/16 via 198.51.100.254",
        "route add 10.4.0.0/16 dev d1",
        "route add 10.5.0.0/16 via 203.0.113.254 dev d1 onlink",
        "route add 10.77.0.0/16 via 198.51.100.254",
    ]) {
        ns.ip(c);
    }
    let sysctl = |s: &str| {
        let o = ns.exec("sysctl", &["-q", "-w", s]);
        assert!(o.status.success(), "sysctl {s}");
    };
    sysctl("net.ipv4.ip_forward=1");
    let queries = [
        "route get 10.3.0.1 iif d1 from 198.51.100.7",
        "-j route get 10.3.0.1 iif d1 from 198.51.100.7",
        "route get 10.4.0.1 iif d1 from 198.51.100.7",
        "route get 10.5.0.1 iif d1 from 198.51.100.7",
        "route get 198.51.100.9 iif d1 from 198.51.100.7",
        "route get 10.3.0.1 iif d1 from 10.77.0.5",
        "route get 10.3.0.1 iif d0 from 192.0.2.7",
    ];
    let mut diffs = Vec::new();
    let mut redirects = 0;
    for step in [
        &[][..],
        &["net.ipv4.conf.d1.send_redirects=0"][..],
        &["net.ipv4.conf.all.send_redirects=0"][..],
        &["net.ipv4.conf.d1.send_redirects=1"][..],
        &["net.ipv4.conf.d1.shared_media=0"][..],
        &["net.ipv4.conf.all.shared_media=0"][..],
        &["net.ipv4.conf.all.rp_filter=1"][..],
    ] {
        for s in step {
            sysctl(s);
        }
        redirects += queries
            .iter()
            .filter(|q| kernel(&ns, q).stdout.contains("redirect"))
            .count();
        diffs.extend(
            compare(&ns, &queries)
                .into_iter()
                .map(|d| format!("after {step:?}: {d}")),
        );
    }
    // the knobs do move the flag: the comparison is not vacuous
    assert!(redirects > 0);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Neighbour entries decide paths: IPv4 multipath under `fib_multipath_use_neigh=1`
/// and nexthop groups pass over a gateway whose entry is not valid (`FAILED`,
/// `INCOMPLETE`), IPv6 ranks a `FAILED` router below the others (multipath legs,
/// routers of one prefix at different metrics, and group members). The entries go
/// through several setups; in each, the kernel's and the mirror's answers must agree,
/// and the kernel's answers must change between setups (else the test could not fail
/// on a mirror without neighbours).
#[test]
fn neighbour_states_decide_paths() {
    let Some(ns) = live_netns(5) else {
        return;
    };
    for c in [
        "link set lo up",
        "link add a0 type veth peer name a1",
        "link add b0 type veth peer name b1",
        "link set a0 up",
        "link set a1 up",
        "link set b0 up",
        "link set b1 up",
        "addr add 192.0.2.1/24 dev a0",
        "addr add 198.51.100.1/24 dev b0",
        "-6 addr add 2001:db8::1/64 dev a0 nodad",
        "-6 addr add 2001:db8:1::1/64 dev b0 nodad",
        "route add 10.2.0.0/16 nexthop via 192.0.2.11 dev a0 nexthop via 192.0.2.12 dev a0",
        "route add 10.3.0.0/16 nexthop via 192.0.2.13 dev a0 nexthop via 198.51.100.13 dev b0 weight 2",
        "nexthop add id 1 via 192.0.2.21 dev a0",
        "nexthop add id 2 via 192.0.2.22 dev a0",
        "nexthop add id 3 group 1/2",
        "route add 10.20.0.0/16 nhid 3",
        "-6 route add 2001:db8:200::/48 nexthop via 2001:db8::11 dev a0 nexthop via 2001:db8::12 dev a0",
        "-6 route add 2001:db8:300::/48 via 2001:db8::31 dev a0 metric 100",
        "-6 route add 2001:db8:300::/48 via 2001:db8:1::32 dev b0 metric 200",
        "nexthop add id 11 via 2001:db8::41 dev a0",
        "nexthop add id 12 via 2001:db8::42 dev a0",
        "nexthop add id 13 group 11/12",
        "-6 route add 2001:db8:400::/48 nhid 13",
    ] {
        ns.ip(c);
    }
    for s in [
        "net.ipv4.fib_multipath_use_neigh=1",
        "net.ipv4.fib_multipath_hash_seed=1",
    ] {
        let o = ns.exec("sysctl", &["-q", "-w", s]);
        assert!(o.status.success(), "sysctl {s}");
    }
    let mut queries: Vec<String> = Vec::new();
    for d in 1..=8 {
        queries.push(format!("route get 10.2.0.{d}"));
        queries.push(format!("route get 10.3.0.{d}"));
        queries.push(format!("route get 10.20.0.{d}"));
        queries.push(format!("-6 route get 2001:db8:200::{d}"));
        queries.push(format!("-6 route get 2001:db8:400::{d}"));
    }
    queries.push("-6 route get 2001:db8:300::1".into());
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    let set = |entries: &[(&str, &str, &str)]| {
        for (gw, dev, nud) in entries {
            let fam = if gw.contains(':') { "-6 " } else { "" };
            ns.ip(&format!(
                "{fam}neigh replace {gw} lladdr 02:00:00:00:00:01 dev {dev} nud {nud}"
            ));
        }
    };
    let usable: &[(&str, &str, &str)] = &[
        ("192.0.2.11", "a0", "reachable"),
        ("192.0.2.12", "a0", "stale"),
        ("192.0.2.13", "a0", "permanent"),
        ("198.51.100.13", "b0", "noarp"),
        ("192.0.2.21", "a0", "reachable"),
        ("192.0.2.22", "a0", "permanent"),
        ("2001:db8::11", "a0", "reachable"),
        ("2001:db8::12", "a0", "stale"),
        ("2001:db8::31", "a0", "permanent"),
        ("2001:db8:1::32", "b0", "noarp"),
        ("2001:db8::41", "a0", "reachable"),
        ("2001:db8::42", "a0", "stale"),
    ];
    let first_invalid: &[(&str, &str, &str)] = &[
        ("192.0.2.11", "a0", "failed"),
        ("192.0.2.13", "a0", "incomplete"),
        ("192.0.2.21", "a0", "incomplete"),
        ("2001:db8::11", "a0", "failed"),
        ("2001:db8::31", "a0", "failed"),
        ("2001:db8::41", "a0", "failed"),
    ];
    let second_invalid: &[(&str, &str, &str)] = &[
        ("192.0.2.11", "a0", "reachable"),
        ("192.0.2.12", "a0", "incomplete"),
        ("192.0.2.13", "a0", "stale"),
        ("198.51.100.13", "b0", "failed"),
        ("192.0.2.21", "a0", "permanent"),
        ("192.0.2.22", "a0", "failed"),
        ("2001:db8::11", "a0", "noarp"),
        ("2001:db8::12", "a0", "failed"),
        ("2001:db8::31", "a0", "incomplete"),
        ("2001:db8:1::32", "b0", "failed"),
        ("2001:db8::41", "a0", "permanent"),
        ("2001:db8::42", "a0", "failed"),
    ];
    let mut diffs = Vec::new();
    let mut answers: Vec<Vec<Answer>> = Vec::new();
    for (name, entries) in [
        ("usable", usable),
        ("first invalid", first_invalid),
        ("second invalid", second_invalid),
    ] {
        set(entries);
        // `neigh show` first: a REACHABLE entry turns STALE after some 15-45 s, so
        // a difference is looked at again once
        for show in ["-4 neigh show", "-6 neigh show"] {
            let mut d = compare(&ns, &[show]);
            if !d.is_empty() {
                d = compare(&ns, &[show]);
            }
            diffs.extend(d.into_iter().map(|d| format!("{name}: {d}")));
        }
        diffs.extend(
            compare(&ns, &queries)
                .into_iter()
                .map(|d| format!("{name}: {d}")),
        );
        answers.push(queries.iter().map(|q| kernel(&ns, q)).collect());
    }
    // the saved script holds the entries
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "-q", "--save", "-"]);
    assert!(saved.status.success());
    let script = String::from_utf8_lossy(&saved.stdout);
    for want in [
        "neigh add 192.0.2.21 lladdr 02:00:00:00:00:01 dev a0 nud permanent",
        "neigh add 192.0.2.12 dev a0 nud incomplete",
        "-6 neigh add 2001:db8::42 dev a0 nud failed",
    ] {
        assert!(script.contains(want), "missing `{want}` in:\n{script}");
    }
    // the entries gone: every path usable again, as in the first setup
    ns.ip("neigh flush dev a0 nud all");
    ns.ip("neigh flush dev b0 nud all");
    diffs.extend(
        compare(&ns, &queries)
            .into_iter()
            .map(|d| format!("flushed: {d}")),
    );
    let changed = |a: &[Answer], b: &[Answer]| a.iter().zip(b).filter(|(x, y)| x != y).count();
    assert!(
        changed(&answers[0], &answers[1]) > 0 && changed(&answers[0], &answers[2]) > 0,
        "the neighbour states did not change any kernel answer"
    );
    println!(
        "kernel answers changed by the neighbour states: {} and {} of {}",
        changed(&answers[0], &answers[1]),
        changed(&answers[0], &answers[2]),
        queries.len()
    );
    assert!(
        diffs.is_empty(),
        "{} answers differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// Follow mode resyncs on a neighbour event only when the entry changes what lookups
/// see: a new `REACHABLE` entry turning `STALE` causes none, turning `FAILED` one.
#[test]
fn follow_resyncs_on_neighbour_validity_only() {
    use std::io::BufRead;
    let Some(ns) = live_netns(6) else {
        return;
    };
    // no IPv6: no link-local addresses whose DAD would end during the test
    for s in [
        "net.ipv6.conf.all.disable_ipv6=1",
        "net.ipv6.conf.default.disable_ipv6=1",
    ] {
        let o = ns.exec("sysctl", &["-q", "-w", s]);
        assert!(o.status.success(), "sysctl {s}");
    }
    for c in [
        "link set lo up",
        "link add a0 type veth peer name a1",
        "link set a0 up",
        "link set a1 up",
        "addr add 192.0.2.1/24 dev a0",
    ] {
        ns.ip(c);
    }
    let mut child = follow(&ns, &["neigh", "show"]);
    let out = child.0.stdout.take().expect("stdout");
    let mut lines = std::io::BufReader::new(out)
        .lines()
        .map(|l| l.expect("text"))
        .filter(|l| !l.trim().is_empty());
    let first = lines.next().expect("a line");
    assert!(first.starts_with("resync 0: "), "{first}");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(400));
    pause();
    ns.ip("neigh add 192.0.2.254 lladdr 02:00:00:00:00:01 dev a0 nud reachable");
    pause();
    ns.ip("neigh replace 192.0.2.254 lladdr 02:00:00:00:00:01 dev a0 nud stale");
    pause();
    ns.ip("neigh replace 192.0.2.254 dev a0 nud failed");
    let second = lines.next().expect("a line");
    assert!(second.starts_with("resync 1: "), "{second}");
    assert!(second.contains("neigh +1/-0"), "{second}");
    let answer = lines.next().expect("a line");
    assert!(
        answer.starts_with("192.0.2.254 dev a0") && answer.contains("FAILED"),
        "{answer}"
    );
}

/// The kernel keeps its IPv4 local and main tables merged until the first rule is
/// added, and never merges them again: after a rule is added and deleted, the rules
/// are the defaults again, yet answers for local and broadcast addresses come from
/// `table local` (and input lookups take the full source check). The mirror probes for
/// it and must answer the same, before and after.
#[test]
fn tables_stay_unmerged_after_a_rule_came_and_went() {
    let Some(ns) = live_netns(7) else {
        return;
    };
    for c in TWO_LINKS.iter().copied().chain([
        "addr add 10.1.2.3/32 dev lo",
        "route add 10.3.0.0/16 via 198.51.100.254",
    ]) {
        ns.ip(c);
    }
    let o = ns.exec("sysctl", &["-q", "-w", "net.ipv4.ip_forward=1"]);
    assert!(o.status.success(), "sysctl");
    let queries = [
        "route get 10.1.2.3",
        "route get 127.0.0.1",
        "route get 192.0.2.1",
        "route get 192.0.2.255",
        "route get 198.51.100.255",
        "route get 10.3.0.1",
        "route get 10.3.0.1 iif d0 from 192.0.2.7",
        "route get 192.0.2.1 iif d1 from 198.51.100.7",
        "route get 192.0.2.255 iif d0 from 192.0.2.7",
        "rule show",
    ];
    let merged = compare(&ns, &queries);
    assert!(merged.is_empty(), "merged:\n{}", merged.join("\n"));
    assert!(!kernel(&ns, "route get 10.1.2.3")
        .stdout
        .contains("table local"));
    ns.ip("rule add pref 100 from 203.0.113.0/24 lookup main");
    ns.ip("rule del pref 100");
    // the kernel's answers changed although its rules did not: not a vacuous comparison
    assert!(
        kernel(&ns, "route get 10.1.2.3")
            .stdout
            .starts_with("local 10.1.2.3 dev lo table local "),
        "{:?}",
        kernel(&ns, "route get 10.1.2.3")
    );
    let diffs = compare(&ns, &queries);
    assert!(diffs.is_empty(), "unmerged:\n{}", diffs.join("\n"));
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "--save", "-"]);
    assert!(saved.status.success());
    let script = String::from_utf8_lossy(&saved.stdout);
    assert!(
        script.contains("local and main tables are unmerged")
            && script.contains("rule add pref 32765 lookup main\nrule del pref 32765\n"),
        "{script}"
    );
    // the probe succeeded: no warning about it
    let warnings = String::from_utf8_lossy(&saved.stderr);
    assert!(!warnings.contains("probe"), "{warnings}");
}

/// The kernel checks a route's gateway (and a nexthop object's) when it is added,
/// under the rules of that moment: routes added before a rule that now makes their
/// gateway unreachable stay, and routes whose gateway only a rule-selected table
/// reaches can only come after that rule. The mirror must rebuild both, in the
/// kernel's order within each prefix, and so must `fib -batch` of its script.
#[test]
fn routes_checked_under_the_rules_of_their_time() {
    let Some(ns) = live_netns(8) else {
        return;
    };
    for c in [
        "link set lo up",
        "link add d1 type ifb",
        "link add d2 type ifb",
        "link set d1 up",
        "link set d2 up",
        "addr add 10.1.0.1/24 dev d1",
        "addr add 10.2.0.1/24 dev d2",
        "-6 addr add fd00::1/64 dev d2 nodad",
        "-6 addr add fd01::1/64 dev d1 nodad",
        // before any rule (IPv4 tables still merged)
        "route add 10.99.0.0/16 via 10.1.0.9 dev d1",
        "route add 10.98.0.0/16 via 10.1.0.9 dev d1 table 100",
        "route add 10.97.0.0/16 via 10.1.0.9 table local",
        "nexthop add id 11 via 10.1.0.9 dev d1",
        "route add 10.81.0.0/16 nhid 11",
        "-6 route add 2001:db8::/32 via fd00::9 dev d2 table local",
        "-6 route add 2001:db8:1::/48 via fd00::9 dev d2",
        // gateways only a rule-selected table reaches
        "route add 10.50.0.0/24 dev d2 table 200",
        "rule add pref 500 to 10.50.0.0/24 lookup 200",
        "route add 10.60.0.0/16 via 10.50.0.7",
        "route add 10.70.0.0/16 via 10.50.0.7",
        "route append 10.70.0.0/16 via 10.2.0.9 dev d2",
        "nexthop add id 10 via 10.50.0.8 dev d2",
        "route add 10.80.0.0/16 nhid 10",
        "-6 route add fd50::/64 dev d1 table 200",
        "-6 rule add pref 500 to fd50::/64 lookup 200",
        "-6 rule add pref 600 to 2001:db8:5::/48 lookup main",
        "-6 route add 2001:db8:5::/48 via fd50::7",
        // and now the routes added first could not be added any more
        "rule add pref 1000 to 10.1.0.9/32 prohibit",
        "-6 rule add pref 1000 blackhole",
    ] {
        ns.ip(c);
    }
    // not vacuous: the kernel refuses the first routes now
    let again = kernel(
        &ns,
        "-6 route add 2001:db8:2::/48 via fd00::9 dev d2 table local",
    );
    assert_ne!(again.status, Some(0), "{again:?}");
    let again = kernel(&ns, "route add 10.96.0.0/16 via 10.1.0.9 dev d1");
    assert_ne!(again.status, Some(0), "{again:?}");
    let queries = [
        "route get 10.99.0.1",
        "route get 10.98.0.1",
        "route get 10.1.0.9",
        "route get 10.60.0.1",
        "route get 10.70.0.1",
        "route get 10.80.0.1",
        "route get 10.81.0.1",
        "-6 route get 2001:db8::1",
        "-6 route get 2001:db8:1::1",
        "-6 route get 2001:db8:5::1",
        "route show table all",
        "-6 route show table all",
        "rule show",
        "-6 rule show",
        "nexthop show",
    ];
    let diffs = compare(&ns, &queries);
    let loud = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "--save", "-"]);
    assert!(loud.status.success());
    let warnings = String::from_utf8_lossy(&loud.stderr);
    // every command was accepted, and nothing differs in the end
    let unexpected: Vec<&str> = warnings
        .lines()
        .filter(|w| {
            ["refused", "missing", "has and the kernel has not", "order"]
                .iter()
                .any(|x| w.contains(x))
        })
        .collect();
    assert!(
        unexpected.is_empty() && diffs.is_empty(),
        "warnings:\n{}\ndifferences:\n{}",
        unexpected.join("\n"),
        diffs.join("\n")
    );
    // the script rebuilds the same state with `fib -batch`
    let replay = replay_saved(&ns, &loud.stdout, &queries);
    assert!(replay.is_empty(), "{}", replay.join("\n"));
}

/// Gateways the kernel checked when their route or nexthop object was added and no
/// longer reaches (the addresses of their subnets deleted since), and a preferred source
/// whose address went with its device's IPv6 state: the mirror takes them
/// as the kernel has them (restore mode) and says so, and its script keeps them
/// commented out, since `fib -batch` refuses them now.
#[test]
fn mirror_keeps_gateways_the_kernel_no_longer_reaches() {
    let Some(ns) = live_netns(9) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "-6 addr add 2001:db8:9::1/64 dev d0 nodad",
        "-6 route add 2001:db8:50::/48 via 2001:db8:9::2",
        "nexthop add id 7 via 2001:db8:9::3 dev d0",
        "route add 10.60.0.0/16 nhid 7",
        "-6 addr del 2001:db8:9::1/64 dev d0",
        // a preferred source on d1, whose IPv6 state then goes: the route keeps it
        "-6 addr add 2001:db8:2::1/64 dev d1 nodad",
        "-6 route add 2001:db8:77::/48 dev d0 src 2001:db8:2::1",
        // a reject route's realms (which also make every source check a full one)
        "route add unreachable 10.77.0.0/16 realm 2",
        // an IPv6 gateway route beside a reject route of the same metric
        "-6 route add unreachable 2001:db8:88::/48",
        "-6 route append 2001:db8:88::/48 via fe80::1 dev d0",
        // a multipath route one of whose devices then goes down: the path stays, dead
        "link add d2 type ifb",
        "link set d2 up",
        "-6 addr add 2001:db8:a::1/64 dev d2 nodad",
        "-6 addr add 2001:db8:b::1/64 dev d0 nodad",
        "-6 route add 2001:db8:99::/48 nexthop via 2001:db8:b::2 dev d0 nexthop via 2001:db8:a::2 dev d2",
        "link set d2 down",
        // an onlink gateway a local route added since makes a local address (one
        // the dump lists first)
        "route add 10.80.0.0/16 via 10.9.9.9 dev d0 onlink table local",
        "route add local 10.9.0.0/16 dev d0 table local",
    ] {
        ns.ip(c);
    }
    let off = ns.exec("sysctl", &["-qw", "net.ipv6.conf.d1.disable_ipv6=1"]);
    assert!(off.status.success());
    let queries = [
        "-6 route get 2001:db8:50::1",
        "-6 route get 2001:db8:77::1",
        "-6 route get fibmatch 2001:db8:88::1 oif d0",
        "route get 10.60.0.1",
        "-6 route get 2001:db8:99::1",
        "-6 route get fibmatch 2001:db8:99::1",
        "route get 10.80.0.1",
        "-6 route show table all",
        "route show table all",
        "nexthop show",
    ];
    let diffs = compare(&ns, &queries);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    let loud = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "--save", "-"]);
    assert!(loud.status.success());
    let warnings = String::from_utf8_lossy(&loud.stderr);
    let script = String::from_utf8_lossy(&loud.stdout);
    for cmd in [
        "-6 route add 2001:db8:50::/48",
        "nexthop add id 7 via 2001:db8:9::3",
        "src 2001:db8:2::1",
        "-6 route add 2001:db8:99::/48",
        "10.80.0.0/16",
    ] {
        assert!(
            warnings
                .lines()
                .any(|w| w.contains(cmd) && w.contains("accepted by the kernel when it was added")),
            "no warning for {cmd}:\n{warnings}"
        );
        assert!(
            script
                .lines()
                .any(|l| l.starts_with("# ") && l.contains(cmd)),
            "{cmd} not kept commented out:\n{script}"
        );
    }
}

/// The seconds an IPv6 route has left: `ip` prints `expires Ns` from the dump's
/// `RTA_CACHEINFO`, and the mirror adds the route with them. The kernel's count runs
/// on between the two reads, so the mirror's figure must lie between a kernel read
/// before it and one after (the rest of the text is equal).
#[test]
fn mirror_keeps_the_seconds_left_of_expiring_routes() {
    let Some(ns) = live_netns(10) else {
        return;
    };
    ns.ip("link set lo up");
    ns.ip("link add d0 type ifb");
    ns.ip("link set d0 up");
    ns.ip("-6 addr add 2001:db8:1::1/64 dev d0 nodad");
    ns.ip("-6 route add 2001:db8:5::/64 via 2001:db8:1::9 expires 600");
    ns.ip("-6 route add default via 2001:db8:1::8 proto ra expires 1800");
    ns.ip("-6 route add 2001:db8:6::/64 via 2001:db8:1::9");
    let show = "-6 route show";
    let secs = |a: &Answer| -> (String, Vec<u32>) {
        let mut rest = Vec::new();
        let mut left = Vec::new();
        let words: Vec<&str> = a.stdout.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            match w.strip_suffix("sec") {
                Some(n) if i > 0 && words[i - 1] == "expires" => {
                    left.push(n.parse().expect("seconds"));
                    rest.push("SECS");
                }
                _ => rest.push(w),
            }
        }
        (rest.join(" "), left)
    };
    let before = kernel(&ns, show);
    let mirrored = fibkit(&ns, show);
    let after = kernel(&ns, show);
    let (text_k, early) = secs(&before);
    let (text_f, got) = secs(&mirrored);
    let (_, late) = secs(&after);
    assert_eq!(text_f, text_k, "the routes, expiry aside");
    assert_eq!(got.len(), 2, "two expiring routes: {:?}", mirrored.stdout);
    for ((g, e), l) in got.iter().zip(&early).zip(&late) {
        assert!(l <= g && g <= e, "kernel {e} then {l}, mirror {g}");
    }
    // the saved script adds them with those seconds
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "-q", "--save", "-"]);
    let script = String::from_utf8_lossy(&saved.stdout);
    assert_eq!(script.matches(" expires ").count(), 2, "{script}");
}

/// Follow mode applies bursts of route events one by one (`update N:` lines) as the
/// `ip route` commands their flags imply; after each, `--verify` dumps the kernel and
/// must find the routes the mirror shows, in the same order. The commands are the route
/// changes of a random scenario, both families (adds, appends, prepends, replaces,
/// changes and deletes of every type, multipath, nexthop objects that may not exist,
/// metrics, expiry), applied in bursts of three; an IPv6 multipath event resyncs.
#[test]
fn follow_applies_route_events_as_the_kernel_did() {
    use std::io::Read;
    let Some(ns) = live_netns(11) else {
        return;
    };
    let sysctl = |kv: &str| {
        let o = ns.exec("sysctl", &["-qw", kv]);
        assert!(o.status.success(), "sysctl {kv}");
    };
    // as the oracle prepares its namespaces: no DAD (an address turning usable later
    // changes routes while the test runs), a fixed multipath hash seed
    sysctl("net.ipv6.conf.all.accept_dad=0");
    sysctl("net.ipv6.conf.default.accept_dad=0");
    sysctl("net.ipv4.fib_multipath_hash_seed=1");
    ns.ip("link set lo up");
    let text = fibkit_iproute::random::scenario(7, 160);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    let setup = lines
        .iter()
        .take_while(|l| l.starts_with("ip link") || l.contains(" addr add "));
    for l in setup {
        ns.ip(&l["ip ".len()..].replace("type dummy", "type ifb"));
    }
    // first, routes of one prefix whose order only the events' flags tell (a gateway
    // `onlink`, whatever addresses the scenario gave the devices)
    let mut changes: Vec<&str> = vec![
        "ip route add 10.50.0.0/16 via 10.0.0.2 dev d0 onlink",
        "ip route append 10.50.0.0/16 via 10.0.0.3 dev d0 onlink",
        "ip route prepend 10.50.0.0/16 dev d1",
        "ip route append 10.50.0.0/16 dev d2",
        "ip route prepend 10.50.0.0/16 via 10.0.0.4 dev d1 onlink",
        "ip route replace 10.50.0.0/16 via 10.0.0.5 dev d0 onlink",
        "ip route del 10.50.0.0/16 dev d2",
        "ip route add 10.50.0.0/16 dev d0 metric 5 tos 0x10",
        "ip route append 10.50.0.0/16 dev d1 metric 5 tos 0x10",
        "ip route change 10.50.0.0/16 dev d2 metric 5 tos 0x10 mtu 1300",
        "ip route append unreachable 10.50.0.0/16 metric 5",
        "ip route prepend 10.50.0.0/16 dev d1 metric 5",
        "ip -6 route add 2001:db8:50::/64 dev d0",
        "ip -6 route append 2001:db8:50::/64 dev d1",
        "ip -6 route add 2001:db8:50::/64 via fe80::1 dev d2 metric 7",
        "ip -6 route append 2001:db8:50::/64 via fe80::2 dev d2 metric 7",
        "ip -6 route del 2001:db8:50::/64 via fe80::1 dev d2 metric 7",
        "ip -6 route replace 2001:db8:50::/64 dev d2 expires 300",
    ];
    changes.extend(lines.iter().copied().filter(|l| {
        ["add", "append", "prepend", "replace", "change", "del"]
            .iter()
            .any(|v| {
                l.starts_with(&format!("ip route {v} "))
                    || l.starts_with(&format!("ip -6 route {v} "))
            })
    }));
    assert!(changes.len() > 50, "{} route changes", changes.len());
    let mut child = follow(&ns, &["--verify"]);
    std::thread::sleep(std::time::Duration::from_millis(800));
    for (i, l) in changes.iter().enumerate() {
        // refused commands are part of the scenario: they send no event
        let _ = Command::new("ip")
            .args(["-n", &ns.0])
            .args(l["ip ".len()..].split_whitespace())
            .output();
        if i % 3 == 2 {
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let _ = child.0.kill();
    let mut out = String::new();
    child
        .0
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("output");
    let updates = out.lines().filter(|l| l.starts_with("update ")).count();
    let verified = out
        .lines()
        .filter(|l| l.starts_with("verify ") && l.ends_with(": the kernel's routes"))
        .count();
    let verifies = out.lines().filter(|l| l.starts_with("verify ")).count();
    assert!(updates >= 5, "{updates} incremental updates:\n{out}");
    assert_eq!(verified, verifies, "a verification failed:\n{out}");
    assert_eq!(verifies, updates, "{out}");
}

/// An IPv6 address the kernel kept over its link's going down (`keep_addr_on_down`)
/// is tentative there (`addrconf_ifdown`): no source address, no local route. The
/// mirror adds it while the link is up and then takes the link down, so it is tentative
/// in fibkit too (mirror-diff seed 2263: the source of a lookup through another device
/// came from it). An address added after the link went down stays usable: with DAD off
/// it completes at once.
#[test]
fn mirror_keeps_addresses_kept_over_a_link_down_tentative() {
    let Some(ns) = live_netns(12) else {
        return;
    };
    for kv in [
        "net.ipv6.conf.all.accept_dad=0",
        "net.ipv6.conf.default.accept_dad=0",
    ] {
        assert!(ns.exec("sysctl", &["-qw", kv]).status.success());
    }
    for c in TWO_LINKS {
        ns.ip(c);
    }
    ns.ip("link add d2 type ifb");
    ns.ip("link set d2 up");
    assert!(ns
        .exec("sysctl", &["-qw", "net.ipv6.conf.d0.keep_addr_on_down=1"])
        .status
        .success());
    ns.ip("-6 addr add 2001:db8:0:1::99/128 dev d0");
    ns.ip("-6 addr add 2001:db8:0:2::1/64 dev d0");
    ns.ip("-6 addr add 2001:db8:2::1/127 dev d2");
    ns.ip("-6 route add local 2400:cb00::/32 dev d1 table local metric 1");
    ns.ip("-6 route add 2400:cc00::/32 dev d1");
    ns.ip("link set d0 down");
    // added on the down link: usable at once
    ns.ip("-6 addr add 2001:db8:0:3::1/64 dev d0");
    let diffs = compare(
        &ns,
        &[
            "-6 route get 2400:cb00::1",
            "-6 route get 2400:cc00::1",
            "-6 route get 2001:db8:0:1::99",
            "-6 route get 2001:db8:0:3::1",
            "-6 addr show dev d0",
            "-6 route show table all",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    // the kernel does show them tentative (the case is live, not vacuous)
    let shown = kernel(&ns, "-6 addr show dev d0").stdout;
    assert!(
        shown.contains("2001:db8:0:1::99/128 scope global tentative"),
        "{shown}"
    );
    let loud = ns.exec(
        env!("CARGO_BIN_EXE_fib"),
        &["mirror", "route", "get", "::1"],
    );
    let warnings = String::from_utf8_lossy(&loud.stderr);
    assert!(!warnings.contains("tentative"), "{warnings}");
}

/// A device whose MTU went below IPv6's minimum loses its IPv6 state, but the kernel
/// keeps the nexthop objects with an IPv6 gateway made on it before (and the routes
/// through them). fibkit refuses to make such an object now; the mirror takes it as
/// the kernel has it (restore mode, mirror-diff seed 2420).
#[test]
fn mirror_keeps_ipv6_nexthops_of_a_device_without_ipv6() {
    let Some(ns) = live_netns(13) else {
        return;
    };
    // a fixed multipath hash seed: the group's choice is reproducible
    let seed = ns.exec("sysctl", &["-qw", "net.ipv4.fib_multipath_hash_seed=1"]);
    assert!(seed.status.success());
    for c in TWO_LINKS {
        ns.ip(c);
    }
    ns.ip("-6 addr add 2001:db8:1::1/64 dev d1 nodad");
    ns.ip("nexthop add id 4 via 2001:db8:1::fe dev d1");
    ns.ip("nexthop add id 10 via fe80::2 dev d1");
    ns.ip("nexthop add id 8 group 4/10");
    ns.ip("route add 10.60.0.0/16 nhid 10");
    ns.ip("route add 10.61.0.0/16 nhid 8");
    ns.ip("link set d1 mtu 1200");
    let diffs = compare(
        &ns,
        &[
            "nexthop show",
            "route get 10.60.1.1",
            "route get 10.61.1.1",
            "route show",
            "-6 route show table all",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    assert!(kernel(&ns, "nexthop show")
        .stdout
        .contains("id 4 via 2001:db8:1::fe dev d1"));
}

/// IPv6 disabled on the device of one path of an IPv6 multipath route: the kernel keeps
/// the route with that path dead (`rt6_sync_down_dev`); fibkit refuses a path on such a
/// device now, and the mirror takes it as the kernel has it (restore mode, mirror-diff
/// seed 2444).
#[test]
fn mirror_keeps_multipath_paths_of_a_device_without_ipv6() {
    let Some(ns) = live_netns(14) else {
        return;
    };
    let sysctl = |kv: &str| assert!(ns.exec("sysctl", &["-qw", kv]).status.success());
    sysctl("net.ipv4.fib_multipath_hash_seed=1");
    for c in TWO_LINKS {
        ns.ip(c);
    }
    ns.ip("-6 addr add 2001:db8::1/64 dev d0 nodad");
    ns.ip("-6 addr add 2001:db8:1::1/64 dev d1 nodad");
    ns.ip("-6 route add 2001:db8:70::/48 nexthop via 2001:db8::fe dev d0 nexthop via 2001:db8:1::fe dev d1");
    sysctl("net.ipv6.conf.d1.disable_ipv6=1");
    let diffs = compare(
        &ns,
        &[
            "-6 route show table all",
            "-6 route get 2001:db8:70::1",
            "-6 route get 2001:db8:70::2 oif d0",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    let shown = kernel(&ns, "-6 route show 2001:db8:70::/48").stdout;
    assert!(shown.contains("dev d1 weight 1 dead linkdown"), "{shown}");
}

/// IPv6 routes of one prefix and metric in the kernel's order: a gateway route, then
/// a reject route behind it. The mirror adds the routes before and after the rules and
/// restores the kernel's order by deleting and appending; a reject route has no
/// gateway, so it is appended (an `add` beside the gateway route is refused, and the
/// order stayed wrong; found by `fib mirror --follow --verify`, random seed 87).
#[test]
fn mirror_restores_the_order_of_a_reject_route_behind_a_gateway_route() {
    let Some(ns) = live_netns(15) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    ns.ip("-6 addr add 2001:db8:fe::5/64 dev d0 nodad");
    // the gateway is reached through a route of table 200 that the dump lists after
    // the gateway route: the mirror's first try of the latter is refused, the reject
    // route goes in first, and the order must be restored
    ns.ip("-6 route add 2001:db8:ff::/64 dev d0 table 200");
    ns.ip("-6 route add 2001:db8:0:1::5/128 via 2001:db8:ff::1 dev d0 table 200");
    ns.ip("-6 route prepend throw 2001:db8:0:1::5/128 table 200 mtu 1400");
    let diffs = compare(&ns, &["-6 route show table all"]);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    let loud = ns.exec(
        env!("CARGO_BIN_EXE_fib"),
        &["mirror", "route", "get", "::1"],
    );
    let warnings = String::from_utf8_lossy(&loud.stderr);
    assert!(!warnings.contains("another order"), "{warnings}");
}

/// `text` with the values of `idle_time` and `unbalanced_time` replaced by `#` (the
/// kernel counts them from when it made each bucket or change; the mirror's clock
/// started when it read them).
fn times_blind(text: &str) -> String {
    let mut out = Vec::new();
    let mut blind = false;
    for word in text.split(' ') {
        out.push(if blind && !word.is_empty() { "#" } else { word });
        blind = word == "idle_time" || word == "unbalanced_time";
    }
    out.join(" ")
}

/// A resilient group whose buckets a history placed: lookups marked some buckets
/// busy, so a new member took only the idle ones. The mirror takes the kernel's
/// buckets as they are (`RTM_GETNEXTHOPBUCKET`); filling them afresh would move flows.
#[test]
fn mirror_restores_the_buckets_of_a_resilient_group() {
    let Some(ns) = live_netns(16) else {
        return;
    };
    let seed = ns.exec("sysctl", &["-qw", "net.ipv4.fib_multipath_hash_seed=1"]);
    assert!(seed.status.success());
    for c in TWO_LINKS {
        ns.ip(c);
    }
    ns.ip("nexthop add id 1 via 192.0.2.2 dev d0");
    ns.ip("nexthop add id 2 via 198.51.100.2 dev d1");
    ns.ip("nexthop add id 3 via 192.0.2.3 dev d0");
    ns.ip("nexthop add id 10 group 1/2 type resilient buckets 8");
    ns.ip("route add 10.70.0.0/16 nhid 10");
    let gets: Vec<String> = (1..=24).map(|i| format!("route get 10.70.0.{i}")).collect();
    for g in &gets[..16] {
        assert_eq!(kernel(&ns, g).status, Some(0));
    }
    // the busy buckets stay with 1 and 2: the new member, which wants 3 buckets, gets
    // only the idle ones, and the group is left unbalanced
    ns.ip("nexthop replace id 10 group 1/2/3 type resilient");
    let k = kernel(&ns, "nexthop bucket show id 10").stdout;
    assert!(k.matches("nhid 3 ").count() < 3, "{k}");
    let mut diffs = Vec::new();
    for c in ["nexthop bucket show", "nexthop show"] {
        let (k, f) = (kernel(&ns, c), fibkit(&ns, c));
        let (ks, fs) = (times_blind(&k.stdout), times_blind(&f.stdout));
        if ks != fs || k.status != f.status {
            diffs.push(format!("ip {c}\n  kernel: {ks}\n  fibkit: {fs}"));
        }
    }
    let gets: Vec<&str> = gets.iter().map(String::as_str).collect();
    diffs.extend(compare(&ns, &gets));
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Routes and nexthop objects with encapsulations (`encap ip`, `ip6`, `seg6`, per path
/// too): the mirror decodes `RTA_ENCAP` / `NHA_ENCAP` and adds them with the same
/// encapsulation, so listings and answers print it as `ip` does.
#[test]
fn mirror_keeps_encapsulations() {
    let Some(ns) = live_netns(17) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    ns.ip("-6 addr add 2001:db8:1::1/64 dev d1 nodad");
    // a kernel built without SRv6 lightweight tunnels (CONFIG_IPV6_SEG6_LWTUNNEL)
    // refuses seg6 and seg6local routes: those are then left out
    let srv6 = Command::new("ip")
        .args([
            "-n",
            &ns.0,
            "-6",
            "route",
            "add",
            "2001:db8:9f::/64",
            "dev",
            "d1",
        ])
        .args(["encap", "seg6", "mode", "encap", "segs", "2001:db8:1::a"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if srv6 {
        ns.ip("-6 route del 2001:db8:9f::/64");
    } else {
        eprintln!("mirror_keeps_encapsulations: the kernel has no SRv6 lightweight tunnels; seg6 and seg6local routes left out");
    }
    let is_srv6 = |c: &&str| c.contains("seg6");
    for c in [
        "route add 10.80.0.0/16 via 192.0.2.2 encap ip id 7 src 192.0.2.1 dst 192.0.2.9 ttl 5 tos 0x10 key csum",
        "route add 10.81.0.0/16 dev d0 encap ip6 id 9 dst 2001:db8:1::9 hoplimit 7 tc 3 seq mtu 1400",
        "route add 10.82.0.0/16 nexthop via 192.0.2.2 encap ip dst 192.0.2.7 nexthop via 198.51.100.2",
        "-6 route add 2001:db8:80::/64 dev d1 encap seg6 mode encap segs 2001:db8:1::a,2001:db8:1::b hmac 3",
        "-6 route add 2001:db8:81::/64 via 2001:db8:1::2 encap seg6 mode inline segs 2001:db8:1::a hoplimit 9",
        "-6 route add 2001:db8:82::/64 dev d1 encap ip6 dst 2001:db8:1::c hoplimit 4",
        "nexthop add id 5 encap ip id 3 dst 192.0.2.5 via 192.0.2.2 dev d0",
        "route add 10.83.0.0/16 nhid 5",
        // SRv6 behaviours
        "-6 route add 2001:db8:90::1/128 encap seg6local action End.X nh6 2001:db8:1::2 oif d1 count dev d1",
        "-6 route add 2001:db8:90::2/128 encap seg6local action End.DT6 table 100 dev d1",
        "-6 route add 2001:db8:90::3/128 encap seg6local action End.B6 srh segs 2001:db8:1::a,2001:db8:1::b hmac 9 dev d1",
        "-6 route add 2001:db8:90::4/128 encap seg6local action End flavors next-csid lblen 48 nflen 8 dev d1",
        "-6 route add 2001:db8:90::5/128 encap seg6local action End.DX4 nh4 192.0.2.2 dev d1",
        "-6 route add 2001:db8:90::6/128 encap seg6local action End.B6.Encaps srh segs 2001:db8:1::c dev d1",
    ]
    .iter()
    .filter(|c| srv6 || !is_srv6(c))
    {
        ns.ip(c);
    }
    let mut gets = vec![
        "route show",
        "-6 route show",
        "-d route show table all",
        "nexthop show",
        "-j route show",
        "route get 10.80.1.1",
        "route get 10.81.1.1",
        "route get 10.83.1.1",
        "-6 route get 2001:db8:82::1",
        "-j -6 route show",
    ];
    if srv6 {
        gets.extend([
            "-6 route get 2001:db8:80::1",
            "-6 route get 2001:db8:81::1",
            "-6 route get 2001:db8:90::1",
        ]);
    }
    let diffs = compare(&ns, &gets);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    assert!(kernel(&ns, "route show").stdout.contains("encap ip id 7"));
}

/// Proxy (`pneigh`) entries are mirrored with their flags and protocol, and listed in
/// the kernel's order (its hash buckets, newest first in each): a dump gives them
/// newest first, and the mirror adds them oldest first.
#[test]
fn mirror_copies_proxy_entries() {
    let Some(ns) = live_netns(18) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "neigh add proxy 192.0.2.5 dev d0",
        "neigh add proxy 192.0.2.5 dev d1 router",
        // 5.2.0.192 and 192.0.2.5 share the bucket of the key's last four bytes
        "neigh add proxy 5.2.0.192 dev d0 protocol 99",
        "neigh add proxy 10.9.8.7 dev d1 extern_learn",
        "-6 neigh add proxy 2001:db8::5 dev d0 router protocol static",
        "-6 neigh add proxy 2001:db8:1::5 dev d0",
        "-6 neigh add proxy 2001:db8::7 dev d1 extern_learn",
        "neigh add 192.0.2.9 lladdr 02:00:00:00:00:09 dev d0 nud permanent",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "neigh show proxy",
            "-4 neigh show proxy",
            "-6 neigh show proxy",
            "neigh show proxy dev d0",
            "-j neigh show proxy",
            "neigh get proxy 192.0.2.5 dev d1",
            "-6 neigh get proxy 2001:db8::5 dev d0",
            "neigh show",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    // the kernel lists more than one entry in a bucket: the order was tested
    let listed = kernel(&ns, "-4 neigh show proxy").stdout;
    assert_eq!(listed.lines().count(), 4, "{listed}");
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "--save", "-"]);
    assert!(saved.status.success());
    let script = String::from_utf8_lossy(&saved.stdout);
    for want in [
        "neigh add proxy 192.0.2.5 dev d1 router",
        "neigh add proxy 5.2.0.192 dev d0 protocol 99",
        "-6 neigh add proxy 2001:db8::5 dev d0 router protocol 4",
    ] {
        assert!(script.contains(want), "missing `{want}` in:\n{script}");
    }
    // nothing lost on the way: no warning
    let stderr = String::from_utf8_lossy(&saved.stderr);
    assert!(!stderr.contains("proxy"), "{stderr}");
}

/// Addresses with finite lifetimes are mirrored with the seconds they have left, so the
/// listings (`dynamic`, `deprecated`, the lifetimes, the IPv6 prefix routes' expiry)
/// and the source choices are the kernel's.
#[test]
fn mirror_copies_address_lifetimes() {
    let Some(ns) = live_netns(19) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "addr add 10.0.0.1/24 dev d0 valid_lft 100 preferred_lft 50",
        "addr add 10.0.1.1/24 dev d0 preferred_lft 0",
        "-6 addr add 2001:db8::1/64 dev d0 valid_lft 100 preferred_lft 0 nodad",
        "-6 addr add 2001:db8::2/64 dev d0 valid_lft 200 preferred_lft 150 nodad",
        "-6 addr add 2001:db8:1::1/64 dev d0 preferred_lft 30 nodad",
        // expired at once: listed until the garbage collector runs, passed over by
        // lookups (the mirror takes it as expiring at once too)
        "-6 route add 2001:db8:7::/64 dev d1 expires 0",
    ] {
        ns.ip(c);
    }
    let cmds = [
        "addr show dev d0",
        "-j addr show dev d0",
        "addr show dev d0 dynamic",
        "-6 route show dev d0",
        "-6 route get 2001:db8::9",
        "-6 route get 2001:db8:7::1",
    ];
    // a second may pass between the kernel's answer and the mirror's: a difference is
    // looked at again once
    let mut diffs = compare(&ns, &cmds);
    if !diffs.is_empty() {
        diffs = compare(&ns, &cmds);
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "--save", "-"]);
    let script = String::from_utf8_lossy(&saved.stdout);
    assert!(
        script
            .contains("addr add 10.0.1.1/24 scope global valid_lft forever preferred_lft 0 dev d0"),
        "{script}"
    );
    let stderr = String::from_utf8_lossy(&saved.stderr);
    assert!(!stderr.contains("lifetime"), "{stderr}");
}

/// The mirror copies IPv6 tokens (`IFLA_INET6_TOKEN` in each link's `IFLA_AF_SPEC`):
/// `ip token` lists the same tokens on both sides.
#[test]
fn mirror_copies_ipv6_tokens() {
    let Some(ns) = live_netns(20) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        // ifb devices are NOARP, where the kernel refuses a token
        "link set d0 arp on",
        "link set d1 arp on",
        "token set ::1:2:3:4 dev d0",
    ] {
        ns.ip(c);
    }
    let diffs = compare(&ns, &["token list", "token get dev d0", "token get dev d1"]);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "--save", "-"]);
    let script = String::from_utf8_lossy(&saved.stdout);
    assert!(script.contains("token set ::1:2:3:4 dev d0"), "{script}");
    // following: `ip token set` is an RTM_SETLINK, which the kernel announces (RTNLGRP_LINK)
    use std::io::BufRead;
    let mut child = follow(&ns, &["token", "get", "dev", "d1"]);
    let out = child.0.stdout.take().expect("stdout");
    let mut lines = std::io::BufReader::new(out).lines();
    let mut next = || lines.next().expect("a line").expect("text");
    assert!(next().starts_with("resync 0: "));
    assert_eq!(next(), "token :: dev d1");
    ns.ip("token set ::5 dev d1");
    assert!(next().starts_with("resync 1: "));
    assert_eq!(next(), "token ::5 dev d1");
}

#[test]
fn mirror_copies_multicast_rules() {
    // the rules exist with the kernel's multicast routing (CONFIG_IP_MROUTE,
    // CONFIG_IPV6_MROUTE), which some builds leave out
    let mr = |f: &str| std::path::Path::new("/proc/net").join(f).exists();
    if !(mr("ip_mr_vif") && mr("ip6_mr_vif")) {
        println!("skipped: the running kernel was built without multicast routing");
        return;
    }
    let Some(ns) = live_netns(21) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "mrule add fwmark 3 lookup 7",
        "mrule add iif d0 tos 0x10 lookup 8 pref 100",
        "mrule add prohibit pref 5",
        "-6 mrule del pref 32767",
        "-6 mrule add ipproto udp dport 53 lookup 9",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "mrule show",
            "-6 mrule show",
            "-d -j mrule show",
            "-d -6 mrule show",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    // the defaults again: nothing to copy, and the mirror's own defaults answer (a
    // flush spares the rules of priority 0)
    ns.ip("mrule del fwmark 3 lookup 7");
    ns.ip("mrule flush");
    ns.ip("mrule add lookup default pref 32767 protocol kernel");
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "--save", "-"]);
    let script = String::from_utf8_lossy(&saved.stdout);
    assert!(!script.contains("\nmrule"), "{script}");
    assert!(script.contains("-6 mrule flush"), "{script}");
    let diffs = compare(&ns, &["mrule show", "-6 mrule show"]);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn mirror_shows_netconf() {
    let Some(ns) = live_netns(22) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "link add v0 type veth peer name v1",
        "link add d2 type ifb",
        "link add d3 type ifb",
        "link set d2 mtu 1000",
        "link set d3 mtu 60",
    ] {
        ns.ip(c);
    }
    for s in [
        "net.ipv4.conf.d0.forwarding=1",
        "net.ipv6.conf.d1.forwarding=1",
        "net.ipv4.conf.all.rp_filter=2",
        "net.ipv4.conf.d1.rp_filter=1",
        "net.ipv4.conf.v0.rp_filter=7",
        "net.ipv4.conf.v1.proxy_arp=1",
        "net.ipv6.conf.v0.proxy_ndp=1",
        "net.ipv4.conf.default.ignore_routes_with_linkdown=1",
        "net.ipv6.conf.default.proxy_ndp=1",
        "net.ipv6.conf.d0.ignore_routes_with_linkdown=1",
    ] {
        let o = ns.exec("sysctl", &["-q", "-w", s]);
        assert!(o.status.success(), "sysctl {s}");
    }
    let diffs = compare(
        &ns,
        &[
            "netconf",
            "-4 netconf",
            "-6 netconf list",
            "-j netconf",
            "-j -p -6 netconf",
            "netconf show dev v0",
            "-j netconf show dev d2",
            "-4 netconf show dev d1",
            "-j -6 netconf show dev d1",
            "-6 netconf show dev d2",
            "-4 netconf show dev d3",
            "netconf show dev if3",
            "-0 netconf",
            "netconf show dev nosuch",
            "netconf show dev",
            "netconf help",
            "netconf bogus",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn mirror_copies_alternative_names() {
    let Some(ns) = live_netns(23) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "link property add dev d0 altname uplink altname wan0",
        "link property add dev lo altname loop",
        "link set d1 alias lan",
        "link property add dev d1 altname lan0",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "link show",
            "-j link show",
            "-d link show dev wan0",
            "addr show dev uplink",
            "-j addr show dev lan0",
            "route get 192.0.2.9 oif uplink",
            "link property add dev d1 altname wan0",
            "link property del dev d1 altname uplink",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// A device without addresses whose MTU drops below 68 loses its IPv4 state but keeps
/// the routes and nexthop objects through it; fibkit refuses such a path now, and the
/// mirror takes them as the kernel has them (restore mode, mirror-diff seed 3518).
#[test]
fn mirror_keeps_routes_of_a_device_without_ipv4() {
    let Some(ns) = live_netns(24) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "link add d2 type ifb",
        "link set d2 up",
        "route add 10.70.0.0/16 dev d2",
        "nexthop add id 3 dev d2",
        "route add 10.71.0.0/16 nhid 3",
        "link set d2 mtu 60",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "route show",
            "nexthop show",
            "route get 10.70.1.1",
            "route get fibmatch 10.70.1.1",
            "route get 10.71.1.1",
            "route get fibmatch 10.71.1.1",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    assert!(kernel(&ns, "route show")
        .stdout
        .contains("10.70.0.0/16 dev d2"));
}

/// A link whose address generation mode is `none` has no link-local address; the
/// mirror sets the mode before bringing the link up, so its copy makes none either.
#[test]
fn mirror_copies_address_generation_mode() {
    let Some(ns) = live_netns(25) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "link add d2 type ifb",
        "link set d2 addrgenmode none",
        "link set d2 up",
        "-6 addr add 2001:db8:2::1/64 dev d2 nodad",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "-6 addr show",
            "-d link show d2",
            "-6 route show table all",
            "-6 route get fe80::1 oif d2",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// A process of the namespace holding group memberships on `v0` (IPv4 239.7.7.7 and
/// IPv6 ff05::77) while it runs: python3's sockets, since no `ip` command joins a group.
/// `None` (the caller skips) without python3.
fn join_groups(ns: &Netns) -> Option<std::process::Child> {
    let script = "import socket,struct,sys,time\n\
        i=socket.if_nametoindex('v0')\n\
        s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n\
        s.setsockopt(socket.IPPROTO_IP,socket.IP_ADD_MEMBERSHIP,struct.pack('4s4si',socket.inet_aton('239.7.7.7'),socket.inet_aton('0.0.0.0'),i))\n\
        t=socket.socket(socket.AF_INET6,socket.SOCK_DGRAM)\n\
        t.setsockopt(socket.IPPROTO_IPV6,socket.IPV6_JOIN_GROUP,struct.pack('16si',socket.inet_pton(socket.AF_INET6,'ff05::77'),i))\n\
        print('joined',flush=True)\n\
        time.sleep(60)\n";
    let mut child = Command::new("ip")
        .args(["netns", "exec", &ns.0, "python3", "-c", script])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut line = String::new();
    let out = child.stdout.take()?;
    std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line).ok()?;
    if line.trim() != "joined" {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    Some(child)
}

#[test]
fn mirror_copies_multicast_memberships() {
    let Some(ns) = live_netns(26) else {
        return;
    };
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "link add v0 type veth peer name v1",
        "link set v0 up",
        "link set v1 up",
        "addr add 10.7.0.1/24 dev v0",
        "addr add 239.1.1.1/32 dev d0 autojoin",
        "-6 addr add ff05::5/128 dev v0 autojoin",
        "-6 neigh add proxy 2001:db8::77 dev d1",
        "maddr add 33:33:00:00:00:99 dev v0",
        "maddr add 01:00:5e:00:00:01 dev v0",
    ] {
        ns.ip(c);
    }
    let Some(mut child) = join_groups(&ns) else {
        println!("skipped: python3 could not join the groups");
        return;
    };
    let diffs = compare(
        &ns,
        &[
            "maddr show",
            "-j maddr show dev v0",
            "route get 239.7.7.7 from 10.7.0.2 iif v0",
            "route get 239.7.7.8 from 10.7.0.2 iif v0",
            "route get 239.1.1.1 from 10.7.0.2 iif d0",
            "route get 224.0.0.1 from 10.7.0.2 iif v0",
        ],
    );
    // the saved script keeps the process's joins as comments its --load applies
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "-q", "--save", "-"]);
    let script = String::from_utf8_lossy(&saved.stdout).into_owned();
    let _ = child.kill();
    let _ = child.wait();
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    assert!(
        script.contains("# mcjoin v0 239.7.7.7") && script.contains("# mcjoin v0 ff05::77"),
        "{script}"
    );
    assert!(
        script.contains("maddr add 33:33:00:00:00:99 dev v0"),
        "{script}"
    );
}

/// A follower resyncs when a process joins or leaves a group (the kernel's membership
/// events, `RTNLGRP_IPV4_MCADDR`/`IPV6_MCADDR`): its `ip maddr show dev v0` is the
/// kernel's after the join and after the leave, without any other change to wake it.
#[test]
fn follow_resyncs_on_group_joins() {
    let Some(ns) = live_netns(27) else {
        return;
    };
    // no DAD: the link-local addresses are final at once, so no address event comes
    // while the test waits for the membership ones
    ns.no_dad();
    for c in [
        "link set lo up",
        "link add v0 type veth peer name v1",
        "link set v0 up",
        "link set v1 up",
        "addr add 10.7.0.1/24 dev v0",
    ] {
        ns.ip(c);
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let kernel_maddr = || -> Vec<String> {
        let o = ns.exec("ip", &["maddr", "show", "dev", "v0"]);
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut child = follow(&ns, &["maddr", "show", "dev", "v0"]);
    let out = child.0.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for l in std::io::BufReader::new(out).lines() {
            let Ok(l) = l else { break };
            if !l.trim().is_empty() && tx.send(l).is_err() {
                break;
            }
        }
    });
    let wait = std::time::Duration::from_secs(5);
    let next = |what: &str| -> String {
        rx.recv_timeout(wait)
            .unwrap_or_else(|_| panic!("no line within {wait:?}: {what}"))
    };
    let first = next("the first resync");
    assert!(first.starts_with("resync 0: "), "{first}");
    let before = kernel_maddr();
    let lines: Vec<String> = before.iter().map(|_| next("the first maddr")).collect();
    assert_eq!(lines, before);
    let Some(mut joined) = join_groups(&ns) else {
        println!("skipped: python3 could not join the groups");
        return;
    };
    let second = next("a resync after the joins");
    assert!(second.starts_with("resync 1: "), "{second}");
    let during = kernel_maddr();
    assert!(during.iter().any(|l| l.contains("239.7.7.7")), "{during:?}");
    let lines: Vec<String> = during
        .iter()
        .map(|_| next("the maddr after the joins"))
        .collect();
    let _ = joined.kill();
    let _ = joined.wait();
    assert_eq!(lines, during);
    let third = next("a resync after the process left");
    assert!(third.starts_with("resync 2: "), "{third}");
    let after = kernel_maddr();
    let lines: Vec<String> = after
        .iter()
        .map(|_| next("the maddr after the leave"))
        .collect();
    assert_eq!(lines, after);
    assert_eq!(after, before);
}

/// Bridges are mirrored as bridges, with their ports: a bridge without ports (as
/// `docker0` with no container) is up without carrier, so its routes are `linkdown`
/// and it has no IPv6 link-local address; one with a live port has carrier. The
/// bridge's MTU follows its ports unless set. (Each bridge is made with an address, as
/// docker and the oracle make theirs: one the kernel drew keeps its first carrier
/// until a port comes, which the mirror warns about.)
#[test]
fn mirror_copies_bridges_and_their_ports() {
    let Some(ns) = live_netns(28) else {
        return;
    };
    // no DAD: the mirror copies a tentative address as a usable one
    ns.no_dad();
    for c in [
        "link set lo up",
        "link add b0 address 02:00:00:00:0b:00 type bridge",
        "link set b0 up",
        "addr add 172.17.0.1/16 dev b0",
        "link add b1 address 02:00:00:00:0b:01 type bridge",
        "link add v0 mtu 1400 type veth peer name v1",
        "link set v0 master b1",
        "link add d0 type ifb",
        "link set d0 master b1",
        "link add b2 address 02:00:00:00:0b:02 mtu 9000 type bridge",
        "link set b2 mtu 1300",
        "link add v2 type veth peer name v3",
        "link set v2 master b2",
        "link set v2 up",
        "link set v3 up",
        "link set v1 up",
        "link set v0 up",
        "link set b1 up",
        "link set b2 up",
        "addr add 10.1.0.1/24 dev b1",
        "addr add 10.2.0.1/24 dev b2",
        "-6 addr add 2001:db8:1::1/64 dev b1",
        "-6 addr add 2001:db8:17::1/64 dev b0",
        "route add 10.9.0.0/16 via 172.17.0.2",
        "route add 10.8.0.0/16 via 10.1.0.2",
    ] {
        ns.ip(c);
    }
    // the link watch may hold a bridge's carrier change for up to a second
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let diffs = compare(
        &ns,
        &[
            "link show",
            "-br link",
            "link show master b1",
            "link show type bridge_slave",
            "-j link show dev v0",
            "addr show dev b0",
            "-6 addr show dev b1",
            "route show",
            "-6 route show",
            "route get 10.9.1.1",
            "route get 10.8.1.1",
            "route get 10.1.0.9 from 10.2.0.9 iif b2",
            "maddr show dev b1",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Persistent tun and tap devices without a process (so without carrier) are mirrored
/// as such: up without carrier, their routes `linkdown`, as on the host.
#[test]
fn mirror_copies_tun_and_tap_devices() {
    let Some(ns) = live_netns(29) else {
        return;
    };
    // no DAD: the mirror copies a tentative address as a usable one
    ns.no_dad();
    for c in [
        "link set lo up",
        "tuntap add dev tun0 mode tun",
        "tuntap add dev tap0 mode tap vnet_hdr",
        "tuntap add dev tap1 mode tap pi",
        "tuntap add dev tun1 mode tun user 0 group 54322",
        "link set tap0 mtu 9000",
        "link set tun0 up",
        "link set tap0 up",
        "addr add 10.5.0.1/24 dev tun0",
        "addr add 10.6.0.1/24 dev tap0",
        "-6 addr add 2001:db8:6::1/64 dev tap0",
        "route add 10.7.0.0/16 via 10.6.0.2",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "link show",
            "-d link show dev tap0",
            "-j -d link show dev tun0",
            "-d link show dev tun1",
            "tuntap show",
            "addr show",
            "route show",
            "-6 route show",
            "route get 10.7.1.1",
            "route get 10.5.0.9",
            "-6 route get 2001:db8:6::9",
            "maddr show",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// IPv6 rules that deletes alone left (the main rule deleted, no rule ever added) do
/// not set `fib6_has_custom_rules`: lookups skip the rules and still find main's routes.
/// A rule added once sets it for good: the same rules then leave main's routes
/// unreachable. The mirror probes which, and answers as the kernel does in both.
#[test]
fn mirror_probes_the_ipv6_custom_rules_flag() {
    for (n, added) in [(30, false), (31, true)] {
        let Some(ns) = live_netns(n) else {
            return;
        };
        for c in [
            "link set lo up",
            "link add d0 type ifb",
            "link set d0 up",
            "-6 addr add 2001:db8::1/64 dev d0 nodad",
            "-6 route add 2001:db8:5::/64 via 2001:db8::2",
        ] {
            ns.ip(c);
        }
        if added {
            ns.ip("-6 rule add pref 100 lookup 100");
            ns.ip("-6 rule del pref 100");
        }
        ns.ip("-6 rule del pref 32766");
        let diffs = compare(
            &ns,
            &[
                "-6 rule show",
                "-6 route get 2001:db8::5",
                "-6 route get 2001:db8:5::9",
                "-6 route get 2001:db8:5::9 from 2001:db8::7 iif d0",
            ],
        );
        assert!(diffs.is_empty(), "added {added}: {}", diffs.join("\n"));
    }
}

/// macvlans (and a macvtap) are mirrored on their lower devices with their mode,
/// flags and queue length: their carrier follows the lower device (a veth whose peer is down), and a
/// passthru macvlan shares its lower device's address.
#[test]
fn mirror_copies_macvlans() {
    let Some(ns) = live_netns(32) else {
        return;
    };
    ns.no_dad();
    for c in [
        "link set lo up",
        "link add d0 address 02:00:00:00:00:01 type ifb",
        "link add v0 address 02:00:00:00:00:02 type veth peer name v1 address 02:00:00:00:00:03",
        "link add m0 address 02:00:00:00:00:04 mtu 1400 link d0 type macvlan mode bridge bcqueuelen 500",
        "link add m1 address 02:00:00:00:00:05 link d0 type macvlan mode private",
        "link add m2 link v0 type macvlan mode passthru nopromisc",
        "link add t0 address 02:00:00:00:00:06 link d0 type macvtap mode bridge",
        "link add s0 address 02:00:00:00:00:07 link d0 type macvlan mode source macaddr set 02:11:22:33:44:01 02:11:22:33:44:02 12:11:22:33:44:01",
        "link add s1 address 02:00:00:00:00:08 link d0 type macvlan mode source macaddr add 02:11:22:33:44:01",
        "link set s0 type macvlan macaddr del 02:11:22:33:44:02",
        "link set s1 type macvlan macaddr add 02:11:22:33:44:09",
        "link set t0 up",
        "link set d0 up",
        "link set m0 up",
        "link set v0 up",
        "link set m2 up",
        "addr add 10.5.0.1/24 dev m0",
        "addr add 10.6.0.1/24 dev m2",
        "-6 addr add 2001:db8:6::1/64 dev m0",
        "route add 10.7.0.0/16 via 10.5.0.2",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "link show",
            "-d link show dev m0",
            "-d link show dev m2",
            "-j -d link show dev m1",
            "link show type macvlan",
            "-d link show dev t0",
            "-d link show dev s0",
            "-j -d link show dev s1",
            "addr show",
            "route show",
            "-6 route show",
            "route get 10.7.1.1",
            "route get 10.6.0.9",
            "-6 route get 2001:db8:6::9",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// VXLAN devices are mirrored with their VNI, addresses, lower device, ports and
/// settings: their MTU, the group joined on the lower device and the routes through
/// them come out as on the host.
#[test]
fn mirror_copies_vxlans() {
    let Some(ns) = live_netns(33) else {
        return;
    };
    ns.no_dad();
    for c in [
        "link set lo up",
        "link add d0 address 02:00:00:00:00:01 type ifb",
        "link set d0 up",
        "addr add 10.0.0.1/24 dev d0",
        "link add vx0 address 02:00:00:00:00:02 type vxlan id 42 dstport 4789 dev d0 group 239.1.1.1 ttl 5 nolearning",
        "link add vx1 address 02:00:00:00:00:03 type vxlan id 43 dstport 4789 remote 10.0.0.9 local 10.0.0.1 srcport 100 200 tos 0x10 ageing 60",
        "link add vx2 address 02:00:00:00:00:04 mtu 9000 type vxlan id 44 dstport 4790 remote 2001:db8::9 noudpcsum udp6zerocsumtx",
        "link add vx3 address 02:00:00:00:00:05 type vxlan external dstport 4789",
        "link add vx4 address 02:00:00:00:00:06 type vxlan id 45 dstport 4789 proxy l2miss l3miss rsc maxaddress 50 df set remcsumrx gbp",
        "link add vx5 address 02:00:00:00:00:07 type vxlan id 46 dstport 4789 remote 2001:db8::7 flowlabel 0x42 df inherit",
        "link set vx0 up",
        "link set vx1 up",
        "addr add 10.5.0.1/24 dev vx0",
        "addr add 10.6.0.1/24 dev vx1",
        "route add 10.7.0.0/16 via 10.6.0.2",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "link show",
            "-d link show dev vx0",
            "-d link show dev vx1",
            "-j -d link show dev vx2",
            "-d link show dev vx3",
            "-d link show dev vx4",
            "-j -d link show dev vx5",
            "link show type vxlan",
            "maddr show dev d0",
            "route show",
            "route get 10.7.1.1",
            "route get 10.5.0.9",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Each query answered by `fib mirror --load` of the saved mirror `script` beside the
/// kernel's answer: the differences.
fn replay_saved(ns: &Netns, script: &[u8], queries: &[&str]) -> Vec<String> {
    let file = std::env::temp_dir().join(format!("{}.mirror", ns.0));
    std::fs::write(&file, script).expect("write the script");
    let path = file.to_string_lossy().into_owned();
    let mut replay = Vec::new();
    for q in queries {
        let mut a = vec!["mirror", "-q", "--load", path.as_str()];
        a.extend(q.split_whitespace());
        let f = answer(ns.exec(env!("CARGO_BIN_EXE_fib"), &a));
        let k = kernel(ns, q);
        if k != f {
            replay.push(format!("ip {q}\n  kernel: {k:?}\n  --load: {f:?}"));
        }
    }
    let _ = std::fs::remove_file(&file);
    replay
}

/// IPv6 keeps each path of a multipath route as its own entry, with its own protocol,
/// preferred source, metrics and preference, but the dump gives the route once, with
/// its first path's: the mirror probes each path (`route get fibmatch ... oif DEV`) and
/// makes the route path by path, so that answers through a later path carry its own.
#[test]
fn mirror_probes_ipv6_multipath_path_attributes() {
    let Some(ns) = live_netns(34) else {
        return;
    };
    for c in [
        "link set lo up",
        "link add d0 address 02:00:00:00:00:01 type ifb",
        "link add d1 address 02:00:00:00:00:02 type ifb",
        "link add d2 address 02:00:00:00:00:03 type ifb",
        "link set d0 up",
        "link set d1 up",
        "link set d2 up",
        "-6 addr add 2001:db8:1::1/64 dev d0 nodad",
        "-6 addr add 2001:db8:2::1/64 dev d1 nodad",
        "-6 addr add 2001:db8:3::1/64 dev d2 nodad",
        "-6 route add 2001:db8:9::/64 via 2001:db8:1::2 dev d0 metric 10",
        "-6 route append 2001:db8:9::/64 via 2001:db8:2::2 dev d1 metric 10 proto static hoplimit 10 pref high",
        "-6 route append 2001:db8:9::/64 via 2001:db8:3::2 dev d2 metric 10 src 2001:db8:3::1 mtu 1400",
        "-6 route add 2001:db8:8::/64 via 2001:db8:1::2 dev d0 proto static",
        "-6 route append 2001:db8:8::/64 via 2001:db8:2::2 dev d1 proto static",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "-6 route show",
            "-6 route get 2001:db8:9::5 oif d0",
            "-6 route get 2001:db8:9::5 oif d1",
            "-6 route get 2001:db8:9::5 oif d2",
            "-6 route get fibmatch 2001:db8:9::5 oif d1",
            "-6 route get fibmatch 2001:db8:9::5 oif d2",
            "-6 route get 2001:db8:8::5 oif d1",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    // a saved mirror keeps the paths' attributes, which `--load` applies
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "-q", "--save", "-"]);
    assert!(saved.status.success());
    let text = String::from_utf8_lossy(&saved.stdout).into_owned();
    assert!(text.contains("# pathattrs "), "{text}");
    let replay = replay_saved(
        &ns,
        &saved.stdout,
        &[
            "-6 route get 2001:db8:9::5 oif d1",
            "-6 route get 2001:db8:9::5 oif d2",
        ],
    );
    assert!(replay.is_empty(), "{}", replay.join("\n"));
}

/// A nexthop object made while its gateway was a local address keeps a host scope
/// (answered without `via`) after the address is gone; the dump shows it only in the
/// object's scope, and the mirror makes it again with the gateway local for a moment.
/// Mirror-diff seed 5401 found it.
#[test]
fn mirror_keeps_host_scoped_nexthops() {
    let Some(ns) = live_netns(35) else {
        return;
    };
    ns.no_dad();
    // the group's choice hashes the flow: a known seed, not the boot's random one
    let seed = ns.exec("sysctl", &["-qw", "net.ipv4.fib_multipath_hash_seed=1"]);
    assert!(seed.status.success());
    for c in [
        "link set lo up",
        "link add d0 address 02:00:00:00:00:01 type ifb",
        "link set d0 up",
        "addr add 10.0.0.1/24 dev d0",
        "nexthop add id 4 via 10.0.0.1 dev d0",
        "nexthop add id 5 via 10.0.0.9 dev d0",
        "nexthop add id 6 group 4/5",
        "addr add 10.0.0.200/25 dev d0",
        "addr add 10.0.0.77/32 dev d0",
        "nexthop add id 7 via 10.0.0.77 dev d0",
        "addr del 10.0.0.1/24 dev d0",
        "route add default nhid 4",
        "route add 10.9.0.0/16 nhid 6",
        "route add 10.8.0.0/16 nhid 7",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "nexthop show",
            "addr show dev d0",
            "route show",
            "route show table local",
            "route get 8.8.8.8",
            "route get 10.9.0.1",
            "route get 10.8.0.1",
            "route get 10.0.0.77",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// A bridge's own settings and its ports' (options, a state set by hand, a backup
/// port) are mirrored: `ip -d link` of the mirror reads as the kernel's, but for the
/// timers the kernel runs (fibkit shows 0.00), and the bridge's carrier follows the
/// port left learning.
#[test]
fn mirror_keeps_bridge_and_port_settings() {
    let Some(ns) = live_netns(36) else {
        return;
    };
    ns.no_dad();
    for c in [
        "link set lo up",
        "link add br1 address 02:00:00:00:0b:01 type bridge forward_delay 0 priority 4096 \
         mcast_snooping 0 group_fwd_mask 8 nf_call_iptables 1 mcast_query_interval 500 \
         no_linklocal_learn 1 group_address 01:80:c2:00:00:0e",
        "link add d0 address 02:00:00:00:0b:02 type ifb",
        "link add d1 address 02:00:00:00:0b:03 type ifb",
        "link add v0 address 02:00:00:00:0b:04 type veth peer name v1 address 02:00:00:00:0b:05",
        "link set d0 master br1",
        "link set d1 master br1",
        "link set v0 master br1",
        "link set br1 up",
        "link set d1 up",
        "link set d1 type bridge_slave state 2 cost 7 hairpin on priority 9 mcast_router 2",
        "link set d0 type bridge_slave backup_port d1 learning off",
        "addr add 10.7.0.1/24 dev br1",
    ] {
        ns.ip(c);
    }
    let timers = |s: &str| {
        let mut out = String::new();
        let mut words = s.split(' ').peekable();
        while let Some(w) = words.next() {
            out.push_str(w);
            out.push(' ');
            if w.ends_with("_timer") {
                // the value, after the padding of `%4i.%.2i`
                while words.peek() == Some(&"") {
                    words.next();
                }
                words.next();
                out.push_str("T ");
            }
        }
        out
    };
    for q in ["-d link show", "link show br1", "route get 10.7.0.5"] {
        let k = kernel(&ns, q);
        let f = fibkit(&ns, q);
        assert_eq!(k.status, f.status, "{q}");
        assert_eq!(timers(&k.stdout), timers(&f.stdout), "{q}");
    }
    // the bridge line is there at all, and the port's settings with it
    let f = fibkit(&ns, "-d link show d1");
    assert!(
        f.stdout
            .contains("state learning priority 9 cost 7 hairpin on"),
        "{}",
        f.stdout
    );
}

/// An IPv4 route keeps the scope its gateway's lookup gave when it was added: host
/// when the gateway was local then (answered without `via` for as long as it lives),
/// link when it was not (answered with `via` even once the gateway is local). No dump
/// shows it; the mirror probes each gateway route with route gets and makes the route
/// again the same way (with the gateway local for the moment, through an address or a
/// local route, or in restore mode). Mirror-diff seeds 5632, 5636 and 5811 found it.
#[test]
fn mirror_keeps_gateway_scopes_of_routes() {
    let Some(ns) = live_netns(37) else {
        return;
    };
    ns.no_dad();
    for c in [
        "link set lo up",
        "link add d0 address 02:00:00:00:00:01 type ifb",
        "link add d1 address 02:00:00:00:00:02 type ifb",
        "link set d0 up",
        "link set d1 up",
        "addr add 10.0.0.1/24 dev d0",
        // host scope through an address, which then goes (d0 keeps another)
        "addr add 10.0.0.77/32 dev d0",
        "route add 10.8.0.0/16 via 10.0.0.77 dev d0",
        "addr del 10.0.0.77/32 dev d0",
        // host scope through a local route on a device without addresses
        "route add local 10.9.9.0/24 dev d1 table local",
        "route add 10.7.0.0/16 via 10.9.9.9 dev d1",
        // link scope, the gateway local since
        "route add 10.6.0.0/16 via 10.0.0.9 dev d0",
        "addr add 10.0.0.9/32 dev d0",
    ] {
        ns.ip(c);
    }
    let diffs = compare(
        &ns,
        &[
            "route get 10.8.0.1",
            "route get 10.7.0.1",
            "route get 10.6.0.1",
            "route show",
            "route show table local",
        ],
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// A VXLAN device keeps the MTU it was made with after its lower device's MTU goes
/// below it (the kernel checks it only at a change): the mirror makes the device with
/// that MTU (in restore mode), so its IPv6 addresses, which a clamped MTU below 1280
/// would take away, answer as the kernel's do (found by mirror-diff seed 5854).
#[test]
fn vxlan_keeps_its_mtu_above_its_lower_device() {
    let Some(ns) = live_netns(38) else {
        return;
    };
    ns.no_dad();
    for c in [
        "link set lo up",
        "link add d0 type ifb",
        "link set d0 up",
        "link add vx0 type vxlan id 42 dstport 4789 dev d0",
        "link set vx0 up",
        "-6 addr add 2001:db8:7::1/64 dev vx0",
        "link set d0 mtu 1280",
    ] {
        ns.ip(c);
    }
    let queries = [
        "-6 route get 2001:db8:7::1",
        "-6 addr show dev vx0",
        "link show vx0",
    ];
    // the kernel's device keeps its MTU, above the lower device's limit now
    assert!(kernel(&ns, "link show vx0").stdout.contains("mtu 1450"));
    let diffs = compare(&ns, &queries);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Whether `ip -n NS ARGS` succeeds (a probe of what the running kernel supports).
fn kernel_ok(ns: &Netns, args: &str) -> bool {
    kernel(ns, args).status == Some(0)
}

/// The MPTCP path manager's state comes through generic netlink (family `mptcp_pm`):
/// endpoints of both families with the kernel's IDs (given and handed out), ports,
/// flags and devices (one deleted since: the kernel keeps its index, `ip` prints
/// `ifN`), one whose address went since (its listening socket stays), and the limits.
/// Every listing is compared with `ip`'s.
#[test]
fn mirror_copies_mptcp_endpoints_and_limits() {
    let Some(ns) = live_netns(90) else {
        return;
    };
    if !kernel_ok(&ns, "mptcp limits show") {
        println!("skipped: the kernel has no MPTCP path manager (CONFIG_MPTCP)");
        return;
    }
    ns.no_dad();
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "link add d2 type ifb",
        "-6 addr add 2001:db8:1::1/64 dev d1",
        "addr add 203.0.113.1/24 dev d0",
        "mptcp endpoint add 192.0.2.1 id 5 signal port 4000",
        "mptcp endpoint add 2001:db8:1::1 id 3 subflow backup dev d1",
        "mptcp endpoint add 198.51.100.1 id 200 subflow fullmesh dev d2",
        // IDs handed out by the kernel after the highest given
        "mptcp endpoint add ::ffff:10.0.0.7 signal",
        "mptcp endpoint add 2001:db8:1::1 signal backup port 4001",
        "mptcp endpoint add 203.0.113.1 id 9 signal port 4002 dev d0",
        "mptcp endpoint add 10.0.0.44 dev if77",
        "mptcp limits set subflows 5 add_addr_accepted 3",
        // the device of id 200 goes (its index stays with the endpoint), and so does the
        // address of id 9 (its socket stays bound)
        "link del d2",
        "addr del 203.0.113.1/24 dev d0",
    ] {
        ns.ip(c);
    }
    let shows = [
        "mptcp endpoint show",
        "-j mptcp endpoint show",
        "-j -p mptcp endpoint show",
        "mptcp endpoint show id 3",
        "mptcp endpoint show id 201",
        "mptcp endpoint show id 4",
        "mptcp limits show",
        "-j mptcp limits show",
    ];
    let diffs = compare(&ns, &shows);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    // the listing is the one set up (not two empty ones)
    let k = kernel(&ns, "mptcp endpoint show").stdout;
    assert!(k.contains("id 200 subflow fullmesh dev if"), "{k}");
    assert_eq!(k.lines().count(), 7, "{k}");
    assert!(kernel(&ns, "mptcp limits show")
        .stdout
        .contains("add_addr_accepted 3 subflows 5"));
    // the endpoint whose address went is mirrored in restore mode, with a warning
    let loud = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror"]);
    let warnings = String::from_utf8_lossy(&loud.stderr);
    assert!(
        warnings.contains("mptcp endpoint add 203.0.113.1 port 4002 id 9 dev d0 signal"),
        "{warnings}"
    );
}

/// The same state without the endpoint whose address went: the saved mirror replays
/// it (`fib mirror --load`) to the same listings, and a flush on the mirror leaves the
/// limits as the kernel's flush does.
#[test]
fn saved_mirror_replays_mptcp_endpoints() {
    let Some(ns) = live_netns(91) else {
        return;
    };
    if !kernel_ok(&ns, "mptcp limits show") {
        println!("skipped: the kernel has no MPTCP path manager (CONFIG_MPTCP)");
        return;
    }
    ns.no_dad();
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "-6 addr add 2001:db8:1::1/64 dev d1",
        "mptcp endpoint add 198.51.100.1 id 17 signal port 5000 dev d1",
        "mptcp endpoint add 2001:db8:1::1 id 2 subflow fullmesh",
        "mptcp endpoint add 192.0.2.1 backup dev d0",
        "mptcp limits set add_addr_accepted 8",
    ] {
        ns.ip(c);
    }
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "-q", "--save", "-"]);
    assert!(saved.status.success());
    let script = String::from_utf8_lossy(&saved.stdout).into_owned();
    assert!(
        script.contains("mptcp endpoint add 198.51.100.1 port 5000 id 17 dev d1 signal"),
        "{script}"
    );
    let shows = [
        "mptcp endpoint show",
        "-j mptcp endpoint show",
        "mptcp limits show",
    ];
    let replay = replay_saved(&ns, script.as_bytes(), &shows);
    assert!(replay.is_empty(), "{}", replay.join("\n"));
    let diffs = compare(&ns, &shows);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The SRv6 generic netlink state (family `SEG6`): the tunnel source, and the HMAC key
/// table. fibkit keeps no HMAC keys (`ip sr hmac set` reads the secret from a
/// terminal): a key is reported as not mirrored. A kernel without the HMAC table
/// (`CONFIG_IPV6_SEG6_HMAC`) refuses its dump, and so must the mirror.
#[test]
fn mirror_copies_srv6_settings() {
    let Some(ns) = live_netns(92) else {
        return;
    };
    // the default first
    let diffs = compare(&ns, &["sr tunsrc show", "sr hmac show"]);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    ns.ip("sr tunsrc set 2001:db8:5::77");
    // a key, its secret on stdin (ip reads it from there)
    let mut child = Command::new("ip")
        .args(["-n", &ns.0, "sr", "hmac", "set", "7", "sha256"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ip runs");
    if let Some(mut i) = child.stdin.take() {
        use std::io::Write;
        let _ = i.write_all(b"a secret\n");
    }
    let key = child
        .wait_with_output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    let mut shows = vec![
        "sr tunsrc show",
        "-j sr tunsrc show",
        "-j -p sr tunsrc show",
    ];
    if key {
        // not mirrored: reported
        let loud = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror"]);
        let warnings = String::from_utf8_lossy(&loud.stderr);
        assert!(
            warnings.contains("SRv6 HMAC key 7 (sha256): not mirrored"),
            "{warnings}"
        );
    } else {
        println!("the kernel has no SRv6 HMAC table: its refusal is compared");
        shows.extend(["sr hmac show", "-j sr hmac show", "-j -p sr hmac show"]);
    }
    let diffs = compare(&ns, &shows);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    assert!(kernel(&ns, "sr tunsrc show")
        .stdout
        .contains("tunsrc addr 2001:db8:5::77"));
}

/// `ip -s xfrm policy` prints each policy's add time, which is the mirror's own (the
/// time of its replay): the two words after `add` blinded.
fn add_time_blind(text: &str) -> String {
    text.lines()
        .map(|l| match l.split_once("  add ") {
            Some((head, rest)) => {
                let tail = rest.splitn(3, ' ').nth(2).unwrap_or("");
                format!("{head}  add # # {tail}")
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The IPsec security policy database comes through `NETLINK_XFRM`: policies of both
/// families with the kernel's indexes (given and handed out), priorities, actions,
/// types, marks, interface ids, flags, limits, selectors with ports, ICMP type and
/// code, a GRE key and devices (one deleted since: the kernel keeps its index, `ip`
/// prints `ifN`), tunnel and transport templates; one updated (it moves to the head),
/// one deleted; the hash thresholds and a default action. Every listing is compared
/// with `ip`'s.
#[test]
fn mirror_copies_xfrm_policies() {
    let Some(ns) = live_netns(120) else {
        return;
    };
    if !kernel_ok(&ns, "xfrm policy count") {
        println!("skipped: the kernel has no xfrm (CONFIG_XFRM_USER)");
        return;
    }
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "link add d2 type ifb",
        "xfrm policy add src 10.0.0.1/24 dst 10.1.0.0/24 proto tcp sport 80 dport 443 dir out \
         priority 5 tmpl src 192.0.2.1 dst 192.0.2.2 proto esp spi 0x100 reqid 4 mode tunnel",
        "xfrm policy add src 10.0.0.0/24 dst 10.1.0.0/24 dir in priority 5 \
         tmpl src 192.0.2.2 dst 192.0.2.1 proto esp reqid 4 mode tunnel level use",
        "xfrm policy add src 10.0.0.0/24 dst 10.1.0.0/24 dir fwd index 42 action block",
        "xfrm policy add src 2001:db8::1/64 dst 2001:db8:1::/48 proto udp dport 500 dir out \
         index 17 ptype sub mark 5 mask 0xff if_id 9 flag localok icmp",
        "xfrm policy add src 2001:db8::/64 dst ::/0 proto ipv6-icmp type 135 code 0 dir in \
         priority 100 limit time-soft 100 limit time-hard 200 limit time-use-soft 10 \
         limit time-use-hard 20 limit byte-soft 1000 limit byte-hard 2000 \
         limit packet-soft 10 limit packet-hard 20 \
         tmpl src 2001:db8::a dst 2001:db8::b proto esp mode transport",
        "xfrm policy add src 10.0.7.0/24 proto icmp type 8 dev d2 dir fwd",
        "xfrm policy add dst 10.0.9.0/24 proto gre key 1.2.3.4 dev d1 dir out mark 0x10 mask 0xf0",
        "xfrm policy add dir in",
        "-6 xfrm policy add dir out priority 9 tmpl src 2001:db8::1 dst 2001:db8::2 proto ah \
         spi 7 mode tunnel tmpl src 2001:db8::1 dst 2001:db8::2 proto comp spi 3 mode tunnel",
        "xfrm policy add src 10.0.20.0/24 dir in ptype sub",
        "xfrm policy add src 10.0.21.0/24 dir out",
        "xfrm policy delete src 10.0.21.0/24 dir out",
        "xfrm policy update src 10.0.0.0/24 dst 10.1.0.0/24 dir in priority 6",
        "xfrm policy set hthresh4 24 16 hthresh6 64 56",
        "xfrm policy setdefault fwd block",
        // the device of a policy goes (its index stays in the selector)
        "link del d2",
    ] {
        ns.ip(c);
    }
    let shows = [
        "xfrm policy show",
        "xfrm policy",
        "-d xfrm policy list",
        "-o xfrm policy list",
        "-4 xfrm policy",
        "-6 xfrm policy",
        "xfrm policy list dir out",
        "xfrm policy list ptype sub",
        "xfrm policy list nosock",
        "xfrm policy list dev d1",
        "xfrm policy list src 10.0.0.0/16",
        "xfrm policy list action block",
        "xfrm policy list priority 5",
        "xfrm policy list flag icmp",
        "xfrm policy list index 42",
        "xfrm policy count",
        "-s xfrm policy count",
        // (not `-s -s ... count`: its bucket counts follow the kernel's deferred hash
        // resize, which may not have run yet)
        "xfrm policy getdefault",
        "xfrm policy get index 42 dir fwd",
        "xfrm policy get index 17 dir out ptype sub mark 5 mask 0xff if_id 9",
        "xfrm policy get index 17 dir out",
        "xfrm policy get src 10.0.0.0/24 dst 10.1.0.0/24 dir in",
        "xfrm policy get src 10.0.0.0/24 dst 10.1.0.0/24 dir out",
    ];
    let diffs = compare(&ns, &shows);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    // with the indexes, lifetimes and template details: the add times blinded
    for q in ["-s xfrm policy list", "-s -o xfrm policy list dir in"] {
        let k = kernel(&ns, q);
        let f = fibkit(&ns, q);
        assert_eq!(
            (k.status, add_time_blind(&k.stdout), &k.stderr),
            (f.status, add_time_blind(&f.stdout), &f.stderr),
            "ip {q}"
        );
    }
    // the listing is the one set up (not two empty ones)
    let k = kernel(&ns, "xfrm policy show").stdout;
    assert_eq!(k.matches("\tdir ").count(), 10, "{k}");
    assert!(k.contains("proto icmp type 8 dev if"), "{k}");
    assert!(kernel(&ns, "-s -s xfrm policy count")
        .stdout
        .contains("local 24 remote 16"));
}

/// A saved mirror of policies replays (`fib mirror --load`) to the same listings.
#[test]
fn saved_mirror_replays_xfrm_policies() {
    let Some(ns) = live_netns(121) else {
        return;
    };
    if !kernel_ok(&ns, "xfrm policy count") {
        println!("skipped: the kernel has no xfrm (CONFIG_XFRM_USER)");
        return;
    }
    for c in TWO_LINKS {
        ns.ip(c);
    }
    for c in [
        "xfrm policy add src 10.0.0.0/24 dst 10.1.0.0/24 proto tcp dport 22 dev d0 dir out \
         index 33 priority 3 tmpl src 192.0.2.1 dst 192.0.2.2 proto esp reqid 1 mode tunnel",
        "xfrm policy add src 2001:db8::/64 dst 2001:db8:1::/64 dir in ptype sub if_id 4 \
         mark 0x7 limit packet-hard 5",
        "xfrm policy add dst 10.1.0.0/16 dir fwd action block",
        "xfrm policy set hthresh6 96 96",
    ] {
        ns.ip(c);
    }
    let saved = ns.exec(env!("CARGO_BIN_EXE_fib"), &["mirror", "-q", "--save", "-"]);
    assert!(saved.status.success());
    let script = String::from_utf8_lossy(&saved.stdout).into_owned();
    assert!(script.contains("xfrm policy add "), "{script}");
    assert!(script.contains(" index 33 "), "{script}");
    let shows = [
        "xfrm policy show",
        "-d xfrm policy list",
        "xfrm policy list ptype sub",
        "xfrm policy get index 33 dir out",
    ];
    let replay = replay_saved(&ns, script.as_bytes(), &shows);
    assert!(replay.is_empty(), "{}", replay.join("\n"));
    let diffs = compare(&ns, &shows);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
