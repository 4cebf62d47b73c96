//! Ratios that stay numbers: an expansion (`3.20x`) and a percentage (`92.2%`) keep the exact
//! integers they come from, print as a person reads them, and serialize as numbers, so a
//! report's JSON never carries a number as text and no writer parses text back.

use std::cmp::Ordering;
use std::fmt;

use serde::{Serialize, Serializer};

use super::units::ratio;

/// `num / den`, printed to three significant figures (`32.0`, `128`, `1.05`, `0.573`) and
/// serialized as that number (`3.2` for `3.20`): the figure a person reads and the one a
/// script reads are the same. Compares exactly, by the integers.
///
/// ```
/// use xlayout::hlo::Ratio;
/// let x = Ratio::new(5_242_880, 1_638_400).unwrap();
/// assert_eq!(x.to_string(), "3.20");
/// assert_eq!(serde_json::to_string(&x).unwrap(), "3.2");
/// assert_eq!(x.value(), 3.2);
/// assert!(x > Ratio::new(3, 1).unwrap() && x == Ratio::new(16, 5).unwrap());
/// assert_eq!(Ratio::new(1, 0), None);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    num: u64,
    den: u64,
}

impl Ratio {
    /// The name it serializes under (a newtype of its number), so that a writer of table
    /// cells can print it as [`Display`](fmt::Display) does.
    pub const SERDE_NAME: &'static str = "Ratio";

    /// `num / den`; `None` when `den` is 0.
    ///
    /// ```
    /// let x = xlayout::hlo::Ratio::new(512, 4).unwrap();
    /// assert_eq!((x.num(), x.den(), x.to_string()), (512, 4, String::from("128")));
    /// ```
    pub fn new(num: u64, den: u64) -> Option<Ratio> {
        (den > 0).then_some(Ratio { num, den })
    }

    /// The numerator (as given, not reduced).
    ///
    /// ```
    /// assert_eq!(xlayout::hlo::Ratio::new(6, 4).unwrap().num(), 6);
    /// ```
    pub fn num(&self) -> u64 {
        self.num
    }

    /// The denominator (never 0).
    ///
    /// ```
    /// assert_eq!(xlayout::hlo::Ratio::new(6, 4).unwrap().den(), 4);
    /// ```
    pub fn den(&self) -> u64 {
        self.den
    }

    /// The printed figure as a number: the `f64` nearest to the three significant figures.
    ///
    /// ```
    /// assert_eq!(xlayout::hlo::Ratio::new(1, 3).unwrap().value(), 0.333);
    /// ```
    pub fn value(&self) -> f64 {
        // The printed text is digits and at most one point: it always reads as a number.
        self.to_string().parse().unwrap_or(f64::NAN)
    }

    /// Whether the ratio is above `num / den`, exactly (`den` may be 0: then nothing is).
    ///
    /// ```
    /// let x = xlayout::hlo::Ratio::new(128, 100).unwrap();
    /// assert!(!x.exceeds(128, 100) && x.exceeds(127, 100));
    /// ```
    pub fn exceeds(&self, num: u128, den: u128) -> bool {
        den > 0 && u128::from(self.num) * den > num.saturating_mul(u128::from(self.den))
    }
}

impl PartialEq for Ratio {
    fn eq(&self, other: &Ratio) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ratio {}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Ratio) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Ratio) -> Ordering {
        let lhs = u128::from(self.num) * u128::from(other.den);
        let rhs = u128::from(other.num) * u128::from(self.den);
        lhs.cmp(&rhs)
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&ratio(self.num, self.den).unwrap_or_default())
    }
}

impl Serialize for Ratio {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(Self::SERDE_NAME, &self.value())
    }
}

/// `part` as a percentage of `whole`, printed to one decimal, rounded half up from the
/// exact integers (`92.2`), and serialized as that number.
///
/// ```
/// use xlayout::hlo::Percent;
/// let p = Percent::new(1, 8).unwrap();
/// assert_eq!((p.to_string(), p.value()), (String::from("12.5"), 12.5));
/// assert_eq!(serde_json::to_string(&Percent::new(2, 3).unwrap()).unwrap(), "66.7");
/// assert_eq!(Percent::new(1, 0), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Percent {
    /// Tenths of a percent, rounded.
    tenths: u128,
}

impl Percent {
    /// The name it serializes under (a newtype of its number).
    pub const SERDE_NAME: &'static str = "Percent";

    /// `part / whole` in percent; `None` when `whole` is 0.
    ///
    /// ```
    /// assert_eq!(xlayout::hlo::Percent::new(508, 512).unwrap().to_string(), "99.2");
    /// ```
    pub fn new(part: u64, whole: u64) -> Option<Percent> {
        if whole == 0 {
            return None;
        }
        let tenths = (u128::from(part) * 2000 + u128::from(whole)) / (2 * u128::from(whole));
        Some(Percent { tenths })
    }

    /// The printed figure as a number.
    ///
    /// ```
    /// assert_eq!(xlayout::hlo::Percent::new(1, 3).unwrap().value(), 33.3);
    /// ```
    pub fn value(&self) -> f64 {
        self.tenths as f64 / 10.0
    }
}

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.tenths / 10, self.tenths % 10)
    }
}

impl Serialize for Percent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(Self::SERDE_NAME, &self.value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_and_serialized_figures_are_one_number() {
        for (num, den) in [(1u64, 3u64), (9995, 1000), (u64::MAX, 1), (1, u64::MAX), (0, 5)] {
            let r = Ratio::new(num, den).unwrap();
            let json: f64 = serde_json::to_string(&r).unwrap().parse().unwrap();
            let text: f64 = r.to_string().parse().unwrap();
            assert_eq!(json, text, "{num}/{den}");
        }
        assert_eq!(Percent::new(u64::MAX, u64::MAX).unwrap().to_string(), "100.0");
        assert_eq!(Percent::new(1, 3).unwrap().value(), 33.3);
    }
}
