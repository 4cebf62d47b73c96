//! The timing of a measuring plan's first run (`measure` has the why and the what): the
//! candidates run slices of the largest copy block one after another, each slice timed
//! with its write-backs, and the fastest does the rest. Needs a clock: `std` only.

use alloc::vec::Vec;

use super::choice::ChosenBy;
use super::ctx::{Ctx, Kernels};
use super::decompose::Block;
use super::measure::{remember, Candidates, Key};
use super::split::{cut, cuts, start};

/// Rounds of each stage: each candidate keeps the best of this many slices. Two were not
/// enough: on a 2-core AMD EPYC guest under load, the rules' candidate of f32 4099x4097 ->
/// T(8,128) drew a slice 2-3x slower than its others as its second in 2 of 3 first runs,
/// and a loop order 0.75 of the copy in whole runs won against one at 1.0.
const ROUNDS: usize = 3;

/// Slices a [`Trial`] of `c` times, at most.
fn slices(c: &Candidates) -> usize {
    let sizes = c.rows.len() + c.groups.len();
    let second = if sizes > 2 { sizes - 1 } else { 0 };
    ROUNDS * (c.first().len() + second)
}

/// Destination bytes of a timed slice, where the block has room for them: a slice of
/// 0.5 MiB (a 64 MiB block in 128 slices) took 35 µs on a Zen 4 guest, where the
/// clock's reads, the flush of the slice and the first lines' misses weigh on it, and two
/// measuring runs of the f32 `T(8,128)` plan chose different loop orders in 2 of 5
/// tries; with 1 MiB slices (docs/benchmarks-history.md).
const SLICE_BYTES: usize = 1 << 20;

/// How many slices to ask [`cuts`] for, to cut a block of `bytes` into, to time `timed` at
/// most: slices of [`SLICE_BYTES`] where the block holds at least twice as many as are
/// timed (so that the run does most of its work with the winner); else 128 or twice the
/// timed ones, smaller slices, as many as the block's loop allows.
fn slice_count(bytes: usize, timed: usize) -> usize {
    let whole = bytes / SLICE_BYTES;
    if whole >= 2 * timed {
        whole.min(4096)
    } else {
        (2 * timed).max(128)
    }
}

/// The least difference between two candidates' best slices taken as a difference: below
/// it, or below the fastest one's own spread where that is larger, they count as equally
/// fast. Two measuring runs of the eight benchmark cases on a loaded Zen 4 guest disagreed
/// in six, each time between candidates 0.6-8% apart with spreads of 1-11%
/// (docs/benchmarks-history.md).
const NOISE_FLOOR: f64 = 0.03;

/// What a measuring run is for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Purpose {
    /// The first run of a plan shape: the winner is remembered, and marked for a re-check
    /// when it ran slower than the streaming copy timed beside it by more than the noise.
    First,
    /// A later run re-checking that choice (made as `.0` says): the better of the two, by
    /// the fraction of the copy each reached, is remembered.
    Recheck(Ctx, ChosenBy),
    /// A measurement that is only reported, not remembered (`RelayoutPlan::__remeasure`).
    Again,
}

/// The timing of candidates, slice by slice: [`Trial::next`] says which candidate runs the
/// next slice, [`Trial::record`] takes its time.
pub(super) struct Trial<'c> {
    candidates: &'c Candidates,
    /// Every candidate timed so far, with its slices' times in nanoseconds per byte.
    seen: Vec<(Ctx, Vec<f64>)>,
    /// The candidates of the current stage (indices into `seen`).
    stage: Vec<usize>,
    second: bool,
    /// Positions of this stage's rounds passed (run or skipped).
    done: usize,
    /// The candidate of the slice given out last (an index into `seen`).
    last: usize,
    bytes: usize,
    nanos: u64,
}

impl<'c> Trial<'c> {
    pub fn new(candidates: &'c Candidates) -> Trial<'c> {
        let seen: Vec<(Ctx, Vec<f64>)> =
            candidates.first().into_iter().map(|c| (c, Vec::new())).collect();
        let stage = (0..seen.len()).collect();
        Trial { candidates, seen, stage, second: false, done: 0, last: 0, bytes: 0, nanos: 0 }
    }

    /// The best time of candidate `i` of `seen`, per byte (infinite before it ran).
    fn best(&self, i: usize) -> f64 {
        self.seen[i].1.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The stage's candidate for slice `done`: rounds in rotated order, so that no
    /// candidate always follows the same other one.
    fn current(&self) -> usize {
        let n = self.stage.len();
        self.stage[(self.done % n + self.done / n) % n]
    }

    /// The fastest of `among` (indices into `seen`), and its best time per byte.
    fn fastest(&self, among: impl Iterator<Item = usize>) -> (usize, f64) {
        among
            .map(|i| (i, self.best(i)))
            .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a })
    }

    /// The candidate to run the next slice with; `None` when every stage is done. After
    /// the first round, only candidates within a quarter of the stage's best time so far
    /// run again: the others would hardly be saved by a second slice, which would cost the
    /// run time (the CPU clock leaves out the largest disturbance, being descheduled).
    pub fn next(&mut self) -> Option<Ctx> {
        loop {
            if self.done == ROUNDS * self.stage.len() {
                if self.second {
                    return None;
                }
                self.second = true;
                let winner = self.seen[self.fastest(self.stage.iter().copied()).0].0;
                let stage = self.candidates.second(winner);
                if stage.len() < 2 {
                    return None;
                }
                self.stage = stage
                    .into_iter()
                    .map(|c| match self.seen.iter().position(|(s, _)| *s == c) {
                        Some(i) => i,
                        None => {
                            self.seen.push((c, Vec::new()));
                            self.seen.len() - 1
                        }
                    })
                    .collect();
                self.done = 0;
            }
            let i = self.current();
            let lead = self.fastest(self.stage.iter().copied()).1;
            if self.done >= self.stage.len() && self.best(i) > lead * 1.25 {
                self.done += 1;
                continue;
            }
            self.last = i;
            return Some(self.seen[i].0);
        }
    }

    /// The time of the slice [`Trial::next`] last gave out, which wrote `bytes` bytes.
    pub fn record(&mut self, nanos: u64, bytes: usize) {
        self.seen[self.last].1.push(nanos as f64 / bytes.max(1) as f64);
        self.done += 1;
        self.bytes += bytes;
        self.nanos += nanos;
    }

    /// The winner and how it was found: the first candidate (in the order of
    /// [`Candidates`]: the rules' settings first) whose best slice is within the noise of
    /// the fastest's, so that candidates the clock cannot tell apart do not make two runs
    /// choose differently. `copy` is the streaming copy's best time per byte, timed beside
    /// them (or `None`).
    pub fn winner(&self, copy: Option<f64>) -> (Ctx, ChosenBy) {
        let (fastest, least) = self.fastest(0..self.seen.len());
        let spread = |i: usize| {
            // A candidate's own spread: its median slice over its best.
            let mut own = self.seen[i].1.clone();
            own.sort_by(f64::total_cmp);
            own.get(own.len() / 2).map_or(0.0, |m| m / self.best(i) - 1.0)
        };
        let margin = spread(fastest).max(NOISE_FLOOR);
        let w = (0..self.seen.len()).find(|&i| self.best(i) <= least * (1.0 + margin));
        let w = w.unwrap_or(fastest);
        let best = self.best(w);
        let next = self.fastest((0..self.seen.len()).filter(|&i| i != w)).1;
        let median = best * (1.0 + spread(w));
        let permille =
            |x: f64| if x.is_finite() { (x * 1000.0).round().max(0.0) as u32 } else { 0 };
        let how = ChosenBy::Measured {
            candidates: self.seen.len(),
            measured_bytes: self.bytes,
            micros: self.nanos / 1000,
            lead_permille: permille((next / best - 1.0).max(0.0)),
            noise_permille: permille(median / best - 1.0),
            copy_permille: copy.map_or(0, |c| permille(c / best)),
            rechecked: false,
        };
        (self.seen[w].0, how)
    }
}

/// Nanoseconds `f` took: of this thread's CPU time where there is such a clock (it leaves
/// out the time the thread was descheduled, which on a busy machine would decide which
/// candidate wins more than the candidates do), else of the monotonic clock.
pub(super) fn time(f: impl FnOnce()) -> u64 {
    let (t, cpu) = (std::time::Instant::now(), cpu_nanos());
    f();
    match (cpu, cpu_nanos()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX),
    }
}

/// This thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`), where the system has
/// it; Miri does not.
#[cfg(all(unix, not(miri)))]
fn cpu_nanos() -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` writes one `timespec` through its pointer, which points to a
    // live, writable local of that type; the clock id is a constant of this system.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    let (s, ns) = (u64::try_from(ts.tv_sec).ok()?, u64::try_from(ts.tv_nsec).ok()?);
    (r == 0).then(|| s.saturating_mul(1_000_000_000).saturating_add(ns))
}

#[cfg(any(not(unix), miri))]
fn cpu_nanos() -> Option<u64> {
    None
}

/// Writes `bytes` back to memory and drops them from the caches (the end of a timed
/// slice: see the module's documentation).
pub(super) fn settle(bytes: &[u8]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    super::simd::stream::flush(bytes);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let _ = bytes;
}

/// A measuring run (see [`Purpose`]): cuts block `b` (the largest copy block) into
/// slices ([`slice_count`]), times the candidates of `key` on the first ones ([`Trial`])
/// and a streaming copy on the next ones ([`copy_time`]), remembers the winner as `purpose` says, and
/// returns it, how it was chosen, and the part of `b` left for the caller to run. `None`,
/// with nothing written, when `b` cannot be cut into enough slices.
pub(super) fn measure<T: bytemuck::Pod, K: Kernels<T>>(
    k: K,
    src: &[T],
    dst: &mut [T],
    b: &Block,
    key: Key,
    purpose: Purpose,
) -> Option<(Block, Ctx, ChosenBy)> {
    let (item, unit) = (core::mem::size_of::<T>(), K::PER_ITEM);
    let timed = slices(&key.candidates);
    let count = slice_count(b.len() / unit * item, timed);
    let cuts = cuts(b, dst.as_ptr() as usize, item, unit, count)?;
    // A block with too few slices for every round still measures, as many rounds as it
    // has slices for, where its steps allow no more: at least half the most a trial
    // takes, so that every candidate of the first stage runs and most run again.
    let slices = cuts.len() - 1;
    if slices <= timed / 2 || slices <= key.candidates.first().len() {
        return None;
    }
    let mut trial = Trial::new(&key.candidates);
    let mut s = 0;
    while let Some(ctx) = trial.next() {
        if s + 1 == slices {
            break;
        }
        let piece = cut(b, cuts[s], cuts[s + 1]);
        // The slice's destination, whole slice elements (`cuts` are not the last one).
        let range = start(b, cuts[s], unit)..start(b, cuts[s + 1], unit).min(dst.len());
        let nanos = time(|| {
            k.copy_block(src, dst, &piece, 0, ctx);
            ctx.finish();
            settle(bytemuck::cast_slice(&dst[range.clone()]));
        });
        trial.record(nanos, range.len() * item);
        s += 1;
    }
    // The copy beside them: from source bytes not read yet into destination slices not
    // written yet (the rest of the run writes every byte of the destination after this:
    // every block, this one's rest included, and the padding).
    let n = dst.len();
    let spare: Vec<(usize, usize)> = (s..cuts.len() - 1)
        .take(COPIES)
        .map(|k| {
            let range = start(b, cuts[k], unit)..start(b, cuts[k + 1], unit).min(n);
            (range.start * item, range.len() * item)
        })
        .collect();
    let copy = copy_time(bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst), &spare);
    let (mut winner, mut how) = trial.winner(copy);
    let below = |how: &ChosenBy| match *how {
        ChosenBy::Measured { copy_permille, noise_permille, .. } => {
            copy_permille > 0 && copy_permille + noise_permille.max(20) < 1000
        }
        ChosenBy::Rules => false,
    };
    match purpose {
        Purpose::First => {
            let recheck = below(&how);
            remember(key, winner, how, recheck);
        }
        Purpose::Recheck(before, was) => {
            let reached = |h: &ChosenBy| match *h {
                ChosenBy::Measured { copy_permille, .. } => copy_permille,
                ChosenBy::Rules => 0,
            };
            if reached(&was) > reached(&how) {
                (winner, how) = (before, was);
            }
            if let ChosenBy::Measured { rechecked, .. } = &mut how {
                *rechecked = true;
            }
            remember(key, winner, how, false);
        }
        Purpose::Again => {}
    }
    Some((cut(b, cuts[s], cuts[cuts.len() - 1]), winner, how))
}

/// Slices a streaming copy is timed on beside the candidates (the best counts).
const COPIES: usize = 4;

/// The best time per byte of streaming copies into the destination byte ranges `to` (start
/// and length in `dst`), each from as many source bytes at the same fraction of `src`, at
/// the widest store the CPU has and at 16 bytes in turn, flushed as a timed slice is: a
/// copy that meets memory as the slices do (lines and pages not touched yet on either
/// side). `None` without a range.
fn copy_time(src: &[u8], dst: &mut [u8], to: &[(usize, usize)]) -> Option<f64> {
    let mut best = None::<f64>;
    for (k, &(at, len)) in to.iter().enumerate() {
        let from = (at as f64 / dst.len().max(1) as f64 * src.len() as f64) as usize;
        let from = from.min(src.len().saturating_sub(len));
        let (Some(out), Some(input)) = (dst.get_mut(at..at + len), src.get(from..from + len))
        else {
            continue;
        };
        if len == 0 {
            continue;
        }
        let nanos = time(|| {
            let _ = super::ctx::stream_copy(out, input, k % 2 == 0);
            settle(out);
        });
        let per_byte = nanos as f64 / len as f64;
        best = Some(best.map_or(per_byte, |b| b.min(per_byte)));
    }
    best
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::relayout::cpu::Level;
    use crate::RelayoutChoice;
    use alloc::string::ToString;

    /// The boundary of the CPU clock: it reads, it counts the work of this thread, and a
    /// sleep (descheduled) adds little to it.
    #[test]
    fn time_counts_this_threads_work() {
        let spin = time(|| {
            let mut x = 0u64;
            for i in 0..2_000_000u64 {
                x = core::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
        });
        assert!(spin > 0);
        let sleep = time(|| std::thread::sleep(std::time::Duration::from_millis(50)));
        if cpu_nanos().is_some() {
            assert!(sleep < 20_000_000, "{sleep} ns of CPU time in a 50 ms sleep");
        } else {
            assert!(sleep >= 50_000_000);
        }
    }

    /// Candidates the clock cannot tell apart (within the fastest's own spread, or 3%) go
    /// to the first in the candidates' order, the rules' settings: two runs then agree.
    #[test]
    fn a_winner_within_the_noise_yields_to_the_rules() {
        let c = Candidates {
            levels: vec![Level::Portable],
            streams: vec![false, true],
            rows: vec![128],
            groups: vec![2],
            orders: vec![false],
        };
        for (cached, streamed, wins_streamed) in [
            ([1010, 1030, 1020], [1000, 1005, 1002], false), // 1% apart, spread 0.2%
            ([1100, 1110, 1120], [1000, 1005, 1002], true),  // 10% apart
            ([1040, 1050, 1045], [1000, 1060, 1080], false), // 4% apart, spread 6%
        ] {
            let mut trial = Trial::new(&c);
            let (mut a, mut b) = (cached.into_iter(), streamed.into_iter());
            while let Some(ctx) = trial.next() {
                let nanos = if ctx.stream { b.next() } else { a.next() };
                trial.record(nanos.unwrap(), 1);
            }
            let (winner, how) = trial.winner(None);
            assert_eq!(winner.stream, wins_streamed, "{cached:?} {streamed:?}: {how:?}");
        }
    }

    #[test]
    fn stages_rounds_and_the_winner() {
        let c = Candidates {
            levels: vec![Level::Portable],
            streams: vec![false, true],
            rows: vec![128, 64, 256],
            groups: vec![2],
            orders: vec![false],
        };
        // Two kinds of stores, three times each; then the winner and its two row variants.
        assert_eq!(slices(&c), 3 * 2 + 3 * 3);
        let mut trial = Trial::new(&c);
        let mut seen = Vec::new();
        while let Some(ctx) = trial.next() {
            // Streaming is faster; 64 rows faster still, but slow once (a disturbance);
            // 256 rows a little slower than 128.
            let nanos = match (ctx.stream, ctx.rows, seen.len()) {
                (false, ..) => 1100,
                (true, 64, 5) => 600,
                (true, 64, _) => 400,
                (true, 256, _) => 600,
                (true, ..) => 500,
            };
            seen.push((ctx.stream, ctx.rows));
            trial.record(nanos, 10);
        }
        // Rounds in rotated order, so that no candidate always follows the same one; after
        // the first round, cached stores (1100 against 500) are not run again.
        let streamed = |rows| (true, rows);
        assert_eq!(seen[..4], [(false, 128), streamed(128), streamed(128), streamed(128)]);
        // The second stage: 128 rows (the winner), 64 and 256; then, rotated, 64 (600, slow
        // once: within a quarter of 500, it runs again, at 400), not 256 (600 against the
        // 500 best then), 128; and 128 and 64 a third time.
        assert_eq!(seen[4..], [128, 64, 256, 64, 128, 128, 64].map(streamed));
        assert!(seen.len() <= slices(&c));
        // A copy timed at 50 ns a byte beside them.
        let (winner, how) = trial.winner(Some(50.0));
        assert_eq!((winner.stream, winner.rows), (true, 64)); // its best of three counts
                                                              // 11 slices of 10 bytes; 1100 + 3·500 + 500 + 600 + 600 + 400 + 500 + 500 + 400 ns.
                                                              // The winner's best, 40 ns a byte, is 25% ahead of the next (128 rows, 50), and
                                                              // its median slice is its best (600, 400, 400: no noise); the copy took 1.25 times
                                                              // as long.
        let want = ChosenBy::Measured {
            candidates: 4,
            measured_bytes: 110,
            micros: 6,
            lead_permille: 250,
            noise_permille: 0,
            copy_permille: 1250,
            rechecked: false,
        };
        assert_eq!(how, want);
        let shown = RelayoutChoice::new(winner, how, Default::default()).to_string();
        assert!(shown.ends_with("ahead by 25.0% (noise 0.0%), 1.25 of a copy"), "{shown}");
    }
}
