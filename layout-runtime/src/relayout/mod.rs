//! Converting whole buffers between two layouts of the same array: row-major to a device's
//! tiled layout and back, transposes, one tiling to another, packed and unpacked sub-byte
//! elements.
//!
//! Both layouts are decomposed into one set of strided loops (see `decompose`): each logical
//! dimension becomes the digits its tiles cut it into, the two sides' digits are refined to
//! common ones, and loops contiguous on both sides merge. The destination is walked in
//! memory order; contiguous runs move with `copy_from_slice`, small inner transposes (the
//! `(2,1)` row pairs of bf16, the `(4,1)` quads of 8-bit types, the `(8,1)` nibble groups of
//! int4) with fixed-size interleaving kernels (`weave`, `packed`), larger ones in tiles
//! (`kernel`). Each dimension's range is cut into whole tiles and the partial tile at its
//! edge, so no element pays a branch for the edge. Layouts that do not decompose that way
//! go through a general element-by-element path that is exact for every valid layout.
//!
//! The files import downwards only, shared types below their users: `cpu`, `decompose`,
//! `elem` and `general` at the bottom; `geometry` (the loops and the transpose shape every
//! kernel takes); `spread` and `simd` (x86_64: `avx2` -> `sse2` -> `groups` -> `stream`);
//! `ctx` (what a run's kernels are given); the kernels `weave`, `packed`, `kernel` and
//! `parallel`; this file on top.
//!
//! Memory traffic decides the speed, and these choices shape it:
//! - each block's loops run in destination or source order, whichever keeps fewer streams
//!   open (`decompose`); the transpose kernels run the innermost loop themselves, and write
//!   two row groups of a tile in one piece (`geometry::split_repeat`);
//! - on x86_64, SIMD kernels (`simd`) do the shuffles the compiler leaves scalar: SSE2
//!   everywhere, AVX2 where the CPU has it, found once per plan (`cpu`);
//! - large transposes take as many source rows at a time as a quarter of the first-level
//!   cache holds lines, and start their tiles on source and destination cache lines;
//! - destinations of at least half the last-level cache are written with non-temporal
//!   stores, which skip reading each destination line first; `cpu` reads the cache sizes
//!   (CPUID) once per process;
//! - `run_parallel` cuts each large block along the destination on cache-line boundaries
//!   (`parallel`).

mod cpu;
mod ctx;
mod decompose;
mod elem;
mod general;
mod geometry;
mod kernel;
mod packed;
#[cfg(feature = "rayon")]
mod parallel;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod simd;
mod spread;
mod weave;

use alloc::format;
use alloc::vec::Vec;

pub use cpu::Simd;
use cpu::{Caches, Level};
use ctx::{Ctx, Kernels};
use decompose::Block;
use elem::Elem;
use kernel::Whole;
use packed::Packed;

use crate::{ArrayShape, Error, ErrorKind, Plan, Shape};

/// The strided copy of a pair of layouts over whole elements.
#[derive(Clone, Debug)]
struct Blocks {
    copies: Vec<Block>,
    /// The destination's padding inside the grid.
    zeros: Vec<Block>,
    /// Where the `L` tail starts, in elements (of the kernels' slices, or packed ones).
    tail: usize,
}

/// How a plan moves elements.
#[derive(Clone, Debug)]
enum Engine {
    /// A dimension of size 0: no element, the destination is all padding.
    Zero,
    /// Strided blocks over whole elements of `size` bytes (1, 2, 4, 8 or 16; other sizes are
    /// blocks of bytes with `size` 1).
    Bytes { size: usize, blocks: Blocks },
    /// Strided blocks over packed 1-, 2- or 4-bit elements.
    Packed { bits: usize, blocks: Blocks },
    /// Element by element (see `general`).
    General,
}

/// A conversion between two layouts of the same array, checked and precomputed once, to run
/// on any number of buffer pairs.
///
/// The source and destination are array shapes with the same element type and the same
/// dimension sizes (a `<=N` dimension counts as `N`), and any valid layouts: tiled or not,
/// any physical order, different tiles, `*` merges, `L(n)` tail padding, `E(n)` packing on
/// either side. Buffers hold the whole nested grid: their lengths must equal
/// [`RelayoutPlan::src_len`] and [`RelayoutPlan::dst_len`] ([`Plan::byte_len`] of each
/// side), exactly.
///
/// [`RelayoutPlan::run`] copies every logical element and writes zero bits to every other
/// bit of the destination: padding inside and around tiles, the `L` tail, the unused bits of
/// a partly used last byte. When the two sides store elements in different widths
/// (`s4` in bytes and `s4` with `E(4)`), an element keeps its low bits when narrowed and
/// gets zero high bits when widened (no sign extension: read a widened `s4` through its low
/// four bits).
///
/// Speed: pairs whose tilings nest (every tile size a power of two, or one side untiled, and
/// no `*`) with equal storage widths of whole bytes or 1, 2 or 4 bits take the strided path,
/// at about the speed of a memory copy (BENCHMARKS.md has the figures); everything else
/// takes an exact element-by-element path. What the machine offers is found when the plan
/// is built, and can be overridden:
///
/// - SIMD kernels: the best level the CPU runs ([`Simd::detect`]: AVX2 where
///   `is_x86_feature_detected!` finds it, else SSE2 on x86_64, else portable code), or a
///   lower one from the environment variable `XLAYOUT_SIMD` (`portable`, `sse2`, `avx2`;
///   another value is ignored with a warning on standard error, once per process) or
///   [`RelayoutPlan::with_simd`].
/// - Non-temporal stores (x86_64, SSE2 or AVX2): for destinations of at least half the
///   last-level cache, whose size CPUID gives (32 MiB assumed where it does not), so the
///   destination is not read into the cache before being overwritten and does not push out
///   everything else; the environment variable `XLAYOUT_STREAM_MIN` (bytes) or
///   [`RelayoutPlan::with_stream_min`] sets another threshold.
/// - Large transposes take as many source rows at a time as a quarter of the first-level
///   data cache holds lines (CPUID again; 32 KiB assumed), so each line is read from memory
///   once.
///
/// Any alignment of either buffer is correct, but a destination that starts on a 32- or
/// 64-byte boundary is written with the widest streaming stores: the row-group kernels
/// (`(2,1)` and `(4,1)` sub-tiles, `E(4)` regrouping) measured 15.1-16.4 GB/s there against
/// 12.4-14.0 for the same bf16 relayout 16 bytes past a boundary, which is where the system
/// allocator puts a large `Vec<u8>`. Allocate a little more and start at `align_offset(64)`
/// when that matters.
///
/// The tiled-layout document's example: row-major `f32[3,5]` to `{1,0:T(2,2)}`.
///
/// ```
/// use layout_runtime::{ArrayShape, RelayoutPlan};
///
/// let from: ArrayShape = "f32[3,5]{1,0}".parse()?;
/// let to: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = RelayoutPlan::new(&from, &to)?;
/// assert_eq!((plan.src_len(), plan.dst_len()), (60, 96));
///
/// let src: Vec<f32> = (0..15).map(|i| i as f32).collect(); // element (r, c) holds 5r + c
/// let mut dst = vec![f32::NAN; 24];
/// plan.run_typed(&src, &mut dst)?;
/// assert_eq!(dst[17], 13.0); // element (2, 3)
/// assert_eq!(dst[9], 0.0); // padding below row 2
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RelayoutPlan {
    from: Plan,
    to: Plan,
    engine: Engine,
    /// The SIMD kernels this plan runs.
    level: Level,
    /// Destinations this large or larger are written with non-temporal stores.
    stream_min: usize,
    /// Source rows a large transpose takes at a time.
    rows: usize,
}

impl RelayoutPlan {
    /// Checks the pair of shapes and precomputes the conversion.
    ///
    /// Errors: either shape without an index space (a non-array element type, an unbounded
    /// `?` dimension: [`ErrorKind::NotStaticArray`]) or with an invalid layout (the errors of
    /// [`Plan::new`]); different element types ([`ErrorKind::ElementType`]); different ranks
    /// or dimension sizes ([`ErrorKind::ShapeMismatch`]); a buffer whose length in bits does
    /// not fit in `usize` ([`ErrorKind::SizeOverflow`]).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ErrorKind, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap().clone();
    /// let plan = RelayoutPlan::new(&a("bf16[16,256]{1,0}"), &a("bf16[16,256]{1,0:T(8,128)(2,1)}"))?;
    /// assert_eq!(plan.dst_len(), 8192);
    /// let err = RelayoutPlan::new(&a("f32[4,4]"), &a("f32[4,5]")).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn new(from: &ArrayShape, to: &ArrayShape) -> Result<RelayoutPlan, Error> {
        if from.element_type != to.element_type {
            return Err(Error::new(
                ErrorKind::ElementType,
                format!(
                    "relayout needs the same element type on both sides, not `{}` and `{}`",
                    from.element_type, to.element_type
                ),
            ));
        }
        let (from, to) = (from.plan()?, to.plan()?);
        if from.dims() != to.dims() {
            return Err(Error::new(
                ErrorKind::ShapeMismatch,
                format!(
                    "relayout needs the same dimensions on both sides, not {:?} and {:?}",
                    from.dims(),
                    to.dims()
                ),
            ));
        }
        for plan in [&from, &to] {
            if plan.byte_len().checked_mul(8).is_none() {
                return Err(Error::new(
                    ErrorKind::SizeOverflow,
                    format!(
                        "a buffer of {} bytes has more bits than usize can count",
                        plan.byte_len()
                    ),
                ));
            }
        }
        let engine = Self::engine(&from, &to);
        // `for_plans` never names a level the machine does not run.
        let level = Level::new(Simd::for_plans()).unwrap_or(Level::Portable);
        let (stream_min, rows) = (Caches::stream_min(), Caches::get().transpose_rows());
        Ok(RelayoutPlan { from, to, engine, level, stream_min, rows })
    }

    /// This plan with the SIMD kernels of `simd`, or of the best level below it that this
    /// machine runs ([`Simd::supported`]); [`RelayoutPlan::simd`] says which. The result is
    /// the same at every level, only the speed differs.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan, Simd};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("u8[4,64]{1,0}"), &a("u8[4,64]{1,0:T(4,64)(4,1)}"))?;
    /// let src: Vec<u8> = (0..=255).collect();
    /// let mut want = vec![0; 256];
    /// plan.clone().with_simd(Simd::Portable).run(&src, &mut want)?;
    /// for simd in Simd::supported() {
    ///     let plan = plan.clone().with_simd(simd);
    ///     assert_eq!(plan.simd(), simd);
    ///     let mut dst = vec![0; 256];
    ///     plan.run(&src, &mut dst)?;
    ///     assert_eq!(dst, want);
    /// }
    /// assert_eq!(&want[..8], &[0, 64, 128, 192, 1, 65, 129, 193]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn with_simd(mut self, simd: Simd) -> RelayoutPlan {
        let best = Simd::supported().filter(|&l| l <= simd).last().unwrap_or(Simd::Portable);
        self.level = Level::new(best).unwrap_or(Level::Portable);
        self
    }

    /// The SIMD level this plan's kernels use.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan, Simd};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("f32[8,8]{1,0}"), &a("f32[8,8]{0,1}"))?;
    /// assert!(plan.simd().is_supported());
    /// assert_eq!(plan.with_simd(Simd::Portable).simd(), Simd::Portable);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn simd(&self) -> Simd {
        self.level.simd()
    }

    /// This plan with non-temporal stores for destinations of `bytes` or more (`0`: always,
    /// `usize::MAX`: never), where the SIMD level has them (not [`Simd::Portable`]).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("f32[64,64]{1,0}"), &a("f32[64,64]{1,0:T(8,128)}"))?;
    /// let streamed = plan.clone().with_stream_min(0);
    /// assert_eq!(streamed.stream_min(), 0);
    /// let src = vec![7u8; plan.src_len()];
    /// let (mut a, mut b) = (vec![0; plan.dst_len()], vec![0; plan.dst_len()]);
    /// plan.run(&src, &mut a)?;
    /// streamed.run(&src, &mut b)?;
    /// assert_eq!(a, b);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn with_stream_min(mut self, bytes: usize) -> RelayoutPlan {
        self.stream_min = bytes;
        self
    }

    /// The destination size from which this plan writes with non-temporal stores.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("f32[8]"), &a("f32[8]{0:T(4)}"))?;
    /// assert!(plan.stream_min() > 0);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn stream_min(&self) -> usize {
        self.stream_min
    }

    fn engine(from: &Plan, to: &Plan) -> Engine {
        if from.dims().contains(&0) {
            return Engine::Zero;
        }
        let bits = from.element_bits();
        if bits != to.element_bits() {
            return Engine::General;
        }
        if matches!(bits, 1 | 2 | 4) {
            return match decompose::blocks(from, to, 1) {
                Some((copies, zeros)) => {
                    Engine::Packed { bits, blocks: Blocks { copies, zeros, tail: to.grid_len() } }
                }
                None => Engine::General,
            };
        }
        if bits % 8 != 0 {
            return Engine::General;
        }
        let size = bits / 8;
        let (size, scale) = if matches!(size, 1 | 2 | 4 | 8 | 16) { (size, 1) } else { (1, size) };
        match decompose::blocks(from, to, scale) {
            Some((copies, zeros)) => Engine::Bytes {
                size,
                blocks: Blocks { copies, zeros, tail: to.grid_len() * scale },
            },
            None => Engine::General,
        }
    }

    /// The length the source buffer must have: the source layout's [`Plan::byte_len`].
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap().clone();
    /// let plan = RelayoutPlan::new(&a("s4[3,5]{1,0:E(4)}"), &a("s4[3,5]{0,1}"))?;
    /// assert_eq!((plan.src_len(), plan.dst_len()), (8, 15));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn src_len(&self) -> usize {
        self.from.byte_len()
    }

    /// The length the destination buffer must have: the destination layout's
    /// [`Plan::byte_len`].
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap().clone();
    /// let plan = RelayoutPlan::new(&a("f32[3]"), &a("f32[3]{0:T(4)L(8)}"))?;
    /// assert_eq!(plan.dst_len(), 32);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn dst_len(&self) -> usize {
        self.to.byte_len()
    }

    fn ctx(&self, dst: &[u8]) -> Ctx {
        let stream = self.level.streams() && dst.len() >= self.stream_min;
        Ctx { level: self.level, stream, rows: self.rows }
    }

    fn check(&self, src: usize, dst: usize) -> Result<(), Error> {
        for (what, len, want) in
            [("source", src, self.src_len()), ("destination", dst, self.dst_len())]
        {
            if len != want {
                return Err(Error::new(
                    ErrorKind::BufferLength,
                    format!("the {what} buffer has {len} bytes; its layout needs exactly {want}"),
                ));
            }
        }
        Ok(())
    }

    /// Converts `src` (in the source layout) into `dst` (in the destination layout), on the
    /// calling thread; every byte of `dst` is written.
    ///
    /// Errors: a buffer whose length is not exactly [`RelayoutPlan::src_len`] or
    /// [`RelayoutPlan::dst_len`] ([`ErrorKind::BufferLength`]); `dst` is then untouched.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap().clone();
    /// // A 2×3 transpose of bytes: {1,0} stores a b c d e f, {0,1} stores a d b e c f.
    /// let plan = RelayoutPlan::new(&a("u8[2,3]{1,0}"), &a("u8[2,3]{0,1}"))?;
    /// let mut dst = [0u8; 6];
    /// plan.run(b"abcdef", &mut dst)?;
    /// assert_eq!(&dst, b"adbecf");
    /// assert!(plan.run(b"abcde", &mut dst).is_err());
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn run(&self, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
        self.execute(src, dst, Exec::Serial)
    }

    /// The one dispatch of [`RelayoutPlan::run`] and [`RelayoutPlan::run_parallel`].
    fn execute(&self, src: &[u8], dst: &mut [u8], exec: Exec) -> Result<(), Error> {
        self.check(src.len(), dst.len())?;
        let ctx = self.ctx(dst);
        match &self.engine {
            Engine::Zero => dst.fill(0),
            Engine::General => general::copy(&self.from, &self.to, src, dst),
            Engine::Bytes { size, blocks } => match size {
                1 => elements::<u8>(src, dst, blocks, ctx, exec),
                2 => elements::<u16>(src, dst, blocks, ctx, exec),
                4 => elements::<u32>(src, dst, blocks, ctx, exec),
                8 => elements::<u64>(src, dst, blocks, ctx, exec),
                _ => elements::<u128>(src, dst, blocks, ctx, exec),
            },
            Engine::Packed { bits, blocks } => match bits {
                1 => run_blocks(Packed::<1>, src, dst, blocks, ctx, exec),
                2 => run_blocks(Packed::<2>, src, dst, blocks, ctx, exec),
                _ => run_blocks(Packed::<4>, src, dst, blocks, ctx, exec),
            },
        }
        Ok(())
    }

    /// [`RelayoutPlan::run`] over typed slices: `T` must be exactly as wide as the stored
    /// elements on both sides (`f32` for `f32`, `u16` or `half::bf16` for `bf16`, `[f32; 2]`
    /// for `c64`); lengths are counted in `T`s.
    ///
    /// Errors: `size_of::<T>() * 8` differs from either side's storage bits
    /// ([`ErrorKind::ElementType`]: packed sub-byte layouts need [`RelayoutPlan::run`]);
    /// lengths as [`RelayoutPlan::run`].
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap().clone();
    /// let plan = RelayoutPlan::new(&a("u16[4,2]{1,0}"), &a("u16[4,2]{1,0:T(2,1)}"))?;
    /// let mut dst = [0u16; 8];
    /// plan.run_typed(&[0, 1, 10, 11, 20, 21, 30, 31], &mut dst)?;
    /// assert_eq!(dst, [0, 10, 1, 11, 20, 30, 21, 31]);
    /// assert!(plan.run_typed(&[0u8; 8], &mut [0u8; 8]).is_err()); // u8 is not 16 bits
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn run_typed<T: bytemuck::Pod>(&self, src: &[T], dst: &mut [T]) -> Result<(), Error> {
        self.check_type::<T>()?;
        self.run(bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst))
    }

    fn check_type<T>(&self) -> Result<(), Error> {
        let bits = core::mem::size_of::<T>() * 8;
        let (a, b) = (self.from.element_bits(), self.to.element_bits());
        if bits != a || bits != b {
            return Err(Error::new(
                ErrorKind::ElementType,
                format!(
                    "a {bits}-bit slice element does not match the stored element widths \
                     ({a} and {b} bits)"
                ),
            ));
        }
        Ok(())
    }

    /// [`RelayoutPlan::run`] on every core, with rayon (feature `rayon`). Each large block
    /// (the copy of every kernel, transposes and sub-byte regroupings included, and the
    /// padding) is cut along its destination into about four parts per thread: along its
    /// outermost loop, or, for a block without one, along its destination rows or runs.
    /// Threads write disjoint slices, each starting on a cache line where the buffer's
    /// address allows (so no two share a line). Small blocks and the general path run on
    /// the calling thread.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap().clone();
    /// let plan = RelayoutPlan::new(&a("f32[512,512]{1,0}"), &a("f32[512,512]{1,0:T(8,128)}"))?;
    /// let src: Vec<u8> = (0..plan.src_len()).map(|i| i as u8).collect();
    /// let (mut one, mut all) = (vec![0; plan.dst_len()], vec![0; plan.dst_len()]);
    /// plan.run(&src, &mut one)?;
    /// plan.run_parallel(&src, &mut all)?;
    /// assert_eq!(one, all);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[cfg(feature = "rayon")]
    pub fn run_parallel(&self, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
        self.execute(src, dst, Exec::Parallel)
    }

    /// [`RelayoutPlan::run`] through this element-by-element path whatever the engine, for
    /// the fuzz targets and property tests (`tests/checks/`) that hold every fast path to it.
    /// Not part of the API: it may change or go away in any release.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("u8[2,3]{1,0}"), &a("u8[2,3]{0,1}"))?;
    /// let mut dst = [0u8; 6];
    /// plan.__run_general(b"abcdef", &mut dst)?;
    /// assert_eq!(&dst, b"adbecf");
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[doc(hidden)]
    pub fn __run_general(&self, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
        self.check(src.len(), dst.len())?;
        general::copy(&self.from, &self.to, src, dst);
        Ok(())
    }
}

/// Where the blocks run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exec {
    /// On the calling thread.
    Serial,
    /// Large blocks cut between rayon's threads (see `parallel`), the rest on the calling
    /// thread.
    #[cfg(feature = "rayon")]
    Parallel,
}

/// Runs `f(part, dst_part, origin)` over block `b`: the whole block on this thread, or, when
/// `exec` is parallel and the block is worth it, parts of it on rayon's threads, each with
/// the slice of `dst` it owns (`origin`: where that slice starts, in block elements; `unit`:
/// block elements per slice element).
fn run_block<T: Send>(
    b: &Block,
    dst: &mut [T],
    unit: usize,
    ctx: Ctx,
    exec: Exec,
    f: impl Fn(&Block, &mut [T], usize) + Sync,
) {
    match exec {
        Exec::Serial => f(b, dst, 0),
        #[cfg(feature = "rayon")]
        Exec::Parallel => parallel::run_block(b, dst, unit, ctx, f),
    }
    let _ = (unit, ctx);
}

/// Views the buffers as integers `I` when both are aligned for it, else as byte arrays of
/// the same size (alignment 1: any buffer qualifies).
fn elements<I: Elem>(src: &[u8], dst: &mut [u8], blocks: &Blocks, ctx: Ctx, exec: Exec) {
    if let (Ok(s), Ok(d)) =
        (bytemuck::try_cast_slice::<u8, I>(src), bytemuck::try_cast_slice_mut::<u8, I>(dst))
    {
        return run_blocks(Whole, s, d, blocks, ctx, exec);
    }
    macro_rules! unaligned {
        ($($n:literal),*) => {
            match core::mem::size_of::<I>() {
                $($n => {
                    // Lengths were checked to be whole grids of elements: the casts to
                    // alignment-1 arrays cannot fail.
                    let s: &[[u8; $n]] = bytemuck::cast_slice(src);
                    let d: &mut [[u8; $n]] = bytemuck::cast_slice_mut(dst);
                    run_blocks(Whole, s, d, blocks, ctx, exec)
                })*
                _ => {}
            }
        };
    }
    unaligned!(1, 2, 4, 8, 16);
}

/// The strided path: every copy block, then the destination's padding and tail.
fn run_blocks<T: Send + Sync, K: Kernels<T>>(
    k: K,
    src: &[T],
    dst: &mut [T],
    blocks: &Blocks,
    ctx: Ctx,
    exec: Exec,
) {
    for b in &blocks.copies {
        run_block(b, dst, K::PER_ITEM, ctx, exec, |b, dst, origin| {
            k.copy_block(src, dst, b, origin, ctx);
        });
    }
    ctx.finish();
    for b in &blocks.zeros {
        run_block(b, dst, K::PER_ITEM, ctx, exec, |b, dst, origin| k.zero_block(dst, b, origin));
    }
    k.zero_tail(dst, blocks.tail);
}

/// Converts a whole buffer from one layout of an array to another: see [`RelayoutPlan`],
/// which this builds and runs once (build the plan yourself to convert many buffers).
///
/// Errors: shapes that are not arrays ([`ErrorKind::NotStaticArray`]) and every error of
/// [`RelayoutPlan::new`] and [`RelayoutPlan::run`]; `dst` is untouched on error.
///
/// ```
/// use layout_runtime::{relayout, Shape};
/// let row_major: Shape = "f32[3,5]{1,0}".parse()?;
/// let tiled: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let src: Vec<u8> = (0..15u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
/// let mut dst = vec![0xAA; 96];
/// relayout(&src, &row_major, &mut dst, &tiled)?;
/// assert_eq!(dst[17 * 4..18 * 4], 13f32.to_le_bytes()); // element (2, 3) at offset 17
///
/// let mut back = vec![0; 60];
/// relayout(&dst, &tiled, &mut back, &row_major)?;
/// assert_eq!(back, src);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn relayout(src: &[u8], from: &Shape, dst: &mut [u8], to: &Shape) -> Result<(), Error> {
    RelayoutPlan::new(from.try_array()?, to.try_array()?)?.run(src, dst)
}

#[cfg(test)]
mod tests;
