//! Row groups: the transposes whose one side is a contiguous run of `k`-element groups
//! (the `(2,1)` row pairs of bf16, the `(4,1)` quads of 8-bit types, any group of 2, 4 or 8
//! elements up to 16 bytes).
//!
//! A group is an integer word: element `j` of row `r` goes to bits `[8E·r, 8E·(r+1))` of
//! word `j`. Shifts and ors of widened lanes are what the compiler vectorizes best; the
//! words are read and written as little-endian bytes, so the byte order of the buffer is the
//! element order whatever the machine. On x86_64 the widths the compiler leaves scalar go
//! through the SSE2 kernels of `simd` first.

use core::ops::{BitOr, Shl, Shr};

use super::kernel::{Elem, Sink, Transpose};

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

/// `x` source rows into one contiguous destination run of `x`-element groups (`c == x`).
struct Interleave<'b, T> {
    src: &'b [T],
    dst: &'b mut [T],
    t: Transpose,
    sink: Sink,
}

impl<T: Elem> Job for Interleave<'_, T> {
    #[inline(always)]
    fn run<U: Le, W: Word<U>, const K: usize>(self) -> bool {
        let Interleave { src, dst, t, sink } = self;
        let rows: [Option<&[U::Bytes]>; K] =
            core::array::from_fn(|r| bytemuck::try_cast_slice(&src[t.s + r * t.a..][..t.y]).ok());
        let (true, Ok(out)) = (
            rows.iter().all(Option::is_some),
            bytemuck::try_cast_slice_mut::<T, W::Bytes>(&mut dst[t.d..][..t.x * t.y]),
        ) else {
            return false;
        };
        let rows = rows.map(|r| r.unwrap_or(&[]));
        if !sink.stream {
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
            sink.put(bytemuck::cast_slice_mut(piece), bytemuck::cast_slice(&buf[..m]));
            j += m;
        }
        true
    }
}

/// One contiguous source run of `y`-element groups into `y` destination rows (`a == y`).
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
            bytemuck::try_cast_slice::<T, W::Bytes>(&src[t.s..][..t.x * t.y]),
            rows_mut::<T, U::Bytes, K>(dst, t),
        ) else {
            return false;
        };
        deinterleave_words::<U, W, K>(words, rows);
        true
    }
}

/// The `K` (= `t.y`) destination rows of `t` as disjoint slices viewed as `U`.
fn rows_mut<T: Elem, U: bytemuck::Pod, const K: usize>(
    dst: &mut [T],
    t: Transpose,
) -> Option<[&mut [U]; K]> {
    let gap = t.c.checked_sub(t.x)?;
    let mut rest = dst.get_mut(t.d..)?;
    let mut rows: [&mut [U]; K] = core::array::from_fn(|_| <&mut [U]>::default());
    for (r, slot) in rows.iter_mut().enumerate() {
        let tail = core::mem::take(&mut rest).get_mut(if r == 0 { 0 } else { gap }..)?;
        if tail.len() < t.x {
            return None;
        }
        let (row, more) = tail.split_at_mut(t.x);
        *slot = bytemuck::try_cast_slice_mut(row).ok()?;
        rest = more;
    }
    Some(rows)
}

/// `dst[d + j·x + r] = src[s + r·a + j]`: `t.x` rows into groups (`t.c == t.x`).
pub(super) fn interleave<T: Elem>(src: &[T], dst: &mut [T], t: Transpose, sink: Sink) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let t = {
        let rows = |r: usize| bytemuck::cast_slice::<T, u8>(&src[t.s + r * t.a..][..t.y]);
        let out = bytemuck::cast_slice_mut(&mut dst[t.d..][..t.x * t.y]);
        let done = match (core::mem::size_of::<T>(), t.x) {
            (1, 4) => super::simd::interleave_u8x4(core::array::from_fn(rows), out, sink.stream),
            (2, 2) => super::simd::interleave_u16x2(core::array::from_fn(rows), out, sink.stream),
            _ => 0,
        };
        t.part(0, done, t.x, t.y - done)
    };
    if !by_width(core::mem::size_of::<T>(), t.x, Interleave { src, dst: &mut *dst, t, sink }) {
        t.scalar(src, dst);
    }
}

/// `dst[d + r·c + j] = src[s + j·y + r]`: groups into `t.y` rows (`t.a == t.y`).
pub(super) fn deinterleave<T: Elem>(src: &[T], dst: &mut [T], t: Transpose) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let t = match (core::mem::size_of::<T>(), t.y) {
        (2, 2) => match rows_mut::<T, u8, 2>(dst, t) {
            Some(rows) => {
                let words = bytemuck::cast_slice(&src[t.s..][..t.x * t.y]);
                let done = super::simd::deinterleave_u16x2(words, rows);
                t.part(done, 0, t.x - done, t.y)
            }
            None => t,
        },
        _ => t,
    };
    if !by_width(core::mem::size_of::<T>(), t.y, Deinterleave { src, dst: &mut *dst, t }) {
        t.scalar(src, dst);
    }
}
