//! A compiled longest-prefix-match index for IPv4 (`u32`) and IPv6 (`u128`)
//! keys, mapping an address to the `u32` value of its longest matching
//! prefix (or [`NO_MATCH`]).
//!
//! ```
//! use fibkit_lpm::{LpmBuilder, NO_MATCH};
//!
//! let mut b = LpmBuilder::<u32>::new();
//! b.insert(0x0a00_0000, 8, 1); // 10.0.0.0/8 -> 1
//! b.insert(0x0a01_0000, 16, 2); // 10.1.0.0/16 -> 2
//! let lpm = b.snapshot();
//! assert_eq!(lpm.lookup(0x0a01_0203), 2);
//! assert_eq!(lpm.lookup(0x0a02_0000), 1);
//! assert_eq!(lpm.lookup(0x0b00_0000), NO_MATCH);
//! ```
//!
//! # Structure
//!
//! A [Poptrie](https://doi.org/10.1145/2785956.2787474)-style multibit trie
//! in two arrays:
//!
//! * **Top level**: a direct-indexed array of 2^T entries, indexed by
//!   the first T bits of the address (T = [`Key::TOP_BITS`]: 18 for IPv4,
//!   24 for IPv6: announced IPv6 space lies in a few /12s, so the top-level
//!   pages outside them are one shared blank page, and 24 bits put a /48
//!   four node steps down instead of five). An entry is either a leaf index
//!   (the value of the longest prefix of length <= T covering it; leaf 0 is
//!   `NO_MATCH`) or the index of a node. IPv6 entries are one `u32` (bit 31
//!   set: a node). IPv4 entries are three words and hold a node without
//!   children in place (its `leafvec` and first leaf below): an IPv4 lookup
//!   that ends one level below the top, as every lookup in a table with
//!   nothing longer than /24 does, reads the entry and then its leaf, one
//!   cache line less than through a node (`BENCHMARKS.md`).
//! * **Words**: nodes and leaves in one `u32` array (indices are word
//!   offsets). A node takes 6 words (24 bytes) and resolves the next 6 bits
//!   (a *stride*; past the end of the key the slot index is zero-padded).
//!   `vec: u64` has bit `s` set when slot `s` has a child node; the children
//!   of a node are consecutive nodes from `child`, so the child at slot `s`
//!   is at `child + 6 * popcount(vec & below(s))`. The other slots are
//!   leaves, with *leaf pushing* (a slot holds the value of the longest
//!   prefix covering it, own or inherited from above) and run compression:
//!   `leafvec` has a bit set where the leaf value changes (child slots
//!   skipped), so slot `s`'s value is the word at
//!   `leaf + popcount(leafvec & upto(s)) - 1`. A node's leaf values are
//!   written just before it whenever both are (always in a full build), so
//!   the answer is often in the node's cache line or the one before: one
//!   array instead of separate node and leaf arrays saves a cache miss on a
//!   share of the lookups (`BENCHMARKS.md`).
//!
//! A lookup is one top-level load, then per node one node load and a
//! popcount, then one leaf load: a plain array walk, without locks,
//! allocation or reference counting. `popcnt` is not in the x86_64
//! baseline, so the lookup code is also compiled with it enabled and chosen
//! at run time. [`Lpm::lookup_batch`] walks groups of 32 addresses in
//! lockstep, one level at a time, three groups in flight one stage apart,
//! prefetching each lookup's next node or leaf so that the cache misses
//! overlap; [`Lpm::lookup_batch_by`] does the same over addresses held inside
//! larger items (flows, packets), read in place.
//!
//! # Depth and steps
//!
//! A prefix of length `len` is held at the top level when `len <= T`, else
//! in the leaves of the node at depth `d = ceil((len - T) / 6)`, which
//! covers lengths `T + 6(d-1) + 1 ..= T + 6d`. A *step* is one move from
//! the top level or from a node to a child node, i.e. one dependent node
//! fetch. [`DepthStats`] sums, over the stored prefixes, the number of steps
//! from the top level (depth 0) to the node holding each. A lookup that
//! ends at depth `d` reads `d` nodes besides the top-level entry and the
//! leaf. For IPv4 (T = 18): /0–/18 are at depth 0, /19–/24 at 1, /25–/30
//! at 2, /31–/32 at 3. For IPv6 (T = 24): /25–/30 at 1, /31–/36 at 2,
//! /37–/42 at 3, /43–/48 at 4, ..., /121–/126 at 17, /127–/128 at 18.
//!
//! # Memory layout and the update model
//!
//! The two arrays are [`Arc`](std::sync::Arc)-paged: each is a small
//! table of pointers to fixed-size pages (16 KiB each, starting on a cache
//! line; a block of nodes never straddles two pages), so that a snapshot
//! shares every page it does not change with the previous one. The page
//! tables are small enough to stay in L1/L2: paging costs one cache-hot load
//! per array access. The lookup walks read those arrays at the offsets the
//! index holds without bounds checks (the builder only writes offsets inside
//! the arrays; debug builds check every snapshot's offsets, see `prefetch.rs`).
//!
//! [`LpmBuilder`] keeps the prefix set in a *control trie* of the same
//! shape as the compiled one (each control node owns the prefixes its
//! compiled node holds, and remembers what it was compiled to). Updates only
//! touch the control trie and mark dirty the top-level entries and the
//! control nodes on the path to the change. The unit of rebuild (a *chunk*)
//! is one node: its leaf block, plus its children block when a child
//! changed. [`LpmBuilder::snapshot`] rebuilds only
//!
//! * the nodes whose prefixes or children changed, and the path from each
//!   up to its top-level entry (a parent points at its children's block,
//!   so the parent is rewritten too: path copying);
//! * for a changed prefix of length <= T, which covers a range of up to
//!   2^T top-level entries: the entries whose best short prefix changed
//!   (repainted directly when they have no subtree), and below each, the
//!   nodes whose inherited (leaf-pushed) value changed.
//!
//! The builder's per-entry state is kept per chunk of 64 top-level entries:
//! a chunk whose entries share one short-prefix value stores it once, and a
//! repaint walks the range as runs of equal value, whole chunks (and whole
//! top-level pages, which then share one page) at a time. Its cost follows
//! the prefixes, not the size of the range: a default route is repainted in
//! one pass over the chunks, and a builder with few prefixes only visits the
//! chunks they occupy.
//!
//! New blocks are appended to the arrays (bump allocation into pages that
//! no snapshot shares yet); a snapshot then clones the two page tables
//! (one `Arc` per page) and the top-level pages written since the previous
//! snapshot are copied once (copy-on-write). Earlier snapshots are never
//! modified, so they keep answering for their own state. Superseded blocks
//! stay in place (older snapshots may still read them) until the word
//! array reaches twice their size after the last full build; that
//! snapshot then rebuilds everything into fresh arrays (like a vector's
//! growth: amortized, but that one snapshot takes as long as a bulk build;
//! [`LpmBuilder::compact`] forces it). [`Lpm::memory_bytes`] includes the
//! superseded blocks.
//!
//! # Input handling
//!
//! Nothing panics on bad input: host bits past the prefix length are
//! masked and lengths above [`Key::BITS`] are clamped
//! ([`LpmBuilder::try_insert`] reports them instead). Values are opaque;
//! [`NO_MATCH`] should not be used as one (lookups could not tell it from
//! "no match").
#![deny(unsafe_code)]

mod builder;
mod key;
mod lpm;
mod paged;
mod prefetch;

pub use builder::LpmBuilder;
pub use key::Key;
pub use lpm::{Lpm, LpmView};
pub use prefetch::ordered_tsc;

/// Returned by lookups when no prefix matches. Callers never use this as a
/// value.
pub const NO_MATCH: u32 = u32::MAX;

/// Bits resolved per node.
pub(crate) const STRIDE: u32 = 6;
/// Top-level entry flag: the entry is a node index (else a leaf index).
pub(crate) const NODE_FLAG: u32 = 1 << 31;

pub(crate) const TOP_PAGE: usize = 4096;
pub(crate) const WORD_PAGE: usize = 4096;

/// The top-level array of a key type's entries (see `TopEntry`).
pub(crate) type Top<E> = paged::Paged<E, TOP_PAGE>;

mod top_entry {
    /// What a top-level entry holds.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum TopRef {
        /// The word offset of the entry's value (a leaf).
        Leaf(usize),
        /// A node without children, held in the entry itself: its `leafvec` and the
        /// word offset of its first leaf value (one line less per lookup).
        Inline(u64, u32),
        /// The word offset of the entry's node.
        Node(usize),
    }

    /// How one top-level entry is stored, per key type ([`crate::Key::Top`]):
    /// IPv4 entries hold a node without children in place (three words: most
    /// IPv4 lookups end one level below the top, where the tables have nothing
    /// longer than /24), IPv6 entries are one word (its sparse top level would
    /// triple in size, and few of its top nodes are childless).
    pub trait TopEntry:
        Copy + Default + PartialEq + Send + Sync + core::fmt::Debug + 'static
    {
        /// Whether childless nodes are held in the entry ([`TopRef::Inline`]).
        const INLINE: bool;
        /// An entry whose value is the leaf at word offset `off`.
        fn leaf(off: u32) -> Self;
        /// An entry pointing at the node at word offset `off`.
        fn node(off: u32) -> Self;
        /// An entry holding a childless node (only when [`TopEntry::INLINE`];
        /// `leafvec` is never 0 for a childless node, its first slot starts a run).
        fn inline(leafvec: u64, leaf: u32) -> Self;
        /// What the entry holds.
        fn get(self) -> TopRef;
    }

    impl TopEntry for u32 {
        const INLINE: bool = false;
        #[inline(always)]
        fn leaf(off: u32) -> Self {
            off
        }
        #[inline(always)]
        fn node(off: u32) -> Self {
            super::NODE_FLAG | off
        }
        fn inline(_: u64, _: u32) -> Self {
            unreachable!("one-word top entries hold no node")
        }
        #[inline(always)]
        fn get(self) -> TopRef {
            if self & super::NODE_FLAG != 0 {
                TopRef::Node((self & !super::NODE_FLAG) as usize)
            } else {
                TopRef::Leaf(self as usize)
            }
        }
    }

    /// `[leafvec low, leafvec high, word]`: a non-zero `leafvec` marks a node held
    /// in place (`word`: its first leaf); else `word` is a leaf offset or, with
    /// [`super::NODE_FLAG`], a node offset.
    impl TopEntry for [u32; 3] {
        const INLINE: bool = true;
        #[inline(always)]
        fn leaf(off: u32) -> Self {
            [0, 0, off]
        }
        #[inline(always)]
        fn node(off: u32) -> Self {
            [0, 0, super::NODE_FLAG | off]
        }
        #[inline(always)]
        fn inline(leafvec: u64, leaf: u32) -> Self {
            [leafvec as u32, (leafvec >> 32) as u32, leaf]
        }
        #[inline(always)]
        fn get(self) -> TopRef {
            let lv = u64::from(self[0]) | (u64::from(self[1]) << 32);
            if lv != 0 {
                TopRef::Inline(lv, self[2])
            } else if self[2] & super::NODE_FLAG != 0 {
                TopRef::Node((self[2] & !super::NODE_FLAG) as usize)
            } else {
                TopRef::Leaf(self[2] as usize)
            }
        }
    }
}
pub(crate) use top_entry::{TopEntry, TopRef};

#[cfg(test)]
mod top_entry_tests {
    use super::{TopEntry, TopRef, NODE_FLAG};

    #[test]
    fn entries_say_what_they_hold() {
        for off in [0u32, 1, 4095, 4096, NODE_FLAG - 1] {
            assert_eq!(
                <u32 as TopEntry>::leaf(off).get(),
                TopRef::Leaf(off as usize)
            );
            assert_eq!(
                <u32 as TopEntry>::node(off).get(),
                TopRef::Node(off as usize)
            );
            assert_eq!(<[u32; 3]>::leaf(off).get(), TopRef::Leaf(off as usize));
            assert_eq!(<[u32; 3]>::node(off).get(), TopRef::Node(off as usize));
            for lv in [1u64, 0x8000_0000_0000_0001, 1 << 32 | 1, u64::MAX] {
                assert_eq!(<[u32; 3]>::inline(lv, off).get(), TopRef::Inline(lv, off));
            }
        }
        // blank pages are leaf 0 (NO_MATCH) for both layouts
        assert_eq!(u32::default().get(), TopRef::Leaf(0));
        assert_eq!(<[u32; 3]>::default().get(), TopRef::Leaf(0));
        const { assert!(<[u32; 3] as TopEntry>::INLINE && !<u32 as TopEntry>::INLINE) };
    }
}
/// Nodes and leaves in one array of words: a node's leaves are pushed just before
/// it (see `sync`), so its answer is usually in the node's cache line or the one
/// before, instead of a line of a separate leaf array.
pub(crate) type Words = paged::Paged<u32, WORD_PAGE>;

/// Words of one node in [`Words`].
pub(crate) const NODE_WORDS: usize = 6;

/// A compiled trie node (24 bytes).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// Bit `s` set: slot `s` has a child node.
    pub(crate) vec: u64,
    /// Bit `s` set: slot `s` is a leaf whose value differs from the
    /// previous leaf slot's (start of a run).
    pub(crate) leafvec: u64,
    /// Word offset of the first child (children are consecutive nodes).
    pub(crate) child: u32,
    /// Word offset of the first leaf value of this node.
    pub(crate) leaf: u32,
}

impl Node {
    /// The node's words: `vec` and `leafvec` (low half first), `child`, `leaf`.
    pub(crate) fn to_words(self) -> [u32; NODE_WORDS] {
        [
            self.vec as u32,
            (self.vec >> 32) as u32,
            self.leafvec as u32,
            (self.leafvec >> 32) as u32,
            self.child,
            self.leaf,
        ]
    }

    /// The node stored in `w` (see [`Node::to_words`]).
    #[inline(always)]
    pub(crate) fn from_words(w: &[u32; NODE_WORDS]) -> Node {
        Node {
            vec: u64::from(w[0]) | (u64::from(w[1]) << 32),
            leafvec: u64::from(w[2]) | (u64::from(w[3]) << 32),
            child: w[4],
            leaf: w[5],
        }
    }
}

/// The depth (number of node steps from the top level) of the node holding
/// a prefix of length `len` when the top level resolves `top` bits.
pub(crate) fn depth_of_len(len: u32, top: u32) -> u32 {
    if len <= top {
        0
    } else {
        (len - top).div_ceil(STRIDE)
    }
}

/// How deep the stored prefixes sit in the trie.
///
/// For each stored prefix, its depth is the number of *steps* (node fetches
/// after the top-level array) from the top level to the node whose leaves
/// hold it; prefixes resolved by the top level have depth 0. See the crate
/// documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DepthStats {
    /// Sum of the depths of all prefixes.
    pub sum: u64,
    /// Number of prefixes.
    pub count: u64,
    /// Largest depth (0 when there is no prefix).
    pub max: u32,
}

impl DepthStats {
    /// Mean depth (0.0 when there is no prefix).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }
}

/// A prefix rejected by [`LpmBuilder::try_insert`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixError {
    /// The length exceeds the key width.
    LengthTooLong {
        /// The length given.
        len: u8,
        /// The key width ([`Key::BITS`]).
        max: u32,
    },
    /// The address has bits set past the prefix length.
    HostBitsSet,
}

impl core::fmt::Display for PrefixError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PrefixError::LengthTooLong { len, max } => {
                write!(f, "prefix length {len} exceeds {max}")
            }
            PrefixError::HostBitsSet => f.write_str("address has host bits set"),
        }
    }
}

impl std::error::Error for PrefixError {}
