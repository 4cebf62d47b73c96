//! Finds out whether this compiler has the AVX-512 intrinsics, which the relayout kernels of
//! `relayout/simd/avx512.rs` need: `core::arch`'s AVX-512 functions are stable from Rust 1.89,
//! and the workspace's `rust-version` is older. Where they are (x86_64 with Rust 1.89 or
//! later), the build gets `--cfg xlayout_avx512`; elsewhere the AVX-512 level is compiled out
//! and `Simd::Avx512` is never supported. The probe compiles a use of one intrinsic for the
//! target being built, so a cross build asks the right question.

fn main() {
    let mut ac = autocfg::new();
    // The crate's edition, where `core::` paths resolve without `extern crate`.
    ac.set_edition(Some(String::from("2021")));
    // VBMI's byte permute: the newest of the intrinsics the kernels use.
    ac.emit_path_cfg("core::arch::x86_64::_mm512_permutex2var_epi8", "xlayout_avx512");
    autocfg::rerun_path("build.rs");
}
