//! x86_64 kernels for the moves portable code leaves to scalar instructions (measured in
//! BENCHMARKS.md, "Relayout"): the transposes of 4-byte elements, the row-group
//! interleaves of bytes and 2-byte elements, and the regrouping of packed 4-bit elements.
//! `sse2` has the baseline every x86_64 machine runs; `avx2` the same moves on 32-byte
//! vectors, for machines found to have AVX2 at run time (a [`Avx2`](super::cpu::Avx2)
//! proves it); `avx512` on 64-byte vectors, a whole cache line each, with permutes across
//! the vector, and `transpose16` its transpose (an [`Avx512`](super::cpu::Avx512) proves
//! AVX-512 F and BW, and says whether VBMI is there; both files are compiled only by Rust
//! 1.89 or later, `cfg(xlayout_avx512)`); `groups` the row-group kernels the levels share;
//! `stream` the non-temporal stores all of them (and the plain runs) use. The files import
//! downwards only: `avx512` and `transpose16` -> `avx2` -> `sse2` -> `groups` -> `stream`.
//!
//! Memory is touched through slices, apart from the non-temporal stores (an aligned pointer
//! is their contract), the AVX-512 loads and stores (of `[u8; 64]`s, or masked) and the
//! transposes' tiles (see there): `bytemuck` turns 16- and 32-byte arrays into vectors and
//! back, and the compiler emits unaligned loads and stores for those.

pub(super) mod avx2;
// Compiled only where `build.rs` found the AVX-512 intrinsics (Rust 1.89 on): clippy's
// check against the workspace's older rust-version does not apply.
#[cfg(xlayout_avx512)]
#[allow(clippy::incompatible_msrv)]
pub(super) mod avx512;
pub(super) mod groups;
pub(super) mod sse2;
pub(super) mod stream;
// Compiled only where `build.rs` found the AVX-512 intrinsics (Rust 1.89 on): clippy's
// check against the workspace's older rust-version does not apply.
#[cfg(xlayout_avx512)]
#[allow(clippy::incompatible_msrv)]
pub(super) mod transpose16;

#[cfg(all(test, xlayout_avx512, feature = "std"))]
#[allow(clippy::incompatible_msrv)]
mod tests;
