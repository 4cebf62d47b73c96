//! What a handler answers XLA with when it fails: a code and a message, handed to XLA's
//! `XLA_FFI_Error_Create` (which JAX raises as `JaxRuntimeError: CODE: message`).

use alloc::ffi::CString;
use alloc::string::String;
use core::fmt;

use super::c_api::{self, ErrorCode, ERROR_CREATE_ARGS_STRUCT_SIZE};

/// A handler's failure: an XLA error code and a message.
///
/// A body returns `Err(Error)` to fail; `?` turns any `std::error::Error` into one (code
/// `INTERNAL`), which is why this type is not a `std::error::Error` itself (the two
/// conversions would overlap).
///
/// ```
/// use xlayout::ffi::{c_api::ErrorCode, Error};
/// let e = Error::invalid_argument("factor must be positive");
/// assert_eq!((e.code(), e.message()), (ErrorCode::INVALID_ARGUMENT, "factor must be positive"));
/// let parsed: Result<xlayout::Shape, Error> = "f32[3".parse::<xlayout::Shape>().map_err(Error::from);
/// assert_eq!(parsed.unwrap_err().code(), ErrorCode::INTERNAL);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    /// An error with this code and message.
    ///
    /// ```
    /// use xlayout::ffi::{c_api::ErrorCode, Error};
    /// assert_eq!(Error::new(ErrorCode::UNIMPLEMENTED, "later").to_string(), "UNIMPLEMENTED: later");
    /// ```
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error { code, message: message.into() }
    }

    /// `INVALID_ARGUMENT`: the call did not match what the handler takes.
    ///
    /// ```
    /// let e = xlayout::ffi::Error::invalid_argument("x is empty");
    /// assert_eq!(e.to_string(), "INVALID_ARGUMENT: x is empty");
    /// ```
    pub fn invalid_argument(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::INVALID_ARGUMENT, message)
    }

    /// `INTERNAL`: the handler failed (a panic becomes one).
    ///
    /// ```
    /// assert_eq!(xlayout::ffi::Error::internal("bug").code().0, 13);
    /// ```
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::INTERNAL, message)
    }

    /// The code.
    ///
    /// ```
    /// assert_eq!(xlayout::ffi::Error::internal("x").code(), xlayout::ffi::c_api::ErrorCode::INTERNAL);
    /// ```
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message.
    ///
    /// ```
    /// assert_eq!(xlayout::ffi::Error::internal("bug").message(), "bug");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The message with the handler's name in front, as XLA shows it.
    pub(crate) fn in_handler(mut self, handler: &str) -> Error {
        self.message = alloc::format!("{handler}: {}", self.message);
        self
    }

    /// Hands the error to XLA through `create` (the frame's `XLA_FFI_Error_Create`), which
    /// copies the message: XLA owns what it returns.
    pub(crate) fn into_xla(
        self,
        create: unsafe extern "C" fn(*mut c_api::ErrorCreateArgs) -> *mut c_api::Error,
    ) -> *mut c_api::Error {
        // A NUL inside the message would end it early in C: it is shown as U+2400 (␀).
        let text = if self.message.contains('\0') {
            self.message.replace('\0', "\u{2400}")
        } else {
            self.message
        };
        let message = CString::new(text).unwrap_or_default();
        let mut args = c_api::ErrorCreateArgs {
            struct_size: ERROR_CREATE_ARGS_STRUCT_SIZE,
            extension_start: core::ptr::null_mut(),
            message: message.as_ptr(),
            errc: self.code,
        };
        // SAFETY: `create` is the frame's `XLA_FFI_Error_Create` (the caller checked that the
        // API table reaches it), called as the header says: a pointer to arguments of the
        // header's size, whose message lives until the call returns (XLA copies it).
        unsafe { create(&mut args) }
    }
}

/// `CODE: message`, as JAX shows it.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", code_name(self.code), self.message)
    }
}

/// The name of an error code, as absl prints it.
fn code_name(code: ErrorCode) -> &'static str {
    const NAMES: [&str; 17] = [
        "OK",
        "CANCELLED",
        "UNKNOWN",
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DATA_LOSS",
        "UNAUTHENTICATED",
    ];
    usize::try_from(code.0).ok().and_then(|i| NAMES.get(i)).copied().unwrap_or("UNKNOWN")
}

/// Any error of the standard kind, for `?` in a handler's body: `INTERNAL`, with its
/// message.
impl<E: std::error::Error> From<E> for Error {
    fn from(e: E) -> Error {
        Error::internal(alloc::string::ToString::to_string(&e))
    }
}
