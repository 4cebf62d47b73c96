//! The peak's story over time, as XProf's memory viewer tells it: the bytes live at every
//! step of the schedule (its chart of allocated memory against program order), and what is
//! live at the peak split into the program's parameters, its outputs and its temporaries.
//! Both read the live ranges [`Peak::new`] found; neither changes them.

use serde::Serialize;

use super::super::alloc::{AllocatedBuffer, Lived, StepAllocated};
use super::super::id::ValueId;
use super::super::module::Module;
use super::super::opcode::Opcode;
use super::{NodeSizes, Peak};

/// The values live at one step (`start <= step <= end`), summed by their own sizes.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let t = Peak::new(&Analysis::new(&m)).timeline();
/// assert_eq!(t.len(), 2);
/// assert_eq!((t[0].live.bytes, t[1].live.bytes, t[1].live.array_bytes, t[1].values), (40, 80, 128, 2));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StepLive {
    /// Their sizes: `bytes` (XLA's `ByteSizeOf`), `array_bytes` (with tiling padding),
    /// `logical_bytes` (the data).
    #[serde(flatten)]
    pub live: NodeSizes,
    /// How many values.
    pub values: u32,
}

/// What is live at XLA's peak step, by what it is to the program.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0} parameter(0)\n  %a = f32[10]{0} exponential(%p)\n  ROOT %n = f32[10]{0} negate(%a)\n}\n");
/// let s = Peak::new(&Analysis::new(&m)).split(&m);
/// assert_eq!((s.parameters.bytes, s.outputs.bytes, s.temporaries.bytes), (40, 40, 40));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PeakSplit {
    /// Values the entry computation's parameters define (the program's arguments).
    pub parameters: NodeSizes,
    /// Values live to the end of the program that are not parameters: what the entry
    /// computation's root holds (the program's outputs).
    pub outputs: NodeSizes,
    /// Everything else: temporaries, inside loops and branches included.
    pub temporaries: NodeSizes,
}

impl Peak {
    /// What the memory XLA:CPU allocates ([`Peak::assignment`]) holds at each step of the
    /// flattened sequence: the arguments and outputs, and the temporaries' buffers live
    /// there, each counted once. The tallest temporaries column is
    /// [`Assignment::temp_peak`](crate::hlo::Assignment::temp_peak); the largest
    /// [`StepAllocated::extent`] is the temporaries' allocation. Linear in values plus steps,
    /// but for sorting each allocation's values.
    pub fn allocation_timeline(&self) -> Vec<StepAllocated> {
        self.assignment.steps(self.sequence.len(), &|v| self.lived(v))
    }

    /// The buffers of the allocations live at `step` ([`AllocatedBuffer`]: every argument's
    /// and output's allocation, the program's for the whole call, and the runs of values at
    /// one place of the temporaries' live there), largest first, each with its values: what
    /// [`Peak::allocation_timeline`] adds up at the step.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0} parameter(0)\n  ROOT %n = f32[10]{0} negate(%p)\n}\n");
    /// let peak = Peak::new(&Analysis::new(&m));
    /// // Step 0 defines only p, yet n's allocation is the program's from the start.
    /// let at = peak.buffers_at(0);
    /// let spans: Vec<(u64, u32, u32)> = at.iter().map(|b| (b.size, b.start, b.end)).collect();
    /// assert_eq!(spans, [(40, 0, 2), (40, 0, 2)]); // to the schedule's end time, as values' are
    /// let t = &peak.allocation_timeline()[0];
    /// assert_eq!(t.parameters + t.outputs + t.temporaries, at.iter().map(|b| b.size).sum::<u64>());
    /// ```
    pub fn buffers_at(&self, step: u32) -> Vec<AllocatedBuffer> {
        let mut at: Vec<AllocatedBuffer> = self
            .assignment
            .buffers(self.sequence.len(), &|v| self.lived(v))
            .into_iter()
            .filter(|b| b.start <= step && step <= b.end)
            .collect();
        at.sort_by_key(|b| (std::cmp::Reverse(b.size), b.allocation, b.offset));
        at
    }

    /// Value `v`'s steps and sizes.
    fn lived(&self, v: ValueId) -> Option<Lived> {
        self.values.get(v).map(|p| (p.range.start, p.range.end, p.sizes))
    }

    /// The bytes live at each step of the flattened sequence (one entry per step), by the
    /// values' own sizes, as [`Peak::high_water`] sums them. Linear in values plus steps.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0} parameter(0)\n  ROOT %n = f32[10]{0} negate(%p)\n}\n");
    /// let peak = Peak::new(&Analysis::new(&m));
    /// let t = peak.timeline();
    /// assert_eq!(t[peak.xla.step as usize].live.bytes, peak.xla.bytes); // XLA's list at its step
    /// ```
    pub fn timeline(&self) -> Vec<StepLive> {
        let steps = self.sequence.len();
        // Difference arrays: a value adds at its start and stops adding after its end.
        let mut delta = vec![[0i128; 4]; steps + 2];
        for v in &self.values {
            let s = v.sizes.unwrap_or_default();
            let add = [s.bytes, s.array_bytes, s.logical_bytes, 1].map(i128::from);
            let (start, end) = (v.range.start as usize, (v.range.end as usize).min(steps));
            if start > end {
                continue;
            }
            for k in 0..4 {
                delta[start][k] += add[k];
                delta[end + 1][k] -= add[k];
            }
        }
        let clamp = |x: i128| u64::try_from(x.max(0)).unwrap_or(u64::MAX);
        let mut sum = [0i128; 4];
        delta[..steps]
            .iter()
            .map(|d| {
                for k in 0..4 {
                    sum[k] += d[k];
                }
                StepLive {
                    live: NodeSizes {
                        bytes: clamp(sum[0]),
                        array_bytes: clamp(sum[1]),
                        logical_bytes: clamp(sum[2]),
                    },
                    values: u32::try_from(clamp(sum[3])).unwrap_or(u32::MAX),
                }
            })
            .collect()
    }

    /// What is live at XLA's peak step ([`XlaPeak::live`](super::XlaPeak::live)) split into
    /// parameters, outputs and temporaries; the three add up to the peak's figures.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0} parameter(0)\n  ROOT %n = f32[10]{0} negate(%p)\n}\n");
    /// let peak = Peak::new(&Analysis::new(&m));
    /// let s = peak.split(&m);
    /// assert_eq!((s.parameters.bytes, s.outputs.bytes, s.temporaries.bytes), (40, 40, 0));
    /// ```
    pub fn split(&self, m: &Module<'_>) -> PeakSplit {
        let end = self.sequence.len() as u32;
        let mut split = PeakSplit::default();
        for &v in &self.xla.live {
            let value = &self.values[v];
            let ins = &m.instructions[value.instruction];
            let sizes = value.sizes.unwrap_or_default();
            let part = if ins.opcode == Opcode::Parameter && ins.computation == m.entry {
                &mut split.parameters
            } else if value.range.end >= end {
                &mut split.outputs
            } else {
                &mut split.temporaries
            };
            *part = part.plus(sizes);
        }
        split
    }
}
