//! The RIB of one table: every route entry, ordered as the kernel orders them.

use std::sync::Arc;

use fibkit_lpm::{Lpm, LpmBuilder};

use crate::prefix::{mask4, Prefix4, Prefix6};
use crate::route::{Route4, Route6};

/// The entries of one IPv4 prefix, most specific first (the kernel's alias list).
/// Most prefixes hold one route, kept inline in the prefix's slot (no allocation
/// of its own).
pub type Routes4 = smallvec::SmallVec<[Route4; 1]>;

/// One IPv4 table: the RIB (every entry of every prefix, in the kernel's alias order:
/// TOS descending, priority ascending, then insertion order) and its compiled
/// longest-prefix-match index.
///
/// Each prefix owns a *slot*; the index maps an address to the slot of its longest
/// matching prefix. Lookups read the index when it is current ([`Table4::compile`] runs
/// after every change) and fall back to probing the RIB by prefix length otherwise, so
/// answers never depend on when the index was rebuilt.
///
/// Cloning is cheap (a snapshot of the table): prefix slots are shared and copied only
/// when changed, the key map is shared until changed, and the index builder is not
/// copied (it is rebuilt from the keys if the copy is ever changed).
#[derive(Debug, Default)]
pub struct Table4 {
    /// The table id.
    pub id: u32,
    /// Creation sequence number (the kernel lists tables of one hash bucket newest first).
    pub created: u64,
    /// `(network address, 32 - prefix length)` -> slot, in the trie's dump order
    /// (address ascending, longer prefix first).
    keys: imbl::OrdMap<(u32, u8), u32>,
    /// Slot -> (prefix, entries), held inline in shared chunks: a snapshot's copy costs
    /// one pointer per 64 slots, and a change copies one chunk (2.5 KiB in a row; slots
    /// behind pointers of their own made a chunk copy and its later drop touch 64
    /// reference counts scattered over the heap).
    slots: crate::cowvec::CowVec<(Prefix4, Routes4)>,
    free: Vec<u32>,
    lpm: Option<LpmBuilder<u32>>,
    index: Lpm<u32>,
    dirty: bool,
    /// Prefixes changed since [`Table4::take_touched`] (`None`: too many to track).
    touched: Option<Vec<Touch4>>,
    /// Number of prefixes of each length: probing the RIB skips absent lengths.
    len_count: LenCount,
    /// `tb_num_default`: default routes inserted minus default routes deleted by
    /// request (routes flushed with a dead device or nexthop are not counted off, as
    /// in the kernel). Above 1, an output lookup answering with a default route looks
    /// for another one of equal metric (`fib_select_default`).
    pub(crate) num_default: i32,
}

impl Clone for Table4 {
    fn clone(&self) -> Self {
        Table4 {
            id: self.id,
            created: self.created,
            keys: self.keys.clone(),
            slots: self.slots.clone(),
            free: self.free.clone(),
            lpm: None,
            index: self.index.clone(),
            dirty: self.dirty,
            touched: Some(Vec::new()),
            len_count: self.len_count,
            num_default: self.num_default,
        }
    }
}

impl Table4 {
    /// An empty table.
    pub fn new(id: u32) -> Self {
        Table4 {
            id,
            touched: Some(Vec::new()),
            ..Default::default()
        }
    }
    /// The entries of one prefix.
    pub fn get(&self, p: Prefix4) -> Option<&Routes4> {
        self.slot_of(p).map(|s| &self.slots[s as usize].1)
    }
    /// The slot of prefix `p`: from the index builder when this copy has one (a trie
    /// walk of one or two nodes), else from the ordered key map (a B-tree search).
    fn slot_of(&self, p: Prefix4) -> Option<u32> {
        // both ways see the prefix with its host bits cleared
        let p = Prefix4::new(p.addr, p.len);
        match &self.lpm {
            Some(b) => b.get(p.addr, p.len),
            None => self.keys.get(&(p.addr, 32 - p.len)).copied(),
        }
    }
    /// The slot of `p` and whether longer prefixes lie inside it (`true` when not
    /// known: this copy has no index builder), in one walk of the builder.
    fn slot_and_longer(&self, p: Prefix4) -> (Option<u32>, bool) {
        let p = Prefix4::new(p.addr, p.len);
        match &self.lpm {
            Some(b) => b.get_and_longer(p.addr, p.len),
            None => (self.keys.get(&(p.addr, 32 - p.len)).copied(), true),
        }
    }
    /// Record a change of `p`, held in `slot`, with whether longer prefixes were
    /// inside it.
    fn touch(&mut self, p: Prefix4, slot: u32, longer: bool) {
        let p = Prefix4::new(p.addr, p.len);
        let t = Touch4 {
            prefix: p,
            slot: Some(slot),
            longer,
        };
        // an incremental IPv4 publication costs ~0.7 µs per change, a full recompile
        // ~0.3 µs per prefix (BENCHMARKS.md): even at a quarter of the table
        touch(&mut self.touched, t, self.keys.len() / 4);
    }
    /// The prefixes changed since the last call (`None`: everything may have changed).
    pub fn take_touched(&mut self) -> Option<Vec<Prefix4>> {
        self.take_touches()
            .map(|v| v.into_iter().map(|t| t.prefix).collect())
    }
    /// The changes since the last call, with their hints (`None`: everything may have
    /// changed).
    pub fn take_touches(&mut self) -> Option<Vec<Touch4>> {
        self.touched.replace(Vec::new())
    }
    /// Whether `slot` holds `p` with entries: a [`Touch4`]'s slot is checked this way,
    /// as the prefix may have left it since.
    pub fn slot_holds(&self, slot: u32, p: Prefix4) -> bool {
        (slot as usize) < self.slots.len() && {
            let (q, list) = &self.slots[slot as usize];
            *q == p && !list.is_empty()
        }
    }
    /// Mutable entries of one prefix.
    pub fn get_mut(&mut self, p: Prefix4) -> Option<&mut Routes4> {
        let (s, longer) = self.slot_and_longer(p);
        let s = s?;
        self.touch(p, s, longer);
        Some(&mut self.slots[s as usize].1)
    }
    /// The index builder (rebuilt from the keys in a copy that never had one).
    fn builder(&mut self) -> &mut LpmBuilder<u32> {
        if self.lpm.is_none() {
            let b: LpmBuilder<u32> = self
                .keys
                .iter()
                .map(|((a, sl), slot)| (*a, 32 - *sl, *slot))
                .collect();
            self.lpm = Some(b);
        }
        self.lpm.as_mut().expect("just built")
    }
    /// Mutable entries of one prefix (created empty; [`Table4::prune`] drops it again if
    /// it stays empty).
    pub fn entry(&mut self, p: Prefix4) -> &mut Routes4 {
        let key = (p.addr, 32 - p.len);
        // (inserting `p` adds no prefix inside it: `longer` stays true after it)
        let (found, longer) = self.slot_and_longer(p);
        let s = match found {
            Some(s) => s,
            None => {
                let s = match self.free.pop() {
                    Some(s) => {
                        self.slots[s as usize] = (p, Routes4::new());
                        s
                    }
                    None => {
                        self.slots.push((p, Routes4::new()));
                        (self.slots.len() - 1) as u32
                    }
                };
                self.builder().insert(p.addr, p.len, s);
                self.keys.insert(key, s);
                self.len_count.add(p.len);
                self.dirty = true;
                s
            }
        };
        self.touch(p, s, longer);
        &mut self.slots[s as usize].1
    }
    /// Drop prefixes left without entries.
    pub fn prune(&mut self) {
        let empty: Vec<Prefix4> = self
            .keys
            .values()
            .filter_map(|s| {
                let (p, list) = &self.slots[*s as usize];
                list.is_empty().then_some(*p)
            })
            .collect();
        for p in empty {
            self.prune_prefix(p);
        }
    }
    /// Drop one prefix if it was left without entries (O(log n), unlike [`Table4::prune`]).
    pub fn prune_prefix(&mut self, p: Prefix4) {
        let key = (p.addr, 32 - p.len);
        if let Some(s) = self.slot_of(p) {
            if self.slots[s as usize].1.is_empty() {
                self.builder().remove(p.addr, p.len);
                self.keys.remove(&key);
                self.len_count.sub(p.len);
                self.free.push(s);
                self.dirty = true;
            }
        }
    }
    /// Apply `f` to every prefix's entry list (then [`Table4::prune`]).
    pub fn for_each_list_mut(&mut self, mut f: impl FnMut(&mut Routes4)) {
        self.touched = None;
        for s in self.keys.values() {
            // a shared chunk is copied only for a list `f` really changes
            let mut list = self.slots[*s as usize].1.clone();
            f(&mut list);
            if list != self.slots[*s as usize].1 {
                self.slots[*s as usize].1 = list;
            }
        }
        self.prune();
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.keys
            .values()
            .map(|s| self.slots[*s as usize].1.len())
            .sum()
    }
    /// Number of prefixes.
    pub fn prefixes(&self) -> usize {
        self.keys.len()
    }
    /// Whether the table holds no entry.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
    /// All entries in dump order.
    pub fn iter(&self) -> impl Iterator<Item = &Route4> {
        self.keys
            .values()
            .flat_map(move |s| self.slots[*s as usize].1.iter())
    }
    /// Rebuild the parts of the index the changes since the last compile touched.
    pub fn compile(&mut self) {
        if self.dirty {
            self.index = self.builder().snapshot();
            self.dirty = false;
        }
    }
    /// The compiled index (current after [`Table4::compile`]).
    pub fn index(&self) -> &Lpm<u32> {
        &self.index
    }
    /// The prefixes covering `dst`, longest first, with their entries: the first comes
    /// from the index, the shorter ones (the kernel's backtracking) from the RIB.
    pub fn matches(&self, dst: u32) -> Matches4<'_> {
        let first = if self.dirty {
            None
        } else {
            let s = self.index.lookup(dst);
            if s == fibkit_lpm::NO_MATCH {
                return Matches4 {
                    t: self,
                    dst,
                    next_len: -1,
                    first: None,
                };
            }
            Some(s)
        };
        Matches4 {
            t: self,
            dst,
            next_len: 32,
            first,
        }
    }
}

impl Table4 {
    /// The prefixes covering `dst` of length `len` and shorter, longest first (probing
    /// the RIB; for compiling answers per prefix).
    pub fn matches_from(&self, dst: u32, len: u8) -> Matches4<'_> {
        Matches4 {
            t: self,
            dst,
            next_len: i32::from(len.min(32)),
            first: None,
        }
    }

    /// [`Table4::matches_from`] at the prefix of slot `slot` (which must cover `dst`),
    /// without probing the RIB for it.
    pub(crate) fn matches_from_slot(&self, dst: u32, slot: u32) -> Matches4<'_> {
        Matches4 {
            t: self,
            dst,
            next_len: -1,
            first: Some(slot),
        }
    }

    /// The prefixes of the table with their slots, in dump order.
    pub(crate) fn prefix_slots(&self) -> impl Iterator<Item = (Prefix4, u32)> + '_ {
        self.keys.iter().map(|((a, s), slot)| {
            (
                Prefix4 {
                    addr: *a,
                    len: 32 - *s,
                },
                *slot,
            )
        })
    }

    /// `f(prefix, slot)` for each prefix inside `p` (its own and longer ones), in no
    /// particular order.
    pub fn prefixes_within_each(&self, p: Prefix4, mut f: impl FnMut(Prefix4, u32)) {
        // the index builder, when this copy has one, walks straight to `p`'s node; the
        // ordered key map would cost B-tree searches through a million keys
        if let Some(b) = &self.lpm {
            b.within_each(p.addr, p.len, |addr, len, slot| {
                f(Prefix4 { addr, len }, slot)
            });
            return;
        }
        let last = p.addr | !mask4(p.len);
        for ((a, s), slot) in self.keys.range((p.addr, 0)..=(last, 32)) {
            if 32 - *s >= p.len {
                f(
                    Prefix4 {
                        addr: *a,
                        len: 32 - *s,
                    },
                    *slot,
                );
            }
        }
    }

    /// The prefixes of the table.
    pub fn prefix_list(&self) -> impl Iterator<Item = Prefix4> + '_ {
        self.keys.keys().map(|(a, s)| Prefix4 {
            addr: *a,
            len: 32 - *s,
        })
    }
}

/// Iterator of [`Table4::matches`].
pub struct Matches4<'a> {
    t: &'a Table4,
    dst: u32,
    next_len: i32,
    first: Option<u32>,
}

impl<'a> Iterator for Matches4<'a> {
    type Item = (Prefix4, &'a Routes4);
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(s) = self.first.take() {
            let (p, l) = &self.t.slots[s as usize];
            self.next_len = i32::from(p.len) - 1;
            return Some((*p, l));
        }
        while self.next_len >= 0 {
            // the next shorter length holding prefixes
            let Some(len) = self.t.len_count.longest_upto(self.next_len as u8) else {
                self.next_len = -1;
                break;
            };
            self.next_len = i32::from(len) - 1;
            if let Some(s) = self.t.slot_of(Prefix4 {
                addr: self.dst & mask4(len),
                len,
            }) {
                let (p, l) = &self.t.slots[s as usize];
                return Some((*p, l));
            }
        }
        None
    }
}

/// Prefix count per prefix length 0..=32, and the lengths present as a bit mask
/// (bit `l` set: some prefix of length `l`), so that a walk down the lengths skips
/// the empty ones at once.
#[derive(Clone, Copy, Debug)]
struct LenCount([u32; 33], u64);

impl Default for LenCount {
    fn default() -> Self {
        LenCount([0; 33], 0)
    }
}

impl LenCount {
    fn add(&mut self, len: u8) {
        self.0[usize::from(len)] += 1;
        self.1 |= 1 << len;
    }

    fn sub(&mut self, len: u8) {
        let c = &mut self.0[usize::from(len)];
        *c -= 1;
        if *c == 0 {
            self.1 &= !(1 << len);
        }
    }

    /// The longest length `<= len` holding prefixes.
    #[inline]
    fn longest_upto(&self, len: u8) -> Option<u8> {
        let below = self.1 & (u64::MAX >> (63 - u32::from(len.min(63))));
        (below != 0).then(|| (63 - below.leading_zeros()) as u8)
    }
}

/// Add `p` to a table's list of changed prefixes. Past `size` (a share of the table's
/// size; a bulk load, or a table nobody takes the list from) the list is dropped
/// (`None`: everything may have changed): recompiling everything is then as cheap,
/// and the list would only grow.
fn touch<P>(touched: &mut Option<Vec<P>>, p: P, size: usize) {
    if let Some(v) = touched {
        v.push(p);
        if v.len() > 4096 && v.len() > size {
            *touched = None;
        }
    }
}

/// A change of an IPv4 table's prefix, as [`Table4::take_touches`] reports it: what the
/// writer knew at the time spares the answer compiler a search of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touch4 {
    /// The prefix changed.
    pub prefix: Prefix4,
    /// The slot that held it then (check with [`Table4::slot_holds`]: a later
    /// change may have moved it).
    pub slot: Option<u32>,
    /// Whether longer prefixes inside it may exist (`false` only when the table's
    /// index builder said none did; a longer prefix added later is a change of its own).
    pub longer: bool,
}

/// Apply `f` to a value shared with snapshots: in place if this is the only copy,
/// otherwise on a private copy kept only if `f` really changed it.
fn change_shared<T: Clone + PartialEq>(v: &mut Arc<T>, f: impl FnOnce(&mut T)) {
    if let Some(own) = Arc::get_mut(v) {
        f(own);
        return;
    }
    let mut copy = T::clone(v);
    f(&mut copy);
    if copy != **v {
        *v = Arc::new(copy);
    }
}

/// One IPv6 table: per (destination, source) node, its fib6_info list ordered by metric
/// (insertion order within a metric; ECMP siblings adjacent), and a compiled index of the
/// destination prefixes.
///
/// Nodes live in slots; the index maps an address to the record of its longest matching
/// destination, which names the destination's plain node and whether source-specific
/// routes hang under it. The index is rebuilt by [`Table6::compile`] after changes;
/// lookups on a stale index probe the node map instead.
#[derive(Debug)]
pub struct Table6 {
    /// The table id.
    pub id: u32,
    /// Creation sequence number.
    pub created: u64,
    keys: imbl::OrdMap<(Prefix6, Prefix6), u32>,
    slots: crate::cowvec::CowVec<Arc<(Prefix6, Prefix6, Vec<Route6>)>>,
    free: Vec<u32>,
    /// destination -> record index; `None` in a copy (a snapshot): copying the map
    /// would cost the whole map on every publication, so a copy answers from the
    /// persistent key map instead, and rebuilds this map if it is ever changed.
    /// A fast hash seeded per process (prefixes come from the network: a fixed seed
    /// would let a peer pick colliding ones).
    dmap: Option<DestMap>,
    /// records: (destination, plain node slot or NONE, number of source-specific nodes)
    drecs: crate::cowvec::CowVec<(Prefix6, u32, u32)>,
    dfree: Vec<u32>,
    /// The index builder (`None` in a copy: rebuilt from the records if it changes).
    lpm: Option<LpmBuilder<u128>>,
    index: Lpm<u128>,
    dirty: bool,
    /// Destinations changed since [`Table6::take_touched`] (`None`: too many to track).
    touched: Option<Vec<Prefix6>>,
    /// Number of destinations of each prefix length: probing skips absent lengths.
    len_count: Arc<[u32; 129]>,
    /// The kernel's radix tree of the table, for the keys of destinations that hold
    /// only source-specific routes (`None`: past [`crate::fib6tree::TRACK_LIMIT`]).
    tree: Option<Arc<crate::fib6tree::Tree6>>,
    /// Destinations changed since [`Table6::sync_tree`] (`None`: any may have).
    tree_touched: Option<Vec<Prefix6>>,
}

const NONE: u32 = u32::MAX;

/// Destination prefix -> record index.
type DestMap = std::collections::HashMap<Prefix6, u32, foldhash::fast::RandomState>;

impl Clone for Table6 {
    /// A cheap copy (a snapshot): nodes and records are shared until changed, the key
    /// map is persistent, the index is shared and its builder is not copied.
    fn clone(&self) -> Self {
        Table6 {
            id: self.id,
            created: self.created,
            keys: self.keys.clone(),
            slots: self.slots.clone(),
            free: self.free.clone(),
            dmap: None,
            drecs: self.drecs.clone(),
            dfree: self.dfree.clone(),
            lpm: None,
            index: self.index.clone(),
            dirty: self.dirty,
            touched: Some(Vec::new()),
            len_count: Arc::clone(&self.len_count),
            tree: self.tree.clone(),
            tree_touched: self.tree_touched.clone(),
        }
    }
}

impl Default for Table6 {
    fn default() -> Self {
        Table6::new(0)
    }
}

impl Table6 {
    /// An empty table.
    pub fn new(id: u32) -> Self {
        Table6 {
            id,
            created: 0,
            keys: imbl::OrdMap::new(),
            slots: Default::default(),
            free: Vec::new(),
            dmap: Some(Default::default()),
            drecs: Default::default(),
            dfree: Vec::new(),
            lpm: Some(LpmBuilder::new()),
            index: Lpm::empty(),
            dirty: false,
            touched: Some(Vec::new()),
            len_count: Arc::new([0; 129]),
            tree: Some(Arc::default()),
            tree_touched: Some(Vec::new()),
        }
    }
    fn touch(&mut self, dst: Prefix6) {
        // an incremental IPv6 publication costs ~0.4-0.6 µs per change, a full
        // recompile ~0.9 µs per prefix (BENCHMARKS.md): even at the table's size
        touch(&mut self.touched, dst, self.keys.len());
        if self.tree.is_some() {
            if self.keys.len() > crate::fib6tree::TRACK_LIMIT {
                // past the limit now: a bulk load need not collect its changes
                self.tree = None;
                self.tree_touched = None;
            } else {
                touch(&mut self.tree_touched, dst, self.keys.len());
            }
        }
    }
    /// Replay the changes since the last call in the table's radix tree
    /// ([`crate::fib6tree`]); call at the end of each change. A table grown past
    /// [`crate::fib6tree::TRACK_LIMIT`] nodes stops tracking it.
    pub fn sync_tree(&mut self) {
        let Some(tree) = &mut self.tree else {
            return;
        };
        if self.tree_touched.as_ref().is_some_and(|v| v.is_empty()) {
            return;
        }
        if self.keys.len() > crate::fib6tree::TRACK_LIMIT {
            self.tree = None;
            self.tree_touched = None;
            return;
        }
        let mut dsts = match self.tree_touched.replace(Vec::new()) {
            Some(v) => v,
            None => {
                let mut v = tree.route_dsts();
                v.extend(self.dsts());
                v
            }
        };
        dsts.sort_unstable();
        dsts.dedup();
        let last = Prefix6 {
            addr: u128::MAX,
            len: 128,
        };
        let serials = |l: &Vec<Route6>| l.iter().map(|r| r.serial.0).collect::<Vec<u64>>();
        let states = dsts
            .into_iter()
            .map(|d| {
                let plain = self
                    .get(d, Prefix6::default())
                    .map(serials)
                    .unwrap_or_default();
                let sub = (self.keys.range((d, Prefix6::default())..=(d, last)))
                    .filter(|((_, s), _)| s.len > 0)
                    .map(|((_, s), slot)| (*s, serials(&self.slots[*slot as usize].2)))
                    .filter(|(_, l)| !l.is_empty())
                    .collect();
                (d, plain, sub)
            })
            .collect();
        if let Some(tree) = &mut self.tree {
            Arc::make_mut(tree).update(states);
        }
    }
    /// Rebuild the radix tree as if the table's routes had been added in one go
    /// (shorter destinations first, plain routes before source-specific ones), so that
    /// a destination holding only source-specific routes is keyed by one of its own.
    pub fn forget_tree_history(&mut self) {
        if self.tree.is_some() {
            self.tree = Some(Arc::default());
            self.tree_touched = None;
            self.sync_tree();
        }
    }
    /// An add or change at `dst` failed after the kernel's `fib6_add_1` reached its
    /// node: a node without routes of its own is keyed anew ([`crate::fib6tree`]).
    pub fn tree_add_failed(&mut self, dst: Prefix6) {
        self.sync_tree();
        if let Some(tree) = &mut self.tree {
            // only a node without routes of its own changes: no copy of a shared tree
            // for the others
            if tree.key(dst).is_some() {
                Arc::make_mut(tree).rekey(dst);
            }
        }
    }
    /// The key the kernel's lookup compares an address with at destination `dst`, when
    /// its node holds source-specific routes and no route of its own: the prefix of
    /// the route its leaf names ([`crate::fib6tree`]); `None` when the node has routes
    /// of its own, or the table is not tracked.
    pub fn tree_key(&self, dst: Prefix6) -> Option<Prefix6> {
        self.tree.as_ref()?.key(dst)
    }
    /// The destinations changed since the last call (`None`: everything may have
    /// changed).
    pub fn take_touched(&mut self) -> Option<Vec<Prefix6>> {
        self.touched.replace(Vec::new())
    }
    /// The entries of node (dst, src).
    pub fn get(&self, dst: Prefix6, src: Prefix6) -> Option<&Vec<Route6>> {
        self.slot_of(dst, src).map(|s| &self.slots[s as usize].2)
    }
    /// The slot of node (dst, src): plain nodes through the destination records (a hash
    /// probe), source-specific ones through the ordered key map.
    #[inline]
    fn slot_of(&self, dst: Prefix6, src: Prefix6) -> Option<u32> {
        match &self.dmap {
            Some(m) if src.len == 0 && src.addr == 0 => {
                let d = *m.get(&dst)?;
                let plain = self.drecs[d as usize].1;
                (plain != NONE).then_some(plain)
            }
            _ => self.keys.get(&(dst, src)).copied(),
        }
    }
    /// The destination map, rebuilt from the live records in a copy that has none.
    fn dmap_mut(&mut self) -> &mut DestMap {
        if self.dmap.is_none() {
            let freed: std::collections::HashSet<u32> = self.dfree.iter().copied().collect();
            let m = (0..self.drecs.len() as u32)
                .filter(|d| !freed.contains(d))
                .map(|d| (self.drecs[d as usize].0, d))
                .collect();
            self.dmap = Some(m);
        }
        self.dmap.as_mut().expect("just built")
    }
    /// The nodes under destination `dst` from the key map: its plain node's slot
    /// (`NONE` if none) and whether source-specific nodes exist (`None`: no node).
    fn dest_from_keys(&self, dst: Prefix6) -> Option<(u32, bool)> {
        let last = Prefix6 {
            addr: u128::MAX,
            len: 128,
        };
        let mut nodes = self.keys.range((dst, Prefix6::default())..=(dst, last));
        let (first, s) = nodes.next()?;
        if first.1 == Prefix6::default() {
            Some((*s, nodes.next().is_some()))
        } else {
            Some((NONE, true))
        }
    }
    /// Destination `dst`: its plain node's slot (`NONE` if none) and whether
    /// source-specific nodes hang under it; `None` when no node has `dst`.
    #[inline]
    fn dest_parts(&self, dst: Prefix6) -> Option<(u32, bool)> {
        match &self.dmap {
            Some(m) => {
                let d = *m.get(&dst)?;
                let (_, plain, sub) = self.drecs[d as usize];
                Some((plain, sub > 0))
            }
            None => self.dest_from_keys(dst),
        }
    }
    /// Whether source-specific routes hang under destination `dst` (the kernel's node
    /// for `dst` has a source subtree).
    pub fn has_source_routes(&self, dst: Prefix6) -> bool {
        self.dest_parts(dst).is_some_and(|(_, sub)| sub)
    }
    /// Mutable entries of node (dst, src).
    pub fn get_mut(&mut self, dst: Prefix6, src: Prefix6) -> Option<&mut Vec<Route6>> {
        let s = self.slot_of(dst, src)?;
        self.touch(dst);
        Some(&mut Arc::make_mut(&mut self.slots[s as usize]).2)
    }
    /// Mutable entries of node (dst, src), created empty if missing ([`Table6::prune`]
    /// removes it again if it stays empty).
    pub fn entry(&mut self, dst: Prefix6, src: Prefix6) -> &mut Vec<Route6> {
        self.touch(dst);
        let s = match self.slot_of(dst, src) {
            Some(s) => s,
            None => {
                let s = match self.free.pop() {
                    Some(s) => {
                        self.slots[s as usize] = Arc::new((dst, src, Vec::new()));
                        s
                    }
                    None => {
                        self.slots.push(Arc::new((dst, src, Vec::new())));
                        (self.slots.len() - 1) as u32
                    }
                };
                self.keys.insert((dst, src), s);
                let d = match self.dmap_mut().get(&dst) {
                    Some(d) => *d,
                    None => {
                        let d = match self.dfree.pop() {
                            Some(d) => {
                                self.drecs[d as usize] = (dst, NONE, 0);
                                d
                            }
                            None => {
                                self.drecs.push((dst, NONE, 0));
                                (self.drecs.len() - 1) as u32
                            }
                        };
                        self.dmap_mut().insert(dst, d);
                        Arc::make_mut(&mut self.len_count)[usize::from(dst.len)] += 1;
                        self.builder().insert(dst.addr, dst.len, d);
                        self.dirty = true;
                        d
                    }
                };
                let rec = &mut self.drecs[d as usize];
                if src.len == 0 {
                    rec.1 = s;
                } else {
                    rec.2 += 1;
                }
                s
            }
        };
        &mut Arc::make_mut(&mut self.slots[s as usize]).2
    }
    /// The index builder (rebuilt from the destination records in a copy that never had
    /// one).
    fn builder(&mut self) -> &mut LpmBuilder<u128> {
        if self.lpm.is_none() {
            let b: LpmBuilder<u128> = self
                .dmap_mut()
                .iter()
                .map(|(p, d)| (p.addr, p.len, *d))
                .collect();
            self.lpm = Some(b);
        }
        self.lpm.as_mut().expect("just built")
    }
    /// Drop empty nodes (and destinations left without nodes).
    pub fn prune(&mut self) {
        let empty: Vec<(Prefix6, Prefix6)> = self
            .keys
            .iter()
            .filter(|(_, s)| self.slots[**s as usize].2.is_empty())
            .map(|(k, _)| *k)
            .collect();
        for (dst, src) in empty {
            self.prune_node(dst, src);
        }
    }
    /// Drop one node if it was left without entries (O(log n), unlike [`Table6::prune`]).
    pub fn prune_node(&mut self, dst: Prefix6, src: Prefix6) {
        let Some(s) = self.keys.get(&(dst, src)).copied() else {
            return;
        };
        if !self.slots[s as usize].2.is_empty() {
            return;
        }
        self.keys.remove(&(dst, src));
        self.free.push(s);
        if let Some(d) = self.dmap_mut().get(&dst).copied() {
            let rec = &mut self.drecs[d as usize];
            if src.len == 0 {
                rec.1 = NONE;
            } else {
                rec.2 -= 1;
            }
            if rec.1 == NONE && rec.2 == 0 {
                self.dmap_mut().remove(&dst);
                Arc::make_mut(&mut self.len_count)[usize::from(dst.len)] -= 1;
                self.dfree.push(d);
                self.builder().remove(dst.addr, dst.len);
                self.dirty = true;
            }
        }
    }
    /// Whether the kernel's radix tree of this table (`fib6_add_1`) holds a node exactly
    /// at destination `dst` and, for `src.len > 0`, one at `src` in that node's source
    /// subtree. The tree is a path-compressed binary trie, so its nodes are the roots
    /// (`::/0` of the table, of each subtree), the prefixes holding routes (or, for a
    /// destination, source-specific routes), and the branch points: a prefix whose
    /// two halves both hold longer stored prefixes. An `ip -6 route change` (replace
    /// without create) that finds no route fails with ENOENT in both cases, with an
    /// extended-ack message only when the node is missing.
    pub fn kernel_node_exists(&self, dst: Prefix6, src: Prefix6) -> bool {
        let dst_here = dst.len == 0
            || self.dest_parts(dst).is_some()
            || both_halves(dst, |a, b| {
                self.keys
                    .range((a, Prefix6::default())..)
                    .map(|((d, _), _)| *d)
                    .take_while(|d| *d < b)
                    .any(|d| d.len > dst.len)
            });
        if !dst_here || src.len == 0 {
            return dst_here;
        }
        let under = |a: Prefix6, b: Prefix6| {
            self.keys
                .range((dst, a)..)
                .take_while(|((d, s), _)| *d == dst && *s < b)
                .any(|((_, s), _)| s.len > src.len)
        };
        self.keys.contains_key(&(dst, src)) || both_halves(src, under)
    }

    /// Apply `f` to every node's entries, then [`Table6::prune`].
    pub fn for_each_list_mut(&mut self, mut f: impl FnMut(&mut Vec<Route6>)) {
        self.touched = None;
        self.tree_touched = None;
        for s in self.keys.values() {
            change_shared(&mut self.slots[*s as usize], |node| f(&mut node.2));
        }
        self.prune();
    }
    /// Every node's entries.
    pub fn lists(&self) -> impl Iterator<Item = &Vec<Route6>> {
        self.keys.values().map(move |s| &self.slots[*s as usize].2)
    }
    /// The destination prefixes that have nodes.
    pub fn dsts(&self) -> impl Iterator<Item = Prefix6> + '_ {
        let from_map = self.dmap.as_ref().map(|m| m.keys().copied());
        // a copy without the map: the key map, whose nodes of one destination are
        // adjacent
        let from_keys = self.dmap.is_none().then(|| {
            let mut prev: Option<Prefix6> = None;
            self.keys.keys().map(|(d, _)| *d).filter(move |d| {
                let new = prev != Some(*d);
                prev = Some(*d);
                new
            })
        });
        from_map
            .into_iter()
            .flatten()
            .chain(from_keys.into_iter().flatten())
    }

    /// Whether some destination of prefix length `len` has nodes.
    #[inline]
    pub fn has_len(&self, len: u8) -> bool {
        self.len_count.get(usize::from(len)).is_some_and(|c| *c > 0)
    }
    /// Whether some node has destination `dst`.
    pub fn has_dst(&self, dst: Prefix6) -> bool {
        match &self.dmap {
            Some(m) => m.contains_key(&dst),
            None => self.dest_from_keys(dst).is_some(),
        }
    }
    /// `f(destination)` for each destination with nodes inside `p` (`p` included), in
    /// no particular order.
    pub fn dsts_within_each(&self, p: Prefix6, mut f: impl FnMut(Prefix6)) {
        if let Some(b) = &self.lpm {
            b.within_each(p.addr, p.len, |addr, len, _| f(Prefix6 { addr, len }));
            return;
        }
        let last = p.addr | (u128::MAX.checked_shr(u32::from(p.len)).unwrap_or(0));
        let hi = Prefix6 {
            addr: last,
            len: 128,
        };
        let top = Prefix6 {
            addr: u128::MAX,
            len: 128,
        };
        let mut prev: Option<Prefix6> = None;
        for ((d, _), _) in self.keys.range((p, Prefix6::default())..=(hi, top)) {
            if d.len >= p.len && p.covers(d) && prev != Some(*d) {
                f(*d);
                prev = Some(*d);
            }
        }
    }

    /// Whether a destination longer than `p` has nodes inside it. Cheap on a compiled
    /// table: the index maps each destination to its own record, so one is inside
    /// exactly when the index's answers inside `p` are not all one (a walk of the
    /// compact index to the node holding `p`, no search of the builder).
    pub fn has_dsts_inside(&self, p: Prefix6) -> bool {
        if !self.dirty {
            if let Some(uniform) = self.index.is_uniform(p.addr, p.len) {
                return !uniform;
            }
        }
        let mut inside = false;
        self.dsts_within_each(p, |q| inside |= q.len > p.len);
        inside
    }

    /// The length of the longest destination with nodes covering `p` (`p` included).
    pub fn longest_cover(&self, p: Prefix6) -> Option<u8> {
        if self.has_dst(p) {
            return Some(p.len);
        }
        self.longest_cover_below(p)
    }

    /// The length of the longest destination with nodes strictly covering `p`.
    pub fn longest_cover_below(&self, p: Prefix6) -> Option<u8> {
        (0..p.len)
            .rev()
            .filter(|l| self.has_len(*l))
            .find(|l| self.has_dst(Prefix6::new(p.addr, *l)))
    }

    /// Destination `dst` in one probe: its plain node's entries (if any) and whether
    /// source-specific nodes hang under it; `None` when no node has `dst`.
    #[inline]
    pub fn dest(&self, dst: Prefix6) -> Option<(Option<&Vec<Route6>>, bool)> {
        let (plain, sub) = self.dest_parts(dst)?;
        let list = (plain != NONE).then(|| &self.slots[plain as usize].2);
        Some((list, sub))
    }
    /// Whether source-specific nodes hang under `dst`.
    pub fn has_subtree(&self, dst: Prefix6) -> bool {
        self.dest_parts(dst).is_some_and(|(_, sub)| sub)
    }
    /// Bring the index up to date.
    pub fn compile(&mut self) {
        if self.dirty {
            self.index = self.builder().snapshot();
            self.dirty = false;
        }
    }
    /// Whether the index reflects every change.
    pub fn is_compiled(&self) -> bool {
        !self.dirty
    }
    /// The longest destination prefix with nodes covering `dst`, from the index, with its
    /// plain node's entries (if any) and whether it has a source-specific subtree.
    /// Only meaningful when [`Table6::is_compiled`].
    pub fn longest(&self, dst: u128) -> Option<(Prefix6, Option<&Vec<Route6>>, bool)> {
        let d = self.index.lookup(dst);
        if d == fibkit_lpm::NO_MATCH {
            return None;
        }
        let (p, plain, sub) = self.drecs[d as usize];
        let list = (plain != NONE).then(|| &self.slots[plain as usize].2);
        Some((p, list, sub > 0))
    }
    /// The compiled index.
    pub fn index(&self) -> &Lpm<u128> {
        &self.index
    }
    /// All entries in the kernel's dump order (a post-order walk of the radix tree:
    /// more specific prefixes before the prefixes that cover them, a node's source
    /// subtree before both).
    pub fn dump_order(&self) -> Vec<&Route6> {
        let mut keys: Vec<&(Prefix6, Prefix6)> = self
            .keys
            .iter()
            .filter(|(_, s)| !self.slots[**s as usize].2.is_empty())
            .map(|(k, _)| k)
            .collect();
        // fib6_walk_continue visits a node's source subtree first (FWS_S), then its
        // left and right children, then its own routes: a destination's
        // source-specific routes come before everything it covers, its plain routes
        // after (conformance scenario 197)
        keys.sort_by(|&&(da, sa), &&(db, sb)| {
            use std::cmp::Ordering::*;
            let (sub_a, sub_b) = (sa.len != 0, sb.len != 0);
            if da == db {
                return match (sub_a, sub_b) {
                    (false, false) => Equal,
                    (false, true) => Greater,
                    (true, false) => Less,
                    (true, true) => postorder_cmp(sa, sb),
                };
            }
            if da.covers(&db) {
                return if sub_a { Less } else { Greater };
            }
            if db.covers(&da) {
                return if sub_b { Greater } else { Less };
            }
            da.addr.cmp(&db.addr)
        });
        keys.into_iter()
            .flat_map(|k| self.slots[self.keys[k] as usize].2.iter())
            .collect()
    }
}

/// The messages of an IPv6 route dump (`fib6_dump_node`) over entries in walk order:
/// an entry with siblings is one message carrying all of them (`rt6_fill_node`'s
/// `RTA_MULTIPATH`, the node's legs in order), and the walk then jumps to the last of
/// those siblings, so an entry of the same node between the first and the last leg (a
/// reject route appended before the last leg joined) is in no message.
pub fn fib6_dump_messages<'a>(order: &[&'a Route6]) -> Vec<Vec<&'a Route6>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&r) = order.get(i) {
        if r.sibling_group == 0 {
            out.push(vec![r]);
            i += 1;
            continue;
        }
        let same =
            |x: &Route6| x.dst == r.dst && x.src == r.src && x.sibling_group == r.sibling_group;
        let legs: Vec<&Route6> = order[i..].iter().copied().filter(|x| same(x)).collect();
        let last = order[i..]
            .iter()
            .rposition(|x| same(x))
            .map_or(i, |k| i + k);
        out.push(legs);
        i = last + 1;
    }
    out
}

/// Post-order comparison of two prefixes: a prefix sorts after every prefix it covers;
/// disjoint prefixes sort by address.
pub fn postorder_cmp(a: Prefix6, b: Prefix6) -> std::cmp::Ordering {
    use std::cmp::Ordering::*;
    if a == b {
        return Equal;
    }
    if a.covers(&b) {
        return Greater;
    }
    if b.covers(&a) {
        return Less;
    }
    a.addr.cmp(&b.addr)
}

/// Whether both halves of `p` (bit `p.len` clear, set) hold a stored prefix, asked of
/// `any_in(from, to)`: is there a stored prefix longer than `p` with `from <= it < to`
/// (prefixes ordered by address, then length).
fn both_halves(p: Prefix6, any_in: impl Fn(Prefix6, Prefix6) -> bool) -> bool {
    if p.len >= 128 {
        return false;
    }
    let half = 1u128 << (127 - p.len);
    let mid = p.addr | half;
    let left = any_in(
        Prefix6 {
            addr: p.addr,
            len: p.len + 1,
        },
        Prefix6 { addr: mid, len: 0 },
    );
    // the right half ends where p ends: the next address after p's last, or the
    // end of the address space
    let right = match (mid | (half - 1)).checked_add(1) {
        Some(end) => any_in(Prefix6 { addr: mid, len: 0 }, Prefix6 { addr: end, len: 0 }),
        None => any_in(
            Prefix6 { addr: mid, len: 0 },
            Prefix6 {
                addr: u128::MAX,
                len: u8::MAX,
            },
        ),
    };
    left && right
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_walk_skips_empty_lengths() {
        let mut c = LenCount::default();
        assert_eq!(c.longest_upto(32), None);
        for l in [0, 8, 24, 24, 32] {
            c.add(l);
        }
        assert_eq!(c.longest_upto(32), Some(32));
        assert_eq!(c.longest_upto(31), Some(24));
        assert_eq!(c.longest_upto(24), Some(24));
        assert_eq!(c.longest_upto(23), Some(8));
        assert_eq!(c.longest_upto(7), Some(0));
        c.sub(24);
        assert_eq!(c.longest_upto(31), Some(24), "one /24 left");
        c.sub(24);
        assert_eq!(c.longest_upto(31), Some(8));
        c.sub(0);
        assert_eq!(c.longest_upto(7), None);
        // the walk over a table visits every length holding a match, longest first
        let mut t = Table4::default();
        for (a, l) in [
            (0u32, 0u8),
            (0x0a00_0000, 8),
            (0x0a01_0000, 16),
            (0x0a01_0200, 24),
        ] {
            t.entry(Prefix4::new(a, l));
        }
        let lens: Vec<u8> = t.matches(0x0a01_0203).map(|(p, _)| p.len).collect();
        assert_eq!(lens, [24, 16, 8, 0]);
        let lens: Vec<u8> = t
            .matches_from(0x0a01_0203, 15)
            .map(|(p, _)| p.len)
            .collect();
        assert_eq!(lens, [8, 0]);
    }

    fn p6(i: u32) -> Prefix6 {
        Prefix6::new((0x2001_0db8u128 << 96) | (u128::from(i) << 64), 64)
    }

    fn route6(dst: Prefix6, src: Prefix6) -> Route6 {
        use crate::route::{Metrics, Nh6, Pref, RouteSerial, RouteType};
        Route6 {
            dst,
            src,
            rtype: RouteType::Unicast,
            table: 254,
            proto: 3,
            metric: 1024,
            pref: Pref::Medium,
            prefsrc: None,
            flags: 0,
            metrics: Metrics::default(),
            expires: None,
            nh: Nh6 {
                gw: None,
                dev: 2,
                weight: 1,
                flags: 0,
                encap: None,
            },
            nh_id: 0,
            sibling_group: 0,
            nh_own_type: None,
            serial: RouteSerial::next(),
        }
    }

    /// A destination keyed by its child after its own route went is keyed by its own
    /// source route again once the history is forgotten (what a mirror does).
    #[test]
    fn forgetting_the_history_keys_nodes_by_their_own_routes() {
        let d = Prefix6::new(0x2001_0db8_0010u128 << 80, 48);
        let child = Prefix6::new(0x2001_0db8_0010_0005u128 << 64, 64);
        let src = Prefix6::new(0x2001_0db8_0000_0001u128 << 64, 64);
        let mut t = Table6::new(254);
        for (dst, s) in [
            (d, src),
            (d, Prefix6::default()),
            (child, Prefix6::default()),
        ] {
            t.entry(dst, s).push(route6(dst, s));
            t.sync_tree();
        }
        assert_eq!(t.tree_key(d), None, "a node with a route of its own");
        t.get_mut(d, Prefix6::default()).expect("plain").clear();
        t.prune_node(d, Prefix6::default());
        t.sync_tree();
        assert_eq!(t.tree_key(d), Some(child));
        t.forget_tree_history();
        assert_eq!(t.tree_key(d), Some(d));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// The radix tree replayed after each change and the branch points derived
        /// from the key map agree on where the kernel's tree has nodes, and the tree's
        /// destinations with routes are the table's.
        #[test]
        fn the_tree_and_the_key_map_agree_on_the_kernels_nodes(
            ops in proptest::collection::vec((0usize..12, 0usize..3, proptest::bool::ANY), 1..80)
        ) {
            let dsts: Vec<Prefix6> = [
                (0x2001_0db8u128 << 96, 32u8), (0x2001_0db8u128 << 96, 48), (0x2001_0db8_0001u128 << 80, 48),
                (0x2001_0db8_0001_0001u128 << 64, 64), (0x2001_0db8_0001_0002u128 << 64, 64),
                (0x2001_0db8_0002_0008u128 << 64, 64), (0, 0), (0x2001_0db8u128 << 96 | 1, 128),
                (0x2001_0db8_0001_0003u128 << 64, 64), (0x8000u128 << 112, 1),
                // branch points of the prefixes above (and routes of their own)
                (0x2001_0db8_0001u128 << 80, 62), (0x2001_0db8u128 << 96, 47),
            ].into_iter().map(|(a, l)| Prefix6::new(a, l)).collect();
            let srcs = [Prefix6::default(), Prefix6::new(0x2001_0db8_0000_0001u128 << 64, 64), Prefix6::new(0, 1)];
            let mut t = Table6::new(254);
            for (d, s, add) in ops {
                let (dst, src) = (dsts[d], srcs[s]);
                if add {
                    t.entry(dst, src).push(route6(dst, src));
                } else if let Some(l) = t.get_mut(dst, src) {
                    l.pop();
                    t.prune_node(dst, src);
                }
                t.sync_tree();
                let tree = t.tree.as_ref().expect("a small table is tracked");
                for p in &dsts {
                    proptest::prop_assert_eq!(tree.has_node(*p), t.kernel_node_exists(*p, Prefix6::default()), "{}", p);
                }
                let mut mine: Vec<Prefix6> = t.dsts().collect();
                let mut its = tree.route_dsts();
                mine.sort_unstable();
                its.sort_unstable();
                proptest::prop_assert_eq!(mine, its);
            }
        }
    }

    /// The change lists are kept (so that a publication recompiles only what changed)
    /// up to a share of the table's size: a quarter for IPv4, the whole size for IPv6,
    /// whose incremental recompile stays cheaper than a full one that far (a list
    /// dropped too early made every publication of a 100k batch a full recompile).
    #[test]
    fn change_lists_kept_up_to_their_share() {
        let n = 20_000u32;
        let mut t6 = Table6::new(254);
        for i in 0..n {
            t6.entry(p6(i), Prefix6::default());
        }
        // the load itself went past the share: everything may have changed
        assert_eq!(t6.take_touched(), None);
        for i in 0..n {
            t6.entry(p6(i), Prefix6::default());
        }
        assert_eq!(t6.take_touched().map(|v| v.len()), Some(n as usize));
        for i in 0..=n {
            t6.entry(p6(i % n), Prefix6::default());
        }
        assert_eq!(t6.take_touched(), None, "past the table's size");

        let mut t4 = Table4::new(254);
        let p4 = |i: u32| Prefix4::new(0x0a00_0000 | (i << 8), 24);
        for i in 0..n {
            t4.entry(p4(i));
        }
        assert_eq!(t4.take_touched(), None);
        for i in 0..n / 4 {
            t4.entry(p4(i));
        }
        assert_eq!(t4.take_touched().map(|v| v.len()), Some(n as usize / 4));
        for i in 0..=n / 4 {
            t4.entry(p4(i));
        }
        assert_eq!(t4.take_touched(), None, "past a quarter of the table");
    }
}
