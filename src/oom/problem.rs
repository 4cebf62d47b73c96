//! What a report's reader (and its join to a dump) could not read or found wrong, with its
//! line: a [`Problem`] each, at most [`MAX_LISTED`] of a kind listed and the rest counted
//! (the rule of every reader of this crate, [`Listing`]).

use std::fmt;

use serde::Serialize;

use crate::hlo::{located, Listing, MAX_LISTED};

/// A line that could not be read; or, after the first
/// [`MAX_LISTED`](crate::hlo::MAX_LISTED) problems of one kind, one that counts the rest of
/// that kind.
///
/// ```
/// let r = xlayout::oom::OomReport::parse("1. Size: lots\n");
/// assert_eq!((r.problems[0].line, r.problems[0].entry, r.problems[0].more), (1, Some(1), 0));
/// assert_eq!(r.problems[0].to_string(), format!("1: {}", r.problems[0].message));
/// // A million unreadable lines in an entry cost a counter, not a message each.
/// let text = format!("1. Size: 4B\n   Shape: f32[]\n{}", "??\n".repeat(1_000_000));
/// let r = xlayout::oom::OomReport::parse(&text);
/// assert_eq!(r.problems.len(), 101);
/// let last = &r.problems[100];
/// assert_eq!((last.line, last.entry, last.more), (103, None, 999_900));
/// assert_eq!(last.message, "999900 more unreadable lines from this line on are not listed (the first 100 of each kind are)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The line, from 1.
    pub line: usize,
    /// The entry it is in, if any.
    pub entry: Option<u64>,
    /// What is wrong.
    pub message: String,
    /// 0 for a problem; for the one that follows the first
    /// [`MAX_LISTED`](crate::hlo::MAX_LISTED) of a kind, how many more problems of that
    /// kind there are, from its line on, not listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

/// `line: message`, as a module's [`Diagnostic`](crate::hlo::Diagnostic) is written, for
/// `file:` to be put in front.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        located(f, self.line, None, &self.message)
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The kinds of problem listed at most [`MAX_LISTED`] of: the reader's, then the join's.
#[derive(Clone, Copy)]
pub(super) enum ProblemKind {
    /// A line in an entry that is no field of it.
    UnreadableLine,
    /// An entry whose size is missing or is no size: left out.
    NoSize,
    /// An entry whose shape could not be read.
    ShapeNotRead,
    /// An entry whose instruction has another shape in the dump.
    OtherShape,
    /// An entry whose label names no instruction of the dump.
    NotInDump,
}

impl ProblemKind {
    const ALL: [ProblemKind; 5] = [
        ProblemKind::UnreadableLine,
        ProblemKind::NoSize,
        ProblemKind::ShapeNotRead,
        ProblemKind::OtherShape,
        ProblemKind::NotInDump,
    ];

    /// Problems of this kind, in words (plural).
    fn plural(self) -> &'static str {
        match self {
            ProblemKind::UnreadableLine => "unreadable lines",
            ProblemKind::NoSize => "entries without a readable size",
            ProblemKind::ShapeNotRead => "entries whose shape was not read",
            ProblemKind::OtherShape => "entries whose instruction has another shape in the dump",
            ProblemKind::NotInDump => "entries whose instruction is not in the dump",
        }
    }
}

/// Problems as they are met: the first [`MAX_LISTED`](crate::hlo::MAX_LISTED) of each kind
/// listed, the rest counted.
#[derive(Default)]
pub(super) struct Problems {
    list: Vec<Problem>,
    listing: Listing<5>,
}

impl Problems {
    /// Adds a problem of `kind` on `line`; `message` is called only when it is listed.
    pub fn add(
        &mut self,
        kind: ProblemKind,
        line: usize,
        entry: Option<u64>,
        message: impl FnOnce() -> String,
    ) {
        if self.listing.admit(kind as usize, line) {
            self.list.push(Problem { line, entry, message: message(), more: 0 });
        }
    }

    /// The listed problems and one per kind that counts the rest, in line order.
    pub fn into_vec(mut self) -> Vec<Problem> {
        for (k, more, line) in self.listing.unlisted() {
            let message = format!(
                "{more} more {} from this line on are not listed (the first {MAX_LISTED} of each kind are)",
                ProblemKind::ALL[k].plural()
            );
            self.list.push(Problem { line, entry: None, message, more });
        }
        // An entry's shape is read when the entry closes, after its later lines.
        self.list.sort_by_key(|p| p.line);
        self.list
    }
}
