//! Division by a run-time constant without a hardware divide: a shift and a mask for powers
//! of two, otherwise the multiply-shift method of Granlund and Montgomery ("Division by
//! Invariant Integers using Multiplication", PLDI 1994, figure 4.1), exact for every
//! dividend and every non-zero divisor that fit in `usize`.
//!
//! Layout arithmetic divides by tile sizes and dimension sizes that are known once per
//! shape but not at compile time; a [`Divider`] is made once and used per element.

/// A precomputed divisor: `n / d` and `n % d` with one 64×64→128-bit multiply, two
/// shifts, an add and a subtract (or a single shift and a mask when `d` is a power of two).
///
/// Exact for every `n: usize` and every `d >= 1`, including `usize::MAX` on both sides.
///
/// ```
/// use layout_runtime::Divider;
/// let d = Divider::new(7).unwrap();
/// assert_eq!(d.div_rem(100), (14, 2));
/// assert_eq!(d.div(usize::MAX), usize::MAX / 7);
/// assert_eq!(Divider::new(128).unwrap().rem(1000), 1000 % 128);
/// assert!(Divider::new(0).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Divider {
    divisor: usize,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    /// `d = 2^shift`: `n >> shift`, `n & (d - 1)`.
    Shift { shift: u32 },
    /// `t = mulhi(magic, n); q = (t + ((n - t) >> 1)) >> shift` (GM fig. 4.1 with
    /// sh1 = 1, sh2 = ⌈log2 d⌉ − 1; d is not a power of two, so ⌈log2 d⌉ ≥ 2).
    Magic { magic: u64, shift: u32 },
}

impl Divider {
    /// Division by 1: the identity, and a total stand-in where a size may be 0 but nothing
    /// is ever divided (an empty dimension has no index to divide).
    ///
    /// ```
    /// use layout_runtime::Divider;
    /// assert_eq!(Divider::ONE.div_rem(42), (42, 0));
    /// assert_eq!(Some(Divider::ONE), Divider::new(1));
    /// ```
    pub const ONE: Divider = Divider { divisor: 1, kind: Kind::Shift { shift: 0 } };

    /// The divider for `divisor`; `None` for 0.
    ///
    /// A `const fn`, so dividers for constant divisors can be computed at compile time.
    ///
    /// ```
    /// use layout_runtime::Divider;
    /// const D: Option<Divider> = Divider::new(3);
    /// assert_eq!(D.unwrap().div(10), 3);
    /// ```
    pub const fn new(divisor: usize) -> Option<Divider> {
        if divisor == 0 {
            return None;
        }
        let kind = if divisor.is_power_of_two() {
            Kind::Shift { shift: divisor.trailing_zeros() }
        } else {
            // l = ⌈log2 d⌉, 2^(l-1) < d < 2^l, 2 <= l <= 64.
            let d = divisor as u128;
            let l = 128 - (d - 1).leading_zeros();
            // m' = ⌊2^64 · (2^l − d) / d⌋ + 1 < 2^64.
            let magic = (((1u128 << 64) * ((1u128 << l) - d)) / d + 1) as u64;
            Kind::Magic { magic, shift: l - 1 }
        };
        Some(Divider { divisor, kind })
    }

    /// The divisor this divider divides by.
    ///
    /// ```
    /// assert_eq!(layout_runtime::Divider::new(12).unwrap().divisor(), 12);
    /// ```
    #[inline]
    pub const fn divisor(&self) -> usize {
        self.divisor
    }

    /// `n / divisor`, rounded down.
    ///
    /// ```
    /// let d = layout_runtime::Divider::new(10).unwrap();
    /// assert_eq!(d.div(99), 9);
    /// ```
    #[inline]
    pub const fn div(&self, n: usize) -> usize {
        match self.kind {
            Kind::Shift { shift } => n >> shift,
            Kind::Magic { magic, shift } => {
                let n = n as u64;
                let t = ((magic as u128 * n as u128) >> 64) as u64;
                ((t + ((n - t) >> 1)) >> shift) as usize
            }
        }
    }

    /// `n % divisor`.
    ///
    /// ```
    /// let d = layout_runtime::Divider::new(10).unwrap();
    /// assert_eq!(d.rem(99), 9);
    /// ```
    #[inline]
    pub const fn rem(&self, n: usize) -> usize {
        self.div_rem(n).1
    }

    /// `(n / divisor, n % divisor)` with a single multiply.
    ///
    /// ```
    /// let d = layout_runtime::Divider::new(6).unwrap();
    /// assert_eq!(d.div_rem(17), (2, 5));
    /// ```
    #[inline]
    pub const fn div_rem(&self, n: usize) -> (usize, usize) {
        match self.kind {
            Kind::Shift { shift } => (n >> shift, n & (self.divisor - 1)),
            Kind::Magic { .. } => {
                let q = self.div(n);
                (q, n - q * self.divisor)
            }
        }
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::Divider;
    use proptest::prelude::*;

    fn check(d: usize, n: usize) {
        let div = Divider::new(d).unwrap();
        assert_eq!(div.div(n), n / d, "{n} / {d}");
        assert_eq!(div.rem(n), n % d, "{n} % {d}");
        assert_eq!(div.div_rem(n), (n / d, n % d), "{n} divrem {d}");
    }

    /// Dividends near the interesting places for `d`: 0, multiples of d and their
    /// neighbours, powers of two, the u32 and usize extremes.
    fn dividends(d: usize) -> alloc::vec::Vec<usize> {
        let mut v = alloc::vec![0, 1, 2, 3, d - 1, d, d.saturating_add(1)];
        for k in [2usize, 3, 1000, usize::MAX / d, (usize::MAX / d).saturating_sub(1)] {
            if let Some(m) = d.checked_mul(k).filter(|&m| m > 0) {
                v.extend([m - 1, m, m.saturating_add(1)]);
            }
        }
        for s in 0..usize::BITS {
            let p = 1usize << s;
            v.extend([p - 1, p, p.saturating_add(1)]);
        }
        v.extend([u32::MAX as usize, u32::MAX as usize - 1, usize::MAX, usize::MAX - 1]);
        v
    }

    #[test]
    fn zero_is_refused() {
        assert!(Divider::new(0).is_none());
    }

    #[test]
    fn small_divisors_exhaustive_small_dividends() {
        for d in 1..=300usize {
            for n in 0..=2000usize {
                check(d, n);
            }
            for n in dividends(d) {
                check(d, n);
            }
        }
    }

    #[test]
    fn divisors_at_powers_of_two_and_extremes() {
        let mut ds = alloc::vec::Vec::new();
        for s in 0..usize::BITS {
            let p = 1usize << s;
            ds.extend([p, p - 1, p.saturating_add(1)]);
        }
        ds.extend([
            u32::MAX as usize,
            u32::MAX as usize - 1,
            (u32::MAX as usize) + 1,
            (u32::MAX as usize) + 2,
            usize::MAX,
            usize::MAX - 1,
            usize::MAX / 2,
            usize::MAX / 2 + 2,
            usize::MAX / 3,
            7,
            641,
            6_700_417,
        ]);
        for d in ds.into_iter().filter(|&d| d > 0) {
            for n in dividends(d) {
                check(d, n);
            }
        }
    }

    fn divisor() -> impl Strategy<Value = usize> {
        prop_oneof![
            1usize..=1024,
            1usize..=(u32::MAX as usize),
            1usize..=usize::MAX,
            (0u32..usize::BITS).prop_map(|s| 1usize << s),
            (1u32..usize::BITS).prop_map(|s| (1usize << s) - 1),
            (0u32..usize::BITS - 1).prop_map(|s| (1usize << s) + 1),
            (usize::MAX - 1024..=usize::MAX),
        ]
    }

    fn dividend() -> impl Strategy<Value = usize> {
        prop_oneof![
            0usize..=4096,
            any::<u32>().prop_map(|n| n as usize),
            any::<usize>(),
            (usize::MAX - 4096..=usize::MAX),
            ((u32::MAX as usize) - 4096..=(u32::MAX as usize) + 4096),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn matches_hardware_division(d in divisor(), n in dividend()) {
            check(d, n);
        }

        #[test]
        fn multiples_and_neighbours(d in divisor(), k in any::<usize>()) {
            let k = k % (usize::MAX / d).max(1);
            let m = d * k;
            check(d, m);
            check(d, m.saturating_sub(1));
            check(d, m.saturating_add(1));
            check(d, m.saturating_add(d - 1));
        }
    }
}
