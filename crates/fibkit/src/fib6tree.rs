//! The shape of the kernel's IPv6 radix tree (`struct fib6_node`, net/ipv6/ip6_fib.c)
//! for one table, kept for one thing a lookup can see of it: the key of a destination
//! node that holds source-specific routes but no route of its own.
//!
//! `fib6_node_lookup_1` tries such a node only when the looked-up address lies inside
//! the prefix of the route its `leaf` pointer names. A node with routes names its first
//! one; a node without names whatever the tree last put there: the first source route
//! added while it had no route (`fib6_add`), or, once its own routes are gone
//! (`fib6_repair_tree`) or the named route is deleted (`fib6_purge_rt`), the leaf of its
//! first child (`fib6_find_prefix`) — a route of a longer prefix, so addresses of the
//! destination outside that prefix pass the source-specific routes over. A branch node
//! made by an insert (`fib6_add_1`) takes the leaf of the node it split from, so which
//! route a destination ends up keyed by depends on the order the routes came in
//! (conformance scenario 317).
//!
//! The table's own lists stay the truth; [`Tree6::update`] replays, per destination,
//! what changed in them since the last update, in the kernel's steps. Routes are told
//! apart by their serial numbers (`fib6_info` pointers in the kernel). Inside a source
//! subtree only the routes are tracked, not the subtree's own branch nodes: the key of
//! any of its routes is the destination itself.

use crate::prefix::Prefix6;
use std::collections::HashMap;

/// Tables with more nodes than this are not tracked (a full BGP table holds no
/// source-specific routes, and tracking costs every insert a walk of the tree).
pub const TRACK_LIMIT: usize = 10_000;

const ROOT: u32 = 0;
const NIL: u32 = u32::MAX;

/// What a node's `leaf` pointer names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaf {
    /// `fib6_null_entry` (key `::/0`), or nothing.
    Null,
    /// A route: its serial and its destination.
    Route(u64, Prefix6),
}

#[derive(Clone, Debug)]
struct Node {
    prefix: Prefix6,
    parent: u32,
    child: [u32; 2],
    /// The serials of the node's own routes, in list order (non-empty: `RTN_RTINFO`).
    plain: Vec<u64>,
    /// The source subtree: per source prefix (sorted), the serials of its routes.
    sub: Vec<(Prefix6, Vec<u64>)>,
    /// The leaf pointer while the node has no routes of its own.
    leaf: Leaf,
}

/// One destination's routes as the table now holds them: its plain routes' serials and,
/// per source prefix, its source-specific routes' serials.
pub type DestState = (Prefix6, Vec<u64>, Vec<(Prefix6, Vec<u64>)>);

/// The radix tree of one IPv6 table (see the module documentation).
#[derive(Clone, Debug)]
pub struct Tree6 {
    nodes: Vec<Node>,
    free: Vec<u32>,
    index: HashMap<Prefix6, u32>,
}

impl Default for Tree6 {
    fn default() -> Self {
        Tree6::new()
    }
}

/// Bit `i` (0: the most significant) of `a`.
fn bit(a: u128, i: u8) -> usize {
    if i >= 128 {
        0
    } else {
        ((a >> (127 - u32::from(i))) & 1) as usize
    }
}

impl Tree6 {
    /// A tree holding only its root (`::/0`, no routes).
    pub fn new() -> Self {
        let root = Node {
            prefix: Prefix6::default(),
            parent: NIL,
            child: [NIL; 2],
            plain: Vec::new(),
            sub: Vec::new(),
            leaf: Leaf::Null,
        };
        Tree6 {
            nodes: vec![root],
            free: Vec::new(),
            index: HashMap::from([(Prefix6::default(), ROOT)]),
        }
    }

    /// The number of nodes (branch nodes included).
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether only the root is left.
    pub fn is_empty(&self) -> bool {
        self.index.len() == 1
    }

    /// The key a lookup compares an address with at destination `dst`, when the node
    /// there holds no route of its own (`None` otherwise, or without a node).
    pub fn key(&self, dst: Prefix6) -> Option<Prefix6> {
        let n = *self.index.get(&dst)?;
        let node = &self.nodes[n as usize];
        if !node.plain.is_empty() {
            return None;
        }
        Some(match node.leaf {
            Leaf::Null => Prefix6::default(),
            Leaf::Route(_, k) => k,
        })
    }

    /// Whether the tree has a node (with routes, or a branch node) at `p`.
    pub fn has_node(&self, p: Prefix6) -> bool {
        self.index.contains_key(&p)
    }

    /// The destinations whose nodes hold routes (plain or source-specific).
    pub fn route_dsts(&self) -> Vec<Prefix6> {
        self.index
            .iter()
            .filter(|(_, n)| {
                let node = &self.nodes[**n as usize];
                !node.plain.is_empty() || !node.sub.is_empty()
            })
            .map(|(p, _)| *p)
            .collect()
    }

    fn node(&self, n: u32) -> &Node {
        &self.nodes[n as usize]
    }
    fn node_mut(&mut self, n: u32) -> &mut Node {
        &mut self.nodes[n as usize]
    }

    fn alloc(&mut self, prefix: Prefix6, parent: u32, leaf: Leaf) -> u32 {
        let node = Node {
            prefix,
            parent,
            child: [NIL; 2],
            plain: Vec::new(),
            sub: Vec::new(),
            leaf,
        };
        let n = match self.free.pop() {
            Some(n) => {
                self.nodes[n as usize] = node;
                n
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.index.insert(prefix, n);
        n
    }

    fn release(&mut self, n: u32) {
        let p = self.node(n).prefix;
        self.index.remove(&p);
        let node = self.node_mut(n);
        node.plain.clear();
        node.sub.clear();
        node.child = [NIL; 2];
        self.free.push(n);
    }

    /// The leaf pointer of node `n`: its first route, or what was put there.
    fn leaf(&self, n: u32) -> Leaf {
        let node = self.node(n);
        match node.plain.first() {
            Some(s) => Leaf::Route(*s, node.prefix),
            None => node.leaf,
        }
    }

    /// `fib6_find_prefix`: the leaf of the first child, else a route of the source
    /// subtree (the subtree's own branch nodes are not tracked: the route of its
    /// shortest source in the first half stands for its first child's leaf).
    fn find_prefix(&self, n: u32) -> Leaf {
        if n == ROOT {
            return Leaf::Null;
        }
        let node = self.node(n);
        for c in node.child {
            if c != NIL {
                return self.leaf(c);
            }
        }
        for half in 0..2 {
            let first = node
                .sub
                .iter()
                .filter(|(s, l)| bit(s.addr, 0) == half && !l.is_empty())
                .min_by_key(|(s, _)| s.len);
            if let Some((_, l)) = first {
                return Leaf::Route(l[0], node.prefix);
            }
        }
        Leaf::Null
    }

    /// `fib6_add_1`: the node of `p`, made if missing (with a branch node above it when
    /// it parts from an existing node below the branch point).
    fn node_for(&mut self, p: Prefix6) -> u32 {
        if let Some(n) = self.index.get(&p) {
            return *n;
        }
        let mut cur = ROOT;
        loop {
            let dir = bit(p.addr, self.node(cur).prefix.len);
            let c = self.node(cur).child[dir];
            if c == NIL {
                let ln = self.alloc(p, cur, Leaf::Null);
                self.node_mut(cur).child[dir] = ln;
                return ln;
            }
            let cp = self.node(c).prefix;
            if cp.covers(&p) {
                cur = c;
                continue;
            }
            if p.covers(&cp) {
                // the new node goes above the existing one
                let ln = self.alloc(p, cur, Leaf::Null);
                self.node_mut(ln).child[bit(cp.addr, p.len)] = c;
                self.node_mut(c).parent = ln;
                self.node_mut(cur).child[dir] = ln;
                return ln;
            }
            // a branch node where they part, keyed as the node it splits from
            let b = ((p.addr ^ cp.addr).leading_zeros() as u8).min(p.len.min(cp.len));
            let leaf = self.leaf(c);
            let inn = self.alloc(Prefix6::new(p.addr, b), cur, leaf);
            let ln = self.alloc(p, inn, Leaf::Null);
            self.node_mut(inn).child[bit(p.addr, b)] = ln;
            self.node_mut(inn).child[bit(cp.addr, b)] = c;
            self.node_mut(c).parent = inn;
            self.node_mut(cur).child[dir] = inn;
            return ln;
        }
    }

    /// `fib6_repair_tree` for node `n`, just left without routes of its own (or without
    /// its subtree): re-key it if it must stay, else remove it and go up. Returns the
    /// node `fib6_purge_rt` starts from.
    fn repair(&mut self, mut n: u32) -> u32 {
        if n == ROOT {
            self.node_mut(ROOT).leaf = Leaf::Null;
            return ROOT;
        }
        loop {
            let [l, r] = self.node(n).child;
            if (l != NIL && r != NIL) || !self.node(n).sub.is_empty() {
                let leaf = self.find_prefix(n);
                self.node_mut(n).leaf = leaf;
                return self.node(n).parent;
            }
            let child = if l != NIL { l } else { r };
            let pn = self.node(n).parent;
            let side = usize::from(self.node(pn).child[0] != n);
            self.node_mut(pn).child[side] = child;
            if child != NIL {
                self.node_mut(child).parent = pn;
            }
            self.release(n);
            let up = self.node(pn);
            if pn == ROOT || !up.plain.is_empty() || !up.sub.is_empty() {
                return pn;
            }
            self.node_mut(pn).leaf = Leaf::Null;
            n = pn;
        }
    }

    /// `fib6_purge_rt`: nodes from `start` up that have no route of their own and
    /// name the deleted route `serial` are re-keyed.
    fn purge(&mut self, serial: u64, start: u32) {
        let mut n = start;
        while n != NIL {
            let node = self.node(n);
            if n != ROOT && node.plain.is_empty() && node.leaf_is(serial) {
                let leaf = self.find_prefix(n);
                self.node_mut(n).leaf = leaf;
            }
            n = self.node(n).parent;
        }
    }

    /// A failed add or change at `dst`, whose node holds no route of its own:
    /// `fib6_add_1` cleared the node's leaf, and the failure path (`fib6_repair_tree`,
    /// or `fib6_add`'s own fix-up for a source route) keys it with `fib6_find_prefix`.
    pub fn rekey(&mut self, dst: Prefix6) {
        if let Some(n) = self.index.get(&dst).copied() {
            if n != ROOT && self.node(n).plain.is_empty() {
                let leaf = self.find_prefix(n);
                self.node_mut(n).leaf = leaf;
            }
        }
    }

    /// Replay what changed at each of `states`' destinations since the last update:
    /// routes added first (shorter destinations first), then routes deleted (longer
    /// destinations first), one at a time as the kernel takes them.
    pub fn update(&mut self, mut states: Vec<DestState>) {
        states.sort_by_key(|(d, _, _)| (d.len, d.addr));
        for (dst, plain, sub) in &states {
            self.add_routes(*dst, plain, sub);
        }
        for (dst, plain, sub) in states.iter().rev() {
            self.delete_routes(*dst, plain, sub);
        }
        for (dst, plain, sub) in states {
            if let Some(n) = self.index.get(&dst).copied() {
                let node = self.node_mut(n);
                node.plain = plain;
                node.sub = sub.into_iter().filter(|(_, l)| !l.is_empty()).collect();
            }
        }
    }

    fn add_routes(&mut self, dst: Prefix6, plain: &[u64], sub: &[(Prefix6, Vec<u64>)]) {
        let old = self.index.get(&dst).map(|n| self.node(*n).clone());
        let old_plain: &[u64] = old.as_ref().map_or(&[], |o| &o.plain);
        if plain.iter().any(|s| !old_plain.contains(s)) {
            // fib6_add_1 finds or makes the node, fib6_add_rt2node links the routes;
            // those still to be deleted stay until then
            let mut list = plain.to_vec();
            list.extend(old_plain.iter().filter(|s| !plain.contains(s)));
            let n = self.node_for(dst);
            let node = self.node_mut(n);
            node.plain = list;
            node.leaf = Leaf::Null;
        }
        for (src, l) in sub {
            let old_l: &[u64] = old
                .as_ref()
                .and_then(|o| o.sub.iter().find(|(s, _)| s == src))
                .map_or(&[], |(_, l)| l);
            let Some(first) = l.iter().find(|s| !old_l.contains(s)).copied() else {
                continue;
            };
            let mut list = l.clone();
            list.extend(old_l.iter().filter(|s| !l.contains(s)));
            let n = self.node_for(dst);
            // a node without routes of its own is keyed by the new source route
            // (fib6_add_1 clears an exact match's leaf, fib6_add sets it)
            if self.node(n).plain.is_empty() {
                self.node_mut(n).leaf = if n == ROOT {
                    Leaf::Null
                } else {
                    Leaf::Route(first, dst)
                };
            }
            let node = self.node_mut(n);
            match node.sub.binary_search_by(|(s, _)| s.cmp(src)) {
                Ok(i) => node.sub[i].1 = list,
                Err(i) => node.sub.insert(i, (*src, list)),
            }
        }
    }

    fn delete_routes(&mut self, dst: Prefix6, plain: &[u64], sub: &[(Prefix6, Vec<u64>)]) {
        let Some(n) = self.index.get(&dst).copied() else {
            return;
        };
        let gone: Vec<u64> = (self.node(n).plain.iter())
            .filter(|s| !plain.contains(s))
            .copied()
            .collect();
        for s in gone {
            self.node_mut(n).plain.retain(|x| *x != s);
            let start = if self.node(n).plain.is_empty() {
                self.repair(n)
            } else {
                n
            };
            self.purge(s, start);
            if self.index.get(&dst) != Some(&n) {
                // the node went with its last route
                return;
            }
        }
        let old_sub = self.node(n).sub.clone();
        for (src, l) in old_sub {
            let keep: &[u64] = sub.iter().find(|(s, _)| *s == src).map_or(&[], |(_, l)| l);
            for s in l.into_iter().filter(|s| !keep.contains(s)) {
                let node = self.node_mut(n);
                if let Ok(i) = node.sub.binary_search_by(|(x, _)| x.cmp(&src)) {
                    node.sub[i].1.retain(|x| *x != s);
                    if node.sub[i].1.is_empty() {
                        node.sub.remove(i);
                    }
                }
                let node = self.node(n);
                let start = if !node.sub.is_empty() || !node.plain.is_empty() || n == ROOT {
                    n
                } else {
                    // the subtree went: the node is repaired as one left without routes
                    self.node_mut(n).leaf = Leaf::Null;
                    self.repair(n)
                };
                self.purge(s, start);
                if self.index.get(&dst) != Some(&n) {
                    return;
                }
            }
        }
    }
}

impl Node {
    fn leaf_is(&self, serial: u64) -> bool {
        matches!(self.leaf, Leaf::Route(s, _) if s == serial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Prefix6 {
        let (a, l) = s.split_once('/').unwrap();
        Prefix6::new(
            u128::from(a.parse::<std::net::Ipv6Addr>().unwrap()),
            l.parse().unwrap(),
        )
    }

    /// A destination's plain routes and source-specific routes (serials).
    type Routes = (Vec<u64>, Vec<(Prefix6, Vec<u64>)>);

    /// A tree whose destinations are set one change at a time.
    struct T {
        tree: Tree6,
    }

    impl T {
        fn new() -> Self {
            T { tree: Tree6::new() }
        }
        fn set(&mut self, dst: &str, plain: &[u64], sub: &[(&str, &[u64])]) {
            let d = p(dst);
            let sub: Vec<(Prefix6, Vec<u64>)> =
                sub.iter().map(|(s, l)| (p(s), l.to_vec())).collect();
            self.tree.update(vec![(d, plain.to_vec(), sub)]);
        }
        fn key(&self, dst: &str) -> Option<Prefix6> {
            self.tree.key(p(dst))
        }
    }

    const SRC: &str = "2001:db8:0:1::/64";

    #[test]
    fn deleting_the_own_route_keys_the_node_with_its_first_child() {
        let mut t = T::new();
        t.set("2001:db8:10::/48", &[], &[(SRC, &[1])]);
        assert_eq!(t.key("2001:db8:10::/48"), Some(p("2001:db8:10::/48")));
        t.set("2001:db8:10::/48", &[2], &[(SRC, &[1])]);
        assert_eq!(
            t.key("2001:db8:10::/48"),
            None,
            "a node with a route of its own"
        );
        t.set("2001:db8:10:5::/64", &[3], &[]);
        t.set("2001:db8:10::/48", &[], &[(SRC, &[1])]);
        assert_eq!(t.key("2001:db8:10::/48"), Some(p("2001:db8:10:5::/64")));
        // a new source route puts the node's own key back
        t.set(
            "2001:db8:10::/48",
            &[],
            &[(SRC, &[1]), ("2001:db8:0:2::/64", &[4])],
        );
        assert_eq!(t.key("2001:db8:10::/48"), Some(p("2001:db8:10::/48")));
    }

    #[test]
    fn a_branch_node_keeps_the_key_of_the_node_it_split_from() {
        for (first, second) in [
            ("2001:db8:50:1::/64", "2001:db8:50:2::/64"),
            ("2001:db8:50:2::/64", "2001:db8:50:1::/64"),
        ] {
            let mut t = T::new();
            t.set("2001:db8:50::/48", &[1], &[(SRC, &[2])]);
            t.set(first, &[3], &[]);
            t.set(second, &[4], &[]);
            t.set("2001:db8:50::/48", &[], &[(SRC, &[2])]);
            assert_eq!(t.key("2001:db8:50::/48"), Some(p(first)));
            assert_eq!(
                t.tree.len(),
                5,
                "root, the destination, a branch node, two children"
            );
            // the keying child deleted: the branch node goes, the other child keys it
            t.set(first, &[], &[]);
            assert_eq!(t.key("2001:db8:50::/48"), Some(p(second)));
            assert_eq!(t.tree.len(), 3);
        }
    }

    impl Tree6 {
        /// The tree's invariants: links both ways, children inside their parent and
        /// on the side of their first extra bit, every node holding routes or (a
        /// branch node) two children, and every key naming a live route inside the
        /// node (or the root's null entry).
        fn check(&self, live: &HashMap<u64, Prefix6>) {
            assert_eq!(self.index.get(&Prefix6::default()), Some(&ROOT));
            let mut seen = 0;
            let mut stack = vec![ROOT];
            while let Some(n) = stack.pop() {
                seen += 1;
                let node = self.node(n);
                assert_eq!(self.index.get(&node.prefix), Some(&n));
                for (side, c) in node.child.into_iter().enumerate() {
                    if c == NIL {
                        continue;
                    }
                    let cp = self.node(c).prefix;
                    assert_eq!(self.node(c).parent, n);
                    assert!(node.prefix.covers(&cp) && cp.len > node.prefix.len);
                    assert_eq!(bit(cp.addr, node.prefix.len), side);
                    stack.push(c);
                }
                let routes = !node.plain.is_empty() || !node.sub.is_empty();
                if n != ROOT && !routes {
                    assert!(
                        node.child.iter().all(|c| *c != NIL),
                        "a branch node with one child"
                    );
                }
                if n != ROOT && node.plain.is_empty() {
                    let Leaf::Route(s, k) = node.leaf else {
                        panic!("node {} keyed by nothing", node.prefix);
                    };
                    assert_eq!(
                        live.get(&s),
                        Some(&k),
                        "a dead or moved route keys {}",
                        node.prefix
                    );
                    assert!(node.prefix.covers(&k));
                }
            }
            assert_eq!(seen, self.index.len(), "every node reachable");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Random additions and deletions of plain and source-specific routes keep
        /// the tree well formed, and a tree whose routes are all gone is the root alone.
        #[test]
        fn random_changes_keep_the_tree_well_formed(
            ops in proptest::collection::vec((0u8..12, 0u8..3, 0u8..3, proptest::bool::ANY), 1..60)
        ) {
            // destinations: nested and sibling prefixes under 2001:db8::/32
            let dsts: Vec<Prefix6> = [
                "2001:db8::/32", "2001:db8::/48", "2001:db8:1::/48", "2001:db8:2::/48",
                "2001:db8:1:1::/64", "2001:db8:1:2::/64", "2001:db8:2:8::/64", "2001:db8::/64",
                "2001:db8:1:1::1/128", "::/0", "2001:db8:1::/47", "2001:db8:1:3::/64",
            ].iter().map(|x| p(x)).collect();
            let srcs = [Prefix6::default(), p("2001:db8:0:1::/64"), p("8000::/1")];
            let mut now: HashMap<Prefix6, Routes> = HashMap::new();
            let mut tree = Tree6::new();
            let mut serial = 0u64;
            for (d, s, which, add) in ops {
                let dst = dsts[usize::from(d)];
                let src = srcs[usize::from(s)];
                let (plain, sub) = now.entry(dst).or_default();
                let list = if src.len == 0 {
                    plain
                } else {
                    let i = match sub.binary_search_by(|(x, _)| x.cmp(&src)) {
                        Ok(i) => i,
                        Err(i) => {
                            sub.insert(i, (src, Vec::new()));
                            i
                        }
                    };
                    &mut sub[i].1
                };
                if add {
                    serial += 1;
                    list.insert(usize::from(which).min(list.len()), serial);
                } else if !list.is_empty() {
                    list.remove(usize::from(which) % list.len());
                }
                sub.retain(|(_, l)| !l.is_empty());
                let state = now[&dst].clone();
                tree.update(vec![(dst, state.0, state.1)]);
                let live: HashMap<u64, Prefix6> = now
                    .iter()
                    .flat_map(|(d, (pl, sb))| {
                        pl.iter().chain(sb.iter().flat_map(|(_, l)| l)).map(move |s| (*s, *d))
                    })
                    .collect();
                tree.check(&live);
            }
            let all: Vec<DestState> = now.keys().map(|d| (*d, Vec::new(), Vec::new())).collect();
            tree.update(all);
            tree.check(&HashMap::new());
            proptest::prop_assert!(tree.is_empty());
        }
    }

    #[test]
    fn deleting_the_keying_source_route_rekeys_the_node() {
        let mut t = T::new();
        t.set("2001:db8:20::/48", &[], &[(SRC, &[1])]);
        t.set("2001:db8:20:7::/64", &[2], &[]);
        t.set(
            "2001:db8:20::/48",
            &[],
            &[(SRC, &[1]), ("2001:db8:0:2::/64", &[3])],
        );
        t.set("2001:db8:20::/48", &[], &[(SRC, &[1])]);
        assert_eq!(t.key("2001:db8:20::/48"), Some(p("2001:db8:20:7::/64")));
        // without a child the subtree's route keys it
        t.set("2001:db8:20:7::/64", &[], &[]);
        assert_eq!(t.key("2001:db8:20::/48"), Some(p("2001:db8:20::/48")));
        // everything gone: only the root is left
        t.set("2001:db8:20::/48", &[], &[]);
        assert!(t.tree.is_empty());
        assert_eq!(t.tree.route_dsts(), Vec::<Prefix6>::new());
    }
}
