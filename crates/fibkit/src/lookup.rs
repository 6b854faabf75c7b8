//! Route lookups: the rule walk, IPv4 output (`ip_route_output_key_hash_rcu`) and input
//! (`ip_route_input_slow`) routes, as `ip route get` reports them.

use crate::error::Errno;
use crate::fib4::{FibResult4, Start4};
use crate::netns::Netns;
use crate::prefix::v4;
use crate::route::{nhflags, scope, table as tid, Gateway, Metrics, Route4, RouteType};
use crate::rule::{RuleAction, RuleFlow};

/// An IPv4 flow (`struct flowi4` as `ip route get` fills it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flow4 {
    /// Destination.
    pub dst: u32,
    /// Source (0: none).
    pub src: u32,
    /// Output interface (0: none).
    pub oif: u32,
    /// Input interface (0: output lookup).
    pub iif: u32,
    /// Firewall mark.
    pub mark: u32,
    /// TOS (ECN bits are stripped by `ip route get`).
    pub tos: u8,
    /// IP protocol.
    pub proto: u8,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
    /// uid.
    pub uid: u32,
    /// Lookup scope (`flowi4_scope`).
    pub scope: u8,
}

/// The answer of an IPv4 route lookup, borrowing the FIB entry (no allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteGet4<'a> {
    /// `rt_type`.
    pub rtype: RouteType,
    /// Gateway, when the route uses one.
    pub gateway: Option<Gateway>,
    /// Output device.
    pub dev: u32,
    /// Preferred source chosen (output lookups).
    pub prefsrc: Option<u32>,
    /// Table id (0 when no table was involved).
    pub table: u32,
    /// Metrics of the route.
    pub metrics: &'a Metrics,
    /// Whether this is an input route.
    pub input: bool,
    /// The FIB entry that matched, with its prefix (for `fibmatch`).
    pub fib: Option<(&'a Route4, crate::prefix::Prefix4)>,
    /// The flow as finally used (saddr filled in).
    pub flow: Flow4,
    /// The source the query asked for (0: none); `src` is reported only when the chosen
    /// source differs from it.
    pub requested_src: u32,
    /// The destination the query asked for, which the answer reports (`RTA_DST`): an
    /// output lookup of 0.0.0.0 goes to a local address (`flow.dst`).
    pub requested_dst: u32,
    /// The route's realms (`dst.tclassid`, reported as `RTA_FLOW`), as
    /// `rt_set_nexthop` sets them: the chosen nexthop's, then for a half still zero
    /// the answering rule's, then (input routes) the source check's tag.
    pub realms: u32,
    /// An input route to a broadcast address forwarded under `bc_forwarding`
    /// (`ip_mkroute_input`, where one delivered locally goes through `brd_input`):
    /// without the `local` and `brd` flags.
    pub bc_forwarded: bool,
    /// The path of the matched entry the answer took (`res->nh_sel`), when the
    /// answer went through one.
    pub nh_sel: Option<usize>,
    /// `res->dscp`: the TOS of the entry the table lookup matched, which the answer
    /// reports (`fibmatch` too) also when `fib_select_default` answered with another
    /// default route, one without a TOS (conformance scenario 455).
    pub dscp: u8,
}

/// `set_class_tag`: fill each half (from, to) of `realms` still zero from `tag`'s.
fn set_class_tag(realms: u32, tag: u32) -> u32 {
    let mut r = realms;
    if r & 0xffff == 0 {
        r |= tag & 0xffff;
    }
    if r & 0xffff_0000 == 0 {
        r |= tag & 0xffff_0000;
    }
    r
}

/// A route's realms as `rt_set_nexthop` sets them: the chosen nexthop's own (when the
/// route keeps its FIB entry), then what is still zero from the rule that answered
/// (`res->tclassid`), then from the source check's tag (input routes). The kernel
/// caches the first route it makes through a nexthop (per CPU for output routes) and
/// hands that copy, with the realms of the lookup that made it, to later lookups
/// through another rule until the next change: not modelled, the answer here is
/// always a fresh route's (`conformance/README.md`).
fn class_tag(nh_realm: u32, res_tclassid: u32, itag: u32) -> u32 {
    set_class_tag(set_class_tag(nh_realm, res_tclassid), itag)
}

/// What a rule action step produced.
enum Step<T> {
    /// A result: stop.
    Done(Result<T, Errno>),
    /// Continue with the next rule.
    Next,
}

impl Netns {
    /// `fib_rules_lookup`: walk `rules` and call `lookup(table)` for lookup actions.
    /// `suppress(rule, result)` says whether a successful result is dropped by the rule
    /// (and may mark a kept one with what the rule adds to it).
    pub(crate) fn rules_walk<T>(
        rules: &[crate::rule::CompiledRule],
        fl: &RuleFlow,
        lookup: impl FnMut(u32) -> Result<T, Errno>,
        suppress: impl FnMut(&crate::rule::CompiledRule, &mut T) -> bool,
    ) -> Result<T, Errno> {
        Self::rules_walk_ending(rules, fl, lookup, suppress).0
    }

    /// [`Netns::rules_walk`], with the rule that ended the walk (`arg->rule`: the one
    /// whose action gave the result or a terminal error; none when no rule did).
    pub(crate) fn rules_walk_ending<'r, T>(
        rules: &'r [crate::rule::CompiledRule],
        fl: &RuleFlow,
        mut lookup: impl FnMut(u32) -> Result<T, Errno>,
        mut suppress: impl FnMut(&crate::rule::CompiledRule, &mut T) -> bool,
    ) -> (Result<T, Errno>, Option<&'r crate::rule::CompiledRule>) {
        let mut i = 0;
        while i < rules.len() {
            let r = &rules[i];
            i += 1;
            if !r.matches(fl) {
                continue;
            }
            let step = match r.action {
                RuleAction::Goto(_) => {
                    if r.goto_index != u32::MAX {
                        // jump: the target rule is evaluated normally
                        i = r.goto_index as usize;
                    }
                    Step::Next
                }
                RuleAction::Nop => Step::Next,
                RuleAction::Unreachable => Step::Done(Err(Errno::ENETUNREACH)),
                RuleAction::Prohibit => Step::Done(Err(Errno::EACCES)),
                RuleAction::Blackhole | RuleAction::Other(_) => Step::Done(Err(Errno::EINVAL)),
                RuleAction::Lookup(t) => match lookup(t) {
                    Ok(mut res) => {
                        if suppress(r, &mut res) {
                            Step::Next
                        } else {
                            Step::Done(Ok(res))
                        }
                    }
                    Err(Errno::EAGAIN) => Step::Next,
                    Err(e) => Step::Done(Err(e)),
                },
            };
            if let Step::Done(res) = step {
                return (res, Some(r));
            }
        }
        (Err(Errno::ESRCH), None)
    }

    /// `fib_lookup`: the IPv4 policy lookup (fast path while only the default rules ever
    /// existed: merged local+main, then default).
    pub(crate) fn fib4_lookup(
        &self,
        fl: &Flow4,
        ignore_linkstate: bool,
    ) -> Result<FibResult4<'_>, Errno> {
        self.fib4_lookup_from(fl, ignore_linkstate, Start4::Longest)
    }

    /// [`Netns::fib4_lookup`] with every table lookup starting where `from` says
    /// (`Start4::AtLen(l)`: only prefixes of length `l` and shorter take part, which
    /// compiles the answer of a prefix of length `l` without its longer prefixes).
    pub(crate) fn fib4_lookup_from(
        &self,
        fl: &Flow4,
        ignore_linkstate: bool,
        from: Start4,
    ) -> Result<FibResult4<'_>, Errno> {
        self.fib4_lookup_tclassid(fl, ignore_linkstate, from).0
    }

    /// [`Netns::fib4_lookup_from`], with `res->tclassid` also when the lookup fails: the
    /// realms of a rule whose action (or table lookup) ended the walk with an error,
    /// which an output route with `oif` still carries when it assumes the destination
    /// on-link.
    pub(crate) fn fib4_lookup_tclassid(
        &self,
        fl: &Flow4,
        ignore_linkstate: bool,
        from: Start4,
    ) -> (Result<FibResult4<'_>, Errno>, u32) {
        // one table's lookup for this flow (`EAGAIN`: no match there)
        let table = |t: u32| {
            self.fib4_table_lookup_at(t, fl.dst, fl.tos, fl.scope, fl.oif, ignore_linkstate, from)
        };
        if !self.custom_rules4 {
            let mut r = table(tid::MAIN);
            if matches!(r, Err(Errno::EAGAIN)) && self.tables4.contains_key(&tid::DEFAULT) {
                r = table(tid::DEFAULT);
            }
            let r = match r {
                Err(Errno::EAGAIN) => Err(Errno::ENETUNREACH),
                x => x,
            };
            return (r, 0);
        }
        let rf = RuleFlow::of4(fl);
        let (r, ending) = Self::rules_walk_ending(
            &self.prog4,
            &rf,
            |t| {
                if !self.tables4.contains_key(&t) {
                    return Err(Errno::EAGAIN);
                }
                table(t)
            },
            |rule, res: &mut FibResult4<'_>| {
                if i32::from(res.prefix.len) <= rule.suppress_prefixlen {
                    return true;
                }
                if rule.suppress_ifgroup != -1 {
                    let dev = res.route.info.nhs.first().map_or(0, |n| n.dev);
                    if let Some(l) = self.links.get(&dev) {
                        if l.group as i32 == rule.suppress_ifgroup {
                            return true;
                        }
                    }
                }
                // __fib_lookup: the rule that ended the walk gives res->tclassid
                res.tclassid = rule.realms;
                false
            },
        );
        let tclassid = ending.map_or(0, |rule| rule.realms);
        let r = match r {
            Err(Errno::ESRCH) | Err(Errno::EAGAIN) => Err(Errno::ENETUNREACH),
            x => x,
        };
        (r, tclassid)
    }

    /// `fib_lookup`: the policy lookup alone (rules, or the fast path while only the
    /// default rules ever existed), without the output route's source selection. Returns
    /// the answering entry, its prefix and the table it was found in.
    pub fn policy_lookup4(
        &self,
        fl: &Flow4,
    ) -> Result<(&Route4, crate::prefix::Prefix4, u32), Errno> {
        self.fib4_lookup(fl, false)
            .map(|r| (r.route, r.prefix, r.table))
    }

    /// `inet_select_addr`.
    pub(crate) fn inet_select_addr(&self, dev: u32, dst: u32, sc: u8) -> u32 {
        let localnet = self.route_localnet(dev);
        let localnet_scope = if localnet { scope::LINK } else { scope::HOST };
        let mut addr = 0;
        for a in self.addrs4(dev) {
            if a.secondary() {
                continue;
            }
            if a.scope.min(localnet_scope) > sc {
                continue;
            }
            if dst == 0 || a.matches(dst) {
                addr = a.local;
                break;
            }
            if addr == 0 {
                addr = a.local;
            }
        }
        if addr != 0 {
            return addr;
        }
        // then the first primary address of a wide enough scope (not link) on any
        // device, walking the device list (for_each_netdev_rcu): in registration
        // order, lo first, whatever index each device was given
        for d in self.links_in_list_order() {
            for a in self.addrs4(d) {
                if a.secondary() {
                    continue;
                }
                if a.scope != scope::LINK && a.scope <= sc {
                    return a.local;
                }
            }
        }
        0
    }

    fn route_localnet(&self, dev: u32) -> bool {
        self.sysctl.v4_all.route_localnet != 0
            || self
                .sysctl
                .v4_dev
                .get(&dev)
                .is_some_and(|c| c.route_localnet != 0)
    }

    /// `fib_result_prefsrc` for path `nh_sel` of `route`: the route's own preferred
    /// source, else the nexthop's remembered one while no address event came since it
    /// was chosen (`nh_saddr_genid`), else one chosen now (`fib_info_update_nhc_saddr`),
    /// which the nexthop remembers when `remember` (a lookup; not the compilation of an
    /// index, which only reads). The nexthop is the object's own for a route through
    /// nexthop objects, shared by all the routes using it whatever their scopes: the
    /// object chose one when it was made, and after an address event the scope of the
    /// route whose lookup came first decides for all of them (conformance scenario
    /// 453).
    pub(crate) fn nh_prefsrc4(&self, route: &Route4, nh_sel: usize, remember: bool) -> u32 {
        let info = &route.info;
        if info.prefsrc != 0 {
            return info.prefsrc;
        }
        let choose = |cache: &crate::route::SaddrCache, dev: u32, gw: Option<Gateway>| match cache
            .get(self.dev_addr_genid4)
        {
            Some(s) => s,
            None if remember => self.update_nhc_saddr4(cache, dev, gw, info.scope),
            None => self.inet_select_addr(dev, nh_gw4(gw), info.scope),
        };
        if info.nh_id != 0 {
            if let Some(o) = self.nh_object_of_path(info.nh_id, nh_sel) {
                if let crate::nexthop::NexthopKind::Single {
                    family, gw, dev, ..
                } = &o.kind
                {
                    // an IPv6 object's nexthop remembers nothing (`nhc_family`)
                    if *family != crate::prefix::Family::V4 {
                        return self.inet_select_addr(*dev, 0, info.scope);
                    }
                    return choose(&o.saddr, *dev, *gw);
                }
            }
        }
        let Some(nh) = info.nhs.get(nh_sel) else {
            return 0;
        };
        choose(&nh.saddr, nh.dev, nh.gw)
    }

    /// `fib_info_update_nhc_saddr`: the source address of a nexthop through `dev` and
    /// `gw` at `scope`, chosen now and remembered in `cache` until the next address
    /// event.
    pub(crate) fn update_nhc_saddr4(
        &self,
        cache: &crate::route::SaddrCache,
        dev: u32,
        gw: Option<Gateway>,
        scope: u8,
    ) -> u32 {
        let s = self.inet_select_addr(dev, nh_gw4(gw), scope);
        cache.set(s, self.dev_addr_genid4);
        s
    }

    /// Whether the source address path `nh_sel` of `route` answers with depends on the
    /// order of lookups from now on: a route through an IPv4 nexthop object whose
    /// remembered address is not current (the first lookup chooses it, at its own
    /// route's scope, for all the routes through the object). A compiled index leaves
    /// such answers to the full lookup.
    pub(crate) fn prefsrc_order_dependent(&self, route: &Route4, nh_sel: usize) -> bool {
        route.info.prefsrc == 0
            && route.info.nh_id != 0
            && self
                .nh_object_of_path(route.info.nh_id, nh_sel)
                .is_some_and(|o| {
                    matches!(
                        o.kind,
                        crate::nexthop::NexthopKind::Single {
                            family: crate::prefix::Family::V4,
                            ..
                        }
                    ) && o.saddr.get(self.dev_addr_genid4).is_none()
                })
    }

    /// Whether `fib_select_path` looks for another default route for `route`, matched
    /// at `prefix` in a lookup of `table` (without an output device or multipath): a
    /// unicast default route of a table that had more than one inserted.
    fn selects_default(&self, route: &Route4, prefix: crate::prefix::Prefix4, table: u32) -> bool {
        prefix.len == 0
            && route.rtype == RouteType::Unicast
            && self.tables4.get(&table).is_some_and(|t| t.num_default > 1)
    }

    /// Whether the output answer with `route`, matched at `prefix` in a lookup of
    /// `table`, depends on the lookups before it: `fib_select_default` looks for
    /// another default route and may turn to one (one of the same metric and TOS is
    /// beside it) or still has a turn to forget (its `fa_default` is set). Default
    /// routes of different metrics alone, the usual case, stay compiled. A compiled
    /// index leaves such answers to the full lookup.
    pub(crate) fn default_route_turns(
        &self,
        route: &Route4,
        prefix: crate::prefix::Prefix4,
        table: u32,
    ) -> bool {
        self.selects_default(route, prefix, table)
            && (route.fa_state.default_get() != -1
                || self
                    .tables4
                    .get(&table)
                    .and_then(|t| t.get(prefix))
                    .is_some_and(|list| {
                        list.iter().any(|r| {
                            !std::ptr::eq(r, route)
                                && r.tos == route.tos
                                && r.info.priority == route.info.priority
                        })
                    }))
    }

    /// Whether output answer `g` is one `fib_select_default` chose (see
    /// [`Netns::default_route_turns`]): the next lookup of the same flow may answer
    /// with another default route, nothing else having changed.
    pub fn answer_takes_turns4(&self, g: &RouteGet4<'_>) -> bool {
        !g.input
            && g.fib.as_ref().is_some_and(|(r, p)| {
                r.info.nhs.len() == 1 && self.default_route_turns(r, *p, g.table)
            })
    }

    /// The single nexthop object behind path `nh_sel` of a route through object `id`
    /// (a group's member, or the object itself).
    pub(crate) fn nh_object_of_path(
        &self,
        id: u32,
        nh_sel: usize,
    ) -> Option<&crate::nexthop::Nexthop> {
        let o = self.nexthops.get(&id)?;
        match &o.kind {
            crate::nexthop::NexthopKind::Group { members } => {
                self.nexthops.get(&members.get(nh_sel)?.0)
            }
            _ => Some(o),
        }
    }

    /// `fib_select_path` (multipath and default-route selection, then the source).
    fn fib_select_path<'a>(&'a self, res: &mut FibResult4<'a>, fl: &mut Flow4, remember: bool) {
        if fl.oif == 0 {
            if res.route.info.nhs.len() > 1 {
                let h = crate::ecmp::multipath_hash4(self, fl);
                crate::ecmp::select_multipath4(self, res, h, fl);
            } else if self.selects_default(res.route, res.prefix, res.table) {
                self.fib_select_default(res, fl, remember);
            }
        }
        if fl.src == 0 {
            fl.src = self.nh_prefsrc4(res.route, res.nh_sel, remember);
        }
    }

    /// `fib_select_default`: of the default routes of the answer's metric (and TOS) that
    /// are unicast, of its scope and through a gateway on link, the lookup takes the
    /// answer's unless its gateway's neighbour entry says it is dead: one in no entry, or
    /// reachable, is taken; a valid one (stale, delay, probe, permanent, noarp) is
    /// taken unless it is the one the previous lookup took (the first route's
    /// `fa_default`), so lookups turn among such gateways; of the others the last
    /// valid one, or the first after the previous choice that is not incomplete, is
    /// kept as the last resort. The choice is remembered when `remember` (a lookup, not
    /// the compilation of an index). The matched route must be the first candidate; a
    /// default route of the local table (merged into main's lookup) never is.
    fn fib_select_default<'a>(&'a self, res: &mut FibResult4<'a>, fl: &Flow4, remember: bool) {
        if res.route.table != res.table {
            return;
        }
        let Some(list) = self.tables4.get(&res.table).and_then(|t| t.get(res.prefix)) else {
            return;
        };
        let first = res.route;
        let scope = first.info.scope;
        let mut fi: Option<&'a Route4> = None;
        let mut fa1: Option<&'a Route4> = None;
        let mut last_resort: Option<&'a Route4> = None;
        let mut order: i32 = -1;
        let mut last_idx: i32 = -1;
        let mut last_prio = first.info.priority;
        let mut last_dscp = 0u8;
        let choose = |res: &mut FibResult4<'a>, r: &'a Route4| {
            res.route = r;
            res.nh_sel = 0;
        };
        for fa in list.iter() {
            if fa.tos != 0 && fa.tos != (fl.tos & 0x1c) {
                continue;
            }
            if fa.info.priority > last_prio && fa.tos == last_dscp {
                if last_dscp != 0 {
                    continue;
                }
                break;
            }
            if fa.info.flags & nhflags::DEAD != 0 {
                continue;
            }
            last_dscp = fa.tos;
            last_prio = fa.info.priority;
            if fa.info.scope != scope || fa.rtype != RouteType::Unicast {
                continue;
            }
            let Some(nh) = fa.info.nhs.first() else {
                continue;
            };
            if nh.gw.is_none() || nh.scope != scope::LINK {
                continue;
            }
            match fi {
                None => {
                    if !std::ptr::eq(fa, first) {
                        break;
                    }
                    fa1 = Some(fa);
                }
                Some(prev) => {
                    let dflt = fa1.map_or(-1, |f| f.fa_state.default_get());
                    if !self.fib_detect_death(prev, order, &mut last_resort, &mut last_idx, dflt) {
                        choose(res, prev);
                        if let (true, Some(f1)) = (remember, fa1) {
                            f1.fa_state.default_set(order);
                        }
                        return;
                    }
                }
            }
            fi = Some(fa);
            order += 1;
        }
        let (Some(last), Some(f1)) = (fi, fa1) else {
            return;
        };
        if order <= 0 {
            if remember {
                f1.fa_state.default_set(-1);
            }
            return;
        }
        if !self.fib_detect_death(
            last,
            order,
            &mut last_resort,
            &mut last_idx,
            f1.fa_state.default_get(),
        ) {
            choose(res, last);
            if remember {
                f1.fa_state.default_set(order);
            }
            return;
        }
        if let (true, Some(r)) = (last_idx >= 0, last_resort) {
            choose(res, r);
        }
        if remember {
            f1.fa_state.default_set(last_idx);
        }
    }

    /// `fib_detect_death`: whether the gateway of `r`'s first nexthop is to be passed
    /// over (see [`Netns::fib_select_default`]), noting it as the last resort when it
    /// may still serve.
    fn fib_detect_death<'a>(
        &self,
        r: &'a Route4,
        order: i32,
        last_resort: &mut Option<&'a Route4>,
        last_idx: &mut i32,
        dflt: i32,
    ) -> bool {
        use crate::netns::NudState;
        let state = r
            .info
            .nhs
            .first()
            .and_then(|nh| nh.gw.and_then(|g| self.gw_neigh_state(nh.dev, g)));
        let Some(state) = state else {
            return false;
        };
        if state == NudState::Reachable {
            return false;
        }
        if state.valid() && order != dflt {
            return false;
        }
        if state.valid() || (*last_idx < 0 && order > dflt && state != NudState::Incomplete) {
            *last_resort = Some(r);
            *last_idx = order;
        }
        true
    }

    /// IPv4 output route: `ip route get DST [from S] [oif D] ...` without `iif`.
    pub fn route_output4(&self, flow: &Flow4) -> Result<RouteGet4<'_>, Errno> {
        self.route_output4_from(flow, Start4::Longest, true)
    }

    /// [`Netns::route_output4`] with the policy lookup's table lookups starting where
    /// `from` says (see [`Netns::fib4_lookup_from`]), the nexthop remembering the source
    /// address it chose when `remember` (see [`Netns::nh_prefsrc4`]).
    pub(crate) fn route_output4_from(
        &self,
        flow: &Flow4,
        from: Start4,
        remember: bool,
    ) -> Result<RouteGet4<'_>, Errno> {
        let mut r = self.output4_route(flow, from, remember)?;
        r.requested_dst = flow.dst;
        Ok(r)
    }

    /// `ip_route_output_key_hash_rcu`.
    fn output4_route(
        &self,
        flow: &Flow4,
        from: Start4,
        remember: bool,
    ) -> Result<RouteGet4<'_>, Errno> {
        let mut fl = *flow;
        fl.iif = 1;
        let orig_oif = fl.oif;
        let mut dev_out = 0u32;
        if fl.src != 0 {
            if v4::is_multicast(fl.src) || v4::is_lbcast(fl.src) {
                return Err(Errno::EINVAL);
            }
            if fl.oif == 0 && (v4::is_multicast(fl.dst) || v4::is_lbcast(fl.dst)) {
                let d = self.ip_dev_find4(fl.src).ok_or(Errno::ENETUNREACH)?;
                fl.oif = d;
                return self.mkroute_output(None, RouteType::Unicast, &fl, orig_oif, d, 0);
            }
            if self.ip_dev_find4(fl.src).is_none() {
                return Err(Errno::ENETUNREACH);
            }
        }
        if fl.oif != 0 {
            let l = self.links.get(&fl.oif).ok_or(Errno::ENODEV)?;
            if !l.up || !self.has_idev4(fl.oif) {
                return Err(Errno::ENETUNREACH);
            }
            dev_out = fl.oif;
            if v4::is_local_multicast(fl.dst) || v4::is_lbcast(fl.dst) || fl.proto == 2 {
                if fl.src == 0 {
                    fl.src = self.inet_select_addr(dev_out, 0, scope::LINK);
                }
                return self.mkroute_output(None, RouteType::Unicast, &fl, orig_oif, dev_out, 0);
            }
            if fl.src == 0 {
                if v4::is_multicast(fl.dst) {
                    fl.src = self.inet_select_addr(dev_out, 0, fl.scope);
                } else if fl.dst == 0 {
                    fl.src = self.inet_select_addr(dev_out, 0, scope::HOST);
                }
            }
        }
        if fl.dst == 0 {
            fl.dst = fl.src;
            if fl.dst == 0 {
                fl.dst = 0x7f00_0001;
                fl.src = 0x7f00_0001;
            }
            fl.oif = 1;
            return self.mkroute_output(None, RouteType::Local, &fl, orig_oif, 1, RTCF_LOCAL);
        }
        let (res, tclassid) = self.fib4_lookup_tclassid(&fl, false, from);
        let mut res = match res {
            Ok(r) => r,
            Err(e) => {
                if fl.oif != 0 {
                    if fl.src == 0 {
                        fl.src = self.inet_select_addr(dev_out, 0, scope::LINK);
                    }
                    // assumed on-link: no FIB entry, but res->tclassid stays (the
                    // realms of the rule that ended the failed walk)
                    let mut rg =
                        self.mkroute_output(None, RouteType::Unicast, &fl, orig_oif, dev_out, 0)?;
                    rg.realms = set_class_tag(rg.realms, tclassid);
                    return Ok(rg);
                }
                return Err(e);
            }
        };
        if res.route.rtype == RouteType::Local {
            if fl.src == 0 {
                fl.src = if res.route.info.prefsrc != 0 {
                    res.route.info.prefsrc
                } else {
                    fl.dst
                };
            }
            let oo = res.route.info.nhs[res.nh_sel].dev;
            fl.oif = 1;
            let rt = res.route.rtype;
            return self.mkroute_output(Some(res), rt, &fl, oo, 1, RTCF_LOCAL);
        }
        self.fib_select_path(&mut res, &mut fl, remember);
        let dev = res.route.info.nhs[res.nh_sel].dev;
        let rt = res.route.rtype;
        self.mkroute_output(Some(res), rt, &fl, orig_oif, dev, 0)
    }

    /// `__mkroute_output`.
    fn mkroute_output<'a>(
        &'a self,
        res: Option<FibResult4<'a>>,
        rtype: RouteType,
        fl: &Flow4,
        _orig_oif: u32,
        dev_out: u32,
        _flags: u32,
    ) -> Result<RouteGet4<'a>, Errno> {
        // __mkroute_output: no route out of a device without IPv4 state
        if !self.has_idev4(dev_out) {
            return Err(Errno::EINVAL);
        }
        let mut rtype = rtype;
        let mut use_fi = res.is_some();
        if v4::is_loopback(fl.src) && !self.route_localnet(dev_out) && dev_out != 1 {
            return Err(Errno::EINVAL);
        }
        if v4::is_lbcast(fl.dst) {
            // the limited broadcast drops the FIB entry (no gateway, no metrics); a
            // broadcast route of the FIB keeps its own, metrics included (Linux 6.15+,
            // "fix incorrect MTU in broadcast routes"; conformance scenario 166)
            rtype = RouteType::Broadcast;
            use_fi = false;
        } else if v4::is_multicast(fl.dst) {
            rtype = RouteType::Multicast;
        } else if fl.dst == 0 {
            return Err(Errno::EINVAL);
        }
        if rtype == RouteType::Multicast {
            if let Some(r) = &res {
                if r.prefix.len < 4 {
                    use_fi = false;
                }
            }
        }
        let mut gateway = None;
        let mut metrics: &Metrics = &crate::route::NO_METRICS;
        let mut nh_realm = 0;
        if use_fi {
            if let Some(r) = &res {
                let nh = &r.route.info.nhs[r.nh_sel];
                if nh.gw.is_some() && nh.scope == scope::LINK {
                    gateway = nh.gw;
                }
                metrics = &r.route.info.metrics;
                nh_realm = nh.realm;
            }
        }
        let realms = class_tag(nh_realm, res.as_ref().map_or(0, |r| r.tclassid), 0);
        let nh_sel = res.as_ref().filter(|_| use_fi).map(|r| r.nh_sel);
        let dscp = res.as_ref().map_or(0, |r| r.dscp);
        Ok(RouteGet4 {
            rtype,
            gateway,
            dev: dev_out,
            prefsrc: Some(fl.src),
            table: res.as_ref().map_or(0, |r| r.table),
            metrics,
            input: false,
            fib: res.map(|r| (r.route, r.prefix)),
            flow: *fl,
            requested_src: 0,
            requested_dst: fl.dst,
            realms,
            bc_forwarded: false,
            nh_sel,
            dscp,
        })
    }

    /// `IN_DEV_RPFILTER` (`IN_DEV_MAXCONF`): the larger of `all`'s and the device's
    /// `rp_filter`, compared as the `int`s `devinet_conf_proc` stores (any value is
    /// taken: a negative one loses to the other's 0 or 1, and is neither 0 nor 1
    /// itself, so it checks the route back as loosely as 2 does).
    pub(crate) fn rpfilter(&self, dev: u32) -> i32 {
        let d = self.sysctl.v4_dev.get(&dev).map_or(0, |c| c.rp_filter);
        // the knobs keep the written int's bits
        (self.sysctl.v4_all.rp_filter as i32).max(d as i32)
    }

    pub(crate) fn accept_local(&self, dev: u32) -> bool {
        self.sysctl.v4_all.accept_local != 0
            || self
                .sysctl
                .v4_dev
                .get(&dev)
                .is_some_and(|c| c.accept_local != 0)
    }

    /// `IN_DEV_SRC_VMARK`: `src_valid_mark` of `all` or of the device (the route back
    /// to a source is looked up with the packet's mark).
    pub(crate) fn src_valid_mark4(&self, dev: u32) -> bool {
        self.sysctl.v4_all.src_valid_mark != 0
            || self
                .sysctl
                .v4_dev
                .get(&dev)
                .is_some_and(|c| c.src_valid_mark != 0)
    }

    /// `IN_DEV_BFORWARD`: `bc_forwarding` of `all` and of the device.
    pub(crate) fn bc_forwarding4(&self, dev: u32) -> bool {
        self.sysctl.v4_all.bc_forwarding != 0
            && self
                .sysctl
                .v4_dev
                .get(&dev)
                .is_some_and(|c| c.bc_forwarding != 0)
    }

    pub(crate) fn forwarding4(&self, dev: u32) -> bool {
        self.sysctl
            .v4_dev
            .get(&dev)
            .is_some_and(|c| c.forwarding != 0)
    }

    /// `IN_DEV_TX_REDIRECTS`: `send_redirects` of `all` or of the device.
    pub(crate) fn tx_redirects4(&self, dev: u32) -> bool {
        self.sysctl.v4_all.send_redirects != 0
            || self
                .sysctl
                .v4_dev
                .get(&dev)
                .is_some_and(|c| c.send_redirects != 0)
    }

    /// `IN_DEV_SHARED_MEDIA`: `shared_media` of `all` or of the device.
    fn shared_media4(&self, dev: u32) -> bool {
        self.sysctl.v4_all.shared_media != 0
            || self
                .sysctl
                .v4_dev
                .get(&dev)
                .is_some_and(|c| c.shared_media != 0)
    }

    /// `fib_validate_source`: `Err(EINVAL)` for a martian or rp_filter failure, else
    /// whether the route back to the source is direct (its nexthop's scope is host:
    /// the source is on a connected subnet), which `__mkroute_input` needs to decide
    /// on a redirect, and the realms tag (`itag`) of the route back.
    pub(crate) fn fib_validate_source(
        &self,
        fl_in: &Flow4,
        src: u32,
        dst: u32,
        oif: u32,
        dev: u32,
    ) -> Result<(bool, u32), Errno> {
        let r = self.rpfilter(dev);
        if r == 0 && !self.tclassid_users4() && (dev != oif || !self.tx_redirects4(dev)) {
            if self.accept_local(dev) {
                return Ok((false, 0));
            }
            if !(self.custom_local_routes4 || self.custom_rules4) {
                if self.holds_local4(src) {
                    return Err(Errno::EINVAL);
                }
                return Ok((false, 0));
            }
        }
        // __fib_validate_source
        let mut fl = Flow4 {
            dst: src,
            src: dst,
            oif: 0,
            iif: if oif != 0 { oif } else { 1 },
            // the packet's mark with `src_valid_mark` (random seed sysctls 528)
            mark: if self.src_valid_mark4(dev) {
                fl_in.mark
            } else {
                0
            },
            tos: fl_in.tos,
            proto: fl_in.proto,
            sport: fl_in.dport,
            dport: fl_in.sport,
            uid: 0,
            scope: scope::UNIVERSE,
        };
        let no_addr = self.addrs4(dev).is_empty();
        let last_resort = |r: i32| {
            if r != 0 {
                Err(Errno::EINVAL)
            } else {
                Ok((false, 0))
            }
        };
        // FIB_RES_NHC(res)->nhc_scope >= RT_SCOPE_HOST
        let direct = |res: &crate::fib4::FibResult4<'_>| {
            res.route
                .info
                .nhs
                .get(res.nh_sel)
                .is_some_and(|n| n.scope >= scope::HOST)
        };
        let res = match self.fib4_lookup(&fl, false) {
            Ok(res) => res,
            Err(_) => return last_resort(r),
        };
        if res.route.rtype != RouteType::Unicast
            && (res.route.rtype != RouteType::Local || !self.accept_local(dev))
        {
            return Err(Errno::EINVAL);
        }
        // fib_combine_itag: the route back's nexthop realm (its "to" half as "from"),
        // else the answering rule's; then the rule's "from" as "to"
        let nh_realm = res.route.info.nhs.get(res.nh_sel).map_or(0, |n| n.realm);
        let mut itag = nh_realm << 16;
        if itag == 0 {
            itag = res.tclassid << 16;
        }
        itag |= res.tclassid >> 16;
        let dev_match = res.route.info.nhs.iter().any(|n| n.dev == dev)
            || (res.route.rtype == RouteType::Local && dev == 1);
        if dev_match {
            return Ok((direct(&res), itag));
        }
        if no_addr {
            return last_resort(r);
        }
        if r == 1 {
            return Err(Errno::EINVAL);
        }
        fl.oif = dev;
        let direct = self
            .fib4_lookup(&fl, true)
            .is_ok_and(|res| res.route.rtype == RouteType::Unicast && direct(&res));
        Ok((direct, itag))
    }

    /// Whether the kernel marks an IPv4 input route `RTCF_DOREDIRECT` (`ip route get`
    /// prints `cache <redirect>`; `__mkroute_input`): a forward out of its input
    /// device, `send_redirects` on, a source the route back reaches directly (what
    /// [`fib_validate_source`](Self::route_input4) found), and shared media or the
    /// source and the gateway on one subnet of the device (`inet_addr_onlink`).
    pub fn input_redirect4(&self, a: &RouteAnswer4) -> bool {
        let dev = a.flow.iif;
        let forwarded = a.rtype == RouteType::Unicast || a.bc_forwarded;
        if !a.input || !forwarded || a.dev != dev || !self.tx_redirects4(dev) {
            return false;
        }
        let Some(nh) = a.nexthop() else {
            return false;
        };
        if !self
            .fib_validate_source(&a.flow, a.flow.src, a.flow.dst, dev, dev)
            .is_ok_and(|(direct, _)| direct)
        {
            return false;
        }
        if self.shared_media4(dev) {
            return true;
        }
        // the chosen nexthop's IPv4 gateway (0 for none or an IPv6 one)
        let gw = match nh.gw {
            Some(Gateway::V4(g)) => g,
            _ => 0,
        };
        // inet_ifa_match: the address inside the ifa's subnet (`ifa_address`, which is
        // the peer for a peer address, masked)
        self.addrs4(dev).iter().any(|ifa| {
            let mask = u32::MAX.checked_shl(32 - u32::from(ifa.plen)).unwrap_or(0);
            let on = |x: u32| x == 0 || (x ^ ifa.address) & mask == 0;
            on(a.flow.src) && on(gw)
        })
    }

    /// The ports an IPv4 input route sees: the kernel builds the query's packet with
    /// a TCP or UDP header only, and the rules' flow dissection (and the multipath
    /// hash, and the source check) read no ports for any other protocol (conformance
    /// scenario 231). IPv6 input queries keep their ports.
    pub(crate) fn input_ports4(fl: &mut Flow4) {
        if fl.proto != 6 && fl.proto != 17 {
            fl.sport = 0;
            fl.dport = 0;
        }
    }

    /// `fib4_rules_early_flow_dissect`: an input route dissects its packet for the
    /// rules only while a rule needs it (the count `fldissect4`); otherwise
    /// `ip_route_input_slow` (and `__fib_validate_source`) look up with protocol and
    /// ports 0, whatever the query gave. The multipath hash dissects the packet itself.
    pub(crate) fn input_dissect4(&self, fl: &mut Flow4) {
        if self.fldissect4 == 0 {
            fl.proto = 0;
            fl.sport = 0;
            fl.dport = 0;
        }
    }

    /// IPv4 input route: `ip route get DST from S iif D`.
    pub fn route_input4<'a>(&'a self, flow: &Flow4) -> Result<RouteGet4<'a>, Errno> {
        let dev = flow.iif;
        let l = self.links.get(&dev).ok_or(Errno::ENODEV)?;
        let _ = l;
        // ip_route_input_rcu: no IPv4 state on the device, no route
        if !self.has_idev4(dev) {
            return Err(Errno::EINVAL);
        }
        let (saddr, daddr) = (flow.src, flow.dst);
        let mut fl = *flow;
        fl.oif = 0;
        fl.uid = 0;
        fl.scope = scope::UNIVERSE;
        Self::input_ports4(&mut fl);
        let hash_fl = fl;
        self.input_dissect4(&mut fl);
        let localnet = self.route_localnet(dev);
        if v4::is_multicast(saddr) || v4::is_lbcast(saddr) {
            return Err(Errno::EINVAL);
        }
        // `table`: the broadcast route's table when the FIB answered (local once the
        // tables are unmerged, main while merged), 0 for the limited broadcast, which
        // the kernel accepts before any lookup (`res->table` stays NULL)
        // `fib`: the broadcast route itself, which `fibmatch` reports (none for the
        // limited broadcast)
        type Fib<'f> = Option<(&'f crate::route::Route4, crate::prefix::Prefix4)>;
        let brd = |this: &Self, table: u32, fib: Fib<'a>| -> Result<RouteGet4<'a>, Errno> {
            // brd_input -> local_input: the route's realms are the source check's tag
            let mut itag = 0;
            if saddr != 0 {
                itag = this.fib_validate_source(&fl, saddr, 0, 0, dev)?.1;
            }
            Ok(RouteGet4 {
                rtype: RouteType::Broadcast,
                gateway: None,
                dev: 1,
                prefsrc: None,
                table,
                metrics: &crate::route::NO_METRICS,
                input: true,
                dscp: fib.map_or(0, |(r, _)| r.tos),
                fib,
                flow: fl,
                requested_src: 0,
                requested_dst: fl.dst,
                realms: itag,
                bc_forwarded: false,
                nh_sel: None,
            })
        };
        if v4::is_multicast(daddr) {
            // ip_route_input_mc: only groups the device joined (224.0.0.1 on an up device)
            if !self.dev_has_mc(dev, daddr) {
                return Err(Errno::EINVAL);
            }
            if v4::is_loopback(saddr) && !localnet {
                return Err(Errno::EINVAL);
            }
            let mut itag = 0;
            if saddr == 0 {
                if !v4::is_local_multicast(daddr) {
                    return Err(Errno::EINVAL);
                }
            } else {
                itag = self.fib_validate_source(&fl, saddr, 0, 0, dev)?.1;
            }
            return Ok(RouteGet4 {
                rtype: RouteType::Multicast,
                gateway: None,
                dev: 1,
                prefsrc: None,
                table: 0,
                metrics: &crate::route::NO_METRICS,
                input: true,
                fib: None,
                flow: fl,
                requested_src: 0,
                requested_dst: fl.dst,
                realms: itag,
                bc_forwarded: false,
                nh_sel: None,
                dscp: 0,
            });
        }
        if v4::is_lbcast(daddr) || (saddr == 0 && daddr == 0) {
            return brd(self, 0, None);
        }
        // 6.18 accepts 0.0.0.0/8 as unicast; only the zero address itself is martian
        if saddr == 0 || daddr == 0 {
            return Err(Errno::EINVAL);
        }
        if v4::is_loopback(daddr) {
            if !localnet {
                return Err(Errno::EINVAL);
            }
        } else if v4::is_loopback(saddr) && !localnet {
            return Err(Errno::EINVAL);
        }
        let no_route = |err: Errno| -> Result<RouteGet4<'_>, Errno> { Err(err) };
        let res = match self.fib4_lookup(&fl, false) {
            Ok(r) => r,
            Err(e) => {
                if !self.forwarding4(dev) {
                    return no_route(Errno::EHOSTUNREACH);
                }
                return no_route(e);
            }
        };
        // IN_DEV_BFORWARD: a directed broadcast is forwarded (make_route), whatever
        // `forwarding` says, when `bc_forwarding` is on for `all` and the device
        let bc_forwarded = res.route.rtype == RouteType::Broadcast && self.bc_forwarding4(dev);
        if res.route.rtype == RouteType::Broadcast && !bc_forwarded {
            return brd(self, res.table, Some((res.route, res.prefix)));
        }
        if res.route.rtype == RouteType::Local {
            let (_, itag) = self.fib_validate_source(&fl, saddr, daddr, 0, dev)?;
            // local_input makes the route without the FIB entry's metrics (which only
            // `fibmatch` shows; conformance scenario 176), its realms the source
            // check's tag alone
            return Ok(RouteGet4 {
                rtype: RouteType::Local,
                gateway: None,
                dev: 1,
                prefsrc: None,
                table: res.table,
                metrics: &crate::route::NO_METRICS,
                input: true,
                fib: Some((res.route, res.prefix)),
                flow: fl,
                requested_src: 0,
                requested_dst: fl.dst,
                realms: itag,
                bc_forwarded: false,
                nh_sel: None,
                dscp: res.dscp,
            });
        }
        if !bc_forwarded {
            if !self.forwarding4(dev) {
                return no_route(Errno::EHOSTUNREACH);
            }
            if res.route.rtype != RouteType::Unicast {
                return Err(Errno::EINVAL);
            }
        }
        let mut res = res;
        if res.route.info.nhs.len() > 1 {
            let h = crate::ecmp::multipath_hash4(self, &hash_fl);
            // ip_mkroute_input passes no flow to fib_select_multipath: no leg is
            // preferred for its source address (scenario 496)
            let unsourced = Flow4 { src: 0, ..fl };
            crate::ecmp::select_multipath4(self, &mut res, h, &unsourced);
        }
        let nh = &res.route.info.nhs[res.nh_sel];
        // __mkroute_input: the way out needs IPv4 state too
        if !self.has_idev4(nh.dev) {
            return Err(Errno::EINVAL);
        }
        let (_, itag) = self.fib_validate_source(&fl, saddr, daddr, nh.dev, dev)?;
        let gateway = if nh.gw.is_some() && nh.scope == scope::LINK {
            nh.gw
        } else {
            None
        };
        Ok(RouteGet4 {
            rtype: res.route.rtype,
            gateway,
            dev: nh.dev,
            prefsrc: None,
            table: res.table,
            metrics: &res.route.info.metrics,
            input: true,
            fib: Some((res.route, res.prefix)),
            flow: fl,
            requested_src: 0,
            requested_dst: fl.dst,
            realms: class_tag(nh.realm, res.tclassid, itag),
            bc_forwarded,
            nh_sel: Some(res.nh_sel),
            dscp: res.dscp,
        })
    }

    /// `ip route get` for IPv4 (output, or input when `flow.iif != 0`).
    pub fn route_get4(&self, flow: &Flow4) -> Result<RouteGet4<'_>, Errno> {
        let mut fl = *flow;
        fl.tos &= 0xfc;
        let mut r = if fl.iif != 0 {
            self.route_input4(&fl)
        } else {
            self.route_output4(&fl)
        }?;
        r.requested_src = flow.src;
        Ok(r)
    }
}

/// `RTCF_LOCAL`.
const RTCF_LOCAL: u32 = 0x8000_0000;

/// The dst entry a route answer was given as (`rtable`, `rt6_info`), as
/// `rtnl_put_cacheinfo` reports it in `RTA_CACHEINFO` (`ip -s route get`): the
/// references held on it while the answer is filled (`rta_clntref`) and when it was
/// made (`dst->lastuse`, which no lookup moves for the routes a query meets: its
/// age is `rta_lastuse`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DstUse {
    /// `rta_clntref`: the query's own reference, and the cache's when a nexthop keeps
    /// the route (an input query that finds the route cached takes none of its own).
    pub users: u32,
    /// When the dst was made, on [`Netns::now_ms`]'s clock.
    pub made_ms: u64,
}

/// An owned copy of an IPv4 route answer (for front ends that keep it while changing the
/// namespace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteAnswer4 {
    /// `rt_type`.
    pub rtype: RouteType,
    /// Gateway, when the route uses one.
    pub gateway: Option<Gateway>,
    /// Output device.
    pub dev: u32,
    /// Preferred source chosen (output lookups).
    pub prefsrc: Option<u32>,
    /// Table id (0 when no table was involved).
    pub table: u32,
    /// Metrics of the route.
    pub metrics: Metrics,
    /// Whether this is an input route.
    pub input: bool,
    /// The FIB entry that matched, with its prefix.
    pub fib: Option<(Route4, crate::prefix::Prefix4)>,
    /// The flow as finally used.
    pub flow: Flow4,
    /// The source the query asked for.
    pub requested_src: u32,
    /// The destination the query asked for (see [`RouteGet4::requested_dst`]).
    pub requested_dst: u32,
    /// The uid the kernel reports with the answer (`RTA_UID`): the query's own, else,
    /// for output lookups, the caller's (`flow.uid`); none for an input lookup that
    /// named no uid, and none for the uid 4294967295 (`INVALID_UID`, which
    /// `rt_fill_info` leaves out). Set by the caller that knows the query.
    pub uid: Option<u32>,
    /// The route's realms (`dst.tclassid`, `RTA_FLOW`).
    pub realms: u32,
    /// `RTCF_NOTIFY` on the route (`ip route get ... notify`, and input answers sharing
    /// a cached route it marked: [`Netns::route_get4_notify`]). Set by the caller that
    /// knows the query; false from the lookups.
    pub notify: bool,
    /// See [`RouteGet4::bc_forwarded`].
    pub bc_forwarded: bool,
    /// See [`RouteGet4::nh_sel`].
    pub nh_sel: Option<usize>,
    /// See [`RouteGet4::dscp`].
    pub dscp: u8,
    /// The dst the answer was given as (see [`DstUse`]); `None`: one made for the
    /// query alone (one reference, made now). Set by the route cache
    /// ([`Netns::route_get4_output_cache`], [`Netns::route_get4_notify`]).
    pub dst_use: Option<DstUse>,
}

impl RouteAnswer4 {
    /// The encapsulation the answer carries (`dst.lwtstate`): its nexthop's, copied by
    /// `rt_set_nexthop` when the route keeps its fib_info, which a multicast output
    /// route through a prefix shorter than 4 drops, as do multicast input routes; a
    /// local or broadcast input route has it only when cached (`local_input`: a fib
    /// entry and no source tag; a broadcast is never cached while `bc_forwarding` is on
    /// for `all` in `ns`) (conformance scenario 261, random seeds 23072, 40084).
    pub fn encap(&self, ns: &Netns) -> Option<&std::sync::Arc<crate::encap::Encap>> {
        let keeps_fi = match self.rtype {
            RouteType::Multicast => {
                !self.input && self.fib.as_ref().is_some_and(|(_, p)| p.len >= 4)
            }
            RouteType::Broadcast if self.bc_forwarded => true,
            RouteType::Broadcast if self.input && ns.sysctl.v4_all.bc_forwarding != 0 => false,
            RouteType::Local | RouteType::Broadcast if self.input => self.realms == 0,
            _ => true,
        };
        self.nexthop()
            .filter(|_| keeps_fi)
            .and_then(|n| n.encap.as_ref())
    }

    /// The nexthop of the matched entry the answer went through (`FIB_RES_NHC`): the
    /// only one, or the path with the answer's device and gateway.
    pub fn nexthop(&self) -> Option<&crate::route::Nh4> {
        let nhs = &self.fib.as_ref()?.0.info.nhs;
        if nhs.len() == 1 {
            return nhs.first();
        }
        // the path the lookup chose; legs may share a device and gateway
        if let Some(n) = self
            .nh_sel
            .and_then(|i| nhs.get(i))
            .filter(|n| n.dev == self.dev)
        {
            return Some(n);
        }
        nhs.iter()
            .find(|n| n.dev == self.dev && (self.gateway.is_none() || n.gw == self.gateway))
    }
}

impl RouteGet4<'_> {
    /// An owned copy.
    pub fn to_owned_answer(&self) -> RouteAnswer4 {
        RouteAnswer4 {
            rtype: self.rtype,
            gateway: self.gateway,
            dev: self.dev,
            prefsrc: self.prefsrc,
            table: self.table,
            metrics: self.metrics.clone(),
            input: self.input,
            fib: self.fib.map(|(r, p)| (r.clone(), p)),
            flow: self.flow,
            requested_src: self.requested_src,
            requested_dst: self.requested_dst,
            uid: (!self.input && self.flow.uid != u32::MAX).then_some(self.flow.uid),
            realms: self.realms,
            notify: false,
            bc_forwarded: self.bc_forwarded,
            nh_sel: self.nh_sel,
            dscp: self.dscp,
            dst_use: None,
        }
    }
}

/// The gateway `inet_select_addr` is given for a nexthop (`fib_nh_gw4`): an IPv6
/// gateway shares its storage, so its first four bytes are read as an IPv4 address
/// (conformance scenario 452).
pub(crate) fn nh_gw4(gw: Option<Gateway>) -> u32 {
    match gw {
        Some(Gateway::V4(g)) => g,
        Some(Gateway::V6(g)) => (g >> 96) as u32,
        None => 0,
    }
}
