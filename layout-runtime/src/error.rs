//! Errors: a kind to match on, a sentence for a person, and where in the text it happened.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write as _};
use core::ops::Range;

/// What went wrong, as a class. Each kind is one rule of XLA's parser or verifier (or one
/// limit of this crate); the [`Error`] message says the details.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text does not follow the grammar (a token is missing, misplaced or unexpected,
    /// a layout field is out of order or repeated).
    Syntax,
    /// An identifier where an element type belongs is no XLA type name.
    UnknownType,
    /// An integer literal does not fit in int64 (XLA would silently wrap it).
    IntegerOutOfRange,
    /// A dimension size is negative (or a `<=` bound is).
    NegativeDimension,
    /// `token` or `opaque` written with dimensions (XLA's parser aborts on it).
    DimensionsOnNonArray,
    /// `b(...)` around something that is not an array shape.
    BufferOfNonArray,
    /// The number of minor_to_major entries is not the rank.
    LayoutRank,
    /// `P(...)`: a physical shape, only meaningful for sparse arrays.
    PhysicalShape,
    /// A `D(...)` entry is not one of `D`, `C`, `S`, `H`.
    DimLevelType,
    /// `L(n)` with n < 1 (XLA aborts on it).
    TailPaddingAlignment,
    /// A negative tile entry other than `*` (XLA aborts on it).
    NegativeTileDimension,
    /// The array's byte size may overflow int64 (`ShapeUtil::ValidateShape`).
    ShapeTooLarge,
    /// A minor_to_major entry is not in `[0, rank)`.
    MinorToMajorOutOfBounds,
    /// A minor_to_major entry appears twice.
    MinorToMajorDuplicate,
    /// `#(t)`: an index type on a dense array.
    IndexPrimitiveType,
    /// `*(t)`: a pointer type on a dense array.
    PointerPrimitiveType,
    /// A tile with no entries.
    EmptyTile,
    /// A tile entry that is neither positive nor `*`.
    InvalidTileDimension,
    /// `E(n)` with n < 0.
    NegativeElementSize,
    /// A split config names a physical dimension out of range.
    SplitConfigDimension,
    /// Two split configs name the same physical dimension.
    SplitConfigDuplicate,
    /// Split indices that are not strictly increasing and positive.
    SplitConfigIndices,
    /// A split index not below the size of its dimension.
    SplitConfigIndexOutOfBounds,
    /// A `*` as the last entry of a tile: nothing to combine it with (no meaning in the
    /// tiled-layout document, so no offsets or sizes can be computed).
    TrailingCombine,
    /// XLA's `ShapeUtil::ArraySize` has no defined value for a first tile containing `*`
    /// (it computes with −2⁶³ as if it were a size); use the nested-grid size instead.
    CombinedDimension,
    /// The operation needs a static array shape and got a tuple, token, opaque, buffer or
    /// a dynamic dimension.
    NotStaticArray,
    /// A size or offset does not fit in the integer type that must hold it.
    SizeOverflow,
    /// A logical index has the wrong rank or an entry out of range.
    IndexOutOfBounds,
    /// A buffer's length does not match what its shape needs.
    BufferLength,
    /// Two buffers that must not share memory (the source and destination of a relayout)
    /// do: see [`RelayoutPlan::check_buffers`](crate::RelayoutPlan::check_buffers).
    BufferOverlap,
    /// The element type does not match what the operation needs.
    ElementType,
    /// Two shapes that must agree (element type, dimensions) do not.
    ShapeMismatch,
    /// Tuples nested deeper than [`limits::MAX_NESTING`](crate::limits::MAX_NESTING).
    NestingTooDeep,
    /// More dimensions (or minor_to_major entries, tile entries, split configs) than
    /// [`limits::MAX_RANK`](crate::limits::MAX_RANK).
    RankTooLarge,
    /// More tile levels than [`limits::MAX_TILE_LEVELS`](crate::limits::MAX_TILE_LEVELS).
    TooManyTileLevels,
    /// A question about two layouts that would take more work than
    /// [`limits::MAX_COMPARED_ELEMENTS`](crate::limits::MAX_COMPARED_ELEMENTS) or
    /// [`limits::MAX_LAYOUT_CANDIDATES`](crate::limits::MAX_LAYOUT_CANDIDATES) allow (a `*`
    /// over dimensions in transposed order, compared element by element; a search over
    /// too many dimension orders).
    WorkLimit,
}

impl ErrorKind {
    /// The kind's name: the variant's name as written here (`"Syntax"`, `"UnknownType"`,
    /// ...). These names are a stable contract: Python's `xlayout.Error.kind` is this string,
    /// and a kind keeps its name for as long as it exists (a new kind gets a new name).
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Shape};
    /// assert_eq!(ErrorKind::UnknownType.as_str(), "UnknownType");
    /// let err = "f31[3]".parse::<Shape>().unwrap_err();
    /// assert_eq!(err.kind().as_str(), "UnknownType");
    /// assert_eq!(err.kind().to_string(), "UnknownType");
    /// ```
    pub const fn as_str(self) -> &'static str {
        // No `_` arm: a new kind does not compile until it is given its name here.
        match self {
            ErrorKind::Syntax => "Syntax",
            ErrorKind::UnknownType => "UnknownType",
            ErrorKind::IntegerOutOfRange => "IntegerOutOfRange",
            ErrorKind::NegativeDimension => "NegativeDimension",
            ErrorKind::DimensionsOnNonArray => "DimensionsOnNonArray",
            ErrorKind::BufferOfNonArray => "BufferOfNonArray",
            ErrorKind::LayoutRank => "LayoutRank",
            ErrorKind::PhysicalShape => "PhysicalShape",
            ErrorKind::DimLevelType => "DimLevelType",
            ErrorKind::TailPaddingAlignment => "TailPaddingAlignment",
            ErrorKind::NegativeTileDimension => "NegativeTileDimension",
            ErrorKind::ShapeTooLarge => "ShapeTooLarge",
            ErrorKind::MinorToMajorOutOfBounds => "MinorToMajorOutOfBounds",
            ErrorKind::MinorToMajorDuplicate => "MinorToMajorDuplicate",
            ErrorKind::IndexPrimitiveType => "IndexPrimitiveType",
            ErrorKind::PointerPrimitiveType => "PointerPrimitiveType",
            ErrorKind::EmptyTile => "EmptyTile",
            ErrorKind::InvalidTileDimension => "InvalidTileDimension",
            ErrorKind::NegativeElementSize => "NegativeElementSize",
            ErrorKind::SplitConfigDimension => "SplitConfigDimension",
            ErrorKind::SplitConfigDuplicate => "SplitConfigDuplicate",
            ErrorKind::SplitConfigIndices => "SplitConfigIndices",
            ErrorKind::SplitConfigIndexOutOfBounds => "SplitConfigIndexOutOfBounds",
            ErrorKind::TrailingCombine => "TrailingCombine",
            ErrorKind::CombinedDimension => "CombinedDimension",
            ErrorKind::NotStaticArray => "NotStaticArray",
            ErrorKind::SizeOverflow => "SizeOverflow",
            ErrorKind::IndexOutOfBounds => "IndexOutOfBounds",
            ErrorKind::BufferLength => "BufferLength",
            ErrorKind::BufferOverlap => "BufferOverlap",
            ErrorKind::ElementType => "ElementType",
            ErrorKind::ShapeMismatch => "ShapeMismatch",
            ErrorKind::NestingTooDeep => "NestingTooDeep",
            ErrorKind::RankTooLarge => "RankTooLarge",
            ErrorKind::TooManyTileLevels => "TooManyTileLevels",
            ErrorKind::WorkLimit => "WorkLimit",
        }
    }
}

/// Writes [`ErrorKind::as_str`].
impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where in a shape a problem is: the part of the model, independent of any text.
///
/// The parser records the byte range of each of these parts; [`Error::span`] resolves a
/// location to bytes when the shape came from text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Location {
    /// The whole (sub)shape.
    Shape,
    /// The element type name.
    ElementType,
    /// Dimension `i` (logical).
    Dim(usize),
    /// The whole layout `{...}`.
    Layout,
    /// Entry `i` of minor_to_major.
    MinorToMajor(usize),
    /// Tile `i` (0 = first level).
    Tile(usize),
    /// Entry `dim` of tile `tile`.
    TileDim {
        /// Tile level, 0 first.
        tile: usize,
        /// Entry in the tile, 0 most major.
        dim: usize,
    },
    /// The value of `L(n)`.
    TailPadding,
    /// The type of `#(t)`.
    IndexType,
    /// The type of `*(t)`.
    PointerType,
    /// The value of `E(n)`.
    ElementSize,
    /// The value of `S(n)`.
    MemorySpace,
    /// Split config `i` as a whole.
    SplitConfig(usize),
    /// The dimension number of split config `i`.
    SplitDim(usize),
    /// Index `index` of split config `split`.
    SplitIndex {
        /// Which split config.
        split: usize,
        /// Which index in it.
        index: usize,
    },
    /// The value of `M(n)`.
    Metadata,
}

/// A location inside a possibly nested shape: the tuple element path (outermost first),
/// then the part. An array or buffer at the top level has an empty path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path {
    /// Indices into nested tuples, outermost first.
    pub tuple_indices: Vec<usize>,
    /// The part of the array shape at that position.
    pub location: Location,
}

/// The path of a part of a shape outside any tuple (an array at the top level).
pub(crate) fn at(location: Location) -> Path {
    Path { tuple_indices: Vec::new(), location }
}

/// [`ErrorKind::SizeOverflow`]: `what` does not fit in `holder`, the type it is computed in
/// (`usize` for an index space, [`INT64`] for XLA's own sizes).
pub(crate) fn overflow(what: &str, holder: &str) -> Error {
    Error::new(ErrorKind::SizeOverflow, alloc::format!("the {what} does not fit in {holder}"))
}

/// What XLA computes sizes in, for [`overflow`].
pub(crate) const INT64: &str = "int64, the type XLA computes sizes in";

/// The error of every fallible operation of this crate.
///
/// ```
/// use layout_runtime::{ErrorKind, Shape};
/// let err = "f32[3,5]{1,0:T(0,2)}".parse::<Shape>().unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidTileDimension);
/// assert_eq!(err.span(), Some(15..16)); // the `0`
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    path: Option<Path>,
    span: Option<Range<usize>>,
}

impl Error {
    /// An error of `kind` with a message.
    ///
    /// ```
    /// use layout_runtime::{Error, ErrorKind};
    /// let e = Error::new(ErrorKind::BufferLength, "buffer is 3 bytes, needs 4");
    /// assert_eq!(e.to_string(), "buffer is 3 bytes, needs 4");
    /// ```
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), path: None, span: None }
    }

    /// Attaches the byte range of the offending text.
    ///
    /// ```
    /// use layout_runtime::{Error, ErrorKind};
    /// let e = Error::new(ErrorKind::Syntax, "expected `]`").with_span(4..5);
    /// assert_eq!(e.span(), Some(4..5));
    /// ```
    pub fn with_span(mut self, span: Range<usize>) -> Error {
        self.span = Some(span);
        self
    }

    /// Attaches the model location of the problem.
    ///
    /// ```
    /// use layout_runtime::{Error, ErrorKind, Location, Path};
    /// let at = Path { tuple_indices: vec![], location: Location::Dim(0) };
    /// let e = Error::new(ErrorKind::ShapeTooLarge, "too large").with_path(at.clone());
    /// assert_eq!(e.path(), Some(&at));
    /// ```
    pub fn with_path(mut self, path: Path) -> Error {
        self.path = Some(path);
        self
    }

    /// The class of the error.
    ///
    /// ```
    /// use layout_runtime::{ErrorKind, Shape};
    /// let e = "f32[3,5]{1,1}".parse::<Shape>().unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::MinorToMajorDuplicate);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The sentence for a person: which field, which rule.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let e = "f32[3,5]{1,0:E(-1)}".parse::<Shape>().unwrap_err();
    /// assert!(e.message().contains("element_size_in_bits"));
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where in the model the problem is, when it concerns one part of a shape.
    ///
    /// ```
    /// use layout_runtime::{Location, Shape};
    /// let e = "f32[3,5]{1,0:T(2,2)(0)}".parse::<Shape>().unwrap_err();
    /// assert_eq!(e.path().unwrap().location, Location::TileDim { tile: 1, dim: 0 });
    /// ```
    pub fn path(&self) -> Option<&Path> {
        self.path.as_ref()
    }

    /// The byte range of the offending text, when the error comes from text.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let e = "f31[3]".parse::<Shape>().unwrap_err();
    /// assert_eq!(e.span(), Some(0..3));
    /// ```
    pub fn span(&self) -> Option<Range<usize>> {
        self.span.clone()
    }

    /// The error as a person reads it under the text it is about: `error: ` and the message,
    /// then, when the error has a [span](Error::span), the line of `text` holding it and a row
    /// of carets under the offending characters. `text` is the string that was parsed.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let text = "f32[3,5]{1,0:T(0,2)}";
    /// let e = text.parse::<Shape>().unwrap_err();
    /// let shown = e.render(text).to_string();
    /// let lines: Vec<&str> = shown.lines().collect();
    /// assert!(lines[0].starts_with("error: layout has invalid tiles: tile dimension 0"));
    /// assert_eq!(lines[1], "  f32[3,5]{1,0:T(0,2)}");
    /// assert_eq!(lines[2], "                 ^"); // under the `0` (bytes 15..16)
    /// ```
    ///
    /// Columns count characters, not bytes; a text of several lines shows only the line of the
    /// error, with its number; an error without a span is the message alone:
    ///
    /// ```
    /// use layout_runtime::{Error, ErrorKind, Shape};
    /// let text = "(f32[2],\n s8[3]{0:T(0)})";
    /// let e = text.parse::<Shape>().unwrap_err();
    /// let shown = e.render(text).to_string();
    /// let lines: Vec<&str> = shown.lines().collect();
    /// assert_eq!(lines[1..], ["  line 2:", "   s8[3]{0:T(0)})", "             ^"]);
    ///
    /// let e = Error::new(ErrorKind::BufferLength, "buffer is 3 bytes, needs 4");
    /// assert_eq!(e.render("").to_string(), "error: buffer is 3 bytes, needs 4");
    /// ```
    pub fn render<'a>(&'a self, text: &'a str) -> RenderedError<'a> {
        RenderedError { error: self, text }
    }
}

/// An [`Error`] shown under the text it is about, with carets: what [`Error::render`]
/// returns. Its `Display` output has no trailing newline.
///
/// ```
/// use layout_runtime::Shape;
/// let text = "f31[3]";
/// let e = text.parse::<Shape>().unwrap_err();
/// let shown = format!("{}", e.render(text));
/// assert_eq!(shown.lines().nth(2), Some("  ^^^")); // the unknown type name
/// ```
#[derive(Clone, Copy, Debug)]
pub struct RenderedError<'a> {
    error: &'a Error,
    text: &'a str,
}

impl fmt::Display for RenderedError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.error.message)?;
        let Some(span) = &self.error.span else {
            return Ok(());
        };
        let text = self.text;
        // A span from another text (or a text cut short) must not panic: clamp it to `text`
        // and to character boundaries.
        let floor = |mut i: usize| {
            i = i.min(text.len());
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let start = floor(span.start);
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = text[line_start..line_end].trim_end_matches('\r');
        // Carets stop at the end of the line the span starts on (a span at its `\r` starts
        // past the trimmed line: it gets one caret).
        let end = floor(span.end).min(line_start + line.len()).max(start);
        if line_end < text.len() || line_start > 0 {
            let number = text[..line_start].matches('\n').count() + 1;
            write!(f, "\n  line {number}:")?;
        }
        // A long line is shown around the error only: at most CONTEXT characters before it,
        // of it and after it, with `...` where it is cut, so an error in a line of megabytes
        // does not echo the megabytes.
        let stop = line_start + line.len();
        let (before, cut_before) = last_chars(&text[line_start..start], CONTEXT);
        let (spanned, cut_span) = first_chars(&text[start..end], CONTEXT);
        let (after, cut_after) =
            if cut_span { ("", true) } else { first_chars(&text[end.min(stop)..stop], CONTEXT) };
        let lead = if cut_before { "..." } else { "" };
        let trail = if cut_after { "..." } else { "" };
        // The line's trimmed `\r`, if the span starts past it, is not shown.
        let shown = &before[..before.len().saturating_sub(start - start.min(stop))];
        write!(f, "\n  {lead}{shown}{spanned}{after}{trail}\n  ")?;
        for _ in 0..lead.len() {
            f.write_char(' ')?;
        }
        // A tab stays a tab, so the carets line up under it in a terminal.
        for c in before.chars() {
            f.write_char(if c == '\t' { '\t' } else { ' ' })?;
        }
        for _ in 0..spanned.chars().count().max(1) {
            f.write_char('^')?;
        }
        Ok(())
    }
}

/// How many characters of a line are shown before, of and after an error's span.
const CONTEXT: usize = 80;

/// The last `n` characters of `s`, and whether that is not all of it.
fn last_chars(s: &str, n: usize) -> (&str, bool) {
    match s.char_indices().rev().nth(n.saturating_sub(1)) {
        Some((i, _)) if i > 0 => (&s[i..], true),
        _ => (s, false),
    }
}

/// The first `n` characters of `s`, and whether that is not all of it.
fn first_chars(s: &str, n: usize) -> (&str, bool) {
    match s.char_indices().nth(n) {
        Some((i, _)) => (&s[..i], true),
        None => (s, false),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    /// Every kind's name is its `Debug` text, the string Python's `xlayout.Error.kind` gave
    /// before `as_str` existed: listing the kinds here keeps the names that users see.
    #[test]
    fn every_kind_is_named_as_its_debug_text() {
        let kinds = [
            ErrorKind::Syntax,
            ErrorKind::UnknownType,
            ErrorKind::IntegerOutOfRange,
            ErrorKind::NegativeDimension,
            ErrorKind::DimensionsOnNonArray,
            ErrorKind::BufferOfNonArray,
            ErrorKind::LayoutRank,
            ErrorKind::PhysicalShape,
            ErrorKind::DimLevelType,
            ErrorKind::TailPaddingAlignment,
            ErrorKind::NegativeTileDimension,
            ErrorKind::ShapeTooLarge,
            ErrorKind::MinorToMajorOutOfBounds,
            ErrorKind::MinorToMajorDuplicate,
            ErrorKind::IndexPrimitiveType,
            ErrorKind::PointerPrimitiveType,
            ErrorKind::EmptyTile,
            ErrorKind::InvalidTileDimension,
            ErrorKind::NegativeElementSize,
            ErrorKind::SplitConfigDimension,
            ErrorKind::SplitConfigDuplicate,
            ErrorKind::SplitConfigIndices,
            ErrorKind::SplitConfigIndexOutOfBounds,
            ErrorKind::TrailingCombine,
            ErrorKind::CombinedDimension,
            ErrorKind::NotStaticArray,
            ErrorKind::SizeOverflow,
            ErrorKind::IndexOutOfBounds,
            ErrorKind::BufferLength,
            ErrorKind::BufferOverlap,
            ErrorKind::ElementType,
            ErrorKind::ShapeMismatch,
            ErrorKind::NestingTooDeep,
            ErrorKind::RankTooLarge,
            ErrorKind::TooManyTileLevels,
            ErrorKind::WorkLimit,
        ];
        assert_eq!(kinds.len(), 36);
        for kind in kinds {
            assert_eq!(kind.as_str(), alloc::format!("{kind:?}"));
            assert_eq!(kind.to_string(), kind.as_str());
        }
    }

    fn shown(span: Range<usize>, text: &str) -> String {
        Error::new(ErrorKind::Syntax, "bad").with_span(span).render(text).to_string()
    }

    #[test]
    fn a_long_line_is_shown_around_the_error() {
        let text = alloc::format!("{}bad{}", "a".repeat(1000), "z".repeat(1000));
        let want = alloc::format!(
            "error: bad\n  ...{}bad{}...\n     {}^^^",
            "a".repeat(80),
            "z".repeat(80),
            " ".repeat(80)
        );
        assert_eq!(shown(1000..1003, &text), want);
        // A span longer than the context: its first characters, then `...`.
        let text = "x".repeat(500);
        let want = alloc::format!("error: bad\n  {}...\n  {}", "x".repeat(80), "^".repeat(80));
        assert_eq!(shown(0..500, &text), want);
        // Exactly the context each side: nothing cut.
        let text = alloc::format!("{}!{}", "a".repeat(80), "b".repeat(79));
        assert_eq!(
            shown(80..81, &text),
            alloc::format!("error: bad\n  {text}\n  {}^", " ".repeat(80))
        );
    }

    #[test]
    fn carets_count_characters_and_keep_tabs() {
        // `é` is two bytes: the caret under byte 3 (`x`) is the third character.
        assert_eq!(shown(3..4, "aéx"), "error: bad\n  aéx\n    ^");
        assert_eq!(shown(1..4, "aéx"), "error: bad\n  aéx\n   ^^");
        assert_eq!(shown(2..3, "\tax"), "error: bad\n  \tax\n  \t ^");
    }

    #[test]
    fn spans_outside_the_text_or_inside_a_character_do_not_panic() {
        // Past the end: one caret after the last character.
        assert_eq!(shown(7..9, "abc"), "error: bad\n  abc\n     ^");
        // Inside `é` (bytes 1..3): the caret goes to the character's start.
        assert_eq!(shown(2..3, "aéx"), "error: bad\n  aéx\n   ^");
        // An empty span still gets one caret; a reversed one too.
        assert_eq!(shown(1..1, "abc"), "error: bad\n  abc\n   ^");
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = 2..1;
        assert_eq!(shown(reversed, "abc"), "error: bad\n  abc\n    ^");
        assert_eq!(shown(0..1, ""), "error: bad\n  \n  ^");
    }

    #[test]
    fn a_text_of_several_lines_shows_the_line_of_the_span() {
        let text = "ab\r\ncd\nef";
        // Bytes 5..9 run from `d` over the newline: carets stop at the end of line 2.
        assert_eq!(shown(5..9, text), "error: bad\n  line 2:\n  cd\n   ^");
        assert_eq!(shown(0..2, text), "error: bad\n  line 1:\n  ab\n  ^^");
        assert_eq!(shown(8..9, text), "error: bad\n  line 3:\n  ef\n   ^");
    }

    #[test]
    fn a_span_at_a_carriage_return_gets_one_caret_after_the_line() {
        // Found by the shape_text fuzz target: `(\r` is an error at its end, past the end of
        // the line once the `\r` is trimmed; rendering it panicked (clamp with min > max).
        assert_eq!(shown(2..2, "(\r"), "error: bad\n  (\n    ^");
        assert_eq!(shown(1..2, "(\r"), "error: bad\n  (\n   ^");
        assert_eq!(shown(2..3, "ab\r\ncd"), "error: bad\n  line 1:\n  ab\n    ^");
        // More trailing `\r`s than the context shows: still no panic.
        let text = alloc::format!("({}", "\r".repeat(200));
        assert_eq!(
            shown(201..201, &text),
            alloc::format!("error: bad\n  ...\n  {}^", " ".repeat(83))
        );
    }
}
