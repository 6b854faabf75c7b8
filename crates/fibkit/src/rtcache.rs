//! What the kernel's cached IPv4 input routes remember between two lookups: an input
//! route is the nexthop's cached one (`nhc_rth_input`), which later input lookups
//! through that nexthop share until the IPv4 route cache is flushed (`rt_cache_flush`
//! advances `rt_genid_ipv4`, and a cached route of an older generation is made anew),
//! with the metrics and realms of the route that made it (routes through one nexthop
//! object may differ; conformance scenario 483). `ip route get ... notify` marks the
//! route it answers with (`RTCF_NOTIFY`), so after a `notify` input query the other
//! input answers through the same nexthop print `notify` too (conformance scenario
//! 322).
//!
//! Output routes are cached per CPU (`nhc_pcpu_rth_output`), and fibkit takes the
//! answers of one CPU (what the oracle's queries meet almost always; a query the
//! scheduler moves to another CPU makes its route anew): an output route through a
//! nexthop is made once and then answered with, its type and flags included, until
//! the route cache is flushed. So a multicast destination that a unicast route
//! covers (not joined on the device: a joined group's route is not cached) is
//! answered `unicast` after a unicast destination through the same nexthop, and the
//! other way round (`__mkroute_output`; conformance scenario 467); broadcast and
//! anycast routes through a nexthop object share its cached route with the unicast
//! ones the same way (scenario 575); and a `notify` query marks the cached route for
//! the output answers that follow.

use std::sync::Arc;

use crate::lookup::RouteAnswer4;
use crate::netns::Netns;
use crate::route::{Fib4Info, RouteType};

/// The nexthop whose cached routes an answer shares (`FIB_RES_NHC`: input and output): a route's path
/// (the kernel shares one fib_info between the routes of a table whose infos are
/// equal, `fib_find_info`), or a nexthop object, whichever routes use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NhCacheKey {
    /// Path `nh` of the routes of `table` and `rtype` with this info.
    Path {
        table: u32,
        rtype: RouteType,
        info: Arc<Fib4Info>,
        nh: usize,
    },
    /// A single nexthop object (one of a group's members, or the route's own).
    Object(u32),
}

/// A nexthop's cached IPv4 output route, as far as an answer shows it: its type
/// (`rt_type`), its realms (`dst.tclassid`), its metrics (the fib_info's of the route
/// that made it: routes through one nexthop object may differ) and whether a query
/// marked it `notify` (`RTCF_NOTIFY`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OutputCached {
    key: NhCacheKey,
    rtype: RouteType,
    realms: u32,
    metrics: crate::route::Metrics,
    notify: bool,
    /// When it was made (`dst->lastuse`, on the millisecond clock).
    made: u64,
}

/// A nexthop's cached IPv4 input route, as far as an answer shows it: its realms and
/// metrics (those of the route that made it), whether a query marked it `notify`, and
/// when it was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InputCached {
    key: NhCacheKey,
    realms: u32,
    metrics: crate::route::Metrics,
    notify: bool,
    made: u64,
}

impl Netns {
    /// Nexthop object `id` has a new `fib_nh` (replaced): the routes its old one cached
    /// are gone.
    pub(crate) fn drop_object_caches4(&mut self, id: u32) {
        let key = NhCacheKey::Object(id);
        self.out_cache4.retain(|c| c.key != key);
        self.in_cache4.retain(|c| c.key != key);
    }

    /// The IPv4 routes through nexthop object `id` (0: through any object).
    pub(crate) fn v4_routes_via(&self, id: u32) -> usize {
        self.tables4
            .values()
            .flat_map(|t| t.iter())
            .filter(|r| r.info.nh_id != 0 && (id == 0 || r.info.nh_id == id))
            .count()
    }

    /// `rt_cache_flush`: the IPv4 cached routes of every nexthop are stale from now on.
    /// The engine calls it where the kernel flushes; front ends call it for `ip route
    /// flush cache` (writing `net.ipv4.route.flush`) and, when they apply sysctls
    /// themselves, after the changes that flush (`forwarding`, `route_localnet`,
    /// `promote_secondaries`, and `accept_local` turned off).
    pub fn rt_cache_flush4(&mut self) {
        self.rt_genid4 = self.rt_genid4.wrapping_add(1);
    }

    /// `atomic_inc(&net->ipv4.dev_addr_genid)`: an IPv4 address was added or deleted,
    /// or a device with IPv4 state came up; every nexthop's remembered source address
    /// is stale from now on.
    pub(crate) fn dev_addr_event4(&mut self) {
        self.dev_addr_genid4 = self.dev_addr_genid4.wrapping_add(1).max(1);
    }

    /// `rt_genid_ipv4`: advanced by every change that flushes the IPv4 route cache
    /// (IPv4 routes, addresses and rules, devices going up or down or changing their
    /// MTU, nexthop objects replaced or removed, and the sysctls that flush).
    pub fn rt_genid4(&self) -> u64 {
        self.rt_genid4
    }

    /// The nexthop whose cached input route the kernel answers `a` with, when it caches
    /// it: an input answer with a FIB entry (forwarded, local, or a subnet broadcast),
    /// whose source check gave no realm tag (`do_cache = res->fi && !itag`); a
    /// broadcast delivered locally only while `bc_forwarding` is off for `all`.
    fn input_cache_key4(&self, a: &RouteAnswer4) -> Option<NhCacheKey> {
        if !a.input {
            return None;
        }
        let (route, _) = a.fib.as_ref()?;
        let nh_sel = match a.rtype {
            // brd_input caches nothing while `bc_forwarding` is on for `all`
            RouteType::Broadcast if !a.bc_forwarded && self.sysctl.v4_all.bc_forwarding != 0 => {
                return None;
            }
            RouteType::Local | RouteType::Broadcast if !a.bc_forwarded => {
                if a.realms != 0 {
                    return None;
                }
                0
            }
            // forwarded: a unicast route, or a directed broadcast under bc_forwarding
            RouteType::Unicast | RouteType::Broadcast => {
                let nh = a.nexthop()?;
                let sel = route.info.nhs.iter().position(|n| std::ptr::eq(n, nh))?;
                let fl = &a.flow;
                let (_, itag) = self
                    .fib_validate_source(fl, fl.src, fl.dst, nh.dev, fl.iif)
                    .ok()?;
                if itag != 0 {
                    return None;
                }
                sel
            }
            _ => return None,
        };
        self.nh_cache_key4(route, nh_sel)
    }

    /// The nexthop of path `nh_sel` of `route`, whose cached routes an answer through
    /// it shares: the route's path (through an equal fib_info), or the nexthop object
    /// (a group's member).
    fn nh_cache_key4(&self, route: &crate::route::Route4, nh_sel: usize) -> Option<NhCacheKey> {
        let id = route.info.nh_id;
        if id != 0 {
            let member = match self.nexthops.get(&id).map(|o| &o.kind) {
                Some(crate::nexthop::NexthopKind::Group { members }) => members.get(nh_sel)?.0,
                Some(_) => id,
                None => return None,
            };
            return Some(NhCacheKey::Object(member));
        }
        Some(NhCacheKey::Path {
            table: route.table,
            rtype: route.rtype,
            info: Arc::clone(&route.info),
            nh: nh_sel,
        })
    }

    /// The nexthop whose cached output route the kernel answers output answer `a`
    /// with (`__mkroute_output`'s `do_cache`): an answer from a FIB entry, unicast,
    /// local through the loopback, or multicast when the device did not join the
    /// group (a joined group's route is local, not cached) and the entry's prefix has
    /// at least 4 bits (a shorter one answers without the entry); not a broadcast. Routes of one type
    /// share a nexthop through an equal fib_info, routes of any type through a
    /// nexthop object.
    fn output_cache_key4(&self, a: &RouteAnswer4) -> Option<NhCacheKey> {
        if a.input {
            return None;
        }
        let (route, prefix) = a.fib.as_ref()?;
        match a.rtype {
            RouteType::Unicast | RouteType::Local => {}
            RouteType::Multicast if prefix.len >= 4 && !self.dev_has_mc(a.dev, a.flow.dst) => {}
            // a broadcast or anycast route's output route is cached in its nexthop like
            // a unicast one's (shared with the other routes through an object); the
            // limited broadcast answered through another route's type is not
            RouteType::Broadcast | RouteType::Anycast if route.rtype == a.rtype => {}
            _ => return None,
        }
        let nh = a.nexthop()?;
        // a local route through a device other than the loopback is never cached:
        // its nexthop's device is the query's output device then, and a local route
        // asked for through another device than the loopback it leaves by is not
        // (`orig_oif = FIB_RES_OIF`, then `do_cache = false`; scenario 491)
        if a.rtype == RouteType::Local && !self.link(nh.dev).is_some_and(|l| l.is_loopback()) {
            return None;
        }
        let nh_sel = route.info.nhs.iter().position(|n| std::ptr::eq(n, nh))?;
        self.nh_cache_key4(route, nh_sel)
    }

    /// An IPv4 output answer as the nexthop's cached output route gives it (see the
    /// module's documentation): the route cached since the last flush answers with
    /// its type, realms, metrics and `notify` mark; else the answer is cached. `notify` says
    /// whether the query asks for it (it marks the cached route). Input answers are
    /// left as they are ([`Netns::route_get4_notify`]).
    pub fn route_get4_output_cache(&mut self, a: &mut RouteAnswer4, notify: bool) {
        if self.out_cache4_gen != self.rt_genid4 {
            self.out_cache4.clear();
            self.out_cache4_gen = self.rt_genid4;
        }
        let Some(key) = self.output_cache_key4(a) else {
            return;
        };
        let now = self.ms_clock;
        // the route is the cache's and the query's (rt_cache_route holds it for the
        // nexthop; __mkroute_output hands a cached one out with a reference)
        let made = match self.out_cache4.iter_mut().find(|c| c.key == key) {
            Some(c) => {
                c.notify |= notify;
                a.rtype = c.rtype;
                a.realms = c.realms;
                a.metrics = c.metrics.clone();
                a.notify = c.notify;
                c.made
            }
            None => {
                self.out_cache4.push(OutputCached {
                    key,
                    rtype: a.rtype,
                    realms: a.realms,
                    metrics: a.metrics.clone(),
                    notify,
                    made: now,
                });
                now
            }
        };
        a.dst_use = Some(crate::lookup::DstUse {
            users: 2,
            made_ms: made,
        });
    }

    /// IPv4 answer `a` as the nexthop's cached input route gives it (see the module's
    /// documentation): the route cached since the last flush answers with its realms
    /// and metrics; else the answer is cached. Returns whether the kernel prints
    /// `notify` (`RTCF_NOTIFY` on the route it answered with), `notify` saying whether
    /// the query asks for it: a query asking for it marks a cached input route, which
    /// later input answers through the same nexthop then share. Output answers are
    /// left as they are ([`Netns::route_get4_output_cache`]).
    pub fn route_get4_notify(&mut self, a: &mut RouteAnswer4, notify: bool) -> bool {
        if self.in_cache4_gen != self.rt_genid4 {
            self.in_cache4.clear();
            self.in_cache4_gen = self.rt_genid4;
        }
        let Some(key) = self.input_cache_key4(a) else {
            return notify;
        };
        let now = self.ms_clock;
        match self.in_cache4.iter_mut().find(|c| c.key == key) {
            Some(c) => {
                c.notify |= notify;
                a.realms = c.realms;
                a.metrics = c.metrics.clone();
                // a cached input route is set on the query's packet without a
                // reference of its own (skb_dst_set_noref): the cache's alone
                a.dst_use = Some(crate::lookup::DstUse {
                    users: 1,
                    made_ms: c.made,
                });
                c.notify
            }
            None => {
                self.in_cache4.push(InputCached {
                    key,
                    realms: a.realms,
                    metrics: a.metrics.clone(),
                    notify,
                    made: now,
                });
                // made now: the cache's reference and the packet's
                a.dst_use = Some(crate::lookup::DstUse {
                    users: 2,
                    made_ms: now,
                });
                notify
            }
        }
    }
}
