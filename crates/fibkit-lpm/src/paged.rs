//! A persistent, copy-on-write array split into fixed-size `Arc` pages.
//!
//! Cloning a [`Paged`] clones one `Arc` per page (no element is copied);
//! writing through a clone copies only the page written to, and only the
//! first time (while it is shared). Reads are a page-table load (the table
//! is small and stays in L1/L2) plus the element load.

use std::sync::Arc;

/// One page, aligned to a cache line so that a block aligned inside the page is
/// aligned in memory.
#[derive(Clone, Copy, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct Page<T, const P: usize>(pub(crate) [T; P]);

impl<T, const P: usize> core::ops::Deref for Page<T, P> {
    type Target = [T; P];
    #[inline(always)]
    fn deref(&self) -> &[T; P] {
        &self.0
    }
}

impl<T, const P: usize> core::ops::DerefMut for Page<T, P> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T; P] {
        &mut self.0
    }
}

/// A growable array of `T` stored as `Arc<Page<T, P>>` pages. `P` is a power of two.
#[derive(Clone)]
pub(crate) struct Paged<T: Copy + Default + 'static, const P: usize> {
    pages: Vec<Arc<Page<T, P>>>,
    len: usize,
}

impl<T: Copy + Default + PartialEq + 'static, const P: usize> Paged<T, P> {
    const SHIFT: u32 = P.trailing_zeros();
    const MASK: usize = P - 1;

    /// An empty array.
    pub(crate) fn new() -> Self {
        debug_assert!(P.is_power_of_two());
        Paged {
            pages: Vec::new(),
            len: 0,
        }
    }

    /// Builds an array of `len` elements page by page, without an
    /// intermediate copy: `fill(page, buf)` writes page `page` into `buf`
    /// (which starts as `T::default()`) and returns whether it wrote
    /// anything (it must leave `buf` untouched when it returns false). Untouched pages share one allocation, and so does a page
    /// equal to the previous one.
    pub(crate) fn build(len: usize, mut fill: impl FnMut(usize, &mut [T; P]) -> bool) -> Self {
        let blank = Arc::new(Page([T::default(); P]));
        let mut buf = Box::new([T::default(); P]);
        let mut pages: Vec<Arc<Page<T, P>>> = Vec::with_capacity(len.div_ceil(P));
        let mut prev: Option<Arc<Page<T, P>>> = None;
        for pi in 0..len.div_ceil(P) {
            // `buf` is blank here: `fill` leaves it so when it returns false.
            if !fill(pi, &mut buf) {
                pages.push(Arc::clone(&blank));
                continue;
            }
            let page = match &prev {
                Some(p) if p.0 == *buf => Arc::clone(p),
                _ => Arc::new(Page(*buf)),
            };
            prev = Some(Arc::clone(&page));
            pages.push(page);
            buf.fill(T::default());
        }
        Paged { pages, len }
    }

    /// An array of `len` copies of `v`, all pages sharing one allocation.
    pub(crate) fn filled(len: usize, v: T) -> Self {
        let page = Arc::new(Page([v; P]));
        Paged {
            pages: (0..len.div_ceil(P)).map(|_| Arc::clone(&page)).collect(),
            len,
        }
    }

    /// Number of elements.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Element `i`. Panics if `i` is beyond the allocated pages (a bug).
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> T {
        self.view().get(i)
    }

    /// The `M` elements from `i`, which must lie in one page (pushed with
    /// [`Paged::push_unsplit`]). Panics otherwise (a bug).
    #[inline(always)]
    pub(crate) fn get_array<const M: usize>(&self, i: usize) -> &[T; M] {
        self.view().get_array(i)
    }

    /// A read-only view of the array whose page table is a plain slice: a loop
    /// reading through it keeps the table's address and length in registers.
    #[inline(always)]
    pub(crate) fn view(&self) -> View<'_, T, P> {
        View { pages: &self.pages }
    }

    /// [`Paged::push_slice`], starting a new page first (the rest of the current one
    /// left as padding) when `items` would not fit in the current page, so that
    /// `items` can be read back with [`Paged::get_array`]. `items` must not be
    /// longer than a page.
    pub(crate) fn push_unsplit(&mut self, items: &[T]) -> usize {
        debug_assert!(items.len() <= P);
        let off = self.len & Self::MASK;
        if off != 0 && off + items.len() > P {
            let pad = P - off;
            self.len += pad;
            // the padding keeps its page's default values
            debug_assert_eq!(self.len & Self::MASK, 0);
        }
        self.push_slice(items)
    }

    /// Overwrites element `i` (copying its page first if it is shared).
    pub(crate) fn set(&mut self, i: usize, v: T) {
        let page = Arc::make_mut(&mut self.pages[i >> Self::SHIFT]);
        page[i & Self::MASK] = v;
    }

    /// Sets every element of `range` to `v` (copying shared pages first; the
    /// pages it covers whole all become one shared page of `v`).
    pub(crate) fn fill(&mut self, range: core::ops::Range<usize>, v: T) {
        let mut whole: Option<Arc<Page<T, P>>> = None;
        let mut i = range.start;
        while i < range.end {
            let off = i & Self::MASK;
            let n = (P - off).min(range.end - i);
            let slot = &mut self.pages[i >> Self::SHIFT];
            if n == P {
                *slot = Arc::clone(whole.get_or_insert_with(|| Arc::new(Page([v; P]))));
            } else {
                Arc::make_mut(slot)[off..off + n].fill(v);
            }
            i += n;
        }
    }

    /// Appends `items` (bump allocation) and returns the index of the first.
    pub(crate) fn push_slice(&mut self, items: &[T]) -> usize {
        let start = self.len;
        let mut done = 0;
        while done < items.len() {
            let pos = self.len;
            let pi = pos >> Self::SHIFT;
            let off = pos & Self::MASK;
            if pi == self.pages.len() {
                self.pages.push(Arc::new(Page([T::default(); P])));
            }
            let n = (P - off).min(items.len() - done);
            let page = Arc::make_mut(&mut self.pages[pi]);
            page[off..off + n].copy_from_slice(&items[done..done + n]);
            done += n;
            self.len += n;
        }
        start
    }

    /// Appends one element and returns its index.
    pub(crate) fn push(&mut self, v: T) -> usize {
        self.push_slice(core::slice::from_ref(&v))
    }

    /// Bytes of distinct pages plus the page table.
    pub(crate) fn memory_bytes(&self) -> usize {
        let mut ptrs: Vec<*const Page<T, P>> = self.pages.iter().map(Arc::as_ptr).collect();
        ptrs.sort_unstable();
        ptrs.dedup();
        ptrs.len() * core::mem::size_of::<Page<T, P>>()
            + self.pages.len() * core::mem::size_of::<Arc<Page<T, P>>>()
    }
}

/// See [`Paged::view`].
#[derive(Clone, Copy)]
pub(crate) struct View<'a, T: 'static, const P: usize> {
    pub(crate) pages: &'a [Arc<Page<T, P>>],
}

impl<'a, T: Copy + 'static, const P: usize> View<'a, T, P> {
    const SHIFT: u32 = P.trailing_zeros();
    const MASK: usize = P - 1;

    /// Element `i` (see [`Paged::get`]).
    #[inline(always)]
    pub(crate) fn get(self, i: usize) -> T {
        self.pages[i >> Self::SHIFT][i & Self::MASK]
    }

    /// Reference to element `i` (the tests' checked twin of `View::trusted_ref`).
    #[cfg(test)]
    pub(crate) fn get_ref(self, i: usize) -> &'a T {
        &self.pages[i >> Self::SHIFT][i & Self::MASK]
    }

    /// See [`Paged::get_array`].
    #[inline(always)]
    pub(crate) fn get_array<const M: usize>(self, i: usize) -> &'a [T; M] {
        let page = &self.pages[i >> Self::SHIFT];
        let off = i & Self::MASK;
        page[off..off + M]
            .try_into()
            .expect("array inside one page")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes of one page of four words: a whole cache line (pages are aligned).
    const PAGE4: usize = core::mem::size_of::<Page<u32, 4>>();

    #[test]
    fn pages_start_on_a_cache_line() {
        assert_eq!(PAGE4, 64);
        let mut a: Paged<u32, 4096> = Paged::new();
        for i in 0..3 * 4096 {
            a.push(i);
        }
        let b = Paged::<u32, 4096>::build(2 * 4096, |_, buf| {
            buf[0] = 1;
            true
        });
        for (p, i) in [(&a, 0), (&a, 4096), (&a, 8192), (&b, 0), (&b, 4096)] {
            assert_eq!(core::ptr::from_ref(p.view().get_ref(i)) as usize % 64, 0);
        }
    }

    #[test]
    fn push_get_set_cow() {
        let mut a: Paged<u32, 4> = Paged::new();
        let s = a.push_slice(&[1, 2, 3]);
        assert_eq!(s, 0);
        let s = a.push_slice(&[4, 5, 6, 7, 8, 9]);
        assert_eq!(s, 3);
        assert_eq!(a.len(), 9);
        assert_eq!(
            (0..9).map(|i| a.get(i)).collect::<Vec<_>>(),
            (1..=9).collect::<Vec<_>>()
        );
        let snap = a.clone();
        a.set(4, 50);
        assert_eq!(a.push(10), 9);
        assert_eq!(a.get(4), 50);
        assert_eq!(snap.get(4), 5);
        assert_eq!(snap.len(), 9);
        assert_eq!(*a.view().get_ref(9), 10);
        let snap2 = a.clone();
        a.fill(2..9, 7);
        assert_eq!(
            (0..10).map(|i| a.get(i)).collect::<Vec<_>>(),
            [1, 2, 7, 7, 7, 7, 7, 7, 7, 10]
        );
        assert_eq!(snap2.get(2), 3);
        assert_eq!(snap2.get(4), 50);
        // pages covered whole by one fill share one allocation
        let mut b: Paged<u32, 4> = Paged::filled(16, 0);
        b.fill(1..15, 3);
        let got: Vec<u32> = (0..16).map(|i| b.get(i)).collect();
        assert_eq!(got, [0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0]);
        assert_eq!(b.memory_bytes(), 3 * PAGE4 + 4 * 8);
    }

    #[test]
    fn unsplit_blocks_stay_in_one_page() {
        let mut a: Paged<u32, 8> = Paged::new();
        assert_eq!(a.push_slice(&[1, 2, 3, 4, 5]), 0);
        // 3 places left in the first page: a block of 4 starts the next one
        assert_eq!(a.push_unsplit(&[6, 7, 8, 9]), 8);
        assert_eq!(a.get_array::<4>(8), &[6, 7, 8, 9]);
        assert_eq!(a.len(), 12);
        // a block that fits stays where it is
        assert_eq!(a.push_unsplit(&[10, 11]), 12);
        assert_eq!(a.get_array::<2>(12), &[10, 11]);
        // padding keeps the default value; plain pushes still fill pages in order
        assert_eq!((a.get(5), a.get(7)), (0, 0));
        assert_eq!(a.push_slice(&[12, 13, 14]), 14);
        assert_eq!((a.get(15), a.get(16)), (13, 14));
    }

    #[test]
    fn views_read_what_the_array_holds() {
        let mut a: Paged<u32, 8> = Paged::new();
        a.push_slice(&(0..21).collect::<Vec<u32>>());
        a.push_unsplit(&[100, 101, 102, 103, 104]);
        let snap = a.clone();
        a.set(3, 33);
        let (v, sv) = (a.view(), snap.view());
        // what was pushed, the padding (21..24) left at the default
        let mut want: Vec<u32> = (0..21).chain([0, 0, 0]).chain(100..105).collect();
        assert_eq!(a.len(), want.len());
        for (i, w) in want.iter().enumerate() {
            assert_eq!(sv.get(i), *w, "snapshot at {i}");
        }
        want[3] = 33;
        for (i, w) in want.iter().enumerate() {
            assert_eq!((v.get(i), *v.get_ref(i)), (*w, *w), "at {i}");
        }
        assert_eq!(v.get_array::<5>(24), &[100, 101, 102, 103, 104]);
        assert_eq!(v.get_array::<3>(8), a.get_array::<3>(8));
    }

    #[test]
    #[should_panic]
    fn array_across_pages_panics() {
        let mut a: Paged<u32, 4> = Paged::new();
        a.push_slice(&[1, 2, 3, 4, 5, 6]);
        let _ = a.get_array::<3>(2);
    }

    #[test]
    fn build_shares_blank_and_repeated_pages() {
        let a: Paged<u32, 4> = Paged::build(18, |pi, buf| match pi {
            0 | 3 => false,
            1 | 2 => {
                buf.fill(9);
                true
            }
            _ => {
                buf[1] = 5;
                true
            }
        });
        assert_eq!(a.len(), 18);
        let got: Vec<u32> = (0..18).map(|i| a.get(i)).collect();
        assert_eq!(got, [0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0, 0, 0, 5]);
        // Distinct pages: blank, the 9s, the last one.
        assert_eq!(a.memory_bytes(), 3 * PAGE4 + 5 * 8);
    }
}
