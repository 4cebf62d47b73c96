//! A layout's inverse index program as constant data, and the one function that runs it.
//! This file depends on nothing (no `alloc`, no other module): the macro's test compiles it
//! on its own to check that the optimizer folds it (no division for power-of-two tiles).

/// One step of an [`IndexProgram`](crate::IndexProgram) (and of an [`Inverse`]): straight-line code over registers holding `usize`
/// values. A register never written holds 0.
///
/// ```
/// use layout_runtime::{ArrayShape, IndexStep};
/// let s: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let p = s.plan()?.index_program();
/// assert_eq!(p.steps[0], IndexStep::DivRem { src: 0, quotient: 2, remainder: 3, divisor: 2 });
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexStep {
    /// `regs[quotient] = regs[src] / divisor; regs[remainder] = regs[src] % divisor`
    /// (`divisor` ≥ 1).
    DivRem {
        /// The register divided.
        src: usize,
        /// Where the quotient goes.
        quotient: usize,
        /// Where the remainder goes.
        remainder: usize,
        /// The divisor, a tile size or a dimension size.
        divisor: usize,
    },
    /// `regs[dst] = regs[a] * multiplier + regs[b]`. In an inverse program the position being
    /// decoded is padding unless the result is below `bound`.
    MulAdd {
        /// Where the result goes.
        dst: usize,
        /// The register multiplied.
        a: usize,
        /// The constant factor.
        multiplier: usize,
        /// The register added.
        b: usize,
        /// Inverse programs: the exclusive upper bound of a valid result.
        bound: Option<usize>,
    },
}

/// The inverse index program of a layout as constant data (the runtime plan's, see
/// [`Plan::inverse_program`](crate::Plan::inverse_program)): what [`index_of_program`] runs.
/// One generic function over data instead of a generated function body per layout, for the
/// compiler; the data are constants, so the optimizer unrolls the loops and folds the
/// divisions (shifts and masks for powers of two, as the generated body compiled).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Inverse {
    /// Elements of the tiled grid: an offset at or beyond it is `None`.
    pub grid_len: usize,
    /// The expanded shape whose digits the offset is, most major first.
    pub sizes: &'static [usize],
    /// The register each digit goes to, in the order of `sizes`.
    pub inputs: &'static [usize],
    /// The steps; registers `0..RANK` hold the logical index at the end.
    pub steps: &'static [IndexStep],
}

impl Inverse {
    /// No program: for a layout whose `index_of` is a function of its own.
    pub const NONE: Inverse = Inverse { grid_len: 0, sizes: &[], inputs: &[], steps: &[] };
    /// The most registers a program run by [`index_of_program`] may use; `layout!` writes
    /// the body out for a layout that needs more.
    pub const MAX_REGISTERS: usize = 32;
}

/// The logical index stored at `offset` by the layout whose inverse program is `p`; `None`
/// for padding or beyond the grid (and, never for what `layout!` writes, for a program with
/// more than [`Inverse::MAX_REGISTERS`] registers or fewer than `N` results).
#[doc(hidden)]
#[inline(always)]
pub const fn index_of_program<const N: usize>(p: &Inverse, offset: usize) -> Option<[usize; N]> {
    if offset >= p.grid_len {
        return None;
    }
    let mut regs = [0usize; Inverse::MAX_REGISTERS];
    // Peel the digits from the most minor axis; the most major takes what is left (the
    // offset is below the grid, the product of the sizes).
    let mut rest = offset;
    let mut k = p.sizes.len();
    while k > 0 {
        k -= 1;
        let r = p.inputs[k];
        if r >= Inverse::MAX_REGISTERS {
            return None;
        }
        if k == 0 {
            regs[r] = rest;
        } else {
            regs[r] = rest % p.sizes[k];
            rest /= p.sizes[k];
        }
    }
    // Every range check at once (`|`): the position is padding if any fails.
    let mut padding = false;
    let mut s = 0;
    while s < p.steps.len() {
        match p.steps[s] {
            IndexStep::DivRem { src, quotient, remainder, divisor } => {
                if src >= Inverse::MAX_REGISTERS
                    || quotient >= Inverse::MAX_REGISTERS
                    || remainder >= Inverse::MAX_REGISTERS
                    || divisor == 0
                {
                    return None;
                }
                let v = regs[src];
                regs[quotient] = v / divisor;
                regs[remainder] = v % divisor;
            }
            IndexStep::MulAdd { dst, a, multiplier, b, bound } => {
                if dst >= Inverse::MAX_REGISTERS
                    || a >= Inverse::MAX_REGISTERS
                    || b >= Inverse::MAX_REGISTERS
                {
                    return None;
                }
                let v = regs[a].wrapping_mul(multiplier).wrapping_add(regs[b]);
                regs[dst] = v;
                if let Some(bound) = bound {
                    padding |= v >= bound;
                }
            }
        }
        s += 1;
    }
    if padding || N > Inverse::MAX_REGISTERS {
        return None;
    }
    let mut index = [0usize; N];
    let mut d = 0;
    while d < N {
        index[d] = regs[d];
        d += 1;
    }
    Some(index)
}
