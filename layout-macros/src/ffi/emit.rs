//! What a handler declaration generates:
//!
//! - a module named as the handler, holding a `layout!` type per buffer of static shape
//!   (named as the parameter), the handler's `SIGNATURE` (what the call frame is checked
//!   against) and its `MANIFEST` (what Python reads), both written from the canonical texts;
//! - the handler itself, `#[no_mangle] unsafe extern "C" fn name(frame) -> error`, whose body
//!   is the kernel as a nested function of the declared parameters and one call of the
//!   library's `ffi::call`, which checks the frame and hands the kernel its views.
//!
//! Everything the generated code names goes through `$crate::__private`.

use layout_runtime::{ArrayShape, Dim, PrimitiveType};
use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;

use super::check::{CheckedBuffer, Kind};
use super::input::{Handler, Param};
use super::manifest::Manifest;
use crate::input::{LayoutDef, ShapeTokens};
use crate::tokens::{lit, local};
use crate::{emit, storage};

/// One checked parameter, in declaration order.
pub enum Checked {
    Buffer(CheckedBuffer),
    Attr(PrimitiveType),
}

/// The handler, from its checked parameters and results.
pub fn handler(h: &Handler, params: &[Checked], results: &[CheckedBuffer]) -> TokenStream {
    let krate = &h.krate;
    let x = quote!(#krate::__private::ffi);
    let name = &h.name;
    let symbol = name.unraw().to_string();
    let vis = &h.vis;
    let attrs = &h.attrs;

    // The layout types, in the handler's module.
    let mut types = TokenStream::new();
    let buffers = h.params.iter().zip(params).filter_map(|(p, c)| match (p, c) {
        (Param::Buffer(b), Checked::Buffer(c)) => Some((&b.name, c)),
        _ => None,
    });
    let all_buffers: Vec<(&Ident, &CheckedBuffer)> =
        buffers.chain(h.results.iter().map(|r| &r.name).zip(results)).collect();
    for (pname, c) in &all_buffers {
        if let Kind::Static(checked) = &c.kind {
            let def = LayoutDef {
                attrs: vec![syn::parse_quote!(#[allow(non_camel_case_types)])],
                vis: syn::parse_quote!(pub),
                name: (*pname).clone(),
                shape: ShapeTokens::Tokens(Vec::new()),
            };
            // Typed storage: a handler's layout is dense, of whole elements.
            let storage = storage::Storage::Typed(None);
            types.extend(emit::layout(krate, &def, checked, &storage));
        }
    }

    // The kernel's parameters and, for each, how the frame gives it.
    let call = local("call");
    let mut kernel_params = Vec::new();
    let mut getters = Vec::new();
    let mut arg_params = Vec::new();
    let mut attr_params = Vec::new();
    let mut type_checks = Vec::new();
    let (mut i, mut k) = (0usize, 0usize);
    for (p, c) in h.params.iter().zip(params) {
        match (p, c) {
            (Param::Buffer(b), Checked::Buffer(c)) => {
                let (ty, get) = buffer_tokens(&x, name, &b.name, c, false, i, &call);
                let pname = &b.name;
                kernel_params.push(quote!(#pname: #ty));
                getters.push(get);
                arg_params.push(param_tokens(&x, &b.name, &c.array));
                i += 1;
            }
            (Param::Attr { name: pname, ty }, Checked::Attr(t)) => {
                let at = lit(k);
                kernel_params.push(quote!(#pname: #ty));
                getters.push(quote_spanned!(ty.span()=> #call.attr::<#ty>(#at)?));
                let text = pname.unraw().to_string();
                let variant = format_ident!("{}", format!("{t:?}"));
                attr_params.push(quote!(#x::AttrParam { name: #text, element_type: #x::PrimitiveType::#variant }));
                let number = t.enum_value();
                let message = format!("`{ty}` is not the XLA type {} here", t.name());
                type_checks.push(quote_spanned!(ty.span()=>
                    const _: () = ::core::assert!(<#ty as #x::Attr>::TYPE.enum_value() == #number, #message);
                ));
                k += 1;
            }
            _ => {}
        }
    }
    let mut result_params = Vec::new();
    for (j, (r, c)) in h.results.iter().zip(results).enumerate() {
        let (ty, get) = buffer_tokens(&x, name, &r.name, c, true, j, &call);
        let pname = &r.name;
        kernel_params.push(quote!(mut #pname: #ty));
        getters.push(get);
        result_params.push(param_tokens(&x, &r.name, &c.array));
    }
    let links = h.links.iter().map(|(l, r)| {
        let side = |d: &super::input::DimRef| {
            let text = d.name.unraw().to_string();
            let (result, index) = position(h, &text);
            let (index, dim) = (lit(index), lit(d.dim));
            quote!(#x::BufferDim { result: #result, buffer: #index, dim: #dim })
        };
        let (l, r) = (side(l), side(r));
        quote!(#x::DimLink { left: #l, right: #r })
    });

    let manifest = Manifest {
        name: symbol.clone(),
        args: names_and_texts(h, params),
        results: h
            .results
            .iter()
            .zip(results)
            .map(|(r, c)| (r.name.unraw().to_string(), c.array.to_string()))
            .collect(),
        attrs: h
            .params
            .iter()
            .zip(params)
            .filter_map(|(p, c)| match (p, c) {
                (Param::Attr { name, .. }, Checked::Attr(t)) => {
                    Some((name.unraw().to_string(), t.name().to_owned()))
                }
                _ => None,
            })
            .collect(),
        equal_dims: h
            .links
            .iter()
            .map(|(l, r)| (l.name.unraw().to_string(), l.dim, r.name.unraw().to_string(), r.dim))
            .collect(),
    }
    .json();
    let manifest = c_string(&manifest);

    let kernel = Ident::new("__xlayout_kernel", Span::mixed_site());
    let frame = local("frame");
    let body = &h.body;
    let module_doc =
        format!(" The layouts, signature and manifest of the XLA FFI handler [`{symbol}`].");
    let signature_doc = format!(" `{}`", signature_text(h, params, results));
    let no_mangle = quote_spanned!(krate.span()=> #[no_mangle]);
    quote! {
        #[doc = #module_doc]
        #vis mod #name {
            #types

            /// What the call frame is checked against.
            pub static SIGNATURE: #x::Signature = #x::Signature {
                name: #symbol,
                args: &[#(#arg_params),*],
                results: &[#(#result_params),*],
                attrs: &[#(#attr_params),*],
                links: &[#(#links),*],
            };

            /// The handler's manifest for Python (`xlayout.jax.load`), one JSON text.
            pub const MANIFEST: &#x::CStr = #manifest;
        }

        #(#type_checks)*

        #(#attrs)*
        ///
        /// An XLA FFI handler (generated by `xlayout::ffi::handler!`):
        #[doc = #signature_doc]
        ///
        /// # Safety
        ///
        /// XLA calls it, with a call frame (`XLA_FFI_CallFrame`) whose pointers are valid for
        /// the call; every buffer and attribute in it is checked before the body runs.
        // The FFI boundary is the one place of unsafe code (a raw frame, an exported
        // symbol), in the generated code only: a crate that denies `unsafe_code` for its
        // own code still declares handlers (one that forbids it cannot).
        #no_mangle
        #[allow(unsafe_code)]
        #vis unsafe extern "C" fn #name(#frame: *mut #x::CallFrame) -> *mut #x::XlaError {
            // The kernel is the user's function: the views are taken by value, a result view
            // is `mut` whether or not it is written through, and a body may always succeed.
            #[allow(
                unused_mut,
                clippy::too_many_arguments,
                clippy::needless_pass_by_value,
                clippy::unnecessary_wraps
            )]
            fn #kernel(#(#kernel_params),*) -> #x::Result<(), #x::Error> #body

            // SAFETY: the frame is XLA's (this function's contract).
            unsafe {
                #x::call(#frame, &#name::SIGNATURE, &mut |#call: &mut #x::Call<'_>| {
                    #kernel(#(#getters),*)
                })
            }
        }
    }
}

/// The kernel's parameter type of a buffer and the expression that gets it from the call.
fn buffer_tokens(
    x: &TokenStream,
    handler: &Ident,
    pname: &Ident,
    c: &CheckedBuffer,
    result: bool,
    index: usize,
    call: &Ident,
) -> (TokenStream, TokenStream) {
    let at = lit(index);
    // Every token of the getter at the shape, so that an error of its trait bounds (an
    // element type the FFI cannot pass) points at the shape that wrote it.
    let span = c.span;
    let respan = |i: &Ident| {
        let mut i = i.clone();
        i.set_span(i.span().located_at(span));
        i
    };
    let (call, handler, pname) = (respan(call), respan(handler), respan(pname));
    match (&c.kind, result) {
        (Kind::Static(_), false) => (
            quote!(#x::StaticView<'_, #handler::#pname>),
            quote_spanned!(span=> #call.arg::<#handler::#pname>(#at)?),
        ),
        (Kind::Static(_), true) => (
            quote!(#x::StaticViewMut<'_, #handler::#pname>),
            quote_spanned!(span=> #call.result::<#handler::#pname>(#at)?),
        ),
        (Kind::Dynamic, false) => {
            let elem = element(x, &c.array);
            (quote!(#x::View<'_, #elem>), quote_spanned!(span=> #call.arg_view::<#elem>(#at)?))
        }
        (Kind::Dynamic, true) => {
            let elem = element(x, &c.array);
            (
                quote!(#x::ViewMut<'_, #elem>),
                quote_spanned!(span=> #call.result_view::<#elem>(#at)?),
            )
        }
    }
}

/// The Rust element type of an array (`elem::f32`).
fn element(x: &TokenStream, array: &ArrayShape) -> TokenStream {
    let elem = format_ident!("{}", array.element_type.name());
    quote!(#x::elem::#elem)
}

/// The `Param` of a buffer.
fn param_tokens(x: &TokenStream, name: &Ident, array: &ArrayShape) -> TokenStream {
    let text = array.to_string();
    let name = name.unraw().to_string();
    let variant = format_ident!("{}", format!("{:?}", array.element_type));
    let dims = array.dims.iter().map(|d| match d {
        Dim::Static(n) => {
            let n = Literal::u64_unsuffixed(*n);
            quote!(#x::Dim::Static(#n))
        }
        Dim::Bounded(n) => {
            let n = Literal::u64_unsuffixed(*n);
            quote!(#x::Dim::Bounded(#n))
        }
        Dim::Unbounded => quote!(#x::Dim::Unbounded),
    });
    let order = array
        .layout_or_default()
        .minor_to_major
        .iter()
        .map(|&d| lit(d as usize))
        .collect::<Vec<_>>();
    quote! {
        #x::Param {
            name: #name,
            text: #text,
            element_type: #x::PrimitiveType::#variant,
            dims: &[#(#dims),*],
            minor_to_major: &[#(#order),*],
        }
    }
}

/// `(is a result, index on its side)` of the buffer named `name`.
fn position(h: &Handler, name: &str) -> (bool, usize) {
    if let Some(j) = h.results.iter().position(|r| r.name.unraw() == name) {
        return (true, j);
    }
    let buffers = h.params.iter().filter_map(|p| match p {
        Param::Buffer(b) => Some(&b.name),
        Param::Attr { .. } => None,
    });
    (false, buffers.into_iter().position(|n| n.unraw() == name).unwrap_or(0))
}

/// `(name, text)` of the argument buffers.
fn names_and_texts(h: &Handler, params: &[Checked]) -> Vec<(String, String)> {
    h.params
        .iter()
        .zip(params)
        .filter_map(|(p, c)| match (p, c) {
            (Param::Buffer(b), Checked::Buffer(c)) => {
                Some((b.name.unraw().to_string(), c.array.to_string()))
            }
            _ => None,
        })
        .collect()
}

/// `name(x: f32[64,32]{0,1}, factor: f32) -> (out: f32[64,32]{1,0})`, for the docs.
fn signature_text(h: &Handler, params: &[Checked], results: &[CheckedBuffer]) -> String {
    let params: Vec<String> = h
        .params
        .iter()
        .zip(params)
        .map(|(p, c)| match (p, c) {
            (Param::Buffer(b), Checked::Buffer(c)) => format!("{}: {}", b.name.unraw(), c.array),
            (Param::Attr { name, ty }, _) => format!("{}: {ty}", name.unraw()),
            (Param::Buffer(b), Checked::Attr(_)) => b.name.unraw().to_string(),
        })
        .collect();
    let results: Vec<String> = h
        .results
        .iter()
        .zip(results)
        .map(|(r, c)| format!("{}: {}", r.name.unraw(), c.array))
        .collect();
    format!("{}({}) -> ({})", h.name.unraw(), params.join(", "), results.join(", "))
}

/// A C string literal of `text` (which holds no NUL: names and layout texts).
pub fn c_string(text: &str) -> TokenTree {
    let text = std::ffi::CString::new(text.replace('\0', "")).unwrap_or_default();
    TokenTree::Literal(Literal::c_string(&text))
}
