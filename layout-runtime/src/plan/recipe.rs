//! The layout in other words: the pad-reshape-transpose recipe (numpy / JAX operations that
//! produce the buffer from the logical array) and names for the axes of the expanded grid.
//! Both read the tile levels the builder computed; nothing here recomputes a shape.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use super::level::TileLevel;
use super::program::Op;
use super::Plan;

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
/// use layout_runtime::ArrayShape;
/// let s: ArrayShape = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let plan = s.plan()?;
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
        let widths: Vec<PadWidth> = self
            .0
            .iter()
            .zip(self.1)
            .map(|(&from, &to)| PadWidth(to.saturating_sub(from)))
            .collect();
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
        for (i, level) in self.levels.iter().enumerate() {
            write!(f, "# tile level {i}: ")?;
            py_tuple(f, &level.tile)?;
            f.write_str("\n")?;
            let expanded = level.with_leading_axes();
            if level.expand_dims > 0 {
                f.write_str("a = a.reshape(")?;
                py_tuple(f, &expanded)?;
                f.write_str(")  # leading size-1 axes for a longer tile\n")?;
            }
            if level.merged_shape != expanded {
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
        }
        // The product may not fit (a zero extent makes an empty grid of huge other extents).
        let grid = if self.expanded_shape.contains(&0) {
            Some(0)
        } else {
            self.expanded_shape.iter().try_fold(1usize, |n, &e| n.checked_mul(e))
        };
        match grid {
            Some(grid) => writeln!(f, "buf = a.reshape(-1)  # {grid} elements; buf[offset]")?,
            None => writeln!(f, "buf = a.reshape(-1)  # buf[offset]")?,
        }
        if self.tail_padding > 0 {
            writeln!(f, "buf = np.pad(buf, (0, {}))  # L: tail padding", self.tail_padding)?;
        }
        Ok(())
    }
}

impl Plan {
    /// The layout as a numpy / JAX recipe (transpose, pad, reshape, transpose per level).
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "f32[3,5]{0,1:T(2,2)}".parse()?;
    /// let r = s.plan()?.pad_reshape_transpose();
    /// assert_eq!(r.to_physical, [1, 0]); // dimension 1 is the most major
    /// assert_eq!(r.levels[0].pad_to, [6, 4]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn pad_reshape_transpose(&self) -> PadReshapeTranspose {
        let space = &self.space;
        PadReshapeTranspose {
            logical_shape: space.dims.clone(),
            to_physical: space.to_physical.clone(),
            levels: space.levels.clone(),
            expanded_shape: space.expanded.clone(),
            tail_padding: space.padded_len - space.grid_len,
        }
    }

    /// The tile levels as the builder computed them (input shape, `*` merges, padding,
    /// reshape and transpose of each), borrowed: [`Plan::pad_reshape_transpose`] without the
    /// copy.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse()?;
    /// let plan = s.plan()?;
    /// let levels = plan.tile_levels();
    /// assert_eq!(levels[0].input_shape, [16, 256]);
    /// assert_eq!(levels[1].input_shape, [2, 2, 8, 128]);
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn tile_levels(&self) -> &[TileLevel] {
        &self.space.levels
    }

    /// A name for each axis of [`Plan::expanded_shape`], in terms of the logical index
    /// `d0, d1, ...`: `d1/128` is a tile count, `d1%128` a position inside a tile, `d0*5+d1`
    /// a `*` merge, `0` an axis that is always 0 (a leading size-1 axis added for a tile
    /// longer than the space, or the inner axis of a tile entry 1). For people: the CLI's
    /// `explain` prints them. A part longer than 40 characters (nested `*` merges name
    /// their axes in terms of ever longer ones) is written `…`, so each name stays short.
    ///
    /// ```
    /// let s: layout_runtime::ArrayShape = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse()?;
    /// let names = s.plan()?.expanded_axis_names();
    /// assert_eq!(names, ["d0/8", "d1/128", "(d0%8)/2", "d1%128", "(d0%8)%2", "0"]);
    ///
    /// // Sixteen levels of `*` merges: the names stay short.
    /// let s: layout_runtime::ArrayShape = format!("f32[4,4]{{1,0:T{}}}", "(*,2)".repeat(16)).parse()?;
    /// let names = s.plan()?.expanded_axis_names();
    /// assert!(names.iter().all(|n| n.len() < 100), "{names:?}");
    /// assert!(names.iter().any(|n| n.contains('…')));
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn expanded_axis_names(&self) -> Vec<String> {
        fn term(name: &str) -> String {
            if name.len() > 40 {
                String::from("…")
            } else if name.bytes().all(|b| b.is_ascii_alphanumeric()) {
                String::from(name)
            } else {
                format!("({name})")
            }
        }
        // Registers never written by a step are the leading size-1 axes: always 0.
        let mut names: Vec<String> = vec![String::from("0"); self.space.registers()];
        for (i, name) in names.iter_mut().enumerate().take(self.rank()) {
            *name = format!("d{i}");
        }
        // The inverse program is the steps run backwards; walk it forwards again.
        for op in self.inverse.ops.iter().rev() {
            match *op {
                Op::MulAdd { dst: src, a: q, multiplier: tile, b: m, .. } => {
                    let x = names[src as usize].clone();
                    let (outer, inner) = match (x.as_str(), tile) {
                        ("0", _) => (x.clone(), x),
                        (_, 1) => (x, String::from("0")),
                        _ => (format!("{}/{tile}", term(&x)), format!("{}%{tile}", term(&x))),
                    };
                    names[q as usize] = outer;
                    names[m as usize] = inner;
                }
                Op::DivRem { src: dst, quotient: a, remainder: b, div } => {
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
}
