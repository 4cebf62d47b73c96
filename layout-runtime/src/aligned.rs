//! [`AlignedBox`]: a boxed slice that starts on a cache line, the storage of
//! [`HeapBuffer`](crate::HeapBuffer) and of [`RelayoutPlan::run_owned`]'s output.
//!
//! [`RelayoutPlan::run_owned`]: crate::RelayoutPlan::run_owned

use alloc::alloc::{alloc_zeroed, dealloc, handle_alloc_error, Layout};
use core::fmt;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use crate::Element;

/// Bytes of the boundary an [`AlignedBox`] starts on: a cache line on x86_64 and most other
/// machines, and a multiple of every SIMD vector's width.
const ALIGN: usize = 64;

/// A slice on the heap whose first element starts on a 64-byte boundary, zeroed
/// when made; otherwise a `Box<[T]>` (it dereferences to `[T]`).
///
/// Why: the relayout kernels write whole 32- and 64-byte pieces with streaming stores, and
/// those need the destination on such a boundary; the system allocator puts a large
/// `Vec<u8>` 16 bytes past one, where the same bf16 relayout measured 12.4-14.0 GB/s against
/// 15.1-16.4 (docs/benchmarks-history.md). [`HeapBuffer`](crate::HeapBuffer) and
/// [`RelayoutPlan::run_owned`](crate::RelayoutPlan::run_owned) allocate with it.
///
/// ```
/// use layout_runtime::AlignedBox;
/// let mut buf = AlignedBox::<f32>::zeroed(1000);
/// assert_eq!(buf.as_ptr() as usize % 64, 0);
/// assert!(buf.iter().all(|&x| x == 0.0));
/// buf[999] = 1.5;
/// assert_eq!(buf.len(), 1000);
/// assert_eq!(buf.clone()[999], 1.5);
/// ```
pub struct AlignedBox<T: Element> {
    ptr: NonNull<T>,
    len: usize,
}

// SAFETY: an `AlignedBox<T>` owns its elements exactly as a `Box<[T]>` does (no shared
// state, no interior mutability), so it may move to and be shared with other threads
// whenever `T` may; every `Element` is `Send + Sync`.
unsafe impl<T: Element> Send for AlignedBox<T> {}
// SAFETY: as for `Send`: `&AlignedBox<T>` only gives out `&[T]`.
unsafe impl<T: Element> Sync for AlignedBox<T> {}

impl<T: Element> AlignedBox<T> {
    /// `len` elements of [`Element::ZERO`], starting on a 64-byte boundary. The memory comes
    /// zeroed from the allocator (for large sizes, pages the system zeroes when first
    /// touched): no pass over it here.
    ///
    /// Aborts, as `Vec` does, when the allocator has no memory; panics when `len` elements
    /// do not fit in `isize::MAX` bytes (no buffer of that size can exist).
    ///
    /// ```
    /// let buf = layout_runtime::AlignedBox::<u8>::zeroed(3);
    /// assert_eq!(&buf[..], [0, 0, 0]);
    /// ```
    pub fn zeroed(len: usize) -> AlignedBox<T> {
        let Some(layout) = Self::layout(len) else {
            panic!("{len} elements of {} bytes do not fit in memory", core::mem::size_of::<T>())
        };
        if layout.size() == 0 {
            return AlignedBox { ptr: Self::dangling(), len };
        }
        // SAFETY: `layout` has a non-zero size (checked just above), as `alloc_zeroed`
        // requires; its alignment is a power of two.
        let raw = unsafe { alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else { handle_alloc_error(layout) };
        // The memory is `len` zeroed elements: all bits zero is `Element::ZERO` for every
        // element type (the trait is sealed; `zero_is_all_zero_bits` checks each one).
        AlignedBox { ptr, len }
    }

    /// The layout of `len` elements starting on a 64-byte boundary (or `T`'s own, if larger);
    /// `None` when the size overflows.
    fn layout(len: usize) -> Option<Layout> {
        let align = ALIGN.max(core::mem::align_of::<T>());
        Layout::from_size_align(core::mem::size_of::<T>().checked_mul(len)?, align).ok()
    }

    /// The address of an empty box: 64, a boundary, never dereferenced.
    fn dangling() -> NonNull<T> {
        NonNull::new(ALIGN as *mut T).expect("64 is not null")
    }

    /// A copy of `values`, starting on a 64-byte boundary.
    ///
    /// ```
    /// let buf = layout_runtime::AlignedBox::from_slice(&[1u16, 2, 3]);
    /// assert_eq!(&buf[..], [1, 2, 3]);
    /// assert_eq!(buf.as_ptr() as usize % 64, 0);
    /// ```
    pub fn from_slice(values: &[T]) -> AlignedBox<T> {
        let mut out = AlignedBox::zeroed(values.len());
        out.copy_from_slice(values);
        out
    }
}

impl<T: Element> Drop for AlignedBox<T> {
    fn drop(&mut self) {
        if let Some(layout) = Self::layout(self.len).filter(|l| l.size() > 0) {
            // SAFETY: a box of non-zero size was allocated by `zeroed` with this same
            // layout (`layout(len)` of the same `len`, which never changes) and not freed.
            unsafe { dealloc(self.ptr.as_ptr().cast::<u8>(), layout) }
        }
    }
}

impl<T: Element> Deref for AlignedBox<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `len` initialized elements owned by this box (or is an
        // aligned, non-null dangling pointer when they take no bytes), valid for as long as
        // `self` is borrowed.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Element> DerefMut for AlignedBox<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes this the only reference to them.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Element> AsRef<[T]> for AlignedBox<T> {
    fn as_ref(&self) -> &[T] {
        self
    }
}

impl<T: Element> AsMut<[T]> for AlignedBox<T> {
    fn as_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T: Element> Clone for AlignedBox<T> {
    fn clone(&self) -> Self {
        AlignedBox::from_slice(self)
    }
}

impl<T: Element> Default for AlignedBox<T> {
    fn default() -> Self {
        AlignedBox::zeroed(0)
    }
}

impl<T: Element + fmt::Debug> fmt::Debug for AlignedBox<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Element + PartialEq> PartialEq for AlignedBox<T> {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl<T: Element + Eq> Eq for AlignedBox<T> {}

impl<T: Element> From<&[T]> for AlignedBox<T> {
    fn from(values: &[T]) -> Self {
        AlignedBox::from_slice(values)
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;

    use super::*;
    use crate::*;

    /// What `zeroed` relies on: `Element::ZERO` is all zero bits, for every element type
    /// (the list of `element/mod.rs`).
    #[test]
    fn zero_is_all_zero_bits() {
        macro_rules! zero {
            ($($t:ty),*) => {$(
                assert!(bytemuck::bytes_of(&<$t>::ZERO).iter().all(|&b| b == 0), stringify!($t));
            )*};
        }
        zero!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, bool, [f32; 2], [f64; 2], f16);
        zero!(bf16, S4, U4, S2, U2, S1, U1, F8e5m2, F8e4m3, F8e4m3fn, F8e4m3b11fnuz, F8e3m4);
        zero!(F8e5m2fnuz, F8e4m3fnuz, F8e8m0fnu, F6e3m2fn, F6e2m3fn, F4e2m1fn);
    }

    /// The boundary of the allocation: empty boxes, one element, odd sizes, every width;
    /// each starts on a boundary, reads as zero, and is freed with the layout it was made
    /// with (Miri checks the last).
    #[test]
    fn every_size_starts_on_a_boundary() {
        fn check<T: Element + PartialEq + fmt::Debug>(len: usize) {
            let mut b = AlignedBox::<T>::zeroed(len);
            assert_eq!(b.as_ptr() as usize % ALIGN, 0, "{len}");
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|x| *x == T::ZERO));
            if let Some(last) = b.last_mut() {
                *last = T::ZERO;
            }
            let c = b.clone();
            assert_eq!(c, b);
            assert_eq!(c.as_ptr() as usize % ALIGN, 0);
        }
        for len in [0, 1, 3, 64, 65, 1000] {
            check::<u8>(len);
            check::<bool>(len);
            check::<[f64; 2]>(len);
            check::<bf16>(len);
        }
        assert_eq!(AlignedBox::<u32>::default().len(), 0);
        assert_eq!(format!("{:?}", AlignedBox::from_slice(&[1u8, 2])), "[1, 2]");
    }

    #[test]
    #[should_panic(expected = "do not fit in memory")]
    fn sizes_past_memory_panic() {
        let _ = AlignedBox::<u64>::zeroed(usize::MAX / 4);
    }
}
