//! Is a reshape or transpose a bitcast: the answer of [`algebra`] as one
//! record, what `xlayout bitcast` prints (for a person, as JSON, as a TSV row) and what the
//! Python package's `Shape.bitcast` returns.

use serde::Serialize;

use crate::algebra::{self, xla, Reason};
use crate::memory::units;
use crate::{ArrayShape, Error};

/// The answer about a reshape (or transpose) from one shape to another; its fields are the
/// keys of `xlayout bitcast --format json` (and the columns of `--format tsv`).
///
/// ```
/// let a = xlayout::bitcast::Answer::new(
///     &"f32[4,128]{1,0:T(8,128)}".parse()?,
///     &"f32[4,1,128]{2,1,0:T(8,128)}".parse()?,
///     None,
/// )?;
/// assert!(!a.bitcast && a.xla_open_source); // XLA's tile-blind answer differs
/// assert_eq!(a.bitcast_layout.as_deref(), Some("f32[4,1,128]{2,0,1:T(8,128)}"));
/// assert_eq!((a.moved_from_offset, a.moved_to_offset), (Some(128), Some(1024)));
/// assert_eq!((a.read_bytes, a.written_bytes), (Some(4096), Some(16384)));
/// # Ok::<(), xlayout::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// The operand, as XLA prints it.
    pub from: String,
    /// The result.
    pub to: String,
    /// A transpose's dimensions (result dimension `i` is operand dimension
    /// `transpose[i]`); `None` for a reshape.
    pub transpose: Option<Vec<usize>>,
    /// Whether every element stays where it is.
    pub bitcast: bool,
    /// `to`'s dimensions under a layout that makes it a bitcast (`to`'s tiles and other
    /// fields kept): `to` itself when it is one already; `None` when no order does.
    pub bitcast_layout: Option<String>,
    /// Why, in a sentence ([`Reason`]'s).
    pub reason: String,
    /// The first element that moves: its row-major position in the result.
    pub moved_position: Option<u64>,
    /// Its index in the operand.
    pub moved_from_index: Option<Vec<u64>>,
    /// Its index in the result.
    pub moved_to_index: Option<Vec<u64>>,
    /// Its offset in the operand's buffer.
    pub moved_from_offset: Option<u64>,
    /// Its offset in the result's buffer.
    pub moved_to_offset: Option<u64>,
    /// What a copy would read when it is not a bitcast: the operand's bytes (XLA's
    /// `ArraySize`).
    pub read_bytes: Option<u64>,
    /// What it would write: the result's bytes.
    pub written_bytes: Option<u64>,
    /// What XLA's open-source `ReshapeIsBitcast` (or `TransposeIsBitcast`) answers: it looks
    /// at minor_to_major only.
    pub xla_open_source: bool,
}

impl Answer {
    /// Asks about a reshape from `from` to `to`, or with `transpose` a transpose with those
    /// dimensions. Errors: those of [`algebra::check_reshape`] and
    /// [`algebra::check_transpose`].
    pub fn new(
        from: &ArrayShape,
        to: &ArrayShape,
        transpose: Option<Vec<usize>>,
    ) -> Result<Answer, Error> {
        let (reason, layout, xla_says) = match &transpose {
            Some(d) => (
                algebra::check_transpose(from, to, d, false)?,
                algebra::transpose_bitcast_layout(from, to, d)?,
                xla::transpose_is_bitcast(from, to, d, false)?,
            ),
            None => (
                algebra::check_reshape(from, to, false)?,
                algebra::reshape_bitcast_layout(from, to)?,
                xla::reshape_is_bitcast(from, to, false)?,
            ),
        };
        let bitcast = reason.is_bitcast();
        let moved = match &reason {
            Reason::Moves(m) => Some(m),
            _ => None,
        };
        // XLA's ArraySize; a first tile with `*` has none, and then the grid's size counts.
        let size = |s: &ArrayShape| s.byte_size().or_else(|_| s.nested_byte_size()).ok();
        Ok(Answer {
            from: from.to_string(),
            to: to.to_string(),
            transpose,
            bitcast,
            bitcast_layout: layout.map(|l| l.to_string()),
            reason: reason.to_string(),
            moved_position: moved.map(|m| m.position),
            moved_from_index: moved.map(|m| m.from_index.clone()),
            moved_to_index: moved.map(|m| m.to_index.clone()),
            moved_from_offset: moved.map(|m| m.from_offset),
            moved_to_offset: moved.map(|m| m.to_offset),
            read_bytes: if bitcast { None } else { size(from) },
            written_bytes: if bitcast { None } else { size(to) },
            xla_open_source: xla_says,
        })
    }

    /// The answer for a person: `a bitcast: ...` or `not a bitcast: ...`, the bytes a copy
    /// would move, the layout of the result that would make it a bitcast, XLA's open-source
    /// answer when it differs, and the two shapes.
    ///
    /// ```
    /// let a = xlayout::bitcast::Answer::new(&"f32[8,128]".parse()?, &"f32[1024]".parse()?, None)?;
    /// assert!(a.text().starts_with("a bitcast: every element stays where it is\n"));
    /// # Ok::<(), xlayout::Error>(())
    /// ```
    pub fn text(&self) -> String {
        let (what, xla) = match self.transpose {
            Some(_) => ("transpose", "TransposeIsBitcast"),
            None => ("reshape", "ReshapeIsBitcast"),
        };
        let mut s = format!(
            "{}: {}\n",
            if self.bitcast { "a bitcast" } else { "not a bitcast" },
            self.reason
        );
        if let (Some(r), Some(w)) = (self.read_bytes, self.written_bytes) {
            s += &format!(
                "a copy would move {}: it reads {} and writes {}\n",
                bytes(r.saturating_add(w)),
                bytes(r),
                bytes(w)
            );
        }
        if !self.bitcast {
            match &self.bitcast_layout {
                Some(l) => s += &format!("a bitcast with TO laid out as {l}\n"),
                None => s += "no layout of TO's dimensions (its tiles kept) makes it a bitcast\n",
            }
        }
        if self.xla_open_source != self.bitcast {
            let says = if self.xla_open_source { "it is one" } else { "it is not" };
            s += &format!(
                "XLA's open-source {xla} says {says}: it looks at minor_to_major only, not tiles or sizes\n"
            );
        }
        let dims =
            self.transpose.as_ref().map_or_else(String::new, |d| format!(" with dimensions {d:?}"));
        s + &format!("  {what}{dims} from {}\n  to {}\n", self.from, self.to)
    }
}

/// `4096 bytes (4.0K)`.
fn bytes(n: u64) -> String {
    let shown = units::oom_bytes(n);
    if shown == format!("{n}B") {
        format!("{n} bytes")
    } else {
        format!("{n} bytes ({shown})")
    }
}
