//! XLA's element types (`xla/xla_data.proto`, `xla/primitive_util.cc`).

use core::fmt;

macro_rules! primitive_types {
    ($( $(#[$doc:meta])* $variant:ident = $value:literal, $name:literal, $bits:expr; )*) => {
        /// An XLA element type (`PrimitiveType` in `xla/xla_data.proto`).
        ///
        /// The text name is the lower-cased enum name, except `OPAQUE_TYPE`, written `opaque`.
        /// `Tuple` and `Buffer` exist for completeness: the text never names them, it writes
        /// `( ... )` and `b( ... )`.
        ///
        /// ```
        /// use layout_runtime::PrimitiveType;
        /// let t: PrimitiveType = "bf16".parse().unwrap();
        /// assert_eq!(t, PrimitiveType::Bf16);
        /// assert_eq!((t.bit_width(), t.byte_width(), t.enum_value()), (16, 2, 16));
        /// assert_eq!(PrimitiveType::S4.byte_width(), 1); // one byte each unless `E(4)`
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum PrimitiveType {
            $( $(#[$doc])* $variant, )*
        }

        impl PrimitiveType {
            /// Every element type, in enum-value order.
            pub const ALL: &'static [PrimitiveType] = &[$(PrimitiveType::$variant,)*];

            /// The name XLA prints (`f32`, `bf16`, `opaque`, ...).
            ///
            /// ```
            /// assert_eq!(layout_runtime::PrimitiveType::F8e4m3fn.name(), "f8e4m3fn");
            /// ```
            pub const fn name(self) -> &'static str {
                match self { $(PrimitiveType::$variant => $name,)* }
            }

            /// The `PrimitiveType` enum value of `xla_data.proto`.
            ///
            /// ```
            /// assert_eq!(layout_runtime::PrimitiveType::F32.enum_value(), 11);
            /// ```
            pub const fn enum_value(self) -> i32 {
                match self { $(PrimitiveType::$variant => $value,)* }
            }

            /// The type with this enum value, if there is one.
            ///
            /// ```
            /// use layout_runtime::PrimitiveType;
            /// assert_eq!(PrimitiveType::from_enum_value(16), Some(PrimitiveType::Bf16));
            /// assert_eq!(PrimitiveType::from_enum_value(0), None);
            /// ```
            pub const fn from_enum_value(value: i32) -> Option<PrimitiveType> {
                match value { $($value => Some(PrimitiveType::$variant),)* _ => None }
            }

            /// `primitive_util::BitWidth`: bits of one value; 0 for the non-array types.
            ///
            /// ```
            /// use layout_runtime::PrimitiveType;
            /// assert_eq!(PrimitiveType::Pred.bit_width(), 1);
            /// assert_eq!(PrimitiveType::F6e3m2fn.bit_width(), 8); // as XLA reports it
            /// ```
            pub const fn bit_width(self) -> u32 {
                match self { $(PrimitiveType::$variant => $bits,)* }
            }
        }

        /// Looks a type up by the name XLA prints; only array element types and `token`,
        /// `opaque` have names in the text.
        fn lookup(name: &str) -> Option<PrimitiveType> {
            match name {
                $($name => Some(PrimitiveType::$variant),)*
                _ => None,
            }
        }
    };
}

primitive_types! {
    /// `pred`: boolean, one byte each unless the layout says `E(1)`.
    Pred = 1, "pred", 1;
    /// `s8`: signed 8-bit integer.
    S8 = 2, "s8", 8;
    /// `s16`: signed 16-bit integer.
    S16 = 3, "s16", 16;
    /// `s32`: signed 32-bit integer.
    S32 = 4, "s32", 32;
    /// `s64`: signed 64-bit integer.
    S64 = 5, "s64", 64;
    /// `u8`: unsigned 8-bit integer.
    U8 = 6, "u8", 8;
    /// `u16`: unsigned 16-bit integer.
    U16 = 7, "u16", 16;
    /// `u32`: unsigned 32-bit integer.
    U32 = 8, "u32", 32;
    /// `u64`: unsigned 64-bit integer.
    U64 = 9, "u64", 64;
    /// `f16`: IEEE half precision.
    F16 = 10, "f16", 16;
    /// `f32`: IEEE single precision.
    F32 = 11, "f32", 32;
    /// `f64`: IEEE double precision.
    F64 = 12, "f64", 64;
    /// Tuple: written `( ... )`, never by name.
    Tuple = 13, "tuple", 0;
    /// `opaque` (`OPAQUE_TYPE`): only as `opaque[]`.
    Opaque = 14, "opaque", 0;
    /// `c64`: complex of two `f32`.
    C64 = 15, "c64", 64;
    /// `bf16`: bfloat16.
    Bf16 = 16, "bf16", 16;
    /// `token`: only as `token[]`.
    Token = 17, "token", 0;
    /// `c128`: complex of two `f64`.
    C128 = 18, "c128", 128;
    /// `f8e5m2`.
    F8e5m2 = 19, "f8e5m2", 8;
    /// `f8e4m3fn`.
    F8e4m3fn = 20, "f8e4m3fn", 8;
    /// `s4`: signed 4-bit integer, one byte each unless `E(4)`.
    S4 = 21, "s4", 4;
    /// `u4`: unsigned 4-bit integer, one byte each unless `E(4)`.
    U4 = 22, "u4", 4;
    /// `f8e4m3b11fnuz`.
    F8e4m3b11fnuz = 23, "f8e4m3b11fnuz", 8;
    /// `f8e5m2fnuz`.
    F8e5m2fnuz = 24, "f8e5m2fnuz", 8;
    /// `f8e4m3fnuz`.
    F8e4m3fnuz = 25, "f8e4m3fnuz", 8;
    /// `s2`: signed 2-bit integer, one byte each unless `E(2)`.
    S2 = 26, "s2", 2;
    /// `u2`: unsigned 2-bit integer, one byte each unless `E(2)`.
    U2 = 27, "u2", 2;
    /// `f8e4m3`.
    F8e4m3 = 28, "f8e4m3", 8;
    /// `f8e3m4`.
    F8e3m4 = 29, "f8e3m4", 8;
    /// `s1`: signed 1-bit integer, one byte each unless `E(1)`.
    S1 = 30, "s1", 1;
    /// `u1`: unsigned 1-bit integer, one byte each unless `E(1)`.
    U1 = 31, "u1", 1;
    /// `f4e2m1fn`: MX 4-bit float, one byte each unless `E(4)`.
    F4e2m1fn = 32, "f4e2m1fn", 4;
    /// `f8e8m0fnu`: MX scale type.
    F8e8m0fnu = 33, "f8e8m0fnu", 8;
    /// Buffer: written `b( ... )`, never by name.
    Buffer = 34, "buffer", 0;
    /// `f6e3m2fn`: XLA reports a bit width of 8; 6-bit packing only with `E(6)`.
    F6e3m2fn = 35, "f6e3m2fn", 8;
    /// `f6e2m3fn`: XLA reports a bit width of 8; 6-bit packing only with `E(6)`.
    F6e2m3fn = 36, "f6e2m3fn", 8;
}

impl PrimitiveType {
    /// `ShapeUtil::ByteSizeOfPrimitiveType`: storage bytes of one element when the layout has
    /// no `E(n)` (⌈bits/8⌉; sub-byte types take a whole byte). 0 for the non-array types.
    ///
    /// ```
    /// use layout_runtime::PrimitiveType;
    /// assert_eq!(PrimitiveType::C128.byte_width(), 16);
    /// assert_eq!(PrimitiveType::U1.byte_width(), 1);
    /// ```
    pub const fn byte_width(self) -> u32 {
        self.bit_width().div_ceil(8)
    }

    /// `primitive_util::IsArrayType`: can be the element type of an array.
    ///
    /// ```
    /// use layout_runtime::PrimitiveType;
    /// assert!(PrimitiveType::S4.is_array_type());
    /// assert!(!PrimitiveType::Token.is_array_type());
    /// ```
    pub const fn is_array_type(self) -> bool {
        !matches!(
            self,
            PrimitiveType::Tuple
                | PrimitiveType::Opaque
                | PrimitiveType::Token
                | PrimitiveType::Buffer
        )
    }

    /// `primitive_util::IsIntegralType`: a signed or unsigned integer of any width (not
    /// `pred`). Only these may stand in `#(..)` and `*(..)`; XLA prints any other type
    /// there as `invalid`.
    ///
    /// ```
    /// use layout_runtime::PrimitiveType;
    /// assert!(PrimitiveType::U4.is_integral());
    /// assert!(!PrimitiveType::Pred.is_integral());
    /// ```
    pub const fn is_integral(self) -> bool {
        matches!(
            self,
            PrimitiveType::S1
                | PrimitiveType::S2
                | PrimitiveType::S4
                | PrimitiveType::S8
                | PrimitiveType::S16
                | PrimitiveType::S32
                | PrimitiveType::S64
                | PrimitiveType::U1
                | PrimitiveType::U2
                | PrimitiveType::U4
                | PrimitiveType::U8
                | PrimitiveType::U16
                | PrimitiveType::U32
                | PrimitiveType::U64
        )
    }

    /// `primitive_util::IsSubByteNonPredType`: fewer than 8 bits and not `pred`. Such
    /// values are packed only when the layout says `E(n)`.
    ///
    /// ```
    /// use layout_runtime::PrimitiveType;
    /// assert!(PrimitiveType::F4e2m1fn.is_sub_byte());
    /// assert!(!PrimitiveType::Pred.is_sub_byte());
    /// ```
    pub const fn is_sub_byte(self) -> bool {
        let bits = self.bit_width();
        bits > 0 && bits < 8 && !matches!(self, PrimitiveType::Pred)
    }

    /// The type named `name` as it may appear in shape text: every array element type plus
    /// `token` and `opaque`. `tuple` and `buffer` are never names in the text.
    ///
    /// ```
    /// use layout_runtime::PrimitiveType;
    /// assert_eq!(PrimitiveType::from_name("s4"), Some(PrimitiveType::S4));
    /// assert_eq!(PrimitiveType::from_name("tuple"), None);
    /// assert_eq!(PrimitiveType::from_name("F32"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<PrimitiveType> {
        lookup(name).filter(|t| !matches!(t, PrimitiveType::Tuple | PrimitiveType::Buffer))
    }
}

impl fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of [`PrimitiveType::from_str`](core::str::FromStr): the text is no element
/// type name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPrimitiveType;

impl fmt::Display for UnknownPrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown element type name")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownPrimitiveType {}

impl core::str::FromStr for PrimitiveType {
    type Err = UnknownPrimitiveType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PrimitiveType::from_name(s).ok_or(UnknownPrimitiveType)
    }
}
