//! The peak memory of a scheduled module, by XLA's own rules.
//!
//! XLA's buffer assigner measures liveness with `HloLiveRange` over the values of
//! `HloDataflowAnalysis`; [`Peak::new`] follows the same steps on module text:
//!
//! 1. [`schedule`]: the flattened instruction sequence (a `while`'s condition and body,
//!    a `call`'s computation and a `conditional`'s branches just before the instruction),
//!    numbered as `HloLiveRange::FlattenSchedule` numbers it;
//! 2. [`dataflow`]: the values (what defines each position; `get-tuple-element`, `tuple`,
//!    `bitcast`, `call` and called computations' parameters define none; `while` and
//!    `conditional` merge, as phi values where several values meet);
//! 3. [`liveness`]: each value's live range (entry parameters from the start, a root's
//!    values to its computation's end, every value to its last use; a `while`'s init value
//!    to the start of its body), then the values of one buffer ([`aliasing`]: while loops,
//!    conditionals, in-place updates, `input_output_alias`) chained as
//!    `NormalizeAliasedBuffers` does;
//! 4. [`sweep`]: XLA's peak step (`ComputePeakMemoryMoment`: values sized by their
//!    defining instruction's whole shape, starts counted before the previous step's ends)
//!    and what XLA prints there (the values with `start <= step <= end`, sized by their own
//!    shape), and the true high-water mark of the live totals, with padding and without.
//!
//! Where a module needs a rule this model does not have, [`Peak::not_modelled`] says which
//! and for which instructions, and [`Peak::bounds`] bounds the high-water mark.
//!
//! ```
//! use xlayout::hlo::{Analysis, Module, Peak};
//! let text = "HloModule m, is_scheduled=true
//!
//! ENTRY %main (p: f32[1024]) -> f32[1024] {
//!   %p = f32[1024]{0} parameter(0)
//!   %a = f32[1024]{0} exponential(%p)
//!   %b = f32[1024]{0} negate(%a)
//!   ROOT %c = f32[1024]{0} add(%b, %p)
//! }
//! ";
//! let m = Module::parse(text);
//! let a = Analysis::new(&m);
//! let peak = Peak::new(&a);
//! // XLA's search still counts `a` (last used at step 2) at step 3, so its peak is the
//! // ROOT, step 3, where it prints the values live there: p, b and c.
//! assert_eq!((peak.xla.step, peak.xla.bytes, peak.xla.search_bytes), (3, 3 * 4096, 4 * 4096));
//! assert_eq!(m.instructions[peak.xla.instruction.unwrap()].name, "c");
//! // The first step with the largest live total is 2 (p, a and b).
//! assert_eq!((peak.high_water.bytes.step, peak.high_water.bytes.total), (2, 3 * 4096));
//! assert!(peak.not_modelled.is_empty());
//! ```

pub(crate) mod aliasing;
mod bounds;
mod build;
pub(crate) mod dataflow;
pub(crate) mod liveness;
mod model;
pub(crate) mod notes;
pub(crate) mod order;
mod phi;
mod report;
pub(crate) mod schedule;
mod sweep;
mod timeline;
pub(crate) mod tree;

pub use liveness::LiveRange;
pub use model::{Bounds, HighWater, Mark, Peak, PeakOptions, PeakValue, XlaPeak};
pub use notes::{Bound, NotModelled, NotModelledRow, Rule};
pub use report::{HighWaterRows, MarkRow, PeakRow, PeakSummary};
pub use timeline::{PeakSplit, StepLive};
pub use tree::NodeSizes;
