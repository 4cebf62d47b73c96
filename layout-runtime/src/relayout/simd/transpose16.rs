//! The AVX-512 transpose of 4-byte elements (f32, s32, ..): 16×16 tiles in registers, every
//! load a source line and every store a destination line, walked down the source's
//! columns with prefetches ahead. Compiled where the compiler has the intrinsics
//! (`cfg(xlayout_avx512)`), run where an [`Avx512`] proves the CPU has them.
//!
//! The blocking is HPTT's (Springer, Su and Bientinesi, "HPTT: A High-Performance Tensor
//! Transposition C++ Library", 2017: macro-kernels over blocks of micro-kernel transposes,
//! sized so that what a block reads and writes stays in the first-level cache), with the
//! block one tile of a whole line by a whole line: no line is needed again after its tile, so
//! nothing has to stay cached between tiles, and rows a power of two apart (2 KiB in the
//! 3-D benchmark case, which crowds every source row into two sets of a 32 KiB, 8-way
//! first-level cache) cost nothing. What HPTT keeps in the first-level cache this kernel
//! asks the second-level one for ahead of time, since hardware prefetchers do not follow a
//! walk down columns.
//!
//! Edges are the same walk with masks: the first columns (up to where source rows reach a
//! line) and the last, the first rows (up to where destination rows reach one) and the
//! last, are tiles whose loads and stores leave the elements outside the transpose alone
//! (AVX-512 masked loads and stores do not touch, and cannot fault on, masked elements).
//! So every element goes through one kernel, and every line is read by one walk: with the
//! first 12 and last 20 columns split off to the AVX2 kernel (the benchmark's source
//! starts 16 bytes past a line), which read again the lines they share with the body, the
//! 3-D case ran at 11.4-11.6 GB/s against 13.9-15.5 for this (docs/benchmarks-history.md).

use core::arch::x86_64::{
    __m512i, _mm512_loadu_si512, _mm512_mask_storeu_epi32, _mm512_maskz_loadu_epi32,
    _mm512_setzero_si512, _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_stream_si512,
    _mm512_unpackhi_epi32, _mm512_unpackhi_epi64, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64,
    _mm_prefetch, _MM_HINT_T2,
};

use super::super::cpu::Avx512;
use super::super::geometry::Transpose;
use super::avx2::tiles_inside;

type E4 = [u8; 4];

/// Source rows ahead of the tile being transposed that [`transpose16`] asks the
/// second-level cache for: four tiles. Measured on the 3-D case (f32[64,512,512], 2 KiB
/// rows, the source 16 bytes past a line) on a loaded Zen 4 guest, against a copy with
/// 64-byte non-temporal stores in the same run: no prefetch 0.51, 32 rows ahead 0.85, 64
/// rows 0.96, 128 rows 0.99 (a scratch kernel of the same walk, aligned: 48 rows 1.15, 64
/// rows 1.20, 96 rows 1.17); asking also for the line after the tile's, which the next
/// strip reads, 0.66-0.71 (docs/benchmarks-history.md).
const AHEAD: usize = 64;

/// Columns of a strip: two tiles of 16.
const STRIP: usize = 32;

/// Rows `r[0..16]` of a 16×16 tile of 4-byte elements become its columns: unpacks of
/// 32-bit and 64-bit pairs within 16-byte quarters, then two rounds of quarter shuffles.
///
/// # Safety
/// The CPU must run AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn t16(r: [__m512i; 16]) -> [__m512i; 16] {
    // Loops rather than `array::from_fn`: a closure's intrinsics would not be compiled with
    // this function's target features everywhere this crate builds.
    // t[2k], t[2k+1]: rows 2k and 2k + 1 interleaved, quarter by quarter.
    let mut t = r;
    for k in 0..8 {
        t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
    }
    // u[4k + m], quarter q: column 4q + m of rows 4k..4k+4.
    let mut u = t;
    for k in 0..4 {
        for h in 0..2 {
            let (a, b) = (t[4 * k + h], t[4 * k + 2 + h]);
            u[4 * k + 2 * h] = _mm512_unpacklo_epi64(a, b);
            u[4 * k + 2 * h + 1] = _mm512_unpackhi_epi64(a, b);
        }
    }
    // Column 4q + m: quarter q of u[m], u[4 + m], u[8 + m], u[12 + m], in that order.
    let mut out = u;
    for m in 0..4 {
        let (a, b, c, d) = (u[m], u[4 + m], u[8 + m], u[12 + m]);
        let (ab01, ab23) = (_mm512_shuffle_i32x4::<0x44>(a, b), _mm512_shuffle_i32x4::<0xEE>(a, b));
        let (cd01, cd23) = (_mm512_shuffle_i32x4::<0x44>(c, d), _mm512_shuffle_i32x4::<0xEE>(c, d));
        out[m] = _mm512_shuffle_i32x4::<0x88>(ab01, cd01);
        out[4 + m] = _mm512_shuffle_i32x4::<0xDD>(ab01, cd01);
        out[8 + m] = _mm512_shuffle_i32x4::<0x88>(ab23, cd23);
        out[12 + m] = _mm512_shuffle_i32x4::<0xDD>(ab23, cd23);
    }
    out
}

/// `0..n` cut into a first piece of `first` (none when 0), then pieces of `step`, then
/// the rest: the rows and the column strips of the walk.
#[derive(Clone, Copy, Debug)]
struct Cuts {
    first: usize,
    step: usize,
    n: usize,
}

impl Cuts {
    fn new(first: usize, step: usize, n: usize) -> Cuts {
        Cuts { first: first.min(n), step, n }
    }

    fn count(self) -> usize {
        usize::from(self.first > 0) + (self.n - self.first).div_ceil(self.step)
    }

    /// Piece `k`: its start and length.
    #[inline(always)]
    fn get(self, k: usize) -> (usize, usize) {
        let start = match (self.first, k) {
            (0, _) => k * self.step,
            (_, 0) => 0,
            (first, k) => first + (k - 1) * self.step,
        };
        let len = if self.first > 0 && k == 0 { self.first } else { self.step };
        (start, len.min(self.n - start))
    }
}

/// `t` for 4-byte elements, whole: tiles of up to 16 source rows by 32 columns (two 16×16
/// register transposes), walked down each strip of 32 columns for `band` rows, then the
/// next strip; each tile asks for the source lines of the one [`AHEAD`] rows down the
/// walk (or as far into the next strip). Strips start where source rows reach a line, tile
/// rows where destination rows do, and the pieces before and after are tiles with masks.
/// Destination lines are streamed where `stream` and a tile writes them whole. Returns
/// `false`, with nothing written, when `t` does not lie inside the buffers (never, for
/// blocks the plan built).
pub(in super::super) fn transpose16(
    z: Avx512,
    src: &[E4],
    dst: &mut [E4],
    t: Transpose,
    band: usize,
    stream: bool,
) -> bool {
    if t.rows == 0 || t.cols == 0 {
        return true;
    }
    if !tiles_inside(t, t.rows, t.cols, src.len(), dst.len()) {
        return false;
    }
    let _ = z;
    // SAFETY: the implementation needs AVX-512 F, which the `Avx512` token proves the CPU
    // runs (its only constructor checks); `t` lies inside both buffers (checked above).
    unsafe { transpose16_imp(src, dst, t, band, stream) };
    true
}

/// Elements before the first 64-byte boundary of rows `pitch` elements apart from
/// `addr`, when every row has the same offset in its line; 0 otherwise.
fn to_line(addr: usize, pitch: usize) -> usize {
    if (4 * pitch) % 64 == 0 && addr % 4 == 0 {
        (64 - addr % 64) % 64 / 4
    } else {
        0
    }
}

/// # Safety
/// The CPU must run AVX-512 F, and `t` (with `rows` and `cols` nonzero) must lie inside
/// `src` and `dst` ([`tiles_inside`] of all of it).
#[target_feature(enable = "avx512f")]
unsafe fn transpose16_imp(src: &[E4], dst: &mut [E4], t: Transpose, band: usize, stream: bool) {
    let (from, to) = (src.as_ptr(), dst.as_mut_ptr());
    let (src_at, dst_at) = (from as usize + 4 * t.src, to as usize + 4 * t.dst);
    // Tile rows from where destination rows reach a line: a whole tile of 16 then writes
    // a whole line of each. Strips from where source rows reach one.
    let head = to_line(dst_at, t.dst_row_stride);
    let lines = (4 * t.dst_row_stride) % 64 == 0 && (dst_at + 4 * head.min(t.rows)) % 64 == 0;
    let rows = Cuts::new(head, 16, t.rows);
    let strips = Cuts::new(to_line(src_at, t.src_row_stride), STRIP, t.cols);
    let band = (band / 16).max(1);
    let (nr, ns) = (rows.count(), strips.count());
    for lo in (0..nr).step_by(band) {
        let hi = (lo + band).min(nr);
        for s in 0..ns {
            let (j0, w) = strips.get(s);
            for r in lo..hi {
                // The tile `AHEAD` rows down the strip, or as far into the next one.
                let (mut pr, mut ps) = (r + AHEAD / 16, s);
                if pr >= hi {
                    (pr, ps) = (lo + (pr - hi), s + 1);
                }
                if ps < ns && pr < hi {
                    let ((pi, ph), (pj, pw)) = (rows.get(pr), strips.get(ps));
                    for i in 0..ph {
                        let row = from.wrapping_add(t.src + (pi + i) * t.src_row_stride + pj);
                        // Hints: they never fault and access nothing, whatever the address.
                        // The first and the last element: the one or two lines of the tile.
                        _mm_prefetch(row.cast::<i8>(), _MM_HINT_T2);
                        _mm_prefetch(row.wrapping_add(pw - 1).cast::<i8>(), _MM_HINT_T2);
                    }
                }
                let (i0, h) = rows.get(r);
                let nt = stream && lines && h == 16;
                tile(from, to, t, (i0, h), (j0, w), nt);
            }
        }
    }
}

/// One tile: source rows `i0..i0 + h` (`h <= 16`), columns `j0..j0 + w` (`w <= 32`), as
/// two 16×16 transposes, with masks where the tile is narrower or shorter than 16; the
/// whole ones streamed when `nt` (`h == 16`, destination rows on lines).
///
/// # Safety
/// The CPU must run AVX-512 F; the tile must lie inside `t`, and `t` inside the buffers
/// `from` and `to` point into, `to`'s exclusively ours; with `nt`, every destination row of
/// the tile must start on a 64-byte boundary.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn tile(
    from: *const E4,
    to: *mut E4,
    t: Transpose,
    (i0, h): (usize, usize),
    (j0, w): (usize, usize),
    nt: bool,
) {
    for c0 in (0..w).step_by(16) {
        let cw = (w - c0).min(16);
        let (s, d) =
            (t.src + i0 * t.src_row_stride + j0 + c0, t.dst + (j0 + c0) * t.dst_row_stride + i0);
        // SAFETY: `s` and `d` are the first elements of the square's first source and
        // destination rows: inside `t`, so inside the buffers (the contract).
        let (s, d) = unsafe { (from.add(s), to.add(d)) };
        let pitch = (t.src_row_stride, t.dst_row_stride);
        if h == 16 && cw == 16 {
            // SAFETY: a whole 16×16 square of `t`, inside the buffers; `nt` as promised.
            unsafe { square(s, d, pitch, nt) };
        } else {
            // SAFETY: an `h`×`cw` part of `t`, inside the buffers.
            unsafe { part(s, d, pitch, (h, cw)) };
        }
    }
}

/// A whole 16×16 square from `s` (rows `pitch.0` elements apart) to `d` (rows `pitch.1`
/// apart): loads and stores of fixed count, which the compiler unrolls and keeps in
/// registers (one loop for whole and masked squares, with its counts known only at run
/// time, went through the stack: 12 against 16 GB/s on the 3-D case).
///
/// # Safety
/// The CPU must run AVX-512 F; the 16 rows of 16 elements from `s` must be readable, those
/// from `d` writable and exclusively ours; with `nt`, each row from `d` must start on a
/// 64-byte boundary.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn square(s: *const E4, d: *mut E4, (sp, dp): (usize, usize), nt: bool) {
    let mut r = [_mm512_setzero_si512(); 16];
    for (i, r) in r.iter_mut().enumerate() {
        // SAFETY: row `i` of the square: 16 readable elements (the contract); the load
        // takes any alignment.
        *r = unsafe { _mm512_loadu_si512(s.add(i * sp).cast()) };
    }
    for (k, v) in t16(r).into_iter().enumerate() {
        // SAFETY: row `k` of the destination square: 16 writable elements, ours (the
        // contract); the streamed store needs the 64-byte alignment `nt` promises.
        unsafe {
            let o = d.add(k * dp).cast::<__m512i>();
            if nt {
                // Miri cannot run the non-temporal store (inline assembly in
                // `core::arch`): an aligned typed store, whose alignment Miri checks.
                #[cfg(not(miri))]
                _mm512_stream_si512(o, v);
                #[cfg(miri)]
                o.write(v);
            } else {
                _mm512_storeu_si512(o, v);
            }
        }
    }
}

/// The first `h` rows and `w` columns of a square (`h`, `w` at most 16), with masked loads
/// and stores, which touch (and can fault on) no other element.
///
/// # Safety
/// The CPU must run AVX-512 F; the `h` rows of `w` elements from `s` must be readable, the
/// `w` rows of `h` elements from `d` writable and exclusively ours.
#[target_feature(enable = "avx512f")]
unsafe fn part(s: *const E4, d: *mut E4, (sp, dp): (usize, usize), (h, w): (usize, usize)) {
    let cols = (1u32 << w).wrapping_sub(1) as u16;
    let mut r = [_mm512_setzero_si512(); 16];
    for (i, r) in r.iter_mut().enumerate().take(h) {
        // SAFETY: the `w` elements the mask selects of row `i < h`: readable (the
        // contract).
        *r = unsafe { _mm512_maskz_loadu_epi32(cols, s.add(i * sp).cast()) };
    }
    let rows = (1u32 << h).wrapping_sub(1) as u16;
    for (k, v) in t16(r).into_iter().enumerate().take(w) {
        // SAFETY: the `h` elements the mask selects of destination row `k < w`: writable
        // and ours (the contract).
        unsafe { _mm512_mask_storeu_epi32(d.add(k * dp).cast(), rows, v) };
    }
}
