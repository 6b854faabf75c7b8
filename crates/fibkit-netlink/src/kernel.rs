//! The kernel's state as read from rtnetlink: one validated record per link, address,
//! route, rule, nexthop object and neighbour entry, decoded from the raw messages.
//!
//! Decoding never fails as a whole: a message too short for its family header, or an
//! attribute that cannot be read, yields a [`Warning`] and the message (or attribute)
//! is skipped.

use crate::nl::{attrs, ip_of, u16_at, u32_at, Attr};
use crate::Warning;

/// `AF_INET`.
pub const AF_INET: u8 = 2;
/// `AF_INET6`.
pub const AF_INET6: u8 = 10;
/// The multicast routing families of rules (`ip mrule`).
pub const RTNL_FAMILY_IPMR: u8 = 128;
/// See [`RTNL_FAMILY_IPMR`].
pub const RTNL_FAMILY_IP6MR: u8 = 129;

/// An IP address of either family (IPv4 in the low 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ip {
    /// IPv4.
    V4(u32),
    /// IPv6.
    V6(u128),
}

impl Ip {
    fn from_raw((a, v6): (u128, bool)) -> Ip {
        if v6 {
            Ip::V6(a)
        } else {
            Ip::V4(a as u32)
        }
    }
    /// Whether this is an IPv6 address.
    pub fn is_v6(self) -> bool {
        matches!(self, Ip::V6(_))
    }
}

impl std::fmt::Display for Ip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Ip::V4(a) => std::net::Ipv4Addr::from(a).fmt(f),
            Ip::V6(a) => std::net::Ipv6Addr::from(a).fmt(f),
        }
    }
}

/// A network device (`RTM_NEWLINK`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KLink {
    /// Interface index.
    pub index: u32,
    /// Name (`IFLA_IFNAME`).
    pub name: String,
    /// Kind (`IFLA_INFO_KIND`: `veth`, `dummy`, `ifb`, `bridge`, ...); `None` for
    /// devices without one (loopback, physical ethernet).
    pub kind: Option<String>,
    /// MTU.
    pub mtu: u32,
    /// Hardware address when it is a 6-byte one.
    pub mac: Option<[u8; 6]>,
    /// `IFF_UP`.
    pub up: bool,
    /// Carrier (`IFLA_CARRIER`, or `IFF_LOWER_UP` without it).
    pub carrier: bool,
    /// `IFLA_OPERSTATE` (RFC 2863 value).
    pub operstate: u8,
    /// `IFLA_LINK`: the peer of a veth (or lower device), if any.
    pub link: Option<u32>,
    /// The `IFLA_LINK` device is in another namespace (`IFLA_LINK_NETNSID`).
    pub link_other_ns: bool,
    /// Device group.
    pub group: u32,
    /// `IFLA_TXQLEN`.
    pub txqlen: Option<u32>,
    /// `IFLA_IFALIAS`.
    pub alias: Option<String>,
    /// Alternative names (`IFLA_PROP_LIST` / `IFLA_ALT_IFNAME`), in the kernel's order.
    pub altnames: Vec<String>,
    /// `IFF_LOOPBACK`.
    pub loopback: bool,
    /// The header's flags (`dev_get_flags()`: `IFF_NOARP`, `IFF_MULTICAST`, ...).
    pub flags: u32,
    /// The IPv6 token (`ip token`: `IFLA_AF_SPEC` / `AF_INET6` / `IFLA_INET6_TOKEN`);
    /// 0 when none is set or the device has no IPv6 state.
    pub token6: u128,
    /// The IPv6 address generation mode (`IFLA_INET6_ADDR_GEN_MODE`: 0 EUI-64, 1 none,
    /// 2 stable privacy, 3 random); `None` without IPv6 state.
    pub addr_gen_mode6: Option<u8>,
    /// `IFLA_MASTER`: the device this one is a port of (a bridge, a bond, ...), 0 for
    /// none.
    pub master: u32,
    /// A tun device's settings (`IFLA_INFO_DATA`), when the kernel gave some.
    pub tun: Option<KTun>,
    /// A macvlan's settings (`IFLA_INFO_DATA`), when the kernel gave some.
    pub macvlan: Option<KMacvlan>,
    /// A VXLAN device's settings (`IFLA_INFO_DATA`), when the kernel gave some.
    pub vxlan: Option<KVxlan>,
    /// A bridge's settings (`IFLA_INFO_DATA`, `br_fill_info`), when the kernel gave some.
    pub bridge: Option<KBridge>,
    /// A bridge port's settings (`IFLA_INFO_SLAVE_DATA` of slave kind `bridge`,
    /// `br_port_fill_attrs`), when the kernel gave some.
    pub port: Option<KPort>,
}

/// A bridge's settings as `ip link add ... type bridge` words (times in centiseconds,
/// as dumped), and those fibkit does not model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KBridge {
    /// `(option, value)` pairs for `type bridge`.
    pub opts: Vec<(&'static str, String)>,
    /// Settings fibkit cannot take (VLAN filtering on, user-space spanning tree,
    /// multicast VLAN snooping), by iproute2's word.
    pub unmodelled: Vec<&'static str>,
}

/// A bridge port's settings (`br_port_fill_attrs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KPort {
    /// Spanning tree state (`BR_STATE_*`).
    pub state: u8,
    /// Path cost.
    pub cost: u32,
    /// `(option, value)` pairs for `type bridge_slave`: the priority, the on/off flags,
    /// the multicast router and the group forward mask.
    pub opts: Vec<(&'static str, String)>,
    /// The backup port's ifindex (0: none).
    pub backup: u32,
}

/// `IFLA_INFO_DATA` of a bridge (`IFLA_BR_*`).
fn parse_bridge(i: &crate::nl::Attr<'_>) -> KBridge {
    let mut b = KBridge::default();
    for d in i.nested() {
        let u32v = || d.u32().map(|v| v.to_string());
        let u8v = || d.u8().map(|v| v.to_string());
        let word: Option<(&'static str, Option<String>)> = match d.ty {
            1 => Some(("forward_delay", u32v())),
            2 => Some(("hello_time", u32v())),
            3 => Some(("max_age", u32v())),
            4 => Some(("ageing_time", u32v())),
            5 => {
                if d.u32() == Some(2) {
                    b.unmodelled.push("stp_state 2");
                }
                Some(("stp_state", u32v()))
            }
            6 => Some(("priority", d.u16().map(|v| v.to_string()))),
            7 => {
                if d.u8().unwrap_or(0) != 0 {
                    b.unmodelled.push("vlan_filtering");
                }
                None
            }
            9 => Some(("group_fwd_mask", d.u16().map(|v| v.to_string()))),
            20 => Some((
                "group_address",
                <[u8; 6]>::try_from(d.data)
                    .ok()
                    .map(|m| crate::translate::mac_str(&m)),
            )),
            22 => Some(("mcast_router", u8v())),
            23 => Some(("mcast_snooping", u8v())),
            24 => Some(("mcast_query_use_ifaddr", u8v())),
            25 => Some(("mcast_querier", u8v())),
            27 => Some(("mcast_hash_max", u32v())),
            28 => Some(("mcast_last_member_count", u32v())),
            29 => Some(("mcast_startup_query_count", u32v())),
            30..=35 => {
                const NAMES: [&str; 6] = [
                    "mcast_last_member_interval",
                    "mcast_membership_interval",
                    "mcast_querier_interval",
                    "mcast_query_interval",
                    "mcast_query_response_interval",
                    "mcast_startup_query_interval",
                ];
                Some((
                    NAMES[usize::from(d.ty - 30)],
                    d.u64().map(|v| v.to_string()),
                ))
            }
            36 => Some(("nf_call_iptables", u8v())),
            37 => Some(("nf_call_ip6tables", u8v())),
            38 => Some(("nf_call_arptables", u8v())),
            42 => Some(("mcast_stats_enabled", u8v())),
            43 => Some(("mcast_igmp_version", u8v())),
            44 => Some(("mcast_mld_version", u8v())),
            // struct br_boolopt_multi { optval, optmask }
            46 => {
                let val = d
                    .data
                    .get(..4)
                    .map_or(0, |x| u32::from_ne_bytes([x[0], x[1], x[2], x[3]]));
                if val & 2 != 0 {
                    b.unmodelled.push("mcast_vlan_snooping");
                }
                Some(("no_linklocal_learn", Some((val & 1).to_string())))
            }
            _ => None,
        };
        if let Some((k, Some(v))) = word {
            b.opts.push((k, v));
        }
    }
    b
}

/// `IFLA_INFO_SLAVE_DATA` of a bridge port (`IFLA_BRPORT_*`).
fn parse_port(i: &crate::nl::Attr<'_>) -> KPort {
    let mut p = KPort::default();
    for d in i.nested() {
        let flag = match d.ty {
            4 => Some("hairpin"),
            5 => Some("guard"),
            6 => Some("root_block"),
            7 => Some("fastleave"),
            8 => Some("learning"),
            9 => Some("flood"),
            10 => Some("proxy_arp"),
            12 => Some("proxy_arp_wifi"),
            27 => Some("mcast_flood"),
            28 => Some("mcast_to_unicast"),
            29 => Some("vlan_tunnel"),
            30 => Some("bcast_flood"),
            32 => Some("neigh_suppress"),
            33 => Some("isolated"),
            39 => Some("locked"),
            _ => None,
        };
        if let Some(f) = flag {
            let on = d.u8().unwrap_or(0) != 0;
            p.opts.push((f, if on { "on" } else { "off" }.to_string()));
            continue;
        }
        match d.ty {
            1 => p.state = d.u8().unwrap_or(0),
            2 => {
                if let Some(v) = d.u16() {
                    p.opts.push(("priority", v.to_string()));
                }
            }
            3 => p.cost = d.u32().unwrap_or(0),
            25 => {
                if let Some(v) = d.u8() {
                    p.opts.push(("mcast_router", v.to_string()));
                }
            }
            31 => {
                if let Some(v) = d.u16() {
                    p.opts.push(("group_fwd_mask", v.to_string()));
                }
            }
            34 => p.backup = d.u32().unwrap_or(0),
            _ => {}
        }
    }
    p
}

/// A VXLAN device's settings (`vxlan_fill_info`): fibkit's own, the lower device by
/// the kernel's ifindex (`IFLA_VXLAN_LINK`), and what fibkit does not model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KVxlan {
    /// The settings fibkit models.
    pub conf: fibkit::vxlan::Vxlan,
    /// Settings fibkit does not model that differ from their defaults (`proxy`,
    /// `l2miss`, `gbp`, ...), by iproute2's word.
    pub unmodelled: Vec<&'static str>,
}

/// `IFLA_INFO_DATA` of a VXLAN device.
fn parse_vxlan(data: &crate::nl::Attr<'_>) -> KVxlan {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    let mut k = KVxlan::default();
    let v = &mut k.conf;
    let u = &mut k.unmodelled;
    for d in data.nested() {
        let on = d.u8().unwrap_or(0) != 0;
        let be16 = |b: &[u8], i: usize| {
            b.get(i..i + 2)
                .map_or(0, |x| u16::from_be_bytes([x[0], x[1]]))
        };
        let ip4 = |b: &[u8]| {
            <[u8; 4]>::try_from(b)
                .ok()
                .map(|a| IpAddr::V4(Ipv4Addr::from(a)))
                .filter(|a| !a.is_unspecified())
        };
        let ip6 = |b: &[u8]| {
            <[u8; 16]>::try_from(b)
                .ok()
                .map(|a| IpAddr::V6(Ipv6Addr::from(a)))
                .filter(|a| !a.is_unspecified())
        };
        match d.ty {
            1 => v.vni = d.u32().unwrap_or(0),
            2 => v.remote = v.remote.or(ip4(d.data)),
            3 => v.lower = d.u32().unwrap_or(0),
            4 => v.local = v.local.or(ip4(d.data)),
            5 => v.ttl = d.u8().unwrap_or(0),
            6 => v.tos = d.u8().unwrap_or(0),
            7 => v.learning = on,
            8 => v.ageing = d.u32().unwrap_or(0),
            9 => v.limit = d.u32().unwrap_or(0),
            10 => v.srcport = (be16(d.data, 0), be16(d.data, 2)),
            11 => v.proxy = on,
            12 => v.rsc = on,
            13 => v.l2miss = on,
            14 => v.l3miss = on,
            15 => v.dstport = be16(d.data, 0),
            16 => v.remote = v.remote.or(ip6(d.data)),
            17 => v.local = v.local.or(ip6(d.data)),
            18 => v.udp_csum = on,
            19 => v.zero_csum6_tx = on,
            20 => v.zero_csum6_rx = on,
            21 => v.remcsum_tx = on,
            22 => v.remcsum_rx = on,
            23 => v.gbp = true,
            25 => v.external = on,
            26 => v.label = u32::from_be(d.u32().unwrap_or(0)),
            27 => v.gpe = true,
            28 => v.ttl_inherit = on,
            29 => v.df = d.u8().unwrap_or(0),
            30 => v.vnifilter = on,
            31 if !on => u.push("nolocalbypass"),
            _ => {}
        }
    }
    k
}

/// A macvlan's settings (`macvlan_fill_info`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KMacvlan {
    /// `IFLA_MACVLAN_MODE` (`MACVLAN_MODE_*`).
    pub mode: u32,
    /// `IFLA_MACVLAN_FLAGS` (1 `nopromisc`, 2 `nodst`).
    pub flags: u16,
    /// `IFLA_MACVLAN_BC_QUEUE_LEN`.
    pub bcqueuelen: Option<u32>,
    /// `IFLA_MACVLAN_MACADDR_DATA`: the source mode's addresses, in the kernel's
    /// order.
    pub macaddrs: Vec<[u8; 6]>,
}

/// A tun or tap device's settings (`tun_fill_info`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KTun {
    /// A tap (`IFF_TAP`), else a tun.
    pub tap: bool,
    /// A packet information header (`pi`).
    pub pi: bool,
    /// `vnet_hdr`.
    pub vnet_hdr: bool,
    /// `persist`: it stays without a process.
    pub persist: bool,
    /// `multi_queue`.
    pub multi_queue: bool,
    /// `IFLA_TUN_OWNER`, when set.
    pub owner: Option<u32>,
    /// `IFLA_TUN_GROUP`, when set.
    pub group: Option<u32>,
}

/// An interface address (`RTM_NEWADDR`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KAddr {
    /// Device index.
    pub index: u32,
    /// The local address (`IFA_LOCAL`, or `IFA_ADDRESS` without it).
    pub local: Ip,
    /// The peer address when it differs from the local one.
    pub peer: Option<Ip>,
    /// Prefix length.
    pub plen: u8,
    /// Scope.
    pub scope: u8,
    /// `IFA_F_*` flags (`IFA_FLAGS`, or the header's 8 bits).
    pub flags: u32,
    /// Broadcast address (IPv4), if any.
    pub broadcast: Option<u32>,
    /// Label (IPv4).
    pub label: Option<String>,
    /// `IFA_RT_PRIORITY`: metric of the prefix route.
    pub metric: u32,
    /// Valid and preferred lifetimes (seconds; `u32::MAX`: forever).
    pub lifetimes: (u32, u32),
}

/// One path of a route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KHop {
    /// Gateway (`RTA_GATEWAY` or `RTA_VIA`).
    pub gw: Option<Ip>,
    /// Output device index (0: none).
    pub oif: u32,
    /// Weight (1..=256).
    pub weight: u32,
    /// `RTNH_F_*` flags.
    pub flags: u32,
    /// Realm (`RTA_FLOW`).
    pub realm: u32,
    /// Its encapsulation (`RTA_ENCAP_TYPE` and `RTA_ENCAP`), of a type fibkit models.
    pub encap: Option<std::sync::Arc<fibkit::encap::Encap>>,
}

/// A route (`RTM_NEWROUTE`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KRoute {
    /// IPv6 (`true`) or IPv4.
    pub v6: bool,
    /// Table id.
    pub table: u32,
    /// `RTN_*` type.
    pub rtype: u8,
    /// `RTPROT_*`.
    pub proto: u8,
    /// Scope.
    pub scope: u8,
    /// Destination address and length.
    pub dst: (u128, u8),
    /// Source prefix (IPv6 source-specific routes).
    pub src: (u128, u8),
    /// TOS / dsfield.
    pub tos: u8,
    /// Priority (metric).
    pub priority: u32,
    /// Preferred source.
    pub prefsrc: Option<Ip>,
    /// Paths (one for a single-path route; none for a reject route or one through a
    /// nexthop object, whose paths the kernel adds to the dump for show only).
    pub hops: Vec<KHop>,
    /// `rtm_flags`.
    pub flags: u32,
    /// Metrics `(RTAX id, value)`, without `RTAX_LOCK` and `RTAX_CC_ALGO`.
    pub metrics: Vec<(u8, u32)>,
    /// `RTAX_LOCK` mask.
    pub locks: u32,
    /// `RTAX_CC_ALGO`.
    pub congctl: Option<String>,
    /// IPv6 router preference (`RTA_PREF`: 0 medium, 1 high, 3 low).
    pub pref: u8,
    /// Nexthop object id.
    pub nhid: u32,
    /// Seconds left before an IPv6 route expires, plus one (`RTA_CACHEINFO`'s
    /// `rta_expires`, floored to seconds as `ip` prints them), if it expires; 0 for one
    /// that has expired (listed until the garbage collector runs).
    pub expires: Option<u32>,
    /// The route has an encapsulation of a type fibkit does not model (`seg6local`,
    /// `bpf`, ...).
    pub encap: bool,
}

/// A port or uid range of a rule.
pub type KRange = (u32, u32);

/// A policy rule (`RTM_NEWRULE`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KRule {
    /// IPv6 (`true`) or IPv4.
    pub v6: bool,
    /// A multicast routing rule (`RTNL_FAMILY_IPMR` / `RTNL_FAMILY_IP6MR`, `ip mrule`).
    pub mc: bool,
    /// Priority.
    pub pref: u32,
    /// Source prefix.
    pub src: Option<(Ip, u8)>,
    /// Destination prefix.
    pub dst: Option<(Ip, u8)>,
    /// TOS.
    pub tos: u8,
    /// `FR_ACT_*`.
    pub action: u8,
    /// `FIB_RULE_*` flags (invert 2, permanent 1).
    pub flags: u32,
    /// Table (`FRA_TABLE`, or the header's 8 bits).
    pub table: u32,
    /// `FRA_IIFNAME`.
    pub iif: Option<String>,
    /// `FRA_OIFNAME`.
    pub oif: Option<String>,
    /// `FRA_GOTO`.
    pub goto: Option<u32>,
    /// `FRA_FWMARK`.
    pub mark: Option<u32>,
    /// `FRA_FWMASK`.
    pub mask: Option<u32>,
    /// `FRA_FLOW` (realms).
    pub realms: Option<u32>,
    /// `FRA_TUN_ID`.
    pub tun_id: Option<u64>,
    /// `FRA_SUPPRESS_IFGROUP`.
    pub suppress_ifgroup: Option<u32>,
    /// `FRA_SUPPRESS_PREFIXLEN`.
    pub suppress_prefixlen: Option<u32>,
    /// `FRA_L3MDEV`.
    pub l3mdev: bool,
    /// `FRA_UID_RANGE`.
    pub uid: Option<KRange>,
    /// `FRA_PROTOCOL`.
    pub protocol: u8,
    /// `FRA_IP_PROTO`.
    pub ipproto: Option<u8>,
    /// `FRA_SPORT_RANGE`.
    pub sport: Option<KRange>,
    /// `FRA_DPORT_RANGE`.
    pub dport: Option<KRange>,
    /// Attributes fibkit does not model (`dscp`, `flowlabel`, port masks), by number.
    pub unsupported: Vec<u16>,
}

/// A nexthop object (`RTM_NEWNEXTHOP`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KNexthop {
    /// Id.
    pub id: u32,
    /// `nhm_family` (0 for groups).
    pub family: u8,
    /// Protocol.
    pub proto: u8,
    /// `RTNH_F_*` flags (onlink 4).
    pub flags: u32,
    /// `nhm_scope`: host (254) for a gateway that was a local address when the
    /// object was made.
    pub scope: u8,
    /// Output device.
    pub oif: u32,
    /// Gateway.
    pub gw: Option<Ip>,
    /// `NHA_BLACKHOLE`.
    pub blackhole: bool,
    /// `NHA_FDB`.
    pub fdb: bool,
    /// Group members `(id, weight)`.
    pub group: Vec<(u32, u32)>,
    /// `NHA_GROUP_TYPE` (0 mpath, 1 resilient).
    pub group_type: u16,
    /// `NHA_RES_GROUP` of a resilient group.
    pub res: Option<KResGroup>,
    /// Its encapsulation, of a type fibkit models.
    pub lwt: Option<std::sync::Arc<fibkit::encap::Encap>>,
    /// Has an encapsulation of a type fibkit does not model.
    pub encap: bool,
}

/// A resilient group's parameters (`NHA_RES_GROUP`; times in hundredths of a second,
/// the kernel's `clock_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KResGroup {
    /// `NHA_RES_GROUP_BUCKETS`.
    pub buckets: u16,
    /// `NHA_RES_GROUP_IDLE_TIMER`.
    pub idle_timer: u32,
    /// `NHA_RES_GROUP_UNBALANCED_TIMER`.
    pub unbalanced_timer: u32,
    /// `NHA_RES_GROUP_UNBALANCED_TIME`: how long the group has been unbalanced.
    pub unbalanced_time: u64,
}

/// One bucket of a resilient group (`RTM_NEWNEXTHOPBUCKET`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KBucket {
    /// The group's id.
    pub group: u32,
    /// `NHA_RES_BUCKET_INDEX`.
    pub index: u16,
    /// `NHA_RES_BUCKET_NH_ID`: the member it sends flows to.
    pub nh: u32,
    /// `NHA_RES_BUCKET_IDLE_TIME` (hundredths of a second).
    pub idle_time: u64,
}

/// `NUD_*` neighbour states (`ndm_state`).
pub mod nud {
    /// `NUD_NONE`
    pub const NONE: u16 = 0x00;
    /// `NUD_INCOMPLETE`
    pub const INCOMPLETE: u16 = 0x01;
    /// `NUD_REACHABLE`
    pub const REACHABLE: u16 = 0x02;
    /// `NUD_STALE`
    pub const STALE: u16 = 0x04;
    /// `NUD_DELAY`
    pub const DELAY: u16 = 0x08;
    /// `NUD_PROBE`
    pub const PROBE: u16 = 0x10;
    /// `NUD_FAILED`
    pub const FAILED: u16 = 0x20;
    /// `NUD_NOARP`
    pub const NOARP: u16 = 0x40;
    /// `NUD_PERMANENT`
    pub const PERMANENT: u16 = 0x80;
    /// `NUD_VALID`: the states in which the entry may be used.
    pub const VALID: u16 = PERMANENT | NOARP | REACHABLE | PROBE | STALE | DELAY;
}

/// `NTF_*` neighbour flags (`ndm_flags`).
pub use fibkit::netns::ntf;

/// A neighbour entry (`RTM_NEWNEIGH`) of the ARP or ND table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KNeigh {
    /// Device index.
    pub index: u32,
    /// The neighbour's address (`NDA_DST`).
    pub dst: Ip,
    /// `NUD_*` state (see [`nud`]).
    pub state: u16,
    /// `NTF_*` flags (see [`ntf`]).
    pub flags: u8,
    /// `ndm_type` (an `RTN_*` type: unicast, multicast, broadcast, ...).
    pub ntype: u8,
    /// Link-layer address (`NDA_LLADDR`), of whatever length the device uses.
    pub lladdr: Option<Vec<u8>>,
    /// `NDA_PROTOCOL` (0: none).
    pub protocol: u8,
}

fn short(what: &str, w: &mut Vec<Warning>) {
    w.push(Warning::new(format!(
        "skipped a {what} message too short for its header"
    )));
}

/// Decode an `RTM_NEWLINK` payload.
pub fn decode_link(p: &[u8], w: &mut Vec<Warning>) -> Option<KLink> {
    if p.len() < 16 {
        short("link", w);
        return None;
    }
    let flags = u32_at(p, 8)?;
    let mut l = KLink {
        index: u32_at(p, 4)?,
        up: flags & 0x1 != 0,
        loopback: flags & 0x8 != 0,
        carrier: flags & 0x1_0000 != 0,
        flags,
        ..Default::default()
    };
    let mut carrier = None;
    let mut slave_kind: Option<String> = None;
    for a in attrs(&p[16..]) {
        match a.ty {
            1 => l.mac = a.data.try_into().ok(),
            3 => l.name = a.str().unwrap_or("").to_string(),
            4 => l.mtu = a.u32().unwrap_or(0),
            5 => l.link = a.u32(),
            10 => l.master = a.u32().unwrap_or(0),
            16 => l.operstate = a.u8().unwrap_or(0),
            18 => {
                for i in a.nested() {
                    match i.ty {
                        1 => l.kind = i.str().map(str::to_string),
                        // IFLA_INFO_DATA of a tun: IFLA_TUN_TYPE, _PI, _VNET_HDR,
                        // _PERSIST, _MULTI_QUEUE
                        2 if l.kind.as_deref() == Some("tun") => {
                            let mut t = KTun::default();
                            for d in i.nested() {
                                let on = d.u8().unwrap_or(0) != 0;
                                match d.ty {
                                    1 => t.owner = d.u32(),
                                    2 => t.group = d.u32(),
                                    3 => t.tap = d.u8() == Some(2),
                                    4 => t.pi = on,
                                    5 => t.vnet_hdr = on,
                                    6 => t.persist = on,
                                    7 => t.multi_queue = on,
                                    _ => {}
                                }
                            }
                            l.tun = Some(t);
                        }
                        2 if l.kind.as_deref() == Some("vxlan") => {
                            l.vxlan = Some(parse_vxlan(&i));
                        }
                        2 if l.kind.as_deref() == Some("bridge") => {
                            l.bridge = Some(parse_bridge(&i));
                        }
                        4 => slave_kind = i.str().map(str::to_string),
                        5 if slave_kind.as_deref() == Some("bridge") => {
                            l.port = Some(parse_port(&i));
                        }
                        // IFLA_INFO_DATA of a macvlan: IFLA_MACVLAN_MODE, _FLAGS,
                        // _MACADDR_DATA (of _MACADDR), _BC_QUEUE_LEN
                        2 if matches!(l.kind.as_deref(), Some("macvlan" | "macvtap")) => {
                            let mut m = KMacvlan::default();
                            for d in i.nested() {
                                match d.ty {
                                    1 => m.mode = d.u32().unwrap_or(0),
                                    2 => {
                                        m.flags = d
                                            .data
                                            .get(..2)
                                            .map_or(0, |b| u16::from_ne_bytes([b[0], b[1]]))
                                    }
                                    5 => {
                                        for e in d.nested().filter(|e| e.ty == 4) {
                                            if let Ok(a) = <[u8; 6]>::try_from(e.data) {
                                                m.macaddrs.push(a);
                                            }
                                        }
                                    }
                                    7 => m.bcqueuelen = d.u32(),
                                    _ => {}
                                }
                            }
                            l.macvlan = Some(m);
                        }
                        _ => {}
                    }
                }
            }
            27 => l.group = a.u32().unwrap_or(0),
            13 => l.txqlen = a.u32(),
            20 => l.alias = a.str().filter(|s| !s.is_empty()).map(str::to_string),
            33 => carrier = a.u8(),
            37 => l.link_other_ns = true,
            // IFLA_PROP_LIST: IFLA_ALT_IFNAME strings
            52 => {
                for i in a.nested().filter(|i| i.ty == 53) {
                    if let Some(n) = i.str().filter(|n| !n.is_empty()) {
                        l.altnames.push(n.to_string());
                    }
                }
            }
            // IFLA_AF_SPEC: per family; AF_INET6's IFLA_INET6_TOKEN (an in6_addr)
            26 => {
                for f in a.nested().filter(|f| f.ty == u16::from(AF_INET6)) {
                    for i in f.nested() {
                        match i.ty {
                            7 => {
                                if let Ok(b) = <[u8; 16]>::try_from(i.data) {
                                    l.token6 = u128::from_be_bytes(b);
                                }
                            }
                            8 => l.addr_gen_mode6 = i.u8(),
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(c) = carrier {
        l.carrier = c != 0;
    }
    if l.name.is_empty() {
        w.push(Warning::new(format!(
            "link {} has no name: skipped",
            l.index
        )));
        return None;
    }
    Some(l)
}

/// Decode an `RTM_NEWADDR` payload.
pub fn decode_addr(p: &[u8], w: &mut Vec<Warning>) -> Option<KAddr> {
    if p.len() < 8 {
        short("address", w);
        return None;
    }
    let family = p[0];
    if family != AF_INET && family != AF_INET6 {
        return None;
    }
    let mut address = None;
    let mut local = None;
    let mut a = KAddr {
        index: u32_at(p, 4)?,
        local: Ip::V4(0),
        peer: None,
        plen: p[1],
        scope: p[3],
        flags: u32::from(p[2]),
        broadcast: None,
        label: None,
        metric: 0,
        lifetimes: (u32::MAX, u32::MAX),
    };
    for at in attrs(&p[8..]) {
        match at.ty {
            1 => address = at.ip().map(Ip::from_raw),
            2 => local = at.ip().map(Ip::from_raw),
            3 => a.label = at.str().map(str::to_string),
            4 => {
                if let Some(Ip::V4(b)) = at.ip().map(Ip::from_raw) {
                    a.broadcast = Some(b);
                }
            }
            6 => {
                // struct ifa_cacheinfo: ifa_prefered, ifa_valid, cstamp, tstamp
                if let (Some(pr), Some(va)) = (u32_at(at.data, 0), u32_at(at.data, 4)) {
                    a.lifetimes = (va, pr);
                }
            }
            8 => a.flags = at.u32().unwrap_or(a.flags),
            9 => a.metric = at.u32().unwrap_or(0),
            _ => {}
        }
    }
    match (local, address) {
        (Some(l), Some(ad)) => {
            a.local = l;
            if ad != l {
                a.peer = Some(ad);
            }
        }
        (Some(l), None) | (None, Some(l)) => a.local = l,
        (None, None) => {
            w.push(Warning::new(
                "an address message without an address: skipped",
            ));
            return None;
        }
    }
    if a.local.is_v6() != (family == AF_INET6) {
        w.push(Warning::new("an address of the wrong family: skipped"));
        return None;
    }
    Some(a)
}

fn gw_of(a: &Attr<'_>) -> Option<Ip> {
    a.ip().map(Ip::from_raw)
}

/// `RTA_VIA`: `struct rtvia { u16 family; u8 addr[]; }`.
fn via_of(a: &Attr<'_>) -> Option<Ip> {
    let fam = u16_at(a.data, 0)?;
    let ip = ip_of(a.data.get(2..)?)?;
    match (fam, ip.1) {
        (2, false) | (10, true) => Some(Ip::from_raw(ip)),
        _ => None,
    }
}

/// Decode an `RTM_NEWROUTE` payload. `None` for families other than IPv4/IPv6 and for
/// cached (`RTM_F_CLONED`) entries.
pub fn decode_route(p: &[u8], w: &mut Vec<Warning>) -> Option<KRoute> {
    if p.len() < 12 {
        short("route", w);
        return None;
    }
    let family = p[0];
    if family != AF_INET && family != AF_INET6 {
        return None;
    }
    let v6 = family == AF_INET6;
    let flags = u32_at(p, 8)?;
    if flags & 0x200 != 0 {
        // RTM_F_CLONED: an exception (cache) entry
        return None;
    }
    let mut r = KRoute {
        v6,
        table: u32::from(p[4]),
        rtype: p[7],
        proto: p[5],
        scope: p[6],
        dst: (0, p[1]),
        src: (0, p[2]),
        tos: p[3],
        priority: 0,
        prefsrc: None,
        hops: Vec::new(),
        flags,
        metrics: Vec::new(),
        locks: 0,
        congctl: None,
        pref: 0,
        nhid: 0,
        expires: None,
        encap: false,
    };
    let mut single = KHop {
        gw: None,
        oif: 0,
        weight: 1,
        flags: flags & 0xff,
        realm: 0,
        encap: None,
    };
    let mut encap_type = None;
    let mut encap_data: &[u8] = &[];
    let mut multipath: Option<Vec<Hop>> = None;
    let mut bad = false;
    for a in attrs(&p[12..]) {
        match a.ty {
            1 => r.dst.0 = a.ip().map_or(0, |x| x.0),
            2 => r.src.0 = a.ip().map_or(0, |x| x.0),
            4 => single.oif = a.u32().unwrap_or(0),
            5 => single.gw = gw_of(&a),
            6 => r.priority = a.u32().unwrap_or(0),
            7 => r.prefsrc = gw_of(&a),
            8 => {
                for m in a.nested() {
                    let v = m.u32().unwrap_or(0);
                    match m.ty {
                        1 => r.locks = v,
                        16 => r.congctl = m.str().map(str::to_string),
                        t => r.metrics.push((t as u8, v)),
                    }
                }
            }
            9 => match decode_multipath(a.data) {
                Some(h) => multipath = Some(h),
                None => bad = true,
            },
            11 => single.realm = a.u32().unwrap_or(0),
            15 => r.table = a.u32().unwrap_or(r.table),
            18 => single.gw = via_of(&a),
            20 => r.pref = a.u8().unwrap_or(0),
            21 => encap_type = a.u16(),
            22 => encap_data = a.data,
            // struct rta_cacheinfo: rta_expires (clock ticks left, USER_HZ = 100) is
            // its third word; `ip` prints it floored to seconds, and the mirror adds
            // the route with one second more, which fibkit prints one less
            12 if v6 => {
                let left = a
                    .data
                    .get(8..12)
                    .map(|b| i32::from_ne_bytes(b.try_into().expect("four bytes")));
                // (0: the route does not expire; below 0: it has expired, and lookups
                // pass it over until the garbage collector removes it: mirrored as a
                // route expiring at once, `expires 0`)
                match left {
                    Some(t) if t > 0 => r.expires = Some(t.unsigned_abs() / 100 + 1),
                    Some(t) if t < 0 => r.expires = Some(0),
                    _ => {}
                }
            }
            23 => r.expires = a.u32(),
            30 => r.nhid = a.u32().unwrap_or(0),
            _ => {}
        }
    }
    if bad {
        w.push(Warning::new(
            "a route with a malformed RTA_MULTIPATH: skipped",
        ));
        return None;
    }
    r.metrics.sort_unstable();
    if let Some(t) = encap_type {
        match decode_encap(t, encap_data) {
            Some(e) => single.encap = Some(e),
            None => r.encap = true,
        }
    }
    if multipath
        .as_ref()
        .is_some_and(|h| h.iter().any(|h| h.encap_unknown))
    {
        r.encap = true;
    }
    r.hops = match multipath {
        Some(h) => h.into_iter().map(|x| x.h).collect(),
        // a reject route keeps its realms (`unreachable PFX realm N`) in a path without
        // a device or gateway
        None if single.oif != 0 || single.gw.is_some() || single.realm != 0 => vec![single],
        None => Vec::new(),
    };
    Some(r)
}

/// A path of `RTA_MULTIPATH`, and whether its encapsulation is of a type fibkit does
/// not model.
struct Hop {
    h: KHop,
    encap_unknown: bool,
}

/// `RTA_MULTIPATH`: a list of `struct rtnexthop { u16 len; u8 flags; u8 hops; int
/// ifindex; }`, each followed by its attributes.
fn decode_multipath(mut b: &[u8]) -> Option<Vec<Hop>> {
    let mut out = Vec::new();
    while b.len() >= 8 {
        let len = usize::from(u16_at(b, 0)?);
        if len < 8 || len > b.len() {
            return None;
        }
        let mut h = KHop {
            gw: None,
            oif: u32_at(b, 4)?,
            weight: u32::from(b[3]) + 1,
            flags: u32::from(b[2]),
            realm: 0,
            encap: None,
        };
        let (mut et, mut ed): (Option<u16>, &[u8]) = (None, &[]);
        for a in attrs(&b[8..len]) {
            match a.ty {
                5 => h.gw = gw_of(&a),
                18 => h.gw = via_of(&a),
                11 => h.realm = a.u32().unwrap_or(0),
                21 => et = a.u16(),
                22 => ed = a.data,
                _ => {}
            }
        }
        let unknown = match et {
            Some(t) => {
                h.encap = decode_encap(t, ed);
                h.encap.is_none()
            }
            None => false,
        };
        out.push(Hop {
            h,
            encap_unknown: unknown,
        });
        b = b.get((len + 3) & !3..).unwrap_or(&[]);
    }
    Some(out)
}

fn range_of(a: &Attr<'_>, wide: bool) -> Option<KRange> {
    if wide {
        Some((u32_at(a.data, 0)?, u32_at(a.data, 4)?))
    } else {
        Some((u32::from(u16_at(a.data, 0)?), u32::from(u16_at(a.data, 2)?)))
    }
}

/// Decode an `RTM_NEWRULE` payload (`struct fib_rule_hdr` and `FRA_*`).
pub fn decode_rule(p: &[u8], w: &mut Vec<Warning>) -> Option<KRule> {
    if p.len() < 12 {
        short("rule", w);
        return None;
    }
    let family = p[0];
    if ![AF_INET, AF_INET6, RTNL_FAMILY_IPMR, RTNL_FAMILY_IP6MR].contains(&family) {
        return None;
    }
    let mut r = KRule {
        v6: family == AF_INET6 || family == RTNL_FAMILY_IP6MR,
        mc: family >= RTNL_FAMILY_IPMR,
        tos: p[3],
        table: u32::from(p[4]),
        action: p[7],
        flags: u32_at(p, 8)?,
        ..Default::default()
    };
    let (dst_len, src_len) = (p[1], p[2]);
    for a in attrs(&p[12..]) {
        match a.ty {
            1 => r.dst = a.ip().map(|x| (Ip::from_raw(x), dst_len)),
            2 => r.src = a.ip().map(|x| (Ip::from_raw(x), src_len)),
            3 => r.iif = a.str().map(str::to_string),
            4 => r.goto = a.u32(),
            6 => r.pref = a.u32().unwrap_or(0),
            10 => r.mark = a.u32(),
            11 => r.realms = a.u32(),
            12 => r.tun_id = a.u64().map(u64::from_be),
            13 => r.suppress_ifgroup = a.u32(),
            14 => r.suppress_prefixlen = a.u32(),
            15 => r.table = a.u32().unwrap_or(r.table),
            16 => r.mask = a.u32(),
            17 => r.oif = a.str().map(str::to_string),
            19 => r.l3mdev = a.u8().unwrap_or(0) != 0,
            20 => r.uid = range_of(&a, true),
            21 => r.protocol = a.u8().unwrap_or(0),
            22 => r.ipproto = a.u8(),
            23 => r.sport = range_of(&a, false),
            24 => r.dport = range_of(&a, false),
            // FRA_SPORT_MASK / FRA_DPORT_MASK: the kernel reports a single-port
            // range with the full mask, which is what a range selector means anyway
            28 | 29 if a.u16() == Some(0xffff) => {}
            // FRA_PAD, FRA_DSCP and later selectors fibkit does not model
            18 => {}
            t if t >= 25 => r.unsupported.push(t),
            _ => {}
        }
    }
    // the kernel reports "no suppressor" as -1 in some versions
    if r.suppress_prefixlen == Some(u32::MAX) {
        r.suppress_prefixlen = None;
    }
    if r.suppress_ifgroup == Some(u32::MAX) {
        r.suppress_ifgroup = None;
    }
    Some(r)
}

/// Decode an `RTM_NEWNEXTHOP` payload (`struct nhmsg` and `NHA_*`).
pub fn decode_nexthop(p: &[u8], w: &mut Vec<Warning>) -> Option<KNexthop> {
    if p.len() < 8 {
        short("nexthop", w);
        return None;
    }
    let mut n = KNexthop {
        family: p[0],
        scope: p[1],
        proto: p[2],
        flags: u32_at(p, 4)?,
        ..Default::default()
    };
    let mut encap_type = None;
    let mut encap_data: &[u8] = &[];
    for a in attrs(&p[8..]) {
        match a.ty {
            1 => n.id = a.u32().unwrap_or(0),
            2 => {
                // struct nexthop_grp { u32 id; u8 weight; u8 weight_high; u16 resvd2; }
                for c in a.data.chunks_exact(8) {
                    let id = u32_at(c, 0).unwrap_or(0);
                    let wt = (u32::from(c[5]) << 8 | u32::from(c[4])) + 1;
                    n.group.push((id, wt));
                }
            }
            3 => n.group_type = a.u16().unwrap_or(0),
            4 => n.blackhole = true,
            5 => n.oif = a.u32().unwrap_or(0),
            6 => n.gw = a.ip().map(Ip::from_raw),
            7 => encap_type = a.u16(),
            8 => encap_data = a.data,
            11 => n.fdb = true,
            12 => {
                let mut r = KResGroup::default();
                for b in attrs(a.data) {
                    match b.ty {
                        1 => r.buckets = b.u16().unwrap_or(0),
                        2 => r.idle_timer = b.u32().unwrap_or(0),
                        3 => r.unbalanced_timer = b.u32().unwrap_or(0),
                        4 => r.unbalanced_time = b.u64().unwrap_or(0),
                        _ => {}
                    }
                }
                n.res = Some(r);
            }
            _ => {}
        }
    }
    if let Some(t) = encap_type {
        n.lwt = decode_encap(t, encap_data);
        n.encap = n.lwt.is_none();
    }
    if n.id == 0 {
        w.push(Warning::new("a nexthop object without an id: skipped"));
        return None;
    }
    Some(n)
}

/// Decode an `RTM_NEWNEXTHOPBUCKET` payload (`struct nhmsg`, `NHA_ID` and the nested
/// `NHA_RES_BUCKET`).
pub fn decode_bucket(p: &[u8], w: &mut Vec<Warning>) -> Option<KBucket> {
    if p.len() < 8 {
        short("nexthop bucket", w);
        return None;
    }
    let mut b = KBucket::default();
    let mut has_index = false;
    for a in attrs(&p[8..]) {
        match a.ty {
            1 => b.group = a.u32().unwrap_or(0),
            13 => {
                for x in attrs(a.data) {
                    match x.ty {
                        1 => {
                            b.index = x.u16().unwrap_or(0);
                            has_index = true;
                        }
                        2 => b.idle_time = x.u64().unwrap_or(0),
                        3 => b.nh = x.u32().unwrap_or(0),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if b.group == 0 || b.nh == 0 || !has_index {
        w.push(Warning::new(
            "a nexthop bucket without its group, index or member: skipped",
        ));
        return None;
    }
    Some(b)
}

/// Decode an `RTM_NEWNEIGH` (or `RTM_DELNEIGH`) payload (`struct ndmsg` and `NDA_*`).
/// `None` for families other than IPv4/IPv6 (bridge FDB entries and the like).
pub fn decode_neigh(p: &[u8], w: &mut Vec<Warning>) -> Option<KNeigh> {
    // struct ndmsg { u8 family; u8 pad1; u16 pad2; s32 ifindex; u16 state; u8 flags;
    // u8 type; }
    if p.len() < 12 {
        short("neighbour", w);
        return None;
    }
    let family = p[0];
    if family != AF_INET && family != AF_INET6 {
        return None;
    }
    let index = u32_at(p, 4)?;
    let state = u16_at(p, 8)?;
    let mut dst = None;
    let mut lladdr = None;
    let mut protocol = 0;
    let mut at = attrs(&p[12..]);
    for a in at.by_ref() {
        match a.ty {
            1 => dst = a.ip().map(Ip::from_raw),
            2 => lladdr = Some(a.data.to_vec()),
            // NDA_PROTOCOL
            12 => protocol = a.data.first().copied().unwrap_or(0),
            _ => {}
        }
    }
    if at.truncated {
        w.push(Warning::new(
            "a neighbour message with a malformed attribute: skipped",
        ));
        return None;
    }
    let Some(dst) = dst else {
        w.push(Warning::new(
            "a neighbour message without a valid address: skipped",
        ));
        return None;
    };
    if dst.is_v6() != (family == AF_INET6) {
        w.push(Warning::new("a neighbour of the wrong family: skipped"));
        return None;
    }
    Some(KNeigh {
        index,
        dst,
        state,
        flags: p[10],
        ntype: p[11],
        lladdr,
        protocol,
    })
}

/// An SRH (`struct ipv6_sr_hdr`: nexthdr, hdrlen, type, segments_left,
/// first_segment, flags, tag, then the segments and TLVs): the segments as iproute2
/// lists them and the HMAC key id (0: none).
fn decode_srh(h: &[u8]) -> Option<(Vec<u128>, u32)> {
    let be32 = |b: &[u8]| -> u32 { b.try_into().map_or(0, u32::from_be_bytes) };
    let (hdrlen, first, fl) = (usize::from(*h.get(1)?), usize::from(*h.get(4)?), *h.get(5)?);
    let mut segs = Vec::new();
    for i in (0..=first).rev() {
        let b: [u8; 16] = h.get(8 + 16 * i..8 + 16 * (i + 1))?.try_into().ok()?;
        segs.push(u128::from_be_bytes(b));
    }
    // SR6_FLAG1_HMAC: the HMAC TLV ends the header (type, len, reserved 2, key id 4,
    // then the HMAC)
    let hmac = if fl & 0x08 != 0 {
        let tlv = ((hdrlen + 1) * 8).checked_sub(40)?;
        be32(h.get(tlv + 4..tlv + 8)?)
    } else {
        0
    };
    Some((segs, hmac))
}

/// An encapsulation (`RTA_ENCAP_TYPE` / `NHA_ENCAP_TYPE` and the nested attributes of
/// `RTA_ENCAP` / `NHA_ENCAP`) of a type fibkit models: `ip` (2), `ip6` (4), `seg6`
/// (5), `seg6local` (7). `None` for another type or a malformed one.
pub fn decode_encap(ty: u16, data: &[u8]) -> Option<std::sync::Arc<fibkit::encap::Encap>> {
    use fibkit::encap::{Encap, Seg6Mode};
    let be64 = |b: &[u8]| -> u64 { b.try_into().map_or(0, u64::from_be_bytes) };
    let be32 = |b: &[u8]| -> u32 { b.try_into().map_or(0, u32::from_be_bytes) };
    let be128 = |b: &[u8]| -> u128 { b.try_into().map_or(0, u128::from_be_bytes) };
    let be16 = |b: &[u8]| -> u16 { b.try_into().map_or(0, u16::from_be_bytes) };
    let byte = |b: &[u8]| -> u8 { b.first().copied().unwrap_or(0) };
    let e = match ty {
        2 | 4 => {
            let (mut id, mut src, mut dst, mut ttl, mut tos, mut flags) = (0, 0, 0, 0, 0, 0);
            for a in attrs(data) {
                match a.ty {
                    1 => id = be64(a.data),
                    2 if ty == 2 => dst = u128::from(be32(a.data)),
                    3 if ty == 2 => src = u128::from(be32(a.data)),
                    2 => dst = be128(a.data),
                    3 => src = be128(a.data),
                    4 => ttl = byte(a.data),
                    5 => tos = byte(a.data),
                    6 => flags = be16(a.data),
                    _ => {}
                }
            }
            // the flags iproute2 shows and sends: key, csum, seq
            let flags = flags & 0x0d;
            if ty == 2 {
                Encap::Ip {
                    id,
                    src: src as u32,
                    dst: dst as u32,
                    ttl,
                    tos,
                    flags,
                    vxlan_gbp: None,
                }
            } else {
                Encap::Ip6 {
                    id,
                    src,
                    dst,
                    hoplimit: ttl,
                    tc: tos,
                    flags,
                    vxlan_gbp: None,
                }
            }
        }
        5 => {
            // SEG6_IPTUNNEL_SRH: struct seg6_iptunnel_encap { int mode; struct
            // ipv6_sr_hdr srh; }, the header: nexthdr, hdrlen, type, segments_left,
            // first_segment, flags, tag (2), then the segments (and a HMAC TLV)
            let srh = attrs(data).find(|a| a.ty == 1)?.data;
            let mode = match i32::from_ne_bytes(srh.get(..4)?.try_into().ok()?) {
                0 => Seg6Mode::Inline,
                1 => Seg6Mode::Encap,
                2 => Seg6Mode::L2Encap,
                3 => Seg6Mode::EncapRed,
                4 => Seg6Mode::L2EncapRed,
                _ => return None,
            };
            let (segs, hmac) = decode_srh(srh.get(4..)?)?;
            Encap::Seg6 { mode, segs, hmac }
        }
        7 => {
            // SEG6_LOCAL_*: action 1, srh 2, table 3, nh4 4, nh6 5, iif 6, oif 7,
            // counters 10, flavors 11 (operation 1, lblen 2, nflen 3)
            // (the behaviours fibkit models are the first ten)
            let actions = &fibkit::encap::SEG6LOCAL_ACTIONS[..10];
            let (mut action, mut table, mut nh4, mut nh6, mut oif) = (None, None, None, None, None);
            let (mut srh, mut count, mut flavors) = (None, false, None);
            for a in attrs(data) {
                match a.ty {
                    1 => {
                        let code = a.u32()? as usize;
                        action = Some(*actions.get(code.checked_sub(1)?)?);
                    }
                    2 => srh = Some(decode_srh(a.data)?),
                    3 => table = a.u32(),
                    4 => nh4 = Some(be32(a.data)),
                    5 => nh6 = Some(be128(a.data)),
                    7 => oif = a.u32(),
                    10 => count = true,
                    11 => {
                        let (mut op, mut lb, mut nf) = (0u32, 32u8, 16u8);
                        for f in attrs(a.data) {
                            match f.ty {
                                1 => op = f.u32().unwrap_or(0),
                                2 => lb = byte(f.data),
                                3 => nf = byte(f.data),
                                _ => {}
                            }
                        }
                        // the operations this kernel keeps: psp (bit 1), next-csid (4)
                        if op & !((1 << 1) | (1 << 4)) != 0 || op == 0 {
                            return None;
                        }
                        flavors = Some((op, lb, nf));
                    }
                    // iif: kept by no behaviour modelled
                    6 => {}
                    // bpf, vrftable: not modelled
                    _ => return None,
                }
            }
            Encap::Seg6Local {
                action: action?,
                table,
                nh4,
                nh6,
                oif,
                srh,
                count,
                flavors,
            }
        }
        _ => return None,
    };
    Some(std::sync::Arc::new(e))
}
