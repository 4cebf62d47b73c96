//! Iteration without division: every logical index in row-major order with its offset, and
//! every position of the grid in memory order with its logical index. Both run a program
//! incrementally (an odometer over its inputs, rerunning only the ops that depend on the
//! input that moved), or walk the tables of a separable map.

use alloc::vec;
use alloc::vec::Vec;

use super::build::Reg;
use super::program::{Op, Program};
use super::tables::Tables;
use super::Plan;

/// Incremental evaluation of a program over an odometer of its inputs. `FORWARD`: track
/// the offset (`Σ regs·out_stride`); otherwise track how many range checks fail.
#[derive(Clone, Debug)]
struct Stepper<'p, const FORWARD: bool> {
    prog: &'p Program,
    out_stride: &'p [usize],
    rank: usize,
    regs: Vec<usize>,
    offset: usize,
    invalid: usize,
    remaining: usize,
    started: bool,
}

impl<'p, const FORWARD: bool> Stepper<'p, FORWARD> {
    fn new(plan: &'p Plan, prog: &'p Program, count: usize) -> Self {
        let mut s = Stepper {
            prog,
            out_stride: &plan.out_stride,
            rank: plan.rank(),
            regs: vec![0; plan.space.registers()],
            offset: 0,
            invalid: 0,
            remaining: count,
            started: false,
        };
        if count > 0 {
            // All inputs 0: evaluate everything once.
            for i in 0..prog.ops.len() {
                s.run(i);
            }
        }
        s
    }

    #[inline(always)]
    fn set(&mut self, r: Reg, v: usize) {
        let old = core::mem::replace(&mut self.regs[r as usize], v);
        if FORWARD {
            let delta = v.wrapping_sub(old).wrapping_mul(self.out_stride[r as usize]);
            self.offset = self.offset.wrapping_add(delta);
        }
    }

    #[inline(always)]
    fn run(&mut self, i: usize) {
        match self.prog.ops[i] {
            Op::MulAdd { dst, a, multiplier, b, bound } => {
                let v = self.regs[a as usize]
                    .wrapping_mul(multiplier)
                    .wrapping_add(self.regs[b as usize]);
                if !FORWARD {
                    let was_bad = self.regs[dst as usize] >= bound;
                    let bad = v >= bound;
                    self.invalid = self.invalid + usize::from(bad) - usize::from(was_bad);
                }
                self.set(dst, v);
            }
            Op::DivRem { src, quotient: q, remainder: m, div } => {
                let new = self.regs[src as usize];
                let d = div.divisor();
                let (oq, om) = (self.regs[q as usize], self.regs[m as usize]);
                let old = oq.wrapping_mul(d).wrapping_add(om);
                // (q, m) = divmod(old) holds; move it by the (usually small) change.
                let (nq, nm) = if new >= old {
                    let delta = new - old;
                    if delta < d - om {
                        (oq, om + delta)
                    } else if delta < d {
                        (oq + 1, om + delta - d)
                    } else {
                        div.div_rem(new)
                    }
                } else {
                    let delta = old - new;
                    if delta <= om {
                        (oq, om - delta)
                    } else if delta <= d {
                        (oq - 1, om + d - delta)
                    } else {
                        div.div_rem(new)
                    }
                };
                if nq != oq {
                    self.set(q, nq);
                }
                if nm != om {
                    self.set(m, nm);
                }
            }
        }
    }

    /// Moves to the next odometer position and reruns what depends on the changed inputs.
    #[inline]
    fn advance(&mut self) {
        let prog = self.prog;
        let mut j = prog.inputs.len();
        while j > 0 {
            j -= 1;
            let r = prog.inputs[j];
            let v = self.regs[r as usize] + 1;
            if v < prog.radices[j] {
                self.set(r, v);
                for &l in &prog.inputs[j + 1..] {
                    self.set(l, 0);
                }
                for i in prog.affected(j) {
                    self.run(i);
                }
                return;
            }
        }
    }

    /// Steps, returning whether there was an element.
    #[inline]
    fn step(&mut self) -> bool {
        if self.remaining == 0 {
            return false;
        }
        if self.started {
            self.advance();
        }
        self.started = true;
        self.remaining -= 1;
        true
    }
}

/// Logical indices in row-major order with their offsets; see [`Plan::row_major`].
///
/// ```
/// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = s.plan()?;
/// let mut it = plan.row_major();
/// while let Some((index, offset)) = it.next_ref() {
///     assert_eq!(plan.offset(index)?, offset);
/// }
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RowMajor<'p> {
    walk: Walk<'p>,
}

/// The odometer behind [`RowMajor`]: over the tables of a separable map (one table step per
/// element), or over the index program.
#[derive(Clone, Debug)]
enum Walk<'p> {
    Tables {
        tables: &'p Tables,
        dims: &'p [usize],
        index: Vec<usize>,
        offset: usize,
        remaining: usize,
        started: bool,
    },
    Program(Stepper<'p, true>),
}

impl Walk<'_> {
    /// Steps, returning whether there was an element.
    #[inline]
    fn step(&mut self) -> bool {
        match self {
            Walk::Program(s) => s.step(),
            Walk::Tables { tables, dims, index, offset, remaining, started } => {
                if *remaining == 0 {
                    return false;
                }
                *remaining -= 1;
                if !*started {
                    *started = true;
                    return true;
                }
                // Increment the last dimension that can; the ones after it go back to 0,
                // where every term is 0.
                let mut j = index.len();
                while j > 0 {
                    j -= 1;
                    let old = index[j];
                    if old + 1 < dims[j] {
                        index[j] = old + 1;
                        let delta = tables.term(j, old + 1).wrapping_sub(tables.term(j, old));
                        *offset = offset.wrapping_add(delta);
                        for (l, i) in index.iter_mut().enumerate().skip(j + 1) {
                            *offset = offset.wrapping_sub(tables.term(l, *i));
                            *i = 0;
                        }
                        break;
                    }
                }
                true
            }
        }
    }

    /// The current index and offset (after a successful `step`).
    #[inline]
    fn current(&self) -> (&[usize], usize) {
        match self {
            Walk::Program(s) => (&s.regs[..s.rank], s.offset),
            Walk::Tables { index, offset, .. } => (index, *offset),
        }
    }

    fn remaining(&self) -> usize {
        match self {
            Walk::Program(s) => s.remaining,
            Walk::Tables { remaining, .. } => *remaining,
        }
    }
}

impl RowMajor<'_> {
    /// The next logical index (lent, no allocation) and its offset.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[2,2]{0,1}".parse()?;
    /// let plan = s.plan()?;
    /// let mut it = plan.row_major();
    /// it.next_ref();
    /// assert_eq!(it.next_ref(), Some((&[0, 1][..], 2)));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn next_ref(&mut self) -> Option<(&[usize], usize)> {
        if self.walk.step() {
            Some(self.walk.current())
        } else {
            None
        }
    }
}

impl Iterator for RowMajor<'_> {
    type Item = (Vec<usize>, usize);

    fn next(&mut self) -> Option<Self::Item> {
        self.next_ref().map(|(i, o)| (i.to_vec(), o))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.walk.remaining(), Some(self.walk.remaining()))
    }
}

impl ExactSizeIterator for RowMajor<'_> {}

/// Offsets of the logical indices in row-major order; see [`Plan::row_major_offsets`].
///
/// ```
/// let s: layout_runtime::ArrayShape = "f32[2,3]{0,1}".parse()?;
/// let plan = s.plan()?;
/// assert_eq!(plan.row_major_offsets().len(), 6);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RowMajorOffsets<'p>(RowMajor<'p>);

impl Iterator for RowMajorOffsets<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0.walk.step() {
            Some(self.0.walk.current().1)
        } else {
            None
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for RowMajorOffsets<'_> {}

/// The grid in memory order: for each offset the logical index stored there, or `None` for
/// padding; see [`Plan::memory_order`].
///
/// ```
/// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = s.plan()?;
/// let padding = plan.memory_order().filter(Option::is_none).count();
/// assert_eq!(padding, 9);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MemoryOrder<'p> {
    s: Stepper<'p, false>,
}

impl MemoryOrder<'_> {
    /// The next position: `Some(Some(index))` (lent, no allocation), `Some(None)` for
    /// padding, `None` past the end of the grid.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3]{0:T(2)}".parse()?;
    /// let plan = s.plan()?;
    /// let mut it = plan.memory_order();
    /// assert_eq!(it.next_ref(), Some(Some(&[0][..])));
    /// it.next_ref();
    /// it.next_ref();
    /// assert_eq!(it.next_ref(), Some(None));
    /// assert_eq!(it.next_ref(), None);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn next_ref(&mut self) -> Option<Option<&[usize]>> {
        if self.s.step() {
            Some((self.s.invalid == 0).then(|| &self.s.regs[..self.s.rank]))
        } else {
            None
        }
    }
}

impl Iterator for MemoryOrder<'_> {
    type Item = Option<Vec<usize>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_ref().map(|i| i.map(<[usize]>::to_vec))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.s.remaining, Some(self.s.remaining))
    }
}

impl ExactSizeIterator for MemoryOrder<'_> {}

impl Plan {
    /// Every logical index in row-major order (last index fastest) with its offset, by
    /// carrying counters: no division per element.
    ///
    /// As an [`Iterator`] it yields `(Vec<usize>, usize)`; [`RowMajor::next_ref`] lends the
    /// index instead of allocating, and [`Plan::row_major_offsets`] yields offsets only.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[2,3]{0,1}".parse()?;
    /// let plan = s.plan()?;
    /// let all: Vec<_> = plan.row_major().collect();
    /// assert_eq!(all[1], (vec![0, 1], 2));
    /// assert_eq!(all.iter().map(|(_, o)| *o).collect::<Vec<_>>(), [0, 2, 4, 1, 3, 5]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn row_major(&self) -> RowMajor<'_> {
        let count = if self.space.dims.contains(&0) { 0 } else { self.space.dims.iter().product() };
        let walk = match &self.tables {
            Some(tables) => Walk::Tables {
                tables,
                dims: &self.space.dims,
                index: vec![0; self.rank()],
                offset: 0,
                remaining: count,
                started: false,
            },
            None => Walk::Program(Stepper::new(self, &self.forward, count)),
        };
        RowMajor { walk }
    }

    /// The offsets of every logical index in row-major order (last index fastest):
    /// `all_linear_row_major` of the conformance data.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let plan = s.plan()?;
    /// let offsets: Vec<usize> = plan.row_major_offsets().collect();
    /// assert_eq!(offsets[..5], [0, 1, 4, 5, 8]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn row_major_offsets(&self) -> RowMajorOffsets<'_> {
        RowMajorOffsets(self.row_major())
    }

    /// Every position of the grid in memory order (offset 0, 1, ...): `Some(logical index)`
    /// or `None` for padding, by carrying counters: no division per element.
    ///
    /// As an [`Iterator`] it yields `Option<Vec<usize>>`; [`MemoryOrder::next_ref`] lends the
    /// index instead of allocating.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3]{0:T(4)}".parse()?;
    /// let plan = s.plan()?;
    /// let m: Vec<_> = plan.memory_order().collect();
    /// assert_eq!(m, [Some(vec![0]), Some(vec![1]), Some(vec![2]), None]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn memory_order(&self) -> MemoryOrder<'_> {
        MemoryOrder { s: Stepper::new(self, &self.inverse, self.space.grid_len) }
    }
}
