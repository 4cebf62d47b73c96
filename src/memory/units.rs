//! Numbers for people: byte counts in the units XLA's reports use, and ratios to three
//! significant figures. Exact integer arithmetic throughout, so the same input always prints
//! the same text.

/// XLA's `HumanReadableNumBytes` (tsl `numbers.cc`), which TPU out-of-memory reports print
/// without its `iB`: below 1024 the plain count with `B`; then binary units, `K` with one
/// decimal and `M`, `G`, `T`, `P`, `E` with two. As XLA does, the count is divided by 1024
/// in whole numbers until it is below 1024², and only the last division keeps a fraction
/// (rounded half to even, as `printf` rounds an exact binary value).
///
/// ```
/// use xlayout::hlo::units::oom_bytes;
/// assert_eq!(oom_bytes(512), "512B");
/// assert_eq!(oom_bytes(65536), "64.0K");
/// assert_eq!(oom_bytes(4 << 30), "4.00G");
/// assert_eq!(oom_bytes(34_359_738_368), "32.00G");
/// assert_eq!(oom_bytes(1_638_400), "1.56M");
/// ```
pub fn oom_bytes(n: u64) -> String {
    human_bytes(n, "")
}

/// [`oom_bytes`] with XLA's own `iB` suffix, as `HumanReadableNumBytes` prints it
/// (`64.0KiB`, `4.00GiB`; plain bytes keep `B`).
///
/// ```
/// use xlayout::hlo::units::iec_bytes;
/// assert_eq!(iec_bytes(1023), "1023B");
/// assert_eq!(iec_bytes(1536), "1.5KiB");
/// assert_eq!(iec_bytes(5_242_880), "5.00MiB");
/// ```
pub fn iec_bytes(n: u64) -> String {
    human_bytes(n, "iB")
}

fn human_bytes(n: u64, suffix: &str) -> String {
    if n < 1024 {
        return format!("{n}B");
    }
    const UNITS: &[u8] = b"KMGTPE";
    let (mut value, mut unit) = (n, 0);
    while value >= 1024 * 1024 {
        value /= 1024;
        unit += 1;
    }
    let decimals = if unit == 0 { 1 } else { 2 };
    // value / 1024 is exact in binary; printf rounds it half to even.
    let scaled = u128::from(value) * 10u128.pow(decimals);
    let (mut q, r) = (scaled / 1024, scaled % 1024);
    if 2 * r > 1024 || (2 * r == 1024 && q % 2 == 1) {
        q += 1;
    }
    let p = 10u128.pow(decimals);
    format!("{}.{:0width$}{}{suffix}", q / p, q % p, UNITS[unit] as char, width = decimals as usize)
}

/// `num / den` to three significant figures (half up, from the exact fraction): `32.0`,
/// `128`, `4.00`, `1.05`, `0.573`; a large ratio keeps all its integer digits (`1230`).
/// `None` when `den` is 0.
///
/// ```
/// use xlayout::hlo::units::ratio;
/// assert_eq!(ratio(34_359_738_368, 1_073_741_824).as_deref(), Some("32.0"));
/// assert_eq!(ratio(128, 1).as_deref(), Some("128"));
/// assert_eq!(ratio(1045, 1000).as_deref(), Some("1.05"));
/// assert_eq!(ratio(1, 3).as_deref(), Some("0.333"));
/// assert_eq!(ratio(0, 5).as_deref(), Some("0"));
/// assert_eq!(ratio(5, 0), None);
/// ```
pub fn ratio(num: u64, den: u64) -> Option<String> {
    if den == 0 {
        return None;
    }
    if num == 0 {
        return Some(String::from("0"));
    }
    let (num, den) = (u128::from(num), u128::from(den));
    // e = floor(log10(num / den)), so that 10^e <= num/den < 10^(e+1).
    let mut e: i32 = 0;
    while num >= den * 10u128.pow(e as u32 + 1) {
        e += 1;
    }
    while e <= 0 && num * 10u128.pow((-e) as u32) < den {
        e -= 1;
    }
    // Three digits: q = round(num/den * 10^(2-e)), 100 <= q <= 1000.
    let round = |n: u128, d: u128| (2 * n + d) / (2 * d);
    let mut q = if e <= 2 {
        round(num * 10u128.pow((2 - e) as u32), den)
    } else {
        round(num, den * 10u128.pow((e - 2) as u32))
    };
    if q == 1000 {
        q = 100;
        e += 1;
    }
    Some(written(q, e))
}

/// Three significant figures `q` (100 to 999) times 10^(e − 2), as [`ratio`] and
/// [`figures`] write them: all the integer digits, and decimals down to the third figure.
fn written(q: u128, e: i32) -> String {
    if e >= 2 {
        (q * 10u128.pow((e - 2) as u32)).to_string()
    } else if e >= 0 {
        let split = 10u128.pow((2 - e) as u32);
        format!("{}.{:0width$}", q / split, q % split, width = (2 - e) as usize)
    } else {
        format!("0.{}{q}", "0".repeat((-e - 1) as usize))
    }
}

/// A ratio's value as it is serialized ([`Ratio::value`](super::ratio::Ratio::value): the `f64`
/// nearest its three figures) written back as [`ratio`] writes the ratio, so that a writer
/// that gets only the number (a table cell made from a row's serialized fields) prints the
/// same text: `3.2` is `3.20`, `32.0` is `32.0`, `128.0` is `128`. Another number is
/// rounded to three figures, half up, as [`ratio`] rounds; zero, a negative number or one
/// that is not finite is written as Rust writes it.
///
/// ```
/// use xlayout::hlo::{units::figures, Ratio};
/// assert_eq!(figures(3.2), "3.20");
/// assert_eq!(figures(128.0), "128");
/// assert_eq!(figures(0.001), "0.00100");
/// let x = Ratio::new(9995, 1000).unwrap();
/// assert_eq!(figures(x.value()), x.to_string()); // "10.0"
/// ```
pub fn figures(x: f64) -> String {
    if !(x.is_finite() && x > 0.0) {
        return format!("{x}");
    }
    // The shortest text that reads back as `x`: a ratio's value is its three figures.
    let text = format!("{x}");
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let digits: Vec<u8> = whole.bytes().chain(fraction.bytes()).map(|d| d - b'0').collect();
    let Some(first) = digits.iter().position(|&d| d != 0) else {
        return text;
    };
    let mut e = whole.len() as i32 - 1 - first as i32;
    let figure = |k: usize| u128::from(digits.get(first + k).copied().unwrap_or(0));
    let mut q = figure(0) * 100 + figure(1) * 10 + figure(2);
    // Half up from what follows the third figure (nothing, for a ratio's value).
    if figure(3) >= 5 {
        q += 1;
    }
    if q == 1000 {
        q = 100;
        e += 1;
    }
    written(q, e)
}

/// A byte count as a person types it (`--budget 16G`, `--min-bytes 4096`): digits, an
/// optional fraction and an optional binary unit (`K`, `M`, `G`, `T`, `P`, `E`, with or
/// without `iB`/`B`, any case, after at most one blank), naming a whole number of bytes that
/// fits in 64 bits. Anything else is `None`, never a guess: no digit separators (`1_000`, or
/// `1,5G`, which a European reader means as 1.5G and which would read as 15G with the comma
/// ignored), no fraction of a byte (`1.5B`, `1.3K`).
///
/// ```
/// use xlayout::hlo::units::parse_bytes;
/// assert_eq!(parse_bytes("16G"), Some(16 << 30));
/// assert_eq!(parse_bytes("1.5KiB"), Some(1536));
/// assert_eq!(parse_bytes("12 MB"), Some(12 << 20));
/// assert_eq!(parse_bytes("1000000"), Some(1_000_000));
/// assert_eq!(parse_bytes("2.00E"), Some(2 << 60));
/// assert_eq!(parse_bytes("1.5B"), None); // not a whole number of bytes
/// assert_eq!(parse_bytes("1_000"), None);
/// assert_eq!(parse_bytes("lots"), None);
/// ```
pub fn parse_bytes(text: &str) -> Option<u64> {
    let f = figure(text)?;
    let (num, den) = f.exact();
    if num % den != 0 {
        return None;
    }
    u64::try_from(num / den).ok()
}

/// A size as XLA prints it (`17.77G`, `64.0K`, `512B`, `15.00GiB`, `16.00E`): the bytes its
/// digits stand for, a fraction of a byte dropped. The figure is rounded, so it may stand
/// for more than 64 bits hold: `16.00E` is 2⁶⁴, what XLA prints for counts from 15.995E up
/// to 2⁶⁴ − 1.
///
/// ```
/// use xlayout::hlo::units::printed_bytes;
/// assert_eq!(printed_bytes("1.00G"), Some(1 << 30));
/// assert_eq!(printed_bytes("10.51G"), Some(11_285_026_570)); // 11285026570.24
/// assert_eq!(printed_bytes("16.00E"), Some(1 << 64));
/// assert_eq!(printed_bytes("1,5G"), None);
/// ```
pub fn printed_bytes(text: &str) -> Option<u128> {
    let (num, den) = figure(text)?.exact();
    Some(num / den)
}

/// The parts of a size's text: its whole digits, its fraction's digits, its unit's power of
/// two.
struct Figure<'a> {
    whole: u64,
    fraction: &'a str,
    shift: u32,
}

impl Figure<'_> {
    /// The bytes, exactly, as a fraction `num / den`.
    fn exact(&self) -> (u128, u128) {
        let den = 10u128.pow(self.fraction.len() as u32);
        let frac: u128 = self.fraction.parse().unwrap_or(0);
        ((u128::from(self.whole) * den + frac) << self.shift, den)
    }
}

/// Reads `digits[.digits][ ][unit]` (the whole part not empty, at most 18 fraction digits).
fn figure(text: &str) -> Option<Figure<'_>> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let unit = unit.strip_prefix(' ').unwrap_or(unit);
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        "p" | "pb" | "pib" => 50,
        "e" | "eb" | "eib" => 60,
        _ => return None,
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(fraction) || fraction.len() > 18 {
        return None;
    }
    Some(Figure { whole: whole.parse().ok()?, fraction, shift })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_as_xla_prints_them() {
        // Each case: HumanReadableNumBytes's arithmetic done by hand.
        assert_eq!(oom_bytes(0), "0B");
        assert_eq!(oom_bytes(1024), "1.0K");
        assert_eq!(oom_bytes(1024 * 1024 - 1), "1024.0K"); // 1023.999 rounds up, as in C
        assert_eq!(oom_bytes(1024 * 1024), "1.00M");
        // 1.125 is exact in binary: printf rounds half to even, 1.12.
        assert_eq!(oom_bytes(1152 * 1024), "1.12M");
        assert_eq!(oom_bytes(1160 * 1024), "1.13M");
        // Whole-number division first: 1 GiB + 1023 bytes truncates to 1.00G.
        assert_eq!(oom_bytes((1 << 30) + 1023), "1.00G");
        assert_eq!(oom_bytes(1_073_741_824), "1.00G");
        assert_eq!(oom_bytes(u64::MAX), "16.00E");
        assert_eq!(iec_bytes(64 << 10), "64.0KiB");
    }

    #[test]
    fn three_significant_figures() {
        let r = |n, d| ratio(n, d).unwrap();
        assert_eq!(r(5_242_880, 1_638_400), "3.20");
        assert_eq!(r(6_442_450_944, 50_331_648), "128");
        assert_eq!(r(12_345, 1), "12300"); // 1.23e4, integer digits kept
        assert_eq!(r(9995, 1000), "10.0"); // rounds up into the next decade
        assert_eq!(r(9_995, 10), "1000");
        assert_eq!(r(1, 1000), "0.00100");
        assert_eq!(r(1, u64::MAX), "0.0000000000000000000542");
        assert_eq!(r(u64::MAX, 1), "18400000000000000000");
        assert_eq!(r(1, 1), "1.00");
        assert_eq!(r(1_044_999, 1_000_000), "1.04");
    }

    /// A table cell gets a ratio as the number it serializes to: [`figures`] writes it back
    /// as the ratio writes itself.
    #[test]
    fn figures_of_a_ratios_value_are_the_ratios() {
        let cases = [
            (5_242_880u64, 1_638_400u64),
            (128, 1),
            (1, 3),
            (9995, 1000),
            (9_995, 10),
            (12345, 1),
            (1, 1000),
            (1, 1),
            (1_044_999, 1_000_000),
            (u64::MAX, 1),
            (1, u64::MAX),
            (0, 5),
        ];
        let more = (1..2000u64).map(|k| (k * 7919 % 100_003, k)).chain((1..500).map(|k| (1, k)));
        for (num, den) in cases.into_iter().chain(more) {
            let r = super::super::ratio::Ratio::new(num, den).unwrap();
            assert_eq!(figures(r.value()), r.to_string(), "{num}/{den}");
        }
        assert_eq!(figures(1.2345), "1.23");
        assert_eq!(figures(0.9996), "1.00");
    }

    #[test]
    fn byte_counts_as_typed() {
        assert_eq!(parse_bytes("0"), Some(0));
        assert_eq!(parse_bytes("64k"), Some(65536));
        assert_eq!(parse_bytes("1.00G"), Some(1 << 30));
        assert_eq!(parse_bytes("15.75GiB"), Some(16_911_433_728));
        assert_eq!(parse_bytes(" 12 mib "), Some(12 << 20));
        assert_eq!(parse_bytes("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_bytes("18446744073709551616"), None);
        assert_eq!(parse_bytes("16E"), None); // 2^64
        assert_eq!(parse_bytes(&oom_bytes(7 << 60)), Some(7 << 60));
        // What would be a guess: a fraction of a byte, digit separators, two blanks.
        for text in ["1.5B", "1.5", "1.3K", "15.99eib", "1_000", "1,000", "1,5G", "12  M"] {
            assert_eq!(parse_bytes(text), None, "{text}");
        }
        assert_eq!(parse_bytes(".5G"), None);
        assert_eq!(parse_bytes("1.5.2G"), None);
        assert_eq!(parse_bytes(""), None);
    }

    #[test]
    fn sizes_as_xla_prints_them() {
        assert_eq!(printed_bytes("15.99eib"), Some(18_435_214_858_663_483_146));
        assert_eq!(printed_bytes("8.97G"), Some(9_631_464_161)); // 9631464161.28
                                                                 // Every count XLA prints: the figure reads back within half its last digit.
        for n in [0, 1023, 1 << 20, 123_456_789_012, u64::MAX - 1, u64::MAX] {
            let (printed, n) = (oom_bytes(n), u128::from(n));
            let back = printed_bytes(&printed).unwrap();
            assert!(back.abs_diff(n) <= (1u128 << 60) / 200, "{printed}: {back} for {n}");
        }
        assert_eq!(oom_bytes(u64::MAX), "16.00E");
        assert_eq!(printed_bytes("16.00E"), Some(1 << 64));
    }
}
