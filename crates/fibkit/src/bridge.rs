//! Bridges (`net/bridge`) as routing sees them: a bridge is an Ethernet device whose
//! carrier follows its ports, and whose MTU follows theirs until the user sets one.
//!
//! - **Ports.** `ip link set DEV master BR` (`do_set_master`, `br_add_if`) makes an
//!   Ethernet device (a veth or a dummy, which the oracle models on ifb) a port; the
//!   loopback is refused (EINVAL), a bridge too (ELOOP, "Can not enslave a bridge to a
//!   bridge"), and a master that is not a bridge has no `ndo_add_slave` (EOPNOTSUPP).
//!   `nomaster` (or another master) releases it (`br_del_if`). A port counts one more
//!   in its promiscuity and all-multicast counts while it is one (`ip -d link`).
//! - **Carrier.** Without spanning tree (the default), a port that is up with carrier
//!   forwards at once (`br_make_forwarding`), and the bridge has carrier while it is up
//!   and one port forwards (`br_port_state_selection`). A bridge without ports is up
//!   with `NO-CARRIER`, `state DOWN`: its routes are `linkdown` and it makes no IPv6
//!   link-local address until a port brings the carrier. The kernel tells the
//!   bridge's loss of carrier through the link watch, which may hold a non-urgent
//!   event for up to a second: fibkit applies the settled state at once (conformance
//!   scenarios wait a second where the kernel may lag).
//! - **MTU.** `br_mtu_auto_adjust`: at each port added or removed and each MTU change
//!   of a port, the bridge takes its ports' smallest MTU (1500 without ports), unless
//!   its own MTU was set by the user (`BROPT_MTU_SET_BY_USER`), which stays so.
//! - **Multicast.** An open bridge with multicast snooping on (the default) joins the
//!   all-snoopers groups 224.0.0.106 and ff02::6a (`br_multicast_join_snoopers`,
//!   before the device's `NETDEV_UP`) and leaves them when it stops; turning snooping
//!   off leaves them, turning it on joins them if the bridge is up.
//! - **Addresses.** The oracle gives every new device an address (as `ip link add
//!   ... address`), which the kernel marks `NET_ADDR_SET`: a bridge then keeps its own
//!   address instead of taking its ports' smallest. One made without an address by a
//!   command the oracle leaves alone (`ip link replace`) keeps its random address
//!   until one is set, taking its ports' smallest meanwhile
//!   ([`BridgeConf::addr_random`], `br_stp_recalculate_bridge_id`).
//! - **Settings** ([`BridgeConf`], [`BridgePort`]). `ip link add|set ... type bridge
//!   OPTIONS` (`br_changelink`) and `ip link set PORT type bridge_slave OPTIONS`
//!   (`br_setport`) apply their options in the kernel's order, keeping those before a
//!   refused one; `ip -d link` shows them. Times are kept in ticks of this kernel's HZ
//!   (250). The kernel has no VLAN filtering (`vlan_filtering` is EOPNOTSUPP).
//! - **Spanning tree states.** Without other bridges in sight every enabled port is
//!   designated: it forwards at once without spanning tree (or with a forward delay of
//!   0), and listens under kernel spanning tree. The bridge has carrier while it is up
//!   and a port forwards, so a port set to `learning` by hand takes it away.
//! - **Spanning tree timers**, on the scenario's clock ([`Netns::now_ms`]): a port's
//!   forward delay timer starts when it leaves blocking (`br_make_forwarding`, also for
//!   a port that forwards at once). When it runs out a listening port learns for
//!   another forward delay (the one in force then) and a learning one forwards, which
//!   gives the bridge its carrier and, under kernel spanning tree, starts a topology
//!   change (`br_topology_change_detection`, the bridge being the root): the
//!   `topology_change` flags are set for the forward delay and the maximum age, and the
//!   ageing time in force is twice the forward delay meanwhile (restored at the end
//!   only under spanning tree). Turning spanning tree off stops none of these timers; a
//!   port's goes when it is disabled, the topology change when the bridge stops. The
//!   timers' values (`ip -d link`'s `*_timer`, which the kernel counts down in real
//!   time) are shown as 0.00, and the garbage collection timer does not run.
//! - **BPDUs in a loop.** The hello timer runs under kernel spanning tree while the
//!   bridge is up; each time, every designated port sends a configuration BPDU, which
//!   only a port at the other end of a veth pair in the same bridge hears (a loop; a
//!   peer in another bridge, which would take part in electing a root, is not
//!   modelled). The port with the larger port id records the smaller one as its
//!   designated port and blocks until its message age timer runs out.
//! - **Spanning tree counters** (`stp_xstats`, `ip stats ... xstats_slave bridge stp`):
//!   a port's transitions to blocking and to forwarding are counted as `br_set_state`
//!   counts them, only under kernel spanning tree: blocking when it joins the bridge
//!   (`new_nbp`'s `br_init_port`) and each time it is enabled (`br_stp_enable_port`),
//!   forwarding when its forward delay timer ends its learning. The BPDU counters
//!   stay 0 (the BPDUs sent and heard are not counted).

use crate::error::{Errno, Error, Result};
use crate::link::{dev_count_step, LinkKind};
use crate::netns::Netns;
use std::collections::BTreeSet;

/// ethtool's `SPEED_UNKNOWN` (-1 as a u32).
const SPEED_UNKNOWN: u32 = u32::MAX;

/// `INADDR_ALLSNOOPERS_GROUP`, 224.0.0.106.
const ALL_SNOOPERS4: u32 = 0xe000_006a;
/// The IPv6 all-snoopers group, ff02::6a.
const ALL_SNOOPERS6: u128 = 0xff02_0000_0000_0000_0000_0000_0000_006a;

impl Netns {
    /// Whether device `idx` is a bridge.
    pub fn is_bridge(&self, idx: u32) -> bool {
        self.links
            .get(&idx)
            .is_some_and(|l| l.kind == LinkKind::Bridge)
    }

    /// The ports of bridge `br`, in ifindex order.
    pub fn bridge_ports(&self, br: u32) -> Vec<u32> {
        self.links
            .values()
            .filter(|l| l.master == br && br != 0)
            .map(|l| l.index)
            .collect()
    }

    /// The carrier bridge `br` has (`br_port_state_selection`): up, with a port that
    /// forwards.
    fn bridge_carrier_wanted(&self, br: u32) -> bool {
        self.links.get(&br).is_some_and(|b| b.up)
            && self.bridge_ports(br).iter().any(|p| {
                self.br_ports
                    .get(p)
                    .is_some_and(|x| x.state == port_state::FORWARDING)
            })
    }

    /// Sets bridge `br`'s carrier from its ports; whether it changed.
    pub(crate) fn bridge_update_carrier(&mut self, br: u32) -> bool {
        if !self.is_bridge(br) {
            return false;
        }
        // the ports' states first (spanning tree without peers)
        self.bridge_sync_ports(br);
        let want = self.bridge_carrier_wanted(br);
        let l = self.links.get_mut(&br).expect("a bridge");
        if l.carrier == want {
            return false;
        }
        l.set_carrier(want);
        true
    }

    /// After bridge `br`'s carrier may have changed: on a change while it is up, its
    /// `NETDEV_CHANGE` (routes `linkdown` or not, IPv6 address configuration).
    fn bridge_carrier_changed(&mut self, br: u32) {
        if self.bridge_update_carrier(br) && self.links.get(&br).is_some_and(|b| b.up) {
            self.netdev_change(br, false, false);
            self.rt_cache_flush4();
        }
    }

    /// `br_mtu_auto_adjust`: the ports' smallest MTU (1500 without ports) unless the
    /// user set the bridge's. A value the bridge refuses (below 68, from a dummy port)
    /// leaves it as it is, as `dev_set_mtu`'s error is not looked at.
    pub(crate) fn bridge_mtu_adjust(&mut self, br: u32) {
        let Some(b) = self.links.get(&br) else {
            return;
        };
        if b.kind != LinkKind::Bridge || b.mtu_by_user {
            return;
        }
        let mtu = self
            .links
            .values()
            .filter(|p| p.master == br)
            .map(|p| p.mtu)
            .min()
            .unwrap_or(1500);
        let _ = self.link_set_mtu_as(br, mtu, false);
    }

    /// `ip link set DEV master BR` (`master` the bridge's index) or `nomaster` (0):
    /// `do_set_master`. A device already a port of `master` is left as it is; one that
    /// is a port of another bridge leaves it first.
    pub fn link_set_master(&mut self, idx: u32, master: u32) -> Result<()> {
        let cur = self
            .links
            .get(&idx)
            .ok_or(Error::new(Errno::ENODEV))?
            .master;
        if cur != 0 {
            if cur == master {
                return Ok(());
            }
            self.bridge_del_port(idx);
        }
        if master == 0 {
            return Ok(());
        }
        let m = self.links.get(&master).ok_or(Error::new(Errno::EINVAL))?;
        if m.kind != LinkKind::Bridge {
            // no ndo_add_slave
            return Err(Error::new(Errno::EOPNOTSUPP));
        }
        self.bridge_add_port(master, idx)
    }

    /// `br_add_if`.
    fn bridge_add_port(&mut self, br: u32, idx: u32) -> Result<()> {
        let l = self.links.get(&idx).ok_or(Error::new(Errno::ENODEV))?;
        // not the loopback nor a non-Ethernet device (a tun or VXLAN GPE device,
        // ARPHRD_NONE)
        if l.is_loopback() || l.is_tun() {
            return Err(Error::new(Errno::EINVAL));
        }
        if l.kind == LinkKind::Bridge {
            return Err(Error::msg(
                Errno::ELOOP,
                "Can not enslave a bridge to a bridge",
            ));
        }
        // a device with a master already (netdev_master_upper_dev_get)
        if l.master != 0 {
            return Err(Error::new(Errno::EBUSY));
        }
        // dev_set_allmulti(dev, 1) before the receive handler: a count that wrapped
        // below zero cannot come back up to it (EOVERFLOW)
        if l.allmulti == u32::MAX {
            return Err(Error::new(Errno::EOVERFLOW));
        }
        // netdev_rx_handler_register: a macvlan lower device's handler is its port's,
        // and a macvtap has its own from the start (macvtap_newlink registers
        // tap_handle_frame on the macvtap itself)
        if self.is_macvlan_port(idx) || matches!(l.kind, LinkKind::Macvlan { tap: true, .. }) {
            return Err(Error::new(Errno::EBUSY));
        }
        // netdev_master_upper_dev_link: no loop (a device stacked on the bridge, a
        // macvlan or VXLAN device over it, cannot be its port), no stack too deep
        self.check_upper_link(idx, br)?;
        let rx_was = self.rx_flags(idx);
        let features_were = self.bridge_features(br);
        let l = self.links.get_mut(&idx).expect("exists");
        l.master = br;
        self.bridge_new_port(br, idx);
        self.fdb_port_added(br, idx);
        self.bridge_recalculate_id(br);
        // br_add_if updates the features (a NETDEV_FEAT_CHANGE if they changed: the
        // macvlans over the bridge take its TSO limit of before) and then the limits
        if self.bridge_features(br) != features_were {
            self.bridge_features_changed(br);
        }
        self.bridge_set_gso_limits(br);
        let l = self.links.get_mut(&idx).expect("exists");
        // new_nbp / br_manage_promisc (no VLAN filtering: every port is promiscuous):
        // br_port_set_promisc marks the port BR_PROMISC only when the device's step
        // succeeds (a count at its top refuses it, the error dropped); and
        // dev_set_allmulti
        let promisc = l.promiscuity != u32::MAX;
        dev_count_step(&mut l.promiscuity, true);
        dev_count_step(&mut l.allmulti, true);
        if let Some(p) = self.br_ports.get_mut(&idx) {
            p.promisc = promisc;
        }
        // a macvlan port passes its new states on to its lower device
        self.macvlan_rx_flags(idx, rx_was);
        // a port that is up with carrier forwards at once (no spanning tree)
        self.bridge_carrier_changed(br);
        self.bridge_mtu_adjust(br);
        self.bump();
        Ok(())
    }

    /// The part of bridge `br`'s features (`br_features_recompute`) that its ports
    /// decide, as far as they show: `None` without ports (the bridge's own full set),
    /// else the features all its ports share. Only two bits of the kernel's sets are
    /// told apart, found from which port changes the kernel announces: the dummies'
    /// model (ifb) and veth devices have one, macvlans the other (those over a veth
    /// neither), tap and VXLAN devices both.
    fn bridge_features(&self, br: u32) -> Option<u8> {
        let ports = self.bridge_ports(br);
        if ports.is_empty() {
            return None;
        }
        Some(ports.iter().fold(0b11, |f, p| {
            f & match self.links.get(p).map(|l| &l.kind) {
                Some(LinkKind::Dummy | LinkKind::Veth { .. }) => 0b01,
                // a macvlan's features come from its lower device's
                Some(LinkKind::Macvlan { lower, .. }) => {
                    if matches!(
                        self.links.get(lower).map(|l| &l.kind),
                        Some(LinkKind::Veth { .. })
                    ) {
                        0b00
                    } else {
                        0b10
                    }
                }
                _ => 0b11,
            }
        }))
    }

    /// The bridge's `NETDEV_FEAT_CHANGE`: each macvlan over it takes its TSO limit
    /// again (`macvlan_device_event`).
    fn bridge_features_changed(&mut self, br: u32) {
        for m in self.macvlans_on(br) {
            self.link_inherit_tso_max(m, br);
        }
    }

    /// `br_set_gso_limits` (a port added or removed): the bridge's TSO limit is the
    /// smallest of its ports' now (`TSO_MAX_SIZE` without ports), fixed until the next.
    fn bridge_set_gso_limits(&mut self, br: u32) {
        let size = self
            .bridge_ports(br)
            .into_iter()
            .map(|p| self.link_tso_max_size(p))
            .fold(crate::link::TSO_MAX_SIZE, u32::min);
        self.link_set_tso_max_size(br, size);
    }

    /// `br_stp_recalculate_bridge_id` (a port added or removed, or a port's
    /// NETDEV_CHANGEADDR): a bridge whose address was never set takes its ports'
    /// smallest, or the zero address without ports, and announces it (NETDEV_CHANGEADDR
    /// of the bridge).
    pub(crate) fn bridge_recalculate_id(&mut self, br: u32) {
        if !self.bridges.get(&br).is_some_and(|c| c.addr_random) {
            return;
        }
        let mac = self
            .bridge_ports(br)
            .into_iter()
            .filter_map(|p| self.links.get(&p).map(|l| l.mac))
            .min()
            .unwrap_or([0; 6]);
        if self.links.get(&br).is_none_or(|l| l.mac == mac) {
            return;
        }
        // br_stp_change_bridge_id: the bridge's own forwarding entry, then its address
        self.fdb_bridge_mac(br, mac);
        if let Some(l) = self.links.get_mut(&br) {
            l.mac = mac;
        }
        self.netdev_changeaddr(br);
        self.macvlan_lower_changeaddr(br, false);
    }

    /// `br_del_if` (also when the port or the bridge goes away).
    pub(crate) fn bridge_del_port(&mut self, idx: u32) {
        let Some(l) = self.links.get_mut(&idx) else {
            return;
        };
        let rx_was = (l.promiscuity > 0, l.allmulti > 0);
        let br = l.master;
        if br == 0 {
            return;
        }
        let features_were = self.bridge_features(br);
        let l = self.links.get_mut(&idx).expect("exists");
        l.master = 0;
        // del_nbp (nbp_delete_promisc): dev_set_allmulti(dev, -1), and
        // dev_set_promiscuity(dev, -1) only for a BR_PROMISC port; unsigned counts
        // that wrap below zero
        if self.br_ports.get(&idx).is_none_or(|p| p.promisc) {
            dev_count_step(&mut l.promiscuity, false);
        }
        dev_count_step(&mut l.allmulti, false);
        self.bridge_forget_port(idx);
        self.fdb_port_removed(br, idx);
        self.bridge_recalculate_id(br);
        self.bridge_set_gso_limits(br);
        // br_del_if updates the features after the limits: on a change the macvlans
        // over the bridge take its new limit
        if self.bridge_features(br) != features_were {
            self.bridge_features_changed(br);
        }
        self.macvlan_rx_flags(idx, rx_was);
        // br_del_if adjusts the MTU before the link watch applies the carrier the
        // port took with it: the bridge's MTU change still sees it running (an IPv6
        // state made anew is ready and configures a link-local address, whose routes
        // the carrier loss then marks `linkdown`)
        self.bridge_mtu_adjust(br);
        self.bridge_carrier_changed(br);
        self.bump();
    }

    /// `br_dev_open`'s multicast part (before `NETDEV_UP`): the all-snoopers groups,
    /// for each family the device has state of, while multicast snooping is on.
    pub(crate) fn bridge_open(&mut self, br: u32) {
        if self.bridge_conf(br).mcast_snooping {
            self.bridge_join_snoopers(br);
        }
    }

    /// `br_multicast_join_snoopers`.
    fn bridge_join_snoopers(&mut self, br: u32) {
        if self.has_idev4(br) {
            self.mc4_inc(br, ALL_SNOOPERS4);
        }
        if self.has_idev6(br) {
            self.mc6_inc(br, ALL_SNOOPERS6);
        }
    }

    /// `br_dev_stop`'s multicast part (before `NETDEV_DOWN`).
    pub(crate) fn bridge_stop(&mut self, br: u32) {
        if self.bridge_conf(br).mcast_snooping {
            self.bridge_leave_snoopers(br);
        }
    }

    /// `br_multicast_leave_snoopers`.
    fn bridge_leave_snoopers(&mut self, br: u32) {
        if self.has_idev4(br) {
            self.mc4_dec(br, ALL_SNOOPERS4);
        }
        if self.has_idev6(br) {
            self.mc6_dec(br, ALL_SNOOPERS6);
        }
    }
}

// -------------------------------------------------------------------------------------
// Bridge and port settings (`ip link ... type bridge` / `type bridge_slave`, `ip -d link`)
// -------------------------------------------------------------------------------------

/// The kernel's tick rate (`CONFIG_HZ`) on the machine the recordings come from: 250.
/// The bridge keeps its times in ticks and takes and shows them in centiseconds
/// (`clock_t`), so a time given comes back rounded down to 4 ms (`forward_delay 1501`
/// shows 1500).
pub const HZ: u64 = 250;

/// `clock_t_to_jiffies` (USER_HZ 100, HZ not a multiple of it).
pub fn clock_to_jiffies(x: u64) -> u64 {
    if x >= u64::MAX / HZ * 100 {
        u64::MAX
    } else {
        x * HZ / 100
    }
}

/// `jiffies_to_clock_t`: the product with `TICK_NSEC` wraps as the kernel's `u64` does.
pub fn jiffies_to_clock(j: u64) -> u64 {
    j.wrapping_mul(1_000_000_000 / HZ) / 10_000_000
}

/// A bridge's own settings (`struct net_bridge`, as `br_fill_info` shows them). Times
/// are in ticks ([`HZ`]). Spanning tree runs in the kernel when enabled (a namespace
/// other than the initial one has no user-space helper).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BridgeConf {
    /// `forward_delay`, `hello_time`, `max_age`, `ageing_time`.
    pub forward_delay: u64,
    /// See [`BridgeConf::forward_delay`].
    pub hello_time: u64,
    /// See [`BridgeConf::forward_delay`].
    pub max_age: u64,
    /// See [`BridgeConf::forward_delay`].
    pub ageing_time: u64,
    /// Kernel spanning tree (`stp_state 1`).
    pub stp: bool,
    /// The bridge priority (the first two bytes of its bridge id).
    pub priority: u16,
    /// `group_fwd_mask`.
    pub group_fwd_mask: u16,
    /// `group_address`.
    pub group_addr: [u8; 6],
    /// `mcast_snooping`.
    pub mcast_snooping: bool,
    /// `no_linklocal_learn` (a boolean option).
    pub no_ll_learn: bool,
    /// `mcast_router` (0 disabled, 1 learnt from queries, 2 permanent).
    pub mcast_router: u8,
    /// `mcast_query_use_ifaddr`.
    pub mcast_query_use_ifaddr: bool,
    /// `mcast_querier`.
    pub mcast_querier: bool,
    /// `mcast_hash_max`.
    pub hash_max: u32,
    /// `mcast_last_member_count`.
    pub last_member_count: u32,
    /// `mcast_startup_query_count`.
    pub startup_query_count: u32,
    /// The multicast intervals in ticks: last member, membership, querier, query,
    /// query response, startup query.
    pub mcast_intervals: [u64; 6],
    /// `mcast_stats_enabled`.
    pub mcast_stats: bool,
    /// `mcast_igmp_version` (2 or 3).
    pub igmp_version: u8,
    /// `mcast_mld_version` (1 or 2).
    pub mld_version: u8,
    /// `nf_call_iptables`, `nf_call_ip6tables`, `nf_call_arptables`.
    pub nf_call: [bool; 3],
    /// Whether the ports were last seen with the bridge up (see
    /// [`Netns::bridge_update_carrier`]).
    open: bool,
    /// `topology_change`: set under kernel spanning tree when a port starts to
    /// forward (`br_topology_change_detection`, this bridge being the root), until
    /// the topology change timer runs out or the bridge stops.
    pub topology_change: bool,
    /// `topology_change_detected`.
    pub topology_change_detected: bool,
    /// When the topology change timer runs out (on [`Netns::now_ms`]'s clock).
    tc_due: Option<u64>,
    /// When the hello timer runs out (on [`Netns::now_ms`]'s clock): it runs under
    /// kernel spanning tree while the bridge is up (`br_stp_enable_bridge`,
    /// `br_stp_start`), every hello time.
    hello_due: Option<u64>,
    /// The ageing time the user set (`bridge_ageing_time`); [`BridgeConf::ageing_time`]
    /// is the one in force, twice the forward delay during a topology change under
    /// kernel spanning tree (`__br_set_topology_change`).
    bridge_ageing_time: u64,
    /// The address is the kernel's random one (`NET_ADDR_RANDOM`: a bridge made
    /// without `address` by a command the oracle does not rewrite, `ip link replace`),
    /// until one is set: `br_stp_recalculate_bridge_id` then gives the bridge its
    /// ports' smallest address (00:00:00:00:00:00 without ports) whenever one comes,
    /// goes or changes its own.
    pub addr_random: bool,
}

impl Default for BridgeConf {
    /// `br_dev_setup` and `br_multicast_init`.
    fn default() -> Self {
        BridgeConf {
            forward_delay: 15 * HZ,
            hello_time: 2 * HZ,
            max_age: 20 * HZ,
            ageing_time: 300 * HZ,
            stp: false,
            priority: 0x8000,
            group_fwd_mask: 0,
            group_addr: [0x01, 0x80, 0xc2, 0, 0, 0],
            mcast_snooping: true,
            no_ll_learn: false,
            mcast_router: 1,
            mcast_query_use_ifaddr: false,
            mcast_querier: false,
            hash_max: 4096,
            last_member_count: 2,
            startup_query_count: 2,
            mcast_intervals: [HZ, 260 * HZ, 255 * HZ, 125 * HZ, 10 * HZ, 125 * HZ / 4],
            mcast_stats: false,
            igmp_version: 2,
            mld_version: 1,
            nf_call: [false; 3],
            open: false,
            topology_change: false,
            topology_change_detected: false,
            tc_due: None,
            hello_due: None,
            addr_random: false,
            bridge_ageing_time: 300 * HZ,
        }
    }
}

/// What `ip link add|set ... type bridge OPTIONS` asks (`IFLA_INFO_DATA`), in
/// centiseconds where the option is a time; applied by [`Netns::bridge_changelink`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BridgeChange {
    /// `forward_delay`.
    pub forward_delay: Option<u32>,
    /// `hello_time`.
    pub hello_time: Option<u32>,
    /// `max_age`.
    pub max_age: Option<u32>,
    /// `ageing_time`.
    pub ageing_time: Option<u32>,
    /// `stp_state`.
    pub stp_state: Option<u32>,
    /// `priority`.
    pub priority: Option<u16>,
    /// `vlan_filtering` (this kernel has no VLAN filtering: refused).
    pub vlan_filtering: Option<u8>,
    /// `group_fwd_mask`.
    pub group_fwd_mask: Option<u16>,
    /// `group_address` (the bytes given).
    pub group_addr: Option<Vec<u8>>,
    /// `mcast_router`.
    pub mcast_router: Option<u8>,
    /// `mcast_snooping`.
    pub mcast_snooping: Option<u8>,
    /// `mcast_query_use_ifaddr`.
    pub mcast_query_use_ifaddr: Option<u8>,
    /// `mcast_querier`.
    pub mcast_querier: Option<u8>,
    /// `mcast_hash_max`.
    pub hash_max: Option<u32>,
    /// `mcast_last_member_count`.
    pub last_member_count: Option<u32>,
    /// `mcast_startup_query_count`.
    pub startup_query_count: Option<u32>,
    /// The multicast intervals, in [`BridgeConf::mcast_intervals`]' order.
    pub mcast_intervals: [Option<u64>; 6],
    /// `mcast_stats_enabled`.
    pub mcast_stats: Option<u8>,
    /// `mcast_igmp_version`.
    pub igmp_version: Option<u8>,
    /// `mcast_mld_version`.
    pub mld_version: Option<u8>,
    /// `nf_call_iptables`, `nf_call_ip6tables`, `nf_call_arptables`.
    pub nf_call: [Option<u8>; 3],
    /// `no_linklocal_learn` (`IFLA_BR_MULTI_BOOLOPT`).
    pub no_ll_learn: Option<bool>,
    /// `mcast_vlan_snooping` (`IFLA_BR_MULTI_BOOLOPT`).
    pub mcast_vlan_snooping: Option<bool>,
}

impl BridgeConf {
    /// `__br_set_topology_change`: under kernel spanning tree a change of the flag
    /// switches the ageing time in force between twice the forward delay and the
    /// user's.
    fn set_topology_change(&mut self, on: bool) {
        if self.stp && self.topology_change != on {
            self.ageing_time = if on {
                2 * self.forward_delay
            } else {
                self.bridge_ageing_time
            };
        }
        self.topology_change = on;
    }
}

/// An hour in milliseconds.
const HOUR_MS: u64 = 3_600_000;

/// Milliseconds per tick at [`HZ`].
const TICK_MS: u64 = 1000 / HZ;

/// A port's spanning tree state (`BR_STATE_*`).
pub mod port_state {
    /// Disabled: the port or the bridge is down, or the port has no carrier.
    pub const DISABLED: u8 = 0;
    /// Listening (kernel spanning tree, for a forward delay).
    pub const LISTENING: u8 = 1;
    /// Learning.
    pub const LEARNING: u8 = 2;
    /// Forwarding.
    pub const FORWARDING: u8 = 3;
    /// Blocking.
    pub const BLOCKING: u8 = 4;
}

/// A port's flags (`BR_*` of `net_bridge_port.flags`) as `ip link ... type
/// bridge_slave` names them.
pub mod port_flag {
    /// `hairpin` (`BR_HAIRPIN_MODE`).
    pub const HAIRPIN: u32 = 1 << 0;
    /// `guard` (`BR_BPDU_GUARD`).
    pub const GUARD: u32 = 1 << 1;
    /// `root_block` (`BR_ROOT_BLOCK`).
    pub const ROOT_BLOCK: u32 = 1 << 2;
    /// `fastleave` / `mcast_fast_leave` (`BR_MULTICAST_FAST_LEAVE`).
    pub const FAST_LEAVE: u32 = 1 << 3;
    /// `learning` (`BR_LEARNING`).
    pub const LEARNING: u32 = 1 << 4;
    /// `flood` (`BR_FLOOD`).
    pub const FLOOD: u32 = 1 << 5;
    /// `proxy_arp` (`BR_PROXYARP`).
    pub const PROXY_ARP: u32 = 1 << 6;
    /// `proxy_arp_wifi` (`BR_PROXYARP_WIFI`).
    pub const PROXY_ARP_WIFI: u32 = 1 << 7;
    /// `mcast_flood` (`BR_MCAST_FLOOD`).
    pub const MCAST_FLOOD: u32 = 1 << 8;
    /// `bcast_flood` (`BR_BCAST_FLOOD`).
    pub const BCAST_FLOOD: u32 = 1 << 9;
    /// `mcast_to_unicast` (`BR_MULTICAST_TO_UNICAST`).
    pub const MCAST_TO_UNICAST: u32 = 1 << 10;
    /// `neigh_suppress` (`BR_NEIGH_SUPPRESS`).
    pub const NEIGH_SUPPRESS: u32 = 1 << 11;
    /// `vlan_tunnel` (`BR_VLAN_TUNNEL`).
    pub const VLAN_TUNNEL: u32 = 1 << 12;
    /// `isolated` (`BR_ISOLATED`).
    pub const ISOLATED: u32 = 1 << 13;
    /// `locked` (`BR_PORT_LOCKED`).
    pub const LOCKED: u32 = 1 << 14;
    /// A new port's (`new_nbp`): learning and every kind of flooding.
    pub const DEFAULT: u32 = LEARNING | FLOOD | MCAST_FLOOD | BCAST_FLOOD;
}

/// A bridge port (`struct net_bridge_port`), as `ip -d link` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BridgePort {
    /// Its number on the bridge (the smallest free from 1, `find_portno`).
    pub port_no: u16,
    /// Its priority (0-63).
    pub priority: u16,
    /// Its path cost: from the device's speed until the user sets one.
    pub cost: u32,
    /// The user set the cost (`BR_ADMIN_COST`): the speed no longer decides it.
    pub admin_cost: bool,
    /// [`port_state`].
    pub state: u8,
    /// [`port_flag`] bits.
    pub flags: u32,
    /// `mcast_router` (0-3).
    pub mcast_router: u8,
    /// It is on the bridge's multicast router lists (`br_multicast_add_router`): a
    /// permanent router port, or a temporary one (3) marked while the bridge ran and
    /// the port was not disabled (`br_multicast_mark_router`).
    pub mcast_rtr_listed: bool,
    /// When its router timers run out (on [`Netns::now_ms`]'s clock): a querier
    /// interval after `mcast_router 3` was set (or set again) while the port was
    /// enabled in a running bridge; see [`Netns::bridge_mcast_router_expired`].
    pub mcast_rtr_due: Option<u64>,
    /// `group_fwd_mask`.
    pub group_fwd_mask: u16,
    /// `backup_port`'s ifindex (0: none).
    pub backup: u32,
    /// `BR_PROMISC`: the port took a promiscuity step on its device
    /// (`br_port_set_promisc`; refused while the device's count is at its top).
    pub promisc: bool,
    /// The priority part of the designated root and bridge ids it holds: the bridge's
    /// own, as of the last time the port was made designated (a disabled port keeps an
    /// old one across a change of the bridge priority). Their address part is always
    /// the bridge's address.
    pub designated_prio: u16,
    /// The designated port id it holds (its own port id when it was last made
    /// designated).
    pub designated_port: u16,
    /// When its forward delay timer runs out (on [`Netns::now_ms`]'s clock): a
    /// listening port then learns, a learning one forwards.
    pub fd_due: Option<u64>,
    /// When its message age timer runs out (on [`Netns::now_ms`]'s clock): it runs
    /// while the port holds the information of a better designated port than its own,
    /// recorded from a configuration BPDU (`br_record_config_information`), which
    /// makes it neither root nor designated (blocking); when it runs out the port
    /// becomes designated again (`br_message_age_timer_expired`).
    pub msg_age_due: Option<u64>,
    /// BPDU guard disabled it (`br_stp_rcv` on a `guard` port): it stays disabled
    /// until an event of its own enables it again, its `NETDEV_UP` or `NETDEV_CHANGE`
    /// (`br_port_carrier_check`) or the bridge's opening (`br_stp_enable_bridge`),
    /// not at every look at the ports' states.
    pub guard_held: bool,
    /// `stp_xstats.tx_bpdu`: the configuration BPDUs it sent under kernel spanning
    /// tree (at each hello while designated, and in reply, `br_send_config_bpdu`).
    pub tx_bpdu: u64,
    /// `stp_xstats.rx_bpdu`: the configuration BPDUs it heard
    /// (`br_received_config_bpdu`).
    pub rx_bpdu: u64,
    /// `stp_xstats.transition_blk`: the times it was set blocking under kernel spanning
    /// tree (`br_set_state`: when it joins the bridge, `new_nbp`'s `br_init_port`, and
    /// each time it is enabled, `br_stp_enable_port`), as `ip stats` shows them.
    pub transition_blk: u64,
    /// `stp_xstats.transition_fwd`: the times it began forwarding under kernel spanning
    /// tree (its forward delay timer ending its learning).
    pub transition_fwd: u64,
}

impl BridgePort {
    /// Its port id (`br_make_port_id`): the priority above a 10-bit port number.
    pub fn port_id(&self) -> u16 {
        (self.priority << 10) | (self.port_no & 0x3ff)
    }
}

/// What `ip link set DEV type bridge_slave OPTIONS` asks (`IFLA_INFO_SLAVE_DATA`),
/// applied by [`Netns::bridge_port_changelink`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortChange {
    /// Flags to set or clear: (mask, values).
    pub flags: (u32, u32),
    /// `cost`.
    pub cost: Option<u32>,
    /// `priority`.
    pub priority: Option<u16>,
    /// `state`.
    pub state: Option<u8>,
    /// `mcast_router`.
    pub mcast_router: Option<u8>,
    /// `group_fwd_mask`.
    pub group_fwd_mask: Option<u16>,
    /// `backup_port` (an ifindex, 0 for `nobackup_port`).
    pub backup: Option<u32>,
}

impl Netns {
    /// Bridge `br`'s settings (the defaults for a bridge never changed).
    pub fn bridge_conf(&self, br: u32) -> BridgeConf {
        self.bridges.get(&br).cloned().unwrap_or_default()
    }

    /// Device `idx`'s port settings, if it is a bridge port.
    pub fn bridge_port(&self, idx: u32) -> Option<&BridgePort> {
        self.br_ports.get(&idx)
    }

    /// `port_cost`: the path cost the device's link speed gives
    /// (`__ethtool_get_link_ksettings`, see [`Netns::link_speed`]): 2 at 10 Gb/s, 100
    /// when unknown. A device whose driver reports no speed at all (ifb, the dummies'
    /// model, and a VXLAN device or macvlan over one) is costed by iproute2-era name
    /// heuristics: 7 for a name beginning `lec`, 2500 for `plip`, else 100.
    fn port_cost(&self, idx: u32) -> u32 {
        match self.link_speed(idx, 0) {
            Some(10_000) => 2,
            Some(5_000) => 3,
            Some(2_500 | 1_000) => 4,
            Some(100) => 19,
            Some(s) if s > 10_000 && s != SPEED_UNKNOWN => 1,
            Some(_) => 100,
            None => {
                let name = self.links.get(&idx).map_or("", |l| l.name.as_str());
                if name.starts_with("lec") {
                    7
                } else if name.starts_with("plip") {
                    2500
                } else {
                    100
                }
            }
        }
    }

    /// The link speed in Mb/s device `idx`'s ethtool `get_link_ksettings` reports now,
    /// [`SPEED_UNKNOWN`] when it reports none, `None` when the driver has no such
    /// method (ifb, loopback): veth and tun/tap devices report 10 Gb/s; a VXLAN device
    /// reports its lower device's (unknown without one), a macvlan its lower
    /// device's; a bridge the fastest known speed of its ports that are operationally
    /// up (`br_get_link_ksettings`).
    fn link_speed(&self, idx: u32, depth: u32) -> Option<u32> {
        if depth > 8 {
            return Some(SPEED_UNKNOWN);
        }
        match &self.links.get(&idx)?.kind {
            LinkKind::Veth { .. } | LinkKind::Tun { .. } => Some(10_000),
            LinkKind::Vxlan(c) => {
                if c.lower != 0 && self.links.contains_key(&c.lower) {
                    self.link_speed(c.lower, depth + 1)
                } else {
                    Some(SPEED_UNKNOWN)
                }
            }
            LinkKind::Macvlan { lower, .. } => self.link_speed(*lower, depth + 1),
            LinkKind::Bridge => {
                let best = self
                    .bridge_ports(idx)
                    .into_iter()
                    .filter(|&p| self.port_oper_up(p))
                    .filter_map(|p| self.link_speed(p, depth + 1))
                    .filter(|&s| s != SPEED_UNKNOWN)
                    .max();
                Some(best.unwrap_or(SPEED_UNKNOWN))
            }
            _ => None,
        }
    }

    /// Whether device `idx` is running with an operational state of up
    /// (`netif_running && netif_oper_up`): up with carrier, and neither dormant nor
    /// testing (a state a user set, a lower device's or a dormant link mode's).
    fn port_oper_up(&self, idx: u32) -> bool {
        self.links.get(&idx).is_some_and(|l| l.oper_up())
    }

    /// `br_device_event`'s `NETDEV_CHANGE` for a port: `br_port_carrier_check`
    /// takes its path cost again (the one place it does), enables or disables it by
    /// its operational state, and the bridge's carrier follows (its own link watch
    /// then runs).
    pub(crate) fn bridge_port_changed(&mut self, port: u32) {
        let Some(br) = self.links.get(&port).map(|l| l.master) else {
            return;
        };
        // br_port_carrier_check enables a disabled port that is operationally up,
        // one BPDU guard disabled too
        if let Some(p) = self.br_ports.get_mut(&port) {
            p.guard_held = false;
        }
        // the path cost is taken again from the port's speed (unless set by hand),
        // whether or not the bridge is up; only here, at the port's own NETDEV_CHANGE
        if br != 0
            && self.port_oper_up(port)
            && self.br_ports.get(&port).is_some_and(|p| !p.admin_cost)
        {
            let c = self.port_cost(port);
            if let Some(p) = self.br_ports.get_mut(&port) {
                p.cost = c;
            }
        }
        if br != 0 && self.bridge_update_carrier(br) {
            self.carriers_changed(vec![br]);
        }
    }

    /// `br_become_designated_port` of port `idx` of `br`.
    /// A port that becomes designated no longer holds another port's information:
    /// its message age timer goes (`br_port_state_selection` deletes it for a
    /// designated port, `br_stp_disable_port` for a disabled one).
    fn port_become_designated(&mut self, br: u32, idx: u32) {
        let prio = self.bridge_conf(br).priority;
        if let Some(p) = self.br_ports.get_mut(&idx) {
            p.designated_prio = prio;
            p.designated_port = p.port_id();
            p.msg_age_due = None;
        }
    }

    /// `br_stp_enable_port`: designated again, blocking (the selection that follows
    /// decides on).
    fn port_enable(&mut self, br: u32, idx: u32) {
        self.port_become_designated(br, idx);
        let stp = self.bridge_conf(br).stp;
        if let Some(p) = self.br_ports.get_mut(&idx) {
            p.state = port_state::BLOCKING;
            // br_set_state counts it under kernel spanning tree
            p.transition_blk += u64::from(stp);
        }
    }

    /// `br_stp_disable_port`, with `br_multicast_disable_port`: the port leaves the
    /// multicast router lists and its router timers stop; a temporary router port
    /// that was on them becomes one learnt from queries (`br_multicast_rport_del_notify`).
    fn port_disable(&mut self, br: u32, idx: u32) {
        self.port_become_designated(br, idx);
        if let Some(p) = self.br_ports.get_mut(&idx) {
            p.state = port_state::DISABLED;
            p.fd_due = None;
            if p.mcast_rtr_listed && p.mcast_router == 3 {
                p.mcast_router = 1;
            }
            p.mcast_rtr_listed = false;
            p.mcast_rtr_due = None;
        }
    }

    /// Port `idx`'s multicast router timers (IPv4 and IPv6, armed together) run out
    /// (`br_multicast_router_expired`): a temporary router port leaves the router
    /// lists and, when it was on them, becomes one learnt from queries (1); a
    /// disabled or permanent router port's timer does nothing.
    fn bridge_mcast_router_expired(&mut self, idx: u32) {
        let Some(p) = self.br_ports.get_mut(&idx) else {
            return;
        };
        p.mcast_rtr_due = None;
        if matches!(p.mcast_router, 0 | 2) {
            return;
        }
        if p.mcast_rtr_listed {
            p.mcast_rtr_listed = false;
            if p.mcast_router == 3 {
                p.mcast_router = 1;
            }
            self.bump();
        }
    }

    /// `br_port_state_selection` with no other bridge in sight (every port that is
    /// not disabled is designated): `br_make_forwarding` of each blocking port, which
    /// forwards at once without spanning tree (or forward delay) and listens under
    /// kernel spanning tree; either way its forward delay timer starts when there is a
    /// forward delay (a forwarding port's runs out doing nothing).
    ///
    /// A port holding a better designated port's information (see
    /// [`BridgePort::msg_age_due`]) is neither: `br_make_blocking` blocks it, which
    /// detects a topology change if it was learning or forwarding.
    fn bridge_port_selection(&mut self, br: u32) {
        let c = self.bridge_conf(br);
        let now = self.ms_clock;
        let mut change = false;
        for idx in self.bridge_ports(br) {
            if let Some(p) = self.br_ports.get_mut(&idx) {
                if p.state != port_state::DISABLED && p.msg_age_due.is_some() {
                    if p.state != port_state::BLOCKING {
                        change |= matches!(p.state, port_state::LEARNING | port_state::FORWARDING);
                        p.state = port_state::BLOCKING;
                        p.fd_due = None;
                        p.transition_blk += u64::from(c.stp);
                    }
                    continue;
                }
                if p.state == port_state::BLOCKING {
                    p.state = if !c.stp || c.forward_delay == 0 {
                        // (its topology change detection is kernel spanning tree's;
                        // so is br_set_state's count)
                        p.transition_fwd += u64::from(c.stp);
                        port_state::FORWARDING
                    } else {
                        port_state::LISTENING
                    };
                    p.fd_due = (c.forward_delay != 0).then(|| now + c.forward_delay * TICK_MS);
                }
            }
        }
        if change {
            self.bridge_topology_change(br, now);
        }
    }

    /// `br_topology_change_detection` on the root bridge `br` at `at` (ms): under
    /// kernel spanning tree, a topology change until the forward delay and the
    /// maximum age have passed.
    fn bridge_topology_change(&mut self, br: u32, at: u64) {
        let c = self.bridges.entry(br).or_default();
        if !c.stp {
            return;
        }
        c.set_topology_change(true);
        c.tc_due = Some(at + (c.forward_delay + c.max_age) * TICK_MS);
        c.topology_change_detected = true;
    }

    /// Runs the bridges' spanning tree timers due by now, in the order they come
    /// due: ports' forward delay timers (`br_forward_delay_timer_expired`: listening
    /// to learning for another forward delay, learning to forwarding, which detects a
    /// topology change and gives the bridge its carrier) and the topology change
    /// timers (`br_topology_change_timer_expired`).
    pub(crate) fn bridge_run_timers(&mut self) {
        let now = self.ms_clock;
        loop {
            // (due, kind, device): kind 0 a port's forward delay timer, 1 a port's
            // message age timer, 2 a bridge's topology change timer, 3 its hello
            // timer, 4 a port's multicast router timer
            let ports = self.br_ports.iter().flat_map(|(&i, p)| {
                [
                    p.fd_due.map(|d| (d, 0u8, i)),
                    p.msg_age_due.map(|d| (d, 1, i)),
                    p.mcast_rtr_due.map(|d| (d, 4, i)),
                ]
            });
            let bridges = self.bridges.iter().flat_map(|(&b, c)| {
                [
                    c.tc_due.map(|d| (d, 2u8, b)),
                    c.hello_due.map(|d| (d, 3, b)),
                ]
            });
            let next = ports
                .chain(bridges)
                .flatten()
                .filter(|&(d, _, _)| d <= now)
                .min();
            match next {
                Some((d, 0, idx)) => self.bridge_forward_delay_expired(idx, d),
                Some((d, 1, idx)) => self.bridge_message_age_expired(idx, d),
                Some((_, 4, idx)) => self.bridge_mcast_router_expired(idx),
                Some((_, 2, br)) => {
                    let c = self.bridges.entry(br).or_default();
                    c.tc_due = None;
                    c.topology_change_detected = false;
                    c.set_topology_change(false);
                    self.bump();
                }
                Some((d, _, br)) => self.bridge_hello_expired(br, d),
                None => return,
            }
        }
    }

    /// Whether port `idx` of `br` is designated (`br_is_designated_port`): it holds its
    /// own port id and the bridge's id as the designated ones.
    fn port_is_designated(&self, br: u32, idx: u32) -> bool {
        let prio = self.bridge_conf(br).priority;
        self.br_ports.get(&idx).is_some_and(|p| {
            p.msg_age_due.is_none() && p.designated_prio == prio && p.designated_port == p.port_id()
        })
    }

    /// The bridge port at the other end of port `idx`'s wire, which a BPDU sent there
    /// reaches: a veth's peer, when it is a port of the same bridge `br` (a loop). A
    /// peer in another bridge is not modelled (its BPDUs would take part in electing
    /// a root between the two bridges).
    fn port_wire_peer(&self, br: u32, idx: u32) -> Option<u32> {
        let LinkKind::Veth { peer } = self.links.get(&idx)?.kind else {
            return None;
        };
        (self.links.get(&peer)?.master == br && self.br_ports.contains_key(&peer)).then_some(peer)
    }

    /// Bridge `br`'s hello timer, due at `at` (ms), runs out
    /// (`br_hello_timer_expired`): while the bridge is up every designated port that
    /// is not disabled sends a configuration BPDU (`br_config_bpdu_generation`), and
    /// under kernel spanning tree the timer starts again. The BPDUs are received after
    /// all were sent.
    fn bridge_hello_expired(&mut self, br: u32, at: u64) {
        let up = self.links.get(&br).is_some_and(|l| l.up);
        let now = self.ms_clock;
        let c = self.bridges.entry(br).or_default();
        let every = (c.hello_time * TICK_MS).max(1);
        let mut next = at + every;
        if now.saturating_sub(next) > HOUR_MS {
            // a clock moved on by hours at once: the hellos in between are all alike,
            // so only the last one before now is run
            next = now - (now - at) % every;
        }
        c.hello_due = (up && c.stp).then_some(next);
        if !up {
            return;
        }
        let senders: Vec<u32> = self
            .bridge_ports(br)
            .into_iter()
            .filter(|&i| {
                self.br_ports
                    .get(&i)
                    .is_some_and(|p| p.state != port_state::DISABLED)
                    && self.port_is_designated(br, i)
            })
            .collect();
        // br_send_config_bpdu counts each one sent under kernel spanning tree, whether
        // or not a bridge port hears it (the hold timer a send starts has run out by
        // the next hello: it is a second, rounded, and a hello time is at least one)
        if self.bridge_conf(br).stp {
            for i in &senders {
                if let Some(p) = self.br_ports.get_mut(i) {
                    p.tx_bpdu += 1;
                }
            }
        }
        let sent: Vec<(u32, u16)> = senders
            .into_iter()
            .filter_map(|i| {
                Some((
                    self.port_wire_peer(br, i)?,
                    self.br_ports.get(&i)?.port_id(),
                ))
            })
            .collect();
        for (to, port_id) in sent {
            self.bridge_received_config_bpdu(br, to, port_id, at, 0);
        }
    }

    /// `br_received_config_bpdu` on port `idx` of `br` at `at` (ms): a configuration
    /// BPDU sent by port `port_id` of the same bridge, so with this bridge as the root
    /// at a cost of 0 and as the designated bridge. Under kernel spanning tree only
    /// (without it `br_handle_frame` forwards BPDUs), on a port that is not disabled.
    /// When it supersedes the port's information (`br_supersedes_port_info`: a root id
    /// of a smaller priority than the one held, or the same and a port id not above
    /// the designated port held) the port records it and starts its message age timer
    /// (`br_record_config_information`), then the configuration and the port states
    /// are chosen again (`br_configuration_update`, `br_port_state_selection`), which
    /// blocks it; otherwise a designated port answers with its own BPDU (`br_reply`;
    /// its hold timer may delay that by up to a second and a half, not modelled).
    fn bridge_received_config_bpdu(&mut self, br: u32, idx: u32, port_id: u16, at: u64, depth: u8) {
        let c = self.bridge_conf(br);
        let Some(p) = self.br_ports.get(&idx) else {
            return;
        };
        if !c.stp || p.state == port_state::DISABLED || depth > 1 {
            return;
        }
        if p.flags & port_flag::GUARD != 0 {
            // br_stp_rcv: a BPDU on a port with BPDU guard disables it
            // (br_stp_disable_port: designated again, its timers stopped, the
            // configuration and the port states chosen again) before it is looked at
            self.port_disable(br, idx);
            if let Some(p) = self.br_ports.get_mut(&idx) {
                p.guard_held = true;
            }
            self.bridge_configuration_update(br);
            self.bridge_carrier_changed(br);
            self.bump();
            return;
        }
        let supersedes = match c.priority.cmp(&p.designated_prio) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => port_id <= p.designated_port,
        };
        // br_received_config_bpdu counts it (one BPDU guard dropped is not)
        if let Some(p) = self.br_ports.get_mut(&idx) {
            p.rx_bpdu += 1;
        }
        if supersedes {
            if let Some(p) = self.br_ports.get_mut(&idx) {
                p.designated_prio = c.priority;
                p.designated_port = port_id;
                p.msg_age_due = Some(at + c.max_age * TICK_MS);
            }
            self.bridge_configuration_update(br);
            self.bridge_carrier_changed(br);
            self.bump();
        } else if self.port_is_designated(br, idx) {
            let own = self.br_ports.get(&idx).map_or(0, |p| p.port_id());
            // br_reply: sent (and counted) at once, or when the hold timer of the
            // port's own hello runs out (config_pending)
            if let Some(p) = self.br_ports.get_mut(&idx) {
                p.tx_bpdu += 1;
            }
            if let Some(to) = self.port_wire_peer(br, idx) {
                self.bridge_received_config_bpdu(br, to, own, at, depth + 1);
            }
        }
    }

    /// `br_configuration_update`'s designated port selection: a port that is not
    /// disabled and holds another port's information becomes designated again when
    /// that information is of an older root (another bridge priority) or of a
    /// designated port above its own (`br_should_become_designated_port`). The port
    /// states follow (see [`Netns::bridge_port_selection`]).
    fn bridge_configuration_update(&mut self, br: u32) {
        let prio = self.bridge_conf(br).priority;
        for idx in self.bridge_ports(br) {
            let Some(p) = self.br_ports.get(&idx) else {
                continue;
            };
            if p.state != port_state::DISABLED
                && p.msg_age_due.is_some()
                && (p.designated_prio != prio || p.port_id() < p.designated_port)
            {
                self.port_become_designated(br, idx);
            }
        }
    }

    /// Port `idx`'s message age timer, due at `at` (ms), runs out
    /// (`br_message_age_timer_expired`, with or without spanning tree): the
    /// information it held is lost, it becomes designated and the port states are
    /// chosen again (a blocking port listens, or forwards at once without spanning
    /// tree).
    fn bridge_message_age_expired(&mut self, idx: u32, at: u64) {
        let _ = at;
        let br = self.links.get(&idx).map_or(0, |l| l.master);
        let Some(p) = self.br_ports.get_mut(&idx) else {
            return;
        };
        p.msg_age_due = None;
        if p.state == port_state::DISABLED {
            return;
        }
        self.port_become_designated(br, idx);
        self.bridge_configuration_update(br);
        self.bridge_carrier_changed(br);
        self.bump();
    }

    /// Port `idx`'s forward delay timer, due at `at` (ms), runs out.
    fn bridge_forward_delay_expired(&mut self, idx: u32, at: u64) {
        let br = self.links.get(&idx).map_or(0, |l| l.master);
        let conf = self.bridge_conf(br);
        let (fd, stp) = (conf.forward_delay, conf.stp);
        let Some(p) = self.br_ports.get_mut(&idx) else {
            return;
        };
        p.fd_due = None;
        match p.state {
            port_state::LISTENING => {
                p.state = port_state::LEARNING;
                p.fd_due = Some(at + fd * TICK_MS);
                self.bump();
            }
            port_state::LEARNING => {
                p.state = port_state::FORWARDING;
                // br_set_state counts it under kernel spanning tree
                p.transition_fwd += u64::from(stp);
                // br_is_designated_for_some_port: a port not disabled holds this
                // bridge's id as its designated bridge
                let prio = self.bridge_conf(br).priority;
                let designated = self.bridge_ports(br).iter().any(|i| {
                    self.br_ports.get(i).is_some_and(|x| {
                        x.state != port_state::DISABLED && x.designated_prio == prio
                    })
                });
                if designated {
                    self.bridge_topology_change(br, at);
                }
                // netif_carrier_on of the bridge
                self.bridge_carrier_changed(br);
                self.bump();
            }
            // (a forwarding or disabled port's timer runs out doing nothing)
            _ => {}
        }
    }

    /// The ports' spanning tree states after whatever changed: the bridge's opening
    /// (`br_stp_enable_bridge`: every port up with carrier is enabled) or stop
    /// (`br_stp_disable_bridge`), or a port's change (`br_port_carrier_check`, only
    /// while the bridge is up); then the selection.
    fn bridge_sync_ports(&mut self, br: u32) {
        let up = self.links.get(&br).is_some_and(|b| b.up);
        let was_open = self.bridges.get(&br).is_some_and(|c| c.open);
        if up != was_open {
            let now = self.ms_clock;
            let c = self.bridges.entry(br).or_default();
            c.open = up;
            // br_stp_enable_bridge starts the hello timer under kernel spanning tree,
            // br_stp_disable_bridge stops it
            c.hello_due = (up && c.stp).then(|| now + c.hello_time * TICK_MS);
            if !up {
                // br_stp_disable_bridge: the topology change ends with its timer
                c.set_topology_change(false);
                c.topology_change_detected = false;
                c.tc_due = None;
            }
        }
        for idx in self.bridge_ports(br) {
            let Some(state) = self.br_ports.get(&idx).map(|p| p.state) else {
                continue;
            };
            let oper = self.port_oper_up(idx);
            if !oper || (up && !was_open) {
                // a port that goes down, or the bridge's opening, ends BPDU guard's hold
                if let Some(p) = self.br_ports.get_mut(&idx) {
                    p.guard_held = false;
                }
            }
            let held = self.br_ports.get(&idx).is_some_and(|p| p.guard_held);
            if up && !was_open {
                if oper {
                    self.port_enable(br, idx);
                }
            } else if !up && was_open {
                if state != port_state::DISABLED {
                    self.port_disable(br, idx);
                }
            } else if up {
                if oper && state == port_state::DISABLED && !held {
                    self.port_enable(br, idx);
                } else if !oper && state != port_state::DISABLED {
                    self.port_disable(br, idx);
                }
            }
        }
        self.bridge_port_selection(br);
    }

    /// `new_nbp`: port `idx`'s settings when it joins `br` (disabled; enabled by the
    /// next [`Netns::bridge_sync_ports`] if the bridge and the port are up).
    fn bridge_new_port(&mut self, br: u32, idx: u32) {
        let used: BTreeSet<u16> = self
            .bridge_ports(br)
            .iter()
            .filter(|&&p| p != idx)
            .filter_map(|p| self.br_ports.get(p).map(|x| x.port_no))
            .collect();
        let port_no = (1..=1023u16).find(|n| !used.contains(n)).unwrap_or(0);
        let mut p = BridgePort {
            port_no,
            priority: 0x20,
            cost: self.port_cost(idx),
            admin_cost: false,
            state: port_state::DISABLED,
            flags: port_flag::DEFAULT,
            mcast_router: 1,
            mcast_rtr_listed: false,
            mcast_rtr_due: None,
            group_fwd_mask: 0,
            backup: 0,
            promisc: false,
            designated_prio: self.bridge_conf(br).priority,
            designated_port: 0,
            fd_due: None,
            msg_age_due: None,
            guard_held: false,
            tx_bpdu: 0,
            rx_bpdu: 0,
            // new_nbp's br_init_port sets it blocking (counted under kernel spanning
            // tree) before it is disabled
            transition_blk: u64::from(self.bridge_conf(br).stp),
            transition_fwd: 0,
        };
        p.designated_port = p.port_id();
        self.br_ports.insert(idx, p);
    }

    /// `del_nbp`'s part here: the port's settings go, and so does every other port's
    /// backup through it (`nbp_backup_clear`).
    fn bridge_forget_port(&mut self, idx: u32) {
        self.br_ports.remove(&idx);
        for p in self.br_ports.values_mut() {
            if p.backup == idx {
                p.backup = 0;
            }
        }
    }

    /// `br_changelink`: `c` applied in the kernel's order, stopping at the first
    /// refusal with the changes before it kept. Not a bridge: EOPNOTSUPP.
    pub fn bridge_changelink(&mut self, br: u32, c: &BridgeChange) -> Result<()> {
        if !self.is_bridge(br) {
            return Err(Error::new(Errno::EOPNOTSUPP));
        }
        let r = self.bridge_changelink_inner(br, c);
        self.bridge_carrier_changed(br);
        self.bump();
        r
    }

    fn bridge_changelink_inner(&mut self, br: u32, c: &BridgeChange) -> Result<()> {
        let range = || Error::new(Errno::ERANGE);
        let inval = || Error::new(Errno::EINVAL);
        if let Some(v) = c.forward_delay {
            // br_set_forward_delay: 2-30 s only under spanning tree
            let t = clock_to_jiffies(u64::from(v));
            let conf = self.bridges.entry(br).or_default();
            if conf.stp && !(2 * HZ..=30 * HZ).contains(&t) {
                return Err(range());
            }
            conf.forward_delay = t;
        }
        if let Some(v) = c.hello_time {
            // br_set_hello_time: BR_MIN_HELLO_TIME (1 s) to BR_MAX_HELLO_TIME (10 s)
            // (random seed bridge 23: 50, half a second, is refused)
            let t = clock_to_jiffies(u64::from(v));
            if !(HZ..=10 * HZ).contains(&t) {
                return Err(range());
            }
            self.bridges.entry(br).or_default().hello_time = t;
        }
        if let Some(v) = c.max_age {
            let t = clock_to_jiffies(u64::from(v));
            if !(6 * HZ..=40 * HZ).contains(&t) {
                return Err(range());
            }
            self.bridges.entry(br).or_default().max_age = t;
        }
        if let Some(v) = c.ageing_time {
            // br_set_ageing_time: the one in force too, topology change or not
            let conf = self.bridges.entry(br).or_default();
            conf.ageing_time = clock_to_jiffies(u64::from(v));
            conf.bridge_ageing_time = conf.ageing_time;
        }
        if let Some(v) = c.stp_state {
            let now = self.ms_clock;
            let conf = self.bridges.entry(br).or_default();
            if v != 0 && !conf.stp {
                // br_stp_start: kernel spanning tree, its forward delay within 2-30 s
                conf.forward_delay = conf.forward_delay.clamp(2 * HZ, 30 * HZ);
                conf.stp = true;
                // (and starts the hello timer of a bridge that is up)
                if conf.open {
                    conf.hello_due = Some(now + conf.hello_time * TICK_MS);
                }
                self.bridge_port_selection(br);
            } else if v == 0 {
                // br_stp_stop: listening ports go on when their timer fires, and so
                // do the hello timer (once more, its BPDUs no longer heard) and a
                // port's message age timer
                conf.stp = false;
            }
        }
        if let Some(prio) = c.priority {
            // br_stp_set_bridge_priority: the ports that are not disabled take it
            self.bridges.entry(br).or_default().priority = prio;
            for idx in self.bridge_ports(br) {
                if self
                    .br_ports
                    .get(&idx)
                    .is_some_and(|p| p.state != port_state::DISABLED)
                {
                    self.port_become_designated(br, idx);
                }
            }
        }
        if c.vlan_filtering.is_some() {
            // built without CONFIG_BRIDGE_VLAN_FILTERING: br_vlan_filter_toggle's stub
            return Err(Error::new(Errno::EOPNOTSUPP));
        }
        if let Some(m) = c.group_fwd_mask {
            // BR_GROUPFWD_RESTRICTED: STP, MAC pause, LACP
            if m & 0x7 != 0 {
                return Err(inval());
            }
            self.bridges.entry(br).or_default().group_fwd_mask = m;
        }
        if let Some(a) = &c.group_addr {
            // a link-local group 01:80:c2:00:00:0X but for pause, slow protocols, PAE
            if a.len() != 6 || a[..5] != [0x01, 0x80, 0xc2, 0, 0] || a[5] & 0xf0 != 0 {
                return Err(inval());
            }
            if (1..=3).contains(&a[5]) {
                return Err(inval());
            }
            let mut g = [0u8; 6];
            g.copy_from_slice(a);
            self.bridges.entry(br).or_default().group_addr = g;
        }
        if let Some(v) = c.mcast_router {
            // br_multicast_set_router: a bridge is never a temporary router
            if v > 2 {
                return Err(inval());
            }
            self.bridges.entry(br).or_default().mcast_router = v;
        }
        if let Some(v) = c.mcast_snooping {
            // br_multicast_toggle: turned off, the bridge leaves the all-snoopers
            // groups; turned on, it joins them if it is up
            let on = v != 0;
            let conf = self.bridges.entry(br).or_default();
            if conf.mcast_snooping != on {
                conf.mcast_snooping = on;
                if !on {
                    self.bridge_leave_snoopers(br);
                } else if self.links.get(&br).is_some_and(|l| l.up) {
                    self.bridge_join_snoopers(br);
                }
            }
        }
        let conf = self.bridges.entry(br).or_default();
        if let Some(v) = c.mcast_query_use_ifaddr {
            conf.mcast_query_use_ifaddr = v != 0;
        }
        if let Some(v) = c.mcast_querier {
            conf.mcast_querier = v != 0;
        }
        // (mcast_hash_elasticity is deprecated: always 16)
        if let Some(v) = c.hash_max {
            conf.hash_max = v;
        }
        if let Some(v) = c.last_member_count {
            conf.last_member_count = v;
        }
        if let Some(v) = c.startup_query_count {
            conf.startup_query_count = v;
        }
        for (i, v) in c.mcast_intervals.iter().enumerate() {
            if let Some(v) = v {
                let mut t = clock_to_jiffies(*v);
                // br_multicast_set_query_intvl, _startup_query_intvl: 1 s to a day
                if i == 3 || i == 5 {
                    t = t.clamp(HZ, 86_400 * HZ);
                }
                conf.mcast_intervals[i] = t;
            }
        }
        if let Some(v) = c.mcast_stats {
            conf.mcast_stats = v != 0;
        }
        if let Some(v) = c.igmp_version {
            if v != 2 && v != 3 {
                return Err(inval());
            }
            conf.igmp_version = v;
        }
        if let Some(v) = c.mld_version {
            if v != 1 && v != 2 {
                return Err(inval());
            }
            conf.mld_version = v;
        }
        for (i, v) in c.nf_call.iter().enumerate() {
            if let Some(v) = v {
                conf.nf_call[i] = *v != 0;
            }
        }
        // br_boolopt_multi_toggle, in the options' bit order
        if let Some(v) = c.no_ll_learn {
            conf.no_ll_learn = v;
        }
        if c.mcast_vlan_snooping == Some(true) {
            return Err(Error::msg(
                Errno::EINVAL,
                "bridge: Cannot enable multicast vlan snooping with vlan filtering disabled",
            ));
        }
        Ok(())
    }

    /// `br_setport` on port `idx`: `c` applied in the kernel's order (the flags, cost,
    /// priority, state, multicast router, group forward mask, backup port), stopping
    /// at the first refusal with the changes before it kept. Not a bridge port:
    /// EOPNOTSUPP (no master with `slave_changelink`).
    pub fn bridge_port_changelink(&mut self, idx: u32, c: &PortChange) -> Result<()> {
        let br = self.links.get(&idx).map_or(0, |l| l.master);
        if br == 0 || !self.br_ports.contains_key(&idx) {
            return Err(Error::new(Errno::EOPNOTSUPP));
        }
        let r = self.bridge_port_changelink_inner(br, idx, c);
        self.bridge_carrier_changed(br);
        self.bump();
        r
    }

    fn bridge_port_changelink_inner(&mut self, br: u32, idx: u32, c: &PortChange) -> Result<()> {
        let inval = || Error::new(Errno::EINVAL);
        let p = self.br_ports.get_mut(&idx).expect("a port");
        p.flags = (p.flags & !c.flags.0) | (c.flags.1 & c.flags.0);
        if let Some(v) = c.cost {
            // br_stp_set_path_cost
            if !(1..=65535).contains(&v) {
                return Err(Error::new(Errno::ERANGE));
            }
            p.cost = v;
            p.admin_cost = true;
        }
        if let Some(v) = c.priority {
            // br_stp_set_port_priority
            if v > 63 {
                return Err(Error::new(Errno::ERANGE));
            }
            let prio = self.bridge_conf(br).priority;
            let p = self.br_ports.get_mut(&idx).expect("a port");
            let designated = p.designated_prio == prio && p.designated_port == p.port_id();
            p.priority = v;
            if designated {
                p.designated_port = p.port_id();
            }
            if p.designated_prio == prio && p.port_id() < p.designated_port {
                self.port_become_designated(br, idx);
                self.bridge_port_selection(br);
            }
        }
        if let Some(s) = c.state {
            // br_set_port_state
            if s > port_state::BLOCKING {
                return Err(inval());
            }
            if self.bridge_conf(br).stp {
                return Err(Error::new(Errno::EBUSY));
            }
            let l = &self.links[&idx];
            if !l.up || (!l.carrier && s != port_state::DISABLED) {
                return Err(Error::new(Errno::ENETDOWN));
            }
            self.br_ports.get_mut(&idx).expect("a port").state = s;
            self.bridge_port_selection(br);
        }
        if let Some(v) = c.mcast_router {
            // br_multicast_set_port_router
            if v > 3 {
                return Err(inval());
            }
            let running = self.links.get(&br).is_some_and(|l| l.up);
            let querier = self.bridge_conf(br).mcast_intervals[2];
            let due = self.ms_clock + querier * TICK_MS;
            let p = self.br_ports.get_mut(&idx).expect("a port");
            if p.mcast_router == v {
                // the same temporary type again re-arms its timers, marked or not
                if v == 3 {
                    p.mcast_rtr_due = Some(due);
                }
            } else {
                p.mcast_router = v;
                match v {
                    // off, or learnt from queries: off the router lists (timers left
                    // running, to no effect)
                    0 | 1 => p.mcast_rtr_listed = false,
                    // permanent: on them, no timer
                    2 => {
                        p.mcast_rtr_listed = true;
                        p.mcast_rtr_due = None;
                    }
                    // temporary: br_multicast_mark_router, only while the bridge runs
                    // and the port is not disabled (br_multicast_ctx_should_use)
                    _ => {
                        if running && p.state != port_state::DISABLED {
                            p.mcast_rtr_listed = true;
                            p.mcast_rtr_due = Some(due);
                        }
                    }
                }
            }
        }
        let p = self.br_ports.get_mut(&idx).expect("a port");
        if let Some(m) = c.group_fwd_mask {
            // BR_GROUPFWD_MACPAUSE
            if m & 0x2 != 0 {
                return Err(inval());
            }
            p.group_fwd_mask = m;
        }
        if let Some(b) = c.backup {
            // nbp_backup_change: a port of the same bridge, not itself
            if b != 0 {
                let Some(bl) = self.links.get(&b) else {
                    return Err(Error::new(Errno::ENOENT));
                };
                if !self.br_ports.contains_key(&b) {
                    return Err(Error::new(Errno::ENOENT));
                }
                if bl.master != br || b == idx {
                    return Err(inval());
                }
            }
            self.br_ports.get_mut(&idx).expect("a port").backup = b;
        }
        Ok(())
    }
}
