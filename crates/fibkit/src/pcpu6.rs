//! The IPv6 route copies the kernel keeps in a nexthop object's `fib6_nh`
//! (`rt6i_pcpu`, one per CPU; fibkit answers as one CPU does, as for IPv4's cached
//! output routes in [`crate::rtcache`]).
//!
//! `ip6_pol_route` answers through a nexthop with that nexthop's copy when it has one
//! (`rt6_get_pcpu_route`), and makes one from the route it found otherwise
//! (`rt6_make_pcpu_route`). A copy of a route through a nexthop object is stamped with
//! the IPv6 FIB's serial number (`fib6_sernum`) and is thrown away once that moves on:
//! at each route added (`fib6_add`), a rule added or deleted, a nexthop object
//! replaced, an address deleted (`rt_genid_bump_ipv6`). Deleting a route does not move
//! it. Every route through the same object shares the object's copy, so until the next
//! change:
//!
//! - a query that finds another route through the object is answered with the route
//!   the copy was made from (`rt->from`: its type, table, metric, preference, metrics,
//!   preferred source, and its entry under `fibmatch`);
//! - once that route is deleted the copy has no route (`__fib6_drop_pcpu_from`), and a
//!   query through the object fails with ENETUNREACH (`inet6_rtm_getroute`).
//!
//! Input queries go through `ip6_pol_route` too and share the copies. Routes without a
//! nexthop object have their own `fib6_nh`, whose copy always comes from them and
//! lasts as long as they do (no serial number): what it keeps from the lookup that
//! made it is the preference of the path that lookup matched (`res->fib6_flags`), so
//! a leg of a multipath route answers with that preference until the route goes,
//! whichever path later lookups match (scenario 320's note), a route queried before
//! another was appended to it too; and a route queried while it had no metrics
//! answers without the metrics it takes later in place (an expiring route's MTU
//! from a duplicate's refused `append`). Conformance scenarios 469, 471, 473 and 501.

use crate::error::Errno;
use crate::fib6::{FibResult6, Flow6};
use crate::lookup6::RouteAnswer6;
use crate::netns::Netns;
use crate::prefix::Prefix6;
use crate::route::{Route6, RouteType};

/// The copies of `throw` routes a `route get` walk makes (object, route), applied
/// once the walk is over.
pub(crate) type Made6 = std::cell::RefCell<Vec<(u32, Route6)>>;

/// A nexthop object's copy: the object (a group's member), the serial number it was
/// made under, and the route it was made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pcpu6 {
    pub(crate) object: u32,
    sernum: u64,
    from: Route6,
    /// When the copy was made (`dst->lastuse`, on the millisecond clock).
    made: u64,
}

/// The copy of a route without an object (kept by the route's serial): where the
/// route is, to forget the copy once it is gone, and the preference it was made with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LegCopy6 {
    table: u32,
    dst: crate::prefix::Prefix6,
    src: crate::prefix::Prefix6,
    pref: crate::route::Pref,
    /// The route had no metrics when the copy was made: the copy points at the
    /// kernel's shared default metrics (`dst_default_metrics`), and a metric the
    /// route takes later (`fib6_metric_set` gives it an array of its own) is not seen
    /// through the copy. A route with metrics shares its array with the copy.
    bare: bool,
    /// When the copy was made (`dst->lastuse`, on the millisecond clock).
    made: u64,
}

impl Netns {
    /// `fib6_new_sernum`: the IPv6 FIB changed in a way that outdates the copies.
    pub(crate) fn fib6_sernum_bump(&mut self) {
        self.fib6_sernum = self.fib6_sernum.wrapping_add(1);
    }

    /// The object whose `fib6_nh` answered through object `id` with device `dev` and
    /// gateway `gw`: the object, or the group's member with that device and gateway.
    pub(crate) fn pcpu6_object(&self, id: u32, dev: u32, gw: Option<u128>) -> Option<u32> {
        use crate::nexthop::NexthopKind;
        match &self.nexthops.get(&id)?.kind {
            NexthopKind::Single { .. } => Some(id),
            NexthopKind::Group { members } => members.iter().map(|m| m.0).find(|m| {
                matches!(
                    self.nexthops.get(m).map(|o| &o.kind),
                    Some(NexthopKind::Single { gw: g, dev: d, .. })
                        if *d == dev && *g == gw.map(crate::route::Gateway::V6)
                )
            }),
            _ => None,
        }
    }

    /// Whether the route of `serial` is still at `dst` `src` in `table`.
    fn route6_alive(&self, table: u32, dst: Prefix6, src: Prefix6, serial: u64) -> bool {
        self.table6(table)
            .and_then(|t| t.get(dst, src))
            .is_some_and(|l| l.iter().any(|r| r.serial.0 == serial))
    }

    /// IPv6 answer `a` (of flow destination `daddr`) as the copy of its nexthop object
    /// gives it (see the module's documentation): unchanged when the copy is its own
    /// route's or is made now; the copy's route's when another made it; ENETUNREACH
    /// when that route is gone.
    ///
    /// `a` may be the answer of a reject route through an object
    /// ([`Netns::route_get6_through_copies`]): the copy's route's type then decides,
    /// and a reject type's error (`ip6_rt_type_to_error`) is the answer.
    pub fn route_get6_pcpu(&mut self, a: &mut RouteAnswer6, daddr: u128) -> Result<(), Errno> {
        // the copy is the nexthop's and the query's (ip6_pol_route takes a reference
        // for the caller; the per-CPU slot keeps its own)
        if let Some(made) = self.route_get6_copy(a, daddr)? {
            a.dst_use = Some(crate::lookup::DstUse {
                users: 2,
                made_ms: made,
            });
        }
        match crate::lookup6::reject_errno(a.rtype) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// `ip -6 route get`'s answer: the rule walk as the nexthop objects' copies see
    /// it, the copies of `throw` routes it made, then the answer through the copy of
    /// its object ([`Netns::route_get6_pcpu`]).
    pub fn route_get6_copies(&mut self, flow: &Flow6) -> Result<RouteAnswer6, Errno> {
        let made = Made6::default();
        // the lookup probes the routers of the routes it weighs (crate::rt6probe)
        let res = self.rt6_probing(|ns| {
            ns.route_get6_through_copies(flow, &made)
                .map(|g| g.to_owned_answer(ns))
        });
        let (cur, now) = (self.fib6_sernum, self.ms_clock);
        for (object, from) in made.into_inner() {
            let c = Pcpu6 {
                object,
                sernum: cur,
                from,
                made: now,
            };
            match self.pcpu6.iter().position(|c| c.object == object) {
                Some(i) => self.pcpu6[i] = c,
                None => self.pcpu6.push(c),
            }
        }
        let mut a = res?;
        self.route_get6_pcpu(&mut a, flow.dst)?;
        Ok(a)
    }

    /// A table lookup of `route get`'s rule walk as the copy of the nexthop object it
    /// went through answers (`ip6_pol_route`; `made`: none outside `route get`). The
    /// copy's error is what `fib6_rule_action` reads: a copy of a `throw` route
    /// (`-EAGAIN`, `ip6_rt_init_dst`) sends the walk on whichever route through the
    /// object was found, and a `throw` route found with another route's copy stops
    /// it with that route (or that route's error once it is gone). A `throw` route
    /// through an object without a copy makes one. Other copies are applied to the
    /// answer after the walk ([`Netns::route_get6_pcpu`]).
    pub(crate) fn pcpu6_through<'a>(
        &'a self,
        res: Result<FibResult6<'a>, Errno>,
        made: Option<&'a Made6>,
    ) -> Result<FibResult6<'a>, Errno> {
        let (Some(made), Ok(found)) = (made, &res) else {
            return res;
        };
        let r = found.route;
        if r.nh_id == 0 {
            return res;
        }
        let Some(object) = self.pcpu6_object(r.nh_id, r.nh.dev, r.nh.gw) else {
            return res;
        };
        if made.borrow().iter().any(|(o, _)| *o == object) {
            return Err(Errno::EAGAIN);
        }
        let cur = self.fib6_sernum;
        let Some(c) = self
            .pcpu6
            .iter()
            .find(|c| c.object == object && c.sernum == cur)
        else {
            if r.rtype == RouteType::Throw {
                made.borrow_mut().push((object, r.clone()));
                return Err(Errno::EAGAIN);
            }
            return res;
        };
        let from = &c.from;
        if from.rtype == RouteType::Throw {
            return Err(Errno::EAGAIN);
        }
        if r.rtype != RouteType::Throw {
            return res;
        }
        if !self.route6_alive(from.table, from.dst, from.src, from.serial.0) {
            return Err(crate::lookup6::reject_errno(from.rtype).unwrap_or(Errno::ENETUNREACH));
        }
        Ok(FibResult6 {
            route: from,
            matched: from,
            table: from.table,
        })
    }

    fn route_get6_copy(&mut self, a: &mut RouteAnswer6, daddr: u128) -> Result<Option<u64>, Errno> {
        // (when the copy met was made)
        let mut made = None;
        let Some(r0) = a.fib.first() else {
            return Ok(made);
        };
        // ip6_pol_route makes and takes the copies whatever the route's type: local,
        // anycast, multicast and reject routes through an object share its copy with
        // the unicast ones (a copy of a reject route carries its error; a `throw`
        // route's, which sends the rule walk on, is read by the walk itself:
        // Netns::pcpu6_through)
        let shared = r0.nh_id != 0;
        let now = self.ms_clock;
        if r0.nh_id == 0 && r0.rtype != RouteType::Throw {
            // a route without an object (a multipath route's leg: the answer's first
            // entry is the chosen leg): its copy, made by the first query through it
            // even while the route had no siblings yet (conformance scenario 473);
            // what it keeps shows in a unicast answer (any other shows only its age)
            let unicast = r0.rtype == RouteType::Unicast;
            let serial = r0.serial.0;
            match self.pcpu6_legs.get(&serial) {
                Some(c) => {
                    made = Some(c.made);
                    if unicast {
                        a.pref = c.pref;
                        if c.bare {
                            a.metrics = crate::route::Metrics::default();
                        }
                    }
                }
                None => {
                    made = Some(now);
                    let c = LegCopy6 {
                        table: r0.table,
                        dst: r0.dst,
                        src: r0.src,
                        pref: a.pref,
                        bare: r0.metrics.is_empty(),
                        made: now,
                    };
                    self.pcpu6_legs.insert(serial, c);
                    // the copies of routes since deleted go with them (looked for as
                    // the map doubles)
                    let n = self.pcpu6_legs.len();
                    if n >= 64 && n.is_power_of_two() {
                        let legs = std::mem::take(&mut self.pcpu6_legs);
                        self.pcpu6_legs = legs
                            .into_iter()
                            .filter(|(s, c)| self.route6_alive(c.table, c.dst, c.src, *s))
                            .collect();
                    }
                }
            }
            return Ok(made);
        }
        if !shared {
            return Ok(made);
        }
        // the chosen path is the answer's (a group route's entry lists its legs in the
        // group's order; a local route's answer names the loopback, its path the
        // object's device)
        let local = crate::route::rtf::LOCAL | crate::route::rtf::ANYCAST;
        let path_dev = if r0.flags & local != 0 {
            r0.nh.dev
        } else {
            a.dev
        };
        let path_gw = a.gateway;
        let Some(object) = self.pcpu6_object(r0.nh_id, path_dev, path_gw) else {
            return Ok(made);
        };
        let cur = self.fib6_sernum;
        let found = self.pcpu6.iter().position(|c| c.object == object);
        let from = match found {
            Some(i) if self.pcpu6[i].sernum == cur => {
                made = Some(self.pcpu6[i].made);
                self.pcpu6[i].from.clone()
            }
            _ => {
                made = Some(now);
                let c = Pcpu6 {
                    object,
                    sernum: cur,
                    from: r0.clone(),
                    made: now,
                };
                match found {
                    Some(i) => self.pcpu6[i] = c,
                    None => self.pcpu6.push(c),
                }
                return Ok(made);
            }
        };
        if from.serial.0 == r0.serial.0 {
            return Ok(made);
        }
        if !self.route6_alive(from.table, from.dst, from.src, from.serial.0) {
            // inet6_rtm_getroute reads the copy's error before its route
            return Err(crate::lookup6::reject_errno(from.rtype).unwrap_or(Errno::ENETUNREACH));
        }
        // rt6_fill_node with the copy's route; the copy's device is the loopback for a
        // copy of a local route (ip6_rt_get_dev_rcu), else the path's
        a.dev = if from.flags & local != 0 { 1 } else { path_dev };
        a.rtype = from.rtype;
        a.table = from.table;
        a.metric = from.metric;
        a.pref = from.pref;
        a.metrics = from.metrics.clone();
        a.prefsrc = match from.prefsrc {
            Some(p) => Some(p),
            None if a.input => None,
            None => {
                let sdev = self.nh_first_dev(from.nh_id).unwrap_or(from.nh.dev);
                self.ipv6_dev_get_saddr(sdev, daddr)
            }
        };
        // its entry, with its legs in the group's order
        a.fib = self.entry6_legs(from.table, &from);
        Ok(made)
    }
}
