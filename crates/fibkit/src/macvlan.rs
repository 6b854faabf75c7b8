//! macvlan devices (`drivers/net/macvlan.c`), as far as routing and `ip link` see them.
//!
//! - A macvlan sits on a lower Ethernet device (not the loopback, not a tun, not a
//!   bridge port: `macvlan_port_create`), its *port*; one made on a macvlan goes on
//!   that macvlan's lower device. Its MTU is the lower device's unless given (no
//!   larger), and follows the lower device's down, never up; its MTU ceiling is the
//!   lower device's.
//! - It copies the lower device's carrier (`netif_stacked_transfer_operstate`) at
//!   creation and at each of the lower device's `NETDEV_UP`, `NETDEV_DOWN` and
//!   `NETDEV_CHANGE` (a carrier change, a flag, a group, an alias, ...), so a macvlan
//!   without carrier is `LOWERLAYERDOWN`; this overrides its protodown's carrier
//!   until protodown is next set (conformance scenario 464).
//! - Opening one that is not in passthru mode needs an address that neither the lower
//!   device nor an open macvlan of the port has (EADDRINUSE), and puts the address on
//!   the lower device's unicast list: a lower device without a unicast filter (all
//!   that are modelled) is then promiscuous while up (`uc_promisc`, one count of
//!   `promiscuity`). A passthru macvlan is the port's only one; it takes the lower
//!   device's address and changes it with its own, makes the lower device
//!   promiscuous while open (unless `nopromisc`), and when it goes the lower device
//!   gets its address back.
//! - While open, its link-layer multicast list is synchronised into the lower
//!   device's (`dev_mc_sync`): each entry adds a reference there (appended when new)
//!   and one to itself, until the macvlan drops it or closes (`dev_mc_unsync`).
//! - Deleting the lower device deletes its macvlans.
//! - A macvlan in source mode keeps a list of remote addresses (`macaddr add|del|set|
//!   flush`, [`SourcesChange`]): the port's `vlan_source_hash` entries of the device.
//!   The kernel lists them by hash bucket and, within one, newest first
//!   ([`Netns::macvlan_sources`]); leaving source mode empties the list.

use crate::error::{Errno, Error, Result};
use crate::link::{dev_count_step, macvlan_mode, LinkKind};
use crate::netns::Netns;

/// The state of a lower device that carries macvlans (`struct macvlan_port`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacvlanPort {
    /// The lower device's address to restore when a passthru port goes
    /// (`perm_addr`).
    pub(crate) perm_addr: [u8; 6],
    /// A passthru macvlan owns the port.
    pub(crate) passthru: bool,
}

/// A change to a source-mode macvlan's remote addresses, as one message carries it:
/// `IFLA_MACVLAN_MACADDR_MODE` ([`macvlan_mode::MACADDR_ADD`] and the others),
/// `IFLA_MACVLAN_MACADDR` (`add`/`del`) and `IFLA_MACVLAN_MACADDR_DATA` (`set`). When a
/// line gives `macaddr` more than once, the last of each attribute is the one read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourcesChange {
    /// What to do (`MACADDR_*`).
    pub mode: u32,
    /// The address of `add` or `del`.
    pub addr: Option<[u8; 6]>,
    /// The addresses of `set`.
    pub data: Option<Vec<[u8; 6]>>,
}

impl SourcesChange {
    /// `macvlan_validate`'s part: every address must be a unicast one other than
    /// 00:00:00:00:00:00 (EADDRNOTAVAIL), the mode one of the four (EINVAL). It runs
    /// before the device or the name is looked at.
    pub fn validate(&self) -> Result<()> {
        if self.mode > macvlan_mode::MACADDR_SET {
            return Err(Error::new(Errno::EINVAL));
        }
        let bad = |a: &[u8; 6]| !crate::link::is_valid_ether_addr(a);
        if self.addr.as_ref().is_some_and(bad) || self.data.iter().flatten().any(bad) {
            return Err(Error::new(Errno::EADDRNOTAVAIL));
        }
        Ok(())
    }

    /// `macvlan_changelink_sources` on the list `list` (oldest first): an address
    /// already listed is not added again, one not listed is not an error to delete,
    /// `add` and `del` need their address (EINVAL).
    fn apply(&self, list: &mut Vec<[u8; 6]>) -> Result<()> {
        let add = |list: &mut Vec<[u8; 6]>, a: [u8; 6]| {
            if !list.contains(&a) {
                list.push(a);
            }
        };
        match self.mode {
            macvlan_mode::MACADDR_ADD => add(list, self.addr.ok_or(Error::new(Errno::EINVAL))?),
            macvlan_mode::MACADDR_DEL => {
                let a = self.addr.ok_or(Error::new(Errno::EINVAL))?;
                list.retain(|x| *x != a);
            }
            macvlan_mode::MACADDR_FLUSH => list.clear(),
            macvlan_mode::MACADDR_SET => {
                list.clear();
                for a in self.addr.iter().chain(self.data.iter().flatten()) {
                    add(list, *a);
                }
            }
            _ => return Err(Error::new(Errno::EINVAL)),
        }
        Ok(())
    }
}

/// `macvlan_eth_hash`: the bucket (of 256) of an address in a port's hash tables
/// (`hash_64` of the six bytes read as the low 48 bits of a little-endian word, moved
/// up by 16).
fn eth_hash(a: &[u8; 6]) -> u8 {
    let mut w = [0u8; 8];
    w[..6].copy_from_slice(a);
    let v = u64::from_le_bytes(w) << 16;
    (v.wrapping_mul(0x61C8_8646_80B5_83EB) >> 56) as u8
}

impl Netns {
    /// The source-mode macvlan `idx`'s remote addresses in the kernel's order
    /// (`macvlan_fill_info`: bucket by bucket, each bucket's newest first). Empty for
    /// any other device.
    pub fn macvlan_sources(&self, idx: u32) -> Vec<[u8; 6]> {
        let Some(LinkKind::Macvlan { sources, .. }) = self.links.get(&idx).map(|l| &l.kind) else {
            return Vec::new();
        };
        let mut v: Vec<(usize, [u8; 6])> = sources.iter().copied().enumerate().collect();
        v.sort_by_key(|(i, a)| (eth_hash(a), std::cmp::Reverse(*i)));
        v.into_iter().map(|(_, a)| a).collect()
    }

    /// Whether `idx` is a macvlan.
    pub(crate) fn is_macvlan(&self, idx: u32) -> bool {
        self.links
            .get(&idx)
            .is_some_and(|l| matches!(l.kind, LinkKind::Macvlan { .. }))
    }

    /// The macvlan `idx`'s lower device and mode.
    fn macvlan_of(&self, idx: u32) -> Option<(u32, u32)> {
        match self.links.get(&idx)?.kind {
            LinkKind::Macvlan { lower, mode, .. } => Some((lower, mode)),
            _ => None,
        }
    }

    /// The macvlans on `lower`, in the port's order (creation, which is ifindex order).
    pub(crate) fn macvlans_on(&self, lower: u32) -> Vec<u32> {
        if !self.macvlan_ports.contains_key(&lower) {
            return Vec::new();
        }
        self.links
            .values()
            .filter(|l| matches!(l.kind, LinkKind::Macvlan { lower: x, .. } if x == lower))
            .map(|l| l.index)
            .collect()
    }

    /// Whether `idx` carries macvlans (its receive handler is taken: it cannot be a
    /// bridge port).
    pub(crate) fn is_macvlan_port(&self, idx: u32) -> bool {
        self.macvlan_ports.contains_key(&idx)
    }

    /// `macvlan_common_newlink` up to `register_netdevice`: the lower device (its
    /// own lower when it is a macvlan), the MTU, the port. Returns the lower device,
    /// the MTU and the MTU ceiling.
    pub(crate) fn macvlan_prepare(
        &mut self,
        lower: u32,
        mtu: Option<u32>,
        mode: u32,
        sources: Option<&SourcesChange>,
    ) -> Result<(u32, u32, u32, Vec<[u8; 6]>)> {
        // no IFLA_LINK, or an index no device has
        let mut l = self.links.get(&lower).ok_or(Error::new(if lower == 0 {
            Errno::EINVAL
        } else {
            Errno::ENODEV
        }))?;
        if let LinkKind::Macvlan { lower: root, .. } = l.kind {
            l = self.links.get(&root).ok_or(Error::new(Errno::ENODEV))?;
        }
        let lower = l.index;
        let mtu = match mtu {
            None => l.mtu,
            Some(m) if m > l.mtu => return Err(Error::new(Errno::EINVAL)),
            Some(m) => m,
        };
        let max_mtu = l.kind.max_mtu();
        // macvlan_port_create: an Ethernet device that is not the loopback, whose
        // receive handler is free (a bridge port's is the bridge's)
        let fresh = !self.macvlan_ports.contains_key(&lower);
        if fresh && (l.is_loopback() || l.is_tun()) {
            return Err(Error::new(Errno::EINVAL));
        }
        if fresh && l.master != 0 {
            return Err(Error::new(Errno::EBUSY));
        }
        let perm_addr = l.mac;
        let created = match self.macvlan_ports.entry(lower) {
            std::collections::btree_map::Entry::Occupied(_) => false,
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(MacvlanPort {
                    perm_addr,
                    passthru: false,
                });
                true
            }
        };
        // only one macvlan on a passthru port, and a passthru one only alone; source
        // addresses only for a device in source mode
        let refuse = self.macvlan_ports[&lower].passthru
            || (mode == macvlan_mode::PASSTHRU && !self.macvlans_on(lower).is_empty())
            || (sources.is_some() && mode != macvlan_mode::SOURCE);
        let mut list = Vec::new();
        let applied = if refuse {
            Err(Error::new(Errno::EINVAL))
        } else {
            sources.map_or(Ok(()), |c| c.apply(&mut list))
        };
        if let Err(e) = applied {
            if created {
                self.macvlan_ports.remove(&lower);
            }
            return Err(e);
        }
        if mode == macvlan_mode::PASSTHRU {
            self.macvlan_ports.get_mut(&lower).expect("made").passthru = true;
        }
        Ok((lower, mtu, max_mtu, list))
    }

    /// After registration: the carrier copied from the lower device.
    pub(crate) fn macvlan_registered(&mut self, idx: u32) {
        let Some((lower, _)) = self.macvlan_of(idx) else {
            return;
        };
        let c = self.links.get(&lower).is_some_and(|l| l.carrier);
        let st = self.links.get(&lower).map(|l| l.oper_code());
        if let Some(l) = self.links.get_mut(&idx) {
            // (macvlan_init takes the lower device's carrier before the device is
            // registered: no change counted)
            let counted = l.carrier_changes;
            l.set_carrier(c);
            l.carrier_changes = counted;
            // and the lower device's dormant and testing states, as bits of its own
            l.oper.dormant = st == Some(crate::link::oper::DORMANT);
            l.oper.testing = st == Some(crate::link::oper::TESTING);
        }
    }

    /// `netif_stacked_transfer_operstate` for the macvlans on the devices of
    /// `changed` whose carrier changed (appended to `changed`, each after its lower
    /// device, in the port's order).
    pub(crate) fn macvlan_transfer_carriers(&mut self, changed: &mut Vec<u32>) {
        let mut i = 0;
        while i < changed.len() {
            let d = changed[i];
            i += 1;
            let c = self.links.get(&d).is_some_and(|l| l.carrier);
            for m in self.macvlans_on(d) {
                let l = self.links.get_mut(&m).expect("listed");
                if l.carrier != c {
                    l.set_carrier(c);
                    if !changed.contains(&m) {
                        changed.push(m);
                    }
                    // a macvlan may be a bridge port
                    let br = l.master;
                    if br != 0 && !changed.contains(&br) && self.bridge_update_carrier(br) {
                        changed.push(br);
                    }
                }
            }
        }
    }

    /// The macvlans on `lower` hear its `NETDEV_UP`, `NETDEV_DOWN` and `NETDEV_CHANGE`
    /// (`macvlan_device_event`): each takes the lower device's carrier again
    /// (`netif_stacked_transfer_operstate`), and its dormant and testing states as
    /// bits of its own, whatever its own protodown says, so a
    /// macvlan whose protodown took its carrier away gets it back at the lower
    /// device's next event (a group, an alias, a flag, up or down), and one whose
    /// cleared protodown gave it a carrier the lower device lacks loses it. Each
    /// whose carrier changed then has its own link watch run.
    pub(crate) fn macvlan_lower_event(&mut self, lower: u32) {
        let Some((c, st)) = self.links.get(&lower).map(|l| (l.carrier, l.oper_code())) else {
            return;
        };
        // the dormant and testing bits follow the lower device's stored state (a
        // state set while it was down counts once it comes up)
        let (d, t) = (
            st == crate::link::oper::DORMANT,
            st == crate::link::oper::TESTING,
        );
        let mut changed = Vec::new();
        for m in self.macvlans_on(lower) {
            let l = self.links.get_mut(&m).expect("listed");
            let bits = l.oper.dormant != d || l.oper.testing != t;
            l.oper.dormant = d;
            l.oper.testing = t;
            if l.carrier != c {
                l.set_carrier(c);
                changed.push(m);
            } else if bits {
                l.link_watch();
                changed.push(m);
            }
        }
        let Some(&first) = changed.first() else {
            return;
        };
        let changed = self.propagate_carriers(first, changed);
        self.carriers_changed(changed);
    }

    /// `macvlan_open`, before the device is marked up: an address in use on the port
    /// is EADDRINUSE (not for passthru).
    pub(crate) fn macvlan_open_check(&self, idx: u32) -> Result<()> {
        let Some((lower, mode)) = self.macvlan_of(idx) else {
            return Ok(());
        };
        if mode == macvlan_mode::PASSTHRU {
            // the lower device's promiscuity is taken (unless nopromisc), which
            // `__dev_set_promiscuity` refuses when the count would wrap to zero
            if !self.macvlan_nopromisc(idx)
                && self
                    .links
                    .get(&lower)
                    .is_some_and(|l| l.promiscuity == u32::MAX)
            {
                return Err(Error::new(Errno::EOVERFLOW));
            }
            return Ok(());
        }
        let mac = self.links[&idx].mac;
        if self.macvlan_addr_busy(lower, mac, idx) {
            return Err(Error::new(Errno::EADDRINUSE));
        }
        // then its all-multicast and promiscuous states go to the lower device
        // (dev_set_allmulti, dev_set_promiscuity), and a step that would bring the
        // lower device's count back to zero (it wrapped below zero before) fails the
        // open with EOVERFLOW, everything of it undone
        let (promisc, allmulti) = self.rx_flags(idx);
        if let Some(l) = self.links.get(&lower) {
            if (allmulti && l.allmulti == u32::MAX) || (promisc && l.promiscuity == u32::MAX) {
                return Err(Error::new(Errno::EOVERFLOW));
            }
        }
        Ok(())
    }

    /// `macvlan_addr_busy`: the lower device's address (unless passthru) or an open
    /// macvlan's of the port (other than `me`).
    fn macvlan_addr_busy(&self, lower: u32, mac: [u8; 6], me: u32) -> bool {
        let passthru = self.macvlan_ports.get(&lower).is_some_and(|p| p.passthru);
        if !passthru && self.links.get(&lower).is_some_and(|l| l.mac == mac) {
            return true;
        }
        self.macvlans_on(lower)
            .into_iter()
            .any(|m| m != me && self.links[&m].up && self.links[&m].mac == mac)
    }

    /// The rest of `macvlan_open` and `dev_set_rx_mode`, once the device is up: the
    /// lower device's promiscuity (passthru) or unicast list, then the multicast
    /// synchronisation.
    pub(crate) fn macvlan_opened(&mut self, idx: u32) {
        let Some((lower, mode)) = self.macvlan_of(idx) else {
            return;
        };
        if mode == macvlan_mode::PASSTHRU {
            if !self.macvlan_nopromisc(idx) {
                if let Some(l) = self.links.get_mut(&lower) {
                    dev_count_step(&mut l.promiscuity, true);
                }
            }
        } else {
            // dev_uc_add: the macvlan's address joins its lower device's unicast list
            let mac = self.links[&idx].mac;
            self.uc_add(lower, mac);
            self.dev_rx_mode(lower);
            self.macvlan_rx_flags_open(idx, lower, true);
        }
        self.macvlan_mc_sync(idx);
    }

    /// A device's promiscuous and all-multicast states (`IFF_PROMISC`, `IFF_ALLMULTI`
    /// as the kernel keeps them: any count).
    pub(crate) fn rx_flags(&self, idx: u32) -> (bool, bool) {
        self.links
            .get(&idx)
            .map_or((false, false), |l| (l.promiscuity > 0, l.allmulti > 0))
    }

    /// `macvlan_change_rx_flags` after device `idx`'s promiscuous or all-multicast
    /// state may have changed from `was`: an open macvlan passes a change on to its
    /// lower device (promiscuity only when not passthru).
    pub(crate) fn macvlan_rx_flags(&mut self, idx: u32, was: (bool, bool)) {
        let Some((lower, mode)) = self.macvlan_of(idx) else {
            return;
        };
        if !self.links[&idx].up {
            return;
        }
        let now = self.rx_flags(idx);
        let Some(l) = self.links.get_mut(&lower) else {
            return;
        };
        // dev_set_allmulti/dev_set_promiscuity(lower, 1 or -1): a passthru macvlan's
        // open and stop pass nothing on, so a state it loses while open (leaving a
        // bridge it joined while closed) takes the lower device's count below zero,
        // where it wraps
        if now.1 != was.1 {
            dev_count_step(&mut l.allmulti, now.1);
        }
        if now.0 != was.0 && mode != macvlan_mode::PASSTHRU {
            dev_count_step(&mut l.promiscuity, now.0);
        }
    }

    /// `macvlan_open`/`macvlan_stop` (not passthru): the macvlan's own promiscuous and
    /// all-multicast states count on its lower device while it is open.
    fn macvlan_rx_flags_open(&mut self, idx: u32, lower: u32, open: bool) {
        let (p, a) = self.rx_flags(idx);
        if let Some(l) = self.links.get_mut(&lower) {
            for (c, on) in [(&mut l.allmulti, a), (&mut l.promiscuity, p)] {
                if on {
                    dev_count_step(c, open);
                }
            }
        }
    }

    fn macvlan_nopromisc(&self, idx: u32) -> bool {
        matches!(self.links[&idx].kind, LinkKind::Macvlan { flags, .. } if flags & 1 != 0)
    }

    /// `macvlan_stop`, as the device closes: the multicast entries leave the lower
    /// device, then its promiscuity (passthru) or unicast entry.
    pub(crate) fn macvlan_stop(&mut self, idx: u32) {
        let Some((lower, mode)) = self.macvlan_of(idx) else {
            return;
        };
        self.macvlan_mc_unsync(idx);
        if mode == macvlan_mode::PASSTHRU {
            if !self.macvlan_nopromisc(idx) {
                if let Some(l) = self.links.get_mut(&lower) {
                    dev_count_step(&mut l.promiscuity, false);
                }
            }
        } else {
            let mac = self.links[&idx].mac;
            self.uc_del(lower, mac);
            self.macvlan_rx_flags_open(idx, lower, false);
            // the device is still marked up here: count it out explicitly
            self.dev_rx_mode_without(lower, idx);
        }
    }

    /// `__dev_set_rx_mode` of a device without a unicast filter: while it is up, it is
    /// promiscuous exactly when its unicast list (the addresses of its open macvlans
    /// that are not passthru) is not empty.
    pub(crate) fn dev_rx_mode(&mut self, dev: u32) {
        self.dev_rx_mode_without(dev, 0);
    }

    fn dev_rx_mode_without(&mut self, dev: u32, closing: u32) {
        let Some(l) = self.links.get(&dev) else {
            return;
        };
        if !l.up {
            return;
        }
        let want = self.macvlans_on(dev).into_iter().any(|m| {
            m != closing
                && self.links[&m].up
                && self
                    .macvlan_of(m)
                    .is_some_and(|(_, mode)| mode != macvlan_mode::PASSTHRU)
        });
        let l = self.links.get_mut(&dev).expect("exists");
        if want != l.uc_promisc {
            l.uc_promisc = want;
            dev_count_step(&mut l.promiscuity, want);
        }
    }

    /// `dev_mc_sync(lower, macvlan)` after a change of an open macvlan's multicast
    /// list: entries not yet synchronised are added to the lower device's list (a
    /// reference each side); synchronised ones the macvlan no longer uses leave both.
    pub(crate) fn macvlan_mc_sync(&mut self, idx: u32) {
        let Some((lower, _)) = self.macvlan_of(idx) else {
            return;
        };
        if !self.links[&idx].up {
            return;
        }
        let Some(list) = self.mcast.get(&idx).map(|m| m.link.clone()) else {
            return;
        };
        let mut keep = Vec::new();
        for mut e in list {
            if !e.synced {
                self.mc_link_ref(lower, e.addr);
                e.synced = true;
                e.users += 1;
                keep.push(e);
            } else if e.users == 1 {
                self.mc_link_unref(lower, e.addr);
            } else {
                keep.push(e);
            }
        }
        self.mcast.entry(idx).or_default().link = keep;
    }

    /// `dev_mc_unsync(lower, macvlan)`: every synchronised entry leaves the lower
    /// device, and drops the reference it held on the macvlan's own.
    fn macvlan_mc_unsync(&mut self, idx: u32) {
        let Some((lower, _)) = self.macvlan_of(idx) else {
            return;
        };
        let Some(list) = self.mcast.get(&idx).map(|m| m.link.clone()) else {
            return;
        };
        let mut keep = Vec::new();
        for mut e in list {
            if e.synced {
                self.mc_link_unref(lower, e.addr);
                e.synced = false;
                e.users -= 1;
                if e.users == 0 {
                    continue;
                }
            }
            keep.push(e);
        }
        self.mcast.entry(idx).or_default().link = keep;
    }

    /// `ip link set DEV type macvlan ...` (`macvlan_changelink`; `tap`: `type
    /// macvtap`): the device must be of that kind (EOPNOTSUPP); passthru can be neither set nor cleared (EINVAL);
    /// turning `nopromisc` on or off on a passthru port moves its lower device's
    /// promiscuity, open or not (wrapping below zero; EOVERFLOW back up to it). Leaving source mode empties the source addresses; a
    /// change to them (`sources`) needs source mode once the mode is set (EINVAL, the
    /// mode, flags and queue length staying changed, as in the kernel).
    pub fn macvlan_changelink(
        &mut self,
        idx: u32,
        tap: bool,
        mode: Option<u32>,
        flags: Option<u16>,
        bcqueuelen: Option<u32>,
        sources: Option<&SourcesChange>,
    ) -> Result<()> {
        // macvlan_validate, before the device's kind is looked at
        if let Some(c) = sources {
            c.validate()?;
        }
        let Some(LinkKind::Macvlan {
            lower,
            mode: cur,
            flags: cur_flags,
            tap: cur_tap,
            ..
        }) = self.links.get(&idx).map(|l| l.kind.clone())
        else {
            return Err(Error::new(Errno::EOPNOTSUPP));
        };
        // the kind named must be the device's own (its link ops)
        if tap != cur_tap {
            return Err(Error::new(Errno::EOPNOTSUPP));
        }
        if let Some(m) = mode {
            if (m == macvlan_mode::PASSTHRU) != (cur == macvlan_mode::PASSTHRU) {
                return Err(Error::new(Errno::EINVAL));
            }
        }
        if let Some(f) = flags {
            let passthru = self.macvlan_ports.get(&lower).is_some_and(|p| p.passthru);
            if passthru && (f ^ cur_flags) & 1 != 0 {
                if let Some(l) = self.links.get_mut(&lower) {
                    // dev_set_promiscuity(lower, -1 or 1), whether the macvlan is open
                    // or not: the unsigned count wraps below zero, and a step up that
                    // would bring it back to zero is refused (EOVERFLOW) before
                    // anything of the change is kept
                    if f & 1 == 0 && l.promiscuity == u32::MAX {
                        return Err(Error::new(Errno::EOVERFLOW));
                    }
                    dev_count_step(&mut l.promiscuity, f & 1 == 0);
                }
            }
        }
        let mut res = Ok(());
        if let Some(LinkKind::Macvlan {
            mode: m,
            flags: fl,
            bcqueuelen: q,
            sources: list,
            ..
        }) = self.links.get_mut(&idx).map(|l| &mut l.kind)
        {
            if mode.is_some_and(|v| v != cur) && cur == macvlan_mode::SOURCE {
                list.clear();
            }
            if let Some(v) = mode {
                *m = v;
            }
            if let Some(v) = flags {
                *fl = v;
            }
            if let Some(v) = bcqueuelen {
                *q = v;
            }
            if let Some(c) = sources {
                res = if *m == macvlan_mode::SOURCE {
                    c.apply(list)
                } else {
                    Err(Error::new(Errno::EINVAL))
                };
            }
        }
        self.bump();
        res
    }

    /// `NETDEV_CHANGEMTU` of a lower device: its macvlans above the new MTU come down
    /// to it (`dev_set_mtu`, which may refuse: below their minimum they keep theirs).
    pub(crate) fn macvlan_lower_mtu(&mut self, lower: u32, mtu: u32) {
        for m in self.macvlans_on(lower) {
            if self.links[&m].mtu > mtu {
                let _ = self.link_set_mtu_as(m, mtu, false);
            }
        }
    }

    /// `ndo_change_mtu` of a macvlan: no larger than its lower device's.
    pub(crate) fn macvlan_check_mtu(&self, idx: u32, mtu: u32) -> Result<()> {
        if let Some((lower, _)) = self.macvlan_of(idx) {
            if self.links.get(&lower).is_some_and(|l| l.mtu < mtu) {
                return Err(Error::new(Errno::EINVAL));
            }
        }
        Ok(())
    }

    /// `macvlan_set_mac_address`: `Ok(true)` when the caller is to write `mac` on
    /// the macvlan itself; a passthru macvlan changes its lower device's address
    /// instead, which it then copies (`Ok(false)`).
    pub(crate) fn macvlan_set_mac(&mut self, idx: u32, mac: [u8; 6]) -> Result<bool> {
        let Some((lower, mode)) = self.macvlan_of(idx) else {
            return Ok(true);
        };
        if !crate::link::is_valid_ether_addr(&mac) {
            return Err(Error::new(Errno::EADDRNOTAVAIL));
        }
        if self.links[&idx].mac == mac {
            return Ok(false);
        }
        if mode == macvlan_mode::PASSTHRU {
            self.link_set_mac_from(lower, mac, true)?;
            return Ok(false);
        }
        if self.macvlan_addr_busy(lower, mac, idx) {
            return Err(Error::new(Errno::EADDRINUSE));
        }
        // macvlan_sync_address of an open device: the new address joins the lower
        // device's unicast list before the old one leaves
        if self.links[&idx].up {
            let old = self.links[&idx].mac;
            self.uc_add(lower, mac);
            self.uc_del(lower, old);
        }
        Ok(true)
    }

    /// `NETDEV_CHANGEADDR` of a lower device: a passthru macvlan takes the address;
    /// one the lower device took by itself (not through the macvlan) is the one to
    /// restore later.
    pub(crate) fn macvlan_lower_changeaddr(&mut self, lower: u32, by_macvlan: bool) {
        let Some(port) = self.macvlan_ports.get(&lower) else {
            return;
        };
        if !port.passthru {
            return;
        }
        let mac = self.links[&lower].mac;
        if let Some(&m) = self.macvlans_on(lower).first() {
            // macvlan_sync_address: the address is copied, nobody is told
            self.links.get_mut(&m).expect("listed").mac = mac;
        }
        if !by_macvlan {
            self.macvlan_ports.get_mut(&lower).expect("port").perm_addr = mac;
        }
    }

    /// `macvlan_uninit` of the port's last macvlan (`macvlan_port_destroy`): a passthru
    /// port gives the lower device its address back.
    pub(crate) fn macvlan_port_release(&mut self, lower: u32) {
        if !self.macvlans_on(lower).is_empty() {
            return;
        }
        let Some(port) = self.macvlan_ports.remove(&lower) else {
            return;
        };
        if port.passthru
            && self
                .links
                .get(&lower)
                .is_some_and(|l| l.mac != port.perm_addr)
        {
            let _ = self.link_set_mac_from(lower, port.perm_addr, true);
        }
    }
}
