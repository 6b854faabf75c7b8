//! IPv4 FIB changes: `fib_table_insert`, `fib_table_delete`, the routes derived from
//! addresses (`fib_add_ifaddr`, `fib_del_ifaddr`) and the device events.

use std::sync::Arc;

use crate::addr::{ifa, Addr4, Lifetime};
use crate::error::{Errno, Error, Result};
use crate::netns::Netns;
use crate::prefix::{mask4, v4, Prefix4};
use crate::route::{
    nhflags, scope, table as tid, Fib4Info, Gateway, Metrics, Nh4, Route4, RouteType,
};

/// Distinct route infos remembered for sharing (see [`InfoPool4`]).
const INFO4_CACHE_MAX: usize = 16;

/// A cheap digest of the fields that usually tell a table's route infos apart (first
/// nexthop, their number, priority, preferred source): equal infos have equal
/// fingerprints, so only infos with the same one are compared in full.
fn info4_fingerprint(i: &Fib4Info) -> u64 {
    let (gw, dev) = i.nhs.first().map_or((0, 0), |n| {
        let gw = match n.gw {
            Some(Gateway::V4(a)) => u64::from(a),
            Some(Gateway::V6(a)) => (a as u64) ^ ((a >> 64) as u64) ^ (1 << 63),
            None => 0,
        };
        (gw, u64::from(n.dev))
    });
    gw.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ dev.rotate_left(32)
        ^ u64::from(i.priority).rotate_left(16)
        ^ u64::from(i.prefsrc).rotate_left(48)
        ^ (i.nhs.len() as u64).rotate_left(8)
}

/// What `fib_find_info_nh` compares of a route through a nexthop object: table,
/// object, protocol, scope, preferred source, priority, type and flags (not the
/// metrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct NhInfoKey {
    table: u32,
    nh_id: u32,
    proto: u8,
    scope: u8,
    prefsrc: u32,
    priority: u32,
    rtype: RouteType,
    flags: u32,
}

impl NhInfoKey {
    fn of(table: u32, i: &Fib4Info) -> Self {
        NhInfoKey {
            table,
            nh_id: i.nh_id,
            proto: i.proto,
            scope: i.scope,
            prefsrc: i.prefsrc,
            priority: i.priority,
            rtype: i.rtype,
            flags: i.flags,
        }
    }
}

/// One live info through a nexthop object: its metrics (with its key, what tells it
/// from the others) and the routes known to use it (prefix and TOS; those gone are
/// dropped as they are met).
#[derive(Clone, Debug)]
struct NhInfoUse {
    metrics: crate::route::Metrics,
    users: Vec<(Prefix4, u8)>,
}

/// The IPv4 route infos through nexthop objects, by [`NhInfoKey`], in the order of
/// the kernel's hash chain, its head last.
///
/// `fib_create_info` gives a new route through an object that names no metrics the
/// first info of the hash chain with the same object, protocol, scope, preferred
/// source, priority, type, table and flags (`fib_find_info_nh`, which does not look
/// at metrics), metrics and all: the newest such info (the chain adds at its head),
/// unless the hash table grew since, which moves each chain's entries one by one to
/// the head of their new chain and so reverses their order. A route added without
/// metrics through an object another route uses with an `mtu` answers with that MTU
/// (conformance scenarios 477, 482).
#[derive(Clone, Debug)]
pub(crate) struct NhInfos4 {
    by_key: rustc_hash::FxHashMap<NhInfoKey, Vec<NhInfoUse>>,
    /// The size of the kernel's fib_info hash table (16 buckets in a new namespace,
    /// doubled by `fib_create_info` whenever as many infos live).
    hash_size: usize,
    /// At least the number of live infos: one more for each new info, counted
    /// exactly when it reaches `hash_size` (a bulk load of routes through a few
    /// gateways makes a few infos, and is counted rarely).
    live_bound: usize,
}

impl Default for NhInfos4 {
    fn default() -> Self {
        NhInfos4 {
            by_key: Default::default(),
            hash_size: 16,
            live_bound: 0,
        }
    }
}

impl Netns {
    /// The live IPv4 route infos: the distinct infos of each table's routes (equal
    /// infos are one in the kernel, `fib_find_info`).
    // (an info's interior mutability is its nexthops' remembered source addresses,
    // which take no part in its hash or equality)
    #[allow(clippy::mutable_key_type)]
    fn live_infos4(&self) -> usize {
        let mut seen: rustc_hash::FxHashSet<(u32, &Fib4Info)> = Default::default();
        for t in self.tables4.values() {
            for r in t.iter() {
                seen.insert((r.table, &r.info));
            }
        }
        seen.len()
    }

    /// `fib_create_info`'s growth of the info hash table, checked before each new
    /// info: once as many infos live as it has buckets it doubles, and the chains'
    /// entries come out reversed.
    fn fib_info_hash_grow_check(&mut self) {
        if self.nh_infos4.live_bound < self.nh_infos4.hash_size {
            return;
        }
        let live = self.live_infos4();
        let h = &mut self.nh_infos4;
        h.live_bound = live;
        if live >= h.hash_size {
            h.hash_size *= 2;
            for uses in h.by_key.values_mut() {
                uses.reverse();
            }
        }
    }

    /// Whether a route at `p` with TOS `tos` uses an info of `key` with `metrics`.
    fn nh_info_user_alive(
        &self,
        key: &NhInfoKey,
        metrics: &crate::route::Metrics,
        (p, tos): (Prefix4, u8),
    ) -> Option<Arc<Fib4Info>> {
        let list = self.tables4.get(&key.table)?.get(p)?;
        list.iter()
            .find(|a| {
                a.tos == tos
                    && NhInfoKey::of(key.table, &a.info) == *key
                    && a.info.metrics == *metrics
            })
            .map(|a| Arc::clone(&a.info))
    }

    /// A live user's info of `u`, dropping the users found gone on the way.
    fn nh_info_live(&self, key: &NhInfoKey, u: &mut NhInfoUse) -> Option<Arc<Fib4Info>> {
        while let Some(&last) = u.users.last() {
            if let Some(i) = self.nh_info_user_alive(key, &u.metrics, last) {
                return Some(i);
            }
            u.users.pop();
        }
        None
    }

    /// `fib_find_info_nh`: the newest live info a new route through an object without
    /// metrics shares, if any.
    fn nh_info4_find(&mut self, cfg: &Route4Cfg, info: &Fib4Info) -> Option<Arc<Fib4Info>> {
        let m = &cfg.metrics;
        if info.nh_id == 0 || !m.vals.is_empty() || m.locks != 0 || m.congctl.is_some() {
            return None;
        }
        let key = NhInfoKey::of(cfg.table, info);
        let mut uses = self.nh_infos4.by_key.remove(&key)?;
        let mut found = None;
        while let Some(mut u) = uses.pop() {
            if let Some(i) = self.nh_info_live(&key, &mut u) {
                found = Some(i);
                uses.push(u);
                break;
            }
        }
        if !uses.is_empty() {
            self.nh_infos4.by_key.insert(key, uses);
        }
        found
    }

    /// Route `p` `tos` of `table` was added with `info` through an object: note it as
    /// a user of its info, a new one (newest) unless that info is live already.
    fn nh_info4_note(&mut self, table: u32, info: &Fib4Info, p: Prefix4, tos: u8) {
        let key = NhInfoKey::of(table, info);
        let mut uses = self.nh_infos4.by_key.remove(&key).unwrap_or_default();
        let at = uses.iter().position(|u| u.metrics == info.metrics);
        let live = at.is_some_and(|i| self.nh_info_live(&key, &mut uses[i]).is_some());
        match at {
            Some(i) if live => uses[i].users.push((p, tos)),
            _ => {
                if let Some(i) = at {
                    uses.remove(i);
                }
                uses.push(NhInfoUse {
                    metrics: info.metrics.clone(),
                    users: vec![(p, tos)],
                });
            }
        }
        self.nh_infos4.by_key.insert(key, uses);
    }
}

/// The flags `fib_find_info` and `nh_comp` leave out of their comparison
/// (`RTNH_COMPARE_MASK`: dead, linkdown, offload; fibkit keeps no trap bit), with
/// fibkit's own [`nhflags::SKIP`], which follows from them.
const INFO4_STATE_FLAGS: u32 = nhflags::DEAD | nhflags::LINKDOWN | nhflags::OFFLOAD | nhflags::SKIP;

/// Whether two infos are one for `fib_find_info`: equal but for their state flags.
fn same_but_state(a: &Fib4Info, b: &Fib4Info) -> bool {
    let m = !INFO4_STATE_FLAGS;
    a.proto == b.proto
        && a.scope == b.scope
        && a.priority == b.priority
        && a.prefsrc == b.prefsrc
        && a.rtype == b.rtype
        && (a.flags ^ b.flags) & m == 0
        && a.metrics == b.metrics
        && a.nh_id == b.nh_id
        && a.nhs.len() == b.nhs.len()
        && a.nhs.iter().zip(&b.nhs).all(|(x, y)| {
            x.gw == y.gw
                && x.dev == y.dev
                && x.weight == y.weight
                && (x.flags ^ y.flags) & m == 0
                && x.scope == y.scope
                && x.realm == y.realm
                && x.encap == y.encap
        })
}

/// Route infos remembered for sharing: equal infos of one table get one allocation
/// (the kernel's `fib_find_info`, which compares `fib_tb_id` too: the nexthops'
/// remembered source addresses are per table). Holds the last [`INFO4_CACHE_MAX`]
/// distinct infos seen, with their fingerprints, replacing the oldest when full.
#[derive(Clone, Debug, Default)]
pub(crate) struct InfoPool4 {
    infos: Vec<(u64, u32, Arc<Fib4Info>)>,
    next: usize,
    /// The infos device events left with state bits ([`INFO4_STATE_FLAGS`]), kept
    /// while a route may hold them (never evicted: a new route equal to one of them
    /// but for those bits must find it however many infos were made since).
    stateful: Vec<(u64, u32, Arc<Fib4Info>)>,
}

impl InfoPool4 {
    fn find(&self, fp: u64, table: u32, info: &Fib4Info) -> Option<&Arc<Fib4Info>> {
        self.infos
            .iter()
            .find(|(f, t, c)| *f == fp && *t == table && **c == *info)
            .map(|(_, _, c)| c)
    }

    fn remember(&mut self, fp: u64, table: u32, info: &Arc<Fib4Info>) {
        if self.infos.len() < INFO4_CACHE_MAX {
            self.infos.push((fp, table, Arc::clone(info)));
        } else {
            let i = self.next % INFO4_CACHE_MAX;
            self.infos[i] = (fp, table, Arc::clone(info));
            self.next = i + 1;
        }
    }

    /// `info` (of a route of `table`) in an allocation of its own, or an equal one
    /// remembered; says whether it is a new one.
    ///
    /// `fib_find_info` looks among the live infos and compares their flags and their
    /// paths' flags without the state bits (`RTNH_COMPARE_MASK`: dead, linkdown,
    /// offload, trap), so a new route equal to a route in use but for those bits takes
    /// that route's info, state and all: a path that went dead when its device lost
    /// its last IPv4 address (`fib_disable_ip` forces it dead while the device stays
    /// up) is dead in the new route too (conformance scenario 850), and a multipath
    /// info keeps the choice of paths of its last `fib_rebalance` ([`nhflags::SKIP`];
    /// `fib_find_info` runs after the new info's rebalance; conformance scenario 391).
    ///
    /// `in_use` tells whether a route holds an info: asked only of one that differs
    /// from `info` in those bits, which must be live to be found (an equal one is as
    /// good as a new one either way).
    fn share(
        &mut self,
        info: Fib4Info,
        table: u32,
        in_use: impl Fn(&Arc<Fib4Info>) -> bool,
    ) -> (Arc<Fib4Info>, bool) {
        let fp = info4_fingerprint(&info);
        // (the pool holds one reference, and a route another)
        self.stateful.retain(|(_, _, c)| Arc::strong_count(c) > 1);
        if let Some((_, _, c)) = self.stateful.iter().chain(&self.infos).find(|(f, t, c)| {
            *f == fp
                && *t == table
                && Arc::strong_count(c) > 1
                && same_but_state(c, &info)
                && (**c == info || in_use(c))
        }) {
            return (Arc::clone(c), false);
        }
        if let Some(c) = self.find(fp, table, &info) {
            return (Arc::clone(c), false);
        }
        let a = Arc::new(info);
        self.remember(fp, table, &a);
        (a, true)
    }

    /// Remember the infos a device event made (`fresh`, the pool its routes were
    /// shared again through): the kernel changes its infos in place, so they stay
    /// where `fib_find_info` finds them for the next new route.
    pub(crate) fn adopt(&mut self, fresh: InfoPool4) {
        for (fp, table, info) in fresh.infos {
            let stateful = info.flags & INFO4_STATE_FLAGS != 0
                || info.nhs.iter().any(|n| n.flags & INFO4_STATE_FLAGS != 0);
            if stateful {
                if !self.stateful.iter().any(|(_, _, c)| Arc::ptr_eq(c, &info)) {
                    self.stateful.push((fp, table, info));
                }
            } else if !self.infos.iter().any(|(_, _, c)| Arc::ptr_eq(c, &info)) {
                self.remember(fp, table, &info);
            }
        }
    }

    /// After a device event changed a route's info (its own copy, `Arc::make_mut`):
    /// the route takes an equal info another route of its table already got from the
    /// same event, so that routes which shared an info before the event share one
    /// after it.
    pub(crate) fn reshare(&mut self, info: &mut Arc<Fib4Info>, table: u32) {
        let fp = info4_fingerprint(info);
        match self.find(fp, table, info) {
            Some(c) => *info = Arc::clone(c),
            None => self.remember(fp, table, info),
        }
    }
}

/// Netlink flags of a route request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct NlFlags {
    /// NLM_F_CREATE
    pub create: bool,
    /// NLM_F_EXCL
    pub excl: bool,
    /// NLM_F_REPLACE
    pub replace: bool,
    /// NLM_F_APPEND
    pub append: bool,
}

/// How a route request combines with existing routes (iproute2's verbs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteOp {
    /// `add`: create, fail if it exists.
    Add,
    /// `change`: replace an existing route.
    Change,
    /// `replace`: replace or create.
    Replace,
    /// `prepend`: create, before equal routes.
    Prepend,
    /// `append`: create, after equal routes.
    Append,
    /// `test`: NLM_F_EXCL alone. IPv4's `fib_table_insert` answers EEXIST for an
    /// equal route and ENOENT otherwise (it creates nothing without NLM_F_CREATE, but
    /// `inet_rtm_newroute` has made the table by then); IPv6's `fib6_add_1` and
    /// `fib6_add_rt2node` only warn about the missing flag and add the route.
    Test,
    /// `del`.
    Delete,
}

impl RouteOp {
    /// The nexthop-id checks of both families' request parsing (`rtm_to_fib_config`,
    /// `rtm_to_fib6_config`) and deletes: an id with a nexthop specification (`spec`:
    /// a device, gateway, encapsulation or legs) is refused first (conformance scenario 234); a delete
    /// naming an object that does not exist is refused as such. Additions fail later,
    /// where the kernel looks the id up. `refuses_spec`: whether the id is refused
    /// beside a specification: IPv4 asks whether the id is non-zero, IPv6 whether the
    /// request carried one at all (an id of 0 too; conformance scenario 457).
    pub(crate) fn check_nh_id(
        self,
        nh_id: u32,
        refuses_spec: bool,
        spec: bool,
        exists: bool,
    ) -> Result<()> {
        if refuses_spec && spec {
            return Err(Error::msg(
                Errno::EINVAL,
                "Nexthop specification and nexthop id are mutually exclusive",
            ));
        }
        if self == RouteOp::Delete && nh_id != 0 && !exists {
            return Err(Error::msg(Errno::EINVAL, "Nexthop id does not exist"));
        }
        Ok(())
    }

    /// The netlink flags iproute2 sends for the verb.
    pub fn flags(self) -> NlFlags {
        match self {
            RouteOp::Add => NlFlags {
                create: true,
                excl: true,
                ..Default::default()
            },
            RouteOp::Change => NlFlags {
                replace: true,
                ..Default::default()
            },
            RouteOp::Replace => NlFlags {
                create: true,
                replace: true,
                ..Default::default()
            },
            RouteOp::Prepend => NlFlags {
                create: true,
                ..Default::default()
            },
            RouteOp::Append => NlFlags {
                create: true,
                append: true,
                ..Default::default()
            },
            RouteOp::Test => NlFlags {
                excl: true,
                ..Default::default()
            },
            RouteOp::Delete => NlFlags::default(),
        }
    }
}

/// One nexthop of a request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NhCfg {
    /// Gateway.
    pub gw: Option<Gateway>,
    /// Device index (0: none).
    pub dev: u32,
    /// Weight (1..=256).
    pub weight: u32,
    /// `RTNH_F_ONLINK` etc.
    pub flags: u32,
    /// Realm.
    pub realm: u32,
    /// `encap ...`.
    pub encap: Option<std::sync::Arc<crate::encap::Encap>>,
    /// A multipath leg that carries both a gateway of the route's family
    /// (`RTA_GATEWAY`) and one of the other (`RTA_VIA`), which `fib_get_nhs` refuses.
    pub gw_and_via: bool,
    /// An `RTA_VIA` of a family that is no IP family (`via link|mpls|bridge ...`):
    /// IPv4's `fib_gw_from_via` refuses it ("Unsupported address family in RTA_VIA"),
    /// IPv6 refuses any `RTA_VIA` of a request and ignores one of a multipath leg.
    pub via_unsupported: bool,
}

/// An IPv4 route request (`struct fib_config`, as iproute2 fills it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route4Cfg {
    /// Table (0 = main).
    pub table: u32,
    /// Destination address as given (host bits may be set: that is an error).
    pub dst: u32,
    /// Prefix length.
    pub dst_len: u8,
    /// TOS.
    pub tos: u8,
    /// Type (`Unspec` in deletes: any).
    pub rtype: RouteType,
    /// Protocol (0 in deletes: any).
    pub proto: u8,
    /// Scope (`NOWHERE` in deletes: any).
    pub scope: u8,
    /// Priority (0 in deletes: any).
    pub priority: u32,
    /// Preferred source (0: none).
    pub prefsrc: u32,
    /// Single-path nexthop (gateway/device/flags).
    pub nh: NhCfg,
    /// Multipath nexthops (`nexthop ...` list), if given.
    pub multipath: Vec<NhCfg>,
    /// Nexthop object id.
    pub nh_id: u32,
    /// Metrics.
    pub metrics: Metrics,
}

impl Default for Route4Cfg {
    fn default() -> Self {
        Route4Cfg {
            table: tid::MAIN,
            dst: 0,
            dst_len: 0,
            tos: 0,
            rtype: RouteType::Unicast,
            proto: crate::route::proto::BOOT,
            scope: scope::UNIVERSE,
            priority: 0,
            prefsrc: 0,
            nh: NhCfg::default(),
            multipath: Vec::new(),
            nh_id: 0,
            metrics: Metrics::default(),
        }
    }
}

/// Where [`Netns::fib4_table_lookup_at`] starts its walk down the prefixes covering the
/// destination.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Start4 {
    /// At the longest match (a normal lookup).
    Longest,
    /// At prefix length `.0` and shorter (compiling the answer of one prefix).
    AtLen(u8),
    /// Like `AtLen(.0)`, with the main table's prefix of that length already found:
    /// slot `.1` of the main table (saves probing the RIB for it).
    AtMainSlot(u8, u32),
}

/// The result of an IPv4 table lookup (`struct fib_result`).
#[derive(Clone, Debug)]
pub struct FibResult4<'a> {
    /// The matched prefix.
    pub prefix: Prefix4,
    /// The matched entry.
    pub route: &'a Route4,
    /// Index of the selected nexthop.
    pub nh_sel: usize,
    /// The table the lookup ran in (main for merged local+main).
    pub table: u32,
    /// `res->tclassid`: the realms of the rule whose lookup gave the result (0 on the
    /// no-custom-rules fast path).
    pub tclassid: u32,
    /// `res->dscp`: the TOS of the entry the table lookup matched (kept when
    /// `fib_select_default` answers with another route).
    pub dscp: u8,
}

impl Netns {
    /// The IPv4 tables.
    pub fn tables4(&self) -> impl Iterator<Item = &crate::table::Table4> {
        self.tables4.values()
    }

    /// An IPv4 table.
    pub fn table4(&self, id: u32) -> Option<&crate::table::Table4> {
        self.tables4.get(&id)
    }

    /// The IPv4 addresses of a device, in the kernel's list order.
    pub fn addrs4(&self, dev: u32) -> &[Addr4] {
        self.addrs4.get(&dev).map(Vec::as_slice).unwrap_or(&[])
    }

    /// All devices' IPv4 addresses.
    pub fn all_addrs4(&self) -> impl Iterator<Item = (u32, &Addr4)> {
        self.addrs4
            .iter()
            .flat_map(|(d, v)| v.iter().map(move |a| (*d, a)))
    }

    pub(crate) fn new_table4(&mut self, id: u32) {
        if !self.tables4.contains_key(&id) {
            self.table_seq += 1;
            let mut t = crate::table::Table4::new(id);
            t.created = self.table_seq;
            self.tables4.insert(id, t);
        }
    }

    /// Creation sequence number of an IPv4 table (0 if absent).
    pub fn table4_created(&self, id: u32) -> u64 {
        self.tables4.get(&id).map_or(0, |t| t.created)
    }

    /// Whether some device holds local IPv4 address `a` (`inet_lookup_ifaddr` found).
    pub(crate) fn holds_local4(&self, a: u32) -> bool {
        self.addrs4.values().any(|v| v.iter().any(|x| x.local == a))
    }

    /// `__ip_dev_find`: the device holding a local IPv4 address (`inet_lookup_ifaddr`:
    /// the first of the hash chain, which takes new addresses at its head, so the
    /// device whose address was added last).
    pub fn dev_of_local4(&self, a: u32) -> Option<u32> {
        self.addrs4
            .iter()
            .flat_map(|(d, v)| {
                v.iter()
                    .filter(|x| x.local == a)
                    .map(move |x| (x.hashed, *d))
            })
            .max()
            .map(|(_, d)| d)
    }

    /// `__ip_dev_find`: the device of local address `a`, from the address hash, else
    /// from a `local` route of the local table (so that a source inside a local subnet
    /// route such as `local 10.0.0.0/24 dev lo table local` is accepted; conformance
    /// scenario 196). While the tables are merged the local table's trie is main's.
    pub fn ip_dev_find4(&self, a: u32) -> Option<u32> {
        if let Some(d) = self.dev_of_local4(a) {
            return Some(d);
        }
        if !self.tables4.contains_key(&tid::LOCAL) {
            return None;
        }
        let res = self
            .fib4_table_lookup(
                self.merged_alias(tid::LOCAL),
                a,
                0,
                scope::UNIVERSE,
                0,
                false,
            )
            .ok()?;
        (res.route.rtype == RouteType::Local).then(|| res.route.info.nhs[res.nh_sel].dev)
    }

    // ------------------------------------------------------------- lookups

    /// `fib_table_lookup` of one table (with the merged local+main trie when `merged`).
    pub(crate) fn fib4_table_lookup(
        &self,
        table: u32,
        dst: u32,
        tos: u8,
        fscope: u8,
        oif: u32,
        ignore_linkstate: bool,
    ) -> std::result::Result<FibResult4<'_>, Errno> {
        self.fib4_table_lookup_at(
            table,
            dst,
            tos,
            fscope,
            oif,
            ignore_linkstate,
            Start4::Longest,
        )
    }

    /// [`Self::fib4_table_lookup`] starting where `from` says (and backtracking from
    /// there) instead of at the longest match of `dst`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fib4_table_lookup_at(
        &self,
        table: u32,
        dst: u32,
        tos: u8,
        fscope: u8,
        oif: u32,
        ignore_linkstate: bool,
        from: Start4,
    ) -> std::result::Result<FibResult4<'_>, Errno> {
        let merged = !self.custom_rules4 && table == tid::MAIN;
        let main = self.tables4.get(&table);
        let local = if merged {
            self.tables4.get(&tid::LOCAL)
        } else {
            None
        };
        if main.is_none() && local.is_none() {
            return Err(Errno::EAGAIN);
        }
        let mut lm = local.map(|t| match from {
            Start4::AtLen(l) | Start4::AtMainSlot(l, _) => t.matches_from(dst, l),
            Start4::Longest => t.matches(dst),
        });
        let mut mm = main.map(|t| match from {
            Start4::AtLen(l) => t.matches_from(dst, l),
            Start4::AtMainSlot(_, s) => t.matches_from_slot(dst, s),
            Start4::Longest => t.matches(dst),
        });
        let mut lnext = lm.as_mut().and_then(Iterator::next);
        let mut mnext = mm.as_mut().and_then(Iterator::next);
        // a route through a nexthop object with no usable path for the flow ends the
        // trie leaf's alias walk (`goto miss`): the leaf's other entries, its shorter
        // prefixes of the same key included, are passed over (conformance scenario 321)
        let mut missed_key: Option<u32> = None;
        loop {
            // longest prefix first; at equal length the local table's entries come first
            let take_local = match (&lnext, &mnext) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some((lp, _)), Some((mp, _))) => lp.len >= mp.len,
            };
            // advance lazily: the next shorter prefix is only looked for if this one fails
            let (prefix, list) = if take_local {
                lnext.take().expect("checked")
            } else {
                mnext.take().expect("checked")
            };
            // a miss earlier in this key's leaf passed over the rest of it
            let list = if missed_key == Some(prefix.addr) {
                &list[..0]
            } else {
                &list[..]
            };
            for r in list {
                if r.tos != 0 && r.tos != (tos & 0x1c) {
                    continue;
                }
                if r.info.flags & nhflags::DEAD != 0 {
                    continue;
                }
                if r.info.scope < fscope {
                    continue;
                }
                if !self.quiet.on() {
                    r.fa_state.mark_accessed();
                }
                if let Some(e) = r.rtype.reject_error() {
                    return Err(e);
                }
                // then fib_table_lookup's nexthop_is_blackhole: a route of any other
                // type through a blackhole object (or a group of just one) fails as a
                // blackhole route does
                if r.info.nh_id != 0 && self.nh_is_blackhole(r.info.nh_id) {
                    return Err(Errno::EINVAL);
                }
                for (i, nh) in r.info.nhs.iter().enumerate() {
                    if nh.flags & nhflags::DEAD != 0 {
                        continue;
                    }
                    if !ignore_linkstate
                        && nh.flags & nhflags::LINKDOWN != 0
                        && self.ignore_linkdown4(nh.dev)
                    {
                        continue;
                    }
                    if oif != 0 && oif != nh.dev {
                        continue;
                    }
                    return Ok(FibResult4 {
                        prefix,
                        route: r,
                        nh_sel: i,
                        table,
                        tclassid: 0,
                        dscp: r.tos,
                    });
                }
                if r.info.nh_id != 0 {
                    missed_key = Some(prefix.addr);
                    break;
                }
            }
            if take_local {
                lnext = lm.as_mut().and_then(Iterator::next);
            } else {
                mnext = mm.as_mut().and_then(Iterator::next);
            }
        }
        Err(Errno::EAGAIN)
    }

    /// `fib_table_lookup` in one table for a plain flow (tos 0, no oif, universe scope):
    /// the entry and prefix answering, or the lookup error (`EAGAIN`: no match or a
    /// `throw` route). Exposed for direct-table comparisons; `route_get4` is the full path.
    pub fn table_lookup4(
        &self,
        table: u32,
        dst: u32,
    ) -> std::result::Result<(&Route4, Prefix4), Errno> {
        self.fib4_table_lookup(table, dst, 0, scope::UNIVERSE, 0, false)
            .map(|r| (r.route, r.prefix))
    }

    /// Whether IPv4 routes through `dev` are ignored while its link is down
    /// (`ignore_routes_with_linkdown`, all or the device's).
    pub fn ignore_linkdown4(&self, dev: u32) -> bool {
        self.sysctl.v4_all.ignore_routes_with_linkdown != 0
            || self
                .sysctl
                .v4_dev
                .get(&dev)
                .is_some_and(|c| c.ignore_routes_with_linkdown != 0)
    }

    /// `inet_addr_type_table` (`__inet_dev_addr_type` without a device): the type of
    /// the route `a` resolves to in `table`, by a plain lookup, which passes over a
    /// route without carrier where its device ignores such routes (conformance
    /// scenario 264).
    pub(crate) fn addr_type4_table(&self, a: u32, table: u32) -> RouteType {
        if v4::is_zeronet(a) || v4::is_lbcast(a) {
            return RouteType::Broadcast;
        }
        if v4::is_multicast(a) {
            return RouteType::Multicast;
        }
        if !self.tables4.contains_key(&table) {
            return RouteType::Broadcast;
        }
        match self.fib4_table_lookup(self.merged_alias(table), a, 0, scope::UNIVERSE, 0, false) {
            Ok(r) => r.route.rtype,
            Err(_) => RouteType::Unicast,
        }
    }

    /// The table whose lookup a lookup in `table` is: while no custom rule exists the
    /// local table's trie is main's (`fib_new_table` aliases them), so a lookup in
    /// local sees main's routes too (conformance scenarios 138, 196).
    pub(crate) fn merged_alias(&self, table: u32) -> u32 {
        if table == tid::LOCAL && !self.custom_rules4 {
            tid::MAIN
        } else {
            table
        }
    }

    /// `inet_addr_type_dev_table`: like [`Self::addr_type4_table`] in the local table
    /// (the device only picks the table, an L3 master's; the lookup names no device).
    pub(crate) fn addr_type4_dev(&self, a: u32) -> RouteType {
        self.addr_type4_table(a, tid::LOCAL)
    }

    // --------------------------------------------------------- route changes

    /// `ip route add|change|replace|prepend|append|del` for IPv4.
    pub fn route4_modify(&mut self, op: RouteOp, cfg: &Route4Cfg) -> Result<()> {
        let table = if cfg.table == 0 { tid::MAIN } else { cfg.table };
        let mut cfg = cfg.clone();
        cfg.table = table;
        if cfg.tos & 0x03 != 0 {
            return Err(Error::msg(
                Errno::EINVAL,
                "Invalid dsfield (tos): ECN bits must be 0",
            ));
        }
        // rtm_to_fib_config (the key's length and host bits, then the nexthop id;
        // conformance scenario 419), then inet_rtm_delroute
        Self::check_key(cfg.dst, cfg.dst_len)?;
        op.check_nh_id(
            cfg.nh_id,
            cfg.nh_id != 0,
            cfg.nh.dev != 0
                || cfg.nh.gw.is_some()
                || cfg.nh.encap.is_some()
                || !cfg.multipath.is_empty(),
            self.nexthops.contains_key(&cfg.nh_id),
        )?;
        if op == RouteOp::Delete {
            let r = self.fib4_delete(&cfg);
            if let Ok(accessed) = r {
                // the kernel flushes only when a lookup had found the entry
                // (FA_S_ACCESSED; conformance scenario 481)
                if accessed {
                    self.rt_cache_flush4();
                }
                self.route_only = true;
                self.bump();
            }
            return r.map(|_| ());
        }
        let r = self.fib4_insert(&cfg, op.flags());
        self.route_only = cfg.rtype != RouteType::Local;
        if r == Ok(true) {
            self.rt_cache_flush4();
        }
        if r.is_ok() && cfg.rtype == RouteType::Local {
            self.custom_local_routes4 = true;
        }
        self.bump();
        r.map(|_| ())
    }

    fn check_key(dst: u32, len: u8) -> Result<()> {
        if len > 32 {
            return Err(Error::msg(Errno::EINVAL, "Invalid prefix length"));
        }
        if len < 32 && dst & !mask4(len) != 0 {
            return Err(Error::msg(
                Errno::EINVAL,
                "Invalid prefix for given prefix length",
            ));
        }
        Ok(())
    }

    /// `fib_create_info`: validate a request and build its fib_info.
    fn fib4_create_info(&mut self, cfg: &Route4Cfg) -> Result<Fib4Info> {
        let einval = |m| Error::msg(Errno::EINVAL, m);
        if cfg.rtype.min_scope() > cfg.scope {
            return Err(einval("Invalid scope"));
        }
        if cfg.nh_id != 0 {
            return self.fib4_create_info_nh(cfg);
        }
        // ip_fib_metrics_init comes before the nexthops are built
        crate::route::metrics_check(&cfg.metrics)?;
        // fib_nh_init: each nexthop's encapsulation is built first (fib_get_nhs:
        // after the leg's gateway attributes are read)
        if let Some(e) = &cfg.nh.encap {
            e.check(false)?;
        }
        for n in &cfg.multipath {
            if n.gw_and_via {
                return Err(Error::msg(
                    Errno::EINVAL,
                    "Nexthop configuration can not contain both GATEWAY and VIA",
                ));
            }
            if n.via_unsupported {
                return Err(Error::msg(
                    Errno::EINVAL,
                    "Unsupported address family in RTA_VIA",
                ));
            }
            if let Some(e) = &n.encap {
                e.check(false)?;
            }
        }
        let mut nhs: smallvec::SmallVec<[Nh4; 1]> =
            smallvec::SmallVec::with_capacity(cfg.multipath.len().max(1));
        if let Some(first) = cfg.multipath.first() {
            // fib_get_nhs: RTA_OIF, RTA_GATEWAY and RTA_FLOW beside RTA_MULTIPATH must be
            // the first path's (a path without a device has index 0); the paths'
            // encapsulations were built before (conformance scenario 277)
            if cfg.nh.dev != 0 && first.dev != cfg.nh.dev {
                return Err(einval("Nexthop device index does not match RTA_OIF"));
            }
            if cfg.nh.gw.is_some() && first.gw != cfg.nh.gw {
                return Err(einval(
                    "Nexthop gateway does not match RTA_GATEWAY or RTA_VIA",
                ));
            }
            if cfg.nh.realm != 0 && first.realm != cfg.nh.realm {
                return Err(einval("Nexthop class id does not match RTA_FLOW"));
            }
            for n in &cfg.multipath {
                nhs.push(Nh4 {
                    gw: n.gw,
                    dev: n.dev,
                    weight: n.weight.max(1),
                    flags: n.flags,
                    scope: scope::UNIVERSE,
                    realm: n.realm,
                    encap: n.encap.clone(),
                    saddr: Default::default(),
                });
            }
        } else {
            nhs.push(Nh4 {
                gw: cfg.nh.gw,
                dev: cfg.nh.dev,
                weight: 1,
                flags: cfg.nh.flags,
                scope: scope::UNIVERSE,
                realm: cfg.nh.realm,
                encap: cfg.nh.encap.clone(),
                saddr: Default::default(),
            });
        }
        if nhs.iter().any(|n| n.realm != 0) {
            self.realms4_seen = true;
        }
        let mut info = Self::fib4_info(cfg, nhs)?;
        if cfg.rtype.reject_error().is_some() {
            if cfg.nh.gw.is_some() || cfg.nh.dev != 0 || !cfg.multipath.is_empty() {
                return Err(einval(
                    "Gateway, device and multipath can not be specified for this route type",
                ));
            }
            // NAT and XRESOLVE are error types too (EINVAL): taken as they are
            // (conformance scenario 419)
            return Ok(info);
        }
        // of the types that are no error type, only these make a route
        if cfg.rtype == RouteType::Unspec {
            return Err(einval("Invalid route type"));
        }
        if cfg.scope > scope::HOST {
            return Err(einval("Invalid scope"));
        }
        if cfg.scope == scope::HOST {
            if info.nhs.len() != 1 {
                return Err(einval(
                    "Route with host scope can not have multiple nexthops",
                ));
            }
            let nh = &mut info.nhs[0];
            if nh.gw.is_some() {
                return Err(einval("Route with host scope can not have a gateway"));
            }
            if nh.dev == 0 || !self.links.contains_key(&nh.dev) {
                return Err(Error::new(Errno::ENODEV));
            }
            nh.scope = scope::NOWHERE;
        } else {
            let mut linkdown = 0;
            let n = info.nhs.len();
            for nh in info.nhs.iter_mut() {
                self.fib4_check_nh_cached(nh, cfg.table, cfg.scope)?;
                if nh.flags & nhflags::LINKDOWN != 0 {
                    linkdown += 1;
                }
            }
            if linkdown == n {
                info.flags |= nhflags::LINKDOWN;
            }
        }
        if info.prefsrc != 0 && !self.fib4_valid_prefsrc(cfg, info.prefsrc) && !self.restore_mode {
            return Err(einval("Invalid prefsrc address"));
        }
        let ignoring = self.ignoring_linkdown4();
        fib_rebalance(&mut info, &ignoring);
        Ok(info)
    }

    /// The devices whose IPv4 configuration ignores routes without carrier
    /// (`ip_ignore_linkdown`), for [`fib_rebalance`].
    fn ignoring_linkdown4(&self) -> Vec<u32> {
        self.links
            .keys()
            .copied()
            .filter(|&d| self.ignore_linkdown4(d))
            .collect()
    }

    /// The info of request `cfg` through `nhs` (its metrics checked and normalized).
    fn fib4_info(cfg: &Route4Cfg, nhs: smallvec::SmallVec<[Nh4; 1]>) -> Result<Fib4Info> {
        crate::route::metrics_check(&cfg.metrics)?;
        Ok(Fib4Info {
            proto: cfg.proto,
            scope: cfg.scope,
            priority: cfg.priority,
            prefsrc: cfg.prefsrc,
            rtype: cfg.rtype,
            // fib_create_info keeps the request's flags (`rtm_flags`: its `onlink`),
            // which a multipath route's paths do not take but its dump shows and
            // fib_find_info compares (conformance scenario 753)
            flags: cfg.nh.flags & nhflags::ONLINK,
            metrics: crate::route::normalize_metrics(&cfg.metrics),
            nh_id: cfg.nh_id,
            nhs,
        })
    }

    /// `fib_create_info` for a route naming a nexthop object: its paths are the
    /// object's; error types take it without looking at it; the others must suit it
    /// (`fib_check_nexthop`).
    fn fib4_create_info_nh(&mut self, cfg: &Route4Cfg) -> Result<Fib4Info> {
        let made = self.fib4_create_info_nh_new(cfg);
        match made {
            // fib_find_info_nh: a request without metrics takes the fib_info of an
            // existing route through the same object with the same protocol, scope,
            // source, priority, type and table, before anything is checked (so a
            // source no longer local, say, passes); looked for only when the checks
            // fail, where it makes a difference (the search walks every table)
            Err(e) if cfg.metrics.is_empty() => self.fib4_find_info_nh(cfg).ok_or(e),
            r => r,
        }
    }

    /// An existing route's fib_info `fib_find_info_nh` would reuse for `cfg`.
    fn fib4_find_info_nh(&self, cfg: &Route4Cfg) -> Option<Fib4Info> {
        let onlink = crate::route::nhflags::ONLINK;
        self.tables4.values().flat_map(|t| t.iter()).find_map(|r| {
            let i = &r.info;
            (i.nh_id == cfg.nh_id
                && r.table == cfg.table
                && i.proto == cfg.proto
                && i.scope == cfg.scope
                && i.prefsrc == cfg.prefsrc
                && i.priority == cfg.priority
                && i.rtype == cfg.rtype
                && i.flags & onlink == cfg.nh.flags & onlink)
                .then(|| (**i).clone())
        })
    }

    fn fib4_create_info_nh_new(&mut self, cfg: &Route4Cfg) -> Result<Fib4Info> {
        let einval = |m| Error::msg(Errno::EINVAL, m);
        let Some((nhs, _)) = crate::nexthop::paths4(&self.nexthops, cfg.nh_id) else {
            return Err(einval("Nexthop id does not exist"));
        };
        let info = Self::fib4_info(cfg, nhs)?;
        if cfg.rtype.reject_error().is_some() {
            return Ok(info);
        }
        if cfg.rtype == RouteType::Unspec {
            return Err(einval("Invalid route type"));
        }
        if cfg.scope > scope::HOST {
            return Err(einval("Invalid scope"));
        }
        crate::nexthop::fib_check_nexthop(&self.nexthops, cfg.nh_id, cfg.scope)?;
        if info.prefsrc != 0 && !self.fib4_valid_prefsrc(cfg, info.prefsrc) && !self.restore_mode {
            return Err(einval("Invalid prefsrc address"));
        }
        Ok(info)
    }

    fn fib4_valid_prefsrc(&self, cfg: &Route4Cfg, prefsrc: u32) -> bool {
        if cfg.rtype != RouteType::Local || cfg.dst == 0 || prefsrc != cfg.dst {
            let mut t = cfg.table;
            if t == tid::MAIN {
                t = tid::LOCAL;
            }
            let mut rc = self.addr_type4_table(prefsrc, t);
            if rc != RouteType::Local && t != tid::LOCAL {
                rc = self.addr_type4_table(prefsrc, tid::LOCAL);
            }
            if rc != RouteType::Local {
                return false;
            }
        }
        true
    }

    /// [`Self::fib4_check_nh`], remembered during a bulk load (a full table has millions
    /// of routes through a handful of gateways).
    fn fib4_check_nh_cached(&mut self, nh: &mut Nh4, table: u32, rscope: u8) -> Result<()> {
        let Some(Gateway::V4(gw)) = nh.gw else {
            return self.fib4_check_nh(nh, table, rscope);
        };
        if !self.deferring || self.restore_mode {
            return self.fib4_check_nh(nh, table, rscope);
        }
        let key = (gw, nh.dev, nh.flags, table, rscope);
        if let Some(r) = self.nh_cache_get(&key) {
            let (dev, scope, flags) = r?;
            nh.dev = dev;
            nh.scope = scope;
            nh.flags = flags;
            return Ok(());
        }
        let mut probe = nh.clone();
        let r = self.fib4_check_nh(&mut probe, table, rscope);
        self.nh_cache_put(
            key,
            r.clone().map(|()| (probe.dev, probe.scope, probe.flags)),
        );
        *nh = probe;
        r
    }

    fn nh_cache_get(&self, key: &crate::netns::NhKey) -> Option<Result<crate::netns::NhChecked>> {
        self.nh_cache.get(key).cloned()
    }

    fn nh_cache_put(&mut self, key: crate::netns::NhKey, r: Result<crate::netns::NhChecked>) {
        self.nh_cache.insert(key, r);
    }

    /// `fib_check_nh`: validate a nexthop (gateway reachability, device, scope).
    /// The end of `fib_check_nh_v4_gw`: the gateway's egress device exists and is up
    /// (no carrier marks the next hop linkdown).
    fn fib4_nh_egress(&self, nh: &mut Nh4) -> Result<()> {
        let dev = self.links.get(&nh.dev).ok_or(Error::msg(
            Errno::EINVAL,
            "No egress device for nexthop gateway",
        ))?;
        if !dev.carrier {
            nh.flags |= nhflags::LINKDOWN;
        }
        if !dev.up {
            return Err(Error::new(Errno::ENETDOWN));
        }
        Ok(())
    }

    pub(crate) fn fib4_check_nh(&self, nh: &mut Nh4, table: u32, rscope: u8) -> Result<()> {
        match nh.gw {
            Some(Gateway::V4(gw)) => {
                if nh.flags & nhflags::ONLINK != 0 {
                    if rscope >= scope::LINK {
                        return Err(Error::msg(Errno::EINVAL, "Nexthop has invalid scope"));
                    }
                    let dev = self.links.get(&nh.dev).ok_or(Error::msg(
                        Errno::ENODEV,
                        "Nexthop device required for onlink",
                    ))?;
                    if !dev.up {
                        return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
                    }
                    // (restore mode: the kernel accepted the gateway when it was added;
                    // an address that makes it local or broadcast may have come since)
                    if self.addr_type4_dev(gw) != RouteType::Unicast && !self.restore_mode {
                        return Err(Error::msg(Errno::EINVAL, "Nexthop has invalid gateway"));
                    }
                    if !dev.carrier {
                        nh.flags |= nhflags::LINKDOWN;
                    }
                    nh.scope = scope::LINK;
                    return Ok(());
                }
                if self.restore_mode && nh.dev != 0 {
                    // restore mode: the kernel accepted this gateway on this device
                    nh.scope = scope::LINK;
                    return self.fib4_nh_egress(nh);
                }
                let fscope = (rscope.saturating_add(1)).max(scope::LINK);
                let mut res = None;
                if table != 0 && table != tid::MAIN && self.tables4.contains_key(&table) {
                    // the route's own table; while merged, local's trie is main's
                    // (conformance scenario 230)
                    res = self
                        .fib4_table_lookup(self.merged_alias(table), gw, 0, fscope, nh.dev, true)
                        .ok();
                }
                let res = match res {
                    Some(r) => r,
                    None => {
                        let flow = crate::lookup::Flow4 {
                            dst: gw,
                            oif: nh.dev,
                            iif: 1,
                            scope: fscope,
                            ..Default::default()
                        };
                        // the lookup's own error: ENETUNREACH without a route,
                        // EACCES/EHOSTUNREACH/EINVAL from prohibit/unreachable/
                        // blackhole routes or rules
                        self.fib4_lookup(&flow, true)
                            .map_err(|e| Error::msg(e, "Nexthop has invalid gateway"))?
                    }
                };
                if res.route.rtype != RouteType::Unicast && res.route.rtype != RouteType::Local {
                    return Err(Error::msg(Errno::EINVAL, "Nexthop has invalid gateway"));
                }
                nh.scope = res.route.info.scope;
                nh.dev = res.route.info.nhs[res.nh_sel].dev;
                self.fib4_nh_egress(nh)
            }
            Some(Gateway::V6(gw6)) => {
                // fib_check_nh_v6_gw: IPv6's fib6_nh_init with the route's table, the
                // nexthop's flags and device (conformance scenario 275)
                let restore = self.restore_mode;
                let mut dev = (nh.dev != 0).then_some(nh.dev);
                if let Some(d) = dev {
                    if !self.links.contains_key(&d) || (!self.has_idev6(d) && !restore) {
                        return Err(Error::new(Errno::ENODEV));
                    }
                }
                if nh.flags & nhflags::ONLINK != 0 {
                    let Some(d) = dev else {
                        return Err(Error::msg(
                            Errno::ENODEV,
                            "Nexthop device required for onlink",
                        ));
                    };
                    if !self.links[&d].up {
                        return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
                    }
                }
                let rcfg = crate::fib6::Route6Cfg {
                    table,
                    ..Default::default()
                };
                let ncfg = NhCfg {
                    gw: Some(Gateway::V6(gw6)),
                    dev: nh.dev,
                    flags: nh.flags & nhflags::ONLINK,
                    ..Default::default()
                };
                self.ip6_validate_gw(&rcfg, &ncfg, gw6, &mut dev)?;
                let Some(d) = dev else {
                    return Err(Error::new(Errno::ENODEV));
                };
                if self.ipv6_disabled(d) && !restore {
                    return Err(Error::msg(
                        Errno::EACCES,
                        "IPv6 is disabled on nexthop device",
                    ));
                }
                let l = &self.links[&d];
                if !l.up {
                    return Err(Error::msg(Errno::ENETDOWN, "Nexthop device is not up"));
                }
                // the IPv6 check's linkdown stays with its own nexthop: a new IPv4 path
                // through an IPv6 gateway is never linkdown (random seed 22238)
                nh.dev = d;
                nh.scope = scope::LINK;
                Ok(())
            }
            None => {
                if nh.flags & (nhflags::PERVASIVE | nhflags::ONLINK) != 0 {
                    return Err(Error::msg(
                        Errno::EINVAL,
                        "Invalid flags for nexthop - PERVASIVE and ONLINK can not be set",
                    ));
                }
                let dev = self.links.get(&nh.dev).ok_or(Error::new(Errno::ENODEV))?;
                // fib_check_nh_nongw: the device's IPv4 state (`inetdev_by_index`). In
                // restore mode (a mirror taking the kernel's routes and objects as they
                // are) a path outlives that state: an MTU below 68 removes it and keeps
                // the routes of a device without addresses (mirror-diff seed 3518)
                if !self.has_idev4(nh.dev) && !self.restore_mode {
                    return Err(Error::new(Errno::ENODEV));
                }
                if !dev.up {
                    return Err(Error::msg(Errno::ENETDOWN, "Device for nexthop is not up"));
                }
                nh.scope = scope::HOST;
                if !dev.carrier {
                    nh.flags |= nhflags::LINKDOWN;
                }
                Ok(())
            }
        }
    }

    /// `fib_table_insert`; says whether the route cache is to be flushed: after a new
    /// entry, or a replacement of one a lookup had found (`FA_S_ACCESSED`), not after a
    /// replace that found the same route there already.
    pub(crate) fn fib4_insert(&mut self, cfg: &Route4Cfg, fl: NlFlags) -> Result<bool> {
        Self::check_key(cfg.dst, cfg.dst_len)?;
        self.new_table4(cfg.table);
        // the kernel's `fib_find_info`: a table's routes mostly differ only in their
        // destination (a full table holds a handful of distinct infos, one per
        // gateway); an info is never changed in place while shared (`Arc::make_mut`)
        let info = match self.fib4_create_info(cfg) {
            Ok(i) => i,
            Err(e) => {
                // (the hash table grows before the new info is checked)
                self.fib_info_hash_grow_check();
                return Err(e);
            }
        };
        let (info, made) = match self.nh_info4_find(cfg, &info) {
            Some(live) => (live, false),
            None => {
                self.fib_info_hash_grow_check();
                let tables = &self.tables4;
                let (info, made) = self.info4_pool.share(info, cfg.table, |c| {
                    tables
                        .values()
                        .flat_map(|t| t.iter())
                        .any(|r| r.table == cfg.table && Arc::ptr_eq(&r.info, c))
                });
                // a new info, or a remembered one no route held: one more lives
                if made || Arc::strong_count(&info) <= 2 {
                    self.nh_infos4.live_bound += 1;
                }
                (info, made)
            }
        };
        if info.nh_id != 0 {
            self.nh_info4_note(
                cfg.table,
                &info,
                Prefix4::new(cfg.dst, cfg.dst_len),
                cfg.tos,
            );
        }
        // fib_create_info: a new info's nexthops choose their source addresses now
        // (an info found equal keeps what its nexthops remember); a route through
        // objects, or of a type without nexthops, leaves that to its lookups
        if made && info.nh_id == 0 && cfg.rtype.reject_error().is_none() {
            for nh in &info.nhs {
                self.update_nhc_saddr4(&nh.saddr, nh.dev, nh.gw, info.scope);
            }
        }
        let p = Prefix4::new(cfg.dst, cfg.dst_len);
        // the alias keeps the request's type (fa_type), through a blackhole object too
        let rtype = cfg.rtype;
        let new = Route4 {
            dst: p,
            tos: cfg.tos,
            rtype,
            table: cfg.table,
            info,
            fa_state: Default::default(),
        };
        let t = self.tables4.get_mut(&cfg.table).expect("table created");
        let list = t.entry(p);
        // fib_find_alias: first alias with tos <= new tos and priority >= new priority
        let pos = list.iter().position(|a| {
            a.tos < new.tos || (a.tos == new.tos && a.info.priority >= new.info.priority)
        });
        let mut insert_at = pos.unwrap_or(list.len());
        if let Some(first) = pos {
            let a = &list[first];
            if a.tos == new.tos && a.info.priority == new.info.priority {
                if fl.excl {
                    t.prune_prefix(p);
                    return Err(Error::new(Errno::EEXIST));
                }
                let mut end = first;
                let mut matched = None;
                while end < list.len()
                    && list[end].tos == new.tos
                    && list[end].info.priority == new.info.priority
                {
                    if list[end].rtype == new.rtype && list[end].info == new.info {
                        matched = Some(end);
                        break;
                    }
                    end += 1;
                }
                if fl.replace {
                    if let Some(m) = matched {
                        if m == first {
                            return Ok(false);
                        }
                        return Err(Error::new(Errno::EEXIST));
                    }
                    let visible =
                        new.info.scope >= scope::LINK || list[first].info.scope >= scope::LINK;
                    let old = std::mem::replace(&mut list[first], new);
                    if visible {
                        self.nh_cache.clear();
                    }
                    return Ok(old.fa_state.accessed());
                }
                if matched.is_some() {
                    return Err(Error::new(Errno::EEXIST));
                }
                if fl.append {
                    while end < list.len()
                        && list[end].tos == new.tos
                        && list[end].info.priority == new.info.priority
                    {
                        end += 1;
                    }
                    insert_at = end;
                } else {
                    insert_at = first;
                }
            }
        }
        if !fl.create {
            t.prune_prefix(p);
            return Err(Error::new(Errno::ENOENT));
        }
        let visible = new.info.scope >= scope::LINK;
        list.insert(insert_at, new);
        if p.len == 0 {
            t.num_default += 1;
        }
        if visible {
            // gateway validation sees link and host scope routes: forget cached answers
            self.nh_cache.clear();
        }
        Ok(true)
    }

    /// `fib_nh_match`: whether the request's nexthop part selects `info` (for deletes).
    fn fib4_nh_match(cfg: &Route4Cfg, info: &Fib4Info) -> bool {
        if cfg.priority != 0 && cfg.priority != info.priority {
            return false;
        }
        if cfg.nh_id != 0 {
            return info.nh_id == cfg.nh_id;
        }
        if info.nh_id != 0 {
            // a route through an object is not selected by a nexthop specification
            return cfg.nh.dev == 0 && cfg.nh.gw.is_none() && cfg.multipath.is_empty();
        }
        if cfg.nh.dev != 0 || cfg.nh.gw.is_some() {
            let nh = &info.nhs[0];
            // a realm counts only beside a device or gateway (conformance scenario 245)
            if cfg.nh.realm != 0 && cfg.nh.realm != nh.realm {
                return false;
            }
            // fib_encap_match: a named encapsulation must be the nexthop's; one the
            // kernel cannot build for an IPv4 route (seg6local, an inline SRH) is
            // not compared, so it selects any nexthop
            if let Some(e) = &cfg.nh.encap {
                if e.check(false).is_ok() && cfg.nh.encap != nh.encap {
                    return false;
                }
            }
            if cfg.nh.dev != 0 && cfg.nh.dev != nh.dev {
                return false;
            }
            if let Some(g) = cfg.nh.gw {
                if nh.gw != Some(g) {
                    return false;
                }
            }
            return true;
        }
        if cfg.multipath.is_empty() {
            return true;
        }
        // the route's nexthops, in order, against the request's legs: a leg names a
        // device and a gateway only if it must match them; legs beyond the route's
        // nexthops are not looked at, too few legs match nothing (conformance
        // scenario 158)
        if cfg.multipath.len() < info.nhs.len() {
            return false;
        }
        cfg.multipath.iter().zip(info.nhs.iter()).all(|(c, n)| {
            (c.dev == 0 || c.dev == n.dev)
                && (c.gw.is_none() || c.gw == n.gw)
                && (c.realm == 0 || c.realm == n.realm)
        })
    }

    /// `fib_table_delete`; says whether a lookup had found the entry deleted
    /// (`FA_S_ACCESSED`: the route cache is flushed only then).
    pub(crate) fn fib4_delete(&mut self, cfg: &Route4Cfg) -> Result<bool> {
        Self::check_key(cfg.dst, cfg.dst_len)?;
        let p = Prefix4::new(cfg.dst, cfg.dst_len);
        let t = self
            .tables4
            .get_mut(&cfg.table)
            .ok_or(Error::msg(Errno::ESRCH, "FIB table does not exist"))?;
        let Some(list) = t.get_mut(p) else {
            return Err(Error::new(Errno::ESRCH));
        };
        let Some(start) = list.iter().position(|a| a.tos <= cfg.tos) else {
            return Err(Error::new(Errno::ESRCH));
        };
        let mut victim = None;
        for (i, a) in list.iter().enumerate().skip(start) {
            if a.tos != cfg.tos {
                break;
            }
            let type_ok = cfg.rtype == RouteType::Unspec || a.rtype == cfg.rtype;
            let scope_ok = cfg.scope == scope::NOWHERE || a.info.scope == cfg.scope;
            let src_ok = cfg.prefsrc == 0 || a.info.prefsrc == cfg.prefsrc;
            let proto_ok = cfg.proto == 0 || a.info.proto == cfg.proto;
            let metrics_ok = a.info.metrics.matches_request(&cfg.metrics);
            if type_ok
                && scope_ok
                && src_ok
                && proto_ok
                && metrics_ok
                && Self::fib4_nh_match(cfg, &a.info)
            {
                victim = Some(i);
                break;
            }
        }
        let Some(i) = victim else {
            return Err(Error::new(Errno::ESRCH));
        };
        let gone = list.remove(i);
        let visible = gone.info.scope >= scope::LINK;
        if p.len == 0 {
            t.num_default -= 1;
        }
        t.prune_prefix(p);
        if visible {
            self.nh_cache.clear();
        }
        Ok(gone.fa_state.accessed())
    }

    // ------------------------------------------------- kernel-derived routes

    // mirrors the kernel's fib_magic(cmd, type, dst, len, ifa, priority) on a namespace
    #[allow(clippy::too_many_arguments)]
    fn fib_magic(
        &mut self,
        add: bool,
        rtype: RouteType,
        dst: u32,
        len: u8,
        prim: &Addr4,
        dev: u32,
        prio: u32,
    ) {
        let table = if rtype == RouteType::Unicast {
            tid::MAIN
        } else {
            tid::LOCAL
        };
        self.new_table4(table);
        let cfg = Route4Cfg {
            table,
            dst,
            dst_len: len,
            tos: 0,
            rtype,
            proto: crate::route::proto::KERNEL,
            scope: if rtype != RouteType::Local {
                scope::LINK
            } else {
                scope::HOST
            },
            priority: prio,
            prefsrc: prim.local,
            nh: NhCfg {
                dev,
                ..Default::default()
            },
            ..Default::default()
        };
        if add {
            let _ = self.fib4_insert(
                &cfg,
                NlFlags {
                    create: true,
                    append: true,
                    ..Default::default()
                },
            );
        } else {
            let _ = self.fib4_delete(&cfg);
        }
    }

    fn prim_of(&self, dev: u32, a: &Addr4) -> Option<Addr4> {
        if !a.secondary() {
            return Some(a.clone());
        }
        self.addrs4
            .get(&dev)?
            .iter()
            .find(|x| !x.secondary() && x.plen == a.plen && x.matches(a.address))
            .cloned()
    }

    /// `fib_add_ifaddr` for the address at `idx` in the device's list.
    pub(crate) fn fib_add_ifaddr(&mut self, dev: u32, idx: usize) {
        let Some(a) = self.addrs4.get(&dev).and_then(|v| v.get(idx)).cloned() else {
            return;
        };
        let Some(prim) = self.prim_of(dev, &a) else {
            return;
        };
        let (up, lo) = {
            let l = &self.links[&dev];
            (l.up, l.is_loopback())
        };
        self.fib_magic(true, RouteType::Local, a.local, 32, &prim, dev, 0);
        if !up {
            return;
        }
        if a.broadcast != 0 && a.broadcast != u32::MAX {
            self.fib_magic(true, RouteType::Broadcast, a.broadcast, 32, &prim, dev, 0);
            self.arp_invalidate(dev, a.broadcast);
        }
        let mask = a.mask();
        let prefix = a.address & mask;
        if !v4::is_zeronet(prefix) && !a.secondary() && (prefix != a.local || a.plen < 32) {
            if a.flags & ifa::NOPREFIXROUTE == 0 {
                let t = if lo {
                    RouteType::Local
                } else {
                    RouteType::Unicast
                };
                self.fib_magic(true, t, prefix, a.plen, &prim, dev, a.metric);
            }
            if a.plen < 31 {
                self.fib_magic(
                    true,
                    RouteType::Broadcast,
                    prefix | !mask,
                    32,
                    &prim,
                    dev,
                    0,
                );
                self.arp_invalidate(dev, prefix | !mask);
            }
        }
    }

    /// `arp_invalidate(dev, ip, false)`, which `fib_add_ifaddr` calls for each broadcast
    /// address it gives a route (the explicit one and the subnet's): the device's ARP
    /// entry for that address goes unless its state is valid (`NUD_VALID`: permanent,
    /// noarp, reachable, stale, delay, probe stay; incomplete, failed and none go,
    /// `neigh_remove_one`), so no unresolved entry shadows the broadcast route.
    fn arp_invalidate(&mut self, dev: u32, ip: u32) {
        let key = (dev, u128::from(ip), false);
        let Some(i) = self.neigh.iter().position(|n| (n.dev, n.addr, n.v6) == key) else {
            return;
        };
        if self.neigh[i].state.valid() {
            return;
        }
        self.neigh.remove(i);
        self.neigh_timers.remove(&key);
    }

    /// `fib_del_ifaddr` for an address already removed from the device's list
    /// (`iprim`: the primary being deleted when this is one of its secondaries).
    pub(crate) fn fib_del_ifaddr(&mut self, dev: u32, a: &Addr4, iprim: Option<&Addr4>) {
        const LOCAL_OK: u32 = 1;
        const BRD_OK: u32 = 2;
        const BRD0_OK: u32 = 4;
        const BRD1_OK: u32 = 8;
        let brd = a.address | !a.mask();
        let any = a.address & a.mask();
        let mut ok = 0u32;
        let mut subnet = false;
        let mut gone = true;
        let mut same_prefsrc = false;
        let lo = self.links.get(&dev).is_some_and(|l| l.is_loopback());
        let prim = if a.secondary() {
            match iprim.cloned().or_else(|| self.prim_of(dev, a)) {
                Some(p) => p,
                None => return,
            }
        } else {
            if !v4::is_zeronet(any) && (any != a.local || a.plen < 32) {
                if a.flags & ifa::NOPREFIXROUTE == 0 {
                    let t = if lo {
                        RouteType::Local
                    } else {
                        RouteType::Unicast
                    };
                    self.fib_magic(false, t, any, a.plen, a, dev, 0);
                }
                subnet = true;
            }
            a.clone()
        };
        let list = self.addrs4.get(&dev).cloned().unwrap_or_default();
        let mut prim1: Option<Addr4> = None;
        for a1 in &list {
            if a1 == a {
                gone = false;
                continue;
            }
            if let Some(ip) = iprim {
                if a1.plen == ip.plen && ip.matches(a1.address) {
                    continue;
                }
            }
            if a1.secondary() {
                if a1.plen == prim.plen && prim.matches(a1.address) {
                    prim1 = Some(prim.clone());
                } else {
                    if !same_prefsrc {
                        continue;
                    }
                    let need = match &prim1 {
                        Some(p1) => a1.plen != p1.plen || !p1.matches(a1.address),
                        None => true,
                    };
                    if need {
                        prim1 = list
                            .iter()
                            .find(|x| !x.secondary() && x.plen == a1.plen && x.matches(a1.address))
                            .cloned();
                    }
                    match &prim1 {
                        Some(p1) if p1.local == prim.local => {}
                        _ => continue,
                    }
                }
            } else {
                if prim.local != a1.local {
                    continue;
                }
                prim1 = Some(a1.clone());
                if prim != *a1 {
                    same_prefsrc = true;
                }
            }
            if a.local == a1.local {
                ok |= LOCAL_OK;
            }
            if a.broadcast == a1.broadcast {
                ok |= BRD_OK;
            }
            if brd == a1.broadcast {
                ok |= BRD1_OK;
            }
            if any == a1.broadcast {
                ok |= BRD0_OK;
            }
            if prim1.as_ref() == Some(a1) && a1.plen < 31 {
                let brd1 = a1.address | !a1.mask();
                let any1 = a1.address & a1.mask();
                if !v4::is_zeronet(any1) {
                    if a.broadcast == brd1 || a.broadcast == any1 {
                        ok |= BRD_OK;
                    }
                    if brd == brd1 || brd == any1 {
                        ok |= BRD1_OK;
                    }
                    if any == brd1 || any == any1 {
                        ok |= BRD0_OK;
                    }
                }
            }
        }
        if ok & BRD_OK == 0 {
            self.fib_magic(false, RouteType::Broadcast, a.broadcast, 32, &prim, dev, 0);
        }
        if subnet && a.plen < 31 {
            if ok & BRD1_OK == 0 {
                self.fib_magic(false, RouteType::Broadcast, brd, 32, &prim, dev, 0);
            }
            if ok & BRD0_OK == 0 {
                self.fib_magic(false, RouteType::Broadcast, any, 32, &prim, dev, 0);
            }
        }
        if ok & LOCAL_OK == 0 {
            self.fib_magic(false, RouteType::Local, a.local, 32, &prim, dev, 0);
            if gone && self.addr_type4_dev(a.local) != RouteType::Local {
                self.fib_sync_down_addr(a.local);
            }
        }
    }

    /// `fib_sync_down_addr` + flush: routes whose preferred source disappeared die, but
    /// only those of the device's FIB table (`l3mdev_fib_table(dev) ?: RT_TABLE_MAIN`:
    /// main, without VRFs); the same source in any other table, local and default
    /// included, stays (conformance scenario 193).
    fn fib_sync_down_addr(&mut self, local: u32) {
        if let Some(t) = self.tables4.get_mut(&tid::MAIN) {
            t.for_each_list_mut(|list| list.retain(|r| r.info.prefsrc != local));
        }
    }

    /// `ipv4_devconf_setall`: every knob of the device's IPv4 configuration counts as
    /// written, so writes to `default` no longer reach it. An address request that
    /// finds the device's IPv4 state does this before anything else can fail
    /// (`rtm_to_ifaddr`), and so does the loopback coming up.
    fn devconf4_setall(&mut self, dev: u32) {
        if let Some(c) = self.sysctl.v4_dev.get_mut(&dev) {
            c.written = u32::MAX;
        }
    }

    /// `ip addr add` (IPv4).
    pub fn addr4_add(&mut self, dev: u32, mut a: Addr4) -> Result<()> {
        // inet_rtm_to_ifa: no device of the index (an `ifN` form may name none)
        // (the label is the request's: `rtm_to_ifaddr` copies the device's name only
        // for a request without IFA_LABEL, and an empty IFA_LABEL stays empty)
        if !self.links.contains_key(&dev) {
            return Err(Error::msg(Errno::ENODEV, "ipv4: Device not found"));
        }
        if a.plen > 32 {
            return Err(Error::new(Errno::EINVAL));
        }
        // inet_rtm_newaddr takes an address 0.0.0.0 without a trace (success, nothing
        // added; conformance scenario 274), before it looks for the device's IPv4 state
        // (random seed 22982)
        if a.local == 0 {
            return Ok(());
        }
        // rtm_to_ifaddr: a device without IPv4 state (an MTU below 68) takes none
        if !self.has_idev4(dev) {
            return Err(Error::new(Errno::ENOBUFS));
        }
        self.devconf4_setall(dev);
        a.flags &= !ifa::SECONDARY;
        // set_ifa_lifetime: deprecated from the start with a preferred lifetime of 0
        a.life.tstamp = self.now;
        a.flags = a.life.flags(a.flags);
        let list = self.addrs4.entry(dev).or_default();
        // find_matching_ifa first: the same address and prefix already there is EEXIST,
        // before the insertion's walk can meet another of the subnet with another scope
        // (conformance scenario 252)
        if list.iter().any(|x| {
            x.plen == a.plen && ((x.address ^ a.address) & a.mask()) == 0 && x.local == a.local
        }) {
            return Err(Error::msg(Errno::EEXIST, "ipv4: Address already assigned"));
        }
        // inet_rtm_newaddr: `autojoin` joins the group before the insertion, which may
        // still fail (the group stays joined then, as in the kernel)
        if a.flags & ifa::MCAUTOJOIN != 0 {
            self.mc4_autojoin(dev, a.address)?;
        }
        // __inet_insert_ifa: IPv6-only flags are dropped
        a.flags &= !ifa::IPV6ONLY;
        self.addr4_seq += 1;
        a.hashed = self.addr4_seq;
        let list = self.addrs4.entry(dev).or_default();
        let mut last_primary = 0usize;
        for (i, x) in list.iter().enumerate() {
            if !x.secondary() && a.scope <= x.scope {
                last_primary = i + 1;
            }
            if x.plen == a.plen && ((x.address ^ a.address) & a.mask()) == 0 {
                if x.local == a.local {
                    return Err(Error::msg(Errno::EEXIST, "ipv4: Address already assigned"));
                }
                if x.scope != a.scope {
                    return Err(Error::msg(Errno::EINVAL, "ipv4: Invalid scope value"));
                }
                a.flags |= ifa::SECONDARY;
            }
        }
        let pos = if a.secondary() {
            list.len()
        } else {
            last_primary
        };
        list.insert(pos, a);
        // fib_inetaddr_event(NETDEV_UP)
        self.fib_add_ifaddr(dev, pos);
        self.fib_sync_up(dev, nhflags::DEAD);
        self.dev_addr_event4();
        self.rt_cache_flush4();
        self.bump();
        Ok(())
    }

    /// `ip addr replace` / `ip addr change` (IPv4; `RTM_NEWADDR` with `NLM_F_REPLACE`):
    /// an address that is not there yet is added, whatever the flags; of one that is
    /// (same local address, prefix length and subnet: `find_matching_ifa`), only the
    /// metric changes (scope, flags, label and broadcast stay), to the request's, 0
    /// when it gives none (conformance scenario 233), and the lifetimes start again
    /// from the request's (`set_ifa_lifetime`, with the deprecated flag they imply).
    pub fn addr4_replace(&mut self, dev: u32, a: Addr4) -> Result<()> {
        if !self.links.contains_key(&dev) {
            return Err(Error::msg(Errno::ENODEV, "ipv4: Device not found"));
        }
        if !self.has_idev4(dev) {
            return Err(Error::new(Errno::ENOBUFS));
        }
        self.devconf4_setall(dev);
        let found = self.addrs4.get(&dev).and_then(|list| {
            list.iter().position(|x| {
                x.plen == a.plen && ((x.address ^ a.address) & a.mask()) == 0 && x.local == a.local
            })
        });
        let Some(i) = found else {
            return self.addr4_add(dev, a);
        };
        let old = self.addrs4[&dev][i].clone();
        if old.metric != a.metric {
            self.fib_modify_prefix_metric(dev, &old, a.metric);
            if let Some(x) = self.addrs4.get_mut(&dev).and_then(|l| l.get_mut(i)) {
                x.metric = a.metric;
            }
        }
        // set_ifa_lifetime: the request's lifetimes from now on, and the deprecated
        // flag they imply
        let now = self.now;
        if let Some(x) = self.addrs4.get_mut(&dev).and_then(|l| l.get_mut(i)) {
            x.life = Lifetime {
                tstamp: now,
                ..a.life
            };
            x.flags = a.life.flags(x.flags);
        }
        self.rt_cache_flush4();
        self.bump();
        Ok(())
    }

    /// `fib_modify_prefix_metric`: the prefix route of a primary address with a prefix
    /// route, on a link that is up, is added again with the new metric, then the one
    /// with the old metric is deleted; on the loopback that route is of type local
    /// (table local), as `fib_add_ifaddr` made it.
    fn fib_modify_prefix_metric(&mut self, dev: u32, a: &Addr4, metric: u32) {
        let prefix = a.address & a.mask();
        let (up, lo) = self
            .links
            .get(&dev)
            .map_or((false, false), |l| (l.up, l.is_loopback()));
        if !up
            || a.flags & (ifa::SECONDARY | ifa::NOPREFIXROUTE) != 0
            || v4::is_zeronet(prefix)
            || (prefix == a.local && a.plen == 32)
        {
            return;
        }
        let rtype = if lo {
            RouteType::Local
        } else {
            RouteType::Unicast
        };
        self.fib_magic(true, rtype, prefix, a.plen, a, dev, metric);
        self.fib_magic(false, rtype, prefix, a.plen, a, dev, a.metric);
    }

    /// `ip addr del` (IPv4, `inet_rtm_deladdr`): the first address of the device that matches
    /// each part given: local address, label, and prefix length with the address (the
    /// peer, or the local one) inside its prefix.
    pub fn addr4_del(
        &mut self,
        dev: u32,
        local: Option<u32>,
        plen: Option<u8>,
        peer: Option<u32>,
        label: Option<&str>,
    ) -> Result<()> {
        self.addr4_del_as(dev, local, plen, peer, label, true)
    }

    /// [`Netns::addr4_del`], leaving an autojoined group only when `leave_group` (a
    /// request; not an expiry).
    pub(crate) fn addr4_del_as(
        &mut self,
        dev: u32,
        local: Option<u32>,
        plen: Option<u8>,
        peer: Option<u32>,
        label: Option<&str>,
        leave_group: bool,
    ) -> Result<()> {
        // inet_rtm_deladdr: no device of the index, or none with IPv4 state
        if !self.links.contains_key(&dev) || !self.has_idev4(dev) {
            return Err(Error::msg(Errno::ENODEV, "ipv4: Device not found"));
        }
        let list = self.addrs4.get(&dev).cloned().unwrap_or_default();
        let Some(i) = list.iter().position(|x| {
            local.is_none_or(|l| l == x.local)
                && label.is_none_or(|l| l == x.label)
                && plen.is_none_or(|p| p == x.plen)
                && peer.is_none_or(|p| (p ^ x.address) & x.mask() == 0)
        }) else {
            return Err(Error::msg(Errno::EADDRNOTAVAIL, "ipv4: Address not found"));
        };
        // inet_rtm_deladdr: any multicast address makes the autojoin socket leave its
        // group (a lifetime's expiry, which does not come this way, leaves it joined)
        // the leave's report goes out by timer, after the ARP flush the deletion of
        // the last address makes
        self.igmp_held = Some(Vec::new());
        if leave_group && v4::is_multicast(list[i].address) {
            self.mc4_autoleave(dev, list[i].address);
        }
        self.inet_del_ifa(dev, i, false);
        for (d, to) in self.igmp_held.take().unwrap_or_default() {
            self.neigh_mc_entry(d, u128::from(to), false);
        }
        self.rt_cache_flush4();
        self.bump();
        Ok(())
    }

    /// `__inet_del_ifa`: deleting a primary deletes its subnet's secondaries, or with
    /// `promote_secondaries` promotes the first of them (conformance scenario 227).
    fn inet_del_ifa(&mut self, dev: u32, i: usize, dying: bool) {
        // fib_inetaddr_event(NETDEV_DOWN), for it and for each secondary going with it
        self.dev_addr_event4();
        let list = self.addrs4.get(&dev).cloned().unwrap_or_default();
        let a1 = list[i].clone();
        // a dying device's addresses go without promotions (`in_dev->dead`)
        let promote = !dying
            && (self.sysctl.v4_all.promote_secondaries != 0
                || self
                    .sysctl
                    .v4_dev
                    .get(&dev)
                    .is_some_and(|c| c.promote_secondaries != 0));
        let same_subnet = |x: &Addr4| x.plen == a1.plen && a1.matches(x.address);
        // the secondary to promote, the last address before it that stays where it is,
        // and the last primary (of a scope at least a1's) to put the promoted one after
        let (mut promoted, mut prev_prom, mut last_prim) = (None, None, None);
        // a dying device's primary goes alone (`if (in_dev->dead) goto no_promotions`):
        // its secondaries stay listed, and each, deleted in turn after it, finds no
        // primary of its subnet in `fib_del_ifaddr` and returns before touching a
        // route, so the routes elsewhere naming a secondary as their source are not
        // flushed (the device's own routes go with its last address)
        if !a1.secondary() && !dying {
            for (j, x) in list.iter().enumerate().skip(i + 1) {
                if !x.secondary() && a1.scope <= x.scope {
                    last_prim = Some(j);
                }
                if !x.secondary() || !same_subnet(x) {
                    prev_prom = Some(j);
                    continue;
                }
                if promote {
                    promoted = Some(j);
                    break;
                }
                if let Some(v) = self.addrs4.get_mut(&dev) {
                    v.retain(|y| y != x);
                }
                self.fib_del_ifaddr(dev, x, Some(&a1));
            }
        }
        // on promotion every secondary of the subnet from the promoted one on changes
        // its primary: their routes go now and come back with the new preferred source
        let mut readd = Vec::new();
        if let Some(p) = promoted {
            for x in list[p..].iter().filter(|x| same_subnet(x)) {
                self.fib_del_ifaddr(dev, x, Some(&a1));
            }
            readd = list[p + 1..]
                .iter()
                .filter(|x| same_subnet(x))
                .cloned()
                .collect();
        }
        if let Some(v) = self.addrs4.get_mut(&dev) {
            v.retain(|x| *x != a1);
        }
        self.fib_del_ifaddr(dev, &a1, None);
        if let Some(p) = promoted {
            let pa = list[p].clone();
            let v = self.addrs4.entry(dev).or_default();
            let Some(at) = v.iter().position(|x| *x == pa) else {
                return;
            };
            let mut x = v.remove(at);
            x.flags &= !ifa::SECONDARY;
            // moved after the last primary when other addresses stood between
            let to = match (prev_prom, last_prim) {
                (None, _) => at,
                (Some(_), None) => i,
                (Some(_), Some(lp)) => v.iter().position(|y| *y == list[lp]).map_or(at, |k| k + 1),
            };
            v.insert(to, x);
            self.fib_add_ifaddr(dev, to);
            for r in readd {
                if let Some(k) = self
                    .addrs4
                    .get(&dev)
                    .and_then(|v| v.iter().position(|y| *y == r))
                {
                    self.fib_add_ifaddr(dev, k);
                }
            }
        }
        if self.addrs4.get(&dev).is_none_or(|v| v.is_empty()) {
            self.fib_disable_ip(dev, true, false);
        }
    }

    // ------------------------------------------------------- device events

    /// `fib_sync_down_dev` + `fib_flush`, then `arp_ifdown`: the device's ARP entries
    /// and IPv4 proxy entries go too, permanent ones included (so also when its last
    /// IPv4 address is deleted: random seed 30089).
    fn fib_disable_ip(&mut self, dev: u32, force: bool, unregister: bool) {
        self.neigh_ifdown(dev, Some(false));
        let ignoring = self.ignoring_linkdown4();
        let mut fresh = InfoPool4::default();
        for t in self.tables4.values_mut() {
            t.for_each_list_mut(|list| {
                for r in list.iter_mut() {
                    // routes through nexthop objects live and die with the objects
                    if r.info.nh_id != 0 || !r.info.nhs.iter().any(|n| n.dev == dev) {
                        continue;
                    }
                    // a shared info is copied for this route, and shared again
                    // below with the routes whose copies came out equal
                    let info = Arc::make_mut(&mut r.info);
                    if unregister {
                        info.flags |= nhflags::DEAD;
                        continue;
                    }
                    let mut dead = 0;
                    let n = info.nhs.len();
                    for nh in info.nhs.iter_mut() {
                        if nh.flags & nhflags::DEAD != 0 {
                            dead += 1;
                        } else if nh.dev == dev && (force || nh.scope != scope::NOWHERE) {
                            nh.flags |= nhflags::DEAD | nhflags::LINKDOWN;
                            dead += 1;
                        }
                    }
                    if dead == n {
                        info.flags |= nhflags::DEAD | nhflags::LINKDOWN;
                    }
                    fib_rebalance(info, &ignoring);
                    fresh.reshare(&mut r.info, r.table);
                }
                list.retain(|r| r.info.flags & nhflags::DEAD == 0);
            });
        }
        self.info4_pool.adopt(fresh);
    }

    fn fib_sync_down_change(&mut self, dev: u32) {
        let ignoring = self.ignoring_linkdown4();
        let mut fresh = InfoPool4::default();
        for t in self.tables4.values_mut() {
            t.for_each_list_mut(|list| {
                for r in list.iter_mut() {
                    // routes through nexthop objects live and die with the objects
                    if r.info.nh_id != 0 || !r.info.nhs.iter().any(|n| n.dev == dev) {
                        continue;
                    }
                    // a shared info is copied for this route, and shared again
                    // below with the routes whose copies came out equal
                    let info = Arc::make_mut(&mut r.info);
                    let mut dead = 0;
                    let n = info.nhs.len();
                    for nh in info.nhs.iter_mut() {
                        if nh.flags & nhflags::DEAD != 0 {
                            dead += 1;
                        } else if nh.dev == dev && nh.scope != scope::NOWHERE {
                            nh.flags |= nhflags::LINKDOWN;
                            dead += 1;
                        }
                    }
                    if dead == n {
                        info.flags |= nhflags::LINKDOWN;
                    }
                    fib_rebalance(info, &ignoring);
                    fresh.reshare(&mut r.info, r.table);
                }
            });
        }
        self.info4_pool.adopt(fresh);
    }

    /// `fib_sync_up`.
    pub(crate) fn fib_sync_up(&mut self, dev: u32, flags: u32) {
        let Some(l) = self.links.get(&dev) else {
            return;
        };
        if !l.up {
            return;
        }
        let mut nh_flags = flags;
        if flags & nhflags::DEAD != 0 && l.carrier {
            nh_flags |= nhflags::LINKDOWN;
        }
        let ups: std::collections::BTreeMap<u32, bool> =
            self.links.values().map(|l| (l.index, l.up)).collect();
        let ignoring = self.ignoring_linkdown4();
        let mut fresh = InfoPool4::default();
        for t in self.tables4.values_mut() {
            t.for_each_list_mut(|list| {
                for r in list.iter_mut() {
                    // routes through nexthop objects live and die with the objects
                    if r.info.nh_id != 0 || !r.info.nhs.iter().any(|n| n.dev == dev) {
                        continue;
                    }
                    // a shared info is copied for this route, and shared again
                    // below with the routes whose copies came out equal
                    let info = Arc::make_mut(&mut r.info);
                    let mut alive = 0;
                    for nh in info.nhs.iter_mut() {
                        if nh.flags & nh_flags == 0 {
                            alive += 1;
                            continue;
                        }
                        if !ups.get(&nh.dev).copied().unwrap_or(false) {
                            continue;
                        }
                        if nh.dev != dev {
                            continue;
                        }
                        alive += 1;
                        nh.flags &= !nh_flags;
                    }
                    if alive > 0 {
                        info.flags &= !nh_flags;
                    }
                    fib_rebalance(info, &ignoring);
                    fresh.reshare(&mut r.info, r.table);
                }
            });
        }
        self.info4_pool.adopt(fresh);
    }

    /// Whether device `dev` has IPv4 state (an `in_device`): every device has, but one
    /// whose MTU is below 68 (`inetdev_valid_mtu`).
    pub fn has_idev4(&self, dev: u32) -> bool {
        self.sysctl.v4_dev.contains_key(&dev)
    }

    /// `inetdev_event(NETDEV_CHANGEMTU)`: below 68 the device's IPv4 state goes
    /// (`inetdev_destroy`: its addresses, without promotions, each with its routes, and
    /// the last with every route through the device; its neighbours and per-device
    /// sysctls); back at 68 or more a fresh one is made, with the defaults and no
    /// address (conformance scenario 267).
    pub(crate) fn ipv4_mtu_change(&mut self, dev: u32, mtu: u32) {
        if mtu < 68 {
            if !self.has_idev4(dev) {
                return;
            }
            while self.addrs4.get(&dev).is_some_and(|v| !v.is_empty()) {
                self.inet_del_ifa(dev, 0, true);
            }
            self.addrs4.remove(&dev);
            self.neigh_ifdown(dev, Some(false));
            self.mc4_destroy(dev);
            self.sysctl.v4_dev.remove(&dev);
            self.ntable_parms_release(dev, false);
            if let Some(n) = self.links.get(&dev).map(|l| l.name.clone()) {
                self.sysctl_dev_keys_move(&n, None, &["ipv4"]);
            }
        } else if !self.has_idev4(dev) {
            self.sysctl
                .v4_dev
                .insert(dev, self.sysctl.v4_default.clone());
            self.ntable_parms_alloc(dev, false);
            if let Some(n) = self.links.get(&dev).map(|l| l.name.clone()) {
                self.sysctl_dev_from_default("ipv4", &n);
            }
            // inetdev_init: a device that is up joins at once (ip_mc_up)
            if self.links.get(&dev).is_some_and(|l| l.up) {
                self.mc4_up(dev);
            }
        }
    }

    pub(crate) fn ipv4_netdev_up(&mut self, dev: u32) {
        // fib_netdev_event passes over a device without IPv4 state
        if !self.has_idev4(dev) {
            return;
        }
        // inetdev_event(NETDEV_UP) stops at an MTU below IPv4's minimum (a device made
        // with one keeps its IPv4 state): no group is joined (random seed 71339);
        // fib_netdev_event still adds the routes of its addresses
        if self.links.get(&dev).is_some_and(|l| l.mtu >= 68) {
            if self.links.get(&dev).is_some_and(|l| l.is_loopback()) {
                // inetdev_event(NETDEV_UP) on the loopback: 127.0.0.1/8 is inserted
                // again (an address flushed, or lost with IPv4 state to a small MTU,
                // comes back; one still there makes the insertion fail quietly:
                // conformance scenario 411)
                self.devconf4_setall(dev);
                let name = self
                    .links
                    .get(&dev)
                    .map_or_else(String::new, |l| l.name.clone());
                let lo = Addr4::loopback(&name);
                let _ = self.addr4_add(dev, lo);
            }
            self.mc4_up(dev);
        }
        let n = self.addrs4.get(&dev).map_or(0, Vec::len);
        for i in 0..n {
            self.fib_add_ifaddr(dev, i);
        }
        self.fib_sync_up(dev, nhflags::DEAD);
        // fib_netdev_event(NETDEV_UP)
        self.dev_addr_event4();
    }

    pub(crate) fn ipv4_netdev_down(&mut self, dev: u32, _unregister: bool) {
        if !self.has_idev4(dev) {
            return;
        }
        self.mc4_down(dev);
        self.fib_disable_ip(dev, false, false);
    }

    pub(crate) fn ipv4_netdev_change(&mut self, dev: u32, carrier: bool) {
        if !self.has_idev4(dev) {
            return;
        }
        if carrier {
            self.fib_sync_up(dev, nhflags::LINKDOWN);
        } else {
            self.fib_sync_down_change(dev);
        }
    }

    pub(crate) fn ipv4_netdev_unregister(&mut self, dev: u32) {
        // inetdev_destroy: addresses go (each with its routes), then everything via dev.
        while let Some(n) = self.addrs4.get(&dev).map(Vec::len) {
            if n == 0 {
                break;
            }
            let a = self.addrs4.get_mut(&dev).expect("exists").remove(0);
            self.fib_del_ifaddr(dev, &a, None);
            self.dev_addr_event4();
        }
        self.addrs4.remove(&dev);
        self.fib_disable_ip(dev, true, true);
    }
}

/// `fib_rebalance()`: which paths of a multipath info the path choice passes over
/// from now on ([`nhflags::SKIP`]): the dead ones, and those without carrier on a
/// device that ignores such routes (`ignoring`, as things are now). An info of one
/// path has no choice to make.
fn fib_rebalance(info: &mut Fib4Info, ignoring: &[u32]) {
    if info.nhs.len() < 2 {
        return;
    }
    for nh in info.nhs.iter_mut() {
        let skip = nh.flags & nhflags::DEAD != 0
            || (nh.flags & nhflags::LINKDOWN != 0 && ignoring.contains(&nh.dev));
        if skip {
            nh.flags |= nhflags::SKIP;
        } else {
            nh.flags &= !nhflags::SKIP;
        }
    }
}

#[cfg(test)]
mod info_sharing_tests {
    use super::*;
    use crate::link::LinkKind;
    use crate::netns::LinkAdd;

    fn link(ns: &mut Netns, name: &str, addr: u32) -> u32 {
        let dev = ns
            .link_add(&LinkAdd {
                name: name.into(),
                kind: Some(LinkKind::Dummy),
                up: true,
                ..Default::default()
            })
            .expect("link");
        ns.addr4_add(
            dev,
            Addr4 {
                life: Default::default(),
                local: addr,
                address: addr,
                plen: 24,
                broadcast: 0,
                scope: 0,
                flags: 0,
                metric: 0,
                label: String::new(),
                hashed: 0,
            },
        )
        .expect("address");
        dev
    }

    fn add(ns: &mut Netns, dst: u32, gw: u32, dev: u32) {
        add_proto(ns, dst, gw, dev, crate::route::proto::BOOT);
    }

    fn add_proto(ns: &mut Netns, dst: u32, gw: u32, dev: u32, proto: u8) {
        let cfg = Route4Cfg {
            dst,
            dst_len: 24,
            proto,
            nh: NhCfg {
                gw: Some(Gateway::V4(gw)),
                dev,
                ..Default::default()
            },
            ..Default::default()
        };
        ns.route4_modify(RouteOp::Add, &cfg).expect("route");
    }

    fn info(ns: &Netns, dst: u32) -> Option<Arc<Fib4Info>> {
        let t = ns.table4(tid::MAIN)?;
        Some(Arc::clone(&t.get(Prefix4::new(dst, 24))?.first()?.info))
    }

    #[test]
    fn equal_infos_share_one_allocation() {
        let mut ns = Netns::new();
        let d0 = link(&mut ns, "d0", 0xc000_0201); // 192.0.2.1/24
        let d1 = link(&mut ns, "d1", 0xc633_6401); // 198.51.100.1/24
        add(&mut ns, 0x0a00_0000, 0xc000_0203, d0);
        add(&mut ns, 0x0a00_0100, 0xc000_0203, d0);
        add(&mut ns, 0x0a00_0200, 0xc000_0205, d0);
        add(&mut ns, 0x0a00_0300, 0xc633_6403, d1);
        let a = info(&ns, 0x0a00_0000).expect("route a");
        let b = info(&ns, 0x0a00_0100).expect("route b");
        let c = info(&ns, 0x0a00_0200).expect("route c");
        assert!(Arc::ptr_eq(&a, &b), "same gateway and device: one info");
        assert!(!Arc::ptr_eq(&a, &c));
        // same nexthop, another protocol: an info of its own
        add_proto(&mut ns, 0x0a00_0500, 0xc000_0203, d0, 4);
        let e = info(&ns, 0x0a00_0500).expect("route e");
        assert_eq!((e.proto, a.proto == e.proto), (4, false));
        assert_eq!(c.nhs[0].gw, Some(Gateway::V4(0xc000_0205)));
        // More distinct infos than are remembered: every route keeps its own values.
        for i in 0..2 * INFO4_CACHE_MAX as u32 {
            add(&mut ns, 0x0b00_0000 + (i << 8), 0xc000_0210 + i, d0);
        }
        add(&mut ns, 0x0a00_0400, 0xc000_0203, d0);
        for i in 0..2 * INFO4_CACHE_MAX as u32 {
            let x = info(&ns, 0x0b00_0000 + (i << 8)).expect("route");
            assert_eq!(x.nhs[0].gw, Some(Gateway::V4(0xc000_0210 + i)));
        }
        assert_eq!(info(&ns, 0x0a00_0400).expect("route"), a);
        // A carrier loss marks every route through d0 LINKDOWN: each takes a changed
        // copy, and the equal copies are shared again (the routes to 10.0.0/24 and
        // 10.0.4/24 had equal infos in two allocations: now one).
        ns.ipv4_netdev_change(d0, false);
        let down = info(&ns, 0x0a00_0000).expect("route a");
        assert_ne!(down.nhs[0].flags & nhflags::LINKDOWN, 0);
        for dst in [0x0a00_0100, 0x0a00_0400] {
            assert!(Arc::ptr_eq(&down, &info(&ns, dst).expect("route")));
        }
        ns.ipv4_netdev_change(d0, true);
        let up = info(&ns, 0x0a00_0000).expect("route a");
        assert_eq!(up, a);
        for dst in [0x0a00_0100, 0x0a00_0400] {
            assert!(Arc::ptr_eq(&up, &info(&ns, dst).expect("route")));
        }
        // A device event changes only the routes through the device.
        ns.link_set_up(d1, false).expect("link down");
        assert!(info(&ns, 0x0a00_0300).is_none());
        let a2 = info(&ns, 0x0a00_0000).expect("route a");
        assert!(Arc::ptr_eq(&a2, &info(&ns, 0x0a00_0100).expect("route b")));
        assert_eq!(a2, a);
    }
}
