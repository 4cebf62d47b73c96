//! The row-group kernels both SIMD levels share, written once over a [`Vector`]: 16-byte
//! SSE2 vectors or 32-byte AVX2 ones. AVX2 shuffles work within each 16-byte half (lane)
//! of a vector, so a kernel computes in lane `h` what SSE2 computes for the `h`-th 16
//! source bytes, and [`Vector::lanes`] puts the halves in memory order at the end.
//!
//! Each kernel moves a [`Transpose`] and its `rep` copies (the innermost loop of the block,
//! run here rather than around a call per tile), whole: tiles narrower than a vector go to
//! the narrower level (`lower`), the last chunk of a wider one overlaps the one before it.

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_castsi256_si128,
    _mm256_extracti128_si256, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_slli_epi16,
    _mm256_srli_epi16, _mm256_unpackhi_epi16, _mm256_unpackhi_epi32, _mm256_unpackhi_epi8,
    _mm256_unpacklo_epi16, _mm256_unpacklo_epi32, _mm256_unpacklo_epi8, _mm_and_si128,
    _mm_andnot_si128, _mm_or_si128, _mm_slli_epi16, _mm_srli_epi16, _mm_unpackhi_epi16,
    _mm_unpackhi_epi32, _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32,
    _mm_unpacklo_epi8,
};

#[cfg(xlayout_avx512)]
use core::arch::x86_64::{
    _mm512_and_si512, _mm512_andnot_si512, _mm512_or_si512, _mm512_slli_epi16, _mm512_srli_epi16,
    _mm512_unpackhi_epi16, _mm512_unpackhi_epi32, _mm512_unpackhi_epi8, _mm512_unpacklo_epi16,
    _mm512_unpacklo_epi32, _mm512_unpacklo_epi8,
};

use super::super::geometry::{Rep, Transpose};
use super::super::spread::spread;
use super::stream::put16;

/// Writes one tile's output `out`, `y` columns of `w` bytes, running `body` with `col`,
/// `piece` and `nt` bound for each chunk of `cols` columns (`y >= cols`): the `cols`
/// columns from `col` go to `piece`, streamed when `nt`. Whole chunks, then one that ends
/// at the last column (overlapping the one before it: the same values are written twice,
/// never past the tile). A macro rather than a function taking a closure: a closure is not
/// compiled with the AVX2 kernel's target features, and one the optimizer left out of line
/// would make every intrinsic in it a call.
macro_rules! columns {
    ($out:expr, $y:expr, $cols:expr, $w:expr, $stream:expr, |$col:ident, $piece:ident, $nt:ident| $body:block) => {{
        let (out, y, cols, w): (&mut [u8], usize, usize, usize) = ($out, $y, $cols, $w);
        let n = y / cols * cols;
        for (k, $piece) in out[..n * w].chunks_exact_mut(cols * w).enumerate() {
            let ($col, $nt) = (k * cols, $stream);
            $body
        }
        if n < y {
            let ($col, $piece, $nt) = (y - cols, &mut out[(y - cols) * w..y * w], $stream);
            $body
        }
    }};
}

/// A SIMD vector of the kernels: what they compute with, lane by lane.
///
/// # Safety
/// Every method needs the CPU to run the vector's instruction set: SSE2 for `__m128i`
/// (every x86_64 target), AVX2 for `__m256i`, AVX-512 F and BW for `__m512i`. Callers are
/// `unsafe fn`s with the same contract, entered from a function that holds the proof (see
/// `avx2`, `avx512`).
pub(in super::super) trait Vector: Lanewise {
    /// Bytes in the vector.
    const BYTES: usize;
    /// The first `BYTES` bytes of `s`, any alignment.
    unsafe fn load(s: &[u8]) -> Self;
    /// `b` in every byte.
    unsafe fn splat(b: u8) -> Self;
    /// Writes the vector to `out` (`BYTES` bytes): a non-temporal store when `stream` and
    /// the instruction's alignment allows, a plain one otherwise.
    unsafe fn store(self, out: &mut [u8], stream: bool);
    /// `v[i]` holds in lane `h` output piece `(h, i)`; returns the pieces in memory order
    /// `(0, 0), (0, 1), .., (1, 0), ..`, packed into vectors (`K` even for AVX2; 2 or a
    /// multiple of 4 for AVX-512).
    unsafe fn lanes<const K: usize>(v: [Self; K]) -> [Self; K];
    /// The 2-byte elements of `a` and `b` interleaved (`a₀ b₀ a₁ b₁ ..`), in memory order.
    #[inline(always)]
    unsafe fn zip16(a: Self, b: Self) -> [Self; 2] {
        Self::lanes([a.unpacklo16(b), a.unpackhi16(b)])
    }
    /// The bytes of four rows interleaved (`r₀[0] r₁[0] r₂[0] r₃[0] r₀[1] ..`), in memory
    /// order; `VBMI`: the CPU runs AVX-512 VBMI (only `__m512i` reads it).
    #[inline(always)]
    unsafe fn zip8x4<const VBMI: bool>(r: [Self; 4]) -> [Self; 4] {
        zip8x4_unpacks(r)
    }
}

/// [`Vector::zip8x4`] with two rounds of unpacks within lanes, then one reordering of them.
#[inline(always)]
pub(super) unsafe fn zip8x4_unpacks<V: Vector>(r: [V; 4]) -> [V; 4] {
    let (ab0, ab1) = (r[0].unpacklo8(r[1]), r[0].unpackhi8(r[1]));
    let (cd0, cd1) = (r[2].unpacklo8(r[3]), r[2].unpackhi8(r[3]));
    V::lanes([ab0.unpacklo16(cd0), ab0.unpackhi16(cd0), ab1.unpacklo16(cd1), ab1.unpackhi16(cd1)])
}

/// The lane-wise operations of [`Vector`], one intrinsic each at each width, written as
/// one table (the AVX-512 column only where the compiler has it: `cfg(xlayout_avx512)`).
macro_rules! lanewise {
    ($($name:ident($($arg:ident),*) = $f128:path, $f256:path, $f512:path;)*) => {
        /// What the kernels compute with, lane by lane (see [`Vector`] for the contract).
        pub(in super::super) trait Lanewise: Copy {
            $(unsafe fn $name(self $(, $arg: Self)*) -> Self;)*
        }

        impl Lanewise for __m128i {
            $(
                #[inline(always)]
                unsafe fn $name(self $(, $arg: Self)*) -> Self {
                    $f128(self $(, $arg)*)
                }
            )*
        }

        impl Lanewise for __m256i {
            $(
                #[inline(always)]
                unsafe fn $name(self $(, $arg: Self)*) -> Self {
                    $f256(self $(, $arg)*)
                }
            )*
        }

        #[cfg(xlayout_avx512)]
        #[allow(clippy::incompatible_msrv)] // only where `build.rs` found the intrinsics
        impl Lanewise for core::arch::x86_64::__m512i {
            $(
                #[inline(always)]
                unsafe fn $name(self $(, $arg: Self)*) -> Self {
                    $f512(self $(, $arg)*)
                }
            )*
        }
    };
}

lanewise! {
    and(o) = _mm_and_si128, _mm256_and_si256, _mm512_and_si512;
    andnot(o) = _mm_andnot_si128, _mm256_andnot_si256, _mm512_andnot_si512;
    or(o) = _mm_or_si128, _mm256_or_si256, _mm512_or_si512;
    shl16_4() = _mm_slli_epi16::<4>, _mm256_slli_epi16::<4>, _mm512_slli_epi16::<4>;
    shr16_4() = _mm_srli_epi16::<4>, _mm256_srli_epi16::<4>, _mm512_srli_epi16::<4>;
    unpacklo8(o) = _mm_unpacklo_epi8, _mm256_unpacklo_epi8, _mm512_unpacklo_epi8;
    unpackhi8(o) = _mm_unpackhi_epi8, _mm256_unpackhi_epi8, _mm512_unpackhi_epi8;
    unpacklo16(o) = _mm_unpacklo_epi16, _mm256_unpacklo_epi16, _mm512_unpacklo_epi16;
    unpackhi16(o) = _mm_unpackhi_epi16, _mm256_unpackhi_epi16, _mm512_unpackhi_epi16;
    unpacklo32(o) = _mm_unpacklo_epi32, _mm256_unpacklo_epi32, _mm512_unpacklo_epi32;
    unpackhi32(o) = _mm_unpackhi_epi32, _mm256_unpackhi_epi32, _mm512_unpackhi_epi32;
}

impl Vector for __m128i {
    const BYTES: usize = 16;
    #[inline(always)]
    unsafe fn load(s: &[u8]) -> Self {
        bytemuck::pod_read_unaligned(&s[..16])
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        bytemuck::cast([b; 16])
    }
    #[inline(always)]
    unsafe fn store(self, out: &mut [u8], stream: bool) {
        let out: &mut [u8; 16] = out.try_into().expect("16 bytes");
        put16(core::array::from_mut(out), [self], stream);
    }
    #[inline(always)]
    unsafe fn lanes<const K: usize>(v: [Self; K]) -> [Self; K] {
        v // one lane: already in order
    }
}

impl Vector for __m256i {
    const BYTES: usize = 32;
    #[inline(always)]
    unsafe fn load(s: &[u8]) -> Self {
        bytemuck::pod_read_unaligned(&s[..32])
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        bytemuck::cast([b; 32])
    }
    #[inline(always)]
    unsafe fn store(self, out: &mut [u8], stream: bool) {
        let out: &mut [u8; 32] = out.try_into().expect("32 bytes");
        let at = out.as_ptr() as usize;
        if stream && at % 32 == 0 {
            // SAFETY: `_mm256_stream_si256` needs AVX (part of AVX2, which this method's
            // contract requires) and a pointer valid for 32 bytes of writes, 32-byte
            // aligned: `out` is a `&mut [u8; 32]` whose address was just checked.
            #[cfg(not(miri))]
            unsafe {
                core::arch::x86_64::_mm256_stream_si256(out.as_mut_ptr().cast::<__m256i>(), self)
            }
            // Miri cannot run the non-temporal store (inline assembly in `core::arch`):
            // an aligned typed store with the same preconditions, which Miri checks.
            // SAFETY: as above: `out` is valid for 32 bytes of writes and 32-byte aligned.
            #[cfg(miri)]
            unsafe {
                out.as_mut_ptr().cast::<__m256i>().write(self)
            }
        } else if stream {
            // Two 16-byte halves: `put16` streams them if they are 16-byte aligned.
            let halves = [_mm256_castsi256_si128(self), _mm256_extracti128_si256(self, 1)];
            put16(bytemuck::cast_mut(out), halves, true);
        } else {
            *out = bytemuck::cast(self);
        }
    }
    #[inline(always)]
    unsafe fn lanes<const K: usize>(v: [Self; K]) -> [Self; K] {
        // Lane 0 of the pieces first, then lane 1: pairs of consecutive vectors give one
        // vector of each.
        let mut out = v;
        for j in 0..K / 2 {
            out[j] = _mm256_permute2x128_si256(v[2 * j], v[2 * j + 1], 0x20);
            out[K / 2 + j] = _mm256_permute2x128_si256(v[2 * j], v[2 * j + 1], 0x31);
        }
        out
    }
}

/// The low nibbles of `x` and `y` (`nib`: `0x0F` in every byte) in one byte: `y`'s high.
#[inline(always)]
unsafe fn lo<V: Vector>(x: V, y: V, nib: V) -> V {
    x.and(nib).or(y.and(nib).shl16_4())
}

/// The high nibbles of `x` and `y` in one byte: `y`'s high.
#[inline(always)]
unsafe fn hi<V: Vector>(x: V, y: V, nib: V) -> V {
    x.shr16_4().and(nib).or(nib.andnot(y))
}

/// A round of unpacks of `BITS`-bit elements: for each pair `(i, j)` in turn, the low and
/// the high halves of `x[i]` and `x[j]` interleaved.
#[inline(always)]
unsafe fn unpack<V: Lanewise, const BITS: usize>(x: [V; 8], pairs: [(usize, usize); 4]) -> [V; 8] {
    let mut out = x;
    for (k, (i, j)) in pairs.into_iter().enumerate() {
        let (lo, hi) = match BITS {
            8 => (x[i].unpacklo8(x[j]), x[i].unpackhi8(x[j])),
            16 => (x[i].unpacklo16(x[j]), x[i].unpackhi16(x[j])),
            _ => (x[i].unpacklo32(x[j]), x[i].unpackhi32(x[j])),
        };
        (out[2 * k], out[2 * k + 1]) = (lo, hi);
    }
    out
}

/// Writes each vector of `v` to its `BYTES`-byte piece of `out`.
#[inline(always)]
unsafe fn store_all<V: Vector, const K: usize>(out: &mut [u8], v: [V; K], stream: bool) {
    for (piece, v) in out.chunks_exact_mut(V::BYTES).zip(v) {
        v.store(piece, stream);
    }
}

/// One row-group kernel: a [`Transpose`] of `X` source rows of `E`-byte elements into one
/// run of `X`-element groups (`dst_row_stride == rows`), a vector of each row at a time.
pub(in super::super) trait Group {
    /// Bytes per element.
    const E: usize;
    /// Source rows: elements per group.
    const X: usize;
    /// Writes to `piece` the output of the columns from byte `at` of each row (a vector's
    /// worth), streamed when `nt`.
    ///
    /// # Safety
    /// The CPU must run `V`'s instruction set, and VBMI if `VBMI`.
    unsafe fn chunk<V: Vector, const VBMI: bool>(
        rows: &[&[u8]; 8],
        at: usize,
        piece: &mut [u8],
        nt: bool,
    );
    /// Moves one tile too narrow for any vector, without them (`src`, `dst` in bytes).
    fn scalar(src: &[u8], dst: &mut [u8], p: Transpose);
}

/// Moves `t` and its `rep` copies (`src`, `dst` in bytes, `t` in elements) with `G`'s
/// chunks on `V`s, tiles narrower than a vector with `lower`.
///
/// # Safety
/// The CPU must run `V`'s instruction set, and VBMI if `VBMI`.
#[inline(always)]
pub(super) unsafe fn run<V: Vector, G: Group, const VBMI: bool>(
    src: &[u8],
    dst: &mut [u8],
    t: Transpose,
    rep: Rep,
    stream: bool,
    lower: impl Fn(&[u8], &mut [u8], Transpose, bool),
) {
    let (e, cols) = (G::E, V::BYTES / G::E);
    for p in t.repeat(rep) {
        if p.cols < cols {
            lower(src, dst, p, stream);
            continue;
        }
        let row = |r: usize| {
            if r < G::X {
                &src[e * (p.src + r * p.src_row_stride)..][..e * p.cols]
            } else {
                &[]
            }
        };
        let rows = [row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)];
        let out = &mut dst[e * p.dst..][..e * G::X * p.cols];
        columns!(out, p.cols, cols, e * G::X, stream, |col, piece, nt| {
            G::chunk::<V, VBMI>(&rows, e * col, piece, nt);
        });
    }
}

/// The `(4,1)` groups of 1-byte elements: element `j` of source row `r` goes to byte
/// `4j + r` of the output, two rounds of unpacks.
pub(in super::super) struct U8x4;

impl Group for U8x4 {
    const E: usize = 1;
    const X: usize = 4;
    #[inline(always)]
    unsafe fn chunk<V: Vector, const VBMI: bool>(
        rows: &[&[u8]; 8],
        at: usize,
        piece: &mut [u8],
        nt: bool,
    ) {
        // Written out, not `rows.map(..)`: the optimizer left that as a call per 16
        // columns, 40% of the run time in a profile of the s8 (4,1) case.
        let r = [
            V::load(&rows[0][at..]),
            V::load(&rows[1][at..]),
            V::load(&rows[2][at..]),
            V::load(&rows[3][at..]),
        ];
        store_all(piece, V::zip8x4::<VBMI>(r), nt);
    }
    fn scalar(src: &[u8], dst: &mut [u8], p: Transpose) {
        p.scalar(src, dst);
    }
}

/// The `(2,1)` row pairs of 2-byte elements (bf16): element `j` of source row `r` goes to
/// element `2j + r` of the output.
pub(in super::super) struct U16x2;

impl Group for U16x2 {
    const E: usize = 2;
    const X: usize = 2;
    #[inline(always)]
    unsafe fn chunk<V: Vector, const VBMI: bool>(
        rows: &[&[u8]; 8],
        at: usize,
        piece: &mut [u8],
        nt: bool,
    ) {
        let (a, b) = (V::load(&rows[0][at..]), V::load(&rows[1][at..]));
        store_all(piece, V::zip16(a, b), nt);
    }
    fn scalar(src: &[u8], dst: &mut [u8], p: Transpose) {
        p.scalar::<[u8; 2]>(bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst));
    }
}

/// Eight rows of packed 4-bit elements into `(8,1)` groups, in bytes: `t` has `rows = 8` rows
/// of `cols` bytes and writes `8·cols` bytes. Byte `j` of each row holds elements `2j` (low nibble)
/// and `2j + 1`; output group `2j` (4 bytes) holds element `2j` of rows 0..8, nibble `r` for
/// row `r`, and group `2j + 1` the high nibbles.
///
/// First the nibbles of row pairs merge into bytes: `P_k = lo(row 2k) | lo(row 2k+1) << 4`
/// and `Q_k` likewise for the high nibbles; then output group pair `j` is byte `j` of
/// `P_0..P_3, Q_0..Q_3` in order, which is an 8×16 byte transpose: three rounds of unpacks.
pub(in super::super) struct Nibbles8;

impl Group for Nibbles8 {
    const E: usize = 1;
    const X: usize = 8;
    #[inline(always)]
    unsafe fn chunk<V: Vector, const VBMI: bool>(
        rows: &[&[u8]; 8],
        at: usize,
        piece: &mut [u8],
        nt: bool,
    ) {
        let r: [V; 8] = [
            V::load(&rows[0][at..]),
            V::load(&rows[1][at..]),
            V::load(&rows[2][at..]),
            V::load(&rows[3][at..]),
            V::load(&rows[4][at..]),
            V::load(&rows[5][at..]),
            V::load(&rows[6][at..]),
            V::load(&rows[7][at..]),
        ];
        let nib = V::splat(0x0F);
        let p = [
            lo(r[0], r[1], nib),
            lo(r[2], r[3], nib),
            lo(r[4], r[5], nib),
            lo(r[6], r[7], nib),
            hi(r[0], r[1], nib),
            hi(r[2], r[3], nib),
            hi(r[4], r[5], nib),
            hi(r[6], r[7], nib),
        ];
        // a[2m + h]: bytes of p[2m], p[2m+1] interleaved, columns 8h..8h+8 of each 16;
        // b[4g + n]: p[4g..4g+4] for columns 4n..4n+4; w[q]: columns 2q and 2q + 1, bytes
        // of p[0..8] each.
        let a = unpack::<V, 8>(p, [(0, 1), (2, 3), (4, 5), (6, 7)]);
        let b = unpack::<V, 16>(a, [(0, 2), (1, 3), (4, 6), (5, 7)]);
        let w = unpack::<V, 32>(b, [(0, 4), (1, 5), (2, 6), (3, 7)]);
        store_all(piece, V::lanes(w), nt);
    }
    fn scalar(src: &[u8], dst: &mut [u8], p: Transpose) {
        spread(4, 8, src, dst, p);
    }
}
