//! Row groups: the transposes whose one side is a contiguous run of `k`-element groups
//! (the `(2,1)` row pairs of bf16, the `(4,1)` quads of 8-bit types, any group of 2, 4 or 8
//! elements up to 16 bytes).
//!
//! A group is an integer word: element `j` of row `r` goes to bits `[8E·r, 8E·(r+1))` of
//! word `j`. Shifts and ors of widened lanes are what the compiler vectorizes best; the
//! words are read and written as little-endian bytes, so the byte order of the buffer is the
//! element order whatever the machine. On x86_64 the widths the compiler leaves scalar go
//! through the SIMD kernels of the plan's level first.

use core::ops::{BitOr, Shl, Shr};

use core::mem::size_of;

use super::ctx::Ctx;
use super::elem::Elem;
use super::geometry::{Rep, Transpose};

/// Bytes of interleaved output built on the stack before being streamed out.
const SCRATCH: usize = 512;

/// An unsigned integer read and written as little-endian bytes (`[u8; N]`: alignment 1, so
/// any buffer qualifies).
trait Le:
    Copy + Default + BitOr<Output = Self> + Shl<usize, Output = Self> + Shr<usize, Output = Self>
{
    type Bytes: bytemuck::Pod;
    fn load(b: Self::Bytes) -> Self;
    fn store(self) -> Self::Bytes;
}

/// A word of lanes of `U`.
trait Word<U: Le>: Le + From<U> {
    /// The lowest lane: truncation is the point.
    fn low(self) -> U;
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            type Bytes = [u8; core::mem::size_of::<$t>()];
            #[inline(always)]
            fn load(b: Self::Bytes) -> Self {
                <$t>::from_le_bytes(b)
            }
            #[inline(always)]
            fn store(self) -> Self::Bytes {
                self.to_le_bytes()
            }
        }
    )*};
}
le!(u8, u16, u32, u64, u128);

macro_rules! word {
    ($($u:ty => $($w:ty),*;)*) => {$($(
        impl Word<$u> for $w {
            #[inline(always)]
            fn low(self) -> $u {
                self as $u
            }
        }
    )*)*};
}
word!(u8 => u16, u32, u64; u16 => u32, u64, u128; u32 => u64, u128; u64 => u128;);

/// `out[j] = Σ_r rows[r][j] << (8E·r)`.
#[inline(always)]
fn interleave_words<U: Le, W: Word<U>, const K: usize>(
    rows: [&[U::Bytes]; K],
    out: &mut [W::Bytes],
) {
    let n = out.len();
    let rows = rows.map(|r| &r[..n]);
    let bits = 8 * core::mem::size_of::<U>();
    for (j, o) in out.iter_mut().enumerate() {
        let mut w = W::default();
        for (r, row) in rows.iter().enumerate() {
            w = w | W::from(U::load(row[j])) << (bits * r);
        }
        *o = w.store();
    }
}

/// `rows[r][j] = lane r of words[j]`.
#[inline(always)]
fn deinterleave_words<U: Le, W: Word<U>, const K: usize>(
    words: &[W::Bytes],
    rows: [&mut [U::Bytes]; K],
) {
    let n = words.len();
    let mut rows = rows.map(|r| &mut r[..n]);
    let bits = 8 * core::mem::size_of::<U>();
    for (j, w) in words.iter().enumerate() {
        let w = W::load(*w);
        for (r, row) in rows.iter_mut().enumerate() {
            row[j] = (w >> (bits * r)).low().store();
        }
    }
}

/// A move of row groups, to run with the integer types of its lanes and words.
trait Job {
    /// `false` when the buffers do not fit the types (never expected: the lengths are whole
    /// groups), and nothing was written.
    fn run<U: Le, W: Word<U>, const K: usize>(self) -> bool;
}

/// Runs `job` with the lane and word types of groups of `k` elements of `e` bytes; `false`
/// when there are none (groups over 16 bytes, or `k` not 2, 4 or 8).
fn by_width(e: usize, k: usize, job: impl Job) -> bool {
    match (e, k) {
        (1, 2) => job.run::<u8, u16, 2>(),
        (1, 4) => job.run::<u8, u32, 4>(),
        (1, 8) => job.run::<u8, u64, 8>(),
        (2, 2) => job.run::<u16, u32, 2>(),
        (2, 4) => job.run::<u16, u64, 4>(),
        (2, 8) => job.run::<u16, u128, 8>(),
        (4, 2) => job.run::<u32, u64, 2>(),
        (4, 4) => job.run::<u32, u128, 4>(),
        (8, 2) => job.run::<u64, u128, 2>(),
        _ => false,
    }
}

/// `rows` source rows into one contiguous destination run of `rows`-element groups
/// (`dst_row_stride == rows`).
struct Interleave<'b, T> {
    src: &'b [T],
    dst: &'b mut [T],
    t: Transpose,
    ctx: Ctx,
}

impl<T: Elem> Job for Interleave<'_, T> {
    #[inline(always)]
    fn run<U: Le, W: Word<U>, const K: usize>(self) -> bool {
        let Interleave { src, dst, t, ctx } = self;
        let rows: [Option<&[U::Bytes]>; K] = core::array::from_fn(|r| {
            bytemuck::try_cast_slice(&src[t.src + r * t.src_row_stride..][..t.cols]).ok()
        });
        let (true, Ok(out)) = (
            rows.iter().all(Option::is_some),
            bytemuck::try_cast_slice_mut::<T, W::Bytes>(&mut dst[t.dst..][..t.rows * t.cols]),
        ) else {
            return false;
        };
        let rows = rows.map(|r| r.unwrap_or(&[]));
        if !ctx.stream {
            interleave_words::<U, W, K>(rows, out);
            return true;
        }
        // Streamed: build a few hundred bytes on the stack, then stream them.
        let mut buf = [0u128; SCRATCH / 16];
        let buf: &mut [W::Bytes] = bytemuck::cast_slice_mut(&mut buf);
        let mut j = 0;
        for piece in out.chunks_mut(buf.len()) {
            let m = piece.len();
            interleave_words::<U, W, K>(rows.map(|row| &row[j..j + m]), &mut buf[..m]);
            ctx.put(bytemuck::cast_slice_mut(piece), bytemuck::cast_slice(&buf[..m]));
            j += m;
        }
        true
    }
}

/// One contiguous source run of `cols`-element groups into `cols` destination rows
/// (`src_row_stride == cols`).
struct Deinterleave<'b, T> {
    src: &'b [T],
    dst: &'b mut [T],
    t: Transpose,
}

impl<T: Elem> Job for Deinterleave<'_, T> {
    #[inline(always)]
    fn run<U: Le, W: Word<U>, const K: usize>(self) -> bool {
        let Deinterleave { src, dst, t } = self;
        let (Ok(words), Some(rows)) = (
            bytemuck::try_cast_slice::<T, W::Bytes>(&src[t.src..][..t.rows * t.cols]),
            rows_mut::<T, U::Bytes, K>(dst, t),
        ) else {
            return false;
        };
        deinterleave_words::<U, W, K>(words, rows);
        true
    }
}

/// The `K` (= `t.cols`) destination rows of `t` as disjoint slices viewed as `U`.
fn rows_mut<T: Elem, U: bytemuck::Pod, const K: usize>(
    dst: &mut [T],
    t: Transpose,
) -> Option<[&mut [U]; K]> {
    let gap = t.dst_row_stride.checked_sub(t.rows)?;
    let mut rest = dst.get_mut(t.dst..)?;
    let mut rows: [&mut [U]; K] = core::array::from_fn(|_| <&mut [U]>::default());
    for (r, slot) in rows.iter_mut().enumerate() {
        let tail = core::mem::take(&mut rest).get_mut(if r == 0 { 0 } else { gap }..)?;
        if tail.len() < t.rows {
            return None;
        }
        let (row, more) = tail.split_at_mut(t.rows);
        *slot = bytemuck::try_cast_slice_mut(row).ok()?;
        rest = more;
    }
    Some(rows)
}

/// Source rows into groups (`t.dst_row_stride == t.rows`): element `j` of source row `r`
/// goes to `dst[t.dst + j·rows + r]`, for `t` and its `rep` copies.
pub(super) fn interleave<T: Elem>(src: &[T], dst: &mut [T], t: Transpose, rep: Rep, ctx: Ctx) {
    if simd::run(Dir::Interleave, src, dst, t, rep, ctx) {
        return;
    }
    for t in t.repeat(rep) {
        if !by_width(size_of::<T>(), t.rows, Interleave { src, dst: &mut *dst, t, ctx }) {
            t.scalar(src, dst);
        }
    }
}

/// Groups into destination rows (`t.src_row_stride == t.cols`): element `r` of source group
/// `j` goes to `dst[t.dst + r·dst_row_stride + j]`, for `t` and its `rep` copies.
pub(super) fn deinterleave<T: Elem>(src: &[T], dst: &mut [T], t: Transpose, rep: Rep, ctx: Ctx) {
    if simd::run(Dir::Deinterleave, src, dst, t, rep, ctx) {
        return;
    }
    for t in t.repeat(rep) {
        if !by_width(size_of::<T>(), t.cols, Deinterleave { src, dst: &mut *dst, t }) {
            t.scalar(src, dst);
        }
    }
}

/// Which way a row-group kernel goes.
#[derive(Clone, Copy)]
enum Dir {
    /// Rows into groups.
    Interleave,
    /// Groups into rows.
    Deinterleave,
}

/// The SIMD kernels of the widths they exist for, at the plan's level: `false` when there
/// is none (the portable code then does all of it).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod simd {
    use core::mem::size_of;

    use super::super::cpu::Level;
    use super::super::ctx::Ctx;
    use super::super::elem::Elem;
    use super::super::geometry::{Rep, Transpose};
    #[cfg(xlayout_avx512)]
    use super::super::simd::avx512;
    use super::super::simd::groups::{U16x2, U8x4};
    use super::super::simd::{avx2, sse2};
    use super::Dir;

    pub(super) fn run<T: Elem>(
        dir: Dir,
        src: &[T],
        dst: &mut [T],
        t: Transpose,
        rep: Rep,
        ctx: Ctx,
    ) -> bool {
        // Views of the same elements: bytes (the group kernels take bytes, with `t` in
        // elements), or 2-byte arrays (alignment 1 both).
        let (s, d, stream) = (src, dst, ctx.stream);
        let bytes = bytemuck::cast_slice::<T, u8>;
        let pairs = bytemuck::cast_slice::<T, [u8; 2]>;
        match (dir, size_of::<T>(), t.rows, t.cols, ctx.level) {
            #[cfg(xlayout_avx512)]
            (Dir::Interleave, 1, 4, _, Level::Avx512(z)) => {
                avx512::groups::<U8x4>(z, bytes(s), bytemuck::cast_slice_mut(d), t, rep, stream);
            }
            #[cfg(xlayout_avx512)]
            (Dir::Interleave, 2, 2, _, Level::Avx512(z)) => {
                avx512::groups::<U16x2>(z, bytes(s), bytemuck::cast_slice_mut(d), t, rep, stream);
            }
            #[cfg(xlayout_avx512)]
            (Dir::Deinterleave, 2, _, 2, Level::Avx512(z)) => {
                avx512::deinterleave_u16x2(
                    z,
                    pairs(s),
                    bytemuck::cast_slice_mut(d),
                    t,
                    rep,
                    stream,
                );
            }
            (Dir::Interleave, 1, 4, _, Level::Avx2(avx)) => {
                avx2::groups::<U8x4>(avx, bytes(s), bytemuck::cast_slice_mut(d), t, rep, stream);
            }
            (Dir::Interleave, 1, 4, _, Level::Sse2) => {
                sse2::groups::<U8x4>(bytes(s), bytemuck::cast_slice_mut(d), t, rep, stream);
            }
            (Dir::Interleave, 2, 2, _, Level::Avx2(avx)) => {
                avx2::groups::<U16x2>(avx, bytes(s), bytemuck::cast_slice_mut(d), t, rep, stream);
            }
            (Dir::Interleave, 2, 2, _, Level::Sse2) => {
                sse2::groups::<U16x2>(bytes(s), bytemuck::cast_slice_mut(d), t, rep, stream);
            }
            (Dir::Deinterleave, 2, _, 2, Level::Avx2(avx)) => {
                avx2::deinterleave_u16x2(
                    avx,
                    pairs(s),
                    bytemuck::cast_slice_mut(d),
                    t,
                    rep,
                    stream,
                );
            }
            (Dir::Deinterleave, 2, _, 2, Level::Sse2) => {
                sse2::deinterleave_u16x2(pairs(s), bytemuck::cast_slice_mut(d), t, rep, stream);
            }
            _ => return false,
        }
        true
    }
}

/// Without SSE2 there are no SIMD kernels.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
mod simd {
    use super::super::ctx::Ctx;
    use super::super::geometry::{Rep, Transpose};
    use super::Dir;

    pub(super) fn run<T>(_: Dir, _: &[T], _: &mut [T], _: Transpose, _: Rep, _: Ctx) -> bool {
        false
    }
}
