//! The bridge forwarding database as an `AF_BRIDGE` neighbour dump lists it
//! (`ip -f bridge neigh show`, `rtnl_fdb_dump`), without traffic: what the kernel
//! puts there by itself.
//!
//! - **A bridge's local entries** (`BR_FDB_LOCAL`, listed `PERMANENT`): the bridge's
//!   own address from its creation, and each port's from `br_add_if`. The list is
//!   newest first (`fdb_create` adds at the head); one entry per address
//!   (`fdb_add_local` keeps the first owner when a port has an address already
//!   present). A port leaving the bridge takes its entries (`br_fdb_delete_by_port`);
//!   a port's address change replaces its entry (`br_fdb_changeaddr`, on every
//!   `NETDEV_CHANGEADDR`, so setting the same address moves it to the head), and the
//!   bridge's own change replaces the bridge's (`br_fdb_change_mac_address`). An entry
//!   going away whose address another port (or the bridge) still has is handed to
//!   that one instead (`fdb_delete_local`).
//! - **Every other Ethernet device's address lists** (`ndo_dflt_fdb_dump`, `NTF_SELF`,
//!   `PERMANENT`): its unicast list (the addresses of the open macvlans over it that
//!   are not passthru, `dev_uc_add` at `macvlan_open`, in that order), then its
//!   multicast list (what `ip maddr` shows as `link`). A bridge lists its own before
//!   its local entries; the loopback and tun devices (not Ethernet) list nothing.
//! - **A VXLAN device's default destination** (`vxlan_fdb_dump`): the all-zeros
//!   address towards its `remote` or `group`, `REACHABLE PERMANENT`, from its creation
//!   until a flush deletes it or a new remote replaces it (`vxlan_changelink`). A
//!   VXLAN device lists nothing else (it has its own dump).
//!
//! Entries learned from traffic (`br_fdb_update`, a veth peer's packets on a port) are
//! not modelled: a scenario whose ports receive packets lists them on the kernel.
//! Local and default entries carry their update time (`-s`: `used 0/0/N`, N the
//! seconds since then on the scenario clock).

use crate::error::{Errno, Error, Result};
use crate::link::LinkKind;
use crate::netns::Netns;
use std::net::IpAddr;

/// `NUD_REACHABLE`.
const NUD_REACHABLE: u8 = 0x02;
/// `NUD_PERMANENT`.
const NUD_PERMANENT: u8 = 0x80;

/// A bridge's local entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FdbLocal {
    /// The address.
    pub(crate) mac: [u8; 6],
    /// The port it points to, 0 for the bridge itself.
    pub(crate) port: u32,
    /// When it was made (scenario clock, ms).
    pub(crate) updated_ms: u64,
}

/// A unicast address in a device's list (`struct netdev_hw_addr` of `dev->uc`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UcAddr {
    pub(crate) mac: [u8; 6],
    /// References (`dev_uc_add` of an address already listed counts one more).
    pub(crate) refs: u32,
}

/// A VXLAN device's default forwarding entry (the all-zeros address).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VxlanDefault {
    pub(crate) remote: IpAddr,
    pub(crate) updated_ms: u64,
}

/// One row of an `AF_BRIDGE` neighbour dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FdbRow {
    /// The device the entry is listed for (`ndm_ifindex`).
    pub dev: u32,
    /// `NDA_DST` (a VXLAN destination).
    pub dst: Option<IpAddr>,
    /// `NDA_LLADDR`.
    pub mac: [u8; 6],
    /// `ndm_state` (`NUD_*` bits).
    pub state: u8,
    /// Seconds since the entry was used and updated (`NDA_CACHEINFO`'s `ndm_used`,
    /// `ndm_updated`; `ndm_confirmed` is 0), for the entries that carry it.
    pub cache: Option<(u64, u64)>,
}

impl Netns {
    /// Whether device `dev` answers an fdb dump with its own address lists
    /// (`ndo_dflt_fdb_dump` takes Ethernet devices only).
    fn fdb_dflt_lists(&self, dev: u32) -> bool {
        self.links.get(&dev).is_some_and(|l| {
            !l.is_loopback() && !matches!(l.kind, LinkKind::Tun { tap: false, .. })
        })
    }

    /// The rows `ndo_dflt_fdb_dump` gives for `dev`: unicast list, multicast list.
    fn fdb_dflt_rows(&self, dev: u32, out: &mut Vec<FdbRow>) {
        if !self.fdb_dflt_lists(dev) {
            return;
        }
        let uc = self.uc.get(&dev).into_iter().flatten().map(|u| u.mac);
        let mc = self
            .mcast
            .get(&dev)
            .into_iter()
            .flat_map(|m| m.link.iter().map(|l| l.addr));
        for mac in uc.chain(mc) {
            out.push(FdbRow {
                dev,
                dst: None,
                mac,
                state: NUD_PERMANENT,
                cache: None,
            });
        }
    }

    fn fdb_cache(&self, updated_ms: u64) -> Option<(u64, u64)> {
        // jiffies_to_clock_t, then iproute2's division by its HZ (100): whole seconds
        let s = self.now_ms().saturating_sub(updated_ms) / 1000;
        Some((s, s))
    }

    /// Bridge `br`'s local entries pointing to `port` (0: the bridge), listed for
    /// device `dev`, newest first.
    fn fdb_local_rows(&self, br: u32, port: u32, dev: u32, out: &mut Vec<FdbRow>) {
        for e in self.fdb.get(&br).into_iter().flatten() {
            if e.port == port {
                out.push(FdbRow {
                    dev,
                    dst: None,
                    mac: e.mac,
                    state: NUD_PERMANENT,
                    cache: self.fdb_cache(e.updated_ms),
                });
            }
        }
    }

    /// `rtnl_fdb_dump`: the rows of every device in ifindex order, or only of device
    /// `brport` (`NDA_IFINDEX`), or only of bridge `master` and its ports
    /// (`NDA_MASTER`; `Some(0)` for a master no device has: ENODEV).
    pub fn fdb_dump(&self, brport: u32, master: Option<u32>) -> Result<Vec<FdbRow>> {
        if let Some(m) = master {
            if !self.links.contains_key(&m) {
                return Err(Error::new(Errno::ENODEV));
            }
        }
        let mut out = Vec::new();
        for (&dev, l) in &self.links {
            if brport != 0 && dev != brport {
                continue;
            }
            let port_of = (l.master != 0 && self.is_bridge(l.master)).then_some(l.master);
            if let Some(m) = master {
                if dev != m && port_of.is_none() {
                    continue;
                }
                if port_of != Some(m) && !self.is_bridge(dev) {
                    continue;
                }
            }
            if let Some(br) = port_of {
                self.fdb_local_rows(br, dev, dev, &mut out);
            }
            match &l.kind {
                LinkKind::Bridge => {
                    self.fdb_dflt_rows(dev, &mut out);
                    self.fdb_local_rows(dev, 0, dev, &mut out);
                }
                LinkKind::Vxlan(_) => {
                    if let Some(d) = self.vx_fdb.get(&dev) {
                        out.push(FdbRow {
                            dev,
                            dst: Some(d.remote),
                            mac: [0; 6],
                            state: NUD_REACHABLE | NUD_PERMANENT,
                            cache: self.fdb_cache(d.updated_ms),
                        });
                    }
                }
                _ => self.fdb_dflt_rows(dev, &mut out),
            }
        }
        Ok(out)
    }

    /// `fdb_add_local(br, port, mac)`: a new entry at the head, unless a local entry
    /// has the address already.
    fn fdb_add_local(&mut self, br: u32, port: u32, mac: [u8; 6]) {
        if !crate::link::is_valid_ether_addr(&mac) {
            return;
        }
        let now = self.now_ms();
        let list = self.fdb.entry(br).or_default();
        if list.iter().any(|e| e.mac == mac) {
            return;
        }
        list.insert(
            0,
            FdbLocal {
                mac,
                port,
                updated_ms: now,
            },
        );
    }

    /// `fdb_delete_local` of the entry at `at`, leaving port `leaving` (0: the
    /// bridge): another port with the address takes it, else the bridge if it has the
    /// address, else it goes.
    fn fdb_delete_local(&mut self, br: u32, at: usize, leaving: u32) {
        let mac = self.fdb[&br][at].mac;
        let other = self
            .bridge_ports(br)
            .into_iter()
            .find(|&p| p != leaving && self.links[&p].mac == mac);
        let list = self.fdb.get_mut(&br).expect("listed");
        if let Some(p) = other {
            list[at].port = p;
        } else if leaving != 0 && self.links.get(&br).is_some_and(|b| b.mac == mac) {
            list[at].port = 0;
        } else {
            list.remove(at);
        }
    }

    /// A new bridge: its own address's entry.
    pub(crate) fn fdb_bridge_created(&mut self, br: u32) {
        let mac = self.links[&br].mac;
        self.fdb_add_local(br, 0, mac);
    }

    /// `br_fdb_change_mac_address`, before bridge `br` takes address `mac`.
    pub(crate) fn fdb_bridge_mac(&mut self, br: u32, mac: [u8; 6]) {
        let old = self.links[&br].mac;
        if let Some(at) = self
            .fdb
            .get(&br)
            .and_then(|l| l.iter().position(|e| e.mac == old && e.port == 0))
        {
            self.fdb_delete_local(br, at, 0);
        }
        self.fdb_add_local(br, 0, mac);
    }

    /// `br_add_if`: the port's address.
    pub(crate) fn fdb_port_added(&mut self, br: u32, port: u32) {
        let mac = self.links[&port].mac;
        self.fdb_add_local(br, port, mac);
    }

    /// `br_fdb_delete_by_port(br, port, 0, 1)`, the port leaving (already released).
    pub(crate) fn fdb_port_removed(&mut self, br: u32, port: u32) {
        while let Some(at) = self
            .fdb
            .get(&br)
            .and_then(|l| l.iter().position(|e| e.port == port))
        {
            self.fdb_delete_local(br, at, port);
        }
    }

    /// `br_fdb_changeaddr` at a port's `NETDEV_CHANGEADDR` (its new address in place).
    pub(crate) fn fdb_port_changeaddr(&mut self, port: u32) {
        let br = self.links.get(&port).map_or(0, |l| l.master);
        if br == 0 || !self.is_bridge(br) {
            return;
        }
        if let Some(at) = self
            .fdb
            .get(&br)
            .and_then(|l| l.iter().position(|e| e.port == port))
        {
            self.fdb_delete_local(br, at, port);
        }
        let mac = self.links[&port].mac;
        self.fdb_add_local(br, port, mac);
    }

    /// A device going away: its bridge table, address lists and VXLAN entry.
    pub(crate) fn fdb_forget_dev(&mut self, dev: u32) {
        self.fdb.remove(&dev);
        self.uc.remove(&dev);
        self.vx_fdb.remove(&dev);
    }

    /// `dev_uc_add(dev, mac)`: appended, or one more reference.
    pub(crate) fn uc_add(&mut self, dev: u32, mac: [u8; 6]) {
        let list = self.uc.entry(dev).or_default();
        match list.iter_mut().find(|u| u.mac == mac) {
            Some(u) => u.refs += 1,
            None => list.push(UcAddr { mac, refs: 1 }),
        }
    }

    /// `dev_uc_del(dev, mac)`.
    pub(crate) fn uc_del(&mut self, dev: u32, mac: [u8; 6]) {
        if let Some(list) = self.uc.get_mut(&dev) {
            if let Some(i) = list.iter().position(|u| u.mac == mac) {
                list[i].refs -= 1;
                if list[i].refs == 0 {
                    list.remove(i);
                }
            }
        }
    }

    /// A VXLAN device's default entry towards `remote` (its creation, or a new remote
    /// given by `vxlan_changelink`); `None` removes it.
    pub(crate) fn vxlan_fdb_default(&mut self, dev: u32, remote: Option<IpAddr>) {
        match remote.filter(|r| !r.is_unspecified()) {
            Some(remote) => {
                let updated_ms = self.now_ms();
                self.vx_fdb.insert(dev, VxlanDefault { remote, updated_ms });
            }
            None => {
                self.vx_fdb.remove(&dev);
            }
        }
    }

    /// An `AF_BRIDGE` `RTM_DELNEIGH` of row `row` (what `ip -f bridge neigh flush`
    /// sends for each entry it selects): a VXLAN default entry is deleted
    /// (`vxlan_fdb_delete`). Deleting a bridge's local entries or a device's own
    /// address lists is not modelled (EOPNOTSUPP).
    pub fn fdb_delete(&mut self, row: &FdbRow) -> Result<()> {
        match (row.dst, self.vx_fdb.get(&row.dev)) {
            (Some(d), Some(v)) if v.remote == d && row.mac == [0; 6] => {
                self.vx_fdb.remove(&row.dev);
                self.bump();
                Ok(())
            }
            _ => Err(Error::msg(
                Errno::EOPNOTSUPP,
                "fibkit does not model deleting a bridge's local entries or a device's own addresses",
            )),
        }
    }
}
