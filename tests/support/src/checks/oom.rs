//! (e) Out-of-memory reports: any bytes through `xlayout::oom`, as `xlayout oom` reads a
//! pasted report, joined against the same bytes read as a module.
//!
//! Properties: no panic; every problem and entry on a line of the text; the totals count
//! the entries; the report serializes to JSON; the join has one answer per entry, its notes
//! are on lines of the text, at most 100 of a kind and a count, and the dump's table of named
//! instructions serializes with each once.

use xlayout::hlo::{Module, MAX_LISTED};
use xlayout::oom::{join, join_problems, Named, OomReport};

use super::Reached;

/// The bytes (lossily decoded) as an out-of-memory report.
pub fn oom_text(data: &[u8]) -> Reached {
    let text = String::from_utf8_lossy(data);
    let r = OomReport::parse(&text);
    let lines = xlayout::hlo::lines(&text).count();
    for p in &r.problems {
        assert!((1..=lines).contains(&p.line), "{p:?} of {lines} lines");
    }
    for e in &r.entries {
        assert!((1..=lines).contains(&e.line), "entry {} on line {} of {lines}", e.number, e.line);
    }
    assert_eq!(r.totals.entries, r.entries.len());
    assert!(r.totals.recomputed <= r.entries.len() && r.totals.agreeing <= r.entries.len());
    serde_json::to_string(&r).expect("a report serializes");
    let m = Module::parse(&text);
    let joined = join(&r.entries, &m);
    assert_eq!(joined.len(), r.entries.len());
    let notes = join_problems(&r.entries, &joined);
    assert!(notes.len() <= 2 * (MAX_LISTED + 1), "{} notes", notes.len());
    for p in &notes {
        assert!((1..=lines).contains(&p.line), "{p:?} of {lines} lines");
    }
    let mut named = Named::new(&m);
    named.add(&joined);
    named.add(&joined);
    let found =
        joined.iter().flatten().map(|j| j.instruction.id).collect::<std::collections::HashSet<_>>();
    assert_eq!(named.len(), found.len());
    serde_json::to_string(&named).expect("the table serializes");
    if r.entries.is_empty() {
        Reached::Refused
    } else {
        Reached::Full
    }
}
