//! The window a map draws: which rows and columns of a slice, at most [`MAX_CELLS`] cells.
//! The SVG map and the command's text map choose their windows by these rules.

use alloc::format;
use alloc::string::String;
use core::fmt::Write;

use crate::{Error, ErrorKind};

/// Cells per panel at most, whatever the window asks for; a larger request is cut to its
/// top-left part and the picture says so.
pub const MAX_CELLS: usize = 16384;
/// The widest memory row, in cells.
pub const MAX_MEMORY_ROW: usize = 256;

/// The rows and columns of a slice that a map draws: `rows` x `cols` cells from `origin`,
/// inside an extent of cells, at most [`MAX_CELLS`] of them. The SVG map
/// ([`MapOptions::origin`], [`MapOptions::window`]) and the command's text map choose their
/// windows by these rules, so the same origin and size mean the same cells in both.
///
/// [`MapOptions::origin`]: super::MapOptions::origin
/// [`MapOptions::window`]: super::MapOptions::window
///
/// ```
/// use xlayout::draw::Window;
/// // 4 rows and 4 columns from row 6, column 126 of a 16x256 slice.
/// let w = Window::new("element", (16, 256), (6, 126), Some((4, 4)), (16, 256))?;
/// assert_eq!((w.rows, w.cols), (4, 4));
/// assert_eq!(w.describe().as_deref(),
///            Some("showing element rows 6..10 of 16, columns 126..130 of 256"));
/// // A window larger than the cap keeps 256 columns and as many rows as fit.
/// let w = Window::new("element", (4096, 4096), (0, 0), Some((1000, 1000)), (64, 64))?;
/// assert_eq!((w.rows, w.cols, w.capped), (64, 256, true));
/// // Past the extent: cut to it. An origin outside it, or an empty window: errors.
/// assert_eq!(Window::new("element", (3, 5), (1, 1), Some((9, 9)), (3, 5))?.rows, 2);
/// let e = Window::new("element", (3, 5), (3, 0), None, (3, 5)).unwrap_err();
/// assert_eq!(e.message(), "the window origin (3,0) is outside the 3x5 elements drawn");
/// assert!(Window::new("element", (3, 5), (0, 0), Some((0, 2)), (3, 5)).is_err());
/// // No rows, 2^31 columns: their labels are drawn, so they count as one row's cells.
/// let w = Window::new("element", (0, 1 << 31), (0, 0), None, (0, 1 << 31))?;
/// assert_eq!((w.rows, w.cols, w.capped), (0, 256, true));
/// # Ok::<(), xlayout::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// What a cell is, for messages: `element`, `tile`.
    pub unit: &'static str,
    /// The top-left cell, (row, column).
    pub origin: (usize, usize),
    /// The rows drawn.
    pub rows: usize,
    /// The columns drawn.
    pub cols: usize,
    /// The rows and columns of the whole extent.
    pub extent: (usize, usize),
    /// Whether the size asked for was cut to [`MAX_CELLS`] cells.
    pub capped: bool,
    /// Whether the size was asked for (else the default was used).
    pub chosen: bool,
}

impl Window {
    /// The window of `size` cells from `origin` (`default` when `size` is `None`) in an
    /// extent of `extent` cells: cut to the extent, then, when it has more than
    /// [`MAX_CELLS`] cells, to its first [`MAX_MEMORY_ROW`] columns and as many rows as fit.
    ///
    /// Errors ([`ErrorKind::IndexOutOfBounds`]): an origin other than (0, 0) outside the
    /// extent, a size with no rows or no columns.
    pub fn new(
        unit: &'static str,
        extent: (usize, usize),
        origin: (usize, usize),
        size: Option<(usize, usize)>,
        default: (usize, usize),
    ) -> Result<Window, Error> {
        let (r0, c0) = origin;
        let (er, ec) = extent;
        if (r0, c0) != (0, 0) && (r0 >= er || c0 >= ec) {
            return Err(Error::new(
                ErrorKind::IndexOutOfBounds,
                format!("the window origin ({r0},{c0}) is outside the {er}x{ec} {unit}s drawn"),
            ));
        }
        if matches!(size, Some((0, _) | (_, 0))) {
            return Err(Error::new(
                ErrorKind::IndexOutOfBounds,
                "a window needs at least one row and one column",
            ));
        }
        let (r, c) = size.unwrap_or(default);
        let (mut rows, mut cols) = (r.min(er.saturating_sub(r0)), c.min(ec.saturating_sub(c0)));
        // Sized by what is drawn: a row and a column are drawn (their labels) even when the
        // other has none (a slice with no rows, under tiles of 2^31 columns, draws no cell but
        // would label every column).
        let capped = rows.max(1).saturating_mul(cols.max(1)) > MAX_CELLS;
        if capped {
            cols = cols.min(MAX_MEMORY_ROW);
            rows = rows.min(MAX_CELLS / cols.max(1));
        }
        Ok(Window { unit, origin, rows, cols, extent, capped, chosen: size.is_some() })
    }

    /// Whether the window is the whole extent.
    pub fn is_whole(&self) -> bool {
        (self.origin, self.rows, self.cols) == ((0, 0), self.extent.0, self.extent.1)
    }

    /// What a picture says about the window: which rows and columns it shows of how many,
    /// and why no more (the cap, or no window chosen); `None` for the whole extent.
    pub fn describe(&self) -> Option<String> {
        if self.is_whole() {
            return None;
        }
        let ((r0, c0), (er, ec)) = (self.origin, self.extent);
        let mut n = format!(
            "showing {} rows {r0}..{} of {er}, columns {c0}..{} of {ec}",
            self.unit,
            r0 + self.rows,
            c0 + self.cols
        );
        if self.capped {
            let _ = write!(n, " (at most {MAX_CELLS} cells per panel)");
        } else if !self.chosen {
            n += " (choose a window to see more)";
        }
        Some(n)
    }
}
