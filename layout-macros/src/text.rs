//! Tokens to XLA shape text, remembering which bytes each token produced, so that an error's
//! byte range maps back to the tokens it covers.

use std::ops::Range;

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

use crate::input::ShapeTokens;

/// The shape text and where each of its bytes came from.
pub struct Source {
    pub text: String,
    /// Byte range in `text` -> the span of the token (or delimiter) that produced it.
    pieces: Vec<(Range<usize>, Span)>,
    /// A string literal input: every error points at the whole literal (stable Rust cannot
    /// point inside one).
    literal: Option<Span>,
}

impl Source {
    pub fn from_tokens(shape: &ShapeTokens) -> Source {
        match shape {
            ShapeTokens::Literal(lit) => {
                Source { text: lit.value(), pieces: Vec::new(), literal: Some(lit.span()) }
            }
            ShapeTokens::Tokens(tokens) => {
                let mut s = Source { text: String::new(), pieces: Vec::new(), literal: None };
                s.push_all(tokens);
                s
            }
        }
    }

    fn push(&mut self, text: &str, span: Span) {
        // Two words in a row (`E` `4`, `f32` `x`) must stay two tokens; `/` then `*` or `/`
        // must not open a comment.
        let last = self.text.chars().last();
        let first = text.chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '"');
        let comment = last == Some('/') && matches!(first, Some('*' | '/'));
        if (word(last) && word(first)) || comment {
            self.text.push(' ');
        }
        let start = self.text.len();
        self.text.push_str(text);
        self.pieces.push((start..self.text.len(), span));
    }

    fn push_all(&mut self, tokens: &[TokenTree]) {
        // `<...>` right after the dimensions is the layout, written `{...}` in XLA's text.
        let mut angle_close: Option<usize> = None;
        for (k, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::None => ("", ""),
                    };
                    if !open.is_empty() {
                        self.push(open, g.span_open());
                    }
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    self.push_all(&inner);
                    if !close.is_empty() {
                        self.push(close, g.span_close());
                    }
                }
                TokenTree::Punct(p)
                    if p.as_char() == '<' && angle_close.is_none() && after_dims(tokens, k) =>
                {
                    angle_close = matching_angle(tokens, k);
                    let open = if angle_close.is_some() { "{" } else { "<" };
                    self.push(open, p.span());
                }
                TokenTree::Punct(p) if angle_close == Some(k) => {
                    angle_close = None;
                    self.push("}", p.span());
                }
                TokenTree::Punct(p) => self.push(&p.as_char().to_string(), p.span()),
                TokenTree::Ident(i) => self.push(&i.to_string(), i.span()),
                TokenTree::Literal(l) => self.push(&l.to_string(), l.span()),
            }
        }
    }

    /// The span of the first token that wrote bytes of `range` (of the whole input's first
    /// token without a range; of the literal, for a string literal).
    pub fn span_of(&self, range: Option<Range<usize>>) -> Span {
        if let Some(span) = self.literal {
            return span;
        }
        let first = range.and_then(|r| {
            let end = r.end.max(r.start + 1);
            self.pieces.iter().find(|(p, _)| p.start < end && r.start < p.end)
        });
        first.or(self.pieces.first()).map_or_else(Span::call_site, |(_, span)| *span)
    }

    /// An error at `range` of the text (or at the whole input when there is none).
    pub fn error(&self, range: Option<Range<usize>>, message: &str) -> syn::Error {
        if let Some(span) = self.literal {
            return syn::Error::new(span, message);
        }
        let covered: Vec<Span> = match range {
            Some(r) if r.start < r.end => self
                .pieces
                .iter()
                .filter(|(p, _)| p.start < r.end && r.start < p.end)
                .map(|(_, s)| *s)
                .collect(),
            // An empty range (the end of the text, a missing token): the token there.
            Some(r) => {
                let at = self.pieces.iter().find(|(p, _)| p.end > r.start).or(self.pieces.last());
                at.map(|(_, s)| *s).into_iter().collect()
            }
            None => Vec::new(),
        };
        let (first, last) = match (covered.first(), covered.last()) {
            (Some(f), Some(l)) => (*f, *l),
            _ => match (self.pieces.first(), self.pieces.last()) {
                (Some(f), Some(l)) => (f.1, l.1),
                _ => (Span::call_site(), Span::call_site()),
            },
        };
        spanned_error(first, last, message)
    }
}

/// An error underlining everything from `first` to `last` (what `syn::Error::new_spanned`
/// does for a token range, on stable Rust).
pub fn spanned_error(first: Span, last: Span, message: &str) -> syn::Error {
    let mut range = TokenStream::new();
    range.extend([
        TokenTree::Ident(proc_macro2::Ident::new("start", first)),
        TokenTree::Ident(proc_macro2::Ident::new("end", last)),
    ]);
    syn::Error::new_spanned(range, message)
}

/// Whether token `k` follows the dimensions `[...]` of an array shape.
fn after_dims(tokens: &[TokenTree], k: usize) -> bool {
    k > 0 && matches!(&tokens[k - 1], TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket)
}

/// The `>` closing the `<` at `k`, on the same level.
fn matching_angle(tokens: &[TokenTree], k: usize) -> Option<usize> {
    tokens.iter().enumerate().skip(k + 1).find_map(|(j, t)| match t {
        TokenTree::Punct(p) if p.as_char() == '>' => Some(j),
        _ => None,
    })
}
