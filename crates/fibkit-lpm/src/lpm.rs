//! The immutable side: [`Lpm`] snapshots and their lookups.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::key::Key;
use crate::prefetch::{prefetch, with_popcnt, Kernel};
use crate::{DepthStats, Leaves, Node, Nodes, Top, NODE_FLAG};

/// The arrays of one snapshot.
pub(crate) struct Inner {
    pub(crate) top: Top,
    pub(crate) nodes: Nodes,
    pub(crate) leaves: Leaves,
    pub(crate) stats: DepthStats,
    pub(crate) len: usize,
}

/// An immutable longest-prefix-match index (a snapshot of an
/// [`LpmBuilder`](crate::LpmBuilder)).
///
/// Cheap to clone (one `Arc`), `Send + Sync`; lookups take no lock, do no
/// allocation and touch no reference count.
pub struct Lpm<K: Key> {
    inner: Arc<Inner>,
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

static DUMMY_NODE: Node = Node {
    vec: 0,
    leafvec: 0,
    child: 0,
    leaf: 0,
};
static DUMMY_LEAF: u32 = crate::NO_MATCH;

/// Lookups walked in lockstep by [`Lpm::lookup_batch`] (at most 64).
const GROUP: usize = 32;

impl<K: Key> Lpm<K> {
    pub(crate) fn from_inner(inner: Arc<Inner>) -> Self {
        Lpm {
            inner,
            _k: PhantomData,
        }
    }

    /// An index with no prefix: every lookup returns [`NO_MATCH`](crate::NO_MATCH).
    pub fn empty() -> Self {
        let mut leaves = Leaves::new();
        leaves.push(crate::NO_MATCH);
        Self::from_inner(Arc::new(Inner {
            top: Top::filled(1usize << K::TOP_BITS, 0),
            nodes: Nodes::new(),
            leaves,
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
        with_popcnt(Walk { lpm: self, addr })
    }

    #[inline(always)]
    fn walk(&self, addr: K) -> u32 {
        let inner = &*self.inner;
        let e = inner.top.get(addr.top_index());
        if e & NODE_FLAG == 0 {
            return inner.leaves.get(e as usize);
        }
        let mut ni = (e & !NODE_FLAG) as usize;
        let mut path = addr.path();
        loop {
            let n = inner.nodes.get_ref(ni);
            match step(n, K::next_slot(&mut path)) {
                Step::Child(c) => ni = c,
                Step::Leaf(l) => return inner.leaves.get(l),
            }
        }
    }

    /// Looks up every address of `addrs` into the same position of `out`,
    /// with the same answers as [`lookup`](Self::lookup).
    ///
    /// The addresses are walked in groups of 32 in lockstep, one level at a
    /// time: each lookup prefetches what it needs at the next level, which
    /// the group's other lookups give time to arrive, so that the cache
    /// misses of the group overlap (the next group's top-level entries are
    /// prefetched while the current group walks its nodes).
    /// Only the first `min(addrs.len(), out.len())` positions are processed.
    pub fn lookup_batch(&self, addrs: &[K], out: &mut [u32]) {
        let n = addrs.len().min(out.len());
        let (addrs, out) = (&addrs[..n], &mut out[..n]);
        with_popcnt(Batch {
            lpm: self,
            addrs,
            out,
        });
    }

    #[inline(always)]
    fn batch(&self, a: &[K], out: &mut [u32]) {
        let inner = &*self.inner;
        let (top, nodes, leaves) = (&inner.top, &inner.nodes, &inner.leaves);
        let n = a.len().min(out.len());
        let (a, out) = (&a[..n], &mut out[..n]);
        for k in a.iter().take(GROUP) {
            prefetch(top.get_ref(k.top_index()));
        }
        let mut base = 0;
        while base < n {
            let m = (n - base).min(GROUP);
            let ga = &a[base..base + m];
            // Per lane: the node to read next, or the leaf holding the answer.
            let mut node_ref: [&Node; GROUP] = [&DUMMY_NODE; GROUP];
            let mut leaf_ref: [&u32; GROUP] = [&DUMMY_LEAF; GROUP];
            let mut path = [K::Path::default(); GROUP];
            let mut pending: u64 = 0;
            // Top level (prefetched one group earlier).
            for (i, k) in ga.iter().enumerate() {
                let e = top.get(k.top_index());
                if e & NODE_FLAG != 0 {
                    let r = nodes.get_ref((e & !NODE_FLAG) as usize);
                    prefetch(r);
                    node_ref[i] = r;
                    path[i] = k.path();
                    pending |= 1 << i;
                } else {
                    let r = leaves.get_ref(e as usize);
                    prefetch(r);
                    leaf_ref[i] = r;
                }
            }
            // Prefetch the next group's top-level entries.
            for k in a[base + m..].iter().take(GROUP) {
                prefetch(top.get_ref(k.top_index()));
            }
            // Node levels, all pending lanes at the same level.
            while pending != 0 {
                let mut p = pending;
                while p != 0 {
                    let i = p.trailing_zeros() as usize;
                    p &= p - 1;
                    match step(node_ref[i], K::next_slot(&mut path[i])) {
                        Step::Child(c) => {
                            let r = nodes.get_ref(c);
                            prefetch(r);
                            node_ref[i] = r;
                        }
                        Step::Leaf(l) => {
                            let r = leaves.get_ref(l);
                            prefetch(r);
                            leaf_ref[i] = r;
                            pending &= !(1 << i);
                        }
                    }
                }
            }
            for (o, &r) in out[base..base + m].iter_mut().zip(&leaf_ref) {
                *o = *r;
            }
            base += m;
        }
    }

    /// Bytes of the index structure of this snapshot: the distinct pages of
    /// the top-level, node and leaf arrays, their page tables and the
    /// snapshot header. Pages shared with other snapshots are counted in
    /// full; superseded blocks not yet compacted away are included.
    pub fn memory_bytes(&self) -> usize {
        let i = &*self.inner;
        core::mem::size_of::<Inner>()
            + i.top.memory_bytes()
            + i.nodes.memory_bytes()
            + i.leaves.memory_bytes()
    }

    /// Depth statistics of the stored prefixes (see [`DepthStats`]).
    pub fn depth_stats(&self) -> DepthStats {
        self.inner.stats
    }
}

struct Walk<'a, K: Key> {
    lpm: &'a Lpm<K>,
    addr: K,
}

impl<K: Key> Kernel for Walk<'_, K> {
    type Out = u32;
    #[inline(always)]
    fn run(self) -> u32 {
        self.lpm.walk(self.addr)
    }
}

struct Batch<'a, K: Key> {
    lpm: &'a Lpm<K>,
    addrs: &'a [K],
    out: &'a mut [u32],
}

impl<K: Key> Kernel for Batch<'_, K> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        self.lpm.batch(self.addrs, self.out);
    }
}

enum Step {
    Child(usize),
    Leaf(usize),
}

/// One node step for 6-bit slot `s`: the child node index or the leaf index.
#[inline(always)]
fn step(n: &Node, s: u32) -> Step {
    let bit = 1u64 << s;
    if n.vec & bit != 0 {
        Step::Child(n.child as usize + (n.vec & (bit - 1)).count_ones() as usize)
    } else {
        // Run starts at or before `s`; the first leaf slot always starts a
        // run, so the count is at least 1.
        let runs = (n.leafvec & (bit | (bit - 1))).count_ones() as usize;
        Step::Leaf((n.leaf as usize + runs).wrapping_sub(1))
    }
}
