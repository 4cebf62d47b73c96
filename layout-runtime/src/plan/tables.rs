//! Tabulated offsets: with no `*` merge every axis of the expanded space depends on one
//! logical dimension, so `offset(i) = Σ_d f_d(i_d)`, and each `f_d` fits in a table. One load
//! and add per dimension replaces the divisions of the index program.

use alloc::vec::Vec;

use super::program::{Op, Program};

/// Tables of at most this many entries in all are built (8 bytes each); larger shapes
/// evaluate the index program instead.
pub(crate) const TABLE_LIMIT: usize = 1 << 16;

/// The offset map of a separable layout, tabulated: `f_d(x)` (the offset of `x` along
/// dimension `d`, all others 0) is stored at `values[start[d] + x]`.
#[derive(Clone, Debug)]
pub(crate) struct Tables {
    start: Vec<usize>,
    values: Vec<usize>,
}

impl Tables {
    /// `f_d(x)`; some number, never a panic, when `x` is out of range.
    #[inline(always)]
    pub fn term(&self, d: usize, x: usize) -> usize {
        let at = self.start.get(d).map_or(usize::MAX, |&s| s.wrapping_add(x));
        self.values.get(at).copied().unwrap_or(0)
    }

    /// The tables of the map of a tiled layout of dimensions `dims` whose `forward` program
    /// gives `offset`, when it is separable (only divisions, no merges) and small enough;
    /// `None` otherwise.
    pub fn build(
        dims: &[usize],
        forward: &Program,
        offset: impl Fn(&[usize]) -> usize,
    ) -> Option<Tables> {
        let separable = forward.ops.iter().all(|op| matches!(op, Op::DivRem { .. }));
        let len = dims.iter().try_fold(0usize, |n, &d| n.checked_add(d));
        if !separable || !len.is_some_and(|n| n <= TABLE_LIMIT) {
            return None;
        }
        let mut start = Vec::with_capacity(dims.len());
        let mut values = Vec::with_capacity(len.unwrap_or(0));
        let mut index = alloc::vec![0; dims.len()];
        for d in 0..dims.len() {
            start.push(values.len());
            for x in 0..dims[d] {
                index[d] = x;
                values.push(offset(&index));
            }
            index[d] = 0;
        }
        Some(Tables { start, values })
    }
}
