//! Plans that measure, after FFTW's planner (`FFTW_MEASURE` times candidate algorithms once
//! and remembers the winner). Rules tuned on one machine do not carry over to another (a
//! virtual machine reports the whole socket's last-level cache; the best SIMD level and
//! block sizes differ by CPU and by case), so for a destination large enough that it pays,
//! the first run of a plan shape in a process times the settings that matter for it, on
//! slices of its own work, keeps the fastest, and remembers it for the process.
//!
//! - The candidates ([`Candidates`]) are the settings the plan's kernels read: the SIMD
//!   level (SSE2, AVX2 and AVX-512 where the CPU has them, for plans with transposes; for
//!   runs, which every level below AVX-512 streams 16 bytes a store, AVX-512's 64 bytes
//!   against SSE2's 16), streaming or cached stores, the order of a block's outer loops
//!   where it has two (destination order keeps the writes in few long runs, source order
//!   the reads; `decompose` picks one by a count of streams), the source rows a large
//!   transpose takes at a time (the rule's value, half and twice it), and the row groups a
//!   regrouping kernel writes in one piece (1, 2 or 4). A setting the caller fixed
//!   (`with_simd`, `with_stream_min`, `XLAYOUT_SIMD`, `XLAYOUT_STREAM_MIN`) has one value.
//! - The largest copy block is cut along its destination, on cache lines (`split`), into
//!   slices of 1 MiB where it holds twice as many as are timed (else more and smaller),
//!   and the slices are timed one candidate each (`trial`): first every SIMD level with
//!   both kinds of stores and both loop orders, then the winner against its block-size
//!   variants, three rounds each in rotated order (after the first round only the
//!   candidates within a quarter of the best time run again); each candidate keeps its
//!   best time, so one disturbed slice does not decide. The winner is the first candidate
//!   (the rules' settings first) within the fastest one's own spread, or 3%, of it: what
//!   the clock cannot tell apart does not make two runs choose differently. It does the
//!   rest of the run. The slices are the run's own work, so measuring costs only the
//!   difference between the candidates on the slices they ran (a loser by more than a
//!   quarter runs one slice). On a 2-core AMD EPYC (Zen 3) guest the measuring run of the
//!   eight benchmark cases took 0.89-1.24 of the time of a later run under load (median
//!   1.05), and 0.91-1.85 in two runs on the quiet machine; on a loaded Zen 4 guest, with
//!   the copy below and AVX-512's candidates, 1.03-1.46 (docs/benchmarks-history.md).
//! - A streaming copy is timed beside the candidates, on the next slices (from source
//!   bytes not read yet into destination bytes not written yet, which the rest of the run
//!   writes): a winner slower than the copy by more than its own spread is measured again
//!   by the next serial run of the shape, and the better of the two choices, by the
//!   fraction of its copy each reached, is kept ([`crate::ChosenBy`] says all of it).
//! - Slices are timed on the thread's CPU clock where there is one (Linux and other Unix
//!   systems): time descheduled, which a busy machine adds to a random slice, does not
//!   count. Each timed slice ends with its destination lines written back to memory
//!   (`clflush`).
//!   Without it cached stores look fast on a slice: their lines wait dirty in the cache
//!   and are written back later, during some other candidate's slice.
//! - The winner is remembered per process ([`recall`], [`remember`]) by the plan's shape:
//!   the element width and the largest block's loops, the destination's size class (its
//!   power of two) and where it starts in a cache line, and the candidates; later runs of
//!   plans of that shape take it without measuring.
//!
//! Without the `std` feature there is no clock: the rules decide.

use alloc::vec::Vec;

use super::choice::{ChosenBy, Forced};
use super::cpu::{env_simd, env_stream_min, Caches, Level, Simd};
use super::ctx::{Ctx, Reads};
use super::decompose::{Block, Mode};
use super::geometry::GROUPS;

/// What a plan chooses its settings from: the rules' values, what the caller fixed, and
/// from which destination size it measures.
#[derive(Clone, Debug)]
pub(super) struct Settings {
    /// The SIMD level: the best this machine runs, or the one asked for.
    pub level: Level,
    /// Destinations this large or larger are written with non-temporal stores by the rules.
    pub stream_min: usize,
    /// Source rows a large transpose takes at a time by the rules.
    pub rows: usize,
    pub forced: Forced,
    /// Destinations this large or larger are measured for (`usize::MAX`: never).
    pub measure_min: usize,
}

impl Settings {
    /// The rules of this machine, with what the environment fixes (`XLAYOUT_SIMD`,
    /// `XLAYOUT_STREAM_MIN`).
    pub fn new() -> Settings {
        let caches = Caches::get();
        let mut settings = Settings::rules_only(caches);
        settings.measuring(true);
        settings
    }

    fn rules_only(caches: Caches) -> Settings {
        // `for_plans` never names a level the machine does not run.
        let level = Level::new(Simd::for_plans()).unwrap_or(Level::Portable);
        let forced = Forced { simd: env_simd().is_some(), stream: env_stream_min().is_some() };
        Settings {
            level,
            stream_min: env_stream_min().unwrap_or(caches.large()),
            rows: caches.transpose_rows(),
            forced,
            measure_min: usize::MAX,
        }
    }

    /// The settings the rules give a destination of `dst_len` bytes.
    pub fn rules(&self, dst_len: usize) -> Ctx {
        let stream = self.level.streams() && dst_len >= self.stream_min;
        Ctx { level: self.level, stream, rows: self.rows, groups: GROUPS, reorder: false }
    }

    /// Measuring on (from the rules' size, with a clock) or off.
    pub fn measuring(&mut self, on: bool) {
        let large = Caches::get().large();
        self.measure_min = if on && cfg!(feature = "std") { large } else { usize::MAX };
    }

    /// Whether a run into `dst_len` bytes measures (or takes what a run measured).
    pub fn measures(&self, dst_len: usize) -> bool {
        dst_len >= self.measure_min
    }

    /// What a plan whose kernels read `reads` may run with, into `dst_len` bytes: the
    /// rules' settings first in each list.
    pub fn candidates(&self, dst_len: usize, reads: Reads) -> Candidates {
        let rules = self.rules(dst_len);
        let mut levels = Vec::from([rules.level]);
        if reads.level && !self.forced.simd {
            let others = Simd::supported().filter(|&s| s >= Simd::Sse2 && s != rules.level.simd());
            levels.extend(others.filter_map(Level::new));
        } else if reads.widths && !self.forced.simd && rules.level.simd() == Simd::Avx512 {
            // Runs stream 64 bytes a store at this level, 16 at SSE2's (and AVX2's): on a
            // Zen 4 either was the faster, by the loop order (docs/benchmarks-history.md).
            levels.extend(Level::new(Simd::Sse2));
        }
        let mut streams = Vec::from([rules.stream]);
        if rules.level.streams() && !self.forced.stream {
            streams.push(!rules.stream);
        }
        let mut rows = Vec::from([rules.rows]);
        if reads.rows {
            rows.extend(
                [(rules.rows / 2).max(16), rules.rows * 2].into_iter().filter(|&r| r != rules.rows),
            );
        }
        let mut groups = Vec::from([rules.groups]);
        if reads.groups {
            groups.extend([1, 4].into_iter().filter(|&g| g != rules.groups));
        }
        let orders = if reads.order { Vec::from([false, true]) } else { Vec::from([false]) };
        Candidates { levels, streams, rows, groups, orders }
    }
}

/// The values each setting may take for one plan; each list starts with the one the rules
/// give, and has one value where the caller fixed the setting or it does not matter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Candidates {
    pub levels: Vec<Level>,
    pub streams: Vec<bool>,
    pub rows: Vec<usize>,
    pub groups: Vec<usize>,
    /// Whether to run the blocks' outer loops in their other order.
    pub orders: Vec<bool>,
}

impl Candidates {
    /// The settings the rules give.
    #[cfg(feature = "std")]
    pub fn rules(&self) -> Ctx {
        let (level, stream, reorder) = (self.levels[0], self.streams[0], self.orders[0]);
        Ctx { level, stream, rows: self.rows[0], groups: self.groups[0], reorder }
    }

    /// Every combination: what a plan may run with (the tests run them all).
    pub fn all(&self) -> Vec<Ctx> {
        let mut out = Vec::new();
        for &level in &self.levels {
            for &stream in &self.streams {
                for &reorder in &self.orders {
                    for &rows in &self.rows {
                        for &groups in &self.groups {
                            out.push(Ctx { level, stream, rows, groups, reorder });
                        }
                    }
                }
            }
        }
        out
    }

    /// Whether there is anything to choose.
    pub fn several(&self) -> bool {
        let n = self.levels.len() * self.streams.len() * self.orders.len();
        n * self.rows.len() * self.groups.len() > 1
    }

    /// The first stage of a measurement: every level with every kind of store and both
    /// loop orders, block sizes from the rules.
    #[cfg(feature = "std")]
    pub fn first(&self) -> Vec<Ctx> {
        let rules = self.rules();
        let mut out = Vec::new();
        for &level in &self.levels {
            for &stream in &self.streams {
                for &reorder in &self.orders {
                    out.push(Ctx { level, stream, reorder, ..rules });
                }
            }
        }
        out
    }

    /// The second stage: the first stage's winner, then it with each other block size.
    #[cfg(feature = "std")]
    pub fn second(&self, winner: Ctx) -> Vec<Ctx> {
        let mut out = Vec::from([winner]);
        out.extend(self.rows[1..].iter().map(|&rows| Ctx { rows, ..winner }));
        out.extend(self.groups[1..].iter().map(|&groups| Ctx { groups, ..winner }));
        out
    }
}

/// What a remembered choice is remembered by (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Key {
    /// Bytes per element, or bits for packed sub-byte elements (`packed`).
    pub width: usize,
    pub packed: bool,
    /// The largest copy block's loops, without its offsets.
    pub inner: super::decompose::Inner,
    pub outer: Vec<Mode>,
    /// `⌊log₂⌋` of the destination's length.
    pub size_class: u32,
    /// Where the destination starts in a cache line: streaming stores write whole lines
    /// only, so where the lines fall decides what is fastest.
    pub offset: usize,
    pub candidates: Candidates,
}

impl Key {
    /// The key of block `b` of elements `width` wide, into a destination of `dst_len` bytes
    /// that starts `offset` bytes past a cache line.
    pub fn new(width: usize, packed: bool, b: &Block, dst: (usize, usize), c: &Candidates) -> Key {
        let (dst_len, offset) = dst;
        Key {
            width,
            packed,
            inner: b.inner,
            outer: b.outer.clone(),
            size_class: dst_len.max(1).ilog2(),
            offset: offset % 64,
            candidates: c.clone(),
        }
    }
}

/// Choices remembered at most (a process that plans many shapes forgets the oldest).
#[cfg(feature = "std")]
const MEMORY: usize = 256;

/// A remembered choice, and whether the next serial run is to measure again (see
/// `trial::Purpose`).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "std"), allow(dead_code))] // nothing measures without a clock
pub(super) struct Recalled {
    pub ctx: Ctx,
    pub how: ChosenBy,
    pub recheck: bool,
}

#[cfg(feature = "std")]
static MEMO: std::sync::Mutex<Vec<(Key, Recalled)>> = std::sync::Mutex::new(Vec::new());

/// The choice remembered for `key`, if a run measured one.
pub(super) fn recall(key: &Key) -> Option<Recalled> {
    #[cfg(feature = "std")]
    {
        // A panic while the lock was held (never expected: nothing in it panics) leaves
        // the list as valid as before.
        let memo = MEMO.lock().unwrap_or_else(|e| e.into_inner());
        memo.iter().rev().find(|(k, _)| k == key).map(|&(_, r)| r)
    }
    #[cfg(not(feature = "std"))]
    {
        let _ = key;
        None
    }
}

/// Remembers `ctx` for `key`, for the rest of the process; `recheck`: the next serial run
/// of the shape measures again.
#[cfg(feature = "std")]
pub(super) fn remember(key: Key, ctx: Ctx, how: ChosenBy, recheck: bool) {
    let mut memo = MEMO.lock().unwrap_or_else(|e| e.into_inner());
    memo.retain(|(k, _)| *k != key);
    if memo.len() == MEMORY {
        memo.remove(0);
    }
    memo.push((key, Recalled { ctx, how, recheck }));
}
