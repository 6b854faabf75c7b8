//! Sharing a namespace between one writer and many readers: readers never wait.
//!
//! The writer changes its own [`Netns`] and publishes a compiled [`Snapshot`] with one
//! atomic pointer swap. Each reader thread keeps a [`Reader`]: its current snapshot and
//! the generation it belongs to. Before a lookup the reader compares the shared
//! generation counter with its own (one atomic load); only when a new snapshot was
//! published does it fetch it. Lookups themselves take no lock, no reference count and
//! allocate nothing (the equivalent of the kernel's RCU readers and noref results).
//!
//! Replaced snapshots are freed by the writer, not by the reader that happens to let go
//! of one last (the kernel's `call_rcu`): the writer keeps each replaced snapshot and
//! drops it at a later publication once no reader holds it, so that a reader never pays
//! for freeing the routes a batch replaced.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::netns::Netns;
use crate::snapshot::Snapshot;

struct Shared {
    current: ArcSwap<Snapshot>,
    generation: AtomicU64,
}

/// The writer side: owns the namespace, publishes snapshots.
pub struct Fib {
    ns: Netns,
    shared: Arc<Shared>,
    published: u64,
    fast4: Option<crate::snapshot::Fast4Builder>,
    fast6: Option<crate::snapshot::Fast6Builder>,
    /// Replaced snapshots, freed here once the writer holds the last reference.
    retired: Vec<Arc<Snapshot>>,
    /// The sysctls as of the last publication: a change made by writing
    /// `Netns::sysctl` directly is noticed here.
    sysctl_seen: crate::sysctl::Sysctls,
}

impl Fib {
    /// Start from a namespace; its first snapshot is published at once.
    pub fn new(mut ns: Netns) -> Fib {
        // every table's change list starts here
        let ids: Vec<u32> = ns.tables4().map(|t| t.id).collect();
        for t in ids {
            let _ = ns.take_touched4(t);
        }
        let ids6: Vec<u32> = ns.tables6().map(|t| t.id).collect();
        for t in ids6 {
            let _ = ns.take_touched6(t);
        }
        let mut fast4 = ns.fast4_builder();
        let mut fast6 = ns.fast6_builder();
        let sysctl_seen = ns.sysctl.clone();
        let snap = Snapshot::with_fast(
            ns.clone(),
            fast4.as_mut().map(|b| b.snapshot()),
            fast6.as_mut().map(|b| b.snapshot()),
        );
        Fib {
            ns,
            shared: Arc::new(Shared {
                current: ArcSwap::from_pointee(snap),
                generation: AtomicU64::new(1),
            }),
            published: 1,
            fast4,
            fast6,
            retired: Vec::new(),
            sysctl_seen,
        }
    }

    /// The namespace as the writer sees it (including unpublished changes).
    pub fn netns(&self) -> &Netns {
        &self.ns
    }

    /// Change the namespace (a batch of requests); readers see nothing until
    /// [`Fib::publish`].
    pub fn apply<R>(&mut self, f: impl FnOnce(&mut Netns) -> R) -> R {
        self.ns.bulk(f)
    }

    /// Compile and publish the current state: one pointer swap, then the generation
    /// counter moves so that readers pick the new snapshot up on their next lookup.
    pub fn publish(&mut self) {
        // sysctls written directly (without Netns::sysctls_changed) still recompile
        // what depends on them
        if self.ns.sysctl != self.sysctl_seen {
            self.ns.sysctls_changed();
            self.sysctl_seen = self.ns.sysctl.clone();
        }
        // IPv4 answers: recompute only the changed prefixes unless something global
        // (links, addresses, rules, sysctls, the default table) changed. Every table's
        // changes are taken, so that each one's list starts afresh here.
        let main = self.ns.take_touches4(crate::route::table::MAIN);
        let ids: Vec<u32> = self.ns.tables4().map(|t| t.id).collect();
        let mut others: Option<Vec<crate::prefix::Prefix4>> = Some(Vec::new());
        let mut local: Option<Vec<crate::prefix::Prefix4>> = Some(Vec::new());
        let mut default_changed = false;
        let walk4 = self.fast4.as_ref().is_some_and(|b| b.walk.is_some());
        for id in ids
            .iter()
            .copied()
            .filter(|&t| t != crate::route::table::MAIN)
        {
            let t = self.ns.take_touched4(id);
            match id {
                crate::route::table::LOCAL => local.clone_from(&t),
                crate::route::table::DEFAULT => {
                    default_changed = t.as_ref().is_none_or(|v| !v.is_empty())
                }
                _ => {}
            }
            // (the default rules' walk reads local and main only)
            match (others.as_mut(), t) {
                (Some(o), Some(v)) if walk4 => o.extend(v),
                (Some(_), Some(_)) => {}
                _ => others = None,
            }
        }
        let rebuild = match (&self.fast4, &main) {
            (Some(b), Some(_)) if b.epoch == self.ns.global_epoch() => match &b.walk {
                // the whole rule walk: any table's changes, and the same tables
                Some(tables) => others.is_none() || *tables != ids,
                // the default rules' walk: local and main changes, default unchanged
                None => local.is_none() || default_changed,
            },
            _ => true,
        };
        if rebuild {
            self.fast4 = self.ns.fast4_builder();
        } else if let Some(b) = self.fast4.as_mut() {
            let changed = if b.walk.is_some() { others } else { local };
            self.ns.fast4_update_touches(
                b,
                &changed.unwrap_or_default(),
                &main.unwrap_or_default(),
            );
        }
        // IPv6 answers likewise (the default rules' walk: local and main only)
        let ids6: Vec<u32> = self.ns.tables6().map(|t| t.id).collect();
        let mut all6: Option<Vec<crate::prefix::Prefix6>> = Some(Vec::new());
        let mut plain6: Option<Vec<crate::prefix::Prefix6>> = Some(Vec::new());
        for id in ids6.iter().copied() {
            let t = self.ns.take_touched6(id);
            if id == crate::route::table::LOCAL || id == crate::route::table::MAIN {
                match (plain6.as_mut(), &t) {
                    (Some(o), Some(v)) => o.extend_from_slice(v),
                    _ => plain6 = None,
                }
            }
            match (all6.as_mut(), t) {
                (Some(o), Some(v)) => o.extend(v),
                _ => all6 = None,
            }
        }
        let changed6 = match &self.fast6 {
            Some(b) if b.epoch == self.ns.global_epoch() => match &b.walk {
                Some(tables) if *tables == ids6 => all6,
                Some(_) => None,
                None => plain6,
            },
            _ => None,
        };
        match (self.fast6.as_mut(), changed6) {
            (Some(b), Some(touched)) => self.ns.fast6_update(b, &touched),
            _ => self.fast6 = self.ns.fast6_builder(),
        }
        let fast4 = self.fast4.as_mut().map(|b| b.snapshot());
        let fast6 = self.fast6.as_mut().map(|b| b.snapshot());
        let snap = Snapshot::with_fast(self.ns.clone(), fast4, fast6);
        let old = self.shared.current.swap(Arc::new(snap));
        self.published += 1;
        self.shared
            .generation
            .store(self.published, Ordering::Release);
        // free what no reader holds any more (a replaced snapshot can gain no new
        // holder: readers only fetch the current one); the rest waits for the next call
        self.retired.retain(|s| Arc::strong_count(s) > 1);
        self.retired.push(old);
    }

    /// Replaced snapshots still held by some reader (freed by a later publication).
    pub fn retired(&self) -> usize {
        self.retired.len()
    }

    /// A reader handle (one per thread; `Send`).
    pub fn reader(&self) -> Reader {
        Reader {
            shared: Arc::clone(&self.shared),
            snap: self.shared.current.load_full(),
            generation: self.shared.generation.load(Ordering::Acquire),
        }
    }
}

/// A reader's handle: the snapshot it answers from, refreshed when the writer publishes.
pub struct Reader {
    shared: Arc<Shared>,
    snap: Arc<Snapshot>,
    generation: u64,
}

impl Reader {
    /// The current snapshot (refreshed first if a newer one was published).
    #[inline]
    pub fn snapshot(&mut self) -> &Snapshot {
        let g = self.shared.generation.load(Ordering::Acquire);
        if g != self.generation {
            self.snap = self.shared.current.load_full();
            self.generation = g;
        }
        &self.snap
    }

    /// The generation of the snapshot last returned.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

impl Clone for Reader {
    fn clone(&self) -> Self {
        Reader {
            shared: Arc::clone(&self.shared),
            snap: Arc::clone(&self.snap),
            generation: self.generation,
        }
    }
}
