//! Typed views: a slice of elements read and written through a layout by logical index.
//!
//! The storage length is checked once, when the view is made, against the plan's
//! [`padded_len`](Plan::padded_len) (the nested grid plus `L` tail padding); every offset
//! the plan computes for an in-range index is below it, so per-element access costs the
//! logical bounds check and the offset arithmetic.

use alloc::format;
use core::ops::{Index, IndexMut};

use crate::{Element, Error, ErrorKind, Location, Path, Plan, Shape};

/// The plan of `shape`, after checking that `T` holds its elements and `len` storage items
/// are exactly what the layout needs.
fn checked_plan<T: Element>(shape: &Shape, len: usize) -> Result<Plan, Error> {
    let array = shape.try_array()?;
    let t = array.element_type;
    let plan = array.plan()?;
    let natural = t.byte_width() as usize * 8;
    if !T::holds(t) || plan.element_bits() != natural {
        let packed = if plan.element_bits() != natural {
            format!(" packed to {} bits (read it with Plan::read_packed)", plan.element_bits())
        } else {
            alloc::string::String::new()
        };
        return Err(Error::new(
            ErrorKind::ElementType,
            format!(
                "a slice of `{}` cannot hold `{t}` elements{packed}",
                core::any::type_name::<T>()
            ),
        )
        .with_path(Path {
            tuple_indices: alloc::vec::Vec::new(),
            location: Location::ElementType,
        }));
    }
    if len != plan.padded_len() {
        return Err(Error::new(
            ErrorKind::BufferLength,
            format!(
                "the slice has {len} elements, the layout of `{shape}` needs exactly {} (the tiled \
                 grid with its padding)",
                plan.padded_len()
            ),
        ));
    }
    Ok(plan)
}

/// A slice of elements seen through an array layout: `view[&[i, j]]` is the element at logical
/// index `(i, j)`.
///
/// ```
/// use layout_runtime::{Shape, View};
/// let shape: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let storage: Vec<f32> = (0..24).map(|o| o as f32).collect(); // element = its offset
/// let view = View::new(&storage, &shape)?;
/// assert_eq!(view[&[2, 3]], 17.0); // Figure 1 of the tiled-layout document
/// assert_eq!(view[[1, 4]], 10.0);
/// assert_eq!(view.get(&[3, 0]), None);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct View<'a, T> {
    data: &'a [T],
    plan: Plan,
}

/// A mutable slice of elements seen through an array layout; see [`View`].
///
/// ```
/// use layout_runtime::{Shape, ViewMut};
/// let shape: Shape = "s32[4,8]{1,0:T(2,4)(2,1)}".parse()?;
/// let mut storage = vec![0i32; 32];
/// let mut view = ViewMut::new(&mut storage, &shape)?;
/// view[[1, 0]] = 7;
/// view.set(&[2, 1], 9)?;
/// assert_eq!((storage[1], storage[18]), (7, 9)); // Figure 2: (1,0) -> 1, (2,1) -> 18
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Debug)]
pub struct ViewMut<'a, T> {
    data: &'a mut [T],
    plan: Plan,
}

impl<'a, T: Element> View<'a, T> {
    /// A view of `data` as an array of `shape`.
    ///
    /// Errors: `shape` is not a static array ([`ErrorKind::NotStaticArray`]) or its layout
    /// has no plan (see [`Plan::new`]); `T` does not hold its element type, or the layout
    /// packs elements with `E(n)` to another width ([`ErrorKind::ElementType`]); `data` is
    /// not exactly [`Plan::padded_len`] long ([`ErrorKind::BufferLength`]).
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Shape, View};
    /// let shape: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// assert_eq!(View::new(&[0f32; 15], &shape).unwrap_err().kind(), ErrorKind::BufferLength);
    /// assert_eq!(View::new(&[0i32; 24], &shape).unwrap_err().kind(), ErrorKind::ElementType);
    /// let packed: Shape = "u4[4]{0:E(4)}".parse()?;
    /// assert_eq!(View::new(&[0u8; 4], &packed).unwrap_err().kind(), ErrorKind::ElementType);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn new(data: &'a [T], shape: &Shape) -> Result<Self, Error> {
        let plan = checked_plan::<T>(shape, data.len())?;
        Ok(View { data, plan })
    }

    /// The element at a logical index; `None` when the index has the wrong rank or is out
    /// of range.
    ///
    /// ```
    /// use layout_runtime::{Shape, View};
    /// let shape: Shape = "u8[2,3]{0,1}".parse()?;
    /// let view = View::new(&[1u8, 4, 2, 5, 3, 6], &shape)?; // column-major
    /// assert_eq!(view.get(&[1, 0]), Some(&4));
    /// assert_eq!(view.get(&[0, 3]), None);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn get(&self, index: &[usize]) -> Option<&T> {
        let offset = self.plan.offset(index).ok()?;
        self.data.get(offset)
    }

    /// The plan the view addresses through.
    ///
    /// ```
    /// use layout_runtime::{Shape, View};
    /// let shape: Shape = "f32[3]{0:T(4)}".parse()?;
    /// assert_eq!(View::new(&[0f32; 4], &shape)?.plan().grid_len(), 4);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The storage, in memory order, padding included.
    ///
    /// ```
    /// use layout_runtime::{Shape, View};
    /// let shape: Shape = "f32[3]".parse()?;
    /// assert_eq!(View::new(&[1f32, 2., 3.], &shape)?.as_slice(), [1., 2., 3.]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }
}

impl<'a, T: Element> ViewMut<'a, T> {
    /// A mutable view of `data` as an array of `shape`; errors as [`View::new`].
    ///
    /// ```
    /// use layout_runtime::{Shape, ViewMut};
    /// let shape: Shape = "pred[2,2]".parse()?;
    /// let mut bits = [false; 4];
    /// ViewMut::new(&mut bits, &shape)?[[1, 0]] = true;
    /// assert_eq!(bits, [false, false, true, false]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn new(data: &'a mut [T], shape: &Shape) -> Result<Self, Error> {
        let plan = checked_plan::<T>(shape, data.len())?;
        Ok(ViewMut { data, plan })
    }

    /// The element at a logical index; `None` when the index has the wrong rank or is out
    /// of range.
    ///
    /// ```
    /// use layout_runtime::{Shape, ViewMut};
    /// let shape: Shape = "f64[2]".parse()?;
    /// let mut data = [1.0, 2.0];
    /// let view = ViewMut::new(&mut data, &shape)?;
    /// assert_eq!(view.get(&[1]), Some(&2.0));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn get(&self, index: &[usize]) -> Option<&T> {
        let offset = self.plan.offset(index).ok()?;
        self.data.get(offset)
    }

    /// The element at a logical index, mutably; `None` as for [`ViewMut::get`].
    ///
    /// ```
    /// use layout_runtime::{Shape, ViewMut};
    /// let shape: Shape = "s64[2,2]{0,1}".parse()?;
    /// let mut data = [0i64; 4];
    /// let mut view = ViewMut::new(&mut data, &shape)?;
    /// *view.get_mut(&[0, 1]).unwrap() = 5;
    /// assert_eq!(data, [0, 0, 5, 0]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn get_mut(&mut self, index: &[usize]) -> Option<&mut T> {
        let offset = self.plan.offset(index).ok()?;
        self.data.get_mut(offset)
    }

    /// Writes the element at a logical index.
    ///
    /// Errors: an index of the wrong rank or out of range ([`ErrorKind::IndexOutOfBounds`]).
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Shape, ViewMut};
    /// let shape: Shape = "u16[3]".parse()?;
    /// let mut data = [0u16; 3];
    /// let mut view = ViewMut::new(&mut data, &shape)?;
    /// view.set(&[2], 9)?;
    /// assert_eq!(view.set(&[3], 1).unwrap_err().kind(), ErrorKind::IndexOutOfBounds);
    /// assert_eq!(data, [0, 0, 9]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn set(&mut self, index: &[usize], value: T) -> Result<(), Error> {
        let offset = self.plan.offset(index)?;
        self.data[offset] = value;
        Ok(())
    }

    /// The plan the view addresses through.
    ///
    /// ```
    /// use layout_runtime::{Shape, ViewMut};
    /// let shape: Shape = "f32[3]{0:T(4)}".parse()?;
    /// assert_eq!(ViewMut::new(&mut [0f32; 4], &shape)?.plan().grid_len(), 4);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// A read-only view of the same storage.
    ///
    /// ```
    /// use layout_runtime::{Shape, ViewMut};
    /// let shape: Shape = "s8[2]".parse()?;
    /// let mut data = [3i8, 4];
    /// let view = ViewMut::new(&mut data, &shape)?;
    /// assert_eq!(view.as_view()[[1]], 4);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn as_view(&self) -> View<'_, T> {
        View { data: self.data, plan: self.plan.clone() }
    }

    /// The storage, in memory order, padding included, to write whole runs at once (a
    /// kernel that knows its layout's order writes rows as slices, not element by element).
    ///
    /// ```
    /// use layout_runtime::{Shape, ViewMut};
    /// let shape: Shape = "s32[2,3]{0,1}".parse()?; // column-major
    /// let mut data = [0i32; 6];
    /// let mut view = ViewMut::new(&mut data, &shape)?;
    /// view.as_mut_slice()[..2].copy_from_slice(&[7, 8]); // column 0
    /// assert_eq!((view[[0, 0]], view[[1, 0]]), (7, 8));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }
}

/// The offset of `index` in a view, panicking like slice indexing when it is out of range.
#[inline]
#[track_caller]
fn offset_or_panic(plan: &Plan, index: &[usize]) -> usize {
    match plan.offset(index) {
        Ok(offset) => offset,
        Err(e) => panic!("{e}"),
    }
}

impl<T: Element> Index<&[usize]> for View<'_, T> {
    type Output = T;

    /// The element at a logical index; panics when the index is out of range (as slices do).
    #[inline]
    #[track_caller]
    fn index(&self, index: &[usize]) -> &T {
        &self.data[offset_or_panic(&self.plan, index)]
    }
}

impl<T: Element, const N: usize> Index<[usize; N]> for View<'_, T> {
    type Output = T;

    #[inline]
    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        &self[&index[..]]
    }
}

impl<T: Element, const N: usize> Index<&[usize; N]> for View<'_, T> {
    type Output = T;

    #[inline]
    #[track_caller]
    fn index(&self, index: &[usize; N]) -> &T {
        &self[&index[..]]
    }
}

impl<T: Element> Index<&[usize]> for ViewMut<'_, T> {
    type Output = T;

    #[inline]
    #[track_caller]
    fn index(&self, index: &[usize]) -> &T {
        &self.data[offset_or_panic(&self.plan, index)]
    }
}

impl<T: Element> IndexMut<&[usize]> for ViewMut<'_, T> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: &[usize]) -> &mut T {
        let offset = offset_or_panic(&self.plan, index);
        &mut self.data[offset]
    }
}

impl<T: Element, const N: usize> Index<[usize; N]> for ViewMut<'_, T> {
    type Output = T;

    #[inline]
    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        &self[&index[..]]
    }
}

impl<T: Element, const N: usize> IndexMut<[usize; N]> for ViewMut<'_, T> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: [usize; N]) -> &mut T {
        &mut self[&index[..]]
    }
}

impl<T: Element, const N: usize> Index<&[usize; N]> for ViewMut<'_, T> {
    type Output = T;

    #[inline]
    #[track_caller]
    fn index(&self, index: &[usize; N]) -> &T {
        &self[&index[..]]
    }
}

impl<T: Element, const N: usize> IndexMut<&[usize; N]> for ViewMut<'_, T> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: &[usize; N]) -> &mut T {
        &mut self[&index[..]]
    }
}
