//! The RIB of one table: every route entry, ordered as the kernel orders them.

use std::collections::BTreeMap;

use crate::prefix::{Prefix4, Prefix6};
use crate::route::{Route4, Route6};

/// One IPv4 table. Entries of a prefix are kept in the kernel's alias order
/// (TOS descending, priority ascending, then insertion order).
#[derive(Clone, Debug, Default)]
pub struct Table4 {
    /// The table id.
    pub id: u32,
    /// Creation sequence number (the kernel lists tables of one hash bucket newest first).
    pub created: u64,
    /// Keyed by `(network address, 32 - prefix length)` so that iteration runs in the
    /// trie's dump order: address ascending, longer prefix first.
    pub routes: BTreeMap<(u32, u8), Vec<Route4>>,
}

impl Table4 {
    /// An empty table.
    pub fn new(id: u32) -> Self {
        Table4 {
            id,
            created: 0,
            routes: BTreeMap::new(),
        }
    }
    /// The entries of one prefix.
    pub fn get(&self, p: Prefix4) -> Option<&Vec<Route4>> {
        self.routes.get(&(p.addr, 32 - p.len))
    }
    /// Mutable entries of one prefix (created empty).
    pub fn entry(&mut self, p: Prefix4) -> &mut Vec<Route4> {
        self.routes.entry((p.addr, 32 - p.len)).or_default()
    }
    /// Drop empty prefix lists.
    pub fn prune(&mut self) {
        self.routes.retain(|_, v| !v.is_empty());
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.routes.values().map(Vec::len).sum()
    }
    /// Whether the table holds no entry.
    pub fn is_empty(&self) -> bool {
        self.routes.values().all(Vec::is_empty)
    }
    /// All entries in dump order.
    pub fn iter(&self) -> impl Iterator<Item = &Route4> {
        self.routes.values().flatten()
    }
}

/// One IPv6 table: per (destination, source) node, its fib6_info list ordered by metric
/// (insertion order within a metric; ECMP siblings adjacent).
#[derive(Clone, Debug, Default)]
pub struct Table6 {
    /// The table id.
    pub id: u32,
    /// Creation sequence number.
    pub created: u64,
    /// Nodes keyed by (dst, src).
    pub nodes: BTreeMap<(Prefix6, Prefix6), Vec<Route6>>,
}

impl Table6 {
    /// An empty table.
    pub fn new(id: u32) -> Self {
        Table6 {
            id,
            created: 0,
            nodes: BTreeMap::new(),
        }
    }
    /// Drop empty nodes.
    pub fn prune(&mut self) {
        self.nodes.retain(|_, v| !v.is_empty());
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
