//! Token helpers every emitting module uses.

use proc_macro2::{Ident, Literal, Span};

/// A local variable of generated code: hygienic, so no name of the caller's can capture it.
pub fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// An integer literal without a suffix (its type comes from where it stands).
pub fn lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}
