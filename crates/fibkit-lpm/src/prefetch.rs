//! CPU-specific helpers, the only module of the crate allowed to use `unsafe`:
//!
//! * [`prefetch`] takes a reference, so the address is always valid; on
//!   x86_64 it issues `prefetcht0`, elsewhere (and under Miri) nothing.
//! * [`with_popcnt`] runs a [`Kernel`] compiled with the `popcnt` instruction
//!   when the CPU has it (runtime detection), else as plain code.
//! * [`View::trusted_ref`], [`View::trusted_array`], [`View::trusted_page`] and
//!   [`PageRef::array`] read the index's paged arrays at offsets taken from the
//!   index itself without bounds checks (the lookups' walks only; see their safety
//!   argument).
//! * [`ordered_tsc`] reads the time-stamp counter in order with the code around
//!   it, for the latency benchmarks (`fib bench kbench`): a plain `rdtsc` may be
//!   read before the loads of the code it is meant to time have completed.
#![allow(unsafe_code)]

use crate::paged::View;

/// Hints the CPU to bring the cache line holding `*r` into L1.
///
/// Purely a performance hint: it never faults and has no observable effect.
#[inline(always)]
pub(crate) fn prefetch<T>(r: &T) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (r as *const T).cast::<i8>();
        // SAFETY: `prefetcht0` never dereferences architecturally: it cannot
        // fault or change memory, whatever the address. `p` also comes from a
        // live reference. SSE (which provides the instruction) is part of the
        // x86_64 baseline, so the target feature is always present.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = r;
    }
}

/// The time-stamp counter, read after every earlier instruction has completed and
/// before any later one starts (`lfence; rdtsc; lfence`, as the kernel's
/// `rdtsc_ordered()` orders its read with what precedes it); `None` where there is
/// no such counter (other architectures, Miri).
///
/// A timed region `t1 = ordered_tsc(); f(); t2 = ordered_tsc()` then holds all of
/// `f`, its last load included: a plain `rdtsc` after `f` can be read as soon as
/// the processor has predicted where `f` ends, before its loads return
/// (BENCHMARKS.md, fourteenth session). The counter's rate is the caller's to
/// calibrate.
#[inline(always)]
pub fn ordered_tsc() -> Option<u64> {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use core::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: `lfence` (SSE2) and `rdtsc` are in the x86_64 baseline; neither
        // touches memory. `rdtsc` faults only when the OS sets CR4.TSD to forbid it
        // in user mode, which Linux does only for a process that asked for it
        // (PR_SET_TSC), never by default.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            Some(t)
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        None
    }
}

/// Reads for the lookup walks: an offset read from an index (a top-level entry's,
/// a node's child or leaf offset) is in bounds by the builder's invariant, so the
/// walks skip the bounds checks (BENCHMARKS.md, eighth session: 194 -> 170
/// instructions per IPv6 batch lookup under cachegrind, and more lookups/s in
/// both families). The invariant:
///
/// - the top level has `2^Key::TOP_BITS` entries, and a key's top index is its
///   first `TOP_BITS` bits;
/// - the builder writes into top-level entries and nodes only offsets of words it
///   has pushed (an array only grows; a snapshot shares the pages it was built
///   with), and pushes each block of nodes inside one page
///   (`Paged::push_unsplit`), so a node's words never cross a page's end;
/// - a node's (or an in-place top-level node's) first leaf slot starts a run, so
///   the leaf offset of a leaf slot is `leaf + runs - 1` with `runs >= 1`, inside
///   the node's leaves;
/// - offsets fit their 31 bits: `LpmBuilder::snapshot` stops (panics) rather than
///   publish words past 2^31;
/// - an [`Lpm`](crate::Lpm) is made only by the builder (or empty);
/// - debug builds check every offset of every snapshot (`Inner::check_offsets`,
///   run by `LpmBuilder::snapshot`) and check again here on each read, so the
///   test suite (property tests over random tables and update sequences included)
///   would catch a builder that broke it.
impl<'a, T: Copy + 'static, const P: usize> View<'a, T, P> {
    /// Element `i`, an offset read from the index this view belongs to.
    #[inline(always)]
    pub(crate) fn trusted_ref(self, i: usize) -> &'a T {
        let (pi, off) = (i / P, i % P);
        debug_assert!(pi < self.pages.len(), "offset {i} past the array");
        // SAFETY: `i` is an element the builder pushed (the invariant above), so its
        // page exists: `pi < self.pages.len()`.
        let page = unsafe { self.pages.get_unchecked(pi) };
        &page.0[off]
    }

    /// The `M` elements from `i`, the offset of a node read from the index this
    /// view belongs to.
    #[inline(always)]
    pub(crate) fn trusted_array<const M: usize>(self, i: usize) -> &'a [T; M] {
        let (pi, off) = (i / P, i % P);
        debug_assert!(pi < self.pages.len(), "offset {i} past the array");
        debug_assert!(off + M <= P, "block at {i} crosses a page");
        // SAFETY: `i` is the offset of a node block the builder pushed inside one
        // page (the invariant above): page `pi` exists and `off + M <= P`, so the
        // `M` elements from `off` lie inside the page's array, and `[T; M]` has the
        // alignment of `T`.
        unsafe {
            let page = self.pages.get_unchecked(pi);
            &*page.0.as_ptr().add(off).cast::<[T; M]>()
        }
    }
}

/// One page of a [`View`], for walks that read several offsets from the same page
/// (a node's children and leaves are usually in its page): the page is found once,
/// and each read in it is one load.
#[derive(Clone, Copy)]
pub(crate) struct PageRef<'a, T: 'static, const P: usize> {
    pub(crate) index: usize,
    words: &'a [T; P],
}

impl<'a, T: Copy + 'static, const P: usize> View<'a, T, P> {
    /// The page holding offset `i`, an offset read from the index this view
    /// belongs to.
    #[inline(always)]
    pub(crate) fn trusted_page(self, i: usize) -> PageRef<'a, T, P> {
        let pi = i / P;
        debug_assert!(pi < self.pages.len(), "offset {i} past the array");
        // SAFETY: `i` is an element the builder pushed (the invariant above), so its
        // page exists: `pi < self.pages.len()`.
        let page = unsafe { self.pages.get_unchecked(pi) };
        PageRef {
            index: pi,
            words: &page.0,
        }
    }
}

impl<'a, T: Copy + 'static, const P: usize> PageRef<'a, T, P> {
    /// Element `i` (an offset into the whole array), which lies in this page.
    #[inline(always)]
    pub(crate) fn at(self, i: usize) -> &'a T {
        debug_assert_eq!(i / P, self.index, "offset {i} outside the page");
        &self.words[i % P]
    }

    /// The `M` elements from `i` (an offset into the whole array), the offset of a
    /// node block inside this page.
    #[inline(always)]
    pub(crate) fn array<const M: usize>(self, i: usize) -> &'a [T; M] {
        let off = i % P;
        debug_assert_eq!(i / P, self.index, "offset {i} outside the page");
        debug_assert!(off + M <= P, "block at {i} crosses a page");
        // SAFETY: `i` is the offset of a node block the builder pushed inside one
        // page (the invariant above), this one: `off + M <= P`, so the `M` elements
        // from `off` lie inside the page's array, and `[T; M]` has the alignment of
        // `T`.
        unsafe { &*self.words.as_ptr().add(off).cast::<[T; M]>() }
    }
}

/// A piece of code to run through [`with_popcnt`]. Implementations should
/// mark `run` `#[inline(always)]`, so that it is compiled into the
/// feature-enabled wrapper.
pub(crate) trait Kernel {
    /// What the code returns.
    type Out;
    /// Runs the code.
    fn run(self) -> Self::Out;
}

/// Runs `k`, compiled with the `popcnt` instruction enabled when the CPU has
/// it (it is not in the x86_64 baseline, and the trie walk is popcount
/// heavy), else as plain code.
#[inline(always)]
pub(crate) fn with_popcnt<K: Kernel>(k: K) -> K::Out {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports `popcnt` (checked just above), which is
            // the only requirement for calling a function compiled with it.
            return unsafe { popcnt_enabled(k) };
        }
    }
    k.run()
}

/// # Safety
///
/// The CPU must support `popcnt`.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "popcnt")]
unsafe fn popcnt_enabled<K: Kernel>(k: K) -> K::Out {
    k.run()
}

#[cfg(test)]
mod tests {
    use super::{prefetch, with_popcnt, Kernel};
    use crate::paged::Paged;
    use crate::{Key, LpmBuilder, NO_MATCH};

    /// The ordered counter never runs backwards on one thread, and exists on x86_64
    /// (outside Miri).
    #[test]
    fn ordered_tsc_is_monotonic() {
        let reads: Vec<Option<u64>> = (0..1000).map(|_| super::ordered_tsc()).collect();
        if cfg!(all(target_arch = "x86_64", not(miri))) {
            let t: Vec<u64> = reads.iter().map(|r| r.expect("a counter")).collect();
            assert!(t.windows(2).all(|w| w[0] <= w[1]), "{t:?}");
            assert!(t[999] > t[0]);
        } else {
            assert!(reads.iter().all(Option::is_none));
        }
    }

    #[test]
    fn trusted_reads_are_the_checked_reads() {
        let mut a: Paged<u32, 8> = Paged::new();
        a.push_slice(&[1, 2, 3]);
        let b = a.push_unsplit(&[10, 11, 12, 13, 14, 15]); // starts the next page
        assert_eq!(b, 8);
        let v = a.view();
        for i in (0..3).chain(8..14) {
            assert_eq!(v.trusted_ref(i), v.get_ref(i));
        }
        assert_eq!(v.trusted_array::<6>(8), &[10, 11, 12, 13, 14, 15]);
        assert_eq!(v.trusted_array::<3>(0), &[1, 2, 3]);
        assert_eq!(v.trusted_array::<2>(6), &[0, 0]); // the padding
    }

    /// Lookups through the unchecked reads, single and batch (over plain keys and over
    /// keys inside items), on a small index of each key type against the longest match found by a scan (also run under
    /// Miri, which checks every read).
    #[test]
    fn prefetch_lookups_read_in_bounds() {
        fn check<K: Key>(pfx: &[(u128, u8)], keys: &[u128]) {
            let mut b = LpmBuilder::<K>::new();
            for (i, &(a, l)) in pfx.iter().enumerate() {
                b.insert(K::from_u128(a), l, i as u32 + 1);
            }
            let lpm = b.snapshot();
            let keys: Vec<K> = keys.iter().map(|&k| K::from_u128(k)).collect();
            let mut out = vec![0; keys.len()];
            lpm.lookup_batch(&keys, &mut out);
            // the same walk over keys read from inside larger items
            let items: Vec<(u8, K)> = keys.iter().map(|&k| (1, k)).collect();
            let mut by = vec![0; keys.len()];
            lpm.lookup_batch_by(&items, |it| it.1, |i, v| by[i] = v);
            // a key closure that answers differently at every call: some value for
            // each item, every read still inside the index (Miri checks them)
            let calls = std::cell::Cell::new(0u32);
            let mut seen = 0;
            lpm.lookup_batch_by(
                &items,
                |it| {
                    let c = calls.get().wrapping_add(0x9e37_79b9);
                    calls.set(c);
                    K::from_u128(it.1.to_u128() ^ (u128::from(c) << (c % 100)))
                },
                |i, _| {
                    assert_eq!(i, seen);
                    seen += 1;
                },
            );
            assert_eq!(seen, keys.len());
            assert!(calls.get() != 0);
            for ((&k, &got), &got_by) in keys.iter().zip(&out).zip(&by) {
                let want = pfx
                    .iter()
                    .enumerate()
                    .filter(|&(_, &(a, l))| k.mask(l).to_u128() == a)
                    .max_by_key(|&(_, &(_, l))| l)
                    .map_or(NO_MATCH, |(i, _)| i as u32 + 1);
                assert_eq!((lpm.lookup(k), got, got_by), (want, want, want), "{k:?}");
            }
        }
        let v4 = [
            (0x0a00_0000, 8),
            (0x0a01_0200, 24),
            (0x0a01_0203, 32),
            (0, 0),
        ];
        check::<u32>(&v4, &[0x0a01_0203, 0x0a01_0204, 0x0a02_0000, 0x0b00_0000]);
        let v6 = [
            (0x2001_0db8u128 << 96, 32),
            (0x2001_0db8_0001u128 << 80, 48),
            ((0x2001_0db8_0001u128 << 80) | 1, 128),
        ];
        let k = 0x2001_0db8_0001u128 << 80;
        check::<u128>(&v6, &[k, k | 1, k | 2, 0x2001_0db8u128 << 96, 1 << 127]);
    }

    struct Count<'a>(&'a [u64]);

    impl Kernel for Count<'_> {
        type Out = Vec<u32>;
        #[inline(always)]
        fn run(self) -> Vec<u32> {
            self.0.iter().map(|x| x.count_ones()).collect()
        }
    }

    #[test]
    fn prefetch_with_popcnt_runs_the_kernel() {
        assert_eq!(with_popcnt(Count(&[0b1011, u64::MAX, 0])), [3, 64, 0]);
        assert!(with_popcnt(Count(&[])).is_empty());
    }

    #[test]
    fn prefetch_is_a_no_op_on_values() {
        let v: Vec<u64> = (0..1024).collect();
        for x in &v {
            prefetch(x);
        }
        let boxed = Box::new([7u32; 16]);
        prefetch(&*boxed);
        prefetch(&boxed[15]);
        let s = 0usize;
        prefetch(&s);
        assert_eq!(v.iter().sum::<u64>(), 1023 * 1024 / 2);
        assert_eq!(boxed[15], 7);
    }

    #[test]
    fn prefetch_zero_sized_and_end_of_slice() {
        let unit = ();
        prefetch(&unit);
        let empty: [u8; 0] = [];
        prefetch(&empty);
        let v = [1u8; 3];
        prefetch(&v[2]);
        assert_eq!(v.len(), 3);
    }
}
