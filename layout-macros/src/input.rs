//! The invocation: the path of the `xlayout` crate (its `$crate`), then either one shape (the
//! expression form) or `struct` items (the item form). A shape is tokens or a string literal.

use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, LitStr, Token, Visibility};

/// A shape as written: tokens (`f32[3,5]{1,0:T(2,2)}`, or with `<...>` around the layout)
/// or a string literal pasted from a dump.
pub enum ShapeTokens {
    Tokens(Vec<TokenTree>),
    Literal(LitStr),
}

/// One layout to generate.
pub struct LayoutDef {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    /// The type's name (`XlaLayout` in the expression form, where the caller never sees it).
    pub name: Ident,
    pub shape: ShapeTokens,
}

pub struct Invocation {
    /// The `$crate` token of the facade's `macro_rules!` wrapper.
    pub krate: TokenTree,
    /// The expression form: one anonymous layout, whose value the invocation is.
    pub expression: bool,
    pub layouts: Vec<LayoutDef>,
}

/// The name of the expression form's type.
const ANONYMOUS: &str = "XlaLayout";

/// The `$crate;` that the facade's wrappers put first, and the tokens after it.
pub fn krate(input: TokenStream) -> syn::Result<(TokenTree, Vec<TokenTree>)> {
    let mut tokens = input.into_iter();
    let krate =
        tokens.next().ok_or_else(|| syn::Error::new(Span::call_site(), "expected `$crate;`"))?;
    match tokens.next() {
        Some(TokenTree::Punct(p)) if p.as_char() == ';' => {}
        _ => return Err(syn::Error::new(Span::call_site(), "expected `$crate;`")),
    }
    Ok((krate, tokens.collect()))
}

pub fn parse(input: TokenStream) -> syn::Result<Invocation> {
    let (krate, rest) = krate(input)?;
    let item_form = match rest.first() {
        None => {
            return Err(syn::Error::new(
                Span::call_site(),
                "layout! needs a shape: `layout!(f32[3,5]{1,0:T(2,2)})`, or items: \
                 `layout! { pub struct Name = f32[3,5]{1,0:T(2,2)}; }`",
            ))
        }
        Some(TokenTree::Punct(p)) => p.as_char() == '#',
        Some(TokenTree::Ident(i)) => i == "pub" || i == "struct",
        Some(_) => false,
    };
    if !item_form {
        let shape = shape_tokens(rest);
        let name = Ident::new(ANONYMOUS, Span::call_site());
        let layout = LayoutDef { attrs: Vec::new(), vis: Visibility::Inherited, name, shape };
        return Ok(Invocation { krate, expression: true, layouts: vec![layout] });
    }
    let layouts = items.parse2(rest.into_iter().collect())?;
    Ok(Invocation { krate, expression: false, layouts })
}

/// `#[attrs] vis struct Name = SHAPE;`, one or more.
fn items(input: ParseStream) -> syn::Result<Vec<LayoutDef>> {
    let mut layouts = Vec::new();
    while !input.is_empty() {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![struct]>()?;
        let name: Ident = input.parse()?;
        let eq = input.parse::<Token![=]>()?;
        let mut shape = Vec::new();
        while !input.is_empty() && !input.peek(Token![;]) {
            shape.push(input.parse::<TokenTree>()?);
        }
        if shape.is_empty() {
            return Err(syn::Error::new(
                eq.span,
                "expected a shape after `=`, e.g. `f32[3,5]{1,0:T(2,2)}`",
            ));
        }
        if !input.is_empty() {
            input.parse::<Token![;]>()?;
        }
        layouts.push(LayoutDef { attrs, vis, name, shape: shape_tokens(shape) });
    }
    Ok(layouts)
}

/// A lone string literal is a pasted shape; anything else is shape tokens.
pub fn shape_tokens(tokens: Vec<TokenTree>) -> ShapeTokens {
    if let [TokenTree::Literal(lit)] = tokens.as_slice() {
        if let Ok(s) = syn::parse2::<LitStr>(TokenTree::Literal(lit.clone()).into()) {
            return ShapeTokens::Literal(s);
        }
    }
    // An invisible group (a `$shape:tt` of a user's macro_rules) is looked through.
    if let [TokenTree::Group(g)] = tokens.as_slice() {
        if g.delimiter() == Delimiter::None {
            return shape_tokens(g.stream().into_iter().collect());
        }
    }
    ShapeTokens::Tokens(tokens)
}
