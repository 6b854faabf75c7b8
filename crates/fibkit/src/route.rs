//! Route entries as the kernel stores them: IPv4 aliases with their fib_info, IPv6 fib6_info.

use crate::prefix::{Prefix4, Prefix6};

/// Route types (`RTN_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum RouteType {
    /// RTN_UNSPEC (only in requests: "any type").
    Unspec = 0,
    /// A gateway or direct route.
    Unicast = 1,
    /// Accept locally.
    Local = 2,
    /// Accept locally as broadcast, send as broadcast.
    Broadcast = 3,
    /// Accept locally as broadcast, send as unicast.
    Anycast = 4,
    /// Multicast route.
    Multicast = 5,
    /// Drop silently (EINVAL).
    Blackhole = 6,
    /// Destination unreachable (EHOSTUNREACH).
    Unreachable = 7,
    /// Administratively prohibited (EACCES).
    Prohibit = 8,
    /// Not in this table: continue with the next rule.
    Throw = 9,
    /// Network address translation (obsolete).
    Nat = 10,
    /// External resolver.
    Xresolve = 11,
}

impl RouteType {
    /// The iproute2 name of the type.
    pub fn name(self) -> &'static str {
        match self {
            RouteType::Unspec => "none",
            RouteType::Unicast => "unicast",
            RouteType::Local => "local",
            RouteType::Broadcast => "broadcast",
            RouteType::Anycast => "anycast",
            RouteType::Multicast => "multicast",
            RouteType::Blackhole => "blackhole",
            RouteType::Unreachable => "unreachable",
            RouteType::Prohibit => "prohibit",
            RouteType::Throw => "throw",
            RouteType::Nat => "nat",
            RouteType::Xresolve => "xresolve",
        }
    }

    /// Parse an iproute2 type name.
    pub fn from_name(s: &str) -> Option<RouteType> {
        Some(match s {
            "unicast" => RouteType::Unicast,
            "local" => RouteType::Local,
            "broadcast" => RouteType::Broadcast,
            "anycast" => RouteType::Anycast,
            "multicast" => RouteType::Multicast,
            "blackhole" => RouteType::Blackhole,
            "unreachable" => RouteType::Unreachable,
            "prohibit" => RouteType::Prohibit,
            "throw" => RouteType::Throw,
            "nat" => RouteType::Nat,
            "xresolve" => RouteType::Xresolve,
            _ => return None,
        })
    }

    /// From the numeric `RTN_*` value.
    pub fn from_u8(v: u8) -> Option<RouteType> {
        Some(match v {
            0 => RouteType::Unspec,
            1 => RouteType::Unicast,
            2 => RouteType::Local,
            3 => RouteType::Broadcast,
            4 => RouteType::Anycast,
            5 => RouteType::Multicast,
            6 => RouteType::Blackhole,
            7 => RouteType::Unreachable,
            8 => RouteType::Prohibit,
            9 => RouteType::Throw,
            10 => RouteType::Nat,
            11 => RouteType::Xresolve,
            _ => return None,
        })
    }

    /// `fib_props[type].scope`: the widest scope a route of this type may have.
    pub fn min_scope(self) -> u8 {
        match self {
            RouteType::Local => scope::HOST,
            RouteType::Broadcast | RouteType::Anycast => scope::LINK,
            // RTN_UNSPEC too: a request of no type needs scope nowhere to pass this
            // check, and is then refused as of no valid type (conformance scenario 751)
            RouteType::Unspec | RouteType::Nat | RouteType::Xresolve => scope::NOWHERE,
            _ => scope::UNIVERSE,
        }
    }

    /// `fib_props[type].error`: the lookup error of a reject type.
    pub fn reject_error(self) -> Option<crate::Errno> {
        use crate::Errno::*;
        match self {
            RouteType::Blackhole => Some(EINVAL),
            RouteType::Unreachable => Some(EHOSTUNREACH),
            RouteType::Prohibit => Some(EACCES),
            RouteType::Throw => Some(EAGAIN),
            RouteType::Nat => Some(EINVAL),
            RouteType::Xresolve => Some(EINVAL),
            _ => None,
        }
    }
}

/// Route scopes (`RT_SCOPE_*`).
pub mod scope {
    /// Global.
    pub const UNIVERSE: u8 = 0;
    /// Site (obsolete).
    pub const SITE: u8 = 200;
    /// On the link.
    pub const LINK: u8 = 253;
    /// This host.
    pub const HOST: u8 = 254;
    /// Nowhere.
    pub const NOWHERE: u8 = 255;
}

/// Routing protocol ids (`RTPROT_*`).
pub mod proto {
    /// Unspecified.
    pub const UNSPEC: u8 = 0;
    /// Redirect.
    pub const REDIRECT: u8 = 1;
    /// Kernel.
    pub const KERNEL: u8 = 2;
    /// Boot (iproute2's default).
    pub const BOOT: u8 = 3;
    /// Static.
    pub const STATIC: u8 = 4;
    /// Router advertisement.
    pub const RA: u8 = 9;
}

/// Well-known table ids.
pub mod table {
    /// RT_TABLE_UNSPEC
    pub const UNSPEC: u32 = 0;
    /// RT_TABLE_COMPAT
    pub const COMPAT: u32 = 252;
    /// RT_TABLE_DEFAULT
    pub const DEFAULT: u32 = 253;
    /// RT_TABLE_MAIN
    pub const MAIN: u32 = 254;
    /// RT_TABLE_LOCAL
    pub const LOCAL: u32 = 255;
}

/// Nexthop flags (`RTNH_F_*`).
pub mod nhflags {
    /// Nexthop is dead.
    pub const DEAD: u32 = 1;
    /// Pervasive (unused).
    pub const PERVASIVE: u32 = 2;
    /// Gateway is on link.
    pub const ONLINK: u32 = 4;
    /// Offloaded.
    pub const OFFLOAD: u32 = 8;
    /// Carrier down.
    pub const LINKDOWN: u32 = 16;
    /// fibkit's own bit, never dumped: a path of an IPv4 multipath route that the last
    /// `fib_rebalance()` of its info passed over (dead, or without carrier on a device
    /// that ignored such routes then). The kernel gives such a path an upper bound of
    /// -1 and looks at nothing else when it picks a path, so the choice keeps the
    /// state of that moment until the next rebalance (a route change, or a device
    /// going down, up or losing or finding its carrier).
    pub const SKIP: u32 = 1 << 30;
}

/// Route metrics (`RTAX_*`), kept in attribute order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Metrics {
    /// `(RTAX id, value)` sorted by id; `RTAX_CC_ALGO` is not here.
    pub vals: Vec<(u8, u32)>,
    /// `RTAX_LOCK` bit mask (bit n = metric n locked).
    pub locks: u32,
    /// Congestion control algorithm name (`congctl`).
    pub congctl: Option<String>,
    /// A request's metric attributes that an attribute of the same type after them
    /// overrides (`ip_metrics_convert` keeps the last value of each type), which a
    /// delete still compares one by one (`fib_metrics_match` walks every attribute
    /// of RTA_METRICS). Always empty in a route (`normalize_metrics`).
    pub repeated: Vec<(u8, u32)>,
    /// The same for `RTAX_CC_ALGO`: the names of the request's other `congctl`s.
    pub repeated_cc: Vec<String>,
}

/// RTAX ids.
pub mod rtax {
    /// Lock mask.
    pub const LOCK: u8 = 1;
    /// Path MTU.
    pub const MTU: u8 = 2;
    /// Window.
    pub const WINDOW: u8 = 3;
    /// RTT.
    pub const RTT: u8 = 4;
    /// RTT variance.
    pub const RTTVAR: u8 = 5;
    /// Slow start threshold.
    pub const SSTHRESH: u8 = 6;
    /// Congestion window.
    pub const CWND: u8 = 7;
    /// Advertised MSS.
    pub const ADVMSS: u8 = 8;
    /// Reordering.
    pub const REORDERING: u8 = 9;
    /// Hop limit.
    pub const HOPLIMIT: u8 = 10;
    /// Initial cwnd.
    pub const INITCWND: u8 = 11;
    /// Features.
    pub const FEATURES: u8 = 12;
    /// Minimal RTO.
    pub const RTO_MIN: u8 = 13;
    /// Initial rwnd.
    pub const INITRWND: u8 = 14;
    /// Quick ack.
    pub const QUICKACK: u8 = 15;
    /// Congestion control.
    pub const CC_ALGO: u8 = 16;
    /// TFO without cookie.
    pub const FASTOPEN_NO_COOKIE: u8 = 17;

    /// iproute2's name for a metric id.
    pub fn name(id: u8) -> &'static str {
        match id {
            MTU => "mtu",
            WINDOW => "window",
            RTT => "rtt",
            RTTVAR => "rttvar",
            SSTHRESH => "ssthresh",
            CWND => "cwnd",
            ADVMSS => "advmss",
            REORDERING => "reordering",
            HOPLIMIT => "hoplimit",
            INITCWND => "initcwnd",
            FEATURES => "features",
            RTO_MIN => "rto_min",
            INITRWND => "initrwnd",
            QUICKACK => "quickack",
            CC_ALGO => "congctl",
            FASTOPEN_NO_COOKIE => "fastopen_no_cookie",
            _ => "lock",
        }
    }
}

/// No metrics.
pub static NO_METRICS: Metrics = Metrics {
    vals: Vec::new(),
    locks: 0,
    congctl: None,
    repeated: Vec::new(),
    repeated_cc: Vec::new(),
};

impl Metrics {
    /// The value of one metric.
    pub fn get(&self, id: u8) -> Option<u32> {
        self.vals.iter().find(|(k, _)| *k == id).map(|(_, v)| *v)
    }
    /// Set one metric, keeping the list sorted.
    pub fn set(&mut self, id: u8, v: u32) {
        match self.vals.binary_search_by_key(&id, |(k, _)| *k) {
            Ok(i) => self.vals[i].1 = v,
            Err(i) => self.vals.insert(i, (id, v)),
        }
    }
    /// Whether no metric is set.
    pub fn is_empty(&self) -> bool {
        self.vals.is_empty() && self.locks == 0 && self.congctl.is_none()
    }

    /// `fib_metrics_match`: whether a route with these metrics is what a delete
    /// request naming `req` asks for. Every metric attribute the request carries is
    /// compared, repeated ones too, each with the route's value (0 when it has none):
    /// the lock mask when the request has one, the features without the kernel's own
    /// `ECN_CA` bit, and a `congctl` by its key (`tcp_ca_get_key_by_name`), which is 0
    /// for a name the kernel does not know, as it is for a route without `congctl`.
    pub fn matches_request(&self, req: &Metrics) -> bool {
        const ECN_CA: u32 = 1 << 31;
        if req.locks != 0 && req.locks != self.locks {
            return false;
        }
        let vals_ok = req.vals.iter().chain(&req.repeated).all(|&(id, v)| {
            let mine = self.get(id).unwrap_or(0);
            let mine = if id == rtax::FEATURES {
                mine & !ECN_CA
            } else {
                mine
            };
            mine == v
        });
        vals_ok
            && req
                .congctl
                .iter()
                .chain(&req.repeated_cc)
                .all(|c| match congctl_key(c) {
                    Some(k) => self.congctl.as_deref().and_then(congctl_key) == Some(k),
                    None => self.congctl.is_none(),
                })
    }
}

/// A gateway address of either family (IPv4 routes may use an IPv6 gateway).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gateway {
    /// IPv4 gateway.
    V4(u32),
    /// IPv6 gateway.
    V6(u128),
}

/// One IPv4 nexthop (`struct fib_nh`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Nh4 {
    /// Gateway, if any.
    pub gw: Option<Gateway>,
    /// Output device (0: none).
    pub dev: u32,
    /// Weight, 1..=256.
    pub weight: u32,
    /// `RTNH_F_*` flags.
    pub flags: u32,
    /// Nexthop scope (`fib_nh_scope`).
    pub scope: u8,
    /// Realm (`nh_tclassid`), kept for matching only.
    pub realm: u32,
    /// Its encapsulation (`encap ...`), if any.
    pub encap: Option<std::sync::Arc<crate::encap::Encap>>,
    /// The source address the kernel remembers for it (`nh_saddr`).
    pub saddr: SaddrCache,
}

/// An IPv4 nexthop's remembered source address (`nh_saddr` with `nh_saddr_genid`):
/// `fib_result_prefsrc` answers with it while no IPv4 address was added or deleted
/// and no device with IPv4 state came up since it was chosen (`dev_addr_genid`), and
/// chooses again (`inet_select_addr`) otherwise. A change that moves the choice
/// without an address event, such as `route_localnet`, is therefore not seen by a
/// nexthop whose remembered address is still current (conformance scenario 452).
///
/// Written by lookups through a shared reference (the kernel writes it on its lookup
/// path too), so it is an atomic word; it takes no part in comparisons of nexthops
/// (equal infos share one allocation, `fib_find_info`, whatever they remember).
#[derive(Default)]
pub struct SaddrCache {
    /// The address generation it was chosen at (high half; 0: never chosen) and the
    /// address (low half), in one word so that no reader sees one without the other.
    word: std::sync::atomic::AtomicU64,
}

impl SaddrCache {
    /// The remembered address, when it was chosen at generation `genid` (never 0).
    pub fn get(&self, genid: u32) -> Option<u32> {
        let w = self.word.load(std::sync::atomic::Ordering::Relaxed);
        ((w >> 32) as u32 == genid).then_some(w as u32)
    }

    /// The remembered address whatever generation it was chosen at (0: never chosen):
    /// what `fib_select_multipath` compares with the flow's source, reading `nh_saddr`
    /// without looking at `nh_saddr_genid`.
    pub fn last(&self) -> u32 {
        self.word.load(std::sync::atomic::Ordering::Relaxed) as u32
    }

    /// Remember `saddr`, chosen at generation `genid`.
    pub fn set(&self, saddr: u32, genid: u32) {
        let w = (u64::from(genid) << 32) | u64::from(saddr);
        self.word.store(w, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for SaddrCache {
    fn clone(&self) -> Self {
        let w = self.word.load(std::sync::atomic::Ordering::Relaxed);
        SaddrCache {
            word: std::sync::atomic::AtomicU64::new(w),
        }
    }
}

impl PartialEq for SaddrCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for SaddrCache {}

impl std::hash::Hash for SaddrCache {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl std::fmt::Debug for SaddrCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SaddrCache")
    }
}

/// The shared part of an IPv4 route (`struct fib_info`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fib4Info {
    /// Protocol (`RTPROT_*`).
    pub proto: u8,
    /// Route scope.
    pub scope: u8,
    /// Priority (metric).
    pub priority: u32,
    /// Preferred source (0: none).
    pub prefsrc: u32,
    /// Route type the info was created for.
    pub rtype: RouteType,
    /// `RTNH_F_DEAD`/`RTNH_F_LINKDOWN` summary flags and the request's `RTNH_F_ONLINK`.
    pub flags: u32,
    /// Metrics.
    pub metrics: Metrics,
    /// Nexthop object id (0: classic nexthops).
    pub nh_id: u32,
    /// Classic nexthops (one unless multipath; none for reject routes has one empty),
    /// held inline when there is one (no allocation for the usual route).
    pub nhs: smallvec::SmallVec<[Nh4; 1]>,
}

/// One IPv4 route entry (`struct fib_alias` with its info).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route4 {
    /// Destination prefix.
    pub dst: Prefix4,
    /// TOS (dsfield) the route matches; 0 = any.
    pub tos: u8,
    /// Route type.
    pub rtype: RouteType,
    /// Table id.
    pub table: u32,
    /// The fib_info, shared by the routes whose infos are equal (like the kernel's
    /// `fib_find_info`): most of a route's size, held once per distinct info.
    pub info: std::sync::Arc<Fib4Info>,
    /// What lookups leave on the entry: which of its table's default routes of equal
    /// metric they chose last, when it is the first of them (`fa_default`), and
    /// whether one has seen it (`FA_S_ACCESSED`).
    pub fa_state: FaState,
}

/// What lookups leave on a route entry, written through a shared reference like the
/// kernel's fields; takes no part in comparisons of routes. Held in 16 bits, in the
/// room the route's layout leaves:
///
/// - `fa_default`: `fib_select_default` turns from one default route to the next of
///   equal metric whose gateway's neighbour entry is not reachable, and keeps the
///   position of the one it chose in the first of them, so that the next lookup goes
///   on from there (conformance scenario 454). -1 for a new route (and for a
///   replacement); 15 bits (a table would need more than 32,766 default routes of one
///   metric to tell).
/// - `FA_S_ACCESSED` (the top bit): a lookup found the entry (`fib_table_lookup` marks
///   every entry it gets past the TOS and scope checks of; lookups through published
///   snapshots do too, not those that compile them). Deleting or replacing an entry
///   flushes the route cache only if it is set (conformance scenario 481).
pub struct FaState(std::sync::atomic::AtomicU16);

const FA_S_ACCESSED: u16 = 0x8000;

impl FaState {
    /// The default-route position remembered (-1: none).
    pub fn default_get(&self) -> i32 {
        i32::from(self.0.load(std::sync::atomic::Ordering::Relaxed) & !FA_S_ACCESSED) - 1
    }

    /// Remember default-route position `v`.
    pub fn default_set(&self, v: i32) {
        let enc = (v.clamp(-1, i32::from(!FA_S_ACCESSED) - 1) + 1) as u16;
        let _ = self.0.fetch_update(
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
            |old| Some((old & FA_S_ACCESSED) | enc),
        );
    }

    /// Whether a lookup found the entry.
    pub fn accessed(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed) & FA_S_ACCESSED != 0
    }

    /// `fib_alias_accessed`: a lookup found the entry (written once).
    pub fn mark_accessed(&self) {
        if !self.accessed() {
            self.0
                .fetch_or(FA_S_ACCESSED, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Default for FaState {
    fn default() -> Self {
        FaState(std::sync::atomic::AtomicU16::new(0))
    }
}

impl Clone for FaState {
    fn clone(&self) -> Self {
        FaState(std::sync::atomic::AtomicU16::new(
            self.0.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }
}

impl std::fmt::Debug for FaState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaState")
            .field("default", &self.default_get())
            .field("accessed", &self.accessed())
            .finish()
    }
}

impl PartialEq for FaState {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for FaState {}

/// Whether the namespace's IPv4 lookups leave [`FaState`]'s `FA_S_ACCESSED` mark: not
/// while a snapshot is being compiled (its lookups of every prefix are not a packet's),
/// see [`QuietLookups::hush`].
#[derive(Default)]
pub struct QuietLookups(std::sync::atomic::AtomicBool);

impl QuietLookups {
    /// Whether lookups leave no mark now.
    pub fn on(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Lookups leave no mark until the guard is dropped.
    pub fn hush(&self) -> QuietGuard<'_> {
        let was = self.0.swap(true, std::sync::atomic::Ordering::Relaxed);
        QuietGuard { q: self, was }
    }
}

/// See [`QuietLookups::hush`].
pub struct QuietGuard<'a> {
    q: &'a QuietLookups,
    was: bool,
}

impl Drop for QuietGuard<'_> {
    fn drop(&mut self) {
        self.q
            .0
            .store(self.was, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for QuietLookups {
    fn clone(&self) -> Self {
        QuietLookups(std::sync::atomic::AtomicBool::new(self.on()))
    }
}

impl std::fmt::Debug for QuietLookups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "QuietLookups({})", self.on())
    }
}

/// The IPv6 route `RTF_*` flags fibkit keeps.
pub mod rtf {
    /// Route uses a gateway.
    pub const GATEWAY: u32 = 0x0002;
    /// Host route.
    pub const HOST: u32 = 0x0004;
    /// Dynamic (redirect).
    pub const DYNAMIC: u32 = 0x0010;
    /// Modified.
    pub const MODIFIED: u32 = 0x0020;
    /// Reject route.
    pub const REJECT: u32 = 0x0200;
    /// Default route from RA.
    pub const DEFAULT: u32 = 0x0001_0000;
    /// Added by address autoconfiguration.
    pub const ADDRCONF: u32 = 0x0004_0000;
    /// Prefix route.
    pub const PREFIX_RT: u32 = 0x0008_0000;
    /// Anycast route.
    pub const ANYCAST: u32 = 0x0010_0000;
    /// No nexthop (connected).
    pub const NONEXTHOP: u32 = 0x0020_0000;
    /// Expires.
    pub const EXPIRES: u32 = 0x0040_0000;
    /// Route info.
    pub const ROUTEINFO: u32 = 0x0080_0000;
    /// Cached (exception) route.
    pub const CACHE: u32 = 0x0100_0000;
    /// Flow.
    pub const FLOW: u32 = 0x0200_0000;
    /// Policy.
    pub const POLICY: u32 = 0x0400_0000;
    /// Local route.
    pub const LOCAL: u32 = 0x8000_0000;
}

/// IPv6 router preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pref {
    /// low (ICMPV6_ROUTER_PREF_LOW = 3)
    Low,
    /// medium (0)
    Medium,
    /// high (1)
    High,
}

impl Pref {
    /// The score rt6_score_route gives the preference (low 1, medium 2, high 3).
    pub fn score(self) -> i32 {
        match self {
            Pref::Low => 1,
            Pref::Medium => 2,
            Pref::High => 3,
        }
    }
    /// iproute2's word.
    pub fn name(self) -> &'static str {
        match self {
            Pref::Low => "low",
            Pref::Medium => "medium",
            Pref::High => "high",
        }
    }
}

/// One IPv6 nexthop (`struct fib6_nh`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Nh6 {
    /// Gateway, if any.
    pub gw: Option<u128>,
    /// Device (for reject routes: lo).
    pub dev: u32,
    /// Weight, 1..=256.
    pub weight: u32,
    /// `RTNH_F_*` flags.
    pub flags: u32,
    /// Its encapsulation (`encap ...`), if any.
    pub encap: Option<std::sync::Arc<crate::encap::Encap>>,
}

/// One IPv6 route (`struct fib6_info`); ECMP legs are separate entries linked as siblings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route6 {
    /// Destination prefix.
    pub dst: Prefix6,
    /// Source prefix (source-specific routing), `::/0` if none.
    pub src: Prefix6,
    /// Route type.
    pub rtype: RouteType,
    /// Table id.
    pub table: u32,
    /// Protocol.
    pub proto: u8,
    /// Metric (priority).
    pub metric: u32,
    /// Router preference.
    pub pref: Pref,
    /// Preferred source, if set.
    pub prefsrc: Option<u128>,
    /// `RTF_*` flags.
    pub flags: u32,
    /// Metrics.
    pub metrics: Metrics,
    /// Expiry time (absolute, on the engine's millisecond clock), if any.
    pub expires: Option<u64>,
    /// The nexthop.
    pub nh: Nh6,
    /// Nexthop object id (0: none).
    pub nh_id: u32,
    /// Sibling group id: entries with the same non-zero id form one ECMP route.
    pub sibling_group: u64,
    /// While the route's nexthop object is a blackhole the route is one too; this is
    /// then its own type, which comes back if the object is replaced by another kind.
    pub nh_own_type: Option<RouteType>,
    /// Which route this is, for the radix tree's leaf pointers ([`crate::fib6tree`]);
    /// never part of a comparison.
    pub serial: RouteSerial,
}

/// A number telling one route apart from every other the process made (the kernel's
/// `fib6_info` pointer). Any two compare equal, and it is left out of the debug text:
/// routes are compared, and their text written, by what they say.
#[derive(Clone, Copy, Default)]
pub struct RouteSerial(pub u64);

impl std::fmt::Debug for RouteSerial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("_")
    }
}

impl RouteSerial {
    /// A serial no route had before.
    pub fn next() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        RouteSerial(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl PartialEq for RouteSerial {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for RouteSerial {}

/// `ip_fib_metrics_init`: zero values are dropped, the MTU is capped at 65520 and the
/// advertised MSS at 65495.
pub fn normalize_metrics(m: &Metrics) -> Metrics {
    let mut out = m.clone();
    out.repeated.clear();
    out.repeated_cc.clear();
    out.vals.retain(|(_, v)| *v != 0);
    for (k, v) in out.vals.iter_mut() {
        if *k == rtax::MTU && *v > 65520 {
            *v = 65520;
        }
        if *k == rtax::ADVMSS && *v > 65495 {
            *v = 65495;
        }
    }
    out
}

/// The TCP congestion control algorithms the modelled kernel has registered (its
/// `tcp_available_congestion_control`; it has no modules to load others from).
pub const TCP_CONGESTION_ALGORITHMS: [&str; 3] = ["reno", "cubic", "bbr"];

/// Whether the modelled kernel knows the congestion control algorithm `name`
/// (`tcp_ca_get_key_by_name` on the name cut to `TCP_CA_NAME_MAX - 1` bytes).
pub fn congctl_known(name: &str) -> bool {
    congctl_key(name).is_some()
}

/// `tcp_ca_get_key_by_name`: the registered algorithm `name` stands for (the name cut
/// to `TCP_CA_NAME_MAX - 1` bytes), `None` for `TCP_CA_UNSPEC`.
pub fn congctl_key(name: &str) -> Option<&'static str> {
    let b = name.as_bytes();
    let name = &b[..b.len().min(15)];
    TCP_CONGESTION_ALGORITHMS
        .iter()
        .copied()
        .find(|a| a.as_bytes() == name)
}

/// The refusals of `ip_metrics_convert`: an algorithm the kernel does not know
/// (`tcp_ca_get_key_by_name` on the name cut to `TCP_CA_NAME_MAX - 1` bytes) and a
/// hop limit above 255, both EINVAL.
pub fn metrics_check(m: &Metrics) -> crate::error::Result<()> {
    use crate::error::{Errno, Error};
    if let Some(cc) = &m.congctl {
        if !congctl_known(cc) {
            return Err(Error::msg(
                Errno::EINVAL,
                "Unknown tcp congestion algorithm",
            ));
        }
    }
    if m.get(rtax::HOPLIMIT).is_some_and(|h| h > 255) {
        return Err(Error::msg(Errno::EINVAL, "Invalid hoplimit"));
    }
    Ok(())
}

#[cfg(all(test, target_pointer_width = "64"))]
mod layout {
    /// A route entry stays three words: its `fa_state` lives in the room the other
    /// fields leave (a full table holds a million of them).
    #[test]
    fn route4_is_three_words() {
        assert_eq!(std::mem::size_of::<super::Route4>(), 24);
    }
}
