//! The parser's state and the shape part of the grammar: element type, dimensions, tuples
//! and buffers (the layout in braces is `layout.rs`).

use alloc::format;
use alloc::vec::Vec;
use core::ops::Range;

use super::lexer::{Lexer, Tok, Token};
use super::source_map::SourceMap;
use crate::tuple::TupleBuilder;
use crate::{limits, ArrayShape, Dim, Error, ErrorKind, Layout, Location, PrimitiveType, Shape};

pub(super) struct Parser<'a> {
    pub(super) lexer: Lexer<'a>,
    pub(super) map: SourceMap,
    /// Whether to keep the source map.
    pub(super) record: bool,
    /// The source map's node of the tuple element being parsed (0: the top level).
    pub(super) node: usize,
    /// Tuples and buffers open around it.
    pub(super) depth: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn text(&self, span: &Range<usize>) -> &'a str {
        &self.lexer.text[span.clone()]
    }

    /// Nothing but trivia may follow the `what` just parsed.
    pub(super) fn end(&mut self, what: &str) -> Result<(), Error> {
        let tok = self.lexer.next()?;
        if tok.kind == Tok::End {
            return Ok(());
        }
        let found = tok.describe(self.lexer.text);
        Err(Error::new(ErrorKind::Syntax, format!("unexpected {found} after the {what}"))
            .with_span(tok.span))
    }

    pub(super) fn new(text: &'a str) -> Parser<'a> {
        let map = SourceMap::default();
        Parser { lexer: Lexer::new(text), map, record: true, node: 0, depth: 0 }
    }

    /// A parser that keeps no source map: errors it finds itself still carry their spans.
    pub(super) fn without_map(text: &'a str) -> Parser<'a> {
        Parser { record: false, ..Parser::new(text) }
    }

    pub(super) fn record(&mut self, location: Location, span: Range<usize>) {
        if self.record {
            self.map.record(self.node, location, span);
        }
    }

    pub(super) fn unexpected(&self, tok: &Token, expected: impl core::fmt::Display) -> Error {
        Error::new(
            ErrorKind::Syntax,
            format!("expected {expected}, found {}", tok.describe(self.lexer.text)),
        )
        .with_span(tok.span.clone())
    }

    /// The next token, of `kind`; `what` is written out only for the error (a description
    /// built with `format_args!` costs nothing when the token is there).
    pub(super) fn expect(
        &mut self,
        kind: Tok,
        what: impl core::fmt::Display,
    ) -> Result<Token, Error> {
        let tok = self.lexer.next()?;
        if tok.kind == kind {
            Ok(tok)
        } else {
            Err(self.unexpected(&tok, what))
        }
    }

    pub(super) fn eat(&mut self, kind: Tok) -> Result<Option<Token>, Error> {
        if self.lexer.peek()?.kind == kind {
            self.lexer.next().map(Some)
        } else {
            Ok(None)
        }
    }

    /// An integer literal within int64.
    pub(super) fn int(
        &mut self,
        what: impl core::fmt::Display,
    ) -> Result<(i64, Range<usize>), Error> {
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

    pub(super) fn shape(&mut self) -> Result<Shape, Error> {
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
    pub(super) fn nest(&mut self, open: &Token) -> Result<(), Error> {
        if self.depth == limits::MAX_NESTING {
            return Err(limits::nesting().with_span(open.span.clone()));
        }
        self.depth += 1;
        Ok(())
    }

    pub(super) fn tuple_rest(&mut self) -> Result<Shape, Error> {
        // Each distinct element kept once: a tuple of a million equal leaves holds one.
        let mut elements = TupleBuilder::new();
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
        Ok(Shape::Tuple(elements.finish()))
    }

    pub(super) fn array_rest(&mut self, name: Token) -> Result<Shape, Error> {
        let name_text = self.text(&name.span);
        let element_type = PrimitiveType::from_name(name_text).ok_or_else(|| {
            let hint = PrimitiveType::from_name(&name_text.to_ascii_lowercase())
                .map(|t| format!(" (type names are lower case: `{t}`)"))
                .unwrap_or_default();
            let quoted = super::lexer::quoted(name_text);
            Error::new(ErrorKind::UnknownType, format!("unknown element type {quoted}{hint}"))
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

    pub(super) fn dim(&mut self, i: usize) -> Result<Dim, Error> {
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

    pub(super) fn non_negative_dim(&self, n: i64, span: Range<usize>) -> Result<u64, Error> {
        u64::try_from(n).map_err(|_| {
            Error::new(
                ErrorKind::NegativeDimension,
                format!("dimension size {n} is negative; sizes are 0 or more (`?` is unbounded)"),
            )
            .with_span(span)
        })
    }
}
