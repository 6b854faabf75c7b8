//! The mutable side: the control trie holding the prefix set, and the
//! incremental compiler that turns it into [`Lpm`] snapshots.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::key::Key;
use crate::lpm::{Inner, Lpm};
use crate::prefetch::prefetch;
use crate::{
    depth_of_len, DepthStats, Node, PrefixError, Top, TopEntry, TopRef, Words, NODE_WORDS,
    NO_MATCH, STRIDE, TOP_PAGE,
};

/// Arena size (in u32 words) above which a snapshot recompiles from scratch
/// instead of appending, relative to the size right after the last full
/// compile: `size > GROWTH * base + SLACK`.
const GROWTH: usize = 2;
const SLACK: usize = 1 << 16;

/// Changes since the last snapshot from which a snapshot may compile everything
/// in one pass instead of incrementally (see [`LpmBuilder::snapshot`]).
const BULK_MIN: usize = 4096;

/// A node of the control trie. It mirrors one compiled poptrie node: it
/// covers [`STRIDE`] bits starting at some bit `start`, owns the prefixes
/// whose length is in `start + 1 ..= start + 6`, and has a child per slot
/// holding a longer prefix.
#[derive(Clone)]
struct CNode {
    /// Own prefixes: key `(rel_len << 8) | rel_bits`, sorted by key (so by
    /// length first), with their values.
    pfx: Vec<(u16, u32)>,
    /// Bit `s` set when slot `s` has a child.
    child_bits: u64,
    /// Children in slot order (index = popcount of lower `child_bits`).
    children: Vec<CNode>,
    /// The compiled node as last written to the arena.
    compiled: Node,
    /// The inherited value the compiled node was built with.
    compiled_default: u32,
    /// Own prefixes or the set of children changed since the last compile.
    own_dirty: bool,
    /// This node or a descendant changed since the last compile.
    dirty: bool,
    /// Slots whose child (or a descendant of it) changed since the last
    /// compile.
    dirty_kids: u64,
}

impl CNode {
    fn new() -> Self {
        CNode {
            pfx: Vec::new(),
            child_bits: 0,
            children: Vec::new(),
            compiled: Node::default(),
            compiled_default: NO_MATCH,
            own_dirty: true,
            dirty: true,
            dirty_kids: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.pfx.is_empty() && self.child_bits == 0
    }

    #[inline]
    fn child_pos(&self, slot: u32) -> usize {
        (self.child_bits & ((1u64 << slot) - 1)).count_ones() as usize
    }

    #[inline]
    fn has_child(&self, slot: u32) -> bool {
        self.child_bits & (1u64 << slot) != 0
    }
}

/// `n` bits of the left-aligned `a` starting at bit `start` (1 <= n <= 32).
#[inline]
fn bits_at(a: u128, start: u32, n: u32) -> u32 {
    ((a << start) >> (128 - n)) as u32
}

/// The 6-bit slot of left-aligned `a` at bit `start`, zero-padded.
#[inline]
fn slot_of(a: u128, start: u32) -> u32 {
    ((a << start) >> (128 - STRIDE)) as u32
}

#[inline]
fn pfx_key(a: u128, start: u32, len: u32) -> u16 {
    let r = len - start;
    ((r << 8) | bits_at(a, start, r)) as u16
}

/// The compiled arrays (everything but the top level).
struct Arenas {
    /// Nodes and leaf values (see [`Words`]).
    words: Words,
}

impl Arenas {
    fn new() -> Self {
        let mut words = Words::new();
        // Word 0 is the leaf NO_MATCH forever: top entries without a match point
        // at it, so pages of unmatched top entries are identical and shared.
        words.push(NO_MATCH);
        Arenas { words }
    }

    fn words(&self) -> usize {
        self.words.len()
    }

    /// Appends a block of consecutive nodes (all in one page) and returns the word
    /// offset of the first.
    fn push_nodes(&mut self, nodes: &[Node]) -> usize {
        let mut buf = [0u32; 64 * NODE_WORDS];
        for (w, n) in buf.chunks_exact_mut(NODE_WORDS).zip(nodes) {
            w.copy_from_slice(&n.to_words());
        }
        self.words.push_unsplit(&buf[..nodes.len() * NODE_WORDS])
    }

    /// The node at word offset `o`.
    fn node(&self, o: usize) -> Node {
        Node::from_words(self.words.get_array(o))
    }

    /// Appends leaf values and returns the word offset of the first.
    fn push_leaves(&mut self, v: &[u32]) -> usize {
        self.words.push_slice(v)
    }
}

/// The top-level entry of a top-level node just compiled: the node itself when
/// the key type holds childless nodes in place, else a pointer to a copy pushed now.
fn top_entry<E: TopEntry>(n: &Node, ar: &mut Arenas) -> E {
    if E::INLINE && n.vec == 0 && n.leafvec != 0 {
        E::inline(n.leafvec, n.leaf)
    } else {
        E::node(ar.push_nodes(&[*n]) as u32)
    }
}

/// Leaf compression: the `leafvec` bitmap (bit set at each leaf slot whose
/// value differs from the previous leaf slot's, child slots skipped) and the
/// run values in slot order.
#[inline]
fn compress_leaves(slots: &[u32; 64], child_bits: u64) -> (u64, [u32; 64], usize) {
    let mut filled = *slots;
    let first_leaf = (!child_bits).trailing_zeros();
    if child_bits != 0 && first_leaf < 64 {
        // Child slots take the value of the previous leaf slot (leading ones
        // the first leaf's), so that they never start or break a run.
        let mut bits = child_bits;
        while bits != 0 {
            let s = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            filled[s] = if s == 0 || (s as u32) < first_leaf {
                slots[first_leaf as usize]
            } else {
                filled[s - 1]
            };
        }
    }
    let mut diff = 1u64;
    for s in 1..64 {
        diff |= u64::from(filled[s] != filled[s - 1]) << s;
    }
    let lv = if first_leaf < 64 {
        (diff | (1u64 << first_leaf)) & !child_bits
    } else {
        0
    };
    let mut buf = [0u32; 64];
    let mut n = 0;
    let mut bits = lv;
    while bits != 0 {
        buf[n] = filled[bits.trailing_zeros() as usize];
        bits &= bits - 1;
        n += 1;
    }
    (lv, buf, n)
}

/// Recompiles `node` (and, as needed, its descendants) for the inherited
/// value `default`, appending new blocks to the arenas. Returns whether the
/// node's compiled form changed. With `force`, everything is rebuilt and
/// nothing of the previous compiled state is read (fresh arenas).
fn sync(node: &mut CNode, default: u32, force: bool, ar: &mut Arenas) -> bool {
    let default_changed = force || default != node.compiled_default;
    if !node.dirty && !default_changed {
        return false;
    }
    // Leaf pushing: the value of every slot (longest own prefix, else the
    // inherited value).
    let mut slots = [default; 64];
    for &(key, v) in &node.pfx {
        let r = u32::from(key >> 8);
        let b = usize::from(key & 0xff);
        let w = 1usize << (STRIDE - r);
        slots[b * w..(b + 1) * w].fill(v);
    }
    let old = node.compiled;
    let mut new = old;

    // Children: all of them when their inherited values may have changed,
    // else only those with changes below.
    let visit = if force || default_changed || node.own_dirty {
        node.child_bits
    } else {
        node.dirty_kids & node.child_bits
    };
    let mut changed_kids = 0u64;
    let mut bits = visit;
    while bits != 0 {
        let s = bits.trailing_zeros();
        bits &= bits - 1;
        let k = node.child_pos(s);
        if bits != 0 {
            // The control trie is pointer-heavy: start fetching the next
            // child's prefix list and children while this one is compiled.
            let next = &node.children[node.child_pos(bits.trailing_zeros())];
            if let Some(p) = next.pfx.first() {
                prefetch(p);
            }
            if let Some(c) = next.children.first() {
                prefetch(c);
            }
        }
        if sync(&mut node.children[k], slots[s as usize], force, ar) {
            changed_kids |= 1u64 << s;
        }
    }
    if force || node.child_bits != old.vec || changed_kids != 0 {
        new.vec = node.child_bits;
        let nc = node.children.len();
        let mut buf = [Node::default(); 64];
        if nc == 0 {
            new.child = 0;
        } else if !force && node.child_bits == old.vec {
            // Same child set: copy the old block, patch the changed children
            // (cheaper than touching every sibling's control node).
            for (k, dst) in buf[..nc].iter_mut().enumerate() {
                *dst = ar.node(old.child as usize + k * NODE_WORDS);
            }
            let mut bits = changed_kids;
            while bits != 0 {
                let s = bits.trailing_zeros();
                bits &= bits - 1;
                let k = node.child_pos(s);
                buf[k] = node.children[k].compiled;
            }
            new.child = ar.push_nodes(&buf[..nc]) as u32;
        } else {
            for (dst, c) in buf.iter_mut().zip(&node.children) {
                *dst = c.compiled;
            }
            new.child = ar.push_nodes(&buf[..nc]) as u32;
        }
    }

    if force || node.own_dirty || default_changed {
        let (lv, buf, n) = compress_leaves(&slots, node.child_bits);
        let same = !force
            && lv == old.leafvec
            && (0..n).all(|i| ar.words.get(old.leaf as usize + i) == buf[i]);
        if !same {
            new.leafvec = lv;
            new.leaf = if n == 0 {
                0
            } else {
                ar.push_leaves(&buf[..n]) as u32
            };
        }
    }

    node.own_dirty = false;
    node.dirty = false;
    node.dirty_kids = 0;
    node.compiled_default = default;
    node.compiled = new;
    new != old
}

/// Top-level entries per chunk of [`TopState`].
const CHUNK: usize = 64;
type ChildChunk = [Option<Box<CNode>>; CHUNK];

/// Builder state per top-level entry, kept per chunk of 64 entries so that its
/// cost follows the content, not the 2^T entries: an empty or small builder
/// costs little, and a short prefix (down to /0) paints whole chunks with one
/// write each.
#[derive(Clone)]
struct TopState {
    /// `!value` of the best short prefix shared by every entry of a chunk
    /// (NO_MATCH is 0, so the array starts as untouched zeroed memory); for a
    /// chunk with per-entry values ([`TopState::vals`]) it is unused.
    chunk_not: Vec<u32>,
    /// `!value` per entry, for the chunks whose entries differ.
    vals: Vec<Option<Box<[u32; CHUNK]>>>,
    /// Subtrees (prefixes longer than the top level) per entry.
    children: Vec<Option<Box<ChildChunk>>>,
    /// Bit per chunk: it may hold a value other than NO_MATCH or a subtree
    /// (a full compile visits only these).
    occupied: Vec<u64>,
}

impl TopState {
    fn new(n: usize) -> Self {
        let chunks = n.div_ceil(CHUNK);
        TopState {
            chunk_not: vec![0; chunks],
            vals: vec![None; chunks],
            children: vec![None; chunks],
            occupied: vec![0; chunks.div_ceil(64)],
        }
    }

    #[inline]
    fn val(&self, ti: usize) -> u32 {
        let c = ti / CHUNK;
        !match &self.vals[c] {
            Some(v) => v[ti % CHUNK],
            None => self.chunk_not[c],
        }
    }

    /// The value every entry of chunk `c` has, when they all have one.
    #[inline]
    fn uniform(&self, c: usize) -> Option<u32> {
        match self.vals[c] {
            Some(_) => None,
            None => Some(!self.chunk_not[c]),
        }
    }

    fn mark(&mut self, chunk: usize) {
        self.occupied[chunk / 64] |= 1u64 << (chunk % 64);
    }

    #[inline]
    fn is_occupied(&self, chunk: usize) -> bool {
        self.occupied[chunk / 64] & (1u64 << (chunk % 64)) != 0
    }

    /// The occupied chunks, in order.
    fn occupied_chunks(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for (w, &bits) in self.occupied.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                out.push(w * 64 + b.trailing_zeros() as usize);
                b &= b - 1;
            }
        }
        out
    }

    fn set_val(&mut self, ti: usize, v: u32) {
        let c = ti / CHUNK;
        let shared = self.chunk_not[c];
        if v != NO_MATCH {
            self.mark(c);
        }
        let vals = match &mut self.vals[c] {
            Some(vals) => vals,
            None if shared == !v => return,
            slot => slot.insert(Box::new([shared; CHUNK])),
        };
        vals[ti % CHUNK] = !v;
    }

    fn fill_val(&mut self, range: core::ops::Range<usize>, v: u32) {
        let mut i = range.start;
        while i < range.end {
            let c = i / CHUNK;
            let (lo, hi) = (c * CHUNK, (c + 1) * CHUNK);
            let end = range.end.min(hi);
            if i == lo && end == hi {
                self.chunk_not[c] = !v;
                self.vals[c] = None;
                if v != NO_MATCH {
                    self.mark(c);
                }
            } else {
                for ti in i..end {
                    self.set_val(ti, v);
                }
            }
            i = end;
        }
    }

    /// Every entry back to NO_MATCH, emptied child chunks dropped, and the
    /// occupancy recomputed from the subtrees alone.
    fn reset(&mut self) {
        for c in self.occupied_chunks() {
            self.chunk_not[c] = 0;
            self.vals[c] = None;
            let any = self.children[c]
                .as_ref()
                .is_some_and(|ch| ch.iter().any(Option::is_some));
            if !any {
                self.children[c] = None;
                self.occupied[c / 64] &= !(1u64 << (c % 64));
            }
        }
    }

    #[inline]
    fn child(&self, ti: usize) -> Option<&CNode> {
        self.children[ti / CHUNK].as_ref()?[ti % CHUNK].as_deref()
    }

    #[inline]
    fn child_mut(&mut self, ti: usize) -> Option<&mut CNode> {
        self.children[ti / CHUNK].as_mut()?[ti % CHUNK].as_deref_mut()
    }

    fn has_child(&self, ti: usize) -> bool {
        self.child(ti).is_some()
    }

    fn child_or_insert(&mut self, ti: usize) -> &mut CNode {
        self.mark(ti / CHUNK);
        let chunk = self.children[ti / CHUNK]
            .get_or_insert_with(|| Box::new(core::array::from_fn(|_| None)));
        chunk[ti % CHUNK].get_or_insert_with(|| Box::new(CNode::new()))
    }

    fn remove_child(&mut self, ti: usize) {
        if let Some(chunk) = self.children[ti / CHUNK].as_mut() {
            chunk[ti % CHUNK] = None;
        }
    }
}

/// Mutable side of the index: holds the full prefix set and produces
/// immutable [`Lpm`] snapshots.
///
/// Updates ([`insert`](Self::insert), [`remove`](Self::remove)) only touch
/// the control trie and record what changed; [`snapshot`](Self::snapshot)
/// recompiles the changed nodes (plus the paths to them) into new arena
/// blocks and shares everything else with the previous snapshot.
///
/// Inputs are never rejected by a panic: host bits are masked and lengths
/// above [`Key::BITS`] are clamped (see [`try_insert`](Self::try_insert) for
/// the checking variant).
pub struct LpmBuilder<K: Key> {
    /// Prefixes of length `<= TOP_BITS`: `(first top index, len) -> value`.
    top_pfx: BTreeMap<(u32, u8), u32>,
    /// Best short-prefix value and subtree of each top entry.
    ts: TopState,
    /// Number of stored prefixes per length.
    hist: [u64; 129],
    count: usize,

    top: Top<K::Top>,
    arenas: Arenas,
    /// Top ranges `(first index, len)` whose short prefixes changed.
    dirty_ranges: Vec<(u32, u8)>,
    /// Top entries to recompile (deduplicated through `dirty_bits`).
    dirty_list: Vec<u32>,
    dirty_bits: Vec<u64>,
    /// The next snapshot recompiles everything into fresh arenas.
    needs_full: bool,
    /// Prefix insertions, value changes and removals since the last snapshot.
    changes: usize,
    /// Snapshots compiled in one pass (for the tests).
    full_builds: u64,
    /// Arena words right after the last full compile.
    base_words: usize,
    _k: PhantomData<K>,
}

impl<K: Key> Default for LpmBuilder<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Key> Clone for LpmBuilder<K> {
    /// Clones the prefix set and the compiled state (the arrays are shared
    /// copy-on-write, like a snapshot's).
    fn clone(&self) -> Self {
        LpmBuilder {
            top_pfx: self.top_pfx.clone(),
            ts: self.ts.clone(),
            hist: self.hist,
            count: self.count,
            top: self.top.clone(),
            arenas: Arenas {
                words: self.arenas.words.clone(),
            },
            dirty_ranges: self.dirty_ranges.clone(),
            dirty_list: self.dirty_list.clone(),
            dirty_bits: self.dirty_bits.clone(),
            needs_full: self.needs_full,
            changes: self.changes,
            full_builds: self.full_builds,
            base_words: self.base_words,
            _k: PhantomData,
        }
    }
}

impl<K: Key> core::fmt::Debug for LpmBuilder<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LpmBuilder")
            .field("len", &self.count)
            .field("pending_top_entries", &self.dirty_list.len())
            .field("needs_full", &self.needs_full)
            .finish_non_exhaustive()
    }
}

impl<K: Key> FromIterator<(K, u8, u32)> for LpmBuilder<K> {
    /// Bulk constructor: inserts everything (later duplicates overwrite
    /// earlier ones) and defers all compilation to the first
    /// [`snapshot`](LpmBuilder::snapshot), which builds in one pass.
    fn from_iter<I: IntoIterator<Item = (K, u8, u32)>>(items: I) -> Self {
        let mut b = Self::new();
        b.extend(items);
        b
    }
}

impl<K: Key> Extend<(K, u8, u32)> for LpmBuilder<K> {
    /// Inserts every `(addr, len, value)`, as [`LpmBuilder::insert`].
    fn extend<I: IntoIterator<Item = (K, u8, u32)>>(&mut self, items: I) {
        for (a, l, v) in items {
            self.insert(a, l, v);
        }
    }
}

impl<K: Key> LpmBuilder<K> {
    const TOP: u32 = K::TOP_BITS;

    /// An empty builder.
    ///
    /// The per-top-level-entry bookkeeping (2^[`Key::TOP_BITS`] entries) is
    /// reserved as zeroed memory and filled in chunks as prefixes arrive, so
    /// an empty builder is cheap.
    pub fn new() -> Self {
        let n = 1usize << Self::TOP;
        LpmBuilder {
            top_pfx: BTreeMap::new(),
            ts: TopState::new(n),
            hist: [0; 129],
            count: 0,
            top: Top::new(),
            arenas: Arenas::new(),
            dirty_ranges: Vec::new(),
            dirty_list: Vec::new(),
            dirty_bits: vec![0; n.div_ceil(64)],
            needs_full: true,
            changes: 0,
            full_builds: 0,
            base_words: 0,
            _k: PhantomData,
        }
    }

    /// Number of stored prefixes.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no prefix is stored.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Left-aligned, masked bits of `addr` and the clamped length.
    #[inline]
    fn norm(addr: K, len: u8) -> (u128, u32) {
        let len = u32::from(len).min(K::BITS);
        let a = addr.mask(len as u8).to_u128() << (128 - K::BITS);
        (a, len)
    }

    #[inline]
    fn top_start(a: u128) -> u32 {
        (a >> (128 - Self::TOP)) as u32
    }

    fn mark_entry(&mut self, ti: usize) {
        if self.needs_full {
            return;
        }
        let w = &mut self.dirty_bits[ti / 64];
        let bit = 1u64 << (ti % 64);
        if *w & bit == 0 {
            *w |= bit;
            self.dirty_list.push(ti as u32);
        }
    }

    /// Inserts `addr/len -> value`, or overwrites the value of an existing
    /// prefix, returning the previous value.
    ///
    /// Bits of `addr` past `len` are ignored (masked), and `len` above
    /// [`Key::BITS`] is clamped to it. `value` should not be [`NO_MATCH`]
    /// (it would be indistinguishable from "no match" in lookups).
    pub fn insert(&mut self, addr: K, len: u8, value: u32) -> Option<u32> {
        let (a, len) = Self::norm(addr, len);
        let old = if len <= Self::TOP {
            let start = Self::top_start(a);
            let old = self.top_pfx.insert((start, len as u8), value);
            if old != Some(value) && !self.needs_full {
                self.dirty_ranges.push((start, len as u8));
            }
            old
        } else {
            self.insert_deep(a, len, value)
        };
        if old != Some(value) {
            self.changes += 1;
        }
        if old.is_none() {
            self.hist[len as usize] += 1;
            self.count += 1;
        }
        old
    }

    /// Like [`insert`](Self::insert), but rejects a length above
    /// [`Key::BITS`] or an address with host bits set instead of fixing them.
    pub fn try_insert(&mut self, addr: K, len: u8, value: u32) -> Result<Option<u32>, PrefixError> {
        if u32::from(len) > K::BITS {
            return Err(PrefixError::LengthTooLong { len, max: K::BITS });
        }
        if addr.mask(len) != addr {
            return Err(PrefixError::HostBitsSet);
        }
        Ok(self.insert(addr, len, value))
    }

    fn insert_deep(&mut self, a: u128, len: u32, value: u32) -> Option<u32> {
        let ti = Self::top_start(a) as usize;
        self.mark_entry(ti);
        let mut node: &mut CNode = self.ts.child_or_insert(ti);
        let mut start = Self::TOP;
        loop {
            node.dirty = true;
            if len <= start + STRIDE {
                let key = pfx_key(a, start, len);
                return match node.pfx.binary_search_by_key(&key, |e| e.0) {
                    Ok(i) => {
                        let old = node.pfx[i].1;
                        if old != value {
                            node.pfx[i].1 = value;
                            node.own_dirty = true;
                        }
                        Some(old)
                    }
                    Err(i) => {
                        node.pfx.insert(i, (key, value));
                        node.own_dirty = true;
                        None
                    }
                };
            }
            let slot = slot_of(a, start);
            let pos = node.child_pos(slot);
            if !node.has_child(slot) {
                node.children.insert(pos, CNode::new());
                node.child_bits |= 1u64 << slot;
                node.own_dirty = true;
            }
            node.dirty_kids |= 1u64 << slot;
            node = &mut node.children[pos];
            start += STRIDE;
        }
    }

    /// Removes the prefix `addr/len`, returning its value. Host bits are
    /// masked and `len` is clamped, as in [`insert`](Self::insert).
    pub fn remove(&mut self, addr: K, len: u8) -> Option<u32> {
        let (a, len) = Self::norm(addr, len);
        let old = if len <= Self::TOP {
            let start = Self::top_start(a);
            let old = self.top_pfx.remove(&(start, len as u8));
            if old.is_some() && !self.needs_full {
                self.dirty_ranges.push((start, len as u8));
            }
            old
        } else {
            let ti = Self::top_start(a) as usize;
            let node = self.ts.child_mut(ti)?;
            let old = remove_rec(node, a, len, Self::TOP)?;
            if node.is_empty() {
                self.ts.remove_child(ti);
            }
            self.mark_entry(ti);
            Some(old)
        };
        if old.is_some() {
            self.changes += 1;
            self.hist[len as usize] -= 1;
            self.count -= 1;
        }
        old
    }

    /// The value stored for exactly `addr/len`, if any (host bits masked,
    /// `len` clamped, as in [`insert`](Self::insert)).
    pub fn get(&self, addr: K, len: u8) -> Option<u32> {
        let (a, len) = Self::norm(addr, len);
        if len <= Self::TOP {
            return self.top_pfx.get(&(Self::top_start(a), len as u8)).copied();
        }
        let mut node: &CNode = self.ts.child(Self::top_start(a) as usize)?;
        let mut start = Self::TOP;
        loop {
            if len <= start + STRIDE {
                let key = pfx_key(a, start, len);
                return node
                    .pfx
                    .binary_search_by_key(&key, |e| e.0)
                    .ok()
                    .map(|i| node.pfx[i].1);
            }
            let slot = slot_of(a, start);
            if !node.has_child(slot) {
                return None;
            }
            node = &node.children[node.child_pos(slot)];
            start += STRIDE;
        }
    }

    /// Whether some stored prefix lies strictly inside `addr/len` (a longer
    /// prefix covered by it). Conservative for prefixes no longer than the top
    /// level (always `true` there); exact below it, at the cost of a walk to the
    /// node holding `addr/len`.
    pub fn has_longer_within(&self, addr: K, len: u8) -> bool {
        self.get_and_longer(addr, len).1
    }

    /// [`get`](Self::get) and [`has_longer_within`](Self::has_longer_within) in
    /// one walk.
    pub fn get_and_longer(&self, addr: K, len: u8) -> (Option<u32>, bool) {
        let (a, len) = Self::norm(addr, len);
        if len <= Self::TOP {
            let v = self.top_pfx.get(&(Self::top_start(a), len as u8)).copied();
            return (v, true);
        }
        let Some(mut node) = self.ts.child(Self::top_start(a) as usize) else {
            return (None, false);
        };
        let mut start = Self::TOP;
        while len > start + STRIDE {
            let slot = slot_of(a, start);
            if !node.has_child(slot) {
                return (None, false);
            }
            node = &node.children[node.child_pos(slot)];
            start += STRIDE;
        }
        let r = len - start;
        let pbits = bits_at(a, start, r);
        let key = pfx_key(a, start, len);
        let value = node
            .pfx
            .binary_search_by_key(&key, |e| e.0)
            .ok()
            .map(|i| node.pfx[i].1);
        // longer prefixes in this node: one run of sorted keys per length
        for qr in r + 1..=STRIDE {
            let lo = ((qr << 8) | (pbits << (qr - r))) as u16;
            let hi = (qr << 8) + ((pbits + 1) << (qr - r));
            let i = node.pfx.partition_point(|e| e.0 < lo);
            if node.pfx.get(i).is_some_and(|e| u32::from(e.0) < hi) {
                return (value, true);
            }
        }
        // or any child node under it
        let width = 1u32 << (STRIDE - r);
        let lo = pbits << (STRIDE - r);
        let mask = if width >= 64 {
            u64::MAX
        } else {
            ((1u64 << width) - 1) << lo
        };
        (value, node.child_bits & mask != 0)
    }

    /// The stored prefixes inside `addr/len` (`addr/len` itself included when
    /// stored) as `(addr, len, value)`, in no particular order. Costs a walk to
    /// the node holding `addr/len` plus the size of the answer.
    pub fn within(&self, addr: K, len: u8) -> Vec<(K, u8, u32)> {
        let mut out = Vec::new();
        self.within_each(addr, len, |a, l, v| out.push((a, l, v)));
        out
    }

    /// [`within`](Self::within) without the vector: `f(addr, len, value)` for
    /// each stored prefix inside `addr/len`, in no particular order. Inside
    /// the node holding `addr/len`, each prefix length is found by a binary
    /// search of the node's sorted prefixes, not a scan.
    pub fn within_each(&self, addr: K, len: u8, mut f: impl FnMut(K, u8, u32)) {
        let (a, len) = Self::norm(addr, len);
        let mut emit = |a: u128, l: u8, v: u32| f(K::from_u128(a >> (128 - K::BITS)), l, v);
        let top = Self::TOP;
        if len <= top {
            // top-level prefixes and every subtree under the covered entries
            let first = Self::top_start(a);
            let count = 1u64 << (top - len);
            let last = u64::from(first) + count - 1;
            let last = u32::try_from(last).unwrap_or(u32::MAX);
            for (&(st, l), &v) in self.top_pfx.range((first, 0)..=(last, u8::MAX)) {
                if u32::from(l) >= len {
                    let pa = if top == 0 {
                        0
                    } else {
                        u128::from(st) << (128 - top)
                    };
                    emit(pa, l, v);
                }
            }
            // subtrees live in chunks of entries: skip the empty chunks whole
            let (first, last) = (first as usize, last as usize);
            for chunk in first / CHUNK..=last / CHUNK {
                if self.ts.children[chunk].is_none() {
                    continue;
                }
                let lo = (chunk * CHUNK).max(first);
                let hi = ((chunk + 1) * CHUNK - 1).min(last);
                for ti in lo..=hi {
                    if let Some(c) = self.ts.child(ti) {
                        let base = if top == 0 {
                            0
                        } else {
                            (ti as u128) << (128 - top)
                        };
                        collect_rec(c, base, top, &mut emit);
                    }
                }
            }
        } else {
            let Some(mut node) = self.ts.child(Self::top_start(a) as usize) else {
                return;
            };
            let mut start = top;
            while len > start + STRIDE {
                let slot = slot_of(a, start);
                if !node.has_child(slot) {
                    return;
                }
                node = &node.children[node.child_pos(slot)];
                start += STRIDE;
            }
            // `node` covers bits start..start+STRIDE; the prefix is `r` bits into it
            let r = len - start;
            let pbits = bits_at(a, start, r);
            let base = a & !(u128::MAX.checked_shr(start).unwrap_or(0));
            // the node's prefixes are sorted by (length, bits): the ones of length
            // `qr` inside the prefix are one run of keys
            for qr in r..=STRIDE {
                let lo = ((qr << 8) | (pbits << (qr - r))) as u16;
                let hi = (qr << 8) + ((pbits + 1) << (qr - r));
                let i = node.pfx.partition_point(|e| e.0 < lo);
                for &(key, v) in node.pfx[i..].iter().take_while(|e| u32::from(e.0) < hi) {
                    let qb = u32::from(key & 0xff);
                    emit(
                        base | (u128::from(qb) << (128 - start - qr)),
                        (start + qr) as u8,
                        v,
                    );
                }
            }
            let lo = pbits << (STRIDE - r);
            let hi = (pbits + 1) << (STRIDE - r);
            for slot in lo..hi {
                if node.has_child(slot) {
                    let ca = base | (u128::from(slot) << (128 - start - STRIDE));
                    collect_rec(
                        &node.children[node.child_pos(slot)],
                        ca,
                        start + STRIDE,
                        &mut emit,
                    );
                }
            }
        }
    }

    /// All stored prefixes as `(addr, len, value)`, sorted by address then
    /// length.
    pub fn prefixes(&self) -> Vec<(K, u8, u32)> {
        let mut out = Vec::with_capacity(self.count);
        let top = Self::TOP;
        for (&(s, l), &v) in &self.top_pfx {
            let a = if top == 0 {
                0
            } else {
                u128::from(s) << (128 - top)
            };
            out.push((a, l, v));
        }
        for (ci, chunk) in self.ts.children.iter().enumerate() {
            for (j, c) in chunk.iter().flat_map(|c| c.iter()).enumerate() {
                if let Some(c) = c {
                    let ti = (ci * CHUNK + j) as u128;
                    collect_rec(c, ti << (128 - top), top, &mut |a, l, v| {
                        out.push((a, l, v))
                    });
                }
            }
        }
        let mut out: Vec<(K, u8, u32)> = out
            .into_iter()
            .map(|(a, l, v)| (K::from_u128(a >> (128 - K::BITS)), l, v))
            .collect();
        out.sort_unstable_by_key(|&(a, l, _)| (a, l));
        out
    }

    /// Makes the next [`snapshot`](Self::snapshot) rebuild the whole index
    /// into fresh, garbage-free arrays (it otherwise happens automatically
    /// when superseded blocks have doubled the arena size).
    pub fn compact(&mut self) {
        self.needs_full = true;
    }

    /// Builds (or refreshes) the immutable index.
    ///
    /// The first snapshot (and one after [`compact`](Self::compact), or after
    /// changes to at least half the prefixes held, 4,096 or more: a bulk load)
    /// builds everything in one pass. Later ones recompile only the nodes under
    /// top-level entries touched since the last snapshot, and among those
    /// only the ones whose prefixes, children or inherited value changed
    /// (plus the path up to them); their new blocks are appended to the
    /// arrays, whose pages are shared copy-on-write with earlier snapshots.
    /// When superseded blocks have doubled the arrays since the last full
    /// build, the snapshot rebuilds everything instead (amortized).
    /// Earlier snapshots are unaffected.
    ///
    /// # Panics
    ///
    /// When the compiled arrays outgrow the index's 31-bit offsets (2^31 words,
    /// 8 GiB: a table of hundreds of millions of prefixes).
    pub fn snapshot(&mut self) -> Lpm<K> {
        let limit = GROWTH * self.base_words + SLACK;
        // A bulk load (changes of at least half the prefixes now held) compiles
        // faster in one pass than change by change (BENCHMARKS.md).
        let bulk = self.changes >= BULK_MIN && self.changes >= self.count / 2;
        if self.needs_full || bulk || self.arenas.words() > limit {
            self.full_compile();
        } else {
            self.incremental();
        }
        self.changes = 0;
        let mut stats = DepthStats::default();
        for (l, &c) in self.hist.iter().enumerate() {
            if c > 0 {
                let d = depth_of_len(l as u32, Self::TOP);
                stats.sum += c * u64::from(d);
                stats.count += c;
                stats.max = stats.max.max(d);
            }
        }
        // Offsets are stored in 31 bits (a top-level entry's flag takes the 32nd): an
        // array past that would wrap them, and the lookups read them unchecked. Out
        // of reach in practice (8 GiB of words, a table of hundreds of millions of
        // routes): a clear stop instead of wrong reads.
        assert!(
            self.arenas.words() <= crate::NODE_FLAG as usize,
            "the index outgrew its 31-bit offsets ({} words)",
            self.arenas.words()
        );
        let inner = Inner {
            top: self.top.clone(),
            words: self.arenas.words.clone(),
            stats,
            len: self.count,
        };
        // the lookups read at the index's offsets without bounds checks
        // (`prefetch.rs`): debug builds check them all
        #[cfg(debug_assertions)]
        if let Err(e) = inner.check_offsets(K::TOP_BITS) {
            panic!("snapshot with an offset out of bounds: {e}");
        }
        Lpm::from_inner(Arc::new(inner))
    }

    /// The best short-prefix value of the top entries in
    /// `[start, start + 2^(TOP - len))`, as runs `(first, end, value)` in
    /// order (the length of the answer follows the prefixes inside the range,
    /// not its size).
    fn paint_segments(&self, start: u32, len: u8) -> Vec<(usize, usize, u32)> {
        let top = Self::TOP;
        let span = 1usize << (top - u32::from(len));
        let mut base = NO_MATCH;
        for al in 0..len {
            let mask = !((1u64 << (top - u32::from(al))) - 1) as u32;
            if let Some(&v) = self.top_pfx.get(&(start & mask, al)) {
                base = v;
            }
        }
        let end = start as usize + span;
        let mut inner: Vec<(u32, u8, u32)> = if end > u32::MAX as usize {
            self.top_pfx
                .range((start, len)..)
                .map(|(&(s, l), &v)| (s, l, v))
                .collect()
        } else {
            self.top_pfx
                .range((start, len)..(end as u32, 0))
                .map(|(&(s, l), &v)| (s, l, v))
                .collect()
        };
        // by start, then outer (shorter) first: a prefix's nested ones follow it
        inner.sort_unstable_by_key(|&(s, l, _)| (s, l));
        let mut out: Vec<(usize, usize, u32)> = Vec::new();
        let mut emit = |lo: usize, hi: usize, v: u32| {
            if lo < hi {
                match out.last_mut() {
                    Some(last) if last.1 == lo && last.2 == v => last.1 = hi,
                    _ => out.push((lo, hi, v)),
                }
            }
        };
        // open intervals, innermost last: (end, value)
        let mut stack: Vec<(usize, u32)> = vec![(end, base)];
        let mut cur = start as usize;
        for (s, l, v) in inner {
            let (s, e) = (s as usize, s as usize + (1usize << (top - u32::from(l))));
            while let Some(&(top_end, top_v)) = stack.last() {
                if top_end > s {
                    break;
                }
                emit(cur, top_end, top_v);
                cur = cur.max(top_end);
                stack.pop();
            }
            let outer_v = stack.last().map_or(NO_MATCH, |t| t.1);
            emit(cur, s, outer_v);
            cur = cur.max(s);
            stack.push((e, v));
        }
        while let Some((top_end, top_v)) = stack.pop() {
            emit(cur, top_end, top_v);
            cur = cur.max(top_end);
        }
        out
    }

    /// Gives the top entries of `[lo, hi)` the short-prefix value `v`: the
    /// entries without a subtree become leaves at once (whole chunks at a
    /// time), those with one are marked for recompilation.
    fn repaint(&mut self, lo: usize, hi: usize, v: u32) {
        let mut ti = lo;
        while ti < hi {
            let c = ti / CHUNK;
            let chunk_end = (c + 1) * CHUNK;
            if ti == c * CHUNK && chunk_end <= hi && self.ts.children[c].is_none() {
                // a run of whole chunks without subtrees
                let mut e = chunk_end;
                while e + CHUNK <= hi && self.ts.children[e / CHUNK].is_none() {
                    e += CHUNK;
                }
                if !(ti / CHUNK..e / CHUNK).all(|c| self.ts.uniform(c) == Some(v)) {
                    self.paint_leaves(ti..e, v);
                }
                ti = e;
                continue;
            }
            let end = hi.min(chunk_end);
            let mut j = ti;
            while j < end {
                if self.ts.val(j) == v {
                    j += 1;
                    continue;
                }
                if self.ts.has_child(j) {
                    self.ts.set_val(j, v);
                    self.mark_entry(j);
                    j += 1;
                    continue;
                }
                let mut k = j + 1;
                while k < end && self.ts.val(k) != v && !self.ts.has_child(k) {
                    k += 1;
                }
                self.paint_leaves(j..k, v);
                j = k;
            }
            ti = end;
        }
    }

    /// Top entries of `range` (none with a subtree) become leaves of value `v`.
    fn paint_leaves(&mut self, range: core::ops::Range<usize>, v: u32) {
        self.ts.fill_val(range.clone(), v);
        let leaf = if v == NO_MATCH {
            0
        } else {
            self.arenas.push_leaves(&[v]) as u32
        };
        self.top.fill(range, K::Top::leaf(leaf));
    }

    fn incremental(&mut self) {
        // 1. Short prefixes: repaint the affected top ranges.
        let mut ranges = core::mem::take(&mut self.dirty_ranges);
        ranges.sort_unstable();
        let mut covered_end = 0u64;
        for &(s, l) in &ranges {
            if u64::from(s) < covered_end {
                continue; // nested in an already repainted range
            }
            covered_end = u64::from(s) + (1u64 << (Self::TOP - u32::from(l)));
            for (lo, hi, v) in self.paint_segments(s, l) {
                self.repaint(lo, hi, v);
            }
        }

        // 2. Recompile the dirty top entries.
        let mut list = core::mem::take(&mut self.dirty_list);
        list.sort_unstable();
        let mut last_leaf: Option<(usize, u32, u32)> = None;
        for &ti in &list {
            let ti = ti as usize;
            self.dirty_bits[ti / 64] &= !(1u64 << (ti % 64));
            let v = self.ts.val(ti);
            let cur = self.top.get(ti);
            match self.ts.child_mut(ti) {
                Some(node) => {
                    let changed = sync(node, v, false, &mut self.arenas);
                    if changed || matches!(cur.get(), TopRef::Leaf(_)) {
                        let e = top_entry(&node.compiled, &mut self.arenas);
                        self.top.set(ti, e);
                    }
                }
                None => {
                    if let TopRef::Leaf(o) = cur.get() {
                        if self.arenas.words.get(o) == v {
                            last_leaf = Some((ti, v, o as u32));
                            continue;
                        }
                    }
                    let leaf = match last_leaf {
                        _ if v == NO_MATCH => 0,
                        Some((pti, pv, pidx)) if pti + 1 == ti && pv == v => pidx,
                        _ => self.arenas.push_leaves(&[v]) as u32,
                    };
                    self.top.set(ti, K::Top::leaf(leaf));
                    last_leaf = Some((ti, v, leaf));
                }
            }
        }
        list.clear();
        self.dirty_list = list;
        ranges.clear();
        self.dirty_ranges = ranges;
    }

    fn full_compile(&mut self) {
        let top = Self::TOP;
        let n = 1usize << top;
        // Recompute every entry's short-prefix value.
        self.ts.reset();
        let mut short: Vec<(u8, u32, u32)> =
            self.top_pfx.iter().map(|(&(s, l), &v)| (l, s, v)).collect();
        short.sort_by_key(|e| e.0);
        for (l, s, v) in short {
            let w = 1usize << (top - u32::from(l));
            self.ts.fill_val(s as usize..s as usize + w, v);
        }

        let mut ar = Arenas::new();
        let ts = &mut self.ts;
        // The leaf of the last run of equal values, shared while the value
        // repeats (uniform chunks and pages included).
        let mut run: Option<(u32, u32)> = None;
        let mut leaf_of = |v: u32, ar: &mut Arenas| match run {
            Some((rv, idx)) if rv == v => idx,
            _ => {
                let idx = ar.push_leaves(&[v]) as u32;
                run = Some((v, idx));
                idx
            }
        };
        // Pages whose chunks are all NO_MATCH without subtrees stay blank
        // (shared); uniform chunks are written without a per-entry lookup.
        self.top = Top::build(n, |pi, page| {
            let (page_lo, page_hi) = (pi * TOP_PAGE, ((pi + 1) * TOP_PAGE).min(n));
            let mut wrote = false;
            for c in page_lo / CHUNK..page_hi.div_ceil(CHUNK) {
                if !ts.is_occupied(c) {
                    continue;
                }
                let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                let has_children = ts.children[c].is_some();
                if !has_children {
                    if let Some(v) = ts.uniform(c) {
                        if v != NO_MATCH {
                            let idx = leaf_of(v, &mut ar);
                            page[lo - page_lo..hi - page_lo].fill(K::Top::leaf(idx));
                            wrote = true;
                        }
                        continue;
                    }
                }
                wrote = true;
                for ti in lo..hi {
                    let v = ts.val(ti);
                    let node = if has_children {
                        // Prefetch the control nodes a few entries ahead.
                        if let Some(c) = (ti + 8 < hi).then(|| ts.child(ti + 8)).flatten() {
                            prefetch(c);
                        }
                        if let Some(c) = (ti + 4 < hi).then(|| ts.child(ti + 4)).flatten() {
                            if let Some(p) = c.pfx.first() {
                                prefetch(p);
                            }
                            if let Some(k) = c.children.first() {
                                prefetch(k);
                            }
                        }
                        ts.child_mut(ti)
                    } else {
                        None
                    };
                    page[ti - page_lo] = if let Some(node) = node {
                        sync(node, v, true, &mut ar);
                        top_entry(&node.compiled, &mut ar)
                    } else if v == NO_MATCH {
                        K::Top::leaf(0)
                    } else {
                        K::Top::leaf(leaf_of(v, &mut ar))
                    };
                }
            }
            wrote
        });
        self.arenas = ar;
        self.dirty_ranges.clear();
        // only the listed entries have their bit set
        for &ti in &self.dirty_list {
            self.dirty_bits[ti as usize / 64] = 0;
        }
        self.dirty_list.clear();
        self.needs_full = false;
        self.full_builds += 1;
        self.base_words = self.arenas.words();
    }
}

fn remove_rec(node: &mut CNode, a: u128, len: u32, start: u32) -> Option<u32> {
    if len <= start + STRIDE {
        let key = pfx_key(a, start, len);
        let i = node.pfx.binary_search_by_key(&key, |e| e.0).ok()?;
        let (_, v) = node.pfx.remove(i);
        node.own_dirty = true;
        node.dirty = true;
        return Some(v);
    }
    let slot = slot_of(a, start);
    if !node.has_child(slot) {
        return None;
    }
    let pos = node.child_pos(slot);
    let v = remove_rec(&mut node.children[pos], a, len, start + STRIDE)?;
    node.dirty = true;
    node.dirty_kids |= 1u64 << slot;
    if node.children[pos].is_empty() {
        node.children.remove(pos);
        node.child_bits &= !(1u64 << slot);
        node.own_dirty = true;
    }
    Some(v)
}

fn collect_rec(node: &CNode, base: u128, start: u32, out: &mut impl FnMut(u128, u8, u32)) {
    for &(key, v) in &node.pfx {
        let r = u32::from(key >> 8);
        let b = u128::from(key & 0xff);
        let a = base | (b << (128 - start - r));
        out(a, (start + r) as u8, v);
    }
    let mut bits = node.child_bits;
    let mut k = 0;
    while bits != 0 {
        let s = bits.trailing_zeros();
        bits &= bits - 1;
        let shift = 128 - start - STRIDE;
        let a = base | (u128::from(s) << shift);
        collect_rec(&node.children[k], a, start + STRIDE, out);
        k += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(set: &[(u32, u8, u32)], a: u32) -> u32 {
        let mut best: Option<(u8, u32)> = None;
        for &(p, l, v) in set {
            if a.mask(l) == p && best.is_none_or(|(bl, _)| l > bl) {
                best = Some((l, v));
            }
        }
        best.map_or(NO_MATCH, |b| b.1)
    }

    fn check(b: &mut LpmBuilder<u32>, probes: &[u32]) -> Lpm<u32> {
        let lpm = b.snapshot();
        let set = b.prefixes();
        assert_eq!(set.len(), b.len());
        for &a in probes {
            assert_eq!(lpm.lookup(a), naive(&set, a), "addr {a:#010x}");
        }
        lpm
    }

    #[test]
    fn bulk_changes_compile_in_one_pass() {
        let prefixes: Vec<(u32, u8, u32)> = (0..3 * BULK_MIN as u32)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) & 0xffff_ff00, 24, i))
            .collect();
        let fresh = {
            let mut b: LpmBuilder<u32> = prefixes.iter().copied().collect();
            b.snapshot().memory_bytes()
        };
        // One prefix and a snapshot first: the bulk that follows is compiled into
        // fresh arrays, exactly as a builder that never had a snapshot does.
        let mut b = LpmBuilder::<u32>::new();
        b.insert(prefixes[0].0, 24, prefixes[0].2);
        b.snapshot();
        b.extend(prefixes.iter().copied());
        let before = b.full_builds;
        let lpm = check(&mut b, &[0, 0x0a00_0000, prefixes[7].0 | 5]);
        assert_eq!(b.full_builds, before + 1);
        assert_eq!(lpm.memory_bytes(), fresh);
        // A few changes stay incremental.
        b.insert(0x0a00_0000, 8, 1);
        check(&mut b, &[0x0a01_0203]);
        assert_eq!(b.full_builds, before + 1);
    }

    #[test]
    fn leaf_compression() {
        let mut slots = [7u32; 64];
        slots[10..20].fill(8);
        slots[40] = 9;
        let (lv, buf, n) = compress_leaves(&slots, 0);
        assert_eq!(lv, 1 | (1 << 10) | (1 << 20) | (1 << 40) | (1 << 41));
        assert_eq!(&buf[..n], [7, 8, 7, 9, 7]);
        // Child slots neither start nor break runs.
        let children = 0b11 | (1 << 20) | (1 << 40) | (1 << 63);
        let (lv, buf, n) = compress_leaves(&slots, children);
        assert_eq!(lv, (1 << 2) | (1 << 10) | (1 << 21));
        assert_eq!(&buf[..n], [7, 8, 7]);
        let (lv, _, n) = compress_leaves(&slots, u64::MAX);
        assert_eq!((lv, n), (0, 0));
        let (lv, buf, n) = compress_leaves(&slots, u64::MAX >> 1);
        assert_eq!((lv, &buf[..n]), (1 << 63, &[7][..]));
    }

    #[test]
    fn empty_and_default() {
        let mut b = LpmBuilder::<u32>::new();
        assert!(b.is_empty());
        let lpm = b.snapshot();
        assert_eq!(lpm.lookup(0), NO_MATCH);
        assert_eq!(lpm.lookup(u32::MAX), NO_MATCH);
        let e = Lpm::<u128>::default();
        assert_eq!(e.lookup(12345), NO_MATCH);
        assert!(e.is_empty());
        assert_eq!(e.depth_stats(), DepthStats::default());
    }

    #[test]
    fn every_depth_v4() {
        let mut b = LpmBuilder::<u32>::new();
        let base = 0xc0a8_1234u32;
        for len in 0..=32u8 {
            b.insert(base, len, u32::from(len));
        }
        let mut probes = vec![0, u32::MAX, base, base ^ 1, base ^ 2, base ^ 0x100];
        for bit in 0..32 {
            probes.push(base ^ (1 << bit));
        }
        let lpm = check(&mut b, &probes);
        assert_eq!(lpm.lookup(base), 32);
        let st = lpm.depth_stats();
        assert_eq!(st.count, 33);
        assert_eq!(st.max, 3);
        // 19..=24 -> 1, 25..=30 -> 2, 31, 32 -> 3
        assert_eq!(st.sum, 6 + 12 + 6);
        // Remove from the longest down, checking at each step.
        for len in (0..=32u8).rev() {
            assert_eq!(b.remove(base, len), Some(u32::from(len)));
            check(&mut b, &probes);
        }
        assert!(b.is_empty());
    }

    #[test]
    fn short_prefix_changes_propagate_below() {
        let mut b = LpmBuilder::<u32>::new();
        b.insert(0x0a01_0200, 24, 24);
        b.insert(0x0a01_0280, 25, 25);
        let probes = [
            0x0a01_0201,
            0x0a01_0281,
            0x0a01_0301,
            0x0a00_0000,
            0x0aff_ffff,
        ];
        let old = check(&mut b, &probes);
        b.insert(0x0a00_0000, 8, 8);
        let mid = check(&mut b, &probes);
        assert_eq!(mid.lookup(0x0a01_0301), 8);
        assert_eq!(mid.lookup(0x0a01_0201), 24);
        b.insert(0x0a01_0000, 16, 16);
        check(&mut b, &probes);
        b.remove(0x0a00_0000, 8);
        b.insert(0, 0, 0);
        let last = check(&mut b, &probes);
        assert_eq!(last.lookup(0x0b00_0000), 0);
        // Persistence.
        assert_eq!(old.lookup(0x0a01_0301), NO_MATCH);
        assert_eq!(mid.lookup(0x0a01_0301), 8);
        assert_eq!(old.lookup(0x0a01_0281), 25);
    }

    #[test]
    fn get_try_insert_and_masking() {
        let mut b = LpmBuilder::<u32>::new();
        assert_eq!(b.insert(0x0a01_02ff, 24, 1), None);
        assert_eq!(b.get(0x0a01_0200, 24), Some(1));
        assert_eq!(b.get(0x0a01_0277, 24), Some(1));
        assert_eq!(b.insert(0x0a01_0200, 24, 2), Some(1));
        assert_eq!(b.len(), 1);
        assert_eq!(
            b.try_insert(0x0a01_0201, 24, 3),
            Err(PrefixError::HostBitsSet)
        );
        assert_eq!(
            b.try_insert(0x0a01_0200, 33, 3),
            Err(PrefixError::LengthTooLong { len: 33, max: 32 })
        );
        assert_eq!(b.try_insert(0x0a01_0200, 23, 3), Ok(None));
        // Clamped length.
        assert_eq!(b.insert(0x0102_0304, 200, 9), None);
        assert_eq!(b.get(0x0102_0304, 32), Some(9));
        assert_eq!(b.get(0x0102_0304, 255), Some(9));
        assert_eq!(b.remove(0x0102_0304, 99), Some(9));
        assert_eq!(b.remove(0x0102_0304, 32), None);
        let lpm = b.snapshot();
        assert_eq!(lpm.lookup(0x0a01_0203), 2);
        assert_eq!(lpm.lookup(0x0a01_0303), 3);
        assert_eq!(lpm.len(), 2);
    }

    #[test]
    fn automatic_compaction_keeps_answers() {
        let mut b = LpmBuilder::<u32>::new();
        for i in 0..64u32 {
            b.insert(0x0a00_0000 | (i << 8), 24, i);
        }
        let first = b.snapshot();
        let base = b.arenas.words();
        let mut compactions = 0;
        let mut prev = b.arenas.words();
        for round in 0..3000u32 {
            let i = round % 64;
            b.insert(0x0a00_0000 | (i << 8), 24, 1000 + round);
            b.insert(0x0a00_0080 | (i << 8), 25, 5000 + round);
            let lpm = b.snapshot();
            assert_eq!(lpm.lookup(0x0a00_0001 | (i << 8)), 1000 + round);
            assert_eq!(lpm.lookup(0x0a00_0081 | (i << 8)), 5000 + round);
            if b.arenas.words() < prev {
                compactions += 1;
            }
            prev = b.arenas.words();
        }
        assert!(compactions >= 1, "base {base}, now {prev}");
        assert_eq!(first.lookup(0x0a00_0501), 5);
        assert_eq!(first.lookup(0x0a00_0581), 5);
    }

    #[test]
    fn snapshots_are_send_sync_and_batch_tolerates_short_output() {
        fn assert_send_sync<T: Send + Sync + Clone + 'static>() {}
        assert_send_sync::<Lpm<u32>>();
        assert_send_sync::<Lpm<u128>>();
        let mut b = LpmBuilder::<u32>::from_iter([(0x0a00_0000, 8, 1), (0, 0, 2)]);
        let lpm = b.snapshot();
        let clone = lpm.clone();
        let t = std::thread::spawn(move || clone.lookup(0x0a01_0101));
        assert_eq!(t.join().ok(), Some(1));
        let mut out = [7u32; 2];
        lpm.lookup_batch(&[0x0a00_0001, 0x0b00_0000, 0x0a00_0002], &mut out);
        assert_eq!(out, [1, 2]);
        let mut long = [7u32; 4];
        lpm.lookup_batch(&[0x0a00_0001], &mut long);
        assert_eq!(long, [1, 7, 7, 7]);
        lpm.lookup_batch(&[], &mut long);
        assert!(lpm.memory_bytes() > 0);
        assert!(format!("{b:?}").starts_with("LpmBuilder"));
    }

    #[test]
    fn batch_of_every_length_matches_single_lookups() {
        // lengths around the pipeline's group boundaries (groups of 32, three
        // in flight), with walks of depth 0 to 3 mixed in each group
        let mut b = LpmBuilder::<u32>::from_iter([
            (0x0a00_0000, 8, 1),
            (0x0a01_0000, 24, 2),
            (0x0a01_0080, 25, 3),
            (0x0a01_0081, 32, 4),
            (0xc000_0000, 2, 5),
        ]);
        let lpm = b.snapshot();
        let pool = [
            0x0a01_0081u32,
            0x0a00_0001,
            0x0b00_0000,
            0x0a01_0001,
            0xc123_4567,
            0x0a01_0090,
            0,
        ];
        for len in 0..=200usize {
            let addrs: Vec<u32> = (0..len).map(|i| pool[(i * 5 + len) % pool.len()]).collect();
            let mut out = vec![u32::MAX; len + 3];
            lpm.lookup_batch(&addrs, &mut out);
            for (i, a) in addrs.iter().enumerate() {
                assert_eq!(out[i], lpm.lookup(*a), "len {len} lane {i}");
            }
            assert_eq!(&out[len..], &[u32::MAX; 3], "len {len}: past the input");
            // a shorter output slice bounds the work
            let mut short = vec![u32::MAX; len / 2];
            lpm.lookup_batch(&addrs, &mut short);
            assert_eq!(short[..], out[..len / 2], "len {len}: short output");
            // other group sizes, down to one lane and up to 64
            for run in [
                Lpm::lookup_batch_groups::<1>,
                Lpm::lookup_batch_groups::<7>,
                Lpm::lookup_batch_groups::<64>,
            ] {
                let mut other = vec![u32::MAX; len];
                run(&lpm, &addrs, &mut other);
                assert_eq!(other[..], out[..len], "len {len}: other group size");
            }
            // the visiting form: every position once, in order, with the same value
            let mut seen = Vec::with_capacity(len);
            lpm.lookup_batch_with(&addrs, |i, v| seen.push((i, v)));
            let want: Vec<(usize, u32)> = out[..len].iter().copied().enumerate().collect();
            assert_eq!(seen, want, "len {len}: lookup_batch_with");
        }
    }

    #[test]
    fn v6_extremes() {
        let mut b = LpmBuilder::<u128>::new();
        let a: u128 = 0x2001_0db8_0000_0000_0000_0000_0000_0001;
        for len in [0u8, 1, 16, 19, 20, 21, 32, 48, 64, 126, 127, 128] {
            b.insert(a, len, u32::from(len));
        }
        let lpm = b.snapshot();
        assert_eq!(lpm.lookup(a), 128);
        assert_eq!(lpm.lookup(a ^ 1), 127);
        assert_eq!(lpm.lookup(a ^ 2), 126);
        assert_eq!(lpm.lookup(a ^ 4), 64);
        assert_eq!(lpm.lookup(a ^ (1 << 100)), 21);
        assert_eq!(lpm.lookup(a ^ (1 << 107)), 20);
        assert_eq!(lpm.lookup(a ^ (1 << 108)), 19);
        assert_eq!(lpm.lookup(!a), 0);
        assert_eq!(lpm.depth_stats().max, 18);
        let mut out = [0u32; 3];
        lpm.lookup_batch(&[a, a ^ 1, !a], &mut out);
        assert_eq!(out, [128, 127, 0]);
    }
}
