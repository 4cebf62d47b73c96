//! Which Rust types a handler's buffers and attributes can be: [`FfiElement`] for the
//! elements of a buffer (every XLA element type stored a byte or more each), [`Attr`] for a
//! scalar attribute. Both say how raw bytes from XLA become typed values without undefined
//! behaviour: bytemuck checks alignment, length and, for `bool`, that every byte is 0 or 1.

use core::ffi::c_void;

use crate::elem;
use crate::{Element, PrimitiveType};

mod sealed {
    pub trait Sealed {}
}

/// An element type a handler's buffer can hold: every XLA type of a byte or more (XLA's FFI
/// passes those a whole number of bytes each). Sub-byte types (`s4`, `u4`, `s2`, `u2`, `s1`,
/// `u1`, `f4e2m1fn`) and the 6-bit floats are not: how XLA packs them in an FFI buffer is not
/// part of the protocol.
///
/// ```
/// use xlayout::{bf16, ffi::FfiElement};
/// fn takes<T: FfiElement>() {}
/// takes::<f32>();
/// takes::<bf16>();
/// takes::<bool>(); // `pred`: each byte is checked to be 0 or 1
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the element of an XLA FFI buffer",
    label = "not an element XLA's FFI passes a byte or more each",
    note = "XLA's FFI passes pred, s8..s64, u8..u64, f16, bf16, f32, f64, c64, c128 and the 8-bit \
            floats; how it packs sub-byte elements (s4, u4, s2, u2, s1, u1, f4e2m1fn) is not part \
            of the protocol"
)]
pub trait FfiElement: Element + sealed::Sealed {
    /// The bytes of an argument as elements; `None` when they are misaligned or not a whole
    /// number of elements, or (for `bool`) a byte is neither 0 nor 1.
    #[doc(hidden)]
    fn from_bytes(bytes: &[u8]) -> Option<&[Self]>;

    /// The bytes of a result as elements (each `bool` first set to `false`: XLA hands out
    /// results uninitialized); `None` when misaligned or not a whole number of elements.
    #[doc(hidden)]
    fn from_result_bytes(bytes: &mut [u8]) -> Option<&mut [Self]>;
}

macro_rules! plain_elements {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl FfiElement for $t {
            #[inline]
            fn from_bytes(bytes: &[u8]) -> Option<&[Self]> {
                // An empty buffer's pointer may be anything (null, or dangling for `u8`).
                if bytes.is_empty() {
                    return Some(&[]);
                }
                bytemuck::try_cast_slice(bytes).ok()
            }

            #[inline]
            fn from_result_bytes(bytes: &mut [u8]) -> Option<&mut [Self]> {
                if bytes.is_empty() {
                    return Some(&mut []);
                }
                bytemuck::try_cast_slice_mut(bytes).ok()
            }
        }
    )*};
}

plain_elements!(
    elem::s8,
    elem::s16,
    elem::s32,
    elem::s64,
    elem::u8,
    elem::u16,
    elem::u32,
    elem::u64,
    elem::f16,
    elem::bf16,
    elem::f32,
    elem::f64,
    elem::c64,
    elem::c128,
    elem::f8e5m2,
    elem::f8e4m3,
    elem::f8e4m3fn,
    elem::f8e4m3b11fnuz,
    elem::f8e5m2fnuz,
    elem::f8e4m3fnuz,
    elem::f8e3m4,
    elem::f8e8m0fnu
);

impl sealed::Sealed for bool {}
impl FfiElement for bool {
    fn from_bytes(bytes: &[u8]) -> Option<&[bool]> {
        bytemuck::checked::try_cast_slice(bytes).ok()
    }

    fn from_result_bytes(bytes: &mut [u8]) -> Option<&mut [bool]> {
        bytes.fill(0);
        bytemuck::checked::try_cast_slice_mut(bytes).ok()
    }
}

/// A scalar attribute's Rust type: its XLA type and how to read one from the frame.
///
/// A Python `int` keyword arrives as `s64` and a `float` as `f64` (`xlayout.jax.load`'s
/// callables convert each keyword to the declared type first, as numpy scalars keep theirs).
///
/// ```
/// use xlayout::{ffi::Attr, PrimitiveType};
/// assert_eq!(<f32 as Attr>::TYPE, PrimitiveType::F32);
/// assert_eq!(<bool as Attr>::TYPE, PrimitiveType::Pred);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a handler's attribute",
    label = "not a scalar attribute type",
    note = "scalar attributes are bool, i8..i64, u8..u64, f32 and f64"
)]
pub trait Attr: Copy + sealed::Sealed {
    /// The XLA type of the scalar.
    const TYPE: PrimitiveType;

    /// The value at `value`, which points at a scalar of [`Attr::TYPE`] (maybe unaligned);
    /// `None` when its bits are not a value of `Self`.
    ///
    /// # Safety
    ///
    /// `value` points at `size_of::<Self>()` readable bytes.
    #[doc(hidden)]
    unsafe fn read(value: *const c_void) -> Option<Self>;
}

macro_rules! numeric_attrs {
    ($($t:ty = $p:ident),*) => {$(
        impl Attr for $t {
            const TYPE: PrimitiveType = PrimitiveType::$p;

            unsafe fn read(value: *const c_void) -> Option<$t> {
                // SAFETY: the caller's contract: `size_of::<$t>()` readable bytes, any of whose
                // bit patterns is a value; unaligned, so read as such.
                Some(unsafe { value.cast::<$t>().read_unaligned() })
            }
        }
    )*};
}

numeric_attrs!(
    i8 = S8,
    i16 = S16,
    i32 = S32,
    i64 = S64,
    u8 = U8,
    u16 = U16,
    u32 = U32,
    u64 = U64,
    f32 = F32,
    f64 = F64
);

impl Attr for bool {
    const TYPE: PrimitiveType = PrimitiveType::Pred;

    unsafe fn read(value: *const c_void) -> Option<bool> {
        // SAFETY: the caller's contract: one readable byte.
        match unsafe { value.cast::<u8>().read() } {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}
