//! A boxed slice of at most 255 elements in 9 bytes, for the tree's nodes: a node holds two of them (its
//! edges and its children), and `Box<[T]>`'s 16 bytes each kept a node at 64 bytes where 56 suffice (a
//! position has at most 218 legal moves).

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// An owned slice of at most 255 elements, its pointer and an 8-bit length packed into 9
/// bytes with alignment 1, so that two of them and the rest of a node fit lc0's node size less 8 bytes.
#[repr(C, packed)]
pub struct PackedSlice<T> {
    ptr: NonNull<T>,
    len: u8,
}

// SAFETY: a PackedSlice owns its elements as a Box<[T]> does.
unsafe impl<T: Send> Send for PackedSlice<T> {}
// SAFETY: shared access only hands out `&[T]`, as a Box<[T]> does.
unsafe impl<T: Sync> Sync for PackedSlice<T> {}

impl<T> PackedSlice<T> {
    /// Gives the elements back as the boxed slice they came from.
    pub fn into_boxed_slice(self) -> Box<[T]> {
        let (ptr, len) = (self.ptr, self.len);
        std::mem::forget(self);
        // SAFETY: (ptr, len) came from `Box::into_raw` of a boxed slice of `len` elements (`From` below), and
        // `forget` keeps `drop` from freeing it a second time.
        unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr.as_ptr(), usize::from(len))) }
    }
}

impl<T> From<Box<[T]>> for PackedSlice<T> {
    /// Packs a boxed slice; panics above 255 elements, which no chess position's moves reach.
    fn from(slice: Box<[T]>) -> Self {
        let len = u8::try_from(slice.len()).expect("a packed slice holds at most 255 elements");
        let raw = Box::into_raw(slice);
        // SAFETY: Box::into_raw never returns null, also for an empty slice (a dangling, aligned pointer).
        let ptr = unsafe { NonNull::new_unchecked(raw.cast::<T>()) };
        Self { ptr, len }
    }
}

impl<T> FromIterator<T> for PackedSlice<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        iter.into_iter().collect::<Box<[T]>>().into()
    }
}

impl<T> Default for PackedSlice<T> {
    fn default() -> Self {
        Box::<[T]>::default().into()
    }
}

impl<T> Drop for PackedSlice<T> {
    fn drop(&mut self) {
        let (ptr, len) = (self.ptr, self.len);
        // SAFETY: as in `into_boxed_slice`; `self` is not used again.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr.as_ptr(), usize::from(len))) });
    }
}

impl<T> Deref for PackedSlice<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        let (ptr, len) = (self.ptr, self.len);
        // SAFETY: the pointer owns `len` initialised elements for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(ptr.as_ptr(), usize::from(len)) }
    }
}

impl<T> DerefMut for PackedSlice<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        let (ptr, len) = (self.ptr, self.len);
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), usize::from(len)) }
    }
}

impl<T: fmt::Debug> fmt::Debug for PackedSlice<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn it_is_nine_bytes_and_holds_and_gives_back_its_elements() {
        assert_eq!(std::mem::size_of::<PackedSlice<u64>>(), 9);
        let mut packed: PackedSlice<u32> = (1..=218).collect();
        assert_eq!(packed.len(), 218);
        packed[5] = 0;
        assert_eq!(packed.iter().take(7).copied().collect::<Vec<_>>(), [1, 2, 3, 4, 5, 0, 7]);
        let boxed = packed.into_boxed_slice();
        assert_eq!((boxed.len(), boxed[217]), (218, 218));
        assert!(PackedSlice::<u32>::default().is_empty());
        assert_eq!(format!("{:?}", PackedSlice::from(vec![1, 2].into_boxed_slice())), "[1, 2]");
    }

    #[test]
    fn it_drops_each_element_once() {
        let counted = Rc::new(());
        let packed: PackedSlice<Rc<()>> = (0..10).map(|_| Rc::clone(&counted)).collect();
        assert_eq!(Rc::strong_count(&counted), 11);
        let boxed = packed.into_boxed_slice();
        assert_eq!(Rc::strong_count(&counted), 11, "given back, not dropped");
        let packed = PackedSlice::from(boxed);
        drop(packed);
        assert_eq!(Rc::strong_count(&counted), 1);
    }

    #[test]
    #[should_panic(expected = "at most 255")]
    fn more_than_255_elements_are_refused() {
        let _ = PackedSlice::from(vec![0u8; 256].into_boxed_slice());
    }
}
