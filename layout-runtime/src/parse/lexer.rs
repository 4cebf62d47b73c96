//! The lexer: XLA's shape tokens, with comments and whitespace skipped between them.

use alloc::string::String;
use core::ops::Range;

use crate::{limits, Error, ErrorKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Ident,
    Int,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Colon,
    Star,
    Hash,
    Leq,
    Question,
    Plus,
    Tilde,
    /// A character no token starts with; an error only where the parser needs something else
    /// (so text after a shape can hold anything).
    Unknown,
    End,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub kind: Tok,
    pub span: Range<usize>,
}

impl Token {
    pub(super) fn describe(&self, text: &str) -> String {
        match self.kind {
            Tok::End => String::from("end of text"),
            _ => quoted(&text[self.span.clone()]),
        }
    }
}

/// A token quoted in a message: at most [`limits::QUOTED_TOKEN`] characters of it.
pub(super) fn quoted(token: &str) -> String {
    limits::quote(token, limits::QUOTED_TOKEN)
}

pub(super) struct Lexer<'a> {
    pub text: &'a str,
    pub pos: usize,
    peeked: Option<Token>,
    /// End of the last token handed out by `next`.
    last_end: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Lexer { text, pos: 0, peeked: None, last_end: 0 }
    }

    pub(super) fn peek(&mut self) -> Result<&Token, Error> {
        if self.peeked.is_none() {
            let t = self.lex()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.as_ref().expect("just filled"))
    }

    pub(super) fn next(&mut self) -> Result<Token, Error> {
        let tok = match self.peeked.take() {
            Some(t) => t,
            None => self.lex()?,
        };
        self.last_end = tok.span.end;
        Ok(tok)
    }

    /// The token after the peeked one, without consuming anything.
    pub(super) fn peek_second(&mut self) -> Result<Tok, Error> {
        self.peek()?;
        let saved = self.pos;
        let second = self.lex();
        self.pos = saved;
        second.map(|t| t.kind)
    }

    fn skip_trivia(&mut self) -> Result<(), Error> {
        let bytes = self.text.as_bytes();
        loop {
            while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            let rest = &bytes[self.pos..];
            if rest.starts_with(b"/*") {
                match self.text[self.pos + 2..].find("*/") {
                    Some(end) => self.pos += 2 + end + 2,
                    None => {
                        return Err(Error::new(ErrorKind::Syntax, "unterminated `/*` comment")
                            .with_span(self.pos..self.pos + 2))
                    }
                }
            } else if rest.starts_with(b"//") {
                self.pos = self.text[self.pos..].find('\n').map_or(bytes.len(), |n| self.pos + n);
            } else {
                return Ok(());
            }
        }
    }

    fn lex(&mut self) -> Result<Token, Error> {
        self.skip_trivia()?;
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let Some(&c) = bytes.get(start) else {
            return Ok(Token { kind: Tok::End, span: start..start });
        };
        let single = |kind| (kind, 1);
        let (kind, len) = match c {
            b'[' => single(Tok::LBracket),
            b']' => single(Tok::RBracket),
            b'{' => single(Tok::LBrace),
            b'}' => single(Tok::RBrace),
            b'(' => single(Tok::LParen),
            b')' => single(Tok::RParen),
            b',' => single(Tok::Comma),
            b':' => single(Tok::Colon),
            b'*' => single(Tok::Star),
            b'#' => single(Tok::Hash),
            b'?' => single(Tok::Question),
            b'+' => single(Tok::Plus),
            b'~' => single(Tok::Tilde),
            b'<' if bytes.get(start + 1) == Some(&b'=') => (Tok::Leq, 2),
            b'-' | b'0'..=b'9' => {
                let digits = bytes[start + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
                if c == b'-' && digits == 0 {
                    (Tok::Unknown, 1)
                } else {
                    (Tok::Int, 1 + digits)
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let n = bytes[start..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                (Tok::Ident, n)
            }
            _ => {
                let ch = self.text[start..].chars().next().expect("not at end");
                (Tok::Unknown, ch.len_utf8())
            }
        };
        self.pos = start + len;
        Ok(Token { kind, span: start..self.pos })
    }
}

impl Lexer<'_> {
    /// The end of the last consumed token (a peeked one does not count).
    pub(super) fn pos_before_peek(&self) -> usize {
        self.last_end
    }
}
