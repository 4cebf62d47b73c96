//! A handler's buffers, checked: each shape by layout-runtime's parser and validator (as
//! `layout!` checks one), then the FFI's own rule, that XLA passes a dense buffer in a
//! dimension order and nothing else (no tiles, no `E(n)`, `L(n)`, `S(n)`...); then the
//! declaration as a whole (names, and a size for every dynamic result dimension).

use std::collections::HashMap;

use layout_runtime::{ArrayShape, Location, PrimitiveType};
use proc_macro2::Span;
use syn::ext::IdentExt;

use super::input::{Buffer, DimRef, Handler, Param};
use crate::check::{self, Checked, Failure};
use crate::text::Source;

/// A buffer that passed: with static dimensions, a `layout!` type; otherwise a run-time
/// shape whose sizes come from the call.
pub enum Kind {
    Static(Box<Checked>),
    Dynamic,
}

pub struct CheckedBuffer {
    /// Canonical, as XLA prints it.
    pub array: ArrayShape,
    pub kind: Kind,
    /// Where the shape was written (errors of the generated code point there).
    pub span: Span,
}

/// The buffer `b`, or every error in its shape.
pub fn buffer(b: &Buffer) -> Result<CheckedBuffer, Failure> {
    let source = Source::from_tokens(&b.shape);
    let span = source.span_of(None);
    check::within_limit(std::slice::from_ref(&source))
        .map_err(|errors| Failure { errors, shape: None })?;
    let mut parsed = check::parse(&source)?;
    let layout = parsed.array.layout_or_default().into_owned();
    if !layout.tiles.is_empty() {
        parsed.error_at(
            Location::Tile(0),
            "XLA's FFI passes dense buffers, never tiled ones (`jax.ffi.ffi_call` refuses a tiled \
             layout: \"The FFI does not support layouts with tiling\"): declare the dimension \
             order alone, as `{1,0}`, and tile inside the kernel",
        );
    } else if !layout.has_default_fields() {
        parsed.error_at(
            Location::Layout,
            "XLA's FFI passes a dense buffer in a dimension order and nothing else: a handler's \
             layout is its `minor_to_major` alone, as `{1,0}` (no `E(n)`, `L(n)`, `S(n)` or \
             other fields)",
        );
    }
    if parsed.array.dims.iter().all(|d| !d.is_dynamic()) {
        let checked = check::finish(parsed)?;
        return Ok(CheckedBuffer {
            array: checked.array.clone(),
            kind: Kind::Static(Box::new(checked)),
            span,
        });
    }
    // A dynamic shape has no plan to check here; its errors so far decide.
    let array = parsed.array.clone();
    match check::finish_dynamic(parsed) {
        Ok(()) => Ok(CheckedBuffer { array, kind: Kind::Dynamic, span }),
        Err(errors) => Err(Failure { errors, shape: None }),
    }
}

/// The XLA type of a Rust scalar type's name, by the names' rule (`bool` is `pred`, `iN`
/// is `sN`, `uN` and `fN` are themselves); the `Attr` trait decides which are attributes.
pub fn attr_type(ty: &syn::Ident) -> Result<PrimitiveType, syn::Error> {
    let name = ty.unraw().to_string();
    let xla = match name.as_str() {
        "bool" => String::from("pred"),
        n if n.starts_with('i') => format!("s{}", &n[1..]),
        n => n.to_owned(),
    };
    let known = xla
        .parse::<PrimitiveType>()
        .ok()
        .filter(|t| t.bit_width() > 0 && *t != PrimitiveType::Token);
    known.ok_or_else(|| {
        syn::Error::new(
            ty.span(),
            format!(
                "`{name}` is neither a shape nor a scalar attribute type: a buffer is written as \
                 a shape (`f32[64,32]{{1,0}}`), an attribute as bool, i8..i64, u8..u64, f32 or f64"
            ),
        )
    })
}

/// Where each name of the declaration is: `(is a result, index among the buffers of its
/// side)`, `None` for an attribute.
type Names = HashMap<String, Option<(bool, usize)>>;

/// The declaration as a whole: every name once, every `where` side a buffer's dimension,
/// every dynamic dimension of a result given a size by an argument's.
pub fn declaration(
    h: &Handler,
    arrays: &[Option<&ArrayShape>],
    results: &[Option<&ArrayShape>],
) -> Result<(), syn::Error> {
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut names = Names::new();
    let mut k = 0;
    for p in &h.params {
        let (name, at) = match p {
            Param::Buffer(b) => {
                k += 1;
                (&b.name, Some((false, k - 1)))
            }
            Param::Attr { name, .. } => (name, None),
        };
        if names.insert(name.unraw().to_string(), at).is_some() {
            push(syn::Error::new(name.span(), format!("`{name}` is declared twice")));
        }
    }
    for (j, r) in h.results.iter().enumerate() {
        if names.insert(r.name.unraw().to_string(), Some((true, j))).is_some() {
            push(syn::Error::new(r.name.span(), format!("`{}` is declared twice", r.name)));
        }
    }
    let rank = |d: &DimRef| -> Result<(bool, usize), syn::Error> {
        let name = d.name.unraw().to_string();
        let Some(&at) = names.get(&name) else {
            return Err(syn::Error::new(
                d.span,
                format!("`{name}` is not a buffer of this handler"),
            ));
        };
        let Some((result, i)) = at else {
            return Err(syn::Error::new(d.span, format!("`{name}` is an attribute, not a buffer")));
        };
        let array = if result { results[i] } else { arrays[i] };
        match array {
            Some(a) if d.dim < a.rank() => Ok((result, i)),
            Some(a) => Err(syn::Error::new(
                d.span,
                format!("`{name}` has {} dimension(s): there is no dimension {}", a.rank(), d.dim),
            )),
            // Its shape has errors of its own, already reported.
            None => Ok((result, i)),
        }
    };
    let mut sized = Vec::new();
    for (left, right) in &h.links {
        match (rank(left), rank(right)) {
            (Ok(l), Ok(r)) => {
                // A result's dimension linked to an argument's has a size before the call.
                if l.0 && !r.0 {
                    sized.push((l.1, left.dim));
                }
                if r.0 && !l.0 {
                    sized.push((r.1, right.dim));
                }
            }
            (l, r) => {
                if let Err(e) = l {
                    push(e);
                }
                if let Err(e) = r {
                    push(e);
                }
            }
        }
    }
    for (j, (r, array)) in h.results.iter().zip(results).enumerate() {
        let Some(array) = array else { continue };
        for (d, dim) in array.dims.iter().enumerate() {
            if dim.is_dynamic() && !sized.contains(&(j, d)) {
                push(syn::Error::new(
                    r.name.span(),
                    format!(
                        "result `{name}` dimension {d} is dynamic: say which argument's dimension \
                         gives its size, as `where {name}[{d}] = x[0]` (Python computes the \
                         result's shape from it)",
                        name = r.name
                    ),
                ));
            }
        }
    }
    errors.map_or(Ok(()), Err)
}
