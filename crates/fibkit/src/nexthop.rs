//! Nexthop objects (`ip nexthop`; the kernel's net/ipv4/nexthop.c).
//!
//! A nexthop object is a gateway and/or device (one family), a blackhole, or a
//! hash-threshold group of other objects with weights. Routes name one by id
//! (`nhid N`); fibkit keeps the id on the route and copies the object's paths into
//! it, so the lookups need nothing new (the kernel's dump shows the paths too while
//! `nexthop_compat_mode` is on, its default; off, the id alone, which the printers
//! follow: [`crate::sysctl::Sysctls::nexthop_compat_mode`]). Every object change re-derives the
//! routes that use it: a deleted object takes its routes with it, a group that
//! loses its last member goes too, and a device going down or losing its carrier
//! deletes the objects on it (`nexthop_flush_dev`); nothing brings them back.
//!
//! `fdb` nexthops and groups (a gateway without a device, for VXLAN forwarding
//! entries) are kept and shown, and no route may use them. Resilient groups
//! (`type resilient`) keep a bucket table ([`crate::nhres`]). Singles may carry an
//! encapsulation ([`crate::encap`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::encap::Encap;
use crate::error::{Errno, Error, Result};
use crate::netns::Netns;
use crate::nhres::{ResTable, DEFAULT_IDLE_TIMER_MS};
use crate::prefix::Family;
use crate::route::{nhflags, rtf, scope, table as tid, Gateway, Nh4, Nh6, Route6, RouteType};

/// A resilient group's timer given in seconds (iproute2 sends hundredths), as the
/// group keeps it: converted to ticks and stored in 32 bits (`nh_res_table`'s
/// `idle_timer` and `unbalanced_timer`), so a value beyond 2^32 ticks wraps; in ms.
fn res_timer_ms(secs: u32) -> u64 {
    let ticks = crate::bridge::clock_to_jiffies(u64::from(secs) * 100) as u32;
    u64::from(ticks) * (1000 / crate::bridge::HZ)
}

/// What an object is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NexthopKind {
    /// A gateway and/or a device.
    Single {
        /// The object's family (its gateway's, or the request's).
        family: Family,
        /// Gateway, if any (of the object's family).
        gw: Option<Gateway>,
        /// Device.
        dev: u32,
        /// `onlink` was given.
        onlink: bool,
        /// The scope the kernel gives it (`nhc_scope`): link with a gateway
        /// (or the scope of the route that resolved it), host for a device alone.
        scope: u8,
        /// Its encapsulation, if any.
        encap: Option<Arc<Encap>>,
    },
    /// `blackhole` (of the request's family; iproute2 sends IPv4 unless `-6`).
    Blackhole {
        /// The family.
        family: Family,
        /// `onlink` (kept by an IPv6 blackhole; an IPv4 one refuses it).
        onlink: bool,
    },
    /// A hash-threshold group: member ids with their weights (1..=256), in order.
    Group {
        /// The members.
        members: Vec<(u32, u32)>,
    },
}

/// One nexthop object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nexthop {
    /// Its id (never 0).
    pub id: u32,
    /// What it is.
    pub kind: NexthopKind,
    /// `proto` (`nh_protocol`; 0: unspecified).
    pub proto: u8,
    /// An `fdb` nexthop or group (for VXLAN forwarding entries: a gateway and no
    /// device; no route may use it).
    pub fdb: bool,
    /// A resilient group's bucket table (`None`: a single, or a hash-threshold group).
    pub res: Option<ResTable>,
    /// When the object was made or last replaced (a count): the kernel's list of a
    /// device's objects holds the newest first, and a device going away deletes them
    /// in that order. For a group, also when it last lost a member: each member's
    /// list of its groups (`grp_list`) holds the group made, replaced or shrunk last
    /// first (`list_add` in nexthop_create_group and remove_nh_grp_entry), which is
    /// the order a member's replacement checks them and its deletion shrinks them.
    pub dev_seq: u64,
    /// The source address an IPv4 object remembers (`nh_saddr` of its `fib_nh`; a
    /// replacement starts without one).
    pub saddr: crate::route::SaddrCache,
}

impl Nexthop {
    /// The object's family; `None` for a group.
    pub fn family(&self) -> Option<Family> {
        match self.kind {
            NexthopKind::Single { family, .. } | NexthopKind::Blackhole { family, .. } => {
                Some(family)
            }
            NexthopKind::Group { .. } => None,
        }
    }

    /// Whether the object is a group.
    pub fn is_group(&self) -> bool {
        matches!(self.kind, NexthopKind::Group { .. })
    }
}

/// An `ip nexthop add|replace` request, as iproute2 fills it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NexthopCfg {
    /// `id` (0: the kernel picks one).
    pub id: u32,
    /// The header's family (`None`: AF_UNSPEC, what iproute2 sends for a group).
    pub family: Option<Family>,
    /// `blackhole`.
    pub blackhole: bool,
    /// `fdb`.
    pub fdb: bool,
    /// `dev` (0: none).
    pub dev: u32,
    /// `via`.
    pub gw: Option<Gateway>,
    /// `via all` or `via any`: a gateway attribute of no length.
    pub gw_empty: bool,
    /// `onlink`.
    pub onlink: bool,
    /// `group ID[,WEIGHT]/...`: ids and weights (1..=256).
    pub group: Option<Vec<(u32, u32)>>,
    /// `type resilient` (the last `type` word counts).
    pub resilient: bool,
    /// An `NHA_RES_GROUP` attribute is sent: iproute2 adds one for `type resilient`
    /// followed by more words, even when a later `type mpath` makes the group an
    /// ordinary one, which the kernel then refuses.
    pub res_group: bool,
    /// `buckets N` (resilient groups).
    pub buckets: Option<u16>,
    /// `idle_timer SECONDS` (resilient groups).
    pub idle_timer: Option<u32>,
    /// `unbalanced_timer SECONDS` (resilient groups).
    pub unbalanced_timer: Option<u32>,
    /// `encap ...`.
    pub encap: Option<Arc<Encap>>,
    /// `proto`.
    pub proto: u8,
}

/// The loopback's index, where blackholes sit.
const LO: u32 = 1;

fn einval(m: &'static str) -> Error {
    Error::msg(Errno::EINVAL, m)
}

/// The checks of an `ip nexthop add|replace` request alone (`rtm_to_nh_config`).
fn check_request(cfg: &NexthopCfg) -> Result<()> {
    // the family (none only with a group), then `fdb`'s companions, then the group
    if cfg.family.is_none() && cfg.group.is_none() {
        return Err(einval("Invalid address family"));
    }
    if cfg.fdb {
        if cfg.dev != 0 || cfg.blackhole || cfg.encap.is_some() {
            return Err(einval(
                "Fdb attribute can not be used with encap, oif or blackhole",
            ));
        }
        if cfg.onlink {
            return Err(einval("Unsupported nexthop flags in ancillary header"));
        }
    }
    if let Some(group) = &cfg.group {
        if cfg.family.is_some() {
            return Err(einval("Invalid family for group"));
        }
        if group.is_empty() {
            return Err(einval("Invalid length for nexthop group attribute"));
        }
        for (i, (id, w)) in group.iter().enumerate() {
            if *w == 0 || *w > 256 {
                return Err(einval("Invalid value for weight"));
            }
            if group[i + 1..].iter().any(|(x, _)| x == id) {
                return Err(einval("Nexthop id can not be used twice in a group"));
            }
        }
        if cfg.blackhole
            || cfg.dev != 0
            || cfg.gw.is_some()
            || cfg.gw_empty
            || cfg.encap.is_some()
            || (cfg.res_group && !cfg.resilient)
        {
            return Err(einval("No other attributes can be set in nexthop groups"));
        }
        if cfg.resilient && cfg.buckets == Some(0) {
            return Err(einval("Number of buckets needs to be non-0"));
        }
    } else {
        let Some(family) = cfg.family else {
            return Err(einval("Invalid address family"));
        };
        if cfg.fdb {
            if cfg.gw_empty {
                return Err(einval("Invalid gateway"));
            }
            if matches!(
                (family, cfg.gw),
                (Family::V4, Some(Gateway::V6(_))) | (Family::V6, Some(Gateway::V4(_)))
            ) {
                return Err(einval("Invalid gateway"));
            }
        } else if cfg.blackhole {
            if cfg.gw.is_some() || cfg.gw_empty || cfg.dev != 0 || cfg.encap.is_some() {
                return Err(einval(
                    "Blackhole attribute can not be used with gateway, oif, encap or fdb",
                ));
            }
        } else {
            if cfg.dev == 0 {
                return Err(einval(
                    "Device attribute required for non-blackhole and non-fdb nexthops",
                ));
            }
            match (family, cfg.gw) {
                _ if cfg.gw_empty => return Err(einval("Invalid gateway")),
                (Family::V4, Some(Gateway::V6(_))) | (Family::V6, Some(Gateway::V4(_))) => {
                    return Err(einval("Invalid gateway"));
                }
                (_, None) if cfg.onlink => {
                    return Err(einval(
                        "ONLINK flag can not be set for nexthop without a gateway",
                    ));
                }
                _ => {}
            }
        }
        // `lwtunnel_valid_encap_type`, last
        if let Some(e @ Encap::Unsupported { .. }) = cfg.encap.as_deref() {
            e.check(false)?;
        }
    }
    Ok(())
}

/// The paths of object `id` for an IPv4 route: the nexthops, and whether the route
/// is a blackhole through it (a blackhole object, or a group of just one). `None`
/// when there is no such object.
pub(crate) fn paths4(
    objs: &BTreeMap<u32, Nexthop>,
    id: u32,
) -> Option<(smallvec::SmallVec<[Nh4; 1]>, bool)> {
    let leg = |o: &Nexthop, weight: u32| -> Nh4 {
        match &o.kind {
            NexthopKind::Single {
                gw,
                dev,
                onlink,
                scope,
                encap,
                ..
            } => Nh4 {
                gw: *gw,
                dev: *dev,
                weight,
                flags: if *onlink { nhflags::ONLINK } else { 0 },
                scope: *scope,
                realm: 0,
                encap: encap.clone(),
                saddr: Default::default(),
            },
            // a blackhole's path is the loopback; an IPv6 one keeps `onlink`
            // (fib_nexthop_info prints the flags of its fib6_nh)
            NexthopKind::Blackhole { onlink, .. } => Nh4 {
                gw: None,
                dev: LO,
                weight,
                flags: if *onlink { nhflags::ONLINK } else { 0 },
                scope: scope::HOST,
                realm: 0,
                encap: None,
                saddr: Default::default(),
            },
            _ => Nh4 {
                gw: None,
                dev: LO,
                weight,
                flags: 0,
                scope: scope::HOST,
                realm: 0,
                encap: None,
                saddr: Default::default(),
            },
        }
    };
    let o = objs.get(&id)?;
    let mut out = smallvec::SmallVec::new();
    match &o.kind {
        NexthopKind::Group { members } => {
            let mut blackhole = false;
            for &(m, w) in members {
                let mo = objs.get(&m)?;
                blackhole |= matches!(mo.kind, NexthopKind::Blackhole { .. });
                out.push(leg(mo, w));
            }
            Some((out, blackhole))
        }
        NexthopKind::Blackhole { .. } => {
            out.push(leg(o, 1));
            Some((out, true))
        }
        NexthopKind::Single { .. } => {
            out.push(leg(o, 1));
            Some((out, false))
        }
    }
}

/// The paths of object `id` for an IPv6 route (each leg's nexthop), and whether
/// it is a blackhole; `Err` with the kernel's refusal when the object (or a member)
/// is IPv4; `Ok(None)` when there is no such object.
pub(crate) fn paths6(objs: &BTreeMap<u32, Nexthop>, id: u32) -> Result<Option<(Vec<Nh6>, bool)>> {
    let Some(o) = objs.get(&id) else {
        return Ok(None);
    };
    let members: Vec<(u32, u32)> = match &o.kind {
        NexthopKind::Group { members } => members.clone(),
        _ => vec![(id, 1)],
    };
    // fib6_check_nexthop: an IPv4 object or member first, then fdb
    if members
        .iter()
        .any(|(m, _)| objs.get(m).and_then(Nexthop::family) == Some(Family::V4))
    {
        return Err(einval("IPv6 routes can not use an IPv4 nexthop"));
    }
    if o.fdb {
        return Err(einval("Route cannot point to a fdb nexthop"));
    }
    let mut out = Vec::new();
    let mut blackhole = false;
    for (m, w) in members {
        let Some(mo) = objs.get(&m) else {
            return Ok(None);
        };
        match &mo.kind {
            NexthopKind::Single {
                gw,
                dev,
                onlink,
                encap,
                ..
            } => out.push(Nh6 {
                gw: match gw {
                    Some(Gateway::V6(g)) => Some(*g),
                    _ => None,
                },
                dev: *dev,
                weight: w,
                flags: if *onlink { nhflags::ONLINK } else { 0 },
                encap: encap.clone(),
            }),
            other => {
                blackhole = true;
                let onlink = matches!(other, NexthopKind::Blackhole { onlink: true, .. });
                out.push(Nh6 {
                    gw: None,
                    dev: LO,
                    weight: w,
                    flags: if onlink { nhflags::ONLINK } else { 0 },
                    encap: None,
                });
            }
        }
    }
    Ok(Some((out, blackhole)))
}

impl Netns {
    /// The nexthop objects, by id.
    pub fn nexthops(&self) -> impl Iterator<Item = &Nexthop> {
        self.nexthops.values()
    }

    /// Object `id`.
    pub fn nexthop(&self, id: u32) -> Option<&Nexthop> {
        self.nexthops.get(&id)
    }

    /// `ip nexthop add` (`replace == false`) or `ip nexthop replace`
    /// (`rtm_new_nexthop`): the object's id.
    pub fn nexthop_new(&mut self, cfg: &NexthopCfg, replace: bool) -> Result<u32> {
        check_request(cfg)?;
        // nh_create_ipv4/_ipv6: a gateway of all zeros is no gateway (the attribute
        // passed the checks above as one)
        let plain;
        let cfg = if matches!(cfg.gw, Some(Gateway::V4(0) | Gateway::V6(0))) {
            plain = NexthopCfg {
                gw: None,
                ..cfg.clone()
            };
            &plain
        } else {
            cfg
        };
        if replace && cfg.id == 0 {
            return Err(einval("Replace requires nexthop id"));
        }
        self.nh_check_namespace(cfg)?;
        // nexthop_add: the id (picked before the object is made), then the object
        let id = if cfg.id == 0 {
            self.nh_find_unused_id()
                .ok_or_else(|| einval("No unused id"))?
        } else {
            cfg.id
        };
        let kind = self.nexthop_create(cfg)?;
        let mut new = Nexthop {
            id,
            kind,
            proto: cfg.proto,
            fdb: cfg.fdb,
            res: None,
            dev_seq: self.nh_dev_seq + 1,
            saddr: Default::default(),
        };
        // nh_create_ipv4: an IPv4 object (not an fdb one) chooses its source address
        // when it is made, at the scope just inside its nexthop's (conformance
        // scenario 453)
        if let NexthopKind::Single {
            family: Family::V4,
            gw,
            dev,
            scope,
            ..
        } = &new.kind
        {
            if !new.fdb {
                self.update_nhc_saddr4(&new.saddr, *dev, *gw, scope.saturating_sub(1));
            }
        }
        let now_ms = self.now_ms();
        match self.nexthops.get(&id) {
            None => {
                if cfg.resilient {
                    // insert_nexthop: a new group needs its number of buckets
                    let Some(n) = cfg.buckets else {
                        return Err(einval(
                            "Number of buckets not specified for nexthop group insertion",
                        ));
                    };
                    let mut t = ResTable::new(
                        n,
                        cfg.idle_timer.map_or(DEFAULT_IDLE_TIMER_MS, res_timer_ms),
                        cfg.unbalanced_timer.map_or(0, res_timer_ms),
                    );
                    if let NexthopKind::Group { members } = &new.kind {
                        t.set_members(members, now_ms);
                    }
                    new.res = Some(t);
                }
                self.nh_born(id, &new);
                self.nexthops.insert(id, new);
            }
            Some(_) if !replace => return Err(Error::new(Errno::EEXIST)),
            Some(old) => {
                let old = old.clone();
                self.nexthop_check_replace(&old, &new)?;
                // replace_nexthop_grp swaps only the member arrays (`nh_grp`) between
                // the old and the new object: the group keeps its own `protocol`
                // (replace_nexthop_single copies the new one, with the flags)
                if old.is_group() {
                    new.proto = old.proto;
                }
                if let (Some(mut t), NexthopKind::Group { members }) = (old.res, &new.kind) {
                    // replace_nexthop_grp: the group keeps its table
                    if !cfg.resilient {
                        return Err(einval(
                            "Can not replace a nexthop group with one of a different type.",
                        ));
                    }
                    if cfg
                        .buckets
                        .is_some_and(|n| usize::from(n) != t.num_buckets())
                    {
                        return Err(einval(
                            "Can not change number of buckets of a resilient nexthop group.",
                        ));
                    }
                    if let Some(s) = cfg.idle_timer {
                        t.set_idle_timer_ms(res_timer_ms(s));
                    }
                    if let Some(s) = cfg.unbalanced_timer {
                        t.set_unbalanced_timer_ms(res_timer_ms(s));
                    }
                    t.set_members(members, now_ms);
                    new.res = Some(t);
                } else if new.is_group() && cfg.resilient {
                    return Err(einval(
                        "Can not replace a nexthop group with one of a different type.",
                    ));
                }
                // nh_rt_cache_flush: only when IPv4 routes use the object itself (a
                // member's replacement leaves its groups' cached routes alone)
                let direct = self.v4_routes_via(id) != 0;
                // the IPv6 copy in the replaced object's fib6_nh goes with it; the FIB's
                // serial number moves on (fib6_update_sernum) only if IPv6 routes use
                // the object itself, not a group holding it (conformance scenario 485)
                self.pcpu6.retain(|c| c.object != id);
                // a group's replacement releases the copies of its old IPv6 members
                // too (nh_rt_cache_flush: fib6_nh_release_dsts of each; scenario 487)
                if let Some(NexthopKind::Group { members }) =
                    self.nexthops.get(&id).map(|o| &o.kind)
                {
                    let old: Vec<u32> = members.iter().map(|m| m.0).collect();
                    self.pcpu6.retain(|c| !old.contains(&c.object));
                }
                let direct6 = self
                    .tables6
                    .values()
                    .any(|t| t.lists().any(|l| l.iter().any(|r| r.nh_id == id)));
                if direct6 {
                    self.fib6_sernum_bump();
                }
                // and so do the IPv4 routes its nexthop cached (replace_nexthop_single
                // gives the object the new nh_info; conformance scenario 484)
                if !new.is_group() {
                    self.drop_object_caches4(id);
                }
                self.nh_born(id, &new);
                self.nexthops.insert(id, new);
                self.nh_sync_routes();
                if direct {
                    self.rt_cache_flush4();
                }
            }
        }
        self.nh_dev_seq += 1;
        self.res_run_due();
        self.bump();
        Ok(id)
    }

    /// The request against the namespace (`nh_check_attr_group_rtnl`,
    /// `rtm_to_nh_config_rtnl`): a group's members, a device's state.
    fn nh_check_namespace(&self, cfg: &NexthopCfg) -> Result<()> {
        if let Some(group) = &cfg.group {
            // nh_check_attr_fdb_group: an fdb group's members are checked one by one
            // in the group's order, each for being an fdb nexthop and then for the
            // family of the first one, so a second family is refused before a later
            // member that is no fdb nexthop at all
            let mut fdb_family: Option<Option<Family>> = None;
            for &(m, _) in group {
                let Some(o) = self.nexthops.get(&m) else {
                    return Err(einval("Invalid nexthop id"));
                };
                match o.kind {
                    NexthopKind::Group { .. } => {
                        return Err(einval(if o.res.is_some() {
                            "Resilient group can not be a nexthop within a group"
                        } else {
                            "Hash-threshold group can not be a nexthop within a group"
                        }))
                    }
                    NexthopKind::Blackhole { .. } if group.len() > 1 => {
                        return Err(einval(
                            "Blackhole nexthop can not be used in a group with more than 1 path",
                        ))
                    }
                    _ => {}
                }
                if cfg.fdb {
                    if !o.fdb {
                        return Err(einval("FDB nexthop group can only have fdb nexthops"));
                    }
                    match fdb_family {
                        None => fdb_family = Some(o.family()),
                        Some(f) if f != o.family() => {
                            return Err(einval(
                                "FDB nexthop group cannot have mixed family nexthops",
                            ))
                        }
                        Some(_) => {}
                    }
                }
                if !cfg.fdb && o.fdb {
                    return Err(einval("Non FDB nexthop group cannot have fdb nexthops"));
                }
            }
        } else if cfg.dev != 0 {
            let Some(l) = self.links.get(&cfg.dev) else {
                return Err(einval("Invalid device index"));
            };
            if !l.up {
                return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
            }
            if !l.carrier {
                return Err(Error::msg(
                    Errno::ENETDOWN,
                    "Carrier for nexthop device is down",
                ));
            }
        }
        Ok(())
    }

    /// `nh_find_unused_id`: the per-namespace counter moves on until an id is free;
    /// `None` once it has gone all the way round, or (the kernel's quirk) when it
    /// wraps to 0.
    fn nh_find_unused_id(&mut self) -> Option<u32> {
        let start = self.nh_last_id;
        loop {
            self.nh_last_id = self.nh_last_id.wrapping_add(1);
            if self.nh_last_id == start {
                return None;
            }
            if !self.nexthops.contains_key(&self.nh_last_id) {
                return (self.nh_last_id != 0).then_some(self.nh_last_id);
            }
        }
    }

    /// `nexthop_create`: a group's members are known good; a single is validated
    /// like a route's nexthop (IPv4 `fib_check_nh` in the main table, IPv6
    /// `fib6_nh_init`).
    fn nexthop_create(&mut self, cfg: &NexthopCfg) -> Result<NexthopKind> {
        if let Some(group) = &cfg.group {
            return Ok(NexthopKind::Group {
                members: group.clone(),
            });
        }
        let family = cfg.family.unwrap_or(Family::V4);
        if cfg.blackhole {
            // an IPv4 blackhole is checked as a nexthop without a gateway
            // (`fib_check_nh_nongw`), which refuses `onlink` before it looks at the
            // device
            if family == Family::V4 && cfg.onlink {
                return Err(einval(
                    "Invalid flags for nexthop - PERVASIVE and ONLINK can not be set",
                ));
            }
            // a blackhole is a nexthop through the loopback, which must be up (the
            // two families say so in their own words; restore mode: an object made
            // before the loopback went down outlives it)
            if !self.links.get(&LO).is_some_and(|l| l.up) && !self.restore_mode {
                let m = match family {
                    Family::V4 => "Device for nexthop is not up",
                    Family::V6 => "Nexthop device is not up",
                };
                return Err(Error::msg(Errno::ENETDOWN, m));
            }
            return Ok(NexthopKind::Blackhole {
                family,
                onlink: cfg.onlink,
            });
        }
        if cfg.fdb {
            // only its gateway is kept, unchecked (an IPv6 one is `::` when none; an
            // IPv4 one of all zeros is none)
            let gw = match family {
                Family::V4 => cfg.gw,
                Family::V6 => Some(cfg.gw.unwrap_or(Gateway::V6(0))),
            };
            return Ok(NexthopKind::Single {
                family,
                gw,
                dev: 0,
                onlink: false,
                scope: scope::LINK,
                encap: None,
            });
        }
        let dev = cfg.dev;
        let scope = match family {
            Family::V4 => {
                // fib_nh_init builds the encapsulation before fib_check_nh
                if let Some(e) = &cfg.encap {
                    e.check(false)?;
                }
                let mut nh = Nh4 {
                    gw: cfg.gw,
                    dev,
                    weight: 1,
                    flags: if cfg.onlink { nhflags::ONLINK } else { 0 },
                    scope: scope::UNIVERSE,
                    realm: 0,
                    encap: None,
                    saddr: Default::default(),
                };
                // fib_check_nh in the main table, for a route of universe scope
                // (the request's check refused a gateway of the other family)
                self.fib4_check_nh(&mut nh, tid::MAIN, scope::UNIVERSE)?;
                nh.scope
            }
            Family::V6 => {
                self.nh6_validate(dev, cfg.gw, cfg.onlink)?;
                // fib6_nh_init builds the encapsulation after the device checks
                if let Some(e) = &cfg.encap {
                    e.check(true)?;
                }
                scope::LINK
            }
        };
        Ok(NexthopKind::Single {
            family,
            gw: cfg.gw,
            dev,
            onlink: cfg.onlink,
            scope,
            encap: cfg.encap.clone(),
        })
    }

    /// `fib6_nh_init` for an object's IPv6 nexthop.
    fn nh6_validate(&self, dev: u32, gw: Option<Gateway>, onlink: bool) -> Result<()> {
        // restore mode (a mirror taking the kernel's objects as they are): an object
        // outlives its device's IPv6 state (an MTU below 1280 removes it) and the
        // routes that reached its gateway when it was made
        let restore = self.restore_mode;
        if !self.links.contains_key(&dev) || (!self.has_idev6(dev) && !restore) {
            return Err(Error::new(Errno::ENODEV));
        }
        let lo = self.links[&dev].is_loopback();
        if (onlink || lo) && !self.links[&dev].up {
            return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
        }
        if let (Some(Gateway::V6(g)), false) = (gw, restore) {
            let rcfg = crate::fib6::Route6Cfg {
                table: 0,
                ..Default::default()
            };
            let ncfg = crate::fib4::NhCfg {
                gw,
                dev,
                flags: if onlink { nhflags::ONLINK } else { 0 },
                ..Default::default()
            };
            let mut d = Some(dev);
            self.ip6_validate_gw(&rcfg, &ncfg, g, &mut d)?;
        }
        if lo {
            // a loopback nexthop is a reject one
            return Ok(());
        }
        if self.ipv6_disabled(dev) && !restore {
            return Err(Error::msg(
                Errno::EACCES,
                "IPv6 is disabled on nexthop device",
            ));
        }
        if !self.links[&dev].up {
            return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
        }
        Ok(())
    }

    /// `replace_nexthop`'s checks: the kind stays (single or group), and every route
    /// using the object, directly or through a group, must accept the new one.
    fn nexthop_check_replace(&self, old: &Nexthop, new: &Nexthop) -> Result<()> {
        let mut trial = self.nexthops.clone();
        trial.insert(new.id, new.clone());
        // the routes through the object (IPv4, then IPv6), against the new one
        // (fib_check_nh_list, fib6_check_nh_list)
        self.nh_check_routes_of(&trial, old.id, new.id)?;
        // each group holding it: a blackhole may not join several paths, and the
        // group's routes are checked against the new object itself
        // (in the member's grp_list order: the group made, replaced or shrunk last
        // first)
        let groups: Vec<&Nexthop> = self
            .groups_holding(new.id)
            .into_iter()
            .filter_map(|g| self.nexthops.get(&g))
            .collect();
        for g in &groups {
            if let NexthopKind::Group { members } = &g.kind {
                if matches!(new.kind, NexthopKind::Blackhole { .. }) && members.len() > 1 {
                    return Err(einval(
                        "Blackhole nexthop can not be a member of a group with more than one path",
                    ));
                }
            }
            self.nh_check_routes_of(&trial, g.id, new.id)?;
        }
        // replace_nexthop_grp / replace_nexthop_single
        match (old.is_group(), new.is_group()) {
            (false, true) => return Err(einval("Can not replace a nexthop with a nexthop group.")),
            (true, false) => return Err(einval("Can not replace a nexthop group with a nexthop.")),
            _ => {}
        }
        if !groups.is_empty() && old.fdb != new.fdb {
            return Err(einval("Cannot change nexthop FDB status while in a group."));
        }
        Ok(())
    }

    /// Whether every route through object `user` accepts object `new` (in `objs`):
    /// IPv4 routes first (`fib_check_nexthop` with the route's scope), then IPv6 ones
    /// (`fib6_check_nexthop`).
    fn nh_check_routes_of(&self, objs: &BTreeMap<u32, Nexthop>, user: u32, new: u32) -> Result<()> {
        for t in self.tables4.values() {
            for r in t.iter() {
                if r.info.nh_id == user {
                    fib_check_nexthop(objs, new, r.info.scope)?;
                }
            }
        }
        for t in self.tables6.values() {
            for list in t.lists() {
                if list.iter().any(|r| r.nh_id == user) {
                    paths6(objs, new)?;
                }
            }
        }
        Ok(())
    }

    /// `ip nexthop del id N` (`None`: no id given).
    pub fn nexthop_del(&mut self, id: Option<u32>) -> Result<()> {
        let Some(id) = id else {
            return Err(einval("Nexthop id is missing"));
        };
        if id == 0 {
            return Err(einval("Invalid nexthop id"));
        }
        if !self.nexthops.contains_key(&id) {
            return Err(Error::new(Errno::ENOENT));
        }
        // __remove_nexthop_fib: the IPv4 routes through the object (or through a group
        // it leaves empty) go, and their removal flushes the route cache; a member
        // leaving a group flushes nothing
        let before = self.v4_routes_via(0);
        // the object's fib6_nh goes, with its IPv6 copy
        self.pcpu6.retain(|c| c.object != id);
        self.nh_remove(id);
        self.nh_sync_routes();
        if self.v4_routes_via(0) != before {
            self.rt_cache_flush4();
        }
        self.res_run_due();
        self.bump();
        Ok(())
    }

    /// `remove_nexthop`: the object goes; a member leaves its groups, and a group
    /// left without members goes too.
    fn nh_remove(&mut self, id: u32) {
        let Some(o) = self.nexthops.remove(&id) else {
            return;
        };
        if o.is_group() {
            return;
        }
        let mut emptied = Vec::new();
        let now_ms = self.now_ms();
        // remove_nexthop_from_groups walks the member's grp_list, newest group first;
        // each group that keeps other members moves to the head of their lists
        for gid in self.groups_holding(id) {
            let Some(g) = self.nexthops.get_mut(&gid) else {
                continue;
            };
            if let NexthopKind::Group { members } = &mut g.kind {
                members.retain(|(m, _)| *m != id);
                if members.is_empty() {
                    emptied.push(g.id);
                } else {
                    self.nh_dev_seq += 1;
                    g.dev_seq = self.nh_dev_seq;
                    // remove_nh_grp_entry: a resilient group's buckets of the member
                    // move at once
                    if let Some(t) = &mut g.res {
                        t.set_members(members, now_ms);
                    }
                }
            }
        }
        for g in emptied {
            self.nexthops.remove(&g);
        }
    }

    /// The groups holding object `id`, in the order of its `grp_list`: the group
    /// made, replaced or shrunk last first.
    fn groups_holding(&self, id: u32) -> Vec<u32> {
        let mut gs: Vec<(u64, u32)> = self
            .nexthops
            .values()
            .filter(|o| {
                matches!(&o.kind, NexthopKind::Group { members } if members.iter().any(|(m, _)| *m == id))
            })
            .map(|o| (o.dev_seq, o.id))
            .collect();
        gs.sort_unstable_by(|a, b| b.cmp(a));
        gs.into_iter().map(|(_, g)| g).collect()
    }

    /// `nexthop_flush_dev`: a device going down, losing its carrier or going away
    /// deletes the objects on it (blackholes, on the loopback, stay but when it is
    /// unregistered, which fibkit never does). The routes follow.
    pub(crate) fn nh_flush_dev(&mut self, dev: u32) {
        let mut on: Vec<(u64, u32)> = self
            .nexthops
            .values()
            .filter(|o| matches!(o.kind, NexthopKind::Single { dev: d, .. } if d == dev))
            .map(|o| (o.dev_seq, o.id))
            .collect();
        if on.is_empty() {
            return;
        }
        // the newest first (a resilient group's buckets depend on the order)
        on.sort_unstable_by(|a, b| b.cmp(a));
        for (_, id) in on {
            self.nh_remove(id);
        }
        self.nh_sync_routes();
        self.res_run_due();
    }

    /// Re-derives every route that names an object from it (its paths, a blackhole
    /// object's type); a route whose object is gone is deleted.
    pub(crate) fn nh_sync_routes(&mut self) {
        let objs = &self.nexthops;
        let mut pool = crate::fib4::InfoPool4::default();
        for t in self.tables4.values_mut() {
            t.for_each_list_mut(|list| {
                let mut gone = false;
                for r in list.iter_mut() {
                    if r.info.nh_id == 0 {
                        continue;
                    }
                    match paths4(objs, r.info.nh_id) {
                        None => gone = true,
                        // the route keeps its own type (fa_type) whatever the object
                        // becomes: a blackhole object makes its lookups fail (see
                        // fib4_table_lookup_at) and its dumps say blackhole
                        Some((nhs, _)) => {
                            if r.info.nhs != nhs {
                                Arc::make_mut(&mut r.info).nhs = nhs;
                                pool.reshare(&mut r.info, r.table);
                            }
                        }
                    }
                }
                if gone {
                    list.retain(|r| r.info.nh_id == 0 || objs.contains_key(&r.info.nh_id));
                }
            });
        }
        let mut seq = self.sibling_seq;
        for t in self.tables6.values_mut() {
            t.for_each_list_mut(|list| {
                if list.iter().all(|r| r.nh_id == 0) {
                    return;
                }
                let old = std::mem::take(list);
                let mut done_groups: Vec<u64> = Vec::new();
                for r in old {
                    if r.nh_id == 0 {
                        list.push(r);
                        continue;
                    }
                    if r.sibling_group != 0 {
                        if done_groups.contains(&r.sibling_group) {
                            continue;
                        }
                        done_groups.push(r.sibling_group);
                    }
                    let Ok(Some((legs, blackhole))) = paths6(objs, r.nh_id) else {
                        continue;
                    };
                    seq += 1;
                    list.extend(routes6_from_legs(&r, &legs, blackhole, seq));
                }
            });
        }
        self.sibling_seq = seq;
    }

    /// `nexthop_is_good_nh` for a path of an IPv4 route through an object: its
    /// gateway's neighbour entry, if there is one, is valid (`ipv4_good_nh` looks
    /// only at link-scope gateways, `ipv6_good_nh` at every IPv6 one).
    pub(crate) fn nh_good4(&self, nh: &Nh4) -> bool {
        nh.gw
            .filter(|g| matches!(g, Gateway::V6(_)) || nh.scope == scope::LINK)
            .and_then(|g| self.gw_neigh_state(nh.dev, g))
            .is_none_or(|s| s.valid())
    }

    /// `ipv6_good_nh` for a path of an IPv6 route through an object.
    pub(crate) fn nh_good6(&self, nh: &Nh6) -> bool {
        nh.gw
            .and_then(|g| self.neigh_state(nh.dev, g, true))
            .is_none_or(|s| s.valid())
    }

    /// The bucket table of object `id`, if it is a resilient group.
    pub fn nh_res_table(&self, id: u32) -> Option<&ResTable> {
        self.nexthops.get(&id).and_then(|o| o.res.as_ref())
    }

    /// Sets the buckets of resilient group `id` to the kernel's (a live mirror taking a
    /// dump as it is): `buckets[i]` is bucket `i`'s member id and how long it has gone
    /// unused (ms); `unbalanced_ms`, how long the group has been unbalanced. Refused
    /// (EINVAL, nothing changed) unless `id` is a resilient group with that many
    /// buckets, each naming one of its members.
    pub fn nexthop_res_restore(
        &mut self,
        id: u32,
        buckets: &[(u32, u64)],
        unbalanced_ms: u64,
    ) -> Result<()> {
        let now = self.now_ms();
        let Some(o) = self.nexthops.get_mut(&id) else {
            return Err(Error::new(Errno::ENOENT));
        };
        let NexthopKind::Group { members } = &o.kind else {
            return Err(einval("Not a nexthop group"));
        };
        let Some(t) = &mut o.res else {
            return Err(einval("Nexthop group not of type resilient"));
        };
        if buckets.len() != t.num_buckets() {
            return Err(einval("not the group's number of buckets"));
        }
        if !buckets
            .iter()
            .all(|(nh, _)| members.iter().any(|(m, _)| m == nh))
        {
            return Err(einval("a bucket names no member of the group"));
        }
        t.restore(members, buckets, unbalanced_ms, now);
        self.res_run_due();
        self.bump();
        Ok(())
    }

    /// `nexthop_select_path_res` for a route through object `id`: the index of the
    /// member (in the group's order) whose bucket `hash` falls in, marking the bucket
    /// used; `None` unless `id` is a resilient group.
    pub(crate) fn nh_res_select(&self, id: u32, hash: u32) -> Option<usize> {
        let o = self.nexthops.get(&id)?;
        let m = o.res.as_ref()?.select(hash, self.now_ms())?;
        match &o.kind {
            NexthopKind::Group { members } => members.iter().position(|&(x, _)| x == m),
            _ => None,
        }
    }

    /// Whether object `id` is a group: a route through it is reported as multipath,
    /// with one path or more (IPv6's `nexthop_is_multipath`).
    pub fn nh_is_group(&self, id: u32) -> bool {
        self.nexthops.get(&id).is_some_and(Nexthop::is_group)
    }

    /// `nexthop_is_blackhole`: object `id` is a blackhole, or a group of just one
    /// (a route through it is reported as a blackhole route, whatever its type).
    pub fn nh_is_blackhole(&self, id: u32) -> bool {
        let Some(o) = self.nexthops.get(&id) else {
            return false;
        };
        let o = match &o.kind {
            NexthopKind::Group { members } if members.len() == 1 => {
                match self.nexthops.get(&members[0].0) {
                    Some(m) => m,
                    None => return false,
                }
            }
            _ => o,
        };
        matches!(o.kind, NexthopKind::Blackhole { .. })
    }

    /// The device of the first path of object `id` (`nexthop_fib6_nh` of a group is
    /// its first member's): where an IPv6 route through it takes its source address.
    pub(crate) fn nh_first_dev(&self, id: u32) -> Option<u32> {
        let o = self.nexthops.get(&id)?;
        let first = match &o.kind {
            NexthopKind::Group { members } => self.nexthops.get(&members.first()?.0)?,
            _ => o,
        };
        Some(match first.kind {
            NexthopKind::Single { dev, .. } => dev,
            _ => LO,
        })
    }
}

/// The route entries of an IPv6 route `base` through the legs of its object: one
/// entry per leg, siblings of one group (`seq`) when there are several.
pub(crate) fn routes6_from_legs(
    base: &Route6,
    legs: &[Nh6],
    blackhole: bool,
    seq: u64,
) -> Vec<Route6> {
    legs.iter()
        .map(|nh| {
            let mut r = base.clone();
            r.nh = nh.clone();
            r.sibling_group = if legs.len() > 1 { seq } else { 0 };
            // a route of any type through a blackhole object is reported and looked up
            // as a blackhole (__find_rr_leaf); its own type comes back when the object
            // changes kind
            let own = base.nh_own_type.unwrap_or(base.rtype);
            if blackhole {
                r.rtype = RouteType::Blackhole;
                r.flags |= rtf::REJECT;
                r.nh_own_type = Some(own);
            } else if base.nh_own_type.is_some() {
                r.rtype = own;
                if own.reject_error().is_none() {
                    r.flags &= !rtf::REJECT;
                }
                r.nh_own_type = None;
            }
            if r.flags & rtf::REJECT == 0 {
                if nh.gw.is_some() {
                    r.flags |= rtf::GATEWAY;
                } else {
                    r.flags &= !rtf::GATEWAY;
                }
            }
            r
        })
        .collect()
}

/// `fib_check_nexthop`: whether an IPv4 route of scope `rscope` may use object
/// `id` (looked up in `objs`).
pub(crate) fn fib_check_nexthop(objs: &BTreeMap<u32, Nexthop>, id: u32, rscope: u8) -> Result<()> {
    let Some(o) = objs.get(&id) else {
        return Err(einval("Nexthop id does not exist"));
    };
    if o.fdb {
        return Err(einval("Route cannot point to a fdb nexthop"));
    }
    let first = match &o.kind {
        NexthopKind::Group { members } => {
            if rscope == scope::HOST {
                return Err(einval(
                    "Route with host scope can not have multiple nexthops",
                ));
            }
            members.first().and_then(|(m, _)| objs.get(m))
        }
        _ => Some(o),
    };
    match first.map(|f| &f.kind) {
        Some(NexthopKind::Single { gw, onlink, .. }) => {
            if rscope == scope::HOST && gw.is_some() {
                return Err(einval("Route with host scope can not have a gateway"));
            }
            if *onlink && rscope >= scope::LINK {
                return Err(einval("Scope mismatch with nexthop"));
            }
        }
        // nexthop_check_scope reads the flags of any object: an IPv6 blackhole keeps
        // `onlink` in its fib6_nh, which refuses routes of link or host scope too
        Some(NexthopKind::Blackhole { onlink: true, .. }) if rscope >= scope::LINK => {
            return Err(einval("Scope mismatch with nexthop"));
        }
        _ => {}
    }
    Ok(())
}

/// `nexthop_select_path_hthr`: the first path whose neighbour is good and whose
/// upper bound covers `hash`, else the first good one, else the first (groups never
/// mark a path dead: a member on a down device is deleted).
pub(crate) fn select_hthr(weights: &[u32], good: &[bool], hash: u32) -> usize {
    let bounds = crate::flowhash::upper_bounds(weights, &vec![true; weights.len()]);
    let mut first = None;
    for (i, &b) in bounds.iter().enumerate() {
        if !good.get(i).copied().unwrap_or(true) {
            continue;
        }
        first.get_or_insert(i);
        if i64::from(hash) <= i64::from(b) {
            return i;
        }
    }
    first.unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_ids_follow_the_counter_and_wrap_to_zero_fails() {
        let mut ns = Netns::new();
        let cfg = NexthopCfg {
            family: Some(Family::V4),
            blackhole: true,
            ..Default::default()
        };
        assert_eq!(ns.nexthop_new(&cfg, false), Ok(1));
        let three = NexthopCfg {
            id: 3,
            ..cfg.clone()
        };
        assert_eq!(ns.nexthop_new(&three, false), Ok(3));
        assert_eq!(ns.nexthop_new(&cfg, false), Ok(2));
        assert_eq!(ns.nexthop_new(&cfg, false), Ok(4));
        // a deleted id is not given again until the counter comes round
        ns.nexthop_del(Some(4)).unwrap();
        assert_eq!(ns.nexthop_new(&cfg, false), Ok(5));
        ns.nh_last_id = u32::MAX;
        assert_eq!(
            ns.nexthop_new(&cfg, false),
            Err(einval("No unused id")),
            "the counter wrapping to 0 is the kernel's false 'no unused id'"
        );
        // round again from 0: 4 is free now
        assert_eq!(ns.nexthop_new(&cfg, false), Ok(4));
    }
}
