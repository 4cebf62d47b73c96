//! XLA FFI handlers written with `layout!` types, which JAX calls under `jax.jit`: build with
//! `cargo build --release -p ffi-kernels`, then from Python
//!
//! ```text
//! k = xlayout.jax.load("target/release/libffi_kernels.so")
//! jax.jit(k.transpose_add)(x, y)
//! ```
//!
//! (`call_from_jax.py` beside this crate runs each one). Every layout is written once, here:
//! the handler checks each call's buffers against it, and Python builds `jax.ffi.ffi_call`'s
//! result shapes and operand layouts from the texts the library exports.

use xlayout::ffi::{self, handler, Error};

handler! {
    /// `x + y`, with `x` read column-major: XLA transposes `x` into that order before the
    /// call (the compiled program shows the copy), `y` and the result are row-major.
    pub fn transpose_add(x: f32[64,32]{0,1}, y: f32[64,32]{1,0}) -> (out: f32[64,32]{1,0}) {
        for i in 0..64 {
            for j in 0..32 {
                out[[i, j]] = x[[i, j]] + y[[i, j]];
            }
        }
        Ok(())
    }
}

handler! {
    /// Each row's sum in f32, its elements added left to right.
    pub fn row_sum(x: bf16[8,256]{1,0}) -> (sums: f32[8]{0}) {
        for i in 0..8 {
            sums[[i]] = sum_left_to_right((0..256).map(|j| widen(x[[i, j]])));
        }
        Ok(())
    }
}

handler! {
    /// [`row_sum()`] for any number of rows: the batch dimension is dynamic (`?`), the result
    /// has as many sums as `x` has rows (`where sums[0] = x[0]`).
    pub fn row_sums(x: bf16[?,256]{1,0}) -> (sums: f32[?]{0}) where sums[0] = x[0] {
        // Row-major: each row is 256 contiguous elements. Eight rows at a time, each summed
        // left to right on its own: eight independent additions a step, not one chain.
        const GROUP: usize = 8;
        let out = sums.as_mut_slice();
        let mut groups = x.as_slice().chunks_exact(GROUP * 256);
        let mut done = 0;
        for group in groups.by_ref() {
            let mut acc = [0f32; GROUP];
            for j in 0..256 {
                for (r, a) in acc.iter_mut().enumerate() {
                    *a += widen(group[r * 256 + j]);
                }
            }
            out[done..done + GROUP].copy_from_slice(&acc);
            done += GROUP;
        }
        for (row, s) in groups.remainder().chunks_exact(256).zip(&mut out[done..]) {
            *s = sum_left_to_right(row.iter().map(|&v| widen(v)));
        }
        Ok(())
    }
}

handler! {
    /// Every element of `x` times the attribute `factor`, for any number of rows.
    pub fn scale(x: f32[?,128]{1,0}, factor: f32) -> (y: f32[?,128]{1,0}) where y[0] = x[0] {
        if !factor.is_finite() {
            return Err(Error::invalid_argument(format!("factor is {factor}: give a finite one")));
        }
        for (out, v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
            *out = v * factor;
        }
        Ok(())
    }
}

handler! {
    /// Row `row` of `x`. A row out of range is a bug this kernel does not guard against:
    /// indexing panics, and the panic reaches Python as an error, not a crash.
    pub fn pick_row(x: f32[8,256]{1,0}, row: i64) -> (out: f32[256]{0}) {
        let row = usize::try_from(row).unwrap_or(usize::MAX);
        for j in 0..256 {
            out[[j]] = x[[row, j]];
        }
        Ok(())
    }
}

handler! {
    /// The least a handler does: what a call into Rust costs, the checks included (the
    /// benchmark's).
    pub fn empty(x: f32[]) -> (y: f32[]) {
        y[[]] = x[[]];
        Ok(())
    }
}

/// A bf16 as the f32 of the same value: its bits moved up 16, as XLA and ml_dtypes widen
/// (`half`'s `to_f32` also quiets a signalling NaN, and its branch keeps loops scalar).
fn widen(v: xlayout::bf16) -> f32 {
    f32::from_bits(u32::from(v.to_bits()) << 16)
}

/// `values` added in order, in f32.
fn sum_left_to_right(values: impl Iterator<Item = f32>) -> f32 {
    values.fold(0.0, |acc, v| acc + v)
}

ffi::export!(transpose_add, row_sum, row_sums, scale, pick_row, empty);
