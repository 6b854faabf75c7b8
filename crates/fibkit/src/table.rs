//! The RIB of one table: every route entry, ordered as the kernel orders them.

use std::collections::BTreeMap;

use fibkit_lpm::{Lpm, LpmBuilder};

use crate::prefix::{mask4, Prefix4, Prefix6};
use crate::route::{Route4, Route6};

/// One IPv4 table: the RIB (every entry of every prefix, in the kernel's alias order:
/// TOS descending, priority ascending, then insertion order) and its compiled
/// longest-prefix-match index.
///
/// Each prefix owns a *slot*; the index maps an address to the slot of its longest
/// matching prefix. Lookups read the index when it is current ([`Table4::compile`] runs
/// after every change) and fall back to probing the RIB by prefix length otherwise, so
/// answers never depend on when the index was rebuilt.
#[derive(Clone, Debug, Default)]
pub struct Table4 {
    /// The table id.
    pub id: u32,
    /// Creation sequence number (the kernel lists tables of one hash bucket newest first).
    pub created: u64,
    /// `(network address, 32 - prefix length)` -> slot, in the trie's dump order
    /// (address ascending, longer prefix first).
    keys: BTreeMap<(u32, u8), u32>,
    /// Slot -> (prefix, entries).
    slots: Vec<(Prefix4, Vec<Route4>)>,
    free: Vec<u32>,
    lpm: LpmBuilder<u32>,
    index: Lpm<u32>,
    dirty: bool,
}

impl Table4 {
    /// An empty table.
    pub fn new(id: u32) -> Self {
        Table4 {
            id,
            ..Default::default()
        }
    }
    /// The entries of one prefix.
    pub fn get(&self, p: Prefix4) -> Option<&Vec<Route4>> {
        self.keys
            .get(&(p.addr, 32 - p.len))
            .map(|s| &self.slots[*s as usize].1)
    }
    /// Mutable entries of one prefix.
    pub fn get_mut(&mut self, p: Prefix4) -> Option<&mut Vec<Route4>> {
        let s = *self.keys.get(&(p.addr, 32 - p.len))?;
        Some(&mut self.slots[s as usize].1)
    }
    /// Mutable entries of one prefix (created empty; [`Table4::prune`] drops it again if
    /// it stays empty).
    pub fn entry(&mut self, p: Prefix4) -> &mut Vec<Route4> {
        let key = (p.addr, 32 - p.len);
        let s = match self.keys.get(&key) {
            Some(s) => *s,
            None => {
                let s = match self.free.pop() {
                    Some(s) => {
                        self.slots[s as usize] = (p, Vec::new());
                        s
                    }
                    None => {
                        self.slots.push((p, Vec::new()));
                        (self.slots.len() - 1) as u32
                    }
                };
                self.keys.insert(key, s);
                self.lpm.insert(p.addr, p.len, s);
                self.dirty = true;
                s
            }
        };
        &mut self.slots[s as usize].1
    }
    /// Drop prefixes left without entries.
    pub fn prune(&mut self) {
        let empty: Vec<((u32, u8), u32)> = self
            .keys
            .iter()
            .filter(|(_, s)| self.slots[**s as usize].1.is_empty())
            .map(|(k, s)| (*k, *s))
            .collect();
        for (k, s) in empty {
            self.keys.remove(&k);
            self.lpm.remove(k.0, 32 - k.1);
            self.free.push(s);
            self.dirty = true;
        }
    }
    /// Apply `f` to every prefix's entry list (then [`Table4::prune`]).
    pub fn for_each_list_mut(&mut self, mut f: impl FnMut(&mut Vec<Route4>)) {
        for s in self.keys.values() {
            f(&mut self.slots[*s as usize].1);
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
            self.index = self.lpm.snapshot();
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

/// Iterator of [`Table4::matches`].
pub struct Matches4<'a> {
    t: &'a Table4,
    dst: u32,
    next_len: i32,
    first: Option<u32>,
}

impl<'a> Iterator for Matches4<'a> {
    type Item = (Prefix4, &'a Vec<Route4>);
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(s) = self.first.take() {
            let (p, l) = &self.t.slots[s as usize];
            self.next_len = i32::from(p.len) - 1;
            return Some((*p, l));
        }
        while self.next_len >= 0 {
            let len = self.next_len as u8;
            self.next_len -= 1;
            let key = (self.dst & mask4(len), 32 - len);
            if let Some(s) = self.t.keys.get(&key) {
                let (p, l) = &self.t.slots[*s as usize];
                return Some((*p, l));
            }
        }
        None
    }
}

/// One IPv6 table: per (destination, source) node, its fib6_info list ordered by metric
/// (insertion order within a metric; ECMP siblings adjacent).
#[derive(Clone, Debug)]
pub struct Table6 {
    /// The table id.
    pub id: u32,
    /// Creation sequence number.
    pub created: u64,
    /// Nodes keyed by (dst, src). Call [`Table6::touch`] after changing which nodes exist
    /// (or [`Table6::touch_all`]) so that the index follows.
    pub nodes: BTreeMap<(Prefix6, Prefix6), Vec<Route6>>,
    lpm: LpmBuilder<u128>,
    index: Lpm<u128>,
    indexed: std::collections::BTreeSet<Prefix6>,
    touched: Vec<Prefix6>,
    touched_all: bool,
}

impl Table6 {
    /// An empty table.
    pub fn new(id: u32) -> Self {
        Table6 {
            id,
            created: 0,
            nodes: BTreeMap::new(),
            lpm: LpmBuilder::new(),
            index: Lpm::empty(),
            indexed: Default::default(),
            touched: Vec::new(),
            touched_all: false,
        }
    }
    /// Note that the nodes of `dst` may have appeared or disappeared.
    pub fn touch(&mut self, dst: Prefix6) {
        self.touched.push(dst);
    }
    /// Note that any node may have appeared or disappeared.
    pub fn touch_all(&mut self) {
        self.touched_all = true;
    }
    fn dst_live(&self, dst: Prefix6) -> bool {
        self.nodes
            .range((dst, Prefix6 { addr: 0, len: 0 })..)
            .take_while(|((d, _), _)| *d == dst)
            .any(|(_, v)| !v.is_empty())
    }
    /// Bring the index of destination prefixes up to date.
    pub fn compile(&mut self) {
        if !self.touched_all && self.touched.is_empty() {
            return;
        }
        let cands: Vec<Prefix6> = if self.touched_all {
            let mut all: std::collections::BTreeSet<Prefix6> = self.indexed.clone();
            all.extend(self.nodes.keys().map(|(d, _)| *d));
            all.into_iter().collect()
        } else {
            std::mem::take(&mut self.touched)
        };
        for d in cands {
            let live = self.dst_live(d);
            let was = self.indexed.contains(&d);
            if live && !was {
                self.lpm.insert(d.addr, d.len, u32::from(d.len));
                self.indexed.insert(d);
            } else if !live && was {
                self.lpm.remove(d.addr, d.len);
                self.indexed.remove(&d);
            }
        }
        self.touched.clear();
        self.touched_all = false;
        self.index = self.lpm.snapshot();
    }
    /// Whether the index reflects every change.
    pub fn is_compiled(&self) -> bool {
        !self.touched_all && self.touched.is_empty()
    }
    /// The longest destination prefix length with routes covering `dst` (from the index;
    /// `None` when no prefix covers it). Only meaningful when [`Table6::is_compiled`].
    pub fn longest(&self, dst: u128) -> Option<u8> {
        let v = self.index.lookup(dst);
        (v != fibkit_lpm::NO_MATCH).then_some(v as u8)
    }
    /// The compiled index.
    pub fn index(&self) -> &Lpm<u128> {
        &self.index
    }
    /// Drop empty nodes.
    pub fn prune(&mut self) {
        let before = self.nodes.len();
        self.nodes.retain(|_, v| !v.is_empty());
        if self.nodes.len() != before {
            self.touched_all = true;
        }
    }
    /// Whether a source-specific subtree hangs under `dst`.
    pub fn has_subtree(&self, dst: Prefix6) -> bool {
        self.nodes
            .range((dst, Prefix6 { addr: 0, len: 1 })..)
            .take_while(|((d, _), _)| *d == dst)
            .any(|((_, s), v)| s.len > 0 && !v.is_empty())
    }
    /// All entries in the kernel's dump order (a post-order walk of the radix tree:
    /// more specific prefixes before the prefixes that cover them).
    pub fn dump_order(&self) -> Vec<&Route6> {
        let mut keys: Vec<&(Prefix6, Prefix6)> = self
            .nodes
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, _)| k)
            .collect();
        keys.sort_by(|a, b| {
            postorder_cmp(a.0, b.0).then_with(|| {
                // subtree entries (src set) come before the node's own routes
                let sa = a.1;
                let sb = b.1;
                match (sa.len == 0, sb.len == 0) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Greater,
                    (false, true) => std::cmp::Ordering::Less,
                    (false, false) => postorder_cmp(sa, sb),
                }
            })
        });
        keys.into_iter()
            .flat_map(|k| self.nodes[k].iter())
            .collect()
    }
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
