//! Sums over steps: `HloLiveRange::ComputePeakMemoryMoment` (the step XLA calls the peak),
//! and the largest live total (the high-water mark), by difference arrays in time linear
//! in values plus steps.

use super::liveness::LiveRange;

/// XLA's peak moment: events `(start, add)` and `(end + 1, remove)` sorted with additions
/// first, so the sum at time `t` counts every value with `start <= t <= end + 1`; the peak
/// is the first `t` whose sum is the largest (0 when every sum is 0). `weight` is each
/// value's size (XLA: its defining instruction's whole shape). Also returns that sum.
pub(crate) fn peak_moment(ranges: &[(LiveRange, u64)], steps: u32) -> (u32, u128) {
    first_maximum(&deltas(ranges, steps, 2))
}

/// The largest sum over steps of the values live at a step (`start <= t <= end`), and the
/// first step with it.
pub(crate) fn high_water(ranges: &[(LiveRange, u64)], steps: u32) -> (u32, u128) {
    first_maximum(&deltas(ranges, steps, 1))
}

/// Each value's weight added at its start and taken off `after` steps past its end: a
/// difference array over the steps (a step is a number of steps, and so an offset here).
fn deltas(ranges: &[(LiveRange, u64)], steps: u32, after: u32) -> Vec<i128> {
    let slot = |step: u32| usize::try_from(step).expect("steps are 32-bit");
    let mut delta = vec![0i128; slot(steps) + 3];
    for &(r, w) in ranges {
        delta[slot(r.start)] += i128::from(w);
        delta[slot(r.end) + slot(after)] -= i128::from(w);
    }
    delta
}

/// The first index of the largest prefix sum (strictly above 0; else index 0, sum 0).
fn first_maximum(delta: &[i128]) -> (u32, u128) {
    let (mut sum, mut best, mut at) = (0i128, 0i128, 0u32);
    for (t, d) in delta.iter().enumerate() {
        sum += d;
        if sum > best {
            best = sum;
            at = t as u32;
        }
    }
    (at, best as u128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_count_before_the_previous_step_ends() {
        let r = |start, end| LiveRange { start, end };
        // `layernorm`'s shape: a large value ending at 6 still counts at 7 for the sweep.
        let values = [(r(0, 9), 10), (r(5, 6), 64), (r(7, 8), 1)];
        assert_eq!(peak_moment(&values, 9), (7, 75));
        assert_eq!(high_water(&values, 9), (5, 74));
        assert_eq!(peak_moment(&[], 3), (0, 0));
        assert_eq!(high_water(&[(r(0, 3), 0)], 3), (0, 0));
    }
}
