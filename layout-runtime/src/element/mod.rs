//! Rust types for XLA elements: which slice item types hold which element types, the one
//! typed element per XLA type that static layouts store ([`elem`]), conversions from `f32`
//! ([`Float`]), and the packing of sub-byte values ([`SubByte`]).

/// `Debug` and `Display` of `$ty` as those of its value `self.$value()`.
macro_rules! fmt_as_value {
    ($ty:ident, $value:ident) => {
        impl core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Debug::fmt(&self.$value(), f)
            }
        }

        impl core::fmt::Display for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(&self.$value(), f)
            }
        }
    };
}

mod int;
mod minifloat;

use core::fmt;

pub use half::{bf16, f16};
pub use int::{S1, S2, S4, U1, U2, U4};
pub use minifloat::{
    F4e2m1fn, F6e2m3fn, F6e3m2fn, F8e3m4, F8e4m3, F8e4m3b11fnuz, F8e4m3fn, F8e4m3fnuz, F8e5m2,
    F8e5m2fnuz, F8e8m0fnu,
};

use crate::PrimitiveType;

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that can hold the elements of an XLA array, one per slice item.
///
/// Every XLA element type has one typed element, named after it in [`elem`]: `f32`, `f64`,
/// `i8`..`i64`, `u8`..`u64`, `bool` (`pred`), `[f32; 2]` (`c64`), `[f64; 2]` (`c128`),
/// [`bf16`] and [`f16`](struct@f16) (from the `half` crate), the narrow floats [`F8e4m3fn`] and its
/// siblings, and the narrow integers [`S4`], [`U4`], [`S2`], [`U2`], [`S1`], [`U1`]. The unsigned
/// integers also hold the raw bits of the types of their width stored a byte or two each
/// (`u8` for the 8-bit floats and the unpacked sub-byte types, `u16` for `f16` and `bf16`),
/// for run-time views over raw buffers.
///
/// ```
/// use layout_runtime::{bf16, Element, PrimitiveType};
/// assert!(bf16::holds(PrimitiveType::Bf16));
/// assert!(u16::holds(PrimitiveType::Bf16)); // raw bits
/// assert!(!i32::holds(PrimitiveType::U32));
/// assert_eq!(<[f32; 2]>::ZERO, [0.0, 0.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a Rust type for XLA elements",
    label = "not an element type",
    note = "XLA's element types are `bool`, `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, `[f32; 2]`, \
            `[f64; 2]`, `bf16`, `f16`, and the narrow types `F8e4m3fn`.. and `S4`, `U4`..; \
            `xlayout::elem::<name>` is the one for each XLA type name"
)]
pub trait Element: Copy + Send + Sync + 'static + bytemuck::NoUninit + sealed::Sealed {
    /// All bits zero: what padding holds and what fresh storage starts as.
    const ZERO: Self;

    /// The raw bits of one element, as unsigned integers of its width (`u16` for `bf16`,
    /// `u8` for `bool`, `[u32; 2]` for `[f32; 2]`): what a `bits` view of a buffer shows.
    type Bits: bytemuck::Pod + fmt::Debug + PartialEq + Eq;

    /// Whether a slice of `Self` can hold an array of `t` stored at its natural width.
    fn holds(t: PrimitiveType) -> bool;
}

macro_rules! elements {
    ($($ty:ty = $zero:expr, $bits:ty => $($t:ident)|+;)*) => {$(
        impl sealed::Sealed for $ty {}
        impl Element for $ty {
            const ZERO: Self = $zero;
            type Bits = $bits;
            fn holds(t: PrimitiveType) -> bool {
                matches!(t, $(PrimitiveType::$t)|+)
            }
        }
    )*};
}

elements! {
    f32 = 0.0, u32 => F32;
    f64 = 0.0, u64 => F64;
    i8 = 0, u8 => S8;
    i16 = 0, u16 => S16;
    i32 = 0, u32 => S32;
    i64 = 0, u64 => S64;
    u8 = 0, u8 => U8 | F8e5m2 | F8e4m3 | F8e4m3fn | F8e4m3b11fnuz | F8e3m4 | F8e5m2fnuz
        | F8e4m3fnuz | F8e8m0fnu | F6e3m2fn | F6e2m3fn | S4 | U4 | S2 | U2 | S1 | U1 | F4e2m1fn;
    u16 = 0, u16 => U16 | F16 | Bf16;
    u32 = 0, u32 => U32;
    u64 = 0, u64 => U64;
    bool = false, u8 => Pred;
    [f32; 2] = [0.0; 2], [u32; 2] => C64;
    [f64; 2] = [0.0; 2], [u64; 2] => C128;
    f16 = f16::ZERO, u16 => F16;
    bf16 = bf16::ZERO, u16 => Bf16;
    S4 = S4::ZERO, u8 => S4;
    U4 = U4::ZERO, u8 => U4;
    S2 = S2::ZERO, u8 => S2;
    U2 = U2::ZERO, u8 => U2;
    S1 = S1::ZERO, u8 => S1;
    U1 = U1::ZERO, u8 => U1;
    F8e5m2 = F8e5m2::ZERO, u8 => F8e5m2;
    F8e4m3 = F8e4m3::ZERO, u8 => F8e4m3;
    F8e4m3fn = F8e4m3fn::ZERO, u8 => F8e4m3fn;
    F8e4m3b11fnuz = F8e4m3b11fnuz::ZERO, u8 => F8e4m3b11fnuz;
    F8e3m4 = F8e3m4::ZERO, u8 => F8e3m4;
    F8e5m2fnuz = F8e5m2fnuz::ZERO, u8 => F8e5m2fnuz;
    F8e4m3fnuz = F8e4m3fnuz::ZERO, u8 => F8e4m3fnuz;
    F8e8m0fnu = F8e8m0fnu::ZERO, u8 => F8e8m0fnu;
    F6e3m2fn = F6e3m2fn::ZERO, u8 => F6e3m2fn;
    F6e2m3fn = F6e2m3fn::ZERO, u8 => F6e2m3fn;
    F4e2m1fn = F4e2m1fn::ZERO, u8 => F4e2m1fn;
}

/// Floating-point elements: the conversions from and to `f32` that a kernel writes literals
/// and reads results with. `from_f32` rounds to nearest, ties to even, as XLA converts
/// (`ml_dtypes` for the narrow types, `half` for `bf16` and `f16`); `to_f32` is exact for
/// every type but `f64`.
///
/// ```
/// use layout_runtime::{bf16, Float, F8e4m3fn};
/// fn one<T: Float>() -> T {
///     T::from_f32(1.0)
/// }
/// assert_eq!(one::<bf16>().to_bits(), 0x3f80);
/// assert_eq!(one::<F8e4m3fn>().to_bits(), 0x38);
/// assert_eq!(bf16::from_f32(3.0).to_f32(), 3.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a floating-point element type",
    label = "no conversion from `f32`",
    note = "`from_f32`/`to_f32` are for `f32`, `f64`, `bf16`, `f16` and the `F8*`/`F6*`/`F4*` \
            types; integer elements take integers (`7i32`, `S4::new(-3)`)"
)]
pub trait Float: Element + PartialOrd {
    /// The value nearest to `x` (ties to even).
    fn from_f32(x: f32) -> Self;
    /// The value as an `f32` (rounded to nearest for `f64`, exact for every other type).
    fn to_f32(self) -> f32;
}

impl Float for f32 {
    fn from_f32(x: f32) -> f32 {
        x
    }

    fn to_f32(self) -> f32 {
        self
    }
}

impl Float for f64 {
    fn from_f32(x: f32) -> f64 {
        f64::from(x)
    }

    fn to_f32(self) -> f32 {
        // Rust's `as` rounds f64 to the nearest f32, ties to even.
        self as f32
    }
}

impl Float for bf16 {
    fn from_f32(x: f32) -> bf16 {
        bf16::from_f32(x)
    }

    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
}

impl Float for f16 {
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }

    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
}

/// Elements narrower than a byte, which a layout with `E(n)` (n = [`SubByte::BITS`]) packs
/// `8 / n` to a byte (or, for 6-bit types, across bytes): `pred` (`bool`), [`S4`], [`U4`],
/// [`S2`], [`U2`], [`S1`], [`U1`], [`F4e2m1fn`], [`F6e3m2fn`], [`F6e2m3fn`].
///
/// ```
/// use layout_runtime::{SubByte, S4};
/// assert_eq!(S4::BITS, 4);
/// assert_eq!(S4::from_packed(0b1111).get(), -1); // sign-extended
/// assert_eq!(S4::new(-2).unwrap().to_packed(), 0b1110);
/// assert!(bool::from_packed(1));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element that packs below a byte",
    note = "packed elements are `bool` (`pred`), `S4`, `U4`, `S2`, `U2`, `S1`, `U1`, `F4e2m1fn`, \
            `F6e3m2fn` and `F6e2m3fn`"
)]
pub trait SubByte: Element + PartialEq + fmt::Debug {
    /// Bits of one packed element.
    const BITS: u32;
    /// The element whose encoding is the low [`SubByte::BITS`] bits of `bits`.
    fn from_packed(bits: u8) -> Self;
    /// The encoding, in the low [`SubByte::BITS`] bits (the others zero).
    fn to_packed(self) -> u8;
}

impl SubByte for bool {
    const BITS: u32 = 1;

    fn from_packed(bits: u8) -> bool {
        bits & 1 == 1
    }

    fn to_packed(self) -> u8 {
        u8::from(self)
    }
}

macro_rules! sub_byte {
    ($($ty:ident = $bits:literal;)*) => {$(
        impl SubByte for $ty {
            const BITS: u32 = $bits;

            fn from_packed(bits: u8) -> $ty {
                $ty::from_bits(bits)
            }

            fn to_packed(self) -> u8 {
                self.to_bits()
            }
        }
    )*};
}

sub_byte! {
    S4 = 4;
    U4 = 4;
    S2 = 2;
    U2 = 2;
    S1 = 1;
    U1 = 1;
    F4e2m1fn = 4;
    F6e3m2fn = 6;
    F6e2m3fn = 6;
}

/// The width `n` at which a layout with `E(n)` packs `t`'s elements below a byte, each read
/// and written as its [`SubByte`] element: XLA's bit width for `pred` and the sub-byte types,
/// 6 for the `f6` types (XLA reports 8 bits for them and packs them only with `E(6)`);
/// `None` for the types of a byte or more.
///
/// ```
/// use layout_runtime::{element_packed_bits, PrimitiveType};
/// assert_eq!(element_packed_bits(PrimitiveType::S4), Some(4));
/// assert_eq!(element_packed_bits(PrimitiveType::F6e2m3fn), Some(6));
/// assert_eq!(element_packed_bits(PrimitiveType::S8), None);
/// ```
pub const fn element_packed_bits(t: PrimitiveType) -> Option<u32> {
    match t {
        PrimitiveType::F6e3m2fn | PrimitiveType::F6e2m3fn => Some(6),
        PrimitiveType::Pred => Some(1),
        t if t.is_sub_byte() => Some(t.bit_width()),
        _ => None,
    }
}

/// A value outside a narrow integer type's range (see [`S4::new`] and `TryFrom`).
///
/// ```
/// use layout_runtime::S4;
/// let e = S4::try_from(8i8).unwrap_err();
/// assert_eq!(e.to_string(), "the value does not fit in 4 bits");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutOfRange {
    bits: u32,
}

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the value does not fit in {} bits", self.bits)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for OutOfRange {}

/// The typed element that static layouts ([`Buffer`](crate::fixed::Buffer)) store for each
/// XLA type, named after it: `elem::bf16` is what a `bf16[...]` buffer holds.
///
/// Types with a Rust equivalent map to it (`s32` → `i32`, `pred` → `bool`, `c64` →
/// `[f32; 2]`, `bf16` → `half::bf16`); the narrow types map to this crate's
/// [`F8e4m3fn`].., [`S4`].. types. Raw bits stay available through a buffer's `bits` view.
///
/// ```
/// use layout_runtime::elem;
/// let x: elem::s32 = -1i32;
/// let y = elem::f8e4m3fn::from_f32(1.0);
/// let z: elem::c64 = [1.0, 0.0];
/// assert_eq!(y.to_bits(), 0x38);
/// assert_eq!(elem::bf16::from_f32(1.0).to_bits(), 0x3f80);
/// # let _ = (x, z);
/// ```
#[allow(non_camel_case_types)]
pub mod elem {
    /// `pred`.
    pub type pred = bool;
    /// `s8`.
    pub type s8 = i8;
    /// `s16`.
    pub type s16 = i16;
    /// `s32`.
    pub type s32 = i32;
    /// `s64`.
    pub type s64 = i64;
    /// `u8`.
    pub type u8 = core::primitive::u8;
    /// `u16`.
    pub type u16 = core::primitive::u16;
    /// `u32`.
    pub type u32 = core::primitive::u32;
    /// `u64`.
    pub type u64 = core::primitive::u64;
    /// `f32`.
    pub type f32 = core::primitive::f32;
    /// `f64`.
    pub type f64 = core::primitive::f64;
    /// `c64`: real and imaginary parts.
    pub type c64 = [core::primitive::f32; 2];
    /// `c128`: real and imaginary parts.
    pub type c128 = [core::primitive::f64; 2];
    /// `f16`: IEEE half precision.
    pub type f16 = super::f16;
    /// `bf16`: bfloat16.
    pub type bf16 = super::bf16;
    /// `s4`.
    pub type s4 = super::S4;
    /// `u4`.
    pub type u4 = super::U4;
    /// `s2`.
    pub type s2 = super::S2;
    /// `u2`.
    pub type u2 = super::U2;
    /// `s1`.
    pub type s1 = super::S1;
    /// `u1`.
    pub type u1 = super::U1;
    /// `f8e5m2`.
    pub type f8e5m2 = super::F8e5m2;
    /// `f8e4m3`.
    pub type f8e4m3 = super::F8e4m3;
    /// `f8e4m3fn`.
    pub type f8e4m3fn = super::F8e4m3fn;
    /// `f8e4m3b11fnuz`.
    pub type f8e4m3b11fnuz = super::F8e4m3b11fnuz;
    /// `f8e3m4`.
    pub type f8e3m4 = super::F8e3m4;
    /// `f8e5m2fnuz`.
    pub type f8e5m2fnuz = super::F8e5m2fnuz;
    /// `f8e4m3fnuz`.
    pub type f8e4m3fnuz = super::F8e4m3fnuz;
    /// `f8e8m0fnu`.
    pub type f8e8m0fnu = super::F8e8m0fnu;
    /// `f6e3m2fn`.
    pub type f6e3m2fn = super::F6e3m2fn;
    /// `f6e2m3fn`.
    pub type f6e2m3fn = super::F6e2m3fn;
    /// `f4e2m1fn`.
    pub type f4e2m1fn = super::F4e2m1fn;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each alias of `elem` holds its own type and no other (the macro relies on it).
    #[test]
    fn every_alias_holds_its_type() {
        fn holds<T: Element>(t: PrimitiveType) -> bool {
            T::holds(t)
        }
        fn count<T: Element>() -> usize {
            PrimitiveType::ALL.iter().filter(|&&t| T::holds(t)).count()
        }
        macro_rules! check {
            ($($name:ident => $t:ident,)*) => {$(
                assert!(holds::<elem::$name>(PrimitiveType::$t), stringify!($name));
                assert_eq!(PrimitiveType::$t.name(), stringify!($name));
                // The raw-bits integers hold more; every other alias holds its type only.
                if !matches!(stringify!($name), "u8" | "u16") {
                    assert_eq!(count::<elem::$name>(), 1, stringify!($name));
                }
                assert_eq!(
                    core::mem::size_of::<elem::$name>(),
                    core::mem::size_of::<<elem::$name as Element>::Bits>(),
                    stringify!($name)
                );
            )*};
        }
        check! {
            pred => Pred, s8 => S8, s16 => S16, s32 => S32, s64 => S64, u8 => U8, u16 => U16,
            u32 => U32, u64 => U64, f32 => F32, f64 => F64, c64 => C64, c128 => C128, f16 => F16,
            bf16 => Bf16, s4 => S4, u4 => U4, s2 => S2, u2 => U2, s1 => S1, u1 => U1,
            f8e5m2 => F8e5m2, f8e4m3 => F8e4m3, f8e4m3fn => F8e4m3fn,
            f8e4m3b11fnuz => F8e4m3b11fnuz, f8e3m4 => F8e3m4, f8e5m2fnuz => F8e5m2fnuz,
            f8e4m3fnuz => F8e4m3fnuz, f8e8m0fnu => F8e8m0fnu, f6e3m2fn => F6e3m2fn,
            f6e2m3fn => F6e2m3fn, f4e2m1fn => F4e2m1fn,
        }
        // Every array type has an alias: 32 listed above of the 32 array types.
        assert_eq!(PrimitiveType::ALL.iter().filter(|t| t.is_array_type()).count(), 32);
    }

    /// Each packed type's width is `element_packed_bits` of its XLA type, and no other type
    /// packs.
    #[test]
    fn sub_byte_widths_are_the_packed_bits() {
        macro_rules! check {
            ($($ty:ty => $t:ident,)*) => {$(
                assert_eq!(Some(<$ty as SubByte>::BITS), element_packed_bits(PrimitiveType::$t));
            )*};
        }
        let packable = PrimitiveType::ALL.iter().filter(|&&t| element_packed_bits(t).is_some());
        assert_eq!(packable.count(), 10);
        check! {
            bool => Pred, S4 => S4, U4 => U4, S2 => S2, U2 => U2, S1 => S1, U1 => U1,
            F4e2m1fn => F4e2m1fn, F6e3m2fn => F6e3m2fn, F6e2m3fn => F6e2m3fn,
        }
    }

    #[test]
    fn narrow_integers_sign_extend_and_wrap() {
        for v in -8..=7i8 {
            let x = S4::new(v).unwrap();
            assert_eq!((x.get(), i8::from(x), i32::from(x)), (v, v, i32::from(v)));
            assert_eq!(x.to_bits(), v as u8 & 0xf);
            assert_eq!(S4::from_bits(x.to_bits() | 0xf0), x); // high bits are not read
            assert_eq!(S4::wrapping(v + 16), x);
        }
        assert_eq!((S4::new(8), S4::new(-9)), (None, None));
        assert_eq!((S2::MIN.get(), S2::MAX.get(), S1::MIN.get(), S1::MAX.get()), (-2, 1, -1, 0));
        assert_eq!((U2::MAX.get(), U1::MAX.get(), U4::MAX.get()), (3, 1, 15));
        assert_eq!(U4::try_from(16u8), Err(OutOfRange { bits: 4 }));
        assert!(S2::new(-1).unwrap() < S2::new(1).unwrap());
        assert_eq!(alloc::format!("{:?} {}", S4::MIN, U2::MAX), "-8 3");
    }
}
