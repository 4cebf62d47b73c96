//! The text parser: XLA's shape grammar (`xla/hlo/parser/hlo_parser.cc`, `hlo_lexer.cc`),
//! with a record of where each part of the shape stands in the text.
//!
//! Integers are limited to int64: where XLA reads a literal ≥ 2⁶³ as a wrapped negative
//! number, this parser reports [`ErrorKind::IntegerOutOfRange`]. Where XLA aborts the process
//! (`L(0)`, `T(-1)`, `token[1]`), this parser returns an error.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;
use core::ops::Range;
use core::str::FromStr;

mod lexer;

use lexer::{Lexer, Tok, Token};

use crate::{
    limits, ArrayShape, Dim, Error, ErrorKind, Layout, Location, Path, PrimitiveType, Shape,
    SplitConfig, Tile, TileDim,
};

/// Where each part of a parsed shape stands in its text: the byte range of every element
/// type, dimension, minor_to_major entry, tile, tile entry and field value.
///
/// [`Shape::parse_with_source_map`] returns one; [`SourceMap::locate`] gives an error of the
/// validator the byte range of the text it is about.
///
/// ```
/// use layout_runtime::{Location, Path, Shape};
/// let (_, map) = Shape::parse_with_source_map("f32[3,5]{1,0:T(2,2)}").unwrap();
/// let at = Path { tuple_indices: vec![], location: Location::TileDim { tile: 0, dim: 1 } };
/// assert_eq!(map.span(&at), Some(17..18));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// Tuple elements as nodes of a tree: `(parent, index in the parent)` to the node's
    /// number; the top level is node 0. A path is stored once, not copied per part, so the
    /// map is linear in the text however deep its tuples.
    nodes: BTreeMap<(usize, usize), usize>,
    /// The byte range of each part, by node and location.
    spans: BTreeMap<(usize, Location), Range<usize>>,
}

impl SourceMap {
    /// The byte range of the part at `path`, if the text had one.
    ///
    /// ```
    /// use layout_runtime::{Location, Path, Shape};
    /// let (_, map) = Shape::parse_with_source_map("(f32[2], s8[7])").unwrap();
    /// let at = Path { tuple_indices: vec![1], location: Location::Dim(0) };
    /// assert_eq!(map.span(&at), Some(12..13));
    /// ```
    pub fn span(&self, path: &Path) -> Option<Range<usize>> {
        let mut node = 0;
        for &index in &path.tuple_indices {
            node = *self.nodes.get(&(node, index))?;
        }
        self.spans.get(&(node, path.location)).cloned()
    }

    /// Gives `error` the byte range of the part its path names (falling back to the whole
    /// layout, then the whole shape, when that part has no text of its own, e.g. a default
    /// layout). An error that already has a span is returned unchanged.
    ///
    /// ```
    /// use layout_runtime::Shape;
    /// let (shape, map) = Shape::parse_with_source_map("f32[3,5]{1,1}").unwrap();
    /// let err = map.locate(shape.validate().unwrap_err());
    /// assert_eq!(err.span(), Some(11..12));
    /// ```
    pub fn locate(&self, error: Error) -> Error {
        if error.span().is_some() {
            return error;
        }
        let Some(path) = error.path().cloned() else {
            return error;
        };
        let fallbacks = [path.location, Location::Layout, Location::Shape];
        for location in fallbacks {
            let p = Path { tuple_indices: path.tuple_indices.clone(), location };
            if let Some(span) = self.span(&p) {
                return error.with_span(span);
            }
        }
        error
    }

    /// Records the first range given for a part (later ones are the same part re-read).
    fn record(&mut self, node: usize, location: Location, span: Range<usize>) {
        self.spans.entry((node, location)).or_insert(span);
    }

    /// The node of element `index` of the tuple at `parent`.
    fn child(&mut self, parent: usize, index: usize) -> usize {
        let next = self.nodes.len() + 1;
        *self.nodes.entry((parent, index)).or_insert(next)
    }
}

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

struct Parser<'a> {
    lexer: Lexer<'a>,
    map: SourceMap,
    /// Whether to keep the source map.
    record: bool,
    /// The source map's node of the tuple element being parsed (0: the top level).
    node: usize,
    /// Tuples and buffers open around it.
    depth: usize,
}

/// The layout fields in the one order XLA's parser accepts them.
const FIELDS: [&str; 10] = ["D", "T", "L", "#", "*", "E", "S", "SC", "P", "M"];

impl<'a> Parser<'a> {
    fn text(&self, span: &Range<usize>) -> &'a str {
        &self.lexer.text[span.clone()]
    }

    /// Nothing but trivia may follow the `what` just parsed.
    fn end(&mut self, what: &str) -> Result<(), Error> {
        let tok = self.lexer.next()?;
        if tok.kind == Tok::End {
            return Ok(());
        }
        let found = tok.describe(self.lexer.text);
        Err(Error::new(ErrorKind::Syntax, format!("unexpected {found} after the {what}"))
            .with_span(tok.span))
    }

    fn new(text: &'a str) -> Parser<'a> {
        let map = SourceMap::default();
        Parser { lexer: Lexer::new(text), map, record: true, node: 0, depth: 0 }
    }

    /// A parser that keeps no source map: errors it finds itself still carry their spans.
    fn without_map(text: &'a str) -> Parser<'a> {
        Parser { record: false, ..Parser::new(text) }
    }

    fn record(&mut self, location: Location, span: Range<usize>) {
        if self.record {
            self.map.record(self.node, location, span);
        }
    }

    fn unexpected(&self, tok: &Token, expected: &str) -> Error {
        Error::new(
            ErrorKind::Syntax,
            format!("expected {expected}, found {}", tok.describe(self.lexer.text)),
        )
        .with_span(tok.span.clone())
    }

    fn expect(&mut self, kind: Tok, what: &str) -> Result<Token, Error> {
        let tok = self.lexer.next()?;
        if tok.kind == kind {
            Ok(tok)
        } else {
            Err(self.unexpected(&tok, what))
        }
    }

    fn eat(&mut self, kind: Tok) -> Result<Option<Token>, Error> {
        if self.lexer.peek()?.kind == kind {
            self.lexer.next().map(Some)
        } else {
            Ok(None)
        }
    }

    /// An integer literal within int64.
    fn int(&mut self, what: &str) -> Result<(i64, Range<usize>), Error> {
        let tok = self.lexer.next()?;
        if tok.kind != Tok::Int {
            return Err(self.unexpected(&tok, what));
        }
        let text = self.text(&tok.span);
        let value = text.parse::<i64>().map_err(|_| {
            Error::new(
                ErrorKind::IntegerOutOfRange,
                format!(
                    "integer {text} does not fit in int64 (XLA would silently wrap it; \
                     the largest accepted value is 9223372036854775807)"
                ),
            )
            .with_span(tok.span.clone())
        })?;
        Ok((value, tok.span))
    }

    fn shape(&mut self) -> Result<Shape, Error> {
        let tok = self.lexer.next()?;
        let start = tok.span.start;
        let shape = match tok.kind {
            Tok::LParen => {
                self.nest(&tok)?;
                let tuple = self.tuple_rest();
                self.depth -= 1;
                tuple?
            }
            Tok::Ident if self.text(&tok.span) == "b" && self.lexer.peek()?.kind == Tok::LParen => {
                self.lexer.next()?;
                self.nest(&tok)?;
                let inner_start = self.lexer.peek()?.span.start;
                let inner = self.shape();
                self.depth -= 1;
                let inner = inner?;
                let inner_end = self.expect(Tok::RParen, "`)` closing `b(`")?.span.start;
                match inner {
                    Shape::Array(a) => Shape::Buffer(a),
                    _ => {
                        return Err(Error::new(
                            ErrorKind::BufferOfNonArray,
                            "a buffer `b(...)` holds exactly one array shape",
                        )
                        .with_span(inner_start..inner_end))
                    }
                }
            }
            Tok::Ident => self.array_rest(tok)?,
            _ => return Err(self.unexpected(&tok, "a shape (an element type, `(` or `b(`)")),
        };
        let end = self.lexer.pos_before_peek();
        self.record(Location::Shape, start..end);
        Ok(shape)
    }

    /// One level deeper into tuples or buffers: the recursion is bounded by
    /// [`limits::MAX_NESTING`], so no text overflows the stack.
    fn nest(&mut self, open: &Token) -> Result<(), Error> {
        if self.depth == limits::MAX_NESTING {
            return Err(limits::nesting().with_span(open.span.clone()));
        }
        self.depth += 1;
        Ok(())
    }

    fn tuple_rest(&mut self) -> Result<Shape, Error> {
        let mut elements = Vec::new();
        if self.eat(Tok::RParen)?.is_none() {
            loop {
                let parent = self.node;
                if self.record {
                    self.node = self.map.child(parent, elements.len());
                }
                let element = self.shape();
                self.node = parent;
                elements.push(element?);
                let tok = self.lexer.next()?;
                match tok.kind {
                    Tok::Comma => continue,
                    Tok::RParen => break,
                    _ => return Err(self.unexpected(&tok, "`,` or `)` in a tuple")),
                }
            }
        }
        Ok(Shape::Tuple(elements))
    }

    fn array_rest(&mut self, name: Token) -> Result<Shape, Error> {
        let name_text = self.text(&name.span);
        let element_type = PrimitiveType::from_name(name_text).ok_or_else(|| {
            let hint = PrimitiveType::from_name(&name_text.to_ascii_lowercase())
                .map(|t| format!(" (type names are lower case: `{t}`)"))
                .unwrap_or_default();
            Error::new(ErrorKind::UnknownType, format!("unknown element type `{name_text}`{hint}"))
                .with_span(name.span.clone())
        })?;
        self.record(Location::ElementType, name.span.clone());
        let open = self.expect(Tok::LBracket, "`[` after the element type")?;
        let mut dims = Vec::new();
        if self.eat(Tok::RBracket)?.is_none() {
            loop {
                if dims.len() == limits::MAX_RANK {
                    let span = self.lexer.peek()?.span.clone();
                    return Err(limits::rank("dimensions").with_span(span));
                }
                dims.push(self.dim(dims.len())?);
                let tok = self.lexer.next()?;
                match tok.kind {
                    Tok::Comma => continue,
                    Tok::RBracket => break,
                    _ => return Err(self.unexpected(&tok, "`,` or `]` in the dimensions")),
                }
            }
        }
        let close = self.lexer.pos_before_peek();
        match element_type {
            PrimitiveType::Token | PrimitiveType::Opaque => {
                if !dims.is_empty() {
                    return Err(Error::new(
                        ErrorKind::DimensionsOnNonArray,
                        format!("`{element_type}` has no dimensions: write `{element_type}[]`"),
                    )
                    .with_span(open.span.start..close));
                }
                return Ok(if element_type == PrimitiveType::Token {
                    Shape::Token
                } else {
                    Shape::Opaque
                });
            }
            _ => {}
        }
        // As in XLA, `{` starts a layout only when an integer or `:` follows it; otherwise
        // it is left for the caller, which reports it as extra text.
        let layout = if self.lexer.peek()?.kind == Tok::LBrace
            && matches!(self.lexer.peek_second()?, Tok::Int | Tok::Colon)
        {
            let start = self.lexer.peek()?.span.start;
            let layout = self.layout()?;
            if layout.minor_to_major.len() != dims.len() {
                let span = start..self.lexer.pos_before_peek();
                return Err(Error::new(
                    ErrorKind::LayoutRank,
                    format!(
                        "Dimensions size is {}, but minor to major size is {}. The layout must \
                         list each of the {} dimensions once.",
                        dims.len(),
                        layout.minor_to_major.len(),
                        dims.len()
                    ),
                )
                .with_span(span));
            }
            layout
        } else {
            Layout::default_for_rank(dims.len())
        };
        Ok(Shape::Array(ArrayShape { element_type, dims, layout: Some(layout) }))
    }

    fn dim(&mut self, i: usize) -> Result<Dim, Error> {
        let tok = self.lexer.peek()?.clone();
        let (dim, span) = match tok.kind {
            Tok::Question => {
                self.lexer.next()?;
                (Dim::Unbounded, tok.span)
            }
            Tok::Leq => {
                self.lexer.next()?;
                let (n, span) = self.int("an integer bound after `<=`")?;
                (Dim::Bounded(self.non_negative_dim(n, span.clone())?), tok.span.start..span.end)
            }
            _ => {
                let (n, span) = self.int("a dimension size, `<=N` or `?`")?;
                (Dim::Static(self.non_negative_dim(n, span.clone())?), span)
            }
        };
        self.record(Location::Dim(i), span);
        Ok(dim)
    }

    fn non_negative_dim(&self, n: i64, span: Range<usize>) -> Result<u64, Error> {
        u64::try_from(n).map_err(|_| {
            Error::new(
                ErrorKind::NegativeDimension,
                format!("dimension size {n} is negative; sizes are 0 or more (`?` is unbounded)"),
            )
            .with_span(span)
        })
    }

    fn layout(&mut self) -> Result<Layout, Error> {
        let open = self.expect(Tok::LBrace, "`{`")?;
        let mut layout = Layout::new([]);
        if self.lexer.peek()?.kind == Tok::Int {
            loop {
                if layout.minor_to_major.len() == limits::MAX_RANK {
                    let span = self.lexer.peek()?.span.clone();
                    return Err(limits::rank("minor_to_major entries").with_span(span));
                }
                let (v, span) = self.int("a dimension number")?;
                self.record(Location::MinorToMajor(layout.minor_to_major.len()), span);
                layout.minor_to_major.push(v);
                if self.eat(Tok::Comma)?.is_none() {
                    break;
                }
            }
        }
        if self.eat(Tok::Colon)?.is_some() {
            self.fields(&mut layout)?;
        }
        let close = self.lexer.next()?;
        if close.kind != Tok::RBrace {
            let mut e = self.unexpected(&close, "`}` closing the layout");
            if close.kind == Tok::Ident && self.field_name(&close).is_none() {
                let name = self.text(&close.span);
                e = Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "unknown layout field `{name}`: the fields are D T L # * E S SC P M \
                         (upper case, once each, in this order)"
                    ),
                )
                .with_span(close.span.clone());
            }
            if let Some(field) = self.field_name(&close) {
                e = Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "layout field `{field}` is repeated or out of order: fields go once each \
                         in the order D T L # * E S SC P M"
                    ),
                )
                .with_span(close.span.clone());
            }
            return Err(e);
        }
        self.record(Location::Layout, open.span.start..close.span.end);
        Ok(layout)
    }

    fn field_name(&self, tok: &Token) -> Option<&'static str> {
        let text = self.text(&tok.span);
        match tok.kind {
            Tok::Ident | Tok::Hash | Tok::Star => FIELDS.iter().copied().find(|f| *f == text),
            _ => None,
        }
    }

    fn fields(&mut self, layout: &mut Layout) -> Result<(), Error> {
        let mut next_field = 0;
        loop {
            let tok = self.lexer.peek()?.clone();
            let Some(name) = self.field_name(&tok) else {
                return Ok(());
            };
            let Some(k) = FIELDS[next_field..].iter().position(|f| *f == name) else {
                return Ok(()); // repeated or out of order: reported where `}` is expected
            };
            next_field += k + 1;
            self.lexer.next()?;
            match name {
                "D" => self.dim_level_types()?,
                "T" => self.tiles(layout)?,
                "L" => {
                    let (v, span) = self.paren_int("L")?;
                    if v < 1 {
                        return Err(Error::new(
                            ErrorKind::TailPaddingAlignment,
                            format!(
                                "tail_padding_alignment_in_elements `L({v})` must be at least 1"
                            ),
                        )
                        .with_span(span));
                    }
                    self.record(Location::TailPadding, span);
                    layout.tail_padding_alignment_in_elements = v;
                }
                "#" => layout.index_primitive_type = Some(self.paren_type(Location::IndexType)?),
                "*" => {
                    layout.pointer_primitive_type = Some(self.paren_type(Location::PointerType)?)
                }
                "E" => {
                    let (v, span) = self.paren_int("E")?;
                    self.record(Location::ElementSize, span);
                    layout.element_size_in_bits = v;
                }
                "S" => {
                    let (v, span) = self.paren_int("S")?;
                    self.record(Location::MemorySpace, span);
                    layout.memory_space = v;
                }
                "SC" => self.split_configs(layout)?,
                "P" => {
                    return Err(Error::new(
                        ErrorKind::PhysicalShape,
                        "Layout has physical shape, but is not for a sparse array: `P(...)` \
                         is a legacy sparse-array field",
                    )
                    .with_span(tok.span))
                }
                _ => {
                    // "M": XLA keeps only positive values.
                    let (v, span) = self.paren_int("M")?;
                    self.record(Location::Metadata, span);
                    layout.dynamic_shape_metadata_prefix_bytes = u64::try_from(v).unwrap_or(0);
                }
            }
        }
    }

    fn paren_int(&mut self, field: &str) -> Result<(i64, Range<usize>), Error> {
        self.expect(Tok::LParen, &format!("`(` after `{field}`"))?;
        let v = self.int(&format!("an integer in `{field}(...)`"))?;
        self.expect(Tok::RParen, &format!("`)` closing `{field}(`"))?;
        Ok(v)
    }

    fn paren_type(&mut self, location: Location) -> Result<PrimitiveType, Error> {
        self.expect(Tok::LParen, "`(`")?;
        let tok = self.lexer.next()?;
        if tok.kind != Tok::Ident {
            return Err(self.unexpected(&tok, "an element type name"));
        }
        let name = self.text(&tok.span);
        let t = PrimitiveType::from_name(name).ok_or_else(|| {
            Error::new(ErrorKind::UnknownType, format!("unknown element type `{name}`"))
                .with_span(tok.span.clone())
        })?;
        self.record(location, tok.span);
        self.expect(Tok::RParen, "`)`")?;
        Ok(t)
    }

    fn dim_level_types(&mut self) -> Result<(), Error> {
        self.expect(Tok::LParen, "`(` after `D`")?;
        if self.eat(Tok::RParen)?.is_some() {
            return Ok(());
        }
        loop {
            let tok = self.lexer.next()?;
            if tok.kind != Tok::Ident || !matches!(self.text(&tok.span), "D" | "C" | "S" | "H") {
                return Err(Error::new(
                    ErrorKind::DimLevelType,
                    format!(
                        "expected a DimLevelType abbreviation (D, C, S or H), found {}",
                        tok.describe(self.lexer.text)
                    ),
                )
                .with_span(tok.span));
            }
            self.eat(Tok::Plus)?;
            self.eat(Tok::Tilde)?;
            let tok = self.lexer.next()?;
            match tok.kind {
                Tok::Comma => continue,
                Tok::RParen => return Ok(()),
                _ => return Err(self.unexpected(&tok, "`,` or `)` in `D(...)`")),
            }
        }
    }

    fn tiles(&mut self, layout: &mut Layout) -> Result<(), Error> {
        self.lexer.peek()?;
        if self.lexer.peek()?.kind != Tok::LParen {
            let tok = self.lexer.next()?;
            return Err(self.unexpected(&tok, "`(` after `T`"));
        }
        while let Some(open) = self.eat(Tok::LParen)? {
            let t = layout.tiles.len();
            if t == limits::MAX_TILE_LEVELS {
                return Err(limits::tile_levels().with_span(open.span));
            }
            let mut tile = Tile::default();
            if self.eat(Tok::RParen)?.is_none() {
                loop {
                    let dim = tile.dims.len();
                    if dim == limits::MAX_RANK {
                        let span = self.lexer.peek()?.span.clone();
                        return Err(limits::rank("entries in one tile").with_span(span));
                    }
                    let entry = if let Some(star) = self.eat(Tok::Star)? {
                        self.record(Location::TileDim { tile: t, dim }, star.span);
                        TileDim::Combine
                    } else {
                        let (v, span) = self.int("a tile size or `*`")?;
                        self.record(Location::TileDim { tile: t, dim }, span.clone());
                        if v == i64::MIN {
                            TileDim::Combine // XLA's spelling of `*` as a number
                        } else {
                            TileDim::Size(u64::try_from(v).map_err(|_| {
                                Error::new(
                                    ErrorKind::NegativeTileDimension,
                                    format!(
                                        "tile {t} entry {dim} is {v}: a tile entry is a positive \
                                         size or `*`"
                                    ),
                                )
                                .with_span(span)
                            })?)
                        }
                    };
                    tile.dims.push(entry);
                    let tok = self.lexer.next()?;
                    match tok.kind {
                        Tok::Comma => continue,
                        Tok::RParen => break,
                        _ => return Err(self.unexpected(&tok, "`,` or `)` in a tile")),
                    }
                }
            }
            self.record(Location::Tile(t), open.span.start..self.lexer.pos_before_peek());
            layout.tiles.push(tile);
        }
        Ok(())
    }

    fn split_configs(&mut self, layout: &mut Layout) -> Result<(), Error> {
        if self.lexer.peek()?.kind != Tok::LParen {
            let tok = self.lexer.next()?;
            return Err(self.unexpected(&tok, "`(` after `SC`"));
        }
        while let Some(open) = self.eat(Tok::LParen)? {
            let s = layout.split_configs.len();
            if s == limits::MAX_RANK {
                return Err(limits::rank("split configs").with_span(open.span));
            }
            let (dimension, span) = self.int("a physical dimension number")?;
            self.record(Location::SplitDim(s), span);
            self.expect(Tok::Colon, "`:` after the split dimension")?;
            let mut split_indices = Vec::new();
            if self.eat(Tok::RParen)?.is_none() {
                loop {
                    let (v, span) = self.int("a split index")?;
                    self.record(
                        Location::SplitIndex { split: s, index: split_indices.len() },
                        span,
                    );
                    split_indices.push(v);
                    let tok = self.lexer.next()?;
                    match tok.kind {
                        Tok::Comma => continue,
                        Tok::RParen => break,
                        _ => return Err(self.unexpected(&tok, "`,` or `)` in a split config")),
                    }
                }
            }
            self.record(Location::SplitConfig(s), open.span.start..self.lexer.pos_before_peek());
            layout.split_configs.push(SplitConfig { dimension, split_indices });
        }
        Ok(())
    }
}
