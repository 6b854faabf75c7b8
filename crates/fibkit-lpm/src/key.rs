//! The [`Key`] trait: the address types the index works on.

use core::fmt::Debug;
use core::hash::Hash;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u128 {}
}

/// An address type usable as a key of the index: `u32` (IPv4) or `u128`
/// (IPv6), both in host order (`u32::from(Ipv4Addr)`, `u128::from(Ipv6Addr)`).
///
/// The trait is sealed: the layout constants are tuned per address family.
pub trait Key: Copy + Eq + Ord + Hash + Debug + Send + Sync + 'static + sealed::Sealed {
    /// Number of bits of the key (32 or 128); the longest valid prefix length.
    const BITS: u32;

    /// Number of leading bits resolved by the direct-indexed top level.
    ///
    /// Prefixes of this length or shorter are stored in the top level
    /// (depth 0); longer ones in the 6-bit-stride nodes below it.
    const TOP_BITS: u32;

    /// How a top-level entry is stored (internal).
    #[doc(hidden)]
    type Top: crate::top_entry::TopEntry;

    /// The key as a `u128`, right-aligned (the numeric value of the key).
    fn to_u128(self) -> u128;

    /// Builds a key from the low [`Key::BITS`] bits of `v`.
    fn from_u128(v: u128) -> Self;

    /// The key with every bit after the first `len` cleared (`len` is
    /// clamped to [`Key::BITS`]).
    fn mask(self, len: u8) -> Self {
        let len = u32::from(len).min(Self::BITS);
        Self::from_u128(self.to_u128() & prefix_mask(len, Self::BITS))
    }

    /// Index into the top-level array: the first [`Key::TOP_BITS`] bits.
    #[doc(hidden)]
    fn top_index(self) -> usize;

    /// The 6 bits of the key starting at bit `start` (counted from the most
    /// significant bit), zero-padded past the end of the key.
    /// `start` must be below [`Key::BITS`].
    #[doc(hidden)]
    fn slot(self, start: u32) -> u32;

    /// A walk's path: the 60 bits after the top-level ones, left-aligned
    /// in a `u64` (ten 6-bit slots; a `u64` shifts in one instruction where a
    /// `u128` takes three), with a marker bit below them: once the ten slots are
    /// consumed the path equals [`PATH_SPENT`] and [`Key::walk_path_rest`] takes
    /// over (IPv6 walks below /84 only).
    #[doc(hidden)]
    #[inline(always)]
    fn walk_path(self) -> u64 {
        let v = self.to_u128() << (128 - Self::BITS);
        (((v << Self::TOP_BITS) >> 64) as u64 & !0xf) | (1 << 3)
    }

    /// The path after the first ten slots (the rest of the key, left-aligned,
    /// zero-padded), with a marker bit that keeps it from ever equalling
    /// [`PATH_SPENT`] (at most 8 more slots are read from it).
    #[doc(hidden)]
    #[inline(always)]
    fn walk_path_rest(self) -> u64 {
        let v = self.to_u128() << (128 - Self::BITS);
        let rest = v.checked_shl(Self::TOP_BITS + 60).unwrap_or(0);
        (((rest >> 64) as u64) & !0x3) | (1 << 1)
    }
}

/// A [`Key::walk_path`] whose ten slots have all been read.
#[doc(hidden)]
pub const PATH_SPENT: u64 = 1 << 63;

/// A mask with the first `len` of `bits` bits set, right-aligned in a u128.
pub(crate) fn prefix_mask(len: u32, bits: u32) -> u128 {
    let all = if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    if len == 0 {
        0
    } else {
        let host = bits - len.min(bits);
        if host >= 128 {
            0
        } else {
            all & !((1u128 << host) - 1)
        }
    }
}

impl Key for u32 {
    const BITS: u32 = 32;
    const TOP_BITS: u32 = 18;
    type Top = [u32; 3];

    #[inline]
    fn to_u128(self) -> u128 {
        u128::from(self)
    }

    #[inline]
    fn from_u128(v: u128) -> Self {
        v as u32
    }

    #[inline(always)]
    fn top_index(self) -> usize {
        (self >> (32 - Self::TOP_BITS)) as usize
    }

    #[inline(always)]
    fn slot(self, start: u32) -> u32 {
        // Left-align in 64 bits so that a stride running past bit 32 reads
        // zeros instead of needing a separate shift direction.
        (((u64::from(self) << 32) << (start & 31)) >> 58) as u32
    }
}

impl Key for u128 {
    const BITS: u32 = 128;
    const TOP_BITS: u32 = 24;
    type Top = u32;

    #[inline]
    fn to_u128(self) -> u128 {
        self
    }

    #[inline]
    fn from_u128(v: u128) -> Self {
        v
    }

    #[inline(always)]
    fn top_index(self) -> usize {
        (self >> (128 - Self::TOP_BITS)) as usize
    }

    #[inline(always)]
    fn slot(self, start: u32) -> u32 {
        ((self << (start & 127)) >> 122) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(0xffff_ffffu32.mask(0), 0);
        assert_eq!(0xffff_ffffu32.mask(8), 0xff00_0000);
        assert_eq!(0xffff_ffffu32.mask(32), 0xffff_ffff);
        assert_eq!(0xffff_ffffu32.mask(200), 0xffff_ffff);
        assert_eq!(u128::MAX.mask(128), u128::MAX);
        assert_eq!(u128::MAX.mask(1), 1u128 << 127);
        assert_eq!(u128::MAX.mask(0), 0);
    }

    #[test]
    fn slots() {
        // Slots (6 bits each): 101010 111111 000000 110011 01(0000).
        #[allow(clippy::unusual_byte_groupings)]
        let b: u32 = 0b101010_111111_000000_110011_01 << 6;
        assert_eq!(b.slot(0), 0b101010);
        assert_eq!(b.slot(6), 0b111111);
        assert_eq!(b.slot(12), 0);
        assert_eq!(b.slot(18), 0b110011);
        assert_eq!(b.slot(24), 0b01_0000);
        // Zero padding at the end.
        assert_eq!(0xffff_ffffu32.slot(30), 0b110000);
        assert_eq!(u128::MAX.slot(126), 0b110000);
        assert_eq!(u128::MAX.slot(122), 63);
        assert_eq!((1u128 << 127).slot(0), 0b100000);
        assert_eq!(0xabcd_0000u32.top_index(), 0xabcd << 2);
        let x: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        let t = u128::TOP_BITS;
        assert_eq!((0x2001_0db8u128 << 96).top_index(), 0x2001_0db8 >> (32 - t));
        // the walk path: ten slots, then spent, then the rest of the key
        for key in [x, u128::MAX, 0, 1, 1u128 << 127] {
            let mut p = key.walk_path();
            for k in 0..10 {
                assert_ne!(p, PATH_SPENT, "spent early at {k}");
                assert_eq!(
                    (p >> 58) as u32,
                    key.slot(t + 6 * k),
                    "slot {k} of {key:#x}"
                );
                p <<= 6;
            }
            assert_eq!(p, PATH_SPENT);
            let mut p = key.walk_path_rest();
            for k in 10..(128 - t).div_ceil(6) {
                assert_ne!(p, PATH_SPENT);
                assert_eq!(
                    (p >> 58) as u32,
                    key.slot(t + 6 * k),
                    "slot {k} of {key:#x}"
                );
                p <<= 6;
            }
        }
        // IPv4: three slots at most, never spent
        let mut p = b.walk_path();
        for k in 0..3 {
            assert_eq!((p >> 58) as u32, b.slot(u32::TOP_BITS + 6 * k));
            p <<= 6;
        }
        assert_ne!(p, PATH_SPENT);
    }
}
