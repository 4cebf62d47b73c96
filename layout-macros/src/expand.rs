//! One invocation, from tokens to tokens: read the invocation ([`crate::input`]), turn each
//! shape into text with a span per byte ([`crate::text`]), keep the invocation within its
//! size limit and check each shape with layout-runtime ([`crate::check`]), choose its storage
//! ([`crate::storage`]) and emit its code ([`crate::emit`]), or after an error the error and
//! a placeholder ([`crate::fallback`]).

use proc_macro2::TokenStream;

use crate::text::Source;
use crate::{check, emit, fallback, input, storage};

/// The whole macro on `proc_macro2` tokens (so unit tests and benchmarks can run it).
pub fn expand(input: TokenStream) -> TokenStream {
    let invocation = match input::parse(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let sources: Vec<Source> =
        invocation.layouts.iter().map(|l| Source::from_tokens(&l.shape)).collect();
    let mut out = TokenStream::new();
    if let Err(e) = check::within_limit(&sources) {
        // Nothing of an invocation past the limit is checked or generated: its cost to the
        // compiler stays bounded. The expression form still needs a value.
        out.extend(e.to_compile_error());
        if invocation.expression {
            out.extend(fallback::placeholder(
                &invocation.krate,
                &invocation.layouts[0],
                None,
                &sources[0],
            ));
        }
        return emit::invocation(&invocation, out);
    }
    for (layout, source) in invocation.layouts.iter().zip(&sources) {
        let generated = match check::check(source) {
            Ok(checked) => {
                let storage = storage::choose(&checked, source);
                emit::layout(&invocation.krate, layout, &checked, &storage)
            }
            Err(failure) => {
                let mut tokens = failure.errors.to_compile_error();
                tokens.extend(fallback::placeholder(
                    &invocation.krate,
                    layout,
                    failure.shape.as_deref(),
                    source,
                ));
                tokens
            }
        };
        out.extend(generated);
    }
    emit::invocation(&invocation, out)
}
