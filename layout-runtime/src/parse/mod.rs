//! The text parser: XLA's shape grammar (`xla/hlo/parser/hlo_parser.cc`, `hlo_lexer.cc`),
//! with a record of where each part of the shape stands in the text.
//!
//! Integers are limited to int64: where XLA reads a literal ≥ 2⁶³ as a wrapped negative
//! number, this parser reports [`ErrorKind::IntegerOutOfRange`]. Where XLA aborts the process
//! (`L(0)`, `T(-1)`, `token[1]`), this parser returns an error.

use core::str::FromStr;

mod layout;
mod lexer;
mod parser;
mod source_map;

use parser::Parser;
pub use source_map::SourceMap;

use crate::{ArrayShape, Error, Layout, Shape};

impl Shape {
    /// Parses XLA shape text without running the verifier: what XLA's text parser accepts
    /// (less what it would wrap or abort on). [`Shape::validate`] then says whether
    /// `ShapeUtil::ValidateShape` accepts it; `str::parse` does both.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// // The parser accepts a duplicated minor_to_major entry; the verifier does not.
    /// let s = Shape::parse_unvalidated("f32[3,5]{1,1}").unwrap();
    /// assert!(s.validate().is_err());
    /// ```
    pub fn parse_unvalidated(text: &str) -> Result<Shape, Error> {
        Shape::parse_with_source_map(text).map(|(shape, _)| shape)
    }

    /// Parses the shape at the start of `text` (after any whitespace or comments) and
    /// returns it, unvalidated, with the byte offset where it ends; whatever follows is left
    /// alone. For reading shapes out of larger text, such as an HLO dump.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let line = "f32[3,5]{1,0:T(2,2)} parameter(0), sharding={replicated}";
    /// let (shape, end) = Shape::parse_prefix(line)?;
    /// assert_eq!((shape.to_string().as_str(), &line[end..]), ("f32[3,5]{1,0:T(2,2)}", " parameter(0), sharding={replicated}"));
    /// assert!(Shape::parse_prefix("%p = f32[3]").is_err());
    /// # Ok::<(), layout_runtime::Error>(())
    /// ```
    pub fn parse_prefix(text: &str) -> Result<(Shape, usize), Error> {
        let mut p = Parser::without_map(text);
        let shape = p.shape()?;
        Ok((shape, p.lexer.pos_before_peek()))
    }

    /// Parses without validating, and also returns where each part stands in `text`.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let (shape, map) = Shape::parse_with_source_map("f32[3]").unwrap();
    /// assert_eq!(shape.to_string(), "f32[3]{0}");
    /// # let _ = map;
    /// ```
    pub fn parse_with_source_map(text: &str) -> Result<(Shape, SourceMap), Error> {
        let mut p = Parser::new(text);
        let shape = p.shape()?;
        p.end("shape")?;
        Ok((shape, p.map))
    }
}

impl FromStr for Shape {
    type Err = Error;

    /// Parses and validates: `Ok` exactly when XLA's parser and `ShapeUtil::ValidateShape`
    /// both accept the text (integers limited to int64). Errors carry the byte range.
    fn from_str(text: &str) -> Result<Shape, Error> {
        // Valid text, the common case, is read once without a source map; only an invalid
        // shape is read again with one, to point at the offending part.
        let mut p = Parser::without_map(text);
        if let Ok(shape) = p.shape().and_then(|shape| p.end("shape").map(|()| shape)) {
            if shape.validate().is_ok() {
                return Ok(shape);
            }
        }
        let (shape, map) = Shape::parse_with_source_map(text)?;
        shape.validate().map_err(|e| map.locate(e))?;
        Ok(shape) // not reached: the two readings agree
    }
}

/// Parses and validates a layout on its own, as XLA prints it inside a shape
/// (`{1,0:T(8,128)}`): the verifier's layout rules for an array whose rank is the length of
/// minor_to_major (split indices are not bounded: that needs the dimensions' sizes).
///
/// ```
/// use layout_runtime::{ErrorKind, Layout};
/// let l: Layout = "{1,0:T(8,128)(2,1)}".parse()?;
/// assert_eq!((l.minor_to_major.len(), l.tiles.len()), (2, 2));
/// assert_eq!(l.to_string(), "{1,0:T(8,128)(2,1)}");
/// let e = "{1,1}".parse::<Layout>().unwrap_err();
/// assert_eq!((e.kind(), e.span()), (ErrorKind::MinorToMajorDuplicate, Some(3..4)));
/// let e = "{0:T(2)} x".parse::<Layout>().unwrap_err();
/// assert_eq!(e.message(), "unexpected `x` after the layout");
/// // Split indices need the dimensions' sizes: only their order is checked here.
/// assert!("{0:SC(0:5,9)}".parse::<Layout>().is_ok());
/// assert!("{0:SC(0:9,5)}".parse::<Layout>().is_err());
/// # Ok::<(), layout_runtime::Error>(())
/// ```
impl FromStr for Layout {
    type Err = Error;

    fn from_str(text: &str) -> Result<Layout, Error> {
        let mut p = Parser::new(text);
        let layout = p.layout()?;
        p.end("layout")?;
        crate::validate::validate_layout_alone(&layout).map_err(|e| p.map.locate(e))?;
        Ok(layout)
    }
}

/// Parses and validates an array shape: as [`Shape`]'s `FromStr`, then anything but an array
/// is the error of [`Shape::try_array`] (located at the whole text).
///
/// ```
/// use layout_runtime::{ArrayShape, ErrorKind};
/// let a: ArrayShape = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse()?;
/// assert_eq!(a.byte_size()?, 8192);
/// let e = "(f32[2])".parse::<ArrayShape>().unwrap_err();
/// assert_eq!((e.kind(), e.span()), (ErrorKind::NotStaticArray, Some(0..8)));
/// # Ok::<(), layout_runtime::Error>(())
/// ```
impl FromStr for ArrayShape {
    type Err = Error;

    fn from_str(text: &str) -> Result<ArrayShape, Error> {
        let (shape, map) = Shape::parse_with_source_map(text)?;
        shape.validate().map_err(|e| map.locate(e))?;
        ArrayShape::try_from(shape).map_err(|e| map.locate(e))
    }
}
