//! # fibkit-netlink: mirror a Linux namespace's routing state into fibkit
//!
//! This crate reads the routing state of the network namespace the calling process
//! runs in, through rtnetlink (a `NETLINK_ROUTE` socket) and `/proc/sys/net`, and
//! rebuilds it in a [`fibkit::Netns`], so that fibkit answers `ip route get` for that
//! host as its kernel does. To mirror another namespace, run the process inside it
//! (`ip netns exec NAME ...`).
//!
//! The layers, from the wire to the engine:
//!
//! 1. **Dump** — [`dump`] sends one dump request per object kind (links, addresses,
//!    IPv4/IPv6 routes of every table, IPv4/IPv6 rules, nexthop objects, neighbour
//!    entries of both families) and reads the
//!    modelled sysctls. A generic netlink (`NETLINK_GENERIC`) socket then reads the
//!    MPTCP path manager's endpoints and limits (family `mptcp_pm`) and the SRv6
//!    tunnel source and HMAC keys (family `SEG6`), see [`genl`]; a family the kernel
//!    lacks is skipped. A `NETLINK_XFRM` socket reads the IPsec security policies, their
//!    hash thresholds and default actions, see [`xfrm`]; a kernel without xfrm is
//!    skipped. The raw messages are decoded with bounds-checked readers into a
//!    [`KernelState`] of validated records ([`kernel`]); a message or attribute that
//!    cannot be decoded is skipped with a [`Warning`], never a panic.
//! 2. **Translate** — [`KernelState::translate`] turns the records into `ip` commands
//!    in fibkit-iproute's syntax (what `fib -batch` reads) and `sysctl KEY=VALUE`
//!    assignments, applies them to a fresh [`fibkit::Netns`] in an order fibkit accepts,
//!    and reconciles what fibkit derives by itself (the kernel's local, broadcast,
//!    connected, link-local, multicast and anycast routes, `lo`'s and link-local
//!    addresses) with what the kernel has: only missing entries are added, and entries
//!    the kernel no longer has are deleted. Neighbour entries fibkit models (ARP and ND
//!    entries of a `NUD_*` state and proxy entries, not multicast mappings) are added
//!    after the addresses. See [`translate`] for the phases.
//! 3. **Follow** — [`Follower`] subscribes to the rtnetlink multicast groups (links,
//!    neighbours, IPv4/IPv6 addresses, routes, rules, netconf, nexthops). After a burst
//!    of route events only, [`Follower::wait_and_update`] applies each event to the
//!    mirror as the `ip route` command its flags imply (IPv4 routes, IPv6 routes of one
//!    path); after any other burst it dumps
//!    everything again and rebuilds the namespace from scratch (a *resync*: exactly the
//!    kernel's state after the burst, also where the kernel changed routes without an
//!    event per route). Neighbour events that cannot change an answer (an entry moving
//!    between valid states, say `REACHABLE` to `STALE`) do not count.
//!
//! ```no_run
//! let (ns, warnings) = fibkit_netlink::mirror()?;
//! for w in &warnings {
//!     eprintln!("warning: {w}");
//! }
//! let r = ns.route_get4(&fibkit::lookup::Flow4 { dst: 0x0808_0808, ..Default::default() });
//! # Ok::<(), fibkit_netlink::Error>(())
//! ```
//!
//! What is not mirrored (each case is reported as a warning when met): link kinds
//! fibkit does not model (they become `dummy` links with the same name, MAC, MTU and
//! up state — and therefore always with carrier),
//! DAD states (a tentative address is mirrored as usable, but for one kept over its
//! link's going down),
//! encapsulations other than `ip`, `ip6`, `seg6` and `seg6local`, whether a resilient nexthop group's bucket was used since it last
//! moved (the buckets themselves are restored), rule selectors fibkit does not model
//! (`dscp`, `flowlabel`, port masks), proxy neighbour entries without a device, and per-boot random
//! multipath hash seeds (a seed of 0 cannot be reproduced), and IPv6's one-way
//! custom-rules flag (`fib6_has_custom_rules`) when the rules are the defaults again
//! (taken as unset) or were made only by deletes (a list that is not the defaults is
//! taken to come from an added rule, which sets it). The IPv4 counterpart, local and main tables that stay
//! unmerged after a rule was added and deleted, is probed with one route get (see
//! [`KernelState::tables4_unmerged`]).
//!
//! Of the generic netlink state, the MPTCP endpoints (IDs, addresses, ports, flags,
//! devices) and limits and the SRv6 tunnel source are mirrored, and so is whether the
//! kernel has the SRv6 HMAC key table (`CONFIG_IPV6_SEG6_HMAC`: `ip sr hmac show` fails
//! with error 524 without it). Not mirrored, with a warning: SRv6 HMAC keys (fibkit
//! keeps none: `ip sr hmac set` reads the secret from a terminal), endpoint flags `ip`
//! cannot set (`implicit`, made by a connection), an endpoint whose device index names
//! no device in the kernel but one in the mirror. The path manager's next free ID is
//! not dumped: the mirror's follows from the IDs it adds. Changes of the generic
//! netlink state send no rtnetlink event: [`Follower`] sees them at its next resync.
//!
//! Of the IPsec state, the security policy database is mirrored (`ip xfrm policy`):
//! every policy `ip` can make, with the kernel's index, selector (host bits, ports,
//! ICMP type and code, GRE key, device: `ifN` where the device is gone), direction,
//! type (`main`/`sub`), action, priority, flags, mark and mask, interface id, limits
//! and templates, added oldest first so that listings keep the kernel's order; and the
//! hash thresholds (`ip xfrm policy set`) and default actions (`setdefault`) where they
//! differ from a new namespace's. The add time `ip -s` prints is the mirror's own (the
//! time of the replay), and the mirror's index generator starts afresh (a policy added
//! to the mirror without `index` may get another index than the kernel would give).
//! Not mirrored, with a warning: socket policies, what `ip` cannot set (a share, a
//! selector's user, masked ports, template algorithm masks), security contexts (fibkit
//! drops them) and use counters (fibkit's start at 0). IPsec changes send no rtnetlink
//! event either. See the crate's README for details.

#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::time::Duration;

pub mod genl;
pub mod kernel;
pub mod mcast;
mod nl;
mod probe;
pub mod sysctl;
pub mod translate;
pub mod xfrm;

pub use genl::{KHmacKey, KMptcpEndpoint, KMptcpLimits};
pub use kernel::{KAddr, KBucket, KHop, KLink, KNeigh, KNexthop, KResGroup, KRoute, KRule};
pub use mcast::{KMcast, KMcastEntry};
pub use sysctl::KSysctl;
pub use translate::Translation;
pub use xfrm::KXfrmPolicy;

use kernel::{AF_INET, AF_INET6};
use nl::{rtm, RtSocket};

/// Something that could not be mirrored exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// What happened, in one line.
    pub text: String,
}

impl Warning {
    /// A warning with this text.
    pub fn new(text: impl Into<String>) -> Warning {
        Warning { text: text.into() }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a mirror failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Opening, binding or using the netlink socket failed.
    Socket(std::io::Error),
    /// A dump request was refused or its reply could not be read.
    Dump {
        /// What was dumped (`links`, `IPv4 routes`, ...).
        what: &'static str,
        /// The error.
        source: std::io::Error,
    },
    /// Every attempt was interrupted by concurrent changes (`NLM_F_DUMP_INTR`).
    Inconsistent,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Socket(e) => write!(f, "netlink socket: {e}"),
            Error::Dump { what, source } => write!(f, "dumping {what}: {source}"),
            Error::Inconsistent => f.write_str("dumps kept being interrupted by changes"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Socket(e) | Error::Dump { source: e, .. } => Some(e),
            Error::Inconsistent => None,
        }
    }
}

/// The kernel's routing state as dumped: validated records, in the kernel's dump order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelState {
    /// The kernel's build options that change answers, as far as they can be told
    /// from the host: multicast routing of a family when its rules can be dumped
    /// (without it the dump is refused with EAFNOSUPPORT).
    pub kernel: fibkit::kconfig::KernelConfig,
    /// Links.
    pub links: Vec<KLink>,
    /// Addresses of both families.
    pub addrs: Vec<KAddr>,
    /// Routes of every table, IPv4 then IPv6 (cached exceptions left out).
    pub routes: Vec<KRoute>,
    /// Rules, IPv4 then IPv6.
    pub rules: Vec<KRule>,
    /// Nexthop objects.
    pub nexthops: Vec<KNexthop>,
    /// The buckets of resilient nexthop groups.
    pub nh_buckets: Vec<KBucket>,
    /// Neighbour entries (ARP and ND tables), all of them as dumped: which ones are
    /// mirrored is decided by the translation.
    pub neighs: Vec<KNeigh>,
    /// The modelled sysctls.
    pub sysctls: Vec<KSysctl>,
    /// The multicast memberships `/proc` lists (see [`mcast`]).
    pub mcast: Vec<KMcast>,
    /// Whether the kernel's IPv4 local and main tables are unmerged, as probed with a
    /// route get for a local address (answered from table local, not main). The kernel
    /// unmerges them at the first IPv4 rule added and never merges them again, also
    /// when the rules are the defaults again, which no dump shows. `None` when not
    /// probed (the IPv4 rules are not the defaults: the translation replays them, which
    /// unmerges fibkit's tables anyway) or when the probe failed (with a warning).
    pub tables4_unmerged: Option<bool>,
    /// Whether the kernel walks its IPv6 rules (`fib6_has_custom_rules`: set by the
    /// first IPv6 rule added, never by a delete), probed with a route get when the
    /// rules are defaults with the main rule deleted (a main route's destination is
    /// then answered without the rules, or unreachable with them). `None` when not
    /// probed or when the probe failed (with a warning).
    pub rules6_custom: Option<bool>,
    /// The attributes of the paths of IPv6 multipath routes, probed (the dump gives a
    /// multipath route once, with its first path's; see [`LegProbe6`]).
    pub legs6: Vec<LegProbe6>,
    /// The IPv4 gateway routes (table, destination, metric) whose nexthop the kernel
    /// keeps with a host scope (the gateway was a local address when they were added),
    /// as probed with route gets: they answer without the gateway, which no dump shows.
    pub host_gw4: Vec<(u32, (u128, u8), u32)>,
    /// The IPv4 gateway routes whose nexthop the kernel keeps with a link scope, as
    /// probed: they answer with the gateway whatever their gateway's lookup would
    /// find now (a local route may cover it since).
    pub link_gw4: Vec<(u32, (u128, u8), u32)>,
    /// The MPTCP path manager's endpoints (generic netlink family `mptcp_pm`), in the
    /// kernel's dump order (by ID). Empty when the family is absent.
    pub mptcp_endpoints: Vec<KMptcpEndpoint>,
    /// The MPTCP path manager's limits; `None` when the family is absent or they could
    /// not be read (with a warning).
    pub mptcp_limits: Option<KMptcpLimits>,
    /// The SRv6 tunnel source (`ip sr tunsrc`, generic netlink family `SEG6`); `None`
    /// when the family is absent or it could not be read (with a warning).
    pub seg6_tunsrc: Option<u128>,
    /// The SRv6 HMAC keys, in the kernel's dump order (a kernel without the HMAC table
    /// has none: [`fibkit::kconfig::KernelConfig::ipv6_seg6_hmac`] tells).
    pub seg6_hmac: Vec<KHmacKey>,
    /// The IPsec security policies (`ip xfrm policy`, a `NETLINK_XFRM` dump), in the
    /// kernel's dump order (newest first). Empty when the kernel has no xfrm.
    pub xfrm_policies: Vec<KXfrmPolicy>,
    /// The IPsec policy hash thresholds (`hthresh4`, `hthresh6`: local and remote
    /// prefix bits), each `None` when not read.
    pub xfrm_hthresh: xfrm::HThresh,
    /// The IPsec default actions for in, fwd, out (`ip xfrm policy getdefault`);
    /// `None` when not read.
    pub xfrm_defaults: Option<[u8; 3]>,
    /// What could not be decoded.
    pub warnings: Vec<Warning>,
}

/// The paths of one IPv6 multipath route as `ip -6 route get fibmatch ADDR oif DEV`
/// describes them: the answer names the route the path's device selects, with that
/// path's protocol, preferred source, metrics and preference (IPv6 keeps each path as
/// its own entry). Only paths whose device no other path of the route has are probed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LegProbe6 {
    /// The route: table, destination, source, metric.
    pub key: (u32, (u128, u8), (u128, u8), u32),
    /// Per path, in the route's order: the answer, when it was this route.
    pub legs: Vec<Option<KRoute>>,
}

/// How many records of each kind differ between two states (added, removed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Links added and removed (a changed link counts once each way).
    pub links: (usize, usize),
    /// Addresses added and removed.
    pub addrs: (usize, usize),
    /// Routes added and removed.
    pub routes: (usize, usize),
    /// Rules added and removed.
    pub rules: (usize, usize),
    /// Nexthop objects added and removed.
    pub nexthops: (usize, usize),
    /// Neighbour entries added and removed (a changed state counts once each way).
    pub neighs: (usize, usize),
    /// Sysctls changed.
    pub sysctls: usize,
}

impl fmt::Display for Changes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = |(a, r): (usize, usize)| format!("+{a}/-{r}");
        write!(
            f,
            "links {} addrs {} routes {} rules {} nexthops {} neigh {} sysctls {}",
            p(self.links),
            p(self.addrs),
            p(self.routes),
            p(self.rules),
            p(self.nexthops),
            p(self.neighs),
            self.sysctls
        )
    }
}

fn diff<T: PartialEq>(old: &[T], new: &[T]) -> (usize, usize) {
    let added = new.iter().filter(|x| !old.contains(x)).count();
    let removed = old.iter().filter(|x| !new.contains(x)).count();
    (added, removed)
}

fn diff_routes(old: &[KRoute], new: &[KRoute]) -> (usize, usize) {
    let key = |r: &KRoute| format!("{r:?}");
    let o: HashSet<String> = old.iter().map(key).collect();
    let n: HashSet<String> = new.iter().map(key).collect();
    (n.difference(&o).count(), o.difference(&n).count())
}

impl KernelState {
    /// Each link's name by index.
    pub fn link_names(&self) -> HashMap<u32, String> {
        self.links
            .iter()
            .map(|l| (l.index, l.name.clone()))
            .collect()
    }

    /// Translate into commands and apply them to a fresh namespace.
    pub fn translate(&self) -> Translation {
        translate::translate(self)
    }

    /// The commands that rebuild this state (`ip` command lines without `ip`, and
    /// `sysctl KEY=VALUE` lines), with the warnings of the translation.
    pub fn to_commands(&self) -> (Vec<String>, Vec<Warning>) {
        let t = self.translate();
        (t.commands, t.warnings)
    }

    /// What changed from `old` to `self`.
    pub fn changes_since(&self, old: &KernelState) -> Changes {
        let sys = self
            .sysctls
            .iter()
            .filter(|s| !old.sysctls.contains(s))
            .count();
        Changes {
            links: diff(&old.links, &self.links),
            addrs: diff(&old.addrs, &self.addrs),
            routes: diff_routes(&old.routes, &self.routes),
            rules: diff(&old.rules, &self.rules),
            nexthops: diff(&old.nexthops, &self.nexthops),
            neighs: diff(&old.neighs, &self.neighs),
            sysctls: sys,
        }
    }
}

fn decode_into<T>(
    payloads: Vec<Vec<u8>>,
    f: fn(&[u8], &mut Vec<Warning>) -> Option<T>,
    out: &mut Vec<T>,
    w: &mut Vec<Warning>,
) {
    for p in payloads {
        if let Some(x) = f(&p, w) {
            out.push(x);
        }
    }
}

fn dump_once(s: &mut RtSocket) -> Result<(KernelState, bool), Error> {
    let mut k = KernelState::default();
    let mut intr = false;
    let mut w = Vec::new();
    let mut get = |ty: u16, hdr: &[u8], want: u16, what: &'static str| {
        s.dump(ty, hdr, want)
            .map(|d| {
                intr |= d.interrupted;
                d.payloads
            })
            .map_err(|source| Error::Dump { what, source })
    };
    let links = get(rtm::GETLINK, &[0u8; 16], rtm::NEWLINK, "links")?;
    let addrs = get(rtm::GETADDR, &[0u8; 8], rtm::NEWADDR, "addresses")?;
    let mut rt = [0u8; 12];
    rt[0] = AF_INET;
    let r4 = get(rtm::GETROUTE, &rt, rtm::NEWROUTE, "IPv4 routes")?;
    rt[0] = AF_INET6;
    let r6 = get(rtm::GETROUTE, &rt, rtm::NEWROUTE, "IPv6 routes")?;
    let mut fr = [0u8; 12];
    fr[0] = AF_INET;
    let ru4 = get(rtm::GETRULE, &fr, rtm::NEWRULE, "IPv4 rules")?;
    fr[0] = AF_INET6;
    let ru6 = get(rtm::GETRULE, &fr, rtm::NEWRULE, "IPv6 rules")?;
    // the multicast routing rules (`ip mrule`); a kernel built without a family's
    // multicast routing has no rules of that family (EAFNOSUPPORT), which also tells
    // the build option
    let mut mru = Vec::new();
    for (fam, what, proc) in [
        (
            kernel::RTNL_FAMILY_IPMR,
            "IPv4 multicast rules",
            "/proc/net/ip_mr_vif",
        ),
        (
            kernel::RTNL_FAMILY_IP6MR,
            "IPv6 multicast rules",
            "/proc/net/ip6_mr_vif",
        ),
    ] {
        fr[0] = fam;
        let on = match get(rtm::GETRULE, &fr, rtm::NEWRULE, what) {
            Ok(r) => {
                mru.extend(r);
                true
            }
            Err(Error::Dump { source, .. }) if source.raw_os_error() == Some(97) => false,
            Err(e) => {
                w.push(Warning::new(format!("{e}: not mirrored")));
                // unknown: as the running kernel's /proc tells
                std::path::Path::new(proc).exists()
            }
        };
        if fam == kernel::RTNL_FAMILY_IPMR {
            k.kernel.ip_mroute = on;
        } else {
            k.kernel.ipv6_mroute = on;
        }
    }
    let nh = match get(rtm::GETNEXTHOP, &[0u8; 8], rtm::NEWNEXTHOP, "nexthops") {
        Ok(n) => n,
        Err(e) => {
            w.push(Warning::new(format!("{e}: nexthop objects not mirrored")));
            Vec::new()
        }
    };
    // the buckets of resilient groups, if there are any
    let mut buckets = Vec::new();
    if !nh.is_empty() {
        match get(
            rtm::GETNEXTHOPBUCKET,
            &[0u8; 8],
            rtm::NEWNEXTHOPBUCKET,
            "nexthop buckets",
        ) {
            Ok(b) => buckets = b,
            Err(e) => w.push(Warning::new(format!(
                "{e}: resilient groups keep their own buckets"
            ))),
        }
    }
    // struct ndmsg, AF_UNSPEC: the ARP and ND tables (ndm_flags 0: not the proxy ones)
    let neigh = match get(rtm::GETNEIGH, &[0u8; 12], rtm::NEWNEIGH, "neighbours") {
        Ok(n) => n,
        Err(e) => {
            w.push(Warning::new(format!("{e}: neighbour entries not mirrored")));
            Vec::new()
        }
    };
    // the proxy entries (`pneigh`): the same request with NTF_PROXY in ndm_flags
    let mut preq = [0u8; 12];
    preq[10] = kernel::ntf::PROXY;
    let proxies = match get(rtm::GETNEIGH, &preq, rtm::NEWNEIGH, "proxy neighbours") {
        Ok(n) => n,
        Err(e) => {
            w.push(Warning::new(format!("{e}: proxy entries not mirrored")));
            Vec::new()
        }
    };
    decode_into(links, kernel::decode_link, &mut k.links, &mut w);
    decode_into(addrs, kernel::decode_addr, &mut k.addrs, &mut w);
    decode_into(r4, kernel::decode_route, &mut k.routes, &mut w);
    decode_into(r6, kernel::decode_route, &mut k.routes, &mut w);
    decode_into(ru4, kernel::decode_rule, &mut k.rules, &mut w);
    decode_into(ru6, kernel::decode_rule, &mut k.rules, &mut w);
    decode_into(mru, kernel::decode_rule, &mut k.rules, &mut w);
    decode_into(nh, kernel::decode_nexthop, &mut k.nexthops, &mut w);
    decode_into(buckets, kernel::decode_bucket, &mut k.nh_buckets, &mut w);
    decode_into(neigh, kernel::decode_neigh, &mut k.neighs, &mut w);
    decode_into(proxies, kernel::decode_neigh, &mut k.neighs, &mut w);
    // SRv6 lightweight tunnels: a kernel with a seg6 or seg6local route or nexthop
    // object has them (one without any is taken to be built as fibkit's default)
    let srv6 = |e: &Option<std::sync::Arc<fibkit::encap::Encap>>| {
        matches!(
            e.as_deref(),
            Some(fibkit::encap::Encap::Seg6 { .. } | fibkit::encap::Encap::Seg6Local { .. })
        )
    };
    if k.routes
        .iter()
        .any(|r| r.hops.iter().any(|h| srv6(&h.encap)))
        || k.nexthops.iter().any(|n| srv6(&n.lwt))
    {
        k.kernel.ipv6_seg6_lwtunnel = true;
    }
    let names: Vec<&str> = k.links.iter().map(|l| l.name.as_str()).collect();
    k.sysctls = sysctl::read_all(&names, &mut w);
    k.mcast = mcast::read_all(&mut w);
    genl::read_all(&mut k, &mut w);
    xfrm::read_all(&mut k, &mut w);
    k.warnings = w;
    Ok((k, intr))
}

fn dump_with(s: &mut RtSocket) -> Result<KernelState, Error> {
    for _ in 0..5 {
        let (mut k, intr) = dump_once(s)?;
        if !intr {
            probe_tables4(s, &mut k);
            probe_rules6(s, &mut k);
            k.legs6 = probe::legs6(s, &k);
            (k.host_gw4, k.link_gw4) = probe::host_gw4(s, &k);
            return Ok(k);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(Error::Inconsistent)
}

/// Set `k.tables4_unmerged` when it matters: while the IPv4 rules are the defaults
/// (else the translation replays the rules, which unmerges fibkit's tables anyway). A
/// failed probe leaves it `None` (mirrored as merged) with a warning.
fn probe_tables4(s: &mut RtSocket, k: &mut KernelState) {
    if !translate::default_rules(&k.rules, false) {
        return;
    }
    match probe::unmerged(s, k) {
        Ok(u) => k.tables4_unmerged = Some(u),
        Err(e) => k.warnings.push(Warning::new(format!(
            "could not probe whether the kernel's IPv4 local and main tables are merged \
             ({e}): mirrored as merged (after a rule added and deleted, the kernel answers \
             for local and broadcast addresses from table local)"
        ))),
    }
}

/// Set `k.rules6_custom` when it decides answers: the IPv6 rules are some of the
/// defaults (which deletes alone can leave) without the main rule.
fn probe_rules6(s: &mut RtSocket, k: &mut KernelState) {
    if !translate::deleted_defaults6(&k.rules) {
        return;
    }
    match probe::custom6(s, k) {
        Ok(c) => k.rules6_custom = Some(c),
        Err(e) => k.warnings.push(Warning::new(format!(
            "could not probe whether the kernel walks its IPv6 rules ({e}): mirrored as \
             if a rule was added (lookups walk the rules)"
        ))),
    }
}

/// Dump the routing state of the current network namespace.
pub fn dump() -> Result<KernelState, Error> {
    let mut s = RtSocket::open().map_err(Error::Socket)?;
    dump_with(&mut s)
}

/// Dump the current namespace and rebuild it in a fresh [`fibkit::Netns`].
pub fn mirror() -> Result<(fibkit::Netns, Vec<Warning>), Error> {
    let t = dump()?.translate();
    Ok((t.netns, t.warnings))
}

/// A neighbour entry's identity: device index and address.
type NeighKey = (u32, kernel::Ip);

/// What a neighbour entry means to a lookup: 0 when it lets the path be used (a valid
/// state, or no entry at all), 1 for `NUD_FAILED` (IPv6 ranks such a router last), 2 for
/// the other invalid states (`INCOMPLETE`, `NONE`). IPv4 multipath (under
/// `fib_multipath_use_neigh`), nexthop groups and IPv6 router selection see nothing
/// finer, so a change within a class cannot change an answer.
fn neigh_class(state: Option<u16>) -> u8 {
    match state {
        None => 0,
        Some(s) if s & kernel::nud::VALID != 0 => 0,
        Some(s) if s & kernel::nud::FAILED != 0 => 1,
        Some(_) => 2,
    }
}

fn neigh_classes(k: &KernelState) -> HashMap<NeighKey, u8> {
    k.neighs
        .iter()
        .filter(|n| n.flags & kernel::ntf::PROXY == 0)
        .map(|n| ((n.index, n.dst), neigh_class(Some(n.state))))
        .collect()
}

/// One resync of [`Follower`].
#[derive(Debug)]
pub struct Resync {
    /// The kernel state dumped.
    pub state: KernelState,
    /// The namespace rebuilt from it.
    pub translation: Translation,
    /// What changed since the previous resync.
    pub changes: Changes,
    /// How many event messages the burst held (neighbour events that could not change
    /// an answer are not counted).
    pub events: usize,
}

/// What one burst of events did to a followed mirror ([`Follower::wait_and_update`]).
#[derive(Debug)]
pub struct Update {
    /// How many event messages the burst held (as [`Resync::events`]).
    pub events: usize,
    /// `true`: the burst held route events only, applied to the mirror one by one;
    /// `false`: everything was dumped again and the mirror rebuilt.
    pub incremental: bool,
    /// The `ip` commands applied (incremental), or the whole translation's commands.
    pub commands: Vec<String>,
    /// The translation's warnings (resync), or why the events could not be applied
    /// one by one (then a resync followed).
    pub warnings: Vec<Warning>,
    /// What changed since the previous update.
    pub changes: Changes,
}

/// One route event of a burst: `nlmsg_type`, `nlmsg_flags`, payload.
type RouteEvent = (u16, u16, Vec<u8>);

/// Follow mode: wait for rtnetlink events, then bring the mirror up to date.
///
/// [`Follower::wait_and_resync`] dumps everything again after each burst and rebuilds
/// the namespace. [`Follower::wait_and_update`] does the same unless the burst held
/// nothing but route events (the churn of a BGP host): those are applied to the
/// mirror one by one, as the `ip route` commands their flags imply, without a dump.
/// An IPv6 multipath route's event describes the route as a whole, the changed path
/// first (not in the route's order), so it means a resync, as does anything else in the
/// burst (links, addresses, rules, nexthop objects, lost events): the kernel changes
/// routes after those without telling (a device going down drops its IPv4 routes
/// silently).
///
/// Neighbour entries change all the time on a busy host (`REACHABLE` turns `STALE`
/// after some 30 s, traffic creates and refreshes entries): a neighbour event starts or
/// extends a burst only when it moves an entry to another class of what lookups see
/// (usable, `FAILED`, other invalid states), so the mirror's neighbour states may lag
/// the kernel's within a class, but its answers do not.
pub struct Follower {
    events: RtSocket,
    dumps: RtSocket,
    last: KernelState,
    /// The lookup class of each neighbour entry, as last dumped and updated by events.
    neigh: HashMap<NeighKey, u8>,
    /// The route events of the burst being read.
    burst: Vec<RouteEvent>,
    /// The burst held something else than route events (or lost events).
    burst_other: bool,
    /// How long the namespace must stay quiet before a burst is considered over.
    pub quiet: Duration,
    /// When the mirror was last built, and its clock then: an update first moves the
    /// mirror's clock on by the seconds since, so that routes added with an expiry
    /// count down (and expire) with the kernel's.
    clock: (std::time::Instant, u64),
    /// Whether [`Follower::wait_and_update`] may apply route events one by one
    /// (default `true`; `false` resyncs after every burst).
    pub incremental: bool,
}

impl Follower {
    /// Subscribe, then take the first mirror (returned with the follower). Subscribing
    /// first means no change between the two is missed.
    pub fn new() -> Result<(Follower, Resync), Error> {
        let mut events = RtSocket::open().map_err(Error::Socket)?;
        events.subscribe().map_err(Error::Socket)?;
        let mut dumps = RtSocket::open().map_err(Error::Socket)?;
        let state = dump_with(&mut dumps)?;
        let translation = state.translate();
        let changes = state.changes_since(&KernelState::default());
        let f = Follower {
            events,
            dumps,
            neigh: neigh_classes(&state),
            last: state.clone(),
            burst: Vec::new(),
            burst_other: false,
            clock: (std::time::Instant::now(), translation.netns.now()),
            quiet: Duration::from_millis(100),
            incremental: true,
        };
        Ok((
            f,
            Resync {
                state,
                translation,
                changes,
                events: 0,
            },
        ))
    }

    /// Block until the next burst of events has passed, then resync. A receive
    /// overflow (`ENOBUFS`: events were lost) also triggers a resync, which is exact
    /// regardless.
    pub fn wait_and_resync(&mut self) -> Result<Resync, Error> {
        let events = self.wait_burst()?;
        let mut r = self.resync()?;
        r.events = events;
        Ok(r)
    }

    /// Block until the next burst of events has passed, then bring `ns` (the mirror
    /// this follower made, as last updated) up to date: event by event when the burst
    /// held route events only, else by a resync that replaces `ns`. An event the
    /// mirror refuses also ends in a resync (its reason is in the warnings).
    pub fn wait_and_update(&mut self, ns: &mut fibkit::Netns) -> Result<Update, Error> {
        let events = self.wait_burst()?;
        let mut warnings = Vec::new();
        if self.incremental && !self.burst_other && !self.burst.is_empty() {
            match self.apply_route_events(ns) {
                Ok((commands, routes)) => {
                    return Ok(Update {
                        events,
                        incremental: true,
                        commands,
                        warnings,
                        changes: Changes {
                            routes,
                            ..Changes::default()
                        },
                    })
                }
                Err(e) => warnings.push(Warning::new(format!(
                    "route events not applied one by one ({e}): resynced"
                ))),
            }
        }
        let r = self.resync()?;
        *ns = r.translation.netns;
        warnings.extend(r.translation.warnings);
        Ok(Update {
            events,
            incremental: false,
            commands: r.translation.commands,
            warnings,
            changes: r.changes,
        })
    }

    /// Dump the kernel's state now and compare its routes with `ns`'s: each route one
    /// side has and the other lacks (`kernel: ...`, `mirror: ...`) and each prefix whose
    /// routes come in another order. A check of [`Follower::wait_and_update`] against
    /// the dump itself (not a mirror rebuilt from it); it does not change what the
    /// follower knows.
    pub fn verify(&mut self, ns: &fibkit::Netns) -> Result<Vec<String>, Error> {
        let k = dump_with(&mut self.dumps)?;
        Ok(translate::route_differences(&k, ns))
    }

    fn resync(&mut self) -> Result<Resync, Error> {
        let state = dump_with(&mut self.dumps)?;
        let translation = state.translate();
        let changes = state.changes_since(&self.last);
        self.clock = (std::time::Instant::now(), translation.netns.now());
        self.neigh = neigh_classes(&state);
        self.last = state.clone();
        Ok(Resync {
            state,
            translation,
            changes,
            events: 0,
        })
    }

    /// Read events until the namespace has been quiet for `quiet`; the number read.
    /// The queue is drained every millisecond meanwhile: a burst of thousands of route
    /// events would overflow the socket's buffer in one `quiet` period (then events are
    /// lost, `ENOBUFS`, and only a resync is exact).
    fn wait_burst(&mut self) -> Result<usize, Error> {
        self.burst.clear();
        self.burst_other = false;
        self.events.set_non_blocking(false).map_err(Error::Socket)?;
        let mut events = self.count_events(true)?;
        self.events.set_non_blocking(true).map_err(Error::Socket)?;
        let mut last = std::time::Instant::now();
        while last.elapsed() < self.quiet {
            std::thread::sleep(Duration::from_millis(1).min(self.quiet));
            let n = self.count_events(false)?;
            if n > 0 {
                events += n;
                last = std::time::Instant::now();
            }
        }
        Ok(events)
    }

    /// Apply the burst's route events to `ns`; the commands applied and the routes
    /// added and removed. On an error `ns` may hold part of the burst: the caller
    /// resyncs.
    fn apply_route_events(
        &mut self,
        ns: &mut fibkit::Netns,
    ) -> Result<(Vec<String>, (usize, usize)), String> {
        let names = self.last.link_names();
        let mut routes = self.last.routes.clone();
        let mut commands = Vec::new();
        let (mut added, mut removed) = (0, 0);
        let was = ns.begin_bulk();
        let mut result = Ok(());
        let now = self.clock.1 + self.clock.0.elapsed().as_secs();
        if ns.now() < now {
            ns.set_now(now);
        }
        for (ty, flags, payload) in &self.burst {
            let mut w = Vec::new();
            let Some(r) = kernel::decode_route(payload, &mut w) else {
                result = Err("an undecodable route event".to_string());
                break;
            };
            let new = *ty == rtm::NEWROUTE;
            let words = match translate::route_event_words(&r, new, *flags, &names) {
                Ok(x) => x,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let mut res = fibkit_iproute::exec::run_ip(ns, &words);
            if res.is_err() && new {
                // a gateway the mirror no longer reaches, as at a resync (restore mode)
                let r = ns.set_restore_mode(true);
                res = fibkit_iproute::exec::run_ip(ns, &words);
                ns.set_restore_mode(r);
            }
            if let Err(f) = res {
                result = Err(format!("`ip {}`: {}", words.join(" "), f.stderr.trim_end()));
                break;
            }
            commands.push(words.join(" "));
            let same_key = |x: &KRoute| {
                x.v6 == r.v6
                    && x.table == r.table
                    && x.src == r.src
                    && x.dst == r.dst
                    && x.tos == r.tos
                    && x.priority == r.priority
            };
            if new {
                if flags & nl::NLM_F_REPLACE != 0 {
                    if let Some(i) = routes.iter().position(same_key) {
                        routes.remove(i);
                        removed += 1;
                    }
                }
                routes.push(r);
                added += 1;
            } else {
                let at = routes
                    .iter()
                    .position(|x| *x == r)
                    .or_else(|| routes.iter().position(same_key));
                if let Some(i) = at {
                    routes.remove(i);
                }
                removed += 1;
            }
        }
        ns.end_bulk(was);
        result?;
        self.last.routes = routes;
        Ok((commands, (added, removed)))
    }

    /// Read what is queued (or wait until a relevant message came when `block`);
    /// returns the number of relevant messages read: all but the neighbour events that
    /// leave the entry's lookup class unchanged. Route events are kept in
    /// `burst`; any other relevant event sets `burst_other`.
    fn count_events(&mut self, block: bool) -> Result<usize, Error> {
        let mut n = 0;
        loop {
            match self.events.recv() {
                Ok(d) => {
                    let mut seen = 0;
                    for m in nl::messages(d) {
                        seen += 1;
                        match m {
                            Ok(m) if m.ty == rtm::NEWNEIGH || m.ty == rtm::DELNEIGH => {
                                if neigh_event_matters(&mut self.neigh, m.ty, m.payload) {
                                    n += 1;
                                    self.burst_other = true;
                                }
                            }
                            Ok(m)
                                if (m.ty == rtm::NEWROUTE || m.ty == rtm::DELROUTE)
                                    && matches!(m.payload.first(), Some(&AF_INET | &AF_INET6)) =>
                            {
                                n += 1;
                                self.burst.push((m.ty, m.flags, m.payload.to_vec()));
                            }
                            _ => {
                                n += 1;
                                self.burst_other = true;
                            }
                        }
                    }
                    if seen == 0 {
                        n += 1;
                        self.burst_other = true;
                    }
                    if block && n > 0 {
                        return Ok(n);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(n),
                // ENOBUFS: the queue overflowed, events were lost; a resync covers it
                Err(e) if e.raw_os_error() == Some(105) => {
                    n += 1;
                    self.burst_other = true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Socket(e)),
            }
        }
    }
}

/// Apply a neighbour event to `classes`; whether it changed the entry's lookup class.
/// Events of other families (bridge FDB entries share the group), proxy entries and
/// undecodable messages do not matter.
fn neigh_event_matters(classes: &mut HashMap<NeighKey, u8>, ty: u16, payload: &[u8]) -> bool {
    let mut w = Vec::new();
    let Some(n) = kernel::decode_neigh(payload, &mut w) else {
        return false;
    };
    if n.flags & kernel::ntf::PROXY != 0 {
        return false;
    }
    let key = (n.index, n.dst);
    let old = classes.get(&key).copied().unwrap_or(0);
    let new = if ty == rtm::DELNEIGH {
        classes.remove(&key);
        0
    } else {
        let c = neigh_class(Some(n.state));
        classes.insert(key, c);
        c
    };
    old != new
}

#[cfg(test)]
mod tests;
