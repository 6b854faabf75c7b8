//! A vector whose copies share storage: chunks are reference counted and copied only
//! when a copy changes them.
//!
//! Table slots live in one: a snapshot's copy of a full table costs one pointer per
//! chunk instead of one per slot, while reading an element stays two loads away (unlike
//! a persistent tree, whose indexing walks levels). A chunk is one allocation holding
//! its 64 elements inline (the last chunk's unused places hold copies of its first
//! element until pushes fill them), so a chunk copy allocates once.

use std::ops::{Index, IndexMut};
use std::sync::Arc;

const SHIFT: u32 = 6;
const CHUNK: usize = 1 << SHIFT;

/// A copy-on-write vector of chunks of 64 elements.
#[derive(Clone, Debug)]
pub struct CowVec<T> {
    chunks: Vec<Arc<[T; CHUNK]>>,
    len: usize,
}

impl<T> Default for CowVec<T> {
    fn default() -> Self {
        CowVec {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone> CowVec<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Append an element.
    pub fn push(&mut self, v: T) {
        let k = self.len % CHUNK;
        if k == 0 {
            self.chunks
                .push(Arc::new(std::array::from_fn(|_| v.clone())));
        } else if let Some(last) = self.chunks.last_mut() {
            Arc::make_mut(last)[k] = v;
        }
        self.len += 1;
    }
}

impl<T> Index<usize> for CowVec<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        assert!(
            i < self.len,
            "index {i} out of range for length {}",
            self.len
        );
        &self.chunks[i >> SHIFT][i & (CHUNK - 1)]
    }
}

impl<T: Clone> IndexMut<usize> for CowVec<T> {
    /// Copies the element's chunk first if another copy shares it.
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(
            i < self.len,
            "index {i} out of range for length {}",
            self.len
        );
        &mut Arc::make_mut(&mut self.chunks[i >> SHIFT])[i & (CHUNK - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_independent() {
        let mut a: CowVec<u32> = CowVec::default();
        for i in 0..200 {
            a.push(i);
        }
        let b = a.clone();
        a[3] = 1000;
        a[130] = 2000;
        a.push(7);
        assert_eq!((a.len(), b.len()), (201, 200));
        assert_eq!(
            (a[3], b[3], a[130], b[130], a[200]),
            (1000, 3, 2000, 130, 7)
        );
        for i in (0..200).filter(|i| *i != 3 && *i != 130) {
            assert_eq!(a[i], b[i]);
            assert_eq!(b[i], i as u32);
        }
        // untouched chunks stay shared, changed ones were copied
        assert!(Arc::ptr_eq(&a.chunks[1], &b.chunks[1]));
        assert!(!Arc::ptr_eq(&a.chunks[0], &b.chunks[0]));
    }

    #[test]
    #[should_panic]
    fn out_of_range_panics_like_a_vec() {
        let mut a: CowVec<u32> = CowVec::default();
        a.push(1);
        let _ = a[5];
    }
}
