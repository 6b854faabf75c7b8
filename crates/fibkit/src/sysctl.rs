//! The per-namespace sysctls that change routing answers.

use std::collections::BTreeMap;

/// Per-device IPv4 configuration (`net.ipv4.conf.DEV.*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DevConf4 {
    /// `forwarding`
    pub forwarding: u32,
    /// `rp_filter`
    pub rp_filter: u32,
    /// `accept_local`
    pub accept_local: u32,
    /// `route_localnet`
    pub route_localnet: u32,
    /// `ignore_routes_with_linkdown`
    pub ignore_routes_with_linkdown: u32,
    /// `promote_secondaries`
    pub promote_secondaries: u32,
    /// `src_valid_mark`
    pub src_valid_mark: u32,
    /// `send_redirects` (default 1)
    pub send_redirects: u32,
    /// `shared_media` (default 1)
    pub shared_media: u32,
    /// `arp_evict_nocarrier` (default 1): a carrier loss flushes the device's ARP
    /// entries but the permanent ones, unless it is off for `all` or the device
    pub arp_evict_nocarrier: u32,
    /// `bc_forwarding`: directed broadcasts received on the device are forwarded
    /// when it is on for `all` and the device
    pub bc_forwarding: u32,
    /// `proxy_arp` (shown by `ip netconf` as `proxy_neigh`)
    pub proxy_arp: u32,
    /// Which of the knobs [`DevConf4::knob_mut`] gives a bit for were written here
    /// (the kernel's `ipv4_devconf.state`): a write to `default` reaches each device
    /// whose bit is clear, and a new device copies `default`'s bits with its values.
    pub written: u32,
}

impl DevConf4 {
    /// The value of `knob` (a `net.ipv4.conf.*` leaf name) and, for the knobs the
    /// kernel handles with `devinet_conf_proc`, its bit in [`DevConf4::written`];
    /// `None` for a knob fibkit does not model. `forwarding`, `route_localnet` and
    /// `promote_secondaries` have handlers of their own, which neither mark the
    /// knob written nor copy `default` to the devices.
    pub fn knob_mut(&mut self, knob: &str) -> Option<(&mut u32, Option<u32>)> {
        Some(match knob {
            "forwarding" => (&mut self.forwarding, None),
            "route_localnet" => (&mut self.route_localnet, None),
            "promote_secondaries" => (&mut self.promote_secondaries, None),
            "rp_filter" => (&mut self.rp_filter, Some(1)),
            "accept_local" => (&mut self.accept_local, Some(1 << 1)),
            "ignore_routes_with_linkdown" => (&mut self.ignore_routes_with_linkdown, Some(1 << 2)),
            "src_valid_mark" => (&mut self.src_valid_mark, Some(1 << 3)),
            "send_redirects" => (&mut self.send_redirects, Some(1 << 4)),
            "shared_media" => (&mut self.shared_media, Some(1 << 5)),
            "arp_evict_nocarrier" => (&mut self.arp_evict_nocarrier, Some(1 << 6)),
            "bc_forwarding" => (&mut self.bc_forwarding, Some(1 << 7)),
            "proxy_arp" => (&mut self.proxy_arp, Some(1 << 8)),
            _ => return None,
        })
    }
}

impl Default for DevConf4 {
    /// The kernel's defaults (`ipv4_devconf`): everything off but `send_redirects`,
    /// `shared_media` and `arp_evict_nocarrier`.
    fn default() -> Self {
        DevConf4 {
            forwarding: 0,
            rp_filter: 0,
            accept_local: 0,
            route_localnet: 0,
            ignore_routes_with_linkdown: 0,
            promote_secondaries: 0,
            src_valid_mark: 0,
            send_redirects: 1,
            shared_media: 1,
            arp_evict_nocarrier: 1,
            bc_forwarding: 0,
            proxy_arp: 0,
            written: 0,
        }
    }
}

/// Per-device IPv6 configuration (`net.ipv6.conf.DEV.*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DevConf6 {
    /// `forwarding`
    pub forwarding: u32,
    /// `ignore_routes_with_linkdown`
    pub ignore_routes_with_linkdown: u32,
    /// `keep_addr_on_down` (-1, 0, 1)
    pub keep_addr_on_down: i32,
    /// `accept_dad`
    pub accept_dad: i32,
    /// `disable_ipv6`
    pub disable_ipv6: u32,
    /// `router_solicitations`
    pub router_solicitations: i32,
    /// `use_oif_addrs_only`
    pub use_oif_addrs_only: u32,
    /// `optimistic_dad`: new addresses may be `optimistic` (RFC 4429) while DAD runs,
    /// if it is on for `all` or the device
    pub optimistic_dad: u32,
    /// `use_optimistic`: source selection need not avoid optimistic addresses (with
    /// `optimistic_dad`)
    pub use_optimistic: u32,
    /// `ndisc_evict_nocarrier` (default 1): a carrier loss flushes the device's
    /// neighbour discovery entries but the permanent ones, if it is on for `all` and
    /// the device
    pub ndisc_evict_nocarrier: u32,
    /// `proxy_ndp` (shown by `ip netconf` as `proxy_neigh`)
    pub proxy_ndp: u32,
    /// `addr_gen_mode`, as `ip link set DEV addrgenmode` sets it: 0 EUI-64, 1 none (no
    /// link-local address at link up), 2 stable privacy, 3 random.
    pub addr_gen_mode: u8,
    /// `stable_secret`: the secret of stable privacy addresses, once written (reading
    /// it before is EIO).
    pub stable_secret: Option<u128>,
    /// `use_tempaddr`: from 2 on, source address selection prefers temporary addresses
    /// of the device to its public ones (RFC 6724 rule 7 reversed)
    pub use_tempaddr: i32,
    /// `mtu`, once written (0: the device's MTU, which it is made with and set to at
    /// each MTU change of the device)
    pub mtu6: u32,
    /// `router_probe_interval`, in ms (written in seconds, `proc_dointvec_jiffies`;
    /// default 60 s): how often a router is probed ([`crate::rt6probe`])
    pub rtr_probe_interval_ms: i64,
    /// Not a sysctl: the interface identifier `ip token` sets (`idev->token`, its low
    /// 64 bits), kept with the device's IPv6 state and lost with it.
    pub token: u64,
}

impl Default for DevConf6 {
    /// The kernel's defaults (`ipv6_devconf`) for the knobs fibkit models: off but
    /// `ndisc_evict_nocarrier`.
    fn default() -> Self {
        DevConf6 {
            forwarding: 0,
            ignore_routes_with_linkdown: 0,
            keep_addr_on_down: 0,
            accept_dad: 0,
            disable_ipv6: 0,
            router_solicitations: 0,
            use_oif_addrs_only: 0,
            optimistic_dad: 0,
            use_optimistic: 0,
            ndisc_evict_nocarrier: 1,
            proxy_ndp: 0,
            addr_gen_mode: 0,
            stable_secret: None,
            mtu6: 0,
            use_tempaddr: 0,
            rtr_probe_interval_ms: 60_000,
            token: 0,
        }
    }
}

/// All routing-relevant sysctls of one namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sysctls {
    /// `net.ipv4.conf.all.*`
    pub v4_all: DevConf4,
    /// `net.ipv4.conf.default.*`
    pub v4_default: DevConf4,
    /// `net.ipv4.conf.DEV.*`
    pub v4_dev: BTreeMap<u32, DevConf4>,
    /// `net.ipv6.conf.all.*`
    pub v6_all: DevConf6,
    /// `net.ipv6.conf.default.*`
    pub v6_default: DevConf6,
    /// `net.ipv6.conf.DEV.*`
    pub v6_dev: BTreeMap<u32, DevConf6>,
    /// `net.ipv4.fib_multipath_hash_policy`
    pub fib_multipath_hash_policy: u32,
    /// `net.ipv4.fib_multipath_hash_fields`
    pub fib_multipath_hash_fields: u32,
    /// `net.ipv4.fib_multipath_hash_seed` (0: random per boot)
    pub fib_multipath_hash_seed: u32,
    /// `net.ipv6.fib_multipath_hash_policy`
    pub fib6_multipath_hash_policy: u32,
    /// `net.ipv6.fib_multipath_hash_fields`
    pub fib6_multipath_hash_fields: u32,
    /// `net.ipv4.fib_multipath_use_neigh`
    pub fib_multipath_use_neigh: u32,
    /// Other accepted keys, stored as written.
    pub other: BTreeMap<String, String>,
    /// The neighbour tables' parameters of each device with the family's state, by
    /// (IPv6, device): `net.ipv4|ipv6.neigh.DEV.*` and `ip ntable` ([`crate::ntable`]).
    pub neigh_parms: BTreeMap<(bool, u32), crate::ntable::NeighParms>,
    /// The last [`crate::ntable::NeighParms`] made (their creation order).
    pub ntable_seq: u64,
}

impl Sysctls {
    /// `net.ipv4.nexthop_compat_mode` (on by default): a dump of a route through a
    /// nexthop object carries the object's paths too, not only its id (both families'
    /// dumps read the IPv4 setting).
    pub fn nexthop_compat_mode(&self) -> bool {
        self.other_long("net.ipv4.nexthop_compat_mode")
            .is_none_or(|v| v != 0)
    }

    /// A key kept among [`Sysctls::other`], read as the kernel reads a number (`None`:
    /// never written).
    pub(crate) fn other_long(&self, key: &str) -> Option<i64> {
        self.other.get(key).and_then(|v| parse_long(v))
    }

    /// The IPv6 configuration a new device's `inet6_dev` starts with (`ipv6_add_dev`):
    /// `default`'s, in stable privacy mode when `default` has a `stable_secret`.
    pub fn new_dev6(&self) -> DevConf6 {
        let mut c = self.v6_default.clone();
        if c.stable_secret.is_some() {
            c.addr_gen_mode = 2;
        }
        c
    }

    /// The state of a new namespace as the oracle prepares it (DAD and router
    /// solicitations off, multipath hash seed 1).
    pub fn oracle_defaults() -> Self {
        let mut s = Sysctls::default();
        s.v6_all.router_solicitations = 0;
        s.v6_default.router_solicitations = 0;
        s.fib_multipath_hash_seed = 1;
        s.fib_multipath_hash_fields = 0x0007;
        s.fib6_multipath_hash_fields = 0x0007;
        s
    }
}

/// A sysctl value as the kernel's `proc_get_long` reads it (the value was checked when
/// written): an optional `-`, then a number in base 0 (`0x10` is 16, `010` is 8).
pub(crate) fn parse_long(v: &str) -> Option<i64> {
    let v = v.trim();
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v),
    };
    let n = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(h, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if neg { -n } else { n })
}
