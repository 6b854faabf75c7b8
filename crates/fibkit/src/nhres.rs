//! Resilient nexthop groups (`ip nexthop add ... group ... type resilient`; the
//! kernel's `nh_res_*` functions in net/ipv4/nexthop.c).
//!
//! A resilient group hashes a flow to one of a fixed number of buckets, and each
//! bucket names one member: a change of members moves as few flows as it can. Each
//! member *wants* a share of the buckets proportional to its weight (rounded, as
//! `nh_res_group_rebalance` does); a bucket whose member holds more than it wants
//! moves to an underweight member only once it has been idle for `idle_timer`
//! (not used by a lookup), or when the group has been unbalanced for longer than
//! `unbalanced_timer` (0: never forced). A bucket not used since it last moved counts
//! as idle at once. Buckets of a member that left the group move at once.
//!
//! The kernel rechecks an unbalanced group from delayed work at the earliest time a
//! bucket may move (at least half a second later); fibkit runs the same checks at
//! those times when its clock moves on ([`crate::Netns::set_now`]).
//!
//! Lookups mark the bucket they use (`nh_res_bucket_set_busy`): the mark is an atomic
//! store, so lookups through a shared reference keep it, as the kernel's readers do.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The kernel's default idle timer (`NH_RES_DEFAULT_IDLE_TIMER`: 120 s), in ms.
pub const DEFAULT_IDLE_TIMER_MS: u64 = 120_000;

/// The shortest delay before the next check of an unbalanced group
/// (`NH_RES_UPKEEP_DW_MINIMUM_INTERVAL`: half a second), in ms.
const UPKEEP_MIN_INTERVAL_MS: u64 = 500;

/// One bucket.
#[derive(Debug, Default)]
pub struct ResBucket {
    /// The member it sends flows to (`None`: not occupied, moved at the next check).
    nh: Option<u32>,
    /// When a lookup last used it, or when it last moved (ms).
    used_at: AtomicU64,
    /// A lookup used it since it last moved (the kernel: `used_time !=
    /// migrated_time`).
    used: AtomicBool,
}

impl Clone for ResBucket {
    fn clone(&self) -> Self {
        ResBucket {
            nh: self.nh,
            used_at: AtomicU64::new(self.used_at.load(Ordering::Relaxed)),
            used: AtomicBool::new(self.used.load(Ordering::Relaxed)),
        }
    }
}

impl PartialEq for ResBucket {
    fn eq(&self, other: &Self) -> bool {
        self.nh == other.nh
            && self.used_at.load(Ordering::Relaxed) == other.used_at.load(Ordering::Relaxed)
            && self.used.load(Ordering::Relaxed) == other.used.load(Ordering::Relaxed)
    }
}

impl Eq for ResBucket {}

/// A member's share: the buckets it wants and holds.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Share {
    id: u32,
    wants: u32,
    count: u32,
}

/// The bucket table of a resilient group (`struct nh_res_table`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResTable {
    buckets: Vec<ResBucket>,
    /// ms.
    idle_timer: u64,
    /// ms; 0: never force a busy bucket to move.
    unbalanced_timer: u64,
    /// When the group last became unbalanced (ms; meaningful while `uw` is not empty).
    unbalanced_since: u64,
    /// The members' shares, in the group's order.
    shares: Vec<Share>,
    /// Underweight members, first the one buckets move to next (the kernel's
    /// `uw_nh_entries`, filled by adding at the head).
    uw: Vec<u32>,
    /// When the next check is due (ms), while the group is unbalanced.
    upkeep_at: Option<u64>,
}

impl ResTable {
    /// A table of `n` (> 0) unoccupied buckets; fill it with [`ResTable::set_members`].
    pub(crate) fn new(n: u16, idle_timer_ms: u64, unbalanced_timer_ms: u64) -> ResTable {
        ResTable {
            buckets: (0..n).map(|_| ResBucket::default()).collect(),
            idle_timer: idle_timer_ms,
            unbalanced_timer: unbalanced_timer_ms,
            unbalanced_since: 0,
            shares: Vec::new(),
            uw: Vec::new(),
            upkeep_at: None,
        }
    }

    /// The number of buckets.
    pub fn num_buckets(&self) -> usize {
        self.buckets.len()
    }

    /// The idle timer, in ms.
    pub fn idle_timer_ms(&self) -> u64 {
        self.idle_timer
    }

    /// The unbalanced timer, in ms (0: none).
    pub fn unbalanced_timer_ms(&self) -> u64 {
        self.unbalanced_timer
    }

    pub(crate) fn set_idle_timer_ms(&mut self, ms: u64) {
        self.idle_timer = ms;
    }

    pub(crate) fn set_unbalanced_timer_ms(&mut self, ms: u64) {
        self.unbalanced_timer = ms;
    }

    /// How long the group has been unbalanced at `now_ms` (0 when it is balanced).
    pub fn unbalanced_time_ms(&self, now_ms: u64) -> u64 {
        if self.uw.is_empty() {
            0
        } else {
            now_ms.saturating_sub(self.unbalanced_since)
        }
    }

    /// The member bucket `i` sends flows to.
    pub fn bucket_nh(&self, i: usize) -> Option<u32> {
        self.buckets.get(i).and_then(|b| b.nh)
    }

    /// How long bucket `i` has gone unused at `now_ms` (since a lookup used it or it
    /// moved).
    pub fn bucket_idle_ms(&self, i: usize, now_ms: u64) -> u64 {
        self.buckets.get(i).map_or(0, |b| {
            now_ms.saturating_sub(b.used_at.load(Ordering::Relaxed))
        })
    }

    /// When the next check is due (ms), if the group is unbalanced.
    pub fn upkeep_at(&self) -> Option<u64> {
        self.upkeep_at
    }

    /// `nexthop_select_path_res`: the member for a flow's hash, marking its bucket
    /// used at `now_ms`.
    pub(crate) fn select(&self, hash: u32, now_ms: u64) -> Option<u32> {
        if self.buckets.is_empty() {
            return None;
        }
        let b = &self.buckets[hash as usize % self.buckets.len()];
        b.used_at.store(now_ms, Ordering::Relaxed);
        b.used.store(true, Ordering::Relaxed);
        b.nh
    }

    fn share(&self, id: u32) -> Option<&Share> {
        self.shares.iter().find(|s| s.id == id)
    }

    fn share_mut(&mut self, id: u32) -> Option<&mut Share> {
        self.shares.iter_mut().find(|s| s.id == id)
    }

    fn overweight(&self, id: u32) -> bool {
        self.share(id).is_none_or(|s| s.count > s.wants)
    }

    /// The group's members changed (or were first set) at `now_ms`: buckets of members
    /// that left are emptied, the shares are worked out again and the buckets that may
    /// move, move (`replace_nexthop_grp_res`; at creation, `nh_res_group_rebalance`
    /// then `nh_res_table_upkeep`). `members`: ids and weights, in order.
    pub(crate) fn set_members(&mut self, members: &[(u32, u32)], now_ms: u64) {
        let was_unbalanced = !self.uw.is_empty();
        let since = self.unbalanced_since;
        for b in &mut self.buckets {
            if b.nh
                .is_some_and(|id| !members.iter().any(|&(m, _)| m == id))
            {
                b.nh = None;
            }
        }
        self.rebalance(members, now_ms);
        if was_unbalanced && !self.uw.is_empty() {
            self.unbalanced_since = since;
        }
        self.upkeep(now_ms);
    }

    /// `nh_res_group_rebalance`: each member's wanted share, and the underweight list.
    fn rebalance(&mut self, members: &[(u32, u32)], now_ms: u64) {
        let n = self.buckets.len() as u64;
        let total: u64 = members.iter().map(|&(_, w)| u64::from(w)).sum();
        self.shares.clear();
        self.uw.clear();
        if total == 0 {
            return;
        }
        let mut w = 0u64;
        let mut prev = 0u64;
        for &(id, weight) in members {
            w += u64::from(weight);
            // DIV_ROUND_CLOSEST
            let upper = (n * w + total / 2) / total;
            let wants = (upper - prev) as u32;
            prev = upper;
            let count = self.buckets.iter().filter(|b| b.nh == Some(id)).count() as u32;
            self.shares.push(Share { id, wants, count });
            if count < wants {
                if self.uw.is_empty() {
                    self.unbalanced_since = now_ms;
                }
                self.uw.insert(0, id);
            }
        }
    }

    /// `nh_res_bucket_should_migrate`: whether bucket `i` moves at `now_ms`; if not,
    /// `deadline` comes down to when it might.
    fn should_migrate(&self, i: usize, now_ms: u64, deadline: &mut u64) -> bool {
        let b = &self.buckets[i];
        let Some(id) = b.nh else {
            return true;
        };
        if !self.overweight(id) {
            return false;
        }
        let idle_point = if b.used.load(Ordering::Relaxed) {
            b.used_at.load(Ordering::Relaxed) + self.idle_timer
        } else {
            now_ms
        };
        if now_ms >= idle_point {
            return true;
        }
        if self.unbalanced_timer != 0 {
            let unb_point = self.unbalanced_since + self.unbalanced_timer;
            if now_ms > unb_point {
                return true;
            }
            *deadline = (*deadline).min(unb_point);
        }
        *deadline = (*deadline).min(idle_point);
        false
    }

    /// `nh_res_bucket_migrate`: bucket `i` goes to the first underweight member.
    fn migrate(&mut self, i: usize, now_ms: u64) {
        let Some(&to) = self.uw.first() else {
            return;
        };
        if let Some(old) = self.buckets[i].nh {
            if let Some(s) = self.share_mut(old) {
                s.count -= 1;
            }
        }
        let b = &mut self.buckets[i];
        b.nh = Some(to);
        *b.used_at.get_mut() = now_ms;
        *b.used.get_mut() = false;
        if let Some(s) = self.share_mut(to) {
            s.count += 1;
            if s.count == s.wants {
                self.uw.remove(0);
            }
        }
    }

    /// `nh_res_table_upkeep` at `now_ms`: every bucket that may move, moves; while the
    /// group stays unbalanced, the next check is set.
    pub(crate) fn upkeep(&mut self, now_ms: u64) {
        let mut deadline = now_ms
            + if self.unbalanced_timer != 0 {
                self.unbalanced_timer
            } else {
                self.idle_timer
            };
        for i in 0..self.buckets.len() {
            if self.should_migrate(i, now_ms, &mut deadline) {
                self.migrate(i, now_ms);
            }
        }
        self.upkeep_at = if self.uw.is_empty() {
            None
        } else {
            Some(deadline.max(now_ms + UPKEEP_MIN_INTERVAL_MS))
        };
    }

    /// Takes the kernel's buckets as they are (a live mirror): `buckets[i]` is bucket
    /// `i`'s member and how long it has gone unused, `unbalanced_ms` how long the
    /// group has been unbalanced. Each bucket counts as used at that time (the kernel
    /// does not say whether a lookup used it since it last moved); nothing moves now,
    /// and the next check is due when the first bucket may move.
    pub(crate) fn restore(
        &mut self,
        members: &[(u32, u32)],
        buckets: &[(u32, u64)],
        unbalanced_ms: u64,
        now_ms: u64,
    ) {
        for (b, &(nh, idle)) in self.buckets.iter_mut().zip(buckets) {
            b.nh = Some(nh);
            *b.used_at.get_mut() = now_ms.saturating_sub(idle);
            *b.used.get_mut() = true;
        }
        self.rebalance(members, now_ms);
        self.unbalanced_since = now_ms.saturating_sub(unbalanced_ms);
        self.upkeep_at = if self.uw.is_empty() {
            None
        } else {
            let mut deadline = u64::MAX;
            let due =
                (0..self.buckets.len()).any(|i| self.should_migrate(i, now_ms, &mut deadline));
            Some(if due {
                now_ms + 1
            } else {
                deadline.max(now_ms + 1)
            })
        };
    }

    /// The checks due up to `until_ms`, each at its own time.
    pub(crate) fn run_due(&mut self, until_ms: u64) -> bool {
        let mut ran = false;
        while let Some(at) = self.upkeep_at.filter(|&at| at <= until_ms) {
            self.upkeep(at);
            ran = true;
        }
        ran
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(t: &ResTable) -> Vec<u32> {
        (0..t.num_buckets())
            .map(|i| t.bucket_nh(i).unwrap_or(0))
            .collect()
    }

    #[test]
    fn buckets_fill_from_the_last_underweight_member() {
        let mut t = ResTable::new(10, DEFAULT_IDLE_TIMER_MS, 0);
        t.set_members(&[(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)], 0);
        assert_eq!(ids(&t), [5, 5, 4, 4, 3, 3, 2, 2, 1, 1]);
        assert_eq!(t.upkeep_at(), None);
        // a member leaves: its buckets go at once, to the underweight members
        t.set_members(&[(1, 1), (2, 1), (3, 1), (4, 1)], 10);
        assert_eq!(ids(&t), [3, 1, 4, 4, 3, 3, 2, 2, 1, 1]);
    }

    #[test]
    fn used_buckets_wait_for_the_idle_timer() {
        let mut t = ResTable::new(4, 2_000, 0);
        t.set_members(&[(1, 1)], 0);
        assert_eq!(ids(&t), [1, 1, 1, 1]);
        // buckets 0 and 1 carry flows
        assert_eq!(t.select(0, 100), Some(1));
        assert_eq!(t.select(5, 100), Some(1));
        t.set_members(&[(1, 1), (2, 1)], 200);
        // the unused ones move now, the used ones stay until idle
        assert_eq!(ids(&t), [1, 1, 2, 2]);
        assert_eq!(t.upkeep_at(), None, "balanced: 2 and 2");
        t.set_members(&[(1, 1), (2, 3)], 300);
        assert_eq!(ids(&t), [1, 1, 2, 2]);
        assert_eq!(t.upkeep_at(), Some(2_100));
        assert!(!t.run_due(2_099));
        assert!(t.run_due(5_000));
        assert_eq!(ids(&t), [2, 1, 2, 2]);
        assert_eq!(t.unbalanced_time_ms(5_000), 0);
    }

    #[test]
    fn the_unbalanced_timer_forces_busy_buckets() {
        let mut t = ResTable::new(2, 100_000, 1_000);
        t.set_members(&[(1, 1)], 0);
        t.select(0, 0);
        t.select(1, 0);
        t.set_members(&[(1, 1), (2, 1)], 0);
        assert_eq!(ids(&t), [1, 1]);
        assert_eq!(t.unbalanced_time_ms(600), 600);
        // the next check comes when the unbalanced timer ends (then just after it)
        assert_eq!(t.upkeep_at(), Some(1_000));
        t.run_due(1_000);
        assert_eq!(ids(&t), [1, 1], "not yet: strictly after the timer");
        t.run_due(1_500);
        assert_eq!(ids(&t), [2, 1]);
    }
}
