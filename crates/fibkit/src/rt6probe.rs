//! IPv6 router reachability probing (`rt6_probe`, net/ipv6/route.c) in `ip -6 route
//! get`.
//!
//! Without IPv6 forwarding (`net.ipv6.conf.all.forwarding=0`) `ip6_pol_route` looks
//! up with `RT6_LOOKUP_F_REACHABLE`, and `find_match` probes the router of each route
//! it weighs (after scoring it) unless the route was refused outright (a wrong
//! output device under a strict match). A router whose neighbour entry is valid needs
//! no probe; an entry that is not valid is probed once `rtr_probe_interval` has
//! passed since it was updated (a FAILED one resolving again:
//! [`Netns::neigh_router_probe`]), and a router without one once the interval has
//! passed since its nexthop last probed (`fib6_nh->last_probe`). A probe sends a
//! Neighbour Solicitation to the router's solicited-node group
//! ([`Netns::neigh_solicit_router`]).
//!
//! The lookup itself is read-only here: the routes it weighs are noted on the way
//! (per thread, only while [`Netns::route_get6_copies`] asks) and probed after it.
//! A FAILED router that an earlier probe of the same lookup made INCOMPLETE scores as
//! such for the routes weighed after (`rt6_check_neigh`, and `fib6_select_path`'s
//! scores of a multipath route's legs). The lookup of the second query the oracle
//! runs for a query's text sees what the first one's probes left behind.

use crate::netns::{Netns, NudState};
use crate::route::Route6;
use std::cell::RefCell;

/// Whose `last_probe` a probe stamps: a route's own nexthop (by its serial) or a
/// nexthop object's (a group's member's for a group). `fib6_nh_init` stamps it when
/// the route or object is made (see [`Netns::rt6_note_born`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ProbeKey {
    /// The `fib6_nh` of the route of this serial.
    Route(u64),
    /// The `fib6_nh` of this nexthop object.
    Object(u32),
}

/// A route weighed by a lookup: its nexthop's key, device and gateway, and whether
/// its probe makes a FAILED entry INCOMPLETE.
#[derive(Clone, Copy, Debug)]
struct Weighed {
    key: ProbeKey,
    dev: u32,
    gw: u128,
    revives: bool,
}

thread_local! {
    /// The routes weighed by the lookup of [`Netns::route_get6_copies`] running on
    /// this thread (`None`: no such lookup).
    static WEIGHED: RefCell<Option<Vec<Weighed>>> = const { RefCell::new(None) };
}

impl Netns {
    /// `find_match`'s `rt6_probe(nh)` for route `r`, just scored under
    /// `RT6_LOOKUP_F_REACHABLE`: noted while a `route get` asks.
    pub(crate) fn rt6_probe_note(&self, r: &Route6) {
        let Some(gw) = r.nh.gw else {
            return;
        };
        WEIGHED.with(|w| {
            let mut w = w.borrow_mut();
            let Some(list) = w.as_mut() else {
                return;
            };
            let key = if r.nh_id != 0 {
                ProbeKey::Object(
                    self.pcpu6_object(r.nh_id, r.nh.dev, r.nh.gw)
                        .unwrap_or(r.nh_id),
                )
            } else {
                ProbeKey::Route(r.serial.0)
            };
            let revives = self.neigh_state(r.nh.dev, gw, true) == Some(NudState::Failed)
                && self.sysctl.v6_dev.get(&r.nh.dev).is_some_and(|c| {
                    let updated = self.neigh_updated_ms(r.nh.dev, gw, true);
                    i128::from(self.ms_clock)
                        > i128::from(updated) + i128::from(c.rtr_probe_interval_ms)
                });
            list.push(Weighed {
                key,
                dev: r.nh.dev,
                gw,
                revives,
            });
        });
    }

    /// Whether a probe earlier in the running `route get` lookup made the FAILED
    /// entry of router `gw` on `dev` INCOMPLETE.
    pub(crate) fn rt6_probe_revived(dev: u32, gw: u128) -> bool {
        WEIGHED.with(|w| {
            w.borrow()
                .as_ref()
                .is_some_and(|l| l.iter().any(|x| x.revives && x.dev == dev && x.gw == gw))
        })
    }

    /// A route with a gateway of serial `serial` was just added: its nexthop's
    /// `last_probe` is now (`fib6_nh_init`). Kept as the first serial of each
    /// millisecond that added such routes (serials only grow).
    pub(crate) fn rt6_note_born(&mut self, serial: u64) {
        let now = self.ms_clock;
        if self
            .rt6_born
            .last()
            .is_none_or(|&(s, t)| t != now && s < serial)
        {
            self.rt6_born.push((serial, now));
        }
    }

    /// Nexthop object `id` made or replaced as `new`: a single nexthop's `fib6_nh` is
    /// stamped as probed now (`fib6_nh_init`).
    pub(crate) fn nh_born(&mut self, id: u32, new: &crate::nexthop::Nexthop) {
        if !new.is_group() {
            self.rt6_last_probe
                .insert(ProbeKey::Object(id), self.ms_clock);
        }
    }

    /// When the route of `serial` was added, if it has a gateway and was added here
    /// (see [`Netns::rt6_note_born`]).
    fn rt6_born_ms(&self, serial: u64) -> Option<u64> {
        let i = self.rt6_born.partition_point(|&(s, _)| s <= serial);
        i.checked_sub(1).map(|i| self.rt6_born[i].1)
    }

    /// Runs `lookup` noting the routes it weighs, then probes their routers in turn.
    pub(crate) fn rt6_probing<T>(&mut self, lookup: impl FnOnce(&mut Netns) -> T) -> T {
        WEIGHED.with(|w| *w.borrow_mut() = Some(Vec::new()));
        let out = lookup(self);
        let weighed = WEIGHED.with(|w| w.borrow_mut().take()).unwrap_or_default();
        for x in weighed {
            // rt6_probe reads the device's inet6_dev (none: no probe)
            let Some(interval) = self
                .sysctl
                .v6_dev
                .get(&x.dev)
                .map(|c| c.rtr_probe_interval_ms)
            else {
                continue;
            };
            let last = self
                .rt6_last_probe
                .get(&x.key)
                .copied()
                .or_else(|| match x.key {
                    ProbeKey::Route(serial) => self.rt6_born_ms(serial),
                    ProbeKey::Object(_) => None,
                });
            if self.neigh_router_probe(x.dev, x.gw, interval, last) {
                self.rt6_last_probe.insert(x.key, self.ms_clock);
                // rt6_probe_deferred
                self.neigh_solicit_router(x.dev, x.gw);
            }
        }
        out
    }
}
