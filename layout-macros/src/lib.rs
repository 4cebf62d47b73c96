//! The procedural half of xlayout's `layout!` macro. Use it through the `xlayout` crate,
//! whose `macro_rules!` wrapper passes its own path (`$crate`) as the first token, so the
//! generated code never names a crate itself.
//!
//! The macro owns no rules. One file a step, each using only the ones above it in this list:
//!
//! - `input`: the invocation, `$crate;` then one shape or `struct` items;
//! - `text`: a shape's tokens as XLA shape text, with the span of the token behind each byte;
//! - `check`: layout-runtime parses and validates the text; every error's byte range goes
//!   back to the tokens it covers; one invocation's text is bounded;
//! - `storage`: which storage the elements allow (typed, packed, none) and the tile layout;
//! - `tokens`, `program`: token helpers, and the runtime plan's index programs as `const fn`
//!   bodies with literal divisors (the forward one; the inverse one as data for the library's
//!   `index_of_program`, written out only past its register count);
//! - `emit`: the type and its impls, only what differs between layouts;
//! - `fallback`: after an error, a placeholder of the right kind, so errors do not cascade;
//! - `expand`: the steps in order, for one invocation;
//! - `ffi`: `xlayout::ffi::handler!`, an XLA FFI handler of `layout!` types, from the same
//!   steps.

mod check;
mod emit;
mod expand;
mod fallback;
mod ffi;
mod input;
mod program;
mod storage;
mod text;
mod tokens;

use proc_macro::TokenStream;

/// `layout_impl!($crate; <input>)`: see `xlayout::layout!`.
#[doc(hidden)]
#[proc_macro]
pub fn layout_impl(input: TokenStream) -> TokenStream {
    expand::expand(input.into()).into()
}

/// `ffi_handler_impl!($crate; fn name(...) -> (...) { ... })`: see `xlayout::ffi::handler!`.
#[doc(hidden)]
#[proc_macro]
pub fn ffi_handler_impl(input: TokenStream) -> TokenStream {
    ffi::expand(input.into()).into()
}

#[cfg(test)]
mod tests;
