//! The invocation of `xlayout::ffi::handler!`: `$crate;`, then one function whose parameters
//! are buffers (a shape, as `layout!` reads one) or scalar attributes (a Rust scalar type),
//! whose results are named buffers, with an optional `where` clause of equal dimensions:
//!
//! ```text
//! /// docs
//! pub fn scale(x: f32[?,128]{1,0}, factor: f32) -> (y: f32[?,128]{1,0}) where y[0] = x[0] {
//!     ...
//! }
//! ```

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, LitInt, Token, Visibility};

use crate::input::{shape_tokens, ShapeTokens};

/// A buffer parameter or result: its name and its shape as written.
pub struct Buffer {
    pub name: Ident,
    pub shape: ShapeTokens,
}

/// A parameter: a buffer, or a scalar attribute named by its Rust type.
pub enum Param {
    Buffer(Buffer),
    Attr { name: Ident, ty: Ident },
}

/// One side of `y[0] = x[0]`.
pub struct DimRef {
    pub name: Ident,
    pub dim: usize,
    pub span: Span,
}

/// One handler declaration.
pub struct Handler {
    /// The `$crate` of the facade's wrapper.
    pub krate: TokenTree,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<Param>,
    pub results: Vec<Buffer>,
    pub links: Vec<(DimRef, DimRef)>,
    /// The body, a `{ ... }` group whose value is `Result<(), xlayout::ffi::Error>`.
    pub body: Group,
}

pub fn parse(input: TokenStream) -> syn::Result<Handler> {
    let (krate, rest) = crate::input::krate(input)?;
    let rest: TokenStream = rest.into_iter().collect();
    let parser = |input: ParseStream| handler(input, krate.clone());
    parser.parse2(rest)
}

fn handler(input: ParseStream, krate: TokenTree) -> syn::Result<Handler> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    input.parse::<Token![fn]>().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected a handler: `fn name(x: f32[64,32]{1,0}, factor: f32) -> (out: f32[64,32]{1,0}) \
             { ... }`",
        )
    })?;
    let name: Ident = input.parse()?;
    let params = group(input, Delimiter::Parenthesis, "the parameters `(x: f32[8]{0}, ...)`")?;
    let params = split(params)
        .into_iter()
        .map(|p| param(p).map(|(name, tokens)| classify(name, tokens)))
        .collect::<syn::Result<Vec<_>>>()?;
    let mut results = Vec::new();
    if input.peek(Token![->]) {
        input.parse::<Token![->]>()?;
        let list = group(input, Delimiter::Parenthesis, "the named results `(out: f32[8]{0})`")?;
        for tokens in split(list) {
            let (name, shape) = param(tokens)?;
            results.push(Buffer { name, shape: shape_tokens(shape) });
        }
    }
    let mut links = Vec::new();
    if input.peek(Token![where]) {
        input.parse::<Token![where]>()?;
        while !input.peek(syn::token::Brace) {
            let left = dim_ref(input)?;
            input.parse::<Token![=]>()?;
            let right = dim_ref(input)?;
            links.push((left, right));
            if !input.peek(syn::token::Brace) {
                input.parse::<Token![,]>()?;
            }
        }
    }
    let body = match input.parse::<TokenTree>() {
        Ok(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => g,
        Ok(other) => {
            return Err(syn::Error::new(other.span(), "expected the handler's body `{ ... }`"))
        }
        Err(e) => return Err(syn::Error::new(e.span(), "expected the handler's body `{ ... }`")),
    };
    if !input.is_empty() {
        return Err(input.error("one handler per `handler!`"));
    }
    Ok(Handler { krate, attrs, vis, name, params, results, links, body })
}

/// The tokens inside the next group, which must have this delimiter.
fn group(input: ParseStream, delimiter: Delimiter, what: &str) -> syn::Result<Vec<TokenTree>> {
    match input.parse::<TokenTree>() {
        Ok(TokenTree::Group(g)) if g.delimiter() == delimiter => {
            Ok(g.stream().into_iter().collect())
        }
        Ok(other) => Err(syn::Error::new(other.span(), format!("expected {what}"))),
        Err(e) => Err(syn::Error::new(e.span(), format!("expected {what}"))),
    }
}

/// A list split at its commas; a comma inside `<...>` (a layout in angle brackets) is the
/// layout's own.
fn split(tokens: Vec<TokenTree>) -> Vec<Vec<TokenTree>> {
    let mut items = vec![Vec::new()];
    let mut angle = 0usize;
    for t in tokens {
        if let TokenTree::Punct(p) = &t {
            match p.as_char() {
                '<' => angle += 1,
                '>' => angle = angle.saturating_sub(1),
                ',' if angle == 0 => {
                    items.push(Vec::new());
                    continue;
                }
                _ => {}
            }
        }
        items.last_mut().expect("never empty").push(t);
    }
    if items.last().is_some_and(Vec::is_empty) {
        items.pop();
    }
    items
}

/// `name: tokens`.
fn param(tokens: Vec<TokenTree>) -> syn::Result<(Ident, Vec<TokenTree>)> {
    let mut it = tokens.into_iter();
    let name = match it.next() {
        Some(TokenTree::Ident(i)) => i,
        Some(other) => return Err(syn::Error::new(other.span(), "expected a parameter name")),
        None => return Err(syn::Error::new(Span::call_site(), "expected a parameter")),
    };
    match it.next() {
        Some(TokenTree::Punct(p)) if p.as_char() == ':' => {}
        _ => {
            return Err(syn::Error::new(
                name.span(),
                format!("expected `{name}: SHAPE` (a buffer) or `{name}: f32` (an attribute)"),
            ))
        }
    }
    let rest: Vec<TokenTree> = it.collect();
    if rest.is_empty() {
        return Err(syn::Error::new(name.span(), format!("`{name}` needs a shape or a type")));
    }
    Ok((name, rest))
}

/// A lone identifier is a scalar attribute's type (`f32`); anything else is a shape.
fn classify(name: Ident, tokens: Vec<TokenTree>) -> Param {
    match tokens.as_slice() {
        [TokenTree::Ident(ty)] => Param::Attr { name, ty: ty.clone() },
        _ => Param::Buffer(Buffer { name, shape: shape_tokens(tokens) }),
    }
}

/// `name[dim]`.
fn dim_ref(input: ParseStream) -> syn::Result<DimRef> {
    let name: Ident = input.parse()?;
    let content;
    syn::bracketed!(content in input);
    let dim: LitInt = content.parse()?;
    Ok(DimRef { span: name.span(), name, dim: dim.base10_parse()? })
}
