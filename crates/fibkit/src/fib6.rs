//! IPv6 FIB: `ip6_route_add`/`ip6_route_del`, address configuration (`addrconf`), and the
//! `ip6_pol_route` lookup with `rt6_select`, backtracking and source-specific routes.

use crate::addr::{ifa, Addr6, Lifetime};
use crate::error::{Errno, Error, Result};
use crate::fib4::{NhCfg, NlFlags, RouteOp};
use crate::link::LinkKind;
use crate::netns::{DadRun, Netns, NudState};
use crate::prefix::{v6, Prefix6};
use crate::route::{
    nhflags, proto, rtf, table as tid, Gateway, Metrics, Nh6, Pref, Route6, RouteType,
};

/// Metric of address-derived routes (`IP6_RT_PRIO_ADDRCONF`).
pub const PRIO_ADDRCONF: u32 = 256;
/// Default metric of user routes (`IP6_RT_PRIO_USER`).
pub const PRIO_USER: u32 = 1024;

/// An IPv6 route request (`struct fib6_config`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route6Cfg {
    /// Table (0 = main).
    pub table: u32,
    /// Destination prefix (host bits are masked).
    pub dst: Prefix6,
    /// Source prefix (`from`).
    pub src: Prefix6,
    /// Type.
    pub rtype: RouteType,
    /// Protocol (0: boot on add, any on delete).
    pub proto: u8,
    /// Metric (0: default 1024 on add, any on delete).
    pub metric: u32,
    /// Router preference.
    pub pref: Pref,
    /// Preferred source.
    pub prefsrc: Option<u128>,
    /// Single nexthop.
    pub nh: NhCfg,
    /// Multipath nexthops.
    pub multipath: Vec<NhCfg>,
    /// Metrics.
    pub metrics: Metrics,
    /// Expires in seconds from now.
    pub expires: Option<u64>,
    /// TOS given (IPv6 rejects it).
    pub tos: u8,
    /// Extra `RTF_*` flags (kernel-internal callers).
    pub flags: u32,
    /// Nexthop object id.
    pub nh_id: u32,
    /// The request carried `RTA_NH_ID` (an id of 0 included, which iproute2 sends for
    /// `nhid 0`): `rtm_to_fib6_config` refuses it beside a nexthop specification by its
    /// presence, where IPv4 goes by its value.
    pub nh_id_attr: bool,
    /// Set by [`Netns::route6_modify`] for a request of table 0 (`unspec`), which
    /// goes to `main`: its gateway is then checked through the rules
    /// (`ip6_route_check_nh` skips the table lookup for `fc_table` 0; scenario 494).
    pub table_unspec: bool,
    /// `fc_ignore_dev_down`: the kernel's own local and anycast routes of addresses
    /// are made on a down device; a user's are refused (ENETDOWN).
    pub ignore_dev_down: bool,
}

impl Default for Route6Cfg {
    fn default() -> Self {
        Route6Cfg {
            table: tid::MAIN,
            dst: Prefix6::default(),
            src: Prefix6::default(),
            rtype: RouteType::Unicast,
            proto: proto::BOOT,
            metric: 0,
            pref: Pref::Medium,
            prefsrc: None,
            nh: NhCfg::default(),
            multipath: Vec::new(),
            metrics: Metrics::default(),
            expires: None,
            tos: 0,
            flags: 0,
            nh_id: 0,
            nh_id_attr: false,
            table_unspec: false,
            ignore_dev_down: false,
        }
    }
}

/// The result of an IPv6 table lookup: the chosen entry.
#[derive(Clone, Debug)]
pub struct FibResult6<'a> {
    /// The selected entry (the chosen ECMP leg).
    pub route: &'a Route6,
    /// The entry `rt6_select` matched, before a multipath path was chosen: its flags
    /// (the router preference) are the answer's (`res->fib6_flags`; conformance
    /// scenario 320).
    pub matched: &'a Route6,
    /// Table id.
    pub table: u32,
}

/// Lookup strictness flags (`RT6_LOOKUP_F_*`).
pub(crate) mod strict {
    pub const IFACE: u32 = 0x1;
    pub const REACHABLE: u32 = 0x2;
    pub const HAS_SADDR: u32 = 0x8;
    pub const IGNORE_LINKSTATE: u32 = 0x40;
}

const NUD_FAIL_HARD: i32 = -3;
const NUD_FAIL_PROBE: i32 = -2;

fn qualify_for_ecmp(r: &Route6) -> bool {
    r.flags & rtf::ADDRCONF == 0 && r.nh_id == 0 && r.nh.gw.is_some()
}

impl Netns {
    /// The IPv6 tables.
    pub fn tables6(&self) -> impl Iterator<Item = &crate::table::Table6> {
        self.tables6.values()
    }

    /// An IPv6 table.
    pub fn table6(&self, id: u32) -> Option<&crate::table::Table6> {
        self.tables6.get(&id)
    }

    /// The IPv6 addresses of a device in the kernel's list order (global scope first).
    pub fn addrs6(&self, dev: u32) -> &[Addr6] {
        self.addrs6.get(&dev).map(Vec::as_slice).unwrap_or(&[])
    }

    pub(crate) fn new_table6(&mut self, id: u32) {
        if !self.tables6.contains_key(&id) {
            self.table_seq += 1;
            let mut t = crate::table::Table6::new(id);
            t.created = self.table_seq;
            self.tables6.insert(id, t);
        }
    }

    /// Creation sequence number of an IPv6 table (0 if absent).
    pub fn table6_created(&self, id: u32) -> u64 {
        self.tables6.get(&id).map_or(0, |t| t.created)
    }

    /// Whether IPv6 routes through `dev` are ignored while its link is down
    /// (`ip6_ignore_linkdown`): the device's own `ignore_routes_with_linkdown`, which a
    /// write to `all` sets on every device (conformance scenario 343); a device without
    /// IPv6 state ignores them.
    pub fn ignore_linkdown6(&self, dev: u32) -> bool {
        self.sysctl
            .v6_dev
            .get(&dev)
            .is_none_or(|c| c.ignore_routes_with_linkdown != 0)
    }

    fn forwarding6(&self) -> bool {
        self.sysctl.v6_all.forwarding != 0
    }

    /// Whether `a` is assigned to `dev` (or to any device when `dev` is `None`).
    pub(crate) fn chk_addr6(&self, a: u128, dev: Option<u32>) -> bool {
        self.addrs6
            .iter()
            .filter(|(d, _)| dev.is_none_or(|x| x == **d))
            .any(|(_, v)| v.iter().any(|x| x.addr == a))
    }

    // ----------------------------------------------------------- changes

    /// `ip -6 route add|change|replace|prepend|append|del`.
    pub fn route6_modify(&mut self, op: RouteOp, cfg: &Route6Cfg) -> Result<()> {
        let mut cfg = cfg.clone();
        if cfg.table == 0 {
            cfg.table = tid::MAIN;
            cfg.table_unspec = true;
        }
        if cfg.tos != 0 {
            return Err(Error::msg(
                Errno::EINVAL,
                "Invalid dsfield (tos): option not available for IPv6",
            ));
        }
        // rtm_to_fib6_config (an id attribute of 0 is refused beside a specification
        // too), then inet6_rtm_delroute
        // (a gateway of the other family is RTA_VIA, refused below, not part of it;
        // conformance scenario 478)
        let spec = cfg.nh.dev != 0
            || matches!(cfg.nh.gw, Some(Gateway::V6(_)))
            || cfg.nh.encap.is_some()
            || !cfg.multipath.is_empty();
        op.check_nh_id(
            cfg.nh_id,
            cfg.nh_id_attr || cfg.nh_id != 0,
            spec,
            self.nexthops.contains_key(&cfg.nh_id),
        )?;
        // rtm_to_fib6_config refuses the request's RTA_VIA; a multipath leg's is never
        // looked at (ip6_route_multipath_add and _del read RTA_GATEWAY only), so such
        // a leg has no gateway of its own
        if cfg.nh.via_unsupported || cfg.nh.gw.is_some_and(|g| matches!(g, Gateway::V4(_))) {
            return Err(Error::msg(
                Errno::EINVAL,
                "IPv6 does not support RTA_VIA attribute",
            ));
        }
        for n in &mut cfg.multipath {
            if matches!(n.gw, Some(Gateway::V4(_))) {
                n.gw = None;
            }
        }
        if cfg.dst.len > 128 {
            return Err(Error::msg(Errno::EINVAL, "Invalid prefix length"));
        }
        // rtm_to_fib6_multipath_config: for a new route every leg needs a gateway, its
        // own or the request's (a reject type or `onlink` is no exception), checked
        // over all legs before any is made (conformance scenario 405)
        if op != RouteOp::Delete
            && cfg.nh.gw.is_none()
            && cfg.multipath.iter().any(|n| n.gw.is_none())
        {
            return Err(Error::msg(
                Errno::EINVAL,
                "Device only routes can not be added for IPv6 using the multipath API",
            ));
        }
        // lwtunnel_valid_encap_type_attr of the legs, after their gateways
        if op != RouteOp::Delete
            && cfg.multipath.iter().any(|n| {
                matches!(
                    n.encap.as_deref(),
                    Some(crate::encap::Encap::Unsupported { .. })
                )
            })
        {
            return Err(Error::msg(
                Errno::EOPNOTSUPP,
                "lwt encapsulation type not supported",
            ));
        }
        cfg.dst = Prefix6::new(cfg.dst.addr, cfg.dst.len);
        cfg.src = Prefix6::new(cfg.src.addr, cfg.src.len);
        // rtm_to_fib6_config: `addrconf_timeout_fixup` reads 0xffffffff as infinite,
        // which is no expiry at all (no RTF_EXPIRES)
        if cfg.expires == Some(u64::from(u32::MAX)) {
            cfg.expires = None;
        }
        if op == RouteOp::Delete {
            let (r, changed) = if cfg.multipath.is_empty() {
                let r = self.ip6_route_del(&cfg, &cfg.nh, true);
                let changed = r.is_ok();
                (r, changed)
            } else {
                self.ip6_route_multipath_del(&cfg)
            };
            self.forget_gateways_in(cfg.dst);
            if changed {
                self.route_only = true;
                self.bump();
            }
            return r;
        }
        if cfg.metric == 0 {
            cfg.metric = PRIO_USER;
        }
        if cfg.proto == 0 {
            cfg.proto = proto::BOOT;
        }
        let r = if cfg.nh_id != 0 {
            self.ip6_route_add_nh(&cfg, op.flags())
        } else if cfg.multipath.is_empty() {
            self.ip6_route_add(&cfg, op.flags())
        } else {
            self.ip6_route_multipath_add(&cfg, op.flags())
        };
        self.forget_gateways_in(cfg.dst);
        self.route_only = true;
        self.bump();
        r
    }

    /// A new route of request `cfg` through `nh`, with `flags`.
    fn route6_new(&self, cfg: &Route6Cfg, flags: u32, nh: Nh6) -> Route6 {
        Route6 {
            dst: cfg.dst,
            src: cfg.src,
            rtype: cfg.rtype,
            table: cfg.table,
            proto: cfg.proto,
            metric: cfg.metric,
            pref: cfg.pref,
            prefsrc: None,
            flags,
            metrics: crate::route::normalize_metrics(&cfg.metrics),
            // fib6_set_expires(rt, jiffies + clock_t_to_jiffies(expires)): on the millisecond
            // clock, from the moment of the request
            expires: cfg
                .expires
                .map(|e| self.ms_clock.saturating_add(e.saturating_mul(1000))),
            nh,
            nh_id: cfg.nh_id,
            sibling_group: 0,
            nh_own_type: None,
            serial: crate::route::RouteSerial::next(),
        }
    }

    /// `ip6_route_info_create`: validate and build one fib6_info.
    fn ip6_route_info_create(&mut self, cfg: &Route6Cfg, nh: &NhCfg) -> Result<Route6> {
        if cfg.nh_id != 0 {
            return Err(Error::msg(Errno::EINVAL, "Nexthop id does not exist"));
        }
        self.new_table6(cfg.table);
        // ip_fib_metrics_init, before the nexthop is built
        crate::route::metrics_check(&cfg.metrics)?;
        let flags = route6_flags(cfg);
        let mut rt = self.route6_new(
            cfg,
            flags,
            Nh6 {
                gw: None,
                dev: 0,
                weight: nh.weight.max(1),
                flags: 0,
                encap: nh.encap.clone(),
            },
        );
        // fib6_nh_init
        let mut dev = if nh.dev != 0 {
            // the device and its IPv6 state (none below an MTU of 1280)
            if !self.links.contains_key(&nh.dev) || !self.has_idev6(nh.dev) {
                return Err(Error::new(Errno::ENODEV));
            }
            Some(nh.dev)
        } else {
            None
        };
        if nh.flags & nhflags::ONLINK != 0 {
            let Some(d) = dev else {
                return Err(Error::msg(
                    Errno::ENODEV,
                    "Nexthop device required for onlink",
                ));
            };
            if !self.links[&d].up && !self.restore_mode {
                return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
            }
            rt.nh.flags |= nhflags::ONLINK;
        }
        let dst_type = v6::addr_type(cfg.dst.addr);
        let is_lo = |d: Option<u32>| d == Some(1);
        // a route through lo is promoted to a reject one only without a gateway: a
        // gateway is validated first (and the loopback refused there; conformance
        // scenario 279)
        if flags & rtf::REJECT != 0
            || (is_lo(dev)
                && nh.gw.is_none()
                && dst_type & v6::LOOPBACK == 0
                && flags & (rtf::ANYCAST | rtf::LOCAL) == 0)
        {
            // a reject type keeps no encapsulation (a route through lo promoted to a
            // reject one does: conformance scenario 262)
            if flags & rtf::REJECT != 0 {
                rt.nh.encap = None;
            } else if !self.restore_mode {
                // fib6_nh_init skips its device checks for a reject type only: a
                // route through lo needs lo's IPv6 on and lo up (a prefix route of an
                // address on a down lo is not made; random seed 40186)
                if self.ipv6_disabled(1) {
                    return Err(Error::msg(
                        Errno::EACCES,
                        "IPv6 is disabled on nexthop device",
                    ));
                }
                if !self.links.get(&1).is_some_and(|l| l.up) && !cfg.ignore_dev_down {
                    return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
                }
            }
            // `rt->fib6_flags = RTF_REJECT | RTF_NONEXTHOP`: an assignment, so the
            // router preference and the expiry flag are dropped with every other flag
            // (conformance scenario 195)
            rt.flags = rtf::REJECT | rtf::NONEXTHOP;
            rt.pref = Pref::Medium;
            rt.expires = None;
            rt.nh.dev = 1;
        } else {
            if let Some(Gateway::V6(gw)) = nh.gw {
                self.ip6_validate_gw_cached(cfg, nh, gw, &mut dev)?;
                rt.nh.gw = Some(gw);
                rt.flags |= rtf::GATEWAY;
            } else if nh.gw.is_some() {
                return Err(Error::msg(Errno::EINVAL, "Invalid gateway address"));
            }
            let Some(d) = dev else {
                return Err(Error::new(Errno::ENODEV));
            };
            // fib6_nh_init: `!idev || idev->cnf.disable_ipv6` (a device below an MTU of
            // 1280 has no IPv6 state: conformance scenario 394)
            let disabled = self.ipv6_unusable(d);
            if disabled && !self.restore_mode {
                return Err(Error::msg(
                    Errno::EACCES,
                    "IPv6 is disabled on nexthop device",
                ));
            }
            let l = &self.links[&d];
            if (!l.up || disabled) && self.restore_mode {
                // restore mode: a path of a multipath route whose device went down, or
                // had IPv6 disabled, since it was added (rt6_sync_down_dev kept it,
                // dead)
                rt.nh.flags |= nhflags::DEAD | nhflags::LINKDOWN;
            } else if !l.up && !cfg.ignore_dev_down {
                return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
            }
            if flags & (rtf::LOCAL | rtf::ANYCAST) == 0 && !l.carrier {
                rt.nh.flags |= nhflags::LINKDOWN;
            }
            rt.nh.dev = d;
            // fib_nh_common_init: the encapsulation is built once the device passed
            if let Some(e) = &rt.nh.encap {
                if !self.restore_mode {
                    e.check(true)?;
                }
            }
        }
        if let Some(ps) = cfg.prefsrc {
            if ps != 0 {
                if !self.chk_addr6_any_strict(ps, rt.nh.dev) && !self.restore_mode {
                    return Err(Error::msg(Errno::EINVAL, "Invalid source address"));
                }
                rt.prefsrc = Some(ps);
            }
        }
        Ok(rt)
    }

    fn chk_addr6_any_strict(&self, a: u128, dev: u32) -> bool {
        // ipv6_chk_addr(net, addr, dev, 0): an address on any device, but one of link
        // or host scope (a link-local address, the loopback's ::1) only on `dev`; and
        // never a tentative address (one kept over a link down is tentative until the
        // link is up again; conformance scenario 312)
        use crate::route::scope;
        self.addrs6.iter().any(|(d, v)| {
            v.iter().any(|x| {
                x.addr == a
                    && (x.flags & crate::addr::ifa::TENTATIVE == 0
                        || x.flags & crate::addr::ifa::OPTIMISTIC != 0)
                    && (*d == dev || !matches!(x.scope, scope::LINK | scope::HOST))
            })
        })
    }

    /// After a route change of destination `dst` (whatever its outcome): gateway
    /// validations look gateways up, so those inside `dst` may now resolve otherwise
    /// (including a validation the change itself just remembered).
    fn forget_gateways_in(&mut self, dst: Prefix6) {
        if !self.nh6_cache.is_empty() {
            self.nh6_cache.retain(|(k, _)| !dst.contains(k.0));
        }
    }

    /// [`Self::ip6_validate_gw`], remembered during a bulk load (a full table has
    /// hundreds of thousands of routes through a handful of gateways).
    fn ip6_validate_gw_cached(
        &mut self,
        cfg: &Route6Cfg,
        nh: &NhCfg,
        gw: u128,
        dev: &mut Option<u32>,
    ) -> Result<()> {
        // a preferred source takes part in the gateway's table lookup: not remembered
        if !self.deferring || cfg.prefsrc.is_some() || self.restore_mode {
            return self.ip6_validate_gw(cfg, nh, gw, dev);
        }
        let key = (
            gw,
            dev.unwrap_or(0),
            nh.flags,
            if cfg.table_unspec { 0 } else { cfg.table },
        );
        if let Some((_, r)) = self.nh6_cache.iter().find(|(k, _)| *k == key) {
            *dev = Some(r.clone()?);
            return Ok(());
        }
        let r = self.ip6_validate_gw(cfg, nh, gw, dev);
        if self.nh6_cache.len() < crate::netns::NH6_CACHE_MAX {
            // success always leaves the device set
            let outcome = r
                .clone()
                .and_then(|()| dev.ok_or_else(|| Error::new(Errno::ENODEV)));
            self.nh6_cache.push((key, outcome));
        }
        r
    }

    pub(crate) fn ip6_validate_gw(
        &self,
        cfg: &Route6Cfg,
        nh: &NhCfg,
        gw: u128,
        dev: &mut Option<u32>,
    ) -> Result<()> {
        if self.restore_mode && dev.is_some_and(|d| self.links.contains_key(&d)) {
            // restore mode: the kernel accepted this gateway on this device
            return Ok(());
        }
        let gwa_type = v6::addr_type(gw);
        let skip_dev = gwa_type & v6::LINKLOCAL == 0;
        let need_addr_check = dev.is_none();
        let local_gw = |d: u32| {
            if skip_dev {
                self.chk_addr6(gw, None)
            } else {
                self.chk_addr6(gw, Some(d))
            }
        };
        if let Some(d) = *dev {
            if local_gw(d) {
                return Err(Error::msg(
                    Errno::EINVAL,
                    "Gateway can not be a local address",
                ));
            }
        }
        if gwa_type != (v6::LINKLOCAL | v6::UNICAST) {
            if gwa_type & (v6::UNICAST | v6::MAPPED) == 0 {
                return Err(Error::msg(Errno::EINVAL, "Invalid gateway address"));
            }
            if nh.flags & nhflags::ONLINK != 0 {
                // ip6_route_check_nh_onlink: a non-default, non-reject match must be a
                // unicast route through the same device
                // (ip6_nh_lookup_table: link state ignored, the preferred source as the
                // flow's source; conformance scenario 311)
                if let Some(d) = *dev {
                    let src = cfg.prefsrc.unwrap_or(0);
                    let has_saddr = if src != 0 { strict::HAS_SADDR } else { 0 };
                    let fl = Flow6 {
                        dst: gw,
                        src,
                        oif: d,
                        ..Default::default()
                    };
                    if let Ok(res) = self.fib6_table_lookup(
                        tid::MAIN,
                        d,
                        &fl,
                        strict::IGNORE_LINKSTATE | has_saddr,
                    ) {
                        // through a nexthop object the path is its first member's:
                        // rt6_nh_find_match stops at the first usable path, and
                        // fib6_select_path keeps it for a flow with an oif (random
                        // seed 50206)
                        let nh_dev = if res.route.nh_id != 0 {
                            self.nh_first_dev(res.route.nh_id)
                                .unwrap_or(res.route.nh.dev)
                        } else {
                            res.route.nh.dev
                        };
                        if res.route.flags & rtf::REJECT == 0
                            && res.route.dst.addr != 0
                            && (res.route.rtype != RouteType::Unicast || nh_dev != d)
                        {
                            return Err(Error::msg(
                                Errno::EINVAL,
                                "Nexthop has invalid gateway or device mismatch",
                            ));
                        }
                    }
                }
            } else {
                self.ip6_route_check_nh(cfg, gw, dev)?;
            }
        }
        let Some(d) = *dev else {
            return Err(Error::msg(Errno::EINVAL, "Egress device not specified"));
        };
        if d == 1 {
            return Err(Error::msg(
                Errno::EINVAL,
                "Egress device can not be loopback device for this route",
            ));
        }
        if need_addr_check && local_gw(d) {
            return Err(Error::msg(
                Errno::EINVAL,
                "Gateway can not be a local address",
            ));
        }
        Ok(())
    }

    fn ip6_route_check_nh(&self, cfg: &Route6Cfg, gw: u128, dev: &mut Option<u32>) -> Result<()> {
        let oif = dev.unwrap_or(0);
        let mut found: Option<FibResult6<'_>> = None;
        if cfg.table != 0 && !cfg.table_unspec {
            // ip6_nh_lookup_table: the route's preferred source is the flow's source, so
            // a source-specific route can resolve the gateway (conformance scenario 147)
            let src = cfg.prefsrc.unwrap_or(0);
            let has_saddr = if src != 0 { strict::HAS_SADDR } else { 0 };
            if let Ok(res) = self.fib6_table_lookup(
                cfg.table,
                oif,
                &Flow6 {
                    dst: gw,
                    src,
                    oif,
                    ..Default::default()
                },
                strict::IFACE | strict::IGNORE_LINKSTATE | has_saddr,
            ) {
                let bad = res.route.flags & rtf::REJECT != 0
                    || res.route.nh.gw.is_some()
                    || dev.is_some_and(|d| d != res.route.nh.dev);
                if !bad {
                    found = Some(res);
                }
            }
        }
        let res = match found {
            Some(r) => r,
            None => {
                let fl = Flow6 {
                    dst: gw,
                    oif,
                    ..Default::default()
                };
                let res = self
                    .fib6_lookup(&fl, strict::IFACE)
                    .map_err(|_| Error::new(Errno::EHOSTUNREACH))?;
                if res.route.flags & rtf::REJECT != 0 || res.route.nh.gw.is_some() {
                    return Err(Error::new(Errno::EHOSTUNREACH));
                }
                res
            }
        };
        match *dev {
            Some(d) => {
                if d != res.route.nh.dev {
                    return Err(Error::new(Errno::EHOSTUNREACH));
                }
            }
            None => *dev = Some(res.route.nh.dev),
        }
        Ok(())
    }

    /// `ip6_route_info_create` for a route naming a nexthop object
    /// (`ip6_route_info_create_nh`, `fib6_check_nexthop`): one entry per path of the
    /// object, siblings when a group has several, added as one route.
    fn ip6_route_add_nh(&mut self, cfg: &Route6Cfg, fl: NlFlags) -> Result<()> {
        // fib6_config_validate, before the object is looked up
        if cfg.src.len != 0 {
            return Err(Error::msg(
                Errno::EINVAL,
                "Nexthops can not be used with source routing",
            ));
        }
        // the table is made before the object is looked up (ip6_route_info_create,
        // then ip6_route_info_create_nh): it stays when the object is refused
        self.new_table6(cfg.table);
        crate::route::metrics_check(&cfg.metrics)?;
        let legs = crate::nexthop::paths6(&self.nexthops, cfg.nh_id)?;
        let Some((legs, blackhole)) = legs else {
            return Err(Error::msg(Errno::EINVAL, "Nexthop id does not exist"));
        };
        let mut base = self.route6_new(cfg, route6_flags(cfg), legs[0].clone());
        if let Some(ps) = cfg.prefsrc.filter(|&p| p != 0) {
            let d = legs[0].dev;
            if !self.chk_addr6_any_strict(ps, d) && !self.restore_mode {
                return Err(Error::msg(Errno::EINVAL, "Invalid source address"));
            }
            base.prefsrc = Some(ps);
        }
        self.sibling_seq += 1;
        let rts = crate::nexthop::routes6_from_legs(&base, &legs, blackhole, self.sibling_seq);
        let mut rts = rts.into_iter();
        let first = rts.next().expect("an object has a path");
        let key = (
            first.dst,
            first.src,
            first.metric,
            first.nh_id,
            first.sibling_group,
        );
        self.fib6_add(first, fl)?;
        let rest: Vec<Route6> = rts.collect();
        if rest.is_empty() {
            return Ok(());
        }
        // the other paths right after the first: one route
        let t = self.tables6.get_mut(&cfg.table).expect("table created");
        let list = t.entry(key.0, key.1);
        if let Some(at) = list
            .iter()
            .position(|r| r.metric == key.2 && r.nh_id == key.3 && r.sibling_group == key.4)
        {
            for (k, r) in rest.into_iter().enumerate() {
                list.insert(at + 1 + k, r);
            }
        }
        Ok(())
    }

    fn ip6_route_add(&mut self, cfg: &Route6Cfg, fl: NlFlags) -> Result<()> {
        let rt = self.ip6_route_info_create(cfg, &cfg.nh)?;
        self.fib6_add(rt, fl)
    }

    fn ip6_route_multipath_add(&mut self, cfg: &Route6Cfg, fl: NlFlags) -> Result<()> {
        let mut rts = Vec::new();
        for nh in &cfg.multipath {
            // a leg starts as a copy of the request: its device and gateway unless it
            // names its own
            let mut n = nh.clone();
            if n.dev == 0 {
                n.dev = cfg.nh.dev;
            }
            if n.gw.is_none() {
                n.gw = cfg.nh.gw;
            }
            // and the request's `onlink` beside its own (the leg's config starts as a
            // copy of the request's; conformance scenario 753)
            n.flags |= cfg.nh.flags & nhflags::ONLINK;
            let rt = self.ip6_route_info_create(cfg, &n)?;
            // ip6_route_info_append: a leg repeating an earlier one of the request fails
            // before the next leg is validated (conformance scenario 146)
            if rts.iter().any(|(r, _): &(Route6, NhCfg)| {
                r.nh.dev == rt.nh.dev && r.nh.gw == rt.nh.gw && r.nh.encap == rt.nh.encap
            }) {
                return Err(Error::new(Errno::EEXIST));
            }
            // the request ip6_route_del gets for the leg: its device as asked
            let req = NhCfg {
                dev: n.dev,
                gw: n.gw,
                ..Default::default()
            };
            rts.push((rt, req));
        }
        let mut flags = fl;
        let mut added: Vec<NhCfg> = Vec::new();
        let mut added_serials: Vec<u64> = Vec::new();
        self.mpath_partial_echo = None;
        let mut leg_cfg = cfg.clone();
        leg_cfg.nh_id = 0;
        leg_cfg.multipath = Vec::new();
        for (rt, leg) in rts {
            // each leg's own request, as ip6_route_info_create left it (the default
            // metric filled in)
            leg_cfg.metric = rt.metric;
            let serial = rt.serial.0;
            if let Err(e) = self.fib6_add(rt, flags) {
                // the legs inserted so far were notified before the undoing
                // (ip6_route_mpath_notify at add_errout)
                self.mpath_partial_echo =
                    self.mpath_notified(cfg, &added_serials, fl.append && !fl.replace);
                // ip6_route_multipath_add undoes the legs it added with ip6_route_del
                // of each leg's request, which deletes the first route that request
                // matches: a route through a nexthop object of the same metric and
                // protocol before the leg goes instead of it (conformance scenario
                // 475); what a replace took away stays away
                for leg in &added {
                    let _ = self.ip6_route_del(&leg_cfg, leg, true);
                }
                return Err(e);
            }
            added.push(leg);
            added_serials.push(serial);
            flags.excl = false;
            flags.replace = false;
            flags.create = true;
        }
        Ok(())
    }

    /// The route `ip6_route_mpath_notify` describes once legs `serials` of a multipath
    /// request are in: the first leg added, or for an append the first route of the
    /// last leg's sibling group; with its siblings after it, in the group's order.
    fn mpath_notified(
        &self,
        cfg: &Route6Cfg,
        serials: &[u64],
        append: bool,
    ) -> Option<Vec<Route6>> {
        let key = if append {
            serials.last()?
        } else {
            serials.first()?
        };
        let list = self.table6(cfg.table)?.get(cfg.dst, cfg.src)?;
        let rt = list.iter().find(|r| r.serial.0 == *key)?;
        let group: Vec<&Route6> = if rt.sibling_group == 0 {
            vec![rt]
        } else {
            list.iter()
                .filter(|r| r.sibling_group == rt.sibling_group && r.metric == rt.metric)
                .collect()
        };
        let k = if append {
            0
        } else {
            group.iter().position(|r| r.serial.0 == *key).unwrap_or(0)
        };
        Some(
            group[k..]
                .iter()
                .chain(&group[..k])
                .map(|r| (*r).clone())
                .collect(),
        )
    }

    /// What an IPv6 multipath add that failed after inserting some legs notified of
    /// them (taken once; `None` when the last request was not one).
    pub fn take_mpath_partial_echo(&mut self) -> Option<Vec<Route6>> {
        self.mpath_partial_echo.take()
    }

    /// `fib6_add` / `fib6_add_rt2node`.
    pub(crate) fn fib6_add(&mut self, rt: Route6, fl: NlFlags) -> Result<()> {
        let (table, dst) = (rt.table, rt.dst);
        let expiring = rt.flags & rtf::EXPIRES != 0;
        let born = (rt.nh_id == 0 && rt.nh.gw.is_some()).then_some(rt.serial.0);
        let r = self.fib6_add_rt2node(rt, fl);
        if let (Ok(()), Some(serial)) = (&r, born) {
            // fib6_nh_init stamped the route's nexthop as probed now
            self.rt6_note_born(serial);
        }
        if r.is_ok() {
            // fib6_add_1 takes a new serial number: the nexthops' copies are stale
            self.fib6_sernum_bump();
        }
        // fib6_start_gc: an expiring route arms the garbage collector's timer, unless
        // it is armed already
        if r.is_ok() && expiring && self.gc6_due.is_none() {
            self.gc6_due = Some(self.ms_clock + self.gc6_interval().saturating_mul(1000));
        }
        if let Err(e) = &r {
            // the add reached the destination's node (fib6_add_1 cleared the leaf of
            // one without routes of its own) and failed after: the node is keyed anew
            // (conformance scenario 318)
            if matches!(e.errno, Errno::EEXIST | Errno::ENOENT) {
                if let Some(t) = self.tables6.get_mut(&table) {
                    t.tree_add_failed(dst);
                }
            }
        }
        r
    }

    fn fib6_add_rt2node(&mut self, mut rt: Route6, fl: NlFlags) -> Result<()> {
        // a leg joining a group rebalances it (fib6_add_rt2node)
        let lb_snap = self.lb_snapshot6();
        let can_ecmp = qualify_for_ecmp(&rt);
        let seq = {
            self.sibling_seq += 1;
            self.sibling_seq
        };
        let t = self.tables6.get_mut(&rt.table).expect("table created");
        let list = t.entry(rt.dst, rt.src);
        let mut ins = 0usize;
        let mut found: Option<usize> = None;
        let mut fallback: Option<usize> = None;
        let mut sibling_of: Option<u64> = None;
        let mut i = 0;
        while i < list.len() {
            let it = &list[i];
            if it.metric == rt.metric {
                if fl.excl {
                    t.prune_node(rt.dst, rt.src);
                    return Err(Error::new(Errno::EEXIST));
                }
                if fl.replace {
                    if can_ecmp == qualify_for_ecmp(it) {
                        found = Some(i);
                        break;
                    }
                    if fallback.is_none() {
                        fallback = Some(i);
                    }
                    i += 1;
                    ins = i;
                    continue;
                }
                // rt6_duplicate_nexthop: device, gateway and encapsulation
                if it.nh.dev == rt.nh.dev
                    && it.nh.gw == rt.nh.gw
                    && it.nh.encap == rt.nh.encap
                    && it.nh_id == rt.nh_id
                {
                    if it.flags & rtf::EXPIRES == 0 {
                        return Err(Error::new(Errno::EEXIST));
                    }
                    // an expiring route takes the duplicate's expiry (none clears
                    // it) and its MTU, if it has one, then EEXIST all the same
                    let e = rt.expires;
                    let mtu = rt.metrics.get(crate::route::rtax::MTU);
                    let it = &mut list[i];
                    it.expires = e;
                    if e.is_none() {
                        it.flags &= !rtf::EXPIRES;
                    }
                    if let Some(m) = mtu {
                        it.metrics.set(crate::route::rtax::MTU, m);
                    }
                    return Err(Error::new(Errno::EEXIST));
                }
                if can_ecmp && qualify_for_ecmp(it) && sibling_of.is_none() {
                    sibling_of = Some(if it.sibling_group != 0 {
                        it.sibling_group
                    } else {
                        0
                    });
                }
            }
            if it.metric > rt.metric {
                break;
            }
            i += 1;
            ins = i;
        }
        if fallback.is_some() && found.is_none() {
            found = fallback;
        }
        if !fl.replace {
            if let Some(g) = sibling_of {
                // join (or create) the sibling group of the first ECMP-able route of this metric
                let g = if g == 0 { seq } else { g };
                for it in list.iter_mut() {
                    if it.metric == rt.metric && qualify_for_ecmp(it) && it.sibling_group == 0 {
                        it.sibling_group = g;
                        break;
                    }
                }
                rt.sibling_group = g;
                self.lb_ignore6.insert(g, lb_snap);
            }
            if !fl.create {
                // the kernel warns and adds anyway
            }
            list.insert(ins, rt);
            return Ok(());
        }
        let Some(pos) = found else {
            if fl.create {
                if list.is_empty() {
                    // most destinations hold one route: no room for four
                    list.reserve_exact(1);
                }
                list.insert(ins, rt);
                return Ok(());
            }
            // fib6_add_1 says why only when the tree has no node for the prefix; a
            // node without a matching route fails later, in fib6_add_rt2node, silently
            let had_routes = !list.is_empty();
            t.prune_node(rt.dst, rt.src);
            if had_routes || t.kernel_node_exists(rt.dst, rt.src) {
                return Err(Error::new(Errno::ENOENT));
            }
            return Err(Error::msg(
                Errno::ENOENT,
                "Can not replace route - no match found",
            ));
        };
        let old_group = list[pos].sibling_group;
        list[pos] = rt;
        if old_group != 0 {
            let mut k = 0;
            list.retain(|r| {
                k += 1;
                !(r.sibling_group == old_group && k - 1 != pos)
            });
        }
        Ok(())
    }

    /// `ip6_route_multipath_del`: each path named is deleted on its own (its device
    /// and gateway, else the request's), those found go even when another is not, and
    /// the answer is the last path's error (conformance scenario 319). Also says
    /// whether any path went (a failed request may have changed the table).
    fn ip6_route_multipath_del(&mut self, cfg: &Route6Cfg) -> (Result<()>, bool) {
        let mut last = Ok(());
        let mut deleted = false;
        for leg in &cfg.multipath {
            let nh = NhCfg {
                dev: if leg.dev != 0 { leg.dev } else { cfg.nh.dev },
                gw: leg.gw.or(cfg.nh.gw),
                ..leg.clone()
            };
            match self.ip6_route_del(cfg, &nh, false) {
                Ok(()) => deleted = true,
                Err(e) => last = Err(e),
            }
        }
        (last, deleted)
    }

    /// `ip6_route_del` for next hop `nh`; `all_nh` (`fc_delete_all_nh`, a request
    /// without paths): a multipath route named without a gateway goes whole.
    fn ip6_route_del(&mut self, cfg: &Route6Cfg, nh: &NhCfg, all_nh: bool) -> Result<()> {
        // a leg deleted from a group rebalances the others (fib6_del_route)
        let lb_snap = self.lb_snapshot6();
        let t = self
            .tables6
            .get_mut(&cfg.table)
            .ok_or(Error::msg(Errno::ESRCH, "FIB table does not exist"))?;
        // fib6_locate looks for the source in the destination's subtree only when there
        // is one: without it a `from` is ignored and the destination's own routes are
        // the candidates (conformance scenario 157)
        let src = if cfg.src.len > 0 && !t.has_source_routes(cfg.dst) {
            Prefix6::default()
        } else {
            cfg.src
        };
        let Some(list) = t.get_mut(cfg.dst, src) else {
            // A table's root without routes holds the null entry (unreachable, dev lo,
            // proto kernel, metric 2^32-1), which ip6_route_del's walk matches unless
            // the request names a gateway, another device, metric or protocol;
            // fib6_del then refuses it: ENOENT (conformance scenario 156)
            let root = cfg.dst.len == 0 && src.len == 0;
            let null_matches = cfg.nh_id == 0
                && nh.gw.is_none()
                && (nh.dev == 0 || nh.dev == 1)
                && (cfg.metric == 0 || cfg.metric == u32::MAX)
                && (cfg.proto == 0 || cfg.proto == proto::KERNEL);
            if root && null_matches {
                return Err(Error::new(Errno::ENOENT));
            }
            return Err(Error::new(Errno::ESRCH));
        };
        let gw = match nh.gw {
            Some(Gateway::V6(g)) => Some(g),
            _ => None,
        };
        for i in 0..list.len() {
            let r = &list[i];
            if r.nh_id != 0 && cfg.nh_id != 0 && r.nh_id != cfg.nh_id {
                continue;
            }
            if cfg.metric != 0 && cfg.metric != r.metric {
                continue;
            }
            if cfg.proto != 0 && cfg.proto != r.proto {
                continue;
            }
            if r.nh_id != 0 {
                // a route through an object goes whole, whatever else was named
                let g = r.sibling_group;
                if g == 0 {
                    list.remove(i);
                } else {
                    list.retain(|x| x.sibling_group != g);
                }
                t.prune_node(cfg.dst, src);
                return Ok(());
            }
            if cfg.nh_id != 0 {
                continue;
            }
            if nh.dev != 0 && nh.dev != r.nh.dev {
                continue;
            }
            if let Some(g) = gw {
                if r.nh.gw != Some(g) {
                    continue;
                }
            }
            if gw.is_some() || r.sibling_group == 0 || !all_nh {
                let g = list[i].sibling_group;
                list.remove(i);
                if g != 0 {
                    let n = list.iter().filter(|x| x.sibling_group == g).count();
                    if n > 1 {
                        self.lb_ignore6.insert(g, lb_snap);
                    }
                    if n == 1 {
                        for x in list.iter_mut() {
                            if x.sibling_group == g {
                                x.sibling_group = 0;
                            }
                        }
                    }
                }
            } else {
                let g = r.sibling_group;
                list.retain(|x| x.sibling_group != g);
            }
            t.prune_node(cfg.dst, src);
            return Ok(());
        }
        Err(Error::new(Errno::ESRCH))
    }

    /// Remove routes matching `pred` from every IPv6 table.
    pub(crate) fn fib6_remove_where(&mut self, pred: impl Fn(&Route6) -> bool) {
        self.fib6_remove_marked(|list| list.iter().map(&pred).collect());
    }

    /// Remove the entries `marks` picks out of each node's list (one flag per entry, in
    /// the list's order), as [`Netns::fib6_remove_where`] does.
    pub(crate) fn fib6_remove_marked(&mut self, marks: impl Fn(&[Route6]) -> Vec<bool>) {
        // a group that keeps two legs or more is rebalanced (fib6_del_route)
        let mut kept = Vec::new();
        for t in self.tables6.values_mut() {
            t.for_each_list_mut(|list| {
                let mut groups = Vec::new();
                let mut kill = marks(list).into_iter();
                list.retain(|r| {
                    let kill = kill.next().unwrap_or(false);
                    if kill && r.sibling_group != 0 {
                        groups.push(r.sibling_group);
                    }
                    !kill
                });
                for g in groups {
                    let n = list.iter().filter(|x| x.sibling_group == g).count();
                    if n > 1 {
                        kept.push(g);
                    }
                    if n == 1 {
                        for x in list.iter_mut() {
                            if x.sibling_group == g {
                                x.sibling_group = 0;
                            }
                        }
                    }
                }
            });
            t.prune();
        }
        kept.sort_unstable();
        kept.dedup();
        self.rt6_rebalance(kept);
    }

    // ---------------------------------------------------------- addrconf

    /// A route the kernel makes for itself (`proto kernel`), through `dev`, expiring
    /// after `expires` seconds when given.
    fn kernel_route6(
        &mut self,
        rtype: RouteType,
        table: u32,
        dst: Prefix6,
        dev: u32,
        metric: u32,
        expires: Option<u64>,
    ) -> Result<()> {
        let cfg = Route6Cfg {
            table,
            dst,
            rtype,
            proto: proto::KERNEL,
            metric,
            nh: NhCfg {
                dev,
                ..Default::default()
            },
            expires,
            ..Default::default()
        };
        self.new_table6(table);
        let rt = self.ip6_route_info_create(&cfg, &cfg.nh)?;
        self.fib6_add(
            rt,
            NlFlags {
                create: true,
                ..Default::default()
            },
        )
    }

    fn addrconf_add_mroute(&mut self, dev: u32) {
        let _ = self.kernel_route6(
            RouteType::Multicast,
            tid::LOCAL,
            Prefix6::new(0xff00u128 << 112, 8),
            dev,
            PRIO_ADDRCONF,
            None,
        );
    }

    /// `addrconf_prefix_route`: the route to an address's prefix, expiring after
    /// `expires` seconds when given (an address whose valid lifetime is finite); one
    /// already there only takes the new expiry (`fib6_add_rt2node`'s duplicate).
    fn addrconf_prefix_route(
        &mut self,
        addr: u128,
        plen: u8,
        metric: u32,
        dev: u32,
        expires: Option<u64>,
    ) {
        let m = if metric == 0 { PRIO_ADDRCONF } else { metric };
        let _ = self.kernel_route6(
            RouteType::Unicast,
            tid::MAIN,
            Prefix6::new(addr, plen),
            dev,
            m,
            expires,
        );
    }

    /// Sets (`Some`, absolute time on the millisecond clock) or clears the expiry of the route
    /// [`Netns::addrconf_get_prefix_route`] finds (`fib6_set_expires` /
    /// `fib6_clean_expires`); with `only_if_none`, a route that expires already keeps
    /// its time (`cleanup_prefix_route`).
    fn set_prefix_route_expires(
        &mut self,
        p: Prefix6,
        dev: u32,
        at: Option<u64>,
        only_if_none: bool,
    ) {
        if let Some(l) = self
            .tables6
            .get_mut(&tid::MAIN)
            .and_then(|tb| tb.get_mut(p, Prefix6::default()))
        {
            if let Some(r) = l.iter_mut().find(|r| is_addrconf_prefix_route(r, dev)) {
                if only_if_none && r.flags & rtf::EXPIRES != 0 {
                    return;
                }
                r.expires = at;
                if at.is_some() {
                    r.flags |= rtf::EXPIRES;
                } else {
                    r.flags &= !rtf::EXPIRES;
                }
            }
        }
    }

    fn local_route6(&mut self, addr: u128, dev: u32, anycast: bool) {
        let (t, f) = if anycast {
            (RouteType::Anycast, rtf::ANYCAST)
        } else {
            (RouteType::Local, rtf::LOCAL)
        };
        // addrconf_f6i_alloc: RTF_ANYCAST/RTF_LOCAL already in the config, so the route
        // is made on a down link too and never carries linkdown (scenario 198)
        let cfg = Route6Cfg {
            table: tid::LOCAL,
            dst: Prefix6::new(addr, 128),
            rtype: t,
            flags: f | rtf::NONEXTHOP,
            ignore_dev_down: true,
            proto: proto::KERNEL,
            metric: 0,
            nh: NhCfg {
                dev,
                ..Default::default()
            },
            ..Default::default()
        };
        if let Ok(mut rt) = self.ip6_route_info_create(&cfg, &cfg.nh) {
            rt.metric = 0;
            let _ = self.fib6_add(
                rt,
                NlFlags {
                    create: true,
                    ..Default::default()
                },
            );
        }
    }

    fn del_local_route6(&mut self, addr: u128, dev: u32, anycast: bool) {
        let t = if anycast {
            RouteType::Anycast
        } else {
            RouteType::Local
        };
        let p = Prefix6::new(addr, 128);
        if let Some(tb) = self.tables6.get_mut(&tid::LOCAL) {
            if let Some(list) = tb.get_mut(p, Prefix6::default()) {
                if let Some(i) = list
                    .iter()
                    .position(|r| r.rtype == t && r.nh.dev == dev && r.proto == proto::KERNEL)
                {
                    list.remove(i);
                }
            }
            tb.prune_node(p, Prefix6::default());
        }
    }

    /// `ip token set TOKEN dev DEV` (`inet6_set_iftoken`): the device keeps the low 64
    /// bits of `token` as the interface identifier of addresses it would configure
    /// from router advertisements (which fibkit does not receive). Refused on a device
    /// without IPv6 state, on the loopback, on a device without neighbour discovery
    /// (NOARP), where router advertisements are not accepted (`accept_ra`, 2 needed
    /// under forwarding) and where router solicitations are off.
    pub fn token_set(&mut self, dev: u32, token: u128) -> Result<()> {
        let l = self.links.get(&dev).ok_or(Error::new(Errno::ENODEV))?;
        let Some(conf) = self.sysctl.v6_dev.get(&dev) else {
            return Err(Error::new(Errno::EAFNOSUPPORT));
        };
        if l.is_loopback() {
            return Err(Error::msg(Errno::EINVAL, "ipv6: Device is loopback"));
        }
        if l.noarp() {
            return Err(Error::msg(
                Errno::EINVAL,
                "ipv6: Device does not do neighbour discovery",
            ));
        }
        let accept_ra = self.accept_ra6(&l.name);
        let accepts = if conf.forwarding != 0 {
            accept_ra == 2
        } else {
            accept_ra != 0
        };
        if !accepts {
            return Err(Error::msg(
                Errno::EINVAL,
                "ipv6: Router advertisement is disabled on device",
            ));
        }
        if conf.router_solicitations == 0 {
            return Err(Error::msg(
                Errno::EINVAL,
                "Router solicitation is disabled on device",
            ));
        }
        if let Some(c) = self.sysctl.v6_dev.get_mut(&dev) {
            c.token = token as u64;
        }
        self.bump();
        Ok(())
    }

    /// The device's `ip token` (`None`: no IPv6 state).
    pub fn token(&self, dev: u32) -> Option<u64> {
        self.sysctl.v6_dev.get(&dev).map(|c| c.token)
    }

    /// `accept_ra` of a device as last written for it (or for `default` before the
    /// device had IPv6 state, which copied it; 1 when never written): fibkit keeps it
    /// among the sysctls it does not model.
    fn accept_ra6(&self, dev: &str) -> i64 {
        self.sysctl
            .other
            .get(&format!("net.ipv6.conf.{dev}.accept_ra"))
            .and_then(|v| crate::sysctl::parse_long(v))
            .unwrap_or(1)
    }

    fn dev_forwarding6(&self, dev: u32) -> bool {
        self.sysctl
            .v6_dev
            .get(&dev)
            .is_some_and(|c| c.forwarding != 0)
    }

    fn join_anycast(&mut self, dev: u32, a: &Addr6) {
        if a.plen >= 127 {
            return;
        }
        let p = Prefix6::new(a.addr, a.plen).addr;
        if p == 0 {
            return;
        }
        let list = self.anycast6.entry(dev).or_default();
        let first = !list.contains(&p);
        list.push(p);
        if first {
            self.local_route6(p, dev, true);
            // __ipv6_dev_ac_inc: a new anycast address joins its solicited-node group
            self.join_solict(dev, p);
        }
    }

    fn leave_anycast(&mut self, dev: u32, a: &Addr6) {
        if a.plen >= 127 {
            return;
        }
        let p = Prefix6::new(a.addr, a.plen).addr;
        let Some(list) = self.anycast6.get_mut(&dev) else {
            return;
        };
        if let Some(i) = list.iter().position(|x| *x == p) {
            list.remove(i);
            if !list.contains(&p) {
                self.del_local_route6(p, dev, true);
                self.leave_solict(dev, p);
            }
        }
    }

    /// Insert into the device list ordered by scope (global before link-local, newest
    /// first within a scope), as `ipv6_link_dev_addr` does.
    fn link_dev_addr6(&mut self, dev: u32, a: Addr6) {
        let list = self.addrs6.entry(dev).or_default();
        let sc = v6::src_scope(a.addr);
        let pos = list
            .iter()
            .position(|x| sc >= v6::src_scope(x.addr))
            .unwrap_or(list.len());
        list.insert(pos, a);
    }

    /// The address became usable (DAD completed): local route, anycast.
    fn ifa_notify_new6(&mut self, dev: u32, a: &Addr6) {
        self.local_route6(a.addr, dev, false);
        if self.dev_forwarding6(dev) {
            self.join_anycast(dev, a);
        }
        // __ipv6_ifa_notify(RTM_NEWADDR): a host route to the peer, with the address's
        // metric
        if let Some(p) = a.peer.filter(|&p| p != 0) {
            self.addrconf_prefix_route(p, 128, a.metric, dev, None);
        }
    }

    fn ifa_notify_del6(&mut self, dev: u32, a: &Addr6) {
        self.del_local_route6(a.addr, dev, false);
        // (RTM_DELADDR ends with rt_genid_bump_ipv6)
        self.fib6_sernum_bump();
        if self.dev_forwarding6(dev) {
            self.leave_anycast(dev, a);
        }
        // ... and RTM_DELADDR deletes the first main-table route at the peer's /128
        // through the device (gateway or not: addrconf_get_prefix_route without no_gw
        // or RTF_DEFAULT refused), passing over any route through a nexthop object
        // as that lookup always does
        if let Some(p) = a.peer.filter(|&p| p != 0) {
            let pfx = Prefix6::new(p, 128);
            if let Some(tb) = self.tables6.get_mut(&tid::MAIN) {
                if let Some(l) = tb.get_mut(pfx, Prefix6::default()) {
                    if let Some(j) = l.iter().position(|r| r.nh_id == 0 && r.nh.dev == dev) {
                        l.remove(j);
                    }
                }
                tb.prune_node(pfx, Prefix6::default());
            }
        }
    }

    /// `ip -6 addr add`.
    pub fn addr6_add(&mut self, dev: u32, a: Addr6) -> Result<()> {
        if a.plen > 128 {
            return Err(Error::msg(Errno::EINVAL, "Invalid prefix length"));
        }
        // inet6_rtm_newaddr: no device of the index (an `ifN` form may name none)
        let l = self
            .links
            .get(&dev)
            .ok_or(Error::msg(
                Errno::ENODEV,
                "ipv6: Unable to find the interface",
            ))?
            .clone();
        // addrconf_add_dev: no IPv6 state below an MTU of 1280 (ipv6_add_dev's EINVAL,
        // no message), or IPv6 disabled on the device
        if !self.has_idev6(dev) {
            return Err(Error::new(Errno::EINVAL));
        }
        let mut a = a;
        a.flags = self.addr6_request_flags(dev, a.flags)?;
        // inet6_rtm_newaddr: an address the device has already (any prefix length) is
        // EEXIST before inet6_addr_add does anything (no default multicast route made
        // again, no group reloaded)
        if self.addrs6(dev).iter().any(|x| x.addr == a.addr) {
            return Err(Error::msg(Errno::EEXIST, "ipv6: address already assigned"));
        }
        // inet6_addr_add's check of the flags, before addrconf_add_dev
        if a.flags & ifa::MANAGETEMPADDR != 0 && a.plen != 64 {
            return Err(Error::msg(
                Errno::EINVAL,
                "ipv6: address with \"mngtmpaddr\" flag must have a prefix length of 64",
            ));
        }
        // addrconf_add_dev -> ipv6_find_idev: on a device that is up the groups are
        // loaded again (ipv6_mc_up), before the check for IPv6 disabled (a refused
        // request reloads them too: random seed 40236)
        if l.up {
            self.mc6_up(dev);
        }
        if self.ipv6_disabled(dev) {
            return Err(Error::msg(
                Errno::EACCES,
                "ipv6: IPv6 is disabled on this device",
            ));
        }
        // addrconf_add_dev's default multicast route, before ipv6_add_addr's checks: a
        // refused address leaves it (random seed 51117)
        if !l.is_loopback() {
            self.addrconf_add_mroute(dev);
        }
        let t = v6::addr_type(a.addr);
        if t == v6::ANY {
            return Err(Error::msg(Errno::EADDRNOTAVAIL, "ipv6: Invalid address"));
        }
        // with `autojoin`, inet6_rtm_newaddr's check for a multicast address already
        // there comes first, then the autojoin socket joins the group (EADDRINUSE when
        // it had joined it on the device already: an address gone with the link keeps
        // its group), then ipv6_add_addr's checks, whose failure leaves it again
        let mc = t & v6::MULTICAST != 0;
        let autojoin = mc && a.flags & ifa::MCAUTOJOIN != 0;
        if autojoin {
            if self.addrs6(dev).iter().any(|x| x.addr == a.addr) {
                return Err(Error::msg(Errno::EEXIST, "ipv6: address already assigned"));
            }
            self.mc6_autojoin(dev, a.addr)?;
        }
        // an interface-local multicast address counts as a loopback one
        // (ipv6_addr_scope2type)
        let looped = t & v6::LOOPBACK != 0 || (mc && (a.addr >> 112) & 0xf == 1);
        if !l.is_loopback() && looped {
            if autojoin {
                self.mc6_autoleave(dev, a.addr);
            }
            return Err(Error::msg(
                Errno::EADDRNOTAVAIL,
                "ipv6: Cannot assign loopback address on this device",
            ));
        }
        if mc && !autojoin {
            return Err(Error::msg(
                Errno::EADDRNOTAVAIL,
                "ipv6: Cannot assign multicast address without \"IFA_F_MCAUTOJOIN\" flag",
            ));
        }
        if self.addrs6(dev).iter().any(|x| x.addr == a.addr) {
            return Err(Error::msg(Errno::EEXIST, "ipv6: address already assigned"));
        }
        // inet6_addr_add: a finite valid lifetime makes the address non-permanent and
        // its prefix route expiring; a preferred lifetime of 0 makes it deprecated
        a.life.tstamp = self.now;
        self.addr6_set_ms.insert((dev, a.addr), self.ms_clock);
        let expires = addr6_lifetime_flags(&mut a.flags, a.life);
        self.link_dev_addr6(dev, a.clone());
        // addrconf_dad_begin (run at once, the device up or not) joins the address's
        // solicited-node group before anything else
        self.join_solict(dev, a.addr);
        if a.flags & ifa::NOPREFIXROUTE == 0 {
            self.addrconf_prefix_route(a.addr, a.plen, a.metric, dev, expires);
        }
        // (`optimistic` lasts only while DAD runs: addrconf_dad_start drops it from an
        // address that is not tentative; conformance scenario 271)
        if !self.addrconf_dad_start(dev, a.addr) {
            self.ifa_notify_new6(dev, &a);
        }
        self.bump();
        // inet6_addr_add ends with addrconf_verify_rtnl
        self.addrconf_verify6(self.ms_clock);
        Ok(())
    }

    /// Whether a new address of `dev` with `flags` goes through duplicate address
    /// detection (`addrconf_dad_begin`): not on a NOARP or loopback device, not for a
    /// `nodad` one, and only while `accept_dad` is on for `all` or the device. (An
    /// `optimistic` address goes through it too, usable meanwhile:
    /// [`Netns::addrconf_dad_start`].)
    fn dad_needed(&self, dev: u32, flags: u32) -> bool {
        let on = |c: &crate::sysctl::DevConf6| c.accept_dad >= 1;
        self.links.get(&dev).is_some_and(|l| !l.noarp())
            && flags & ifa::NODAD == 0
            && (on(&self.sysctl.v6_all) || self.sysctl.v6_dev.get(&dev).is_some_and(on))
    }

    /// Starts DAD for the address `addr` of `dev` when it needs it ([`Netns::dad_needed`]):
    /// the address is tentative (no host route, not a source, no anycast) until the
    /// probe's time has passed: a random delay below `rtr_solicit_delay` (1 s; none
    /// for an optimistic address), then `dad_transmits` (1) probes `retrans_time`
    /// (1 s) apart, so one to two seconds by default; fibkit takes the upper bound,
    /// the delay's ([`Netns::dad_delay6_ms`]) plus the probes'
    /// ([`Netns::dad_retrans_ms`]), on the millisecond clock the scenario's sleeps
    /// move ([`Netns::sleep_ms`]). On a device that is down it stays
    /// tentative until the device comes up. An `optimistic` address (under
    /// `optimistic_dad`) on a ready device gets its host route at once, and is
    /// announced at once under `use_optimistic`; without DAD the flag goes. Returns
    /// whether DAD runs.
    pub(crate) fn addrconf_dad_start(&mut self, dev: u32, addr: u128) -> bool {
        let Some(flags) = self
            .addrs6(dev)
            .iter()
            .find(|x| x.addr == addr)
            .map(|x| x.flags)
        else {
            return false;
        };
        if !self.dad_needed(dev, flags)
            && self.dad_restart_pending == Some(dev)
            && flags & ifa::NODAD == 0
        {
            // the request's NOARP change restarts this DAD run before it ran
            // (addrconf_dad_run(idev, true) makes it wait a random delay below
            // `rtr_solicit_delay`): the address stays tentative until then, when
            // addrconf_dad_begin finds no DAD to do and announces it
            if let Some(x) = self
                .addrs6
                .get_mut(&dev)
                .and_then(|v| v.iter_mut().find(|x| x.addr == addr))
            {
                x.flags |= ifa::TENTATIVE;
            }
            let at = self.ms_clock + self.dad_delay6_ms(dev, flags);
            self.dad_due.insert(
                (dev, addr),
                DadRun {
                    at,
                    begin: true,
                    left: 0,
                },
            );
            return true;
        }
        if !self.dad_needed(dev, flags) {
            // addrconf_dad_begin without DAD: `optimistic` goes with `tentative`
            if let Some(x) = self
                .addrs6
                .get_mut(&dev)
                .and_then(|v| v.iter_mut().find(|x| x.addr == addr))
            {
                x.flags &= !ifa::OPTIMISTIC;
            }
            return false;
        }
        if let Some(x) = self
            .addrs6
            .get_mut(&dev)
            .and_then(|v| v.iter_mut().find(|x| x.addr == addr))
        {
            x.flags |= ifa::TENTATIVE;
        }
        // IF_READY: set when the link was first up with carrier, cleared only when it
        // goes down, so an address added after a loss of carrier runs its DAD (its
        // probes go nowhere) and ends it (the callers at link up run before fibkit
        // marks the device, hence the carrier)
        let ready = self
            .links
            .get(&dev)
            .is_some_and(|l| l.up && (l.oper_up() || self.v6_ready.contains(&dev)));
        if ready {
            // addrconf_dad_kick: the first work after the random delay, then one
            // probe per run while `dad_probes` are left
            let left = self.dad_transmits6(dev);
            let at = self.ms_clock + self.dad_delay6_ms(dev, flags);
            self.dad_due.insert(
                (dev, addr),
                DadRun {
                    at,
                    begin: false,
                    left,
                },
            );
            // an optimistic address is reachable while DAD runs (its host route goes
            // in now) and, under `use_optimistic`, announced at once
            if flags & ifa::OPTIMISTIC != 0 {
                self.local_route6(addr, dev, false);
                if self.use_optimistic6(dev) {
                    if let Some(a) = self.addrs6(dev).iter().find(|x| x.addr == addr).cloned() {
                        self.ifa_notify_new6(dev, &a);
                    }
                }
            }
        } else {
            self.dad_due.remove(&(dev, addr));
        }
        true
    }

    /// `ipv6_allow_optimistic_dad`: `optimistic_dad` on for `all` or `dev`.
    fn optimistic_dad6(&self, dev: u32) -> bool {
        self.sysctl.v6_all.optimistic_dad != 0
            || self
                .sysctl
                .v6_dev
                .get(&dev)
                .is_some_and(|c| c.optimistic_dad != 0)
    }

    /// `ipv6_use_optimistic_addr`: optimistic addresses of `dev` may be used as sources
    /// like others (`optimistic_dad` and `use_optimistic`, each for `all` or `dev`).
    pub(crate) fn use_optimistic6(&self, dev: u32) -> bool {
        self.optimistic_dad6(dev)
            && (self.sysctl.v6_all.use_optimistic != 0
                || self
                    .sysctl
                    .v6_dev
                    .get(&dev)
                    .is_some_and(|c| c.use_optimistic != 0))
    }

    /// The flags of an `RTM_NEWADDR` request as `inet6_rtm_newaddr` keeps them for
    /// `dev`: `optimistic` only under `optimistic_dad`, and never with `nodad`.
    fn addr6_request_flags(&self, dev: u32, flags: u32) -> Result<u32> {
        let mut flags = flags;
        if !self.optimistic_dad6(dev) {
            flags &= !ifa::OPTIMISTIC;
        }
        if flags & ifa::NODAD != 0 && flags & ifa::OPTIMISTIC != 0 {
            return Err(Error::msg(
                Errno::EINVAL,
                "IFA_F_NODAD and IFA_F_OPTIMISTIC are mutually exclusive",
            ));
        }
        Ok(flags)
    }

    /// `dad_transmits` of a device: its own value, which it took from `default` when
    /// it got its IPv6 state (`ipv6_add_dev` copies `devconf_dflt`; fibkit copies the
    /// `default` settings it keeps by name then, [`Netns::sysctl_dev_from_default`]),
    /// so a later write to `default` does not reach it; 1 when never written. The
    /// probes DAD sends, `retrans_time` apart, after its random first delay:
    /// `addrconf_dad_kick` stores the int in the address's `__u8` `dad_probes`, so
    /// only its low eight bits count (256 is no probe, -255 one).
    fn dad_transmits6(&self, dev: u32) -> u64 {
        let Some(name) = self.links.get(&dev).map(|l| l.name.clone()) else {
            return 1;
        };
        let n = self
            .sysctl
            .other
            .get(&format!("net.ipv6.conf.{name}.dad_transmits"))
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(1);
        // the value's low byte, as the kernel's truncating assignment keeps it
        u64::try_from(n.rem_euclid(256)).unwrap_or(0)
    }

    /// The longest random delay before DAD work of an address with `flags` on a
    /// device begins, in ms: `addrconf_dad_kick` waits
    /// `get_random_u32_below(rtr_solicit_delay ?: 1)` jiffies, `rtr_solicit_delay`
    /// being the device's `router_solicitation_delay` (1 s unless written; copied from
    /// `default` with its IPv6 state), and none for an optimistic address. 0 is no
    /// delay at all; fibkit takes the upper bound of the others, and a second for a
    /// negative value (a random delay of up to about 49 days).
    fn dad_delay6_ms(&self, dev: u32, flags: u32) -> u64 {
        if flags & ifa::OPTIMISTIC != 0 {
            return 0;
        }
        let Some(name) = self.links.get(&dev).map(|l| l.name.clone()) else {
            return 1000;
        };
        self.sysctl
            .other
            .get(&format!("net.ipv6.conf.{name}.router_solicitation_delay"))
            .and_then(|v| v.trim().parse::<i64>().ok())
            .and_then(|v| u64::try_from(v).ok())
            .unwrap_or(1)
            .saturating_mul(1000)
    }

    /// The time between two DAD probes of `dev`, in ms: `addrconf_dad_work` re-arms
    /// itself `max(NEIGH_VAR(nd_parms, RETRANS_TIME), HZ/100)` jiffies later, the
    /// device's own neighbour parameter (`retrans_time_ms`, taken from `default`'s
    /// when the device got its IPv6 state), 1 s unless written.
    fn dad_retrans_ms(&self, dev: u32) -> u64 {
        let jiffies = self
            .neigh_parms(dev, true)
            .map_or(250, crate::ntable::NeighParms::retrans_jiffies);
        let hz = crate::bridge::HZ;
        jiffies.max(hz / 100) * (1000 / hz)
    }

    /// The DAD work whose time has come (`addrconf_dad_work`), on devices that are up,
    /// in the order of its times: each probe a run sends ([`Netns::dad_probe`]) may
    /// fail its address or the peer's; a run that ends DAD announces its address if
    /// still tentative; one that begins it (a restart) probes a tentative address that
    /// still needs DAD, `dad_transmits` seconds more (its first probe at once), and
    /// announces any other at once (`addrconf_dad_begin`, `addrconf_dad_completed`,
    /// which take `dadfailed` away). Returns whether any address changed.
    pub(crate) fn addrconf_dad_work(&mut self, now: u64) -> bool {
        let mut any = false;
        loop {
            let due = self
                .dad_due
                .iter()
                .map(|(&k, r)| (r.at, r.left > 0, k, *r))
                .filter(|&(t, ..)| t <= now)
                .min_by_key(|&(t, probing, k, _)| (t, !probing, k));
            let Some((t, probing, (dev, addr), run)) = due else {
                break;
            };
            if probing {
                // one probe, the work again `retrans_time` later
                let at = t + self.dad_retrans_ms(dev);
                let left = run.left - 1;
                self.dad_due.insert((dev, addr), DadRun { at, left, ..run });
                if self.dad_probe(dev, addr, t) {
                    any = true;
                }
                continue;
            }
            self.dad_due.remove(&(dev, addr));
            if !self.links.get(&dev).is_some_and(|l| l.up) {
                continue;
            }
            let Some(a) = self
                .addrs6(dev)
                .iter()
                .find(|x| x.addr == addr && !x.predad)
                .cloned()
            else {
                continue;
            };
            let tentative = a.flags & ifa::TENTATIVE != 0;
            // a restarted run begins with addrconf_dad_begin, which joins the
            // solicited-node group once more
            if run.begin {
                self.join_solict(dev, addr);
            }
            if run.begin && tentative && self.dad_needed(dev, a.flags) {
                let left = self.dad_transmits6(dev);
                self.dad_due.insert(
                    (dev, addr),
                    DadRun {
                        at: run.at,
                        begin: false,
                        left,
                    },
                );
                continue;
            }
            if !run.begin && !tentative {
                continue;
            }
            let mut a = a;
            let done = ifa::TENTATIVE | ifa::OPTIMISTIC | ifa::DADFAILED;
            if tentative {
                a.flags &= !done;
                if let Some(x) = self
                    .addrs6
                    .get_mut(&dev)
                    .and_then(|v| v.iter_mut().find(|x| x.addr == addr))
                {
                    x.flags &= !done;
                }
            }
            self.ifa_notify_new6(dev, &a);
            any = true;
        }
        any
    }

    /// A Neighbour Solicitation of DAD for `addr` sent by `dev` (`ndisc_send_ns` from
    /// `addrconf_dad_work`): on a veth with carrier it reaches the peer, which takes it
    /// (`ndisc_recv_ns`) unless it is a bridge port (its bridge takes the frame) or
    /// has no IPv6 on, and drops it for a multicast address. A peer whose own `addr` is
    /// tentative or optimistic fails its DAD (`addrconf_dad_failure`: both ran DAD,
    /// the solicitation came first); one
    /// that holds `addr` otherwise, has it as an anycast address, or proxies it
    /// (forwarding and `proxy_ndp` on) answers with a Neighbour Advertisement to all
    /// nodes, which fails the sender's DAD (`ndisc_recv_na`) unless the sender is a
    /// bridge port. `t` is the probe's time. Returns whether an address changed.
    fn dad_probe(&mut self, dev: u32, addr: u128, t: u64) -> bool {
        let Some(l) = self.links.get(&dev) else {
            return false;
        };
        let LinkKind::Veth { peer } = l.kind else {
            return false;
        };
        let sender_port = l.master != 0;
        // (ndisc_recv_ns drops a solicitation for a multicast target)
        if !l.up || !l.oper_up() || peer == 0 || v6::is_multicast(addr) {
            return false;
        }
        if !self
            .addrs6(dev)
            .iter()
            .any(|x| x.addr == addr && x.flags & ifa::TENTATIVE != 0)
        {
            return false;
        }
        let Some(p) = self.links.get(&peer) else {
            return false;
        };
        if !p.up || p.master != 0 || self.ipv6_unusable(peer) {
            return false;
        }
        let held = self
            .addrs6(peer)
            .iter()
            .find(|x| x.addr == addr)
            .map(|x| x.flags);
        match held {
            Some(f) if f & (ifa::TENTATIVE | ifa::OPTIMISTIC) != 0 => {
                // addrconf_dad_end: only an address whose DAD runs (not one that
                // failed it, nor one waiting for its restart's random delay)
                let running = self.dad_due.get(&(peer, addr)).is_some_and(|r| !r.begin);
                if running {
                    self.addrconf_dad_failure(peer, addr, t);
                }
                return running;
            }
            Some(_) => {}
            None => {
                let anycast = self.anycast6.get(&peer).is_some_and(|v| v.contains(&addr));
                let proxy_ndp = self.sysctl.v6_all.proxy_ndp != 0
                    || self
                        .sysctl
                        .v6_dev
                        .get(&peer)
                        .is_some_and(|c| c.proxy_ndp != 0);
                let proxied = self.dev_forwarding6(peer)
                    && proxy_ndp
                    && self.pneigh_lookup(peer, addr, true).is_some();
                if !anycast && !proxied {
                    return false;
                }
            }
        }
        if sender_port {
            return false;
        }
        self.addrconf_dad_failure(dev, addr, t);
        true
    }

    /// `addrconf_dad_failure` then `addrconf_dad_stop(ifp, 1)`: DAD stops; a permanent
    /// address stays, `tentative` and `dadfailed` (an optimistic one loses its flag
    /// but keeps its host route), any other is deleted (`ipv6_del_addr`: a finite lifetime
    /// leaves the prefix route to expire; the autojoin socket keeps its group).
    pub(crate) fn addrconf_dad_failure(&mut self, dev: u32, addr: u128, t: u64) {
        self.dad_due.remove(&(dev, addr));
        let Some(a) = self
            .addrs6
            .get_mut(&dev)
            .and_then(|v| v.iter_mut().find(|x| x.addr == addr))
        else {
            return;
        };
        let stable = a.flags & ifa::STABLE_PRIVACY != 0;
        let failed = a.clone();
        if a.flags & ifa::PERMANENT != 0 {
            a.flags |= ifa::TENTATIVE | ifa::DADFAILED;
            a.flags &= !ifa::OPTIMISTIC;
            self.bump();
        } else {
            let _ = self.addr6_del_as(dev, addr, None, false);
        }
        // addrconf_dad_work's abort under `accept_dad` above 1 (`all` or the device):
        // the failed address was the device's EUI-64 link-local one, so IPv6 goes off
        // on it (`disable_ipv6` set, `addrconf_ifdown`: no address kept)
        let strict = |c: &crate::sysctl::DevConf6| c.accept_dad > 1;
        let eui64 = self
            .links
            .get(&dev)
            .map(|l| (0xfe80u128 << 112) | u128::from(l.eui64()));
        if !stable
            && eui64 == Some(addr)
            && (strict(&self.sysctl.v6_all) || self.sysctl.v6_dev.get(&dev).is_some_and(strict))
            && !self.ipv6_disabled(dev)
        {
            self.set_disable_ipv6(dev, true);
        }
        if stable {
            self.stable_privacy_retry6(dev, &failed, t);
        }
    }

    /// A stable privacy address that failed DAD is followed by the next one of its
    /// prefix (`addrconf_dad_failure`): the DAD attempt after the failed address's
    /// (found again from the secret), up to `net.ipv6.idgen_retries`, with its flags and
    /// lifetimes, whose DAD begins `net.ipv6.idgen_delay` seconds later (then the
    /// random delay below a second); none when the device holds
    /// `max_addresses` addresses (any number when it is negative) or the new one
    /// already.
    fn stable_privacy_retry6(&mut self, dev: u32, failed: &Addr6, t: u64) {
        let Some(secret) = self.stable_secret6(dev) else {
            return;
        };
        let read = |k: &str, d: i64| {
            self.sysctl
                .other
                .get(k)
                .and_then(|v| v.trim().parse::<i64>().ok())
                .unwrap_or(d)
        };
        let max_retries = read("net.ipv6.idgen_retries", 3);
        let delay = u64::try_from(read("net.ipv6.idgen_delay", 1)).unwrap_or(0);
        let prefix = failed.addr & !u128::from(u64::MAX);
        let tried = (0..=3u8)
            .find(|&c| crate::stable::stable_address(prefix, secret, c) == Some(failed.addr))
            .unwrap_or(0);
        let retries = tried + 1;
        if i64::from(retries) > max_retries {
            return;
        }
        let Some(addr) = crate::stable::stable_address(prefix, secret, retries) else {
            return;
        };
        let name = self
            .links
            .get(&dev)
            .map(|l| l.name.clone())
            .unwrap_or_default();
        // `idev->cnf.max_addresses && ipv6_count_addresses(idev) >= max_addresses`,
        // ints: only 0 is no limit, and a negative limit refuses every retry
        let max = read(&format!("net.ipv6.conf.{name}.max_addresses"), 16);
        let count = i64::try_from(self.addrs6(dev).len()).unwrap_or(i64::MAX);
        if (max != 0 && count >= max) || self.addrs6(dev).iter().any(|x| x.addr == addr) {
            return;
        }
        let a = Addr6 {
            addr,
            flags: (failed.flags | ifa::TENTATIVE) & !ifa::DADFAILED,
            predad: false,
            ..failed.clone()
        };
        let a_flags = a.flags;
        self.link_dev_addr6(dev, a);
        // (`t` and the run on the millisecond clock; idgen_delay is in seconds)
        let at = t + delay.saturating_mul(1000) + self.dad_delay6_ms(dev, a_flags);
        self.dad_due.insert(
            (dev, addr),
            DadRun {
                at,
                begin: true,
                left: 0,
            },
        );
        self.bump();
    }

    /// `ip -6 addr replace` / `ip -6 addr change` (`RTM_NEWADDR` with `NLM_F_REPLACE`):
    /// an address the device does not have is added, whatever the flags; one it has is
    /// modified as `inet6_addr_modify` does (conformance scenario 233): its flags become
    /// the request's, its metric too when the request gives one, and its prefix route
    /// follows: re-made with the new metric (the first route without a gateway on the
    /// device at that prefix, which may be another address's), restored when it was
    /// gone, removed under `noprefixroute` unless another address keeps it.
    pub fn addr6_replace(&mut self, dev: u32, a: Addr6) -> Result<()> {
        if !self.links.contains_key(&dev) {
            return Err(Error::msg(
                Errno::ENODEV,
                "ipv6: Unable to find the interface",
            ));
        }
        let Some(i) = self.addrs6(dev).iter().position(|x| x.addr == a.addr) else {
            return self.addr6_add(dev, a);
        };
        let mut a = a;
        a.flags = self.addr6_request_flags(dev, a.flags)?;
        let old = self.addrs6(dev)[i].clone();
        if a.flags & ifa::MANAGETEMPADDR != 0 && old.plen != 64 {
            return Err(Error::new(Errno::EINVAL));
        }
        let mut flags = a.flags;
        if old.flags & ifa::TENTATIVE == 0 || old.flags & ifa::DADFAILED != 0 {
            flags &= !ifa::OPTIMISTIC;
        }
        let expires = addr6_lifetime_flags(&mut flags, a.life);
        let had_prefixroute =
            old.flags & ifa::PERMANENT != 0 && old.flags & ifa::NOPREFIXROUTE == 0;
        let cleared = ifa::DEPRECATED
            | ifa::PERMANENT
            | ifa::NODAD
            | ifa::HOMEADDRESS
            | ifa::MANAGETEMPADDR
            | ifa::NOPREFIXROUTE;
        // a new peer: the old one's route goes, looked up at the address's own prefix
        // length (so only a /128 address finds its old peer's host route)
        let new_peer = a.peer.filter(|&p| Some(p) != old.peer);
        if new_peer.is_some() {
            if let Some(op) = old.peer.filter(|&p| p != 0) {
                let q = Prefix6::new(op, old.plen);
                if self.addrconf_get_prefix_route(q, dev).is_some() {
                    self.del_prefix_route(q, dev);
                }
            }
        }
        let mut new = old.clone();
        new.flags = (old.flags & !cleared) | flags;
        new.life = Lifetime {
            tstamp: self.now,
            ..a.life
        };
        if a.metric != 0 && a.metric != old.metric {
            new.metric = a.metric;
        }
        if new_peer.is_some() {
            new.peer = new_peer;
        }
        self.addrs6.get_mut(&dev).expect("exists")[i] = new.clone();
        self.addr6_set_ms.insert((dev, new.addr), self.ms_clock);
        let p = Prefix6::new(new.addr, new.plen);
        if flags & ifa::NOPREFIXROUTE == 0 {
            let prio = if new.metric == 0 {
                PRIO_ADDRCONF
            } else {
                new.metric
            };
            // modify_prefix_route for the address, then for its peer at the address's
            // prefix length; a route either did not find is added
            let modify = |ns: &mut Self, at_addr: u128| -> bool {
                let q = Prefix6::new(at_addr, new.plen);
                match ns.addrconf_get_prefix_route(q, dev) {
                    Some(m) => {
                        if m != prio {
                            ns.del_prefix_route(q, dev);
                            ns.addrconf_prefix_route(at_addr, new.plen, new.metric, dev, expires);
                        } else {
                            // modify_prefix_route hands fib6_set_expires the lifetime in
                            // clock ticks (jiffies_to_clock_t) where it takes an absolute
                            // time in jiffies: the route has expired long ago, lookups
                            // pass it over at once and the next garbage collection removes
                            // it (conformance scenario 324)
                            ns.set_prefix_route_expires(q, dev, expires.map(|_| 0), false);
                        }
                        true
                    }
                    None => false,
                }
            };
            let mut found = had_prefixroute && modify(self, new.addr);
            if !found {
                self.addrconf_prefix_route(new.addr, new.plen, new.metric, dev, expires);
            }
            let peer = new.peer.filter(|&x| x != 0);
            if let (true, Some(x)) = (had_prefixroute, peer) {
                found = modify(self, x);
            }
            if let (false, Some(x)) = (found, peer) {
                self.addrconf_prefix_route(x, new.plen, new.metric, dev, expires);
            }
        } else if had_prefixroute {
            match self.check_cleanup_prefix_route(dev, &new) {
                Cleanup::Nop => {}
                Cleanup::Del => self.del_prefix_route(p, dev),
                Cleanup::Expire(t) => self.set_prefix_route_expires(p, dev, Some(t), true),
            }
        }
        self.bump();
        // inet6_addr_modify ends with addrconf_verify_rtnl
        self.addrconf_verify6(self.ms_clock);
        Ok(())
    }

    /// `check_cleanup_prefix_route`: what becomes of `a`'s prefix route when `a` stops
    /// holding it. Another address of the device with the same prefix that is permanent
    /// or has `noprefixroute` keeps it as it is; otherwise, when others share the
    /// prefix, it expires with the last of them; with none, it goes.
    fn check_cleanup_prefix_route(&self, dev: u32, a: &Addr6) -> Cleanup {
        let mut action = Cleanup::Del;
        let mut until = self.ms_clock;
        for x in self.addrs6(dev) {
            if x.addr == a.addr
                || x.plen != a.plen
                || Prefix6::new(x.addr, x.plen) != Prefix6::new(a.addr, a.plen)
            {
                continue;
            }
            if x.flags & (ifa::PERMANENT | ifa::NOPREFIXROUTE) != 0 {
                return Cleanup::Nop;
            }
            // ifa->tstamp + ifa->valid_lft * HZ: from the moment its lifetimes were set
            let set = self.addr6_set_at(dev, x.addr, x.life.tstamp);
            until = until.max(set.saturating_add(u64::from(x.life.valid).saturating_mul(1000)));
            action = Cleanup::Expire(until);
        }
        action
    }

    /// `addrconf_get_prefix_route(prefix, dev, 0, RTF_DEFAULT, no_gw)`: the metric of the
    /// first route of the main table at exactly `p` on `dev` without a gateway.
    fn addrconf_get_prefix_route(&self, p: Prefix6, dev: u32) -> Option<u32> {
        let l = self.tables6.get(&tid::MAIN)?.get(p, Prefix6::default())?;
        l.iter()
            .find(|r| is_addrconf_prefix_route(r, dev))
            .map(|r| r.metric)
    }

    /// Deletes the route [`Netns::addrconf_get_prefix_route`] finds.
    fn del_prefix_route(&mut self, p: Prefix6, dev: u32) {
        if let Some(tb) = self.tables6.get_mut(&tid::MAIN) {
            if let Some(l) = tb.get_mut(p, Prefix6::default()) {
                if let Some(j) = l.iter().position(|r| is_addrconf_prefix_route(r, dev)) {
                    l.remove(j);
                }
            }
            tb.prune_node(p, Prefix6::default());
        }
    }

    /// `ip -6 addr del`.
    pub fn addr6_del(&mut self, dev: u32, addr: u128, plen: Option<u8>) -> Result<()> {
        self.addr6_del_as(dev, addr, plen, true)?;
        // inet6_addr_del ends with addrconf_verify_rtnl
        self.addrconf_verify6(self.ms_clock);
        Ok(())
    }

    /// [`Netns::addr6_del`]; a request (`leave_group`, not an expiry) deleting a
    /// multicast address makes the autojoin socket leave its group afterwards.
    pub(crate) fn addr6_del_as(
        &mut self,
        dev: u32,
        addr: u128,
        plen: Option<u8>,
        leave_group: bool,
    ) -> Result<()> {
        if !self.links.contains_key(&dev) {
            // inet6_addr_del: no device of the index (an `ifN` form may name none)
            return Err(Error::msg(
                Errno::ENODEV,
                "ipv6: Unable to find the interface",
            ));
        }
        if !self.has_idev6(dev) {
            // inet6_addr_del on a device without IPv6 state (MTU below 1280)
            return Err(Error::msg(
                Errno::ENXIO,
                "ipv6: IPv6 is disabled on this device",
            ));
        }
        let list = self.addrs6.get(&dev).cloned().unwrap_or_default();
        let Some(i) = list
            .iter()
            .position(|x| x.addr == addr && plen.is_none_or(|p| p == x.plen))
        else {
            return Err(Error::msg(Errno::EADDRNOTAVAIL, "ipv6: address not found"));
        };
        let a = list[i].clone();
        self.addrs6.get_mut(&dev).expect("exists").remove(i);
        self.addr6_set_ms.remove(&(dev, addr));
        // ipv6_del_addr: its DAD work is cancelled
        self.dad_due.remove(&(dev, addr));
        // ipv6_del_addr: only a permanent address with a prefix route of its own looks
        // at it (an address with a finite lifetime leaves it to expire); then
        // check_cleanup_prefix_route: another address with the prefix that is permanent
        // (or has noprefixroute) keeps it, even one without a prefix route of its own
        // (conformance scenario 233), others with finite lifetimes make it expire
        let action = if a.flags & ifa::PERMANENT != 0 && a.flags & ifa::NOPREFIXROUTE == 0 {
            self.check_cleanup_prefix_route(dev, &a)
        } else {
            Cleanup::Nop
        };
        self.ifa_notify_del6(dev, &a);
        self.leave_solict(dev, a.addr);
        let p = Prefix6::new(a.addr, a.plen);
        match action {
            Cleanup::Nop => {}
            Cleanup::Del => self.del_prefix_route(p, dev),
            Cleanup::Expire(t) => self.set_prefix_route_expires(p, dev, Some(t), true),
        }
        // rt6_remove_prefsrc (fib6_remove_prefsrc leaves routes through nexthop objects
        // alone: conformance scenario 253), and a route whose device still passes
        // ipv6_chk_addr(addr, dev, 0) for the address (held by another device, any
        // device for one that is not link-local) keeps it (scenario 431)
        let keep: Vec<u32> = self
            .links
            .keys()
            .copied()
            .filter(|&d| self.chk_addr6_any_strict(a.addr, d))
            .collect();
        for t in self.tables6.values_mut() {
            t.for_each_list_mut(|l| {
                for r in l.iter_mut() {
                    if r.prefsrc == Some(a.addr) && r.nh_id == 0 && !keep.contains(&r.nh.dev) {
                        r.prefsrc = None;
                    }
                }
            });
        }
        if leave_group && v6::is_multicast(a.addr) {
            self.mc6_autoleave(dev, a.addr);
        }
        self.bump();
        Ok(())
    }

    /// Generate the EUI-64 link-local address and derived routes (`addrconf_dev_config`).
    fn addrconf_dev_config(&mut self, dev: u32) {
        if self.links[&dev].is_loopback() {
            self.init_loopback6(dev);
            return;
        }
        // addrconf_add_dev -> ipv6_find_idev: the device is up, its groups are loaded
        self.mc6_up(dev);
        self.addrconf_add_mroute(dev);
        self.addrconf_addr_gen(dev);
    }

    /// `init_loopback`: the loopback's `::1/128` (host scope, permanent), unless it has
    /// it.
    fn init_loopback6(&mut self, dev: u32) {
        if self.addrs6(dev).iter().any(|a| a.addr == 1) {
            return;
        }
        let a = Addr6 {
            predad: false,
            life: Default::default(),
            addr: 1,
            plen: 128,
            flags: ifa::PERMANENT,
            metric: 0,
            scope: crate::route::scope::HOST,
            peer: None,
        };
        self.link_dev_addr6(dev, a.clone());
        self.ifa_notify_new6(dev, &a);
    }

    /// `addrconf_addr_gen(idev, false)`: the device's link-local address as its address
    /// generation mode makes it: none in mode `none`; in stable privacy mode one from
    /// the device's secret (else `default`'s), none without one; in random mode from a
    /// secret drawn for the device; else from its EUI-64. An address the device has
    /// already is left as it is.
    fn addrconf_addr_gen(&mut self, dev: u32) {
        let Some(l) = self.links.get(&dev).cloned() else {
            return;
        };
        let (ll, flags) = match self.sysctl.v6_dev.get(&dev).map(|c| c.addr_gen_mode) {
            Some(1) => return,
            Some(m @ (2 | 3)) => {
                // ipv6_gen_mode_random_init: random mode draws the device a secret of
                // its own when it has none (fibkit's draw is its own: the kernel's is
                // random, so the address differs from any kernel's)
                if m == 3 {
                    self.random_stable_secret6(dev);
                }
                let Some(a) = self
                    .stable_secret6(dev)
                    .and_then(|s| crate::stable::stable_address(0xfe80u128 << 112, s, 0))
                else {
                    return;
                };
                (a, ifa::PERMANENT | ifa::STABLE_PRIVACY)
            }
            _ => ((0xfe80u128 << 112) | u128::from(l.eui64()), ifa::PERMANENT),
        };
        if self.addrs6(dev).iter().any(|a| a.addr == ll) {
            return;
        }
        // addrconf_add_linklocal: optimistic under `optimistic_dad` unless `all`
        // forwards
        let flags = if self.optimistic_dad6(dev) && !self.forwarding6() {
            flags | ifa::OPTIMISTIC
        } else {
            flags
        };
        let a = Addr6 {
            predad: false,
            life: Default::default(),
            addr: ll,
            plen: 64,
            flags,
            metric: 0,
            scope: crate::route::scope::LINK,
            peer: None,
        };
        self.link_dev_addr6(dev, a.clone());
        // addrconf_dad_begin joins the solicited-node group first
        self.join_solict(dev, ll);
        self.addrconf_prefix_route(ll, 64, 0, dev, None);
        if !self.addrconf_dad_start(dev, ll) {
            self.ifa_notify_new6(dev, &a);
        }
    }

    /// `addrconf_permanent_addr` at link up: every address gets its prefix route and
    /// host route back; the tentative ones (kept over a link down) finish DAD and join
    /// their subnet-router anycast as a new address does, while an address that was
    /// already in use (added on the down link: DAD on a NOARP device completes at once)
    /// holds its anycast reference already and takes no second one (conformance
    /// scenario 235).
    fn addrconf_permanent_addr(&mut self, dev: u32) {
        let list = self.addrs6(dev).to_vec();
        if let Some(v) = self.addrs6.get_mut(&dev) {
            for a in v.iter_mut() {
                a.flags &= !ifa::TENTATIVE;
                a.predad = false;
            }
        }
        for a in list {
            // fixup_permanent_addr runs for permanent addresses only: one with a finite
            // lifetime gets no prefix route back
            if a.flags & ifa::NOPREFIXROUTE == 0 && a.flags & ifa::PERMANENT != 0 {
                self.addrconf_prefix_route(a.addr, a.plen, a.metric, dev, None);
            }
            // addrconf_dad_run(restart): the addresses kept over the down link are
            // announced again, `nodad` ones too
            let tentative = a.flags & ifa::TENTATIVE != 0 || a.predad;
            // fixup_permanent_addr: an address kept over the link down (PREDAD) starts
            // DAD again, whose beginning joins its solicited-node group
            if a.predad {
                self.join_solict(dev, a.addr);
            }
            let mut a = a;
            a.flags &= !ifa::TENTATIVE;
            a.predad = false;
            // (an address whose DAD completed on the down link keeps the host route it
            // has: fixup_permanent_addr makes a missing one anew but inserts it only
            // for an address whose DAD starts again, so a host route the address lost
            // meanwhile, e.g. to a subnet-router anycast route of the same address that
            // held its place and went when forwarding did, stays missing)
            if tentative && !self.addrconf_dad_start(dev, a.addr) {
                // DAD runs again where it is on; announced once it succeeds
                self.ifa_notify_new6(dev, &a);
            }
        }
    }

    /// `addrconf_dad_run(idev, restart)` for the addresses `which` of `dev` (up, with
    /// carrier and IPv6 on): each one's DAD work begins again after a random delay
    /// below `rtr_solicit_delay`, its upper bound on fibkit's millisecond clock
    /// ([`Netns::addrconf_dad_work`]). An address not tentative is announced again
    /// then: its host route comes back if it was deleted and, under forwarding, it
    /// joins its subnet-router anycast once more, a second reference that forwarding's
    /// going off later does not drop (conformance scenario 331).
    pub(crate) fn addrconf_dad_restart(&mut self, dev: u32, which: &[u128]) {
        let ready = self.links.get(&dev).is_some_and(|l| l.oper_up())
            && self.v6_ready.contains(&dev)
            && !self.ipv6_disabled(dev);
        if !ready {
            return;
        }
        for &addr in which {
            if let Some(flags) = self
                .addrs6(dev)
                .iter()
                .find(|x| x.addr == addr)
                .map(|x| x.flags)
            {
                let at = self.ms_clock + self.dad_delay6_ms(dev, flags);
                self.dad_due.insert(
                    (dev, addr),
                    DadRun {
                        at,
                        begin: true,
                        left: 0,
                    },
                );
            }
        }
    }

    /// Whether `dev` has IPv6 state (the kernel's `inet6_dev`): every link but one
    /// whose MTU is below 1280; the per-device IPv6 sysctls live and die with it.
    pub fn has_idev6(&self, dev: u32) -> bool {
        self.sysctl.v6_dev.contains_key(&dev)
    }

    /// Whether `dev` cannot carry IPv6: no IPv6 state, or IPv6 disabled on it (the
    /// kernel's `!idev || idev->cnf.disable_ipv6`).
    pub fn ipv6_unusable(&self, dev: u32) -> bool {
        !self.has_idev6(dev) || self.ipv6_disabled(dev)
    }

    /// Whether `net.ipv6.conf.DEV.disable_ipv6` is set on `dev`.
    pub fn ipv6_disabled(&self, dev: u32) -> bool {
        self.sysctl
            .v6_dev
            .get(&dev)
            .is_some_and(|c| c.disable_ipv6 != 0)
    }

    /// Give one path of an IPv6 multipath route attributes of its own, as a mirror of
    /// a host reads them (IPv6 keeps each path as its own entry, but the kernel's dump
    /// gives a multipath route once, with its first path's): the entry of table
    /// `table` at (`dst`, `src`) with metric `metric`, siblings, and the nexthop `gw`
    /// on `dev` takes the protocol, preference, preferred source and metrics given.
    /// ENOENT without such an entry.
    #[allow(clippy::too_many_arguments)]
    pub fn route6_set_path_attrs(
        &mut self,
        table: u32,
        dst: Prefix6,
        src: Prefix6,
        metric: u32,
        nh: (Option<u128>, u32),
        proto: u8,
        pref: crate::route::Pref,
        prefsrc: Option<u128>,
        metrics: crate::route::Metrics,
    ) -> Result<()> {
        let r = self
            .tables6
            .get_mut(&table)
            .and_then(|t| t.get_mut(dst, src))
            .and_then(|l| {
                l.iter_mut().find(|r| {
                    r.metric == metric && r.sibling_group != 0 && (r.nh.gw, r.nh.dev) == nh
                })
            })
            .ok_or(Error::new(Errno::ENOENT))?;
        r.proto = proto;
        r.pref = pref;
        r.prefsrc = prefsrc;
        r.metrics = metrics;
        self.bump();
        Ok(())
    }

    /// `rt6_mtu_change`: the MTU of a device with IPv6 state went from `old` to `mtu`
    /// (both at least 1280). Each route with a path through it (a nexthop object's path
    /// too: `fib6_nh_mtu_change` per path) whose MTU metric is not locked and is at
    /// least the new MTU, or equals the device's IPv6 `mtu` sysctl (the old MTU unless
    /// written since), takes the new one; routes without an MTU metric are left alone
    /// (conformance scenarios 225, 486). The sysctl then follows the device's MTU.
    pub(crate) fn rt6_mtu_change(&mut self, dev: u32, old: u32, mtu: u32) {
        use crate::route::rtax;
        let mtu6 = match self.sysctl.v6_dev.get(&dev).map_or(0, |c| c.mtu6) {
            0 => old,
            v => v,
        };
        let objs = &self.nexthops;
        for t in self.tables6.values_mut() {
            t.for_each_list_mut(|l| {
                for r in l.iter_mut() {
                    if r.metrics.locks & (1 << rtax::MTU) != 0 {
                        continue;
                    }
                    let through = if r.nh_id != 0 {
                        matches!(crate::nexthop::paths6(objs, r.nh_id),
                            Ok(Some((paths, _))) if paths.iter().any(|p| p.dev == dev))
                    } else {
                        r.nh.dev == dev
                    };
                    if !through {
                        continue;
                    }
                    let pmtu = r.metrics.get(rtax::MTU).unwrap_or(0);
                    if pmtu >= mtu || pmtu == mtu6 {
                        r.metrics.set(rtax::MTU, mtu);
                    }
                }
            });
        }
        if let Some(c) = self.sysctl.v6_dev.get_mut(&dev) {
            c.mtu6 = 0;
        }
    }

    /// The device's IPv6 state goes (MTU below 1280: `addrconf_ifdown(dev, true)`):
    /// its addresses, its routes (each multipath leg on it too), its neighbour
    /// entries and its per-device IPv6 sysctls.
    pub(crate) fn ipv6_idev_destroy(&mut self, dev: u32) {
        self.ipv6_netdev_down(dev, true);
        self.neigh_ifdown(dev, Some(true));
        self.mc6_destroy(dev);
        self.sysctl.v6_dev.remove(&dev);
        self.ntable_parms_release(dev, true);
        if let Some(n) = self.links.get(&dev).map(|l| l.name.clone()) {
            self.sysctl_dev_keys_move(&n, None, &["ipv6"]);
        }
    }

    /// `ip link set DEV addrgenmode MODE` (`inet6_validate_link_af`,
    /// `inet6_set_link_af`): how the device's link-local address is made at its next
    /// link up (0 EUI-64, 1 none, 2 stable privacy, 3 random); nothing changes now.
    /// EAFNOSUPPORT for a device without IPv6 state, EINVAL for stable privacy without
    /// a secret ([`Netns::stable_secret6`]) or an unknown mode.
    pub fn link_set_addrgenmode(&mut self, dev: u32, mode: u8) -> Result<()> {
        if !self.links.contains_key(&dev) {
            return Err(Error::new(Errno::ENODEV));
        }
        // check_addr_gen_mode: stable privacy needs a secret
        let no_secret = self.stable_secret6(dev).is_none();
        let Some(c) = self.sysctl.v6_dev.get_mut(&dev) else {
            return Err(Error::new(Errno::EAFNOSUPPORT));
        };
        if (mode == 2 && no_secret) || mode > 3 {
            return Err(Error::new(Errno::EINVAL));
        }
        c.addr_gen_mode = mode;
        self.bump();
        Ok(())
    }

    /// `net.ipv6.conf.{all,default,DEV}.addr_gen_mode = MODE`
    /// (`addrconf_sysctl_addr_gen_mode`): `dev` `None` with `all` false is `default`,
    /// which only new devices read. A mode other than 0-3 is EINVAL, and so is stable
    /// privacy (2) for a device without a secret of its own or `default`'s (`all` does
    /// not check). A device whose mode changes (for `all`: every device with IPv6 state
    /// and another mode, `default` taking it too) has its automatic addresses made at
    /// once, up or down (`addrconf_init_auto_addrs`, unlike `ip link set DEV
    /// addrgenmode`, which waits for the next link up): the loopback its `::1`, another
    /// device its default multicast route and the link-local address of the new mode
    /// (a tun's EUI-64 mode becomes random first), unless IPv6 is disabled on it.
    pub fn sysctl_addr_gen_mode(&mut self, dev: Option<u32>, all: bool, mode: u32) -> Result<()> {
        if mode > 3 {
            return Err(Error::new(Errno::EINVAL));
        }
        let m = mode as u8;
        if let Some(d) = dev {
            if !self.has_idev6(d) {
                return Err(Error::new(Errno::ENODEV));
            }
            if m == 2 && self.stable_secret6(d).is_none() {
                return Err(Error::new(Errno::EINVAL));
            }
            if self.sysctl.v6_dev.get(&d).map(|c| c.addr_gen_mode) != Some(m) {
                self.sysctl
                    .v6_dev
                    .get_mut(&d)
                    .expect("checked")
                    .addr_gen_mode = m;
                self.addrconf_init_auto_addrs(d);
            }
        } else if all {
            self.sysctl.v6_default.addr_gen_mode = m;
            let devs: Vec<u32> = self
                .sysctl
                .v6_dev
                .iter()
                .filter(|(_, c)| c.addr_gen_mode != m)
                .map(|(&d, _)| d)
                .collect();
            for d in devs {
                if let Some(c) = self.sysctl.v6_dev.get_mut(&d) {
                    c.addr_gen_mode = m;
                }
                self.addrconf_init_auto_addrs(d);
            }
            self.sysctl.v6_all.addr_gen_mode = m;
        } else {
            self.sysctl.v6_default.addr_gen_mode = m;
        }
        self.bump();
        Ok(())
    }

    /// `addrconf_init_auto_addrs` for a device with IPv6 state, up or down.
    fn addrconf_init_auto_addrs(&mut self, dev: u32) {
        let Some(l) = self.links.get(&dev).cloned() else {
            return;
        };
        // ipv6_find_idev: the groups of a device that is up are loaded again
        if l.up {
            self.mc6_up(dev);
        }
        if self.ipv6_disabled(dev) {
            return;
        }
        if l.is_loopback() {
            self.init_loopback6(dev);
            return;
        }
        // addrconf_dev_config -> addrconf_add_dev: the default multicast route
        self.addrconf_add_mroute(dev);
        if l.is_tun() {
            if let Some(c) = self.sysctl.v6_dev.get_mut(&dev) {
                if c.addr_gen_mode == 0 {
                    c.addr_gen_mode = 3;
                }
            }
        }
        self.addrconf_addr_gen(dev);
    }

    /// A secret for `dev` in random address generation mode, unless it has one.
    fn random_stable_secret6(&mut self, dev: u32) {
        let salt = self.mac_counter;
        if let Some(c) = self.sysctl.v6_dev.get_mut(&dev) {
            if c.stable_secret.is_none() {
                // splitmix64 of the device and the namespace's link counter
                let mix = |mut z: u64| {
                    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
                    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                    z ^ (z >> 31)
                };
                let seed = (u64::from(dev) << 32) | u64::from(salt);
                let hi = mix(seed);
                c.stable_secret = Some((u128::from(hi) << 64) | u128::from(mix(hi)));
            }
        }
    }

    /// The secret of `dev`'s stable privacy addresses: its own `stable_secret`, else
    /// `default`'s (`ipv6_generate_stable_address`).
    pub fn stable_secret6(&self, dev: u32) -> Option<u128> {
        self.sysctl
            .v6_dev
            .get(&dev)
            .and_then(|c| c.stable_secret)
            .or(self.sysctl.v6_default.stable_secret)
    }

    /// `net.ipv6.conf.DEV.mtu = MTU` (checked by the caller: 1280 up to the device's
    /// MTU): what the device's next MTU change compares route MTUs with
    /// (`rt6_mtu_change`). Nothing for a device without IPv6 state.
    pub fn set_mtu6(&mut self, dev: u32, mtu: u32) {
        if let Some(c) = self.sysctl.v6_dev.get_mut(&dev) {
            c.mtu6 = mtu;
        }
    }

    /// `net.ipv6.conf.{default,DEV}.stable_secret = SECRET`
    /// (`addrconf_sysctl_stable_secret`): the secret is kept, and the device (for
    /// `default`: every device with IPv6 state) switches to stable privacy mode, for
    /// its next link-local address; `all` has none (EIO). `dev` `None` is `default`.
    pub fn set_stable_secret(&mut self, dev: Option<u32>, secret: u128) -> Result<()> {
        match dev {
            None => {
                self.sysctl.v6_default.stable_secret = Some(secret);
                for c in self.sysctl.v6_dev.values_mut() {
                    c.addr_gen_mode = 2;
                }
            }
            Some(d) => {
                let c = self
                    .sysctl
                    .v6_dev
                    .get_mut(&d)
                    .ok_or(Error::new(Errno::ENODEV))?;
                c.stable_secret = Some(secret);
                c.addr_gen_mode = 2;
            }
        }
        self.bump();
        Ok(())
    }

    /// `net.ipv6.conf.{all,DEV}.disable_ipv6 = on` for `dev` (`dev_disable_change`): set,
    /// the device's IPv6 goes down as with the link (no address kept, neighbour
    /// entries flushed); cleared, it comes up again when the link is ready.
    pub fn set_disable_ipv6(&mut self, dev: u32, on: bool) {
        let Some(c) = self.sysctl.v6_dev.get_mut(&dev) else {
            return;
        };
        let was = c.disable_ipv6 != 0;
        c.disable_ipv6 = u32::from(on);
        if was == on {
            return;
        }
        if on {
            self.ipv6_netdev_down(dev, false);
            self.neigh_ifdown(dev, Some(true));
        } else if self.links.get(&dev).is_some_and(|l| l.up) {
            self.ipv6_netdev_up(dev);
        }
        self.bump();
    }

    pub(crate) fn ipv6_netdev_up(&mut self, dev: u32) {
        if self.ipv6_unusable(dev) {
            return;
        }
        self.addrconf_permanent_addr(dev);
        if !self.links[&dev].oper_up() {
            return;
        }
        if self.loopback_below_v6_mtu(dev) {
            // addrconf_notify configures a loopback below IPv6's minimum MTU like any
            // device, then stops IPv6 on it again (addrconf_ifdown without
            // unregistering): the routes addrconf_permanent_addr restored go again
            self.ipv6_netdev_down(dev, false);
            return;
        }
        self.v6_ready.insert(dev);
        self.addrconf_dev_config(dev);
        self.rt6_sync_up(dev, nhflags::DEAD);
        self.ipv6_stop_below_min_mtu(dev);
    }

    /// The end of addrconf_notify's NETDEV_UP (and of a NETDEV_CHANGE that makes the
    /// link ready): an MTU below IPv6's minimum, written while the device was down
    /// without a NETDEV_CHANGEMTU (a VXLAN device given a new lower device, random
    /// seed vxlan 2063), stops IPv6 on it as an unregistration would.
    fn ipv6_stop_below_min_mtu(&mut self, dev: u32) {
        let low = self
            .links
            .get(&dev)
            .is_some_and(|l| !l.is_loopback() && l.mtu < crate::netns::IPV6_MIN_MTU);
        if low && self.has_idev6(dev) {
            self.ipv6_idev_destroy(dev);
        }
    }

    pub(crate) fn ipv6_netdev_change(&mut self, dev: u32, carrier: bool, restart_dad: bool) {
        if self.ipv6_unusable(dev) {
            return;
        }
        if !carrier {
            // rt6_sync_down_dev(NETDEV_CHANGE): non-local routes via dev get LINKDOWN
            for t in self.tables6.values_mut() {
                t.for_each_list_mut(|l| {
                    for r in l.iter_mut() {
                        if r.nh.dev == dev
                            && r.nh_id == 0
                            && r.flags & (rtf::LOCAL | rtf::ANYCAST) == 0
                        {
                            r.nh.flags |= nhflags::LINKDOWN;
                        }
                    }
                });
            }
            let groups = self.groups_via6(dev);
            self.rt6_rebalance(groups);
            return;
        }
        if self.v6_ready.contains(&dev) {
            // a device configured already sends its reports again (ipv6_mc_up)
            self.mc6_up(dev);
            if restart_dad {
                let all: Vec<u128> = self.addrs6(dev).iter().map(|a| a.addr).collect();
                self.addrconf_dad_restart(dev, &all);
            }
            self.rt6_sync_up(dev, nhflags::LINKDOWN);
            return;
        }
        if self.loopback_below_v6_mtu(dev) {
            // the link "becomes ready", and a loopback below IPv6's minimum MTU stops
            // IPv6 again at the end: the addresses added since go, but those
            // keep_addr_on_down keeps, whose routes go
            self.ipv6_netdev_down(dev, false);
            return;
        }
        self.v6_ready.insert(dev);
        self.addrconf_dev_config(dev);
        // run_pending: addrconf_dad_run(idev, false) kicks the DAD of the addresses
        // left tentative while the device was not ready (conformance scenario 359)
        let pending: Vec<u128> = self
            .addrs6(dev)
            .iter()
            .filter(|a| a.flags & ifa::TENTATIVE != 0 && !a.predad)
            // (a failed DAD is over: addrconf_dad_run passes such an address over)
            .filter(|a| a.flags & ifa::DADFAILED == 0)
            .filter(|a| !self.dad_due.contains_key(&(dev, a.addr)))
            .map(|a| a.addr)
            .collect();
        for addr in pending {
            if !self.addrconf_dad_start(dev, addr) {
                let Some(a) = self
                    .addrs6
                    .get_mut(&dev)
                    .and_then(|v| v.iter_mut().find(|x| x.addr == addr))
                else {
                    continue;
                };
                a.flags &= !(ifa::TENTATIVE | ifa::DADFAILED);
                let a = a.clone();
                self.ifa_notify_new6(dev, &a);
            }
        }
        self.rt6_sync_up(dev, nhflags::DEAD);
        self.ipv6_stop_below_min_mtu(dev);
    }

    /// Every device's `ignore_routes_with_linkdown` now (what a rebalance reads).
    fn lb_snapshot6(&self) -> std::collections::BTreeMap<u32, bool> {
        self.links
            .keys()
            .map(|&d| (d, self.ignore_linkdown6(d)))
            .collect()
    }

    /// `rt6_multipath_rebalance` of the sibling groups `groups`: their upper bounds are
    /// computed from the legs' state now, `ignore_routes_with_linkdown` included (a
    /// later change of that sysctl alone does not rebalance: random seed 40320).
    fn rt6_rebalance(&mut self, groups: impl IntoIterator<Item = u64>) {
        let snap = self.lb_snapshot6();
        for g in groups {
            if g != 0 {
                self.lb_ignore6.insert(g, snap.clone());
            }
        }
    }

    /// The sibling groups with a leg through `dev` (not through a nexthop object).
    fn groups_via6(&self, dev: u32) -> Vec<u64> {
        let mut v = Vec::new();
        for t in self.tables6.values() {
            for list in t.lists() {
                v.extend(
                    list.iter()
                        .filter(|r| r.sibling_group != 0 && r.nh.dev == dev && r.nh_id == 0)
                        .map(|r| r.sibling_group),
                );
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    fn rt6_sync_up(&mut self, dev: u32, flags: u32) {
        let mut f = flags;
        if flags & nhflags::DEAD != 0 && self.links.get(&dev).is_some_and(|l| l.carrier) {
            f |= nhflags::LINKDOWN;
        }
        for t in self.tables6.values_mut() {
            t.for_each_list_mut(|l| {
                for r in l.iter_mut() {
                    if r.nh.dev == dev && r.nh_id == 0 {
                        r.nh.flags &= !f;
                    }
                }
            });
        }
        // fib6_ifup rebalances each group it touched
        let groups = self.groups_via6(dev);
        self.rt6_rebalance(groups);
    }

    /// `addrconf_ifdown` + `rt6_disable_ip`.
    pub(crate) fn ipv6_netdev_down(&mut self, dev: u32, unregister: bool) {
        // the leave reports addrconf_ifdown makes are held: ipv6_mc_down cancels them
        // on a device that was ready, unregistering kills them, and otherwise the
        // kernel's work sends them after the device's neighbours were flushed
        self.mld_late.clear();
        let was_ready = self.v6_ready.contains(&dev);
        self.mld_held = Some(Vec::new());
        self.addrconf_ifdown(dev, unregister);
        let held = self.mld_held.take().unwrap_or_default();
        if !unregister && !was_ready {
            self.mld_late = held;
        }
    }

    /// `addrconf_ifdown` (see [`Netns::ipv6_netdev_down`]).
    fn addrconf_ifdown(&mut self, dev: u32, unregister: bool) {
        // addrconf_ifdown cancels the addresses' DAD work (kept ones start it again at
        // link up)
        self.dad_due.retain(|&(d, _), _| d != dev);
        // routes via dev: deleted; multipath legs marked dead unless all legs die
        let mut dead_groups: Vec<u64> = Vec::new();
        for t in self.tables6.values() {
            for list in t.lists() {
                // (legs, legs dead or on dev, whether a leg is on dev)
                let mut groups: std::collections::BTreeMap<u64, (usize, usize, bool)> =
                    Default::default();
                for r in list.iter().filter(|r| r.nh_id == 0) {
                    if r.sibling_group != 0 {
                        let e = groups.entry(r.sibling_group).or_default();
                        e.0 += 1;
                        if r.nh.dev == dev || r.nh.flags & nhflags::DEAD != 0 {
                            e.1 += 1;
                        }
                        e.2 |= r.nh.dev == dev;
                    }
                }
                // rt6_multipath_dead_count is asked only of a route with a leg on dev
                // (rt6_multipath_uses_dev): a route whose legs all died earlier, on
                // another device, stays when an unrelated device goes down
                for (g, (n, d, uses)) in groups {
                    if uses && n == d {
                        dead_groups.push(g);
                    }
                }
            }
        }
        // (fib6_ifdown leaves the routes through nexthop objects alone: they live and
        // die with the objects)
        if unregister {
            self.fib6_remove_where(|r| r.nh.dev == dev && r.nh_id == 0);
        } else {
            // fib6_ifdown as fib6_clean_node walks a node's entries: a multipath entry
            // not flushed (every leg dead) answers -2, and the walk goes on after the
            // last of its siblings, so an entry between its legs (a route without a
            // gateway added before the last leg joined) is not visited and stays,
            // its device down (found by `route6` seed 261)
            self.fib6_remove_marked(|list| {
                let mut kill = vec![false; list.len()];
                let mut i = 0;
                while let Some(r) = list.get(i) {
                    if r.nh_id != 0 {
                        i += 1;
                    } else if r.sibling_group == 0 {
                        kill[i] = r.nh.dev == dev;
                        i += 1;
                    } else if dead_groups.contains(&r.sibling_group) {
                        // rt6_multipath_flush: each leg goes as the walk reaches it
                        kill[i] = true;
                        i += 1;
                    } else {
                        let g = r.sibling_group;
                        i = list.iter().rposition(|x| x.sibling_group == g).unwrap_or(i) + 1;
                    }
                }
                kill
            });
            for t in self.tables6.values_mut() {
                t.for_each_list_mut(|l| {
                    for r in l.iter_mut() {
                        if r.sibling_group != 0 && r.nh.dev == dev && r.nh_id == 0 {
                            r.nh.flags |= nhflags::DEAD | nhflags::LINKDOWN;
                        }
                    }
                });
            }
            let groups = self.groups_via6(dev);
            self.rt6_rebalance(groups);
        }
        let was_ready = self.v6_ready.remove(&dev);
        let keep_conf = {
            let all = self.sysctl.v6_all.keep_addr_on_down;
            let d = self
                .sysctl
                .v6_dev
                .get(&dev)
                .map_or(0, |c| c.keep_addr_on_down);
            let k = if all != 0 { all } else { d };
            // a device whose IPv6 is disabled keeps nothing
            k > 0 && !unregister && !self.ipv6_disabled(dev)
        };
        let list = self.addrs6(dev).to_vec();
        let fwd = self.dev_forwarding6(dev);
        let mut kept = Vec::new();
        for a in list {
            let local = v6::addr_type(a.addr) & (v6::LINKLOCAL | v6::LOOPBACK) != 0;
            let keep = keep_conf && a.flags & ifa::PERMANENT != 0 && !local;
            self.del_local_route6(a.addr, dev, false);
            if fwd {
                self.leave_anycast(dev, &a);
            }
            // kept or not, the address leaves its solicited-node group
            self.leave_solict(dev, a.addr);
            if !keep {
                // an address not kept is notified gone (__ipv6_ifa_notify's
                // RTM_DELADDR), which outdates the IPv6 route copies (conformance
                // scenario 480)
                self.fib6_sernum_bump();
            }
            if keep {
                let mut a = a;
                // kept addresses wait for DAD again while the link is down, but for
                // those that skip it (addrconf_ifdown: `nodad` ones stay as they are)
                if a.flags & ifa::NODAD == 0 {
                    a.flags |= ifa::TENTATIVE;
                }
                a.predad = true;
                kept.push(a);
            }
        }
        if kept.is_empty() {
            self.addrs6.remove(&dev);
        } else {
            self.addrs6.insert(dev, kept);
        }
        if unregister {
            self.addrs6.remove(&dev);
            for p in self.anycast6.remove(&dev).unwrap_or_default() {
                self.leave_solict(dev, p);
            }
        } else if was_ready {
            // ipv6_mc_down: a device that was ready unloads its groups
            self.mc6_down(dev);
        }
    }

    /// `net.ipv6.conf.{all,DEV}.forwarding` changed: join or leave subnet-router anycast.
    pub(crate) fn ipv6_forward_change(&mut self, dev: u32, on: bool) {
        let was = self.dev_forwarding6(dev);
        if let Some(c) = self.sysctl.v6_dev.get_mut(&dev) {
            c.forwarding = u32::from(on);
        }
        if was == on {
            return;
        }
        self.mc6_forward_change(dev, on);
        let list = self.addrs6(dev).to_vec();
        // dev_forward_change passes over tentative addresses (those kept over a link
        // down wait for it to come up; conformance scenario 228)
        for a in list.into_iter().filter(|a| a.flags & ifa::TENTATIVE == 0) {
            if on {
                self.join_anycast(dev, &a);
            } else {
                self.leave_anycast(dev, &a);
            }
        }
    }

    // ------------------------------------------------------------ lookups

    fn rt6_check_neigh(&self, r: &Route6) -> i32 {
        let Some(gw) = r.nh.gw else {
            return 1;
        };
        match self.neigh_state(r.nh.dev, gw, true) {
            Some(s) if s.valid() => 1,
            // (unless a router probe of the running lookup resolves it again)
            Some(NudState::Failed) if !Netns::rt6_probe_revived(r.nh.dev, gw) => NUD_FAIL_PROBE,
            Some(_) => 1,
            None => 1,
        }
    }

    fn rt6_score_route(&self, r: &Route6, oif: u32, strict: u32) -> i32 {
        let mut m = 0;
        if oif == 0 || r.nh.dev == oif {
            m = 2;
        }
        if m == 0 && strict & self::strict::IFACE != 0 {
            return NUD_FAIL_HARD;
        }
        m |= r.pref.score() << 2;
        if strict & self::strict::REACHABLE != 0
            && r.flags & rtf::NONEXTHOP == 0
            && r.nh.gw.is_some()
        {
            let n = self.rt6_check_neigh(r);
            if n < 0 {
                return n;
            }
        }
        m
    }

    fn route_expired(&self, r: &Route6) -> bool {
        r.expires.is_some_and(|e| e <= self.ms_clock)
    }

    /// `rt6_select` over one node's list: the best entry, or `None`.
    fn rt6_select<'a>(&self, list: &'a [Route6], oif: u32, strict: u32) -> Option<&'a Route6> {
        if list.is_empty() {
            return None;
        }
        let metric = list[0].metric;
        let mut best: Option<&Route6> = None;
        let mut mpri = -1;
        let mut cont = None;
        // whether the walk stops at `r` (__find_rr_leaf: a route through a blackhole
        // object is taken as it comes, whatever the oif or its score)
        let consider = |r: &'a Route6, best: &mut Option<&'a Route6>, mpri: &mut i32| -> bool {
            if self.route_expired(r) {
                return false;
            }
            if r.nh_id != 0 && self.nh_is_blackhole(r.nh_id) {
                *best = Some(r);
                return true;
            }
            if r.nh.flags & nhflags::DEAD != 0 {
                return false;
            }
            if strict & self::strict::IGNORE_LINKSTATE == 0
                && r.nh.flags & nhflags::LINKDOWN != 0
                && self.ignore_linkdown6(r.nh.dev)
            {
                return false;
            }
            let m = self.rt6_score_route(r, oif, strict);
            if m == NUD_FAIL_HARD {
                return false;
            }
            // find_match probes the route's router (rt6_probe)
            if strict & self::strict::REACHABLE != 0 {
                self.rt6_probe_note(r);
            }
            if m > *mpri {
                *mpri = m;
                *best = Some(r);
            }
            false
        };
        // the paths of a group object are tried in the group's order until one
        // scores above the best so far (nexthop_for_each_fib6_nh stops at the first
        // rt6_nh_find_match): once one has, the group's later paths are not scored
        // (conformance scenario 474)
        let mut matched_group = 0;
        let mut walk = |r: &'a Route6, best: &mut Option<&'a Route6>, mpri: &mut i32| -> bool {
            let group = if r.nh_id != 0 { r.sibling_group } else { 0 };
            if group != 0 && group == matched_group {
                return false;
            }
            let before = *mpri;
            if consider(r, best, mpri) {
                return true;
            }
            if group != 0 && *mpri != before {
                matched_group = group;
            }
            false
        };
        for (i, r) in list.iter().enumerate() {
            if r.metric != metric {
                cont = Some(i);
                break;
            }
            if walk(r, &mut best, &mut mpri) {
                return best;
            }
        }
        if best.is_some() {
            return best;
        }
        let c = cont?;
        for r in &list[c..] {
            if walk(r, &mut best, &mut mpri) {
                return best;
            }
        }
        best
    }

    /// Walk the candidate nodes of a table for `dst`/`src` in lookup-then-backtrack order
    /// (longest destination first; source-specific subtrees hide their node's own routes
    /// except at the root), returning the first answer `visit` gives.
    fn fib6_walk<'a, R>(
        &self,
        t: &'a crate::table::Table6,
        dst: u128,
        src: u128,
        from_len: Option<u8>,
        mut visit: impl FnMut(&'a [Route6]) -> Option<R>,
    ) -> Option<R> {
        // The kernel visits nodes in two phases. fib6_node_lookup finds the first one:
        // the longest destination whose subtree holds a source matching `src` (that
        // source node), or without a subtree holds routes; a destination with a
        // subtree but no matching source is passed over, its own routes too. Once a
        // node has been tried, fib6_backtrack goes up from it and visits every
        // destination on the way as its matching sources, longest first, then its own
        // routes (conformance scenarios 145, 192). The root's routes end both phases.
        let mut found_first = false;
        // what the first pass compares a node's key with: the address, or, for a
        // compiled answer, the prefix whose addresses it stands for
        let region = Prefix6::new(dst, from_len.unwrap_or(128));
        let start = if let Some(l) = from_len {
            l
        } else if t.is_compiled() {
            let (p, plain, sub) = t.longest(dst)?;
            if !sub {
                // the common case: the longest match's own routes, straight from the index
                if let Some(l) = plain {
                    if !l.is_empty() {
                        found_first = true;
                        if let Some(r) = visit(l.as_slice()) {
                            return Some(r);
                        }
                    }
                }
                if p.len == 0 {
                    return None;
                }
                p.len - 1
            } else {
                p.len
            }
        } else {
            128
        };
        for len in (0..=start).rev() {
            if !t.has_len(len) {
                continue;
            }
            let d = Prefix6::new(dst, len);
            // one probe of the destination: its plain node and its subtree
            let Some((plain, sub)) = t.dest(d) else {
                continue;
            };
            if sub {
                // the first pass tries a node without routes of its own only when the
                // address is inside its key (conformance scenario 317)
                let keyed = found_first
                    || plain.is_some_and(|l| !l.is_empty())
                    || t.tree_key(d).is_none_or(|k| k.covers(&region));
                let longest_src: u8 = if keyed { 128 } else { 0 };
                for sl in (1..=longest_src).rev() {
                    let s = Prefix6::new(src, sl);
                    if let Some(l) = t.get(d, s) {
                        if !l.is_empty() {
                            found_first = true;
                            if let Some(r) = visit(l.as_slice()) {
                                return Some(r);
                            }
                        }
                    }
                }
                if !found_first && len != 0 {
                    continue;
                }
            }
            if let Some(l) = plain {
                if !l.is_empty() {
                    found_first = true;
                    if let Some(r) = visit(l.as_slice()) {
                        return Some(r);
                    }
                }
            }
        }
        None
    }

    /// Whether a multipath route covers `dst` at prefix length `len` or shorter in
    /// `table` (its leg, and so the leg's device, depends on the flow's hash).
    pub(crate) fn multipath_covers6(&self, table: u32, dst: u128, len: u8) -> bool {
        let Some(t) = self.tables6.get(&table) else {
            return false;
        };
        self.fib6_walk(t, dst, 0, Some(len), |list| {
            list.iter().any(|r| r.sibling_group != 0).then_some(())
        })
        .is_some()
    }

    /// `fib6_table_lookup`.
    pub(crate) fn fib6_table_lookup<'a>(
        &'a self,
        table: u32,
        oif: u32,
        fl: &Flow6,
        strict: u32,
    ) -> std::result::Result<FibResult6<'a>, Errno> {
        self.fib6_table_lookup_at(table, oif, fl, strict, None)
    }

    /// [`Self::fib6_table_lookup`] starting at destination prefix length `from_len`
    /// instead of the longest match of `fl.dst` (the walk backtracks from there).
    pub(crate) fn fib6_table_lookup_at<'a>(
        &'a self,
        table: u32,
        oif: u32,
        fl: &Flow6,
        strict: u32,
        from_len: Option<u8>,
    ) -> std::result::Result<FibResult6<'a>, Errno> {
        let Some(t) = self.tables6.get(&table) else {
            return Err(Errno::EAGAIN);
        };
        let mut s = strict;
        loop {
            let found = self.fib6_walk(t, fl.dst, fl.src, from_len, |list| {
                let r = self.rt6_select(list, oif, s)?;
                Some(FibResult6 {
                    route: r,
                    matched: r,
                    table,
                })
            });
            if let Some(res) = found {
                return Ok(res);
            }
            if s & self::strict::REACHABLE != 0 {
                s &= !self::strict::REACHABLE;
                continue;
            }
            return Err(Errno::EAGAIN);
        }
    }

    /// Whether the walk of one table selects a route under `strict` as given, without
    /// the retry that drops `REACHABLE` (when it does not, the first pass backtracked
    /// through every node covering the destination before the retry).
    pub(crate) fn fib6_selects_at(
        &self,
        table: u32,
        fl: &Flow6,
        strict: u32,
        from_len: Option<u8>,
    ) -> bool {
        self.tables6.get(&table).is_some_and(|t| {
            self.fib6_walk(t, fl.dst, fl.src, from_len, |list| {
                self.rt6_select(list, 0, strict)
            })
            .is_some()
        })
    }

    /// `fib6_table_lookup` in one table for a plain flow: the selected entry.
    /// Exposed for direct-table comparisons; `route_output6` is the full path.
    pub fn table_lookup6(&self, table: u32, dst: u128) -> std::result::Result<&Route6, Errno> {
        let fl = Flow6 {
            dst,
            ..Default::default()
        };
        self.fib6_table_lookup(table, 0, &fl, 0).map(|r| r.route)
    }

    /// `fib6_select_path`: ECMP among siblings.
    fn fib6_select_path<'a>(&'a self, res: &mut FibResult6<'a>, fl: &Flow6, oif: u32, strict: u32) {
        if res.route.sibling_group == 0 {
            // a group of one member is still a group (nexthop_is_multipath): a
            // resilient one marks the bucket the flow uses
            if res.route.nh_id != 0 && self.nh_res_table(res.route.nh_id).is_some() {
                let h = crate::ecmp::multipath_hash6(self, fl);
                self.nh_res_select(res.route.nh_id, h);
            }
            return;
        }
        let Some(t) = self.tables6.get(&res.table) else {
            return;
        };
        let Some(list) = t.get(res.route.dst, res.route.src) else {
            return;
        };
        let legs: Vec<&Route6> = list
            .iter()
            .filter(|r| r.sibling_group == res.route.sibling_group)
            .collect();
        if res.route.nh_id != 0 {
            // a group object: nexthop_path_fib6_result, its paths in the group's order
            let h = crate::ecmp::multipath_hash6(self, fl);
            if let Some(i) = self.nh_res_select(res.route.nh_id, h) {
                if let Some(r) = legs.get(i) {
                    res.route = r;
                }
                return;
            }
            let weights: Vec<u32> = legs.iter().map(|r| r.nh.weight).collect();
            let good: Vec<bool> = legs.iter().map(|r| self.nh_good6(&r.nh)).collect();
            res.route = legs[crate::nexthop::select_hthr(&weights, &good, h)];
            return;
        }
        // the upper bounds as the group's last rebalance set them: a linkdown leg is
        // out if its device ignored linkdown routes then
        let snap = self.lb_ignore6.get(&res.route.sibling_group);
        let alive: Vec<bool> = legs
            .iter()
            .map(|r| {
                let ignored = snap
                    .and_then(|m| m.get(&r.nh.dev).copied())
                    .unwrap_or_else(|| self.ignore_linkdown6(r.nh.dev));
                r.nh.flags & nhflags::DEAD == 0 && !(r.nh.flags & nhflags::LINKDOWN != 0 && ignored)
            })
            .collect();
        let weights: Vec<u32> = legs.iter().map(|r| r.nh.weight).collect();
        let bounds = crate::ecmp::upper_bounds6(&weights, &alive);
        let h = crate::ecmp::multipath_hash6(self, fl) as i64;
        // hash-threshold from the first path, whichever path rt6_select matched (Linux
        // 6.15+, "ipv6: Start path selection from the first nexthop"): the first path
        // whose region holds the hash, if it scores, else the matched one stays. With
        // an output device named beside a source (no strict device match), a flow
        // hashed to another device's path goes there (found by mirror-diff seed 998)
        if h <= i64::from(bounds[0]) && self.rt6_score_route(legs[0], oif, strict) >= 0 {
            res.route = legs[0];
            return;
        }
        for (j, leg) in legs.iter().enumerate().skip(1) {
            if h > i64::from(bounds[j]) {
                continue;
            }
            if self.rt6_score_route(leg, oif, strict) < 0 {
                break;
            }
            res.route = leg;
            break;
        }
    }

    /// `ip6_pol_route` in one table: `Ok` with a route (whose type may be a reject type),
    /// `Err(EAGAIN)` when nothing matched.
    pub(crate) fn ip6_pol_route<'a>(
        &'a self,
        table: u32,
        oif: u32,
        fl: &Flow6,
        flags: u32,
    ) -> std::result::Result<FibResult6<'a>, Errno> {
        self.ip6_pol_route_at(table, oif, fl, flags, None)
    }

    /// [`Netns::ip6_pol_route`] whose table walk starts at destination prefix length
    /// `from_len` (see [`Netns::fib6_table_lookup_at`]).
    pub(crate) fn ip6_pol_route_at<'a>(
        &'a self,
        table: u32,
        oif: u32,
        fl: &Flow6,
        flags: u32,
        from_len: Option<u8>,
    ) -> std::result::Result<FibResult6<'a>, Errno> {
        let mut strict = flags & (strict::IFACE | strict::IGNORE_LINKSTATE);
        if !self.forwarding6() {
            strict |= strict::REACHABLE;
        }
        let mut res = self.fib6_table_lookup_at(table, oif, fl, strict, from_len)?;
        self.fib6_select_path(&mut res, fl, oif, strict);
        Ok(res)
    }

    /// `fib6_lookup` (control-plane lookups: rules or local then main).
    pub(crate) fn fib6_lookup<'a>(
        &'a self,
        fl: &Flow6,
        flags: u32,
    ) -> std::result::Result<FibResult6<'a>, Errno> {
        if self.custom_rules6 {
            return self.fib6_rule_lookup_with(fl, flags, true, |t, f, fl| {
                self.fib6_table_lookup(t, fl.oif, &fl, f)
            });
        }
        match self.fib6_table_lookup(tid::LOCAL, fl.oif, fl, flags) {
            Ok(r) => Ok(r),
            Err(_) => self.fib6_table_lookup(tid::MAIN, fl.oif, fl, flags),
        }
    }

    /// `fib6_rule_lookup` with a table lookup function.
    pub(crate) fn fib6_rule_lookup<'a>(
        &'a self,
        fl: &Flow6,
        flags: u32,
        _oif: u32,
        lookup: impl Fn(u32, u32, Flow6) -> std::result::Result<FibResult6<'a>, Errno>,
    ) -> std::result::Result<FibResult6<'a>, Errno> {
        self.fib6_rule_lookup_with(fl, flags, false, lookup)
    }

    /// The rule walk of [`Self::fib6_rule_lookup`] (`alt` false: the route lookups'
    /// `fib6_rule_action`) or of `fib6_lookup` (`alt` true: `fib6_rule_action_alt`, which
    /// gateway validation uses): there a table's throw route is the answer, not a
    /// reason to go on, and `suppress_*` never applies (`fib6_rule_suppress` has no
    /// `rt6_info` to judge; conformance scenario 218).
    fn fib6_rule_lookup_with<'a>(
        &'a self,
        fl: &Flow6,
        flags: u32,
        alt: bool,
        lookup: impl Fn(u32, u32, Flow6) -> std::result::Result<FibResult6<'a>, Errno>,
    ) -> std::result::Result<FibResult6<'a>, Errno> {
        let rf = crate::rule::RuleFlow::of6(fl);
        let r = Self::rules_walk(
            &self.prog6,
            &rf,
            |t| {
                if !self.tables6.contains_key(&t) {
                    return Err(Errno::EAGAIN);
                }
                let res = lookup(t, flags, *fl)?;
                // fib6_rule_action: a result whose device has no IPv6 state (a route
                // through a nexthop object outlives its device's IPv6 state, below an
                // MTU of 1280) is passed over like a throw (conformance scenario 251);
                // fib6_rule_action_alt takes the FIB entry as it is, and the gateway
                // check refuses its device afterwards (scenario 394)
                if !alt && res.route.rtype.reject_error().is_none() {
                    let dev = if res.route.flags & (rtf::LOCAL | rtf::ANYCAST) != 0 {
                        1
                    } else {
                        res.route.nh.dev
                    };
                    if !self.has_idev6(dev) {
                        return Err(Errno::EAGAIN);
                    }
                }
                match res.route.rtype.reject_error() {
                    Some(Errno::EAGAIN) if !alt => Err(Errno::EAGAIN),
                    _ => Ok(res),
                }
            },
            |rule, res: &mut FibResult6<'a>| {
                if alt || res.route.rtype.reject_error().is_some() {
                    return false;
                }
                if i32::from(res.route.dst.len) <= rule.suppress_prefixlen {
                    return true;
                }
                if rule.suppress_ifgroup != -1 {
                    if let Some(l) = self.links.get(&res.route.nh.dev) {
                        if l.group as i32 == rule.suppress_ifgroup {
                            return true;
                        }
                    }
                }
                false
            },
        );
        match r {
            Err(Errno::ESRCH) => Err(Errno::ENETUNREACH),
            x => x,
        }
    }
}

/// An IPv6 flow (`struct flowi6` as `ip -6 route get` fills it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flow6 {
    /// Destination.
    pub dst: u128,
    /// Source (0: any).
    pub src: u128,
    /// Output interface.
    pub oif: u32,
    /// Input interface (0: output lookup).
    pub iif: u32,
    /// Mark.
    pub mark: u32,
    /// uid (`u32::MAX`: invalid uid, as input lookups without `uid`).
    pub uid: u32,
    /// Traffic class.
    pub tos: u8,
    /// Flow label.
    pub flowlabel: u32,
    /// Next header.
    pub proto: u8,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
}

impl Netns {
    /// Set `net.ipv6.conf.DEV.forwarding` (joining or leaving subnet-router anycast).
    pub fn set_forwarding6(&mut self, dev: u32, on: bool) {
        self.ipv6_forward_change(dev, on);
        self.bump();
    }
}

/// The `RTF_*` flags a new route gets from its request: reject types, `local`,
/// an expiry.
fn route6_flags(cfg: &Route6Cfg) -> u32 {
    let mut flags = cfg.flags;
    if matches!(
        cfg.rtype,
        RouteType::Blackhole | RouteType::Unreachable | RouteType::Prohibit | RouteType::Throw
    ) {
        flags |= rtf::REJECT;
    }
    if cfg.rtype == RouteType::Local {
        flags |= rtf::LOCAL;
    }
    if cfg.expires.is_some() {
        flags |= rtf::EXPIRES;
    }
    flags
}

/// `net.ipv6.route.gc_interval`'s default (seconds): the period of the IPv6 routes'
/// garbage collector, which removes expired routes (until then the dumps list them).
pub(crate) const GC6_INTERVAL: u64 = 30;

impl Netns {
    /// `net.ipv6.route.gc_interval` as last written (seconds; the default when it was
    /// never written or does not read as a number).
    pub(crate) fn gc6_interval(&self) -> u64 {
        self.sysctl
            .other
            .get("net.ipv6.route.gc_interval")
            .and_then(|v| v.trim().parse::<i64>().ok())
            .map_or(GC6_INTERVAL, |v| v.max(0) as u64)
    }
}

/// What `check_cleanup_prefix_route` decides for a prefix route.
enum Cleanup {
    /// Kept as it is.
    Nop,
    /// Deleted.
    Del,
    /// Kept, expiring at this time (millisecond clock) unless it expires already.
    Expire(u64),
}

/// The test `addrconf_get_prefix_route` puts each route at the prefix through, for
/// `RT6_TABLE_PREFIX` with no flags asked for and `RTF_DEFAULT` refused, `no_gw` set:
/// a route through a nexthop object is never an address's prefix route ("prefix routes
/// only use builtin fib6_nh"), even one whose nexthop is on `dev` without a gateway, so
/// a change of an address's metric, `noprefixroute` or its deletion leaves it alone
/// and acts on the address's own route behind it.
fn is_addrconf_prefix_route(r: &Route6, dev: u32) -> bool {
    r.nh_id == 0 && r.nh.dev == dev && r.nh.gw.is_none() && r.flags & rtf::DEFAULT == 0
}

/// `inet6_addr_add`/`inet6_addr_modify` on the request's flags (see
/// [`Lifetime::flags`]); returns the prefix route's expiry in seconds (`None`: it does
/// not expire).
fn addr6_lifetime_flags(flags: &mut u32, life: Lifetime) -> Option<u64> {
    *flags = life.flags(*flags);
    (!life.is_permanent()).then_some(u64::from(life.valid))
}
