//! Kernels that XLA calls: handlers of XLA's FFI (`xla/ffi/api/c_api.h`) whose buffers are
//! `layout!` types, for JAX's `jax.ffi.ffi_call` (the `ffi` feature; no C or C++ toolchain).
//!
//! A handler is declared once, with [`handler!`]: its buffers as shapes in XLA's text (a
//! static shape becomes a `layout!` type, checked by the same parser and validator; a shape
//! with dynamic dimensions, `?` or `<=N`, a run-time view whose sizes come from the call), its
//! scalar attributes by name and Rust type, its results by name. The macro generates the
//! `extern "C"` entry point XLA calls, which
//!
//! - answers XLA's metadata query at registration (this crate's API version, [`c_api::API_VERSION`]),
//!   and refuses a frame of another major version without reading it;
//! - checks every buffer's element type and dimensions (a frame carries no layout: the
//!   declared one is what `ffi_call` asks XLA for), its data pointer and size, that no result
//!   shares memory with another buffer, and every attribute's name and type;
//! - hands the body typed views: [`StaticView`](crate::StaticView) /
//!   [`StaticViewMut`](crate::StaticViewMut) of the `layout!` types, or
//!   [`View`](crate::View) / [`ViewMut`](crate::ViewMut) for dynamic shapes;
//! - turns a mismatch into an XLA error naming the buffer, the layout declared and the buffer
//!   received (JAX raises it as `JaxRuntimeError`), and a panic in the body into an error
//!   too (never an unwind across the C boundary).
//!
//! The library exports, with [`export!`], each handler's name and canonical layout texts, so
//! that Python builds `ffi_call`'s result shapes and layouts from the same declaration
//! (`xlayout.jax.load(path)` in the Python package). XLA's FFI passes dense buffers in a
//! dimension order, never tiled ones: a tiled layout in a handler is a compile error.
//!
//! ```
//! use xlayout::ffi::{self, handler};
//!
//! handler! {
//!     /// x + y, x read column-major (XLA transposes it before the call).
//!     pub fn transpose_add(x: f32[64,32]{0,1}, y: f32[64,32]{1,0}) -> (out: f32[64,32]{1,0}) {
//!         for i in 0..64 {
//!             for j in 0..32 {
//!                 out[[i, j]] = x[[i, j]] + y[[i, j]];
//!             }
//!         }
//!         Ok(())
//!     }
//! }
//! ffi::export!(transpose_add);
//!
//! // What the frame is checked against, and what Python reads:
//! assert_eq!(transpose_add::SIGNATURE.args[0].text, "f32[64,32]{0,1}");
//! assert_eq!(transpose_add::SIGNATURE.args[0].major_to_minor().collect::<Vec<_>>(), [1, 0]);
//! assert!(transpose_add::MANIFEST.to_str()?.contains(r#"{"name":"out","shape":"f32[64,32]{1,0}"}"#));
//! # Ok::<(), core::str::Utf8Error>(())
//! ```
//!
//! A panic is caught only where panics unwind: with `panic = "abort"` in the profile, this
//! module does not compile (a kernel's bug would end the Python process). Rust's panic hook
//! still prints the panic to standard error (with a backtrace when `RUST_BACKTRACE` is set).

// A handler's promise that a panic becomes an error needs unwinding.
#[cfg(panic = "abort")]
compile_error!(
    "xlayout's `ffi` feature needs panics that unwind: with `panic = \"abort\"` a panic in a \
     handler would end the process that called it (Python), where it must become an XLA error"
);

pub mod c_api;
mod entry;
mod error;
mod frame;
mod signature;
mod types;

#[doc(hidden)]
pub use entry::{call, Body, Call};
pub use error::Error;
pub use signature::{AttrParam, BufferDim, DimLink, Param, Signature};
pub use types::{Attr, FfiElement};

/// Declares an XLA FFI handler whose buffers are layouts: see [the module](self).
///
/// ```text
/// handler! {
///     /// docs
///     pub fn NAME(PARAM: SHAPE | SCALAR, ...) -> (RESULT: SHAPE, ...) where R[i] = P[j], ... {
///         BODY // a block whose value is Result<(), xlayout::ffi::Error>
///     }
/// }
/// ```
///
/// - A parameter whose type is a shape (`f32[64,32]{0,1}`, `bf16[8,256]`, XLA's default
///   order when no layout is written) is an operand; with static dimensions the body gets a
///   [`StaticView`](crate::StaticView) of a `layout!` type named as the parameter (in a module
///   named as the handler: `NAME::x`), with a dynamic one (`?`, or `<=N` for at most N) a
///   [`View`](crate::View) in the declared order.
/// - A parameter whose type is a Rust scalar (`bool`, `i8`..`i64`, `u8`..`u64`, `f32`,
///   `f64`) is the attribute of that name.
/// - Results are named and get [`StaticViewMut`](crate::StaticViewMut) or
///   [`ViewMut`](crate::ViewMut); their memory is uninitialized (write every element). A
///   dynamic dimension of a result takes its size from an argument's, declared after `where`.
///
/// The generated `NAME` is `#[no_mangle] unsafe extern "C" fn(*mut CallFrame) -> *mut Error`,
/// the handler XLA calls; `NAME::SIGNATURE` and `NAME::MANIFEST` describe it.
///
/// ```
/// use xlayout::ffi::handler;
///
/// handler! {
///     /// Each row of `x` times `factor`, for any number of rows.
///     pub fn scale(x: f32[?,128]{1,0}, factor: f32) -> (y: f32[?,128]{1,0}) where y[0] = x[0] {
///         for (out, v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
///             *out = v * factor;
///         }
///         Ok(())
///     }
/// }
/// let s = &scale::SIGNATURE;
/// assert_eq!((s.args[0].text, s.attrs[0].name), ("f32[?,128]{1,0}", "factor"));
/// assert!(!s.results[0].is_static());
/// ```
///
/// A tiled layout is refused where it is written:
///
/// ```compile_fail
/// xlayout::ffi::handler! {
///     fn tiled(x: f32[16,256]{1,0:T(8,128)}) -> (y: f32[16,256]{1,0}) { Ok(()) }
/// }
/// ```
#[doc(inline)]
pub use crate::__ffi_handler as handler;

/// Exports the manifest of a library's handlers, `xlayout_ffi_manifest`, which
/// `xlayout.jax.load` reads: list every handler once, by name or path.
///
/// The export is `#[no_mangle] extern "C" fn xlayout_ffi_manifest(index: usize) -> *const
/// c_char`: handler `index`'s manifest (a NUL-terminated JSON text), or null past the last.
///
/// ```
/// use xlayout::ffi;
///
/// mod kernels {
///     xlayout::ffi::handler! {
///         pub fn negate(x: f32[4]) -> (y: f32[4]) {
///             for i in 0..4 {
///                 y[[i]] = -x[[i]];
///             }
///             Ok(())
///         }
///     }
/// }
/// ffi::export!(kernels::negate);
///
/// let first = unsafe { core::ffi::CStr::from_ptr(xlayout_ffi_manifest(0)) };
/// assert!(first.to_str()?.starts_with(r#"{"format":1,"name":"negate","#));
/// assert!(xlayout_ffi_manifest(1).is_null());
/// # Ok::<(), core::str::Utf8Error>(())
/// ```
#[doc(inline)]
pub use crate::__ffi_export as export;

/// See [`ffi::handler!`](crate::ffi::handler).
#[doc(hidden)]
#[macro_export]
macro_rules! __ffi_handler {
    ($($input:tt)*) => {
        $crate::__private::ffi_handler_impl! { $crate; $($input)* }
    };
}

/// See [`ffi::export!`](crate::ffi::export).
#[doc(hidden)]
#[macro_export]
macro_rules! __ffi_export {
    ($($($handler:ident)::+),* $(,)?) => {
        /// The manifests of this library's XLA FFI handlers, for `xlayout.jax.load`:
        /// handler `index`'s JSON text, or null past the last.
        #[no_mangle]
        #[allow(unsafe_code)]
        pub extern "C" fn xlayout_ffi_manifest(index: usize) -> *const ::core::ffi::c_char {
            const ALL: &[&$crate::__private::ffi::CStr] = &[$($($handler)::+::MANIFEST),*];
            match ALL.get(index) {
                ::core::option::Option::Some(m) => m.as_ptr(),
                ::core::option::Option::None => ::core::ptr::null(),
            }
        }
    };
}
