//! The limits of this crate, all in one place: sizes no real shape reaches and every hostile
//! input hits early, so that any input gives an answer or an error in bounded time and
//! memory, and no input of any size overflows the stack.
//!
//! | limit | value | what it bounds | error |
//! | --- | --- | --- | --- |
//! | [`MAX_NESTING`] | 64 | tuples and buffers inside each other | [`ErrorKind::NestingTooDeep`] |
//! | [`MAX_RANK`] | 256 | dimensions of an array, entries of minor_to_major, entries of one tile, split configs of one layout | [`ErrorKind::RankTooLarge`] |
//! | [`MAX_TILE_LEVELS`] | 16 | tile levels of one layout (`T(..)(..)...`) | [`ErrorKind::TooManyTileLevels`] |
//! | [`MAX_COMPARED_ELEMENTS`] | 2²⁴ | elements two layouts are compared one by one, when a `*` gives one of them no form ([`algebra`](crate::algebra)) | [`ErrorKind::WorkLimit`] |
//! | [`MAX_LAYOUT_CANDIDATES`] | 20 000 | dimension orders tried for a layout that makes a reshape or transpose a bitcast | [`ErrorKind::WorkLimit`] |
//!
//! XLA's own shapes are far inside them: tuples a few levels deep, ranks below 10 (numpy
//! allows 64), one to three tile levels. The parser reports a limit at the text that crosses
//! it; [`ArrayShape::check`] reports it for shapes built in code, after the verifier's own
//! checks. The `layout!` macro adds its own limit on the text it reads.
//!
//! ```
//! use layout_runtime::{limits, ErrorKind, Shape};
//! let deep = format!("{}f32[]{}", "(".repeat(65), ")".repeat(65));
//! assert_eq!(deep.parse::<Shape>().unwrap_err().kind(), ErrorKind::NestingTooDeep);
//! let dims = vec!["1"; limits::MAX_RANK + 1].join(",");
//! let e = format!("f32[{dims}]").parse::<Shape>().unwrap_err();
//! assert_eq!(e.kind(), ErrorKind::RankTooLarge);
//! assert_eq!(e.span(), Some(4 + 2 * limits::MAX_RANK..5 + 2 * limits::MAX_RANK)); // the 257th
//! ```

use alloc::format;
use alloc::string::String;

use crate::{ArrayShape, Error, ErrorKind, Location};

/// Tuples (and buffers) nested in each other, at most.
pub const MAX_NESTING: usize = 64;

/// Dimensions of an array at most; also the most entries of minor_to_major, of one tile and
/// split configs of one layout.
pub const MAX_RANK: usize = 256;

/// Tile levels of one layout at most.
pub const MAX_TILE_LEVELS: usize = 16;

/// Elements two index maps are compared one by one at most. Only layouts whose `*` merges
/// dimensions in transposed order are compared that way (every other pair is compared from
/// dimensions, orders and tiles); 2²⁴ elements take tens of milliseconds.
pub const MAX_COMPARED_ELEMENTS: usize = 1 << 24;

/// Dimension orders tried at most when looking for the layout that makes a reshape or a
/// transpose to a tiled shape a bitcast: the orders of the dimensions the tiles reach
/// (rank 8 under a rank-2 tile: 56).
pub const MAX_LAYOUT_CANDIDATES: usize = 20_000;

/// Characters of a token (a name, a number) that an error message quotes at most.
pub const QUOTED_TOKEN: usize = 40;

/// `text` quoted in a message: in backticks, at most `max_chars` characters of it (then
/// `...`), so that no message echoes a megabyte-long name or line. The one quoting rule of
/// the workspace's messages: the parser's tokens, the command's arguments, the HLO
/// reader's lines.
///
/// ```
/// use layout_runtime::limits::{quote, QUOTED_TOKEN};
/// assert_eq!(quote("f32", QUOTED_TOKEN), "`f32`");
/// assert_eq!(quote(&"x".repeat(100), 3), "`xxx...`");
/// assert_eq!(quote("éé", 1), "`é...`"); // characters, not bytes
/// ```
pub fn quote(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => format!("`{}...`", &text[..end]),
        None => format!("`{text}`"),
    }
}

/// Characters of a shape that an error message quotes at most.
pub const QUOTED_SHAPE: usize = 200;

/// [`quote`] of what `value` displays, written out no further than `max_chars` characters:
/// a message about a shape of a million leaves costs what one about a short shape costs,
/// not a copy of the whole text (a caller that asks about every row of a report would
/// otherwise copy megabytes per row).
///
/// ```
/// use layout_runtime::limits::quote_shown;
/// let wide: layout_runtime::Shape = format!("({})", vec!["f32[]"; 1000].join(", ")).parse()?;
/// assert_eq!(quote_shown(&wide, 12), "`(f32[], f32[...`");
/// assert_eq!(quote_shown(&"f32[2]{0}".parse::<layout_runtime::Shape>()?, 12), "`f32[2]{0}`");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn quote_shown(value: &impl core::fmt::Display, max_chars: usize) -> String {
    /// Keeps the first `left` characters written to it, then refuses the rest, which stops
    /// the formatting.
    struct Prefix {
        text: String,
        left: usize,
        cut: bool,
    }
    impl core::fmt::Write for Prefix {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            for c in s.chars() {
                if self.left == 0 {
                    self.cut = true;
                    return Err(core::fmt::Error);
                }
                self.text.push(c);
                self.left -= 1;
            }
            Ok(())
        }
    }
    let mut p = Prefix { text: String::from("`"), left: max_chars, cut: false };
    // An error here is the prefix refusing more: what was kept is the quote.
    let _ = core::fmt::write(&mut p, format_args!("{value}"));
    p.text += if p.cut { "...`" } else { "`" };
    p.text
}

/// The error for a nesting one level past [`MAX_NESTING`].
pub(crate) fn nesting() -> Error {
    Error::new(
        ErrorKind::NestingTooDeep,
        format!(
            "tuples are nested more than {MAX_NESTING} deep, this crate's limit (XLA's shapes \
             nest a few levels)"
        ),
    )
}

/// The error for the `(MAX_RANK + 1)`-th entry of a list of `what`.
pub(crate) fn rank(what: &str) -> Error {
    Error::new(
        ErrorKind::RankTooLarge,
        format!("more than {MAX_RANK} {what}, this crate's limit (XLA's ranks are far smaller)"),
    )
}

/// The error for the `(MAX_TILE_LEVELS + 1)`-th tile level.
pub(crate) fn tile_levels() -> Error {
    Error::new(
        ErrorKind::TooManyTileLevels,
        format!(
            "more than {MAX_TILE_LEVELS} tile levels, this crate's limit (XLA's layouts have \
             one to three)"
        ),
    )
}

/// The limits on an array shape's model (a parsed shape is within them already).
pub(crate) fn check_array(a: &ArrayShape) -> Result<(), Error> {
    use crate::error::at;
    if a.dims.len() > MAX_RANK {
        return Err(rank("dimensions").with_path(at(Location::Dim(MAX_RANK))));
    }
    let Some(layout) = &a.layout else { return Ok(()) };
    if layout.minor_to_major.len() > MAX_RANK {
        let location = Location::MinorToMajor(MAX_RANK);
        return Err(rank("minor_to_major entries").with_path(at(location)));
    }
    if layout.tiles.len() > MAX_TILE_LEVELS {
        return Err(tile_levels().with_path(at(Location::Tile(MAX_TILE_LEVELS))));
    }
    if let Some(t) = layout.tiles.iter().position(|t| t.dims.len() > MAX_RANK) {
        let location = Location::TileDim { tile: t, dim: MAX_RANK };
        return Err(rank("entries in one tile").with_path(at(location)));
    }
    if layout.split_configs.len() > MAX_RANK {
        let location = Location::SplitConfig(MAX_RANK);
        return Err(rank("split configs").with_path(at(location)));
    }
    Ok(())
}
