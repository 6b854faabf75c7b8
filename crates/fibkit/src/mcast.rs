//! Multicast memberships of the devices: what `ip maddress` lists, and the IPv4
//! groups an input route of a multicast destination is delivered for.
//!
//! The kernel keeps three lists per device, each in its own order:
//!
//! - the link-layer addresses the device receives (`dev->mc`, appended; read from
//!   `/proc/net/dev_mcast`): one per mapped group (`01:00:5e:..` for IPv4,
//!   `33:33:..` for IPv6 groups of link-local scope or wider), counted, plus the
//!   ones `ip maddr add` asked for (`static`, `global_use`);
//! - the IPv4 groups of the `in_device` (`/proc/net/igmp`, newest first): the
//!   all-hosts group 224.0.0.1 while the device is up, and the groups of addresses
//!   added with `autojoin`;
//! - the IPv6 groups of the `inet6_dev` (`/proc/net/igmp6`, newest first): the
//!   all-nodes groups from its creation, all-routers under forwarding, the
//!   solicited-node group of each address (not on NOARP or loopback devices) and of
//!   each subnet-router anycast address.
//!
//! A group's link-layer address is *loaded* while the device may receive it: IPv4
//! groups are dropped at `ip_mc_down` and loaded again at `ip_mc_up`; IPv6 groups are
//! dropped when a device that was ready (up with carrier) goes down
//! (`ipv6_mc_down`), and loaded again by `ipv6_mc_up` (the device up and ready, or an
//! address added while it is up).

use crate::error::{Errno, Error, Result};
use crate::netns::Netns;

/// A link-layer multicast address of a device (`struct netdev_hw_addr`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkMc {
    /// The address.
    pub addr: [u8; 6],
    /// References (`refcount`): each loaded group mapped to it, and `ip maddr add`.
    pub users: u32,
    /// Asked for by `ip maddr add` (`global_use`; iproute2 prints `static`).
    pub global: bool,
    /// A macvlan's entry copied into its lower device's list (`sync_cnt`), which
    /// holds one of `users`.
    pub synced: bool,
}

/// A multicast group of a device (`struct ip_mc_list`, `struct ifmcaddr6`): `A` is
/// `u32` for IPv4, `u128` for IPv6.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group<A> {
    /// The group address.
    pub addr: A,
    /// Joins (`users`, `mca_users`).
    pub users: u32,
    /// Whether its link-layer address is in the device's list (`loaded`, `MAF_LOADED`).
    pub(crate) loaded: bool,
    /// Whether this host sent the last report of it under IGMPv1/v2 or MLDv1
    /// (`reporter`, `MAF_LAST_REPORTER`), so that leaving it is reported.
    pub(crate) reported: bool,
}

/// An IPv4 group.
pub type Group4 = Group<u32>;
/// An IPv6 group.
pub type Group6 = Group<u128>;

/// A group address: the link-layer address the device receives it on, if any.
trait McAddr: Copy + PartialEq {
    /// `arp_mc_map` / `ndisc_mc_map` for an Ethernet device.
    fn mapped(self) -> Option<[u8; 6]>;
    /// The device's list of groups of this family.
    fn list(m: &mut DevMcast) -> &mut Vec<Group<Self>>;
    /// Sends the membership report a join or a leave of `group` sends now, if any
    /// ([`Netns::igmp_report`], [`Netns::mld_report`]); true when it was a report of
    /// IGMPv1/v2 or MLDv1 that makes this host the group's last reporter.
    fn report(ns: &mut Netns, dev: u32, group: Self, join: bool, reported: bool) -> bool;
}

impl McAddr for u32 {
    fn mapped(self) -> Option<[u8; 6]> {
        let g = self.to_be_bytes();
        Some([0x01, 0x00, 0x5e, g[1] & 0x7f, g[2], g[3]])
    }
    fn list(m: &mut DevMcast) -> &mut Vec<Group<u32>> {
        &mut m.v4
    }
    fn report(ns: &mut Netns, dev: u32, group: u32, join: bool, reported: bool) -> bool {
        ns.igmp_report(dev, group, join, reported)
    }
}

impl McAddr for u128 {
    fn mapped(self) -> Option<[u8; 6]> {
        // igmp6_group_added: groups of a scope below link-local are not mapped
        if (self >> 112) & 0xf < 2 {
            return None;
        }
        let g = self.to_be_bytes();
        Some([0x33, 0x33, g[12], g[13], g[14], g[15]])
    }
    fn list(m: &mut DevMcast) -> &mut Vec<Group<u128>> {
        &mut m.v6
    }
    fn report(ns: &mut Netns, dev: u32, group: u128, join: bool, reported: bool) -> bool {
        ns.mld_report(dev, group, join, reported)
    }
}

/// The multicast state of one device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DevMcast {
    /// Link-layer addresses, in the kernel's list order.
    pub link: Vec<LinkMc>,
    /// IPv4 groups, newest first.
    pub v4: Vec<Group4>,
    /// IPv6 groups, newest first.
    pub v6: Vec<Group6>,
}

/// The IPv4 all-hosts group, which every up device with IPv4 state joins.
pub const ALL_HOSTS: u32 = 0xe000_0001;
/// ff01::1, ff02::1: the interface-local and link-local all-nodes groups.
const ALL_NODES_IFACE: u128 = 0xff01 << 112 | 1;
const ALL_NODES_LINK: u128 = 0xff02 << 112 | 1;
/// ff02::2, ff01::2, ff05::2: the all-routers groups joined under forwarding.
const ALL_ROUTERS_LINK: u128 = 0xff02 << 112 | 2;
const ALL_ROUTERS_IFACE: u128 = 0xff01 << 112 | 2;
const ALL_ROUTERS_SITE: u128 = 0xff05 << 112 | 2;

/// The solicited-node group of `addr` (ff02::1:ffXX:XXXX, `addrconf_addr_solict_mult`).
pub fn solicited_node(addr: u128) -> u128 {
    (0xff02u128 << 112) | (1 << 32) | (0xff << 24) | (addr & 0x00ff_ffff)
}

impl Netns {
    /// The multicast lists of device `dev` as `ip maddress` shows them (empty lists
    /// for an unknown device or one without the family's state).
    pub fn maddrs(&self, dev: u32) -> DevMcast {
        self.mcast.get(&dev).cloned().unwrap_or_default()
    }

    /// Whether device `dev` joined IPv4 multicast `group` (`ip_check_mc_rcu`; no
    /// source filters are modelled, so a joined group admits every source).
    pub fn dev_has_mc(&self, dev: u32, group: u32) -> bool {
        self.has_idev4(dev)
            && self
                .mcast
                .get(&dev)
                .is_some_and(|m| m.v4.iter().any(|g| g.addr == group))
    }

    /// `ip maddr add ADDR dev DEV` (`SIOCADDMULTI`, `dev_mc_add_global`): a device
    /// whose driver has no receive filter (`ndo_set_rx_mode`: loopback, ifb) refuses
    /// it (EINVAL); otherwise the address is listed as `static`, once however often it
    /// is asked for, sharing the entry of a group mapped to it. Any address is taken,
    /// unicast ones too, as the kernel does.
    pub fn maddr_add(&mut self, dev: u32, addr: [u8; 6]) -> Result<()> {
        let l = self.links.get(&dev).ok_or(Error::new(Errno::ENODEV))?;
        if !matches!(
            l.kind,
            crate::link::LinkKind::Veth { .. }
                | crate::link::LinkKind::Bridge
                | crate::link::LinkKind::Tun { tap: true, .. }
                | crate::link::LinkKind::Macvlan { .. }
        ) {
            return Err(Error::new(Errno::EINVAL));
        }
        let list = &mut self.mcast.entry(dev).or_default().link;
        match list.iter_mut().find(|e| e.addr == addr) {
            Some(e) if e.global => {}
            Some(e) => {
                e.global = true;
                e.users += 1;
            }
            None => list.push(LinkMc {
                addr,
                users: 1,
                global: true,
                synced: false,
            }),
        }
        self.macvlan_mc_sync(dev);
        self.bump();
        Ok(())
    }

    /// `ip maddr del ADDR dev DEV` (`SIOCDELMULTI`, `dev_mc_del_global`): only an
    /// address `ip maddr add` put there can go (ENOENT otherwise); its entry stays
    /// while a group still maps to it.
    pub fn maddr_del(&mut self, dev: u32, addr: [u8; 6]) -> Result<()> {
        let l = self.links.get(&dev).ok_or(Error::new(Errno::ENODEV))?;
        if !matches!(
            l.kind,
            crate::link::LinkKind::Veth { .. }
                | crate::link::LinkKind::Bridge
                | crate::link::LinkKind::Tun { tap: true, .. }
                | crate::link::LinkKind::Macvlan { .. }
        ) {
            return Err(Error::new(Errno::EINVAL));
        }
        let list = &mut self.mcast.entry(dev).or_default().link;
        let Some(i) = list.iter().position(|e| e.addr == addr && e.global) else {
            return Err(Error::new(Errno::ENOENT));
        };
        list[i].global = false;
        list[i].users -= 1;
        if list[i].users == 0 {
            list.remove(i);
        }
        self.macvlan_mc_sync(dev);
        self.bump();
        Ok(())
    }

    // ------------------------------------------------------------ link layer

    fn mc_link_inc(&mut self, dev: u32, addr: [u8; 6]) {
        self.mc_link_ref(dev, addr);
        // `__dev_set_rx_mode`: an open macvlan passes its list on at once
        self.macvlan_mc_sync(dev);
    }

    fn mc_link_dec(&mut self, dev: u32, addr: [u8; 6]) {
        self.mc_link_unref(dev, addr);
        self.macvlan_mc_sync(dev);
    }

    /// A reference to `addr` in device `dev`'s link-layer list (appended when new).
    pub(crate) fn mc_link_ref(&mut self, dev: u32, addr: [u8; 6]) {
        let list = &mut self.mcast.entry(dev).or_default().link;
        match list.iter_mut().find(|e| e.addr == addr) {
            Some(e) => e.users += 1,
            None => list.push(LinkMc {
                addr,
                users: 1,
                global: false,
                synced: false,
            }),
        }
    }

    /// A reference to `addr` dropped from device `dev`'s list (gone at none).
    pub(crate) fn mc_link_unref(&mut self, dev: u32, addr: [u8; 6]) {
        let Some(list) = self.mcast.get_mut(&dev).map(|m| &mut m.link) else {
            return;
        };
        if let Some(i) = list.iter().position(|e| e.addr == addr) {
            list[i].users -= 1;
            if list[i].users == 0 {
                list.remove(i);
            }
        }
    }

    /// `arp_mc_map` / `ndisc_mc_map` towards the device (`dir` 0): Ethernet devices
    /// map a group, the loopback does not.
    fn mc_mappable(&self, dev: u32) -> bool {
        self.links
            .get(&dev)
            .is_some_and(|l| !l.is_loopback() && !l.is_tun())
    }

    // ------------------------------------------------------------ groups

    /// `ip_mc_inc_group` / `ipv6_dev_mc_inc`: a new group comes first in the list and
    /// is loaded at once.
    fn group_inc<A: McAddr>(&mut self, dev: u32, group: A) {
        let list = A::list(self.mcast.entry(dev).or_default());
        if let Some(g) = list.iter_mut().find(|g| g.addr == group) {
            g.users += 1;
            return;
        }
        list.insert(
            0,
            Group {
                addr: group,
                users: 1,
                loaded: false,
                reported: false,
            },
        );
        self.group_load::<A>(dev, 0);
        self.group_report_join::<A>(dev, 0);
    }

    /// The report `igmp_group_added` / `igmp6_group_added` sends for the `i`-th group.
    fn group_report_join<A: McAddr>(&mut self, dev: u32, i: usize) {
        let Some(addr) = self
            .mcast
            .get_mut(&dev)
            .and_then(|m| A::list(m).get(i))
            .map(|g| g.addr)
        else {
            return;
        };
        if A::report(self, dev, addr, true, false) {
            if let Some(g) = self.mcast.get_mut(&dev).and_then(|m| A::list(m).get_mut(i)) {
                g.reported = true;
            }
        }
    }

    /// `ip_mc_dec_group` / `__ipv6_dev_mc_dec`.
    fn group_dec<A: McAddr>(&mut self, dev: u32, group: A) {
        let Some(m) = self.mcast.get_mut(&dev) else {
            return;
        };
        let list = A::list(m);
        let Some(i) = list.iter().position(|g| g.addr == group) else {
            return;
        };
        list[i].users -= 1;
        if list[i].users == 0 {
            let g = list.remove(i);
            if g.loaded && self.mc_mappable(dev) {
                if let Some(a) = group.mapped() {
                    self.mc_link_dec(dev, a);
                }
            }
            // igmp_group_dropped / igmp6_group_dropped: the leave is reported
            A::report(self, dev, group, false, g.reported);
        }
    }

    /// `igmp_group_added` / `igmp6_group_added` for the `i`-th group: its link-layer
    /// address is loaded (an IPv6 group below link-local scope has none).
    fn group_load<A: McAddr>(&mut self, dev: u32, i: usize) {
        let mappable = self.mc_mappable(dev);
        let Some(g) = self.mcast.get_mut(&dev).and_then(|m| A::list(m).get_mut(i)) else {
            return;
        };
        let Some(a) = g.addr.mapped() else {
            return;
        };
        if g.loaded {
            return;
        }
        g.loaded = true;
        if mappable {
            self.mc_link_inc(dev, a);
        }
    }

    /// Every group of the family loaded, in list order (`ip_mc_up`'s loop,
    /// `ipv6_mc_up`).
    fn groups_load<A: McAddr>(&mut self, dev: u32) {
        let n = self.mcast.get_mut(&dev).map_or(0, |m| A::list(m).len());
        for i in 0..n {
            self.group_load::<A>(dev, i);
            self.group_report_join::<A>(dev, i);
        }
    }

    /// Every group of the family unloaded (`ip_mc_down`'s loop, `ipv6_mc_down`); the
    /// list stays.
    fn groups_unload<A: McAddr>(&mut self, dev: u32) {
        let mappable = self.mc_mappable(dev);
        let Some(m) = self.mcast.get_mut(&dev) else {
            return;
        };
        let mut gone = Vec::new();
        for g in A::list(m).iter_mut().filter(|g| g.loaded) {
            g.loaded = false;
            gone.extend(g.addr.mapped());
        }
        if mappable {
            for a in gone {
                self.mc_link_dec(dev, a);
            }
        }
    }

    /// Every group of the family gone (`ip_mc_destroy_dev`, `ipv6_mc_destroy_dev`).
    fn groups_destroy<A: McAddr>(&mut self, dev: u32) {
        self.groups_unload::<A>(dev);
        if let Some(m) = self.mcast.get_mut(&dev) {
            A::list(m).clear();
        }
    }

    // ------------------------------------------------------------ IPv4 groups

    /// `ip_mc_inc_group`.
    pub(crate) fn mc4_inc(&mut self, dev: u32, group: u32) {
        self.group_inc(dev, group);
    }

    /// `ip_mc_dec_group`.
    pub(crate) fn mc4_dec(&mut self, dev: u32, group: u32) {
        self.group_dec(dev, group);
    }

    /// `ip_mc_up`: the all-hosts group is joined, then every group loaded in list order.
    pub(crate) fn mc4_up(&mut self, dev: u32) {
        self.mc4_inc(dev, ALL_HOSTS);
        self.groups_load::<u32>(dev);
    }

    /// `ip_mc_down`: every group is unloaded, then the all-hosts group left.
    pub(crate) fn mc4_down(&mut self, dev: u32) {
        self.groups_unload::<u32>(dev);
        self.mc4_dec(dev, ALL_HOSTS);
    }

    /// `ip_mc_destroy_dev` (the device's IPv4 state goes): every group goes.
    pub(crate) fn mc4_destroy(&mut self, dev: u32) {
        self.groups_destroy::<u32>(dev);
    }

    /// `ip_mc_autojoin_config(join)` for an address added with `autojoin`: the netns'
    /// autojoin socket joins `group` on `dev` (`ip_mc_join_group`); a second join of
    /// the same group on the same device by that socket is EADDRINUSE.
    pub(crate) fn mc4_autojoin(&mut self, dev: u32, group: u32) -> Result<()> {
        if !self.mc_autojoin4.insert((dev, group)) {
            return Err(Error::msg(
                Errno::EADDRINUSE,
                "ipv4: Multicast auto join failed",
            ));
        }
        self.mc4_inc(dev, group);
        Ok(())
    }

    /// `ip_mc_autojoin_config(leave)` (`inet_rtm_deladdr` of any multicast address):
    /// the socket leaves the group if it had joined it there.
    pub(crate) fn mc4_autoleave(&mut self, dev: u32, group: u32) {
        if self.mc_autojoin4.remove(&(dev, group)) {
            self.mc4_dec(dev, group);
        }
    }

    // ------------------------------------------------------------ IPv6 groups

    /// `ipv6_mc_config(join)` for an address added with `autojoin`: the netns' autojoin
    /// socket joins `group` on `dev` (`ipv6_sock_mc_join`), EADDRINUSE when it has.
    pub(crate) fn mc6_autojoin(&mut self, dev: u32, group: u128) -> Result<()> {
        if !self.mc_autojoin6.insert((dev, group)) {
            return Err(Error::msg(
                Errno::EADDRINUSE,
                "ipv6: Multicast auto join failed",
            ));
        }
        self.mc6_inc(dev, group);
        Ok(())
    }

    /// `ipv6_mc_config(leave)` (`inet6_addr_del` of any multicast address).
    pub(crate) fn mc6_autoleave(&mut self, dev: u32, group: u128) {
        if self.mc_autojoin6.remove(&(dev, group)) {
            self.mc6_dec(dev, group);
        }
    }

    /// `ipv6_dev_mc_inc`.
    pub(crate) fn mc6_inc(&mut self, dev: u32, group: u128) {
        self.group_inc(dev, group);
    }

    /// `__ipv6_dev_mc_dec`.
    pub(crate) fn mc6_dec(&mut self, dev: u32, group: u128) {
        self.group_dec(dev, group);
    }

    /// `ipv6_mc_up`: every group loaded, in list order.
    pub(crate) fn mc6_up(&mut self, dev: u32) {
        self.groups_load::<u128>(dev);
    }

    /// `ipv6_mc_down`: every group unloaded (the list stays).
    pub(crate) fn mc6_down(&mut self, dev: u32) {
        self.groups_unload::<u128>(dev);
    }

    /// `ipv6_mc_destroy_dev` (the device's IPv6 state goes): every group goes.
    pub(crate) fn mc6_destroy(&mut self, dev: u32) {
        self.groups_destroy::<u128>(dev);
    }

    /// `ipv6_add_dev`: the all-nodes groups (interface-local, then link-local), and
    /// the link-local all-routers group when the new device forwards and does
    /// multicast.
    pub(crate) fn mc6_init(&mut self, dev: u32) {
        self.mc6_inc(dev, ALL_NODES_IFACE);
        self.mc6_inc(dev, ALL_NODES_LINK);
        let multicast = self
            .links
            .get(&dev)
            .is_some_and(|l| l.flags & crate::link::iff::MULTICAST != 0);
        let fwd = self
            .sysctl
            .v6_dev
            .get(&dev)
            .is_some_and(|c| c.forwarding != 0);
        if fwd && multicast {
            self.mc6_inc(dev, ALL_ROUTERS_LINK);
        }
    }

    /// `dev_forward_change`'s groups: the all-routers groups are joined (or left) by a
    /// device that does multicast.
    pub(crate) fn mc6_forward_change(&mut self, dev: u32, on: bool) {
        let multicast = self
            .links
            .get(&dev)
            .is_some_and(|l| l.flags & crate::link::iff::MULTICAST != 0);
        if !multicast {
            return;
        }
        for g in [ALL_ROUTERS_LINK, ALL_ROUTERS_IFACE, ALL_ROUTERS_SITE] {
            if on {
                self.mc6_inc(dev, g);
            } else {
                self.mc6_dec(dev, g);
            }
        }
    }

    /// `addrconf_join_solict`: not on NOARP or loopback devices (as they are now).
    pub(crate) fn join_solict(&mut self, dev: u32, addr: u128) {
        if self.solict_skipped(dev) {
            return;
        }
        self.mc6_inc(dev, solicited_node(addr));
    }

    /// `addrconf_leave_solict`, with the same test on the device's flags now.
    pub(crate) fn leave_solict(&mut self, dev: u32, addr: u128) {
        if self.solict_skipped(dev) {
            return;
        }
        self.mc6_dec(dev, solicited_node(addr));
    }

    fn solict_skipped(&self, dev: u32) -> bool {
        self.links
            .get(&dev)
            .is_none_or(|l| l.is_loopback() || l.noarp())
    }
}

/// The IPv4 group IGMPv3 reports go to (224.0.0.22), and the all-routers group
/// IGMPv2 leaves go to (224.0.0.2).
const IGMPV3_ALL_MCR: u32 = 0xe000_0016;
const ALL_ROUTERS4: u32 = 0xe000_0002;
/// ff02::16, where MLDv2 reports go.
const MLD2_ALL_MCR: u128 = 0xff02 << 112 | 0x16;

/// Membership reports. No packet is modelled, but each report leaves what sending it
/// makes: a NOARP neighbour entry for its destination on the device (`ip neigh show
/// nud all` lists it). The kernel sends them a few jiffies after the join or leave
/// (`igmp_ifc_start_timer`, `mld_ifc_start_work`), and again later; fibkit makes the
/// entry at once.
impl Netns {
    /// A forced protocol version: `conf.all` first, then the device's (IGMP reads
    /// either, MLD `all ?: dev`).
    fn mc_forced(&self, fam: &str, dev: u32, key: &str) -> (i64, i64) {
        let read = |k: String| self.sysctl.other_long(&k).unwrap_or(0);
        let all = read(format!("net.{fam}.conf.all.{key}"));
        let d = self
            .links
            .get(&dev)
            .map_or(0, |l| read(format!("net.{fam}.conf.{}.{key}", l.name)));
        (all, d)
    }

    /// `igmp_group_added` / `igmp_group_dropped` of IPv4 `group` on `dev`: the
    /// all-hosts group is never reported, nor link-local groups without
    /// `igmp_link_local_mcast_reports`. IGMPv3 reports go to 224.0.0.22; under a
    /// forced IGMPv1 or v2 a join is reported to the group itself, and a v2 leave of a
    /// group this host reported to 224.0.0.2. A report goes out only through a device
    /// that is up (its route lookup fails otherwise).
    pub(crate) fn igmp_report(&mut self, dev: u32, group: u32, join: bool, reported: bool) -> bool {
        if group == ALL_HOSTS {
            return false;
        }
        let llm = self
            .sysctl
            .other_long("net.ipv4.igmp_link_local_mcast_reports")
            .is_none_or(|v| v != 0);
        if crate::prefix::v4::is_local_multicast(group) && !llm {
            return false;
        }
        if !self.links.get(&dev).is_some_and(|l| l.up && !l.is_tun()) || !self.has_idev4(dev) {
            return false;
        }
        let (all, d) = self.mc_forced("ipv4", dev, "force_igmp_version");
        let version = if all == 1 || d == 1 {
            1
        } else if all == 2 || d == 2 {
            2
        } else {
            3
        };
        let to = match (version, join) {
            (3, _) => IGMPV3_ALL_MCR,
            (_, true) => group,
            (2, false) if reported => ALL_ROUTERS4,
            _ => return false,
        };
        if let Some(held) = self.igmp_held.as_mut() {
            held.push((dev, to));
        } else {
            self.neigh_mc_entry(dev, u128::from(to), false);
        }
        join && version < 3
    }

    /// `igmp6_group_added` / `igmp6_group_dropped` of IPv6 `group` on `dev`: groups
    /// below link-local scope and the link-local all-nodes group are never reported
    /// (`MAF_NOREPORT`). MLDv2 reports go to ff02::16; under a forced MLDv1 a join is
    /// reported to the group itself and a leave of a group this host reported to
    /// ff02::2. A join is reported by a device that is up, a leave whether it is up or
    /// not, unless the device's IPv6 is disabled (`ip6_output` drops it); the leaves
    /// `addrconf_ifdown` makes are held (see [`Netns::mld_held`]).
    pub(crate) fn mld_report(&mut self, dev: u32, group: u128, join: bool, reported: bool) -> bool {
        if group.mapped().is_none() || group == ALL_NODES_LINK {
            return false;
        }
        let Some(l) = self.links.get(&dev) else {
            return false;
        };
        if (join && !l.up) || l.is_tun() || !self.has_idev6(dev) || self.ipv6_disabled(dev) {
            return false;
        }
        let (all, d) = self.mc_forced("ipv6", dev, "force_mld_version");
        let v1 = if all != 0 { all == 1 } else { d == 1 };
        // add_grec: an MLDv2 record is not built for a device whose MTU is below
        // IPv6's minimum (only a loopback keeps its IPv6 state so; conformance
        // scenario 1061)
        if !v1
            && self
                .links
                .get(&dev)
                .is_some_and(|l| l.mtu < crate::netns::IPV6_MIN_MTU)
        {
            return false;
        }
        let to = match (v1, join) {
            (false, _) => MLD2_ALL_MCR,
            (true, true) => group,
            (true, false) if reported => ALL_ROUTERS_LINK,
            _ => return false,
        };
        if let Some(held) = self.mld_held.as_mut() {
            // only MLDv2 reports wait for the kernel's work (mld_ifc_work); an MLDv1
            // one (igmp6_send from igmp6_leave_group) goes at once, inside the
            // NETDEV_DOWN notifiers of a device no longer up, and leaves no neighbour
            // entry once they are over (conformance scenario 1075)
            if !v1 {
                held.push((dev, to));
            }
        } else {
            self.neigh_mc_entry(dev, to, true);
        }
        join && v1
    }
}

impl Netns {
    /// A membership a socket holds (`IP_ADD_MEMBERSHIP`, `IPV6_JOIN_GROUP`): no `ip`
    /// command makes one; a mirror of a host copies the memberships its processes
    /// hold (`fib mirror`), which decide, for IPv4, whether an input route to the
    /// group is local. EINVAL for an address that is not multicast, ENODEV for an
    /// unknown device or one without the family's state.
    pub fn mc_socket_join(&mut self, dev: u32, group: std::net::IpAddr) -> Result<()> {
        if !self.links.contains_key(&dev) {
            return Err(Error::new(Errno::ENODEV));
        }
        match group {
            std::net::IpAddr::V4(g) => {
                if !g.is_multicast() {
                    return Err(Error::new(Errno::EINVAL));
                }
                if !self.has_idev4(dev) {
                    return Err(Error::new(Errno::ENODEV));
                }
                self.mc4_inc(dev, u32::from(g));
            }
            std::net::IpAddr::V6(g) => {
                if !g.is_multicast() {
                    return Err(Error::new(Errno::EINVAL));
                }
                if !self.has_idev6(dev) {
                    return Err(Error::new(Errno::ENODEV));
                }
                self.mc6_inc(dev, u128::from(g));
            }
        }
        self.bump();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::LinkKind;
    use crate::netns::LinkAdd;

    /// A socket's membership makes an IPv4 input route to the group local, and is
    /// refused for a unicast address or a device without IPv4 state.
    #[test]
    fn socket_joins_decide_multicast_input() {
        let mut ns = Netns::new();
        let d = ns
            .link_add(&LinkAdd {
                name: "d0".into(),
                kind: Some(LinkKind::Dummy),
                ..Default::default()
            })
            .unwrap();
        ns.link_set_up(d, true).unwrap();
        let g: std::net::IpAddr = "239.9.9.9".parse().unwrap();
        assert!(!ns.dev_has_mc(d, 0xef09_0909));
        ns.mc_socket_join(d, g).unwrap();
        assert!(ns.dev_has_mc(d, 0xef09_0909));
        let m = ns.maddrs(d);
        assert_eq!(m.v4[0].addr, 0xef09_0909, "newest first");
        assert!(m.link.iter().any(|e| e.addr == [1, 0, 0x5e, 9, 9, 9]));
        let uni: std::net::IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(ns.mc_socket_join(d, uni).unwrap_err().errno, Errno::EINVAL);
        ns.link_set_mtu(d, 60).unwrap();
        assert_eq!(ns.mc_socket_join(d, g).unwrap_err().errno, Errno::ENODEV);
        assert!(!ns.dev_has_mc(d, 0xef09_0909), "gone with the IPv4 state");
    }
}
