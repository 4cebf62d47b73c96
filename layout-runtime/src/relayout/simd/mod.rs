//! x86_64 kernels for the moves portable code leaves to scalar instructions (measured in
//! BENCHMARKS.md, "Relayout"): the transposes of 4-byte elements, the row-group
//! interleaves of bytes and 2-byte elements, and the regrouping of packed 4-bit elements.
//! `sse2` has the baseline every x86_64 machine runs; `avx2` the same moves on 32-byte
//! vectors, for machines found to have AVX2 at run time (a [`Avx2`](super::cpu::Avx2)
//! proves it); `groups` the row-group kernels both levels share; `stream` the non-temporal
//! stores all of them (and the plain runs) use. The files import downwards only: `avx2` ->
//! `sse2` -> `groups` -> `stream`.
//!
//! Memory is touched through slices, apart from the non-temporal stores (an aligned pointer
//! is their contract) and the AVX2 transpose's tiles (see there): `bytemuck` turns 16- and
//! 32-byte arrays into vectors and back, and the compiler emits unaligned loads and stores
//! for those.

pub(super) mod avx2;
pub(super) mod groups;
pub(super) mod sse2;
pub(super) mod stream;
