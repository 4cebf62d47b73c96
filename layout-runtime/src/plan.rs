//! The tiled index space of an array shape (`docs/tiled_layout.md`,
//! `LayoutUtil::LinearIndexForNestedTiling`), built once into a [`Plan`] with every size,
//! stride and divisor precomputed.
//!
//! The map from a logical index to an element offset:
//!
//! 1. put the dimensions in physical order (minor_to_major reversed, most major first);
//! 2. for each tile level, in order: if the tile has more entries than the current space
//!    has dimensions, prepend size-1 dimensions; merge every `*` dimension of the covered
//!    suffix into the next more-minor one (sizes multiply, index `eᵢ·sᵢ₊₁ + eᵢ₊₁`, runs of
//!    `*` chain); split each covered dimension `(s, e)` with tile entry `τ` into an outer
//!    `(⌈s/τ⌉, ⌊e/τ⌋)` and an inner `(τ, e mod τ)`, all outers before all inners;
//! 3. the offset is the row-major position in the final ("expanded") space.
//!
//! Internally the map is a short straight-line program over registers: a merge is one
//! multiply-add, a split one division by a precomputed [`Divider`]. Its inverse (offset to
//! logical index) is the same program run backwards, where a split becomes a multiply-add
//! plus a range check (padding) and a merge becomes a division. Iterators run either
//! program incrementally, so an element costs a few adds and compares, not a division.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::subbyte::{self, BitPosition};
use crate::{ArrayShape, Divider, Error, ErrorKind, Location, Path, TileDim};

type Reg = u32;

/// Register files up to this size live on the stack in `offset` and `index_of`.
const INLINE_REGS: usize = 48;

fn at(location: Location) -> Path {
    Path { tuple_indices: Vec::new(), location }
}

fn overflow(what: &str) -> Error {
    Error::new(ErrorKind::SizeOverflow, format!("the {what} does not fit in usize"))
}

/// Tables of at most this many entries in all are built (8 bytes each); larger shapes
/// evaluate the index program instead.
const TABLE_LIMIT: usize = 1 << 16;

/// The offset map of a separable layout, tabulated: with no `*` merge every axis of the
/// expanded space depends on one logical dimension, so `offset(i) = Σ_d f_d(i_d)`, and
/// `f_d(x)` (the offset of `x` along dimension `d`, all others 0) is stored at
/// `values[start[d] + x]`. One load and add per dimension replaces the divisions.
#[derive(Clone, Debug)]
struct Tables {
    start: Vec<usize>,
    values: Vec<usize>,
}

impl Tables {
    /// `f_d(x)`; some number, never a panic, when `x` is out of range.
    #[inline(always)]
    fn term(&self, d: usize, x: usize) -> usize {
        let at = self.start.get(d).map_or(usize::MAX, |&s| s.wrapping_add(x));
        self.values.get(at).copied().unwrap_or(0)
    }
}

/// One instruction of an index program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// `regs[dst] = regs[a] * mul + regs[b]`; in the inverse program the position is padding
    /// unless `regs[dst] < bound` (`usize::MAX` in the forward program: no check).
    Lin { dst: Reg, a: Reg, mul: usize, b: Reg, bound: usize },
    /// `(regs[q], regs[m]) = (regs[src] / d, regs[src] % d)`.
    DivMod { src: Reg, q: Reg, m: Reg, div: Divider },
}

/// A straight-line program over registers, with the dependency lists the incremental
/// (odometer) evaluation needs.
#[derive(Clone, Debug)]
struct Program {
    ops: Vec<Op>,
    /// The registers the inputs are written to, in input order.
    inputs: Vec<Reg>,
    /// The odometer radix of each input.
    radices: Vec<usize>,
    /// `affected[j]`: the ops (in program order) that depend on any input `>= j`, i.e. those
    /// to rerun when input `j` is incremented and every later input reset.
    affected: Vec<Vec<u32>>,
}

impl Program {
    fn new(ops: Vec<Op>, inputs: Vec<Reg>, radices: Vec<usize>, nregs: usize) -> Program {
        // dep[r]: the largest input index r depends on (None: a constant).
        let mut dep: Vec<Option<usize>> = vec![None; nregs];
        for (j, &r) in inputs.iter().enumerate() {
            dep[r as usize] = Some(j);
        }
        let mut op_dep = Vec::with_capacity(ops.len());
        for op in &ops {
            match *op {
                Op::Lin { dst, a, b, .. } => {
                    let d = dep[a as usize].max(dep[b as usize]);
                    dep[dst as usize] = d;
                    op_dep.push(d);
                }
                Op::DivMod { src, q, m, .. } => {
                    let d = dep[src as usize];
                    dep[q as usize] = d;
                    dep[m as usize] = d;
                    op_dep.push(d);
                }
            }
        }
        let affected = (0..inputs.len())
            .map(|j| {
                (0..ops.len() as u32)
                    .filter(|&i| op_dep[i as usize].is_some_and(|d| d >= j))
                    .collect()
            })
            .collect();
        Program { ops, inputs, radices, affected }
    }
}

/// Runs `f` with a zeroed register file of `n` registers (on the stack when small; the
/// smallest fitting buffer, since zeroing it is part of the per-call cost).
#[inline]
fn with_regs<R>(n: usize, f: impl FnOnce(&mut [usize]) -> R) -> R {
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

/// One step of an [`IndexProgram`]: straight-line code over registers holding `usize`
/// values. A register never written holds 0.
///
/// ```
/// use layout_runtime::{IndexStep, Shape};
/// let s: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let p = s.as_array().unwrap().plan()?.index_program();
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

/// A plan's index map as straight-line code with constant operands, for code generators:
/// the `layout!` macro emits it as Rust with literal divisors and strides.
///
/// The forward program ([`Plan::index_program`]) reads the logical index from registers
/// `inputs` (register `inputs[d]` = index entry `d`), runs `steps`, and the offset is
/// `Σ regs[r] · stride` over `outputs`. The inverse program ([`Plan::inverse_program`]) reads
/// the digits of an offset in the expanded space (`inputs[k]` = digit `k`, most major first,
/// of radix [`Plan::expanded_shape`]`[k]`), runs `steps` (any `MulAdd` result at or beyond its
/// bound means padding), and the logical index is `regs[outputs[d].0]` for each dimension `d`
/// (strides are 1 there).
///
/// ```
/// use layout_runtime::{IndexStep, Shape};
/// let s: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let p = s.as_array().unwrap().plan()?.index_program();
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
    fn from_program(p: &Program, registers: usize, outputs: Vec<(usize, usize)>) -> IndexProgram {
        let steps = p
            .ops
            .iter()
            .map(|op| match *op {
                Op::DivMod { src, q, m, div } => IndexStep::DivRem {
                    src: src as usize,
                    quotient: q as usize,
                    remainder: m as usize,
                    divisor: div.divisor(),
                },
                Op::Lin { dst, a, mul, b, bound } => IndexStep::MulAdd {
                    dst: dst as usize,
                    a: a as usize,
                    multiplier: mul,
                    b: b as usize,
                    bound: (bound != usize::MAX).then_some(bound),
                },
            })
            .collect();
        let inputs = p.inputs.iter().map(|&r| r as usize).collect();
        IndexProgram { registers, inputs, steps, outputs }
    }
}

/// One tile level of the equivalent pad-reshape-transpose recipe; see
/// [`PadReshapeTranspose`].
///
/// ```
/// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let recipe = s.as_array().unwrap().plan()?.pad_reshape_transpose();
/// let level = &recipe.levels[0];
/// assert_eq!(level.pad_to, [4, 6]);
/// assert_eq!(level.reshape_to, [2, 2, 3, 2]);
/// assert_eq!(level.transpose, [0, 2, 1, 3]);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TileLevel {
    /// The tile's sizes after removing its `*` entries (most major first).
    pub tile: Vec<usize>,
    /// Leading size-1 axes to add first (`expand_dims`): the tile is longer than the array.
    pub expand_dims: usize,
    /// The shape after merging every `*` axis into the next one (a plain row-major
    /// reshape); equal to the incoming shape (with the added axes) when the tile has no `*`.
    pub merged_shape: Vec<usize>,
    /// The shape after padding each covered axis at its end to a multiple of its tile entry.
    pub pad_to: Vec<usize>,
    /// The shape after splitting each covered axis into (tile count, tile entry).
    pub reshape_to: Vec<usize>,
    /// The axis permutation (numpy `transpose` argument) that puts all tile counts before
    /// all in-tile axes; its result has the shape of the next level's input.
    pub transpose: Vec<usize>,
}

/// The layout as numpy / JAX operations on the logical array: transpose to physical order,
/// then for each tile level add leading axes, merge `*` axes, pad, reshape, transpose; the
/// flattened result (plus `L` tail padding) is the buffer, element for element.
///
/// `Display` prints the recipe as numpy code.
///
/// The tiled-layout document's worked example, `f32[3,5]{1,0:T(2,2)}`: pad to `[4,6]`,
/// reshape to `[2,2,3,2]`, transpose `(0,2,1,3)`; element (2,3) lands at offset 17.
///
/// ```
/// use layout_runtime::Shape;
/// let s: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = s.as_array().unwrap().plan()?;
/// let r = plan.pad_reshape_transpose();
/// assert_eq!(r.to_physical, [0, 1]);
/// assert_eq!(r.levels[0].pad_to, [4, 6]);
/// assert_eq!(r.levels[0].reshape_to, [2, 2, 3, 2]);
/// assert_eq!(r.levels[0].transpose, [0, 2, 1, 3]);
/// assert_eq!(r.expanded_shape, [2, 3, 2, 2]);
/// assert_eq!(plan.offset(&[2, 3])?, 17);
/// let code = [
///     "import numpy as np",
///     "# x: the logical array, shape (3, 5)",
///     "a = x",
///     "# tile level 0: (2, 2)",
///     "a = np.pad(a, ((0, 1), (0, 1)))",
///     "a = a.reshape((2, 2, 3, 2))",
///     "a = a.transpose((0, 2, 1, 3))",
///     "buf = a.reshape(-1)  # 24 elements; buf[offset]",
///     "",
/// ];
/// assert_eq!(r.to_string(), code.join("\n"));
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PadReshapeTranspose {
    /// The logical shape (bounds for `<=N` dimensions).
    pub logical_shape: Vec<usize>,
    /// The transpose into physical order: physical axis `p` (0 most major) is logical axis
    /// `to_physical[p]` (minor_to_major reversed).
    pub to_physical: Vec<usize>,
    /// The tile levels, first applied first.
    pub levels: Vec<TileLevel>,
    /// The final shape; its row-major flattening is the buffer.
    pub expanded_shape: Vec<usize>,
    /// Elements appended at the end for `L(n)` (the buffer has `grid + tail_padding`).
    pub tail_padding: usize,
}

/// Writes a Python tuple: `()`, `(4,)`, `(2, 3)`.
fn py_tuple<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    f.write_str("(")?;
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{x}")?;
    }
    if items.len() == 1 {
        f.write_str(",")?;
    }
    f.write_str(")")
}

struct PadWidths<'a>(&'a [usize], &'a [usize]);

impl fmt::Display for PadWidths<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let widths: Vec<PadWidth> =
            self.0.iter().zip(self.1).map(|(&from, &to)| PadWidth(to - from)).collect();
        py_tuple(f, &widths)
    }
}

struct PadWidth(usize);

impl fmt::Display for PadWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(0, {})", self.0)
    }
}

impl fmt::Display for PadReshapeTranspose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("import numpy as np\n# x: the logical array, shape ")?;
        py_tuple(f, &self.logical_shape)?;
        f.write_str("\n")?;
        if self.to_physical.iter().enumerate().all(|(i, &p)| i == p) {
            f.write_str("a = x\n")?;
        } else {
            f.write_str("a = x.transpose(")?;
            py_tuple(f, &self.to_physical)?;
            f.write_str(")  # physical order, most major first\n")?;
        }
        let mut shape: Vec<usize> =
            self.to_physical.iter().map(|&l| self.logical_shape[l]).collect();
        for (i, level) in self.levels.iter().enumerate() {
            write!(f, "# tile level {i}: ")?;
            py_tuple(f, &level.tile)?;
            f.write_str("\n")?;
            if level.expand_dims > 0 {
                for _ in 0..level.expand_dims {
                    shape.insert(0, 1);
                }
                f.write_str("a = a.reshape(")?;
                py_tuple(f, &shape)?;
                f.write_str(")  # leading size-1 axes for a longer tile\n")?;
            }
            if level.merged_shape != shape {
                f.write_str("a = a.reshape(")?;
                py_tuple(f, &level.merged_shape)?;
                f.write_str(")  # merge `*` axes into the next\n")?;
            }
            if level.pad_to != level.merged_shape {
                writeln!(f, "a = np.pad(a, {})", PadWidths(&level.merged_shape, &level.pad_to))?;
            }
            f.write_str("a = a.reshape(")?;
            py_tuple(f, &level.reshape_to)?;
            f.write_str(")\na = a.transpose(")?;
            py_tuple(f, &level.transpose)?;
            f.write_str(")\n")?;
            shape = level.transpose.iter().map(|&t| level.reshape_to[t]).collect();
        }
        let grid: usize = self.expanded_shape.iter().product();
        writeln!(f, "buf = a.reshape(-1)  # {grid} elements; buf[offset]")?;
        if self.tail_padding > 0 {
            writeln!(f, "buf = np.pad(buf, (0, {}))  # L: tail padding", self.tail_padding)?;
        }
        Ok(())
    }
}

/// The expanded index space of a static array shape, with every constant of the offset map
/// and its inverse precomputed. Build it once per shape; use it per element.
///
/// ```
/// use layout_runtime::Shape;
/// let s: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = s.as_array().unwrap().plan()?;
/// assert_eq!(plan.expanded_shape(), [2, 3, 2, 2]);
/// assert_eq!(plan.grid_len(), 24);
/// assert_eq!(plan.offset(&[2, 3])?, 17);
/// assert_eq!(plan.index_of(17), Some(vec![2, 3]));
/// assert_eq!(plan.index_of(9), None); // padding
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Plan {
    dims: Vec<usize>,
    expanded: Vec<usize>,
    strides: Vec<usize>,
    grid_len: usize,
    padded_len: usize,
    element_bits: usize,
    byte_len: usize,
    nregs: usize,
    /// Logical index -> registers -> offset = Σ regs[r]·stride.
    forward: Program,
    forward_out: Vec<(Reg, usize)>,
    /// `forward_out` as a per-register stride (0 when not an output), for the iterators.
    out_stride: Vec<usize>,
    /// Untiled layouts: the stride of each logical dimension (then `forward.ops` is empty).
    logical_strides: Option<Vec<usize>>,
    /// Tiled layouts without `*` merges: the map is a sum of one term per logical dimension,
    /// tabulated (see [`Tables`]).
    tables: Option<Tables>,
    /// Expanded digits -> registers -> logical index (registers 0..rank), with range checks.
    inverse: Program,
    /// Divisors by the expanded sizes (empty when the grid is).
    expanded_div: Vec<Divider>,
    recipe: PadReshapeTranspose,
}

/// A split or merge, as recorded while building.
enum Step {
    Merge { dst: Reg, a: Reg, b: Reg },
    Split { src: Reg, q: Reg, m: Reg, tile: usize },
}

impl Plan {
    /// Builds the plan of `shape`'s layout (its default layout when it has none).
    ///
    /// Errors: an element type that is not an array type or an unbounded `?` dimension
    /// ([`ErrorKind::NotStaticArray`]; bounded `<=N` dimensions take part with their bound);
    /// minor_to_major not a permutation of the dimensions, an empty tile or a zero tile
    /// entry, `L(n)` with n < 1, a negative `E` (the verifier's errors: a valid shape has
    /// none of them); a `*` as the last entry of a tile ([`ErrorKind::TrailingCombine`]:
    /// nothing to merge it into); a size, stride or byte length beyond `usize`
    /// ([`ErrorKind::SizeOverflow`]).
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Plan, Shape};
    /// let plan = |t: &str| Plan::new(t.parse::<Shape>().unwrap().as_array().unwrap());
    /// assert_eq!(plan("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")?.expanded_shape(), [56, 37, 2, 3]);
    /// assert_eq!(plan("f32[<=5,3]{1,0:T(8,128)}")?.grid_len(), 1024);
    /// assert_eq!(plan("f32[3,5]{1,0:T(2,*)}").unwrap_err().kind(), ErrorKind::TrailingCombine);
    /// assert_eq!(plan("f32[?,5]").unwrap_err().kind(), ErrorKind::NotStaticArray);
    /// assert_eq!(plan("s8[9223372036854775807]{0:T(4,2)}").unwrap_err().kind(), ErrorKind::SizeOverflow);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn new(shape: &ArrayShape) -> Result<Plan, Error> {
        if !shape.element_type.is_array_type() {
            return Err(Error::new(
                ErrorKind::NotStaticArray,
                format!(
                    "`{}` is not an array element type: it has no index space",
                    shape.element_type
                ),
            )
            .with_path(at(Location::ElementType)));
        }
        let rank = shape.rank();
        let mut dims = Vec::with_capacity(rank);
        for (i, size) in shape.bounded_dims()?.into_iter().enumerate() {
            dims.push(usize::try_from(size).map_err(|_| {
                overflow(&format!("size of dimension {i}")).with_path(at(Location::Dim(i)))
            })?);
        }
        let layout = shape.layout_or_default();

        // Physical order: minor_to_major reversed; it must be a permutation.
        let mut to_physical = layout.minor_to_major_permutation(rank)?;
        to_physical.reverse();

        // Registers 0..rank hold the logical index; every later one is a dimension of some
        // intermediate space, with its size.
        let mut sizes: Vec<usize> = dims.clone();
        let mut prepended: Vec<Reg> = Vec::new();
        let mut steps: Vec<Step> = Vec::new();
        let mut cur: Vec<Reg> = to_physical.iter().map(|&l| l as Reg).collect();
        let mut levels = Vec::with_capacity(layout.tiles.len());
        let new_reg = |sizes: &mut Vec<usize>, size: usize| -> Reg {
            sizes.push(size);
            (sizes.len() - 1) as Reg
        };

        for (t, tile) in layout.tiles.iter().enumerate() {
            let n = tile.dims.len();
            if n == 0 {
                return Err(Error::new(
                    ErrorKind::EmptyTile,
                    format!("layout has invalid tiles: tile {t} is empty `()`"),
                )
                .with_path(at(Location::Tile(t))));
            }
            let expand_dims = n.saturating_sub(cur.len());
            for _ in 0..expand_dims {
                let r = new_reg(&mut sizes, 1);
                prepended.push(r);
                cur.insert(0, r);
            }
            let split_at = cur.len() - n;
            let mut covered: Vec<(Reg, usize)> = Vec::with_capacity(n);
            let mut pending: Option<Reg> = None;
            for (i, (&td, &r)) in tile.dims.iter().zip(&cur[split_at..]).enumerate() {
                let r = match pending.take() {
                    None => r,
                    Some(a) => {
                        let size =
                            sizes[a as usize].checked_mul(sizes[r as usize]).ok_or_else(|| {
                                overflow("size of a `*`-merged dimension")
                                    .with_path(at(Location::TileDim { tile: t, dim: i }))
                            })?;
                        let dst = new_reg(&mut sizes, size);
                        steps.push(Step::Merge { dst, a, b: r });
                        dst
                    }
                };
                match td {
                    TileDim::Combine if i + 1 == n => {
                        return Err(Error::new(
                            ErrorKind::TrailingCombine,
                            format!(
                                "tile {t} ends with `*`: a `*` merges its dimension into the next \
                                 more-minor one, and the last entry has none, so the layout has \
                                 no defined offsets or sizes"
                            ),
                        )
                        .with_path(at(Location::TileDim { tile: t, dim: i })));
                    }
                    TileDim::Combine => pending = Some(r),
                    TileDim::Size(0) => {
                        return Err(Error::new(
                            ErrorKind::InvalidTileDimension,
                            format!(
                                "layout has invalid tiles: tile dimension 0 must be positive or \
                                 kCombineDimension (entry {i} of tile {t})"
                            ),
                        )
                        .with_path(at(Location::TileDim { tile: t, dim: i })));
                    }
                    TileDim::Size(s) => {
                        let s = usize::try_from(s).map_err(|_| {
                            overflow("tile size")
                                .with_path(at(Location::TileDim { tile: t, dim: i }))
                        })?;
                        covered.push((r, s));
                    }
                }
            }
            let merged_shape: Vec<usize> = cur[..split_at]
                .iter()
                .map(|&r| sizes[r as usize])
                .chain(covered.iter().map(|&(r, _)| sizes[r as usize]))
                .collect();
            let mut outers = Vec::with_capacity(covered.len());
            let mut inners = Vec::with_capacity(covered.len());
            let mut pad_to: Vec<usize> =
                cur[..split_at].iter().map(|&r| sizes[r as usize]).collect();
            let mut reshape_to = pad_to.clone();
            for &(src, tau) in &covered {
                let count = sizes[src as usize].div_ceil(tau);
                pad_to.push(count.checked_mul(tau).ok_or_else(|| overflow("padded dimension"))?);
                reshape_to.extend([count, tau]);
                let q = new_reg(&mut sizes, count);
                let m = new_reg(&mut sizes, tau);
                steps.push(Step::Split { src, q, m, tile: tau });
                outers.push(q);
                inners.push(m);
            }
            let k = covered.len();
            let transpose = (0..split_at)
                .chain((0..k).map(|i| split_at + 2 * i))
                .chain((0..k).map(|i| split_at + 2 * i + 1))
                .collect();
            cur.truncate(split_at);
            cur.extend(outers);
            cur.extend(inners);
            levels.push(TileLevel {
                tile: covered.iter().map(|&(_, s)| s).collect(),
                expand_dims,
                merged_shape,
                pad_to,
                reshape_to,
                transpose,
            });
        }

        // The expanded space, its row-major strides and its size.
        let expanded: Vec<usize> = cur.iter().map(|&r| sizes[r as usize]).collect();
        let empty = expanded.contains(&0);
        let mut strides = vec![0usize; expanded.len()];
        let mut acc: usize = 1;
        for j in (0..expanded.len()).rev() {
            strides[j] = acc;
            acc = match acc.checked_mul(expanded[j]) {
                Some(v) => v,
                None if empty => usize::MAX, // no element can be addressed anyway
                None => return Err(overflow("element count of the tiled grid")),
            };
        }
        let grid_len = if empty { 0 } else { acc };

        // L and E.
        let align = layout.tail_padding_alignment_in_elements;
        let Some(align) = usize::try_from(align).ok().filter(|&a| a >= 1) else {
            return Err(Error::new(
                ErrorKind::TailPaddingAlignment,
                format!("layout tail_padding_alignment_in_elements field is <= 0: {align}"),
            )
            .with_path(at(Location::TailPadding)));
        };
        let padded_len = grid_len
            .div_ceil(align)
            .checked_mul(align)
            .ok_or_else(|| overflow("element count rounded up to L"))?;
        let e = layout.element_size_in_bits;
        let element_bits = match e {
            0 => shape.element_type.byte_width() as usize * 8,
            e if e > 0 => usize::try_from(e).map_err(|_| overflow("element size"))?,
            _ => {
                return Err(Error::new(
                    ErrorKind::NegativeElementSize,
                    format!("layout element_size_in_bits field is negative: {e}"),
                )
                .with_path(at(Location::ElementSize)))
            }
        };
        let byte_len = usize::try_from((padded_len as u128 * element_bits as u128).div_ceil(8))
            .map_err(|_| overflow("byte length of the buffer"))?;

        let nregs = sizes.len() + 1;
        let (forward, forward_out, out_stride) =
            build_forward(&dims, &sizes, &prepended, &steps, &cur, &strides);
        let logical_strides = forward.ops.is_empty().then(|| {
            let mut s = vec![0usize; rank];
            for &(r, stride) in &forward_out {
                if (r as usize) < rank {
                    s[r as usize] = stride;
                }
            }
            s
        });
        let separable = forward.ops.iter().all(|op| matches!(op, Op::DivMod { .. }));
        let table_len = dims.iter().try_fold(0usize, |n, &d| n.checked_add(d));
        let tabulate =
            logical_strides.is_none() && separable && table_len.is_some_and(|n| n <= TABLE_LIMIT);
        let inverse = build_inverse(&sizes, &steps, &cur, &expanded, nregs);
        let expanded_div = if empty {
            Vec::new()
        } else {
            expanded.iter().map(|&s| Divider::new(s).expect("non-empty grid")).collect()
        };
        let recipe = PadReshapeTranspose {
            logical_shape: dims.clone(),
            to_physical,
            levels,
            expanded_shape: expanded.clone(),
            tail_padding: padded_len - grid_len,
        };
        let mut plan = Plan {
            dims,
            expanded,
            strides,
            grid_len,
            padded_len,
            element_bits,
            byte_len,
            nregs,
            forward,
            forward_out,
            out_stride,
            logical_strides,
            tables: None,
            inverse,
            expanded_div,
            recipe,
        };
        if tabulate {
            plan.tables = Some(plan.tabulate());
        }
        Ok(plan)
    }

    /// The per-dimension tables of a separable map, from the index program.
    fn tabulate(&self) -> Tables {
        let mut start = Vec::with_capacity(self.rank());
        let mut values = Vec::with_capacity(self.dims.iter().sum());
        let mut index = vec![0; self.rank()];
        for d in 0..self.rank() {
            start.push(values.len());
            for x in 0..self.dims[d] {
                index[d] = x;
                values.push(self.run_forward(&index));
            }
            index[d] = 0;
        }
        Tables { start, values }
    }

    /// The number of logical dimensions.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2,2)}".parse()?;
    /// assert_eq!(s.as_array().unwrap().plan()?.rank(), 2);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The logical dimension sizes (bounds for `<=N`), dimension 0 first.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[<=3,5]{0,1}".parse()?;
    /// assert_eq!(s.as_array().unwrap().plan()?.dims(), [3, 5]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// The shape of the index space after every tile level, most major first; the offset is
    /// the row-major position in it.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[4,8]{1,0:T(2,4)(2,1)}".parse()?;
    /// assert_eq!(s.as_array().unwrap().plan()?.expanded_shape(), [2, 2, 1, 4, 2, 1]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn expanded_shape(&self) -> &[usize] {
        &self.expanded
    }

    /// The row-major strides (in elements) of [`Plan::expanded_shape`].
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// assert_eq!(s.as_array().unwrap().plan()?.expanded_strides(), [12, 4, 2, 1]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn expanded_strides(&self) -> &[usize] {
        &self.strides
    }

    /// The elements of the expanded grid (the product of [`Plan::expanded_shape`]), padding
    /// included, `L` not included. Every offset is below it.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "u32[]{:T(128)}".parse()?;
    /// assert_eq!(s.as_array().unwrap().plan()?.grid_len(), 128);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn grid_len(&self) -> usize {
        self.grid_len
    }

    /// [`Plan::grid_len`] rounded up to a multiple of `L(n)`: the elements of the buffer.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2)L(64)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// assert_eq!((plan.grid_len(), plan.padded_len()), (24, 64));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn padded_len(&self) -> usize {
        self.padded_len
    }

    /// Storage bits per element: `E(n)` when set, else the type's byte width × 8 (so `s4`
    /// without `E` takes 8 bits).
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let bits = |t: &str| t.parse::<Shape>().unwrap().as_array().unwrap().plan().unwrap().element_bits();
    /// assert_eq!((bits("s4[8]"), bits("s4[8]{0:E(4)}"), bits("bf16[2]")), (8, 4, 16));
    /// ```
    pub fn element_bits(&self) -> usize {
        self.element_bits
    }

    /// The bytes of the buffer: ⌈[`Plan::padded_len`] × [`Plan::element_bits`] / 8⌉ (the
    /// nested-grid size, see [`ArrayShape::nested_byte_size`]).
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f6e3m2fn[5]{0:E(6)}".parse()?;
    /// assert_eq!(s.as_array().unwrap().plan()?.byte_len(), 4);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn byte_len(&self) -> usize {
        self.byte_len
    }

    /// The element offset of a logical index.
    ///
    /// Errors: an index of the wrong rank or with an entry at or beyond its dimension
    /// ([`ErrorKind::IndexOutOfBounds`]).
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Shape};
    /// let s: Shape = "f32[8,8]{1,0:T(2,4)(2,1,1,1)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// assert_eq!(plan.offset(&[6, 5])?, 51);
    /// assert_eq!(plan.offset(&[8, 0]).unwrap_err().kind(), ErrorKind::IndexOutOfBounds);
    /// assert_eq!(plan.offset(&[1]).unwrap_err().kind(), ErrorKind::IndexOutOfBounds);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn offset(&self, index: &[usize]) -> Result<usize, Error> {
        if index.len() == self.dims.len() && index.iter().zip(&self.dims).all(|(i, d)| i < d) {
            Ok(self.offset_unchecked(index))
        } else {
            Err(self.index_error(index))
        }
    }

    /// Why `index` is not an index of this shape (it is not).
    #[cold]
    #[inline(never)]
    fn index_error(&self, index: &[usize]) -> Error {
        if index.len() != self.rank() {
            return Error::new(
                ErrorKind::IndexOutOfBounds,
                format!(
                    "index {index:?} has {} entries; the shape has rank {}",
                    index.len(),
                    self.rank()
                ),
            );
        }
        let (k, (&i, &d)) =
            index.iter().zip(&self.dims).enumerate().find(|(_, (i, d))| i >= d).unwrap_or((
                0,
                (&0, &0), // unreachable for a bad index; kept total so nothing can panic
            ));
        Error::new(
            ErrorKind::IndexOutOfBounds,
            format!("index {index:?}: entry {k} is {i}, dimension {k} has size {d}"),
        )
        .with_path(at(Location::Dim(k)))
    }

    /// [`Plan::offset`] without bounds checks, for hot loops whose indices are known to be
    /// in range. With an index of the wrong rank or out of range the result is meaningless
    /// (missing entries count as 0, extra ones are ignored, arithmetic wraps), but it never
    /// panics and never touches memory.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// assert_eq!(plan.offset_unchecked(&[2, 3]), 17);
    /// let _ = plan.offset_unchecked(&[usize::MAX, 9]); // some number, no panic
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    #[inline]
    pub fn offset_unchecked(&self, index: &[usize]) -> usize {
        if let Some(strides) = &self.logical_strides {
            return index
                .iter()
                .zip(strides)
                .fold(0usize, |acc, (&i, &s)| acc.wrapping_add(i.wrapping_mul(s)));
        }
        if let Some(t) = &self.tables {
            return index
                .iter()
                .take(self.dims.len())
                .enumerate()
                .fold(0usize, |acc, (d, &i)| acc.wrapping_add(t.term(d, i)));
        }
        self.run_forward(index)
    }

    /// The offset by running the forward index program (no tables, no strides).
    fn run_forward(&self, index: &[usize]) -> usize {
        with_regs(self.nregs, |regs| {
            for (r, &i) in regs.iter_mut().zip(index.iter().take(self.dims.len())) {
                *r = i;
            }
            for op in &self.forward.ops {
                match *op {
                    Op::Lin { dst, a, mul, b, .. } => {
                        regs[dst as usize] =
                            regs[a as usize].wrapping_mul(mul).wrapping_add(regs[b as usize]);
                    }
                    Op::DivMod { src, q, m, div } => {
                        let (dq, dm) = div.div_rem(regs[src as usize]);
                        regs[q as usize] = dq;
                        regs[m as usize] = dm;
                    }
                }
            }
            self.forward_out
                .iter()
                .fold(0usize, |acc, &(r, s)| acc.wrapping_add(regs[r as usize].wrapping_mul(s)))
        })
    }

    /// The logical index stored at `offset`; `None` when the position is padding or at or
    /// beyond [`Plan::grid_len`].
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// assert_eq!(plan.index_of(17), Some(vec![2, 3]));
    /// assert_eq!(plan.index_of(14), None); // padding below row 2
    /// assert_eq!(plan.index_of(24), None); // past the grid
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn index_of(&self, offset: usize) -> Option<Vec<usize>> {
        let mut out = vec![0; self.rank()];
        self.index_of_into(offset, &mut out).then_some(out)
    }

    /// [`Plan::index_of`] into a caller's slice (no allocation): `true` and `out` holds the
    /// logical index, or `false` (padding, out of range, or `out.len()` is not the rank) and
    /// `out` holds nothing meaningful.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[4,8]{1,0:T(2,4)(2,1)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// let mut ix = [0; 2];
    /// assert!(plan.index_of_into(16, &mut ix));
    /// assert_eq!(ix, [2, 0]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn index_of_into(&self, offset: usize, out: &mut [usize]) -> bool {
        if offset >= self.grid_len || out.len() != self.rank() {
            return false;
        }
        with_regs(self.nregs, |regs| {
            let mut rest = offset;
            for (&r, div) in self.inverse.inputs.iter().zip(&self.expanded_div).rev() {
                let (q, d) = div.div_rem(rest);
                regs[r as usize] = d;
                rest = q;
            }
            for op in &self.inverse.ops {
                match *op {
                    Op::Lin { dst, a, mul, b, bound } => {
                        let v = regs[a as usize].wrapping_mul(mul).wrapping_add(regs[b as usize]);
                        if v >= bound {
                            return false;
                        }
                        regs[dst as usize] = v;
                    }
                    Op::DivMod { src, q, m, div } => {
                        let (dq, dm) = div.div_rem(regs[src as usize]);
                        regs[q as usize] = dq;
                        regs[m as usize] = dm;
                    }
                }
            }
            out.copy_from_slice(&regs[..out.len()]);
            true
        })
    }

    /// Every logical index in row-major order (last index fastest) with its offset, by
    /// carrying counters: no division per element.
    ///
    /// As an [`Iterator`] it yields `(Vec<usize>, usize)`; [`RowMajor::next_ref`] lends the
    /// index instead of allocating, and [`Plan::row_major_offsets`] yields offsets only.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[2,3]{0,1}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// let all: Vec<_> = plan.row_major().collect();
    /// assert_eq!(all[1], (vec![0, 1], 2));
    /// assert_eq!(all.iter().map(|(_, o)| *o).collect::<Vec<_>>(), [0, 2, 4, 1, 3, 5]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn row_major(&self) -> RowMajor<'_> {
        let count = if self.dims.contains(&0) { 0 } else { self.dims.iter().product() };
        let walk = match &self.tables {
            Some(tables) => Walk::Tables {
                tables,
                dims: &self.dims,
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
    /// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
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
    /// let s: layout_runtime::Shape = "f32[3]{0:T(4)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// let m: Vec<_> = plan.memory_order().collect();
    /// assert_eq!(m, [Some(vec![0]), Some(vec![1]), Some(vec![2]), None]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn memory_order(&self) -> MemoryOrder<'_> {
        MemoryOrder { s: Stepper::new(self, &self.inverse, self.grid_len) }
    }

    /// The layout as a numpy / JAX recipe (transpose, pad, reshape, transpose per level).
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[3,5]{0,1:T(2,2)}".parse()?;
    /// let r = s.as_array().unwrap().plan()?.pad_reshape_transpose();
    /// assert_eq!(r.to_physical, [1, 0]); // dimension 1 is the most major
    /// assert_eq!(r.levels[0].pad_to, [6, 4]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn pad_reshape_transpose(&self) -> PadReshapeTranspose {
        self.recipe.clone()
    }

    /// The offset map as straight-line code with constant operands (see [`IndexProgram`]):
    /// trivial steps are already folded away (a tile entry of 1 or one covering its whole
    /// dimension costs nothing).
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f32[3,5]{0,1}".parse()?;
    /// let p = s.as_array().unwrap().plan()?.index_program();
    /// assert!(p.steps.is_empty()); // untiled: offset = i*1 + j*3
    /// assert_eq!(p.outputs, [(0, 1), (1, 3)]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn index_program(&self) -> IndexProgram {
        IndexProgram::from_program(
            &self.forward,
            self.nregs,
            self.forward_out.iter().map(|&(r, s)| (r as usize, s)).collect(),
        )
    }

    /// The inverse map (expanded digits to logical index) as straight-line code (see
    /// [`IndexProgram`]); a `MulAdd` with a bound re-joins a split dimension and detects
    /// padding.
    ///
    /// ```
    /// use layout_runtime::{IndexStep, Shape};
    /// let s: Shape = "f32[3]{0:T(2)}".parse()?;
    /// let p = s.as_array().unwrap().plan()?.inverse_program();
    /// // digits (q, r) of radix (2, 2): i = q*2 + r, padding unless i < 3.
    /// assert_eq!(p.steps, [IndexStep::MulAdd { dst: 0, a: p.inputs[0], multiplier: 2, b: p.inputs[1], bound: Some(3) }]);
    /// assert_eq!(p.outputs, [(0, 1)]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn inverse_program(&self) -> IndexProgram {
        IndexProgram::from_program(
            &self.inverse,
            self.nregs,
            (0..self.rank()).map(|d| (d, 1)).collect(),
        )
    }

    /// A name for each axis of [`Plan::expanded_shape`], in terms of the logical index
    /// `d0, d1, ...`: `d1/128` is a tile count, `d1%128` a position inside a tile, `d0*5+d1`
    /// a `*` merge, `0` an axis that is always 0 (a leading size-1 axis added for a tile
    /// longer than the space, or the inner axis of a tile entry 1). For people: the CLI's
    /// `explain` prints them.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse()?;
    /// let names = s.as_array().unwrap().plan()?.expanded_axis_names();
    /// assert_eq!(names, ["d0/8", "d1/128", "(d0%8)/2", "d1%128", "(d0%8)%2", "0"]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn expanded_axis_names(&self) -> Vec<alloc::string::String> {
        use alloc::string::{String, ToString};
        fn term(name: &str) -> String {
            if name.bytes().all(|b| b.is_ascii_alphanumeric()) {
                name.to_string()
            } else {
                format!("({name})")
            }
        }
        // Registers never written by a step are the leading size-1 axes: always 0.
        let mut names: Vec<String> = vec![String::from("0"); self.nregs];
        for (i, name) in names.iter_mut().enumerate().take(self.rank()) {
            *name = format!("d{i}");
        }
        // The inverse program is the steps run backwards; walk it forwards again.
        for op in self.inverse.ops.iter().rev() {
            match *op {
                Op::Lin { dst: src, a: q, mul: tile, b: m, .. } => {
                    let x = names[src as usize].clone();
                    let (outer, inner) = match (x.as_str(), tile) {
                        ("0", _) => (x.clone(), x),
                        (_, 1) => (x, String::from("0")),
                        _ => (format!("{}/{tile}", term(&x)), format!("{}%{tile}", term(&x))),
                    };
                    names[q as usize] = outer;
                    names[m as usize] = inner;
                }
                Op::DivMod { src: dst, q: a, m: b, div } => {
                    let (x, y) = (&names[a as usize], &names[b as usize]);
                    names[dst as usize] = if x == "0" {
                        y.clone()
                    } else {
                        format!("{}*{}+{}", term(x), div.divisor(), term(y))
                    };
                }
            }
        }
        self.inverse.inputs.iter().map(|&r| names[r as usize].clone()).collect()
    }

    /// Where the element at a logical index starts, in bytes and bits, in a buffer packed
    /// with [`Plan::element_bits`] bits per element (little-endian bit order, first element
    /// in the low bits).
    ///
    /// ```
    /// use layout_runtime::{BitPosition, Shape};
    /// let s: Shape = "s4[16,256]{1,0:T(64,128)(8,1)E(4)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// assert_eq!(plan.offset(&[7, 0])?, 7);
    /// assert_eq!(plan.bit_position(&[7, 0])?, BitPosition { byte: 3, bit: 4 });
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn bit_position(&self, index: &[usize]) -> Result<BitPosition, Error> {
        let offset = self.offset(index)?;
        let bits = u32::try_from(self.element_bits).map_err(|_| overflow("element size"))?;
        subbyte::bit_position(offset, bits).ok_or_else(|| overflow("bit position"))
    }

    /// Reads the packed element at a logical index from `buf` (see
    /// [`read_packed`](crate::read_packed); element sizes up to 64 bits).
    ///
    /// ```
    /// let s: layout_runtime::Shape = "u4[2,2]{1,0:E(4)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// assert_eq!(plan.read_packed(&[0x21, 0x43], &[1, 0])?, 3);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn read_packed(&self, buf: &[u8], index: &[usize]) -> Result<u64, Error> {
        let offset = self.offset(index)?;
        let bits = u32::try_from(self.element_bits).map_err(|_| overflow("element size"))?;
        subbyte::read_packed(buf, offset, bits)
    }

    /// Writes the packed element at a logical index in `buf` (see
    /// [`write_packed`](crate::write_packed)); other elements are untouched.
    ///
    /// ```
    /// let s: layout_runtime::Shape = "f6e3m2fn[2,2]{1,0:E(6)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// let mut buf = vec![0u8; plan.byte_len()];
    /// plan.write_packed(&mut buf, &[0, 1], 0b11_1111)?;
    /// assert_eq!(buf, [0b1100_0000, 0b0000_1111, 0]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn write_packed(&self, buf: &mut [u8], index: &[usize], value: u64) -> Result<(), Error> {
        let offset = self.offset(index)?;
        let bits = u32::try_from(self.element_bits).map_err(|_| overflow("element size"))?;
        subbyte::write_packed(buf, offset, bits, value)
    }
}

/// The forward program with trivial steps folded away: a split whose tile covers the whole
/// dimension is an alias (count 0, in-tile index = the index), a split by 1 likewise; a merge
/// with a zero major part is an alias. Register `nregs - 1` is the constant 0.
fn build_forward(
    dims: &[usize],
    sizes: &[usize],
    prepended: &[Reg],
    steps: &[Step],
    cur: &[Reg],
    strides: &[usize],
) -> (Program, Vec<(Reg, usize)>, Vec<usize>) {
    let nregs = sizes.len() + 1;
    let zero = (nregs - 1) as Reg;
    let mut alias: Vec<Reg> = (0..nregs as Reg).collect();
    for &p in prepended {
        alias[p as usize] = zero;
    }
    let mut ops = Vec::new();
    for step in steps {
        match *step {
            Step::Merge { dst, a, b } => {
                let mul = sizes[b as usize];
                let (a, b) = (alias[a as usize], alias[b as usize]);
                if a == zero {
                    alias[dst as usize] = b;
                } else {
                    ops.push(Op::Lin { dst, a, mul, b, bound: usize::MAX });
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
                    let div = Divider::new(tile).expect("tile sizes are positive");
                    ops.push(Op::DivMod { src: s, q, m, div });
                }
            }
        }
    }
    let mut out_stride = vec![0usize; nregs];
    for (&r, &s) in cur.iter().zip(strides) {
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
    let inputs = (0..dims.len() as Reg).collect();
    (Program::new(ops, inputs, dims.to_vec(), nregs), out, out_stride)
}

/// The inverse program: digits of the expanded space in, logical index (registers
/// `0..rank`) out; a split becomes a multiply-add with a range check, a merge a division.
fn build_inverse(
    sizes: &[usize],
    steps: &[Step],
    cur: &[Reg],
    expanded: &[usize],
    nregs: usize,
) -> Program {
    let ops = steps
        .iter()
        .rev()
        .map(|step| match *step {
            Step::Merge { dst, a, b } => Op::DivMod {
                src: dst,
                q: a,
                m: b,
                div: Divider::new(sizes[b as usize].max(1)).expect("positive"),
            },
            Step::Split { src, q, m, tile } => {
                Op::Lin { dst: src, a: q, mul: tile, b: m, bound: sizes[src as usize] }
            }
        })
        .collect();
    Program::new(ops, cur.to_vec(), expanded.to_vec(), nregs)
}

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
            rank: plan.dims.len(),
            regs: vec![0; plan.nregs],
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
            Op::Lin { dst, a, mul, b, bound } => {
                let v = self.regs[a as usize].wrapping_mul(mul).wrapping_add(self.regs[b as usize]);
                if !FORWARD {
                    let was_bad = self.regs[dst as usize] >= bound;
                    let bad = v >= bound;
                    self.invalid = self.invalid + usize::from(bad) - usize::from(was_bad);
                }
                self.set(dst, v);
            }
            Op::DivMod { src, q, m, div } => {
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
                for &i in &prog.affected[j] {
                    self.run(i as usize);
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
/// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = s.as_array().unwrap().plan()?;
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
    /// let s: layout_runtime::Shape = "f32[2,2]{0,1}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
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
/// let s: layout_runtime::Shape = "f32[2,3]{0,1}".parse()?;
/// let plan = s.as_array().unwrap().plan()?;
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
/// let s: layout_runtime::Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = s.as_array().unwrap().plan()?;
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
    /// let s: layout_runtime::Shape = "f32[3]{0:T(2)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
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

impl ArrayShape {
    /// The [`Plan`] of this shape's index space ([`Plan::new`]).
    ///
    /// ```
    /// let s: layout_runtime::Shape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}".parse()?;
    /// let plan = s.as_array().unwrap().plan()?;
    /// assert_eq!(plan.offset(&[1, 0, 0, 0])?, 20_971_520);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn plan(&self) -> Result<Plan, Error> {
        Plan::new(self)
    }

    /// Elements of the fully expanded nested tiling (every tile level may pad, `*` merges as
    /// the tiled-layout document defines), rounded up to a multiple of `L(n)` — `L` applies
    /// here whether or not the layout is tiled. Errors as [`Plan::new`].
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let count = |t: &str| t.parse::<Shape>().unwrap().as_array().unwrap().nested_element_count();
    /// assert_eq!(count("f32[4,4]{1,0:T(2,4)(3,1)}")?, 24); // XLA's ArraySize says 16
    /// assert_eq!(count("f32[3,5]{1,0:L(64)}")?, 64);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn nested_element_count(&self) -> Result<u64, Error> {
        Ok(Plan::new(self)?.padded_len() as u64)
    }

    /// Bytes of the fully expanded nested tiling: [`ArrayShape::nested_element_count`] times
    /// `E(n)` bits (or the type's byte width × 8), rounded up to whole bytes. Differs from
    /// XLA's [`ArrayShape::byte_size`] (first tile only, `L` only when tiled) for sub-tiles
    /// that do not divide the first tile, `L` without tiles, and `*`.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let bytes = |t: &str| t.parse::<Shape>().unwrap().as_array().unwrap().nested_byte_size();
    /// assert_eq!(bytes("f32[3,5]{1,0:L(64)}")?, 256);
    /// assert_eq!(bytes("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")?, 49_728);
    /// assert_eq!(bytes("s4[3,5]{1,0:T(2,2)E(4)}")?, 12);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn nested_byte_size(&self) -> Result<u64, Error> {
        Ok(Plan::new(self)?.byte_len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dim, Layout, PrimitiveType, Tile};

    fn shape(ty: PrimitiveType, dims: &[u64], m2m: &[i64], tiles: &[&[Option<u64>]]) -> ArrayShape {
        let mut layout = Layout::new(m2m.iter().copied());
        for t in tiles {
            layout.tiles.push(Tile {
                dims: t.iter().map(|d| d.map_or(TileDim::Combine, TileDim::Size)).collect(),
            });
        }
        ArrayShape::new(ty, dims.iter().copied()).with_layout(layout)
    }

    fn check_consistent(plan: &Plan) {
        let mut seen = vec![false; plan.grid_len()];
        let mut it = plan.row_major();
        let mut n = 0;
        while let Some((index, off)) = it.next_ref() {
            assert_eq!(plan.offset(index).unwrap(), off, "{index:?}");
            assert!(!seen[off]);
            seen[off] = true;
            assert_eq!(plan.index_of(off).as_deref(), Some(index));
            n += 1;
        }
        assert_eq!(n, plan.dims().iter().product::<usize>());
        let mut it = plan.memory_order();
        let mut off = 0;
        while let Some(ix) = it.next_ref() {
            assert_eq!(ix.map(<[usize]>::to_vec), plan.index_of(off), "offset {off}");
            assert_eq!(ix.is_some(), seen[off]);
            off += 1;
        }
        assert_eq!(off, plan.grid_len());
    }

    #[test]
    fn doc_example() {
        let s = shape(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[Some(2), Some(2)]]);
        let plan = s.plan().unwrap();
        assert_eq!(plan.expanded_shape(), [2, 3, 2, 2]);
        assert_eq!(plan.offset(&[2, 3]).unwrap(), 17);
        let all: Vec<usize> = plan.row_major_offsets().collect();
        assert_eq!(all, [0, 1, 4, 5, 8, 2, 3, 6, 7, 10, 12, 13, 16, 17, 20]);
        check_consistent(&plan);
    }

    #[test]
    fn combine_chains() {
        let s = shape(
            PrimitiveType::F32,
            &[2, 7, 8, 11, 10],
            &[4, 3, 2, 1, 0],
            &[&[None, None, Some(2), None, Some(3)]],
        );
        let plan = s.plan().unwrap();
        assert_eq!(plan.expanded_shape(), [56, 37, 2, 3]);
        assert_eq!(plan.offset(&[1, 6, 7, 10, 9]).unwrap(), 12430);
        assert_eq!(plan.offset(&[0, 1, 0, 0, 0]).unwrap(), 888);
        check_consistent(&plan);
    }

    #[test]
    fn nested_merge_of_split_dims() {
        // A second level merging dims produced by the first: both programs need divisions
        // of runtime values.
        for tiles in [
            &[&[Some(3), Some(4)][..], &[None, Some(5)][..]][..],
            &[&[Some(2), Some(3)][..], &[None, None, Some(2), Some(5)][..]][..],
            &[&[None, Some(3)][..], &[Some(2), None, Some(7), Some(2)][..]][..],
        ] {
            let s = shape(PrimitiveType::F32, &[5, 7, 3], &[0, 2, 1], tiles);
            check_consistent(&s.plan().unwrap());
        }
    }

    #[test]
    fn errors() {
        let s = shape(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[Some(2), None]]);
        let e = s.plan().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TrailingCombine);
        assert_eq!(e.path().unwrap().location, Location::TileDim { tile: 0, dim: 1 });
        let s = shape(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[Some(0)]]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::InvalidTileDimension);
        let s = shape(PrimitiveType::F32, &[3, 5], &[1, 1], &[]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::MinorToMajorDuplicate);
        let s = shape(PrimitiveType::F32, &[3, 5], &[2, 0], &[]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::MinorToMajorOutOfBounds);
        let s = shape(PrimitiveType::F32, &[3, 5], &[0], &[]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::LayoutRank);
        let s = shape(PrimitiveType::F32, &[3], &[0], &[&[]]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::EmptyTile);
        let big = u64::MAX / 2;
        let s = shape(PrimitiveType::F32, &[big, 3], &[1, 0], &[]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::SizeOverflow);
        let s = shape(PrimitiveType::U8, &[u64::MAX - 1], &[0], &[&[Some(4)]]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::SizeOverflow);
        let s = shape(PrimitiveType::U8, &[1 << 62], &[0], &[&[Some(3)]]);
        assert_eq!(s.plan().unwrap().grid_len(), (1 << 62) + 2);
        let s = shape(PrimitiveType::F32, &[1 << 62], &[0], &[]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::SizeOverflow);
        let s = shape(PrimitiveType::F32, &[0, big, big], &[2, 1, 0], &[]);
        assert_eq!(s.plan().unwrap().grid_len(), 0);
        let mut s = shape(PrimitiveType::F32, &[3], &[0], &[]);
        s.dims[0] = Dim::Unbounded;
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::NotStaticArray);
        s.dims[0] = Dim::Bounded(4);
        assert_eq!(s.plan().unwrap().grid_len(), 4);
        let s = shape(PrimitiveType::Token, &[], &[], &[]);
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::NotStaticArray);
        let mut s = shape(PrimitiveType::F32, &[3], &[0], &[]);
        s.layout.as_mut().unwrap().tail_padding_alignment_in_elements = 0;
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::TailPaddingAlignment);
        let mut s = shape(PrimitiveType::F32, &[3], &[0], &[]);
        s.layout.as_mut().unwrap().element_size_in_bits = -1;
        assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::NegativeElementSize);
    }

    #[test]
    fn scalars_and_empty() {
        let s = shape(PrimitiveType::U32, &[], &[], &[&[Some(128)]]);
        let plan = s.plan().unwrap();
        assert_eq!(plan.expanded_shape(), [1, 128]);
        assert_eq!(plan.offset(&[]).unwrap(), 0);
        assert_eq!(plan.row_major().collect::<Vec<_>>(), [(vec![], 0)]);
        check_consistent(&plan);
        let s = shape(PrimitiveType::F32, &[], &[], &[]);
        check_consistent(&s.plan().unwrap());
        let s = shape(PrimitiveType::F32, &[0, 3], &[1, 0], &[&[Some(2), Some(2)]]);
        let plan = s.plan().unwrap();
        assert_eq!(plan.expanded_shape(), [0, 2, 2, 2]);
        assert_eq!(plan.grid_len(), 0);
        assert_eq!(plan.row_major().count(), 0);
        assert_eq!(plan.memory_order().count(), 0);
        assert_eq!(plan.index_of(0), None);
        assert_eq!(plan.offset(&[0, 0]).unwrap_err().kind(), ErrorKind::IndexOutOfBounds);
    }

    #[test]
    fn tables_and_program_agree() {
        // Small enough to tabulate, and one dimension too many entries for tables: both paths
        // give the closed form of T(8,128) over a row-major [r, c] array.
        let closed = |i: usize, j: usize, cols: usize| {
            ((i / 8) * cols.div_ceil(128) + j / 128) * 1024 + (i % 8) * 128 + j % 128
        };
        for rows in [20, TABLE_LIMIT + 3] {
            let s =
                shape(PrimitiveType::F32, &[rows as u64, 300], &[1, 0], &[&[Some(8), Some(128)]]);
            let plan = s.plan().unwrap();
            assert_eq!(plan.tables.is_some(), rows == 20);
            for i in [0, 1, 7, 8, 9, rows - 1] {
                for j in [0, 127, 128, 299] {
                    assert_eq!(plan.offset(&[i, j]).unwrap(), closed(i, j, 300), "{rows} {i} {j}");
                }
            }
            let row_major: Vec<usize> = plan.row_major_offsets().take(600).collect();
            let expected: Vec<usize> = (0..600).map(|k| closed(k / 300, k % 300, 300)).collect();
            assert_eq!(row_major, expected);
        }
        // Out of range, unchecked: a number, no panic, on both paths.
        let s = shape(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[Some(2), Some(2)]]);
        let plan = s.plan().unwrap();
        assert!(plan.tables.is_some());
        let _ = plan.offset_unchecked(&[usize::MAX, 7, 9]);
        let _ = plan.offset_unchecked(&[]);
    }

    #[test]
    fn many_registers_use_the_heap_path() {
        let tiles: Vec<&[Option<u64>]> = vec![&[Some(2), Some(2), Some(2)]; 10];
        let s = shape(PrimitiveType::F32, &[3, 3, 3], &[2, 1, 0], &tiles);
        let plan = s.plan().unwrap();
        assert!(plan.nregs > INLINE_REGS);
        check_consistent(&plan);
    }
}
