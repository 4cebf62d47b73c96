//! The procedural half of xlayout's `layout!` macro. Use it through the `xlayout` crate,
//! whose `macro_rules!` wrapper passes its own path (`$crate`) as the first token, so the
//! generated code never names a crate itself.
//!
//! The macro owns no rules: it turns its tokens into XLA shape text while remembering which
//! byte range each token produced ([`text`]), has layout-runtime parse and validate that text
//! ([`check`]), maps every error's byte range back to the tokens it covers, and emits the
//! runtime plan's constants and index programs as literal Rust ([`expand`]), with the storage
//! traits the elements allow ([`storage`]). After an error it still emits a placeholder of
//! the right kind ([`fallback`]).

mod check;
mod expand;
mod fallback;
mod input;
mod storage;
mod text;

use proc_macro::TokenStream;

/// `layout_impl!($crate; <input>)`: see `xlayout::layout!`.
#[doc(hidden)]
#[proc_macro]
pub fn layout_impl(input: TokenStream) -> TokenStream {
    expand_tokens(input.into()).into()
}

/// The whole macro on `proc_macro2` tokens (so unit tests can run it).
fn expand_tokens(input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let invocation = match input::parse(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let mut out = proc_macro2::TokenStream::new();
    for layout in &invocation.layouts {
        let source = text::Source::from_tokens(&layout.shape);
        let generated = match check::check(&source) {
            Ok(checked) => expand::expand(&invocation.krate, layout, &checked),
            Err(failure) => {
                let mut tokens = failure.errors.to_compile_error();
                tokens.extend(fallback::placeholder(
                    &invocation.krate,
                    layout,
                    failure.shape.as_deref(),
                    &source.text,
                ));
                tokens
            }
        };
        out.extend(generated);
    }
    invocation.wrap(out)
}

#[cfg(test)]
mod tests;
