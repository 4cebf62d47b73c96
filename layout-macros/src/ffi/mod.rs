//! `xlayout::ffi::handler!`: an XLA FFI handler whose buffers are layouts, checked by the
//! same parser and validator as `layout!` ([`crate::check`]) and generated with its code
//! ([`crate::emit`]). One file a step, each using only the ones above it in this list:
//!
//! - `input`: the declaration, a function of shapes and scalar attributes;
//! - `check`: each buffer's shape, the FFI's rule (dense buffers in a dimension order), and
//!   the declaration as a whole;
//! - `manifest`: what Python reads, one JSON text per handler;
//! - `emit`: the layout types, the signature, the manifest and the `extern "C"` handler.

mod check;
mod emit;
mod input;
mod manifest;

use proc_macro2::TokenStream;
use quote::quote;

use emit::Checked;
use input::Param;

/// The whole macro on `proc_macro2` tokens.
pub fn expand(input: TokenStream) -> TokenStream {
    let h = match input::parse(input) {
        Ok(h) => h,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut params = Vec::new();
    for p in &h.params {
        match p {
            Param::Buffer(b) => match check::buffer(b) {
                Ok(c) => params.push(Some(Checked::Buffer(c))),
                Err(failure) => {
                    push(failure.errors);
                    params.push(None);
                }
            },
            Param::Attr { ty, .. } => match check::attr_type(ty) {
                Ok(t) => params.push(Some(Checked::Attr(t))),
                Err(e) => {
                    push(e);
                    params.push(None);
                }
            },
        }
    }
    let mut results = Vec::new();
    for r in &h.results {
        match check::buffer(r) {
            Ok(c) => results.push(Some(c)),
            Err(failure) => {
                push(failure.errors);
                results.push(None);
            }
        }
    }
    let arrays: Vec<_> = params
        .iter()
        .zip(&h.params)
        .filter(|(_, p)| matches!(p, Param::Buffer(_)))
        .map(|(c, _)| match c {
            Some(Checked::Buffer(b)) => Some(&b.array),
            _ => None,
        })
        .collect();
    let result_arrays: Vec<_> = results.iter().map(|r| r.as_ref().map(|r| &r.array)).collect();
    if let Err(e) = check::declaration(&h, &arrays, &result_arrays) {
        push(e);
    }
    match errors {
        None => {
            let params: Vec<Checked> = params.into_iter().flatten().collect();
            let results: Vec<_> = results.into_iter().flatten().collect();
            emit::handler(&h, &params, &results)
        }
        Some(e) => {
            // The handler's module with an empty manifest, so that `export!` and other uses of
            // the name do not add errors of their own.
            let (krate, vis, name) = (&h.krate, &h.vis, &h.name);
            let empty = emit::c_string("{}");
            let mut out = e.to_compile_error();
            out.extend(quote! {
                #vis mod #name {
                    pub const MANIFEST: &#krate::__private::ffi::CStr = #empty;
                }
            });
            out
        }
    }
}
