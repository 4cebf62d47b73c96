//! What the macro emits after an error, besides the error: a layout of the right kind, so the
//! rest of the user's crate type-checks and shows one error per mistake instead of a cascade.
//!
//! When the shape parsed (or at least its element type and dimensions did), the placeholder has
//! its element type and dimensions with the default layout (the rank, the index type and the
//! element type the user's code expects); otherwise it is `f32[]`.

use layout_runtime::{ArrayShape, Dim, PrimitiveType, Shape};
use proc_macro2::{TokenStream, TokenTree};

use crate::check::Checked;
use crate::emit;
use crate::input::LayoutDef;
use crate::storage;
use crate::text::Source;

pub fn placeholder(
    krate: &TokenTree,
    def: &LayoutDef,
    shape: Option<&ArrayShape>,
    source: &Source,
) -> TokenStream {
    let recovered = shape.is_none().then(|| dims_prefix(&source.text)).flatten();
    let like = shape.or(recovered.as_ref()).and_then(|a| {
        let dims = a.dims.iter().map(|d| match d {
            Dim::Static(n) | Dim::Bounded(n) => *n,
            Dim::Unbounded => 0,
        });
        Checked::of(ArrayShape::new(a.element_type, dims))
    });
    let checked = like
        .or_else(|| Checked::of(ArrayShape::new(PrimitiveType::F32, [])))
        .expect("f32[] always has a plan");
    emit::layout(krate, def, &checked, &storage::choose(&checked, source))
}

/// The element type and dimensions of a text that failed to parse later on (in its layout),
/// from the runtime parser run on the text up to the first `]`.
fn dims_prefix(text: &str) -> Option<ArrayShape> {
    let end = text.find(']')? + 1;
    match Shape::parse_unvalidated(&text[..end]).ok()? {
        Shape::Array(a) => Some(a),
        _ => None,
    }
}
