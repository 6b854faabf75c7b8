//! CPU-specific helpers, the only module of the crate allowed to use `unsafe`:
//!
//! * [`prefetch`] takes a reference, so the address is always valid; on
//!   x86_64 it issues `prefetcht0`, elsewhere (and under Miri) nothing.
//! * [`with_popcnt`] runs a [`Kernel`] compiled with the `popcnt` instruction
//!   when the CPU has it (runtime detection), else as plain code.
#![allow(unsafe_code)]

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
