//! (e) Out-of-memory reports: any bytes through `xlayout::oom`, as `xlayout oom` reads a
//! pasted report, joined against the same bytes read as a module.
//!
//! Properties: no panic; every problem and entry on a line of the text; the totals count
//! the entries; the report serializes to JSON; the join has one answer per entry.

use xlayout::hlo::Module;
use xlayout::oom::{join, OomReport};

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
    if r.entries.is_empty() {
        Reached::Refused
    } else {
        Reached::Full
    }
}
