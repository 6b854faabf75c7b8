//! A device's operational state and link mode as `ip link set DEV state|mode` change
//! them, and the settings of `ip link` that no route depends on but whose checks the
//! kernel answers (GSO/GRO limits, protodown).
//!
//! - `set_operstate` (net/core/rtnetlink.c) takes a user's transition only where
//!   RFC 2863 allows it: to `UP` from `DORMANT`, `TESTING` or `UNKNOWN` (unless the
//!   driver holds the device dormant or testing), to `DORMANT` or `TESTING` from an
//!   operationally up state (`UP`, `UNKNOWN`); every other request leaves it as it is.
//!   A change is a `NETDEV_CHANGE`: IPv6 (`addrconf_link_ready`) sees a device that is
//!   not operationally up as not ready and marks its routes `linkdown`; one that is up
//!   again makes its link-local address if it had none. IPv4 looks at the carrier only.
//! - The link watch (`rfc2863_policy`) recomputes the state at each carrier change;
//!   in link mode dormant it makes `UP` `DORMANT` (see [`crate::link::Oper`]).
//! - A macvlan copies its lower device's dormant and testing states as bits of its own
//!   (`netif_stacked_transfer_operstate`) when the lower device changes.

use crate::error::{Errno, Error, Result};
use crate::link::{oper, LinkKind, GRO_MAX_SIZE};
use crate::netns::Netns;

impl Netns {
    /// `ip link set DEV state STATE` (`IFLA_OPERSTATE`, an `IF_OPER_*` number).
    pub fn link_set_operstate(&mut self, index: u32, transition: u8) -> Result<()> {
        let l = self.links.get(&index).ok_or(Error::new(Errno::ENODEV))?;
        let cur = l.oper_code();
        let oper_up = matches!(cur, oper::UP | oper::UNKNOWN);
        let new = match transition {
            oper::UP
                if matches!(cur, oper::DORMANT | oper::TESTING | oper::UNKNOWN)
                    && !l.oper.dormant
                    && !l.oper.testing =>
            {
                oper::UP
            }
            oper::TESTING | oper::DORMANT if oper_up => transition,
            _ => cur,
        };
        if new == cur {
            return Ok(());
        }
        let l = self.links.get_mut(&index).expect("exists");
        l.oper.user = Some((l.oper.gen, new));
        // netdev_state_change: NETDEV_CHANGE, which the macvlans on the device hear
        // (Netns::macvlan_lower_event)
        self.netdev_state_change(index)
    }

    /// `ip link set DEV mode default|dormant` (`IFLA_LINKMODE`): whether it changed
    /// (a change ends the request with `netdev_state_change`). The state itself
    /// follows at the next link watch run.
    pub fn link_set_linkmode(&mut self, index: u32, mode: u8) -> Result<bool> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        let changed = l.oper.link_mode != mode;
        l.oper.link_mode = mode;
        Ok(changed)
    }

    /// The end of a request: a link watch run its carrier change scheduled (the watch
    /// runs after the request, `gen0` being the count before it) sees the link mode
    /// the request left.
    pub fn link_watch_settle(&mut self, index: u32, gen0: u32) {
        if let Some(l) = self.links.get_mut(&index) {
            if l.oper.gen != gen0 {
                l.oper.watch_mode = l.oper.link_mode;
            }
        }
    }

    /// A link watch run on `index` now (`linkwatch_do_dev`): its state follows the link
    /// mode it has.
    pub fn link_watch_run(&mut self, index: u32) {
        if let Some(l) = self.links.get_mut(&index) {
            l.link_watch();
        }
    }

    /// `validate_linkmsg`'s checks of `gso_max_size`, `gso_max_segs` and
    /// `gro_max_size` for device `index` (see [`check_gso`]), before the request
    /// changes anything.
    pub fn link_check_gso(
        &self,
        index: u32,
        gso_max_size: Option<u32>,
        gso_max_segs: Option<u32>,
        gro_max_size: Option<u32>,
    ) -> Result<()> {
        self.links.get(&index).ok_or(Error::new(Errno::ENODEV))?;
        check_gso(
            self.link_tso_max_size(index),
            gso_max_size,
            gso_max_segs,
            gro_max_size,
        )
    }

    /// `do_setlink`'s GSO and GRO limits (checked by [`Netns::link_check_gso`]).
    pub fn link_set_gso(
        &mut self,
        index: u32,
        gso_max_size: Option<u32>,
        gso_max_segs: Option<u32>,
        gro_max_size: Option<u32>,
    ) -> Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        l.tuning.set_gso(gso_max_size, gso_max_segs, gro_max_size);
        Ok(())
    }

    /// `do_set_proto_down` (`protodown on|off`, `protodown_reason N on|off` as a
    /// mask and value): only a device that can (a macvlan, a VXLAN device) takes
    /// them; the reasons are written first, and protodown cannot be cleared while a
    /// reason is active. Protodown takes the carrier away; clearing it gives it back.
    pub fn link_set_proto_down(
        &mut self,
        index: u32,
        down: Option<bool>,
        reason: Option<(u32, u32)>,
    ) -> Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(Error::new(Errno::ENODEV))?;
        if !matches!(l.kind, LinkKind::Macvlan { .. } | LinkKind::Vxlan(_)) {
            return Err(Error::msg(
                Errno::EOPNOTSUPP,
                "Protodown not supported by device",
            ));
        }
        if let Some((mask, value)) = reason {
            let r = &mut l.tuning.proto_down_reason;
            *r = if mask == 0 {
                value
            } else {
                (*r & !mask) | (value & mask)
            };
        }
        let Some(down) = down else {
            return Ok(());
        };
        if !down && l.tuning.proto_down_reason != 0 {
            return Err(Error::msg(
                Errno::EBUSY,
                "Cannot clear protodown, active reasons",
            ));
        }
        l.tuning.proto_down = down;
        if l.carrier == down {
            l.set_carrier(!down);
            // default_operstate without carrier: testing if the device holds the
            // testing bit (a macvlan copies it from its lower device), else down,
            // not lower-layer-down, when the device it is stacked on has carrier
            let testing = l.oper.testing;
            let lower = l.iflink();
            let lower_up = lower
                .and_then(|x| self.links.get(&x))
                .is_some_and(|x| x.carrier);
            let l = self.links.get_mut(&index).expect("exists");
            if down && lower_up && !testing {
                l.oper.user = Some((l.oper.gen, oper::DOWN));
            }
            let changed = self.propagate_carriers(index, vec![index]);
            self.carriers_changed(changed);
        }
        self.bump();
        Ok(())
    }
}

/// `MAX_TCP_HEADER` of this kernel's build (`L1_CACHE_ALIGN(128 + MAX_HEADER)`, 192
/// here): `ifla_policy` wants a `gso_max_size` above it (`NLA_POLICY_MIN`).
pub const MAX_TCP_HEADER: u32 = 192;

/// `ifla_policy`'s checks of what `ip link add|set` sends, which `rtnl_newlink`'s
/// `nlmsg_parse` makes before anything else (a veth peer's attributes are parsed
/// later, by `rtnl_get_peer_net` after the kind's validate): `IFLA_GSO_MAX_SIZE` must
/// be above [`MAX_TCP_HEADER`], `IFLA_IFNAME` at most `IFNAMSIZ - 1` bytes. The
/// attributes are checked in message order, where iproute2's `iplink_parse` puts the
/// name last.
pub fn check_ifla_policy(name: &str, gso_max_size: Option<u32>) -> Result<()> {
    if gso_max_size.is_some_and(|v| v <= MAX_TCP_HEADER) {
        return Err(Error::msg(Errno::ERANGE, "integer out of range"));
    }
    if name.len() > 15 {
        return Err(Error::msg(
            Errno::ERANGE,
            "Attribute failed policy validation",
        ));
    }
    Ok(())
}

/// `validate_linkmsg`'s GSO and GRO limits: none may exceed the device's TSO limits
/// (`tso_max_size`, and `tso_max_segs`, 65535 here) or `GRO_MAX_SIZE`.
pub(crate) fn check_gso(
    tso_max_size: u32,
    gso_max_size: Option<u32>,
    gso_max_segs: Option<u32>,
    gro_max_size: Option<u32>,
) -> Result<()> {
    if gso_max_size.is_some_and(|v| v > tso_max_size) {
        return Err(Error::msg(Errno::EINVAL, "too big gso_max_size"));
    }
    if gso_max_segs.is_some_and(|v| v > 65535) {
        return Err(Error::msg(Errno::EINVAL, "too big gso_max_segs"));
    }
    if gro_max_size.is_some_and(|v| v > GRO_MAX_SIZE) {
        return Err(Error::msg(Errno::EINVAL, "too big gro_max_size"));
    }
    Ok(())
}
