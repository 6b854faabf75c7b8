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
//! - **Multicast.** An open bridge joins the all-snoopers groups 224.0.0.106 and
//!   ff02::6a (`br_multicast_join_snoopers`, before the device's `NETDEV_UP`) and
//!   leaves them when it stops.
//! - **Addresses.** The oracle gives every new device an address (as `ip link add
//!   ... address`), which the kernel marks `NET_ADDR_SET`: a bridge then keeps its own
//!   address instead of taking its ports' smallest, so fibkit never changes it.

use crate::error::{Errno, Error, Result};
use crate::link::LinkKind;
use crate::netns::Netns;

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
    /// is up with carrier.
    fn bridge_carrier_wanted(&self, br: u32) -> bool {
        self.links.get(&br).is_some_and(|b| b.up)
            && self
                .links
                .values()
                .any(|p| p.master == br && p.up && p.carrier)
    }

    /// Sets bridge `br`'s carrier from its ports; whether it changed.
    pub(crate) fn bridge_update_carrier(&mut self, br: u32) -> bool {
        if !self.is_bridge(br) {
            return false;
        }
        let want = self.bridge_carrier_wanted(br);
        let l = self.links.get_mut(&br).expect("a bridge");
        if l.carrier == want {
            return false;
        }
        l.carrier = want;
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
        // not the loopback nor a non-Ethernet device
        if l.is_loopback() {
            return Err(Error::new(Errno::EINVAL));
        }
        if l.kind == LinkKind::Bridge {
            return Err(Error::msg(
                Errno::ELOOP,
                "Can not enslave a bridge to a bridge",
            ));
        }
        // netdev_rx_handler_register: a port's handler is its bridge's, a macvlan
        // lower device's its port's
        if l.master != 0 || self.is_macvlan_port(idx) {
            return Err(Error::new(Errno::EBUSY));
        }
        let rx_was = self.rx_flags(idx);
        let l = self.links.get_mut(&idx).expect("exists");
        l.master = br;
        // new_nbp / br_manage_promisc (no VLAN filtering: every port is promiscuous)
        // and dev_set_allmulti
        l.promiscuity = l.promiscuity.saturating_add(1);
        l.allmulti = l.allmulti.saturating_add(1);
        // a macvlan port passes its new states on to its lower device
        self.macvlan_rx_flags(idx, rx_was);
        // a port that is up with carrier forwards at once (no spanning tree)
        self.bridge_carrier_changed(br);
        self.bridge_mtu_adjust(br);
        self.bump();
        Ok(())
    }

    /// `br_del_if` (also when the port or the bridge goes away).
    pub(crate) fn bridge_del_port(&mut self, idx: u32) {
        let Some(l) = self.links.get_mut(&idx) else {
            return;
        };
        let rx_was = (l.promiscuity > 0, l.allmulti > 0);
        let br = std::mem::take(&mut l.master);
        if br == 0 {
            return;
        }
        l.promiscuity = l.promiscuity.saturating_sub(1);
        l.allmulti = l.allmulti.saturating_sub(1);
        self.macvlan_rx_flags(idx, rx_was);
        self.bridge_carrier_changed(br);
        self.bridge_mtu_adjust(br);
        self.bump();
    }

    /// `br_dev_open`'s multicast part (before `NETDEV_UP`): the all-snoopers groups,
    /// for each family the device has state of.
    pub(crate) fn bridge_open(&mut self, br: u32) {
        if self.has_idev4(br) {
            self.mc4_inc(br, ALL_SNOOPERS4);
        }
        if self.has_idev6(br) {
            self.mc6_inc(br, ALL_SNOOPERS6);
        }
    }

    /// `br_dev_stop`'s multicast part (before `NETDEV_DOWN`).
    pub(crate) fn bridge_stop(&mut self, br: u32) {
        if self.has_idev4(br) {
            self.mc4_dec(br, ALL_SNOOPERS4);
        }
        if self.has_idev6(br) {
            self.mc6_dec(br, ALL_SNOOPERS6);
        }
    }
}
