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

/// Slices the measured block is cut into, 1 MiB each for a 128 MiB block. At most
/// [`slices`] of them are timed: 12 for most plans (three rounds of two kinds of stores
/// and two loop orders), 39 for the most candidates a plan has (three rounds of two SIMD
/// levels, two kinds of stores and two loop orders, then of five block-size variants);
/// after the first round only the close candidates run, so most of those are not.
pub(super) const SLICES: usize = 128;

/// The timing of candidates, slice by slice: [`Trial::next`] says which candidate runs the
/// next slice, [`Trial::record`] takes its time.
pub(super) struct Trial<'c> {
    candidates: &'c Candidates,
    stage: Vec<Ctx>,
    /// The best time of each candidate of the stage so far, in nanoseconds.
    best: Vec<u64>,
    second: bool,
    /// Positions of this stage's rounds passed (run or skipped).
    done: usize,
    /// The candidate of the slice given out last.
    last: usize,
    timed: usize,
    bytes: usize,
    nanos: u64,
}

impl<'c> Trial<'c> {
    pub fn new(candidates: &'c Candidates) -> Trial<'c> {
        let stage = candidates.first();
        let (best, timed) = (alloc::vec![u64::MAX; stage.len()], stage.len());
        let (bytes, nanos) = (0, 0);
        Trial { candidates, stage, best, second: false, done: 0, last: 0, timed, bytes, nanos }
    }

    /// The stage's candidate for slice `done`: rounds in rotated order, so that no
    /// candidate always follows the same other one.
    fn current(&self) -> usize {
        let n = self.stage.len();
        (self.done % n + self.done / n) % n
    }

    fn fastest(&self) -> Ctx {
        let i = (0..self.best.len()).min_by_key(|&i| self.best[i]).unwrap_or(0);
        self.stage[i]
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
                let stage = self.candidates.second(self.fastest());
                if stage.len() < 2 {
                    return None;
                }
                self.timed += stage.len() - 1; // the first stage timed the winner
                self.best = alloc::vec![u64::MAX; stage.len()];
                self.stage = stage;
                self.done = 0;
            }
            let i = self.current();
            let lead = self.best.iter().min().copied().unwrap_or(u64::MAX);
            if self.done >= self.stage.len() && self.best[i] > lead.saturating_add(lead / 4) {
                self.done += 1;
                continue;
            }
            self.last = i;
            return Some(self.stage[i]);
        }
    }

    /// The time of the slice [`Trial::next`] last gave out, which wrote `bytes` bytes.
    pub fn record(&mut self, nanos: u64, bytes: usize) {
        let i = self.last;
        self.best[i] = self.best[i].min(nanos);
        self.done += 1;
        self.bytes += bytes;
        self.nanos += nanos;
    }

    /// The fastest candidate, and how it was found.
    pub fn winner(&self) -> (Ctx, ChosenBy) {
        let how = ChosenBy::Measured {
            candidates: self.timed,
            measured_bytes: self.bytes,
            micros: self.nanos / 1000,
        };
        (self.fastest(), how)
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

/// The first run of a plan shape: cuts block `b` (the largest copy block) into
/// [`SLICES`] slices, times the candidates of `key` on the first ones ([`Trial`]),
/// remembers the winner, and returns it with the part of `b` left for the caller to run.
/// `None`, with nothing written, when `b` cannot be cut into enough slices.
pub(super) fn first_run<T: bytemuck::Pod, K: Kernels<T>>(
    k: K,
    src: &[T],
    dst: &mut [T],
    b: &Block,
    key: Key,
) -> Option<(Block, Ctx)> {
    let (item, unit) = (core::mem::size_of::<T>(), K::PER_ITEM);
    let cuts = cuts(b, dst.as_ptr() as usize, item, unit, SLICES)?;
    if cuts.len() - 1 <= slices(&key.candidates) {
        return None;
    }
    let mut trial = Trial::new(&key.candidates);
    let mut s = 0;
    while let Some(ctx) = trial.next() {
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
    let (winner, how) = trial.winner();
    remember(key, winner, how);
    Some((cut(b, cuts[s], cuts[cuts.len() - 1]), winner))
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::relayout::cpu::Level;

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
        let (winner, how) = trial.winner();
        assert_eq!((winner.stream, winner.rows), (true, 64)); // its best of three counts
                                                              // 11 slices of 10 bytes; 1100 + 3·500 + 500 + 600 + 600 + 400 + 500 + 500 + 400 ns.
        assert_eq!(how, ChosenBy::Measured { candidates: 4, measured_bytes: 110, micros: 6 });
    }
}
