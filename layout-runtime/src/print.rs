//! The printer: byte for byte what XLA prints (`Layout::Print` in `xla/layout.cc`,
//! `ShapeUtil::PrintHumanStringWithLayout` in `xla/shape_util.cc`).

use core::fmt::{self, Display, Formatter, Write};

use crate::{ArrayShape, Dim, Layout, Shape, SplitConfig, Tile, TileDim};

/// Writes `items` separated by `sep`.
fn joined<T>(
    f: &mut Formatter<'_>,
    items: impl IntoIterator<Item = T>,
    sep: &str,
    mut item: impl FnMut(&mut Formatter<'_>, T) -> fmt::Result,
) -> fmt::Result {
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        item(f, x)?;
    }
    Ok(())
}

impl Display for Dim {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Bounded(n) => write!(f, "<={n}"),
            Dim::Unbounded => f.write_char('?'),
        }
    }
}

impl Display for TileDim {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TileDim::Size(n) => write!(f, "{n}"),
            TileDim::Combine => f.write_char('*'),
        }
    }
}

impl Display for Tile {
    /// `(8,128)`, with `*` for a combined dimension.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('(')?;
        joined(f, &self.dims, ",", |f, d| d.fmt(f))?;
        f.write_char(')')
    }
}

impl Display for SplitConfig {
    /// `(1:4,5)`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "({}:", self.dimension)?;
        joined(f, &self.split_indices, ",", |f, i| write!(f, "{i}"))?;
        f.write_char(')')
    }
}

impl Display for Layout {
    /// `{1,0:T(8,128)(2,1)S(1)}`: minor_to_major, then the fields that differ from their
    /// defaults in the order T L # * E S SC M.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('{')?;
        joined(f, &self.minor_to_major, ",", |f, d| write!(f, "{d}"))?;
        if !self.has_default_fields() {
            f.write_char(':')?;
            if !self.tiles.is_empty() {
                f.write_char('T')?;
                self.tiles.iter().try_for_each(|t| t.fmt(f))?;
            }
            if self.tail_padding_alignment_in_elements != 1 {
                write!(f, "L({})", self.tail_padding_alignment_in_elements)?;
            }
            let type_field = |f: &mut Formatter<'_>, mark, t: crate::PrimitiveType| {
                let name = if t.is_integral() { t.name() } else { "invalid" };
                write!(f, "{mark}({name})")
            };
            if let Some(t) = self.index_primitive_type {
                type_field(f, '#', t)?;
            }
            if let Some(t) = self.pointer_primitive_type {
                type_field(f, '*', t)?;
            }
            if self.element_size_in_bits != 0 {
                write!(f, "E({})", self.element_size_in_bits)?;
            }
            if self.memory_space != 0 {
                write!(f, "S({})", self.memory_space)?;
            }
            if !self.split_configs.is_empty() {
                f.write_str("SC")?;
                self.split_configs.iter().try_for_each(|s| s.fmt(f))?;
            }
            if self.dynamic_shape_metadata_prefix_bytes != 0 {
                write!(f, "M({})", self.dynamic_shape_metadata_prefix_bytes)?;
            }
        }
        f.write_char('}')
    }
}

impl Display for ArrayShape {
    /// `f32[3,5]{1,0}`; a scalar's layout is printed only when it has fields.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.element_type)?;
        joined(f, &self.dims, ",", |f, d| d.fmt(f))?;
        f.write_char(']')?;
        match &self.layout {
            Some(l) if !(self.dims.is_empty() && l.has_default_fields()) => l.fmt(f),
            _ => Ok(()),
        }
    }
}

impl Display for Shape {
    /// XLA's text: tuples as `(a, b)` with `/*index=N*/` before every fifth element.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Array(a) => a.fmt(f),
            Shape::Buffer(a) => write!(f, "b({a})"),
            Shape::Token => f.write_str("token[]"),
            Shape::Opaque => f.write_str("opaque[]"),
            Shape::Tuple(elements) => {
                f.write_char('(')?;
                joined(f, elements.iter().enumerate(), ", ", |f, (i, e)| {
                    if i > 0 && i % 5 == 0 {
                        write!(f, "/*index={i}*/")?;
                    }
                    e.fmt(f)
                })?;
                f.write_char(')')
            }
        }
    }
}
