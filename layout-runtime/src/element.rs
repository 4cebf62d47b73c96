//! Rust types for XLA elements: which slice item types hold which element types, and the one
//! type per element type that static layouts store.

use crate::PrimitiveType;

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that can hold the elements of an XLA array, one per slice item.
///
/// `f32`, `f64`, `i8`..`i64`, `u8`..`u64`, `bool` (for `pred`), `[f32; 2]` (`c64`),
/// `[f64; 2]` (`c128`), and with the `half` feature `half::f16` and `half::bf16`. The
/// unsigned integers also hold the raw bits of the types that have no Rust equivalent of
/// their width: `u8` for the 8-bit floats (`f8*`, `f6*` stored a byte each) and the sub-byte
/// types stored a byte each (no `E(n)`), `u16` for `f16` and `bf16`.
///
/// ```
/// use layout_runtime::{Element, PrimitiveType};
/// assert!(f32::holds(PrimitiveType::F32));
/// assert!(u16::holds(PrimitiveType::Bf16)); // raw bits
/// assert!(!i32::holds(PrimitiveType::U32));
/// assert_eq!(<[f32; 2]>::ZERO, [0.0, 0.0]);
/// ```
pub trait Element: Copy + Send + Sync + 'static + sealed::Sealed {
    /// All bits zero: what padding holds and what fresh storage starts as.
    const ZERO: Self;

    /// Whether a slice of `Self` can hold an array of `t` stored at its natural width.
    fn holds(t: PrimitiveType) -> bool;
}

macro_rules! elements {
    ($($ty:ty = $zero:expr => $($t:ident)|+;)*) => {$(
        impl sealed::Sealed for $ty {}
        impl Element for $ty {
            const ZERO: Self = $zero;
            fn holds(t: PrimitiveType) -> bool {
                matches!(t, $(PrimitiveType::$t)|+)
            }
        }
    )*};
}

elements! {
    f32 = 0.0 => F32;
    f64 = 0.0 => F64;
    i8 = 0 => S8;
    i16 = 0 => S16;
    i32 = 0 => S32;
    i64 = 0 => S64;
    u8 = 0 => U8 | F8e5m2 | F8e4m3 | F8e4m3fn | F8e4m3b11fnuz | F8e3m4 | F8e5m2fnuz | F8e4m3fnuz
        | F8e8m0fnu | F6e3m2fn | F6e2m3fn | S4 | U4 | S2 | U2 | S1 | U1 | F4e2m1fn;
    u16 = 0 => U16 | F16 | Bf16;
    u32 = 0 => U32;
    u64 = 0 => U64;
    bool = false => Pred;
    [f32; 2] = [0.0; 2] => C64;
    [f64; 2] = [0.0; 2] => C128;
}

#[cfg(feature = "half")]
elements! {
    half::f16 = half::f16::ZERO => F16;
    half::bf16 = half::bf16::ZERO => Bf16;
}

/// The element type that typed static storage ([`Buffer`](crate::fixed::Buffer)) uses for
/// each XLA type, named after it: `elem::bf16` is what a `bf16[...]` buffer holds.
///
/// Types with a Rust equivalent map to it (`s32` → `i32`, `pred` → `bool`, `c64` →
/// `[f32; 2]`); `f16` and `bf16` map to their raw bits (`u16`), whatever the features (so that
/// enabling `half` anywhere in a build cannot change a type under someone's code); every other
/// 8-bit or smaller type (stored a byte each when the layout has no `E(n)`) maps to its raw
/// byte, `u8`.
///
/// ```
/// use layout_runtime::elem;
/// let x: elem::s32 = -1i32;
/// let y: elem::f8e4m3fn = 0x38u8; // raw bits
/// let z: elem::c64 = [1.0, 0.0];
/// # let _ = (x, y, z);
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
    /// `f16`: raw bits (`half::f16::from_bits` reads them).
    pub type f16 = core::primitive::u16;
    /// `bf16`: raw bits (`half::bf16::from_bits` reads them).
    pub type bf16 = core::primitive::u16;
    /// `s4`, one per byte: raw bits.
    pub type s4 = core::primitive::u8;
    /// `u4`, one per byte: raw bits.
    pub type u4 = core::primitive::u8;
    /// `s2`, one per byte: raw bits.
    pub type s2 = core::primitive::u8;
    /// `u2`, one per byte: raw bits.
    pub type u2 = core::primitive::u8;
    /// `s1`, one per byte: raw bits.
    pub type s1 = core::primitive::u8;
    /// `u1`, one per byte: raw bits.
    pub type u1 = core::primitive::u8;
    /// `f8e5m2`: raw bits.
    pub type f8e5m2 = core::primitive::u8;
    /// `f8e4m3`: raw bits.
    pub type f8e4m3 = core::primitive::u8;
    /// `f8e4m3fn`: raw bits.
    pub type f8e4m3fn = core::primitive::u8;
    /// `f8e4m3b11fnuz`: raw bits.
    pub type f8e4m3b11fnuz = core::primitive::u8;
    /// `f8e3m4`: raw bits.
    pub type f8e3m4 = core::primitive::u8;
    /// `f8e5m2fnuz`: raw bits.
    pub type f8e5m2fnuz = core::primitive::u8;
    /// `f8e4m3fnuz`: raw bits.
    pub type f8e4m3fnuz = core::primitive::u8;
    /// `f8e8m0fnu`: raw bits.
    pub type f8e8m0fnu = core::primitive::u8;
    /// `f6e3m2fn`, one per byte: raw bits.
    pub type f6e3m2fn = core::primitive::u8;
    /// `f6e2m3fn`, one per byte: raw bits.
    pub type f6e2m3fn = core::primitive::u8;
    /// `f4e2m1fn`, one per byte: raw bits.
    pub type f4e2m1fn = core::primitive::u8;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each alias of `elem` holds its own type (the macro relies on it).
    #[test]
    fn every_alias_holds_its_type() {
        fn holds<T: Element>(t: PrimitiveType) -> bool {
            T::holds(t)
        }
        macro_rules! check {
            ($($name:ident => $t:ident,)*) => {$(
                assert!(holds::<elem::$name>(PrimitiveType::$t), stringify!($name));
                assert_eq!(PrimitiveType::$t.name(), stringify!($name));
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
}
