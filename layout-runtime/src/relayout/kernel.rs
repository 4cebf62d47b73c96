//! The loops that move elements: whole-element kernels over `T` (`[u8; E]`, so any buffer
//! alignment works and each move is one fixed-size load and store), and packed kernels for
//! 1-, 2- and 4-bit elements.
//!
//! Every index is checked by the slice operations themselves; the blocks were built so that
//! none fails, and a failure would be a panic, never a stray write.

use super::decompose::{Block, Inner, Mode};

/// Calls `f(src, dst)` for every position of the outer loops.
#[inline]
fn walk(modes: &[Mode], src: usize, dst: usize, f: &mut impl FnMut(usize, usize)) {
    match modes.split_first() {
        None => f(src, dst),
        Some((m, rest)) => {
            let (mut s, mut d) = (src, dst);
            for _ in 0..m.extent {
                walk(rest, s, d, f);
                // Past the last step the offsets are never used: wrapping keeps that step
                // from overflowing on huge strides.
                s = s.wrapping_add(m.src);
                d = d.wrapping_add(m.dst);
            }
        }
    }
}

/// A whole element of `E` bytes: `[u8; E]` (any alignment) or the unsigned integer of that
/// width (when the buffers are aligned for it), with the integer the kernels compute with
/// (integers give the compiler cheaper moves and shuffles than byte arrays).
pub(super) trait Elem: bytemuck::Pod + Send + Sync {
    type Int: Elem<Int = Self::Int>;
    fn int(self) -> Self::Int;
    fn from_int(v: Self::Int) -> Self;
}

macro_rules! elem {
    ($($n:literal => $t:ty),*) => {$(
        impl Elem for [u8; $n] {
            type Int = $t;
            #[inline(always)]
            fn int(self) -> $t {
                <$t>::from_ne_bytes(self)
            }
            #[inline(always)]
            fn from_int(v: $t) -> Self {
                v.to_ne_bytes()
            }
        }

        impl Elem for $t {
            type Int = $t;
            #[inline(always)]
            fn int(self) -> $t {
                self
            }
            #[inline(always)]
            fn from_int(v: $t) -> Self {
                v
            }
        }
    )*};
}
elem!(1 => u8, 2 => u16, 4 => u32, 8 => u64, 16 => u128);

/// How kernels store finished contiguous output: plain stores, or non-temporal ones (large
/// destinations on x86_64) that skip reading each destination line into the cache first.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sink {
    pub stream: bool,
}

impl Sink {
    /// `dst.copy_from_slice(src)`, streamed when the sink says so.
    #[inline(always)]
    pub(super) fn put(self, dst: &mut [u8], src: &[u8]) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if self.stream {
            return super::simd::stream_copy(dst, src);
        }
        dst.copy_from_slice(src);
    }

    /// Makes streamed stores ordered before what follows (call before handing `dst` on).
    pub(super) fn finish(self) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if self.stream {
            super::simd::fence();
        }
    }
}

/// Copies one block; destination offsets are relative to `dst_origin` (the start of `dst`
/// in the whole buffer, when a thread owns a part of it).
pub(super) fn copy_block<T: Elem>(
    src: &[T],
    dst: &mut [T],
    b: &Block,
    dst_origin: usize,
    sink: Sink,
) {
    let d0 = b.dst - dst_origin;
    // One loop nest per kernel: the choice is made once per block, not per position.
    match b.inner {
        Inner::Point => walk(&b.outer, b.src, d0, &mut |s, d| dst[d] = src[s]),
        Inner::Run(n) => walk(&b.outer, b.src, d0, &mut |s, d| {
            sink.put(
                bytemuck::cast_slice_mut(&mut dst[d..d + n]),
                bytemuck::cast_slice(&src[s..s + n]),
            );
        }),
        Inner::Strided { n, src: ss, dst: ds } => walk(&b.outer, b.src, d0, &mut |s, d| {
            for i in 0..n {
                dst[d + i * ds] = src[s + i * ss];
            }
        }),
        Inner::Transpose { x, a, y, c } => {
            let kind = Transpose::pick::<T>(x, a, y, c);
            walk(&b.outer, b.src, d0, &mut |s, d| kind.run(src, s, a, dst, d, c, x, y, sink));
        }
    }
}

/// Writes `zero` over one block of the destination.
pub(super) fn zero_block<T: Copy>(dst: &mut [T], b: &Block, zero: T) {
    walk(&b.outer, 0, b.dst, &mut |_, d| match b.inner {
        Inner::Point => dst[d] = zero,
        Inner::Run(n) => dst[d..d + n].fill(zero),
        Inner::Strided { n, dst: ds, .. } => {
            for i in 0..n {
                dst[d + i * ds] = zero;
            }
        }
        Inner::Transpose { x, y, c, .. } => {
            for j in 0..y {
                dst[d + j * c..][..x].fill(zero);
            }
        }
    });
}

/// Which kernel moves a `Transpose` block `dst[i + j·c] = src[i·a + j]`.
#[derive(Clone, Copy)]
enum Transpose {
    /// `x` (2, 4 or 8) source rows into one contiguous run of `x`-element groups.
    Interleave,
    /// One contiguous run of `y`-element groups (2, 4 or 8) into `y` destination rows.
    Deinterleave,
    Blocked,
}

impl Transpose {
    fn pick<T>(x: usize, a: usize, y: usize, c: usize) -> Transpose {
        let e = core::mem::size_of::<T>();
        let fits = |k: usize| matches!(k, 2 | 4 | 8) && k * e <= 16;
        if c == x && fits(x) {
            Transpose::Interleave
        } else if a == y && fits(y) {
            Transpose::Deinterleave
        } else {
            Transpose::Blocked
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn run<T: Elem>(
        self,
        src: &[T],
        s: usize,
        a: usize,
        dst: &mut [T],
        d: usize,
        c: usize,
        x: usize,
        y: usize,
        sink: Sink,
    ) {
        match self {
            Transpose::Interleave => {
                let rows = |r: usize| &src[s + r * a..][..y];
                weave::interleave(x, rows, &mut dst[d..d + x * y], sink);
            }
            Transpose::Deinterleave => {
                weave::deinterleave(y, &src[s..s + x * y], dst, d, c, x);
            }
            Transpose::Blocked => {
                // Only 4-byte elements: the cast would also accept larger ones, as pairs.
                #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                if let (4, Ok(src), Ok(dst)) = (
                    core::mem::size_of::<T>(),
                    bytemuck::try_cast_slice::<T, [u8; 4]>(src),
                    bytemuck::try_cast_slice_mut::<T, [u8; 4]>(dst),
                ) {
                    return super::simd::transpose4(src, s, a, dst, d, c, x, y);
                }
                blocked::<T, 8>(src, s, a, dst, d, c, x, y);
            }
        }
    }
}

/// Interleaving of `K` rows as integer words: element `j` of row `r` goes to bits
/// `[8E·r, 8E·(r+1))` of word `j`. Shifts and ors of widened lanes are what the compiler
/// vectorizes best; the words are stored as little-endian bytes, so the byte order of the
/// buffer is the element order whatever the machine.
mod weave {
    use super::{Elem, Sink};

    /// Bytes of interleaved output built on the stack before being streamed out.
    const SCRATCH: usize = 512;

    macro_rules! weave {
        ($e:literal, $k:literal, $u:ty, $w:ty, $inter:ident, $de:ident) => {
            fn $inter(rows: [&[[u8; $e]]; $k], out: &mut [[u8; $e * $k]]) {
                let n = out.len();
                let rows = rows.map(|r| &r[..n]);
                for (j, o) in out.iter_mut().enumerate() {
                    let mut w: $w = 0;
                    for (r, row) in rows.iter().enumerate() {
                        w |= <$w>::from(<$u>::from_le_bytes(row[j])) << ($e * 8 * r);
                    }
                    *o = w.to_le_bytes();
                }
            }

            fn $de(words: &[[u8; $e * $k]], rows: [&mut [[u8; $e]]; $k]) {
                let n = words.len();
                let mut rows = rows.map(|r| &mut r[..n]);
                for (j, w) in words.iter().enumerate() {
                    let w = <$w>::from_le_bytes(*w);
                    for (r, row) in rows.iter_mut().enumerate() {
                        // Truncation keeps lane `r`: the cast is the point.
                        row[j] = ((w >> ($e * 8 * r)) as $u).to_le_bytes();
                    }
                }
            }
        };
    }
    weave!(1, 2, u8, u16, i1x2, d1x2);
    weave!(1, 4, u8, u32, i1x4, d1x4);
    weave!(1, 8, u8, u64, i1x8, d1x8);
    weave!(2, 2, u16, u32, i2x2, d2x2);
    weave!(2, 4, u16, u64, i2x4, d2x4);
    weave!(2, 8, u16, u128, i2x8, d2x8);
    weave!(4, 2, u32, u64, i4x2, d4x2);
    weave!(4, 4, u32, u128, i4x4, d4x4);
    weave!(8, 2, u64, u128, i8x2, d8x2);

    /// `k` row slices viewed as `U` (the same bytes; `None` if a size does not fit).
    fn rows_as<'s, T: Elem, U: bytemuck::Pod, const K: usize>(
        rows: impl Fn(usize) -> &'s [T],
    ) -> Option<[&'s [U]; K]> {
        let rows: [Option<&[U]>; K] =
            core::array::from_fn(|r| bytemuck::try_cast_slice(rows(r)).ok());
        if rows.iter().any(Option::is_none) {
            return None;
        }
        Some(rows.map(|r| r.unwrap_or(&[])))
    }

    /// `K` disjoint rows of `n` elements at `d`, `d + c`, ... of `dst`, viewed as `U`.
    fn rows_mut<T: Elem, U: bytemuck::Pod, const K: usize>(
        dst: &mut [T],
        d: usize,
        c: usize,
        n: usize,
    ) -> Option<[&mut [U]; K]> {
        let gap = c.checked_sub(n)?;
        let mut rest = dst.get_mut(d..)?;
        let mut rows: [&mut [U]; K] = core::array::from_fn(|_| <&mut [U]>::default());
        for (r, slot) in rows.iter_mut().enumerate() {
            let tail = core::mem::take(&mut rest).get_mut(if r == 0 { 0 } else { gap }..)?;
            if tail.len() < n {
                return None;
            }
            let (row, more) = tail.split_at_mut(n);
            *slot = bytemuck::try_cast_slice_mut(row).ok()?;
            rest = more;
        }
        Some(rows)
    }

    /// `out[j·k + r] = rows(r)[j]`; `out.len()` is `k ·` the row length.
    pub(super) fn interleave<'s, T: Elem>(
        k: usize,
        rows: impl Fn(usize) -> &'s [T],
        out: &mut [T],
        sink: Sink,
    ) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            let bytes = |r: usize| bytemuck::cast_slice::<T, u8>(rows(r));
            let done = match (core::mem::size_of::<T>(), k) {
                (1, 4) => super::super::simd::interleave_u8x4(
                    core::array::from_fn(bytes),
                    bytemuck::cast_slice_mut(out),
                    sink.stream,
                ),
                (2, 2) => super::super::simd::interleave_u16x2(
                    core::array::from_fn(bytes),
                    bytemuck::cast_slice_mut(out),
                    sink.stream,
                ),
                _ => 0,
            };
            if done > 0 {
                return interleave_words(k, |r| &rows(r)[done..], &mut out[done * k..], sink);
            }
        }
        interleave_words(k, rows, out, sink)
    }

    /// [`interleave`] as integer words.
    fn interleave_words<'s, T: Elem>(
        k: usize,
        rows: impl Fn(usize) -> &'s [T],
        out: &mut [T],
        sink: Sink,
    ) {
        macro_rules! go {
            ($e:literal, $k:literal, $f:ident) => {
                if let (Some(r), Ok(o)) = (
                    rows_as::<T, [u8; $e], $k>(&rows),
                    bytemuck::try_cast_slice_mut::<T, [u8; $e * $k]>(out),
                ) {
                    if !sink.stream {
                        return $f(r, o);
                    }
                    // Streamed: build a few hundred bytes on the stack, then stream them.
                    let mut buf = [[0u8; $e * $k]; SCRATCH / ($e * $k)];
                    let mut j = 0;
                    for piece in o.chunks_mut(buf.len()) {
                        let m = piece.len();
                        $f(r.map(|row| &row[j..j + m]), &mut buf[..m]);
                        sink.put(bytemuck::cast_slice_mut(piece), bytemuck::cast_slice(&buf[..m]));
                        j += m;
                    }
                    return;
                }
            };
        }
        match (core::mem::size_of::<T>(), k) {
            (1, 2) => go!(1, 2, i1x2),
            (1, 4) => go!(1, 4, i1x4),
            (1, 8) => go!(1, 8, i1x8),
            (2, 2) => go!(2, 2, i2x2),
            (2, 4) => go!(2, 4, i2x4),
            (2, 8) => go!(2, 8, i2x8),
            (4, 2) => go!(4, 2, i4x2),
            (4, 4) => go!(4, 4, i4x4),
            (8, 2) => go!(8, 2, i8x2),
            _ => {}
        }
        for (j, group) in out.chunks_exact_mut(k).enumerate() {
            for (r, o) in group.iter_mut().enumerate() {
                *o = rows(r)[j];
            }
        }
    }

    /// `dst[d + r·c + j] = words[j·k + r]` for `j < n`, `r < k`.
    pub(super) fn deinterleave<T: Elem>(
        k: usize,
        words: &[T],
        dst: &mut [T],
        d: usize,
        c: usize,
        n: usize,
    ) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if let (2, 2) = (core::mem::size_of::<T>(), k) {
            if let Some(rows) = rows_mut::<T, u8, 2>(dst, d, c, n) {
                let done =
                    super::super::simd::deinterleave_u16x2(bytemuck::cast_slice(words), rows);
                return deinterleave_words(k, &words[done * k..], dst, d + done, c, n - done);
            }
        }
        deinterleave_words(k, words, dst, d, c, n)
    }

    /// [`deinterleave`] as integer words.
    fn deinterleave_words<T: Elem>(
        k: usize,
        words: &[T],
        dst: &mut [T],
        d: usize,
        c: usize,
        n: usize,
    ) {
        macro_rules! go {
            ($e:literal, $k:literal, $f:ident) => {
                if let Ok(w) = bytemuck::try_cast_slice::<T, [u8; $e * $k]>(words) {
                    if let Some(rows) = rows_mut::<T, [u8; $e], $k>(dst, d, c, n) {
                        return $f(w, rows);
                    }
                }
            };
        }
        match (core::mem::size_of::<T>(), k) {
            (1, 2) => go!(1, 2, d1x2),
            (1, 4) => go!(1, 4, d1x4),
            (1, 8) => go!(1, 8, d1x8),
            (2, 2) => go!(2, 2, d2x2),
            (2, 4) => go!(2, 4, d2x4),
            (2, 8) => go!(2, 8, d2x8),
            (4, 2) => go!(4, 2, d4x2),
            (4, 4) => go!(4, 4, d4x4),
            (8, 2) => go!(8, 2, d8x2),
            _ => {}
        }
        for (j, group) in words.chunks_exact(k).enumerate() {
            for (r, &w) in group.iter().enumerate() {
                dst[d + r * c + j] = w;
            }
        }
    }
}

/// A general transpose in `B`×`B` tiles: a tile is read as `B` short source rows and
/// written as `B` short destination rows, so both sides touch `B` cache lines at a time.
#[allow(clippy::too_many_arguments)]
fn blocked<T: Elem, const B: usize>(
    src: &[T],
    s: usize,
    a: usize,
    dst: &mut [T],
    d: usize,
    c: usize,
    x: usize,
    y: usize,
) {
    let (xb, yb) = (x - x % B, y - y % B);
    for j0 in (0..yb).step_by(B) {
        for i0 in (0..xb).step_by(B) {
            let tile: [[T::Int; B]; B] = core::array::from_fn(|i| {
                let row: &[T; B] = src[s + (i0 + i) * a + j0..][..B].try_into().expect("B");
                row.map(T::int)
            });
            for j in 0..B {
                let out: &mut [T; B] =
                    (&mut dst[d + (j0 + j) * c + i0..][..B]).try_into().expect("B elements");
                for (i, o) in out.iter_mut().enumerate() {
                    *o = T::from_int(tile[i][j]);
                }
            }
        }
        for j in j0..j0 + B {
            for i in xb..x {
                dst[d + j * c + i] = src[s + i * a + j];
            }
        }
    }
    for j in yb..y {
        for i in 0..x {
            dst[d + j * c + i] = src[s + i * a + j];
        }
    }
}

/// Packed elements of `B` ∈ {1, 2, 4} bits: none crosses a byte. `B` is a constant so that
/// every division by the elements per byte is a shift.
#[derive(Clone, Copy, Debug)]
pub(super) struct Packed<const B: usize>;

impl<const B: usize> Packed<B> {
    fn per_byte(self) -> usize {
        8 / B
    }

    fn mask(self) -> u8 {
        (1u8 << B) - 1
    }

    #[inline]
    fn get(self, buf: &[u8], k: usize) -> u8 {
        let bit = k * B;
        (buf[bit / 8] >> (bit % 8)) & self.mask()
    }

    #[inline]
    fn set(self, buf: &mut [u8], k: usize, v: u8) {
        let bit = k * B;
        let byte = &mut buf[bit / 8];
        let m = self.mask() << (bit % 8);
        *byte = (*byte & !m) | ((v << (bit % 8)) & m);
    }

    /// Copies `n` elements contiguous on both sides: whole bytes when both start at the
    /// same bit, element by element otherwise.
    fn run(self, src: &[u8], s: usize, dst: &mut [u8], d: usize, n: usize) {
        let g = self.per_byte();
        if s % g != d % g {
            for i in 0..n {
                self.set(dst, d + i, self.get(src, s + i));
            }
            return;
        }
        let head = ((g - s % g) % g).min(n);
        for i in 0..head {
            self.set(dst, d + i, self.get(src, s + i));
        }
        let (s, d, n) = (s + head, d + head, n - head);
        let whole = n / g;
        dst[d / g..d / g + whole].copy_from_slice(&src[s / g..s / g + whole]);
        for i in whole * g..n {
            self.set(dst, d + i, self.get(src, s + i));
        }
    }

    pub(super) fn fill_zero(self, dst: &mut [u8], d: usize, n: usize) {
        let g = self.per_byte();
        let head = ((g - d % g) % g).min(n);
        for i in 0..head {
            self.set(dst, d + i, 0);
        }
        let (d, n) = (d + head, n - head);
        let whole = n / g;
        dst[d / g..d / g + whole].fill(0);
        for i in whole * g..n {
            self.set(dst, d + i, 0);
        }
    }

    pub(super) fn copy_block(
        self,
        src: &[u8],
        dst: &mut [u8],
        b: &Block,
        dst_origin: usize,
        sink: Sink,
    ) {
        walk(&b.outer, b.src, b.dst - dst_origin, &mut |s, d| match b.inner {
            Inner::Point => self.set(dst, d, self.get(src, s)),
            Inner::Run(n) => self.run(src, s, dst, d, n),
            Inner::Strided { n, src: ss, dst: ds } => {
                for i in 0..n {
                    self.set(dst, d + i * ds, self.get(src, s + i * ss));
                }
            }
            Inner::Transpose { .. } => {}
        });
        if let Inner::Transpose { x, a, y, c } = b.inner {
            let g = self.per_byte();
            // Whole bytes everywhere (every row starts on a byte, a group of `x` elements
            // is whole bytes), checked once for the block rather than per call.
            let whole = c == x
                && (x * B) % 8 == 0
                && x * B <= 64
                && a % g == 0
                && b.src % g == 0
                && (b.dst - dst_origin) % g == 0
                && b.outer.iter().all(|m| m.src % g == 0 && m.dst % g == 0);
            let d0 = b.dst - dst_origin;
            if whole {
                walk(&b.outer, b.src, d0, &mut |s, d| self.spread(src, s, a, dst, d, x, y, sink));
            } else {
                walk(&b.outer, b.src, d0, &mut |s, d| {
                    for j in 0..y {
                        for i in 0..x {
                            self.set(dst, d + i + j * c, self.get(src, s + i * a + j));
                        }
                    }
                });
            }
        }
    }

    pub(super) fn zero_block(self, dst: &mut [u8], b: &Block) {
        walk(&b.outer, 0, b.dst, &mut |_, d| match b.inner {
            Inner::Point => self.set(dst, d, 0),
            Inner::Run(n) => self.fill_zero(dst, d, n),
            Inner::Strided { n, dst: ds, .. } => {
                for i in 0..n {
                    self.set(dst, d + i * ds, 0);
                }
            }
            Inner::Transpose { x, y, c, .. } => {
                for j in 0..y {
                    self.fill_zero(dst, d + j * c, x);
                }
            }
        });
    }

    /// `dst[d + i + j·x] = src[s + i·a + j]` (`i < x`, `j < y`) when every row starts on a
    /// byte and a group of `x` elements is whole bytes: rows move a byte (`8/B` elements) at
    /// a time.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn spread(
        self,
        src: &[u8],
        s: usize,
        a: usize,
        dst: &mut [u8],
        d: usize,
        x: usize,
        y: usize,
        sink: Sink,
    ) {
        let g = self.per_byte();
        let bytes = y / g;
        let rows_at = |r: usize| (s + r * a) / g;
        let out = &mut dst[d / g..][..bytes * g * (x * B / 8)];
        match (B, x) {
            (4, 8) => {
                #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                let done = {
                    let rows = core::array::from_fn(|r| &src[rows_at(r)..][..bytes]);
                    super::simd::spread_nibbles8(rows, out, bytes, sink.stream)
                };
                #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
                let (done, _) = (0, sink);
                spread::<4, 8>(src, |r| rows_at(r) + done, &mut out[done * 8..], bytes - done);
            }
            (4, 2) => spread::<4, 2>(src, rows_at, out, bytes),
            (4, 4) => spread::<4, 4>(src, rows_at, out, bytes),
            (2, 4) => spread::<2, 4>(src, rows_at, out, bytes),
            (2, 8) => spread::<2, 8>(src, rows_at, out, bytes),
            (1, 8) => spread::<1, 8>(src, rows_at, out, bytes),
            _ => spread_any(B, x, src, rows_at, out, bytes),
        }
        for j in bytes * g..y {
            for i in 0..x {
                self.set(dst, d + i + j * x, self.get(src, s + i * a + j));
            }
        }
    }
}

/// Interleaves `K` rows of packed `BITS`-bit elements: each source byte holds `8/BITS`
/// consecutive elements of one row; each output group of `K·BITS` bits holds one element of
/// every row. A byte of each row in, `8/BITS` groups out.
fn spread<const BITS: usize, const K: usize>(
    src: &[u8],
    row_at: impl Fn(usize) -> usize,
    out: &mut [u8],
    bytes: usize,
) {
    let g = 8 / BITS;
    let w = K * BITS / 8;
    let mask = (1u64 << BITS) - 1;
    let rows: [&[u8]; K] = core::array::from_fn(|r| &src[row_at(r)..][..bytes]);
    for (j, o) in out.chunks_exact_mut(g * w).enumerate().take(bytes) {
        let mut words = [0u64; 8];
        for (r, row) in rows.iter().enumerate() {
            let v = u64::from(row[j]);
            for (t, word) in words.iter_mut().enumerate().take(g) {
                *word |= ((v >> (BITS * t)) & mask) << (BITS * r);
            }
        }
        for (t, o) in o.chunks_exact_mut(w).enumerate() {
            o.copy_from_slice(&words[t].to_le_bytes()[..w]);
        }
    }
}

/// [`spread`] for any row count whose group is whole bytes, up to 64 bits.
fn spread_any(
    bits: usize,
    k: usize,
    src: &[u8],
    row_at: impl Fn(usize) -> usize,
    out: &mut [u8],
    bytes: usize,
) {
    let g = 8 / bits;
    let w = k * bits / 8;
    let mask = (1u64 << bits) - 1;
    for (j, o) in out.chunks_exact_mut(g * w).enumerate().take(bytes) {
        let mut words = [0u64; 8];
        for r in 0..k {
            let v = u64::from(src[row_at(r) + j]);
            for (t, word) in words.iter_mut().enumerate().take(g) {
                *word |= ((v >> (bits * t)) & mask) << (bits * r);
            }
        }
        for (t, o) in o.chunks_exact_mut(w).enumerate() {
            o.copy_from_slice(&words[t].to_le_bytes()[..w]);
        }
    }
}
