//! A count of the steps this thread's readers and analyses took: every loop whose trip
//! count a hostile input could make large adds its iterations (bytes walked, index entries
//! followed, phi nodes visited, comparisons made), one addition per loop or per element.
//! `tests/hostile.rs` reads it to check that the work grows linearly with the input,
//! counting steps rather than timing them, so the check is the same on any machine.

use std::cell::Cell;

thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// A key whose comparisons count as steps: the work of a map look-up or a sort is its
/// comparisons, whatever the map.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counted<T>(pub T);

impl<T: PartialEq> PartialEq for Counted<T> {
    fn eq(&self, other: &Self) -> bool {
        count(1);
        self.0 == other.0
    }
}

impl<T: Eq> Eq for Counted<T> {}

impl<T: Ord> PartialOrd for Counted<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Ord> Ord for Counted<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        count(1);
        self.0.cmp(&other.0)
    }
}

/// Adds `n` steps.
#[inline]
pub(crate) fn count(n: usize) {
    STEPS.with(|s| s.set(s.get().wrapping_add(n as u64)));
}

/// The steps counted on this thread so far (wrapping at 2⁶⁴): the difference between two
/// calls is the work done between them. For tests of scaling; not a stable interface.
///
/// ```
/// let before = xlayout::hlo::__steps();
/// let _ = xlayout::hlo::Module::parse("%a = f32[2]{0} parameter(0)\n");
/// assert!(xlayout::hlo::__steps() > before);
/// ```
#[doc(hidden)]
pub fn __steps() -> u64 {
    STEPS.with(Cell::get)
}
