//! IPv6 `ip -6 route get`: output (`ip6_route_output_flags`) and input
//! (`ip6_route_input_lookup`) lookups, and source address selection (RFC 6724 as
//! `ipv6_dev_get_saddr` implements it).

use crate::error::Errno;
use crate::fib6::{strict, FibResult6, Flow6};
use crate::netns::Netns;
use crate::pcpu6::Made6;
use crate::prefix::v6;
use crate::route::{rtf, table as tid, Metrics, Pref, Route6, RouteType};

/// The answer of an IPv6 route lookup, borrowing the FIB entry (no allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteGet6<'a> {
    /// Route type.
    pub rtype: RouteType,
    /// Gateway.
    pub gateway: Option<u128>,
    /// Device of the result (lo for local and anycast routes).
    pub dev: u32,
    /// Preferred source (`ip route get` output lookups; `None` from [`Netns::route_output6`]).
    pub prefsrc: Option<u128>,
    /// Table.
    pub table: u32,
    /// Metric.
    pub metric: u32,
    /// Router preference (of the route's first leg).
    pub pref: Pref,
    /// Metrics.
    pub metrics: &'a Metrics,
    /// The chosen FIB entry (the chosen leg of an ECMP route).
    pub route: &'a Route6,
    /// Whether this is an input route.
    pub input: bool,
}

/// An owned copy of an IPv6 answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteAnswer6 {
    /// Route type.
    pub rtype: RouteType,
    /// Gateway.
    pub gateway: Option<u128>,
    /// Device of the result.
    pub dev: u32,
    /// Preferred source.
    pub prefsrc: Option<u128>,
    /// Table.
    pub table: u32,
    /// Metric.
    pub metric: u32,
    /// Router preference.
    pub pref: Pref,
    /// Metrics. (An answer never says whether its route expires: the kernel's route
    /// copies carry no expiry, only `fibmatch` shows the FIB entry's; conformance
    /// scenario 223.)
    pub metrics: Metrics,
    /// The chosen FIB entry and its ECMP siblings, starting with it.
    pub fib: Vec<Route6>,
    /// Whether this is an input route.
    pub input: bool,
    /// The route copy the answer was given as (see [`crate::lookup::DstUse`]); `None`:
    /// one made for the query alone. Set by [`Netns::route_get6_pcpu`].
    pub dst_use: Option<crate::lookup::DstUse>,
}

impl RouteGet6<'_> {
    /// An owned copy, with the chosen leg's ECMP siblings (as `fibmatch` lists them).
    pub fn to_owned_answer(&self, ns: &Netns) -> RouteAnswer6 {
        let fib = ns.entry6_legs(self.table, self.route);
        RouteAnswer6 {
            rtype: self.rtype,
            gateway: self.gateway,
            dev: self.dev,
            prefsrc: self.prefsrc,
            table: self.table,
            metric: self.metric,
            pref: self.pref,
            metrics: self.metrics.clone(),
            fib,
            input: self.input,
            dst_use: None,
        }
    }
}

impl Netns {
    /// Leg `r` of table `table` with its ECMP siblings, as `fibmatch` lists them: the
    /// leg first, then the others in turn; a route through a group object lists its
    /// paths in the group's order, whichever was chosen.
    pub(crate) fn entry6_legs(&self, table: u32, r: &Route6) -> Vec<Route6> {
        let mut fib = vec![r.clone()];
        if r.sibling_group == 0 {
            return fib;
        }
        let Some(list) = self.table6(table).and_then(|t| t.get(r.dst, r.src)) else {
            return fib;
        };
        let legs: Vec<&Route6> = list
            .iter()
            .filter(|x| x.sibling_group == r.sibling_group)
            .collect();
        if r.nh_id != 0 {
            fib = legs.iter().map(|x| (*x).clone()).collect();
        } else if let Some(i) = legs.iter().position(|x| std::ptr::eq(*x, r)) {
            for k in 1..legs.len() {
                fib.push(legs[(i + k) % legs.len()].clone());
            }
        }
        fib
    }

    /// `ipv6_dev_get_saddr`: the source address for `daddr` leaving through `dst_dev`.
    pub fn ipv6_dev_get_saddr(&self, dst_dev: u32, daddr: u128) -> Option<u128> {
        let dtype = v6::addr_type(daddr);
        let dscope = v6::src_scope(daddr);
        let dlabel = self.addr_label(daddr, dst_dev);
        let only_dev = dst_dev != 0
            && (dtype & v6::MULTICAST != 0
                || dscope <= v6::SCOPE_LINKLOCAL
                || self
                    .sysctl
                    .v6_dev
                    .get(&dst_dev)
                    .is_some_and(|c| c.use_oif_addrs_only != 0));
        // otherwise every device's addresses, walking the device list
        // (for_each_netdev_rcu): in registration order, which decides between
        // addresses that score the same
        let devs: Vec<u32> = if only_dev {
            vec![dst_dev]
        } else {
            self.links_in_list_order()
        };
        let mut best: Option<(u128, [i32; 11])> = None;
        for d in devs {
            for a in self.addrs6(d) {
                // a tentative address is no candidate unless it is optimistic
                if a.flags & crate::addr::ifa::TENTATIVE != 0
                    && a.flags & crate::addr::ifa::OPTIMISTIC == 0
                {
                    continue;
                }
                let optimistic = a.flags & crate::addr::ifa::OPTIMISTIC != 0;
                let at = v6::addr_type(a.addr);
                if at == v6::ANY || at & v6::MULTICAST != 0 {
                    continue;
                }
                let sc = v6::src_scope(a.addr);
                let scopedist = if sc >= dscope { -sc } else { sc - 128 };
                let matchlen = {
                    let x = (a.addr ^ daddr).leading_zeros() as i32;
                    x.min(i32::from(a.plen))
                };
                let score = [
                    1,
                    i32::from(a.addr == daddr),
                    scopedist,
                    // rule 3: avoid deprecated addresses, and optimistic ones unless
                    // they may be used (ipv6_use_optimistic_addr), but for the types
                    // ipv6_saddr_preferred always counts as preferred
                    i32::from(
                        at & (v6::MAPPED | v6::COMPATV4 | v6::LOOPBACK) != 0
                            || (a.flags & crate::addr::ifa::DEPRECATED == 0
                                && (!optimistic || self.use_optimistic6(d))),
                    ),
                    0,
                    i32::from(dst_dev == 0 || dst_dev == d),
                    i32::from(self.addr_label(a.addr, d) == dlabel),
                    // rule 7: a public address, or a temporary one where the
                    // address's device prefers those (use_tempaddr >= 2; scenario 492)
                    i32::from(
                        (a.flags & crate::addr::ifa::TEMPORARY == 0)
                            != self
                                .sysctl
                                .v6_dev
                                .get(&d)
                                .is_some_and(|c| c.use_tempaddr >= 2),
                    ),
                    // rule 7.5 (ipv6_addr_orchid): an ORCHID address (2001:10::/28)
                    // for an ORCHID destination, any other for any other
                    i32::from(is_orchid(a.addr) == is_orchid(daddr)),
                    matchlen,
                    // optimistic addresses still rank below the others
                    i32::from(!optimistic),
                ];
                match &best {
                    None => best = Some((a.addr, score)),
                    Some((_, hs)) => {
                        for i in 0..score.len() {
                            if hs[i] > score[i] {
                                break;
                            }
                            if hs[i] < score[i] {
                                best = Some((a.addr, score));
                                break;
                            }
                        }
                    }
                }
            }
        }
        best.map(|(a, _)| a)
    }

    fn route6_result<'a>(
        &'a self,
        res: &FibResult6<'a>,
        daddr: u128,
        input: bool,
        want_src: bool,
        keep_reject: bool,
    ) -> Result<RouteGet6<'a>, Errno> {
        let r = res.route;
        // (`keep_reject`: a reject route through a nexthop object is answered, for the
        // object's copy to decide; see crate::pcpu6)
        if !(keep_reject && r.nh_id != 0) || r.rtype == RouteType::Throw {
            if let Some(e) = reject_errno(r.rtype) {
                return Err(e);
            }
        }
        let dev = if r.flags & (rtf::LOCAL | rtf::ANYCAST) != 0 {
            1
        } else {
            r.nh.dev
        };
        // rt6_fill_node: a route's configured preferred source is always reported
        // (input answers included); otherwise output answers get the chosen source
        let prefsrc = if let Some(p) = r.prefsrc {
            Some(p)
        } else if input || !want_src {
            None
        } else {
            // ip6_route_get_saddr takes the route's first path's device: a group
            // object's first member's, whichever path was chosen
            let sdev = if r.nh_id != 0 {
                self.nh_first_dev(r.nh_id).unwrap_or(r.nh.dev)
            } else {
                r.nh.dev
            };
            self.ipv6_dev_get_saddr(sdev, daddr)
        };
        Ok(RouteGet6 {
            rtype: r.rtype,
            gateway: r.nh.gw,
            dev,
            prefsrc,
            table: res.table,
            metric: r.metric,
            pref: res.matched.pref,
            metrics: &r.metrics,
            route: r,
            input,
        })
    }

    /// `fib6_rule_lookup` with `ip6_pol_route`: the route of a flow.
    fn ip6_route_lookup<'a>(
        &'a self,
        fl: &Flow6,
        flags: u32,
        copies: Option<&'a Made6>,
    ) -> Result<FibResult6<'a>, Errno> {
        let oif = if fl.iif != 0 { fl.iif } else { fl.oif };
        let pol = |t: u32, f: u32, fl: &Flow6| {
            self.pcpu6_through(self.ip6_pol_route(t, oif, fl, f), copies)
        };
        if !self.custom_rules6 {
            match pol(tid::LOCAL, flags, fl) {
                Ok(r) if r.route.rtype != RouteType::Throw => return Ok(r),
                _ => {}
            }
            return match pol(tid::MAIN, flags, fl) {
                Ok(r) if r.route.rtype != RouteType::Throw => Ok(r),
                _ => Err(Errno::ENETUNREACH),
            };
        }
        self.fib6_rule_lookup(fl, flags, oif, |t, f, fl| pol(t, f, &fl))
    }

    /// IPv6 `ip -6 route get` (output, or input when `flow.iif != 0`), with the preferred
    /// source of output lookups.
    pub fn route_get6(&self, flow: &Flow6) -> Result<RouteGet6<'_>, Errno> {
        self.route6(flow, true, None)
    }

    /// [`Netns::route_get6`] as the nexthop objects' route copies see it (the walk
    /// of [`Netns::route_get6_copies`]): a table's route through an object is taken
    /// as the object's copy answers (a copy of a `throw` route sends the walk on), a
    /// `throw` route through an object without a copy makes one (added to `made`),
    /// and a reject route (unreachable, prohibit, blackhole) through an object is
    /// answered rather than refused: the error is the object's copy's to give
    /// ([`Netns::route_get6_pcpu`]).
    pub(crate) fn route_get6_through_copies<'a>(
        &'a self,
        flow: &Flow6,
        made: &'a Made6,
    ) -> Result<RouteGet6<'a>, Errno> {
        self.route6_keep(flow, true, None, Some(made))
    }

    /// The IPv6 route of a flow (`ip6_route_output` / `ip6_route_input_lookup`) without
    /// source address selection: what the kernel's lookup itself returns.
    pub fn route_output6(&self, flow: &Flow6) -> Result<RouteGet6<'_>, Errno> {
        self.route6(flow, false, None)
    }

    /// [`Netns::route_output6`] of an output flow whose table walks start at
    /// destination prefix length `from_len`: only prefixes of that length and shorter
    /// take part (compiling the answer of a prefix without its longer prefixes).
    pub(crate) fn route_output6_from(
        &self,
        flow: &Flow6,
        from_len: u8,
    ) -> Result<RouteGet6<'_>, Errno> {
        self.route6(flow, false, Some(from_len))
    }

    fn route6(
        &self,
        flow: &Flow6,
        want_src: bool,
        from_len: Option<u8>,
    ) -> Result<RouteGet6<'_>, Errno> {
        self.route6_keep(flow, want_src, from_len, None)
    }

    fn route6_keep<'a>(
        &'a self,
        flow: &Flow6,
        want_src: bool,
        from_len: Option<u8>,
        copies: Option<&'a Made6>,
    ) -> Result<RouteGet6<'a>, Errno> {
        let keep_reject = copies.is_some();
        let mut fl = *flow;
        let need_strict =
            v6::addr_type(fl.dst) & (v6::MULTICAST | v6::LINKLOCAL | v6::LOOPBACK) != 0;
        let mut flags = 0;
        if fl.iif != 0 {
            if !self.links.contains_key(&fl.iif) {
                return Err(Errno::ENODEV);
            }
            if fl.src != 0 {
                flags |= strict::HAS_SADDR;
            }
            if need_strict {
                flags |= strict::IFACE;
            }
            let res = self.ip6_route_lookup(&fl, flags, copies)?;
            let get = self.route6_result(&res, fl.dst, true, false, keep_reject)?;
            // with CONFIG_IPV6_MROUTE, rt6_fill_node asks multicast routing about a
            // route whose prefix is multicast (ff00::/8, an autojoined group's local
            // route), which has no entry for it here: the answer fails to be made
            // (EMSGSIZE); a lookup that finds nothing answers as for any address
            // (random seed 40200). Without it the route answers with its iif.
            if self.kernel.ipv6_mroute
                && v6::is_multicast(fl.dst)
                && v6::is_multicast(res.route.dst.addr)
            {
                return Err(Errno::EMSGSIZE);
            }
            return Ok(get);
        }
        // an output interface no device has (`oif ifN`) is looked up as any other:
        // no route's device matches it (ENETUNREACH under the strict match)
        fl.iif = 0;
        let any_src = fl.src == 0;
        if need_strict || (fl.oif != 0 && any_src) {
            flags |= strict::IFACE;
        }
        if !any_src {
            flags |= strict::HAS_SADDR;
        }
        let mut lf = fl;
        lf.iif = 0;
        let res = {
            // output lookups carry iif = lo for the rules
            let mut rf = lf;
            rf.iif = 1;
            let oif = lf.oif;
            let pol = |t: u32, f: u32, x: &Flow6| {
                self.pcpu6_through(self.ip6_pol_route_at(t, oif, x, f, from_len), copies)
            };
            if !self.custom_rules6 {
                match pol(tid::LOCAL, flags, &lf) {
                    Ok(r) if r.route.rtype != RouteType::Throw => Ok(r),
                    _ => match pol(tid::MAIN, flags, &lf) {
                        Ok(r) if r.route.rtype != RouteType::Throw => Ok(r),
                        _ => Err(Errno::ENETUNREACH),
                    },
                }
            } else {
                self.fib6_rule_lookup(&rf, flags, oif, |t, f, fl| {
                    let mut x = fl;
                    x.iif = 0;
                    pol(t, f, &x)
                })
            }
        }?;
        self.route6_result(&res, fl.dst, false, want_src, keep_reject)
    }
}

/// `ipv6_addr_orchid`: whether the address is an ORCHID (RFC 4843, 2001:10::/28),
/// which source address selection pairs with ORCHID destinations only.
fn is_orchid(a: u128) -> bool {
    a >> 100 == 0x2001_0010 >> 4
}

/// The error a route of a reject type answers with (`ip6_rt_type_to_error`).
pub(crate) fn reject_errno(t: RouteType) -> Option<Errno> {
    match t {
        RouteType::Blackhole => Some(Errno::EINVAL),
        RouteType::Prohibit => Some(Errno::EACCES),
        RouteType::Throw => Some(Errno::EAGAIN),
        RouteType::Unreachable => Some(Errno::EHOSTUNREACH),
        _ => None,
    }
}
