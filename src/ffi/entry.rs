//! A handler's entry point, in the order XLA's C++ binding answers (`xla/ffi/api/api.h`,
//! `Handler::Call`): the frame's size, XLA's metadata query, the stage, then the buffers
//! and attributes (`frame`), then the body, with any panic caught. What the body receives is
//! a [`Call`]: the checked buffers as typed views.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ffi::c_void;
use core::ptr::addr_of;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::c_api::{self, ExecutionStage, ExtensionType, API_VERSION, CALL_FRAME_STRUCT_SIZE};
use super::error::Error;
use super::frame::{self, size_error, ArgBuffer, Parts, ResultBuffer};
use super::signature::{Param, Signature};
use super::types::{Attr, FfiElement};
use crate::fixed::{StaticView, StaticViewMut, TypedLayout};
use crate::{ArrayShape, Layout, Shape, View, ViewMut};

/// The checked buffers and attributes of one execute call, handed out as typed views: what
/// the code [`handler!`](crate::ffi::handler) generates reads its parameters from.
///
/// Every buffer was checked against the [`Signature`] (element type, dimensions, a data
/// pointer for its bytes, no result sharing memory with another buffer) before a `Call`
/// exists; the methods here only type the bytes (alignment is checked there) and give each
/// result out once.
pub struct Call<'a> {
    signature: &'static Signature,
    args: Vec<ArgBuffer<'a>>,
    results: Vec<ResultBuffer<'a>>,
    attrs: Vec<*const c_void>,
}

impl<'a> Call<'a> {
    /// Argument `i` as a view of its `layout!` type.
    ///
    /// Errors: `i` is not an argument, or its data is not aligned for `L::Elem`.
    pub fn arg<L>(&self, i: usize) -> Result<StaticView<'a, L>, Error>
    where
        L: TypedLayout,
        L::Elem: FfiElement,
    {
        let (bytes, param) = self.arg_bytes(i)?;
        let elements = L::Elem::from_bytes(bytes)
            .ok_or_else(|| untyped::<L::Elem>(param, "argument", bytes))?;
        StaticView::new(elements)
            .map_err(|e| Error::invalid_argument(format!("argument `{}`: {e}", param.name)))
    }

    /// Result `i` as a writable view of its `layout!` type (once: a second call is an
    /// error).
    pub fn result<L>(&mut self, i: usize) -> Result<StaticViewMut<'a, L>, Error>
    where
        L: TypedLayout,
        L::Elem: FfiElement,
    {
        let (bytes, param) = self.take_result(i)?;
        let at = bytes.as_ptr();
        let elements = L::Elem::from_result_bytes(bytes)
            .ok_or_else(|| misaligned::<L::Elem>(param, "result", at))?;
        StaticViewMut::new(elements)
            .map_err(|e| Error::invalid_argument(format!("result `{}`: {e}", param.name)))
    }

    /// Argument `i` as a run-time view, its sizes the call's, its order the declared one.
    pub fn arg_view<T: FfiElement>(&self, i: usize) -> Result<View<'a, T>, Error> {
        let (bytes, param) = self.arg_bytes(i)?;
        let elements =
            T::from_bytes(bytes).ok_or_else(|| untyped::<T>(param, "argument", bytes))?;
        let shape = shape_of(param, self.args[i].dims);
        View::new(elements, &shape)
            .map_err(|e| Error::invalid_argument(format!("argument `{}`: {e}", param.name)))
    }

    /// Result `i` as a writable run-time view (once).
    pub fn result_view<T: FfiElement>(&mut self, i: usize) -> Result<ViewMut<'a, T>, Error> {
        let dims = self.results.get(i).map(|r| r.dims);
        let (bytes, param) = self.take_result(i)?;
        let at = bytes.as_ptr();
        let elements =
            T::from_result_bytes(bytes).ok_or_else(|| misaligned::<T>(param, "result", at))?;
        let shape = shape_of(param, dims.unwrap_or_default());
        ViewMut::new(elements, &shape)
            .map_err(|e| Error::invalid_argument(format!("result `{}`: {e}", param.name)))
    }

    /// Attribute `k` (in declaration order), as `T`.
    pub fn attr<T: Attr>(&self, k: usize) -> Result<T, Error> {
        let (Some(param), Some(&value)) = (self.signature.attrs.get(k), self.attrs.get(k)) else {
            return Err(Error::internal(format!("the handler has no attribute {k}")));
        };
        if param.element_type != T::TYPE {
            return Err(Error::internal(format!(
                "attribute `{}` is declared {}, read as {}",
                param.name,
                param.element_type.name(),
                T::TYPE.name()
            )));
        }
        // SAFETY: `value` is the non-null value pointer of a scalar whose dtype is the
        // declared one (checked by `frame::attributes`), so it points at one `T::TYPE`
        // value: `size_of::<T>()` bytes.
        unsafe { T::read(value) }.ok_or_else(|| {
            Error::invalid_argument(format!("attribute `{}`: not a {}", param.name, T::TYPE.name()))
        })
    }

    fn arg_bytes(&self, i: usize) -> Result<(&'a [u8], &'static Param), Error> {
        match (self.args.get(i), self.signature.args.get(i)) {
            (Some(a), Some(p)) => Ok((a.bytes, p)),
            _ => Err(Error::internal(format!("the handler has no argument {i}"))),
        }
    }

    fn take_result(&mut self, i: usize) -> Result<(&'a mut [u8], &'static Param), Error> {
        let param = self.signature.results.get(i);
        match (self.results.get_mut(i).and_then(|r| r.bytes.take()), param) {
            (Some(bytes), Some(p)) => Ok((bytes, p)),
            (None, Some(p)) => Err(Error::internal(format!("result `{}` taken twice", p.name))),
            _ => Err(Error::internal(format!("the handler has no result {i}"))),
        }
    }
}

/// The error of an argument's bytes that are not elements of `T`: misaligned, or (`pred`)
/// a byte that is neither 0 nor 1.
fn untyped<T>(param: &Param, noun: &str, bytes: &[u8]) -> Error {
    if bytes.as_ptr() as usize % core::mem::align_of::<T>() != 0 {
        return misaligned::<T>(param, noun, bytes.as_ptr());
    }
    Error::invalid_argument(format!(
        "{noun} `{}`: a byte is neither 0 nor 1, which {} elements are",
        param.name,
        param.element_type.name()
    ))
}

/// The error of data that is not aligned for `T`.
fn misaligned<T>(param: &Param, noun: &str, at: *const u8) -> Error {
    Error::invalid_argument(format!(
        "{noun} `{}`: the data at {at:p} is not aligned to {} bytes for {} elements",
        param.name,
        core::mem::align_of::<T>(),
        param.element_type.name()
    ))
}

/// The dense shape of a buffer: the call's sizes in the declared order.
fn shape_of(param: &Param, dims: &[i64]) -> Shape {
    let sizes = dims.iter().map(|&n| n as u64);
    let order = param.minor_to_major.iter().map(|&d| d as i64);
    Shape::Array(ArrayShape::new(param.element_type, sizes).with_layout(Layout::new(order)))
}

/// The body of an execute call: reads its parameters from the [`Call`] and runs the kernel.
pub type Body<'f> = &'f mut dyn FnMut(&mut Call<'_>) -> Result<(), Error>;

/// Runs one call of the handler `signature` from XLA's frame: what the entry point
/// [`handler!`](crate::ffi::handler) generates does, and nothing else.
///
/// - XLA's metadata query (at registration) is answered with this crate's API version
///   ([`API_VERSION`]), no traits and no state, as the C++ binding answers it.
/// - The instantiate stage checks the attributes and keeps no state; prepare and initialize
///   (which XLA:CPU never calls) do nothing: each as a C++ handler bound to that stage with
///   these attributes would answer. So the one function can be registered for any stage.
/// - Execute checks every buffer and attribute, then runs `body` with any panic caught.
///
/// Every failure is an XLA error naming the handler. A frame of another major API version is
/// refused before anything but its version is read; a frame larger than this header's (a
/// later minor version's additions) is read up to the fields this header knows, as the C
/// API's `struct_size` convention allows (the C++ binding asks for the exact size).
///
/// # Safety
///
/// `frame` is what XLA passes a handler: a call frame whose pointers point at what the
/// header says, valid for the call, with result buffers nothing else uses meanwhile.
///
/// A frame without an API table to report through (a null frame or `api`, or a table too
/// short to hold `XLA_FFI_Error_Create`) cannot be answered with an error, and a null answer
/// would claim results that were never written: the process is aborted, with a message on
/// standard error. XLA never sends such a frame.
pub unsafe fn call(
    frame: *mut c_api::CallFrame,
    signature: &'static Signature,
    body: Body<'_>,
) -> *mut c_api::Error {
    // The frame and the API table are read field by field through raw pointers until their
    // sizes are known: an older XLA's are shorter than this header's (`future`, the later
    // API functions), and a reference would claim the whole struct.
    if frame.is_null() {
        unreachable_frame(signature, "a null call frame");
    }
    // SAFETY: a frame from XLA (the contract) begins with its size, its extension chain and
    // its API table in every version.
    let (frame_size, api) =
        unsafe { (addr_of!((*frame).struct_size).read(), addr_of!((*frame).api).read()) };
    // SAFETY: `api` is null or XLA's API table, which begins with its size.
    if api.is_null() || unsafe { addr_of!((*api).struct_size).read() } < c_api::API_ERROR_CREATE_END
    {
        unreachable_frame(signature, "a call frame without an API table");
    }
    // SAFETY: the table holds at least its head, its version and `XLA_FFI_Error_Create`.
    let (version, create) = unsafe {
        let v = addr_of!((*api).api_version);
        let major = addr_of!((*v).major_version).read();
        ((major, addr_of!((*v).minor_version).read()), addr_of!((*api).error_create).read())
    };
    let Some(create) = create else {
        unreachable_frame(signature, "an API table without XLA_FFI_Error_Create");
    };
    let fail = |e: Error| e.in_handler(signature.name).into_xla(create);
    if version.0 != API_VERSION.0 {
        return fail(Error::new(
            c_api::ErrorCode::FAILED_PRECONDITION,
            format!(
                "the calling XLA's FFI API is version {}.{}, and this handler was built for \
                 {}.{} (xlayout::ffi): a call frame of another major version is not read",
                version.0, version.1, API_VERSION.0, API_VERSION.1
            ),
        ));
    }
    if frame_size < CALL_FRAME_STRUCT_SIZE {
        return fail(size_error("XLA_FFI_CallFrame", CALL_FRAME_STRUCT_SIZE, frame_size));
    }
    // SAFETY: the frame holds every field up to `attrs` (its size says so); these parts lie
    // within it, and XLA keeps them unchanged for the call.
    let (extension, parts) = unsafe {
        let parts = Parts {
            stage: addr_of!((*frame).stage).read(),
            args: &*addr_of!((*frame).args),
            rets: &*addr_of!((*frame).rets),
            attrs: &*addr_of!((*frame).attrs),
        };
        (addr_of!((*frame).extension_start).read(), parts)
    };
    let run = || -> Result<(), Error> {
        // SAFETY: a non-null extension is one XLA made, whose head says its type (C++ looks at
        // the first extension only, and so does this).
        if !extension.is_null()
            && unsafe { addr_of!((*extension).type_).read() } == ExtensionType::METADATA
        {
            // SAFETY: an extension of the metadata type is a `MetadataExtension`.
            return unsafe { metadata(extension.cast()) };
        }
        match parts.stage {
            ExecutionStage::EXECUTE => {
                // SAFETY: the frame is XLA's (the contract).
                let (args, results) = unsafe { frame::buffers(&parts, signature) }?;
                // SAFETY: as above.
                let attrs = unsafe { frame::attributes(&parts, signature) }?;
                body(&mut Call { signature, args, results, attrs })
            }
            // SAFETY: as above.
            ExecutionStage::INSTANTIATE => {
                unsafe { frame::attributes(&parts, signature) }.map(drop)
            }
            ExecutionStage::PREPARE | ExecutionStage::INITIALIZE => Ok(()),
            other => Err(Error::invalid_argument(format!(
                "Wrong execution stage: expected one of 0 to 3 but got `{}`",
                other.0
            ))),
        }
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(())) => core::ptr::null_mut(),
        Ok(Err(e)) => fail(e),
        Err(payload) => fail(Error::internal(format!("panic: {}", panic_message(payload)))),
    }
}

/// The text of a panic's payload (a `&str` or `String` for `panic!` with a message). Any
/// other payload is leaked, not dropped: its `Drop` could panic again, past the C boundary.
fn panic_message(payload: alloc::boxed::Box<dyn core::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => match payload.downcast::<&'static str>() {
            Ok(s) => String::from(*s),
            Err(other) => {
                core::mem::forget(other);
                String::from("a panic whose payload is not a message")
            }
        },
    }
}

/// Answers XLA's metadata query as the C++ binding does (`Handler::PopulateMetadata`): the
/// version of the header mirrored, no traits, no state type.
///
/// # Safety
///
/// `extension` points at a metadata extension from XLA.
unsafe fn metadata(extension: *mut c_api::MetadataExtension) -> Result<(), Error> {
    // Fields are read and written through raw pointers, each only once the size the caller
    // stated covers it: no reference asserts more bytes than XLA said are there.
    // SAFETY: the contract: the extension's head (its size first) is readable.
    let size = unsafe { (*extension).extension_base.struct_size };
    if size < c_api::METADATA_EXTENSION_STRUCT_SIZE {
        return Err(size_error(
            "XLA_FFI_Metadata_Extension",
            c_api::METADATA_EXTENSION_STRUCT_SIZE,
            size,
        ));
    }
    // SAFETY: the extension is as large as this header's, so its `metadata` is there.
    let metadata = unsafe { (*extension).metadata };
    if metadata.is_null() {
        return Err(Error::invalid_argument("the metadata extension has no metadata"));
    }
    // SAFETY: non-null metadata from XLA starts with its size.
    let size = unsafe { (*metadata).struct_size };
    if size < c_api::METADATA_STRUCT_SIZE {
        return Err(size_error("XLA_FFI_Metadata", c_api::METADATA_STRUCT_SIZE, size));
    }
    let version = c_api::ApiVersion {
        struct_size: c_api::API_VERSION_STRUCT_SIZE,
        extension_start: core::ptr::null_mut(),
        major_version: API_VERSION.0,
        minor_version: API_VERSION.1,
    };
    // SAFETY: both fields lie within the header's size of the struct (36), which the
    // caller's size covers; nothing else touches the metadata during the query.
    unsafe {
        core::ptr::addr_of_mut!((*metadata).api_version).write(version);
        core::ptr::addr_of_mut!((*metadata).traits).write(0);
    }
    // `state_type_id` lies past the header's size of the struct: written only when the
    // caller's size covers it (XLA states 36 and zeroes it, which is the answer: no state).
    if size >= core::mem::size_of::<c_api::Metadata>() {
        // SAFETY: within the caller's size.
        unsafe {
            core::ptr::addr_of_mut!((*metadata).state_type_id).write(c_api::TypeId { type_id: 0 })
        };
    }
    Ok(())
}

/// A frame no error can be reported through: said on standard error, then the process ends
/// (returning null would claim results that were never written).
fn unreachable_frame(signature: &Signature, what: &str) -> ! {
    std::eprintln!(
        "xlayout::ffi: the handler `{}` was called with {what}; XLA never sends one, and no \
         error can be returned without it",
        signature.name
    );
    std::process::abort()
}
