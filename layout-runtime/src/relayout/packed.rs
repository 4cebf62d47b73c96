//! The loops over packed 1-, 2- and 4-bit elements: runs of whole bytes where both sides
//! start on the same bit, the regrouping of rows into `(k,1)` column groups a byte of each
//! row at a time, and element by element for the rest.

use super::ctx::{Ctx, Kernels, Reads};
use super::decompose::{Block, Inner, Mode};
use super::geometry::{split_repeat, walk, Rep, Transpose};
use super::spread::spread;

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

    fn fill_zero(self, dst: &mut [u8], d: usize, n: usize) {
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

    /// Whether the transpose block `b`, its destination starting at `d0`, moves whole bytes
    /// everywhere (every row starts on a byte, a group of `rows` elements is whole bytes,
    /// at most 8 of them): then [`Packed::spread`] moves it. Checked once for the block
    /// rather than per call.
    fn bytewise(self, b: &Block, d0: usize) -> bool {
        let Inner::Transpose { rows, src_row_stride, dst_row_stride, .. } = b.inner else {
            return false;
        };
        let g = self.per_byte();
        dst_row_stride == rows
            && (rows * B) % 8 == 0
            && rows * B <= 64
            && src_row_stride % g == 0
            && b.src % g == 0
            && d0 % g == 0
            && b.outer.iter().all(|m| m.src % g == 0 && m.dst % g == 0)
    }

    /// The settings the kernels read for block `b`: the SIMD level for the `(8,1)` nibble
    /// groups, the row groups for every byte-wise regrouping.
    pub(super) fn reads(self, b: &Block) -> Reads {
        if !self.bytewise(b, b.dst) {
            // Packed runs are copied through the cache at every level.
            return Reads { widths: false, ..Reads::of(b) };
        }
        let nibbles8 = matches!(b.inner, Inner::Transpose { rows: 8, .. }) && B == 4;
        Reads { level: nibbles8, rows: false, groups: Reads::regroups(b), ..Reads::of(b) }
    }

    /// Element by element.
    fn scalar(self, src: &[u8], dst: &mut [u8], t: Transpose) {
        t.each(|s, d| self.set(dst, d, self.get(src, s)));
    }

    /// `t` and its `rep` copies when every row starts on a byte and a group of `rows`
    /// elements (a destination row, contiguous with the next) is whole bytes: rows move a
    /// byte (`8/B` elements) at a time.
    #[inline]
    fn spread(self, src: &[u8], dst: &mut [u8], t: Transpose, rep: Rep, ctx: Ctx) {
        let g = self.per_byte();
        // The same move in bytes: `rows` rows of `cols / g` bytes, `g · rows·B/8` output
        // bytes per source byte.
        let w = g * (t.rows * B / 8);
        let tb = Transpose {
            src: t.src / g,
            src_row_stride: t.src_row_stride / g,
            dst: t.dst / g,
            dst_row_stride: w,
            rows: t.rows,
            cols: t.cols / g,
        };
        let bytes = |m: Mode| Mode { extent: m.extent, src: m.src / g, dst: m.dst / g };
        let rb = Rep { tiles: bytes(rep.tiles), groups: bytes(rep.groups) };
        if !((B, t.rows) == (4, 8) && simd_nibbles8(src, dst, tb, rb, ctx)) {
            for p in tb.repeat(rb) {
                match (B, t.rows) {
                    (4, 8) => spread(4, 8, src, dst, p),
                    (4, 2) => spread(4, 2, src, dst, p),
                    (4, 4) => spread(4, 4, src, dst, p),
                    (2, 4) => spread(2, 4, src, dst, p),
                    (2, 8) => spread(2, 8, src, dst, p),
                    (1, 8) => spread(1, 8, src, dst, p),
                    _ => spread(B, t.rows, src, dst, p),
                }
            }
        }
        let whole = tb.cols * g;
        if whole < t.cols {
            for t in t.repeat(rep) {
                self.scalar(src, dst, t.part(0, whole, t.rows, t.cols - whole));
            }
        }
    }
}

/// The `(8,1)` regrouping of 4-bit elements (`t` in bytes) by the plan's SIMD kernels;
/// `false` when it has none.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn simd_nibbles8(src: &[u8], dst: &mut [u8], t: Transpose, rep: Rep, ctx: Ctx) -> bool {
    use super::cpu::Level;
    use super::simd::groups::Nibbles8;
    use super::simd::{avx2, sse2};
    match ctx.level {
        #[cfg(xlayout_avx512)]
        Level::Avx512(z) => {
            super::simd::avx512::groups::<Nibbles8>(z, src, dst, t, rep, ctx.stream);
        }
        Level::Avx2(avx) => avx2::groups::<Nibbles8>(avx, src, dst, t, rep, ctx.stream),
        Level::Sse2 => sse2::groups::<Nibbles8>(src, dst, t, rep, ctx.stream),
        Level::Portable => return false,
    }
    true
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn simd_nibbles8(_: &[u8], _: &mut [u8], _: Transpose, _: Rep, _: Ctx) -> bool {
    false
}

impl<const B: usize> Kernels<u8> for Packed<B> {
    const PER_ITEM: usize = 8 / B;

    fn copy_block(self, src: &[u8], dst: &mut [u8], b: &Block, dst_origin: usize, ctx: Ctx) {
        let d0 = b.dst - dst_origin;
        let outer = b.loops(ctx.reorder);
        match b.inner {
            Inner::Point => walk(outer, b.src, d0, &mut |s, d| self.set(dst, d, self.get(src, s))),
            Inner::Run(n) => walk(outer, b.src, d0, &mut |s, d| self.run(src, s, dst, d, n)),
            Inner::Strided { n, src: ss, dst: ds } => walk(outer, b.src, d0, &mut |s, d| {
                for i in 0..n {
                    self.set(dst, d + i * ds, self.get(src, s + i * ss));
                }
            }),
            Inner::Transpose { rows, src_row_stride, cols, dst_row_stride } => {
                let t = Transpose { src: 0, src_row_stride, dst: 0, dst_row_stride, rows, cols };
                if self.bytewise(b, d0) {
                    let (outer, rep) = split_repeat(outer, rows * cols, ctx.groups);
                    walk(&outer, b.src, d0, &mut |s, d| {
                        self.spread(src, dst, Transpose { src: s, dst: d, ..t }, rep, ctx);
                    });
                } else {
                    walk(outer, b.src, d0, &mut |s, d| {
                        self.scalar(src, dst, Transpose { src: s, dst: d, ..t });
                    });
                }
            }
        }
    }

    fn zero_block(self, dst: &mut [u8], b: &Block, dst_origin: usize) {
        walk(&b.outer, 0, b.dst - dst_origin, &mut |_, d| match b.inner {
            Inner::Point => self.set(dst, d, 0),
            Inner::Run(n) => self.fill_zero(dst, d, n),
            Inner::Strided { n, dst: ds, .. } => {
                for i in 0..n {
                    self.set(dst, d + i * ds, 0);
                }
            }
            Inner::Transpose { rows, cols, dst_row_stride, .. } => {
                for j in 0..cols {
                    self.fill_zero(dst, d + j * dst_row_stride, rows);
                }
            }
        });
    }

    fn zero_tail(self, dst: &mut [u8], from: usize) {
        // The `L` tail and the unused bits of the last byte.
        self.fill_zero(dst, from, dst.len() * (8 / B) - from);
    }
}
