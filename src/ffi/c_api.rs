//! XLA's FFI C API (`xla/ffi/api/c_api.h`, version 0.3, as jaxlib 0.10.2 ships it:
//! `jax.ffi.include_dir()`), mirrored in Rust: the structs a handler reads and writes, with
//! the header's names (without the `XLA_FFI_` prefix) and its enums as `i32` newtypes.
//!
//! Enums are `int` in C and XLA may send a value this header does not know, so none is a Rust
//! `enum` (an unknown discriminant would be undefined behaviour): each is a newtype over the
//! `i32` with the header's values as constants. Every struct's `struct_size` is the header's
//! `XLA_FFI_<T>_STRUCT_SIZE` (offset of the field its traits name, plus that field's size),
//! which is not always `size_of` (`CallFrame` is 168 bytes by the header, 176 in memory): each
//! is a constant here, computed from the mirror and pinned to the header's number, and every
//! field's offset is pinned to the header's (`offsetof`, read on x86-64 Linux), so a mirror
//! that drifted from the header does not compile.
//!
//! ```
//! use xlayout::ffi::c_api::{CallFrame, ErrorCode, API_VERSION, CALL_FRAME_STRUCT_SIZE};
//! assert_eq!(API_VERSION, (0, 3));
//! assert_eq!((CALL_FRAME_STRUCT_SIZE, core::mem::size_of::<CallFrame>()), (168, 176));
//! assert_eq!(ErrorCode::INVALID_ARGUMENT.0, 3);
//! ```

use core::ffi::{c_char, c_void};
use core::mem::{offset_of, size_of};

/// `(XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR)` of the header mirrored here: what a handler
/// answers XLA's metadata query with, and the major version a call frame must come from.
/// When bumping it, re-read the header and the offsets below.
pub const API_VERSION: (i32, i32) = (0, 3);

/// Declares a newtype over a C enum's `int`, with the header's values as constants.
macro_rules! c_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $value:ident = $n:literal,)* }) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name(pub i32);

        impl $name {
            $($(#[$vdoc])* pub const $value: $name = $name($n);)*
        }
    };
}

c_enum! {
    /// `XLA_FFI_Extension_Type`.
    ///
    /// ```
    /// assert_eq!(xlayout::ffi::c_api::ExtensionType::METADATA.0, 1);
    /// ```
    ExtensionType {
        /// `XLA_FFI_Extension_Metadata`: the registration's query of the handler's version.
        METADATA = 1,
    }
}

c_enum! {
    /// `XLA_FFI_Error_Code` (absl's status codes).
    ///
    /// ```
    /// assert_eq!(xlayout::ffi::c_api::ErrorCode::INTERNAL.0, 13);
    /// ```
    ErrorCode {
        /// `OK`.
        OK = 0,
        /// `CANCELLED`.
        CANCELLED = 1,
        /// `UNKNOWN`.
        UNKNOWN = 2,
        /// `INVALID_ARGUMENT`: what a buffer or attribute that does not match the declaration
        /// is.
        INVALID_ARGUMENT = 3,
        /// `DEADLINE_EXCEEDED`.
        DEADLINE_EXCEEDED = 4,
        /// `NOT_FOUND`.
        NOT_FOUND = 5,
        /// `ALREADY_EXISTS`.
        ALREADY_EXISTS = 6,
        /// `PERMISSION_DENIED`.
        PERMISSION_DENIED = 7,
        /// `RESOURCE_EXHAUSTED`.
        RESOURCE_EXHAUSTED = 8,
        /// `FAILED_PRECONDITION`.
        FAILED_PRECONDITION = 9,
        /// `ABORTED`.
        ABORTED = 10,
        /// `OUT_OF_RANGE`.
        OUT_OF_RANGE = 11,
        /// `UNIMPLEMENTED`.
        UNIMPLEMENTED = 12,
        /// `INTERNAL`: what a panic in a handler's body becomes.
        INTERNAL = 13,
        /// `UNAVAILABLE`.
        UNAVAILABLE = 14,
        /// `DATA_LOSS`.
        DATA_LOSS = 15,
        /// `UNAUTHENTICATED`.
        UNAUTHENTICATED = 16,
    }
}

c_enum! {
    /// `XLA_FFI_ExecutionStage`.
    ///
    /// ```
    /// assert_eq!(xlayout::ffi::c_api::ExecutionStage::EXECUTE.0, 3);
    /// ```
    ExecutionStage {
        /// Once per call site, when the executable is built: attributes, no buffers.
        INSTANTIATE = 0,
        /// Before each run (XLA:GPU requests resources here; XLA:CPU never calls it).
        PREPARE = 1,
        /// Before each run, after prepare (XLA:CPU never calls it).
        INITIALIZE = 2,
        /// Each run: the buffers and the attributes.
        EXECUTE = 3,
    }
}

c_enum! {
    /// `XLA_FFI_ArgType` (and `XLA_FFI_RetType`, whose one value is the same).
    ///
    /// ```
    /// assert_eq!(xlayout::ffi::c_api::ArgType::BUFFER.0, 1);
    /// ```
    ArgType {
        /// A buffer, `XLA_FFI_Buffer*`.
        BUFFER = 1,
    }
}

c_enum! {
    /// `XLA_FFI_AttrType`.
    ///
    /// ```
    /// assert_eq!(xlayout::ffi::c_api::AttrType::SCALAR.0, 3);
    /// ```
    AttrType {
        /// `XLA_FFI_Array*`.
        ARRAY = 1,
        /// A nested `XLA_FFI_Attrs*`.
        DICTIONARY = 2,
        /// `XLA_FFI_Scalar*`.
        SCALAR = 3,
        /// `XLA_FFI_ByteSpan*`.
        STRING = 4,
    }
}

/// `XLA_FFI_DataType`: the number is `xla::PrimitiveType`'s, so
/// [`PrimitiveType::from_enum_value`](crate::PrimitiveType::from_enum_value) reads it.
///
/// ```
/// use xlayout::{ffi::c_api::DataType, PrimitiveType};
/// assert_eq!(DataType::from(PrimitiveType::Bf16), DataType(16));
/// assert_eq!(DataType(11).primitive_type(), Some(PrimitiveType::F32));
/// assert_eq!(DataType(0).primitive_type(), None); // INVALID
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataType(pub i32);

impl DataType {
    /// The element type with this number; `None` for `INVALID` (0) and numbers XLA has not
    /// given a type.
    pub fn primitive_type(self) -> Option<crate::PrimitiveType> {
        crate::PrimitiveType::from_enum_value(self.0)
    }
}

impl From<crate::PrimitiveType> for DataType {
    fn from(t: crate::PrimitiveType) -> DataType {
        DataType(t.enum_value())
    }
}

/// `XLA_FFI_Extension_Base`: the head of an extension, chained by `next`.
#[repr(C)]
#[derive(Debug)]
pub struct ExtensionBase {
    /// `EXTENSION_BASE_STRUCT_SIZE` or more.
    pub struct_size: usize,
    /// Which extension this is.
    pub type_: ExtensionType,
    /// The next extension, or null.
    pub next: *mut ExtensionBase,
}

/// `XLA_FFI_Api_Version`.
#[repr(C)]
#[derive(Debug)]
pub struct ApiVersion {
    /// `API_VERSION_STRUCT_SIZE`.
    pub struct_size: usize,
    /// Null.
    pub extension_start: *mut ExtensionBase,
    /// `XLA_FFI_API_MAJOR`.
    pub major_version: i32,
    /// `XLA_FFI_API_MINOR`.
    pub minor_version: i32,
}

/// `XLA_FFI_Error`: opaque; made by `Api::error_create`, owned by XLA once returned.
#[repr(C)]
pub struct Error {
    _opaque: [u8; 0],
}

/// `XLA_FFI_ExecutionContext`: opaque.
#[repr(C)]
pub struct ExecutionContext {
    _opaque: [u8; 0],
}

/// `XLA_FFI_Future`: opaque.
#[repr(C)]
pub struct Future {
    _opaque: [u8; 0],
}

/// `XLA_FFI_InternalApi`: opaque.
#[repr(C)]
pub struct InternalApi {
    _opaque: [u8; 0],
}

/// `XLA_FFI_Error_Create_Args`.
#[repr(C)]
#[derive(Debug)]
pub struct ErrorCreateArgs {
    /// `ERROR_CREATE_ARGS_STRUCT_SIZE` (28, not `size_of`'s 32).
    pub struct_size: usize,
    /// Null.
    pub extension_start: *mut ExtensionBase,
    /// The message, NUL-terminated; XLA copies it.
    pub message: *const c_char,
    /// The code.
    pub errc: ErrorCode,
}

/// `XLA_FFI_Buffer`: an array's data, element type and logical dimensions (no layout: the
/// custom call's operand layout fixes it when the program is compiled).
#[repr(C)]
#[derive(Debug)]
pub struct Buffer {
    /// `BUFFER_STRUCT_SIZE`.
    pub struct_size: usize,
    /// Null.
    pub extension_start: *mut ExtensionBase,
    /// The element type.
    pub dtype: DataType,
    /// The first byte of the whole array (null allowed for an empty one).
    pub data: *mut c_void,
    /// The number of dimensions.
    pub rank: i64,
    /// `rank` dimension sizes, dimension 0 first.
    pub dims: *mut i64,
}

/// `XLA_FFI_ByteSpan`: bytes, not NUL-terminated.
#[repr(C)]
#[derive(Debug)]
pub struct ByteSpan {
    /// The first byte.
    pub ptr: *const c_char,
    /// The number of bytes.
    pub len: usize,
}

/// `XLA_FFI_Scalar`: one value of `dtype` at `value`.
#[repr(C)]
#[derive(Debug)]
pub struct Scalar {
    /// The value's type.
    pub dtype: DataType,
    /// The value.
    pub value: *mut c_void,
}

/// `XLA_FFI_Array`: `size` values of `dtype` at `data`.
#[repr(C)]
#[derive(Debug)]
pub struct Array {
    /// The values' type.
    pub dtype: DataType,
    /// The number of values.
    pub size: usize,
    /// The first value.
    pub data: *mut c_void,
}

/// `XLA_FFI_TypeId`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeId {
    /// 0 is `XLA_FFI_UNKNOWN_TYPE_ID`.
    pub type_id: i64,
}

/// `XLA_FFI_Args`: the operands.
#[repr(C)]
#[derive(Debug)]
pub struct Args {
    /// `ARGS_STRUCT_SIZE`.
    pub struct_size: usize,
    /// Null.
    pub extension_start: *mut ExtensionBase,
    /// The number of operands.
    pub size: i64,
    /// `size` tags, each [`ArgType::BUFFER`].
    pub types: *mut ArgType,
    /// `size` pointers, each to a [`Buffer`].
    pub args: *mut *mut c_void,
}

/// `XLA_FFI_Rets`: the results.
#[repr(C)]
#[derive(Debug)]
pub struct Rets {
    /// `RETS_STRUCT_SIZE`.
    pub struct_size: usize,
    /// Null.
    pub extension_start: *mut ExtensionBase,
    /// The number of results.
    pub size: i64,
    /// `size` tags, each `XLA_FFI_RetType_BUFFER` (1).
    pub types: *mut ArgType,
    /// `size` pointers, each to a [`Buffer`].
    pub rets: *mut *mut c_void,
}

/// `XLA_FFI_Attrs`: the attributes, sorted by name.
#[repr(C)]
#[derive(Debug)]
pub struct Attrs {
    /// `ATTRS_STRUCT_SIZE`.
    pub struct_size: usize,
    /// Null.
    pub extension_start: *mut ExtensionBase,
    /// The number of attributes.
    pub size: i64,
    /// `size` tags.
    pub types: *mut AttrType,
    /// `size` names.
    pub names: *mut *mut ByteSpan,
    /// `size` values, each what its tag says.
    pub attrs: *mut *mut c_void,
}

/// `XLA_FFI_CallFrame`: everything one call of a handler receives.
#[repr(C)]
#[derive(Debug)]
pub struct CallFrame {
    /// `CALL_FRAME_STRUCT_SIZE` (168, not `size_of`'s 176: `future` lies past it).
    pub struct_size: usize,
    /// Null, or the metadata extension of the registration's query.
    pub extension_start: *mut ExtensionBase,
    /// The API, through which a handler makes its errors.
    pub api: *const Api,
    /// The execution context.
    pub ctx: *mut ExecutionContext,
    /// The stage.
    pub stage: ExecutionStage,
    /// The operands.
    pub args: Args,
    /// The results.
    pub rets: Rets,
    /// The attributes.
    pub attrs: Attrs,
    /// Out: a future, for a handler that finishes later (null: finished on return).
    pub future: *mut Future,
}

/// `XLA_FFI_Handler`: `XLA_FFI_Error* (XLA_FFI_CallFrame*)`, null on success.
pub type Handler = unsafe extern "C" fn(*mut CallFrame) -> *mut Error;

/// `XLA_FFI_Handler_Bundle`: a handler per stage (only `execute` required).
#[repr(C)]
#[derive(Debug)]
pub struct HandlerBundle {
    /// The instantiate stage's handler.
    pub instantiate: Option<Handler>,
    /// The prepare stage's handler.
    pub prepare: Option<Handler>,
    /// The initialize stage's handler.
    pub initialize: Option<Handler>,
    /// The execute stage's handler.
    pub execute: Option<Handler>,
}

/// `XLA_FFI_Metadata`: what a handler tells XLA when it is registered.
#[repr(C)]
#[derive(Debug)]
pub struct Metadata {
    /// `METADATA_STRUCT_SIZE` (36: `state_type_id` lies past it).
    pub struct_size: usize,
    /// Out: the version of the header the handler was built with.
    pub api_version: ApiVersion,
    /// Out: `XLA_FFI_Handler_Traits` bits (none on CPU).
    pub traits: u32,
    /// Out: the type of an instantiate handler's state (unknown: none).
    pub state_type_id: TypeId,
}

/// `XLA_FFI_Metadata_Extension`.
#[repr(C)]
#[derive(Debug)]
pub struct MetadataExtension {
    /// Its head, type [`ExtensionType::METADATA`].
    pub extension_base: ExtensionBase,
    /// The metadata to fill.
    pub metadata: *mut Metadata,
}

/// An API function this crate does not call: its arguments struct is not mirrored.
pub type OtherFn = Option<unsafe extern "C" fn(*mut c_void) -> *mut Error>;

/// `XLA_FFI_Api`: the version and the function table of the XLA that calls the handler.
#[repr(C)]
#[derive(Debug)]
pub struct Api {
    /// `API_STRUCT_SIZE`, or more from a later minor version.
    pub struct_size: usize,
    /// Null.
    pub extension_start: *mut ExtensionBase,
    /// The version of the calling XLA.
    pub api_version: ApiVersion,
    /// XLA's own.
    pub internal_api: *const InternalApi,
    /// `XLA_FFI_Error_Create`.
    pub error_create: Option<unsafe extern "C" fn(*mut ErrorCreateArgs) -> *mut Error>,
    /// `XLA_FFI_Error_GetMessage` (returns nothing).
    pub error_get_message: Option<unsafe extern "C" fn(*mut c_void)>,
    /// `XLA_FFI_Error_Destroy` (returns nothing).
    pub error_destroy: Option<unsafe extern "C" fn(*mut c_void)>,
    /// `XLA_FFI_Handler_Register`.
    pub handler_register: OtherFn,
    /// `XLA_FFI_Stream_Get`.
    pub stream_get: OtherFn,
    /// `XLA_FFI_Type_Register`.
    pub type_register: OtherFn,
    /// `XLA_FFI_ExecutionContext_Get`.
    pub execution_context_get: OtherFn,
    /// `XLA_FFI_State_Set`.
    pub state_set: OtherFn,
    /// `XLA_FFI_State_Get`.
    pub state_get: OtherFn,
    /// `XLA_FFI_DeviceMemory_Allocate`.
    pub device_memory_allocate: OtherFn,
    /// `XLA_FFI_DeviceMemory_Free`.
    pub device_memory_free: OtherFn,
    /// `XLA_FFI_ThreadPool_Schedule`.
    pub thread_pool_schedule: OtherFn,
    /// `XLA_FFI_ThreadPool_NumThreads`.
    pub thread_pool_num_threads: OtherFn,
    /// `XLA_FFI_Future_Create`.
    pub future_create: OtherFn,
    /// `XLA_FFI_Future_SetAvailable`.
    pub future_set_available: OtherFn,
    /// `XLA_FFI_Future_SetError`.
    pub future_set_error: OtherFn,
    /// `XLA_FFI_RunId_Get`.
    pub run_id_get: OtherFn,
    /// `XLA_FFI_DeviceOrdinal_Get`.
    pub device_ordinal_get: OtherFn,
}

/// `XLA_FFI_STRUCT_SIZE(T, field)`: the end of `field`, the header's `struct_size`.
macro_rules! struct_size {
    ($t:ty, $field:ident : $ft:ty) => {
        offset_of!($t, $field) + size_of::<$ft>()
    };
}

/// `XLA_FFI_Extension_Base_STRUCT_SIZE`.
pub const EXTENSION_BASE_STRUCT_SIZE: usize = struct_size!(ExtensionBase, next: *mut ExtensionBase);
/// `XLA_FFI_Api_Version_STRUCT_SIZE`.
pub const API_VERSION_STRUCT_SIZE: usize = struct_size!(ApiVersion, minor_version: i32);
/// `XLA_FFI_Error_Create_Args_STRUCT_SIZE`.
pub const ERROR_CREATE_ARGS_STRUCT_SIZE: usize = struct_size!(ErrorCreateArgs, errc: ErrorCode);
/// `XLA_FFI_Buffer_STRUCT_SIZE`.
pub const BUFFER_STRUCT_SIZE: usize = struct_size!(Buffer, dims: *mut i64);
/// `XLA_FFI_Args_STRUCT_SIZE`.
pub const ARGS_STRUCT_SIZE: usize = struct_size!(Args, args: *mut *mut c_void);
/// `XLA_FFI_Rets_STRUCT_SIZE`.
pub const RETS_STRUCT_SIZE: usize = struct_size!(Rets, rets: *mut *mut c_void);
/// `XLA_FFI_Attrs_STRUCT_SIZE`.
pub const ATTRS_STRUCT_SIZE: usize = struct_size!(Attrs, attrs: *mut *mut c_void);
/// `XLA_FFI_CallFrame_STRUCT_SIZE` (its traits name `attrs`, not `future`).
pub const CALL_FRAME_STRUCT_SIZE: usize = struct_size!(CallFrame, attrs: Attrs);
/// `XLA_FFI_Metadata_STRUCT_SIZE` (its traits name `traits`, not `state_type_id`).
pub const METADATA_STRUCT_SIZE: usize = struct_size!(Metadata, traits: u32);
/// `XLA_FFI_Metadata_Extension_STRUCT_SIZE`.
pub const METADATA_EXTENSION_STRUCT_SIZE: usize =
    struct_size!(MetadataExtension, metadata: *mut Metadata);
/// `XLA_FFI_Api_STRUCT_SIZE`.
pub const API_STRUCT_SIZE: usize = struct_size!(Api, device_ordinal_get: OtherFn);
/// The least `Api::struct_size` through which a handler can report an error: the table up
/// to `error_create`.
pub const API_ERROR_CREATE_END: usize = struct_size!(Api, error_create: OtherFn);

// The header's numbers (x86-64 Linux; `offsetof` and `XLA_FFI_*_STRUCT_SIZE` of jaxlib
// 0.10.2's c_api.h): a mirror that drifts from the header does not compile. XLA runs on
// 64-bit targets only; there the numbers are the same on every one it supports.
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(EXTENSION_BASE_STRUCT_SIZE == 24);
    assert!(offset_of!(ExtensionBase, type_) == 8 && offset_of!(ExtensionBase, next) == 16);
    assert!(API_VERSION_STRUCT_SIZE == 24);
    assert!(offset_of!(ApiVersion, major_version) == 16);
    assert!(offset_of!(ApiVersion, minor_version) == 20);
    assert!(ERROR_CREATE_ARGS_STRUCT_SIZE == 28 && size_of::<ErrorCreateArgs>() == 32);
    assert!(offset_of!(ErrorCreateArgs, message) == 16 && offset_of!(ErrorCreateArgs, errc) == 24);
    assert!(BUFFER_STRUCT_SIZE == 48 && size_of::<Buffer>() == 48);
    assert!(offset_of!(Buffer, dtype) == 16 && offset_of!(Buffer, data) == 24);
    assert!(offset_of!(Buffer, rank) == 32 && offset_of!(Buffer, dims) == 40);
    assert!(size_of::<ByteSpan>() == 16 && offset_of!(ByteSpan, len) == 8);
    assert!(size_of::<Scalar>() == 16 && offset_of!(Scalar, value) == 8);
    assert!(size_of::<Array>() == 24 && offset_of!(Array, size) == 8);
    assert!(offset_of!(Array, data) == 16);
    assert!(ARGS_STRUCT_SIZE == 40 && RETS_STRUCT_SIZE == 40 && ATTRS_STRUCT_SIZE == 48);
    assert!(offset_of!(Args, size) == 16 && offset_of!(Args, types) == 24);
    assert!(offset_of!(Args, args) == 32 && offset_of!(Rets, rets) == 32);
    assert!(offset_of!(Attrs, names) == 32 && offset_of!(Attrs, attrs) == 40);
    assert!(CALL_FRAME_STRUCT_SIZE == 168 && size_of::<CallFrame>() == 176);
    assert!(offset_of!(CallFrame, api) == 16 && offset_of!(CallFrame, ctx) == 24);
    assert!(offset_of!(CallFrame, stage) == 32 && offset_of!(CallFrame, args) == 40);
    assert!(offset_of!(CallFrame, rets) == 80 && offset_of!(CallFrame, attrs) == 120);
    assert!(offset_of!(CallFrame, future) == 168);
    assert!(size_of::<HandlerBundle>() == 32 && offset_of!(HandlerBundle, execute) == 24);
    assert!(METADATA_STRUCT_SIZE == 36 && size_of::<Metadata>() == 48);
    assert!(offset_of!(Metadata, api_version) == 8 && offset_of!(Metadata, traits) == 32);
    assert!(offset_of!(Metadata, state_type_id) == 40);
    assert!(METADATA_EXTENSION_STRUCT_SIZE == 32);
    assert!(offset_of!(MetadataExtension, metadata) == 24);
    assert!(API_STRUCT_SIZE == 192 && size_of::<Api>() == 192);
    assert!(offset_of!(Api, api_version) == 16 && offset_of!(Api, internal_api) == 40);
    assert!(offset_of!(Api, error_create) == 48 && offset_of!(Api, handler_register) == 72);
    assert!(offset_of!(Api, future_create) == 152 && offset_of!(Api, device_ordinal_get) == 184);
    assert!(API_ERROR_CREATE_END == 56);
};
