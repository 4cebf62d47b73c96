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
//! kernel takes) and `split` (cutting a block along its destination); `spread` and `simd`
//! (x86_64: `avx2` -> `sse2` -> `groups` -> `stream`); `ctx` (what a run's kernels are
//! given); the kernels `weave`, `packed`, `kernel` and `parallel`; `choice`, `measure` and
//! `trial` (what a plan runs with, and how a first run measures it); `engine` (the loop
//! over a plan's blocks); this file on top.
//!
//! Memory traffic decides the speed, and these choices shape it:
//! - each block's loops run in destination or source order, whichever keeps fewer streams
//!   open (`decompose`); the transpose kernels run the innermost loop themselves, and write
//!   two row groups of a tile in one piece (`geometry::split_repeat`);
//! - on x86_64, SIMD kernels (`simd`) do the shuffles the compiler leaves scalar: SSE2
//!   everywhere, AVX2 and AVX-512 where the CPU has them, found once per plan (`cpu`);
//!   AVX-512 moves whole cache lines a load and a store;
//! - large transposes take as many source rows at a time as a quarter of the first-level
//!   cache holds lines, and start their tiles on source and destination cache lines;
//!   AVX-512's uses each line whole in one tile, and asks for the lines of the tiles
//!   ahead of it;
//! - destinations of at least eight times a core's second-level cache are written with
//!   non-temporal stores, which skip reading each destination line first; `cpu` reads the
//!   cache sizes (CPUID) once per process, and no rule reads the last-level cache, which a
//!   virtual machine reports for the whole socket;
//! - those rules are where a plan starts: for a destination that large, the first run of a
//!   plan shape times the settings that matter for it (SIMD level, streaming or cached
//!   stores, block sizes) on slices of its own work, beside a streaming copy, and
//!   remembers the fastest for the process (`measure`, `trial`), since rules tuned on one
//!   machine do not carry over; a winner slower than the copy by more than its noise is
//!   measured again by the next run;
//! - `run_parallel` cuts each large block along the destination on cache-line boundaries
//!   into about four parts per thread of rayon's pool (the core count, by default), and
//!   runs with what a serial run of the shape measured, or with the rules until one has: a
//!   parallel run does not measure, since its threads share the memory system and would
//!   time each other (`parallel`, `split`).

mod choice;
mod cpu;
mod ctx;
mod decompose;
mod elem;
mod engine;
mod general;
mod geometry;
mod kernel;
mod measure;
mod packed;
#[cfg(feature = "rayon")]
mod parallel;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod simd;
#[cfg(feature = "std")]
mod split;
mod spread;
#[cfg(feature = "std")]
mod trial;
mod weave;

use alloc::format;
use alloc::vec::Vec;

pub use choice::{ChosenBy, RelayoutChoice};
use cpu::Level;
pub use cpu::Simd;
use ctx::Reads;
use engine::{Engine, Exec, How};
use measure::{Key, Settings};

use crate::{AlignedBox, ArrayShape, Error, ErrorKind, Plan, Shape};

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
/// is built, and the rules below say how to use it; for destinations of megabytes the first
/// run of a plan measures instead ([`RelayoutPlan::with_measuring`]), and
/// [`RelayoutPlan::choice`] says what a plan runs with and why. What the caller fixes is
/// never measured:
///
/// - SIMD kernels: the best level the CPU runs ([`Simd::detect`]: AVX-512 F and BW, else
///   AVX2, where `is_x86_feature_detected!` finds them, else SSE2 on x86_64, else portable
///   code), or a lower one from the environment variable `XLAYOUT_SIMD` (`portable`,
///   `sse2`, `avx2`, `avx512`; another value is ignored with a warning on standard error,
///   once per process) or [`RelayoutPlan::with_simd`].
/// - Non-temporal stores (x86_64, every level but portable): for destinations of at least eight times
///   a core's second-level cache, 4 MiB at least (CPUID gives the cache's size; 512 KiB is
///   assumed where it does not), so the destination is not read into the cache before
///   being overwritten and does not push out everything else; the environment variable
///   `XLAYOUT_STREAM_MIN` (bytes) or [`RelayoutPlan::with_stream_min`] sets another
///   threshold.
/// - Large transposes take as many source rows at a time as a quarter of the first-level
///   data cache holds lines (CPUID again; 32 KiB assumed), so each line is read from memory
///   once; AVX-512's transpose, whose tiles use each line whole, walks four times as many
///   down each strip of columns.
///
/// Any alignment of either buffer is correct, but a destination that starts on a 32- or
/// 64-byte boundary is written with the widest streaming stores: the row-group kernels
/// (`(2,1)` and `(4,1)` sub-tiles, `E(4)` regrouping) measured 15.1-16.4 GB/s there against
/// 12.4-14.0 for the same bf16 relayout 16 bytes past a boundary, which is where the system
/// allocator puts a large `Vec<u8>`. [`RelayoutPlan::run_owned`] returns its destination in
/// an [`AlignedBox`] that starts on a 64-byte boundary, as does a
/// [`HeapBuffer`](crate::HeapBuffer); `AlignedBox::<u8>::zeroed(plan.dst_len())` makes one to
/// reuse.
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
    /// The settings the engine's kernels read (what there is to choose among).
    reads: Reads,
    /// The rules, what the caller fixed, and when to measure.
    settings: Settings,
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
        let engine = Engine::new(&from, &to);
        let reads = engine.reads();
        Ok(RelayoutPlan { from, to, engine, reads, settings: Settings::new() })
    }

    /// This plan with the SIMD kernels of `simd`, or of the best level below it that this
    /// machine runs ([`Simd::supported`]); [`RelayoutPlan::simd`] says which, and a
    /// measuring run does not try another. The result is the same at every level, only the
    /// speed differs.
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
        self.settings.level = Level::new(best).unwrap_or(Level::Portable);
        self.settings.forced.simd = true;
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
        self.settings.level.simd()
    }

    /// This plan with non-temporal stores for destinations of `bytes` or more (`0`: always,
    /// `usize::MAX`: never), where the SIMD level has them (not [`Simd::Portable`]); a
    /// measuring run then does not try the other kind of store.
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
        self.settings.stream_min = bytes;
        self.settings.forced.stream = true;
        self
    }

    /// The destination size from which this plan's rules write with non-temporal stores
    /// (a measuring run may find cached stores faster, unless this was fixed: see
    /// [`RelayoutPlan::choice`]).
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("f32[8]"), &a("f32[8]{0:T(4)}"))?;
    /// assert!(plan.stream_min() > 0);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn stream_min(&self) -> usize {
        self.settings.stream_min
    }

    /// This plan with measuring on or off. On (the default, with the `std` feature), the
    /// first run of a plan shape into a destination of at least eight times the
    /// second-level cache (4 MiB at least) times the candidate settings on slices of its
    /// own work and keeps the fastest for the process ([`RelayoutPlan::choice`] says what it
    /// chose); off, the rules decide. Either way the bytes are the same.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ChosenBy, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("f32[2048,2048]{1,0}"), &a("f32[2048,2048]{0,1}"))?;
    /// assert_eq!(plan.with_measuring(false).choice().how(), ChosenBy::Rules);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn with_measuring(mut self, on: bool) -> RelayoutPlan {
        self.settings.measuring(on);
        self
    }

    /// The settings this plan runs with into a destination that starts on a 64-byte
    /// boundary (as [`RelayoutPlan::run_owned`]'s, an [`AlignedBox`]), and how they were
    /// chosen: measured by an earlier run of a plan of this shape in this process, or the
    /// rules' (before the first run, for destinations too small to measure, with measuring
    /// off). [`RelayoutPlan::choice_for`] says it for a destination anywhere.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, ChosenBy, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("bf16[64,256]{1,0}"), &a("bf16[64,256]{1,0:T(8,128)(2,1)}"))?;
    /// let choice = plan.choice();
    /// assert_eq!(choice.how(), ChosenBy::Rules); // 32 KiB: too small to measure
    /// assert_eq!(choice.simd(), plan.simd());
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn choice(&self) -> RelayoutChoice {
        self.choice_at(0)
    }

    /// [`RelayoutPlan::choice`] for the destination `dst`: where it starts in a cache line
    /// decides what is fastest, and is measured apart.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    /// let plan = RelayoutPlan::new(&a("f32[64,64]{1,0}"), &a("f32[64,64]{0,1}"))?;
    /// let dst = vec![0u8; plan.dst_len()];
    /// assert_eq!(plan.choice_for(&dst), plan.choice()); // small: the rules, wherever it is
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn choice_for(&self, dst: &[u8]) -> RelayoutChoice {
        self.choice_at(dst.as_ptr() as usize)
    }

    fn choice_at(&self, dst: usize) -> RelayoutChoice {
        let recalled = self.key(dst).and_then(|key| measure::recall(&key));
        let (ctx, how) = match recalled {
            Some(r) => (r.ctx, r.how),
            None => (self.settings.rules(self.dst_len()), ChosenBy::Rules),
        };
        RelayoutChoice::new(ctx, how, self.settings.forced)
    }

    /// A measuring run of this plan whatever was measured before, into `dst`, whose choice
    /// is returned and not remembered: for the benchmark, which measures twice to show
    /// whether two measurements agree. Not part of the API. Errors: as
    /// [`RelayoutPlan::run`]; a plan whose runs do not measure runs on the rules and
    /// returns [`RelayoutPlan::choice_for`].
    #[doc(hidden)]
    pub fn __remeasure(&self, src: &[u8], dst: &mut [u8]) -> Result<RelayoutChoice, Error> {
        self.check(src.len(), dst.len())?;
        let Some(key) = self.key(dst.as_ptr() as usize) else {
            self.run(src, dst)?;
            return Ok(self.choice_for(dst));
        };
        let ctx = self.settings.rules(dst.len());
        #[cfg(feature = "std")]
        let how = How { ctx, measure: Some((key, trial::Purpose::Again)) };
        #[cfg(not(feature = "std"))]
        let how = How { ctx, measure: None };
        let _ = key;
        let forced = self.settings.forced;
        Ok(match self.engine.run(&self.from, &self.to, src, dst, how, Exec::Serial) {
            Some((ctx, how)) => RelayoutChoice::new(ctx, how, forced),
            None => self.choice_for(dst),
        })
    }

    /// Every setting this plan's runs may choose, for the tests that hold each to the
    /// element-by-element path. Not part of the API.
    #[doc(hidden)]
    pub fn __candidates(&self) -> Vec<RelayoutChoice> {
        let candidates = self.settings.candidates(self.dst_len(), self.reads);
        let forced = self.settings.forced;
        candidates
            .all()
            .into_iter()
            .map(|c| RelayoutChoice::new(c, ChosenBy::Rules, forced))
            .collect()
    }

    /// [`RelayoutPlan::run`] with the settings of `choice` (one of
    /// [`RelayoutPlan::__candidates`]; a level this machine does not run runs portable).
    /// Not part of the API.
    #[doc(hidden)]
    pub fn __run_with(
        &self,
        choice: &RelayoutChoice,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), Error> {
        self.check(src.len(), dst.len())?;
        let how = How { ctx: choice.ctx(), measure: None };
        let _ = self.engine.run(&self.from, &self.to, src, dst, how, Exec::Serial);
        Ok(())
    }

    /// This plan measuring from destinations of `bytes` (the tests' way to measure small
    /// buffers). Not part of the API.
    #[doc(hidden)]
    pub fn __with_measure_min(mut self, bytes: usize) -> RelayoutPlan {
        self.settings.measure_min = bytes;
        self
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

    pub(crate) fn check(&self, src: usize, dst: usize) -> Result<(), Error> {
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

    /// [`RelayoutPlan::run`] into a new buffer that starts on a 64-byte boundary, where the
    /// streaming stores are fastest (see [`AlignedBox`]).
    ///
    /// Errors: a source whose length is not exactly [`RelayoutPlan::src_len`]
    /// ([`ErrorKind::BufferLength`]), before anything is allocated.
    ///
    /// ```
    /// use layout_runtime::{ArrayShape, RelayoutPlan};
    /// let a = |t: &str| t.parse::<ArrayShape>().unwrap().clone();
    /// let plan = RelayoutPlan::new(&a("u8[2,3]{1,0}"), &a("u8[2,3]{0,1}"))?;
    /// let dst = plan.run_owned(b"abcdef")?;
    /// assert_eq!(&dst[..], b"adbecf");
    /// assert_eq!(dst.as_ptr() as usize % 64, 0);
    /// assert!(plan.run_owned(b"abc").is_err());
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn run_owned(&self, src: &[u8]) -> Result<AlignedBox<u8>, Error> {
        self.check(src.len(), self.dst_len())?;
        let mut dst = AlignedBox::zeroed(self.dst_len());
        self.run(src, &mut dst)?;
        Ok(dst)
    }

    /// The one dispatch of [`RelayoutPlan::run`] and [`RelayoutPlan::run_parallel`].
    fn execute(&self, src: &[u8], dst: &mut [u8], exec: Exec) -> Result<(), Error> {
        self.check(src.len(), dst.len())?;
        let how = self.how(dst, exec);
        let _ = self.engine.run(&self.from, &self.to, src, dst, how, exec);
        Ok(())
    }

    /// The settings of a run into `dst`: the rules', or those a run of this shape measured;
    /// or, on the first serial run of a measured shape (or the second, when the first
    /// run's winner ran slower than a copy by more than its noise), measure now.
    fn how(&self, dst: &[u8], exec: Exec) -> How {
        let rules = How { ctx: self.settings.rules(dst.len()), measure: None };
        #[cfg(feature = "std")]
        if let Some(key) = self.key(dst.as_ptr() as usize) {
            use trial::Purpose;
            let serial = exec == Exec::Serial;
            return match measure::recall(&key) {
                Some(r) if r.recheck && serial => {
                    How { ctx: r.ctx, measure: Some((key, Purpose::Recheck(r.ctx, r.how))) }
                }
                Some(r) => How { ctx: r.ctx, ..rules },
                None if serial => How { measure: Some((key, Purpose::First)), ..rules },
                None => rules,
            };
        }
        let _ = exec;
        rules
    }

    /// What a measured choice for this plan into a destination at address `dst` is
    /// remembered by; `None` when its runs do not measure (a small destination, measuring
    /// off, nothing to choose).
    fn key(&self, dst: usize) -> Option<Key> {
        let dst_len = self.dst_len();
        if !self.settings.measures(dst_len) {
            return None;
        }
        let candidates = self.settings.candidates(dst_len, self.reads);
        let (width, packed, blocks) = match &self.engine {
            Engine::Bytes { size, blocks } => (*size, false, blocks),
            Engine::Packed { bits, blocks } => (*bits, true, blocks),
            Engine::Zero | Engine::General => return None,
        };
        let b = blocks.largest().map(|i| &blocks.copies[i])?;
        candidates.several().then(|| Key::new(width, packed, b, (dst_len, dst), &candidates))
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
    /// the fuzz targets and property tests (`tests/support/src/checks/`) that hold every fast path to it.
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

/// `dst.copy_from_slice(src)` with non-temporal stores, 64 bytes a store where `wide` and
/// the CPU has AVX-512 (and this build has the intrinsics), 16 otherwise: the streaming
/// copy a measuring plan times beside its candidates, for the benchmark to take as one of
/// its baselines. Returns whether the stores were 64 bytes wide. Not part of the API.
///
/// ```
/// let src = [7u8; 300];
/// let mut dst = [0u8; 300];
/// layout_runtime::__stream_copy(&mut dst, &src, true);
/// assert_eq!(dst, src);
/// ```
#[cfg(feature = "std")]
#[doc(hidden)]
pub fn __stream_copy(dst: &mut [u8], src: &[u8], wide: bool) -> bool {
    assert_eq!(dst.len(), src.len(), "a copy between slices of different lengths");
    ctx::stream_copy(dst, src, wide)
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
