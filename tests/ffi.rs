//! `xlayout::ffi` on hand-built call frames: handlers declared with `handler!`, called as XLA
//! calls them, through a fake API whose `XLA_FFI_Error_Create` records the error. Every frame
//! here is one XLA can send (or one of another API version, refused unread); the error paths
//! are checked for their exact messages, and the results for their values.

use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};

use xlayout::ffi::c_api::{self, *};
use xlayout::ffi::{self, handler};

handler! {
    /// x + y, x column-major.
    pub fn add(x: f32[2,3]{0,1}, y: f32[2,3]{1,0}) -> (out: f32[2,3]{1,0}) {
        for i in 0..2 {
            for j in 0..3 {
                out[[i, j]] = x[[i, j]] + y[[i, j]];
            }
        }
        Ok(())
    }
}

handler! {
    pub fn dyn_scale(x: f32[?,4]{0,1}, factor: f32) -> (y: f32[?,4]{1,0}) where y[0] = x[0] {
        let rows = y.plan().dims()[0];
        for i in 0..rows {
            for j in 0..4 {
                y[[i, j]] = x[[i, j]] * factor;
            }
        }
        Ok(())
    }
}

handler! {
    pub fn bounded(x: s32[<=3]) -> (y: s32[<=3]) where y[0] = x[0] {
        for (o, v) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
            *o = -v;
        }
        Ok(())
    }
}

handler! {
    pub fn not(x: pred[4]) -> (y: pred[4]) {
        for i in 0..4 {
            y[[i]] = !x[[i]];
        }
        Ok(())
    }
}

handler! {
    pub fn boom(x: f32[1]) -> (y: f32[1]) {
        y[[0]] = x[[0]];
        panic!("deliberate, with {} argument", 1)
    }
}

handler! {
    pub fn fails(x: f32[1]) -> (y: f32[1]) {
        y[[0]] = x[[0]];
        Err(ffi::Error::invalid_argument("no, thank you"))
    }
}

handler! {
    pub fn attrs(x: u8[1], a: bool, b: i8, c: i64, d: u32, e: f64) -> (y: f64[1]) {
        let sum = f64::from(u8::from(a)) + f64::from(b) + c as f64 + f64::from(d) + e;
        y[[0]] = sum + f64::from(x[[0]]);
        Ok(())
    }
}

ffi::export!(add, dyn_scale, bounded, not, boom, fails, attrs);

/// What the fake XLA's `XLA_FFI_Error_Create` made: the code and the message.
#[derive(Debug, PartialEq)]
struct Raised {
    code: ErrorCode,
    message: String,
}

unsafe extern "C" fn error_create(args: *mut ErrorCreateArgs) -> *mut c_api::Error {
    let args = unsafe { &*args };
    assert_eq!(args.struct_size, 28, "the header's XLA_FFI_Error_Create_Args_STRUCT_SIZE");
    assert!(args.extension_start.is_null());
    let message = unsafe { CStr::from_ptr(args.message) }.to_string_lossy().into_owned();
    Box::into_raw(Box::new(Raised { code: args.errc, message })).cast()
}

fn api(major: i32, minor: i32) -> Api {
    Api {
        struct_size: API_STRUCT_SIZE,
        extension_start: null_mut(),
        api_version: ApiVersion {
            struct_size: API_VERSION_STRUCT_SIZE,
            extension_start: null_mut(),
            major_version: major,
            minor_version: minor,
        },
        internal_api: null(),
        error_create: Some(error_create),
        error_get_message: None,
        error_destroy: None,
        handler_register: None,
        stream_get: None,
        type_register: None,
        execution_context_get: None,
        state_set: None,
        state_get: None,
        device_memory_allocate: None,
        device_memory_free: None,
        thread_pool_schedule: None,
        thread_pool_num_threads: None,
        future_create: None,
        future_set_available: None,
        future_set_error: None,
        run_id_get: None,
        device_ordinal_get: None,
    }
}

/// One buffer of a frame: element type, sizes, data (any pointer, for the error paths).
struct Buf {
    dtype: DataType,
    dims: Vec<i64>,
    data: *mut c_void,
}

impl Buf {
    fn new(dtype: PrimitiveTypeName, dims: &[i64], data: *mut c_void) -> Buf {
        Buf { dtype: DataType(dtype as i32), dims: dims.to_vec(), data }
    }
}

/// The element types these tests use, by XLA's numbers.
#[derive(Clone, Copy)]
enum PrimitiveTypeName {
    Pred = 1,
    S8 = 2,
    S32 = 4,
    S64 = 5,
    U8 = 6,
    U32 = 8,
    F32 = 11,
    F64 = 12,
}
use PrimitiveTypeName::*;

/// A scalar attribute: its name, type and value's bytes.
struct Scalar {
    name: &'static str,
    dtype: PrimitiveTypeName,
    bytes: Vec<u8>,
}

fn scalar(name: &'static str, dtype: PrimitiveTypeName, bytes: &[u8]) -> Scalar {
    Scalar { name, dtype, bytes: bytes.to_vec() }
}

/// A frame to build: by default an execute call of API 0.3 with these buffers.
struct Frame {
    api: Api,
    stage: ExecutionStage,
    struct_size: usize,
    args: Vec<Buf>,
    rets: Vec<Buf>,
    attrs: Vec<Scalar>,
    /// The attribute types as sent (defaults to SCALAR for each).
    attr_types: Option<Vec<AttrType>>,
}

impl Frame {
    fn new(args: Vec<Buf>, rets: Vec<Buf>) -> Frame {
        Frame {
            api: api(0, 3),
            stage: ExecutionStage::EXECUTE,
            struct_size: CALL_FRAME_STRUCT_SIZE,
            args,
            rets,
            attrs: Vec::new(),
            attr_types: None,
        }
    }

    fn attrs(mut self, attrs: Vec<Scalar>) -> Frame {
        self.attrs = attrs;
        self
    }

    /// Calls `handler` with this frame, as XLA does.
    fn call(&mut self, handler: Handler) -> Result<(), Raised> {
        self.call_with(handler, null_mut(), |_| {})
    }

    fn call_with(
        &mut self,
        handler: Handler,
        extension: *mut ExtensionBase,
        edit: impl FnOnce(&mut CallFrame),
    ) -> Result<(), Raised> {
        let buffers = |list: &mut Vec<Buf>| {
            let mut raw: Vec<c_api::Buffer> = list
                .iter_mut()
                .map(|b| c_api::Buffer {
                    struct_size: BUFFER_STRUCT_SIZE,
                    extension_start: null_mut(),
                    dtype: b.dtype,
                    data: b.data,
                    rank: b.dims.len() as i64,
                    dims: b.dims.as_mut_ptr(),
                })
                .collect();
            let pointers: Vec<*mut c_void> =
                raw.iter_mut().map(|b| (b as *mut c_api::Buffer).cast()).collect();
            let types = vec![ArgType::BUFFER; list.len()];
            (raw, pointers, types)
        };
        let (_arg_buffers, mut arg_pointers, mut arg_types) = buffers(&mut self.args);
        let (_ret_buffers, mut ret_pointers, mut ret_types) = buffers(&mut self.rets);
        let mut spans: Vec<ByteSpan> = self
            .attrs
            .iter()
            .map(|a| ByteSpan { ptr: a.name.as_ptr().cast(), len: a.name.len() })
            .collect();
        let mut scalars: Vec<c_api::Scalar> = self
            .attrs
            .iter_mut()
            .map(|a| c_api::Scalar {
                dtype: DataType(a.dtype as i32),
                value: a.bytes.as_mut_ptr().cast(),
            })
            .collect();
        let mut names: Vec<*mut ByteSpan> = spans.iter_mut().map(|s| s as *mut ByteSpan).collect();
        let mut values: Vec<*mut c_void> =
            scalars.iter_mut().map(|s| (s as *mut c_api::Scalar).cast()).collect();
        let mut attr_types =
            self.attr_types.clone().unwrap_or_else(|| vec![AttrType::SCALAR; self.attrs.len()]);
        let mut frame = CallFrame {
            struct_size: self.struct_size,
            extension_start: extension,
            api: &self.api,
            ctx: null_mut(),
            stage: self.stage,
            args: Args {
                struct_size: ARGS_STRUCT_SIZE,
                extension_start: null_mut(),
                size: self.args.len() as i64,
                types: arg_types.as_mut_ptr(),
                args: arg_pointers.as_mut_ptr(),
            },
            rets: Rets {
                struct_size: RETS_STRUCT_SIZE,
                extension_start: null_mut(),
                size: self.rets.len() as i64,
                types: ret_types.as_mut_ptr(),
                rets: ret_pointers.as_mut_ptr(),
            },
            attrs: Attrs {
                struct_size: ATTRS_STRUCT_SIZE,
                extension_start: null_mut(),
                size: self.attrs.len() as i64,
                types: attr_types.as_mut_ptr(),
                names: names.as_mut_ptr(),
                attrs: values.as_mut_ptr(),
            },
            future: null_mut(),
        };
        edit(&mut frame);
        let error = unsafe { handler(&mut frame) };
        if error.is_null() {
            Ok(())
        } else {
            Err(*unsafe { Box::from_raw(error.cast::<Raised>()) })
        }
    }
}

fn ptr<T>(data: &mut [T]) -> *mut c_void {
    data.as_mut_ptr().cast()
}

fn invalid(message: &str) -> Result<(), Raised> {
    Err(Raised { code: ErrorCode::INVALID_ARGUMENT, message: message.to_owned() })
}

#[test]
fn computes_with_the_declared_layouts() {
    // x column-major: x[i][j] = 10 i + j at j * 2 + i.
    let mut x = [0.0f32, 10.0, 1.0, 11.0, 2.0, 12.0];
    let mut y = [100.0f32, 200.0, 300.0, 400.0, 500.0, 600.0];
    let mut out = [f32::NAN; 6];
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[2, 3], ptr(&mut x)), Buf::new(F32, &[2, 3], ptr(&mut y))],
        vec![Buf::new(F32, &[2, 3], ptr(&mut out))],
    );
    assert_eq!(frame.call(add), Ok(()));
    assert_eq!(out, [100.0, 201.0, 302.0, 410.0, 511.0, 612.0]);
}

#[test]
fn answers_the_metadata_query_with_its_version() {
    let mut metadata = Metadata {
        struct_size: METADATA_STRUCT_SIZE,
        api_version: ApiVersion {
            struct_size: 24,
            extension_start: null_mut(),
            major_version: 0,
            minor_version: 0,
        },
        traits: 7,
        state_type_id: TypeId { type_id: 0 },
    };
    let metadata: *mut Metadata = &mut metadata;
    let mut extension = MetadataExtension {
        extension_base: ExtensionBase {
            struct_size: METADATA_EXTENSION_STRUCT_SIZE,
            type_: ExtensionType::METADATA,
            next: null_mut(),
        },
        metadata,
    };
    // As XLA sends it: stage EXECUTE, no operands, null arrays.
    let mut frame = Frame::new(Vec::new(), Vec::new());
    let query = (&mut extension as *mut MetadataExtension).cast();
    let result = frame.call_with(add, query, |f| {
        f.args.types = null_mut();
        f.args.args = null_mut();
        f.rets.types = null_mut();
        f.rets.rets = null_mut();
    });
    assert_eq!(result, Ok(()));
    let written = unsafe { &*metadata };
    assert_eq!((written.api_version.major_version, written.api_version.minor_version), API_VERSION);
    assert_eq!((written.api_version.struct_size, written.traits), (24, 0));
    // A metadata struct too small for the header's fields is refused.
    unsafe { (*metadata).struct_size = 35 };
    let result = frame.call_with(add, query, |_| {});
    assert_eq!(
        result,
        invalid(
            "add: Unexpected XLA_FFI_Metadata size: expected at least 36 got 35. Check installed \
             software versions."
        )
    );
}

#[test]
fn refuses_another_major_version_without_reading_the_frame() {
    let mut frame = Frame::new(Vec::new(), Vec::new());
    frame.api = api(1, 0);
    // Operands that would crash a reader: a count with dangling arrays.
    let result = frame.call_with(add, null_mut(), |f| {
        f.args.size = 1 << 40;
        f.args.types = std::ptr::dangling_mut();
        f.args.args = std::ptr::dangling_mut();
    });
    assert_eq!(
        result,
        Err(Raised {
            code: ErrorCode::FAILED_PRECONDITION,
            message: "add: the calling XLA's FFI API is version 1.0, and this handler was built \
                      for 0.3 (xlayout::ffi): a call frame of another major version is not read"
                .into()
        })
    );
    // A later minor version is read.
    let mut x = [1.0f32; 6];
    let mut y = [1.0f32; 6];
    let mut out = [0.0f32; 6];
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[2, 3], ptr(&mut x)), Buf::new(F32, &[2, 3], ptr(&mut y))],
        vec![Buf::new(F32, &[2, 3], ptr(&mut out))],
    );
    frame.api = api(0, 9);
    assert_eq!(frame.call(add), Ok(()));
    assert_eq!(out, [2.0; 6]);
}

#[test]
fn refuses_a_frame_smaller_than_the_header() {
    let mut frame = Frame::new(Vec::new(), Vec::new());
    frame.struct_size = 160;
    assert_eq!(
        frame.call(add),
        invalid(
            "add: Unexpected XLA_FFI_CallFrame size: expected at least 168 got 160. Check \
             installed software versions."
        )
    );
}

#[test]
fn names_the_buffer_the_layout_and_what_came() {
    let mut x = [0.0f32; 6];
    let mut y = [0.0f32; 6];
    let mut out = [0.0f32; 6];
    let call = |args: Vec<Buf>, rets: Vec<Buf>| Frame::new(args, rets).call(add);
    let (xp, yp, op) = (ptr(&mut x), ptr(&mut y), ptr(&mut out));
    // Wrong rank.
    assert_eq!(
        call(
            vec![Buf::new(F32, &[2, 3, 1], xp), Buf::new(F32, &[2, 3], yp)],
            vec![Buf::new(F32, &[2, 3], op)]
        ),
        invalid("add: argument `x`: expected f32[2,3]{0,1}, got a buffer f32[2,3,1]")
    );
    // Wrong element type.
    assert_eq!(
        call(
            vec![Buf::new(S32, &[2, 3], xp), Buf::new(F32, &[2, 3], yp)],
            vec![Buf::new(F32, &[2, 3], op)]
        ),
        invalid("add: argument `x`: expected f32[2,3]{0,1}, got a buffer s32[2,3]")
    );
    // Wrong dimensions, of the second argument and of the result.
    assert_eq!(
        call(
            vec![Buf::new(F32, &[2, 3], xp), Buf::new(F32, &[3, 2], yp)],
            vec![Buf::new(F32, &[2, 3], op)]
        ),
        invalid("add: argument `y`: expected f32[2,3]{1,0}, got a buffer f32[3,2]")
    );
    assert_eq!(
        call(
            vec![Buf::new(F32, &[2, 3], xp), Buf::new(F32, &[2, 3], yp)],
            vec![Buf::new(F64, &[2, 3], op)]
        ),
        invalid("add: result `out`: expected f32[2,3]{1,0}, got a buffer f64[2,3]")
    );
    // A negative size, and a data type XLA has not named.
    assert_eq!(
        call(
            vec![Buf::new(F32, &[2, -3], xp), Buf::new(F32, &[2, 3], yp)],
            vec![Buf::new(F32, &[2, 3], op)]
        ),
        invalid("add: argument `x`: expected f32[2,3]{0,1}, got a buffer f32[2,-3]")
    );
    let mut strange = Buf::new(F32, &[2, 3], xp);
    strange.dtype = DataType(99);
    assert_eq!(
        call(vec![strange, Buf::new(F32, &[2, 3], yp)], vec![Buf::new(F32, &[2, 3], op)]),
        invalid("add: argument `x`: expected f32[2,3]{0,1}, got a buffer of data type 99[2,3]")
    );
    // Counts, in the C++ binding's words.
    assert_eq!(
        call(vec![Buf::new(F32, &[2, 3], xp)], vec![Buf::new(F32, &[2, 3], op)]),
        invalid("add: [3] Wrong number of arguments: expected 2 but got 1")
    );
    assert_eq!(
        call(vec![Buf::new(F32, &[2, 3], xp), Buf::new(F32, &[2, 3], yp)], vec![]),
        invalid("add: [3] Wrong number of results: expected 1 but got 0")
    );
}

#[test]
fn reads_no_sizes_of_an_implausible_rank() {
    let mut x = [0.0f32; 6];
    let mut y = [0.0f32; 6];
    let mut out = [0.0f32; 6];
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[2, 3], ptr(&mut x)), Buf::new(F32, &[2, 3], ptr(&mut y))],
        vec![Buf::new(F32, &[2, 3], ptr(&mut out))],
    );
    let result = frame.call_with(add, null_mut(), |f| {
        // The first buffer's rank, past what is read: its `dims` would be read out of bounds.
        let first = unsafe { &mut *f.args.args.read().cast::<c_api::Buffer>() };
        first.rank = 1 << 40;
    });
    assert_eq!(
        result,
        invalid(
            "add: argument `x`: expected f32[2,3]{0,1}, got a buffer f32 of rank 1099511627776"
        )
    );
}

#[test]
fn takes_a_null_data_pointer_for_no_elements_only() {
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[0, 4], null_mut())],
        vec![Buf::new(F32, &[0, 4], null_mut())],
    )
    .attrs(vec![scalar("factor", F32, &2f32.to_le_bytes())]);
    assert_eq!(frame.call(dyn_scale), Ok(()));
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[2, 4], null_mut())],
        vec![Buf::new(F32, &[2, 4], null_mut())],
    )
    .attrs(vec![scalar("factor", F32, &2f32.to_le_bytes())]);
    assert_eq!(
        frame.call(dyn_scale),
        invalid("dyn_scale: argument `x`: the buffer f32[2,4] has no data (a null pointer for 32 bytes)")
    );
}

#[test]
fn dynamic_dimensions_come_from_the_call() {
    // x column-major f32[3,4]: x[i][j] = i + 10 j.
    let mut x: Vec<f32> = (0..4).flat_map(|j| (0..3).map(move |i| (i + 10 * j) as f32)).collect();
    let mut y = vec![0.0f32; 12];
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[3, 4], ptr(&mut x))],
        vec![Buf::new(F32, &[3, 4], ptr(&mut y))],
    )
    .attrs(vec![scalar("factor", F32, &2f32.to_le_bytes())]);
    assert_eq!(frame.call(dyn_scale), Ok(()));
    let expected: Vec<f32> =
        (0..3).flat_map(|i| (0..4).map(move |j| 2.0 * (i + 10 * j) as f32)).collect();
    assert_eq!(y, expected);
    // The result's rows are the argument's (`where y[0] = x[0]`).
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[3, 4], ptr(&mut x))],
        vec![Buf::new(F32, &[2, 4], ptr(&mut y))],
    )
    .attrs(vec![scalar("factor", F32, &2f32.to_le_bytes())]);
    assert_eq!(
        frame.call(dyn_scale),
        invalid("dyn_scale: `y` dimension 0 is 2 and `x` dimension 0 is 3, declared equal (`y[0] = x[0]`)")
    );
    // A static dimension of a dynamic shape is still checked.
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[3, 3], ptr(&mut x))],
        vec![Buf::new(F32, &[3, 4], ptr(&mut y))],
    )
    .attrs(vec![scalar("factor", F32, &2f32.to_le_bytes())]);
    assert_eq!(
        frame.call(dyn_scale),
        invalid("dyn_scale: argument `x`: expected f32[?,4]{0,1}, got a buffer f32[3,3]")
    );
}

#[test]
fn a_bounded_dimension_takes_up_to_its_bound() {
    let mut x = [1i32, 2, 3, 4];
    let mut y = [0i32; 4];
    let mut frame =
        Frame::new(vec![Buf::new(S32, &[3], ptr(&mut x))], vec![Buf::new(S32, &[3], ptr(&mut y))]);
    assert_eq!(frame.call(bounded), Ok(()));
    assert_eq!(y, [-1, -2, -3, 0]);
    let mut frame =
        Frame::new(vec![Buf::new(S32, &[4], ptr(&mut x))], vec![Buf::new(S32, &[4], ptr(&mut y))]);
    assert_eq!(
        frame.call(bounded),
        invalid("bounded: argument `x`: expected s32[<=3]{0}, got a buffer s32[4]")
    );
}

#[test]
fn results_alias_nothing() {
    let mut x = [1.0f32; 6];
    let mut y = [1.0f32; 6];
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[2, 3], ptr(&mut x)), Buf::new(F32, &[2, 3], ptr(&mut y))],
        vec![Buf::new(F32, &[2, 3], ptr(&mut y))],
    );
    assert_eq!(
        frame.call(add),
        invalid(
            "add: result `out` shares memory with argument `y` (input_output_aliases?): a \
             handler declared with xlayout::ffi writes results that alias no other buffer"
        )
    );
    // A partial overlap, one element in.
    let mut big = [0.0f32; 12];
    let base = big.as_mut_ptr();
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[2, 3], base.cast()), Buf::new(F32, &[2, 3], ptr(&mut y))],
        vec![Buf::new(F32, &[2, 3], unsafe { base.add(5) }.cast())],
    );
    assert!(frame.call(add).unwrap_err().message.contains("shares memory with argument `x`"));
    // Adjacent is not overlapping.
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[2, 3], base.cast()), Buf::new(F32, &[2, 3], ptr(&mut y))],
        vec![Buf::new(F32, &[2, 3], unsafe { base.add(6) }.cast())],
    );
    assert_eq!(frame.call(add), Ok(()));
}

#[test]
fn misaligned_data_is_an_error() {
    let mut bytes = [0u64; 4];
    let odd = unsafe { bytes.as_mut_ptr().cast::<u8>().add(1) };
    let mut y = [0.0f32; 6];
    let mut out = [0.0f32; 6];
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[2, 3], odd.cast()), Buf::new(F32, &[2, 3], ptr(&mut y))],
        vec![Buf::new(F32, &[2, 3], ptr(&mut out))],
    );
    let e = frame.call(add).unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_ARGUMENT);
    assert!(e.message.starts_with("add: argument `x`: the data at 0x"), "{}", e.message);
    assert!(e.message.ends_with(" is not aligned to 4 bytes for f32 elements"), "{}", e.message);
}

#[test]
fn pred_bytes_are_checked_and_pred_results_start_false() {
    let mut x = [1u8, 0, 1, 1];
    let mut y = [7u8; 4];
    let mut frame = Frame::new(
        vec![Buf::new(Pred, &[4], ptr(&mut x))],
        vec![Buf::new(Pred, &[4], ptr(&mut y))],
    );
    assert_eq!(frame.call(not), Ok(()));
    assert_eq!(y, [0, 1, 0, 0]);
    x[2] = 2;
    let mut frame = Frame::new(
        vec![Buf::new(Pred, &[4], ptr(&mut x))],
        vec![Buf::new(Pred, &[4], ptr(&mut y))],
    );
    assert_eq!(
        frame.call(not),
        invalid("not: argument `x`: a byte is neither 0 nor 1, which pred elements are")
    );
}

#[test]
fn a_panic_becomes_an_internal_error() {
    let mut x = [1.0f32];
    let mut y = [0.0f32];
    let mut frame =
        Frame::new(vec![Buf::new(F32, &[1], ptr(&mut x))], vec![Buf::new(F32, &[1], ptr(&mut y))]);
    assert_eq!(
        frame.call(boom),
        Err(Raised {
            code: ErrorCode::INTERNAL,
            message: "boom: panic: deliberate, with 1 argument".into()
        })
    );
    // The body's own error, as it made it.
    let mut frame =
        Frame::new(vec![Buf::new(F32, &[1], ptr(&mut x))], vec![Buf::new(F32, &[1], ptr(&mut y))]);
    assert_eq!(frame.call(fails), invalid("fails: no, thank you"));
}

fn attrs_frame(x: &mut [u8; 1], y: &mut [f64; 1], attrs: Vec<Scalar>) -> Frame {
    Frame::new(vec![Buf::new(U8, &[1], ptr(x))], vec![Buf::new(F64, &[1], ptr(y))]).attrs(attrs)
}

fn all_attrs() -> Vec<Scalar> {
    // Sorted by name, as XLA sends them.
    vec![
        scalar("a", Pred, &[1]),
        scalar("b", S8, &(-3i8).to_le_bytes()),
        scalar("c", S64, &(1i64 << 40).to_le_bytes()),
        scalar("d", U32, &7u32.to_le_bytes()),
        scalar("e", F64, &0.5f64.to_le_bytes()),
    ]
}

#[test]
fn attributes_are_read_by_name_and_type() {
    let (mut x, mut y) = ([2u8], [0.0f64]);
    assert_eq!(attrs_frame(&mut x, &mut y, all_attrs()).call(attrs), Ok(()));
    assert_eq!(y[0], 1.0 - 3.0 + (1u64 << 40) as f64 + 7.0 + 0.5 + 2.0);

    let mut wrong = all_attrs();
    wrong[4] = scalar("e", F32, &0.5f32.to_le_bytes());
    assert_eq!(
        attrs_frame(&mut x, &mut y, wrong).call(attrs),
        invalid("attrs: attribute `e`: dtype f32, expected f64")
    );

    let mut renamed = all_attrs();
    renamed[3].name = "dd";
    assert_eq!(
        attrs_frame(&mut x, &mut y, renamed).call(attrs),
        invalid("attrs: attribute `d` is missing (the call has a, b, c, dd, e)")
    );

    let mut fewer = all_attrs();
    fewer.pop();
    assert_eq!(
        attrs_frame(&mut x, &mut y, fewer).call(attrs),
        invalid(
            "attrs: [3] Wrong number of attributes: expected 5 but got 4 with name(s): a, b, c, d"
        )
    );

    let mut not_a_bool = all_attrs();
    not_a_bool[0] = scalar("a", Pred, &[2]);
    assert_eq!(
        attrs_frame(&mut x, &mut y, not_a_bool).call(attrs),
        invalid("attrs: attribute `a`: not a pred")
    );

    let mut frame = attrs_frame(&mut x, &mut y, all_attrs());
    frame.attr_types = Some(vec![
        AttrType::SCALAR,
        AttrType::STRING,
        AttrType::SCALAR,
        AttrType::SCALAR,
        AttrType::SCALAR,
    ]);
    assert_eq!(
        frame.call(attrs),
        invalid("attrs: attribute `b`: expected a scalar s8, got a string")
    );

    // A Python float for an f32 attribute, with what to do about it.
    let mut frame = Frame::new(
        vec![Buf::new(F32, &[0, 4], null_mut())],
        vec![Buf::new(F32, &[0, 4], null_mut())],
    )
    .attrs(vec![scalar("factor", F64, &2f64.to_le_bytes())]);
    assert_eq!(
        frame.call(dyn_scale),
        invalid(
            "dyn_scale: attribute `factor`: dtype f64, expected f32 (a Python float is f64: pass \
             np.float32(...), or call through xlayout.jax.load)"
        )
    );
}

#[test]
fn each_stage_is_answered_as_the_cpp_binding_answers_it() {
    let (mut x, mut y) = ([2u8], [0.0f64]);
    // Instantiate: attributes only; the buffers are not there to read.
    let mut frame = attrs_frame(&mut x, &mut y, all_attrs());
    frame.stage = ExecutionStage::INSTANTIATE;
    let garbage = |f: &mut CallFrame| {
        f.args.size = 5;
        f.args.types = null_mut();
        f.rets.rets = std::ptr::dangling_mut();
    };
    assert_eq!(frame.call_with(attrs, null_mut(), garbage), Ok(()));
    assert_eq!(y, [0.0], "instantiate runs no kernel");
    let mut wrong = attrs_frame(
        &mut x,
        &mut y,
        all_attrs()[..4].iter().map(|a| scalar(a.name, a.dtype, &a.bytes)).collect(),
    );
    wrong.stage = ExecutionStage::INSTANTIATE;
    assert_eq!(
        wrong.call_with(attrs, null_mut(), garbage),
        invalid(
            "attrs: [0] Wrong number of attributes: expected 5 but got 4 with name(s): a, b, c, d"
        )
    );
    // Prepare and initialize (never called on CPU) do nothing.
    for stage in [ExecutionStage::PREPARE, ExecutionStage::INITIALIZE] {
        let mut frame = attrs_frame(&mut x, &mut y, Vec::new());
        frame.stage = stage;
        assert_eq!(frame.call_with(attrs, null_mut(), garbage), Ok(()));
    }
    let mut frame = attrs_frame(&mut x, &mut y, all_attrs());
    frame.stage = ExecutionStage(7);
    assert_eq!(
        frame.call(attrs),
        invalid("attrs: Wrong execution stage: expected one of 0 to 3 but got `7`")
    );
}

#[test]
fn a_buffer_smaller_than_the_header_is_refused() {
    let mut x = [1.0f32];
    let mut y = [0.0f32];
    let mut frame =
        Frame::new(vec![Buf::new(F32, &[1], ptr(&mut x))], vec![Buf::new(F32, &[1], ptr(&mut y))]);
    let result = frame.call_with(boom, null_mut(), |f| {
        let first = unsafe { &mut *f.args.args.read().cast::<c_api::Buffer>() };
        first.struct_size = 40;
    });
    assert_eq!(
        result,
        invalid("boom: Unexpected XLA_FFI_Buffer size: expected at least 48 got 40. Check installed software versions.")
    );
    let result = frame.call_with(boom, null_mut(), |f| unsafe { f.args.types.write(ArgType(2)) });
    assert_eq!(
        result,
        invalid("boom: argument `x`: expected a buffer f32[1]{0}, got an operand of type 2")
    );
    let result = frame.call_with(boom, null_mut(), |f| unsafe { f.args.args.write(null_mut()) });
    assert_eq!(result, invalid("boom: argument `x`: the buffer is null"));
}

#[test]
fn the_library_exports_each_handler_manifest() {
    let read = |i| {
        let p = xlayout_ffi_manifest(i);
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned())
    };
    assert_eq!(
        read(1).unwrap(),
        r#"{"format":1,"name":"dyn_scale","args":[{"name":"x","shape":"f32[?,4]{0,1}"}],"results":[{"name":"y","shape":"f32[?,4]{1,0}"}],"attrs":[{"name":"factor","type":"f32"}],"equal_dims":[["y",0,"x",0]]}"#
    );
    assert_eq!((0..7).filter_map(read).count(), 7);
    assert_eq!(read(7), None);
    // The signature holds the same texts, and the layout types are the layouts.
    use xlayout::StaticLayout;
    assert_eq!(add::x::TEXT, "f32[2,3]{0,1}");
    assert_eq!(add::SIGNATURE.args[0].minor_to_major, [0, 1]);
    assert_eq!(
        attrs::SIGNATURE.attrs.iter().map(|a| a.element_type.name()).collect::<Vec<_>>(),
        ["pred", "s8", "s64", "u32", "f64"]
    );
}
