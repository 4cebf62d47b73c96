//! The layout part of shape text, `{1,0:T(8,128)(2,1)E(4)S(1)}`: minor_to_major, then the
//! fields in the one order XLA's parser accepts them (`FIELDS`).

use alloc::format;
use alloc::vec::Vec;
use core::ops::Range;

use super::lexer::{Tok, Token};
use super::parser::Parser;
use crate::{
    limits, Error, ErrorKind, Layout, Location, PrimitiveType, SplitConfig, Tile, TileDim,
};

/// The layout fields in the one order XLA's parser accepts them.
const FIELDS: [&str; 10] = ["D", "T", "L", "#", "*", "E", "S", "SC", "P", "M"];

impl Parser<'_> {
    pub(super) fn layout(&mut self) -> Result<Layout, Error> {
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
                let name = super::lexer::quoted(self.text(&close.span));
                e = Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "unknown layout field {name}: the fields are D T L # * E S SC P M \
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
        // Described with `format_args!`, not `format!`: this runs for every `E`, `S`, `L`, ...
        // of every shape read, and the text is needed only for an error.
        self.expect(Tok::LParen, format_args!("`(` after `{field}`"))?;
        let v = self.int(format_args!("an integer in `{field}(...)`"))?;
        self.expect(Tok::RParen, format_args!("`)` closing `{field}(`"))?;
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
            let name = super::lexer::quoted(name);
            Error::new(ErrorKind::UnknownType, format!("unknown element type {name}"))
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
