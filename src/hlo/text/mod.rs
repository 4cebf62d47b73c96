//! Reading HLO text, the pieces [`read`](super::read) assembles into a
//! [`Module`](super::Module): bytes to text ([`decode`]), lines and statements ([`lines`],
//! [`lex`], [`ends`], [`walk`]), one instruction's parts ([`instruction`], [`attribute`],
//! [`metadata`]), MLIR met instead of HLO ([`mlir`]), the module files of a dump folder
//! ([`dump`]), and what could not be read, at its line ([`diagnostic`]).

pub(super) mod attribute;
pub(super) mod decode;
pub(super) mod diagnostic;
pub(super) mod dump;
mod ends;
pub(crate) mod instruction;
pub(super) mod lex;
pub(super) mod lines;
pub(super) mod metadata;
pub(super) mod mlir;
pub(super) mod walk;
