//! What the macro emits after an error, besides the error: a layout of the right kind, so the
//! rest of the user's crate type-checks and shows one error per mistake instead of a cascade.
//!
//! When the shape parsed, the placeholder has its element type and dimensions with the default
//! layout (the rank, the index type and the element type the user's code expects); otherwise
//! it is `f32[]`.

use layout_runtime::{ArrayShape, Dim, PrimitiveType};
use proc_macro2::{TokenStream, TokenTree};

use crate::check::Checked;
use crate::input::LayoutDef;

pub fn placeholder(krate: &TokenTree, def: &LayoutDef, shape: Option<&ArrayShape>) -> TokenStream {
    let like = shape.and_then(|a| {
        let dims = a.dims.iter().map(|d| match d {
            Dim::Static(n) | Dim::Bounded(n) => *n,
            Dim::Unbounded => 0,
        });
        checked(ArrayShape::new(a.element_type, dims))
    });
    let checked = like
        .or_else(|| checked(ArrayShape::new(PrimitiveType::F32, [])))
        .expect("f32[] always has a plan");
    crate::expand::expand(krate, def, &checked)
}

fn checked(array: ArrayShape) -> Option<Checked> {
    let plan = array.plan().ok()?;
    let xla_byte_size = array.byte_size().ok();
    Some(Checked { array, plan, xla_byte_size })
}
