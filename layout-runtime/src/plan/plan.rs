//! The [`Plan`] of an array shape: its index space (`build`), the forward and inverse index
//! programs (`program`) and, for separable tiled layouts, the tabulated offsets (`tables`),
//! with the answers every use of a layout asks (sizes, offsets, the inverse, packed
//! elements). The iterators and the numpy recipe extend it in files of their own.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use super::build::{overflow, Reg, Space};
use super::program::{build_forward, build_inverse, exec, with_regs, IndexProgram, Program};
use super::tables::Tables;
use crate::error::at;
use crate::subbyte::{self, BitPosition};
use crate::{ArrayShape, CheckedArray, Divider, Error, ErrorKind, Location};

/// The expanded index space of a static array shape, with every constant of the offset map
/// and its inverse precomputed. Build it once per shape; use it per element.
///
/// ```
/// use layout_runtime::ArrayShape;
/// let s: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = s.plan()?;
/// assert_eq!(plan.expanded_shape(), [2, 3, 2, 2]);
/// assert_eq!(plan.grid_len(), 24);
/// assert_eq!(plan.offset(&[2, 3])?, 17);
/// assert_eq!(plan.index_of(17), Some(vec![2, 3]));
/// assert_eq!(plan.index_of(9), None); // padding
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Plan {
    /// The index space: tile tree, levels, grid and sizes.
    pub(super) space: Space,
    /// Logical index -> registers -> offset = Σ regs[r]·stride.
    pub(super) forward: Program,
    pub(super) forward_out: Vec<(Reg, usize)>,
    /// `forward_out` as a per-register stride (0 when not an output), for the iterators.
    pub(super) out_stride: Vec<usize>,
    /// Untiled layouts: the stride of each logical dimension (then `forward.ops` is empty).
    pub(super) logical_strides: Option<Vec<usize>>,
    /// Tiled layouts without `*` merges: the map is a sum of one term per logical dimension,
    /// tabulated (see [`Tables`]).
    pub(super) tables: Option<Tables>,
    /// Expanded digits -> registers -> logical index (registers 0..rank), with range checks.
    pub(super) inverse: Program,
    /// Divisors by the expanded sizes (empty when the grid is).
    pub(super) expanded_div: Vec<Divider>,
}

impl Plan {
    /// Builds the plan of a checked array's layout.
    ///
    /// The verifier's rules hold already ([`ArrayShape::check`]); what can fail here is the
    /// plan's own: an unbounded `?` dimension ([`ErrorKind::NotStaticArray`]; bounded `<=N`
    /// dimensions take part with their bound); a `*` as the last entry of a tile
    /// ([`ErrorKind::TrailingCombine`]: nothing to merge it into); a size, stride or byte
    /// length beyond `usize` ([`ErrorKind::SizeOverflow`]).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ErrorKind, Plan};
    /// let plan = |t: &str| Plan::new(&t.parse::<ArrayShape>()?.check()?);
    /// assert_eq!(plan("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")?.expanded_shape(), [56, 37, 2, 3]);
    /// assert_eq!(plan("f32[<=5,3]{1,0:T(8,128)}")?.grid_len(), 1024);
    /// assert_eq!(plan("f32[3,5]{1,0:T(2,*)}").unwrap_err().kind(), ErrorKind::TrailingCombine);
    /// assert_eq!(plan("f32[?,5]").unwrap_err().kind(), ErrorKind::NotStaticArray);
    /// assert_eq!(plan("s8[9223372036854775807]{0:T(4,2)}").unwrap_err().kind(), ErrorKind::SizeOverflow);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn new(shape: &CheckedArray<'_>) -> Result<Plan, Error> {
        let mut plan = Plan::untabulated(shape)?;
        plan.tables = if plan.logical_strides.is_some() {
            None // untiled: plain strides, nothing to tabulate
        } else {
            Tables::build(plan.dims(), &plan.forward, |index| plan.run_forward(index))
        };
        Ok(plan)
    }

    /// [`Plan::new`] without the lookup tables that speed up offsets of tiled layouts: for a
    /// plan read for its sizes and index programs, not run per element (code generation:
    /// the `layout!` macro), where tabulating up to 2^16 offsets would be wasted work. Every
    /// answer is the same as [`Plan::new`]'s; an offset runs the index program.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, Plan};
    /// let s: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let plan = Plan::untabulated(&s.check()?)?;
    /// assert_eq!((plan.offset(&[2, 3])?, plan.grid_len()), (17, 24));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn untabulated(shape: &CheckedArray<'_>) -> Result<Plan, Error> {
        let space = Space::new(shape)?;
        let (forward, forward_out, out_stride) = build_forward(&space);
        let rank = space.dims.len();
        let logical_strides = forward.ops.is_empty().then(|| {
            let mut s = vec![0usize; rank];
            for &(r, stride) in &forward_out {
                if (r as usize) < rank {
                    s[r as usize] = stride;
                }
            }
            s
        });
        let inverse = build_inverse(&space);
        let expanded_div = if space.grid_len == 0 {
            Vec::new()
        } else {
            // A non-empty grid has no zero extent.
            space.expanded.iter().map(|&s| Divider::new(s).unwrap_or(Divider::ONE)).collect()
        };
        Ok(Plan {
            space,
            forward,
            forward_out,
            out_stride,
            logical_strides,
            tables: None,
            inverse,
            expanded_div,
        })
    }

    /// The index space and its tile tree, for relayout.
    pub(crate) fn space(&self) -> &Space {
        &self.space
    }

    /// The number of logical dimensions.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2,2)}".parse()?;
    /// assert_eq!(s.plan()?.rank(), 2);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.space.dims.len()
    }

    /// The logical dimension sizes (bounds for `<=N`), dimension 0 first.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[<=3,5]{0,1}".parse()?;
    /// assert_eq!(s.plan()?.dims(), [3, 5]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn dims(&self) -> &[usize] {
        &self.space.dims
    }

    /// The shape of the index space after every tile level, most major first; the offset is
    /// the row-major position in it.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[4,8]{1,0:T(2,4)(2,1)}".parse()?;
    /// assert_eq!(s.plan()?.expanded_shape(), [2, 2, 1, 4, 2, 1]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn expanded_shape(&self) -> &[usize] {
        &self.space.expanded
    }

    /// The row-major strides (in elements) of [`Plan::expanded_shape`].
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// assert_eq!(s.plan()?.expanded_strides(), [12, 4, 2, 1]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn expanded_strides(&self) -> &[usize] {
        &self.space.strides
    }

    /// The elements of the expanded grid (the product of [`Plan::expanded_shape`]), padding
    /// included, `L` not included. Every offset is below it.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "u32[]{:T(128)}".parse()?;
    /// assert_eq!(s.plan()?.grid_len(), 128);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn grid_len(&self) -> usize {
        self.space.grid_len
    }

    /// [`Plan::grid_len`] rounded up to a multiple of `L(n)`: the elements of the buffer.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)L(64)}".parse()?;
    /// let plan = s.plan()?;
    /// assert_eq!((plan.grid_len(), plan.padded_len()), (24, 64));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn padded_len(&self) -> usize {
        self.space.padded_len
    }

    /// Storage bits per element: `E(n)` when set, else the type's byte width × 8 (so `s4`
    /// without `E` takes 8 bits).
    ///
    /// ```
    /// use layout_runtime::ArrayShape;
    /// let bits = |t: &str| t.parse::<ArrayShape>().unwrap().plan().unwrap().element_bits();
    /// assert_eq!((bits("s4[8]"), bits("s4[8]{0:E(4)}"), bits("bf16[2]")), (8, 4, 16));
    /// ```
    pub fn element_bits(&self) -> usize {
        self.space.element_bits
    }

    /// The bytes of the buffer: ⌈[`Plan::padded_len`] × [`Plan::element_bits`] / 8⌉ (the
    /// nested-grid size, see [`ArrayShape::nested_byte_size`]).
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f6e3m2fn[5]{0:E(6)}".parse()?;
    /// assert_eq!(s.plan()?.byte_len(), 4);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn byte_len(&self) -> usize {
        self.space.byte_len
    }

    /// The element offset of a logical index.
    ///
    /// Errors: an index of the wrong rank or with an entry at or beyond its dimension
    /// ([`ErrorKind::IndexOutOfBounds`]).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ErrorKind};
    /// let s: ArrayShape = "f32[8,8]{1,0:T(2,4)(2,1,1,1)}".parse()?;
    /// let plan = s.plan()?;
    /// assert_eq!(plan.offset(&[6, 5])?, 51);
    /// assert_eq!(plan.offset(&[8, 0]).unwrap_err().kind(), ErrorKind::IndexOutOfBounds);
    /// assert_eq!(plan.offset(&[1]).unwrap_err().kind(), ErrorKind::IndexOutOfBounds);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn offset(&self, index: &[usize]) -> Result<usize, Error> {
        if index.len() == self.space.dims.len()
            && index.iter().zip(&self.space.dims).all(|(i, d)| i < d)
        {
            Ok(self.offset_unchecked(index))
        } else {
            Err(self.index_error(index))
        }
    }

    /// Why `index` is not an index of this shape (it is not).
    #[cold]
    #[inline(never)]
    fn index_error(&self, index: &[usize]) -> Error {
        if index.len() != self.rank() {
            return Error::new(
                ErrorKind::IndexOutOfBounds,
                format!(
                    "index {index:?} has {} entries; the shape has rank {}",
                    index.len(),
                    self.rank()
                ),
            );
        }
        let (k, (&i, &d)) =
            index.iter().zip(&self.space.dims).enumerate().find(|(_, (i, d))| i >= d).unwrap_or((
                0,
                (&0, &0), // unreachable for a bad index; kept total so nothing can panic
            ));
        Error::new(
            ErrorKind::IndexOutOfBounds,
            format!("index {index:?}: entry {k} is {i}, dimension {k} has size {d}"),
        )
        .with_path(at(Location::Dim(k)))
    }

    /// [`Plan::offset`] without bounds checks, for hot loops whose indices are known to be
    /// in range. With an index of the wrong rank or out of range the result is meaningless
    /// (missing entries count as 0, extra ones are ignored, arithmetic wraps), but it never
    /// panics and never touches memory.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let plan = s.plan()?;
    /// assert_eq!(plan.offset_unchecked(&[2, 3]), 17);
    /// let _ = plan.offset_unchecked(&[usize::MAX, 9]); // some number, no panic
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn offset_unchecked(&self, index: &[usize]) -> usize {
        if let Some(strides) = &self.logical_strides {
            return index
                .iter()
                .zip(strides)
                .fold(0usize, |acc, (&i, &s)| acc.wrapping_add(i.wrapping_mul(s)));
        }
        if let Some(t) = &self.tables {
            return index
                .iter()
                .take(self.space.dims.len())
                .enumerate()
                .fold(0usize, |acc, (d, &i)| acc.wrapping_add(t.term(d, i)));
        }
        self.run_forward(index)
    }

    /// The offset by running the forward index program (no tables, no strides).
    pub(crate) fn run_forward(&self, index: &[usize]) -> usize {
        with_regs(self.space.registers(), |regs| {
            for (r, &i) in regs.iter_mut().zip(index.iter().take(self.rank())) {
                *r = i;
            }
            for op in &self.forward.ops {
                exec(op, regs);
            }
            self.forward_out
                .iter()
                .fold(0usize, |acc, &(r, s)| acc.wrapping_add(regs[r as usize].wrapping_mul(s)))
        })
    }

    /// The logical index stored at `offset`; `None` when the position is padding or at or
    /// beyond [`Plan::grid_len`].
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let plan = s.plan()?;
    /// assert_eq!(plan.index_of(17), Some(vec![2, 3]));
    /// assert_eq!(plan.index_of(14), None); // padding below row 2
    /// assert_eq!(plan.index_of(24), None); // past the grid
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn index_of(&self, offset: usize) -> Option<Vec<usize>> {
        let mut out = vec![0; self.rank()];
        self.index_of_into(offset, &mut out).then_some(out)
    }

    /// [`Plan::index_of`] into a caller's slice (no allocation): `true` and `out` holds the
    /// logical index, or `false` (padding, out of range, or `out.len()` is not the rank) and
    /// `out` holds nothing meaningful.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[4,8]{1,0:T(2,4)(2,1)}".parse()?;
    /// let plan = s.plan()?;
    /// let mut ix = [0; 2];
    /// assert!(plan.index_of_into(16, &mut ix));
    /// assert_eq!(ix, [2, 0]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn index_of_into(&self, offset: usize, out: &mut [usize]) -> bool {
        if offset >= self.space.grid_len || out.len() != self.rank() {
            return false;
        }
        with_regs(self.space.registers(), |regs| {
            let mut rest = offset;
            for (&r, div) in self.inverse.inputs.iter().zip(&self.expanded_div).rev() {
                let (q, d) = div.div_rem(rest);
                regs[r as usize] = d;
                rest = q;
            }
            if !self.inverse.ops.iter().all(|op| exec(op, regs)) {
                return false;
            }
            out.copy_from_slice(&regs[..out.len()]);
            true
        })
    }

    /// Where the element at a logical index starts, in bytes and bits, in a buffer packed
    /// with [`Plan::element_bits`] bits per element (little-endian bit order, first element
    /// in the low bits).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, BitPosition};
    /// let s: ArrayShape = "s4[16,256]{1,0:T(64,128)(8,1)E(4)}".parse()?;
    /// let plan = s.plan()?;
    /// assert_eq!(plan.offset(&[7, 0])?, 7);
    /// assert_eq!(plan.bit_position(&[7, 0])?, BitPosition { byte: 3, bit: 4 });
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn bit_position(&self, index: &[usize]) -> Result<BitPosition, Error> {
        let offset = self.offset(index)?;
        let bits = u32::try_from(self.space.element_bits).map_err(|_| overflow("element size"))?;
        subbyte::bit_position(offset, bits).ok_or_else(|| overflow("bit position"))
    }

    /// Reads the packed element at a logical index from `buf` (see
    /// [`read_packed`](crate::read_packed); element sizes up to 64 bits).
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "u4[2,2]{1,0:E(4)}".parse()?;
    /// let plan = s.plan()?;
    /// assert_eq!(plan.read_packed(&[0x21, 0x43], &[1, 0])?, 3);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn read_packed(&self, buf: &[u8], index: &[usize]) -> Result<u64, Error> {
        let offset = self.offset(index)?;
        let bits = u32::try_from(self.space.element_bits).map_err(|_| overflow("element size"))?;
        subbyte::read_packed(buf, offset, bits)
    }

    /// Writes the packed element at a logical index in `buf` (see
    /// [`write_packed`](crate::write_packed)); other elements are untouched.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f6e3m2fn[2,2]{1,0:E(6)}".parse()?;
    /// let plan = s.plan()?;
    /// let mut buf = vec![0u8; plan.byte_len()];
    /// plan.write_packed(&mut buf, &[0, 1], 0b11_1111)?;
    /// assert_eq!(buf, [0b1100_0000, 0b0000_1111, 0]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn write_packed(&self, buf: &mut [u8], index: &[usize], value: u64) -> Result<(), Error> {
        let offset = self.offset(index)?;
        let bits = u32::try_from(self.space.element_bits).map_err(|_| overflow("element size"))?;
        subbyte::write_packed(buf, offset, bits, value)
    }

    /// The offset map as straight-line code with constant operands (see [`IndexProgram`]):
    /// trivial steps are already folded away (a tile entry of 1 or one covering its whole
    /// dimension costs nothing).
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{0,1}".parse()?;
    /// let p = s.plan()?.index_program();
    /// assert!(p.steps.is_empty()); // untiled: offset = i*1 + j*3
    /// assert_eq!(p.outputs, [(0, 1), (1, 3)]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn index_program(&self) -> IndexProgram {
        IndexProgram::from_program(
            &self.forward,
            self.space.registers(),
            self.forward_out.iter().map(|&(r, s)| (r as usize, s)).collect(),
        )
    }

    /// The inverse map (expanded digits to logical index) as straight-line code (see
    /// [`IndexProgram`]); a `MulAdd` with a bound re-joins a split dimension and detects
    /// padding.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, IndexStep};
    /// let s: ArrayShape = "f32[3]{0:T(2)}".parse()?;
    /// let p = s.plan()?.inverse_program();
    /// // digits (q, r) of radix (2, 2): i = q*2 + r, padding unless i < 3.
    /// assert_eq!(p.steps, [IndexStep::MulAdd { dst: 0, a: p.inputs[0], multiplier: 2, b: p.inputs[1], bound: Some(3) }]);
    /// assert_eq!(p.outputs, [(0, 1)]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn inverse_program(&self) -> IndexProgram {
        IndexProgram::from_program(
            &self.inverse,
            self.space.registers(),
            (0..self.rank()).map(|d| (d, 1)).collect(),
        )
    }
}

impl ArrayShape {
    /// The [`Plan`] of this shape's index space: [`ArrayShape::check`], then [`Plan::new`].
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}".parse()?;
    /// let plan = s.plan()?;
    /// assert_eq!(plan.offset(&[1, 0, 0, 0])?, 20_971_520);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn plan(&self) -> Result<Plan, Error> {
        Plan::new(&self.check()?)
    }

    /// Elements of the fully expanded nested tiling (every tile level may pad, `*` merges as
    /// the tiled-layout document defines), rounded up to a multiple of `L(n)` — `L` applies
    /// here whether or not the layout is tiled. Errors as [`Plan::new`].
    ///
    /// ```
    /// use layout_runtime::ArrayShape;
    /// let count = |t: &str| t.parse::<ArrayShape>().unwrap().nested_element_count();
    /// assert_eq!(count("f32[4,4]{1,0:T(2,4)(3,1)}")?, 24); // XLA's ArraySize says 16
    /// assert_eq!(count("f32[3,5]{1,0:L(64)}")?, 64);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn nested_element_count(&self) -> Result<u64, Error> {
        Ok(self.plan()?.padded_len() as u64)
    }

    /// Bytes of the fully expanded nested tiling: [`ArrayShape::nested_element_count`] times
    /// `E(n)` bits (or the type's byte width × 8), rounded up to whole bytes. Differs from
    /// XLA's [`ArrayShape::byte_size`] (first tile only, `L` only when tiled) for sub-tiles
    /// that do not divide the first tile, `L` without tiles, and `*`.
    ///
    /// ```
    /// use layout_runtime::ArrayShape;
    /// let bytes = |t: &str| t.parse::<ArrayShape>().unwrap().nested_byte_size();
    /// assert_eq!(bytes("f32[3,5]{1,0:L(64)}")?, 256);
    /// assert_eq!(bytes("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")?, 49_728);
    /// assert_eq!(bytes("s4[3,5]{1,0:T(2,2)E(4)}")?, 12);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn nested_byte_size(&self) -> Result<u64, Error> {
        Ok(self.plan()?.byte_len() as u64)
    }
}

impl CheckedArray<'_> {
    /// The [`Plan`] of this array's index space ([`Plan::new`]).
    ///
    /// ```
    /// let a: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// assert_eq!(a.check()?.plan()?.offset(&[2, 3])?, 17);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn plan(&self) -> Result<Plan, Error> {
        Plan::new(self)
    }
}
