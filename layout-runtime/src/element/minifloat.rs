//! XLA's floating-point types narrower than 16 bits (`f8*`, `f6*`, `f4*`) as Rust types that
//! hold their encoding in one byte and convert to and from `f32` exactly as XLA's `ml_dtypes`
//! does: every value is exactly an `f32`, and `from_f32` rounds to nearest, ties to even,
//! with each format's own rules for overflow, NaN and zero (`tests/minifloats.rs` checks all
//! 2^32 `f32` patterns against `ml_dtypes`, through the table in `tests/data/minifloats.txt`).

use core::cmp::Ordering;

/// How a format spends its special encodings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// IEEE-like: the all-ones exponent holds ±infinity (mantissa 0) and NaNs.
    Ieee,
    /// `fn`: no infinity; only `S.1…1.1…1` is NaN, the rest of the top exponent is finite.
    Fn,
    /// `fnuz`: no infinity, no negative zero; the negative-zero encoding `0x80` is the NaN.
    Fnuz,
    /// `f8e8m0fnu`: no sign, no mantissa, no zero: `2^(e-127)`, `0xff` is the NaN.
    Fnu,
    /// `f6*`, `f4*`: no infinity and no NaN; every encoding is finite.
    Finite,
}

/// A narrow float format: exponent and mantissa widths, exponent bias, special values.
#[derive(Clone, Copy)]
struct Format {
    exp: u32,
    man: u32,
    bias: i32,
    kind: Kind,
}

impl Format {
    /// Bits of one encoding (sign included, when there is one).
    const fn width(self) -> u32 {
        match self.kind {
            Kind::Fnu => self.exp,
            _ => 1 + self.exp + self.man,
        }
    }

    const fn mask(self) -> u32 {
        (1 << self.width()) - 1
    }

    /// The largest finite magnitude's encoding (sign bit clear).
    const fn max_code(self) -> u32 {
        let all = (1 << (self.exp + self.man)) - 1;
        match self.kind {
            Kind::Ieee => all - (1 << self.man), // just below the infinity
            Kind::Fn => all - 1,                 // just below the NaN
            Kind::Fnuz | Kind::Finite => all,
            Kind::Fnu => 0xfe,
        }
    }

    /// The encoding of a NaN, as `ml_dtypes` produces it from an `f32` NaN of sign `sign`.
    const fn nan(self, sign: u32) -> u32 {
        let top = self.exp + self.man;
        match self.kind {
            // The all-ones exponent with the quiet (top) mantissa bit.
            Kind::Ieee => {
                (sign << top) | (((1 << self.exp) - 1) << self.man) | (1 << (self.man - 1))
            }
            Kind::Fn => (sign << top) | ((1 << top) - 1),
            Kind::Fnuz => 1 << top,
            Kind::Fnu => 0xff,
            // No NaN: ml_dtypes gives a zero whose sign is the NaN's sign flipped.
            Kind::Finite => (sign ^ 1) << top,
        }
    }

    /// The encoding of ±infinity or of a finite value beyond the largest one.
    const fn overflow(self, sign: u32) -> u32 {
        let top = self.exp + self.man;
        match self.kind {
            Kind::Ieee => (sign << top) | (((1 << self.exp) - 1) << self.man),
            Kind::Fn | Kind::Fnuz | Kind::Fnu => self.nan(sign),
            Kind::Finite => (sign << top) | self.max_code(),
        }
    }

    /// Whether `code` (masked to the width) is a NaN encoding.
    const fn is_nan(self, code: u32) -> bool {
        let top = self.exp + self.man;
        let mag = code & ((1 << top) - 1);
        match self.kind {
            Kind::Ieee => mag > self.max_code() + 1, // beyond the infinity
            Kind::Fn => mag == (1 << top) - 1,
            Kind::Fnuz => code == 1 << top,
            Kind::Fnu => code == 0xff,
            Kind::Finite => false,
        }
    }

    /// Whether `code` is ±infinity.
    const fn is_infinite(self, code: u32) -> bool {
        let mag = code & ((1 << (self.exp + self.man)) - 1);
        matches!(self.kind, Kind::Ieee) && mag == self.max_code() + 1
    }

    /// The `f32` bits of the value `code` encodes (only the low `width` bits are read).
    const fn decode(self, code: u8) -> u32 {
        let code = code as u32 & self.mask();
        if self.is_nan(code) {
            return match self.kind {
                Kind::Fnuz => 0xffc0_0000,
                Kind::Fnu => 0x7fc0_0000,
                _ => ((code >> (self.exp + self.man)) << 31) | 0x7fc0_0000,
            };
        }
        if let Kind::Fnu = self.kind {
            // 2^(code-127); 2^-127 is an f32 subnormal.
            return if code == 0 { 0x0040_0000 } else { code << 23 };
        }
        let sign = (code >> (self.exp + self.man)) << 31;
        if self.is_infinite(code) {
            return sign | 0x7f80_0000;
        }
        let e = (code >> self.man) & ((1 << self.exp) - 1);
        let m = code & ((1 << self.man) - 1);
        // value = n · 2^k, exactly.
        let (n, k) = if e == 0 {
            (m, 1 - self.bias - self.man as i32)
        } else {
            (m | (1 << self.man), e as i32 - self.bias - self.man as i32)
        };
        if n == 0 {
            return sign;
        }
        let top = 31 - n.leading_zeros(); // n's leading bit
        let biased = (k + top as i32 + 127) as u32; // every format's range is normal in f32
        sign | (biased << 23) | ((n << (23 - top)) & 0x7f_ffff)
    }

    /// The encoding nearest to the `f32` with bits `x`, ties to even, as `ml_dtypes` rounds.
    const fn encode(self, x: u32) -> u8 {
        let sign = x >> 31;
        let abs = x & 0x7fff_ffff;
        let code = if abs > 0x7f80_0000 {
            self.nan(sign)
        } else if abs == 0x7f80_0000 {
            self.overflow(sign)
        } else if let Kind::Fnu = self.kind {
            from_f32_fnu(sign, abs)
        } else if abs == 0 {
            self.zero(sign)
        } else {
            self.round_finite(sign, abs)
        };
        code as u8
    }

    const fn zero(self, sign: u32) -> u32 {
        match self.kind {
            Kind::Fnuz => 0, // no negative zero
            _ => sign << (self.exp + self.man),
        }
    }

    /// A finite, non-zero `f32` (its magnitude's bits `abs`) rounded to this format.
    const fn round_finite(self, sign: u32, abs: u32) -> u32 {
        // abs = sig · 2^exp2 with sig < 2^24.
        let (sig, exp2) = if abs >> 23 == 0 {
            (abs, -149)
        } else {
            ((abs & 0x7f_ffff) | 0x80_0000, (abs >> 23) as i32 - 150)
        };
        let emin = 1 - self.bias; // the exponent of the smallest normal
        let ev = exp2 + (31 - sig.leading_zeros()) as i32; // floor(log2(abs))
        let mut et = if ev > emin { ev } else { emin };
        // Keep the bits down to 2^(et - man): drop `shift` low bits of sig, rounding.
        let shift = et - self.man as i32 - exp2;
        let mut n = if shift <= 0 {
            sig << -shift
        } else if shift > 25 {
            0 // below half the smallest step: rounds to zero
        } else {
            let kept = sig >> shift;
            let rest = sig & ((1 << shift) - 1);
            let half = 1 << (shift - 1);
            if rest > half || (rest == half && kept & 1 == 1) {
                kept + 1
            } else {
                kept
            }
        };
        if n == 0 {
            return self.zero(sign);
        }
        if n >> (self.man + 1) != 0 {
            // Rounding carried into the next binade.
            n >>= 1;
            et += 1;
        }
        let code = if n < 1 << self.man {
            n // subnormal (et == emin)
        } else {
            (((et - emin + 1) as u32) << self.man) | (n - (1 << self.man))
        };
        if code > self.max_code() {
            return self.overflow(sign);
        }
        (sign << (self.exp + self.man)) | code
    }
}

/// `f8e8m0fnu` from an `f32` magnitude `abs` (finite) of sign `sign`, as `ml_dtypes` converts:
/// powers of two only, a value of `1.5 · 2^k` or more going up to `2^(k+1)` (ties up); zero and
/// negatives are the NaN. Below the smallest normal `f32`, `(0, 2^-127]` gives `2^-127` and the
/// rest of the subnormals `2^-126`.
const fn from_f32_fnu(sign: u32, abs: u32) -> u32 {
    if sign == 1 || abs == 0 {
        return 0xff;
    }
    if abs <= 0x0040_0000 {
        return 0x00;
    }
    if abs < 0x0080_0000 {
        return 0x01;
    }
    let e = abs >> 23;
    let up = (abs & 0x7f_ffff) >= 0x40_0000;
    let e = if up { e + 1 } else { e };
    if e > 0xfe {
        0xff
    } else {
        e
    }
}

const F8E5M2: Format = Format { exp: 5, man: 2, bias: 15, kind: Kind::Ieee };
const F8E4M3: Format = Format { exp: 4, man: 3, bias: 7, kind: Kind::Ieee };
const F8E4M3FN: Format = Format { exp: 4, man: 3, bias: 7, kind: Kind::Fn };
const F8E4M3B11FNUZ: Format = Format { exp: 4, man: 3, bias: 11, kind: Kind::Fnuz };
const F8E3M4: Format = Format { exp: 3, man: 4, bias: 3, kind: Kind::Ieee };
const F8E5M2FNUZ: Format = Format { exp: 5, man: 2, bias: 16, kind: Kind::Fnuz };
const F8E4M3FNUZ: Format = Format { exp: 4, man: 3, bias: 8, kind: Kind::Fnuz };
const F8E8M0FNU: Format = Format { exp: 8, man: 0, bias: 127, kind: Kind::Fnu };
const F6E3M2FN: Format = Format { exp: 3, man: 2, bias: 3, kind: Kind::Finite };
const F6E2M3FN: Format = Format { exp: 2, man: 3, bias: 1, kind: Kind::Finite };
const F4E2M1FN: Format = Format { exp: 2, man: 1, bias: 1, kind: Kind::Finite };

macro_rules! minifloats {
    ($($(#[$doc:meta])* $name:ident = $format:ident, $one:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// The encoding sits in the low bits of one byte (`to_bits`), as XLA stores the type
        /// one per byte; `from_bits` keeps only those bits. Comparisons are by value, as for
        /// `f32` (NaN is unequal to everything, `-0 == +0`).
        #[derive(Clone, Copy, Default, bytemuck::Zeroable, bytemuck::Pod)]
        #[repr(transparent)]
        pub struct $name(u8);

        impl $name {
            /// The encoding with all bits zero: 0.0 (for `f8e8m0fnu`, which has no zero, 2^-127).
            pub const ZERO: $name = $name(0);
            /// The largest finite value.
            pub const MAX: $name = $name($format.max_code() as u8);
            /// 1.0 (for `f8e8m0fnu`, `2^0`).
            pub const ONE: $name = $name($one);

            /// The value whose encoding is the low bits of `bits`.
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("let one = ", stringify!($name), "::from_bits(", stringify!($one), ");")]
            /// assert_eq!(one.to_f32(), 1.0);
            #[doc = concat!("assert_eq!(one, ", stringify!($name), "::ONE);")]
            /// ```
            pub const fn from_bits(bits: u8) -> $name {
                $name(bits & $format.mask() as u8)
            }

            /// The encoding (in the low bits; the others are zero).
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::ONE.to_bits(), ", stringify!($one), ");")]
            /// ```
            pub const fn to_bits(self) -> u8 {
                self.0 & $format.mask() as u8
            }

            /// The value nearest to `x`, ties to even, with the format's rules for overflow,
            /// NaN and zero (exactly `ml_dtypes`'s conversion).
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::from_f32(1.0).to_bits(), ", stringify!($one), ");")]
            #[doc = concat!("let (big, inf) = (", stringify!($name), "::from_f32(f32::MAX), ", stringify!($name), "::from_f32(f32::INFINITY));")]
            /// assert_eq!(big.to_bits(), inf.to_bits()); // both beyond the largest value
            /// ```
            pub fn from_f32(x: f32) -> $name {
                $name($format.encode(x.to_bits()))
            }

            /// The value, exactly (every value of the type is an `f32`).
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("let max = ", stringify!($name), "::MAX.to_f32();")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::from_f32(max), ", stringify!($name), "::MAX);")]
            /// ```
            pub fn to_f32(self) -> f32 {
                f32::from_bits($format.decode(self.0))
            }

            /// Whether the value is NaN.
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("assert!(!", stringify!($name), "::ONE.is_nan());")]
            /// ```
            pub const fn is_nan(self) -> bool {
                $format.is_nan(self.0 as u32 & $format.mask())
            }
        }

        impl From<$name> for f32 {
            fn from(x: $name) -> f32 {
                x.to_f32()
            }
        }

        impl From<$name> for f64 {
            fn from(x: $name) -> f64 {
                f64::from(x.to_f32())
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &$name) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &$name) -> Option<Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        fmt_as_value!($name, to_f32);

        impl super::Float for $name {
            fn from_f32(x: f32) -> $name {
                $name::from_f32(x)
            }

            fn to_f32(self) -> f32 {
                $name::to_f32(self)
            }
        }
    )*};
}

minifloats! {
    /// XLA's `f8e5m2`: 5 exponent bits, 2 mantissa bits, bias 15, with infinities and NaNs
    /// (IEEE-like).
    F8e5m2 = F8E5M2, 0x3c;
    /// XLA's `f8e4m3`: 4 exponent bits, 3 mantissa bits, bias 7, with infinities and NaNs
    /// (IEEE-like).
    F8e4m3 = F8E4M3, 0x38;
    /// XLA's `f8e4m3fn`: 4 exponent bits, 3 mantissa bits, bias 7, finite (no infinity; only
    /// `S.1111.111` is NaN). Overflow gives NaN.
    F8e4m3fn = F8E4M3FN, 0x38;
    /// XLA's `f8e4m3b11fnuz`: 4 exponent bits, 3 mantissa bits, bias 11, finite, unsigned
    /// zero (the negative-zero encoding `0x80` is the NaN).
    F8e4m3b11fnuz = F8E4M3B11FNUZ, 0x58;
    /// XLA's `f8e3m4`: 3 exponent bits, 4 mantissa bits, bias 3, with infinities and NaNs
    /// (IEEE-like).
    F8e3m4 = F8E3M4, 0x30;
    /// XLA's `f8e5m2fnuz`: 5 exponent bits, 2 mantissa bits, bias 16, finite, unsigned zero
    /// (`0x80` is the NaN).
    F8e5m2fnuz = F8E5M2FNUZ, 0x40;
    /// XLA's `f8e4m3fnuz`: 4 exponent bits, 3 mantissa bits, bias 8, finite, unsigned zero
    /// (`0x80` is the NaN).
    F8e4m3fnuz = F8E4M3FNUZ, 0x40;
    /// XLA's `f8e8m0fnu`: an 8-bit exponent, `2^(e-127)`, no sign, no zero, `0xff` is the
    /// NaN (the scale type of microscaling formats).
    F8e8m0fnu = F8E8M0FNU, 0x7f;
    /// XLA's `f6e3m2fn`: 6 bits, 3 exponent bits, 2 mantissa bits, bias 3; no infinity and no
    /// NaN (overflow saturates).
    F6e3m2fn = F6E3M2FN, 0x0c;
    /// XLA's `f6e2m3fn`: 6 bits, 2 exponent bits, 3 mantissa bits, bias 1; no infinity and no
    /// NaN (overflow saturates).
    F6e2m3fn = F6E2M3FN, 0x08;
    /// XLA's `f4e2m1fn`: 4 bits, 2 exponent bits, 1 mantissa bit, bias 1; no infinity and no
    /// NaN (overflow saturates).
    F4e2m1fn = F4E2M1FN, 0x02;
}
