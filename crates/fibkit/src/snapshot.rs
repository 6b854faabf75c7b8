//! Compiled lookup snapshots: the answer of the common case precomputed per prefix.
//!
//! A [`Snapshot`] freezes a namespace and compiles, for the flows that only the
//! destination decides (no source, no output or input interface, a unicast destination),
//! one small answer per destination prefix: the answer of the default rules' walk.
//! Answers are deduplicated, so a table of 40,000 routes over five gateways has a
//! handful of them: a lookup is one walk of the LPM index and one read of a cached
//! array. Custom rules do not switch the compiled answers off: each lookup first checks
//! the flow against them (the rule selectors, compiled to integers), and a flow that
//! none of them selects walks exactly the default rules, so it takes the compiled answer
//! (the kernel walks the rules on every lookup once one custom rule exists). Custom
//! rules that select every such flow (wg-quick's `not fwmark ... lookup T`), or default
//! rules deleted or reordered, make the compiled answers those of the whole rule walk,
//! for unmarked flows (see [`Fast4Builder::walk`]). Everything else (flows a custom
//! rule selects; ECMP routes, whose leg depends on the flow hash; flows with a source
//! or an interface) is answered
//! by the namespace's full lookup, so a snapshot answers exactly what
//! [`Netns::route_output6`] answers. The property tests check that equivalence on random
//! tables and rules.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use fibkit_lpm::{Lpm, LpmBuilder, NO_MATCH};

use crate::error::Errno;
use crate::fib6::{strict, Flow6};
use crate::netns::Netns;
use crate::prefix::Prefix6;
use crate::route::{rtf, table as tid, Pref, RouteType};
use crate::rule::{CompiledRule, RuleFlow};

/// A precomputed IPv6 output answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer6 {
    /// A route.
    Route {
        /// Route type.
        rtype: RouteType,
        /// Gateway.
        gateway: Option<u128>,
        /// Output device (lo for local and anycast routes).
        dev: u32,
        /// Table.
        table: u32,
        /// Metric.
        metric: u32,
        /// Router preference.
        pref: Pref,
    },
    /// The lookup fails with this error.
    Error(Errno),
    /// Not precomputable (ECMP): ask the full lookup.
    Slow,
}

impl Answer6 {
    /// The answer of a full lookup result, in the same form.
    pub fn of(r: Result<crate::lookup6::RouteGet6<'_>, Errno>) -> Answer6 {
        match r {
            Ok(g) => Answer6::Route {
                rtype: g.rtype,
                gateway: g.gateway,
                dev: g.dev,
                table: g.table,
                metric: g.metric,
                pref: g.pref,
            },
            Err(e) => Answer6::Error(e),
        }
    }
}

/// A [`Snapshot`]'s IPv6 output path resolved for a run of lookups
/// ([`Snapshot::output6_view`]). `Copy`; it borrows the snapshot.
#[derive(Clone, Copy)]
pub struct Output6View<'a> {
    snap: &'a Snapshot,
    fast: Option<(&'a Fast6, fibkit_lpm::LpmView<'a, u128>)>,
}

impl<'a> Output6View<'a> {
    /// [`Snapshot::output6_ref`]: the same answer.
    #[inline]
    pub fn output6_ref(&self, fl: &Flow6) -> Cow<'a, Answer6> {
        if let Some((f, lpm)) = self.fast {
            if f.compiled_for(fl) {
                let v = lpm.lookup(fl.dst);
                if v != SLOW {
                    return Cow::Borrowed(f.answer_or_unreachable(v));
                }
            }
        }
        Cow::Owned(self.snap.output6_other(fl))
    }
}

/// The compiled IPv6 output index: the default rules' answers, for flows no custom rule
/// selects.
#[derive(Clone, Debug)]
pub struct Fast6 {
    lpm: Lpm<u128>,
    /// Per answer number, the answer; one more at the end, "no route", so that an
    /// output lookup picks its answer without a branch (see [`Snapshot::output6_ref`]).
    answers: Vec<Answer6>,
    /// The custom rules (see [`Fast4`]'s field of the same name).
    guard: Guard,
    /// Per answer number: whether input routes (any input interface, any source) get
    /// the same answer (see [`Compiled6`]).
    any_iif: Vec<bool>,
    /// Every custom rule (see [`Fast4`]'s field of the same name).
    input_guard: Vec<CompiledRule>,
}

impl Fast6 {
    /// Whether `fl` takes a compiled answer (when its destination has one): only the
    /// destination decides (see [`Fast6::kind`]) and no custom rule selects it.
    #[inline]
    fn compiled_for(&self, fl: &Flow6) -> bool {
        matches!(Self::kind(fl), FlowKind::Bare | FlowKind::Marked) && self.admits(fl)
    }
    /// Whether only the destination decides `fl` (no source, no interface), and
    /// whether it carries a mark; or whether it is an input route (no output
    /// interface).
    #[inline]
    fn kind(fl: &Flow6) -> FlowKind {
        let k = FlowKind::of(fl.src == 0 && fl.oif | fl.iif == 0, fl.mark);
        if k == FlowKind::Full && fl.iif != 0 && fl.oif == 0 {
            FlowKind::Input
        } else {
            k
        }
    }
    /// Whether the compiled answer is the flow's: no custom rule selects it (the
    /// flow as `ip6_route_output` hands it to the rules: iif lo).
    #[inline]
    fn admits(&self, fl: &Flow6) -> bool {
        let g = self.guard.rules_for(fl.mark);
        g.is_empty() || Self::guard_passes(g, fl)
    }
    #[inline(never)]
    fn guard_passes(g: &[CompiledRule], fl: &Flow6) -> bool {
        let mut f = *fl;
        f.iif = 1;
        let rf = RuleFlow::of6(&f);
        !g.iter().any(|r| r.matches(&rf))
    }
    /// The index: destination -> answer number (`fibkit_lpm::NO_MATCH`: unreachable).
    pub fn index(&self) -> &Lpm<u128> {
        &self.lpm
    }
    /// Number of distinct answers.
    pub fn answers(&self) -> usize {
        self.answers.len() - 1
    }
    /// The output answer of index value `v` that is not `SLOW`: a compiled answer, or
    /// "no route" for `NO_MATCH` (the last answer), chosen without a branch.
    #[inline(always)]
    fn answer_or_unreachable(&self, v: u32) -> &Answer6 {
        let last = self.answers.len().saturating_sub(1);
        self.answers
            .get((v as usize).min(last))
            .unwrap_or(&UNREACH6)
    }
    /// Depth statistics of the index (steps below its top level).
    pub fn depth_stats(&self) -> fibkit_lpm::DepthStats {
        self.lpm.depth_stats()
    }
    /// Bytes of the index plus the answers.
    pub fn memory_bytes(&self) -> usize {
        self.lpm.memory_bytes() + self.answers.len() * (std::mem::size_of::<Answer6>() + 1)
    }
    /// The precomputed answer for a destination.
    #[inline]
    pub fn get(&self, dst: u128) -> Answer6 {
        self.get_ref(dst)
            .copied()
            .unwrap_or(Answer6::Error(Errno::ENETUNREACH))
    }
    /// The precomputed answer (`Slow`: ask the full lookup), `None` when nothing
    /// matches (unreachable).
    #[inline]
    fn get_ref(&self, dst: u128) -> Option<&Answer6> {
        self.answer_of(self.lpm.lookup(dst))
    }
    /// The answer an index value stands for (`None`: unreachable).
    #[inline]
    fn answer_of(&self, v: u32) -> Option<&Answer6> {
        match self.answers.get(v as usize) {
            Some(a) => Some(a),
            None if v == SLOW => Some(&SLOW6),
            None => None,
        }
    }
    /// The answer of an input route whose destination has index value `v` (`None`:
    /// the full route answers): the output answer when no input interface or source
    /// can change it and no custom rule selects the route.
    #[inline]
    fn input_answer(&self, v: u32, fl: &Flow6) -> Option<Answer6> {
        let a = match self.answers.get(v as usize) {
            Some(a) if self.any_iif[v as usize] => *a,
            // nothing covers the destination: no route an interface or source could pick
            None if v == NO_MATCH => Answer6::Error(Errno::ENETUNREACH),
            _ => return None,
        };
        let selected = !self.input_guard.is_empty() && {
            let rf = RuleFlow::of6(fl);
            self.input_guard.iter().any(|r| r.matches(&rf))
        };
        (!selected && a != Answer6::Slow).then_some(a)
    }
}

/// The compiled answers of one IPv6 prefix: the output answer, and whether an input
/// route gets it too. The kernel's route selection scores a node's routes against the
/// input interface (`rt6_check_dev` with oif = iif) and source-specific routes answer by
/// the source, so an input route shares the output answer when the node whose route
/// answered holds routes of one device only and no node the walk visits has
/// source-specific routes (with forwarding off, when the reachable-only first pass
/// finds nothing, the walk visits every covering node).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Compiled6 {
    out: Answer6,
    any_iif: bool,
}

impl Compiled6 {
    const SLOW: Compiled6 = Compiled6 {
        out: Answer6::Slow,
        any_iif: false,
    };
    /// An output answer that input routes do not take.
    fn output(out: Answer6) -> Compiled6 {
        Compiled6 {
            out,
            any_iif: false,
        }
    }
}

fn covering_stack_len(stack: &mut Vec<Prefix6>, p: Prefix6) -> Option<u8> {
    while let Some(top) = stack.last() {
        if top.covers(&p) {
            break;
        }
        stack.pop();
    }
    stack.last().map(|t| t.len)
}

impl Netns {
    /// The answer for destinations whose longest match (over local and main) is `p`,
    /// given the longest local and main prefixes covering it.
    fn fast6_answer(&self, p: Prefix6, llen: Option<u8>, mlen: Option<u8>) -> Compiled6 {
        if in_special6(p) {
            return Compiled6::SLOW;
        }
        let fl = Flow6 {
            dst: p.addr,
            ..Default::default()
        };
        let s = if self.sysctl.v6_all.forwarding == 0 {
            strict::REACHABLE
        } else {
            0
        };
        // whether an input route gets the same answer (see `Compiled6`)
        let mut any_iif = true;
        for (table, len) in [(tid::LOCAL, llen), (tid::MAIN, mlen)] {
            let Some(len) = len else { continue };
            let t = self.table6(table);
            // the nodes the walk visits in this table: from `len` down to the answer's
            let subtree_from = |stop: u8| {
                t.is_some_and(|t| {
                    (stop..=len).any(|l| t.has_len(l) && t.has_subtree(Prefix6::new(p.addr, l)))
                })
            };
            match self.fib6_table_lookup_at(table, 0, &fl, s, Some(len)) {
                Ok(res) => {
                    let r = res.route;
                    // (a resilient group marks the bucket each lookup uses)
                    if r.sibling_group != 0 || self.nh_res_table(r.nh_id).is_some() {
                        return Compiled6::SLOW;
                    }
                    // (a source-specific answer comes from a node with a subtree); a
                    // first pass that finds no reachable route for the output flow
                    // visits every node up to the root, where a source-specific
                    // route can answer a flow with a source before any retry
                    let stop = if s & strict::REACHABLE != 0
                        && !self.fib6_selects_at(table, &fl, s, Some(len))
                    {
                        0
                    } else {
                        r.dst.len
                    };
                    any_iif &= !subtree_from(stop)
                        && t.and_then(|t| t.get(r.dst, r.src))
                            .is_some_and(|l| l.iter().all(|x| x.nh.dev == r.nh.dev));
                    let out = match r.rtype {
                        // (the next table's answer, chosen in this node as any other)
                        RouteType::Throw => continue,
                        RouteType::Blackhole => Answer6::Error(Errno::EINVAL),
                        RouteType::Prohibit => Answer6::Error(Errno::EACCES),
                        RouteType::Unreachable => Answer6::Error(Errno::EHOSTUNREACH),
                        _ => {
                            let dev = if r.flags & (rtf::LOCAL | rtf::ANYCAST) != 0 {
                                1
                            } else {
                                r.nh.dev
                            };
                            // once the rules are walked (a custom rule was ever added),
                            // a result whose device has no IPv6 state is passed over
                            // (Netns::fib6_rule_lookup_with)
                            if self.custom_rules6 && !self.has_idev6(dev) {
                                continue;
                            }
                            Answer6::Route {
                                rtype: r.rtype,
                                gateway: r.nh.gw,
                                dev,
                                table: res.table,
                                metric: r.metric,
                                pref: res.matched.pref,
                            }
                        }
                    };
                    return Compiled6 { out, any_iif };
                }
                Err(_) => any_iif &= !subtree_from(0),
            }
        }
        Compiled6 {
            out: Answer6::Error(Errno::ENETUNREACH),
            any_iif,
        }
    }

    /// Compile the IPv6 fast-path index (`None` when the default rules are not intact:
    /// then every lookup walks the rules).
    pub fn compile_fast6(&self) -> Option<Fast6> {
        self.fast6_builder().map(|mut b| b.snapshot())
    }

    /// Build the IPv6 fast-path compiler state (`None` when the default rules are not
    /// intact, see [`Netns::compile_fast6`]); keep it
    /// to update the answers incrementally with [`Netns::fast6_update`].
    pub fn fast6_builder(&self) -> Option<Fast6Builder> {
        // as for IPv4 (see Netns::fast4_builder): rules selecting every plain flow, or
        // default rules not intact, compile the whole rule walk
        let guard = match self.rule_guard(true) {
            Some(g) if !g.iter().any(|r| r.selects_plain_output(None) == Some(true)) => g,
            _ => return Some(self.fast6_builder_walk()),
        };
        let guard = Guard::new(guard);
        let local: Vec<Prefix6> = self
            .table6(tid::LOCAL)
            .map(|t| t.dsts().collect())
            .unwrap_or_default();
        let main: Vec<Prefix6> = self
            .table6(tid::MAIN)
            .map(|t| t.dsts().collect())
            .unwrap_or_default();
        let mut all: Vec<(Prefix6, bool)> = local
            .iter()
            .map(|p| (*p, true))
            .chain(main.iter().map(|p| (*p, false)))
            .collect();
        all.sort_by_key(|(p, is_local)| (p.addr, p.len, !*is_local));
        let mut lstack: Vec<Prefix6> = Vec::new();
        let mut mstack: Vec<Prefix6> = Vec::new();
        let mut st = Fast6Builder {
            index: AnswerIndex::new(),
            guard,
            input_guard: self.custom_rules(true).unwrap_or_default(),
            epoch: self.global_epoch(),
            walk: None,
        };
        let mut i = 0;
        while i < all.len() {
            let p = all[i].0;
            // a prefix present in both tables appears twice in a row
            let mut j = i;
            while j < all.len() && all[j].0 == p {
                if all[j].1 {
                    covering_stack_len(&mut lstack, p);
                    lstack.push(p);
                } else {
                    covering_stack_len(&mut mstack, p);
                    mstack.push(p);
                }
                j += 1;
            }
            let llen = covering_stack_len(&mut lstack, p);
            let mlen = covering_stack_len(&mut mstack, p);
            st.index
                .set(p.addr, p.len, self.fast6_answer(p, llen, mlen));
            i = j;
        }
        for (a, l) in SPECIAL6 {
            st.index.set(a, l, Compiled6::SLOW);
        }
        Some(st)
    }

    /// Update compiled IPv6 answers after route changes at the destinations `touched`
    /// (in the local and main tables): those destinations and every destination inside
    /// them are recomputed; nothing else is.
    pub fn fast6_update(&self, st: &mut Fast6Builder, touched: &[Prefix6]) {
        if st.walk.is_some() {
            self.walk6_update(st, touched);
            return;
        }
        let local = self.table6(tid::LOCAL);
        let main = self.table6(tid::MAIN);
        let tables: Vec<_> = [local, main].into_iter().flatten().collect();
        for q in affected6(touched, &tables) {
            // one probe per table for `q` itself, reused by the covers
            let in_local = local.is_some_and(|t| t.has_dst(q));
            let in_main = main.is_some_and(|t| t.has_dst(q));
            if in_local || in_main || SPECIAL6.contains(&(q.addr, q.len)) {
                let cover = |t: Option<&crate::table::Table6>, has: bool| {
                    if has {
                        Some(q.len)
                    } else {
                        t.and_then(|t| t.longest_cover_below(q))
                    }
                };
                let (llen, mlen) = (cover(local, in_local), cover(main, in_main));
                st.index
                    .set(q.addr, q.len, self.fast6_answer(q, llen, mlen));
            } else {
                st.index.remove(q.addr, q.len);
            }
        }
    }
}

impl Netns {
    /// The IPv6 rule-walk answers (see [`Netns::fast4_builder_walk`]): every
    /// destination of every table, and `::/0`.
    fn fast6_builder_walk(&self) -> Fast6Builder {
        let guard = walk_guard(&self.prog6, None);
        let index = walk_index(
            self.tables6().flat_map(|t| t.dsts()),
            |p| (p.addr, p.len),
            &SPECIAL6,
            |p| Compiled6::output(self.walk6_answer(p, &guard)),
        );
        Fast6Builder {
            index,
            guard: Guard::for_walk(guard),
            // (no input answers are compiled with the walk's)
            input_guard: Vec::new(),
            epoch: self.global_epoch(),
            walk: Some(self.tables6().map(|t| t.id).collect()),
        }
    }

    /// The rule-walk answer of the destinations of `p` outside its longer prefixes.
    fn walk6_answer(&self, p: Prefix6, guard: &[CompiledRule]) -> Answer6 {
        if in_special6(p) {
            return Answer6::Slow;
        }
        // a destination of `p` the output route treats like any other (not
        // multicast, link-local, loopback or unspecified)
        let host = u128::MAX.checked_shr(u32::from(p.len)).unwrap_or(0);
        let plain = |d: u128| {
            d != 0
                && p.contains(d)
                && crate::prefix::v6::addr_type(d)
                    & (crate::prefix::v6::MULTICAST
                        | crate::prefix::v6::LINKLOCAL
                        | crate::prefix::v6::LOOPBACK)
                    == 0
        };
        let middle = p.addr | ((host >> 1) + 1);
        let Some(dst) = [
            p.addr | 1,
            middle | 1,
            (p.addr | host).wrapping_sub(1),
            p.addr,
        ]
        .into_iter()
        .find(|&d| plain(d)) else {
            return Answer6::Slow;
        };
        let fl = flow6(dst);
        if !Fast6::guard_passes(guard, &fl) {
            return Answer6::Slow;
        }
        // a rule suppressing results by the device's group sees the leg a multipath
        // route's hash picks: then any multipath route on the way makes the answer
        // the flow's own (IPv4 decides by the first nexthop, whatever the leg)
        if self.prog6.iter().any(|r| r.suppress_ifgroup != -1)
            && self
                .tables6()
                .any(|t| self.multipath_covers6(t.id, dst, p.len))
        {
            return Answer6::Slow;
        }
        match self.route_output6_from(&fl, p.len) {
            // multipath: the leg depends on the flow's hash
            Ok(g) if g.route.sibling_group != 0 || self.nh_res_table(g.route.nh_id).is_some() => {
                Answer6::Slow
            }
            r => Answer6::of(r),
        }
    }

    /// [`Netns::fast6_update`] of rule-walk answers: the changed destinations (of any
    /// table) and every destination inside them in any table.
    fn walk6_update(&self, st: &mut Fast6Builder, touched: &[Prefix6]) {
        let tables: Vec<_> = self.tables6().collect();
        for q in affected6(touched, &tables) {
            let present = q.len == 0 || self.tables6().any(|t| t.has_dst(q));
            if present || SPECIAL6.contains(&(q.addr, q.len)) {
                let a = self.walk6_answer(q, &st.guard.unmarked);
                st.index.set(q.addr, q.len, Compiled6::output(a));
            } else {
                st.index.remove(q.addr, q.len);
            }
        }
    }
}

/// The destinations whose compiled answers changes of `touched` may alter: those
/// prefixes and every destination inside them in `tables`, sorted, once each.
fn affected6(touched: &[Prefix6], tables: &[&crate::table::Table6]) -> Vec<Prefix6> {
    let mut affected: Vec<Prefix6> = Vec::with_capacity(touched.len() * 2);
    for p in touched {
        affected.push(*p);
        for t in tables {
            if t.has_dsts_inside(*p) {
                t.dsts_within_each(*p, |q| affected.push(q));
            }
        }
    }
    affected.sort_unstable();
    affected.dedup();
    affected
}

/// The IPv6 fast-path compiler state kept by a writer between publications.
#[derive(Clone, Debug)]
pub struct Fast6Builder {
    index: AnswerIndex<u128, Compiled6>,
    guard: Guard,
    input_guard: Vec<CompiledRule>,
    /// The namespace's global epoch the answers were computed at.
    pub epoch: u64,
    /// See [`Fast4Builder::walk`].
    pub walk: Option<Vec<u32>>,
}

impl Fast6Builder {
    /// The compiled index of the current answers (incremental: only what changed since
    /// the last call is rebuilt).
    pub fn snapshot(&mut self) -> Fast6 {
        let (lpm, compiled) = self.index.snapshot();
        Fast6 {
            lpm,
            // the compiled answers, then "no route" (see `Fast6::answers`)
            answers: compiled.iter().map(|c| c.out).chain([UNREACH6]).collect(),
            any_iif: compiled.iter().map(|c| c.any_iif).collect(),
            guard: self.guard.clone(),
            input_guard: self.input_guard.clone(),
        }
    }
}

/// Answers an [`AnswerIndex`] finds by a linear scan before it hashes.
const SCAN_ANSWERS: usize = 16;

/// The custom rules a flow is checked against before it takes a compiled answer (see
/// [`Fast4`]), and the subset that can select a flow without a firewall mark (most
/// flows: `fwmark` rules then cost nothing).
#[derive(Clone, Debug, Default)]
struct Guard {
    all: Vec<CompiledRule>,
    unmarked: Vec<CompiledRule>,
}

impl Guard {
    fn new(all: Vec<CompiledRule>) -> Guard {
        let unmarked = all
            .iter()
            .filter(|r| !r.never_selects_mark(0))
            .copied()
            .collect();
        Guard { all, unmarked }
    }
    /// The guard of rule-walk answers (see [`Fast4Builder::walk`]): unmarked flows are
    /// checked against `unmarked` (the rules whose choice depends on fields the
    /// answers leave free); a marked flow always takes the full lookup (a rule that
    /// selects every flow stands for that).
    fn for_walk(unmarked: Vec<CompiledRule>) -> Guard {
        let every = crate::rule::compile_rules(&[crate::rule::Rule::lookup(0, 0)], false);
        Guard {
            all: every,
            unmarked,
        }
    }
    /// The rules that can select a flow with mark `mark`.
    #[inline]
    fn rules_for(&self, mark: u32) -> &[CompiledRule] {
        if mark == 0 {
            &self.unmarked
        } else {
            &self.all
        }
    }
}

/// The index value of a prefix whose answer is not precomputed (the full lookup
/// answers): never an answer's number, so that a lookup tells precomputed answers from
/// the rest by one comparison with the number of answers.
const SLOW: u32 = NO_MATCH - 1;

/// What an [`AnswerIndex`] stores: an answer, or "ask the full lookup".
trait Precomputed: Copy + Eq + std::hash::Hash {
    /// "Ask the full lookup".
    const SLOW: Self;
    fn is_slow(&self) -> bool;
}

impl Precomputed for Compiled4 {
    const SLOW: Self = Compiled4::SLOW;
    fn is_slow(&self) -> bool {
        *self == Compiled4::SLOW
    }
}

impl Precomputed for Compiled6 {
    const SLOW: Self = Compiled6::SLOW;
    fn is_slow(&self) -> bool {
        *self == Compiled6::SLOW
    }
}

/// The guard of rule-walk answers: the rules whose choice depends on fields the
/// answers leave free (see [`CompiledRule::selects_plain_output`]).
fn walk_guard(prog: &[CompiledRule], tos: Option<u8>) -> Vec<CompiledRule> {
    prog.iter()
        .filter(|r| r.selects_plain_output(tos).is_none())
        .copied()
        .collect()
}

/// The answer index of rule-walk answers: every prefix of `prefixes` and the default
/// prefix (the walk's answer where no table has a route), each answered by `answer`,
/// then the special destinations, which the full lookup answers.
fn walk_index<P: Ord + Copy + Default, K: fibkit_lpm::Key, A: Precomputed>(
    prefixes: impl Iterator<Item = P>,
    key: impl Fn(P) -> (K, u8),
    special: &[(K, u8)],
    mut answer: impl FnMut(P) -> A,
) -> AnswerIndex<K, A> {
    let mut all: Vec<P> = prefixes.chain([P::default()]).collect();
    all.sort_unstable();
    all.dedup();
    let mut index = AnswerIndex::new();
    for p in all {
        let (addr, len) = key(p);
        index.set(addr, len, answer(p));
    }
    for &(addr, len) in special {
        index.set(addr, len, A::SLOW);
    }
    index
}

/// The answer of the [`SLOW`] index value.
static SLOW4: Answer4 = Answer4::Slow;
static SLOW6: Answer6 = Answer6::Slow;

/// The answer of the `NO_MATCH` index value: no route.
static UNREACH6: Answer6 = Answer6::Error(Errno::ENETUNREACH);

/// Prefix -> answer, with the answers deduplicated (a full table has a handful of
/// distinct answers): the index stores an answer's number, or [`SLOW`].
#[derive(Clone, Debug)]
struct AnswerIndex<K: fibkit_lpm::Key, A> {
    builder: LpmBuilder<K>,
    ids: HashMap<A, u32>,
    answers: Vec<A>,
}

impl<K: fibkit_lpm::Key, A: Precomputed> AnswerIndex<K, A> {
    fn new() -> Self {
        AnswerIndex {
            builder: LpmBuilder::new(),
            ids: HashMap::new(),
            answers: Vec::new(),
        }
    }
    fn set(&mut self, addr: K, len: u8, a: A) {
        if a.is_slow() {
            self.builder.insert(addr, len, SLOW);
            return;
        }
        // a handful of distinct answers is the rule: a scan beats hashing them
        let id = match self.answers.iter().take(SCAN_ANSWERS).position(|x| *x == a) {
            Some(i) => i as u32,
            None if self.answers.len() <= SCAN_ANSWERS => {
                self.answers.push(a);
                self.ids.insert(a, self.answers.len() as u32 - 1);
                self.answers.len() as u32 - 1
            }
            None => {
                let next = self.answers.len() as u32;
                let answers = &mut self.answers;
                *self.ids.entry(a).or_insert_with(|| {
                    answers.push(a);
                    next
                })
            }
        };
        self.builder.insert(addr, len, id);
    }
    fn remove(&mut self, addr: K, len: u8) {
        self.builder.remove(addr, len);
    }
    /// The compiled index (only what changed since the last call is rebuilt) and the
    /// answers its values number.
    fn snapshot(&mut self) -> (Lpm<K>, Vec<A>) {
        (self.builder.snapshot(), self.answers.clone())
    }
}

/// What an IPv4 input route reads of its input interface (`net.ipv4.conf.*`, with
/// `all` folded in as the kernel reads it).
#[derive(Clone, Copy, Debug, Default)]
struct InDev4 {
    /// The interface exists.
    exists: bool,
    /// `forwarding`.
    forwarding: bool,
    /// `max(all.rp_filter, rp_filter)`, as `int`s.
    rp_filter: i32,
    /// `all.accept_local || accept_local`.
    accept_local: bool,
    /// It has IPv4 addresses.
    has_addrs: bool,
    /// `all.send_redirects || send_redirects` (`IN_DEV_TX_REDIRECTS`).
    tx_redirects: bool,
    /// `all.src_valid_mark || src_valid_mark` (`IN_DEV_SRC_VMARK`).
    src_valid_mark: bool,
}

/// The interfaces and local addresses as IPv4 input routes read them, gathered once per
/// snapshot (its namespace's sysctls, links and addresses never change).
#[derive(Clone, Debug, Default)]
struct InConf4 {
    /// By interface index; an index past the end takes the full lookup.
    devs: Vec<InDev4>,
    /// Every interface's local addresses, sorted (`inet_lookup_ifaddr`).
    locals: Vec<u32>,
    /// Custom rules or custom local routes: `fib_validate_source` has no short way.
    no_short_way: bool,
    /// Routes or rules with realms: `fib_validate_source` checks in full, whatever
    /// the sysctls (see [`Netns::tclassid_users4`]).
    tclassid: bool,
}

impl InConf4 {
    /// Interface indexes above this are left to the full lookup (the table is a vector).
    const MAX_DEV: u32 = 1 << 16;

    fn of(ns: &Netns) -> InConf4 {
        let top = ns
            .links
            .keys()
            .copied()
            .filter(|d| *d <= Self::MAX_DEV)
            .max()
            .unwrap_or(0);
        let mut devs = vec![InDev4::default(); top as usize + 1];
        for &d in ns.links.keys().filter(|d| **d <= Self::MAX_DEV) {
            devs[d as usize] = InDev4 {
                // a device without IPv4 state takes the full lookup (its refusals)
                exists: ns.has_idev4(d),
                forwarding: ns.forwarding4(d),
                rp_filter: ns.rpfilter(d),
                accept_local: ns.accept_local(d),
                has_addrs: !ns.addrs4(d).is_empty(),
                tx_redirects: ns.tx_redirects4(d),
                src_valid_mark: ns.src_valid_mark4(d),
            };
        }
        let mut locals: Vec<u32> = ns.all_addrs4().map(|(_, a)| a.local).collect();
        locals.sort_unstable();
        locals.dedup();
        InConf4 {
            devs,
            locals,
            no_short_way: ns.custom_local_routes4 || ns.custom_rules4,
            tclassid: ns.tclassid_users4(),
        }
    }
    #[inline]
    fn dev(&self, d: u32) -> Option<&InDev4> {
        self.devs.get(d as usize).filter(|c| c.exists)
    }
    #[inline]
    fn is_local(&self, a: u32) -> bool {
        self.locals.binary_search(&a).is_ok()
    }
}

/// A frozen namespace with its compiled fast paths. Cheap to share between threads
/// (`Arc` inside); lookups take no lock and allocate nothing.
#[derive(Clone, Debug)]
pub struct Snapshot {
    ns: Arc<Netns>,
    fast4: Option<Arc<Fast4>>,
    fast6: Option<Arc<Fast6>>,
    /// What IPv4 input routes read of the interfaces and addresses (IPv6 input routes
    /// read only whether their interface exists).
    in4: Arc<InConf4>,
    generation: u64,
}

impl Snapshot {
    /// Freeze `ns` and compile its fast paths.
    pub fn new(ns: Netns) -> Snapshot {
        let fast4 = ns.compile_fast4();
        let fast6 = ns.compile_fast6();
        Snapshot::with_fast(ns, fast4, fast6)
    }

    /// Freeze `ns` with both fast paths compiled by the caller (a writer keeping
    /// [`Fast4Builder`] and [`Fast6Builder`]). They must be `ns`'s own: built by
    /// [`Netns::fast4_builder`] / [`Netns::fast6_builder`] and kept current with
    /// [`Netns::fast4_update`] / [`Netns::fast6_update`].
    pub fn with_fast(ns: Netns, fast4: Option<Fast4>, fast6: Option<Fast6>) -> Snapshot {
        let generation = ns.generation();
        let in4 = Arc::new(InConf4::of(&ns));
        Snapshot {
            ns: Arc::new(ns),
            fast4: fast4.map(Arc::new),
            fast6: fast6.map(Arc::new),
            in4,
            generation,
        }
    }
    /// The frozen namespace (for every other kind of query).
    pub fn netns(&self) -> &Netns {
        &self.ns
    }
    /// The namespace generation the snapshot was taken at.
    pub fn generation(&self) -> u64 {
        self.generation
    }
    /// The compiled IPv4 answers, unless the default rules were deleted or reordered.
    pub fn fast4(&self) -> Option<&Fast4> {
        self.fast4.as_deref()
    }

    /// The IPv4 output route of a flow (`ip route get` without `iif`): exactly
    /// [`Netns::route_get4`]'s answer.
    #[inline]
    pub fn output4(&self, fl: &crate::lookup::Flow4) -> Answer4 {
        match self.precomputed4(fl) {
            Some(a) => a,
            None => self.output4_other(fl),
        }
    }

    /// [`Snapshot::output4`] without copying a compiled answer out (see
    /// [`Snapshot::output6_ref`]). Same answers as [`Snapshot::output4`].
    #[inline]
    pub fn output4_ref(&self, fl: &crate::lookup::Flow4) -> Cow<'_, Answer4> {
        if let Some(f) = self.fast4.as_deref() {
            if f.compiled_for(fl) {
                let a = f.get_ref(fl.dst);
                if !matches!(a, Answer4::Slow) {
                    return Cow::Borrowed(a);
                }
            }
        }
        Cow::Owned(self.output4_other(fl))
    }

    /// The compiled input answer [`Snapshot::output4`] gives `fl` (an input route: an
    /// input interface and a source, no output interface, TOS 0, no custom rule
    /// selecting it), or `None` when the flow takes another way (a compiled output answer or the
    /// full lookup).
    pub fn precomputed_input4(&self, fl: &crate::lookup::Flow4) -> Option<Answer4> {
        let f = self.fast4.as_ref()?;
        if Fast4::kind(fl) != FlowKind::Input {
            return None;
        }
        self.input4(f, fl, f.lpm.lookup(fl.dst))
    }

    /// [`Snapshot::output4`] of a flow without a compiled output answer: an input
    /// route's compiled answer when it has one, else the full lookup.
    #[inline(never)]
    fn output4_other(&self, fl: &crate::lookup::Flow4) -> Answer4 {
        match self.precomputed_input4(fl) {
            Some(a) => a,
            None => self.output4_full(fl),
        }
    }

    /// The compiled answer of the input route of `fl` (a [`FlowKind::Input`] flow), whose
    /// destination has the index value `id`; `None` when only the full input route
    /// can answer. What `ip_route_input_slow` decides beyond the destination's FIB
    /// result is read here: the input interface, its forwarding, whether a custom rule
    /// selects the route, and `fib_validate_source` (see
    /// [`Snapshot::validate_source4`]).
    #[inline]
    fn input4(&self, f: &Fast4, fl: &crate::lookup::Flow4, id: u32) -> Option<Answer4> {
        use crate::prefix::v4;
        // martian sources and destinations, and the special ones, are the full
        // route's (loopback ones depend on route_localnet)
        let plain =
            |a: u32| a != 0 && !v4::is_multicast(a) && a < 0xf000_0000 && !v4::is_loopback(a);
        let (src, dst, iif) = (fl.src, fl.dst, fl.iif);
        if !(plain(src) && plain(dst)) {
            return None;
        }
        let inp = f.input_of(id);
        if inp == InDst4::Slow {
            return None;
        }
        let conf = self.in4.dev(iif)?;
        // the flow as ip_route_input_slow hands it to fib_lookup
        let mut fib_flow = crate::lookup::Flow4 {
            oif: 0,
            uid: 0,
            tos: fl.tos & 0xfc,
            scope: crate::route::scope::UNIVERSE,
            ..*fl
        };
        Netns::input_ports4(&mut fib_flow);
        self.ns.input_dissect4(&mut fib_flow);
        if !f.no_rule_selects(&fib_flow) {
            return None;
        }
        let forwarding = conf.forwarding;
        match inp {
            InDst4::Error(e) => Some(Answer4::Error(if forwarding {
                e
            } else {
                Errno::EHOSTUNREACH
            })),
            InDst4::Forward {
                gateway,
                dev,
                table,
            } => {
                if !forwarding {
                    return Some(Answer4::Error(Errno::EHOSTUNREACH));
                }
                // a way out without IPv4 state: the full lookup's refusal
                self.in4.dev(dev)?;
                if let Err(e) = self.validate_source4(f, conf, &fib_flow, dev)? {
                    return Some(Answer4::Error(e));
                }
                Some(Answer4::Route {
                    rtype: RouteType::Unicast,
                    gateway,
                    dev,
                    prefsrc: 0,
                    table,
                })
            }
            InDst4::Slow => None,
        }
    }

    /// `fib_validate_source` of a forwarded packet `fl` (as `fib_lookup` got it)
    /// leaving by `oif`, with the route back to the source read from the compiled
    /// input answers; `None` when only the full check can tell (a custom rule selects
    /// the route back, or it is not a single-path unicast route or an error).
    #[inline]
    fn validate_source4(
        &self,
        f: &Fast4,
        conf: &InDev4,
        fl: &crate::lookup::Flow4,
        oif: u32,
    ) -> Option<Result<(), Errno>> {
        let (src, iif) = (fl.src, fl.iif);
        let rpf = conf.rp_filter;
        // the short way: no reverse path filter, and no redirect to consider
        if rpf == 0 && (iif != oif || !conf.tx_redirects) && !self.in4.tclassid {
            if conf.accept_local {
                return Some(Ok(()));
            }
            if !self.in4.no_short_way {
                return Some(if self.in4.is_local(src) {
                    Err(Errno::EINVAL)
                } else {
                    Ok(())
                });
            }
        }
        // __fib_validate_source: the route back to the source, when no custom rule
        // selects its lookup
        let back = crate::lookup::Flow4 {
            dst: src,
            src: fl.dst,
            oif: 0,
            iif: if oif != 0 { oif } else { 1 },
            mark: if conf.src_valid_mark { fl.mark } else { 0 },
            tos: fl.tos,
            proto: fl.proto,
            sport: fl.dport,
            dport: fl.sport,
            uid: 0,
            scope: crate::route::scope::UNIVERSE,
        };
        if !f.no_rule_selects(&back) {
            return None;
        }
        let last_resort = if rpf != 0 { Err(Errno::EINVAL) } else { Ok(()) };
        Some(match f.input_of(f.lpm.lookup(src)) {
            InDst4::Slow => return None,
            InDst4::Error(_) => last_resort,
            InDst4::Forward { dev, .. } if dev == iif => Ok(()),
            InDst4::Forward { .. } if !conf.has_addrs => last_resort,
            InDst4::Forward { .. } if rpf == 1 => Err(Errno::EINVAL),
            InDst4::Forward { .. } => Ok(()),
        })
    }

    /// The compiled answer [`Snapshot::output4`] gives `fl`, or `None` when the flow
    /// takes the full lookup (a source, an output interface, a TOS, a custom rule
    /// that may select it, a destination without a compiled answer).
    #[inline]
    pub fn precomputed4(&self, fl: &crate::lookup::Flow4) -> Option<Answer4> {
        let f = self.fast4.as_ref()?;
        if f.compiled_for(fl) {
            let a = f.get_ref(fl.dst);
            if !matches!(a, Answer4::Slow) {
                return Some(*a);
            }
        }
        None
    }

    /// The full lookup behind [`Snapshot::output4`], out of line: the fast path stays
    /// small enough to inline into a caller's loop.
    #[cold]
    #[inline(never)]
    fn output4_full(&self, fl: &crate::lookup::Flow4) -> Answer4 {
        Answer4::of(self.ns.route_get4(fl))
    }

    /// [`Snapshot::output4`] for many destinations of otherwise empty flows, with the
    /// index walks interleaved. `out` gets `min(len)` answers (a copy of each; see
    /// [`Snapshot::output4_batch_with`] to read them in place).
    pub fn output4_batch(&self, dsts: &[u32], out: &mut [Answer4]) {
        let n = dsts.len().min(out.len());
        self.output4_batch_with(&dsts[..n], |i, a| out[i] = *a);
    }

    /// [`Snapshot::output4_batch`] without the copies: `visit(i, answer)` is called
    /// for every destination `dsts[i]`, in order, with the answer in place (a compiled
    /// answer of the snapshot, or a full lookup's answer for the rare destinations
    /// the compiled answers do not cover). A dataplane forwarding each packet as its
    /// answer arrives reads a few fields instead of copying 48 bytes.
    pub fn output4_batch_with(&self, dsts: &[u32], mut visit: impl FnMut(usize, &Answer4)) {
        // out of line, flow construction included: the loop's frame stays small
        #[cold]
        #[inline(never)]
        fn slow_path(s: &Snapshot, dst: u32) -> Answer4 {
            s.output4_full(&flow4(dst))
        }
        // an answer number past the compiled answers (SLOW: no precomputed answer;
        // the special destinations' prefixes map there too)
        #[cold]
        #[inline(never)]
        fn rare(s: &Snapshot, f: &Fast4, dst: u32, id: u32) -> Answer4 {
            let a = f.answer_of(id);
            if !matches!(a, Answer4::Slow) && f.admits(&flow4(dst)) {
                *a
            } else {
                s.output4_full(&flow4(dst))
            }
        }
        let Some(f) = &self.fast4 else {
            for (i, d) in dsts.iter().enumerate() {
                visit(i, &slow_path(self, *d));
            }
            return;
        };
        visit_batch(
            &f.lpm,
            &f.answers,
            dsts,
            f.guard.rules_for(0).is_empty(),
            visit,
            |dst, id| rare(self, f, dst, id),
            |dst, id| {
                let a = f.answer_of(id);
                if matches!(a, Answer4::Slow) || !f.admits(&flow4(dst)) {
                    Err(slow_path(self, dst))
                } else {
                    Ok(a)
                }
            },
        );
    }

    /// [`Snapshot::output4`] for every flow of `flows`, with the index walks interleaved
    /// as in [`Snapshot::output4_batch`]: `out[i]` gets exactly `output4(&flows[i])`,
    /// for the first `min(len)` positions. Flows of any kind may be mixed: those only
    /// the destination decides take their compiled answers, the others (a source, an
    /// interface, a TOS, a mark some custom rule selects) the full lookup.
    pub fn output4_flows_batch(&self, flows: &[crate::lookup::Flow4], out: &mut [Answer4]) {
        let n = flows.len().min(out.len());
        self.output4_flows_batch_with(&flows[..n], |i, a| out[i] = *a);
    }

    /// [`Snapshot::output4_flows_batch`] without the copies: `visit(i, answer)` for
    /// every flow `flows[i]`, in order, with the answer in place.
    pub fn output4_flows_batch_with(
        &self,
        flows: &[crate::lookup::Flow4],
        mut visit: impl FnMut(usize, &Answer4),
    ) {
        let Some(f) = &self.fast4 else {
            for (i, fl) in flows.iter().enumerate() {
                visit(i, &self.output4_full(fl));
            }
            return;
        };
        // what precomputed4 and an input route's compiled answer decide, from the
        // answer number the walk found (out of line: taking forwarded packets' answers
        // inline was no faster)
        #[cold]
        #[inline(never)]
        fn other(s: &Snapshot, f: &Fast4, fl: &crate::lookup::Flow4, id: u32) -> Answer4 {
            let a = f.answer_of(id);
            if f.compiled_for(fl) && !matches!(a, Answer4::Slow) {
                return *a;
            }
            if Fast4::kind(fl) == FlowKind::Input {
                if let Some(a) = s.input4(f, fl, id) {
                    return a;
                }
            }
            s.output4_full(fl)
        }
        visit_flows(
            &f.lpm,
            &f.answers,
            flows,
            f.guard.rules_for(0).is_empty(),
            |fl| fl.dst,
            Fast4::kind,
            visit,
            |fl, id| other(self, f, fl, id),
        );
    }

    /// [`Snapshot::output6`] for every flow of `flows`, with the index walks interleaved
    /// as in [`Snapshot::output6_batch`]: `out[i]` gets exactly `output6(&flows[i])`,
    /// for the first `min(len)` positions (flows of any kind, as in
    /// [`Snapshot::output4_flows_batch`]).
    pub fn output6_flows_batch(&self, flows: &[Flow6], out: &mut [Answer6]) {
        let n = flows.len().min(out.len());
        self.output6_flows_batch_with(&flows[..n], |i, a| out[i] = *a);
    }

    /// [`Snapshot::output6_flows_batch`] without the copies: `visit(i, answer)` for
    /// every flow `flows[i]`, in order, with the answer in place.
    pub fn output6_flows_batch_with(
        &self,
        flows: &[Flow6],
        mut visit: impl FnMut(usize, &Answer6),
    ) {
        let Some(f) = &self.fast6 else {
            for (i, fl) in flows.iter().enumerate() {
                visit(i, &self.output6_full(fl));
            }
            return;
        };
        // what precomputed6 and an input route's compiled answer decide, from the
        // answer number the walk found
        #[cold]
        #[inline(never)]
        fn other(s: &Snapshot, f: &Fast6, fl: &Flow6, id: u32) -> Answer6 {
            if f.compiled_for(fl) {
                match f.answer_of(id) {
                    Some(Answer6::Slow) => {}
                    Some(a) => return *a,
                    None => return Answer6::Error(Errno::ENETUNREACH),
                }
            }
            if Fast6::kind(fl) == FlowKind::Input {
                if let Some(a) = s.input6(f, fl, id) {
                    return a;
                }
            }
            s.output6_full(fl)
        }
        visit_flows(
            &f.lpm,
            &f.answers,
            flows,
            f.guard.rules_for(0).is_empty(),
            |fl| fl.dst,
            Fast6::kind,
            visit,
            |fl, id| other(self, f, fl, id),
        );
    }

    /// The compiled IPv6 answers, unless the default rules were deleted or reordered.
    pub fn fast6(&self) -> Option<&Fast6> {
        self.fast6.as_deref()
    }

    /// The IPv6 output route of a flow: exactly [`Netns::route_output6`]'s answer.
    #[inline]
    pub fn output6(&self, fl: &Flow6) -> Answer6 {
        match self.precomputed6(fl) {
            Some(a) => a,
            None => self.output6_other(fl),
        }
    }

    /// [`Snapshot::output6`] without copying a compiled answer out: a reference into the
    /// snapshot when the flow has a compiled answer (the kernel's "noref" result: nothing
    /// is copied or counted, and the caller reads the answer when it needs it), an owned
    /// answer otherwise. Same answers as [`Snapshot::output6`].
    ///
    /// The compiled path reads no answer: which way the flow goes is known from the
    /// index value alone (the answer numbers, `SLOW`, `NO_MATCH`).
    #[inline]
    pub fn output6_ref(&self, fl: &Flow6) -> Cow<'_, Answer6> {
        if let Some(f) = self.fast6.as_deref() {
            if f.compiled_for(fl) {
                let v = f.lpm.lookup(fl.dst);
                if v != SLOW {
                    return Cow::Borrowed(f.answer_or_unreachable(v));
                }
            }
        }
        Cow::Owned(self.output6_other(fl))
    }

    /// The IPv6 output path of this snapshot resolved once for a run of lookups
    /// (a reader handle's per-generation work): [`Output6View::output6_ref`] then
    /// starts from the compiled index's arrays instead of finding them through the
    /// snapshot at every lookup. Same answers as [`Snapshot::output6_ref`].
    pub fn output6_view(&self) -> Output6View<'_> {
        Output6View {
            snap: self,
            fast: self.fast6.as_deref().map(|f| (f, f.lpm.view())),
        }
    }

    /// The compiled input answer [`Snapshot::output6`] gives `fl` (an input route: an
    /// input interface, no output interface; a destination has one when the node whose
    /// route answers holds routes of one device only and no node of the walk has
    /// source-specific routes), or `None` when the flow takes another way.
    pub fn precomputed_input6(&self, fl: &Flow6) -> Option<Answer6> {
        let f = self.fast6.as_ref()?;
        if Fast6::kind(fl) != FlowKind::Input {
            return None;
        }
        self.input6(f, fl, f.lpm.lookup(fl.dst))
    }

    /// The input answer of `fl` (a [`FlowKind::Input`] flow) whose destination has the
    /// index value `id`: its interface must exist (`ENODEV` is the full route's).
    #[inline]
    fn input6(&self, f: &Fast6, fl: &Flow6, id: u32) -> Option<Answer6> {
        self.in4.dev(fl.iif)?;
        f.input_answer(id, fl)
    }

    /// [`Snapshot::output6`] of a flow without a compiled output answer (see
    /// [`Snapshot::output4_other`]).
    #[inline(never)]
    fn output6_other(&self, fl: &Flow6) -> Answer6 {
        match self.precomputed_input6(fl) {
            Some(a) => a,
            None => self.output6_full(fl),
        }
    }

    /// The compiled answer [`Snapshot::output6`] gives `fl`, or `None` when the flow
    /// takes the full lookup (see [`Snapshot::precomputed4`]).
    #[inline]
    pub fn precomputed6(&self, fl: &Flow6) -> Option<Answer6> {
        let f = self.fast6.as_ref()?;
        if f.compiled_for(fl) {
            match f.get_ref(fl.dst) {
                Some(Answer6::Slow) => {}
                Some(a) => return Some(*a),
                None => return Some(Answer6::Error(Errno::ENETUNREACH)),
            }
        }
        None
    }

    /// The full lookup behind [`Snapshot::output6`], out of line (see
    /// [`Snapshot::output4_full`]).
    #[cold]
    #[inline(never)]
    fn output6_full(&self, fl: &Flow6) -> Answer6 {
        Answer6::of(self.ns.route_output6(fl))
    }

    /// [`Snapshot::output6`] for many destinations of otherwise empty flows, with the
    /// index walks interleaved to hide memory latency. `out` gets `min(len)` answers
    /// (copies; see [`Snapshot::output6_batch_with`] to read them in place).
    pub fn output6_batch(&self, dsts: &[u128], out: &mut [Answer6]) {
        let n = dsts.len().min(out.len());
        self.output6_batch_with(&dsts[..n], |i, a| out[i] = *a);
    }

    /// [`Snapshot::output6_batch`] without the copies: `visit(i, answer)` for every
    /// destination `dsts[i]`, in order (see [`Snapshot::output4_batch_with`]).
    pub fn output6_batch_with(&self, dsts: &[u128], mut visit: impl FnMut(usize, &Answer6)) {
        // out of line, flow construction included (see output4_batch_with)
        #[cold]
        #[inline(never)]
        fn slow_path(s: &Snapshot, dst: u128) -> Answer6 {
            s.output6_full(&flow6(dst))
        }
        // an answer number past the compiled answers: no match, or SLOW
        #[cold]
        #[inline(never)]
        fn rare(s: &Snapshot, f: &Fast6, dst: u128, id: u32) -> Answer6 {
            match f.answer_of(id) {
                None => Answer6::Error(Errno::ENETUNREACH),
                Some(a) if !matches!(a, Answer6::Slow) && f.admits(&flow6(dst)) => *a,
                Some(_) => s.output6_full(&flow6(dst)),
            }
        }
        let Some(f) = &self.fast6 else {
            for (i, d) in dsts.iter().enumerate() {
                visit(i, &slow_path(self, *d));
            }
            return;
        };
        let unreachable = Answer6::Error(Errno::ENETUNREACH);
        visit_batch(
            &f.lpm,
            &f.answers,
            dsts,
            f.guard.rules_for(0).is_empty(),
            visit,
            |dst, id| rare(self, f, dst, id),
            |dst, id| {
                let a = f.answer_of(id).unwrap_or(&unreachable);
                if matches!(a, Answer6::Slow) || !f.admits(&flow6(dst)) {
                    Err(slow_path(self, dst))
                } else {
                    Ok(a)
                }
            },
        );
    }
}

/// What a flow of a batch may take (see [`visit_flows`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum FlowKind {
    /// Only its destination decides, and it carries no mark.
    Bare,
    /// Only its destination decides, but its mark may let a rule select it.
    Marked,
    /// An input route (an input interface and a source; no output interface, TOS 0):
    /// IPv4 may take a compiled input answer.
    Input,
    /// A source, an output interface or a TOS: never a compiled answer.
    Full,
}

impl FlowKind {
    #[inline]
    fn of(destination_only: bool, mark: u32) -> FlowKind {
        match (destination_only, mark) {
            (true, 0) => FlowKind::Bare,
            (true, _) => FlowKind::Marked,
            (false, _) => FlowKind::Full,
        }
    }
}

/// The flow-batch loop of both families: one index walk over the flows' destinations
/// (`dst`, read in place). A [`FlowKind::Bare`] flow takes the compiled answer of its
/// number when `open` (no rule can select an unmarked flow); every other flow, and
/// every number past the compiled answers, is answered by `other(flow, number)` (the
/// single lookup's decision, out of line; for an IPv4 [`FlowKind::Input`] flow the
/// number is its destination's input answer). A batch of [`FlowKind::Full`] flows
/// only (IPv6 forwarded packets, flows with an output interface or a TOS) skips the
/// walk: `other` gets [`NO_MATCH`], which it never reads for them.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn visit_flows<'a, K: fibkit_lpm::Key, F, A: 'a>(
    lpm: &Lpm<K>,
    answers: &'a [A],
    flows: &[F],
    open: bool,
    dst: impl Fn(&F) -> K,
    kind: impl Fn(&F) -> FlowKind,
    mut visit: impl FnMut(usize, &A),
    other: impl Fn(&F, u32) -> A,
) {
    // the first flow decides for the usual batches
    if flows.iter().all(|fl| kind(fl) == FlowKind::Full) {
        for (i, fl) in flows.iter().enumerate() {
            visit(i, &other(fl, NO_MATCH));
        }
        return;
    }
    lpm.lookup_batch_by(flows, dst, |i, id| {
        let fl = &flows[i];
        match answers.get(id as usize) {
            Some(a) if open && kind(fl) == FlowKind::Bare => visit(i, a),
            _ => visit(i, &other(fl, id)),
        }
    });
}

/// The batch loop of both families: one index walk over `dsts`, each answer number
/// turned into its answer as the walk's pipeline delivers it. With `open` (no custom
/// rule can select a batch flow: they carry no mark) one comparison tells a compiled
/// answer (`answers[id]`) from the rest, which `rare(dst, id)` answers out of line;
/// otherwise every flow's answer is `guarded(dst, id)`: a compiled answer the rules let
/// it take, or one of its own.
#[inline(always)]
fn visit_batch<'a, K: fibkit_lpm::Key, A>(
    lpm: &Lpm<K>,
    answers: &[A],
    dsts: &[K],
    open: bool,
    mut visit: impl FnMut(usize, &A),
    rare: impl Fn(K, u32) -> A,
    guarded: impl Fn(K, u32) -> Result<&'a A, A>,
) where
    A: 'a,
{
    if open {
        lpm.lookup_batch_with(dsts, |i, id| match answers.get(id as usize) {
            Some(a) => visit(i, a),
            None => visit(i, &rare(dsts[i], id)),
        });
    } else {
        lpm.lookup_batch_with(dsts, |i, id| match guarded(dsts[i], id) {
            Ok(a) => visit(i, a),
            Err(a) => visit(i, &a),
        });
    }
}

/// IPv4 destinations the compiled answers never cover (0.0.0.0, multicast, the limited
/// broadcast): the index maps these prefixes, and every prefix inside them, to
/// [`SLOW`], so that a lookup needs no check of the destination itself.
const SPECIAL4: [(u32, u8); 3] = [(0, 32), (0xe000_0000, 4), (0xffff_ffff, 32)];

fn in_special4(p: crate::prefix::Prefix4) -> bool {
    SPECIAL4
        .iter()
        .any(|&(a, l)| p.len >= l && (p.addr ^ a) & crate::prefix::mask4(l) == 0)
}

/// IPv6 destinations the compiled answers never cover (multicast, link-local,
/// loopback), mapped to [`SLOW`] like [`SPECIAL4`].
const SPECIAL6: [(u128, u8); 3] = [(0xff << 120, 8), (0xfe80 << 112, 10), (1, 128)];

fn in_special6(p: Prefix6) -> bool {
    SPECIAL6
        .iter()
        .any(|&(a, l)| p.len >= l && (p.addr ^ a) & crate::prefix::mask6(l) == 0)
}

/// The flow of an IPv4 batch lookup: only the destination (UDP).
#[inline]
fn flow4(dst: u32) -> crate::lookup::Flow4 {
    crate::lookup::Flow4 {
        dst,
        proto: 17,
        ..Default::default()
    }
}

/// The flow of an IPv6 batch lookup: only the destination.
#[inline]
fn flow6(dst: u128) -> Flow6 {
    Flow6 {
        dst,
        ..Default::default()
    }
}

/// A precomputed IPv4 output answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer4 {
    /// A route.
    Route {
        /// `rt_type`.
        rtype: RouteType,
        /// Gateway, when the route uses one.
        gateway: Option<crate::route::Gateway>,
        /// Output device.
        dev: u32,
        /// Preferred source.
        prefsrc: u32,
        /// Table.
        table: u32,
    },
    /// The lookup fails with this error.
    Error(Errno),
    /// Not precomputable (ECMP, a local route without `src`, the default table): ask
    /// the full lookup.
    Slow,
}

impl Answer4 {
    /// The answer of a full lookup result, in the same form.
    pub fn of(r: Result<crate::lookup::RouteGet4<'_>, Errno>) -> Answer4 {
        match r {
            Ok(g) => Answer4::Route {
                rtype: g.rtype,
                gateway: g.gateway,
                dev: g.dev,
                prefsrc: g.prefsrc.unwrap_or(0),
                table: g.table,
            },
            Err(e) => Answer4::Error(e),
        }
    }
}

/// What the destination alone decides of an IPv4 input route (`ip route get DST from
/// SRC iif DEV`, forwarded packets): the FIB result of a destination's prefix. The
/// rest (the input interface's forwarding, the source checks) is read from the
/// namespace at lookup time, so that sysctl and address changes need no recompile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InDst4 {
    /// A unicast route with one next hop: forwarded through it.
    Forward {
        /// Gateway (a link-scope next hop's).
        gateway: Option<crate::route::Gateway>,
        /// Output device.
        dev: u32,
        /// Table.
        table: u32,
    },
    /// The FIB lookup fails with this error.
    Error(Errno),
    /// Anything else (local delivery, broadcast, multipath, other route types, the
    /// answers of a whole custom rule walk): the full input route answers.
    Slow,
}

impl InDst4 {
    /// The input part of a FIB result.
    fn of(res: &crate::fib4::FibResult4<'_>) -> InDst4 {
        let r = res.route;
        if r.rtype != RouteType::Unicast || r.info.nhs.len() != 1 {
            return InDst4::Slow;
        }
        let nh = &r.info.nhs[res.nh_sel];
        let gateway = if nh.gw.is_some() && nh.scope == crate::route::scope::LINK {
            nh.gw
        } else {
            None
        };
        InDst4::Forward {
            gateway,
            dev: nh.dev,
            table: res.table,
        }
    }
}

/// The compiled answers of one IPv4 prefix: output ([`Answer4`]) and input
/// ([`InDst4`]), numbered together in the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Compiled4 {
    out: Answer4,
    inp: InDst4,
}

impl Compiled4 {
    const SLOW: Compiled4 = Compiled4 {
        out: Answer4::Slow,
        inp: InDst4::Slow,
    };
    /// An output answer, with no input answer.
    fn output(out: Answer4) -> Compiled4 {
        Compiled4 {
            out,
            inp: InDst4::Slow,
        }
    }
}

/// The compiled IPv4 output index of the fast path (local+main merged).
#[derive(Clone, Debug)]
pub struct Fast4 {
    lpm: Lpm<u32>,
    answers: Vec<Answer4>,
    /// The custom rules, in order (empty while there are none): a flow any of them
    /// selects takes the full lookup; the others walk exactly the default rules,
    /// whose answers are compiled here.
    guard: Guard,
    /// What an address matching nothing in local+main gets: the default table is
    /// consulted then, so a non-empty default table makes it [`Answer4::Slow`].
    nomatch: Answer4,
    /// The input answers, numbered like `answers`.
    inputs: Vec<InDst4>,
    /// `nomatch` for input routes.
    nomatch_in: InDst4,
    /// Every custom rule, in order: an input route (or the route back to its source)
    /// that one of them selects takes the full lookup; the others walk the default
    /// rules, whose answers are compiled.
    input_guard: Vec<CompiledRule>,
}

impl Fast4 {
    /// Whether `fl` takes a compiled answer (when its destination has one): only the
    /// destination decides (see [`Fast4::kind`]) and no custom rule selects it.
    #[inline]
    fn compiled_for(&self, fl: &crate::lookup::Flow4) -> bool {
        matches!(Self::kind(fl), FlowKind::Bare | FlowKind::Marked) && self.admits(fl)
    }
    /// Whether only the destination decides `fl` (no source, no interface, TOS 0 once
    /// the ECN bits are stripped), and whether it carries a mark; or whether it is an
    /// input route of TOS 0 without an output interface.
    #[inline]
    fn kind(fl: &crate::lookup::Flow4) -> FlowKind {
        let k = FlowKind::of(
            fl.src | fl.oif | fl.iif | u32::from(fl.tos & 0xfc) == 0,
            fl.mark,
        );
        if k == FlowKind::Full && fl.iif != 0 && fl.oif | u32::from(fl.tos & 0xfc) == 0 {
            FlowKind::Input
        } else {
            k
        }
    }
    /// Whether the compiled answer is the flow's: no custom rule selects it (the
    /// flow as the output route hands it to `fib_lookup`: iif lo, ECN bits cleared).
    #[inline]
    fn admits(&self, fl: &crate::lookup::Flow4) -> bool {
        let g = self.guard.rules_for(fl.mark);
        g.is_empty() || Self::guard_passes(g, fl)
    }
    /// Whether none of the custom rules selects the FIB lookup of `fl` (a flow as
    /// `fib_lookup` gets it).
    #[inline]
    fn no_rule_selects(&self, fl: &crate::lookup::Flow4) -> bool {
        self.input_guard.is_empty() || {
            let rf = RuleFlow::of4(fl);
            !self.input_guard.iter().any(|r| r.matches(&rf))
        }
    }
    #[inline(never)]
    fn guard_passes(g: &[CompiledRule], fl: &crate::lookup::Flow4) -> bool {
        let mut f = *fl;
        f.iif = 1;
        f.tos &= 0xfc;
        let rf = RuleFlow::of4(&f);
        !g.iter().any(|r| r.matches(&rf))
    }
    /// The index: destination -> answer number (see [`Fast4::answer_list`]).
    pub fn index(&self) -> &Lpm<u32> {
        &self.lpm
    }
    /// Number of distinct answers.
    pub fn answers(&self) -> usize {
        self.answers.len()
    }
    /// The distinct answers.
    pub fn answer_list(&self) -> &[Answer4] {
        &self.answers
    }
    /// Bytes of the index plus the answers.
    pub fn memory_bytes(&self) -> usize {
        self.lpm.memory_bytes()
            + self.answers.len() * std::mem::size_of::<Answer4>()
            + self.inputs.len() * std::mem::size_of::<InDst4>()
    }
    /// The precomputed answer for a destination.
    #[inline]
    pub fn get(&self, dst: u32) -> Answer4 {
        *self.get_ref(dst)
    }
    #[inline]
    fn get_ref(&self, dst: u32) -> &Answer4 {
        self.answer_of(self.lpm.lookup(dst))
    }
    /// The answer an index value stands for.
    #[inline]
    fn answer_of(&self, v: u32) -> &Answer4 {
        match self.answers.get(v as usize) {
            Some(a) => a,
            None if v == NO_MATCH => &self.nomatch,
            None => &SLOW4,
        }
    }
    /// The input answer an index value stands for.
    #[inline]
    fn input_of(&self, v: u32) -> InDst4 {
        match self.inputs.get(v as usize) {
            Some(a) => *a,
            None if v == NO_MATCH => self.nomatch_in,
            None => InDst4::Slow,
        }
    }
}

impl Netns {
    /// The answers of `ip route get` for destinations whose longest match over
    /// local+main is `p`: output (no source, no oif, TOS 0) and the input route's FIB
    /// part (TOS 0, the default rules).
    /// `main_slot`: the main table's slot of `p` when the caller knows it (`None`: look
    /// it up).
    fn fast4_answer(&self, p: crate::prefix::Prefix4, main_slot: Option<u32>) -> Compiled4 {
        if in_special4(p) {
            return Compiled4::SLOW;
        }
        use crate::fib4::Start4;
        use crate::route::scope;
        let start = match main_slot {
            Some(s) => Start4::AtMainSlot(p.len, s),
            None => Start4::AtLen(p.len),
        };
        // Only the default rules: main holds local's entries too (merged, as the
        // kernel keeps them). Custom rules (none selecting the flow, see `Fast4`): the
        // default rules' walk over unmerged tables, local first, then main.
        let tables: &[(u32, Start4)] = if self.custom_rules4 {
            &[(tid::LOCAL, Start4::AtLen(p.len)), (tid::MAIN, start)]
        } else {
            &[(tid::MAIN, start)]
        };
        let mut found = Err(Errno::EAGAIN);
        for (t, from) in tables {
            found = self.fib4_table_lookup_at(*t, p.addr, 0, scope::UNIVERSE, 0, false, *from);
            if !matches!(found, Err(Errno::EAGAIN)) {
                break;
            }
        }
        // (with custom rules: the answers of the flows none of them selects, input
        // routes included; see `Fast4::input_guard`)
        let with_input = |out: Answer4, inp: InDst4| Compiled4 { out, inp };
        let res = match found {
            Ok(r) => r,
            Err(Errno::EAGAIN) => {
                // the default table's prefixes are not compiled in
                return if self.table4(tid::DEFAULT).is_some_and(|t| !t.is_empty()) {
                    Compiled4::SLOW
                } else {
                    let e = Errno::ENETUNREACH;
                    with_input(Answer4::Error(e), InDst4::Error(e))
                };
            }
            Err(e) => return with_input(Answer4::Error(e), InDst4::Error(e)),
        };
        // an output answer left to the full lookup takes the input answer with it: a
        // numbered answer's output is always ready (the batch walks rely on it)
        match self.fast4_output(&res) {
            Answer4::Slow => Compiled4::SLOW,
            out => with_input(out, InDst4::of(&res)),
        }
    }

    /// The output answer (no source, no oif, TOS 0) of the FIB result `res`.
    fn fast4_output(&self, res: &crate::fib4::FibResult4<'_>) -> Answer4 {
        use crate::prefix::v4;
        use crate::route::scope;
        let r = res.route;
        if r.rtype == RouteType::Local {
            // (lo without IPv4 state: the full route's refusal)
            if r.info.prefsrc == 0 || !self.has_idev4(1) {
                return Answer4::Slow;
            }
            return Answer4::Route {
                rtype: RouteType::Local,
                gateway: None,
                dev: 1,
                prefsrc: r.info.prefsrc,
                table: res.table,
            };
        }
        if r.info.nhs.len() > 1 {
            return Answer4::Slow;
        }
        let nh = &r.info.nhs[res.nh_sel];
        // __mkroute_output: a device without IPv4 state is no way out
        if !self.has_idev4(nh.dev) {
            return Answer4::Error(Errno::EINVAL);
        }
        if self.prefsrc_order_dependent(r, res.nh_sel)
            || self.default_route_turns(r, res.prefix, res.table)
        {
            return Answer4::Slow;
        }
        let prefsrc = self.nh_prefsrc4(r, res.nh_sel, false);
        let localnet = || {
            self.sysctl.v4_all.route_localnet != 0
                || self
                    .sysctl
                    .v4_dev
                    .get(&nh.dev)
                    .is_some_and(|c| c.route_localnet != 0)
        };
        if v4::is_loopback(prefsrc) && nh.dev != 1 && !localnet() {
            return Answer4::Error(Errno::EINVAL);
        }
        // __mkroute_output: only the limited broadcast (a special address, never
        // compiled here) drops the FIB entry; a broadcast route keeps its own, so one
        // through a nexthop object with a gateway goes through that gateway
        let use_fi = match r.rtype {
            RouteType::Multicast => res.prefix.len >= 4,
            _ => true,
        };
        let gateway = if use_fi && nh.gw.is_some() && nh.scope == scope::LINK {
            nh.gw
        } else {
            None
        };
        Answer4::Route {
            rtype: r.rtype,
            gateway,
            dev: nh.dev,
            prefsrc,
            table: res.table,
        }
    }

    /// Compile the IPv4 fast-path index (`None` when the default rules are not intact).
    pub fn compile_fast4(&self) -> Option<Fast4> {
        self.fast4_builder().map(|mut b| b.snapshot())
    }

    /// Build the IPv4 fast-path compiler state (`None` when the default rules are not
    /// intact); keep it
    /// to update the answers incrementally with [`Netns::fast4_update`].
    pub fn fast4_builder(&self) -> Option<Fast4Builder> {
        let _quiet = self.quiet.hush();
        // custom rules that select every plain flow (wg-quick's `not fwmark ... lookup
        // T`, `lookup main suppress_prefixlength 0`), or default rules deleted or
        // reordered: the answers of the whole rule walk are compiled instead
        let guard = match self.rule_guard(false) {
            Some(g)
                if !g
                    .iter()
                    .any(|r| r.selects_plain_output(Some(0)) == Some(true)) =>
            {
                g
            }
            _ => return Some(self.fast4_builder_walk()),
        };
        let guard = Guard::new(guard);
        // every prefix of local and main, with its main-table slot when main has it
        // (once: a prefix of both tables is compiled with its main slot)
        let mut index = AnswerIndex::new();
        let main = self.table4(tid::MAIN);
        if let Some(tb) = main {
            for (p, slot) in tb.prefix_slots() {
                index.set(p.addr, p.len, self.fast4_answer(p, Some(slot)));
            }
        }
        if let Some(tb) = self.table4(tid::LOCAL) {
            for p in tb.prefix_list() {
                if main.is_none_or(|m| m.get(p).is_none()) {
                    index.set(p.addr, p.len, self.fast4_answer(p, None));
                }
            }
        }
        for (a, l) in SPECIAL4 {
            index.set(a, l, Compiled4::SLOW);
        }
        let nomatch = if self.table4(tid::DEFAULT).is_some_and(|t| !t.is_empty()) {
            Compiled4::SLOW
        } else {
            let e = Errno::ENETUNREACH;
            Compiled4 {
                out: Answer4::Error(e),
                inp: InDst4::Error(e),
            }
        };
        Some(Fast4Builder {
            index,
            guard,
            input_guard: self.custom_rules(false).unwrap_or_default(),
            nomatch,
            epoch: self.global_epoch(),
            walk: None,
        })
    }

    /// The compiler state of the rule-walk answers (see [`Fast4Builder`]): every
    /// prefix of every table, each answered by the output route lookup of an unmarked
    /// flow to it whose table lookups see only prefixes no longer than it (so that the
    /// answer is the one of every destination it holds outside its longer prefixes).
    /// The flows it answers for: unmarked, and selected by none of the rules whose
    /// choice depends on the flow's other fields (the guard).
    fn fast4_builder_walk(&self) -> Fast4Builder {
        let guard = walk_guard(&self.prog4, Some(0));
        let index = walk_index(
            self.tables4().flat_map(|t| t.prefix_list()),
            |p| (p.addr, p.len),
            &SPECIAL4,
            |p| Compiled4::output(self.walk4_answer(p, &guard)),
        );
        Fast4Builder {
            index,
            guard: Guard::for_walk(guard),
            // (no input answers are compiled with the walk's)
            input_guard: Vec::new(),
            // (never used: 0.0.0.0/0 is always compiled)
            nomatch: Compiled4::SLOW,
            epoch: self.global_epoch(),
            walk: Some(self.tables4().map(|t| t.id).collect()),
        }
    }

    /// The rule-walk answer of the destinations of `p` outside its longer prefixes
    /// (see [`Netns::fast4_builder_walk`]).
    fn walk4_answer(&self, p: crate::prefix::Prefix4, guard: &[CompiledRule]) -> Answer4 {
        if in_special4(p) {
            return Answer4::Slow;
        }
        // a destination of `p` the output route treats like any other (not 0, not
        // multicast, not limited broadcast): the table lookups see only `p`'s bits
        let last = p.addr | !crate::prefix::mask4(p.len);
        let plain = |d: u32| d != 0 && !crate::prefix::v4::is_multicast(d) && d != u32::MAX;
        let Some(dst) = [last.wrapping_sub(1), p.addr | 1, p.addr]
            .into_iter()
            .find(|&d| p.contains(d) && plain(d))
        else {
            return Answer4::Slow;
        };
        let fl = flow4(dst);
        // a guard rule selecting the compiling flow would make its answer not the one
        // of the flows the guard lets through
        if !Fast4::guard_passes(guard, &fl) {
            return Answer4::Slow;
        }
        match self.route_output4_from(&fl, crate::fib4::Start4::AtLen(p.len), false) {
            Ok(g) => match g.fib {
                // multipath: the path depends on the flow's hash; a local route without
                // a preferred source answers with the destination as source
                Some((r, pfx))
                    if r.info.nhs.len() > 1
                        || (r.rtype == RouteType::Local && r.info.prefsrc == 0)
                        || self.prefsrc_order_dependent(r, g.nh_sel.unwrap_or(0))
                        || self.default_route_turns(r, pfx, g.table) =>
                {
                    Answer4::Slow
                }
                _ => Answer4::of(Ok(g)),
            },
            Err(e) => Answer4::Error(e),
        }
    }

    /// Update compiled IPv4 answers after route changes of the prefixes `touched` (in the
    /// local and main tables): those prefixes and every prefix inside them (whose
    /// fallback may pass through them) are recomputed; nothing else is.
    pub fn fast4_update(&self, st: &mut Fast4Builder, touched: &[crate::prefix::Prefix4]) {
        self.fast4_update_touches(st, touched, &[]);
    }

    /// [`Netns::fast4_update`] for the prefixes `touched` (of either table) and the
    /// main table's changes with their hints, `main_touches`: a change whose prefix had
    /// no longer prefix inside it needs no search of the main table (its slot, if it
    /// still holds the prefix, is where the answer's lookup starts).
    pub fn fast4_update_touches(
        &self,
        st: &mut Fast4Builder,
        touched: &[crate::prefix::Prefix4],
        main_touches: &[crate::table::Touch4],
    ) {
        let _quiet = self.quiet.hush();
        if st.walk.is_some() {
            let mut all: Vec<crate::prefix::Prefix4> = touched.to_vec();
            all.extend(main_touches.iter().map(|t| t.prefix));
            self.walk4_update(st, &all);
            return;
        }
        let local = self.table4(tid::LOCAL);
        let main = self.table4(tid::MAIN);
        // (prefix, its main-table slot when main holds it): the answer's lookup starts
        // at that slot, and the slot tells whether main has entries for the prefix.
        // Prefixes are packed into one integer (address, length) so that sorting them
        // is cheap.
        const NO_SLOT: u32 = u32::MAX;
        let key = |q: crate::prefix::Prefix4| (u64::from(q.addr) << 8) | u64::from(q.len);
        let held = |q: crate::prefix::Prefix4, slot: u32| {
            if main.is_some_and(|tb| tb.slot_holds(slot, q)) {
                slot
            } else {
                NO_SLOT
            }
        };
        let mut affected: Vec<(u64, u32)> = Vec::with_capacity(touched.len() * 2);
        let unhinted = touched.iter().map(|p| crate::table::Touch4 {
            prefix: *p,
            slot: None,
            longer: true,
        });
        for t in unhinted.chain(main_touches.iter().copied()) {
            let p = crate::prefix::Prefix4::new(t.prefix.addr, t.prefix.len);
            if let Some(tb) = local {
                tb.prefixes_within_each(p, |q, _| affected.push((key(q), NO_SLOT)));
            }
            match (t.slot, t.longer, main) {
                // nothing inside it: the prefix alone, from the slot it was held in
                (Some(slot), false, _) => affected.push((key(p), held(p, slot))),
                (_, _, Some(tb)) => {
                    // the prefix itself even when no table holds it any more
                    affected.push((key(p), NO_SLOT));
                    tb.prefixes_within_each(p, |q, slot| affected.push((key(q), held(q, slot))));
                }
                (_, _, None) => affected.push((key(p), NO_SLOT)),
            }
        }
        // per prefix, keep the entry with a main-table slot
        affected.sort_unstable_by_key(|e| e.0);
        affected.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                if kept.1 == NO_SLOT {
                    kept.1 = later.1;
                }
                true
            } else {
                false
            }
        });
        let affected = affected.into_iter().map(|(k, slot)| {
            let q = crate::prefix::Prefix4 {
                addr: (k >> 8) as u32,
                len: k as u8,
            };
            (q, (slot != NO_SLOT).then_some(slot))
        });
        for (q, slot) in affected {
            let present =
                slot.is_some() || local.is_some_and(|tb| tb.get(q).is_some_and(|l| !l.is_empty()));
            if present || SPECIAL4.contains(&(q.addr, q.len)) {
                st.index.set(q.addr, q.len, self.fast4_answer(q, slot));
            } else {
                st.index.remove(q.addr, q.len);
            }
        }
    }
}

impl Netns {
    /// [`Netns::fast4_update`] of rule-walk answers: the changed prefixes (of any
    /// table) and every prefix inside them in any table.
    fn walk4_update(&self, st: &mut Fast4Builder, touched: &[crate::prefix::Prefix4]) {
        let mut affected: Vec<u64> = Vec::with_capacity(touched.len() * 2);
        let key = |q: crate::prefix::Prefix4| (u64::from(q.addr) << 8) | u64::from(q.len);
        for p in touched {
            let p = crate::prefix::Prefix4::new(p.addr, p.len);
            affected.push(key(p));
            for tb in self.tables4() {
                tb.prefixes_within_each(p, |q, _| affected.push(key(q)));
            }
        }
        affected.sort_unstable();
        affected.dedup();
        for k in affected {
            let q = crate::prefix::Prefix4 {
                addr: (k >> 8) as u32,
                len: k as u8,
            };
            let present = q.len == 0
                || self
                    .tables4()
                    .any(|tb| tb.get(q).is_some_and(|l| !l.is_empty()));
            if present || SPECIAL4.contains(&(q.addr, q.len)) {
                let a = self.walk4_answer(q, &st.guard.unmarked);
                st.index.set(q.addr, q.len, Compiled4::output(a));
            } else {
                st.index.remove(q.addr, q.len);
            }
        }
    }
}

/// The IPv4 fast-path compiler state kept by a writer between publications.
#[derive(Clone, Debug)]
pub struct Fast4Builder {
    index: AnswerIndex<u32, Compiled4>,
    guard: Guard,
    input_guard: Vec<CompiledRule>,
    nomatch: Compiled4,
    /// The namespace's global epoch the answers were computed at.
    pub epoch: u64,
    /// `Some(tables)`: the answers are the whole rule walk's, over these tables (custom
    /// rules selecting every plain flow, or default rules not intact), and only
    /// unmarked flows take them; `None`: the default rules' walk (local, main,
    /// default), for flows no custom rule selects.
    pub walk: Option<Vec<u32>>,
}

impl Fast4Builder {
    /// The compiled index of the current answers (incremental: only what changed since
    /// the last call is rebuilt).
    pub fn snapshot(&mut self) -> Fast4 {
        let (lpm, compiled) = self.index.snapshot();
        Fast4 {
            lpm,
            answers: compiled.iter().map(|c| c.out).collect(),
            inputs: compiled.iter().map(|c| c.inp).collect(),
            nomatch_in: self.nomatch.inp,
            input_guard: self.input_guard.clone(),
            guard: self.guard.clone(),
            nomatch: self.nomatch.out,
        }
    }
}
