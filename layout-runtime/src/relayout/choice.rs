//! What a plan runs with and why ([`RelayoutChoice`]): the answer to "what did it pick" for
//! benchmark tables and bug reports.

use core::fmt;

use super::cpu::{Level, Simd};
use super::ctx::Ctx;

/// The settings a [`RelayoutPlan`](crate::RelayoutPlan) runs its kernels with, and how they
/// were chosen: [`RelayoutPlan::choice`](crate::RelayoutPlan::choice) says it for the plan's
/// destination size. Every choice produces the same bytes; they differ only in speed.
///
/// `Display` writes one line, for a benchmark table or a bug report.
///
/// ```
/// use layout_runtime::{ArrayShape, RelayoutPlan, Simd};
/// let a = |t: &str| t.parse::<ArrayShape>().unwrap();
/// let plan = RelayoutPlan::new(&a("f32[64,64]{1,0}"), &a("f32[64,64]{0,1}"))?;
/// let choice = plan.clone().with_simd(Simd::Portable).choice();
/// assert_eq!(choice.simd(), Simd::Portable);
/// assert!(!choice.streams()); // 16 KiB: written through the cache
/// assert!(choice.to_string().starts_with("portable, cached stores"), "{choice}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayoutChoice {
    pub(super) simd: Simd,
    pub(super) stream: bool,
    pub(super) rows: usize,
    pub(super) groups: usize,
    pub(super) reorder: bool,
    pub(super) how: ChosenBy,
    pub(super) forced: Forced,
}

/// Which settings the caller fixed (`with_simd`, `with_stream_min` or their environment
/// variables): those are never measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Forced {
    pub simd: bool,
    pub stream: bool,
}

/// How a [`RelayoutChoice`] was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChosenBy {
    /// From rules alone: the destination is too small for measuring to pay, measuring is
    /// off or unavailable (without the `std` feature there is no clock), or no plan of this
    /// shape has run yet on this process (the first run measures).
    Rules,
    /// Timed on this machine by the first run of a plan of this shape and destination size
    /// in this process: `candidates` settings, each on slices of the real work
    /// (`measured_bytes` of destination in all), in `micros` microseconds of the thread's
    /// CPU time (wall-clock time where the system has no such clock), the time of those
    /// slices (work the run had to do anyway) included.
    Measured {
        /// Settings timed.
        candidates: usize,
        /// Destination bytes written while timing them.
        measured_bytes: usize,
        /// Time of the timed slices, in microseconds.
        micros: u64,
        /// How far ahead of the next fastest candidate the winner's best slice was, in
        /// thousandths of its time (0 when it was timed alone).
        lead_permille: u32,
        /// The winner's own spread: its median slice over its best, less one, in
        /// thousandths. A lead below it is within the noise: another measuring run may
        /// choose the other candidate, which is then about as fast.
        noise_permille: u32,
        /// The winner's speed as a fraction of a streaming copy of as many bytes timed
        /// beside it, in thousandths (0 where there was no such copy).
        copy_permille: u32,
        /// Whether a later run measured again, because this winner ran slower than the
        /// copy by more than its noise; the better of the two choices (by the fraction of
        /// the copy) is this one.
        rechecked: bool,
    },
}

impl RelayoutChoice {
    pub(super) fn new(ctx: Ctx, how: ChosenBy, forced: Forced) -> RelayoutChoice {
        let (simd, stream, reorder) = (ctx.level.simd(), ctx.stream, ctx.reorder);
        RelayoutChoice { simd, stream, rows: ctx.rows, groups: ctx.groups, reorder, how, forced }
    }

    /// The settings to run with (a level this machine does not run: portable).
    pub(super) fn ctx(&self) -> Ctx {
        let level = Level::new(self.simd).unwrap_or(Level::Portable);
        let stream = self.stream && level.streams();
        Ctx { level, stream, rows: self.rows, groups: self.groups, reorder: self.reorder }
    }

    /// The SIMD level of the kernels.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    /// Whether the destination is written with non-temporal (streaming) stores.
    pub fn streams(&self) -> bool {
        self.stream
    }

    /// Source rows a large transpose takes at a time (the AVX-512 transpose walks four
    /// times as many down each strip of 32 columns before the next).
    pub fn transpose_rows(&self) -> usize {
        self.rows
    }

    /// Row groups of a tile a regrouping kernel (`(2,1)`, `(4,1)`, `(8,1)` sub-tiles) writes
    /// in one piece.
    pub fn row_groups(&self) -> usize {
        self.groups
    }

    /// Whether the loops run in the other of their two orders (destination order where the
    /// rules' count of memory streams chose source order, or the reverse).
    pub fn reorders(&self) -> bool {
        self.reorder
    }

    /// How the settings were chosen.
    pub fn how(&self) -> ChosenBy {
        self.how
    }
}

impl fmt::Display for RelayoutChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stores = if self.stream { "streaming stores" } else { "cached stores" };
        let (simd, rows, groups) = (self.simd.name(), self.rows, self.groups);
        write!(f, "{simd}, {stores}, {rows} transpose rows, {groups} row groups")?;
        if self.reorder {
            write!(f, ", loops reordered")?;
        }
        match self.how {
            ChosenBy::Rules => write!(f, ": rules")?,
            ChosenBy::Measured {
                candidates,
                measured_bytes,
                micros,
                lead_permille,
                noise_permille,
                copy_permille,
                rechecked,
            } => {
                write!(
                    f,
                    ": measured, {candidates} candidates on {:.1} MiB in {:.2} ms, ahead by \
                     {:.1}% (noise {:.1}%)",
                    measured_bytes as f64 / (1 << 20) as f64,
                    micros as f64 / 1000.0,
                    f64::from(lead_permille) / 10.0,
                    f64::from(noise_permille) / 10.0,
                )?;
                if copy_permille > 0 {
                    write!(f, ", {:.2} of a copy", f64::from(copy_permille) / 1000.0)?;
                }
                if rechecked {
                    write!(f, ", re-checked")?;
                }
            }
        }
        match (self.forced.simd, self.forced.stream) {
            (true, true) => write!(f, " (SIMD level and stores forced)"),
            (true, false) => write!(f, " (SIMD level forced)"),
            (false, true) => write!(f, " (stores forced)"),
            (false, false) => Ok(()),
        }
    }
}
