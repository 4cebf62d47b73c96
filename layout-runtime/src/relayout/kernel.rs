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

/// Copies one block; destination offsets are relative to `dst_origin` (the start of `dst`
/// in the whole buffer, when a thread owns a part of it).
pub(super) fn copy_block<T: Copy>(src: &[T], dst: &mut [T], b: &Block, dst_origin: usize) {
    walk(&b.outer, b.src, b.dst - dst_origin, &mut |s, d| match b.inner {
        Inner::Point => dst[d] = src[s],
        Inner::Run(n) => dst[d..d + n].copy_from_slice(&src[s..s + n]),
        Inner::Strided { n, src: ss, dst: ds } => {
            for i in 0..n {
                dst[d + i * ds] = src[s + i * ss];
            }
        }
        Inner::Transpose { x, a, y, c } => transpose(src, s, a, dst, d, c, x, y),
    });
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

/// `dst[d + i + j·c] = src[s + i·a + j]` for `i < x`, `j < y`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn transpose<T: Copy>(
    src: &[T],
    s: usize,
    a: usize,
    dst: &mut [T],
    d: usize,
    c: usize,
    x: usize,
    y: usize,
) {
    if c == x {
        let out = &mut dst[d..d + x * y];
        match x {
            2 => return interleave::<T, 2>(src, s, a, out, y),
            4 => return interleave::<T, 4>(src, s, a, out, y),
            8 => return interleave::<T, 8>(src, s, a, out, y),
            _ => {}
        }
    }
    blocked::<T, 8>(src, s, a, dst, d, c, x, y);
}

/// `K` source rows of `y` elements interleaved into one contiguous run of `K·y`: the
/// `(2,1)` row pairs of bf16, the `(4,1)` quads of 8-bit types. Fixed `K` and fixed-size
/// chunks let the compiler keep every index in range statically and use vector shuffles.
#[inline]
fn interleave<T: Copy, const K: usize>(src: &[T], s: usize, a: usize, out: &mut [T], y: usize) {
    const J: usize = 16;
    let rows: [&[T]; K] = core::array::from_fn(|r| &src[s + r * a..][..y]);
    let mut outs = out.chunks_exact_mut(K * J);
    let mut j = 0;
    for o in &mut outs {
        let block: [&[T; J]; K] =
            core::array::from_fn(|r| rows[r][j..j + J].try_into().expect("J elements"));
        for (jj, o) in o.chunks_exact_mut(K).enumerate() {
            for r in 0..K {
                o[r] = block[r][jj];
            }
        }
        j += J;
    }
    for (jj, o) in outs.into_remainder().chunks_exact_mut(K).enumerate() {
        for r in 0..K {
            o[r] = rows[r][j + jj];
        }
    }
}

/// A general transpose in `B`×`B` tiles: a tile is read as `B` short source rows and
/// written as `B` short destination rows, so both sides touch `B` cache lines at a time.
#[allow(clippy::too_many_arguments)]
fn blocked<T: Copy, const B: usize>(
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
            let tile: [[T; B]; B] = core::array::from_fn(|i| {
                src[s + (i0 + i) * a + j0..][..B].try_into().expect("B elements")
            });
            for j in 0..B {
                let out: &mut [T; B] =
                    (&mut dst[d + (j0 + j) * c + i0..][..B]).try_into().expect("B elements");
                for (i, o) in out.iter_mut().enumerate() {
                    *o = tile[i][j];
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

/// Packed elements of `bits` ∈ {1, 2, 4} bits: none crosses a byte.
#[derive(Clone, Copy, Debug)]
pub(super) struct Packed {
    pub bits: usize,
}

impl Packed {
    fn per_byte(self) -> usize {
        8 / self.bits
    }

    fn mask(self) -> u8 {
        (1u8 << self.bits) - 1
    }

    #[inline]
    fn get(self, buf: &[u8], k: usize) -> u8 {
        let bit = k * self.bits;
        (buf[bit / 8] >> (bit % 8)) & self.mask()
    }

    #[inline]
    fn set(self, buf: &mut [u8], k: usize, v: u8) {
        let bit = k * self.bits;
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

    pub(super) fn copy_block(self, src: &[u8], dst: &mut [u8], b: &Block, dst_origin: usize) {
        walk(&b.outer, b.src, b.dst - dst_origin, &mut |s, d| match b.inner {
            Inner::Point => self.set(dst, d, self.get(src, s)),
            Inner::Run(n) => self.run(src, s, dst, d, n),
            Inner::Strided { n, src: ss, dst: ds } => {
                for i in 0..n {
                    self.set(dst, d + i * ds, self.get(src, s + i * ss));
                }
            }
            Inner::Transpose { x, a, y, c } => self.transpose(src, s, a, dst, d, c, x, y),
        });
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

    #[allow(clippy::too_many_arguments)]
    fn transpose(
        self,
        src: &[u8],
        s: usize,
        a: usize,
        dst: &mut [u8],
        d: usize,
        c: usize,
        x: usize,
        y: usize,
    ) {
        let g = self.per_byte();
        // Whole bytes on both sides: rows start on a byte, an output group of `x` elements
        // is whole bytes.
        let aligned = c == x
            && s % g == 0
            && a % g == 0
            && d % g == 0
            && (x * self.bits) % 8 == 0
            && x * self.bits <= 64;
        let mut done = 0;
        if aligned {
            let bytes = y / g;
            let rows_at = |r: usize| (s + r * a) / g;
            let out = &mut dst[d / g..][..bytes * g * (x * self.bits / 8)];
            match (self.bits, x) {
                (4, 8) => spread::<4, 8>(src, rows_at, out, bytes),
                (4, 2) => spread::<4, 2>(src, rows_at, out, bytes),
                (4, 4) => spread::<4, 4>(src, rows_at, out, bytes),
                (2, 4) => spread::<2, 4>(src, rows_at, out, bytes),
                (2, 8) => spread::<2, 8>(src, rows_at, out, bytes),
                (1, 8) => spread::<1, 8>(src, rows_at, out, bytes),
                _ => spread_any(self.bits, x, src, rows_at, out, bytes),
            }
            done = bytes * g;
        }
        for j in done..y {
            for i in 0..x {
                self.set(dst, d + i + j * c, self.get(src, s + i * a + j));
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
