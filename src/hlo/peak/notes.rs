//! What a model does not follow, and the range a figure then lies in: the peak's and the
//! allocation's rules not modelled.

use serde::Serialize;

use super::super::id::InstrId;
use super::super::module::Module;

/// A rule of XLA's that this model does not follow, and so bounds instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The module is not marked `is_scheduled=true`: its text order is taken as the
    /// schedule, which XLA's scheduler would have chosen differently.
    NotScheduled,
    /// No `ENTRY` computation: nothing to flatten.
    NoEntry,
    /// Asynchronous operations (`async-start`, in-place `collective-permute-start`): XLA
    /// extends live ranges into their asynchronous context.
    Asynchronous,
    /// A computation run by several instructions (XLA flattens the call graph first).
    CalledSeveralTimes,
    /// An operand, tuple index or shape that does not match (a malformed or truncated
    /// module): the value there is not followed.
    Unfollowed,
    /// A value with no size (an unread shape, an unbounded `?` dimension).
    Unsized,
    /// XLA's phi simplification did not finish within its budget (a hostile module):
    /// phis left are counted as values of their own.
    PhiBudget,
    /// Layouts with tiles or a memory space: the buffer assignment predicted is XLA:CPU's,
    /// and this module is another backend's (TPU, GPU), which assigns differently.
    NotCpu,
    /// The buffer assigner's search did not finish within its budget (a hostile module).
    AssignmentBudget,
}

impl Rule {
    /// What the rule is, in words.
    ///
    /// ```
    /// assert!(xlayout::hlo::Rule::Asynchronous.describe().contains("async"));
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            Rule::NotScheduled => "module not marked is_scheduled=true: its text order is taken as the schedule",
            Rule::NoEntry => "no ENTRY computation: there is no schedule to flatten",
            Rule::Asynchronous => "asynchronous operations (async-start/update/done, in-place collective-permute-start): their asynchronous live ranges are not modelled",
            Rule::CalledSeveralTimes => "a computation run by several instructions: XLA flattens the call graph first",
            Rule::Unfollowed => "an operand, tuple index or shape that does not match: the value is not followed",
            Rule::Unsized => "a value with no size (unread shape or unbounded dimension)",
            Rule::PhiBudget => "the phi simplification of XLA's dataflow stopped at its budget",
            Rule::NotCpu => "layouts with tiles or a memory space: the allocation predicted is XLA:CPU's, and another backend assigns differently",
            Rule::AssignmentBudget => "the search of XLA's buffer assigner stopped at its budget",
        }
    }
}

/// Where a rule is not modelled: the rule, how many instructions need it, and the first
/// few of them.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak, Rule};
/// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
/// let n = &Peak::new(&Analysis::new(&m)).not_modelled[0];
/// assert_eq!((n.rule, n.count, n.instructions.len()), (Rule::NotScheduled, 1, 0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotModelled {
    /// The rule.
    pub rule: Rule,
    /// How many instructions need it.
    pub count: usize,
    /// The first [`NotModelled::EXAMPLES`] of them.
    pub instructions: Vec<InstrId>,
}

impl NotModelled {
    /// How many instructions are kept as examples.
    pub const EXAMPLES: usize = 5;

    /// Counts instruction `i` (or, with `None`, the whole module) under `rule`.
    pub(crate) fn add(notes: &mut Vec<NotModelled>, rule: Rule, i: Option<InstrId>) {
        let n = match notes.iter_mut().find(|n| n.rule == rule) {
            Some(n) => n,
            None => {
                notes.push(NotModelled { rule, count: 0, instructions: Vec::new() });
                notes.last_mut().expect("just pushed")
            }
        };
        n.count += 1;
        if let Some(i) = i.filter(|_| n.instructions.len() < Self::EXAMPLES) {
            n.instructions.push(i);
        }
    }
}

/// The range a high-water mark lies in when a rule is not modelled. With the module's
/// schedule, `lower` counts what the model follows (no size as 0) and `upper` also keeps
/// every uncertain value live from its start to the end; without one (not
/// `is_scheduled=true`), they hold for any order: every value at once, and what is live
/// together at one instruction's step in every order. `upper` is `None` (unbounded) when a
/// value has no size.
///
/// ```
/// use xlayout::hlo::{Analysis, Bound, Module, Peak};
/// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
/// let b = Peak::new(&Analysis::new(&m)).bounds.unwrap();
/// assert_eq!(b.bytes, Bound { lower: 8, upper: Some(8) });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bound {
    /// At least this.
    pub lower: u64,
    /// At most this.
    pub upper: Option<u64>,
}

/// A rule not modelled, named.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak, Rule};
/// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
/// let s = Peak::new(&Analysis::new(&m)).summary(&m, &Default::default());
/// assert_eq!((s.not_modelled[0].rule, s.not_modelled[0].count), (Rule::NotScheduled, 1));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotModelledRow<'a> {
    /// The rule.
    pub rule: Rule,
    /// In words.
    pub description: &'static str,
    /// How many instructions need it.
    pub count: usize,
    /// The first few of them.
    pub instructions: Vec<&'a str>,
}

impl NotModelled {
    /// This rule with its instructions named.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak, Rule};
    /// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
    /// let r = Peak::new(&Analysis::new(&m)).not_modelled[0].row(&m);
    /// assert_eq!((r.rule, r.count, r.instructions.len()), (Rule::NotScheduled, 1, 0));
    /// ```
    pub fn row<'a>(&self, m: &'a Module<'_>) -> NotModelledRow<'a> {
        NotModelledRow {
            rule: self.rule,
            description: self.rule.describe(),
            count: self.count,
            instructions: self.instructions.iter().map(|&i| m.instructions[i].name).collect(),
        }
    }
}
