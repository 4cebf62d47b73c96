//! XLA's integer types narrower than a byte (`s4`, `u4`, `s2`, `u2`, `s1`, `u1`) as Rust types
//! holding one value in the low bits of a byte, as XLA (`ml_dtypes`) stores them one per byte:
//! `s4` −1 is the byte `0x0f`. Reading looks at the low bits only (a byte with other bits set
//! reads as its low bits, sign-extended for the signed types), so any byte is a valid value.

use core::cmp::Ordering;
use core::hash::{Hash, Hasher};

macro_rules! narrow_ints {
    ($($(#[$doc:meta])* $name:ident: $bits:literal bits, $prim:ident, $min:literal..=$max:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// Comparisons, hashing and formatting are by value.
        #[derive(Clone, Copy, Default, bytemuck::Zeroable, bytemuck::Pod)]
        #[repr(transparent)]
        pub struct $name(u8);

        impl $name {
            /// The number of bits of a value.
            pub const BITS: u32 = $bits;
            /// The smallest value.
            pub const MIN: $name = $name::wrapping($min);
            /// The largest value.
            pub const MAX: $name = $name::wrapping($max);
            /// Zero.
            pub const ZERO: $name = $name(0);

            /// `value` when it is in range, else `None`.
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::new(", stringify!($max), ").map(|x| x.get()), Some(", stringify!($max), "));")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::new(", stringify!($max), " + 1), None);")]
            /// ```
            #[allow(unused_comparisons)] // `value >= 0` for the unsigned types
            pub const fn new(value: $prim) -> Option<$name> {
                if value >= $min && value <= $max {
                    Some($name::wrapping(value))
                } else {
                    None
                }
            }

            /// The value with the low bits of `value` (two's complement wrap-around).
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::wrapping(", stringify!($max), " + 1), ", stringify!($name), "::MIN);")]
            /// ```
            pub const fn wrapping(value: $prim) -> $name {
                $name(value as u8 & ((1 << $bits) - 1))
            }

            /// The value whose encoding is the low bits of `bits`.
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::from_bits(0xff).to_bits(), (1 << ", stringify!($bits), ") - 1);")]
            /// ```
            pub const fn from_bits(bits: u8) -> $name {
                $name(bits & ((1 << $bits) - 1))
            }

            /// The encoding: the value's low bits, the others zero.
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::ZERO.to_bits(), 0);")]
            /// ```
            pub const fn to_bits(self) -> u8 {
                self.0 & ((1 << $bits) - 1)
            }

            /// The value.
            ///
            /// ```
            #[doc = concat!("use layout_runtime::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::MIN.get(), ", stringify!($min), ");")]
            /// ```
            pub const fn get(self) -> $prim {
                // Shift the value's top bit to the byte's top, then back: arithmetic for the
                // signed types (sign extension), logical for the unsigned ones.
                ((self.0 << (8 - $bits)) as $prim) >> (8 - $bits)
            }
        }

        impl From<$name> for $prim {
            fn from(x: $name) -> $prim {
                x.get()
            }
        }

        impl From<$name> for i32 {
            fn from(x: $name) -> i32 {
                i32::from(x.get())
            }
        }

        impl TryFrom<$prim> for $name {
            type Error = super::OutOfRange;

            fn try_from(value: $prim) -> Result<$name, super::OutOfRange> {
                $name::new(value).ok_or(super::OutOfRange { bits: $bits })
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &$name) -> bool {
                self.get() == other.get()
            }
        }

        impl Eq for $name {}

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &$name) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Ord for $name {
            fn cmp(&self, other: &$name) -> Ordering {
                self.get().cmp(&other.get())
            }
        }

        impl Hash for $name {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.get().hash(state);
            }
        }

        fmt_as_value!($name, get);
    )*};
}

narrow_ints! {
    /// XLA's `s4`: a signed 4-bit integer, −8 to 7.
    S4: 4 bits, i8, -8..=7;
    /// XLA's `u4`: an unsigned 4-bit integer, 0 to 15.
    U4: 4 bits, u8, 0..=15;
    /// XLA's `s2`: a signed 2-bit integer, −2 to 1.
    S2: 2 bits, i8, -2..=1;
    /// XLA's `u2`: an unsigned 2-bit integer, 0 to 3.
    U2: 2 bits, u8, 0..=3;
    /// XLA's `s1`: a signed 1-bit integer, −1 or 0.
    S1: 1 bits, i8, -1..=0;
    /// XLA's `u1`: an unsigned 1-bit integer, 0 or 1.
    U1: 1 bits, u8, 0..=1;
}
