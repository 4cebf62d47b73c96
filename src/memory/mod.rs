//! One shape's memory facts, below `hlo`, `oom` and `draw`: the layout that pads least
//! ([`best`]), ratios that stay numbers ([`ratio`]) and byte counts for people ([`units`]).
//! Their public paths are `xlayout::hlo::best_layout`, `xlayout::hlo::Ratio`,
//! `xlayout::hlo::units`, ... (re-exported there).

pub(crate) mod best;
pub(crate) mod ratio;
pub mod units;
