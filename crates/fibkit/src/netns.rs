//! The control plane of one network namespace: links, addresses, tables, rules, sysctls.
//!
//! Every mutating method validates its request the way the kernel does and either applies
//! it completely or returns the kernel's errno and extack message with nothing changed.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::addr::{Addr4, Addr6};
use crate::error::{Errno, Error, Result};
use crate::link::{Link, LinkKind};
use crate::route::table as tid;
use crate::rule::{Rule, RuleAction};
use crate::sysctl::Sysctls;
use crate::table::{Table4, Table6};

/// `IPV6_MIN_MTU`: a device with a smaller MTU has no IPv6 state.
pub(crate) const IPV6_MIN_MTU: u32 = 1280;

/// Neighbour states (`NUD_*`) that matter for route selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NudState {
    /// NUD_INCOMPLETE
    Incomplete,
    /// NUD_REACHABLE
    Reachable,
    /// NUD_STALE
    Stale,
    /// NUD_DELAY
    Delay,
    /// NUD_PROBE
    Probe,
    /// NUD_FAILED
    Failed,
    /// NUD_NOARP
    Noarp,
    /// NUD_PERMANENT
    Permanent,
    /// NUD_NONE
    None,
}

impl NudState {
    /// Whether the state is in `NUD_VALID`.
    pub fn valid(self) -> bool {
        matches!(
            self,
            NudState::Reachable
                | NudState::Stale
                | NudState::Delay
                | NudState::Probe
                | NudState::Noarp
                | NudState::Permanent
        )
    }
}

/// A neighbour entry's timer (`neigh->timer`, run by `neigh_timer_handler`) as far as
/// the model follows it: the resolution that fails for want of answers (no packet
/// reaches a model) and the delay before probing. A reachable entry's timer, which
/// turns it stale after a random `reachable_time`, is followed only when the entry
/// was confirmed so long ago that the timer fires at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NeighTimer {
    /// DELAY since this time (ms): probed (or reachable again, if confirmed within the
    /// delay) once `delay_first_probe_time` has passed.
    Delay(u64),
    /// PROBE since this time, no probe counted: FAILED once `neigh_max_probes`
    /// (unicast, application and multicast re-probes) have gone unanswered, one per
    /// `retrans_time`.
    Probe(u64),
    /// INCOMPLETE since this time by `neigh_event_send`, which counts the unicast
    /// probes as sent and sends one: FAILED after the application and multicast
    /// probes, one per `retrans_time`.
    Incomplete(u64),
    /// REACHABLE, its reachable time over at this time: followed only when that is
    /// sure whatever the random `reachable_time` (see [`Netns::neigh_reachable_timer`]).
    Reachable(u64),
    /// INCOMPLETE by `__neigh_set_probe_once` (a router probe of a failed entry), its
    /// probes already at the most: FAILED at this time, one `retrans_time` later.
    Once(u64),
}

/// A device's neighbour parameters the timers use (`NEIGH_VAR`), in ms and counts.
struct NeighParams {
    ucast: u64,
    app: u64,
    mcast: u64,
    mcast_re: u64,
    retrans_ms: u64,
    delay_ms: u64,
    /// `base_reachable_time`: a new entry (and one given a new address in a state
    /// that is not connected) counts as confirmed twice this long ago.
    base_reach_ms: u64,
}

/// A neighbour entry's times (`neigh->used`, `confirmed`, `updated`, on the
/// millisecond clock) and its probe count (`neigh->probes`) as of the last event; a
/// running INCOMPLETE or PROBE timer adds the probes it sent since
/// ([`Netns::neigh_cacheinfo`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NeighStamps {
    used: u64,
    confirmed: u64,
    updated: u64,
    probes: u64,
}

/// What `neigh_fill_info` reports of an entry with its statistics (`ip -s neigh`):
/// `NDA_CACHEINFO`'s ages in clock ticks (`USER_HZ`, hundredths of a second) and
/// references beside the table's, and `NDA_PROBES`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeighCacheInfo {
    /// `ndm_used`: since the entry was last used (made, resolved, or confirmed by a
    /// timer started after its confirmation).
    pub used: u64,
    /// `ndm_confirmed`: since the entry was last confirmed.
    pub confirmed: u64,
    /// `ndm_updated`: since the entry's state or address last changed.
    pub updated: u64,
    /// `ndm_refcnt`: the references held beside the table's (a running timer's).
    pub refcnt: u32,
    /// `NDA_PROBES`: the solicitations counted.
    pub probes: u32,
}

/// `HZ` of the kernel modelled (`CONFIG_HZ=250`): the neighbour timers count jiffies.
const NEIGH_JIFFY_MS: u64 = 4;

/// A neighbour entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Neighbour {
    /// Device.
    pub dev: u32,
    /// Address (IPv4 in the low 32 bits).
    pub addr: u128,
    /// Whether the address is IPv6.
    pub v6: bool,
    /// State.
    pub state: NudState,
    /// Link-layer address, if given.
    pub lladdr: Option<[u8; 6]>,
    /// `NTF_ROUTER` and `NTF_EXT_LEARNED` (see [`ntf`]): an administrative update sets
    /// them to what it gives.
    pub flags: u8,
    /// `managed` (`NTF_EXT_MANAGED`): the kernel keeps the entry resolved.
    pub managed: bool,
    /// `NDA_PROTOCOL` (0: none; an update without one keeps the entry's).
    pub protocol: u8,
}

/// Neighbour flags (`NTF_*`): the two fibkit keeps on entries, and the one that marks
/// a proxy entry in netlink messages.
pub mod ntf {
    /// `NTF_PROXY`: a proxy (`pneigh`) entry.
    pub const PROXY: u8 = 0x08;
    /// `router`.
    pub const ROUTER: u8 = 0x80;
    /// `extern_learn`.
    pub const EXT_LEARNED: u8 = 0x10;
}

/// A proxy neighbour entry (`ip neigh add proxy ADDR dev DEV`; the kernel's
/// `pneigh_entry`): the device answers ARP/ND for the address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProxyNeighbour {
    /// Device.
    pub dev: u32,
    /// Address (IPv4 in the low 32 bits).
    pub addr: u128,
    /// Whether the address is IPv6.
    pub v6: bool,
    /// The `NTF_*` flags of the last add (`router`, `extern_learn`).
    pub flags: u8,
    /// `NDA_PROTOCOL` (0: none; an add without one keeps the entry's).
    pub protocol: u8,
    /// Creation order (a new entry goes to the head of its hash bucket).
    seq: u64,
}

impl ProxyNeighbour {
    /// `pneigh_hash`: the key's last four bytes, read in host (little-endian) order,
    /// folded to 4 bits.
    fn bucket(&self) -> u32 {
        let mut h = (self.addr as u32).swap_bytes();
        h ^= h >> 16;
        h ^= h >> 8;
        h ^= h >> 4;
        h & 0xf
    }
}

/// Key of a remembered IPv4 nexthop validation: (gateway, device, flags, table, route
/// scope).
pub(crate) type NhKey = (u32, u32, u32, u32, u8);
/// A remembered validation's outcome: (device, nexthop scope, flags).
pub(crate) type NhChecked = (u32, u8, u32);
/// Key of a remembered IPv6 gateway validation: (gateway, device given or 0, nexthop
/// flags, table).
pub(crate) type Nh6Key = (u128, u32, u32, u32);
/// Most IPv6 gateway validations remembered at once.
pub(crate) const NH6_CACHE_MAX: usize = 32;

/// An IPv6 address's pending DAD work: when it runs (on the millisecond clock), and
/// whether it begins DAD (`INET6_IFADDR_STATE_PREDAD`, after a restart:
/// `addrconf_dad_begin` probes a tentative address that still needs it and completes
/// any other at once) or goes on with it (`addrconf_dad_work`: a Neighbour
/// Solicitation while probes are left, each re-arming the work `retrans_time` later;
/// with none left the address is announced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DadRun {
    pub(crate) at: u64,
    pub(crate) begin: bool,
    /// The Neighbour Solicitations still to send (`ifp->dad_probes`), the next at
    /// `at`, each at the latest time the kernel could send it ([`Netns::dad_probe`]).
    pub(crate) left: u64,
}

/// One Linux network namespace's routing state.
#[derive(Clone, Debug)]
pub struct Netns {
    pub(crate) links: BTreeMap<u32, Link>,
    pub(crate) last_ifindex: u32,
    pub(crate) mac_counter: u32,
    pub(crate) addrs4: BTreeMap<u32, Vec<Addr4>>,
    pub(crate) addrs6: BTreeMap<u32, Vec<Addr6>>,
    /// IPv6 `IF_READY` devices.
    pub(crate) v6_ready: BTreeSet<u32>,
    /// IPv6 anycast addresses joined (subnet-router anycast), per device.
    pub(crate) anycast6: BTreeMap<u32, Vec<u128>>,
    /// Multicast memberships per device (see [`crate::mcast`]).
    pub(crate) mcast: BTreeMap<u32, crate::mcast::DevMcast>,
    /// The (device, group) pairs the autojoin socket joined for IPv4 addresses added
    /// with `autojoin` (`ip_mc_autojoin_config`).
    pub(crate) mc_autojoin4: BTreeSet<(u32, u32)>,
    /// The same for IPv6 (`ipv6_mc_config`).
    pub(crate) mc_autojoin6: BTreeSet<(u32, u128)>,
    /// IPv6 membership reports held while `addrconf_ifdown` runs ([`crate::mcast`]):
    /// `Some` collects the leaves it makes, sent or dropped at its end.
    pub(crate) mld_held: Option<Vec<(u32, u128)>>,
    /// Leave reports of a device that went down before it was ready: sent after its
    /// neighbours were flushed, as the kernel's work sends them later.
    pub(crate) mld_late: Vec<(u32, u128)>,
    /// IPv4 membership reports held for the end of an address deletion (the kernel's
    /// timer sends them after the deletion's ARP flush).
    pub(crate) igmp_held: Option<Vec<(u32, u32)>>,
    /// The lower devices that carry macvlans (see [`crate::macvlan`]).
    pub(crate) macvlan_ports: BTreeMap<u32, crate::macvlan::MacvlanPort>,
    /// Bridges' own settings, by ifindex (a bridge never changed has none: the
    /// defaults, see [`crate::bridge`]).
    pub(crate) bridges: BTreeMap<u32, crate::bridge::BridgeConf>,
    /// Bridge ports' settings and spanning tree states, by ifindex.
    pub(crate) br_ports: BTreeMap<u32, crate::bridge::BridgePort>,
    /// Bridges' local forwarding entries, newest first (see [`crate::fdb`]).
    pub(crate) fdb: BTreeMap<u32, Vec<crate::fdb::FdbLocal>>,
    /// Devices' unicast address lists (`dev->uc`).
    pub(crate) uc: BTreeMap<u32, Vec<crate::fdb::UcAddr>>,
    /// VXLAN devices' default forwarding entries.
    pub(crate) vx_fdb: BTreeMap<u32, crate::fdb::VxlanDefault>,
    /// The link watch's NETDEV_CHANGE events held back while one request changes
    /// several devices (see [`Netns::hold_link_watch`]), in the order they came.
    pub(crate) held_link_watch: Option<Vec<u32>>,
    /// Per IPv6 sibling group: each device's `ignore_routes_with_linkdown` as it was at
    /// the group's last rebalance (`rt6_multipath_rebalance`), which the kernel's
    /// stored upper bounds reflect until the next one.
    pub(crate) lb_ignore6: BTreeMap<u64, BTreeMap<u32, bool>>,
    pub(crate) tables4: BTreeMap<u32, Table4>,
    pub(crate) tables6: BTreeMap<u32, Table6>,
    pub(crate) rules4: Vec<Rule>,
    pub(crate) rules6: Vec<Rule>,
    /// The multicast routing rules (`ip mrule`: `RTNL_FAMILY_IPMR`, `RTNL_FAMILY_IP6MR`).
    /// fibkit routes no multicast, so they are only kept and listed.
    pub(crate) mrules4: Vec<Rule>,
    pub(crate) mrules6: Vec<Rule>,
    /// The IPv6 address label table (`ip addrlabel`).
    pub(crate) addrlabels: Vec<crate::addrlabel::AddrLabel>,
    /// The SRv6 tunnel source (`ip sr tunsrc`: `seg6_pernet_data.tun_src`), `::` until
    /// set.
    pub(crate) seg6_tunsrc: u128,
    /// IOAM namespaces and schemas (`ip ioam`).
    pub(crate) ioam: crate::ioam::Ioam,
    /// The MPTCP path manager's endpoints and limits (`ip mptcp`).
    pub(crate) mptcp: crate::mptcp::Mptcp,
    /// The IPsec security policy database (`ip xfrm policy`).
    pub(crate) xfrm: crate::xfrm::Xfrm,
    /// The rules compiled for the walk (rebuilt on every rule change).
    pub(crate) prog4: Vec<crate::rule::CompiledRule>,
    pub(crate) prog6: Vec<crate::rule::CompiledRule>,
    pub(crate) custom_rules4: bool,
    pub(crate) custom_rules6: bool,
    /// `net->ipv4.fib_rules_require_fldissect`: counts the IPv4 rules added with a
    /// protocol or port selector and an input device other than lo
    /// (`fib4_rule_configure`), less those deleted that fit that test then; while 0, an
    /// input route hands `fib_lookup` and `fib_validate_source` no protocol or ports.
    pub(crate) fldissect4: u32,
    /// A `local` route was added by a user (`fib_has_custom_local_routes`).
    pub(crate) custom_local_routes4: bool,
    /// An IPv4 route or rule with realms was ever added: [`Netns::tclassid_users4`]
    /// has to look.
    pub(crate) realms4_seen: bool,
    /// Whether an IPv4 route or rule has realms, as of the last index compile.
    tclassid4: bool,
    pub(crate) neigh: Vec<Neighbour>,
    /// Proxy neighbour entries, in creation order.
    pub(crate) proxies: Vec<ProxyNeighbour>,
    proxy_seq: u64,
    /// Nexthop objects, by id.
    pub(crate) nexthops: BTreeMap<u32, crate::nexthop::Nexthop>,
    /// The last id picked for a nexthop added without one (`last_id_allocated`).
    pub(crate) nh_last_id: u32,
    pub(crate) sibling_seq: u64,
    pub(crate) table_seq: u64,
    /// Counts devices registered ([`Link::registered`]).
    pub(crate) link_reg_seq: u64,
    /// Current time in seconds (passed in by the caller; used for `expires`).
    pub(crate) now: u64,
    /// When the IPv6 routes' garbage collector runs next (`ip6_fib_timer`, engine
    /// millisecond clock; `None`: not armed).
    pub(crate) gc6_due: Option<u64>,
    /// The IPv6 addresses' pending DAD work (`ifp->dad_work`), by (device, address):
    /// see [`DadRun`].
    pub(crate) dad_due: BTreeMap<(u32, u128), DadRun>,
    /// The device a request brings up while changing its `NOARP` (set only during
    /// that request's `NETDEV_UP`): the restart its `NETDEV_CHANGE` makes delays the
    /// DAD runs `NETDEV_UP` queues (see [`Netns::addrconf_dad_start`]).
    pub(crate) dad_restart_pending: Option<u32>,
    /// The clock of resilient nexthop groups, in ms: moves with [`Netns::set_now`],
    /// and by 1 ms per command ([`Netns::tick`]) so that commands keep their order.
    pub(crate) ms_clock: u64,
    /// The earliest check due in a resilient group (`u64::MAX`: none).
    pub(crate) res_next_due: u64,
    /// When the IPv6 addresses' lifetime check runs next (`addr_chk_work`, on the
    /// millisecond clock; `None`: never armed): see [`Netns::addrconf_verify6`].
    pub(crate) addr6_chk_due: Option<u64>,
    /// When each IPv6 address's lifetimes were last set (`ifp->tstamp`), on the
    /// millisecond clock, by (device, address).
    pub(crate) addr6_set_ms: HashMap<(u32, u128), u64>,
    /// Each neighbour entry's times and probe count (see [`NeighStamps`]), by
    /// (device, address, v6): set when the entry is made.
    pub(crate) neigh_stamps: HashMap<(u32, u128, bool), NeighStamps>,
    /// The neighbour timers the model follows, by (device, address, v6).
    pub(crate) neigh_timers: HashMap<(u32, u128, bool), NeighTimer>,
    /// When each IPv6 nexthop last probed its router (`fib6_nh->last_probe`, ms), see
    /// [`crate::rt6probe`]: a nexthop object's from when it was made, a route's own
    /// from its first probe (before, when it was added: [`Netns::rt6_born`]).
    pub(crate) rt6_last_probe: HashMap<crate::rt6probe::ProbeKey, u64>,
    /// When the IPv6 routes with a gateway were added, as (first serial, ms) of each
    /// millisecond that added some: their nexthops' first `last_probe`.
    pub(crate) rt6_born: Vec<(u64, u64)>,
    /// The part of a second the scenario's sleeps have added beyond whole seconds.
    pub(crate) sleep_rem_ms: u64,
    /// Counts nexthop objects made (creation or replacement): the kernel's per-device
    /// list of objects holds the newest first.
    pub(crate) nh_dev_seq: u64,
    /// Counts IPv4 addresses added ([`crate::addr::Addr4::hashed`]).
    pub(crate) addr4_seq: u64,
    /// Generation counter, bumped by every change.
    pub(crate) generation: u64,
    /// The IPv4 route cache's generation (`rt_genid_ipv4`, see [`crate::rtcache`]).
    pub(crate) rt_genid4: u64,
    /// `dev_addr_genid`: advanced when an IPv4 address is added or deleted and when a
    /// device with IPv4 state comes up; the nexthops' remembered source addresses
    /// ([`crate::route::SaddrCache`]) of another generation are chosen again. A 32-bit
    /// count, as the kernel's, that skips 0 (a cache of generation 0 was never filled):
    /// see [`Netns::dev_addr_event4`].
    pub(crate) dev_addr_genid4: u32,
    /// The IPv4 input routes the nexthops cache (`nhc_rth_input`), as of
    /// `in_cache4_gen` (see [`crate::rtcache`]).
    pub(crate) in_cache4: Vec<crate::rtcache::InputCached>,
    pub(crate) in_cache4_gen: u64,
    /// The IPv4 output routes the nexthops cache (`nhc_pcpu_rth_output`, taken as
    /// one CPU's), valid while `out_cache4_gen` is the route cache's generation: see
    /// [`Netns::route_get4_output_cache`].
    pub(crate) out_cache4: Vec<crate::rtcache::OutputCached>,
    pub(crate) out_cache4_gen: u64,
    /// The IPv6 FIB's serial number (`fib6_sernum`) and the route copies of the
    /// nexthop objects (see [`crate::pcpu6`]).
    pub(crate) fib6_sernum: u64,
    pub(crate) pcpu6: Vec<crate::pcpu6::Pcpu6>,
    /// The preference the copy of each IPv6 route without an object was made with,
    /// by the route's serial (see [`crate::pcpu6`]).
    pub(crate) pcpu6_legs: rustc_hash::FxHashMap<u64, crate::pcpu6::LegCopy6>,
    /// The notification an IPv6 multipath add sent for the legs it inserted before a
    /// later leg failed (and the legs were taken out again): what `ip -echo` prints
    /// (see [`Netns::take_mpath_partial_echo`]).
    pub(crate) mpath_partial_echo: Option<Vec<crate::route::Route6>>,
    /// Inside [`Netns::bulk`]: index compilation is deferred to its end.
    pub(crate) deferring: bool,
    /// [`Netns::set_restore_mode`].
    pub(crate) restore_mode: bool,
    /// Counts changes that are not plain route changes (links, addresses, rules,
    /// sysctls, neighbours): compiled answers must then be rebuilt whole.
    pub(crate) global_epoch: u64,
    /// Set by the route change entry points so that [`Netns::bump`] does not count them
    /// as global changes.
    pub(crate) route_only: bool,
    /// Inside [`Netns::bulk`]: IPv4 nexthop validations already done, keyed by
    /// (gateway, device, flags, table, route scope). Cleared whenever a route that gateway
    /// validation can see (scope link or host) or anything global changes. A fast hash:
    /// a handful of keys, looked up once per route.
    pub(crate) nh_cache: rustc_hash::FxHashMap<NhKey, Result<NhChecked>>,
    /// Inside [`Netns::bulk`]: IPv6 gateway validations already done (the device they
    /// resolved to). The validation looks the gateway up in the route's table and
    /// through the rules, so a route change forgets the gateways its destination
    /// covers; anything global forgets them all.
    /// A short list searched in order (a handful of gateways; at most
    /// [`NH6_CACHE_MAX`] kept).
    pub(crate) nh6_cache: Vec<(Nh6Key, Result<u32>)>,
    /// The last distinct IPv4 route infos created, for new routes to share.
    pub(crate) info4_pool: crate::fib4::InfoPool4,
    /// The live IPv4 route infos through nexthop objects, newest last, for a new
    /// route without metrics to share (see [`crate::fib4::NhInfos4`]).
    pub(crate) nh_infos4: crate::fib4::NhInfos4,
    /// Set while a snapshot is compiled: its lookups leave no `FA_S_ACCESSED` mark.
    pub(crate) quiet: crate::route::QuietLookups,
    /// Sysctls. After changing them directly, call [`Netns::sysctls_changed`] (a
    /// [`Fib`](crate::fib::Fib) writer also notices the change when it publishes).
    pub sysctl: Sysctls,
    /// The kernel build options answers depend on.
    pub kernel: crate::kconfig::KernelConfig,
}

impl Default for Netns {
    fn default() -> Self {
        Netns::new()
    }
}

/// Options of a new link.
#[derive(Clone, Debug, Default)]
pub struct LinkAdd {
    /// Name.
    pub name: String,
    /// Kind (`Dummy` or `Veth`).
    pub kind: Option<LinkKind>,
    /// Peer name for veth.
    pub peer: Option<String>,
    /// Explicit MAC address.
    pub mac: Option<[u8; 6]>,
    /// Explicit MTU.
    pub mtu: Option<u32>,
    /// Explicit group.
    pub group: Option<u32>,
    /// Bring up at creation (`up`).
    pub up: bool,
    /// Explicit transmit queue length (`txqueuelen`).
    pub txqlen: Option<u32>,
    /// A veth peer's own attributes (`peer ... mtu M address A txqueuelen Q`).
    pub peer_mtu: Option<u32>,
    /// The peer's explicit MAC address.
    pub peer_mac: Option<[u8; 6]>,
    /// The peer's explicit queue length.
    pub peer_txqlen: Option<u32>,
    /// Interface flags asked for (`arp off`, `promisc on`, ...): the bits of
    /// `flags_mask` (within [`iff::SETTABLE`](crate::link::iff::SETTABLE)) take their
    /// values from `flags`.
    pub flags: u32,
    /// Which flags `flags` sets.
    pub flags_mask: u32,
    /// A veth peer's own flags.
    pub peer_flags: u32,
    /// Which flags `peer_flags` sets.
    pub peer_flags_mask: u32,
    /// `up` among the peer's attributes: the kernel registers the peer, then fails to
    /// open it before it has a peer of its own (ENOTCONN), using up an ifindex.
    pub peer_up: bool,
    /// `master BR`: the bridge the new device becomes a port of, once it is registered
    /// and configured (`rtnl_newlink_create`); a refusal unregisters it again.
    pub master: Option<u32>,
    /// A macvlan's `macaddr ...`: the change to its source addresses the message
    /// carries.
    pub macvlan_sources: Option<crate::macvlan::SourcesChange>,
    /// A bridge's settings (`type bridge OPTIONS`), applied once it is registered.
    pub bridge: Option<crate::bridge::BridgeChange>,
    /// `index N`: the interface index asked for (EEXIST when taken).
    pub index: Option<u32>,
    /// A veth peer's `index N`.
    pub peer_index: Option<u32>,
    /// `numtxqueues N`, `numrxqueues N` (1 to 4096).
    pub queues: (Option<i32>, Option<i32>),
    /// `gso_max_size`, `gso_max_segs`, `gro_max_size`.
    pub gso: (Option<u32>, Option<u32>, Option<u32>),
    /// `state STATE` (`set_operstate` on the new device; only one without carrier
    /// events keeps it, the link watch recomputes the others').
    pub operstate: Option<u8>,
    /// `mode default|dormant`.
    pub link_mode: Option<u8>,
    /// A veth without `peer`: `veth_newlink` makes the peer from the request's own
    /// attributes (MTU, queue length, group, queue counts, GSO limits, link mode,
    /// broadcast address; not the name, the address or the flags).
    pub peer_inherits: bool,
    /// `broadcast LLADDR` (IFLA_BROADCAST): `rtnl_create_link` refuses one shorter
    /// than the device's address (EINVAL) and copies the first six bytes of another.
    pub broadcast: Option<Vec<u8>>,
    /// The veth peer's own `broadcast LLADDR` (one inheriting the request's takes
    /// [`LinkAdd::broadcast`]).
    pub peer_broadcast: Option<Vec<u8>>,
    /// The veth peer's own `group`, queue counts (checked as the device's), GSO/GRO
    /// limits (not checked: no `validate_linkmsg` for a peer) and link mode; its
    /// `state` is the link watch's, as a veth's own.
    pub peer_group: Option<u32>,
    /// See [`LinkAdd::peer_group`].
    pub peer_queues: (Option<i32>, Option<i32>),
    /// See [`LinkAdd::peer_group`].
    pub peer_gso: (Option<u32>, Option<u32>, Option<u32>),
    /// See [`LinkAdd::peer_group`].
    pub peer_link_mode: Option<u8>,
    /// IPv6 settings of the device or of a veth peer (`addrgenmode`, IFLA_AF_SPEC):
    /// `rtnl_create_link` refuses them for a device not registered yet (EAFNOSUPPORT),
    /// after the checks before it.
    pub af_spec: bool,
    /// Without [`LinkAdd::mac`], the kernel's random address instead of the oracle's
    /// next one (a command the oracle does not rewrite: `ip link replace`): fibkit gives
    /// the address the oracle sets once it sees the device, `02:00:00:00:1h:ll` from
    /// its index (as a veth peer's).
    pub random_mac: bool,
    /// `ip link replace` (`NLM_F_CREATE|NLM_F_REPLACE`): a device that exists, found
    /// where an exclusive creation finds it, is EOPNOTSUPP (`rtnl_changelink`, whatever
    /// its kind and the settings asked for) instead of EEXIST; a new one is made as by
    /// `ip link add`.
    pub replace: bool,
}

/// A broadcast address shorter than an Ethernet device's (`rtnl_create_link`: EINVAL).
fn short_broadcast(b: &Option<Vec<u8>>) -> bool {
    b.as_ref().is_some_and(|b| b.len() < 6)
}

/// `rtnl_create_link`'s check of the queue counts asked for (1-4096 each).
fn check_queues(q: (Option<i32>, Option<i32>)) -> Result<()> {
    let bad = |n: Option<i32>| n.is_some_and(|n| !(1..=4096).contains(&n));
    if bad(q.0) {
        return Err(Error::msg(
            Errno::EINVAL,
            "Invalid number of transmit queues",
        ));
    }
    if bad(q.1) {
        return Err(Error::msg(
            Errno::EINVAL,
            "Invalid number of receive queues",
        ));
    }
    Ok(())
}

/// The longest queue a pfifo_fast takes (`ptr_ring`'s allocation limit,
/// `KMALLOC_MAX_SIZE` over a pointer: 4 MiB / 8).
const PFIFO_FAST_MAX_QLEN: u32 = 524_288;

/// `dev_validate_mtu`: a veth, bridge or tun takes 68 to 65535 (a tap 65521, room
/// for its Ethernet header); dummy (ifb) and loopback devices any value from 0 (the
/// kernel reads an `int`: one above `i32::MAX` is below the minimum).
fn dev_validate_mtu(kind: &LinkKind, mtu: u32) -> Result<()> {
    mtu_in_range(kind.min_mtu(), kind.max_mtu(), mtu)
}

/// `dev_validate_mtu` for the bounds `min` and `max` (0: none).
fn mtu_in_range(min: u32, max: u32, mtu: u32) -> Result<()> {
    if (mtu as i32) < min as i32 {
        return Err(Error::msg(Errno::EINVAL, "mtu less than device minimum"));
    }
    if max > 0 && mtu > max {
        return Err(Error::msg(Errno::EINVAL, "mtu greater than device maximum"));
    }
    Ok(())
}

impl Netns {
    /// A new namespace as the kernel creates it: `lo` (index 1) up with 127.0.0.1/8 and
    /// ::1, the default rules, empty tables local and main, and the oracle's sysctls.
    pub fn new() -> Netns {
        let mut ns = Netns {
            links: BTreeMap::new(),
            last_ifindex: 1,
            mac_counter: 0,
            addrs4: BTreeMap::new(),
            addrs6: BTreeMap::new(),
            v6_ready: BTreeSet::new(),
            anycast6: BTreeMap::new(),
            mcast: BTreeMap::new(),
            mc_autojoin4: BTreeSet::new(),
            mc_autojoin6: BTreeSet::new(),
            mld_held: None,
            mld_late: Vec::new(),
            igmp_held: None,
            macvlan_ports: BTreeMap::new(),
            bridges: BTreeMap::new(),
            br_ports: BTreeMap::new(),
            fdb: BTreeMap::new(),
            uc: BTreeMap::new(),
            vx_fdb: BTreeMap::new(),
            held_link_watch: None,
            lb_ignore6: BTreeMap::new(),
            tables4: BTreeMap::new(),
            tables6: BTreeMap::new(),
            rules4: [(0, tid::LOCAL), (32766, tid::MAIN), (32767, tid::DEFAULT)]
                .iter()
                .map(|&(p, t)| Rule::kernel_default(p, t))
                .collect(),
            rules6: [(0, tid::LOCAL), (32766, tid::MAIN)]
                .iter()
                .map(|&(p, t)| Rule::kernel_default(p, t))
                .collect(),
            // ipmr_rules_init / ip6mr_rules_init: one rule each, into the family's
            // default multicast table (IPv4 `default`, IPv6 `main`), not permanent
            mrules4: vec![Rule::kernel_default(32767, tid::DEFAULT)],
            mrules6: vec![Rule::kernel_default(32767, tid::MAIN)],
            addrlabels: crate::addrlabel::default_table(),
            seg6_tunsrc: 0,
            ioam: Default::default(),
            mptcp: Default::default(),
            xfrm: Default::default(),
            prog4: Vec::new(),
            prog6: Vec::new(),
            custom_rules4: false,
            custom_rules6: false,
            fldissect4: 0,
            custom_local_routes4: false,
            realms4_seen: false,
            tclassid4: false,
            neigh: Vec::new(),
            proxies: Vec::new(),
            proxy_seq: 0,
            nexthops: BTreeMap::new(),
            nh_last_id: 0,
            sibling_seq: 0,
            table_seq: 0,
            link_reg_seq: 0,
            now: 0,
            // far from 0, so that a time restored as "so long ago" stays on the clock
            ms_clock: 1 << 40,
            neigh_stamps: HashMap::new(),
            neigh_timers: HashMap::new(),
            rt6_last_probe: HashMap::new(),
            rt6_born: Vec::new(),
            sleep_rem_ms: 0,
            gc6_due: None,
            dad_due: BTreeMap::new(),
            dad_restart_pending: None,
            res_next_due: u64::MAX,
            addr6_chk_due: None,
            addr6_set_ms: HashMap::new(),
            nh_dev_seq: 0,
            addr4_seq: 0,
            generation: 0,
            rt_genid4: 0,
            dev_addr_genid4: 1,
            in_cache4: Vec::new(),
            in_cache4_gen: 0,
            out_cache4: Vec::new(),
            out_cache4_gen: 0,
            fib6_sernum: 0,
            pcpu6: Vec::new(),
            pcpu6_legs: Default::default(),
            mpath_partial_echo: None,
            deferring: false,
            restore_mode: false,
            global_epoch: 0,
            route_only: false,
            nh_cache: Default::default(),
            nh6_cache: Default::default(),
            info4_pool: Default::default(),
            nh_infos4: Default::default(),
            quiet: Default::default(),
            sysctl: Sysctls::oracle_defaults(),
            kernel: Default::default(),
        };
        ns.new_table6(tid::MAIN);
        ns.new_table6(tid::LOCAL);
        ns.new_table4(tid::LOCAL);
        ns.new_table4(tid::MAIN);
        ns.links.insert(
            1,
            Link {
                index: 1,
                registered: 0,
                name: "lo".into(),
                kind: LinkKind::Loopback,
                mac: [0; 6],
                broadcast: [0; 6],
                up: false,
                carrier: true,
                carrier_changes: 0,
                group: 0,
                mtu: 65536,
                qdisc_attached: false,
                qdisc_noqueue: false,
                txqlen: 1000,
                alias: None,
                flags: LinkKind::Loopback.initial_flags(),
                promiscuity: 0,
                allmulti: 0,
                altnames: Vec::new(),
                master: 0,
                mtu_by_user: false,
                uc_promisc: false,
                oper: Default::default(),
                tuning: Default::default(),
            },
        );
        ns.sysctl.v4_dev.insert(1, ns.sysctl.v4_default.clone());
        ns.sysctl.v6_dev.insert(1, ns.sysctl.v6_default.clone());
        ns.ntable_parms_alloc(1, false);
        ns.ntable_parms_alloc(1, true);
        ns.mc6_init(1);
        // lo gets 127.0.0.1/8 (scope host) when it comes up, as inetdev does.
        ns.addrs4.insert(1, vec![Addr4::loopback("lo")]);
        ns.rules_resolve(false);
        ns.rules_resolve(true);
        ns.fib_add_ifaddr(1, 0);
        let _ = ns.link_set_up(1, true);
        ns.generation = 0;
        ns
    }

    /// The current time, in seconds, as last passed to [`Netns::set_now`].
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The current time in ms (the clock of resilient nexthop groups' buckets).
    pub fn now_ms(&self) -> u64 {
        self.ms_clock
    }

    /// One command's worth of time (1 ms): the kernel takes time between two
    /// commands, and a resilient group's buckets tell a bucket used by the later one
    /// from one used by the earlier. Runs the group checks that came due.
    pub fn tick(&mut self) {
        self.ms_clock += 1;
        if self.ms_clock >= self.res_next_due {
            self.res_run_due();
        }
        self.addr6_run_due();
        // DAD work queued without a delay (no `router_solicitation_delay`, no probe
        // to send) runs at once on the kernel's workqueue, before the next command
        if self.dad_due.values().any(|r| r.at <= self.ms_clock)
            && self.addrconf_dad_work(self.ms_clock)
        {
            self.bump();
        }
        self.neigh_run_timers();
        self.bridge_run_timers();
    }

    /// Runs the resilient groups' checks due by now, and notes when the next is due.
    pub(crate) fn res_run_due(&mut self) {
        let until = self.ms_clock;
        let mut next = u64::MAX;
        for o in self.nexthops.values_mut() {
            if let Some(t) = &mut o.res {
                t.run_due(until);
                next = next.min(t.upkeep_at().unwrap_or(u64::MAX));
            }
        }
        self.res_next_due = next;
    }

    /// Advance the engine's clock (seconds); routes whose `expires` passed disappear,
    /// and resilient nexthop groups move the buckets whose time came.
    pub fn set_now(&mut self, now: u64) {
        let before_ms = self.ms_clock;
        if now > self.now {
            self.ms_clock = self
                .ms_clock
                .saturating_add((now - self.now).saturating_mul(1000));
        }
        self.advance_to(now);
        self.fib6_expire_between(before_ms);
    }

    /// A scenario's `sleep` of `ms` milliseconds: the millisecond clock (neighbour
    /// timers, resilient groups, route expiry, IPv6 lifetimes, DAD) takes all of it,
    /// the seconds clock the whole seconds the sleeps have added up to.
    pub fn sleep_ms(&mut self, ms: u64) {
        let before_ms = self.ms_clock;
        self.ms_clock = self.ms_clock.saturating_add(ms);
        self.sleep_rem_ms += ms;
        let whole = self.sleep_rem_ms / 1000;
        self.sleep_rem_ms %= 1000;
        self.advance_to(self.now + whole);
        self.fib6_expire_between(before_ms);
    }
}

/// An expiring IPv6 route: its table, destination, source and expiry time.
type Expiring6 = (u32, crate::prefix::Prefix6, crate::prefix::Prefix6, u64);

impl Netns {
    /// The IPv6 routes that expire.
    fn expiring6(&self) -> Vec<Expiring6> {
        let mut expiring = Vec::new();
        for (&id, t) in &self.tables6 {
            for l in t.lists() {
                for r in l {
                    if let Some(e) = r.expires {
                        expiring.push((id, r.dst, r.src, e));
                    }
                }
            }
        }
        expiring
    }

    /// One run of the IPv6 routes' garbage collector at `at` (`fib6_run_gc` and
    /// `fib6_age`) over the `expiring` routes: those whose time has come go (and
    /// leave the list); whether any was removed.
    fn fib6_gc_at(&mut self, at: u64, expiring: &mut Vec<Expiring6>) -> bool {
        let mut changed = false;
        expiring.retain(|&(id, dst, src, e)| {
            if e > at {
                return true;
            }
            if let Some(t) = self.tables6.get_mut(&id) {
                if let Some(l) = t.get_mut(dst, src) {
                    l.retain(|r| r.expires.is_none_or(|x| x > at));
                }
                t.prune_node(dst, src);
            }
            changed = true;
            false
        });
        changed
    }

    /// `fib6_run_gc(0, net, false)` now, as `ndisc_netdev_event` runs it when a device
    /// goes down or changes its address, and a write to `net.ipv6.route.flush`
    /// (`ipv6_sysctl_rtcache_flush`) does: the expired routes go at once, and the
    /// collector's timer is armed again a period from now while routes still expire
    /// (stopped otherwise).
    pub fn fib6_run_gc_now(&mut self) {
        let now = self.ms_clock;
        let mut expiring = self.expiring6();
        if self.fib6_gc_at(now, &mut expiring) {
            self.bump();
        }
        self.gc6_due =
            (!expiring.is_empty()).then_some(now + self.gc6_interval().max(1).saturating_mul(1000));
    }

    /// The IPv6 routes' expiry on the millisecond clock (`rt->expires` is in jiffies),
    /// once it has moved on from `before`: a route whose time passed since is passed
    /// over by lookups from now on (its destination's compiled answers are redone), and
    /// the garbage collector's timer runs each time it was due (`fib6_run_gc`), which
    /// removes the expired routes (the dumps list them until then) and rearms while
    /// routes still expire.
    fn fib6_expire_between(&mut self, before: u64) {
        let now = self.ms_clock;
        let mut expiring = self.expiring6();
        let mut changed = false;
        for &(id, dst, src, e) in &expiring {
            if e > before && e <= now {
                if let Some(t) = self.tables6.get_mut(&id) {
                    let _ = t.get_mut(dst, src);
                }
                changed = true;
            }
        }
        while let Some(due) = self.gc6_due.filter(|&d| d <= now) {
            if self.fib6_gc_at(due, &mut expiring) {
                changed = true;
            }
            // (a run at least a second after the last, as round_jiffies would keep it)
            self.gc6_due = (!expiring.is_empty())
                .then_some(due + self.gc6_interval().max(1).saturating_mul(1000));
        }
        if changed {
            self.bump();
        }
    }

    /// [`Netns::set_now`] once the millisecond clock has moved.
    fn advance_to(&mut self, now: u64) {
        self.now = now;
        self.res_run_due();
        // (the IPv6 routes' expiry runs on the millisecond clock: fib6_expire_between)
        let mut changed = false;
        if self.addrconf_dad_work(self.ms_clock) {
            changed = true;
        }
        self.neigh_run_timers();
        self.bridge_run_timers();
        if changed {
            self.bump();
        }
        self.age_addresses(now);
    }

    /// `check_lifetime` (IPv4) at `now`: an address whose valid lifetime has run out
    /// is deleted as `ip addr del` would, one whose preferred lifetime has turns
    /// deprecated. The kernel runs it from a timer rounded up to whole seconds, so it
    /// may act up to about a second later than this. Then the IPv6 check, on its own
    /// schedule ([`Netns::addrconf_verify6`]).
    fn age_addresses(&mut self, now: u64) {
        use crate::addr::ifa;
        let mut gone4 = Vec::new();
        let mut deprecated = false;
        for (&dev, list) in self.addrs4.iter_mut() {
            // check_lifetime passes permanent addresses over, a finite preferred
            // lifetime beside a valid one of forever included
            for a in list.iter_mut().filter(|a| !a.life.is_permanent()) {
                if a.life.expired(now) {
                    gone4.push((dev, a.local, a.plen, a.address));
                } else if a.life.deprecated(now) && a.flags & ifa::DEPRECATED == 0 {
                    a.flags |= ifa::DEPRECATED;
                    deprecated = true;
                }
            }
        }
        gone4.sort_unstable();
        for (dev, local, plen, address) in gone4 {
            let _ = self.addr4_del_as(dev, Some(local), Some(plen), Some(address), None, false);
        }
        if deprecated {
            self.bump();
        }
        self.addr6_run_due();
    }

    /// Whole seconds since the IPv6 address `addr` of `dev` had its lifetimes set, on
    /// the millisecond clock (`(jiffies - ifp->tstamp) / HZ`, what `inet6_fill_ifaddr`
    /// subtracts from them); `None` for an address without a recorded time.
    pub fn addr6_age_s(&self, dev: u32, addr: u128) -> Option<u64> {
        let set = self.addr6_set_ms.get(&(dev, addr))?;
        Some(self.ms_clock.saturating_sub(*set) / 1000)
    }

    /// When the IPv6 address `addr` of `dev` had its lifetimes set, on the millisecond
    /// clock (see [`addr6_set_time`]).
    pub(crate) fn addr6_set_at(&self, dev: u32, addr: u128, tstamp: u64) -> u64 {
        addr6_set_time(
            &self.addr6_set_ms,
            self.now,
            self.ms_clock,
            dev,
            addr,
            tstamp,
        )
    }

    /// Runs the IPv6 lifetime checks ([`Netns::addrconf_verify6`]) that came due on
    /// the millisecond clock, each at the time it was due.
    pub(crate) fn addr6_run_due(&mut self) {
        while let Some(due) = self.addr6_chk_due.filter(|&d| d <= self.ms_clock) {
            self.addrconf_verify6(due);
        }
    }

    /// `addrconf_verify_rtnl` at `at` (ms clock): an address whose valid lifetime has
    /// run out is deleted as `ip -6 addr del` would (leaving its prefix route to
    /// expire), one whose preferred lifetime has turns deprecated, each by its age in
    /// whole seconds (with `ADDRCONF_TIMER_FUZZ_MINUS`, 20 ms, of slack). The check
    /// runs again at the next lifetime end it saw, but never sooner than a second
    /// (`ADDRCONF_TIMER_FUZZ_MAX`) after this run: since `ip -6 addr add` and `change`
    /// run it too, a lifetime ending less than a second after one of them (or after
    /// another address's) is acted on only a second after it. (The kernel may also
    /// round a due time up to a whole second of its own clock when that adds less
    /// than `ADDRCONF_TIMER_FUZZ`, 250 ms; not modelled.)
    pub(crate) fn addrconf_verify6(&mut self, at: u64) {
        use crate::addr::{ifa, Lifetime};
        const INF: u32 = Lifetime::INFINITE;
        // with nothing to wait for the check comes back every ADDR_CHECK_FREQUENCY
        let mut next = at + 120_000;
        let mut gone = Vec::new();
        let mut deprecated = false;
        let (now_s, ms) = (self.now, self.ms_clock);
        for (&dev, list) in self.addrs6.iter_mut() {
            for a in list.iter_mut() {
                let life = a.life;
                if a.flags & ifa::PERMANENT != 0 && life.preferred == INF {
                    continue;
                }
                let set = addr6_set_time(&self.addr6_set_ms, now_s, ms, dev, a.addr, life.tstamp);
                let age = (at.saturating_sub(set) + 20) / 1000;
                if life.valid != INF && age >= u64::from(life.valid) {
                    gone.push((dev, a.addr, a.plen));
                } else if life.preferred == INF {
                    continue;
                } else if age >= u64::from(life.preferred) {
                    if a.flags & ifa::DEPRECATED == 0 {
                        a.flags |= ifa::DEPRECATED;
                        deprecated = true;
                    }
                    if life.valid != INF {
                        next = next.min(set + u64::from(life.valid) * 1000);
                    }
                } else {
                    next = next.min(set + u64::from(life.preferred) * 1000);
                }
            }
        }
        gone.sort_unstable();
        for (dev, addr, plen) in gone {
            let _ = self.addr6_del_as(dev, addr, Some(plen), false);
        }
        if deprecated {
            self.bump();
        }
        self.addr6_chk_due = Some(next.max(at + 1000));
    }

    /// Call after changing [`Netns::sysctl`] fields directly: advances the generation
    /// and the global epoch, so that a writer recompiles the answers that depend on
    /// sysctls (preferred sources under `route_localnet`, IPv6 neighbour strictness
    /// under `forwarding`) and cached nexthop checks are redone.
    pub fn sysctls_changed(&mut self) {
        self.route_only = false;
        self.bump();
    }

    /// End of a change: recompile the touched parts of the lookup indexes and advance
    /// the generation.
    pub(crate) fn bump(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if !std::mem::take(&mut self.route_only) {
            self.global_epoch = self.global_epoch.wrapping_add(1);
            self.nh_cache.clear();
            self.nh6_cache.clear();
        }
        // the radix trees follow every change, a bulk load's too: lookups between its
        // changes see them
        for t in self.tables6.values_mut() {
            t.sync_tree();
        }
        if self.deferring {
            return;
        }
        self.compile_indexes();
    }

    fn compile_indexes(&mut self) {
        self.tclassid4 = self.realms4_seen && self.scan_realms4();
        for t in self.tables4.values_mut() {
            t.compile();
        }
        for t in self.tables6.values_mut() {
            t.compile();
        }
    }

    /// Whether any IPv4 route (a nexthop of it) or rule has realms: the kernel's
    /// `fib_num_tclassid_users`, which makes input routes validate their source in
    /// full even without rp_filter (conformance scenario 226).
    pub(crate) fn tclassid_users4(&self) -> bool {
        if self.deferring {
            self.realms4_seen && self.scan_realms4()
        } else {
            self.tclassid4
        }
    }

    fn scan_realms4(&self) -> bool {
        self.rules4.iter().any(|r| r.realms != 0)
            || self
                .tables4
                .values()
                .any(|t| t.iter().any(|r| r.info.nhs.iter().any(|n| n.realm != 0)))
    }

    /// Apply many changes and compile the lookup indexes once at the end (a bulk load).
    /// Answers inside `f` are still exact: lookups on a table whose index is stale probe
    /// the RIB directly.
    pub fn bulk<R>(&mut self, f: impl FnOnce(&mut Netns) -> R) -> R {
        let was = self.begin_bulk();
        let r = f(self);
        self.end_bulk(was);
        r
    }

    /// Restore mode for rebuilding a state the kernel holds (the live mirror): while on,
    /// the gateway of a route or nexthop object that names its device is accepted on
    /// that device (IPv4: as a link-scope next hop) without the lookup that checks it
    /// is reachable. The kernel checked each gateway when it was added, so a route
    /// whose gateway became unreachable since (its connected prefix deleted, IPv6
    /// disabled on the device) is still there, and could not be added again; so is an
    /// IPv6 nexthop object on a device whose IPv6 was disabled after it, and a route
    /// whose preferred source address has gone since (IPv6 keeps it when the address
    /// goes with its device's IPv6 state), and a blackhole nexthop object made before
    /// the loopback went down. Every other check still applies. Off by default;
    /// returns the previous value.
    pub fn set_restore_mode(&mut self, on: bool) -> bool {
        std::mem::replace(&mut self.restore_mode, on)
    }

    /// [`Netns::bulk`] for callers whose changes do not fit in one closure: from here on
    /// the indexes are compiled only by the matching [`Netns::end_bulk`], which gets the
    /// returned value (whether a bulk load was already running).
    pub fn begin_bulk(&mut self) -> bool {
        std::mem::replace(&mut self.deferring, true)
    }

    /// Rebuild each IPv6 table's radix tree as if its routes had been added in one go
    /// ([`crate::table::Table6::forget_tree_history`]): for a copy of a host's state,
    /// which has its routes but not the order they came and went in, and whose own
    /// building steps (refused attempts, entries re-added to restore an order) are not
    /// the host's history.
    pub fn forget_tree_history(&mut self) {
        for t in self.tables6.values_mut() {
            t.forget_tree_history();
        }
    }

    /// Ends what [`Netns::begin_bulk`] started (`was`: its value) and, unless an outer
    /// bulk load is still running, compiles the indexes once.
    pub fn end_bulk(&mut self, was: bool) {
        self.deferring = was;
        if !was {
            self.nh_cache.clear();
            self.nh6_cache.clear();
            self.compile_indexes();
            self.generation = self.generation.wrapping_add(1);
        }
    }

    /// Epoch of changes other than plain route changes (see [`crate::fib::Fib`]).
    pub fn global_epoch(&self) -> u64 {
        self.global_epoch
    }

    /// Take the prefixes of an IPv4 table changed since the last call (`None`: the whole
    /// table may have changed).
    pub fn take_touched4(&mut self, table: u32) -> Option<Vec<crate::prefix::Prefix4>> {
        match self.tables4.get_mut(&table) {
            Some(t) => t.take_touched(),
            None => Some(Vec::new()),
        }
    }

    /// [`Netns::take_touched4`] with the writer's hints ([`crate::table::Touch4`]).
    pub fn take_touches4(&mut self, table: u32) -> Option<Vec<crate::table::Touch4>> {
        match self.tables4.get_mut(&table) {
            Some(t) => t.take_touches(),
            None => Some(Vec::new()),
        }
    }

    /// Take the destinations of an IPv6 table changed since the last call (`None`: the
    /// whole table may have changed).
    pub fn take_touched6(&mut self, table: u32) -> Option<Vec<crate::prefix::Prefix6>> {
        match self.tables6.get_mut(&table) {
            Some(t) => t.take_touched(),
            None => Some(Vec::new()),
        }
    }

    /// Generation number, changed by every state change.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    // ----------------------------------------------------------------- links

    /// All links by index.
    pub fn links(&self) -> impl Iterator<Item = &Link> {
        self.links.values()
    }

    /// A link by index.
    pub fn link(&self, index: u32) -> Option<&Link> {
        self.links.get(&index)
    }

    /// The devices' indexes in the kernel's device list order (`for_each_netdev`:
    /// registration order, not index order; see [`Link::registered`]).
    pub fn links_in_list_order(&self) -> Vec<u32> {
        let mut v: Vec<(u64, u32)> = self
            .links
            .values()
            .map(|l| (l.registered, l.index))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, i)| i).collect()
    }

    /// A link index by name: a device's name or one of its alternative names, as the
    /// kernel's lookups by name (`netdev_name_node_lookup`) find either.
    pub fn link_index(&self, name: &str) -> Option<u32> {
        self.links
            .values()
            .find(|l| l.name == name || l.altnames.iter().any(|a| a == name))
            .map(|l| l.index)
    }

    /// A loopback below IPv6's minimum MTU: it keeps its IPv6 state, but no link up or
    /// NETDEV_CHANGE makes it ready (no ::1) until the MTU is raised again (conformance
    /// scenario 411).
    pub(crate) fn loopback_below_v6_mtu(&self, dev: u32) -> bool {
        self.links
            .get(&dev)
            .is_some_and(|l| l.is_loopback() && l.mtu < IPV6_MIN_MTU)
    }

    /// The SRv6 tunnel source address (`ip sr tunsrc show`; `::` when none was set).
    pub fn seg6_tunsrc(&self) -> u128 {
        self.seg6_tunsrc
    }

    /// `ip sr tunsrc set ADDR` (`SEG6_CMD_SET_TUNSRC`): any address is taken, `::`
    /// included.
    pub fn set_seg6_tunsrc(&mut self, addr: u128) {
        self.seg6_tunsrc = addr;
    }

    /// A link index by its name alone, not an alternative name (`/proc/sys` paths,
    /// rules attaching to a new device).
    pub fn link_index_by_name(&self, name: &str) -> Option<u32> {
        self.links
            .values()
            .find(|l| l.name == name)
            .map(|l| l.index)
    }

    /// `ip link property add dev DEV altname NAME...` (`RTM_NEWLINKPROP`): each name
    /// in turn (see [`Netns::link_altnames_each`]); one that names a device or an
    /// alternative name already is EEXIST.
    pub fn link_altnames_add(&mut self, index: u32, names: &[String]) -> Result<()> {
        self.link_altnames_each(index, names, |ns, n| {
            if ns.link_index(n).is_some() {
                return Err(Error::new(Errno::EEXIST));
            }
            if let Some(l) = ns.links.get_mut(&index) {
                l.altnames.push(n.to_string());
            }
            Ok(())
        })
    }

    /// `ip link property del dev DEV altname NAME...` (`RTM_DELLINKPROP`): each name in
    /// turn (`netdev_name_node_alt_destroy`): ENOENT for a name no device has, EINVAL
    /// for a device's own name or another device's alternative name.
    pub fn link_altnames_del(&mut self, index: u32, names: &[String]) -> Result<()> {
        self.link_altnames_each(index, names, |ns, n| {
            let owner = ns.link_index(n).ok_or(Error::new(Errno::ENOENT))?;
            let l = ns.links.get_mut(&index).ok_or(Error::new(Errno::ENODEV))?;
            match l.altnames.iter().position(|a| a == n) {
                Some(p) if owner == index => {
                    l.altnames.remove(p);
                    Ok(())
                }
                _ => Err(Error::new(Errno::EINVAL)),
            }
        })
    }

    /// `rtnl_linkprop`: the device must exist; its names are taken in turn, each
    /// checked against the attribute policy first (longer than 127 bytes: ERANGE), and
    /// the first failure stops the rest with the names before it applied.
    fn link_altnames_each(
        &mut self,
        index: u32,
        names: &[String],
        mut one: impl FnMut(&mut Self, &str) -> Result<()>,
    ) -> Result<()> {
        if !self.links.contains_key(&index) {
            return Err(Error::new(Errno::ENODEV));
        }
        let r = names.iter().try_for_each(|n| {
            if n.len() > 127 {
                return Err(Error::msg(
                    Errno::ERANGE,
                    "Attribute failed policy validation",
                ));
            }
            one(self, n)
        });
        self.bump();
        r
    }

    /// Name of a link (empty if unknown).
    pub fn link_name(&self, index: u32) -> &str {
        self.links
            .get(&index)
            .map(|l| l.name.as_str())
            .unwrap_or("")
    }

    /// A new device's index: the one asked for (`ip link add ... index N`) as it is,
    /// the allocation cursor staying; else the next free one after the cursor.
    fn alloc_ifindex(&mut self, want: Option<u32>) -> u32 {
        if let Some(i) = want {
            return i;
        }
        let mut i = self.last_ifindex + 1;
        while self.links.contains_key(&i) {
            i += 1;
        }
        self.last_ifindex = i;
        i
    }

    /// The index a new device of `kind` will get (a veth's after its peer's, which
    /// takes the index asked for only along with the device's own).
    fn next_ifindex(&self, kind: &LinkKind, want: Option<u32>) -> u32 {
        if let Some(i) = want {
            return i;
        }
        let free = |from: u32| {
            (from..)
                .find(|i| !self.links.contains_key(i))
                .unwrap_or(from)
        };
        let first = free(self.last_ifindex + 1);
        match kind {
            LinkKind::Veth { .. } => free(first + 1),
            _ => first,
        }
    }

    /// `dev_alloc_name("<base>%d")`: the smallest number whose name no device has (nor
    /// one of `also`, a name about to be taken).
    fn alloc_link_name(&self, base: &str, also: &[&str]) -> String {
        let mut n = 0u32;
        loop {
            let cand = format!("{base}{n}");
            if self.link_index(&cand).is_none() && !also.contains(&cand.as_str()) {
                return cand;
            }
            n += 1;
        }
    }

    /// A new device's name at its registration: the kind's first free `<base>N` when
    /// none was given (not one of `also`), the first free name of a `%d` pattern, else
    /// the name itself, EEXIST when a device has it (found only now when the request
    /// named an index).
    fn creation_name(
        &mut self,
        name: &str,
        base: &str,
        also: &[&str],
        index: Option<u32>,
    ) -> Result<String> {
        if matches!(name, "all" | "default") {
            // dev_valid_name takes these; register_netdevice reserves an index
            // (dev_index_reserve) before the NETDEV_REGISTER notifiers, where the
            // devinet and addrconf sysctl directories clash with the configuration
            // entries of the name: EINVAL, and the index stays used
            self.alloc_ifindex(index);
            return Err(Error::new(Errno::EINVAL));
        }
        if name.is_empty() {
            return Ok(self.alloc_link_name(base, also));
        }
        self.dev_get_valid_name_beside(name, also)
    }

    /// `dev_valid_name`: 1 to 15 bytes, not `.` or `..`, no `/`, `:` or white space.
    /// (`all` and `default` pass, to fail at registration: [`Netns::creation_name`].)
    pub fn dev_valid_name(name: &str) -> bool {
        !name.is_empty()
            && name.len() < 16
            && !matches!(name, "." | "..")
            && !name
                .bytes()
                .any(|b| b == b'/' || b == b':' || b.is_ascii_whitespace())
    }

    /// `dev_get_valid_name`: a name the kernel takes for a device (see
    /// [`Netns::dev_valid_name`]; EINVAL), a pattern with one `%d` made the first free
    /// name of its kind (`dev_alloc_name`), or EEXIST for a name any device has (an
    /// alternative name included).
    pub(crate) fn dev_get_valid_name(&self, name: &str) -> Result<String> {
        self.dev_get_valid_name_beside(name, &[])
    }

    /// [`Netns::dev_get_valid_name`] while the names of `also` are taken too (a veth
    /// peer registered just before).
    fn dev_get_valid_name_beside(&self, name: &str, also: &[&str]) -> Result<String> {
        // `all` and `default`: a device's sysctl directories of the name clash with the
        // configuration entries (a rename's NETDEV_CHANGENAME fails so, undone)
        if !Self::dev_valid_name(name) || matches!(name, "all" | "default") {
            return Err(Error::new(Errno::EINVAL));
        }
        if let Some(p) = name.find('%') {
            let (head, tail) = (&name[..p], &name[p + 1..]);
            let Some(rest) = tail.strip_prefix('d').filter(|r| !r.contains('%')) else {
                return Err(Error::new(Errno::EINVAL));
            };
            let free = (0..32768u32)
                .map(|n| format!("{head}{n}{rest}"))
                .find(|c| self.link_index(c).is_none() && !also.contains(&c.as_str()));
            // (none free within the bounds, or too long a name)
            return free
                .filter(|c| c.len() < 16)
                .ok_or(Error::new(Errno::EINVAL));
        }
        match self.link_index(name) {
            Some(_) => Err(Error::new(Errno::EEXIST)),
            None => Ok(name.to_string()),
        }
    }

    fn new_link(
        &mut self,
        name: &str,
        kind: LinkKind,
        mac: [u8; 6],
        mtu: u32,
        index: Option<u32>,
    ) -> u32 {
        let index = self.alloc_ifindex(index);
        self.link_reg_seq += 1;
        self.links.insert(
            index,
            Link {
                index,
                registered: self.link_reg_seq,
                name: name.to_string(),
                kind: kind.clone(),
                mac,
                broadcast: [0xff; 6],
                up: false,
                carrier: !matches!(
                    kind,
                    LinkKind::Veth { .. }
                        | LinkKind::Bridge
                        | LinkKind::Tun { .. }
                        | LinkKind::Macvlan { .. }
                ),
                // turned off once registered (a macvlan's, in its init, is not
                // counted)
                carrier_changes: u32::from(matches!(
                    kind,
                    LinkKind::Veth { .. } | LinkKind::Bridge | LinkKind::Tun { .. }
                )),
                group: 0,
                mtu,
                qdisc_attached: false,
                qdisc_noqueue: false,
                txqlen: match kind {
                    LinkKind::Dummy => 32,
                    // TUN_READQ_SIZE for a tun and a macvtap; ether_setup's for a tap
                    LinkKind::Tun { tap: false, .. } | LinkKind::Macvlan { tap: true, .. } => 500,
                    _ => 1000,
                },
                alias: None,
                flags: kind.initial_flags(),
                promiscuity: 0,
                allmulti: 0,
                altnames: Vec::new(),
                master: 0,
                mtu_by_user: false,
                uc_promisc: false,
                oper: Default::default(),
                tuning: Default::default(),
            },
        );
        self.sysctl
            .v4_dev
            .insert(index, self.sysctl.v4_default.clone());
        self.sysctl_dev_from_default("ipv4", name);
        self.ntable_parms_alloc(index, false);
        if mtu >= IPV6_MIN_MTU {
            // ipv6_add_dev refuses a device whose MTU is below IPv6's minimum
            self.sysctl.v6_dev.insert(index, self.sysctl.new_dev6());
            self.ntable_parms_alloc(index, true);
            self.sysctl_dev_from_default("ipv6", name);
            self.mc6_init(index);
        }
        self.rules_attach(name, index);
        index
    }

    /// The address the oracle gives a link it did not name (a veth's peer, a tap):
    /// `02:00:00:00:1h:ll` from its ifindex.
    pub fn index_mac(idx: u32) -> [u8; 6] {
        [
            0x02,
            0,
            0,
            0,
            0x10 + (((idx >> 8) & 0xef) as u8),
            (idx & 0xff) as u8,
        ]
    }

    /// The address the next `ip link add` without one gets (the oracle's counter, which
    /// every such command moves, whether it fails or not: a front end refusing the
    /// command line itself calls this too).
    pub fn next_link_mac(&mut self) -> [u8; 6] {
        self.mac_counter += 1;
        Self::link_mac_nth(self.mac_counter)
    }

    /// How many addresses [`Netns::next_link_mac`] has given.
    pub fn link_macs_given(&self) -> u32 {
        self.mac_counter
    }

    /// The `n`-th address [`Netns::next_link_mac`] gives (`02:00:00:00:00:nn`).
    pub fn link_mac_nth(n: u32) -> [u8; 6] {
        [0x02, 0, 0, 0, 0, (n & 0xff) as u8]
    }

    /// `ip link add` (or `replace`: [`LinkAdd::replace`]). MACs not given are assigned
    /// like the oracle does: the n-th link add without `address` gets
    /// `02:00:00:00:00:nn`; a veth peer (and a device of [`LinkAdd::random_mac`]) gets
    /// `02:00:00:00:1h:ll` from its index.
    pub fn link_add(&mut self, req: &LinkAdd) -> Result<u32> {
        // the oracle numbers every `link add` without an address, refused ones too
        let auto_mac = (req.mac.is_none() && !req.random_mac).then(|| self.next_link_mac());
        let kind = req.kind.clone().unwrap_or(LinkKind::Dummy);
        let mtu = req.mtu.unwrap_or(1500);
        // the kind's `validate` (ifb_validate, veth_validate) runs before the name is
        // looked at: tun_validate refuses every creation, an address must be a valid
        // unicast Ethernet one, a veth's MTU in its range (no message)
        if matches!(kind, LinkKind::Tun { .. }) {
            return Err(Error::msg(
                Errno::EOPNOTSUPP,
                "tun/tap creation via rtnetlink is not supported",
            ));
        }
        if let LinkKind::Vxlan(c) = &kind {
            crate::vxlan::validate(c, req.mac, req.mtu)?;
        }
        if let (LinkKind::Macvlan { .. }, Some(c)) = (&kind, &req.macvlan_sources) {
            c.validate()?;
        }
        if let Some(m) = req.mac {
            if !crate::link::is_valid_ether_addr(&m) {
                return Err(Error::new(Errno::EADDRNOTAVAIL));
            }
        }
        if matches!(kind, LinkKind::Veth { .. }) && !(68..=65535).contains(&mtu) {
            return Err(Error::new(Errno::EINVAL));
        }
        // veth: the peer's attributes meet the policy once the kind's validate has
        // passed (rtnl_get_peer_net), before the peer's own validate
        if matches!(kind, LinkKind::Veth { .. }) {
            crate::linkstate::check_ifla_policy(req.peer.as_deref().unwrap_or(""), req.peer_gso.0)?;
        }
        if let Some(m) = req.peer_mac {
            if !crate::link::is_valid_ether_addr(&m) {
                return Err(Error::new(Errno::EADDRNOTAVAIL));
            }
        }
        if matches!(kind, LinkKind::Veth { .. })
            && !(68..=65535).contains(&req.peer_mtu.unwrap_or(1500))
        {
            return Err(Error::new(Errno::EINVAL));
        }
        let mac = match req.mac.or(auto_mac) {
            Some(m) => m,
            None => Self::index_mac(self.next_ifindex(&kind, req.index)),
        };
        // (a name dev_valid_name refuses, `.`, `..` or one with `:`, is no error yet:
        // register_netdevice's dev_get_valid_name refuses it, after the lookup below
        // and the kind's own checks, and a veth's peer registers first)
        // rtnl_newlink: a device of the index asked for, or else of the name, exists
        // (NLM_F_EXCL), or is EOPNOTSUPP (NLM_F_REPLACE: rtnl_changelink)
        if self.link_add_exists(req.index, &req.name) {
            let e = if req.replace {
                Errno::EOPNOTSUPP
            } else {
                Errno::EEXIST
            };
            return Err(Error::new(e));
        }
        // rtnl_create_link: the queue counts, after the kind's validation
        check_queues(req.queues)?;
        // then validate_linkmsg on the device just allocated, before its MTU is looked
        // at: a broadcast address shorter than the device's is EINVAL (a tun has none;
        // a veth peer's is checked when the peer is made), the GSO limits are those its
        // kind's setup gave it (64 KiB for a macvlan, VXLAN device or bridge, whatever
        // their lower devices or ports allow later), and an IFLA_AF_SPEC is refused
        // (inet6_validate_link_af: no IPv6 state yet)
        if !matches!(kind, LinkKind::Tun { .. }) && short_broadcast(&req.broadcast) {
            return Err(Error::new(Errno::EINVAL));
        }
        let (gso, segs, gro) = req.gso;
        crate::linkstate::check_gso(kind.setup_tso_max_size(), gso, segs, gro)?;
        if req.af_spec {
            return Err(Error::new(Errno::EAFNOSUPPORT));
        }
        // rtnl_create_link's dev_validate_mtu: the value is an `int`
        if (mtu as i32) < 0 {
            return Err(Error::msg(Errno::EINVAL, "mtu less than device minimum"));
        }
        // a bridge has no validate: rtnl_create_link's dev_validate_mtu, after the name
        // checks
        if kind == LinkKind::Bridge {
            dev_validate_mtu(&kind, mtu)?;
        }
        // rtnl_create_link for a macvlan: the bounds macvlan_common_setup gave it
        // (its lower device's ceiling comes later)
        if matches!(kind, LinkKind::Macvlan { .. }) && req.mtu.is_some() {
            mtu_in_range(68, 65535, mtu)?;
        }
        let idx = self.link_add_kind(req, kind, mac, mtu)?;
        let peer = match &self.links[&idx].kind {
            LinkKind::Veth { peer } => Some(*peer),
            _ => None,
        };
        // the device's settings, and the veth peer's: its own (`peer ...`, its queue
        // length already set by link_add_kind) or the request's (no `peer` given)
        for (d, own) in [(Some(idx), true), (peer, false)] {
            let Some(l) = d.and_then(|d| self.links.get_mut(&d)) else {
                continue;
            };
            let (group, txqlen, queues, (gso, segs, gro), mode, brd) = if own || req.peer_inherits {
                (
                    req.group,
                    req.txqlen,
                    req.queues,
                    req.gso,
                    req.link_mode,
                    &req.broadcast,
                )
            } else {
                let (q, g) = (req.peer_queues, req.peer_gso);
                (
                    req.peer_group,
                    None,
                    q,
                    g,
                    req.peer_link_mode,
                    &req.peer_broadcast,
                )
            };
            if let Some(g) = group {
                l.group = g;
            }
            if let Some(q) = txqlen {
                l.txqlen = q;
            }
            // rtnl_configure_link: the flags asked for, before the device goes up (a
            // new device has no neighbours for a NOARP change to flush)
            if own {
                l.set_flags(req.flags, req.flags_mask);
            }
            if let Some(b) = brd.as_ref().filter(|_| !l.is_tun()) {
                let n = b.len().min(6);
                l.broadcast[..n].copy_from_slice(&b[..n]);
            }
            let t = &mut l.tuning;
            (t.num_tx_queues, t.num_rx_queues) =
                (queues.0.map(|n| n as u32), queues.1.map(|n| n as u32));
            t.set_gso(gso, segs, gro);
            if let Some(m) = mode {
                l.oper.link_mode = m;
                l.oper.watch_mode = m;
            }
        }
        // rtnl_create_link's set_operstate, on a device the link watch leaves alone
        if let Some(s) = req.operstate {
            if matches!(
                req.kind,
                Some(LinkKind::Dummy) | Some(LinkKind::Vxlan(_)) | None
            ) {
                self.link_set_operstate(idx, s)?;
            }
        }
        self.bump();
        if req.up {
            self.link_set_up(idx, true)?;
        }
        if let Some(m) = req.master {
            // rtnl_newlink_create: do_set_master after the device is configured; a
            // refusal unregisters it (a veth with its peer)
            if let Err(e) = self.link_set_master(idx, m) {
                self.link_del(idx)?;
                return Err(e);
            }
        }
        Ok(idx)
    }

    /// Whether `ip link add` names a device that exists: by the index asked for, or
    /// else by name (`rtnl_newlink`'s lookup, which makes an exclusive creation
    /// EEXIST).
    pub fn link_add_exists(&self, index: Option<u32>, name: &str) -> bool {
        match index {
            Some(i) => self.links.contains_key(&i),
            None => !name.is_empty() && self.link_index(name).is_some(),
        }
    }

    /// The kind-specific part of [`Netns::link_add`]: the device (a veth's peer first)
    /// registered, its index.
    fn link_add_kind(
        &mut self,
        req: &LinkAdd,
        kind: LinkKind,
        mac: [u8; 6],
        mtu: u32,
    ) -> Result<u32> {
        Ok(match kind {
            LinkKind::Loopback => return Err(Error::new(Errno::EOPNOTSUPP)),
            LinkKind::Vxlan(conf) => {
                let (conf, mtu) = self.vxlan_prepare(&conf, req.mtu)?;
                let name = self.creation_name(&req.name, "vxlan", &[], req.index)?;
                let lower = conf.lower;
                let remote = conf.remote;
                // __vxlan_dev_create links it under its lower device once it is
                // registered: a stack too deep unregisters it again (its ifindex
                // stays used)
                if lower != 0 && self.stack_too_deep(lower) {
                    self.alloc_ifindex(req.index);
                    return Err(Error::new(Errno::EMLINK));
                }
                let idx =
                    self.new_link(&name, LinkKind::Vxlan(Box::new(conf)), mac, mtu, req.index);
                // vxlan_config_apply: a lower device's TSO limit as it is now
                if lower != 0 {
                    self.link_inherit_tso_max(idx, lower);
                }
                // __vxlan_dev_create: the default forwarding entry towards the remote
                self.vxlan_fdb_default(idx, remote);
                idx
            }
            // refused by Netns::link_add (tun_validate)
            LinkKind::Tun { .. } => return Err(Error::new(Errno::EOPNOTSUPP)),
            LinkKind::Macvlan {
                lower, mode, tap, ..
            } => {
                // __rtnl_newlink finds a device of the name first (EEXIST), unless
                // the request names an index, and the kind's newlink runs after;
                // register_netdevice's name checks come after the port is made, and
                // their failure takes a new port away
                if req.index.is_none()
                    && !req.name.is_empty()
                    && self.link_index(&req.name).is_some()
                {
                    return Err(Error::new(Errno::EEXIST));
                }
                let ports = self.macvlan_ports.clone();
                let (lower, mtu, max_mtu, list) =
                    self.macvlan_prepare(lower, req.mtu, mode, req.macvlan_sources.as_ref())?;
                let name = match self.creation_name(
                    &req.name,
                    if tap { "macvtap" } else { "macvlan" },
                    &[],
                    req.index,
                ) {
                    Ok(n) => n,
                    Err(e) => {
                        self.macvlan_ports = ports;
                        return Err(e);
                    }
                };
                let mut kind = kind;
                if let LinkKind::Macvlan {
                    lower: l,
                    max_mtu: m,
                    sources: s,
                    ..
                } = &mut kind
                {
                    (*l, *m, *s) = (lower, max_mtu, list);
                }
                // a passthru macvlan takes its lower device's address
                let passthru = mode == crate::link::macvlan_mode::PASSTHRU;
                let mac = if passthru {
                    self.links[&lower].mac
                } else {
                    mac
                };
                // macvlan_common_newlink links it under its lower device once it is
                // registered: a stack too deep unregisters it again (its ifindex
                // stays used) and takes away a port made for it
                if self.stack_too_deep(lower) {
                    self.alloc_ifindex(req.index);
                    self.macvlan_ports = ports;
                    return Err(Error::new(Errno::EMLINK));
                }
                let idx = self.new_link(&name, kind, mac, mtu, req.index);
                // macvlan_init: its lower device's TSO limit as it is now
                self.link_inherit_tso_max(idx, lower);
                self.macvlan_registered(idx);
                idx
            }
            LinkKind::Bridge => {
                let name = self.creation_name(&req.name, "bridge", &[], req.index)?;
                let idx = self.new_link(&name, LinkKind::Bridge, mac, mtu, req.index);
                self.fdb_bridge_created(idx);
                // br_dev_setup's random address, kept only while none is set
                if req.mac.is_none() && req.random_mac {
                    self.bridges.entry(idx).or_default().addr_random = true;
                }
                if let Some(c) = &req.bridge {
                    // br_dev_newlink: br_changelink once the device is registered; a
                    // refusal unregisters it again (its ifindex stays used)
                    if let Err(e) = self.bridge_changelink(idx, c) {
                        let _ = self.link_del(idx);
                        return Err(e);
                    }
                }
                idx
            }
            LinkKind::Dummy => {
                // no name: the kernel's "<kind>%d" (dummies are modelled on ifb)
                let name = self.creation_name(&req.name, "ifb", &[], req.index)?;
                self.new_link(&name, LinkKind::Dummy, mac, mtu, req.index)
            }
            LinkKind::Veth { .. } => {
                // the peer is registered first, each without a name taking "veth%d"
                // veth_newlink: the peer's rtnl_create_link checks its queue counts
                // before its name is registered (a `%d` pattern taking the first free
                // name, a name a device has EEXIST; the device is not registered yet,
                // so its name is no obstacle)
                check_queues(req.peer_queues)?;
                // then its broadcast address's length and its GSO and GRO limits
                // (validate_linkmsg), before its name
                if short_broadcast(&req.peer_broadcast) {
                    return Err(Error::new(Errno::EINVAL));
                }
                let (gso, segs, gro) = req.peer_gso;
                crate::linkstate::check_gso(crate::link::GRO_MAX_SIZE, gso, segs, gro)?;
                let peer_name = match &req.peer {
                    // the peer's registration fails as a device's does
                    Some(p) if matches!(p.as_str(), "all" | "default") => {
                        self.alloc_ifindex(req.peer_index.filter(|_| req.index.is_some()));
                        return Err(Error::new(Errno::EINVAL));
                    }
                    Some(p) => self.dev_get_valid_name(p)?,
                    None => self.alloc_link_name("veth", &[]),
                };
                // the device's own registration, the peer's done: a name taken (by the
                // peer, or by a device when the request named an index, so that
                // rtnl_newlink looked for none by name) fails it, and unregistering
                // the peer leaves its index used
                let name = match self.creation_name(&req.name, "veth", &[&peer_name], req.index) {
                    Ok(n) if n != peer_name => n,
                    r => {
                        self.alloc_ifindex(req.peer_index.filter(|_| req.index.is_some()));
                        return Err(r.err().unwrap_or(Error::new(Errno::EEXIST)));
                    }
                };
                if req.peer_up {
                    // rtnl_configure_link on the registered peer: veth_open without a
                    // peer yet
                    self.alloc_ifindex(req.peer_index.filter(|_| req.index.is_some()));
                    return Err(Error::new(Errno::ENOTCONN));
                }
                // the peer is made from its own attributes (the default MTU without one)
                // veth_newlink takes the peer's index only when the device has one of
                // its own (`if (ifmp && dev->ifindex)`); dev_index_reserve: an index
                // in use is EBUSY at registration (the peer's, or the device's once its
                // peer took it)
                let peer_index = req.peer_index.filter(|_| req.index.is_some());
                if peer_index.is_some_and(|i| self.links.contains_key(&i) || req.index == Some(i)) {
                    return Err(Error::new(Errno::EBUSY));
                }
                let peer = self.new_link(
                    &peer_name,
                    LinkKind::Veth { peer: 0 },
                    [0; 6],
                    req.peer_mtu.unwrap_or(1500),
                    peer_index,
                );
                let pmac = req.peer_mac.unwrap_or(Self::index_mac(peer));
                if let Some(l) = self.links.get_mut(&peer) {
                    l.mac = pmac;
                    if let Some(q) = req.peer_txqlen {
                        l.txqlen = q;
                    }
                    l.set_flags(req.peer_flags, req.peer_flags_mask);
                }
                let me = self.new_link(&name, LinkKind::Veth { peer }, mac, mtu, req.index);
                if let Some(l) = self.links.get_mut(&peer) {
                    l.kind = LinkKind::Veth { peer: me };
                }
                me
            }
        })
    }

    /// `ip tuntap add` (`TUNSETIFF` with `IFF_TUN_EXCL`, then `TUNSETPERSIST`): a
    /// persistent tun or tap device named `name` (the kernel's `tun%d`/`tap%d` when
    /// empty), with the tun flags `flags` ([`tunf`](crate::link::tunf)). A name in use,
    /// by any device, is EBUSY. Nothing is attached to it, so it has no carrier. A tap
    /// gets the address the oracle gives a link it did not name (`02:00:00:00:1h:ll`
    /// from its index; the kernel draws one at random until then).
    pub fn tuntap_add(&mut self, name: &str, tap: bool, flags: u16) -> Result<u32> {
        self.tuntap_add_owned(name, tap, flags, None, None)
    }

    /// [`Netns::tuntap_add`] with an owner and a group (`TUNSETOWNER`,
    /// `TUNSETGROUP`: `ip tuntap add ... user U group G`), which only `ip tuntap
    /// show` and `ip -d link` show.
    pub fn tuntap_add_owned(
        &mut self,
        name: &str,
        tap: bool,
        flags: u16,
        owner: Option<u32>,
        group: Option<u32>,
    ) -> Result<u32> {
        if !name.is_empty() && self.link_index(name).is_some() {
            return Err(Error::new(Errno::EBUSY));
        }
        let name = if name.is_empty() {
            self.alloc_link_name(if tap { "tap" } else { "tun" }, &[])
        } else {
            self.tun_register_name(name)?
        };
        let kind = LinkKind::Tun {
            tap,
            flags,
            owner,
            group,
        };
        let idx = self.new_link(&name, kind, [0; 6], 1500, None);
        if tap {
            if let Some(l) = self.links.get_mut(&idx) {
                l.mac = Self::index_mac(idx);
            }
        }
        self.bump();
        Ok(idx)
    }

    /// `ip tuntap del` (`TUNSETIFF` without `IFF_TUN_EXCL`, then `TUNSETPERSIST` 0): a
    /// device of another kind or mode, or asked for with `multi_queue` when it is not
    /// a multi-queue device or the other way round (`tun_set_iff`), is EINVAL; a name
    /// no device has makes a device that goes again at once, using up an ifindex (or
    /// fails to, see [`Netns::tun_register_name`]).
    pub fn tuntap_del(&mut self, name: &str, tap: bool, flags: u16) -> Result<()> {
        use crate::link::tunf::MULTI_QUEUE;
        match self.link_index(name) {
            Some(idx) => {
                let ok = matches!(
                    self.links[&idx].kind,
                    LinkKind::Tun { tap: t, flags: f, .. }
                        if t == tap && (f & MULTI_QUEUE) == (flags & MULTI_QUEUE)
                );
                if !ok {
                    return Err(Error::new(Errno::EINVAL));
                }
                self.link_del(idx)
            }
            None => {
                // the device made for the name (`tun%d` or `tap%d` without one) goes
                // again when the request's file is closed
                if !name.is_empty() {
                    self.tun_register_name(name)?;
                }
                self.alloc_ifindex(None);
                Ok(())
            }
        }
    }

    /// The name a new tun or tap device asked for as `name` (which no device has)
    /// registers under: `register_netdevice`'s `dev_get_valid_name` refuses a name
    /// `dev_valid_name` does not take (`.`, `..`, one with `:`) and makes a `%d`
    /// pattern the first free name (another `%` is EINVAL), before any index is
    /// reserved; `all` and `default` fail later, at the sysctl registration, with
    /// the index used (see [`Netns::creation_name`]).
    fn tun_register_name(&mut self, name: &str) -> Result<String> {
        if matches!(name, "all" | "default") {
            self.alloc_ifindex(None);
            return Err(Error::new(Errno::EINVAL));
        }
        self.dev_get_valid_name(name)
    }

    /// The carriers after device `idx` went up or down, or joined or left a bridge: a
    /// veth's (`veth_open`: both ends get carrier when the peer is up too;
    /// `veth_close`: both lose it), then the bridges of `idx` and of the devices whose
    /// carrier changed (see [`crate::bridge`]); returns the devices whose carrier
    /// changed. Loopback and dummy devices always have carrier, tun/tap devices never.
    fn update_carriers(&mut self, idx: u32) -> Vec<u32> {
        let changed = self.update_veth_carriers(idx);
        self.propagate_carriers(idx, changed)
    }

    /// The rest of [`Netns::update_carriers`] once the devices of `changed` have a new
    /// carrier: the macvlans on them and the bridges of `idx` and of each.
    pub(crate) fn propagate_carriers(&mut self, idx: u32, mut changed: Vec<u32>) -> Vec<u32> {
        // macvlans copy their lower device's carrier at once, in the lower device's own
        // notifier (a lower device going up or down changes theirs only through its
        // own carrier)
        self.macvlan_transfer_carriers(&mut changed);
        // a bridge's carrier follows its own state and its ports' (see `bridge`): the
        // ports' carrier events come through the link watch, so the bridge's comes
        // after the devices above (random seed 95478: a macvtap's IPv6 before the
        // bridge's)
        let mut touched = vec![idx];
        touched.extend(changed.iter().copied());
        for d in touched {
            let Some(l) = self.links.get(&d) else {
                continue;
            };
            for b in [d, l.master] {
                if b != 0 && !changed.contains(&b) && self.bridge_update_carrier(b) {
                    changed.push(b);
                }
            }
        }
        // and the macvlans on a bridge whose carrier changed
        self.macvlan_transfer_carriers(&mut changed);
        changed
    }

    /// The veth part of [`Netns::update_carriers`].
    fn update_veth_carriers(&mut self, idx: u32) -> Vec<u32> {
        let Some(l) = self.links.get(&idx) else {
            return Vec::new();
        };
        let LinkKind::Veth { peer } = l.kind else {
            return Vec::new();
        };
        let peer_up = self.links.get(&peer).is_some_and(|p| p.up);
        let targets: &[(u32, bool)] = match (l.up, peer_up) {
            (true, true) => &[(idx, true), (peer, true)],
            (true, false) => &[],
            (false, _) => &[(idx, false), (peer, false)],
        };
        let mut changed = Vec::new();
        for &(d, c) in targets {
            if let Some(x) = self.links.get_mut(&d) {
                if x.carrier != c {
                    x.set_carrier(c);
                    changed.push(d);
                }
            }
        }
        changed
    }

    /// `ip link set DEV up|down`.
    pub fn link_set_up(&mut self, index: u32, up: bool) -> Result<()> {
        let l = self
            .links
            .get(&index)
            .ok_or(Error::new(Errno::ENODEV))?
            .clone();
        if l.up == up {
            return Ok(());
        }
        if up {
            // ndo_open: a macvlan's address must be free on its port
            self.macvlan_open_check(index)?;
            // a VXLAN device joins its group
            self.vxlan_open(index)?;
        } else {
            self.vxlan_stop(index);
            // ndo_stop, before the NETDEV_DOWN notifiers
            self.macvlan_stop(index);
        }
        let link = self.links.get_mut(&index).expect("exists");
        link.up = up;
        if up && !link.qdisc_attached {
            // attach_default_qdiscs: noqueue for a queue length of 0, and when a
            // pfifo_fast cannot be made that long
            link.qdisc_noqueue = link.txqlen == 0 || link.txqlen > PFIFO_FAST_MAX_QLEN;
        }
        link.qdisc_attached |= up;
        if up {
            // the rest of ndo_open and dev_set_rx_mode
            self.macvlan_opened(index);
            self.dev_rx_mode(index);
        }
        let changed = self.update_carriers(index);
        let bridge = l.kind == LinkKind::Bridge;
        if up {
            if bridge {
                // br_dev_open runs before the device is up: its IPv6 joins are not
                // reported (igmp6_group_added), its IPv4 ones are, once it is
                self.mld_held = Some(Vec::new());
                self.bridge_open(index);
                self.mld_held = None;
            }
            self.ipv4_netdev_up(index);
            self.ipv6_netdev_up(index);
        } else {
            if bridge {
                self.bridge_stop(index);
            }
            // nh_netdev_event(NETDEV_DOWN): the nexthop objects on it go, with the
            // routes through them
            self.nh_flush_dev(index);
            self.ipv4_netdev_down(index, false);
            let was_ready = self.v6_ready.contains(&index);
            self.ipv6_netdev_down(index, false);
            // neigh_ifdown (ARP and ND): every entry of the device goes, permanent ones
            // too (conformance scenario 183), and its proxy entries. ndisc's notifier
            // runs it before addrconf_ifdown, so the leave reports of the proxies'
            // groups are cancelled by ipv6_mc_down with the rest on a device that was
            // ready, and sent by the kernel's work after the flush otherwise
            // (conformance scenario 1060)
            self.mld_held = Some(Vec::new());
            self.neigh_ifdown(index, None);
            let held = self.mld_held.take().unwrap_or_default();
            if !was_ready {
                self.mld_late.extend(held);
            }
            // the leave reports of a device that was not ready go out after it
            for (d, to) in std::mem::take(&mut self.mld_late) {
                self.neigh_mc_entry(d, to, true);
            }
            // ndisc_netdev_event runs the IPv6 routes' garbage collector
            self.fib6_run_gc_now();
        }
        self.carriers_changed(changed);
        // NETDEV_UP or NETDEV_DOWN: the macvlans on it take its carrier again
        self.macvlan_lower_event(index);
        self.bump();
        Ok(())
    }

    /// The link watch's end for the devices whose carrier changed: a NETDEV_CHANGE on
    /// each that is up, then the IPv4 route cache flushed.
    pub(crate) fn carriers_changed(&mut self, changed: Vec<u32>) {
        if let Some(held) = &mut self.held_link_watch {
            for d in changed {
                if !held.contains(&d) {
                    held.push(d);
                }
            }
            return;
        }
        for d in changed {
            if self.links[&d].up {
                self.netdev_change(d, false, false);
            }
        }
        self.rt_cache_flush4();
    }

    /// Holds the link watch's events back (`hold`), or runs those held (`!hold`), in
    /// the order they came. The kernel's link watch takes the RTNL lock for its work,
    /// so a request that changes several devices under one lock (`ip link set group
    /// G ...`: `rtnl_group_changelink`) has every device changed before any carrier
    /// change reaches the stack (a veth brought up after its peer gives the peer its
    /// carrier; the peer's IPv6 link-local address comes after the other devices').
    pub fn hold_link_watch(&mut self, hold: bool) {
        if hold {
            self.held_link_watch.get_or_insert_with(Vec::new);
        } else if let Some(held) = self.held_link_watch.take() {
            // devices gone since are skipped
            let held: Vec<u32> = held
                .into_iter()
                .filter(|d| self.links.contains_key(d))
                .collect();
            self.carriers_changed(held);
        }
    }

    /// NETDEV_CHANGE on a device that is up (its carrier changed, or flags other than
    /// `UP`, `PROMISC` and `ALLMULTI`): without carrier, its nexthop objects and all but
    /// its permanent neighbours go; the IPv4 and IPv6 routes through it follow the
    /// carrier. A change of `NOARP` (`noarp_changed`) first flushes every neighbour
    /// of the device, permanent ones too (`arp_netdev_event`, `ndisc_netdev_event`:
    /// `neigh_changeaddr`), and with `restart_dad` restarts the device's IPv6 DAD runs
    /// (see `ipv6_netdev_change`).
    pub(crate) fn netdev_change(&mut self, d: u32, noarp_changed: bool, restart_dad: bool) {
        let carrier = self.links[&d].carrier;
        // addrconf_link_ready: operationally up too (not dormant or testing)
        let ready6 = carrier
            && matches!(
                self.links[&d].oper_code(),
                crate::link::oper::UP | crate::link::oper::UNKNOWN
            );
        if noarp_changed {
            self.neigh_changeaddr(d);
        }
        if !carrier {
            // the nexthop objects on it go too
            self.nh_flush_dev(d);
            // neigh_carrier_down: all but the permanent entries (proxy entries stay),
            // in each table whose `*_evict_nocarrier` says so (arp_netdev_event:
            // IN_DEV_ARP_EVICT_NOCARRIER, `all` and the device; ndisc_netdev_event:
            // `all` and the device)
            let s = &self.sysctl;
            let arp = s.v4_all.arp_evict_nocarrier != 0
                && s.v4_dev.get(&d).is_none_or(|c| c.arp_evict_nocarrier != 0);
            let nd = s.v6_all.ndisc_evict_nocarrier != 0
                && s.v6_dev
                    .get(&d)
                    .is_none_or(|c| c.ndisc_evict_nocarrier != 0);
            self.neigh.retain(|n| {
                let evict = if n.v6 { nd } else { arp };
                n.dev != d || n.state == NudState::Permanent || !evict
            });
        }
        self.ipv4_netdev_change(d, carrier);
        self.ipv6_netdev_change(d, ready6, restart_dad);
        // the macvlans on it hear it too, and take its carrier again (their own
        // NETDEV_CHANGE comes from their link watch, after this one)
        self.macvlan_lower_event(d);
        // and its bridge, which checks the port's operational state
        self.bridge_port_changed(d);
    }

    /// `ip link set DEV [up|down] FLAG on|off ...` (`dev_change_flags`): the flags of
    /// `mask` (within [`iff::SETTABLE`](crate::link::iff::SETTABLE)) are set as in
    /// `flags` before the device goes up or down; then, on a device that is up, a
    /// change of any flag but `PROMISC` and `ALLMULTI` is a NETDEV_CHANGE (see
    /// `netdev_change`). A change of `NOARP` restarts the device's IPv6 addresses'
    /// DAD, which the kernel runs after a random delay under a second: fibkit runs it
    /// when the clock next moves on ([`Netns::set_now`]).
    pub fn link_change_flags(
        &mut self,
        index: u32,
        up: Option<bool>,
        flags: u32,
        mask: u32,
    ) -> Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        let was_up = l.up;
        let rx_was = (l.promiscuity > 0, l.allmulti > 0);
        let changes = l.set_flags(flags, mask);
        self.macvlan_rx_flags(index, rx_was);
        // the IPv6 addresses in use before the request (see below)
        let in_use: Vec<u128> = self
            .addrs6(index)
            .iter()
            .filter(|a| !a.predad && a.flags & crate::addr::ifa::TENTATIVE == 0)
            .map(|a| a.addr)
            .collect();
        if let Some(up) = up {
            // a NOARP change that comes with the link going up: its NETDEV_CHANGE
            // restarts the DAD runs the NETDEV_UP queues (scenario 465), on a device
            // that had carrier already (one that gets it by going up, a veth, is
            // configured by the link watch afterwards, NOARP already set)
            let l = &self.links[&index];
            let restart = up
                && !was_up
                && changes & crate::link::iff::NOARP != 0
                && !l.up
                && l.carrier
                && matches!(
                    l.oper_code(),
                    crate::link::oper::UP | crate::link::oper::UNKNOWN
                );
            if restart {
                self.dad_restart_pending = Some(index);
            }
            let r = self.link_set_up(index, up);
            self.dad_restart_pending = None;
            r?;
        }
        let l = &self.links[&index];
        if l.up && changes & !(crate::link::iff::PROMISC | crate::link::iff::ALLMULTI) != 0 {
            let noarp = changes & crate::link::iff::NOARP != 0;
            self.netdev_change(index, noarp, noarp && was_up);
            if noarp && !was_up {
                // brought up by the same request: the restart re-queues the DAD runs
                // NETDEV_UP queued (new and kept addresses: announced once), and
                // restarts those of the addresses that were in use (scenario 331)
                self.addrconf_dad_restart(index, &in_use);
            }
            self.rt_cache_flush4();
        }
        if changes != 0 {
            self.bump();
        }
        Ok(())
    }

    /// `ip link set DEV group N`. The NETDEV_CHANGE `do_setlink` sends after writing a
    /// group is [`Netns::netdev_state_change`], called once the whole request is
    /// applied.
    pub fn link_set_group(&mut self, index: u32, group: u32) -> Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        l.group = group;
        self.bump();
        Ok(())
    }

    /// `ip link set DEV mtu N`.
    ///
    /// The kernel reads the value as an `int` (one above `i32::MAX` is negative); the
    /// bounds are the kind's (`dev_validate_mtu`).
    pub fn link_set_mtu(&mut self, index: u32, mtu: u32) -> Result<()> {
        self.link_set_mtu_as(index, mtu, true)
    }

    /// [`Netns::link_set_mtu`], asked by the user or (`by_user` false) by a bridge
    /// following its ports (`br_mtu_auto_adjust`).
    pub(crate) fn link_set_mtu_as(&mut self, index: u32, mtu: u32, by_user: bool) -> Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        if l.mtu == mtu {
            // dev_set_mtu: nothing changes, nobody is told
            return Ok(());
        }
        dev_validate_mtu(&l.kind, mtu)?;
        self.macvlan_check_mtu(index, mtu)?;
        self.vxlan_check_mtu(index, mtu)?;
        let l = self.links.get_mut(&index).expect("exists");
        let old = std::mem::replace(&mut l.mtu, mtu);
        if l.kind == LinkKind::Bridge {
            // br_change_mtu marks it; an automatic adjustment clears the mark again
            l.mtu_by_user = by_user;
        }
        let (lo, up, master) = (l.is_loopback(), l.up, l.master);
        self.ipv4_mtu_change(index, mtu);
        // addrconf_notify(NETDEV_CHANGEMTU): below IPv6's minimum the device loses its
        // IPv6 state entirely (addresses, routes, neighbours, per-device sysctls); back
        // at or above it a fresh one is made, configured at once when the link is ready
        // (conformance scenario 220). A loopback keeps its IPv6 state but goes through
        // a link down's (addrconf_ifdown without unregistering): ::1 and the routes on
        // it go, until the next link up (conformance scenario 411), and so do its
        // neighbour discovery entries and IPv6 proxy entries (rt6_disable_ip's
        // neigh_ifdown, scenario 932): the leave reports of the proxies' groups are
        // cancelled with the rest by ipv6_mc_down, later in addrconf_ifdown
        if mtu < IPV6_MIN_MTU {
            if lo && self.has_idev6(index) {
                self.mld_held = Some(Vec::new());
                self.neigh_ifdown(index, Some(true));
                self.mld_held = None;
                self.ipv6_netdev_down(index, false);
            } else if self.has_idev6(index) {
                self.ipv6_idev_destroy(index);
            }
        } else if self.has_idev6(index) {
            self.rt6_mtu_change(index, old, mtu);
        } else {
            self.sysctl.v6_dev.insert(index, self.sysctl.new_dev6());
            self.ntable_parms_alloc(index, true);
            if let Some(n) = self.links.get(&index).map(|l| l.name.clone()) {
                self.sysctl_dev_from_default("ipv6", &n);
            }
            self.mc6_init(index);
            if up {
                self.ipv6_netdev_up(index);
            }
        }
        if master != 0 {
            // br_device_event(NETDEV_CHANGEMTU) of a port
            self.bridge_mtu_adjust(master);
        }
        // macvlan_device_event(NETDEV_CHANGEMTU) of a lower device
        self.macvlan_lower_mtu(index, mtu);
        self.rt_cache_flush4();
        self.bump();
        Ok(())
    }

    /// `ip link set DEV address MAC`.
    pub fn link_set_mac(&mut self, index: u32, mac: [u8; 6]) -> Result<()> {
        // netif_set_mac_address: the driver is asked only for an address the device
        // has not (the same one is no change, whatever it is), NETDEV_CHANGEADDR in
        // either case
        let same = self.links.get(&index).is_some_and(|l| l.mac == mac);
        if self.is_macvlan(index) {
            if !same && self.macvlan_set_mac(index, mac)? {
                self.links.get_mut(&index).expect("exists").mac = mac;
            }
            // dev_set_mac_address: NETDEV_CHANGEADDR once the driver agreed
            self.netdev_changeaddr(index);
            self.bump();
            return Ok(());
        }
        self.link_set_mac_from(index, mac, false)
    }

    /// [`Netns::link_set_mac`] of a device that is not a macvlan, asked by the user
    /// or (`by_macvlan`) by its passthru macvlan.
    pub(crate) fn link_set_mac_from(
        &mut self,
        index: u32,
        mac: [u8; 6],
        by_macvlan: bool,
    ) -> Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        // ifb, the driver the oracle makes its dummy links with, cannot change its
        // address (no ndo_set_mac_address); loopback and veth can
        if l.kind == LinkKind::Dummy || l.is_tun() {
            return Err(Error::new(Errno::EOPNOTSUPP));
        }
        // eth_prepare_mac_addr_change (for a new address only)
        if l.mac != mac && !crate::link::is_valid_ether_addr(&mac) {
            return Err(Error::new(Errno::EADDRNOTAVAIL));
        }
        if l.kind == LinkKind::Bridge && l.mac != mac {
            // br_set_mac_address -> br_stp_change_bridge_id: the bridge's own
            // forwarding entry, before the address changes
            self.fdb_bridge_mac(index, mac);
        }
        // netif_set_mac_address: NET_ADDR_SET, the same address or not
        if let Some(c) = self.bridges.get_mut(&index) {
            c.addr_random = false;
        }
        let l = self.links.get_mut(&index).expect("exists");
        l.mac = mac;
        // NETDEV_CHANGEADDR, sent even when the address is the one the link has
        // (conformance scenario 236)
        self.netdev_changeaddr(index);
        self.macvlan_lower_changeaddr(index, by_macvlan);
        self.bump();
        Ok(())
    }

    /// `ip link set DEV broadcast LLADDR` (IFLA_BROADCAST): `validate_linkmsg` refuses
    /// an address shorter than the device's (EINVAL; a tun has none), a longer one is
    /// cut; then NETDEV_CHANGEADDR, as for a new address.
    pub fn link_set_broadcast(&mut self, index: u32, lladdr: &[u8]) -> Result<()> {
        self.link_check_broadcast(index, lladdr)?;
        let l = self.links.get_mut(&index).expect("checked");
        if !l.is_tun() {
            l.broadcast.copy_from_slice(&lladdr[..6]);
        }
        self.netdev_changeaddr(index);
        self.macvlan_lower_changeaddr(index, false);
        self.bump();
        Ok(())
    }

    /// The length check of [`Netns::link_set_broadcast`] alone (`validate_linkmsg`,
    /// before the request changes anything).
    pub fn link_check_broadcast(&self, index: u32, lladdr: &[u8]) -> Result<()> {
        let l = self.links.get(&index).ok_or(Error::new(Errno::ENODEV))?;
        if lladdr.len() < if l.is_tun() { 0 } else { 6 } {
            return Err(Error::new(Errno::EINVAL));
        }
        Ok(())
    }

    /// `ip link set DEV txqueuelen N` (`dev_change_tx_queue_len`; any value, the
    /// kernel keeps an `int`).
    pub fn link_set_txqlen(&mut self, index: u32, qlen: u32) -> Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        // dev_qdisc_change_tx_queue_len: an attached pfifo_fast resizes its rings,
        // which cannot hold more than PFIFO_FAST_MAX_QLEN packets (ENOMEM; the length
        // stays), whether the device is up or not
        if qlen != l.txqlen && qlen > PFIFO_FAST_MAX_QLEN && l.has_pfifo_fast() {
            return Err(Error::new(Errno::ENOMEM));
        }
        l.txqlen = qlen;
        self.bump();
        Ok(())
    }

    /// `ip link set DEV alias TEXT` (`dev_set_alias`: an empty text removes it). Its
    /// NETDEV_CHANGE is [`Netns::netdev_state_change`], as for a group.
    pub fn link_set_alias(&mut self, index: u32, alias: &str) -> Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        l.alias = (!alias.is_empty()).then(|| alias.to_string());
        self.bump();
        Ok(())
    }

    /// `netdev_state_change` at the end of a `do_setlink` that wrote a group or an alias
    /// (whatever the value): on a device that is up, a NETDEV_CHANGE, which flushes the
    /// IPv4 route cache; without carrier
    /// its nexthop objects and non-permanent neighbours go and its routes are marked
    /// linkdown, as at the carrier's loss (random seed 23101).
    pub fn netdev_state_change(&mut self, index: u32) -> Result<()> {
        let l = self.links.get(&index).ok_or(Error::new(Errno::ENODEV))?;
        if l.up {
            self.netdev_change(index, false, false);
            self.rt_cache_flush4();
            self.bump();
        }
        Ok(())
    }

    /// `ip link set DEV name NEW`.
    pub fn link_set_name(&mut self, index: u32, name: &str) -> Result<()> {
        let l = self.links.get(&index).ok_or(Error::new(Errno::ENODEV))?;
        // dev_change_name: the same name is nothing to do; else dev_get_valid_name (an
        // alternative name of this device's is in use too)
        if l.name == name {
            return Ok(());
        }
        let name = self.dev_get_valid_name(name)?;
        let name = name.as_str();
        let old = std::mem::replace(
            &mut self.links.get_mut(&index).expect("exists").name,
            name.to_string(),
        );
        // the device's sysctl directories are renamed with it
        self.sysctl_dev_keys_move(&old, Some(name), &["ipv4", "ipv6"]);
        self.inetdev_changename(index, name);
        self.rules_detach(index);
        self.rules_attach(name, index);
        self.bump();
        Ok(())
    }

    /// The sysctls of a device the model keeps by name (`net.ipv4|ipv6.conf|neigh.DEV.*`
    /// among [`crate::sysctl::Sysctls::other`]) follow its directories: renamed with
    /// the device (`to`), gone with it or with the family's state on it (`None`).
    pub(crate) fn sysctl_dev_keys_move(&mut self, from: &str, to: Option<&str>, fams: &[&str]) {
        let mut moved = Vec::new();
        for fam in fams {
            for dir in ["conf", "neigh"] {
                let prefix = format!("net.{fam}.{dir}.{from}.");
                let keys: Vec<String> = self
                    .sysctl
                    .other
                    .keys()
                    .filter(|k| k.starts_with(&prefix))
                    .cloned()
                    .collect();
                for k in keys {
                    let v = self.sysctl.other.remove(&k).expect("listed");
                    if let Some(to) = to {
                        let rest = &k[prefix.len()..];
                        moved.push((format!("net.{fam}.{dir}.{to}.{rest}"), v));
                    }
                }
            }
        }
        self.sysctl.other.extend(moved);
    }

    /// A new device's copy of `default`'s configuration of family `fam` (`"ipv4"`:
    /// `inetdev_init`; `"ipv6"`: `ipv6_add_dev`) for the settings fibkit keeps by name
    /// (`net.FAM.conf.default.*` beyond [`crate::sysctl::DevConf4`]'s and
    /// [`crate::sysctl::DevConf6`]'s), so a later write to `default` leaves the device
    /// alone.
    pub(crate) fn sysctl_dev_from_default(&mut self, fam: &str, name: &str) {
        let prefix = format!("net.{fam}.conf.default.");
        let copies: Vec<(String, String)> = self
            .sysctl
            .other
            .iter()
            .filter_map(|(k, v)| {
                let rest = k.strip_prefix(&prefix)?;
                Some((format!("net.{fam}.conf.{name}.{rest}"), v.clone()))
            })
            .collect();
        self.sysctl.other.extend(copies);
    }

    /// `ip link del DEV` (a veth takes its peer with it).
    pub fn link_del(&mut self, index: u32) -> Result<()> {
        let l = self
            .links
            .get(&index)
            .ok_or(Error::new(Errno::ENODEV))?
            .clone();
        if l.is_loopback() {
            return Err(Error::new(Errno::EOPNOTSUPP));
        }
        let mut victims = vec![index];
        if let LinkKind::Veth { peer } = l.kind {
            if peer != 0 && self.links.contains_key(&peer) {
                victims.push(peer);
            }
        }
        // macvlan_device_event(NETDEV_UNREGISTER): a lower device takes its macvlans;
        // vxlan_handle_lowerdev_unregister its VXLAN devices; and those theirs, as
        // each unregisters in turn
        let mut i = 0;
        while i < victims.len() {
            let v = victims[i];
            for u in self.macvlans_on(v).into_iter().chain(self.vxlans_on(v)) {
                if !victims.contains(&u) {
                    victims.push(u);
                }
            }
            i += 1;
        }
        // a port of a bridge that stays leaves it first: the kernel's br_del_if (at
        // NETDEV_UNREGISTER) runs after the port went down but before the link watch
        // applies the bridge's carrier loss, so the bridge's MTU follows its remaining
        // ports while it still looks running (see bridge_del_port)
        for &v in &victims {
            let master = self.links[&v].master;
            if master != 0 && !victims.contains(&master) && !self.is_bridge(v) {
                self.bridge_del_port(v);
            }
        }
        for &v in &victims {
            self.nh_flush_dev(v);
            if self.links[&v].up {
                self.macvlan_stop(v);
                self.vxlan_stop(v);
                self.links.get_mut(&v).expect("exists").up = false;
                let changed = self.update_carriers(v);
                if self.is_bridge(v) {
                    self.bridge_stop(v);
                }
                self.ipv4_netdev_down(v, false);
                self.ipv6_netdev_down(v, false);
                // ndisc_netdev_event(NETDEV_DOWN): the IPv6 garbage collector runs
                self.fib6_run_gc_now();
                // a bridge that lost its last forwarding port
                for d in changed {
                    if victims.contains(&d) || !self.links[&d].up {
                        continue;
                    }
                    self.netdev_change(d, false, false);
                }
            }
        }
        // br_del_if: a port going away leaves its bridge, a bridge going away releases
        // its ports
        for &v in &victims {
            if self.is_bridge(v) {
                for p in self.bridge_ports(v) {
                    self.bridge_del_port(p);
                }
            } else if self.links[&v].master != 0 {
                self.bridge_del_port(v);
            }
        }
        let names: HashMap<u32, String> = victims
            .iter()
            .map(|&v| (v, self.links[&v].name.clone()))
            .collect();
        for &v in &victims {
            self.ipv4_netdev_unregister(v);
            self.ipv6_netdev_down(v, true);
            self.neigh_ifdown(v, None);
            let lower = match self.links[&v].kind {
                LinkKind::Macvlan { lower, .. } => lower,
                _ => 0,
            };
            self.links.remove(&v);
            if lower != 0 {
                self.macvlan_port_release(lower);
            }
            self.macvlan_ports.remove(&v);
            self.bridges.remove(&v);
            self.fdb_forget_dev(v);
            self.mcast.remove(&v);
            self.sysctl.v4_dev.remove(&v);
            self.sysctl.v6_dev.remove(&v);
            self.ntable_parms_release(v, false);
            self.ntable_parms_release(v, true);
            if let Some(n) = names.get(&v) {
                self.sysctl_dev_keys_move(n, None, &["ipv4", "ipv6"]);
            }
            self.rules_detach(v);
        }
        self.rt_cache_flush4();
        self.bump();
        Ok(())
    }

    /// `inetdev_changename`: every IPv4 address of a renamed link takes the new name as
    /// its label; from the second address on (in list order) the old label's `:suffix`
    /// is kept, or `:N` (its 1-based position) added when it had none, the name cut so
    /// that the label fits in 15 bytes (conformance scenario 224).
    fn inetdev_changename(&mut self, index: u32, name: &str) {
        const IFNAMSIZ: usize = 16;
        let Some(list) = self.addrs4.get_mut(&index) else {
            return;
        };
        for (i, a) in list.iter_mut().enumerate() {
            let old = std::mem::replace(&mut a.label, name.to_string());
            if i == 0 {
                continue;
            }
            let dot = match old.find(':') {
                Some(p) => old[p..].to_string(),
                None => format!(":{}", i + 1),
            };
            if dot.len() + name.len() >= IFNAMSIZ {
                let mut keep = (IFNAMSIZ - 1).saturating_sub(dot.len());
                while !a.label.is_char_boundary(keep) {
                    keep -= 1;
                }
                a.label.truncate(keep);
            }
            a.label.push_str(&dot);
        }
    }

    fn rules_attach(&mut self, name: &str, index: u32) {
        let all = (self.rules4.iter_mut().chain(self.rules6.iter_mut()))
            .chain(self.mrules4.iter_mut().chain(self.mrules6.iter_mut()));
        for r in all {
            if r.iif.as_deref() == Some(name) {
                r.iif_index = index;
            }
            if r.oif.as_deref() == Some(name) {
                r.oif_index = index;
            }
        }
        self.rules_resolve(false);
        self.rules_resolve(true);
    }

    /// `detach_rules`: the rules whose interface is the device's, by index (a rule
    /// that named one of its alternative names included).
    fn rules_detach(&mut self, index: u32) {
        let all = (self.rules4.iter_mut().chain(self.rules6.iter_mut()))
            .chain(self.mrules4.iter_mut().chain(self.mrules6.iter_mut()));
        for r in all {
            if r.iif.is_some() && r.iif_index == index {
                r.iif_index = crate::rule::DETACHED;
            }
            if r.oif.is_some() && r.oif_index == index {
                r.oif_index = crate::rule::DETACHED;
            }
        }
        self.rules_resolve(false);
        self.rules_resolve(true);
    }

    // ------------------------------------------------------------- neighbours

    /// `ip neigh add|replace`.
    pub fn neigh_set(&mut self, n: Neighbour, replace: bool) -> Result<()> {
        self.neigh_update(n, true, replace)
    }

    /// `ip neigh change`: an entry that is not there is ENOENT.
    pub fn neigh_change(&mut self, n: Neighbour) -> Result<()> {
        self.neigh_update(n, false, true)
    }

    /// `neigh_add` with `NTF_USE` (`ip neigh add|replace|change ... use`): the entry is
    /// found, or made when `create`, as for an update, but not updated: it only loses
    /// PERMANENT, then `neigh_event_send` starts resolving it (an entry in no state or
    /// failed becomes incomplete, a stale one delayed, with their timers; the others
    /// stay). A new entry starts as
    /// its constructor makes it (NOARP with an address of its own, else resolving),
    /// with the `extern_learn` and `managed` given; an entry found only takes the
    /// protocol given.
    pub fn neigh_use(&mut self, n: Neighbour, create: bool, replace: bool) -> Result<()> {
        let mut at = self.neigh_find_for_update(&n, create, replace)?;
        let mut n = n;
        self.neigh_rekey(&mut n, &mut at);
        let key = (n.dev, n.addr, n.v6);
        if at.is_none() {
            self.neigh_stamps_new(key);
        }
        // neigh_event_send: the entry is used now, whatever its state
        let now = self.ms_clock;
        self.neigh_stamps_mut(key).used = now;
        match at {
            Some(i) => {
                let was = self.neigh[i].state;
                let e = &mut self.neigh[i];
                // __neigh_update with NEIGH_UPDATE_F_USE takes PERMANENT away (a
                // permanent entry is left in no state), then neigh_event_send
                if e.state == NudState::Permanent {
                    e.state = NudState::None;
                }
                e.state = match e.state {
                    NudState::None | NudState::Failed => NudState::Incomplete,
                    NudState::Stale => NudState::Delay,
                    s => s,
                };
                if n.protocol != 0 {
                    e.protocol = n.protocol;
                }
                if e.state != was {
                    if e.managed {
                        // (no timer followed: see neigh_update)
                        let resolving = e.state == NudState::Incomplete;
                        let ucast = self.neigh_params(key.0, key.2).ucast;
                        let s = self.neigh_stamps_mut(key);
                        s.updated = now;
                        if resolving {
                            s.probes = ucast + 1;
                        }
                    } else {
                        self.neigh_event_timer(key, i);
                    }
                }
            }
            None => {
                let (state, lladdr) = match self.neigh_initial(n.dev, n.addr, n.v6) {
                    Some(ha) => (NudState::Noarp, Some(ha)),
                    None => (NudState::Incomplete, None),
                };
                // ___neigh_create keeps `extern_learn` and `managed` as given
                self.neigh.push(Neighbour {
                    state,
                    lladdr,
                    flags: n.flags & ntf::EXT_LEARNED,
                    ..n
                });
                if state == NudState::Incomplete && !n.managed {
                    self.neigh_event_timer(key, self.neigh.len() - 1);
                }
            }
        }
        self.bump();
        Ok(())
    }

    /// The link-layer address and state a new entry starts with (`arp_constructor`,
    /// `ndisc_constructor`): multicast addresses take their mapped address, then a
    /// device without ARP (`NOARP`: ifb and `arp off`; loopback) answers for every
    /// address with its own (NUD_NOARP), and IPv4 broadcast addresses take the
    /// device's broadcast address; others start empty.
    fn neigh_initial(&self, dev: u32, addr: u128, v6: bool) -> Option<[u8; 6]> {
        // multicast first, then the device's NOARP or LOOPBACK, then broadcast
        let l = self.links.get(&dev)?;
        if v6 {
            if crate::prefix::v6::is_multicast(addr) {
                // ndisc_mc_map maps a group only on an Ethernet-like device: any
                // other type (the loopback's ARPHRD_LOOPBACK) takes the device's
                // broadcast address (scenario 933)
                if l.is_loopback() {
                    return Some(l.broadcast);
                }
                let b = (addr as u32).to_be_bytes();
                return Some([0x33, 0x33, b[0], b[1], b[2], b[3]]);
            }
            return l.noarp().then_some(l.mac);
        }
        let a = addr as u32;
        // the address's type in the device's local table (`inet_addr_type_dev_table`):
        // a multicast address, or any address a `multicast` route of table local
        // covers, takes the mapped multicast address (random seed 31234)
        let t = self.addr_type4_dev(a);
        if crate::prefix::v4::is_multicast(a) || t == crate::route::RouteType::Multicast {
            let b = a.to_be_bytes();
            return Some([0x01, 0x00, 0x5e, b[1] & 0x7f, b[2], b[3]]);
        }
        if l.noarp() {
            return Some(l.mac);
        }
        // a broadcast address takes the device's broadcast address (`dev->broadcast`,
        // which `ip link set DEV broadcast LLADDR` changes), not all ones
        if t == crate::route::RouteType::Broadcast {
            return Some(l.broadcast);
        }
        None
    }

    /// `neigh_add`'s checks of an update's request, in its order (the device, its IPv6
    /// state, the entry's presence against the request's flags, then a new entry's
    /// own): the position of the entry, if there is one.
    fn neigh_find_for_update(
        &self,
        n: &Neighbour,
        create: bool,
        replace: bool,
    ) -> Result<Option<usize>> {
        if !self.links.contains_key(&n.dev) {
            return Err(Error::new(Errno::ENODEV));
        }
        if n.v6 && self.ipv6_unusable(n.dev) {
            // ndisc_allow_add
            return Err(Error::msg(Errno::EINVAL, "IPv6 is disabled on this device"));
        }
        let at = self
            .neigh
            .iter()
            .position(|e| e.dev == n.dev && e.addr == n.addr && e.v6 == n.v6);
        match at {
            Some(_) if !replace => return Err(Error::new(Errno::EEXIST)),
            None if !create => return Err(Error::new(Errno::ENOENT)),
            // a managed entry cannot be made permanent (`managed` alone sends NUD_NONE)
            None if n.managed && n.state == NudState::Permanent => {
                return Err(Error::msg(
                    Errno::EINVAL,
                    "Invalid NTF_* flag for permanent entry",
                ))
            }
            // arp_constructor, when the entry is made: no IPv4 state on the device
            // (after the lookup: a `change` of a missing entry is ENOENT first; random
            // seed 22601)
            None if !n.v6 && !self.has_idev4(n.dev) => return Err(Error::new(Errno::EINVAL)),
            _ => {}
        }
        Ok(at)
    }

    /// `arp_constructor` keys a new IPv4 entry of a loopback or point-to-point device
    /// (lo, a tun) by 0.0.0.0, and `___neigh_create` then finds the device's entry under
    /// that key if there is one: a request for a missing address works on that entry (a
    /// `get` or `del` by the address finds none).
    fn neigh_rekey(&self, n: &mut Neighbour, at: &mut Option<usize>) {
        let ptp = crate::link::iff::LOOPBACK | crate::link::iff::POINTOPOINT;
        if at.is_some() || n.v6 || self.links[&n.dev].flags & ptp == 0 {
            return;
        }
        n.addr = 0;
        *at = self
            .neigh
            .iter()
            .position(|e| e.dev == n.dev && e.addr == 0 && !e.v6);
    }

    /// `neigh_add` -> `__neigh_update`: a valid state without a link-layer address
    /// takes the entry's own, and an entry without one (new, or never resolved) is
    /// refused, left behind in NUD_NONE when it was made for the request.
    fn neigh_update(&mut self, n: Neighbour, create: bool, replace: bool) -> Result<()> {
        let mut at = self.neigh_find_for_update(&n, create, replace)?;
        let mut n = n;
        self.neigh_rekey(&mut n, &mut at);
        // the protocol is set when given and kept otherwise
        if n.protocol == 0 {
            n.protocol = at.map_or(0, |i| self.neigh[i].protocol);
        }
        // `extern_learn` and `managed` are set as given by every update (before
        // __neigh_update looks at the state), `router` only by one that reaches a valid
        // state with a link-layer address: otherwise the entry keeps its own
        let kept_router = at.map_or(0, |i| self.neigh[i].flags & ntf::ROUTER);
        let given = n.flags;
        n.flags = (given & !ntf::ROUTER) | kept_router;
        if n.managed {
            // __neigh_update for NEIGH_UPDATE_F_MANAGED: the state loses PERMANENT and
            // nothing else changes (the address given is ignored); then
            // neigh_event_send starts resolving an entry that needs it
            let (old_state, old_ha) = match at {
                Some(i) => (self.neigh[i].state, self.neigh[i].lladdr),
                None => match self.neigh_initial(n.dev, n.addr, n.v6) {
                    Some(ha) => (NudState::Noarp, Some(ha)),
                    None => (NudState::None, None),
                },
            };
            n.state = match old_state {
                NudState::Permanent | NudState::None | NudState::Failed => NudState::Incomplete,
                NudState::Stale => NudState::Delay,
                s => s,
            };
            n.lladdr = old_ha;
            // neigh_event_send: the entry is used now, and one it starts resolving is
            // updated, its probes counted from the unicast ones and one sent at once
            // (the managed work's later probes and uses are not followed)
            let key = (n.dev, n.addr, n.v6);
            if at.is_none() {
                self.neigh_stamps_new(key);
            }
            let (now, ucast) = (self.ms_clock, self.neigh_params(n.dev, n.v6).ucast);
            let s = self.neigh_stamps_mut(key);
            s.used = now;
            if n.state != old_state {
                s.updated = now;
                if n.state == NudState::Incomplete {
                    s.probes = ucast + 1;
                }
            }
            match at {
                Some(i) => self.neigh[i] = n,
                None => self.neigh.push(n),
            }
            self.bump();
            return Ok(());
        }
        // what the entry holds before the update (a new one: its constructor's)
        let (old_valid, old_ha) = match at {
            Some(i) => (self.neigh[i].state.valid(), self.neigh[i].lladdr),
            None => match self.neigh_initial(n.dev, n.addr, n.v6) {
                Some(ha) => (true, Some(ha)),
                None => (false, None),
            },
        };
        // __neigh_update: a device without link-layer addresses (a tun, addr_len 0)
        // keeps the entry's own whatever is given, and never reports a change or a
        // missing address
        let no_ha = self.links[&n.dev].is_tun();
        if no_ha {
            n.lladdr = old_ha.or(Some(self.links[&n.dev].mac));
        }
        // __neigh_update takes the address given as a change unless the entry was
        // valid with that address already
        let ha_changed = !no_ha && n.lladdr.is_some() && !(old_valid && n.lladdr == old_ha);
        if n.state.valid() && n.lladdr.is_none() {
            if !old_valid {
                match at {
                    None => {
                        self.neigh_stamps_new((n.dev, n.addr, n.v6));
                        self.neigh.push(Neighbour {
                            state: NudState::None,
                            lladdr: None,
                            ..n
                        });
                    }
                    // the refused update has already set the entry's protocol and,
                    // neigh_update_flags, its `extern_learn` and `managed` as the
                    // request gave them (a managed entry becomes unmanaged; found by
                    // `neigh` seed 282)
                    Some(i) => {
                        let e = &mut self.neigh[i];
                        e.protocol = n.protocol;
                        e.flags = (e.flags & !ntf::EXT_LEARNED) | (given & ntf::EXT_LEARNED);
                        e.managed = n.managed;
                    }
                }
                self.bump();
                return Err(Error::msg(Errno::EINVAL, "No link layer address given"));
            }
            n.lladdr = old_ha;
        }
        if n.state.valid() {
            n.flags = given;
        }
        let key = (n.dev, n.addr, n.v6);
        let now = self.ms_clock;
        let old_state = at.map(|i| self.neigh[i].state);
        // (the kernel's old state of a new entry is its constructor's)
        let kold = old_state.unwrap_or(if old_valid {
            NudState::Noarp
        } else {
            NudState::None
        });
        let requested = n.state;
        if at.is_none() {
            self.neigh_stamps_new(key);
        } else if old_state != Some(requested) || !requested.valid() {
            // the probes the running timer counted stay with the entry
            self.neigh_timer_stop(key);
        }
        self.neigh_update_stamps(key, kold, requested, ha_changed);
        if n.state == NudState::Delay && kold != NudState::Delay {
            // __neigh_update arms the timer to fire at once for DELAY, and
            // neigh_timer_handler makes the entry REACHABLE if it was confirmed within
            // delay_first_probe_time (5 s), else PROBE (counting its probes from 0):
            // it has happened by the next command (scenario 495)
            let delay = self.neigh_params(n.dev, n.v6).delay_ms;
            let s = self.neigh_stamps_mut(key);
            let recent = now <= s.confirmed.saturating_add(delay);
            n.state = if recent {
                NudState::Reachable
            } else {
                s.probes = 0;
                NudState::Probe
            };
        }
        // __neigh_update restarts the timer only for a new state, a PROBE one counting
        // its probes from 0 (a DELAY one has turned PROBE above), and stops it for a
        // state that is not valid whatever the entry's was (an INCOMPLETE entry
        // resolving, set INCOMPLETE again, resolves no more)
        if old_state != Some(requested) || !requested.valid() {
            self.neigh_timers.remove(&key);
            if n.state == NudState::Probe {
                self.neigh_timers.insert(key, NeighTimer::Probe(now));
            }
            if requested == NudState::Delay && n.state == NudState::Reachable {
                self.neigh_reachable_timer(key, now);
            }
        }
        match at {
            Some(i) => self.neigh[i] = n,
            None => self.neigh.push(n),
        }
        self.neigh_run_timers();
        self.bump();
        Ok(())
    }

    /// The timer `__neigh_event_send` starts for entry `i`, just put in its state: a
    /// DELAY entry waits `delay_first_probe_time`; an INCOMPLETE one probes (its count
    /// starting at the unicast probes, then one sent at once), or fails at once when
    /// neither multicast nor application probes are allowed. Either way the entry is
    /// updated now.
    fn neigh_event_timer(&mut self, key: (u32, u128, bool), i: usize) {
        self.neigh_timer_stop(key);
        let now = self.ms_clock;
        match self.neigh[i].state {
            NudState::Delay => {
                self.neigh_stamps_mut(key).updated = now;
                self.neigh_timers.insert(key, NeighTimer::Delay(now));
            }
            NudState::Incomplete => {
                let p = self.neigh_params(key.0, key.2);
                let s = self.neigh_stamps_mut(key);
                s.updated = now;
                if p.mcast + p.app == 0 {
                    self.neigh[i].state = NudState::Failed;
                } else {
                    s.probes = p.ucast;
                    self.neigh_timers.insert(key, NeighTimer::Incomplete(now));
                }
            }
            _ => {}
        }
    }

    /// Entry `key` turned REACHABLE at `at` by its DELAY timer (`neigh_timer_handler`),
    /// which re-arms for its confirmation time plus the parameters' `reachable_time`,
    /// two jiffies later at the earliest. That time is random (`neigh_rand_reach_time`:
    /// from half to one and a half `base_reachable_time`); when even the longest has
    /// passed since the entry was confirmed (confirmed long ago, with a long
    /// `delay_first_probe_time`), the timer fires two jiffies later and the entry
    /// moves on.
    fn neigh_reachable_timer(&mut self, key: (u32, u128, bool), at: u64) {
        let base = self.neigh_params(key.0, key.2).base_reach_ms;
        let confirmed = self.neigh_stamps_mut(key).confirmed;
        if confirmed.saturating_add(base + base / 2) <= at {
            self.neigh_timers
                .insert(key, NeighTimer::Reachable(at + 2 * NEIGH_JIFFY_MS));
        }
    }

    /// `__neigh_update`'s bookkeeping of an entry's times for an administrative
    /// update from state `old` to `new` (`ha_changed`: given a new link-layer
    /// address): a connected state is confirmed now; a change of state or address is
    /// an update; a new timer counts the entry used when it was last confirmed, if
    /// later (`neigh_add_timer`); a new address in a state that is not connected was
    /// confirmed long ago. A state that is not valid changes no time, but failing an
    /// entry that was resolving updates it (`neigh_invalidate`).
    fn neigh_update_stamps(
        &mut self,
        key: (u32, u128, bool),
        old: NudState,
        new: NudState,
        ha_changed: bool,
    ) {
        let now = self.ms_clock;
        let unconfirmed = self.neigh_unconfirmed_at(key.0, key.2);
        let connected = |s: NudState| {
            matches!(
                s,
                NudState::Reachable | NudState::Permanent | NudState::Noarp
            )
        };
        let s = self.neigh_stamps_mut(key);
        if !new.valid() {
            if matches!(old, NudState::Incomplete | NudState::Probe) && new == NudState::Failed {
                s.updated = now;
            }
            return;
        }
        if connected(new) {
            s.confirmed = now;
        }
        if new != old || ha_changed {
            s.updated = now;
        }
        if new != old {
            if new == NudState::Probe {
                s.probes = 0;
            }
            if matches!(new, NudState::Reachable | NudState::Delay | NudState::Probe) {
                s.used = s.used.max(s.confirmed);
            }
        }
        if ha_changed && !connected(new) {
            s.confirmed = unconfirmed;
        }
    }

    /// The probes entry `key` has counted by now, in `state`: those of its last event,
    /// or, while its INCOMPLETE or PROBE timer runs, one more per `retrans_time` (up
    /// to the last, after which it fails): an INCOMPLETE entry started at the unicast
    /// probes and sent one at once, a PROBE one sent its first at once.
    fn neigh_probes_now(&self, key: (u32, u128, bool), state: NudState) -> u64 {
        let base = self.neigh_stamps.get(&key).map_or(0, |s| s.probes);
        let Some(t) = self.neigh_timers.get(&key).copied() else {
            return base;
        };
        let p = self.neigh_params(key.0, key.2);
        let fired = |since: u64| self.ms_clock.saturating_sub(since) / p.retrans_ms.max(1);
        match (t, state) {
            (NeighTimer::Incomplete(since), NudState::Incomplete) => {
                p.ucast + 1 + fired(since).min((p.app + p.mcast).saturating_sub(1))
            }
            (NeighTimer::Probe(since), NudState::Probe) => {
                let max = p.ucast + p.app + p.mcast_re;
                if max == 0 {
                    0
                } else {
                    1 + fired(since).min(max - 1)
                }
            }
            _ => base,
        }
    }

    /// Stops entry `key`'s timer (`neigh_del_timer`), keeping the probes it counted.
    fn neigh_timer_stop(&mut self, key: (u32, u128, bool)) {
        let Some(state) = self
            .neigh
            .iter()
            .find(|e| (e.dev, e.addr, e.v6) == key)
            .map(|e| e.state)
        else {
            self.neigh_timers.remove(&key);
            return;
        };
        let probes = self.neigh_probes_now(key, state);
        self.neigh_timers.remove(&key);
        self.neigh_stamps_mut(key).probes = probes;
    }

    /// `neigh_fill_info`'s statistics of entry `n` (`ip -s neigh`): its ages in
    /// `USER_HZ` ticks (`jiffies_to_clock_t` of the jiffies since), the references
    /// its running timer holds, and its probes.
    pub fn neigh_cacheinfo(&self, n: &Neighbour) -> NeighCacheInfo {
        let key = (n.dev, n.addr, n.v6);
        let now = self.ms_clock;
        let s = self.neigh_stamps.get(&key).copied().unwrap_or(NeighStamps {
            used: now,
            confirmed: now,
            updated: now,
            probes: 0,
        });
        let ticks = |t: u64| {
            let jiffies = now.saturating_sub(t) / NEIGH_JIFFY_MS;
            jiffies * 100 / (1000 / NEIGH_JIFFY_MS)
        };
        NeighCacheInfo {
            used: ticks(s.used),
            confirmed: ticks(s.confirmed),
            updated: ticks(s.updated),
            refcnt: u32::from(self.neigh_held(n)),
            probes: u32::try_from(self.neigh_probes_now(key, n.state)).unwrap_or(u32::MAX),
        }
    }

    /// A device's neighbour parameters as the timers use them
    /// ([`crate::ntable::NeighParms`], the kernel's defaults for a device without
    /// them: 3 unicast and 3 multicast probes, 1 s apart, 5 s of delay).
    fn neigh_params(&self, dev: u32, v6: bool) -> NeighParams {
        let def;
        let p = match self.neigh_parms(dev, v6) {
            Some(p) => p,
            None => {
                def = crate::ntable::NeighParms::defaults(v6, 0);
                &def
            }
        };
        let count = |n: i32| n.max(0) as u64;
        NeighParams {
            ucast: count(p.ucast_probes),
            app: count(p.app_probes),
            mcast: count(p.mcast_probes),
            mcast_re: count(p.mcast_reprobes),
            // a re-armed timer fires HZ/100 (2 jiffies) later at the earliest
            retrans_ms: p.retrans_jiffies().max(2) * NEIGH_JIFFY_MS,
            delay_ms: p.delay_probe_ms(),
            base_reach_ms: p.base_reachable.max(0) as u64 * NEIGH_JIFFY_MS,
        }
    }

    /// `neigh->confirmed` of an entry not confirmed since it was made or given a new
    /// address (`___neigh_create`, `__neigh_update`): twice `base_reachable_time` ago.
    fn neigh_unconfirmed_at(&self, dev: u32, v6: bool) -> u64 {
        let base = self.neigh_params(dev, v6).base_reach_ms;
        self.ms_clock.saturating_sub(base.saturating_mul(2))
    }

    /// The times of an entry made now (`neigh_alloc`, `___neigh_create`): used and
    /// updated now, confirmed long ago, no probe.
    fn neigh_stamps_new(&mut self, key: (u32, u128, bool)) {
        let now = self.ms_clock;
        let confirmed = self.neigh_unconfirmed_at(key.0, key.2);
        self.neigh_stamps.insert(
            key,
            NeighStamps {
                used: now,
                confirmed,
                updated: now,
                probes: 0,
            },
        );
    }

    /// The times of entry `key` to change (made as for a new entry if missing).
    fn neigh_stamps_mut(&mut self, key: (u32, u128, bool)) -> &mut NeighStamps {
        if !self.neigh_stamps.contains_key(&key) {
            self.neigh_stamps_new(key);
        }
        self.neigh_stamps.get_mut(&key).expect("just made")
    }

    /// `neigh_timer_handler` for every timer due by now: a DELAY entry is probed (or
    /// reachable again), a PROBE or INCOMPLETE one whose probes went unanswered fails
    /// (its link-layer address is no longer listed). A timer whose entry is gone or
    /// left its state is dropped.
    pub(crate) fn neigh_run_timers(&mut self) {
        if self.neigh_timers.is_empty() {
            return;
        }
        let now = self.ms_clock;
        let mut keys: Vec<_> = self.neigh_timers.keys().copied().collect();
        keys.sort_unstable();
        let mut changed = false;
        for key in keys {
            // (one key's timer may fire more than once by now)
            while let Some(t) = self.neigh_timers.get(&key).copied() {
                let Some(i) = self
                    .neigh
                    .iter()
                    .position(|e| (e.dev, e.addr, e.v6) == key && !e.managed)
                else {
                    self.neigh_timers.remove(&key);
                    break;
                };
                let p = self.neigh_params(key.0, key.2);
                let state = self.neigh[i].state;
                let wanted = match t {
                    NeighTimer::Delay(_) => NudState::Delay,
                    NeighTimer::Probe(_) => NudState::Probe,
                    NeighTimer::Incomplete(_) | NeighTimer::Once(_) => NudState::Incomplete,
                    NeighTimer::Reachable(_) => NudState::Reachable,
                };
                if state != wanted {
                    self.neigh_timers.remove(&key);
                    break;
                }
                match t {
                    NeighTimer::Delay(since) => {
                        let due = since + p.delay_ms;
                        if now < due {
                            break;
                        }
                        // (the state changes then: the entry is updated at that time)
                        let s = self.neigh_stamps_mut(key);
                        let recent = due <= s.confirmed.saturating_add(p.delay_ms);
                        s.updated = due;
                        if !recent {
                            s.probes = 0;
                        }
                        changed = true;
                        self.neigh_timers.remove(&key);
                        if recent {
                            self.neigh[i].state = NudState::Reachable;
                            self.neigh_reachable_timer(key, due);
                        } else {
                            self.neigh[i].state = NudState::Probe;
                            self.neigh_timers.insert(key, NeighTimer::Probe(due));
                        }
                    }
                    NeighTimer::Reachable(at) => {
                        if now < at {
                            break;
                        }
                        // neigh_timer_handler of a REACHABLE entry whose reachable
                        // time is over: DELAY if it was used within
                        // delay_first_probe_time, else STALE (no timer)
                        let s = self.neigh_stamps_mut(key);
                        s.updated = at;
                        let used = s.used;
                        changed = true;
                        self.neigh_timers.remove(&key);
                        if at <= used.saturating_add(p.delay_ms) {
                            self.neigh[i].state = NudState::Delay;
                            self.neigh_timers.insert(key, NeighTimer::Delay(at));
                        } else {
                            self.neigh[i].state = NudState::Stale;
                        }
                    }
                    NeighTimer::Once(due) => {
                        // neigh_timer_handler: the probes are at the most, so the entry
                        // fails (neigh_invalidate), keeping its count
                        if now >= due {
                            self.neigh[i].state = NudState::Failed;
                            self.neigh_timers.remove(&key);
                            self.neigh_stamps_mut(key).updated = due;
                            changed = true;
                        }
                        break;
                    }
                    NeighTimer::Probe(_) | NeighTimer::Incomplete(_) => {
                        // (the probes counted when the entry fails: all it was allowed)
                        let (due, probes) = match t {
                            NeighTimer::Probe(since) => {
                                let max = p.ucast + p.app + p.mcast_re;
                                (since + max * p.retrans_ms, max)
                            }
                            NeighTimer::Incomplete(since) => (
                                since + (p.app + p.mcast) * p.retrans_ms,
                                p.ucast + p.app + p.mcast,
                            ),
                            _ => unreachable!("matched above"),
                        };
                        if now >= due {
                            self.neigh[i].state = NudState::Failed;
                            self.neigh_timers.remove(&key);
                            // neigh_invalidate
                            let s = self.neigh_stamps_mut(key);
                            s.updated = due;
                            s.probes = probes;
                            changed = true;
                        }
                        break;
                    }
                }
            }
        }
        if changed {
            self.bump();
        }
    }

    /// `rt6_probe` of router `gw` on `dev` (see [`crate::rt6probe`]) as far as the
    /// entry goes: whether the probe is sent. A valid entry needs none; another is
    /// probed once `rtr_probe_interval` (`interval_ms`) has passed since it was
    /// updated (`__neigh_set_probe_once`: updated now, and a FAILED entry resolves
    /// again, INCOMPLETE with its probes at the most, to fail one `retrans_time`
    /// later); without an entry, once the interval has passed since `last` (the
    /// nexthop's last probe, `None`: never).
    pub(crate) fn neigh_router_probe(
        &mut self,
        dev: u32,
        gw: u128,
        interval_ms: i64,
        last: Option<u64>,
    ) -> bool {
        let now = self.ms_clock;
        let after = |t: u64| i128::from(now) > i128::from(t) + i128::from(interval_ms);
        let key = (dev, gw, true);
        let Some(i) = self.neigh.iter().position(|e| (e.dev, e.addr, e.v6) == key) else {
            return last.is_none_or(after);
        };
        if self.neigh[i].state.valid() || !after(self.neigh_stamps_mut(key).updated) {
            return false;
        }
        self.neigh_stamps_mut(key).updated = now;
        if self.neigh[i].state == NudState::Failed {
            self.neigh_timer_stop(key);
            self.neigh[i].state = NudState::Incomplete;
            let p = self.neigh_params(dev, true);
            // neigh_max_probes of an INCOMPLETE entry; the timer fires HZ/100 later
            // at the earliest (as retrans_ms already is)
            self.neigh_stamps_mut(key).probes = p.ucast + p.app + p.mcast;
            self.neigh_timers
                .insert(key, NeighTimer::Once(now + p.retrans_ms));
        }
        self.bump();
        true
    }

    /// The Neighbour Solicitation `rt6_probe_deferred` sends for `gw` on `dev` to its
    /// solicited-node group (`ndisc_send_ns`): none without a link-local address that
    /// is neither tentative nor optimistic (`ipv6_get_lladdr`); else its output makes
    /// the group's entry (`ip6_finish_output2`'s `__neigh_create`: NOARP, with the
    /// mapped multicast address) if there is none.
    pub(crate) fn neigh_solicit_router(&mut self, dev: u32, gw: u128) {
        use crate::addr::ifa;
        let banned = ifa::TENTATIVE | ifa::OPTIMISTIC;
        let has_ll = self
            .addrs6(dev)
            .iter()
            .any(|a| a.scope == crate::route::scope::LINK && a.flags & banned == 0);
        if !has_ll {
            return;
        }
        self.neigh_mc_entry(dev, crate::mcast::solicited_node(gw), true);
    }

    /// The entry a packet sent to multicast `addr` through `dev` makes when there is
    /// none (`ip_finish_output2`, `ip6_finish_output2`, then `arp_constructor` /
    /// `ndisc_constructor`): NUD_NOARP with the group's mapped address. Through the
    /// loopback, IPv4 looks up 0.0.0.0 (`ip_neigh_gw4`) and takes the device's own
    /// address, IPv6 its broadcast address (`ndisc_mc_map` of a non-Ethernet device).
    pub(crate) fn neigh_mc_entry(&mut self, dev: u32, addr: u128, v6: bool) {
        let Some(lo) = self.links.get(&dev).map(|l| l.is_loopback()) else {
            return;
        };
        let addr = if lo && !v6 { 0 } else { addr };
        let key = (dev, addr, v6);
        if self.neigh.iter().any(|e| (e.dev, e.addr, e.v6) == key) {
            return;
        }
        let Some(lladdr) = self.neigh_initial(dev, addr, v6) else {
            return;
        };
        self.neigh_stamps_new(key);
        self.neigh.push(Neighbour {
            dev,
            addr,
            v6,
            state: NudState::Noarp,
            lladdr: Some(lladdr),
            flags: 0,
            managed: false,
            protocol: 0,
        });
        self.bump();
    }

    /// When entry (`dev`, `addr`, `v6`) was last updated (`neigh->updated`, ms).
    pub(crate) fn neigh_updated_ms(&self, dev: u32, addr: u128, v6: bool) -> u64 {
        self.neigh_stamps
            .get(&(dev, addr, v6))
            .map_or(self.ms_clock, |s| s.updated)
    }

    /// `neigh_changeaddr` (ARP and ND): every entry of `dev` goes, permanent ones too;
    /// its proxy entries stay.
    fn neigh_changeaddr(&mut self, dev: u32) {
        self.neigh.retain(|n| n.dev != dev);
    }

    /// `NETDEV_CHANGEADDR` of `dev` as ARP and ND hear it (`arp_netdev_event`,
    /// `ndisc_netdev_event`): the device's neighbours go, ARP flushes the IPv4 route
    /// cache (the routes nexthops keep) and ND runs the IPv6 routes' garbage
    /// collector.
    pub(crate) fn netdev_changeaddr(&mut self, dev: u32) {
        // br_device_event: a port's local forwarding entry follows its address, and
        // a bridge whose address was never set takes its ports' smallest again
        self.fdb_port_changeaddr(dev);
        if let Some(br) = self.links.get(&dev).map(|l| l.master).filter(|&b| b != 0) {
            self.bridge_recalculate_id(br);
        }
        self.neigh_changeaddr(dev);
        self.rt_cache_flush4();
        self.fib6_run_gc_now();
    }

    /// `neigh_ifdown` of the ARP (`Some(false)`), ND (`Some(true)`) or both tables for
    /// `dev`: its entries, permanent ones too, and its proxy entries.
    pub(crate) fn neigh_ifdown(&mut self, dev: u32, v6: Option<bool>) {
        let hit = |d: u32, f: bool| d == dev && v6.is_none_or(|x| x == f);
        self.neigh.retain(|n| !hit(n.dev, n.v6));
        // pndisc_destructor: an IPv6 proxy entry leaves its solicited-node group
        let gone: Vec<u128> = self
            .proxies
            .iter()
            .filter(|p| hit(p.dev, p.v6) && p.v6)
            .map(|p| p.addr)
            .collect();
        for a in gone {
            self.mc6_dec(dev, crate::mcast::solicited_node(a));
        }
        self.proxies.retain(|p| !hit(p.dev, p.v6));
    }

    /// `ip neigh add|replace|change proxy ADDR dev DEV` (`neigh_add` with `NTF_PROXY`):
    /// the entry is made if missing (at the head of its hash bucket) and takes the
    /// request's flags, and its protocol when one is given. `managed` is refused, and
    /// a new IPv6 entry on a device without IPv6 state (ENOBUFS).
    pub fn pneigh_add(
        &mut self,
        dev: u32,
        addr: u128,
        v6: bool,
        flags: u8,
        managed: bool,
        protocol: u8,
    ) -> Result<()> {
        // dev 0: a request naming no device makes an entry for every device (dev NULL)
        if dev != 0 && !self.links.contains_key(&dev) {
            return Err(Error::new(Errno::ENODEV));
        }
        if managed {
            return Err(Error::msg(Errno::EINVAL, "Invalid NTF_* flag combination"));
        }
        let idev6 = self.has_idev6(dev);
        // pneigh_create looks the key up first: an entry made without a device is
        // found (and updated) by a request for any device, and nothing new is made
        let seq = self.pneigh_lookup(dev, addr, v6).map(|p| p.seq);
        match self.proxies.iter_mut().find(|p| seq == Some(p.seq)) {
            Some(p) => {
                p.flags = flags;
                if protocol != 0 {
                    p.protocol = protocol;
                }
            }
            // pndisc_constructor refuses a device without IPv6 state, and neigh_add
            // says ENOBUFS when pneigh_create makes nothing (random seed 30454)
            None if v6 && !idev6 => return Err(Error::new(Errno::ENOBUFS)),
            None => {
                self.proxy_seq += 1;
                // pndisc_constructor: an IPv6 entry joins its address's solicited-node
                // group (on any device, NOARP ones too)
                if v6 {
                    self.mc6_inc(dev, crate::mcast::solicited_node(addr));
                }
                self.proxies.push(ProxyNeighbour {
                    dev,
                    addr,
                    v6,
                    flags,
                    protocol,
                    seq: self.proxy_seq,
                });
            }
        }
        self.bump();
        Ok(())
    }

    /// `pneigh_lookup`: the first entry of the key's hash bucket (the newest, as
    /// entries go to the bucket's head) whose device is `dev` or none: an entry made
    /// without a device stands for every device. A lookup for no device (0) finds
    /// only such entries.
    pub fn pneigh_lookup(&self, dev: u32, addr: u128, v6: bool) -> Option<&ProxyNeighbour> {
        self.proxies
            .iter()
            .filter(|p| p.addr == addr && p.v6 == v6 && (p.dev == dev || p.dev == 0))
            .max_by_key(|p| p.seq)
    }

    /// `ip neigh del proxy ADDR dev DEV` (`pneigh_delete`): ENOENT when missing; unlike
    /// a lookup, it wants the device to be the entry's own.
    pub fn pneigh_del(&mut self, dev: u32, addr: u128, v6: bool) -> Result<()> {
        // neigh_delete looks the request's index up first (an `ifN` form may name none)
        if dev != 0 && !self.links.contains_key(&dev) {
            return Err(Error::new(Errno::ENODEV));
        }
        let before = self.proxies.len();
        self.proxies
            .retain(|p| !(p.dev == dev && p.addr == addr && p.v6 == v6));
        if self.proxies.len() == before {
            return Err(Error::new(Errno::ENOENT));
        }
        if v6 {
            self.mc6_dec(dev, crate::mcast::solicited_node(addr));
        }
        self.bump();
        Ok(())
    }

    /// The proxy entries in the kernel's dump order: IPv4 before IPv6, then by hash
    /// bucket, the newest first within a bucket.
    pub fn proxies(&self) -> Vec<&ProxyNeighbour> {
        let mut v: Vec<&ProxyNeighbour> = self.proxies.iter().collect();
        v.sort_by_key(|p| (p.v6, p.bucket(), std::cmp::Reverse(p.seq)));
        v
    }

    /// `ip neigh del`.
    pub fn neigh_del(&mut self, dev: u32, addr: u128, v6: bool) -> Result<()> {
        // neigh_delete looks the request's index up first (an `ifN` form may name none)
        if dev != 0 && !self.links.contains_key(&dev) {
            return Err(Error::new(Errno::ENODEV));
        }
        let before = self.neigh.len();
        self.neigh
            .retain(|e| !(e.dev == dev && e.addr == addr && e.v6 == v6));
        if self.neigh.len() == before {
            return Err(Error::new(Errno::ENOENT));
        }
        self.bump();
        Ok(())
    }

    /// Neighbour entries.
    pub fn neighbours(&self) -> &[Neighbour] {
        &self.neigh
    }

    /// Whether entry `n` is held (`ndm_refcnt` above 0, which `ip neigh show unused`
    /// leaves out): by its running timer, which a REACHABLE, DELAY or PROBE entry has,
    /// and an INCOMPLETE one only while resolving (one set INCOMPLETE by hand has
    /// none: `__neigh_update` of a state that is not valid stops the timer).
    pub fn neigh_held(&self, n: &Neighbour) -> bool {
        match n.state {
            NudState::Reachable | NudState::Delay | NudState::Probe => true,
            NudState::Incomplete => self.neigh_timers.contains_key(&(n.dev, n.addr, n.v6)),
            _ => false,
        }
    }

    pub(crate) fn neigh_state(&self, dev: u32, addr: u128, v6: bool) -> Option<NudState> {
        self.neigh
            .iter()
            .find(|e| e.dev == dev && e.addr == addr && e.v6 == v6)
            .map(|e| e.state)
    }

    /// The state of gateway `gw`'s neighbour entry on `dev` (ARP or neighbour discovery
    /// by its family), if it has one.
    pub(crate) fn gw_neigh_state(&self, dev: u32, gw: crate::route::Gateway) -> Option<NudState> {
        match gw {
            crate::route::Gateway::V4(g) => self.neigh_state(dev, u128::from(g), false),
            crate::route::Gateway::V6(g) => self.neigh_state(dev, g, true),
        }
    }

    // ------------------------------------------------------------------ rules

    /// The rules of a family, in priority order.
    pub fn rules(&self, v6: bool) -> &[Rule] {
        if v6 {
            &self.rules6
        } else {
            &self.rules4
        }
    }

    /// The multicast routing rules of a family (`ip [-6] mrule`), in priority order.
    pub fn mrules(&self, v6: bool) -> &[Rule] {
        if v6 {
            &self.mrules6
        } else {
            &self.mrules4
        }
    }

    /// Whether the family's rule list was ever changed (the kernel's
    /// `fib_has_custom_rules`): while false, lookups skip the rules.
    pub fn has_custom_rules(&self, v6: bool) -> bool {
        if v6 {
            self.custom_rules6
        } else {
            self.custom_rules4
        }
    }

    /// The rules a compiled answer must check a flow against before it may answer:
    /// every rule of the family that can select an output flow without a source or an
    /// output interface, except the default lookups (IPv4: `local`, `main`,
    /// `default`; IPv6: `local`, `main`; rules without selectors), which must all be
    /// there, once each, in that order. A flow none of these rules selects walks
    /// exactly the default rules, whatever their priorities. `None` when the default
    /// lookups are not intact (deleted, duplicated, reordered): no compiled answers then.
    pub(crate) fn rule_guard(&self, v6: bool) -> Option<Vec<crate::rule::CompiledRule>> {
        let mut guard = self.custom_rules(v6)?;
        // the flows that take compiled answers come from lo with no source, no output
        // interface (and for IPv4 a TOS of 0): rules that select none of them are left out
        let tos = if v6 { None } else { Some(0) };
        guard.retain(|r| !r.never_selects(1, 0, 0, tos));
        Some(guard)
    }

    /// The custom rules, in order (every rule but the default rules' lookups), or
    /// `None` when the default rules are not all there in their order.
    pub(crate) fn custom_rules(&self, v6: bool) -> Option<Vec<crate::rule::CompiledRule>> {
        let prog = if v6 { &self.prog6 } else { &self.prog4 };
        let want: &[u32] = if v6 {
            &[tid::LOCAL, tid::MAIN]
        } else {
            &[tid::LOCAL, tid::MAIN, tid::DEFAULT]
        };
        let plain: Vec<crate::rule::CompiledRule> = want
            .iter()
            .map(|t| crate::rule::compile_rules(&[Rule::lookup(0, *t)], v6)[0])
            .collect();
        let mut seen = Vec::new();
        let mut guard = Vec::new();
        for c in prog {
            // the compiled form holds the action: equal means the same plain lookup
            match plain.iter().position(|x| x == c) {
                Some(i) => seen.push(want[i]),
                None => guard.push(*c),
            }
        }
        (seen == want).then_some(guard)
    }

    /// Recompute which gotos resolve.
    pub(crate) fn rules_resolve(&mut self, v6: bool) {
        let rules = if v6 {
            &mut self.rules6
        } else {
            &mut self.rules4
        };
        resolve_gotos(rules);
        let prog = crate::rule::compile_rules(rules, v6);
        if v6 {
            self.prog6 = prog;
        } else {
            self.prog4 = prog;
        }
    }
}

/// Marks each goto of `rules` resolved when a rule of its target priority exists.
pub(crate) fn resolve_gotos(rules: &mut [Rule]) {
    let prefs: BTreeSet<u32> = rules.iter().map(|r| r.pref).collect();
    for r in rules.iter_mut() {
        if let RuleAction::Goto(t) = r.action {
            r.goto_resolved = prefs.contains(&t);
        }
    }
}

/// When the IPv6 address `addr` of `dev` had its lifetimes set (`ifp->tstamp`), on the
/// millisecond clock: the time recorded by `ip -6 addr add`/`change`, or, for an
/// address without one, its seconds-clock stamp `tstamp` counted back from now (`now_s`
/// seconds, `ms` on the millisecond clock). A free function so that it can be asked
/// while the addresses are borrowed for a change.
fn addr6_set_time(
    set_ms: &HashMap<(u32, u128), u64>,
    now_s: u64,
    ms: u64,
    dev: u32,
    addr: u128,
    tstamp: u64,
) -> u64 {
    set_ms
        .get(&(dev, addr))
        .copied()
        .unwrap_or_else(|| ms.saturating_sub(now_s.saturating_sub(tstamp).saturating_mul(1000)))
}
