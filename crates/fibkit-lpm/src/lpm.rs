//! The immutable side: [`Lpm`] snapshots and their lookups.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::key::{Key, PATH_SPENT};
use crate::paged::View;
use crate::prefetch::{prefetch, with_popcnt, Kernel};
use crate::{DepthStats, Node, Top, TopEntry, TopRef, Words, NODE_WORDS};

/// The arrays of one snapshot (`E`: the key type's top-level entries).
pub(crate) struct Inner<E: TopEntry> {
    pub(crate) top: Top<E>,
    pub(crate) words: Words,
    pub(crate) stats: DepthStats,
    pub(crate) len: usize,
}

impl<E: TopEntry> Inner<E> {
    /// Checks the invariant the lookups' unchecked reads rely on (`prefetch.rs`):
    /// the top level has `2^top_bits` entries, and every offset reachable from it
    /// (leaf values, node blocks and their children and leaves) lies inside the
    /// words, each node block inside one page, and a node's first leaf slot starts
    /// a run (so a leaf slot's run count is at least 1). Consecutive top-level pages
    /// sharing one allocation are read once; the cost follows the reachable nodes.
    #[cfg(any(debug_assertions, test))]
    pub(crate) fn check_offsets(&self, top_bits: u32) -> Result<(), String> {
        if self.top.len() != 1 << top_bits {
            return Err(format!("top level of {} entries", self.top.len()));
        }
        let len = self.words.len();
        let leaves = |first: usize, n: usize| -> Result<(), String> {
            match first.checked_add(n) {
                Some(end) if end <= len => Ok(()),
                _ => Err(format!("{n} leaves from {first}, {len} words")),
            }
        };
        let block = |first: usize, n: usize| -> Result<(), String> {
            leaves(first, n * NODE_WORDS)?;
            if first % crate::WORD_PAGE + n * NODE_WORDS > crate::WORD_PAGE {
                return Err(format!("block of {n} nodes at {first} crosses a page"));
            }
            Ok(())
        };
        let mut stack = Vec::new();
        let node_at = |o: usize, stack: &mut Vec<usize>| -> Result<(), String> {
            block(o, 1)?;
            stack.push(o);
            while let Some(o) = stack.pop() {
                let n = Node::from_words(self.words.get_array(o));
                // a leaf slot's run count is at least 1: the first leaf slot
                // starts a run
                let first_leaf = (!n.vec).trailing_zeros();
                if first_leaf < 64 && n.leafvec & (1 << first_leaf) == 0 {
                    return Err(format!("node at {o}: its first leaf slot starts no run"));
                }
                if n.vec != 0 {
                    let kids = n.vec.count_ones() as usize;
                    block(n.child as usize, kids)?;
                    stack.extend((0..kids).map(|k| n.child as usize + k * NODE_WORDS));
                }
                leaves(n.leaf as usize, n.leafvec.count_ones() as usize)?;
            }
            Ok(())
        };
        let view = self.top.view();
        let mut last = None;
        for (pi, page) in view.pages.iter().enumerate() {
            let p = Arc::as_ptr(page);
            if last == Some(p) {
                continue;
            }
            last = Some(p);
            for (k, e) in page.0.iter().enumerate() {
                match e.get() {
                    TopRef::Leaf(o) => leaves(o, 1),
                    TopRef::Inline(lv, _) if lv & 1 == 0 => {
                        Err("an entry's first slot starts no run".to_string())
                    }
                    TopRef::Inline(lv, leaf) => leaves(leaf as usize, lv.count_ones() as usize),
                    TopRef::Node(o) => node_at(o, &mut stack),
                }
                .map_err(|m| format!("top-level entry {}: {m}", pi * crate::TOP_PAGE + k))?;
            }
        }
        Ok(())
    }
}

/// An immutable longest-prefix-match index (a snapshot of an
/// [`LpmBuilder`](crate::LpmBuilder)).
///
/// Cheap to clone (one `Arc`), `Send + Sync`; lookups take no lock, do no
/// allocation and touch no reference count.
pub struct Lpm<K: Key> {
    inner: Arc<Inner<K::Top>>,
    _k: PhantomData<fn(K) -> K>,
}

impl<K: Key> Clone for Lpm<K> {
    fn clone(&self) -> Self {
        Lpm {
            inner: Arc::clone(&self.inner),
            _k: PhantomData,
        }
    }
}

impl<K: Key> Default for Lpm<K> {
    /// An index with no prefix: every lookup returns [`NO_MATCH`](crate::NO_MATCH).
    fn default() -> Self {
        Self::empty()
    }
}

impl<K: Key> core::fmt::Debug for Lpm<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lpm")
            .field("len", &self.inner.len)
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// A node's words (see [`crate::Node::to_words`]).
type NodeWords = [u32; NODE_WORDS];

static DUMMY_NODE: NodeWords = [0; NODE_WORDS];
static DUMMY_LEAF: u32 = crate::NO_MATCH;

/// Lookups walked in lockstep by [`Lpm::lookup_batch`] (at most 64).
const GROUP: usize = 32;

impl<K: Key> Lpm<K> {
    pub(crate) fn from_inner(inner: Arc<Inner<K::Top>>) -> Self {
        Lpm {
            inner,
            _k: PhantomData,
        }
    }

    /// An index with no prefix: every lookup returns [`NO_MATCH`](crate::NO_MATCH).
    pub fn empty() -> Self {
        let mut words = Words::new();
        words.push(crate::NO_MATCH);
        Self::from_inner(Arc::new(Inner {
            top: Top::filled(1usize << K::TOP_BITS, K::Top::leaf(0)),
            words,
            stats: DepthStats::default(),
            len: 0,
        }))
    }

    /// Number of prefixes in this snapshot.
    pub fn len(&self) -> usize {
        self.inner.len
    }

    /// Whether this snapshot holds no prefix.
    pub fn is_empty(&self) -> bool {
        self.inner.len == 0
    }

    /// The value of the longest prefix containing `addr`, or
    /// [`NO_MATCH`](crate::NO_MATCH).
    #[inline]
    pub fn lookup(&self, addr: K) -> u32 {
        // the view is made inside the popcount-enabled code, from the snapshot
        // (handing a made view over costs a lookup loop its stores and reloads)
        with_popcnt(SnapshotWalk { lpm: self, addr })
    }

    /// The snapshot's arrays resolved once for a run of single lookups: a loop
    /// looking up through a view keeps the arrays' page tables at hand instead of
    /// finding them through the snapshot at every lookup.
    #[inline]
    pub fn view(&self) -> LpmView<'_, K> {
        LpmView {
            top: self.inner.top.view(),
            words: self.inner.words.view(),
        }
    }

    /// [`Lpm::walk`], telling `read` the address and size of each dependent read
    /// (nothing for the lookups: the closure compiles away; the cache lines for
    /// [`Lpm::trace_lines`]).
    #[inline(always)]
    fn walk_reading(&self, addr: K, mut read: impl FnMut(usize, usize)) -> u32 {
        fn at<T>(r: &T) -> usize {
            core::ptr::from_ref(r) as usize
        }
        let inner = &*self.inner;
        let words = inner.words.view();
        let e = inner.top.view().trusted_ref(addr.top_index());
        read(at(e), core::mem::size_of::<K::Top>());
        let mut ni = match e.get() {
            TopRef::Node(o) => o,
            TopRef::Inline(lv, leaf) => {
                let r = words.trusted_ref(leaf_at(lv, leaf, (addr.walk_path() >> 58) as u32));
                read(at(r), 4);
                return *r;
            }
            TopRef::Leaf(o) => {
                let r = words.trusted_ref(o);
                read(at(r), 4);
                return *r;
            }
        };
        let mut path = addr.walk_path();
        loop {
            let n = words.trusted_array(ni);
            read(at(n), core::mem::size_of::<NodeWords>());
            let slot = (path >> 58) as u32;
            path <<= 6;
            match step(n, slot) {
                Step::Child(c) => {
                    ni = c;
                    if path == PATH_SPENT {
                        path = addr.walk_path_rest();
                    }
                }
                Step::Leaf(l) => {
                    let r = words.trusted_ref(l);
                    read(at(r), 4);
                    return *r;
                }
            }
        }
    }

    /// Looks up every address of `addrs` into the same position of `out`,
    /// with the same answers as [`lookup`](Self::lookup).
    ///
    /// The addresses are walked in groups of 32 in lockstep, one level at a
    /// time, three groups in flight one stage apart (top-level entries, then
    /// nodes, then leaves): each lookup prefetches what it needs next, and
    /// the work on the other groups gives it time to arrive, so that the
    /// cache misses overlap. Long slices keep the pipeline full.
    /// Only the first `min(addrs.len(), out.len())` positions are processed.
    pub fn lookup_batch(&self, addrs: &[K], out: &mut [u32]) {
        let n = addrs.len().min(out.len());
        let (addrs, out) = (&addrs[..n], &mut out[..n]);
        self.lookup_batch_with(addrs, |i, v| out[i] = v);
    }

    /// [`lookup_batch`](Self::lookup_batch) handing each answer to `visit(i, value)`
    /// (for `addrs[i]`) as soon as its group's leaves are read, in order, instead of
    /// storing it: a caller mapping values to something else does so inside the
    /// walk's pipeline, on one call for the whole slice, with no buffer between.
    pub fn lookup_batch_with(&self, addrs: &[K], visit: impl FnMut(usize, u32)) {
        with_popcnt(Batch {
            lpm: self,
            items: addrs,
            key: |k: &K| *k,
            visit,
        });
    }

    /// [`lookup_batch_with`](Self::lookup_batch_with) over the addresses `key` reads
    /// from `items` (a packet's destination, a flow's), without copying them out
    /// first: `visit(i, value)` for the address of `items[i]`, in order.
    ///
    /// `key` is called more than once per item and must give the same address each
    /// time; one that does not gets some prefix's value (or none), never a read
    /// outside the index: the walks' reads depend only on the index's own offsets.
    pub fn lookup_batch_by<T>(
        &self,
        items: &[T],
        key: impl Fn(&T) -> K,
        visit: impl FnMut(usize, u32),
    ) {
        with_popcnt(Batch {
            lpm: self,
            items,
            key,
            visit,
        });
    }

    /// [`lookup_batch`](Self::lookup_batch) with groups of `G` lanes (1..=64), for
    /// measuring the group size (`lpm_bench ... groups`).
    #[doc(hidden)]
    pub fn lookup_batch_groups<const G: usize>(&self, addrs: &[K], out: &mut [u32]) {
        let n = addrs.len().min(out.len());
        let (addrs, out) = (&addrs[..n], &mut out[..n]);
        with_popcnt(BatchG::<K, _, G> {
            lpm: self,
            addrs,
            visit: |i, v| out[i] = v,
        });
    }

    #[inline(always)]
    fn batch_g<const GROUP: usize, T>(
        &self,
        a: &[T],
        key: impl Fn(&T) -> K,
        mut visit: impl FnMut(usize, u32),
    ) {
        const { assert!(GROUP >= 1 && GROUP <= 64) };
        let inner = &*self.inner;
        // views: the page tables' addresses and lengths stay in registers
        let (top, words) = (inner.top.view(), inner.words.view());
        let n = a.len();
        let groups = n.div_ceil(GROUP);
        // Three groups in flight, one stage apart: group t reads its top-level
        // entries (prefetched one iteration earlier) and prefetches its first
        // nodes; group t-1 walks its nodes and prefetches its leaves; group
        // t-2 reads its leaves. Every dependent load was asked for one whole
        // iteration (three groups of work) before it is needed.
        let mut st: [Lanes<'_, GROUP>; 3] = [Lanes::new(), Lanes::new(), Lanes::new()];
        for k in a.iter().take(GROUP) {
            prefetch(top.trusted_ref(key(k).top_index()));
        }
        for t in 0..groups + 2 {
            if t >= 2 {
                let s = &st[(t - 2) % 3];
                for (i, &r) in s.leaf_ref[..s.m].iter().enumerate() {
                    visit(s.base + i, *r);
                }
            }
            if (1..=groups).contains(&t) {
                let s = &mut st[(t - 1) % 3];
                // Node levels, all pending lanes at the same level, so the slot
                // is read from each lane's path at the level's shift (no path
                // written back), and the ten slots of a path run out for all of
                // them at once (IPv6 walks below /84).
                let mut level = 0u32;
                while s.pending != 0 {
                    if level == 10 {
                        let mut p = s.pending;
                        while p != 0 {
                            let i = p.trailing_zeros() as usize;
                            p &= p - 1;
                            s.path[i] = key(&a[s.base + i]).walk_path_rest();
                        }
                        level = 0;
                    }
                    let sh = 6 * level;
                    level += 1;
                    let mut p = s.pending;
                    while p != 0 {
                        let i = p.trailing_zeros() as usize;
                        p &= p - 1;
                        let slot = ((s.path[i] << sh) >> 58) as u32;
                        match step(s.node_ref[i], slot) {
                            Step::Child(c) => {
                                let r = words.trusted_array(c);
                                // a 24-byte node crosses a cache line in 5 of
                                // its 16 possible word positions: ask for both
                                prefetch(r);
                                prefetch(&r[NODE_WORDS - 1]);
                                s.node_ref[i] = r;
                            }
                            Step::Leaf(l) => {
                                let r = words.trusted_ref(l);
                                prefetch(r);
                                s.leaf_ref[i] = r;
                                s.pending &= !(1 << i);
                            }
                        }
                    }
                }
            }
            if t < groups {
                let base = t * GROUP;
                let m = (n - base).min(GROUP);
                let s = &mut st[t % 3];
                s.base = base;
                s.m = m;
                s.pending = 0;
                for (i, k) in a[base..base + m].iter().enumerate() {
                    match top.trusted_ref(key(k).top_index()).get() {
                        TopRef::Node(o) => {
                            let r = words.trusted_array(o);
                            prefetch(r);
                            prefetch(&r[NODE_WORDS - 1]);
                            s.node_ref[i] = r;
                            s.path[i] = key(k).walk_path();
                            s.pending |= 1 << i;
                        }
                        TopRef::Inline(lv, leaf) => {
                            // the node is the entry: straight to its leaf
                            let slot = (key(k).walk_path() >> 58) as u32;
                            let r = words.trusted_ref(leaf_at(lv, leaf, slot));
                            prefetch(r);
                            s.leaf_ref[i] = r;
                        }
                        TopRef::Leaf(o) => {
                            let r = words.trusted_ref(o);
                            prefetch(r);
                            s.leaf_ref[i] = r;
                        }
                    }
                }
                // Prefetch the next group's top-level entries.
                for k in a[base + m..].iter().take(GROUP) {
                    prefetch(top.trusted_ref(key(k).top_index()));
                }
            }
        }
    }

    /// The cache lines (address / 64) a single lookup of `addr` reads, page tables
    /// aside, each with the number of the dependent read it belongs to (0: the
    /// top-level entry, then one per node, then the leaf; a read spanning two lines
    /// pushes both with one number). For cache simulations (`examples/lpm_cachesim.rs`).
    #[doc(hidden)]
    pub fn trace_lines(&self, addr: K, lines: &mut Vec<(usize, u8)>) {
        let mut k = 0u8;
        self.walk_reading(addr, |a, n| {
            for l in a / 64..=(a + n - 1) / 64 {
                lines.push((l, k));
            }
            k += 1;
        });
    }

    /// Whether every address inside `addr/len` gets the same answer: `Some(true)` or
    /// `Some(false)` from a walk to the node holding the prefix, `None` when the
    /// prefix spans more than 64 top-level entries (too wide to tell cheaply).
    ///
    /// With a distinct value per stored prefix, `Some(false)` means exactly that a
    /// prefix longer than `len` is stored inside `addr/len`.
    pub fn is_uniform(&self, addr: K, len: u8) -> Option<bool> {
        let inner = &*self.inner;
        let len = u32::from(len).min(K::BITS);
        let addr = addr.mask(len as u8);
        let ti = addr.top_index();
        if len <= K::TOP_BITS {
            let span = K::TOP_BITS - len;
            if span > 6 {
                return None;
            }
            // the entries of the prefix: all leaves, of one value
            let mut first = None;
            for i in ti..ti + (1usize << span) {
                let TopRef::Leaf(o) = inner.top.get(i).get() else {
                    return Some(false);
                };
                let v = inner.words.get(o);
                if *first.get_or_insert(v) != v {
                    return Some(false);
                }
            }
            return Some(true);
        }
        let mut n = match inner.top.get(ti).get() {
            TopRef::Node(o) => Node::from_words(inner.words.get_array(o)),
            TopRef::Inline(leafvec, leaf) => Node {
                vec: 0,
                leafvec,
                child: 0,
                leaf,
            },
            // inside one top-level leaf
            TopRef::Leaf(_) => return Some(true),
        };
        let mut start = K::TOP_BITS;
        while len > start + 6 {
            match step_node(n, addr.slot(start)) {
                Step::Child(c) => n = Node::from_words(inner.words.get_array(c)),
                // inside one leaf slot
                Step::Leaf(_) => return Some(true),
            }
            start += 6;
        }
        // the prefix covers 2^(6-r) slots of this node from `lo`
        let r = len - start;
        let lo = addr.slot(start);
        let count = 1u32 << (6 - r);
        let range = if count == 64 {
            u64::MAX
        } else {
            ((1u64 << count) - 1) << lo
        };
        // no child slot inside, and no leaf run starting after the first slot (with no
        // child slot in between, a run start means a new value)
        Some(n.vec & range == 0 && n.leafvec & range & !(1u64 << lo) == 0)
    }

    /// Bytes of the index structure of this snapshot: the distinct pages of
    /// the top-level and word (node and leaf) arrays, their page tables and the
    /// snapshot header. Pages shared with other snapshots are counted in
    /// full; superseded blocks not yet compacted away are included.
    pub fn memory_bytes(&self) -> usize {
        let i = &*self.inner;
        core::mem::size_of::<Inner<K::Top>>() + i.top.memory_bytes() + i.words.memory_bytes()
    }

    /// Depth statistics of the stored prefixes (see [`DepthStats`]).
    pub fn depth_stats(&self) -> DepthStats {
        self.inner.stats
    }
}

/// An [`Lpm`] snapshot's arrays, resolved for single lookups ([`Lpm::view`]).
/// `Copy`; it borrows the snapshot.
pub struct LpmView<'a, K: Key> {
    top: View<'a, K::Top, { crate::TOP_PAGE }>,
    words: View<'a, u32, { crate::WORD_PAGE }>,
}

impl<K: Key> Clone for LpmView<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: Key> Copy for LpmView<'_, K> {}

impl<K: Key> LpmView<'_, K> {
    /// The value of the longest prefix containing `addr`, or
    /// [`NO_MATCH`](crate::NO_MATCH) (the same as [`Lpm::lookup`]).
    #[inline]
    pub fn lookup(self, addr: K) -> u32 {
        with_popcnt(Walk { view: self, addr })
    }

    /// The single lookup's walk: [`Lpm::walk_reading`]'s answer, reading the page
    /// table of the words only when a child or leaf lies in another page than the
    /// node before it (the builder lays a subtree out in order, so most steps stay
    /// in their page): each level is then one dependent load.
    #[inline(always)]
    fn walk(self, addr: K) -> u32 {
        let words = self.words;
        let mut ni = match self.top.trusted_ref(addr.top_index()).get() {
            TopRef::Node(o) => o,
            TopRef::Inline(lv, leaf) => {
                return *words.trusted_ref(leaf_at(lv, leaf, (addr.walk_path() >> 58) as u32));
            }
            TopRef::Leaf(o) => return *words.trusted_ref(o),
        };
        let mut page = words.trusted_page(ni);
        let mut path = addr.walk_path();
        loop {
            let n = page.array::<NODE_WORDS>(ni);
            let slot = (path >> 58) as u32;
            path <<= 6;
            match step(n, slot) {
                Step::Child(c) => {
                    ni = c;
                    if c / crate::WORD_PAGE != page.index {
                        page = words.trusted_page(c);
                    }
                    if path == PATH_SPENT {
                        path = addr.walk_path_rest();
                    }
                }
                Step::Leaf(l) => {
                    if l / crate::WORD_PAGE != page.index {
                        page = words.trusted_page(l);
                    }
                    return *page.at(l);
                }
            }
        }
    }
}

struct Walk<'a, K: Key> {
    view: LpmView<'a, K>,
    addr: K,
}

struct SnapshotWalk<'a, K: Key> {
    lpm: &'a Lpm<K>,
    addr: K,
}

impl<K: Key> Kernel for SnapshotWalk<'_, K> {
    type Out = u32;
    #[inline(always)]
    fn run(self) -> u32 {
        self.lpm.view().walk(self.addr)
    }
}

impl<K: Key> Kernel for Walk<'_, K> {
    type Out = u32;
    #[inline(always)]
    fn run(self) -> u32 {
        self.view.walk(self.addr)
    }
}

struct Batch<'a, K: Key, T, P, F> {
    lpm: &'a Lpm<K>,
    items: &'a [T],
    key: P,
    visit: F,
}

impl<K: Key, T, P: Fn(&T) -> K, F: FnMut(usize, u32)> Kernel for Batch<'_, K, T, P, F> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        self.lpm
            .batch_g::<GROUP, T>(self.items, self.key, self.visit);
    }
}

struct BatchG<'a, K: Key, F, const G: usize> {
    lpm: &'a Lpm<K>,
    addrs: &'a [K],
    visit: F,
}

impl<K: Key, F: FnMut(usize, u32), const G: usize> Kernel for BatchG<'_, K, F, G> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        self.lpm.batch_g::<G, K>(self.addrs, |k| *k, self.visit);
    }
}

/// The state of one group of [`Lpm::lookup_batch`]'s lanes.
struct Lanes<'a, const GROUP: usize> {
    /// Per lane: the node to read next (while the lane is pending).
    node_ref: [&'a NodeWords; GROUP],
    /// Per lane: the leaf holding the answer (once it is not pending).
    leaf_ref: [&'a u32; GROUP],
    /// Per lane: the rest of the address to walk (see [`Key::walk_path`]).
    path: [u64; GROUP],
    pending: u64,
    /// The group's first address and number of addresses.
    base: usize,
    m: usize,
}

impl<const GROUP: usize> Lanes<'_, GROUP> {
    fn new() -> Self {
        Lanes {
            node_ref: [&DUMMY_NODE; GROUP],
            leaf_ref: [&DUMMY_LEAF; GROUP],
            path: [0; GROUP],
            pending: 0,
            base: 0,
            m: 0,
        }
    }
}

enum Step {
    Child(usize),
    Leaf(usize),
}

/// One node step for 6-bit slot `s`: the child node's or the leaf's word offset.
#[inline(always)]
fn step(w: &NodeWords, s: u32) -> Step {
    step_node(Node::from_words(w), s)
}

/// [`step`] on a node already read.
#[inline(always)]
fn step_node(n: Node, s: u32) -> Step {
    let bit = 1u64 << s;
    if n.vec & bit != 0 {
        Step::Child(n.child as usize + NODE_WORDS * (n.vec & (bit - 1)).count_ones() as usize)
    } else {
        Step::Leaf(leaf_at(n.leafvec, n.leaf, s))
    }
}

/// The word offset of the value of leaf slot `s` of a node with `leafvec` whose
/// leaves start at `leaf`.
#[inline(always)]
fn leaf_at(leafvec: u64, leaf: u32, s: u32) -> usize {
    let bit = 1u64 << s;
    // Run starts at or before `s`; the first leaf slot always starts a run, so
    // the count is at least 1.
    let runs = (leafvec & (bit | (bit - 1))).count_ones() as usize;
    (leaf as usize + runs).wrapping_sub(1)
}

#[cfg(test)]
mod offset_tests {
    use crate::{LpmBuilder, TopEntry, NODE_WORDS};

    /// The check behind the lookups' unchecked reads finds every kind of bad
    /// offset (it runs on every snapshot of the debug builds, the test suite's).
    #[test]
    fn check_offsets_finds_bad_offsets() {
        let mut b = LpmBuilder::<u32>::new();
        b.insert(0x0a00_0000, 8, 1);
        b.insert(0x0a01_0200, 24, 2);
        b.insert(0x0a01_0203, 32, 3);
        for k in 0..2000u32 {
            // more than two pages of words
            b.insert(0x2000_0000 | k << 14 | 7, 32, 4 + k);
        }
        let lpm = b.snapshot();
        let inner = &*lpm.inner;
        assert_eq!(inner.check_offsets(18), Ok(()));
        assert!(inner.check_offsets(17).is_err(), "top level size");
        // the node under 10.1.0.0/18 (the top entry of 10.1.2.3)
        let crate::TopRef::Node(o) = inner.top.get(0x0a01_0203 >> 14).get() else {
            panic!("10.1.2.0/24 and /32 need a node under the top level");
        };
        let len = inner.words.len() as u32;
        assert!(len > 8192);
        for (word, bad) in [
            (4, len),  // child block past the end
            (4, 4095), // child block crossing a page
            (5, len),  // leaves past the end
            (2, 0),    // no run start at the first leaf
        ] {
            let mut broken = crate::lpm::Inner {
                top: inner.top.clone(),
                words: inner.words.clone(),
                stats: inner.stats,
                len: inner.len,
            };
            if word < 4 {
                broken.words.set(o + word, bad);
                broken.words.set(o + word + 1, bad);
            } else {
                broken.words.set(o + word, bad);
            }
            assert!(
                broken.check_offsets(18).is_err(),
                "word {word} of the node set to {bad}"
            );
        }
        assert_eq!(NODE_WORDS, 6);
    }

    /// The empty index (the one index not made by a builder's snapshot) keeps the
    /// invariant too.
    #[test]
    fn empty_indexes_pass_the_check() {
        let (e4, e6) = (crate::Lpm::<u32>::empty(), crate::Lpm::<u128>::empty());
        assert_eq!(e4.inner.check_offsets(18), Ok(()));
        assert_eq!(e6.inner.check_offsets(24), Ok(()));
        let none = crate::NO_MATCH;
        assert_eq!((e4.lookup(0x0a00_0001), e6.lookup(1)), (none, none));
    }
}
