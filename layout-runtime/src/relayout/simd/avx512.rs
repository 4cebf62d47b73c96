//! The AVX-512 kernels: 64-byte vectors, one whole cache line per load and per
//! non-temporal store, for machines found to have AVX-512 F and BW when the plan was built,
//! compiled only where the compiler has the intrinsics (`cfg(xlayout_avx512)`: Rust 1.89).
//!
//! - Runs: [`stream_copy`] and [`stream_gather`], the copies of `stream` with a line in one
//!   store ([`Zmm`]).
//! - Row groups: the kernels of `groups` on `__m512i`, whose 16-bit interleave is two
//!   two-source word permutes (`vpermt2w`, AVX-512 BW) rather than unpacks and a reordering
//!   of the lanes, and whose `(4,1)` byte interleave is byte permutes (`vpermt2b`) where the
//!   CPU has VBMI; the row-pair split back, with the same word permutes.
//!
//! Each public function takes an [`Avx512`], which exists only once `is_x86_feature_detected!`
//! said the CPU runs AVX-512 F and BW (and says whether it runs VBMI), and calls its
//! `#[target_feature]` implementation: that call is the one `unsafe` step, and the token is
//! its justification. Memory moves through slices: each load and store reads or writes a
//! `[u8; 64]` it was handed, through its pointer (the `SAFETY` comments say why each is in
//! bounds).

use core::arch::x86_64::{
    __m512i, _mm512_extracti32x4_epi32, _mm512_loadu_si512, _mm512_permutex2var_epi16,
    _mm512_permutex2var_epi64, _mm512_permutex2var_epi8, _mm512_set1_epi8, _mm512_shuffle_i64x2,
    _mm512_storeu_si512, _mm512_stream_si512,
};

use super::super::cpu::Avx512;
use super::super::geometry::{Rep, Transpose, ONCE};
use super::avx2;
use super::groups::{self, Group, Vector};
use super::sse2::pair_rows;
use super::stream::{copy_lines, gather_lines, put16, whole_lines, Line, LINE};

type V = [u8; 64];

/// A whole cache line in one 64-byte store.
#[derive(Clone, Copy)]
pub(in super::super) struct Zmm;

impl Line for Zmm {
    #[inline(always)]
    unsafe fn line(self, out: &mut [u8; LINE], v: &[u8; LINE]) {
        let x = __m512i::load(v);
        x.store(out, true);
    }
}

/// `dst.copy_from_slice(src)`, every whole cache line of `dst` in one non-temporal store
/// (see `stream::stream_copy`).
pub(in super::super) fn stream_copy(z: Avx512, dst: &mut [u8], src: &[u8]) {
    let _ = z;
    // SAFETY: the implementation needs AVX-512 F, which the `Avx512` token proves the CPU
    // runs (its only constructor checks).
    unsafe { stream_copy_imp(dst, src) }
}

/// # Safety
/// The CPU must run AVX-512 F.
#[target_feature(enable = "avx512f")]
unsafe fn stream_copy_imp(dst: &mut [u8], src: &[u8]) {
    copy_lines(Zmm, dst, src);
}

/// `stream::stream_gather` with every whole line in one non-temporal store: the runs of
/// whole lines (every f32 `T(8,128)` tile, both ways) as a copy.
pub(in super::super) fn stream_gather<'s>(
    z: Avx512,
    dst: &mut [u8],
    run: usize,
    piece: impl Fn(usize) -> &'s [u8],
) {
    let _ = z;
    // SAFETY: as in `stream_copy`: the token proves AVX-512 F.
    unsafe { stream_gather_imp(dst, run, piece) }
}

/// # Safety
/// The CPU must run AVX-512 F.
#[target_feature(enable = "avx512f")]
unsafe fn stream_gather_imp<'s>(dst: &mut [u8], run: usize, piece: impl Fn(usize) -> &'s [u8]) {
    gather_lines(Zmm, dst, run, piece);
}

/// An index table of a two-source permute (`vpermt2w`, `vpermt2b`): entry `k` is `$f` of
/// `k`, the element of the result it picks from the first source (below the element count
/// `$n`) or the second (at or above it).
macro_rules! index_table {
    ($t:ty; $n:literal, |$k:ident| $f:expr) => {{
        let mut t = [0 as $t; $n];
        let mut $k = 0;
        while $k < $n {
            t[$k] = $f as $t;
            $k += 1;
        }
        t
    }};
}

/// `a₀ b₀ a₁ b₁ ..` from the first half of each source, then from the second.
const ZIP_WORDS: [[u16; 32]; 2] = [
    index_table!(u16; 32, |k| k % 2 * 32 + k / 2),
    index_table!(u16; 32, |k| k % 2 * 32 + 16 + k / 2),
];
const ZIP_BYTES: [[u8; 64]; 2] = [
    index_table!(u8; 64, |k| k % 2 * 64 + k / 2),
    index_table!(u8; 64, |k| k % 2 * 64 + 32 + k / 2),
];
/// The even and the odd words of the two sources: the two rows of row pairs.
const UNZIP_WORDS: [[u16; 32]; 2] =
    [index_table!(u16; 32, |k| 2 * k), index_table!(u16; 32, |k| 2 * k + 1)];

/// The 64 bytes of a table as a vector.
///
/// # Safety
/// The CPU must run AVX-512 F.
#[inline(always)]
unsafe fn table<T: bytemuck::Pod>(t: &T) -> __m512i {
    __m512i::load(bytemuck::bytes_of(t))
}

impl Vector for __m512i {
    const BYTES: usize = 64;
    #[inline(always)]
    unsafe fn load(s: &[u8]) -> Self {
        let s: &V = s[..64].try_into().expect("64 bytes");
        // SAFETY: the unaligned load reads 64 bytes from any address, here those of a
        // `[u8; 64]` we hold a shared reference to; it needs AVX-512 F (this trait's
        // contract).
        unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        _mm512_set1_epi8(b as i8)
    }
    #[inline(always)]
    unsafe fn store(self, out: &mut [u8], stream: bool) {
        let out: &mut V = out.try_into().expect("64 bytes");
        let at = out.as_ptr() as usize;
        if stream && at % 64 == 0 {
            // SAFETY: `_mm512_stream_si512` writes 64 bytes through a pointer that must be
            // 64-byte aligned (it faults otherwise) and needs AVX-512 F (this trait's
            // contract): `out` is a `&mut [u8; 64]`, exclusively ours, whose address was
            // just checked.
            #[cfg(not(miri))]
            unsafe {
                _mm512_stream_si512(out.as_mut_ptr().cast(), self)
            }
            // Miri cannot run the non-temporal store (inline assembly in `core::arch`):
            // an aligned typed store with the same preconditions, which Miri checks.
            // SAFETY: as above: `out` is valid for 64 bytes of writes and 64-byte aligned.
            #[cfg(miri)]
            unsafe {
                out.as_mut_ptr().cast::<__m512i>().write(self)
            }
        } else if stream {
            // Four 16-byte quarters: `put16` streams them where they are 16-byte aligned.
            let q = [
                _mm512_extracti32x4_epi32::<0>(self),
                _mm512_extracti32x4_epi32::<1>(self),
                _mm512_extracti32x4_epi32::<2>(self),
                _mm512_extracti32x4_epi32::<3>(self),
            ];
            put16(bytemuck::cast_mut(out), q, true);
        } else {
            // SAFETY: the unaligned store writes 64 bytes to any address, here those of a
            // `[u8; 64]` we hold exclusively; it needs AVX-512 F.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), self) }
        }
    }
    #[inline(always)]
    unsafe fn lanes<const K: usize>(v: [Self; K]) -> [Self; K] {
        let mut out = v;
        if K == 2 {
            // Lane h of piece i is 16-byte quarter h of v[i]: quarters 0 0' 1 1', 2 2' 3 3'.
            let first =
                _mm512_permutex2var_epi64(v[0], table(&[0u64, 1, 8, 9, 2, 3, 10, 11]), v[1]);
            let second =
                _mm512_permutex2var_epi64(v[0], table(&[4u64, 5, 12, 13, 6, 7, 14, 15]), v[1]);
            (out[0], out[1]) = (first, second);
            return out;
        }
        // Four vectors at a time: a 4×4 transpose of their quarters, each result the same
        // quarter of the four; results of group `s` go to `out[K/4·h + s]`.
        for s in 0..K / 4 {
            let (a, b, c, d) = (v[4 * s], v[4 * s + 1], v[4 * s + 2], v[4 * s + 3]);
            let (ab02, ab13) =
                (_mm512_shuffle_i64x2::<0x44>(a, b), _mm512_shuffle_i64x2::<0xEE>(a, b));
            let (cd02, cd13) =
                (_mm512_shuffle_i64x2::<0x44>(c, d), _mm512_shuffle_i64x2::<0xEE>(c, d));
            let quarters = [
                _mm512_shuffle_i64x2::<0x88>(ab02, cd02),
                _mm512_shuffle_i64x2::<0xDD>(ab02, cd02),
                _mm512_shuffle_i64x2::<0x88>(ab13, cd13),
                _mm512_shuffle_i64x2::<0xDD>(ab13, cd13),
            ];
            for (h, q) in quarters.into_iter().enumerate() {
                out[K / 4 * h + s] = q;
            }
        }
        out
    }
    #[inline(always)]
    unsafe fn zip16(a: Self, b: Self) -> [Self; 2] {
        [
            _mm512_permutex2var_epi16(a, table(&ZIP_WORDS[0]), b),
            _mm512_permutex2var_epi16(a, table(&ZIP_WORDS[1]), b),
        ]
    }
    #[inline(always)]
    unsafe fn zip8x4<const VBMI: bool>(r: [Self; 4]) -> [Self; 4] {
        if !VBMI {
            return groups::zip8x4_unpacks(r);
        }
        // Byte pairs of rows 0 and 1, and of rows 2 and 3 (VBMI), then pairs of those pairs.
        let (z0, z1) = (table(&ZIP_BYTES[0]), table(&ZIP_BYTES[1]));
        let ab =
            [_mm512_permutex2var_epi8(r[0], z0, r[1]), _mm512_permutex2var_epi8(r[0], z1, r[1])];
        let cd =
            [_mm512_permutex2var_epi8(r[2], z0, r[3]), _mm512_permutex2var_epi8(r[2], z1, r[3])];
        let ([o0, o1], [o2, o3]) = (Self::zip16(ab[0], cd[0]), Self::zip16(ab[1], cd[1]));
        [o0, o1, o2, o3]
    }
}

/// The row-group kernel `G` on 64-byte vectors (`src`, `dst` in bytes, `t` in elements),
/// for `t` and its `rep` copies; tiles narrower than a vector go to the AVX2 one.
pub(in super::super) fn groups<G: Group>(
    z: Avx512,
    src: &[u8],
    dst: &mut [u8],
    t: Transpose,
    rep: Rep,
    stream: bool,
) {
    if z.vbmi() {
        // SAFETY: the implementation needs AVX-512 F, BW and VBMI, which the token proves.
        unsafe { groups_vbmi::<G>(z, src, dst, t, rep, stream) }
    } else {
        // SAFETY: the implementation needs AVX-512 F and BW, which the token proves.
        unsafe { groups_bw::<G>(z, src, dst, t, rep, stream) }
    }
}

/// The row-group kernels compiled for a set of target features (one function each: the
/// features are part of a function's type, not a parameter), tiles narrower than a vector
/// going to the AVX2 kernel.
macro_rules! groups_with {
    ($name:ident, $features:literal, $vbmi:literal) => {
        /// # Safety
        /// The CPU must run the features the function is compiled with.
        #[target_feature(enable = $features)]
        unsafe fn $name<G: Group>(
            z: Avx512,
            src: &[u8],
            dst: &mut [u8],
            t: Transpose,
            rep: Rep,
            stream: bool,
        ) {
            let lower = |s: &[u8], d: &mut [u8], p, stream| {
                avx2::groups::<G>(z.avx2(), s, d, p, ONCE, stream)
            };
            groups::run::<__m512i, G, $vbmi>(src, dst, t, rep, stream, lower)
        }
    };
}

groups_with!(groups_bw, "avx512f,avx512bw", false);
groups_with!(groups_vbmi, "avx512f,avx512bw,avx512vbmi", true);

/// Row pairs of 2-byte elements back into two rows: element `r` of pair `i` goes to
/// `dst[t.dst + r·dst_row_stride + i]`, for `t` and its `rep` copies, 32 columns at a time
/// (the even and the odd words of two vectors, one word permute each); the rest as `avx2`
/// does it.
pub(in super::super) fn deinterleave_u16x2(
    z: Avx512,
    src: &[[u8; 2]],
    dst: &mut [[u8; 2]],
    t: Transpose,
    rep: Rep,
    stream: bool,
) {
    // SAFETY: the implementation needs AVX-512 F and BW, which the token proves.
    unsafe { deinterleave_u16x2_imp(z, src, dst, t, rep, stream) }
}

/// # Safety
/// The CPU must run AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn deinterleave_u16x2_imp(
    z: Avx512,
    src: &[[u8; 2]],
    dst: &mut [[u8; 2]],
    t: Transpose,
    rep: Rep,
    stream: bool,
) {
    let n = t.rows - t.rows % 32;
    let (even, odd) = (table(&UNZIP_WORDS[0]), table(&UNZIP_WORDS[1]));
    for p in t.repeat(rep) {
        let (words, r0, r1) = pair_rows::<V>(src, dst, p, n);
        let lines = [whole_lines(bytemuck::cast_slice(r0)), whole_lines(bytemuck::cast_slice(r1))];
        // Each row's piece whole, then the other's (see `avx2::deinterleave_u16x2`); the
        // vectors that lie in whole lines of it streamed, the others stored.
        for (r, out) in [r0, r1].into_iter().enumerate() {
            let which = if r == 0 { even } else { odd };
            for (k, (w, o)) in words.iter().zip(out).enumerate() {
                let (a, b) = (__m512i::load(&w[0]), __m512i::load(&w[1]));
                let v = _mm512_permutex2var_epi16(a, which, b);
                v.store(o, stream && lines[r].contains(&(64 * k)) && 64 * k + 64 <= lines[r].end);
            }
        }
        if n < p.rows {
            // The last columns, where there are some: the empty call to the AVX2 kernel
            // per tile (and its own to SSE2's) cost 0.55 against 0.72 of a copy on the bf16
            // `T(8,128)(2,1)` case, a tile's 256-byte rows taking about 120 cycles.
            let rest = p.part(n, 0, p.rows - n, 2);
            avx2::deinterleave_u16x2(z.avx2(), src, dst, rest, ONCE, stream);
        }
    }
}
