//! The index program: the tile tree as straight-line code over registers, in both directions.
//!
//! One vocabulary throughout, the public one of [`IndexStep`]: a `DivRem` divides a register
//! by a constant, a `MulAdd` multiplies one by a constant and adds another. The forward
//! program (logical index to offset) turns a split into a `DivRem` and a merge into a
//! `MulAdd`; the inverse program (offset digits to logical index) runs the tree backwards, so
//! a split becomes a `MulAdd` whose result must stay below the dimension's size (or the
//! position is padding) and a merge a `DivRem`.

use alloc::vec;
use alloc::vec::Vec;

use super::build::{Reg, Space, Step};
use crate::{Divider, IndexStep};

/// Register files up to this size live on the stack in `offset` and `index_of`.
pub(crate) const INLINE_REGS: usize = 48;

/// One step of the internal program: [`IndexStep`] with compact registers and a
/// precomputed divider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// `regs[dst] = regs[a] * multiplier + regs[b]`; in the inverse program the position is
    /// padding unless `regs[dst] < bound` (`usize::MAX` in the forward program: no check).
    MulAdd { dst: Reg, a: Reg, multiplier: usize, b: Reg, bound: usize },
    /// `(regs[quotient], regs[remainder]) = (regs[src] / d, regs[src] % d)`.
    DivRem { src: Reg, quotient: Reg, remainder: Reg, div: Divider },
}

/// A straight-line program over registers, ordered for incremental (odometer) evaluation.
///
/// Each op depends on some inputs; its `dep` is the last of them. The ops are sorted by
/// `dep` (stably, constants first), which keeps every op after the ops it reads (an op reads
/// only registers of inputs at or before its own `dep`), so when input `j` steps and every
/// later input resets, exactly the suffix `ops[first_affected[j]..]` reruns. Memory is
/// linear in the program, whatever the rank.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub ops: Vec<Op>,
    /// The registers the inputs are written to, in input order.
    pub inputs: Vec<Reg>,
    /// The odometer radix of each input.
    pub radices: Vec<usize>,
    /// `first_affected[j]`: the first op that depends on an input `>= j`.
    pub first_affected: Vec<usize>,
}

impl Program {
    fn new(ops: Vec<Op>, inputs: Vec<Reg>, radices: Vec<usize>, nregs: usize) -> Program {
        // dep[r]: the largest input index r depends on (None: a constant).
        let mut dep: Vec<Option<usize>> = vec![None; nregs];
        for (j, &r) in inputs.iter().enumerate() {
            dep[r as usize] = Some(j);
        }
        let mut keyed: Vec<(Option<usize>, Op)> = Vec::with_capacity(ops.len());
        for op in ops {
            let d = match op {
                Op::MulAdd { dst, a, b, .. } => {
                    let d = dep[a as usize].max(dep[b as usize]);
                    dep[dst as usize] = d;
                    d
                }
                Op::DivRem { src, quotient, remainder, .. } => {
                    let d = dep[src as usize];
                    dep[quotient as usize] = d;
                    dep[remainder as usize] = d;
                    d
                }
            };
            keyed.push((d, op));
        }
        keyed.sort_by_key(|&(d, _)| d); // stable: program order within one dep
        let first_affected = (0..inputs.len())
            .map(|j| keyed.partition_point(|&(d, _)| !matches!(d, Some(d) if d >= j)))
            .collect();
        let ops = keyed.into_iter().map(|(_, op)| op).collect();
        Program { ops, inputs, radices, first_affected }
    }

    /// The ops to rerun when input `j` steps.
    #[inline(always)]
    pub fn affected(&self, j: usize) -> core::ops::Range<usize> {
        self.first_affected[j]..self.ops.len()
    }
}

/// Runs `f` with a zeroed register file of `n` registers (on the stack when small; the
/// smallest fitting buffer, since zeroing it is part of the per-call cost).
#[inline]
pub(crate) fn with_regs<R>(n: usize, f: impl FnOnce(&mut [usize]) -> R) -> R {
    if n <= 16 {
        let mut buf = [0usize; 16];
        f(&mut buf[..n])
    } else if n <= INLINE_REGS {
        let mut buf = [0usize; INLINE_REGS];
        f(&mut buf[..n])
    } else {
        f(&mut vec![0usize; n])
    }
}

/// Runs one op on a register file (wrapping arithmetic: never a panic); `false` when an
/// inverse program's range check fails (the position is padding).
#[inline(always)]
pub(crate) fn exec(op: &Op, regs: &mut [usize]) -> bool {
    match *op {
        Op::MulAdd { dst, a, multiplier, b, bound } => {
            let v = regs[a as usize].wrapping_mul(multiplier).wrapping_add(regs[b as usize]);
            regs[dst as usize] = v;
            v < bound
        }
        Op::DivRem { src, quotient, remainder, div } => {
            let (q, m) = div.div_rem(regs[src as usize]);
            regs[quotient as usize] = q;
            regs[remainder as usize] = m;
            true
        }
    }
}

/// The forward program with trivial steps folded away: a split whose tile covers the whole
/// dimension is an alias (count 0, in-tile index = the index), a split by 1 likewise; a merge
/// with a zero major part is an alias. Register `nregs - 1` is the constant 0. Returns the
/// program, its outputs `(register, stride)` and the stride of every register (0 when not
/// an output).
pub(crate) fn build_forward(space: &Space) -> (Program, Vec<(Reg, usize)>, Vec<usize>) {
    let sizes = &space.sizes;
    let nregs = space.registers();
    let zero = (nregs - 1) as Reg;
    let mut alias: Vec<Reg> = (0..nregs as Reg).collect();
    for &p in &space.prepended {
        alias[p as usize] = zero;
    }
    let mut ops = Vec::new();
    for step in &space.steps {
        match *step {
            Step::Merge { dst, a, b } => {
                let multiplier = sizes[b as usize];
                let (a, b) = (alias[a as usize], alias[b as usize]);
                if a == zero {
                    alias[dst as usize] = b;
                } else {
                    ops.push(Op::MulAdd { dst, a, multiplier, b, bound: usize::MAX });
                }
            }
            Step::Split { src, q, m, tile } => {
                let s = alias[src as usize];
                if s == zero {
                    alias[q as usize] = zero;
                    alias[m as usize] = zero;
                } else if tile == 1 {
                    alias[q as usize] = s;
                    alias[m as usize] = zero;
                } else if tile >= sizes[src as usize] {
                    alias[q as usize] = zero;
                    alias[m as usize] = s;
                } else {
                    // Tile sizes are positive (the verifier's rule), so the divider exists.
                    let div = Divider::new(tile).unwrap_or(Divider::ONE);
                    ops.push(Op::DivRem { src: s, quotient: q, remainder: m, div });
                }
            }
        }
    }
    let mut out_stride = vec![0usize; nregs];
    for (&r, &s) in space.axes.iter().zip(&space.strides) {
        let r = alias[r as usize];
        if r != zero {
            out_stride[r as usize] = out_stride[r as usize].wrapping_add(s);
        }
    }
    let out: Vec<(Reg, usize)> = out_stride
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s != 0)
        .map(|(r, &s)| (r as Reg, s))
        .collect();
    let inputs = (0..space.dims.len() as Reg).collect();
    (Program::new(ops, inputs, space.dims.clone(), nregs), out, out_stride)
}

/// The inverse program: digits of the expanded space in, logical index (registers
/// `0..rank`) out; a split becomes a multiply-add with a range check, a merge a division.
pub(crate) fn build_inverse(space: &Space) -> Program {
    let sizes = &space.sizes;
    let ops = space
        .steps
        .iter()
        .rev()
        .map(|step| match *step {
            Step::Merge { dst, a, b } => Op::DivRem {
                src: dst,
                quotient: a,
                remainder: b,
                div: Divider::new(sizes[b as usize]).unwrap_or(Divider::ONE),
            },
            Step::Split { src, q, m, tile } => {
                Op::MulAdd { dst: src, a: q, multiplier: tile, b: m, bound: sizes[src as usize] }
            }
        })
        .collect();
    Program::new(ops, space.axes.clone(), space.expanded.clone(), space.registers())
}

/// A plan's index map as straight-line code with constant operands, for code generators:
/// the `layout!` macro emits it as Rust with literal divisors and strides.
///
/// The forward program ([`Plan::index_program`](crate::Plan::index_program)) reads the
/// logical index from registers `inputs` (register `inputs[d]` = index entry `d`), runs
/// `steps`, and the offset is `Σ regs[r] · stride` over `outputs`. The inverse program
/// ([`Plan::inverse_program`](crate::Plan::inverse_program)) reads the digits of an offset
/// in the expanded space (`inputs[k]` = digit `k`, most major first, of radix
/// [`Plan::expanded_shape`](crate::Plan::expanded_shape)`[k]`), runs `steps` (any `MulAdd`
/// result at or beyond its bound means padding), and the logical index is
/// `regs[outputs[d].0]` for each dimension `d` (strides are 1 there).
///
/// ```
/// use layout_runtime::{ArrayShape, IndexStep};
/// let s: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let p = s.plan()?.index_program();
/// // offset = (i/2)*12 + (j/2)*4 + (i%2)*2 + (j%2): Figure 1's (2,3) -> 12 + 4 + 0 + 1 = 17.
/// let mut regs = vec![0usize; p.registers];
/// regs[p.inputs[0]] = 2;
/// regs[p.inputs[1]] = 3;
/// for step in &p.steps {
///     if let IndexStep::DivRem { src, quotient, remainder, divisor } = *step {
///         regs[quotient] = regs[src] / divisor;
///         regs[remainder] = regs[src] % divisor;
///     }
/// }
/// let offset: usize = p.outputs.iter().map(|&(r, stride)| regs[r] * stride).sum();
/// assert_eq!(offset, 17);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexProgram {
    /// How many registers the program uses.
    pub registers: usize,
    /// The registers the inputs are written to, in input order.
    pub inputs: Vec<usize>,
    /// The steps, in order.
    pub steps: Vec<IndexStep>,
    /// `(register, stride)` pairs: the result (see the type's documentation).
    pub outputs: Vec<(usize, usize)>,
}

impl IndexProgram {
    pub(crate) fn from_program(
        p: &Program,
        registers: usize,
        outputs: Vec<(usize, usize)>,
    ) -> IndexProgram {
        let steps = p
            .ops
            .iter()
            .map(|op| match *op {
                Op::DivRem { src, quotient, remainder, div } => IndexStep::DivRem {
                    src: src as usize,
                    quotient: quotient as usize,
                    remainder: remainder as usize,
                    divisor: div.divisor(),
                },
                Op::MulAdd { dst, a, multiplier, b, bound } => IndexStep::MulAdd {
                    dst: dst as usize,
                    a: a as usize,
                    multiplier,
                    b: b as usize,
                    bound: (bound != usize::MAX).then_some(bound),
                },
            })
            .collect();
        let inputs = p.inputs.iter().map(|&r| r as usize).collect();
        IndexProgram { registers, inputs, steps, outputs }
    }
}
